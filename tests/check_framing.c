/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The framing seam below RDMAP/DDP (libclient/framing.h).  Two libiwcm
 * QPs back to back, each over the in-memory framing of framing_mem.h
 * instead of MPA over its socket: one DDP segment per message, as DDP
 * over SCTP carries them (RFC 5043 §5.2.2), and no MPA anywhere.  Sends
 * (segmented at the framing's MULPDU), Writes, Writes with Immediate,
 * Reads and atomics complete with the right data; a header error is
 * still the RDMAP/DDP Terminate; and a segment the framing refuses at
 * its end is never delivered in any form, the Terminate carrying the
 * framing's own LLP codes.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>

#include "common.h"

#include "dp.h"
#include "dp_peer.h"
#include "framing_mem.h"

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define BUF 65536

static struct dp_cfg C;
static struct dp_ep A, B;
static struct framing *FA, *FB;
static uint8_t *bufa, *bufb;
static struct iwcm_mr *mra, *mrb;

/* Receive what each QP's framing holds, as the progress engine would
 * on a readable socket. */
static void mem_pump(void)
{
	struct iwcm_qp *qps[2] = { A.qp, B.qp };

	for (int i = 0; i < 2; i++) {
		struct dp *dp;

		if (!qps[i])
			continue;
		dp = qps[i]->ctx->dp;
		pthread_mutex_lock(&dp->lock);
		qp_rx_progress(qps[i]);
		pthread_mutex_unlock(&dp->lock);
	}
}

static void open_mem(uint16_t mulpdu)
{
	dp_cfg_default(&C);
	C.flags_a = C.flags_b = IWCM_CTX_MANUAL_PROGRESS;
	dp_pair_open(&C, &A, &B);
	framing_mem_pair(&FA, &FB, mulpdu);
	pthread_mutex_lock(&A.ctx->dp->lock);
	qp_framing_set(A.qp, FA);
	pthread_mutex_unlock(&A.ctx->dp->lock);
	pthread_mutex_lock(&B.ctx->dp->lock);
	qp_framing_set(B.qp, FB);
	pthread_mutex_unlock(&B.ctx->dp->lock);
	dp_pump_hook = mem_pump;

	bufa = calloc(1, BUF);
	bufb = calloc(1, BUF);
	ck_assert(bufa && bufb);
	mra = dp_reg(&A, bufa, BUF, ACC_ALL);
	mrb = dp_reg(&B, bufb, BUF, ACC_ALL);
}

static void close_mem(void)
{
	dp_pump_hook = NULL;
	ck_assert_int_eq(iwcm_dereg_mr(mra), 0);
	ck_assert_int_eq(iwcm_dereg_mr(mrb), 0);
	dp_ep_close(&A);
	dp_ep_close(&B);
	free(bufa);
	free(bufb);
}

static void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 8));
}

static uint64_t va(const void *p)
{
	return (uintptr_t)p;
}

/* Sends of every size class, segmented at the framing's MULPDU into one
 * message each. */
static const size_t send_len[] = { 0, 1, 100, 238, 239, 1000, 20000 };

START_TEST(t_send)
{
	size_t n = send_len[_i % ARRAY_SIZE(send_len)];
	uint16_t mulpdu = _i < (int)ARRAY_SIZE(send_len) ? 256 : 16384;
	size_t room = mulpdu - DDP_UNTAGGED_HDR_LEN, segs;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	unsigned int sent0;

	open_mem(mulpdu);
	fill(bufa, n, (uint8_t)_i);
	dp_post_recv(B.qp, 7, mrb, bufb, 30000);
	sent0 = framing_mem_sent(FA);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 8, mra, bufa, (uint32_t)n);
	dp_post_send(A.qp, &wr);
	dp_wc_ok(A.scq, 8, IWCM_WC_SEND);
	ck_assert_uint_eq(dp_wc_ok(B.rcq, 7, IWCM_WC_RECV), n);
	ck_assert_mem_eq(bufb, bufa, n);
	/* RFC 5041 §5.2: DDP cut the message at the framing's MULPDU. */
	segs = n ? (n + room - 1) / room : 1;
	ck_assert_uint_eq(framing_mem_sent(FA) - sent0, segs);
	ck_assert_uint_eq(framing_mem_received(FB), segs);
	close_mem();
}
END_TEST

/* A Write, then a Write with Immediate: placed, then announced. */
START_TEST(t_write)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;

	open_mem(512);
	fill(bufa, 5000, 3);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 1, mra, bufa, 5000);
	wr.wr.rdma.remote_addr = va(bufb + 100);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(mrb);
	dp_post_send(A.qp, &wr);
	dp_wc_ok(A.scq, 1, IWCM_WC_RDMA_WRITE);

	dp_post_recv(B.qp, 2, mrb, bufb + 20000, 16);
	fill(bufa + 8000, 3000, 9);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE_WITH_IMM, 3, mra, bufa + 8000, 3000);
	wr.wr.rdma.remote_addr = va(bufb + 8000);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(mrb);
	wr.imm_data = 0x1122334455667788ull;
	dp_post_send(A.qp, &wr);
	dp_wc_ok(A.scq, 3, IWCM_WC_RDMA_WRITE);
	dp_wc(B.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_RDMA_WITH_IMM);
	ck_assert_uint_eq(wc.imm_data, 0x1122334455667788ull);
	ck_assert_uint_eq(wc.byte_len, 3000);
	ck_assert_mem_eq(bufb + 100, bufa, 5000);
	ck_assert_mem_eq(bufb + 8000, bufa + 8000, 3000);
	close_mem();
}
END_TEST

