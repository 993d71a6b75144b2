/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_SCTP_DAEMON_UTIL_H
#define IWCM_TESTS_SCTP_DAEMON_UTIL_H

/*
 * DDP stream sessions through a real iwcmd over usrsctp on loopback,
 * shared by the Check programs that drive them (check_sctp_daemon,
 * check_sctp_daemon_peer): the daemon started with its SCTP UDP port
 * (udp_port), SCTP Listen and Connect by a client, its events and
 * decisions, Established sessions (struct est) and the segments they
 * relay, iwcmctl conns, and a hostile peer: a usrsctp stack of the test
 * process (hostile_*).  Include after common.h, daemon_harness.h and
 * daemon_requests.h, in one file per program.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <usrsctp.h>

#include "sctp_ss.h"
#include "udp_port.h"

static uint16_t udp_port;

/* The daemon, with more of iwcmd.conf (or none). */
static inline void start_with(const char *more)
{
	char conf[256];

	udp_port = test_free_udp_port();
	ck_assert_uint_ne(udp_port, 0);
	snprintf(conf, sizeof(conf),
		 "sctp_udp_port = %u\nlog_level = debug\n%s", udp_port,
		 more ? more : "");
	harness_start(&H, conf);
}

/* The daemon whose sessions to one peer share an association (the
 * multiplexed relay these tests look at); start_with(NULL) for the
 * default, one association per session. */
static inline void start(void)
{
	start_with("sctp_multiplex = yes\n");
}

static uint64_t last_listener;

/* Listen for SCTP sessions on 127.0.0.1:*port (0: any); the bound port
 * in *port and the id in last_listener when RES_OK. */
