/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The queue pair FSM (libclient/qp_fsm.c), every state x event pair: the
 * expected transitions are written out here as the specification (RFC
 * 5040 §5.4, §6.2, §7.1; RFC 5044 §8), independently of the table; every
 * pair not listed must be an internal error that fails a live QP with
 * the fail action and leaves a QP in error alone.
 */
#include <errno.h>

#include "common.h"

#include <iwcm/verbs.h>

#include "qp_fsm.h"

struct expect {
	enum qp_state s;
	enum qp_event ev;
	enum qp_action a;
	enum qp_state next;
};

#define E(s, ev, a, n)                                   \
	{                                                \
		QP_S_##s, QP_EV_##ev, QP_A_##a, QP_S_##n \
	}

static const struct expect spec[] = {
	E(RTS, POST_SEND, NONE, RTS),
	E(RTS, POST_RECV, NONE, RTS),
	E(RTS, DISCONNECT, CLOSE_BEGIN, CLOSING),
	E(RTS, PEER_EOF, PEER_CLOSED, CLOSED),
	E(RTS, RESET, PEER_CLOSED, CLOSED),
	E(RTS, TERM_RCVD, TERM_RCVD, ERROR),
	E(RTS, LOCAL_ERR, TERMINATE, TERMINATE),
	E(RTS, LOCAL_FAIL, FAIL, ERROR),
	/* connected and destroyed: an abortive close (RST) */
	E(RTS, DESTROY, RELEASE_RST, DESTROYED),
	E(RTS, CTX_CLOSE, RELEASE_RST, DESTROYED),

	/* new sends are refused, receives still taken */
	E(CLOSING, POST_SEND, REFUSE, CLOSING),
	E(CLOSING, POST_RECV, NONE, CLOSING),
	E(CLOSING, DISCONNECT, NONE, CLOSING),
	E(CLOSING, TX_DRAINED, FIN, FIN_WAIT),
	E(CLOSING, PEER_EOF, PEER_CLOSED, CLOSED),
	E(CLOSING, RESET, PEER_CLOSED, CLOSED),
	E(CLOSING, TERM_RCVD, TERM_RCVD, ERROR),
	E(CLOSING, LOCAL_ERR, TERMINATE, TERMINATE),
	E(CLOSING, LOCAL_FAIL, FAIL, ERROR),
	E(CLOSING, TIMER, TIMEOUT, CLOSED),
	E(CLOSING, DESTROY, RELEASE, DESTROYED),
	E(CLOSING, CTX_CLOSE, RELEASE, DESTROYED),

	E(FIN_WAIT, POST_SEND, REFUSE, FIN_WAIT),
	E(FIN_WAIT, POST_RECV, NONE, FIN_WAIT),
	E(FIN_WAIT, DISCONNECT, NONE, FIN_WAIT),
	E(FIN_WAIT, PEER_EOF, PEER_CLOSED, CLOSED),
	E(FIN_WAIT, RESET, PEER_CLOSED, CLOSED),
	E(FIN_WAIT, TERM_RCVD, TERM_RCVD, ERROR),
	/* no Terminate after our FIN */
	E(FIN_WAIT, LOCAL_ERR, FAIL, ERROR),
	E(FIN_WAIT, LOCAL_FAIL, FAIL, ERROR),
	E(FIN_WAIT, TIMER, TIMEOUT, CLOSED),
	E(FIN_WAIT, DESTROY, RELEASE, DESTROYED),
	E(FIN_WAIT, CTX_CLOSE, RELEASE, DESTROYED),

	/* our Terminate on its way: the FIN only after it */
	E(TERMINATE, POST_SEND, FLUSH_WR, TERMINATE),
	E(TERMINATE, POST_RECV, FLUSH_WR, TERMINATE),
	E(TERMINATE, DISCONNECT, NONE, TERMINATE),
	E(TERMINATE, TX_DRAINED, FIN, ERROR),
	E(TERMINATE, RESET, DROP, CLOSED),
	E(TERMINATE, LOCAL_ERR, NONE, TERMINATE),
	E(TERMINATE, LOCAL_FAIL, NONE, TERMINATE),
	E(TERMINATE, TIMER, RST, CLOSED),
	E(TERMINATE, DESTROY, RELEASE_RST, DESTROYED),
	E(TERMINATE, CTX_CLOSE, RELEASE_RST, DESTROYED),

	E(ERROR, POST_SEND, FLUSH_WR, ERROR),
	E(ERROR, POST_RECV, FLUSH_WR, ERROR),
	E(ERROR, DISCONNECT, NONE, ERROR),
	E(ERROR, PEER_EOF, NONE, CLOSED),
	E(ERROR, RESET, NONE, CLOSED),
	E(ERROR, TERM_RCVD, NONE, ERROR),
	E(ERROR, LOCAL_ERR, NONE, ERROR),
	E(ERROR, LOCAL_FAIL, NONE, ERROR),
	E(ERROR, TIMER, NONE, ERROR),
	E(ERROR, DESTROY, RELEASE, DESTROYED),
	E(ERROR, CTX_CLOSE, RELEASE, DESTROYED),

	E(CLOSED, POST_SEND, FLUSH_WR, CLOSED),
	E(CLOSED, POST_RECV, FLUSH_WR, CLOSED),
	E(CLOSED, DISCONNECT, NONE, CLOSED),
	E(CLOSED, TERM_RCVD, NONE, CLOSED),
	E(CLOSED, LOCAL_ERR, NONE, CLOSED),
	E(CLOSED, LOCAL_FAIL, NONE, CLOSED),
	E(CLOSED, TIMER, NONE, CLOSED),
	E(CLOSED, DESTROY, RELEASE, DESTROYED),
	E(CLOSED, CTX_CLOSE, RELEASE, DESTROYED),
};

