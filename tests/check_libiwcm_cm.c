/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm connection management against a fake daemon in this program: a
 * thread serves a temporary SEQPACKET socket with proto/ipc and plays one
 * script per test (HELLO/VERSION, Listen, Connect, CONNECT_REQUEST,
 * ESTABLISHED with a real TCP socket, REJECTED, UNREACHABLE, ERROR, bad
 * versions, malformed handoffs, going away).  Checked: every accessor, fd
 * ownership (taken once, closed with the handle unless released), errno
 * on every error, the event fd, and no fd leaked by any test.  Then end
 * to end: the real iwcmd, two contexts, listen/connect/accept or reject
 * on 127.0.0.1, consistent negotiated state on both ends and working
 * sockets.
 */
#include "config.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#include "ipc.h"
#include <iwcm/iwcm.h>
#include "iwcm.pb-c.h"

#define FAKE_WAIT_MS 10000

struct fake {
	char dir[64];
	char path[128];
	int lsock; /* the fake daemon's listening socket */
	int sock;  /* its accepted client */
	pthread_t thr;
	void (*script)(struct fake *);
	bool raw_hello; /* the script answers HELLO itself */
	int go[2];	/* main -> fake: proceed */
	char err[512];
	struct ipc_msg msg;
	ProtobufCMessage *last; /* last unpacked message, freed on next */
	uint32_t reqid;		/* of the last message */
	int variant;		/* _i of a loop test */
	/* A connected TCP pair: lib_fd travels to the library, peer_fd
	 * stays here. */
	int lib_fd, peer_fd;
	uint16_t lib_port, peer_port;
	uint64_t listener_id;
	int fds_before;
};

static struct fake F;

static int open_fds(void)
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

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

/* ---- the fake daemon (runs in its thread) ---- */

static void fake_fail(struct fake *f, int line, const char *fmt, ...)
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

