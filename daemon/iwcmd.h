/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_IWCMD_H
#define IWCM_IWCMD_H

/*
 * iwcmd internals shared between its files, grouped by the file that
 * defines them (the bgpd/tmux model).  Everything else is static.
 *
 * Ownership: a struct client is one peer on the client or admin socket;
 * a struct listener is one listening TCP socket, owned by a uid and,
 * while a client is attached, routed to that client; a struct conn is one
 * connection being negotiated (conn.c), from accept/connect to handoff.
 * The daemon never touches a connection's socket after handoff.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <time.h>

#include <event2/event.h>

#include "conf.h"
#include "ipc.h"
#include "sctp_session.h"

struct conn;
struct sctp_peel;
struct ucred;

/*
 * The outcome of a request, or why a connection failed: the daemon's own
 * codes.  They are iwcm.proto's Result, in the same order; only the IPC
 * edge (client_api.c, admin.c) converts between the two.
 */
enum conn_result {
	CONN_RES_OK,
	CONN_RES_EINVAL, /* malformed or inconsistent request */
	CONN_RES_EPERM,	 /* credentials do not allow it */
	CONN_RES_ENOENT, /* no such listener, connection, service */
	CONN_RES_EEXIST, /* already listening there */
	CONN_RES_ELIMIT, /* a per-uid or per-listener limit */
	CONN_RES_EADDRINUSE,
	CONN_RES_ETIMEDOUT,
	CONN_RES_ECONNREFUSED,
	CONN_RES_ECONNRESET,
	CONN_RES_EREJECTED, /* the peer rejected (MPA R=1) */
	CONN_RES_EPROTO,    /* the peer violated the protocol */
	CONN_RES_EVERSION,  /* IPC version mismatch */
	CONN_RES_EINTERNAL,
	CONN_RES_ESHUTDOWN, /* the daemon is stopping */
	CONN_RES_MAX
};

/* RFC 5044 §7.1.1: at most 512 octets of Private Data in a frame. */
#define CONN_PARAMS_PD_MAX 512

/*
 * What a client may ask of a negotiation: every negotiable field of
 * iwcm.proto's ConnParams, has_x saying x was given.  The IPC edge
 * converts (and bounds) it; the engine reads only this.
 */
struct conn_params {
	bool has_ird, has_ord, has_p2p, has_rtr_types, has_private_data;
	bool has_mpa_rev, has_markers, has_crc, has_rev0;
	bool has_enhanced_fallback, has_reply_timeout_ms;
	bool has_ulp_timeout_ms, has_rtr_frame, has_transport;
	bool has_first_fpdu_delay_ms, has_qp_takes_read_resp;
	bool has_tcp_user_timeout_ms;
	uint32_t ird, ord; /* RFC 6581 §9.1: 14-bit fields */
	bool p2p;
	uint32_t rtr_types; /* MPA_RTR_* bits */
	uint32_t mpa_rev;
	bool markers;		/* ask the peer for markers */
	bool crc_request;	/* CRC_REQUEST, else CRC_PREFER_OFF */
	bool rev0_permissive;	/* REV0_PERMISSIVE, else STRICT */
	bool enhanced_fallback; /* RFC 6581 §10 retry as v1 */
	uint32_t reply_timeout_ms;
	uint32_t ulp_timeout_ms;
	uint32_t first_fpdu_delay_ms; /* initiator: hold the first FPDU */
	uint32_t tcp_user_timeout_ms; /* TCP_USER_TIMEOUT, 0: none */
	bool rtr_frame;		      /* seed-003 legacy RtR frame */
	bool qp_takes_read_resp;      /* initiator: hand off after a Read RTR */
	bool sctp;		      /* TRANSPORT_SCTP, else TCP */
	bool has_sctp_udp_port;
	uint16_t sctp_udp_port; /* the peer's UDP encapsulation port */
	uint8_t private_data[CONN_PARAMS_PD_MAX];
	size_t private_data_len;
};

