/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The tree of MPA (RFC 5044, RFC 6581) records: startup frames with the
 * enhanced word (RFC 6581 §9), the seed-003 RtR frame, what the frames
 * negotiated, FPDUs with their markers (RFC 5044 §4.3), pad and CRC32c
 * (§4.4), and the decoder's notes as expert infos.  A frame is decoded
 * again by wire/mpa.c from its octets; an FPDU's framing verdicts are
 * the stream decoder's, its DDP segment goes to ws_rdmap.c.
 */
#include "config.h"

#include <string.h>

#include <epan/expert.h>

#include "mpa.h"
#include "ws_mpa.h"

static int proto_mpa = -1;

static int hf_dir = -1;
static int hf_offset = -1;
static int hf_src = -1;
static int hf_dst = -1;
static int hf_crc_match = -1;
static int hf_frame = -1;
static int hf_key = -1;
static int hf_length = -1;
static int hf_flags = -1;
static int hf_flag_m = -1;
static int hf_flag_c = -1;
static int hf_flag_r = -1;
static int hf_flag_s = -1;
static int hf_flag_res = -1;
static int hf_rev = -1;
static int hf_pd_len = -1;
static int hf_pd = -1;
static int hf_enhanced = -1;
static int hf_enh = -1;
static int hf_enh_a = -1;
static int hf_enh_b = -1;
static int hf_enh_ird = -1;
static int hf_enh_c = -1;
static int hf_enh_d = -1;
static int hf_enh_ord = -1;
static int hf_ulp_pd = -1;
static int hf_key_rtr_lower = -1;
static int hf_neg = -1;
static int hf_neg_initiator = -1;
static int hf_neg_responder = -1;
static int hf_neg_rev_req = -1;
static int hf_neg_rev_rep = -1;
static int hf_neg_rejected = -1;
static int hf_neg_rdmac = -1;
static int hf_neg_markers_i2r = -1;
static int hf_neg_markers_r2i = -1;
static int hf_neg_crc = -1;
static int hf_neg_version = -1;
static int hf_neg_enhanced = -1;
static int hf_neg_p2p = -1;
static int hf_neg_ird_req = -1;
static int hf_neg_ord_req = -1;
static int hf_neg_ird_rep = -1;
static int hf_neg_ord_rep = -1;
static int hf_neg_rtr_offered = -1;
static int hf_neg_rtr_allowed = -1;
static int hf_neg_problem = -1;
static int hf_fpdu_index = -1;
static int hf_hdr_offset = -1;
static int hf_wire_len = -1;
static int hf_ulpdu_len = -1;
static int hf_pad = -1;
static int hf_pad_len = -1;
static int hf_crc = -1;
static int hf_crc_status = -1;
static int hf_crc_calc = -1;
static int hf_markers = -1;
static int hf_markers_ok = -1;
static int hf_marker = -1;
static int hf_marker_off = -1;
static int hf_marker_res = -1;
static int hf_marker_ptr = -1;
static int hf_marker_expect = -1;
static int hf_marker_ok = -1;
static int hf_rtr = -1;
static int hf_rtr_problem = -1;
static int hf_version_problem = -1;
static int hf_bad = -1;
static int hf_event = -1;
static int hf_event_kind = -1;
static int hf_retrans = -1;

static gint ett_mpa = -1;
static gint ett_flags = -1;
static gint ett_enh = -1;
static gint ett_neg = -1;
static gint ett_marker = -1;
static gint ett_markers = -1;

static expert_field ei_crc_bad = EI_INIT;
static expert_field ei_marker_bad = EI_INIT;
static expert_field ei_rtr = EI_INIT;
static expert_field ei_version = EI_INIT;
static expert_field ei_neg_problem = EI_INIT;
static expert_field ei_event_bad = EI_INIT;
static expert_field ei_event_note = EI_INIT;
static expert_field ei_frame_bad = EI_INIT;

static const value_string vs_frame[] = {
	{ MPA_FRAME_REQ, "Request" },
	{ MPA_FRAME_REP, "Reply" },
	{ MPA_FRAME_RTR, "RtR frame" },
	{ 0, NULL },
};

static const value_string vs_crc[] = {
	{ OUT_CRC_OFF, "off" },
	{ OUT_CRC_GOOD, "good" },
	{ OUT_CRC_BAD, "bad" },
	{ OUT_CRC_UNKNOWN, "unknown" },
	{ 0, NULL },
};

