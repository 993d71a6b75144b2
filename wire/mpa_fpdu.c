/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA full operation phase (RFC 5044 §4): FPDU = ULPDU_Length, ULPDU, pad,
 * CRC32c, with a Marker at every 512th octet of the direction's stream.
 *
 * One rule drives all the marker code below.  RFC 5044 §4.3 puts a
 * Marker at every stream offset that is a multiple of 512, counting from
 * the first octet of full operation, so an octet at stream offset s is a
 * Marker octet exactly when markers are on and s % 512 < 4.  A Marker
 * between two FPDUs belongs to (and is in the CRC of) the following FPDU
 * and has FPDUPTR 0; any other Marker lies inside an FPDU and points back
 * to its ULPDU_Length (§4.3).  The CRC covers the FPDU from its first
 * octet (the leading Marker, if any) to the last octet before the CRC
 * field, so a Marker that immediately follows the pad is covered (§4.4
 * rules 1 and 2).  FPDU lengths are multiples of 4, so in a real stream
 * Markers never split a field; the code does not rely on it and handles
 * any offset except one inside a Marker.
 */
#include "config.h"

#include <string.h>

#include "crc32c.h"
#include "mpa.h"
#include "wbuf.h"

/* Octets of a Marker interval that are not Marker (RFC 5044 §4.3). */
#define MPA_MARKER_SPACING (MPA_MARKER_INTERVAL - MPA_MARKER_LEN)

/* The receivers ignore FPDUPTR's two low bits (RFC 5044 §4.2). */
#define MPA_FPDUPTR_MASK 0xFFFCu

static inline uint32_t mk_phase(uint32_t off)
{
	/* 2^32 is a multiple of 512, so this survives the offset wrapping. */
	return off % MPA_MARKER_INTERVAL;
}

static inline bool mk_inside(const struct mpa_dir *d, uint32_t off)
{
	uint32_t ph = mk_phase(off);

	return d->markers && ph != 0 && ph < MPA_MARKER_LEN;
}

/* True when FPDUPTR ptr agrees with a distance dist (RFC 5044 §4.2). */
static inline bool mk_ptr_ok(uint16_t ptr, uint32_t dist)
{
	return ((ptr ^ dist) & MPA_FPDUPTR_MASK) == 0;
}

static inline size_t min_sz(size_t a, size_t b)
{
	return a < b ? a : b;
}

/* Non-marker octets of an FPDU: ULPDU_Length, ULPDU, pad, CRC (§4.1). */
static inline size_t fpdu_body_len(uint16_t ulpdu_len)
{
	return MPA_HDR_LEN + (size_t)ulpdu_len + mpa_pad_len(ulpdu_len) +
	       MPA_CRC_LEN;
}

/*
 * Wire octets needed to pass n non-marker octets starting at stream offset
 * off, counting the Markers met before each of them (a Marker right after
 * the last one is not counted).  off must not be inside a Marker.
 */
static size_t wire_for_body(bool markers, uint32_t off, size_t n)
{
	uint32_t ph;
	size_t lead = 0, r;

	if (!markers || n == 0)
		return n;
	ph = mk_phase(off);
	if (ph == 0) {
		lead = MPA_MARKER_LEN;
		ph = MPA_MARKER_LEN;
	}
	r = MPA_MARKER_INTERVAL - ph; /* octets before the next Marker */
	if (n <= r)
		return lead + n;
	return lead + n +
	       MPA_MARKER_LEN * (1 + (n - r - 1) / MPA_MARKER_SPACING);
}

/* Wire length of an FPDU starting at d->off (0 if d->off is in a Marker). */
size_t mpa_fpdu_wire_len(const struct mpa_dir *d, uint16_t ulpdu_len)
{
	if (mk_inside(d, d->off))
		return 0;
	return wire_for_body(d->markers, d->off, fpdu_body_len(ulpdu_len));
}

/* RFC 5044 §4.5 MULPDU for an EMSS, never below 128 nor above 65535. */
uint16_t mpa_mulpdu(uint32_t emss, bool markers)
{
	int64_t overhead = 6 + emss % 4;
	int64_t m;

	/* MULPDU = EMSS - (6 + 4 * Ceiling(EMSS / 512) + EMSS mod 4) */
	if (markers)
		overhead += 4 * (((int64_t)emss + 511) / 512);
	m = (int64_t)emss - overhead;
	/* §4.5: "MUST NOT shrink the MULPDU below 128 octets". */
	if (m < 128)
		m = 128;
	if (m > MPA_ULPDU_MAX)
		m = MPA_ULPDU_MAX;
	return (uint16_t)m;
}