/* Where an initiator connects: dst, after binding src (src_len 0: no). */
struct conn_target {
	struct sockaddr_storage dst, src;
	socklen_t dst_len, src_len;
};

/* ---- main.c ---- */

/*
 * The loop's priorities (event_base_priority_init()): events get the
 * middle one by default; control.c's output waits at the lowest for the
 * loop to have nothing else ready.
 */
#define IWCMD_PRIORITIES 3

extern struct event_base *iwcmd_base;
extern const struct iwcmd_conf *iwcmd_conf; /* current configuration */

/* Handshake outcome counters ("iwcmctl stats"). */
#define IWCMD_STATS_STATES 16 /* >= CONN_S_MAX */
#define IWCMD_STATS_TERMS 64  /* kinds of Terminate counted apart */

struct iwcmd_stats {
	uint64_t accepted;	 /* TCP connections accepted */
	uint64_t connects;	 /* client connect requests */
	uint64_t established;	 /* handed off */
	uint64_t rejected_local; /* we sent R=1 */
	uint64_t rejected_peer;	 /* peer sent R=1 */
	uint64_t timeouts;
	uint64_t bad_frames;
	uint64_t term_sent[8]; /* by RFC 5044/6581 MPA code 0-7 */
	uint64_t fallbacks;    /* RFC 6581 §10 retries */
	uint64_t unreachable;
	uint64_t protocol_errors; /* FSM pairs not in the table */
	uint64_t shed;		  /* half-open, dropped to admit another */
	uint64_t refused;	  /* accepted and closed: no room */
	/* for iwcmctl stats -o openmetrics (metrics.c) */
	uint64_t ended[2][CONN_RES_MAX];      /* by neg_role, conn_result */
	uint64_t ended_sctp[2][CONN_RES_MAX]; /* DDP stream sessions, the same */
	uint64_t timeouts_in[IWCMD_STATS_STATES]; /* by conn_state */
	uint64_t handoff_failed;
	uint64_t loop_poll_us; /* polled without sleeping (loop.c) */
	struct iwcmd_stats_term {
		bool rcvd; /* received, else sent */
		uint8_t layer, etype, ecode;
		uint64_t n;
	} term[IWCMD_STATS_TERMS];
	unsigned int n_term;
	uint64_t term_other; /* kinds beyond IWCMD_STATS_TERMS */
};
extern struct iwcmd_stats iwcmd_stats;

/* Count a Terminate sent or received, by layer, type and code. */
static inline void iwcmd_stats_term(bool rcvd, uint8_t layer, uint8_t etype,
				    uint8_t ecode)
{
	struct iwcmd_stats *s = &iwcmd_stats;

	for (unsigned int i = 0; i < s->n_term; i++) {
		struct iwcmd_stats_term *t = &s->term[i];

		if (t->rcvd == rcvd && t->layer == layer && t->etype == etype &&
		    t->ecode == ecode) {
			t->n++;
			return;
		}
	}
	if (s->n_term == IWCMD_STATS_TERMS) {
		s->term_other++;
		return;
	}
	s->term[s->n_term++] =
		(struct iwcmd_stats_term){ rcvd, layer, etype, ecode, 1 };
}

extern struct timespec iwcmd_start; /* CLOCK_MONOTONIC at startup */

/* Milliseconds since the daemon started (monotonic). */
static inline uint64_t iwcmd_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)(ts.tv_sec - iwcmd_start.tv_sec) * 1000 +
	       (uint64_t)((ts.tv_nsec - iwcmd_start.tv_nsec) / 1000000);
}

/* ---- control.c ---- */

struct client {
	TAILQ_ENTRY(client) entry;
	uint64_t id;
	int fd;
	struct event *ev;
	bool admin; /* on the admin socket */
	bool hello; /* version handshake done */
	uid_t uid;  /* SO_PEERCRED */
	gid_t gid;
	pid_t pid;
	unsigned int n_listeners;
};