#define FAKE_REQUIRE(f, cond)                                \
	do {                                                 \
		if (!(cond)) {                               \
			fake_fail(f, __LINE__, "%s", #cond); \
			return;                              \
		}                                            \
	} while (0)

static void fake_drop_last(struct fake *f)
{
	if (f->last)
		protobuf_c_message_free_unpacked(f->last, NULL);
	f->last = NULL;
}

/* Receive the next message, which must be of type; unpack it as d. */
static ProtobufCMessage *fake_expect_(struct fake *f, int line, uint16_t type,
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
#define fake_expect(f, type, d) fake_expect_(f, __LINE__, type, d)

static bool fake_send(struct fake *f, uint16_t type, uint32_t reqid,
		      const ProtobufCMessage *body, int fd)
{
	if (ipc_send(f->sock, type, reqid, body, fd) == 0)
		return true;
	fake_fail(f, 0, "send %s: %s", ipc_type_name(type), strerror(errno));
	return false;
}

static bool fake_wait_go(struct fake *f)
{
	char c;

	if (!readable(f->go[0], FAKE_WAIT_MS) || read(f->go[0], &c, 1) != 1) {
		fake_fail(f, 0, "main never said go");
		return false;
	}
	return true;
}

static void go(void)
{
	ck_assert_int_eq(write(F.go[1], "g", 1), 1);
}

static bool fake_ack(struct fake *f, uint32_t reqid, Iwcm__Result res,
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

static void pb_addr4(Iwcm__SockAddr *sa, uint8_t *buf, const char *ip,
		     uint16_t port)
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

static void fake_start(void (*script)(struct fake *), bool raw_hello)
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
static void fake_finish(void)
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

static struct iwcm_ctx *open_ctx(unsigned int flags)
{
	struct iwcm_ctx *ctx = iwcm_ctx_open_path(F.path, flags);

	ck_assert_msg(ctx != NULL, "iwcm_ctx_open_path: %s (%s)",
		      strerror(errno), F.err);
	return ctx;
}

/* iwcm_conn_query() of every group; the test fails if it fails. */
static struct iwcm_conn_attr qa(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a;

	memset(&a, 0xA5, sizeof(a));
	a.comp_mask = IWCM_CONN_ATTR_ALL;
	ck_assert_msg(iwcm_conn_query(c, &a) == 0, "iwcm_conn_query: %s",
		      strerror(errno));
	return a;
}

/* A connection's local (when known) or peer address, or NULL. */
static const struct sockaddr *qa_addr(const struct iwcm_conn *c, bool local)
{
	static struct sockaddr_storage ss[2];
	struct iwcm_conn_attr a = qa(c);

	if (local && !(a.comp_mask & IWCM_CONN_ATTR_LOCAL_ADDR))
		return NULL;
	ss[local] = local ? a.local_addr : a.peer_addr;
	return (const struct sockaddr *)&ss[local];
}

static struct iwcm_event *get_event(struct iwcm_ctx *ctx,
				    enum iwcm_cm_event_type type)
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

static void sin4(struct sockaddr_in *sin, const char *ip, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET, ip, &sin->sin_addr), 1);
}

/* The peer end sees EOF: the library closed the only copy of lib_fd. */
static void assert_lib_fd_closed(void)
{
	char c;

	ck_assert(readable(F.peer_fd, 5000));
	ck_assert_int_eq(read(F.peer_fd, &c, 1), 0);
}

/* Bytes written on fd arrive on the peer end, and back. */
static void assert_fd_works(int fd)
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

#define ERRNO_IS(call, e)                     \
	do {                                  \
		errno = 0;                    \
		ck_assert_int_eq((call), -1); \
		ck_assert_int_eq(errno, (e)); \
	} while (0)

#define ERRNO_NULL(call, e)                   \
	do {                                  \
		errno = 0;                    \
		ck_assert_ptr_null(call);     \
		ck_assert_int_eq(errno, (e)); \
	} while (0)

/* ---- values of the fake's ESTABLISHED ---- */

static const uint8_t peer_pd[] = "peer private data";
static const uint8_t unread_bytes[] = { 0x00, 0x01, 0xC0, 0xFF, 'u' };
static const uint32_t msns[] = { 1, 7, 0xFFFFFFFFu };

static void fill_peer_info(Iwcm__PeerInfo *pi)
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
static bool fake_established(struct fake *f, uint64_t conn_id, bool initiator,
			     int fd, int bad)
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

static void check_peer_info(struct iwcm_conn *c)
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

static void check_addr4(const struct sockaddr *sa, uint16_t port)
{
	const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

	ck_assert_ptr_nonnull(sa);
	ck_assert_int_eq(sa->sa_family, AF_INET);
	ck_assert_uint_eq(ntohs(sin->sin_port), port);
	ck_assert_uint_eq(ntohl(sin->sin_addr.s_addr), INADDR_LOOPBACK);
}

/* Every field of an established connection. */
static void check_established(struct iwcm_conn *c, bool initiator)
{
	struct iwcm_conn_attr a = qa(c);
	size_t len = 99;
	const void *p;
	unsigned int i;

	ck_assert_uint_eq(a.comp_mask, IWCM_CONN_ATTR_LOCAL_ADDR |
					       IWCM_CONN_ATTR_NEGOTIATED |
					       IWCM_CONN_ATTR_PEER);
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
static void check_not_established(struct iwcm_conn *c)
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

static void check_no_peer_info(struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = qa(c);

	ck_assert_uint_eq(a.comp_mask & IWCM_CONN_ATTR_PEER, 0);
	ck_assert(!a.peer_enhanced && !a.peer_p2p);
	ck_assert_uint_eq(
		a.peer_flags | a.peer_rtr_types | a.peer_ird | a.peer_ord, 0);
	ck_assert_ptr_null(a.peer_private_data);
	ck_assert_uint_eq(a.peer_private_data_len, 0);
}

/* ---- scripts and tests ---- */

START_TEST(test_no_daemon)
{
	char dir[] = "/tmp/iwcm-cm-XXXXXX", path[128], longp[200];
	struct sockaddr_un sun;
	int fds = open_fds(), s;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/iwcmd.sock", dir);
	/* No socket file. */
	ERRNO_NULL(iwcm_ctx_open_path(path, 0), ECONNREFUSED);
	setenv("IWCM_SOCKET", path, 1);
	ERRNO_NULL(iwcm_ctx_open(0), ECONNREFUSED);
	/* A socket file nobody listens on (a dead daemon's). */
	s = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	strcpy(sun.sun_path, path);
	ck_assert_int_eq(bind(s, (struct sockaddr *)&sun, sizeof(sun)), 0);
	ERRNO_NULL(iwcm_ctx_open_path(path, 0), ECONNREFUSED);
	ERRNO_NULL(iwcm_ctx_open(0), ECONNREFUSED);
	close(s);
	unlink(path);
	rmdir(dir);
	/* Bad arguments. */
	ERRNO_NULL(iwcm_ctx_open_path(NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_ctx_open_path("", 0), EINVAL);
	memset(longp, 'a', sizeof(longp) - 1);
	longp[sizeof(longp) - 1] = 0;
	ERRNO_NULL(iwcm_ctx_open_path(longp, 0), EINVAL);
	ERRNO_NULL(iwcm_ctx_open_path(path, 0x100), EINVAL);
	ERRNO_IS(iwcm_ctx_get_fd(NULL), EINVAL);
	iwcm_ctx_close(NULL);
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

START_TEST(test_hello)
{
	struct iwcm_ctx *ctx;

	fake_start(NULL, false);
	setenv("IWCM_SOCKET", F.path, 1);
	ctx = iwcm_ctx_open(0);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_ge(iwcm_ctx_get_fd(ctx), 0);
	ck_assert(!readable(iwcm_ctx_get_fd(ctx), 0));
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Each variant answers HELLO in a way that is not our protocol. */
static void script_bad_version(struct fake *f)
{
	Iwcm__Version v = IWCM__VERSION__INIT;
	Iwcm__Ack a = IWCM__ACK__INIT;
	uint8_t raw[IPC_HDR_LEN] = { 0, 2, 0, IPC_VERSION, 0, 0, 0, 1 };

	FAKE_REQUIRE(f, fake_expect(f, IPC_HELLO, &iwcm__hello__descriptor));
	v.version = IPC_PROTO_VERSION;
	v.result = IWCM__RESULT__RES_OK;
	switch (f->variant) {
	case 0: /* the daemon says mismatch, then closes */
		v.version = IPC_PROTO_VERSION + 1;
		v.result = IWCM__RESULT__RES_EVERSION;
		fake_send(f, IPC_VERSION, f->reqid, &v.base, -1);
		break;
	case 1: /* OK but another version */
		v.version = IPC_PROTO_VERSION + 1;
		fake_send(f, IPC_VERSION, f->reqid, &v.base, -1);
		break;
	case 2: /* a header of another version */
		FAKE_REQUIRE(f, send(f->sock, raw, sizeof(raw), 0) ==
					(ssize_t)sizeof(raw));
		break;
	case 3: /* not a VERSION at all */
		a.result = IWCM__RESULT__RES_OK;
		fake_send(f, IPC_CLIENT_ACK, f->reqid, &a.base, -1);
		break;
	case 4: /* a VERSION body that does not parse */
		FAKE_REQUIRE(f, fake_send(f, IPC_VERSION, f->reqid, NULL, -1));
		break;
	case 5: /* hangs up */
		break;
	}
	shutdown(f->sock, SHUT_RDWR);
}

START_TEST(test_bad_version)
{
	fake_start(script_bad_version, true);
	F.variant = _i;
	ERRNO_NULL(iwcm_ctx_open_path(F.path, 0), EPROTO);
	fake_finish();
}
END_TEST

static void script_listen(struct fake *f)
{
	Iwcm__ListenReply r = IWCM__LISTEN_REPLY__INIT;
	Iwcm__SockAddr bound;
	uint8_t buf[16];
	Iwcm__Listen *l;
	Iwcm__Unlisten *u;
	static const uint8_t six[16] = { [15] = 1 };

	/* By address, with parameters. */
	l = (Iwcm__Listen *)fake_expect(f, IPC_CLIENT_LISTEN,
					&iwcm__listen__descriptor);
	FAKE_REQUIRE(f, l && l->addr && !l->service);
	FAKE_REQUIRE(f, l->addr->addr.len == 4 && l->addr->port == 0);
	FAKE_REQUIRE(f, memcmp(l->addr->addr.data, "\x7f\0\0\x01", 4) == 0);
	FAKE_REQUIRE(f, l->has_backlog && l->backlog == 16);
	FAKE_REQUIRE(f, l->params && l->params->has_p2p && l->params->p2p);
	FAKE_REQUIRE(f, l->params->has_ird && l->params->ird == 3);
	FAKE_REQUIRE(f, !l->params->has_ord && !l->params->has_private_data);
	r.result = IWCM__RESULT__RES_OK;
	r.has_listener_id = 1;
	r.listener_id = 7;
	pb_addr4(&bound, buf, "127.0.0.1", 4791);
	r.bound = &bound;
	FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid, &r.base,
				  -1));
	/* By service name, bound on IPv6. */
	l = (Iwcm__Listen *)fake_expect(f, IPC_CLIENT_LISTEN,
					&iwcm__listen__descriptor);
	FAKE_REQUIRE(f, l && !l->addr && l->service);
	FAKE_REQUIRE(f, strcmp(l->service, "mpi") == 0);
	FAKE_REQUIRE(f, !l->has_backlog && !l->params);
	r.listener_id = 8;
	bound.addr.data = (uint8_t *)six;
	bound.addr.len = 16;
	bound.port = 18515;
	FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid, &r.base,
				  -1));
	/* The daemon refuses: each result code maps to an errno. */
	{
		static const Iwcm__Result res[] = {
			IWCM__RESULT__RES_EADDRINUSE,
			IWCM__RESULT__RES_EPERM,
			IWCM__RESULT__RES_ELIMIT,
			IWCM__RESULT__RES_EEXIST,
			IWCM__RESULT__RES_ENOENT,
			IWCM__RESULT__RES_EINVAL,
			IWCM__RESULT__RES_ESHUTDOWN,
			IWCM__RESULT__RES_EINTERNAL,
		};
		Iwcm__ListenReply no = IWCM__LISTEN_REPLY__INIT;
		size_t i;

		for (i = 0; i < ARRAY_SIZE(res); i++) {
			FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
						    &iwcm__listen__descriptor));
			no.result = res[i];
			FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY,
						  f->reqid, &no.base, -1));
		}
		/* OK without the bound address. */
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
					    &iwcm__listen__descriptor));
		no.result = IWCM__RESULT__RES_OK;
		no.has_listener_id = 1;
		no.listener_id = 9;
		FAKE_REQUIRE(f, fake_send(f, IPC_CLIENT_LISTEN_REPLY, f->reqid,
					  &no.base, -1));
		/* A reply of the wrong type. */
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
					    &iwcm__listen__descriptor));
		FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	}
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 7);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 8);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_listen)
{
	static const int want[] = { EADDRINUSE, EACCES, EMFILE,	   EEXIST,
				    ENOENT,	EINVAL, ESHUTDOWN, EIO };
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_listener *l4, *l6;
	struct sockaddr_in sin;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const struct sockaddr_in6 *s6;
	struct iwcm_ctx *ctx;
	char longname[80];
	size_t i;

	fake_start(script_listen, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	/* Refused before anything is sent. */
	ERRNO_NULL(iwcm_listen(NULL, (struct sockaddr *)&sin, NULL, NULL, 0),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, NULL, NULL, NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, "mpi", NULL, 0),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, -1),
		   EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "", NULL, 0), EINVAL);
	memset(longname, 'x', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = 0;
	ERRNO_NULL(iwcm_listen(ctx, NULL, longname, NULL, 0), EINVAL);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sun, NULL, NULL, 0),
		   EAFNOSUPPORT);

	ck_assert_int_eq(iwcm_conn_param_set_p2p(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, 3), 0);
	l4 = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, p, 16);
	ck_assert_msg(l4 != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_int_eq(iwcm_listener_get_port(l4), 4791);
	check_addr4(iwcm_listener_get_addr(l4), 4791);
	l6 = iwcm_listen(ctx, NULL, "mpi", NULL, 0);
	ck_assert_ptr_nonnull(l6);
	ck_assert_int_eq(iwcm_listener_get_port(l6), 18515);
	s6 = (const struct sockaddr_in6 *)iwcm_listener_get_addr(l6);
	ck_assert_int_eq(s6->sin6_family, AF_INET6);
	ck_assert(IN6_IS_ADDR_LOOPBACK(&s6->sin6_addr));
	for (i = 0; i < ARRAY_SIZE(want); i++)
		ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), want[i]);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), EPROTO);
	ERRNO_NULL(iwcm_listen(ctx, NULL, "mpi", NULL, 0), EPROTO);
	ERRNO_IS(iwcm_listener_get_port(NULL), EINVAL);
	ERRNO_NULL(iwcm_listener_get_addr(NULL), EINVAL);
	ck_assert_int_eq(iwcm_listener_close(l4), 0);
	ERRNO_IS(iwcm_listener_close(l6), ENOENT);
	ck_assert_int_eq(iwcm_listener_close(NULL), 0);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Connect with every parameter set; ESTABLISHED with the TCP socket. */
