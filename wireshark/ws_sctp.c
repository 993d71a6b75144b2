/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP over SCTP (RFC 5043 §5.2): the user messages of PPID 16 (a DDP-SSN
 * then one DDP segment, no MPA: no markers, no CRC, no length) and PPID
 * 17 (DDP Stream Session Control, function codes 1-4 of RFC 5043 §5.2.3
 * and 5-7 of RFC 6581 §7, with their Private Data and the RFC 6581 §9
 * word), decoded by wire/sctp_ss.c, wire/ddp.c and wire/rdmap.c.
 * Wireshark's SCTP dissector delivers each reassembled message here.
 */
#include "config.h"

#include <string.h>

#include <epan/conversation.h>
#include <epan/expert.h>
#include <epan/proto_data.h>

#include "iwcm_ws.h"
#include "mpa.h"
#include "rdmap.h"
#include "sctp_ss.h"
#include "wbuf.h"

static int proto_ddp_sctp = -1;

static int hf_ppid = -1;
static int hf_length = -1;
static int hf_ssn = -1;
static int hf_fc = -1;
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
static int hf_error = -1;
static int hf_version_problem = -1;
static int hf_bad = -1;
static int hf_stream = -1;
static int hf_seq_problem = -1;

static gint ett_ddp_sctp = -1;
static gint ett_enh = -1;

static expert_field ei_malformed = EI_INIT;
static expert_field ei_version = EI_INIT;
static expert_field ei_sequence = EI_INIT;

/* One DDP stream session per SCTP stream (RFC 5043 §6.1). */
struct ws_stream {
	bool checking;	 /* its Initiate was seen: sequence checked */
	int active_side; /* side that sent the Initiate */
	struct sctp_ss_seq seq;
};

/* An association's streams; side 0 sent the first message seen. */
struct ws_assoc {
	address addr0;
	guint32 port0;
	wmem_map_t *streams;
};

/* The first pass's verdict on one message, kept for later passes. */
struct ws_seq {
	const char *problem;
};

static value_string vs_fc[9];

static const value_string vs_ppid[] = {
	{ SCTP_PPID_DDP_SEGMENT, "DDP Segment" },
	{ SCTP_PPID_DDP_SESSION_CTL, "DDP Stream Session Control" },
	{ 0, NULL },
};

/* RFC 6581 §7: the same word as MPA's enhanced data (§9 Figure 9). */
static void enh_tree(tvbuff_t *tvb, proto_tree *t, int o,
		     const struct mpa_enh *e)
{
	uint32_t w = mpa_enh_word(e);
	proto_item *ti = proto_tree_add_uint(t, hf_enh, tvb, o, 4, w);
	proto_tree *et = proto_item_add_subtree(ti, ett_enh);

	proto_tree_add_boolean(et, hf_enh_a, tvb, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_b, tvb, o, 4, w);
	proto_tree_add_uint(et, hf_enh_ird, tvb, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_c, tvb, o, 4, w);
	proto_tree_add_boolean(et, hf_enh_d, tvb, o, 4, w);
	proto_tree_add_uint(et, hf_enh_ord, tvb, o, 4, w);
}

/*
 * The SCTP stream of the message in tvb, read from the DATA chunk header
 * in front of its user data (RFC 4960 §3.3.1: stream identifier at 8,
 * PPID at 12, user data at 16), which Wireshark 4.0 does not hand to a
 * PPID dissector.  -1 when tvb is not the whole user data of one DATA
 * chunk of the packet (a message reassembled from fragments).
 */
static int msg_stream(tvbuff_t *tvb, guint32 ppid)
{
	tvbuff_t *ds = tvb_get_ds_tvb(tvb);
	gint o = tvb_raw_offset(tvb);

	if (!ds || ds == tvb || o < 16 || !tvb_bytes_exist(ds, o - 16, 16))
		return -1;
	if (tvb_get_guint8(ds, o - 16) != 0 ||
	    tvb_get_ntohs(ds, o - 14) != tvb_reported_length(tvb) + 16 ||
	    tvb_get_ntohl(ds, o - 4) != ppid)
		return -1;
	return tvb_get_ntohs(ds, o - 8);
}

