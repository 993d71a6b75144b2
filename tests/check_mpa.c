/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA codec: startup frames (RFC 5044 §7.1.1, RFC 6581 §6/§9, seed-003 RtR
 * frame) and FPDU framing (RFC 5044 §4): the RFC 5044 Figure 4/5/6
 * vectors, frames and FPDU streams of real Linux siw sessions, malformed
 * frames, randomized round trips, and the streaming decoder fed in every
 * kind of split against the contiguous parser and the builders.
 */
#include "common.h"

#include "crc32c.h"
#include "mpa.h"
#include "vectors/mpa_siw.h"

/*
 * Check's ck_assert_*() reports every passing assertion to the parent
 * process (one write each); the hot loops below use these instead, which
 * only call into Check on failure.
 */
#define REQUIRE_MSG(cond, ...)                     \
	do {                                       \
		if (!(cond))                       \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)
#define REQUIRE(cond) REQUIRE_MSG(cond, "%s:%d: %s", __FILE__, __LINE__, #cond)
#define REQUIRE_OP(a, op, b)                                                \
	REQUIRE_MSG((uintmax_t)(a)op(uintmax_t)(b),                         \
		    "%s:%d: %s %s %s (%ju vs %ju)", __FILE__, __LINE__, #a, \
		    #op, #b, (uintmax_t)(a), (uintmax_t)(b))
#define REQUIRE_EQ(a, b) REQUIRE_OP(a, ==, b)
#define REQUIRE_LE(a, b) REQUIRE_OP(a, <=, b)
#define REQUIRE_LT(a, b) REQUIRE_OP(a, <, b)
#define REQUIRE_GT(a, b) REQUIRE_OP(a, >, b)
#define REQUIRE_GE(a, b) REQUIRE_OP(a, >=, b)

/* ---------------------------------------------------------------- */
/* Frames                                                           */
/* ---------------------------------------------------------------- */

static const char *const rtr_prose = "MPA ID Rtr Frame";

START_TEST(test_keys)
{
	ck_assert_mem_eq(mpa_key_req, "MPA ID Req Frame", MPA_KEY_LEN);
	ck_assert_mem_eq(mpa_key_rep, "MPA ID Rep Frame", MPA_KEY_LEN);
	/* Seed 003 hex bytes: 52 74 52 = "RtR" (its prose says "Rtr"). */
	ck_assert_mem_eq(mpa_key_rtr, "MPA ID RtR Frame", MPA_KEY_LEN);
	ck_assert_str_eq(mpa_frame_type_name(MPA_FRAME_REQ), "Request");
	ck_assert_str_eq(mpa_frame_type_name(MPA_FRAME_REP), "Reply");
	ck_assert_str_eq(mpa_frame_type_name(MPA_FRAME_RTR), "RtR");
	ck_assert_str_eq(mpa_frame_type_name((enum mpa_frame_type)0),
			 "unknown");
}
END_TEST

START_TEST(test_enh_word)
{
	struct mpa_enh e, g;
	uint8_t b[4];
	unsigned int bits;

	/* Every A/B/C/D combination with edge IRD/ORD values. */
	for (bits = 0; bits < 16; bits++) {
		static const uint16_t vals[] = { 0, 1, 0x2aaa, 0x3fff };
		unsigned int k;

		for (k = 0; k < ARRAY_SIZE(vals); k++) {
			uint32_t w;

			memset(&e, 0, sizeof(e));
			e.p2p = bits & 1;
			e.rtr = (uint8_t)((bits >> 1) & MPA_RTR_ALL);
			e.ird = vals[k];
			e.ord = vals[ARRAY_SIZE(vals) - 1 - k];
			ck_assert_int_eq(mpa_enh_build(&e, b, sizeof(b)),
					 WIRE_OK);
			w = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
			    (uint32_t)b[2] << 8 | b[3];
			ck_assert_uint_eq(w, mpa_enh_word(&e));
			ck_assert_uint_eq(!!(w & 0x80000000u), e.p2p);
			ck_assert_uint_eq(!!(w & 0x40000000u),
					  !!(e.rtr & MPA_RTR_SEND));
			ck_assert_uint_eq(!!(w & 0x8000u),
					  !!(e.rtr & MPA_RTR_WRITE));
			ck_assert_uint_eq(!!(w & 0x4000u),
					  !!(e.rtr & MPA_RTR_READ));
			ck_assert_uint_eq((w >> 16) & 0x3fff, e.ird);
			ck_assert_uint_eq(w & 0x3fff, e.ord);
			ck_assert_int_eq(mpa_enh_parse(b, 4, &g), WIRE_OK);
			ck_assert_uint_eq(g.p2p, e.p2p);
			ck_assert_uint_eq(g.rtr, e.rtr);
			ck_assert_uint_eq(g.ird, e.ird);
			ck_assert_uint_eq(g.ord, e.ord);
		}
	}
	ck_assert_int_eq(mpa_enh_parse(b, 3, &g), WIRE_ESHORT);
	ck_assert_int_eq(mpa_enh_build(&e, b, 3), WIRE_ENOSPC);
	e.ird = 0x4000;
	ck_assert_int_eq(mpa_enh_build(&e, b, 4), WIRE_EINVAL);
	e.ird = 1;
	e.ord = 0xffff;
	ck_assert_int_eq(mpa_enh_build(&e, b, 4), WIRE_EINVAL);
	e.ord = 1;
	e.rtr = 0x8;
	ck_assert_int_eq(mpa_enh_build(&e, b, 4), WIRE_EINVAL);
}
END_TEST

/* Frames of the siw captures: fields, then rebuilt byte for byte. */
START_TEST(test_siw_frame)
{
	const struct mpa_siw_frame *v = &mpa_siw_frames[_i];
	struct mpa_frame f;
	uint8_t *copy, out[MPA_FRAME_MAX];
	size_t used = 0, n = 0;

	/* Exact-size heap copy: ASan catches any read past the frame. */
	copy = malloc(v->len);
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, v->bytes, v->len);
	ck_assert_msg(mpa_frame_parse(copy, v->len, &f, &used) == WIRE_OK, "%s",
		      v->name);
	ck_assert_uint_eq(used, v->len);
	ck_assert_int_eq(f.type, v->type);
	ck_assert_uint_eq(f.flags, v->flags);
	ck_assert_uint_eq(f.rev, v->rev);
	ck_assert_uint_eq(f.pd_len, v->pd_len);
	ck_assert_uint_eq(f.enhanced, v->has_word);
	ck_assert_ptr_eq(f.pd, copy + MPA_FRAME_HDR_LEN);
	if (v->has_word) {
		ck_assert_uint_eq(mpa_enh_word(&f.enh), v->word);
		ck_assert_uint_eq(f.ulp_pd_len, v->pd_len - 4);
		ck_assert_ptr_eq(f.ulp_pd, copy + MPA_FRAME_HDR_LEN + 4);
	} else {
		ck_assert_uint_eq(f.ulp_pd_len, v->pd_len);
	}
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(n, v->len);
	ck_assert_mem_eq(out, v->bytes, n);
	free(copy);
}
END_TEST

/* Every proper prefix of a valid frame is ESHORT. */
START_TEST(test_siw_frame_truncated)
{
	const struct mpa_siw_frame *v = &mpa_siw_frames[_i];
	struct mpa_frame f;
	size_t used, k;

	for (k = 0; k < v->len; k++) {
		uint8_t *copy = malloc(k ? k : 1);

		memcpy(copy, v->bytes, k);
		ck_assert_msg(mpa_frame_parse(copy, k, &f, &used) ==
				      WIRE_ESHORT,
			      "%s: prefix %zu", v->name, k);
		free(copy);
	}
}
END_TEST

/* The RFC 6581 peer-to-peer frames of the writertr capture, by field. */
START_TEST(test_siw_p2p_fields)
{
	static const char req[] = "4d50412049442052657120467261 6d65"
				  "10 02 00 04 80 01 c0 01";
	static const char rep[] = "4d50412049442052657020467261 6d65"
				  "10 02 00 04 80 01 80 01";
	uint8_t b[64];
	struct mpa_frame f;
	size_t n, used;

	n = test_hex(req, b, sizeof(b));
	ck_assert_int_eq(mpa_frame_parse(b, n, &f, &used), WIRE_OK);
	ck_assert_int_eq(f.type, MPA_FRAME_REQ);
	ck_assert_uint_eq(f.rev, 2);
	ck_assert_uint_eq(f.flags, MPA_FLAG_S);
	ck_assert(f.enhanced);
	ck_assert(f.enh.p2p);					    /* A=1 */
	ck_assert_uint_eq(f.enh.rtr, MPA_RTR_WRITE | MPA_RTR_READ); /* C, D */
	ck_assert_uint_eq(f.enh.ird, 1);
	ck_assert_uint_eq(f.enh.ord, 1);
	ck_assert_uint_eq(f.ulp_pd_len, 0);

	n = test_hex(rep, b, sizeof(b));
	ck_assert_int_eq(mpa_frame_parse(b, n, &f, &used), WIRE_OK);
	ck_assert_int_eq(f.type, MPA_FRAME_REP);
	ck_assert(f.enh.p2p);
	ck_assert_uint_eq(f.enh.rtr, MPA_RTR_WRITE); /* Write chosen */
	ck_assert_uint_eq(mpa_enh_word(&f.enh), 0x80018001u);
}
END_TEST

