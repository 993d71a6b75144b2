/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_INTEG_HS_H
#define IWCM_TESTS_INTEG_HS_H

/*
 * One iwcmd (harness H), a libiwcm context listening on 127.0.0.1 as the
 * ULP, and raw MPA peers: the shared part of check_integ_hostile.c and
 * check_integ_flood.c (one translation unit each includes it).
 */
#include "common.h"
#include "integ_util.h"
#include <iwcm/iwcm.h>

static struct harness H;
static struct iwcm_ctx *ctx;
static struct iwcm_listener *lis;
static uint16_t port;
static int fds_base;

static void hs_teardown(void)
{
	int st;

	if (ctx)
		iwcm_ctx_close(ctx);
	ctx = NULL;
	lis = NULL;
	st = harness_stop(&H);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "iwcmd log:\n%s\n", harness_log(&H));
	harness_cleanup(&H);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "iwcmd did not exit 0 (status 0x%x)", st);
}

static int sa_port(const struct sockaddr *sa)
{
	return sa && sa->sa_family == AF_INET ?
		       ntohs(((const struct sockaddr_in *)sa)->sin_port) :
		       -1;
}

static int fd_port(int fd)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	return ntohs(sin.sin_port);
}

/* A libiwcm context listening on 127.0.0.1 (the ULP of the tests). */
static void hs_listen(void)
{
	struct sockaddr_in sin;

	ctx = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	ck_assert_msg(ctx != NULL, "context: %s", strerror(errno));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lis = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_msg(lis != NULL, "listen: %s", strerror(errno));
	port = (uint16_t)iwcm_listener_get_port(lis);
}

/* iwcm_conn_query() of every group; the test fails if it fails. */
static struct iwcm_conn_attr qa(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	ck_assert_msg(iwcm_conn_query(c, &a) == 0, "iwcm_conn_query: %s",
		      strerror(errno));
	return a;
}

/* The next event of ctx, of type; its connection. */
static struct iwcm_conn *hs_event(int type)
{
	long long end = harness_ms() + INTEG_TIMEOUT_MS;
	struct iwcm_event *ev = NULL;
	struct iwcm_conn *c;
	int t;

	while (iwcm_get_event(ctx, &ev) < 0) {
		struct pollfd p = { iwcm_ctx_get_fd(ctx), POLLIN, 0 };
		long long left = end - harness_ms();

		ck_assert_int_eq(errno, EAGAIN);
		ck_assert_msg(left > 0, "no %s event: %s",
			      iwcm_cm_event_str(type), harness_log(&H));
		poll(&p, 1, (int)left);
	}
	t = iwcm_event_get_type(ev);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert_msg(t == type, "event %s (%s), not %s", iwcm_cm_event_str(t),
		      qa(c).reason_text ? qa(c).reason_text : "",
		      iwcm_cm_event_str(type));
	return c;
}

/* The CONNECT_REQUEST of the raw peer on fd. */
static struct iwcm_conn *hs_request(int fd)
{
	struct iwcm_conn *c = hs_event(IWCM_CM_EVENT_CONNECT_REQUEST);
	const struct iwcm_conn_attr a = qa(c);

	ck_assert_int_eq(sa_port((const struct sockaddr *)&a.peer_addr),
			 fd_port(fd));
	return c;
}

/* An RFC 6581 enhanced frame with C=1 and the given private data. */
static struct mpa_frame hs_frame(enum mpa_frame_type t, bool p2p, uint8_t rtr,
				 const char *pd)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = t;
	f.rev = MPA_REV_2;
	f.flags = MPA_FLAG_C;
	f.enhanced = true;
	f.enh.p2p = p2p;
	f.enh.rtr = rtr;
	f.enh.ird = 8;
	f.enh.ord = 8;
	f.ulp_pd = (const uint8_t *)pd;
	f.ulp_pd_len = (uint16_t)strlen(pd);
	return f;
}

/* A raw peer that has sent a good client-server Request. */
static int hs_peer_request(const char *pd)
{
	struct mpa_frame req = hs_frame(MPA_FRAME_REQ, false, 0, pd);
	int fd = integ_tcp_connect(port);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(integ_send_frame(fd, &req), 0);
	return fd;
}

/* Accept c; the peer on fd reads an accepting Reply; ESTABLISHED. */
static void hs_finish(int fd, struct iwcm_conn *c)
{
	uint8_t raw[MPA_FRAME_MAX];
	struct mpa_frame rep;
	struct iwcm_conn *e;
	char b = 0;

	ck_assert_int_eq(iwcm_accept(c, NULL), 0);
	ck_assert_int_eq(integ_read_frame(fd, raw, &rep), 0);
	ck_assert_int_eq(rep.type, MPA_FRAME_REP);
	ck_assert(!(rep.flags & MPA_FLAG_R) && rep.enhanced);
	e = hs_event(IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(e, c);
	/* the socket is the connection */
	ck_assert_int_eq(integ_write(fd, "!", 1), 0);
	ck_assert_int_eq(integ_read(iwcm_conn_get_fd(c), &b, 1,
				    INTEG_TIMEOUT_MS, NULL),
			 0);
	ck_assert_int_eq(b, '!');
	iwcm_conn_free(c);
	close(fd);
}

/* A good handshake from TCP connect to ESTABLISHED; its milliseconds. */
static long long hs_good(void)
{
	long long t0 = harness_ms(), t;
	int fd = hs_peer_request("good");

	hs_finish(fd, hs_request(fd));
	t = harness_ms() - t0;
	return t;
}

/*
 * The daemon's fd count once it has settled: a peer the test just closed
 * (the readiness probe, an admin query) is closed by iwcmd a moment later,
 * so take the count only when three reads 20 ms apart agree.
 */
static int hs_fds_settled(void)
{
	long long end = harness_ms() + 2000;
	int a = integ_fds(H.pid), b = -2, c = -3;

	while (harness_ms() < end) {
		poll(NULL, 0, 20);
		c = b;
		b = a;
		a = integ_fds(H.pid);
		if (a == b && b == c)
			break;
	}
	return a;
}

/* Nothing left in the daemon: no connection, the fds it started with. */
static void hs_all_freed(int listeners)
{
	long long end = harness_ms() + 2000;
	int n;

	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_CONNS, 0, 2000), 0);
	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_LISTENERS, listeners,
					   2000),
			 listeners);
	while ((n = integ_fds(H.pid)) != fds_base && harness_ms() < end)
		poll(NULL, 0, 10);
	ck_assert_msg(n == fds_base, "iwcmd has %d fds, started with %d", n,
		      fds_base);
}

#endif
