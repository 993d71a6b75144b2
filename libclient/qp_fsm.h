/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_QP_FSM_H
#define IWCM_LIBCLIENT_QP_FSM_H

/*
 * The life of a queue pair as a transition table {state mask, event,
 * action, next state} (the ldpd model, as daemon/conn_fsm.c).  The FSM
 * does no I/O: qp.c, qp_tx.c, qp_rx.c, progress.c and the verbs classify
 * what happened into an event, and the actions qp.c hands over do the
 * work.  A (state, event) pair that is not in the table is an internal
 * error: qp_fsm() returns -1 with EPROTO and moves a QP not yet in error
 * there with the fail action; in an error state it changes nothing.
 *
 * The public enum iwcm_qp_state is a projection: RTS; CLOSING and
 * FIN_WAIT are IWCM_QPS_CLOSING; every other state is IWCM_QPS_ERROR.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum qp_state {
	QP_S_RTS,	/* connected, moving data */
	QP_S_CLOSING,	/* disconnect asked: the send side drains */
	QP_S_FIN_WAIT,	/* drained, our FIN sent: the peer's FIN
				 * is awaited */
	QP_S_TERMINATE, /* in error, our Terminate queued and not
				 * yet all written; then the FIN */
	QP_S_ERROR,	/* in error, our FIN sent: the stream is read
				 * and dropped until the peer's FIN */
	QP_S_CLOSED,	/* in error, both directions finished or the
				 * connection reset */
	QP_S_DESTROYED, /* iwcm_destroy_qp() or the context's close
				 * (final) */
	QP_S_MAX
};

enum qp_event {
	QP_EV_POST_SEND,  /* a send work request is posted */
	QP_EV_POST_RECV,  /* a receive work request is posted */
	QP_EV_DISCONNECT, /* iwcm_qp_disconnect() */
	QP_EV_TX_DRAINED, /* nothing left to write before our FIN:
				 * the FIN goes out (the "FIN sent" event) */
	QP_EV_PEER_EOF,	  /* the peer's FIN: read() returned 0 */
	QP_EV_RESET,	  /* the connection was reset or broke */
	QP_EV_TERM_RCVD,  /* the peer's Terminate (RFC 5040 §5.4) */
	QP_EV_LOCAL_ERR,  /* we detected an error (layer, type, code):
				 * a Terminate is due (RFC 5040 §7.1) */
	QP_EV_LOCAL_FAIL, /* a local failure with no Terminate to send
				 * (none allowed, or none meaningful) */
	QP_EV_TIMER,	  /* the disconnect timeout expired */
	QP_EV_DESTROY,	  /* iwcm_destroy_qp() */
	QP_EV_CTX_CLOSE,  /* iwcm_ctx_close() */
	QP_EV_MAX
};

enum qp_action {
	QP_A_NONE,
	QP_A_REFUSE,	  /* the post fails: ENOTCONN */
	QP_A_FLUSH_WR,	  /* the posted request completes flushed */
	QP_A_CLOSE_BEGIN, /* arm the disconnect deadline, drain */
	QP_A_FIN,	  /* shutdown(SHUT_WR) */
	QP_A_TERMINATE,	  /* error: flush, event, queue our Terminate */
	QP_A_FAIL,	  /* error: flush, event, FIN */
	QP_A_TERM_RCVD,	  /* error by the peer: flush, event, FIN */
	QP_A_PEER_CLOSED, /* error by the peer's close: flush, event */
	QP_A_DROP,	  /* what is left to write is lost */
	QP_A_TIMEOUT,	  /* error: flush, event, TCP reset */
	QP_A_RST,	  /* TCP reset (already in error) */
	QP_A_RELEASE,	  /* let go of the socket: close(2) */
	QP_A_RELEASE_RST, /* close(2) with a TCP reset */
	QP_A_MAX
};

extern const char *const qp_state_names[QP_S_MAX];
extern const char *const qp_event_names[QP_EV_MAX];
extern const char *const qp_action_names[QP_A_MAX];

/* What a local error puts in our Terminate (RFC 5040 §4.8). */
struct qp_fsm_err {
	uint8_t layer, etype, ecode;
	const uint8_t *seg; /* the offending segment's headers */
	size_t seg_len;
};

/*
 * The actions: arg is the QP, data what came with the event (a struct
 * qp_fsm_err for the error events, the work request for a post).  They
 * run before the state changes, so they see the state left.  0 or more
 * on success (a post's flush returns 1: the request is consumed), -1
 * with errno on failure, which leaves the state unchanged.
 */
struct qp_fsm_ops {
	int (*action[QP_A_MAX])(void *arg, enum qp_event ev, const void *data);
};

struct qp_fsm_row {
	uint32_t states; /* mask of 1 << enum qp_state */
	enum qp_event event;
	enum qp_action action;
	enum qp_state next;
};

/* The row for (state, event), for tests; NULL if none. */
const struct qp_fsm_row *qp_fsm_lookup(enum qp_state s, enum qp_event ev);

/*
 * Feed ev to the QP whose state is *state: find the row, run its action,
 * change state.  Returns what the action returned, or -1 with EPROTO
 * when the pair is not in the table.
 */
int qp_fsm(enum qp_state *state, enum qp_event ev, const struct qp_fsm_ops *ops,
	   void *arg, const void *data);

/* The QP is in error (TERMINATE, ERROR, CLOSED, DESTROYED). */
static inline bool qp_state_error(enum qp_state s)
{
	return s >= QP_S_TERMINATE;
}

/* The state iwcm_query_qp() reports (enum iwcm_qp_state). */
int qp_state_public(enum qp_state s);

#endif
