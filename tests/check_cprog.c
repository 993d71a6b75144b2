/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Progress in the caller's thread (libclient/cprog.c, cqwatch.c) and the
 * progress thread as its fallback (progress.c), on two QPs back to back
 * over loopback TCP in automatic progress mode:
 *
 * - IWCM_PROGRESS_IDLE_US: the values taken and refused, and a context
 *   refused with a bad one;
 * - a QP left to the application: the thread does not touch what
 *   arrives, iwcm_poll_cq() moves it;
 * - the completion channel's descriptor is woken by the socket, and
 *   iwcm_get_cq_event() then moves the data (EAGAIN: no event yet), or
 *   blocks on the socket itself until the event;
 * - one-sided operations (Write, Read, FetchAdd) complete with no call
 *   from the target once its callers are gone;
 * - iwcm_dereg_mr() waiting for a busy QP holds no lock of the context;
 * - a QP destroyed while another thread polls its CQ;
 * - system calls: an 8 KiB Send costs its receiver one read(2) that
 *   returns data, its headers and payload read ahead together, and a
 *   poll of a CQ of one QP asks no epoll set (counted by the wrappers
 *   below, which this program's read(2), readv(2) and epoll_wait(2) put
 *   in front of the C library's for libiwcm).
 */
#include "config.h"

#include <dlfcn.h>
#include <sys/epoll.h>
#include <sys/uio.h>

#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "dp.h"
#include "dp_peer.h"

/* ---- IWCM_PROGRESS_IDLE_US ---- */

static const struct {
	const char *s;
	int ok;
	unsigned int v;
} idle_cases[] = {
	{ "0", 1, 0 },
	{ "1", 1, 1 },
	{ "1000", 1, 1000 },
	{ "1000000", 1, 1000000 },
	{ "1000001", 0, 0 },
	{ "", 0, 0 },
	{ "-1", 0, 0 },
	{ "1e3", 0, 0 },
	{ " 5", 0, 0 },
	{ "5 ", 0, 0 },
	{ "0x10", 0, 0 },
	{ "abc", 0, 0 },
	{ "99999999999999999999", 0, 0 },
};

START_TEST(idle_parse)
{
	unsigned int v = 77;
	int r = cprog_idle_parse(idle_cases[_i].s, &v);

	if (idle_cases[_i].ok) {
		ck_assert_int_eq(r, 0);
		ck_assert_uint_eq(v, idle_cases[_i].v);
	} else {
		ck_assert_int_eq(r, -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_uint_eq(v, 77);
	}
}
END_TEST

/* A bad value is refused when the context opens, before any connect. */
START_TEST(idle_env_refused)
{
	struct iwcm_ctx *ctx;

	setenv("IWCM_PROGRESS_IDLE_US", "1e3", 1);
	errno = 0;
	ck_assert_ptr_null(iwcm_ctx_new_detached(0));
	ck_assert_int_eq(errno, EINVAL);
	errno = 0;
	ck_assert_ptr_null(iwcm_ctx_open_path("/nonexistent/iwcmd.sock", 0));
	ck_assert_int_eq(errno, EINVAL);
	setenv("IWCM_PROGRESS_IDLE_US", "250", 1);
	ctx = iwcm_ctx_new_detached(0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_eq(ctx->progress_idle_us, 250);
	iwcm_ctx_close(ctx);
	unsetenv("IWCM_PROGRESS_IDLE_US");
	ctx = iwcm_ctx_new_detached(0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_uint_eq(ctx->progress_idle_us, CPROG_IDLE_US_DEFAULT);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- two QPs back to back ---- */

static struct dp_ep a, b;
static uint8_t abuf[4096], bbuf[4096];
static struct iwcm_mr *amr, *bmr;

/* A pair in automatic progress mode with the given tick. */
static void pair_up(const char *idle_us)
{
	struct dp_cfg c;

	setenv("IWCM_PROGRESS_IDLE_US", idle_us, 1);
	dp_cfg_default(&c);
	c.tcp = 1;
	c.atomics = 1;
	dp_pair_open(&c, &a, &b);
	unsetenv("IWCM_PROGRESS_IDLE_US");
	amr = dp_reg(&a, abuf, sizeof(abuf),
		     IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_READ |
			     IWCM_ACCESS_REMOTE_WRITE |
			     IWCM_ACCESS_REMOTE_ATOMIC);
	bmr = dp_reg(&b, bbuf, sizeof(bbuf),
		     IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_READ |
			     IWCM_ACCESS_REMOTE_WRITE |
			     IWCM_ACCESS_REMOTE_ATOMIC);
}

static void pair_down(void)
{
	ck_assert_int_eq(iwcm_dereg_mr(amr), 0);
	ck_assert_int_eq(iwcm_dereg_mr(bmr), 0);
	dp_ep_close(&a);
	dp_ep_close(&b);
}

static bool qp_in_background(struct iwcm_qp *qp)
{
	bool bg;

	pthread_mutex_lock(&qp->lock);
	bg = qp->bg;
	pthread_mutex_unlock(&qp->lock);
	return bg;
}

/* Send from a to b and take the completions, polling both CQs. */
static void exchange(uint64_t id)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;

	dp_post_recv(b.qp, id, bmr, bbuf, 64);
	dp_wr(&wr, &sge, IWCM_WR_SEND, id, amr, abuf, 8);
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, id, IWCM_WC_SEND);
	dp_wc_ok(b.rcq, id, IWCM_WC_RECV);
}

/* b's callers are active: exchanges until the thread left b's QP to
 * them (it sees a call when the socket wakes it). */
static void b_to_foreground(void)
{
	long long end = dp_ms() + DP_TIMEOUT_MS;
	uint64_t id = 100;

	while (qp_in_background(b.qp)) {
		ck_assert_msg(dp_ms() < end, "b's QP stays in the background");
		exchange(id++);
	}
}

/* The completion count of a CQ, without the library. */
static uint32_t cq_count(struct iwcm_cq *cq)
{
	return __atomic_load_n(&cq->count, __ATOMIC_ACQUIRE);
}

/* A QP left to the application: what arrives waits for its call. */
START_TEST(poll_moves_data)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_wc wc;

	pair_up("1000000");
	b_to_foreground();
	dp_post_recv(b.qp, 1, bmr, bbuf, 64);
	dp_wr(&wr, &sge, IWCM_WR_SEND, 1, amr, abuf, 8);
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, 1, IWCM_WC_SEND);
	/* The Send is in b's socket; nobody but a call of b moves it. */
	usleep(50000);
	ck_assert_uint_eq(cq_count(b.rcq), 0);
	ck_assert(!qp_in_background(b.qp));
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	pair_down();
}
END_TEST

/* The channel's descriptor wakes for the socket; the call that follows
 * moves the data, finds no event (not armed): EAGAIN. */
START_TEST(channel_fd_socket)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_cq *cq;
	struct iwcm_wc wc;
	void *cctx;
	int fd;

	pair_up("1000000");
	b_to_foreground();
	fd = iwcm_comp_channel_get_fd(b.ch);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK),
			 0);
	{
		struct pollfd p = { fd, POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
	dp_post_recv(b.qp, 2, bmr, bbuf, 64);
	dp_wr(&wr, &sge, IWCM_WR_SEND, 2, amr, abuf, 8);
	dp_post_send(a.qp, &wr);
	{
		struct pollfd p = { fd, POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, DP_TIMEOUT_MS), 1);
	}
	ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* Moved by that call: the completion is there. */
	ck_assert_uint_eq(cq_count(b.rcq), 1);
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 2);
	pair_down();
}
END_TEST

