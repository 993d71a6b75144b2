/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_RDMAP_H
#define IWCM_RDMAP_H

/*
 * RDMAP messages (RFC 5040) with the RFC 7306 extensions and the seed-004
 * draft's Swap atomic, on top of DDP headers (ddp.h).  A parsed message is
 * a DDP header, the RDMAP control field, the opcode's own header and the
 * payload that follows.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ddp.h"
#include "wire_err.h"

/* RDMAP control octet (RFC 5040 §4.1): RV(2) Rsvd(2) Opcode(4). */
#define RDMAP_RV_SHIFT 6
#define RDMAP_RV_MASK 0xC0
#define RDMAP_CTRL_RSVD_MASK 0x30
#define RDMAP_OPCODE_MASK 0x0F

#define RDMAP_VERSION_RDMAC 0
#define RDMAP_VERSION_IETF 1

enum rdmap_opcode {
	RDMAP_WRITE = 0x0,
	RDMAP_READ_REQ = 0x1,
	RDMAP_READ_RESP = 0x2,
	RDMAP_SEND = 0x3,
	RDMAP_SEND_INV = 0x4,
	RDMAP_SEND_SE = 0x5,
	RDMAP_SEND_SE_INV = 0x6,
	RDMAP_TERMINATE = 0x7,
	RDMAP_IMM_DATA = 0x8,	 /* RFC 7306 §6 */
	RDMAP_IMM_DATA_SE = 0x9, /* RFC 7306 §6 */
	RDMAP_ATOMIC_REQ = 0xA,	 /* RFC 7306 §5.2.1 */
	RDMAP_ATOMIC_RESP = 0xB, /* RFC 7306 §5.2.2 */
	RDMAP_OPCODE_MAX = 0xF,
};

/* RFC 7306 §5.2.1 Figure 5; Swap is the seed draft's (004 §5.1.2). */
enum rdmap_aopcode {
	RDMAP_AOP_FETCHADD = 0x0,
	RDMAP_AOP_SWAP = 0x1, /* draft only; RFC 7306: reserved */
	RDMAP_AOP_CMPSWAP = 0x2,
};

#define RDMAP_READ_REQ_LEN 28	 /* RFC 5040 §4.4 */
#define RDMAP_IMM_DATA_LEN 8	 /* RFC 7306 §6.2 */
#define RDMAP_ATOMIC_REQ_LEN 52	 /* RFC 7306 §5.2.1 Figure 4 */
#define RDMAP_ATOMIC_RESP_LEN 12 /* RFC 7306 §5.2.2 Figure 6 */
#define RDMAP_TERM_CTRL_LEN 4	 /* RFC 5040 §4.8 */
#define RDMAP_TERM_MAX_LEN (4 + 2 + DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN)

struct rdmap_read_req {
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size;
	uint32_t src_stag;
	uint64_t src_to;
};

struct rdmap_atomic_req {
	uint32_t rsvd;	 /* 28 reserved bits, as received */
	uint8_t aopcode; /* enum rdmap_aopcode */
	uint32_t req_id;
	uint32_t stag;
	uint64_t to;
	uint64_t add_swap;
	uint64_t add_swap_mask;
	uint64_t cmp;
	uint64_t cmp_mask;
};

struct rdmap_atomic_resp {
	uint32_t req_id;
	uint64_t orig;
};

/* Terminate Control (RFC 5040 §4.8 Figure 8). */
#define RDMAP_TERM_LAYER_RDMAP 0x0
#define RDMAP_TERM_LAYER_DDP 0x1
#define RDMAP_TERM_LAYER_LLP 0x2

#define RDMAP_TERM_HDRCT_M 0x4 /* DDP Segment Length valid */
#define RDMAP_TERM_HDRCT_D 0x2 /* DDP header included */
#define RDMAP_TERM_HDRCT_R 0x1 /* RDMA (Read Request) header included */
#define RDMAP_TERM_HDRCT_MASK 0x7
#define RDMAP_TERM_LAYER_MAX 0xF /* Layer and EType are 4 bits */

/* Layer 0 error types / codes (RFC 5040 §4.8 Figure 9). */
#define RDMAP_ETYPE_CATASTROPHIC 0x0
#define RDMAP_ETYPE_REMOTE_PROT 0x1
#define RDMAP_ETYPE_REMOTE_OP 0x2
#define RDMAP_ECODE_INVALID_STAG 0x00
#define RDMAP_ECODE_BASE_BOUNDS 0x01
#define RDMAP_ECODE_ACCESS 0x02
#define RDMAP_ECODE_STAG_NOT_ASSOC 0x03
#define RDMAP_ECODE_TO_WRAP 0x04
#define RDMAP_ECODE_INVALID_VERSION 0x05
#define RDMAP_ECODE_UNEXPECTED_OP 0x06
#define RDMAP_ECODE_CATASTROPHIC_STREAM 0x07
#define RDMAP_ECODE_CATASTROPHIC_GLOBAL 0x08
#define RDMAP_ECODE_CANT_INVALIDATE 0x09
#define RDMAP_ECODE_UNSPECIFIED 0xFF