static const value_string vs_ev[] = {
	{ OUT_EV_NOTE, "note" },
	{ OUT_EV_GAP, "gap" },
	{ OUT_EV_TRUNCATED, "truncated" },
	{ OUT_EV_MALFORMED, "malformed" },
	{ OUT_EV_PROTOCOL, "protocol" },
	{ OUT_EV_CAPTURE, "capture" },
	{ 0, NULL },
};

/* A tvb with the record's octets: the packet's own when they lie in
 * this segment, else the reassembled copy as a new data source. */
static tvbuff_t *rec_tvb(tvbuff_t *tvb, packet_info *pinfo,
			 const struct ws_pkt *k, const struct ws_rec *r,
			 const char *what)
{
	tvbuff_t *t;

	if (r->side == k->side && r->pos >= k->seg_pos &&
	    r->pos + r->raw_len <= k->seg_pos + k->seg_len &&
	    tvb_bytes_exist(tvb, (gint)(r->pos - k->seg_pos),
			    (gint)r->raw_len) &&
	    !tvb_memeql(tvb, (gint)(r->pos - k->seg_pos), r->raw, r->raw_len))
		return tvb_new_subset_length(tvb, (gint)(r->pos - k->seg_pos),
					     (gint)r->raw_len);
	t = tvb_new_child_real_data(tvb, r->raw, (guint)r->raw_len,
				    (gint)r->raw_len);
	add_new_data_source(pinfo, t, what);
	return t;
}

static proto_tree *rec_item(tvbuff_t *t, proto_tree *tree, enum out_dir dir,
			    const char *src, const char *dst, uint64_t off,
			    proto_item **pi)
{
	proto_item *ti = proto_tree_add_item(tree, proto_mpa, t, 0, -1, ENC_NA);
	proto_tree *mt = proto_item_add_subtree(ti, ett_mpa);
	proto_item *gi;

	if (pi)
		*pi = ti;
	if (dir == OUT_DIR_NONE)
		return mt; /* not about one direction */
	gi = proto_tree_add_string(mt, hf_dir, t, 0, 0, out_dir_name(dir));
	proto_item_set_generated(gi);
	if (src && dst) {
		gi = proto_tree_add_string(mt, hf_src, t, 0, 0, src);
		proto_item_set_generated(gi);
		gi = proto_tree_add_string(mt, hf_dst, t, 0, 0, dst);
		proto_item_set_generated(gi);
	}
	gi = proto_tree_add_uint64(mt, hf_offset, t, 0, 0, off);
	proto_item_set_generated(gi);
	return mt;
}

/* RFC 6581 §9 Figure 9: the enhanced word, as wire/mpa.c decoded it. */
static void enh_tree(tvbuff_t *t, proto_tree *mt, int o,
		     const struct mpa_enh *e)
{
	uint32_t w = mpa_enh_word(e);
	proto_item *ti = proto_tree_add_uint(mt, hf_enh, t, o, 4, w);
	proto_tree *et = proto_item_add_subtree(ti, ett_enh);

	proto_tree_add_boolean(et, hf_enh_a, t, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_b, t, o, 4, w);
	proto_tree_add_uint(et, hf_enh_ird, t, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_c, t, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_d, t, o, 4, w);
	proto_tree_add_uint(et, hf_enh_ord, t, o, 4, w);
	proto_item_append_text(ti, " (%s, IRD %u, ORD %u)",
			       e->p2p ? "peer-to-peer" : "client-server",
			       e->ird, e->ord);
}