static void *send_later(void *arg)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;

	(void)arg;
	usleep(30000);
	dp_wr(&wr, &sge, IWCM_WR_SEND, 3, amr, abuf, 8);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	dp_post_send(a.qp, &wr);
	return NULL;
}

/* A blocking iwcm_get_cq_event() sleeps on the socket and moves the
 * Send itself: the event comes although the thread leaves b alone. */
START_TEST(blocking_event)
{
	struct iwcm_cq *cq = NULL;
	struct iwcm_wc wc;
	pthread_t t;
	void *cctx;

	pair_up("1000000");
	b_to_foreground();
	dp_post_recv(b.qp, 3, bmr, bbuf, 64);
	ck_assert_int_eq(iwcm_req_notify_cq(b.rcq, 0), 0);
	ck_assert_int_eq(pthread_create(&t, NULL, send_later, NULL), 0);
	ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, b.rcq);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 3);
	dp_wc_ok(a.scq, 3, IWCM_WC_SEND);
	pair_down();
}
END_TEST

/*
 * One-sided operations on b while b makes no call at all: a Write, a
 * Read and a FetchAdd complete once the thread took b's QP back (two
 * ticks of 2 ms; the bound here is generous for a loaded machine).
 */
START_TEST(one_sided_fallback)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	uint64_t *word = (uint64_t *)(void *)(bbuf + 1024);

	pair_up("2000");
	b_to_foreground();
	ck_assert(!qp_in_background(b.qp));
	memset(abuf, 0x5a, 256);
	memset(bbuf + 512, 0, 256);
	*word = 40;
	/* Write */
	dp_wr(&wr, &sge, IWCM_WR_RDMA_WRITE, 10, amr, abuf, 256);
	wr.wr.rdma.remote_addr = (uintptr_t)(bbuf + 512);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(bmr);
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, 10, IWCM_WC_RDMA_WRITE);
	/* Read back what was written: b must answer. */
	memset(abuf + 2048, 0, 256);
	dp_wr(&wr, &sge, IWCM_WR_RDMA_READ, 11, amr, abuf + 2048, 256);
	wr.wr.rdma.remote_addr = (uintptr_t)(bbuf + 512);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(bmr);
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, 11, IWCM_WC_RDMA_READ);
	ck_assert_int_eq(memcmp(abuf + 2048, abuf, 256), 0);
	/* FetchAdd: b must run it. */
	dp_wr(&wr, &sge, IWCM_WR_ATOMIC_FETCH_ADD, 12, amr, abuf + 3072, 8);
	wr.wr.atomic.remote_addr = (uintptr_t)word;
	wr.wr.atomic.rkey = iwcm_mr_get_stag(bmr);
	wr.wr.atomic.compare_add = 2;
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, 12, IWCM_WC_FETCH_ADD);
	ck_assert_uint_eq(*(uint64_t *)(void *)(abuf + 3072), 40);
	ck_assert_uint_eq(__atomic_load_n(word, __ATOMIC_ACQUIRE), 42);
	/* The thread took it back. */
	ck_assert(qp_in_background(b.qp));
	pair_down();
}
END_TEST

