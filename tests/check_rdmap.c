/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * RDMAP messages (RFC 5040 §4, RFC 7306 §4-§8, seed 004 Swap): whole
 * ULPDUs from the Linux siw captures (../shared/captures) and hand-built
 * ones for every opcode and every Terminate layer, decoded field by field
 * and rebuilt byte for byte; every malformed layout with its error;
 * truncation at every length; randomized round trips per opcode; the
 * Figure 10 header rules and rdmap_term_fill; the name tables.
 */
#include "common.h"

#include "rdmap.h"

#define MAXB 512

/* DDP headers used below (RFC 5041 §4). */
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

static size_t hex(const char *s, uint8_t *out)
{
	return test_hex(s, out, MAXB);
}

/* A heap copy of exactly n octets: ASan sees any read past it. */
static uint8_t *dup_exact(const uint8_t *p, size_t n)
{
	uint8_t *c = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(c);
	memcpy(c, p, n);
	return c;
}

static void assert_ddp_eq(const struct ddp_hdr *a, const struct ddp_hdr *b)
{
	ck_assert_int_eq(a->tagged, b->tagged);
	ck_assert_int_eq(a->last, b->last);
	ck_assert_uint_eq(a->rsvd, b->rsvd);
	ck_assert_uint_eq(a->dv, b->dv);
	ck_assert_uint_eq(a->rsvd_ulp8, b->rsvd_ulp8);
	ck_assert_uint_eq(a->stag, b->stag);
	ck_assert_uint_eq(a->to, b->to);
	ck_assert_uint_eq(a->rsvd_ulp32, b->rsvd_ulp32);
	ck_assert_uint_eq(a->qn, b->qn);
	ck_assert_uint_eq(a->msn, b->msn);
	ck_assert_uint_eq(a->mo, b->mo);
}

static void assert_term_eq(const struct rdmap_term *a,
			   const struct rdmap_term *b)
{
	ck_assert_uint_eq(a->layer, b->layer);
	ck_assert_uint_eq(a->etype, b->etype);
	ck_assert_uint_eq(a->ecode, b->ecode);
	ck_assert_uint_eq(a->hdrct, b->hdrct);
	ck_assert_uint_eq(a->ddp_seg_len, b->ddp_seg_len);
	ck_assert_int_eq(a->has_ddp_seg_len, b->has_ddp_seg_len);
	ck_assert_uint_eq(a->ddp_hdr_len, b->ddp_hdr_len);
	ck_assert_mem_eq(a->ddp_hdr, b->ddp_hdr, sizeof(a->ddp_hdr));
	ck_assert_mem_eq(a->rdma_hdr, b->rdma_hdr, sizeof(a->rdma_hdr));
}

/* Every decoded field but the payload pointer. */
static void assert_msg_eq(const struct rdmap_msg *a, const struct rdmap_msg *b)
{
	const struct rdmap_read_req *r = &a->u.read_req, *rb = &b->u.read_req;
	const struct rdmap_atomic_req *q = &a->u.atomic_req;
	const struct rdmap_atomic_req *qb = &b->u.atomic_req;

	assert_ddp_eq(&a->ddp, &b->ddp);
	ck_assert_uint_eq(a->rv, b->rv);
	ck_assert_uint_eq(a->ctrl_rsvd, b->ctrl_rsvd);
	ck_assert_uint_eq(a->opcode, b->opcode);
	ck_assert_uint_eq(a->inv_stag, b->inv_stag);
	switch (a->opcode) {
	case RDMAP_READ_REQ:
		ck_assert_uint_eq(r->sink_stag, rb->sink_stag);
		ck_assert_uint_eq(r->sink_to, rb->sink_to);
		ck_assert_uint_eq(r->size, rb->size);
		ck_assert_uint_eq(r->src_stag, rb->src_stag);
		ck_assert_uint_eq(r->src_to, rb->src_to);
		break;
	case RDMAP_TERMINATE:
		assert_term_eq(&a->u.term, &b->u.term);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		ck_assert_mem_eq(a->u.imm, b->u.imm, RDMAP_IMM_DATA_LEN);
		break;
	case RDMAP_ATOMIC_REQ:
		ck_assert_uint_eq(q->rsvd, qb->rsvd);
		ck_assert_uint_eq(q->aopcode, qb->aopcode);
		ck_assert_uint_eq(q->req_id, qb->req_id);
		ck_assert_uint_eq(q->stag, qb->stag);
		ck_assert_uint_eq(q->to, qb->to);
		ck_assert_uint_eq(q->add_swap, qb->add_swap);
		ck_assert_uint_eq(q->add_swap_mask, qb->add_swap_mask);
		ck_assert_uint_eq(q->cmp, qb->cmp);
		ck_assert_uint_eq(q->cmp_mask, qb->cmp_mask);
		break;
	case RDMAP_ATOMIC_RESP:
		ck_assert_uint_eq(a->u.atomic_resp.req_id,
				  b->u.atomic_resp.req_id);
		ck_assert_uint_eq(a->u.atomic_resp.orig, b->u.atomic_resp.orig);
		break;
	default:
		break;
	}
}