/* Layer 2 (LLP = MPA) type 0 codes: RFC 5044 §8 (1-4), RFC 6581 §8 (5-7). */
#define MPA_ETYPE_MPA 0x0
#define MPA_ECODE_CLOSED 0x01
#define MPA_ECODE_CRC 0x02
#define MPA_ECODE_MARKER 0x03
#define MPA_ECODE_BAD_FRAME 0x04
#define MPA_ECODE_LOCAL_CATASTROPHIC 0x05
#define MPA_ECODE_INSUFFICIENT_IRD 0x06
#define MPA_ECODE_NO_MATCHING_RTR 0x07

/*
 * A Terminate header (RFC 5040 §4.8 Figure 7).  On the wire: Terminate
 * Control (19 bits) + 13 reserved bits, then the 16-bit DDP Segment Length
 * when M or D is set, the Terminated DDP Header (14 or 18 octets, by its
 * own T bit) when D is set, the 28-octet Terminated RDMA Header when R is
 * set.  Fields whose HdrCt bit is clear are zero after parsing and are
 * ignored by the builder; the reserved bits are ignored on receive and
 * sent as zero.
 */
struct rdmap_term {
	uint8_t layer; /* RDMAP_TERM_LAYER_* (4 bits) */
	uint8_t etype; /* 4 bits */
	uint8_t ecode;
	uint8_t hdrct;	      /* RDMAP_TERM_HDRCT_* */
	uint16_t ddp_seg_len; /* present when M or D, valid when M */
	bool has_ddp_seg_len; /* set by the parser: M or D */
	/* Terminated DDP header, raw (14 or 18 octets) when D */
	uint8_t ddp_hdr[DDP_UNTAGGED_HDR_LEN];
	size_t ddp_hdr_len; /* 0 without D */
	/* Terminated RDMA header (a Read Request header) when R */
	uint8_t rdma_hdr[RDMAP_READ_REQ_LEN];
};

/* One parsed RDMAP message (one DDP segment). */
struct rdmap_msg {
	struct ddp_hdr ddp;
	uint8_t rv;	   /* RDMAP version */
	uint8_t ctrl_rsvd; /* the 2 reserved control bits, as received */
	uint8_t opcode;	   /* enum rdmap_opcode */
	union {
		struct rdmap_read_req read_req;
		struct rdmap_atomic_req atomic_req;
		struct rdmap_atomic_resp atomic_resp;
		struct rdmap_term term;
		uint8_t imm[RDMAP_IMM_DATA_LEN]; /* big-endian value */
	} u;
	uint32_t inv_stag;	/* Send with Invalidate variants, else 0 */
	const uint8_t *payload; /* data after all headers (points in buf) */
	size_t payload_len;
};

/*
 * Parse a whole ULPDU (DDP segment) as RDMAP.  Checks the header and the
 * opcode's required layout: tagged vs untagged per opcode, the QN each
 * untagged opcode must use, exact lengths (Read Request 28, Immediate Data
 * exactly 8, Atomic Request 52, Atomic Response 12), a Terminate's HdrCt
 * and lengths.  Returns WIRE_EOPCODE for an unknown opcode or a
 * tagged/untagged/QN mismatch, WIRE_ELEN for a bad length.  RV and DV are
 * returned, not checked (the caller knows the negotiated version).
 *
 * len is the whole segment: WIRE_ESHORT only when it is shorter than the
 * DDP header; once the header is complete a length the opcode does not
 * allow is WIRE_ELEN.  An opcode with its own header (Read Request,
 * Terminate, Immediate Data, atomics) must be a single segment: L clear is
 * WIRE_EFLAGS, MO other than 0 is WIRE_ELEN.  Opcodes 0xC-0xF are
 * WIRE_EOPCODE.  A Terminate carries no ULP data, but octets after the
 * headers its HdrCt announces (a peer may send the "zeroed" header fields
 * of RFC 5040 §7.1 / RFC 7306 §8.1 with HdrCt clear) are accepted and
 * returned as payload.  Any AOpCode is returned, supported or not (RFC
 * 7306 §5.2.1 rule 4 makes that the responder's check).
 */
