/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Every datapath operation between two libiwcm QPs back to back (two
 * detached contexts over a socketpair or a loopback TCP pair, each
 * connection synthesized from mirrored handoff state), over a matrix of
 * 16 configurations: DDP/RDMAP version 1 and 0, markers off / in a's
 * direction / in b's direction / both, CRC on and off, stream offsets 0,
 * 20, 508, 509 and one above 4 GiB, next MSNs other than 1, TCP or
 * AF_UNIX, and the progress thread or manual progress on either side;
 * then 4 more with DDP over SCTP's framing (RFC 5043: one segment per
 * datagram of the daemon's relay format, no markers, no CRC) at segment
 * sizes from 516 to 65535.
 * Payloads are checked byte for byte and every completion field is
 * checked.  Then the completion channel with solicited-only notification,
 * a shared receive queue, against the raw peer the ORD limit, the seed
 * draft's Swap refused by an RFC 7306 peer and the handoff's MSNs, the
 * handoff's unread octets, and the two progress modes.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "dp_peer.h"

#define NCFG 16
#define NSCTP 4 /* configurations NCFG.. run DDP over SCTP */
#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define BIG (300 * 1000)   /* several DDP segments whatever the MULPDU */
#define ANY_LEN UINT32_MAX /* byte_len not checked */

static struct dp_cfg C;
static struct dp_ep A, B;

/* ---- the configuration matrix ---- */

static const uint64_t offs[] = { 0, 20, 508, 509, (1ull << 32) + 1000 };

/*
 * Configuration i: bit 0 version 0, bit 1 markers a->b, bit 2 markers
 * b->a, bit 3 CRC off; offsets, MSNs, transport and progress modes vary
 * with i too so that every one appears with markers on.
 */
static void cfg_matrix(int i, struct dp_cfg *c)
{
	static const uint32_t sctp_seg[NSCTP] = { 516, 1452, 9000, 65535 };

	dp_cfg_default(c);
	if (i >= NCFG) {
		/* RFC 5043 §9: segments of at least 516 octets */
		c->sctp = 1;
		c->sctp_maxseg = sctp_seg[i - NCFG];
		c->mpa_rev = 0;
		c->crc = 0;
		c->next_msn[0] = 1 + (uint32_t)(i % 3);
		c->flags_a = i & 1 ? IWCM_CTX_MANUAL_PROGRESS : 0;
		c->flags_b = i & 2 ? IWCM_CTX_MANUAL_PROGRESS : 0;
		return;
	}
	c->version = i & 1 ? 0 : 1;
	c->mpa_rev = c->version ? 1 + (i >> 2 & 1) : 0;
	c->markers_ab = i >> 1 & 1;
	c->markers_ba = i >> 2 & 1;
	c->crc = !(i >> 3 & 1);
	c->off_ab = offs[i % 5];
	c->off_ba = offs[(i + 3) % 5];
	c->next_msn[0] = 1 + (uint32_t)(i % 3);
	c->next_msn[1] = 1 + (uint32_t)(i % 2);
	c->tcp = i % 3 == 1;
	c->flags_a = i % 4 == 3 ? IWCM_CTX_MANUAL_PROGRESS : 0;
	c->flags_b = i % 5 == 2 ? IWCM_CTX_MANUAL_PROGRESS : 0;
	c->atomics = c->imm_data = c->version == 1;
}

/* ---- registered buffers ---- */

struct reg {
	uint8_t *p;
	size_t len;
	struct iwcm_mr *mr;
	uint32_t stag;
};

static struct reg regs[32];
static int n_regs;

static struct reg *reg_new(struct dp_ep *e, size_t len, unsigned int acc)
{
	struct reg *r;

	ck_assert_int_lt(n_regs, (int)ARRAY_SIZE(regs));
	r = &regs[n_regs++];
	r->p = calloc(1, len ? len : 1);
	ck_assert_ptr_nonnull(r->p);
	r->len = len;
	r->mr = dp_reg(e, r->p, len, acc);
	r->stag = iwcm_mr_get_stag(r->mr);
	return r;
}

static void regs_free(void)
{
	int i;

	for (i = 0; i < n_regs; i++) {
		ck_assert_int_eq(iwcm_dereg_mr(regs[i].mr), 0);
		free(regs[i].p);
	}
	n_regs = 0;
}

static void pair_open(int i)
{
	cfg_matrix(i, &C);
	dp_pair_open(&C, &A, &B);
}

static void pair_close(void)
{
	regs_free();
	dp_ep_close(&B);
	dp_ep_close(&A);
}

static uint64_t addr(const void *p)
{
	return (uintptr_t)p;
}

/* The QP reports what the connection was handed. */
static void check_attr(struct dp_ep *e, int markers_tx, int markers_rx,
		       uint32_t ird, uint32_t ord)
{
	struct iwcm_qp_attr at;

	memset(&at, 0, sizeof(at));
	ck_assert_int_eq(iwcm_query_qp(e->qp, &at), 0);
	ck_assert_int_eq(at.state, IWCM_QPS_RTS);
	ck_assert_uint_eq(at.rdmap_version, (uint32_t)C.version);
	ck_assert_int_eq(!!at.markers_tx, markers_tx);
	ck_assert_int_eq(!!at.markers_rx, markers_rx);
	ck_assert_int_eq(!!at.crc, C.crc);
	ck_assert_uint_eq(at.ird, ird);
	ck_assert_uint_eq(at.ord, ord);
	/* RFC 7306 needs RDMAP version 1. */
	ck_assert_int_eq(!!at.atomics, C.version == 1 && C.atomics);
	ck_assert_int_eq(!!at.imm_data, C.version == 1 && C.imm_data);
	/* RFC 5044 §4.5: never below 128, a 16-bit ULPDU_Length. */
	ck_assert_uint_ge(at.mulpdu, 128);
	ck_assert_uint_le(at.mulpdu, MPA_ULPDU_MAX);
	ck_assert_uint_ge(at.max_inline_data, C.max_inline ? C.max_inline : 64);
	ck_assert_ptr_eq(iwcm_qp_get_context(e->qp), e);
}

/* A receive completion with every field checked. */
static void recv_ok(struct dp_ep *e, uint64_t wr_id, int opcode,
		    uint32_t byte_len, unsigned int flags)
{
	struct iwcm_wc wc;

	dp_wc(e->rcq, &wc);
	ck_assert_msg(wc.status == IWCM_WC_SUCCESS,
		      "recv %llu: status %s vendor_err 0x%x",
		      (unsigned long long)wc.wr_id,
		      iwcm_wc_status_str(wc.status), wc.vendor_err);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.opcode, opcode);
	ck_assert_uint_eq(wc.byte_len, byte_len);
	ck_assert_uint_eq(wc.wc_flags, flags);
	ck_assert_ptr_eq(wc.qp, e->qp);
	ck_assert_uint_eq(wc.vendor_err, 0);
}

/* A send-side completion: status, opcode, byte_len, the QP. */
static void send_ok(struct dp_ep *e, uint64_t wr_id, int opcode,
		    uint32_t byte_len)
{
	struct iwcm_wc wc;

	dp_wc(e->scq, &wc);
	ck_assert_msg(wc.status == IWCM_WC_SUCCESS,
		      "wr_id %llu: status %s vendor_err 0x%x",
		      (unsigned long long)wc.wr_id,
		      iwcm_wc_status_str(wc.status), wc.vendor_err);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.opcode, opcode);
	if (byte_len != ANY_LEN)
		ck_assert_uint_eq(wc.byte_len, byte_len);
	ck_assert_ptr_eq(wc.qp, e->qp);
}

/* ---- Send ---- */