static void script_connect(struct fake *f)
{
	Iwcm__Connect *c;
	Iwcm__ConnParams *p;

	c = (Iwcm__Connect *)fake_expect(f, IPC_CLIENT_CONNECT,
					 &iwcm__connect__descriptor);
	FAKE_REQUIRE(f, c && c->dst && c->src && c->params);
	FAKE_REQUIRE(f, c->dst->addr.len == 4 && c->dst->port == 4791);
	FAKE_REQUIRE(f, memcmp(c->dst->addr.data, "\x7f\0\0\x01", 4) == 0);
	FAKE_REQUIRE(f, c->src->addr.len == 4 && c->src->port == 0);
	p = c->params;
	FAKE_REQUIRE(f, p->has_ird && p->ird == 16);
	FAKE_REQUIRE(f, p->has_ord && p->ord == 8);
	FAKE_REQUIRE(f, p->has_p2p && p->p2p);
	FAKE_REQUIRE(f, p->has_rtr_types && p->rtr_types == IWCM_RTR_READ);
	FAKE_REQUIRE(f, p->has_private_data && p->private_data.len == 508);
	FAKE_REQUIRE(f, p->private_data.data[507] == 0xAB);
	FAKE_REQUIRE(f, p->has_mpa_rev && p->mpa_rev == 2);
	FAKE_REQUIRE(f, p->has_markers && p->markers);
	FAKE_REQUIRE(f,
		     p->has_crc && p->crc == IWCM__CRC_POLICY__CRC_PREFER_OFF);
	FAKE_REQUIRE(f, p->has_rev0 &&
				p->rev0 == IWCM__REV0_POLICY__REV0_PERMISSIVE);
	FAKE_REQUIRE(f, p->has_enhanced_fallback && p->enhanced_fallback);
	FAKE_REQUIRE(f, p->has_reply_timeout_ms && p->reply_timeout_ms == 2500);
	FAKE_REQUIRE(f, p->has_ulp_timeout_ms && p->ulp_timeout_ms == 100);
	FAKE_REQUIRE(f, p->has_rtr_frame && !p->rtr_frame);
	FAKE_REQUIRE(f, p->has_transport &&
				p->transport == IWCM__TRANSPORT__TRANSPORT_TCP);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 42));
	if (!fake_wait_go(f))
		return;
	FAKE_REQUIRE(f, fake_established(f, 42, true, f->lib_fd, 0));
	/* The library holds the only copy now. */
	close(f->lib_fd);
	f->lib_fd = -1;
}

static struct iwcm_conn_param *full_params(void)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX];

	memset(pd, 0xAB, sizeof(pd));
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, 16), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 8), 0);
	ck_assert_int_eq(iwcm_conn_param_set_p2p(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_types(p, IWCM_RTR_READ), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 508), 0);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_markers(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_crc(p, IWCM_CRC_PREFER_OFF), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rev0(p, IWCM_REV0_PERMISSIVE), 0);
	ck_assert_int_eq(iwcm_conn_param_set_fallback(p, true), 0);
	ck_assert_int_eq(iwcm_conn_param_set_reply_timeout(p, 2500), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ulp_timeout(p, 100), 0);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_frame(p, false), 0);
	ck_assert_int_eq(iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_TCP),
			 0);
	return p;
}

