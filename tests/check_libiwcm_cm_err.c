/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm connection management against the fake daemon (cm_fake.c) when
 * things go wrong: connect failures, malformed handoffs, the event fd in
 * non-blocking mode, the daemon going away, abandoned and refused
 * requests, and every invalid argument.
 */

#include "config.h"

#include "cm_fake.h"

/* Each outcome of a connect other than ESTABLISHED. */
static void script_failures(struct fake *f)
{
	Iwcm__Rejected rj = IWCM__REJECTED__INIT;
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;
	Iwcm__PeerInfo pi;
	uint64_t id;

	for (id = 100; id < 103; id++) {
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
					    &iwcm__connect__descriptor));
		FAKE_REQUIRE(f,
			     fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, id));
	}
	fill_peer_info(&pi);
	pi.flags |= IWCM_MPA_FLAG_R;
	rj.conn_id = 100;
	rj.result = IWCM__RESULT__RES_EREJECTED;
	rj.peer_info = &pi;
	rj.reason = "peer says no";
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_REJECTED, 0, &rj.base, -1));
	ce.conn_id = 101;
	ce.result = IWCM__RESULT__RES_ETIMEDOUT;
	ce.reason = "no SYN-ACK";
	/* A Terminate out of RFC 5040 §4.8 range is dropped. */
	ce.has_term_layer = ce.has_term_etype = ce.has_term_ecode = 1;
	ce.term_layer = 2;
	ce.term_etype = 0;
	ce.term_ecode = 0x106;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	ce.conn_id = 102;
	ce.result = IWCM__RESULT__RES_EPROTO;
	ce.reason = NULL;
	ce.has_term_layer = ce.has_term_etype = ce.has_term_ecode = 1;
	ce.term_layer = 2;
	ce.term_etype = 0;
	ce.term_ecode = 6;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	/* A second outcome for a finished connection is ignored. */
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_established(f, 100, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	/* The daemon refuses to connect at all. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ELIMIT, 0));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_EPERM, 0));
	/* OK without a connection id. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
}

START_TEST(test_connect_failures)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c[3];
	struct iwcm_event *ev;
	const void *pd;
	size_t len;
	int i;

	fake_start(script_failures, false);
	ctx = open_ctx(0);
	for (i = 0; i < 3; i++)
		c[i] = connect_simple(ctx);

	ev = get_event(ctx, IWCM_CM_EVENT_REJECTED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[0]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[0]).reason, IWCM_STATUS_REJECTED);
	ck_assert_str_eq(qa(c[0]).reason_text, "peer says no");
	ck_assert_str_eq(iwcm_status_str(qa(c[0]).reason),
			 "rejected by the peer");
	/* RFC 6581 §9.1: the responder's IRD/ORD reach the ULP on reject. */
	ck_assert_int_eq(qa(c[0]).peer_ord, 16);
	ck_assert_int_eq(qa(c[0]).peer_flags & IWCM_MPA_FLAG_R,
			 IWCM_MPA_FLAG_R);
	pd = qa(c[0]).peer_private_data;
	len = qa(c[0]).peer_private_data_len;
	ck_assert_uint_eq(len, sizeof(peer_pd));
	ck_assert_int_eq(memcmp(pd, peer_pd, len), 0);
	ck_assert_uint_eq(qa(c[0]).comp_mask & IWCM_CONN_ATTR_TERM, 0);
	check_not_established(c[0]);

	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[1]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[1]).reason, IWCM_STATUS_TIMEDOUT);
	ck_assert_str_eq(qa(c[1]).reason_text, "no SYN-ACK");
	ck_assert_uint_eq(qa(c[1]).comp_mask & IWCM_CONN_ATTR_TERM, 0);
	check_no_peer_info(c[1]);

	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[2]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[2]).reason, IWCM_STATUS_PROTOCOL);
	ck_assert_ptr_null(qa(c[2]).reason_text);
	ck_assert_uint_eq(qa(c[2]).comp_mask & IWCM_CONN_ATTR_TERM,
			  IWCM_CONN_ATTR_TERM);
	ck_assert_uint_eq(qa(c[2]).term_layer, 2);
	ck_assert_uint_eq(qa(c[2]).term_etype, 0);
	ck_assert_uint_eq(qa(c[2]).term_ecode, 6);

	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EMFILE);
	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EACCES);
	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EPROTO);
	/* The late ESTABLISHED for the rejected connection was dropped
	 * and its socket closed. */
	assert_lib_fd_closed();
	for (i = 0; i < 3; i++)
		iwcm_conn_free(c[i]);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Malformed handoffs fail the connection and close the socket. */
