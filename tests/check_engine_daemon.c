/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine end to end through the real iwcmd: a client on
 * its SEQPACKET socket listens, accepts, rejects and connects, a raw MPA
 * peer in the test speaks to the daemon over TCP on the loopback, and the
 * socket reaches the client as the Established message's fd.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "common.h"
#include "daemon_harness.h"

#include "mpa.h"
#include "rdmap.h"
#include "wbuf.h"

static struct harness H;
static struct ipc_msg M;
static uint32_t next_reqid = 500;

static void teardown(void)
{
	int st = harness_stop(&H);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "iwcmd log:\n%s\n", harness_log(&H));
	harness_cleanup(&H);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "iwcmd did not exit 0 (status 0x%x)", st);
}

/* ---- the raw peer (blocking, bounded by poll) ---- */

static void raw_read(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		struct pollfd pf = { fd, POLLIN, 0 };

		ck_assert_int_eq(poll(&pf, 1, HARNESS_TIMEOUT_MS), 1);
		r = recv(fd, p + got, n - got, 0);
		ck_assert_msg(r > 0, "raw peer: %zu of %zu octets", got, n);
		got += (size_t)r;
	}
}

static void raw_send(int fd, const void *buf, size_t n)
{
	ck_assert_int_eq(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
}

static bool raw_closed(int fd)
{
	struct pollfd pf = { fd, POLLIN, 0 };
	uint8_t b;
	ssize_t r;

	if (poll(&pf, 1, HARNESS_TIMEOUT_MS) != 1)
		return false;
	r = recv(fd, &b, 1, 0);
	return r == 0 || (r < 0 && errno == ECONNRESET);
}

static size_t raw_read_frame(int fd, uint8_t *buf, struct mpa_frame *f)
{
	size_t pd, used;

	raw_read(fd, buf, MPA_FRAME_HDR_LEN);
	pd = (size_t)buf[18] << 8 | buf[19];
	raw_read(fd, buf + MPA_FRAME_HDR_LEN, pd);
	ck_assert_int_eq(mpa_frame_parse(buf, MPA_FRAME_HDR_LEN + pd, f, &used),
			 WIRE_OK);
	return used;
}

static void raw_send_frame(int fd, const struct mpa_frame *f)
{
	uint8_t buf[MPA_FRAME_MAX];
	size_t n;

	ck_assert_int_eq(mpa_frame_build(f, buf, sizeof(buf), &n), WIRE_OK);
	raw_send(fd, buf, n);
}

static struct mpa_frame enh(enum mpa_frame_type t, uint8_t rtr, const char *pd)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = t;
	f.rev = MPA_REV_2;
	f.flags = MPA_FLAG_C;
	f.enhanced = true;
	f.enh.p2p = true;
	f.enh.rtr = rtr;
	f.enh.ird = 16;
	f.enh.ord = 16;
	f.ulp_pd = (const uint8_t *)pd;
	f.ulp_pd_len = (uint16_t)strlen(pd);
	return f;
}

/* A zero-length RTR or Read Response FPDU (no markers, CRC on). */
static size_t raw_fpdu(uint8_t opcode, uint32_t stag, uint8_t *buf)
{
	struct mpa_dir d = { .markers = false, .crc = true, .off = 0 };
	struct rdmap_msg m;
	uint8_t u[64];
	size_t n, w;

	memset(&m, 0, sizeof(m));
	m.opcode = opcode;
	m.rv = 1;
	m.ddp.dv = 1;
	m.ddp.last = true;
	m.ddp.tagged = rdmap_opcode_tagged(opcode) == 1;
	m.ddp.stag = stag;
	if (!m.ddp.tagged) {
		m.ddp.qn = (uint32_t)rdmap_opcode_qn(opcode);
		m.ddp.msn = 1;
	}
	ck_assert_int_eq(rdmap_hdr_build(&m, u, sizeof(u), &n), WIRE_OK);
	ck_assert_int_eq(mpa_fpdu_build(&d, u, (uint16_t)n, buf, 128, &w),
			 WIRE_OK);
	return w;
}

