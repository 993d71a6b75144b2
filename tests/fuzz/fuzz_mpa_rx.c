/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA streaming FPDU decoder (mpa_rx_*) against the contiguous parser
 * (mpa_fpdu_parse), on arbitrary bytes.
 *
 * Input: byte 0 picks markers (bit 0), CRC (bit 1) and how the stream is
 * split (bits 2-4); bytes 1-4 are the starting stream offset (big endian);
 * bytes 5-8 seed the split points; the rest is the stream.  The stream is
 * decoded once in one piece and once split (each piece copied to a heap
 * buffer of its exact size, so ASan sees any read past it); both runs
 * must agree event for event.  Every FPDU must deliver exactly ulpdu_len
 * DATA octets, have the wire length mpa_fpdu_wire_len() predicts, own the
 * markers that fall in it, and match what mpa_fpdu_parse() says about the
 * same bytes; a trailing partial FPDU must be ESHORT for the parser.
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

struct fpdu_sum {
	size_t start;	/* index in the stream */
	size_t data_at; /* index in the DATA concatenation */
	struct mpa_rx_ev end;
};

struct run {
	struct fpdu_sum *f;
	size_t n, cap;
	uint8_t *data;
	size_t data_len;
	size_t pos; /* stream octets consumed */
	bool in_fpdu;
	uint16_t cur_len;
	size_t cur_data;
	bool error;
	enum wire_err err;
};

static uint32_t rng;

static uint32_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return rng;
}

static void on_event(struct run *r, const struct mpa_rx_ev *ev,
		     const uint8_t *in, size_t used)
{
	switch (ev->type) {
	case MPA_RX_EV_NONE:
		break;
	case MPA_RX_EV_START:
		CHECK(!r->in_fpdu);
		r->in_fpdu = true;
		r->cur_len = ev->ulpdu_len;
		r->cur_data = 0;
		CHECK(r->n < r->cap);
		r->f[r->n].start = r->n ? r->f[r->n - 1].end.wire_len +
						   r->f[r->n - 1].start :
					  0;
		r->f[r->n].data_at = r->data_len;
		break;
	case MPA_RX_EV_DATA:
		CHECK(r->in_fpdu);
		CHECK(ev->len > 0 && ev->data >= in &&
		      ev->data + ev->len <= in + used);
		CHECK(r->cur_data + ev->len <= r->cur_len);
		memcpy(r->data + r->data_len, ev->data, ev->len);
		r->data_len += ev->len;
		r->cur_data += ev->len;
		break;
	case MPA_RX_EV_END:
		CHECK(r->in_fpdu);
		CHECK(r->cur_data == r->cur_len && ev->ulpdu_len == r->cur_len);
		r->in_fpdu = false;
		r->f[r->n++].end = *ev;
		break;
	case MPA_RX_EV_ERROR:
		r->error = true;
		r->err = ev->err;
		break;
	}
}

/* Step over one piece until it is consumed or the decoder dies. */
static void feed(struct mpa_rx *rx, struct run *r, const uint8_t *src, size_t n)
{
	uint8_t *copy = malloc(n ? n : 1);
	size_t off = 0;

	CHECK(copy);
	memcpy(copy, src, n);
	while (off < n && !r->error) {
		struct mpa_rx_ev ev;
		size_t used = 99999;
		enum wire_err err;

		err = mpa_rx_step(rx, copy + off, n - off, &used, &ev);
		CHECK(used <= n - off);
		CHECK((err == WIRE_OK) == (ev.type != MPA_RX_EV_ERROR));
		if (ev.type == MPA_RX_EV_NONE)
			CHECK(used == n - off);
		on_event(r, &ev, copy + off, used);
		off += used;
		r->pos += used;
	}
	free(copy);
}

static void decode(struct mpa_rx *rx, struct run *r, const uint8_t *s,
		   size_t len, unsigned int mode)
{
	size_t pos = 0;

	while (pos < len && !r->error) {
		size_t n = len - pos, room, need;

		switch (mode) {
		case 0:
			break;
		case 1:
			n = 1;
			break;
		case 2:
			n = 1 + rnd() % 8;
			break;
		case 3:
			/* The datapath: framing by ctrl_need, data by room. */
			room = mpa_rx_data_room(rx);
			need = mpa_rx_ctrl_need(rx);
			CHECK(!room || !need);
			if (room)
				n = 1 + rnd() % room;
			else if (need)
				n = need;
			/* else dead: the next step reports the ERROR */
			break;
		default:
			n = 1 + rnd() % 700;
			break;
		}
		if (n > len - pos)
			n = len - pos;
		feed(rx, r, s + pos, n);
		pos += n;
	}
}

static void run_init(struct run *r, size_t len)
{
	memset(r, 0, sizeof(*r));
	r->cap = len / 6 + 1;
	r->f = calloc(r->cap, sizeof(*r->f));
	r->data = malloc(len + 1);
	CHECK(r->f && r->data);
}

static void run_free(struct run *r)
{
	free(r->f);
	free(r->data);
}

static bool ev_eq(const struct mpa_rx_ev *a, const struct mpa_rx_ev *b)
{
	return a->ulpdu_len == b->ulpdu_len && a->fpdu_off == b->fpdu_off &&
	       a->wire_len == b->wire_len && a->crc_wire == b->crc_wire &&
	       a->crc_calc == b->crc_calc && a->crc_checked == b->crc_checked &&
	       a->crc_ok == b->crc_ok && a->n_markers == b->n_markers &&
	       a->markers_ok == b->markers_ok &&
	       a->bad_marker_off == b->bad_marker_off;
}

