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
 * checked.  Then the completion channel with solicited-only notification
 * and a shared receive queue.  The library against a raw peer, the
 * progress modes and teardown are in check_dp_raw.c; the matrix is
 * dp_ops_util.c.
 */
#include "config.h"

#include "dp_ops_util.h"

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
	struct iwcm_term_info ti;
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
	/* ...and names the segment it refused: the Write's STag and TO. */
	ck_assert_int_eq(iwcm_qp_peer_term(A.qp, &ti), 0);
	ck_assert_uint_eq(ti.layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ti.etype, DDP_ETYPE_TAGGED);
	ck_assert_uint_eq(ti.ecode, DDP_ECODE_T_INVALID_STAG);
	ck_assert_uint_eq(ti.flags, IWCM_TERM_TAGGED);
	ck_assert_uint_eq(ti.stag, t1->stag);
	ck_assert_uint_eq(ti.to, addr(t1->p));
	ck_assert(dp_async(B.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_ptr_eq(ev.qp, B.qp);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ck_assert_uint_eq(ev.term_ecode, DDP_ECODE_T_INVALID_STAG);
	/* b sent the Terminate: none of its peer's ended it. */
	errno = 0;
	ck_assert_int_eq(iwcm_qp_peer_term(B.qp, &ti), -1);
	ck_assert_int_eq(errno, ENOENT);
	errno = 0;
	ck_assert_int_eq(iwcm_qp_peer_term(A.qp, NULL), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(iwcm_qp_peer_term(NULL, &ti), -1);
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
	return s;
}

TEST_MAIN(dp_ops_suite)