static size_t frame_hdr(uint8_t *b, const uint8_t *key, uint8_t flags,
			uint8_t rev, uint16_t pd_len)
{
	memcpy(b, key, MPA_KEY_LEN);
	b[16] = flags;
	b[17] = rev;
	b[18] = (uint8_t)(pd_len >> 8);
	b[19] = (uint8_t)pd_len;
	return MPA_FRAME_HDR_LEN;
}

START_TEST(test_frame_malformed)
{
	uint8_t b[MPA_FRAME_MAX + 16];
	struct mpa_frame f;
	size_t used, k;
	unsigned int pd;

	/* A wrong key octet anywhere: EKEY as soon as it is visible. */
	for (k = 0; k < MPA_KEY_LEN; k++) {
		frame_hdr(b, mpa_key_req, 0, 1, 0);
		b[k] ^= 0x80;
		ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_EKEY);
		ck_assert_int_eq(mpa_frame_parse(b, k + 1, &f, &used),
				 WIRE_EKEY);
		if (k)
			ck_assert_int_eq(mpa_frame_parse(b, k, &f, &used),
					 WIRE_ESHORT);
	}
	/* Lower-case variants of the RFC keys are not keys. */
	memcpy(b, "MPA ID req Frame", 16);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_EKEY);
	memcpy(b, "MPA ID RTR Frame", 16);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_EKEY);
	ck_assert_int_eq(mpa_frame_parse(b, 0, &f, &used), WIRE_ESHORT);
	ck_assert_int_eq(mpa_frame_parse(NULL, 0, &f, &used), WIRE_ESHORT);

	/* RFC 5044 §7.1.1 / §7.1.2 rule 9: PD_Length > 512 is malformed,
	 * known from the header alone. */
	frame_hdr(b, mpa_key_rep, MPA_FLAG_C, 1, 513);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_ELEN);
	frame_hdr(b, mpa_key_rep, MPA_FLAG_C, 1, 0xffff);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_ELEN);
	frame_hdr(b, mpa_key_rep, 0, 1, 512);
	memset(b + 20, 0xa5, 512);
	ck_assert_int_eq(mpa_frame_parse(b, 20 + 512, &f, &used), WIRE_OK);
	ck_assert_uint_eq(used, 532);

	/* PD_Length larger than what was supplied: ESHORT. */
	for (pd = 1; pd <= 512; pd += 37) {
		frame_hdr(b, mpa_key_req, 0, 1, (uint16_t)pd);
		ck_assert_int_eq(mpa_frame_parse(b, 20 + pd - 1, &f, &used),
				 WIRE_ESHORT);
		ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used),
				 WIRE_ESHORT);
	}

	/* RFC 6581: S=1 with Rev >= 2 needs the 4-octet word. */
	for (pd = 0; pd < 4; pd++) {
		unsigned int rev;

		for (rev = 2; rev < 256; rev += 50) {
			frame_hdr(b, mpa_key_req, MPA_FLAG_S, (uint8_t)rev,
				  (uint16_t)pd);
			ck_assert_int_eq(mpa_frame_parse(b, 24, &f, &used),
					 WIRE_EFLAGS);
		}
	}
	frame_hdr(b, mpa_key_req, MPA_FLAG_S, 2, 4);
	ck_assert_int_eq(mpa_frame_parse(b, 23, &f, &used), WIRE_ESHORT);
}
END_TEST

START_TEST(test_frame_fields_kept)
{
	uint8_t b[64];
	struct mpa_frame f;
	size_t used;
	unsigned int rev;

	/* Res bits and every flag are reported as received. */
	frame_hdr(b, mpa_key_rep, 0xff, 1, 0);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_OK);
	ck_assert_uint_eq(f.flags, 0xff);
	ck_assert(!f.enhanced); /* Rev 1: S is the seed-003 bit */
	ck_assert_ptr_nonnull(f.pd);
	ck_assert_ptr_nonnull(f.ulp_pd);

	/* Any Rev is returned; S decodes the word only from Rev 2 on. */
	for (rev = 0; rev < 256; rev++) {
		frame_hdr(b, mpa_key_req, MPA_FLAG_S | MPA_FLAG_M, (uint8_t)rev,
			  6);
		memcpy(b + 20, "\xc0\x05\x3f\xffhi", 6);
		ck_assert_int_eq(mpa_frame_parse(b, 26, &f, &used), WIRE_OK);
		ck_assert_uint_eq(f.rev, rev);
		ck_assert_uint_eq(f.flags, MPA_FLAG_S | MPA_FLAG_M);
		ck_assert_uint_eq(f.enhanced, rev >= 2);
		if (rev >= 2) {
			ck_assert(f.enh.p2p);
			ck_assert_uint_eq(f.enh.rtr, MPA_RTR_SEND);
			ck_assert_uint_eq(f.enh.ird, 5);
			ck_assert_uint_eq(f.enh.ord, 0x3fff);
			ck_assert_uint_eq(f.ulp_pd_len, 2);
			ck_assert_mem_eq(f.ulp_pd, "hi", 2);
		} else {
			ck_assert_uint_eq(f.ulp_pd_len, 6);
			ck_assert_ptr_eq(f.ulp_pd, f.pd);
		}
	}

	/* Bytes after the frame are not looked at. */
	frame_hdr(b, mpa_key_req, MPA_FLAG_C, 1, 3);
	memcpy(b + 20, "abcXYZ", 6);
	ck_assert_int_eq(mpa_frame_parse(b, 26, &f, &used), WIRE_OK);
	ck_assert_uint_eq(used, 23);
}
END_TEST

/* Seed 003 "MPA ID RtR Frame": hex spelling sent, both accepted. */
START_TEST(test_frame_rtr)
{
	uint8_t b[64], out[64];
	struct mpa_frame f;
	size_t used, n;

	frame_hdr(b, mpa_key_rtr, 0, 1, 0);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_OK);
	ck_assert_int_eq(f.type, MPA_FRAME_RTR);

	frame_hdr(b, (const uint8_t *)rtr_prose, MPA_FLAG_C, 1, 0);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_OK);
	ck_assert_int_eq(f.type, MPA_FRAME_RTR);
	ck_assert_uint_eq(f.flags, MPA_FLAG_C);
	/* Prefixes of either spelling are valid prefixes. */
	ck_assert_int_eq(mpa_frame_parse(b, 10, &f, &used), WIRE_ESHORT);
	ck_assert_int_eq(mpa_frame_parse(mpa_key_rtr, 10, &f, &used),
			 WIRE_ESHORT);

	/* Rebuilding the prose spelling sends the hex one. */
	frame_hdr(b, (const uint8_t *)rtr_prose, MPA_FLAG_C, 1, 0);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_OK);
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(n, 20);
	ck_assert_mem_eq(out, "MPA ID RtR Frame\x40\x01\x00\x00", 20);

	/* Seed-003 Request with S=1 (Rev 1): S kept, no word decoded. */
	frame_hdr(b, mpa_key_req, MPA_FLAG_S | MPA_FLAG_C, 1, 0);
	ck_assert_int_eq(mpa_frame_parse(b, 20, &f, &used), WIRE_OK);
	ck_assert(!f.enhanced);
	ck_assert_uint_eq(f.flags & MPA_FLAG_S, MPA_FLAG_S);
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_mem_eq(out, b, 20);
}
END_TEST

START_TEST(test_frame_build_errors)
{
	uint8_t pd[600], out[MPA_FRAME_MAX + 8];
	struct mpa_frame f;
	size_t n = 0;

	memset(pd, 0x5a, sizeof(pd));
	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_REQ;
	f.rev = 1;
	f.pd = pd;
	f.pd_len = 513;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_ELEN);
	f.pd_len = 512;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(n, 532);
	ck_assert_int_eq(mpa_frame_build(&f, out, 531, &n), WIRE_ENOSPC);
	f.pd = NULL;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
	f.pd_len = 0;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(n, 20);
	ck_assert_int_eq(mpa_frame_build(&f, out, 19, &n), WIRE_ENOSPC);
	f.type = (enum mpa_frame_type)0;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
	f.type = MPA_FRAME_REP;
	/* Res bits are cleared. */
	f.flags = 0xff;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(out[16], 0xf0);
	/* Raw S=1 at Rev 2 without room for the word would not parse. */
	f.rev = 2;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);

	/* Enhanced. */
	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_REQ;
	f.rev = 2;
	f.enhanced = true;
	f.enh.ird = MPA_IRD_ORD_NONE;
	f.enh.ord = MPA_IRD_ORD_NONE;
	f.ulp_pd = pd;
	f.ulp_pd_len = 508;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_OK);
	ck_assert_uint_eq(n, 532);
	ck_assert_uint_eq(out[16], MPA_FLAG_S);
	ck_assert_mem_eq(out + 20, "\x3f\xff\x3f\xff", 4);
	f.ulp_pd_len = 509;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n), WIRE_ELEN);
	f.ulp_pd_len = 0;
	f.enh.ird = 0x4000;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
	f.enh.ird = 1;
	f.enh.ord = 0x4000;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
	f.enh.ord = 1;
	f.rev = 1;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
	f.rev = 2;
	f.ulp_pd = NULL;
	f.ulp_pd_len = 1;
	ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
			 WIRE_EINVAL);
}
END_TEST

