/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* The fake daemon of the libiwcm CM tests (cm_fake.h). */
#include "config.h"

#include "cm_fake.h"

struct fake F;

int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1;
}

bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* ---- the fake daemon (runs in its thread) ---- */

void fake_fail(struct fake *f, int line, const char *fmt, ...)
{
	va_list ap;
	size_t n;

	if (f->err[0])
		return;
	n = (size_t)snprintf(f->err, sizeof(f->err), "fake line %d: ", line);
	va_start(ap, fmt);
	vsnprintf(f->err + n, sizeof(f->err) - n, fmt, ap);
	va_end(ap);
	fprintf(stderr, "%s\n", f->err);
}

static void fake_drop_last(struct fake *f)
{
	if (f->last)
		protobuf_c_message_free_unpacked(f->last, NULL);
	f->last = NULL;
}

/* Receive the next message, which must be of type; unpack it as d. */
ProtobufCMessage *fake_expect_(struct fake *f, int line, uint16_t type,
			       const ProtobufCMessageDescriptor *d)
{
	int r;

	fake_drop_last(f);
	if (!readable(f->sock, FAKE_WAIT_MS)) {
		fake_fail(f, line, "timeout waiting for %s",
			  ipc_type_name(type));
		return NULL;
	}
	r = ipc_recv(f->sock, &f->msg, false);
	if (r != 1) {
		fake_fail(f, line, "recv %d (%s) waiting for %s", r,
			  strerror(errno), ipc_type_name(type));
		return NULL;
	}
	if (f->msg.hdr.type != type) {
		fake_fail(f, line, "got %s, want %s",
			  ipc_type_name(f->msg.hdr.type), ipc_type_name(type));
		return NULL;
	}
	f->reqid = f->msg.hdr.reqid;
	f->last = ipc_unpack(&f->msg, d);
	if (!f->last)
		fake_fail(f, line, "%s does not unpack", ipc_type_name(type));
	return f->last;
}

bool fake_send(struct fake *f, uint16_t type, uint32_t reqid,
	       const ProtobufCMessage *body, int fd)
{
	if (ipc_send(f->sock, type, reqid, body, fd) == 0)
		return true;
	fake_fail(f, 0, "send %s: %s", ipc_type_name(type), strerror(errno));
	return false;
}

bool fake_wait_go(struct fake *f)
{
	char c;

	if (!readable(f->go[0], FAKE_WAIT_MS) || read(f->go[0], &c, 1) != 1) {
		fake_fail(f, 0, "main never said go");
		return false;
	}
	return true;
}

void go(void)
{
	ck_assert_int_eq(write(F.go[1], "g", 1), 1);
}

bool fake_ack(struct fake *f, uint32_t reqid, Iwcm__Result res,
	      uint64_t conn_id)
{
	Iwcm__Ack a = IWCM__ACK__INIT;

	a.result = res;
	if (conn_id) {
		a.has_conn_id = 1;
		a.conn_id = conn_id;
	}
	return fake_send(f, IPC_CLIENT_ACK, reqid, &a.base, -1);
}

void pb_addr4(Iwcm__SockAddr *sa, uint8_t *buf, const char *ip, uint16_t port)
{
	iwcm__sock_addr__init(sa);
	inet_pton(AF_INET, ip, buf);
	sa->addr.data = buf;
	sa->addr.len = 4;
	sa->port = port;
}

static void *fake_main(void *arg)
{
	struct fake *f = arg;
	Iwcm__Version v = IWCM__VERSION__INIT;

	if (!readable(f->lsock, FAKE_WAIT_MS)) {
		fake_fail(f, __LINE__, "no client");
		return NULL;
	}
	f->sock = accept4(f->lsock, NULL, NULL, SOCK_CLOEXEC);
	if (f->sock < 0) {
		fake_fail(f, __LINE__, "accept: %s", strerror(errno));
		return NULL;
	}
	if (!f->raw_hello) {
		Iwcm__Hello *h = (Iwcm__Hello *)fake_expect(
			f, IPC_HELLO, &iwcm__hello__descriptor);

		if (!h)
			goto out;
		if (h->version != IPC_PROTO_VERSION || !h->client_name ||
		    !strstr(h->client_name, "check_libiwcm_cm")) {
			fake_fail(f, __LINE__, "bad Hello");
			goto out;
		}
		v.version = IPC_PROTO_VERSION;
		v.result = IWCM__RESULT__RES_OK;
		if (!fake_send(f, IPC_VERSION, f->reqid, &v.base, -1))
			goto out;
	}
	if (f->script)
		f->script(f);
	/* Drain until the client hangs up (iwcm_ctx_close), unless the
	 * script failed: then hang up at once so that the client fails
	 * fast. */
	while (!f->err[0] && readable(f->sock, FAKE_WAIT_MS)) {
		if (ipc_recv(f->sock, &f->msg, false) == 0)
			break;
	}
out:
	fake_drop_last(f);
	if (f->sock >= 0)
		shutdown(f->sock, SHUT_RDWR);
	return NULL;
}

