/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The receive side of a queue pair, RDMAP/DDP over a framing
 * (framing.h): the framing hands up each DDP segment's header; once it
 * passed every RFC 5041 §7.1, RFC 5040 §7.2 and RFC 5042 check, rx_iov()
 * names the payload's target, where the framing moves it however its
 * transport needs.  Nothing is delivered (completed, invalidated,
 * answered) before the framing vouched for the whole segment at its end
 * (RFC 5044 §8: CRC, Markers), and a header-derived error is reported
 * only then, never instead of the framing's.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"
#include "framing.h"
#include "wbuf.h"

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
		qp->seg_status = status;
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
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC, 0,
			IWCM_WC_LOC_PROT_ERR);
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
		rx_fail_untagged(qp, DDP_ECODE_U_TOO_LONG, IWCM_WC_LOC_LEN_ERR);
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

	/* RFC 6581 §9.2: the Read RTR went first, so the first Response
	 * is its own: zero-length, one segment, to its sink (RFC 5040
	 * §4.5), as iwcmd checks when it waits for it itself. */
	if (qp->rtr_read_due) {
		if (plen || !d->last || d->stag != qp->rtr_read_stag ||
		    d->to != qp->rtr_read_to)
			rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
		return;
	}
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
		/* Our region went away under the Read: the Read fails with
		 * this status once the FPDU proved intact (rx_end()). */
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC, 0,
			0);
		qp->seg_sq_status = IWCM_WC_LOC_PROT_ERR;
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

/*
 * How many header octets a segment of seg_len has (framing upcall): the
 * DDP header, whose first octet says tagged or not, or the whole ULPDU of
 * a header-only message, which RFC 5040/7306 fix at a few octets.
 */
static size_t rx_hdr_len(void *arg, const uint8_t *hdr, size_t have,
			 size_t seg_len)
{
	size_t need;

	(void)arg;
	if (seg_len < 2)
		return have; /* no room for a DDP header: rx_hdr() */
	if (have < 2)
		return 2;
	if (op_hdr_only(hdr[1] & RDMAP_OPCODE_MASK) && seg_len <= DP_HBUF_LEN)
		need = seg_len;
	else
		need = ddp_hdr_len(hdr[0]);
	if (need > seg_len)
		need = seg_len;
	return need > have ? need : have;
}

/* A segment's header is in (framing upcall): check it, find the
 * payload's home.  A failed check is recorded and acted upon only at the
 * segment's end, once the framing vouched for it. */
static void rx_hdr(void *arg, const uint8_t *hdr, size_t hlen, size_t seg_len)
{
	struct iwcm_qp *qp = arg;
	uint8_t op = hlen > 1 ? hdr[1] & RDMAP_OPCODE_MASK : 0;
	struct ddp_hdr d;
	enum wire_err e;
	uint32_t plen;
	size_t used;

	qp->seg_len = (uint32_t)seg_len;
	qp->hlen = hlen < DP_HBUF_LEN ? hlen : DP_HBUF_LEN;
	/* A Terminate copies headers from here: no stale octets. */
	memset(qp->hbuf, 0, DDP_UNTAGGED_HDR_LEN + RDMAP_ATOMIC_REQ_LEN);
	memcpy(qp->hbuf, hdr, qp->hlen);
	qp->rx_err = false;
	qp->seg_status = 0;
	qp->seg_sq_status = 0;
	qp->rx_phase = RXP_DISCARD;
	qp->data_left = 0;
	qp->dst = NULL;
	memset(&qp->msg, 0, sizeof(qp->msg));
	if (seg_len < 2) {
		/* No room for a DDP header. */
		rx_fail_op(qp, RDMAP_ECODE_CATASTROPHIC_STREAM);
		return;
	}

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
	if (op_hdr_only(op) && qp->seg_len > DP_HBUF_LEN)
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

	plen = qp->seg_len - (uint32_t)qp->hlen;
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
		/* The payload goes nowhere. */
		qp->data_left = 0;
		qp->dst = NULL;
		return;
	}
	qp->rx_phase = RXP_DATA;
}

