/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP over SCTP's framing (libclient/framing_ddp_sctp.c) under the
 * unchanged RDMAP/DDP code: two libiwcm QPs whose framings talk over a
 * SEQPACKET socketpair in the relay format iwcmd uses (an 8-octet
 * {stream, 0, PPID 16} header, then one DDP Segment per datagram, RFC
 * 5043 §5.2.2).  Sends segmented at the segment size, Writes, Writes
 * with Immediate, Reads and atomics complete with the right data; each
 * datagram on the wire is one segment with the session's stream; a
 * datagram the relay should never pass (another stream, another PPID,
 * over the segment size, shorter than its header) is an LLP error.
 * Datagrams are taken in batches: one receive call per arriving batch,
 * none to see the socket empty.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <sys/socket.h>

#include "common.h"

#include "dp.h"
#include "dp_peer.h"

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define BUF 65536
#define STREAM 3

static struct dp_cfg C;
static struct dp_ep A, B;
static int sv[2];
static uint8_t *bufa, *bufb;
static struct iwcm_mr *mra, *mrb;

static void sctp_pump(void)
{
	struct iwcm_qp *qps[2] = { A.qp, B.qp };

	for (int i = 0; i < 2; i++) {
		struct dp *dp;

		if (!qps[i])
			continue;
		dp = qps[i]->ctx->dp;
		pthread_mutex_lock(&dp->lock);
		qp_tx_progress(qps[i]);
		qp_rx_progress(qps[i]);
		pthread_mutex_unlock(&dp->lock);
	}
}

static void set_framing(struct dp_ep *e, int fd, uint16_t maxseg)
{
	struct framing *fr;

	pthread_mutex_lock(&e->ctx->dp->lock);
	fr = framing_ddp_sctp_new(fd, STREAM, maxseg, NULL, NULL,
				  e->qp->tx_iov_cap);
	ck_assert_ptr_nonnull(fr);
	ck_assert_uint_eq(fr->mulpdu, maxseg);
	qp_framing_set(e->qp, fr);
	pthread_mutex_unlock(&e->ctx->dp->lock);
}

static void open_sctp(uint16_t maxseg)
{
	dp_cfg_default(&C);
	C.flags_a = C.flags_b = IWCM_CTX_MANUAL_PROGRESS;
	dp_pair_open(&C, &A, &B);
	ck_assert_int_eq(
		socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0, sv), 0);
	set_framing(&A, sv[0], maxseg);
	set_framing(&B, sv[1], maxseg);
	dp_pump_hook = sctp_pump;
	bufa = calloc(1, BUF);
	bufb = calloc(1, BUF);
	ck_assert(bufa && bufb);
	mra = dp_reg(&A, bufa, BUF, ACC_ALL);
	mrb = dp_reg(&B, bufb, BUF, ACC_ALL);
}

static void close_sctp(void)
{
	dp_pump_hook = NULL;
	ck_assert_int_eq(iwcm_dereg_mr(mra), 0);
	ck_assert_int_eq(iwcm_dereg_mr(mrb), 0);
	dp_ep_close(&A);
	dp_ep_close(&B);
	close(sv[0]);
	close(sv[1]);
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

static const size_t send_len[] = { 0, 1, 100, 500, 1000, 20000 };

/* Sends of every size class, cut at the segment size. */
START_TEST(t_send)
{
	size_t n = send_len[_i % ARRAY_SIZE(send_len)];
	uint16_t maxseg = _i < (int)ARRAY_SIZE(send_len) ? 516 : 16384;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	open_sctp(maxseg);
	fill(bufa, n, (uint8_t)_i);
	dp_post_recv(B.qp, 7, mrb, bufb, 30000);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 8, mra, bufa, (uint32_t)n);
	dp_post_send(A.qp, &wr);
	dp_wc_ok(A.scq, 8, IWCM_WC_SEND);
	ck_assert_uint_eq(dp_wc_ok(B.rcq, 7, IWCM_WC_RECV), n);
	ck_assert_mem_eq(bufb, bufa, n);
	close_sctp();
}
END_TEST

/* What goes on the wire: one segment per datagram, our stream, PPID 16,
 * never over the segment size (RFC 5043 §5.2.2, §9). */
