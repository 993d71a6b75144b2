/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The real iwcmd, started per test with its own socket directory and
 * config: the HELLO/VERSION handshake, socket modes, malformed and
 * fd-carrying messages closing only their peer, Listen/Unlisten with
 * bound ports that accept TCP, per-uid limits, privileged ports, connect
 * checks and a connection end to end.  The admin API, signals, sockets
 * and config are check_daemon_admin; service attachment (root) and
 * socket activation are check_daemon_root and check_daemon_sd.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <pwd.h>

#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"

/* ---- handshake ---- */

START_TEST(test_hello)
{
	Iwcm__Hello h = IWCM__HELLO__INIT;
	Iwcm__Version *v;
	int fd;

	harness_start(&H, NULL);
	fd = harness_connect(H.sock);
	ck_assert_int_ge(fd, 0);
	h.version = IPC_PROTO_VERSION;
	ck_assert_int_eq(ipc_send(fd, IPC_HELLO, 7, &h.base, -1), 0);
	reply(fd, IPC_VERSION, 7);
	v = (Iwcm__Version *)ipc_unpack(&M, &iwcm__version__descriptor);
	ck_assert_ptr_nonnull(v);
	ck_assert_uint_eq(v->version, IPC_PROTO_VERSION);
	ck_assert_int_eq(v->result, IWCM__RESULT__RES_OK);
	protobuf_c_message_free_unpacked(&v->base, NULL);
	close(fd);
	fd = ipc_open_hello(H.admin);
	ck_assert_int_ge(fd, 0);
	close(fd);
}
END_TEST

static void expect_eversion_close(int fd)
{
	Iwcm__Version *v;

	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_uint_eq(M.hdr.type, IPC_VERSION);
	v = (Iwcm__Version *)ipc_unpack(&M, &iwcm__version__descriptor);
	ck_assert_ptr_nonnull(v);
	ck_assert_int_eq(v->result, IWCM__RESULT__RES_EVERSION);
	ck_assert_uint_eq(v->version, IPC_PROTO_VERSION);
	protobuf_c_message_free_unpacked(&v->base, NULL);
	ck_assert(peer_closed(fd));
	close(fd);
}

START_TEST(test_bad_version)
{
	Iwcm__Hello h = IWCM__HELLO__INIT;
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	uint8_t raw[8] = { 0, 2, 0, IPC_HELLO, 0, 0, 0, 1 };
	int fd, other;

	harness_start(&H, NULL);
	other = ipc_open_hello(H.sock);
	ck_assert_int_ge(other, 0);

	/* Hello{version 2} */
	fd = harness_connect(H.sock);
	h.version = 2;
	ck_assert_int_eq(ipc_send(fd, IPC_HELLO, 1, &h.base, -1), 0);
	expect_eversion_close(fd);

	/* header version 2 */
	fd = harness_connect(H.sock);
	ck_assert_int_eq(send(fd, raw, sizeof(raw), 0), (ssize_t)sizeof(raw));
	expect_eversion_close(fd);

	/* something else before HELLO, on either socket */
	fd = harness_connect(H.sock);
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_UNLISTEN, 1, NULL, -1), 0);
	expect_eversion_close(fd);
	fd = harness_connect(H.admin);
	ck_assert_int_eq(ipc_send(fd, IPC_CTL_STATUS, 1, &e.base, -1), 0);
	expect_eversion_close(fd);

	/* the daemon still serves the client that behaved */
	ck_assert_int_eq(unlisten(other, 4242), IWCM__RESULT__RES_ENOENT);
	close(other);
}
END_TEST

