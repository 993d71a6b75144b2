/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The real iwcmd, started per test with its own socket directory and
 * config: the admin API (status, listeners, conns, show, stats, log,
 * kill, listener settings, an unknown request type), queued replies to a
 * client that does not read, the pause at EMFILE, SIGHUP reloads,
 * SIGTERM, stale and busy sockets, config errors, the watchdog and an
 * activated TCP listener.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pwd.h>

#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"

/* ---- admin API ---- */

START_TEST(test_admin)
{
	Iwcm__Ctl__Status *st;
	Iwcm__Ctl__LogLevel lv = IWCM__CTL__LOG_LEVEL__INIT;
	Iwcm__Ctl__Kill k = IWCM__CTL__KILL__INIT;
	Iwcm__Ctl__Show sh = IWCM__CTL__SHOW__INIT;
	Iwcm__Ctl__ListenerSet ls = IWCM__CTL__LISTENER_SET__INIT;
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	uint16_t port;
	uint32_t reqid;
	int fd, admin;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	admin = ipc_open_hello(H.admin);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, NULL, &port),
			 IWCM__RESULT__RES_OK);

	st = (Iwcm__Ctl__Status *)admin_one(admin, IPC_CTL_STATUS,
					    IPC_CTL_STATUS_REPLY,
					    &iwcm__ctl__status__descriptor);
	ck_assert_uint_eq(st->pid, (uint32_t)H.pid);
	ck_assert_str_eq(st->version, PACKAGE_VERSION);
	ck_assert_uint_eq(st->listeners, 1);
	ck_assert_uint_eq(st->clients, 1);
	ck_assert_uint_eq(st->conns, 0);
	ck_assert(!st->verbose);
	protobuf_c_message_free_unpacked(&st->base, NULL);

	ck_assert_uint_eq(admin_counter(admin, "accepted"), 0);
	ck_assert_uint_eq(admin_counter(admin, "term_sent_7"), 0);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 1);

	request(admin, IPC_CTL_CONNS, &e.base, &reqid);
	reply(admin, IPC_END, reqid);

	lv.verbose = 1;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_LOG, &lv.base),
			 IWCM__RESULT__RES_OK);
	st = (Iwcm__Ctl__Status *)admin_one(admin, IPC_CTL_STATUS,
					    IPC_CTL_STATUS_REPLY,
					    &iwcm__ctl__status__descriptor);
	ck_assert(st->verbose);
	protobuf_c_message_free_unpacked(&st->base, NULL);

	k.conn_id = 12345;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_KILL, &k.base),
			 IWCM__RESULT__RES_ENOENT);
	sh.conn_id = 12345;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_SHOW, &sh.base),
			 IWCM__RESULT__RES_ENOENT);

	ls.params = &p;
	ls.port = port;
	p.has_crc = 1;
	p.crc = IWCM__CRC_POLICY__CRC_PREFER_OFF;
	p.has_rtr_types = 1;
	p.rtr_types = IWCM__RTR_TYPE__RTR_READ;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_LISTENER_SET, &ls.base),
			 IWCM__RESULT__RES_OK);
	ls.port = port == 65535 ? 65534 : port + 1;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_LISTENER_SET, &ls.base),
			 IWCM__RESULT__RES_ENOENT);
	ls.port = port;
	p.has_p2p = 1;
	ck_assert_int_eq(admin_result(admin, IPC_CTL_LISTENER_SET, &ls.base),
			 IWCM__RESULT__RES_EINVAL);

	/* malformed body: RESULT EINVAL, the admin stays */
	ck_assert_int_eq(send(admin, "\0\1\0\x6a\0\0\0\x05\xff", 9, 0), 9);
	reply(admin, IPC_RESULT, 5);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 1);

	/* a request type no handler takes (109, after CTL_CONNECT): the
	 * daemon closes that admin connection and serves the next */
	ck_assert_int_eq(send(admin, "\0\1\0\x6d\0\0\0\x06", 8, 0), 8);
	ck_assert(peer_closed(admin));
	close(admin);
	admin = ipc_open_hello(H.admin);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 1);
	close(admin);
	close(fd);
}
END_TEST

/* A client that sends requests without reading: replies queue, the
 * daemon stops reading it for a while (XOFF), nothing is lost or
 * reordered. */
