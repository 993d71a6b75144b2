/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * A hostile peer against one libiwcm QP.  The raw FPDU peer (dp_peer.h)
 * sends one offending message per case; the test asserts the exact
 * Terminate the library answers with (layer, type and code of RFC 5040
 * §4.8 Figure 9, RFC 5041 §7.2, RFC 5044 §8, RFC 7306 §8, and the headers
 * Figure 10 copies), that nothing follows it, that the QP is in error
 * with the async event carrying the same codes, that every outstanding
 * work request is flushed with IWCM_WC_WR_FLUSH_ERR, and that no byte
 * was written outside, or into, any region the peer had no right to:
 * every registered buffer sits between PROT_NONE guard pages and canary
 * octets.  The process surviving is the test completing.  Then a
 * Terminate received and the peer closing in the middle of an FPDU.
 *
 * Each case runs in three variants: RDMAP/DDP version 1 without markers
 * (progress thread), version 1 with markers both ways (manual progress),
 * version 0 with markers and CRC as an RDMA Consortium peer uses them.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

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

static struct dp_ep E;
static struct dp_peer *P;
static struct iwcm_pd *pd2;
static struct iwcm_synth ST;

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

static struct region R[R_N] = {
	[R_RW] = { "rw", ACC_ALL, 0x11, REGION, 0 },
	[R_RO] = { "read-only", IWCM_ACCESS_REMOTE_READ, 0x22, REGION, 0 },
	[R_WO] = { "write-only",
		   IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE, 0x33,
		   REGION, 0 },
	[R_NOAT] = { "no-atomic",
		     IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |
			     IWCM_ACCESS_REMOTE_READ,
		     0x44, REGION, 0 },
	[R_INV] = { "to-invalidate", ACC_ALL, 0x55, REGION, 0 },
	[R_OTHER] = { "other-pd", ACC_ALL, 0x66, REGION, 1 },
	[R_SINK] = { "read-sink", IWCM_ACCESS_LOCAL_WRITE, 0x77, REGION, 0 },
	[R_RECV] = { "receives", IWCM_ACCESS_LOCAL_WRITE, 0x88, 2 * RECV_LEN,
		     0 },
	[R_BIG] = { "big", IWCM_ACCESS_REMOTE_READ, 0x99, REGION, 0 },
};

/* The offending segment, for the Terminate's copied headers. */
static uint8_t SEG[MPA_ULPDU_MAX + 1];
static size_t SEG_LEN;
static bool recv1_done;	 /* the case consumed receive 1 */
static bool read_posted; /* work request 3: a Read never answered */

static uint64_t va(int r, size_t off)
{
	return (uintptr_t)R[r].b.p + off;
}

/* ---- setup ---- */

static void setup(unsigned int flags, int var)
{
	int fd[2], i;
	int markers = var > 0 || (flags & H_MARKERS);

	memset(&ST, 0, sizeof(ST));
	ST.initiator = 0;
	ST.version = var == 2 ? 0 : 1;
	ST.mpa_rev = var == 2 ? 0 : 2;
	ST.crc = !(flags & H_CRC_OFF);
	ST.markers_tx = ST.markers_rx = markers;
	/* A marker falls 12 octets into the peer's first FPDU. */
	ST.rx_offset = 500;
	ST.tx_offset = 20;
	ST.ird = 2;
	ST.ord = 4;
	for (i = 0; i < 4; i++)
		ST.next_msn[i] = 1;
	ST.atomics = ST.imm_data = ST.version == 1;

	dp_sockpair(0, fd);
	if (flags & H_SNDBUF) {
		int sz = 4096;

		ck_assert_int_eq(setsockopt(fd[0], SOL_SOCKET, SO_SNDBUF, &sz,
					    sizeof(sz)),
				 0);
	}
	dp_ep_open(&E, var == 1 ? IWCM_CTX_MANUAL_PROGRESS : 0);
	pd2 = iwcm_alloc_pd(E.ctx);
	ck_assert_ptr_nonnull(pd2);
	R[R_BIG].len = flags & H_SNDBUF ? BIG_LEN : REGION;
	for (i = 0; i < R_N; i++) {
		struct region *r = &R[i];

		dp_buf_new(&r->b, r->len, CANARY, r->fill);
		r->mr = iwcm_reg_mr(r->other_pd ? pd2 : E.pd, r->b.p, r->len,
				    r->access);
		ck_assert_msg(r->mr, "iwcm_reg_mr(%s): %s", r->name,
			      strerror(errno));
		r->stag = iwcm_mr_get_stag(r->mr);
	}
	dp_ep_qp(&E, fd[0], &ST, NULL);
	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_peer_init(P, fd[1], &ST);

	recv1_done = false;
	SEG_LEN = 0;
	if (!(flags & H_NO_RECV)) {
		dp_post_recv(E.qp, 1, R[R_RECV].mr, R[R_RECV].b.p, RECV_LEN);
		dp_post_recv(E.qp, 2, R[R_RECV].mr, R[R_RECV].b.p + RECV_LEN,
			     RECV_LEN);
	}
	/* An outstanding Read the peer never answers: it must flush. */
	read_posted = !(flags & H_SNDBUF);
	if (read_posted) {
		struct iwcm_send_wr wr;
		struct iwcm_sge sg;
		struct dp_msg *m;

		dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 3, R[R_SINK].mr,
		      R[R_SINK].b.p, 16);
		wr.wr.rdma.remote_addr = 0x7000;
		wr.wr.rdma.rkey = 0xabcdef01;
		dp_post_send(E.qp, &wr);
		m = dp_peer_expect(P, RDMAP_READ_REQ);
		ck_assert_uint_eq(m->m.u.read_req.size, 16);
	}
}

