/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The life of a queue pair's engine: its state from the connection,
 * completions, flush, the move to error and the close.  Transmit is in
 * qp_tx.c, receive in qp_rx.c.
 *
 * Errors: the first one wins (RFC 5040 §7.1 rule 4); the QP moves to
 * error, sends the Terminate as its last message, flushes every work
 * request and reports one asynchronous event.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

/* ---- helpers ---- */

/* The completion opcode of a send work request opcode. */
int dp_wc_opcode(int wr_opcode)
{
	switch (wr_opcode) {
	case IWCM_WR_RDMA_WRITE:
	case IWCM_WR_RDMA_WRITE_WITH_IMM:
		return IWCM_WC_RDMA_WRITE;
	case IWCM_WR_RDMA_READ:
		return IWCM_WC_RDMA_READ;
	case IWCM_WR_ATOMIC_FETCH_ADD:
		return IWCM_WC_FETCH_ADD;
	case IWCM_WR_ATOMIC_CMP_SWP:
		return IWCM_WC_COMP_SWAP;
	case IWCM_WR_ATOMIC_SWAP:
		return IWCM_WC_SWAP;
	case IWCM_WR_IMM_DATA:
		return IWCM_WC_IMM_DATA;
	default:
		return IWCM_WC_SEND;
	}
}

/* Push a completion of qp; an overflow is reported once per CQ. */
bool qp_cq_push(struct iwcm_qp *qp, struct iwcm_cq *cq, struct iwcm_wc *wc)
{
	wc->qp = qp;
	if (dp_cq_push(cq, wc))
		return true;
	if (cq_overflow_first(cq)) {
		struct iwcm_async_event ev;

		memset(&ev, 0, sizeof(ev));
		ev.type = IWCM_EVENT_CQ_ERR;
		ev.cq = cq;
		ev.qp = qp;
		dp_async_push(qp->ctx->dp, &ev);
	}
	return false;
}

/* ---- setup ---- */

/* Copy the connection's negotiated state and allocate the queues. */
int qp_engine_init(struct iwcm_qp *qp, const struct iwcm_conn *conn)
{
	uint32_t rsge;

	qp->initiator = conn->initiator;
	qp->version = (uint8_t)conn->rdmap_version;
	qp->ddp_version = (uint8_t)conn->ddp_version;
	/* RFC 7306 §4.1: the extensions exist in RDMAP version 1 only. */
	if (conn->dp_caps) {
		qp->atomics = conn->dp_atomics && qp->version == 1;
		qp->imm_data = conn->dp_imm_data && qp->version == 1;
	} else {
		qp->atomics = qp->imm_data = qp->version == 1;
	}
	qp->ird = conn->ird;
	qp->ord = conn->ord;
	qp->markers_tx = conn->markers_tx;
	qp->markers_rx = conn->markers_rx;
	qp->crc = conn->crc;

	/* RFC 5041 §5.3: MSNs start at 1; the handoff gives the next ones
	 * of the direction the RTR used (daemon/handoff.c). */
	for (int i = 0; i < 4; i++) {
		uint32_t m = i < (int)conn->n_msn && conn->next_msn ?
				     conn->next_msn[i] :
				     1;

		qp->tx_msn[i] = qp->initiator ? m : 1;
		qp->rx_msn[i] = qp->initiator ? 1 : m;
	}
	/* RFC 6581 §9.2: the Read RTR's Response is ours to take */
	qp->rtr_read_due = conn->rtr_read_due;
	qp->rtr_read_stag = conn->rtr_read_stag;
	qp->rtr_read_to = conn->rtr_read_to;

	qp->sq = calloc(qp->sq_size, sizeof(*qp->sq));
	qp->sq_sges = calloc((size_t)qp->sq_size * qp->max_send_sge,
			     sizeof(*qp->sq_sges));
	qp->orq = calloc(qp->sq_size, sizeof(*qp->orq));
	if (!qp->sq || !qp->sq_sges || !qp->orq)
		return ERR(ENOMEM);
	if (qp->max_inline) {
		qp->sq_inl = malloc((size_t)qp->sq_size * qp->max_inline);
		if (!qp->sq_inl)
			return ERR(ENOMEM);
	}
	for (uint32_t i = 0; i < qp->sq_size; i++) {
		qp->sq[i].sge = qp->sq_sges + (size_t)i * qp->max_send_sge;
		if (qp->sq_inl)
			qp->sq[i].inl_buf =
				qp->sq_inl + (size_t)i * qp->max_inline;
	}

	rsge = qp->srq ? qp->srq->rq.max_sge : qp->max_recv_sge;
	qp->recv.sge = calloc(rsge ? rsge : 1, sizeof(*qp->recv.sge));
	if (!qp->recv.sge)
		return ERR(ENOMEM);

	return qp_framing_init(qp, conn);
}

