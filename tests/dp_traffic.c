/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The traffic of tests/integ/dp_capture.sh: two libiwcm endpoints
 * connected through a real iwcmd (daemon_harness.h) over the loopback,
 * MPA Rev 1 with markers both ways and CRC, then every operation in
 * both directions one at a time in single FPDUs, then messages of many
 * FPDUs each way, each verified, and a disconnect.
 *
 * It prints the listener's TCP port on standard output, then waits for a
 * line on standard input (the capture is running) before connecting.
 * Exit status 0 when every operation verified.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <unistd.h>

#include "common.h"
#include "daemon_harness.h"

#include "dp_peer.h"

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define LEN 200000

static struct harness H;
static struct dp_ep S, Cl; /* the server (responder) and the client */

/* The next CM event of ctx. */
static struct iwcm_event *cm_event(struct iwcm_ctx *ctx, int type)
{
	long long end = dp_ms() + DP_TIMEOUT_MS;
	struct iwcm_event *ev;

	for (;;) {
		struct pollfd p = { iwcm_ctx_get_fd(ctx), POLLIN, 0 };

		if (iwcm_get_event(ctx, &ev) == 0)
			break;
		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_msg(dp_ms() < end, "no CM event");
		poll(&p, 1, 10);
	}
	ck_assert_msg((int)iwcm_event_get_type(ev) == type, "event %s",
		      iwcm_cm_event_str(iwcm_event_get_type(ev)));
	return ev;
}

/* The daemon goes with the process, also when an assertion fails. */
static void stop_daemon(void)
{
	harness_cleanup(&H);
}

static struct iwcm_conn_param *params(void)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();

	ck_assert_ptr_nonnull(p);
	/* RFC 5044 (Rev 1): what tshark 4.0 knows, no RTR. */
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 1), 0);
	ck_assert_int_eq(iwcm_conn_param_set_markers(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_crc(p, IWCM_CRC_REQUEST), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, 4), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 4), 0);
	return p;
}

static void connect_pair(void)
{
	struct iwcm_conn_param *ps = params(), *pc = params();
	struct iwcm_ctx *cs, *cc;
	struct iwcm_listener *l;
	struct iwcm_event *ev;
	struct iwcm_conn_attr attr;
	struct sockaddr_in sin;
	char line[16];

	harness_start(&H, "");
	atexit(stop_daemon);
	cs = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	cc = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	ck_assert_ptr_nonnull(cs);
	ck_assert_ptr_nonnull(cc);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	l = iwcm_listen(cs, (struct sockaddr *)&sin, NULL, ps, 0);
	ck_assert_msg(l, "iwcm_listen: %s", strerror(errno));
	sin.sin_port = htons((uint16_t)iwcm_listener_get_port(l));
	printf("%d\n", iwcm_listener_get_port(l));
	fflush(stdout);
	/* The capture is running once a line comes. */
	if (!fgets(line, sizeof(line), stdin))
		ck_abort_msg("no go line on standard input");
	/* From here on, what Check prints goes to standard error. */
	ck_assert_int_eq(dup2(2, 1), 1);

	Cl.conn = iwcm_connect(cc, (struct sockaddr *)&sin, NULL, pc);
	ck_assert_msg(Cl.conn, "iwcm_connect: %s", strerror(errno));
	ev = cm_event(cs, IWCM_CM_EVENT_CONNECT_REQUEST);
	S.conn = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert_int_eq(iwcm_accept(S.conn, ps), 0);
	iwcm_ack_event(cm_event(cc, IWCM_CM_EVENT_ESTABLISHED));
	iwcm_ack_event(cm_event(cs, IWCM_CM_EVENT_ESTABLISHED));
	attr.comp_mask = IWCM_CONN_ATTR_NEGOTIATED;
	ck_assert_int_eq(iwcm_conn_query(S.conn, &attr), 0);
	ck_assert_uint_eq(attr.comp_mask, IWCM_CONN_ATTR_NEGOTIATED);
	ck_assert(attr.markers_tx && attr.markers_rx && attr.crc);
	iwcm_conn_param_free(ps);
	iwcm_conn_param_free(pc);
	{
		struct iwcm_conn *c = S.conn;

		dp_ep_init(&S, cs, false);
		S.conn = c;
		c = Cl.conn;
		dp_ep_init(&Cl, cc, false);
		Cl.conn = c;
	}
	dp_ep_conn_qp(&S, NULL);
	dp_ep_conn_qp(&Cl, NULL);
}

