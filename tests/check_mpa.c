/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA FPDU framing (RFC 5044 §4): the RFC 5044 Figure 4/5/6 vectors, FPDU
 * lengths and MULPDU, the builders, FPDU streams of real Linux siw
 * sessions, and the streaming decoder fed in every kind of split
 * (mpa_feed.c) against the contiguous parser and the builders.  The
 * startup frames are in check_mpa_frame.c.
 */
#include "config.h"

#include "mpa_feed.h"

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
