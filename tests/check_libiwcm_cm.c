/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm connection management against a fake daemon in this program: a
 * thread serves a temporary SEQPACKET socket with proto/ipc and plays one
 * script per test (HELLO/VERSION, Listen, Connect, CONNECT_REQUEST,
 * ESTABLISHED with a real TCP socket, REJECTED, UNREACHABLE, ERROR, bad
 * versions, malformed handoffs, going away).  Checked: every accessor, fd
 * ownership (taken once, closed with the handle unless released), errno
 * on every error, the event fd, and no fd leaked by any test.  The fake
 * is cm_fake.c; what goes wrong is in check_libiwcm_cm_err.c, the real
 * iwcmd end to end in check_libiwcm_e2e.c.
 */
#include "config.h"

#include "cm_fake.h"

/* ---- scripts and tests ---- */

START_TEST(test_no_daemon)
{
	char dir[] = "/tmp/iwcm-cm-XXXXXX", path[128], longp[200];
	struct sockaddr_un sun;
	int fds = open_fds(), s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/iwcmd.sock", dir);
	/* No socket file. */
	ERRNO_NULL(iwcm_ctx_open_path(path, 0), ECONNREFUSED);
	setenv("IWCM_SOCKET", path, 1);
	ERRNO_NULL(iwcm_ctx_open(0), ECONNREFUSED);
	/* A socket file nobody listens on (a dead daemon's). */
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ERRNO_NULL(iwcm_ctx_open_path(path, 0), ECONNREFUSED);
	ERRNO_NULL(iwcm_ctx_open(0), ECONNREFUSED);
	close(s);
	unlink(path);
	rmdir(dir);
	/* Bad arguments. */
	ERRNO_NULL(iwcm_ctx_open_path(NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_ctx_open_path("", 0), EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	ERRNO_NULL(iwcm_ctx_open_path(longp, 0), EINVAL);
	ERRNO_NULL(iwcm_ctx_open_path(path, 0x100), EINVAL);
	ERRNO_IS(iwcm_ctx_get_fd(NULL), EINVAL);
	iwcm_ctx_close(NULL);
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

START_TEST(test_hello)
{
	struct iwcm_ctx *ctx;

	fake_start(NULL, false);
	setenv("IWCM_SOCKET", F.path, 1);
	ctx = iwcm_ctx_open(0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_ge(iwcm_ctx_get_fd(ctx), 0);
	ck_assert(!readable(iwcm_ctx_get_fd(ctx), 0));
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Each variant answers HELLO in a way that is not our protocol. */
static void script_bad_version(struct fake *f)
{
	Iwcm__Version v = IWCM__VERSION__INIT;
	Iwcm__Ack a = IWCM__ACK__INIT;
	uint8_t raw[IPC_HDR_LEN] = { 0, 2, 0, IPC_VERSION, 0, 0, 0, 1 };

	FAKE_REQUIRE(f, fake_expect(f, IPC_HELLO, &iwcm__hello__descriptor));
	v.version = IPC_PROTO_VERSION;
	v.result = IWCM__RESULT__RES_OK;
	switch (f->variant) {
	case 0: /* the daemon says mismatch, then closes */
		v.version = IPC_PROTO_VERSION + 1;
		v.result = IWCM__RESULT__RES_EVERSION;
		fake_send(f, IPC_VERSION, f->reqid, &v.base, -1);
		break;
	case 1: /* OK but another version */
		v.version = IPC_PROTO_VERSION + 1;
		fake_send(f, IPC_VERSION, f->reqid, &v.base, -1);
		break;
	case 2: /* a header of another version */
		FAKE_REQUIRE(f, send(f->sock, raw, sizeof(raw), 0) ==
					(ssize_t)sizeof(raw));
		break;
	case 3: /* not a VERSION at all */
		a.result = IWCM__RESULT__RES_OK;
		fake_send(f, IPC_CLIENT_ACK, f->reqid, &a.base, -1);
		break;
	case 4: /* a VERSION body that does not parse */
		FAKE_REQUIRE(f, fake_send(f, IPC_VERSION, f->reqid, NULL, -1));
		break;
	case 5: /* hangs up */
		break;
	}
	shutdown(f->sock, SHUT_RDWR);
}

START_TEST(test_bad_version)
{
	fake_start(script_bad_version, true);
	F.variant = _i;
	ERRNO_NULL(iwcm_ctx_open_path(F.path, 0), EPROTO);
	fake_finish();
}
END_TEST

static void script_listen(struct fake *f)
{
	Iwcm__ListenReply r = IWCM__LISTEN_REPLY__INIT;
	Iwcm__SockAddr bound;
	uint8_t buf[16];
	Iwcm__Listen *l;
	Iwcm__Unlisten *u;
	static const uint8_t six[16] = { [15] = 1 };

	/* By address, with parameters. */
	l = (Iwcm__Listen *)fake_expect(f, IPC_CLIENT_LISTEN,
					&iwcm__listen__descriptor);
	FAKE_REQUIRE(f, l && l->addr && !l->service);
	FAKE_REQUIRE(f, l->addr->addr.len == 4 && l->addr->port == 0);
	FAKE_REQUIRE(f, memcmp(l->addr->addr.data, "\x7f\0\0\x01", 4) == 0);
	FAKE_REQUIRE(f, l->has_backlog && l->backlog == 16);
	FAKE_REQUIRE(f, l->params && l->params->has_p2p && l->params->p2p);
	FAKE_REQUIRE(f, l->params->has_ird && l->params->ird == 3);
	FAKE_REQUIRE(f, !l->params->has_ord && !l->params->has_private_data);
	r.result = IWCM__RESULT__RES_OK;
	r.has_listener_id = 1;
	r.listener_id = 7;
	pb_addr4(&bound, buf, "127.0.0.1", 4791);
	r.bound = &bound;
	FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid, &r.base,
				  -1));
	/* By service name, bound on IPv6. */
	l = (Iwcm__Listen *)fake_expect(f, IPC_CLIENT_LISTEN,
					&iwcm__listen__descriptor);
	FAKE_REQUIRE(f, l && !l->addr && l->service);
	FAKE_REQUIRE(f, strcmp(l->service, "mpi") == 0);
	FAKE_REQUIRE(f, !l->has_backlog && !l->params);
	r.listener_id = 8;
	bound.addr.data = (uint8_t *)six;
	bound.addr.len = 16;
	bound.port = 18515;
	FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid, &r.base,
				  -1));
	/* The daemon refuses: each result code maps to an errno. */
	{
		static const Iwcm__Result res[] = {
			IWCM__RESULT__RES_EADDRINUSE,
			IWCM__RESULT__RES_EPERM,
			IWCM__RESULT__RES_ELIMIT,
			IWCM__RESULT__RES_EEXIST,
			IWCM__RESULT__RES_ENOENT,
			IWCM__RESULT__RES_EINVAL,
			IWCM__RESULT__RES_ESHUTDOWN,
			IWCM__RESULT__RES_EINTERNAL,
		};
		Iwcm__ListenReply no = IWCM__LISTEN_REPLY__INIT;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(res); i++) {
			FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
						    &iwcm__listen__descriptor));
			no.result = res[i];
			FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY,
						  f->reqid, &no.base, -1));
		}
		/* OK without the bound address. */
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
					    &iwcm__listen__descriptor));
		no.result = IWCM__RESULT__RES_OK;
		no.has_listener_id = 1;
		no.listener_id = 9;
		FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid,
					  &no.base, -1));
		/* A reply of the wrong type. */
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
					    &iwcm__listen__descriptor));
		FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	}
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 7);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 8);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_listen)
{
	static const int want[] = { EADDRINUSE, EACCES, EMFILE,	   EEXIST,
				    ENOENT,	EINVAL, ESHUTDOWN, EIO };
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_listener *l4, *l6;
	struct sockaddr_in sin;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const struct sockaddr_in6 *s6;
	struct iwcm_ctx *ctx;
	char longname[80];
	size_t i;

	fake_start(script_listen, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	/* Refused before anything is sent. */
	ERRNO_NULL(iwcm_listen(NULL, (struct sockaddr *)&sin, NULL, NULL, 0),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, NULL, NULL, NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, "mpi", NULL, 0),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, -1),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "", NULL, 0), EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ERRNO_NULL(iwcm_listen(ctx, NULL, longname, NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sun, NULL, NULL, 0),
		   EAFNOSUPPORT);

	ck_assert_int_eq(iwcm_conn_param_set_p2p(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, 3), 0);
	l4 = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, p, 16);
	ck_assert_msg(l4 != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_int_eq(iwcm_listener_get_port(l4), 4791);
	check_addr4(iwcm_listener_get_addr(l4), 4791);
	l6 = iwcm_listen(ctx, NULL, "mpi", NULL, 0);
	ck_assert_ptr_nonnull(l6);
	ck_assert_int_eq(iwcm_listener_get_port(l6), 18515);
	s6 = (const struct sockaddr_in6 *)iwcm_listener_get_addr(l6);
	ck_assert_int_eq(s6->sin6_family, AF_INET6);
	ck_assert(IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), want[i]);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), EPROTO);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), EPROTO);
	ERRNO_IS(iwcm_listener_get_port(NULL), EINVAL);
	ERRNO_NULL(iwcm_listener_get_addr(NULL), EINVAL);
	ck_assert_int_eq(iwcm_listener_close(l4), 0);
	ERRNO_IS(iwcm_listener_close(l6), ENOENT);
	ck_assert_int_eq(iwcm_listener_close(NULL), 0);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Connect with every parameter set; ESTABLISHED with the TCP socket. */