struct buf {
	uint8_t *p;
	struct iwcm_mr *mr;
};

static struct buf bufs[32];
static int n_bufs;

static struct buf mk(struct dp_ep *e, size_t len, unsigned int acc)
{
	struct buf b;

	b.p = calloc(1, len);
	ck_assert_ptr_nonnull(b.p);
	b.mr = dp_reg(e, b.p, len, acc);
	ck_assert_int_lt(n_bufs, (int)ARRAY_SIZE(bufs));
	bufs[n_bufs++] = b;
	return b;
}

static void wr_post(struct dp_ep *e, int op, uint64_t id, struct buf *l,
		    uint32_t len, struct buf *r, size_t roff)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	dp_wr(&wr, &sg, op, id, l ? l->mr : NULL, l ? l->p : NULL, len);
	if (!l)
		wr.num_sge = 0;
	if (r) {
		wr.wr.rdma.remote_addr = (uintptr_t)r->p + roff;
		wr.wr.rdma.rkey = iwcm_mr_get_stag(r->mr);
	}
	wr.imm_data = 0x1122334455667788ull ^ id;
	dp_post_send(e->qp, &wr);
}

/*
 * Every operation from s to r, one at a time and each small enough for
 * one FPDU, so that each FPDU travels in a TCP segment of its own:
 * tshark 4.0 only dissects FPDUs aligned with TCP segments (its
 * expected_ulpdu_length() comes from the segment length).
 */
static int small_ops(struct dp_ep *s, struct dp_ep *r)
{
	struct buf src = mk(s, 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct buf res = mk(s, 4096, IWCM_ACCESS_LOCAL_WRITE);
	struct buf dst = mk(r, 4096, ACC_ALL);
	struct buf inv = mk(r, 64, ACC_ALL);
	struct buf rb = mk(r, 8 * 2048, IWCM_ACCESS_LOCAL_WRITE);
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint64_t v;
	int k;

	test_rand_bytes(src.p, 4096);
	/* As many receives as Sends and Immediate Data below. */
	for (k = 0; k < 6; k++)
		dp_post_recv(r->qp, (uint64_t)k, rb.mr, rb.p + 2048 * k, 2048);
	wr_post(s, IWCM_WR_SEND, 1, &src, 1000, NULL, 0);
	dp_wc_ok(s->scq, 1, IWCM_WC_SEND);
	dp_wc_ok(r->rcq, 0, IWCM_WC_RECV);
	ck_assert(!memcmp(rb.p, src.p, 1000));
	wr_post(s, IWCM_WR_RDMA_WRITE, 2, &src, 2000, &dst, 0);
	dp_wc_ok(s->scq, 2, IWCM_WC_RDMA_WRITE);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 3, src.mr, src.p, 16);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	dp_post_send(s->qp, &wr);
	dp_wc_ok(s->scq, 3, IWCM_WC_SEND);
	dp_wc_ok(r->rcq, 1, IWCM_WC_RECV);
	ck_assert(!memcmp(dst.p, src.p, 2000));
	wr_post(s, IWCM_WR_RDMA_WRITE_WITH_IMM, 4, &src, 500, &dst, 7);
	dp_wc_ok(s->scq, 4, IWCM_WC_RDMA_WRITE);
	dp_wc_ok(r->rcq, 2, IWCM_WC_RECV_RDMA_WITH_IMM);
	ck_assert(!memcmp(dst.p + 7, src.p, 500));
	wr_post(s, IWCM_WR_IMM_DATA, 5, NULL, 0, NULL, 0);
	dp_wc_ok(s->scq, 5, IWCM_WC_IMM_DATA);
	dp_wc_ok(r->rcq, 3, IWCM_WC_RECV_IMM_DATA);
	wr_post(s, IWCM_WR_RDMA_READ, 6, &res, 1500, &dst, 100);
	dp_wc_ok(s->scq, 6, IWCM_WC_RDMA_READ);
	ck_assert(!memcmp(res.p, dst.p + 100, 1500));
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_FETCH_ADD, 7, res.mr, res.p, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)dst.p + 64;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(dst.mr);
	wr.wr.atomic.compare_add = 3;
	memcpy(&v, dst.p + 64, 8);
	dp_post_send(s->qp, &wr);
	dp_wc_ok(s->scq, 7, IWCM_WC_FETCH_ADD);
	ck_assert(!memcmp(res.p, &v, 8));
	v += 3;
	dp_wr(&wr, &sg, IWCM_WR_ATOMIC_CMP_SWP, 8, res.mr, res.p, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)dst.p + 64;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(dst.mr);
	wr.wr.atomic.compare_add = v;
	wr.wr.atomic.compare_add_mask = ~0ull;
	wr.wr.atomic.swap = 42;
	wr.wr.atomic.swap_mask = ~0ull;
	dp_post_send(s->qp, &wr);
	dp_wc_ok(s->scq, 8, IWCM_WC_COMP_SWAP);
	ck_assert(!memcmp(res.p, &v, 8));
	v = 42;
	ck_assert(!memcmp(dst.p + 64, &v, 8));
	dp_wr(&wr, &sg, IWCM_WR_SEND_WITH_INV, 9, src.mr, src.p, 100);
	wr.invalidate_stag = iwcm_mr_get_stag(inv.mr);
	dp_post_send(s->qp, &wr);
	dp_wc_ok(s->scq, 9, IWCM_WC_SEND);
	dp_wc_ok(r->rcq, 4, IWCM_WC_RECV);
	wr_post(s, IWCM_WR_SEND, 10, NULL, 0, NULL, 0);
	dp_wc_ok(s->scq, 10, IWCM_WC_SEND);
	dp_wc_ok(r->rcq, 5, IWCM_WC_RECV);
	return 10;
}

