/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * A hostile peer against one libiwcm QP.  The raw FPDU peer (dp_peer.h)
 * sends one offending message per case; the test asserts the exact
 * Terminate the library answers with (layer, type and code of RFC 5040
 * §4.8 Figure 9, RFC 5041 §7.2, RFC 5044 §8, RFC 7306 §8, and the headers
 * Figure 10 copies), that nothing follows it, that the QP is in error
 * with the async event carrying the same codes, that every outstanding
 * work request is flushed with IWCM_WC_WR_FLUSH_ERR, and that no byte
 * was written outside, or into, any region the peer had no right to:
 * every registered buffer sits between PROT_NONE guard pages and canary
 * octets.  The process surviving is the test completing.  Then a
 * Terminate received and the peer closing in the middle of an FPDU.
 *
 * The cases and the Terminate each must draw are in dp_hostile_cases.c;
 * this file is the harness (dp_hostile.h).
 *
 * Each case runs in three variants: RDMAP/DDP version 1 without markers
 * (progress thread), version 1 with markers both ways (manual progress),
 * version 0 with markers and CRC as an RDMA Consortium peer uses them.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "dp_hostile.h"

struct dp_ep E;
struct dp_peer *P;
struct iwcm_pd *pd2;
struct iwcm_synth ST;

struct region R[R_N] = {
	[R_RW] = { "rw", ACC_ALL, 0x11, REGION, 0 },
	[R_RO] = { "read-only", IWCM_ACCESS_REMOTE_READ, 0x22, REGION, 0 },
	[R_WO] = { "write-only",
		   IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE, 0x33,
		   REGION, 0 },
	[R_NOAT] = { "no-atomic",
		     IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |
			     IWCM_ACCESS_REMOTE_READ,
		     0x44, REGION, 0 },
	[R_INV] = { "to-invalidate", ACC_ALL, 0x55, REGION, 0 },
	[R_OTHER] = { "other-pd", ACC_ALL, 0x66, REGION, 1 },
	[R_SINK] = { "read-sink", IWCM_ACCESS_LOCAL_WRITE, 0x77, REGION, 0 },
	[R_RECV] = { "receives", IWCM_ACCESS_LOCAL_WRITE, 0x88, 2 * RECV_LEN,
		     0 },
	[R_BIG] = { "big", IWCM_ACCESS_REMOTE_READ, 0x99, REGION, 0 },
};

/* The offending segment, for the Terminate's copied headers. */
uint8_t SEG[MPA_ULPDU_MAX + 1];
size_t SEG_LEN;
bool recv1_done;  /* the case consumed receive 1 */
bool read_posted; /* work request 3: a Read never answered */

/* ---- setup ---- */

