/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The real iwcmd over usrsctp on loopback against hostile peers: a
 * usrsctp stack in this process whose messages break RFC 5043, whose
 * associations stay half-open or crowd the daemon's caps, or that gives
 * no Adaptation Layer Indication.  Each ends its session or association
 * while the daemon lives on.  The sessions between clients are
 * check_sctp_daemon.c; the helpers both use are sctp_daemon_util.h.
 */
#include <usrsctp.h>

#include "common.h"
#include "daemon_harness.h"
#include "daemon_requests.h"
#include "sctp_daemon_util.h"

/* Each hostile message ends its session with a Terminate; the
 * association and the daemon live on. */
START_TEST(test_hostile)
{
	static const uint8_t unknown_fc[] = { 0, 0, 0, 9 };
	static const uint8_t accept[] = { 0, 0, 0, 2 };
	static const uint8_t initiate[] = { 0, 0, 0, 1 };
	static const uint8_t seg[] = { 0, 1, 0xc0, 0x40 };
	static const uint8_t second[] = { 0, 1, 0, 1 };
	uint8_t big[4 + 513] = { 0, 0, 0, 1 };
	Iwcm__ConnectRequest *cr;
	Iwcm__ConnError *ce;
	struct socket *so;
	uint16_t port, stream = 99;
	struct est e;
	uint64_t id;
	int L;

	L = start_listener(NULL, &port);
	so = hostile_connect(port, true);
	hostile_send(so, 1, 17, unknown_fc, sizeof(unknown_fc));
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 1);
	hostile_send(so, 2, 17, big, sizeof(big)); /* PD over 512 */
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 2);
	hostile_send(so, 3, 17, accept, sizeof(accept)); /* no Initiate */
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 3);
	/* a segment before the Accept */
	id = hostile_initiate(so, 4, L);
	hostile_send(so, 4, 16, seg, sizeof(seg));
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 4);
	/* the owner learns its request ended */
	ce = (Iwcm__ConnError *)event(L, IPC_EVENT_ERROR,
				      &iwcm__conn_error__descriptor);
	ck_assert_uint_eq(ce->conn_id, id);
	ck_assert_int_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	protobuf_c_message_free_unpacked(&ce->base, NULL);
	/* a second Initiate on a live (accepted) stream */
	hostile_send(so, 5, 17, initiate, sizeof(initiate));
	cr = (Iwcm__ConnectRequest *)event(L, IPC_EVENT_CONNECT_REQUEST,
					   &iwcm__connect_request__descriptor);
	id = cr->conn_id;
	ck_assert_int_eq(decide(L, id, true, NULL), IWCM__RESULT__RES_OK);
	protobuf_c_message_free_unpacked(&cr->base, NULL);
	take_established(L, id, &e);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_ACCEPT);
	hostile_send(so, 5, 17, second, sizeof(second));
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 5);
	wait_eof(e.fd); /* the owner's relay ends */
	close(e.fd);
	/* the association still carries a good session */
	hostile_initiate(so, 6, L);
	usrsctp_close(so);
	close(L);
}
END_TEST

/*
 * A peer's association is half-open until it carries a session (as a
 * TCP connection without its MPA Request): the daemon closes it when no
 * Initiate comes in request_timeout_ms, and again when its last session
 * has ended and no other comes; one that carries a session stays.
 */
START_TEST(test_halfopen_timeout)
{
	struct socket *idle, *so;
	uint16_t port, stream;
	long long t0;
	uint64_t id;
	int L;

	L = start_listener("request_timeout_ms = 400\n", &port);
	/* no Initiate at all: ABORTed after 400 ms, not before */
	t0 = harness_ms();
	idle = hostile_connect(port, true);
	hostile_up(idle);
	so = hostile_connect(port, true);
	hostile_up(so);
	id = hostile_initiate(so, 1, L);
	ck_assert_int_eq(hostile_recv_fc(idle, &stream), -1);
	ck_assert_int_ge(harness_ms() - t0, 350);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "no session in 400 ms"));
	usrsctp_close(idle);
	/* so waits for L's decision well past 400 ms: it stays */
	usleep(600000);
	/* t0 before the decision: the daemon's 400 ms start when the
	 * session ends, after it (a load that delays this program's
	 * reading of the Reject must not shorten what it measures) */
	t0 = harness_ms();
	ck_assert_int_eq(decide(L, id, false, "no"), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_REJECT);
	/* its session ended: half-open again, ABORTed in turn */
	ck_assert_int_eq(hostile_recv_fc(so, &stream), -1);
	ck_assert_int_ge(harness_ms() - t0, 380);
	usrsctp_close(so);
	close(L);
}
END_TEST

/*
 * halfopen_per_source: a peer's associations with no session count with
 * its half-open TCP connections; past the cap the oldest is ABORTed to
 * admit the new one, and the daemon says so.
 */
