/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The RDM endpoint's connection FSM (fabric/iwfi_rdm_fsm.c), every state
 * x event pair: the expected transitions are written out here as the
 * specification (connections on demand, the passive side accepting by
 * itself, simultaneous connects settled by the lower address),
 * independently of the table; every pair not listed must fail with
 * -FI_EOPBADSTATE and leave the state alone.
 */
#include "common.h"

#include "iwfi_rdm.h"

/* The provider's log hooks without the provider. */
struct fi_provider iwfi_prov = {
	.name = "iwcm-test",
};

struct expect {
	enum iwfi_rdm_state s;
	enum iwfi_rdm_event ev;
	enum iwfi_rdm_action a;
	enum iwfi_rdm_state next;
};

#define E(s, ev, a, n)                                            \
	{                                                         \
		IWFI_RDM_S_##s, IWFI_RDM_EV_##ev, IWFI_RDM_A_##a, \
			IWFI_RDM_S_##n                            \
	}

static const struct expect spec[] = {
	/* no connection: the first operation opens one, a request of the
	 * peer is accepted whoever has the lower address */
	E(IDLE, POST, CONNECT, CONNECTING),
	E(IDLE, REQ_LOW, ACCEPT, ACCEPTING),
	E(IDLE, REQ_HIGH, ACCEPT, ACCEPTING),
	E(IDLE, REFUSED, NONE, IDLE),
	E(IDLE, DOWN, NONE, IDLE),
	E(IDLE, YIELD, NONE, IDLE),

	/* our request is out: operations wait; the lower address's
	 * request wins a simultaneous connect */
	E(CONNECTING, POST, QUEUE, CONNECTING),
	E(CONNECTING, REQ_LOW, ACCEPT, ACCEPTING),
	E(CONNECTING, REQ_HIGH, REJECT, CONNECTING),
	E(CONNECTING, CONNECTED, FLUSH, CONNECTED),
	E(CONNECTING, REFUSED, FAIL, FAILED),
	E(CONNECTING, DOWN, FAIL, FAILED),
	E(CONNECTING, YIELD, NONE, YIELDED),

	/* we accepted: one connection per peer */
	E(ACCEPTING, POST, QUEUE, ACCEPTING),
	E(ACCEPTING, REQ_LOW, REJECT, ACCEPTING),
	E(ACCEPTING, REQ_HIGH, REJECT, ACCEPTING),
	E(ACCEPTING, CONNECTED, FLUSH, CONNECTED),
	E(ACCEPTING, REFUSED, FAIL, FAILED),
	E(ACCEPTING, DOWN, FAIL, FAILED),

	E(CONNECTED, POST, POST, CONNECTED),
	E(CONNECTED, REQ_LOW, REJECT, CONNECTED),
	E(CONNECTED, REQ_HIGH, REJECT, CONNECTED),
	E(CONNECTED, DOWN, NONE, FAILED),

	/* failed: as no connection, the next operation reconnects */
	E(FAILED, POST, CONNECT, CONNECTING),
	E(FAILED, REQ_LOW, ACCEPT, ACCEPTING),
	E(FAILED, REQ_HIGH, ACCEPT, ACCEPTING),
	E(FAILED, REFUSED, NONE, FAILED),
	E(FAILED, DOWN, NONE, FAILED),
	E(FAILED, YIELD, NONE, FAILED),

	/* our request lost a simultaneous connect: the peer's request is
	 * the connection, whatever arrives first */
	E(YIELDED, POST, QUEUE, YIELDED),
	E(YIELDED, REQ_LOW, ACCEPT, ACCEPTING),
	E(YIELDED, REQ_HIGH, ACCEPT, ACCEPTING),
	E(YIELDED, REFUSED, NONE, YIELDED),
	E(YIELDED, DOWN, NONE, YIELDED),
	E(YIELDED, YIELD, NONE, YIELDED),
};

static const struct expect *spec_find(enum iwfi_rdm_state s,
				      enum iwfi_rdm_event ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev)
			return &spec[i];
	return NULL;
}

