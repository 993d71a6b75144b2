/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP stream sessions end to end through the real iwcmd over usrsctp on
 * loopback: the daemon's SCTP listener and its own association to it,
 * two clients on the client socket, the Established fds relaying DDP
 * Segments both ways (RFC 5043), rejects, and hostile peers (a usrsctp
 * stack in this process) that end their session or association while
 * the daemon lives on.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <usrsctp.h>

#include "common.h"
#include "udp_port.h"
#include "daemon_harness.h"
#include "daemon_requests.h"
#include "sctp_ss.h"

static uint16_t udp_port;

/* The daemon, with more of iwcmd.conf (or none). */
static void start_with(const char *more)
{
	char conf[256];

	udp_port = test_free_udp_port();
	ck_assert_uint_ne(udp_port, 0);
	snprintf(conf, sizeof(conf),
		 "sctp_udp_port = %u\nlog_level = debug\n%s", udp_port,
		 more ? more : "");
	harness_start(&H, conf);
}

static void start(void)
{
	start_with(NULL);
}

static uint64_t last_listener;

/* Listen for SCTP sessions on 127.0.0.1; the bound port. */
static uint16_t listen_sctp(int fd)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__ListenReply *r;
	uint8_t ip[4] = { 127, 0, 0, 1 };
	uint32_t reqid;
	uint16_t port;

	a.addr.data = ip;
	a.addr.len = 4;
	l.addr = &a;
	p.has_transport = 1;
	p.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	l.params = &p;
	request(fd, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(fd, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	ck_assert_msg(r->result == IWCM__RESULT__RES_OK, "listen: %d\n%s",
		      r->result, harness_log(&H));
	ck_assert(r->listener_id & (1ull << 62));
	last_listener = r->listener_id;
	port = (uint16_t)r->bound->port;
	ck_assert_uint_ne(port, 0);
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return port;
}

/* Connect over SCTP; mpa_rev 1: a plain Initiate, 2: enhanced. */
static uint64_t connect_sctp(int fd, uint16_t port, const char *pd,
			     uint32_t rev)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	uint8_t ip[4] = { 127, 0, 0, 1 };
	Iwcm__Ack *k;
	uint32_t reqid;
	uint64_t id;

	a.addr.data = ip;
	a.addr.len = 4;
	a.port = port;
	c.dst = &a;
	p.has_transport = 1;
	p.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	p.has_mpa_rev = 1;
	p.mpa_rev = rev;
	p.has_ird = p.has_ord = 1;
	p.ird = 4;
	p.ord = 2;
	if (pd) {
		p.has_private_data = 1;
		p.private_data.data = (uint8_t *)(uintptr_t)pd;
		p.private_data.len = strlen(pd);
	}
	c.params = &p;
	request(fd, IPC_CLIENT_CONNECT, &c.base, &reqid);
	reply(fd, IPC_CLIENT_ACK, reqid);
	k = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(k);
	ck_assert_int_eq(k->result, IWCM__RESULT__RES_OK);
	id = k->conn_id;
	protobuf_c_message_free_unpacked(&k->base, NULL);
	return id;
}

/* The next event on fd, of type. */
static ProtobufCMessage *event(int fd, uint16_t type,
			       const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m;

	ck_assert_msg(ipc_wait(fd, &M) == 1, "no event\n%s", harness_log(&H));
	ck_assert_msg(M.hdr.type == type, "got %s, wanted %s\n%s",
		      ipc_type_name(M.hdr.type), ipc_type_name(type),
		      harness_log(&H));
	m = ipc_unpack(&M, d);
	ck_assert_ptr_nonnull(m);
	return m;
}

static Iwcm__Result decide(int fd, uint64_t id, bool accept, const char *pd)
{
	Iwcm__Accept a = IWCM__ACCEPT__INIT;
	Iwcm__Reject r = IWCM__REJECT__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;

	if (accept) {
		a.conn_id = id;
		if (pd) {
			p.has_private_data = 1;
			p.private_data.data = (uint8_t *)(uintptr_t)pd;
			p.private_data.len = strlen(pd);
			a.params = &p;
		}
		return ack_of(fd, IPC_CLIENT_ACCEPT, &a.base);
	}
	r.conn_id = id;
	r.has_private_data = pd != NULL;
	r.private_data.data = (uint8_t *)(uintptr_t)pd;
	r.private_data.len = pd ? strlen(pd) : 0;
	return ack_of(fd, IPC_CLIENT_REJECT, &r.base);
}

/* One relay datagram: {stream, 0, PPID 16} then the segment. */
static void relay_put(uint8_t *b, uint16_t stream)
{
	b[0] = (uint8_t)(stream >> 8);
	b[1] = (uint8_t)stream;
	b[2] = b[3] = 0;
	b[4] = b[5] = b[6] = 0;
	b[7] = 16;
}

