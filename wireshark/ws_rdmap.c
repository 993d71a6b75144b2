/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP (RFC 5041 §4) and RDMAP (RFC 5040 §4, RFC 7306 §5-6) headers of one
 * DDP segment, decoded by wire/ddp.c and wire/rdmap.c and placed in the
 * tree at the offsets those RFCs give their fields.  Names of opcodes,
 * atomic opcodes, Terminate layers, types and codes are wire/'s.
 */
#include "config.h"

#include <string.h>

#include <epan/expert.h>

#include "ddp.h"
#include "iwcm_ws.h"
#include "rdmap.h"

static int proto_ddp = -1;
static int proto_rdmap = -1;

static int hf_ddp_ctrl = -1;
static int hf_ddp_t = -1;
static int hf_ddp_l = -1;
static int hf_ddp_rsvd = -1;
static int hf_ddp_dv = -1;
static int hf_ddp_stag = -1;
static int hf_ddp_to = -1;
static int hf_ddp_rsvd_ulp = -1;
static int hf_ddp_qn = -1;
static int hf_ddp_msn = -1;
static int hf_ddp_mo = -1;
static int hf_ddp_error = -1;
static int hf_tddp_ctrl = -1;
static int hf_tddp_t = -1;
static int hf_tddp_l = -1;
static int hf_tddp_rsvd = -1;
static int hf_tddp_dv = -1;
static int hf_tddp_stag = -1;
static int hf_tddp_to = -1;
static int hf_tddp_rsvd_ulp = -1;
static int hf_tddp_qn = -1;
static int hf_tddp_msn = -1;
static int hf_tddp_mo = -1;
static int hf_trdmap_rv = -1;
static int hf_trdmap_opcode = -1;

/* The DDP header's fields: a segment's own, or the Terminated DDP Header
 * a Terminate carries (RFC 5040 §4.8), which has names of its own. */
struct ddp_hf {
	int *ctrl, *t, *l, *rsvd, *dv, *stag, *to, *rsvd_ulp, *qn, *msn, *mo;
};

static const struct ddp_hf ddp_hf_seg = {
	&hf_ddp_ctrl, &hf_ddp_t,    &hf_ddp_l,	&hf_ddp_rsvd,
	&hf_ddp_dv,   &hf_ddp_stag, &hf_ddp_to, &hf_ddp_rsvd_ulp,
	&hf_ddp_qn,   &hf_ddp_msn,  &hf_ddp_mo,
};

static const struct ddp_hf ddp_hf_term = {
	&hf_tddp_ctrl, &hf_tddp_t,    &hf_tddp_l,  &hf_tddp_rsvd,
	&hf_tddp_dv,   &hf_tddp_stag, &hf_tddp_to, &hf_tddp_rsvd_ulp,
	&hf_tddp_qn,   &hf_tddp_msn,  &hf_tddp_mo,
};

static int hf_rdmap_ctrl = -1;
static int hf_rdmap_rv = -1;
static int hf_rdmap_rsvd = -1;
static int hf_rdmap_opcode = -1;
static int hf_rdmap_name = -1;
static int hf_rdmap_inv_stag = -1;
static int hf_rdmap_rr_sink_stag = -1;
static int hf_rdmap_rr_sink_to = -1;
static int hf_rdmap_rr_size = -1;
static int hf_rdmap_rr_src_stag = -1;
static int hf_rdmap_rr_src_to = -1;
static int hf_rdmap_imm = -1;
static int hf_rdmap_a_word = -1;
static int hf_rdmap_a_rsvd = -1;
static int hf_rdmap_a_aopcode = -1;
static int hf_rdmap_a_req_id = -1;
static int hf_rdmap_a_stag = -1;
static int hf_rdmap_a_to = -1;
static int hf_rdmap_a_add_swap = -1;
static int hf_rdmap_a_add_swap_mask = -1;
static int hf_rdmap_a_cmp = -1;
static int hf_rdmap_a_cmp_mask = -1;
static int hf_rdmap_a_orig = -1;
static int hf_rdmap_t_layer = -1;
static int hf_rdmap_t_etype = -1;
static int hf_rdmap_t_ecode = -1;
static int hf_rdmap_t_hdrct = -1;
static int hf_rdmap_t_hdrct_m = -1;
static int hf_rdmap_t_hdrct_d = -1;
static int hf_rdmap_t_hdrct_r = -1;
static int hf_rdmap_t_seg_len = -1;
static int hf_rdmap_t_ddp_hdr = -1;
static int hf_rdmap_t_rdma_hdr = -1;
static int hf_rdmap_payload_len = -1;
static int hf_rdmap_payload = -1;
static int hf_rdmap_error = -1;