START_TEST(test_halfopen_shed)
{
	struct socket *so[3];
	uint16_t port, stream;
	int L, i;

	L = start_listener("halfopen_per_source = 2\n", &port);
	for (i = 0; i < 3; i++) {
		so[i] = hostile_connect(port, true);
		hostile_up(so[i]);
	}
	/* the first, the oldest, goes for the third */
	ck_assert_int_eq(hostile_recv_fc(so[0], &stream), -1);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "halfopen_per_source"));
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "dropping sctp assoc"));
	/* the other two stay: a message still gets its answer */
	for (i = 1; i < 3; i++) {
		static const uint8_t unknown_fc[] = { 0, 0, 0, 9 };

		hostile_send(so[i], 1, 17, unknown_fc, sizeof(unknown_fc));
		ck_assert_int_eq(hostile_recv_fc(so[i], &stream),
				 SCTP_SS_TERMINATE);
	}
	for (i = 0; i < 3; i++)
		usrsctp_close(so[i]);
	/* the daemon's own sessions are not the peer's to crowd out */
	still_serves(L, port);
}
END_TEST

/*
 * max_pending_per_uid holds for a peer's session Initiates as for MPA
 * Requests: past it, across associations, an Initiate is answered with
 * a Terminate (RFC 5043 §6.4) until the owner decides one.
 */
START_TEST(test_uid_pending)
{
	static const uint8_t initiate[] = { 0, 0, 0, 1 };
	struct socket *a, *b;
	uint16_t port, stream;
	uint64_t id;
	int L;

	L = start_listener("max_pending_per_uid = 1\n", &port);
	a = hostile_connect(port, true);
	b = hostile_connect(port, true);
	hostile_up(a);
	hostile_up(b);
	id = hostile_initiate(a, 1, L);
	/* the same association, and another one: refused */
	hostile_send(a, 2, 17, initiate, sizeof(initiate));
	ck_assert_int_eq(hostile_recv_fc(a, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 2);
	hostile_send(b, 1, 17, initiate, sizeof(initiate));
	ck_assert_int_eq(hostile_recv_fc(b, &stream), SCTP_SS_TERMINATE);
	ck_assert_uint_eq(stream, 1);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "max_pending_per_uid"));
	/* decided: the next one goes to the owner */
	ck_assert_int_eq(decide(L, id, false, NULL), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(hostile_recv_fc(a, &stream), SCTP_SS_REJECT);
	hostile_initiate(b, 3, L);
	usrsctp_close(a);
	usrsctp_close(b);
	close(L);
}
END_TEST

/*
 * A second Accept of an accepted session is refused and changes
 * nothing: the session no longer counts against max_pending_per_uid
 * (it did, found by fuzz_ipc_client's check of the counts), so the
 * next Initiate still reaches the owner.
 */
START_TEST(test_accept_twice)
{
	struct socket *so;
	uint16_t port;
	struct est e;
	uint64_t id;
	int L;

	L = start_listener("max_pending_per_uid = 1\n", &port);
	so = hostile_session(port, L, &e, &id);
	ck_assert_int_ne(decide(L, id, true, NULL), IWCM__RESULT__RES_OK);
	hostile_initiate(so, 2, L);
	close(e.fd);
	usrsctp_close(so);
	close(L);
}
END_TEST

/* RFC 5043 §5.1: no Adaptation Layer Indication, no association. */
START_TEST(test_no_indication)
{
	struct socket *so;
	uint16_t port, stream;
	int L;

	L = start_listener(NULL, &port);
	so = hostile_connect(port, false);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), -1);
	usrsctp_close(so);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "RFC 5043 §5.1"));
	/* the daemon lives on */
	still_serves(L, port);
}
END_TEST

/*
 * The listener closes under its peers' associations (Unlisten): one that
 * carries no session is shut down within a second, not
 * request_timeout_ms later; one that carries a session stays while the
 * session does, and is shut down after it has ended, with no listener
 * left to take another Initiate.
 */
START_TEST(test_listener_closed)
{
	struct socket *idle, *so;
	uint16_t port, stream;
	struct est e;
	uint64_t id;
	int L;

	L = start_listener("request_timeout_ms = 60000\n", &port);
	idle = hostile_connect(port, true);
	hostile_up(idle);
	so = hostile_session(port, L, &e, &id);
	ck_assert_int_eq(unlisten(L, last_listener), IWCM__RESULT__RES_OK);
	/* within hostile_recv_fc()'s 5 s, far below 60 s */
	ck_assert_int_eq(hostile_recv_fc(idle, &stream), -1);
	ck_assert_ptr_nonnull(
		strstr(harness_log(&H), "no listener, shutting down"));
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", 1), 1);
	/* the session ends (its owner closes it), then the association */
	hostile_session_close(so, &e);
	hostile_assoc_ends(so);
	ck_assert_uint_eq(admin_sctp_conns(NULL, 1), 0);
	usrsctp_close(idle);
	usrsctp_close(so);
	close(L);
}
END_TEST

