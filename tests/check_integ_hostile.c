/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Bad input against the real iwcmd.  Hostile raw TCP peers (a wrong key,
 * PD_Length over 512, a truncated frame then silence, a Reply where the
 * Request was due, an enhanced Request with PD_Length below 4, an unknown
 * Rev, the wrong RTR type, data glued before the Reply, data instead of
 * the Reply) must cost only their own connection: the daemon closes it
 * or sends the right Terminate, counts it, logs it once, and a connection
 * waiting beside it and a good handshake after it still complete.
 * Misbehaving clients on the client socket (garbage, oversize messages,
 * an fd, a second HELLO, a client killed while it holds listeners, a
 * pending request and a connect in progress, a client that never reads)
 * cost only their own session, and the daemon frees everything they held.
 * (Floods of half-open connections: check_integ_flood.c.)
 */
#include "config.h"

#include <sys/prctl.h>

#include "integ_hs.h"

static void hs_start(const char *conf)
{
	harness_start(&H, conf);
	hs_listen();
	fds_base = hs_fds_settled();
	ck_assert_int_gt(fds_base, 0);
}

/* No event is waiting on ctx. */
static bool hs_no_event(void)
{
	struct iwcm_event *ev;

	if (iwcm_get_event(ctx, &ev) == 0) {
		iwcm_ack_event(ev);
		return false;
	}
	return errno == EAGAIN;
}

/* ---- hostile raw peers ---- */

enum hs_outcome {
	HS_CLOSE,  /* the daemon closes before the ULP hears of it */
	HS_TERM,   /* the ULP accepted; the daemon sends a Terminate */
	HS_UNREAD, /* the ULP gets the octets with the socket */
};

struct hostile {
	const char *name;
	size_t (*build)(uint8_t *buf); /* what the peer sends first */
	enum hs_outcome outcome;
	uint8_t rtr_opcode; /* HS_TERM: the RTR the peer sends */
	uint8_t term;	    /* HS_TERM: the code expected */
	const char *stat;   /* the counter that grows by one */
	const char *log;    /* what the daemon logs, once (NULL: nothing) */
};

static size_t hs_build(const struct mpa_frame *f, uint8_t *buf)
{
	size_t n;

	ck_assert_int_eq(mpa_frame_build(f, buf, MPA_FRAME_MAX, &n), WIRE_OK);
	return n;
}

/* RFC 5044 §7.1.2 rule 5: "MPA ID Req Frome". */
static size_t b_wrong_key(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REQ, false, 0, "key");
	size_t n = hs_build(&f, buf);

	buf[13] = 'o';
	return n;
}

/* RFC 5044 §7.1.2 rule 9: PD_Length 513. */
static size_t b_pd_long(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REQ, false, 0, "");
	size_t n = hs_build(&f, buf);

	buf[18] = 0x02;
	buf[19] = 0x01;
	memset(buf + n, 'P', 100);
	return n + 100;
}

/* Ten octets of a Request, then nothing (RFC 5044 §7.1.2 rule 10). */
static size_t b_truncated(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REQ, false, 0, "cut");

	hs_build(&f, buf);
	return 10;
}

/* A Reply to a responder (RFC 5044 §7.1.2 rule 5). */
static size_t b_reply(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REP, false, 0, "reply");

	return hs_build(&f, buf);
}

/* S=1 and Rev 2, but PD_Length 2: no room for the RFC 6581 word. */
static size_t b_enh_short(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REQ, false, 0, "");
	size_t n = hs_build(&f, buf);

	buf[19] = 2;
	return n - 2;
}

/* Rev 3, which no RFC defines. */
static size_t b_rev3(uint8_t *buf)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_REQ;
	f.rev = 3;
	f.flags = MPA_FLAG_C;
	f.pd = (const uint8_t *)"rev3";
	f.pd_len = 4;
	return hs_build(&f, buf);
}

/* Peer-to-peer offering only the Write RTR (then it sends a Send). */
static size_t b_p2p_write(uint8_t *buf)
{
	struct mpa_frame f =
		hs_frame(MPA_FRAME_REQ, true, MPA_RTR_WRITE, "rtr");

	return hs_build(&f, buf);
}

