/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * RDMAP Terminate messages (RFC 5040 §4.8): the Figure 10 rules of which
 * headers a Terminate carries, rdmap_term_fill() for a Read Request, the
 * RFC 7306 atomics and every other layer, and the name tables of
 * opcodes, layers, types and codes (never NULL).
 */
#include "config.h"

#include "rdmap_util.h"

struct hdrct_row {
	uint8_t layer, etype, opcode, hdrct;
};

#define MD (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)
#define MDR (MD | RDMAP_TERM_HDRCT_R)

static const struct hdrct_row fig10[] = {
	/* RDMA, Local Catastrophic: No / No, any message. */
	{ 0, 0, RDMAP_WRITE, 0 },
	{ 0, 0, RDMAP_READ_REQ, 0 },
	{ 0, 0, RDMAP_SEND, 0 },
	{ 0, 0, RDMAP_ATOMIC_REQ, 0 },
	/* RDMA, Remote Protection: DDP header yes, RDMA header only for
	 * a Read Request; Send with Invalidate variants carry none. */
	{ 0, 1, RDMAP_READ_REQ, MDR },
	{ 0, 1, RDMAP_SEND_INV, MD },
	{ 0, 1, RDMAP_SEND_SE_INV, MD },
	{ 0, 1, RDMAP_ATOMIC_REQ, MD },
	{ 0, 1, RDMAP_ATOMIC_RESP, MD },
	/* RDMA, Remote Operation: DDP header yes, RDMA header no. */
	{ 0, 2, RDMAP_WRITE, MD },
	{ 0, 2, RDMAP_READ_REQ, MD },
	{ 0, 2, RDMAP_READ_RESP, MD },
	{ 0, 2, RDMAP_SEND, MD },
	{ 0, 2, RDMAP_TERMINATE, MD },
	{ 0, 2, RDMAP_IMM_DATA, MD },
	{ 0, 2, RDMAP_IMM_DATA_SE, MD },
	{ 0, 2, RDMAP_ATOMIC_REQ, MD },
	{ 0, 2, RDMAP_ATOMIC_RESP, MD },
	{ 0, 2, 0xc, MD }, /* Unexpected OpCode */
	/* DDP: Yes / No, any message; Local Catastrophic none (§4.8). */
	{ 1, 0, RDMAP_SEND, 0 },
	{ 1, 1, RDMAP_WRITE, MD },
	{ 1, 1, RDMAP_READ_RESP, MD },
	{ 1, 2, RDMAP_SEND, MD },
	{ 1, 2, RDMAP_READ_REQ, MD },
	{ 1, 2, RDMAP_ATOMIC_REQ, MD },
	{ 1, 3, RDMAP_SEND, 0 },
	/* LLP: No / No. */
	{ 2, 0, RDMAP_SEND, 0 },
	{ 2, 0, RDMAP_READ_REQ, 0 },
	{ 2, 0, RDMAP_WRITE, 0 },
};

START_TEST(test_hdrct_table)
{
	const struct hdrct_row *r = &fig10[_i];

	ck_assert_uint_eq(rdmap_term_hdrct(r->layer, r->etype, r->opcode),
			  r->hdrct);
}
END_TEST

START_TEST(test_hdrct_sweep)
{
	unsigned int l, e, o;

	for (l = 0; l < 16; l++)
		for (e = 0; e < 16; e++)
			for (o = 0; o < 256; o++) {
				uint8_t h = rdmap_term_hdrct(
					(uint8_t)l, (uint8_t)e, (uint8_t)o);

				ck_assert_uint_eq(h & ~MDR, 0);
				/* M and D go together. */
				ck_assert_int_eq(!(h & RDMAP_TERM_HDRCT_M),
						 !(h & RDMAP_TERM_HDRCT_D));
				if (h & RDMAP_TERM_HDRCT_R)
					ck_assert(l == 0 && e == 1 &&
						  o == RDMAP_READ_REQ);
				if (l > 1 || (l == 1 && (e == 0 || e > 2)) ||
				    (l == 0 && (e == 0 || e > 2)))
					ck_assert_uint_eq(h, 0);
			}
}
END_TEST

