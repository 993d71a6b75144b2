/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The DDP Stream Session FSM, every state x event pair: the expected
 * transitions are written out here as the specification (RFC 5043
 * §5.2.3, §6.2-6.4, RFC 6581 §7, §9.1), independently of the table in
 * daemon/sctp_session_fsm.c.  Every pair not listed must be a protocol
 * error: in NONE answered with a Terminate, in TERM_SENT dropped,
 * elsewhere a Terminate and the owner told, in CLOSED nothing.
 */
#include "common.h"

#include "sctp_session_fsm.h"

struct expect {
	enum sess_state s;
	enum sess_event ev;
	enum sess_guard g;
	enum sess_action a;
	enum sess_state next;
};

#define E(s, ev, a, n)                                                        \
	{                                                                     \
		SESS_S_##s, SESS_EV_##ev, SESS_G_NONE, SESS_A_##a, SESS_S_##n \
	}
#define EG(s, ev, g, a, n)                                                   \
	{                                                                    \
		SESS_S_##s, SESS_EV_##ev, SESS_G_##g, SESS_A_##a, SESS_S_##n \
	}

/* clang-format off */
static const struct expect spec[] = {
	E(NONE, START_CONNECT, SEND_INITIATE, WAIT_REPLY),
	/* §6.4: no listener, or §5.2.3 over the pending limit: Terminate */
	EG(NONE, INITIATE, NO_LISTENER, TERMINATE, CLOSED),
	EG(NONE, INITIATE, PENDING_FULL, TERMINATE, CLOSED),
	E(NONE, INITIATE, NOTIFY_REQUEST, WAIT_ULP),
	/* no Terminate ping-pong */
	E(NONE, TERMINATE, CLOSE, CLOSED),

	E(WAIT_REPLY, ACCEPT, HANDOFF, HANDOFF),
	E(WAIT_REPLY, REJECT, NOTIFY_REJECTED, CLOSED),
	/* §6.4 non-ULP rejection */
	E(WAIT_REPLY, TERMINATE, NOTIFY_REJECTED, CLOSED),
	E(WAIT_REPLY, NEG_FAIL, TERM_ERROR, TERM_SENT),
	E(WAIT_REPLY, TIMEOUT, TERM_ERROR, TERM_SENT),
	E(WAIT_REPLY, ULP_GONE, TERMINATE, TERM_SENT),
	E(WAIT_REPLY, ASSOC_DOWN, ERROR, CLOSED),

	E(WAIT_ULP, ULP_ACCEPT, ACCEPT_HANDOFF, HANDOFF),
	E(WAIT_ULP, ULP_REJECT, REJECT, CLOSED),
	/* §6.3: Reject only at the ULP's direction */
	E(WAIT_ULP, ULP_GONE, TERMINATE, CLOSED),
	E(WAIT_ULP, TIMEOUT, TERMINATE, CLOSED),
	E(WAIT_ULP, TERMINATE, TERM_ERROR, CLOSED),
	E(WAIT_ULP, ASSOC_DOWN, ERROR, CLOSED),

	E(HANDOFF, HANDOFF_DONE, NONE, ESTABLISHED),
	E(HANDOFF, HANDOFF_FAILED, TERMINATE, TERM_SENT),
	E(HANDOFF, SEGMENT, RELAY, HANDOFF),
	E(HANDOFF, TERMINATE, PEER_TERM, CLOSED),
	E(HANDOFF, ULP_GONE, TERMINATE, TERM_SENT),
	E(HANDOFF, ASSOC_DOWN, ERROR, CLOSED),

	E(ESTABLISHED, SEGMENT, RELAY, ESTABLISHED),
	E(ESTABLISHED, TERMINATE, PEER_TERM, CLOSED),
	E(ESTABLISHED, ULP_CLOSE, TERMINATE, TERM_SENT),
	E(ESTABLISHED, ULP_GONE, TERMINATE, TERM_SENT),
	E(ESTABLISHED, ASSOC_DOWN, ERROR, CLOSED),

	/* §6.2: the peer's direction may still carry segments */
	E(TERM_SENT, SEGMENT, NONE, TERM_SENT),
	E(TERM_SENT, ACCEPT, NONE, TERM_SENT),
	E(TERM_SENT, ULP_GONE, NONE, TERM_SENT),
	E(TERM_SENT, ULP_CLOSE, NONE, TERM_SENT),
	E(TERM_SENT, REJECT, CLOSE, CLOSED),
	E(TERM_SENT, TERMINATE, CLOSE, CLOSED),
	E(TERM_SENT, TIMEOUT, CLOSE, CLOSED),
	E(TERM_SENT, ASSOC_DOWN, CLOSE, CLOSED),
};
/* clang-format on */