/*
 * The same, and the peer shuts down its association itself as soon as
 * its session has ended (as iwcmd does its own): iwcmd waits a little
 * before it shuts down an association without a listener, so it lets
 * the peer do it and sends no SHUTDOWN of its own (two that cross cost
 * the peer a retransmission, seen with Linux's SCTP in the interop
 * suite).
 */
START_TEST(test_listener_closed_peer_first)
{
	struct socket *so;
	uint16_t port;
	struct est e;
	uint64_t id;
	int L;

	L = start_listener("request_timeout_ms = 60000\n", &port);
	so = hostile_session(port, L, &e, &id);
	ck_assert_int_eq(unlisten(L, last_listener), IWCM__RESULT__RES_OK);
	hostile_session_close(so, &e);
	ck_assert_int_eq(usrsctp_shutdown(so, SHUT_WR), 0);
	hostile_assoc_ends(so);
	usleep(1500000); /* past the daemon's wait */
	ck_assert_msg(!strstr(harness_log(&H), "no listener, shutting down"),
		      "the daemon shut it down too\n%s", harness_log(&H));
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "down: "));
	usrsctp_close(so);
	close(L);
}
END_TEST

/*
 * sctp_multiplex = yes against a peer that grants 2 outbound streams
 * where iwcmd asks 16 (its SCTP_INITMSG): three connects made before
 * the association is up are all established, the third on a second
 * association (it was refused: "no free stream on the association").
 * The peer answers each Initiate with an Accept on its stream.
 */
START_TEST(test_fewer_streams)
{
	enum { N = 3 };
	static const uint8_t accept[] = { 0, 0, 0, 2 };
	struct socket *lso, *as[N];
	unsigned int nas = 0, answered = 0, est = 0;
	uint64_t ids[N];
	bool seen[N] = { false };
	long long end;
	uint16_t port;
	int C;

	start();
	C = ipc_open_hello(H.sock);
	lso = hostile_listen(2, &port);
	for (int i = 0; i < N; i++)
		ids[i] = connect_sctp_via(C, port, "f", 1, hostile_stack());
	end = harness_ms() + 10000;
	while (answered < N && harness_ms() < end) {
		struct socket *a = usrsctp_accept(lso, NULL, NULL);

		if (a) {
			ck_assert_uint_lt(nas, N);
			usrsctp_set_non_blocking(a, 1);
			as[nas++] = a;
		}
		for (unsigned int i = 0; i < nas; i++) {
			uint8_t buf[1024];
			struct sctp_rcvinfo rcv;
			socklen_t il = sizeof(rcv);
			unsigned int it = 0;
			int flags = 0;
			ssize_t n = usrsctp_recvv(as[i], buf, sizeof(buf), NULL,
						  NULL, &rcv, &il, &it, &flags);

			if (n < 4 || (flags & MSG_NOTIFICATION) ||
			    ntohl(rcv.rcv_ppid) != 17)
				continue;
			ck_assert_uint_eq(buf[2] << 8 | buf[3],
					  SCTP_SS_INITIATE);
			ck_assert_uint_lt(rcv.rcv_sid, 2);
			hostile_send(as[i], rcv.rcv_sid, 17, accept,
				     sizeof(accept));
			answered++;
		}
		usleep(5000);
	}
	ck_assert_msg(answered == N, "%u of %d Initiates came\n%s", answered, N,
		      harness_log(&H));
	ck_assert_uint_eq(nas, 2);
	while (est < N) {
		struct est e;
		unsigned int i = est_next(C, ids, N, &e);

		ck_assert(!seen[i]);
		seen[i] = true;
		ck_assert_uint_lt(e.stream, 2);
		close(e.fd);
		est++;
	}
	for (unsigned int i = 0; i < nas; i++)
		usrsctp_close(as[i]);
	usrsctp_close(lso);
	close(C);
}
END_TEST

static Suite *sctp_daemon_peer_suite(void)
{
	Suite *s = suite_create("sctp_daemon_peer");

	daemon_add_test(s, "hostile", test_hostile);
	daemon_add_test(s, "no_indication", test_no_indication);
	daemon_add_test(s, "halfopen_timeout", test_halfopen_timeout);
	daemon_add_test(s, "halfopen_shed", test_halfopen_shed);
	daemon_add_test(s, "uid_pending", test_uid_pending);
	daemon_add_test(s, "accept_twice", test_accept_twice);
	daemon_add_test(s, "listener_closed", test_listener_closed);
	daemon_add_test(s, "fewer_streams", test_fewer_streams);
	daemon_add_test(s, "listener_closed_peer_first",
			test_listener_closed_peer_first);
	return s;
}

TEST_MAIN(sctp_daemon_peer_suite)
