/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection FSM, every state x event pair: the expected transitions
 * are written out here as the specification (RFC 5044 §7.1.2, RFC 6581
 * §9-10), independently of the table in daemon/conn_fsm.c; every pair not
 * listed must be a protocol error that closes a live connection with the
 * error action and leaves a final one alone.
 */
#include <stdarg.h>

#include "common.h"

#include "conn_fsm.h"

struct expect {
	enum conn_state s;
	enum conn_event ev;
	enum conn_action a;
	enum conn_state next;
};

#define E(s, ev, a, n) { CONN_S_##s, CONN_EV_##ev, CONN_A_##a, CONN_S_##n }

static const struct expect spec[] = {
	E(NONE, START_CONNECT, CONNECT, CONNECTING),
	E(NONE, START_ACCEPT, WAIT_REQUEST, WAIT_REQUEST),

	E(CONNECTING, TCP_CONNECTED, SEND_REQUEST, WAIT_REPLY),
	E(CONNECTING, TCP_FAILED, UNREACHABLE, CLOSED),
	E(CONNECTING, TIMEOUT, UNREACHABLE, CLOSED),
	E(CONNECTING, ULP_GONE, CLOSE, CLOSED),
	E(CONNECTING, ABORT, ERROR, CLOSED),

	E(WAIT_REQUEST, REQUEST, NOTIFY_REQUEST, WAIT_ULP),
	E(WAIT_REQUEST, TERM, TERM, CLOSED),
	E(WAIT_REQUEST, BAD, CLOSE, CLOSED),
	E(WAIT_REQUEST, TIMEOUT, CLOSE, CLOSED),
	E(WAIT_REQUEST, PEER_CLOSED, CLOSE, CLOSED),
	E(WAIT_REQUEST, ULP_GONE, CLOSE, CLOSED),
	E(WAIT_REQUEST, ABORT, ERROR, CLOSED),

	E(WAIT_ULP, ULP_ACCEPT, REPLY_HANDOFF, HANDOFF),
	E(WAIT_ULP, ULP_ACCEPT_RTR, REPLY_WAIT_RTR, WAIT_RTR),
	E(WAIT_ULP, ULP_REJECT, REJECT, CLOSED),
	E(WAIT_ULP, TIMEOUT, REJECT, CLOSED),
	E(WAIT_ULP, ULP_GONE, REJECT, CLOSED),
	E(WAIT_ULP, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_ULP, BAD, ERROR, CLOSED),
	E(WAIT_ULP, ABORT, ERROR, CLOSED),

	E(WAIT_REPLY, REPLY, HANDOFF, HANDOFF),
	E(WAIT_REPLY, REPLY_RTR, RTR_HANDOFF, HANDOFF),
	E(WAIT_REPLY, REPLY_RTR_READ, RTR_READ, WAIT_READ_RESP),
	E(WAIT_REPLY, REPLY_REJECT, NOTIFY_REJECTED, CLOSED),
	E(WAIT_REPLY, RETRY_V1, RECONNECT_V1, CONNECTING),
	E(WAIT_REPLY, TERM, TERM, CLOSED),
	E(WAIT_REPLY, BAD, ERROR, CLOSED),
	E(WAIT_REPLY, TIMEOUT, ERROR, CLOSED),
	E(WAIT_REPLY, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_REPLY, ULP_GONE, CLOSE, CLOSED),
	E(WAIT_REPLY, ABORT, ERROR, CLOSED),

	E(WAIT_RTR, RTR, HANDOFF, HANDOFF),
	E(WAIT_RTR, RTR_READ, READ_RESP_HANDOFF, HANDOFF),
	E(WAIT_RTR, TERM, TERM, CLOSED),
	E(WAIT_RTR, BAD, ERROR, CLOSED),
	E(WAIT_RTR, TIMEOUT, ERROR, CLOSED),
	E(WAIT_RTR, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_RTR, ULP_GONE, CLOSE, CLOSED),
	E(WAIT_RTR, ABORT, ERROR, CLOSED),

	E(WAIT_READ_RESP, READ_RESP, HANDOFF, HANDOFF),
	E(WAIT_READ_RESP, TERM, TERM, CLOSED),
	E(WAIT_READ_RESP, BAD, ERROR, CLOSED),
	E(WAIT_READ_RESP, TIMEOUT, ERROR, CLOSED),
	E(WAIT_READ_RESP, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_READ_RESP, ULP_GONE, CLOSE, CLOSED),
	E(WAIT_READ_RESP, ABORT, ERROR, CLOSED),

	E(HANDOFF, HANDOFF_DONE, RELEASE, DONE),
	E(HANDOFF, HANDOFF_FAILED, CLOSE, CLOSED),
	E(HANDOFF, ULP_GONE, CLOSE, CLOSED),
	E(HANDOFF, ABORT, ERROR, CLOSED),
};

