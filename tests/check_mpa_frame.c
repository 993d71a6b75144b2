/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA startup frames (RFC 5044 §7.1.1, RFC 6581 §6/§9, the seed-003 RtR
 * frame): keys, the enhanced word, the frames of real Linux siw sessions
 * field by field and rebuilt byte for byte, truncated and malformed
 * frames, build errors and randomized round trips.
 */
#include "config.h"

#include "mpa_feed.h"

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

static Suite *mpa_frame_suite(void)
{
	Suite *s = suite_create("mpa_frame");

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
	return s;
}

TEST_MAIN(mpa_frame_suite)