static enum sess_action calls[4];
static int n_calls;
static enum sess_action fail_action = SESS_A_MAX;
static int n_logs;
static unsigned int guards;
static unsigned int n_guard_calls;

static int mock(void *arg, enum sess_event ev, enum sess_action a)
{
	(void)arg;
	(void)ev;
	ck_assert_int_lt(n_calls, 4);
	calls[n_calls++] = a;
	return a == fail_action ? -1 : 0;
}

#define MOCK(name)                                            \
	static int mock_##name(void *arg, enum sess_event ev) \
	{                                                     \
		return mock(arg, ev, SESS_A_##name);          \
	}
MOCK(SEND_INITIATE)
MOCK(NOTIFY_REQUEST)
MOCK(ACCEPT_HANDOFF)
MOCK(REJECT)
MOCK(HANDOFF)
MOCK(NOTIFY_REJECTED)
MOCK(RELAY)
MOCK(PEER_TERM)
MOCK(TERMINATE)
MOCK(TERM_ERROR)
MOCK(ERROR)
MOCK(CLOSE)

#define GUARD(name)                                   \
	static bool guard_##name(void *arg)           \
	{                                             \
		(void)arg;                            \
		n_guard_calls++;                      \
		return (guards >> SESS_G_##name) & 1; \
	}
GUARD(NO_LISTENER)
GUARD(PENDING_FULL)

static void mock_log(void *arg, const char *fmt, ...)
{
	(void)arg;
	(void)fmt;
	n_logs++;
}

static const struct sess_fsm_ops ops = {
	.action = {
		[SESS_A_SEND_INITIATE] = mock_SEND_INITIATE,
		[SESS_A_NOTIFY_REQUEST] = mock_NOTIFY_REQUEST,
		[SESS_A_ACCEPT_HANDOFF] = mock_ACCEPT_HANDOFF,
		[SESS_A_REJECT] = mock_REJECT,
		[SESS_A_HANDOFF] = mock_HANDOFF,
		[SESS_A_NOTIFY_REJECTED] = mock_NOTIFY_REJECTED,
		[SESS_A_RELAY] = mock_RELAY,
		[SESS_A_PEER_TERM] = mock_PEER_TERM,
		[SESS_A_TERMINATE] = mock_TERMINATE,
		[SESS_A_TERM_ERROR] = mock_TERM_ERROR,
		[SESS_A_ERROR] = mock_ERROR,
		[SESS_A_CLOSE] = mock_CLOSE,
	},
	.guard = {
		[SESS_G_NO_LISTENER] = guard_NO_LISTENER,
		[SESS_G_PENDING_FULL] = guard_PENDING_FULL,
	},
	.log = mock_log,
};

static const struct expect *spec_find(enum sess_state s, enum sess_event ev,
				      unsigned int g)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev &&
		    (spec[i].g == SESS_G_NONE || ((g >> spec[i].g) & 1)))
			return &spec[i];
	return NULL;
}

/* The protocol-error action of the specification, per state. */
static enum sess_action spec_error_action(enum sess_state s)
{
	if (s == SESS_S_NONE)
		return SESS_A_TERMINATE;
	if (s == SESS_S_TERM_SENT)
		return SESS_A_CLOSE;
	return SESS_A_TERM_ERROR;
}