/* parse(build(x)) == x over random fields and Private Data 0..512. */
START_TEST(test_frame_roundtrip)
{
	uint8_t pd[MPA_PD_MAX], out[MPA_FRAME_MAX];
	unsigned int iter;

	for (iter = 0; iter < 5000; iter++) {
		struct mpa_frame f, g;
		size_t n, used;
		unsigned int pd_len;

		memset(&f, 0, sizeof(f));
		f.type = (enum mpa_frame_type)(1 + test_rand32() % 3);
		f.flags = (uint8_t)test_rand32() & ~MPA_FLAG_RES;
		f.rev = (uint8_t)(test_rand32() % 4 == 0 ? test_rand32() :
							   test_rand32() % 3);
		f.enhanced = f.rev >= 2 && (test_rand32() & 1);
		pd_len = iter < 513 ? iter : test_rand32() % 513;
		test_rand_bytes(pd, sizeof(pd));
		if (f.enhanced) {
			if (pd_len > MPA_PD_MAX - MPA_ENH_LEN)
				pd_len = MPA_PD_MAX - MPA_ENH_LEN;
			f.enh.p2p = test_rand32() & 1;
			f.enh.rtr = (uint8_t)(test_rand32() & MPA_RTR_ALL);
			f.enh.ird = (uint16_t)(test_rand32() & 0x3fff);
			f.enh.ord = (uint16_t)(test_rand32() & 0x3fff);
			if (iter % 7 == 0)
				f.enh.ird = f.enh.ord = MPA_IRD_ORD_NONE;
			f.ulp_pd = pd;
			f.ulp_pd_len = (uint16_t)pd_len;
		} else {
			if (f.rev >= 2) {
				/* Raw PD under S=1 must hold the word. */
				if ((f.flags & MPA_FLAG_S) && pd_len < 4)
					pd_len = 4;
			}
			f.pd = pd;
			f.pd_len = (uint16_t)pd_len;
		}
		ck_assert_int_eq(mpa_frame_build(&f, out, sizeof(out), &n),
				 WIRE_OK);
		ck_assert_int_eq(mpa_frame_parse(out, n, &g, &used), WIRE_OK);
		ck_assert_uint_eq(used, n);
		ck_assert_int_eq(g.type, f.type);
		ck_assert_uint_eq(g.rev, f.rev);
		if (f.enhanced) {
			ck_assert(g.enhanced);
			ck_assert_uint_eq(g.flags, f.flags | MPA_FLAG_S);
			ck_assert_uint_eq(g.enh.p2p, f.enh.p2p);
			ck_assert_uint_eq(g.enh.rtr, f.enh.rtr);
			ck_assert_uint_eq(g.enh.ird, f.enh.ird);
			ck_assert_uint_eq(g.enh.ord, f.enh.ord);
			ck_assert_uint_eq(g.pd_len, pd_len + 4);
			ck_assert_uint_eq(g.ulp_pd_len, pd_len);
			ck_assert_mem_eq(g.ulp_pd, pd, pd_len);
		} else {
			ck_assert_uint_eq(g.flags, f.flags);
			ck_assert_uint_eq(g.pd_len, pd_len);
			ck_assert_mem_eq(g.pd, pd, pd_len);
			ck_assert_uint_eq(g.enhanced,
					  f.rev >= 2 && (f.flags & MPA_FLAG_S));
		}
		/* And back: build(parse(y)) == y. */
		{
			uint8_t again[MPA_FRAME_MAX];
			size_t m;

			ck_assert_int_eq(mpa_frame_build(&g, again,
							 sizeof(again), &m),
					 WIRE_OK);
			ck_assert_uint_eq(m, n);
			ck_assert_mem_eq(again, out, n);
		}
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* FPDU helpers                                                     */
/* ---------------------------------------------------------------- */

/* RFC 5044 Figures 5/6: a 42-octet untagged Send, Last, QN 0, MSN msn. */
static void fig_ulpdu(uint8_t u[42], uint32_t msn)
{
	memset(u, 0, 42);
	u[0] = 0x41;
	u[1] = 0x43;
	u[10] = (uint8_t)(msn >> 24);
	u[11] = (uint8_t)(msn >> 16);
	u[12] = (uint8_t)(msn >> 8);
	u[13] = (uint8_t)msn;
}

/* Events collected from one run of the decoder. */
struct rx_fpdu {
	uint16_t ulpdu_len;
	uint32_t fpdu_off;
	size_t data_len; /* ULPDU octets delivered by DATA */
	size_t data_at;	 /* where they start in the data buffer */
	struct mpa_rx_ev end;
	bool ended;
};

struct rx_run {
	struct rx_fpdu *f;
	size_t n, cap;
	uint8_t *data; /* concatenated DATA */
	size_t data_len, data_cap;
	size_t n_events;
};

static void run_init(struct rx_run *r, size_t max_fpdus, size_t max_data)
{
	memset(r, 0, sizeof(*r));
	r->cap = max_fpdus;
	r->f = calloc(max_fpdus ? max_fpdus : 1, sizeof(*r->f));
	r->data_cap = max_data;
	r->data = malloc(max_data ? max_data : 1);
	ck_assert(r->f && r->data);
}

static void run_free(struct rx_run *r)
{
	free(r->f);
	free(r->data);
}

/* Account for one event; fails the test on a protocol-order violation. */
static void run_event(struct rx_run *r, const struct mpa_rx_ev *ev)
{
	struct rx_fpdu *cur = r->n ? &r->f[r->n - 1] : NULL;

	r->n_events++;
	switch (ev->type) {
	case MPA_RX_EV_NONE:
		break;
	case MPA_RX_EV_START:
		REQUIRE_MSG(!cur || cur->ended, "START inside an FPDU");
		REQUIRE_LT(r->n, r->cap);
		cur = &r->f[r->n++];
		memset(cur, 0, sizeof(*cur));
		cur->ulpdu_len = ev->ulpdu_len;
		cur->fpdu_off = ev->fpdu_off;
		cur->data_at = r->data_len;
		break;
	case MPA_RX_EV_DATA:
		REQUIRE_MSG(cur && !cur->ended, "DATA outside an FPDU");
		REQUIRE_GT(ev->len, 0);
		REQUIRE_LE(cur->data_len + ev->len, cur->ulpdu_len);
		REQUIRE_LE(r->data_len + ev->len, r->data_cap);
		memcpy(r->data + r->data_len, ev->data, ev->len);
		r->data_len += ev->len;
		cur->data_len += ev->len;
		break;
	case MPA_RX_EV_END:
		REQUIRE_MSG(cur && !cur->ended, "END outside an FPDU");
		REQUIRE_EQ(cur->data_len, cur->ulpdu_len);
		REQUIRE_EQ(ev->ulpdu_len, cur->ulpdu_len);
		REQUIRE_EQ(ev->fpdu_off, cur->fpdu_off);
		cur->end = *ev;
		cur->ended = true;
		break;
	default:
		ck_abort_msg("unexpected event %d (err %s)", ev->type,
			     wire_errname(ev->err));
	}
}

/* Feed buf in chunks chosen by mode, stepping until each is consumed. */
enum split_mode {
	SPLIT_WHOLE,
	SPLIT_BYTE,
	SPLIT_SMALL,	/* 1..16 */
	SPLIT_RANDOM,	/* 1..3000 */
	SPLIT_DATAPATH, /* ctrl_need / data_room, readv-style */
	SPLIT_RUNS,	/* ctrl_need / data_runs, gathered reads */
	SPLIT_TAKE,	/* the same, placed runs by mpa_rx_take_run */
	SPLIT_MAX
};

static const char *const split_names[] = {
	"whole", "byte", "small", "random", "datapath", "runs", "take",
};

static void feed_chunk(struct mpa_rx *rx, struct rx_run *r, const uint8_t *p,
		       size_t n)
{
	while (n) {
		struct mpa_rx_ev ev;
		size_t used;

		REQUIRE_EQ(mpa_rx_step(rx, p, n, &used, &ev), WIRE_OK);
		REQUIRE_LE(used, n);
		if (ev.type == MPA_RX_EV_DATA) {
			/* Zero copy: the slice is the input itself. */
			REQUIRE(ev.data >= p && ev.data + ev.len <= p + used);
		}
		if (ev.type == MPA_RX_EV_NONE)
			REQUIRE_EQ(used, n);
		run_event(r, &ev);
		p += used;
		n -= used;
	}
}

/*
 * The framing step of the datapath: exactly ctrl_need octets (never ULPDU
 * octets) read into a small bounce buffer and handed over.  Returns how
 * many octets of s it took.
 */
static size_t feed_ctrl(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
			size_t len)
{
	size_t need = mpa_rx_ctrl_need(rx), n = 0, used;
	uint8_t bounce[32];
	struct mpa_rx_ev ev;

	REQUIRE_GT(need, 0);
	REQUIRE_LE(need, sizeof(bounce));
	REQUIRE_LE(need, len);
	memcpy(bounce, s, need);
	while (n < need) {
		REQUIRE_EQ(mpa_rx_step(rx, bounce + n, need - n, &used, &ev),
			   WIRE_OK);
		REQUIRE_MSG(ev.type != MPA_RX_EV_DATA,
			    "ctrl_need pulled ULPDU octets");
		run_event(r, &ev);
		n += used;
		if (ev.type == MPA_RX_EV_NONE)
			break;
	}
	REQUIRE_EQ(n, need);
	return need;
}

/*
 * The datapath pattern: read framing octets (exactly ctrl_need) into a
 * small bounce buffer, and ULPDU octets (at most data_room) straight into
 * the "target", then hand exactly those to mpa_rx_step.
 */
static void feed_datapath(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
			  size_t len)
{
	size_t pos = 0;
	uint8_t *target = malloc(65536);

	ck_assert_ptr_nonnull(target);
	while (pos < len) {
		size_t room = mpa_rx_data_room(rx);
		size_t need = mpa_rx_ctrl_need(rx);
		struct mpa_rx_ev ev;
		size_t used, n;

		if (room) {
			REQUIRE_EQ(need, 0);
			n = room;
			if (test_rand32() & 1)
				n = 1 + test_rand32() % room;
			REQUIRE_LE(n, len - pos);
			memcpy(target, s + pos, n);
			REQUIRE_EQ(mpa_rx_step(rx, target, n, &used, &ev),
				   WIRE_OK);
			REQUIRE_EQ(ev.type, MPA_RX_EV_DATA);
			REQUIRE_EQ(used, n);
			REQUIRE(ev.data == target);
			REQUIRE_EQ(ev.len, n);
			run_event(r, &ev);
			pos += n;
			continue;
		}
		pos += feed_ctrl(rx, r, s + pos, len - pos);
	}
	free(target);
}

/*
 * Hand one planned run to the decoder by mpa_rx_take_run(), in pieces of
 * random size: data pieces are taken (and reported here as the DATA they
 * would have been), a whole Marker is taken, a part of one is refused and
 * stepped.  false: the run was left to mpa_rx_step().
 */
static bool take_run(struct mpa_rx *rx, struct rx_run *r, const uint8_t *dst,
		     const struct mpa_rx_run *run)
{
	struct mpa_rx_ev ev;

	if (run->marker) {
		if (run->len != 4) {
			REQUIRE(!mpa_rx_take_run(rx, dst, run->len, true));
			return false;
		}
		/* Neither a part of a Marker nor data in its place. */
		REQUIRE(!mpa_rx_take_run(rx, dst, 2, true));
		REQUIRE(!mpa_rx_take_run(rx, dst, 4, false));
		REQUIRE(mpa_rx_take_run(rx, dst, 4, true));
		return true;
	}
	/* A Marker where data is expected is refused. */
	REQUIRE(!mpa_rx_take_run(rx, dst, 4, true));
	for (size_t n = 0; n < run->len;) {
		size_t k = 1 + test_rand32() % (run->len - n);

		REQUIRE(mpa_rx_take_run(rx, dst + n, k, false));
		memset(&ev, 0, sizeof(ev));
		ev.type = MPA_RX_EV_DATA;
		ev.data = dst + n;
		ev.len = k;
		run_event(r, &ev);
		n += k;
	}
	/* Past the run: past the ULPDU or across a Marker. */
	if (rx->dir.markers || run->len == 0)
		REQUIRE(mpa_rx_data_room(rx) == 0 ||
			!mpa_rx_take_run(rx, dst, mpa_rx_data_room(rx) + 1,
					 false));
	return true;
}

/*
 * The gathered-read pattern: framing through ctrl_need as above, ULPDU
 * octets as planned by mpa_rx_data_runs (data runs into the "target",
 * Marker runs into their own scratch), handed over run by run, by
 * mpa_rx_step() or (take) mpa_rx_take_run().
 */
static void feed_runs(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		      size_t len, bool take)
{
	size_t pos = 0;

	while (pos < len) {
		struct mpa_rx_run runs[9];
		uint8_t target[4096], mk[sizeof(runs) / sizeof(runs[0])][4];
		size_t want = 1 + test_rand32() % 3000;
		size_t nr =
			mpa_rx_data_runs(rx, want, runs, 1 + test_rand32() % 9);
		size_t data = 0, t = 0;
		struct mpa_rx_ev ev;
		size_t used;

		if (!nr) {
			REQUIRE_EQ(mpa_rx_data_room(rx), 0);
			pos += feed_ctrl(rx, r, s + pos, len - pos);
			continue;
		}
		REQUIRE_MSG(!runs[nr - 1].marker, "plan ends in a Marker");
		for (size_t i = 0; i < nr; i++) {
			uint8_t *dst = runs[i].marker ? mk[i] : target + t;

			REQUIRE_LE(runs[i].len, len - pos);
			if (runs[i].marker)
				REQUIRE_LE(runs[i].len, 4);
			else
				REQUIRE_LE(t + runs[i].len, sizeof(target));
			memcpy(dst, s + pos, runs[i].len);
			pos += runs[i].len;
			for (size_t n = take && take_run(rx, r, dst, &runs[i]) ?
						runs[i].len :
						0;
			     n < runs[i].len;) {
				REQUIRE_EQ(mpa_rx_step(rx, dst + n,
						       runs[i].len - n, &used,
						       &ev),
					   WIRE_OK);
				if (runs[i].marker) {
					REQUIRE_MSG(ev.type != MPA_RX_EV_DATA,
						    "Marker run gave data");
				} else {
					REQUIRE_EQ(ev.type, MPA_RX_EV_DATA);
					REQUIRE(ev.data == dst + n);
				}
				run_event(r, &ev);
				n += used;
			}
			if (!runs[i].marker) {
				t += runs[i].len;
				data += runs[i].len;
			}
		}
		REQUIRE_LE(data, want);
	}
}

static void feed(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		 size_t len, enum split_mode mode)
{
	if (mode == SPLIT_RUNS || mode == SPLIT_TAKE) {
		feed_runs(rx, r, s, len, mode == SPLIT_TAKE);
		return;
	}
	size_t pos = 0;

	if (mode == SPLIT_DATAPATH) {
		feed_datapath(rx, r, s, len);
		return;
	}
	while (pos < len) {
		size_t n = len - pos;

		if (mode == SPLIT_BYTE)
			n = 1;
		else if (mode == SPLIT_SMALL)
			n = 1 + test_rand32() % 16;
		else if (mode == SPLIT_RANDOM)
			n = 1 + test_rand32() % 3000;
		if (n > len - pos)
			n = len - pos;
		feed_chunk(rx, r, s + pos, n);
		pos += n;
	}
}

/* ---------------------------------------------------------------- */
/* RFC 5044 figures                                                 */
/* ---------------------------------------------------------------- */

static const char fig5_hex[] = "00 00 00 00 00 2a 41 43 00 00 00 00 00 00 00 00"
			       "00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00"
			       "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
			       "52 23 99 83";

/* Octets 0x1ec..0x21f of the stream. */
static const char fig6_hex[] = "00 2a 41 43 00 00 00 00 00 00 00 00 00 00 00 02"
			       "00 00 00 00 00 00 00 14 00 00 00 00 00 00 00 00"
			       "00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
			       "84 92 58 98";

/* Decode a stream in every split mode and check the ULPDUs and results. */
static void check_decode(bool markers, bool crc, uint32_t off, const uint8_t *s,
			 size_t len, size_t n_fpdus, const uint8_t *ulpdus,
			 size_t ulpdus_len, const unsigned int *n_markers)
{
	int mode;

	for (mode = 0; mode < SPLIT_MAX; mode++) {
		struct mpa_rx rx;
		struct rx_run r;
		size_t k;

		mpa_rx_init(&rx, markers, crc, off);
		run_init(&r, n_fpdus + 1, ulpdus_len + 1);
		feed(&rx, &r, s, len, (enum split_mode)mode);
		ck_assert_msg(r.n == n_fpdus, "%s: %zu FPDUs",
			      split_names[mode], r.n);
		ck_assert_uint_eq(r.data_len, ulpdus_len);
		ck_assert_mem_eq(r.data, ulpdus, ulpdus_len);
		for (k = 0; k < n_fpdus; k++) {
			ck_assert(r.f[k].ended);
			ck_assert(r.f[k].end.crc_ok);
			ck_assert_uint_eq(r.f[k].end.crc_checked, crc);
			ck_assert(r.f[k].end.markers_ok);
			if (n_markers)
				ck_assert_uint_eq(r.f[k].end.n_markers,
						  n_markers[k]);
		}
		ck_assert_uint_eq(rx.dir.off, off + (uint32_t)len);
		run_free(&r);
	}
}

START_TEST(test_fig5)
{
	uint8_t want[64], u[42], out[64];
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	uint8_t got[42];
	size_t n, wl = test_hex(fig5_hex, want, sizeof(want));
	static const unsigned int nm[] = { 1 };

	ck_assert_uint_eq(wl, 52);
	fig_ulpdu(u, 1);
	ck_assert_uint_eq(mpa_fpdu_wire_len(&d, 42), 52);
	ck_assert_int_eq(mpa_fpdu_build(&d, u, 42, out, sizeof(out), &n),
			 WIRE_OK);
	ck_assert_uint_eq(n, 52);
	ck_assert_mem_eq(out, want, 52);
	ck_assert_uint_eq(d.off, 52);

	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_parse(&d, want, 52, &info, got, sizeof(got)),
			 WIRE_OK);
	ck_assert_uint_eq(info.ulpdu_len, 42);
	ck_assert_uint_eq(info.wire_len, 52);
	ck_assert_uint_eq(info.ulpdu_start, 6);
	ck_assert_uint_eq(info.n_markers, 1);
	ck_assert(info.markers_ok);
	ck_assert(info.crc_ok);
	ck_assert_uint_eq(info.crc_wire, 0x83992352u);
	ck_assert_mem_eq(got, u, 42);

	check_decode(true, true, 0, want, 52, 1, u, 42, nm);
}
END_TEST

START_TEST(test_fig6)
{
	uint8_t want[64], stream[600], u1[482], u2[42], both[524];
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	size_t n1, n2;
	static const unsigned int nm[] = { 1, 1 };

	test_hex(fig6_hex, want, sizeof(want));
	/* The first FPDU (not shown in the RFC): 492 octets with its
	 * leading Marker, a Send to Queue 0 with Last, MSN 1. */
	memset(u1, 0, sizeof(u1));
	fig_ulpdu(u1, 1);
	ck_assert_int_eq(mpa_fpdu_build(&d, u1, sizeof(u1), stream,
					sizeof(stream), &n1),
			 WIRE_OK);
	ck_assert_uint_eq(n1, 492);
	ck_assert_uint_eq(d.off, 0x1ec);
	fig_ulpdu(u2, 2);
	ck_assert_uint_eq(mpa_fpdu_wire_len(&d, 42), 52);
	ck_assert_int_eq(mpa_fpdu_build(&d, u2, 42, stream + n1,
					sizeof(stream) - n1, &n2),
			 WIRE_OK);
	ck_assert_uint_eq(n2, 52);
	ck_assert_mem_eq(stream + n1, want, 52);
	ck_assert_uint_eq(d.off, 0x220);

	/* The second FPDU on its own at its offset. */
	d.off = 0x1ec;
	ck_assert_int_eq(mpa_fpdu_parse(&d, want, 52, &info, NULL, 0), WIRE_OK);
	ck_assert_uint_eq(info.ulpdu_len, 42);
	ck_assert_uint_eq(info.ulpdu_start, 2);
	ck_assert_uint_eq(info.n_markers, 1);
	ck_assert(info.markers_ok);
	ck_assert(info.crc_ok);
	ck_assert_uint_eq(info.crc_wire, 0x98589284u);

	memcpy(both, u1, sizeof(u1));
	memcpy(both + sizeof(u1), u2, sizeof(u2));
	check_decode(true, true, 0, stream, n1 + n2, 2, both, sizeof(both), nm);
	check_decode(true, true, 0x1ec, want, 52, 1, u2, 42, nm);
}
END_TEST

/* Figure 4: ULPDU_Length 0x10, a Marker after ULPDU octet 9 (FPDUPTR 12). */
START_TEST(test_fig4)
{
	uint8_t u[16], out[64], want[28];
	struct mpa_dir d = { .markers = true, .crc = false, .off = 500 };
	size_t n, k;
	int crc;

	for (k = 0; k < 16; k++)
		u[k] = (uint8_t)(0xa0 + k);
	for (crc = 0; crc < 2; crc++) {
		d.crc = crc;
		d.off = 512 - 12;
		ck_assert_int_eq(mpa_fpdu_build(&d, u, 16, out, sizeof(out),
						&n),
				 WIRE_OK);
		ck_assert_uint_eq(n, 28);
		memset(want, 0, sizeof(want));
		want[1] = 0x10;
		memcpy(want + 2, u, 10);
		want[15] = 0x0c; /* Marker: 0x0000, 0x000C */
		memcpy(want + 16, u + 10, 6);
		/* pad 2 octets of 0, then the CRC of octets 0..23 */
		if (crc)
			crc32c_put_wire(crc32c(want, 24), want + 24);
		ck_assert_mem_eq(out, want, 28);
		ck_assert_uint_eq(d.off, 512 + 16);
		{
			static const unsigned int nm[] = { 1 };

			check_decode(true, crc, 500, out, 28, 1, u, 16, nm);
		}
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* FPDU lengths                                                     */
/* ---------------------------------------------------------------- */

/* Markers in [start, start + len) of the stream (the FPDU owns them). */
static unsigned int markers_in(uint32_t start, size_t len)
{
	unsigned int n = 0;
	size_t k;

	for (k = 0; k < len; k++)
		if ((uint32_t)(start + k) % 512 == 0)
			n++;
	return n;
}

START_TEST(test_wire_len)
{
	uint8_t *u = calloc(1, 65536), *out = malloc(70000);
	uint32_t off;
	static const uint16_t lens[] = { 0,    1,    2,	   3,	  4,
					 5,    42,   482,  505,	  506,
					 507,  508,  509,  510,	  1000,
					 1016, 4093, 9000, 65530, 65535 };
	size_t k;

	ck_assert(u && out);
	for (off = 0; off < 1100; off++) {
		for (k = 0; k < ARRAY_SIZE(lens); k++) {
			struct mpa_dir d = { .markers = true,
					     .crc = true,
					     .off = off };
			struct mpa_dir nd = { .markers = false, .off = off };
			size_t wl = mpa_fpdu_wire_len(&d, lens[k]), n = 0;
			size_t body = 2 + lens[k] + mpa_pad_len(lens[k]) + 4;

			ck_assert_uint_eq(mpa_fpdu_wire_len(&nd, lens[k]),
					  body);
			ck_assert_uint_eq(body % 4, 0);
			if (off % 512 && off % 512 < 4) {
				ck_assert_uint_eq(wl, 0);
				ck_assert_int_eq(mpa_fpdu_build(&d, u, lens[k],
								out, 70000, &n),
						 WIRE_EINVAL);
				continue;
			}
			ck_assert_uint_eq(wl, body + 4 * markers_in(off, wl));
			if (lens[k] > 9000 && off % 64)
				continue; /* keep it quick */
			ck_assert_int_eq(mpa_fpdu_build(&d, u, lens[k], out, wl,
							&n),
					 WIRE_OK);
			ck_assert_uint_eq(n, wl);
			ck_assert_uint_eq(d.off, off + wl);
			d.off = off;
			ck_assert_int_eq(mpa_fpdu_build(&d, u, lens[k], out,
							wl - 1, &n),
					 WIRE_ENOSPC);
			ck_assert_uint_eq(d.off, off);
		}
	}
	ck_assert_uint_eq(mpa_pad_len(0), 2);
	ck_assert_uint_eq(mpa_pad_len(1), 1);
	ck_assert_uint_eq(mpa_pad_len(2), 0);
	ck_assert_uint_eq(mpa_pad_len(3), 3);
	free(u);
	free(out);
}
END_TEST

/*
 * RFC 5044 §4.4: a Marker immediately following the pad is in this FPDU's
 * CRC; one immediately following the CRC belongs to the next FPDU (FPDUPTR
 * 0, in the next CRC).  Expected CRCs computed here over the raw octets.
 */
START_TEST(test_marker_at_fpdu_edges)
{
	uint8_t u[506], out[1200];
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	size_t n, n2;
	static const unsigned int nm1[] = { 2 }, nm2[] = { 1, 1 };

	test_rand_bytes(u, sizeof(u));
	/* Marker 4 + length 2 + ULPDU 506 = 512: the Marker at 512 falls
	 * between the ULPDU (no pad) and the CRC. */
	ck_assert_int_eq(mpa_fpdu_build(&d, u, 506, out, sizeof(out), &n),
			 WIRE_OK);
	ck_assert_uint_eq(n, 520);
	ck_assert_mem_eq(out + 512, "\x00\x00\x01\xfc", 4); /* FPDUPTR 508 */
	ck_assert_uint_eq(crc32c_get_wire(out + 516), crc32c(out, 516));
	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0), WIRE_OK);
	ck_assert_uint_eq(info.n_markers, 2);
	ck_assert(info.crc_ok && info.markers_ok);
	check_decode(true, true, 0, out, n, 1, u, 506, nm1);

	/* ULPDU 502: the FPDU ends at 512 exactly; the Marker at 512 leads
	 * the next FPDU with FPDUPTR 0 and is in that FPDU's CRC. */
	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_build(&d, u, 502, out, sizeof(out), &n),
			 WIRE_OK);
	ck_assert_uint_eq(n, 512);
	ck_assert_uint_eq(crc32c_get_wire(out + 508), crc32c(out, 508));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, 10, out + n, sizeof(out) - n,
					&n2),
			 WIRE_OK);
	ck_assert_uint_eq(n2, 4 + 2 + 10 + 0 + 4);
	ck_assert_mem_eq(out + 512, "\0\0\0\0\x00\x0a", 6);
	ck_assert_uint_eq(crc32c_get_wire(out + 528), crc32c(out + 512, 16));
	{
		uint8_t both[512];

		memcpy(both, u, 502);
		memcpy(both + 502, u, 10);
		check_decode(true, true, 0, out, n + n2, 2, both, 512, nm2);
	}
}
END_TEST

