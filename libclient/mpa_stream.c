/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA (RFC 5044) over the handed-off socket: FPDU framing of queued
 * frames around iovecs that point into registered memory (wire/mpa.h
 * does the markers, pad and CRC), gathered writes of several frames,
 * and reads that first return the octets the daemon read past the
 * handshake.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "dp.h"

/* Iovecs one gathered write carries at most (IOV_MAX on Linux). */
#define MPA_STREAM_IOV 1024

/* The octets the daemon read first, then the socket. */
ssize_t mpa_stream_read(struct iwcm_qp *qp, void *buf, size_t len)
{
	ssize_t n;

	if (qp->unread_off < qp->unread_len) {
		size_t k = qp->unread_len - qp->unread_off;

		if (k > len)
			k = len;
		memcpy(buf, qp->unread + qp->unread_off, k);
		qp->unread_off += k;
		return (ssize_t)k;
	}
	do
		n = read(qp->fd, buf, len);
	while (n < 0 && errno == EINTR);
	return n;
}

/* Scatter variant: payload goes straight into its target. */
ssize_t mpa_stream_readv(struct iwcm_qp *qp, const struct iovec *iov, int n)
{
	ssize_t r;

	if (qp->unread_off < qp->unread_len) {
		size_t done = 0;

		for (int i = 0; i < n; i++) {
			size_t k = qp->unread_len - qp->unread_off;

			if (!k)
				break;
			if (k > iov[i].iov_len)
				k = iov[i].iov_len;
			memcpy(iov[i].iov_base, qp->unread + qp->unread_off,
			       k);
			qp->unread_off += k;
			done += k;
		}
		return (ssize_t)done;
	}
	do
		r = readv(qp->fd, iov, n);
	while (r < 0 && errno == EINTR);
	return r;
}

/* Frame one ULPDU (RFC 5044 §4.1-4.4) without copying its payload. */
int mpa_stream_frame(struct iwcm_qp *qp, struct tx_frame *f, size_t n_in)
{
	enum wire_err e;

	e = mpa_fpdu_build_iov(&qp->tx_dir, f->in, n_in, &f->scratch, f->out,
			       qp->out_cap, &f->n_out, &f->wire_len);
	if (e != WIRE_OK)
		return ERR(e == WIRE_ENOSPC ? ENOBUFS : EINVAL);
	f->sent = 0;
	return 0;
}

/* One gathered write of the queued frames; advances their sent counts. */
ssize_t mpa_stream_write(struct iwcm_qp *qp)
{
	struct iovec iov[MPA_STREAM_IOV];
	struct msghdr mh;
	size_t n = 0;
	ssize_t r, left;

	for (uint32_t i = 0; i < qp->tx_count && n < MPA_STREAM_IOV; i++) {
		struct tx_frame *f =
			&qp->frames[(qp->tx_head + i) % DP_TX_FRAMES];
		size_t skip = f->sent;

		for (size_t j = 0; j < f->n_out && n < MPA_STREAM_IOV; j++) {
			size_t l = f->out[j].iov_len;

			if (skip >= l) {
				skip -= l;
				continue;
			}
			iov[n].iov_base = (uint8_t *)f->out[j].iov_base + skip;
			iov[n].iov_len = l - skip;
			skip = 0;
			n++;
		}
	}
	if (!n)
		return 0;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = n;
	/* A peer that is gone is an error of this QP, not a SIGPIPE. */
	r = sendmsg(qp->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
	if (r <= 0)
		return r;
	left = r;
	for (uint32_t i = 0; i < qp->tx_count && left; i++) {
		struct tx_frame *f =
			&qp->frames[(qp->tx_head + i) % DP_TX_FRAMES];
		size_t k = f->wire_len - f->sent;

		if ((size_t)left < k)
			k = (size_t)left;
		f->sent += k;
		left -= (ssize_t)k;
	}
	return r;
}

/* MULPDU for this socket: RFC 5044 §4.5 from the TCP EMSS. */
uint16_t mpa_stream_mulpdu(int fd, bool markers)
{
	int mss = 0;
	socklen_t len = sizeof(mss);

	/* Not TCP (a socketpair in tests): FPDUs as large as MPA allows. */
	if (getsockopt(fd, IPPROTO_TCP, TCP_MAXSEG, &mss, &len) < 0 ||
	    mss <= 0)
		mss = 65536;
	return mpa_mulpdu((uint32_t)mss, markers);
}