START_TEST(test_connect_established)
{
	struct iwcm_conn_param *p;
	struct sockaddr_in dst, src;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;
	int fd;

	fake_start(script_connect, false);
	ctx = open_ctx(0);
	sin4(&dst, "127.0.0.1", 4791);
	sin4(&src, "0.0.0.0", 0);
	p = full_params();
	c = iwcm_connect(ctx, (struct sockaddr *)&dst, (struct sockaddr *)&src,
			 p);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_uint_eq(qa(c).id, 42);
	ck_assert_int_eq(qa(c).initiator, 1);
	check_addr4(qa_addr(c, false), 4791);
	ck_assert_ptr_null(qa_addr(c, true));
	ck_assert_ptr_null(qa(c).listener);
	check_not_established(c);
	check_no_peer_info(c);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	ERRNO_NULL(iwcm_event_get_listener(ev), ENOENT);
	iwcm_ack_event(ev);
	check_established(c, true);
	fd = iwcm_conn_get_fd(c);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(iwcm_conn_get_fd(c), fd);
	/* The descriptor is close-on-exec like every one we make. */
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_fd_works(fd);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static void script_connect_simple(struct fake *f)
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

static struct iwcm_conn *connect_simple(struct iwcm_ctx *ctx)
{
	struct sockaddr_in dst;
	struct iwcm_conn *c;

	sin4(&dst, "127.0.0.1", 4791);
	c = iwcm_connect(ctx, (struct sockaddr *)&dst, NULL, NULL);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	return c;
}

START_TEST(test_release_fd_owned_by_caller)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;
	int fd;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	iwcm_ack_event(ev);
	fd = iwcm_conn_release_fd(c);
	ck_assert_int_ge(fd, 0);
	ERRNO_IS(iwcm_conn_release_fd(c), EBADF);
	ERRNO_IS(iwcm_conn_get_fd(c), EBADF);
	/* The negotiated state stays readable. */
	check_established(c, true);
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	/* Still ours and still connected. */
	assert_fd_works(fd);
	close(fd);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

/* An event outlives iwcm_conn_free() of its connection until acked. */
START_TEST(test_free_before_ack)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	ck_assert_int_eq(iwcm_event_get_type(ev), IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	iwcm_ack_event(NULL);
	iwcm_conn_free(NULL);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* A handle and its events not freed by the caller go with the context. */
START_TEST(test_ctx_close_frees_all)
{
	struct iwcm_ctx *ctx;
	struct iwcm_event *ev;

	fake_start(script_connect_simple, false);
	ctx = open_ctx(0);
	connect_simple(ctx);
	go();
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	(void)ev;
	iwcm_ctx_close(ctx);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

static bool fake_connect_request(struct fake *f, uint64_t conn_id,
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

static bool fake_listen_reply(struct fake *f, uint64_t id)
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

static void script_accept(struct fake *f)
{
	Iwcm__Accept *a;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 9, 3, true));
	a = (Iwcm__Accept *)fake_expect(f, IPC_CLIENT_ACCEPT,
					&iwcm__accept__descriptor);
	FAKE_REQUIRE(f, a && a->conn_id == 9 && a->params);
	FAKE_REQUIRE(f, a->params->has_ord && a->params->ord == 16);
	FAKE_REQUIRE(f, a->params->has_private_data &&
				a->params->private_data.len == 3 &&
				memcmp(a->params->private_data.data, "yes",
				       3) == 0);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	FAKE_REQUIRE(f, fake_established(f, 9, false, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_UNLISTEN,
				    &iwcm__unlisten__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
}

START_TEST(test_connect_request_accept)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t big[IWCM_PRIVATE_DATA_MAX] = { 0 };
	struct sockaddr_in sin;
	struct iwcm_listener *l;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_accept, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(iwcm_event_get_listener(ev), l);
	c = iwcm_event_get_conn(ev);
	ck_assert_ptr_nonnull(c);
	iwcm_ack_event(ev);
	ck_assert_ptr_eq(qa(c).listener, l);
	ck_assert_uint_eq(qa(c).id, 9);
	ck_assert_int_eq(qa(c).initiator, 0);
	check_addr4(qa_addr(c, true), F.lib_port);
	check_addr4(qa_addr(c, false), F.peer_port);
	check_peer_info(c);
	check_not_established(c);
	/* An enhanced request leaves 508 octets for the reply's data. */
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, big, 509), 0);
	ERRNO_IS(iwcm_accept(c, p), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, "yes", 3), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 16), 0);
	ck_assert_int_eq(iwcm_accept(c, p), 0);
	iwcm_conn_param_free(p);
	ERRNO_IS(iwcm_accept(c, NULL), EINVAL);
	ERRNO_IS(iwcm_reject(c, NULL, 0), EINVAL);
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	check_established(c, false);
	assert_fd_works(iwcm_conn_get_fd(c));
	/* The request's connection outlives its listener. */
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	ck_assert_ptr_null(qa(c).listener);
	iwcm_conn_free(c);
	assert_lib_fd_closed();
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static void script_reject(struct fake *f)
{
	Iwcm__Reject *r;
	Iwcm__Unlisten *u;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 10, 3, false));
	FAKE_REQUIRE(f, fake_connect_request(f, 11, 3, true));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 10 && r->has_private_data &&
				r->private_data.len == 512);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 11 && !r->has_private_data);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	/* A request for a listener the library does not know (closed
	 * meanwhile) is rejected by the library itself. */
	u = (Iwcm__Unlisten *)fake_expect(f, IPC_CLIENT_UNLISTEN,
					  &iwcm__unlisten__descriptor);
	FAKE_REQUIRE(f, u && u->listener_id == 3);
	FAKE_REQUIRE(f, fake_connect_request(f, 12, 3, true));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 12);
	/* A request the caller frees undecided is rejected too. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 4));
	FAKE_REQUIRE(f, fake_connect_request(f, 13, 4, true));
	r = (Iwcm__Reject *)fake_expect(f, IPC_CLIENT_REJECT,
					&iwcm__reject__descriptor);
	FAKE_REQUIRE(f, r && r->conn_id == 13);
}

START_TEST(test_reject)
{
	uint8_t big[IWCM_PRIVATE_DATA_MAX + 1] = { 0 };
	struct sockaddr_in sin;
	struct iwcm_listener *l;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c10, *c11, *c13;
	struct iwcm_event *ev;

	fake_start(script_reject, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c10 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c11 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	/* An unenhanced request leaves all 512 octets. */
	ck_assert_int_eq(qa(c10).peer_enhanced, 0);
	ERRNO_IS(iwcm_reject(c10, big, sizeof(big)), EINVAL);
	ERRNO_IS(iwcm_reject(c10, NULL, 1), EINVAL);
	ERRNO_IS(iwcm_reject(c11, big, 509), EINVAL);
	ERRNO_IS(iwcm_reject(NULL, NULL, 0), EINVAL);
	ck_assert_int_eq(iwcm_reject(c10, big, 512), 0);
	ERRNO_IS(iwcm_accept(c10, NULL), EINVAL);
	ERRNO_IS(iwcm_reject(c10, NULL, 0), EINVAL);
	check_not_established(c10);
	ERRNO_IS(iwcm_reject(c11, NULL, 0), ENOENT);
	iwcm_conn_free(c10);
	iwcm_conn_free(c11);
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(iwcm_ctx_get_fd(ctx), 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c13 = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	iwcm_conn_free(c13);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Each outcome of a connect other than ESTABLISHED. */
static void script_failures(struct fake *f)
{
	Iwcm__Rejected rj = IWCM__REJECTED__INIT;
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;
	Iwcm__PeerInfo pi;
	uint64_t id;

	for (id = 100; id < 103; id++) {
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
					    &iwcm__connect__descriptor));
		FAKE_REQUIRE(f,
			     fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, id));
	}
	fill_peer_info(&pi);
	pi.flags |= IWCM_MPA_FLAG_R;
	rj.conn_id = 100;
	rj.result = IWCM__RESULT__RES_EREJECTED;
	rj.peer_info = &pi;
	rj.reason = "peer says no";
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_REJECTED, 0, &rj.base, -1));
	ce.conn_id = 101;
	ce.result = IWCM__RESULT__RES_ETIMEDOUT;
	ce.reason = "no SYN-ACK";
	/* A Terminate out of RFC 5040 §4.8 range is dropped. */
	ce.has_term_layer = ce.has_term_etype = ce.has_term_ecode = 1;
	ce.term_layer = 2;
	ce.term_etype = 0;
	ce.term_ecode = 0x106;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	ce.conn_id = 102;
	ce.result = IWCM__RESULT__RES_EPROTO;
	ce.reason = NULL;
	ce.has_term_layer = ce.has_term_etype = ce.has_term_ecode = 1;
	ce.term_layer = 2;
	ce.term_etype = 0;
	ce.term_ecode = 6;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	/* A second outcome for a finished connection is ignored. */
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_established(f, 100, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	/* The daemon refuses to connect at all. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ELIMIT, 0));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_EPERM, 0));
	/* OK without a connection id. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
}

START_TEST(test_connect_failures)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c[3];
	struct iwcm_event *ev;
	const void *pd;
	size_t len;
	int i;

	fake_start(script_failures, false);
	ctx = open_ctx(0);
	for (i = 0; i < 3; i++)
		c[i] = connect_simple(ctx);

	ev = get_event(ctx, IWCM_CM_EVENT_REJECTED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[0]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[0]).reason, IWCM_STATUS_REJECTED);
	ck_assert_str_eq(qa(c[0]).reason_text, "peer says no");
	ck_assert_str_eq(iwcm_status_str(qa(c[0]).reason),
			 "rejected by the peer");
	/* RFC 6581 §9.1: the responder's IRD/ORD reach the ULP on reject. */
	ck_assert_int_eq(qa(c[0]).peer_ord, 16);
	ck_assert_int_eq(qa(c[0]).peer_flags & IWCM_MPA_FLAG_R,
			 IWCM_MPA_FLAG_R);
	pd = qa(c[0]).peer_private_data;
	len = qa(c[0]).peer_private_data_len;
	ck_assert_uint_eq(len, sizeof(peer_pd));
	ck_assert_int_eq(memcmp(pd, peer_pd, len), 0);
	ck_assert_uint_eq(qa(c[0]).comp_mask & IWCM_CONN_ATTR_TERM, 0);
	check_not_established(c[0]);

	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[1]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[1]).reason, IWCM_STATUS_TIMEDOUT);
	ck_assert_str_eq(qa(c[1]).reason_text, "no SYN-ACK");
	ck_assert_uint_eq(qa(c[1]).comp_mask & IWCM_CONN_ATTR_TERM, 0);
	check_no_peer_info(c[1]);

	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c[2]);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c[2]).reason, IWCM_STATUS_PROTOCOL);
	ck_assert_ptr_null(qa(c[2]).reason_text);
	ck_assert_uint_eq(qa(c[2]).comp_mask & IWCM_CONN_ATTR_TERM,
			  IWCM_CONN_ATTR_TERM);
	ck_assert_uint_eq(qa(c[2]).term_layer, 2);
	ck_assert_uint_eq(qa(c[2]).term_etype, 0);
	ck_assert_uint_eq(qa(c[2]).term_ecode, 6);

	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EMFILE);
	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EACCES);
	ERRNO_NULL(iwcm_connect(ctx, qa_addr(c[0], false), NULL, NULL), EPROTO);
	/* The late ESTABLISHED for the rejected connection was dropped
	 * and its socket closed. */
	assert_lib_fd_closed();
	for (i = 0; i < 3; i++)
		iwcm_conn_free(c[i]);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Malformed handoffs fail the connection and close the socket. */
