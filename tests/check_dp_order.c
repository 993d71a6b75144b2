/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The ordering and completion rules of RFC 5040 §5.5 and the RFC 7306 §7
 * table, one row per case: placement before delivery (a Write is placed
 * when the Send, Immediate Data or Write with Immediate after it
 * completes at the sink), Read Responses and Atomic Responses in request
 * order on the wire, requests processed in order, responses generated
 * only after earlier Sends and Immediate Data completed at the
 * responder, FENCE, completion order on the send queue, delivery order of
 * Sends and Immediate Data, reading back what was written, and the MPA
 * v1 responder that sends nothing before the first FPDU (RFC 5044
 * §7.1.2).  Both ends are libiwcm QPs or one is the raw peer.
 */
#include "config.h"

#include <errno.h>
#include <unistd.h>

#include "common.h"

#include "dp_peer.h"

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define MB (1 << 20)

static struct dp_cfg C;
static struct dp_ep A, B;
static struct dp_peer *P;

struct reg {
	uint8_t *p;
	size_t len;
	struct iwcm_mr *mr;
	uint32_t stag;
};

static struct reg regs[16];
static int n_regs;

static struct reg *reg_new(struct dp_ep *e, size_t len, unsigned int acc)
{
	struct reg *r;

	ck_assert_int_lt(n_regs, (int)ARRAY_SIZE(regs));
	r = &regs[n_regs++];
	r->p = calloc(1, len);
	ck_assert_ptr_nonnull(r->p);
	r->len = len;
	r->mr = dp_reg(e, r->p, len, acc);
	r->stag = iwcm_mr_get_stag(r->mr);
	return r;
}

static uint64_t va(const void *p)
{
	return (uintptr_t)p;
}

/* Two library QPs, markers both ways, CRC, odd offsets. */
static void pair_open(void)
{
	dp_cfg_default(&C);
	C.markers_ab = C.markers_ba = 1;
	C.off_ab = 508;
	C.off_ba = 20;
	C.tcp = 1;
	dp_pair_open(&C, &A, &B);
}

/* A library QP (A) facing the raw peer, from st. */
static void peer_open(struct iwcm_synth *st, int initiator)
{
	struct iwcm_synth other;
	int fd[2];

	dp_cfg_default(&C);
	C.markers_ab = C.markers_ba = 1;
	C.off_ab = 20;
	C.off_ba = 508;
	dp_cfg_synth(&C, initiator ? st : &other, initiator ? &other : st);
	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_sockpair(0, fd);
	dp_ep_open(&A, 0);
	dp_ep_qp(&A, fd[0], st, NULL);
	dp_peer_init(P, fd[1], st);
}

static void close_all(void)
{
	int i;

	for (i = 0; i < n_regs; i++) {
		ck_assert_int_eq(iwcm_dereg_mr(regs[i].mr), 0);
		free(regs[i].p);
	}
	n_regs = 0;
	if (B.ctx)
		dp_ep_close(&B);
	dp_ep_close(&A);
	if (P) {
		dp_peer_close(P);
		free(P);
		P = NULL;
	}
}

static void post(struct dp_ep *e, int opcode, uint64_t id, struct reg *l,
		 size_t loff, uint32_t len, struct reg *r, size_t roff,
		 unsigned int flags)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	dp_wr(&wr, &sg, opcode, id, l ? l->mr : NULL, l ? l->p + loff : NULL,
	      len);
	if (!l)
		wr.num_sge = 0;
	if (r) {
		wr.wr.rdma.remote_addr = va(r->p + roff);
		wr.wr.rdma.rkey = r->stag;
	}
	wr.imm_data = id;
	wr.send_flags |= flags;
	dp_post_send(e->qp, &wr);
}

/* The next completion of cq is wr_id, successful. */
static struct iwcm_wc next_ok(struct iwcm_cq *cq, uint64_t wr_id)
{
	struct iwcm_wc wc;

	dp_wc(cq, &wc);
	ck_assert_msg(wc.wr_id == wr_id && wc.status == IWCM_WC_SUCCESS,
		      "completion wr_id %llu (%s), expected %llu",
		      (unsigned long long)wc.wr_id,
		      iwcm_wc_status_str(wc.status), (unsigned long long)wr_id);
	return wc;
}