START_TEST(test_slow_reader)
{
	enum { N = 3000 };
	Iwcm__Unlisten u = IWCM__UNLISTEN__INIT;
	uint32_t sent = 0, got = 0;
	int fd, fl, other;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	other = ipc_open_hello(H.sock);
	fl = fcntl(fd, F_GETFL);
	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	u.listener_id = 99;
	while (got < N) {
		while (sent < N) {
			if (ipc_send(fd, IPC_CLIENT_UNLISTEN, 1000 + sent,
				     &u.base, -1) < 0) {
				ck_assert_int_eq(errno, EAGAIN);
				break;
			}
			sent++;
		}
		/* meanwhile the daemon serves others */
		if (sent == N / 2 || got == N / 3)
			ck_assert_int_eq(unlisten(other, 1),
					 IWCM__RESULT__RES_ENOENT);
		ck_assert_int_eq(ipc_wait(fd, &M), 1);
		ck_assert_uint_eq(M.hdr.type, IPC_CLIENT_ACK);
		ck_assert_uint_eq(M.hdr.reqid, 1000 + got);
		got++;
	}
	close(fd);
	close(other);
}
END_TEST

/* Descriptors iwcmd has open (/proc/PID/fd). */
static int ctl_daemon_fds(pid_t pid)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int n = 0;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	dir = opendir(path);
	ck_assert_ptr_nonnull(dir);
	while ((d = readdir(dir)) != NULL)
		if (d->d_name[0] != '.')
			n++;
	closedir(dir);
	return n;
}

/* Out of fds (max_conns sized from the limit leaves room for
 * connections, so clients take it here): accepting pauses for a second
 * instead of spinning, the daemon keeps serving its clients, and
 * accepting resumes once fds are free again. */
START_TEST(test_emfile_pause)
{
	enum { N = 40, NOFILE = 24 };
	struct sockaddr_in sin;
	uint64_t accepted;
	uint16_t port;
	int fd, admin, i, t[N], cl[NOFILE], ncl = 0;
	long long end;

	harness_init(&H, "request_timeout_ms = 60000\n");
	H.nofile = NOFILE;
	H.pid = harness_spawn(&H, NULL, NULL);
	ck_assert(harness_ready(&H));
	fd = ipc_open_hello(H.sock);
	admin = ipc_open_hello(H.admin);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, NULL, &port),
			 IWCM__RESULT__RES_OK);
	/* clients hold all but two of the daemon's descriptors */
	while (ctl_daemon_fds(H.pid) < NOFILE - 2 && ncl < NOFILE)
		cl[ncl++] = ipc_open_hello(H.sock);
	ck_assert_int_eq(ctl_daemon_fds(H.pid), NOFILE - 2);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	for (i = 0; i < N; i++) {
		t[i] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		ck_assert_int_eq(
			connect(t[i], (struct sockaddr *)&sin, sizeof(sin)), 0);
	}
	end = harness_ms() + HARNESS_TIMEOUT_MS;
	while (!strstr(harness_log(&H), "pausing") &&
	       !strstr(harness_log(&H), "Too many open files") &&
	       harness_ms() < end)
		poll(NULL, 0, 10);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "Too many open files"));
	/* still serving */
	ck_assert_int_eq(unlisten(fd, 4242), IWCM__RESULT__RES_ENOENT);
	accepted = admin_counter(admin, "accepted");
	ck_assert_uint_lt(accepted, N);
	for (i = 0; i < N; i++)
		close(t[i]);
	while (ncl)
		close(cl[--ncl]);
	/* the queued connections are accepted (and end) after the pause */
	end = harness_ms() + HARNESS_TIMEOUT_MS;
	while (admin_counter(admin, "accepted") < N && harness_ms() < end)
		poll(NULL, 0, 20);
	ck_assert_uint_eq(admin_counter(admin, "accepted"), N);
	ck_assert_int_eq(tcp_connect(port), 0);
	close(fd);
	close(admin);
}
END_TEST

/* ---- signals, sockets, config ---- */

START_TEST(test_sighup)
{
	uint16_t port = 0;
	int admin;

	harness_start(&H, "max_conns = 100\n");
	admin = ipc_open_hello(H.admin);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 0);

	harness_write(H.conf, "[listener svc2]\naddress = 127.0.0.1:0\n");
	kill(H.pid, SIGHUP);
#ifdef HAVE_SYSTEMD
	ck_assert(harness_notified(&H, "RELOADING=1", HARNESS_TIMEOUT_MS));
	ck_assert(harness_notified(&H, "READY=1", HARNESS_TIMEOUT_MS));
#endif
	{
		int i;

		for (i = 0; i < 200 && !admin_listeners(admin, NULL, NULL); i++)
			poll(NULL, 0, 5);
	}
	ck_assert_uint_eq(admin_listeners(admin, "svc2", &port), 1);
	ck_assert_uint_ne(port, 0);
	ck_assert_int_eq(tcp_connect(port), 0);

	/* an invalid file changes nothing */
	harness_write(H.conf, "[listener svc2]\naddress = 127.0.0.1:0\n"
			      "bogus_key = 1\n");
	kill(H.pid, SIGHUP);