/*
 * RFC 5043 §6.1: follow the stream's session in DDP-SSN order through
 * wire/sctp_ss.c's table, as iwcmctl decode does: a session is checked
 * from its Initiate on; a DDP-SSN out of order (unordered delivery, or
 * a message missing from the capture) ends the checking until the next
 * Initiate.  First pass only; the text of a violation, else NULL.
 */
static const char *seq_step(packet_info *pinfo, int stream, uint32_t msg,
			    uint16_t ssn)
{
	conversation_t *cv = find_or_create_conversation(pinfo);
	struct ws_assoc *a = conversation_get_proto_data(cv, proto_ddp_sctp);
	struct ws_stream *s;
	enum sctp_ss_verdict v;
	bool initiate = msg == SCTP_SS_INITIATE || msg == SCTP_SS_ENH_INITIATE;
	int side;

	if (!a) {
		a = wmem_new0(wmem_file_scope(), struct ws_assoc);
		copy_address_wmem(wmem_file_scope(), &a->addr0, &pinfo->src);
		a->port0 = pinfo->srcport;
		a->streams = wmem_map_new(wmem_file_scope(), g_direct_hash,
					  g_direct_equal);
		conversation_add_proto_data(cv, proto_ddp_sctp, a);
	}
	side = addresses_equal(&pinfo->src, &a->addr0) &&
			       pinfo->srcport == a->port0 ?
		       0 :
		       1;
	s = wmem_map_lookup(a->streams, GUINT_TO_POINTER(stream + 1));
	if (!s) {
		s = wmem_new0(wmem_file_scope(), struct ws_stream);
		wmem_map_insert(a->streams, GUINT_TO_POINTER(stream + 1), s);
	}
	if (initiate && (!s->checking || sctp_ss_seq_done(&s->seq))) {
		s->checking = true;
		s->active_side = side;
		sctp_ss_seq_init(&s->seq, SCTP_SS_ACTIVE);
	}
	if (!s->checking)
		return NULL;
	v = sctp_ss_seq_step(&s->seq, side == s->active_side, msg, ssn);
	if (v == SCTP_SS_OK)
		return NULL;
	if (v == SCTP_SS_BAD_SSN) {
		s->checking = false;
		return NULL;
	}
	return wmem_strdup_printf(
		wmem_file_scope(),
		"no legal sequence allows this message here (RFC 5043 "
		"§6.1): %s after %s / %s",
		msg == SCTP_SS_SEGMENT ? "DDP Segment" :
					 sctp_ss_fc_name((uint16_t)msg),
		sctp_ss_dstate_name(s->seq.d[0]),
		sctp_ss_dstate_name(s->seq.d[1]));
}

/* The sequence verdict of this message: computed on the first pass. */
static bool seq_check(tvbuff_t *tvb, packet_info *pinfo, proto_tree *t,
		      guint32 ppid, uint32_t msg, uint16_t ssn)
{
	int stream = msg_stream(tvb, ppid);
	guint32 key = (guint32)tvb_raw_offset(tvb);
	struct ws_seq *q;
	proto_item *ti;

	if (stream < 0)
		return true;
	q = p_get_proto_data(wmem_file_scope(), pinfo, proto_ddp_sctp, key);
	if (!q) {
		if (PINFO_FD_VISITED(pinfo))
			return true;
		q = wmem_new0(wmem_file_scope(), struct ws_seq);
		q->problem = seq_step(pinfo, stream, msg, ssn);
		p_add_proto_data(wmem_file_scope(), pinfo, proto_ddp_sctp, key,
				 q);
	}
	if (!q->problem)
		return true;
	ti = proto_tree_add_string(t, hf_seq_problem, tvb, 0, 0, q->problem);
	proto_item_set_generated(ti);
	expert_add_info_format(pinfo, ti, &ei_sequence, "%s", q->problem);
	return false;
}

