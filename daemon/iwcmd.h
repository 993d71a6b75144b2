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
#include "pbaddr.h"
#include "iwcm.pb-c.h"
#include "ctl.pb-c.h"

struct conn;

/* ---- main.c ---- */

extern struct event_base *iwcmd_base;
extern const struct iwcmd_conf *iwcmd_conf;	/* current configuration */

/* Handshake outcome counters ("iwcmctl stats"). */
struct iwcmd_stats {
	uint64_t accepted;		/* TCP connections accepted */
	uint64_t connects;		/* client connect requests */
	uint64_t established;		/* handed off */
	uint64_t rejected_local;	/* we sent R=1 */
	uint64_t rejected_peer;		/* peer sent R=1 */
	uint64_t timeouts;
	uint64_t bad_frames;
	uint64_t term_sent[8];		/* by RFC 5044/6581 MPA code 0-7 */
	uint64_t fallbacks;		/* RFC 6581 §10 retries */
	uint64_t unreachable;
	uint64_t protocol_errors;	/* FSM pairs not in the table */
};
extern struct iwcmd_stats iwcmd_stats;

extern struct timespec iwcmd_start;	/* CLOCK_MONOTONIC at startup */

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
	bool admin;		/* on the admin socket */
	bool hello;		/* version handshake done */
	uid_t uid;		/* SO_PEERCRED */
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
	void (*gone)(struct client *c);	/* a client (not admin) */
};

/* Bind (or adopt, fd >= 0 from socket activation) both sockets. */
int control_init(const char *client_path, int client_fd,
		 const char *admin_path, int admin_fd,
		 const struct control_handlers *h);
/* Close the listening sockets and every client (shutdown). */
void control_shutdown(void);
/* The admin socket path beside a client socket path. */
void control_admin_path(const char *client_path, char *out, size_t len);
/* Send one message to a client; on failure the client is dropped. */
int control_send(struct client *c, uint16_t type, uint32_t reqid,
		 const ProtobufCMessage *body, int fd);
struct client *control_find(uint64_t id);
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
/* Check a Connect's (or iwcmctl connect's, forced) destination and
 * parameters: RES_OK or RES_EINVAL. */
Iwcm__Result client_api_check_connect(const Iwcm__SockAddr *dst,
				      const Iwcm__ConnParams *p, bool forced);
/* CONNECT_REQUEST for a client of the listener; -1 when not sent. */
int client_api_request(struct client *cl, const struct conn *c);
/* CONNECT_ERROR (or UNREACHABLE) to c's owner. */
void client_api_error(const struct conn *c, bool unreachable);
/* REJECTED to c's owner: the peer's Private Data and IRD/ORD. */
void client_api_rejected(const struct conn *c);
/* Established with c's socket to its owner; -1 when not sent. */
int client_api_established(const struct conn *c);

/* ---- admin.c ---- */

/* Handle one admin request (admin socket); always ends with END or
 * RESULT. */
void admin_dispatch(struct client *c, struct ipc_msg *m);
/* iwcmctl connect: the NegotiationReport and the RESULT, r the outcome. */
void admin_report(const struct conn *c, Iwcm__Result r);

/* ---- listener.c ---- */

struct listener {
	TAILQ_ENTRY(listener) entry;
	uint64_t id;
	int fd;
	struct event *ev;
	struct sockaddr_storage addr;	/* as bound (port resolved) */
	socklen_t addrlen;
	char service[CONF_NAME_MAX];	/* "" unless from the config */
	uid_t owner;
	struct client *client;		/* attached owner, or NULL */
	struct conf_policy policy;
	Iwcm__ConnParams *params;	/* client's defaults, or NULL */
	unsigned int pending;		/* requests not yet decided */
	unsigned int pending_max;
};

/* Bind the listeners declared in the configuration. */
int listener_init_config(const struct iwcmd_conf *conf);
/* Keep a socket-activated TCP socket for the [listener NAME] it is named
 * after (consumes fd); listener_init_config() uses it instead of binding. */
void listener_adopt(const char *name, int fd);
/* A client asks to listen (by address or service); result code. */
Iwcm__Result listener_listen(struct client *c, const Iwcm__Listen *req,
			     struct listener **out);
Iwcm__Result listener_unlisten(struct client *c, uint64_t id);
/* The client to send a new request to, or NULL (then it waits): a
 * listener's requests go only to its owner's clients. */
static inline struct client *listener_route(const struct listener *l)
{
	if (l->client && l->client->fd >= 0 && l->client->uid == l->owner)
		return l->client;
	return NULL;
}
struct listener *listener_find(uint64_t id);
void listener_foreach(void (*fn)(struct listener *, void *), void *arg);
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
	int (*established)(const struct conn *c);
	void (*report)(const struct conn *c, Iwcm__Result r);
};

/* Who learns what happens to connections (main.c, at startup). */
void conn_init(const struct conn_notify *n);

/* Responder side: listener.c accepted fd (consumes fd). */
void conn_accepted(struct listener *l, int fd);
/* Initiator side: a client's Connect; returns the result for its Ack. */
Iwcm__Result conn_connect(struct client *c, const Iwcm__Connect *req,
			  uint64_t *conn_id);
/* The owner's decision on a CONNECT_REQUEST. */
Iwcm__Result conn_ulp_accept(struct client *c, const Iwcm__Accept *req);
Iwcm__Result conn_ulp_reject(struct client *c, const Iwcm__Reject *req);
Iwcm__Result conn_disconnect(struct client *c, uint64_t conn_id);
/* A listener now has a client: deliver the requests waiting for one. */
void conn_listener_attached(struct listener *l);
/* A listener or a client is gone. */
void conn_listener_gone(struct listener *l);
void conn_client_gone(struct client *c);
/* iwcmctl kill; shutdown aborts all. */
Iwcm__Result conn_kill(uint64_t conn_id);
void conn_abort_all(void);
/*
 * iwcmctl connect: negotiate with the given parameters on behalf of an
 * admin client; sends CTL_NEGOTIATION (raw frames and the outcome) and
 * then RESULT with reqid when done.
 */
Iwcm__Result conn_force(struct client *c, uint32_t reqid,
			const Iwcm__Ctl__ForceConnect *req);
/* Call fn for every live connection (the admin API describes them). */
void conn_foreach(void (*fn)(const struct conn *, void *), void *arg);
/* Number of live connections. */
unsigned int conn_count(void);
/* Requests at a client of uid awaiting its decision (all its clients). */
unsigned int conn_uid_pending(uid_t uid);

#endif
