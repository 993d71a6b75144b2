/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * RDMAP messages (RFC 5040 §4, RFC 7306 §4-§8, seed 004 Swap): whole
 * ULPDUs from the Linux siw captures (../shared/captures) and hand-built
 * ones for every opcode and every Terminate layer, decoded field by field
 * and rebuilt byte for byte; every malformed layout with its error;
 * truncation at every length; randomized round trips per opcode.  The
 * Terminate rules and the name tables are in check_rdmap_term.c.
 */
#include "config.h"

#include "rdmap_util.h"
#include "vectors/rdmap_msgs.h"

/* The expected message, with the Terminated headers filled in. */
static void vec_expected(const struct msg_vec *v, struct rdmap_msg *exp)
{
	*exp = v->exp;
	if (v->term_ddp)
		ck_assert_uint_eq(test_hex(v->term_ddp, exp->u.term.ddp_hdr,
					   sizeof(exp->u.term.ddp_hdr)),
				  exp->u.term.ddp_hdr_len);
	if (v->term_rdma)
		ck_assert_uint_eq(test_hex(v->term_rdma, exp->u.term.rdma_hdr,
					   sizeof(exp->u.term.rdma_hdr)),
				  RDMAP_READ_REQ_LEN);
}

START_TEST(test_vectors)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB], out[MAXB], want[MAXB];
	struct rdmap_msg m, exp;
	size_t n, w = 0, nw;
	uint8_t *p;

	n = hex(v->hex, in);
	vec_expected(v, &exp);
	p = dup_exact(in, n);
	ck_assert_int_eq(rdmap_msg_parse(p, n, &m), WIRE_OK);
	assert_msg_eq(&m, &exp);
	ck_assert_ptr_eq(m.payload, p + v->payload_off);
	ck_assert_uint_eq(m.payload_len, n - v->payload_off);
	free(p);

	/* The headers rebuild byte for byte (reserved bits as zero). */
	ck_assert_int_eq(rdmap_hdr_build(&m, out, sizeof(out), &w), WIRE_OK);
	if (v->rebuilt) {
		nw = hex(v->rebuilt, want);
	} else {
		nw = v->payload_off;
		memcpy(want, in, nw);
	}
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, w);
}
END_TEST

START_TEST(test_malformed)
{
	const struct bad_vec *v = &bad[_i];
	uint8_t in[MAXB] = { 0 };
	struct rdmap_msg m, sentinel;
	size_t n = hex(v->hex, in);
	uint8_t *p = dup_exact(in, n);

	memset(&sentinel, 0x5a, sizeof(sentinel));
	m = sentinel;
	ck_assert_msg(rdmap_msg_parse(p, n, &m) == v->err, "%s: got %s",
		      v->name, wire_errname(rdmap_msg_parse(p, n, &m)));
	/* *out is untouched on error. */
	ck_assert_mem_eq(&m, &sentinel, sizeof(m));
	free(p);
}
END_TEST

/* Every prefix of a valid ULPDU: the result its layout implies. */
START_TEST(test_truncation)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB] = { 0 };
	struct rdmap_msg m;
	size_t n = hex(v->hex, in), k, dlen = ddp_hdr_len(in[0]);
	int hdr_op = v->payload_off > dlen;

	for (k = 0; k < n; k++) {
		uint8_t *p = dup_exact(in, k);
		enum wire_err e = rdmap_msg_parse(p, k, &m);

		if (k < dlen)
			ck_assert_int_eq(e, WIRE_ESHORT);
		else if (k < v->payload_off)
			ck_assert_int_eq(e, WIRE_ELEN);
		else if (hdr_op && v->exp.opcode != RDMAP_TERMINATE)
			ck_assert_int_eq(e, WIRE_ELEN);
		else {
			ck_assert_int_eq(e, WIRE_OK);
			ck_assert_uint_eq(m.payload_len, k - v->payload_off);
		}
		free(p);
	}
}
END_TEST

