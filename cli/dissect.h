/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_DISSECT_H
#define IWCM_CLI_DISSECT_H

/*
 * Per-connection MPA/DDP/RDMAP stream dissector.  It is fed the two byte
 * streams of one TCP connection (side 0 = A->B, side 1 = B->A), each in
 * order and split anywhere, and reports through an out_sink: the MPA
 * Request, Reply and RtR frames, the negotiated parameters, every FPDU with
 * its DDP and RDMAP headers, and every gap or damaged PDU.  All buffering
 * is bounded; damage stops the affected direction, never the program.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "output.h"

/* Cap on bytes held for a direction while the peer's frame is missing. */
#define DISSECT_PEND_MAX (256u * 1024u)

/* Counters shared by every connection of one input. */
struct dissect_stats {
	unsigned long conns;
	unsigned long frames;
	unsigned long fpdus;
	unsigned long crc_bad;
	unsigned long marker_bad;
	unsigned long malformed;
	unsigned long errors;
	/* SCTP (dissect_sctp.h) */
	unsigned long sctp_packets;
	unsigned long assocs;
	unsigned long sctp_crc_bad;
	unsigned long ss_msgs;
	unsigned long ddp_segments;
};

struct dissect;

/*
 * Create a dissector for connection number conn between endpoints a and b
 * (copied) and report it to out.  initiator_side is 0 or 1 when the caller
 * knows which side is the MPA initiator without seeing a Request (hex
 * input), -1 otherwise.  NULL on allocation failure.
 */
struct dissect *dissect_new(struct out_sink *out, struct dissect_stats *st,
			    unsigned int conn, const char *a, const char *b,
			    int initiator_side);

/* Feed len in-order bytes of side (0 or 1). */
void dissect_data(struct dissect *d, int side, const uint8_t *buf, size_t len);

/* Tell the dissector that missing bytes are lost before the next data. */
void dissect_gap(struct dissect *d, int side, uint64_t missing);

/* End of input: report PDUs left incomplete and the per-connection counts. */
void dissect_end(struct dissect *d);

/* Free a dissector (dissect_end() first to get its final report). */
void dissect_free(struct dissect *d);

/* Report an event for this connection and count it when bad. */
void dissect_event(struct dissect *d, int side, enum out_ev kind, bool bad,
		   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