static gint ett_ddp = -1;
static gint ett_ddp_ctrl = -1;
static gint ett_rdmap = -1;
static gint ett_rdmap_ctrl = -1;
static gint ett_rdmap_hdr = -1;
static gint ett_rdmap_term_ddp = -1;

static expert_field ei_ddp_malformed = EI_INIT;
static expert_field ei_rdmap_malformed = EI_INIT;

/* Name tables filled from wire/'s name functions at registration. */
static value_string vs_opcode[RDMAP_OPCODE_MAX + 2];
static value_string vs_aopcode[17];
static value_string vs_layer[17];

static void vs_fill(value_string *vs, unsigned int n,
		    const char *(*name)(uint8_t))
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		vs[i].value = i;
		vs[i].strptr = name((uint8_t)i);
	}
	vs[n].value = 0;
	vs[n].strptr = NULL;
}

/* RFC 5041 §4.2-4.3: the DDP header's fields as wire/ddp.c decoded it. */
static void ddp_fields(tvbuff_t *tvb, proto_tree *t, const struct ddp_hdr *h,
		       const struct ddp_hf *f)
{
	proto_item *ti;
	proto_tree *ct;
	/* the control octet re-encoded from the decoded fields */
	uint8_t ctrl = (uint8_t)((h->tagged ? DDP_FLAG_T : 0) |
				 (h->last ? DDP_FLAG_L : 0) |
				 ((h->rsvd << 2) & DDP_RSVD_MASK) |
				 (h->dv & DDP_DV_MASK));

	ti = proto_tree_add_uint(t, *f->ctrl, tvb, 0, 1, ctrl);
	ct = proto_item_add_subtree(ti, ett_ddp_ctrl);
	proto_tree_add_boolean(ct, *f->t, tvb, 0, 1, ctrl);
	proto_tree_add_boolean(ct, *f->l, tvb, 0, 1, ctrl);
	proto_tree_add_uint(ct, *f->rsvd, tvb, 0, 1, ctrl);
	proto_tree_add_uint(ct, *f->dv, tvb, 0, 1, ctrl);
	if (h->tagged) {
		/* RFC 5041 §4.2 Figure 3 */
		proto_tree_add_uint(t, *f->stag, tvb, 2, 4, h->stag);
		proto_tree_add_uint64(t, *f->to, tvb, 6, 8, h->to);
		return;
	}
	/* RFC 5041 §4.3 Figure 4 */
	proto_tree_add_uint(t, *f->rsvd_ulp, tvb, 2, 4, h->rsvd_ulp32);
	proto_tree_add_uint(t, *f->qn, tvb, 6, 4, h->qn);
	proto_tree_add_uint(t, *f->msn, tvb, 10, 4, h->msn);
	proto_tree_add_uint(t, *f->mo, tvb, 14, 4, h->mo);
}

/* The DDP protocol item of a segment. */
static void ddp_tree(tvbuff_t *tvb, proto_tree *tree, const struct ddp_hdr *h)
{
	size_t hlen = h->tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
	proto_item *ti = proto_tree_add_item(tree, proto_ddp, tvb, 0,
					     (gint)hlen, ENC_NA);

	proto_item_append_text(ti, ", %s", h->tagged ? "Tagged" : "Untagged");
	ddp_fields(tvb, proto_item_add_subtree(ti, ett_ddp), h, &ddp_hf_seg);
}

