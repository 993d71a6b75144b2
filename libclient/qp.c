/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The RDMAP/DDP engine of one queue pair.
 *
 * Transmit: work requests (and the responses owed to the peer) are cut
 * into DDP segments of at most MULPDU octets, each framed as one FPDU
 * whose iovecs point into registered memory (mpa_stream.c); a few frames
 * are queued and written together.  Messages are never interleaved:
 * between two messages responses go first, then the send queue in order
 * (RFC 5040 §5.5 rule 13), held back by ORD and FENCE.
 *
 * Receive: the framing octets and the DDP/RDMAP headers of a segment are
 * read into small buffers; once the header passed every RFC 5041 §7.1,
 * RFC 5040 §7.2 and RFC 5042 check, the payload is read straight into
 * its target.  The CRC covers what was placed; nothing is delivered
 * (completed, invalidated, answered) before the FPDU's CRC matched.
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

/* How much one call reads before letting other QPs run. */
#define QP_RX_BUDGET (1u << 20)

static void qp_tx_kick(struct iwcm_qp *qp);

/* ---- helpers ---- */

static bool op_is_atomic(int op)
{
	return op == IWCM_WR_ATOMIC_FETCH_ADD || op == IWCM_WR_ATOMIC_CMP_SWP ||
	       op == IWCM_WR_ATOMIC_SWAP;
}

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

