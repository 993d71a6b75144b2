/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm's ibverbs-shaped return values and growth rules: iwcm_post_send()
 * and iwcm_post_recv() return the error and set *bad_wr as ibv_post_send()
 * does, completions polled with any stride, and comp_mask checks on every
 * attribute struct that may grow.
 */
#include "config.h"

#include "verbs_pair.h"

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

static Suite *verbs_abi_suite(void)
{
	Suite *s = suite_create("verbs_abi");

	add_loop_tcase(s, "post_send_bad_wr", test_post_send_bad_wr, 2);
	add_loop_tcase(s, "post_recv_bad_wr", test_post_recv_bad_wr, 4);
	add_loop_tcase(s, "wc_stride", test_wc_stride, 2);
	add_tcase(s, "attr_comp_mask", test_attr_comp_mask);
	return s;
}

TEST_MAIN(verbs_abi_suite)