enum wire_err rdmap_msg_parse(const uint8_t *buf, size_t len,
			      struct rdmap_msg *out);

/*
 * Build the headers of m (DDP + RDMAP + opcode header) into buf; the
 * payload is not copied (*written is the header length).  The caller sets
 * m->ddp fields and m->rv; the control octet comes from rv and opcode,
 * the RDMAP reserved bits are sent as zero, and the untagged RsvdULP
 * word is m->inv_stag for the Send with Invalidate variants and zero
 * otherwise (RFC 5040 §4.1).  WIRE_EINVAL for what rdmap_msg_parse would
 * reject: an unknown opcode, rv above 3, the wrong T bit or QN, or an
 * opcode header in a segment with L clear or MO not 0.
 */
enum wire_err rdmap_hdr_build(const struct rdmap_msg *m, uint8_t *buf,
			      size_t cap, size_t *written);

/*
 * Individual opcode headers, for callers that assemble segments.  The
 * parsers read the header at the start of buf (more octets may follow)
 * and return WIRE_ESHORT when len is shorter; the fixed-size builders
 * write exactly RDMAP_READ_REQ_LEN, RDMAP_ATOMIC_REQ_LEN or
 * RDMAP_ATOMIC_RESP_LEN octets or return WIRE_ENOSPC.  Reserved bits are
 * kept when parsed and sent as zero; an AOpCode above 0xF is WIRE_EINVAL.
 */
enum wire_err rdmap_read_req_parse(const uint8_t *buf, size_t len,
				   struct rdmap_read_req *out);
enum wire_err rdmap_read_req_build(const struct rdmap_read_req *r, uint8_t *buf,
				   size_t cap);
enum wire_err rdmap_atomic_req_parse(const uint8_t *buf, size_t len,
				     struct rdmap_atomic_req *out);
enum wire_err rdmap_atomic_req_build(const struct rdmap_atomic_req *r,
				     uint8_t *buf, size_t cap);
enum wire_err rdmap_atomic_resp_parse(const uint8_t *buf, size_t len,
				      struct rdmap_atomic_resp *out);
enum wire_err rdmap_atomic_resp_build(const struct rdmap_atomic_resp *r,
				      uint8_t *buf, size_t cap);
enum wire_err rdmap_term_parse(const uint8_t *buf, size_t len,
			       struct rdmap_term *out, size_t *used);
enum wire_err rdmap_term_build(const struct rdmap_term *t, uint8_t *buf,
			       size_t cap, size_t *written);

/*
 * RFC 5040 §4.8 Figure 10 header-copy rules: which of the offending
 * segment's headers a Terminate of (layer, etype) carries, given the
 * offending message's opcode.  Returns RDMAP_TERM_HDRCT_* bits: M|D for
 * RDMAP Remote Protection and Remote Operation errors and for DDP Tagged
 * and Untagged Buffer errors, plus R for a Remote Protection error on a
 * Read Request; nothing for Local Catastrophic errors, LLP errors or
 * unknown types.  R is never set for the RFC 7306 messages (§8.1).
 */
uint8_t rdmap_term_hdrct(uint8_t layer, uint8_t etype, uint8_t opcode);

/*
 * Fill t for an error on the inbound segment seg (its raw bytes, seg_len
 * long, may be NULL for a locally detected error): sets HdrCt by
 * rdmap_term_hdrct() and copies the DDP header / Read Request header as
 * RFC 5040 §4.8 and RFC 7306 §8.1 require (never the atomic header).
 * seg is the whole segment: seg_len becomes the DDP Segment Length.  A
 * header that cannot be copied (seg NULL or too short) is left out with
 * its HdrCt bit ("Yes, if possible", Figure 10); M is cleared when
 * seg_len does not fit 16 bits.
 */
void rdmap_term_fill(struct rdmap_term *t, uint8_t layer, uint8_t etype,
		     uint8_t ecode, const uint8_t *seg, size_t seg_len);

/* Expected DDP placement of an opcode: 1 tagged, 0 untagged, -1 unknown. */
int rdmap_opcode_tagged(uint8_t opcode);
/* Untagged QN an opcode must use, or -1. */
int rdmap_opcode_qn(uint8_t opcode);

/* Names for printing (never NULL). */
const char *rdmap_opcode_name(uint8_t opcode);
const char *rdmap_aopcode_name(uint8_t aopcode);
const char *rdmap_term_layer_name(uint8_t layer);
const char *rdmap_term_etype_name(uint8_t layer, uint8_t etype);
const char *rdmap_term_ecode_name(uint8_t layer, uint8_t etype, uint8_t ecode);

#endif