struct est {
	int fd;
	uint16_t stream;
	uint32_t maxseg;
	uint32_t ird, ord;
	bool peer_enh;
	char peer_pd[64];
};

static void take_established(int fd, uint64_t id, struct est *e)
{
	Iwcm__Established *x = (Iwcm__Established *)event(
		fd, IPC_EVENT_ESTABLISHED, &iwcm__established__descriptor);

	ck_assert_uint_eq(x->conn_id, id);
	ck_assert_int_eq(x->transport, IWCM__TRANSPORT__TRANSPORT_SCTP);
	ck_assert(x->has_sctp_stream && x->has_max_segment);
	ck_assert_uint_ge(x->max_segment, 512);
	ck_assert(!x->crc && !x->markers_tx && !x->markers_rx);
	e->fd = ipc_take_fd(&M);
	ck_assert_int_ge(e->fd, 0);
	e->stream = (uint16_t)x->sctp_stream;
	e->maxseg = x->max_segment;
	e->ird = x->ird;
	e->ord = x->ord;
	e->peer_enh = x->peer_info->enhanced;
	snprintf(e->peer_pd, sizeof(e->peer_pd), "%.*s",
		 (int)x->peer_info->private_data.len,
		 (const char *)x->peer_info->private_data.data);
	protobuf_c_message_free_unpacked(&x->base, NULL);
}

/* A session from C to L through the daemon; both Established. */
static void session(int L, int C, uint16_t port, uint32_t rev, struct est *le,
		    struct est *ce)
{
	Iwcm__ConnectRequest *cr;
	uint64_t id, lid;

	id = connect_sctp(C, port, "hello", rev);
	cr = (Iwcm__ConnectRequest *)event(L, IPC_EVENT_CONNECT_REQUEST,
					   &iwcm__connect_request__descriptor);
	ck_assert(cr->has_transport &&
		  cr->transport == IWCM__TRANSPORT__TRANSPORT_SCTP);
	ck_assert_uint_eq(cr->peer_info->private_data.len, 5);
	ck_assert_mem_eq(cr->peer_info->private_data.data, "hello", 5);
	ck_assert_int_eq(cr->peer_info->enhanced, rev == 2);
	if (rev == 2) {
		/* RFC 6581 §9.1: the peer's raw IRD/ORD */
		ck_assert_uint_eq(cr->peer_info->ird, 4);
		ck_assert_uint_eq(cr->peer_info->ord, 2);
	}
	lid = cr->conn_id;
	protobuf_c_message_free_unpacked(&cr->base, NULL);
	ck_assert_int_eq(decide(L, lid, true, "welcome"), IWCM__RESULT__RES_OK);
	take_established(L, lid, le);
	take_established(C, id, ce);
	ck_assert_str_eq(ce->peer_pd, "welcome");
	ck_assert_str_eq(le->peer_pd, "hello");
	ck_assert_uint_eq(le->stream, ce->stream);
	ck_assert_int_eq(ce->peer_enh, rev == 2);
}

/* Send n numbered segments from a to b, reading as they come. */
static void pump(struct est *a, struct est *b, unsigned int n, size_t size)
{
	uint8_t out[2048], in[2048];
	unsigned int sent = 0, got = 0;
	long long end = harness_ms() + 20000;

	ck_assert_uint_le(size + 8, sizeof(out));
	while (got < n) {
		struct pollfd p[2] = { { a->fd, sent < n ? POLLOUT : 0, 0 },
				       { b->fd, POLLIN, 0 } };

		ck_assert_msg(harness_ms() < end, "pump: %u/%u sent, %u got",
			      sent, n, got);
		ck_assert_int_ge(poll(p, 2, 1000), 0);
		if (p[0].revents & POLLOUT) {
			relay_put(out, a->stream);
			memset(out + 8, (int)(sent & 0xff), size);
			memcpy(out + 8, &sent, sizeof(sent));
			if (send(a->fd, out, size + 8, MSG_DONTWAIT) ==
			    (ssize_t)(size + 8))
				sent++;
		}
		if (p[1].revents & POLLIN) {
			ssize_t r = recv(b->fd, in, sizeof(in), MSG_DONTWAIT);
			unsigned int seq;

			if (r < 0 && errno == EAGAIN)
				continue;
			ck_assert_msg(r == (ssize_t)(size + 8),
				      "pump: %zd octets after %u/%u (%s)\n%s",
				      r, got, n, r < 0 ? strerror(errno) : "",
				      harness_log(&H));
			ck_assert_uint_eq(in[0] << 8 | in[1], b->stream);
			ck_assert_uint_eq(in[7], 16);
			memcpy(&seq, in + 8, sizeof(seq));
			/* nothing lost, duplicated or reordered */
			ck_assert_uint_eq(seq, got);
			got++;
		}
	}
}