/* The opcode-header parsers: WIRE_ESHORT for every short length. */
START_TEST(test_sub_parser_truncation)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB] = { 0 };
	size_t k, hl, used;
	const uint8_t *h = in + DDP_UNTAGGED_HDR_LEN;
	union {
		struct rdmap_read_req r;
		struct rdmap_atomic_req a;
		struct rdmap_atomic_resp s;
		struct rdmap_term t;
	} u, sentinel;

	(void)hex(v->hex, in);
	if (v->exp.ddp.tagged || v->payload_off == DDP_UNTAGGED_HDR_LEN)
		return;
	hl = v->payload_off - DDP_UNTAGGED_HDR_LEN;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	for (k = 0; k < hl; k++) {
		uint8_t *p = dup_exact(h, k);
		enum wire_err e = WIRE_ESHORT;

		u = sentinel;
		switch (v->exp.opcode) {
		case RDMAP_READ_REQ:
			e = rdmap_read_req_parse(p, k, &u.r);
			break;
		case RDMAP_ATOMIC_REQ:
			e = rdmap_atomic_req_parse(p, k, &u.a);
			break;
		case RDMAP_ATOMIC_RESP:
			e = rdmap_atomic_resp_parse(p, k, &u.s);
			break;
		case RDMAP_TERMINATE:
			e = rdmap_term_parse(p, k, &u.t, &used);
			break;
		default:
			break;
		}
		ck_assert_int_eq(e, WIRE_ESHORT);
		ck_assert_mem_eq(&u, &sentinel, sizeof(u));
		free(p);
	}
}
END_TEST

static int op_has_hdr(uint8_t op)
{
	return op == RDMAP_READ_REQ || op == RDMAP_TERMINATE ||
	       op == RDMAP_IMM_DATA || op == RDMAP_IMM_DATA_SE ||
	       op == RDMAP_ATOMIC_REQ || op == RDMAP_ATOMIC_RESP;
}

static void rand_term(struct rdmap_term *t)
{
	memset(t, 0, sizeof(*t));
	t->layer = test_rand32() & 0xf;
	t->etype = test_rand32() & 0xf;
	t->ecode = (uint8_t)test_rand32();
	t->hdrct = test_rand32() & 7;
	if (t->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)) {
		t->has_ddp_seg_len = true;
		t->ddp_seg_len = (uint16_t)test_rand32();
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_D) {
		bool tagged = test_rand32() & 1;

		t->ddp_hdr_len = tagged ? 14 : 18;
		test_rand_bytes(t->ddp_hdr, t->ddp_hdr_len);
		t->ddp_hdr[0] = tagged ? (t->ddp_hdr[0] | 0x80) :
					 (t->ddp_hdr[0] & 0x7f);
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R)
		test_rand_bytes(t->rdma_hdr, RDMAP_READ_REQ_LEN);
}

static void rand_msg(struct rdmap_msg *m, uint8_t op)
{
	memset(m, 0, sizeof(*m));
	m->opcode = op;
	m->rv = test_rand32() & 3;
	m->ddp.dv = test_rand32() & 3;
	m->ddp.tagged = rdmap_opcode_tagged(op) == 1;
	m->ddp.last = op_has_hdr(op) ? true : (test_rand32() & 1);
	if (m->ddp.tagged) {
		m->ddp.stag = test_rand32();
		m->ddp.to = test_rand64();
	} else {
		m->ddp.qn = (uint32_t)rdmap_opcode_qn(op);
		m->ddp.msn = test_rand32();
		m->ddp.mo = op_has_hdr(op) ? 0 : test_rand32();
	}
	if (op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV)
		m->inv_stag = test_rand32();
	switch (op) {
	case RDMAP_READ_REQ:
		m->u.read_req.sink_stag = test_rand32();
		m->u.read_req.sink_to = test_rand64();
		m->u.read_req.size = test_rand32();
		m->u.read_req.src_stag = test_rand32();
		m->u.read_req.src_to = test_rand64();
		break;
	case RDMAP_TERMINATE:
		rand_term(&m->u.term);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		test_rand_bytes(m->u.imm, RDMAP_IMM_DATA_LEN);
		break;
	case RDMAP_ATOMIC_REQ:
		m->u.atomic_req.aopcode = test_rand32() & 0xf;
		m->u.atomic_req.req_id = test_rand32();
		m->u.atomic_req.stag = test_rand32();
		m->u.atomic_req.to = test_rand64();
		m->u.atomic_req.add_swap = test_rand64();
		m->u.atomic_req.add_swap_mask = test_rand64();
		m->u.atomic_req.cmp = test_rand64();
		m->u.atomic_req.cmp_mask = test_rand64();
		break;
	case RDMAP_ATOMIC_RESP:
		m->u.atomic_resp.req_id = test_rand32();
		m->u.atomic_resp.orig = test_rand64();
		break;
	default:
		break;
	}
}

