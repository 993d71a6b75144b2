/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP over SCTP (RFC 5043) on the association's own kernel SCTP socket,
 * which iwcmd handed over with the session (docs/sctp.md "Handoff of the
 * association"), below the unchanged RDMAP/DDP code: one DDP Segment per
 * message (§5.2.2) on the session's stream, after its DDP-SSN (§5.2.1),
 * PPID 16, unordered (§5.2); no MPA, no Markers, no CRC.
 *
 * Received messages come whole (MSG_EOR; a part of one is an error) with
 * their receive information (sctp_kmsg.c) and are put back in DDP-SSN
 * order (sctp_kseq.c).  The association's end (SCTP_ASSOC_CHANGE
 * COMM_LOST, an ABORT: a reset; SCTP_SHUTDOWN_EVENT, SHUTDOWN_COMP: an
 * orderly end) and the peer's Terminate (§6.2: its orderly end) are the
 * transport's loss to RDMAP/DDP, as a TCP reset or FIN is under MPA.  Our
 * graceful close sends our Terminate before the QP's shutdown(2) (SCTP
 * SHUTDOWN, RFC 4960 §9.2).
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "framing_sctp.h"
#include "internal.h"
#include "rdmap.h"
#include "sctp_kmsg.h"
#include "sctp_kseq.h"

#ifdef HAVE_KERNEL_SCTP

#define FK_CTL_SPACE 256 /* receive control: SCTP_RCVINFO and more */
/*
 * Messages taken per recvmmsg(2).  Fewer than asked means the socket is
 * empty (or holds an error for the next call, which the poll reports),
 * so a ping-pong's message costs one call and no read to see EAGAIN;
 * two keep a QP's buffers at twice the largest message.
 */
#define FK_RX_BATCH 2

struct framing_ksctp {
	struct framing fr; /* first */
	int fd;
	struct fs_txq txq;
	struct sctp_kseq seq;
	uint8_t ssn[2];
	struct iovec *msg_iov; /* DDP-SSN + max_iov pieces */
	uint8_t snd[SCTP_KMSG_SNDINFO_SPACE];
	size_t snd_len;
	uint8_t *rxbuf; /* FK_RX_BATCH x rxcap */
	size_t rxcap;
	uint8_t rxctl[FK_RX_BATCH][FK_CTL_SPACE];
	struct mmsghdr rxmm[FK_RX_BATCH];
	struct iovec rxiov[FK_RX_BATCH];
	struct fs_handoff *ho; /* the messages iwcmd read, taken first */
	unsigned int ho_next;
	bool lost;
};

/* RFC 5043 defines no LLP error codes of its own: what no legal pattern
 * allows (§6.1), or a message in parts, is the LLP's local catastrophic
 * error, as for the relay's framing. */
static const struct framing_err fk_err_bad = { MPA_ETYPE_MPA,
					       MPA_ECODE_LOCAL_CATASTROPHIC };

static struct framing_ksctp *fk_of(const struct framing *fr)
{
	return (struct framing_ksctp *)(uintptr_t)fr;
}

static int fk_tx_segment(struct framing *fr, const struct iovec *iov, size_t n,
			 void *cookie)
{
	return fs_txq_add(fr, &fk_of(fr)->txq, iov, n, cookie);
}

/* One SCTP message on the session's stream: ctl its SCTP_SNDINFO. */
static ssize_t fk_send(struct framing_ksctp *fk, struct iovec *iov, size_t n,
		       void *ctl, size_t ctl_len)
{
	struct msghdr mh;

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = iov;
	mh.msg_iovlen = n;
	mh.msg_control = ctl;
	mh.msg_controllen = ctl_len;
	return sendmsg(fk->fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT | MSG_EOR);
}

/* One message per segment: its DDP-SSN, then the segment (§5.2.2). */
static int fk_tx_flush(struct framing *fr)
{
	struct framing_ksctp *fk = fk_of(fr);
	struct fs_seg *s;
	uint16_t ssn;

	while ((s = fs_txq_head(fr, &fk->txq))) {
		if (sctp_kseq_tx_peek(&fk->seq, &ssn) < 0) {
			errno = EPIPE; /* our Terminate went: no more */
			return -1;
		}
		fk->ssn[0] = (uint8_t)(ssn >> 8);
		fk->ssn[1] = (uint8_t)ssn;
		fk->msg_iov[0].iov_base = fk->ssn;
		fk->msg_iov[0].iov_len = 2;
		if (fk_send(fk, fk->msg_iov, 1 + fs_txq_iov(s, fk->msg_iov, 1),
			    fk->snd, fk->snd_len) < 0) {
			if (errno == EWOULDBLOCK)
				errno = EAGAIN;
			return -1;
		}
		sctp_kseq_tx_done(&fk->seq);
		fs_txq_done(fr, &fk->txq);
	}
	return 0;
}

static unsigned int fk_tx_drop(struct framing *fr, bool begun)
{
	(void)begun;
	fs_txq_drop(fr, &fk_of(fr)->txq);
	return 0;
}

