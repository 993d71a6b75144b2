/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm verbs objects and the RFC 5042 checks in isolation (STag table,
 * keys, protection domains, access, bounds, wrap), the RFC 7306 atomic
 * arithmetic, and a smoke test of every operation between two QPs over a
 * socketpair, with the progress thread and with manual progress.  The
 * protocol itself is tested in check_dp_*.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "dp.h"
#include "synth.h"

/* ---- objects ---- */

START_TEST(test_pd_mr)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd, *pd2;
	struct iwcm_mr *mr;
	static uint8_t buf[4096];

	ck_assert_ptr_nonnull(ctx);
	pd = iwcm_alloc_pd(ctx);
	pd2 = iwcm_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(pd2);
	mr = iwcm_reg_mr(pd, buf, sizeof(buf),
			 IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_READ);
	ck_assert_ptr_nonnull(mr);
	/* No STag below 256 is valid (index 0 is never used). */
	ck_assert_uint_ge(iwcm_mr_get_stag(mr), 256);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd2), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(NULL), -1);
	ck_assert_int_eq(iwcm_dereg_mr(NULL), -1);
	ck_assert_uint_eq(iwcm_mr_get_stag(NULL), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

START_TEST(test_reg_mr_args)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx);
	static uint8_t buf[64];
	struct iwcm_mr *mr;

	ck_assert_ptr_null(iwcm_reg_mr(NULL, buf, 8, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(iwcm_reg_mr(pd, NULL, 8, 0));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(iwcm_reg_mr(pd, buf, 8, 1u << 7));
	ck_assert_int_eq(errno, EINVAL);
	/* Remote write and atomic need local write (libibverbs rule). */
	ck_assert_ptr_null(iwcm_reg_mr(pd, buf, 8, IWCM_ACCESS_REMOTE_WRITE));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(iwcm_reg_mr(pd, buf, 8, IWCM_ACCESS_REMOTE_ATOMIC));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(iwcm_reg_mr(pd, (void *)(UINTPTR_MAX - 3), 8, 0));
	ck_assert_int_eq(errno, EINVAL);
	mr = iwcm_reg_mr(pd, NULL, 0, 0);
	ck_assert_ptr_nonnull(mr);
	iwcm_dereg_mr(mr);
	iwcm_ctx_close(ctx);
}
END_TEST

/* RFC 5042 §5.1: reusing an index changes the key; stale STags fail. */
START_TEST(test_stag_keys)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx);
	struct dp *dp = ctx->dp;
	static uint8_t buf[64];
	uint32_t s1, s2, seen[300];
	struct iwcm_mr *mr;

	mr = iwcm_reg_mr(pd, buf, sizeof(buf), 0);
	s1 = iwcm_mr_get_stag(mr);
	ck_assert_ptr_eq(dp_stag_lookup(&dp->stags, s1), mr);
	/* A wrong key never matches. */
	ck_assert_ptr_null(dp_stag_lookup(&dp->stags, s1 ^ 1));
	ck_assert_ptr_null(dp_stag_lookup(&dp->stags, s1 & ~0xFFu));
	iwcm_dereg_mr(mr);
	ck_assert_ptr_null(dp_stag_lookup(&dp->stags, s1));

	/* Fill the table's first slots, then reuse one: its key moved. */
	for (int i = 0; i < 300; i++) {
		struct iwcm_mr *m = iwcm_reg_mr(pd, buf, sizeof(buf), 0);

		ck_assert_ptr_nonnull(m);
		seen[i] = iwcm_mr_get_stag(m);
		for (int j = 0; j < i; j++)
			ck_assert_uint_ne(seen[i], seen[j]);
	}
	mr = dp_stag_lookup(&dp->stags, seen[7]);
	iwcm_dereg_mr(mr);
	for (int i = 0; i < 2000; i++) {
		mr = iwcm_reg_mr(pd, buf, sizeof(buf), 0);
		s2 = iwcm_mr_get_stag(mr);
		if (DP_STAG_INDEX(s2) == DP_STAG_INDEX(seen[7]))
			break;
		iwcm_dereg_mr(mr);
	}
	ck_assert_uint_eq(DP_STAG_INDEX(s2), DP_STAG_INDEX(seen[7]));
	ck_assert_uint_ne(DP_STAG_KEY(s2), DP_STAG_KEY(seen[7]));
	ck_assert_ptr_null(dp_stag_lookup(&dp->stags, seen[7]));
	ck_assert_ptr_eq(dp_stag_lookup(&dp->stags, s2), mr);
	iwcm_ctx_close(ctx);
}
END_TEST

/* The table is bounded: 24 bits of index, here a small limit. */
START_TEST(test_stag_table_full)
{
	struct dp_stag_table t;
	struct iwcm_mr m[8];

	memset(&t, 0, sizeof(t));
	t.limit = 5;
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(dp_stag_alloc(&t, &m[i]), 0);
		ck_assert_uint_ge(DP_STAG_INDEX(m[i].stag), 1);
		ck_assert_uint_le(DP_STAG_INDEX(m[i].stag), 5);
	}
	ck_assert_int_eq(dp_stag_alloc(&t, &m[5]), -1);
	ck_assert_int_eq(errno, ENOSPC);
	dp_stag_free(&t, m[2].stag);
	ck_assert_int_eq(dp_stag_alloc(&t, &m[6]), 0);
	ck_assert_uint_eq(DP_STAG_INDEX(m[6].stag), DP_STAG_INDEX(m[2].stag));
	ck_assert_uint_ne(m[6].stag, m[2].stag);
	ck_assert_ptr_null(dp_stag_lookup(&t, m[2].stag));
	ck_assert_ptr_eq(dp_stag_lookup(&t, m[6].stag), &m[6]);
	/* Freeing twice or an unknown STag changes nothing. */
	dp_stag_free(&t, m[2].stag);
	dp_stag_free(&t, 0);
	dp_stag_free(&t, 0xFFFFFF00u);
	ck_assert_int_eq(dp_stag_alloc(&t, &m[7]), -1);
	dp_stag_table_free(&t);
}
END_TEST

/* ---- RFC 5042 checks ---- */

struct prot_case {
	const char *name;
	int which_stag; /* 0 good, 1 stale key, 2 unknown, 3 other PD,
				 * 4 invalidated */
	int64_t to_off; /* from the region start */
	bool to_abs;	/* to_off is an absolute TO */
	uint64_t len;
	unsigned int access;
	enum dp_prot want;
};

static const struct prot_case prot_cases[] = {
	{ "whole region", 0, 0, false, 4096, IWCM_ACCESS_REMOTE_WRITE,
	  DP_PROT_OK },
	{ "last octet", 0, 4095, false, 1, IWCM_ACCESS_REMOTE_READ,
	  DP_PROT_OK },
	{ "zero length at the end", 0, 4096, false, 0, 0, DP_PROT_OK },
	{ "one past the end", 0, 4095, false, 2, 0, DP_PROT_BOUNDS },
	{ "before the start", 0, -1, false, 1, 0, DP_PROT_BOUNDS },
	{ "start past the end", 0, 4097, false, 0, 0, DP_PROT_BOUNDS },
	{ "huge length", 0, 0, false, 1ull << 40, 0, DP_PROT_BOUNDS },
	{ "TO wraps", 0, (int64_t)(UINT64_MAX - 15), true, 32, 0,
	  DP_PROT_WRAP },
	{ "sum exactly 2^64 wraps", 0, (int64_t)(UINT64_MAX - 7), true, 8, 0,
	  DP_PROT_WRAP },
	{ "no remote write", 0, 0, false, 8, IWCM_ACCESS_REMOTE_ATOMIC,
	  DP_PROT_ACCESS },
	{ "two rights, one missing", 0, 0, false, 8,
	  IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC, DP_PROT_ACCESS },
	{ "stale key", 1, 0, false, 8, 0, DP_PROT_INVALID_STAG },
	{ "unknown index", 2, 0, false, 8, 0, DP_PROT_INVALID_STAG },
	{ "other PD", 3, 0, false, 8, 0, DP_PROT_PD },
	{ "invalidated", 4, 0, false, 8, 0, DP_PROT_INVALID_STAG },
};

START_TEST(test_rfc5042_checks)
{
	const struct prot_case *c = &prot_cases[_i];
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx), *pd2 = iwcm_alloc_pd(ctx);
	static uint8_t buf[4096];
	struct iwcm_mr *mr, *other, *inv;
	uint32_t stag;
	uint64_t to;

	mr = iwcm_reg_mr(pd, buf, sizeof(buf),
			 IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |
				 IWCM_ACCESS_REMOTE_READ);
	other = iwcm_reg_mr(pd2, buf, sizeof(buf), IWCM_ACCESS_REMOTE_READ);
	inv = iwcm_reg_mr(pd, buf, sizeof(buf), IWCM_ACCESS_REMOTE_READ);
	inv->valid = false;
	switch (c->which_stag) {
	case 1:
		stag = iwcm_mr_get_stag(mr) + 1;
		break;
	case 2:
		stag = DP_STAG_MAKE(0x123456, 1);
		break;
	case 3:
		stag = iwcm_mr_get_stag(other);
		break;
	case 4:
		stag = iwcm_mr_get_stag(inv);
		break;
	default:
		stag = iwcm_mr_get_stag(mr);
		break;
	}
	to = c->to_abs ? (uint64_t)c->to_off :
			 (uint64_t)(uintptr_t)buf + (uint64_t)c->to_off;
	ck_assert_msg(dp_mr_check(&ctx->dp->stags, stag, pd, to, c->len,
				  c->access, NULL) == c->want,
		      "%s", c->name);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- atomics ---- */

/* RFC 7306 §5.1.1, the pseudocode bit by bit. */
static uint64_t masked_add_ref(uint64_t orig, uint64_t add, uint64_t mask)
{
	uint64_t bit_location = 1, carry = 0, r = 0;

	for (int bit = 0; bit < 64; bit++) {
		uint64_t val1, val2, sum;

		if (bit != 0)
			bit_location <<= 1;
		val1 = (orig & bit_location) >> bit;
		val2 = (add & bit_location) >> bit;
		sum = carry + val1 + val2;
		carry = (sum & 2) >> 1;
		sum &= 1;
		if (sum)
			r |= bit_location;
		carry = carry && !(mask & bit_location);
	}
	return r;
}