/*
 * RFC 5040 §5.5 rule 10, RFC 7306 §7 (RDMA Write, then Immediate Data):
 * when the Send, the Immediate Data or the Write with Immediate after a
 * Write completes at the sink, the whole Write is placed.
 */
static void o_write_then_send(void)
{
	struct reg *src, *dst, *rb;
	int round;

	pair_open();
	src = reg_new(&A, MB, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, MB, ACC_ALL);
	rb = reg_new(&B, 64 * 8, IWCM_ACCESS_LOCAL_WRITE);
	for (round = 0; round < 6; round++) {
		static const int ops[] = { IWCM_WR_SEND, IWCM_WR_SEND,
					   IWCM_WR_IMM_DATA,
					   IWCM_WR_RDMA_WRITE_WITH_IMM };
		int op = ops[round % 4];
		size_t len = MB - 64 * (size_t)round;

		test_rand_bytes(src->p, len);
		dp_post_recv(B.qp, (uint64_t)round, rb->mr, rb->p + 64 * round,
			     64);
		if (op != IWCM_WR_RDMA_WRITE_WITH_IMM)
			post(&A, IWCM_WR_RDMA_WRITE, 100, src, 0, (uint32_t)len,
			     dst, 0, 0);
		post(&A, op, 200,
		     op == IWCM_WR_RDMA_WRITE_WITH_IMM ? src :
		     op == IWCM_WR_SEND		       ? src :
							 NULL,
		     0,
		     op == IWCM_WR_RDMA_WRITE_WITH_IMM ? (uint32_t)len :
		     op == IWCM_WR_SEND		       ? 4 :
							 0,
		     op == IWCM_WR_RDMA_WRITE_WITH_IMM ? dst : NULL, 0,
		     round == 1 ? IWCM_SEND_SOLICITED : 0);
		next_ok(B.rcq, (uint64_t)round);
		/* Checked at once, before anything else is polled. */
		ck_assert_msg(!memcmp(dst->p, src->p, len),
			      "round %d: the Write is not placed when %s "
			      "completes",
			      round,
			      op == IWCM_WR_SEND ? "the Send" :
			      op == IWCM_WR_IMM_DATA ?
						   "the Immediate Data" :
						   "the Write with Immediate");
		if (op != IWCM_WR_RDMA_WRITE_WITH_IMM)
			next_ok(A.scq, 100);
		next_ok(A.scq, 200);
	}
	close_all();
}

/*
 * RFC 5040 §5.5 rules 15 and 19-20: Reads of very different sizes
 * complete in the order posted, with the operations after them.
 */
static void o_sq_order_pair(void)
{
	static const uint32_t sizes[] = { 600000, 10, 100000, 0, 65536, 1 };
	struct reg *src, *dst, *rb;
	size_t off = 0;
	unsigned int k;

	pair_open();
	src = reg_new(&B, 2 * MB, ACC_ALL);
	dst = reg_new(&A, 2 * MB, IWCM_ACCESS_LOCAL_WRITE);
	rb = reg_new(&B, 64, IWCM_ACCESS_LOCAL_WRITE);
	test_rand_bytes(src->p, src->len);
	dp_post_recv(B.qp, 1, rb->mr, rb->p, 64);
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		post(&A, IWCM_WR_RDMA_READ, k, sizes[k] ? dst : NULL, off,
		     sizes[k], src, off, 0);
		if (k == 2) /* a Write and a Send in between */
			post(&A, IWCM_WR_RDMA_WRITE, 50, dst, 0, 16, src,
			     2 * MB - 16, 0);
		off += sizes[k];
	}
	post(&A, IWCM_WR_SEND, 51, dst, 0, 8, NULL, 0, 0);
	off = 0;
	for (k = 0; k < ARRAY_SIZE(sizes); k++) {
		struct iwcm_wc wc = next_ok(A.scq, k);

		ck_assert_int_eq(wc.opcode, IWCM_WC_RDMA_READ);
		ck_assert_uint_eq(wc.byte_len, sizes[k]);
		ck_assert(!memcmp(dst->p + off, src->p + off, sizes[k]));
		off += sizes[k];
		if (k == 2)
			next_ok(A.scq, 50);
	}
	next_ok(A.scq, 51);
	next_ok(B.rcq, 1);
	close_all();
}

/*
 * RFC 5040 §5.5 rule 15 against a peer that holds the Read Response: a
 * Send and a Write posted after the Read are on the wire at once, yet
 * complete only after the Read.
 */