/* One direction of the Send test: from s to r. */
static void sends(struct dp_ep *s, struct dp_ep *r)
{
	struct reg *src = reg_new(s, BIG + 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct reg *dst = reg_new(r, BIG + 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct iwcm_sge sg[2], rsg[2];
	struct iwcm_recv_wr rwr = { 1, NULL, rsg, 2, 0 };
	struct iwcm_recv_wr *bad;
	struct iwcm_send_wr wr;

	test_rand_bytes(src->p, src->len);
	/* A receive scattered over two SGEs, then two simple ones. */
	rsg[0] = (struct iwcm_sge){ addr(dst->p + 1), 600, dst->stag };
	rsg[1] = (struct iwcm_sge){ addr(dst->p + 700), 1400, dst->stag };
	ck_assert_int_eq(iwcm_post_recv(r->qp, &rwr, &bad), 0);
	dp_post_recv(r->qp, 2, dst->mr, dst->p + 2200, 64);
	dp_post_recv(r->qp, 3, dst->mr, dst->p + 2400, BIG);

	/* Send of 1000 octets gathered from two SGEs. */
	dp_wr(&wr, sg, IWCM_WR_SEND, 11, src->mr, src->p + 3, 500);
	sg[1] = (struct iwcm_sge){ addr(src->p + 4000), 500, src->stag };
	wr.num_sge = 2;
	dp_post_send(s->qp, &wr);
	/* Send with Solicited Event, 33 octets. */
	dp_wr(&wr, sg, IWCM_WR_SEND, 12, src->mr, src->p + 5000, 33);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	dp_post_send(s->qp, &wr);
	/* A Send larger than any ULPDU: several segments (RFC 5041 §5.2). */
	dp_wr(&wr, sg, IWCM_WR_SEND, 13, src->mr, src->p + 7, BIG);
	dp_post_send(s->qp, &wr);

	send_ok(s, 11, IWCM_WC_SEND, 1000);
	send_ok(s, 12, IWCM_WC_SEND, 33);
	send_ok(s, 13, IWCM_WC_SEND, BIG);
	recv_ok(r, 1, IWCM_WC_RECV, 1000, 0);
	ck_assert(!memcmp(dst->p + 1, src->p + 3, 500));
	ck_assert(!memcmp(dst->p + 501, src->p + 4000, 100));
	ck_assert(!memcmp(dst->p + 700, src->p + 4100, 400));
	recv_ok(r, 2, IWCM_WC_RECV, 33, IWCM_WC_SOLICITED);
	ck_assert(!memcmp(dst->p + 2200, src->p + 5000, 33));
	recv_ok(r, 3, IWCM_WC_RECV, BIG, 0);
	ck_assert(!memcmp(dst->p + 2400, src->p + 7, BIG));
	/* Nothing written around what the receives described. */
	ck_assert_uint_eq(dst->p[0], 0);
	ck_assert_uint_eq(dst->p[601], 0);
	ck_assert_uint_eq(dst->p[2233], 0);
	ck_assert_uint_eq(dst->p[2400 + BIG], 0);
}

START_TEST(t_send)
{
	pair_open(_i);
	check_attr(&A, C.markers_ab, C.markers_ba, C.ird_a, C.ord_a);
	check_attr(&B, C.markers_ba, C.markers_ab, C.ird_b, C.ord_b);
	sends(&A, &B);
	sends(&B, &A);
	dp_no_wc(A.rcq, 0);
	dp_no_wc(B.rcq, 0);
	pair_close();
}
END_TEST

/* ---- Send with Invalidate ---- */

START_TEST(t_send_inv)
{
	struct reg *src, *dst, *t1, *t2;
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;
	size_t k;

	pair_open(_i);
	src = reg_new(&A, 4096, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, 4096, IWCM_ACCESS_LOCAL_WRITE);
	t1 = reg_new(&B, 256,
		     IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	t2 = reg_new(&B, 256, ACC_ALL);
	test_rand_bytes(src->p, src->len);
	dp_post_recv(B.qp, 1, dst->mr, dst->p, 100);
	dp_post_recv(B.qp, 2, dst->mr, dst->p + 100, 100);

	/* RFC 5040 §5.3: Send with Invalidate, then with SE. */
	dp_wr(&wr, &sg, IWCM_WR_SEND_WITH_INV, 21, src->mr, src->p, 10);
	wr.invalidate_stag = t1->stag;
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_SEND_WITH_INV, 22, src->mr, src->p + 10, 90);
	wr.invalidate_stag = t2->stag;
	wr.send_flags |= IWCM_SEND_SOLICITED;
	dp_post_send(A.qp, &wr);
	send_ok(&A, 21, IWCM_WC_SEND, 10);
	send_ok(&A, 22, IWCM_WC_SEND, 90);

	dp_wc(B.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
	ck_assert_uint_eq(wc.byte_len, 10);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_stag, t1->stag);
	dp_wc(B.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_uint_eq(wc.byte_len, 90);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_INV | IWCM_WC_SOLICITED);
	ck_assert_uint_eq(wc.invalidated_stag, t2->stag);
	ck_assert(!memcmp(dst->p, src->p, 10));
	ck_assert(!memcmp(dst->p + 100, src->p + 10, 90));

	/*
	 * The invalidated STag really is invalid: an RDMA Write to it is
	 * a DDP Invalid STag (RFC 5041 §7.1, §7.2) at b, which terminates;
	 * a sees the Terminate, b reports its own error; nothing placed.
	 */
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 23, src->mr, src->p, 64);
	wr.wr.rdma.remote_addr = addr(t1->p);
	wr.wr.rdma.rkey = t1->stag;
	dp_post_send(A.qp, &wr);
	ck_assert(dp_async(A.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	ck_assert_ptr_eq(ev.qp, A.qp);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ck_assert_uint_eq(ev.term_ecode, DDP_ECODE_T_INVALID_STAG);
	ck_assert(dp_async(B.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_ptr_eq(ev.qp, B.qp);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ck_assert_uint_eq(ev.term_ecode, DDP_ECODE_T_INVALID_STAG);
	ck_assert_int_eq(dp_qp_state(A.qp), IWCM_QPS_ERROR);
	ck_assert_int_eq(dp_qp_state(B.qp), IWCM_QPS_ERROR);
	for (k = 0; k < t1->len && !t1->p[k]; k++)
		;
	ck_assert_uint_eq(k, t1->len);
	pair_close();
}
END_TEST

/* ---- RDMA Write ---- */

static void writes(struct dp_ep *s, struct dp_ep *r)
{
	struct reg *src = reg_new(s, BIG + 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct reg *dst =
		reg_new(r, BIG + 4096,
			IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	struct reg *rb = reg_new(r, 64, IWCM_ACCESS_LOCAL_WRITE);
	struct iwcm_send_wr wr;
	struct iwcm_sge sg[2];

	test_rand_bytes(src->p, src->len);
	dp_post_recv(r->qp, 9, rb->mr, rb->p, 64);
	/* Unaligned source and target. */
	dp_wr(&wr, sg, IWCM_WR_RDMA_WRITE, 31, src->mr, src->p + 5, 777);
	wr.wr.rdma.remote_addr = addr(dst->p + 3);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(s->qp, &wr);
	/* Gathered from two SGEs. */
	dp_wr(&wr, sg, IWCM_WR_RDMA_WRITE, 32, src->mr, src->p + 1000, 300);
	sg[1] = (struct iwcm_sge){ addr(src->p + 2000), 200, src->stag };
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = addr(dst->p + 1001);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(s->qp, &wr);
	/* Many segments, TO advancing (RFC 5041 §5.2). */
	dp_wr(&wr, sg, IWCM_WR_RDMA_WRITE, 33, src->mr, src->p + 3000, BIG);
	wr.wr.rdma.remote_addr = addr(dst->p + 2001);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(s->qp, &wr);
	/* RFC 5040 §5.5 rule 10: the Send is delivered after the Writes. */
	dp_wr(&wr, sg, IWCM_WR_SEND, 34, src->mr, src->p, 4);
	dp_post_send(s->qp, &wr);

	send_ok(s, 31, IWCM_WC_RDMA_WRITE, 777);
	send_ok(s, 32, IWCM_WC_RDMA_WRITE, 500);
	send_ok(s, 33, IWCM_WC_RDMA_WRITE, BIG);
	send_ok(s, 34, IWCM_WC_SEND, 4);
	recv_ok(r, 9, IWCM_WC_RECV, 4, 0);
	ck_assert(!memcmp(dst->p + 3, src->p + 5, 777));
	ck_assert(!memcmp(dst->p + 1001, src->p + 1000, 300));
	ck_assert(!memcmp(dst->p + 1301, src->p + 2000, 200));
	ck_assert(!memcmp(dst->p + 2001, src->p + 3000, BIG));
	ck_assert_uint_eq(dst->p[2], 0);
	ck_assert_uint_eq(dst->p[780], 0);
	ck_assert_uint_eq(dst->p[1000], 0);
	ck_assert_uint_eq(dst->p[1501], 0);
	ck_assert_uint_eq(dst->p[2001 + BIG], 0);
	/* A one-sided operation completes nothing at the target. */
	dp_no_wc(r->rcq, 0);
	dp_no_wc(r->scq, 0);
}

START_TEST(t_write)
{
	pair_open(_i);
	writes(&A, &B);
	writes(&B, &A);
	pair_close();
}
END_TEST

/*
 * Posting an RFC 7306 operation on a connection that cannot carry it
 * fails, at post time or as an error completion.
 */
static void unsupported(struct dp_ep *s, struct iwcm_send_wr *wr)
{
	struct iwcm_send_wr *bad = NULL;
	struct iwcm_wc wc;

	if (iwcm_post_send(s->qp, wr, &bad)) {
		ck_assert_ptr_eq(bad, wr);
		return;
	}
	dp_wc(s->scq, &wc);
	ck_assert_uint_eq(wc.wr_id, wr->wr_id);
	ck_assert_int_ne(wc.status, IWCM_WC_SUCCESS);
}

/* ---- RDMA Write with Immediate, Immediate Data ---- */

START_TEST(t_write_imm)
{
	struct reg *src, *dst, *rb;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;
	uint64_t imm = 0x8123456789abcdefull ^ (uint64_t)_i;

	pair_open(_i);
	src = reg_new(&A, 70000, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, 70000,
		      IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	rb = reg_new(&B, 64, IWCM_ACCESS_LOCAL_WRITE);
	test_rand_bytes(src->p, src->len);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE_WITH_IMM, 41, src->mr, src->p,
	      69999);
	wr.wr.rdma.remote_addr = addr(dst->p + 1);
	wr.wr.rdma.rkey = dst->stag;
	wr.imm_data = imm;
	if (C.version == 0) {
		unsupported(&A, &wr);
		pair_close();
		return;
	}
	dp_post_recv(B.qp, 7, rb->mr, rb->p, 64);
	dp_post_send(A.qp, &wr);
	send_ok(&A, 41, IWCM_WC_RDMA_WRITE, 69999);
	/*
	 * RFC 7306 §7: the Immediate Data completes after the Write is
	 * placed and delivered.  byte_len is not checked: the Write and
	 * the Immediate Data are two messages on the wire.
	 */
	dp_wc(B.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_IMM);
	ck_assert_uint_eq(wc.imm_data, imm);
	ck_assert_ptr_eq(wc.qp, B.qp);
	ck_assert(!memcmp(dst->p + 1, src->p, 69999));
	ck_assert_uint_eq(dst->p[0], 0);
	pair_close();
}
END_TEST

START_TEST(t_imm)
{
	struct reg *rb;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	uint64_t imm[4];
	int k;

	pair_open(_i);
	rb = reg_new(&B, 256, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < 4; k++)
		imm[k] = test_rand64() | (uint64_t)(k & 1) << 63;
	memset(&wr, 0, sizeof(wr));
	wr.opcode = IWCM_WR_IMM_DATA;
	wr.send_flags = IWCM_SEND_SIGNALED;
	wr.wr_id = 50;
	wr.imm_data = imm[0];
	if (C.version == 0) {
		unsupported(&A, &wr);
		pair_close();
		return;
	}
	for (k = 0; k < 4; k++)
		dp_post_recv(B.qp, 60 + (uint64_t)k, rb->mr, rb->p + 64 * k,
			     64);
	/* RFC 7306 §6: Immediate Data and Immediate Data with SE. */
	for (k = 0; k < 4; k++) {
		wr.wr_id = 50 + (uint64_t)k;
		wr.imm_data = imm[k];
		wr.send_flags = IWCM_SEND_SIGNALED |
				(k & 1 ? IWCM_SEND_SOLICITED : 0);
		dp_post_send(A.qp, &wr);
	}
	for (k = 0; k < 4; k++) {
		dp_wc(A.scq, &wc);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 50 + (uint64_t)k);
		ck_assert_int_eq(wc.opcode, IWCM_WC_IMM_DATA);
	}
	/* §6.3: delivered in order, one receive each. */
	for (k = 0; k < 4; k++) {
		dp_wc(B.rcq, &wc);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 60 + (uint64_t)k);
		ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_IMM_DATA);
		ck_assert_uint_eq(wc.wc_flags,
				  IWCM_WC_WITH_IMM |
					  (k & 1 ? IWCM_WC_SOLICITED : 0));
		ck_assert_uint_eq(wc.imm_data, imm[k]);
	}
	pair_close();
}
END_TEST

/* ---- RDMA Read ---- */

static void reads(struct dp_ep *s, struct dp_ep *r)
{
	struct reg *src = reg_new(r, BIG + 4096, IWCM_ACCESS_REMOTE_READ);
	struct reg *dst = reg_new(s, BIG + 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct iwcm_send_wr wr, *bad;
	struct iwcm_sge sg[2];
	struct iwcm_qp_attr at;
	bool one_sge = false;
	int err;

	memset(&at, 0, sizeof(at));
	at.comp_mask = IWCM_QP_ATTR_ALL;
	ck_assert_int_eq(iwcm_query_qp(s->qp, &at), 0);
	ck_assert(at.comp_mask & IWCM_QP_ATTR_MAX_SGE_RD);
	ck_assert_uint_ge(at.max_sge_rd, 1);
	test_rand_bytes(src->p, src->len);
	/* One octet, unaligned. */
	dp_wr(&wr, sg, IWCM_WR_RDMA_READ, 71, dst->mr, dst->p + 1, 1);
	wr.wr.rdma.remote_addr = addr(src->p + 4093);
	wr.wr.rdma.rkey = src->stag;
	dp_post_send(s->qp, &wr);
	/*
	 * Scattered into two local SGEs, or refused as max_sge_rd says: a
	 * Read Request names one Data Sink STag (RFC 5040 §4.4), so an
	 * iWARP device may take a single SGE only (as Linux siw does).
	 */
	dp_wr(&wr, sg, IWCM_WR_RDMA_READ, 72, dst->mr, dst->p + 10, 1000);
	sg[1] = (struct iwcm_sge){ addr(dst->p + 2000), 2000, dst->stag };
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = addr(src->p + 7);
	wr.wr.rdma.rkey = src->stag;
	bad = NULL;
	err = iwcm_post_send(s->qp, &wr, &bad);
	if (err) {
		ck_assert_uint_lt(at.max_sge_rd, 2);
		ck_assert_int_eq(err, EINVAL);
		ck_assert_ptr_eq(bad, &wr);
		/* The same 3000 octets into one SGE. */
		dp_wr(&wr, sg, IWCM_WR_RDMA_READ, 72, dst->mr, dst->p + 10,
		      3000);
		wr.wr.rdma.remote_addr = addr(src->p + 7);
		wr.wr.rdma.rkey = src->stag;
		dp_post_send(s->qp, &wr);
		one_sge = true;
	} else {
		ck_assert_uint_ge(at.max_sge_rd, 2);
	}
	/* Larger than the MULPDU: many Read Response segments. */
	dp_wr(&wr, sg, IWCM_WR_RDMA_READ, 73, dst->mr, dst->p + 4001, BIG);
	wr.wr.rdma.remote_addr = addr(src->p + 11);
	wr.wr.rdma.rkey = src->stag;
	dp_post_send(s->qp, &wr);
	/* RFC 5040 §5.2.1: a zero-length Read is answered, not checked. */
	dp_wr(&wr, sg, IWCM_WR_RDMA_READ, 74, NULL, NULL, 0);
	wr.num_sge = 0;
	wr.wr.rdma.remote_addr = addr(src->p);
	wr.wr.rdma.rkey = src->stag;
	dp_post_send(s->qp, &wr);

	send_ok(s, 71, IWCM_WC_RDMA_READ, 1);
	send_ok(s, 72, IWCM_WC_RDMA_READ, 3000);
	send_ok(s, 73, IWCM_WC_RDMA_READ, BIG);
	send_ok(s, 74, IWCM_WC_RDMA_READ, 0);
	ck_assert_uint_eq(dst->p[1], src->p[4093]);
	if (one_sge) {
		ck_assert(!memcmp(dst->p + 10, src->p + 7, 3000));
	} else {
		ck_assert(!memcmp(dst->p + 10, src->p + 7, 1000));
		ck_assert(!memcmp(dst->p + 2000, src->p + 1007, 2000));
		ck_assert_uint_eq(dst->p[1010], 0);
	}
	ck_assert(!memcmp(dst->p + 4001, src->p + 11, BIG));
	ck_assert_uint_eq(dst->p[0], 0);
	ck_assert_uint_eq(dst->p[2], 0);
	ck_assert_uint_eq(dst->p[4000], 0);
	ck_assert_uint_eq(dst->p[4001 + BIG], 0);
	dp_no_wc(r->rcq, 0);
	dp_no_wc(r->scq, 0);
}

START_TEST(t_read)
{
	pair_open(_i);
	reads(&A, &B);
	reads(&B, &A);
	pair_close();
}
END_TEST

/* ---- atomics ---- */

/* RFC 7306 §5.1.1 pseudocode, bit by bit: the oracle of FetchAdd. */
static uint64_t oracle_fetchadd(uint64_t orig, uint64_t add, uint64_t mask)
{
	uint64_t bit_location = 1, carry = 0, val = 0;
	int bit;

	for (bit = 0; bit < 64; bit++) {
		uint64_t v1, v2, sum;

		if (bit != 0)
			bit_location <<= 1;
		v1 = (orig & bit_location) >> bit;
		v2 = (add & bit_location) >> bit;
		sum = carry + v1 + v2;
		carry = (sum & 2) >> 1;
		sum &= 1;
		if (sum)
			val |= bit_location;
		carry = carry && !(mask & bit_location);
	}
	return val;
}

/* RFC 7306 §5.1.2 pseudocode: the oracle of CmpSwap. */
static uint64_t oracle_cmpswap(uint64_t orig, uint64_t cmp, uint64_t cmask,
			       uint64_t swap, uint64_t smask)
{
	if (!((cmp ^ orig) & cmask))
		return (orig & ~smask) | (swap & smask);
	return orig;
}

START_TEST(t_atomics)
{
	struct reg *tgt, *res;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint64_t cur, got, now;
	int k;

	pair_open(_i);
	tgt = reg_new(&B, 64, ACC_ALL);
	res = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	cur = test_rand64();
	memcpy(tgt->p + 16, &cur, 8);
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 80, res->mr, res->p, 8);
	wr.wr.atomic.remote_addr = addr(tgt->p + 16);
	wr.wr.atomic.rkey = tgt->stag;
	if (C.version == 0) {
		unsupported(&A, &wr);
		pair_close();
		return;
	}
	for (k = 0; k < 40; k++) {
		int kind = k % 5;
		uint64_t a = test_rand64(), m = test_rand64();
		uint64_t b = test_rand64(), n = test_rand64();
		uint64_t next;
		int wc_op;

		dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 100 + (uint64_t)k,
		      res->mr, res->p + 8 * (k % 8), 8);
		wr.wr.atomic.remote_addr = addr(tgt->p + 16);
		wr.wr.atomic.rkey = tgt->stag;
		switch (kind) {
		case 0: /* plain 64-bit add: mask 0 */
			m = 0;
			if (k == 0)
				a = ~cur + 1 + 0xffffffffull; /* carries */
							      /* fall through */
		case 1: /* independent fields */
			wr.wr.atomic.compare_add = a;
			wr.wr.atomic.compare_add_mask = m;
			next = oracle_fetchadd(cur, a, m);
			wc_op = IWCM_WC_FETCH_ADD;
			break;
		case 2: /* CmpSwap that matches under the mask */
			b = (cur & n) | (test_rand64() & ~n);
			/* fall through */
		case 3: /* CmpSwap that usually does not */
			wr.opcode = IWCM_WR_ATOMIC_CMP_SWP;
			wr.wr.atomic.compare_add = b;
			wr.wr.atomic.compare_add_mask = n;
			wr.wr.atomic.swap = a;
			wr.wr.atomic.swap_mask = m;
			next = oracle_cmpswap(cur, b, n, a, m);
			wc_op = IWCM_WC_COMP_SWAP;
			break;
		default: /* the seed draft's Swap, to a peer that has it */
			wr.opcode = IWCM_WR_ATOMIC_SWAP;
			wr.wr.atomic.swap = a;
			next = a;
			wc_op = IWCM_WC_SWAP;
			break;
		}
		dp_post_send(A.qp, &wr);
		send_ok(&A, 100 + (uint64_t)k, wc_op, 8);
		/* The original value comes back; memory holds the result. */
		memcpy(&got, res->p + 8 * (k % 8), 8);
		ck_assert_msg(got == cur,
			      "op %d kind %d: got %016llx, "
			      "original %016llx",
			      k, kind, (unsigned long long)got,
			      (unsigned long long)cur);
		memcpy(&now, tgt->p + 16, 8);
		ck_assert_msg(now == next,
			      "op %d kind %d: memory %016llx, "
			      "expected %016llx",
			      k, kind, (unsigned long long)now,
			      (unsigned long long)next);
		cur = next;
	}
	for (k = 0; k < 64; k++)
		if (k < 16 || k >= 24)
			ck_assert_uint_eq(tgt->p[k], 0);
	dp_no_wc(B.rcq, 0);
	pair_close();
}
END_TEST

/* ---- INLINE and zero-length operations ---- */

START_TEST(t_inline)
{
	struct reg *dst, *rb;
	struct iwcm_send_wr wr, *bad;
	struct iwcm_sge sg;
	uint8_t tmp[64], want[64];

	pair_open(_i);
	dst = reg_new(&B, 256,
		      IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	rb = reg_new(&B, 256, IWCM_ACCESS_LOCAL_WRITE);
	dp_post_recv(B.qp, 1, rb->mr, rb->p, 256);
	dp_post_recv(B.qp, 2, rb->mr, rb->p + 128, 128);

	/* INLINE: no lkey, the buffer is reusable at once. */
	test_rand_bytes(want, sizeof(want));
	memcpy(tmp, want, sizeof(tmp));
	dp_wr(&wr, &sg, IWCM_WR_SEND, 91, NULL, tmp, 64);
	wr.send_flags |= IWCM_SEND_INLINE;
	dp_post_send(A.qp, &wr);
	memset(tmp, 0xEE, sizeof(tmp));
	memcpy(tmp, want, 40);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 92, NULL, tmp, 40);
	wr.send_flags |= IWCM_SEND_INLINE;
	wr.wr.rdma.remote_addr = addr(dst->p + 5);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(A.qp, &wr);
	memset(tmp, 0xEE, sizeof(tmp));
	/* More than max_inline_data is refused at post time. */
	{
		uint8_t big[65];

		memset(big, 1, sizeof(big));
		dp_wr(&wr, &sg, IWCM_WR_SEND, 93, NULL, big, sizeof(big));
		wr.send_flags |= IWCM_SEND_INLINE;
		bad = NULL;
		ck_assert_int_eq(iwcm_post_send(A.qp, &wr, &bad), EINVAL);
		ck_assert_ptr_eq(bad, &wr);
	}
	memcpy(tmp, want, 8);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 94, NULL, tmp, 8);
	wr.send_flags |= IWCM_SEND_INLINE;
	dp_post_send(A.qp, &wr);
	memset(tmp, 0xEE, sizeof(tmp));

	send_ok(&A, 91, IWCM_WC_SEND, 64);
	send_ok(&A, 92, IWCM_WC_RDMA_WRITE, 40);
	send_ok(&A, 94, IWCM_WC_SEND, 8);
	recv_ok(&B, 1, IWCM_WC_RECV, 64, 0);
	ck_assert(!memcmp(rb->p, want, 64));
	recv_ok(&B, 2, IWCM_WC_RECV, 8, 0);
	ck_assert(!memcmp(rb->p + 128, want, 8));
	ck_assert(!memcmp(dst->p + 5, want, 40));
	ck_assert_uint_eq(dst->p[4], 0);
	ck_assert_uint_eq(dst->p[45], 0);
	pair_close();
}
END_TEST

START_TEST(t_zero)
{
	struct reg *src, *dst, *rb;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	pair_open(_i);
	src = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, 64, ACC_ALL);
	rb = reg_new(&B, 64, IWCM_ACCESS_LOCAL_WRITE);
	memset(rb->p, 0x77, 64);
	dp_post_recv(B.qp, 1, rb->mr, rb->p, 64);
	dp_post_recv(B.qp, 2, rb->mr, rb->p, 64);

	/* A Send without SGEs and one with an empty SGE. */
	dp_wr(&wr, &sg, IWCM_WR_SEND, 101, NULL, NULL, 0);
	wr.num_sge = 0;
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 102, src->mr, src->p, 0);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	dp_post_send(A.qp, &wr);
	/* Zero-length Write and Read (RFC 5041 §7.1: not validated). */
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 103, NULL, NULL, 0);
	wr.num_sge = 0;
	wr.wr.rdma.remote_addr = addr(dst->p);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 104, NULL, NULL, 0);
	wr.num_sge = 0;
	wr.wr.rdma.remote_addr = addr(dst->p);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(A.qp, &wr);

	send_ok(&A, 101, IWCM_WC_SEND, 0);
	send_ok(&A, 102, IWCM_WC_SEND, 0);
	send_ok(&A, 103, IWCM_WC_RDMA_WRITE, 0);
	send_ok(&A, 104, IWCM_WC_RDMA_READ, 0);
	recv_ok(&B, 1, IWCM_WC_RECV, 0, 0);
	recv_ok(&B, 2, IWCM_WC_RECV, 0, IWCM_WC_SOLICITED);
	for (int k = 0; k < 64; k++) {
		ck_assert_uint_eq(rb->p[k], 0x77);
		ck_assert_uint_eq(dst->p[k], 0);
	}
	pair_close();
}
END_TEST