static uint64_t be64_get(const uint8_t *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

static void be64_put(uint8_t *p, uint64_t v)
{
	for (int i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

static struct dp_stag_table *qp_stags(const struct iwcm_qp *qp)
{
	return &qp->ctx->dp->stags;
}

static struct sq_wqe *sq_at(const struct iwcm_qp *qp, uint32_t c)
{
	return &qp->sq[c % qp->sq_size];
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
	uint32_t n_in, rsge;

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
	qp->wait_first_fpdu = conn->wait_first_fpdu;

	/* RFC 5044 §4.3: markers sit at multiples of 512 counted from the
	 * first FPDU octet; the daemon says how far each direction is. */
	qp->tx_dir.markers = qp->markers_tx;
	qp->tx_dir.crc = qp->crc;
	qp->tx_dir.off = (uint32_t)conn->tx_offset;
	mpa_rx_init(&qp->rx, qp->markers_rx, qp->crc,
		    (uint32_t)conn->rx_offset);

	/* RFC 5041 §5.3: MSNs start at 1; the handoff gives the next ones
	 * of the direction the RTR used (daemon/handoff.c). */
	for (int i = 0; i < 4; i++) {
		uint32_t m = i < (int)conn->n_msn && conn->next_msn ?
				     conn->next_msn[i] : 1;

		qp->tx_msn[i] = qp->initiator ? m : 1;
		qp->rx_msn[i] = qp->initiator ? 1 : m;
	}

	if (conn->unread_len) {
		qp->unread = malloc(conn->unread_len);
		if (!qp->unread)
			return -1;
		memcpy(qp->unread, conn->unread, conn->unread_len);
		qp->unread_len = conn->unread_len;
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
	qp->stage = malloc(DP_STAGE_LEN);
	if (!qp->recv.sge || !qp->stage)
		return ERR(ENOMEM);

	/* Frame = header + up to max_send_sge payload pieces. */
	n_in = qp->max_send_sge + 1;
	qp->in_cap = n_in;
	qp->out_cap = mpa_fpdu_iov_max(n_in);
	qp->frames = calloc(DP_TX_FRAMES, sizeof(*qp->frames));
	if (!qp->frames)
		return ERR(ENOMEM);
	for (int i = 0; i < DP_TX_FRAMES; i++) {
		qp->frames[i].in = calloc(qp->in_cap, sizeof(struct iovec));
		qp->frames[i].out = calloc(qp->out_cap, sizeof(struct iovec));
		if (!qp->frames[i].in || !qp->frames[i].out)
			return ERR(ENOMEM);
	}
	return 0;
}

/* Free the engine's allocations. */
void qp_engine_free(struct iwcm_qp *qp)
{
	if (qp->frames) {
		for (int i = 0; i < DP_TX_FRAMES; i++) {
			free(qp->frames[i].in);
			free(qp->frames[i].out);
			free(qp->frames[i].bounce);
		}
	}
	free(qp->frames);
	free(qp->sq);
	free(qp->sq_sges);
	free(qp->sq_inl);
	free(qp->orq);
	free(qp->irq);
	free(qp->recv.sge);
	free(qp->stage);
	free(qp->unread);
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
				wc.byte_len = op_is_atomic(w->opcode) ?
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

static void qp_recv_complete(struct iwcm_qp *qp, struct iwcm_wc *wc)
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

static void qp_fin(struct iwcm_qp *qp)
{
	if (qp->fin_sent || qp->fd < 0)
		return;
	qp->fin_sent = true;
	shutdown(qp->fd, SHUT_WR);
}

/* Drop queued frames nobody started writing (a QP in error). */
static void tx_drop_unsent(struct iwcm_qp *qp)
{
	uint32_t keep = 0;

	if (qp->tx_count && qp->frames[qp->tx_head].sent)
		keep = 1;
	for (uint32_t i = keep; i < qp->tx_count; i++) {
		struct tx_frame *f =
			&qp->frames[(qp->tx_head + i) % DP_TX_FRAMES];

		free(f->bounce);
		f->bounce = NULL;
	}
	qp->tx_count = keep;
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
	tx_drop_unsent(qp);
	/*
	 * RFC 5040 §5.4: the Terminate is the last message.  Not when the
	 * peer is gone, nor before an MPA v1 responder may send at all
	 * (RFC 5044 §7.1.2 rule 4).
	 */
	if (send_term && !qp->term_sent && !qp->rx_eof && !qp->fin_sent &&
	    !(qp->wait_first_fpdu && !qp->first_fpdu)) {
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

/* A local error on a send work request (RFC 5040 §7.1 case 1). */
static void sq_local_error(struct iwcm_qp *qp, struct sq_wqe *w, int status)
{
	w->state = WQE_DONE;
	w->status = status;
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
		 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
}

/* ---- transmit ---- */

static struct tx_frame *tx_frame_get(struct iwcm_qp *qp)
{
	struct tx_frame *f;

	if (qp->tx_count == DP_TX_FRAMES)
		return NULL;
	f = &qp->frames[(qp->tx_head + qp->tx_count) % DP_TX_FRAMES];
	free(f->bounce);
	f->bounce = NULL;
	f->kind = 0;
	f->msg_last = false;
	f->wqe = NULL;
	f->n_out = 0;
	f->wire_len = 0;
	f->sent = 0;
	return f;
}

/* Build the headers of m, frame them with the payload, queue the FPDU. */
static int tx_frame_build(struct iwcm_qp *qp, struct tx_frame *f,
			  struct rdmap_msg *m, size_t n_pay)
{
	size_t hl;

	/* RFC 5041 §4.1, RFC 5040 §4.1: the versions negotiated. */
	m->rv = qp->version;
	m->ddp.dv = qp->ddp_version;
	if (rdmap_hdr_build(m, f->hdr, sizeof(f->hdr), &hl) != WIRE_OK)
		return ERR(EINVAL);
	f->in[0].iov_base = f->hdr;
	f->in[0].iov_len = hl;
	if (mpa_stream_frame(qp, f, 1 + n_pay) < 0)
		return -1;
	qp->tx_count++;
	return 0;
}

/*
 * Payload iovecs for octets [off, off + len) of a send work request,
 * after the RFC 5042 checks of the local buffers (lkey valid, same PD,
 * inside the region).  Returns the count, -1 on a protection error.
 */
static int sq_payload(struct iwcm_qp *qp, struct sq_wqe *w, uint64_t off,
		      uint64_t len, struct iovec *iov)
{
	uint64_t pos = 0;
	int n = 0;

	if (!len)
		return 0;
	if (w->inl) {
		iov[0].iov_base = w->inl_buf + off;
		iov[0].iov_len = (size_t)len;
		return 1;
	}
	for (int i = 0; i < w->num_sge && len; i++) {
		const struct iwcm_sge *s = &w->sge[i];
		uint64_t a, k;

		if (pos + s->length <= off) {
			pos += s->length;
			continue;
		}
		if (dp_mr_check(qp_stags(qp), s->lkey, qp->pd, s->addr,
				s->length, 0, NULL) != DP_PROT_OK)
			return -1;
		a = off - pos;
		k = s->length - a;
		if (k > len)
			k = len;
		iov[n].iov_base = (uint8_t *)(uintptr_t)s->addr + a;
		iov[n].iov_len = (size_t)k;
		n++;
		off += k;
		len -= k;
		pos += s->length;
	}
	return n;
}

static bool sq_local_sink_ok(struct iwcm_qp *qp, const struct sq_wqe *w)
{
	if (!w->num_sge || !w->sge[0].length)
		return true;
	return dp_mr_check(qp_stags(qp), w->sge[0].lkey, qp->pd,
			   w->sge[0].addr, w->sge[0].length,
			   IWCM_ACCESS_LOCAL_WRITE, NULL) == DP_PROT_OK;
}

/*
 * Build the next segment of the send work request being transmitted.
 * Returns 1 when its last segment is built, 0 when more follow, -1 when
 * the QP failed.
 */
static int tx_sq_segment(struct iwcm_qp *qp, struct sq_wqe *w,
			 struct tx_frame *f)
{
	struct rdmap_msg m;
	uint64_t len, room;
	int n, op = w->opcode;
	bool done = false;

	memset(&m, 0, sizeof(m));
	f->kind = TXF_SQ;
	f->wqe = w;
	switch (op) {
	case IWCM_WR_SEND:
	case IWCM_WR_SEND_WITH_INV:
		/* RFC 5040 §5.3: untagged, QN 0; RFC 5041 §5.2: MO. */
		room = qp->mulpdu - DDP_UNTAGGED_HDR_LEN;
		len = w->total - w->sent;
		if (len > room)
			len = room;
		n = sq_payload(qp, w, w->sent, len, f->in + 1);
		if (n < 0)
			goto prot;
		if (op == IWCM_WR_SEND_WITH_INV)
			m.opcode = w->solicited ? RDMAP_SEND_SE_INV :
						  RDMAP_SEND_INV;
		else
			m.opcode = w->solicited ? RDMAP_SEND_SE : RDMAP_SEND;
		m.inv_stag = w->inv_stag;
		m.ddp.qn = DDP_QN_SEND;
		m.ddp.msn = qp->tx_msn[DDP_QN_SEND];
		m.ddp.mo = (uint32_t)w->sent;
		m.ddp.last = w->sent + len == w->total;
		if (tx_frame_build(qp, f, &m, (size_t)n) < 0)
			goto prot;
		w->sent += len;
		if (m.ddp.last) {
			qp->tx_msn[DDP_QN_SEND]++;
			done = true;
		}
		break;
	case IWCM_WR_RDMA_WRITE:
	case IWCM_WR_RDMA_WRITE_WITH_IMM:
		if (w->imm_phase)
			goto imm;
		/* RFC 5040 §5.1: tagged; RFC 5041 §5.2: TO advances. */
		room = qp->mulpdu - DDP_TAGGED_HDR_LEN;
		len = w->total - w->sent;
		if (len > room)
			len = room;
		n = sq_payload(qp, w, w->sent, len, f->in + 1);
		if (n < 0)
			goto prot;
		m.opcode = RDMAP_WRITE;
		m.ddp.tagged = true;
		m.ddp.stag = w->rkey;
		m.ddp.to = w->raddr + w->sent;
		m.ddp.last = w->sent + len == w->total;
		if (tx_frame_build(qp, f, &m, (size_t)n) < 0)
			goto prot;
		w->sent += len;
		if (m.ddp.last) {
			/* RFC 7306 §6: Write with Immediate is a Write
			 * followed by an Immediate Data message. */
			if (op == IWCM_WR_RDMA_WRITE_WITH_IMM)
				w->imm_phase = true;
			else
				done = true;
		}
		break;
	case IWCM_WR_IMM_DATA:
imm:
		/* RFC 7306 §6.3: untagged, QN 0, exactly 8 octets. */
		m.opcode = w->solicited ? RDMAP_IMM_DATA_SE : RDMAP_IMM_DATA;
		be64_put(m.u.imm, w->imm);
		m.ddp.qn = DDP_QN_SEND;
		m.ddp.msn = qp->tx_msn[DDP_QN_SEND];
		m.ddp.last = true;
		if (tx_frame_build(qp, f, &m, 0) < 0)
			goto prot;
		qp->tx_msn[DDP_QN_SEND]++;
		done = true;
		break;
	case IWCM_WR_RDMA_READ:
		if (!sq_local_sink_ok(qp, w))
			goto prot;
		/* RFC 5040 §4.4, §5.2.1: untagged, QN 1.  A zero-length
		 * Read still names a non-zero sink STag (DESIGN.md). */
		m.opcode = RDMAP_READ_REQ;
		m.ddp.qn = DDP_QN_READ_REQ;
		m.ddp.msn = qp->tx_msn[DDP_QN_READ_REQ];
		m.ddp.last = true;
		m.u.read_req.sink_stag = w->num_sge ? w->sge[0].lkey : 0;
		if (!m.u.read_req.sink_stag)
			m.u.read_req.sink_stag = DP_STAG_MAKE(1, 0);
		m.u.read_req.sink_to = w->num_sge ? w->sge[0].addr : 0;
		m.u.read_req.size = (uint32_t)w->total;
		m.u.read_req.src_stag = w->rkey;
		m.u.read_req.src_to = w->raddr;
		if (tx_frame_build(qp, f, &m, 0) < 0)
			goto prot;
		goto request;
	default:
		if (!sq_local_sink_ok(qp, w))
			goto prot;
		/* RFC 7306 §5.2.1: untagged, QN 1, Figure 5's fields. */
		m.opcode = RDMAP_ATOMIC_REQ;
		m.ddp.qn = DDP_QN_READ_REQ;
		m.ddp.msn = qp->tx_msn[DDP_QN_READ_REQ];
		m.ddp.last = true;
		w->req_id = ++qp->next_req_id;
		m.u.atomic_req.req_id = w->req_id;
		m.u.atomic_req.stag = w->rkey;
		m.u.atomic_req.to = w->raddr;
		m.u.atomic_req.cmp = 0;
		m.u.atomic_req.cmp_mask = UINT64_MAX;
		if (op == IWCM_WR_ATOMIC_FETCH_ADD) {
			m.u.atomic_req.aopcode = RDMAP_AOP_FETCHADD;
			m.u.atomic_req.add_swap = w->cmp_add;
			m.u.atomic_req.add_swap_mask = w->cmp_add_mask;
		} else if (op == IWCM_WR_ATOMIC_CMP_SWP) {
			m.u.atomic_req.aopcode = RDMAP_AOP_CMPSWAP;
			m.u.atomic_req.add_swap = w->swap;
			m.u.atomic_req.add_swap_mask = w->swap_mask;
			m.u.atomic_req.cmp = w->cmp_add;
			m.u.atomic_req.cmp_mask = w->cmp_add_mask;
		} else {
			/* Seed 004 §5.1.2: masks all ones, Compare 0. */
			m.u.atomic_req.aopcode = RDMAP_AOP_SWAP;
			m.u.atomic_req.add_swap = w->swap;
			m.u.atomic_req.add_swap_mask = UINT64_MAX;
		}
		if (tx_frame_build(qp, f, &m, 0) < 0)
			goto prot;
		goto request;
	}
	f->msg_last = m.ddp.last;
	w->frames++;
	if (done)
		w->built = true;
	return done;

request:
	/* RFC 5040 §6.1: counted against ORD until the response comes. */
	w->req_msn = qp->tx_msn[DDP_QN_READ_REQ]++;
	qp->orq[(qp->orq_head + qp->orq_count) % qp->sq_size] = qp->sq_tx;
	qp->orq_count++;
	f->msg_last = true;
	w->frames++;
	w->built = true;
	return 1;

prot:
	sq_local_error(qp, w, IWCM_WC_LOC_PROT_ERR);
	return -1;
}

static uint8_t prot_rdmap_ecode(enum dp_prot p)
{
	switch (p) {
	case DP_PROT_PD:
		return RDMAP_ECODE_STAG_NOT_ASSOC;
	case DP_PROT_ACCESS:
		return RDMAP_ECODE_ACCESS;
	case DP_PROT_WRAP:
		return RDMAP_ECODE_TO_WRAP;
	case DP_PROT_BOUNDS:
		return RDMAP_ECODE_BASE_BOUNDS;
	default:
		return RDMAP_ECODE_INVALID_STAG;
	}
}

/*
 * Build the next segment of the response at the head of the responder
 * queue: a Read Response (RFC 5040 §5.2.2) read straight from the
 * region, or an Atomic Response (RFC 7306 §5.2.2) after running the
 * operation now, once every earlier response is generated (RFC 7306 §7).
 */
static int tx_irq_segment(struct iwcm_qp *qp, struct tx_frame *f)
{
	struct irq_entry *e = &qp->irq[qp->irq_head];
	struct rdmap_msg m;
	enum dp_prot p;
	int n = 0;

	memset(&m, 0, sizeof(m));
	f->kind = TXF_IRQ;
	if (e->kind == IRQ_READ) {
		uint64_t len = e->rr.size - e->sent;
		uint64_t room = qp->mulpdu - DDP_TAGGED_HDR_LEN;

		if (len > room)
			len = room;
		/* The region may have gone since the request was checked. */
		if (e->rr.size) {
			p = dp_mr_check(qp_stags(qp), e->rr.src_stag, qp->pd,
					e->rr.src_to + e->sent, len,
					IWCM_ACCESS_REMOTE_READ, NULL);
			if (p != DP_PROT_OK)
				goto prot;
		}
		if (len) {
			f->in[1].iov_base =
				(uint8_t *)(uintptr_t)(e->rr.src_to + e->sent);
			f->in[1].iov_len = (size_t)len;
			n = 1;
		}
		m.opcode = RDMAP_READ_RESP;
		m.ddp.tagged = true;
		m.ddp.stag = e->rr.sink_stag;
		m.ddp.to = e->rr.sink_to + e->sent;
		m.ddp.last = e->sent + len == e->rr.size;
		if (tx_frame_build(qp, f, &m, (size_t)n) < 0)
			goto local;
		e->sent += len;
	} else {
		uint64_t *word;

		p = dp_mr_check(qp_stags(qp), e->ar.stag, qp->pd, e->ar.to, 8,
				IWCM_ACCESS_REMOTE_ATOMIC, NULL);
		if (p != DP_PROT_OK)
			goto prot;
		word = (uint64_t *)(uintptr_t)e->ar.to;
		m.opcode = RDMAP_ATOMIC_RESP;
		m.ddp.qn = DDP_QN_ATOMIC_RESP;
		m.ddp.msn = qp->tx_msn[DDP_QN_ATOMIC_RESP];
		m.ddp.last = true;
		m.u.atomic_resp.req_id = e->ar.req_id;
		m.u.atomic_resp.orig = atomic_run(word, e->ar.aopcode,
						  e->ar.add_swap,
						  e->ar.add_swap_mask,
						  e->ar.cmp, e->ar.cmp_mask);
		if (tx_frame_build(qp, f, &m, 0) < 0)
			goto local;
		qp->tx_msn[DDP_QN_ATOMIC_RESP]++;
	}
	f->msg_last = m.ddp.last;
	if (!m.ddp.last)
		return 0;
	qp->irq_head = (qp->irq_head + 1) % qp->irq_size;
	qp->irq_count--;
	return 1;

prot:
	/* RFC 5040 §4.8: the Read Request header as it stands now. */
	if (e->kind == IRQ_READ && e->seg_len >= DDP_UNTAGGED_HDR_LEN +
						  RDMAP_READ_REQ_LEN) {
		struct rdmap_read_req rr = e->rr;

		rr.sink_to += e->sent;
		rr.size -= (uint32_t)e->sent;
		rr.src_to += e->sent;
		rdmap_read_req_build(&rr, e->seg + DDP_UNTAGGED_HDR_LEN,
				     RDMAP_READ_REQ_LEN);
	}
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
		 RDMAP_ETYPE_REMOTE_PROT, prot_rdmap_ecode(p), e->seg,
		 e->seg_len);
	return -1;
local:
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
		 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
	return -1;
}

/* Our Terminate: untagged, QN 2 (RFC 5040 §4.8, §5.4). */
static void tx_term(struct iwcm_qp *qp, struct tx_frame *f)
{
	struct rdmap_msg m;

	memset(&m, 0, sizeof(m));
	f->kind = TXF_TERM;
	m.opcode = RDMAP_TERMINATE;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = qp->tx_msn[DDP_QN_TERMINATE]++;
	m.ddp.last = true;
	m.u.term = qp->term;
	f->msg_last = true;
	qp->term_pending = false;
	qp->term_sent = true;
	if (tx_frame_build(qp, f, &m, 0) < 0)
		qp->term_sent = false;
}

/* May the next send work request start (ORD, FENCE)? */
static bool sq_may_start(const struct iwcm_qp *qp, const struct sq_wqe *w)
{
	/* FENCE: after every earlier Read and atomic has completed. */
	if (w->fence && qp->orq_count)
		return false;
	/* RFC 5040 §6.1: never more than ORD outstanding; the rest
	 * waits, and everything behind it (rule 13). */
	if ((w->opcode == IWCM_WR_RDMA_READ || op_is_atomic(w->opcode)) &&
	    qp->orq_count >= qp->ord)
		return false;
	return true;
}

/* Queue frames for as long as there is room and work. */
static void tx_fill(struct iwcm_qp *qp)
{
	for (;;) {
		struct tx_frame *f;
		int r;

		if (qp->term_sent || qp->fin_sent)
			return;
		/* RFC 5044 §7.1.2 rule 4: an MPA v1 responder sends
		 * nothing before the first FPDU arrived. */
		if (qp->wait_first_fpdu && !qp->first_fpdu)
			return;
		f = tx_frame_get(qp);
		if (!f)
			return;
		if (qp->term_pending) {
			tx_term(qp, f);
			return;
		}
		if (qp->state == IWCM_QPS_ERROR)
			return;
		if (!qp->tx_cur) {
			if (qp->irq_count) {
				qp->tx_cur = TXF_IRQ;
			} else if (qp->sq_tx != qp->sq_pi &&
				   sq_may_start(qp, sq_at(qp, qp->sq_tx))) {
				qp->tx_cur = TXF_SQ;
				qp->tx_wqe = sq_at(qp, qp->sq_tx);
				qp->tx_wqe->state = WQE_TX;
			} else {
				return;
			}
		}
		if (qp->tx_cur == TXF_IRQ) {
			r = tx_irq_segment(qp, f);
		} else {
			r = tx_sq_segment(qp, qp->tx_wqe, f);
			if (r > 0) {
				qp->sq_tx++;
				qp->tx_wqe = NULL;
			}
		}
		if (r < 0)
			return;
		if (r > 0)
			qp->tx_cur = 0;
	}
}

/* A frame is on the wire: maybe its work request is done (RFC 5040
 * §5.5 rule 14: a Send or Write completes once DDP passed it on). */
static void tx_frame_done(struct iwcm_qp *qp, struct tx_frame *f)
{
	struct sq_wqe *w = f->wqe;

	free(f->bounce);
	f->bounce = NULL;
	if (f->kind == TXF_TERM) {
		qp_fin(qp);
		return;
	}
	if (f->kind != TXF_SQ || !w)
		return;
	w->frames--;
	if (!w->built || w->frames || w->state == WQE_DONE)
		return;
	if (w->opcode == IWCM_WR_RDMA_READ || op_is_atomic(w->opcode))
		w->state = WQE_WAIT;
	else
		w->state = WQE_DONE;
}

/* Write what is queued, build more, until the socket is full. */
void qp_tx_progress(struct iwcm_qp *qp)
{
	if (qp->fd < 0 || qp->dying)
		return;
	for (;;) {
		ssize_t n;

		tx_fill(qp);
		if (!qp->tx_count)
			break;
		n = mpa_stream_write(qp);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				qp->tx_blocked = true;
				break;
			}
			if (errno == EINTR)
				continue;
			/* The peer reset the connection or went away. */
			qp->tx_count = 0;
			qp->rx_eof = true;
			qp_fatal(qp, QP_R_CLOSED, false, 0, 0, 0, NULL, 0);
			break;
		}
		while (qp->tx_count) {
			struct tx_frame *f = &qp->frames[qp->tx_head];

			if (f->sent < f->wire_len)
				break;
			qp->tx_head = (qp->tx_head + 1) % DP_TX_FRAMES;
			qp->tx_count--;
			tx_frame_done(qp, f);
		}
		if (qp->tx_count) {
			/* Partial write: the socket buffer is full. */
			qp->tx_blocked = true;
			break;
		}
		qp->tx_blocked = false;
	}
	if (!qp->tx_count)
		qp->tx_blocked = false;
	qp_sq_reap(qp);
	qp_close_check(qp);
}

static void qp_tx_kick(struct iwcm_qp *qp)
{
	if (!qp->tx_blocked)
		qp_tx_progress(qp);
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

/*
 * Copy the queued frames that point into [addr, +len) whose octets are
 * not all sent.  The whole frame is copied and its sent count kept, so
 * that a frame begun on the wire still reads as begun: a QP failing
 * later keeps it whole before its Terminate (tx_drop_unsent()).
 */
void qp_tx_detach(struct iwcm_qp *qp, const uint8_t *addr, size_t len)
{
	for (uint32_t i = 0; i < qp->tx_count; i++) {
		struct tx_frame *f =
			&qp->frames[(qp->tx_head + i) % DP_TX_FRAMES];
		size_t skip = f->sent, pos = 0, o = 0;
		bool hit = false;
		uint8_t *b;

		for (size_t j = 0; j < f->n_out && !hit; j++) {
			const uint8_t *p = f->out[j].iov_base;
			size_t l = f->out[j].iov_len;

			if (pos + l > skip && p < addr + len && p + l > addr)
				hit = true;
			pos += l;
		}
		if (!hit || f->sent == f->wire_len)
			continue;
		b = malloc(f->wire_len);
		if (!b) {
			/* Without memory the frame cannot be kept: fail the
			 * stream rather than read freed memory later. */
			qp->tx_count = i;
			qp_fatal(qp, QP_R_LOCAL, false, 0, 0, 0, NULL, 0);
			return;
		}
		for (size_t j = 0; j < f->n_out; j++) {
			memcpy(b + o, f->out[j].iov_base, f->out[j].iov_len);
			o += f->out[j].iov_len;
		}
		free(f->bounce);
		f->bounce = b;
		f->out[0].iov_base = b;
		f->out[0].iov_len = f->wire_len;
		f->n_out = 1;
	}
}

/* ---- receive ---- */

static void rx_fail(struct iwcm_qp *qp, uint8_t layer, uint8_t etype,
		    uint8_t ecode, int status)
{
	if (qp->rx_err)
		return;
	qp->rx_err = true;
	qp->err_layer = layer;
	qp->err_etype = etype;
	qp->err_ecode = ecode;
	if (status)
		qp->err_status = status;
}

static void rx_fail_ddp_tagged(struct iwcm_qp *qp, enum dp_prot p)
{
	uint8_t c;

	/* RFC 5041 §7.2 type 1.  DDP has no code for access rights; as
	 * Linux siw does, such a segment names an invalid STag. */
	switch (p) {
	case DP_PROT_PD:
		c = DDP_ECODE_T_STAG_NOT_ASSOC;
		break;
	case DP_PROT_WRAP:
		c = DDP_ECODE_T_TO_WRAP;
		break;
	case DP_PROT_BOUNDS:
		c = DDP_ECODE_T_BASE_BOUNDS;
		break;
	default:
		c = DDP_ECODE_T_INVALID_STAG;
		break;
	}
	rx_fail(qp, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED, c, 0);
}

static void rx_fail_untagged(struct iwcm_qp *qp, uint8_t code, int status)
{
	rx_fail(qp, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED, code, status);
}

static void rx_fail_op(struct iwcm_qp *qp, uint8_t code)
{
	rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP, code, 0);
}

static struct sq_wqe *orq_head(struct iwcm_qp *qp)
{
	if (!qp->orq_count)
		return NULL;
	return sq_at(qp, qp->orq[qp->orq_head]);
}

static void orq_pop(struct iwcm_qp *qp)
{
	qp->orq_head = (qp->orq_head + 1) % qp->sq_size;
	qp->orq_count--;
}

static bool rq_take(struct iwcm_qp *qp)
{
	struct rq *rq = qp->srq ? &qp->srq->rq : &qp->rq;
	struct rq_wqe *w;

	if (!rq->count)
		return false;
	w = &rq->ring[rq->head];
	qp->recv.wr_id = w->wr_id;
	qp->recv.num_sge = w->num_sge;
	qp->recv.total = w->total;
	memcpy(qp->recv.sge, w->sge, (size_t)w->num_sge * sizeof(*w->sge));
	rq->head = (rq->head + 1) % rq->size;
	rq->count--;
	qp->cur_recv = true;
	qp->recv_len = 0;
	return true;
}

/* RFC 5042: every SGE of a receive buffer is ours to write. */
static bool recv_sges_ok(struct iwcm_qp *qp)
{
	for (int i = 0; i < qp->recv.num_sge; i++) {
		const struct iwcm_sge *s = &qp->recv.sge[i];

		if (s->length &&
		    dp_mr_check(qp_stags(qp), s->lkey, qp->pd, s->addr,
				s->length, IWCM_ACCESS_LOCAL_WRITE,
				NULL) != DP_PROT_OK)
			return false;
	}
	return true;
}

/* RFC 5041 §7.1 untagged checks for a QN 0 segment. */
static void rx_setup_send(struct iwcm_qp *qp, uint32_t plen)
{
	const struct ddp_hdr *d = &qp->msg.ddp;

	if (d->msn != qp->rx_msn[DDP_QN_SEND]) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_RANGE, 0);
		return;
	}
	if (!qp->cur_recv && !rq_take(qp)) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_NOBUF, 0);
		return;
	}
	/* Every segment: the buffer's regions may have gone meanwhile. */
	if (!recv_sges_ok(qp)) {
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
			0, IWCM_WC_LOC_PROT_ERR);
		return;
	}
	if (qp->msg.opcode == RDMAP_IMM_DATA ||
	    qp->msg.opcode == RDMAP_IMM_DATA_SE) {
		/* One segment; a Send of this MSN in progress is a range
		 * error (two messages cannot share it). */
		if (qp->recv_len || d->mo) {
			rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_RANGE, 0);
			return;
		}
		return;
	}
	if (d->mo > qp->recv.total) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MO,
				 IWCM_WC_LOC_LEN_ERR);
		return;
	}
	if (plen > qp->recv.total - d->mo) {
		rx_fail_untagged(qp, DDP_ECODE_U_TOO_LONG,
				 IWCM_WC_LOC_LEN_ERR);
		return;
	}
	qp->dst_off = d->mo;
	qp->data_left = plen;
}