static int fk_tx_detach(struct framing *fr, const uint8_t *addr, size_t len)
{
	return fs_txq_detach(fr, &fk_of(fr)->txq, addr, len);
}

static bool fk_tx_ready(const struct framing *fr)
{
	(void)fr;
	return true; /* RFC 5043: no MPA v1 responder rule */
}

/* A session control message (PPID 17) on stream, sent once: waits a
 * little for room, as a TCP FIN queued behind data would. */
static void fk_send_ctl(struct framing_ksctp *fk, uint16_t stream, uint8_t *msg,
			size_t len)
{
	uint8_t ctl[SCTP_KMSG_SNDINFO_SPACE];
	size_t cl = sctp_kmsg_sndinfo(ctl, sizeof(ctl), stream,
				      SCTP_PPID_DDP_SESSION_CTL);
	struct iovec iov = { msg, len };
	struct pollfd p = { fk->fd, POLLOUT, 0 };

	if (fk_send(fk, &iov, 1, ctl, cl) < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK) && poll(&p, 1, 1000) > 0)
		(void)fk_send(fk, &iov, 1, ctl, cl);
}

/* Our graceful close: the session's Terminate (RFC 5043 §6.2), before
 * the QP's shutdown(2) ends the association (SHUTDOWN). */
static void fk_tx_close(struct framing *fr)
{
	struct framing_ksctp *fk = fk_of(fr);
	uint8_t msg[SCTP_SS_HDR_LEN];
	size_t len;

	if (sctp_kseq_term(&fk->seq, msg, sizeof(msg), &len) == 0)
		fk_send_ctl(fk, fk->seq.stream, msg, len);
}

static void fk_lost(struct framing_ksctp *fk, const struct framing_err *err,
		    bool reset)
{
	fk->lost = true;
	fk->fr.up->rx_lost(fk->fr.arg, err, reset);
}

/* One whole user message, and the held ones whose turn it brings. */
static void fk_data(struct framing_ksctp *fk, uint16_t stream, uint32_t ppid,
		    bool unordered, const uint8_t *buf, size_t len)
{
	struct framing *fr = &fk->fr;
	const uint8_t *seg = NULL;
	size_t seg_len = 0;
	enum sctp_kseq_verdict v = sctp_kseq_input(
		&fk->seq, stream, ppid, unordered, buf, len, &seg, &seg_len);
	uint8_t term[SCTP_SS_HDR_LEN];
	size_t tl;

	for (;;) {
		switch (v) {
		case SCTP_KSEQ_SEGMENT:
			/* RFC 5041 §7.1: after an error, dropped unseen */
			if (fr->up->rx_live(fr->arg))
				fs_deliver(fr, seg, seg_len);
			if (fk->lost)
				return;
			v = sctp_kseq_next(&fk->seq, &seg, &seg_len);
			continue;
		case SCTP_KSEQ_HELD:
		case SCTP_KSEQ_IGNORE:
			return;
		case SCTP_KSEQ_TERMINATE:
			/* the peer's orderly end of the session (§6.2) */
			fk_lost(fk, NULL, false);
			return;
		case SCTP_KSEQ_INITIATE:
			/* a second session on this association: iwcmd gave
			 * it away, so nobody takes it (§6.4) */
			if (sctp_kseq_stranger_term(term, sizeof(term), &tl) ==
			    0)
				fk_send_ctl(fk, stream, term, tl);
			return;
		case SCTP_KSEQ_ILLEGAL:
		case SCTP_KSEQ_NOMEM:
		default:
			fk_lost(fk, &fk_err_bad, false);
			return;
		}
	}
}

/* One message recvmmsg(2) took (n octets, flags, control). */
static void fk_rx_one(struct framing_ksctp *fk, const struct msghdr *mh,
		      size_t n)
{
	struct sctp_kmsg km;

	if (n == 0) {
		fk_lost(fk, NULL, false);
		return;
	}
	switch (sctp_kmsg_parse(mh->msg_flags, mh->msg_control,
				mh->msg_controllen, mh->msg_iov->iov_base, n,
				&km)) {
	case SCTP_KMSG_DATA:
		fk_data(fk, km.stream, km.ppid, km.unordered,
			mh->msg_iov->iov_base, n);
		break;
	case SCTP_KMSG_IGNORE:
		break;
	case SCTP_KMSG_SHUTDOWN:
		fk_lost(fk, NULL, false);
		break;
	case SCTP_KMSG_LOST:
		fk_lost(fk, NULL, true);
		break;
	case SCTP_KMSG_BAD:
	default:
		fk_lost(fk, &fk_err_bad, false);
		break;
	}
}

