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

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
	ck_assert_ptr_null(iwcm_reg_mr(pd, buf, 8,
				       IWCM_ACCESS_REMOTE_ATOMIC));
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
	int which_stag;		/* 0 good, 1 stale key, 2 unknown, 3 other PD,
				 * 4 invalidated */
	int64_t to_off;		/* from the region start */
	bool to_abs;		/* to_off is an absolute TO */
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
	{ "sum exactly 2^64 wraps", 0, (int64_t)(UINT64_MAX - 7), true, 8,
	  0, DP_PROT_WRAP },
	{ "no remote write", 0, 0, false, 8, IWCM_ACCESS_REMOTE_ATOMIC,
	  DP_PROT_ACCESS },
	{ "two rights, one missing", 0, 0, false, 8,
	  IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC,
	  DP_PROT_ACCESS },
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
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1234, UINT64_MAX,
					      0xAB, UINT64_MAX),
			  0xAB);
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1235, UINT64_MAX,
					      0xAB, UINT64_MAX),
			  0x1234);
	ck_assert_uint_eq(atomic_cmp_swap_val(0x1234, 0x1235, 0xFF00, 0xAB,
					      0x0F),
			  0x123B);
	w = 5;
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_FETCHADD, 3, 0, 0, 0), 5);
	ck_assert_uint_eq(w, 8);
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_SWAP, 42, 0, 0, 0), 8);
	ck_assert_uint_eq(w, 42);
	ck_assert_uint_eq(atomic_run(&w, RDMAP_AOP_CMPSWAP, 7, UINT64_MAX,
				     42, UINT64_MAX),
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
	struct iwcm_cq *cq;
	struct iwcm_qp *qp;
	struct iwcm_mr *mr;
	uint8_t *buf;
};

#define BUF_LEN (1u << 20)

static bool manual;

static void end_up(struct end *e, int fd, const struct iwcm_synth *st)
{
	struct iwcm_qp_init_attr qa;
	struct iwcm_conn *c;

	e->ctx = iwcm_ctx_new_detached(manual ? IWCM_CTX_MANUAL_PROGRESS :
						0);
	ck_assert_ptr_nonnull(e->ctx);
	c = iwcm_conn_synth(e->ctx, fd, st);
	ck_assert_ptr_nonnull(c);
	e->pd = iwcm_alloc_pd(e->ctx);
	e->cq = iwcm_create_cq(e->ctx, 256, NULL, NULL);
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

/* Wait for one completion on e's CQ, progressing both ends. */
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
	struct iwcm_recv_wr wr = { id, NULL, &sge, 1 };

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
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