START_TEST(test_atomic_math)
{
	uint64_t w;

	test_rng_seed();
	/* Mask 0: a plain 64-bit add. */
	ck_assert_uint_eq(atomic_masked_add(UINT64_MAX, 2, 0), 1);
	/* Two 32-bit fields: no carry between them. */
	ck_assert_uint_eq(atomic_masked_add(0x00000000FFFFFFFFull, 1,
					    0x8000000080000000ull),
			  0);
	for (int i = 0; i < 20000; i++) {
		uint64_t o = test_rand64(), a = test_rand64();
		uint64_t m = test_rand64() & test_rand64();

		ck_assert_uint_eq(atomic_masked_add(o, a, m),
				  masked_add_ref(o, a, m));
	}
	/* RFC 7306 §5.1.2. */
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1234, UINT64_MAX, 0xAB,
					      UINT64_MAX),
			  0xAB);
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1235, UINT64_MAX, 0xAB,
					      UINT64_MAX),
			  0x1234);
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1235, 0xFF00, 0xAB,
					      0x0F),
			  0x123B);
	w = 5;
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_FETCHADD, 3, 0, 0, 0), 5);
	ck_assert_uint_eq(w, 8);
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_SWAP, 42, 0, 0, 0), 8);
	ck_assert_uint_eq(w, 42);
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_CMPSWAP, 7, UINT64_MAX, 42,
				     UINT64_MAX),
			  42);
	ck_assert_uint_eq(w, 7);
}
END_TEST

/* ---- completion queues ---- */

START_TEST(test_cq_channel)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_comp_channel *ch = iwcm_create_comp_channel(ctx);
	struct iwcm_cq *cq, *got = NULL;
	struct iwcm_wc wc, out[4];
	void *cctx = NULL;
	int fd, x;

	ck_assert_ptr_null(iwcm_create_cq(ctx, 0, NULL, NULL));
	ck_assert_int_eq(errno, EINVAL);
	cq = iwcm_create_cq(ctx, 2, &x, ch);
	ck_assert_ptr_nonnull(cq);
	ck_assert_int_eq(iwcm_destroy_comp_channel(ch), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_poll_cq(cq, 4, out), 0);
	fd = iwcm_comp_channel_get_fd(ch);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = 1;
	/* Not armed: no event. */
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	/* Solicited only: an ordinary completion does not fire. */
	ck_assert_int_eq(iwcm_req_notify_cq(cq, 1), 0);
	wc.wr_id = 2;
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	/* Full: the third is lost. */
	ck_assert(!dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_poll_cq(cq, 4, out), 2);
	ck_assert_uint_eq(out[0].wr_id, 1);
	ck_assert_uint_eq(out[1].wr_id, 2);
	/* A solicited one fires, once. */
	wc.wc_flags = IWCM_WC_SOLICITED;
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), 0);
	ck_assert_ptr_eq(got, cq);
	ck_assert_ptr_eq(cctx, &x);
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_destroy_comp_channel(ch), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- two QPs over a socketpair ---- */

struct end {
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *ch;
	struct iwcm_srq *srq;
	struct iwcm_cq *cq;
	struct iwcm_qp *qp;
	struct iwcm_mr *mr;
	uint8_t *buf;
};

#define BUF_LEN (1u << 20)

static bool manual;
/* Knobs for the next end_up(), reset by pair_up(). */
static int cq_depth = 256;
static bool with_srq, with_channel;
static uint32_t disc_timeout; /* disconnect_timeout_ms, 0: not set */

static void end_up(struct end *e, int fd, const struct iwcm_synth *st)
{
	const struct iwcm_srq_init_attr srq_attr = { .max_wr = 16,
						     .max_sge = 2 };
	struct iwcm_qp_init_attr qa;
	struct iwcm_conn *c;

	e->ctx = iwcm_ctx_new_detached(manual ? IWCM_CTX_MANUAL_PROGRESS : 0);
	ck_assert_ptr_nonnull(e->ctx);
	c = iwcm_conn_synth(e->ctx, fd, st);
	ck_assert_ptr_nonnull(c);
	e->pd = iwcm_alloc_pd(e->ctx);
	e->ch = with_channel ? iwcm_create_comp_channel(e->ctx) : NULL;
	e->cq = iwcm_create_cq(e->ctx, cq_depth, e, e->ch);
	ck_assert_ptr_nonnull(e->cq);
	e->srq = with_srq ? iwcm_create_srq(e->pd, &srq_attr) : NULL;
	e->buf = aligned_alloc(4096, BUF_LEN);
	ck_assert_ptr_nonnull(e->buf);
	memset(e->buf, 0, BUF_LEN);
	e->mr = iwcm_reg_mr(e->pd, e->buf, BUF_LEN,
			    IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |
				    IWCM_ACCESS_REMOTE_READ |
				    IWCM_ACCESS_REMOTE_ATOMIC);
	memset(&qa, 0, sizeof(qa));
	qa.send_cq = qa.recv_cq = e->cq;
	qa.max_send_wr = qa.max_recv_wr = 64;
	qa.max_send_sge = qa.max_recv_sge = 4;
	qa.max_inline_data = 256;
	qa.srq = e->srq;
	if (disc_timeout) {
		qa.comp_mask = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;
		qa.disconnect_timeout_ms = disc_timeout;
	}
	e->qp = iwcm_create_qp(c, e->pd, &qa);
	ck_assert_ptr_nonnull(e->qp);
	ck_assert_int_eq(iwcm_conn_get_fd(c), -1);
	ck_assert_int_eq(errno, EBADF);
	iwcm_conn_free(c);
}

static void pair_up(struct end *a, struct end *b, const struct iwcm_synth *sa,
		    const struct iwcm_synth *sb)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	end_up(a, sv[0], sa);
	end_up(b, sv[1], sb);
	cq_depth = 256;
	with_srq = with_channel = false;
	disc_timeout = 0;
}

static void pair_default(struct end *a, struct end *b)
{
	struct iwcm_synth s;

	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.crc = 1;
	s.ird = s.ord = 8;
	s.atomics = s.imm_data = 1;
	s.initiator = 1;
	{
		struct iwcm_synth t = s;

		t.initiator = 0;
		pair_up(a, b, &s, &t);
	}
}

static void end_down(struct end *e)
{
	iwcm_ctx_close(e->ctx);
	free(e->buf);
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for one completion on e's CQ, progressing both ends (other may be
 * NULL: a raw peer). */
static struct iwcm_wc wait_wc(struct end *e, struct end *other)
{
	int64_t end = now_ms() + 10000;
	struct iwcm_wc wc;

	for (;;) {
		int n = iwcm_poll_cq(e->cq, 1, &wc);

		ck_assert_int_ge(n, 0);
		if (n == 1)
			return wc;
		ck_assert_msg(now_ms() < end, "no completion");
		if (manual) {
			iwcm_progress(e->ctx, 0);
			if (other)
				iwcm_progress(other->ctx, 0);
		} else {
			usleep(100);
		}
	}
}

static void post_recv(struct end *e, uint64_t id, uint64_t off, uint32_t len)
{
	struct iwcm_sge sge = { (uint64_t)(uintptr_t)(e->buf + off), len,
				iwcm_mr_get_stag(e->mr) };
	struct iwcm_recv_wr wr = { id, NULL, &sge, 1, 0 };

	ck_assert_int_eq(iwcm_post_recv(e->qp, &wr, NULL), 0);
}

static void post(struct end *e, struct iwcm_send_wr *wr, uint64_t off,
		 uint32_t len)
{
	struct iwcm_sge sge = { (uint64_t)(uintptr_t)(e->buf + off), len,
				iwcm_mr_get_stag(e->mr) };

	wr->sg_list = &sge;
	wr->num_sge = 1;
	ck_assert_int_eq(iwcm_post_send(e->qp, wr, NULL), 0);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

static void smoke_send(void)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	static const uint32_t sizes[] = { 0, 1, 100, 4096, 70000, 300000 };

	pair_default(&a, &b);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t n = sizes[i];

		fill(a.buf, n, (uint8_t)i);
		post_recv(&b, 100 + i, 0, BUF_LEN);
		memset(&wr, 0, sizeof(wr));
		wr.wr_id = i;
		wr.opcode = IWCM_WR_SEND;
		wr.send_flags = IWCM_SEND_SIGNALED;
		post(&a, &wr, 0, n);
		wc = wait_wc(&a, &b);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, i);
		ck_assert_int_eq(wc.opcode, IWCM_WC_SEND);
		wc = wait_wc(&b, &a);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.wr_id, 100 + i);
		ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
		ck_assert_uint_eq(wc.byte_len, n);
		ck_assert_ptr_eq(wc.qp, b.qp);
		ck_assert(memcmp(a.buf, b.buf, n) == 0);
	}
	end_down(&a);
	end_down(&b);
}

START_TEST(test_send_recv)
{
	manual = _i;
	smoke_send();
}
END_TEST

static struct iwcm_send_wr wr_of(int opcode, uint64_t id)
{
	struct iwcm_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = opcode;
	wr.send_flags = IWCM_SEND_SIGNALED;
	return wr;
}

static void expect_wc(struct end *e, struct end *o, uint64_t id, int status,
		      int opcode)
{
	struct iwcm_wc wc = wait_wc(e, o);

	ck_assert_msg(wc.wr_id == id && (int)wc.status == status &&
			      (int)wc.opcode == opcode,
		      "wc id %llu status %d (%s) opcode %d, want %llu %d %d",
		      (unsigned long long)wc.wr_id, wc.status,
		      iwcm_wc_status_str(wc.status), wc.opcode,
		      (unsigned long long)id, status, opcode);
}

static struct iwcm_async_event wait_async(struct end *e, struct end *o)
{
	struct iwcm_async_event ev;
	int64_t end = now_ms() + 10000;
	struct pollfd pfd;

	pfd.fd = iwcm_ctx_get_async_fd(e->ctx);
	pfd.events = POLLIN;
	for (;;) {
		if (poll(&pfd, 1, 0) == 1) {
			ck_assert_int_eq(iwcm_get_async_event(e->ctx, &ev), 0);
			return ev;
		}
		ck_assert_msg(now_ms() < end, "no async event");
		if (manual) {
			iwcm_progress(e->ctx, 0);
			if (o)
				iwcm_progress(o->ctx, 0);
		} else {
			usleep(100);
		}
	}
}

