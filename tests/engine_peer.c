/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Test doubles and a raw MPA peer for the connection-engine tests (see
 * engine_peer.h).  Only what the engine calls outside its own files is
 * doubled here: the daemon globals of main.c and control.c's functions
 * (control_send() records each message).  Owners hear through the real
 * client_api.c and admin.c, so the tests see the protobuf messages.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#include "engine_peer.h"
#include "log.h"

struct env E;

/* ---- the daemon globals and the doubles ---- */

struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

int control_send(struct client *c, uint16_t type, uint32_t reqid,
		 const ProtobufCMessage *body, int fd)
{
	struct env_rec *r;

	if (E.fail_type && type == E.fail_type) {
		conn_client_gone(c);
		return -1;
	}
	ck_assert_int_lt(E.n_recs, ENV_MAX_RECS);
	r = &E.recs[E.n_recs++];
	r->to = c;
	r->type = type;
	r->reqid = reqid;
	r->len = body ? protobuf_c_message_get_packed_size(body) : 0;
	ck_assert_uint_le(r->len, sizeof(r->body));
	if (body)
		protobuf_c_message_pack(body, r->body);
	r->fd = fd >= 0 ? dup(fd) : -1;
	if (fd >= 0)
		ck_assert_int_ge(r->fd, 0);
	return 0;
}

/* control.c's other functions, as client_api.c and admin.c use them. */
/* control_send() that takes fd, as the handoff uses it. */
int control_send_fd(struct client *c, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, int fd)
{
	int r = control_send(c, type, reqid, body, fd);

	if (fd >= 0)
		close(fd);
	return r;
}

void control_cork(struct client *c)
{
	(void)c;
}

int control_reply(struct client *c, uint16_t type, uint32_t reqid,
		  const ProtobufCMessage *body)
{
	return control_send(c, type, reqid, body, -1);
}

void control_close(struct client *c, const char *why)
{
	(void)why;
	conn_client_gone(c);
}

unsigned int control_client_count(void)
{
	return 1;
}

static const struct conn_notify env_notify = {
	.request = client_api_request,
	.error = client_api_error,
	.rejected = client_api_rejected,
	.established = client_api_established,
	.report = admin_report,
};

/* ---- requests, converted as client_api.c does ---- */

/* A client's Connect. */
Iwcm__Result env_connect(struct client *cl, const Iwcm__Connect *req,
			 uint64_t *id)
{
	struct conn_params p;
	struct conn_target t;

	if (client_api_target(req->dst, req->src, &t) < 0 ||
	    (req->params && client_api_params_from(req->params, &p) < 0))
		return IWCM__RESULT__RES_EINVAL;
	return client_api_result(
		conn_connect(cl, &t, req->params ? &p : NULL, id));
}

/* A client's Accept. */
Iwcm__Result env_accept(struct client *cl, const Iwcm__Accept *req)
{
	struct conn_params p;

	if (req->params && client_api_params_from(req->params, &p) < 0)
		return IWCM__RESULT__RES_EINVAL;
	return client_api_result(
		conn_ulp_accept(cl, req->conn_id, req->params ? &p : NULL));
}

/* A client's Reject. */
Iwcm__Result env_reject(struct client *cl, const Iwcm__Reject *req)
{
	return client_api_result(conn_ulp_reject(
		cl, req->conn_id,
		req->has_private_data ? req->private_data.data : NULL,
		req->has_private_data ? req->private_data.len : 0));
}

/* iwcmctl connect. */
Iwcm__Result env_force(struct client *cl, uint32_t reqid,
		       const Iwcm__Ctl__ForceConnect *req)
{
	struct conn_params p;
	struct conn_target t;

	if (client_api_target(req->dst, NULL, &t) < 0 ||
	    (req->params && client_api_params_from(req->params, &p) < 0))
		return IWCM__RESULT__RES_EINVAL;
	return client_api_result(
		conn_force(cl, reqid, &t, req->params ? &p : NULL));
}