static void rx_deliver_send(struct iwcm_qp *qp)
{
	const struct rdmap_msg *m = &qp->msg;
	struct iwcm_wc wc;
	uint64_t end = (uint64_t)m->ddp.mo + (qp->seg_len - qp->hlen);
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
				RDMAP_ECODE_INVALID_STAG, IWCM_WC_LOC_PROT_ERR);
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
	wc.imm_data = wire_be64(qp->msg.u.imm);
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
				struct sq_wqe *x =
					sq_at(qp, qp->orq[(qp->orq_head + i) %
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
	/* Kept for iwcm_qp_peer_term(): its headers name the message the
	 * peer refused. */
	qp->peer_term = *t;
	qp->peer_term_rx = true;
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

/*
 * RFC 5040 §7.1 cases 2-3, once the framing vouched for the segment: the
 * statuses its header decided go to the work requests it hit, and its
 * headers back in the Terminate.  Never before: a QP failing for any
 * other reason meanwhile flushes them.
 */
static void rx_fail_now(struct iwcm_qp *qp)
{
	qp->err_status = qp->seg_status;
	if (qp->seg_sq_status && orq_head(qp))
		orq_head(qp)->status = qp->seg_sq_status;
	qp_fatal(qp, QP_R_LOCAL, true, qp->err_layer, qp->err_etype,
		 qp->err_ecode, qp->hbuf, qp->seg_len);
}

/* The segment is complete (framing upcall): unless the framing refused
 * it, deliver it, or report what its header broke. */
static void rx_end(void *arg, const struct framing_err *err)
{
	struct iwcm_qp *qp = arg;
	const struct rdmap_msg *m = &qp->msg;

	if (!qp_rx_live(qp))
		return;
	/*
	 * RFC 5044 §8: a bad CRC or marker is an LLP error, and the only
	 * one: whatever the header said (a length, protection or opcode
	 * error) came from octets nobody vouches for, so it is dropped
	 * with the segment, and no work request completes with it.
	 */
	qp->rx_phase = RXP_IDLE;
	if (err) {
		qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP, err->etype,
			 err->ecode, NULL, 0);
		return;
	}
	if (qp->rx_err) {
		rx_fail_now(qp);
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
		if (qp->rtr_read_due) {
			/* the Read RTR's: no work request of the ULP's; a
			 * Read or FENCE that waited goes below */
			qp->rtr_read_due = false;
		} else if (m->ddp.last) {
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
			rx_fail_now(qp);
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
	if (qp->irq_count || qp->sq_tx != qp->sq_pi)
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

/* Where payload octets [off, off + len) of this segment go (framing
 * upcall): into the memory its checks allowed, or nowhere. */
static int rx_iov(void *arg, size_t off, size_t len, struct iovec *iov, int cap)
{
	struct iwcm_qp *qp = arg;

	if (qp->rx_phase != RXP_DATA || off >= qp->data_left || cap < 1)
		return 0;
	if (len > qp->data_left - off)
		len = qp->data_left - off;
	if (qp->dst) {
		iov[0].iov_base = qp->dst + off;
		iov[0].iov_len = len;
		return 1;
	}
	return recv_iov(qp, qp->dst_off + off, len, iov, cap);
}

/* The framing lost the stream (upcall): the peer closed or reset it
 * (err NULL), or no segment can be found in it any more. */
static void rx_lost(void *arg, const struct framing_err *err, bool reset)
{
	struct iwcm_qp *qp = arg;

	if (!err) {
		qp_event(qp, reset ? QP_EV_RESET : QP_EV_PEER_EOF, NULL);
		return;
	}
	qp_fatal(qp, QP_R_LOCAL, true, RDMAP_TERM_LAYER_LLP, err->etype,
		 err->ecode, NULL, 0);
}

/* RFC 5041 §7.1: after an error, later segments are dropped unseen. */
static bool rx_live(void *arg)
{
	const struct iwcm_qp *qp = arg;

	return qp_rx_live(qp);
}

static const struct framing_upcalls qp_framing_up = {
	.rx_hdr_len = rx_hdr_len,
	.rx_hdr = rx_hdr,
	.rx_iov = rx_iov,
	.rx_end = rx_end,
	.rx_lost = rx_lost,
	.rx_live = rx_live,
	.tx_done = qp_tx_done,
};

/* The framing of the QP's transport, and the transmit ring over it. */
int qp_framing_init(struct iwcm_qp *qp, const struct iwcm_conn *conn)
{
	struct iwcm_conn *c = (struct iwcm_conn *)(uintptr_t)conn;
	int fd;

	/* The socket iwcm_create_qp() took (cm_conn_take_fd()). */
	pthread_mutex_lock(&c->fd_lock);
	fd = c->fd;
	pthread_mutex_unlock(&c->fd_lock);
	/* A segment: its header, then up to max_send_sge payload pieces. */
	qp->tx_iov_cap = qp->max_send_sge + 1;
	qp->tx_iov = calloc(qp->tx_iov_cap, sizeof(*qp->tx_iov));
	qp->frames = calloc(DP_TX_FRAMES, sizeof(*qp->frames));
	if (!qp->tx_iov || !qp->frames)
		return ERR(ENOMEM);
	if (conn->transport == IWCM_TRANSPORT_SCTP && conn->sctp_handoff) {
		/* the association's own socket (kernel SCTP) */
		qp->fr = framing_ddp_sctp_kernel_new(fd, conn, &qp_framing_up,
						     qp, qp->tx_iov_cap);
		if (qp->fr)
			c->sctp_handoff = NULL; /* the framing's now */
	} else if (conn->transport == IWCM_TRANSPORT_SCTP)
		qp->fr = framing_ddp_sctp_new(fd, conn->sctp_stream,
					      conn->sctp_max_segment,
					      &qp_framing_up, qp,
					      qp->tx_iov_cap);
	else
		qp->fr = framing_mpa_tcp_new(fd, conn, &qp_framing_up, qp,
					     qp->tx_iov_cap);
	if (!qp->fr)
		return -1;
	qp->mulpdu = qp->fr->mulpdu;
	return 0;
}

/* Put fr in place of the QP's framing (a test's own transport); the
 * QP's upcalls become fr's. */
void qp_framing_set(struct iwcm_qp *qp, struct framing *fr)
{
	if (qp->fr)
		qp->fr->ops->free(qp->fr);
	fr->up = &qp_framing_up;
	fr->arg = qp;
	qp->fr = fr;
	qp->mulpdu = fr->mulpdu;
}

/* Free the framing and the transmit ring. */
void qp_framing_free(struct iwcm_qp *qp)
{
	if (qp->fr)
		qp->fr->ops->free(qp->fr);
	qp->fr = NULL;
	free(qp->frames);
	qp->frames = NULL;
	free(qp->tx_iov);
	qp->tx_iov = NULL;
}

/* Do octets received before the handoff wait to be read? */
bool qp_rx_buffered(const struct iwcm_qp *qp)
{
	return qp->fr && qp->fr->ops->rx_buffered(qp->fr);
}

/* Read and act on what the transport has (the framing calls back).
 * Returns false when it had nothing at all. */
bool qp_rx_progress(struct iwcm_qp *qp)
{
	if (qp->fd < 0 || !qp_rx_open(qp))
		return false;
	if (!qp->fr->ops->rx_progress(qp->fr, QP_RX_BUDGET))
		return false; /* nothing came: nothing changed */
	if (qp_tx_writes(qp))
		qp_tx_kick(qp);
	qp_sq_reap(qp);
	qp_close_check(qp);
	return true;
}

/*
 * A memory region goes away while a segment is being placed through its
 * STag: the rest of the segment is dropped and the QP fails at its end.
 * Only a placement through that STag is hit (RFC 5042 §5.1): the same
 * octets may be registered more than once (MPI registers its buffer anew
 * for each rendezvous), and a segment placed through another, still valid
 * STag goes on.
 */
void qp_rx_detach(struct iwcm_qp *qp, uint32_t stag)
{
	bool hit = false;

	if (qp->rx_phase != RXP_DATA || !qp->data_left)
		return;
	if (qp->dst) {
		hit = qp->msg.ddp.tagged && qp->msg.ddp.stag == stag;
	} else {
		for (int i = 0; i < qp->recv.num_sge && !hit; i++)
			hit = qp->recv.sge[i].length &&
			      qp->recv.sge[i].lkey == stag;
	}
	if (!hit)
		return;
	qp->rx_phase = RXP_DISCARD;
	qp->dst = NULL;
	if (qp->msg.ddp.tagged)
		rx_fail_ddp_tagged(qp, DP_PROT_INVALID_STAG);
	else
		rx_fail(qp, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC, 0,
			IWCM_WC_LOC_PROT_ERR);
}