static void rx_setup_write(struct iwcm_qp *qp, uint32_t plen)
{
	const struct ddp_hdr *d = &qp->msg.ddp;
	enum dp_prot p;

	qp->write_open = true;
	qp->write_len += plen;
	/* RFC 5041 §5.2: a zero-length segment is never checked. */
	if (!plen)
		return;
	p = dp_mr_check(qp_stags(qp), d->stag, qp->pd, d->to, plen,
			IWCM_ACCESS_REMOTE_WRITE, NULL);
	if (p != DP_PROT_OK) {
		rx_fail_ddp_tagged(qp, p);
		return;
	}
	qp->dst = (uint8_t *)(uintptr_t)d->to;
	qp->data_left = plen;
}

static void rx_setup_read_resp(struct iwcm_qp *qp, uint32_t plen)
{
	const struct ddp_hdr *d = &qp->msg.ddp;
	struct sq_wqe *w = orq_head(qp);
	uint64_t base;

	/* RFC 5040 §5.2.2: a response answers the oldest request, once
	 * that request is out. */
	if (!w || w->opcode != IWCM_WR_RDMA_READ || w->state != WQE_WAIT) {
		rx_fail_op(qp, RDMAP_ECODE_UNEXPECTED_OP);
		return;
	}
	if (!plen)
		return;
	/* RFC 5040 §5.2.2 "MAY validate": only the sink of this Read. */
	base = w->num_sge ? w->sge[0].addr : 0;
	if (!w->num_sge || d->stag != w->sge[0].lkey) {
		rx_fail_ddp_tagged(qp, DP_PROT_INVALID_STAG);
		return;
	}
	if (plen > UINT64_MAX - d->to) {
		rx_fail_ddp_tagged(qp, DP_PROT_WRAP);
		return;
	}
	if (d->to < base || d->to - base > w->total ||
	    plen > w->total - (d->to - base)) {
		rx_fail_ddp_tagged(qp, DP_PROT_BOUNDS);
		return;
	}
	if (dp_mr_check(qp_stags(qp), d->stag, qp->pd, d->to, plen,
			IWCM_ACCESS_LOCAL_WRITE, NULL) != DP_PROT_OK) {
		/* Our region went away under the Read. */
		w->status = IWCM_WC_LOC_PROT_ERR;
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
			0, 0);
		return;
	}
	qp->dst = (uint8_t *)(uintptr_t)d->to;
	qp->data_left = plen;
}