START_TEST(test_socket_modes)
{
	struct stat st;

	harness_start(&H, NULL);
	ck_assert_int_eq(stat(H.sock, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0660);
	ck_assert_int_eq(stat(H.admin, &st), 0);
	ck_assert(S_ISSOCK(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0600);
}
END_TEST

/* ---- malformed input closes only that peer ---- */

START_TEST(test_bad_messages)
{
	static uint8_t big[IPC_MAX_MSG + 100];
	Iwcm__Hello h = IWCM__HELLO__INIT;
	int other, fd, pfd[2];

	harness_start(&H, NULL);
	other = ipc_open_hello(H.sock);
	ck_assert_int_ge(other, 0);

	/* oversize datagram */
	fd = ipc_open_hello(H.sock);
	memcpy(big, "\0\1\0\xc9\0\0\0\1", 8);
	ck_assert_int_eq(send(fd, big, sizeof(big), 0), (ssize_t)sizeof(big));
	ck_assert(peer_closed(fd));
	close(fd);

	/* truncated header */
	fd = ipc_open_hello(H.sock);
	ck_assert_int_eq(send(fd, "\0\1\0", 3, 0), 3);
	ck_assert(peer_closed(fd));
	close(fd);

	/* an fd toward the daemon, client and admin socket */
	ck_assert_int_eq(pipe(pfd), 0);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_UNLISTEN, 1, NULL, pfd[0]), 0);
	ck_assert(peer_closed(fd));
	close(fd);
	fd = ipc_open_hello(H.admin);
	ck_assert_int_eq(ipc_send(fd, IPC_CTL_STATUS, 1, NULL, pfd[0]), 0);
	ck_assert(peer_closed(fd));
	close(fd);
	/* the daemon closed its copies: the write end sees no reader only
	 * when ours is gone too */
	close(pfd[0]);
	close(pfd[1]);

	/* unknown types, a second HELLO, an admin message on the client
	 * socket and a client message on the admin socket */
	fd = ipc_open_hello(H.sock);
	ck_assert_int_eq(ipc_send(fd, 999, 1, NULL, -1), 0);
	ck_assert(peer_closed(fd));
	close(fd);
	fd = ipc_open_hello(H.sock);
	h.version = IPC_PROTO_VERSION;
	ck_assert_int_eq(ipc_send(fd, IPC_HELLO, 1, &h.base, -1), 0);
	ck_assert(peer_closed(fd));
	close(fd);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_eq(ipc_send(fd, IPC_CTL_STATUS, 1, NULL, -1), 0);
	ck_assert(peer_closed(fd));
	close(fd);
	fd = ipc_open_hello(H.admin);
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_LISTEN, 1, NULL, -1), 0);
	ck_assert(peer_closed(fd));
	close(fd);

	/* a body that does not parse gets RES_EINVAL, the peer stays */
	fd = ipc_open_hello(H.sock);
	ck_assert_int_eq(send(fd, "\0\1\0\xc9\0\0\0\x09\xff\xff\xff", 11, 0),
			 11);
	reply(fd, IPC_CLIENT_ACK, 9);
	ck_assert_int_eq(unlisten(fd, 1), IWCM__RESULT__RES_ENOENT);
	close(fd);

	/* the well-behaved client was never disturbed */
	ck_assert_int_eq(unlisten(other, 1), IWCM__RESULT__RES_ENOENT);
	close(other);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "ctl pid "));
}
END_TEST

/* ---- listeners ---- */

START_TEST(test_listen_bound_port)
{
	uint64_t id = 0, id6 = 0;
	uint16_t port = 0, port6 = 0;
	int fd, admin, i;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	admin = ipc_open_hello(H.admin);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, &id, &port),
			 IWCM__RESULT__RES_OK);
	ck_assert_uint_ne(port, 0);
	ck_assert_int_eq(tcp_connect(port), 0);
	/* the accepted socket went to the connection engine */
	for (i = 0; i < 200 && admin_counter(admin, "accepted") < 1; i++)
		poll(NULL, 0, 5);
	ck_assert_uint_eq(admin_counter(admin, "accepted"), 1);
	/* the same address again is refused */
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", port, NULL, NULL),
			 IWCM__RESULT__RES_EEXIST);
	/* IPv6 where the host has it */
	i = socket(AF_INET6, SOCK_STREAM, 0);
	if (i >= 0) {
		close(i);
		if (listen_addr(fd, "::1", 0, &id6, &port6) ==
		    IWCM__RESULT__RES_OK)
			ck_assert_uint_ne(port6, 0);
	}
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), id6 ? 2 : 1);
	close(fd);
	close(admin);
}
END_TEST