static inline Iwcm__Result listen_sctp_at(int fd, uint16_t *port)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__ListenReply *r;
	uint8_t ip[4] = { 127, 0, 0, 1 };
	Iwcm__Result res;
	uint32_t reqid;

	a.addr.data = ip;
	a.addr.len = 4;
	a.port = *port;
	l.addr = &a;
	p.has_transport = 1;
	p.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	l.params = &p;
	request(fd, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(fd, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	res = r->result;
	if (res == IWCM__RESULT__RES_OK) {
		ck_assert(r->listener_id & (1ull << 62));
		last_listener = r->listener_id;
		*port = (uint16_t)r->bound->port;
		ck_assert_uint_ne(*port, 0);
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return res;
}

/* Listen for SCTP sessions on 127.0.0.1; the bound port. */
static inline uint16_t listen_sctp(int fd)
{
	uint16_t port = 0;
	Iwcm__Result r = listen_sctp_at(fd, &port);

	ck_assert_msg(r == IWCM__RESULT__RES_OK, "listen: %d\n%s", r,
		      harness_log(&H));
	return port;
}

/* iwcmd with more of iwcmd.conf (or none), and a client listening for
 * SCTP sessions on 127.0.0.1: the client's socket; the port in *port. */
static inline int start_listener(const char *more, uint16_t *port)
{
	int fd;

	start_with(more);
	fd = ipc_open_hello(H.sock);
	*port = listen_sctp(fd);
	return fd;
}

/* Connect over SCTP to a peer whose UDP encapsulation port is udp (0:
 * iwcmd's own); mpa_rev 1: a plain Initiate, 2: enhanced. */
static inline uint64_t connect_sctp_via(int fd, uint16_t port, const char *pd,
					uint32_t rev, uint16_t udp)
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
	if (udp) {
		p.has_sctp_udp_port = 1;
		p.sctp_udp_port = udp;
	}
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

/* Connect over SCTP; mpa_rev 1: a plain Initiate, 2: enhanced. */
static inline uint64_t connect_sctp(int fd, uint16_t port, const char *pd,
				    uint32_t rev)
{
	return connect_sctp_via(fd, port, pd, rev, 0);
}

/* The next event on fd, of type. */
static inline ProtobufCMessage *event(int fd, uint16_t type,
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

static inline Iwcm__Result decide(int fd, uint64_t id, bool accept,
				  const char *pd)
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
static inline void relay_put(uint8_t *b, uint16_t stream)
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
	uint16_t lport, pport; /* the association's SCTP ports */
	uint32_t maxseg;
	uint32_t ird, ord;
	bool peer_enh;
	char peer_pd[64];
};

/* The Established event in M: its session in e, its id. */
static inline uint64_t est_take(struct est *e)
{
	Iwcm__Established *x = (Iwcm__Established *)ipc_unpack(
		&M, &iwcm__established__descriptor);
	uint64_t id;

	ck_assert_ptr_nonnull(x);
	id = x->conn_id;
	ck_assert_int_eq(x->transport, IWCM__TRANSPORT__TRANSPORT_SCTP);
	ck_assert(x->has_sctp_stream && x->has_max_segment);
	ck_assert_uint_ge(x->max_segment, 512);
	ck_assert(!x->crc && !x->markers_tx && !x->markers_rx);
	e->fd = ipc_take_fd(&M);
	ck_assert_int_ge(e->fd, 0);
	e->stream = (uint16_t)x->sctp_stream;
	e->lport = (uint16_t)x->local->port;
	e->pport = (uint16_t)x->peer->port;
	e->maxseg = x->max_segment;
	e->ird = x->ird;
	e->ord = x->ord;
	e->peer_enh = x->peer_info->enhanced;
	snprintf(e->peer_pd, sizeof(e->peer_pd), "%.*s",
		 (int)x->peer_info->private_data.len,
		 (const char *)x->peer_info->private_data.data);
	protobuf_c_message_free_unpacked(&x->base, NULL);
	return id;
}

static inline void take_established(int fd, uint64_t id, struct est *e)
{
	ck_assert_msg(ipc_wait(fd, &M) == 1, "no event\n%s", harness_log(&H));
	ck_assert_msg(M.hdr.type == IPC_EVENT_ESTABLISHED,
		      "got %s, wanted %s\n%s", ipc_type_name(M.hdr.type),
		      ipc_type_name(IPC_EVENT_ESTABLISHED), harness_log(&H));
	ck_assert_uint_eq(est_take(e), id);
}

/* The next event on fd is the Established of one of the n sessions
 * ids: its session in e, its index in ids. */
static inline unsigned int est_next(int fd, const uint64_t *ids, unsigned int n,
				    struct est *e)
{
	unsigned int i;
	uint64_t id;

	ck_assert_msg(ipc_wait(fd, &M) == 1, "no event\n%s", harness_log(&H));
	ck_assert_msg(M.hdr.type == IPC_EVENT_ESTABLISHED, "got %s\n%s",
		      ipc_type_name(M.hdr.type), harness_log(&H));
	id = est_take(e);
	for (i = 0; i < n && ids[i] != id; i++)
		;
	ck_assert_uint_lt(i, n);
	return i;
}

/* A session from C to L through the daemon; both Established. */
static inline void session(int L, int C, uint16_t port, uint32_t rev,
			   struct est *le, struct est *ce)
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
static inline void pump(struct est *a, struct est *b, unsigned int n,
			size_t size)
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
static inline void still_serves(int L, uint16_t port)
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
static inline void wait_eof(int fd)
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
static inline unsigned int admin_sctp_conns(const char *state, uint16_t stream)
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

/* ---- hostile peers: a usrsctp stack of this process ---- */

/* The stack, one per test process however many associations: its UDP
 * encapsulation port. */
static inline uint16_t hostile_stack(void)
{
	static uint16_t own;

	if (!own) {
		own = test_free_udp_port();
		ck_assert_uint_ne(own, 0);
		usrsctp_init(own, NULL, NULL);
	}
	return own;
}

/* A socket of the stack that receives each message's SCTP_RCVINFO and,
 * with adapt, gives DDP's Adaptation Layer Indication (RFC 5043 §5.1). */
static inline struct socket *hostile_socket(bool adapt)
{
	const uint32_t on = 1;
	struct socket *so;

	hostile_stack();
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
	return so;
}

static inline struct socket *hostile_connect(uint16_t port, bool adapt)
{
	struct socket *so = hostile_socket(adapt);
	struct sctp_udpencaps ue;
	struct sockaddr_in sin = { .sin_family = AF_INET };

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

static inline void hostile_send(struct socket *so, uint16_t stream,
				uint32_t ppid, const void *buf, size_t len)
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
static inline uint64_t hostile_initiate(struct socket *so, uint16_t stream,
					int L)
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
static inline int hostile_recv_fc(struct socket *so, uint16_t *stream)
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

/* A peer listening on 127.0.0.1 (non-blocking) whose associations have
 * at most streams streams each way (RFC 4960 §5.1.1: it grants no more
 * outbound streams than its MIS); its SCTP port in *port. */
static inline struct socket *hostile_listen(uint16_t streams, uint16_t *port)
{
	struct sctp_initmsg im = { .sinit_num_ostreams = streams,
				   .sinit_max_instreams = streams };
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct socket *so = hostile_socket(true);
	struct sockaddr *la = NULL;

	ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_INITMSG, &im,
					    sizeof(im)),
			 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(usrsctp_bind(so, (struct sockaddr *)&sin, sizeof(sin)),
			 0);
	ck_assert_int_eq(usrsctp_listen(so, 8), 0);
	ck_assert_int_ge(usrsctp_getladdrs(so, 0, &la), 1);
	*port = ntohs(((struct sockaddr_in *)(void *)la)->sin_port);
	usrsctp_freeladdrs(la);
	ck_assert_uint_ne(*port, 0);
	usrsctp_set_non_blocking(so, 1);
	return so;
}

/* The association of so is up (SCTP_STATUS), within 5 s. */
static inline void hostile_up(struct socket *so)
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

/* A peer's association to port, up, carrying a session on stream 1
 * that L accepted: L's end in e, its id in id. */
static inline struct socket *hostile_session(uint16_t port, int L,
					     struct est *e, uint64_t *id)
{
	struct socket *so = hostile_connect(port, true);
	uint16_t stream;

	hostile_up(so);
	*id = hostile_initiate(so, 1, L);
	ck_assert_int_eq(decide(L, *id, true, NULL), IWCM__RESULT__RES_OK);
	take_established(L, *id, e);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_ACCEPT);
	return so;
}

/* L's end e of so's session closes: the daemon's Terminate reaches so,
 * which answers it (RFC 5043 §6.1). */
static inline void hostile_session_close(struct socket *so, struct est *e)
{
	static const uint8_t term[] = { 0, 1, 0, 4 };
	uint16_t stream;

	close(e->fd);
	ck_assert_int_eq(hostile_recv_fc(so, &stream), SCTP_SS_TERMINATE);
	hostile_send(so, stream, 17, term, sizeof(term));
}

/* so's association ends within hostile_recv_fc()'s 5 s. */
static inline void hostile_assoc_ends(struct socket *so)
{
	uint16_t stream;
	int fc = hostile_recv_fc(so, &stream);

	ck_assert_msg(fc == -1, "association still up (%d)\n%s", fc,
		      harness_log(&H));
}

#endif