#ifdef HAVE_SYSTEMD
	ck_assert(harness_notified(&H, "READY=1", HARNESS_TIMEOUT_MS));
#endif
	{
		int i;

		for (i = 0; i < 200 && !strstr(harness_log(&H), "reload:"); i++)
			poll(NULL, 0, 5);
	}
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "bogus_key"));
	ck_assert_uint_eq(admin_listeners(admin, "svc2", &port), 1);

	/* a service that leaves the file goes */
	harness_write(H.conf, "");
	kill(H.pid, SIGHUP);
	{
		int i;

		for (i = 0; i < 200 && admin_listeners(admin, NULL, NULL); i++)
			poll(NULL, 0, 5);
	}
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 0);
	ck_assert_int_ne(tcp_connect(port), 0);
	close(admin);
}
END_TEST

START_TEST(test_sigterm)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnError *e;
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	uint8_t lo[4] = { 127, 0, 0, 1 };
	int st, fd, peer;

	/* a peer that accepts TCP and never answers the MPA Request */
	peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(peer, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(peer, 4), 0);
	ck_assert_int_eq(getsockname(peer, (struct sockaddr *)&sin, &sl), 0);

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_ge(fd, 0);
	a.addr.data = lo;
	a.addr.len = 4;
	a.port = ntohs(sin.sin_port);
	c.dst = &a;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_OK);

	kill(H.pid, SIGTERM);
#ifdef HAVE_SYSTEMD
	ck_assert(harness_notified(&H, "STOPPING=1", HARNESS_TIMEOUT_MS));
#endif
	st = harness_wait(H.pid);
	H.pid = -1;
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), 0);
	/* the handshake in progress failed with RES_ESHUTDOWN */
	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_uint_eq(M.hdr.type, IPC_EVENT_ERROR);
	e = (Iwcm__ConnError *)ipc_unpack(&M, &iwcm__conn_error__descriptor);
	ck_assert_ptr_nonnull(e);
	ck_assert_int_eq(e->result, IWCM__RESULT__RES_ESHUTDOWN);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	ck_assert(peer_closed(fd));
	close(fd);
	close(peer);
	ck_assert_int_ne(access(H.sock, F_OK), 0);
	ck_assert_int_ne(access(H.admin, F_OK), 0);
}
END_TEST

START_TEST(test_stale_and_busy_socket)
{
	struct sockaddr_un sun;
	struct harness h2;
	int s, st;

	harness_init(&H, NULL);
	/* a socket file left behind by a dead daemon */
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", H.sock);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	close(s);
	H.pid = harness_spawn(&H, NULL, NULL);
	ck_assert(harness_ready(&H));
	s = ipc_open_hello(H.sock);
	ck_assert_int_ge(s, 0);
	close(s);

	/* a second daemon on the same path gives up, the first serves on */
	harness_init(&h2, NULL);
	h2.pid = harness_spawn(&h2, NULL,
			       (const char *const[]){ "-d", "-f", h2.conf, "-s",
						      H.sock, NULL });
	st = harness_wait(h2.pid);
	h2.pid = -1;
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_ptr_nonnull(strstr(harness_log(&h2), "in use"));
	harness_cleanup(&h2);
	s = ipc_open_hello(H.sock);
	ck_assert_int_ge(s, 0);
	close(s);
}
END_TEST

START_TEST(test_config_errors)
{
	char missing[160];
	pid_t pid;
	int st;

	harness_init(&H, "max_conns = lots\n");
	/* -n checks and exits */
	pid = harness_spawn(&H, NULL,
			    (const char *const[]){ "-n", "-f", H.conf, NULL });
	st = harness_wait(pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "max_conns"));
	harness_write(H.conf, "max_conns = 10\n");
	pid = harness_spawn(&H, NULL,
			    (const char *const[]){ "-n", "-f", H.conf, NULL });
	st = harness_wait(pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* an explicit file that does not exist is an error */
	snprintf(missing, sizeof(missing), "%s/nope.conf", H.dir);
	pid = harness_spawn(&H, NULL,
			    (const char *const[]){ "-d", "-f", missing, "-s",
						   H.sock, NULL });
	st = harness_wait(pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 1);
	ck_assert_int_ne(access(H.sock, F_OK), 0);
	/* a bad option */
	pid = harness_spawn(&H, NULL, (const char *const[]){ "-x", NULL });
	st = harness_wait(pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 2);
}
END_TEST

START_TEST(test_watchdog)
{
#ifdef HAVE_SYSTEMD
	static const char *const env[] = { "WATCHDOG_USEC=100000", NULL };
	int n = 0;

	harness_start_env(&H, NULL, env);
	while (n < 3 && harness_notified(&H, "WATCHDOG=1", 1000))
		n++;
	ck_assert_int_eq(n, 3);
#else
	fprintf(stderr, "test_watchdog: built without libsystemd\n");
#endif
}
END_TEST

