/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_VECTORS_RDMAP_MSGS_H
#define IWCM_TESTS_VECTORS_RDMAP_MSGS_H

/*
 * RDMAP messages (RFC 5040 §4, RFC 7306 §4-§8, seed 004 Swap) as whole
 * ULPDUs: from the Linux siw captures (../shared/captures) and built by
 * hand for every opcode and every Terminate layer, with the fields each
 * decodes to; and malformed layouts with their errors.  Included by
 * check_rdmap.c only.
 */
#include "rdmap.h"

struct msg_vec {
	const char *name;
	const char *hex;
	struct rdmap_msg exp; /* payload ignored */
	size_t payload_off;
	const char *term_ddp;  /* expected Terminated DDP header */
	const char *term_rdma; /* expected Terminated RDMA header */
	const char *rebuilt;   /* headers as rebuilt, when not as input */
};

static const struct msg_vec vecs[] = {
	/* siw-rping-mpa2-p2p-writertr, initiator FPDU@0: the RTR. */
	{ .name = "siw RTR: zero-length Write, STag 1",
	  .hex = SIW_RTR,
	  .exp = { .ddp = { .tagged = true,
			    .last = true,
			    .dv = 1,
			    .rsvd_ulp8 = 0x40,
			    .stag = 1 },
		   .rv = 1,
		   .opcode = RDMAP_WRITE },
	  .payload_off = 14 },
	/* same capture, responder FPDU@0. */
	{ .name = "siw Read Request",
	  .hex = SIW_RREQ,
	  .exp = { UNT(0x41, 1, 1, 0), .rv = 1, .opcode = RDMAP_READ_REQ,
		   .u.read_req = { .sink_stag = 0x48a3f500,
				   .sink_to = 0x55caf5b72550ull,
				   .size = 64,
				   .src_stag = 0x6a610000,
				   .src_to = 0x55e2a7dfd370ull } },
	  .payload_off = 46 },
	/* siw-readbw-mpa1-crc, responder FPDU@0 (CRC trailer removed). */
	{ .name = "siw readbw Read Request",
	  .hex = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00 "
		 "45 dc 8a 00 00 00 55 ab 09 04 f0 00 00 00 00 40 "
		 "92 70 c1 00 00 00 56 1e 2c 89 80 00",
	  .exp = { UNT(0x41, 1, 1, 0), .rv = 1, .opcode = RDMAP_READ_REQ,
		   .u.read_req = { .sink_stag = 0x45dc8a00,
				   .sink_to = 0x55ab0904f000ull,
				   .size = 64,
				   .src_stag = 0x9270c100,
				   .src_to = 0x561e2c898000ull } },
	  .payload_off = 46 },
	/* siw-rping-mpa2-p2p-writertr, initiator FPDU@20. */
	{ .name = "siw Send, 16 octets",
	  .hex = "41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00 "
		 "00 00 55 e2 a7 df d3 70 6a 61 00 00 00 00 00 40",
	  .exp = { UNT(0x43, 0, 1, 0), .rv = 1, .opcode = RDMAP_SEND },
	  .payload_off = 18 },
	/* same capture, initiator FPDU@60. */
	{ .name = "siw Read Response, 64 octets",
	  .hex = "c1 42 48 a3 f5 00 00 00 55 ca f5 b7 25 50 "
		 "72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43 "
		 "44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53 "
		 "54 55 56 57 58 59 5a 5b 5c 5d 5e 5f 60 61 62 63 "
		 "64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 00",
	  .exp = { .ddp = { .tagged = true,
			    .last = true,
			    .dv = 1,
			    .rsvd_ulp8 = 0x42,
			    .stag = 0x48a3f500,
			    .to = 0x55caf5b72550ull },
		   .rv = 1,
		   .opcode = RDMAP_READ_RESP },
	  .payload_off = 14 },
	/* same capture, responder FPDU@92. */
	{ .name = "siw RDMA Write, 64 octets",
	  .hex = SIW_WRITE_HDR
	  "72 64 6d 61 2d 70 69 6e 67 2d 30 3a 20 41 42 43 "
	  "44 45 46 47 48 49 4a 4b 4c 4d 4e 4f 50 51 52 53 "
	  "54 55 56 57 58 59 5a 5b 5c 5d 5e 5f 60 61 62 63 "
	  "64 65 66 67 68 69 6a 6b 6c 6d 6e 6f 70 71 72 00",
	  .exp = { .ddp = { .tagged = true,
			    .last = true,
			    .dv = 1,
			    .rsvd_ulp8 = 0x40,
			    .stag = 0x500f6a00,
			    .to = 0x55e2a7dfd550ull },
		   .rv = 1,
		   .opcode = RDMAP_WRITE },
	  .payload_off = 14 },
	/* siw-readbw-mpa1-crc, initiator FPDU@96: 2 octets (pad 2). */
	{ .name = "siw readbw Send, 2 octets",
	  .hex = "41 43 00 00 00 00 00 00 00 00 00 00 00 04 00 00 00 00 "
		 "33 00",
	  .exp = { UNT(0x43, 0, 4, 0), .rv = 1, .opcode = RDMAP_SEND },
	  .payload_off = 18 },
	/* RFC 5044 Figure 5: Send, MSN 1, 24 octets of zeros. */
	{ .name = "RFC 5044 Figure 5 Send",
	  .hex = H_SEND("00000001") "000000000000000000000000"
				    "000000000000000000000000",
	  .exp = { UNT(0x43, 0, 1, 0), .rv = 1, .opcode = RDMAP_SEND },
	  .payload_off = 18 },
	{ .name = "Send with Invalidate",
	  .hex = "41 44 12 34 56 78 00000000 00000005 00000000 aa bb",
	  .exp = { UNT(0x44, 0, 5, 0), .ddp.rsvd_ulp32 = 0x12345678, .rv = 1,
		   .opcode = RDMAP_SEND_INV, .inv_stag = 0x12345678 },
	  .payload_off = 18 },
	{ .name = "Send with SE, empty",
	  .hex = "41 45 00000000 00000000 00000006 00000000",
	  .exp = { UNT(0x45, 0, 6, 0), .rv = 1, .opcode = RDMAP_SEND_SE },
	  .payload_off = 18 },
	{ .name = "Send with SE and Invalidate",
	  .hex = "41 46 ca fe ba be 00000000 00000007 00000000 01",
	  .exp = { UNT(0x46, 0, 7, 0), .ddp.rsvd_ulp32 = 0xcafebabe, .rv = 1,
		   .opcode = RDMAP_SEND_SE_INV, .inv_stag = 0xcafebabe },
	  .payload_off = 18 },
	/* RFC 5040 §4.1: Invalidate STag ignored on a plain Send. */
	{ .name = "Send, RsvdULP word set",
	  .hex = "41 43 ff ff ff ff 00000000 00000008 00000000",
	  .exp = { UNT(0x43, 0, 8, 0), .ddp.rsvd_ulp32 = 0xffffffff, .rv = 1,
		   .opcode = RDMAP_SEND },
	  .payload_off = 18,
	  .rebuilt = "41 43 00000000 00000000 00000008 00000000" },
	/* RFC 5041 §4.3: a later segment of a Send, L clear. */
	{ .name = "Send, middle segment",
	  .hex = "01 43 00000000 00000000 00000009 00000100 5a 5a 5a",
	  .exp = { .ddp = { .dv = 1, .rsvd_ulp8 = 0x43, .msn = 9, .mo = 0x100 },
		   .rv = 1,
		   .opcode = RDMAP_SEND },
	  .payload_off = 18 },
	/* Seed 002: RDMA Consortium peer, DV 0 and RV 0. */
	{ .name = "RDMAC Send, DV 0 RV 0",
	  .hex = "40 03 00000000 00000000 00000001 00000000 00",
	  .exp = { .ddp = { .last = true, .rsvd_ulp8 = 0x03, .msn = 1 },
		   .rv = 0,
		   .opcode = RDMAP_SEND },
	  .payload_off = 18 },
	/* RFC 5040 §4.1: the 2 reserved control bits are ignored. */
	{ .name = "control reserved bits set",
	  .hex = "7d 73 00000000 00000000 00000001 00000000",
	  .exp = { .ddp = { .last = true,
			    .rsvd = 0xf,
			    .dv = 1,
			    .rsvd_ulp8 = 0x73,
			    .msn = 1 },
		   .rv = 1,
		   .ctrl_rsvd = 3,
		   .opcode = RDMAP_SEND },
	  .payload_off = 18,
	  .rebuilt = "41 43 00000000 00000000 00000001 00000000" },
	/* RFC 7306 §6.2 Figure 7. */
	{ .name = "Immediate Data",
	  .hex = IMM_DATA,
	  .exp = { UNT(0x48, 0, 1, 0), .rv = 1, .opcode = RDMAP_IMM_DATA,
		   .u.imm = { 1, 2, 3, 4, 5, 6, 7, 8 } },
	  .payload_off = 26 },
	{ .name = "Immediate Data with SE",
	  .hex = "41 49 00000000 00000000 00000002 00000000 "
		 "11 22 33 44 55 66 77 88",
	  .exp = { UNT(0x49, 0, 2, 0), .rv = 1, .opcode = RDMAP_IMM_DATA_SE,
		   .u.imm = { 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 } },
	  .payload_off = 26 },
	/* RFC 7306 §5.2.1 Figure 4; FetchAdd sends Compare Data 0 and
	 * Compare Mask all ones. */
	{ .name = "Atomic Request FetchAdd",
	  .hex = ATOMIC_FA,
	  .exp = { UNT(0x4a, 1, 1, 0), .rv = 1, .opcode = RDMAP_ATOMIC_REQ,
		   .u.atomic_req = { .aopcode = RDMAP_AOP_FETCHADD,
				     .req_id = 7,
				     .stag = 0x11223344,
				     .to = 0x1000,
				     .add_swap = 1,
				     .cmp_mask = ~0ull } },
	  .payload_off = 70 },
	/* Seed 004 §5.1.2: Swap, AOpCode 0001b, masks all ones. */
	{ .name = "Atomic Request Swap (draft)",
	  .hex = "41 4a 00000000 00000001 00000002 00000000 "
		 "00000001 00000008 55667788 00000000 00002000 "
		 "deadbeef cafef00d ffffffff ffffffff "
		 "00000000 00000000 ffffffff ffffffff",
	  .exp = { UNT(0x4a, 1, 2, 0), .rv = 1, .opcode = RDMAP_ATOMIC_REQ,
		   .u.atomic_req = { .aopcode = RDMAP_AOP_SWAP,
				     .req_id = 8,
				     .stag = 0x55667788,
				     .to = 0x2000,
				     .add_swap = 0xdeadbeefcafef00dull,
				     .add_swap_mask = ~0ull,
				     .cmp_mask = ~0ull } },
	  .payload_off = 70 },
	{ .name = "Atomic Request CmpSwap",
	  .hex = "41 4a 00000000 00000001 00000003 00000000 "
		 "00000002 00000009 99aabbcc 00000001 00000008 "
		 "00000000 0000ffff 00000000 ffff0000 "
		 "00000000 00001234 ffffffff 0000ffff",
	  .exp = { UNT(0x4a, 1, 3, 0), .rv = 1, .opcode = RDMAP_ATOMIC_REQ,
		   .u.atomic_req = { .aopcode = RDMAP_AOP_CMPSWAP,
				     .req_id = 9,
				     .stag = 0x99aabbcc,
				     .to = 0x100000008ull,
				     .add_swap = 0xffff,
				     .add_swap_mask = 0xffff0000ull,
				     .cmp = 0x1234,
				     .cmp_mask = 0xffffffff0000ffffull } },
	  .payload_off = 70 },
	/* RFC 7306 §5.2.1: Reserved "ignored on receive", sent as 0. */
	{ .name = "Atomic Request, reserved bits set",
	  .hex = "41 4a 00000000 00000001 00000004 00000000 "
		 "ffffff f2 0000000a 00000001 00000000 00000000 "
		 "00000000 00000000 00000000 00000000 "
		 "00000000 00000000 00000000 00000000",
	  .exp = { UNT(0x4a, 1, 4, 0), .rv = 1, .opcode = RDMAP_ATOMIC_REQ,
		   .u.atomic_req = { .rsvd = 0xfffffff,
				     .aopcode = 2,
				     .req_id = 10,
				     .stag = 1 } },
	  .payload_off = 70,
	  .rebuilt = "41 4a 00000000 00000001 00000004 00000000 "
		     "000000 02 0000000a 00000001 00000000 00000000 "
		     "00000000 00000000 00000000 00000000 "
		     "00000000 00000000 00000000 00000000" },
	/* RFC 7306 §5.2.2 Figure 6, on QN 3. */
	{ .name = "Atomic Response",
	  .hex = "41 4b 00000000 00000003 00000001 00000000 "
		 "00000007 0123456789abcdef",
	  .exp = { UNT(0x4b, 3, 1, 0), .rv = 1, .opcode = RDMAP_ATOMIC_RESP,
		   .u.atomic_resp = { .req_id = 7,
				      .orig = 0x0123456789abcdefull } },
	  .payload_off = 30 },
	/* RFC 5040 §4.8 Terminates, one per layer and header set. */
	{ .name = "Terminate RDMAP Local Catastrophic",
	  .hex = H_TERM "00 00 00 00",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE },
	  .payload_off = 22 },
	{ .name = "Terminate RDMAP Remote Protection, Read Request, M D R",
	  .hex = H_TERM "01 00 e0 00 00 2e " SIW_RREQ,
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 0,
			       .etype = 1,
			       .ecode = 0,
			       .hdrct = 7,
			       .ddp_seg_len = 46,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 18 } },
	  .payload_off = 70,
	  .term_ddp = "41 41 00 00 00 00 00 00 00 01 00 00 00 01 "
		      "00 00 00 00",
	  .term_rdma = "48 a3 f5 00 00 00 55 ca f5 b7 25 50 00 00 00 40 "
		       "6a 61 00 00 00 00 55 e2 a7 df d3 70" },
	{ .name = "Terminate RDMAP Remote Operation, tagged DDP header",
	  .hex = H_TERM "02 06 c0 00 00 0e " SIW_RTR,
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 0,
			       .etype = 2,
			       .ecode = 6,
			       .hdrct = 6,
			       .ddp_seg_len = 14,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 14 } },
	  .payload_off = 38,
	  .term_ddp = SIW_RTR },
	/* RFC 7306 §8.2: misaligned atomic; §8.1: D only. */
	{ .name = "Terminate on Atomic Request, no RDMA header",
	  .hex = H_TERM "02 07 c0 00 00 46 " ATOMIC_FA_HDR,
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 0,
			       .etype = 2,
			       .ecode = 7,
			       .hdrct = 6,
			       .ddp_seg_len = 70,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 18 } },
	  .payload_off = 42,
	  .term_ddp = ATOMIC_FA_HDR },
	{ .name = "Terminate DDP Tagged Buffer Invalid STag",
	  .hex = H_TERM "11 00 c0 00 00 4e " SIW_WRITE_HDR,
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 1,
			       .etype = 1,
			       .ecode = 0,
			       .hdrct = 6,
			       .ddp_seg_len = 78,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 14 } },
	  .payload_off = 38,
	  .term_ddp = SIW_WRITE_HDR },
	{ .name = "Terminate DDP Untagged Buffer Invalid QN",
	  .hex = H_TERM "12 01 c0 00 00 12 "
			"41 43 00000000 00000007 00000001 00000000",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 1,
			       .etype = 2,
			       .ecode = 1,
			       .hdrct = 6,
			       .ddp_seg_len = 18,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 18 } },
	  .payload_off = 42,
	  .term_ddp = "41 43 00000000 00000007 00000001 00000000" },
	{ .name = "Terminate DDP Local Catastrophic",
	  .hex = H_TERM "10 00 00 00",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 1 } },
	  .payload_off = 22 },
	{ .name = "Terminate MPA CRC error",
	  .hex = H_TERM "20 02 00 00",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 2, .ecode = 2 } },
	  .payload_off = 22 },
	/* RFC 6581 §8: codes 5-7. */
	{ .name = "Terminate MPA Insufficient IRD",
	  .hex = H_TERM "20 06 00 00",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 2, .ecode = 6 } },
	  .payload_off = 22 },
	{ .name = "Terminate MPA No matching RTR",
	  .hex = H_TERM "20 07 00 00",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 2, .ecode = 7 } },
	  .payload_off = 22 },
	{ .name = "Terminate, M only",
	  .hex = H_TERM "02 ff 80 00 01 23",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 0,
			       .etype = 2,
			       .ecode = 0xff,
			       .hdrct = 4,
			       .ddp_seg_len = 0x123,
			       .has_ddp_seg_len = true } },
	  .payload_off = 24 },
	{ .name = "Terminate, D without M",
	  .hex = H_TERM "11 03 40 00 00 00 " SIW_RTR,
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 1,
			       .etype = 1,
			       .ecode = 3,
			       .hdrct = 2,
			       .has_ddp_seg_len = true,
			       .ddp_hdr_len = 14 } },
	  .payload_off = 38,
	  .term_ddp = SIW_RTR },
	{ .name = "Terminate, R without D",
	  .hex = H_TERM "01 02 20 00 "
			"48 a3 f5 00 00 00 55 ca f5 b7 25 50 00 00 00 40 "
			"6a 61 00 00 00 00 55 e2 a7 df d3 70",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 0, .etype = 1, .ecode = 2, .hdrct = 1 } },
	  .payload_off = 50,
	  .term_rdma = "48 a3 f5 00 00 00 55 ca f5 b7 25 50 00 00 00 40 "
		       "6a 61 00 00 00 00 55 e2 a7 df d3 70" },
	/* RFC 5040 §4.8: the 13 reserved bits are ignored on receive. */
	{ .name = "Terminate, reserved bits set",
	  .hex = H_TERM "20 01 1f ff",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE,
		   .u.term = { .layer = 2, .ecode = 1 } },
	  .payload_off = 22,
	  .rebuilt = H_TERM "20 01 00 00" },
	/* RFC 7306 §8.1 "set to zero" fields sent with HdrCt clear. */
	{ .name = "Terminate, zeroed fields after the control word",
	  .hex = H_TERM "00 00 00 00 "
			"00000000000000000000000000000000"
			"00000000000000000000000000000000"
			"00000000000000000000000000000000",
	  .exp = { UNT(0x47, 2, 1, 0), .rv = 1, .opcode = RDMAP_TERMINATE },
	  .payload_off = 22 },
};