/* Fill a Terminate for seg, build the Terminate message, compare. */
static void fill_build(struct rdmap_term *t, uint8_t layer, uint8_t etype,
		       uint8_t ecode, const uint8_t *seg, size_t seg_len,
		       uint8_t *out, size_t *w)
{
	struct rdmap_msg m, p;

	rdmap_term_fill(t, layer, etype, ecode, seg, seg_len);
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.dv = 1;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = 1;
	m.u.term = *t;
	ck_assert_int_eq(rdmap_hdr_build(&m, out, MAXB, w), WIRE_OK);
	ck_assert_int_eq(rdmap_msg_parse(out, *w, &p), WIRE_OK);
	assert_term_eq(&p.u.term, t);
	ck_assert_uint_eq(p.payload_len, 0);
}

static const uint8_t zero28[RDMAP_READ_REQ_LEN];

START_TEST(test_term_fill_read_req)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	struct rdmap_term t;
	size_t n = hex(SIW_RREQ, seg), w, nw;

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MDR);
	ck_assert_uint_eq(t.ddp_seg_len, 46);
	ck_assert_uint_eq(t.ddp_hdr_len, 18);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, seg + 18, 28);
	/* Byte for byte the Terminate vector above. */
	nw = hex(H_TERM "01 00 e0 00 00 2e " SIW_RREQ, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	/* Remote Operation on the same Read Request: no RDMA header. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_UNEXPECTED_OP, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	/* A Read Request cut short: its DDP header, not the RDMA one. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_ACCESS, seg, 30, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 30);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	/* DDP Untagged Buffer error on it: D only. */
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_INVALID_MSN_RANGE, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
}
END_TEST

/* RFC 7306 §8.1: the new messages get the DDP header, never theirs. */
START_TEST(test_term_fill_rfc7306)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	struct rdmap_term t;
	size_t n = hex(ATOMIC_FA, seg), w, nw;

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_CATASTROPHIC_STREAM, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 70);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
	nw = hex(H_TERM "02 07 c0 00 00 46 " ATOMIC_FA_HDR, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	n = hex(IMM_DATA, seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_UNEXPECTED_OP, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 26);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
}
END_TEST

START_TEST(test_term_fill_other)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	static uint8_t big[70000];
	struct rdmap_term t;
	size_t n, w, nw;

	/* DDP Tagged Buffer error on the siw Write (78 octets). */
	memset(seg, 0, sizeof(seg));
	hex(SIW_WRITE_HDR, seg);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_ECODE_T_INVALID_STAG, seg, 78, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_hdr_len, 14);
	ck_assert_uint_eq(t.ddp_seg_len, 78);
	nw = hex(H_TERM "11 00 c0 00 00 4e " SIW_WRITE_HDR, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	/* Send with Invalidate, STag cannot be invalidated. */
	n = hex("41 44 12 34 56 78 00000000 00000005 00000000 aa bb", seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_CANT_INVALIDATE, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 20);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);

	/* Errors without headers: local, LLP, DDP catastrophic. */
	n = hex(SIW_RREQ, seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC, 0x33,
		   seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_uint_eq(t.ecode, 0x33);
	ck_assert_uint_eq(w, 22);
	fill_build(&t, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, seg,
		   n, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_int_eq(t.has_ddp_seg_len, false);
	nw = hex(H_TERM "20 02 00 00", want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0, seg, n,
		   out, &w);
	ck_assert_uint_eq(t.hdrct, 0);

	/* RFC 5040 §7.1 case 1: nothing inbound to copy. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, NULL, 0, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_uint_eq(t.layer, 0);
	ck_assert_uint_eq(t.etype, 1);
	ck_assert_uint_eq(t.ddp_hdr_len, 0);
	/* A segment shorter than its DDP header: nothing either. */
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_INVALID_QN, seg, 17, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_ECODE_T_INVALID_STAG, seg, 1, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);

	/* A segment longer than 16 bits can say: D, length not valid. */
	hex(H_SEND("00000001"), big);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_TOO_LONG, big, sizeof(big), out, &w);
	ck_assert_uint_eq(t.hdrct, RDMAP_TERM_HDRCT_D);
	ck_assert_int_eq(t.has_ddp_seg_len, true);
	ck_assert_uint_eq(t.ddp_seg_len, 0);
	ck_assert_mem_eq(t.ddp_hdr, big, 18);
}
END_TEST

