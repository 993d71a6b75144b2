/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * control.c in-process: when a request's reply and the events it raised
 * reach the client.  The reply waits for the end of the loop pass; an
 * event sent meanwhile goes with it in one batch (its descriptor without
 * a dup in the daemon); a client closed meanwhile still gets the reply;
 * a full socket keeps everything, in order, for later.
 */
#include "config.h"

#include <fcntl.h>
#include <poll.h>
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

	iwcmd_base = event_base_new();
	ck_assert_ptr_nonnull(iwcmd_base);
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
	/* with no reply waiting, a message goes at once */
	ck_assert_int_eq(event(3, -1), 0);
	ck_assert_uint_eq(next_type(), IPC_EVENT_ESTABLISHED);
	teardown();
}
END_TEST

START_TEST(test_event_joins_the_reply)
{
	struct stat a, b;
	int sv[2], before;

	setup();
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	control_cork(cl);
	ck_assert_int_eq(ack(8), 0);
	before = open_fds();
	ck_assert_int_eq(event(9, sv[0]), 0);
	/* sent, not queued: the daemon kept no copy of the descriptor */
	ck_assert_int_eq(open_fds(), before);
	/* both there before the loop ran, the reply first */
	ck_assert_uint_eq(next_type(), IPC_CLIENT_ACK);
	ck_assert_uint_eq(msg.hdr.reqid, 8);
	ck_assert_int_eq(msg.fd, -1);
	ck_assert_uint_eq(next_type(), IPC_EVENT_ESTABLISHED);
	ck_assert_int_ge(msg.fd, 0);
	ck_assert_int_eq(fstat(msg.fd, &a), 0);
	ck_assert_int_eq(fstat(sv[0], &b), 0);
	ck_assert_uint_eq(a.st_ino, b.st_ino);
	close(msg.fd);
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	ck_assert_uint_eq(next_type(), 0);
	close(sv[0]);
	close(sv[1]);
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
	tcase_add_test(tc, test_close_keeps_the_reply);
	tcase_add_test(tc, test_full_socket_keeps_order);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(control_suite)