/* ---- environment ---- */

/* Fresh engine globals and conf defaults; timers that do not fire. */
void env_setup(void)
{
	memset(&E, 0, sizeof(E));
	signal(SIGPIPE, SIG_IGN);
	log_init(LOG_TO_STDERR, getenv("IWCM_TEST_VERBOSE") != NULL,
		 "check_engine");
	memset(&iwcmd_stats, 0, sizeof(iwcmd_stats));
	E.base = event_base_new();
	ck_assert_ptr_nonnull(E.base);
	iwcmd_base = E.base;
	conf_defaults(&E.conf);
	/* long enough not to fire on a loaded machine; the timeout tests
	 * set their own */
	E.conf.request_timeout_ms = 3000;
	E.conf.reply_timeout_ms = 3000;
	E.conf.ulp_timeout_ms = 3000;
	E.conf.rtr_timeout_ms = 3000;
	iwcmd_conf = &E.conf;
	conn_init(&env_notify);
	E.client.id = 1;
	E.client.fd = 0; /* open, as listener_route() wants; unused */
	E.client.uid = getuid();
	E.client.pid = getpid();
	E.admin.id = 2;
	E.admin.fd = -1;
	E.admin.admin = true;
	E.admin.uid = 0;
	E.lis.id = 7;
	E.lis.fd = -1;
	E.lis.owner = getuid();
	E.lis.client = &E.client;
	E.lis.policy = E.conf.policy;
	E.lis.pending_max = 16;
}

void env_teardown(void)
{
	int i;

	conn_abort_all();
	ck_assert_uint_eq(conn_count(), 0);
	for (i = 0; i < E.n_recs; i++)
		if (E.recs[i].fd >= 0)
			close(E.recs[i].fd);
	event_base_free(E.base);
	iwcmd_base = NULL;
}

static void env_slice(void)
{
	struct timeval tv = { 0, 2000 };

	event_base_loopexit(E.base, &tv);
	event_base_dispatch(E.base);
}

/* Run the event loop until cond(arg) holds; fails the test after ms. */
void env_pump_until(bool (*cond)(void *), void *arg, int ms)
{
	uint64_t end = mono_ms() + (uint64_t)ms;

	while (!cond(arg)) {
		ck_assert_msg(mono_ms() < end, "timed out after %d ms", ms);
		env_slice();
	}
}

/* Run the loop for about ms. */
void env_pump(int ms)
{
	uint64_t end = mono_ms() + (uint64_t)ms;

	while (mono_ms() < end)
		env_slice();
}

static bool env_have_recs(void *arg)
{
	return E.n_recs >= *(int *)arg;
}

/* Wait for the n-th (1-based) client message; returns it. */
struct env_rec *env_wait_rec(int n)
{
	env_pump_until(env_have_recs, &n, 2000);
	return &E.recs[n - 1];
}

/* The first client message of type, or NULL. */
struct env_rec *env_find(uint16_t type)
{
	int i;

	for (i = 0; i < E.n_recs; i++)
		if (E.recs[i].type == type)
			return &E.recs[i];
	return NULL;
}

/* ---- sockets ---- */

/* A listening socket on 127.0.0.1, port chosen by the kernel. */
int tcp_listen(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 8), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