/* Mock actions: record the calls, fail on demand. */
static enum conn_action calls[4];
static int n_calls;
static enum conn_action fail_action = CONN_A_MAX;
static int n_logs;

static int mock_action(enum conn_action a)
{
	ck_assert_int_lt(n_calls, 4);
	calls[n_calls++] = a;
	return a == fail_action ? -1 : 0;
}

#define MOCK(name)                                                           \
	static int mock_##name(void *arg, enum conn_event ev)                \
	{                                                                    \
		(void)arg;                                                   \
		(void)ev;                                                    \
		return mock_action(CONN_A_##name);                           \
	}
MOCK(CONNECT)
MOCK(WAIT_REQUEST)
MOCK(SEND_REQUEST)
MOCK(NOTIFY_REQUEST)
MOCK(REPLY_HANDOFF)
MOCK(REPLY_WAIT_RTR)
MOCK(REJECT)
MOCK(HANDOFF)
MOCK(RTR_HANDOFF)
MOCK(RTR_READ)
MOCK(READ_RESP_HANDOFF)
MOCK(NOTIFY_REJECTED)
MOCK(RECONNECT_V1)
MOCK(TERM)
MOCK(UNREACHABLE)
MOCK(ERROR)
MOCK(CLOSE)
MOCK(RELEASE)

static void mock_log(void *arg, const char *fmt, ...)
{
	(void)arg;
	(void)fmt;
	n_logs++;
}

static const struct conn_fsm_ops ops = {
	.action = {
		[CONN_A_CONNECT] = mock_CONNECT,
		[CONN_A_WAIT_REQUEST] = mock_WAIT_REQUEST,
		[CONN_A_SEND_REQUEST] = mock_SEND_REQUEST,
		[CONN_A_NOTIFY_REQUEST] = mock_NOTIFY_REQUEST,
		[CONN_A_REPLY_HANDOFF] = mock_REPLY_HANDOFF,
		[CONN_A_REPLY_WAIT_RTR] = mock_REPLY_WAIT_RTR,
		[CONN_A_REJECT] = mock_REJECT,
		[CONN_A_HANDOFF] = mock_HANDOFF,
		[CONN_A_RTR_HANDOFF] = mock_RTR_HANDOFF,
		[CONN_A_RTR_READ] = mock_RTR_READ,
		[CONN_A_READ_RESP_HANDOFF] = mock_READ_RESP_HANDOFF,
		[CONN_A_NOTIFY_REJECTED] = mock_NOTIFY_REJECTED,
		[CONN_A_RECONNECT_V1] = mock_RECONNECT_V1,
		[CONN_A_TERM] = mock_TERM,
		[CONN_A_UNREACHABLE] = mock_UNREACHABLE,
		[CONN_A_ERROR] = mock_ERROR,
		[CONN_A_CLOSE] = mock_CLOSE,
		[CONN_A_RELEASE] = mock_RELEASE,
	},
	.log = mock_log,
};

static const struct expect *spec_find(enum conn_state s, enum conn_event ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev)
			return &spec[i];
	return NULL;
}

/* Loop index = state * CONN_EV_MAX + event: every pair. */
START_TEST(test_every_pair)
{
	enum conn_state s = (enum conn_state)(_i / CONN_EV_MAX);
	enum conn_event ev = (enum conn_event)(_i % CONN_EV_MAX);
	const struct expect *e = spec_find(s, ev);
	struct conn_fsm f = { s, 1, NULL };
	int rc;

	n_calls = 0;
	n_logs = 0;
	fail_action = CONN_A_MAX;
	rc = conn_fsm(&f, ev, &ops);
	if (e) {
		ck_assert_msg(rc == 0, "%s/%s", conn_state_names[s],
			      conn_event_names[ev]);
		ck_assert_int_eq(n_calls, 1);
		ck_assert_msg(calls[0] == e->a, "%s/%s: action %s, want %s",
			      conn_state_names[s], conn_event_names[ev],
			      conn_action_names[calls[0]],
			      conn_action_names[e->a]);
		ck_assert_msg(f.state == e->next, "%s/%s: -> %s, want %s",
			      conn_state_names[s], conn_event_names[ev],
			      conn_state_names[f.state],
			      conn_state_names[e->next]);
		ck_assert_ptr_nonnull(conn_fsm_lookup(s, ev));
		return;
	}
	/* not in the specification: a protocol error, always logged */
	ck_assert_msg(rc == -1, "%s/%s unexpectedly accepted",
		      conn_state_names[s], conn_event_names[ev]);
	ck_assert_ptr_null(conn_fsm_lookup(s, ev));
	ck_assert_int_ge(n_logs, 1);
	if (conn_state_final(s)) {
		ck_assert_int_eq(n_calls, 0);
		ck_assert_int_eq(f.state, s);
	} else {
		ck_assert_int_eq(n_calls, 1);
		ck_assert_int_eq(calls[0], s == CONN_S_NONE ? CONN_A_CLOSE
							    : CONN_A_ERROR);
		ck_assert_int_eq(f.state, CONN_S_CLOSED);
	}
}
END_TEST