START_TEST(test_mulpdu)
{
	uint32_t emss;

	/* RFC 5044 §4.5 formulas. */
	ck_assert_uint_eq(mpa_mulpdu(1460, false), 1454);
	ck_assert_uint_eq(mpa_mulpdu(1460, true), 1460 - (6 + 12 + 0));
	ck_assert_uint_eq(mpa_mulpdu(1462, true), 1462 - (6 + 12 + 2));
	ck_assert_uint_eq(mpa_mulpdu(8960, true), 8960 - (6 + 4 * 18));
	/* Never below 128, never above 65535. */
	ck_assert_uint_eq(mpa_mulpdu(0, true), 128);
	ck_assert_uint_eq(mpa_mulpdu(100, false), 128);
	ck_assert_uint_eq(mpa_mulpdu(1000000, true), 65535);
	ck_assert_uint_eq(mpa_mulpdu(UINT32_MAX, false), 65535);

	/* The FPDU of a MULPDU-sized ULPDU fits EMSS at every offset. */
	for (emss = 140; emss < 9100; emss += 1 + emss / 97) {
		int mk;

		for (mk = 0; mk < 2; mk++) {
			uint16_t m = mpa_mulpdu(emss, mk);
			uint32_t off;

			ck_assert_uint_ge(m, 128);
			for (off = 0; off < 512; off += 4) {
				struct mpa_dir d = { .markers = mk,
						     .off = off };

				ck_assert_msg(mpa_fpdu_wire_len(&d, m) <= emss,
					      "emss %u markers %d off %u", emss,
					      mk, off);
			}
		}
	}
}
END_TEST

