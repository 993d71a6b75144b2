/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_ASSOC_H
#define IWCM_SCTP_ASSOC_H

/*
 * An association as both SCTP stacks see it (sctp_assoc.c): one
 * stack-neutral event type and one transition table, which
 * sctp_usrsctp.c and sctp_kernel.c feed from their own notifications
 * (their constants differ, RFC 6458 §6.1) and from what they receive.
 * The table does what RFC 5043 asks of an association coming up (§5.1,
 * §7.1, §8) and reports it to the socket's callbacks (sctp_stack.h);
 * the stack does what only it can: send an ABORT, stop watching a
 * socket, size a segment.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <event2/event.h>

#include "sctp_stack.h"

enum sctp_as_state {
	SCTP_AS_LISTEN,
	SCTP_AS_CONNECTING, /* until COMM_UP */
	SCTP_AS_WAIT_ADAPT, /* COMM_UP seen, the peer's indication not yet */
	SCTP_AS_UP,
	SCTP_AS_DOWN,
	SCTP_AS_STATES
};

enum sctp_as_event {
	/* SCTP_ASSOC_CHANGE (RFC 6458 §6.1.1), by sac_state */
	SCTP_AE_COMM_UP,
	SCTP_AE_COMM_LOST,
	SCTP_AE_RESTART,
	SCTP_AE_SHUTDOWN_COMP,
	SCTP_AE_CANT_STR_ASSOC,
	SCTP_AE_ADAPTATION,    /* SCTP_ADAPTATION_INDICATION (§6.1.6) */
	SCTP_AE_SHUTDOWN,      /* SCTP_SHUTDOWN_EVENT (§6.1.5) */
	SCTP_AE_ADAPT_TIMEOUT, /* RFC 5043 §5.1: no indication in time */
	SCTP_AE_DATA,	       /* a whole user message with its rcvinfo */
	SCTP_AE_TOO_BIG,       /* a user message over SCTP_RX_MAX */
	SCTP_AE_NO_RCVINFO,    /* a user message without it */
	SCTP_AE_EVENTS
};

extern const char *const sctp_as_state_names[SCTP_AS_STATES];
extern const char *const sctp_as_event_names[SCTP_AE_EVENTS];

struct sctp_as;

/* What a stack does on the table's behalf. */
struct sctp_as_ops {
	/* ABORT the association (RFC 4960 §9.1) as the stack can */
	void (*abort)(struct sctp_as *a);
	/* the association is down: stop watching its socket (NULL:
	 * nothing to stop) */
	void (*stop)(struct sctp_as *a);
	/* the largest user message that goes out unfragmented (§9); 0:
	 * unknown (1200 then), at least 516 and at most SCTP_RX_MAX are
	 * used */
	size_t (*maxseg)(struct sctp_as *a);
};

/* One association (or listener) of a stack, inside its socket. */
struct sctp_as {
	struct sctp_sock *sock; /* as the callbacks name it */
	const struct sctp_as_ops *ops;
	const struct sctp_cb *cb;
	void *arg;
	enum sctp_as_state state;
	bool got_adapt;
	uint32_t peer_adapt;
	unsigned int adapt_wait_ms;
	struct event *adapt_timer; /* the stack's: fires SCTP_AE_ADAPT_TIMEOUT */
	struct sctp_assoc_info info;
};

/* An event and what comes with it. */
struct sctp_as_ev {
	enum sctp_as_event ev;
	uint16_t in_streams, out_streams; /* COMM_UP */
	uint32_t adapt;			  /* ADAPTATION */
};

/*
 * A stack's constants, whose structures' layout both stacks share (RFC
 * 6458) but whose numbers differ: the notifications' (§6.1) sn_type of
 * SCTP_ASSOC_CHANGE, SCTP_ADAPTATION_INDICATION, SCTP_SHUTDOWN_EVENT
 * (those subscribed to) and the sac_state of each association change;
 * the options of RFC 5043 (§8.1, §6.2.1).  SCTP_AS_CONSTS initializes
 * it, and SCTP_AS_LAYOUT_CHECK asserts the layouts, where the stack's
 * own header defines the names.
 */
struct sctp_as_consts {
	uint16_t assoc_change, adaptation, shutdown;
	uint16_t comm_up, comm_lost, restart, shutdown_comp, cant_str_assoc;
	uint16_t unordered; /* rcv_flags */
	int opt_adaptation, opt_event, opt_initmsg, opt_rcvinfo, opt_nofrag,
		opt_nodelay;
};