/* ---- transmit ---- */

struct tx_walk {
	uint32_t off;	   /* stream offset of the next octet */
	uint32_t fpdu_off; /* stream offset of ULPDU_Length */
	bool markers;
	bool crc;
	uint32_t crc_state;
	struct mpa_tx_scratch *s;
	unsigned int n_mk;
	struct iovec *out;
	size_t cap;
	size_t n;
	size_t wire;
	enum wire_err err;
};

/* Append len octets at p to out[], merging with the previous piece. */
static void tx_put(struct tx_walk *t, const uint8_t *p, size_t len,
		   bool covered)
{
	struct iovec *last;

	if (!len || t->err != WIRE_OK)
		return;
	if (t->crc && covered)
		t->crc_state = crc32c_update(t->crc_state, p, len);
	t->off += (uint32_t)len;
	t->wire += len;
	if (t->n) {
		last = &t->out[t->n - 1];
		if ((const uint8_t *)last->iov_base + last->iov_len == p) {
			last->iov_len += len;
			return;
		}
	}
	if (t->n == t->cap) {
		t->err = WIRE_ENOSPC;
		return;
	}
	t->out[t->n].iov_base = (void *)(uintptr_t)p;
	t->out[t->n].iov_len = len;
	t->n++;
}

/* Emit the Marker due at t->off, pointing back at ULPDU_Length (§4.3). */
static void tx_marker(struct tx_walk *t, bool covered)
{
	uint8_t *m;

	if (t->n_mk == MPA_FPDU_MAX_MARKERS) {
		t->err = WIRE_ELEN; /* cannot happen for <= 64 KiB */
		return;
	}
	m = t->s->markers[t->n_mk++];
	m[0] = 0; /* RESERVED */
	m[1] = 0;
	wire_put_be16(m + 2,
		      (uint16_t)((t->off - t->fpdu_off) & MPA_FPDUPTR_MASK));
	tx_put(t, m, MPA_MARKER_LEN, covered);
}

/* Emit FPDU octets, inserting a Marker wherever one is due. */
static void tx_body(struct tx_walk *t, const uint8_t *p, size_t len,
		    bool covered)
{
	while (len && t->err == WIRE_OK) {
		size_t chunk = len;

		if (t->markers) {
			uint32_t ph = mk_phase(t->off);

			if (ph == 0) {
				tx_marker(t, covered);
				continue;
			}
			chunk = min_sz(chunk, MPA_MARKER_INTERVAL - ph);
		}
		tx_put(t, p, chunk, covered);
		p += chunk;
		len -= chunk;
	}
}

/* Frame an iovec ULPDU as one FPDU without copying it (RFC 5044 §4). */
enum wire_err mpa_fpdu_build_iov(struct mpa_dir *d, const struct iovec *in,
				 size_t n_in, struct mpa_tx_scratch *scratch,
				 struct iovec *out, size_t out_cap,
				 size_t *n_out, size_t *wire_len)
{
	struct tx_walk t;
	size_t total = 0, i;
	unsigned int pad;
	uint8_t *trailer = scratch->trailer;

	for (i = 0; i < n_in; i++) {
		if (in[i].iov_len && !in[i].iov_base)
			return WIRE_EINVAL;
		if (in[i].iov_len > MPA_ULPDU_MAX)
			return WIRE_ELEN;
		total += in[i].iov_len;
		if (total > MPA_ULPDU_MAX)
			return WIRE_ELEN; /* §4.1: 16-bit ULPDU_Length */
	}
	if (mk_inside(d, d->off))
		return WIRE_EINVAL;

	memset(&t, 0, sizeof(t));
	t.off = d->off;
	t.markers = d->markers;
	t.crc = d->crc;
	t.crc_state = crc32c_init();
	t.s = scratch;
	t.out = out;
	t.cap = out_cap;

	/*
	 * §4.3 and §7.1.2 rule 7: a Marker due before ULPDU_Length belongs to
	 * this FPDU, has FPDUPTR 0 and is in its CRC.
	 */
	if (t.markers && mk_phase(t.off) == 0) {
		memset(scratch->hdr, 0, MPA_MARKER_LEN);
		tx_put(&t, scratch->hdr, MPA_MARKER_LEN, true);
	}
	t.fpdu_off = t.off;
	wire_put_be16(scratch->hdr + MPA_MARKER_LEN, (uint16_t)total);
	tx_body(&t, scratch->hdr + MPA_MARKER_LEN, MPA_HDR_LEN, true);
	for (i = 0; i < n_in; i++)
		tx_body(&t, in[i].iov_base, in[i].iov_len, true);
	/* §4.1: pad with zeros to a multiple of 4; pad and CRC share the
	 * trailer so they usually go out as one piece. */
	pad = mpa_pad_len((uint16_t)total);
	memset(trailer, 0, pad);
	tx_body(&t, trailer, pad, true);
	/* §4.4 rule 1: a Marker immediately following the pad is covered. */
	if (t.markers && mk_phase(t.off) == 0)
		tx_marker(&t, true);
	/* §4.1: without CRC the field is still sent; we send zeros. */
	crc32c_put_wire(t.crc ? crc32c_final(t.crc_state) : 0, trailer + pad);
	tx_body(&t, trailer + pad, MPA_CRC_LEN, false);
	if (t.err != WIRE_OK)
		return t.err;

	d->off = t.off;
	*n_out = t.n;
	*wire_len = t.wire;
	return WIRE_OK;
}