/* parse(build(m) + payload) == m for random messages of one opcode. */
START_TEST(test_roundtrip_random)
{
	uint8_t op = (uint8_t)_i;
	int i;

	for (i = 0; i < 3000; i++) {
		uint8_t buf[MAXB];
		struct rdmap_msg m, p;
		size_t w = 0, plen = 0, cap;

		rand_msg(&m, op);
		ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
				 WIRE_OK);
		for (cap = 0; cap < w; cap++) {
			size_t w2;

			ck_assert_int_eq(rdmap_hdr_build(&m, buf, cap, &w2),
					 WIRE_ENOSPC);
		}
		if (!op_has_hdr(op) || op == RDMAP_TERMINATE) {
			plen = test_rand32() % 65;
			test_rand_bytes(buf + w, plen);
		}
		ck_assert_int_eq(rdmap_msg_parse(buf, w + plen, &p), WIRE_OK);
		/* What the builder puts in the RsvdULP fields. */
		m.ddp.rsvd_ulp8 = (uint8_t)(m.rv << 6 | op);
		if (!m.ddp.tagged)
			m.ddp.rsvd_ulp32 = m.inv_stag;
		assert_msg_eq(&p, &m);
		ck_assert_ptr_eq(p.payload, buf + w);
		ck_assert_uint_eq(p.payload_len, plen);
	}
}
END_TEST

START_TEST(test_opcode_tables)
{
	static const int tagged[12] = { 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const int qn[12] = { -1, 1, -1, 0, 0, 0, 0, 2, 0, 0, 1, 3 };
	unsigned int op;

	for (op = 0; op < 256; op++) {
		if (op < 12) {
			ck_assert_int_eq(rdmap_opcode_tagged((uint8_t)op),
					 tagged[op]);
			ck_assert_int_eq(rdmap_opcode_qn((uint8_t)op), qn[op]);
		} else {
			ck_assert_int_eq(rdmap_opcode_tagged((uint8_t)op), -1);
			ck_assert_int_eq(rdmap_opcode_qn((uint8_t)op), -1);
		}
	}
}
END_TEST

START_TEST(test_build_errors)
{
	struct rdmap_msg m;
	struct rdmap_term t;
	struct rdmap_read_req rr;
	struct rdmap_atomic_req ar;
	struct rdmap_atomic_resp as;
	uint8_t buf[MAXB];
	size_t w = 4242;

	memset(&m, 0, sizeof(m));
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.dv = 1;
	m.opcode = 0xc;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_OPCODE_MAX;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_SEND;
	m.rv = 4;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.rv = 1;
	m.ddp.tagged = true; /* tagged Send */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.tagged = false;
	m.ddp.qn = 1; /* Send on QN 1 */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_WRITE; /* untagged Write */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_READ_REQ;
	m.ddp.last = false;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.last = true;
	m.ddp.mo = 1;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.mo = 0;
	m.ddp.dv = 4;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.dv = 1;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 45, &w), WIRE_ENOSPC);
	ck_assert_uint_eq(w, 4242);
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 46, &w), WIRE_OK);
	ck_assert_uint_eq(w, 46);
	m.opcode = RDMAP_ATOMIC_REQ;
	m.u.atomic_req.aopcode = 0x10;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);

	/* Terminate fields that do not fit or disagree. */
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.u.term.hdrct = 8;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	memset(&t, 0, sizeof(t));
	t.layer = 0x10;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.layer = 0;
	t.etype = 0x10;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.etype = 0;
	t.hdrct = RDMAP_TERM_HDRCT_D;
	t.ddp_hdr[0] = 0xc1; /* tagged: 14 octets */
	t.ddp_hdr_len = 18;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.ddp_hdr_len = 14;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 19, &w), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_term_build(&t, buf, 20, &w), WIRE_OK);
	ck_assert_uint_eq(w, 20);
	t.hdrct = 7;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 47, &w), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_term_build(&t, buf, 48, &w), WIRE_OK);
	ck_assert_uint_eq(w, 48);
	t.hdrct = 0;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 3, &w), WIRE_ENOSPC);

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(rdmap_read_req_build(&rr, buf, 27), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_read_req_build(&rr, buf, 28), WIRE_OK);
	memset(&ar, 0, sizeof(ar));
	ck_assert_int_eq(rdmap_atomic_req_build(&ar, buf, 51), WIRE_ENOSPC);
	ar.aopcode = 0xff;
	ck_assert_int_eq(rdmap_atomic_req_build(&ar, buf, 52), WIRE_EINVAL);
	memset(&as, 0, sizeof(as));
	ck_assert_int_eq(rdmap_atomic_resp_build(&as, buf, 11), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_atomic_resp_build(&as, buf, 12), WIRE_OK);
}
END_TEST