/* The daemon still serves: a new client's session to L's listener on
 * port carries segments; then L is closed. */
static void still_serves(int L, uint16_t port)
{
	struct est le, ce;
	int C = ipc_open_hello(H.sock);

	session(L, C, port, 2, &le, &ce);
	pump(&ce, &le, 3, 10);
	close(le.fd);
	close(ce.fd);
	close(L);
	close(C);
}

/* End of file on fd within the timeout (the session ended). */
static void wait_eof(int fd)
{
	uint8_t buf[2048];
	long long end = harness_ms() + 5000;

	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };
		ssize_t r;

		ck_assert_msg(harness_ms() < end, "no end of file\n%s",
			      harness_log(&H));
		poll(&p, 1, 200);
		r = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (r == 0)
			return;
	}
}

/* iwcmctl conns through the admin socket: SCTP sessions in state
 * state (NULL: any), by stream. */
static unsigned int admin_sctp_conns(const char *state, uint16_t stream)
{
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	unsigned int n = 0;
	uint32_t reqid;
	int fd = ipc_open_hello(H.admin);

	ck_assert_int_ge(fd, 0);
	request(fd, IPC_CTL_CONNS, &e.base, &reqid);
	for (;;) {
		Iwcm__Ctl__ConnInfo *ci;

		ck_assert_int_eq(ipc_wait(fd, &M), 1);
		ck_assert_uint_eq(M.hdr.reqid, reqid);
		if (M.hdr.type == IPC_END)
			break;
		ck_assert_uint_eq(M.hdr.type, IPC_CTL_CONN_INFO);
		ci = (Iwcm__Ctl__ConnInfo *)ipc_unpack(
			&M, &iwcm__ctl__conn_info__descriptor);
		ck_assert_ptr_nonnull(ci);
		if (ci->has_transport &&
		    ci->transport == IWCM__TRANSPORT__TRANSPORT_SCTP &&
		    ci->sctp_stream == stream &&
		    (!state || !strcmp(ci->state, state))) {
			/* the association it runs on, named */
			ck_assert(ci->has_sctp_assoc && ci->sctp_assoc);
			n++;
		}
		protobuf_c_message_free_unpacked(&ci->base, NULL);
	}
	close(fd);
	return n;
}

/* Accepted sessions, enhanced and plain, relaying both ways. */
START_TEST(test_accepted)
{
	struct est le, ce, le2, ce2, le3, ce3;
	int L, C, C2;
	uint16_t port;

	start();
	L = ipc_open_hello(H.sock);
	C = ipc_open_hello(H.sock);
	ck_assert_int_ge(L, 0);
	ck_assert_int_ge(C, 0);
	port = listen_sctp(L);
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
	L = ipc_open_hello(H.sock);
	C = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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

/* ---- hostile peers: a usrsctp stack of this process ---- */

static struct socket *hostile_connect(uint16_t port, bool adapt)
{
	static bool stack;
	struct socket *so;
	struct sctp_udpencaps ue;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	const uint32_t on = 1;

	/* one stack per test process, however many associations */
	if (!stack) {
		uint16_t own = test_free_udp_port();

		ck_assert_uint_ne(own, 0);
		usrsctp_init(own, NULL, NULL);
		stack = true;
	}
	so = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0,
			    NULL);
	ck_assert_ptr_nonnull(so);
	if (adapt) {
		struct sctp_setadaptation ad = { .ssb_adaptation_ind = 1 };

		ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP,
						    SCTP_ADAPTATION_LAYER, &ad,
						    sizeof(ad)),
				 0);
	}
	ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO,
					    &on, sizeof(on)),
			 0);
	memset(&ue, 0, sizeof(ue));
	ue.sue_port = htons(udp_port);
	ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP,
					    SCTP_REMOTE_UDP_ENCAPS_PORT, &ue,
					    sizeof(ue)),
			 0);
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(
		usrsctp_connect(so, (struct sockaddr *)&sin, sizeof(sin)), 0);
	usrsctp_set_non_blocking(so, 1);
	return so;
}

static void hostile_send(struct socket *so, uint16_t stream, uint32_t ppid,
			 const void *buf, size_t len)
{
	struct sctp_sndinfo si = { .snd_sid = stream,
				   .snd_flags = SCTP_UNORDERED,
				   .snd_ppid = htonl(ppid) };

	ck_assert_int_ge(usrsctp_sendv(so, buf, len, NULL, 0, &si, sizeof(si),
				       SCTP_SENDV_SNDINFO, 0),
			 0);
}

/* A session Initiate from so on stream; the owner L's ConnectRequest
 * for it comes: its id. */
