/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* Two libiwcm QPs over a socketpair (verbs_pair.h). */
#include "config.h"

#include "verbs_pair.h"

/* ---- two QPs over a socketpair ---- */

bool manual;
/* Knobs for the next end_up(), reset by pair_up(). */
int cq_depth = 256;
bool with_srq, with_channel;
uint32_t disc_timeout; /* disconnect_timeout_ms, 0: not set */
uint32_t pre_recv;

void end_up(struct end *e, int fd, const struct iwcm_synth *st)
{
	const struct iwcm_srq_init_attr srq_attr = { .max_wr = 16,
						     .max_sge = 2 };
	struct iwcm_qp_init_attr qa;
	struct iwcm_recv_wr rwr[8];
	struct iwcm_sge rsge[8];
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
	ck_assert_uint_le(pre_recv, 8);
	for (uint32_t k = 0; k < pre_recv; k++) {
		rsge[k].addr = (uint64_t)(uintptr_t)(e->buf + 64 * k);
		rsge[k].length = 64;
		rsge[k].lkey = iwcm_mr_get_stag(e->mr);
		memset(&rwr[k], 0, sizeof(rwr[k]));
		rwr[k].wr_id = 10 + k;
		rwr[k].sg_list = &rsge[k];
		rwr[k].num_sge = 1;
		rwr[k].next = k + 1 < pre_recv ? &rwr[k + 1] : NULL;
	}
	if (pre_recv) {
		qa.comp_mask |= IWCM_QP_INIT_ATTR_RECV_WR;
		qa.recv_wr = rwr;
	}
	e->qp = iwcm_create_qp(c, e->pd, &qa);
	ck_assert_ptr_nonnull(e->qp);
	ck_assert_int_eq(iwcm_conn_get_fd(c), -1);
	ck_assert_int_eq(errno, EBADF);
	iwcm_conn_free(c);
}

void pair_up(struct end *a, struct end *b, const struct iwcm_synth *sa,
	     const struct iwcm_synth *sb)
{
	int sv[2];

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	end_up(a, sv[0], sa);
	end_up(b, sv[1], sb);
	cq_depth = 256;
	with_srq = with_channel = false;
	disc_timeout = 0;
	pre_recv = 0;
}

void pair_default(struct end *a, struct end *b)
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

void end_down(struct end *e)
{
	iwcm_ctx_close(e->ctx);
	free(e->buf);
}

int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Wait for one completion on e's CQ, progressing both ends (other may be
 * NULL: a raw peer). */
struct iwcm_wc wait_wc(struct end *e, struct end *other)
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

void post_recv(struct end *e, uint64_t id, uint64_t off, uint32_t len)
{
	struct iwcm_sge sge = { (uint64_t)(uintptr_t)(e->buf + off), len,
				iwcm_mr_get_stag(e->mr) };
	struct iwcm_recv_wr wr = { id, NULL, &sge, 1, 0 };

	ck_assert_int_eq(iwcm_post_recv(e->qp, &wr, NULL), 0);
}

void post(struct end *e, struct iwcm_send_wr *wr, uint64_t off, uint32_t len)
{
	struct iwcm_sge sge = { (uint64_t)(uintptr_t)(e->buf + off), len,
				iwcm_mr_get_stag(e->mr) };

	wr->sg_list = &sge;
	wr->num_sge = 1;
	ck_assert_int_eq(iwcm_post_send(e->qp, wr, NULL), 0);
}

void fill(uint8_t *p, size_t n, uint8_t seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(seed + i * 7 + (i >> 9));
}

void smoke_send(void)
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

struct iwcm_send_wr wr_of(int opcode, uint64_t id)
{
	struct iwcm_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.opcode = opcode;
	wr.send_flags = IWCM_SEND_SIGNALED;
	return wr;
}

void expect_wc(struct end *e, struct end *o, uint64_t id, int status,
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

struct iwcm_async_event wait_async(struct end *e, struct end *o)
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