/* A connected pair: *peer (test) and the accepted end (returned). */
int tcp_pair(int *peer)
{
	struct sockaddr_in sin;
	uint16_t port;
	int lfd, fd, afd;

	lfd = tcp_listen(&port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	afd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	ck_assert_int_ge(afd, 0);
	close(lfd);
	*peer = fd;
	return afd;
}

static bool fd_readable(void *arg)
{
	struct pollfd p = { *(int *)arg, POLLIN, 0 };

	return poll(&p, 1, 0) == 1;
}

/* Accept on lfd once a connection is there (pumping meanwhile). */
int tcp_accept(int lfd)
{
	int fd;

	env_pump_until(fd_readable, &lfd, 2000);
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Send all of buf from the raw peer. */
void peer_send(int fd, const void *buf, size_t len)
{
	ck_assert_int_eq(send(fd, buf, len, MSG_NOSIGNAL), (ssize_t)len);
}

/* Read exactly n octets into buf (pumping the engine until they come). */
void peer_read(int fd, void *buf, size_t n)
{
	uint64_t end = mono_ms() + 2000;
	uint8_t *p = buf;
	size_t got = 0;
	ssize_t r;

	while (got < n) {
		r = recv(fd, p + got, n - got, MSG_DONTWAIT);
		if (r > 0) {
			got += (size_t)r;
			continue;
		}
		ck_assert_msg(r != 0, "peer: EOF after %zu of %zu octets", got,
			      n);
		ck_assert_msg(errno == EAGAIN || errno == EWOULDBLOCK,
			      "peer: recv: %s", strerror(errno));
		ck_assert_msg(mono_ms() < end, "peer: %zu of %zu octets", got,
			      n);
		env_slice();
	}
}

/* Read one MPA startup frame exactly; returns its length. */
size_t peer_read_frame(int fd, uint8_t *buf, struct mpa_frame *f)
{
	size_t pd, used;

	peer_read(fd, buf, MPA_FRAME_HDR_LEN);
	pd = (size_t)buf[18] << 8 | buf[19];
	ck_assert_uint_le(pd, MPA_PD_MAX);
	peer_read(fd, buf + MPA_FRAME_HDR_LEN, pd);
	ck_assert_int_eq(mpa_frame_parse(buf, MPA_FRAME_HDR_LEN + pd, f, &used),
			 WIRE_OK);
	ck_assert_uint_eq(used, MPA_FRAME_HDR_LEN + pd);
	return used;
}

/* True once the engine closed or reset its end (pumping meanwhile). */
bool peer_wait_closed(int fd, int ms)
{
	uint64_t end = mono_ms() + (uint64_t)ms;
	uint8_t b;
	ssize_t r;

	for (;;) {
		r = recv(fd, &b, 1, MSG_DONTWAIT);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return true;
		if (r > 0)
			return false; /* unexpected octets */
		if (mono_ms() >= end)
			return false;
		env_slice();
	}
}

/* No octet is waiting on fd now. */
bool peer_idle(int fd)
{
	int n = 0;

	ck_assert_int_eq(ioctl(fd, FIONREAD, &n), 0);
	return n == 0;
}

/* Build and send a frame; returns its length. */
size_t peer_send_frame(int fd, const struct mpa_frame *f)
{
	uint8_t buf[MPA_FRAME_MAX];
	size_t n;

	ck_assert_int_eq(mpa_frame_build(f, buf, sizeof(buf), &n), WIRE_OK);
	peer_send(fd, buf, n);
	return n;
}

/* Build a zero-length RTR or Read Response ULPDU; returns its length. */
size_t peer_rtr_ulpdu(uint8_t opcode, uint32_t stag, uint8_t *buf)
{
	struct rdmap_msg m;
	size_t n;

	memset(&m, 0, sizeof(m));
	m.opcode = opcode;
	m.rv = RDMAP_VERSION_IETF;
	m.ddp.dv = DDP_VERSION_IETF;
	m.ddp.last = true;
	m.ddp.tagged = rdmap_opcode_tagged(opcode) == 1;
	if (m.ddp.tagged) {
		m.ddp.stag = stag;
		m.ddp.to = 0;
	} else {
		m.ddp.qn = (uint32_t)rdmap_opcode_qn(opcode);
		m.ddp.msn = 1;
	}
	if (opcode == RDMAP_READ_REQ) {
		m.u.read_req.sink_stag = stag;
		m.u.read_req.src_stag = stag;
	}
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 64, &n), WIRE_OK);
	return n;
}

