/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_INTERNAL_H
#define IWCM_LIBCLIENT_INTERNAL_H

/*
 * libiwcm internals shared between ctx.c (the context and its teardown),
 * chan.c (the channel to iwcmd: requests, replies, events), cm.c
 * (parameters, listen/connect/accept/reject, the daemon's events),
 * cm_conn.c (the connection and listener objects, a connection's state
 * and socket) and events.c (the event queue).  Calls go one way: ctx.c
 * above cm.c above events.c, cm_conn.c and chan.c; the channel reaches
 * cm.c only through the context's upcalls.  Everything here is hidden:
 * only functions marked IWCM_EXPORT and listed in libiwcm.map leave the
 * library.
 *
 * Ownership: the context owns every listener, connection and event made
 * from it (lists below) and frees them all in iwcm_ctx_close().  A
 * connection is freed when the caller has called iwcm_conn_free() and no
 * event refers to it any more (refs).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "ipc.h"
#include "pbaddr.h"
#include <iwcm/iwcm.h>
#include "iwcm.pb-c.h"

#define IWCM_EXPORT __attribute__((visibility("default")))

/* Set errno and fail, the rdma-core way. */
#define ERR(e) (errno = (e), -1)
#define ERR_PTR(e) (errno = (e), NULL)

#define IWCM_DEFAULT_SOCKET "/run/iwcm/iwcmd.sock"
/* How long a request waits for the daemon's reply. */
#define IWCM_REQUEST_TIMEOUT_MS 30000

/* Where a connection stands, from the library's point of view. */
enum conn_state {
	CONN_CONNECTING, /* iwcm_connect() acknowledged */
	CONN_REQUESTED,	 /* CONNECT_REQUEST, no decision yet */
	CONN_ACCEPTING,	 /* iwcm_accept() acknowledged */
	CONN_ESTABLISHED,
	CONN_REJECTED, /* by the peer, or by us (iwcm_reject) */
	CONN_FAILED,   /* UNREACHABLE or CONNECT_ERROR */
};

/* What the peer's MPA frame said (PeerInfo). */
struct peer_info {
	bool known;
	uint32_t mpa_rev;
	uint32_t flags;
	bool enhanced;
	bool p2p;
	uint32_t rtr_types;
	uint32_t ird;
	uint32_t ord;
	uint8_t *pd;
	size_t pd_len;
};

struct iwcm_listener {
	TAILQ_ENTRY(iwcm_listener) entry;
	struct iwcm_ctx *ctx;
	uint64_t id;
	struct sockaddr_storage addr;
};

struct iwcm_conn {
	TAILQ_ENTRY(iwcm_conn) entry;
	struct iwcm_ctx *ctx;
	uint64_t id;
	enum conn_state state;
	bool initiator;
	bool user_freed;   /* iwcm_conn_free() called */
	unsigned int refs; /* user + each event naming it + ack_reqid */
	/* IWCM_CTX_ASYNC_CM: the request id of the Connect, Accept or
	 * Reject whose Ack has not come yet (it holds a reference), or 0;
	 * id is 0 until a Connect's Ack names the connection. */
	uint32_t ack_reqid;
	uint64_t listener_id; /* responder side, else 0 */

	struct sockaddr_storage local;
	bool local_known;
	struct sockaddr_storage peer;

	/*
	 * The socket is taken exactly once: by iwcm_conn_release_fd(), by
	 * iwcm_create_qp() (cm_conn_take_fd()) or closed with the
	 * connection.  iwcm_create_qp() is thread-safe, so fd and
	 * fd_released are read and written only under fd_lock.
	 */
	pthread_mutex_t fd_lock;
	int fd; /* -1 until ESTABLISHED */
	bool fd_released;

	/* Failure. */
	enum iwcm_status reason;
	char *reason_text;
	bool term;
	unsigned int term_layer, term_etype, term_ecode;

	/* Negotiated (Established). */
	struct peer_info peer_info;
	uint32_t transport;
	uint16_t sctp_stream;	   /* SCTP: the session's stream */
	uint32_t sctp_max_segment; /* SCTP: largest DDP Segment */
	/* SCTP: the association's own socket with this state, else NULL
	 * (iwcmd's relay) */
	struct fs_handoff *sctp_handoff;
	uint32_t mpa_rev;
	uint32_t ddp_version;
	uint32_t rdmap_version;
	bool markers_tx, markers_rx, crc, enhanced, p2p;
	uint32_t rtr_type;
	bool rtr_frame;
	uint32_t ird, ord;
	uint64_t tx_offset, rx_offset;
	uint8_t *unread;
	size_t unread_len;
	uint32_t *next_msn;
	size_t n_msn;
	bool wait_first_fpdu;
	/* initiator: the Read RTR's Response still due, to this sink */
	bool rtr_read_due;
	uint32_t rtr_read_stag;
	uint64_t rtr_read_to;
	/* Datapath capabilities set by iwcm_conn_synth() (synth.h);
	 * otherwise atomics and Immediate Data follow rdmap_version. */
	bool dp_caps, dp_atomics, dp_imm_data;
};