static uint64_t hostile_initiate(struct socket *so, uint16_t stream, int L)
{
	static const uint8_t initiate[] = { 0, 0, 0, 1 };
	Iwcm__ConnectRequest *cr;
	uint64_t id;

	hostile_send(so, stream, 17, initiate, sizeof(initiate));
	cr = (Iwcm__ConnectRequest *)event(L, IPC_EVENT_CONNECT_REQUEST,
					   &iwcm__connect_request__descriptor);
	id = cr->conn_id;
	protobuf_c_message_free_unpacked(&cr->base, NULL);
	return id;
}

/* The next message from the daemon on so: its function code (PPID 17),
 * or -1 when the association ended. */
static int hostile_recv_fc(struct socket *so, uint16_t *stream)
{
	long long end = harness_ms() + 5000;

	while (harness_ms() < end) {
		uint8_t buf[1024];
		struct sctp_rcvinfo rcv;
		socklen_t il = sizeof(rcv);
		unsigned int it = 0;
		int flags = 0;
		ssize_t n = usrsctp_recvv(so, buf, sizeof(buf), NULL, NULL,
					  &rcv, &il, &it, &flags);

		if (n < 0 && errno == EWOULDBLOCK) {
			usleep(10000);
			continue;
		}
		if (n <= 0)
			return -1;
		if (flags & MSG_NOTIFICATION) {
			const union sctp_notification *sn = (const void *)buf;

			if (sn->sn_header.sn_type == SCTP_ASSOC_CHANGE &&
			    sn->sn_assoc_change.sac_state != SCTP_COMM_UP)
				return -1;
			continue;
		}
		if (ntohl(rcv.rcv_ppid) != 17 || n < 4)
			continue;
		*stream = rcv.rcv_sid;
		return buf[2] << 8 | buf[3];
	}
	return -2;
}

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

	start();
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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

/* The association of so is up (SCTP_STATUS), within 5 s. */
static void hostile_up(struct socket *so)
{
	long long end = harness_ms() + 5000;

	while (harness_ms() < end) {
		struct sctp_status st;
		socklen_t len = sizeof(st);

		memset(&st, 0, sizeof(st));
		if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st,
				       &len) == 0 &&
		    st.sstat_state == SCTP_ESTABLISHED)
			return;
		usleep(5000);
	}
	ck_abort_msg("association not up\n%s", harness_log(&H));
}

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

	start_with("request_timeout_ms = 400\n");
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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
	ck_assert_int_eq(decide(L, id, false, "no"), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_REJECT);
	/* its session ended: half-open again, ABORTed in turn */
	t0 = harness_ms();
	ck_assert_int_eq(hostile_recv_fc(so, &stream), -1);
	ck_assert_int_ge(harness_ms() - t0, 300);
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

	start_with("halfopen_per_source = 2\n");
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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
	L = ipc_open_hello(H.sock);
	C = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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

	start_with("max_pending_per_uid = 1\n");
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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
	uint16_t port, stream;
	struct est e;
	uint64_t id;
	int L;

	start_with("max_pending_per_uid = 1\n");
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
	so = hostile_connect(port, true);
	hostile_up(so);
	id = hostile_initiate(so, 1, L);
	ck_assert_int_eq(decide(L, id, true, NULL), IWCM__RESULT__RES_OK);
	take_established(L, id, &e);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_ACCEPT);
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

	start();
	L = ipc_open_hello(H.sock);
	port = listen_sctp(L);
	so = hostile_connect(port, false);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), -1);
	usrsctp_close(so);
	ck_assert_ptr_nonnull(strstr(harness_log(&H), "RFC 5043 §5.1"));
	/* the daemon lives on */
	still_serves(L, port);
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
	L = ipc_open_hello(H.sock);
	C = ipc_open_hello(H.sock);
	port = listen_sctp(L);
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

static Suite *sctp_daemon_suite(void)
{
	Suite *s = suite_create("sctp_daemon");

	daemon_add_test(s, "accepted", test_accepted);
	daemon_add_test(s, "rejected", test_rejected);
	daemon_add_test(s, "hostile", test_hostile);
	daemon_add_test(s, "no_indication", test_no_indication);
	daemon_add_test(s, "halfopen_timeout", test_halfopen_timeout);
	daemon_add_test(s, "halfopen_shed", test_halfopen_shed);
	daemon_add_test(s, "uid_pending", test_uid_pending);
	daemon_add_test(s, "owner_gone", test_owner_gone);
	daemon_add_test(s, "accept_twice", test_accept_twice);
	daemon_add_test(s, "stop_backlogged", test_stop_backlogged);
	daemon_add_test(s, "service", test_service);
	return s;
}

TEST_MAIN(sctp_daemon_suite)