static void teardown(void)
{
	int i;

	for (i = 0; i < R_N; i++) {
		ck_assert_int_eq(iwcm_dereg_mr(R[i].mr), 0);
		dp_buf_free(&R[i].b);
	}
	ck_assert_int_eq(iwcm_dealloc_pd(pd2), 0);
	dp_ep_close(&E);
	dp_peer_close(P);
	free(P);
	P = NULL;
}

/* ---- building offending messages ---- */

static void send_seg(const uint8_t *u, size_t n)
{
	memcpy(SEG, u, n);
	SEG_LEN = n;
	dp_peer_send_ulpdu(P, u, n);
}

static void send_msg(const struct rdmap_msg *m, const void *data, size_t len)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];

	send_seg(u, dp_msg_build(m, data, len, u, sizeof(u)));
}

/* A DDP header of the peer for a raw build (any QN, opcode, version). */
static struct ddp_hdr raw_untagged(uint8_t opcode, uint32_t qn)
{
	struct ddp_hdr h;

	memset(&h, 0, sizeof(h));
	h.last = true;
	h.dv = P->dv;
	h.rsvd_ulp8 = (uint8_t)(P->rv << RDMAP_RV_SHIFT | opcode);
	h.qn = qn;
	h.msn = qn < 4 ? P->msn[qn]++ : 1;
	return h;
}

static void send_raw(const struct ddp_hdr *h, const void *hdr, size_t hlen,
		     const void *payload, size_t plen)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];

	send_seg(u, dp_raw_build(h, hdr, hlen, payload, plen, u, sizeof(u)));
}

static void write_to(uint32_t stag, uint64_t to, size_t len)
{
	static uint8_t data[256];

	memset(data, 0xEE, sizeof(data));
	SEG_LEN = dp_peer_write_seg(P, stag, to, data, len, SEG);
}

static void read_of(uint32_t stag, uint64_t to, uint32_t size)
{
	struct rdmap_read_req r = { 0x5150, 0x1000, size, stag, to };

	SEG_LEN = dp_peer_read_req(P, &r, SEG);
}

static void atomic_at(uint32_t stag, uint64_t to)
{
	struct rdmap_atomic_req a;

	memset(&a, 0, sizeof(a));
	a.aopcode = RDMAP_AOP_FETCHADD;
	a.req_id = 0x77;
	a.stag = stag;
	a.to = to;
	a.add_swap = 1;
	a.cmp_mask = ~0ull;
	SEG_LEN = dp_peer_atomic_req(P, &a, SEG);
}

/* The peer's Send with Invalidate of stag, delivered into receive 1. */
static void invalidate(uint32_t stag)
{
	struct iwcm_wc wc;

	dp_peer_send(P, RDMAP_SEND_INV, stag, "inv", 3, NULL);
	dp_wc(E.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_stag, stag);
	recv1_done = true;
}

/* ---- the cases ---- */

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

