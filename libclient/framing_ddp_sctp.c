/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP over SCTP (RFC 5043) below the unchanged RDMAP/DDP code: one DDP
 * Segment per message (§5.2.2), no MPA, no Markers, no CRC.  The
 * transport is the SEQPACKET relay fd iwcmd handed over (sctp_relay.h
 * in the daemon): each datagram is an 8-octet header {stream (16),
 * reserved (16), PPID (32)} and one DDP Segment; the daemon keeps the
 * association and the DDP-SSNs.  A datagram is written whole or not at
 * all, so a queued segment is never begun on the wire.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "framing_sctp.h"
#include "rdmap.h"

#define FS_HDR 8
#define FS_PPID_SEGMENT 16 /* RFC 5043 §5.2 */
/*
 * Datagrams taken per recvmmsg(2).  Fewer than asked means the socket is
 * empty (or holds an error for the next call, which the poll reports),
 * so a ping-pong's message costs one call and no read to see EAGAIN.
 */
#define FS_RX_BATCH 4

struct framing_sctp {
	struct framing fr; /* first */
	int fd;
	uint16_t stream;
	struct fs_txq txq;
	uint8_t hdr[FS_HDR];
	struct iovec *msg_iov; /* header + max_iov pieces */
	uint8_t *rxbuf;	       /* FS_RX_BATCH x (header + mulpdu) */
	struct mmsghdr rxmm[FS_RX_BATCH];
	struct iovec rxiov[FS_RX_BATCH];
	bool lost;
};

/* RFC 5043 defines no LLP error codes of its own: a datagram the relay
 * should never have passed is the LLP's local catastrophic error. */
static const struct framing_err fs_err_bad = { MPA_ETYPE_MPA,
					       MPA_ECODE_LOCAL_CATASTROPHIC };

static struct framing_sctp *fs_of(const struct framing *fr)
{
	return (struct framing_sctp *)(uintptr_t)fr;
}

static int fs_tx_segment(struct framing *fr, const struct iovec *iov, size_t n,
			 void *cookie)
{
	return fs_txq_add(fr, &fs_of(fr)->txq, iov, n, cookie);
}

/* One message per segment: the relay header, then the segment. */
static int fs_tx_flush(struct framing *fr)
{
	struct framing_sctp *fs = fs_of(fr);
	struct fs_seg *s;

	while ((s = fs_txq_head(fr, &fs->txq))) {
		struct msghdr mh;

		fs->msg_iov[0].iov_base = fs->hdr;
		fs->msg_iov[0].iov_len = FS_HDR;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = fs->msg_iov;
		mh.msg_iovlen = 1 + fs_txq_iov(s, fs->msg_iov, 1);
		if (sendmsg(fs->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) < 0) {
			if (errno == EWOULDBLOCK)
				errno = EAGAIN;
			return -1;
		}
		fs_txq_done(fr, &fs->txq);
	}
	return 0;
}

/* Whole messages: none is ever begun, all queued ones go. */
static unsigned int fs_tx_drop(struct framing *fr, bool begun)
{
	(void)begun;
	fs_txq_drop(fr, &fs_of(fr)->txq);
	return 0;
}

/* Queued segments pointing into [addr, +len) gather their octets. */
static int fs_tx_detach(struct framing *fr, const uint8_t *addr, size_t len)
{
	return fs_txq_detach(fr, &fs_of(fr)->txq, addr, len);
}

static bool fs_tx_ready(const struct framing *fr)
{
	(void)fr;
	return true; /* RFC 5043: no MPA v1 responder rule */
}

static void fs_lost(struct framing_sctp *fs, const struct framing_err *err,
		    bool reset)
{
	fs->lost = true;
	fs->fr.up->rx_lost(fs->fr.arg, err, reset);
}