/* A client-server Request with eight octets glued behind it. */
static size_t b_glued(uint8_t *buf)
{
	struct mpa_frame f = hs_frame(MPA_FRAME_REQ, false, 0, "early");
	size_t n = hs_build(&f, buf);

	memcpy(buf + n, "EARLYFPD", 8);
	return n + 8;
}

static const struct hostile hostiles[] = {
	{ "wrong key", b_wrong_key, HS_CLOSE, 0, 0, "bad_frames",
	  "improperly formatted Request: " },
	{ "PD_Length over 512", b_pd_long, HS_CLOSE, 0, 0, "bad_frames",
	  "improperly formatted Request: " },
	{ "truncated frame, then silence", b_truncated, HS_CLOSE, 0, 0,
	  "timeouts", "timeout in WAIT_REQUEST" },
	{ "a Reply where the Request was due", b_reply, HS_CLOSE, 0, 0,
	  "bad_frames", "Request refused: " },
	{ "enhanced Request with PD_Length below 4", b_enh_short, HS_CLOSE, 0,
	  0, "bad_frames", "improperly formatted Request: " },
	{ "unknown Rev", b_rev3, HS_CLOSE, 0, 0, "bad_frames",
	  "Request refused: " },
	{ "wrong RTR type", b_p2p_write, HS_TERM, RDMAP_SEND,
	  MPA_ECODE_NO_MATCHING_RTR, "term_sent_7",
	  "RTR of a type the Reply did not allow" },
	{ "data glued before the Reply", b_glued, HS_UNREAD, 0, 0,
	  "established", NULL },
};

/* Read one FPDU at d from a raw peer; the RDMAP message in it. */
static void hs_read_fpdu(int fd, struct mpa_dir *d, uint8_t *ulpdu,
			 struct rdmap_msg *m)
{
	uint8_t raw[512];
	struct mpa_fpdu_info info;
	size_t lead = d->markers && d->off % MPA_MARKER_INTERVAL == 0 ?
			      MPA_MARKER_LEN :
			      0;
	size_t wire;

	ck_assert_int_eq(integ_read(fd, raw, lead + MPA_HDR_LEN,
				    INTEG_TIMEOUT_MS, NULL),
			 0);
	wire = mpa_fpdu_wire_len(d, (uint16_t)(raw[lead] << 8 | raw[lead + 1]));
	ck_assert(wire > lead + MPA_HDR_LEN && wire <= sizeof(raw));
	ck_assert_int_eq(integ_read(fd, raw + lead + MPA_HDR_LEN,
				    wire - lead - MPA_HDR_LEN, INTEG_TIMEOUT_MS,
				    NULL),
			 0);
	ck_assert_int_eq(mpa_fpdu_parse(d, raw, wire, &info, ulpdu, 512),
			 WIRE_OK);
	ck_assert(info.crc_ok && info.markers_ok);
	d->off += (uint32_t)wire;
	ck_assert_int_eq(rdmap_msg_parse(ulpdu, info.ulpdu_len, m), WIRE_OK);
}

