/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The in-memory framing of framing_mem.h: a segment handed over is
 * gathered into one message, queued, and on the flush moved to the
 * peer's inbox; the peer's progress delivers each message whole: its
 * header, then its payload into the iovecs RDMAP/DDP names, then its end.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include "framing_mem.h"

struct fm_msg {
	STAILQ_ENTRY(fm_msg) entry;
	void *cookie;
	size_t len;
	uint8_t buf[];
};

STAILQ_HEAD(fm_queue, fm_msg);

struct framing_mem {
	struct framing fr; /* first */
	struct framing_mem *peer;
	struct fm_queue outq;  /* queued, not yet "written" */
	struct fm_queue inbox; /* from the peer */
	bool spoil;
	struct framing_err spoil_err;
	unsigned int sent, received;
};

static struct framing_mem *fm_of(const struct framing *fr)
{
	return (struct framing_mem *)(uintptr_t)fr;
}

static int fm_tx_segment(struct framing *fr, const struct iovec *iov, size_t n,
			 void *cookie)
{
	struct framing_mem *fm = fm_of(fr);
	struct fm_msg *m;
	size_t len = 0, o = 0;

	for (size_t i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (len > fr->mulpdu || fr->tx_queued == FRAMING_TX_QUEUE) {
		errno = len > fr->mulpdu ? EMSGSIZE : ENOBUFS;
		return -1;
	}
	m = malloc(sizeof(*m) + len);
	if (!m) {
		errno = ENOMEM;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		memcpy(m->buf + o, iov[i].iov_base, iov[i].iov_len);
		o += iov[i].iov_len;
	}
	m->len = len;
	m->cookie = cookie;
	STAILQ_INSERT_TAIL(&fm->outq, m, entry);
	fr->tx_queued++;
	return 0;
}

/* Everything queued goes out at once: a message transport never takes
 * part of a message. */
static int fm_tx_flush(struct framing *fr)
{
	struct framing_mem *fm = fm_of(fr);
	struct fm_msg *m;

	while ((m = STAILQ_FIRST(&fm->outq))) {
		void *cookie = m->cookie;

		STAILQ_REMOVE_HEAD(&fm->outq, entry);
		fr->tx_queued--;
		fm->sent++;
		if (fm->peer)
			STAILQ_INSERT_TAIL(&fm->peer->inbox, m, entry);
		else
			free(m);
		fr->up->tx_done(fr->arg, cookie);
	}
	return 0;
}

static void fm_drain(struct fm_queue *q)
{
	struct fm_msg *m;

	while ((m = STAILQ_FIRST(q))) {
		STAILQ_REMOVE_HEAD(q, entry);
		free(m);
	}
}

static unsigned int fm_tx_drop(struct framing *fr, bool begun)
{
	(void)begun; /* whole messages: none is ever begun */
	fm_drain(&fm_of(fr)->outq);
	fr->tx_queued = 0;
	return 0;
}

/* Messages are copies: nothing points into the caller's memory. */
static int fm_tx_detach(struct framing *fr, const uint8_t *addr, size_t len)
{
	return 0;
}

/* One message, one segment: header, payload, end. */
static void fm_deliver(struct framing_mem *fm, const struct fm_msg *m)
{
	const struct framing_upcalls *up = fm->fr.up;
	void *arg = fm->fr.arg;
	size_t h = 0, need, off;

	while ((need = up->rx_hdr_len(arg, m->buf, h, m->len)) > h) {
		if (need > m->len)
			need = m->len;
		if (need <= h)
			break;
		h = need;
	}
	up->rx_hdr(arg, m->buf, h, m->len);
	off = 0;
	while (h + off < m->len) {
		struct iovec iov[16];
		size_t moved = 0;
		int n = up->rx_iov(arg, off, m->len - h - off, iov, 16);

		for (int i = 0; i < n; i++) {
			memcpy(iov[i].iov_base, m->buf + h + off + moved,
			       iov[i].iov_len);
			moved += iov[i].iov_len;
		}
		if (!moved)
			break; /* dropped */
		off += moved;
	}
	if (fm->spoil) {
		fm->spoil = false;
		up->rx_end(arg, &fm->spoil_err);
	} else {
		up->rx_end(arg, NULL);
	}
}

static bool fm_tx_ready(const struct framing *fr)
{
	return true;
}

static bool fm_rx_progress(struct framing *fr, size_t budget)
{
	struct framing_mem *fm = fm_of(fr);
	struct fm_msg *m;
	bool any = false;

	while (budget && (m = STAILQ_FIRST(&fm->inbox))) {
		STAILQ_REMOVE_HEAD(&fm->inbox, entry);
		fm->received++;
		any = true;
		budget -= budget < m->len ? budget : m->len;
		/* RFC 5041 §7.1: after an error, dropped unseen. */
		if (fr->up->rx_live(fr->arg))
			fm_deliver(fm, m);
		free(m);
	}
	return any;
}

static bool fm_rx_buffered(const struct framing *fr)
{
	return !STAILQ_EMPTY(&fm_of(fr)->inbox);
}

static void fm_free(struct framing *fr)
{
	struct framing_mem *fm = fm_of(fr);

	if (fm->peer)
		fm->peer->peer = NULL;
	fm_drain(&fm->outq);
	fm_drain(&fm->inbox);
	free(fm);
}

static const struct framing_ops framing_mem_ops = {
	.name = "mem",
	.tx_segment = fm_tx_segment,
	.tx_flush = fm_tx_flush,
	.tx_drop = fm_tx_drop,
	.tx_detach = fm_tx_detach,
	.tx_ready = fm_tx_ready,
	.rx_progress = fm_rx_progress,
	.rx_buffered = fm_rx_buffered,
	.free = fm_free,
};

static struct framing_mem *fm_new(uint16_t mulpdu)
{
	struct framing_mem *fm = calloc(1, sizeof(*fm));

	if (!fm)
		abort();
	fm->fr.ops = &framing_mem_ops;
	fm->fr.mulpdu = mulpdu;
	STAILQ_INIT(&fm->outq);
	STAILQ_INIT(&fm->inbox);
	return fm;
}

/* Two framings back to back. */
void framing_mem_pair(struct framing **a, struct framing **b, uint16_t mulpdu)
{
	struct framing_mem *x = fm_new(mulpdu), *y = fm_new(mulpdu);

	x->peer = y;
	y->peer = x;
	*a = &x->fr;
	*b = &y->fr;
}

/* The next segment received ends with err. */
void framing_mem_spoil_next(struct framing *fr, const struct framing_err *err)
{
	fm_of(fr)->spoil = true;
	fm_of(fr)->spoil_err = *err;
}

/* Segments fr sent. */
unsigned int framing_mem_sent(const struct framing *fr)
{
	return fm_of(fr)->sent;
}

/* Segments fr received. */
unsigned int framing_mem_received(const struct framing *fr)
{
	return fm_of(fr)->received;
}
