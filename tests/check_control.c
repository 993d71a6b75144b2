/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * control.c in-process, on a loop with main.c's priorities: when a
 * request's reply and the events it raised reach the client.  Messages
 * wait until the loop has nothing else ready and then go together (a
 * descriptor given to control_send_fd() without a dup in the daemon);
 * IPC_SEND_BATCH of them go at once; a loop that stays busy still
 * flushes within about a millisecond; a client closed meanwhile still
 * gets the reply; a full socket keeps everything, in order, for later.
 */
#include "config.h"

#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#include "iwcm.pb-c.h"
#include "iwcmd.h"

/* main.c's globals */
struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

static char dir[64], path[128], admin[128];
static int peer = -1;	  /* the client's end */
static struct client *cl; /* the daemon's */
static struct ipc_msg msg;
static int n_gone;

static void h_request(struct client *c, struct ipc_msg *m)
{
	(void)c;
	(void)m;
}

static void h_gone(struct client *c)
{
	(void)c;
	n_gone++;
}

static const struct control_handlers handlers = {
	.client = h_request,
	.admin = h_request,
	.gone = h_gone,
};

static void setup(void)
{
	struct ucred cred = { getpid(), getuid(), getgid() };
	static uint64_t next_id = 1;
	int sv[2];

	iwcmd_base = control_base_new();
	ck_assert_ptr_nonnull(iwcmd_base);
	control_flush_late_us = 1000;
	snprintf(dir, sizeof(dir), "/tmp/iwcm-control.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/iwcmd.sock", dir);
	control_admin_path(path, admin, sizeof(admin));
	ck_assert_int_eq(control_init(path, -1, admin, -1, &handlers), 0);
	ck_assert_int_eq(socketpair(AF_UNIX,
				    SOCK_SEQPACKET | SOCK_NONBLOCK |
					    SOCK_CLOEXEC,
				    0, sv),
			 0);
	peer = sv[0];
	ck_assert_int_eq(control_peer_new(sv[1], false, &cred), 0);
	cl = control_find(next_id++);
	ck_assert_ptr_nonnull(cl);
	n_gone = 0;
}

static void teardown(void)
{
	control_shutdown();
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	close(peer);
	peer = -1;
	unlink(path);
	unlink(admin);
	rmdir(dir);
	event_base_free(iwcmd_base);
	iwcmd_base = NULL;
}

/* What the client has now: the type of the next message, or 0. */
static uint16_t next_type(void)
{
	if (ipc_recv(peer, &msg, true) != 1)
		return 0;
	return msg.hdr.type;
}

static int ack(uint32_t reqid)
{
	Iwcm__Ack a = IWCM__ACK__INIT;

	a.result = IWCM__RESULT__RES_OK;
	return control_reply(cl, IPC_CLIENT_ACK, reqid, &a.base);
}

static int event(uint64_t id, int fd)
{
	Iwcm__Established e = IWCM__ESTABLISHED__INIT;

	e.conn_id = id;
	return control_send(cl, IPC_EVENT_ESTABLISHED, 0, &e.base, fd);
}

/* The same, giving fd to the daemon (the handoff's way). */
static int event_fd(uint64_t id, int fd)
{
	Iwcm__Established e = IWCM__ESTABLISHED__INIT;

	e.conn_id = id;
	return control_send_fd(cl, IPC_EVENT_ESTABLISHED, 0, &e.base, fd);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + (uint64_t)ts.tv_nsec / 1000;
}