/* Out entries mpa_fpdu_build needs for its single input iovec. */
#define MPA_BUILD_IOV_MAX (1 + 2 * MPA_FPDU_MAX_MARKERS + 3)

/* Frame a contiguous ULPDU into buf (the iovec builder plus a gather). */
enum wire_err mpa_fpdu_build(struct mpa_dir *d, const uint8_t *ulpdu,
			     uint16_t ulpdu_len, uint8_t *buf, size_t cap,
			     size_t *written)
{
	struct mpa_tx_scratch scratch;
	struct iovec in, out[MPA_BUILD_IOV_MAX];
	size_t need, n_out, wire, i, pos = 0;
	enum wire_err err;

	if (ulpdu_len && !ulpdu)
		return WIRE_EINVAL;
	need = mpa_fpdu_wire_len(d, ulpdu_len);
	if (need == 0)
		return WIRE_EINVAL;
	if (cap < need)
		return WIRE_ENOSPC;
	in.iov_base = (void *)(uintptr_t)ulpdu;
	in.iov_len = ulpdu_len;
	err = mpa_fpdu_build_iov(d, &in, 1, &scratch, out, MPA_BUILD_IOV_MAX,
				 &n_out, &wire);
	if (err != WIRE_OK)
		return err;
	for (i = 0; i < n_out; i++) {
		memcpy(buf + pos, out[i].iov_base, out[i].iov_len);
		pos += out[i].iov_len;
	}
	*written = pos;
	return WIRE_OK;
}

/* ---- receive: streaming decoder ---- */

enum {
	RX_S_HDR = 0, /* ULPDU_Length (tmp_len octets of it read) */
	RX_S_DATA,    /* ULPDU, ulpdu_left to go */
	RX_S_PAD,     /* pad, pad_left to go */
	RX_S_CRC,     /* CRC field (tmp_len octets of it read) */
};

static void rx_fpdu_reset(struct mpa_rx *rx)
{
	rx->state = RX_S_HDR;
	rx->tmp_len = 0;
	rx->ulpdu_len = 0;
	rx->ulpdu_left = 0;
	rx->pad_left = 0;
	rx->wire_len = 0;
	rx->crc = crc32c_init();
	rx->n_markers = 0;
	rx->markers_ok = true;
	rx->bad_marker_off = 0;
}

/* Set up a decoder for a direction whose next octet is at stream off. */
void mpa_rx_init(struct mpa_rx *rx, bool markers, bool crc, uint32_t off)
{
	memset(rx, 0, sizeof(*rx));
	rx->dir.markers = markers;
	rx->dir.crc = crc;
	rx->dir.off = off;
	rx_fpdu_reset(rx);
	/* Starting inside a Marker cannot be framed: fail on first use. */
	if (mk_inside(&rx->dir, off)) {
		rx->dead = true;
		rx->err = WIRE_EINVAL;
	}
}

static enum wire_err rx_fail(struct mpa_rx *rx, struct mpa_rx_ev *ev,
			     enum wire_err err)
{
	rx->dead = true;
	rx->err = err;
	ev->type = MPA_RX_EV_ERROR;
	ev->err = err;
	return err;
}

/* Account for k octets taken from the stream. */
static void rx_take(struct mpa_rx *rx, const uint8_t *p, size_t k, bool covered)
{
	if (rx->dir.crc && covered)
		rx->crc = crc32c_update(rx->crc, p, k);
	rx->dir.off += (uint32_t)k;
	rx->wire_len += (uint32_t)k;
}

