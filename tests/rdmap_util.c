/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* Helpers of the RDMAP tests (rdmap_util.h). */
#include "config.h"

#include "rdmap_util.h"

size_t hex(const char *s, uint8_t *out)
{
	return test_hex(s, out, MAXB);
}

/* A heap copy of exactly n octets: ASan sees any read past it. */
uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(c);
	memcpy(c, p, n);
	return c;
}

static void assert_ddp_eq(const struct ddp_hdr *a, const struct ddp_hdr *b)
{
	ck_assert_int_eq(a->tagged, b->tagged);
	ck_assert_int_eq(a->last, b->last);
	ck_assert_uint_eq(a->rsvd, b->rsvd);
	ck_assert_uint_eq(a->dv, b->dv);
	ck_assert_uint_eq(a->rsvd_ulp8, b->rsvd_ulp8);
	ck_assert_uint_eq(a->stag, b->stag);
	ck_assert_uint_eq(a->to, b->to);
	ck_assert_uint_eq(a->rsvd_ulp32, b->rsvd_ulp32);
	ck_assert_uint_eq(a->qn, b->qn);
	ck_assert_uint_eq(a->msn, b->msn);
	ck_assert_uint_eq(a->mo, b->mo);
}

void assert_term_eq(const struct rdmap_term *a, const struct rdmap_term *b)
{
	ck_assert_uint_eq(a->layer, b->layer);
	ck_assert_uint_eq(a->etype, b->etype);
	ck_assert_uint_eq(a->ecode, b->ecode);
	ck_assert_uint_eq(a->hdrct, b->hdrct);
	ck_assert_uint_eq(a->ddp_seg_len, b->ddp_seg_len);
	ck_assert_int_eq(a->has_ddp_seg_len, b->has_ddp_seg_len);
	ck_assert_uint_eq(a->ddp_hdr_len, b->ddp_hdr_len);
	ck_assert_mem_eq(a->ddp_hdr, b->ddp_hdr, sizeof(a->ddp_hdr));
	ck_assert_mem_eq(a->rdma_hdr, b->rdma_hdr, sizeof(a->rdma_hdr));
}

/* Every decoded field but the payload pointer. */
void assert_msg_eq(const struct rdmap_msg *a, const struct rdmap_msg *b)
{
	const struct rdmap_read_req *r = &a->u.read_req, *rb = &b->u.read_req;
	const struct rdmap_atomic_req *q = &a->u.atomic_req;
	const struct rdmap_atomic_req *qb = &b->u.atomic_req;

	assert_ddp_eq(&a->ddp, &b->ddp);
	ck_assert_uint_eq(a->rv, b->rv);
	ck_assert_uint_eq(a->ctrl_rsvd, b->ctrl_rsvd);
	ck_assert_uint_eq(a->opcode, b->opcode);
	ck_assert_uint_eq(a->inv_stag, b->inv_stag);
	switch (a->opcode) {
	case RDMAP_READ_REQ:
		ck_assert_uint_eq(r->sink_stag, rb->sink_stag);
		ck_assert_uint_eq(r->sink_to, rb->sink_to);
		ck_assert_uint_eq(r->size, rb->size);
		ck_assert_uint_eq(r->src_stag, rb->src_stag);
		ck_assert_uint_eq(r->src_to, rb->src_to);
		break;
	case RDMAP_TERMINATE:
		assert_term_eq(&a->u.term, &b->u.term);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		ck_assert_mem_eq(a->u.imm, b->u.imm, RDMAP_IMM_DATA_LEN);
		break;
	case RDMAP_ATOMIC_REQ:
		ck_assert_uint_eq(q->rsvd, qb->rsvd);
		ck_assert_uint_eq(q->aopcode, qb->aopcode);
		ck_assert_uint_eq(q->req_id, qb->req_id);
		ck_assert_uint_eq(q->stag, qb->stag);
		ck_assert_uint_eq(q->to, qb->to);
		ck_assert_uint_eq(q->add_swap, qb->add_swap);
		ck_assert_uint_eq(q->add_swap_mask, qb->add_swap_mask);
		ck_assert_uint_eq(q->cmp, qb->cmp);
		ck_assert_uint_eq(q->cmp_mask, qb->cmp_mask);
		break;
	case RDMAP_ATOMIC_RESP:
		ck_assert_uint_eq(a->u.atomic_resp.req_id,
				  b->u.atomic_resp.req_id);
		ck_assert_uint_eq(a->u.atomic_resp.orig, b->u.atomic_resp.orig);
		break;
	default:
		break;
	}
}