/* Mock actions: record the calls, fail on demand. */
static enum qp_action calls[4];
static int n_calls;
static enum qp_action fail_action = QP_A_MAX;

static int mock_action(enum qp_action a)
{
	ck_assert_int_lt(n_calls, 4);
	calls[n_calls++] = a;
	if (a == fail_action) {
		errno = ENOTCONN;
		return -1;
	}
	return a == QP_A_FLUSH_WR ? 1 : 0;
}

#define MOCK(name)                                                         \
	static int mock_##name(void *arg, enum qp_event ev, const void *d) \
	{                                                                  \
		(void)arg;                                                 \
		(void)ev;                                                  \
		(void)d;                                                   \
		return mock_action(QP_A_##name);                           \
	}
MOCK(REFUSE)
MOCK(FLUSH_WR)
MOCK(CLOSE_BEGIN)
MOCK(FIN)
MOCK(TERMINATE)
MOCK(FAIL)
MOCK(TERM_RCVD)
MOCK(PEER_CLOSED)
MOCK(DROP)
MOCK(TIMEOUT)
MOCK(RST)
MOCK(RELEASE)
MOCK(RELEASE_RST)

static const struct qp_fsm_ops ops = {
	.action = {
		[QP_A_REFUSE] = mock_REFUSE,
		[QP_A_FLUSH_WR] = mock_FLUSH_WR,
		[QP_A_CLOSE_BEGIN] = mock_CLOSE_BEGIN,
		[QP_A_FIN] = mock_FIN,
		[QP_A_TERMINATE] = mock_TERMINATE,
		[QP_A_FAIL] = mock_FAIL,
		[QP_A_TERM_RCVD] = mock_TERM_RCVD,
		[QP_A_PEER_CLOSED] = mock_PEER_CLOSED,
		[QP_A_DROP] = mock_DROP,
		[QP_A_TIMEOUT] = mock_TIMEOUT,
		[QP_A_RST] = mock_RST,
		[QP_A_RELEASE] = mock_RELEASE,
		[QP_A_RELEASE_RST] = mock_RELEASE_RST,
	},
};

static const struct expect *spec_find(enum qp_state s, enum qp_event ev)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++)
		if (spec[i].s == s && spec[i].ev == ev)
			return &spec[i];
	return NULL;
}