static int raw_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	return fd;
}

static int raw_listen(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

static int raw_accept(int lfd)
{
	struct pollfd pf = { lfd, POLLIN, 0 };
	int fd;

	ck_assert_int_eq(poll(&pf, 1, HARNESS_TIMEOUT_MS), 1);
	fd = accept(lfd, NULL, NULL);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* ---- the client ---- */

static void wait_msg(int fd, uint16_t type)
{
	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_msg(M.hdr.type == type, "got %s, wanted %s",
		      ipc_type_name(M.hdr.type), ipc_type_name(type));
}

static void ack_ok(int fd, uint32_t reqid)
{
	Iwcm__Ack *a;

	wait_msg(fd, IPC_CLIENT_ACK);
	ck_assert_uint_eq(M.hdr.reqid, reqid);
	a = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(a);
	ck_assert_int_eq(a->result, IWCM__RESULT__RES_OK);
	protobuf_c_message_free_unpacked(&a->base, NULL);
}

static uint16_t client_listen(int fd)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ListenReply *r;
	uint8_t lo[4] = { 127, 0, 0, 1 };
	uint16_t port;

	a.addr.data = lo;
	a.addr.len = 4;
	l.addr = &a;
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_LISTEN, 1, &l.base, -1), 0);
	wait_msg(fd, IPC_CLIENT_LISTEN_REPLY);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(r->result, IWCM__RESULT__RES_OK);
	port = (uint16_t)r->bound->port;
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return port;
}

static uint64_t client_request(int fd, const char *pd)
{
	Iwcm__ConnectRequest *q;
	uint64_t id;

	wait_msg(fd, IPC_EVENT_CONNECT_REQUEST);
	q = (Iwcm__ConnectRequest *)ipc_unpack(
		&M, &iwcm__connect_request__descriptor);
	ck_assert_ptr_nonnull(q);
	ck_assert_uint_eq(q->peer_info->private_data.len, strlen(pd));
	ck_assert_mem_eq(q->peer_info->private_data.data, pd, strlen(pd));
	id = q->conn_id;
	protobuf_c_message_free_unpacked(&q->base, NULL);
	return id;
}

/* The Established and its fd: octets the peer sends arrive on it. */
static Iwcm__Established *client_established(int fd, int peer)
{
	Iwcm__Established *e;
	uint8_t b = 0;
	int s;

	wait_msg(fd, IPC_EVENT_ESTABLISHED);
	s = ipc_take_fd(&M);
	ck_assert_int_ge(s, 0);
	e = (Iwcm__Established *)ipc_unpack(&M, &iwcm__established__descriptor);
	ck_assert_ptr_nonnull(e);
	raw_send(peer, "Z", 1);
	raw_read(s, &b, 1);
	ck_assert_int_eq(b, 'Z');
	close(s);
	return e;
}

/* A peer-to-peer connection to a listening client: CONNECT_REQUEST,
 * Accept, the Reply, the Write RTR, and the fd at the client. */
START_TEST(e2e_responder)
{
	struct mpa_frame req = enh(MPA_FRAME_REQ, MPA_RTR_WRITE, "hi"), rep;
	Iwcm__Accept a = IWCM__ACCEPT__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], fp[128];
	uint16_t port;
	int fd, peer;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_ge(fd, 0);
	port = client_listen(fd);
	peer = raw_connect(port);
	raw_send_frame(peer, &req);
	a.conn_id = client_request(fd, "hi");
	p.has_private_data = 1;
	p.private_data.data = (uint8_t *)"ok";
	p.private_data.len = 2;
	a.params = &p;
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_ACCEPT, 7, &a.base, -1), 0);
	ack_ok(fd, 7);
	raw_read_frame(peer, raw, &rep);
	ck_assert_int_eq(rep.type, MPA_FRAME_REP);
	ck_assert(rep.enhanced && rep.enh.p2p);
	ck_assert_uint_eq(rep.enh.rtr, MPA_RTR_WRITE);
	ck_assert_uint_eq(rep.ulp_pd_len, 2);
	raw_send(peer, fp, raw_fpdu(RDMAP_WRITE, 1, fp));
	e = client_established(fd, peer);
	ck_assert_uint_eq(e->conn_id, a.conn_id);
	ck_assert(!e->initiator && e->p2p);
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_WRITE);
	ck_assert_uint_eq(e->rx_offset, 20);
	protobuf_c_message_free_unpacked(&e->base, NULL);
	close(peer);
	close(fd);
}
END_TEST

