/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * check_dp_hostile's cases: each sends one offending message through the
 * raw peer (dp_hostile.h), and the table says which Terminate (RFC 5040
 * §4.8, RFC 5041 §7.2, RFC 5044 §8, RFC 7306 §8) must answer it.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "dp_hostile.h"

static void c_bad_crc(void)
{
	struct rdmap_msg m;
	uint8_t u[64];
	size_t n, w;

	/* RFC 5044 §8 code 2: the CRC of this Send is off by one bit. */
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	n = dp_msg_build(&m, "0123456789", 10, u, sizeof(u));
	w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	P->out[w - 1] ^= 0x01;
	dp_peer_write(P, P->out, w);
}

static void c_bad_marker(void)
{
	struct rdmap_msg m;
	uint8_t u[128], data[40];
	size_t n, w, at = MPA_MARKER_INTERVAL - P->tx.off % MPA_MARKER_INTERVAL;

	/* RFC 5044 §8 code 3: the marker at offset 512 points elsewhere. */
	memset(data, 'm', sizeof(data));
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	n = dp_msg_build(&m, data, sizeof(data), u, sizeof(u));
	w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	ck_assert_uint_lt(at + MPA_MARKER_LEN, w);
	P->out[at + 2] ^= 0x01;
	dp_peer_write(P, P->out, w);
}

/*
 * RFC 5044 §8: an FPDU whose CRC fails is never delivered in any form.
 * The ULPDU u is framed right, then one octet of its CRC field (or of the
 * pad before it, where a marker took the last one) is flipped: the
 * library must answer with TERM LLP/MPA code 2 only, whatever the
 * header would have caused, and complete nothing but flushes.  No
 * headers are copied into an LLP Terminate (RFC 5040 Figure 10).
 */
static void send_bad_crc(const uint8_t *u, size_t n)
{
	uint32_t start = P->tx.off;
	size_t w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	size_t i = w - 1;

	while (P->tx.markers &&
	       (start + i) % MPA_MARKER_INTERVAL < MPA_MARKER_LEN)
		i--;
	P->out[i] ^= 0x01;
	dp_peer_write(P, P->out, w);
	SEG_LEN = 0;
}

static void bad_crc_msg(const struct rdmap_msg *m, const void *data, size_t len)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];

	send_bad_crc(u, dp_msg_build(m, data, len, u, sizeof(u)));
}

static void crc_send_len(size_t len)
{
	static uint8_t data[2048];
	struct rdmap_msg m;

	memset(data, 'L', sizeof(data));
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	bad_crc_msg(&m, data, len);
}

/* Longer than receive 1: a length error, were the CRC right. */
static void c_crc_send_too_long(void)
{
	crc_send_len(RECV_LEN + 36);
}

/* The same beyond DP_RX_INLINE (payload not read with the header). */
static void c_crc_send_too_long_big(void)
{
	crc_send_len(1500);
}

/* Fits in receive 1: it would complete, were the CRC right. */
static void c_crc_send_fits(void)
{
	crc_send_len(RECV_LEN - 1);
}

static void c_crc_send_inv(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_SEND_INV, DDP_QN_SEND);
	m.inv_stag = R[R_RW].stag + 0x1000;
	bad_crc_msg(&m, "inv", 3);
}

static void c_crc_write_bad_stag(void)
{
	struct rdmap_msg m;
	uint8_t data[300];

	memset(data, 0xEE, sizeof(data));
	dp_peer_tagged(P, &m, RDMAP_WRITE, R[R_RW].stag + 0x1000, va(R_RW, 0));
	bad_crc_msg(&m, data, sizeof(data));
}

static void c_crc_write_read_only(void)
{
	struct rdmap_msg m;

	dp_peer_tagged(P, &m, RDMAP_WRITE, R[R_RO].stag, va(R_RO, 0));
	bad_crc_msg(&m, "read-only", 9);
}