START_TEST(hostile_peer)
{
	const struct hostile *h = &hostiles[_i];
	struct mpa_dir rx = { false, true, 0 }, tx = { false, true, 0 };
	uint8_t buf[1024], raw[MPA_FRAME_MAX], ulpdu[512];
	struct iwcm_conn *by, *c;
	struct mpa_frame rep;
	struct rdmap_msg m;
	size_t n, ulen;
	int bfd, fd;
	long long t;

	hs_start("request_timeout_ms = 400\nreply_timeout_ms = 1000\n");
	/* a connection waiting for its ULP beside the hostile one */
	bfd = hs_peer_request("bystander");
	by = hs_request(bfd);

	fd = integ_tcp_connect(port);
	ck_assert_int_ge(fd, 0);
	n = h->build(buf);
	ck_assert_int_eq(integ_write(fd, buf, n), 0);
	switch (h->outcome) {
	case HS_CLOSE:
		/* RFC 5044 §7.1.2 rules 5, 9, 10; RFC 6581 §10: close */
		ck_assert_msg(integ_closed(fd, 3000), "%s: not closed",
			      h->name);
		ck_assert_msg(hs_no_event(), "%s reached the ULP", h->name);
		break;
	case HS_TERM:
		c = hs_request(fd);
		ck_assert_int_eq(iwcm_accept(c, NULL), 0);
		ck_assert_int_eq(integ_read_frame(fd, raw, &rep), 0);
		ck_assert(rep.enhanced && rep.enh.p2p);
		ck_assert_uint_eq(rep.enh.rtr, MPA_RTR_WRITE);
		/* a zero-length Send where the Reply allowed a Write */
		ck_assert_int_eq(integ_fpdu_send(fd, &tx, 1, 1, 0, 0), 0);
		/* RFC 6581 §8, §9.2: Layer 2 / type 0 / code 7 */
		hs_read_fpdu(fd, &rx, ulpdu, &m);
		ck_assert_int_eq(m.opcode, RDMAP_TERMINATE);
		ck_assert_int_eq(m.u.term.layer, RDMAP_TERM_LAYER_LLP);
		ck_assert_int_eq(m.u.term.etype, MPA_ETYPE_MPA);
		ck_assert_int_eq(m.u.term.ecode, h->term);
		ck_assert(integ_closed(fd, 3000));
		/* the ULP that accepted hears why */
		ck_assert_ptr_eq(hs_event(IWCM_CM_EVENT_CONNECT_ERROR), c);
		ck_assert_int_eq(qa(c).reason, IWCM_STATUS_PROTOCOL);
		ck_assert_uint_eq(qa(c).comp_mask & IWCM_CONN_ATTR_TERM,
				  IWCM_CONN_ATTR_TERM);
		ck_assert_uint_eq(qa(c).term_layer, RDMAP_TERM_LAYER_LLP);
		ck_assert_uint_eq(qa(c).term_etype, MPA_ETYPE_MPA);
		ck_assert_uint_eq(qa(c).term_ecode, h->term);
		iwcm_conn_free(c);
		break;
	case HS_UNREAD:
		/*
		 * RFC 5044 §7.1.2 forbids it, but the daemon is liberal:
		 * the octets stay in the socket and reach the ULP first.
		 */
		c = hs_request(fd);
		ck_assert_int_eq(iwcm_accept(c, NULL), 0);
		ck_assert_int_eq(integ_read_frame(fd, raw, &rep), 0);
		ck_assert_ptr_eq(hs_event(IWCM_CM_EVENT_ESTABLISHED), c);
		ulen = qa(c).unread_len;
		ck_assert_uint_eq(ulen, 0);
		{
			struct pollfd p = { iwcm_conn_get_fd(c), POLLIN, 0 };
			char early[8];

			ck_assert_int_eq(poll(&p, 1, 3000), 1);
			ck_assert_int_eq(recv(p.fd, early, sizeof(early),
					      MSG_WAITALL),
					 (ssize_t)sizeof(early));
			ck_assert_mem_eq(early, "EARLYFPD", 8);
		}
		iwcm_conn_free(c);
		break;
	}
	close(fd);
	ck_assert_int_eq(integ_stat(&H, h->stat), 1);
	if (h->log) /* a success is logged at debug level only */
		ck_assert_msg(integ_log_count(&H, h->log) == 1,
			      "\"%s\" logged %d times:\n%s", h->log,
			      integ_log_count(&H, h->log), harness_log(&H));
	else
		ck_assert_int_eq(integ_log_count(&H, "established"), 0);

	/* the connection beside it and the next one are served */
	hs_finish(bfd, by);
	t = hs_good();
	ck_assert_int_lt(t, 1000);
	hs_all_freed(1);
}
END_TEST

/* A daemon initiator whose peer sends data where the Reply is due. */
START_TEST(hostile_data_for_reply)
{
	struct mpa_dir tx = { false, true, 0 };
	struct sockaddr_in sin;
	uint8_t raw[MPA_FRAME_MAX];
	struct mpa_frame req;
	struct iwcm_conn *c;
	uint16_t rport;
	int lfd, fd;

	hs_start(NULL);
	lfd = integ_tcp_listen(&rport);
	ck_assert_int_ge(lfd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(rport);
	c = iwcm_connect(ctx, (struct sockaddr *)&sin, NULL, NULL);
	ck_assert_ptr_nonnull(c);
	fd = integ_tcp_accept(lfd);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(integ_read_frame(fd, raw, &req), 0);
	/* an FPDU (a Send) instead of the Reply: RFC 5044 §7.1.2 rule 3 */
	ck_assert_int_eq(integ_fpdu_send(fd, &tx, 1, 1, 64, 5), 0);
	ck_assert(integ_closed(fd, 3000));
	ck_assert_ptr_eq(hs_event(IWCM_CM_EVENT_CONNECT_ERROR), c);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_PROTOCOL);
	iwcm_conn_free(c);
	close(fd);
	close(lfd);
	ck_assert_int_eq(integ_stat(&H, "bad_frames"), 1);
	ck_assert_int_eq(integ_log_count(&H, "improperly formatted Reply"), 1);
	ck_assert_int_lt(hs_good(), 1000);
	hs_all_freed(1);
}
END_TEST