static void script_malformed(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 77));
	if (f->variant == 0) {
		/* no fd */
		FAKE_REQUIRE(f, fake_established(f, 77, true, -1, 0));
	} else if (f->variant == 8) {
		/* a body that does not parse, then the real one */
		FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ESTABLISHED, 0, NULL,
					  f->lib_fd));
		FAKE_REQUIRE(f, fake_established(f, 78, true, f->lib_fd, 0));
		FAKE_REQUIRE(f, fake_established(f, 77, true, -1, 2));
	} else {
		FAKE_REQUIRE(f, fake_established(f, 77, true, f->lib_fd,
						 f->variant));
	}
	close(f->lib_fd);
	f->lib_fd = -1;
}

START_TEST(test_malformed_established)
{
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_malformed, false);
	F.variant = _i;
	ctx = open_ctx(0);
	c = connect_simple(ctx);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_PROTOCOL);
	ck_assert_ptr_nonnull(qa(c).reason_text);
	check_not_established(c);
	/* Every copy of the socket the daemon passed is closed. */
	assert_lib_fd_closed();
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Non-blocking mode and the event fd. */
static void script_nonblock(struct fake *f)
{
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 1));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 2));
	if (!fake_wait_go(f))
		return;
	ce.conn_id = 1;
	ce.result = IWCM__RESULT__RES_ECONNREFUSED;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	/* An event that arrives while a request waits for its reply. */
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	ce.conn_id = 2;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_UNREACHABLE, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_listen_reply(f, 1));
}

START_TEST(test_nonblock_event_fd)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c1, *c2;
	struct iwcm_event *ev = NULL;
	struct iwcm_listener *l;
	int efd;

	fake_start(script_nonblock, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	efd = iwcm_ctx_get_fd(ctx);
	c1 = connect_simple(ctx);
	c2 = connect_simple(ctx);
	ck_assert(!readable(efd, 0));
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	ck_assert_ptr_null(ev);
	ERRNO_IS(iwcm_get_event(ctx, NULL), EINVAL);
	ERRNO_IS(iwcm_get_event(NULL, &ev), EINVAL);
	go();
	ck_assert(readable(efd, 5000));
	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c1);
	ck_assert_int_eq(qa(c1).reason, IWCM_STATUS_REFUSED);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	ck_assert(!readable(efd, 0));
	/* The event comes in during iwcm_listen(): the socket is empty
	 * afterwards, the event fd must still say "ready". */
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_ptr_nonnull(l);
	ck_assert(readable(efd, 0));
	ck_assert(readable(efd, 0));
	ev = get_event(ctx, IWCM_CM_EVENT_UNREACHABLE);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c2);
	ck_assert(!readable(efd, 0));
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	iwcm_conn_free(c1);
	iwcm_conn_free(c2);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* The daemon goes away: pending connections fail, then ECONNRESET. */
static void script_gone(struct fake *f)
{
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 1));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 2));
	FAKE_REQUIRE(f, fake_established(f, 2, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	shutdown(f->sock, SHUT_RDWR);
}

START_TEST(test_daemon_gone)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c1, *c2;
	struct iwcm_event *ev;

	fake_start(script_gone, false);
	ctx = open_ctx(0);
	c1 = connect_simple(ctx);
	c2 = connect_simple(ctx);
	ev = get_event(ctx, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c2);
	iwcm_ack_event(ev);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c1);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c1).reason, IWCM_STATUS_RESET);
	ERRNO_IS(iwcm_get_event(ctx, &ev), ECONNRESET);
	ERRNO_IS(iwcm_get_event(ctx, &ev), ECONNRESET);
	/* The established connection does not depend on the daemon. */
	assert_fd_works(iwcm_conn_get_fd(c2));
	sin4(&sin, "127.0.0.1", 1);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&sin, NULL, NULL),
		   ECONNRESET);
	ERRNO_NULL(iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0),
		   ECONNRESET);
	iwcm_conn_free(c1);
	iwcm_ctx_close(ctx);
	assert_lib_fd_closed();
	fake_finish();
}
END_TEST

