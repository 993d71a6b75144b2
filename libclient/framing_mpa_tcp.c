/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA (RFC 5044) over the handed-off TCP socket: the only code of the
 * datapath that knows MPA.
 *
 * Transmit: each DDP segment becomes one FPDU whose iovecs point at the
 * caller's header and payload (wire/mpa.h adds ULPDU_Length, Markers, pad
 * and CRC around them); several FPDUs leave in one gathered write.
 *
 * Receive: the framing octets and the DDP/RDMAP header of a segment are
 * read into a small staging buffer, with a little look-ahead so that a
 * small message costs one read; once RDMAP/DDP has checked the header and
 * named the payload's target, a larger payload is read straight into it,
 * the Markers between its pieces (RFC 5044 §4.3) into scratch octets, in
 * one readv(2); the decoder computes the CRC over what was placed.  The
 * segment's end carries the verdict of CRC and Markers (RFC 5044 §8).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ddp.h"
#include "framing.h"
#include "internal.h"
#include "mpa.h"
#include "rdmap.h"

/* Iovecs one gathered write carries at most (IOV_MAX on Linux). */
#define MT_TX_IOV 1024
/* Header octets of a segment the framing holds (DDP + RDMAP headers,
 * or a whole header-only message). */
#define MT_HBUF_LEN 256
/* Staging buffer: framing, headers, small payloads, dropped octets. */
#define MT_STAGE_LEN 4096
/* A read of the socket for framing or headers asks for this much and
 * keeps what the decoder did not ask for (mt_read()): a message of up to
 * about 8 KiB with its headers, and the messages that arrived with it,
 * cost one read(2); the price is one copy of what was read ahead of a
 * larger segment's payload. */
#define MT_AHEAD_LEN (9u * 1024u)
/* Payloads of segments up to this size are read with their headers and
 * copied; larger ones are read straight into their target. */
#define MT_RX_INLINE 128
/* The first read of a segment asks for this much beyond its ULPDU_Length:
 * the whole of a segment of MT_RX_INLINE octets (pad, CRC) and the next
 * ULPDU_Length and DDP header, so that a small message costs one read.
 * Of a larger segment, at most this much payload is copied. */
#define MT_RX_AHEAD \
	(MT_RX_INLINE + 3 + MPA_CRC_LEN + MPA_HDR_LEN + DDP_TAGGED_HDR_LEN)
/* Iovecs of one gathered payload read: data runs between Markers, each
 * possibly split over several buffers, and the Markers. */
#define MT_RX_READV_IOV 256

/* One FPDU on its way to the socket. */
struct mt_slot {
	void *cookie;
	struct mpa_tx_scratch scratch;
	struct iovec *out; /* what writev() sends */
	size_t n_out;
	size_t wire_len;
	size_t sent;	 /* octets of wire_len written */
	uint8_t *bounce; /* unsent octets copied (detach) */
};

/* Where the receive side is inside the stream. */
enum mt_phase {
	MT_CTRL = 0, /* framing: length, Markers, CRC */
	MT_HDR,	     /* DDP/RDMAP header into hbuf */
	MT_DATA,     /* payload: to its target or dropped */
};

struct mpa_tcp {
	struct framing fr; /* first: container_of by cast */
	int fd;

	/* Transmit. */
	struct mpa_dir tx_dir;
	struct mt_slot slot[FRAMING_TX_QUEUE];
	size_t out_cap;
	unsigned int tx_head;

	/* Receive. */
	struct mpa_rx rx;
	enum mt_phase phase;
	uint8_t *stage; /* MT_STAGE_LEN octets */
	uint8_t hbuf[MT_HBUF_LEN];
	size_t hlen, hneed;
	uint16_t ulpdu_len;
	size_t pay_off;	  /* payload octets of this segment seen */
	size_t data_left; /* payload octets still to come */
	bool drop;	  /* the payload's rest goes nowhere */
	bool lost;	  /* no segment can be found in the stream */
	bool ended;	  /* the transport's end was reported */
	/* RFC 5044 §7.1.2 rule 4: an MPA v1 responder sends nothing before
	 * the first FPDU arrived. */
	bool wait_first;
	bool first_rx;
	/* What the daemon read past the handshake, read first; then what
	 * a read of the socket took ahead of the decoder (mt_read()). */
	uint8_t *unread;
	size_t unread_len, unread_off, unread_cap;
	/* The read that filled it emptied the socket. */
	bool ahead_drained;
};

