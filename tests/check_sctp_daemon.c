/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP stream sessions end to end through the real iwcmd over usrsctp on
 * loopback: the daemon's SCTP listener and its own association to it,
 * two clients on the client socket, the Established fds relaying DDP
 * Segments both ways (RFC 5043), rejects, an owner gone or not reading,
 * and a [listener] service.  Hostile peers are check_sctp_daemon_peer.c;
 * the helpers both use are sctp_daemon_util.h.
 */
#include <poll.h>

#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"
#include "sctp_daemon_util.h"

/* A client L listening over SCTP and a client C to connect to it,
 * both of the daemon; the port L listens on. */
static uint16_t clients(int *L, int *C)
{
	*L = ipc_open_hello(H.sock);
	*C = ipc_open_hello(H.sock);
	ck_assert_int_ge(*L, 0);
	ck_assert_int_ge(*C, 0);
	return listen_sctp(*L);
}

/* Accepted sessions, enhanced and plain, relaying both ways. */
START_TEST(test_accepted)
{
	struct est le, ce, le2, ce2, le3, ce3;
	int L, C, C2;
	uint16_t port;

	start();
	port = clients(&L, &C);
	session(L, C, port, 2, &le, &ce);
	/* RFC 6581 §9.1: our IRD 4 covers the responder's ORD */
	ck_assert_uint_eq(ce.ird, 4);
	/* both ends of it, in iwcmctl conns */
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", ce.stream), 2);
	pump(&ce, &le, 1, 100);
	pump(&le, &ce, 1, 100);
	/* a second, plain session on the same association, next stream */
	session(L, C, port, 1, &le2, &ce2);
	ck_assert_uint_ne(ce2.stream, ce.stream);
	/* more than the relay queues hold: backpressure, nothing lost */
	pump(&ce2, &le2, 2000, 1000);
	pump(&le, &ce, 300, 200);
	/* a session of another client of the same uid: the same
	 * association (one session per stream), a stream of its own */
	C2 = ipc_open_hello(H.sock);
	ck_assert_int_ge(C2, 0);
	session(L, C2, port, 2, &le3, &ce3);
	ck_assert_uint_ne(ce3.stream, ce.stream);
	ck_assert_uint_ne(ce3.stream, ce2.stream);
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", ce3.stream), 2);
	pump(&ce3, &le3, 50, 200);
	pump(&le3, &ce3, 50, 200);
	/* that client goes away: its session ends with a Terminate, the
	 * other client's sessions on the association go on */
	close(ce3.fd);
	close(C2);
	wait_eof(le3.fd);
	close(le3.fd);
	pump(&ce, &le, 10, 100);
	/* the owner closes: Terminate, the peer's fd ends */
	close(ce.fd);
	wait_eof(le.fd);
	close(le.fd);
	/* the other session lives on */
	pump(&le2, &ce2, 10, 64);
	close(le2.fd);
	wait_eof(ce2.fd);
	close(ce2.fd);
	close(L);
	close(C);
}
END_TEST

/* By default (sctp_multiplex = no) each session this daemon opens to a
 * peer has an association of its own: two sessions to one listener
 * both take stream 0, where one association would give them two
 * streams, and each relays on its own. */
START_TEST(test_assoc_per_session)
{
	struct est le, ce, le2, ce2;
	int L, C;
	uint16_t port;

	start_with(NULL);
	port = clients(&L, &C);
	session(L, C, port, 2, &le, &ce);
	session(L, C, port, 1, &le2, &ce2);
	ck_assert_uint_eq(ce.stream, 0);
	ck_assert_uint_eq(ce2.stream, 0);
	/* both ends of each, in iwcmctl conns */
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", 0), 4);
	pump(&ce, &le, 20, 100);
	pump(&le2, &ce2, 20, 100);
	close(ce.fd);
	wait_eof(le.fd);
	close(le.fd);
	pump(&ce2, &le2, 10, 64);
	close(ce2.fd);
	wait_eof(le2.fd);
	close(le2.fd);
	close(L);
	close(C);
}
END_TEST

