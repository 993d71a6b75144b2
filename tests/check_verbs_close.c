/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Closing a libiwcm QP within bounds: the disconnect timeout against a peer
 * that never reads or closes, a graceful close, a slow poller, the
 * attribute; the receives queued at creation; then completion event
 * acknowledgement, the multi-SGE RDMA Read limit and misuse of the verbs.
 */
#include "config.h"

#include "verbs_pair.h"

/* ---- bounded close ---- */

/* An async event of e within ms, driving e's progress; false if none. */
static bool async_within(struct end *e, int ms, struct iwcm_async_event *ev)
{
	int64_t end = now_ms() + ms;
	struct pollfd pfd = { iwcm_ctx_get_async_fd(e->ctx), POLLIN, 0 };

	for (;;) {
		if (poll(&pfd, 1, 0) == 1) {
			ck_assert_int_eq(iwcm_get_async_event(e->ctx, ev), 0);
			return true;
		}
		if (now_ms() >= end)
			return false;
		if (manual)
			ck_assert_int_ge(iwcm_progress(e->ctx, 1), 0);
		else
			usleep(1000);
	}
}

/* Drive e's progress until fd is closed (at most ms); true if it was. */
static bool fd_closed_within(struct end *e, int fd, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		if (fcntl(fd, F_GETFD) < 0 && errno == EBADF)
			return true;
		if (now_ms() >= end)
			return false;
		if (manual)
			ck_assert_int_ge(iwcm_progress(e->ctx, 1), 0);
		else
			usleep(1000);
	}
}

/* Read the raw end until EOF or an error: 0 on EOF, else the errno. */
static int drain_peer(int fd)
{
	static uint8_t sink[65536];
	int64_t end = now_ms() + 10000;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t n;

		ck_assert_msg(now_ms() < end, "the peer saw no close");
		if (poll(&p, 1, 100) < 1)
			continue;
		n = read(fd, sink, sizeof(sink));
		if (n == 0)
			return 0;
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return errno;
	}
}