/* RFC 5040 §4.1 Figure 3: RV, Rsvd and OpCode in DDP's second octet. */
static void rdmap_ctrl(tvbuff_t *tvb, proto_tree *t, uint8_t rv, uint8_t rsvd,
		       uint8_t opcode)
{
	proto_item *ti;
	proto_tree *ct;
	uint8_t ctrl = (uint8_t)(rv << RDMAP_RV_SHIFT | (rsvd & 3) << 4 |
				 (opcode & RDMAP_OPCODE_MASK));

	ti = proto_tree_add_uint(t, hf_rdmap_ctrl, tvb, 1, 1, ctrl);
	ct = proto_item_add_subtree(ti, ett_rdmap_ctrl);
	proto_tree_add_uint(ct, hf_rdmap_rv, tvb, 1, 1, ctrl);
	proto_tree_add_uint(ct, hf_rdmap_rsvd, tvb, 1, 1, ctrl);
	proto_tree_add_uint(ct, hf_rdmap_opcode, tvb, 1, 1, ctrl);
	ti = proto_tree_add_string(t, hf_rdmap_name, tvb, 1, 1,
				   rdmap_opcode_name(opcode));
	proto_item_set_generated(ti);
}

/* RFC 5040 §4.4 Figure 6 (also the Terminated RDMA Header, §4.8). */
static void read_req_tree(tvbuff_t *tvb, proto_tree *t, int o,
			  const struct rdmap_read_req *r)
{
	proto_tree_add_uint(t, hf_rdmap_rr_sink_stag, tvb, o, 4, r->sink_stag);
	proto_tree_add_uint64(t, hf_rdmap_rr_sink_to, tvb, o + 4, 8,
			      r->sink_to);
	proto_tree_add_uint(t, hf_rdmap_rr_size, tvb, o + 12, 4, r->size);
	proto_tree_add_uint(t, hf_rdmap_rr_src_stag, tvb, o + 16, 4,
			    r->src_stag);
	proto_tree_add_uint64(t, hf_rdmap_rr_src_to, tvb, o + 20, 8, r->src_to);
}

/* RFC 7306 §5.2.1 Figure 4: the Atomic Request header. */
static void atomic_req_tree(tvbuff_t *tvb, proto_tree *t, int o,
			    const struct rdmap_atomic_req *a)
{
	uint32_t w0 = a->rsvd << 4 | (a->aopcode & 0xF);
	proto_item *ti;
	proto_tree *wt;

	ti = proto_tree_add_uint(t, hf_rdmap_a_word, tvb, o, 4, w0);
	wt = proto_item_add_subtree(ti, ett_rdmap_ctrl);
	proto_tree_add_uint(wt, hf_rdmap_a_rsvd, tvb, o, 4, w0);
	proto_tree_add_uint(wt, hf_rdmap_a_aopcode, tvb, o, 4, w0);
	proto_tree_add_uint(t, hf_rdmap_a_req_id, tvb, o + 4, 4, a->req_id);
	proto_tree_add_uint(t, hf_rdmap_a_stag, tvb, o + 8, 4, a->stag);
	proto_tree_add_uint64(t, hf_rdmap_a_to, tvb, o + 12, 8, a->to);
	proto_tree_add_uint64(t, hf_rdmap_a_add_swap, tvb, o + 20, 8,
			      a->add_swap);
	proto_tree_add_uint64(t, hf_rdmap_a_add_swap_mask, tvb, o + 28, 8,
			      a->add_swap_mask);
	proto_tree_add_uint64(t, hf_rdmap_a_cmp, tvb, o + 36, 8, a->cmp);
	proto_tree_add_uint64(t, hf_rdmap_a_cmp_mask, tvb, o + 44, 8,
			      a->cmp_mask);
}

