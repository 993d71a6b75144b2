/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The real iwcmd started by systemd-socket-activate(1): both control
 * sockets inherited by FileDescriptorName=, in either order.  Without
 * that program, or in a build without libsystemd, the program exits 77
 * and the test driver reports SKIP with the reason.
 */
#include <limits.h>

#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"

/* systemd-socket-activate, as found on PATH when the program starts. */
static char sd_activate[PATH_MAX];

/* systemd-style socket activation: both sockets inherited by name, in
 * either order, and left in place at exit (systemd owns them). */
static void activation_round(const char *first, const char *second)
{
	char names[32], l1[112], l2[112];
	const char *sa = sd_activate;
	long long end;
	uint16_t port;
	int fd, admin, st;

	harness_init(&H, NULL);
	snprintf(names, sizeof(names), "--fdname=%s:%s", first, second);
	snprintf(l1, sizeof(l1), "--listen=%s",
		 !strcmp(first, "admin") ? H.admin : H.sock);
	snprintf(l2, sizeof(l2), "--listen=%s",
		 !strcmp(second, "admin") ? H.admin : H.sock);
	H.pid = fork();
	ck_assert_int_ge(H.pid, 0);
	if (H.pid == 0) {
		int lfd = open(H.log, O_WRONLY | O_CREAT | O_APPEND, 0644);

		if (lfd < 0 || dup2(lfd, 2) < 0)
			_exit(126);
		unsetenv("NOTIFY_SOCKET");
		execl(sa, sa, "--seqpacket", l1, l2, names, IWCMD_BIN, "-d",
		      "-f", H.conf, "-s", "/nonexistent/ignored.sock",
		      (char *)NULL);
		_exit(127);
	}
	/* the sockets exist before iwcmd runs; connecting starts it */
	end = harness_ms() + HARNESS_TIMEOUT_MS;
	while ((access(H.sock, F_OK) || access(H.admin, F_OK)) &&
	       harness_ms() < end)
		poll(NULL, 0, 5);
	/*
	 * The socket file appears at bind(), a moment before listen():
	 * a connect in between is refused, so retry until the deadline.
	 */
	while ((fd = ipc_open_hello(H.sock)) < 0 && errno == ECONNREFUSED &&
	       harness_ms() < end)
		poll(NULL, 0, 5);
	ck_assert_msg(fd >= 0, "no HELLO on the activated client socket:\n%s",
		      harness_log(&H));
	while ((admin = ipc_open_hello(H.admin)) < 0 && errno == ECONNREFUSED &&
	       harness_ms() < end)
		poll(NULL, 0, 5);
	ck_assert_int_ge(admin, 0);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, NULL, &port),
			 IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 1);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "socket activation"));
	close(fd);
	close(admin);
	kill(H.pid, SIGTERM);
	st = harness_wait(H.pid);
	H.pid = -1;
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ck_assert_int_eq(access(H.sock, F_OK), 0);
	ck_assert_int_eq(access(H.admin, F_OK), 0);
	harness_cleanup(&H);
}

START_TEST(test_socket_activation)
{
	activation_round("client", "admin");
	activation_round("admin", "client");
}
END_TEST

/*
 * Find systemd-socket-activate on PATH (the configure-time path when
 * PATH is unset), so that a PATH without it skips the test.
 */
static bool sd_activate_find(void)
{
	const char *path = getenv("PATH");
	const char *p, *e;

	if (!path) {
		snprintf(sd_activate, sizeof(sd_activate), "%s",
			 SYSTEMD_SOCKET_ACTIVATE);
		return sd_activate[0] && access(sd_activate, X_OK) == 0;
	}
	for (p = path; *p; p = *e ? e + 1 : e) {
		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		if (e == p)
			continue;
		snprintf(sd_activate, sizeof(sd_activate),
			 "%.*s/systemd-socket-activate", (int)(e - p), p);
		if (access(sd_activate, X_OK) == 0)
			return true;
	}
	sd_activate[0] = '\0';
	return false;
}

static const char *daemon_sd_missing(void)
{
#ifndef HAVE_SYSTEMD
	return "check_daemon_sd: built without libsystemd";
#else
	if (!sd_activate_find())
		return "check_daemon_sd: systemd-socket-activate not on PATH";
	return NULL;
#endif
}

static Suite *daemon_sd_suite(void)
{
	Suite *s = suite_create("daemon_sd");

	daemon_add_test(s, "socket_activation", test_socket_activation);
	return s;
}

DAEMON_TEST_MAIN_OR_SKIP(daemon_sd_suite, daemon_sd_missing)