/* RFC 5043 §5.2.3 Figure 3: DDP-SSN, Function Code, Private Data. */
static bool session_ctl(tvbuff_t *tvb, packet_info *pinfo, proto_tree *t,
			proto_item *top, const uint8_t *p, guint len)
{
	struct sctp_ss_msg m;
	enum wire_err e;
	proto_item *ti;
	size_t used;
	bool ok;

	e = p ? sctp_ss_parse(p, len, &m, &used) : WIRE_ESHORT;
	if (len >= 2)
		proto_tree_add_uint(t, hf_ssn, tvb, 0, 2, wire_be16(p));
	if (e != WIRE_OK) {
		ti = proto_tree_add_string(t, hf_error, tvb, 0, -1,
					   wire_errname(e));
		expert_add_info_format(pinfo, ti, &ei_malformed,
				       "Session control: %s", wire_strerror(e));
		col_append_sep_str(pinfo->cinfo, COL_INFO, ", ",
				   "malformed session control");
		return false;
	}
	proto_tree_add_uint(t, hf_fc, tvb, 2, 2, m.fc);
	ok = seq_check(tvb, pinfo, t, SCTP_PPID_DDP_SESSION_CTL, m.fc, m.ssn);
	proto_item_append_text(top, ", %s", sctp_ss_fc_name(m.fc));
	col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", sctp_ss_fc_name(m.fc));
	proto_item_set_generated(
		proto_tree_add_uint(t, hf_pd_len, tvb, 4, m.pd_len, m.pd_len));
	proto_tree_add_item(t, hf_pd, tvb, SCTP_SS_HDR_LEN, m.pd_len, ENC_NA);
	proto_item_set_generated(
		proto_tree_add_boolean(t, hf_enhanced, tvb, 2, 2, m.enhanced));
	if (m.enhanced) {
		enh_tree(tvb, t, SCTP_SS_HDR_LEN, &m.enh);
		proto_tree_add_item(t, hf_ulp_pd, tvb,
				    SCTP_SS_HDR_LEN + MPA_ENH_LEN, m.ulp_pd_len,
				    ENC_NA);
		col_append_fstr(pinfo->cinfo, COL_INFO, " IRD %u ORD %u",
				m.enh.ird, m.enh.ord);
	}
	return ok;
}

/* RFC 5043 §5.2.2 Figure 2: DDP-SSN, then one DDP segment. */
static bool segment(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		    proto_tree *t, const uint8_t *p, guint len)
{
	struct ws_rdmap_res res;
	proto_item *ti;
	char why[96] = "";
	bool seq_ok;

	if (len < 2) {
		ti = proto_tree_add_string(t, hf_error, tvb, 0, -1,
					   wire_errname(WIRE_ESHORT));
		expert_add_info_format(pinfo, ti, &ei_malformed,
				       "DDP Segment without a DDP-SSN");
		return false;
	}
	proto_tree_add_uint(t, hf_ssn, tvb, 0, 2, wire_be16(p));
	seq_ok = seq_check(tvb, pinfo, t, SCTP_PPID_DDP_SEGMENT,
			   SCTP_SS_SEGMENT, wire_be16(p));
	ws_rdmap_dissect(tvb_new_subset_remaining(tvb, 2), pinfo, tree, &res);
	col_append_sep_str(pinfo->cinfo, COL_INFO, ", ", ws_rdmap_info(&res));
	/* RFC 5043 runs DDP and RDMAP version 1 (RFC 5041 §7.2) */
	if (res.ddp_ok && res.dv != DDP_VERSION_IETF)
		snprintf(why, sizeof(why), "DDP version %u over SCTP, not %u",
			 res.dv, DDP_VERSION_IETF);
	else if (res.has_ctrl && res.rv != RDMAP_VERSION_IETF)
		snprintf(why, sizeof(why), "RDMAP version %u over SCTP, not %u",
			 res.rv, RDMAP_VERSION_IETF);
	if (why[0]) {
		ti = proto_tree_add_string(t, hf_version_problem, tvb, 0, 0,
					   why);
		proto_item_set_generated(ti);
		expert_add_info_format(pinfo, ti, &ei_version, "%s", why);
	}
	return res.rdmap_ok && !why[0] && seq_ok;
}