struct bad_vec {
	const char *name;
	const char *hex;
	enum wire_err err;
};

static const struct bad_vec bad[] = {
	/* RFC 5040 §4.1 Figure 4 / RFC 7306 Figure 2: placement and QN. */
	{ "tagged Send", "c1 43 00000001 0000000000000000", WIRE_EOPCODE },
	{ "tagged Send with Invalidate", "c1 44 00000001 0000000000000000",
	  WIRE_EOPCODE },
	{ "tagged Read Request", "c1 41 00000001 0000000000000000",
	  WIRE_EOPCODE },
	{ "tagged Terminate", "c1 47 00000001 0000000000000000", WIRE_EOPCODE },
	{ "tagged Immediate Data", "c1 48 00000001 0000000000000000",
	  WIRE_EOPCODE },
	{ "tagged Atomic Request", "c1 4a 00000001 0000000000000000",
	  WIRE_EOPCODE },
	{ "untagged RDMA Write", "41 40 00000000 00000000 00000001 00000000",
	  WIRE_EOPCODE },
	{ "untagged Read Response", "41 42 00000000 00000000 00000001 00000000",
	  WIRE_EOPCODE },
	{ "Send on QN 1", "41 43 00000000 00000001 00000001 00000000",
	  WIRE_EOPCODE },
	{ "Send with SE on QN 2", "41 45 00000000 00000002 00000001 00000000",
	  WIRE_EOPCODE },
	{ "Read Request on QN 0",
	  "41 41 00000000 00000000 00000001 00000000"
	  "00000000000000000000000000000000000000000000000000000000",
	  WIRE_EOPCODE },
	{ "Terminate on QN 0",
	  "41 47 00000000 00000000 00000001 00000000"
	  "00000000",
	  WIRE_EOPCODE },
	{ "Immediate Data on QN 1",
	  "41 48 00000000 00000001 00000001 00000000 0102030405060708",
	  WIRE_EOPCODE },
	{ "Atomic Request on QN 3",
	  "41 4a 00000000 00000003 00000001 00000000"
	  "0000000000000000000000000000000000000000000000000000"
	  "0000000000000000000000000000000000000000000000000000",
	  WIRE_EOPCODE },
	{ "Atomic Response on QN 1",
	  "41 4b 00000000 00000001 00000001 00000000 000000000000000000000000",
	  WIRE_EOPCODE },
	{ "Send on QN 0x100", "41 43 00000000 00000100 00000001 00000000",
	  WIRE_EOPCODE },
	/* Opcodes 0xC-0xF are not defined. */
	{ "opcode 0xC", "41 4c 00000000 00000000 00000001 00000000",
	  WIRE_EOPCODE },
	{ "opcode 0xD tagged", "c1 4d 00000001 0000000000000000",
	  WIRE_EOPCODE },
	{ "opcode 0xE", "41 4e 00000000 00000000 00000001 00000000",
	  WIRE_EOPCODE },
	{ "opcode 0xF (experimental)",
	  "41 4f 00000000 00000000 00000001 00000000", WIRE_EOPCODE },
	/* RFC 7306 §6.3: exactly 8 octets. */
	{ "Immediate Data, 7 octets",
	  "41 48 00000000 00000000 00000001 00000000 01020304050607",
	  WIRE_ELEN },
	{ "Immediate Data, 9 octets",
	  "41 48 00000000 00000000 00000001 00000000 010203040506070809",
	  WIRE_ELEN },
	{ "Immediate Data with SE, empty",
	  "41 49 00000000 00000000 00000001 00000000", WIRE_ELEN },
	/* RFC 5040 §4.4: 28 octets, no ULP payload (Figure 5). */
	{ "Read Request, 27 octets",
	  "41 41 00000000 00000001 00000001 00000000"
	  "000000000000000000000000000000000000000000000000000000",
	  WIRE_ELEN },
	{ "Read Request, 29 octets",
	  "41 41 00000000 00000001 00000001 00000000"
	  "0000000000000000000000000000000000000000000000000000000000",
	  WIRE_ELEN },
	{ "Read Request, no header",
	  "41 41 00000000 00000001 00000001 00000000", WIRE_ELEN },
	/* RFC 7306 §5.2.1 / §5.2.2: 52 and 12 octets. */
	{ "Atomic Request, 51 octets",
	  ATOMIC_FA_HDR "0000000000000000000000000000000000000000000000000000"
			"00000000000000000000000000000000000000000000000000",
	  WIRE_ELEN },
	{ "Atomic Request, 53 octets", ATOMIC_FA " 00", WIRE_ELEN },
	{ "Atomic Response, 11 octets",
	  "41 4b 00000000 00000003 00000001 00000000 0000000000000000000000",
	  WIRE_ELEN },
	{ "Atomic Response, 13 octets",
	  "41 4b 00000000 00000003 00000001 00000000"
	  "00000000000000000000000000",
	  WIRE_ELEN },
	/* RFC 5040 §4.8: the headers HdrCt announces must be there. */
	{ "Terminate, 3 octets", H_TERM "00 00 00", WIRE_ELEN },
	{ "Terminate, empty", H_TERM, WIRE_ELEN },
	{ "Terminate, M set, no length", H_TERM "00 00 80 00 00", WIRE_ELEN },
	{ "Terminate, D set, no DDP header", H_TERM "11 00 40 00 00 0e",
	  WIRE_ELEN },
	{ "Terminate, D set, tagged header 13 octets",
	  H_TERM "11 00 c0 00 00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00",
	  WIRE_ELEN },
	{ "Terminate, D set, untagged header 17 octets",
	  H_TERM "12 01 c0 00 00 12 41 43 00000000 00000007 00000001 000000",
	  WIRE_ELEN },
	{ "Terminate, R set, RDMA header 27 octets",
	  H_TERM "01 00 e0 00 00 2e 41 41 00000000 00000001 00000001 00000000"
		 "000000000000000000000000000000000000000000000000000000",
	  WIRE_ELEN },
	/* An opcode header must be in a single segment. */
	{ "Read Request, L clear",
	  "01 41 00000000 00000001 00000001 00000000"
	  "00000000000000000000000000000000000000000000000000000000",
	  WIRE_EFLAGS },
	{ "Read Request, MO 28",
	  "41 41 00000000 00000001 00000001 0000001c"
	  "00000000000000000000000000000000000000000000000000000000",
	  WIRE_ELEN },
	{ "Terminate, L clear",
	  "01 47 00000000 00000002 00000001 00000000"
	  "00000000",
	  WIRE_EFLAGS },
	{ "Immediate Data, MO 8",
	  "41 48 00000000 00000000 00000001 00000008 0102030405060708",
	  WIRE_ELEN },
	/* The DDP header itself is incomplete. */
	{ "tagged header, 13 octets", "c1 40 00000001 00000000000000",
	  WIRE_ESHORT },
	{ "untagged header, 17 octets",
	  "41 43 00000000 00000000 00000001 000000", WIRE_ESHORT },
	{ "nothing", "", WIRE_ESHORT },
};

#endif /* IWCM_TESTS_VECTORS_RDMAP_MSGS_H */