START_TEST(test_listen_invalid)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__ListenReply *r;
	uint8_t buf[5] = { 127, 0, 0, 1, 0 };
	uint32_t reqid;
	int fd;
	struct {
		size_t alen;
		const char *service;
		bool params;
		uint32_t ird;
		uint32_t transport;
	} cases[] = {
		{ 5, NULL, false, 0, 0 },     /* 5-octet address */
		{ 0, NULL, false, 0, 0 },     /* neither */
		{ 4, "svc", false, 0, 0 },    /* both */
		{ 0, "", false, 0, 0 },	      /* empty service */
		{ 4, NULL, true, 0x4000, 0 }, /* IRD beyond 14 bits */
		{ 0, "svc", true, 1, 1 },     /* SCTP needs an address */
	};
	size_t i;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		iwcm__listen__init(&l);
		iwcm__conn_params__init(&p);
		a.addr.data = buf;
		a.addr.len = cases[i].alen;
		a.port = 0;
		l.addr = cases[i].alen ? &a : NULL;
		l.service = (char *)cases[i].service;
		if (cases[i].params) {
			p.has_ird = 1;
			p.ird = cases[i].ird;
			p.has_transport = cases[i].transport != 0;
			p.transport = cases[i].transport;
			l.params = &p;
		}
		request(fd, IPC_CLIENT_LISTEN, &l.base, &reqid);
		reply(fd, IPC_CLIENT_LISTEN_REPLY, reqid);
		r = (Iwcm__ListenReply *)ipc_unpack(
			&M, &iwcm__listen_reply__descriptor);
		ck_assert_ptr_nonnull(r);
		ck_assert_msg(r->result == IWCM__RESULT__RES_EINVAL,
			      "case %zu: result %d", i, r->result);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
	close(fd);
}
END_TEST

START_TEST(test_unlisten)
{
	uint64_t id;
	uint16_t port;
	int fd, other;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	other = ipc_open_hello(H.sock);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, &id, &port),
			 IWCM__RESULT__RES_OK);
	/* another client (same uid) cannot close it */
	ck_assert_int_eq(unlisten(other, id), IWCM__RESULT__RES_ENOENT);
	ck_assert_int_eq(unlisten(fd, id), IWCM__RESULT__RES_OK);
	ck_assert_int_ne(tcp_connect(port), 0);
	ck_assert_int_eq(errno, ECONNREFUSED);
	ck_assert_int_eq(unlisten(fd, id), IWCM__RESULT__RES_ENOENT);
	close(fd);
	close(other);
}
END_TEST

START_TEST(test_client_gone)
{
	uint16_t port;
	int fd, admin, i;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	admin = ipc_open_hello(H.admin);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, NULL, &port),
			 IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 1);
	close(fd);
	for (i = 0; i < 200 && admin_listeners(admin, NULL, NULL); i++)
		poll(NULL, 0, 5);
	ck_assert_uint_eq(admin_listeners(admin, NULL, NULL), 0);
	ck_assert_int_ne(tcp_connect(port), 0);
	close(admin);
}
END_TEST

START_TEST(test_limits)
{
	uint64_t id[3];
	int fd, fd2;

	harness_start(&H, "max_listeners_per_uid = 2\n");
	fd = ipc_open_hello(H.sock);
	fd2 = ipc_open_hello(H.sock);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, &id[0], NULL),
			 IWCM__RESULT__RES_OK);
	/* the limit is per uid, not per client */
	ck_assert_int_eq(listen_addr(fd2, "127.0.0.1", 0, &id[1], NULL),
			 IWCM__RESULT__RES_OK);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, &id[2], NULL),
			 IWCM__RESULT__RES_ELIMIT);
	ck_assert_int_eq(unlisten(fd, id[0]), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 0, &id[2], NULL),
			 IWCM__RESULT__RES_OK);
	close(fd);
	close(fd2);
}
END_TEST

static const char svc_conf[] = "# services\n"
			       "[listener svc]\n"
			       "address = 127.0.0.1:0\n"
			       "pending_max = 8\n"
			       "[listener owned]\n"
			       "address = 127.0.0.1:0\n"
			       "owner = 65534\n";

/* As uid 65534 in a child: privileged ports and owned services. */
static int nobody_child(const char *sock)
{
	uint16_t port;
	int fd;

	if (setgid(65534) < 0 || setuid(65534) < 0)
		return 10;
	fd = ipc_open_hello(sock);
	if (fd < 0)
		return 11;
	if (listen_addr(fd, "127.0.0.1", 1000, NULL, NULL) !=
	    IWCM__RESULT__RES_EPERM)
		return 12;
	if (listen_addr(fd, "127.0.0.1", 0, NULL, &port) !=
	    IWCM__RESULT__RES_OK)
		return 13;
	if (listen_service(fd, "svc", NULL, NULL) != IWCM__RESULT__RES_EPERM)
		return 14;
	if (listen_service(fd, "owned", NULL, NULL) != IWCM__RESULT__RES_OK)
		return 15;
	/* on the allow-list: the bind itself may still find it taken */
	switch (listen_addr(fd, "127.0.0.1", 1019, NULL, NULL)) {
	case IWCM__RESULT__RES_OK:
	case IWCM__RESULT__RES_EADDRINUSE:
		break;
	default:
		return 16;
	}
	close(fd);
	return 0;
}

