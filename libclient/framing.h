/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_FRAMING_H
#define IWCM_LIBCLIENT_FRAMING_H

/*
 * The framing below RDMAP/DDP (DESIGN.md "Layers"): what carries whole
 * DDP segments over a transport.  MPA over TCP (framing_mpa_tcp.c: stream
 * offsets, Markers, CRC, pad, the staging of small segments) is the first;
 * DDP over SCTP (one segment per message, RFC 5043 §5.2.2) comes next.
 * Only a framing knows its transport.
 *
 * Transmit: RDMAP/DDP hands over one segment at a time as iovecs (the
 * DDP/RDMAP header first, then payload pieces in registered memory) with
 * a cookie; the framing adds what its transport needs around them without
 * copying the payload, writes, and gives the cookie back through
 * tx_done() once the segment is wholly on the wire.
 *
 * Receive: for each segment the framing calls back rx_hdr_len() until it
 * holds the whole DDP/RDMAP header, then rx_hdr(), after which RDMAP/DDP
 * says where each run of payload goes (rx_iov(): iovecs into the target,
 * or none to drop it), and last rx_end() with the framing's verdict.
 * Payload may be placed before the verdict (RFC 5041 §5: placement before
 * validation); nothing is delivered before it, and a segment that fails
 * the framing's checks (CRC, Markers) is never delivered in any form.
 *
 * Everything runs under the QP's lock, in the thread that progresses it.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

struct iwcm_conn;
struct framing;

/* A framing's own error: a Terminate of layer LLP (RFC 5040 §4.8). */
struct framing_err {
	uint8_t etype;
	uint8_t ecode;
};

/* What RDMAP/DDP does for the framing; arg is framing.arg. */
struct framing_upcalls {
	/* Of a seg_len-octet segment, hdr holds the first have octets: how
	 * many header octets are wanted in all (have when complete). */
	size_t (*rx_hdr_len)(void *arg, const uint8_t *hdr, size_t have,
			     size_t seg_len);
	/* The header (hlen octets, hlen <= seg_len) is in: check it. */
	void (*rx_hdr)(void *arg, const uint8_t *hdr, size_t hlen,
		       size_t seg_len);
	/* Where payload octets [off, off + len) go: iovecs covering a
	 * prefix of them (count); 0 drops the rest of the payload. */
	int (*rx_iov)(void *arg, size_t off, size_t len, struct iovec *iov,
		      int cap);
	/* The segment ended; err is NULL when the framing vouches for it. */
	void (*rx_end)(void *arg, const struct framing_err *err);
	/* The receive direction is lost: err NULL for an orderly end (reset
	 * false) or a reset of the transport (reset true), else why the
	 * framing gave up. */
	void (*rx_lost)(void *arg, const struct framing_err *err, bool reset);
	/* Is RDMAP/DDP still interpreting segments (RFC 5041 §7.1: after
	 * an error, later segments are dropped unseen)? */
	bool (*rx_live)(void *arg);
	/* The segment queued with cookie is wholly on the wire. */
	void (*tx_done)(void *arg, void *cookie);
};

/* A framing's operations (struct proto / fi_ops style). */
struct framing_ops {
	const char *name;
	/* Queue one segment: iov[0] the headers, then payload pieces, at
	 * most mulpdu octets in all; -1 with errno (ENOBUFS: queue full). */
	int (*tx_segment)(struct framing *fr, const struct iovec *iov, size_t n,
			  void *cookie);
	/* Write what is queued: 0 when all is out, -1 with errno (EAGAIN:
	 * the transport is full, wait until it is writable). */
	int (*tx_flush)(struct framing *fr);
	/* Forget queued segments not begun on the wire, and with begun
	 * also the one begun (nothing more is written); returns how many
	 * remain queued (a begun one stays whole unless begun). */
	unsigned int (*tx_drop)(struct framing *fr, bool begun);
	/* Memory [addr, +len) goes away: copy what queued segments not all
	 * sent still point to there; -1 with errno. */
	int (*tx_detach)(struct framing *fr, const uint8_t *addr, size_t len);
	/* May segments go out yet?  (RFC 5044 §7.1.2 rule 4: an MPA v1
	 * responder sends nothing before the first FPDU arrived.) */
	bool (*tx_ready)(const struct framing *fr);
	/* Read what the transport has and call back; false when nothing at
	 * all was there. */
	bool (*rx_progress)(struct framing *fr, size_t budget);
	/* Octets received before the handoff wait to be read. */
	bool (*rx_buffered)(const struct framing *fr);
	/* Our graceful close begins (before the transport's FIN): what the
	 * framing itself sends first (DDP over SCTP on the association's
	 * socket: the session's Terminate, RFC 5043 §6.2); may be NULL. */
	void (*tx_close)(struct framing *fr);
	void (*free)(struct framing *fr);
};

struct framing {
	const struct framing_ops *ops;
	const struct framing_upcalls *up;
	void *arg;
	/* The largest segment the framing carries (RFC 5044 §4.5 MULPDU,
	 * RFC 5043 §5.1 for SCTP). */
	uint16_t mulpdu;
	unsigned int tx_queued; /* segments not all written */
};

/* Queue a segment (see struct framing_ops). */
static inline int framing_tx_segment(struct framing *fr,
				     const struct iovec *iov, size_t n,
				     void *cookie)
{
	return fr->ops->tx_segment(fr, iov, n, cookie);
}

/* Capacity of a framing's transmit queue, in segments. */
#define FRAMING_TX_QUEUE 16

/* ---- framing_mpa_tcp.c ---- */

/*
 * MPA (RFC 5044) over the TCP socket fd of conn: its Markers, CRC and
 * stream offsets from the handoff, and the octets the daemon read past
 * the handshake first; segments of at most max_iov iovecs.  NULL with
 * errno.
 */
struct framing *framing_mpa_tcp_new(int fd, const struct iwcm_conn *conn,
				    const struct framing_upcalls *up, void *arg,
				    size_t max_iov);

/* ---- framing_ddp_sctp.c ---- */

/*
 * DDP over SCTP (RFC 5043) on the SEQPACKET relay fd iwcmd handed over
 * for the session on stream: one segment per datagram, at most maxseg
 * octets (the Established event's max_segment) and max_iov iovecs.  NULL
 * with errno.
 */
struct framing *framing_ddp_sctp_new(int fd, uint16_t stream, size_t maxseg,
				     const struct framing_upcalls *up,
				     void *arg, size_t max_iov);

/* ---- framing_ddp_sctp_kernel.c ---- */

/*
 * DDP over SCTP (RFC 5043) on fd, the association's own kernel SCTP
 * socket iwcmd handed over with the session's state (conn's SctpHandoff):
 * one segment per message with the session's stream, its DDP-SSN and PPID
 * 16, unordered; received messages put back in DDP-SSN order, the peer's
 * Terminate and the association's end reported as the transport's.  NULL
 * with errno (ENOTSUP where the build has no kernel SCTP).
 */
struct framing *framing_ddp_sctp_kernel_new(int fd,
					    const struct iwcm_conn *conn,
					    const struct framing_upcalls *up,
					    void *arg, size_t max_iov);

#endif
