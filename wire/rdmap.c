/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * RDMAP messages over DDP segments (RFC 5040 §4) with the RFC 7306
 * extensions (Immediate Data, atomics) and the seed-004 draft's Swap.
 * One table says, per opcode, where the message is placed, on which
 * queue and which header follows the DDP header.
 */
#include "config.h"

#include <string.h>

#include "rdmap.h"
#include "wbuf.h"

#define RDMAP_CTRL_RSVD_SHIFT 4
#define AOPCODE_MASK 0x0F
#define ATOMIC_RSVD_SHIFT 4
#define ATOMIC_RSVD_MAX 0x0FFFFFFF

/* Terminate Control word (RFC 5040 §4.8 Figure 8), bit 0 = MSB. */
#define TERM_LAYER_SHIFT 28
#define TERM_ETYPE_SHIFT 24
#define TERM_ECODE_SHIFT 16
#define TERM_HDRCT_SHIFT 13

enum op_hdr {
	OP_HDR_NONE, /* Write, Read Response, Send variants */
	OP_HDR_READ_REQ,
	OP_HDR_TERM,
	OP_HDR_IMM,
	OP_HDR_ATOMIC_REQ,
	OP_HDR_ATOMIC_RESP,
};

struct op_desc {
	bool known;
	bool tagged;
	uint8_t qn; /* untagged only */
	bool inv;   /* RsvdULP word carries the Invalidate STag */
	enum op_hdr hdr;
};

/*
 * RFC 5040 §4.1 Figure 4 (opcodes 0-7) and RFC 7306 §4.1 Figure 2
 * (opcodes 8-B); Figures 5 and 3 give the header each one carries.
 */
static const struct op_desc op_tab[RDMAP_OPCODE_MAX + 1] = {
	[RDMAP_WRITE] = { true, true, 0, false, OP_HDR_NONE },
	[RDMAP_READ_REQ] = { true, false, DDP_QN_READ_REQ, false,
			     OP_HDR_READ_REQ },
	[RDMAP_READ_RESP] = { true, true, 0, false, OP_HDR_NONE },
	[RDMAP_SEND] = { true, false, DDP_QN_SEND, false, OP_HDR_NONE },
	[RDMAP_SEND_INV] = { true, false, DDP_QN_SEND, true, OP_HDR_NONE },
	[RDMAP_SEND_SE] = { true, false, DDP_QN_SEND, false, OP_HDR_NONE },
	[RDMAP_SEND_SE_INV] = { true, false, DDP_QN_SEND, true, OP_HDR_NONE },
	/* RFC 5040 §5.4: the Terminate queue is QN 2. */
	[RDMAP_TERMINATE] = { true, false, DDP_QN_TERMINATE, false,
			      OP_HDR_TERM },
	/* RFC 7306 §6.3: Immediate Data uses the Send queue, QN 0. */
	[RDMAP_IMM_DATA] = { true, false, DDP_QN_SEND, false, OP_HDR_IMM },
	[RDMAP_IMM_DATA_SE] = { true, false, DDP_QN_SEND, false, OP_HDR_IMM },
	/* RFC 7306 §5.2: requests share QN 1 with Read Requests,
	 * responses use QN 3. */
	[RDMAP_ATOMIC_REQ] = { true, false, DDP_QN_READ_REQ, false,
			       OP_HDR_ATOMIC_REQ },
	[RDMAP_ATOMIC_RESP] = { true, false, DDP_QN_ATOMIC_RESP, false,
				OP_HDR_ATOMIC_RESP },
};

static const struct op_desc *op_lookup(uint8_t opcode)
{
	if (opcode > RDMAP_OPCODE_MAX || !op_tab[opcode].known)
		return NULL;
	return &op_tab[opcode];
}

/* Expected DDP placement of an opcode: 1 tagged, 0 untagged, -1 unknown. */
int rdmap_opcode_tagged(uint8_t opcode)
{
	const struct op_desc *d = op_lookup(opcode);

	if (!d)
		return -1;
	return d->tagged ? 1 : 0;
}