START_TEST(test_names)
{
	static const char *const ops[16] = {
		"RDMA Write",
		"RDMA Read Request",
		"RDMA Read Response",
		"Send",
		"Send with Invalidate",
		"Send with Solicited Event",
		"Send with Solicited Event and Invalidate",
		"Terminate",
		"Immediate Data",
		"Immediate Data with Solicited Event",
		"Atomic Request",
		"Atomic Response",
		"Unknown",
		"Unknown",
		"Unknown",
		"Reserved (Experimental)",
	};
	unsigned int i;

	for (i = 0; i < 16; i++)
		ck_assert_str_eq(rdmap_opcode_name((uint8_t)i), ops[i]);
	for (i = 16; i < 256; i++)
		ck_assert_str_eq(rdmap_opcode_name((uint8_t)i), "Unknown");
	ck_assert_str_eq(rdmap_aopcode_name(0), "FetchAdd");
	ck_assert_str_eq(rdmap_aopcode_name(1), "Swap (draft)");
	ck_assert_str_eq(rdmap_aopcode_name(2), "CmpSwap");
	for (i = 3; i < 256; i++)
		ck_assert_str_eq(rdmap_aopcode_name((uint8_t)i), "Unknown");
	ck_assert_str_eq(rdmap_term_layer_name(0), "RDMA");
	ck_assert_str_eq(rdmap_term_layer_name(1), "DDP");
	ck_assert_str_eq(rdmap_term_layer_name(2), "LLP");
	for (i = 3; i < 256; i++)
		ck_assert_str_eq(rdmap_term_layer_name((uint8_t)i), "Unknown");
}
END_TEST

struct err_name {
	uint8_t layer, etype;
	int ecode; /* -1: the Error Type's own name */
	const char *name;
};