static void script_connect(struct fake *f)
{
	Iwcm__Connect *c;
	Iwcm__ConnParams *p;

	c = (Iwcm__Connect *)fake_expect(f, IPC_CLIENT_CONNECT,
					 &iwcm__connect__descriptor);
	FAKE_REQUIRE(f, c && c->dst && c->src && c->params);
	FAKE_REQUIRE(f, c->dst->addr.len == 4 && c->dst->port == 4791);
	FAKE_REQUIRE(f, memcmp(c->dst->addr.data, "\x7f\0\0\x01", 4) == 0);
	FAKE_REQUIRE(f, c->src->addr.len == 4 && c->src->port == 0);
	p = c->params;
	FAKE_REQUIRE(f, p->has_ird && p->ird == 16);
	FAKE_REQUIRE(f, p->has_ord && p->ord == 8);
	FAKE_REQUIRE(f, p->has_p2p && p->p2p);
	FAKE_REQUIRE(f, p->has_rtr_types && p->rtr_types == IWCM_RTR_READ);
	FAKE_REQUIRE(f, p->has_private_data && p->private_data.len == 508);
	FAKE_REQUIRE(f, p->private_data.data[507] == 0xAB);
	FAKE_REQUIRE(f, p->has_mpa_rev && p->mpa_rev == 2);
	FAKE_REQUIRE(f, p->has_markers && p->markers);
	FAKE_REQUIRE(f,
		     p->has_crc && p->crc == IWCM__CRC_POLICY__CRC_PREFER_OFF);
	FAKE_REQUIRE(f, p->has_rev0 &&
				p->rev0 == IWCM__REV0_POLICY__REV0_PERMISSIVE);
	FAKE_REQUIRE(f, p->has_enhanced_fallback && p->enhanced_fallback);
	FAKE_REQUIRE(f, p->has_reply_timeout_ms && p->reply_timeout_ms == 2500);
	FAKE_REQUIRE(f, p->has_ulp_timeout_ms && p->ulp_timeout_ms == 100);
	FAKE_REQUIRE(f, p->has_rtr_frame && !p->rtr_frame);
	FAKE_REQUIRE(f, p->has_transport &&
				p->transport == IWCM__TRANSPORT__TRANSPORT_TCP);
	/* our QP takes a Read RTR's Response (RFC 6581 §9.2) */
	FAKE_REQUIRE(f, p->has_qp_takes_read_resp && p->qp_takes_read_resp);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 42));
	if (!fake_wait_go(f))
		return;
	FAKE_REQUIRE(f, fake_established(f, 42, true, f->lib_fd, 0));
	/* The library holds the only copy now. */
	close(f->lib_fd);
	f->lib_fd = -1;
}