/* ---- completion channel and solicited-only notification ---- */

/* The channel fd becomes readable within ms (driving progress). */
static bool chan_ready(struct dp_ep *e, int ms)
{
	long long end = dp_ms() + ms;
	int fd = iwcm_comp_channel_get_fd(e->ch);

	ck_assert_int_ge(fd, 0);
	do {
		struct pollfd p = { fd, POLLIN, 0 };

		dp_pump();
		if (poll(&p, 1, 1) == 1)
			return true;
	} while (dp_ms() < end);
	return false;
}

static void chan_event(struct dp_ep *e)
{
	struct iwcm_cq *cq = NULL;
	void *ctx = NULL;

	ck_assert(chan_ready(e, DP_TIMEOUT_MS));
	ck_assert_int_eq(iwcm_get_cq_event(e->ch, &cq, &ctx), 0);
	ck_assert_ptr_eq(cq, e->rcq);
	ck_assert_ptr_eq(ctx, e);
	iwcm_ack_cq_events(cq, 1);
}

static void post_send_flags(struct dp_ep *s, struct reg *src, uint64_t id,
			    int opcode, unsigned int flags)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	dp_wr(&wr, &sg, opcode, id, src->mr, src->p, 8);
	if (opcode == IWCM_WR_IMM_DATA)
		wr.num_sge = 0;
	wr.imm_data = id;
	wr.send_flags |= flags;
	dp_post_send(s->qp, &wr);
	send_ok(s, id,
		opcode == IWCM_WR_IMM_DATA ? IWCM_WC_IMM_DATA : IWCM_WC_SEND,
		opcode == IWCM_WR_IMM_DATA ? ANY_LEN : 8);
}