static int dissect_ddp_sctp(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			    void *data)
{
	guint32 ppid = GPOINTER_TO_UINT(data);
	guint len = tvb_captured_length(tvb);
	const uint8_t *p = len ? tvb_get_ptr(tvb, 0, len) : NULL;
	proto_item *ti;
	proto_tree *t;
	int stream;
	bool ok;

	col_set_str(pinfo->cinfo, COL_PROTOCOL, "DDP/SCTP");
	if (!col_get_writable(pinfo->cinfo, COL_INFO))
		col_set_writable(pinfo->cinfo, COL_INFO, TRUE);
	ti = proto_tree_add_item(tree, proto_ddp_sctp, tvb, 0, -1, ENC_NA);
	t = proto_item_add_subtree(ti, ett_ddp_sctp);
	proto_item_set_generated(
		proto_tree_add_uint(t, hf_ppid, tvb, 0, 0, ppid));
	proto_item_set_generated(proto_tree_add_uint(t, hf_length, tvb, 0, 0,
						     tvb_reported_length(tvb)));
	stream = msg_stream(tvb, ppid);
	if (stream >= 0)
		proto_item_set_generated(proto_tree_add_uint(
			t, hf_stream, tvb, 0, 0, (guint32)stream));
	if (len < tvb_reported_length(tvb))
		/* cut by the snapshot length: decode what is there */
		len = tvb_captured_length(tvb);
	if (ppid == SCTP_PPID_DDP_SESSION_CTL)
		ok = session_ctl(tvb, pinfo, t, ti, p, len);
	else
		ok = segment(tvb, pinfo, tree, t, p, len);
	proto_item_set_generated(
		proto_tree_add_boolean(t, hf_bad, tvb, 0, 0, !ok));
	return (int)tvb_captured_length(tvb);
}

