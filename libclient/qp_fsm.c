/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The queue pair's transition table (qp_fsm.h).  No I/O here: the
 * actions are qp.c's.
 */
#include "config.h"

#include <errno.h>

#include <iwcm/verbs.h>

#include "qp_fsm.h"

#define S(x) (1u << QP_S_##x)
/* connected or closing gracefully: not yet in error */
#define S_LIVE (S(RTS) | S(CLOSING) | S(FIN_WAIT))
/* in error, the socket still ours */
#define S_ERR (S(TERMINATE) | S(ERROR) | S(CLOSED))

const char *const qp_state_names[QP_S_MAX] = {
	[QP_S_RTS] = "RTS",
	[QP_S_CLOSING] = "CLOSING",
	[QP_S_FIN_WAIT] = "FIN_WAIT",
	[QP_S_TERMINATE] = "TERMINATE",
	[QP_S_ERROR] = "ERROR",
	[QP_S_CLOSED] = "CLOSED",
	[QP_S_DESTROYED] = "DESTROYED",
};

/* clang-format off */
const char *const qp_event_names[QP_EV_MAX] = {
	[QP_EV_POST_SEND] = "POST_SEND",
	[QP_EV_POST_RECV] = "POST_RECV",
	[QP_EV_DISCONNECT] = "DISCONNECT",
	[QP_EV_TX_DRAINED] = "TX_DRAINED",
	[QP_EV_PEER_EOF] = "PEER_EOF",
	[QP_EV_RESET] = "RESET",
	[QP_EV_TERM_RCVD] = "TERM_RCVD",
	[QP_EV_LOCAL_ERR] = "LOCAL_ERR",
	[QP_EV_LOCAL_FAIL] = "LOCAL_FAIL",
	[QP_EV_TIMER] = "TIMER",
	[QP_EV_DESTROY] = "DESTROY",
	[QP_EV_CTX_CLOSE] = "CTX_CLOSE",
};
/* clang-format on */

const char *const qp_action_names[QP_A_MAX] = {
	[QP_A_NONE] = "none",
	[QP_A_REFUSE] = "refuse",
	[QP_A_FLUSH_WR] = "flush_wr",
	[QP_A_CLOSE_BEGIN] = "close_begin",
	[QP_A_FIN] = "fin",
	[QP_A_TERMINATE] = "terminate",
	[QP_A_FAIL] = "fail",
	[QP_A_TERM_RCVD] = "term_rcvd",
	[QP_A_PEER_CLOSED] = "peer_closed",
	[QP_A_DROP] = "drop",
	[QP_A_TIMEOUT] = "timeout",
	[QP_A_RST] = "rst",
	[QP_A_RELEASE] = "release",
	[QP_A_RELEASE_RST] = "release_rst",
};

/*
 * First matching row wins.  RFC 5040 §5.4, §6.2 and §7.1 and RFC 5044 §8
 * decide the paths; the comments name the rule.
 */
