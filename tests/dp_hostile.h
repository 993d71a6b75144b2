/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_DP_HOSTILE_H
#define IWCM_TESTS_DP_HOSTILE_H

/*
 * check_dp_hostile's harness (check_dp_hostile.c: the QP under attack,
 * the raw peer, the messages it sends, the checks after each case) and
 * its cases (dp_hostile_cases.c: one offending message each, and what
 * the library must answer).
 */
#include <stdbool.h>
#include <stdint.h>

#include "dp_peer.h"

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define NVAR 3
#define REGION 4096
#define CANARY 64
#define RECV_LEN 64
#define BIG_LEN (8 << 20)
#define IRD_READ (2 << 20) /* more than the library frames ahead */

/* Setup flags of a case. */
#define H_CRC_OFF 0x01	  /* no CRC (a bad marker must show) */
#define H_MARKERS 0x02	  /* markers toward the library, always */
#define H_NO_RECV 0x04	  /* no receive posted */
#define H_SNDBUF 0x08	  /* a tiny send buffer for the library */
#define H_V1 0x10	  /* RFC 7306 message: version 1 only */
#define H_HIT_RECV 0x20	  /* receive 1 is the target: any error */
#define H_TERM_RX 0x40	  /* the peer sends a Terminate */
#define H_CLOSE 0x80	  /* the peer closes mid-FPDU */
#define H_RESET 0x100	  /* ... with a reset */
#define H_TERM_ONLY 0x200 /* nothing but the Terminate comes back */

/* The peer's Terminate: layer << 16 | etype << 8 | code (vendor_err). */
#define TERM_RX_CODES                                                \
	(RDMAP_TERM_LAYER_RDMAP << 16 | RDMAP_ETYPE_REMOTE_OP << 8 | \
	 RDMAP_ECODE_UNEXPECTED_OP)

/* A region, its fill and its MR. */
struct region {
	const char *name;
	unsigned int access;
	uint8_t fill;
	size_t len;
	int other_pd;
	struct dp_buf b;
	struct iwcm_mr *mr;
	uint32_t stag;
};

enum { R_RW, R_RO, R_WO, R_NOAT, R_INV, R_OTHER, R_SINK, R_RECV, R_BIG, R_N };

extern struct dp_ep E;
extern struct dp_peer *P;
extern struct iwcm_pd *pd2;
extern struct iwcm_synth ST;
extern struct region R[R_N];
/* The offending segment, for the Terminate's copied headers. */
extern uint8_t SEG[MPA_ULPDU_MAX + 1];
extern size_t SEG_LEN;
extern bool recv1_done;	 /* the case consumed receive 1 */
extern bool read_posted; /* work request 3: a Read never answered */

static inline uint64_t va(int r, size_t off)
{
	return (uintptr_t)R[r].b.p + off;
}

/* Building offending messages (check_dp_hostile.c). */
void send_seg(const uint8_t *u, size_t n);
void send_msg(const struct rdmap_msg *m, const void *data, size_t len);
struct ddp_hdr raw_untagged(uint8_t opcode, uint32_t qn);
void send_raw(const struct ddp_hdr *h, const void *hdr, size_t hlen,
	      const void *payload, size_t plen);
void write_to(uint32_t stag, uint64_t to, size_t len);
void read_of(uint32_t stag, uint64_t to, uint32_t size);
void atomic_at(uint32_t stag, uint64_t to);
void invalidate(uint32_t stag);

/* Terminate codes: layer, etype, ecode. */
#define T(l, t, c)                                    \
	{                                             \
		RDMAP_TERM_LAYER_##l, l##_ETYPE(t), c \
	}
#define RDMAP_ETYPE(t) RDMAP_ETYPE_##t
#define DDP_ETYPE(t) DDP_ETYPE_##t
#define LLP_ETYPE(t) MPA_ETYPE_##t

struct hcase {
	const char *name;
	void (*fn)(void);
	unsigned int flags;
	uint8_t exp[2][3]; /* accepted Terminates (second: 0xFF none) */
	int untouched;	   /* a region that must keep its fill, or -1 */
};

#define NONE                     \
	{                        \
		0xFF, 0xFF, 0xFF \
	}

extern const struct hcase hostile_cases[];
extern const size_t n_hostile_cases;

#endif