/* ---- test side ---- */

static void tcp_pair(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int l;

	l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(l, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(l, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(l, 1), 0);
	ck_assert_int_eq(getsockname(l, (struct sockaddr *)&sin, &len), 0);
	F.peer_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_eq(
		connect(F.peer_fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	F.lib_fd = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(F.lib_fd, 0);
	F.lib_port = ntohs(sin.sin_port);
	len = sizeof(sin);
	ck_assert_int_eq(getsockname(F.peer_fd, (struct sockaddr *)&sin, &len),
			 0);
	F.peer_port = ntohs(sin.sin_port);
	close(l);
}

void fake_start(void (*script)(struct fake *), bool raw_hello)
{
	struct sockaddr_un sun;

	memset(&F, 0, sizeof(F));
	F.fds_before = open_fds();
	F.sock = F.lib_fd = F.peer_fd = -1;
	F.script = script;
	F.raw_hello = raw_hello;
	strcpy(F.dir, "/tmp/iwcm-cm-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(F.dir));
	snprintf(F.path, sizeof(F.path), "%s/iwcmd.sock", F.dir);
	F.lsock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(F.lsock, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, F.path);
	ck_assert_int_eq(bind(F.lsock, (struct sockaddr *)&sun, sizeof(sun)),
			 0);
	ck_assert_int_eq(listen(F.lsock, 4), 0);
	ck_assert_int_eq(pipe2(F.go, O_CLOEXEC), 0);
	tcp_pair();
	ck_assert_int_eq(pthread_create(&F.thr, NULL, fake_main, &F), 0);
}

/* Join the fake, report its failure, and check no fd was leaked. */
void fake_finish(void)
{
	ck_assert_int_eq(pthread_join(F.thr, NULL), 0);
	ck_assert_msg(F.err[0] == 0, "%s", F.err);
	if (F.sock >= 0)
		close(F.sock);
	close(F.lsock);
	close(F.go[0]);
	close(F.go[1]);
	if (F.lib_fd >= 0)
		close(F.lib_fd);
	if (F.peer_fd >= 0)
		close(F.peer_fd);
	unlink(F.path);
	rmdir(F.dir);
	ck_assert_int_eq(open_fds(), F.fds_before);
}

struct iwcm_ctx *open_ctx(unsigned int flags)
{
	struct iwcm_ctx *ctx = iwcm_ctx_open_path(F.path, flags);

	ck_assert_msg(ctx != NULL, "iwcm_ctx_open_path: %s (%s)",
		      strerror(errno), F.err);
	return ctx;
}

/* iwcm_conn_query() of every group; the test fails if it fails. */
struct iwcm_conn_attr qa(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a;

	memset(&a, 0xA5, sizeof(a));
	a.comp_mask = IWCM_CONN_ATTR_ALL;
	ck_assert_msg(iwcm_conn_query(c, &a) == 0, "iwcm_conn_query: %s",
		      strerror(errno));
	return a;
}

/* A connection's local (when known) or peer address, or NULL. */
const struct sockaddr *qa_addr(const struct iwcm_conn *c, bool local)
{
	static struct sockaddr_storage ss[2];
	struct iwcm_conn_attr a = qa(c);

	if (local && !(a.comp_mask & IWCM_CONN_ATTR_LOCAL_ADDR))
		return NULL;
	ss[local] = local ? a.local_addr : a.peer_addr;
	return (const struct sockaddr *)&ss[local];
}

struct iwcm_event *get_event(struct iwcm_ctx *ctx, enum iwcm_cm_event_type type)
{
	struct iwcm_event *ev = NULL;

	ck_assert_msg(iwcm_get_event(ctx, &ev) == 0, "get_event: %s (%s)",
		      strerror(errno), F.err);
	ck_assert_ptr_nonnull(ev);
	ck_assert_msg(iwcm_event_get_type(ev) == type, "event %s, want %s",
		      iwcm_cm_event_str(iwcm_event_get_type(ev)),
		      iwcm_cm_event_str(type));
	return ev;
}

void sin4(struct sockaddr_in *sin, const char *ip, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
}

/* The peer end sees EOF: the library closed the only copy of lib_fd. */
void assert_lib_fd_closed(void)
{
	char c;

	ck_assert(readable(F.peer_fd, 5000));
	ck_assert_int_eq(read(F.peer_fd, &c, 1), 0);
}

/* Bytes written on fd arrive on the peer end, and back. */
void assert_fd_works(int fd)
{
	char buf[8];

	ck_assert_int_eq(write(fd, "ping", 4), 4);
	ck_assert(readable(F.peer_fd, 5000));
	ck_assert_int_eq(read(F.peer_fd, buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "ping", 4), 0);
	ck_assert_int_eq(write(F.peer_fd, "pong", 4), 4);
	ck_assert(readable(fd, 5000));
	ck_assert_int_eq(read(fd, buf, sizeof(buf)), 4);
	ck_assert_int_eq(memcmp(buf, "pong", 4), 0);
}

/* ---- values of the fake's ESTABLISHED ---- */

const uint8_t peer_pd[sizeof(FAKE_PEER_PD)] = FAKE_PEER_PD;
static const uint8_t unread_bytes[] = { 0x00, 0x01, 0xC0, 0xFF, 'u' };
static const uint32_t msns[] = { 1, 7, 0xFFFFFFFFu };

void fill_peer_info(Iwcm__PeerInfo *pi)
{
	iwcm__peer_info__init(pi);
	pi->has_mpa_rev = pi->has_flags = pi->has_enhanced = 1;
	pi->has_p2p = pi->has_rtr_types = pi->has_ird = pi->has_ord = 1;
	pi->has_private_data = 1;
	pi->mpa_rev = 2;
	pi->flags = IWCM_MPA_FLAG_C | IWCM_MPA_FLAG_S | 0x03;
	pi->enhanced = 1;
	pi->p2p = 1;
	pi->rtr_types = IWCM_RTR_WRITE | IWCM_RTR_READ;
	pi->ird = 0x3FFF;
	pi->ord = 16;
	pi->private_data.data = (uint8_t *)peer_pd;
	pi->private_data.len = sizeof(peer_pd);
}

/* Send ESTABLISHED for conn_id with fd (none if -1), tweaked by bad. */
bool fake_established(struct fake *f, uint64_t conn_id, bool initiator, int fd,
		      int bad)
{
	Iwcm__Established e = IWCM__ESTABLISHED__INIT;
	Iwcm__SockAddr local, peer;
	Iwcm__PeerInfo pi;
	uint8_t lb[16] = { 0 }, pb[4];

	e.conn_id = conn_id;
	e.transport = IWCM__TRANSPORT__TRANSPORT_TCP;
	pb_addr4(&local, lb, "127.0.0.1", f->lib_port);
	pb_addr4(&peer, pb, "127.0.0.1", f->peer_port);
	e.local = &local;
	e.peer = &peer;
	e.initiator = initiator;
	e.mpa_rev = 2;
	e.ddp_version = 1;
	e.rdmap_version = 1;
	e.markers_tx = 1;
	e.markers_rx = 0;
	e.crc = 1;
	e.enhanced = 1;
	e.p2p = 1;
	e.rtr_type = IWCM_RTR_WRITE;
	e.ird = 16;
	e.ord = 8;
	fill_peer_info(&pi);
	e.peer_info = &pi;
	e.tx_offset = 123456789012ull;
	e.rx_offset = 42;
	e.has_unread = 1;
	e.unread.data = (uint8_t *)unread_bytes;
	e.unread.len = sizeof(unread_bytes);
	e.n_next_msn = ARRAY_SIZE(msns);
	e.next_msn = (uint32_t *)msns;
	e.wait_first_fpdu = 1;
	e.has_rtr_frame = 1;
	e.rtr_frame = 1;
	switch (bad) {
	case 1:
		e.mpa_rev = 7;
		break;
	case 2:
		e.rtr_type = IWCM_RTR_WRITE | IWCM_RTR_READ;
		break;
	case 3:
		e.ird = 0x4000;
		break;
	case 4:
		local.addr.len = 5;
		break;
	case 5:
		e.initiator = !initiator;
		break;
	case 6:
		pi.private_data.len = 0;
		pi.ird = 0x10000;
		break;
	case 7:
		e.transport = 9;
		break;
	}
	return fake_send(f, IPC_EVENT_ESTABLISHED, 0, &e.base, fd);
}

void check_peer_info(struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = qa(c);
	const void *pd;
	size_t len = 99;

	ck_assert_uint_eq(a.comp_mask & IWCM_CONN_ATTR_PEER,
			  IWCM_CONN_ATTR_PEER);
	ck_assert_int_eq(qa(c).peer_mpa_rev, 2);
	ck_assert_int_eq(qa(c).peer_flags,
			 IWCM_MPA_FLAG_C | IWCM_MPA_FLAG_S | 0x03);
	ck_assert_int_eq(qa(c).peer_enhanced, 1);
	ck_assert_int_eq(qa(c).peer_p2p, 1);
	ck_assert_int_eq(qa(c).peer_rtr_types, IWCM_RTR_WRITE | IWCM_RTR_READ);
	ck_assert_int_eq(qa(c).peer_ird, IWCM_IRD_ORD_NONE);
	ck_assert_int_eq(qa(c).peer_ord, 16);
	pd = a.peer_private_data;
	len = a.peer_private_data_len;
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(len, sizeof(peer_pd));
	ck_assert_int_eq(memcmp(pd, peer_pd, len), 0);
}

void check_addr4(const struct sockaddr *sa, uint16_t port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

	ck_assert_ptr_nonnull(sa);
	ck_assert_int_eq(sa->sa_family, AF_INET);
	ck_assert_uint_eq(ntohs(sin->sin_port), port);
	ck_assert_uint_eq(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
}

/* Every field of an established connection. */
void check_established(struct iwcm_conn *c, bool initiator)
{
	struct iwcm_conn_attr a = qa(c);
	size_t len = 99;
	const void *p;
	unsigned int i;

	ck_assert_uint_eq(a.comp_mask, IWCM_CONN_ATTR_LOCAL_ADDR |
					       IWCM_CONN_ATTR_NEGOTIATED |
					       IWCM_CONN_ATTR_PEER |
					       IWCM_CONN_ATTR_RTR_READ);
	ck_assert(!a.rtr_read_due);
	ck_assert_int_eq(qa(c).transport, IWCM_TRANSPORT_TCP);
	check_addr4(qa_addr(c, true), F.lib_port);
	check_addr4(qa_addr(c, false), F.peer_port);
	ck_assert_int_eq(qa(c).initiator, initiator);
	ck_assert_int_eq(qa(c).mpa_rev, 2);
	ck_assert_int_eq(qa(c).ddp_version, 1);
	ck_assert_int_eq(qa(c).rdmap_version, 1);
	ck_assert_int_eq(qa(c).markers_tx, 1);
	ck_assert_int_eq(qa(c).markers_rx, 0);
	ck_assert_int_eq(qa(c).crc, 1);
	ck_assert_int_eq(qa(c).enhanced, 1);
	ck_assert_int_eq(qa(c).p2p, 1);
	ck_assert_int_eq(qa(c).rtr_type, IWCM_RTR_WRITE);
	ck_assert_int_eq(qa(c).rtr_frame, 1);
	ck_assert_int_eq(qa(c).ird, 16);
	ck_assert_int_eq(qa(c).ord, 8);
	ck_assert_uint_eq(a.tx_offset, 123456789012ull);
	ck_assert_uint_eq(a.rx_offset, 42);
	p = a.unread;
	len = a.unread_len;
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(len, sizeof(unread_bytes));
	ck_assert_int_eq(memcmp(p, unread_bytes, len), 0);
	ck_assert_int_eq(qa(c).num_next_msn, 3);
	for (i = 0; i < ARRAY_SIZE(msns); i++)
		ck_assert_uint_eq(a.next_msn[i], msns[i]);
	ck_assert_int_eq(qa(c).wait_first_fpdu, 1);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_OK);
	ck_assert_ptr_null(qa(c).reason_text);
	/* No Terminate: the group is cleared and zero. */
	ck_assert_uint_eq(a.term_layer | a.term_etype | a.term_ecode, 0);
	/* Groups not asked for are not written. */
	memset(&a, 0xA5, sizeof(a));
	a.comp_mask = IWCM_CONN_ATTR_TERM;
	ck_assert_int_eq(iwcm_conn_query(c, &a), 0);
	ck_assert_uint_eq(a.comp_mask, 0);
	ck_assert_uint_eq(a.id, qa(c).id);
	ck_assert_uint_eq(a.term_layer, 0);
	ck_assert_uint_eq(*(const unsigned char *)&a.crc, 0xA5);
	ck_assert_uint_eq(a.peer_ird, 0xA5A5A5A5u);
	ck_assert_uint_eq(a.local_addr.ss_family, 0xA5A5);
	check_peer_info(c);
}

/* Before ESTABLISHED no socket, and the negotiated group is cleared and
 * zero: a test of a field reads false, never "true on error". */
void check_not_established(struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = qa(c), zero;

	ERRNO_IS(iwcm_conn_get_fd(c), ENOTCONN);
	ERRNO_IS(iwcm_conn_release_fd(c), ENOTCONN);
	ck_assert_uint_eq(a.comp_mask & IWCM_CONN_ATTR_NEGOTIATED, 0);
	memset(&zero, 0, sizeof(zero));
	ck_assert_int_eq(
		memcmp(&a.transport, &zero.transport,
		       offsetof(struct iwcm_conn_attr, peer_mpa_rev) -
			       offsetof(struct iwcm_conn_attr, transport)),
		0);
	ck_assert(!a.crc && !a.markers_tx && !a.p2p);
	ck_assert_ptr_null(a.unread);
	ck_assert_ptr_null(a.next_msn);
}

void check_no_peer_info(struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = qa(c);

	ck_assert_uint_eq(a.comp_mask & IWCM_CONN_ATTR_PEER, 0);
	ck_assert(!a.peer_enhanced && !a.peer_p2p);
	ck_assert_uint_eq(
		a.peer_flags | a.peer_rtr_types | a.peer_ird | a.peer_ord, 0);
	ck_assert_ptr_null(a.peer_private_data);
	ck_assert_uint_eq(a.peer_private_data_len, 0);
}

void script_connect_simple(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 5));
	if (!fake_wait_go(f))
		return;
	FAKE_REQUIRE(f, fake_established(f, 5, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
}

struct iwcm_conn *connect_simple(struct iwcm_ctx *ctx)
{
	struct sockaddr_in dst;
	struct iwcm_conn *c;

	sin4(&dst, "127.0.0.1", 4791);
	c = iwcm_connect(ctx, (struct sockaddr *)&dst, NULL, NULL);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	return c;
}

bool fake_connect_request(struct fake *f, uint64_t conn_id,
			  uint64_t listener_id, bool enhanced)
{
	Iwcm__ConnectRequest r = IWCM__CONNECT_REQUEST__INIT;
	Iwcm__SockAddr local, peer;
	Iwcm__PeerInfo pi;
	uint8_t lb[4], pb[4];

	r.conn_id = conn_id;
	r.listener_id = listener_id;
	pb_addr4(&local, lb, "127.0.0.1", f->lib_port);
	pb_addr4(&peer, pb, "127.0.0.1", f->peer_port);
	r.local = &local;
	r.peer = &peer;
	fill_peer_info(&pi);
	if (!enhanced) {
		pi.mpa_rev = 1;
		pi.enhanced = 0;
		pi.flags = IWCM_MPA_FLAG_C;
	}
	r.peer_info = &pi;
	return fake_send(f, IPC_EVENT_CONNECT_REQUEST, 0, &r.base, -1);
}

bool fake_listen_reply(struct fake *f, uint64_t id)
{
	Iwcm__ListenReply r = IWCM__LISTEN_REPLY__INIT;
	Iwcm__SockAddr bound;
	uint8_t buf[4];

	r.result = IWCM__RESULT__RES_OK;
	r.has_listener_id = 1;
	r.listener_id = id;
	pb_addr4(&bound, buf, "127.0.0.1", f->lib_port);
	r.bound = &bound;
	return fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid, &r.base, -1);
}