/* RFC 5040 §4.8 Figures 7-9: the Terminate header, names from wire/. */
static void term_tree(tvbuff_t *tvb, proto_tree *t, int o,
		      const struct rdmap_term *tm)
{
	proto_item *ti;
	proto_tree *ht;
	int p = o + RDMAP_TERM_CTRL_LEN;

	proto_tree_add_uint(t, hf_rdmap_t_layer, tvb, o, 1, tm->layer);
	proto_tree_add_uint_format_value(
		t, hf_rdmap_t_etype, tvb, o, 1, tm->etype, "%s (%u)",
		rdmap_term_etype_name(tm->layer, tm->etype), tm->etype);
	proto_tree_add_uint_format_value(
		t, hf_rdmap_t_ecode, tvb, o + 1, 1, tm->ecode, "%s (0x%02x)",
		rdmap_term_ecode_name(tm->layer, tm->etype, tm->ecode),
		tm->ecode);
	ti = proto_tree_add_uint(t, hf_rdmap_t_hdrct, tvb, o + 2, 1, tm->hdrct);
	ht = proto_item_add_subtree(ti, ett_rdmap_ctrl);
	proto_tree_add_boolean(ht, hf_rdmap_t_hdrct_m, tvb, o + 2, 1,
			       tm->hdrct);
	proto_tree_add_boolean(ht, hf_rdmap_t_hdrct_d, tvb, o + 2, 1,
			       tm->hdrct);
	proto_tree_add_boolean(ht, hf_rdmap_t_hdrct_r, tvb, o + 2, 1,
			       tm->hdrct);
	if (tm->has_ddp_seg_len) {
		proto_tree_add_uint(t, hf_rdmap_t_seg_len, tvb, p, 2,
				    tm->ddp_seg_len);
		p += 2;
	}
	if ((tm->hdrct & RDMAP_TERM_HDRCT_D) && tm->ddp_hdr_len) {
		struct ddp_hdr h;
		size_t used;

		ti = proto_tree_add_item(t, hf_rdmap_t_ddp_hdr, tvb, p,
					 (gint)tm->ddp_hdr_len, ENC_NA);
		if (ddp_hdr_parse(tm->ddp_hdr, tm->ddp_hdr_len, &h, &used) ==
		    WIRE_OK) {
			tvbuff_t *sub = tvb_new_subset_length(
				tvb, p, (gint)tm->ddp_hdr_len);
			proto_tree *dt =
				proto_item_add_subtree(ti, ett_rdmap_term_ddp);

			ddp_fields(sub, dt, &h, &ddp_hf_term);
			proto_tree_add_uint(dt, hf_trdmap_rv, sub, 1, 1,
					    h.rsvd_ulp8 >> RDMAP_RV_SHIFT);
			proto_tree_add_uint(dt, hf_trdmap_opcode, sub, 1, 1,
					    h.rsvd_ulp8 & RDMAP_OPCODE_MASK);
		}
		p += (int)tm->ddp_hdr_len;
	}
	if (tm->hdrct & RDMAP_TERM_HDRCT_R) {
		struct rdmap_read_req rr;

		ti = proto_tree_add_item(t, hf_rdmap_t_rdma_hdr, tvb, p,
					 RDMAP_READ_REQ_LEN, ENC_NA);
		if (rdmap_read_req_parse(tm->rdma_hdr, sizeof(tm->rdma_hdr),
					 &rr) == WIRE_OK)
			read_req_tree(
				tvb,
				proto_item_add_subtree(ti, ett_rdmap_term_ddp),
				p, &rr);
	}
}