/* The QP is connected or closing gracefully: not yet in error. */
static bool live(enum qp_state s)
{
	return s == QP_S_RTS || s == QP_S_CLOSING || s == QP_S_FIN_WAIT;
}

/* Loop index = state * QP_EV_MAX + event: every pair. */
START_TEST(test_every_pair)
{
	enum qp_state s = (enum qp_state)(_i / QP_EV_MAX);
	enum qp_event ev = (enum qp_event)(_i % QP_EV_MAX);
	const struct expect *e = spec_find(s, ev);
	enum qp_state st = s;
	int rc;

	n_calls = 0;
	fail_action = QP_A_MAX;
	errno = 0;
	rc = qp_fsm(&st, ev, &ops, NULL, NULL);
	if (e) {
		ck_assert_msg(rc == (e->a == QP_A_FLUSH_WR ? 1 : 0), "%s/%s",
			      qp_state_names[s], qp_event_names[ev]);
		if (e->a == QP_A_NONE) {
			ck_assert_int_eq(n_calls, 0);
		} else {
			ck_assert_int_eq(n_calls, 1);
			ck_assert_msg(calls[0] == e->a,
				      "%s/%s: action %s, want %s",
				      qp_state_names[s], qp_event_names[ev],
				      qp_action_names[calls[0]],
				      qp_action_names[e->a]);
		}
		ck_assert_msg(st == e->next, "%s/%s: -> %s, want %s",
			      qp_state_names[s], qp_event_names[ev],
			      qp_state_names[st], qp_state_names[e->next]);
		ck_assert_ptr_nonnull(qp_fsm_lookup(s, ev));
		return;
	}
	/* not in the specification: an internal error, never ignored */
	ck_assert_msg(rc == -1, "%s/%s unexpectedly accepted",
		      qp_state_names[s], qp_event_names[ev]);
	ck_assert_int_eq(errno, EPROTO);
	ck_assert_ptr_null(qp_fsm_lookup(s, ev));
	if (live(s)) {
		ck_assert_int_eq(n_calls, 1);
		ck_assert_int_eq(calls[0], QP_A_FAIL);
		ck_assert_int_eq(st, QP_S_ERROR);
	} else {
		ck_assert_int_eq(n_calls, 0);
		ck_assert_int_eq(st, s);
	}
}
END_TEST

/* A failing action (a refused post) leaves the state as it was. */
START_TEST(test_failed_action)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(spec); i++) {
		enum qp_state st = spec[i].s;

		if (spec[i].a == QP_A_NONE)
			continue;
		n_calls = 0;
		fail_action = spec[i].a;
		errno = 0;
		ck_assert_int_eq(qp_fsm(&st, spec[i].ev, &ops, NULL, NULL), -1);
		ck_assert_int_eq(errno, ENOTCONN);
		ck_assert_int_eq(st, spec[i].s);
		ck_assert_int_eq(n_calls, 1);
	}
	fail_action = QP_A_MAX;
}
END_TEST