/* RFC 5040 §7.2 and RFC 7306 §8.2 on a Read or Atomic Request. */
static void rx_setup_request(struct iwcm_qp *qp)
{
	const struct rdmap_msg *m = &qp->msg;
	enum dp_prot p = DP_PROT_OK;

	if (m->ddp.msn != qp->rx_msn[DDP_QN_READ_REQ]) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_RANGE, 0);
		return;
	}
	/* RFC 5040 §6.1: never more than IRD; the peer ran out of our
	 * QN 1 buffers (as Linux siw reports it). */
	if (qp->irq_count >= qp->ird) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_NOBUF, 0);
		return;
	}
	if (m->opcode == RDMAP_READ_REQ) {
		const struct rdmap_read_req *r = &m->u.read_req;

		/* §5.2.1: a zero-length Read is never validated. */
		if (r->size)
			p = dp_mr_check(qp_stags(qp), r->src_stag, qp->pd,
					r->src_to, r->size,
					IWCM_ACCESS_REMOTE_READ, NULL);
	} else {
		const struct rdmap_atomic_req *a = &m->u.atomic_req;

		/* §5.2.1 rule 4: an AOpCode we do not know. */
		if (a->aopcode > RDMAP_AOP_CMPSWAP) {
			rx_fail_op(qp, RDMAP_ECODE_UNEXPECTED_OP);
			return;
		}
		p = dp_mr_check(qp_stags(qp), a->stag, qp->pd, a->to, 8,
				IWCM_ACCESS_REMOTE_ATOMIC, NULL);
		/* §8.2: unaligned is "Catastrophic error, localized". */
		if (p == DP_PROT_OK && (a->to & 7)) {
			rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
			return;
		}
	}
	if (p != DP_PROT_OK)
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
			prot_rdmap_ecode(p), 0);
}