START_TEST(test_privileged_port)
{
	char conf[512];
	pid_t pid;
	int st;

	if (geteuid() != 0) {
		/* we are the unprivileged uid ourselves */
		int fd;

		harness_start(&H, NULL);
		fd = ipc_open_hello(H.sock);
		ck_assert_int_eq(listen_addr(fd, "127.0.0.1", 1000, NULL, NULL),
				 IWCM__RESULT__RES_EPERM);
		close(fd);
		return;
	}
	snprintf(conf, sizeof(conf), "allow_privileged = 65534:1019\n%s",
		 svc_conf);
	harness_start(&H, conf);
	/* let uid 65534 reach the client socket of this test's daemon */
	ck_assert_int_eq(chmod(H.dir, 0755), 0);
	ck_assert_int_eq(chmod(H.sock, 0666), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		_exit(nobody_child(H.sock));
	st = harness_wait(pid);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "nobody child failed at step %d", WEXITSTATUS(st));
}
END_TEST

START_TEST(test_connect_checks)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Accept ac = IWCM__ACCEPT__INIT;
	Iwcm__Reject rj = IWCM__REJECT__INIT;
	Iwcm__Disconnect d = IWCM__DISCONNECT__INIT;
	uint8_t lo[4] = { 127, 0, 0, 1 }, pd[513];
	int fd;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	memset(pd, 0xab, sizeof(pd));
	a.addr.data = lo;
	c.dst = &a;

	a.addr.len = 3;
	a.port = 7000;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);
	a.addr.len = 4;
	a.port = 0;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);
	a.port = 7000;
	c.params = &p;
	p.has_private_data = 1;
	p.private_data.data = pd;
	p.private_data.len = 513;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);
	p.has_private_data = 0;
	p.has_ord = 1;
	p.ord = 0x4000;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);
	p.has_ord = 0;
	p.has_mpa_rev = 1;
	p.mpa_rev = 0;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);
	p.has_mpa_rev = 0;
	p.has_rtr_types = 1;
	p.rtr_types = 8;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_CONNECT, &c.base),
			 IWCM__RESULT__RES_EINVAL);

	/* decisions on connections that do not exist */
	ac.conn_id = 777;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_ACCEPT, &ac.base),
			 IWCM__RESULT__RES_ENOENT);
	rj.conn_id = 777;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_REJECT, &rj.base),
			 IWCM__RESULT__RES_ENOENT);
	rj.has_private_data = 1;
	rj.private_data.data = pd;
	rj.private_data.len = 513;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_REJECT, &rj.base),
			 IWCM__RESULT__RES_EINVAL);
	d.conn_id = 777;
	ck_assert_int_eq(ack_of(fd, IPC_CLIENT_DISCONNECT, &d.base),
			 IWCM__RESULT__RES_ENOENT);
	close(fd);
}
END_TEST

/* A Connect is acknowledged before any event about it. */
START_TEST(test_connect_ack_first)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__Ack *ack;
	Iwcm__ConnError *e;
	uint8_t lo[4] = { 127, 0, 0, 1 };
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	uint32_t reqid;
	uint64_t id;
	int fd, s;

	/* a port nobody listens on: bind, learn it, close */
	s = socket(AF_INET, SOCK_STREAM, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(s, (struct sockaddr *)&sin, &sl), 0);
	close(s);

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	a.addr.data = lo;
	a.addr.len = 4;
	a.port = ntohs(sin.sin_port);
	c.dst = &a;
	request(fd, IPC_CLIENT_CONNECT, &c.base, &reqid);
	reply(fd, IPC_CLIENT_ACK, reqid);
	ack = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(ack);
	ck_assert_int_eq(ack->result, IWCM__RESULT__RES_OK);
	ck_assert(ack->has_conn_id);
	id = ack->conn_id;
	protobuf_c_message_free_unpacked(&ack->base, NULL);
	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_msg(M.hdr.type == IPC_EVENT_UNREACHABLE ||
			      M.hdr.type == IPC_EVENT_ERROR,
		      "got %s", ipc_type_name(M.hdr.type));
	e = (Iwcm__ConnError *)ipc_unpack(&M, &iwcm__conn_error__descriptor);
	ck_assert_ptr_nonnull(e);
	ck_assert_uint_eq(e->conn_id, id);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	close(fd);
}
END_TEST