START_TEST(t_notify)
{
	struct reg *src, *rb;
	struct iwcm_wc wc;
	int k;

	/* Both versions, markers, CRC off, both progress modes. */
	static const int cfgs[] = { 0, 5, 7, 12 };

	pair_open(cfgs[_i]);
	src = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	rb = reg_new(&B, 64 * 8, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < 8; k++)
		dp_post_recv(B.qp, (uint64_t)k, rb->mr, rb->p + 64 * k, 64);

	ck_assert_int_eq(iwcm_req_notify_cq(B.rcq, 1), 0);
	/* A plain Send completes but does not wake a solicited waiter. */
	post_send_flags(&A, src, 200, IWCM_WR_SEND, 0);
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, 0);
	ck_assert_uint_eq(wc.wc_flags, 0);
	ck_assert(!chan_ready(&B, 100));
	/* A Send with SE does. */
	post_send_flags(&A, src, 201, IWCM_WR_SEND, IWCM_SEND_SOLICITED);
	chan_event(&B);
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_SOLICITED);
	/* One event per request: not re-armed, a second SE is silent. */
	post_send_flags(&A, src, 202, IWCM_WR_SEND, IWCM_SEND_SOLICITED);
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert(!chan_ready(&B, 100));
	if (C.version == 1) {
		/* Immediate Data with SE is solicited too (RFC 7306 §6). */
		ck_assert_int_eq(iwcm_req_notify_cq(B.rcq, 1), 0);
		post_send_flags(&A, src, 203, IWCM_WR_IMM_DATA, 0);
		dp_wc(B.rcq, &wc);
		ck_assert(!chan_ready(&B, 100));
		post_send_flags(&A, src, 204, IWCM_WR_IMM_DATA,
				IWCM_SEND_SOLICITED);
		chan_event(&B);
		dp_wc(B.rcq, &wc);
		ck_assert_uint_eq(wc.wr_id, 4);
		ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_IMM_DATA);
		ck_assert_uint_eq(wc.imm_data, 204);
	}
	/* Any completion wakes a waiter armed with solicited_only 0. */
	ck_assert_int_eq(iwcm_req_notify_cq(B.rcq, 0), 0);
	post_send_flags(&A, src, 205, IWCM_WR_SEND, 0);
	chan_event(&B);
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, C.version == 1 ? 5 : 3);
	pair_close();
}
END_TEST