/* A Read Request the library would answer: no Read Response. */
static void c_crc_read_req(void)
{
	struct rdmap_read_req r = { 0x5150, 0x1000, 64, R[R_RW].stag,
				    va(R_RW, 0) };
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_READ_REQ, DDP_QN_READ_REQ);
	m.u.read_req = r;
	bad_crc_msg(&m, NULL, 0);
}

static void c_crc_read_req_bad_stag(void)
{
	struct rdmap_read_req r = { 0x5150, 0x1000, 64, R[R_RW].stag + 0x1000,
				    va(R_RW, 0) };
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_READ_REQ, DDP_QN_READ_REQ);
	m.u.read_req = r;
	bad_crc_msg(&m, NULL, 0);
}

/* A FetchAdd the library would run: no effect, no response. */
static void c_crc_atomic(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_ATOMIC_REQ, DDP_QN_READ_REQ);
	m.u.atomic_req.aopcode = RDMAP_AOP_FETCHADD;
	m.u.atomic_req.req_id = 0x77;
	m.u.atomic_req.stag = R[R_RW].stag;
	m.u.atomic_req.to = va(R_RW, 8);
	m.u.atomic_req.add_swap = 1;
	m.u.atomic_req.add_swap_mask = ~0ull;
	m.u.atomic_req.cmp_mask = ~0ull;
	bad_crc_msg(&m, NULL, 0);
}

/* A Read Response to work request 3 naming another STag. */
static void c_crc_read_resp_bad_stag(void)
{
	struct rdmap_msg m;

	dp_peer_tagged(P, &m, RDMAP_READ_RESP, R[R_SINK].stag + 0x1000,
		       va(R_SINK, 0));
	bad_crc_msg(&m, "0123456789abcdef", 16);
}

static void c_crc_msn_range(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	m.ddp.msn += 5;
	bad_crc_msg(&m, "late", 4);
}

static void c_crc_unknown_opcode(void)
{
	static uint8_t u[64];
	struct ddp_hdr h = raw_untagged(0xC, DDP_QN_SEND);

	send_bad_crc(u, dp_raw_build(&h, NULL, 0, "0xC!", 4, u, sizeof(u)));
}

/* A Terminate of the peer: not acted upon, no event of it. */
static void c_crc_terminate(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_TERMINATE, DDP_QN_TERMINATE);
	m.u.term.layer = RDMAP_TERM_LAYER_RDMAP;
	m.u.term.etype = RDMAP_ETYPE_REMOTE_OP;
	m.u.term.ecode = RDMAP_ECODE_UNEXPECTED_OP;
	bad_crc_msg(&m, NULL, 0);
}

/* With CRC on, a bad marker also spoils the CRC: code 3 or 2. */
static void c_bad_marker_too_long(void)
{
	struct rdmap_msg m;
	uint8_t u[1024], data[RECV_LEN + 200];
	size_t n, w, at = MPA_MARKER_INTERVAL - P->tx.off % MPA_MARKER_INTERVAL;

	memset(data, 'm', sizeof(data));
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	n = dp_msg_build(&m, data, sizeof(data), u, sizeof(u));
	w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	ck_assert_uint_lt(at + MPA_MARKER_LEN, w);
	P->out[at + 2] ^= 0x01;
	dp_peer_write(P, P->out, w);
	SEG_LEN = 0;
}

static void c_write_bad_stag(void)
{
	write_to(R[R_RW].stag + 0x1000, va(R_RW, 0), 16);
}

static void c_write_stale_key(void)
{
	uint32_t s = R[R_RW].stag;

	write_to((s & ~0xffu) | ((s + 1) & 0xffu), va(R_RW, 0), 16);
}

static void c_read_bad_stag(void)
{
	read_of(R[R_RW].stag + 0x1000, va(R_RW, 0), 16);
}

static void c_write_past_end(void)
{
	write_to(R[R_RW].stag, va(R_RW, REGION - 8), 16);
}