/* A Marker is complete: check its FPDUPTR (RFC 5044 §4.3, §8 code 3). */
static void rx_marker_done(struct mpa_rx *rx)
{
	uint16_t ptr = wire_be16(rx->mk + 2);
	uint32_t dist = rx->mk_lead ? 0 : rx->mk_off - rx->fpdu_off;

	rx->n_markers++;
	if (!mk_ptr_ok(ptr, dist) && rx->markers_ok) {
		rx->markers_ok = false;
		rx->bad_marker_off = rx->mk_off;
	}
}

static void rx_end(struct mpa_rx *rx, struct mpa_rx_ev *ev)
{
	ev->type = MPA_RX_EV_END;
	ev->ulpdu_len = rx->ulpdu_len;
	ev->fpdu_off = rx->fpdu_off;
	ev->wire_len = rx->wire_len;
	ev->crc_wire = crc32c_get_wire(rx->tmp);
	ev->crc_checked = rx->dir.crc;
	if (rx->dir.crc) {
		ev->crc_calc = crc32c_final(rx->crc);
		ev->crc_ok = ev->crc_calc == ev->crc_wire;
	} else {
		/* §4.1: without CRC the field "MUST NOT be checked". */
		ev->crc_calc = 0;
		ev->crc_ok = true;
	}
	ev->n_markers = rx->n_markers;
	ev->markers_ok = rx->markers_ok;
	ev->bad_marker_off = rx->bad_marker_off;
	rx_fpdu_reset(rx);
}

/* Consume stream octets and report the next event. */
enum wire_err mpa_rx_step(struct mpa_rx *rx, const uint8_t *buf, size_t len,
			  size_t *used, struct mpa_rx_ev *ev)
{
	size_t i = 0;

	memset(ev, 0, sizeof(*ev));
	*used = 0;
	if (rx->dead)
		return rx_fail(rx, ev, rx->err);
	if (len && !buf)
		return rx_fail(rx, ev, WIRE_EINVAL);

	while (i < len) {
		uint32_t ph = mk_phase(rx->dir.off);
		size_t avail = len - i, room = avail, k;

		if (rx->dir.markers && ph < MPA_MARKER_LEN) {
			if (ph == 0) {
				rx->mk_off = rx->dir.off;
				/* Between FPDUs: owned by the next one. */
				rx->mk_lead = rx->state == RX_S_HDR &&
					      rx->tmp_len == 0;
				/* §4.4: covered unless inside the CRC. */
				rx->mk_crc = !(rx->state == RX_S_CRC &&
					       rx->tmp_len > 0);
			}
			k = min_sz(MPA_MARKER_LEN - ph, avail);
			memcpy(rx->mk + ph, buf + i, k);
			rx_take(rx, buf + i, k, rx->mk_crc);
			i += k;
			if (mk_phase(rx->dir.off) == MPA_MARKER_LEN)
				rx_marker_done(rx);
			continue;
		}
		if (rx->dir.markers)
			room = min_sz(avail, MPA_MARKER_INTERVAL - ph);

		switch (rx->state) {
		case RX_S_HDR:
			if (rx->tmp_len == 0)
				rx->fpdu_off = rx->dir.off;
			rx->tmp[rx->tmp_len++] = buf[i];
			rx_take(rx, buf + i, 1, true);
			i++;
			if (rx->tmp_len < MPA_HDR_LEN)
				break;
			rx->ulpdu_len = wire_be16(rx->tmp);
			rx->ulpdu_left = rx->ulpdu_len;
			rx->pad_left = mpa_pad_len(rx->ulpdu_len);
			rx->tmp_len = 0;
			rx->state = RX_S_DATA;
			ev->type = MPA_RX_EV_START;
			ev->ulpdu_len = rx->ulpdu_len;
			ev->fpdu_off = rx->fpdu_off;
			*used = i;
			return WIRE_OK;
		case RX_S_DATA:
			if (rx->ulpdu_left == 0) {
				rx->state = RX_S_PAD;
				break;
			}
			k = min_sz(rx->ulpdu_left, room);
			ev->type = MPA_RX_EV_DATA;
			ev->data = buf + i;
			ev->len = k;
			rx_take(rx, buf + i, k, true);
			rx->ulpdu_left -= (uint32_t)k;
			i += k;
			if (rx->ulpdu_left == 0)
				rx->state = RX_S_PAD;
			*used = i;
			return WIRE_OK;
		case RX_S_PAD:
			if (rx->pad_left == 0) {
				rx->state = RX_S_CRC;
				break;
			}
			k = min_sz(rx->pad_left, room);
			rx_take(rx, buf + i, k, true);
			rx->pad_left -= (uint32_t)k;
			i += k;
			break;
		case RX_S_CRC:
		default:
			k = min_sz(MPA_CRC_LEN - rx->tmp_len, room);
			memcpy(rx->tmp + rx->tmp_len, buf + i, k);
			rx_take(rx, buf + i, k, false);
			rx->tmp_len += (unsigned int)k;
			i += k;
			if (rx->tmp_len < MPA_CRC_LEN)
				break;
			rx_end(rx, ev);
			*used = i;
			return WIRE_OK;
		}
	}
	ev->type = MPA_RX_EV_NONE;
	*used = i;
	return WIRE_OK;
}

