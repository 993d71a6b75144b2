/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The endpoint's transition table (iwfi_ep_fsm.h).  No I/O here: the
 * actions are carried out by the callers.
 */
#include "config.h"

#include <assert.h>

#include "iwfi.h"

#define S(x) (1u << IWFI_EP_S_##x)
/* a connection asked for, its outcome awaited */
#define S_SETUP (S(CONNECTING) | S(ACCEPTING))
/* the QP exists */
#define S_QP (S(CONNECTED) | S(SHUTDOWN) | S(PEER_CLOSED) | S(DISCONNECTED))
#define EV(x) IWFI_EP_EV_##x
#define A(x) IWFI_EP_A_##x
#define N(x) IWFI_EP_S_##x
#define KEEP IWFI_EP_S_MAX

const char *const iwfi_ep_state_names[IWFI_EP_S_MAX] = {
	[IWFI_EP_S_IDLE] = "IDLE",
	[IWFI_EP_S_ENABLED] = "ENABLED",
	[IWFI_EP_S_CONNECTING] = "CONNECTING",
	[IWFI_EP_S_ACCEPTING] = "ACCEPTING",
	[IWFI_EP_S_CONNECTED] = "CONNECTED",
	[IWFI_EP_S_SHUTDOWN] = "SHUTDOWN",
	[IWFI_EP_S_PEER_CLOSED] = "PEER_CLOSED",
	[IWFI_EP_S_DISCONNECTED] = "DISCONNECTED",
	[IWFI_EP_S_ERROR] = "ERROR",
	[IWFI_EP_S_CLOSED] = "CLOSED",
};

const char *const iwfi_ep_event_names[IWFI_EP_EV_MAX] = {
	[IWFI_EP_EV_ENABLE] = "ENABLE",
	[IWFI_EP_EV_CONNECT] = "CONNECT",
	[IWFI_EP_EV_ACCEPT] = "ACCEPT",
	[IWFI_EP_EV_REQUEST_FAILED] = "REQUEST_FAILED",
	[IWFI_EP_EV_ESTABLISHED] = "ESTABLISHED",
	[IWFI_EP_EV_REJECTED] = "REJECTED",
	[IWFI_EP_EV_UNREACHABLE] = "UNREACHABLE",
	[IWFI_EP_EV_ERROR] = "ERROR",
	[IWFI_EP_EV_QP_ERROR] = "QP_ERROR",
	[IWFI_EP_EV_LAST_COMPLETION] = "LAST_COMPLETION",
	[IWFI_EP_EV_SHUTDOWN] = "SHUTDOWN",
	[IWFI_EP_EV_CLOSE] = "CLOSE",
};

const char *const iwfi_ep_action_names[IWFI_EP_A_MAX] = {
	[IWFI_EP_A_NONE] = "none",
	[IWFI_EP_A_ENABLE] = "enable",
	[IWFI_EP_A_REQUEST] = "request",
	[IWFI_EP_A_CONNECTED] = "connected",
	[IWFI_EP_A_FAIL] = "fail",
	[IWFI_EP_A_DISCONNECT] = "disconnect",
	[IWFI_EP_A_SHUTDOWN] = "shutdown",
	[IWFI_EP_A_LINGER] = "linger",
	[IWFI_EP_A_RELEASE] = "release",
};

/*
 * First matching row wins.  fi_endpoint(3), fi_cm(3) and fi_eq(3) decide
 * the paths; the comments name the rule.
 */
