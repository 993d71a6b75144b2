/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The transmit side of a queue pair: work requests (and the responses
 * owed to the peer) are cut into DDP segments of at most the framing's
 * MULPDU octets, each handed to the framing (framing.h) as its header and
 * iovecs that point into registered memory; the framing queues a few and
 * writes them together, and gives each back once it is on the wire.
 * Messages are never interleaved: between two messages responses go
 * first, then the send queue in order (RFC 5040 §5.5 rule 13), held back
 * by ORD and FENCE.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"
#include "wbuf.h"

/* A local error on a send work request (RFC 5040 §7.1 case 1). */
void qp_sq_local_error(struct iwcm_qp *qp, struct sq_wqe *w, int status)
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
	f->kind = 0;
	f->msg_last = false;
	f->wqe = NULL;
	return f;
}

/* Build the headers of m and hand the segment (headers, then the n_pay
 * payload pieces in qp->tx_iov[1..]) to the framing. */
static int tx_frame_build(struct iwcm_qp *qp, struct tx_frame *f,
			  struct rdmap_msg *m, size_t n_pay)
{
	size_t hl;

	/* RFC 5041 §4.1, RFC 5040 §4.1: the versions negotiated. */
	m->rv = qp->version;
	m->ddp.dv = qp->ddp_version;
	if (rdmap_hdr_build(m, f->hdr, sizeof(f->hdr), &hl) != WIRE_OK)
		return ERR(EINVAL);
	qp->tx_iov[0].iov_base = f->hdr;
	qp->tx_iov[0].iov_len = hl;
	if (framing_tx_segment(qp->fr, qp->tx_iov, 1 + n_pay, f) < 0)
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
	return dp_mr_check(qp_stags(qp), w->sge[0].lkey, qp->pd, w->sge[0].addr,
			   w->sge[0].length, IWCM_ACCESS_LOCAL_WRITE,
			   NULL) == DP_PROT_OK;
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
		n = sq_payload(qp, w, w->sent, len, qp->tx_iov + 1);
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
		n = sq_payload(qp, w, w->sent, len, qp->tx_iov + 1);
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
		wire_put_be64(m.u.imm, w->imm);
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
	qp_sq_local_error(qp, w, IWCM_WC_LOC_PROT_ERR);
	return -1;
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
			qp->tx_iov[1].iov_base =
				(uint8_t *)(uintptr_t)(e->rr.src_to + e->sent);
			qp->tx_iov[1].iov_len = (size_t)len;
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
	if (e->kind == IRQ_READ &&
	    e->seg_len >= DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN) {
		struct rdmap_read_req rr = e->rr;

		rr.sink_to += e->sent;
		rr.size -= (uint32_t)e->sent;
		rr.src_to += e->sent;
		rdmap_read_req_build(&rr, e->seg + DDP_UNTAGGED_HDR_LEN,
				     RDMAP_READ_REQ_LEN);
	}
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_RDMAP,
		 RDMAP_ETYPE_REMOTE_PROT, dp_prot_rdmap_ecode(p), e->seg,
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
	(void)tx_frame_build(qp, f, &m, 0);
}

/* Queue our Terminate behind what is begun (qp_fsm.h QP_A_TERMINATE). */
void qp_tx_term(struct iwcm_qp *qp)
{
	struct tx_frame *f = tx_frame_get(qp);

	if (f)
		tx_term(qp, f);
}

/* May the next send work request start (ORD, FENCE)? */
static bool sq_may_start(const struct iwcm_qp *qp, const struct sq_wqe *w)
{
	/* FENCE: after every earlier Read and atomic has completed (the
	 * Read RTR's too). */
	if (w->fence && (qp->orq_count || qp->rtr_read_due))
		return false;
	/* RFC 5040 §6.1: never more than ORD outstanding, the Read RTR
	 * counted; the rest waits, and everything behind it (rule 13). */
	if ((w->opcode == IWCM_WR_RDMA_READ || dp_op_is_atomic(w->opcode)) &&
	    qp->orq_count + qp->rtr_read_due >= qp->ord)
		return false;
	return true;
}

/* May the framing send yet? */
bool qp_tx_ready(const struct iwcm_qp *qp)
{
	return qp->fr && qp->fr->ops->tx_ready(qp->fr);
}

/* Queue frames for as long as there is room and work. */
static void tx_fill(struct iwcm_qp *qp)
{
	for (;;) {
		struct tx_frame *f;
		int r;

		if (!qp_tx_open(qp))
			return;
		/* E.g. an MPA v1 responder before the first FPDU. */
		if (!qp_tx_ready(qp))
			return;
		f = tx_frame_get(qp);
		if (!f)
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

/* A segment is on the wire (framing upcall; they come back in order):
 * maybe its work request is done (RFC 5040 §5.5 rule 14: a Send or Write
 * completes once DDP passed it on). */
void qp_tx_done(void *arg, void *cookie)
{
	struct iwcm_qp *qp = arg;
	struct tx_frame *f = cookie;
	struct sq_wqe *w = f->wqe;

	if (qp->tx_count && f == &qp->frames[qp->tx_head]) {
		qp->tx_head = (qp->tx_head + 1) % DP_TX_FRAMES;
		qp->tx_count--;
	}
	if (f->kind != TXF_SQ || !w)
		return;
	w->frames--;
	if (!w->built || w->frames || w->state == WQE_DONE)
		return;
	if (w->opcode == IWCM_WR_RDMA_READ || dp_op_is_atomic(w->opcode))
		w->state = WQE_WAIT;
	else
		w->state = WQE_DONE;
}

/* Write what is queued, build more, until the socket is full. */
void qp_tx_progress(struct iwcm_qp *qp)
{
	if (qp->fd < 0 || !qp_tx_writes(qp))
		return;
	for (;;) {
		tx_fill(qp);
		if (!qp->tx_count)
			break;
		/* The framing gives back what went out (qp_tx_done()). */
		if (qp->fr->ops->tx_flush(qp->fr) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				/* The transport is full. */
				qp->tx_blocked = true;
				break;
			}
			/* The peer reset the connection or went away. */
			qp_event(qp, QP_EV_RESET, NULL);
			break;
		}
		qp->tx_blocked = false;
	}
	if (!qp->tx_count)
		qp->tx_blocked = false;
	qp_sq_reap(qp);
	qp_close_check(qp);
}

/* Write what is queued unless the socket is full. */
void qp_tx_kick(struct iwcm_qp *qp)
{
	if (!qp->tx_blocked)
		qp_tx_progress(qp);
}

/* Memory [addr, +len) goes away: the framing copies what it still has
 * to send from there. */
void qp_tx_detach(struct iwcm_qp *qp, const uint8_t *addr, size_t len)
{
	if (!qp->fr || qp->fr->ops->tx_detach(qp->fr, addr, len) == 0)
		return;
	/* Without memory the segment cannot be kept: fail the stream
	 * rather than read freed memory later. */
	qp->tx_count = qp->fr->tx_queued;
	qp_fatal(qp, QP_R_LOCAL, false, 0, 0, 0, NULL, 0);
}