/* ULPDU octets that may be read next straight into their destination. */
size_t mpa_rx_data_room(const struct mpa_rx *rx)
{
	uint32_t ph;

	if (rx->dead || rx->state != RX_S_DATA || rx->ulpdu_left == 0)
		return 0;
	if (!rx->dir.markers)
		return rx->ulpdu_left;
	ph = mk_phase(rx->dir.off);
	if (ph < MPA_MARKER_LEN)
		return 0; /* a Marker comes first */
	return min_sz(rx->ulpdu_left, MPA_MARKER_INTERVAL - ph);
}

/* The ULPDU wire ahead as data and Marker runs (RFC 5044 §4.3). */
size_t mpa_rx_data_runs(const struct mpa_rx *rx, size_t data_max,
			struct mpa_rx_run *runs, size_t cap)
{
	uint32_t off, ph;
	size_t left, n = 0;

	if (rx->dead || rx->state != RX_S_DATA || rx->ulpdu_left == 0)
		return 0;
	left = min_sz(rx->ulpdu_left, data_max);
	off = rx->dir.off;
	while (left && n < cap) {
		size_t k;

		ph = rx->dir.markers ? mk_phase(off) : MPA_MARKER_LEN;
		if (ph < MPA_MARKER_LEN) {
			/* A Marker (or the rest of one) comes first; it
			 * only counts if data follows it in this plan. */
			if (n + 1 >= cap)
				break;
			runs[n].len = MPA_MARKER_LEN - ph;
			runs[n].marker = true;
			off += runs[n].len;
			n++;
			ph = MPA_MARKER_LEN;
		}
		k = left;
		if (rx->dir.markers)
			k = min_sz(k, MPA_MARKER_INTERVAL - ph);
		runs[n].len = (uint32_t)k;
		runs[n].marker = false;
		off += (uint32_t)k;
		left -= k;
		n++;
	}
	return n;
}

/* Placed octets of a mpa_rx_data_runs() plan, without events. */
bool mpa_rx_take_run(struct mpa_rx *rx, const uint8_t *buf, size_t n,
		     bool marker)
{
	uint32_t ph;

	if (rx->dead || rx->state != RX_S_DATA || rx->ulpdu_left == 0 ||
	    !buf || !n)
		return false;
	ph = mk_phase(rx->dir.off);
	if (marker) {
		/* RFC 5044 §4.3: a whole Marker inside the ULPDU, owned by
		 * this FPDU and covered by its CRC (§4.4). */
		if (!rx->dir.markers || ph != 0 || n != MPA_MARKER_LEN)
			return false;
		rx->mk_off = rx->dir.off;
		rx->mk_lead = false;
		rx->mk_crc = true;
		memcpy(rx->mk, buf, MPA_MARKER_LEN);
		rx_take(rx, buf, MPA_MARKER_LEN, true);
		rx_marker_done(rx);
		return true;
	}
	if (n > rx->ulpdu_left ||
	    (rx->dir.markers &&
	     (ph < MPA_MARKER_LEN || n > MPA_MARKER_INTERVAL - ph)))
		return false;
	rx_take(rx, buf, n, true);
	rx->ulpdu_left -= (uint32_t)n;
	if (rx->ulpdu_left == 0)
		rx->state = RX_S_PAD;
	return true;
}