/* The opcode-header codecs alone, against the wire layout. */
START_TEST(test_sub_codecs)
{
	uint8_t buf[64], want[64];
	struct rdmap_atomic_req a = {
		.rsvd = 0x1234567,
		.aopcode = RDMAP_AOP_SWAP,
		.req_id = 0x10,
		.stag = 0x20,
		.to = 0x30,
		.add_swap = 0x40,
		.add_swap_mask = ~0ull,
		.cmp = 0,
		.cmp_mask = ~0ull,
	};
	struct rdmap_atomic_req a2;
	struct rdmap_atomic_resp s = { .req_id = 0xa1b2c3d4,
				       .orig = 0x0102030405060708ull };
	struct rdmap_atomic_resp s2;
	size_t n;

	ck_assert_int_eq(rdmap_atomic_req_build(&a, buf, sizeof(buf)), WIRE_OK);
	n = test_hex("00000001 00000010 00000020 0000000000000030"
		     "0000000000000040 ffffffffffffffff 0000000000000000"
		     "ffffffffffffffff",
		     want, sizeof(want));
	ck_assert_uint_eq(n, RDMAP_ATOMIC_REQ_LEN);
	ck_assert_mem_eq(buf, want, n);
	ck_assert_int_eq(rdmap_atomic_req_parse(buf, 60, &a2), WIRE_OK);
	ck_assert_uint_eq(a2.rsvd, 0); /* sent as zero */
	ck_assert_uint_eq(a2.aopcode, RDMAP_AOP_SWAP);
	ck_assert_uint_eq(a2.add_swap_mask, ~0ull);

	ck_assert_int_eq(rdmap_atomic_resp_build(&s, buf, sizeof(buf)),
			 WIRE_OK);
	n = test_hex("a1b2c3d4 0102030405060708", want, sizeof(want));
	ck_assert_mem_eq(buf, want, n);
	ck_assert_int_eq(rdmap_atomic_resp_parse(buf, n, &s2), WIRE_OK);
	ck_assert_uint_eq(s2.req_id, s.req_id);
	ck_assert_uint_eq(s2.orig, s.orig);
}
END_TEST

/* RFC 5040 §4.8 Figure 10, with RFC 7306 §8.1. */
static Suite *rdmap_suite(void)
{
	Suite *s = suite_create("rdmap");

	add_loop_tcase(s, "vectors", test_vectors, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "malformed", test_malformed, ARRAY_SIZE(bad));
	add_loop_tcase(s, "truncation", test_truncation, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "sub_truncation", test_sub_parser_truncation,
		       ARRAY_SIZE(vecs));
	add_loop_tcase(s, "roundtrip_random", test_roundtrip_random,
		       RDMAP_ATOMIC_RESP + 1);
	add_tcase(s, "opcode_tables", test_opcode_tables);
	add_tcase(s, "build_errors", test_build_errors);
	add_tcase(s, "sub_codecs", test_sub_codecs);
	return s;
}

TEST_MAIN(rdmap_suite)
