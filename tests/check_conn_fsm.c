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
	enum conn_guard g; /* taken when g holds (CONN_G_NONE: always) */
	enum conn_action a;
	enum conn_state next;
};

#define E(s, ev, a, n)                                                        \
	{                                                                     \
		CONN_S_##s, CONN_EV_##ev, CONN_G_NONE, CONN_A_##a, CONN_S_##n \
	}
/* Guarded: within a pair, listed in the order they are asked. */
#define EG(s, ev, g, a, n)                                                   \
	{                                                                    \
		CONN_S_##s, CONN_EV_##ev, CONN_G_##g, CONN_A_##a, CONN_S_##n \
	}

static const struct expect spec[] = {
	E(NONE, START_CONNECT, CONNECT, CONNECTING),
	E(NONE, START_ACCEPT, WAIT_REQUEST, WAIT_REQUEST),

	E(CONNECTING, TCP_CONNECTED, SEND_REQUEST, WAIT_REPLY),
	E(CONNECTING, TCP_FAILED, UNREACHABLE, CLOSED),
	E(CONNECTING, TIMEOUT, UNREACHABLE, CLOSED),
	E(CONNECTING, ULP_GONE, CLOSE, CLOSED),
	E(CONNECTING, ABORT, ERROR, CLOSED),

	/* the listener closed while the Request came: R=1 */
	EG(WAIT_REQUEST, REQUEST, NO_LISTENER, REJECT, CLOSED),
	/* its pending_max reached: R=1 */
	EG(WAIT_REQUEST, REQUEST, BACKLOG_FULL, REJECT_BACKLOG, CLOSED),
	E(WAIT_REQUEST, REQUEST, WAIT_ULP, WAIT_ROUTE),
	E(WAIT_REQUEST, TERM, TERM, CLOSED),
	E(WAIT_REQUEST, BAD, CLOSE, CLOSED),
	E(WAIT_REQUEST, TIMEOUT, CLOSE, CLOSED),
	E(WAIT_REQUEST, PEER_CLOSED, CLOSE, CLOSED),
	E(WAIT_REQUEST, ULP_GONE, CLOSE, CLOSED),
	E(WAIT_REQUEST, ABORT, ERROR, CLOSED),

	/* no client attached: keep waiting (under the ULP timer) */
	EG(WAIT_ROUTE, ROUTE, NO_CLIENT, NONE, WAIT_ROUTE),
	/* the client's uid has max_pending_per_uid requests: R=1 */
	EG(WAIT_ROUTE, ROUTE, UID_LIMIT, REJECT_UID, CLOSED),
	E(WAIT_ROUTE, ROUTE, NOTIFY_REQUEST, WAIT_ULP),
	E(WAIT_ROUTE, TIMEOUT, REJECT, CLOSED),
	E(WAIT_ROUTE, ULP_GONE, REJECT, CLOSED),
	E(WAIT_ROUTE, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_ROUTE, BAD, ERROR, CLOSED),
	E(WAIT_ROUTE, ABORT, ERROR, CLOSED),

	/* a second route attempt already queued changes nothing */
	E(WAIT_ULP, ROUTE, NONE, WAIT_ULP),
	/* the CONNECT_REQUEST could not be sent: wait for another */
	E(WAIT_ULP, ROUTE_FAILED, NONE, WAIT_ROUTE),
	E(WAIT_ULP, DECIDE_ACCEPT, DECIDE, DECIDED),
	E(WAIT_ULP, DECIDE_REJECT, DECIDE, DECIDED),
	E(WAIT_ULP, TIMEOUT, REJECT, CLOSED),
	E(WAIT_ULP, ULP_GONE, REJECT, CLOSED),
	E(WAIT_ULP, PEER_CLOSED, ERROR, CLOSED),
	E(WAIT_ULP, BAD, ERROR, CLOSED),
	E(WAIT_ULP, ABORT, ERROR, CLOSED),

	E(DECIDED, ROUTE, NONE, DECIDED),
	E(DECIDED, ULP_ACCEPT, REPLY_HANDOFF, HANDOFF),
	E(DECIDED, ULP_ACCEPT_RTR, REPLY_WAIT_RTR, WAIT_RTR),
	E(DECIDED, ULP_REJECT, REJECT, CLOSED),
	E(DECIDED, ULP_GONE, REJECT, CLOSED),
	E(DECIDED, PEER_CLOSED, ERROR, CLOSED),
	E(DECIDED, BAD, ERROR, CLOSED),
	E(DECIDED, ABORT, ERROR, CLOSED),

	/* first_fpdu_delay_ms: the first FPDU waits in HOLD */
	EG(WAIT_REPLY, REPLY, HOLD, HOLD, HOLD),
	E(WAIT_REPLY, REPLY, HANDOFF, HANDOFF),
	EG(WAIT_REPLY, REPLY_RTR, HOLD, HOLD, HOLD),
	E(WAIT_REPLY, REPLY_RTR, RTR_HANDOFF, HANDOFF),
	EG(WAIT_REPLY, REPLY_RTR_READ, HOLD, HOLD, HOLD),
	EG(WAIT_REPLY, REPLY_RTR_READ, RTR_READ, RTR_READ, WAIT_READ_RESP),
	E(WAIT_REPLY, REPLY_RTR_READ, RTR_HANDOFF, HANDOFF),
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

	/* the hold is over: what the Reply decided, now */
	EG(HOLD, TIMEOUT, RTR_READ, RTR_READ, WAIT_READ_RESP),
	EG(HOLD, TIMEOUT, RTR, RTR_HANDOFF, HANDOFF),
	E(HOLD, TIMEOUT, HANDOFF, HANDOFF),
	E(HOLD, PEER_CLOSED, ERROR, CLOSED),
	E(HOLD, BAD, ERROR, CLOSED),
	E(HOLD, ULP_GONE, CLOSE, CLOSED),
	E(HOLD, ABORT, ERROR, CLOSED),

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

#define MOCK(name)                                            \
	static int mock_##name(void *arg, enum conn_event ev) \
	{                                                     \
		(void)arg;                                    \
		(void)ev;                                     \
		return mock_action(CONN_A_##name);            \
	}
MOCK(CONNECT)
MOCK(WAIT_REQUEST)
MOCK(SEND_REQUEST)
MOCK(WAIT_ULP)
MOCK(NOTIFY_REQUEST)
MOCK(DECIDE)
MOCK(REJECT_BACKLOG)
MOCK(REJECT_UID)
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
MOCK(HOLD)

/* Mock guards: guard g holds when bit g of guards is set. */
static unsigned int guards;
static unsigned int n_guard_calls;

#define GUARD(name)                                   \
	static bool guard_##name(void *arg)           \
	{                                             \
		(void)arg;                            \
		n_guard_calls++;                      \
		return (guards >> CONN_G_##name) & 1; \
	}
GUARD(NO_LISTENER)
GUARD(BACKLOG_FULL)
GUARD(NO_CLIENT)
GUARD(UID_LIMIT)
GUARD(HOLD)
GUARD(RTR_READ)
GUARD(RTR)

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
		[CONN_A_WAIT_ULP] = mock_WAIT_ULP,
		[CONN_A_NOTIFY_REQUEST] = mock_NOTIFY_REQUEST,
		[CONN_A_DECIDE] = mock_DECIDE,
		[CONN_A_REJECT_BACKLOG] = mock_REJECT_BACKLOG,
		[CONN_A_REJECT_UID] = mock_REJECT_UID,
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
		[CONN_A_HOLD] = mock_HOLD,
	},
	.guard = {
		[CONN_G_NO_LISTENER] = guard_NO_LISTENER,
		[CONN_G_BACKLOG_FULL] = guard_BACKLOG_FULL,
		[CONN_G_NO_CLIENT] = guard_NO_CLIENT,
		[CONN_G_UID_LIMIT] = guard_UID_LIMIT,
		[CONN_G_HOLD] = guard_HOLD,
		[CONN_G_RTR_READ] = guard_RTR_READ,
		[CONN_G_RTR] = guard_RTR,
	},
	.log = mock_log,
};

/* The expected row for (s, ev) when the guards in g hold; NULL if none. */
static const struct expect *spec_find(enum conn_state s, enum conn_event ev,
				      unsigned int g)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev &&
		    (spec[i].g == CONN_G_NONE || ((g >> spec[i].g) & 1)))
			return &spec[i];
	return NULL;
}