/* ---------------------------------------------------------------- */
/* Builders                                                         */
/* ---------------------------------------------------------------- */

/* Random iovec split of u (with empty pieces) == contiguous build. */
START_TEST(test_iov_builder)
{
	uint8_t *u = malloc(65535), *a = malloc(70000), *b = malloc(70000);
	struct mpa_tx_scratch scratch;
	struct iovec in[40], *out;
	unsigned int iter;

	ck_assert(u && a && b);
	out = calloc(mpa_fpdu_iov_max(ARRAY_SIZE(in)), sizeof(*out));
	ck_assert_ptr_nonnull(out);
	test_rand_bytes(u, 65535);
	for (iter = 0; iter < 3000; iter++) {
		struct mpa_dir d1, d2;
		uint16_t len;
		size_t n_in = 1 + test_rand32() % ARRAY_SIZE(in);
		size_t k, left, n_out, wire, na, pos;
		bool zero_copy = false;

		if (iter == 0)
			len = 65535;
		else if (iter % 5 == 0)
			len = (uint16_t)test_rand32();
		else
			len = (uint16_t)(test_rand32() % 9001);
		d1.markers = test_rand32() & 1;
		d1.crc = test_rand32() & 1;
		d1.off = test_rand32();
		if (iter % 3 == 0)
			d1.off &= ~3u;
		if (d1.markers && d1.off % 512 && d1.off % 512 < 4)
			d1.off += 4;
		d2 = d1;
		left = len;
		for (k = 0; k < n_in; k++) {
			size_t piece = k == n_in - 1 ?
					       left :
					       test_rand32() % (left + 1);

			if (k < n_in - 1 && test_rand32() % 4 == 0)
				piece = 0;
			in[k].iov_base = u + (len - left);
			in[k].iov_len = piece;
			left -= piece;
		}
		ck_assert_int_eq(mpa_fpdu_build(&d1, u, len, a, 70000, &na),
				 WIRE_OK);
		ck_assert_int_eq(mpa_fpdu_build_iov(&d2, in, n_in, &scratch,
						    out, mpa_fpdu_iov_max(n_in),
						    &n_out, &wire),
				 WIRE_OK);
		ck_assert_uint_eq(wire, na);
		ck_assert_uint_eq(d1.off, d2.off);
		ck_assert_uint_le(n_out, mpa_fpdu_iov_max(n_in));
		pos = 0;
		for (k = 0; k < n_out; k++) {
			const uint8_t *p = out[k].iov_base;

			ck_assert_uint_gt(out[k].iov_len, 0);
			if (p >= u && p < u + 65535)
				zero_copy = true;
			memcpy(b + pos, p, out[k].iov_len);
			pos += out[k].iov_len;
		}
		ck_assert_uint_eq(pos, na);
		ck_assert_mem_eq(a, b, na);
		if (len)
			ck_assert(zero_copy);
		/* Too few out entries: ENOSPC, direction untouched. */
		if (n_out > 1) {
			struct mpa_dir d3 = d1;

			d3.off = d1.off - (uint32_t)na;
			ck_assert_int_eq(
				mpa_fpdu_build_iov(&d3, in, n_in, &scratch, out,
						   n_out - 1, &n_out, &wire),
				WIRE_ENOSPC);
			ck_assert_uint_eq(d3.off, d1.off - (uint32_t)na);
		}
	}
	/* Over 65535 octets in total, NULL base, offset inside a Marker. */
	{
		struct mpa_dir d = { .markers = true, .off = 0 };
		size_t n_out, wire;

		in[0].iov_base = u;
		in[0].iov_len = 65535;
		in[1].iov_base = u;
		in[1].iov_len = 1;
		ck_assert_int_eq(mpa_fpdu_build_iov(&d, in, 2, &scratch, out,
						    mpa_fpdu_iov_max(2), &n_out,
						    &wire),
				 WIRE_ELEN);
		in[0].iov_base = NULL;
		in[0].iov_len = 1;
		ck_assert_int_eq(mpa_fpdu_build_iov(&d, in, 1, &scratch, out,
						    mpa_fpdu_iov_max(1), &n_out,
						    &wire),
				 WIRE_EINVAL);
		in[0].iov_base = u;
		d.off = 1025;
		ck_assert_int_eq(mpa_fpdu_build_iov(&d, in, 1, &scratch, out,
						    mpa_fpdu_iov_max(1), &n_out,
						    &wire),
				 WIRE_EINVAL);
		d.off = 1024 + 4;
		ck_assert_int_eq(mpa_fpdu_build_iov(&d, in, 1, &scratch, out,
						    mpa_fpdu_iov_max(1), &n_out,
						    &wire),
				 WIRE_OK);
		ck_assert_int_eq(mpa_fpdu_build_iov(&d, NULL, 0, &scratch, out,
						    mpa_fpdu_iov_max(0), &n_out,
						    &wire),
				 WIRE_OK);
		ck_assert_uint_eq(wire, 8);
	}
	free(out);
	free(u);
	free(a);
	free(b);
}
END_TEST

