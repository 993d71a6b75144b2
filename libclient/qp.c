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
	bool was = cq->overflowed;

	wc->qp = qp;
	if (dp_cq_push(cq, wc))
		return true;
	if (!was) {
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
				     conn->next_msn[i] : 1;

		qp->tx_msn[i] = qp->initiator ? m : 1;
		qp->rx_msn[i] = qp->initiator ? 1 : m;
	}

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
			qp->sq[i].inl_buf = qp->sq_inl +
					    (size_t)i * qp->max_inline;
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
						      8 : (uint32_t)w->total;
			if (!qp_cq_push(qp, qp->send_cq, &wc))
				overflow = true;
		}
		qp->sq_ci++;
	}
	if (overflow && qp->state != IWCM_QPS_ERROR)
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
			 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
}

void qp_recv_complete(struct iwcm_qp *qp, struct iwcm_wc *wc)
{
	if (!qp_cq_push(qp, qp->recv_cq, wc) &&
	    qp->state != IWCM_QPS_ERROR)
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

void qp_fin(struct iwcm_qp *qp)
{
	if (qp->fin_sent || qp->fd < 0)
		return;
	qp->fin_sent = true;
	shutdown(qp->fd, SHUT_WR);
}

/* Drop queued frames nobody started writing (a QP in error). */
void qp_tx_drop_unsent(struct iwcm_qp *qp)
{
	qp->tx_count = qp->fr ? qp->fr->ops->tx_drop_unsent(qp->fr) : 0;
}

/* Move the QP to error (RFC 5040 §6.2.1, §7). */
void qp_fatal(struct iwcm_qp *qp, enum qp_reason reason, bool send_term,
	      uint8_t layer, uint8_t etype, uint8_t ecode,
	      const uint8_t *seg, size_t seg_len)
{
	struct iwcm_async_event ev;

	if (qp->state == IWCM_QPS_ERROR)
		return;
	qp->state = IWCM_QPS_ERROR;
	qp->reason = reason;
	qp->rx_dead = true;
	qp->tx_cur = 0;
	qp->tx_wqe = NULL;
	qp_tx_drop_unsent(qp);
	/*
	 * RFC 5040 §5.4: the Terminate is the last message.  Not when the
	 * peer is gone, nor before an MPA v1 responder may send at all
	 * (RFC 5044 §7.1.2 rule 4).
	 */
	if (send_term && !qp->term_sent && !qp->rx_eof && !qp->fin_sent &&
	    qp_tx_ready(qp)) {
		rdmap_term_fill(&qp->term, layer, etype, ecode, seg, seg_len);
		qp->term_pending = true;
	}
	qp_flush(qp);

	memset(&ev, 0, sizeof(ev));
	ev.type = reason == QP_R_TERM ? IWCM_EVENT_QP_TERMINATE :
		  reason == QP_R_CLOSED ? IWCM_EVENT_QP_PEER_CLOSED :
					  IWCM_EVENT_QP_FATAL;
	ev.qp = qp;
	if (reason == QP_R_TERM || reason == QP_R_LOCAL) {
		ev.term_layer = layer;
		ev.term_etype = etype;
		ev.term_ecode = ecode;
	}
	if (reason != QP_R_USER)
		dp_async_push(qp->ctx->dp, &ev);
	if (qp->term_pending)
		qp_tx_progress(qp);
	else if (!qp->tx_count)
		qp_fin(qp);
}

/* Graceful close: FIN once nothing is left to send or to wait for. */
void qp_close_check(struct iwcm_qp *qp)
{
	if (qp->state == IWCM_QPS_ERROR && !qp->tx_count && !qp->term_pending)
		qp_fin(qp);
	if (qp->state != IWCM_QPS_CLOSING || qp->fin_sent)
		return;
	if (qp->sq_tx != qp->sq_pi || qp->tx_cur || qp->tx_count ||
	    qp->orq_count || qp->irq_count)
		return;
	qp_fin(qp);
}

/*
 * The close begun by iwcm_qp_disconnect() did not complete in time: the
 * peer does not read what is queued or never sends its FIN.  RFC 5040
 * §6.2 leaves LLP Abortive Termination as the way out, RFC 5044 §8 code 1
 * names the cause ("lost by timeout"); Chelsio's iw_cxgb4 does the same
 * when its endpoint timer expires in CLOSING: the QP to error and a TCP
 * reset.  No Terminate: the peer reads nothing more, or has our FIN.
 */
void qp_close_timeout(struct iwcm_qp *qp)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (qp->state != IWCM_QPS_CLOSING || qp->fd < 0)
		return;
	/* A zero linger time makes close(2) send a reset, not a FIN. */
	(void)setsockopt(qp->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	/* Nothing more is read or written; the loop closes the socket once
	 * libuv no longer watches it. */
	qp->abort_fd = qp->fd;
	qp->fd = -1;
	qp->tx_count = 0;
	qp->tx_blocked = false;
	qp->rx_eof = true;
	qp_fatal(qp, QP_R_LOCAL, false, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		 MPA_ECODE_CLOSED, NULL, 0);
}

/* What the socket must be watched for. */
int qp_poll_events(const struct iwcm_qp *qp)
{
	int ev = 0;

	if (qp->fd < 0 || qp->dying)
		return 0;
	if (!qp->rx_eof)
		ev |= UV_READABLE;
	if (qp->tx_blocked)
		ev |= UV_WRITABLE;
	return ev;
}