static void o_sq_order_held(void)
{
	struct iwcm_synth st;
	struct reg *buf;
	struct rdmap_read_req r;
	struct dp_msg *m;
	struct iwcm_wc wc;

	peer_open(&st, 1);
	buf = reg_new(&A, 4096, IWCM_ACCESS_LOCAL_WRITE);
	post(&A, IWCM_WR_RDMA_READ, 1, buf, 0, 100, NULL, 0, 0);
	post(&A, IWCM_WR_SEND, 2, buf, 200, 10, NULL, 0, 0);
	post(&A, IWCM_WR_RDMA_WRITE, 3, buf, 300, 10, NULL, 0, 0);
	m = dp_peer_expect(P, RDMAP_READ_REQ);
	r = m->m.u.read_req;
	dp_peer_expect(P, RDMAP_SEND);
	dp_peer_expect(P, RDMAP_WRITE);
	ck_assert_msg(!dp_poll(A.scq, &wc, 200),
		      "wr_id %llu completed before the Read",
		      (unsigned long long)wc.wr_id);
	dp_peer_read_resp(P, &r, buf->p + 1000, 64);
	next_ok(A.scq, 1);
	next_ok(A.scq, 2);
	next_ok(A.scq, 3);
	close_all();
}

/*
 * IWCM_SEND_FENCE: the fenced request starts only after the earlier Read
 * or atomic completed; without the fence it goes at once.
 */
static void o_fence(void)
{
	struct iwcm_synth st;
	struct reg *buf;
	struct rdmap_read_req r;
	struct rdmap_atomic_req a;
	struct dp_msg *m;

	peer_open(&st, 1);
	buf = reg_new(&A, 4096, IWCM_ACCESS_LOCAL_WRITE);
	/* Not fenced: the Send follows the Read Request at once. */
	post(&A, IWCM_WR_RDMA_READ, 1, buf, 0, 32, NULL, 0, 0);
	post(&A, IWCM_WR_SEND, 2, buf, 100, 4, NULL, 0, 0);
	m = dp_peer_expect(P, RDMAP_READ_REQ);
	r = m->m.u.read_req;
	dp_peer_expect(P, RDMAP_SEND);
	dp_peer_read_resp(P, &r, buf->p + 2000, 64);
	next_ok(A.scq, 1);
	next_ok(A.scq, 2);
	/* Fenced Send behind a Read. */
	post(&A, IWCM_WR_RDMA_READ, 3, buf, 0, 32, NULL, 0, 0);
	post(&A, IWCM_WR_SEND, 4, buf, 100, 4, NULL, 0, IWCM_SEND_FENCE);
	m = dp_peer_expect(P, RDMAP_READ_REQ);
	r = m->m.u.read_req;
	dp_peer_silent(P, 200);
	dp_peer_read_resp(P, &r, buf->p + 2000, 64);
	dp_peer_expect(P, RDMAP_SEND);
	next_ok(A.scq, 3);
	next_ok(A.scq, 4);
	/* Fenced Write behind an atomic. */
	post(&A, IWCM_WR_ATOMIC_FETCH_ADD, 5, buf, 8, 8, NULL, 0, 0);
	post(&A, IWCM_WR_RDMA_WRITE, 6, buf, 100, 4, NULL, 0, IWCM_SEND_FENCE);
	m = dp_peer_expect(P, RDMAP_ATOMIC_REQ);
	a = m->m.u.atomic_req;
	dp_peer_silent(P, 200);
	dp_peer_atomic_resp(P, a.req_id, 7);
	dp_peer_expect(P, RDMAP_WRITE);
	next_ok(A.scq, 5);
	next_ok(A.scq, 6);
	close_all();
}

/* The next message of the library: one whole Read Response or other. */
static struct dp_msg *expect_any(void)
{
	struct dp_msg *m = dp_peer_recv(P, DP_TIMEOUT_MS);

	ck_assert_msg(m, "nothing from the library: %s", strerror(errno));
	ck_assert(m->crc_ok && m->markers_ok && m->perr == WIRE_OK);
	return m;
}