static void rx_setup_atomic_resp(struct iwcm_qp *qp)
{
	const struct rdmap_msg *m = &qp->msg;
	struct sq_wqe *w = orq_head(qp);

	if (m->ddp.msn != qp->rx_msn[DDP_QN_ATOMIC_RESP]) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_RANGE, 0);
		return;
	}
	if (!w || !op_is_atomic(w->opcode) || w->state != WQE_WAIT ||
	    w->req_id != m->u.atomic_resp.req_id)
		rx_fail_op(qp, RDMAP_ECODE_UNEXPECTED_OP);
}

/* Map an rdmap_msg_parse() failure to its Terminate. */
static void rx_fail_parse(struct iwcm_qp *qp, enum wire_err e)
{
	if (e == WIRE_EOPCODE)
		rx_fail_op(qp, RDMAP_ECODE_UNEXPECTED_OP);
	else
		rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
}

static bool op_hdr_only(uint8_t op)
{
	return op == RDMAP_READ_REQ || op == RDMAP_TERMINATE ||
	       op == RDMAP_IMM_DATA || op == RDMAP_IMM_DATA_SE ||
	       op == RDMAP_ATOMIC_REQ || op == RDMAP_ATOMIC_RESP ||
	       op > RDMAP_ATOMIC_RESP;
}

/* The segment's header is in hbuf: check it, find the payload's home. */
static void rx_header(struct iwcm_qp *qp)
{
	struct ddp_hdr d;
	size_t dlen = ddp_hdr_len(qp->hbuf[0]), used;
	uint8_t op = qp->hbuf[1] & RDMAP_OPCODE_MASK;
	enum wire_err e;
	uint32_t plen;

	if (qp->hlen == 2 && qp->ulpdu_len > 2) {
		/* Now read the whole header (the ULPDU for header-only
		 * messages, which RFC 5040/7306 fix at a few octets). */
		if (op_hdr_only(op) && qp->ulpdu_len <= DP_HBUF_LEN)
			qp->hneed = qp->ulpdu_len;
		else
			qp->hneed = dlen < qp->ulpdu_len ? dlen :
							   qp->ulpdu_len;
		if (qp->hneed > qp->hlen)
			return;
	}
	qp->rx_phase = RXP_DISCARD;
	qp->data_left = qp->ulpdu_len - (uint32_t)qp->hlen;
	memset(&qp->msg, 0, sizeof(qp->msg));

	/* RFC 5041 §7.1: the DDP fields first. */
	if (ddp_hdr_parse(qp->hbuf, qp->hlen, &d, &used) != WIRE_OK) {
		rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
		return;
	}
	if (d.dv != qp->ddp_version) {
		if (d.tagged)
			rx_fail(qp, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
				DDP_ECODE_T_INVALID_VERSION, 0);
		else
			rx_fail_untagged(qp, DDP_ECODE_U_INVALID_VERSION, 0);
		return;
	}
	if (!d.tagged && d.qn > DDP_QN_ATOMIC_RESP) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_QN, 0);
		return;
	}
	/* RFC 5040 §7.2: then the opcode and the RDMAP version. */
	if (op_hdr_only(op) && qp->ulpdu_len > DP_HBUF_LEN)
		e = op > RDMAP_ATOMIC_RESP ? WIRE_EOPCODE : WIRE_ELEN;
	else
		e = rdmap_msg_parse(qp->hbuf, qp->hlen, &qp->msg);
	if (e != WIRE_OK) {
		rx_fail_parse(qp, e);
		return;
	}
	if (qp->msg.rv != qp->version) {
		rx_fail_op(qp, RDMAP_ECODE_INVALID_VERSION);
		return;
	}
	/* RFC 7306 §4.1: the new opcodes only where they were agreed. */
	if (((op == RDMAP_ATOMIC_REQ || op == RDMAP_ATOMIC_RESP) &&
	     !qp->atomics) ||
	    ((op == RDMAP_IMM_DATA || op == RDMAP_IMM_DATA_SE) &&
	     !qp->imm_data)) {
		rx_fail_op(qp, RDMAP_ECODE_UNEXPECTED_OP);
		return;
	}

	plen = qp->ulpdu_len - (uint32_t)qp->hlen;
	qp->data_left = 0;
	qp->dst = NULL;
	switch (op) {
	case RDMAP_WRITE:
		rx_setup_write(qp, plen);
		break;
	case RDMAP_READ_RESP:
		rx_setup_read_resp(qp, plen);
		break;
	case RDMAP_SEND:
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_SE_INV:
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		rx_setup_send(qp, plen);
		break;
	case RDMAP_READ_REQ:
	case RDMAP_ATOMIC_REQ:
		rx_setup_request(qp);
		break;
	case RDMAP_ATOMIC_RESP:
		rx_setup_atomic_resp(qp);
		break;
	default:
		break;
	}
	if (qp->rx_err) {
		qp->data_left = plen;
		return;
	}
	qp->rx_phase = RXP_DATA;
}