static struct iwcm_mr *dereg_mr;
static volatile int dereg_done;

static void *dereg_thread(void *arg)
{
	(void)arg;
	ck_assert_int_eq(iwcm_dereg_mr(dereg_mr), 0);
	__atomic_store_n(&dereg_done, 1, __ATOMIC_RELEASE);
	return NULL;
}

/* A deregistration waiting for a QP busy placing holds no lock of the
 * context: a registration meanwhile goes through. */
START_TEST(dereg_waits_alone)
{
	static uint8_t extra[512];
	struct iwcm_mr *mr;
	pthread_t t;

	pair_up("1000");
	dereg_mr = dp_reg(&b, bbuf + 2048, 1024, IWCM_ACCESS_LOCAL_WRITE);
	dereg_done = 0;
	/* b's QP is busy (as in a long placement). */
	pthread_mutex_lock(&b.qp->lock);
	ck_assert_int_eq(pthread_create(&t, NULL, dereg_thread, NULL), 0);
	usleep(20000);
	ck_assert_int_eq(__atomic_load_n(&dereg_done, __ATOMIC_ACQUIRE), 0);
	/* Needs the context's lock: it must not wait for the QP. */
	mr = iwcm_reg_mr(b.pd, extra, sizeof(extra), IWCM_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(mr);
	pthread_mutex_unlock(&b.qp->lock);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	ck_assert_int_eq(dereg_done, 1);
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	pair_down();
}
END_TEST

static volatile int poll_stop;

static void *poller(void *arg)
{
	struct iwcm_wc wc;

	(void)arg;
	while (!__atomic_load_n(&poll_stop, __ATOMIC_ACQUIRE)) {
		ck_assert_int_ge(iwcm_poll_cq(b.rcq, 1, &wc), 0);
		ck_assert_int_ge(iwcm_poll_cq(b.scq, 1, &wc), 0);
	}
	return NULL;
}

/* A QP destroyed while another thread polls its CQs (ASan finds a use
 * after free). */
START_TEST(destroy_while_polling)
{
	pthread_t t;

	pair_up("1000");
	exchange(1);
	poll_stop = 0;
	ck_assert_int_eq(pthread_create(&t, NULL, poller, NULL), 0);
	usleep(10000);
	ck_assert_int_eq(iwcm_destroy_qp(b.qp), 0);
	b.qp = NULL;
	usleep(10000);
	__atomic_store_n(&poll_stop, 1, __ATOMIC_RELEASE);
	ck_assert_int_eq(pthread_join(t, NULL), 0);
	pair_down();
}
END_TEST

/* System calls of this thread that found something: read(2) and
 * readv(2) that returned data, epoll_wait(2) that returned events; and
 * every read(2) and readv(2). */
static __thread unsigned long data_reads, ready_epolls, all_reads;

ssize_t read(int fd, void *buf, size_t n)
{
	static ssize_t (*real)(int, void *, size_t);
	ssize_t r;

	if (!real)
		real = (ssize_t(*)(int, void *, size_t))dlsym(RTLD_NEXT,
							      "read");
	r = real(fd, buf, n);
	all_reads++;
	if (r > 0)
		data_reads++;
	return r;
}

ssize_t readv(int fd, const struct iovec *iov, int n)
{
	static ssize_t (*real)(int, const struct iovec *, int);
	ssize_t r;

	if (!real)
		real = (ssize_t(*)(int, const struct iovec *,
				   int))dlsym(RTLD_NEXT, "readv");
	r = real(fd, iov, n);
	all_reads++;
	if (r > 0)
		data_reads++;
	return r;
}

int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	static int (*real)(int, struct epoll_event *, int, int);
	int r;

	if (!real)
		real = (int (*)(int, struct epoll_event *, int,
				int))dlsym(RTLD_NEXT, "epoll_wait");
	r = real(epfd, ev, max, timeout);
	if (r > 0)
		ready_epolls++;
	return r;
}