/* RDMA Write, then Write with Immediate (RFC 7306 §6). */
START_TEST(test_write)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	static const uint32_t sizes[] = { 0, 1, 3000, 65536, 200001 };

	manual = _i;
	pair_default(&a, &b);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t n = sizes[i];

		fill(a.buf, n, (uint8_t)(i + 3));
		wr = wr_of(IWCM_WR_RDMA_WRITE, i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 4096);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
		post(&a, &wr, 0, n);
		expect_wc(&a, &b, i, IWCM_WC_SUCCESS, IWCM_WC_RDMA_WRITE);
		/* A Send after the Write: delivered once it is placed. */
		post_recv(&b, 50, BUF_LEN - 64, 64);
		wr = wr_of(IWCM_WR_SEND, 99);
		post(&a, &wr, 0, 0);
		expect_wc(&a, &b, 99, IWCM_WC_SUCCESS, IWCM_WC_SEND);
		expect_wc(&b, &a, 50, IWCM_WC_SUCCESS, IWCM_WC_RECV);
		ck_assert(memcmp(a.buf, b.buf + 4096, n) == 0);
	}
	post_recv(&b, 7, 0, 0);
	fill(a.buf, 5000, 9);
	wr = wr_of(IWCM_WR_RDMA_WRITE_WITH_IMM, 8);
	wr.imm_data = 0x0123456789ABCDEFull;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 8192);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
	post(&a, &wr, 0, 5000);
	expect_wc(&a, &b, 8, IWCM_WC_SUCCESS, IWCM_WC_RDMA_WRITE);
	wc = wait_wc(&b, &a);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.wr_id, 7);
	ck_assert_uint_eq(wc.byte_len, 5000);
	ck_assert(wc.wc_flags & IWCM_WC_WITH_IMM);
	ck_assert_uint_eq(wc.imm_data, 0x0123456789ABCDEFull);
	ck_assert(memcmp(a.buf, b.buf + 8192, 5000) == 0);

	/* Immediate Data alone, with SE. */
	post_recv(&b, 9, 0, 0);
	wr = wr_of(IWCM_WR_IMM_DATA, 10);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	wr.imm_data = 42;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	expect_wc(&a, &b, 10, IWCM_WC_SUCCESS, IWCM_WC_IMM_DATA);
	wc = wait_wc(&b, &a);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_IMM_DATA);
	ck_assert_uint_eq(wc.imm_data, 42);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_IMM | IWCM_WC_SOLICITED);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RDMA Read of every size, more outstanding than ORD (queued). */
START_TEST(test_read)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	static const uint32_t sizes[] = { 0, 1, 4000, 65535, 150000, 7 };

	manual = _i;
	pair_default(&a, &b);
	fill(b.buf, BUF_LEN, 77);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		wr = wr_of(IWCM_WR_RDMA_READ, i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 100 * i);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
		post(&a, &wr, 200000 * i, sizes[i]);
	}
	/* Completions in order (RFC 5040 §5.5 rule 15). */
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		struct iwcm_wc wc = wait_wc(&a, &b);

		ck_assert_uint_eq(wc.wr_id, i);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_int_eq(wc.opcode, IWCM_WC_RDMA_READ);
		ck_assert_uint_eq(wc.byte_len, sizes[i]);
		ck_assert(memcmp(a.buf + 200000 * i, b.buf + 100 * i,
				 sizes[i]) == 0);
	}
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RFC 7306 atomics and the seed draft's Swap. */
START_TEST(test_atomics)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	uint64_t *target, *result;

	manual = _i;
	pair_default(&a, &b);
	target = (uint64_t *)(b.buf + 64);
	result = (uint64_t *)(a.buf + 128);
	*target = 100;
	wr = wr_of(IWCM_WR_ATOMIC_FETCH_ADD, 1);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(b.mr);
	wr.wr.atomic.compare_add = 5;
	post(&a, &wr, 128, 8);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_FETCH_ADD);
	ck_assert_uint_eq(*result, 100);
	ck_assert_uint_eq(*target, 105);

	wr = wr_of(IWCM_WR_ATOMIC_CMP_SWP, 2);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(b.mr);
	wr.wr.atomic.compare_add = 105;
	wr.wr.atomic.compare_add_mask = UINT64_MAX;
	wr.wr.atomic.swap = 7;
	wr.wr.atomic.swap_mask = UINT64_MAX;
	post(&a, &wr, 128, 8);
	expect_wc(&a, &b, 2, IWCM_WC_SUCCESS, IWCM_WC_COMP_SWAP);
	ck_assert_uint_eq(*result, 105);
	ck_assert_uint_eq(*target, 7);

	wr = wr_of(IWCM_WR_ATOMIC_SWAP, 3);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)target;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(b.mr);
	wr.wr.atomic.swap = 0xAA;
	post(&a, &wr, 128, 8);
	expect_wc(&a, &b, 3, IWCM_WC_SUCCESS, IWCM_WC_SWAP);
	ck_assert_uint_eq(*result, 7);
	ck_assert_uint_eq(*target, 0xAA);

	/* Unaligned: refused at post time. */
	wr = wr_of(IWCM_WR_ATOMIC_SWAP, 4);
	wr.wr.atomic.remote_addr = (uint64_t)(uintptr_t)target + 4;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(b.mr);
	{
		struct iwcm_sge sge = { (uint64_t)(uintptr_t)result, 8,
					iwcm_mr_get_stag(a.mr) };
		struct iwcm_send_wr *bad = NULL;

		wr.sg_list = &sge;
		wr.num_sge = 1;
		ck_assert_int_eq(iwcm_post_send(a.qp, &wr, &bad), EINVAL);
		ck_assert_ptr_eq(bad, &wr);
	}
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Send with Invalidate, then a Write to the invalidated STag: the
 * responder's Terminate, the events and the flush on both sides. */