/* ---------------------------------------------------------------- */
/* Streams                                                          */
/* ---------------------------------------------------------------- */

struct stream {
	bool markers, crc;
	uint32_t off0;
	size_t n; /* FPDUs */
	uint16_t *lens;
	uint8_t *ulpdus; /* concatenated */
	size_t ulpdus_len;
	uint8_t *bytes;
	size_t len;
	size_t *at;   /* index of each FPDU in bytes */
	size_t *wire; /* its wire length */
};

static void stream_free(struct stream *s)
{
	free(s->lens);
	free(s->ulpdus);
	free(s->bytes);
	free(s->at);
	free(s->wire);
}

/* Random ULPDUs (0..max_len) built back to back from a random offset. */
static void stream_make(struct stream *s, size_t n, size_t max_len)
{
	struct mpa_dir d;
	size_t k, u = 0, cap = 0;

	memset(s, 0, sizeof(*s));
	s->markers = test_rand32() & 1;
	s->crc = test_rand32() & 1;
	switch (test_rand32() % 4) {
	case 0:
		s->off0 = 0;
		break;
	case 1:
		s->off0 = test_rand32() & ~3u;
		break;
	case 2:
		s->off0 = 0u - (test_rand32() % 4096); /* about to wrap */
		break;
	default:
		s->off0 = test_rand32(); /* any alignment */
		break;
	}
	if (s->markers && s->off0 % 512 && s->off0 % 512 < 4)
		s->off0 &= ~3u;
	s->n = n;
	s->lens = calloc(n + 1, sizeof(*s->lens));
	s->at = calloc(n + 1, sizeof(*s->at));
	s->wire = calloc(n + 1, sizeof(*s->wire));
	for (k = 0; k < n; k++) {
		uint32_t r = test_rand32() % 16;

		if (r == 0)
			s->lens[k] = 0;
		else if (r < 4)
			s->lens[k] = (uint16_t)(test_rand32() % 64);
		else
			s->lens[k] = (uint16_t)(test_rand32() % (max_len + 1));
		u += s->lens[k];
		cap += s->lens[k] + 16 + 4 * (s->lens[k] / 500 + 2);
	}
	s->ulpdus = malloc(u + 1);
	s->ulpdus_len = u;
	test_rand_bytes(s->ulpdus, u);
	s->bytes = malloc(cap + 1);
	ck_assert(s->lens && s->at && s->wire && s->ulpdus && s->bytes);
	d.markers = s->markers;
	d.crc = s->crc;
	d.off = s->off0;
	u = 0;
	for (k = 0; k < n; k++) {
		size_t w;

		s->at[k] = s->len;
		ck_assert_int_eq(mpa_fpdu_build(&d, s->ulpdus + u, s->lens[k],
						s->bytes + s->len, cap - s->len,
						&w),
				 WIRE_OK);
		s->wire[k] = w;
		s->len += w;
		u += s->lens[k];
	}
}

