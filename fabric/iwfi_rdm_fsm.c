/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The transition table of an FI_EP_RDM endpoint's connection to a peer
 * (iwfi_rdm_fsm.h).  No I/O here.
 */
#include "config.h"

#include "iwfi_rdm.h"

#define S(x) (1u << IWFI_RDM_S_##x)
/* no connection: a request or an operation starts one */
#define S_NONE (S(IDLE) | S(FAILED))
/* a connection is being set up: operations wait for it */
#define S_SETUP (S(CONNECTING) | S(ACCEPTING))
#define EV(x) IWFI_RDM_EV_##x
#define A(x) IWFI_RDM_A_##x
#define N(x) IWFI_RDM_S_##x
#define KEEP IWFI_RDM_S_MAX

const char *const iwfi_rdm_state_names[IWFI_RDM_S_MAX] = {
	[IWFI_RDM_S_IDLE] = "IDLE",
	[IWFI_RDM_S_CONNECTING] = "CONNECTING",
	[IWFI_RDM_S_ACCEPTING] = "ACCEPTING",
	[IWFI_RDM_S_CONNECTED] = "CONNECTED",
	[IWFI_RDM_S_FAILED] = "FAILED",
	[IWFI_RDM_S_YIELDED] = "YIELDED",
};

const char *const iwfi_rdm_event_names[IWFI_RDM_EV_MAX] = {
	[IWFI_RDM_EV_POST] = "POST",
	[IWFI_RDM_EV_REQ_LOW] = "REQ_LOW",
	[IWFI_RDM_EV_REQ_HIGH] = "REQ_HIGH",
	[IWFI_RDM_EV_CONNECTED] = "CONNECTED",
	[IWFI_RDM_EV_REFUSED] = "REFUSED",
	[IWFI_RDM_EV_DOWN] = "DOWN",
	[IWFI_RDM_EV_YIELD] = "YIELD",
};

const char *const iwfi_rdm_action_names[IWFI_RDM_A_MAX] = {
	[IWFI_RDM_A_NONE] = "none",	[IWFI_RDM_A_CONNECT] = "connect",
	[IWFI_RDM_A_QUEUE] = "queue",	[IWFI_RDM_A_POST] = "post",
	[IWFI_RDM_A_ACCEPT] = "accept", [IWFI_RDM_A_REJECT] = "reject",
	[IWFI_RDM_A_FLUSH] = "flush",	[IWFI_RDM_A_FAIL] = "fail",
};

/* First matching row wins. */
static const struct iwfi_rdm_fsm_row rdm_fsm_tab[] = {
	/* connections on demand: the first operation for a peer opens
	 * one, a failed one is opened again by the next operation */
	{ S_NONE, EV(POST), A(CONNECT), N(CONNECTING) },
	{ S_SETUP | S(YIELDED), EV(POST), A(QUEUE), KEEP },
	{ S(CONNECTED), EV(POST), A(POST), KEEP },

	/* the passive side accepts by itself */
	{ S_NONE, EV(REQ_LOW), A(ACCEPT), N(ACCEPTING) },
	{ S_NONE, EV(REQ_HIGH), A(ACCEPT), N(ACCEPTING) },
	/* simultaneous connects: the lower address's connection is kept
	 * (iwfi_rdm_fsm.h); the peer rejects ours */
	{ S(CONNECTING), EV(REQ_LOW), A(ACCEPT), N(ACCEPTING) },
	{ S(CONNECTING), EV(REQ_HIGH), A(REJECT), KEEP },
	/* our request lost: the peer's, whichever way it compares, is
	 * the connection */
	{ S(CONNECTING), EV(YIELD), A(NONE), N(YIELDED) },
	{ S(YIELDED), EV(REQ_LOW), A(ACCEPT), N(ACCEPTING) },
	{ S(YIELDED), EV(REQ_HIGH), A(ACCEPT), N(ACCEPTING) },
	{ S(YIELDED) | S_NONE, EV(YIELD), A(NONE), KEEP },
	{ S(YIELDED), EV(REFUSED), A(NONE), KEEP },
	{ S(YIELDED), EV(DOWN), A(NONE), KEEP },
	/* one connection per peer (one found dead is DOWN first,
	 * iwfi_rdm_on_request()) */
	{ S(ACCEPTING) | S(CONNECTED), EV(REQ_LOW), A(REJECT), KEEP },
	{ S(ACCEPTING) | S(CONNECTED), EV(REQ_HIGH), A(REJECT), KEEP },

	/* the outcome of the set-up */
	{ S_SETUP, EV(CONNECTED), A(FLUSH), N(CONNECTED) },
	{ S_SETUP, EV(REFUSED), A(FAIL), N(FAILED) },
	{ S_SETUP, EV(DOWN), A(FAIL), N(FAILED) },
	/* posted operations end with the connection's flush errors */
	{ S(CONNECTED), EV(DOWN), A(NONE), N(FAILED) },
	{ S_NONE, EV(DOWN), A(NONE), KEEP },
	{ S_NONE, EV(REFUSED), A(NONE), KEEP },
};

#define RDM_FSM_ROWS (sizeof(rdm_fsm_tab) / sizeof(rdm_fsm_tab[0]))

const struct iwfi_rdm_fsm_row *iwfi_rdm_fsm_lookup(enum iwfi_rdm_state s,
						   enum iwfi_rdm_event ev)
{
	size_t i;

	if ((unsigned int)s >= IWFI_RDM_S_MAX ||
	    (unsigned int)ev >= IWFI_RDM_EV_MAX)
		return NULL;
	for (i = 0; i < RDM_FSM_ROWS; i++)
		if ((rdm_fsm_tab[i].states & (1u << s)) &&
		    rdm_fsm_tab[i].event == ev)
			return &rdm_fsm_tab[i];
	return NULL;
}

int iwfi_rdm_fsm_step(enum iwfi_rdm_state *state, enum iwfi_rdm_event ev,
		      const void *peer)
{
	const struct iwfi_rdm_fsm_row *row = iwfi_rdm_fsm_lookup(*state, ev);

	if (!row) {
		IWFI_WARN(FI_LOG_EP_CTRL, "peer %p: %s refused in %s\n", peer,
			  (unsigned int)ev < IWFI_RDM_EV_MAX ?
				  iwfi_rdm_event_names[ev] :
				  "?",
			  (unsigned int)*state < IWFI_RDM_S_MAX ?
				  iwfi_rdm_state_names[*state] :
				  "?");
		return -FI_EOPBADSTATE;
	}
	if (row->next != IWFI_RDM_S_MAX && row->next != *state) {
		IWFI_INFO(FI_LOG_EP_CTRL, "peer %p: %s -> %s (%s)\n", peer,
			  iwfi_rdm_state_names[*state],
			  iwfi_rdm_state_names[row->next],
			  iwfi_rdm_event_names[ev]);
		*state = row->next;
	}
	return (int)row->action;
}