/* RFC 5044 §7.1.1 Figure 11 (RFC 6581 §6 Figure 7): a startup frame. */
static void frame_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		       const struct ws_pkt *k, const struct ws_rec *r)
{
	tvbuff_t *t = rec_tvb(tvb, pinfo, k, r, "Reassembled MPA frame");
	struct mpa_frame f;
	proto_item *ti, *top;
	proto_tree *mt, *ft;
	enum wire_err e;
	size_t used;

	mt = rec_item(t, tree, r->u.frame.dir, r->u.frame.src, r->u.frame.dst,
		      r->u.frame.off, &top);
	e = mpa_frame_parse(r->raw, r->raw_len, &f, &used);
	if (e != WIRE_OK) {
		expert_add_info_format(pinfo, top, &ei_frame_bad,
				       "MPA frame: %s", wire_strerror(e));
		return;
	}
	proto_item_append_text(top, ", %s", mpa_frame_type_name(f.type));
	col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "MPA %s Rev %u",
			    mpa_frame_type_name(f.type), f.rev);
	proto_tree_add_uint(mt, hf_frame, t, 0, MPA_KEY_LEN, f.type);
	proto_tree_add_item(mt, hf_key, t, 0, MPA_KEY_LEN, ENC_ASCII);
	if (r->u.frame.key_rtr_lower)
		proto_tree_add_boolean(mt, hf_key_rtr_lower, t, 0, MPA_KEY_LEN,
				       TRUE);
	ti = proto_tree_add_uint(mt, hf_length, t, 0, (gint)used,
				 (guint32)used);
	proto_item_set_generated(ti);
	ti = proto_tree_add_uint(mt, hf_flags, t, 16, 1, f.flags);
	ft = proto_item_add_subtree(ti, ett_flags);
	proto_tree_add_boolean(ft, hf_flag_m, t, 16, 1, f.flags);
	proto_tree_add_boolean(ft, hf_flag_c, t, 16, 1, f.flags);
	proto_tree_add_boolean(ft, hf_flag_r, t, 16, 1, f.flags);
	proto_tree_add_boolean(ft, hf_flag_s, t, 16, 1, f.flags);
	proto_tree_add_uint(ft, hf_flag_res, t, 16, 1, f.flags);
	proto_tree_add_uint(mt, hf_rev, t, 17, 1, f.rev);
	proto_tree_add_uint(mt, hf_pd_len, t, 18, 2, f.pd_len);
	proto_tree_add_item(mt, hf_pd, t, MPA_FRAME_HDR_LEN, f.pd_len, ENC_NA);
	ti = proto_tree_add_boolean(mt, hf_enhanced, t, 16, 1, f.enhanced);
	proto_item_set_generated(ti);
	if (f.enhanced) {
		enh_tree(t, mt, MPA_FRAME_HDR_LEN, &f.enh);
		proto_tree_add_item(mt, hf_ulp_pd, t,
				    MPA_FRAME_HDR_LEN + MPA_ENH_LEN,
				    f.ulp_pd_len, ENC_NA);
		col_append_fstr(pinfo->cinfo, COL_INFO, " IRD %u ORD %u%s",
				f.enh.ird, f.enh.ord, f.enh.p2p ? " p2p" : "");
	}
}

static void add_gen_uint(proto_tree *t, int hf, tvbuff_t *tvb, uint32_t v)
{
	proto_item_set_generated(proto_tree_add_uint(t, hf, tvb, 0, 0, v));
}

static void add_gen_bool(proto_tree *t, int hf, tvbuff_t *tvb, bool v)
{
	proto_item_set_generated(proto_tree_add_boolean(t, hf, tvb, 0, 0, v));
}

static void add_gen_str(proto_tree *t, int hf, tvbuff_t *tvb, const char *v)
{
	proto_item_set_generated(proto_tree_add_string(t, hf, tvb, 0, 0, v));
}

/* RFC 6581 §9.2: the RTR types of a set, in the decoder's words. */
static const char *rtr_list(wmem_allocator_t *a, uint8_t rtr)
{
	static const struct {
		uint8_t bit;
		const char *name;
	} names[] = {
		{ MPA_RTR_SEND, "send" },
		{ MPA_RTR_WRITE, "write" },
		{ MPA_RTR_READ, "read" },
	};
	wmem_strbuf_t *b = wmem_strbuf_new(a, "");
	unsigned int i;

	for (i = 0; i < G_N_ELEMENTS(names); i++)
		if (rtr & names[i].bit)
			wmem_strbuf_append_printf(
				b, "%s%s", wmem_strbuf_get_len(b) ? "," : "",
				names[i].name);
	return wmem_strbuf_finalize(b);
}

