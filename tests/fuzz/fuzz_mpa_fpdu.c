/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA FPDU builders (mpa_fpdu_build, mpa_fpdu_build_iov) round trip.
 *
 * Input: byte 0 picks markers (bit 0), CRC (bit 1) and the decoder's
 * split (bits 2-3); bytes 1-4 are the starting stream offset (big
 * endian); then records of 3 octets (ULPDU length, big endian, and an
 * iovec count) describe the ULPDUs, whose payload is the rest of the
 * input repeated.  Each ULPDU is framed by both builders (the iovec one
 * with the payload cut at fuzz-chosen points), which must agree octet for
 * octet, send the caller's memory without copying it, and advance the
 * offset by mpa_fpdu_wire_len().  The stream is then decoded by mpa_rx
 * in pieces and by mpa_fpdu_parse: same ULPDUs, every CRC and marker
 * good, markers where RFC 5044 §4.3 puts them.
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

#define STREAM_MAX (1u << 17)
#define MAX_FPDUS 64
#define MAX_IOV 16

static uint32_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static uint8_t stream[STREAM_MAX];
static uint8_t ulpdus[STREAM_MAX]; /* the ULPDUs, concatenated */
static uint8_t got[STREAM_MAX];	   /* what the decoder delivered */
static uint8_t tmp[70000];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mpa_tx_scratch scratch;
	static struct iovec out[MAX_IOV + 2 * MPA_FPDU_MAX_MARKERS + 3];
	struct mpa_dir d1, d2;
	struct iovec in[MAX_IOV];
	const uint8_t *pool;
	size_t pool_len, nrec, r, slen = 0, ulen = 0, glen = 0;
	size_t at[MAX_FPDUS], wl[MAX_FPDUS];
	uint16_t lens[MAX_FPDUS];
	size_t n_fpdus = 0, k;
	unsigned int mode;
	uint32_t off0;

	if (size < 8)
		return 0;
	d1.markers = data[0] & 1;
	d1.crc = data[0] & 2;
	mode = (data[0] >> 2) & 3;
	off0 = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 |
	       (uint32_t)data[3] << 8 | data[4];
	d1.off = off0;
	d2 = d1;
	rng = off0 | 1;
	nrec = data[5] % (MAX_FPDUS + 1);
	if (nrec * 3 > size - 6)
		nrec = (size - 6) / 3;
	pool = data + 6 + nrec * 3;
	pool_len = size - 6 - nrec * 3;

	for (r = 0; r < nrec; r++) {
		const uint8_t *rec = data + 6 + r * 3;
		uint16_t len = (uint16_t)(rec[0] << 8 | rec[1]);
		size_t n_in = 1 + rec[2] % MAX_IOV, n_out = 0, wire = 0, w;
		size_t i, left, pos;
		enum wire_err e1, e2;
		uint8_t *u = ulpdus + ulen;

		if (!pool_len)
			len = 0;
		w = mpa_fpdu_wire_len(&d1, len);
		if (slen + (w ? w : 8) > STREAM_MAX || ulen + len > STREAM_MAX)
			break;
		/* The pool, repeated (by doubling: few memcpy calls). */
		if (len) {
			i = len < pool_len ? len : pool_len;
			memcpy(u, pool, i);
			while (i < len) {
				pos = len - i < i ? len - i : i;
				memcpy(u + i, u, pos);
				i += pos;
			}
		}
		/* Cut the payload at random points, some pieces empty. */
		left = len;
		for (i = 0; i < n_in; i++) {
			size_t piece = i == n_in - 1 ? left :
						       rnd() % (left + 1);

			in[i].iov_base = u + (len - left);
			in[i].iov_len = piece;
			left -= piece;
		}
		e1 = mpa_fpdu_build(&d1, u, len, stream + slen,
				    STREAM_MAX - slen, &wire);
		e2 = mpa_fpdu_build_iov(&d2, in, n_in, &scratch, out,
					n_in + 2 * MPA_FPDU_MAX_MARKERS + 3,
					&n_out, &pos);
		if (d1.markers && off0 % 512 && off0 % 512 < 4) {
			/* A start inside a marker cannot be framed. */
			CHECK(e1 == WIRE_EINVAL && e2 == WIRE_EINVAL && !w);
			CHECK(d1.off == off0 && d2.off == off0);
			return 0;
		}
		CHECK(e1 == WIRE_OK && e2 == WIRE_OK);
		CHECK(wire == w && pos == w && d1.off == d2.off);
		CHECK(n_out <= mpa_fpdu_iov_max(n_in));
		/* Gather the iovec FPDU; payload pieces are the caller's. */
		pos = 0;
		for (i = 0; i < n_out; i++) {
			const uint8_t *p = out[i].iov_base;
			const uint8_t *sc = (const uint8_t *)&scratch;

			CHECK(out[i].iov_len > 0);
			CHECK((p >= u && p + out[i].iov_len <= u + len) ||
			      (p >= sc &&
			       p + out[i].iov_len <= sc + sizeof(scratch)));
			memcpy(tmp + pos, p, out[i].iov_len);
			pos += out[i].iov_len;
		}
		CHECK(pos == w);
		CHECK(memcmp(tmp, stream + slen, w) == 0);
		at[n_fpdus] = slen;
		wl[n_fpdus] = w;
		lens[n_fpdus++] = len;
		slen += w;
		ulen += len;
	}
	CHECK(d1.off == off0 + (uint32_t)slen);

	/* The contiguous parser, FPDU by FPDU. */
	for (k = 0; k < n_fpdus; k++) {
		struct mpa_dir d = d1;
		struct mpa_fpdu_info info;

		d.off = off0 + (uint32_t)at[k];
		CHECK(mpa_fpdu_parse(&d, stream + at[k], slen - at[k], &info,
				     got + glen,
				     sizeof(got) - glen) == WIRE_OK);
		CHECK(info.ulpdu_len == lens[k] && info.wire_len == wl[k]);
		CHECK(info.crc_ok && info.markers_ok);
		glen += lens[k];
	}
	CHECK(glen == ulen && memcmp(got, ulpdus, ulen) == 0);

	/* The streaming decoder, in pieces. */
	{
		struct mpa_rx rx;
		size_t pos = 0, fp = 0, fdata = 0;
		bool in_fpdu = false;
		uint32_t start, lead;

		mpa_rx_init(&rx, d1.markers, d1.crc, off0);
		glen = 0;
		while (pos < slen) {
			struct mpa_rx_ev ev;
			size_t n = slen - pos, used;

			/* Small pieces only while that stays cheap. */
			if (mode == 1)
				n = 1 + rnd() % (slen <= 16384 ? 16 : 256);
			else if (mode == 2)
				n = 1 + rnd() % 1500;
			else if (mode == 3)
				n = slen <= 8192 ? 1 : 1 + rnd() % 64;
			if (n > slen - pos)
				n = slen - pos;
			CHECK(mpa_rx_step(&rx, stream + pos, n, &used, &ev) ==
			      WIRE_OK);
			CHECK(used <= n);
			pos += used;
			switch (ev.type) {
			case MPA_RX_EV_START:
				CHECK(!in_fpdu && fp < n_fpdus);
				CHECK(ev.ulpdu_len == lens[fp]);
				in_fpdu = true;
				fdata = 0;
				break;
			case MPA_RX_EV_DATA:
				CHECK(in_fpdu);
				memcpy(got + glen, ev.data, ev.len);
				glen += ev.len;
				fdata += ev.len;
				break;
			case MPA_RX_EV_END:
				start = off0 + (uint32_t)at[fp];
				lead = d1.markers && start % 512 == 0;
				CHECK(in_fpdu && fdata == lens[fp]);
				CHECK(ev.wire_len == wl[fp]);
				CHECK(ev.crc_ok && ev.markers_ok);
				CHECK(ev.crc_checked == d1.crc);
				CHECK(ev.fpdu_off == start + 4 * lead);
				in_fpdu = false;
				fp++;
				break;
			case MPA_RX_EV_NONE:
				CHECK(used == n);
				break;
			default:
				abort();
			}
		}
		CHECK(!in_fpdu && fp == n_fpdus);
		CHECK(glen == ulen && memcmp(got, ulpdus, ulen) == 0);
		CHECK(rx.dir.off == d1.off);
	}
	return 0;
}