/* An FPDU began: its ULPDU is one DDP segment. */
static void rx_start(struct iwcm_qp *qp, uint16_t ulpdu_len)
{
	qp->ulpdu_len = ulpdu_len;
	qp->hlen = 0;
	/* A Terminate copies headers from here: no stale octets. */
	memset(qp->hbuf, 0, DDP_UNTAGGED_HDR_LEN + RDMAP_ATOMIC_REQ_LEN);
	qp->rx_err = false;
	qp->err_status = 0;
	qp->data_left = 0;
	if (ulpdu_len < 2) {
		/* No room for a DDP header. */
		rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
		qp->rx_phase = RXP_DISCARD;
		qp->data_left = ulpdu_len;
		return;
	}
	qp->hneed = 2;
	qp->rx_phase = RXP_HDR;
}

static void rx_deliver_send(struct iwcm_qp *qp)
{
	const struct rdmap_msg *m = &qp->msg;
	struct iwcm_wc wc;
	uint64_t end = (uint64_t)m->ddp.mo + (qp->ulpdu_len - qp->hlen);
	uint8_t op = m->opcode;

	if (end > qp->recv_len)
		qp->recv_len = end;
	if (!m->ddp.last)
		return;
	memset(&wc, 0, sizeof(wc));
	wc.wr_id = qp->recv.wr_id;
	wc.opcode = IWCM_WC_RECV;
	/* RFC 5041 §5.4: the message length is MO + length of the last
	 * segment. */
	wc.byte_len = (uint32_t)end;
	if (op == RDMAP_SEND_SE || op == RDMAP_SEND_SE_INV)
		wc.wc_flags |= IWCM_WC_SOLICITED;
	if (op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV) {
		struct iwcm_mr *mr = dp_stag_lookup(qp_stags(qp), m->inv_stag);

		/* RFC 5040 §5.3, §7.2 checks 4-5. */
		if (!mr || !mr->valid) {
			rx_fail(qp, RDMAP_TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_PROT,
				RDMAP_ECODE_INVALID_STAG,
				IWCM_WC_LOC_PROT_ERR);
			return;
		}
		/*
		 * Check 5 failed.  RFC 5040 §5.3 names the code for exactly
		 * this case: "issue a Terminate Message with the STag Cannot
		 * be Invalidated Terminate Error Code, if the STag is not
		 * associated with the RDMAP Stream" (Figure 9: 0/1/0x09).
		 */
		if (mr->pd != qp->pd) {
			rx_fail(qp, RDMAP_TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_PROT,
				RDMAP_ECODE_CANT_INVALIDATE,
				IWCM_WC_LOC_PROT_ERR);
			return;
		}
		mr->valid = false;
		wc.wc_flags |= IWCM_WC_WITH_INV;
		wc.invalidated_stag = m->inv_stag;
	}
	qp->cur_recv = false;
	qp->rx_msn[DDP_QN_SEND]++;
	qp_recv_complete(qp, &wc);
}

static void rx_deliver_imm(struct iwcm_qp *qp)
{
	struct iwcm_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = qp->recv.wr_id;
	/* RFC 7306 §6: after a Write this is Write with Immediate. */
	if (qp->last_was_write) {
		wc.opcode = IWCM_WC_RECV_RDMA_WITH_IMM;
		wc.byte_len = (uint32_t)qp->last_write_len;
	} else {
		wc.opcode = IWCM_WC_RECV_IMM_DATA;
	}
	wc.wc_flags = IWCM_WC_WITH_IMM;
	if (qp->msg.opcode == RDMAP_IMM_DATA_SE)
		wc.wc_flags |= IWCM_WC_SOLICITED;
	wc.imm_data = be64_get(qp->msg.u.imm);
	qp->cur_recv = false;
	qp->rx_msn[DDP_QN_SEND]++;
	qp_recv_complete(qp, &wc);
}

static void rx_queue_request(struct iwcm_qp *qp)
{
	struct irq_entry *e;

	if (qp->irq_size < qp->ird && qp->irq_count == qp->irq_size) {
		uint32_t n = qp->irq_size ? qp->irq_size * 2 : 16;
		struct irq_entry *q;

		if (n > qp->ird)
			n = qp->ird;
		q = calloc(n, sizeof(*q));
		if (!q) {
			qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
				 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
			return;
		}
		for (uint32_t i = 0; i < qp->irq_count; i++)
			q[i] = qp->irq[(qp->irq_head + i) % qp->irq_size];
		free(qp->irq);
		qp->irq = q;
		qp->irq_size = n;
		qp->irq_head = 0;
	}
	e = &qp->irq[(qp->irq_head + qp->irq_count) % qp->irq_size];
	memset(e, 0, sizeof(*e));
	if (qp->msg.opcode == RDMAP_READ_REQ) {
		e->kind = IRQ_READ;
		e->rr = qp->msg.u.read_req;
	} else {
		e->kind = IRQ_ATOMIC;
		e->ar = qp->msg.u.atomic_req;
	}
	e->seg_len = qp->hlen < sizeof(e->seg) ? qp->hlen : sizeof(e->seg);
	memcpy(e->seg, qp->hbuf, e->seg_len);
	qp->irq_count++;
	qp->rx_msn[DDP_QN_READ_REQ]++;
}

/* A Terminate from the peer (RFC 5040 §5.4, §7): which request it hit,
 * with what status. */
static void rx_terminate(struct iwcm_qp *qp)
{
	const struct rdmap_term *t = &qp->msg.u.term;
	struct sq_wqe *w = NULL;
	int status = IWCM_WC_REM_OP_ERR;

	if (t->layer == RDMAP_TERM_LAYER_RDMAP &&
	    t->etype == RDMAP_ETYPE_REMOTE_PROT)
		status = IWCM_WC_REM_ACCESS_ERR;
	else if (t->layer == RDMAP_TERM_LAYER_DDP &&
		 t->etype == DDP_ETYPE_TAGGED)
		status = IWCM_WC_REM_ACCESS_ERR;
	else if (t->layer == RDMAP_TERM_LAYER_DDP &&
		 t->etype == DDP_ETYPE_UNTAGGED)
		status = IWCM_WC_REM_INV_REQ_ERR;

	/* The terminated header names a request of ours by its QN 1 MSN;
	 * otherwise the oldest request still waiting takes the blame. */
	if ((t->hdrct & RDMAP_TERM_HDRCT_D) &&
	    t->ddp_hdr_len == DDP_UNTAGGED_HDR_LEN) {
		struct ddp_hdr d;
		size_t used;

		if (ddp_hdr_parse(t->ddp_hdr, t->ddp_hdr_len, &d, &used) ==
			    WIRE_OK &&
		    d.qn == DDP_QN_READ_REQ) {
			for (uint32_t i = 0; i < qp->orq_count; i++) {
				struct sq_wqe *x = sq_at(
					qp, qp->orq[(qp->orq_head + i) %
						    qp->sq_size]);

				if (x->req_msn == d.msn) {
					w = x;
					break;
				}
			}
		}
	}
	if (!w)
		w = orq_head(qp);
	if (w) {
		w->state = WQE_DONE;
		w->status = status;
		w->vendor_err = (uint32_t)t->layer << 16 |
				(uint32_t)t->etype << 8 | t->ecode;
	}
	qp->rx_msn[DDP_QN_TERMINATE]++;
	qp_fatal(qp, QP_R_TERM, false, t->layer, t->etype, t->ecode, NULL, 0);
}