static void c_write_before_start(void)
{
	write_to(R[R_RW].stag, va(R_RW, 0) - 4, 8);
}

static void c_read_past_end(void)
{
	read_of(R[R_RW].stag, va(R_RW, REGION - 100), 200);
}

static void c_read_size_huge(void)
{
	read_of(R[R_RW].stag, va(R_RW, 0), UINT32_MAX);
}

static void c_write_wrap(void)
{
	write_to(R[R_RW].stag, UINT64_MAX - 3, 16);
}

static void c_read_wrap(void)
{
	read_of(R[R_RW].stag, UINT64_MAX - 3, 16);
}

static void c_write_read_only(void)
{
	write_to(R[R_RO].stag, va(R_RO, 0), 16);
}

static void c_read_write_only(void)
{
	read_of(R[R_WO].stag, va(R_WO, 0), 16);
}

static void c_atomic_no_right(void)
{
	atomic_at(R[R_NOAT].stag, va(R_NOAT, 8));
}

static void c_write_invalidated(void)
{
	invalidate(R[R_INV].stag);
	write_to(R[R_INV].stag, va(R_INV, 0), 16);
}

static void c_read_invalidated(void)
{
	invalidate(R[R_INV].stag);
	read_of(R[R_INV].stag, va(R_INV, 0), 16);
}

static void c_write_other_pd(void)
{
	write_to(R[R_OTHER].stag, va(R_OTHER, 0), 16);
}

static void c_read_other_pd(void)
{
	read_of(R[R_OTHER].stag, va(R_OTHER, 0), 16);
}

static void c_atomic_other_pd(void)
{
	atomic_at(R[R_OTHER].stag, va(R_OTHER, 8));
}

static void c_send_inv_bad_stag(void)
{
	SEG_LEN = dp_peer_send(P, RDMAP_SEND_INV, R[R_RW].stag + 0x1000, "x", 1,
			       SEG);
}

static void c_send_inv_other_pd(void)
{
	SEG_LEN = dp_peer_send(P, RDMAP_SEND_SE_INV, R[R_OTHER].stag, "x", 1,
			       SEG);
}

static void c_msn_range(void)
{
	struct rdmap_msg m;

	/* Two receives posted: MSN next+5 is outside their range. */
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	m.ddp.msn += 5;
	send_msg(&m, "late", 4);
}

static void c_msn_no_buffer(void)
{
	SEG_LEN = dp_peer_send(P, RDMAP_SEND, 0, "nobuf", 5, SEG);
}

static void c_qn_invalid(void)
{
	struct ddp_hdr h = raw_untagged(RDMAP_SEND, 5);

	send_raw(&h, NULL, 0, "qn5", 3);
}

static void c_send_too_long(void)
{
	uint8_t data[RECV_LEN + 36];

	memset(data, 'L', sizeof(data));
	SEG_LEN = dp_peer_send(P, RDMAP_SEND, 0, data, sizeof(data), SEG);
}

static void c_send_bad_mo(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	m.ddp.mo = 1000;
	send_msg(&m, "far away", 8);
}

static void c_unknown_opcode(void)
{
	struct ddp_hdr h = raw_untagged(0xC, DDP_QN_SEND);

	send_raw(&h, NULL, 0, "0xC!", 4);
}

static void c_imm_data_long(void)
{
	struct ddp_hdr h = raw_untagged(RDMAP_IMM_DATA, DDP_QN_SEND);

	/* RFC 7306 §6.3: exactly 8 octets; these are 16. */
	send_raw(&h, NULL, 0, "0123456789abcdef", 16);
}

