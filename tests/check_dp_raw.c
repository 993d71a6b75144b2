/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm's datapath against a raw peer (the ORD limit, the seed draft's
 * Swap refused by an RFC 7306 peer, the handoff's MSNs and unread octets),
 * the progress thread and manual progress, QP destruction, and every
 * Terminate on the wire before the close however the QP is torn down.
 */
#include "config.h"

#include "dp_ops_util.h"

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

/*
 * RFC 6581 §9.2: iwcmd hands an initiator's connection off right after
 * its Read RTR, and the QP takes the zero-length Read Response.  Until
 * then the RTR holds one of the ORD: with ORD 1 the ULP's first Read
 * waits for it (_i % 4 == 0), then goes, and only the ULP's Read
 * completes.  A first Response that is not the RTR's (1: octets; 2:
 * another STag; 3: another TO) is a Terminate and the QP's end.  _i / 4:
 * with MPA markers both ways.
 */
#define RTR_STAG 0x5a5a5a00u
#define RTR_TO 0x40ull

START_TEST(t_rtr_read)
{
	struct rdmap_read_req rq;
	struct iwcm_async_event ev;
	struct iwcm_synth st;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct rdmap_msg m;
	struct dp_msg *got;
	struct reg *dst;
	uint8_t seg[128], data[32];
	const int c = _i % 4;
	size_t n;

	synth_default(&st, _i / 4);
	st.ord = 1;
	st.rtr_read_due = 1;
	st.rtr_read_stag = RTR_STAG;
	st.rtr_read_to = RTR_TO;
	peer_open(&st, 0);
	dst = reg_new(&A, sizeof(data), IWCM_ACCESS_LOCAL_WRITE);
	dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 9, dst->mr, dst->p, sizeof(data));
	wr.wr.rdma.remote_addr = 0x10000;
	wr.wr.rdma.rkey = 0x1234;
	dp_post_send(A.qp, &wr);
	/* the RTR holds the ORD of 1 */
	dp_peer_silent(P, 100);
	dp_peer_tagged(P, &m, RDMAP_READ_RESP,
		       c == 2 ? RTR_STAG + 0x100 : RTR_STAG,
		       c == 3 ? RTR_TO + 8 : RTR_TO);
	n = dp_msg_build(&m, "x", c == 1 ? 1 : 0, seg, sizeof(seg));
	dp_peer_send_ulpdu(P, seg, n);
	if (c) {
		dp_peer_expect_term(P, RDMAP_TERM_LAYER_RDMAP,
				    RDMAP_ETYPE_REMOTE_OP,
				    RDMAP_ECODE_CATASTROPHIC_STREAM, seg, n);
		ck_assert(dp_async(A.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(dp_qp_state(A.qp), IWCM_QPS_ERROR);
		peer_close();
		return;
	}
	got = dp_peer_expect(P, RDMAP_READ_REQ);
	rq = got->m.u.read_req;
	ck_assert_uint_eq(rq.size, sizeof(data));
	ck_assert_uint_eq(rq.src_to, 0x10000);
	memset(data, 0x5c, sizeof(data));
	dp_peer_read_resp(P, &rq, data, sizeof(data));
	send_ok(&A, 9, IWCM_WC_RDMA_READ, sizeof(data));
	ck_assert_mem_eq(dst->p, data, sizeof(data));
	dp_no_wc(A.scq, 50); /* the RTR's Read has no completion */
	ck_assert_int_eq(dp_qp_state(A.qp), IWCM_QPS_RTS);
	peer_close();
}
END_TEST

static Suite *dp_raw_suite(void)
{
	Suite *s = suite_create("dp_raw");

	add_loop_tcase(s, "ord", t_ord, 3);
	add_loop_tcase(s, "swap_refused", t_swap_refused, 2);
	add_loop_tcase(s, "msn", t_msn, 4);
	add_loop_tcase(s, "unread", t_unread, 4);
	add_tcase(s, "progress_thread", t_progress_thread);
	add_tcase(s, "progress_manual", t_progress_manual);
	add_loop_tcase(s, "destroy", t_destroy, 3);
	add_loop_tcase(s, "term_linger", t_term_linger, 4);
	add_loop_tcase(s, "rtr_read", t_rtr_read, 8);
	return s;
}

TEST_MAIN(dp_raw_suite)