struct iwcm_event {
	TAILQ_ENTRY(iwcm_event) entry;
	struct iwcm_ctx *ctx;
	enum iwcm_cm_event_type type;
	struct iwcm_conn *conn; /* holds a reference */
	bool queued;		/* not yet returned to the caller */
};

TAILQ_HEAD(listener_list, iwcm_listener);
TAILQ_HEAD(conn_list, iwcm_conn);
TAILQ_HEAD(event_list, iwcm_event);

struct dp;
struct fs_handoff;

struct iwcm_ctx {
	int sock; /* SEQPACKET to iwcmd, O_NONBLOCK */
	int epfd; /* iwcm_ctx_get_fd(): sock + evfd */
	int evfd; /* eventfd, readable while queued */
	bool nonblock;
	bool async_cm;	    /* IWCM_CTX_ASYNC_CM */
	unsigned int flags; /* enum iwcm_ctx_flags */
	struct dp *dp;	    /* the datapath (dp.h), or NULL */
	bool signaled;	    /* evfd holds a count */
	bool signal_hold;   /* iwcm_get_event() runs: evfd set on return */
	bool dead;	    /* the daemon closed or misbehaved */
	uint32_t next_reqid;
	struct listener_list listeners;
	struct conn_list conns;
	struct event_list queue; /* events not yet returned */
	struct event_list out;	 /* returned, not yet acknowledged */
	struct ipc_msg msg;	 /* receive buffer */
	/* Upcalls of the channel (chan.c), set by iwcm_ctx_open_path(). */
	void (*on_event)(struct iwcm_ctx *ctx, struct ipc_msg *m);
	void (*on_gone)(struct iwcm_ctx *ctx);
	/* The adaptive polling window (ctx_poll.c), us. */
	unsigned int poll_max; /* IWCM_POLL_US; 0: off */
	unsigned int poll_win;
	uint64_t poll_last; /* the last exchange with iwcmd */
	bool poll_idle;	    /* the channel was found empty since */
	/* IWCM_PROGRESS_IDLE_US (cprog.c): the progress thread's tick. */
	unsigned int progress_idle_us;
};

/* A decimal number from 0 to max in s into *out: 0, or -1 with EINVAL
 * (the environment's settings: IWCM_POLL_US, IWCM_PROGRESS_IDLE_US). */
static inline int env_uint_parse(const char *s, unsigned long max,
				 unsigned int *out)
{
	unsigned long v = 0;

	if (!s || !*s)
		return ERR(EINVAL);
	for (; *s; s++) {
		if (*s < '0' || *s > '9')
			return ERR(EINVAL);
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > max)
			return ERR(EINVAL);
	}
	*out = (unsigned int)v;
	return 0;
}

/* ---- ctx_poll.c ---- */

/* IWCM_POLL_US: the default and the largest value. */
#define IWCM_POLL_US_DEFAULT 200
#define IWCM_POLL_US_MAX 100000
/* CLOCK_MONOTONIC in us. */
uint64_t ctx_poll_now(void);
/* Parse a value of IWCM_POLL_US into *limit; -1 with EINVAL if bad. */
int ctx_poll_parse(const char *s, unsigned int *limit);
/* Set the window's limit from IWCM_POLL_US and the CPUs the calling
 * thread may use; -1 with EINVAL when IWCM_POLL_US is bad. */
int ctx_poll_init(struct iwcm_ctx *ctx);
/* A message went to the daemon at now. */
void ctx_poll_sent(struct iwcm_ctx *ctx, uint64_t now);
/* The channel had no message. */
void ctx_poll_empty(struct iwcm_ctx *ctx);
/* A message came from the daemon at now: adapt the window. */
void ctx_poll_received(struct iwcm_ctx *ctx, uint64_t now);
/* The us left of the window at now (0: sleep). */
unsigned int ctx_poll_left(const struct iwcm_ctx *ctx, uint64_t now);
/* poll(2) the daemon's socket for timeout_ms, polling without sleeping
 * for what is left of the window first; poll(2)'s result. */
int ctx_poll_sock(struct iwcm_ctx *ctx, int timeout_ms);

/* ---- cprog.c ---- */

/* IWCM_PROGRESS_IDLE_US: the default and the largest value. */
#define CPROG_IDLE_US_DEFAULT 10000
#define CPROG_IDLE_US_MAX 1000000
/* Parse IWCM_PROGRESS_IDLE_US into *us; -1 with EINVAL if bad. */
int cprog_idle_parse(const char *s, unsigned int *us);
/* Set the progress thread's tick from IWCM_PROGRESS_IDLE_US; -1 with
 * EINVAL when it is bad. */