/* RFC 5043 §6.3: the owner rejects with Private Data; §6.4: without a
 * listener the Initiate gets a Terminate; an association of ours with
 * no session left shuts down. */
START_TEST(test_rejected)
{
	Iwcm__ConnectRequest *cr;
	Iwcm__Rejected *rj;
	struct est le, ce;
	long long end;
	uint64_t id;
	int L, C;
	uint16_t port;

	start();
	port = clients(&L, &C);
	/* a session that keeps the association up */
	session(L, C, port, 2, &le, &ce);
	id = connect_sctp(C, port, NULL, 2);
	cr = (Iwcm__ConnectRequest *)event(L, IPC_EVENT_CONNECT_REQUEST,
					   &iwcm__connect_request__descriptor);
	ck_assert_int_eq(decide(L, cr->conn_id, false, "busy"),
			 IWCM__RESULT__RES_OK);
	protobuf_c_message_free_unpacked(&cr->base, NULL);
	rj = (Iwcm__Rejected *)event(C, IPC_EVENT_REJECTED,
				     &iwcm__rejected__descriptor);
	ck_assert_uint_eq(rj->conn_id, id);
	ck_assert_uint_eq(rj->peer_info->private_data.len, 4);
	ck_assert_mem_eq(rj->peer_info->private_data.data, "busy", 4);
	ck_assert_ptr_null(strstr(rj->reason, "non-ULP"));
	protobuf_c_message_free_unpacked(&rj->base, NULL);
	/* the listener goes away: the next Initiate on the association
	 * gets a Terminate, seen as a non-ULP reject */
	ck_assert_int_eq(unlisten(L, last_listener), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(unlisten(L, last_listener), IWCM__RESULT__RES_ENOENT);
	id = connect_sctp(C, port, NULL, 1);
	rj = (Iwcm__Rejected *)event(C, IPC_EVENT_REJECTED,
				     &iwcm__rejected__descriptor);
	ck_assert_uint_eq(rj->conn_id, id);
	ck_assert_ptr_nonnull(strstr(rj->reason, "non-ULP"));
	protobuf_c_message_free_unpacked(&rj->base, NULL);
	/* the first session still relays */
	pump(&ce, &le, 5, 32);
	/* its end leaves the association idle: it shuts down */
	close(ce.fd);
	wait_eof(le.fd);
	close(le.fd);
	end = harness_ms() + 5000;
	while (!strstr(harness_log(&H), "idle, shutting down") &&
	       harness_ms() < end)
		usleep(20000);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "idle, shutting down"));
	close(L);
	close(C);
}
END_TEST

/*
 * A client closes its control socket but keeps the fds of its sessions:
 * they relay on, and iwcmctl conns lists them without an owner (the
 * daemon kept a pointer to the gone client: found by fuzz_ipc_client,
 * a use after free the ASan build's iwcmd aborts on).
 */
START_TEST(test_owner_gone)
{
	struct est le, ce;
	uint16_t port;
	int L, C;

	start();
	port = clients(&L, &C);
	session(L, C, port, 2, &le, &ce);
	close(C);
	usleep(100000); /* the daemon sees the client go */
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", ce.stream), 2);
	pump(&ce, &le, 5, 100);
	pump(&le, &ce, 5, 100);
	close(ce.fd);
	wait_eof(le.fd);
	close(le.fd);
	close(L);
}
END_TEST

/* An owner that never reads: its relay queue fills, the association
 * pauses (backpressure), and the daemon still stops cleanly with the
 * queue full (teardown checks the exit status, and leaks under ASan). */