static void script_malformed(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 77));
	if (f->variant == 0) {
		/* no fd */
		FAKE_REQUIRE(f, fake_established(f, 77, true, -1, 0));
	} else if (f->variant == 8) {
		/* a body that does not parse, then the real one */
		FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ESTABLISHED, 0, NULL,
					  f->lib_fd));
		FAKE_REQUIRE(f, fake_established(f, 78, true, f->lib_fd, 0));
		FAKE_REQUIRE(f, fake_established(f, 77, true, -1, 2));
	} else {
		FAKE_REQUIRE(f, fake_established(f, 77, true, f->lib_fd,
						 f->variant));
	}
	close(f->lib_fd);
	f->lib_fd = -1;
}

START_TEST(test_malformed_established)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_malformed, false);
	F.variant = _i;
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_PROTOCOL);
	ck_assert_ptr_nonnull(qa(c).reason_text);
	check_not_established(c);
	/* Every copy of the socket the daemon passed is closed. */
	assert_lib_fd_closed();
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Non-blocking mode and the event fd. */
static void script_nonblock(struct fake *f)
{
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 1));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 2));
	if (!fake_wait_go(f))
		return;
	ce.conn_id = 1;
	ce.result = IWCM__RESULT__RES_ECONNREFUSED;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	/* An event that arrives while a request waits for its reply. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	ce.conn_id = 2;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_listen_reply(f, 1));
}

START_TEST(test_nonblock_event_fd)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c1, *c2;
	struct iwcm_event *ev = NULL;
	struct iwcm_listener *l;
	int efd;

	fake_start(script_nonblock, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	efd = iwcm_ctx_get_fd(ctx);
	c1 = connect_simple(ctx);
	c2 = connect_simple(ctx);
	ck_assert(!readable(efd, 0));
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	ck_assert_ptr_null(ev);
	ERRNO_IS(iwcm_get_event(ctx, NULL), EINVAL);
	ERRNO_IS(iwcm_get_event(NULL, &ev), EINVAL);
	go();
	ck_assert(readable(efd, 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c1);
	ck_assert_int_eq(qa(c1).reason, IWCM_STATUS_REFUSED);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	ck_assert(!readable(efd, 0));
	/* The event comes in during iwcm_listen(): the socket is empty
	 * afterwards, the event fd must still say "ready". */
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(efd, 0));
	ck_assert(readable(efd, 0));
	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c2);
	ck_assert(!readable(efd, 0));
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	iwcm_conn_free(c1);
	iwcm_conn_free(c2);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* The daemon goes away: pending connections fail, then ECONNRESET. */
static void script_gone(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 1));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 2));
	FAKE_REQUIRE(f, fake_established(f, 2, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	shutdown(f->sock, SHUT_RDWR);
}

START_TEST(test_daemon_gone)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c1, *c2;
	struct iwcm_event *ev;

	fake_start(script_gone, false);
	ctx = open_ctx(0);
	c1 = connect_simple(ctx);
	c2 = connect_simple(ctx);
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c2);
	iwcm_ack_event(ev);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c1);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c1).reason, IWCM_STATUS_RESET);
	ERRNO_IS(iwcm_get_event(ctx, &ev), ECONNRESET);
	ERRNO_IS(iwcm_get_event(ctx, &ev), ECONNRESET);
	/* The established connection does not depend on the daemon. */
	assert_fd_works(iwcm_conn_get_fd(c2));
	sin4(&sin, "127.0.0.1", 1);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&sin, NULL, NULL),
		   ECONNRESET);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0),
		   ECONNRESET);
	iwcm_conn_free(c1);
	iwcm_ctx_close(ctx);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