/* Untagged QN an opcode must use, or -1. */
int rdmap_opcode_qn(uint8_t opcode)
{
	const struct op_desc *d = op_lookup(opcode);

	if (!d || d->tagged)
		return -1;
	return d->qn;
}

/* Parse an RDMA Read Request header (RFC 5040 §4.4 Figure 6). */
enum wire_err rdmap_read_req_parse(const uint8_t *buf, size_t len,
				   struct rdmap_read_req *out)
{
	struct rdmap_read_req r;
	struct wbuf b;

	if (len < RDMAP_READ_REQ_LEN)
		return WIRE_ESHORT;
	wbuf_init(&b, buf, len);
	(void)wbuf_get_u32(&b, &r.sink_stag);
	(void)wbuf_get_u64(&b, &r.sink_to);
	(void)wbuf_get_u32(&b, &r.size);
	(void)wbuf_get_u32(&b, &r.src_stag);
	(void)wbuf_get_u64(&b, &r.src_to);
	*out = r;
	return WIRE_OK;
}

/* Build an RDMA Read Request header (RFC 5040 §4.4 Figure 6). */
enum wire_err rdmap_read_req_build(const struct rdmap_read_req *r, uint8_t *buf,
				   size_t cap)
{
	struct wbuf_w w;

	if (cap < RDMAP_READ_REQ_LEN)
		return WIRE_ENOSPC;
	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_u32(&w, r->sink_stag);
	(void)wbuf_put_u64(&w, r->sink_to);
	(void)wbuf_put_u32(&w, r->size);
	(void)wbuf_put_u32(&w, r->src_stag);
	(void)wbuf_put_u64(&w, r->src_to);
	return WIRE_OK;
}

/* Parse an Atomic Request header (RFC 7306 §5.2.1 Figure 4). */
enum wire_err rdmap_atomic_req_parse(const uint8_t *buf, size_t len,
				     struct rdmap_atomic_req *out)
{
	struct rdmap_atomic_req r;
	struct wbuf b;
	uint32_t w0;

	if (len < RDMAP_ATOMIC_REQ_LEN)
		return WIRE_ESHORT;
	wbuf_init(&b, buf, len);
	/* Reserved(28) AOpCode(4); reserved is "ignored on receive". */
	(void)wbuf_get_u32(&b, &w0);
	r.rsvd = w0 >> ATOMIC_RSVD_SHIFT;
	r.aopcode = (uint8_t)(w0 & AOPCODE_MASK);
	(void)wbuf_get_u32(&b, &r.req_id);
	(void)wbuf_get_u32(&b, &r.stag);
	(void)wbuf_get_u64(&b, &r.to);
	(void)wbuf_get_u64(&b, &r.add_swap);
	(void)wbuf_get_u64(&b, &r.add_swap_mask);
	(void)wbuf_get_u64(&b, &r.cmp);
	(void)wbuf_get_u64(&b, &r.cmp_mask);
	*out = r;
	return WIRE_OK;
}

/* Build an Atomic Request header (RFC 7306 §5.2.1 Figure 4). */
enum wire_err rdmap_atomic_req_build(const struct rdmap_atomic_req *r,
				     uint8_t *buf, size_t cap)
{
	struct wbuf_w w;

	if (r->aopcode > AOPCODE_MASK)
		return WIRE_EINVAL;
	if (cap < RDMAP_ATOMIC_REQ_LEN)
		return WIRE_ENOSPC;
	wbuf_w_init(&w, buf, cap);
	/* RFC 7306 §5.2.1: Reserved is set to zero on transmit. */
	(void)wbuf_put_u32(&w, r->aopcode);
	(void)wbuf_put_u32(&w, r->req_id);
	(void)wbuf_put_u32(&w, r->stag);
	(void)wbuf_put_u64(&w, r->to);
	(void)wbuf_put_u64(&w, r->add_swap);
	(void)wbuf_put_u64(&w, r->add_swap_mask);
	(void)wbuf_put_u64(&w, r->cmp);
	(void)wbuf_put_u64(&w, r->cmp_mask);
	return WIRE_OK;
}

