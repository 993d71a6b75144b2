/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm verbs objects and the RFC 5042 checks in isolation (STag table,
 * keys, protection domains, access, bounds, wrap), the RFC 7306 atomic
 * arithmetic, the completion channel, and a smoke test of every operation
 * between two QPs over a socketpair (verbs_pair.c), with the progress
 * thread and with manual progress.  Closing is in check_verbs_close.c, the
 * datapath's framing and deregistration in check_verbs_dp.c, the ibverbs
 * return values and growth rules in check_verbs_abi.c; the protocol itself
 * is tested in check_dp_*.
 */
#include "config.h"

#include "verbs_pair.h"

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

START_TEST(test_send_recv)
{
	manual = _i;
	smoke_send();
}
END_TEST

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
	errno = 0;
	ck_assert_int_eq(iwcm_qp_send_room(NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(iwcm_qp_send_room(a.qp), 64);
	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		wr = wr_of(IWCM_WR_RDMA_READ, i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 100 * i);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
		post(&a, &wr, 200000 * i, sizes[i]);
	}
	/* iwcm_qp_send_room(3): a request holds its entry until it has
	 * completed; with manual progress nobody answers the Reads yet. */
	if (manual)
		ck_assert_int_eq(iwcm_qp_send_room(a.qp),
				 64 - (int)ARRAY_SIZE(sizes));
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
	ck_assert_int_eq(iwcm_qp_send_room(a.qp), 64);
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

static Suite *verbs_suite(void)
{
	Suite *s = suite_create("verbs");

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
	return s;
}

TEST_MAIN(verbs_suite)