/*
 * Loop index = state * CONN_EV_MAX + event: every pair, each under every
 * combination of the guards' answers.
 */
START_TEST(test_every_pair)
{
	enum conn_state s = (enum conn_state)(_i / CONN_EV_MAX);
	enum conn_event ev = (enum conn_event)(_i % CONN_EV_MAX);
	unsigned int g;

	for (g = 0; g < (1u << CONN_G_MAX); g += 2) { /* bit 0: NONE */
		const struct expect *e = spec_find(s, ev, g);
		struct conn_fsm f = { s, 1, NULL };
		const struct conn_fsm_row *row;
		int rc;

		n_calls = 0;
		n_logs = 0;
		guards = g;
		fail_action = CONN_A_MAX;
		row = conn_fsm_match(s, ev, &ops, NULL);
		rc = conn_fsm(&f, ev, &ops);
		if (e) {
			ck_assert_msg(rc == 0, "%s/%s", conn_state_names[s],
				      conn_event_names[ev]);
			ck_assert_ptr_nonnull(row);
			ck_assert_int_eq(row->guard, e->g);
			/* CONN_A_NONE calls nothing */
			ck_assert_int_eq(n_calls, e->a != CONN_A_NONE);
			ck_assert_msg(e->a == CONN_A_NONE || calls[0] == e->a,
				      "%s/%s/0x%x: action %s, want %s",
				      conn_state_names[s], conn_event_names[ev],
				      g, conn_action_names[calls[0]],
				      conn_action_names[e->a]);
			ck_assert_msg(f.state == e->next,
				      "%s/%s/0x%x: -> %s, want %s",
				      conn_state_names[s], conn_event_names[ev],
				      g, conn_state_names[f.state],
				      conn_state_names[e->next]);
			ck_assert_ptr_nonnull(conn_fsm_lookup(s, ev));
			continue;
		}
		/* not in the specification: a protocol error, logged */
		ck_assert_msg(rc == -1, "%s/%s unexpectedly accepted",
			      conn_state_names[s], conn_event_names[ev]);
		ck_assert_ptr_null(row);
		ck_assert_ptr_null(conn_fsm_lookup(s, ev));
		ck_assert_int_ge(n_logs, 1);
		if (conn_state_final(s)) {
			ck_assert_int_eq(n_calls, 0);
			ck_assert_int_eq(f.state, s);
		} else {
			ck_assert_int_eq(n_calls, 1);
			ck_assert_int_eq(calls[0], s == CONN_S_NONE ?
							   CONN_A_CLOSE :
							   CONN_A_ERROR);
			ck_assert_int_eq(f.state, CONN_S_CLOSED);
		}
	}
}
END_TEST