int cprog_idle_init(struct iwcm_ctx *ctx);

/* ---- chan.c ---- */

/*
 * Send a request and wait for its reply of type reply_type, unpacked
 * as d; events that arrive meanwhile are queued.  Returns the reply
 * (free with protobuf_c_message_free_unpacked) or NULL with errno.
 */
ProtobufCMessage *chan_request(struct iwcm_ctx *ctx, uint16_t type,
			       const ProtobufCMessage *body,
			       uint16_t reply_type,
			       const ProtobufCMessageDescriptor *d);
/* Send a request whose reply is ignored (Disconnect, Reject on drop). */
int chan_send_async(struct iwcm_ctx *ctx, uint16_t type,
		    const ProtobufCMessage *body);
/* Send a request whose Ack comes to on_event; *reqid names it. */
int chan_send_pipelined(struct iwcm_ctx *ctx, uint16_t type,
			const ProtobufCMessage *body, uint32_t *reqid);
/*
 * Receive and handle at most one message without waiting.  Returns 1
 * when one was handled, 0 when none was ready, -1 with errno when the
 * daemon is gone (ECONNRESET) or the receive failed.
 */
int chan_recv_one(struct iwcm_ctx *ctx);
/* The errno for a daemon result code. */
int chan_result_errno(Iwcm__Result r);

/* ---- verbs.c ---- */

/* Free the context's datapath objects. */
void dp_ctx_free(struct iwcm_ctx *ctx);

/* ---- cm.c ---- */

/* A caller's address as a SockAddr (octets in buf); -1 with EAFNOSUPPORT
 * for another family.  The reverse is pb_sockaddr_to() (pbaddr.h). */
int cm_sockaddr_to_pb(const struct sockaddr *sa, Iwcm__SockAddr *pb,
		      uint8_t *buf);

/* ---- cm_events.c ---- */

/* Copy a PeerInfo into pi; -1 with EPROTO if it is out of range. */
int cm_peer_info_set(struct peer_info *pi, const Iwcm__PeerInfo *pb);
/*
 * The daemon sent an event, or the Ack of a request nobody waited for
 * (IWCM_CTX_ASYNC_CM): update the connection, maybe queue an event.
 * Consumes m's fd (or leaves it for ipc_msg_clear).
 */
void cm_handle_event(struct iwcm_ctx *ctx, struct ipc_msg *m);
/* The daemon is gone: every connection being negotiated fails. */
void cm_daemon_gone(struct iwcm_ctx *ctx);

/* ---- cm_conn.c ---- */

/* Find a live connection, a listener, of ctx by the daemon's id. */
struct iwcm_conn *cm_conn_find(struct iwcm_ctx *ctx, uint64_t id);
struct iwcm_listener *cm_listener_find(struct iwcm_ctx *ctx, uint64_t id);
/* Allocate a connection owned by ctx with one (user) reference. */
struct iwcm_conn *cm_conn_new(struct iwcm_ctx *ctx, uint64_t id);
/* Drop a reference; frees conn at zero. */
void cm_conn_put(struct iwcm_conn *conn);
/* Free a connection whatever its references (iwcm_ctx_close). */
void cm_conn_destroy(struct iwcm_conn *conn);
/* Free a listener (the daemon is told by the caller). */
void cm_listener_destroy(struct iwcm_listener *l);
/* Close the socket unless a QP or the caller took it. */
void cm_conn_close_fd(struct iwcm_conn *c);

/*
 * Take the socket of an established connection for a QP, exactly once
 * whatever the threads (verbs.c: iwcm_create_qp()).  The descriptor, or
 * -1 with errno ENOTCONN (not established) or EBADF (already taken).
 */
int cm_conn_take_fd(struct iwcm_conn *conn);
/* Give back a socket taken by cm_conn_take_fd() when no QP was made. */
void cm_conn_return_fd(struct iwcm_conn *conn);

/* ---- events.c ---- */

/* Queue an event about conn (takes a reference); -1 with ENOMEM. */
int events_queue(struct iwcm_ctx *ctx, enum iwcm_cm_event_type type,
		 struct iwcm_conn *conn);
/* Drop the queued events of conn (iwcm_conn_free). */
void events_drop_conn(struct iwcm_ctx *ctx, struct iwcm_conn *conn);
/* Free every event, queued or returned (iwcm_ctx_close). */
void events_free_all(struct iwcm_ctx *ctx);
/* Keep the eventfd readable exactly while events are queued. */
void events_signal(struct iwcm_ctx *ctx);

#endif