static const struct iwfi_ep_fsm_row ep_fsm_tab[] = {
	/* fi_endpoint(3): an endpoint is enabled before it connects;
	 * enabling twice is harmless */
	{ S(IDLE), EV(ENABLE), A(ENABLE), N(ENABLED) },
	{ S(ENABLED) | S_SETUP | S_QP | S(ERROR), EV(ENABLE), A(NONE), KEEP },

	/* one connection per endpoint */
	{ S(ENABLED), EV(CONNECT), A(REQUEST), N(CONNECTING) },
	{ S(ENABLED), EV(ACCEPT), A(REQUEST), N(ACCEPTING) },
	/* a refused Connect may be tried again; a refused Accept took the
	 * connection request with it */
	{ S(CONNECTING), EV(REQUEST_FAILED), A(NONE), N(ENABLED) },
	{ S(ACCEPTING), EV(REQUEST_FAILED), A(NONE), N(ERROR) },

	/* the CM thread: the outcome of the request (fi_cm(3): FI_CONNECTED,
	 * or an error entry with the peer's reject data) */
	{ S_SETUP, EV(ESTABLISHED), A(CONNECTED), N(CONNECTED) },
	{ S(CONNECTING), EV(REJECTED), A(FAIL), N(ERROR) },
	{ S_SETUP, EV(UNREACHABLE), A(FAIL), N(ERROR) },
	{ S_SETUP, EV(ERROR), A(FAIL), N(ERROR) },

	/* the QP failed or the peer closed: FI_SHUTDOWN only after the
	 * last completion, so that it never overtakes a message received */
	{ S(CONNECTED) | S(SHUTDOWN), EV(QP_ERROR), A(NONE), N(PEER_CLOSED) },
	{ S(PEER_CLOSED) | S(DISCONNECTED), EV(QP_ERROR), A(NONE), KEEP },
	{ S(PEER_CLOSED), EV(LAST_COMPLETION), A(SHUTDOWN), N(DISCONNECTED) },
	{ S(CONNECTED) | S(SHUTDOWN) | S(DISCONNECTED), EV(LAST_COMPLETION),
	  A(NONE), KEEP },

	/* RFC 5040 §6.2: the LLP's graceful close after what is queued;
	 * a connection already down or never made has nothing to close */
	{ S(CONNECTED), EV(SHUTDOWN), A(DISCONNECT), N(SHUTDOWN) },
	{ S(SHUTDOWN) | S(PEER_CLOSED) | S(DISCONNECTED) | S(ERROR),
	  EV(SHUTDOWN), A(NONE), KEEP },

	/* fi_close(): a QP closes gracefully first (a reset would drop
	 * what the peer has not read yet) */
	{ S_QP, EV(CLOSE), A(LINGER), N(CLOSED) },
	{ S(IDLE) | S(ENABLED) | S_SETUP | S(ERROR), EV(CLOSE), A(RELEASE),
	  N(CLOSED) },
	/* fi_endpoint(3): no event of a closed endpoint is reported; the
	 * CM thread still sees it while it lingers */
	{ S(CLOSED), EV(ESTABLISHED), A(NONE), KEEP },
	{ S(CLOSED), EV(REJECTED), A(NONE), KEEP },
	{ S(CLOSED), EV(UNREACHABLE), A(NONE), KEEP },
	{ S(CLOSED), EV(ERROR), A(NONE), KEEP },
	{ S(CLOSED), EV(QP_ERROR), A(NONE), KEEP },
	{ S(CLOSED), EV(LAST_COMPLETION), A(NONE), KEEP },
};

#define EP_FSM_ROWS (sizeof(ep_fsm_tab) / sizeof(ep_fsm_tab[0]))

/* The row for (state, event), or NULL. */
const struct iwfi_ep_fsm_row *iwfi_ep_fsm_lookup(enum iwfi_ep_state s,
						 enum iwfi_ep_event ev)
{
	size_t i;

	if ((unsigned int)s >= IWFI_EP_S_MAX ||
	    (unsigned int)ev >= IWFI_EP_EV_MAX)
		return NULL;
	for (i = 0; i < EP_FSM_ROWS; i++)
		if ((ep_fsm_tab[i].states & (1u << s)) &&
		    ep_fsm_tab[i].event == ev)
			return &ep_fsm_tab[i];
	return NULL;
}

/* The one place an endpoint's state changes. */
static void ep_change_state(enum iwfi_ep_state *state, enum iwfi_ep_state next,
			    enum iwfi_ep_event ev, const void *ep)
{
	if (next == IWFI_EP_S_MAX || next == *state)
		return;
	IWFI_INFO(FI_LOG_EP_CTRL, "ep %p: %s -> %s (%s)\n", ep,
		  iwfi_ep_state_names[*state], iwfi_ep_state_names[next],
		  iwfi_ep_event_names[ev]);
	*state = next;
}

/* Feed ev: find the row, change state, say what to do. */
int iwfi_ep_fsm_step(enum iwfi_ep_state *state, enum iwfi_ep_event ev,
		     const void *ep)
{
	const struct iwfi_ep_fsm_row *row = iwfi_ep_fsm_lookup(*state, ev);

	if (!row) {
		/* Never ignored: the caller fails with it. */
		IWFI_WARN(FI_LOG_EP_CTRL, "ep %p: %s refused in %s\n", ep,
			  (unsigned int)ev < IWFI_EP_EV_MAX ?
				  iwfi_ep_event_names[ev] :
				  "?",
			  (unsigned int)*state < IWFI_EP_S_MAX ?
				  iwfi_ep_state_names[*state] :
				  "?");
		return -FI_EOPBADSTATE;
	}
	ep_change_state(state, row->next, ev, ep);
	return (int)row->action;
}

/* Feed ev to ep, whose lock the caller holds. */
int iwfi_ep_fsm(struct iwfi_ep *ep, enum iwfi_ep_event ev)
{
	assert(iwfi_held(&ep->lock_owner));
	return iwfi_ep_fsm_step(&ep->state, ev, ep);
}