/* Stream index of ULPDU octet j of FPDU k. */
static size_t stream_ulpdu_index(const struct stream *s, size_t k, size_t j)
{
	struct mpa_dir d = { .markers = s->markers, .crc = s->crc };
	struct mpa_fpdu_info info;
	size_t i;

	d.off = s->off0 + (uint32_t)s->at[k];
	ck_assert_int_eq(mpa_fpdu_parse(&d, s->bytes + s->at[k],
					s->len - s->at[k], &info, NULL, 0),
			 WIRE_OK);
	i = s->at[k] + info.ulpdu_start;
	for (;;) {
		if (s->markers && (s->off0 + (uint32_t)i) % 512 < 4) {
			i++;
			continue;
		}
		if (j == 0)
			return i;
		j--;
		i++;
	}
}

/* Stream index of the first octet of FPDU k's CRC field. */
static size_t stream_crc_index(const struct stream *s, size_t k)
{
	size_t i = s->at[k] + s->wire[k], n = 0;

	while (n < 4) {
		i--;
		if (!(s->markers && (s->off0 + (uint32_t)i) % 512 < 4))
			n++;
	}
	return i;
}

/* Decode s in one split mode; per-FPDU checks against the builder. */
static void stream_check(const struct stream *s, enum split_mode mode,
			 size_t bad_crc, size_t bad_marker,
			 uint32_t bad_marker_off)
{
	struct mpa_rx rx;
	struct rx_run r;
	size_t k;

	mpa_rx_init(&rx, s->markers, s->crc, s->off0);
	run_init(&r, s->n + 1, s->ulpdus_len + 1);
	feed(&rx, &r, s->bytes, s->len, mode);
	REQUIRE_EQ(r.n, s->n);
	REQUIRE_EQ(r.data_len, s->ulpdus_len);
	if (bad_crc == SIZE_MAX)
		REQUIRE(memcmp(r.data, s->ulpdus, s->ulpdus_len) == 0);
	for (k = 0; k < s->n; k++) {
		const struct mpa_rx_ev *e = &r.f[k].end;
		struct mpa_dir d = { .markers = s->markers, .crc = s->crc };
		struct mpa_fpdu_info info;
		uint32_t start = s->off0 + (uint32_t)s->at[k];
		unsigned int lead = s->markers && start % 512 == 0;

		REQUIRE(r.f[k].ended);
		REQUIRE_EQ(e->ulpdu_len, s->lens[k]);
		REQUIRE_EQ(e->wire_len, s->wire[k]);
		REQUIRE_EQ(e->fpdu_off, start + 4 * lead);
		REQUIRE_EQ(e->crc_checked, s->crc);
		REQUIRE_EQ(e->crc_ok, k != bad_crc || !s->crc);
		REQUIRE_EQ(e->markers_ok, k != bad_marker);
		if (k == bad_marker)
			REQUIRE_EQ(e->bad_marker_off, bad_marker_off);
		REQUIRE_EQ(e->n_markers,
			   s->markers ? markers_in(start, s->wire[k]) : 0);
		if (!s->crc)
			REQUIRE_EQ(e->crc_calc, 0);
		/* The contiguous parser agrees. */
		d.off = start;
		REQUIRE_EQ(mpa_fpdu_parse(&d, s->bytes + s->at[k],
					  s->len - s->at[k], &info, NULL, 0),
			   WIRE_OK);
		REQUIRE_EQ(info.ulpdu_len, e->ulpdu_len);
		REQUIRE_EQ(info.wire_len, e->wire_len);
		REQUIRE_EQ(info.n_markers, e->n_markers);
		REQUIRE_EQ(info.markers_ok, e->markers_ok);
		REQUIRE_EQ(info.crc_ok, e->crc_ok);
		REQUIRE_EQ(info.crc_wire, e->crc_wire);
		REQUIRE_EQ(info.crc_calc, e->crc_calc);
	}
	REQUIRE_EQ(rx.dir.off, s->off0 + (uint32_t)s->len);
	REQUIRE_EQ(mpa_rx_data_room(&rx), 0);
	run_free(&r);
}

START_TEST(test_stream)
{
	enum split_mode mode = (enum split_mode)_i;
	unsigned int iter, iters = mode == SPLIT_BYTE ? 40 : 150;

	for (iter = 0; iter < iters; iter++) {
		struct stream s;

		stream_make(&s, 1 + test_rand32() % 24,
			    iter % 4 == 0 ? 9000 : 1500);
		stream_check(&s, mode, SIZE_MAX, SIZE_MAX, 0);
		stream_free(&s);
	}
}
END_TEST

/* A flipped ULPDU octet fails exactly that FPDU's CRC; framing goes on. */
START_TEST(test_stream_bad_crc)
{
	unsigned int iter;

	for (iter = 0; iter < 300; iter++) {
		struct stream s;
		size_t k, j;

		stream_make(&s, 2 + test_rand32() % 10, 3000);
		k = test_rand32() % s.n;
		if (s.lens[k]) {
			j = test_rand32() % s.lens[k];
			s.bytes[stream_ulpdu_index(&s, k, j)] ^=
				(uint8_t)(1u << (test_rand32() % 8));
		} else {
			k = SIZE_MAX;
		}
		stream_check(&s, (enum split_mode)(iter % SPLIT_MAX), k,
			     SIZE_MAX, 0);
		stream_free(&s);
	}
}
END_TEST

/* A Marker whose FPDUPTR is wrong gives markers_ok=false for its FPDU. */
START_TEST(test_stream_bad_marker)
{
	unsigned int iter, done = 0;

	for (iter = 0; iter < 2000 && done < 300; iter++) {
		struct stream s;
		size_t k, i, mk = SIZE_MAX;
		uint32_t mk_off = 0;

		stream_make(&s, 1 + test_rand32() % 10, 3000);
		if (!s.markers) {
			stream_free(&s);
			continue;
		}
		/* Pick a random Marker in the stream. */
		k = test_rand32() % s.n;
		for (i = s.at[k]; i < s.at[k] + s.wire[k]; i++) {
			if ((s.off0 + (uint32_t)i) % 512 == 0 &&
			    (mk == SIZE_MAX || test_rand32() % 2)) {
				mk = i;
				mk_off = s.off0 + (uint32_t)i;
			}
		}
		if (mk == SIZE_MAX) {
			stream_free(&s);
			continue;
		}
		switch (done % 3) {
		case 0: /* FPDUPTR off by 4 or more */
			s.bytes[mk + 2] ^= (uint8_t)(1 + test_rand32() % 255);
			break;
		case 1:
			s.bytes[mk + 3] ^= 0x04;
			break;
		default: /* both */
			s.bytes[mk + 2] ^= 0x80;
			s.bytes[mk + 3] ^= 0x10;
			break;
		}
		/*
		 * Markers are in the CRC, so it fails too when on, unless
		 * the Marker sits inside the CRC field (possible only in
		 * a stream that is not 4-aligned).
		 */
		stream_check(&s, (enum split_mode)(done % SPLIT_MAX),
			     s.crc && mk < stream_crc_index(&s, k) ? k :
								     SIZE_MAX,
			     k, mk_off);
		stream_free(&s);
		done++;
	}
	ck_assert_uint_ge(done, 100);
}
END_TEST

/* Reserved octets and FPDUPTR's two low bits of a Marker are ignored. */
START_TEST(test_marker_ignored_bits)
{
	uint8_t u[2000], out[2100];
	struct mpa_dir d = { .markers = true, .crc = false, .off = 0 };
	struct mpa_fpdu_info info;
	size_t n;
	static const unsigned int nm[] = { 4 };

	test_rand_bytes(u, sizeof(u));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, sizeof(u), out, sizeof(out), &n),
			 WIRE_OK);
	ck_assert_uint_eq(n, 2 + 2000 + 2 + 4 + 4 * 4);
	/* Markers at 0 (leading), 512, 1024, 1536; FPDUPTR 508, ... */
	ck_assert_uint_eq(out[512 + 2] << 8 | out[512 + 3], 508);
	ck_assert_uint_eq(out[1024 + 2] << 8 | out[1024 + 3], 1020);
	out[0] = 0xff; /* RESERVED */
	out[513] = 0x77;
	out[1027] |= 3; /* low bits */
	out[3] |= 2;	/* leading: 0 after masking */
	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0), WIRE_OK);
	ck_assert(info.markers_ok);
	ck_assert_uint_eq(info.n_markers, 4);
	check_decode(true, false, 0, out, n, 1, u, sizeof(u), nm);
}
END_TEST

