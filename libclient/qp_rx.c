/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The receive side of a queue pair: the framing octets and the DDP/RDMAP
 * headers of a segment are read into small buffers; once the header
 * passed every RFC 5041 §7.1, RFC 5040 §7.2 and RFC 5042 check, the
 * payload is read straight into its target.  The CRC covers what was
 * placed; nothing is delivered (completed, invalidated, answered) before
 * the FPDU's CRC matched.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

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

	if (qp->srq)
		pthread_mutex_lock(&qp->srq->lock);
	if (!rq->count) {
		if (qp->srq)
			pthread_mutex_unlock(&qp->srq->lock);
		return false;
	}
	w = &rq->ring[rq->head];
	qp->recv.wr_id = w->wr_id;
	qp->recv.num_sge = w->num_sge;
	qp->recv.total = w->total;
	memcpy(qp->recv.sge, w->sge, (size_t)w->num_sge * sizeof(*w->sge));
	rq->head = (rq->head + 1) % rq->size;
	rq->count--;
	if (qp->srq)
		pthread_mutex_unlock(&qp->srq->lock);
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
			dp_prot_rdmap_ecode(p), 0);
}

static void rx_setup_atomic_resp(struct iwcm_qp *qp)
{
	const struct rdmap_msg *m = &qp->msg;
	struct sq_wqe *w = orq_head(qp);

	if (m->ddp.msn != qp->rx_msn[DDP_QN_ATOMIC_RESP]) {
		rx_fail_untagged(qp, DDP_ECODE_U_INVALID_MSN_RANGE, 0);
		return;
	}
	if (!w || !dp_op_is_atomic(w->opcode) || w->state != WQE_WAIT ||
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
		struct iwcm_mr *mr;

		pthread_rwlock_wrlock(&qp_stags(qp)->lock);
		mr = dp_stag_lookup(qp_stags(qp), m->inv_stag);
		/* RFC 5040 §5.3, §7.2 checks 4-5. */
		if (!mr || !mr->valid) {
			pthread_rwlock_unlock(&qp_stags(qp)->lock);
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
			pthread_rwlock_unlock(&qp_stags(qp)->lock);
			rx_fail(qp, RDMAP_TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_PROT,
				RDMAP_ECODE_CANT_INVALIDATE,
				IWCM_WC_LOC_PROT_ERR);
			return;
		}
		mr->valid = false;
		pthread_rwlock_unlock(&qp_stags(qp)->lock);
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
	wc.imm_data = dp_be64_get(qp->msg.u.imm);
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
		qp_sq_local_error(qp, w, IWCM_WC_LOC_PROT_ERR);
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

	if (!qp_rx_live(qp))
		return;
	/* RFC 5044 §7.1.2 rule 4: the Initiator is in FPDU mode, so an
	 * MPA v1 Responder may send, if only the Terminate of §8. */
	qp->first_fpdu = true;
	/* RFC 5044 §8: a bad CRC or marker is an LLP error. */
	if (!ev->crc_ok || !ev->markers_ok) {
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP,
			 MPA_ETYPE_MPA,
			 ev->crc_ok ? MPA_ECODE_MARKER : MPA_ECODE_CRC, NULL,
			 0);
		return;
	}
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
	while (len && qp_rx_live(qp)) {
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

	while (off < n && qp_rx_live(qp)) {
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

/* The peer's FIN (QP_EV_PEER_EOF) or a reset (QP_EV_RESET). */
static void rx_closed(struct iwcm_qp *qp, enum qp_event ev)
{
	qp_event(qp, ev, NULL);
}

/* Read and act on what the socket has (and the handoff's octets).
 * Returns false when the socket had nothing at all (EAGAIN at once). */
bool qp_rx_progress(struct iwcm_qp *qp)
{
	size_t budget = QP_RX_BUDGET;

	if (qp->fd < 0 || !qp_rx_open(qp))
		return false;
	while (qp_rx_open(qp) && budget) {
		size_t need, room, want;
		bool sock = qp->unread_off >= qp->unread_len;
		ssize_t n;

		if (!qp_rx_live(qp)) {
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
			rx_closed(qp, QP_EV_PEER_EOF);
			return true;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			rx_closed(qp, QP_EV_RESET);
		else if (budget == QP_RX_BUDGET)
			return false;	/* nothing came: nothing changed */
		break;
	}
out:
	if (qp_tx_writes(qp))
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
