/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm with IWCM_CTX_ASYNC_CM against the fake daemon (cm_fake.c):
 * iwcm_connect(), iwcm_accept() and iwcm_reject() return before the
 * daemon answers; its Acks arrive with the events and name the
 * connections; a refusal fails the connection with CONNECT_ERROR and its
 * reason; a connection freed before its Ack is disconnected once the Ack
 * names it; and the daemon going away releases what waited for an Ack.
 */

#include "config.h"

#include <stdatomic.h>

#include "cm_fake.h"

static atomic_int script_done;

/* Run the library (nonblocking) until the script finished. */
static void pump_until_done(struct iwcm_ctx *ctx)
{
	struct iwcm_event *ev;
	int i;

	for (i = 0; i < 1000 && !atomic_load(&script_done); i++) {
		(void)readable(iwcm_ctx_get_fd(ctx), 10);
		ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	}
	ck_assert_msg(atomic_load(&script_done), "script stuck: %s", F.err);
}

/*
 * The next event of a nonblocking context, waiting up to 5 s for it.  A
 * readable descriptor says only that an event may be ready: a message
 * without one (the Ack of an accepted request) wakes it too, and the
 * event may come after it.
 */
static struct iwcm_event *wait_event(struct iwcm_ctx *ctx,
				     enum iwcm_cm_event_type type)
{
	struct iwcm_event *ev = NULL;
	int i;

	for (i = 0; i < 500; i++) {
		(void)readable(iwcm_ctx_get_fd(ctx), 10);
		if (iwcm_get_event(ctx, &ev) == 0)
			break;
		ck_assert_msg(errno == EAGAIN, "get_event: %s (%s)",
			      strerror(errno), F.err);
	}
	ck_assert_msg(ev != NULL, "no event: %s", F.err);
	ck_assert_msg(iwcm_event_get_type(ev) == type, "event %s, want %s",
		      iwcm_cm_event_str(iwcm_event_get_type(ev)),
		      iwcm_cm_event_str(type));
	return ev;
}

/*
 * Three Connects, then a Listen; the Acks (one refused, one without a
 * connection id) come only after the Listen, so none of the connects
 * waited for them, and arrive while iwcm_listen() waits for its reply.
 */
static void script_connects(struct fake *f)
{
	uint32_t r[3];
	int i;

	for (i = 0; i < 3; i++) {
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
					    &iwcm__connect__descriptor));
		r[i] = f->reqid;
	}
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, r[0], IWCM__RESULT__RES_OK, 41));
	FAKE_REQUIRE(f, fake_ack(f, r[1], IWCM__RESULT__RES_ELIMIT, 0));
	FAKE_REQUIRE(f, fake_ack(f, r[2], IWCM__RESULT__RES_OK, 0));
	/* an Ack of no request is ignored */
	FAKE_REQUIRE(f, fake_ack(f, 0x7fff0000, IWCM__RESULT__RES_OK, 99));
	FAKE_REQUIRE(f, fake_established(f, 41, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_listen_reply(f, 7));
}

START_TEST(test_async_connects)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c[3];
	struct iwcm_event *ev;
	int i;

	fake_start(script_connects, false);
	ctx = open_ctx(IWCM_CTX_ASYNC_CM);
	for (i = 0; i < 3; i++)
		c[i] = connect_simple(ctx);
	sin4(&sin, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(
		iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0));
	/* the daemon refused the second: EMFILE of the waiting call */
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[1]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[1]).reason, IWCM_STATUS_LIMIT);
	ck_assert_ptr_nonnull(qa(c[1]).reason_text);
	check_not_established(c[1]);
	/* an OK without a connection id is the daemon's fault */
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[2]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[2]).reason, IWCM_STATUS_PROTOCOL);
	/* the first, named 41 by its Ack, is handed off */
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[0]);
	iwcm_ack_event(ev);
	check_established(c[0], true);
	for (i = 0; i < 3; i++)
		iwcm_conn_free(c[i]);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/*
 * Freed before the Ack: the Disconnect follows the Ack that names the
 * connection, and a late handoff's socket is closed.  One freed before
 * a refusal sends nothing.
 */