/* What the Request and Reply negotiated (wire/negotiate.c's verdict). */
static void params_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			const struct out_params *p)
{
	proto_item *ti, *top;
	proto_tree *mt = rec_item(tvb, tree, OUT_DIR_NONE, NULL, NULL, 0, &top);
	proto_tree *nt;

	ti = proto_tree_add_item(mt, hf_neg, tvb, 0, 0, ENC_NA);
	proto_item_set_generated(ti);
	proto_item_append_text(top, ", negotiated");
	nt = proto_item_add_subtree(ti, ett_neg);
	add_gen_str(nt, hf_neg_initiator, tvb, p->initiator);
	add_gen_str(nt, hf_neg_responder, tvb, p->responder);
	add_gen_uint(nt, hf_neg_rev_req, tvb, p->rev_req);
	add_gen_uint(nt, hf_neg_rev_rep, tvb, p->rev_rep);
	add_gen_bool(nt, hf_neg_rejected, tvb, p->rejected);
	add_gen_bool(nt, hf_neg_rdmac, tvb, p->rdmac);
	add_gen_bool(nt, hf_neg_markers_i2r, tvb, p->markers_i2r);
	add_gen_bool(nt, hf_neg_markers_r2i, tvb, p->markers_r2i);
	add_gen_bool(nt, hf_neg_crc, tvb, p->crc);
	add_gen_uint(nt, hf_neg_version, tvb, p->version);
	add_gen_bool(nt, hf_neg_enhanced, tvb, p->enhanced);
	add_gen_bool(nt, hf_neg_p2p, tvb, p->p2p);
	if (p->enhanced) {
		add_gen_uint(nt, hf_neg_ird_req, tvb, p->ird_req);
		add_gen_uint(nt, hf_neg_ord_req, tvb, p->ord_req);
		add_gen_uint(nt, hf_neg_ird_rep, tvb, p->ird_rep);
		add_gen_uint(nt, hf_neg_ord_rep, tvb, p->ord_rep);
		add_gen_str(nt, hf_neg_rtr_offered, tvb,
			    rtr_list(pinfo->pool, p->rtr_offered));
		add_gen_str(nt, hf_neg_rtr_allowed, tvb,
			    rtr_list(pinfo->pool, p->rtr_allowed));
	}
	if (p->problem) {
		ti = proto_tree_add_string(nt, hf_neg_problem, tvb, 0, 0,
					   p->problem);
		proto_item_set_generated(ti);
		expert_add_info_format(pinfo, ti, &ei_neg_problem, "%s",
				       p->problem);
	}
}

/* RFC 5044 §4.3 Figure 4: markers, at their places in the FPDU. */
static void markers_tree(tvbuff_t *t, packet_info *pinfo, proto_tree *mt,
			 const struct out_fpdu *f)
{
	proto_item *ti;
	proto_tree *lt, *xt;
	unsigned int i;

	ti = proto_tree_add_uint(mt, hf_markers, t, 0, 0, f->n_markers);
	proto_item_set_generated(ti);
	lt = proto_item_add_subtree(ti, ett_markers);
	ti = proto_tree_add_boolean(lt, hf_markers_ok, t, 0, 0, f->markers_ok);
	proto_item_set_generated(ti);
	for (i = 0; i < f->n_markers; i++) {
		const struct out_marker *m = &f->markers[i];
		gint o = (gint)(m->off - f->off);

		ti = proto_tree_add_item(lt, hf_marker, t, o, MPA_MARKER_LEN,
					 ENC_NA);
		xt = proto_item_add_subtree(ti, ett_marker);
		proto_item_set_generated(proto_tree_add_uint64(
			xt, hf_marker_off, t, o, MPA_MARKER_LEN, m->off));
		proto_tree_add_uint(xt, hf_marker_res, t, o, 2, m->rsvd);
		proto_tree_add_uint(xt, hf_marker_ptr, t, o + 2, 2, m->fpduptr);
		add_gen_uint(xt, hf_marker_expect, t, m->expect);
		ti = proto_tree_add_boolean(xt, hf_marker_ok, t, o,
					    MPA_MARKER_LEN, m->ok);
		proto_item_set_generated(ti);
		if (!m->ok)
			expert_add_info_format(
				pinfo, ti, &ei_marker_bad,
				"Marker at stream offset %" PRIu64
				" points %u back, the FPDU starts %u back "
				"(RFC 5044 §4.3)",
				m->off, m->fpduptr, m->expect);
	}
}

/* The pad octets sit before the CRC, and before a marker there. */
static gint pad_offset(const struct out_fpdu *f)
{
	gint end = (gint)f->wire_len - MPA_CRC_LEN;
	unsigned int i;

	for (i = 0; i < f->n_markers; i++)
		if ((gint)(f->markers[i].off - f->off) == end - MPA_MARKER_LEN)
			end -= MPA_MARKER_LEN;
	return end - (gint)f->pad;
}