/* ---- shared receive queue ---- */

START_TEST(t_srq)
{
	struct iwcm_qp_init_attr attr;
	struct iwcm_synth sa, sb;
	struct iwcm_conn *conn2;
	struct iwcm_qp *qp2;
	struct dp_ep A2;
	struct reg *s1, *s2, *rb;
	int fd[2], k, seen[2] = { 0, 0 };

	cfg_matrix(_i * 7, &C);
	C.srq_b = 1;
	dp_pair_open(&C, &A, &B);
	/* A second connection of b's context on the same SRQ. */
	dp_cfg_synth(&C, &sa, &sb);
	dp_sockpair(C.tcp, fd);
	dp_ep_open(&A2, C.flags_a);
	dp_ep_qp(&A2, fd[0], &sa, &C);
	conn2 = iwcm_conn_synth(B.ctx, fd[1], &sb);
	ck_assert_ptr_nonnull(conn2);
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = B.scq;
	attr.recv_cq = B.rcq;
	attr.srq = B.srq;
	attr.max_send_wr = attr.max_recv_wr = 16;
	attr.max_send_sge = attr.max_recv_sge = 1;
	qp2 = iwcm_create_qp(conn2, B.pd, &attr);
	ck_assert_msg(qp2, "iwcm_create_qp: %s", strerror(errno));

	s1 = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	s2 = reg_new(&A2, 64, IWCM_ACCESS_LOCAL_WRITE);
	rb = reg_new(&B, 64 * 8, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < 8; k++)
		dp_post_srq_recv(B.srq, 300 + (uint64_t)k, rb->mr,
				 rb->p + 64 * k, 64);
	for (k = 0; k < 4; k++) {
		struct iwcm_send_wr wr;
		struct iwcm_sge sg;

		s1->p[k] = (uint8_t)(0x10 + k);
		s2->p[k] = (uint8_t)(0x20 + k);
		dp_wr(&wr, &sg, IWCM_WR_SEND, (uint64_t)k, s1->mr, s1->p + k,
		      1);
		dp_post_send(A.qp, &wr);
		dp_wr(&wr, &sg, IWCM_WR_SEND, (uint64_t)k, s2->mr, s2->p + k,
		      1);
		dp_post_send(A2.qp, &wr);
	}
	/* Eight receives from one queue; per QP in order. */
	for (k = 0; k < 8; k++) {
		struct iwcm_wc wc;
		uint8_t v;
		int q;

		dp_wc(B.rcq, &wc);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
		ck_assert_uint_eq(wc.byte_len, 1);
		ck_assert(wc.wr_id >= 300 && wc.wr_id < 308);
		ck_assert(wc.qp == B.qp || wc.qp == qp2);
		q = wc.qp == qp2;
		v = rb->p[64 * (wc.wr_id - 300)];
		ck_assert_uint_eq(v, (uint8_t)(0x10 * (q + 1) + seen[q]));
		seen[q]++;
	}
	for (k = 0; k < 8; k++)
		dp_wc(k < 4 ? A.scq : A2.scq, &(struct iwcm_wc){ 0 });
	ck_assert_int_eq(iwcm_destroy_qp(qp2), 0);
	iwcm_conn_free(conn2);
	regs_free();
	dp_ep_close(&A2);
	dp_ep_close(&B);
	dp_ep_close(&A);
}
END_TEST

/* ---- the library against the raw peer: ORD, MSNs ---- */

static struct dp_peer *P;

/* A library endpoint (a) facing the raw peer, from st. */
static void peer_open(struct iwcm_synth *st, unsigned int flags)
{
	int fd[2];

	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_sockpair(0, fd);
	dp_ep_open(&A, flags);
	dp_ep_qp(&A, fd[0], st, NULL);
	dp_peer_init(P, fd[1], st);
}