START_TEST(test_stop_backlogged)
{
	uint8_t out[8 + 1000];
	struct est le, ce;
	unsigned int sent = 0;
	long long end;
	int L, C;
	uint16_t port;

	start();
	port = clients(&L, &C);
	session(L, C, port, 2, &le, &ce);
	relay_put(out, ce.stream);
	memset(out + 8, 'q', 1000);
	/* until the whole path is full and C's sends block */
	end = harness_ms() + 3000;
	while (harness_ms() < end) {
		struct pollfd p = { ce.fd, POLLOUT, 0 };

		if (poll(&p, 1, 300) == 0)
			break;
		if (send(ce.fd, out, sizeof(out), MSG_DONTWAIT) ==
		    (ssize_t)sizeof(out))
			sent++;
	}
	ck_assert_uint_gt(sent, 300); /* more than the relay queue holds */
	/* le.fd stays open and unread while teardown stops the daemon */
	close(ce.fd);
	close(C);
	(void)L;
}
END_TEST

/* A [listener] of iwcmd.conf with transport = sctp: bound at startup,
 * a client attaches by name; detached, its Initiates get a Terminate. */
START_TEST(test_service)
{
	char conf[256];
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__ListenReply *r;
	Iwcm__Rejected *rj;
	struct est le, ce;
	uint32_t reqid;
	uint64_t lid;
	int L, C;

	udp_port = test_free_udp_port();
	ck_assert_uint_ne(udp_port, 0);
	snprintf(conf, sizeof(conf),
		 "sctp_udp_port = %u\n[listener ddp]\n"
		 "address = 127.0.0.1:4791\ntransport = sctp\n",
		 udp_port);
	harness_start(&H, conf);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "service ddp"));
	L = ipc_open_hello(H.sock);
	C = ipc_open_hello(H.sock);
	l.service = (char *)"ddp";
	request(L, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(L, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->result, IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(r->bound->port, 4791);
	lid = r->listener_id;
	ck_assert(lid & (1ull << 62));
	protobuf_c_message_free_unpacked(&r->base, NULL);
	/* one client at a time */
	request(C, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(C, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_int_eq(r->result, IWCM__RESULT__RES_EEXIST);
	protobuf_c_message_free_unpacked(&r->base, NULL);
	session(L, C, 4791, 2, &le, &ce);
	pump(&ce, &le, 3, 16);
	/* detached: the service stays, Initiates get a Terminate */
	ck_assert_int_eq(unlisten(L, lid), IWCM__RESULT__RES_OK);
	connect_sctp(C, 4791, NULL, 2);
	rj = (Iwcm__Rejected *)event(C, IPC_EVENT_REJECTED,
				     &iwcm__rejected__descriptor);
	ck_assert_ptr_nonnull(strstr(rj->reason, "non-ULP"));
	protobuf_c_message_free_unpacked(&rj->base, NULL);
	close(le.fd);
	close(ce.fd);
	close(L);
	close(C);
}
END_TEST

/* An SCTP listener is one of iwcmd's listeners: iwcmctl lists it, and a
 * second listen of its uid on its address is EEXIST. */
START_TEST(test_listed)
{
	uint16_t port, again;
	int L, A;

	L = start_listener(NULL, &port);
	A = ipc_open_hello(H.admin);
	ck_assert_int_ge(A, 0);
	ck_assert_uint_eq(admin_listeners(A, NULL, NULL), 1);
	again = port;
	ck_assert_int_eq(listen_sctp_at(L, &again), IWCM__RESULT__RES_EEXIST);
	ck_assert_int_eq(unlisten(L, last_listener), IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(admin_listeners(A, NULL, NULL), 0);
	close(A);
	close(L);
}
END_TEST

static Suite *sctp_daemon_suite(void)
{
	Suite *s = suite_create("sctp_daemon");

	daemon_add_test(s, "accepted", test_accepted);
	daemon_add_test(s, "assoc_per_session", test_assoc_per_session);
	daemon_add_test(s, "rejected", test_rejected);
	daemon_add_test(s, "owner_gone", test_owner_gone);
	daemon_add_test(s, "stop_backlogged", test_stop_backlogged);
	daemon_add_test(s, "service", test_service);
	daemon_add_test(s, "listed", test_listed);
	return s;
}

TEST_MAIN(sctp_daemon_suite)
