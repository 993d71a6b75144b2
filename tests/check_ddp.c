/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP headers (RFC 5041 §4): the RFC 5044 Figure 5/6 headers and headers
 * from the Linux siw captures (../shared/captures), decoded field by field
 * and rebuilt byte for byte; truncation at every length; randomized round
 * trips both ways; builder errors.
 */
#include "common.h"

#include "ddp.h"

struct ddp_vec {
	const char *name;
	const char *hex;
	struct ddp_hdr exp;
	uint8_t rebuilt_ctrl; /* first octet as the builder sends it */
};

static const struct ddp_vec vecs[] = {
	/* RFC 5044 §4.4 Figure 5, octets 0x06-0x17: Send, L, QN 0, MSN 1. */
	{ "RFC 5044 Figure 5",
	  "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00",
	  { .last = true, .dv = 1, .rsvd_ulp8 = 0x43, .msn = 1 },
	  0x41 },
	/* RFC 5044 Figure 6, octets 0x1ee-0x1ff: the next Send, MSN 2. */
	{ "RFC 5044 Figure 6",
	  "41 43 00 00 00 00 00 00 00 00 00 00 00 02 00 00 00 00",
	  { .last = true, .dv = 1, .rsvd_ulp8 = 0x43, .msn = 2 },
	  0x41 },
	/* siw-rping-mpa2-p2p-writertr initiator FPDU@0: the RTR, a
	 * zero-length RDMA Write with STag 1, TO 0. */
	{ "siw p2p RTR Write",
	  "c1 40 00 00 00 01 00 00 00 00 00 00 00 00",
	  { .tagged = true, .last = true, .dv = 1, .rsvd_ulp8 = 0x40, .stag = 1 },
	  0xc1 },
	/* same capture, initiator FPDU@60: RDMA Read Response. */
	{ "siw Read Response",
	  "c1 42 48 a3 f5 00 00 00 55 ca f5 b7 25 50",
	  { .tagged = true,
	    .last = true,
	    .dv = 1,
	    .rsvd_ulp8 = 0x42,
	    .stag = 0x48a3f500,
	    .to = 0x55caf5b72550ull },
	  0xc1 },
	/* same capture, responder FPDU@0: RDMA Read Request, QN 1 MSN 1. */
	{ "siw Read Request",
	  "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00",
	  { .last = true, .dv = 1, .rsvd_ulp8 = 0x41, .qn = 1, .msn = 1 },
	  0x41 },
	/* same capture, responder FPDU@92: RDMA Write with 64 octets. */
	{ "siw RDMA Write",
	  "c1 40 50 0f 6a 00 00 00 55 e2 a7 df d5 50",
	  { .tagged = true,
	    .last = true,
	    .dv = 1,
	    .rsvd_ulp8 = 0x40,
	    .stag = 0x500f6a00,
	    .to = 0x55e2a7dfd550ull },
	  0xc1 },
	/* siw-readbw-mpa1-crc initiator FPDU@284: Send MSN 7. */
	{ "siw readbw Send",
	  "41 43 00 00 00 00 00 00 00 00 00 00 00 07 00 00 00 00",
	  { .last = true, .dv = 1, .rsvd_ulp8 = 0x43, .msn = 7 },
	  0x41 },
	/* Hand-built: an RDMA Consortium (seed 002) peer, DV 0 RV 0. */
	{ "RDMAC Send, DV 0",
	  "40 03 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00",
	  { .last = true, .dv = 0, .rsvd_ulp8 = 0x03, .msn = 1 },
	  0x40 },
	/* Hand-built: middle segment (L clear) of a Send with Invalidate,
	 * every field non-zero. */
	{ "middle segment, all fields",
	  "01 44 de ad be ef 00 00 00 00 ff ff ff ff 00 00 10 00",
	  { .dv = 1,
	    .rsvd_ulp8 = 0x44,
	    .rsvd_ulp32 = 0xdeadbeef,
	    .msn = 0xffffffff,
	    .mo = 0x1000 },
	  0x01 },
	/* Hand-built: every reserved bit set and DV 3; parsed as is,
	 * rebuilt with the reserved bits zero (RFC 5041 §4.1). */
	{ "reserved bits and DV 3",
	  "ff ff ff ff ff ff ff ff ff ff ff ff ff ff",
	  { .tagged = true,
	    .last = true,
	    .rsvd = 0xf,
	    .dv = 3,
	    .rsvd_ulp8 = 0xff,
	    .stag = 0xffffffff,
	    .to = 0xffffffffffffffffull },
	  0xc3 },
	{ "untagged reserved bits",
	  "3c 00 00 00 00 00 00 00 00 03 00 00 00 00 00 00 00 00",
	  { .rsvd = 0xf, .qn = 3 },
	  0x00 },
};