/* Parse an Atomic Response header (RFC 7306 §5.2.2 Figure 6). */
enum wire_err rdmap_atomic_resp_parse(const uint8_t *buf, size_t len,
				      struct rdmap_atomic_resp *out)
{
	struct rdmap_atomic_resp r;
	struct wbuf b;

	if (len < RDMAP_ATOMIC_RESP_LEN)
		return WIRE_ESHORT;
	wbuf_init(&b, buf, len);
	(void)wbuf_get_u32(&b, &r.req_id);
	(void)wbuf_get_u64(&b, &r.orig);
	*out = r;
	return WIRE_OK;
}

/* Build an Atomic Response header (RFC 7306 §5.2.2 Figure 6). */
enum wire_err rdmap_atomic_resp_build(const struct rdmap_atomic_resp *r,
				      uint8_t *buf, size_t cap)
{
	struct wbuf_w w;

	if (cap < RDMAP_ATOMIC_RESP_LEN)
		return WIRE_ENOSPC;
	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_u32(&w, r->req_id);
	(void)wbuf_put_u64(&w, r->orig);
	return WIRE_OK;
}

/* Parse a Terminate header (RFC 5040 §4.8 Figures 7 and 8). */
enum wire_err rdmap_term_parse(const uint8_t *buf, size_t len,
			       struct rdmap_term *out, size_t *used)
{
	struct rdmap_term t;
	struct wbuf b;
	uint32_t w0;
	enum wire_err e;

	memset(&t, 0, sizeof(t));
	wbuf_init(&b, buf, len);
	if ((e = wbuf_get_u32(&b, &w0)) != WIRE_OK)
		return e;
	t.layer = (uint8_t)(w0 >> TERM_LAYER_SHIFT);
	t.etype = (uint8_t)((w0 >> TERM_ETYPE_SHIFT) & 0xF);
	t.ecode = (uint8_t)(w0 >> TERM_ECODE_SHIFT);
	t.hdrct = (uint8_t)((w0 >> TERM_HDRCT_SHIFT) & RDMAP_TERM_HDRCT_MASK);
	/* The 13 reserved bits are "ignored on receive". */

	/* RFC 5040 §4.8: the DDP Segment Length MUST be valid if M is set
	 * and MUST be present if D is set. */
	if (t.hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)) {
		if ((e = wbuf_get_u16(&b, &t.ddp_seg_len)) != WIRE_OK)
			return e;
		t.has_ddp_seg_len = true;
	}
	/* RFC 5040 §4.8: the Terminated DDP Header is 112 bits tagged,
	 * 144 bits untagged; its own T bit says which. */
	if (t.hdrct & RDMAP_TERM_HDRCT_D) {
		if (wbuf_left(&b) < 1)
			return WIRE_ESHORT;
		t.ddp_hdr_len = ddp_hdr_len(*wbuf_cur(&b));
		e = wbuf_get_bytes(&b, t.ddp_hdr, t.ddp_hdr_len);
		if (e != WIRE_OK)
			return e;
	}
	/* RFC 5040 §4.8: the Terminated RDMA Header is a 224-bit Read
	 * Request header. */
	if (t.hdrct & RDMAP_TERM_HDRCT_R) {
		e = wbuf_get_bytes(&b, t.rdma_hdr, RDMAP_READ_REQ_LEN);
		if (e != WIRE_OK)
			return e;
	}
	*out = t;
	*used = b.off;
	return WIRE_OK;
}