/* The opcode's own header after the DDP header (RFC 5040 §4, 7306). */
static void opcode_hdr(tvbuff_t *tvb, proto_tree *t, int o,
		       const struct rdmap_msg *m)
{
	proto_tree *ht = t;

	switch (m->opcode) {
	case RDMAP_READ_REQ:
		read_req_tree(tvb, ht, o, &m->u.read_req);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE: {
		/* RFC 7306 §6.2: 8 octets of Immediate Data */
		uint64_t v = 0;
		unsigned int i;

		for (i = 0; i < RDMAP_IMM_DATA_LEN; i++)
			v = v << 8 | m->u.imm[i];
		proto_tree_add_uint64(ht, hf_rdmap_imm, tvb, o, 8, v);
		break;
	}
	case RDMAP_ATOMIC_REQ:
		atomic_req_tree(tvb, ht, o, &m->u.atomic_req);
		break;
	case RDMAP_ATOMIC_RESP:
		/* RFC 7306 §5.2.2 Figure 6 */
		proto_tree_add_uint(ht, hf_rdmap_a_req_id, tvb, o, 4,
				    m->u.atomic_resp.req_id);
		proto_tree_add_uint64(ht, hf_rdmap_a_orig, tvb, o + 4, 8,
				      m->u.atomic_resp.orig);
		break;
	case RDMAP_TERMINATE:
		term_tree(tvb, ht, o, &m->u.term);
		break;
	default:
		break;
	}
}

/* Decode one DDP segment with RDMAP through wire/ into tree. */
void ws_rdmap_dissect(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      struct ws_rdmap_res *res)
{
	guint len = tvb_captured_length(tvb);
	const uint8_t *p = len ? tvb_get_ptr(tvb, 0, len) : NULL;
	struct ddp_hdr h;
	struct rdmap_msg m;
	enum wire_err de, re;
	proto_item *ti;
	proto_tree *t;
	size_t used = 0;
	int hoff;

	memset(res, 0, sizeof(*res));
	de = p ? ddp_hdr_parse(p, len, &h, &used) : WIRE_ESHORT;
	if (de == WIRE_OK) {
		res->ddp_ok = true;
		res->dv = h.dv;
		ddp_tree(tvb, tree, &h);
	} else {
		ti = proto_tree_add_item(tree, proto_ddp, tvb, 0, -1, ENC_NA);
		t = proto_item_add_subtree(ti, ett_ddp);
		ti = proto_tree_add_string(t, hf_ddp_error, tvb, 0, -1,
					   wire_errname(de));
		expert_add_info_format(pinfo, ti, &ei_ddp_malformed,
				       "DDP header: %s", wire_strerror(de));
	}
	re = p ? rdmap_msg_parse(p, len, &m) : WIRE_ESHORT;
	if (len >= 2) {
		res->has_ctrl = true;
		res->opcode = p[1] & RDMAP_OPCODE_MASK;
		res->rv = (uint8_t)(p[1] >> RDMAP_RV_SHIFT);
	}
	ti = proto_tree_add_item(tree, proto_rdmap, tvb, len >= 2 ? 1 : 0, -1,
				 ENC_NA);
	t = proto_item_add_subtree(ti, ett_rdmap);
	if (re != WIRE_OK) {
		if (res->has_ctrl)
			rdmap_ctrl(tvb, t, res->rv,
				   (p[1] & RDMAP_CTRL_RSVD_MASK) >> 4,
				   res->opcode);
		ti = proto_tree_add_string(t, hf_rdmap_error, tvb, 0, -1,
					   wire_errname(re));
		expert_add_info_format(
			pinfo, ti, &ei_rdmap_malformed, "RDMAP: %s",
			re == WIRE_ESHORT ? "ULPDU shorter than its headers" :
					    wire_strerror(re));
		return;
	}
	res->rdmap_ok = true;
	res->rv = m.rv;
	res->opcode = m.opcode;
	res->payload_len = m.payload_len;
	proto_item_append_text(ti, ", %s", rdmap_opcode_name(m.opcode));
	rdmap_ctrl(tvb, t, m.rv, m.ctrl_rsvd, m.opcode);
	if (m.opcode == RDMAP_SEND_INV || m.opcode == RDMAP_SEND_SE_INV)
		proto_tree_add_uint(t, hf_rdmap_inv_stag, tvb, 2, 4,
				    m.inv_stag);
	hoff = (int)used;
	opcode_hdr(tvb, t, hoff, &m);
	hoff = (int)(m.payload - p);
	ti = proto_tree_add_uint(t, hf_rdmap_payload_len, tvb, hoff,
				 (gint)m.payload_len, (guint32)m.payload_len);
	proto_item_set_generated(ti);
	if (m.payload_len)
		proto_tree_add_item(t, hf_rdmap_payload, tvb, hoff,
				    (gint)m.payload_len, ENC_NA);
	switch (m.opcode) {
	case RDMAP_WRITE:
	case RDMAP_SEND:
		res->zero_len = m.payload_len == 0;
		break;
	case RDMAP_READ_REQ:
		res->zero_len = m.u.read_req.size == 0;
		break;
	default:
		break;
	}
}