/* A Read answered by the responder's side of the seam, and an atomic. */
START_TEST(t_read_atomic)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint64_t word = 40, orig;

	open_mem(1024);
	fill(bufb, 7000, 5);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 4, mra, bufa, 7000);
	wr.wr.rdma.remote_addr = va(bufb);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(mrb);
	dp_post_send(A.qp, &wr);
	ck_assert_uint_eq(dp_wc_ok(A.scq, 4, IWCM_WC_RDMA_READ), 7000);
	ck_assert_mem_eq(bufa, bufb, 7000);

	memcpy(bufb + 4096, &word, 8);
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 5, mra, bufa + 4096, 8);
	wr.wr.atomic.remote_addr = va(bufb + 4096);
	wr.wr.atomic.rkey = iwcm_mr_get_stag(mrb);
	wr.wr.atomic.compare_add = 2;
	dp_post_send(A.qp, &wr);
	dp_wc_ok(A.scq, 5, IWCM_WC_FETCH_ADD);
	memcpy(&orig, bufa + 4096, 8);
	ck_assert_uint_eq(orig, 40);
	memcpy(&word, bufb + 4096, 8);
	ck_assert_uint_eq(word, 42);
	close_mem();
}
END_TEST

/* Both sides saw a Terminate with these codes: the one that sent it a
 * fatal event, the other a Terminate event. */
static void check_terminated(struct dp_ep *sender, struct dp_ep *receiver,
			     uint8_t layer, uint8_t etype, uint8_t ecode)
{
	struct iwcm_async_event ev;

	ck_assert(dp_async(sender->ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_layer, layer);
	ck_assert_uint_eq(ev.term_etype, etype);
	ck_assert_uint_eq(ev.term_ecode, ecode);
	ck_assert(dp_async(receiver->ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	ck_assert_uint_eq(ev.term_layer, layer);
	ck_assert_uint_eq(ev.term_etype, etype);
	ck_assert_uint_eq(ev.term_ecode, ecode);
}

/* A header error crosses the seam as before: RFC 5041 §7.2 type 2. */
START_TEST(t_header_error)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;

	open_mem(2048);
	dp_post_recv(B.qp, 1, mrb, bufb, 64);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 2, mra, bufa, 200);
	dp_post_send(A.qp, &wr);
	check_terminated(&B, &A, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
			 DDP_ECODE_U_TOO_LONG);
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IWCM_WC_LOC_LEN_ERR);
	close_mem();
}
END_TEST

/*
 * The framing refuses segments at their end (its transport's check, as
 * SCTP's CRC32c or MPA's CRC): nothing of them is delivered, whatever
 * their header said — no completion but flushes, no Read Response, no
 * atomic effect — and the Terminate carries the framing's LLP codes.
 */
enum { SP_SEND, SP_SEND_LONG, SP_READ, SP_ATOMIC, SP_WRITE_BAD_STAG, SP_N };

START_TEST(t_spoiled)
{
	static const struct framing_err err = { 0x5, 0x2 };
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;
	uint64_t word = 40;

	open_mem(4096);
	dp_post_recv(B.qp, 1, mrb, bufb, 64);
	memcpy(bufb + 4096, &word, 8);
	fill(bufb + 8192, 100, 1);
	framing_mem_spoil_next(FB, &err);
	switch (_i) {
	case SP_SEND:
	case SP_SEND_LONG:
		dp_wr(&wr, &sg, IWCM_WR_SEND, 2, mra, bufa,
		      _i == SP_SEND ? 10 : 200);
		break;
	case SP_READ:
		dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 2, mra, bufa, 100);
		wr.wr.rdma.remote_addr = va(bufb + 8192);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(mrb);
		break;
	case SP_ATOMIC:
		dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 2, mra, bufa, 8);
		wr.wr.atomic.remote_addr = va(bufb + 4096);
		wr.wr.atomic.rkey = iwcm_mr_get_stag(mrb);
		wr.wr.atomic.compare_add = 2;
		break;
	default:
		dp_wr(&wr, &sg, IWCM_WR_RDMA_WRITE, 2, mra, bufa, 100);
		wr.wr.rdma.remote_addr = va(bufb + 8192);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(mrb) + 0x1000;
		break;
	}
	dp_post_send(A.qp, &wr);
	check_terminated(&B, &A, RDMAP_TERM_LAYER_LLP, err.etype, err.ecode);
	/* B's receive only flushes. */
	dp_wc(B.rcq, &wc);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
	dp_no_wc(B.rcq, 20);
	/* A's request never succeeds: no Read Response, no atomic. */
	dp_wc(A.scq, &wc);
	ck_assert_uint_eq(wc.wr_id, 2);
	if (_i == SP_READ || _i == SP_ATOMIC)
		ck_assert_int_ne(wc.status, IWCM_WC_SUCCESS);
	memcpy(&word, bufb + 4096, 8);
	ck_assert_uint_eq(word, 40);
	/* The one segment B got was the spoiled one; B answered only with
	 * its Terminate. */
	ck_assert_uint_eq(framing_mem_received(FB), 1);
	ck_assert_uint_eq(framing_mem_sent(FB), 1);
	close_mem();
}
END_TEST

static Suite *framing_suite(void)
{
	Suite *s = suite_create("framing");

	add_loop_tcase(s, "send", t_send, 2 * ARRAY_SIZE(send_len));
	add_tcase(s, "write", t_write);
	add_tcase(s, "read_atomic", t_read_atomic);
	add_tcase(s, "header_error", t_header_error);
	add_loop_tcase(s, "spoiled", t_spoiled, SP_N);
	return s;
}

TEST_MAIN(framing_suite)