/* ---- misbehaving clients ---- */

enum cl_outcome {
	CL_CLOSED,  /* the daemon ends the session */
	CL_VERSION, /* a VERSION with RES_EVERSION, then the end */
	CL_EINVAL,  /* a reply with RES_EINVAL; the session goes on */
};

struct misbehaviour {
	const char *name;
	void (*send)(int fd);
	enum cl_outcome outcome;
	const char *log;
};

static void m_short(int fd)
{
	ck_assert_int_eq(send(fd, "\x00\x01\x00", 3, 0), 3);
}

static void m_version(int fd)
{
	static const uint8_t hdr[IPC_HDR_LEN] = { 0, 7, 0, 200, 0, 0, 0, 9 };

	ck_assert_int_eq(send(fd, hdr, sizeof(hdr), 0), (ssize_t)sizeof(hdr));
}

static void m_unknown_type(int fd)
{
	ck_assert_int_eq(ipc_send(fd, 999, 3, NULL, -1), 0);
}

static void m_garbage_body(int fd)
{
	uint8_t b[IPC_HDR_LEN + 64];

	memset(b, 0xff, sizeof(b));
	b[0] = 0;
	b[1] = IPC_PROTO_VERSION;
	b[2] = IPC_CLIENT_LISTEN >> 8;
	b[3] = IPC_CLIENT_LISTEN & 0xff;
	ck_assert_int_eq(send(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
}

static void m_fd(int fd)
{
	Iwcm__Unlisten u = IWCM__UNLISTEN__INIT;

	u.listener_id = 1;
	ck_assert_int_eq(ipc_send(fd, IPC_CLIENT_UNLISTEN, 4, &u.base, 0), 0);
}

static void m_oversize(int fd)
{
	static uint8_t b[IPC_MAX_MSG + 4096];
	int sz = (int)sizeof(b) * 2;

	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
	memset(b, 0, sizeof(b));
	b[1] = IPC_PROTO_VERSION;
	b[2] = IPC_CLIENT_LISTEN >> 8;
	b[3] = IPC_CLIENT_LISTEN & 0xff;
	ck_assert_int_eq(send(fd, b, sizeof(b), 0), (ssize_t)sizeof(b));
}

static void m_hello_again(int fd)
{
	Iwcm__Hello h = IWCM__HELLO__INIT;

	h.version = IPC_PROTO_VERSION;
	ck_assert_int_eq(ipc_send(fd, IPC_HELLO, 5, &h.base, -1), 0);
}

static const struct misbehaviour misbehaviours[] = {
	{ "a short header", m_short, CL_CLOSED,
	  "receive: malformed message or control data" },
	{ "another IPC version", m_version, CL_VERSION, "IPC version 7" },
	{ "an unknown message type", m_unknown_type, CL_CLOSED,
	  "unexpected message" },
	{ "a body that does not unpack", m_garbage_body, CL_EINVAL, NULL },
	{ "an fd toward the daemon", m_fd, CL_CLOSED,
	  "receive: malformed message or control data" },
	{ "a message over 64 KiB", m_oversize, CL_CLOSED,
	  "receive: message too large" },
	{ "a second HELLO", m_hello_again, CL_CLOSED,
	  "HELLO after the handshake" },
};

START_TEST(client_misbehaves)
{
	const struct misbehaviour *b = &misbehaviours[_i];
	static struct ipc_msg m;
	Iwcm__Version *v;
	Iwcm__ListenReply *lr;
	int fd;

	hs_start(NULL);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(integ_clients(&H), 2);
	b->send(fd);
	switch (b->outcome) {
	case CL_VERSION:
		ck_assert_int_eq(ipc_wait(fd, &m), 1);
		ck_assert_int_eq(m.hdr.type, IPC_VERSION);
		v = (Iwcm__Version *)ipc_unpack(&m, &iwcm__version__descriptor);
		ck_assert_ptr_nonnull(v);
		ck_assert_int_eq(v->result, IWCM__RESULT__RES_EVERSION);
		protobuf_c_message_free_unpacked(&v->base, NULL);
		/* FALLTHROUGH */
	case CL_CLOSED:
		ck_assert_msg(integ_closed(fd, 3000), "%s: session kept",
			      b->name);
		break;
	case CL_EINVAL:
		ck_assert_int_eq(ipc_wait(fd, &m), 1);
		ck_assert_int_eq(m.hdr.type, IPC_CLIENT_LISTEN_REPLY);
		lr = (Iwcm__ListenReply *)ipc_unpack(
			&m, &iwcm__listen_reply__descriptor);
		ck_assert_ptr_nonnull(lr);
		ck_assert_int_eq(lr->result, IWCM__RESULT__RES_EINVAL);
		protobuf_c_message_free_unpacked(&lr->base, NULL);
		/* the session goes on */
		m_hello_again(fd);
		ck_assert(integ_closed(fd, 3000));
		break;
	}
	close(fd);
	if (b->log)
		ck_assert_msg(integ_log_count(&H, b->log) == 1,
			      "\"%s\" logged %d times:\n%s", b->log,
			      integ_log_count(&H, b->log), harness_log(&H));
	/* the other client goes on */
	ck_assert_int_eq(integ_clients(&H), 1);
	ck_assert_int_lt(hs_good(), 1000);
	hs_all_freed(1);
}
END_TEST

/*
 * A client process killed while it holds two listeners, a connection
 * request it did not decide and a connect waiting for its Reply: the
 * request is rejected (RFC 5044 §7.1.2 rule 2, R=1), the connect is
 * closed, the listeners' ports are free again.
 */
START_TEST(client_killed)
{
	uint8_t raw[MPA_FRAME_MAX];
	struct mpa_frame rep, req;
	uint16_t ports[2], rport;
	int pp[2], cp[2], lfd, afd, peer, st;
	char ok = 0;
	pid_t pid;

	hs_start(NULL);
	iwcm_ctx_close(ctx); /* the test's own client is not needed */
	ctx = NULL;
	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_LISTENERS, 0, 2000), 0);
	fds_base = hs_fds_settled();
	lfd = integ_tcp_listen(&rport);
	ck_assert_int_ge(lfd, 0);
	ck_assert_int_eq(pipe(pp), 0);
	ck_assert_int_eq(pipe(cp), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct iwcm_listener *l[2];
		struct sockaddr_in sin;
		struct iwcm_event *ev;
		int i;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ctx = iwcm_ctx_open_path(H.sock, 0);
		if (!ctx)
			_exit(2);
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		for (i = 0; i < 2; i++) {
			l[i] = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL,
					   NULL, 0);
			if (!l[i])
				_exit(3);
			ports[i] = (uint16_t)iwcm_listener_get_port(l[i]);
		}
		if (integ_write(pp[1], ports, sizeof(ports)) < 0)
			_exit(4);
		/* the request waits undecided */
		if (iwcm_get_event(ctx, &ev) < 0 ||
		    iwcm_event_get_type(ev) != IWCM_CM_EVENT_CONNECT_REQUEST)
			_exit(5);
		sin.sin_port = htons(rport);
		if (!iwcm_connect(ctx, (struct sockaddr *)&sin, NULL, NULL))
			_exit(6);
		if (integ_write(pp[1], "r", 1) < 0)
			_exit(7);
		for (;;)
			pause();
	}
	close(pp[1]);
	ck_assert_int_eq(integ_read(pp[0], ports, sizeof(ports),
				    INTEG_TIMEOUT_MS, NULL),
			 0);
	port = ports[0];
	peer = hs_peer_request("to be dropped");
	afd = integ_tcp_accept(lfd);
	ck_assert_int_ge(afd, 0);
	ck_assert_int_eq(integ_read_frame(afd, raw, &req), 0);
	ck_assert_int_eq(integ_read(pp[0], &ok, 1, INTEG_TIMEOUT_MS, NULL), 0);
	ck_assert_int_eq(integ_count(&H, IPC_CTL_LISTENERS), 2);
	ck_assert_int_eq(integ_count(&H, IPC_CTL_CONNS), 2);
	ck_assert_int_eq(integ_clients(&H), 1);

	ck_assert_int_eq(kill(pid, SIGKILL), 0);
	st = harness_wait(pid);
	ck_assert(WIFSIGNALED(st));
	/* the undecided request: a Reply with R=1, then the end */
	ck_assert_int_eq(integ_read_frame(peer, raw, &rep), 0);
	ck_assert_int_eq(rep.type, MPA_FRAME_REP);
	ck_assert(rep.flags & MPA_FLAG_R);
	ck_assert(integ_closed(peer, 3000));
	/* the connect in progress: closed */
	ck_assert(integ_closed(afd, 3000));
	close(peer);
	close(afd);
	close(lfd);
	close(pp[0]);
	close(cp[0]);
	close(cp[1]);
	ck_assert_int_eq(integ_clients(&H), 0);
	hs_all_freed(0);
	/* the ports it held are free: a new client listens there */
	ctx = iwcm_ctx_open_path(H.sock, IWCM_CTX_NONBLOCK);
	ck_assert_ptr_nonnull(ctx);
	{
		struct sockaddr_in sin;

		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		sin.sin_port = htons(ports[1]);
		lis = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
		ck_assert_msg(lis != NULL, "port %u: %s", ports[1],
			      strerror(errno));
	}
	port = ports[1];
	ck_assert_int_lt(hs_good(), 1000);
}
END_TEST