/* The expected message, with the Terminated headers filled in. */
static void vec_expected(const struct msg_vec *v, struct rdmap_msg *exp)
{
	*exp = v->exp;
	if (v->term_ddp)
		ck_assert_uint_eq(test_hex(v->term_ddp, exp->u.term.ddp_hdr,
					   sizeof(exp->u.term.ddp_hdr)),
				  exp->u.term.ddp_hdr_len);
	if (v->term_rdma)
		ck_assert_uint_eq(test_hex(v->term_rdma, exp->u.term.rdma_hdr,
					   sizeof(exp->u.term.rdma_hdr)),
				  RDMAP_READ_REQ_LEN);
}

START_TEST(test_vectors)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB], out[MAXB], want[MAXB];
	struct rdmap_msg m, exp;
	size_t n, w = 0, nw;
	uint8_t *p;

	n = hex(v->hex, in);
	vec_expected(v, &exp);
	p = dup_exact(in, n);
	ck_assert_int_eq(rdmap_msg_parse(p, n, &m), WIRE_OK);
	assert_msg_eq(&m, &exp);
	ck_assert_ptr_eq(m.payload, p + v->payload_off);
	ck_assert_uint_eq(m.payload_len, n - v->payload_off);
	free(p);

	/* The headers rebuild byte for byte (reserved bits as zero). */
	ck_assert_int_eq(rdmap_hdr_build(&m, out, sizeof(out), &w), WIRE_OK);
	if (v->rebuilt) {
		nw = hex(v->rebuilt, want);
	} else {
		nw = v->payload_off;
		memcpy(want, in, nw);
	}
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, w);
}
END_TEST

START_TEST(test_malformed)
{
	const struct bad_vec *v = &bad[_i];
	uint8_t in[MAXB] = { 0 };
	struct rdmap_msg m, sentinel;
	size_t n = hex(v->hex, in);
	uint8_t *p = dup_exact(in, n);

	memset(&sentinel, 0x5a, sizeof(sentinel));
	m = sentinel;
	ck_assert_msg(rdmap_msg_parse(p, n, &m) == v->err, "%s: got %s",
		      v->name, wire_errname(rdmap_msg_parse(p, n, &m)));
	/* *out is untouched on error. */
	ck_assert_mem_eq(&m, &sentinel, sizeof(m));
	free(p);
}
END_TEST

/* Every prefix of a valid ULPDU: the result its layout implies. */
START_TEST(test_truncation)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB] = { 0 };
	struct rdmap_msg m;
	size_t n = hex(v->hex, in), k, dlen = ddp_hdr_len(in[0]);
	int hdr_op = v->payload_off > dlen;

	for (k = 0; k < n; k++) {
		uint8_t *p = dup_exact(in, k);
		enum wire_err e = rdmap_msg_parse(p, k, &m);

		if (k < dlen)
			ck_assert_int_eq(e, WIRE_ESHORT);
		else if (k < v->payload_off)
			ck_assert_int_eq(e, WIRE_ELEN);
		else if (hdr_op && v->exp.opcode != RDMAP_TERMINATE)
			ck_assert_int_eq(e, WIRE_ELEN);
		else {
			ck_assert_int_eq(e, WIRE_OK);
			ck_assert_uint_eq(m.payload_len, k - v->payload_off);
		}
		free(p);
	}
}
END_TEST

/* The opcode-header parsers: WIRE_ESHORT for every short length. */
START_TEST(test_sub_parser_truncation)
{
	const struct msg_vec *v = &vecs[_i];
	uint8_t in[MAXB] = { 0 };
	size_t k, hl, used;
	const uint8_t *h = in + DDP_UNTAGGED_HDR_LEN;
	union {
		struct rdmap_read_req r;
		struct rdmap_atomic_req a;
		struct rdmap_atomic_resp s;
		struct rdmap_term t;
	} u, sentinel;

	(void)hex(v->hex, in);
	if (v->exp.ddp.tagged || v->payload_off == DDP_UNTAGGED_HDR_LEN)
		return;
	hl = v->payload_off - DDP_UNTAGGED_HDR_LEN;
	memset(&sentinel, 0xa5, sizeof(sentinel));
	for (k = 0; k < hl; k++) {
		uint8_t *p = dup_exact(h, k);
		enum wire_err e = WIRE_ESHORT;

		u = sentinel;
		switch (v->exp.opcode) {
		case RDMAP_READ_REQ:
			e = rdmap_read_req_parse(p, k, &u.r);
			break;
		case RDMAP_ATOMIC_REQ:
			e = rdmap_atomic_req_parse(p, k, &u.a);
			break;
		case RDMAP_ATOMIC_RESP:
			e = rdmap_atomic_resp_parse(p, k, &u.s);
			break;
		case RDMAP_TERMINATE:
			e = rdmap_term_parse(p, k, &u.t, &used);
			break;
		default:
			break;
		}
		ck_assert_int_eq(e, WIRE_ESHORT);
		ck_assert_mem_eq(&u, &sentinel, sizeof(u));
		free(p);
	}
}
END_TEST