/* Read Response segments of one request, in TO order, to the L bit. */
static void expect_read_resp(uint32_t sink, uint64_t to, const uint8_t *data,
			     uint32_t size)
{
	uint32_t got = 0;

	for (;;) {
		struct dp_msg *m = expect_any();

		ck_assert_msg(m->m.opcode == RDMAP_READ_RESP,
			      "%s inside a Read Response",
			      rdmap_opcode_name(m->m.opcode));
		ck_assert_uint_eq(m->m.ddp.stag, sink);
		ck_assert_uint_eq(m->m.ddp.to, to + got);
		ck_assert(!memcmp(m->m.payload, data + got, m->m.payload_len));
		got += (uint32_t)m->m.payload_len;
		if (m->m.ddp.last)
			break;
	}
	ck_assert_uint_eq(got, size);
}

static void expect_atomic_resp(uint32_t req_id, uint64_t orig)
{
	struct dp_msg *m = expect_any();

	ck_assert_msg(m->m.opcode == RDMAP_ATOMIC_RESP,
		      "%s, expected an "
		      "Atomic Response",
		      rdmap_opcode_name(m->m.opcode));
	ck_assert_uint_eq(m->m.ddp.qn, DDP_QN_ATOMIC_RESP);
	ck_assert_uint_eq(m->m.ddp.msn, P->rx_msn[DDP_QN_ATOMIC_RESP]++);
	ck_assert_uint_eq(m->m.u.atomic_resp.req_id, req_id);
	ck_assert_uint_eq(m->m.u.atomic_resp.orig, orig);
}

/*
 * At the responder: requests processed in the order delivered, Read
 * Responses and Atomic Responses submitted in that order (RFC 5040 §5.5
 * rule 20, RFC 7306 §5.4 rule 8 and the §7 rows Atomic/Read, Read/Atomic,
 * Atomic/Atomic): the peer sends everything in one write.
 */
static void o_responses_in_order(void)
{
	struct iwcm_synth st;
	struct reg *src, *word;
	uint8_t wire[4096];
	size_t w = 0;
	uint64_t v0 = 1000, v;
	int k;

	peer_open(&st, 0);
	src = reg_new(&A, 300000, IWCM_ACCESS_REMOTE_READ);
	word = reg_new(&A, 64, ACC_ALL);
	test_rand_bytes(src->p, src->len);
	memcpy(word->p, &v0, 8);
	for (k = 0; k < 7; k++) {
		struct rdmap_msg m;
		uint8_t u[128];
		size_t n;

		if (k == 1 || k == 3 || k == 4) {
			dp_peer_untagged(P, &m, RDMAP_ATOMIC_REQ,
					 DDP_QN_READ_REQ);
			m.u.atomic_req.aopcode = RDMAP_AOP_FETCHADD;
			m.u.atomic_req.req_id = 0x100 + (uint32_t)k;
			m.u.atomic_req.stag = word->stag;
			m.u.atomic_req.to = va(word->p);
			m.u.atomic_req.add_swap = 1;
			m.u.atomic_req.cmp_mask = ~0ull;
		} else {
			uint32_t size = k == 0 ? 200000 :
					k == 2 ? 10 :
					k == 5 ? 0 :
						 1000;

			dp_peer_untagged(P, &m, RDMAP_READ_REQ,
					 DDP_QN_READ_REQ);
			m.u.read_req = (struct rdmap_read_req){
				0x900 + (uint32_t)k, 0x10000 * (uint64_t)k,
				size, src->stag, va(src->p + 7 * k)
			};
		}
		n = dp_msg_build(&m, NULL, 0, u, sizeof(u));
		w += dp_peer_fpdu(P, u, n, wire + w, sizeof(wire) - w);
	}
	dp_peer_write(P, wire, w);
	expect_read_resp(0x900, 0, src->p, 200000);
	expect_atomic_resp(0x101, v0);
	expect_read_resp(0x902, 0x20000, src->p + 14, 10);
	expect_atomic_resp(0x103, v0 + 1);
	expect_atomic_resp(0x104, v0 + 2);
	expect_read_resp(0x905, 0x50000, src->p + 35, 0);
	expect_read_resp(0x906, 0x60000, src->p + 42, 1000);
	memcpy(&v, word->p, 8);
	ck_assert_uint_eq(v, v0 + 3);
	close_all();
}

/*
 * At the responder, RFC 7306 §7 rows Send/Atomic and Immediate
 * Data/Atomic, Immediate Data/Read: the response is generated only after
 * the earlier Send or Immediate Data completed, so its completion is in
 * the CQ when the response arrives.
 */