/* RFC 5044 §4.1 Figure 2: one FPDU, its markers, pad and CRC. */
static void fpdu_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      const struct ws_pkt *k, const struct ws_rec *r)
{
	const struct out_fpdu *f = &r->u.fpdu;
	tvbuff_t *t = rec_tvb(tvb, pinfo, k, r, "Reassembled FPDU");
	tvbuff_t *u;
	proto_item *ti, *top;
	proto_tree *mt;
	struct ws_rdmap_res res;
	gint ho = (gint)(f->hdr_off - f->off);
	gint co = (gint)f->wire_len - MPA_CRC_LEN;

	mt = rec_item(t, tree, f->dir, f->src, f->dst, f->off, &top);
	proto_item_append_text(top, ", FPDU %lu", f->index);
	proto_tree_add_uint(mt, hf_fpdu_index, t, 0, 0, (guint32)f->index);
	proto_item_set_generated(
		proto_tree_add_uint64(mt, hf_hdr_offset, t, 0, 0, f->hdr_off));
	add_gen_uint(mt, hf_wire_len, t, (uint32_t)f->wire_len);
	proto_tree_add_uint(mt, hf_ulpdu_len, t, ho, MPA_HDR_LEN, f->ulpdu_len);
	add_gen_uint(mt, hf_pad_len, t, f->pad);
	if (f->pad)
		proto_tree_add_item(mt, hf_pad, t, pad_offset(f), (gint)f->pad,
				    ENC_NA);
	/* RFC 5044 §4.4: the CRC32c, least significant octet first */
	proto_tree_add_uint(mt, hf_crc, t, co, MPA_CRC_LEN, f->crc_wire);
	ti = proto_tree_add_uint(mt, hf_crc_status, t, co, MPA_CRC_LEN, f->crc);
	proto_item_set_generated(ti);
	if (f->crc == OUT_CRC_BAD || f->crc == OUT_CRC_UNKNOWN)
		add_gen_uint(mt, hf_crc_calc, t, f->crc_calc);
	if (f->crc == OUT_CRC_UNKNOWN)
		add_gen_bool(mt, hf_crc_match, t, f->crc_match);
	if (f->crc == OUT_CRC_BAD)
		expert_add_info_format(
			pinfo, ti, &ei_crc_bad,
			"Bad CRC32c: 0x%08x on the wire, 0x%08x computed",
			f->crc_wire, f->crc_calc);
	markers_tree(t, pinfo, mt, f);
	if (f->rtr)
		add_gen_str(mt, hf_rtr, t, f->rtr);
	if (f->rtr_problem) {
		ti = proto_tree_add_string(mt, hf_rtr_problem, t, 0, 0,
					   f->rtr_problem);
		proto_item_set_generated(ti);
		expert_add_info_format(pinfo, ti, &ei_rtr, "%s",
				       f->rtr_problem);
	}
	if (f->version_problem) {
		ti = proto_tree_add_string(mt, hf_version_problem, t, 0, 0,
					   f->version_problem);
		proto_item_set_generated(ti);
		expert_add_info_format(pinfo, ti, &ei_version, "%s",
				       f->version_problem);
	}
	add_gen_bool(mt, hf_bad, t, f->bad);
	/* the ULPDU without markers: DDP and RDMAP */
	if (!f->n_markers || !f->ulpdu_len) {
		u = tvb_new_subset_length(t, ho + MPA_HDR_LEN, f->ulpdu_len);
	} else {
		u = tvb_new_child_real_data(t, f->ulpdu, f->ulpdu_len,
					    f->ulpdu_len);
		add_new_data_source(pinfo, u, "ULPDU without markers");
	}
	ws_rdmap_dissect(u, pinfo, tree, &res);
	col_append_sep_fstr(pinfo->cinfo, COL_INFO, ", ", "%s%s",
			    ws_rdmap_info(&res),
			    f->crc == OUT_CRC_BAD ? " [bad CRC]" : "");
	if (f->rtr)
		col_append_fstr(pinfo->cinfo, COL_INFO, " (RTR)");
}

static void event_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		       const struct out_event *e)
{
	proto_item *ti, *top;
	proto_tree *mt = rec_item(tvb, tree, e->dir, NULL, NULL, e->off, &top);

	proto_item_append_text(top, ", %s",
			       val_to_str_const(e->kind, vs_ev, "event"));
	add_gen_uint(mt, hf_event_kind, tvb, e->kind);
	ti = proto_tree_add_string(mt, hf_event, tvb, 0, 0, e->msg);
	proto_item_set_generated(ti);
	expert_add_info_format(pinfo, ti,
			       e->bad ? &ei_event_bad : &ei_event_note, "%s",
			       e->msg);
}