START_TEST(test_invalidate_terminate)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	struct iwcm_wc wc;
	uint32_t stag;

	manual = _i;
	pair_default(&a, &b);
	stag = iwcm_mr_get_stag(b.mr);
	post_recv(&b, 1, 0, 16);
	wr = wr_of(IWCM_WR_SEND_WITH_INV, 2);
	wr.invalidate_stag = stag;
	post(&a, &wr, 0, 16);
	expect_wc(&a, &b, 2, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	wc = wait_wc(&b, &a);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert(wc.wc_flags & IWCM_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_stag, stag);

	/* B's region no longer answers to its STag. */
	post_recv(&b, 3, 0, 16);
	post_recv(&b, 4, 0, 16);
	wr = wr_of(IWCM_WR_RDMA_WRITE, 5);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b.buf;
	wr.wr.rdma.rkey = stag;
	post(&a, &wr, 0, 16);
	expect_wc(&a, &b, 5, IWCM_WC_SUCCESS, IWCM_WC_RDMA_WRITE);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_ptr_eq(ev.qp, b.qp);
	/* RFC 5041 §7.2: tagged buffer error, invalid STag. */
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ck_assert_uint_eq(ev.term_ecode, DDP_ECODE_T_INVALID_STAG);
	expect_wc(&b, &a, 3, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	expect_wc(&b, &a, 4, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_ecode, DDP_ECODE_T_INVALID_STAG);
	{
		struct iwcm_qp_attr qa = { .comp_mask = 0 };

		ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
		ck_assert_int_eq(qa.state, IWCM_QPS_ERROR);
	}
	/* Posting to a QP in error flushes at once. */
	wr = wr_of(IWCM_WR_SEND, 6);
	wr.send_flags = 0;
	post(&a, &wr, 0, 1);
	expect_wc(&a, &b, 6, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_SEND);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A Read the peer refuses: REM_ACCESS_ERR with the Terminate's codes,
 * then everything behind it is flushed. */
START_TEST(test_read_refused)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;

	manual = _i;
	pair_default(&a, &b);
	wr = wr_of(IWCM_WR_RDMA_READ, 1);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b.buf + BUF_LEN - 8;
	wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
	post(&a, &wr, 0, 16);
	/* FENCE holds the Send behind the Read: it is flushed. */
	wr = wr_of(IWCM_WR_SEND, 2);
	wr.send_flags = IWCM_SEND_FENCE;
	post(&a, &wr, 0, 1);
	wc = wait_wc(&a, &b);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IWCM_WC_REM_ACCESS_ERR);
	/* RFC 5040 §4.8: RDMAP, Remote Protection, base or bounds. */
	ck_assert_uint_eq(wc.vendor_err,
			  (uint32_t)RDMAP_TERM_LAYER_RDMAP << 16 |
				  RDMAP_ETYPE_REMOTE_PROT << 8 |
				  RDMAP_ECODE_BASE_BOUNDS);
	expect_wc(&a, &b, 2, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_SEND);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Inline data, several SGEs, a shared receive queue. */
START_TEST(test_inline_sge_srq)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	uint8_t tmp[200];
	struct iwcm_sge sge[3];

	manual = _i;
	pair_default(&a, &b);
	for (size_t i = 0; i < sizeof(tmp); i++)
		tmp[i] = (uint8_t)(i ^ 0x5A);
	post_recv(&b, 1, 1000, 300);
	wr = wr_of(IWCM_WR_SEND, 2);
	wr.send_flags |= IWCM_SEND_INLINE;
	sge[0].addr = (uint64_t)(uintptr_t)tmp;
	sge[0].length = 150;
	sge[0].lkey = 0;
	sge[1].addr = (uint64_t)(uintptr_t)(tmp + 150);
	sge[1].length = 50;
	sge[1].lkey = 0;
	wr.sg_list = sge;
	wr.num_sge = 2;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	memset(tmp, 0, sizeof(tmp));
	expect_wc(&a, &b, 2, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.byte_len, 200);
	for (size_t i = 0; i < 200; i++)
		ck_assert_uint_eq(b.buf[1000 + i], (uint8_t)(i ^ 0x5A));

	/* Gather from three pieces, scatter into two. */
	fill(a.buf, 3000, 1);
	{
		struct iwcm_sge rs[2] = {
			{ (uint64_t)(uintptr_t)(b.buf + 10000), 1000,
			  iwcm_mr_get_stag(b.mr) },
			{ (uint64_t)(uintptr_t)(b.buf + 20000), 2000,
			  iwcm_mr_get_stag(b.mr) },
		};
		struct iwcm_recv_wr rwr = { 3, NULL, rs, 2, 0 };

		ck_assert_int_eq(iwcm_post_recv(b.qp, &rwr, NULL), 0);
	}
	for (int i = 0; i < 3; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)(a.buf + 1000 * i);
		sge[i].length = 1000;
		sge[i].lkey = iwcm_mr_get_stag(a.mr);
	}
	wr = wr_of(IWCM_WR_SEND, 4);
	wr.sg_list = sge;
	wr.num_sge = 3;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	expect_wc(&a, &b, 4, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert(memcmp(b.buf + 10000, a.buf, 1000) == 0);
	ck_assert(memcmp(b.buf + 20000, a.buf + 1000, 2000) == 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Graceful close: the queued Send arrives, both sides see the close. */
START_TEST(test_disconnect)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;

	manual = _i;
	pair_default(&a, &b);
	post_recv(&b, 1, 0, 100);
	post_recv(&b, 2, 0, 100);
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&a, &wr, 0, 100);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	if (manual) {
		/* Nothing progressed yet: still closing. */
		wr.num_sge = 0;
		ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), ENOTCONN);
	}
	expect_wc(&a, &b, 3, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 1, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	expect_wc(&b, &a, 2, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	ck_assert_int_eq(iwcm_destroy_qp(b.qp), 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* ---- bounded close ---- */

/* An async event of e within ms, driving e's progress; false if none. */
static bool async_within(struct end *e, int ms, struct iwcm_async_event *ev)
{
	int64_t end = now_ms() + ms;
	struct pollfd pfd = { iwcm_ctx_get_async_fd(e->ctx), POLLIN, 0 };

	for (;;) {
		if (poll(&pfd, 1, 0) == 1) {
			ck_assert_int_eq(iwcm_get_async_event(e->ctx, ev), 0);
			return true;
		}
		if (now_ms() >= end)
			return false;
		if (manual)
			ck_assert_int_ge(iwcm_progress(e->ctx, 1), 0);
		else
			usleep(1000);
	}
}

/* Drive e's progress until fd is closed (at most ms); true if it was. */
static bool fd_closed_within(struct end *e, int fd, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			return true;
		if (now_ms() >= end)
			return false;
		if (manual)
			ck_assert_int_ge(iwcm_progress(e->ctx, 1), 0);
		else
			usleep(1000);
	}
}

/* Read the raw end until EOF or an error: 0 on EOF, else the errno. */
static int drain_peer(int fd)
{
	static uint8_t sink[65536];
	int64_t end = now_ms() + 10000;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		ck_assert_msg(now_ms() < end, "the peer saw no close");
		if (poll(&p, 1, 100) < 1)
			continue;
		n = read(fd, sink, sizeof(sink));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return errno;
	}
}

/* A library end on sv[0] facing the raw socket sv[1] (returned). */
static int end_raw_peer(struct end *a, bool tcp, uint32_t timeout_ms,
			int *lib_fd)
{
	struct iwcm_synth s;
	int sv[2];

	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.crc = 1;
	s.ird = s.ord = 8;
	s.initiator = 1;
	if (tcp) {
		struct sockaddr_in sin;
		socklen_t len = sizeof(sin);
		int lfd = socket(AF_INET, SOCK_STREAM, 0);

		ck_assert_int_ge(lfd, 0);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(
			bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		ck_assert_int_eq(listen(lfd, 1), 0);
		ck_assert_int_eq(
			getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
		sv[0] = socket(AF_INET, SOCK_STREAM, 0);
		ck_assert_int_ge(sv[0], 0);
		ck_assert_int_eq(connect(sv[0], (struct sockaddr *)&sin,
					 sizeof(sin)),
				 0);
		sv[1] = accept(lfd, NULL, NULL);
		ck_assert_int_ge(sv[1], 0);
		close(lfd);
	} else {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	}
	/* Small buffers: a large Send cannot hide in them. */
	{
		int sz = 65536;

		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	*lib_fd = sv[0];
	disc_timeout = timeout_ms;
	end_up(a, sv[0], &s);
	disc_timeout = 0;
	return sv[1];
}

/* The raw TCP end saw the reset: its connection is closed, where a FIN
 * alone would leave it in CLOSE_WAIT or ESTABLISHED. */
static bool tcp_reset_within(int fd, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		ck_assert_int_eq(
			getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
		if (ti.tcpi_state == TCP_CLOSE)
			return true;
		if (now_ms() >= end)
			return false;
		usleep(1000);
	}
}

/*
 * A peer that never closes: 200 ms after iwcm_qp_disconnect() the QP is
 * in error, what it held is flushed, IWCM_EVENT_QP_FATAL names RFC 5044
 * §8 code 1 and the socket is closed with a reset.  Bit 0: manual
 * progress; bit 1: TCP; then what holds the close: 0, a Read the peer
 * never answers (no FIN can be sent); 1, a Send larger than both socket
 * buffers the peer never reads; 2, nothing (our FIN went out, the peer
 * never sends its own).
 */
START_TEST(test_disconnect_timeout)
{
	bool tcp = _i & 2;
	int flavour = _i >> 2;
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_qp_attr qa;
	struct iwcm_wc wc;
	struct end a;
	int peer, lib_fd, got = 0, want = flavour == 2 ? 2 : 6;
	int64_t t0, dt;

	manual = _i & 1;
	peer = end_raw_peer(&a, tcp, 200, &lib_fd);
	memset(&qa, 0, sizeof(qa));
	qa.comp_mask = IWCM_QP_ATTR_ALL;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert(qa.comp_mask & IWCM_QP_ATTR_DISCONNECT_TIMEOUT);
	ck_assert_uint_eq(qa.disconnect_timeout_ms, 200);
	post_recv(&a, 1, 0, 64);
	if (flavour == 0) {
		wr = wr_of(IWCM_WR_RDMA_READ, 2);
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x1234;
		post(&a, &wr, 0, 100);
	} else if (flavour == 1) {
		wr = wr_of(IWCM_WR_SEND, 2);
		post(&a, &wr, 0, BUF_LEN);
	}
	t0 = now_ms();
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	if (manual) {
		/* A long wait of iwcm_progress() ends when the timer is
		 * due, not after 5 s. */
		while (iwcm_progress(a.ctx, 5000) == 0)
			ck_assert_msg(now_ms() - t0 < 4000,
				      "iwcm_progress() missed the timer");
	}
	ck_assert_msg(async_within(&a, 10000, &ev), "no event");
	dt = now_ms() - t0;
	/* Never before the bound; long before a stuck close would end. */
	ck_assert_msg(dt >= 150 && dt < 8000, "closed after %lld ms",
		      (long long)dt);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_ptr_eq(ev.qp, a.qp);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_LLP);
	ck_assert_uint_eq(ev.term_etype, MPA_ETYPE_MPA);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_CLOSED);
	memset(&qa, 0, sizeof(qa));
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.state, IWCM_QPS_ERROR);
	/* Flushed: the receive, and the Read awaiting its response or the
	 * Send half written. */
	while (got != want) {
		wc = wait_wc(&a, NULL);
		ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		ck_assert_ptr_eq(wc.qp, a.qp);
		if (wc.wr_id == 1)
			ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
		else
			ck_assert_int_eq(wc.opcode, flavour == 1 ?
							    IWCM_WC_SEND :
							    IWCM_WC_RDMA_READ);
		ck_assert_uint_le(wc.wr_id, 2);
		ck_assert(!(got & 1 << wc.wr_id));
		got |= 1 << wc.wr_id;
	}
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	/* The library's socket is closed, abortively (RFC 5040 §6.2 LLP
	 * Abortive Termination): a TCP peer's connection is reset. */
	ck_assert(fd_closed_within(&a, lib_fd, 5000));
	if (tcp) {
		ck_assert(tcp_reset_within(peer, 5000));
		if (flavour != 2)
			ck_assert_int_eq(drain_peer(peer), ECONNRESET);
	} else {
		ck_assert_int_eq(drain_peer(peer), 0);
	}
	/* In error now: posting flushes, disconnecting again is a no-op,
	 * and nothing else is reported. */
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&a, &wr, 0, 8);
	wc = wait_wc(&a, NULL);
	ck_assert_uint_eq(wc.wr_id, 3);
	ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	ck_assert(!async_within(&a, 100, &ev));
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	close(peer);
	end_down(&a);
}
END_TEST

/* A peer that closes while the QP is closing: the graceful path, and the
 * timer that was running never fires.  Bit 0: manual, bit 1: TCP. */
START_TEST(test_disconnect_graceful_bounded)
{
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a;
	int peer, lib_fd;

	manual = _i & 1;
	peer = end_raw_peer(&a, _i & 2, 2000, &lib_fd);
	post_recv(&a, 1, 0, 64);
	wr = wr_of(IWCM_WR_SEND, 2);
	post(&a, &wr, 0, 1000);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	expect_wc(&a, NULL, 2, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	/* Our FIN comes after the Send; the peer answers with its own. */
	if (manual) {
		int64_t end = now_ms() + 5000;
		struct pollfd p = { peer, POLLIN, 0 };
		uint8_t buf[4096];

		/* Drive the library until its FIN is readable. */
		for (;;) {
			ssize_t n;

			ck_assert(now_ms() < end);
			iwcm_progress(a.ctx, 1);
			if (poll(&p, 1, 0) < 1)
				continue;
			n = read(peer, buf, sizeof(buf));
			if (n == 0)
				break;
			ck_assert_int_gt(n, 0);
		}
	} else {
		ck_assert_int_eq(drain_peer(peer), 0);
	}
	close(peer);
	ck_assert(async_within(&a, 5000, &ev));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	expect_wc(&a, NULL, 1, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	/* Past the bound: no second event, the QP stays as it was. */
	ck_assert(!async_within(&a, 2300, &ev));
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	ck_assert_int_eq(fcntl(lib_fd, F_GETFD) >= 0, 1);
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	end_down(&a);
}
END_TEST

/*
 * Manual progress polled seldom with a zero timeout: the one call made
 * after the disconnect timeout is due fires it.  (iwcm_progress(ctx, 0)
 * reads a few QPs' sockets without the libuv loop most of the time; the
 * loop, and its timer, must run while a timer is armed.)
 */
START_TEST(test_disconnect_timeout_slow_poller)
{
	struct iwcm_async_event ev;
	struct iwcm_qp_attr qa;
	struct pollfd pfd;
	struct end a;
	int peer, lib_fd, i;

	manual = 1;
	peer = end_raw_peer(&a, false, 50, &lib_fd);
	/* Calls enough to be past the loop's own turn. */
	for (i = 0; i < 40; i++)
		ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	usleep(150 * 1000);
	ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	pfd = (struct pollfd){ iwcm_ctx_get_async_fd(a.ctx), POLLIN, 0 };
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ck_assert_int_eq(iwcm_get_async_event(a.ctx, &ev), 0);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_CLOSED);
	memset(&qa, 0, sizeof(qa));
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.state, IWCM_QPS_ERROR);
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	close(peer);
	end_down(&a);
	manual = 0;
}
END_TEST

/* The disconnect timeout attribute: default, range, comp_mask. */
START_TEST(test_disconnect_timeout_attr)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx);
	struct iwcm_cq *cq = iwcm_create_cq(ctx, 16, NULL, NULL);
	struct iwcm_qp_init_attr ia;
	struct iwcm_qp_attr qa;
	struct iwcm_synth s;
	struct iwcm_conn *c;
	struct iwcm_qp *qp;
	static const uint32_t bad[] = { 0, 600001, UINT32_MAX };
	int sv[2];

	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.ird = s.ord = 1;
	s.initiator = 1;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.max_send_wr = ia.max_recv_wr = 4;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		close(sv[1]);
		c = iwcm_conn_synth(ctx, sv[0], &s);
		ck_assert_ptr_nonnull(c);
		/* An unknown comp_mask bit, then each bad value. */
		ia.comp_mask = 1u << 31;
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EINVAL);
		ia.comp_mask = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;
		ia.disconnect_timeout_ms = bad[i];
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EINVAL);
		/* The default without the bit, else the value given. */
		ia.comp_mask = i ? IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT : 0;
		ia.disconnect_timeout_ms = i == 1 ? 1 : 600000;
		qp = iwcm_create_qp(c, pd, &ia);
		ck_assert_ptr_nonnull(qp);
		/* The socket is the QP's now: no second QP. */
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EBADF);
		memset(&qa, 0xFF, sizeof(qa));
		qa.comp_mask = IWCM_QP_ATTR_ALL;
		ck_assert_int_eq(iwcm_query_qp(qp, &qa), 0);
		ck_assert_uint_eq(qa.comp_mask,
				  IWCM_QP_ATTR_MAX_SGE_RD |
					  IWCM_QP_ATTR_DISCONNECT_TIMEOUT);
		ck_assert_uint_eq(qa.disconnect_timeout_ms, i == 0 ? 3000 :
							    i == 1 ? 1 :
								     600000);
		ck_assert_uint_eq(qa.max_sge_rd, 1);
		ck_assert_int_eq(iwcm_destroy_qp(qp), 0);
		iwcm_conn_free(c);
	}
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- completion event acknowledgement ---- */