/* Descriptors open in this process. */
static int open_fds(void)
{
	int fd, n = 0;

	for (fd = 0; fd < 1024; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			n++;
	return n;
}

START_TEST(test_reply_waits_for_the_pass)
{
	setup();
	control_cork(cl);
	ck_assert_int_eq(ack(7), 0);
	/* nothing yet: the pass may raise an event to go with it */
	ck_assert_uint_eq(next_type(), 0);
	ck_assert_int_eq(errno, EAGAIN);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(next_type(), IPC_CLIENT_ACK);
	ck_assert_uint_eq(msg.hdr.reqid, 7);
	ck_assert_uint_eq(next_type(), 0);
	/* an event waits for the loop too */
	ck_assert_int_eq(event(3, -1), 0);
	ck_assert_uint_eq(next_type(), 0);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(next_type(), IPC_EVENT_ESTABLISHED);
	teardown();
}
END_TEST

START_TEST(test_event_joins_the_reply)
{
	struct stat a, b;
	int sv[2], given, before;

	setup();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	control_cork(cl);
	ck_assert_int_eq(ack(8), 0);
	given = dup(sv[0]);
	ck_assert_int_ge(given, 0);
	before = open_fds();
	ck_assert_int_eq(event_fd(9, given), 0);
	/* queued as given: the daemon made no copy of the descriptor */
	ck_assert_int_eq(open_fds(), before);
	ck_assert_uint_eq(next_type(), 0);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	/* sent, and the daemon's copy closed */
	ck_assert_int_eq(open_fds(), before - 1);
	ck_assert_int_eq(fcntl(given, F_GETFD), -1);
	/* the reply first, then the event with its socket */
	ck_assert_uint_eq(next_type(), IPC_CLIENT_ACK);
	ck_assert_uint_eq(msg.hdr.reqid, 8);
	ck_assert_int_eq(msg.fd, -1);
	ck_assert_uint_eq(next_type(), IPC_EVENT_ESTABLISHED);
	ck_assert_int_ge(msg.fd, 0);
	ck_assert_int_eq(fstat(msg.fd, &a), 0);
	ck_assert_int_eq(fstat(sv[0], &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	close(msg.fd);
	/* control_send() sends a copy, and closes it once sent */
	before = open_fds();
	ck_assert_int_eq(event(10, sv[0]), 0);
	ck_assert_int_eq(open_fds(), before + 1);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	ck_assert_int_eq(open_fds(), before);
	ck_assert_uint_eq(next_type(), IPC_EVENT_ESTABLISHED);
	ck_assert_int_ge(msg.fd, 0);
	close(msg.fd);
	ck_assert_uint_eq(next_type(), 0);
	close(sv[0]);
	close(sv[1]);
	teardown();
}
END_TEST

/*
 * A busy spell of the loop: a pipe that is always readable, as a peer
 * that keeps sending, wakes a callback in every pass until it stops;
 * each time the callback sends an event and finds nothing at the client.
 */
struct spell {
	int pipe[2];
	struct event *ev;
	int left, sent, seen_early;
};

static void spell_cb(evutil_socket_t fd, short what, void *arg)
{
	struct spell *sp = arg;

	(void)fd;
	(void)what;
	if (next_type() != 0)
		sp->seen_early++;
	ck_assert_int_eq(event(200 + (uint64_t)sp->sent, -1), 0);
	sp->sent++;
	if (--sp->left == 0)
		event_del(sp->ev);
}

static void spell_start(struct spell *sp, int n, event_callback_fn cb)
{
	memset(sp, 0, sizeof(*sp));
	sp->left = n;
	ck_assert_int_eq(pipe(sp->pipe), 0);
	ck_assert_int_eq(write(sp->pipe[1], "x", 1), 1);
	sp->ev = event_new(iwcmd_base, sp->pipe[0], EV_READ | EV_PERSIST, cb,
			   sp);
	ck_assert_ptr_nonnull(sp->ev);
	ck_assert_int_eq(event_add(sp->ev, NULL), 0);
}

static void spell_end(struct spell *sp)
{
	event_free(sp->ev);
	close(sp->pipe[0]);
	close(sp->pipe[1]);
}

START_TEST(test_idle_flush)
{
	struct spell sp;
	int got = 0;

	setup();
	/* a spell of 10 passes, however slow: the late flush out of it */
	control_flush_late_us = 10000000;
	spell_start(&sp, 10, spell_cb);
	/* one pass per callback, until nothing is left to do */
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK | EVLOOP_ONCE);
	ck_assert_int_eq(sp.sent, 10);
	/* nothing went while the loop had work ... */
	ck_assert_int_eq(sp.seen_early, 0);
	/* ... and all 10 went once it was idle */
	while (next_type() == IPC_EVENT_ESTABLISHED)
		got++;
	ck_assert_int_eq(got, 10);
	spell_end(&sp);
	teardown();
}
END_TEST

START_TEST(test_full_batch_goes_at_once)
{
	int i, got = 0;

	setup();
	for (i = 0; i < IPC_SEND_BATCH - 1; i++)
		ck_assert_int_eq(event(300 + (uint64_t)i, -1), 0);
	ck_assert_uint_eq(next_type(), 0);
	/* the IPC_SEND_BATCH-th does not wait for the loop */
	ck_assert_int_eq(event(399, -1), 0);
	while (next_type() == IPC_EVENT_ESTABLISHED)
		got++;
	ck_assert_int_eq(got, IPC_SEND_BATCH);
	teardown();
}
END_TEST

/* A loop that never runs out of work (the always readable pipe): it
 * runs until the event reached the client, or 5 s passed. */
static uint64_t busy_t0, busy_seen;
static unsigned int busy_passes;

static void busy_cb(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	if (next_type() == IPC_EVENT_ESTABLISHED) {
		busy_seen = now_us();
		event_base_loopbreak(iwcmd_base);
		return;
	}
	busy_passes++;
	if (now_us() - busy_t0 > 5000000) {
		event_base_loopbreak(iwcmd_base);
	}
}

START_TEST(test_busy_loop_flushes_late)
{
	struct spell sp;

	setup();
	spell_start(&sp, 0, busy_cb);
	busy_seen = 0;
	busy_passes = 0;
	busy_t0 = now_us();
	ck_assert_int_eq(event(400, -1), 0);
	event_base_loop(iwcmd_base, 0);
	/* not at once, but while the loop was still busy: the late timer
	 * (1 ms on libevent's coarse clock: 0 to 5 ms here) sent it, not
	 * the 5 s bound */
	ck_assert_uint_ge(busy_passes, 1);
	ck_assert_uint_ne(busy_seen, 0);
	ck_assert_uint_lt(busy_seen - busy_t0, 1000000);
	spell_end(&sp);
	teardown();
}
END_TEST

START_TEST(test_close_keeps_the_reply)
{
	setup();
	control_cork(cl);
	ck_assert_int_eq(ack(10), 0);
	control_close(cl, NULL);
	ck_assert_int_eq(n_gone, 1);
	ck_assert_uint_eq(next_type(), IPC_CLIENT_ACK);
	ck_assert_uint_eq(msg.hdr.reqid, 10);
	ck_assert_int_eq(ipc_recv(peer, &msg, true), 0); /* then EOF */
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	teardown();
}
END_TEST

START_TEST(test_full_socket_keeps_order)
{
	uint32_t i, n = 50, got = 0;
	int small = 4096;

	setup();
	/* a small send buffer: most of the 50 events wait in the queue */
	ck_assert_int_eq(setsockopt(cl->fd, SOL_SOCKET, SO_SNDBUF, &small,
				    sizeof(small)),
			 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(event(100 + i, -1), 0);
	control_cork(cl);
	ck_assert_int_eq(event(5000, -1), 0); /* held behind the cork */
	ck_assert_int_eq(ack(11), 0);
	ck_assert_int_eq(event(5001, -1), 0);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	/* the client reads; the daemon writes the rest as room comes */
	for (i = 0; i < 100000 && got < n + 3; i++) {
		uint16_t t = next_type();

		if (!t) {
			event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
			continue;
		}
		if (got < n) {
			ck_assert_uint_eq(t, IPC_EVENT_ESTABLISHED);
		} else if (got == n) {
			/* the reply goes ahead of what its request raised */
			ck_assert_uint_eq(t, IPC_CLIENT_ACK);
			ck_assert_uint_eq(msg.hdr.reqid, 11);
		} else {
			ck_assert_uint_eq(t, IPC_EVENT_ESTABLISHED);
		}
		got++;
	}
	ck_assert_uint_eq(got, n + 3);
	ck_assert_uint_eq(control_client_count(), 1);
	teardown();
}
END_TEST

static Suite *control_suite(void)
{
	Suite *s = suite_create("control");
	TCase *tc = tcase_create("flush");

	tcase_add_test(tc, test_reply_waits_for_the_pass);
	tcase_add_test(tc, test_event_joins_the_reply);
	tcase_add_test(tc, test_idle_flush);
	tcase_add_test(tc, test_full_batch_goes_at_once);
	tcase_add_test(tc, test_busy_loop_flushes_late);
	tcase_add_test(tc, test_close_keeps_the_reply);
	tcase_add_test(tc, test_full_socket_keeps_order);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(control_suite)
