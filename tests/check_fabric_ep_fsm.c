/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The provider's endpoint FSM (fabric/iwfi_ep_fsm.c), every state x event
 * pair: the expected transitions are written out here as the
 * specification (fi_endpoint(3), fi_cm(3), fi_eq(3)), independently of
 * the table; every pair not listed must fail with -FI_EOPBADSTATE and
 * leave the state alone.
 */
#include "common.h"

#include "iwfi.h"

/* The provider's log hooks without the provider: iwfi_attr.c defines it
 * in the module. */
struct fi_provider iwfi_prov = {
	.name = "iwcm-test",
};

struct expect {
	enum iwfi_ep_state s;
	enum iwfi_ep_event ev;
	enum iwfi_ep_action a;
	enum iwfi_ep_state next;
};

#define E(s, ev, a, n)                                                       \
	{                                                                    \
		IWFI_EP_S_##s, IWFI_EP_EV_##ev, IWFI_EP_A_##a, IWFI_EP_S_##n \
	}

static const struct expect spec[] = {
	/* opened: only enabling, or closing */
	E(IDLE, ENABLE, ENABLE, ENABLED),
	E(IDLE, CLOSE, RELEASE, CLOSED),

	/* enabled: one connection, either way */
	E(ENABLED, ENABLE, NONE, ENABLED),
	E(ENABLED, CONNECT, REQUEST, CONNECTING),
	E(ENABLED, ACCEPT, REQUEST, ACCEPTING),
	E(ENABLED, CLOSE, RELEASE, CLOSED),

	/* our Connect is out: iwcmd's answer, then the peer's */
	E(CONNECTING, ENABLE, NONE, CONNECTING),
	E(CONNECTING, REQUEST_FAILED, NONE, ENABLED),
	E(CONNECTING, ESTABLISHED, CONNECTED, CONNECTED),
	E(CONNECTING, REJECTED, FAIL, ERROR),
	E(CONNECTING, UNREACHABLE, FAIL, ERROR),
	E(CONNECTING, ERROR, FAIL, ERROR),
	E(CONNECTING, CLOSE, RELEASE, CLOSED),

	/* our Accept is out: no reject can answer it */
	E(ACCEPTING, ENABLE, NONE, ACCEPTING),
	E(ACCEPTING, REQUEST_FAILED, NONE, ERROR),
	E(ACCEPTING, ESTABLISHED, CONNECTED, CONNECTED),
	E(ACCEPTING, UNREACHABLE, FAIL, ERROR),
	E(ACCEPTING, ERROR, FAIL, ERROR),
	E(ACCEPTING, CLOSE, RELEASE, CLOSED),

	E(CONNECTED, ENABLE, NONE, CONNECTED),
	E(CONNECTED, QP_ERROR, NONE, PEER_CLOSED),
	E(CONNECTED, LAST_COMPLETION, NONE, CONNECTED),
	E(CONNECTED, SHUTDOWN, DISCONNECT, SHUTDOWN),
	E(CONNECTED, CLOSE, LINGER, CLOSED),

	/* our close is under way: the peer's close fails the QP */
	E(SHUTDOWN, ENABLE, NONE, SHUTDOWN),
	E(SHUTDOWN, QP_ERROR, NONE, PEER_CLOSED),
	E(SHUTDOWN, LAST_COMPLETION, NONE, SHUTDOWN),
	E(SHUTDOWN, SHUTDOWN, NONE, SHUTDOWN),
	E(SHUTDOWN, CLOSE, LINGER, CLOSED),

	/* FI_SHUTDOWN after the last completion, once */
	E(PEER_CLOSED, ENABLE, NONE, PEER_CLOSED),
	E(PEER_CLOSED, QP_ERROR, NONE, PEER_CLOSED),
	E(PEER_CLOSED, LAST_COMPLETION, SHUTDOWN, DISCONNECTED),
	E(PEER_CLOSED, SHUTDOWN, NONE, PEER_CLOSED),
	E(PEER_CLOSED, CLOSE, LINGER, CLOSED),

	E(DISCONNECTED, ENABLE, NONE, DISCONNECTED),
	E(DISCONNECTED, QP_ERROR, NONE, DISCONNECTED),
	E(DISCONNECTED, LAST_COMPLETION, NONE, DISCONNECTED),
	E(DISCONNECTED, SHUTDOWN, NONE, DISCONNECTED),
	E(DISCONNECTED, CLOSE, LINGER, CLOSED),

	/* the connection failed: no QP, nothing to close gracefully */
	E(ERROR, ENABLE, NONE, ERROR),
	E(ERROR, SHUTDOWN, NONE, ERROR),
	E(ERROR, CLOSE, RELEASE, CLOSED),

	/* closing: what the CM thread still sees is not reported */
	E(CLOSED, ESTABLISHED, NONE, CLOSED),
	E(CLOSED, REJECTED, NONE, CLOSED),
	E(CLOSED, UNREACHABLE, NONE, CLOSED),
	E(CLOSED, ERROR, NONE, CLOSED),
	E(CLOSED, QP_ERROR, NONE, CLOSED),
	E(CLOSED, LAST_COMPLETION, NONE, CLOSED),
};