/* Free the engine's allocations. */
void qp_engine_free(struct iwcm_qp *qp)
{
	qp_framing_free(qp);
	free(qp->sq);
	free(qp->sq_sges);
	free(qp->sq_inl);
	free(qp->orq);
	free(qp->irq);
	free(qp->recv.sge);
}

/* ---- completions, errors, flushing ---- */

/* Complete finished send work requests, strictly in order (RFC 5040
 * §5.5 rule 15). */
void qp_sq_reap(struct iwcm_qp *qp)
{
	bool overflow = false;

	while (qp->sq_ci != qp->sq_pi) {
		struct sq_wqe *w = sq_at(qp, qp->sq_ci);

		if (w->state != WQE_DONE)
			break;
		if (w->signaled || w->status != IWCM_WC_SUCCESS) {
			struct iwcm_wc wc;

			memset(&wc, 0, sizeof(wc));
			wc.wr_id = w->wr_id;
			wc.status = w->status;
			wc.opcode = dp_wc_opcode(w->opcode);
			wc.vendor_err = w->vendor_err;
			if (w->status == IWCM_WC_SUCCESS)
				wc.byte_len = dp_op_is_atomic(w->opcode) ?
						      8 :
						      (uint32_t)w->total;
			if (!qp_cq_push(qp, qp->send_cq, &wc))
				overflow = true;
		}
		qp->sq_ci++;
	}
	if (overflow)
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
			 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
}

void qp_recv_complete(struct iwcm_qp *qp, struct iwcm_wc *wc)
{
	if (!qp_cq_push(qp, qp->recv_cq, wc))
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
			 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
}

/* Complete everything a QP in error still holds. */
void qp_flush(struct iwcm_qp *qp)
{
	struct iwcm_wc wc;

	for (uint32_t c = qp->sq_ci; c != qp->sq_pi; c++) {
		struct sq_wqe *w = sq_at(qp, c);

		if (w->state == WQE_DONE)
			continue;
		w->state = WQE_DONE;
		if (w->status == IWCM_WC_SUCCESS)
			w->status = IWCM_WC_WR_FLUSH_ERR;
	}
	qp->sq_tx = qp->sq_pi;
	qp->orq_count = 0;
	qp->irq_count = 0;
	qp_sq_reap(qp);

	memset(&wc, 0, sizeof(wc));
	wc.opcode = IWCM_WC_RECV;
	if (qp->cur_recv) {
		wc.wr_id = qp->recv.wr_id;
		wc.status = qp->err_status ? qp->err_status :
					     IWCM_WC_WR_FLUSH_ERR;
		qp->cur_recv = false;
		qp_cq_push(qp, qp->recv_cq, &wc);
	}
	/* A shared receive queue keeps its buffers for the other QPs. */
	while (qp->rq.count) {
		wc.wr_id = qp->rq.ring[qp->rq.head].wr_id;
		wc.status = IWCM_WC_WR_FLUSH_ERR;
		qp->rq.head = (qp->rq.head + 1) % qp->rq.size;
		qp->rq.count--;
		qp_cq_push(qp, qp->recv_cq, &wc);
	}
}

/* Drop queued frames nobody started writing (a QP in error). */
void qp_tx_drop_unsent(struct iwcm_qp *qp)
{
	qp->tx_count = qp->fr ? qp->fr->ops->tx_drop(qp->fr, false) : 0;
}