static void c_read_req_long(void)
{
	struct ddp_hdr h = raw_untagged(RDMAP_READ_REQ, DDP_QN_READ_REQ);
	struct rdmap_read_req r = { 0x5150, 0x1000, 16, R[R_RW].stag,
				    va(R_RW, 0) };
	uint8_t hdr[RDMAP_READ_REQ_LEN];

	ck_assert_int_eq(rdmap_read_req_build(&r, hdr, sizeof(hdr)), WIRE_OK);
	/* RFC 5040 §4.4: a Read Request is 28 octets; 4 more follow. */
	send_raw(&h, hdr, sizeof(hdr), "more", 4);
}

static void c_atomic_misaligned(void)
{
	atomic_at(R[R_RW].stag, va(R_RW, 12));
}

static void c_read_beyond_ird(void)
{
	uint8_t seg[3][64];
	size_t n[3];
	int k;

	/*
	 * IRD 2: three Read Requests of 2 MiB in one write, while the
	 * library's tiny send buffer keeps the first response in flight.
	 */
	for (k = 0; k < 3; k++) {
		struct rdmap_read_req r = { 0x5150, (uint64_t)k * IRD_READ,
					    IRD_READ, R[R_BIG].stag,
					    va(R_BIG, (size_t)k * IRD_READ) };
		struct rdmap_msg m;

		dp_peer_untagged(P, &m, RDMAP_READ_REQ, DDP_QN_READ_REQ);
		m.u.read_req = r;
		n[k] = dp_msg_build(&m, NULL, 0, seg[k], sizeof(seg[k]));
	}
	{
		static uint8_t wire[1024];
		size_t w = 0;

		for (k = 0; k < 3; k++)
			w += dp_peer_fpdu(P, seg[k], n[k], wire + w,
					  sizeof(wire) - w);
		dp_peer_write(P, wire, w);
	}
	memcpy(SEG, seg[2], n[2]);
	SEG_LEN = n[2];
}

static void c_ddp_version_tagged(void)
{
	struct rdmap_msg m;

	dp_peer_tagged(P, &m, RDMAP_WRITE, R[R_RW].stag, va(R_RW, 0));
	m.ddp.dv ^= 1;
	send_msg(&m, "dv", 2);
}

static void c_ddp_version_untagged(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	m.ddp.dv ^= 1;
	send_msg(&m, "dv", 2);
}

static void c_rdmap_version(void)
{
	struct rdmap_msg m;

	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	m.rv ^= 1;
	send_msg(&m, "rv", 2);
}

static void c_term_rx(void)
{
	dp_peer_term(P, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		     RDMAP_ECODE_UNEXPECTED_OP, NULL, 0);
}

static void c_close_mid_fpdu(void)
{
	struct rdmap_msg m;
	uint8_t u[64];
	size_t n, w;

	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	n = dp_msg_build(&m, "cut in the middle", 17, u, sizeof(u));
	w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	dp_peer_write(P, P->out, w / 2);
	dp_idle(20);
}

/* A Send too long for receive 1, cut short: its header decided nothing. */
static void c_close_mid_too_long(void)
{
	struct rdmap_msg m;
	uint8_t u[256], data[RECV_LEN + 36];
	size_t n, w;

	memset(data, 'L', sizeof(data));
	dp_peer_untagged(P, &m, RDMAP_SEND, DDP_QN_SEND);
	n = dp_msg_build(&m, data, sizeof(data), u, sizeof(u));
	w = dp_peer_fpdu(P, u, n, P->out, sizeof(P->out));
	dp_peer_write(P, P->out, w - 6);
	dp_idle(20);
}

