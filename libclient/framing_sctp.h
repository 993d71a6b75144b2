/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_FRAMING_SCTP_H
#define IWCM_LIBCLIENT_FRAMING_SCTP_H

/*
 * What the two framings of DDP over SCTP (RFC 5043) share
 * (framing_sctp.c): the transmit queue of whole segments, each written as
 * one message or not at all, and the delivery of one received segment to
 * RDMAP/DDP.  framing_ddp_sctp.c writes through iwcmd's relay,
 * framing_ddp_sctp_kernel.c on the association's own socket.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "framing.h"

struct fs_seg {
	void *cookie;
	size_t n;      /* iovecs */
	size_t len;    /* octets */
	uint8_t *copy; /* the whole segment once detached, else NULL */
	struct iovec iov[];
};

/* The queue of segments not yet written, FRAMING_TX_QUEUE at most. */
struct fs_txq {
	struct fs_seg *q[FRAMING_TX_QUEUE];
	unsigned int head;
	size_t max_iov;
};

/* Queue one segment of fr (fr->tx_queued counts); -1 with errno. */
int fs_txq_add(struct framing *fr, struct fs_txq *t, const struct iovec *iov,
	       size_t n, void *cookie);
/* The segment at the head, or NULL. */
struct fs_seg *fs_txq_head(const struct framing *fr, const struct fs_txq *t);
/* Fill iov (at least max_iov + off entries) with the head segment's
 * pieces from iov[off]; returns the count of entries used. */
size_t fs_txq_iov(const struct fs_seg *s, struct iovec *iov, size_t off);
/* The head segment is on the wire: its cookie goes back, it is freed. */
void fs_txq_done(struct framing *fr, struct fs_txq *t);
/* Forget every queued segment. */
void fs_txq_drop(struct framing *fr, struct fs_txq *t);
/* Queued segments pointing into [addr, +len) gather their octets. */
int fs_txq_detach(struct framing *fr, struct fs_txq *t, const uint8_t *addr,
		  size_t len);
/* The state iwcmd handed over with an association's own socket (the
 * Established event's SctpHandoff): DDP-SSNs, and the peer's messages
 * it read after the Accept (each whole, DDP-SSN first). */
struct fs_unread {
	uint16_t stream;
	uint32_t ppid;
	size_t len;
	uint8_t *buf;
};
struct fs_handoff {
	uint16_t tx_ssn, rx_ssn;
	unsigned int n;
	struct fs_unread *msg;
};
#define FS_HANDOFF_MAX 256 /* messages, as iwcmd keeps at most */

void fs_handoff_free(struct fs_handoff *h);
struct Iwcm__SctpHandoff;
/*
 * The Established event's SctpHandoff, checked (DDP-SSNs of 16 bits, at
 * most FS_HANDOFF_MAX messages, each of 2 to maxseg + 2 octets on a
 * 16-bit stream) and copied; NULL with errno (EPROTO, ENOMEM).
 */
struct fs_handoff *fs_handoff_from_pb(const struct Iwcm__SctpHandoff *pb,
				      size_t maxseg);

/* One whole received segment to RDMAP/DDP (header, placement, end). */
void fs_deliver(struct framing *fr, const uint8_t *seg, size_t len);

#endif