/* Frame ulpdu on d and send it; returns the wire length. */
size_t peer_send_fpdu(int fd, struct mpa_dir *d, const uint8_t *ulpdu,
		      size_t len)
{
	uint8_t buf[1024];
	size_t n;

	ck_assert_int_eq(mpa_fpdu_build(d, ulpdu, (uint16_t)len, buf,
					sizeof(buf), &n),
			 WIRE_OK);
	peer_send(fd, buf, n);
	return n;
}

/* Read one FPDU exactly at d (advanced); the ULPDU goes to ulpdu. */
size_t peer_read_fpdu(int fd, struct mpa_dir *d, uint8_t *raw, uint8_t *ulpdu,
		      struct mpa_fpdu_info *info)
{
	size_t lead, total;
	uint16_t ulen;

	lead = d->markers && d->off % MPA_MARKER_INTERVAL == 0 ?
		       MPA_MARKER_LEN :
		       0;
	peer_read(fd, raw, lead + MPA_HDR_LEN);
	ulen = (uint16_t)(raw[lead] << 8 | raw[lead + 1]);
	ck_assert_uint_le(ulen, 256);
	total = mpa_fpdu_wire_len(d, ulen);
	ck_assert_uint_gt(total, lead + MPA_HDR_LEN);
	peer_read(fd, raw + lead + MPA_HDR_LEN, total - lead - MPA_HDR_LEN);
	ck_assert_int_eq(mpa_fpdu_parse(d, raw, total, info, ulpdu, 256),
			 WIRE_OK);
	ck_assert_uint_eq(info->wire_len, total);
	d->off += (uint32_t)total;
	return total;
}

/* ---- requests and their protobuf messages ---- */

/* A SockAddr for 127.0.0.1:port (storage in *buf). */
void env_sockaddr(Iwcm__SockAddr *a, uint8_t buf[4], uint16_t port)
{
	iwcm__sock_addr__init(a);
	buf[0] = 127;
	buf[1] = 0;
	buf[2] = 0;
	buf[3] = 1;
	a->addr.data = buf;
	a->addr.len = 4;
	a->port = port;
}

Iwcm__Established *rec_established(struct env_rec *r)
{
	Iwcm__Established *e;

	ck_assert_uint_eq(r->type, IPC_EVENT_ESTABLISHED);
	e = iwcm__established__unpack(NULL, r->len, r->body);
	ck_assert_ptr_nonnull(e);
	return e;
}

Iwcm__ConnectRequest *rec_request(struct env_rec *r)
{
	Iwcm__ConnectRequest *q;

	ck_assert_uint_eq(r->type, IPC_EVENT_CONNECT_REQUEST);
	q = iwcm__connect_request__unpack(NULL, r->len, r->body);
	ck_assert_ptr_nonnull(q);
	return q;
}

Iwcm__ConnError *rec_error(struct env_rec *r)
{
	Iwcm__ConnError *e;

	ck_assert(r->type == IPC_EVENT_ERROR ||
		  r->type == IPC_EVENT_UNREACHABLE);
	e = iwcm__conn_error__unpack(NULL, r->len, r->body);
	ck_assert_ptr_nonnull(e);
	return e;
}

Iwcm__Rejected *rec_rejected(struct env_rec *r)
{
	Iwcm__Rejected *j;

	ck_assert_uint_eq(r->type, IPC_EVENT_REJECTED);
	j = iwcm__rejected__unpack(NULL, r->len, r->body);
	ck_assert_ptr_nonnull(j);
	return j;
}

/* ---- assertions and frames ---- */

/* buf holds exactly the octets of hex. */
void assert_hex(const uint8_t *buf, size_t len, const char *hex)
{
	uint8_t want[MPA_FRAME_MAX];
	size_t n = test_hex(hex, want, sizeof(want));

	ck_assert_uint_eq(len, n);
	ck_assert_mem_eq(buf, want, n);
}