/* A connection freed while being negotiated is abandoned. */
static void script_abandon(struct fake *f)
{
	Iwcm__Disconnect *d;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_CONNECT,
				    &iwcm__connect__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 31));
	d = (Iwcm__Disconnect *)fake_expect(f, IPC_CLIENT_DISCONNECT,
					    &iwcm__disconnect__descriptor);
	FAKE_REQUIRE(f, d && d->conn_id == 31);
	/* Too late: the handoff raced with the Disconnect. */
	FAKE_REQUIRE(f, fake_established(f, 31, true, f->lib_fd, 0));
	close(f->lib_fd);
	f->lib_fd = -1;
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_abandon)
{
	struct iwcm_ctx *ctx;
	struct iwcm_event *ev;
	int i;

	fake_start(script_abandon, false);
	ctx = open_ctx(IWCM_CTX_NONBLOCK);
	iwcm_conn_free(connect_simple(ctx));
	/* The late socket is closed and no event is left behind. */
	for (i = 0; i < 500 && !readable(F.peer_fd, 10); i++)
		ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	assert_lib_fd_closed();
	ERRNO_IS(iwcm_get_event(ctx, &ev), EAGAIN);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

START_TEST(test_params_einval)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX + 1] = { 0 };
	struct iwcm_conn_attr attr;

	ck_assert_ptr_nonnull(p);
	ERRNO_IS(iwcm_conn_param_set_ird(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ird(p, 0x4000), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_ird(p, IWCM_IRD_ORD_NONE), 0);
	ERRNO_IS(iwcm_conn_param_set_ord(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ord(p, 0x4000), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_ord(p, 0), 0);
	ERRNO_IS(iwcm_conn_param_set_p2p(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_types(p, 8), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_rtr_types(p, 7), 0);
	ERRNO_IS(iwcm_conn_param_set_private_data(NULL, pd, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_private_data(p, NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_private_data(p, pd, 513), EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 512), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, NULL, 0), 0);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(NULL, 1), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_mpa_rev(p, 3), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_markers(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_crc(NULL, IWCM_CRC_REQUEST), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_crc(p, (enum iwcm_crc_policy)2), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rev0(NULL, IWCM_REV0_STRICT), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rev0(p, (enum iwcm_rev0_policy)2), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_fallback(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(NULL, 1000), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(p, 0), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_reply_timeout(p, 600001), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(NULL, 1000), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(p, 99), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_ulp_timeout(p, 3600001), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_rtr_frame(NULL, true), EINVAL);
	ERRNO_IS(iwcm_conn_param_set_transport(NULL, IWCM_TRANSPORT_TCP),
		 EINVAL);
	ERRNO_IS(iwcm_conn_param_set_transport(p, (enum iwcm_transport)2),
		 EINVAL);
	iwcm_conn_param_free(p);
	iwcm_conn_param_free(NULL);

	/* Accessors of no connection or event. */
	memset(&attr, 0, sizeof(attr));
	ERRNO_IS(iwcm_conn_query(NULL, &attr), EINVAL);
	ERRNO_IS(iwcm_conn_query(NULL, NULL), EINVAL);
	ERRNO_IS(iwcm_conn_get_fd(NULL), EINVAL);
	ERRNO_IS(iwcm_conn_release_fd(NULL), EINVAL);
	errno = 0;
	ck_assert_int_eq(iwcm_event_get_type(NULL), 0);
	ck_assert_int_eq(errno, EINVAL);
	ERRNO_NULL(iwcm_event_get_conn(NULL), EINVAL);
	ERRNO_NULL(iwcm_event_get_listener(NULL), EINVAL);
	ERRNO_IS(iwcm_accept(NULL, NULL), EINVAL);

	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_REQUEST),
			 "CONNECT_REQUEST");
	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_ERROR),
			 "CONNECT_ERROR");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type)0),
			 "UNKNOWN");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type) - 1),
			 "UNKNOWN");
	ck_assert_str_eq(iwcm_cm_event_str((enum iwcm_cm_event_type)99),
			 "UNKNOWN");
	/* The CM events and the verbs' async events are distinct types. */
	ck_assert_str_eq(iwcm_cm_event_str(IWCM_CM_EVENT_CONNECT_REQUEST),
			 "CONNECT_REQUEST");
	ck_assert_str_eq(iwcm_status_str(IWCM_STATUS_OK), "success");
	ck_assert_str_eq(iwcm_status_str(IWCM_STATUS_SHUTDOWN),
			 "daemon shutting down");
	ck_assert_str_eq(iwcm_status_str((enum iwcm_status) - 1),
			 "unknown status");
	ck_assert_str_eq(iwcm_status_str((enum iwcm_status)15),
			 "unknown status");
}
END_TEST

/* Addresses and private data are checked before anything is sent. */
static void script_connect_args(struct fake *f)
{
	Iwcm__Connect *c;

	/* Only the MPA v1 connect with 512 octets reaches the daemon. */
	c = (Iwcm__Connect *)fake_expect(f, IPC_CLIENT_CONNECT,
					 &iwcm__connect__descriptor);
	FAKE_REQUIRE(f, c && c->params && c->params->private_data.len == 512);
	FAKE_REQUIRE(f, c->dst->addr.len == 16 && c->dst->port == 4791);
	FAKE_REQUIRE(f, !c->src);
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 8));
}

START_TEST(test_connect_args)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[IWCM_PRIVATE_DATA_MAX] = { 0 };
	struct sockaddr_in dst, src0;
	struct sockaddr_in6 dst6;
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;

	fake_start(script_connect_args, false);
	ctx = open_ctx(0);
	sin4(&dst, "127.0.0.1", 4791);
	sin4(&src0, "127.0.0.1", 0);
	memset(&dst6, 0, sizeof(dst6));
	dst6.sin6_family = AF_INET6;
	dst6.sin6_addr = in6addr_loopback;
	dst6.sin6_port = htons(4791);
	ERRNO_NULL(iwcm_connect(NULL, (struct sockaddr *)&dst, NULL, NULL),
		   EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, NULL, NULL, NULL), EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&sun, NULL, NULL),
		   EAFNOSUPPORT);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst,
				(struct sockaddr *)&sun, NULL),
		   EAFNOSUPPORT);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&src0, NULL, NULL),
		   EINVAL);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6,
				(struct sockaddr *)&src0, NULL),
		   EINVAL);
	/* 512 octets fit only an MPA v1 frame (no enhanced word). */
	ck_assert_int_eq(iwcm_conn_param_set_private_data(p, pd, 512), 0);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p),
		   EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 2), 0);
	ERRNO_NULL(iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p),
		   EINVAL);
	ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(p, 1), 0);
	c = iwcm_connect(ctx, (struct sockaddr *)&dst6, NULL, p);
	ck_assert_msg(c != NULL, "%s %s", strerror(errno), F.err);
	iwcm_conn_param_free(p);
	ck_assert_int_eq(qa_addr(c, false)->sa_family, AF_INET6);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* Requests that error: an Accept the daemon refuses. */
static void script_accept_refused(struct fake *f)
{
	Iwcm__ConnError ce = IWCM__CONN_ERROR__INIT;

	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
				    &iwcm__listen__descriptor));
	FAKE_REQUIRE(f, fake_listen_reply(f, 3));
	FAKE_REQUIRE(f, fake_connect_request(f, 9, 3, true));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	/* The request timed out in the daemon as the Accept came. */
	ce.conn_id = 9;
	ce.result = IWCM__RESULT__RES_ETIMEDOUT;
	FAKE_REQUIRE(f, fake_send(f, IPC_EVENT_ERROR, 0, &ce.base, -1));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
	/* A request that expired without an event. */
	FAKE_REQUIRE(f, fake_connect_request(f, 10, 3, true));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_ACCEPT,
				    &iwcm__accept__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_ENOENT, 0));
}

