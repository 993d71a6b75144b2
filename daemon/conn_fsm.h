/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CONN_FSM_H
#define IWCM_CONN_FSM_H

/*
 * The connection-establishment state machine of one TCP/MPA connection,
 * initiator and responder, as a transition table {state mask, event,
 * action, next state} (the ldpd model).  The FSM does no I/O: the phase
 * code (mpa_negotiate.c, handoff.c, client_api.c) classifies what
 * happened into an event, and the actions it is handed do the work.  A
 * (state, event) pair that is not in the table is a protocol error: it is
 * reported through ops->log and the connection is closed with the error
 * action; in a final state it changes nothing.
 *
 * A row may carry a guard, a question about the connection's
 * surroundings (is its listener still there, has it a client, is that
 * client's uid at its limit) that the FSM asks through ops->guard: the
 * first row of the pair whose guard holds is taken, and every guarded
 * pair ends with a row without one.  Where the request is (waiting for a
 * client, at the client, decided) is the state, never a flag beside it.
 */
#include <stdbool.h>
#include <stdint.h>

enum conn_state {
	CONN_S_NONE,
	CONN_S_CONNECTING,     /* initiator: TCP connect in progress */
	CONN_S_WAIT_REQUEST,   /* responder: waiting for the MPA Request */
	CONN_S_WAIT_ROUTE,     /* responder: Request in, waiting for a client
				 * of the listener to take it */
	CONN_S_WAIT_ULP,       /* responder: CONNECT_REQUEST at the client */
	CONN_S_DECIDED,	       /* responder: the client answered; the Reply
				 * it decided is queued */
	CONN_S_WAIT_REPLY,     /* initiator: Request sent */
	CONN_S_WAIT_RTR,       /* responder: Reply sent, RTR expected */
	CONN_S_WAIT_READ_RESP, /* initiator: zero-length Read RTR sent */
	CONN_S_HOLD,	       /* initiator: Reply accepted, the first FPDU
				* held for first_fpdu_delay_ms */
	CONN_S_HANDOFF,	       /* negotiated: passing the fd to the client */
	CONN_S_DONE,	       /* handed off (final) */
	CONN_S_CLOSED,	       /* failed or closed (final) */
	CONN_S_MAX
};

enum conn_event {
	CONN_EV_START_CONNECT, /* a client asked to connect */
	CONN_EV_START_ACCEPT,  /* a listener accepted a TCP connection */
	CONN_EV_TCP_CONNECTED,
	CONN_EV_TCP_FAILED,	/* refused, unreachable */
	CONN_EV_REQUEST,	/* a valid MPA Request */
	CONN_EV_ROUTE,		/* a client of the listener may take it */
	CONN_EV_ROUTE_FAILED,	/* the CONNECT_REQUEST could not be sent */
	CONN_EV_DECIDE_ACCEPT,	/* the client's Accept */
	CONN_EV_DECIDE_REJECT,	/* the client's Reject */
	CONN_EV_ULP_ACCEPT,	/* client accepted; no RTR expected */
	CONN_EV_ULP_ACCEPT_RTR, /* client accepted; an RTR will come */
	CONN_EV_ULP_REJECT,
	CONN_EV_ULP_GONE,	/* the owning client went away */
	CONN_EV_REPLY,		/* accepting Reply; nothing more to send */
	CONN_EV_REPLY_RTR,	/* accepting Reply; send a Send/Write RTR
				 * or the legacy RtR frame, then hand off */
	CONN_EV_REPLY_RTR_READ, /* accepting Reply; send a Read RTR */
	CONN_EV_REPLY_REJECT,	/* Reply with R=1 */
	CONN_EV_RETRY_V1,	/* enhanced Request refused by closing:
				 * RFC 6581 §10 retry allowed */
	CONN_EV_RTR,		/* responder: a valid Send/Write RTR or RtR
				 * frame */
	CONN_EV_RTR_READ,	/* responder: a valid zero-length Read RTR */
	CONN_EV_READ_RESP,	/* initiator: the zero-length Read Response */
	CONN_EV_TERM,		/* negotiation failed: a TERM must be sent
				 * (RFC 6581 §8 codes 5-7) */
	CONN_EV_BAD,	     /* improperly formatted input (RFC 5044 §7.1.2) */
	CONN_EV_PEER_CLOSED, /* FIN or RST */
	CONN_EV_TIMEOUT,     /* the state's timer expired */
	CONN_EV_HANDOFF_DONE,
	CONN_EV_HANDOFF_FAILED,
	CONN_EV_ABORT, /* daemon shutdown or iwcmctl kill */
	CONN_EV_MAX
};