/* A library end on sv[0] facing the raw socket sv[1] (returned). */
static int end_raw_peer(struct end *a, bool tcp, uint32_t timeout_ms,
			int *lib_fd)
{
	struct iwcm_synth s;
	int sv[2];

	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.crc = 1;
	s.ird = s.ord = 8;
	s.initiator = 1;
	if (tcp) {
		struct sockaddr_in sin;
		socklen_t len = sizeof(sin);
		int lfd = socket(AF_INET, SOCK_STREAM, 0);

		ck_assert_int_ge(lfd, 0);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(
			bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
		ck_assert_int_eq(listen(lfd, 1), 0);
		ck_assert_int_eq(
			getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
		sv[0] = socket(AF_INET, SOCK_STREAM, 0);
		ck_assert_int_ge(sv[0], 0);
		ck_assert_int_eq(connect(sv[0], (struct sockaddr *)&sin,
					 sizeof(sin)),
				 0);
		sv[1] = accept(lfd, NULL, NULL);
		ck_assert_int_ge(sv[1], 0);
		close(lfd);
	} else {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	}
	/* Small buffers: a large Send cannot hide in them. */
	{
		int sz = 65536;

		setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(sv[1], SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
	}
	*lib_fd = sv[0];
	disc_timeout = timeout_ms;
	end_up(a, sv[0], &s);
	disc_timeout = 0;
	return sv[1];
}

/* The raw TCP end saw the reset: its connection is closed, where a FIN
 * alone would leave it in CLOSE_WAIT or ESTABLISHED. */
static bool tcp_reset_within(int fd, int ms)
{
	int64_t end = now_ms() + ms;

	for (;;) {
		struct tcp_info ti;
		socklen_t len = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		ck_assert_int_eq(
			getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len), 0);
		if (ti.tcpi_state == TCP_CLOSE)
			return true;
		if (now_ms() >= end)
			return false;
		usleep(1000);
	}
}

/*
 * A peer that never closes: 200 ms after iwcm_qp_disconnect() the QP is
 * in error, what it held is flushed, IWCM_EVENT_QP_FATAL names RFC 5044
 * §8 code 1 and the socket is closed with a reset.  Bit 0: manual
 * progress; bit 1: TCP; then what holds the close: 0, a Read the peer
 * never answers (no FIN can be sent); 1, a Send larger than both socket
 * buffers the peer never reads; 2, nothing (our FIN went out, the peer
 * never sends its own).
 */
START_TEST(test_disconnect_timeout)
{
	bool tcp = _i & 2;
	int flavour = _i >> 2;
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_qp_attr qa;
	struct iwcm_wc wc;
	struct end a;
	int peer, lib_fd, got = 0, want = flavour == 2 ? 2 : 6;
	int64_t t0, dt;

	manual = _i & 1;
	peer = end_raw_peer(&a, tcp, 200, &lib_fd);
	memset(&qa, 0, sizeof(qa));
	qa.comp_mask = IWCM_QP_ATTR_ALL;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert(qa.comp_mask & IWCM_QP_ATTR_DISCONNECT_TIMEOUT);
	ck_assert_uint_eq(qa.disconnect_timeout_ms, 200);
	post_recv(&a, 1, 0, 64);
	if (flavour == 0) {
		wr = wr_of(IWCM_WR_RDMA_READ, 2);
		wr.wr.rdma.remote_addr = 0x10000;
		wr.wr.rdma.rkey = 0x1234;
		post(&a, &wr, 0, 100);
	} else if (flavour == 1) {
		wr = wr_of(IWCM_WR_SEND, 2);
		post(&a, &wr, 0, BUF_LEN);
	}
	t0 = now_ms();
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	if (manual) {
		/* A long wait of iwcm_progress() ends when the timer is
		 * due, not after 5 s. */
		while (iwcm_progress(a.ctx, 5000) == 0)
			ck_assert_msg(now_ms() - t0 < 4000,
				      "iwcm_progress() missed the timer");
	}
	ck_assert_msg(async_within(&a, 10000, &ev), "no event");
	dt = now_ms() - t0;
	/* Never before the bound; long before a stuck close would end. */
	ck_assert_msg(dt >= 150 && dt < 8000, "closed after %lld ms",
		      (long long)dt);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_ptr_eq(ev.qp, a.qp);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_LLP);
	ck_assert_uint_eq(ev.term_etype, MPA_ETYPE_MPA);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_CLOSED);
	memset(&qa, 0, sizeof(qa));
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.state, IWCM_QPS_ERROR);
	/* Flushed: the receive, and the Read awaiting its response or the
	 * Send half written. */
	while (got != want) {
		wc = wait_wc(&a, NULL);
		ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		ck_assert_ptr_eq(wc.qp, a.qp);
		if (wc.wr_id == 1)
			ck_assert_int_eq(wc.opcode, IWCM_WC_RECV);
		else
			ck_assert_int_eq(wc.opcode, flavour == 1 ?
							    IWCM_WC_SEND :
							    IWCM_WC_RDMA_READ);
		ck_assert_uint_le(wc.wr_id, 2);
		ck_assert(!(got & 1 << wc.wr_id));
		got |= 1 << wc.wr_id;
	}
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	/* The library's socket is closed, abortively (RFC 5040 §6.2 LLP
	 * Abortive Termination): a TCP peer's connection is reset. */
	ck_assert(fd_closed_within(&a, lib_fd, 5000));
	if (tcp) {
		ck_assert(tcp_reset_within(peer, 5000));
		if (flavour != 2)
			ck_assert_int_eq(drain_peer(peer), ECONNRESET);
	} else {
		ck_assert_int_eq(drain_peer(peer), 0);
	}
	/* In error now: posting flushes, disconnecting again is a no-op,
	 * and nothing else is reported. */
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&a, &wr, 0, 8);
	wc = wait_wc(&a, NULL);
	ck_assert_uint_eq(wc.wr_id, 3);
	ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	ck_assert(!async_within(&a, 100, &ev));
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	close(peer);
	end_down(&a);
}
END_TEST

/* A peer that closes while the QP is closing: the graceful path, and the
 * timer that was running never fires.  Bit 0: manual, bit 1: TCP. */