START_TEST(test_accept_refused)
{
	struct sockaddr_in sin;
	struct iwcm_ctx *ctx;
	struct iwcm_conn *c;
	struct iwcm_event *ev;

	fake_start(script_accept_refused, false);
	ctx = open_ctx(0);
	sin4(&sin, "127.0.0.1", 0);
	ck_assert_ptr_nonnull(
		iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0));
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_accept(c, NULL), ENOENT);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_ERROR);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), c);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_TIMEDOUT);
	ERRNO_IS(iwcm_accept(c, NULL), EINVAL);
	iwcm_conn_free(c);
	ev = get_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST);
	c = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ERRNO_IS(iwcm_accept(c, NULL), ENOENT);
	ck_assert_int_eq(qa(c).reason, IWCM_STATUS_NOENT);
	/* Gone in the daemon: freeing it sends nothing. */
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

/* ---- end to end: the real iwcmd, two contexts, 127.0.0.1 ---- */

struct e2e {
	char dir[64];
	char sock[128];
	char conf[128];
	char log[128];
	pid_t pid;
};

static struct e2e E;

static void e2e_log(char *buf, size_t cap)
{
	FILE *fp = fopen(E.log, "r");
	size_t n = 0;

	if (fp) {
		n = fread(buf, 1, cap - 1, fp);
		fclose(fp);
	}
	buf[n] = 0;
}

/* Start iwcmd -d on a temporary socket and config; open a context. */
static struct iwcm_ctx *e2e_start(void)
{
	pid_t parent = getpid();
	struct iwcm_ctx *ctx = NULL;
	char log[4096];
	FILE *fp;
	int i, st;