/*
 * Where control.c hands what its peers send: client_api.c's and
 * admin.c's dispatchers, and who learns that a client went away.  Given
 * by main.c, so that the dispatchers may call control.c and not the
 * other way round.
 */
struct control_handlers {
	void (*client)(struct client *c, struct ipc_msg *m);
	void (*admin)(struct client *c, struct ipc_msg *m);
	void (*gone)(struct client *c); /* a client (not admin) */
};

/* Bind (or adopt, fd >= 0 from socket activation) both sockets. */
int control_init(const char *client_path, int client_fd, const char *admin_path,
		 int admin_fd, const struct control_handlers *h);
/* Close the listening sockets and every client (shutdown). */
void control_shutdown(void);
/* The admin socket path beside a client socket path. */
void control_admin_path(const char *client_path, char *out, size_t len);
/*
 * Send one message to a client: it goes when the loop has nothing else
 * ready (with the others queued meanwhile), so the client wakes once for
 * all of them.  control_send_fd() takes fd (closes it once sent, or on
 * failure); control_send() sends a copy of it.  -1 when the client is
 * gone, or was dropped for not reading, or the message is too large.
 */
int control_send_fd(struct client *c, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, int fd);
int control_send(struct client *c, uint16_t type, uint32_t reqid,
		 const ProtobufCMessage *body, int fd);
/* The daemon's event loop, with IWCMD_PRIORITIES. */
struct event_base *control_base_new(void);

/* loop.c: run base until loop_stop(), polling without sleeping after
 * each exchange with a client for busy_poll_us or an adaptive window
 * (adaptive_poll_us, iwcmd.conf(5)); -1 on failure. */
int loop_run(struct event_base *base);
void loop_stop(void);
/* A message came from or went to a client: stay awake. */
void loop_note_work(void);
/* The adaptive window now, us. */
unsigned int loop_window_us(void);
/* How long a busy loop holds messages (1 ms; tests change it). */
extern unsigned int control_flush_late_us;
struct client *control_find(uint64_t id);
/*
 * Serve fd, a connected SEQPACKET socket, as a peer of the client or
 * admin socket with the credentials cred (SO_PEERCRED on accept; tests
 * inject their own); consumes fd.  -1 when refused (closed).
 */
int control_peer_new(int fd, bool admin, const struct ucred *cred);
/*
 * Close a client's connection (any error on it, or why == NULL for an
 * orderly end); its listeners and requests go away.  The struct stays
 * valid, with fd -1, until the event loop runs again.
 */
void control_close(struct client *c, const char *why);
/* Hold back messages to c while one of its requests is handled. */
void control_cork(struct client *c);
/* Send a request's reply ahead of the held-back messages, releasing them. */
int control_reply(struct client *c, uint16_t type, uint32_t reqid,
		  const ProtobufCMessage *body);
/* Clients on the client socket (not admin) with an open connection. */
unsigned int control_client_count(void);
/* Whether both control sockets are being served (the watchdog asks). */
bool control_healthy(void);

/* ---- client_api.c ---- */

/* Handle one message from a client (not admin) after the handshake. */
void client_api_dispatch(struct client *c, struct ipc_msg *m);
/* A client went away: drop its listeners, reject its pending requests. */
void client_api_gone(struct client *c);
/* CONNECT_REQUEST for a client of the listener; -1 when not sent. */
int client_api_request(struct client *cl, const struct conn *c);
/* CONNECT_ERROR (or UNREACHABLE) to c's owner. */
void client_api_error(const struct conn *c, bool unreachable);
/* REJECTED to c's owner: the peer's Private Data and IRD/ORD. */
void client_api_rejected(const struct conn *c);
/* Established with c's socket, which it takes, to its owner; -1 when
 * not sent. */
int client_api_established(struct conn *c);

/* ---- admin.c ---- */

/* Handle one admin request (admin socket); always ends with END or
 * RESULT. */