START_TEST(test_disconnect_graceful_bounded)
{
	struct iwcm_async_event ev;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a;
	int peer, lib_fd;

	manual = _i & 1;
	peer = end_raw_peer(&a, _i & 2, 2000, &lib_fd);
	post_recv(&a, 1, 0, 64);
	wr = wr_of(IWCM_WR_SEND, 2);
	post(&a, &wr, 0, 1000);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	expect_wc(&a, NULL, 2, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	/* Our FIN comes after the Send; the peer answers with its own. */
	if (manual) {
		int64_t end = now_ms() + 5000;
		struct pollfd p = { peer, POLLIN, 0 };
		uint8_t buf[4096];

		/* Drive the library until its FIN is readable. */
		for (;;) {
			ssize_t n;

			ck_assert(now_ms() < end);
			iwcm_progress(a.ctx, 1);
			if (poll(&p, 1, 0) < 1)
				continue;
			n = read(peer, buf, sizeof(buf));
			if (n == 0)
				break;
			ck_assert_int_gt(n, 0);
		}
	} else {
		ck_assert_int_eq(drain_peer(peer), 0);
	}
	close(peer);
	ck_assert(async_within(&a, 5000, &ev));
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	expect_wc(&a, NULL, 1, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	/* Past the bound: no second event, the QP stays as it was. */
	ck_assert(!async_within(&a, 2300, &ev));
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	ck_assert_int_eq(fcntl(lib_fd, F_GETFD) >= 0, 1);
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	end_down(&a);
}
END_TEST

/*
 * Manual progress polled seldom with a zero timeout: the one call made
 * after the disconnect timeout is due fires it.  (iwcm_progress(ctx, 0)
 * reads a few QPs' sockets without the libuv loop most of the time; the
 * loop, and its timer, must run while a timer is armed.)
 */
START_TEST(test_disconnect_timeout_slow_poller)
{
	struct iwcm_async_event ev;
	struct iwcm_qp_attr qa;
	struct pollfd pfd;
	struct end a;
	int peer, lib_fd, i;

	manual = 1;
	peer = end_raw_peer(&a, false, 50, &lib_fd);
	/* Calls enough to be past the loop's own turn. */
	for (i = 0; i < 40; i++)
		ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	usleep(150 * 1000);
	ck_assert_int_ge(iwcm_progress(a.ctx, 0), 0);
	pfd = (struct pollfd){ iwcm_ctx_get_async_fd(a.ctx), POLLIN, 0 };
	ck_assert_int_eq(poll(&pfd, 1, 0), 1);
	ck_assert_int_eq(iwcm_get_async_event(a.ctx, &ev), 0);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_ecode, MPA_ECODE_CLOSED);
	memset(&qa, 0, sizeof(qa));
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.state, IWCM_QPS_ERROR);
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	close(peer);
	end_down(&a);
	manual = 0;
}
END_TEST

/* The disconnect timeout attribute: default, range, comp_mask. */
START_TEST(test_disconnect_timeout_attr)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx);
	struct iwcm_cq *cq = iwcm_create_cq(ctx, 16, NULL, NULL);
	struct iwcm_qp_init_attr ia;
	struct iwcm_qp_attr qa;
	struct iwcm_synth s;
	struct iwcm_conn *c;
	struct iwcm_qp *qp;
	static const uint32_t bad[] = { 0, 600001, UINT32_MAX };
	int sv[2];

	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.ird = s.ord = 1;
	s.initiator = 1;
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.max_send_wr = ia.max_recv_wr = 4;
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		close(sv[1]);
		c = iwcm_conn_synth(ctx, sv[0], &s);
		ck_assert_ptr_nonnull(c);
		/* An unknown comp_mask bit, then each bad value. */
		ia.comp_mask = 1u << 31;
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EINVAL);
		ia.comp_mask = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;
		ia.disconnect_timeout_ms = bad[i];
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EINVAL);
		/* The default without the bit, else the value given. */
		ia.comp_mask = i ? IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT : 0;
		ia.disconnect_timeout_ms = i == 1 ? 1 : 600000;
		qp = iwcm_create_qp(c, pd, &ia);
		ck_assert_ptr_nonnull(qp);
		/* The socket is the QP's now: no second QP. */
		ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
		ck_assert_int_eq(errno, EBADF);
		memset(&qa, 0xFF, sizeof(qa));
		qa.comp_mask = IWCM_QP_ATTR_ALL;
		ck_assert_int_eq(iwcm_query_qp(qp, &qa), 0);
		ck_assert_uint_eq(qa.comp_mask,
				  IWCM_QP_ATTR_MAX_SGE_RD |
					  IWCM_QP_ATTR_DISCONNECT_TIMEOUT);
		ck_assert_uint_eq(qa.disconnect_timeout_ms, i == 0 ? 3000 :
							    i == 1 ? 1 :
								     600000);
		ck_assert_uint_eq(qa.max_sge_rd, 1);
		ck_assert_int_eq(iwcm_destroy_qp(qp), 0);
		iwcm_conn_free(c);
	}
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* IWCM_QP_INIT_ATTR_RECV_WR: the receives are on the queue when the QP
 * is returned, all or none; not with an SRQ, not more than the queue
 * holds, none that iwcm_post_recv() would refuse. */