/* Build a Terminate header (RFC 5040 §4.8 Figures 7 and 8). */
enum wire_err rdmap_term_build(const struct rdmap_term *t, uint8_t *buf,
			       size_t cap, size_t *written)
{
	struct wbuf_w w;
	uint32_t w0;
	size_t need = RDMAP_TERM_CTRL_LEN;

	if (t->layer > RDMAP_TERM_LAYER_MAX ||
	    t->etype > RDMAP_TERM_LAYER_MAX || t->hdrct > RDMAP_TERM_HDRCT_MASK)
		return WIRE_EINVAL;
	if (t->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D))
		need += 2;
	if (t->hdrct & RDMAP_TERM_HDRCT_D) {
		/* The length must be the one the header's T bit implies,
		 * or the receiver would read a different header. */
		if (t->ddp_hdr_len != ddp_hdr_len(t->ddp_hdr[0]))
			return WIRE_EINVAL;
		need += t->ddp_hdr_len;
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R)
		need += RDMAP_READ_REQ_LEN;
	if (cap < need)
		return WIRE_ENOSPC;

	/* RFC 5040 §4.8: the 13 reserved bits MUST be zero on transmit. */
	w0 = (uint32_t)t->layer << TERM_LAYER_SHIFT |
	     (uint32_t)t->etype << TERM_ETYPE_SHIFT |
	     (uint32_t)t->ecode << TERM_ECODE_SHIFT |
	     (uint32_t)t->hdrct << TERM_HDRCT_SHIFT;
	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_u32(&w, w0);
	if (t->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D))
		(void)wbuf_put_u16(&w, t->ddp_seg_len);
	if (t->hdrct & RDMAP_TERM_HDRCT_D)
		(void)wbuf_put_bytes(&w, t->ddp_hdr, t->ddp_hdr_len);
	if (t->hdrct & RDMAP_TERM_HDRCT_R)
		(void)wbuf_put_bytes(&w, t->rdma_hdr, RDMAP_READ_REQ_LEN);
	*written = w.off;
	return WIRE_OK;
}

/*
 * An opcode header is whole only in a segment that is both the first of
 * its message (MO 0, RFC 5041 §4.3) and the last (L set, §4.1).  Read
 * Requests, Terminates, Immediate Data and atomics are never split by a
 * sender in practice, and this codec does not reassemble them.
 */
static enum wire_err single_segment(const struct ddp_hdr *d)
{
	if (!d->last)
		return WIRE_EFLAGS;
	if (d->mo != 0)
		return WIRE_ELEN;
	return WIRE_OK;
}

/* Decode the opcode header in rest[0..rlen) into m; sets *hlen. */
static enum wire_err op_hdr_parse(enum op_hdr kind, const uint8_t *rest,
				  size_t rlen, struct rdmap_msg *m,
				  size_t *hlen)
{
	enum wire_err e;

	switch (kind) {
	case OP_HDR_NONE:
		*hlen = 0;
		return WIRE_OK;
	case OP_HDR_READ_REQ:
		/* RFC 5040 §4.2 Figure 5: the header, no ULP payload. */
		if (rlen != RDMAP_READ_REQ_LEN)
			return WIRE_ELEN;
		*hlen = RDMAP_READ_REQ_LEN;
		return rdmap_read_req_parse(rest, rlen, &m->u.read_req);
	case OP_HDR_IMM:
		/* RFC 7306 §6.3: "exactly 8 bytes of data". */
		if (rlen != RDMAP_IMM_DATA_LEN)
			return WIRE_ELEN;
		memcpy(m->u.imm, rest, RDMAP_IMM_DATA_LEN);
		*hlen = RDMAP_IMM_DATA_LEN;
		return WIRE_OK;
	case OP_HDR_ATOMIC_REQ:
		/* RFC 7306 §4.2 Figure 3: no ULP payload. */
		if (rlen != RDMAP_ATOMIC_REQ_LEN)
			return WIRE_ELEN;
		*hlen = RDMAP_ATOMIC_REQ_LEN;
		return rdmap_atomic_req_parse(rest, rlen, &m->u.atomic_req);
	case OP_HDR_ATOMIC_RESP:
		if (rlen != RDMAP_ATOMIC_RESP_LEN)
			return WIRE_ELEN;
		*hlen = RDMAP_ATOMIC_RESP_LEN;
		return rdmap_atomic_resp_parse(rest, rlen, &m->u.atomic_resp);
	case OP_HDR_TERM:
		/* The segment is complete: headers HdrCt announces but the
		 * segment lacks make it malformed, not short. */
		e = rdmap_term_parse(rest, rlen, &m->u.term, hlen);
		return e == WIRE_ESHORT ? WIRE_ELEN : e;
	}
	return WIRE_EOPCODE;
}