/* Show the records of packet k in tree. */
void ws_mpa_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		 const struct ws_pkt *k)
{
	const struct ws_rec *r;
	proto_item *ti;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "MPA");
	col_clear(pinfo->cinfo, COL_INFO);
	if (!k->recs) {
		ti = proto_tree_add_item(tree, proto_mpa, tvb, 0, -1, ENC_NA);
		if (k->retransmission) {
			proto_item_set_generated(proto_tree_add_boolean(
				proto_item_add_subtree(ti, ett_mpa), hf_retrans,
				tvb, 0, 0, TRUE));
			col_set_str(pinfo->cinfo, COL_INFO,
				    "MPA: data seen before");
		} else {
			proto_item_append_text(
				ti, ", part of a PDU completed later");
			col_set_str(pinfo->cinfo, COL_INFO,
				    "MPA: segment of a PDU");
		}
		return;
	}
	for (r = k->recs; r; r = r->next) {
		switch (r->kind) {
		case WS_REC_FRAME:
			frame_tree(tvb, pinfo, tree, k, r);
			break;
		case WS_REC_PARAMS:
			params_tree(tvb, pinfo, tree, &r->u.params);
			break;
		case WS_REC_FPDU:
			fpdu_tree(tvb, pinfo, tree, k, r);
			break;
		case WS_REC_EVENT:
			event_tree(tvb, pinfo, tree, &r->u.ev);
			break;
		}
	}
}