/* An 8 KiB Send arrives whole in the receiver's socket (loopback); the
 * receiver's poll takes it with one read(2), headers and payload (two
 * before the read-ahead covered such a message), and without asking an
 * epoll set first: each CQ here has one QP, whose socket the poll reads
 * directly (two system calls per message before). */
START_TEST(one_read_per_message)
{
	enum { N = 32, LEN = 8192 };
	static uint8_t src[LEN], dst[N][LEN];
	struct iwcm_mr *smr, *dmr;
	unsigned long reads, epolls;

	pair_up("1000000");
	b_to_foreground();
	smr = dp_reg(&a, src, sizeof(src), IWCM_ACCESS_LOCAL_WRITE);
	dmr = dp_reg(&b, dst, sizeof(dst), IWCM_ACCESS_LOCAL_WRITE);
	for (int i = 0; i < N; i++)
		dp_post_recv(b.qp, 1000 + i, dmr, dst[i], LEN);
	data_reads = ready_epolls = 0;
	for (int i = 0; i < N; i++) {
		struct iwcm_send_wr wr;
		struct iwcm_sge sge;

		memset(src, 0x40 + i, LEN);
		dp_wr(&wr, &sge, IWCM_WR_SEND, 1000 + i, smr, src, LEN);
		dp_post_send(a.qp, &wr);
		dp_wc_ok(a.scq, 1000 + i, IWCM_WC_SEND);
		ck_assert_uint_eq(dp_wc_ok(b.rcq, 1000 + i, IWCM_WC_RECV), LEN);
	}
	reads = data_reads;
	epolls = ready_epolls;
	for (int i = 0; i < N; i++) {
		memset(src, 0x40 + i, LEN);
		ck_assert_int_eq(memcmp(src, dst[i], LEN), 0);
	}
	ck_assert_msg(reads >= N / 2 && reads <= N + 2,
		      "%lu reads for %d messages", reads, N);
	ck_assert_msg(epolls == 0, "%lu epoll_wait(2) found the socket ready",
		      epolls);
	ck_assert_int_eq(iwcm_dereg_mr(smr), 0);
	ck_assert_int_eq(iwcm_dereg_mr(dmr), 0);
	pair_down();
}
END_TEST