START_TEST(test_recv_wr_attr)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(IWCM_CTX_MANUAL_PROGRESS);
	struct iwcm_pd *pd = iwcm_alloc_pd(ctx);
	struct iwcm_cq *cq = iwcm_create_cq(ctx, 16, NULL, NULL);
	struct iwcm_srq_init_attr sa = { .max_wr = 4, .max_sge = 1 };
	struct iwcm_srq *srq = iwcm_create_srq(pd, &sa);
	static uint8_t buf[5 * 64];
	struct iwcm_mr *mr =
		iwcm_reg_mr(pd, buf, sizeof(buf), IWCM_ACCESS_LOCAL_WRITE);
	struct iwcm_recv_wr rwr[5], *bad = NULL;
	struct iwcm_sge sge[5];
	struct iwcm_qp_init_attr ia;
	struct iwcm_synth s;
	struct iwcm_conn *c;
	struct iwcm_qp *qp;
	int sv[2];

	ck_assert_ptr_nonnull(srq);
	ck_assert_ptr_nonnull(mr);
	for (int k = 0; k < 5; k++) {
		sge[k].addr = (uint64_t)(uintptr_t)(buf + 64 * k);
		sge[k].length = 64;
		sge[k].lkey = iwcm_mr_get_stag(mr);
		memset(&rwr[k], 0, sizeof(rwr[k]));
		rwr[k].wr_id = (uint64_t)k;
		rwr[k].sg_list = &sge[k];
		rwr[k].num_sge = 1;
		rwr[k].next = k < 4 ? &rwr[k + 1] : NULL;
	}
	memset(&s, 0, sizeof(s));
	s.mpa_rev = 1;
	s.version = 1;
	s.ird = s.ord = 1;
	s.initiator = 1;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c = iwcm_conn_synth(ctx, sv[0], &s);
	ck_assert_ptr_nonnull(c);
	memset(&ia, 0, sizeof(ia));
	ia.send_cq = ia.recv_cq = cq;
	ia.max_send_wr = ia.max_recv_wr = 4;
	ia.comp_mask = IWCM_QP_INIT_ATTR_RECV_WR;
	ia.recv_wr = rwr;
	/* Five receives for a queue of four. */
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
	ck_assert_int_eq(errno, EINVAL);
	/* With a shared receive queue. */
	rwr[3].next = NULL;
	ia.srq = srq;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
	ck_assert_int_eq(errno, EINVAL);
	ia.srq = NULL;
	/* One the queue would refuse, among good ones. */
	rwr[2].num_sge = 2;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &ia));
	ck_assert_int_eq(errno, EINVAL);
	rwr[2].num_sge = 1;
	/* Four: the QP comes with a full receive queue. */
	qp = iwcm_create_qp(c, pd, &ia);
	ck_assert_ptr_nonnull(qp);
	rwr[4].next = NULL;
	ck_assert_int_eq(iwcm_post_recv(qp, &rwr[4], &bad), ENOMEM);
	ck_assert_ptr_eq(bad, &rwr[4]);
	ck_assert_int_eq(iwcm_destroy_qp(qp), 0);
	iwcm_conn_free(c);
	close(sv[1]);
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	ck_assert_int_eq(iwcm_destroy_srq(srq), 0);
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- completion event acknowledgement ---- */