static int op_has_hdr(uint8_t op)
{
	return op == RDMAP_READ_REQ || op == RDMAP_TERMINATE ||
	       op == RDMAP_IMM_DATA || op == RDMAP_IMM_DATA_SE ||
	       op == RDMAP_ATOMIC_REQ || op == RDMAP_ATOMIC_RESP;
}

static void rand_term(struct rdmap_term *t)
{
	memset(t, 0, sizeof(*t));
	t->layer = test_rand32() & 0xf;
	t->etype = test_rand32() & 0xf;
	t->ecode = (uint8_t)test_rand32();
	t->hdrct = test_rand32() & 7;
	if (t->hdrct & (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)) {
		t->has_ddp_seg_len = true;
		t->ddp_seg_len = (uint16_t)test_rand32();
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_D) {
		bool tagged = test_rand32() & 1;

		t->ddp_hdr_len = tagged ? 14 : 18;
		test_rand_bytes(t->ddp_hdr, t->ddp_hdr_len);
		t->ddp_hdr[0] = tagged ? (t->ddp_hdr[0] | 0x80) :
					 (t->ddp_hdr[0] & 0x7f);
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R)
		test_rand_bytes(t->rdma_hdr, RDMAP_READ_REQ_LEN);
}

static void rand_msg(struct rdmap_msg *m, uint8_t op)
{
	memset(m, 0, sizeof(*m));
	m->opcode = op;
	m->rv = test_rand32() & 3;
	m->ddp.dv = test_rand32() & 3;
	m->ddp.tagged = rdmap_opcode_tagged(op) == 1;
	m->ddp.last = op_has_hdr(op) ? true : (test_rand32() & 1);
	if (m->ddp.tagged) {
		m->ddp.stag = test_rand32();
		m->ddp.to = test_rand64();
	} else {
		m->ddp.qn = (uint32_t)rdmap_opcode_qn(op);
		m->ddp.msn = test_rand32();
		m->ddp.mo = op_has_hdr(op) ? 0 : test_rand32();
	}
	if (op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV)
		m->inv_stag = test_rand32();
	switch (op) {
	case RDMAP_READ_REQ:
		m->u.read_req.sink_stag = test_rand32();
		m->u.read_req.sink_to = test_rand64();
		m->u.read_req.size = test_rand32();
		m->u.read_req.src_stag = test_rand32();
		m->u.read_req.src_to = test_rand64();
		break;
	case RDMAP_TERMINATE:
		rand_term(&m->u.term);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		test_rand_bytes(m->u.imm, RDMAP_IMM_DATA_LEN);
		break;
	case RDMAP_ATOMIC_REQ:
		m->u.atomic_req.aopcode = test_rand32() & 0xf;
		m->u.atomic_req.req_id = test_rand32();
		m->u.atomic_req.stag = test_rand32();
		m->u.atomic_req.to = test_rand64();
		m->u.atomic_req.add_swap = test_rand64();
		m->u.atomic_req.add_swap_mask = test_rand64();
		m->u.atomic_req.cmp = test_rand64();
		m->u.atomic_req.cmp_mask = test_rand64();
		break;
	case RDMAP_ATOMIC_RESP:
		m->u.atomic_resp.req_id = test_rand32();
		m->u.atomic_resp.orig = test_rand64();
		break;
	default:
		break;
	}
}

/* parse(build(m) + payload) == m for random messages of one opcode. */
START_TEST(test_roundtrip_random)
{
	uint8_t op = (uint8_t)_i;
	int i;

	for (i = 0; i < 3000; i++) {
		uint8_t buf[MAXB];
		struct rdmap_msg m, p;
		size_t w = 0, plen = 0, cap;

		rand_msg(&m, op);
		ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
				 WIRE_OK);
		for (cap = 0; cap < w; cap++) {
			size_t w2;

			ck_assert_int_eq(rdmap_hdr_build(&m, buf, cap, &w2),
					 WIRE_ENOSPC);
		}
		if (!op_has_hdr(op) || op == RDMAP_TERMINATE) {
			plen = test_rand32() % 65;
			test_rand_bytes(buf + w, plen);
		}
		ck_assert_int_eq(rdmap_msg_parse(buf, w + plen, &p), WIRE_OK);
		/* What the builder puts in the RsvdULP fields. */
		m.ddp.rsvd_ulp8 = (uint8_t)(m.rv << 6 | op);
		if (!m.ddp.tagged)
			m.ddp.rsvd_ulp32 = m.inv_stag;
		assert_msg_eq(&p, &m);
		ck_assert_ptr_eq(p.payload, buf + w);
		ck_assert_uint_eq(p.payload_len, plen);
	}
}
END_TEST