/* Messages of many FPDUs (the capture's decoder follows them). */
static int big_ops(struct dp_ep *s, struct dp_ep *r)
{
	struct buf src = mk(s, LEN, IWCM_ACCESS_LOCAL_WRITE);
	struct buf res = mk(s, LEN, IWCM_ACCESS_LOCAL_WRITE);
	struct buf dst = mk(r, LEN, ACC_ALL);
	struct buf rb = mk(r, LEN, IWCM_ACCESS_LOCAL_WRITE);

	test_rand_bytes(src.p, LEN);
	dp_post_recv(r->qp, 20, rb.mr, rb.p, LEN);
	wr_post(s, IWCM_WR_RDMA_WRITE, 21, &src, LEN, &dst, 0);
	wr_post(s, IWCM_WR_RDMA_READ, 22, &res, LEN, &dst, 0);
	wr_post(s, IWCM_WR_SEND, 23, &src, LEN, NULL, 0);
	dp_wc_ok(s->scq, 21, IWCM_WC_RDMA_WRITE);
	dp_wc_ok(s->scq, 22, IWCM_WC_RDMA_READ);
	dp_wc_ok(s->scq, 23, IWCM_WC_SEND);
	dp_wc_ok(r->rcq, 20, IWCM_WC_RECV);
	ck_assert(!memcmp(dst.p, src.p, LEN));
	ck_assert(!memcmp(res.p, src.p, LEN));
	ck_assert(!memcmp(rb.p, src.p, LEN));
	return 3;
}

START_TEST(t_traffic)
{
	int n;

	connect_pair();
	n = small_ops(&Cl, &S);
	n += small_ops(&S, &Cl);
	n += big_ops(&Cl, &S);
	n += big_ops(&S, &Cl);
	fprintf(stderr, "%d operations verified\n", n);
	ck_assert_int_eq(iwcm_qp_disconnect(Cl.qp), 0);
	ck_assert(dp_async(S.ctx, &(struct iwcm_async_event){ 0 },
			   DP_TIMEOUT_MS));
	while (n_bufs--) {
		ck_assert_int_eq(iwcm_dereg_mr(bufs[n_bufs].mr), 0);
		free(bufs[n_bufs].p);
	}
	dp_ep_close(&Cl);
	dp_ep_close(&S);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dp_traffic");
	SRunner *sr;
	TCase *tc = tcase_create("traffic");
	int nf;

	test_rng_seed();
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, t_traffic);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_set_fork_status(sr, CK_NOFORK);
	srunner_run_all(sr, CK_SILENT);
	nf = srunner_ntests_failed(sr);
	if (nf)
		srunner_print(sr, CK_VERBOSE);
	srunner_free(sr);
	return nf ? EXIT_FAILURE : EXIT_SUCCESS;
}