/*
 * The poll that follows iwcm_req_notify_cq() only looks at the ring,
 * even with a Send in the socket: the channel's descriptor is readable
 * for it and the event's wait moves it.  The next poll reads again.  An
 * event loop (poll, arm, poll, sleep, take) makes one read(2) that finds
 * nothing per message, not two.
 */
START_TEST(arm_poll_leaves_socket)
{
	enum { N = 16 };
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_cq *cq;
	struct iwcm_wc wc;
	void *cctx;
	int fd;

	pair_up("1000000");
	b_to_foreground();
	fd = iwcm_comp_channel_get_fd(b.ch);
	dp_post_recv(b.qp, 1, bmr, bbuf, 64);
	dp_wr(&wr, &sge, IWCM_WR_SEND, 1, amr, abuf, 8);
	dp_post_send(a.qp, &wr);
	dp_wc_ok(a.scq, 1, IWCM_WC_SEND);
	ck_assert_int_eq(iwcm_req_notify_cq(b.rcq, 0), 0);
	all_reads = 0;
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 0);
	ck_assert_uint_eq(all_reads, 0);
	{
		struct pollfd p = { fd, POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, DP_TIMEOUT_MS), 1);
	}
	ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, b.rcq);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 1);
	/* armed, then polled twice: the second poll reads */
	ck_assert_int_eq(iwcm_req_notify_cq(b.rcq, 0), 0);
	all_reads = 0;
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 0);
	ck_assert_uint_eq(all_reads, 0);
	ck_assert_int_eq(iwcm_poll_cq(b.rcq, 1, &wc), 0);
	ck_assert_uint_eq(all_reads, 1);
	/* the event loop of a receiver, N messages */
	all_reads = data_reads = 0;
	for (int i = 0; i < N; i++) {
		int k;

		dp_post_recv(b.qp, 10 + i, bmr, bbuf, 64);
		while ((k = iwcm_poll_cq(b.rcq, 1, &wc)) == 0) {
			/* the Send arrives while b is armed */
			if (i % 2 == 0) {
				dp_wr(&wr, &sge, IWCM_WR_SEND, 10 + i, amr,
				      abuf, 8);
				dp_post_send(a.qp, &wr);
			}
			ck_assert_int_eq(iwcm_req_notify_cq(b.rcq, 0), 0);
			if ((k = iwcm_poll_cq(b.rcq, 1, &wc)) != 0)
				break;
			if (i % 2) {
				dp_wr(&wr, &sge, IWCM_WR_SEND, 10 + i, amr,
				      abuf, 8);
				dp_post_send(a.qp, &wr);
			}
			ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx),
					 0);
			iwcm_ack_cq_events(cq, 1);
		}
		ck_assert_int_eq(k, 1);
		ck_assert_uint_eq(wc.wr_id, 10 + i);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		dp_wc_ok(a.scq, 10 + i, IWCM_WC_SEND);
	}
	ck_assert_msg(all_reads - data_reads <= N + 1,
		      "%lu reads found nothing in %d messages",
		      all_reads - data_reads, N);
	pair_down();
}
END_TEST

static Suite *cprog_suite(void)
{
	Suite *s = suite_create("cprog");

	add_loop_tcase(s, "idle_parse", idle_parse, ARRAY_SIZE(idle_cases));
	add_tcase(s, "idle_env_refused", idle_env_refused);
	add_tcase(s, "poll_moves_data", poll_moves_data);
	add_tcase(s, "channel_fd_socket", channel_fd_socket);
	add_tcase(s, "blocking_event", blocking_event);
	add_tcase(s, "one_sided_fallback", one_sided_fallback);
	add_tcase(s, "dereg_waits_alone", dereg_waits_alone);
	add_tcase(s, "destroy_while_polling", destroy_while_polling);
	add_tcase(s, "one_read_per_message", one_read_per_message);
	add_tcase(s, "arm_poll_leaves_socket", arm_poll_leaves_socket);
	return s;
}

TEST_MAIN(cprog_suite)
