/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_SESSION_FSM_H
#define IWCM_SCTP_SESSION_FSM_H

/*
 * The state machine of one DDP Stream Session (RFC 5043 §6, RFC 6581
 * §7), active or passive, as a transition table {state mask, event,
 * guard, action, next state} like conn_fsm.h; no I/O (sctp_session.c
 * turns messages, decisions and timers into events).  A (state, event)
 * pair not in the table is a protocol error (RFC 5043 §6.1: "the DDP
 * Stream Session MUST be terminated"): logged, and the session ends
 * with sctp_session_fsm_error_action().
 */
#include <stdbool.h>
#include <stdint.h>

enum sess_state {
	SESS_S_NONE,
	SESS_S_WAIT_REPLY,  /* active: Initiate sent */
	SESS_S_WAIT_ULP,    /* passive: Initiate at the owning client */
	SESS_S_HANDOFF,	    /* accepted: the Established event is on its
			     * way to the owner, segments are queued */
	SESS_S_ESTABLISHED, /* relaying segments both ways */
	SESS_S_TERM_SENT,   /* our Terminate sent: the peer's direction
			     * may still carry segments (§6.2), dropped */
	SESS_S_CLOSED,	    /* final */
	SESS_S_MAX
};

enum sess_event {
	SESS_EV_START_CONNECT, /* the owner asks for a session */
	SESS_EV_INITIATE,      /* Initiate or Enhanced Initiate received */
	SESS_EV_ULP_ACCEPT,    /* the owner accepts the Initiate */
	SESS_EV_ULP_REJECT,    /* the owner rejects it */
	SESS_EV_ULP_GONE,      /* the owner went away before the end */
	SESS_EV_ULP_CLOSE,     /* the owner closed its end (relay) */
	SESS_EV_ACCEPT,	       /* active: Accept / Enhanced Accept, negotiation
			   * passed (RFC 6581 §9.1) */
	SESS_EV_REJECT,	       /* active: Reject / Enhanced Reject */
	SESS_EV_NEG_FAIL,      /* active: Enhanced Accept whose IRD/ORD cannot
			   * be met (RFC 6581 §9.1) */
	SESS_EV_SEGMENT,       /* a DDP Segment (PPID 16) in DDP-SSN order */
	SESS_EV_TERMINATE,     /* DDP Stream Session Terminate received */
	SESS_EV_ILLEGAL,       /* a message no legal pattern allows: bad
			    * function code, DDP-SSN gap, Private Data over
			    * 512, a control message out of place */
	SESS_EV_TIMEOUT,
	SESS_EV_HANDOFF_DONE,
	SESS_EV_HANDOFF_FAILED,
	SESS_EV_ASSOC_DOWN, /* the association ended under the session */
	SESS_EV_MAX
};

enum sess_action {
	SESS_A_NONE,
	SESS_A_SEND_INITIATE,	/* Initiate / Enhanced Initiate, reply timer */
	SESS_A_NOTIFY_REQUEST,	/* count it pending, request to the owner,
				* ULP timer */
	SESS_A_ACCEPT_HANDOFF,	/* send the (Enhanced) Accept, hand off */
	SESS_A_REJECT,		/* send the (Enhanced) Reject (§6.3) */
	SESS_A_HANDOFF,		/* active: hand the session to the owner */
	SESS_A_NOTIFY_REJECTED, /* active: the peer rejected (Reject, or
				 * Terminate: non-ULP, §6.4) */
	SESS_A_RELAY,		/* a segment to the owner */
	SESS_A_PEER_TERM,	/* the peer ended: end the owner's side, send
			    * our Terminate (§6.2) */
	SESS_A_TERMINATE,	/* send a Terminate (non-ULP rejection or end),
			    * owner not told; timer for the peer's */
	SESS_A_TERM_ERROR,	/* send a Terminate, tell the owner */
	SESS_A_ERROR,		/* tell the owner; nothing can be sent */
	SESS_A_CLOSE,		/* end quietly */
	SESS_A_MAX
};

enum sess_guard {
	SESS_G_NONE,
	SESS_G_NO_LISTENER,  /* nobody listens for this association */
	SESS_G_PENDING_FULL, /* the limit of Initiates pending a ULP
			      * decision is reached (§5.2.3, §6.4) */
	SESS_G_MAX
};

extern const char *const sctp_session_state_names[SESS_S_MAX];
extern const char *const sctp_session_event_names[SESS_EV_MAX];
extern const char *const sctp_session_action_names[SESS_A_MAX];
extern const char *const sctp_session_guard_names[SESS_G_MAX];

struct sess_fsm {
	enum sess_state state;
	uint64_t id;
	void *arg; /* handed to the actions */
};

/*
 * What the FSM calls, as in conn_fsm.h: action[a] returns 0 or -1 (then
 * SESS_A_TERM_ERROR runs unless it was the failing action, or
 * SESS_A_CLOSE/SESS_A_ERROR, and the session is CLOSED).
 */
struct sess_fsm_ops {
	int (*action[SESS_A_MAX])(void *arg, enum sess_event ev);
	bool (*guard[SESS_G_MAX])(void *arg);
	void (*log)(void *arg, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
};

struct sess_fsm_row {
	uint32_t states; /* bit mask of enum sess_state */
	enum sess_event event;
	enum sess_guard guard;
	enum sess_action action;
	enum sess_state next;
};

/* The action a pair missing from the table runs in state s. */
enum sess_action sctp_session_fsm_error_action(enum sess_state s);

/* Feed ev to f; 0 when a row matched and its action succeeded. */
int sctp_session_fsm(struct sess_fsm *f, enum sess_event ev,
		     const struct sess_fsm_ops *ops);

/* The row sctp_session_fsm() takes for (state, event), asking ops->guard;
 * with ops NULL, the first whatever its guard.  NULL if none. */
const struct sess_fsm_row *
sctp_session_fsm_match(enum sess_state s, enum sess_event ev,
		       const struct sess_fsm_ops *ops, void *arg);

#endif