START_TEST(test_opcode_tables)
{
	static const int tagged[12] = { 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0 };
	static const int qn[12] = { -1, 1, -1, 0, 0, 0, 0, 2, 0, 0, 1, 3 };
	unsigned int op;

	for (op = 0; op < 256; op++) {
		if (op < 12) {
			ck_assert_int_eq(rdmap_opcode_tagged((uint8_t)op),
					 tagged[op]);
			ck_assert_int_eq(rdmap_opcode_qn((uint8_t)op), qn[op]);
		} else {
			ck_assert_int_eq(rdmap_opcode_tagged((uint8_t)op), -1);
			ck_assert_int_eq(rdmap_opcode_qn((uint8_t)op), -1);
		}
	}
}
END_TEST

START_TEST(test_build_errors)
{
	struct rdmap_msg m;
	struct rdmap_term t;
	struct rdmap_read_req rr;
	struct rdmap_atomic_req ar;
	struct rdmap_atomic_resp as;
	uint8_t buf[MAXB];
	size_t w = 4242;

	memset(&m, 0, sizeof(m));
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.dv = 1;
	m.opcode = 0xc;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_OPCODE_MAX;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_SEND;
	m.rv = 4;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.rv = 1;
	m.ddp.tagged = true; /* tagged Send */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.tagged = false;
	m.ddp.qn = 1; /* Send on QN 1 */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_WRITE; /* untagged Write */
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.opcode = RDMAP_READ_REQ;
	m.ddp.last = false;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.last = true;
	m.ddp.mo = 1;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.mo = 0;
	m.ddp.dv = 4;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	m.ddp.dv = 1;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 45, &w), WIRE_ENOSPC);
	ck_assert_uint_eq(w, 4242);
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 46, &w), WIRE_OK);
	ck_assert_uint_eq(w, 46);
	m.opcode = RDMAP_ATOMIC_REQ;
	m.u.atomic_req.aopcode = 0x10;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);

	/* Terminate fields that do not fit or disagree. */
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.u.term.hdrct = 8;
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	memset(&t, 0, sizeof(t));
	t.layer = 0x10;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.layer = 0;
	t.etype = 0x10;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.etype = 0;
	t.hdrct = RDMAP_TERM_HDRCT_D;
	t.ddp_hdr[0] = 0xc1; /* tagged: 14 octets */
	t.ddp_hdr_len = 18;
	ck_assert_int_eq(rdmap_term_build(&t, buf, sizeof(buf), &w),
			 WIRE_EINVAL);
	t.ddp_hdr_len = 14;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 19, &w), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_term_build(&t, buf, 20, &w), WIRE_OK);
	ck_assert_uint_eq(w, 20);
	t.hdrct = 7;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 47, &w), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_term_build(&t, buf, 48, &w), WIRE_OK);
	ck_assert_uint_eq(w, 48);
	t.hdrct = 0;
	ck_assert_int_eq(rdmap_term_build(&t, buf, 3, &w), WIRE_ENOSPC);

	memset(&rr, 0, sizeof(rr));
	ck_assert_int_eq(rdmap_read_req_build(&rr, buf, 27), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_read_req_build(&rr, buf, 28), WIRE_OK);
	memset(&ar, 0, sizeof(ar));
	ck_assert_int_eq(rdmap_atomic_req_build(&ar, buf, 51), WIRE_ENOSPC);
	ar.aopcode = 0xff;
	ck_assert_int_eq(rdmap_atomic_req_build(&ar, buf, 52), WIRE_EINVAL);
	memset(&as, 0, sizeof(as));
	ck_assert_int_eq(rdmap_atomic_resp_build(&as, buf, 11), WIRE_ENOSPC);
	ck_assert_int_eq(rdmap_atomic_resp_build(&as, buf, 12), WIRE_OK);
}
END_TEST