static void rx_deliver_atomic_resp(struct iwcm_qp *qp)
{
	struct sq_wqe *w = orq_head(qp);
	uint64_t orig = qp->msg.u.atomic_resp.orig;
	const struct iwcm_sge *s = &w->sge[0];

	qp->rx_msn[DDP_QN_ATOMIC_RESP]++;
	orq_pop(qp);
	if (dp_mr_check(qp_stags(qp), s->lkey, qp->pd, s->addr, 8,
			IWCM_ACCESS_LOCAL_WRITE, NULL) != DP_PROT_OK) {
		sq_local_error(qp, w, IWCM_WC_LOC_PROT_ERR);
		return;
	}
	/* RFC 7306 §5.1: returned in the endian format of our memory. */
	memcpy((void *)(uintptr_t)s->addr, &orig, sizeof(orig));
	w->state = WQE_DONE;
}

/* The FPDU is complete and its CRC and markers are right: deliver. */
static void rx_end(struct iwcm_qp *qp, const struct mpa_rx_ev *ev)
{
	const struct rdmap_msg *m = &qp->msg;
	bool first = !qp->first_fpdu;

	if (qp->rx_dead)
		return;
	/* RFC 5044 §8: a bad CRC or marker is an LLP error. */
	if (!ev->crc_ok || !ev->markers_ok) {
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP,
			 MPA_ETYPE_MPA,
			 ev->crc_ok ? MPA_ECODE_MARKER : MPA_ECODE_CRC, NULL,
			 0);
		return;
	}
	qp->first_fpdu = true;
	qp->rx_phase = RXP_CTRL;
	if (qp->rx_err) {
		/* RFC 5040 §7.1 cases 2-3: the offending segment's
		 * headers go back in the Terminate. */
		qp_fatal(qp, QP_R_LOCAL, true, qp->err_layer, qp->err_etype,
			 qp->err_ecode, qp->hbuf, qp->ulpdu_len);
		return;
	}
	if (!m->ddp.tagged && m->opcode != RDMAP_IMM_DATA &&
	    m->opcode != RDMAP_IMM_DATA_SE)
		qp->last_was_write = false;
	switch (m->opcode) {
	case RDMAP_WRITE:
		if (m->ddp.last) {
			qp->last_was_write = true;
			qp->last_write_len = qp->write_len;
			qp->write_len = 0;
			qp->write_open = false;
		}
		break;
	case RDMAP_READ_RESP:
		if (m->ddp.last) {
			struct sq_wqe *w = orq_head(qp);

			/* RFC 5040 §5.5 rule 19: complete at delivery. */
			orq_pop(qp);
			w->state = WQE_DONE;
			qp_sq_reap(qp);
		}
		break;
	case RDMAP_SEND:
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE:
	case RDMAP_SEND_SE_INV:
		rx_deliver_send(qp);
		if (qp->rx_err)
			qp_fatal(qp, QP_R_LOCAL, true, qp->err_layer,
				 qp->err_etype, qp->err_ecode, qp->hbuf,
				 qp->ulpdu_len);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		rx_deliver_imm(qp);
		qp->last_was_write = false;
		break;
	case RDMAP_READ_REQ:
	case RDMAP_ATOMIC_REQ:
		/* RFC 5040 §5.5 rule 12: processed once delivered. */
		rx_queue_request(qp);
		break;
	case RDMAP_ATOMIC_RESP:
		rx_deliver_atomic_resp(qp);
		qp_sq_reap(qp);
		break;
	case RDMAP_TERMINATE:
		rx_terminate(qp);
		return;
	default:
		break;
	}
	if (first || qp->irq_count || qp->sq_tx != qp->sq_pi)
		qp_tx_kick(qp);
}

/* Scatter list for the next octets of an untagged message at offset
 * off of its receive buffers. */
static int recv_iov(const struct iwcm_qp *qp, uint64_t off, size_t want,
		    struct iovec *iov, int cap)
{
	uint64_t pos = 0;
	int n = 0;

	for (int i = 0; i < qp->recv.num_sge && want && n < cap; i++) {
		const struct iwcm_sge *s = &qp->recv.sge[i];
		uint64_t a, k;

		if (pos + s->length <= off) {
			pos += s->length;
			continue;
		}
		a = off - pos;
		k = s->length - a;
		if (k > want)
			k = want;
		iov[n].iov_base = (uint8_t *)(uintptr_t)s->addr + a;
		iov[n].iov_len = (size_t)k;
		n++;
		off += k;
		want -= (size_t)k;
		pos += s->length;
	}
	return n;
}

/* Payload octets that came in the staging buffer: copy them home. */
static void rx_place(struct iwcm_qp *qp, const uint8_t *p, size_t k)
{
	if (qp->dst) {
		memcpy(qp->dst, p, k);
		qp->dst += k;
	} else {
		struct iovec iov[DP_MAX_RX_IOV];
		int cnt = recv_iov(qp, qp->dst_off, k, iov, DP_MAX_RX_IOV);

		for (int i = 0; i < cnt; i++) {
			memcpy(iov[i].iov_base, p, iov[i].iov_len);
			p += iov[i].iov_len;
		}
		qp->dst_off += k;
	}
	qp->data_left -= (uint32_t)k;
}

/* ULPDU octets the decoder handed out of the staging buffer: header
 * octets to hbuf, payload to its target, a rejected segment's to
 * nowhere. */
static void rx_route(struct iwcm_qp *qp, const uint8_t *p, size_t len)
{
	while (len && !qp->rx_dead) {
		size_t k;

		switch (qp->rx_phase) {
		case RXP_HDR:
			k = qp->hneed - qp->hlen;
			if (k > len)
				k = len;
			memcpy(qp->hbuf + qp->hlen, p, k);
			qp->hlen += k;
			if (qp->hlen == qp->hneed)
				rx_header(qp);
			break;
		case RXP_DATA:
		case RXP_DISCARD:
			k = qp->data_left < len ? qp->data_left : len;
			if (!k)
				goto broken;
			if (qp->rx_phase == RXP_DATA)
				rx_place(qp, p, k);
			else
				qp->data_left -= (uint32_t)k;
			break;
		default:
			goto broken;
		}
		p += k;
		len -= k;
	}
	return;
broken:
	/* The decoder and the segment disagree on the ULPDU length. */
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
		 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
}

/*
 * Feed octets already read to the MPA decoder and act on its events.
 * ULPDU octets are routed (copied from a staging buffer) unless they were
 * read straight into their target (placed).
 */
static void rx_feed(struct iwcm_qp *qp, const uint8_t *buf, size_t n,
		    bool placed)
{
	size_t off = 0;

	while (off < n && !qp->rx_dead) {
		struct mpa_rx_ev ev;
		size_t used;

		mpa_rx_step(&qp->rx, buf + off, n - off, &used, &ev);
		off += used;
		switch (ev.type) {
		case MPA_RX_EV_START:
			rx_start(qp, ev.ulpdu_len);
			break;
		case MPA_RX_EV_DATA:
			if (!placed)
				rx_route(qp, ev.data, ev.len);
			break;
		case MPA_RX_EV_END:
			rx_end(qp, &ev);
			break;
		case MPA_RX_EV_ERROR:
			qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP,
				 MPA_ETYPE_MPA, MPA_ECODE_LOCAL_CATASTROPHIC,
				 NULL, 0);
			return;
		default:
			if (!used)
				return;
			break;
		}
	}
}

/*
 * How many octets to read into the staging buffer: the framing the
 * decoder needs, plus what certainly follows and is no payload of a
 * larger segment (the next ULPDU_Length and the 14 octets every DDP
 * header has), plus the rest of a segment whose payload is small
 * enough to copy (cheaper than another system call).  At the start of a
 * segment the read asks for a whole small segment (DP_RX_AHEAD): one
 * read per small message, the price being that up to that many octets
 * of a larger segment's payload are copied rather than read in place.
 */