/* Loop index = state * SESS_EV_MAX + event, under every guard answer. */
START_TEST(test_every_pair)
{
	enum sess_state s = (enum sess_state)(_i / SESS_EV_MAX);
	enum sess_event ev = (enum sess_event)(_i % SESS_EV_MAX);
	unsigned int g;

	for (g = 0; g < (1u << SESS_G_MAX); g += 2) {
		const struct expect *e = spec_find(s, ev, g);
		struct sess_fsm f = { s, 1, NULL };
		const struct sess_fsm_row *row;
		int rc;

		n_calls = 0;
		n_logs = 0;
		guards = g;
		fail_action = SESS_A_MAX;
		row = sctp_session_fsm_match(s, ev, &ops, NULL);
		rc = sctp_session_fsm(&f, ev, &ops);
		if (e) {
			ck_assert_msg(rc == 0, "%s/%s",
				      sctp_session_state_names[s],
				      sctp_session_event_names[ev]);
			ck_assert_ptr_nonnull(row);
			ck_assert_int_eq(row->guard, e->g);
			ck_assert_int_eq(n_calls, e->a != SESS_A_NONE);
			ck_assert_msg(e->a == SESS_A_NONE || calls[0] == e->a,
				      "%s/%s/0x%x: action %s, want %s",
				      sctp_session_state_names[s],
				      sctp_session_event_names[ev], g,
				      sctp_session_action_names[calls[0]],
				      sctp_session_action_names[e->a]);
			ck_assert_msg(f.state == e->next,
				      "%s/%s/0x%x: -> %s, want %s",
				      sctp_session_state_names[s],
				      sctp_session_event_names[ev], g,
				      sctp_session_state_names[f.state],
				      sctp_session_state_names[e->next]);
			ck_assert_ptr_nonnull(
				sctp_session_fsm_match(s, ev, NULL, NULL));
			continue;
		}
		ck_assert_msg(rc == -1, "%s/%s unexpectedly accepted",
			      sctp_session_state_names[s],
			      sctp_session_event_names[ev]);
		ck_assert_ptr_null(row);
		ck_assert_ptr_null(sctp_session_fsm_match(s, ev, NULL, NULL));
		ck_assert_int_ge(n_logs, 1);
		if (s == SESS_S_CLOSED) {
			ck_assert_int_eq(n_calls, 0);
			ck_assert_int_eq(f.state, SESS_S_CLOSED);
		} else {
			ck_assert_int_eq(n_calls, 1);
			ck_assert_int_eq(calls[0], spec_error_action(s));
			ck_assert_int_eq(f.state, SESS_S_CLOSED);
		}
	}
}
END_TEST

/* Guards are asked only for the pairs that have guarded rows. */
START_TEST(test_guards_asked)
{
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		struct sess_fsm f = { spec[i].s, 4, NULL };
		bool guarded = false;

		for (j = 0; j < ARRAY_SIZE(spec); j++)
			if (spec[j].s == spec[i].s &&
			    spec[j].ev == spec[i].ev &&
			    spec[j].g != SESS_G_NONE)
				guarded = true;
		n_calls = 0;
		n_guard_calls = 0;
		guards = 0;
		sctp_session_fsm(&f, spec[i].ev, &ops);
		if (!guarded)
			ck_assert_uint_eq(n_guard_calls, 0);
		else
			ck_assert_uint_ge(n_guard_calls, 1);
	}
}
END_TEST

