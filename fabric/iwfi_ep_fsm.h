/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWFI_EP_FSM_H
#define IWFI_EP_FSM_H

/*
 * The life of an active endpoint as a transition table {state mask,
 * event, action, next state} (the ldpd model, as libclient/qp_fsm.c).
 * The FSM does no I/O: the application's calls (iwfi_ep.c, iwfi_cm.c),
 * the CM thread (iwfi_cm.c) and the CQ (iwfi_cq.c) classify what
 * happened into an event under ep->lock, and the action the row names
 * says what the caller does.  Actions that may fail and must leave the
 * state as it was (registering, creating the QP) run before the event
 * is fed, found with iwfi_ep_fsm_lookup(); I/O (requests to iwcmd, the
 * QP's disconnect, event queue entries) runs after, outside the lock.
 * A (state, event) pair missing from the table changes nothing and
 * fails with -FI_EOPBADSTATE.
 */
#include <stdbool.h>

enum iwfi_ep_state {
	IWFI_EP_S_IDLE,		/* opened: binding is allowed */
	IWFI_EP_S_ENABLED,	/* fi_enable(): receives are held */
	IWFI_EP_S_CONNECTING,	/* fi_connect() sent our MPA Request */
	IWFI_EP_S_ACCEPTING,	/* fi_accept() sent our MPA Reply */
	IWFI_EP_S_CONNECTED,	/* the QP moves data */
	IWFI_EP_S_SHUTDOWN,	/* fi_shutdown(): the QP closes
				 * gracefully, the peer's close is due */
	IWFI_EP_S_PEER_CLOSED,	/* the QP is in error: FI_SHUTDOWN waits
				 * for the last posted request */
	IWFI_EP_S_DISCONNECTED, /* FI_SHUTDOWN reported */
	IWFI_EP_S_ERROR,	/* the connection failed: no QP */
	IWFI_EP_S_CLOSED,	/* fi_close(): nothing more is reported */
	IWFI_EP_S_MAX
};

enum iwfi_ep_event {
	IWFI_EP_EV_ENABLE,	    /* fi_enable() */
	IWFI_EP_EV_CONNECT,	    /* fi_connect() */
	IWFI_EP_EV_ACCEPT,	    /* fi_accept() */
	IWFI_EP_EV_REQUEST_FAILED,  /* iwcm_connect()/iwcm_accept() failed */
	IWFI_EP_EV_ESTABLISHED,	    /* CM thread: IWCM_CM_EVENT_ESTABLISHED
				     * and the QP made */
	IWFI_EP_EV_REJECTED,	    /* CM thread: the peer rejected us */
	IWFI_EP_EV_UNREACHABLE,	    /* CM thread: no peer answered */
	IWFI_EP_EV_ERROR,	    /* CM thread: negotiation failed, or no
				     * QP could be made */
	IWFI_EP_EV_QP_ERROR,	    /* CM thread: an async event of the QP
				     * (the peer closed, a Terminate) */
	IWFI_EP_EV_LAST_COMPLETION, /* the posted list became empty */
	IWFI_EP_EV_SHUTDOWN,	    /* fi_shutdown() */
	IWFI_EP_EV_CLOSE,	    /* fi_close() */
	IWFI_EP_EV_MAX
};

enum iwfi_ep_action {
	IWFI_EP_A_NONE,
	IWFI_EP_A_ENABLE,     /* before: register the endpoint's MRs */
	IWFI_EP_A_REQUEST,    /* after: send the request to iwcmd */
	IWFI_EP_A_CONNECTED,  /* before: make the QP; after: post the
			       * held receives, report FI_CONNECTED */
	IWFI_EP_A_FAIL,	      /* after: report the EQ error */
	IWFI_EP_A_DISCONNECT, /* after: iwcm_qp_disconnect() */
	IWFI_EP_A_SHUTDOWN,   /* after: report FI_SHUTDOWN */
	IWFI_EP_A_LINGER,     /* after: close the QP gracefully, then
			       * release it and the connection */
	IWFI_EP_A_RELEASE,    /* after: release the connection */
	IWFI_EP_A_MAX
};

extern const char *const iwfi_ep_state_names[IWFI_EP_S_MAX];
extern const char *const iwfi_ep_event_names[IWFI_EP_EV_MAX];
extern const char *const iwfi_ep_action_names[IWFI_EP_A_MAX];

struct iwfi_ep_fsm_row {
	unsigned int states; /* mask of 1 << enum iwfi_ep_state */
	enum iwfi_ep_event event;
	enum iwfi_ep_action action;
	enum iwfi_ep_state next; /* IWFI_EP_S_MAX: unchanged */
};

struct iwfi_ep;

/* The row for (state, event), or NULL: what feeding ev would do. */
const struct iwfi_ep_fsm_row *iwfi_ep_fsm_lookup(enum iwfi_ep_state s,
						 enum iwfi_ep_event ev);

/*
 * Feed ev to a state: change it as the row says.  Returns the row's
 * action, or -FI_EOPBADSTATE (state unchanged) when the pair is not in
 * the table.  ep only names the endpoint in the log.
 */
int iwfi_ep_fsm_step(enum iwfi_ep_state *state, enum iwfi_ep_event ev,
		     const void *ep);

/* iwfi_ep_fsm_step() on ep->state; ep->lock held (iwfi_ep_lock()). */
int iwfi_ep_fsm(struct iwfi_ep *ep, enum iwfi_ep_event ev);

/* fi_enable() has run: only an event queue may still be bound. */
static inline bool iwfi_ep_state_enabled(enum iwfi_ep_state s)
{
	return s != IWFI_EP_S_IDLE;
}

/* A receive posted now is held until the QP exists. */
static inline bool iwfi_ep_state_holds(enum iwfi_ep_state s)
{
	return s <= IWFI_EP_S_ACCEPTING;
}

#endif