void admin_dispatch(struct client *c, struct ipc_msg *m);
/* iwcmctl connect: the NegotiationReport and the RESULT, r the outcome. */
void admin_report(const struct conn *c, enum conn_result r);

/* ---- listener.c ---- */

struct listener_ops;
struct sctp_sock;

struct listener {
	TAILQ_ENTRY(listener) entry;
	uint64_t id;
	const struct listener_ops *ops; /* its transport's */
	int fd;				/* TCP: the listening socket */
	struct event *ev;
	struct sctp_sock *sock;	      /* SCTP: the stack's (sctp_stack.h) */
	struct sockaddr_storage addr; /* as bound (port resolved) */
	socklen_t addrlen;
	char service[CONF_NAME_MAX]; /* "" unless from the config */
	uid_t owner;
	struct client *client; /* attached owner, or NULL */
	struct conf_policy policy;
	struct conn_params *params; /* client's defaults, or NULL */
	unsigned int pending;	    /* requests not yet decided */
	unsigned int pending_max;
	bool nodelay;  /* TCP_NODELAY set: accepted sockets inherit it */
	bool specific; /* bound to one address: an accepted socket's own */
};

/*
 * A transport's listening sockets.  listener.c keeps the listeners of
 * both in one list with one set of books (ids, owners, limits, services
 * of iwcmd.conf, attached clients) and calls these for the socket: TCP's
 * (MPA, listener.c) and SCTP's (DDP stream sessions, sctp_listen.c).
 */
struct listener_ops {
	const char *name;	/* before "listener" in logs: "", "sctp " */
	unsigned int transport; /* conf_listener's */
	uint64_t id_bit;	/* in its listeners' ids */
	/* Bind and listen on ss, or take fd (>= 0, from systemd); set
	 * l->addr, l->addrlen to where it listens; -1 with errno. */
	int (*open)(struct listener *l, const struct sockaddr_storage *ss,
		    socklen_t sslen, unsigned int backlog, int fd);
	/* Close the socket; what l accepted forgets it. */
	void (*close)(struct listener *l);
	/* l has a client: what waited for one goes to it (or NULL). */
	void (*attached)(struct listener *l);
};

/* TCP's (MPA, RFC 5044). */
extern const struct listener_ops listener_tcp;

/* Bind the listeners declared in the configuration. */
int listener_init_config(const struct iwcmd_conf *conf);
/* Keep a socket-activated TCP socket for the [listener NAME] it is named
 * after (consumes fd); listener_init_config() uses it instead of binding. */
void listener_adopt(const char *name, int fd);
/* A client's Listen: a configured service, or an address to bind. */
struct listener_req {
	const struct listener_ops *ops; /* the transport, NULL: TCP */
	const char *service;		/* or NULL: bind addr */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	const struct conn_params *params; /* defaults, or NULL */
	uint32_t backlog;		  /* 0: the default */
};

/* A client asks to listen (by address or service); result code. */
enum conn_result listener_listen(struct client *c,
				 const struct listener_req *req,
				 struct listener **out);
enum conn_result listener_unlisten(struct client *c, uint64_t id);
/* The client to send a new request to, or NULL (then it waits): a
 * listener's requests go only to its owner's clients. */
static inline struct client *listener_route(const struct listener *l)
{
	if (l->client && l->client->fd >= 0 && l->client->uid == l->owner)
		return l->client;
	return NULL;
}
struct listener *listener_find(uint64_t id);
/* The listener of ops whose socket takes what reaches local: the same
 * family and port, on that address or the wildcard. */
struct listener *listener_find_local(const struct listener_ops *ops,
				     const struct sockaddr *local,
				     socklen_t len);
void listener_foreach(void (*fn)(struct listener *, void *), void *arg);
/* The services of conf of ops's transport: the ones gone close, changed
 * ones bind again, new ones bind when bind (else they wait); -1 when
 * one could not be bound. */
int listener_config(const struct listener_ops *ops,
		    const struct iwcmd_conf *conf, bool bind);