/* Both ends through one daemon: CONNECT_REQUEST to the listener's
 * client, Accept acknowledged before ESTABLISHED on each side, and the
 * two handed-off fds are the two ends of one TCP connection. */
static int expect_established(int fd, uint64_t *conn_id)
{
	Iwcm__Established *e;
	int sock;

	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_msg(M.hdr.type == IPC_EVENT_ESTABLISHED, "got %s",
		      ipc_type_name(M.hdr.type));
	e = (Iwcm__Established *)ipc_unpack(&M, &iwcm__established__descriptor);
	ck_assert_ptr_nonnull(e);
	if (conn_id)
		*conn_id = e->conn_id;
	ck_assert_uint_eq(e->mpa_rev, 2);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	sock = ipc_take_fd(&M);
	ck_assert_int_ge(sock, 0);
	return sock;
}

START_TEST(test_end_to_end)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__Accept ac = IWCM__ACCEPT__INIT;
	Iwcm__ConnectRequest *cr;
	Iwcm__Ack *ack;
	uint8_t lo[4] = { 127, 0, 0, 1 };
	uint64_t lid, req_id, cid;
	uint32_t creq, areq;
	uint16_t port;
	int srv, cli, s1, s2;
	char buf[8];

	harness_start(&H, NULL);
	srv = ipc_open_hello(H.sock);
	cli = ipc_open_hello(H.sock);
	ck_assert_int_eq(listen_addr(srv, "127.0.0.1", 0, &lid, &port),
			 IWCM__RESULT__RES_OK);
	a.addr.data = lo;
	a.addr.len = 4;
	a.port = port;
	c.dst = &a;
	request(cli, IPC_CLIENT_CONNECT, &c.base, &creq);
	reply(cli, IPC_CLIENT_ACK, creq);
	ack = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(ack);
	ck_assert_int_eq(ack->result, IWCM__RESULT__RES_OK);
	cid = ack->conn_id;
	protobuf_c_message_free_unpacked(&ack->base, NULL);

	ck_assert_int_eq(ipc_wait(srv, &M), 1);
	ck_assert_uint_eq(M.hdr.type, IPC_EVENT_CONNECT_REQUEST);
	cr = (Iwcm__ConnectRequest *)ipc_unpack(
		&M, &iwcm__connect_request__descriptor);
	ck_assert_ptr_nonnull(cr);
	ck_assert_uint_eq(cr->listener_id, lid);
	req_id = cr->conn_id;
	protobuf_c_message_free_unpacked(&cr->base, NULL);

	ac.conn_id = req_id;
	request(srv, IPC_CLIENT_ACCEPT, &ac.base, &areq);
	reply(srv, IPC_CLIENT_ACK, areq);
	ack = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(ack);
	ck_assert_int_eq(ack->result, IWCM__RESULT__RES_OK);
	protobuf_c_message_free_unpacked(&ack->base, NULL);
	s1 = expect_established(srv, NULL);
	s2 = expect_established(cli, &cid);
	ck_assert_int_eq(write(s2, "ping", 4), 4);
	ck_assert_int_eq(read(s1, buf, sizeof(buf)), 4);
	ck_assert_mem_eq(buf, "ping", 4);
	close(s1);
	close(s2);
	close(srv);
	close(cli);
}
END_TEST

static Suite *daemon_control_suite(void)
{
	Suite *s = suite_create("daemon_control");

	daemon_add_test(s, "hello", test_hello);
	daemon_add_test(s, "bad_version", test_bad_version);
	daemon_add_test(s, "socket_modes", test_socket_modes);
	daemon_add_test(s, "bad_messages", test_bad_messages);
	daemon_add_test(s, "listen_bound_port", test_listen_bound_port);
	daemon_add_test(s, "listen_invalid", test_listen_invalid);
	daemon_add_test(s, "unlisten", test_unlisten);
	daemon_add_test(s, "client_gone", test_client_gone);
	daemon_add_test(s, "limits", test_limits);
	daemon_add_test(s, "privileged_port", test_privileged_port);
	daemon_add_test(s, "connect_checks", test_connect_checks);
	daemon_add_test(s, "connect_ack_first", test_connect_ack_first);
	daemon_add_test(s, "end_to_end", test_end_to_end);
	return s;
}

TEST_MAIN(daemon_control_suite)