/* Parse a whole ULPDU (DDP segment) as RDMAP. */
enum wire_err rdmap_msg_parse(const uint8_t *buf, size_t len,
			      struct rdmap_msg *out)
{
	const struct op_desc *d;
	struct rdmap_msg m;
	size_t dlen, hlen = 0;
	enum wire_err e;

	memset(&m, 0, sizeof(m));
	if ((e = ddp_hdr_parse(buf, len, &m.ddp, &dlen)) != WIRE_OK)
		return e;

	/* RFC 5040 §4.1 Figure 3: the first RsvdULP octet is RV(2)
	 * Rsvd(2) OpCode(4); Rsvd is ignored by the receiver. */
	m.rv = (uint8_t)(m.ddp.rsvd_ulp8 >> RDMAP_RV_SHIFT);
	m.ctrl_rsvd = (uint8_t)((m.ddp.rsvd_ulp8 & RDMAP_CTRL_RSVD_MASK) >>
				RDMAP_CTRL_RSVD_SHIFT);
	m.opcode = m.ddp.rsvd_ulp8 & RDMAP_OPCODE_MASK;

	/* RFC 5040 §4.1 Figure 4, RFC 7306 §4.1 Figure 2: the T bit and
	 * the QN each opcode MUST use. */
	d = op_lookup(m.opcode);
	if (!d || d->tagged != m.ddp.tagged)
		return WIRE_EOPCODE;
	if (!d->tagged && m.ddp.qn != d->qn)
		return WIRE_EOPCODE;

	if (d->hdr != OP_HDR_NONE && (e = single_segment(&m.ddp)) != WIRE_OK)
		return e;
	e = op_hdr_parse(d->hdr, buf + dlen, len - dlen, &m, &hlen);
	if (e != WIRE_OK)
		return e;

	/* RFC 5040 §4.1: the Invalidate STag is valid only for the Send
	 * with Invalidate variants, ignored otherwise. */
	if (d->inv)
		m.inv_stag = m.ddp.rsvd_ulp32;
	m.payload = buf + dlen + hlen;
	m.payload_len = len - dlen - hlen;
	*out = m;
	return WIRE_OK;
}

/* Build the headers of m (DDP + RDMAP + opcode header) into buf. */
enum wire_err rdmap_hdr_build(const struct rdmap_msg *m, uint8_t *buf,
			      size_t cap, size_t *written)
{
	const struct op_desc *d = op_lookup(m->opcode);
	struct ddp_hdr ddp = m->ddp;
	size_t dlen, hlen = 0;
	enum wire_err e;

	if (!d || m->rv > (RDMAP_RV_MASK >> RDMAP_RV_SHIFT))
		return WIRE_EINVAL;
	if (d->tagged != ddp.tagged || (!d->tagged && ddp.qn != d->qn))
		return WIRE_EINVAL;
	if (d->hdr != OP_HDR_NONE && single_segment(&ddp) != WIRE_OK)
		return WIRE_EINVAL;

	/* RFC 5040 §4.1: Rsvd zero; Invalidate STag zero unless valid. */
	ddp.rsvd_ulp8 = (uint8_t)(m->rv << RDMAP_RV_SHIFT | m->opcode);
	if (!ddp.tagged)
		ddp.rsvd_ulp32 = d->inv ? m->inv_stag : 0;
	if ((e = ddp_hdr_build(&ddp, buf, cap, &dlen)) != WIRE_OK)
		return e;
	buf += dlen;
	cap -= dlen;

	switch (d->hdr) {
	case OP_HDR_NONE:
		break;
	case OP_HDR_READ_REQ:
		e = rdmap_read_req_build(&m->u.read_req, buf, cap);
		hlen = RDMAP_READ_REQ_LEN;
		break;
	case OP_HDR_IMM:
		if (cap < RDMAP_IMM_DATA_LEN)
			return WIRE_ENOSPC;
		memcpy(buf, m->u.imm, RDMAP_IMM_DATA_LEN);
		hlen = RDMAP_IMM_DATA_LEN;
		break;
	case OP_HDR_ATOMIC_REQ:
		e = rdmap_atomic_req_build(&m->u.atomic_req, buf, cap);
		hlen = RDMAP_ATOMIC_REQ_LEN;
		break;
	case OP_HDR_ATOMIC_RESP:
		e = rdmap_atomic_resp_build(&m->u.atomic_resp, buf, cap);
		hlen = RDMAP_ATOMIC_RESP_LEN;
		break;
	case OP_HDR_TERM:
		e = rdmap_term_build(&m->u.term, buf, cap, &hlen);
		break;
	}
	if (e != WIRE_OK)
		return e;
	*written = dlen + hlen;
	return WIRE_OK;
}