static unsigned int markers_in(uint32_t start, size_t len)
{
	/* Multiples of 512 in [start, start + len), modulo 2^32. */
	uint32_t first = (512 - start % 512) % 512;

	return first < len ? (unsigned int)((len - first - 1) / 512 + 1) : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t ulpdu[65536];
	struct mpa_rx a, b;
	struct run ra, rb;
	struct mpa_dir d;
	const uint8_t *s;
	size_t len, k;
	unsigned int mode;
	uint32_t off;

	if (size < 9)
		return 0;
	d.markers = data[0] & 1;
	d.crc = data[0] & 2;
	mode = (data[0] >> 2) & 7;
	off = (uint32_t)data[1] << 24 | (uint32_t)data[2] << 16 |
	      (uint32_t)data[3] << 8 | data[4];
	rng = ((uint32_t)data[5] << 24 | (uint32_t)data[6] << 16 |
	       (uint32_t)data[7] << 8 | data[8]) |
	      1;
	s = data + 9;
	len = size - 9;

	mpa_rx_init(&a, d.markers, d.crc, off);
	mpa_rx_init(&b, d.markers, d.crc, off);
	run_init(&ra, len);
	run_init(&rb, len);
	decode(&a, &ra, s, len, 0);
	decode(&b, &rb, s, len, mode);

	/* Split or not, the same events. */
	CHECK(ra.error == rb.error && ra.err == rb.err);
	CHECK(ra.pos == rb.pos && ra.n == rb.n);
	CHECK(ra.data_len == rb.data_len);
	CHECK(memcmp(ra.data, rb.data, ra.data_len) == 0);
	for (k = 0; k < ra.n; k++) {
		CHECK(ra.f[k].start == rb.f[k].start);
		CHECK(ev_eq(&ra.f[k].end, &rb.f[k].end));
	}
	CHECK(a.dir.off == b.dir.off);
	CHECK(mpa_rx_data_room(&a) == mpa_rx_data_room(&b));
	CHECK(mpa_rx_ctrl_need(&a) == mpa_rx_ctrl_need(&b));

	d.off = off;
	if (ra.error) {
		struct mpa_fpdu_info info;

		/* Only a start inside a marker kills a decoder here. */
		CHECK(ra.err == WIRE_EINVAL && ra.n == 0 && ra.pos == 0);
		CHECK(d.markers && off % 512 && off % 512 < 4);
		CHECK(mpa_fpdu_parse(&d, s, len, &info, NULL, 0) ==
		      WIRE_EINVAL);
		goto out;
	}
	CHECK(ra.pos == len);
	CHECK(a.dir.off == off + (uint32_t)len);

	/* Each FPDU as the contiguous parser sees it. */
	for (k = 0; k < ra.n; k++) {
		const struct mpa_rx_ev *e = &ra.f[k].end;
		struct mpa_fpdu_info info;
		uint32_t start_off = off + (uint32_t)ra.f[k].start;
		enum wire_err err;

		d.off = start_off;
		CHECK(e->wire_len == mpa_fpdu_wire_len(&d, e->ulpdu_len));
		CHECK(e->fpdu_off - start_off ==
		      (d.markers && start_off % 512 == 0 ? 4u : 0u));
		CHECK(e->n_markers ==
		      (d.markers ? markers_in(start_off, e->wire_len) : 0));
		CHECK(e->crc_checked == d.crc);
		if (!d.crc)
			CHECK(e->crc_ok && e->crc_calc == 0);
		err = mpa_fpdu_parse(&d, s + ra.f[k].start, len - ra.f[k].start,
				     &info, ulpdu, sizeof(ulpdu));
		CHECK(err == WIRE_OK);
		CHECK(info.ulpdu_len == e->ulpdu_len);
		CHECK(info.wire_len == e->wire_len);
		CHECK(info.n_markers == e->n_markers);
		CHECK(info.markers_ok == e->markers_ok);
		CHECK(info.crc_ok == e->crc_ok);
		CHECK(info.crc_wire == e->crc_wire);
		CHECK(info.crc_calc == e->crc_calc);
		CHECK(info.ulpdu_start < info.wire_len);
		CHECK(memcmp(ulpdu, ra.data + ra.f[k].data_at, e->ulpdu_len) ==
		      0);
		if (e->ulpdu_len)
			CHECK(mpa_fpdu_parse(&d, s + ra.f[k].start,
					     len - ra.f[k].start, &info, ulpdu,
					     e->ulpdu_len - 1u) == WIRE_ENOSPC);
	}
	/* Whatever follows the last complete FPDU is a prefix. */
	k = ra.n ? ra.f[ra.n - 1].start + ra.f[ra.n - 1].end.wire_len : 0;
	if (k < len) {
		struct mpa_fpdu_info info;

		d.off = off + (uint32_t)k;
		CHECK(mpa_fpdu_parse(&d, s + k, len - k, &info, NULL, 0) ==
		      WIRE_ESHORT);
	}
out:
	run_free(&ra);
	run_free(&rb);
	return 0;
}