/* clang-format off */
const struct hcase hostile_cases[] = {
	/* MPA (RFC 5044 §8): no headers copied (Figure 10, LLP). */
	{ "bad_crc", c_bad_crc, 0,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "bad_marker", c_bad_marker, H_CRC_OFF | H_MARKERS,
	  { T(LLP, MPA, MPA_ECODE_MARKER), NONE }, -1 },
	/*
	 * RFC 5044 §8 before any header check: the same offences (or none)
	 * with a bad CRC give code 2 and nothing else (item 4 of issue 10).
	 */
	{ "crc_send_fits", c_crc_send_fits, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_send_too_long", c_crc_send_too_long, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_send_too_long_big", c_crc_send_too_long_big, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_send_inv", c_crc_send_inv, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_write_bad_stag", c_crc_write_bad_stag, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, R_RW },
	{ "crc_write_read_only", c_crc_write_read_only, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, R_RO },
	{ "crc_read_req", c_crc_read_req, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_read_req_bad_stag", c_crc_read_req_bad_stag, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_atomic", c_crc_atomic, H_TERM_ONLY | H_V1,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, R_RW },
	{ "crc_read_resp_bad_stag", c_crc_read_resp_bad_stag, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, R_SINK },
	{ "crc_msn_range", c_crc_msn_range, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_unknown_opcode", c_crc_unknown_opcode, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "crc_terminate", c_crc_terminate, H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), NONE }, -1 },
	{ "bad_marker_too_long", c_bad_marker_too_long,
	  H_MARKERS | H_TERM_ONLY,
	  { T(LLP, MPA, MPA_ECODE_CRC), T(LLP, MPA, MPA_ECODE_MARKER) },
	  -1 },
	/* Tagged placement (RFC 5041 §7.1, §7.2 type 1). */
	{ "write_bad_stag", c_write_bad_stag, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_INVALID_STAG), NONE }, R_RW },
	{ "write_stale_key", c_write_stale_key, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_INVALID_STAG), NONE }, R_RW },
	{ "write_past_end", c_write_past_end, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_BASE_BOUNDS), NONE }, R_RW },
	{ "write_before_start", c_write_before_start, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_BASE_BOUNDS), NONE }, R_RW },
	/*
	 * TO + length wraps 64 bits: the TO is outside the region too, and
	 * §7.1 orders no check before another, so either code is right.
	 */
	{ "write_wrap", c_write_wrap, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_BASE_BOUNDS),
	    T(DDP, TAGGED, DDP_ECODE_T_TO_WRAP) }, R_RW },
	/*
	 * Placement into a region without REMOTE_WRITE: RFC 5040 Figure 10
	 * leaves the RDMA Remote Protection types to Read Requests and Sends
	 * with Invalidate, so a Write's error is a DDP tagged buffer error;
	 * §7.2 of RFC 5041 has no access code: RFC 5041 §7.1 check 2 (an
	 * STag whose buffer allows the placement) is what failed.
	 */
	{ "write_read_only", c_write_read_only, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_INVALID_STAG),
	    T(DDP, TAGGED, DDP_ECODE_T_BASE_BOUNDS) }, R_RO },
	{ "write_invalidated", c_write_invalidated, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_INVALID_STAG), NONE }, R_INV },
	{ "write_other_pd", c_write_other_pd, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_STAG_NOT_ASSOC), NONE }, R_OTHER },
	{ "ddp_version_tagged", c_ddp_version_tagged, 0,
	  { T(DDP, TAGGED, DDP_ECODE_T_INVALID_VERSION), NONE }, R_RW },
	/* Read Requests (RFC 5040 §7.2): RDMAP Remote Protection, R set. */
	{ "read_bad_stag", c_read_bad_stag, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_INVALID_STAG), NONE }, -1 },
	{ "read_past_end", c_read_past_end, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_BASE_BOUNDS), NONE }, -1 },
	{ "read_size_huge", c_read_size_huge, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_BASE_BOUNDS), NONE }, -1 },
	{ "read_wrap", c_read_wrap, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_BASE_BOUNDS),
	    T(RDMAP, REMOTE_PROT, RDMAP_ECODE_TO_WRAP) }, -1 },
	{ "read_write_only", c_read_write_only, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_ACCESS), NONE }, -1 },
	{ "read_invalidated", c_read_invalidated, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_INVALID_STAG), NONE }, -1 },
	{ "read_other_pd", c_read_other_pd, 0,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_STAG_NOT_ASSOC), NONE }, -1 },
	/* Sends with Invalidate (§7.2 checks 4, 5). */
	{ "send_inv_bad_stag", c_send_inv_bad_stag, H_HIT_RECV,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_INVALID_STAG), NONE }, -1 },
	/* RFC 5040 §5.3 names "STag Cannot be Invalidated" for this */
	{ "send_inv_other_pd", c_send_inv_other_pd, H_HIT_RECV,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_CANT_INVALIDATE), NONE },
	  R_OTHER },
	/* Untagged placement (RFC 5041 §7.1, §7.2 type 2). */
	{ "msn_range", c_msn_range, 0,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_MSN_RANGE), NONE }, -1 },
	{ "msn_no_buffer", c_msn_no_buffer, H_NO_RECV,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_MSN_NOBUF), NONE }, -1 },
	{ "qn_invalid", c_qn_invalid, 0,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_QN), NONE }, -1 },
	{ "send_too_long", c_send_too_long, H_HIT_RECV,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_TOO_LONG), NONE }, -1 },
	{ "send_bad_mo", c_send_bad_mo, H_HIT_RECV,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_MO), NONE }, -1 },
	{ "ddp_version_untagged", c_ddp_version_untagged, 0,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_VERSION), NONE }, -1 },
	/* RDMAP Remote Operation errors (RFC 5040 §7.2, RFC 7306 §8.2). */
	{ "rdmap_version", c_rdmap_version, 0,
	  { T(RDMAP, REMOTE_OP, RDMAP_ECODE_INVALID_VERSION), NONE }, -1 },
	{ "unknown_opcode", c_unknown_opcode, 0,
	  { T(RDMAP, REMOTE_OP, RDMAP_ECODE_UNEXPECTED_OP), NONE }, -1 },
	{ "imm_data_long", c_imm_data_long, H_V1 | H_HIT_RECV,
	  { T(RDMAP, REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_STREAM), NONE },
	  -1 },
	{ "read_req_long", c_read_req_long, 0,
	  { T(RDMAP, REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_STREAM), NONE },
	  -1 },
	{ "atomic_misaligned", c_atomic_misaligned, H_V1,
	  { T(RDMAP, REMOTE_OP, RDMAP_ECODE_CATASTROPHIC_STREAM), NONE },
	  R_RW },
	{ "atomic_no_right", c_atomic_no_right, H_V1,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_ACCESS), NONE }, R_NOAT },
	{ "atomic_other_pd", c_atomic_other_pd, H_V1,
	  { T(RDMAP, REMOTE_PROT, RDMAP_ECODE_STAG_NOT_ASSOC), NONE },
	  R_OTHER },
	/* More Read Requests than IRD: no QN 1 buffer for the third. */
	{ "read_beyond_ird", c_read_beyond_ird, H_SNDBUF,
	  { T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_MSN_NOBUF),
	    T(DDP, UNTAGGED, DDP_ECODE_U_INVALID_MSN_RANGE) }, -1 },
	/* The peer terminates, or goes away in the middle of an FPDU. */
	{ "terminate_received", c_term_rx, H_TERM_RX, { NONE, NONE }, -1 },
	{ "close_mid_fpdu", c_close_mid_fpdu, H_CLOSE, { NONE, NONE }, -1 },
	{ "reset_mid_fpdu", c_close_mid_fpdu, H_CLOSE | H_RESET,
	  { NONE, NONE }, -1 },
	{ "close_mid_too_long", c_close_mid_too_long, H_CLOSE,
	  { NONE, NONE }, -1 },
	{ "reset_mid_too_long", c_close_mid_too_long, H_CLOSE | H_RESET,
	  { NONE, NONE }, -1 },
};
/* clang-format on */

const size_t n_hostile_cases = ARRAY_SIZE(hostile_cases);