static const struct qp_fsm_row qp_fsm_tab[] = {
	/* posting (libibverbs: a QP in error flushes at once) */
	{ S(RTS), QP_EV_POST_SEND, QP_A_NONE, QP_S_RTS },
	{ S(CLOSING) | S(FIN_WAIT), QP_EV_POST_SEND, QP_A_REFUSE, QP_S_MAX },
	{ S_LIVE, QP_EV_POST_RECV, QP_A_NONE, QP_S_MAX },
	{ S_ERR, QP_EV_POST_SEND, QP_A_FLUSH_WR, QP_S_MAX },
	{ S_ERR, QP_EV_POST_RECV, QP_A_FLUSH_WR, QP_S_MAX },

	/* graceful close: drain, FIN, the peer's FIN (RFC 5040 §6.2) */
	{ S(RTS), QP_EV_DISCONNECT, QP_A_CLOSE_BEGIN, QP_S_CLOSING },
	{ S(CLOSING) | S(FIN_WAIT) | S_ERR, QP_EV_DISCONNECT, QP_A_NONE,
	  QP_S_MAX },
	{ S(CLOSING), QP_EV_TX_DRAINED, QP_A_FIN, QP_S_FIN_WAIT },

	/* RFC 5040 §5.4: the Terminate is the last message, the FIN
	 * follows it */
	{ S(TERMINATE), QP_EV_TX_DRAINED, QP_A_FIN, QP_S_ERROR },

	/* the peer closes, resets or terminates */
	{ S_LIVE, QP_EV_PEER_EOF, QP_A_PEER_CLOSED, QP_S_CLOSED },
	{ S_LIVE, QP_EV_RESET, QP_A_PEER_CLOSED, QP_S_CLOSED },
	{ S(TERMINATE), QP_EV_RESET, QP_A_DROP, QP_S_CLOSED },
	{ S(ERROR), QP_EV_PEER_EOF, QP_A_NONE, QP_S_CLOSED },
	{ S(ERROR), QP_EV_RESET, QP_A_NONE, QP_S_CLOSED },
	{ S_LIVE, QP_EV_TERM_RCVD, QP_A_TERM_RCVD, QP_S_ERROR },

	/* local errors (RFC 5040 §7.1); after our FIN no Terminate can
	 * follow it */
	{ S(RTS) | S(CLOSING), QP_EV_LOCAL_ERR, QP_A_TERMINATE,
	  QP_S_TERMINATE },
	{ S(FIN_WAIT), QP_EV_LOCAL_ERR, QP_A_FAIL, QP_S_ERROR },
	{ S_LIVE, QP_EV_LOCAL_FAIL, QP_A_FAIL, QP_S_ERROR },
	/* rule 4: the first error wins */
	{ S_ERR, QP_EV_LOCAL_ERR, QP_A_NONE, QP_S_MAX },
	{ S_ERR, QP_EV_LOCAL_FAIL, QP_A_NONE, QP_S_MAX },
	{ S(ERROR) | S(CLOSED), QP_EV_TERM_RCVD, QP_A_NONE, QP_S_MAX },

	/* the disconnect timeout: RFC 5040 §6.2 LLP Abortive Termination,
	 * RFC 5044 §8 code 1; it also bounds a Terminate the peer does not
	 * read */
	{ S(CLOSING) | S(FIN_WAIT), QP_EV_TIMER, QP_A_TIMEOUT, QP_S_CLOSED },
	{ S(TERMINATE), QP_EV_TIMER, QP_A_RST, QP_S_CLOSED },
	{ S(ERROR) | S(CLOSED), QP_EV_TIMER, QP_A_NONE, QP_S_MAX },

	/* destruction; the verbs first let a queued Terminate out
	 * (bounded by the disconnect timeout), so TERMINATE here means the
	 * time is up */
	{ S(RTS) | S(TERMINATE), QP_EV_DESTROY, QP_A_RELEASE_RST,
	  QP_S_DESTROYED },
	{ S(CLOSING) | S(FIN_WAIT) | S(ERROR) | S(CLOSED), QP_EV_DESTROY,
	  QP_A_RELEASE, QP_S_DESTROYED },
	{ S(RTS) | S(TERMINATE), QP_EV_CTX_CLOSE, QP_A_RELEASE_RST,
	  QP_S_DESTROYED },
	{ S(CLOSING) | S(FIN_WAIT) | S(ERROR) | S(CLOSED), QP_EV_CTX_CLOSE,
	  QP_A_RELEASE, QP_S_DESTROYED },
};

#define QP_FSM_ROWS (sizeof(qp_fsm_tab) / sizeof(qp_fsm_tab[0]))

/* The row for (state, event), or NULL. */
const struct qp_fsm_row *qp_fsm_lookup(enum qp_state s, enum qp_event ev)
{
	size_t i;

	if ((unsigned int)s >= QP_S_MAX || (unsigned int)ev >= QP_EV_MAX)
		return NULL;
	for (i = 0; i < QP_FSM_ROWS; i++)
		if ((qp_fsm_tab[i].states & (1u << s)) &&
		    qp_fsm_tab[i].event == ev)
			return &qp_fsm_tab[i];
	return NULL;
}

static int qp_fsm_run(enum qp_action a, enum qp_event ev,
		      const struct qp_fsm_ops *ops, void *arg, const void *data)
{
	if (a == QP_A_NONE || !ops->action[a])
		return 0;
	return ops->action[a](arg, ev, data);
}

/* The one place a QP's state changes; QP_S_MAX keeps it. */
static void qp_change_state(enum qp_state *state, enum qp_state next)
{
	if (next != QP_S_MAX)
		*state = next;
}

/* Feed ev: find the row, run its action, change state. */
int qp_fsm(enum qp_state *state, enum qp_event ev, const struct qp_fsm_ops *ops,
	   void *arg, const void *data)
{
	const struct qp_fsm_row *row = qp_fsm_lookup(*state, ev);
	int r;

	if (!row) {
		/* Never ignored: a live QP fails, no Terminate (which
		 * error would it name?). */
		if ((unsigned int)*state < QP_S_MAX &&
		    !qp_state_error(*state)) {
			qp_fsm_run(QP_A_FAIL, ev, ops, arg, NULL);
			qp_change_state(state, QP_S_ERROR);
		}
		errno = EPROTO;
		return -1;
	}
	r = qp_fsm_run(row->action, ev, ops, arg, data);
	if (r < 0)
		return r;
	qp_change_state(state, row->next);
	return r;
}

/* The public projection of a state. */
int qp_state_public(enum qp_state s)
{
	switch (s) {
	case QP_S_RTS:
		return IWCM_QPS_RTS;
	case QP_S_CLOSING:
	case QP_S_FIN_WAIT:
		return IWCM_QPS_CLOSING;
	default:
		return IWCM_QPS_ERROR;
	}
}