static const struct expect *spec_find(enum iwfi_ep_state s,
				      enum iwfi_ep_event ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev)
			return &spec[i];
	return NULL;
}

/* Loop index = state * IWFI_EP_EV_MAX + event: every pair. */
START_TEST(test_every_pair)
{
	enum iwfi_ep_state s = (enum iwfi_ep_state)(_i / IWFI_EP_EV_MAX);
	enum iwfi_ep_event ev = (enum iwfi_ep_event)(_i % IWFI_EP_EV_MAX);
	const struct expect *e = spec_find(s, ev);
	const struct iwfi_ep_fsm_row *row = iwfi_ep_fsm_lookup(s, ev);
	enum iwfi_ep_state st = s;
	int rc;

	rc = iwfi_ep_fsm_step(&st, ev, NULL);
	if (e) {
		ck_assert_msg(rc == (int)e->a, "%s/%s: action %d, want %s",
			      iwfi_ep_state_names[s], iwfi_ep_event_names[ev],
			      rc, iwfi_ep_action_names[e->a]);
		ck_assert_msg(st == e->next, "%s/%s: -> %s, want %s",
			      iwfi_ep_state_names[s], iwfi_ep_event_names[ev],
			      iwfi_ep_state_names[st],
			      iwfi_ep_state_names[e->next]);
		ck_assert_ptr_nonnull(row);
		ck_assert_int_eq(row->action, e->a);
		return;
	}
	/* not in the specification: refused, never ignored */
	ck_assert_msg(rc == -FI_EOPBADSTATE, "%s/%s unexpectedly accepted",
		      iwfi_ep_state_names[s], iwfi_ep_event_names[ev]);
	ck_assert_int_eq(st, s);
	ck_assert_ptr_null(row);
}
END_TEST

/* Whole lives of an endpoint. */
START_TEST(test_paths)
{
	static const struct {
		enum iwfi_ep_event evs[8];
		size_t n;
		enum iwfi_ep_state end;
		enum iwfi_ep_action a[8]; /* what each event asked for */
	} paths[] = {
		/* connect; the peer closes with a request still posted */
		{ { IWFI_EP_EV_ENABLE, IWFI_EP_EV_CONNECT,
		    IWFI_EP_EV_ESTABLISHED, IWFI_EP_EV_QP_ERROR,
		    IWFI_EP_EV_LAST_COMPLETION, IWFI_EP_EV_SHUTDOWN,
		    IWFI_EP_EV_CLOSE },
		  7,
		  IWFI_EP_S_CLOSED,
		  { IWFI_EP_A_ENABLE, IWFI_EP_A_REQUEST, IWFI_EP_A_CONNECTED,
		    IWFI_EP_A_NONE, IWFI_EP_A_SHUTDOWN, IWFI_EP_A_NONE,
		    IWFI_EP_A_LINGER } },
		/* accept; we shut down, then the peer's close */
		{ { IWFI_EP_EV_ENABLE, IWFI_EP_EV_ACCEPT,
		    IWFI_EP_EV_ESTABLISHED, IWFI_EP_EV_SHUTDOWN,
		    IWFI_EP_EV_QP_ERROR, IWFI_EP_EV_LAST_COMPLETION,
		    IWFI_EP_EV_QP_ERROR, IWFI_EP_EV_LAST_COMPLETION },
		  8,
		  IWFI_EP_S_DISCONNECTED,
		  { IWFI_EP_A_ENABLE, IWFI_EP_A_REQUEST, IWFI_EP_A_CONNECTED,
		    IWFI_EP_A_DISCONNECT, IWFI_EP_A_NONE, IWFI_EP_A_SHUTDOWN,
		    IWFI_EP_A_NONE, IWFI_EP_A_NONE } },
		/* iwcmd refuses the Connect; the retry is rejected */
		{ { IWFI_EP_EV_ENABLE, IWFI_EP_EV_CONNECT,
		    IWFI_EP_EV_REQUEST_FAILED, IWFI_EP_EV_CONNECT,
		    IWFI_EP_EV_REJECTED, IWFI_EP_EV_SHUTDOWN,
		    IWFI_EP_EV_CLOSE },
		  7,
		  IWFI_EP_S_CLOSED,
		  { IWFI_EP_A_ENABLE, IWFI_EP_A_REQUEST, IWFI_EP_A_NONE,
		    IWFI_EP_A_REQUEST, IWFI_EP_A_FAIL, IWFI_EP_A_NONE,
		    IWFI_EP_A_RELEASE } },
		/* closed while connecting: the answer is not reported */
		{ { IWFI_EP_EV_ENABLE, IWFI_EP_EV_CONNECT, IWFI_EP_EV_CLOSE,
		    IWFI_EP_EV_ESTABLISHED },
		  4,
		  IWFI_EP_S_CLOSED,
		  { IWFI_EP_A_ENABLE, IWFI_EP_A_REQUEST, IWFI_EP_A_RELEASE,
		    IWFI_EP_A_NONE } },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		enum iwfi_ep_state st = IWFI_EP_S_IDLE;

		for (j = 0; j < paths[i].n; j++)
			ck_assert_msg(iwfi_ep_fsm_step(&st, paths[i].evs[j],
						       NULL) ==
					      (int)paths[i].a[j],
				      "path %zu step %zu", i, j);
		ck_assert_int_eq(st, paths[i].end);
	}
}
END_TEST