/* Whole paths through the machine. */
START_TEST(test_paths)
{
	static const struct {
		enum qp_event evs[6];
		size_t n;
		enum qp_state end;
		enum qp_action a[6]; /* what each event ran */
	} paths[] = {
		/* graceful close: drain, FIN, the peer's FIN */
		{ { QP_EV_DISCONNECT, QP_EV_TX_DRAINED, QP_EV_PEER_EOF,
		    QP_EV_DESTROY },
		  4,
		  QP_S_DESTROYED,
		  { QP_A_CLOSE_BEGIN, QP_A_FIN, QP_A_PEER_CLOSED,
		    QP_A_RELEASE } },
		/* RFC 5040 §5.4: Terminate written, then the FIN, then the
		 * peer's FIN */
		{ { QP_EV_LOCAL_ERR, QP_EV_TX_DRAINED, QP_EV_PEER_EOF,
		    QP_EV_DESTROY },
		  4,
		  QP_S_DESTROYED,
		  { QP_A_TERMINATE, QP_A_FIN, QP_A_NONE, QP_A_RELEASE } },
		/* a Terminate the peer never reads: reset at the deadline */
		{ { QP_EV_LOCAL_ERR, QP_EV_DISCONNECT, QP_EV_TIMER,
		    QP_EV_DESTROY },
		  4,
		  QP_S_DESTROYED,
		  { QP_A_TERMINATE, QP_A_NONE, QP_A_RST, QP_A_RELEASE } },
		/* an error while closing still sends its Terminate */
		{ { QP_EV_DISCONNECT, QP_EV_LOCAL_ERR, QP_EV_TX_DRAINED },
		  3,
		  QP_S_ERROR,
		  { QP_A_CLOSE_BEGIN, QP_A_TERMINATE, QP_A_FIN } },
		/* the peer's Terminate, then its FIN */
		{ { QP_EV_TERM_RCVD, QP_EV_PEER_EOF, QP_EV_LOCAL_ERR },
		  3,
		  QP_S_CLOSED,
		  { QP_A_TERM_RCVD, QP_A_NONE, QP_A_NONE } },
		/* the close times out */
		{ { QP_EV_DISCONNECT, QP_EV_TIMER, QP_EV_CTX_CLOSE },
		  3,
		  QP_S_DESTROYED,
		  { QP_A_CLOSE_BEGIN, QP_A_TIMEOUT, QP_A_RELEASE } },
	};
	size_t i, j;

	for (i = 0; i < ARRAY_SIZE(paths); i++) {
		enum qp_state st = QP_S_RTS;

		for (j = 0; j < paths[i].n; j++) {
			n_calls = 0;
			ck_assert_int_ge(qp_fsm(&st, paths[i].evs[j], &ops,
						NULL, NULL),
					 0);
			if (paths[i].a[j] == QP_A_NONE) {
				ck_assert_int_eq(n_calls, 0);
			} else {
				ck_assert_int_eq(n_calls, 1);
				ck_assert_int_eq(calls[0], paths[i].a[j]);
			}
		}
		ck_assert_int_eq(st, paths[i].end);
	}
}
END_TEST

/* What iwcm_query_qp() reports of each state. */
START_TEST(test_public)
{
	static const int want[QP_S_MAX] = {
		[QP_S_RTS] = IWCM_QPS_RTS,
		[QP_S_CLOSING] = IWCM_QPS_CLOSING,
		[QP_S_FIN_WAIT] = IWCM_QPS_CLOSING,
		[QP_S_TERMINATE] = IWCM_QPS_ERROR,
		[QP_S_ERROR] = IWCM_QPS_ERROR,
		[QP_S_CLOSED] = IWCM_QPS_ERROR,
		[QP_S_DESTROYED] = IWCM_QPS_ERROR,
	};

	for (int s = 0; s < QP_S_MAX; s++) {
		ck_assert_int_eq(qp_state_public((enum qp_state)s), want[s]);
		ck_assert(qp_state_error((enum qp_state)s) ==
			  (want[s] == IWCM_QPS_ERROR));
	}
}
END_TEST

START_TEST(test_names_complete)
{
	int i;

	for (i = 0; i < QP_S_MAX; i++)
		ck_assert_ptr_nonnull(qp_state_names[i]);
	for (i = 0; i < QP_EV_MAX; i++)
		ck_assert_ptr_nonnull(qp_event_names[i]);
	for (i = 0; i < QP_A_MAX; i++)
		ck_assert_ptr_nonnull(qp_action_names[i]);
	ck_assert_ptr_null(qp_fsm_lookup(QP_S_MAX, QP_EV_POST_SEND));
	ck_assert_ptr_null(qp_fsm_lookup(QP_S_RTS, QP_EV_MAX));
}
END_TEST

static Suite *qp_fsm_suite(void)
{
	Suite *s = suite_create("qp_fsm");

	add_loop_tcase(s, "every_pair", test_every_pair, QP_S_MAX * QP_EV_MAX);
	add_tcase(s, "failed_action", test_failed_action);
	add_tcase(s, "paths", test_paths);
	add_tcase(s, "public", test_public);
	add_tcase(s, "names", test_names_complete);
	return s;
}

TEST_MAIN(qp_fsm_suite)