static int make_sock(int type, const char *path, uint16_t *port)
{
	int fd = socket(path ? AF_UNIX : AF_INET, type | SOCK_CLOEXEC, 0);

	ck_assert_int_ge(fd, 0);
	if (path) {
		struct sockaddr_un sun;

		memset(&sun, 0, sizeof(sun));
		sun.sun_family = AF_UNIX;
		snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&sun, sizeof(sun)),
				 0);
	} else {
		struct sockaddr_in sin;
		socklen_t sl = sizeof(sin);

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)),
				 0);
		ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &sl),
				 0);
		*port = ntohs(sin.sin_port);
	}
	ck_assert_int_eq(listen(fd, 16), 0);
	return fd;
}

/* The sd_listen_fds(3) protocol by hand, as systemd speaks it: a TCP
 * socket named after a configured listener is that listener, whatever
 * address the file gives; a name nobody knows is closed. */
START_TEST(test_activated_tcp_listener)
{
	int fds[4], admin, i;
	uint16_t port = 0, stray = 0, listed = 0;
	pid_t pid;

#ifndef HAVE_SYSTEMD
	fprintf(stderr, "test_activated_tcp_listener: built without "
			"libsystemd\n");
	return;
#endif
	harness_init(&H, "[listener svc]\naddress = 127.0.0.1:9\n");
	fds[0] = make_sock(SOCK_STREAM, NULL, &port);
	fds[1] = make_sock(SOCK_SEQPACKET, H.admin, NULL);
	fds[2] = make_sock(SOCK_SEQPACKET, H.sock, NULL);
	fds[3] = make_sock(SOCK_STREAM, NULL, &stray);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int lfd = open(H.log, O_WRONLY | O_CREAT | O_APPEND, 0644);
		char envpid[32];

		if (lfd < 0 || dup2(lfd, 2) < 0)
			_exit(126);
		for (i = 0; i < 4; i++)
			fds[i] = fcntl(fds[i], F_DUPFD_CLOEXEC, 100);
		for (i = 0; i < 4; i++)
			if (dup2(fds[i], 3 + i) < 0)
				_exit(126);
		snprintf(envpid, sizeof(envpid), "%ld", (long)getpid());
		setenv("LISTEN_PID", envpid, 1);
		setenv("LISTEN_FDS", "4", 1);
		setenv("LISTEN_FDNAMES", "svc:admin:client:stray", 1);
		setenv("NOTIFY_SOCKET", H.notify, 1);
		execl(IWCMD_BIN, "iwcmd", "-d", "-f", H.conf, "-s",
		      "/nonexistent/ignored.sock", (char *)NULL);
		_exit(127);
	}
	H.pid = pid;
	for (i = 0; i < 4; i++)
		close(fds[i]);
	ck_assert_msg(harness_ready(&H), "%s", harness_log(&H));
	admin = ipc_open_hello(H.admin);
	ck_assert_int_ge(admin, 0);
	ck_assert_uint_eq(admin_listeners(admin, "svc", &listed), 1);
	ck_assert_uint_eq(listed, port);
	ck_assert_int_eq(tcp_connect(port), 0);
	ck_assert_int_ne(tcp_connect(stray), 0);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "stray"));
	/* a reload keeps the socket systemd gave, whatever the file says */
	kill(H.pid, SIGHUP);
	ck_assert(harness_notified(&H, "RELOADING=1", HARNESS_TIMEOUT_MS));
	ck_assert(harness_notified(&H, "READY=1", HARNESS_TIMEOUT_MS));
	ck_assert_uint_eq(admin_listeners(admin, "svc", &listed), 1);
	ck_assert_uint_eq(listed, port);
	close(admin);
}
END_TEST

static Suite *daemon_admin_suite(void)
{
	Suite *s = suite_create("daemon_admin");

	daemon_add_test(s, "admin", test_admin);
	daemon_add_test(s, "slow_reader", test_slow_reader);
	daemon_add_test(s, "emfile_pause", test_emfile_pause);
	daemon_add_test(s, "sighup", test_sighup);
	daemon_add_test(s, "sigterm", test_sigterm);
	daemon_add_test(s, "stale_and_busy_socket", test_stale_and_busy_socket);
	daemon_add_test(s, "config_errors", test_config_errors);
	daemon_add_test(s, "watchdog", test_watchdog);
	daemon_add_test(s, "activated_tcp_listener",
			test_activated_tcp_listener);
	return s;
}

TEST_MAIN(daemon_admin_suite)