static void peer_close(void)
{
	regs_free();
	dp_ep_close(&A);
	dp_peer_close(P);
	free(P);
	P = NULL;
}

static void synth_default(struct iwcm_synth *st, int markers)
{
	struct dp_cfg c;
	struct iwcm_synth other;

	dp_cfg_default(&c);
	c.markers_ab = c.markers_ba = markers;
	c.off_ab = 508;
	c.off_ba = 20;
	dp_cfg_synth(&c, st, &other);
}

/*
 * ORD: the requester never has more than ORD Read Requests and atomics
 * outstanding (RFC 5040 §5.2.1 and RFC 6581 §9.1; RFC 7306 §5.2 puts
 * atomics on the same flow control); the rest wait and all complete.
 */
START_TEST(t_ord)
{
	static const uint32_t ords[] = { 1, 2, 4 };
	struct rdmap_read_req rq[12];
	struct rdmap_atomic_req aq[12];
	bool is_atomic[12];
	struct iwcm_synth st;
	struct reg *dst;
	uint8_t data[64];
	int n = 12, got = 0, done = 0, k;

	synth_default(&st, _i & 1);
	st.ord = ords[_i];
	peer_open(&st, 0);
	dst = reg_new(&A, 64 * n, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < n; k++) {
		struct iwcm_send_wr wr;
		struct iwcm_sge sg;

		dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, (uint64_t)k, dst->mr,
		      dst->p + 64 * k, 64);
		if (k % 3 == 2) {
			wr.opcode = IWCM_WR_ATOMIC_FETCH_ADD;
			sg.length = 8;
			wr.wr.atomic.remote_addr = 0x10000 + 8 * (uint64_t)k;
			wr.wr.atomic.rkey = 0x1234;
			wr.wr.atomic.compare_add = 1;
		} else {
			wr.wr.rdma.remote_addr = 0x10000 + 64 * (uint64_t)k;
			wr.wr.rdma.rkey = 0x1234;
		}
		dp_post_send(A.qp, &wr);
	}
	while (done < n) {
		while (got - done < (int)st.ord && got < n) {
			struct dp_msg *m = dp_peer_recv(P, DP_TIMEOUT_MS);

			ck_assert_msg(m, "request %d: %s", got,
				      strerror(errno));
			ck_assert(m->crc_ok && m->perr == WIRE_OK);
			is_atomic[got] = m->m.opcode == RDMAP_ATOMIC_REQ;
			ck_assert_int_eq(is_atomic[got], got % 3 == 2);
			/* RFC 5040 §5.2.1: one MSN on QN 1 per request. */
			ck_assert_uint_eq(m->m.ddp.qn, DDP_QN_READ_REQ);
			ck_assert_uint_eq(m->m.ddp.msn, P->rx_msn[1]++);
			if (is_atomic[got]) {
				aq[got] = m->m.u.atomic_req;
				/* RFC 7306 §5.2.1: FetchAdd sends Compare
				 * Data 0 and Compare Mask all ones. */
				ck_assert_uint_eq(aq[got].aopcode,
						  RDMAP_AOP_FETCHADD);
				ck_assert_uint_eq(aq[got].add_swap, 1);
				ck_assert_uint_eq(aq[got].cmp, 0);
				ck_assert_uint_eq(aq[got].cmp_mask, ~0ull);
			} else
				rq[got] = m->m.u.read_req;
			got++;
		}
		if (got < n) /* at ORD: the next one must wait */
			dp_peer_silent(P, 100);
		memset(data, done, sizeof(data));
		if (is_atomic[done]) {
			ck_assert_uint_eq(aq[done].to,
					  0x10000 + 8 * (uint64_t)done);
			dp_peer_atomic_resp(P, aq[done].req_id,
					    0x1111111111111111ull * done);
		} else {
			ck_assert_uint_eq(rq[done].size, 64);
			ck_assert_uint_eq(rq[done].src_to,
					  0x10000 + 64 * (uint64_t)done);
			dp_peer_read_resp(P, &rq[done], data, 1000);
		}
		done++;
	}
	for (k = 0; k < n; k++) {
		uint64_t v;

		if (k % 3 == 2) {
			send_ok(&A, (uint64_t)k, IWCM_WC_FETCH_ADD, 8);
			memcpy(&v, dst->p + 64 * k, 8);
			ck_assert_uint_eq(v, 0x1111111111111111ull * k);
		} else {
			send_ok(&A, (uint64_t)k, IWCM_WC_RDMA_READ, 64);
			ck_assert_uint_eq(dst->p[64 * k], k);
			ck_assert_uint_eq(dst->p[64 * k + 63], k);
		}
	}
	peer_close();
}
END_TEST

/*
 * The seed draft's Swap (AOpCode 0001b, Swap Mask and Compare Mask all
 * ones, Compare Data 0) to an RFC 7306 peer, which refuses it with a
 * Terminate (§5.2.1 rule 4): the Swap completes with
 * IWCM_WC_REM_OP_ERR and the Terminate's codes, the QP goes to error.
 */
START_TEST(t_swap_refused)
{
	struct iwcm_synth st;
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;
	struct reg *res;
	struct dp_msg *m;
	uint8_t seg[128];
	size_t n;

	synth_default(&st, _i);
	peer_open(&st, _i ? IWCM_CTX_MANUAL_PROGRESS : 0);
	res = reg_new(&A, 8, IWCM_ACCESS_LOCAL_WRITE);
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_SWAP, 7, res->mr, res->p, 8);
	wr.wr.atomic.remote_addr = 0x8000;
	wr.wr.atomic.rkey = 0x2222;
	wr.wr.atomic.swap = 0x0102030405060708ull;
	dp_post_send(A.qp, &wr);
	m = dp_peer_expect(P, RDMAP_ATOMIC_REQ);
	ck_assert_uint_eq(m->m.u.atomic_req.aopcode, RDMAP_AOP_SWAP);
	ck_assert_uint_eq(m->m.u.atomic_req.stag, 0x2222);
	ck_assert_uint_eq(m->m.u.atomic_req.to, 0x8000);
	ck_assert_uint_eq(m->m.u.atomic_req.add_swap, 0x0102030405060708ull);
	ck_assert_uint_eq(m->m.u.atomic_req.add_swap_mask, ~0ull);
	ck_assert_uint_eq(m->m.u.atomic_req.cmp, 0);
	ck_assert_uint_eq(m->m.u.atomic_req.cmp_mask, ~0ull);
	n = m->len;
	ck_assert_uint_le(n, sizeof(seg));
	memcpy(seg, m->ulpdu, n);
	dp_peer_term(P, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
		     RDMAP_ECODE_UNEXPECTED_OP, seg, n);
	dp_wc(A.scq, &wc);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_msg(wc.status == IWCM_WC_REM_OP_ERR, "Swap: %s",
		      iwcm_wc_status_str(wc.status));
	ck_assert_uint_eq(wc.vendor_err, RDMAP_TERM_LAYER_RDMAP << 16 |
						 RDMAP_ETYPE_REMOTE_OP << 8 |
						 RDMAP_ECODE_UNEXPECTED_OP);
	ck_assert(dp_async(A.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	ck_assert_uint_eq(ev.term_ecode, RDMAP_ECODE_UNEXPECTED_OP);
	ck_assert_int_eq(dp_qp_state(A.qp), IWCM_QPS_ERROR);
	peer_close();
}
END_TEST

/*
 * The handoff's next MSNs (daemon/handoff.c, RFC 5041 §5.3): what the
 * initiator sends next per queue, what the responder expects next; the
 * other direction starts at 1.
 */
START_TEST(t_msn)
{
	struct iwcm_synth st;
	struct reg *src, *rb;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct dp_msg *m;
	uint8_t hello[5] = "hello";

	synth_default(&st, _i & 1);
	st.initiator = !(_i & 2);
	st.next_msn[0] = 7;
	st.next_msn[1] = 3;
	peer_open(&st, 0);
	src = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	rb = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	memcpy(src->p, hello, 5);
	dp_post_recv(A.qp, 1, rb->mr, rb->p, 64);
	dp_post_recv(A.qp, 2, rb->mr, rb->p + 32, 32);

	dp_wr(&wr, &sg, IWCM_WR_SEND, 10, src->mr, src->p, 5);
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 11, rb->mr, rb->p, 4);
	wr.wr.rdma.remote_addr = 0x5000;
	wr.wr.rdma.rkey = 0x4321;
	dp_post_send(A.qp, &wr);
	m = dp_peer_expect(P, RDMAP_SEND); /* checks the MSN */
	ck_assert_uint_eq(m->m.ddp.msn, st.initiator ? 7 : 1);
	ck_assert_uint_eq(m->m.payload_len, 5);
	ck_assert(!memcmp(m->m.payload, hello, 5));
	m = dp_peer_expect(P, RDMAP_READ_REQ);
	ck_assert_uint_eq(m->m.ddp.msn, st.initiator ? 3 : 1);
	{
		struct rdmap_read_req r = m->m.u.read_req;

		dp_peer_read_resp(P, &r, "abcd", 64);
	}
	send_ok(&A, 10, IWCM_WC_SEND, 5);
	send_ok(&A, 11, IWCM_WC_RDMA_READ, 4);
	ck_assert(!memcmp(rb->p, "abcd", 4));
	/* The peer's Sends: 1 toward an initiator, 7 toward a responder. */
	ck_assert_uint_eq(P->msn[0], st.initiator ? 1 : 7);
	dp_peer_send(P, RDMAP_SEND, 0, "xyz", 3, NULL);
	dp_peer_send(P, RDMAP_SEND_SE, 0, "uv", 2, NULL);
	recv_ok(&A, 1, IWCM_WC_RECV, 3, 0);
	recv_ok(&A, 2, IWCM_WC_RECV, 2, IWCM_WC_SOLICITED);
	ck_assert(!memcmp(rb->p + 32, "uv", 2));
	peer_close();
}
END_TEST

