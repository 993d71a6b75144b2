/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA startup frame parser (RFC 5044 §7.1.1, RFC 6581 §9, seed-003 RtR).
 *
 * Input: the bytes of a frame.  A parsed frame must rebuild to the same
 * bytes (Res bits cleared, the "Rtr" spelling of the RtR key normalized
 * to "RtR") and parse again to the same fields; every proper prefix of it
 * must be ESHORT.  Then the input is read a second time as field values
 * for the builder: build(fields) must parse back to the same fields.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "mpa.h"

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

static bool enh_eq(const struct mpa_enh *a, const struct mpa_enh *b)
{
	return a->p2p == b->p2p && a->rtr == b->rtr && a->ird == b->ird &&
	       a->ord == b->ord;
}

static void same_frame(const struct mpa_frame *a, const struct mpa_frame *b)
{
	CHECK(a->type == b->type);
	CHECK(a->rev == b->rev);
	CHECK(a->pd_len == b->pd_len);
	CHECK(a->enhanced == b->enhanced);
	CHECK(a->ulp_pd_len == b->ulp_pd_len);
	CHECK(memcmp(a->pd, b->pd, a->pd_len) == 0);
	CHECK(memcmp(a->ulp_pd, b->ulp_pd, a->ulp_pd_len) == 0);
	if (a->enhanced)
		CHECK(enh_eq(&a->enh, &b->enh));
}

static void parse_side(const uint8_t *data, size_t size)
{
	static uint8_t out[MPA_FRAME_MAX];
	struct mpa_frame f, g;
	enum wire_err err;
	size_t used = 0, n = 0, k, dummy;

	err = mpa_frame_parse(data, size, &f, &used);
	if (err != WIRE_OK)
		return;
	CHECK(used == MPA_FRAME_HDR_LEN + (size_t)f.pd_len && used <= size);
	CHECK(f.pd_len <= MPA_PD_MAX);
	CHECK(f.type >= MPA_FRAME_REQ && f.type <= MPA_FRAME_RTR);
	CHECK(f.enhanced == ((f.flags & MPA_FLAG_S) && f.rev >= MPA_REV_2));
	CHECK(f.pd == data + MPA_FRAME_HDR_LEN);
	if (f.enhanced) {
		CHECK(f.ulp_pd == f.pd + MPA_ENH_LEN);
		CHECK(f.ulp_pd_len + MPA_ENH_LEN == f.pd_len);
		CHECK(mpa_enh_word(&f.enh) ==
		      ((uint32_t)f.pd[0] << 24 | (uint32_t)f.pd[1] << 16 |
		       (uint32_t)f.pd[2] << 8 | f.pd[3]));
	} else {
		CHECK(f.ulp_pd == f.pd && f.ulp_pd_len == f.pd_len);
	}
	CHECK(f.flags == data[16] && f.rev == data[17]);

	CHECK(mpa_frame_build(&f, out, sizeof(out), &n) == WIRE_OK);
	CHECK(n == used);
	if (f.type == MPA_FRAME_RTR)
		CHECK(memcmp(out, mpa_key_rtr, MPA_KEY_LEN) == 0);
	else
		CHECK(memcmp(out, data, MPA_KEY_LEN) == 0);
	CHECK(out[16] == (data[16] & ~MPA_FLAG_RES));
	CHECK(memcmp(out + 17, data + 17, n - 17) == 0);
	CHECK(mpa_frame_parse(out, n, &g, &used) == WIRE_OK && used == n);
	same_frame(&f, &g);
	CHECK(g.flags == (f.flags & ~MPA_FLAG_RES));
	/* A frame that cannot fit in the buffer is refused, not cut. */
	CHECK(mpa_frame_build(&f, out, n - 1, &dummy) == WIRE_ENOSPC);

	for (k = 0; k < n; k++)
		CHECK(mpa_frame_parse(data, k, &g, &dummy) == WIRE_ESHORT);
}

static void build_side(const uint8_t *data, size_t size)
{
	static uint8_t out[MPA_FRAME_MAX + 8];
	struct mpa_frame f, g;
	enum wire_err err;
	size_t n = 0, used = 0;

	if (size < 10)
		return;
	memset(&f, 0, sizeof(f));
	f.type = (enum mpa_frame_type)(data[0] % 4); /* 0 is invalid */
	f.flags = data[1];
	f.rev = data[2];
	f.enhanced = data[3] & 1;
	f.enh.p2p = data[3] & 2;
	f.enh.rtr = (uint8_t)(data[3] >> 2 & 0x0f); /* 0x8: invalid */
	f.enh.ird = (uint16_t)(data[4] << 8 | data[5]);
	f.enh.ord = (uint16_t)(data[6] << 8 | data[7]);
	n = (size_t)(data[8] << 8 | data[9]) % 600;
	if (n > size - 10)
		n = size - 10;
	f.pd = f.ulp_pd = data + 10;
	f.pd_len = f.ulp_pd_len = (uint16_t)n;

	err = mpa_frame_build(&f, out, sizeof(out), &n);
	if (f.type == 0 ||
	    (f.enhanced &&
	     (f.rev < 2 || f.enh.ird > 0x3fff || f.enh.ord > 0x3fff ||
	      (f.enh.rtr & ~MPA_RTR_ALL))) ||
	    (!f.enhanced && (f.flags & MPA_FLAG_S) && f.rev >= 2 &&
	     f.pd_len < 4)) {
		CHECK(err == WIRE_EINVAL);
		return;
	}
	if (f.pd_len + (f.enhanced ? 4 : 0) > MPA_PD_MAX) {
		CHECK(err == WIRE_ELEN);
		return;
	}
	CHECK(err == WIRE_OK);
	CHECK(mpa_frame_parse(out, n, &g, &used) == WIRE_OK && used == n);
	CHECK(g.type == f.type && g.rev == f.rev);
	if (f.enhanced) {
		CHECK(g.enhanced && enh_eq(&g.enh, &f.enh));
		CHECK(g.flags == ((f.flags & ~MPA_FLAG_RES) | MPA_FLAG_S));
		CHECK(g.ulp_pd_len == f.ulp_pd_len);
		CHECK(memcmp(g.ulp_pd, f.ulp_pd, f.ulp_pd_len) == 0);
	} else {
		CHECK(g.flags == (f.flags & ~MPA_FLAG_RES));
		CHECK(g.pd_len == f.pd_len);
		CHECK(memcmp(g.pd, f.pd, f.pd_len) == 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mpa_enh e;

	parse_side(data, size);
	build_side(data, size);
	if (mpa_enh_parse(data, size, &e) == WIRE_OK) {
		uint8_t b[4];

		CHECK(mpa_enh_build(&e, b, sizeof(b)) == WIRE_OK);
		CHECK(memcmp(b, data, 4) == 0);
	}
	return 0;
}
