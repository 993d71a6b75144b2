/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_USRSCTP_INT_H
#define IWCM_SCTP_USRSCTP_INT_H

/*
 * What sctp_usrsctp.c (the stack's operations, its loop) and
 * sctp_usrsctp_sock.c (the sockets: options, errors, closing) share.
 * Includes usrsctp's <usrsctp.h>: for those two files only.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <event2/event.h>
#include <usrsctp.h>

#include "sctp_stack.h"

enum us_state {
	US_LISTEN,
	US_CONNECTING, /* until COMM_UP */
	US_WAIT_ADAPT, /* COMM_UP seen, the peer's indication not yet */
	US_UP,
	US_DOWN,
};

struct sctp_sock {
	TAILQ_ENTRY(sctp_sock) entry;
	TAILQ_ENTRY(sctp_sock) dead_entry; /* released during a pass */
	struct socket *so;
	uint64_t token; /* its upcall's argument (us_token()) */
	uint64_t pass;	/* the last pass that served it */
	enum us_state state;
	const struct sctp_cb *cb;
	void *arg;
	bool want_write; /* a send got EAGAIN */
	bool dead;	 /* closed: freed at the end of the pass */
	bool closing;	 /* closed by its owner, the association ending */
	unsigned int linger_ms; /* closing: since the close, or the ABORT */
	unsigned int tick_ms;	/* closing: the tick armed */
	bool in_setup;		/* closed while its association was set up */
	bool parked;		/* a closed listener, kept (us_close()) */
	TAILQ_ENTRY(sctp_sock) park_entry;
	struct sockaddr_storage bound; /* a listener's own address */
	bool paused;		       /* messages stay in the stack */
	bool got_adapt;
	uint32_t peer_adapt;
	struct event *adapt_timer;
	struct event *accept_timer; /* a listener's deferred accept */
	struct sctp_assoc_info info;
};

/*
 * A closed socket's association: checked every tick, US_SETUP_TICK_MS
 * while it is set up or ABORTed (it ends within milliseconds), else
 * US_LINGER_TICK_MS while a SHUTDOWN delivers what is queued.  A
 * SHUTDOWN that has not ended it after US_LINGER_SHUTDOWN_MS is ABORTed;
 * the socket is given back regardless after US_LINGER_MAX_MS.  One still
 * being set up takes no ABORT: it waits for the association to end or
 * come up (then the ABORT), US_LINGER_SETUP_MS at most, then usrsctp's
 * own zero-linger close.
 */
#define US_LINGER_TICK_MS 100
#define US_SETUP_TICK_MS 10
#define US_LINGER_SETUP_MS 100
#define US_LINGER_SHUTDOWN_MS 5000
#define US_LINGER_MAX_MS 10000
/* Closed listeners kept for reuse, at most (see us_close()). */
#define US_PARKED_MAX 32
/* A listener's queue of associations set up, not yet accepted. */
#define US_LISTEN_BACKLOG 16
/* How long after a listener's wakeup its queue is accepted (us_service()). */
#define US_ACCEPT_DEFER_US 2000

/*
 * The sockets an upcall named since the last pass, by token: a pass
 * serves those, not every socket, so that a packet costs the same
 * beside thousands of idle associations as beside none.  Past
 * US_READY_MAX, or for an upcall without a token, the pass serves
 * them all.
 */
#define US_READY_MAX 4096

/* A socket's token: its slot in us.slot and the slot's generation. */
struct us_slot {
	struct sctp_sock *s;
	uint32_t gen;
	uint32_t next_free; /* while free: the next free slot + 1, or 0 */
};

/* The stack (sctp_usrsctp_sock.c). */
struct us_stack {
	struct event_base *base;
	struct sctp_stack_conf conf;
	int wake_fd;
	bool wake_pending; /* the eventfd was written, the pass not begun */
	struct event *wake_ev;
	TAILQ_HEAD(, sctp_sock) socks;
	TAILQ_HEAD(, sctp_sock) dead; /* freed at the end of the pass */
	unsigned int n_socks;
	/* upcalls to the loop: ready[cur] fills, the other is served */
	pthread_mutex_t ready_mtx;
	uint64_t ready[2][US_READY_MAX];
	unsigned int n_ready;
	unsigned int cur;
	bool ready_all;
	uint64_t pass_no;
	struct us_slot *slot; /* the loop's only */
	uint32_t n_slot;
	uint32_t free_slot; /* the first free slot + 1, or 0 */
	TAILQ_HEAD(us_parked_head, sctp_sock) parked; /* oldest first */
	unsigned int n_parked;
	int in_pass;
	uint8_t *rxbuf;
};
extern struct us_stack us;

/* ---- sctp_usrsctp_sock.c ---- */

/* usrsctp's upcall: s's token to the loop, and the loop woken. */
void us_upcall(struct socket *so, void *arg, int flags);
/* The same from the loop: s served on the next pass. */
void us_rewake(struct sctp_sock *s);
/* The tokens named since the last pass (*all: serve every socket);
 * what it returns is valid until the next call. */
const uint64_t *us_ready_take(unsigned int *n, bool *all);
/* The socket a token names, or NULL when it is gone. */
struct sctp_sock *us_by_token(uint64_t token);
/* Release what us_sock_new() took for the tokens (us_fini()). */
void us_slots_free(void);
/* A socket of ours for so, in state st; NULL (errno) on failure. */
struct sctp_sock *us_sock_new(struct socket *so, enum us_state st,
			      const struct sctp_cb *cb, void *arg);
/* Free the struct (its socket given back already). */
void us_free(struct sctp_sock *s);
/* The options every DDP-enabled socket carries; -1 on failure. */
int us_sockopts(struct socket *so);
/* The next association queued on listener l, or NULL. */
struct sctp_sock *us_accept_next(struct sctp_sock *l, const struct sctp_cb *cb,
				 void *arg);
/* The association: down (reported once), ABORTed, gone. */
void us_down(struct sctp_sock *s, const char *why);
int us_send_abort(struct socket *so);
void us_abort(struct sctp_sock *s, const char *why);
/* Closing: a closed socket released once its association is gone (true,
 * s may be freed). */
bool us_linger_check(struct sctp_sock *s);
void us_close(struct sctp_sock *s, bool abort);
/* A kept listener bound to sa (len octets), taken back for cb; NULL when
 * there is none.  Only the same address and port: never for port 0 (a
 * new port keeps a peer's old association to the last owner's port from
 * carrying the new owner's sessions, as iwcmd reuses its association to
 * a peer's address) nor for the wildcard. */
struct sctp_sock *us_parked_take(const struct sockaddr *sa, socklen_t len,
				 const struct sctp_cb *cb, void *arg);

#endif