/*
 * The octets the daemon read past the handshake (the handoff's unread
 * buffer) are consumed first: here a whole RDMA Write and the start of a
 * Send, the rest of the Send still in the socket; a's tx offset and next
 * MSN already account for them.
 */
START_TEST(t_unread)
{
	struct iwcm_synth sa, sb;
	struct reg *dst, *src, *rb, *ra;
	struct mpa_dir d;
	uint8_t u[256], wire[1024], data[100];
	size_t n, w1, w2;
	struct rdmap_msg m;
	int fd[2];

	cfg_matrix(_i * 3 + 6, &C);
	C.markers_ab = C.markers_ba = 1;
	C.srq_b = 1;
	C.next_msn[0] = 3;
	dp_cfg_synth(&C, &sa, &sb);
	dp_sockpair(C.tcp, fd);
	dp_ep_open(&A, C.flags_a);
	dp_ep_open(&B, C.flags_b);
	dp_ep_srq(&B, 16);
	dst = reg_new(&B, 256,
		      IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	rb = reg_new(&B, 256, IWCM_ACCESS_LOCAL_WRITE);
	dp_post_srq_recv(B.srq, 1, rb->mr, rb->p, 128);
	dp_post_srq_recv(B.srq, 2, rb->mr, rb->p + 128, 128);

	/* What a's library "already sent" before b's handoff. */
	d.markers = C.markers_ab;
	d.crc = C.crc;
	d.off = (uint32_t)C.off_ab;
	test_rand_bytes(data, sizeof(data));
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_WRITE;
	m.rv = m.ddp.dv = (uint8_t)C.version;
	m.ddp.tagged = m.ddp.last = true;
	m.ddp.stag = dst->stag;
	m.ddp.to = addr(dst->p + 9);
	n = dp_msg_build(&m, data, sizeof(data), u, sizeof(u));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, (uint16_t)n, wire, sizeof(wire),
					&w1),
			 WIRE_OK);
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_SEND;
	m.rv = m.ddp.dv = (uint8_t)C.version;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_SEND;
	m.ddp.msn = 3;
	n = dp_msg_build(&m, "handoff!", 8, u, sizeof(u));
	ck_assert_int_eq(mpa_fpdu_build(&d, u, (uint16_t)n, wire + w1,
					sizeof(wire) - w1, &w2),
			 WIRE_OK);
	sb.unread = wire;
	sb.unread_len = w1 + 5;
	ck_assert_int_eq(send(fd[0], wire + w1 + 5, w2 - 5, 0),
			 (ssize_t)(w2 - 5));
	sa.tx_offset = C.off_ab + w1 + w2;
	sa.next_msn[0] = 4;
	dp_ep_qp(&B, fd[1], &sb, &C);
	dp_ep_qp(&A, fd[0], &sa, &C);

	recv_ok(&B, 1, IWCM_WC_RECV, 8, 0);
	ck_assert(!memcmp(rb->p, "handoff!", 8));
	ck_assert(!memcmp(dst->p + 9, data, sizeof(data)));
	/* Both directions go on from there. */
	src = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	ra = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	memcpy(src->p, "next", 4);
	dp_post_recv(A.qp, 5, ra->mr, ra->p, 64);
	post_send_flags(&A, src, 40, IWCM_WR_SEND, 0);
	recv_ok(&B, 2, IWCM_WC_RECV, 8, 0);
	ck_assert(!memcmp(rb->p + 128, "next", 4));
	memcpy(rb->p, "back", 4);
	post_send_flags(&B, rb, 41, IWCM_WR_SEND, 0);
	recv_ok(&A, 5, IWCM_WC_RECV, 8, 0);
	ck_assert(!memcmp(ra->p, "back", 4));
	pair_close();
}
END_TEST

/* ---- progress modes ---- */

/* One-sided operations against a target the test never calls. */
static void one_sided(void)
{
	struct reg *src, *dst, *word, *res;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint64_t v = 41, got;

	src = reg_new(&A, 100000, IWCM_ACCESS_LOCAL_WRITE);
	res = reg_new(&A, 100000, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, 100000, ACC_ALL);
	word = reg_new(&B, 8, ACC_ALL);
	memcpy(word->p, &v, 8);
	test_rand_bytes(src->p, src->len);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 1, src->mr, src->p, 100000);
	wr.wr.rdma.remote_addr = addr(dst->p);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 2, res->mr, res->p, 100000);
	wr.wr.rdma.remote_addr = addr(dst->p);
	wr.wr.rdma.rkey = dst->stag;
	dp_post_send(A.qp, &wr);
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 3, res->mr, res->p, 8);
	wr.wr.atomic.remote_addr = addr(word->p);
	wr.wr.atomic.rkey = word->stag;
	wr.wr.atomic.compare_add = 1;
	send_ok(&A, 1, IWCM_WC_RDMA_WRITE, 100000);
	send_ok(&A, 2, IWCM_WC_RDMA_READ, 100000);
	ck_assert(!memcmp(res->p, src->p, 100000));
	dp_post_send(A.qp, &wr);
	send_ok(&A, 3, IWCM_WC_FETCH_ADD, 8);
	memcpy(&got, res->p, 8);
	ck_assert_uint_eq(got, 41);
	memcpy(&got, word->p, 8);
	ck_assert_uint_eq(got, 42);
}

/* The target runs its progress thread; only a's (manual) side is driven. */
START_TEST(t_progress_thread)
{
	dp_cfg_default(&C);
	C.flags_a = IWCM_CTX_MANUAL_PROGRESS;
	C.markers_ab = 1;
	dp_pair_open(&C, &A, &B);
	one_sided();
	pair_close();
}
END_TEST

/* Manual progress on both sides: nothing moves until iwcm_progress(). */
START_TEST(t_progress_manual)
{
	struct reg *src, *dst;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;
	long long end;

	dp_cfg_default(&C);
	C.flags_a = C.flags_b = IWCM_CTX_MANUAL_PROGRESS;
	C.markers_ba = 1;
	dp_pair_open(&C, &A, &B);
	src = reg_new(&B, 64, IWCM_ACCESS_REMOTE_READ);
	dst = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	memset(src->p, 0x5A, 64);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 9, dst->mr, dst->p, 64);
	wr.wr.rdma.remote_addr = addr(src->p);
	wr.wr.rdma.rkey = src->stag;
	dp_post_send(A.qp, &wr);
	/* Driving only a: b has no thread, so nobody answers. */
	end = dp_ms() + 200;
	while (dp_ms() < end) {
		ck_assert_int_ge(iwcm_progress(A.ctx, 1), 0);
		ck_assert_int_eq(iwcm_poll_cq(A.scq, 1, &wc), 0);
	}
	ck_assert_uint_eq(dst->p[0], 0);
	/* Driving both completes it, then everything else. */
	send_ok(&A, 9, IWCM_WC_RDMA_READ, 64);
	ck_assert_uint_eq(dst->p[63], 0x5A);
	one_sided();
	pair_close();
}
END_TEST

