/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * rdmap_msg_parse on arbitrary bytes.  Checks: only the documented
 * results; WIRE_ESHORT exactly when the DDP header is incomplete; for an
 * OK result the placement and QN agree with the opcode tables, the
 * payload lies inside the input, rdmap_hdr_build gives back the input's
 * header bytes with the reserved bits zero and parse(build(m)) == m;
 * every prefix gives the result the layout implies; the name functions
 * never return NULL; rdmap_term_fill on the input builds a Terminate
 * that parses back with the headers it copied.
 */
#include <stdlib.h>
#include <string.h>

#include "rdmap.h"
#include "fuzz/fuzz.h"

#define OUT_MAX (DDP_UNTAGGED_HDR_LEN + RDMAP_TERM_MAX_LEN + 64)

static void check_name(const char *s)
{
	if (!s || !*s)
		abort();
}

static int is_inv(uint8_t op)
{
	return op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV;
}

static int same_term(const struct rdmap_term *a, const struct rdmap_term *b)
{
	return a->layer == b->layer && a->etype == b->etype &&
	       a->ecode == b->ecode && a->hdrct == b->hdrct &&
	       a->ddp_seg_len == b->ddp_seg_len &&
	       a->has_ddp_seg_len == b->has_ddp_seg_len &&
	       a->ddp_hdr_len == b->ddp_hdr_len &&
	       memcmp(a->ddp_hdr, b->ddp_hdr, sizeof(a->ddp_hdr)) == 0 &&
	       memcmp(a->rdma_hdr, b->rdma_hdr, sizeof(a->rdma_hdr)) == 0;
}

static int same_msg(const struct rdmap_msg *a, const struct rdmap_msg *b)
{
	const struct ddp_hdr *x = &a->ddp, *y = &b->ddp;

	if (x->tagged != y->tagged || x->last != y->last || x->dv != y->dv ||
	    x->stag != y->stag || x->to != y->to || x->qn != y->qn ||
	    x->msn != y->msn || x->mo != y->mo)
		return 0;
	if (a->rv != b->rv || a->opcode != b->opcode ||
	    a->inv_stag != b->inv_stag || a->payload_len != b->payload_len)
		return 0;
	switch (a->opcode) {
	case RDMAP_READ_REQ:
		return a->u.read_req.sink_stag == b->u.read_req.sink_stag &&
		       a->u.read_req.sink_to == b->u.read_req.sink_to &&
		       a->u.read_req.size == b->u.read_req.size &&
		       a->u.read_req.src_stag == b->u.read_req.src_stag &&
		       a->u.read_req.src_to == b->u.read_req.src_to;
	case RDMAP_TERMINATE:
		return same_term(&a->u.term, &b->u.term);
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		return memcmp(a->u.imm, b->u.imm, sizeof(a->u.imm)) == 0;
	case RDMAP_ATOMIC_REQ:
		return a->u.atomic_req.aopcode == b->u.atomic_req.aopcode &&
		       a->u.atomic_req.req_id == b->u.atomic_req.req_id &&
		       a->u.atomic_req.stag == b->u.atomic_req.stag &&
		       a->u.atomic_req.to == b->u.atomic_req.to &&
		       a->u.atomic_req.add_swap == b->u.atomic_req.add_swap &&
		       a->u.atomic_req.add_swap_mask ==
			       b->u.atomic_req.add_swap_mask &&
		       a->u.atomic_req.cmp == b->u.atomic_req.cmp &&
		       a->u.atomic_req.cmp_mask == b->u.atomic_req.cmp_mask;
	case RDMAP_ATOMIC_RESP:
		return a->u.atomic_resp.req_id == b->u.atomic_resp.req_id &&
		       a->u.atomic_resp.orig == b->u.atomic_resp.orig;
	default:
		return 1;
	}
}

/* The input's header bytes as a conforming sender writes them. */
static void mask_reserved(uint8_t *b, const struct rdmap_msg *m)
{
	b[0] &= (uint8_t)~DDP_RSVD_MASK;
	b[1] &= (uint8_t)~RDMAP_CTRL_RSVD_MASK;
	if (!m->ddp.tagged && !is_inv(m->opcode))
		memset(b + 2, 0, 4);
	if (m->opcode == RDMAP_ATOMIC_REQ) {
		memset(b + DDP_UNTAGGED_HDR_LEN, 0, 3);
		b[DDP_UNTAGGED_HDR_LEN + 3] &= 0x0f;
	}
	if (m->opcode == RDMAP_TERMINATE) {
		b[DDP_UNTAGGED_HDR_LEN + 2] &= 0xe0;
		b[DDP_UNTAGGED_HDR_LEN + 3] = 0;
	}
}