START_TEST(t_wire)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint8_t d[2048];
	unsigned int segs = 0;
	ssize_t r;

	open_sctp(600);
	dp_pump_hook = NULL; /* B's side is read here */
	fill(bufa, 3000, 1);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 1, mra, bufa, 3000);
	dp_post_send(A.qp, &wr);
	pthread_mutex_lock(&A.ctx->dp->lock);
	qp_tx_progress(A.qp);
	pthread_mutex_unlock(&A.ctx->dp->lock);
	while ((r = recv(sv[1], d, sizeof(d), MSG_DONTWAIT)) > 0) {
		ck_assert_int_gt(r, 8);
		ck_assert_int_le(r, 8 + 600);
		ck_assert_uint_eq(d[0] << 8 | d[1], STREAM);
		ck_assert_uint_eq(d[2] | d[3] | d[4] | d[5] | d[6], 0);
		ck_assert_uint_eq(d[7], 16);
		segs++;
	}
	/* 3000 octets in segments of 600 minus the untagged header */
	ck_assert_uint_eq(segs, (3000 + 600 - DDP_UNTAGGED_HDR_LEN - 1) /
					(600 - DDP_UNTAGGED_HDR_LEN));
	close_sctp();
}
END_TEST

START_TEST(t_write)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	struct iwcm_wc wc;

	open_sctp(1024);
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
	ck_assert_mem_eq(bufb + 100, bufa, 5000);
	ck_assert_mem_eq(bufb + 8000, bufa + 8000, 3000);
	close_sctp();
}
END_TEST

START_TEST(t_read_atomic)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	uint64_t word = 40, orig;

	open_sctp(1024);
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
	close_sctp();
}
END_TEST

/* Datagrams the relay never passes: B's QP fails with an LLP error and
 * tells A with a Terminate. */
enum { BAD_STREAM, BAD_PPID, BAD_LONG, BAD_SHORT, BAD_N };

START_TEST(t_bad_datagram)
{
	uint8_t d[8 + 1100];
	struct iwcm_async_event ev;
	size_t len = 8 + 40;

	open_sctp(1024);
	memset(d, 0, sizeof(d));
	d[1] = STREAM;
	d[7] = 16;
	switch (_i) {
	case BAD_STREAM:
		d[1] = STREAM + 1;
		break;
	case BAD_PPID:
		d[7] = 17;
		break;
	case BAD_LONG:
		len = 8 + 1025;
		break;
	case BAD_SHORT:
		len = 5;
		break;
	}
	ck_assert_int_eq(send(sv[0], d, len, 0), (ssize_t)len);
	ck_assert(dp_async(B.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_LLP);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_LOCAL_CATASTROPHIC);
	close_sctp();
}
END_TEST

/* Receive calls made on the watched descriptor, and those that found
 * nothing (EAGAIN). */
static int watch_fd = -1;
static unsigned long rx_calls, rx_empty;

static void rx_count(int fd, long r)
{
	if (fd != watch_fd)
		return;
	rx_calls++;
	if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		rx_empty++;
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
	static ssize_t (*real)(int, void *, size_t, int);
	ssize_t r;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t, int))dlsym(RTLD_NEXT,
								   "recv");
	r = real(fd, buf, n, flags);
	rx_count(fd, r);
	return r;
}

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
	static ssize_t (*real)(int, struct msghdr *, int);
	ssize_t r;

	if (!real)
		real = (ssize_t(*)(int, struct msghdr *, int))dlsym(RTLD_NEXT,
								    "recvmsg");
	r = real(fd, mh, flags);
	rx_count(fd, r);
	return r;
}

int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags,
	     struct timespec *t)
{
	static int (*real)(int, struct mmsghdr *, unsigned int, int,
			   struct timespec *);
	int r;

	if (!real)
		real = (int (*)(int, struct mmsghdr *, unsigned int, int,
				struct timespec *))dlsym(RTLD_NEXT, "recvmmsg");
	r = real(fd, v, n, flags, t);
	rx_count(fd, r);
	return r;
}

/* B's receive progress, once, counting its calls on its socket. */
static void b_rx_once(void)
{
	struct dp *dp = B.qp->ctx->dp;

	rx_calls = rx_empty = 0;
	watch_fd = sv[1];
	pthread_mutex_lock(&dp->lock);
	qp_rx_progress(B.qp);
	pthread_mutex_unlock(&dp->lock);
	watch_fd = -1;
}

/* A's queued Sends onto the socket, B not reading. */
static void a_tx_once(void)
{
	struct dp *dp = A.qp->ctx->dp;

	pthread_mutex_lock(&dp->lock);
	qp_tx_progress(A.qp);
	pthread_mutex_unlock(&dp->lock);
}

/*
 * One receive call per message of a ping-pong, none that finds the
 * socket empty; a burst of ten queued datagrams in three calls (four,
 * four, two: fewer than asked means empty), all delivered in order.
 */