#define SCTP_AS_CONSTS                                                    \
	{                                                                 \
		.assoc_change = SCTP_ASSOC_CHANGE,                        \
		.adaptation = SCTP_ADAPTATION_INDICATION,                 \
		.shutdown = SCTP_SHUTDOWN_EVENT, .comm_up = SCTP_COMM_UP, \
		.comm_lost = SCTP_COMM_LOST, .restart = SCTP_RESTART,     \
		.shutdown_comp = SCTP_SHUTDOWN_COMP,                      \
		.cant_str_assoc = SCTP_CANT_STR_ASSOC,                    \
		.unordered = SCTP_UNORDERED,                              \
		.opt_adaptation = SCTP_ADAPTATION_LAYER,                  \
		.opt_event = SCTP_EVENT, .opt_initmsg = SCTP_INITMSG,     \
		.opt_rcvinfo = SCTP_RECVRCVINFO,                          \
		.opt_nofrag = SCTP_DISABLE_FRAGMENTS,                     \
		.opt_nodelay = SCTP_NODELAY,                              \
	}
#define SCTP_AS_LAYOUT_CHECK                                                 \
	_Static_assert(offsetof(struct sctp_sock, as) == 0 &&                \
			       sizeof(struct sctp_setadaptation) == 4 &&     \
			       sizeof(struct sctp_initmsg) == 8 &&           \
			       sizeof(struct sctp_event) == 8 &&             \
			       offsetof(struct sctp_event, se_on) == 6 &&    \
			       offsetof(struct sctp_rcvinfo, rcv_flags) ==   \
				       4 &&                                  \
			       offsetof(struct sctp_rcvinfo, rcv_ppid) == 8, \
		       "RFC 6458 layouts")

/*
 * Set the options of RFC 5043 on a socket: the DDP Adaptation Layer
 * Indication (§5.1), the notifications sctp_assoc.c reads, as many
 * inbound as outbound streams (§8), no fragmentation (§9), rcvinfo, no
 * Nagle delay.  setopt is the stack's setsockopt(IPPROTO_SCTP) on h,
 * logging a failure as what.  0, or -1 at the first that fails.
 */
int sctp_as_sockopts(const struct sctp_as_consts *k, uint16_t streams,
		     int (*setopt)(void *h, int name, const void *v,
				   socklen_t len, const char *what),
		     void *h);

/* The loop the stacks' timers run on and the wait for the peer's
 * indication, for every socket set up after (sctp_stack_init()). */
void sctp_as_start(struct event_base *base, unsigned int adapt_wait_ms);
/* A stack's new socket of size octets, zeroed but its struct sctp_as
 * (first), in state st with the stack's ops and the socket's callbacks;
 * counted among the stack's sockets until sctp_as_free().  NULL with
 * errno. */
void *sctp_as_new(size_t size, const struct sctp_as_ops *ops,
		  enum sctp_as_state st, const struct sctp_cb *cb, void *arg);
void sctp_as_free(struct sctp_as *a);
/* The sockets made and not yet freed. */
unsigned int sctp_as_sockets(void);

/* A notification of len octets (host order, as the stack gives it),
 * read within its length and fed to the table as its event; one the
 * table has no event for is ignored. */
void sctp_as_notification(struct sctp_as *a, const struct sctp_as_consts *k,
			  const uint8_t *buf, size_t len);

/*
 * One read's result n: a notification (sctp_as_notification()), or a
 * user message (eor: whole) with rcv, its RFC 6458 §5.3.5 struct
 * sctp_rcvinfo (NULL: none), fed as SCTP_AE_DATA, SCTP_AE_TOO_BIG or
 * SCTP_AE_NO_RCVINFO and, when the table lets it, handed to the msg
 * callback; end of file or an error (but EAGAIN, EINTR) is down.  false
 * when reading is to stop.
 */
bool sctp_as_input(struct sctp_as *a, const struct sctp_as_consts *k,
		   const uint8_t *buf, ssize_t n, bool notification, bool eor,
		   const void *rcv);
/* The callback of a->adapt_timer (arg: a): SCTP_AE_ADAPT_TIMEOUT. */
void sctp_as_adapt_timeout(evutil_socket_t fd, short what, void *arg);

/*
 * One event.  true when a message that came with it (SCTP_AE_DATA) is
 * to be delivered; every other outcome (reported up, down, aborted,
 * ignored) is the table's.
 */
bool sctp_as_event(struct sctp_as *a, const struct sctp_as_ev *e);
/* The association is down for a reason of the stack's (a receive error,
 * end of file), reported once. */
void sctp_as_down(struct sctp_as *a, const char *why);
/* Whether a message of len octets may go on stream: 0, or -1 with errno
 * ENOTCONN, EINVAL (no such stream) or EMSGSIZE (RFC 5043 §9). */
int sctp_as_send_check(const struct sctp_as *a, uint16_t stream, size_t len);

#endif