/* A connection freed while being negotiated is abandoned. */
static void script_abandon(struct fake *f)
{
	Iwcm__Disconnect *d;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 31));
	d = (Iwcm__Disconnect *)fake_expect(f, IPC_CLIENT_DISCONNECT,
					    &iwcm__disconnect__descriptor);
	FAKE_REQUIRE(f, d && d->conn_id == 31);
	/* Too late: the handoff raced with the Disconnect. */
	FAKE_REQUIRE(f, fake_established(f, 31, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_abandon)
{
	struct iwcm_ctx *ctx;
	struct iwcm_event *ev;
	int i;

	fake_start(script_abandon, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	iwcm_conn_free(connect_simple(ctx));
	/* The late socket is closed and no event is left behind. */
	for (i = 0; i < 500 && !readable(F.peer_fd, 10); i++)
		ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	assert_lib_fd_closed();
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

START_TEST(test_params_einval)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX + 1] = { 0 };
	struct iwcm_conn_attr attr;

	ck_assert_ptr_nonnull(p);
	ERRNO_IS(iwcm_conn_param_set_ird(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ird(p, 0x4000), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, IWCM_IRD_ORD_NONE), 0);
	ERRNO_IS(iwcm_conn_param_set_ord(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ord(p, 0x4000), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 0), 0);
	ERRNO_IS(iwcm_conn_param_set_p2p(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(p, 8), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_types(p, 7), 0);
	ERRNO_IS(iwcm_conn_param_set_private_data(NULL, pd, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_private_data(p, NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_private_data(p, pd, 513), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 512), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, NULL, 0), 0);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(p, 3), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_markers(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_crc(NULL, IWCM_CRC_REQUEST), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_crc(p, (enum iwcm_crc_policy)2), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rev0(NULL, IWCM_REV0_STRICT), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rev0(p, (enum iwcm_rev0_policy)2), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_fallback(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(NULL, 1000), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(p, 600001), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(NULL, 1000), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(p, 99), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(p, 3600001), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_frame(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_transport(NULL, IWCM_TRANSPORT_TCP),
		 EINVAL);
	ERRNO_IS(iwcm_conn_param_set_transport(p, (enum iwcm_transport)2),
		 EINVAL);
	iwcm_conn_param_free(p);
	iwcm_conn_param_free(NULL);

	/* Accessors of no connection or event. */
	memset(&attr, 0, sizeof(attr));
	ERRNO_IS(iwcm_conn_query(NULL, &attr), EINVAL);
	ERRNO_IS(iwcm_conn_query(NULL, NULL), EINVAL);
	ERRNO_IS(iwcm_conn_get_fd(NULL), EINVAL);
	ERRNO_IS(iwcm_conn_release_fd(NULL), EINVAL);
	errno = 0;
	ck_assert_int_eq(iwcm_event_get_type(NULL), 0);
	ck_assert_int_eq(errno, EINVAL);
	ERRNO_NULL(iwcm_event_get_conn(NULL), EINVAL);
	ERRNO_NULL(iwcm_event_get_listener(NULL), EINVAL);
	ERRNO_IS(iwcm_accept(NULL, NULL), EINVAL);

	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_REQUEST),
			 "CONNECT_REQUEST");
	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_ERROR),
			 "CONNECT_ERROR");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type)0),
			 "UNKNOWN");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type) - 1),
			 "UNKNOWN");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type)99),
			 "UNKNOWN");
	/* The CM events and the verbs' async events are distinct types. */
	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_REQUEST),
			 "CONNECT_REQUEST");
	ck_assert_str_eq(iwcm_status_str(IWCM_STATUS_OK), "success");
	ck_assert_str_eq(iwcm_status_str(IWCM_STATUS_SHUTDOWN),
			 "daemon shutting down");
	ck_assert_str_eq(iwcm_status_str((enum iwcm_status) - 1),
			 "unknown status");
	ck_assert_str_eq(iwcm_status_str((enum iwcm_status)15),
			 "unknown status");
}
END_TEST