static void script_abandon(struct fake *f)
{
	Iwcm__Disconnect *d;
	uint32_t r1, r2;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	r1 = f->reqid;
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	r2 = f->reqid;
	if (!fake_wait_go(f))
		return;
	FAKE_REQUIRE(f, fake_ack(f, r2, IWCM__RESULT__RES_EPERM, 0));
	FAKE_REQUIRE(f, fake_ack(f, r1, IWCM__RESULT__RES_OK, 51));
	FAKE_REQUIRE(f, fake_established(f, 51, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	d = (Iwcm__Disconnect *)fake_expect(f, IPC_CLIENT_DISCONNECT,
					    &iwcm__disconnect__descriptor);
	FAKE_REQUIRE(f, d && d->conn_id == 51);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	atomic_store(&script_done, 1);
}

START_TEST(test_async_abandon)
{
	struct iwcm_ctx *ctx;
	struct iwcm_event *ev;

	fake_start(script_abandon, false);
	ctx = open_ctx(IWCM_CTX_ASYNC_CM | IWCM_CTX_NONBLOCK);
	iwcm_conn_free(connect_simple(ctx));
	iwcm_conn_free(connect_simple(ctx));
	go();
	pump_until_done(ctx);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	/* the late handoff's socket went with the freed connection */
	assert_lib_fd_closed();
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/*
 * Requests of a listener: an Accept of a request that expired, one that
 * is taken, a Reject that comes too late (nothing to report).
 */
static void script_accepts(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 9, 3, true));
	FAKE_REQUIRE(f, fake_connect_request(f, 10, 3, true));
	FAKE_REQUIRE(f, fake_connect_request(f, 11, 3, true));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	FAKE_REQUIRE(f, fake_established(f, 10, false, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_REJECT,
				    &iwcm__reject__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	atomic_store(&script_done, 1);
}

START_TEST(test_async_accepts)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c[3];
	struct iwcm_event *ev;
	int i;

	fake_start(script_accepts, false);
	ctx = open_ctx(IWCM_CTX_ASYNC_CM | IWCM_CTX_NONBLOCK);
	sin4(&sin, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(
		iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0));
	for (i = 0; i < 3; i++) {
		ev = wait_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
		c[i] = iwcm_event_get_conn(ev);
		iwcm_ack_event(ev);
	}
	ck_assert_int_eq(iwcm_accept(c[0], NULL), 0);
	ck_assert_int_eq(iwcm_accept(c[1], NULL), 0);
	/* accepting: a second decision is refused at once */
	ERRNO_IS(iwcm_accept(c[1], NULL), EINVAL);
	ck_assert_int_eq(iwcm_reject(c[2], NULL, 0), 0);
	/* the expired request: what iwcm_accept() returned as ENOENT */
	ev = wait_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[0]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[0]).reason, IWCM_STATUS_NOENT);
	ev = wait_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[1]);
	iwcm_ack_event(ev);
	check_established(c[1], false);
	/* the refused Reject adds no event */
	pump_until_done(ctx);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	for (i = 0; i < 3; i++)
		iwcm_conn_free(c[i]);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* The daemon goes away with Acks outstanding. */
static void script_gone(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	if (!fake_wait_go(f))
		return;
	shutdown(f->sock, SHUT_RDWR);
}

START_TEST(test_async_daemon_gone)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c1;
	struct iwcm_event *ev;

	fake_start(script_gone, false);
	ctx = open_ctx(IWCM_CTX_ASYNC_CM);
	c1 = connect_simple(ctx);
	/* freed while its Ack is outstanding: the loss releases it */
	iwcm_conn_free(connect_simple(ctx));
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c1);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c1).reason, IWCM_STATUS_RESET);
	ERRNO_IS(iwcm_get_event(ctx, &ev), ECONNRESET);
	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c1, false), NULL, NULL),
		   ECONNRESET);
	iwcm_conn_free(c1);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

START_TEST(test_async_flag)
{
	/* an unknown flag is refused before any connection is tried */
	ERRNO_NULL(iwcm_ctx_open_path("/nonexistent", 8), EINVAL);
	ERRNO_NULL(iwcm_ctx_open_path("/nonexistent", IWCM_CTX_ASYNC_CM | 16),
		   EINVAL);
}
END_TEST

static Suite *libiwcm_cm_async_suite(void)
{
	Suite *s = suite_create("libiwcm_cm_async");

	add_tcase(s, "connects", test_async_connects);
	add_tcase(s, "abandon", test_async_abandon);
	add_tcase(s, "accepts", test_async_accepts);
	add_tcase(s, "daemon_gone", test_async_daemon_gone);
	add_tcase(s, "flag", test_async_flag);
	return s;
}

TEST_MAIN(libiwcm_cm_async_suite)
