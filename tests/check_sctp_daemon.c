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

#define N_CONC 16
#define N_MAX (N_CONC + 1)

/* L's owner accepts the n sessions it was asked for at once, with "w<i>"
 * as its Private Data: the Acks and the Established events come mixed;
 * the sessions in le[] by the order of lid[]. */
static void accept_all(int L, const uint64_t *lid, struct est *le,
		       unsigned int n)
{
	unsigned int i, acks = 0, ests = 0;
	char pd[N_MAX][8];

	for (i = 0; i < n; i++) {
		Iwcm__Accept a = IWCM__ACCEPT__INIT;
		Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
		uint32_t reqid;

		snprintf(pd[i], sizeof(pd[i]), "w%u", i);
		p.has_private_data = 1;
		p.private_data.data = (uint8_t *)pd[i];
		p.private_data.len = strlen(pd[i]);
		a.conn_id = lid[i];
		a.params = &p;
		request(L, IPC_CLIENT_ACCEPT, &a.base, &reqid);
		le[i].fd = -1;
	}
	while (acks < n || ests < n) {
		struct est e;
		uint64_t id;

		ck_assert_msg(ipc_wait(L, &M) == 1,
			      "%u Acks, %u Established\n%s", acks, ests,
			      harness_log(&H));
		if (M.hdr.type == IPC_CLIENT_ACK) {
			Iwcm__Ack *k = (Iwcm__Ack *)ipc_unpack(
				&M, &iwcm__ack__descriptor);

			ck_assert_ptr_nonnull(k);
			ck_assert_int_eq(k->result, IWCM__RESULT__RES_OK);
			protobuf_c_message_free_unpacked(&k->base, NULL);
			acks++;
			continue;
		}
		ck_assert_msg(M.hdr.type == IPC_EVENT_ESTABLISHED, "got %s\n%s",
			      ipc_type_name(M.hdr.type), harness_log(&H));
		id = est_take(&e);
		for (i = 0; i < n && lid[i] != id; i++)
			;
		ck_assert_uint_lt(i, n);
		ck_assert_int_eq(le[i].fd, -1); /* told once */
		le[i] = e;
		ests++;
	}
}

/* No fd of es[n] has a datagram left to read (none went astray). */
static void nothing_left(const struct est *es, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct pollfd p = { es[i].fd, POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
}

/* n sessions from C to L's listener on port, all at once (as iwcm-bench
 * cm does at depth 16), "h<i>" the Private Data of the i-th, accepted by
 * accept_all(): established at both owners, ce[i] the i-th, le[] by the
 * order L was asked. */
static void open_all(int L, int C, uint16_t port, unsigned int n,
		     struct est *le, struct est *ce)
{
	uint64_t cid[N_MAX], lid[N_MAX];
	unsigned int i, k;
	char pd[8];

	for (i = 0; i < n; i++) {
		snprintf(pd, sizeof(pd), "h%u", i);
		cid[i] = connect_sctp(C, port, pd, 1 + i % 2);
		ce[i].fd = -1;
	}
	for (i = 0; i < n; i++) {
		Iwcm__ConnectRequest *cr = (Iwcm__ConnectRequest *)event(
			L, IPC_EVENT_CONNECT_REQUEST,
			&iwcm__connect_request__descriptor);

		lid[i] = cr->conn_id;
		protobuf_c_message_free_unpacked(&cr->base, NULL);
	}
	accept_all(L, lid, le, n);
	for (k = 0; k < n; k++) {
		struct est e;

		i = est_next(C, cid, n, &e);
		ck_assert_int_eq(ce[i].fd, -1);
		ce[i] = e;
	}
}

/* The responder of initiator session ce: the index in le[n] of the one
 * whose Private Data it was told. */
static unsigned int responder(const struct est *ce, unsigned int n)
{
	unsigned int j;

	ck_assert_int_eq(sscanf(ce->peer_pd, "w%u", &j), 1);
	ck_assert_uint_lt(j, n);
	return j;
}

/* End the n sessions of ce (those with an fd) at their initiators;
 * each responder's end sees EOF. */
static void close_all(struct est *le, struct est *ce, unsigned int n)
{
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		if (ce[i].fd < 0)
			continue;
		j = responder(&ce[i], n);
		close(ce[i].fd);
		wait_eof(le[j].fd);
		close(le[j].fd);
	}
}

