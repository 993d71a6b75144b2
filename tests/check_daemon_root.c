/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The real iwcmd, run by root: a client attaches to a service declared
 * in the configuration ([listener NAME]), one client at a time, and a
 * service owned by another uid refuses it.  Without root only configured
 * owners attach, so there is nothing to test: the program then exits 77
 * and the test driver reports SKIP with the reason.
 */
#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"

static const char svc_conf[] = "# services\n"
			       "[listener svc]\n"
			       "address = 127.0.0.1:0\n"
			       "pending_max = 8\n"
			       "[listener owned]\n"
			       "address = 127.0.0.1:0\n"
			       "owner = 65534\n";

START_TEST(test_service_attach)
{
	uint64_t id;
	uint16_t port = 0, listed = 0;
	int fd, fd2, admin, i;

	harness_start(&H, svc_conf);
	fd = ipc_open_hello(H.sock);
	fd2 = ipc_open_hello(H.sock);
	admin = ipc_open_hello(H.admin);
	ck_assert_uint_eq(admin_listeners(admin, "svc", &listed), 2);
	ck_assert_uint_ne(listed, 0);
	ck_assert_int_eq(listen_service(fd, "svc", &id, &port),
			 IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(port, listed);
	ck_assert_int_eq(listen_service(fd2, "svc", NULL, NULL),
			 IWCM__RESULT__RES_EEXIST);
	ck_assert_int_eq(listen_service(fd2, "nope", NULL, NULL),
			 IWCM__RESULT__RES_ENOENT);
	ck_assert_int_eq(listen_service(fd2, "owned", NULL, NULL),
			 IWCM__RESULT__RES_EPERM);
	/* detaching leaves the service listening */
	ck_assert_int_eq(unlisten(fd, id), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(tcp_connect(port), 0);
	ck_assert_int_eq(listen_service(fd2, "svc", NULL, NULL),
			 IWCM__RESULT__RES_OK);
	/* and a client that goes away only detaches */
	close(fd2);
	for (i = 0; i < 200; i++) {
		Iwcm__Result r = listen_service(fd, "svc", NULL, NULL);

		if (r == IWCM__RESULT__RES_OK)
			break;
		ck_assert_int_eq(r, IWCM__RESULT__RES_EEXIST);
		poll(NULL, 0, 5);
	}
	ck_assert_int_lt(i, 200);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 2);
	close(fd);
	close(admin);
}
END_TEST

static const char *daemon_root_missing(void)
{
	if (geteuid() != 0)
		return "check_daemon_root: service attachment needs root";
	return NULL;
}

static Suite *daemon_root_suite(void)
{
	Suite *s = suite_create("daemon_root");

	daemon_add_test(s, "service_attach", test_service_attach);
	return s;
}

DAEMON_TEST_MAIN_OR_SKIP(daemon_root_suite, daemon_root_missing)