/* The opcode-header codecs alone, against the wire layout. */
START_TEST(test_sub_codecs)
{
	uint8_t buf[64], want[64];
	struct rdmap_atomic_req a = {
		.rsvd = 0x1234567,
		.aopcode = RDMAP_AOP_SWAP,
		.req_id = 0x10,
		.stag = 0x20,
		.to = 0x30,
		.add_swap = 0x40,
		.add_swap_mask = ~0ull,
		.cmp = 0,
		.cmp_mask = ~0ull,
	};
	struct rdmap_atomic_req a2;
	struct rdmap_atomic_resp s = { .req_id = 0xa1b2c3d4,
				       .orig = 0x0102030405060708ull };
	struct rdmap_atomic_resp s2;
	size_t n;

	ck_assert_int_eq(rdmap_atomic_req_build(&a, buf, sizeof(buf)), WIRE_OK);
	n = test_hex("00000001 00000010 00000020 0000000000000030"
		     "0000000000000040 ffffffffffffffff 0000000000000000"
		     "ffffffffffffffff",
		     want, sizeof(want));
	ck_assert_uint_eq(n, RDMAP_ATOMIC_REQ_LEN);
	ck_assert_mem_eq(buf, want, n);
	ck_assert_int_eq(rdmap_atomic_req_parse(buf, 60, &a2), WIRE_OK);
	ck_assert_uint_eq(a2.rsvd, 0); /* sent as zero */
	ck_assert_uint_eq(a2.aopcode, RDMAP_AOP_SWAP);
	ck_assert_uint_eq(a2.add_swap_mask, ~0ull);

	ck_assert_int_eq(rdmap_atomic_resp_build(&s, buf, sizeof(buf)),
			 WIRE_OK);
	n = test_hex("a1b2c3d4 0102030405060708", want, sizeof(want));
	ck_assert_mem_eq(buf, want, n);
	ck_assert_int_eq(rdmap_atomic_resp_parse(buf, n, &s2), WIRE_OK);
	ck_assert_uint_eq(s2.req_id, s.req_id);
	ck_assert_uint_eq(s2.orig, s.orig);
}
END_TEST

/* RFC 5040 §4.8 Figure 10, with RFC 7306 §8.1. */
struct hdrct_row {
	uint8_t layer, etype, opcode, hdrct;
};

#define MD (RDMAP_TERM_HDRCT_M | RDMAP_TERM_HDRCT_D)
#define MDR (MD | RDMAP_TERM_HDRCT_R)

static const struct hdrct_row fig10[] = {
	/* RDMA, Local Catastrophic: No / No, any message. */
	{ 0, 0, RDMAP_WRITE, 0 },
	{ 0, 0, RDMAP_READ_REQ, 0 },
	{ 0, 0, RDMAP_SEND, 0 },
	{ 0, 0, RDMAP_ATOMIC_REQ, 0 },
	/* RDMA, Remote Protection: DDP header yes, RDMA header only for
	 * a Read Request; Send with Invalidate variants carry none. */
	{ 0, 1, RDMAP_READ_REQ, MDR },
	{ 0, 1, RDMAP_SEND_INV, MD },
	{ 0, 1, RDMAP_SEND_SE_INV, MD },
	{ 0, 1, RDMAP_ATOMIC_REQ, MD },
	{ 0, 1, RDMAP_ATOMIC_RESP, MD },
	/* RDMA, Remote Operation: DDP header yes, RDMA header no. */
	{ 0, 2, RDMAP_WRITE, MD },
	{ 0, 2, RDMAP_READ_REQ, MD },
	{ 0, 2, RDMAP_READ_RESP, MD },
	{ 0, 2, RDMAP_SEND, MD },
	{ 0, 2, RDMAP_TERMINATE, MD },
	{ 0, 2, RDMAP_IMM_DATA, MD },
	{ 0, 2, RDMAP_IMM_DATA_SE, MD },
	{ 0, 2, RDMAP_ATOMIC_REQ, MD },
	{ 0, 2, RDMAP_ATOMIC_RESP, MD },
	{ 0, 2, 0xc, MD }, /* Unexpected OpCode */
	/* DDP: Yes / No, any message; Local Catastrophic none (§4.8). */
	{ 1, 0, RDMAP_SEND, 0 },
	{ 1, 1, RDMAP_WRITE, MD },
	{ 1, 1, RDMAP_READ_RESP, MD },
	{ 1, 2, RDMAP_SEND, MD },
	{ 1, 2, RDMAP_READ_REQ, MD },
	{ 1, 2, RDMAP_ATOMIC_REQ, MD },
	{ 1, 3, RDMAP_SEND, 0 },
	/* LLP: No / No. */
	{ 2, 0, RDMAP_SEND, 0 },
	{ 2, 0, RDMAP_READ_REQ, 0 },
	{ 2, 0, RDMAP_WRITE, 0 },
};

START_TEST(test_hdrct_table)
{
	const struct hdrct_row *r = &fig10[_i];

	ck_assert_uint_eq(rdmap_term_hdrct(r->layer, r->etype, r->opcode),
			  r->hdrct);
}
END_TEST