static struct iwcm_conn_param *full_params(void)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX];

	memset(pd, 0xAB, sizeof(pd));
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, 16), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 8), 0);
	ck_assert_int_eq(iwcm_conn_param_set_p2p(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_types(p, IWCM_RTR_READ), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 508), 0);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_markers(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_crc(p, IWCM_CRC_PREFER_OFF), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rev0(p, IWCM_REV0_PERMISSIVE), 0);
	ck_assert_int_eq(iwcm_conn_param_set_fallback(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_reply_timeout(p, 2500), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ulp_timeout(p, 100), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_frame(p, false), 0);
	ck_assert_int_eq(iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_TCP),
			 0);
	return p;
}

START_TEST(test_connect_established)
{
	struct iwcm_conn_param *p;
	struct sockaddr_in dst, src;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;
	int fd;

	fake_start(script_connect, false);
	ctx = open_ctx(0);
	sin4(&dst, "127.0.0.1", 4791);
	sin4(&src, "0.0.0.0", 0);
	p = full_params();
	c = iwcm_connect(ctx, (struct sockaddr *)&dst, (struct sockaddr *)&src,
			 p);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_uint_eq(qa(c).id, 42);
	ck_assert_int_eq(qa(c).initiator, 1);
	check_addr4(qa_addr(c, false), 4791);
	ck_assert_ptr_null(qa_addr(c, true));
	ck_assert_ptr_null(qa(c).listener);
	check_not_established(c);
	check_no_peer_info(c);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	ERRNO_NULL(iwcm_event_get_listener(ev), ENOENT);
	iwcm_ack_event(ev);
	check_established(c, true);
	fd = iwcm_conn_get_fd(c);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(iwcm_conn_get_fd(c), fd);
	/* The descriptor is close-on-exec like every one we make. */
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_fd_works(fd);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

START_TEST(test_release_fd_owned_by_caller)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;
	int fd;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	iwcm_ack_event(ev);
	fd = iwcm_conn_release_fd(c);
	ck_assert_int_ge(fd, 0);
	ERRNO_IS(iwcm_conn_release_fd(c), EBADF);
	ERRNO_IS(iwcm_conn_get_fd(c), EBADF);
	/* The negotiated state stays readable. */
	check_established(c, true);
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	/* Still ours and still connected. */
	assert_fd_works(fd);
	close(fd);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

/* An event outlives iwcm_conn_free() of its connection until acked. */
START_TEST(test_free_before_ack)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	ck_assert_int_eq(iwcm_event_get_type(ev), IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	iwcm_ack_event(NULL);
	iwcm_conn_free(NULL);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* A handle and its events not freed by the caller go with the context. */
START_TEST(test_ctx_close_frees_all)
{
	struct iwcm_ctx *ctx;
	struct iwcm_event *ev;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	(void)ev;
	iwcm_ctx_close(ctx);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

static void script_accept(struct fake *f)
{
	Iwcm__Accept *a;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 9, 3, true));
	a = (Iwcm__Accept *)fake_expect(f, IPC_CLIENT_ACCEPT,
					&iwcm__accept__descriptor);
	FAKE_REQUIRE(f, a && a->conn_id == 9 && a->params);
	FAKE_REQUIRE(f, a->params->has_ord && a->params->ord == 16);
	FAKE_REQUIRE(f, a->params->has_private_data &&
				a->params->private_data.len == 3 &&
				memcmp(a->params->private_data.data, "yes",
				       3) == 0);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	FAKE_REQUIRE(f, fake_established(f, 9, false, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_UNLISTEN,
				    &iwcm__unlisten__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
}

START_TEST(test_connect_request_accept)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t big[IWCM_PRIVATE_DATA_MAX] = { 0 };
	struct sockaddr_in sin;
	struct iwcm_listener *l;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_accept, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(iwcm_event_get_listener(ev), l);
	c = iwcm_event_get_conn(ev);
	ck_assert_ptr_nonnull(c);
	iwcm_ack_event(ev);
	ck_assert_ptr_eq(qa(c).listener, l);
	ck_assert_uint_eq(qa(c).id, 9);
	ck_assert_int_eq(qa(c).initiator, 0);
	check_addr4(qa_addr(c, true), F.lib_port);
	check_addr4(qa_addr(c, false), F.peer_port);
	check_peer_info(c);
	check_not_established(c);
	/* An enhanced request leaves 508 octets for the reply's data. */
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, big, 509), 0);
	ERRNO_IS(iwcm_accept(c, p), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, "yes", 3), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 16), 0);
	ck_assert_int_eq(iwcm_accept(c, p), 0);
	iwcm_conn_param_free(p);
	ERRNO_IS(iwcm_accept(c, NULL), EINVAL);
	ERRNO_IS(iwcm_reject(c, NULL, 0), EINVAL);
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	check_established(c, false);
	assert_fd_works(iwcm_conn_get_fd(c));
	/* The request's connection outlives its listener. */
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	ck_assert_ptr_null(qa(c).listener);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static void script_reject(struct fake *f)
{
	Iwcm__Reject *r;
	Iwcm__Unlisten *u;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 10, 3, false));
	FAKE_REQUIRE(f, fake_connect_request(f, 11, 3, true));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 10 && r->has_private_data &&
				r->private_data.len == 512);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 11 && !r->has_private_data);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	/* A request for a listener the library does not know (closed
	 * meanwhile) is rejected by the library itself. */
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 3);
	FAKE_REQUIRE(f, fake_connect_request(f, 12, 3, true));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 12);
	/* A request the caller frees undecided is rejected too. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 4));
	FAKE_REQUIRE(f, fake_connect_request(f, 13, 4, true));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 13);
}

START_TEST(test_reject)
{
	uint8_t big[IWCM_PRIVATE_DATA_MAX + 1] = { 0 };
	struct sockaddr_in sin;
	struct iwcm_listener *l;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c10, *c11, *c13;
	struct iwcm_event *ev;

	fake_start(script_reject, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c10 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c11 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	/* An unenhanced request leaves all 512 octets. */
	ck_assert_int_eq(qa(c10).peer_enhanced, 0);
	ERRNO_IS(iwcm_reject(c10, big, sizeof(big)), EINVAL);
	ERRNO_IS(iwcm_reject(c10, NULL, 1), EINVAL);
	ERRNO_IS(iwcm_reject(c11, big, 509), EINVAL);
	ERRNO_IS(iwcm_reject(NULL, NULL, 0), EINVAL);
	ck_assert_int_eq(iwcm_reject(c10, big, 512), 0);
	ERRNO_IS(iwcm_accept(c10, NULL), EINVAL);
	ERRNO_IS(iwcm_reject(c10, NULL, 0), EINVAL);
	check_not_established(c10);
	ERRNO_IS(iwcm_reject(c11, NULL, 0), ENOENT);
	iwcm_conn_free(c10);
	iwcm_conn_free(c11);
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c13 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	iwcm_conn_free(c13);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static Suite *libiwcm_cm_suite(void)
{
	Suite *s = suite_create("libiwcm_cm");

	add_tcase(s, "no_daemon", test_no_daemon);
	add_tcase(s, "hello", test_hello);
	add_loop_tcase(s, "bad_version", test_bad_version, 6);
	add_tcase(s, "listen", test_listen);
	add_tcase(s, "connect_established", test_connect_established);
	add_tcase(s, "release_fd", test_release_fd_owned_by_caller);
	add_tcase(s, "free_before_ack", test_free_before_ack);
	add_tcase(s, "ctx_close_frees_all", test_ctx_close_frees_all);
	add_tcase(s, "connect_request_accept", test_connect_request_accept);
	add_tcase(s, "reject", test_reject);
	return s;
}

TEST_MAIN(libiwcm_cm_suite)