/* Loop index = state * IWFI_RDM_EV_MAX + event: every pair. */
START_TEST(test_every_pair)
{
	enum iwfi_rdm_state s = (enum iwfi_rdm_state)(_i / IWFI_RDM_EV_MAX);
	enum iwfi_rdm_event ev = (enum iwfi_rdm_event)(_i % IWFI_RDM_EV_MAX);
	const struct expect *e = spec_find(s, ev);
	const struct iwfi_rdm_fsm_row *row = iwfi_rdm_fsm_lookup(s, ev);
	enum iwfi_rdm_state st = s;
	int rc;

	rc = iwfi_rdm_fsm_step(&st, ev, NULL);
	if (e) {
		ck_assert_msg(rc == (int)e->a, "%s/%s: action %d, want %s",
			      iwfi_rdm_state_names[s], iwfi_rdm_event_names[ev],
			      rc, iwfi_rdm_action_names[e->a]);
		ck_assert_msg(st == e->next, "%s/%s: -> %s, want %s",
			      iwfi_rdm_state_names[s], iwfi_rdm_event_names[ev],
			      iwfi_rdm_state_names[st],
			      iwfi_rdm_state_names[e->next]);
		ck_assert_ptr_nonnull(row);
		ck_assert_int_eq(row->action, e->a);
		return;
	}
	ck_assert_msg(rc == -FI_EOPBADSTATE, "%s/%s unexpectedly accepted",
		      iwfi_rdm_state_names[s], iwfi_rdm_event_names[ev]);
	ck_assert_int_eq(st, s);
	ck_assert_ptr_null(row);
}
END_TEST

/* Both peers connect at once: each side's FSM as the two sides see it.
 * The lower address (A) rejects B's request and keeps its own; B
 * accepts A's, and its own request is then refused, which does not
 * concern the peer any more (iwfi_rdm_on_event() ignores it). */
START_TEST(test_simultaneous)
{
	enum iwfi_rdm_state a = IWFI_RDM_S_IDLE, b = IWFI_RDM_S_IDLE;

	ck_assert_int_eq(iwfi_rdm_fsm_step(&a, IWFI_RDM_EV_POST, NULL),
			 IWFI_RDM_A_CONNECT);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_POST, NULL),
			 IWFI_RDM_A_CONNECT);
	/* A sees B's request: B is higher */
	ck_assert_int_eq(iwfi_rdm_fsm_step(&a, IWFI_RDM_EV_REQ_HIGH, NULL),
			 IWFI_RDM_A_REJECT);
	/* B sees A's request: A is lower */
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_REQ_LOW, NULL),
			 IWFI_RDM_A_ACCEPT);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&a, IWFI_RDM_EV_CONNECTED, NULL),
			 IWFI_RDM_A_FLUSH);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_CONNECTED, NULL),
			 IWFI_RDM_A_FLUSH);
	ck_assert_int_eq(a, IWFI_RDM_S_CONNECTED);
	ck_assert_int_eq(b, IWFI_RDM_S_CONNECTED);

	/* A's reject reaches B before A's request does */
	a = b = IWFI_RDM_S_IDLE;
	iwfi_rdm_fsm_step(&a, IWFI_RDM_EV_POST, NULL);
	iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_POST, NULL);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&a, IWFI_RDM_EV_REQ_HIGH, NULL),
			 IWFI_RDM_A_REJECT);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_YIELD, NULL),
			 IWFI_RDM_A_NONE);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_POST, NULL),
			 IWFI_RDM_A_QUEUE);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_REQ_LOW, NULL),
			 IWFI_RDM_A_ACCEPT);
	ck_assert_int_eq(iwfi_rdm_fsm_step(&b, IWFI_RDM_EV_CONNECTED, NULL),
			 IWFI_RDM_A_FLUSH);
	ck_assert_int_eq(b, IWFI_RDM_S_CONNECTED);
}
END_TEST

/* The names are complete: a missing one would print "(null)". */
START_TEST(test_names)
{
	for (int i = 0; i < IWFI_RDM_S_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_rdm_state_names[i]);
	for (int i = 0; i < IWFI_RDM_EV_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_rdm_event_names[i]);
	for (int i = 0; i < IWFI_RDM_A_MAX; i++)
		ck_assert_ptr_nonnull(iwfi_rdm_action_names[i]);
	ck_assert_ptr_null(
		iwfi_rdm_fsm_lookup(IWFI_RDM_S_MAX, IWFI_RDM_EV_POST));
	ck_assert_ptr_null(
		iwfi_rdm_fsm_lookup(IWFI_RDM_S_IDLE, IWFI_RDM_EV_MAX));
}
END_TEST

static Suite *rdm_fsm_suite(void)
{
	Suite *s = suite_create("fabric_rdm_fsm");
	TCase *tc = tcase_create("fsm");

	tcase_add_loop_test(tc, test_every_pair, 0,
			    IWFI_RDM_S_MAX * IWFI_RDM_EV_MAX);
	tcase_add_test(tc, test_simultaneous);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(rdm_fsm_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