/* Whether conf has a service of ops's transport not bound yet. */
bool listener_config_new(const struct listener_ops *ops,
			 const struct iwcmd_conf *conf);
/* A client is gone: its listeners close, its services wait. */
void listener_client_gone(struct client *c);
/* Close every listening socket of ops (NULL: of every transport). */
void listener_shutdown_ops(const struct listener_ops *ops);
/* Close every listening socket (shutdown). */
void listener_shutdown(void);

/* ---- watchdog.c ---- */

/* Start the systemd watchdog pings and STATUS= updates, if enabled. */
void watchdog_init(void);
void watchdog_stop(void);
/* Tell systemd state ("READY=1", ...) with a fresh STATUS= line. */
void watchdog_notify(const char *state);

/* ---- conn.c (the FSM actions), mpa_negotiate.c, rtr_fence.c ---- */

/*
 * How the connection engine tells what happened: to the owning client
 * (client_api.c) or, for iwcmctl connect, to the admin who asked
 * (admin.c).  The engine builds no IPC message; main.c hands the table
 * to conn_init(), so the engine reaches them without calling up.
 */
struct conn_notify {
	int (*request)(struct client *cl, const struct conn *c);
	void (*error)(const struct conn *c, bool unreachable);
	void (*rejected)(const struct conn *c);
	/* takes c's socket (c->fd becomes -1) */
	int (*established)(struct conn *c);
	void (*report)(const struct conn *c, enum conn_result r);
};

/* Who learns what happens to connections (main.c, at startup). */
void conn_init(const struct conn_notify *n);

/* Responder side: listener.c accepted fd (consumes fd). */
void conn_accepted(struct listener *l, int fd);
void conn_accepted_from(struct listener *l, int fd,
			const struct sockaddr_storage *peer, socklen_t plen);
/* Initiator side: a client's Connect; returns the result for its Ack. */
enum conn_result conn_connect(struct client *c, const struct conn_target *t,
			      const struct conn_params *p, uint64_t *conn_id);
/* The owner's decision on a CONNECT_REQUEST. */
enum conn_result conn_ulp_accept(struct client *c, uint64_t conn_id,
				 const struct conn_params *p);
enum conn_result conn_ulp_reject(struct client *c, uint64_t conn_id,
				 const uint8_t *pd, size_t pd_len);
enum conn_result conn_disconnect(struct client *c, uint64_t conn_id);
/* A listener now has a client: deliver the requests waiting for one. */
void conn_listener_attached(struct listener *l);
/* A listener or a client is gone. */
void conn_listener_gone(struct listener *l);
void conn_client_gone(struct client *c);
/* iwcmctl kill; shutdown aborts all. */
enum conn_result conn_kill(uint64_t conn_id);
void conn_abort_all(void);
/*
 * iwcmctl connect: negotiate with the given parameters on behalf of an
 * admin client; sends CTL_NEGOTIATION (raw frames and the outcome) and
 * then RESULT with reqid when done.
 */
enum conn_result conn_force(struct client *c, uint32_t reqid,
			    const struct conn_target *t,
			    const struct conn_params *p);
/* Call fn for every live connection (the admin API describes them). */
void conn_foreach(void (*fn)(const struct conn *, void *), void *arg);
/* Number of live connections. */
unsigned int conn_count(void);
/* Requests at a client of uid awaiting its decision (all its clients). */
unsigned int conn_uid_pending(uid_t uid);
/* fn's count joins conn_uid_pending()'s (sctp_conn_init()). */
void conn_uid_pending_also(unsigned int (*fn)(uid_t uid));

/* ---- sctp_conn.c: DDP stream sessions over SCTP (RFC 5043) ---- */

/* What a client learns about an SCTP session (client_api.c builds the
 * message). */