static bool no_conns(void *arg)
{
	(void)arg;
	return conn_count() == 0;
}

/* The fd of r is the connection: octets from the peer arrive on it; the
 * engine forgets its copy. */
void env_assert_handed(struct env_rec *r, int peer)
{
	uint8_t b = 0;

	struct pollfd p;
	socklen_t len = sizeof(int);
	int one = 0;

	ck_assert_int_ge(r->fd, 0);
	/* TCP_NODELAY on every connection */
	ck_assert_int_eq(
		getsockopt(r->fd, IPPROTO_TCP, TCP_NODELAY, &one, &len), 0);
	ck_assert_int_eq(one, 1);
	p.fd = r->fd;
	p.events = POLLIN;
	peer_send(peer, "Z", 1);
	ck_assert_int_eq(poll(&p, 1, 1000), 1);
	ck_assert_msg(recv(r->fd, &b, 1, 0) == 1, "recv: %s", strerror(errno));
	ck_assert_int_eq(b, 'Z');
	env_pump_until(no_conns, NULL, 1000);
}

void env_assert_fd_starts(struct env_rec *r, const void *want, size_t n)
{
	uint8_t got[512];
	size_t have = 0;

	ck_assert_int_ge(r->fd, 0);
	ck_assert_uint_le(n, sizeof(got));
	while (have < n) {
		struct pollfd p = { r->fd, POLLIN, 0 };
		ssize_t k;

		ck_assert_int_eq(poll(&p, 1, 1000), 1);
		k = recv(r->fd, got + have, n - have, 0);
		ck_assert_msg(k > 0, "recv: %s", k ? strerror(errno) : "EOF");
		have += (size_t)k;
	}
	ck_assert_mem_eq(got, want, n);
}

/* next_msn of an Established: QN 0 and 1 as given, 2 and 3 at 1. */
void assert_msn(const Iwcm__Established *e, uint32_t q0, uint32_t q1)
{
	ck_assert_uint_eq(e->n_next_msn, 4);
	ck_assert_uint_eq(e->next_msn[0], q0);
	ck_assert_uint_eq(e->next_msn[1], q1);
	ck_assert_uint_eq(e->next_msn[2], 1);
	ck_assert_uint_eq(e->next_msn[3], 1);
}

/* An unenhanced frame; pd NULL: no Private Data. */
struct mpa_frame frame_v(enum mpa_frame_type t, uint8_t rev, uint8_t flags,
			 const char *pd)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = t;
	f.rev = rev;
	f.flags = flags;
	f.pd = (const uint8_t *)(pd ? pd : "");
	f.pd_len = pd ? (uint16_t)strlen(pd) : 0;
	return f;
}

/* An RFC 6581 enhanced frame (Rev 2, S=1 and the word first). */
struct mpa_frame frame_enh(enum mpa_frame_type t, uint8_t flags, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord,
			   const char *pd)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = t;
	f.rev = MPA_REV_2;
	f.flags = flags;
	f.enhanced = true;
	f.enh.p2p = p2p;
	f.enh.rtr = rtr;
	f.enh.ird = ird;
	f.enh.ord = ord;
	f.ulp_pd = (const uint8_t *)(pd ? pd : "");
	f.ulp_pd_len = pd ? (uint16_t)strlen(pd) : 0;
	return f;
}

/* A Terminate ULPDU, Layer 2 / type 0 / code; returns its length. */
size_t peer_term_ulpdu(uint8_t code, uint8_t *buf)
{
	struct rdmap_msg m;
	size_t n;

	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = RDMAP_VERSION_IETF;
	m.ddp.dv = DDP_VERSION_IETF;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = 1;
	rdmap_term_fill(&m.u.term, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA, code,
			NULL, 0);
	ck_assert_int_eq(rdmap_hdr_build(&m, buf, 64, &n), WIRE_OK);
	return n;
}