/* N_CONC sessions from one client to one listener all at once, by
 * default each on an association of its own: all of them are
 * established at both owners; the two ends of each are told the same
 * association (the initiator's local SCTP port is the responder's peer
 * port) and stream, the only thing that tells a session from the
 * others at both ends, and no two sessions the same; each relays to its
 * own other end only; each ends at both. */
START_TEST(test_concurrent)
{
	struct est le[N_CONC], ce[N_CONC];
	unsigned int i, j, k;
	char pd[8];
	int L, C;
	uint16_t port;

	start_with(NULL);
	port = clients(&L, &C);
	open_all(L, C, port, N_CONC, le, ce);
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", 0), 2 * N_CONC);
	for (i = 0; i < N_CONC; i++) {
		j = responder(&ce[i], N_CONC);
		snprintf(pd, sizeof(pd), "h%u", i);
		ck_assert_str_eq(le[j].peer_pd, pd);
		ck_assert_uint_eq(ce[i].stream, 0); /* its own association */
		ck_assert_uint_eq(le[j].stream, ce[i].stream);
		ck_assert_uint_eq(le[j].pport, ce[i].lport);
		ck_assert_uint_eq(le[j].lport, port);
		ck_assert_uint_eq(ce[i].pport, port);
		for (k = 0; k < i; k++)
			ck_assert(ce[k].lport != ce[i].lport ||
				  ce[k].stream != ce[i].stream);
		pump(&ce[i], &le[j], 3, 64);
		pump(&le[j], &ce[i], 3, 64);
	}
	nothing_left(le, N_CONC);
	nothing_left(ce, N_CONC);
	close_all(le, ce, N_CONC);
	close(L);
	close(C);
}
END_TEST

/*
 * sctp_multiplex = yes with sctp_streams = 16: one more session than an
 * association has streams, all at once, takes a second association
 * instead of being refused (it was: "no free stream").  Then a session
 * of the full association ends at its initiator, which holds its
 * stream until the peer's Terminate answers (RFC 5043 §6.6), and a
 * connect right after is established too, on whichever association has
 * a stream free.
 */
START_TEST(test_multiplex_full)
{
	struct est le[N_MAX], ce[N_MAX], le1, ce1;
	unsigned int i, j, first = 0;
	int L, C;
	uint16_t port;

	start();
	port = clients(&L, &C);
	open_all(L, C, port, N_MAX, le, ce);
	/* N_CONC on one association, streams 0..N_CONC-1, one on another */
	for (i = 0; i < N_MAX; i++) {
		for (j = 0; j < N_MAX; j++)
			if (j != i && ce[j].lport == ce[i].lport)
				break;
		if (j == N_MAX) {
			first++;
			ck_assert_uint_eq(ce[i].stream, 0);
			continue;
		}
		ck_assert_uint_lt(ce[i].stream, N_CONC);
		j = responder(&ce[i], N_MAX);
		ck_assert_uint_eq(le[j].stream, ce[i].stream);
		ck_assert_uint_eq(le[j].pport, ce[i].lport);
	}
	ck_assert_uint_eq(first, 1);
	/* stream 0 of each association, at both ends */
	ck_assert_uint_eq(admin_sctp_conns("ESTABLISHED", 0), 4);
	for (i = 0; i < N_MAX; i++)
		pump(&ce[i], &le[responder(&ce[i], N_MAX)], 2, 64);

	/* one of the full association ends at its initiator; a connect
	 * at once */
	i = ce[0].lport == ce[1].lport ? 0 : 1;
	j = responder(&ce[i], N_MAX);
	close(ce[i].fd);
	session(L, C, port, 2, &le1, &ce1);
	wait_eof(le[j].fd);
	close(le[j].fd);
	pump(&ce1, &le1, 2, 64);
	close(ce1.fd);
	wait_eof(le1.fd);
	close(le1.fd);
	ce[i].fd = -1;
	close_all(le, ce, N_MAX);
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
	daemon_add_test(s, "concurrent", test_concurrent);
	daemon_add_test(s, "multiplex_full", test_multiplex_full);
	daemon_add_test(s, "rejected", test_rejected);
	daemon_add_test(s, "owner_gone", test_owner_gone);
	daemon_add_test(s, "stop_backlogged", test_stop_backlogged);
	daemon_add_test(s, "service", test_service);
	daemon_add_test(s, "listed", test_listed);
	return s;
}

TEST_MAIN(sctp_daemon_suite)