/* A guard is asked only for its own pair: events without guarded rows
 * never ask one (guards may look at the daemon, never act). */
START_TEST(test_guards_asked)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		struct conn_fsm f = { spec[i].s, 4, NULL };
		bool guarded = false;
		size_t j;

		for (j = 0; j < ARRAY_SIZE(spec); j++)
			if (spec[j].s == spec[i].s &&
			    spec[j].ev == spec[i].ev &&
			    spec[j].g != CONN_G_NONE)
				guarded = true;
		n_calls = 0;
		n_guard_calls = 0;
		guards = 0;
		conn_fsm(&f, spec[i].ev, &ops);
		if (!guarded)
			ck_assert_uint_eq(n_guard_calls, 0);
	}
}
END_TEST

/* A failing action closes through the error action. */
START_TEST(test_failed_action)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		struct conn_fsm f = { spec[i].s, 2, NULL };

		if (spec[i].a == CONN_A_NONE)
			continue; /* nothing that could fail */
		n_calls = 0;
		/* exactly this row's guard holds: the row is taken */
		guards = spec[i].g == CONN_G_NONE ? 0 : 1u << spec[i].g;
		if (spec_find(spec[i].s, spec[i].ev, guards) != &spec[i])
			continue; /* an earlier row of the pair wins */
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
		enum conn_event evs[8];
		size_t n;
		enum conn_state end;
	} paths[] = {
		/* v1 or client-server responder */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ROUTE,
		    CONN_EV_DECIDE_ACCEPT, CONN_EV_ULP_ACCEPT,
		    CONN_EV_HANDOFF_DONE },
		  6,
		  CONN_S_DONE },
		/* p2p responder, Write RTR */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ROUTE,
		    CONN_EV_DECIDE_ACCEPT, CONN_EV_ULP_ACCEPT_RTR, CONN_EV_RTR,
		    CONN_EV_HANDOFF_DONE },
		  7,
		  CONN_S_DONE },
		/* p2p responder, Read RTR answered */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ROUTE,
		    CONN_EV_DECIDE_ACCEPT, CONN_EV_ULP_ACCEPT_RTR,
		    CONN_EV_RTR_READ, CONN_EV_HANDOFF_DONE },
		  7,
		  CONN_S_DONE },
		/* the first client went away: routed again, rejected */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ROUTE,
		    CONN_EV_ROUTE_FAILED, CONN_EV_ROUTE, CONN_EV_ROUTE,
		    CONN_EV_DECIDE_REJECT, CONN_EV_ULP_REJECT },
		  8,
		  CONN_S_CLOSED },
		/* p2p initiator, Read RTR: the client's QP takes the
		 * Response (iwcmd awaiting it is a guarded row) */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_REPLY_RTR_READ, CONN_EV_HANDOFF_DONE },
		  4,
		  CONN_S_DONE },
		/* RFC 6581 §10 fallback to v1 */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_RETRY_V1, CONN_EV_TCP_CONNECTED, CONN_EV_REPLY,
		    CONN_EV_HANDOFF_DONE },
		  6,
		  CONN_S_DONE },
		/* RTR never comes */
		{ { CONN_EV_START_ACCEPT, CONN_EV_REQUEST, CONN_EV_ROUTE,
		    CONN_EV_DECIDE_ACCEPT, CONN_EV_ULP_ACCEPT_RTR,
		    CONN_EV_TIMEOUT },
		  6,
		  CONN_S_CLOSED },
		/* initiator cannot use the responder's RTR types: TERM 7 */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED,
		    CONN_EV_TERM },
		  3,
		  CONN_S_CLOSED },
		/* Initiator/Initiator: a Request where a Reply belongs */
		{ { CONN_EV_START_CONNECT, CONN_EV_TCP_CONNECTED, CONN_EV_BAD },
		  3,
		  CONN_S_CLOSED },
	};
	size_t i, j;

	guards = 0;
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
	for (i = 0; i < CONN_G_MAX; i++)
		ck_assert_ptr_nonnull(conn_guard_names[i]);
}
END_TEST

static Suite *conn_fsm_suite(void)
{
	Suite *s = suite_create("conn_fsm");

	add_loop_tcase(s, "every_pair", test_every_pair,
		       CONN_S_MAX * CONN_EV_MAX);
	add_tcase(s, "guards_asked", test_guards_asked);
	add_tcase(s, "failed_action", test_failed_action);
	add_tcase(s, "paths", test_paths);
	add_tcase(s, "names", test_names_complete);
	return s;
}

TEST_MAIN(conn_fsm_suite)