static size_t rx_want(const struct iwcm_qp *qp, size_t need)
{
	size_t tail = mpa_pad_len(qp->ulpdu_len) + MPA_CRC_LEN + MPA_HDR_LEN +
		      DDP_TAGGED_HDR_LEN;

	if (need) {
		if (qp->rx_phase == RXP_CTRL)
			return need + DP_RX_AHEAD;
		if (qp->rx_phase != RXP_HDR && !qp->data_left)
			return need + MPA_HDR_LEN + DDP_TAGGED_HDR_LEN;
		return need;
	}
	switch (qp->rx_phase) {
	case RXP_HDR:
		if (qp->ulpdu_len <= DP_RX_INLINE ||
		    qp->hneed == qp->ulpdu_len)
			return qp->ulpdu_len - qp->hlen + tail;
		return qp->hneed - qp->hlen;
	default:
		return qp->data_left + tail;
	}
}

enum rx_gather_res {
	RXG_NONE,			/* no payload ahead: framing first */
	RXG_READ,			/* a read was made, *nread says how */
	RXG_FATAL,			/* the QP failed */
};

/*
 * Zero copy (RFC 5041 §5 placement): read the payload ahead straight into
 * its target and the Markers between its pieces (RFC 5044 §4.3) into a
 * scratch array, in one gathered read; the decoder then checks what was
 * read where it lies (CRC over the placed octets).
 */
static enum rx_gather_res rx_gather(struct iwcm_qp *qp, ssize_t *nread,
				     size_t *asked)
{
	struct mpa_rx_run runs[DP_RX_READV_IOV / 2];
	uint8_t mk[DP_RX_READV_IOV / 2][MPA_MARKER_LEN];
	struct iovec iov[DP_RX_READV_IOV];
	bool is_mk[DP_RX_READV_IOV];
	size_t nr, data_off = 0;
	int cnt = 0;
	ssize_t n;

	nr = mpa_rx_data_runs(&qp->rx, qp->data_left, runs,
			      sizeof(runs) / sizeof(runs[0]));
	for (size_t i = 0; i < nr && cnt < DP_RX_READV_IOV; i++) {
		int k = 1;

		if (runs[i].marker) {
			/* A read never ends on a Marker. */
			if (cnt + 1 == DP_RX_READV_IOV)
				break;
			iov[cnt].iov_base = mk[i];
			iov[cnt].iov_len = runs[i].len;
		} else if (qp->dst) {
			iov[cnt].iov_base = qp->dst + data_off;
			iov[cnt].iov_len = runs[i].len;
		} else {
			k = recv_iov(qp, qp->dst_off + data_off, runs[i].len,
				     iov + cnt, DP_RX_READV_IOV - cnt);
			if (!k) {
				qp_fatal(qp, QP_R_LOCAL, true,
					 RDMAP_TERM_LAYER_RDMAP,
					 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
				return RXG_FATAL;
			}
		}
		for (int j = 0; j < k; j++) {
			is_mk[cnt + j] = runs[i].marker;
			if (!runs[i].marker)
				data_off += iov[cnt + j].iov_len;
		}
		cnt += k;
	}
	if (!cnt)
		return RXG_NONE;
	*asked = 0;
	for (int i = 0; i < cnt; i++)
		*asked += iov[i].iov_len;
	n = mpa_stream_readv(qp, iov, cnt);
	*nread = n;
	for (int i = 0; i < cnt && n > 0; i++) {
		size_t k = iov[i].iov_len < (size_t)n ? iov[i].iov_len :
							(size_t)n;

		if (!is_mk[i]) {
			qp->data_left -= (uint32_t)k;
			if (qp->dst)
				qp->dst += k;
			else
				qp->dst_off += k;
		}
		rx_feed(qp, iov[i].iov_base, k, true);
		n -= (ssize_t)k;
	}
	return RXG_READ;
}

static void rx_closed(struct iwcm_qp *qp)
{
	qp->rx_eof = true;
	qp_fatal(qp, QP_R_CLOSED, false, 0, 0, 0, NULL, 0);
}

/* Read and act on what the socket has (and the handoff's octets).
 * Returns false when the socket had nothing at all (EAGAIN at once). */
bool qp_rx_progress(struct iwcm_qp *qp)
{
	size_t budget = QP_RX_BUDGET;

	if (qp->fd < 0 || qp->dying)
		return false;
	while (!qp->rx_eof && budget) {
		size_t need, room, want;
		bool sock = qp->unread_off >= qp->unread_len;
		ssize_t n;

		if (qp->rx_dead) {
			/* RFC 5041 §7.1: later segments are dropped. */
			n = mpa_stream_read(qp, qp->stage, DP_STAGE_LEN);
			if (n <= 0)
				goto rd;
			budget -= budget < (size_t)n ? budget : (size_t)n;
			continue;
		}
		need = mpa_rx_ctrl_need(&qp->rx);
		room = mpa_rx_data_room(&qp->rx);
		if (!need && !room) {
			/* The decoder is dead (a start inside a marker). */
			qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP,
				 MPA_ETYPE_MPA, MPA_ECODE_MARKER, NULL, 0);
			return true;
		}
		if (qp->rx_phase == RXP_DATA && qp->ulpdu_len > DP_RX_INLINE) {
			switch (rx_gather(qp, &n, &want)) {
			case RXG_FATAL:
				return true;
			case RXG_READ:
				if (n <= 0)
					goto rd;
				budget -= budget < (size_t)n ? budget :
							       (size_t)n;
				/* A short read from the socket emptied it:
				 * the poll says when more comes, no read
				 * to see EAGAIN. */
				if (sock && (size_t)n < want)
					goto out;
				continue;
			case RXG_NONE:
				break;
			}
		}
		want = rx_want(qp, need);
		if (want > DP_STAGE_LEN)
			want = DP_STAGE_LEN;
		n = mpa_stream_read(qp, qp->stage, want);
		if (n <= 0)
			goto rd;
		budget -= budget < (size_t)n ? budget : (size_t)n;
		rx_feed(qp, qp->stage, (size_t)n, false);
		if (sock && (size_t)n < want)
			goto out;
		continue;
rd:
		if (n == 0) {
			rx_closed(qp);
			return true;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			rx_closed(qp);
		else if (budget == QP_RX_BUDGET)
			return false;	/* nothing came: nothing changed */
		break;
	}
out:
	if (qp->state != IWCM_QPS_ERROR)
		qp_tx_kick(qp);
	qp_sq_reap(qp);
	qp_close_check(qp);
	return true;
}

static bool overlaps(const uint8_t *p, uint64_t l, const uint8_t *a,
		     size_t len)
{
	return l && p < a + len && a < p + l;
}

/* A memory region goes away while a segment is being placed into it:
 * the rest of the segment is dropped and the QP fails at its end. */
void qp_rx_detach(struct iwcm_qp *qp, const uint8_t *addr, size_t len)
{
	bool hit = false;

	if (qp->rx_phase != RXP_DATA || !qp->data_left)
		return;
	if (qp->dst) {
		hit = overlaps(qp->dst, qp->data_left, addr, len);
	} else {
		for (int i = 0; i < qp->recv.num_sge && !hit; i++)
			hit = overlaps((const uint8_t *)(uintptr_t)
					       qp->recv.sge[i].addr,
				       qp->recv.sge[i].length, addr, len);
	}
	if (!hit)
		return;
	qp->rx_phase = RXP_DISCARD;
	qp->dst = NULL;
	if (qp->msg.ddp.tagged)
		rx_fail_ddp_tagged(qp, DP_PROT_INVALID_STAG);
	else
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC,
			0, IWCM_WC_LOC_PROT_ERR);
}

/* Drop this QP's completions from a CQ. */
void qp_cq_purge(struct iwcm_cq *cq, const struct iwcm_qp *qp)
{
	uint32_t n = 0;

	pthread_mutex_lock(&cq->lock);
	for (uint32_t i = 0; i < cq->count; i++) {
		struct iwcm_wc *w = &cq->ring[(cq->head + i) % cq->size];

		if (w->qp != qp)
			cq->ring[(cq->head + n++) % cq->size] = *w;
	}
	__atomic_store_n(&cq->count, n, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cq->lock);
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