/* One datagram of the relay, n octets (its whole length: MSG_TRUNC). */
static void fs_rx_one(struct framing_sctp *fs, const uint8_t *d, size_t n)
{
	struct framing *fr = &fs->fr;
	uint32_t ppid;
	uint16_t stream;

	if (n == 0) {
		/* the session ended (Terminate, RFC 5043 §6.2) */
		fs_lost(fs, NULL, false);
		return;
	}
	/* bounded: MSG_TRUNC reports a datagram over the buffer */
	if (n < FS_HDR || n > (size_t)FS_HDR + fr->mulpdu) {
		fs_lost(fs, &fs_err_bad, false);
		return;
	}
	stream = (uint16_t)(d[0] << 8 | d[1]);
	ppid = (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 |
	       (uint32_t)d[6] << 8 | d[7];
	if (stream != fs->stream || ppid != FS_PPID_SEGMENT) {
		fs_lost(fs, &fs_err_bad, false);
		return;
	}
	/* RFC 5041 §7.1: after an error, dropped unseen */
	if (fr->up->rx_live(fr->arg))
		fs_deliver(fr, d + FS_HDR, n - FS_HDR);
}

static bool fs_rx_progress(struct framing *fr, size_t budget)
{
	struct framing_sctp *fs = fs_of(fr);
	const size_t cap = (size_t)FS_HDR + fr->mulpdu;
	bool any = false;

	while (budget && !fs->lost) {
		int k, i;

		for (i = 0; i < FS_RX_BATCH; i++) {
			struct msghdr *mh = &fs->rxmm[i].msg_hdr;

			fs->rxiov[i].iov_base = fs->rxbuf + (size_t)i * cap;
			fs->rxiov[i].iov_len = cap;
			memset(mh, 0, sizeof(*mh));
			mh->msg_iov = &fs->rxiov[i];
			mh->msg_iovlen = 1;
		}
		k = recvmmsg(fs->fd, fs->rxmm, FS_RX_BATCH,
			     MSG_DONTWAIT | MSG_TRUNC, NULL);
		if (k < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		any = true;
		if (k < 0) {
			fs_lost(fs, NULL, true);
			break;
		}
		for (i = 0; i < k && !fs->lost; i++) {
			size_t n = fs->rxmm[i].msg_len;

			budget -= budget < n ? budget : n;
			fs_rx_one(fs, fs->rxiov[i].iov_base, n);
		}
		if (k < FS_RX_BATCH)
			break; /* emptied: the poll says when more comes */
	}
	return any;
}

static bool fs_rx_buffered(const struct framing *fr)
{
	(void)fr;
	return false; /* the daemon read nothing ahead for the owner */
}

static void fs_free(struct framing *fr)
{
	struct framing_sctp *fs = fs_of(fr);

	fs_tx_drop(fr, true);
	free(fs->msg_iov);
	free(fs->rxbuf);
	free(fs);
}

static const struct framing_ops framing_ddp_sctp_ops = {
	.name = "ddp_sctp",
	.tx_segment = fs_tx_segment,
	.tx_flush = fs_tx_flush,
	.tx_drop = fs_tx_drop,
	.tx_detach = fs_tx_detach,
	.tx_ready = fs_tx_ready,
	.rx_progress = fs_rx_progress,
	.rx_buffered = fs_rx_buffered,
	.free = fs_free,
};

/* DDP over SCTP on the relay fd of one session (see framing.h). */
struct framing *framing_ddp_sctp_new(int fd, uint16_t stream, size_t maxseg,
				     const struct framing_upcalls *up,
				     void *arg, size_t max_iov)
{
	struct framing_sctp *fs;

	/* RFC 5043 §9: at least 516 octets; a DDP header must fit */
	if (fd < 0 || maxseg < 64 || max_iov == 0) {
		errno = EINVAL;
		return NULL;
	}
	fs = calloc(1, sizeof(*fs));
	if (!fs)
		return NULL;
	fs->fr.ops = &framing_ddp_sctp_ops;
	fs->fr.up = up;
	fs->fr.arg = arg;
	fs->fr.mulpdu = maxseg > 0xffff ? 0xffff : (uint16_t)maxseg;
	fs->fd = fd;
	fs->stream = stream;
	fs->txq.max_iov = max_iov;
	/* the relay header: this session's stream, PPID 16 (§5.2) */
	fs->hdr[0] = (uint8_t)(stream >> 8);
	fs->hdr[1] = (uint8_t)stream;
	fs->hdr[7] = FS_PPID_SEGMENT;
	fs->msg_iov = calloc(max_iov + 1, sizeof(*fs->msg_iov));
	fs->rxbuf = malloc(FS_RX_BATCH * ((size_t)FS_HDR + fs->fr.mulpdu));
	if (!fs->msg_iov || !fs->rxbuf) {
		free(fs->msg_iov);
		free(fs->rxbuf);
		free(fs);
		errno = ENOMEM;
		return NULL;
	}
	return &fs->fr;
}