static void setup(unsigned int flags, int var)
{
	int fd[2], i;
	int markers = var > 0 || (flags & H_MARKERS);

	memset(&ST, 0, sizeof(ST));
	ST.initiator = 0;
	ST.version = var == 2 ? 0 : 1;
	ST.mpa_rev = var == 2 ? 0 : 2;
	ST.crc = !(flags & H_CRC_OFF);
	ST.markers_tx = ST.markers_rx = markers;
	/* A marker falls 12 octets into the peer's first FPDU. */
	ST.rx_offset = 500;
	ST.tx_offset = 20;
	ST.ird = 2;
	ST.ord = 4;
	for (i = 0; i < 4; i++)
		ST.next_msn[i] = 1;
	ST.atomics = ST.imm_data = ST.version == 1;

	dp_sockpair(0, fd);
	if (flags & H_SNDBUF) {
		int sz = 4096;

		ck_assert_int_eq(setsockopt(fd[0], SOL_SOCKET, SO_SNDBUF, &sz,
					    sizeof(sz)),
				 0);
	}
	dp_ep_open(&E, var == 1 ? IWCM_CTX_MANUAL_PROGRESS : 0);
	pd2 = iwcm_alloc_pd(E.ctx);
	ck_assert_ptr_nonnull(pd2);
	R[R_BIG].len = flags & H_SNDBUF ? BIG_LEN : REGION;
	for (i = 0; i < R_N; i++) {
		struct region *r = &R[i];

		dp_buf_new(&r->b, r->len, CANARY, r->fill);
		r->mr = iwcm_reg_mr(r->other_pd ? pd2 : E.pd, r->b.p, r->len,
				    r->access);
		ck_assert_msg(r->mr, "iwcm_reg_mr(%s): %s", r->name,
			      strerror(errno));
		r->stag = iwcm_mr_get_stag(r->mr);
	}
	dp_ep_qp(&E, fd[0], &ST, NULL);
	P = calloc(1, sizeof(*P));
	ck_assert_ptr_nonnull(P);
	dp_peer_init(P, fd[1], &ST);

	recv1_done = false;
	SEG_LEN = 0;
	if (!(flags & H_NO_RECV)) {
		dp_post_recv(E.qp, 1, R[R_RECV].mr, R[R_RECV].b.p, RECV_LEN);
		dp_post_recv(E.qp, 2, R[R_RECV].mr, R[R_RECV].b.p + RECV_LEN,
			     RECV_LEN);
	}
	/* An outstanding Read the peer never answers: it must flush. */
	read_posted = !(flags & H_SNDBUF);
	if (read_posted) {
		struct iwcm_send_wr wr;
		struct iwcm_sge sg;
		struct dp_msg *m;

		dp_wr(&wr, &sg, IWCM_WR_RDMA_READ, 3, R[R_SINK].mr,
		      R[R_SINK].b.p, 16);
		wr.wr.rdma.remote_addr = 0x7000;
		wr.wr.rdma.rkey = 0xabcdef01;
		dp_post_send(E.qp, &wr);
		m = dp_peer_expect(P, RDMAP_READ_REQ);
		ck_assert_uint_eq(m->m.u.read_req.size, 16);
	}
}

static void teardown(void)
{
	int i;

	for (i = 0; i < R_N; i++) {
		ck_assert_int_eq(iwcm_dereg_mr(R[i].mr), 0);
		dp_buf_free(&R[i].b);
	}
	ck_assert_int_eq(iwcm_dealloc_pd(pd2), 0);
	dp_ep_close(&E);
	dp_peer_close(P);
	free(P);
	P = NULL;
}

/* ---- building offending messages ---- */

void send_seg(const uint8_t *u, size_t n)
{
	memcpy(SEG, u, n);
	SEG_LEN = n;
	dp_peer_send_ulpdu(P, u, n);
}

void send_msg(const struct rdmap_msg *m, const void *data, size_t len)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];

	send_seg(u, dp_msg_build(m, data, len, u, sizeof(u)));
}

/* A DDP header of the peer for a raw build (any QN, opcode, version). */
struct ddp_hdr raw_untagged(uint8_t opcode, uint32_t qn)
{
	struct ddp_hdr h;

	memset(&h, 0, sizeof(h));
	h.last = true;
	h.dv = P->dv;
	h.rsvd_ulp8 = (uint8_t)(P->rv << RDMAP_RV_SHIFT | opcode);
	h.qn = qn;
	h.msn = qn < 4 ? P->msn[qn]++ : 1;
	return h;
}

void send_raw(const struct ddp_hdr *h, const void *hdr, size_t hlen,
	      const void *payload, size_t plen)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];

	send_seg(u, dp_raw_build(h, hdr, hlen, payload, plen, u, sizeof(u)));
}

void write_to(uint32_t stag, uint64_t to, size_t len)
{
	static uint8_t data[256];

	memset(data, 0xEE, sizeof(data));
	SEG_LEN = dp_peer_write_seg(P, stag, to, data, len, SEG);
}

void read_of(uint32_t stag, uint64_t to, uint32_t size)
{
	struct rdmap_read_req r = { 0x5150, 0x1000, size, stag, to };

	SEG_LEN = dp_peer_read_req(P, &r, SEG);
}