/* ibv_ack_cq_events() semantics: a CQ whose events were taken but not
 * all acknowledged is not destroyed (EBUSY instead of ibv_destroy_cq()'s
 * wait); events not taken yet go with it. */
START_TEST(test_ack_cq_events)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_comp_channel *ch = iwcm_create_comp_channel(ctx);
	struct iwcm_cq *cq, *plain, *got;
	struct iwcm_wc wc;
	void *cctx;
	int fd;

	ck_assert_ptr_nonnull(ch);
	cq = iwcm_create_cq(ctx, 16, NULL, ch);
	plain = iwcm_create_cq(ctx, 16, NULL, NULL);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_nonnull(plain);
	fd = iwcm_comp_channel_get_fd(ch);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(&wc, 0, sizeof(wc));

	/* Three events taken: EBUSY until all three are acknowledged. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
		ck_assert(dp_cq_push(cq, &wc));
		ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), 0);
		ck_assert_ptr_eq(got, cq);
	}
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 0);
	iwcm_ack_cq_events(cq, 2);
	/* Acknowledging more than was taken counts only those taken: the
	 * next event still needs its own acknowledgement. */
	iwcm_ack_cq_events(cq, 5);
	ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), 0);
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 1);
	/* An event queued but not taken does not hold the CQ. */
	ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* No channel, no event: nothing to acknowledge; NULL is ignored. */
	iwcm_ack_cq_events(plain, 3);
	iwcm_ack_cq_events(NULL, 1);
	ck_assert_int_eq(iwcm_destroy_cq(plain), 0);
	ck_assert_int_eq(iwcm_destroy_comp_channel(ch), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- multi-SGE RDMA Read and other misuse ---- */

/* RFC 5040 §4.4: one Data Sink per Read Request, so max_sge_rd is 1 and a
 * Read with two local SGEs is refused before anything is posted. */
START_TEST(test_read_sge_limit)
{
	struct end a, b;
	struct iwcm_send_wr wr, wr2, *bad;
	struct iwcm_qp_attr qa;
	struct iwcm_sge sge[2];
	struct iwcm_wc wc;

	manual = _i;
	pair_default(&a, &b);
	memset(&qa, 0, sizeof(qa));
	qa.comp_mask = IWCM_QP_ATTR_ALL;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert(qa.comp_mask & IWCM_QP_ATTR_MAX_SGE_RD);
	ck_assert_uint_eq(qa.max_sge_rd, 1);
	fill(b.buf + 8192, 200, 9);
	for (int i = 0; i < 2; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)(a.buf + 1000 * i);
		sge[i].length = 100;
		sge[i].lkey = iwcm_mr_get_stag(a.mr);
	}
	/* A good Send first in the list: posted; the Read is bad_wr. */
	wr2 = wr_of(IWCM_WR_SEND, 1);
	wr2.sg_list = sge;
	wr2.num_sge = 1;
	wr = wr_of(IWCM_WR_RDMA_READ, 2);
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 8192);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
	wr2.next = &wr;
	post_recv(&b, 10, 0, 200);
	bad = NULL;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr2, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	/* The same Read with max_sge_rd entries goes through. */
	wr.num_sge = 1;
	wr.wr_id = 3;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	expect_wc(&a, &b, 3, IWCM_WC_SUCCESS, IWCM_WC_RDMA_READ);
	ck_assert(memcmp(a.buf, b.buf + 8192, 100) == 0);
	/* Nothing of the refused Read was sent or completed. */
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/*
 * Misuse that must stay well defined: freeing a PD or a CQ a live QP
 * uses (EBUSY), posting to a QP in error (flushed at once, also into a
 * full CQ: IWCM_EVENT_CQ_ERR), disconnecting it (a no-op).
 */
START_TEST(test_misuse)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_recv_wr rwr;
	struct iwcm_sge sge;
	struct iwcm_async_event ev;
	struct iwcm_wc wc;
	int n;

	manual = _i;
	cq_depth = 8;
	pair_default(&a, &b);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_destroy_cq(a.cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	/* The peer goes away: a is in error. */
	end_down(&b);
	ev = wait_async(&a, NULL);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	/* A bad request is still refused, a good one flushed. */
	wr = wr_of(IWCM_WR_ATOMIC_SWAP + 1, 1);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), EINVAL);
	sge.addr = (uint64_t)(uintptr_t)a.buf;
	sge.length = 8;
	sge.lkey = iwcm_mr_get_stag(a.mr);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.next = NULL;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ck_assert_int_eq(iwcm_post_recv(a.qp, &rwr, NULL), 0);
	expect_wc(&a, NULL, 2, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	/* Eight flushed Sends fill the CQ; the ninth is lost and says so,
	 * once. */
	for (int i = 0; i < 10; i++) {
		wr = wr_of(IWCM_WR_SEND, 10 + (uint64_t)i);
		post(&a, &wr, 0, 8);
	}
	ev = wait_async(&a, NULL);
	ck_assert_int_eq(ev.type, IWCM_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.cq, a.cq);
	for (n = 0; iwcm_poll_cq(a.cq, 1, &wc) == 1; n++) {
		ck_assert_uint_eq(wc.wr_id, 10 + (uint64_t)n);
		ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		ck_assert_int_eq(wc.opcode, IWCM_WC_SEND);
	}
	ck_assert_int_eq(n, 8);
	{
		struct pollfd p = { iwcm_ctx_get_async_fd(a.ctx), POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
	/* Once the QP is gone, the PD holds only the MR, the CQ nothing. */
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_destroy_cq(a.cq), 0);
	ck_assert_int_eq(iwcm_dereg_mr(a.mr), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), 0);
	end_down(&a);
}
END_TEST

/* Send, Write and Read over one configuration of the pair. */
static void traffic(struct end *a, struct end *b)
{
	static const uint32_t sizes[] = { 0, 5, 511, 1500, 66000, 250000 };
	struct iwcm_send_wr wr;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t n = sizes[i];
		struct iwcm_wc wc;

		fill(a->buf, n, (uint8_t)(i * 13));
		post_recv(b, i, 300000, 300000);
		wr = wr_of(IWCM_WR_SEND, i);
		post(a, &wr, 0, n);
		expect_wc(a, b, i, IWCM_WC_SUCCESS, IWCM_WC_SEND);
		wc = wait_wc(b, a);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.byte_len, n);
		ck_assert(memcmp(a->buf, b->buf + 300000, n) == 0);

		fill(b->buf, n, (uint8_t)(i * 17));
		wr = wr_of(IWCM_WR_RDMA_WRITE, 100 + i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(a->buf + 600000);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(a->mr);
		post(b, &wr, 0, n);
		expect_wc(b, a, 100 + i, IWCM_WC_SUCCESS, IWCM_WC_RDMA_WRITE);
		wr = wr_of(IWCM_WR_RDMA_READ, 200 + i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(a->buf + 600000);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(a->mr);
		post(b, &wr, 300000, n);
		expect_wc(b, a, 200 + i, IWCM_WC_SUCCESS, IWCM_WC_RDMA_READ);
		ck_assert(memcmp(b->buf, b->buf + 300000, n) == 0);
	}
}

struct mk_case {
	int m_ab, m_ba, crc; /* markers A->B, B->A */
	uint64_t off_ab, off_ba;
};

static const struct mk_case mk_cases[] = {
	{ 1, 1, 1, 0, 0 },     { 1, 0, 1, 4, 100 },
	{ 0, 1, 0, 300, 511 }, { 1, 1, 0, 508, 1028 },
	{ 0, 0, 0, 0, 0 },     { 1, 1, 1, (1ull << 32) + 516, 7 * 512 + 4 },
};

/* RFC 5044 §4.3-4.4: markers at the handed-over stream offsets, CRC on
 * or off, each direction on its own. */
START_TEST(test_markers_crc)
{
	const struct mk_case *c = &mk_cases[_i / 2];
	struct iwcm_synth sa, sb;
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	struct end a, b;

	manual = _i & 1;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.ird = sa.ord = 4;
	sa.atomics = sa.imm_data = 1;
	sa.crc = c->crc;
	sb = sa;
	sa.initiator = 1;
	sa.markers_tx = sb.markers_rx = c->m_ab;
	sa.markers_rx = sb.markers_tx = c->m_ba;
	sa.tx_offset = sb.rx_offset = c->off_ab;
	sa.rx_offset = sb.tx_offset = c->off_ba;
	pair_up(&a, &b, &sa, &sb);
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.markers_tx, c->m_ab);
	ck_assert_int_eq(qa.markers_rx, c->m_ba);
	ck_assert_int_eq(qa.crc, c->crc);
	ck_assert_uint_ge(qa.mulpdu, 128);
	traffic(&a, &b);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RDMA Consortium peers: DDP and RDMAP version 0, no RFC 7306. */
START_TEST(test_version0)
{
	struct iwcm_synth sa, sb;
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	struct iwcm_send_wr wr;
	struct end a, b;

	manual = _i;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 0;
	sa.version = 0;
	sa.markers_tx = sa.markers_rx = sa.crc = 1;
	sa.ird = sa.ord = 2;
	sa.atomics = sa.imm_data = 1;
	sb = sa;
	sa.initiator = 1;
	pair_up(&a, &b, &sa, &sb);
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_uint_eq(qa.rdmap_version, 0);
	ck_assert_int_eq(qa.atomics, 0);
	ck_assert_int_eq(qa.imm_data, 0);
	wr = wr_of(IWCM_WR_IMM_DATA, 1);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), EOPNOTSUPP);
	traffic(&a, &b);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RFC 5044 §7.1.2 rule 4: an MPA v1 responder sends nothing before the
 * initiator's first FPDU. */