START_TEST(test_hdrct_sweep)
{
	unsigned int l, e, o;

	for (l = 0; l < 16; l++)
		for (e = 0; e < 16; e++)
			for (o = 0; o < 256; o++) {
				uint8_t h = rdmap_term_hdrct(
					(uint8_t)l, (uint8_t)e, (uint8_t)o);

				ck_assert_uint_eq(h & ~MDR, 0);
				/* M and D go together. */
				ck_assert_int_eq(!(h & RDMAP_TERM_HDRCT_M),
						 !(h & RDMAP_TERM_HDRCT_D));
				if (h & RDMAP_TERM_HDRCT_R)
					ck_assert(l == 0 && e == 1 &&
						  o == RDMAP_READ_REQ);
				if (l > 1 || (l == 1 && (e == 0 || e > 2)) ||
				    (l == 0 && (e == 0 || e > 2)))
					ck_assert_uint_eq(h, 0);
			}
}
END_TEST

/* Fill a Terminate for seg, build the Terminate message, compare. */
static void fill_build(struct rdmap_term *t, uint8_t layer, uint8_t etype,
		       uint8_t ecode, const uint8_t *seg, size_t seg_len,
		       uint8_t *out, size_t *w)
{
	struct rdmap_msg m, p;

	rdmap_term_fill(t, layer, etype, ecode, seg, seg_len);
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = 1;
	m.ddp.last = true;
	m.ddp.dv = 1;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = 1;
	m.u.term = *t;
	ck_assert_int_eq(rdmap_hdr_build(&m, out, MAXB, w), WIRE_OK);
	ck_assert_int_eq(rdmap_msg_parse(out, *w, &p), WIRE_OK);
	assert_term_eq(&p.u.term, t);
	ck_assert_uint_eq(p.payload_len, 0);
}

static const uint8_t zero28[RDMAP_READ_REQ_LEN];

START_TEST(test_term_fill_read_req)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	struct rdmap_term t;
	size_t n = hex(SIW_RREQ, seg), w, nw;

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MDR);
	ck_assert_uint_eq(t.ddp_seg_len, 46);
	ck_assert_uint_eq(t.ddp_hdr_len, 18);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, seg + 18, 28);
	/* Byte for byte the Terminate vector above. */
	nw = hex(H_TERM "01 00 e0 00 00 2e " SIW_RREQ, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	/* Remote Operation on the same Read Request: no RDMA header. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_UNEXPECTED_OP, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	/* A Read Request cut short: its DDP header, not the RDMA one. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_ACCESS, seg, 30, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 30);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	/* DDP Untagged Buffer error on it: D only. */
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_INVALID_MSN_RANGE, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
}
END_TEST

/* RFC 7306 §8.1: the new messages get the DDP header, never theirs. */
START_TEST(test_term_fill_rfc7306)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	struct rdmap_term t;
	size_t n = hex(ATOMIC_FA, seg), w, nw;

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_CATASTROPHIC_STREAM, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 70);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
	nw = hex(H_TERM "02 07 c0 00 00 46 " ATOMIC_FA_HDR, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);

	n = hex(IMM_DATA, seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		   RDMAP_ECODE_UNEXPECTED_OP, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 26);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);
	ck_assert_mem_eq(t.rdma_hdr, zero28, 28);
}
END_TEST

START_TEST(test_term_fill_other)
{
	uint8_t seg[MAXB], out[MAXB], want[MAXB];
	static uint8_t big[70000];
	struct rdmap_term t;
	size_t n, w, nw;

	/* DDP Tagged Buffer error on the siw Write (78 octets). */
	memset(seg, 0, sizeof(seg));
	hex(SIW_WRITE_HDR, seg);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_ECODE_T_INVALID_STAG, seg, 78, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_hdr_len, 14);
	ck_assert_uint_eq(t.ddp_seg_len, 78);
	nw = hex(H_TERM "11 00 c0 00 00 4e " SIW_WRITE_HDR, want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);

	/* Send with Invalidate, STag cannot be invalidated. */
	n = hex("41 44 12 34 56 78 00000000 00000005 00000000 aa bb", seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_CANT_INVALIDATE, seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, MD);
	ck_assert_uint_eq(t.ddp_seg_len, 20);
	ck_assert_mem_eq(t.ddp_hdr, seg, 18);

	/* Errors without headers: local, LLP, DDP catastrophic. */
	n = hex(SIW_RREQ, seg);
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_CATASTROPHIC, 0x33,
		   seg, n, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_uint_eq(t.ecode, 0x33);
	ck_assert_uint_eq(w, 22);
	fill_build(&t, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA, MPA_ECODE_CRC, seg,
		   n, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_int_eq(t.has_ddp_seg_len, false);
	nw = hex(H_TERM "20 02 00 00", want);
	ck_assert_uint_eq(w, nw);
	ck_assert_mem_eq(out, want, nw);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_CATASTROPHIC, 0, seg, n,
		   out, &w);
	ck_assert_uint_eq(t.hdrct, 0);

	/* RFC 5040 §7.1 case 1: nothing inbound to copy. */
	fill_build(&t, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_PROT,
		   RDMAP_ECODE_INVALID_STAG, NULL, 0, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	ck_assert_uint_eq(t.layer, 0);
	ck_assert_uint_eq(t.etype, 1);
	ck_assert_uint_eq(t.ddp_hdr_len, 0);
	/* A segment shorter than its DDP header: nothing either. */
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_INVALID_QN, seg, 17, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		   DDP_ECODE_T_INVALID_STAG, seg, 1, out, &w);
	ck_assert_uint_eq(t.hdrct, 0);

	/* A segment longer than 16 bits can say: D, length not valid. */
	hex(H_SEND("00000001"), big);
	fill_build(&t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		   DDP_ECODE_U_TOO_LONG, big, sizeof(big), out, &w);
	ck_assert_uint_eq(t.hdrct, RDMAP_TERM_HDRCT_D);
	ck_assert_int_eq(t.has_ddp_seg_len, true);
	ck_assert_uint_eq(t.ddp_seg_len, 0);
	ck_assert_mem_eq(t.ddp_hdr, big, 18);
}
END_TEST

