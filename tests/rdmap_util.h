/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* What the RDMAP tests (check_rdmap*.c) share. */
#ifndef IWCM_TEST_RDMAP_UTIL_H
#define IWCM_TEST_RDMAP_UTIL_H

#include "common.h"

#include "rdmap.h"

#define MAXB 512

/* DDP headers of the vectors (RFC 5041 §4). */
#define H_SEND(msn) "41 43 00000000 00000000 " msn " 00000000 "
#define H_TERM "41 47 00000000 00000002 00000001 00000000 "
#define SIW_RREQ                                                 \
	"41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 " \
	"48 a3 f5 00 00 00 55 ca f5 b7 25 50 00 00 00 40 "       \
	"6a 61 00 00 00 00 55 e2 a7 df d3 70"
#define SIW_RTR "c1 40 00 00 00 01 00 00 00 00 00 00 00 00"
#define SIW_WRITE_HDR "c1 40 50 0f 6a 00 00 00 55 e2 a7 df d5 50"
#define ATOMIC_FA_HDR "41 4a 00000000 00000001 00000001 00000000 "
#define ATOMIC_FA                                                     \
	ATOMIC_FA_HDR "00000000 00000007 11223344 00000000 00001000 " \
		      "00000000 00000001 00000000 00000000 "          \
		      "00000000 00000000 ffffffff ffffffff"
#define IMM_DATA                                     \
	"41 48 00000000 00000000 00000001 00000000 " \
	"01 02 03 04 05 06 07 08"

#define UNT(ulp8, q, m, o)            \
	.ddp = { .last = true,        \
		 .dv = 1,             \
		 .rsvd_ulp8 = (ulp8), \
		 .qn = (q),           \
		 .msn = (m),          \
		 .mo = (o) }

size_t hex(const char *s, uint8_t *out);
uint8_t *dup_exact(const uint8_t *p, size_t n);
void assert_term_eq(const struct rdmap_term *a, const struct rdmap_term *b);
void assert_msg_eq(const struct rdmap_msg *a, const struct rdmap_msg *b);

#endif /* IWCM_TEST_RDMAP_UTIL_H */