/* Read one FPDU and check it is a Terminate Layer 2 / type 0 / code. */
void peer_expect_term(int fd, struct mpa_dir *d, uint8_t code)
{
	uint8_t raw[512], u[256];
	struct mpa_fpdu_info info;
	struct rdmap_msg m;

	peer_read_fpdu(fd, d, raw, u, &info);
	ck_assert(info.crc_ok);
	ck_assert_int_eq(rdmap_msg_parse(u, info.ulpdu_len, &m), WIRE_OK);
	ck_assert_uint_eq(m.opcode, RDMAP_TERMINATE);
	ck_assert(!m.ddp.tagged);
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_TERMINATE);
	ck_assert_uint_eq(m.ddp.msn, 1);
	ck_assert_uint_eq(m.u.term.layer, RDMAP_TERM_LAYER_LLP);
	ck_assert_uint_eq(m.u.term.etype, MPA_ETYPE_MPA);
	ck_assert_uint_eq(m.u.term.ecode, code);
}

/* ---- the engine as initiator, against a raw responder ---- */

/* Start a connect for the client to a raw responder; *peer is its end. */
uint64_t init_start(int *lfd, int *peer, Iwcm__ConnParams *p)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst;
	uint8_t ab[4];
	uint16_t port;
	uint64_t id = 0;
	int n = E.n_recs;

	*lfd = tcp_listen(&port);
	env_sockaddr(&dst, ab, port);
	c.dst = &dst;
	c.params = p;
	ck_assert_int_eq(env_connect(&E.client, &c, &id), IWCM__RESULT__RES_OK);
	ck_assert_uint_ne(id, 0);
	ck_assert_int_eq(E.n_recs, n); /* the Ack goes first */
	*peer = tcp_accept(*lfd);
	return id;
}

/* Read the Request; returns its length in raw. */
size_t init_request(int peer, uint8_t *raw, struct mpa_frame *f)
{
	return peer_read_frame(peer, raw, f);
}

/* Close both test sockets and the environment. */
void init_end(int lfd, int peer)
{
	close(peer);
	close(lfd);
	env_teardown();
}

/* ULP private data in p. */
void set_pd(Iwcm__ConnParams *p, const void *pd, size_t len)
{
	p->has_private_data = 1;
	p->private_data.data = (uint8_t *)(uintptr_t)pd;
	p->private_data.len = len;
}

/* ---- the engine as responder, to a raw initiator ---- */

/* The raw initiator's enhanced Request. */
struct mpa_frame req_enh(uint8_t flags, bool p2p, uint8_t rtr, uint16_t ird,
			 uint16_t ord, const char *pd)
{
	return frame_enh(MPA_FRAME_REQ, flags, p2p, rtr, ird, ord, pd);
}

/* Connect the raw initiator, send req; returns the conn id once the
 * CONNECT_REQUEST is at the client. */
uint64_t resp_start(int *peer, const struct mpa_frame *req)
{
	Iwcm__ConnectRequest *q;
	uint64_t id;

	conn_accepted(&E.lis, tcp_pair(peer));
	peer_send_frame(*peer, req);
	q = rec_request(env_wait_rec(1));
	ck_assert_uint_eq(q->listener_id, E.lis.id);
	ck_assert_uint_eq(q->peer->addr.len, 4);
	id = q->conn_id;
	iwcm__connect_request__free_unpacked(q, NULL);
	ck_assert_ptr_eq(E.recs[0].to, &E.client);
	return id;
}

/* The client accepts conn id with p (NULL: defaults). */
void resp_accept(uint64_t id, Iwcm__ConnParams *p)
{
	Iwcm__Accept a = IWCM__ACCEPT__INIT;

	a.conn_id = id;
	a.params = p;
	ck_assert_int_eq(env_accept(&E.client, &a), IWCM__RESULT__RES_OK);
}