/* A failing action closes the session through TERM_ERROR. */
START_TEST(test_failed_action)
{
	size_t i;
	int tested = 0;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		struct sess_fsm f = { spec[i].s, 2, NULL };
		enum sess_action a = spec[i].a;

		if (a == SESS_A_NONE)
			continue;
		guards = spec[i].g == SESS_G_NONE ? 0 : 1u << spec[i].g;
		if (spec_find(spec[i].s, spec[i].ev, guards) != &spec[i])
			continue;
		n_calls = 0;
		fail_action = a;
		ck_assert_int_eq(sctp_session_fsm(&f, spec[i].ev, &ops), -1);
		ck_assert_int_eq(f.state, SESS_S_CLOSED);
		ck_assert_int_eq(calls[0], a);
		if (a == SESS_A_TERM_ERROR || a == SESS_A_ERROR ||
		    a == SESS_A_CLOSE) {
			ck_assert_int_eq(n_calls, 1);
		} else {
			ck_assert_int_eq(n_calls, 2);
			ck_assert_int_eq(calls[1], SESS_A_TERM_ERROR);
		}
		tested++;
	}
	fail_action = SESS_A_MAX;
	ck_assert_int_gt(tested, 20);
}
END_TEST

/* Whole sessions through the machine. */
START_TEST(test_paths)
{
	static const struct {
		enum sess_event evs[8];
		size_t n;
		enum sess_state end;
	} paths[] = {
		/* §6.2 passive, accepted, segments, the peer terminates */
		{ { SESS_EV_INITIATE, SESS_EV_ULP_ACCEPT, SESS_EV_SEGMENT,
		    SESS_EV_HANDOFF_DONE, SESS_EV_SEGMENT, SESS_EV_TERMINATE },
		  6,
		  SESS_S_CLOSED },
		/* §6.2 active, we terminate, the peer follows */
		{ { SESS_EV_START_CONNECT, SESS_EV_ACCEPT, SESS_EV_HANDOFF_DONE,
		    SESS_EV_SEGMENT, SESS_EV_ULP_CLOSE, SESS_EV_SEGMENT,
		    SESS_EV_TERMINATE },
		  7,
		  SESS_S_CLOSED },
		/* §6.3 */
		{ { SESS_EV_INITIATE, SESS_EV_ULP_REJECT }, 2, SESS_S_CLOSED },
		/* §6.4 seen from the active side */
		{ { SESS_EV_START_CONNECT, SESS_EV_TERMINATE },
		  2,
		  SESS_S_CLOSED },
		/* established, relaying */
		{ { SESS_EV_START_CONNECT, SESS_EV_ACCEPT, SESS_EV_HANDOFF_DONE,
		    SESS_EV_SEGMENT, SESS_EV_SEGMENT },
		  5,
		  SESS_S_ESTABLISHED },
	};
	size_t i, j;

	guards = 0;
	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct sess_fsm f = { SESS_S_NONE, 3, NULL };

		for (j = 0; j < paths[i].n; j++) {
			n_calls = 0;
			ck_assert_int_eq(
				sctp_session_fsm(&f, paths[i].evs[j], &ops), 0);
		}
		ck_assert_int_eq(f.state, paths[i].end);
	}
}
END_TEST

START_TEST(test_names_complete)
{
	int i;

	for (i = 0; i < SESS_S_MAX; i++)
		ck_assert_ptr_nonnull(sctp_session_state_names[i]);
	for (i = 0; i < SESS_EV_MAX; i++)
		ck_assert_ptr_nonnull(sctp_session_event_names[i]);
	for (i = 0; i < SESS_A_MAX; i++)
		ck_assert_ptr_nonnull(sctp_session_action_names[i]);
	for (i = 0; i < SESS_G_MAX; i++)
		ck_assert_ptr_nonnull(sctp_session_guard_names[i]);
}
END_TEST

static Suite *sctp_session_suite(void)
{
	Suite *s = suite_create("sctp_session");

	add_loop_tcase(s, "every_pair", test_every_pair,
		       SESS_S_MAX * SESS_EV_MAX);
	add_tcase(s, "guards_asked", test_guards_asked);
	add_tcase(s, "failed_action", test_failed_action);
	add_tcase(s, "paths", test_paths);
	add_tcase(s, "names", test_names_complete);
	return s;
}

TEST_MAIN(sctp_session_suite)