/* Octets of framing (Markers, header, pad, CRC) the decoder wants next. */
size_t mpa_rx_ctrl_need(const struct mpa_rx *rx)
{
	bool mk = rx->dir.markers;
	uint32_t off = rx->dir.off, ph = mk_phase(off);
	size_t lead = 0;

	if (rx->dead)
		return 0;
	/* Finish a Marker that is partly read. */
	if (mk && ph != 0 && ph < MPA_MARKER_LEN) {
		lead = MPA_MARKER_LEN - ph;
		off += (uint32_t)lead;
	}
	switch (rx->state) {
	case RX_S_HDR:
		return lead + wire_for_body(mk, off, MPA_HDR_LEN - rx->tmp_len);
	case RX_S_DATA:
		if (rx->ulpdu_left) {
			if (lead)
				return lead;
			return mk && ph == 0 ? MPA_MARKER_LEN : 0;
		}
		return lead +
		       wire_for_body(mk, off, rx->pad_left + MPA_CRC_LEN);
	case RX_S_PAD:
		return lead +
		       wire_for_body(mk, off, rx->pad_left + MPA_CRC_LEN);
	default:
		return lead + wire_for_body(mk, off, MPA_CRC_LEN - rx->tmp_len);
	}
}

/* ---- receive: one complete FPDU in a contiguous buffer ---- */

/*
 * Deliberately written apart from the streaming decoder (octet by octet
 * over the buffer, Markers found by their offset) so that the two can be
 * checked against each other.
 */
enum wire_err mpa_fpdu_parse(const struct mpa_dir *d, const uint8_t *buf,
			     size_t len, struct mpa_fpdu_info *info,
			     uint8_t *ulpdu, size_t ulpdu_cap)
{
	struct mpa_fpdu_info inf;
	uint32_t crc = crc32c_init(), fpdu_off = 0;
	size_t i = 0, body = 0, body_len = 0, crc_at = 0;
	uint8_t hdr[MPA_HDR_LEN] = { 0 }, crcf[MPA_CRC_LEN] = { 0 };
	bool ulpdu_seen = false;

	if (mk_inside(d, d->off))
		return WIRE_EINVAL;
	memset(&inf, 0, sizeof(inf));
	inf.markers_ok = true;

	while (!body_len || body < body_len) {
		uint32_t s = d->off + (uint32_t)i;
		size_t k;

		if (i >= len)
			return WIRE_ESHORT;
		if (d->markers && mk_phase(s) == 0) {
			/* A Marker before ULPDU_Length leads this FPDU. */
			uint32_t dist = body == 0 ? 0 : s - fpdu_off;

			if (len - i < MPA_MARKER_LEN)
				return WIRE_ESHORT;
			if (!mk_ptr_ok(wire_be16(buf + i + 2), dist))
				inf.markers_ok = false;
			inf.n_markers++;
			if (d->crc && (!body_len || body <= crc_at))
				crc = crc32c_update(crc, buf + i,
						    MPA_MARKER_LEN);
			i += MPA_MARKER_LEN;
			continue;
		}
		if (body < MPA_HDR_LEN) {
			if (body == 0)
				fpdu_off = s;
			hdr[body] = buf[i];
			k = 1;
			if (body == 1) {
				inf.ulpdu_len = wire_be16(hdr);
				if (ulpdu && ulpdu_cap < inf.ulpdu_len)
					return WIRE_ENOSPC;
				body_len = fpdu_body_len(inf.ulpdu_len);
				crc_at = body_len - MPA_CRC_LEN;
				inf.ulpdu_start = i + 1;
			}
		} else if (body < MPA_HDR_LEN + (size_t)inf.ulpdu_len) {
			/* ULPDU: up to the next Marker in one go. */
			k = min_sz(MPA_HDR_LEN + inf.ulpdu_len - body, len - i);
			if (d->markers)
				k = min_sz(k,
					   MPA_MARKER_INTERVAL - mk_phase(s));
			if (!ulpdu_seen) {
				inf.ulpdu_start = i;
				ulpdu_seen = true;
			}
			if (ulpdu)
				memcpy(ulpdu + body - MPA_HDR_LEN, buf + i, k);
		} else if (body < crc_at) {
			k = 1; /* pad */
		} else {
			crcf[body - crc_at] = buf[i];
			k = 1;
		}
		/* Everything before the CRC field is covered (§4.4). */
		if (d->crc && (!body_len || body < crc_at))
			crc = crc32c_update(crc, buf + i, k);
		body += k;
		i += k;
	}

	inf.wire_len = i;
	inf.crc_wire = crc32c_get_wire(crcf);
	if (d->crc) {
		inf.crc_calc = crc32c_final(crc);
		inf.crc_ok = inf.crc_calc == inf.crc_wire;
	} else {
		inf.crc_ok = true;
	}
	*info = inf;
	return WIRE_OK;
}
