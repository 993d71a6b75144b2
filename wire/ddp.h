/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_DDP_H
#define IWCM_DDP_H

/*
 * DDP segment headers (RFC 5041 §4): tagged (14 octets) and untagged
 * (18 octets).  The 8 bits after the DDP control byte and, for untagged
 * segments, the next 32 bits are "reserved for the ULP"; RDMAP puts its
 * control byte and Invalidate STag there (rdmap.h).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wire_err.h"

#define DDP_TAGGED_HDR_LEN 14
#define DDP_UNTAGGED_HDR_LEN 18

#define DDP_FLAG_T 0x80
#define DDP_FLAG_L 0x40
#define DDP_RSVD_MASK 0x3C
#define DDP_DV_MASK 0x03

#define DDP_VERSION_RDMAC 0 /* RDMA Consortium (seed 002) */
#define DDP_VERSION_IETF 1  /* RFC 5041 */

/* Untagged queue numbers (RFC 5040 §4.1 Figure 4, RFC 7306 §10.2). */
#define DDP_QN_SEND 0
#define DDP_QN_READ_REQ 1 /* also Atomic Request (RFC 7306 §5.2) */
#define DDP_QN_TERMINATE 2
#define DDP_QN_ATOMIC_RESP 3

/*
 * A decoded DDP header.  Only the fields of the header's own model are
 * meaningful: stag/to for tagged, rsvd_ulp32/qn/msn/mo for untagged; the
 * parser zeroes the others.
 */
struct ddp_hdr {
	bool tagged;	   /* T */
	bool last;	   /* L */
	uint8_t rsvd;	   /* the 4 reserved bits, as received */
	uint8_t dv;	   /* DDP version, 2 bits */
	uint8_t rsvd_ulp8; /* first ULP-reserved octet (RDMAP control) */
	/* tagged */
	uint32_t stag;
	uint64_t to;
	/* untagged */
	uint32_t rsvd_ulp32; /* RDMAP Invalidate STag */
	uint32_t qn;
	uint32_t msn;
	uint32_t mo;
};

/* Header length for a segment whose first octet is ctrl. */
static inline size_t ddp_hdr_len(uint8_t ctrl)
{
	return (ctrl & DDP_FLAG_T) ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
}

/*
 * Parse the DDP header at buf (the start of a ULPDU).  *used is the header
 * length (14 or 18); what follows is ULP data.  WIRE_ESHORT when len is
 * shorter than the header the T bit announces.  Any DV and any reserved
 * bits are returned; the caller checks DV against the negotiated version
 * (RFC 5041 §7.2 "Invalid DDP version").
 */
enum wire_err ddp_hdr_parse(const uint8_t *buf, size_t len, struct ddp_hdr *out,
			    size_t *used);

/*
 * Build a DDP header in the model h->tagged selects; the reserved bits are
 * sent as zero whatever h->rsvd holds (RFC 5041 §4.1).  WIRE_EINVAL when
 * dv does not fit its 2 bits, WIRE_ENOSPC when cap is too small.
 */
enum wire_err ddp_hdr_build(const struct ddp_hdr *h, uint8_t *buf, size_t cap,
			    size_t *written);

/* RFC 5041 §7.2 error types and codes (Terminate Layer 1). */
#define DDP_ETYPE_CATASTROPHIC 0x0
#define DDP_ETYPE_TAGGED 0x1
#define DDP_ETYPE_UNTAGGED 0x2
#define DDP_ETYPE_RSVD_LLP 0x3

#define DDP_ECODE_CATASTROPHIC 0x00
#define DDP_ECODE_T_INVALID_STAG 0x00
#define DDP_ECODE_T_BASE_BOUNDS 0x01
#define DDP_ECODE_T_STAG_NOT_ASSOC 0x02
#define DDP_ECODE_T_TO_WRAP 0x03
#define DDP_ECODE_T_INVALID_VERSION 0x04
#define DDP_ECODE_U_INVALID_QN 0x01
#define DDP_ECODE_U_INVALID_MSN_NOBUF 0x02
#define DDP_ECODE_U_INVALID_MSN_RANGE 0x03
#define DDP_ECODE_U_INVALID_MO 0x04
#define DDP_ECODE_U_TOO_LONG 0x05
#define DDP_ECODE_U_INVALID_VERSION 0x06

#endif