void atomic_at(uint32_t stag, uint64_t to)
{
	struct rdmap_atomic_req a;

	memset(&a, 0, sizeof(a));
	a.aopcode = RDMAP_AOP_FETCHADD;
	a.req_id = 0x77;
	a.stag = stag;
	a.to = to;
	a.add_swap = 1;
	a.cmp_mask = ~0ull;
	SEG_LEN = dp_peer_atomic_req(P, &a, SEG);
}

/* The peer's Send with Invalidate of stag, delivered into receive 1. */
void invalidate(uint32_t stag)
{
	struct iwcm_wc wc;

	dp_peer_send(P, RDMAP_SEND_INV, stag, "inv", 3, NULL);
	dp_wc(E.rcq, &wc);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_uint_eq(wc.wc_flags, IWCM_WC_WITH_INV);
	ck_assert_uint_eq(wc.invalidated_stag, stag);
	recv1_done = true;
}

/* Every outstanding work request flushes, each exactly once. */
static void check_flushed(const struct hcase *c)
{
	bool seen[4] = { false, false, false, false };
	bool want[4] = { false, false, false, false };
	struct iwcm_wc wc;
	int k;

	want[1] = !(c->flags & H_NO_RECV) && !recv1_done;
	want[2] = !(c->flags & H_NO_RECV);
	want[3] = read_posted;
	for (;;) {
		/* Until every one came, then a little more for extras. */
		int ms = memcmp(seen, want, sizeof(seen)) ? DP_TIMEOUT_MS : 20;
		long long end = dp_ms() + ms;
		int got = 0;

		while (!got && dp_ms() < end)
			got = dp_poll(E.rcq, &wc, 0) || dp_poll(E.scq, &wc, 1);
		if (!got)
			break;
		ck_assert_msg(wc.wr_id >= 1 && wc.wr_id <= 3 &&
				      want[wc.wr_id] && !seen[wc.wr_id],
			      "unexpected completion wr_id %llu status %s",
			      (unsigned long long)wc.wr_id,
			      iwcm_wc_status_str(wc.status));
		seen[wc.wr_id] = true;
		ck_assert_ptr_eq(wc.qp, E.qp);
		if (wc.wr_id == 1 && (c->flags & H_HIT_RECV))
			/* the offending Send's own receive: any error */
			ck_assert_int_ne(wc.status, IWCM_WC_SUCCESS);
		else if (wc.wr_id == 3 && (c->flags & H_TERM_RX) &&
			 wc.status != IWCM_WC_WR_FLUSH_ERR)
			/* the Read waiting for its response may take the
			 * blame, with the Terminate's codes */
			ck_assert_msg(wc.status == IWCM_WC_REM_OP_ERR &&
					      wc.vendor_err == TERM_RX_CODES,
				      "Read: %s vendor_err 0x%x",
				      iwcm_wc_status_str(wc.status),
				      wc.vendor_err);
		else
			ck_assert_msg(wc.status == IWCM_WC_WR_FLUSH_ERR,
				      "wr_id %llu: %s, expected a flush",
				      (unsigned long long)wc.wr_id,
				      iwcm_wc_status_str(wc.status));
	}
	for (k = 1; k <= 3; k++)
		ck_assert_msg(seen[k] == want[k], "wr_id %d %s", k,
			      want[k] ? "never completed" : "?");
	/* Posting on a QP in error fails or flushes at once. */
	{
		struct iwcm_send_wr wr, *bad = NULL;
		struct iwcm_sge sg;

		dp_wr(&wr, &sg, IWCM_WR_SEND, 4, R[R_SINK].mr, R[R_SINK].b.p,
		      4);
		if (iwcm_post_send(E.qp, &wr, &bad) == 0) {
			dp_wc(E.scq, &wc);
			ck_assert_uint_eq(wc.wr_id, 4);
			ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		}
	}
}