START_TEST(test_first_fpdu_fence)
{
	struct iwcm_synth sa, sb;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a, b;

	manual = _i;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.crc = 1;
	sa.ird = sa.ord = 1;
	sb = sa;
	sa.initiator = 1;
	sb.wait_first_fpdu = 1;
	pair_up(&a, &b, &sa, &sb);
	post_recv(&a, 1, 0, 64);
	post_recv(&b, 2, 0, 64);
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&b, &wr, 1000, 10);
	for (int i = 0; i < 50; i++) {
		if (manual) {
			iwcm_progress(a.ctx, 1);
			iwcm_progress(b.ctx, 1);
		} else {
			usleep(1000);
		}
	}
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	ck_assert_int_eq(iwcm_poll_cq(b.cq, 1, &wc), 0);
	wr = wr_of(IWCM_WR_SEND, 4);
	post(&a, &wr, 1000, 10);
	expect_wc(&a, &b, 4, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 2, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	expect_wc(&b, &a, 3, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* The octets the daemon read past the handshake come first: here a
 * whole Send and half of the next FPDU, with markers and CRC. */
START_TEST(test_unread_first)
{
	struct iwcm_synth sa, sb;
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct rdmap_msg m;
	uint8_t ulpdu[64], wire[2][256];
	size_t hl, wl[2], n;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a, b;
	uint8_t unread[512];

	manual = _i;
	for (int k = 0; k < 2; k++) {
		memset(&m, 0, sizeof(m));
		m.rv = 1;
		m.ddp.dv = 1;
		m.opcode = RDMAP_SEND;
		m.ddp.qn = 0;
		m.ddp.msn = 1 + (uint32_t)k;
		m.ddp.last = true;
		ck_assert_int_eq(rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &hl),
				 WIRE_OK);
		memset(ulpdu + hl, 'a' + k, 10);
		ck_assert_int_eq(mpa_fpdu_build(&d, ulpdu, (uint16_t)(hl + 10),
						wire[k], sizeof(wire[k]),
						&wl[k]),
				 WIRE_OK);
	}
	n = wl[0] + wl[1] / 2;
	memcpy(unread, wire[0], wl[0]);
	memcpy(unread + wl[0], wire[1], wl[1] / 2);

	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.crc = 1;
	sa.markers_tx = sa.markers_rx = 1;
	sa.ird = sa.ord = 1;
	sb = sa;
	sa.initiator = 1;
	/* A "sent" MSNs 1 and 2 already; B expects 1. */
	sa.next_msn[0] = 3;
	sa.tx_offset = wl[0] + wl[1];
	sb.unread = unread;
	sb.unread_len = n;
	pair_up(&a, &b, &sa, &sb);
	for (int k = 0; k < 3; k++)
		post_recv(&b, 10 + (uint64_t)k, 64 * (uint64_t)k, 64);
	/* The other half of the second FPDU, as if still in flight. */
	ck_assert_int_eq(write(a.qp->fd, wire[1] + wl[1] / 2,
			       wl[1] - wl[1] / 2),
			 (ssize_t)(wl[1] - wl[1] / 2));
	wr = wr_of(IWCM_WR_SEND, 5);
	fill(a.buf, 20, 3);
	post(&a, &wr, 0, 20);
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 10);
	ck_assert_uint_eq(wc.byte_len, 10);
	ck_assert_uint_eq(b.buf[0], 'a');
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 11);
	ck_assert_uint_eq(b.buf[64], 'b');
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 12);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert(memcmp(b.buf + 128, a.buf, 20) == 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A shared receive queue serves the QP's Sends. */
START_TEST(test_srq)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct iwcm_sge sge[2];
	struct iwcm_recv_wr rwr[2];

	manual = _i;
	with_srq = true;
	pair_default(&a, &b);
	/* The receive queue of a QP with an SRQ takes no buffers. */
	sge[0].addr = (uint64_t)(uintptr_t)b.buf;
	sge[0].length = 100;
	sge[0].lkey = iwcm_mr_get_stag(b.mr);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 1;
	rwr[0].next = NULL;
	rwr[0].sg_list = sge;
	rwr[0].num_sge = 1;
	ck_assert_int_eq(iwcm_post_recv(b.qp, rwr, NULL), EINVAL);
	ck_assert_int_eq(iwcm_destroy_srq(b.srq), -1);
	ck_assert_int_eq(errno, EBUSY);
	sge[1] = sge[0];
	sge[1].addr += 100;
	rwr[1] = rwr[0];
	rwr[1].wr_id = 2;
	rwr[1].sg_list = &sge[1];
	rwr[0].next = &rwr[1];
	ck_assert_int_eq(iwcm_post_srq_recv(b.srq, rwr, NULL), 0);
	for (int i = 0; i < 2; i++) {
		fill(a.buf, 50, (uint8_t)i);
		wr = wr_of(IWCM_WR_SEND, 10 + (uint64_t)i);
		post(&a, &wr, 0, 50);
		expect_wc(&a, &b, 10 + (uint64_t)i, IWCM_WC_SUCCESS,
			  IWCM_WC_SEND);
		wc = wait_wc(&b, &a);
		ck_assert_uint_eq(wc.wr_id, 1 + (uint64_t)i);
		ck_assert_uint_eq(wc.byte_len, 50);
		ck_assert(memcmp(b.buf + 100 * i, a.buf, 50) == 0);
	}
	ck_assert_int_eq(iwcm_destroy_qp(b.qp), 0);
	ck_assert_int_eq(iwcm_destroy_srq(b.srq), 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* The completion channel wakes a waiter on a solicited completion. */
START_TEST(test_channel_wakeup)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_cq *cq;
	struct iwcm_wc wc;
	void *cctx;

	manual = _i;
	with_channel = true;
	pair_default(&a, &b);
	post_recv(&b, 1, 0, 64);
	post_recv(&b, 2, 0, 64);
	ck_assert_int_eq(iwcm_req_notify_cq(b.cq, 1), 0);
	/* Not solicited: no event yet. */
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&a, &wr, 0, 8);
	expect_wc(&b, &a, 1, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	{
		struct pollfd p = { iwcm_comp_channel_get_fd(b.ch), POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
	wr = wr_of(IWCM_WR_SEND, 4);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	post(&a, &wr, 0, 8);
	/* Blocks: the progress thread, or (manual) the call itself. */
	ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, b.cq);
	ck_assert_ptr_eq(cctx, &b);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_poll_cq(b.cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert(wc.wc_flags & IWCM_WC_SOLICITED);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A full CQ: IWCM_EVENT_CQ_ERR once, the QP in error. */
START_TEST(test_cq_overflow)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;

	manual = _i;
	pair_default(&a, &b);
	/* Replace B's CQ by a tiny one on a fresh pair. */
	end_down(&a);
	end_down(&b);
	cq_depth = 256;
	{
		struct iwcm_synth s;
		int sv[2];

		memset(&s, 0, sizeof(s));
		s.version = 1;
		s.mpa_rev = 1;
		s.ird = s.ord = 1;
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		s.initiator = 1;
		end_up(&a, sv[0], &s);
		cq_depth = 2;
		s.initiator = 0;
		end_up(&b, sv[1], &s);
		cq_depth = 256;
	}
	for (int i = 0; i < 4; i++)
		post_recv(&b, 10 + (uint64_t)i, 0, 64);
	for (int i = 0; i < 3; i++) {
		wr = wr_of(IWCM_WR_SEND, (uint64_t)i);
		post(&a, &wr, 0, 8);
	}
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.cq, b.cq);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Zero copy and deregistration: octets queued for the socket are copied
 * before iwcm_dereg_mr() returns, so scribbling afterwards is harmless. */
START_TEST(test_dereg_in_flight)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	const uint32_t n = 700000;
	uint8_t *copy = malloc(n);
	struct iwcm_mr *mr;

	manual = _i;
	pair_default(&a, &b);
	/* A second region over the same memory, deregistered early. */
	mr = iwcm_reg_mr(a.pd, a.buf, n, 0);
	fill(a.buf, n, 42);
	memcpy(copy, a.buf, n);
	post_recv(&b, 1, 0, BUF_LEN);
	{
		struct iwcm_sge sge = { (uint64_t)(uintptr_t)a.buf, n,
					iwcm_mr_get_stag(mr) };

		wr = wr_of(IWCM_WR_SEND, 2);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	}
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	memset(a.buf, 0xEE, n);
	wc = wait_wc(&a, &b);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	wc = wait_wc(&b, &a);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, n);
	ck_assert(memcmp(b.buf, copy, n) == 0);
	free(copy);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A region deregistered while a Write is being placed into it: nothing
 * more lands there, the segment is refused with the DDP Terminate. */
START_TEST(test_dereg_mid_placement)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	const uint32_t n = 700000;
	struct iwcm_mr *mr;
	bool clean = true;

	manual = true;
	pair_default(&a, &b);
	mr = iwcm_reg_mr(b.pd, b.buf, n,
			 IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	fill(a.buf, n, 5);
	wr = wr_of(IWCM_WR_RDMA_WRITE, 1);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b.buf;
	wr.wr.rdma.rkey = iwcm_mr_get_stag(mr);
	post(&a, &wr, 0, n);
	/* B places what the socket holds, part of the Write. */
	iwcm_progress(b.ctx, 0);
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	memset(b.buf, 0xEE, n);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	for (uint32_t i = 0; i < n; i++)
		clean &= b.buf[i] == 0xEE;
	ck_assert(clean);
	end_down(&a);
	end_down(&b);
}
END_TEST

/*
 * A region deregistered under an RDMA Read in flight.  Bit 0 clear: the
 * requester's sink, before the response arrives: the Read completes with
 * IWCM_WC_LOC_PROT_ERR and nothing lands in the region.  Bit 0 set: the
 * responder's source, mid-response: the octets already queued are sent
 * from a copy, the rest is refused with RDMAP Remote Protection, Invalid
 * STag (RFC 5040 §4.8), so the requester sees IWCM_WC_REM_ACCESS_ERR and
 * never an octet written after deregistration.  The Read is larger than
 * the socket buffer and the frames queued together (16 of up to 64 KiB).
 */
START_TEST(test_dereg_read_in_flight)
{
	const uint32_t n = 4u << 20;
	bool source = _i & 1;
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	struct iwcm_sge sge;
	struct iwcm_mr *src, *dst;
	struct iwcm_wc wc;
	uint8_t *sbuf = malloc(n), *dbuf = calloc(1, n), *copy = malloc(n);
	bool clean = true;

	ck_assert_ptr_nonnull(sbuf);
	ck_assert_ptr_nonnull(dbuf);
	ck_assert_ptr_nonnull(copy);
	manual = true;
	pair_default(&a, &b);
	fill(sbuf, n, 4);
	memcpy(copy, sbuf, n);
	src = iwcm_reg_mr(b.pd, sbuf, n, IWCM_ACCESS_REMOTE_READ);
	dst = iwcm_reg_mr(a.pd, dbuf, n, IWCM_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	wr = wr_of(IWCM_WR_RDMA_READ, 1);
	sge.addr = (uint64_t)(uintptr_t)dbuf;
	sge.length = n;
	sge.lkey = iwcm_mr_get_stag(dst);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)sbuf;
	wr.wr.rdma.rkey = iwcm_mr_get_stag(src);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	/* b answers what its socket takes; a reads nothing yet. */
	for (int i = 0; i < 20; i++)
		iwcm_progress(b.ctx, 1);
	if (source) {
		ck_assert_int_eq(iwcm_dereg_mr(src), 0);
		memset(sbuf, 0xEE, n);
	} else {
		ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
		memset(dbuf, 0xEE, n);
	}
	wc = wait_wc(&a, &b);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RDMA_READ);
	if (source) {
		ck_assert_int_eq(wc.status, IWCM_WC_REM_ACCESS_ERR);
		ck_assert_uint_eq(wc.vendor_err,
				  (uint32_t)RDMAP_TERM_LAYER_RDMAP << 16 |
					  RDMAP_ETYPE_REMOTE_PROT << 8 |
					  RDMAP_ECODE_INVALID_STAG);
		ev = wait_async(&b, &a);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ev = wait_async(&a, &b);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		/* What arrived is the region as it was, or nothing. */
		for (uint32_t i = 0; i < n; i++)
			clean &= dbuf[i] == copy[i] || dbuf[i] == 0;
		/* Some of it arrived, not all. */
		ck_assert(memcmp(dbuf, copy, 1000) == 0);
		ck_assert(memcmp(dbuf, copy, n) != 0);
		ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
	} else {
		ck_assert_int_eq(wc.status, IWCM_WC_LOC_PROT_ERR);
		ev = wait_async(&a, &b);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ev = wait_async(&b, &a);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		for (uint32_t i = 0; i < n; i++)
			clean &= dbuf[i] == 0xEE;
		ck_assert_int_eq(iwcm_dereg_mr(src), 0);
	}
	ck_assert(clean);
	end_down(&a);
	end_down(&b);
	free(sbuf);
	free(dbuf);
	free(copy);
}
END_TEST

/*
 * The same octets registered twice, as MPI does for each rendezvous: a
 * second region over a buffer is registered and deregistered again and
 * again while a 4 MiB RDMA Read (bit 0 clear) or RDMA Write (bit 0 set)
 * is placed into the buffer through the first region.  Deregistering the
 * alias never stops the placement through the other STag (RFC 5042
 * §5.1): the operation completes and every octet arrives.
 */
START_TEST(test_dereg_alias_mid_placement)
{
	const uint32_t n = 4u << 20;
	bool write = _i & 1;
	struct end a, b, *sink;
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_mr *src, *dst;
	struct iwcm_wc wc;
	uint8_t *sbuf = malloc(n), *dbuf = calloc(1, n);
	int64_t end;
	int n_alias = 0, got = 0;

	ck_assert_ptr_nonnull(sbuf);
	ck_assert_ptr_nonnull(dbuf);
	manual = true;
	pair_default(&a, &b);
	fill(sbuf, n, 9);
	/* A Read: a pulls from b's sbuf into its dbuf.  A Write: a pushes
	 * its sbuf into b's dbuf, then a Send says it is all there. */
	sink = write ? &b : &a;
	src = iwcm_reg_mr(write ? a.pd : b.pd, sbuf, n,
			  IWCM_ACCESS_REMOTE_READ);
	dst = iwcm_reg_mr(sink->pd, dbuf, n,
			  IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	wr = wr_of(write ? IWCM_WR_RDMA_WRITE : IWCM_WR_RDMA_READ, 1);
	sge.addr = (uint64_t)(uintptr_t)(write ? sbuf : dbuf);
	sge.length = n;
	sge.lkey = iwcm_mr_get_stag(write ? src : dst);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(write ? dbuf : sbuf);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(write ? dst : src);
	if (write)
		post_recv(&b, 2, 0, 16);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	if (write) {
		wr = wr_of(IWCM_WR_SEND, 2);
		post(&a, &wr, 0, 16);
	}
	end = now_ms() + 20000;
	while (got < (write ? 3 : 1)) {
		struct iwcm_mr *alias;
		int k;

		ck_assert_msg(now_ms() < end, "no completion");
		/* One step of each end, the alias registered across it and
		 * deregistered while the sink may be mid-segment. */
		alias = iwcm_reg_mr(sink->pd, dbuf, n, IWCM_ACCESS_LOCAL_WRITE);
		ck_assert_ptr_nonnull(alias);
		iwcm_progress(a.ctx, 0);
		iwcm_progress(b.ctx, 0);
		ck_assert_int_eq(iwcm_dereg_mr(alias), 0);
		n_alias++;
		while ((k = iwcm_poll_cq(a.cq, 1, &wc)) == 1 ||
		       (k = iwcm_poll_cq(b.cq, 1, &wc)) == 1) {
			ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
			got++;
		}
		ck_assert_int_eq(k, 0);
	}
	ck_assert_int_gt(n_alias, 10);
	ck_assert(memcmp(sbuf, dbuf, n) == 0);
	ck_assert_int_eq(iwcm_dereg_mr(src), 0);
	ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
	end_down(&a);
	end_down(&b);
	free(sbuf);
	free(dbuf);
}
END_TEST

/* ---- ibverbs return values, the growth rules ---- */

/* A list of n send requests of 16 octets from a's buffer, ids from id. */
static void send_list(struct end *e, struct iwcm_send_wr *wr,
		      struct iwcm_sge *sge, int n, uint64_t id)
{
	sge->addr = (uint64_t)(uintptr_t)e->buf;
	sge->length = 16;
	sge->lkey = iwcm_mr_get_stag(e->mr);
	for (int i = 0; i < n; i++) {
		wr[i] = wr_of(IWCM_WR_SEND, id + (uint64_t)i);
		wr[i].sg_list = sge;
		wr[i].num_sge = 1;
		if (i)
			wr[i - 1].next = &wr[i];
	}
}

/* A list of n receives of 64 octets into e's buffer, ids from id. */
static void recv_list(struct end *e, struct iwcm_recv_wr *wr,
		      struct iwcm_sge *sge, int n, uint64_t id)
{
	memset(wr, 0, sizeof(*wr) * (size_t)n);
	for (int i = 0; i < n; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)(e->buf + 64 * i);
		sge[i].length = 64;
		sge[i].lkey = iwcm_mr_get_stag(e->mr);
		wr[i].wr_id = id + (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		if (i)
			wr[i - 1].next = &wr[i];
	}
}

/*
 * iwcm_post_send() as ibv_post_send(): the error number, errno left
 * alone, *bad_wr the first bad request of the list, the ones before it
 * posted and nothing from it on.
 */
START_TEST(test_post_send_bad_wr)
{
	struct iwcm_send_wr wr[3], one, *bad;
	struct iwcm_sge sge;
	struct iwcm_wc wc;
	struct end a, b;

	manual = _i;
	pair_default(&a, &b);
	for (int i = 0; i < 4; i++)
		post_recv(&b, 100 + (uint64_t)i, 64 * (uint64_t)i, 64);
	send_list(&a, wr, &sge, 3, 1);
	/* The second has a comp_mask bit this library does not know. */
	wr[1].comp_mask = 1u << 31;
	bad = NULL;
	errno = ERANGE;
	ck_assert_int_eq(iwcm_post_send(a.qp, wr, &bad), EINVAL);
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_ptr_eq(bad, &wr[1]);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 100, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	/* Neither the second nor the third went: the next Send is next. */
	one = wr_of(IWCM_WR_SEND, 9);
	post(&a, &one, 0, 16);
	expect_wc(&a, &b, 9, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 101, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	/* A bad first request: nothing posted. */
	send_list(&a, wr, &sge, 3, 20);
	wr[0].opcode = (enum iwcm_wr_opcode)(IWCM_WR_ATOMIC_SWAP + 1);
	bad = NULL;
	ck_assert_int_eq(iwcm_post_send(a.qp, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[0]);
	/* The last one bad (an Immediate Data with a payload). */
	send_list(&a, wr, &sge, 3, 30);
	wr[2].opcode = IWCM_WR_IMM_DATA;
	bad = NULL;
	ck_assert_int_eq(iwcm_post_send(a.qp, wr, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[2]);
	expect_wc(&a, &b, 30, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&a, &b, 31, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 102, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	expect_wc(&b, &a, 103, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	/* No QP: EINVAL, the whole list unposted; bad_wr may be NULL. */
	bad = NULL;
	ck_assert_int_eq(iwcm_post_send(NULL, &wr[1], &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr[1]);
	ck_assert_int_eq(iwcm_post_send(NULL, &wr[1], NULL), EINVAL);
	/* Success leaves bad_wr NULL. */
	one = wr_of(IWCM_WR_SEND, 40);
	one.num_sge = 0;
	bad = &wr[0];
	ck_assert_int_eq(iwcm_post_send(a.qp, &one, &bad), 0);
	ck_assert_ptr_null(bad);
	expect_wc(&a, &b, 40, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* iwcm_post_recv() and iwcm_post_srq_recv() as ibv_post_recv(). */
START_TEST(test_post_recv_bad_wr)
{
	struct iwcm_recv_wr rwr[66], *bad;
	struct iwcm_sge rsg[66], sge;
	struct iwcm_send_wr wr[2];
	struct end a, b;
	bool srq = _i & 2;

	manual = _i & 1;
	with_srq = srq;
	pair_default(&a, &b);
	/* The middle one has too many SGEs: the first only is posted. */
	recv_list(&b, rwr, rsg, 3, 100);
	rwr[1].num_sge = 33;
	bad = NULL;
	errno = ERANGE;
	ck_assert_int_eq(srq ? iwcm_post_srq_recv(b.srq, rwr, &bad) :
			       iwcm_post_recv(b.qp, rwr, &bad),
			 EINVAL);
	ck_assert_int_eq(errno, ERANGE);
	ck_assert_ptr_eq(bad, &rwr[1]);
	/* An unknown comp_mask bit is EINVAL too. */
	recv_list(&b, rwr + 3, rsg + 3, 1, 200);
	rwr[3].comp_mask = 1;
	bad = NULL;
	ck_assert_int_eq(srq ? iwcm_post_srq_recv(b.srq, &rwr[3], &bad) :
			       iwcm_post_recv(b.qp, &rwr[3], &bad),
			 EINVAL);
	ck_assert_ptr_eq(bad, &rwr[3]);
	/* Two Sends take the first buffer and then one posted now, never
	 * the third of the list. */
	recv_list(&b, rwr + 4, rsg + 4, 1, 300);
	ck_assert_int_eq(srq ? iwcm_post_srq_recv(b.srq, &rwr[4], NULL) :
			       iwcm_post_recv(b.qp, &rwr[4], NULL),
			 0);
	send_list(&a, wr, &sge, 2, 1);
	ck_assert_int_eq(iwcm_post_send(a.qp, wr, NULL), 0);
	expect_wc(&b, &a, 100, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	expect_wc(&b, &a, 300, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&a, &b, 2, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	/* A full queue (64 entries, 16 for the SRQ): ENOMEM at the first
	 * that does not fit. */
	recv_list(&b, rwr, rsg, 66, 400);
	bad = NULL;
	ck_assert_int_eq(srq ? iwcm_post_srq_recv(b.srq, rwr, &bad) :
			       iwcm_post_recv(b.qp, rwr, &bad),
			 ENOMEM);
	ck_assert_ptr_eq(bad, &rwr[srq ? 16 : 64]);
	bad = NULL;
	ck_assert_int_eq(srq ? iwcm_post_srq_recv(NULL, rwr, &bad) :
			       iwcm_post_recv(NULL, rwr, &bad),
			 EINVAL);
	ck_assert_ptr_eq(bad, &rwr[0]);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Poll until n completions are in arr, records of sz octets. */
static void poll_sized(struct end *e, struct end *o, uint8_t *arr, int n,
		       size_t sz)
{
	int64_t end = now_ms() + 10000;
	int got = 0;

	while (got < n) {
		int k = iwcm_poll_cq_sz(
			e->cq, n - got,
			(struct iwcm_wc *)(void *)(arr + got * sz), sz);

		ck_assert_int_ge(k, 0);
		got += k;
		if (got == n)
			break;
		ck_assert_msg(now_ms() < end, "no completion");
		if (manual) {
			iwcm_progress(e->ctx, 0);
			iwcm_progress(o->ctx, 0);
		} else {
			usleep(1000);
		}
	}
}

/*
 * The stride rule: a caller built with a shorter struct iwcm_wc gets
 * only its prefix of each completion, at its own stride, and no flag of
 * a field it lacks; a longer one gets zeros past what the library knows.
 * The same for asynchronous events.
 */
START_TEST(test_wc_stride)
{
	enum { N = 4, PAD = 24 };
	const size_t core = offsetof(struct iwcm_wc, invalidated_stag);
	const size_t big = sizeof(struct iwcm_wc) + PAD;
	const size_t ev_min = offsetof(struct iwcm_async_event, term_ecode) + 1;
	uint8_t arr[N * (sizeof(struct iwcm_wc) + PAD) + 64];
	uint8_t evb[sizeof(struct iwcm_async_event) + 16];
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	struct iwcm_wc w;
	struct end a, b;

	manual = _i;
	pair_default(&a, &b);
	ck_assert_int_eq(
		iwcm_poll_cq_sz(b.cq, 1, (struct iwcm_wc *)arr, core - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	for (int round = 0; round < 2; round++) {
		size_t sz = round ? big : core;

		for (int i = 0; i < N; i++)
			post_recv(&b, 10 + (uint64_t)i, 0, 64);
		for (int i = 0; i < N; i++) {
			wr = wr_of(IWCM_WR_IMM_DATA, 1 + (uint64_t)i);
			wr.imm_data = 0x0102030405060708ULL * (uint64_t)(i + 1);
			ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
		}
		for (int i = 0; i < N; i++)
			expect_wc(&a, &b, 1 + (uint64_t)i, IWCM_WC_SUCCESS,
				  IWCM_WC_IMM_DATA);
		memset(arr, 0xA5, sizeof(arr));
		poll_sized(&b, &a, arr, N, sz);
		for (int i = 0; i < N; i++) {
			memset(&w, 0, sizeof(w));
			memcpy(&w, arr + (size_t)i * sz,
			       sz < sizeof(w) ? sz : sizeof(w));
			ck_assert_uint_eq(w.wr_id, 10 + (uint64_t)i);
			ck_assert_int_eq(w.status, IWCM_WC_SUCCESS);
			ck_assert_int_eq(w.opcode, IWCM_WC_RECV_IMM_DATA);
			ck_assert_ptr_eq(w.qp, b.qp);
			if (!round) {
				/* imm_data is not in the caller's record. */
				ck_assert(!(w.wc_flags & IWCM_WC_WITH_IMM));
				continue;
			}
			ck_assert(w.wc_flags & IWCM_WC_WITH_IMM);
			ck_assert_uint_eq(w.imm_data,
					  0x0102030405060708ULL *
						  (uint64_t)(i + 1));
			for (size_t k = sizeof(w); k < sz; k++)
				ck_assert_uint_eq(arr[(size_t)i * sz + k], 0);
		}
		/* Nothing written past the last record. */
		for (size_t k = N * sz; k < sizeof(arr); k++)
			ck_assert_uint_eq(arr[k], 0xA5);
	}
	/* An asynchronous event into the shortest record it may have: the
	 * peer's QP goes away abortively. */
	ck_assert_int_eq(iwcm_get_async_event_sz(a.ctx, &ev, ev_min - 1), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(iwcm_destroy_qp(b.qp), 0);
	memset(evb, 0xA5, sizeof(evb));
	{
		int64_t end = now_ms() + 10000;
		int r;

		while ((r = iwcm_get_async_event_sz(
				a.ctx, (struct iwcm_async_event *)(void *)evb,
				ev_min)) < 0) {
			ck_assert_int_eq(errno, EAGAIN);
			ck_assert_msg(now_ms() < end, "no async event");
			if (manual)
				iwcm_progress(a.ctx, 0);
			else
				usleep(1000);
		}
	}
	memcpy(&ev, evb, ev_min);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	ck_assert_uint_eq(ev.comp_mask, 0);
	ck_assert_ptr_eq(ev.qp, a.qp);
	for (size_t k = ev_min; k < sizeof(evb); k++)
		ck_assert_uint_eq(evb[k], 0xA5);
	end_down(&a);
	end_down(&b);
}
END_TEST

/*
 * struct iwcm_qp_attr as struct iwcm_conn_attr: optional fields only on
 * request, unknown bits refused; iwcm_create_srq() checks its comp_mask.
 */
START_TEST(test_attr_comp_mask)
{
	struct iwcm_srq_init_attr sa;
	struct iwcm_qp_attr qa;
	struct end a, b;

	manual = 1;
	pair_default(&a, &b);
	memset(&qa, 0xAB, sizeof(qa));
	qa.comp_mask = IWCM_QP_ATTR_ALL + 1;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), -1);
	ck_assert_int_eq(errno, EINVAL);
	qa.comp_mask = 0;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_uint_eq(qa.comp_mask, 0);
	ck_assert_int_eq(qa.state, IWCM_QPS_RTS);
	ck_assert_uint_eq(qa.max_inline_data, 256);
	ck_assert_uint_eq(qa.max_sge_rd, 0xABABABABu);
	ck_assert_uint_eq(qa.disconnect_timeout_ms, 0xABABABABu);
	qa.comp_mask = IWCM_QP_ATTR_MAX_SGE_RD;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_uint_eq(qa.comp_mask, IWCM_QP_ATTR_MAX_SGE_RD);
	ck_assert_uint_eq(qa.max_sge_rd, 1);
	ck_assert_uint_eq(qa.disconnect_timeout_ms, 0xABABABABu);
	memset(&sa, 0, sizeof(sa));
	ck_assert_ptr_null(iwcm_create_srq(a.pd, NULL));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(iwcm_create_srq(a.pd, &sa));
	ck_assert_int_eq(errno, EINVAL);
	sa.max_wr = 4;
	sa.comp_mask = 1;
	ck_assert_ptr_null(iwcm_create_srq(a.pd, &sa));
	ck_assert_int_eq(errno, EINVAL);
	sa.comp_mask = 0;
	sa.max_sge = 33;
	ck_assert_ptr_null(iwcm_create_srq(a.pd, &sa));
	ck_assert_int_eq(errno, EINVAL);
	end_down(&a);
	end_down(&b);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("verbs");
	SRunner *sr;
	int failed;

	add_tcase(s, "pd_mr", test_pd_mr);
	add_tcase(s, "reg_mr_args", test_reg_mr_args);
	add_tcase(s, "stag_keys", test_stag_keys);
	add_tcase(s, "stag_table_full", test_stag_table_full);
	add_loop_tcase(s, "rfc5042_checks", test_rfc5042_checks,
		       ARRAY_SIZE(prot_cases));
	add_tcase(s, "atomic_math", test_atomic_math);
	add_tcase(s, "cq_channel", test_cq_channel);
	add_loop_tcase(s, "send_recv", test_send_recv, 2);
	add_loop_tcase(s, "write", test_write, 2);
	add_loop_tcase(s, "read", test_read, 2);
	add_loop_tcase(s, "atomics", test_atomics, 2);
	add_loop_tcase(s, "invalidate_terminate", test_invalidate_terminate, 2);
	add_loop_tcase(s, "read_refused", test_read_refused, 2);
	add_loop_tcase(s, "inline_sge_srq", test_inline_sge_srq, 2);
	add_loop_tcase(s, "disconnect", test_disconnect, 2);
	add_loop_tcase(s, "disconnect_timeout", test_disconnect_timeout, 12);
	add_loop_tcase(s, "disconnect_graceful_bounded",
		       test_disconnect_graceful_bounded, 4);
	add_tcase(s, "disconnect_timeout_attr", test_disconnect_timeout_attr);
	add_tcase(s, "disconnect_timeout_slow_poller",
		  test_disconnect_timeout_slow_poller);
	add_tcase(s, "ack_cq_events", test_ack_cq_events);
	add_loop_tcase(s, "read_sge_limit", test_read_sge_limit, 2);
	add_loop_tcase(s, "misuse", test_misuse, 2);
	add_loop_tcase(s, "markers_crc", test_markers_crc,
		       2 * ARRAY_SIZE(mk_cases));
	add_loop_tcase(s, "version0", test_version0, 2);
	add_loop_tcase(s, "first_fpdu_fence", test_first_fpdu_fence, 2);
	add_loop_tcase(s, "unread_first", test_unread_first, 2);
	add_loop_tcase(s, "srq", test_srq, 2);
	add_loop_tcase(s, "channel_wakeup", test_channel_wakeup, 2);
	add_loop_tcase(s, "cq_overflow", test_cq_overflow, 2);
	add_loop_tcase(s, "dereg_in_flight", test_dereg_in_flight, 2);
	add_tcase(s, "dereg_mid_placement", test_dereg_mid_placement);
	add_loop_tcase(s, "dereg_read_in_flight", test_dereg_read_in_flight, 2);
	add_loop_tcase(s, "dereg_alias_mid_placement",
		       test_dereg_alias_mid_placement, 2);
	add_loop_tcase(s, "post_send_bad_wr", test_post_send_bad_wr, 2);
	add_loop_tcase(s, "post_recv_bad_wr", test_post_recv_bad_wr, 4);
	add_loop_tcase(s, "wc_stride", test_wc_stride, 2);
	add_tcase(s, "attr_comp_mask", test_attr_comp_mask);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