static void assert_hdr_eq(const struct ddp_hdr *a, const struct ddp_hdr *b)
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

START_TEST(test_vectors)
{
	const struct ddp_vec *v = &vecs[_i];
	uint8_t in[64] = { 0 }, out[64];
	struct ddp_hdr h;
	size_t n, used = 0, written = 0;

	n = test_hex(v->hex, in, sizeof(in));
	ck_assert_uint_eq(n, ddp_hdr_len(in[0]));
	ck_assert_int_eq(ddp_hdr_parse(in, n, &h, &used), WIRE_OK);
	ck_assert_uint_eq(used, n);
	assert_hdr_eq(&h, &v->exp);

	/* Rebuilt byte for byte, but for the reserved DDP bits. */
	ck_assert_int_eq(ddp_hdr_build(&h, out, sizeof(out), &written),
			 WIRE_OK);
	ck_assert_uint_eq(written, n);
	ck_assert_uint_eq(out[0], v->rebuilt_ctrl);
	ck_assert_mem_eq(out + 1, in + 1, n - 1);

	/* Trailing ULP data is not the header's. */
	memset(in + n, 0xa5, 20);
	ck_assert_int_eq(ddp_hdr_parse(in, n + 20, &h, &used), WIRE_OK);
	ck_assert_uint_eq(used, n);
	assert_hdr_eq(&h, &v->exp);
}
END_TEST

START_TEST(test_truncation)
{
	const struct ddp_vec *v = &vecs[_i];
	uint8_t in[64];
	struct ddp_hdr h, sentinel;
	size_t n, k, used;

	n = test_hex(v->hex, in, sizeof(in));
	memset(&sentinel, 0x5a, sizeof(sentinel));
	for (k = 0; k < n; k++) {
		/* An exact-size copy: a read past it is a sanitizer error. */
		uint8_t *p = malloc(k ? k : 1);

		ck_assert_ptr_nonnull(p);
		memcpy(p, in, k);
		h = sentinel;
		used = 12345;
		ck_assert_int_eq(ddp_hdr_parse(p, k, &h, &used), WIRE_ESHORT);
		ck_assert_mem_eq(&h, &sentinel, sizeof(h));
		ck_assert_uint_eq(used, 12345);
		free(p);
	}
	ck_assert_int_eq(ddp_hdr_parse(NULL, 0, &h, &used), WIRE_ESHORT);
}
END_TEST

START_TEST(test_hdr_len_all_ctrl)
{
	unsigned int c;

	for (c = 0; c < 256; c++)
		ck_assert_uint_eq(ddp_hdr_len((uint8_t)c),
				  (c & 0x80) ? 14u : 18u);
}
END_TEST

static void rand_hdr(struct ddp_hdr *h)
{
	uint32_t r = test_rand32();

	memset(h, 0, sizeof(*h));
	h->tagged = r & 1;
	h->last = (r >> 1) & 1;
	h->dv = (r >> 2) & 3;
	h->rsvd_ulp8 = (uint8_t)(r >> 8);
	if (h->tagged) {
		h->stag = test_rand32();
		h->to = test_rand64();
	} else {
		h->rsvd_ulp32 = test_rand32();
		h->qn = test_rand32();
		h->msn = test_rand32();
		h->mo = test_rand32();
	}
}

/* parse(build(x)) == x for random headers of both models. */
START_TEST(test_roundtrip_random)
{
	int i;

	for (i = 0; i < 20000; i++) {
		struct ddp_hdr h, p;
		uint8_t buf[DDP_UNTAGGED_HDR_LEN];
		size_t w = 0, used = 0, cap;

		rand_hdr(&h);
		ck_assert_int_eq(ddp_hdr_build(&h, buf, sizeof(buf), &w),
				 WIRE_OK);
		ck_assert_uint_eq(w, h.tagged ? 14u : 18u);
		ck_assert_int_eq(ddp_hdr_parse(buf, w, &p, &used), WIRE_OK);
		ck_assert_uint_eq(used, w);
		assert_hdr_eq(&p, &h);
		/* Every short output buffer is refused. */
		for (cap = 0; cap < w; cap++)
			ck_assert_int_eq(ddp_hdr_build(&h, buf, cap, &w),
					 WIRE_ENOSPC);
	}
}
END_TEST