/* Addresses and private data are checked before anything is sent. */
static void script_connect_args(struct fake *f)
{
	Iwcm__Connect *c;

	/* Only the MPA v1 connect with 512 octets reaches the daemon. */
	c = (Iwcm__Connect *)fake_expect(f, IPC_CLIENT_CONNECT,
					 &iwcm__connect__descriptor);
	FAKE_REQUIRE(f, c && c->params && c->params->private_data.len == 512);
	FAKE_REQUIRE(f, c->dst->addr.len == 16 && c->dst->port == 4791);
	FAKE_REQUIRE(f, !c->src);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 8));
}

START_TEST(test_connect_args)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX] = { 0 };
	struct sockaddr_in dst, src0;
	struct sockaddr_in6 dst6;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;

	fake_start(script_connect_args, false);
	ctx = open_ctx(0);
	sin4(&dst, "127.0.0.1", 4791);
	sin4(&src0, "127.0.0.1", 0);
	memset(&dst6, 0, sizeof(dst6));
	dst6.sin6_family = AF_INET6;
	dst6.sin6_addr = in6addr_loopback;
	dst6.sin6_port = htons(4791);
	ERRNO_NULL(iwcm_connect(NULL, (struct sockaddr *)&dst, NULL, NULL),
		   EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, NULL, NULL, NULL), EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&sun, NULL, NULL),
		   EAFNOSUPPORT);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst,
				(struct sockaddr *)&sun, NULL),
		   EAFNOSUPPORT);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&src0, NULL, NULL),
		   EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6,
				(struct sockaddr *)&src0, NULL),
		   EINVAL);
	/* 512 octets fit only an MPA v1 frame (no enhanced word). */
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 512), 0);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p),
		   EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 2), 0);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p),
		   EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 1), 0);
	c = iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_int_eq(qa_addr(c, false)->sa_family, AF_INET6);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Requests that error: an Accept the daemon refuses. */
static void script_accept_refused(struct fake *f)
{
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 9, 3, true));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	/* The request timed out in the daemon as the Accept came. */
	ce.conn_id = 9;
	ce.result = IWCM__RESULT__RES_ETIMEDOUT;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	/* A request that expired without an event. */
	FAKE_REQUIRE(f, fake_connect_request(f, 10, 3, true));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_accept_refused)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_accept_refused, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(
		iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_accept(c, NULL), ENOENT);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_TIMEDOUT);
	ERRNO_IS(iwcm_accept(c, NULL), EINVAL);
	iwcm_conn_free(c);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_accept(c, NULL), ENOENT);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_NOENT);
	/* Gone in the daemon: freeing it sends nothing. */
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static Suite *libiwcm_cm_err_suite(void)
{
	Suite *s = suite_create("libiwcm_cm_err");

	add_tcase(s, "connect_failures", test_connect_failures);
	add_loop_tcase(s, "malformed_established", test_malformed_established,
		       9);
	add_tcase(s, "nonblock_event_fd", test_nonblock_event_fd);
	add_tcase(s, "daemon_gone", test_daemon_gone);
	add_tcase(s, "abandon", test_abandon);
	add_tcase(s, "params_einval", test_params_einval);
	add_tcase(s, "connect_args", test_connect_args);
	add_tcase(s, "accept_refused", test_accept_refused);
	return s;
}

TEST_MAIN(libiwcm_cm_err_suite)
