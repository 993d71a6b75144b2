/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_SYNTH_H
#define IWCM_LIBCLIENT_SYNTH_H

/*
 * Test hook, internal to the source tree: never installed, never exported
 * from libiwcm.so.  Tests link libclient/libiwcm_core.la (the objects
 * libiwcm.so is made of) and build an ESTABLISHED connection over any
 * stream socket without a daemon, with the negotiated state they choose,
 * then run the datapath of <iwcm/verbs.h> on it.
 */
#include <stddef.h>
#include <stdint.h>

#include <iwcm/iwcm.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The negotiated state a handoff from iwcmd would carry (DESIGN.md
 * "Handoff state"); see struct iwcm_conn_attr.
 */
struct iwcm_synth {
	int initiator; /* 1: this end sent the MPA Request */
	int mpa_rev;   /* 0, 1 or 2 */
	int version;   /* DDP and RDMAP version, 0 or 1 */
	int markers_tx, markers_rx, crc;
	uint32_t ird, ord;
	uint64_t tx_offset, rx_offset; /* FPDU-mode octets already moved */
	uint32_t next_msn[4];	       /* the RTR direction's next MSN, QN 0-3
				 * (0 means 1); the other direction
				 * starts at 1 */
	const void *unread; /* octets read past the handshake (copied) */
	size_t unread_len;
	int wait_first_fpdu; /* MPA v1 responder fencing */
	/* initiator: a Read RTR's zero-length Response still due, to
	 * this sink (RFC 6581 §9.2) */
	int rtr_read_due;
	uint32_t rtr_read_stag;
	uint64_t rtr_read_to;
	int atomics, imm_data; /* RFC 7306 extensions (version 1 only) */
	/* DDP over SCTP (RFC 5043): fd is a SEQPACKET relay fd of the
	 * session on sctp_stream, segments up to sctp_max_segment octets;
	 * no markers, no CRC */
	int sctp;
	uint32_t sctp_stream;
	uint32_t sctp_max_segment;
};

/*
 * A context with no daemon: the CM calls fail with ECONNRESET, the verbs
 * work.  flags as for iwcm_ctx_open().  NULL with errno EINVAL or ENOMEM.
 */
struct iwcm_ctx *iwcm_ctx_new_detached(unsigned int flags);

/*
 * An ESTABLISHED connection of ctx over fd (consumed, also on failure),
 * e.g. one end of socketpair(AF_UNIX, SOCK_STREAM) or of a TCP
 * connection, ready for iwcm_create_qp().  Freed with iwcm_conn_free()
 * or with the context.  NULL with errno EINVAL (bad argument or field
 * out of range) or ENOMEM.
 */
struct iwcm_conn *iwcm_conn_synth(struct iwcm_ctx *ctx, int fd,
				  const struct iwcm_synth *st);

#ifdef __cplusplus
}
#endif

#endif