/* Short text of an RDMAP opcode for the Info column. */
const char *ws_rdmap_info(const struct ws_rdmap_res *res)
{
	if (!res->has_ctrl)
		return "DDP segment too short";
	return rdmap_opcode_name(res->opcode);
}

/* clang-format off */
static hf_register_info hf_ddp[] = {
	{ &hf_ddp_ctrl, { "DDP control", "iwarp_ddp.ctrl", FT_UINT8, BASE_HEX, NULL, 0x0, "RFC 5041 §4.2: T, L, Rsvd, DV", HFILL } },
	{ &hf_ddp_t, { "Tagged flag", "iwarp_ddp.tagged_flag", FT_BOOLEAN, 8, NULL, DDP_FLAG_T, "T: tagged buffer model", HFILL } },
	{ &hf_ddp_l, { "Last flag", "iwarp_ddp.last_flag", FT_BOOLEAN, 8, NULL, DDP_FLAG_L, "L: last segment of the message", HFILL } },
	{ &hf_ddp_rsvd, { "Reserved", "iwarp_ddp.rsvd", FT_UINT8, BASE_DEC, NULL, DDP_RSVD_MASK, NULL, HFILL } },
	{ &hf_ddp_dv, { "DDP version", "iwarp_ddp.dv", FT_UINT8, BASE_DEC, NULL, DDP_DV_MASK, NULL, HFILL } },
	{ &hf_ddp_stag, { "(Data Sink) Steering Tag", "iwarp_ddp.stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_ddp_to, { "(Data Sink) Tagged offset", "iwarp_ddp.tagged_offset", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_ddp_rsvd_ulp, { "Reserved for the ULP", "iwarp_ddp.rsvd_ulp", FT_UINT32, BASE_HEX, NULL, 0x0, "Untagged RsvdULP word (RDMAP Invalidate STag)", HFILL } },
	{ &hf_ddp_qn, { "Queue number", "iwarp_ddp.qn", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_ddp_msn, { "Message sequence number", "iwarp_ddp.msn", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_ddp_mo, { "Message offset", "iwarp_ddp.mo", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_ctrl, { "DDP control", "rdmap.term.ddp.ctrl", FT_UINT8, BASE_HEX, NULL, 0x0, "Of the Terminated DDP Header", HFILL } },
	{ &hf_tddp_t, { "Tagged flag", "rdmap.term.ddp.tagged_flag", FT_BOOLEAN, 8, NULL, DDP_FLAG_T, NULL, HFILL } },
	{ &hf_tddp_l, { "Last flag", "rdmap.term.ddp.last_flag", FT_BOOLEAN, 8, NULL, DDP_FLAG_L, NULL, HFILL } },
	{ &hf_tddp_rsvd, { "Reserved", "rdmap.term.ddp.rsvd", FT_UINT8, BASE_DEC, NULL, DDP_RSVD_MASK, NULL, HFILL } },
	{ &hf_tddp_dv, { "DDP version", "rdmap.term.ddp.dv", FT_UINT8, BASE_DEC, NULL, DDP_DV_MASK, NULL, HFILL } },
	{ &hf_tddp_stag, { "(Data Sink) Steering Tag", "rdmap.term.ddp.stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_to, { "(Data Sink) Tagged offset", "rdmap.term.ddp.tagged_offset", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_rsvd_ulp, { "Reserved for the ULP", "rdmap.term.ddp.rsvd_ulp", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_qn, { "Queue number", "rdmap.term.ddp.qn", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_msn, { "Message sequence number", "rdmap.term.ddp.msn", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_tddp_mo, { "Message offset", "rdmap.term.ddp.mo", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_trdmap_rv, { "RDMAP version", "rdmap.term.rdmap.rv", FT_UINT8, BASE_DEC, NULL, 0x0, "Of the terminated message", HFILL } },
	{ &hf_trdmap_opcode, { "RDMAP OpCode", "rdmap.term.rdmap.opcode", FT_UINT8, BASE_DEC, VALS(vs_opcode), 0x0, "Of the terminated message", HFILL } },
	{ &hf_ddp_error, { "DDP header error", "iwarp_ddp.error", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
};

static hf_register_info hf_rdmap[] = {
	{ &hf_rdmap_ctrl, { "RDMAP control", "rdmap.ctrl", FT_UINT8, BASE_HEX, NULL, 0x0, "RFC 5040 §4.1: RV, Rsvd, OpCode", HFILL } },
	{ &hf_rdmap_rv, { "Version", "rdmap.rv", FT_UINT8, BASE_DEC, NULL, RDMAP_RV_MASK, NULL, HFILL } },
	{ &hf_rdmap_rsvd, { "Reserved", "rdmap.rsvd", FT_UINT8, BASE_DEC, NULL, RDMAP_CTRL_RSVD_MASK, NULL, HFILL } },
	{ &hf_rdmap_opcode, { "OpCode", "rdmap.opcode", FT_UINT8, BASE_DEC, VALS(vs_opcode), RDMAP_OPCODE_MASK, NULL, HFILL } },
	{ &hf_rdmap_name, { "Message", "rdmap.name", FT_STRING, BASE_NONE, NULL, 0x0, "Name of the opcode", HFILL } },
	{ &hf_rdmap_inv_stag, { "Invalidate STag", "rdmap.inv_stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_rr_sink_stag, { "Data Sink STag", "rdmap.read.sink_stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_rr_sink_to, { "Data Sink Tagged Offset", "rdmap.read.sink_to", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_rr_size, { "RDMA Read Message Size", "rdmap.read.size", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_rr_src_stag, { "Data Source STag", "rdmap.read.src_stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_rr_src_to, { "Data Source Tagged Offset", "rdmap.read.src_to", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_imm, { "Immediate Data", "rdmap.imm", FT_UINT64, BASE_HEX, NULL, 0x0, "RFC 7306 §6.2", HFILL } },
	{ &hf_rdmap_a_word, { "Atomic operation", "rdmap.atomic.word", FT_UINT32, BASE_HEX, NULL, 0x0, "Reserved and AOpCode", HFILL } },
	{ &hf_rdmap_a_rsvd, { "Reserved", "rdmap.atomic.rsvd", FT_UINT32, BASE_HEX, NULL, 0xFFFFFFF0, NULL, HFILL } },
	{ &hf_rdmap_a_aopcode, { "Atomic OpCode", "rdmap.atomic.aopcode", FT_UINT32, BASE_DEC, VALS(vs_aopcode), 0x0000000F, "RFC 7306 §5.2.1 Figure 5", HFILL } },
	{ &hf_rdmap_a_req_id, { "Request Identifier", "rdmap.atomic.req_id", FT_UINT32, BASE_HEX, NULL, 0x0, "Request Identifier, or Original Request Identifier in a response", HFILL } },
	{ &hf_rdmap_a_stag, { "Remote STag", "rdmap.atomic.stag", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_to, { "Remote Tagged Offset", "rdmap.atomic.to", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_add_swap, { "Add or Swap Data", "rdmap.atomic.add_swap", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_add_swap_mask, { "Add or Swap Mask", "rdmap.atomic.add_swap_mask", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_cmp, { "Compare Data", "rdmap.atomic.cmp", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_cmp_mask, { "Compare Mask", "rdmap.atomic.cmp_mask", FT_UINT64, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_a_orig, { "Original Remote Data Value", "rdmap.atomic.orig", FT_UINT64, BASE_HEX, NULL, 0x0, "RFC 7306 §5.2.2", HFILL } },
	{ &hf_rdmap_t_layer, { "Terminate Layer", "rdmap.term.layer", FT_UINT8, BASE_DEC, VALS(vs_layer), 0x0, "RFC 5040 §4.8", HFILL } },
	{ &hf_rdmap_t_etype, { "Terminate Error Type", "rdmap.term.etype", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_t_ecode, { "Terminate Error Code", "rdmap.term.ecode", FT_UINT8, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_t_hdrct, { "Header control", "rdmap.term.hdrct", FT_UINT8, BASE_HEX, NULL, 0x0, "HdrCt: M, D, R", HFILL } },
	{ &hf_rdmap_t_hdrct_m, { "DDP Segment Length valid", "rdmap.term.hdrct_m", FT_BOOLEAN, 8, NULL, RDMAP_TERM_HDRCT_M, "M", HFILL } },
	{ &hf_rdmap_t_hdrct_d, { "DDP header included", "rdmap.term.hdrct_d", FT_BOOLEAN, 8, NULL, RDMAP_TERM_HDRCT_D, "D", HFILL } },
	{ &hf_rdmap_t_hdrct_r, { "RDMA header included", "rdmap.term.hdrct_r", FT_BOOLEAN, 8, NULL, RDMAP_TERM_HDRCT_R, "R", HFILL } },
	{ &hf_rdmap_t_seg_len, { "DDP Segment Length", "rdmap.term.ddp_seg_len", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_t_ddp_hdr, { "Terminated DDP Header", "rdmap.term.ddp_hdr", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_t_rdma_hdr, { "Terminated RDMA Header", "rdmap.term.rdma_hdr", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_payload_len, { "Payload length", "rdmap.payload_length", FT_UINT32, BASE_DEC, NULL, 0x0, "ULP data after all headers", HFILL } },
	{ &hf_rdmap_payload, { "Payload", "rdmap.payload", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_rdmap_error, { "RDMAP error", "rdmap.error", FT_STRING, BASE_NONE, NULL, 0x0, "Why wire/rdmap.c rejected the segment", HFILL } },
};

static ei_register_info ei_ddp[] = {
	{ &ei_ddp_malformed, { "iwarp_ddp.malformed", PI_MALFORMED, PI_ERROR, "Malformed DDP header", EXPFILL } },
};

static ei_register_info ei_rdmap[] = {
	{ &ei_rdmap_malformed, { "rdmap.malformed", PI_MALFORMED, PI_ERROR, "Malformed RDMAP message", EXPFILL } },
};
/* clang-format on */

/* Register the DDP and RDMAP protocols and their fields. */
void ws_rdmap_register(void)
{
	static gint *ett[] = {
		&ett_ddp,	 &ett_ddp_ctrl,	 &ett_rdmap,
		&ett_rdmap_ctrl, &ett_rdmap_hdr, &ett_rdmap_term_ddp,
	};

	vs_fill(vs_opcode, RDMAP_OPCODE_MAX + 1, rdmap_opcode_name);
	vs_fill(vs_aopcode, 16, rdmap_aopcode_name);
	vs_fill(vs_layer, 16, rdmap_term_layer_name);
	proto_ddp = proto_register_protocol(
		"iWARP Direct Data Placement (iwcm)", "iWARP DDP", "iwcm_ddp");
	proto_rdmap = proto_register_protocol(
		"iWARP Remote Direct Memory Access Protocol (iwcm)", "RDMAP",
		"rdmap");
	proto_register_field_array(proto_ddp, hf_ddp, array_length(hf_ddp));
	proto_register_field_array(proto_rdmap, hf_rdmap,
				   array_length(hf_rdmap));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto_ddp), ei_ddp,
				    array_length(ei_ddp));
	expert_register_field_array(expert_register_protocol(proto_rdmap),
				    ei_rdmap, array_length(ei_rdmap));
}