/* RFC 5044 §4.1: with CRC off the field may hold anything. */
START_TEST(test_crc_off_ignored)
{
	uint8_t u[100], out[200];
	struct mpa_dir d = { .markers = false, .crc = false, .off = 0 };
	struct mpa_fpdu_info info;
	size_t n;

	test_rand_bytes(u, sizeof(u));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, sizeof(u), out, sizeof(out), &n),
			 WIRE_OK);
	ck_assert_uint_eq(n, 108);
	ck_assert_mem_eq(out + 104, "\0\0\0\0", 4); /* zeros sent */
	memcpy(out + 104, "\xde\xad\xbe\xef", 4);
	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0), WIRE_OK);
	ck_assert(info.crc_ok);
	check_decode(false, false, 0, out, n, 1, u, sizeof(u), NULL);
	/* Checked, the same bytes fail. */
	d.crc = true;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0), WIRE_OK);
	ck_assert(!info.crc_ok);
	ck_assert_uint_eq(info.crc_wire, 0xefbeaddeu);
}
END_TEST

START_TEST(test_parse_errors)
{
	uint8_t u[1200], out[1300], got[1200];
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	size_t n, k;

	test_rand_bytes(u, sizeof(u));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, sizeof(u), out, sizeof(out), &n),
			 WIRE_OK);
	/* Every truncation is ESHORT, read from an exact-size buffer. */
	for (k = 0; k < n; k++) {
		uint8_t *copy = malloc(k ? k : 1);

		memcpy(copy, out, k);
		d.off = 0;
		ck_assert_int_eq(mpa_fpdu_parse(&d, copy, k, &info, NULL, 0),
				 WIRE_ESHORT);
		free(copy);
	}
	d.off = 0;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, got, 1199),
			 WIRE_ENOSPC);
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, got, 1200), WIRE_OK);
	ck_assert_mem_eq(got, u, 1200);
	ck_assert_uint_eq(info.wire_len, n);
	d.off = 2;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0),
			 WIRE_EINVAL);
	d.markers = false;
	ck_assert_int_eq(mpa_fpdu_parse(&d, out, n, &info, NULL, 0), WIRE_OK);
}
END_TEST

/* An ERROR is final. */
START_TEST(test_rx_dead)
{
	struct mpa_rx rx;
	struct mpa_rx_ev ev;
	uint8_t b[8] = { 0 };
	size_t used;
	int k;

	mpa_rx_init(&rx, true, true, 513); /* inside a Marker */
	for (k = 0; k < 3; k++) {
		ck_assert_int_eq(mpa_rx_step(&rx, b, sizeof(b), &used, &ev),
				 WIRE_EINVAL);
		ck_assert_int_eq(ev.type, MPA_RX_EV_ERROR);
		ck_assert_int_eq(ev.err, WIRE_EINVAL);
		ck_assert_uint_eq(used, 0);
	}
	ck_assert_uint_eq(mpa_rx_data_room(&rx), 0);
	ck_assert_uint_eq(mpa_rx_ctrl_need(&rx), 0);

	mpa_rx_init(&rx, false, false, 513); /* no Markers: fine */
	ck_assert_int_eq(mpa_rx_step(&rx, b, 2, &used, &ev), WIRE_OK);
	ck_assert_int_eq(ev.type, MPA_RX_EV_START);
	ck_assert_uint_eq(ev.fpdu_off, 513);
	ck_assert_int_eq(mpa_rx_step(&rx, NULL, 1, &used, &ev), WIRE_EINVAL);
	ck_assert_int_eq(ev.type, MPA_RX_EV_ERROR);
	ck_assert_int_eq(mpa_rx_step(&rx, b, 4, &used, &ev), WIRE_EINVAL);
	ck_assert_uint_eq(used, 0);
	/* An empty step is harmless. */
	mpa_rx_init(&rx, true, true, 0);
	ck_assert_int_eq(mpa_rx_step(&rx, NULL, 0, &used, &ev), WIRE_OK);
	ck_assert_int_eq(ev.type, MPA_RX_EV_NONE);
	ck_assert_uint_eq(mpa_rx_ctrl_need(&rx), 6); /* Marker + length */
}
END_TEST

/* FPDU streams of real siw sessions: framing, CRCs, and rebuilt bytes. */
START_TEST(test_siw_stream)
{
	const struct mpa_siw_stream *v = &mpa_siw_streams[_i];
	int mode;

	for (mode = 0; mode < SPLIT_MAX; mode++) {
		struct mpa_rx rx;
		struct rx_run r;
		size_t k;

		mpa_rx_init(&rx, false, v->crc, 0);
		run_init(&r, v->n_fpdus + 1, v->len);
		feed(&rx, &r, v->bytes, v->len, (enum split_mode)mode);
		ck_assert_msg(r.n == v->n_fpdus, "%s", v->name);
		for (k = 0; k < v->n_fpdus; k++) {
			const struct mpa_rx_ev *e = &r.f[k].end;

			ck_assert(r.f[k].ended);
			ck_assert_uint_eq(e->fpdu_off, v->fpdu_off[k]);
			ck_assert_uint_eq(e->ulpdu_len, v->ulpdu_len[k]);
			ck_assert_uint_eq(e->crc_checked, v->crc);
			ck_assert_msg(e->crc_ok, "%s FPDU %zu", v->name, k);
			ck_assert_uint_eq(e->n_markers, 0);
		}
		run_free(&r);
	}
	/*
	 * Our builder reproduces siw's FPDUs, CRC values included, except
	 * where siw's pad is not zero: it sends whatever follows the ULPDU
	 * in its buffer (readbw FPDU@96: pad 00 40), which RFC 5044 §4.1
	 * forbids ("MUST be set to zero by the sender") but receivers
	 * ignore apart from the CRC, which covers them and verifies.
	 */
	{
		struct mpa_dir d = { .markers = false, .crc = v->crc };
		uint8_t out[2000];
		size_t k, n;

		for (k = 0; k < v->n_fpdus; k++) {
			const uint8_t *f = v->bytes + v->fpdu_off[k];
			uint16_t ul = v->ulpdu_len[k];
			unsigned int pad = mpa_pad_len(ul);

			ck_assert_int_eq(mpa_fpdu_build(&d, f + 2, ul, out,
							sizeof(out), &n),
					 WIRE_OK);
			ck_assert_uint_eq(n, 2u + ul + pad + 4);
			if (!v->crc) /* siw sends zeros too */
				ck_assert_mem_eq(f + n - 4, "\0\0\0\0", 4);
			if (pad && memcmp(f + 2 + ul, "\0\0\0", pad) != 0) {
				ck_assert_mem_eq(out, f, 2u + ul);
				continue;
			}
			ck_assert_mem_eq(out, f, n);
		}
		ck_assert_uint_eq(d.off, v->len);
	}
}
END_TEST

static Suite *mpa_suite(void)
{
	Suite *s = suite_create("mpa");

	add_tcase(s, "keys", test_keys);
	add_tcase(s, "enh_word", test_enh_word);
	add_loop_tcase(s, "siw_frame", test_siw_frame,
		       ARRAY_SIZE(mpa_siw_frames));
	add_loop_tcase(s, "siw_frame_truncated", test_siw_frame_truncated,
		       ARRAY_SIZE(mpa_siw_frames));
	add_tcase(s, "siw_p2p_fields", test_siw_p2p_fields);
	add_tcase(s, "frame_malformed", test_frame_malformed);
	add_tcase(s, "frame_fields_kept", test_frame_fields_kept);
	add_tcase(s, "frame_rtr", test_frame_rtr);
	add_tcase(s, "frame_build_errors", test_frame_build_errors);
	add_tcase(s, "frame_roundtrip", test_frame_roundtrip);
	add_tcase(s, "fig5", test_fig5);
	add_tcase(s, "fig6", test_fig6);
	add_tcase(s, "fig4", test_fig4);
	add_tcase(s, "wire_len", test_wire_len);
	add_tcase(s, "marker_at_fpdu_edges", test_marker_at_fpdu_edges);
	add_tcase(s, "mulpdu", test_mulpdu);
	add_tcase(s, "iov_builder", test_iov_builder);
	add_loop_tcase(s, "stream", test_stream, SPLIT_MAX);
	add_tcase(s, "stream_bad_crc", test_stream_bad_crc);
	add_tcase(s, "stream_bad_marker", test_stream_bad_marker);
	add_tcase(s, "marker_ignored_bits", test_marker_ignored_bits);
	add_tcase(s, "crc_off_ignored", test_crc_off_ignored);
	add_tcase(s, "parse_errors", test_parse_errors);
	add_tcase(s, "rx_dead", test_rx_dead);
	add_loop_tcase(s, "siw_stream", test_siw_stream,
		       ARRAY_SIZE(mpa_siw_streams));
	return s;
}

TEST_MAIN(mpa_suite)