struct sctp_conn_info {
	uint64_t id;
	uint64_t listener_id; /* passive */
	uint64_t assoc_id;    /* the association carrying the session */
	struct sockaddr_storage local, peer;
	bool initiator;
	size_t maxseg; /* largest DDP Segment either way (RFC 5043 §9) */
	struct sctp_session_info si;
	/* kernel SCTP: the association's own socket goes to the owner with
	 * this (sctp_conn_peel.h); NULL: the fd is a relay's */
	const struct sctp_peel *peel;
	enum conn_result result; /* errors */
	const char *reason;
	/* for iwcmctl conns / show */
	const char *state; /* the session's, or where it waits */
	bool has_owner;
	uid_t owner_uid;
	pid_t owner_pid;
	uint64_t age_ms;
};

/* How sctp_conn.c tells clients (main.c hands it client_api.c's). */
struct sctp_conn_notify {
	int (*request)(struct client *cl, const struct sctp_conn_info *i);
	/* takes fd (the relay's end for the client), sent or not */
	int (*established)(struct client *cl, const struct sctp_conn_info *i,
			   int fd);
	void (*rejected)(struct client *cl, const struct sctp_conn_info *i);
	void (*error)(struct client *cl, const struct sctp_conn_info *i,
		      bool unreachable);
};

/* Connection and listener ids of SCTP have this bit, TCP's never. */
#define SCTP_CONN_ID_BIT (1ull << 62)

void sctp_conn_init(const struct sctp_conn_notify *n);
/* Peers' sessions at a client of uid awaiting its decision. */
unsigned int sctp_conn_uid_pending(uid_t uid);
enum conn_result sctp_conn_listen(struct client *c,
				  const struct sockaddr_storage *addr,
				  socklen_t len, uint64_t *id,
				  struct sockaddr_storage *bound);
enum conn_result sctp_conn_unlisten(struct client *c, uint64_t id);
/* A client attaches to an SCTP [listener] service of iwcmd.conf. */
enum conn_result sctp_conn_attach(struct client *c, const char *name,
				  uint64_t *id, struct sockaddr_storage *bound);
/* Bind the SCTP services of conf, drop the ones no longer there; -1
 * when one could not be set up. */
int sctp_conn_init_config(const struct iwcmd_conf *conf);
enum conn_result sctp_conn_connect(struct client *c,
				   const struct conn_target *t,
				   const struct conn_params *p, uint64_t *id);
enum conn_result sctp_conn_accept(struct client *c, uint64_t id,
				  const struct conn_params *p);
enum conn_result sctp_conn_reject(struct client *c, uint64_t id,
				  const uint8_t *pd, size_t pd_len);
enum conn_result sctp_conn_disconnect(struct client *c, uint64_t id);
void sctp_conn_client_gone(struct client *c);
/* Daemon shutdown: sessions terminated, associations closed. */
void sctp_conn_shutdown(void);
/* The same, but the stack runs on (the fuzz harnesses, between inputs). */
void sctp_conn_abort_all(void);
/* Start the configured SCTP stack unless it runs (on first use). */
enum conn_result sctp_conn_stack(void);
/*
 * Where an SCTP connection is (sctp_conn_info.state): its session's
 * state (SESS_S_*), or one of these when it has no session.
 */
#define SCTP_CONN_WAIT_ASSOC SESS_S_MAX	    /* its association comes up */
#define SCTP_CONN_DRAINING (SESS_S_MAX + 1) /* ended, its relay drains */
#define SCTP_CONN_STATES (SESS_S_MAX + 2)
const char *sctp_conn_state_name(unsigned int state);
/* The connections in each state (the gauges of metrics.c), without
 * asking the stack anything. */
void sctp_conn_count_states(unsigned int n[SCTP_CONN_STATES]);
/* iwcmctl conns / show: every SCTP session, or the one of id (-1). */
void sctp_conn_foreach(void (*fn)(const struct sctp_conn_info *, void *),
		       void *arg);
int sctp_conn_get(uint64_t id, struct sctp_conn_info *out);
/* sctp_conn.c's events as client messages (client_api_sctp.c). */
extern const struct sctp_conn_notify client_api_sctp_notify;

#endif