	memset(&E, 0, sizeof(E));
	strcpy(E.dir, "/tmp/iwcm-e2e-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(E.dir));
	snprintf(E.sock, sizeof(E.sock), "%s/iwcmd.sock", E.dir);
	snprintf(E.conf, sizeof(E.conf), "%s/iwcmd.conf", E.dir);
	snprintf(E.log, sizeof(E.log), "%s/iwcmd.log", E.dir);
	fp = fopen(E.conf, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp, "# check_libiwcm_cm\nrequest_timeout_ms = 5000\n"
		    "reply_timeout_ms = 5000\n");
	fclose(fp);
	E.pid = fork();
	ck_assert_int_ge(E.pid, 0);
	if (E.pid == 0) {
		int fd = open(E.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* Never outlive the test, even when an assertion ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(126);
		dup2(fd, STDERR_FILENO);
		close(fd);
		execl(IWCMD_PATH, "iwcmd", "-d", "-v", "-f", E.conf, "-s",
		      E.sock, (char *)NULL);
		_exit(127);
	}
	/* The socket appears when the daemon is ready: nothing to poll
	 * before it exists, so retry briefly (at most 5 s). */
	for (i = 0; i < 500; i++) {
		ctx = iwcm_ctx_open_path(E.sock, IWCM_CTX_NONBLOCK);
		if (ctx || errno != ECONNREFUSED)
			break;
		if (waitpid(E.pid, &st, WNOHANG) == E.pid) {
			E.pid = 0;
			break;
		}
		usleep(10000);
	}
	e2e_log(log, sizeof(log));
	ck_assert_msg(ctx != NULL, "iwcmd did not start (%s): %s",
		      strerror(errno), log);
	return ctx;
}

/* SIGTERM: the daemon exits 0 and removes its sockets. */
static void e2e_stop(void)
{
	char log[4096];
	DIR *d;
	struct dirent *de;
	int st = 0;

	ck_assert_int_eq(kill(E.pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(E.pid, &st, 0), E.pid);
	e2e_log(log, sizeof(log));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "iwcmd exit status %d: %s", st, log);
	ck_assert_int_ne(access(E.sock, F_OK), 0);
	d = opendir(E.dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char p[sizeof(E.dir) + 258];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", E.dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(E.dir);
}

/* The next event of ctx, waiting on its event fd (at most 10 s). */
static struct iwcm_event *e2e_event(struct iwcm_ctx *ctx,
				    enum iwcm_cm_event_type type)
{
	struct iwcm_event *ev = NULL;
	char log[4096];
	int i;

	for (i = 0; i < 100; i++) {
		if (iwcm_get_event(ctx, &ev) == 0)
			break;
		ck_assert_int_eq(errno, EAGAIN);
		readable(iwcm_ctx_get_fd(ctx), 100);
	}
	e2e_log(log, sizeof(log));
	ck_assert_msg(ev != NULL, "no %s event: %s", iwcm_cm_event_str(type),
		      log);
	ck_assert_msg(iwcm_event_get_type(ev) == type,
		      "event %s (%s: %s), want %s: %s",
		      iwcm_cm_event_str(iwcm_event_get_type(ev)),
		      iwcm_status_str(qa(iwcm_event_get_conn(ev)).reason),
		      qa(iwcm_event_get_conn(ev)).reason_text,
		      iwcm_cm_event_str(type), log);
	return ev;
}

static uint16_t addr_port(const struct sockaddr *sa)
{
	ck_assert_ptr_nonnull(sa);
	ck_assert_int_eq(sa->sa_family, AF_INET);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

/* Bytes written on one fd arrive on the other. */
static void e2e_pipe(int from, int to, const char *msg)
{
	char buf[64];
	size_t len = strlen(msg);

	ck_assert_int_eq(write(from, msg, len), (ssize_t)len);
	ck_assert(readable(to, 5000));
	ck_assert_int_eq(read(to, buf, sizeof(buf)), (ssize_t)len);
	ck_assert_int_eq(memcmp(buf, msg, len), 0);
}

/*
 * Variants: 0 MPA v2 peer-to-peer, 1 MPA v2 client-server, 2 MPA v1,
 * 3 the responder rejects.
 */
START_TEST(test_e2e)
{
	struct iwcm_ctx *srv, *cli;
	struct iwcm_conn_param *cp = iwcm_conn_param_new();
	struct iwcm_conn_param *ap = iwcm_conn_param_new();
	struct iwcm_listener *l;
	struct iwcm_conn *rc, *ic;
	struct iwcm_event *ev;
	struct sockaddr_in sin;
	const void *pd;
	size_t len;
	int fds = open_fds();

	srv = e2e_start();
	cli = iwcm_ctx_open_path(E.sock, IWCM_CTX_NONBLOCK);
	ck_assert_ptr_nonnull(cli);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(srv, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_msg(l != NULL, "listen: %s", strerror(errno));
	ck_assert_int_gt(iwcm_listener_get_port(l), 0);

	ck_assert_int_eq(iwcm_conn_param_set_ird(cp, 4), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(cp, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(cp, "hello", 5), 0);
	ck_assert_int_eq(iwcm_conn_param_set_p2p(cp, _i == 0), 0);
	if (_i == 2)
		ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(cp, 1), 0);
	sin4(&sin, "127.0.0.1", (uint16_t)iwcm_listener_get_port(l));
	ic = iwcm_connect(cli, (struct sockaddr *)&sin, NULL, cp);
	ck_assert_msg(ic != NULL, "connect: %s", strerror(errno));
	iwcm_conn_param_free(cp);

	ev = e2e_event(srv, IWCM_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(iwcm_event_get_listener(ev), l);
	rc = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(rc).initiator, 0);
	ck_assert_int_eq(addr_port(qa_addr(rc, true)),
			 iwcm_listener_get_port(l));
	ck_assert_int_gt(addr_port(qa_addr(rc, false)), 0);
	pd = qa(rc).peer_private_data;
	len = qa(rc).peer_private_data_len;
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(len, 5);
	ck_assert_int_eq(memcmp(pd, "hello", 5), 0);
	ck_assert_int_eq(qa(rc).peer_mpa_rev, _i == 2 ? 1 : 2);
	ck_assert_int_eq(qa(rc).peer_enhanced, _i != 2);
	if (_i != 2) {
		/* RFC 6581 §9.1: the initiator's IRD/ORD as sent. */
		ck_assert_int_eq(qa(rc).peer_ird, 4);
		ck_assert_int_eq(qa(rc).peer_ord, 2);
		ck_assert_int_eq(qa(rc).peer_p2p, _i == 0);
	}

	if (_i == 3) {
		ck_assert_int_eq(iwcm_reject(rc, "busy", 4), 0);
		ev = e2e_event(cli, IWCM_CM_EVENT_REJECTED);
		ck_assert_ptr_eq(iwcm_event_get_conn(ev), ic);
		iwcm_ack_event(ev);
		ck_assert_int_eq(qa(ic).reason, IWCM_STATUS_REJECTED);
		pd = qa(ic).peer_private_data;
		len = qa(ic).peer_private_data_len;
		ck_assert_ptr_nonnull(pd);
		ck_assert_uint_eq(len, 4);
		ck_assert_int_eq(memcmp(pd, "busy", 4), 0);
		ck_assert_int_eq(qa(ic).peer_flags & IWCM_MPA_FLAG_R,
				 IWCM_MPA_FLAG_R);
		ERRNO_IS(iwcm_conn_get_fd(ic), ENOTCONN);
		goto out;
	}

	ck_assert_int_eq(iwcm_conn_param_set_private_data(ap, "world", 5), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ird(ap, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(ap, 4), 0);
	ck_assert_msg(iwcm_accept(rc, ap) == 0, "accept: %s", strerror(errno));
	ev = e2e_event(cli, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), ic);
	iwcm_ack_event(ev);
	ev = e2e_event(srv, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), rc);
	iwcm_ack_event(ev);

	/* Both ends agree on what was negotiated. */
	ck_assert_int_eq(qa(ic).initiator, 1);
	ck_assert_int_eq(qa(rc).initiator, 0);
	ck_assert_int_eq(qa(ic).transport, IWCM_TRANSPORT_TCP);
	ck_assert_int_eq(qa(rc).transport, IWCM_TRANSPORT_TCP);
	ck_assert_int_eq(qa(ic).mpa_rev, _i == 2 ? 1 : 2);
	ck_assert_int_eq(qa(rc).mpa_rev, qa(ic).mpa_rev);
	ck_assert_int_eq(qa(ic).enhanced, _i != 2);
	ck_assert_int_eq(qa(rc).enhanced, _i != 2);
	ck_assert_int_eq(qa(ic).ddp_version, 1);
	ck_assert_int_eq(qa(rc).ddp_version, 1);
	ck_assert_int_eq(qa(ic).rdmap_version, 1);
	ck_assert_int_eq(qa(rc).rdmap_version, 1);
	ck_assert_int_eq(qa(ic).crc, qa(rc).crc);
	ck_assert_int_eq(qa(ic).markers_tx, qa(rc).markers_rx);
	ck_assert_int_eq(qa(ic).markers_rx, qa(rc).markers_tx);
	ck_assert_int_eq(qa(ic).p2p, _i == 0);
	ck_assert_int_eq(qa(rc).p2p, _i == 0);
	ck_assert_int_eq(qa(ic).rtr_type, qa(rc).rtr_type);
	if (_i == 0)
		ck_assert_int_ne(qa(ic).rtr_type, IWCM_RTR_NONE);
	pd = qa(ic).peer_private_data;
	len = qa(ic).peer_private_data_len;
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(len, 5);
	ck_assert_int_eq(memcmp(pd, "world", 5), 0);
	if (_i != 2) {
		/* RFC 6581 §9.1: initiator ORD <= responder IRD, responder
		 * ORD <= initiator IRD, and the responder's values reach
		 * the initiator as sent. */
		ck_assert_int_le(qa(ic).ord, qa(rc).ird);
		ck_assert_int_le(qa(rc).ord, qa(ic).ird);
		ck_assert_int_eq(qa(ic).peer_ird, qa(rc).ird);
		ck_assert_int_eq(qa(ic).peer_ord, qa(rc).ord);
	}
	ck_assert_int_eq(addr_port(qa_addr(ic, true)),
			 addr_port(qa_addr(rc, false)));
	ck_assert_int_eq(addr_port(qa_addr(ic, false)),
			 addr_port(qa_addr(rc, true)));
	len = qa(ic).unread_len;
	ck_assert_uint_eq(len, 0);
	len = qa(rc).unread_len;
	ck_assert_uint_eq(len, 0);

	/* The two sockets are the two ends of one TCP connection. */
	e2e_pipe(iwcm_conn_get_fd(ic), iwcm_conn_get_fd(rc), "from initiator");
	e2e_pipe(iwcm_conn_get_fd(rc), iwcm_conn_get_fd(ic), "from responder");
out:
	iwcm_conn_param_free(ap);
	iwcm_conn_free(ic);
	iwcm_conn_free(rc);
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	iwcm_ctx_close(cli);
	iwcm_ctx_close(srv);
	e2e_stop();
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

static Suite *libiwcm_cm_suite(void)
{
	Suite *s = suite_create("libiwcm_cm");

	add_tcase(s, "no_daemon", test_no_daemon);
	add_tcase(s, "hello", test_hello);
	add_loop_tcase(s, "bad_version", test_bad_version, 6);
	add_tcase(s, "listen", test_listen);
	add_tcase(s, "connect_established", test_connect_established);
	add_tcase(s, "release_fd", test_release_fd_owned_by_caller);
	add_tcase(s, "free_before_ack", test_free_before_ack);
	add_tcase(s, "ctx_close_frees_all", test_ctx_close_frees_all);
	add_tcase(s, "connect_request_accept", test_connect_request_accept);
	add_tcase(s, "reject", test_reject);
	add_tcase(s, "connect_failures", test_connect_failures);
	add_loop_tcase(s, "malformed_established", test_malformed_established,
		       9);
	add_tcase(s, "nonblock_event_fd", test_nonblock_event_fd);
	add_tcase(s, "daemon_gone", test_daemon_gone);
	add_tcase(s, "abandon", test_abandon);
	add_tcase(s, "params_einval", test_params_einval);
	add_tcase(s, "connect_args", test_connect_args);
	add_tcase(s, "accept_refused", test_accept_refused);
	add_loop_tcase(s, "e2e", test_e2e, 4);
	return s;
}

TEST_MAIN(libiwcm_cm_suite)