/* clang-format off */
static const struct hcase cases[] = {
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

/* Every outstanding work request flushes, each exactly once. */
static void check_flushed(const struct hcase *c)
{
	bool seen[4] = { false, false, false, false };
	bool want[4] = { false, false, false, false };
	struct iwcm_wc wc;
	int k;

	want[1] = !(c->flags & H_NO_RECV) && !recv1_done;
	want[2] = !(c->flags & H_NO_RECV);
	want[3] = read_posted;
	for (;;) {
		/* Until every one came, then a little more for extras. */
		int ms = memcmp(seen, want, sizeof(seen)) ? DP_TIMEOUT_MS : 20;
		long long end = dp_ms() + ms;
		int got = 0;

		while (!got && dp_ms() < end)
			got = dp_poll(E.rcq, &wc, 0) || dp_poll(E.scq, &wc, 1);
		if (!got)
			break;
		ck_assert_msg(wc.wr_id >= 1 && wc.wr_id <= 3 &&
				      want[wc.wr_id] && !seen[wc.wr_id],
			      "unexpected completion wr_id %llu status %s",
			      (unsigned long long)wc.wr_id,
			      iwcm_wc_status_str(wc.status));
		seen[wc.wr_id] = true;
		ck_assert_ptr_eq(wc.qp, E.qp);
		if (wc.wr_id == 1 && (c->flags & H_HIT_RECV))
			/* the offending Send's own receive: any error */
			ck_assert_int_ne(wc.status, IWCM_WC_SUCCESS);
		else if (wc.wr_id == 3 && (c->flags & H_TERM_RX) &&
			 wc.status != IWCM_WC_WR_FLUSH_ERR)
			/* the Read waiting for its response may take the
			 * blame, with the Terminate's codes */
			ck_assert_msg(wc.status == IWCM_WC_REM_OP_ERR &&
					      wc.vendor_err == TERM_RX_CODES,
				      "Read: %s vendor_err 0x%x",
				      iwcm_wc_status_str(wc.status),
				      wc.vendor_err);
		else
			ck_assert_msg(wc.status == IWCM_WC_WR_FLUSH_ERR,
				      "wr_id %llu: %s, expected a flush",
				      (unsigned long long)wc.wr_id,
				      iwcm_wc_status_str(wc.status));
	}
	for (k = 1; k <= 3; k++)
		ck_assert_msg(seen[k] == want[k], "wr_id %d %s", k,
			      want[k] ? "never completed" : "?");
	/* Posting on a QP in error fails or flushes at once. */
	{
		struct iwcm_send_wr wr, *bad = NULL;
		struct iwcm_sge sg;

		dp_wr(&wr, &sg, IWCM_WR_SEND, 4, R[R_SINK].mr, R[R_SINK].b.p,
		      4);
		if (iwcm_post_send(E.qp, &wr, &bad) == 0) {
			dp_wc(E.scq, &wc);
			ck_assert_uint_eq(wc.wr_id, 4);
			ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		}
	}
}

static void check_memory(const struct hcase *c)
{
	int i;

	for (i = 0; i < R_N; i++) {
		const struct region *r = &R[i];
		size_t k;

		ck_assert_msg(dp_buf_canaries_ok(&r->b),
			      "bytes written around region %s", r->name);
		if (i == R_RECV)
			continue; /* receives may take partial data */
		for (k = 0; k < r->len && r->b.p[k] == r->fill; k++)
			;
		ck_assert_msg(k == r->len, "region %s changed at %zu%s",
			      r->name, k,
			      i == c->untouched ? " (the target)" : "");
	}
}

START_TEST(t_hostile)
{
	const struct hcase *c = &cases[_i / NVAR];
	int var = _i % NVAR;
	struct iwcm_async_event ev;
	struct dp_msg *t;
	const uint8_t *e;

	if (var == 2 && (c->flags & H_V1))
		var = 1; /* RFC 7306 needs version 1 */
	setup(c->flags, var);
	c->fn();

	if (c->flags & H_TERM_RX) {
		/* RFC 5040 §5.4: surfaced with its codes; nothing back. */
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		ck_assert_ptr_eq(ev.qp, E.qp);
		ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_RDMAP);
		ck_assert_uint_eq(ev.term_etype, RDMAP_ETYPE_REMOTE_OP);
		ck_assert_uint_eq(ev.term_ecode, RDMAP_ECODE_UNEXPECTED_OP);
		t = dp_peer_recv(P, 200);
		ck_assert_msg(!t || t->m.opcode != RDMAP_TERMINATE,
			      "a Terminate answered a Terminate");
	} else if (c->flags & H_CLOSE) {
		if (c->flags & H_RESET) {
			struct linger l = { 1, 0 };

			ck_assert_int_eq(setsockopt(P->fd, SOL_SOCKET,
						    SO_LINGER, &l, sizeof(l)),
					 0);
			dp_peer_close(P);
		} else {
			ck_assert_int_eq(shutdown(P->fd, SHUT_WR), 0);
		}
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
		ck_assert_ptr_eq(ev.qp, E.qp);
	} else {
		P->term_only = c->flags & H_TERM_ONLY;
		t = dp_peer_recv_term(P);
		e = c->exp[0];
		if (c->exp[1][0] != 0xFF && t->m.u.term.ecode == c->exp[1][2] &&
		    t->m.u.term.layer == c->exp[1][0])
			e = c->exp[1];
		dp_check_term(t, e[0], e[1], e[2], SEG_LEN ? SEG : NULL,
			      SEG_LEN);
		/* RFC 5040 §5.4: nothing after the Terminate. */
		t = dp_peer_recv(P, 50);
		ck_assert_msg(!t, "the library sent %s after its Terminate",
			      t ? rdmap_opcode_name(t->m.opcode) : "");
		/* The async event carries what was sent. */
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ck_assert_ptr_eq(ev.qp, E.qp);
		ck_assert_uint_eq(ev.term_layer, e[0]);
		ck_assert_uint_eq(ev.term_etype, e[1]);
		ck_assert_uint_eq(ev.term_ecode, e[2]);
	}
	ck_assert_int_eq(dp_qp_state(E.qp), IWCM_QPS_ERROR);
	check_flushed(c);
	check_memory(c);
	teardown();
}
END_TEST

static Suite *dp_hostile_suite(void)
{
	Suite *s = suite_create("dp_hostile");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_set_timeout(tc, 60);
		tcase_add_loop_test(tc, t_hostile, (int)i * NVAR,
				    (int)i * NVAR + NVAR);
		suite_add_tcase(s, tc);
	}
	return s;
}

TEST_MAIN(dp_hostile_suite)