static void o_completed_before_response(void)
{
	struct iwcm_synth st;
	struct reg *rb, *word, *src;
	uint8_t imm[8] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	struct rdmap_atomic_req a;
	struct rdmap_read_req r;
	struct iwcm_wc wc;
	int round;

	peer_open(&st, 0);
	rb = reg_new(&A, 64 * 8, IWCM_ACCESS_LOCAL_WRITE);
	word = reg_new(&A, 8, ACC_ALL);
	src = reg_new(&A, 64, IWCM_ACCESS_REMOTE_READ);
	for (round = 0; round < 4; round++) {
		int send = round % 2 == 0, atomic = round < 2;

		dp_post_recv(A.qp, (uint64_t)round, rb->mr, rb->p + 64 * round,
			     64);
		if (send)
			dp_peer_send(P, RDMAP_SEND, 0, "first", 5, NULL);
		else
			dp_peer_send(P, RDMAP_IMM_DATA, 0, imm, 8, NULL);
		if (atomic) {
			memset(&a, 0, sizeof(a));
			a.req_id = (uint32_t)round;
			a.stag = word->stag;
			a.to = va(word->p);
			a.cmp_mask = ~0ull;
			dp_peer_atomic_req(P, &a, NULL);
			expect_atomic_resp((uint32_t)round, 0);
		} else {
			r = (struct rdmap_read_req){ 0x42, 0, 16, src->stag,
						     va(src->p) };
			dp_peer_read_req(P, &r, NULL);
			expect_read_resp(0x42, 0, src->p, 16);
		}
		ck_assert_msg(iwcm_poll_cq(A.rcq, 1, &wc) == 1,
			      "round %d: response before the %s completed",
			      round, send ? "Send" : "Immediate Data");
		ck_assert_uint_eq(wc.wr_id, (uint64_t)round);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	}
	close_all();
}

static uint32_t msg_len(int k)
{
	return k % 7 == 0 ? 150000 : (uint32_t)(1 + k * 3);
}

/*
 * RFC 5040 §5.5 rule 10, RFC 7306 §6.3: Sends of all sizes and
 * Immediate Data are delivered in the order sent.
 */
static void o_send_order(void)
{
	struct reg *src, *rb;
	size_t at[40], total = 0;
	int k, n = 40;

	pair_open();
	src = reg_new(&A, 200000, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < n; k++) {
		src->p[k] = (uint8_t)k;
		at[k] = total;
		total += msg_len(k) + 1;
	}
	rb = reg_new(&B, total, IWCM_ACCESS_LOCAL_WRITE);
	for (k = 0; k < n; k++)
		dp_post_recv(B.qp, (uint64_t)k, rb->mr, rb->p + at[k],
			     msg_len(k) + 1);
	for (k = 0; k < n; k++) {
		if (k % 5 == 4)
			post(&A, IWCM_WR_IMM_DATA, (uint64_t)k, NULL, 0, 0,
			     NULL, 0, 0);
		else
			post(&A, IWCM_WR_SEND, (uint64_t)k, src, (size_t)k,
			     msg_len(k), NULL, 0,
			     k % 3 ? 0 : IWCM_SEND_SOLICITED);
	}
	for (k = 0; k < n; k++) {
		struct iwcm_wc wc = next_ok(B.rcq, (uint64_t)k);

		if (k % 5 == 4) {
			ck_assert_int_eq(wc.opcode, IWCM_WC_RECV_IMM_DATA);
			ck_assert_uint_eq(wc.imm_data, (uint64_t)k);
		} else {
			ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
			ck_assert_uint_eq(wc.byte_len, msg_len(k));
			ck_assert(
				!memcmp(rb->p + at[k], src->p + k, msg_len(k)));
		}
	}
	for (k = 0; k < n; k++)
		next_ok(A.scq, (uint64_t)k);
	close_all();
}

/*
 * RFC 5040 §5.5 rule 12 and RFC 7306 §7 (Write/Atomic): what a Write or a
 * Send placed is what a later Read or atomic of the same buffer sees,
 * without waiting in between.
 */