/* A failing action closes through the error action. */
START_TEST(test_failed_action)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		struct conn_fsm f = { spec[i].s, 2, NULL };

		n_calls = 0;
		fail_action = spec[i].a;
		ck_assert_int_eq(conn_fsm(&f, spec[i].ev, &ops), -1);
		ck_assert_int_eq(f.state, CONN_S_CLOSED);
		ck_assert_int_eq(calls[0], spec[i].a);
		if (spec[i].a == CONN_A_ERROR || spec[i].a == CONN_A_CLOSE) {
			ck_assert_int_eq(n_calls, 1);
		} else {
			ck_assert_int_eq(n_calls, 2);
			ck_assert_int_eq(calls[1], CONN_A_ERROR);
		}
	}
	fail_action = CONN_A_MAX;
}
END_TEST

/* Whole paths through the machine. */
START_TEST(test_paths)
{
	static const struct {
		enum conn_event evs[6];
		size_t n;
		enum conn_state end;
	} paths[] = {
		/* v1 or client-server responder */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ULP_ACCEPT,
		    CONN_EV_HANDOFF_DONE }, 4, CONN_S_DONE },
		/* p2p responder, Write RTR */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST,
		    CONN_EV_ULP_ACCEPT_RTR, CONN_EV_RTR,
		    CONN_EV_HANDOFF_DONE }, 5, CONN_S_DONE },
		/* p2p responder, Read RTR answered */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST,
		    CONN_EV_ULP_ACCEPT_RTR, CONN_EV_RTR_READ,
		    CONN_EV_HANDOFF_DONE }, 5, CONN_S_DONE },
		/* p2p initiator, Read RTR */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_REPLY_RTR_READ, CONN_EV_READ_RESP,
		    CONN_EV_HANDOFF_DONE }, 5, CONN_S_DONE },
		/* RFC 6581 §10 fallback to v1 */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_RETRY_V1, CONN_EV_TCP_CONNECTED, CONN_EV_REPLY,
		    CONN_EV_HANDOFF_DONE }, 6, CONN_S_DONE },
		/* RTR never comes */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST,
		    CONN_EV_ULP_ACCEPT_RTR, CONN_EV_TIMEOUT }, 4,
		  CONN_S_CLOSED },
		/* initiator cannot use the responder's RTR types: TERM 7 */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_TERM }, 3, CONN_S_CLOSED },
		/* Initiator/Initiator: a Request where a Reply belongs */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_BAD }, 3, CONN_S_CLOSED },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		struct conn_fsm f = { CONN_S_NONE, 3, NULL };

		for (j = 0; j < paths[i].n; j++) {
			n_calls = 0;
			ck_assert_int_eq(conn_fsm(&f, paths[i].evs[j], &ops),
					 0);
		}
		ck_assert_int_eq(f.state, paths[i].end);
	}
}
END_TEST

START_TEST(test_names_complete)
{
	int i;

	for (i = 0; i < CONN_S_MAX; i++)
		ck_assert_ptr_nonnull(conn_state_names[i]);
	for (i = 0; i < CONN_EV_MAX; i++)
		ck_assert_ptr_nonnull(conn_event_names[i]);
	for (i = 0; i < CONN_A_MAX; i++)
		ck_assert_ptr_nonnull(conn_action_names[i]);
}
END_TEST

static Suite *conn_fsm_suite(void)
{
	Suite *s = suite_create("conn_fsm");

	add_loop_tcase(s, "every_pair", test_every_pair,
		       CONN_S_MAX * CONN_EV_MAX);
	add_tcase(s, "failed_action", test_failed_action);
	add_tcase(s, "paths", test_paths);
	add_tcase(s, "names", test_names_complete);
	return s;
}

TEST_MAIN(conn_fsm_suite)