/* Read the association's socket (first what iwcmd read of it). */
static bool fk_rx_progress(struct framing *fr, size_t budget)
{
	struct framing_ksctp *fk = fk_of(fr);
	bool any = false;

	while (budget && !fk->lost) {
		int k, i;

		if (fk->ho && fk->ho_next < fk->ho->n) {
			struct fs_unread *u = &fk->ho->msg[fk->ho_next++];

			any = true;
			fk_data(fk, u->stream, u->ppid, true, u->buf, u->len);
			continue;
		}
		for (i = 0; i < FK_RX_BATCH; i++) {
			struct msghdr *mh = &fk->rxmm[i].msg_hdr;

			fk->rxiov[i].iov_base =
				fk->rxbuf + (size_t)i * fk->rxcap;
			fk->rxiov[i].iov_len = fk->rxcap;
			memset(mh, 0, sizeof(*mh));
			mh->msg_iov = &fk->rxiov[i];
			mh->msg_iovlen = 1;
			mh->msg_control = fk->rxctl[i];
			mh->msg_controllen = sizeof(fk->rxctl[i]);
		}
		k = recvmmsg(fk->fd, fk->rxmm, FK_RX_BATCH, MSG_DONTWAIT, NULL);
		if (k < 0 &&
		    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
			break;
		any = true;
		if (k < 0) {
			fk_lost(fk, NULL, true); /* ECONNRESET and the like */
			break;
		}
		for (i = 0; i < k && !fk->lost; i++) {
			size_t n = fk->rxmm[i].msg_len;

			budget -= budget < n ? budget : n;
			fk_rx_one(fk, &fk->rxmm[i].msg_hdr, n);
		}
		if (k < FK_RX_BATCH)
			break; /* emptied: the poll says when more comes */
	}
	return any;
}

static bool fk_rx_buffered(const struct framing *fr)
{
	const struct framing_ksctp *fk = fk_of(fr);

	return fk->ho && fk->ho_next < fk->ho->n;
}

static void fk_free(struct framing *fr)
{
	struct framing_ksctp *fk = fk_of(fr);

	fs_txq_drop(fr, &fk->txq);
	sctp_kseq_fini(&fk->seq);
	fs_handoff_free(fk->ho);
	free(fk->msg_iov);
	free(fk->rxbuf);
	free(fk);
}

static const struct framing_ops framing_ddp_sctp_kernel_ops = {
	.name = "ddp_sctp_kernel",
	.tx_segment = fk_tx_segment,
	.tx_flush = fk_tx_flush,
	.tx_drop = fk_tx_drop,
	.tx_detach = fk_tx_detach,
	.tx_ready = fk_tx_ready,
	.rx_progress = fk_rx_progress,
	.rx_buffered = fk_rx_buffered,
	.tx_close = fk_tx_close,
	.free = fk_free,
};

/* DDP over SCTP on the association's own socket (see framing.h). */
struct framing *framing_ddp_sctp_kernel_new(int fd,
					    const struct iwcm_conn *conn,
					    const struct framing_upcalls *up,
					    void *arg, size_t max_iov)
{
	const struct fs_handoff *ho = conn->sctp_handoff;
	size_t maxseg = conn->sctp_max_segment;
	struct framing_ksctp *fk;

	/* RFC 5043 §9: at least 516 octets; a DDP header must fit */
	if (fd < 0 || !ho || maxseg < 64 || maxseg > 0xffff || max_iov == 0) {
		errno = EINVAL;
		return NULL;
	}
	fk = calloc(1, sizeof(*fk));
	if (!fk)
		return NULL;
	fk->fr.ops = &framing_ddp_sctp_kernel_ops;
	fk->fr.up = up;
	fk->fr.arg = arg;
	fk->fr.mulpdu = (uint16_t)maxseg;
	fk->fd = fd;
	fk->txq.max_iov = max_iov;
	sctp_kseq_init(&fk->seq, conn->initiator, conn->enhanced,
		       conn->sctp_stream, ho->tx_ssn, ho->rx_ssn);
	fk->snd_len = sctp_kmsg_sndinfo(fk->snd, sizeof(fk->snd),
					conn->sctp_stream,
					SCTP_PPID_DDP_SEGMENT);
	/* a segment and its DDP-SSN, or a control message, whole; one
	 * octet more shows a larger one as a part (no MSG_EOR) */
	fk->rxcap = 2 + maxseg < SCTP_SS_MSG_MAX ? SCTP_SS_MSG_MAX : 2 + maxseg;
	fk->rxcap++;
	fk->msg_iov = calloc(max_iov + 1, sizeof(*fk->msg_iov));
	fk->rxbuf = malloc(FK_RX_BATCH * fk->rxcap);
	if (!fk->msg_iov || !fk->rxbuf || !fk->snd_len) {
		free(fk->msg_iov);
		free(fk->rxbuf);
		free(fk);
		errno = ENOMEM;
		return NULL;
	}
	fk->ho = conn->sctp_handoff; /* the caller lets go of it */
	return &fk->fr;
}

#else

struct framing *framing_ddp_sctp_kernel_new(int fd,
					    const struct iwcm_conn *conn,
					    const struct framing_upcalls *up,
					    void *arg, size_t max_iov)
{
	(void)fd;
	(void)conn;
	(void)up;
	(void)arg;
	(void)max_iov;
	errno = ENOTSUP;
	return NULL;
}

#endif