/* clang-format off */
static hf_register_info hf[] = {
	{ &hf_dir, { "Direction", "iwarp_mpa.dir", FT_STRING, BASE_NONE, NULL, 0x0, "i2r, r2i (by the frames), a2b, b2a (roles unknown)", HFILL } },
	{ &hf_offset, { "Stream offset", "iwarp_mpa.offset", FT_UINT64, BASE_DEC, NULL, 0x0, "Frames: octets of startup frames before; FPDUs: from the start of full operation (RFC 5044 §4.3)", HFILL } },
	{ &hf_src, { "Sender", "iwarp_mpa.src", FT_STRING, BASE_NONE, NULL, 0x0, "Address:port of the side that sent this PDU", HFILL } },
	{ &hf_dst, { "Receiver", "iwarp_mpa.dst", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_crc_match, { "CRC matches", "iwarp_mpa.crc_match", FT_BOOLEAN, BASE_NONE, NULL, 0x0, "No handshake seen, CRC use unknown: whether the field holds the CRC32c", HFILL } },
	{ &hf_frame, { "Frame", "iwarp_mpa.frame", FT_UINT8, BASE_DEC, VALS(vs_frame), 0x0, NULL, HFILL } },
	{ &hf_key, { "Key", "iwarp_mpa.key", FT_STRING, BASE_NONE, NULL, 0x0, "RFC 5044 §7.1.1", HFILL } },
	{ &hf_key_rtr_lower, { "RtR key spelled \"Rtr\"", "iwarp_mpa.key_rtr_lower", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_length, { "Frame length", "iwarp_mpa.length", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_flags, { "Flags", "iwarp_mpa.flags", FT_UINT8, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_flag_m, { "Marker flag", "iwarp_mpa.marker_flag", FT_BOOLEAN, 8, NULL, MPA_FLAG_M, "M: markers wanted toward the sender", HFILL } },
	{ &hf_flag_c, { "CRC flag", "iwarp_mpa.crc_flag", FT_BOOLEAN, 8, NULL, MPA_FLAG_C, NULL, HFILL } },
	{ &hf_flag_r, { "Connection rejected flag", "iwarp_mpa.rej_flag", FT_BOOLEAN, 8, NULL, MPA_FLAG_R, NULL, HFILL } },
	{ &hf_flag_s, { "S flag", "iwarp_mpa.s_flag", FT_BOOLEAN, 8, NULL, MPA_FLAG_S, "RFC 6581 §6: enhanced data first in Private Data (seed 003: RtR frame follows)", HFILL } },
	{ &hf_flag_res, { "Reserved", "iwarp_mpa.res", FT_UINT8, BASE_HEX, NULL, MPA_FLAG_RES, NULL, HFILL } },
	{ &hf_rev, { "Revision", "iwarp_mpa.rev", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_pd_len, { "Private data length", "iwarp_mpa.pdlength", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_pd, { "Private data", "iwarp_mpa.privatedata", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_enhanced, { "Enhanced", "iwarp_mpa.enhanced", FT_BOOLEAN, BASE_NONE, NULL, 0x0, "S=1 and Rev 2: Private Data starts with the RFC 6581 word", HFILL } },
	{ &hf_enh, { "Enhanced connection data", "iwarp_mpa.enh", FT_UINT32, BASE_HEX, NULL, 0x0, "RFC 6581 §9 Figure 9", HFILL } },
	{ &hf_enh_a, { "Peer-to-peer (A)", "iwarp_mpa.p2p", FT_BOOLEAN, 32, NULL, 0x80000000, NULL, HFILL } },
	{ &hf_enh_b, { "Zero-length Send RTR (B)", "iwarp_mpa.rtr_send", FT_BOOLEAN, 32, NULL, 0x40000000, NULL, HFILL } },
	{ &hf_enh_ird, { "IRD", "iwarp_mpa.ird", FT_UINT32, BASE_DEC, NULL, 0x3FFF0000, "0x3FFF: no automatic negotiation (RFC 6581 §9.1)", HFILL } },
	{ &hf_enh_c, { "Zero-length RDMA Write RTR (C)", "iwarp_mpa.rtr_write", FT_BOOLEAN, 32, NULL, 0x00008000, NULL, HFILL } },
	{ &hf_enh_d, { "Zero-length RDMA Read RTR (D)", "iwarp_mpa.rtr_read", FT_BOOLEAN, 32, NULL, 0x00004000, NULL, HFILL } },
	{ &hf_enh_ord, { "ORD", "iwarp_mpa.ord", FT_UINT32, BASE_DEC, NULL, 0x00003FFF, NULL, HFILL } },
	{ &hf_ulp_pd, { "ULP private data", "iwarp_mpa.ulp_privatedata", FT_BYTES, BASE_NONE, NULL, 0x0, "Private Data after the enhanced word", HFILL } },
	{ &hf_neg, { "Negotiated", "iwarp_mpa.neg", FT_NONE, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_initiator, { "Initiator", "iwarp_mpa.neg.initiator", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_responder, { "Responder", "iwarp_mpa.neg.responder", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rev_req, { "Request revision", "iwarp_mpa.neg.rev_request", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rev_rep, { "Reply revision", "iwarp_mpa.neg.rev_reply", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rejected, { "Rejected", "iwarp_mpa.neg.rejected", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rdmac, { "RDMA Consortium rules (Rev 0)", "iwarp_mpa.neg.rdmac", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_markers_i2r, { "Markers initiator to responder", "iwarp_mpa.neg.markers_i2r", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_markers_r2i, { "Markers responder to initiator", "iwarp_mpa.neg.markers_r2i", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_crc, { "CRC", "iwarp_mpa.neg.crc", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_version, { "DDP/RDMAP version", "iwarp_mpa.neg.version", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_enhanced, { "Enhanced (RFC 6581)", "iwarp_mpa.neg.enhanced", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_p2p, { "Peer-to-peer", "iwarp_mpa.neg.p2p", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_ird_req, { "Request IRD", "iwarp_mpa.neg.ird_request", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_ord_req, { "Request ORD", "iwarp_mpa.neg.ord_request", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_ird_rep, { "Reply IRD", "iwarp_mpa.neg.ird_reply", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_ord_rep, { "Reply ORD", "iwarp_mpa.neg.ord_reply", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rtr_offered, { "RTR types offered", "iwarp_mpa.neg.rtr_offered", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_rtr_allowed, { "RTR types allowed", "iwarp_mpa.neg.rtr_allowed", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_neg_problem, { "Problem", "iwarp_mpa.neg.problem", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_fpdu_index, { "FPDU number", "iwarp_mpa.fpdu.index", FT_UINT32, BASE_DEC, NULL, 0x0, "FPDUs of this direction, from 1", HFILL } },
	{ &hf_hdr_offset, { "ULPDU_Length offset", "iwarp_mpa.hdr_offset", FT_UINT64, BASE_DEC, NULL, 0x0, "Stream offset of ULPDU_Length (after a leading marker)", HFILL } },
	{ &hf_wire_len, { "FPDU length on the wire", "iwarp_mpa.wire_length", FT_UINT32, BASE_DEC, NULL, 0x0, "Markers, pad and CRC included", HFILL } },
	{ &hf_ulpdu_len, { "ULPDU length", "iwarp_mpa.ulpdulength", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_pad_len, { "Pad length", "iwarp_mpa.pad_length", FT_UINT8, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_pad, { "Padding", "iwarp_mpa.pad", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_crc, { "CRC", "iwarp_mpa.crc", FT_UINT32, BASE_HEX, NULL, 0x0, "CRC32c as sent (least significant octet first)", HFILL } },
	{ &hf_crc_status, { "CRC status", "iwarp_mpa.crc.status", FT_UINT8, BASE_DEC, VALS(vs_crc), 0x0, NULL, HFILL } },
	{ &hf_crc_calc, { "Computed CRC", "iwarp_mpa.crc_calc", FT_UINT32, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_markers, { "Markers", "iwarp_mpa.markers.count", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_markers_ok, { "Markers agree", "iwarp_mpa.markers.ok", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker, { "Marker", "iwarp_mpa.marker", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker_off, { "Marker stream offset", "iwarp_mpa.marker.offset", FT_UINT64, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker_res, { "Reserved", "iwarp_mpa.marker_res", FT_UINT16, BASE_HEX, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker_ptr, { "FPDU back pointer", "iwarp_mpa.marker_fpduptr", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker_expect, { "Expected back pointer", "iwarp_mpa.marker.expect", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_marker_ok, { "Marker agrees", "iwarp_mpa.marker.ok", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_rtr, { "RTR", "iwarp_mpa.rtr", FT_STRING, BASE_NONE, NULL, 0x0, "This FPDU is the peer-to-peer RTR (RFC 6581 §9.2)", HFILL } },
	{ &hf_rtr_problem, { "RTR problem", "iwarp_mpa.rtr_problem", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_version_problem, { "Version problem", "iwarp_mpa.version_problem", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_bad, { "Bad", "iwarp_mpa.bad", FT_BOOLEAN, BASE_NONE, NULL, 0x0, "The decoder counts this PDU as bad", HFILL } },
	{ &hf_event, { "Decoder note", "iwarp_mpa.event", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_event_kind, { "Note kind", "iwarp_mpa.event.kind", FT_UINT8, BASE_DEC, VALS(vs_ev), 0x0, NULL, HFILL } },
	{ &hf_retrans, { "Retransmitted data", "iwarp_mpa.retransmission", FT_BOOLEAN, BASE_NONE, NULL, 0x0, "Every octet was seen before", HFILL } },
};

static ei_register_info ei[] = {
	{ &ei_crc_bad, { "iwarp_mpa.crc.bad", PI_CHECKSUM, PI_ERROR, "Bad CRC32c", EXPFILL } },
	{ &ei_marker_bad, { "iwarp_mpa.marker.bad", PI_PROTOCOL, PI_ERROR, "Marker disagrees with the framing", EXPFILL } },
	{ &ei_rtr, { "iwarp_mpa.rtr.bad", PI_PROTOCOL, PI_WARN, "RTR problem", EXPFILL } },
	{ &ei_version, { "iwarp_mpa.version.bad", PI_PROTOCOL, PI_WARN, "DDP/RDMAP version problem", EXPFILL } },
	{ &ei_neg_problem, { "iwarp_mpa.neg.bad", PI_PROTOCOL, PI_WARN, "Negotiation problem", EXPFILL } },
	{ &ei_event_bad, { "iwarp_mpa.event.bad", PI_PROTOCOL, PI_ERROR, "Decoder error", EXPFILL } },
	{ &ei_event_note, { "iwarp_mpa.event.note", PI_SEQUENCE, PI_NOTE, "Decoder note", EXPFILL } },
	{ &ei_frame_bad, { "iwarp_mpa.frame.bad", PI_MALFORMED, PI_ERROR, "Malformed MPA frame", EXPFILL } },
};
/* clang-format on */

/* Register the MPA protocol, its fields and expert infos. */
int ws_mpa_tree_register(void)
{
	static gint *ett[] = {
		&ett_mpa, &ett_flags,  &ett_enh,
		&ett_neg, &ett_marker, &ett_markers,
	};

	proto_mpa = proto_register_protocol(
		"iWARP Marker PDU Aligned Framing (iwcm)", "MPA", "iwcm_mpa");
	proto_register_field_array(proto_mpa, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto_mpa), ei,
				    array_length(ei));
	return proto_mpa;
}
