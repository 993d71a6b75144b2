/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The fuzz drivers' helpers (tests/fuzz/fuzz_util.h) where a harness
 * failed for a reason of its own: fz_connect() when a signal interrupts
 * a blocking loopback connect() (libFuzzer's timer: the engine harness
 * once aborted there, connect() having failed with EINTR), and the
 * one-poll() descriptor-leak scan.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/time.h>

#include "common.h"
#include "fuzz/fuzz_util.h"

#define ROUNDS 400

static void on_alarm(int sig)
{
	(void)sig;
}

/* SIGALRM every 20 us with no SA_RESTART: libFuzzer's way, faster. */
static void alarm_start(bool on)
{
	struct itimerval it = { { 0, on ? 20 : 0 }, { 0, on ? 20 : 0 } };
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	ck_assert(sigaction(SIGALRM, &sa, NULL) == 0);
	ck_assert(setitimer(ITIMER_REAL, &it, NULL) == 0);
}

static int lo_listen(struct sockaddr_in *sin)
{
	socklen_t len = sizeof(*sin);
	int fd;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert(bind(fd, (struct sockaddr *)sin, sizeof(*sin)) == 0);
	ck_assert(listen(fd, 64) == 0);
	ck_assert(getsockname(fd, (struct sockaddr *)sin, &len) == 0);
	return fd;
}

static void close_rst(int fd)
{
	struct linger lg = { 1, 0 };

	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* Every connection is made, however often the signal comes. */
START_TEST(test_connect_survives_signals)
{
	struct sockaddr_in sin;
	int lfd, fd, a, i, plain_eintr = 0;

	fz_netns();
	lfd = lo_listen(&sin);
	alarm_start(true);
	for (i = 0; i < 2 * ROUNDS; i++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ck_assert_int_ge(fd, 0);
		if (i < ROUNDS) {
			/* what the drivers did: count how often it fails */
			if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)))
				plain_eintr += errno == EINTR;
		} else {
			ck_assert_msg(fz_connect(fd, (struct sockaddr *)&sin,
						 sizeof(sin)) == 0,
				      "fz_connect: %s", strerror(errno));
		}
		while ((a = accept(lfd, NULL, NULL)) < 0)
			ck_assert_int_eq(errno, EINTR);
		close_rst(a);
		close_rst(fd);
	}
	alarm_start(false);
	close(lfd);
	/* a signal that never lands in connect() tests nothing */
	if (!plain_eintr)
		fprintf(stderr, "note: connect() was never interrupted here\n");
}
END_TEST

/* A refused connection is an error, not a success after EINTR. */
START_TEST(test_connect_refused)
{
	struct sockaddr_in sin;
	int lfd, fd;

	fz_netns();
	lfd = lo_listen(&sin);
	close(lfd);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fz_connect(fd, (struct sockaddr *)&sin, sizeof(sin)),
			 -1);
	ck_assert_int_eq(errno, ECONNREFUSED);
	close(fd);
}
END_TEST

/* The scan sees a descriptor opened and one closed. */
START_TEST(test_fd_scan)
{
	bool open_now[FZ_FD_SPAN];
	struct fz_fds snap;
	int fd;

	fz_fd_snapshot(&snap);
	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_lt(fd, FZ_FD_SPAN);
	ck_assert(!snap.open[fd]);
	fz_fd_scan(open_now);
	ck_assert(open_now[fd]);
	close(fd);
	fz_fd_scan(open_now);
	ck_assert(!open_now[fd]);
	/* nothing left open: the check passes */
	fz_fd_check(&snap);
}
END_TEST

static Suite *fuzz_util_suite(void)
{
	Suite *s = suite_create("fuzz_util");
	TCase *tc = tcase_create("helpers");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_connect_survives_signals);
	tcase_add_test(tc, test_connect_refused);
	tcase_add_test(tc, test_fd_scan);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(fuzz_util_suite)