/* iwfi_ep_fsm() feeds ep->state under ep->lock. */
START_TEST(test_locked_ep)
{
	struct iwfi_ep *ep = calloc(1, sizeof(*ep));

	ck_assert_ptr_nonnull(ep);
	pthread_mutex_init(&ep->lock, NULL);
	ep->state = IWFI_EP_S_IDLE;
	iwfi_ep_lock(ep);
#ifndef NDEBUG
	ck_assert(iwfi_held(&ep->lock_owner));
#endif
	ck_assert_int_eq(iwfi_ep_fsm(ep, IWFI_EP_EV_ENABLE), IWFI_EP_A_ENABLE);
	ck_assert_int_eq(ep->state, IWFI_EP_S_ENABLED);
	ck_assert_int_eq(iwfi_ep_fsm(ep, IWFI_EP_EV_SHUTDOWN), -FI_EOPBADSTATE);
	ck_assert_int_eq(ep->state, IWFI_EP_S_ENABLED);
	iwfi_ep_unlock(ep);
#ifndef NDEBUG
	ck_assert(!iwfi_held(&ep->lock_owner));
#endif
	pthread_mutex_destroy(&ep->lock);
	free(ep);
}
END_TEST

/* What the callers ask of a state: binding, holding receives. */
START_TEST(test_predicates)
{
	for (int s = 0; s < IWFI_EP_S_MAX; s++) {
		ck_assert(iwfi_ep_state_enabled((enum iwfi_ep_state)s) ==
			  (s != IWFI_EP_S_IDLE));
		ck_assert(iwfi_ep_state_holds((enum iwfi_ep_state)s) ==
			  (s == IWFI_EP_S_IDLE || s == IWFI_EP_S_ENABLED ||
			   s == IWFI_EP_S_CONNECTING ||
			   s == IWFI_EP_S_ACCEPTING));
	}
}
END_TEST

START_TEST(test_names_complete)
{
	int i;

	for (i = 0; i < IWFI_EP_S_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_ep_state_names[i]);
	for (i = 0; i < IWFI_EP_EV_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_ep_event_names[i]);
	for (i = 0; i < IWFI_EP_A_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_ep_action_names[i]);
	ck_assert_ptr_null(
		iwfi_ep_fsm_lookup(IWFI_EP_S_MAX, IWFI_EP_EV_ENABLE));
	ck_assert_ptr_null(iwfi_ep_fsm_lookup(IWFI_EP_S_IDLE, IWFI_EP_EV_MAX));
}
END_TEST

static Suite *ep_fsm_suite(void)
{
	Suite *s = suite_create("fabric_ep_fsm");

	add_loop_tcase(s, "every_pair", test_every_pair,
		       IWFI_EP_S_MAX * IWFI_EP_EV_MAX);
	add_tcase(s, "paths", test_paths);
	add_tcase(s, "locked_ep", test_locked_ep);
	add_tcase(s, "predicates", test_predicates);
	add_tcase(s, "names", test_names_complete);
	return s;
}

TEST_MAIN(ep_fsm_suite)