/* A client rejects with Private Data: R=1 and the PD reach the peer. */
START_TEST(e2e_reject)
{
	struct mpa_frame req = enh(MPA_FRAME_REQ, MPA_RTR_WRITE, "x"), rep;
	Iwcm__Reject rj = IWCM__REJECT__INIT;
	uint8_t raw[MPA_FRAME_MAX];
	int fd, peer;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	peer = raw_connect(client_listen(fd));
	raw_send_frame(peer, &req);
	rj.conn_id = client_request(fd, "x");
	rj.has_private_data = 1;
	rj.private_data.data = (uint8_t *)"busy";
	rj.private_data.len = 4;
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_REJECT, 8, &rj.base, -1), 0);
	ack_ok(fd, 8);
	raw_read_frame(peer, raw, &rep);
	ck_assert(rep.flags & MPA_FLAG_R);
	ck_assert_uint_eq(rep.ulp_pd_len, 4);
	ck_assert_mem_eq(rep.ulp_pd, "busy", 4);
	ck_assert(raw_closed(peer));
	close(peer);
	close(fd);
}
END_TEST

/*
 * A client connects peer-to-peer with a Read RTR.  Without
 * qp_takes_read_resp (_i 0) the RTR and its Read Response come before
 * the fd; with it (_i 1, as libiwcm asks) the fd comes right after the
 * RTR, with the Response due to the RTR's sink (RFC 6581 §9.2).
 */
START_TEST(e2e_initiator)
{
	struct mpa_frame req, rep = enh(MPA_FRAME_REP, MPA_RTR_READ, "");
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], lo[4] = { 127, 0, 0, 1 }, fp[128];
	uint32_t sink_stag;
	uint64_t sink_to;
	uint16_t port;
	int fd, lfd, peer;

	harness_start(&H, NULL);
	fd = ipc_open_hello(H.sock);
	lfd = raw_listen(&port);
	dst.addr.data = lo;
	dst.addr.len = 4;
	dst.port = port;
	c.dst = &dst;
	p.has_p2p = p.p2p = 1;
	p.has_qp_takes_read_resp = _i;
	p.qp_takes_read_resp = _i;
	c.params = &p;
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_CONNECT, 9, &c.base, -1), 0);
	ack_ok(fd, 9);
	peer = raw_accept(lfd);
	raw_read_frame(peer, raw, &req);
	ck_assert(req.enhanced && req.enh.p2p);
	ck_assert_uint_eq(req.enh.rtr, MPA_RTR_WRITE | MPA_RTR_READ);
	raw_send_frame(peer, &rep);
	raw_read(peer, raw, 52); /* the Read RTR */
	ck_assert_int_eq(raw[3], 0x40 | RDMAP_READ_REQ);
	/* RFC 5040 §4.4: Data Sink STag and Tagged Offset */
	sink_stag = wire_be32(raw + 20);
	sink_to = (uint64_t)wire_be32(raw + 24) << 32 | wire_be32(raw + 28);
	if (!_i)
		raw_send(peer, fp, raw_fpdu(RDMAP_READ_RESP, 1, fp));
	e = client_established(fd, peer);
	ck_assert(e->initiator);
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_READ);
	ck_assert_uint_eq(e->tx_offset, 52);
	ck_assert_uint_eq(e->rx_offset, _i ? 0 : 20);
	ck_assert_int_eq(e->has_rtr_read_due, _i);
	if (_i) {
		ck_assert(e->rtr_read_due);
		ck_assert(e->has_rtr_read_stag && e->has_rtr_read_to);
		ck_assert_uint_eq(e->rtr_read_stag, sink_stag);
		ck_assert_uint_eq(e->rtr_read_to, sink_to);
	}
	protobuf_c_message_free_unpacked(&e->base, NULL);
	close(peer);
	close(lfd);
	close(fd);
}
END_TEST