static void o_read_after_write(void)
{
	struct reg *src, *dst, *back;
	uint64_t v, got;
	int round;

	pair_open();
	src = reg_new(&A, 100000, IWCM_ACCESS_LOCAL_WRITE);
	back = reg_new(&A, 100000, IWCM_ACCESS_LOCAL_WRITE);
	dst = reg_new(&B, 100000, ACC_ALL);
	for (round = 0; round < 8; round++) {
		test_rand_bytes(src->p, src->len);
		post(&A, IWCM_WR_RDMA_WRITE, 1, src, 0, 100000, dst, 0, 0);
		post(&A, IWCM_WR_RDMA_READ, 2, back, 0, 100000, dst, 0, 0);
		next_ok(A.scq, 1);
		next_ok(A.scq, 2);
		ck_assert(!memcmp(back->p, src->p, 100000));
		/* Write a word, then FetchAdd it: the original is the word. */
		memcpy(&v, src->p + 64, 8);
		post(&A, IWCM_WR_RDMA_WRITE, 3, src, 64, 8, dst, 64, 0);
		{
			struct iwcm_send_wr wr;
			struct iwcm_sge sg;

			dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 4, back->mr,
			      back->p, 8);
			wr.wr.atomic.remote_addr = va(dst->p + 64);
			wr.wr.atomic.rkey = dst->stag;
			wr.wr.atomic.compare_add = 5;
			dp_post_send(A.qp, &wr);
		}
		next_ok(A.scq, 3);
		next_ok(A.scq, 4);
		memcpy(&got, back->p, 8);
		ck_assert_uint_eq(got, v);
		memcpy(&got, dst->p + 64, 8);
		ck_assert_uint_eq(got, v + 5);
	}
	close_all();
}

/*
 * RFC 5044 §7.1.2 rule 4: an MPA v1 responder (no RTR) sends nothing
 * before the initiator's first FPDU; then everything queued goes out in
 * order.
 */
static void o_wait_first_fpdu(void)
{
	struct iwcm_synth st;
	struct reg *buf, *rb;
	struct dp_msg *m;

	struct iwcm_synth other;
	int fd[2];

	dp_cfg_default(&C);
	C.mpa_rev = 1;
	dp_cfg_synth(&C, &other, &st);
	st.wait_first_fpdu = 1;
	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_sockpair(1, fd);
	dp_ep_open(&A, 0);
	dp_ep_qp(&A, fd[0], &st, NULL);
	dp_peer_init(P, fd[1], &st);
	buf = reg_new(&A, 4096, IWCM_ACCESS_LOCAL_WRITE);
	rb = reg_new(&A, 64, IWCM_ACCESS_LOCAL_WRITE);
	dp_post_recv(A.qp, 9, rb->mr, rb->p, 64);
	post(&A, IWCM_WR_SEND, 1, buf, 0, 10, NULL, 0, 0);
	post(&A, IWCM_WR_RDMA_WRITE, 2, buf, 0, 10, NULL, 0, 0);
	post(&A, IWCM_WR_RDMA_READ, 3, buf, 100, 10, NULL, 0, 0);
	dp_peer_silent(P, 200);
	dp_peer_send(P, RDMAP_SEND, 0, "first", 5, NULL);
	next_ok(A.rcq, 9);
	dp_peer_expect(P, RDMAP_SEND);
	dp_peer_expect(P, RDMAP_WRITE);
	m = dp_peer_expect(P, RDMAP_READ_REQ);
	ck_assert_uint_eq(m->m.u.read_req.size, 10);
	next_ok(A.scq, 1);
	next_ok(A.scq, 2);
	close_all();
}

struct ocase {
	const char *name;
	void (*fn)(void);
};

static const struct ocase cases[] = {
	{ "write_then_send", o_write_then_send },
	{ "sq_order_pair", o_sq_order_pair },
	{ "sq_order_held", o_sq_order_held },
	{ "fence", o_fence },
	{ "responses_in_order", o_responses_in_order },
	{ "completed_before_response", o_completed_before_response },
	{ "send_order", o_send_order },
	{ "read_after_write", o_read_after_write },
	{ "wait_first_fpdu", o_wait_first_fpdu },
};

START_TEST(t_order)
{
	cases[_i].fn();
}
END_TEST

static Suite *dp_order_suite(void)
{
	Suite *s = suite_create("dp_order");
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		TCase *tc = tcase_create(cases[i].name);

		tcase_set_timeout(tc, 60);
		tcase_add_loop_test(tc, t_order, (int)i, (int)i + 1);
		suite_add_tcase(s, tc);
	}
	return s;
}

TEST_MAIN(dp_order_suite)