static struct mpa_tcp *mt_of(struct framing *fr)
{
	return (struct mpa_tcp *)fr;
}

/* ---- socket I/O ---- */

/* Up to len octets out of the buffered ones (unread). */
static size_t mt_take(struct mpa_tcp *mt, void *buf, size_t len)
{
	size_t k = mt->unread_len - mt->unread_off;

	if (k > len)
		k = len;
	memcpy(buf, mt->unread + mt->unread_off, k);
	mt->unread_off += k;
	return k;
}

/*
 * Up to len octets: the buffered ones first, then the socket.  A small
 * read of the socket (framing, headers, a small segment) asks for the
 * whole read-ahead buffer (MT_AHEAD_LEN) instead and keeps what the
 * decoder did not ask for: the messages that arrived together cost one
 * read(2), not one or two each.  >0, 0 on EOF, -1 with errno (EAGAIN when nothing is there).
 */
static ssize_t mt_read(struct mpa_tcp *mt, void *buf, size_t len)
{
	ssize_t n;

	if (mt->unread_off < mt->unread_len)
		return (ssize_t)mt_take(mt, buf, len);
	if (len < mt->unread_cap) {
		do
			n = read(mt->fd, mt->unread, mt->unread_cap);
		while (n < 0 && errno == EINTR);
		if (n <= 0)
			return n;
		mt->unread_len = (size_t)n;
		mt->unread_off = 0;
		mt->ahead_drained = (size_t)n < mt->unread_cap;
		return (ssize_t)mt_take(mt, buf, len);
	}
	do
		n = read(mt->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Scatter variant: payload goes straight into its target. */
static ssize_t mt_readv(struct mpa_tcp *mt, const struct iovec *iov, int n)
{
	ssize_t r;

	if (mt->unread_off < mt->unread_len) {
		size_t done = 0;

		for (int i = 0; i < n && mt->unread_off < mt->unread_len; i++)
			done += mt_take(mt, iov[i].iov_base, iov[i].iov_len);
		return (ssize_t)done;
	}
	do
		r = readv(mt->fd, iov, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* ---- transmit ---- */

/* Frame one ULPDU (RFC 5044 §4.1-4.4) without copying its payload. */
static int mt_tx_segment(struct framing *fr, const struct iovec *iov, size_t n,
			 void *cookie)
{
	struct mpa_tcp *mt = mt_of(fr);
	struct mt_slot *s;
	enum wire_err e;

	if (fr->tx_queued == FRAMING_TX_QUEUE)
		return ERR(ENOBUFS);
	s = &mt->slot[(mt->tx_head + fr->tx_queued) % FRAMING_TX_QUEUE];
	free(s->bounce);
	s->bounce = NULL;
	e = mpa_fpdu_build_iov(&mt->tx_dir, iov, n, &s->scratch, s->out,
			       mt->out_cap, &s->n_out, &s->wire_len);
	if (e != WIRE_OK)
		return ERR(e == WIRE_ENOSPC ? ENOBUFS : EINVAL);
	s->sent = 0;
	s->cookie = cookie;
	fr->tx_queued++;
	return 0;
}

/* One gathered write of the queued FPDUs; those wholly out are handed
 * back.  EAGAIN when some remain (the socket took no more). */
static int mt_tx_flush(struct framing *fr)
{
	struct mpa_tcp *mt = mt_of(fr);
	struct iovec iov[MT_TX_IOV];
	struct msghdr mh;
	size_t n = 0;
	ssize_t r, left;

	for (unsigned int i = 0; i < fr->tx_queued && n < MT_TX_IOV; i++) {
		struct mt_slot *s =
			&mt->slot[(mt->tx_head + i) % FRAMING_TX_QUEUE];
		size_t skip = s->sent;

		for (size_t j = 0; j < s->n_out && n < MT_TX_IOV; j++) {
			size_t l = s->out[j].iov_len;

			if (skip >= l) {
				skip -= l;
				continue;
			}
			iov[n].iov_base = (uint8_t *)s->out[j].iov_base + skip;
			iov[n].iov_len = l - skip;
			skip = 0;
			n++;
		}
	}
	if (n) {
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = n;
		/* A peer that is gone is an error of this QP, not a
		 * SIGPIPE. */
		do
			r = sendmsg(mt->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		while (r < 0 && errno == EINTR);
		if (r < 0)
			return -1;
		left = r;
		for (unsigned int i = 0; i < fr->tx_queued && left; i++) {
			struct mt_slot *s =
				&mt->slot[(mt->tx_head + i) % FRAMING_TX_QUEUE];
			size_t k = s->wire_len - s->sent;

			if ((size_t)left < k)
				k = (size_t)left;
			s->sent += k;
			left -= (ssize_t)k;
		}
	}
	while (fr->tx_queued) {
		struct mt_slot *s = &mt->slot[mt->tx_head];

		if (s->sent < s->wire_len)
			return ERR(EAGAIN);
		mt->tx_head = (mt->tx_head + 1) % FRAMING_TX_QUEUE;
		fr->tx_queued--;
		free(s->bounce);
		s->bounce = NULL;
		fr->up->tx_done(fr->arg, s->cookie);
	}
	return 0;
}

/* Forget the FPDUs nobody started writing; a begun one stays whole
 * unless begun says nothing more is written. */
static unsigned int mt_tx_drop(struct framing *fr, bool begun)
{
	struct mpa_tcp *mt = mt_of(fr);
	unsigned int keep = 0;

	if (!begun && fr->tx_queued && mt->slot[mt->tx_head].sent)
		keep = 1;
	for (unsigned int i = keep; i < fr->tx_queued; i++) {
		struct mt_slot *s =
			&mt->slot[(mt->tx_head + i) % FRAMING_TX_QUEUE];

		free(s->bounce);
		s->bounce = NULL;
	}
	fr->tx_queued = keep;
	return keep;
}

/*
 * Copy the queued FPDUs that point into [addr, +len) whose octets are not
 * all sent.  The whole FPDU is copied and its sent count kept, so that a
 * frame begun on the wire still reads as begun.
 */
static int mt_tx_detach(struct framing *fr, const uint8_t *addr, size_t len)
{
	struct mpa_tcp *mt = mt_of(fr);

	for (unsigned int i = 0; i < fr->tx_queued; i++) {
		struct mt_slot *s =
			&mt->slot[(mt->tx_head + i) % FRAMING_TX_QUEUE];
		size_t skip = s->sent, pos = 0, o = 0;
		bool hit = false;
		uint8_t *b;

		for (size_t j = 0; j < s->n_out && !hit; j++) {
			const uint8_t *p = s->out[j].iov_base;
			size_t l = s->out[j].iov_len;

			if (pos + l > skip && p < addr + len && p + l > addr)
				hit = true;
			pos += l;
		}
		if (!hit || s->sent == s->wire_len)
			continue;
		b = malloc(s->wire_len);
		if (!b) {
			/* The FPDU cannot be kept: nothing from it on is
			 * sent, rather than freed memory later. */
			fr->tx_queued = i;
			return ERR(ENOMEM);
		}
		for (size_t j = 0; j < s->n_out; j++) {
			memcpy(b + o, s->out[j].iov_base, s->out[j].iov_len);
			o += s->out[j].iov_len;
		}
		free(s->bounce);
		s->bounce = b;
		s->out[0].iov_base = b;
		s->out[0].iov_len = s->wire_len;
		s->n_out = 1;
	}
	return 0;
}

/* ---- receive ---- */

static const struct framing_err mt_err_crc = { MPA_ETYPE_MPA, MPA_ECODE_CRC };
static const struct framing_err mt_err_marker = { MPA_ETYPE_MPA,
						  MPA_ECODE_MARKER };
static const struct framing_err mt_err_lost = { MPA_ETYPE_MPA,
						MPA_ECODE_LOCAL_CATASTROPHIC };

static void mt_lost(struct mpa_tcp *mt, const struct framing_err *err,
		    bool reset)
{
	mt->lost = true;
	mt->fr.up->rx_lost(mt->fr.arg, err, reset);
}

/* The header is complete or its wanted length grew. */
static void mt_hdr_check(struct mpa_tcp *mt)
{
	const struct framing_upcalls *up = mt->fr.up;
	size_t need =
		up->rx_hdr_len(mt->fr.arg, mt->hbuf, mt->hlen, mt->ulpdu_len);

	if (need > MT_HBUF_LEN)
		need = MT_HBUF_LEN;
	if (need > mt->ulpdu_len)
		need = mt->ulpdu_len;
	if (need > mt->hlen) {
		mt->hneed = need;
		return;
	}
	up->rx_hdr(mt->fr.arg, mt->hbuf, mt->hlen, mt->ulpdu_len);
	mt->phase = MT_DATA;
	mt->pay_off = 0;
	mt->data_left = mt->ulpdu_len - mt->hlen;
	mt->drop = false;
}

/* An FPDU began: its ULPDU is one DDP segment. */
static void mt_start(struct mpa_tcp *mt, uint16_t ulpdu_len)
{
	mt->ulpdu_len = ulpdu_len;
	mt->hlen = 0;
	mt->phase = MT_HDR;
	mt_hdr_check(mt);
}

/* Payload octets that came in the staging buffer: copy them home. */
static void mt_place(struct mpa_tcp *mt, const uint8_t *p, size_t k)
{
	struct iovec iov[MT_RX_READV_IOV];

	mt->data_left -= k;
	while (k && !mt->drop) {
		int cnt = mt->fr.up->rx_iov(mt->fr.arg, mt->pay_off, k, iov,
					    MT_RX_READV_IOV);
		size_t moved = 0;

		for (int i = 0; i < cnt && k; i++) {
			size_t l = iov[i].iov_len < k ? iov[i].iov_len : k;

			memcpy(iov[i].iov_base, p, l);
			p += l;
			k -= l;
			moved += l;
		}
		mt->pay_off += moved;
		/* No target (a rejected segment): the rest is dropped. */
		if (!moved)
			mt->drop = true;
	}
	mt->pay_off += k;
}

/* ULPDU octets the decoder handed out of the staging buffer: header
 * octets to hbuf, payload to its target or to nowhere. */
static void mt_route(struct mpa_tcp *mt, const uint8_t *p, size_t len)
{
	while (len) {
		size_t k;

		if (mt->phase == MT_HDR) {
			k = mt->hneed - mt->hlen;
			if (k > len)
				k = len;
			memcpy(mt->hbuf + mt->hlen, p, k);
			mt->hlen += k;
			if (mt->hlen == mt->hneed)
				mt_hdr_check(mt);
		} else if (mt->phase == MT_DATA && mt->data_left) {
			k = mt->data_left < len ? mt->data_left : len;
			if (mt->drop) {
				mt->data_left -= k;
				mt->pay_off += k;
			} else {
				mt_place(mt, p, k);
			}
		} else {
			/* The decoder and the segment disagree on its
			 * length: no correct stream does this. */
			mt_lost(mt, &mt_err_lost, false);
			return;
		}
		p += k;
		len -= k;
		if (!mt->fr.up->rx_live(mt->fr.arg))
			return;
	}
}

/* The FPDU is complete: its verdict (RFC 5044 §8) goes up with it. */
static void mt_end(struct mpa_tcp *mt, const struct mpa_rx_ev *ev)
{
	const struct framing_err *err = NULL;

	mt->phase = MT_CTRL;
	/* RFC 5044 §7.1.2 rule 4: an FPDU, even a damaged one, shows the
	 * Initiator is in FPDU mode, so the responder may send, if only the
	 * Terminate of §8 that reports the damage. */
	mt->first_rx = true;
	if (!ev->crc_ok)
		err = &mt_err_crc;
	else if (!ev->markers_ok)
		err = &mt_err_marker;
	mt->fr.up->rx_end(mt->fr.arg, err);
}

/*
 * Feed octets already read to the MPA decoder and act on its events.
 * ULPDU octets are routed (copied from a staging buffer) unless they were
 * read straight into their target (placed).
 */
static void mt_feed(struct mpa_tcp *mt, const uint8_t *buf, size_t n,
		    bool placed)
{
	const struct framing_upcalls *up = mt->fr.up;
	size_t off = 0;

	while (off < n && !mt->lost && up->rx_live(mt->fr.arg)) {
		struct mpa_rx_ev ev;
		size_t used;

		mpa_rx_step(&mt->rx, buf + off, n - off, &used, &ev);
		off += used;
		switch (ev.type) {
		case MPA_RX_EV_START:
			mt_start(mt, ev.ulpdu_len);
			break;
		case MPA_RX_EV_DATA:
			if (!placed)
				mt_route(mt, ev.data, ev.len);
			break;
		case MPA_RX_EV_END:
			mt_end(mt, &ev);
			break;
		case MPA_RX_EV_ERROR:
			mt_lost(mt, &mt_err_lost, false);
			return;
		default:
			if (!used)
				return;
			break;
		}
	}
}

/*
 * How many octets to read into the staging buffer: the framing the
 * decoder needs, plus what certainly follows and is no payload of a
 * larger segment (the next ULPDU_Length and the 14 octets every DDP
 * header has), plus the rest of a segment whose payload is small
 * enough to copy (cheaper than another system call).  At the start of a
 * segment the read asks for a whole small segment (MT_RX_AHEAD): one
 * read per small message, the price being that up to that many octets
 * of a larger segment's payload are copied rather than read in place.
 */
static size_t mt_want(const struct mpa_tcp *mt, size_t need)
{
	size_t tail = mpa_pad_len(mt->ulpdu_len) + MPA_CRC_LEN + MPA_HDR_LEN +
		      DDP_TAGGED_HDR_LEN;

	if (need) {
		if (mt->phase == MT_CTRL)
			return need + MT_RX_AHEAD;
		if (mt->phase != MT_HDR && !mt->data_left)
			return need + MPA_HDR_LEN + DDP_TAGGED_HDR_LEN;
		return need;
	}
	if (mt->phase == MT_HDR) {
		if (mt->ulpdu_len <= MT_RX_INLINE || mt->hneed == mt->ulpdu_len)
			return mt->ulpdu_len - mt->hlen + tail;
		return mt->hneed - mt->hlen;
	}
	return mt->data_left + tail;
}

enum mt_gather_res {
	MTG_NONE, /* no payload ahead: staging read */
	MTG_READ, /* a read was made, *nread says how */
};

/* What one iovec of a gathered read holds. */
enum mt_iov_kind {
	MTI_DATA,   /* payload, in its target */
	MTI_MARKER, /* a Marker between payload pieces */
	MTI_STAGE,  /* what follows the payload, into the staging buffer */
};

/*
 * Zero copy (RFC 5041 §5 placement): read the payload ahead straight into
 * its target and the Markers between its pieces (RFC 5044 §4.3) into a
 * scratch array, in one gathered read; the decoder then checks what was
 * read where it lies (CRC over the placed octets).  When the read covers
 * the rest of the payload, the same read also takes what follows into
 * the staging buffer, as the next staged read would (pad, CRC, the next
 * FPDU's header): one read(2) per large FPDU instead of two.
 */
static enum mt_gather_res mt_gather(struct mpa_tcp *mt, ssize_t *nread,
				    size_t *asked)
{
	struct mpa_rx_run runs[MT_RX_READV_IOV / 2];
	uint8_t mk[MT_RX_READV_IOV / 2][MPA_MARKER_LEN];
	struct iovec iov[MT_RX_READV_IOV], tgt[MT_RX_READV_IOV / 2];
	uint8_t kind[MT_RX_READV_IOV];
	size_t nr, plan = 0, data_off = 0, toff = 0;
	int cnt = 0, nt, ti = 0;
	ssize_t n;

	nr = mpa_rx_data_runs(&mt->rx, mt->data_left, runs,
			      sizeof(runs) / sizeof(runs[0]));
	for (size_t i = 0; i < nr; i++)
		if (!runs[i].marker)
			plan += runs[i].len;
	/* Where the planned payload goes, asked once for all its runs. */
	nt = plan ? mt->fr.up->rx_iov(mt->fr.arg, mt->pay_off, plan, tgt,
				      (int)(sizeof(tgt) / sizeof(tgt[0]))) :
		    0;
	if (nt <= 0) {
		if (plan)
			mt->drop = true;
		return MTG_NONE;
	}
	*asked = 0;
	for (size_t i = 0; i < nr && cnt < MT_RX_READV_IOV; i++) {
		size_t left = runs[i].len;

		if (runs[i].marker) {
			/* A read never ends on a Marker. */
			if (cnt + 1 == MT_RX_READV_IOV)
				break;
			iov[cnt].iov_base = mk[i];
			iov[cnt].iov_len = left;
			kind[cnt++] = MTI_MARKER;
			*asked += left;
			continue;
		}
		/* The run's octets, over as many target buffers as it
		 * spans. */
		while (left && ti < nt && cnt < MT_RX_READV_IOV) {
			size_t k = tgt[ti].iov_len - toff;

			if (k > left)
				k = left;
			iov[cnt].iov_base = (uint8_t *)tgt[ti].iov_base + toff;
			iov[cnt].iov_len = k;
			kind[cnt++] = MTI_DATA;
			toff += k;
			if (toff == tgt[ti].iov_len) {
				ti++;
				toff = 0;
			}
			left -= k;
			data_off += k;
			*asked += k;
		}
		/* The target's iovecs ran out inside this run. */
		if (left)
			break;
	}
	if (data_off == mt->data_left && cnt < MT_RX_READV_IOV) {
		/* The pad, the CRC and a Marker among them, then as much
		 * as a staged read at the start of a segment asks. */
		iov[cnt].iov_base = mt->stage;
		iov[cnt].iov_len = mpa_pad_len(mt->ulpdu_len) + MPA_CRC_LEN +
				   MPA_MARKER_LEN + MT_RX_AHEAD;
		*asked += iov[cnt].iov_len;
		kind[cnt++] = MTI_STAGE;
	}
	n = mt_readv(mt, iov, cnt);
	*nread = n;
	for (int i = 0; i < cnt && n > 0; i++) {
		size_t k = iov[i].iov_len < (size_t)n ? iov[i].iov_len :
							(size_t)n;

		if (kind[i] == MTI_DATA) {
			mt->data_left -= k;
			mt->pay_off += k;
		}
		/* Placed payload and whole Markers: accounted for (CRC,
		 * FPDUPTR) without the decoder's events, which have nothing
		 * to route; the rest through the decoder. */
		if (kind[i] == MTI_STAGE ||
		    !mpa_rx_take_run(&mt->rx, iov[i].iov_base, k,
				     kind[i] == MTI_MARKER))
			mt_feed(mt, iov[i].iov_base, k, kind[i] != MTI_STAGE);
		n -= (ssize_t)k;
	}
	return MTG_READ;
}

/* Read and act on what the socket has (and the handoff's octets).
 * Returns false when the socket had nothing at all (EAGAIN at once). */
static bool mt_rx_progress(struct framing *fr, size_t budget)
{
	struct mpa_tcp *mt = mt_of(fr);
	const size_t start = budget;

	if (mt->ended)
		return false;
	mt->ahead_drained = false;
	/* What was read ahead is decoded whatever the budget: nobody would
	 * be woken for it, the socket being empty. */
	while (budget || mt->unread_off < mt->unread_len) {
		size_t need, room, want;
		bool sock = mt->unread_off >= mt->unread_len;
		ssize_t n;

		/* The read that filled the buffer emptied the socket: the
		 * poll says when more comes, no read to see EAGAIN. */
		if (sock && mt->ahead_drained) {
			mt->ahead_drained = false;
			return true;
		}

		if (mt->lost || !fr->up->rx_live(fr->arg)) {
			/* RFC 5041 §7.1: later segments are dropped; a lost
			 * stream is read only for its end. */
			n = mt_read(mt, mt->stage, MT_STAGE_LEN);
			if (n <= 0)
				goto rd;
			budget -= budget < (size_t)n ? budget : (size_t)n;
			continue;
		}
		need = mpa_rx_ctrl_need(&mt->rx);
		room = mpa_rx_data_room(&mt->rx);
		if (!need && !room) {
			/* The decoder is dead (a start inside a Marker). */
			mt_lost(mt, &mt_err_marker, false);
			return true;
		}
		if (mt->phase == MT_DATA && !mt->drop && mt->data_left &&
		    mt->ulpdu_len > MT_RX_INLINE &&
		    mt_gather(mt, &n, &want) == MTG_READ) {
			if (n <= 0)
				goto rd;
			budget -= budget < (size_t)n ? budget : (size_t)n;
			/* A short read from the socket emptied it: the poll
			 * says when more comes, no read to see EAGAIN. */
			if (sock && (size_t)n < want)
				return true;
			continue;
		}
		want = mt_want(mt, need);
		if (want > MT_STAGE_LEN)
			want = MT_STAGE_LEN;
		n = mt_read(mt, mt->stage, want);
		if (n <= 0)
			goto rd;
		budget -= budget < (size_t)n ? budget : (size_t)n;
		mt_feed(mt, mt->stage, (size_t)n, false);
		if (sock && (size_t)n < want)
			return true;
		continue;
rd:
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return budget != start;
		/* EOF or a reset: the transport is gone. */
		mt->ended = true;
		mt_lost(mt, NULL, n < 0);
		return true;
	}
	return true;
}

static bool mt_tx_ready(const struct framing *fr)
{
	const struct mpa_tcp *mt = (const struct mpa_tcp *)fr;

	return !mt->wait_first || mt->first_rx;
}

static bool mt_rx_buffered(const struct framing *fr)
{
	const struct mpa_tcp *mt = (const struct mpa_tcp *)fr;

	return mt->unread_off < mt->unread_len;
}

static void mt_free(struct framing *fr)
{
	struct mpa_tcp *mt = mt_of(fr);

	for (int i = 0; i < FRAMING_TX_QUEUE; i++) {
		free(mt->slot[i].out);
		free(mt->slot[i].bounce);
	}
	free(mt->stage);
	free(mt->unread);
	free(mt);
}

static const struct framing_ops mpa_tcp_ops = {
	.name = "mpa_tcp",
	.tx_segment = mt_tx_segment,
	.tx_flush = mt_tx_flush,
	.tx_drop = mt_tx_drop,
	.tx_detach = mt_tx_detach,
	.tx_ready = mt_tx_ready,
	.rx_progress = mt_rx_progress,
	.rx_buffered = mt_rx_buffered,
	.free = mt_free,
};

/* MULPDU for this socket: RFC 5044 §4.5 from the TCP EMSS. */
static uint16_t mt_mulpdu(int fd, bool markers)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	/* Not TCP (a socketpair in tests): FPDUs as large as MPA allows. */
	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) < 0 || mss <= 0)
		mss = 65536;
	return mpa_mulpdu((uint32_t)mss, markers);
}

/* MPA over the TCP socket fd of conn (see framing.h). */
struct framing *framing_mpa_tcp_new(int fd, const struct iwcm_conn *conn,
				    const struct framing_upcalls *up, void *arg,
				    size_t max_iov)
{
	struct mpa_tcp *mt = calloc(1, sizeof(*mt));

	if (!mt)
		return ERR_PTR(ENOMEM);
	mt->fr.ops = &mpa_tcp_ops;
	mt->fr.up = up;
	mt->fr.arg = arg;
	mt->fd = fd;
	/* RFC 5044 §4.3: Markers sit at multiples of 512 counted from the
	 * first FPDU octet; the daemon says how far each direction is. */
	mt->tx_dir.markers = conn->markers_tx;
	mt->tx_dir.crc = conn->crc;
	mt->tx_dir.off = (uint32_t)conn->tx_offset;
	mpa_rx_init(&mt->rx, conn->markers_rx, conn->crc,
		    (uint32_t)conn->rx_offset);
	mt->fr.mulpdu = mt_mulpdu(fd, conn->markers_tx);
	mt->wait_first = conn->wait_first_fpdu;

	mt->out_cap = mpa_fpdu_iov_max(max_iov);
	mt->stage = malloc(MT_STAGE_LEN);
	if (!mt->stage)
		goto nomem;
	for (int i = 0; i < FRAMING_TX_QUEUE; i++) {
		mt->slot[i].out = calloc(mt->out_cap, sizeof(struct iovec));
		if (!mt->slot[i].out)
			goto nomem;
	}
	mt->unread_cap = conn->unread_len > MT_AHEAD_LEN ? conn->unread_len :
							   MT_AHEAD_LEN;
	mt->unread = malloc(mt->unread_cap);
	if (!mt->unread)
		goto nomem;
	if (conn->unread_len) {
		memcpy(mt->unread, conn->unread, conn->unread_len);
		mt->unread_len = conn->unread_len;
	}
	return &mt->fr;
nomem:
	mt_free(&mt->fr);
	return ERR_PTR(ENOMEM);
}