/* clang-format off */
static hf_register_info hf[] = {
	{ &hf_ppid, { "Payload protocol", "ddp_sctp.ppid", FT_UINT32, BASE_DEC, VALS(vs_ppid), 0x0, "RFC 5043 §5.2", HFILL } },
	{ &hf_length, { "Message length", "ddp_sctp.length", FT_UINT32, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_ssn, { "DDP-SSN", "ddp_sctp.ssn", FT_UINT16, BASE_DEC, NULL, 0x0, "DDP Stream Sequence Number (RFC 5043 §5.2.1)", HFILL } },
	{ &hf_fc, { "Function code", "ddp_sctp.fc", FT_UINT16, BASE_DEC, VALS(vs_fc), 0x0, "RFC 5043 §5.2.3, RFC 6581 §7", HFILL } },
	{ &hf_pd_len, { "Private data length", "ddp_sctp.pdlength", FT_UINT16, BASE_DEC, NULL, 0x0, NULL, HFILL } },
	{ &hf_pd, { "Private data", "ddp_sctp.privatedata", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_enhanced, { "Enhanced", "ddp_sctp.enhanced", FT_BOOLEAN, BASE_NONE, NULL, 0x0, "Enhanced Initiate or Accept: Private Data starts with the RFC 6581 word", HFILL } },
	{ &hf_enh, { "Enhanced connection data", "ddp_sctp.enh", FT_UINT32, BASE_HEX, NULL, 0x0, "RFC 6581 §9 Figure 9", HFILL } },
	{ &hf_enh_a, { "Peer-to-peer (A)", "ddp_sctp.p2p", FT_BOOLEAN, 32, NULL, 0x80000000, NULL, HFILL } },
	{ &hf_enh_b, { "Zero-length Send RTR (B)", "ddp_sctp.rtr_send", FT_BOOLEAN, 32, NULL, 0x40000000, NULL, HFILL } },
	{ &hf_enh_ird, { "IRD", "ddp_sctp.ird", FT_UINT32, BASE_DEC, NULL, 0x3FFF0000, NULL, HFILL } },
	{ &hf_enh_c, { "Zero-length RDMA Write RTR (C)", "ddp_sctp.rtr_write", FT_BOOLEAN, 32, NULL, 0x00008000, NULL, HFILL } },
	{ &hf_enh_d, { "Zero-length RDMA Read RTR (D)", "ddp_sctp.rtr_read", FT_BOOLEAN, 32, NULL, 0x00004000, NULL, HFILL } },
	{ &hf_enh_ord, { "ORD", "ddp_sctp.ord", FT_UINT32, BASE_DEC, NULL, 0x00003FFF, NULL, HFILL } },
	{ &hf_ulp_pd, { "ULP private data", "ddp_sctp.ulp_privatedata", FT_BYTES, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_error, { "Error", "ddp_sctp.error", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_version_problem, { "Version problem", "ddp_sctp.version_problem", FT_STRING, BASE_NONE, NULL, 0x0, NULL, HFILL } },
	{ &hf_stream, { "SCTP stream", "ddp_sctp.stream", FT_UINT16, BASE_DEC, NULL, 0x0, "The stream of the DDP stream session (RFC 5043 §6), from the DATA chunk", HFILL } },
	{ &hf_seq_problem, { "Sequence problem", "ddp_sctp.sequence_problem", FT_STRING, BASE_NONE, NULL, 0x0, "The message breaks the legal sequences of RFC 5043 §6", HFILL } },
	{ &hf_bad, { "Bad", "ddp_sctp.bad", FT_BOOLEAN, BASE_NONE, NULL, 0x0, NULL, HFILL } },
};

static ei_register_info ei[] = {
	{ &ei_malformed, { "ddp_sctp.malformed", PI_MALFORMED, PI_ERROR, "Malformed DDP over SCTP message", EXPFILL } },
	{ &ei_sequence, { "ddp_sctp.sequence.bad", PI_SEQUENCE, PI_WARN, "Message out of the legal sequences of RFC 5043 §6", EXPFILL } },
	{ &ei_version, { "ddp_sctp.version.bad", PI_PROTOCOL, PI_WARN, "DDP/RDMAP version over SCTP", EXPFILL } },
};
/* clang-format on */

/* Register the DDP over SCTP protocol. */
void ws_sctp_register(void)
{
	static gint *ett[] = { &ett_ddp_sctp, &ett_enh };
	unsigned int i, n = 0;

	for (i = SCTP_SS_INITIATE; i <= SCTP_SS_ENH_REJECT; i++) {
		vs_fc[n].value = i;
		vs_fc[n++].strptr = sctp_ss_fc_name((uint16_t)i);
	}
	vs_fc[n].value = SCTP_SS_EXPERIMENTAL;
	vs_fc[n++].strptr = sctp_ss_fc_name(SCTP_SS_EXPERIMENTAL);
	vs_fc[n].value = 0;
	vs_fc[n].strptr = NULL;
	proto_ddp_sctp = proto_register_protocol("DDP over SCTP (iwcm)",
						 "DDP/SCTP", "ddp_sctp");
	proto_register_field_array(proto_ddp_sctp, hf, array_length(hf));
	proto_register_subtree_array(ett, array_length(ett));
	expert_register_field_array(expert_register_protocol(proto_ddp_sctp),
				    ei, array_length(ei));
}

/* Attach to SCTP PPIDs 16 and 17 (RFC 5043 §5.2). */
void ws_sctp_handoff(void)
{
	dissector_handle_t h =
		create_dissector_handle(dissect_ddp_sctp, proto_ddp_sctp);

	dissector_add_uint("sctp.ppi", SCTP_PPID_DDP_SEGMENT, h);
	dissector_add_uint("sctp.ppi", SCTP_PPID_DDP_SESSION_CTL, h);
}