START_TEST(test_names)
{
	static const char *const ops[16] = {
		"RDMA Write",
		"RDMA Read Request",
		"RDMA Read Response",
		"Send",
		"Send with Invalidate",
		"Send with Solicited Event",
		"Send with Solicited Event and Invalidate",
		"Terminate",
		"Immediate Data",
		"Immediate Data with Solicited Event",
		"Atomic Request",
		"Atomic Response",
		"Unknown",
		"Unknown",
		"Unknown",
		"Reserved (Experimental)",
	};
	unsigned int i;

	for (i = 0; i < 16; i++)
		ck_assert_str_eq(rdmap_opcode_name((uint8_t)i), ops[i]);
	for (i = 16; i < 256; i++)
		ck_assert_str_eq(rdmap_opcode_name((uint8_t)i), "Unknown");
	ck_assert_str_eq(rdmap_aopcode_name(0), "FetchAdd");
	ck_assert_str_eq(rdmap_aopcode_name(1), "Swap (draft)");
	ck_assert_str_eq(rdmap_aopcode_name(2), "CmpSwap");
	for (i = 3; i < 256; i++)
		ck_assert_str_eq(rdmap_aopcode_name((uint8_t)i), "Unknown");
	ck_assert_str_eq(rdmap_term_layer_name(0), "RDMA");
	ck_assert_str_eq(rdmap_term_layer_name(1), "DDP");
	ck_assert_str_eq(rdmap_term_layer_name(2), "LLP");
	for (i = 3; i < 256; i++)
		ck_assert_str_eq(rdmap_term_layer_name((uint8_t)i), "Unknown");
}
END_TEST

struct err_name {
	uint8_t layer, etype;
	int ecode; /* -1: the Error Type's own name */
	const char *name;
};