/* build(parse(bytes)) == bytes, reserved bits aside, for random bytes. */
START_TEST(test_reverse_roundtrip_random)
{
	int i;

	for (i = 0; i < 20000; i++) {
		uint8_t in[DDP_UNTAGGED_HDR_LEN], out[DDP_UNTAGGED_HDR_LEN];
		struct ddp_hdr h;
		size_t used = 0, w = 0;

		test_rand_bytes(in, sizeof(in));
		ck_assert_int_eq(ddp_hdr_parse(in, sizeof(in), &h, &used),
				 WIRE_OK);
		ck_assert_uint_eq(h.rsvd, (in[0] >> 2) & 0xf);
		ck_assert_int_eq(ddp_hdr_build(&h, out, sizeof(out), &w),
				 WIRE_OK);
		ck_assert_uint_eq(w, used);
		ck_assert_uint_eq(out[0], in[0] & (uint8_t)~DDP_RSVD_MASK);
		ck_assert_mem_eq(out + 1, in + 1, used - 1);
	}
}
END_TEST

START_TEST(test_build_errors)
{
	struct ddp_hdr h;
	uint8_t buf[32];
	size_t w = 777;

	memset(&h, 0, sizeof(h));
	h.dv = 4;
	ck_assert_int_eq(ddp_hdr_build(&h, buf, sizeof(buf), &w), WIRE_EINVAL);
	h.dv = 0xff;
	h.tagged = true;
	ck_assert_int_eq(ddp_hdr_build(&h, buf, sizeof(buf), &w), WIRE_EINVAL);
	ck_assert_uint_eq(w, 777);
	h.dv = DDP_VERSION_IETF;
	ck_assert_int_eq(ddp_hdr_build(&h, buf, 13, &w), WIRE_ENOSPC);
	ck_assert_int_eq(ddp_hdr_build(&h, buf, 14, &w), WIRE_OK);
	ck_assert_uint_eq(w, 14);
	h.tagged = false;
	ck_assert_int_eq(ddp_hdr_build(&h, buf, 17, &w), WIRE_ENOSPC);
	ck_assert_int_eq(ddp_hdr_build(&h, NULL, 0, &w), WIRE_ENOSPC);
	ck_assert_int_eq(ddp_hdr_build(&h, buf, 18, &w), WIRE_OK);
	ck_assert_uint_eq(w, 18);
	/* h.rsvd is never sent (RFC 5041 §4.1). */
	h.rsvd = 0xf;
	ck_assert_int_eq(ddp_hdr_build(&h, buf, 18, &w), WIRE_OK);
	ck_assert_uint_eq(buf[0], 0x01);
}
END_TEST

/* The untagged fields of a tagged header (and the reverse) are zero. */
START_TEST(test_other_model_fields_zero)
{
	uint8_t t[14], u[18];
	struct ddp_hdr h;
	size_t used;

	memset(t, 0xff, sizeof(t));
	memset(&h, 0x77, sizeof(h));
	ck_assert_int_eq(ddp_hdr_parse(t, sizeof(t), &h, &used), WIRE_OK);
	ck_assert_uint_eq(h.qn | h.msn | h.mo | h.rsvd_ulp32, 0);
	memset(u, 0x7f, sizeof(u));
	memset(&h, 0x77, sizeof(h));
	ck_assert_int_eq(ddp_hdr_parse(u, sizeof(u), &h, &used), WIRE_OK);
	ck_assert_uint_eq(h.stag, 0);
	ck_assert_uint_eq(h.to, 0);
	ck_assert_uint_eq(h.qn, 0x7f7f7f7f);
}
END_TEST

static Suite *ddp_suite(void)
{
	Suite *s = suite_create("ddp");

	add_loop_tcase(s, "vectors", test_vectors, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "truncation", test_truncation, ARRAY_SIZE(vecs));
	add_tcase(s, "hdr_len", test_hdr_len_all_ctrl);
	add_tcase(s, "roundtrip_random", test_roundtrip_random);
	add_tcase(s, "reverse_roundtrip", test_reverse_roundtrip_random);
	add_tcase(s, "build_errors", test_build_errors);
	add_tcase(s, "other_model_zero", test_other_model_fields_zero);
	return s;
}

TEST_MAIN(ddp_suite)
