/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The transmit queue and the delivery of DDP over SCTP (RFC 5043 §5.2.2:
 * one DDP Segment per SCTP message), shared by the relay's framing and
 * the kernel socket's (framing_sctp.h).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "framing_sctp.h"
#include "iwcm.pb-c.h"
#include "sctp_ss.h"

static struct fs_seg *fs_at(const struct fs_txq *t, unsigned int i)
{
	return t->q[(t->head + i) % FRAMING_TX_QUEUE];
}

/* Queue one segment of fr. */
int fs_txq_add(struct framing *fr, struct fs_txq *t, const struct iovec *iov,
	       size_t n, void *cookie)
{
	struct fs_seg *s;
	size_t len = 0;

	for (size_t i = 0; i < n; i++)
		len += iov[i].iov_len;
	if (len > fr->mulpdu || n > t->max_iov) {
		errno = EMSGSIZE;
		return -1;
	}
	if (fr->tx_queued == FRAMING_TX_QUEUE) {
		errno = ENOBUFS;
		return -1;
	}
	s = malloc(sizeof(*s) + n * sizeof(s->iov[0]));
	if (!s) {
		errno = ENOMEM;
		return -1;
	}
	s->cookie = cookie;
	s->n = n;
	s->len = len;
	s->copy = NULL;
	memcpy(s->iov, iov, n * sizeof(iov[0]));
	t->q[(t->head + fr->tx_queued) % FRAMING_TX_QUEUE] = s;
	fr->tx_queued++;
	return 0;
}

/* The segment at the head, or NULL. */
struct fs_seg *fs_txq_head(const struct framing *fr, const struct fs_txq *t)
{
	return fr->tx_queued ? fs_at(t, 0) : NULL;
}

/* The head segment's pieces into iov from off. */
size_t fs_txq_iov(const struct fs_seg *s, struct iovec *iov, size_t off)
{
	if (s->copy) {
		iov[off].iov_base = s->copy;
		iov[off].iov_len = s->len;
		return 1;
	}
	memcpy(iov + off, s->iov, s->n * sizeof(s->iov[0]));
	return s->n;
}

static void fs_seg_free(struct fs_seg *s)
{
	free(s->copy);
	free(s);
}

/* The head segment is on the wire. */
void fs_txq_done(struct framing *fr, struct fs_txq *t)
{
	struct fs_seg *s = fs_at(t, 0);

	t->head = (t->head + 1) % FRAMING_TX_QUEUE;
	fr->tx_queued--;
	fr->up->tx_done(fr->arg, s->cookie);
	fs_seg_free(s);
}

/* Whole messages: none is ever begun, all queued ones go. */
void fs_txq_drop(struct framing *fr, struct fs_txq *t)
{
	while (fr->tx_queued) {
		fs_seg_free(fs_at(t, 0));
		t->head = (t->head + 1) % FRAMING_TX_QUEUE;
		fr->tx_queued--;
	}
}

/* Queued segments pointing into [addr, +len) gather their octets. */
int fs_txq_detach(struct framing *fr, struct fs_txq *t, const uint8_t *addr,
		  size_t len)
{
	for (unsigned int i = 0; i < fr->tx_queued; i++) {
		struct fs_seg *s = fs_at(t, i);
		bool hit = false;
		size_t o = 0;

		for (size_t k = 0; k < s->n && !s->copy; k++) {
			const uint8_t *b = s->iov[k].iov_base;

			if (b < addr + len && addr < b + s->iov[k].iov_len)
				hit = true;
		}
		if (!hit)
			continue;
		s->copy = malloc(s->len ? s->len : 1);
		if (!s->copy) {
			errno = ENOMEM;
			return -1;
		}
		for (size_t k = 0; k < s->n; k++) {
			memcpy(s->copy + o, s->iov[k].iov_base,
			       s->iov[k].iov_len);
			o += s->iov[k].iov_len;
		}
	}
	return 0;
}

/* One segment, whole: its header, its payload where RDMAP/DDP says,
 * its end (nothing a framing could vouch for beyond SCTP's own CRC32c,
 * RFC 4960 §6.8). */
void fs_deliver(struct framing *fr, const uint8_t *seg, size_t len)
{
	const struct framing_upcalls *up = fr->up;
	void *arg = fr->arg;
	size_t h = 0, need, off = 0;

	while ((need = up->rx_hdr_len(arg, seg, h, len)) > h) {
		if (need > len)
			need = len;
		if (need <= h)
			break;
		h = need;
	}
	up->rx_hdr(arg, seg, h, len);
	while (h + off < len) {
		struct iovec iov[16];
		size_t moved = 0;
		int n = up->rx_iov(arg, off, len - h - off, iov, 16);

		for (int i = 0; i < n; i++) {
			memcpy(iov[i].iov_base, seg + h + off + moved,
			       iov[i].iov_len);
			moved += iov[i].iov_len;
		}
		if (!moved)
			break; /* dropped */
		off += moved;
	}
	up->rx_end(arg, NULL);
}

void fs_handoff_free(struct fs_handoff *h)
{
	if (!h)
		return;
	for (unsigned int i = 0; i < h->n; i++)
		free(h->msg[i].buf);
	free(h->msg);
	free(h);
}

/* The Established event's SctpHandoff, checked and copied. */
struct fs_handoff *fs_handoff_from_pb(const struct Iwcm__SctpHandoff *pb,
				      size_t maxseg)
{
	struct fs_handoff *h;
	size_t cap = maxseg + 2 < SCTP_SS_MSG_MAX ? SCTP_SS_MSG_MAX :
						    maxseg + 2;

	if (!pb || pb->tx_ssn > 0xffff || pb->rx_ssn > 0xffff ||
	    pb->n_unread > FS_HANDOFF_MAX) {
		errno = EPROTO;
		return NULL;
	}
	for (size_t i = 0; i < pb->n_unread; i++) {
		const Iwcm__SctpMessage *m = pb->unread[i];

		if (!m || m->stream > 0xffff || m->data.len < 2 ||
		    m->data.len > cap || !m->data.data) {
			errno = EPROTO;
			return NULL;
		}
	}
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->tx_ssn = (uint16_t)pb->tx_ssn;
	h->rx_ssn = (uint16_t)pb->rx_ssn;
	h->msg = calloc(pb->n_unread ? pb->n_unread : 1, sizeof(*h->msg));
	if (!h->msg) {
		free(h);
		return NULL;
	}
	for (size_t i = 0; i < pb->n_unread; i++) {
		const Iwcm__SctpMessage *m = pb->unread[i];
		struct fs_unread *u = &h->msg[i];

		u->buf = malloc(m->data.len);
		if (!u->buf) {
			fs_handoff_free(h);
			errno = ENOMEM;
			return NULL;
		}
		memcpy(u->buf, m->data.data, m->data.len);
		u->len = m->data.len;
		u->stream = (uint16_t)m->stream;
		u->ppid = m->ppid;
		h->n++;
	}
	return h;
}