START_TEST(t_rx_calls)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;
	int i;

	open_sctp(1024);
	dp_pump_hook = NULL; /* this test moves the data itself */
	for (i = 0; i < 4; i++) {
		dp_post_recv(B.qp, 100 + (uint64_t)i, mrb, bufb, 100);
		fill(bufa, 40, (uint8_t)i);
		dp_wr(&wr, &sg, IWCM_WR_SEND, 200 + (uint64_t)i, mra, bufa, 40);
		dp_post_send(A.qp, &wr);
		a_tx_once();
		b_rx_once();
		ck_assert_uint_eq(rx_calls, 1);
		ck_assert_uint_eq(rx_empty, 0);
		ck_assert_uint_eq(
			dp_wc_ok(B.rcq, 100 + (uint64_t)i, IWCM_WC_RECV), 40);
		ck_assert_mem_eq(bufb, bufa, 40);
		dp_wc_ok(A.scq, 200 + (uint64_t)i, IWCM_WC_SEND);
	}
	/* nothing came: the one call finds it empty */
	b_rx_once();
	ck_assert_uint_eq(rx_calls, 1);
	ck_assert_uint_eq(rx_empty, 1);
	for (i = 0; i < 10; i++) {
		dp_post_recv(B.qp, 300 + (uint64_t)i, mrb,
			     bufb + (size_t)i * 100, 100);
		fill(bufa + (size_t)i * 100, 50, (uint8_t)(i + 9));
		dp_wr(&wr, &sg, IWCM_WR_SEND, 400 + (uint64_t)i, mra,
		      bufa + (size_t)i * 100, 50);
		dp_post_send(A.qp, &wr);
	}
	a_tx_once();
	b_rx_once();
	ck_assert_uint_eq(rx_calls, 3);
	ck_assert_uint_eq(rx_empty, 0);
	for (i = 0; i < 10; i++) {
		ck_assert_uint_eq(
			dp_wc_ok(B.rcq, 300 + (uint64_t)i, IWCM_WC_RECV), 50);
		ck_assert_mem_eq(bufb + (size_t)i * 100, bufa + (size_t)i * 100,
				 50);
	}
	dp_pump_hook = sctp_pump;
	for (i = 0; i < 10; i++)
		dp_wc_ok(A.scq, 400 + (uint64_t)i, IWCM_WC_SEND);
	close_sctp();
}
END_TEST

/* A good datagram, then a bad one in the same batch: the first is
 * delivered, then the LLP error (RFC 5041 §7.1: nothing after it). */
START_TEST(t_rx_batch_bad)
{
	uint8_t d[8 + 40];
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	open_sctp(1024);
	dp_pump_hook = NULL;
	dp_post_recv(B.qp, 7, mrb, bufb, 100);
	dp_post_recv(B.qp, 8, mrb, bufb + 100, 100);
	fill(bufa, 30, 5);
	dp_wr(&wr, &sg, IWCM_WR_SEND, 9, mra, bufa, 30);
	dp_post_send(A.qp, &wr);
	a_tx_once();
	memset(d, 0, sizeof(d));
	d[1] = STREAM;
	d[7] = 17; /* not PPID 16 */
	ck_assert_int_eq(send(sv[0], d, sizeof(d), 0), (ssize_t)sizeof(d));
	b_rx_once();
	ck_assert_uint_eq(rx_calls, 1);
	dp_pump_hook = sctp_pump;
	ck_assert_uint_eq(dp_wc_ok(B.rcq, 7, IWCM_WC_RECV), 30);
	ck_assert_mem_eq(bufb, bufa, 30);
	ck_assert(dp_async(B.ctx, &ev, DP_TIMEOUT_MS));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_LOCAL_CATASTROPHIC);
	close_sctp();
}
END_TEST

/* The framing's own checks of its arguments. */
START_TEST(t_new_checked)
{
	errno = 0;
	ck_assert_ptr_null(framing_ddp_sctp_new(-1, 0, 1000, NULL, NULL, 4));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_ptr_null(framing_ddp_sctp_new(0, 0, 10, NULL, NULL, 4));
	ck_assert_ptr_null(framing_ddp_sctp_new(0, 0, 1000, NULL, NULL, 0));
}
END_TEST

static Suite *framing_sctp_suite(void)
{
	Suite *s = suite_create("framing_sctp");

	add_loop_tcase(s, "send", t_send, 2 * ARRAY_SIZE(send_len));
	add_tcase(s, "wire", t_wire);
	add_tcase(s, "write", t_write);
	add_tcase(s, "read_atomic", t_read_atomic);
	add_loop_tcase(s, "bad_datagram", t_bad_datagram, BAD_N);
	add_tcase(s, "new_checked", t_new_checked);
	add_tcase(s, "rx_calls", t_rx_calls);
	add_tcase(s, "rx_batch_bad", t_rx_batch_bad);
	return s;
}

TEST_MAIN(framing_sctp_suite)