/* iwcmctl connect: the NegotiationReport with the raw frames, then
 * RESULT, on the admin socket. */
START_TEST(e2e_force)
{
	struct mpa_frame req, rep = enh(MPA_FRAME_REP, MPA_RTR_WRITE, "");
	Iwcm__Ctl__ForceConnect f = IWCM__CTL__FORCE_CONNECT__INIT;
	Iwcm__SockAddr dst = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Ctl__NegotiationReport *nr;
	uint8_t raw[MPA_FRAME_MAX], lo[4] = { 127, 0, 0, 1 };
	uint16_t port;
	size_t n;
	int admin, lfd, peer;

	harness_start(&H, NULL);
	admin = ipc_open_hello(H.admin);
	ck_assert_int_ge(admin, 0);
	lfd = raw_listen(&port);
	dst.addr.data = lo;
	dst.addr.len = 4;
	dst.port = port;
	f.dst = &dst;
	p.has_p2p = p.p2p = 1;
	f.params = &p;
	ck_assert_int_eq(
		ipc_send(admin, IPC_CTL_CONNECT, next_reqid, &f.base, -1), 0);
	peer = raw_accept(lfd);
	n = raw_read_frame(peer, raw, &req);
	raw_send_frame(peer, &rep);
	wait_msg(admin, IPC_CTL_NEGOTIATION);
	ck_assert_uint_eq(M.hdr.reqid, next_reqid);
	nr = (Iwcm__Ctl__NegotiationReport *)ipc_unpack(
		&M, &iwcm__ctl__negotiation_report__descriptor);
	ck_assert_ptr_nonnull(nr);
	ck_assert_uint_eq(nr->request.len, n);
	ck_assert_mem_eq(nr->request.data, raw, n);
	ck_assert_uint_eq(nr->reply.len, 24);
	ck_assert_uint_eq(nr->rtr.len, 20);
	ck_assert_ptr_nonnull(nr->result);
	ck_assert_uint_eq(nr->result->rtr_type, MPA_RTR_WRITE);
	protobuf_c_message_free_unpacked(&nr->base, NULL);
	wait_msg(admin, IPC_RESULT);
	ck_assert_uint_eq(M.hdr.reqid, next_reqid);
	raw_read(peer, raw, 20); /* the Write RTR */
	ck_assert(raw_closed(peer));
	close(peer);
	close(lfd);
	close(admin);
}
END_TEST

/* The request timeout from the configuration (RFC 5044 §7.1.2 r. 10). */
START_TEST(e2e_request_timeout)
{
	long long t0;
	int fd, peer;

	harness_start(&H, "request_timeout_ms = 100\n");
	fd = ipc_open_hello(H.sock);
	peer = raw_connect(client_listen(fd));
	t0 = harness_ms();
	ck_assert(raw_closed(peer));
	ck_assert_int_lt(harness_ms() - t0, 2000);
	close(peer);
	close(fd);
}
END_TEST

static Suite *engine_daemon_suite(void)
{
	Suite *s = suite_create("engine_daemon");
	TCase *tc = tcase_create("iwcmd");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, e2e_responder);
	tcase_add_test(tc, e2e_reject);
	tcase_add_loop_test(tc, e2e_initiator, 0, 2);
	tcase_add_test(tc, e2e_force);
	tcase_add_test(tc, e2e_request_timeout);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(engine_daemon_suite)