/* ibv_ack_cq_events() semantics: a CQ whose events were taken but not
 * all acknowledged is not destroyed (EBUSY instead of ibv_destroy_cq()'s
 * wait); events not taken yet go with it. */
START_TEST(test_ack_cq_events)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_comp_channel *ch = iwcm_create_comp_channel(ctx);
	struct iwcm_cq *cq, *plain, *got;
	struct iwcm_wc wc;
	void *cctx;
	int fd;

	ck_assert_ptr_nonnull(ch);
	cq = iwcm_create_cq(ctx, 16, NULL, ch);
	plain = iwcm_create_cq(ctx, 16, NULL, NULL);
	ck_assert_ptr_nonnull(cq);
	ck_assert_ptr_nonnull(plain);
	fd = iwcm_comp_channel_get_fd(ch);
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	memset(&wc, 0, sizeof(wc));

	/* Three events taken: EBUSY until all three are acknowledged. */
	for (int i = 0; i < 3; i++) {
		ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
		ck_assert(dp_cq_push(cq, &wc));
		ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), 0);
		ck_assert_ptr_eq(got, cq);
	}
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 0);
	iwcm_ack_cq_events(cq, 2);
	/* Acknowledging more than was taken counts only those taken: the
	 * next event still needs its own acknowledgement. */
	iwcm_ack_cq_events(cq, 5);
	ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), 0);
	ck_assert_int_eq(iwcm_destroy_cq(cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	iwcm_ack_cq_events(cq, 1);
	/* An event queued but not taken does not hold the CQ. */
	ck_assert_int_eq(iwcm_req_notify_cq(cq, 0), 0);
	ck_assert(dp_cq_push(cq, &wc));
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_get_cq_event(ch, &got, &cctx), -1);
	ck_assert_int_eq(errno, EAGAIN);
	/* No channel, no event: nothing to acknowledge; NULL is ignored. */
	iwcm_ack_cq_events(plain, 3);
	iwcm_ack_cq_events(NULL, 1);
	ck_assert_int_eq(iwcm_destroy_cq(plain), 0);
	ck_assert_int_eq(iwcm_destroy_comp_channel(ch), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* ---- multi-SGE RDMA Read and other misuse ---- */

/* RFC 5040 §4.4: one Data Sink per Read Request, so max_sge_rd is 1 and a
 * Read with two local SGEs is refused before anything is posted. */
START_TEST(test_read_sge_limit)
{
	struct end a, b;
	struct iwcm_send_wr wr, wr2, *bad;
	struct iwcm_qp_attr qa;
	struct iwcm_sge sge[2];
	struct iwcm_wc wc;

	manual = _i;
	pair_default(&a, &b);
	memset(&qa, 0, sizeof(qa));
	qa.comp_mask = IWCM_QP_ATTR_ALL;
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert(qa.comp_mask & IWCM_QP_ATTR_MAX_SGE_RD);
	ck_assert_uint_eq(qa.max_sge_rd, 1);
	fill(b.buf + 8192, 200, 9);
	for (int i = 0; i < 2; i++) {
		sge[i].addr = (uint64_t)(uintptr_t)(a.buf + 1000 * i);
		sge[i].length = 100;
		sge[i].lkey = iwcm_mr_get_stag(a.mr);
	}
	/* A good Send first in the list: posted; the Read is bad_wr. */
	wr2 = wr_of(IWCM_WR_SEND, 1);
	wr2.sg_list = sge;
	wr2.num_sge = 1;
	wr = wr_of(IWCM_WR_RDMA_READ, 2);
	wr.sg_list = sge;
	wr.num_sge = 2;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(b.buf + 8192);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(b.mr);
	wr2.next = &wr;
	post_recv(&b, 10, 0, 200);
	bad = NULL;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr2, &bad), EINVAL);
	ck_assert_ptr_eq(bad, &wr);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	/* The same Read with max_sge_rd entries goes through. */
	wr.num_sge = 1;
	wr.wr_id = 3;
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	expect_wc(&a, &b, 3, IWCM_WC_SUCCESS, IWCM_WC_RDMA_READ);
	ck_assert(memcmp(a.buf, b.buf + 8192, 100) == 0);
	/* Nothing of the refused Read was sent or completed. */
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/*
 * Misuse that must stay well defined: freeing a PD or a CQ a live QP
 * uses (EBUSY), posting to a QP in error (flushed at once, also into a
 * full CQ: IWCM_EVENT_CQ_ERR), disconnecting it (a no-op).
 */
START_TEST(test_misuse)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_recv_wr rwr;
	struct iwcm_sge sge;
	struct iwcm_async_event ev;
	struct iwcm_wc wc;
	int n;

	manual = _i;
	cq_depth = 8;
	pair_default(&a, &b);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_destroy_cq(a.cq), -1);
	ck_assert_int_eq(errno, EBUSY);
	/* The peer goes away: a is in error. */
	end_down(&b);
	ev = wait_async(&a, NULL);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_PEER_CLOSED);
	ck_assert_int_eq(iwcm_qp_disconnect(a.qp), 0);
	/* A bad request is still refused, a good one flushed. */
	wr = wr_of(IWCM_WR_ATOMIC_SWAP + 1, 1);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), EINVAL);
	sge.addr = (uint64_t)(uintptr_t)a.buf;
	sge.length = 8;
	sge.lkey = iwcm_mr_get_stag(a.mr);
	memset(&rwr, 0, sizeof(rwr));
	rwr.wr_id = 2;
	rwr.next = NULL;
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	ck_assert_int_eq(iwcm_post_recv(a.qp, &rwr, NULL), 0);
	expect_wc(&a, NULL, 2, IWCM_WC_WR_FLUSH_ERR, IWCM_WC_RECV);
	/* Eight flushed Sends fill the CQ; the ninth is lost and says so,
	 * once. */
	for (int i = 0; i < 10; i++) {
		wr = wr_of(IWCM_WR_SEND, 10 + (uint64_t)i);
		post(&a, &wr, 0, 8);
	}
	ev = wait_async(&a, NULL);
	ck_assert_int_eq(ev.type, IWCM_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.cq, a.cq);
	for (n = 0; iwcm_poll_cq(a.cq, 1, &wc) == 1; n++) {
		ck_assert_uint_eq(wc.wr_id, 10 + (uint64_t)n);
		ck_assert_int_eq(wc.status, IWCM_WC_WR_FLUSH_ERR);
		ck_assert_int_eq(wc.opcode, IWCM_WC_SEND);
	}
	ck_assert_int_eq(n, 8);
	{
		struct pollfd p = { iwcm_ctx_get_async_fd(a.ctx), POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
	/* Once the QP is gone, the PD holds only the MR, the CQ nothing. */
	ck_assert_int_eq(iwcm_destroy_qp(a.qp), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), -1);
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_int_eq(iwcm_destroy_cq(a.cq), 0);
	ck_assert_int_eq(iwcm_dereg_mr(a.mr), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(a.pd), 0);
	end_down(&a);
}
END_TEST

static Suite *verbs_close_suite(void)
{
	Suite *s = suite_create("verbs_close");

	add_loop_tcase(s, "disconnect_timeout", test_disconnect_timeout, 12);
	add_loop_tcase(s, "disconnect_graceful_bounded",
		       test_disconnect_graceful_bounded, 4);
	add_tcase(s, "disconnect_timeout_attr", test_disconnect_timeout_attr);
	add_tcase(s, "disconnect_timeout_slow_poller",
		  test_disconnect_timeout_slow_poller);
	add_tcase(s, "ack_cq_events", test_ack_cq_events);
	add_loop_tcase(s, "read_sge_limit", test_read_sge_limit, 2);
	add_loop_tcase(s, "recv_wr_attr", test_recv_wr_attr, 1);
	add_loop_tcase(s, "misuse", test_misuse, 2);
	return s;
}

TEST_MAIN(verbs_close_suite)