/*
 * A client that sends requests and never reads the answers: the daemon
 * stops reading it (XOFF) instead of blocking, and serves the others.
 */
START_TEST(client_never_reads)
{
	Iwcm__Unlisten u = IWCM__UNLISTEN__INIT;
	int fd, fl, i, sent = 0;

	hs_start(NULL);
	fd = ipc_open_hello(H.sock);
	ck_assert_int_ge(fd, 0);
	fl = fcntl(fd, F_GETFL);
	ck_assert_int_eq(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
	u.listener_id = 12345;
	for (i = 0; i < 100000; i++) {
		if (ipc_send(fd, IPC_CLIENT_UNLISTEN, (uint32_t)i, &u.base,
			     -1) < 0) {
			ck_assert_msg(errno == EAGAIN || errno == ENOBUFS,
				      "send: %s", strerror(errno));
			break;
		}
		sent++;
	}
	ck_assert_msg(i < 100000, "the daemon read %d requests", sent);
	/* the daemon is not stuck on it */
	ck_assert_int_lt(hs_good(), 1000);
	ck_assert_int_eq(integ_clients(&H), 2);
	close(fd);
	ck_assert_int_eq(integ_count_until(&H, IPC_CTL_CONNS, 0, 2000), 0);
	{
		long long end = harness_ms() + 2000;

		while (integ_clients(&H) != 1 && harness_ms() < end)
			poll(NULL, 0, 10);
	}
	ck_assert_int_eq(integ_clients(&H), 1);
	hs_all_freed(1);
}
END_TEST

static Suite *integ_hostile_suite(void)
{
	Suite *s = suite_create("integ_hostile");
	TCase *tc;

	tc = tcase_create("peers");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, hs_teardown);
	tcase_add_loop_test(tc, hostile_peer, 0, (int)ARRAY_SIZE(hostiles));
	tcase_add_test(tc, hostile_data_for_reply);
	suite_add_tcase(s, tc);
	tc = tcase_create("clients");
	tcase_set_timeout(tc, 60);
	tcase_add_checked_fixture(tc, NULL, hs_teardown);
	tcase_add_loop_test(tc, client_misbehaves, 0,
			    (int)ARRAY_SIZE(misbehaviours));
	tcase_add_test(tc, client_killed);
	tcase_add_test(tc, client_never_reads);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	SRunner *sr;
	int nf;

	test_rng_seed();
	sr = srunner_create(integ_hostile_suite());
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
