/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_SCTP_RAW_MSG_H
#define IWCM_BENCH_SCTP_RAW_MSG_H

/*
 * What the two raw SCTP baselines, on usrsctp (sctp_raw.c) and on the
 * kernel's SCTP (sctp_raw_kernel.c), share: the DDP-over-SCTP constants
 * of RFC 5043, the floor of the segment size, and what the outcome of
 * one receive call means to a loop that waits for one whole message.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

/* RFC 5043 §5.1: the DDP Adaptation Layer Indication. */
#define SRAW_ADAPT_IND_DDP 0x00000001
/* RFC 5043 §5: the PPID of a DDP Segment. */
#define SRAW_PPID_DDP 16

/* The segment size from seg, the largest message that goes unfragmented
 * (0: unknown): 1200 when unknown, never below 516 (RFC 5043 §9). */
static inline size_t sraw_seg_floor(size_t seg)
{
	if (seg == 0)
		seg = 1200;
	return seg < 516 ? 516 : seg;
}

enum sraw_rx {
	SRAW_RX_DONE,  /* a whole message of n octets: return n */
	SRAW_RX_FAIL,  /* return -1, errno set */
	SRAW_RX_AGAIN, /* nothing yet: wait for the socket */
};

/* What a receive call that returned n (its errno when n < 0) with the
 * message flags flags means: a message cut short is EMSGSIZE (RFC 5043
 * §9: a DDP Segment is one whole message), 0 is the association's end
 * (ECONNRESET). */
static inline enum sraw_rx sraw_rx_outcome(ssize_t n, int flags)
{
	if (n > 0 && !(flags & MSG_EOR)) {
		errno = EMSGSIZE;
		return SRAW_RX_FAIL;
	}
	if (n > 0)
		return SRAW_RX_DONE;
	if (n == 0) {
		errno = ECONNRESET;
		return SRAW_RX_FAIL;
	}
	return errno == EAGAIN || errno == EWOULDBLOCK ? SRAW_RX_AGAIN :
							 SRAW_RX_FAIL;
}

#endif