static void check_prefixes(const uint8_t *data, size_t size,
			   const struct rdmap_msg *m, size_t hdr_end)
{
	size_t dlen = ddp_hdr_len(data[0]), k, lim;
	struct rdmap_msg p;
	enum wire_err e;

	lim = size < 96 ? size : 96;
	for (k = 0; k < lim; k++) {
		e = rdmap_msg_parse(data, k, &p);
		if (k < dlen) {
			if (e != WIRE_ESHORT)
				abort();
		} else if (k < hdr_end) {
			if (e != WIRE_ELEN)
				abort();
		} else if (m->opcode == RDMAP_TERMINATE || hdr_end == dlen) {
			/* Only the payload is shorter. */
			if (e != WIRE_OK || p.payload_len != k - hdr_end)
				abort();
		} else if (e != WIRE_ELEN) {
			abort();
		}
	}
}

static void check_ok(const uint8_t *data, size_t size,
		     const struct rdmap_msg *m)
{
	uint8_t out[OUT_MAX], in[OUT_MAX];
	struct rdmap_msg m2;
	size_t w = 0, hdr_end;

	if (rdmap_opcode_tagged(m->opcode) != (int)m->ddp.tagged)
		abort();
	if (!m->ddp.tagged && rdmap_opcode_qn(m->opcode) != (int)m->ddp.qn)
		abort();
	if (m->payload < data || m->payload + m->payload_len != data + size)
		abort();
	if (m->rv > 3 || m->ctrl_rsvd > 3 || m->opcode > 0xb)
		abort();
	if (!is_inv(m->opcode) && m->inv_stag != 0)
		abort();
	hdr_end = (size_t)(m->payload - data);

	if (rdmap_hdr_build(m, out, sizeof(out), &w) != WIRE_OK ||
	    w != hdr_end || w > sizeof(out))
		abort();
	memcpy(in, data, w);
	mask_reserved(in, m);
	if (memcmp(in, out, w) != 0)
		abort();
	if (w && rdmap_hdr_build(m, out, w - 1, &w) != WIRE_ENOSPC)
		abort();
	if (rdmap_msg_parse(out, hdr_end, &m2) != WIRE_OK)
		abort();
	m2.payload_len += m->payload_len;
	if (!same_msg(m, &m2))
		abort();
	check_prefixes(data, size, m, hdr_end);
}

static void check_fill(const uint8_t *data, size_t size)
{
	struct rdmap_term t, t2;
	uint8_t out[RDMAP_TERM_MAX_LEN];
	size_t w = 0, used = 0;
	uint8_t layer = data[0] & 0x3, etype = data[1] & 0x3;

	rdmap_term_fill(&t, layer, etype, data[2], data, size);
	if (t.hdrct & ~rdmap_term_hdrct(layer, etype, data[1] & 0xf))
		abort();
	if (t.hdrct & RDMAP_TERM_HDRCT_D) {
		if (t.ddp_hdr_len != ddp_hdr_len(data[0]) ||
		    memcmp(t.ddp_hdr, data, t.ddp_hdr_len) != 0)
			abort();
	}
	if ((t.hdrct & RDMAP_TERM_HDRCT_R) &&
	    memcmp(t.rdma_hdr, data + DDP_UNTAGGED_HDR_LEN,
		   RDMAP_READ_REQ_LEN) != 0)
		abort();
	if (rdmap_term_build(&t, out, sizeof(out), &w) != WIRE_OK)
		abort();
	if (rdmap_term_parse(out, w, &t2, &used) != WIRE_OK || used != w ||
	    !same_term(&t, &t2))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct rdmap_msg m;
	enum wire_err e;

	e = rdmap_msg_parse(data, size, &m);
	if (size < 1 || size < ddp_hdr_len(data[0])) {
		if (e != WIRE_ESHORT)
			abort();
		return 0;
	}
	switch (e) {
	case WIRE_OK:
		check_ok(data, size, &m);
		check_name(rdmap_opcode_name(m.opcode));
		if (m.opcode == RDMAP_ATOMIC_REQ)
			check_name(rdmap_aopcode_name(m.u.atomic_req.aopcode));
		if (m.opcode == RDMAP_TERMINATE) {
			check_name(rdmap_term_layer_name(m.u.term.layer));
			check_name(rdmap_term_etype_name(m.u.term.layer,
							 m.u.term.etype));
			check_name(rdmap_term_ecode_name(m.u.term.layer,
							 m.u.term.etype,
							 m.u.term.ecode));
		}
		break;
	case WIRE_EOPCODE:
	case WIRE_ELEN:
	case WIRE_EFLAGS:
		break;
	default:
		abort();
	}
	if (size >= 3)
		check_fill(data, size);
	return 0;
}