/* RFC 5040 Figure 9, RFC 5041 §7.2, RFC 5044 §8, RFC 6581 §8. */
static const struct err_name err_names[] = {
	{ 0, 0, -1, "Local Catastrophic Error" },
	{ 0, 1, -1, "Remote Protection Error" },
	{ 0, 2, -1, "Remote Operation Error" },
	{ 0, 3, -1, "Unknown" },
	{ 1, 0, -1, "Local Catastrophic" },
	{ 1, 1, -1, "Tagged Buffer Error" },
	{ 1, 2, -1, "Untagged Buffer Error" },
	{ 1, 3, -1, "Reserved for use by the LLP" },
	{ 1, 4, -1, "Unknown" },
	{ 2, 0, -1, "MPA Error" },
	{ 2, 1, -1, "Unknown" },
	{ 3, 0, -1, "Unknown" },
	{ 0, 0, 0x00, "None" },
	{ 0, 0, 0x5a, "None" },
	{ 0, 1, 0x00, "Invalid STag" },
	{ 0, 1, 0x01, "Base or bounds violation" },
	{ 0, 1, 0x02, "Access rights violation" },
	{ 0, 1, 0x03, "STag not associated with RDMAP Stream" },
	{ 0, 1, 0x04, "TO wrap" },
	{ 0, 1, 0x05, "Unknown" },
	{ 0, 1, 0x09, "STag cannot be Invalidated" },
	{ 0, 1, 0xff, "Unspecified Error" },
	{ 0, 2, 0x00, "Unknown" },
	{ 0, 2, 0x05, "Invalid RDMAP version" },
	{ 0, 2, 0x06, "Unexpected OpCode" },
	{ 0, 2, 0x07, "Catastrophic error, localized to RDMAP Stream" },
	{ 0, 2, 0x08, "Catastrophic error, global" },
	{ 0, 2, 0x09, "STag cannot be Invalidated" },
	{ 0, 2, 0xff, "Unspecified Error" },
	{ 1, 0, 0x00, "Local Catastrophic" },
	{ 1, 0, 0x01, "Unknown" },
	{ 1, 1, 0x00, "Invalid STag" },
	{ 1, 1, 0x01, "Base or bounds violation" },
	{ 1, 1, 0x02, "STag not associated with DDP Stream" },
	{ 1, 1, 0x03, "TO wrap" },
	{ 1, 1, 0x04, "Invalid DDP version" },
	{ 1, 1, 0x05, "Unknown" },
	{ 1, 2, 0x00, "Unknown" },
	{ 1, 2, 0x01, "Invalid QN" },
	{ 1, 2, 0x02, "Invalid MSN - no buffer available" },
	{ 1, 2, 0x03, "Invalid MSN - MSN range is not valid" },
	{ 1, 2, 0x04, "Invalid MO" },
	{ 1, 2, 0x05, "DDP Message too long for available buffer" },
	{ 1, 2, 0x06, "Invalid DDP version" },
	{ 1, 2, 0x07, "Unknown" },
	{ 1, 3, 0x42, "Reserved for use by the LLP" },
	{ 2, 0, 0x00, "Unknown" },
	{ 2, 0, 0x01, "TCP connection closed, terminated, or lost" },
	{ 2, 0, 0x02, "MPA CRC error" },
	{ 2, 0, 0x03, "MPA Marker and ULPDU Length field mismatch" },
	{ 2, 0, 0x04, "Invalid MPA Request Frame or MPA Response Frame" },
	{ 2, 0, 0x05, "Local catastrophic" },
	{ 2, 0, 0x06, "Insufficient IRD resources" },
	{ 2, 0, 0x07, "No matching RTR option" },
	{ 2, 0, 0x08, "Unknown" },
	{ 2, 1, 0x01, "Unknown" },
	{ 4, 0, 0x01, "Unknown" },
};

START_TEST(test_term_names)
{
	const struct err_name *e = &err_names[_i];

	if (e->ecode < 0)
		ck_assert_str_eq(rdmap_term_etype_name(e->layer, e->etype),
				 e->name);
	else
		ck_assert_str_eq(rdmap_term_ecode_name(e->layer, e->etype,
						       (uint8_t)e->ecode),
				 e->name);
}
END_TEST

START_TEST(test_term_names_never_null)
{
	unsigned int l, e, c;

	for (l = 0; l < 256; l += (l < 16 ? 1 : 37)) {
		ck_assert_ptr_nonnull(rdmap_term_layer_name((uint8_t)l));
		for (e = 0; e < 256; e += (e < 16 ? 1 : 61)) {
			ck_assert_ptr_nonnull(
				rdmap_term_etype_name((uint8_t)l, (uint8_t)e));
			for (c = 0; c < 256; c++)
				ck_assert_ptr_nonnull(rdmap_term_ecode_name(
					(uint8_t)l, (uint8_t)e, (uint8_t)c));
		}
	}
}
END_TEST

static Suite *rdmap_suite(void)
{
	Suite *s = suite_create("rdmap");

	add_loop_tcase(s, "vectors", test_vectors, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "malformed", test_malformed, ARRAY_SIZE(bad));
	add_loop_tcase(s, "truncation", test_truncation, ARRAY_SIZE(vecs));
	add_loop_tcase(s, "sub_truncation", test_sub_parser_truncation,
		       ARRAY_SIZE(vecs));
	add_loop_tcase(s, "roundtrip_random", test_roundtrip_random,
		       RDMAP_ATOMIC_RESP + 1);
	add_tcase(s, "opcode_tables", test_opcode_tables);
	add_tcase(s, "build_errors", test_build_errors);
	add_tcase(s, "sub_codecs", test_sub_codecs);
	add_loop_tcase(s, "hdrct_fig10", test_hdrct_table, ARRAY_SIZE(fig10));
	add_tcase(s, "hdrct_sweep", test_hdrct_sweep);
	add_tcase(s, "term_fill_read_req", test_term_fill_read_req);
	add_tcase(s, "term_fill_rfc7306", test_term_fill_rfc7306);
	add_tcase(s, "term_fill_other", test_term_fill_other);
	add_tcase(s, "names", test_names);
	add_loop_tcase(s, "term_names", test_term_names, ARRAY_SIZE(err_names));
	add_tcase(s, "term_names_never_null", test_term_names_never_null);
	return s;
}

TEST_MAIN(rdmap_suite)