/* RFC 5040 Figure 9, RFC 5041 §7.2, RFC 5044 §8, RFC 6581 §8. */
static const struct err_name err_names[] = {
	{ 0, 0, -1, "Local Catastrophic Error" },
	{ 0, 1, -1, "Remote Protection Error" },
	{ 0, 2, -1, "Remote Operation Error" },
	{ 0, 3, -1, "Unknown" },
	{ 1, 0, -1, "Local Catastrophic" },
	{ 1, 1, -1, "Tagged Buffer Error" },
	{ 1, 2, -1, "Untagged Buffer Error" },
	{ 1, 3, -1, "Reserved for use by the LLP" },
	{ 1, 4, -1, "Unknown" },
	{ 2, 0, -1, "MPA Error" },
	{ 2, 1, -1, "Unknown" },
	{ 3, 0, -1, "Unknown" },
	{ 0, 0, 0x00, "None" },
	{ 0, 0, 0x5a, "None" },
	{ 0, 1, 0x00, "Invalid STag" },
	{ 0, 1, 0x01, "Base or bounds violation" },
	{ 0, 1, 0x02, "Access rights violation" },
	{ 0, 1, 0x03, "STag not associated with RDMAP Stream" },
	{ 0, 1, 0x04, "TO wrap" },
	{ 0, 1, 0x05, "Unknown" },
	{ 0, 1, 0x09, "STag cannot be Invalidated" },
	{ 0, 1, 0xff, "Unspecified Error" },
	{ 0, 2, 0x00, "Unknown" },
	{ 0, 2, 0x05, "Invalid RDMAP version" },
	{ 0, 2, 0x06, "Unexpected OpCode" },
	{ 0, 2, 0x07, "Catastrophic error, localized to RDMAP Stream" },
	{ 0, 2, 0x08, "Catastrophic error, global" },
	{ 0, 2, 0x09, "STag cannot be Invalidated" },
	{ 0, 2, 0xff, "Unspecified Error" },
	{ 1, 0, 0x00, "Local Catastrophic" },
	{ 1, 0, 0x01, "Unknown" },
	{ 1, 1, 0x00, "Invalid STag" },
	{ 1, 1, 0x01, "Base or bounds violation" },
	{ 1, 1, 0x02, "STag not associated with DDP Stream" },
	{ 1, 1, 0x03, "TO wrap" },
	{ 1, 1, 0x04, "Invalid DDP version" },
	{ 1, 1, 0x05, "Unknown" },
	{ 1, 2, 0x00, "Unknown" },
	{ 1, 2, 0x01, "Invalid QN" },
	{ 1, 2, 0x02, "Invalid MSN - no buffer available" },
	{ 1, 2, 0x03, "Invalid MSN - MSN range is not valid" },
	{ 1, 2, 0x04, "Invalid MO" },
	{ 1, 2, 0x05, "DDP Message too long for available buffer" },
	{ 1, 2, 0x06, "Invalid DDP version" },
	{ 1, 2, 0x07, "Unknown" },
	{ 1, 3, 0x42, "Reserved for use by the LLP" },
	{ 2, 0, 0x00, "Unknown" },
	{ 2, 0, 0x01, "TCP connection closed, terminated, or lost" },
	{ 2, 0, 0x02, "MPA CRC error" },
	{ 2, 0, 0x03, "MPA Marker and ULPDU Length field mismatch" },
	{ 2, 0, 0x04, "Invalid MPA Request Frame or MPA Response Frame" },
	{ 2, 0, 0x05, "Local catastrophic" },
	{ 2, 0, 0x06, "Insufficient IRD resources" },
	{ 2, 0, 0x07, "No matching RTR option" },
	{ 2, 0, 0x08, "Unknown" },
	{ 2, 1, 0x01, "Unknown" },
	{ 4, 0, 0x01, "Unknown" },
};

START_TEST(test_term_names)
{
	const struct err_name *e = &err_names[_i];

	if (e->ecode < 0)
		ck_assert_str_eq(rdmap_term_etype_name(e->layer, e->etype),
				 e->name);
	else
		ck_assert_str_eq(rdmap_term_ecode_name(e->layer, e->etype,
						       (uint8_t)e->ecode),
				 e->name);
}
END_TEST

START_TEST(test_term_names_never_null)
{
	unsigned int l, e, c;

	for (l = 0; l < 256; l += (l < 16 ? 1 : 37)) {
		ck_assert_ptr_nonnull(rdmap_term_layer_name((uint8_t)l));
		for (e = 0; e < 256; e += (e < 16 ? 1 : 61)) {
			ck_assert_ptr_nonnull(
				rdmap_term_etype_name((uint8_t)l, (uint8_t)e));
			for (c = 0; c < 256; c++)
				ck_assert_ptr_nonnull(rdmap_term_ecode_name(
					(uint8_t)l, (uint8_t)e, (uint8_t)c));
		}
	}
}
END_TEST

static Suite *rdmap_term_suite(void)
{
	Suite *s = suite_create("rdmap_term");

	add_loop_tcase(s, "hdrct_fig10", test_hdrct_table, ARRAY_SIZE(fig10));
	add_tcase(s, "hdrct_sweep", test_hdrct_sweep);
	add_tcase(s, "term_fill_read_req", test_term_fill_read_req);
	add_tcase(s, "term_fill_rfc7306", test_term_fill_rfc7306);
	add_tcase(s, "term_fill_other", test_term_fill_other);
	add_tcase(s, "names", test_names);
	add_loop_tcase(s, "term_names", test_term_names, ARRAY_SIZE(err_names));
	add_tcase(s, "term_names_never_null", test_term_names_never_null);
	return s;
}

TEST_MAIN(rdmap_term_suite)