/* Nothing more is written: drop every queued frame, even one begun. */
static void qp_tx_drop_all(struct iwcm_qp *qp)
{
	if (qp->fr)
		qp->fr->ops->tx_drop(qp->fr, true);
	qp->tx_count = 0;
	qp->tx_blocked = false;
}

static uint64_t qp_now_ms(void)
{
	return uv_hrtime() / 1000000;
}

/* ---- the state machine's actions (qp_fsm.h) ---- */

/* What a post brings to QP_A_FLUSH_WR. */
struct qp_post {
	struct iwcm_cq *cq;
	uint64_t wr_id;
	int opcode; /* enum iwcm_wc_opcode */
};

/* RFC 5040 §6.2.1, §7: the QP enters error: every work request
 * completes, the application hears of it once. */
static void qp_error_enter(struct iwcm_qp *qp, enum qp_reason reason,
			   const struct qp_fsm_err *e)
{
	struct iwcm_async_event ev;

	qp->reason = reason;
	qp->tx_cur = 0;
	qp->tx_wqe = NULL;
	qp_flush(qp);

	memset(&ev, 0, sizeof(ev));
	ev.type = reason == QP_R_TERM	? IWCM_EVENT_QP_TERMINATE :
		  reason == QP_R_CLOSED ? IWCM_EVENT_QP_PEER_CLOSED :
					  IWCM_EVENT_QP_FATAL;
	ev.qp = qp;
	if (e && (reason == QP_R_TERM || reason == QP_R_LOCAL)) {
		ev.term_layer = e->layer;
		ev.term_etype = e->etype;
		ev.term_ecode = e->ecode;
	}
	dp_async_push(qp->ctx->dp, &ev);
}

/* Our FIN (shutdown(SHUT_WR)), unless the graceful close sent it. */
static void qp_fin(struct iwcm_qp *qp)
{
	if (qp->fd < 0 || qp->fsm_state == QP_S_FIN_WAIT)
		return;
	/* what the framing sends first (an SCTP session's Terminate) */
	if (qp->fr && qp->fr->ops->tx_close)
		qp->fr->ops->tx_close(qp->fr);
	(void)shutdown(qp->fd, SHUT_WR);
}