/* Wait until fd is readable (or fails the test after DP_TIMEOUT_MS). */
static void readable(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };

	ck_assert_int_eq(poll(&p, 1, DP_TIMEOUT_MS), 1);
}

/*
 * iwcm_destroy_qp() of a connected QP is abortive, as its page says: the
 * peer gets a TCP reset (RFC 5040 §6.2 LLP Abortive Termination), not a
 * FIN it could take for a graceful close; so does iwcm_ctx_close() with
 * the QP still there (_i 2).  After iwcm_qp_disconnect() the peer has
 * the FIN and sees nothing more (_i 1).
 */
START_TEST(t_destroy)
{
	struct iwcm_synth sa, sb;
	struct dp_ep e;
	int fd[2];
	char c;

	dp_cfg_default(&C);
	C.tcp = 1;
	dp_cfg_synth(&C, &sa, &sb);
	dp_sockpair(1, fd);
	dp_ep_open(&e, 0);
	dp_ep_qp(&e, fd[0], &sa, &C);
	if (_i == 1) {
		ck_assert_int_eq(iwcm_qp_disconnect(e.qp), 0);
		readable(fd[1]);
		ck_assert_int_eq(read(fd[1], &c, 1), 0);
	}
	if (_i == 2) {
		/* Everything of the context goes with it. */
		iwcm_ctx_close(e.ctx);
		memset(&e, 0, sizeof(e));
	} else {
		ck_assert_int_eq(iwcm_destroy_qp(e.qp), 0);
		e.qp = NULL;
	}
	readable(fd[1]);
	if (_i == 1) {
		ck_assert_int_eq(read(fd[1], &c, 1), 0);
	} else {
		ck_assert_int_eq(read(fd[1], &c, 1), -1);
		ck_assert_int_eq(errno, ECONNRESET);
	}
	close(fd[1]);
	if (_i != 2)
		dp_ep_close(&e);
}
END_TEST

/*
 * RFC 5040 §5.4: our Terminate is the last message, and it reaches the
 * wire before the FIN or the reset whatever the application does next.
 * The QP's socket is full (the peer does not read) when the peer's bad
 * Write makes the QP fail, so the Terminate waits behind a frame begun;
 * then the application tears down at once: iwcm_destroy_qp() (0),
 * iwcm_qp_disconnect() and iwcm_destroy_qp() (1), iwcm_ctx_close() (2).
 * The peer then reads: the Writes, the Terminate, the end.  (3): the
 * peer never reads; the teardown returns by the disconnect timeout and
 * resets the connection.
 */
#define LINGER_MS 600
#define LINGER_BUF (4u << 20)

struct linger_arg {
	struct dp_ep *e;
	int how;
	long long took;
};

static void *linger_teardown(void *arg)
{
	struct linger_arg *l = arg;
	long long t0 = dp_ms();

	if (l->how == 2) {
		iwcm_ctx_close(l->e->ctx);
	} else {
		if (l->how == 1)
			ck_assert_int_eq(iwcm_qp_disconnect(l->e->qp), 0);
		ck_assert_int_eq(iwcm_destroy_qp(l->e->qp), 0);
	}
	l->took = dp_ms() - t0;
	return NULL;
}

START_TEST(t_term_linger)
{
	struct iwcm_synth sa, sb;
	struct iwcm_qp_init_attr attr;
	struct iwcm_async_event ev;
	struct linger_arg la;
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_mr *mr;
	struct dp_msg *t;
	struct dp_ep e;
	uint8_t seg[64], *buf;
	pthread_t th;
	size_t seg_len;
	int fd[2];

	dp_cfg_default(&C);
	C.tcp = 1;
	dp_cfg_synth(&C, &sa, &sb);
	dp_sockpair(1, fd);
	/* A small window: the library's socket fills soon. */
	(void)setsockopt(fd[1], SOL_SOCKET, SO_RCVBUF, &(int){ 65536 },
			 sizeof(int));
	dp_ep_open(&e, 0);
	e.conn = iwcm_conn_synth(e.ctx, fd[0], &sa);
	ck_assert_ptr_nonnull(e.conn);
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e.scq;
	attr.recv_cq = e.rcq;
	attr.max_send_wr = 16;
	attr.max_recv_wr = 4;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.comp_mask = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;
	attr.disconnect_timeout_ms = LINGER_MS;
	e.qp = iwcm_create_qp(e.conn, e.pd, &attr);
	ck_assert_ptr_nonnull(e.qp);
	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_peer_init(P, fd[1], &sb);

	/* More than the sockets hold: the library's writes block. */
	buf = calloc(1, LINGER_BUF);
	ck_assert_ptr_nonnull(buf);
	mr = dp_reg(&e, buf, LINGER_BUF, IWCM_ACCESS_LOCAL_WRITE);
	for (int k = 0; k < 4; k++) {
		dp_wr(&wr, &sge, IWCM_WR_RDMA_WRITE, (uint64_t)k, mr, buf,
		      LINGER_BUF);
		wr.wr.rdma.rkey = 0x1200;
		wr.wr.rdma.remote_addr = 0;
		dp_post_send(e.qp, &wr);
	}
	dp_idle(300);
	seg_len = dp_peer_write_seg(P, 0xbad00u, 0, "x", 1, seg);
	ck_assert_int_eq(dp_async(e.ctx, &ev, DP_TIMEOUT_MS), 1);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);

	la.e = &e;
	la.how = _i == 3 ? 0 : _i;
	la.took = -1;
	ck_assert_int_eq(pthread_create(&th, NULL, linger_teardown, &la), 0);
	if (_i == 3) {
		pthread_join(th, NULL);
		ck_assert_msg(la.took < LINGER_MS + 1500,
			      "teardown took %lld ms", la.took);
		/* What was queued, then the end; a Terminate that got out
		 * while there was room is the last message. */
		for (bool term = false;;) {
			t = dp_peer_recv(P, DP_TIMEOUT_MS);
			if (!t)
				break;
			ck_assert(!term);
			term = t->m.opcode == RDMAP_TERMINATE;
		}
		ck_assert_int_eq(errno, ECONNRESET);
	} else {
		/* Read while the teardown waits for room. */
		t = dp_peer_recv_term(P);
		dp_check_term(t, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
			      DDP_ECODE_T_INVALID_STAG, seg, seg_len);
		ck_assert(dp_peer_wait_eof(P, DP_TIMEOUT_MS));
		pthread_join(th, NULL);
		ck_assert_int_lt(la.took, LINGER_MS + 1500);
	}
	if (_i == 2) {
		memset(&e, 0, sizeof(e));
	} else {
		e.qp = NULL;
		ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
		dp_ep_close(&e);
	}
	free(buf);
	dp_peer_close(P);
	free(P);
	P = NULL;
}
END_TEST

static Suite *dp_ops_suite(void)
{
	Suite *s = suite_create("dp_ops");

	add_loop_tcase(s, "send", t_send, NCFG + NSCTP);
	add_loop_tcase(s, "send_inv", t_send_inv, NCFG + NSCTP);
	add_loop_tcase(s, "write", t_write, NCFG + NSCTP);
	add_loop_tcase(s, "write_imm", t_write_imm, NCFG + NSCTP);
	add_loop_tcase(s, "imm", t_imm, NCFG + NSCTP);
	add_loop_tcase(s, "read", t_read, NCFG + NSCTP);
	add_loop_tcase(s, "atomics", t_atomics, NCFG + NSCTP);
	add_loop_tcase(s, "inline", t_inline, NCFG + NSCTP);
	add_loop_tcase(s, "zero", t_zero, NCFG + NSCTP);
	add_loop_tcase(s, "notify", t_notify, 4);
	add_loop_tcase(s, "srq", t_srq, 3);
	add_loop_tcase(s, "ord", t_ord, 3);
	add_loop_tcase(s, "swap_refused", t_swap_refused, 2);
	add_loop_tcase(s, "msn", t_msn, 4);
	add_loop_tcase(s, "unread", t_unread, 4);
	add_tcase(s, "progress_thread", t_progress_thread);
	add_tcase(s, "progress_manual", t_progress_manual);
	add_loop_tcase(s, "destroy", t_destroy, 3);
	add_loop_tcase(s, "term_linger", t_term_linger, 4);
	return s;
}

TEST_MAIN(dp_ops_suite)
