/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWFI_RDM_FSM_H
#define IWFI_RDM_FSM_H

/*
 * The connection of an FI_EP_RDM endpoint to one peer, as a transition
 * table {state mask, event, action, next state} (the model of
 * iwfi_ep_fsm.h).  No I/O here: iwfi_rdm_peer.c classifies what happened
 * under the endpoint's lock and carries out the action the row names.
 * A (state, event) pair missing from the table changes nothing and fails
 * with -FI_EOPBADSTATE.
 *
 * Simultaneous connects: both peers may ask at once.  The connection
 * initiated by the lower address (iwfi_rdm_addr_cmp()) is the one kept:
 * a peer that is connecting itself accepts a request from a lower
 * address and rejects one from a higher address, saying in the reject's
 * private data that its own request is on the way (IWFI_RDM_YIELD).
 * The higher peer, told so, keeps its queued operations until that
 * request arrives (YIELDED) instead of failing them; the two messages
 * travel through different sockets of iwcmd and may come in either
 * order.  Operations queued meanwhile go to whichever connection is
 * established.
 */
enum iwfi_rdm_state {
	IWFI_RDM_S_IDLE,       /* no connection yet */
	IWFI_RDM_S_CONNECTING, /* our MPA Request is out: operations queue */
	IWFI_RDM_S_ACCEPTING,  /* we accepted the peer's: operations queue */
	IWFI_RDM_S_CONNECTED,  /* operations go to the connection */
	IWFI_RDM_S_FAILED,     /* the connection failed or went down */
	IWFI_RDM_S_YIELDED,    /* our request lost a simultaneous connect:
				* the peer's is coming, operations queue */
	IWFI_RDM_S_MAX
};

enum iwfi_rdm_event {
	IWFI_RDM_EV_POST,      /* an operation for the peer */
	IWFI_RDM_EV_REQ_LOW,   /* the peer asks, its address is lower */
	IWFI_RDM_EV_REQ_HIGH,  /* the peer asks, its address is higher */
	IWFI_RDM_EV_CONNECTED, /* FI_CONNECTED of the peer's connection */
	IWFI_RDM_EV_REFUSED,   /* connecting or accepting failed */
	IWFI_RDM_EV_DOWN,      /* FI_SHUTDOWN or an error of the connection */
	IWFI_RDM_EV_YIELD,     /* the peer rejected our request for its
				* own (IWFI_RDM_YIELD) */
	IWFI_RDM_EV_MAX
};

enum iwfi_rdm_action {
	IWFI_RDM_A_NONE,
	IWFI_RDM_A_CONNECT, /* open a connection, queue the operation */
	IWFI_RDM_A_QUEUE,   /* queue the operation */
	IWFI_RDM_A_POST,    /* post the operation on the connection */
	IWFI_RDM_A_ACCEPT,  /* accept the request: it is the connection */
	IWFI_RDM_A_REJECT,  /* reject the request */
	IWFI_RDM_A_FLUSH,   /* post the queued operations */
	IWFI_RDM_A_FAIL,    /* fail the queued operations */
	IWFI_RDM_A_MAX
};

extern const char *const iwfi_rdm_state_names[IWFI_RDM_S_MAX];
extern const char *const iwfi_rdm_event_names[IWFI_RDM_EV_MAX];
extern const char *const iwfi_rdm_action_names[IWFI_RDM_A_MAX];

struct iwfi_rdm_fsm_row {
	unsigned int states; /* mask of 1 << enum iwfi_rdm_state */
	enum iwfi_rdm_event event;
	enum iwfi_rdm_action action;
	enum iwfi_rdm_state next; /* IWFI_RDM_S_MAX: unchanged */
};

/* The row for (state, event), or NULL. */
const struct iwfi_rdm_fsm_row *iwfi_rdm_fsm_lookup(enum iwfi_rdm_state s,
						   enum iwfi_rdm_event ev);

/* Feed ev to *state: change it as the row says.  Returns the row's
 * action, or -FI_EOPBADSTATE (state unchanged).  peer names the peer in
 * the log. */
int iwfi_rdm_fsm_step(enum iwfi_rdm_state *state, enum iwfi_rdm_event ev,
		      const void *peer);

#endif