/* A zero linger time makes close(2) send a reset, not a FIN. */
static void qp_linger_rst(int fd)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (fd >= 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

/* Reset the connection now; the loop closes the socket once libuv no
 * longer watches it (progress.c), or qp_free() does. */
static void qp_abort(struct iwcm_qp *qp)
{
	qp_linger_rst(qp->fd);
	/* The application's threads no longer watch it (cqwatch.c). */
	cqw_qp_unwatch(qp);
	qp->abort_fd = qp->fd;
	qp->fd = -1;
	qp_tx_drop_all(qp);
}

static int qp_a_refuse(void *arg, enum qp_event ev, const void *data)
{
	(void)arg;
	(void)ev;
	(void)data;
	return ERR(ENOTCONN);
}

static int qp_a_flush_wr(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;
	const struct qp_post *p = data;
	struct iwcm_wc wc;

	(void)ev;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = p->wr_id;
	wc.status = IWCM_WC_WR_FLUSH_ERR;
	wc.opcode = p->opcode;
	/* A full CQ reports IWCM_EVENT_CQ_ERR, as for any completion. */
	qp_cq_push(qp, p->cq, &wc);
	return 1;
}

static int qp_a_close_begin(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;

	(void)ev;
	(void)data;
	/* Bounded: the progress engine's timer aborts a close that is not
	 * done by then. */
	qp->close_deadline = qp_now_ms() + qp->disconnect_ms;
	return 0;
}

static int qp_a_fin(void *arg, enum qp_event ev, const void *data)
{
	(void)ev;
	(void)data;
	qp_fin(arg);
	return 0;
}

static int qp_a_terminate(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;
	const struct qp_fsm_err *e = data;

	(void)ev;
	qp_error_enter(qp, QP_R_LOCAL, e);
	/* A frame begun stays whole before the Terminate. */
	qp_tx_drop_unsent(qp);
	rdmap_term_fill(&qp->term, e->layer, e->etype, e->ecode, e->seg,
			e->seg_len);
	/* The Terminate is bounded as a close is: a peer that does not
	 * read it gets a reset at the deadline. */
	if (qp->fsm_state == QP_S_RTS)
		qp->close_deadline = qp_now_ms() + qp->disconnect_ms;
	qp_tx_term(qp);
	return 0;
}

static int qp_a_fail(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;

	(void)ev;
	qp_error_enter(qp, QP_R_LOCAL, data);
	qp_tx_drop_all(qp);
	qp_fin(qp);
	return 0;
}

static int qp_a_term_rcvd(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;

	(void)ev;
	qp_error_enter(qp, QP_R_TERM, data);
	qp_tx_drop_all(qp);
	qp_fin(qp);
	return 0;
}

static int qp_a_peer_closed(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;

	(void)ev;
	(void)data;
	qp_error_enter(qp, QP_R_CLOSED, NULL);
	qp_tx_drop_all(qp);
	qp_fin(qp);
	return 0;
}

static int qp_a_drop(void *arg, enum qp_event ev, const void *data)
{
	(void)ev;
	(void)data;
	qp_tx_drop_all(arg);
	return 0;
}

/*
 * The close begun by iwcm_qp_disconnect() did not complete in time: the
 * peer does not read what is queued or never sends its FIN.  RFC 5040
 * §6.2 leaves LLP Abortive Termination as the way out, RFC 5044 §8 code 1
 * names the cause ("lost by timeout"); Chelsio's iw_cxgb4 does the same
 * when its endpoint timer expires in CLOSING: the QP to error and a TCP
 * reset.  No Terminate: the peer reads nothing more, or has our FIN.
 */
static int qp_a_timeout(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;
	const struct qp_fsm_err e = {
		.layer = RDMAP_TERM_LAYER_LLP,
		.etype = MPA_ETYPE_MPA,
		.ecode = MPA_ECODE_CLOSED,
	};

	(void)ev;
	(void)data;
	qp_abort(qp);
	qp_error_enter(qp, QP_R_LOCAL, &e);
	return 0;
}

/* Our Terminate was not read in time: the same reset. */
static int qp_a_rst(void *arg, enum qp_event ev, const void *data)
{
	(void)ev;
	(void)data;
	qp_abort(arg);
	return 0;
}

static int qp_a_release_rst(void *arg, enum qp_event ev, const void *data)
{
	struct iwcm_qp *qp = arg;

	(void)ev;
	(void)data;
	/*
	 * Still connected, no graceful close begun (or our Terminate not
	 * out in time): an abortive close (RFC 5040 §6.2 LLP Abortive
	 * Termination; iw_cm does the same when a connected cm_id is
	 * destroyed).  A TCP RST tells the peer at once instead of a FIN
	 * it could take for a graceful close.
	 */
	qp_linger_rst(qp->fd);
	qp_tx_drop_all(qp);
	return 0;
}

static int qp_a_release(void *arg, enum qp_event ev, const void *data)
{
	(void)ev;
	(void)data;
	/* close(2) once the loop let go of the socket (qp_free()). */
	qp_tx_drop_all(arg);
	return 0;
}

static const struct qp_fsm_ops qp_fsm_ops = {
	.action = {
		[QP_A_REFUSE] = qp_a_refuse,
		[QP_A_FLUSH_WR] = qp_a_flush_wr,
		[QP_A_CLOSE_BEGIN] = qp_a_close_begin,
		[QP_A_FIN] = qp_a_fin,
		[QP_A_TERMINATE] = qp_a_terminate,
		[QP_A_FAIL] = qp_a_fail,
		[QP_A_TERM_RCVD] = qp_a_term_rcvd,
		[QP_A_PEER_CLOSED] = qp_a_peer_closed,
		[QP_A_DROP] = qp_a_drop,
		[QP_A_TIMEOUT] = qp_a_timeout,
		[QP_A_RST] = qp_a_rst,
		[QP_A_RELEASE] = qp_a_release,
		[QP_A_RELEASE_RST] = qp_a_release_rst,
	},
};

/*
 * Feed an event to the QP's state machine.  An event fed while an action
 * runs is one that action caused (a CQ overflowing during the flush); the
 * transition under way already moves the QP to error, so it is dropped
 * (RFC 5040 §7.1 rule 4: the first error wins).
 */
int qp_event(struct iwcm_qp *qp, enum qp_event ev, const void *data)
{
	int r;

	if (qp->fsm_busy)
		return 0;
	qp->fsm_busy = true;
	r = qp_fsm(&qp->fsm_state, ev, &qp_fsm_ops, qp, data);
	qp->fsm_busy = false;
	return r;
}

/* Post one work request: 0 to queue it, 1 if flushed, -1 with errno. */
int qp_post_event(struct iwcm_qp *qp, enum qp_event ev, uint64_t wr_id,
		  int wc_opcode)
{
	struct qp_post p = {
		.cq = ev == QP_EV_POST_SEND ? qp->send_cq : qp->recv_cq,
		.wr_id = wr_id,
		.opcode = wc_opcode,
	};

	return qp_event(qp, ev, &p);
}

/* Move the QP to error (RFC 5040 §6.2.1, §7). */
void qp_fatal(struct iwcm_qp *qp, enum qp_reason reason, bool send_term,
	      uint8_t layer, uint8_t etype, uint8_t ecode, const uint8_t *seg,
	      size_t seg_len)
{
	const struct qp_fsm_err e = { layer, etype, ecode, seg, seg_len };

	switch (reason) {
	case QP_R_TERM:
		qp_event(qp, QP_EV_TERM_RCVD, &e);
		break;
	case QP_R_CLOSED:
		qp_event(qp, QP_EV_RESET, NULL);
		break;
	default:
		/* RFC 5040 §5.4: the Terminate is the last message; none
		 * before an MPA v1 responder may send at all (RFC 5044
		 * §7.1.2 rule 4). */
		if (send_term && qp->fd >= 0 && qp_tx_ready(qp))
			qp_event(qp, QP_EV_LOCAL_ERR, &e);
		else
			qp_event(qp, QP_EV_LOCAL_FAIL, &e);
		break;
	}
	/* Our Terminate goes out now if the socket has room. */
	if (qp->fsm_state == QP_S_TERMINATE)
		qp_tx_kick(qp);
}

/* Feed QP_EV_TX_DRAINED once what must precede our FIN is written: the
 * graceful close's work (responses awaited too), or our Terminate. */
void qp_close_check(struct iwcm_qp *qp)
{
	if (qp->fsm_state == QP_S_CLOSING) {
		if (qp->sq_tx != qp->sq_pi || qp->tx_cur || qp->tx_count ||
		    qp->orq_count || qp->rtr_read_due || qp->irq_count)
			return;
	} else if (qp->fsm_state != QP_S_TERMINATE || qp->tx_count) {
		return;
	}
	qp_event(qp, QP_EV_TX_DRAINED, NULL);
}

/* Write our Terminate before the socket goes, until the deadline. */
void qp_linger(struct iwcm_qp *qp, pthread_mutex_t *lock)
{
	while (qp->fsm_state == QP_S_TERMINATE) {
		struct pollfd p = { qp->fd, POLLOUT, 0 };
		uint64_t now = qp_now_ms(), wait;

		qp_tx_progress(qp);
		if (qp->fsm_state != QP_S_TERMINATE)
			break;
		if (now >= qp->close_deadline) {
			qp_event(qp, QP_EV_TIMER, NULL);
			break;
		}
		wait = qp->close_deadline - now;
		if (lock)
			pthread_mutex_unlock(lock);
		(void)poll(&p, 1, wait > 100 ? 100 : (int)wait);
		if (lock)
			pthread_mutex_lock(lock);
	}
}

/* What the socket must be watched for. */
int qp_poll_events(const struct iwcm_qp *qp)
{
	int ev = 0;

	if (qp->fd < 0)
		return 0;
	if (qp_rx_open(qp))
		ev |= UV_READABLE;
	if (qp->tx_blocked && qp_tx_writes(qp))
		ev |= UV_WRITABLE;
	return ev;
}
