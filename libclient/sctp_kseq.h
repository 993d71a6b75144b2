/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_SCTP_KSEQ_H
#define IWCM_LIBCLIENT_SCTP_KSEQ_H

/*
 * One DDP Stream Session (RFC 5043) carried on by its owner after iwcmd
 * handed it the association's socket: the DDP-SSNs both ways (§5.2.1),
 * the peer's messages put back in DDP-SSN order (every message is
 * unordered, §5), and the session control the owner still meets: the
 * peer's Terminate (§6.2), an Initiate on another stream (answered with
 * a Terminate, a non-ULP rejection, §6.4).  Pure: no I/O, no logging.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sctp_ss.h"

/* As many messages wait ahead of their turn as in iwcmd (sctp_session.c):
 * a lost packet's retransmission may trail a whole receive window. */
#define SCTP_KSEQ_HOLD 256
#define SCTP_KSEQ_HOLD_BYTES (256 * 1024)

struct sctp_kseq_held {
	uint8_t *buf; /* NULL: the slot is free */
	size_t len;
	uint32_t ppid;
	uint16_t ssn;
};

struct sctp_kseq {
	struct sctp_ss_seq seq;
	unsigned int tx_dir; /* sctp_ss_seq's direction of ours */
	uint16_t stream;
	struct sctp_kseq_held held[SCTP_KSEQ_HOLD]; /* by DDP-SSN % 256 */
	unsigned int n_held;
	size_t held_bytes;
	uint8_t *cur; /* the held message last given back, freed next call */
};

enum sctp_kseq_verdict {
	SCTP_KSEQ_SEGMENT,   /* a DDP Segment in order: *seg, *seg_len */
	SCTP_KSEQ_HELD,	     /* ahead of its turn: kept */
	SCTP_KSEQ_TERMINATE, /* the peer's Terminate (§6.2): its direction
			      * is over */
	SCTP_KSEQ_INITIATE,  /* an Initiate on another stream: answer it
			      * with sctp_kseq_stranger_term() (§6.4) */
	SCTP_KSEQ_IGNORE,    /* not this session's, nothing to answer */
	SCTP_KSEQ_ILLEGAL,   /* no legal pattern (§6.1): the session ends */
	SCTP_KSEQ_NOMEM,
};

/*
 * Start from the handoff: our side (active: we sent the Initiate),
 * enhanced session control (RFC 6581 §7) or not, the stream, our next
 * DDP-SSN and the peer's.
 */
void sctp_kseq_init(struct sctp_kseq *q, bool active, bool enhanced,
		    uint16_t stream, uint16_t tx_ssn, uint16_t rx_ssn);
void sctp_kseq_fini(struct sctp_kseq *q);

/*
 * One received user message (whole, MSG_EOR) of stream with ppid (host
 * order).  For SCTP_KSEQ_SEGMENT, *seg and *seg_len are the DDP Segment
 * (pointing into buf); held messages whose turn came follow from
 * sctp_kseq_next().
 */
enum sctp_kseq_verdict sctp_kseq_input(struct sctp_kseq *q, uint16_t stream,
				       uint32_t ppid, bool unordered,
				       const uint8_t *buf, size_t len,
				       const uint8_t **seg, size_t *seg_len);
/*
 * The held message whose turn has come, judged as sctp_kseq_input()
 * would; SCTP_KSEQ_IGNORE when there is none.  *seg stays valid until the
 * next call.
 */
enum sctp_kseq_verdict sctp_kseq_next(struct sctp_kseq *q, const uint8_t **seg,
				      size_t *seg_len);

/* Our next DDP Segment's DDP-SSN; -1 (EPROTO) when none may go now. */
int sctp_kseq_tx_peek(const struct sctp_kseq *q, uint16_t *ssn);
/* It went out. */
void sctp_kseq_tx_done(struct sctp_kseq *q);
/*
 * Our Terminate (§6.2) into buf (4 octets): 0, or -1 (EALREADY: our
 * direction is over already; EPROTO).  On 0 the direction is over.
 */
int sctp_kseq_term(struct sctp_kseq *q, uint8_t *buf, size_t cap, size_t *len);
/* The Terminate that answers a stranger's Initiate (DDP-SSN 0, §6.4). */
int sctp_kseq_stranger_term(uint8_t *buf, size_t cap, size_t *len);
/* True once the peer's direction is over (its Terminate came). */
bool sctp_kseq_peer_done(const struct sctp_kseq *q);

#endif