/* Which headers a Terminate of (layer, etype) carries (Figure 10). */
uint8_t rdmap_term_hdrct(uint8_t layer, uint8_t etype, uint8_t opcode)
{
	const uint8_t md = RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D;

	switch (layer) {
	case RDMAP_TERM_LAYER_RDMAP:
		/* RFC 5040 §4.8 Figure 10.  The Terminated RDMA Header "is
		 * only sent back if the terminate is associated with an
		 * RDMA Read Request Message"; RFC 7306 §8.1 zeroes it for
		 * the new messages, so they get D only. */
		if (etype == RDMAP_ETYPE_REMOTE_PROT)
			return opcode == RDMAP_READ_REQ ?
				       md | RDMAP_TERM_HDRCT_R :
				       md;
		if (etype == RDMAP_ETYPE_REMOTE_OP)
			return md;
		/* Local Catastrophic: no headers. */
		return 0;
	case RDMAP_TERM_LAYER_DDP:
		/* Figure 10: DDP errors include the DDP header, except a
		 * Local Catastrophic error ("The DDP Header is not present
		 * if the Terminate Error Type is a Local Catastrophic
		 * Error"); type 3 is the LLP's (RFC 5041 §7.2). */
		if (etype == DDP_ETYPE_TAGGED || etype == DDP_ETYPE_UNTAGGED)
			return md;
		return 0;
	default:
		/* Figure 10: LLP errors carry no headers. */
		return 0;
	}
}

/* Fill t for an error on the inbound segment seg. */
void rdmap_term_fill(struct rdmap_term *t, uint8_t layer, uint8_t etype,
		     uint8_t ecode, const uint8_t *seg, size_t seg_len)
{
	uint8_t opcode = RDMAP_OPCODE_MAX;
	uint8_t hdrct;
	size_t dlen = 0;

	memset(t, 0, sizeof(*t));
	t->layer = layer;
	t->etype = etype;
	t->ecode = ecode;

	if (seg && seg_len >= 2)
		opcode = seg[1] & RDMAP_OPCODE_MASK;
	hdrct = rdmap_term_hdrct(layer, etype, opcode);

	/* Figure 10 "Yes, if possible": only a header we hold whole. */
	if (seg && seg_len >= 1)
		dlen = ddp_hdr_len(seg[0]);
	if (!seg || seg_len < dlen || dlen == 0)
		hdrct &= (uint8_t) ~(RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D |
				     RDMAP_TERM_HDRCT_R);
	/* The Read Request header follows an untagged DDP header. */
	if ((hdrct & RDMAP_TERM_HDRCT_R) &&
	    (dlen != DDP_UNTAGGED_HDR_LEN ||
	     seg_len < DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN))
		hdrct &= (uint8_t)~RDMAP_TERM_HDRCT_R;

	if (hdrct & RDMAP_TERM_HDRCT_D) {
		memcpy(t->ddp_hdr, seg, dlen);
		t->ddp_hdr_len = dlen;
		t->has_ddp_seg_len = true;
		/* RFC 5040 §4.8: the length "MUST be valid if the M bit is
		 * set"; a length that does not fit is sent as not valid. */
		if (seg_len > UINT16_MAX)
			hdrct &= (uint8_t)~RDMAP_TERM_HDRCT_M;
		else
			t->ddp_seg_len = (uint16_t)seg_len;
	}
	if (hdrct & RDMAP_TERM_HDRCT_R)
		memcpy(t->rdma_hdr, seg + DDP_UNTAGGED_HDR_LEN,
		       RDMAP_READ_REQ_LEN);
	t->hdrct = hdrct;
}