enum conn_action {
	CONN_A_NONE,
	CONN_A_CONNECT,		  /* start the TCP connect, arm its timer */
	CONN_A_WAIT_REQUEST,	  /* TCP_NODELAY, read, arm the request timer */
	CONN_A_SEND_REQUEST,	  /* send the Request, arm the reply timer */
	CONN_A_WAIT_ULP,	  /* count it pending, ULP timer, try a route */
	CONN_A_NOTIFY_REQUEST,	  /* CONNECT_REQUEST to the listener's client */
	CONN_A_DECIDE,		  /* build the Reply the client decided */
	CONN_A_REJECT_BACKLOG,	  /* R=1: the listener's pending_max reached */
	CONN_A_REJECT_UID,	  /* R=1: the client's uid at its limit */
	CONN_A_REPLY_HANDOFF,	  /* send the accepting Reply, hand off */
	CONN_A_REPLY_WAIT_RTR,	  /* send the accepting Reply, arm RTR timer */
	CONN_A_REJECT,		  /* send a Reply with R=1, close */
	CONN_A_HANDOFF,		  /* hand the fd and state to the owner */
	CONN_A_RTR_HANDOFF,	  /* send the RTR, hand off */
	CONN_A_RTR_READ,	  /* send the zero-length Read RTR, arm timer */
	CONN_A_READ_RESP_HANDOFF, /* answer the Read RTR, hand off */
	CONN_A_NOTIFY_REJECTED,	  /* REJECTED (peer private data, IRD/ORD) */
	CONN_A_RECONNECT_V1,	  /* close, reconnect without enhancement */
	CONN_A_TERM,		  /* send the TERM, report, close */
	CONN_A_UNREACHABLE,	  /* UNREACHABLE to the owner, close */
	CONN_A_ERROR,	/* CONNECT_ERROR to the owner (if any), close */
	CONN_A_CLOSE,	/* close quietly (no owner to tell) */
	CONN_A_RELEASE, /* handed off: drop the daemon's copy */
	CONN_A_HOLD,	/* hold the first FPDU: arm first_fpdu_delay_ms */
	CONN_A_MAX
};

/* Questions a row may ask before it is taken (see above). */
enum conn_guard {
	CONN_G_NONE,
	CONN_G_NO_LISTENER,  /* the listener is gone */
	CONN_G_BACKLOG_FULL, /* the listener's pending_max is reached */
	CONN_G_NO_CLIENT,    /* no client of the listener to route to */
	CONN_G_UID_LIMIT,    /* that client's uid has max_pending_per_uid */
	CONN_G_HOLD,	     /* first_fpdu_delay_ms is set */
	CONN_G_RTR_READ,     /* the RTR to send is a zero-length Read whose
			      * Response iwcmd awaits (not the client's QP) */
	CONN_G_RTR,	     /* an RTR (Send, Write, RtR frame) to send */
	CONN_G_MAX
};

extern const char *const conn_state_names[CONN_S_MAX];
extern const char *const conn_event_names[CONN_EV_MAX];
extern const char *const conn_action_names[CONN_A_MAX];
extern const char *const conn_guard_names[CONN_G_MAX];

struct conn_fsm {
	enum conn_state state;
	uint64_t id;
	void *arg; /* handed to the actions */
};

/*
 * What the FSM calls.  action[a] returns 0, or -1 when it failed: the FSM
 * then runs CONN_A_ERROR (unless that was the failing action) and ends in
 * CONN_S_CLOSED.  guard[g] answers a row's question and acts on nothing.
 * log receives every state change and protocol error.
 */
struct conn_fsm_ops {
	int (*action[CONN_A_MAX])(void *arg, enum conn_event ev);
	bool (*guard[CONN_G_MAX])(void *arg);
	void (*log)(void *arg, const char *fmt, ...)
		__attribute__((format(printf, 2, 3)));
};

/* True for CONN_S_DONE and CONN_S_CLOSED. */
static inline int conn_state_final(enum conn_state s)
{
	return s == CONN_S_DONE || s == CONN_S_CLOSED;
}

/*
 * Feed ev to f: find the row, run its action, change state.  Returns 0
 * when a row matched and its action succeeded, -1 otherwise (protocol
 * error or failed action; f->state is then CONN_S_CLOSED unless it was
 * already final).
 */
int conn_fsm(struct conn_fsm *f, enum conn_event ev,
	     const struct conn_fsm_ops *ops);

/* One row of the table: in a state of states, on event, if guard holds. */
struct conn_fsm_row {
	uint32_t states; /* bit mask of enum conn_state */
	enum conn_event event;
	enum conn_guard guard; /* CONN_G_NONE: always */
	enum conn_action action;
	enum conn_state next;
};

/* The first row for (state, event) whatever its guard; NULL if none. */
const struct conn_fsm_row *conn_fsm_lookup(enum conn_state s,
					   enum conn_event ev);
/* The row conn_fsm() takes for (state, event), asking ops->guard. */
const struct conn_fsm_row *conn_fsm_match(enum conn_state s, enum conn_event ev,
					  const struct conn_fsm_ops *ops,
					  void *arg);

#endif