static void check_memory(const struct hcase *c)
{
	int i;

	for (i = 0; i < R_N; i++) {
		const struct region *r = &R[i];
		size_t k;

		ck_assert_msg(dp_buf_canaries_ok(&r->b),
			      "bytes written around region %s", r->name);
		if (i == R_RECV)
			continue; /* receives may take partial data */
		for (k = 0; k < r->len && r->b.p[k] == r->fill; k++)
			;
		ck_assert_msg(k == r->len, "region %s changed at %zu%s",
			      r->name, k,
			      i == c->untouched ? " (the target)" : "");
	}
}

START_TEST(t_hostile)
{
	const struct hcase *c = &hostile_cases[_i / NVAR];
	int var = _i % NVAR;
	struct iwcm_async_event ev;
	struct dp_msg *t;
	const uint8_t *e;

	if (var == 2 && (c->flags & H_V1))
		var = 1; /* RFC 7306 needs version 1 */
	setup(c->flags, var);
	c->fn();

	if (c->flags & H_TERM_RX) {
		/* RFC 5040 §5.4: surfaced with its codes; nothing back. */
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		ck_assert_ptr_eq(ev.qp, E.qp);
		ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_RDMAP);
		ck_assert_uint_eq(ev.term_etype, RDMAP_ETYPE_REMOTE_OP);
		ck_assert_uint_eq(ev.term_ecode, RDMAP_ECODE_UNEXPECTED_OP);
		t = dp_peer_recv(P, 200);
		ck_assert_msg(!t || t->m.opcode != RDMAP_TERMINATE,
			      "a Terminate answered a Terminate");
	} else if (c->flags & H_CLOSE) {
		if (c->flags & H_RESET) {
			struct linger l = { 1, 0 };

			ck_assert_int_eq(setsockopt(P->fd, SOL_SOCKET,
						    SO_LINGER, &l, sizeof(l)),
					 0);
			dp_peer_close(P);
		} else {
			ck_assert_int_eq(shutdown(P->fd, SHUT_WR), 0);
		}
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
		ck_assert_ptr_eq(ev.qp, E.qp);
	} else {
		P->term_only = c->flags & H_TERM_ONLY;
		t = dp_peer_recv_term(P);
		e = c->exp[0];
		if (c->exp[1][0] != 0xFF && t->m.u.term.ecode == c->exp[1][2] &&
		    t->m.u.term.layer == c->exp[1][0])
			e = c->exp[1];
		dp_check_term(t, e[0], e[1], e[2], SEG_LEN ? SEG : NULL,
			      SEG_LEN);
		/* RFC 5040 §5.4: nothing after the Terminate. */
		t = dp_peer_recv(P, 50);
		ck_assert_msg(!t, "the library sent %s after its Terminate",
			      t ? rdmap_opcode_name(t->m.opcode) : "");
		/* The async event carries what was sent. */
		ck_assert(dp_async(E.ctx, &ev, DP_TIMEOUT_MS));
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ck_assert_ptr_eq(ev.qp, E.qp);
		ck_assert_uint_eq(ev.term_layer, e[0]);
		ck_assert_uint_eq(ev.term_etype, e[1]);
		ck_assert_uint_eq(ev.term_ecode, e[2]);
	}
	ck_assert_int_eq(dp_qp_state(E.qp), IWCM_QPS_ERROR);
	check_flushed(c);
	check_memory(c);
	teardown();
}
END_TEST

static Suite *dp_hostile_suite(void)
{
	Suite *s = suite_create("dp_hostile");
	size_t i;

	for (i = 0; i < n_hostile_cases; i++) {
		TCase *tc = tcase_create(hostile_cases[i].name);

		tcase_set_timeout(tc, 60);
		tcase_add_loop_test(tc, t_hostile, (int)i * NVAR,
				    (int)i * NVAR + NVAR);
		suite_add_tcase(s, tc);
	}
	return s;
}

TEST_MAIN(dp_hostile_suite)
