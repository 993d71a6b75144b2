/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The datapath tests, shaped like perftest: two processes, the server
 * forked once the daemon serves and the client (this process), each with
 * its own libiwcm context.  They connect through iwcmd, so the MPA
 * revision, markers and CRC are negotiated for real, and each makes its
 * QP on its end of the ESTABLISHED connection.  Private data carries the
 * address, STag and length of the region the peer may reach.
 *
 * Every row first measures the raw TCP baseline with the same two
 * processes over 127.0.0.1, the same message size and count, blocking
 * read(2) and write(2) and TCP_NODELAY: a stream (one side writes
 * messages of SIZE, the other reads them all) for the bandwidth tests,
 * a ping-pong of SIZE for the latency tests, an 8-octet request and
 * reply for atomic_lat.  Then the iwcm measurement:
 *
 *   write_bw    the client RDMA Writes SIZE into the server's region,
 *		 depth work requests in flight, every 100th signaled
 *		 (perftest's CQ moderation); bandwidth from the first post
 *		 to the last completion;
 *   read_bw     the same with RDMA Reads of the server's region (the
 *		 library keeps at most ORD outstanding); a Read completes
 *		 when its data is placed;
 *   send_lat    Send ping-pong, half the round trip;
 *   write_lat   perftest's ib_write_lat: each side RDMA Writes into the
 *		 other's region and polls the last octet of its own;
 *   atomic_lat  FetchAdd of the server's word, waiting for each.
 *
 * Progress is manual by default (iwcm_progress() busy-polled while
 * waiting, as perftest busy-polls ibv_poll_cq()); --event uses the
 * context's progress thread and waits on a completion channel.
 *
 * -q N (write_bw, send_lat): N connections in one context, so one
 * progress engine and one completion queue, against N TCP streams
 * driven by one thread per process (non-blocking sockets and poll(2),
 * or busy-polled with --tcp-poll), in the same run.  write_bw keeps
 * depth Writes in flight on every QP and reports the aggregate
 * bandwidth; send_lat runs the N ping-pongs at once and reports the
 * mean half round trip over all of them.
 *
 * The processes keep in step over a SOCK_SEQPACKET socketpair: for each
 * measurement the server sends the port it listens on (0 when it could
 * not start), both run, the client says it finished, the server answers
 * with its result (CPU time, verification).  Whichever side fails
 * closes its connection first so that the other fails fast too; a side
 * that waits for something from its peer fails after the stall time (10
 * s, or IWCM_BENCH_STALL_MS) without progress, except the server while
 * the client's one-sided operations run.  In-band Sends (HELLO from the
 * client, READY from the server, START after the warm-up, DONE at the
 * end) keep the two QPs in step; the client sends first because an MPA
 * revision 1 responder sends nothing before the first FPDU arrived (RFC
 * 5044 §7.1.2).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "bench.h"

/* Receive buffers of each QP's shared receive queue. */
#define DP_RX_SLOTS 4
/* An in-band control message, and the smallest receive buffer. */
#define DP_CTL_LEN 64
/* perftest's default inline size of the latency tests. */
#define DP_INLINE_MAX 236
/* perftest's CQ moderation of the bandwidth tests. */
#define DP_SIG_EVERY 100
/* IRD and ORD asked for on both ends. */
#define DP_IRD_ORD 16
#define DP_WC_BATCH 32
/* Send queue of the latency tests (one data request at a time). */
#define DP_SQ_LAT 64
/* The server's atomic word before the first FetchAdd, and its Add Data. */
#define DP_ATOMIC_INIT 0x0123456789abcdefULL
#define DP_ATOMIC_ADD 1
/* Spins between two looks at the clock and the async events. */
#define DP_SPIN_CHECK 1024
#define MIB (1024.0 * 1024.0)

/* In-band control messages (8 octets, host order). */
enum dp_msg {
	DP_MSG_HELLO = 1,
	DP_MSG_READY,
	DP_MSG_START,
	DP_MSG_DONE,
};

/* What one process measured of one run. */
struct dp_side {
	int ok;
	uint64_t wall_ns;
	uint64_t user_ns;
	uint64_t sys_ns;
	char err[200];
};

/* The control socket's messages (one process image on both ends). */
enum dp_ctl_type {
	DP_CTL_PORT = 1, /* server: listening (port 0: failed) */
	DP_CTL_FIN,	 /* client: finished */
	DP_CTL_RESULT,	 /* server: its side */
};

struct dp_ctl {
	uint32_t type;
	uint32_t port;
	struct dp_side side;
};

/* What the connection negotiated, as the client's QP reports it. */
struct dp_nego {
	bool known;
	int mpa_rev;
	int crc;
	int markers_tx;
	int markers_rx;
	uint32_t ird;
	uint32_t ord;
	uint32_t mulpdu;
};

/* One measurement (TCP or iwcm) of one row, in one process. */
struct dp_run {
	const struct bench_opts *o;
	enum bench_dp t;
	bool server;
	unsigned int depth;
	unsigned long n; /* timed iterations */
	unsigned long warm;
	int ctl;
	bool ctl_lost;
	struct dp_side side; /* this process */
	struct dp_side peer; /* client: the server's, from DP_CTL_RESULT */
	uint64_t *lat;	     /* client: n half round trips (latency) */
	struct dp_nego nego; /* client, iwcm */
	uint64_t tcp_off;    /* --tcp-gaps: stream octets moved */
	struct dp_ep *eps;   /* iwcm: the -q endpoints, sharing eps[0]'s */
	unsigned int neps;   /* context, PD and CQ */
};

/* A row of the output: one depth (bandwidth) or the only one. */
struct dp_row {
	unsigned int depth;
	struct dp_side tcp_cli, tcp_srv, iw_cli, iw_srv;
	uint64_t *tcp_lat, *iw_lat;
	struct dp_nego nego;
	bool failed;
	double tcp_val, iw_val, ratio;
};

/* One end of the iwcm connection. */
struct dp_ep {
	struct dp_run *r;
	bool owner; /* its context, PD, CQ (-q: the first) */
	bool manual;
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *ch;
	struct iwcm_cq *cq;
	struct iwcm_srq *srq;
	struct iwcm_qp *qp;
	struct iwcm_conn *conn;
	struct iwcm_listener *l;
	struct iwcm_conn_param *param;
	uint32_t sq_depth;
	bool armed;
	bool passive; /* waits as long as the peer works */
	/* the region the peer reaches, and the local source or sink */
	uint8_t *buf;
	size_t buf_len;
	struct iwcm_mr *buf_mr;
	uint8_t *src;
	size_t src_len;
	struct iwcm_mr *src_mr;
	/* receive slots; received ones wait in rx_q until taken */
	uint8_t *rx;
	size_t rx_len;
	struct iwcm_mr *rx_mr;
	uint32_t rx_q[DP_RX_SLOTS];
	uint32_t rx_qlen[DP_RX_SLOTS];
	unsigned int rx_head, rx_count;
	/* the peer's region */
	uint64_t r_addr;
	uint32_t r_key;
	uint32_t r_len;
	/* send work requests: ids are posted in order, sent is the id
	 * after the latest send completion */
	uint64_t posted;
	uint64_t sent;
	struct iwcm_send_wr *wrs;
	struct iwcm_sge sge;
	/* -q send_lat: round trips done, the current one's start */
	unsigned long done;
	uint64_t t0;
};

static void dp_fail(struct dp_side *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* Mark a side failed; the first reason is kept. */
static void dp_fail(struct dp_side *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->ok)
		return;
	s->ok = 0;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

/* ---- time, CPU, data ---- */

struct dp_mark {
	uint64_t t;
	uint64_t user;
	uint64_t sys;
};

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_S + (uint64_t)tv->tv_usec * 1000;
}

/* Now, and the CPU time of every thread of this process. */
static void dp_mark(struct dp_mark *m)
{
	struct rusage ru;

	m->t = bench_now_ns();
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		m->user = tv_ns(&ru.ru_utime);
		m->sys = tv_ns(&ru.ru_stime);
	} else {
		m->user = m->sys = 0;
	}
}

static void dp_span(struct dp_side *s, const struct dp_mark *a,
		    const struct dp_mark *b)
{
	s->wall_ns = b->t - a->t;
	s->user_ns = b->user - a->user;
	s->sys_ns = b->sys - a->sys;
}

/* The pattern of octet i: a hash of i, so that no shift goes unseen. */
static uint8_t dp_pat(size_t i)
{
	return (uint8_t)(((uint32_t)i * 2654435761u) >> 24);
}

static void dp_fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = dp_pat(i);
}

/* The first octet of p[0..n) off the pattern, or n. */
static size_t dp_check(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != dp_pat(i))
			break;
	}
	return i;
}

static void dp_verify(struct dp_side *s, const char *what, const uint8_t *p,
		      size_t n)
{
	size_t i = dp_check(p, n);

	if (i < n)
		dp_fail(s, "%s: octet %zu of %zu is 0x%02x, not 0x%02x", what,
			i, n, p[i], dp_pat(i));
}

/* The tag write_lat puts in the last octet of iteration i (never 0). */
static uint8_t dp_tag(unsigned long i)
{
	return (uint8_t)(i % 255 + 1);
}

/* A page-aligned buffer of n octets, the pattern or zeros; NULL if n 0. */
static uint8_t *dp_alloc(struct dp_side *s, size_t n, bool pattern)
{
	void *p = NULL;
	int e;

	if (!n)
		return NULL;
	e = posix_memalign(&p, 4096, n);
	if (e) {
		dp_fail(s, "%zu octets: %s", n, strerror(e));
		return NULL;
	}
	if (pattern)
		dp_fill(p, n);
	else
		memset(p, 0, n);
	return p;
}

static bool dp_is_bw(enum bench_dp t)
{
	return t == BENCH_DP_WRITE_BW || t == BENCH_DP_READ_BW;
}

/* ---- the control socket ---- */

static void dp_ctl_send(struct dp_run *r, uint32_t type, uint32_t port)
{
	struct dp_ctl m;

	if (r->ctl_lost)
		return;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.port = port;
	m.side = r->side;
	if (send(r->ctl, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		r->ctl_lost = true;
}

/* The next message, which must be of type; -1 when the peer is gone. */
static int dp_ctl_recv(struct dp_run *r, uint32_t type, struct dp_ctl *m)
{
	ssize_t k;

	if (r->ctl_lost)
		return -1;
	do
		k = recv(r->ctl, m, sizeof(*m), 0);
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(*m) || m->type != type) {
		r->ctl_lost = true;
		dp_fail(&r->side, "the %s process is gone",
			r->server ? "client" : "server");
		return -1;
	}
	return 0;
}

/* Server, setup done (port) or failed (0). */
static void dp_ctl_port(struct dp_run *r, int port)
{
	dp_ctl_send(r, DP_CTL_PORT, port > 0 ? (uint32_t)port : 0);
}

/* Client: the server's port, 0 when it could not start (why in peer). */
static uint16_t dp_ctl_wait_port(struct dp_run *r)
{
	struct dp_ctl m;

	if (dp_ctl_recv(r, DP_CTL_PORT, &m) < 0) {
		r->peer = r->side;
		return 0;
	}
	if (!m.port || m.port > 65535) {
		r->peer = m.side;
		r->peer.ok = 0;
		dp_fail(&r->side, "the server did not start");
		return 0;
	}
	return (uint16_t)m.port;
}

/* Both sides are done: the client says so, the server answers. */
static void dp_ctl_finish(struct dp_run *r)
{
	struct dp_ctl m;

	if (r->server) {
		if (dp_ctl_recv(r, DP_CTL_FIN, &m) == 0)
			dp_ctl_send(r, DP_CTL_RESULT, 0);
		return;
	}
	dp_ctl_send(r, DP_CTL_FIN, 0);
	if (dp_ctl_recv(r, DP_CTL_RESULT, &m) == 0)
		r->peer = m.side;
	else
		r->peer = r->side;
}

/* ---- the raw TCP baseline ---- */

/* A connected socket: TCP_NODELAY, the stall time as timeouts, or
 * non-blocking. */
static void dp_tcp_setup(struct dp_run *r, int fd)
{
	struct timeval tv = { r->o->stall_ms / 1000,
			      (r->o->stall_ms % 1000) * 1000 };

	bench_tcp_nodelay(fd);
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	if (r->o->tcp_poll || r->o->qps > 1)
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

/*
 * After a read(2) or write(2) that returned k: true to try again at
 * once (EINTR, or EAGAIN of a busy-polled socket until the stall time
 * passed without progress), false when it moved data or failed (*fail
 * -1).
 */
static bool dp_tcp_retry(struct dp_run *r, ssize_t k, bool wr,
			 unsigned int *spins, uint64_t *end, int *fail)
{
	if (k > 0) {
		*spins = 0;
		*end = 0;
		return false;
	}
	if (k < 0 && errno == EINTR)
		return true;
	if (k < 0 && errno == EAGAIN && r->o->tcp_poll) {
		if (++*spins % DP_SPIN_CHECK)
			return true;
		if (!*end)
			*end = bench_now_ns() + r->o->stall_ms * 1000000ULL;
		if (bench_now_ns() < *end)
			return true;
	}
	if (k < 0 && errno == EAGAIN)
		dp_fail(&r->side, "TCP %s: no progress for %u ms",
			wr ? "write" : "read", r->o->stall_ms);
	else
		dp_fail(&r->side, "TCP %s: %s", wr ? "write" : "read",
			k == 0 ? "connection closed" : strerror(errno));
	*fail = -1;
	return false;
}

/* read(2) or write(2) of exactly len octets. */
static int dp_tcp_io(struct dp_run *r, int fd, void *buf, size_t len, bool wr)
{
	unsigned int spins = 0;
	uint64_t end = 0;
	uint8_t *p = buf;
	int fail = 0;

	while (len) {
		ssize_t k = wr ? write(fd, p, len) : read(fd, p, len);

		if (dp_tcp_retry(r, k, wr, &spins, &end, &fail))
			continue;
		if (fail)
			return -1;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

/*
 * --tcp-gaps: the stream skips DP_GAP octets at every multiple of
 * DP_GAP_EVERY of its offset, where RFC 5044 §4.3 puts a Marker, and the
 * message octets go between, gathered and scattered by writev(2) and
 * readv(2) straight from and into the message buffer, the pattern iwcm's
 * zero-copy Markers give the kernel.  A gap only precedes message octets.
 */
#define DP_GAP 4
#define DP_GAP_EVERY 512
#define DP_GAP_IOV 1024

static uint8_t dp_gap_octets[DP_GAP];

/* The iovecs of len octets at p from stream offset off; their count. */
static int dp_gap_iov(uint64_t off, uint8_t *p, size_t len, struct iovec *iov)
{
	int k = 0;

	while (len && k < DP_GAP_IOV - 1) {
		size_t in = off % DP_GAP_EVERY, n;

		if (in < DP_GAP) {
			iov[k].iov_base = dp_gap_octets + in;
			iov[k++].iov_len = DP_GAP - in;
			off += DP_GAP - in;
			continue;
		}
		n = DP_GAP_EVERY - in;
		if (n > len)
			n = len;
		iov[k].iov_base = p;
		iov[k++].iov_len = n;
		p += n;
		len -= n;
		off += n;
	}
	return k;
}

/* writev(2) or readv(2) of exactly len message octets with the gaps. */
static int dp_tcp_gap_io(struct dp_run *r, int fd, uint8_t *p, size_t len,
			 bool wr)
{
	struct iovec iov[DP_GAP_IOV];
	unsigned int spins = 0;
	uint64_t end = 0;
	int fail = 0;

	while (len) {
		int cnt = dp_gap_iov(r->tcp_off, p, len, iov);
		ssize_t k = wr ? writev(fd, iov, cnt) : readv(fd, iov, cnt);
		size_t left;

		if (dp_tcp_retry(r, k, wr, &spins, &end, &fail))
			continue;
		if (fail)
			return -1;
		r->tcp_off += (uint64_t)k;
		left = (size_t)k;
		for (int i = 0; i < cnt && left; i++) {
			size_t n = iov[i].iov_len < left ? iov[i].iov_len :
							   left;

			if (iov[i].iov_base == p) {
				p += n;
				len -= n;
			}
			left -= n;
		}
	}
	return 0;
}

/* count messages of size from src. */
static int dp_tcp_source(struct dp_run *r, int fd, uint8_t *src,
			 unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++) {
		if ((r->o->tcp_gaps ?
			     dp_tcp_gap_io(r, fd, src, r->o->size, true) :
			     dp_tcp_io(r, fd, src, r->o->size, true)) < 0)
			return -1;
	}
	return 0;
}

/* Read count messages of size, each landing at the same place in buf. */
static int dp_tcp_sink(struct dp_run *r, int fd, uint8_t *buf,
		       unsigned long count)
{
	size_t size = r->o->size, pos = 0;
	uint64_t left = (uint64_t)count * size, end = 0;
	unsigned int spins = 0;
	int fail = 0;

	if (r->o->tcp_gaps) {
		for (unsigned long i = 0; i < count; i++) {
			if (dp_tcp_gap_io(r, fd, buf, size, false) < 0)
				return -1;
		}
		return 0;
	}
	while (left) {
		size_t want = size - pos;
		ssize_t k;

		if (want > left)
			want = (size_t)left;
		k = read(fd, buf + pos, want);
		if (dp_tcp_retry(r, k, false, &spins, &end, &fail))
			continue;
		if (fail)
			return -1;
		pos = (pos + (size_t)k) % size;
		left -= (uint64_t)k;
	}
	return 0;
}

/* The server's end: a stream in, a stream out or the echo. */
static void dp_tcp_serve(struct dp_run *r, int fd, uint8_t *buf, uint8_t *src)
{
	unsigned long i, total = r->warm + r->n;
	uint64_t word = DP_ATOMIC_INIT, add;
	struct dp_mark a = { 0 }, b = { 0 };
	uint8_t go;

	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (dp_tcp_sink(r, fd, buf, r->warm) < 0)
			return;
		dp_mark(&a);
		if (dp_tcp_sink(r, fd, buf, r->n) < 0)
			return;
		dp_mark(&b);
		dp_verify(&r->side, "TCP stream", buf, r->o->size);
		break;
	case BENCH_DP_READ_BW:
		if (dp_tcp_io(r, fd, &go, 1, false) < 0 ||
		    dp_tcp_source(r, fd, src, r->warm) < 0 ||
		    dp_tcp_io(r, fd, &go, 1, false) < 0)
			return;
		dp_mark(&a);
		if (dp_tcp_source(r, fd, src, r->n) < 0)
			return;
		dp_mark(&b);
		break;
	case BENCH_DP_ATOMIC_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_mark(&a);
			if (dp_tcp_io(r, fd, &add, 8, false) < 0 ||
			    dp_tcp_io(r, fd, &word, 8, true) < 0)
				return;
			word += add;
		}
		dp_mark(&b);
		if (word != DP_ATOMIC_INIT + total * DP_ATOMIC_ADD)
			dp_fail(&r->side, "TCP: the word is %#llx",
				(unsigned long long)word);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_mark(&a);
			if (dp_tcp_io(r, fd, buf, r->o->size, false) < 0 ||
			    dp_tcp_io(r, fd, src, r->o->size, true) < 0)
				return;
		}
		dp_mark(&b);
		dp_verify(&r->side, "TCP ping", buf, r->o->size);
		break;
	}
	dp_span(&r->side, &a, &b);
}

/* The client's end, timing each round trip of the latency tests. */
static void dp_tcp_drive(struct dp_run *r, int fd, uint8_t *buf, uint8_t *src)
{
	unsigned long i, total = r->warm + r->n;
	uint64_t add = DP_ATOMIC_ADD, word = 0, t0;
	struct dp_mark a = { 0 }, b = { 0 };
	uint8_t go = 1;

	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (dp_tcp_source(r, fd, src, r->warm) < 0)
			return;
		dp_mark(&a);
		if (dp_tcp_source(r, fd, src, r->n) < 0)
			return;
		dp_mark(&b);
		break;
	case BENCH_DP_READ_BW:
		if (dp_tcp_io(r, fd, &go, 1, true) < 0 ||
		    dp_tcp_sink(r, fd, buf, r->warm) < 0)
			return;
		dp_mark(&a);
		if (dp_tcp_io(r, fd, &go, 1, true) < 0 ||
		    dp_tcp_sink(r, fd, buf, r->n) < 0)
			return;
		dp_mark(&b);
		dp_verify(&r->side, "TCP stream", buf, r->o->size);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_mark(&a);
			t0 = bench_now_ns();
			if (r->t == BENCH_DP_ATOMIC_LAT) {
				if (dp_tcp_io(r, fd, &add, 8, true) < 0 ||
				    dp_tcp_io(r, fd, &word, 8, false) < 0)
					return;
			} else if (dp_tcp_io(r, fd, src, r->o->size, true) <
					   0 ||
				   dp_tcp_io(r, fd, buf, r->o->size, false) <
					   0) {
				return;
			}
			if (i >= r->warm)
				r->lat[i - r->warm] = (bench_now_ns() - t0) / 2;
		}
		dp_mark(&b);
		if (r->t != BENCH_DP_ATOMIC_LAT)
			dp_verify(&r->side, "TCP pong", buf, r->o->size);
		else if (word != DP_ATOMIC_INIT + (total - 1) * DP_ATOMIC_ADD)
			dp_fail(&r->side, "TCP: fetched %#llx",
				(unsigned long long)word);
		break;
	}
	dp_span(&r->side, &a, &b);
}

/* The buffers of the TCP baseline: buf receives, src sends. */
static int dp_tcp_bufs(struct dp_run *r, uint8_t **buf, uint8_t **src)
{
	bool rd = r->t != BENCH_DP_ATOMIC_LAT, wr = rd;

	/* A stream only reads on one end and only writes on the other. */
	if (r->t == BENCH_DP_WRITE_BW) {
		rd = r->server;
		wr = !r->server;
	} else if (r->t == BENCH_DP_READ_BW) {
		rd = !r->server;
		wr = r->server;
	}
	*buf = rd ? dp_alloc(&r->side, r->o->size, false) : NULL;
	*src = wr ? dp_alloc(&r->side, r->o->size, true) : NULL;
	return r->side.ok ? 0 : -1;
}

/* ---- the TCP baseline of -q N: N streams, one thread ---- */

/* Where one of the N streams is in its current message. */
struct dp_tcp_st {
	int fd;
	bool wr;	    /* writing the current message, else reading */
	size_t off;	    /* octets of it moved */
	unsigned long done; /* messages (send_lat: round trips) done */
	uint64_t t0;	    /* send_lat client: the ping's start */
	uint8_t *buf, *src; /* its own buffers, as each QP has its own */
};

/*
 * Move the current message of s as far as its socket allows: 1 once it
 * is whole, 0 when the socket would block (*moved when octets went),
 * -1 on failure.
 */
static int dp_tcp_step(struct dp_run *r, struct dp_tcp_st *s, bool *moved)
{
	size_t size = r->o->size;
	uint8_t *buf = s->buf, *src = s->src;

	while (s->off < size) {
		ssize_t k = s->wr ? write(s->fd, src + s->off, size - s->off) :
				    read(s->fd, buf + s->off, size - s->off);

		if (k > 0) {
			s->off += (size_t)k;
			*moved = true;
			continue;
		}
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0 && errno == EAGAIN)
			return 0;
		dp_fail(&r->side, "TCP %s: %s", s->wr ? "write" : "read",
			k == 0 ? "connection closed" : strerror(errno));
		return -1;
	}
	s->off = 0;
	return 1;
}

/* Stream i finished a message: what it does next. */
static void dp_tcp_next(struct dp_run *r, struct dp_tcp_st *s, unsigned int i)
{
	if (r->t == BENCH_DP_WRITE_BW) {
		s->done++;
		return;
	}
	if (r->server) {
		/* The echo: a ping in, the same size out. */
		if (s->wr)
			s->done++;
		s->wr = !s->wr;
		return;
	}
	if (s->wr) {
		s->wr = false;
		return;
	}
	if (s->done >= r->warm)
		r->lat[(size_t)i * r->n + (s->done - r->warm)] =
			(bench_now_ns() - s->t0) / 2;
	s->done++;
	s->wr = true;
	s->t0 = bench_now_ns();
}

/*
 * Run the q streams until each has done target messages: every stream
 * moves what its socket takes, then poll(2) waits for the ones that
 * would block (--tcp-poll: spin), failing after the stall time without
 * progress.
 */
static int dp_tcp_multi(struct dp_run *r, struct dp_tcp_st *st, unsigned int q,
			unsigned long target)
{
	struct pollfd p[BENCH_QPS_MAX];
	unsigned int spins = 0, i, np;
	uint64_t end = 0;
	int k;

	for (;;) {
		bool moved = false;

		np = 0;
		for (i = 0; i < q; i++) {
			struct dp_tcp_st *s = &st[i];

			while (s->done < target &&
			       (k = dp_tcp_step(r, s, &moved)) == 1)
				dp_tcp_next(r, s, i);
			if (!r->side.ok)
				return -1;
			if (s->done >= target)
				continue;
			p[np].fd = s->fd;
			p[np].events = s->wr ? POLLOUT : POLLIN;
			p[np++].revents = 0;
		}
		if (!np)
			return 0;
		if (moved) {
			spins = 0;
			end = 0;
		}
		if (r->o->tcp_poll) {
			if (++spins % DP_SPIN_CHECK)
				continue;
			if (!end)
				end = bench_now_ns() +
				      r->o->stall_ms * 1000000ULL;
			if (bench_now_ns() < end)
				continue;
			k = 0;
		} else {
			do
				k = poll(p, np, (int)r->o->stall_ms);
			while (k < 0 && errno == EINTR);
		}
		if (k == 0) {
			dp_fail(&r->side, "TCP: no progress for %u ms",
				r->o->stall_ms);
			return -1;
		}
		if (k < 0) {
			dp_fail(&r->side, "poll: %s", strerror(errno));
			return -1;
		}
	}
}

/*
 * Both ends of -q N over the q connected sockets in fds.  Each stream
 * moves its own buffers (the first stream buf and src), as each of the
 * q QPs places into and sends from regions of its own: the same memory
 * footprint on both sides of the ratio.
 */
static void dp_tcp_multi_run(struct dp_run *r, const int *fds, uint8_t *buf,
			     uint8_t *src)
{
	struct dp_tcp_st st[BENCH_QPS_MAX];
	unsigned int q = r->o->qps, i;
	struct dp_mark a = { 0 }, b = { 0 };

	memset(st, 0, sizeof(st));
	for (i = 0; i < q; i++) {
		st[i].fd = fds[i];
		/* The client writes first: the stream, or the ping. */
		st[i].wr = !r->server;
		st[i].t0 = bench_now_ns();
		st[i].buf = buf;
		st[i].src = src;
		if (i && buf)
			st[i].buf = dp_alloc(&r->side, r->o->size, false);
		if (i && src)
			st[i].src = dp_alloc(&r->side, r->o->size, true);
	}
	if (!r->side.ok)
		goto out;
	if (r->t == BENCH_DP_WRITE_BW) {
		if (dp_tcp_multi(r, st, q, r->warm) < 0)
			goto out;
		dp_mark(&a);
		if (dp_tcp_multi(r, st, q, r->warm + r->n) < 0)
			goto out;
		dp_mark(&b);
		for (i = 0; r->server && i < q && r->side.ok; i++)
			dp_verify(&r->side, "TCP streams", st[i].buf,
				  r->o->size);
	} else {
		dp_mark(&a);
		if (dp_tcp_multi(r, st, q, r->warm + r->n) < 0)
			goto out;
		dp_mark(&b);
		for (i = 0; i < q && r->side.ok; i++)
			dp_verify(&r->side,
				  r->server ? "TCP pings" : "TCP pongs",
				  st[i].buf, r->o->size);
	}
	dp_span(&r->side, &a, &b);
out:
	for (i = 1; i < q; i++) {
		if (st[i].buf != buf)
			free(st[i].buf);
		if (st[i].src != src)
			free(st[i].src);
	}
}

static void dp_tcp_close(int *fds, unsigned int *n)
{
	while (*n)
		close(fds[--*n]);
}

static void dp_tcp_server(struct dp_run *r)
{
	struct sockaddr_in addr;
	struct pollfd p;
	uint8_t *buf = NULL, *src = NULL;
	int lfd, fd = -1, k = 0, fds[BENCH_QPS_MAX];
	unsigned int nfd = 0;

	if (dp_tcp_bufs(r, &buf, &src) < 0) {
		dp_ctl_port(r, 0);
		goto out;
	}
	lfd = bench_tcp_listen(&addr);
	if (lfd < 0) {
		dp_fail(&r->side, "TCP listener on 127.0.0.1: %s",
			strerror(errno));
		dp_ctl_port(r, 0);
		goto out;
	}
	dp_ctl_port(r, ntohs(addr.sin_port));
	p.fd = lfd;
	p.events = POLLIN;
	while (nfd < r->o->qps) {
		do
			k = poll(&p, 1, (int)r->o->stall_ms);
		while (k < 0 && errno == EINTR);
		fd = k > 0 ? accept4(lfd, NULL, NULL, SOCK_CLOEXEC) : -1;
		if (fd < 0)
			break;
		dp_tcp_setup(r, fd);
		fds[nfd++] = fd;
	}
	close(lfd);
	if (fd < 0 && k == 0)
		dp_fail(&r->side, "TCP accept: no connection for %u ms",
			r->o->stall_ms);
	else if (fd < 0)
		dp_fail(&r->side, "TCP accept: %s", strerror(errno));
	else if (nfd == 1)
		dp_tcp_serve(r, fds[0], buf, src);
	else
		dp_tcp_multi_run(r, fds, buf, src);
	if (!r->side.ok)
		dp_tcp_close(fds, &nfd);
	dp_ctl_finish(r);
	dp_tcp_close(fds, &nfd);
out:
	free(buf);
	free(src);
}

static void dp_tcp_client(struct dp_run *r)
{
	struct sockaddr_in sin;
	uint8_t *buf = NULL, *src = NULL;
	uint16_t port = dp_ctl_wait_port(r);
	int fd = -1, fds[BENCH_QPS_MAX];
	unsigned int nfd = 0;

	if (!port)
		return;
	if (dp_tcp_bufs(r, &buf, &src) == 0) {
		bench_sin_loopback(&sin, port);
		while (nfd < r->o->qps) {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0 || connect(fd, (struct sockaddr *)&sin,
					      sizeof(sin)) < 0) {
				dp_fail(&r->side, "TCP connect: %s",
					strerror(errno));
				if (fd >= 0)
					close(fd);
				break;
			}
			dp_tcp_setup(r, fd);
			fds[nfd++] = fd;
		}
		if (nfd == 1 && r->side.ok)
			dp_tcp_drive(r, fds[0], buf, src);
		else if (r->side.ok)
			dp_tcp_multi_run(r, fds, buf, src);
	}
	if (!r->side.ok)
		dp_tcp_close(fds, &nfd);
	dp_ctl_finish(r);
	dp_tcp_close(fds, &nfd);
	free(buf);
	free(src);
}

/* ---- iwcm: waiting ---- */

static const char *dp_async_str(int type)
{
	switch (type) {
	case IWCM_EVENT_QP_FATAL:
		return "local error (QP fatal)";
	case IWCM_EVENT_QP_TERMINATE:
		return "Terminate from the peer";
	case IWCM_EVENT_QP_PEER_CLOSED:
		return "the peer closed the connection";
	case IWCM_EVENT_CQ_ERR:
		return "completion queue overflow";
	default:
		return "unknown asynchronous event";
	}
}

/* An asynchronous event ends the run: the QP is in error. */
static int dp_async_check(struct dp_ep *e)
{
	struct iwcm_async_event ev;

	if (iwcm_get_async_event(e->ctx, &ev) < 0)
		return 0;
	if (ev.type == IWCM_EVENT_QP_TERMINATE)
		dp_fail(&e->r->side, "%s (layer %u type %u code %u)",
			dp_async_str(ev.type), ev.term_layer, ev.term_etype,
			ev.term_ecode);
	else
		dp_fail(&e->r->side, "%s", dp_async_str(ev.type));
	return -1;
}

/*
 * A spin: drive the engine once (manual progress) or yield to its
 * thread, and every so often look at the asynchronous events and the
 * clock: *end is the stall deadline, 0 until the first look and again
 * whenever the engine handled something.  -1 once the run failed.
 */
static int dp_spin(struct dp_ep *e, unsigned int *spins, uint64_t *end)
{
	int k = 0;

	if (e->manual) {
		k = iwcm_progress(e->ctx, 0);
		if (k < 0) {
			dp_fail(&e->r->side, "iwcm_progress: %s",
				strerror(errno));
			return -1;
		}
	} else {
		sched_yield();
	}
	if (k > 0)
		*end = 0;
	if (++*spins % DP_SPIN_CHECK)
		return 0;
	if (dp_async_check(e) < 0)
		return -1;
	if (e->passive)
		return 0;
	if (!*end) {
		*end = bench_now_ns() + e->r->o->stall_ms * 1000000ULL;
	} else if (bench_now_ns() > *end) {
		dp_fail(&e->r->side, "no progress for %u ms",
			e->r->o->stall_ms);
		return -1;
	}
	return 0;
}

/*
 * Event mode: sleep until the CQ's channel or the async fd fires; a
 * passive wait (the server's, while the peer's one-sided operations run
 * through the progress thread without a completion here) has no limit.
 */
static int dp_sleep(struct dp_ep *e)
{
	struct pollfd p[2] = {
		{ iwcm_comp_channel_get_fd(e->ch), POLLIN, 0 },
		{ iwcm_ctx_get_async_fd(e->ctx), POLLIN, 0 },
	};
	/* -q: the endpoints share the CQ, so whether it is armed too. */
	bool *armed = e->owner ? &e->armed : &e->r->eps[0].armed;
	struct iwcm_cq *cq;
	void *cq_ctx;
	int k;

	if (!*armed) {
		if (iwcm_req_notify_cq(e->cq, 0) < 0) {
			dp_fail(&e->r->side, "iwcm_req_notify_cq: %s",
				strerror(errno));
			return -1;
		}
		/* Completions queued before arming give no event. */
		*armed = true;
		return 0;
	}
	do
		k = poll(p, 2, e->passive ? -1 : (int)e->r->o->stall_ms);
	while (k < 0 && errno == EINTR);
	if (k == 0) {
		dp_fail(&e->r->side, "no completion for %u ms",
			e->r->o->stall_ms);
		return -1;
	}
	if (k < 0) {
		dp_fail(&e->r->side, "poll: %s", strerror(errno));
		return -1;
	}
	if (p[1].revents && dp_async_check(e) < 0)
		return -1;
	if (iwcm_get_cq_event(e->ch, &cq, &cq_ctx) == 0) {
		iwcm_ack_cq_events(cq, 1);
		*armed = false;
	} else if (errno != EAGAIN && errno != EINTR) {
		dp_fail(&e->r->side, "iwcm_get_cq_event: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static const char *dp_wc_op_str(int opcode)
{
	switch (opcode) {
	case IWCM_WC_SEND:
		return "Send";
	case IWCM_WC_RDMA_WRITE:
		return "RDMA Write";
	case IWCM_WC_RDMA_READ:
		return "RDMA Read";
	case IWCM_WC_FETCH_ADD:
		return "FetchAdd";
	case IWCM_WC_RECV:
		return "receive";
	default:
		return "work request";
	}
}

/* Repost receive slot i. */
static int dp_post_rx(struct dp_ep *e, uint32_t i)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)(e->rx + (size_t)i * e->rx_len),
		.length = (uint32_t)e->rx_len,
		.lkey = iwcm_mr_get_stag(e->rx_mr),
	};
	struct iwcm_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	int err = iwcm_post_srq_recv(e->srq, &wr, NULL);

	if (err) {
		dp_fail(&e->r->side, "iwcm_post_srq_recv: %s", strerror(err));
		return -1;
	}
	return 0;
}

/* The endpoint of a QP: e itself, or with -q the one of the run's. */
static struct dp_ep *dp_ep_of(struct dp_ep *e, const struct iwcm_qp *qp)
{
	struct dp_run *r = e->r;
	unsigned int i;

	if (r->neps <= 1)
		return e;
	for (i = 0; i < r->neps; i++) {
		if (r->eps[i].qp == qp)
			return &r->eps[i];
	}
	return NULL;
}

/*
 * Take what completed, waiting (busy or asleep) until something did:
 * receives queue up in rx_q, send completions advance sent, of the
 * endpoint whose QP completed (-q: they share one CQ).
 */
static int dp_poll(struct dp_ep *e)
{
	struct iwcm_wc wc[DP_WC_BATCH];
	unsigned int spins = 0;
	uint64_t end = 0;
	int k, i;

	for (;;) {
		k = iwcm_poll_cq(e->cq, DP_WC_BATCH, wc);
		if (k < 0) {
			dp_fail(&e->r->side, "iwcm_poll_cq: %s",
				strerror(errno));
			return -1;
		}
		if (k > 0)
			break;
		if (e->manual ? dp_spin(e, &spins, &end) < 0 : dp_sleep(e) < 0)
			return -1;
	}
	for (i = 0; i < k; i++) {
		struct dp_ep *t = dp_ep_of(e, wc[i].qp);

		if (wc[i].status != IWCM_WC_SUCCESS) {
			dp_fail(&e->r->side, "%s: %s (vendor_err %#x)",
				dp_wc_op_str(wc[i].opcode),
				iwcm_wc_status_str(wc[i].status),
				wc[i].vendor_err);
			return -1;
		}
		if (!t) {
			dp_fail(&e->r->side, "a completion of no QP of ours");
			return -1;
		}
		if (wc[i].opcode & IWCM_WC_RECV) {
			unsigned int at =
				(t->rx_head + t->rx_count) % DP_RX_SLOTS;

			t->rx_q[at] = (uint32_t)wc[i].wr_id;
			t->rx_qlen[at] = wc[i].byte_len;
			t->rx_count++;
		} else {
			t->sent = wc[i].wr_id + 1;
		}
	}
	return 0;
}

/* The next receive: its slot and length; the slot is posted again. */
static int dp_recv(struct dp_ep *e, uint32_t *slot, uint32_t *len)
{
	while (!e->rx_count) {
		if (dp_poll(e) < 0)
			return -1;
	}
	*slot = e->rx_q[e->rx_head];
	*len = e->rx_qlen[e->rx_head];
	e->rx_head = (e->rx_head + 1) % DP_RX_SLOTS;
	e->rx_count--;
	return dp_post_rx(e, *slot);
}

/* The next receive must be the in-band message msg. */
static int dp_recv_msg(struct dp_ep *e, enum dp_msg msg)
{
	uint32_t slot, len;
	uint64_t v;

	if (dp_recv(e, &slot, &len) < 0)
		return -1;
	memcpy(&v, e->rx + (size_t)slot * e->rx_len, sizeof(v));
	if (len != sizeof(v) || v != msg) {
		dp_fail(&e->r->side,
			"in-band message %d expected, got %u "
			"octets",
			msg, len);
		return -1;
	}
	return 0;
}

/* Until every send up to id has completed. */
static int dp_wait_sent(struct dp_ep *e, uint64_t id)
{
	while (e->sent < id) {
		if (dp_poll(e) < 0)
			return -1;
	}
	return 0;
}

/* Until the octet at p holds tag (placed by the progress engine). */
static int dp_wait_tag(struct dp_ep *e, const uint8_t *p, uint8_t tag)
{
	unsigned int spins = 0;
	uint64_t end = 0;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != tag) {
		if (dp_spin(e, &spins, &end) < 0)
			return -1;
	}
	return 0;
}

/* The next CM event of the endpoint's context, within the stall time. */
static struct iwcm_event *dp_cm_event(struct dp_ep *e)
{
	struct iwcm_event *ev;
	struct pollfd p = { iwcm_ctx_get_fd(e->ctx), POLLIN, 0 };
	uint64_t end = bench_now_ns() + e->r->o->stall_ms * 1000000ULL;

	while (iwcm_get_event(e->ctx, &ev) < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			dp_fail(&e->r->side, "iwcm_get_event: %s",
				strerror(errno));
			return NULL;
		}
		if (bench_now_ns() > end) {
			dp_fail(&e->r->side, "no connection event for %u ms",
				e->r->o->stall_ms);
			return NULL;
		}
		poll(&p, 1, 100);
	}
	return ev;
}

/* ---- iwcm: posting ---- */

/* One send work request (id e->posted) from the local source. */
static int dp_post(struct dp_ep *e, int opcode, bool signaled)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_send_wr wr;
	struct iwcm_sge sge = {
		.addr = (uintptr_t)e->src,
		.length = (uint32_t)o->size,
		.lkey = iwcm_mr_get_stag(e->src_mr),
	};
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = e->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = (enum iwcm_wr_opcode)opcode;
	wr.send_flags = signaled ? IWCM_SEND_SIGNALED : 0;
	if (opcode != IWCM_WR_ATOMIC_FETCH_ADD && o->size <= DP_INLINE_MAX)
		wr.send_flags |= IWCM_SEND_INLINE;
	if (opcode == IWCM_WR_ATOMIC_FETCH_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = e->r_addr;
		wr.wr.atomic.rkey = e->r_key;
		wr.wr.atomic.compare_add = DP_ATOMIC_ADD;
	} else if (opcode != IWCM_WR_SEND) {
		wr.wr.rdma.remote_addr = e->r_addr;
		wr.wr.rdma.rkey = e->r_key;
	}
	err = iwcm_post_send(e->qp, &wr, NULL);
	if (err) {
		dp_fail(&e->r->side, "iwcm_post_send: %s", strerror(err));
		return -1;
	}
	e->posted++;
	return 0;
}

/* An in-band message (signaled, inline). */
static int dp_post_msg(struct dp_ep *e, enum dp_msg msg)
{
	uint64_t v = msg;
	struct iwcm_sge sge = { (uintptr_t)&v, sizeof(v), 0 };
	struct iwcm_send_wr wr;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = e->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_SEND;
	wr.send_flags = IWCM_SEND_SIGNALED | IWCM_SEND_INLINE;
	err = iwcm_post_send(e->qp, &wr, NULL);
	if (err) {
		dp_fail(&e->r->side, "iwcm_post_send: %s", strerror(err));
		return -1;
	}
	e->posted++;
	return 0;
}

/*
 * n RDMA Writes or Reads of the whole region on each of the q endpoints
 * (-q), at most depth in flight on each, posted as lists; every
 * DP_SIG_EVERY-th and the last of each are signaled.
 */
static int dp_window(struct dp_ep *eps, unsigned int q, unsigned long n)
{
	struct dp_run *r = eps[0].r;
	uint64_t base[BENCH_QPS_MAX];
	unsigned int depth = r->depth, sig, i;
	enum iwcm_wr_opcode op = r->t == BENCH_DP_WRITE_BW ?
					 IWCM_WR_RDMA_WRITE :
					 IWCM_WR_RDMA_READ;
	bool busy = true;
	int err;

	if (depth > n)
		depth = (unsigned int)n;
	sig = depth < DP_SIG_EVERY ? depth : DP_SIG_EVERY;
	for (i = 0; i < q; i++)
		base[i] = eps[i].posted;
	while (busy) {
		busy = false;
		for (i = 0; i < q; i++) {
			struct dp_ep *e = &eps[i];
			uint64_t end = base[i] + n;
			unsigned int k = 0;

			if (e->sent >= end)
				continue;
			busy = true;
			while (e->posted < end && e->posted - e->sent < depth) {
				struct iwcm_send_wr *w = &e->wrs[k];

				memset(w, 0, sizeof(*w));
				w->wr_id = e->posted;
				w->sg_list = &e->sge;
				w->num_sge = 1;
				w->opcode = op;
				if ((e->posted - base[i] + 1) % sig == 0 ||
				    e->posted + 1 == end)
					w->send_flags = IWCM_SEND_SIGNALED;
				w->wr.rdma.remote_addr = e->r_addr;
				w->wr.rdma.rkey = e->r_key;
				if (k)
					e->wrs[k - 1].next = w;
				k++;
				e->posted++;
			}
			err = k ? iwcm_post_send(e->qp, e->wrs, NULL) : 0;
			if (err) {
				dp_fail(&r->side, "iwcm_post_send: %s",
					strerror(err));
				return -1;
			}
		}
		if (busy && dp_poll(&eps[0]) < 0)
			return -1;
	}
	return 0;
}

/* ---- iwcm: the endpoints ---- */

static struct iwcm_mr *dp_reg(struct dp_ep *e, uint8_t *p, size_t len,
			      unsigned int access)
{
	struct iwcm_mr *mr;

	if (!p)
		return NULL;
	mr = iwcm_reg_mr(e->pd, p, len, access);
	if (!mr)
		dp_fail(&e->r->side, "iwcm_reg_mr: %s", strerror(errno));
	return mr;
}

/*
 * The buffers of test t on this side: buf is what the peer reaches
 * (written into, read from, or the atomic word), src what this side
 * sends or writes from, or where its Reads and FetchAdds land.
 */
static int dp_ep_bufs(struct dp_ep *e)
{
	struct dp_run *r = e->r;
	size_t size = r->o->size;
	const unsigned int lw = IWCM_ACCESS_LOCAL_WRITE;
	unsigned int bacc = 0, sacc = 0;
	bool bpat = false, spat = false;

	e->buf_len = e->src_len = 0;
	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (r->server) {
			e->buf_len = size;
			bacc = lw | IWCM_ACCESS_REMOTE_WRITE;
		} else {
			e->src_len = size;
			spat = true;
		}
		break;
	case BENCH_DP_READ_BW:
		if (r->server) {
			e->buf_len = size;
			bacc = IWCM_ACCESS_REMOTE_READ;
			bpat = true;
		} else {
			e->src_len = size;
			sacc = lw;
		}
		break;
	case BENCH_DP_SEND_LAT:
		e->src_len = size;
		spat = true;
		break;
	case BENCH_DP_WRITE_LAT:
		e->buf_len = size;
		bacc = lw | IWCM_ACCESS_REMOTE_WRITE;
		e->src_len = size;
		spat = true;
		break;
	case BENCH_DP_ATOMIC_LAT:
		if (r->server) {
			e->buf_len = 8;
			bacc = lw | IWCM_ACCESS_REMOTE_ATOMIC;
		} else {
			e->src_len = 8;
			sacc = lw;
		}
		break;
	default:
		break;
	}
	e->rx_len = DP_CTL_LEN;
	if (r->t == BENCH_DP_SEND_LAT && size > e->rx_len)
		e->rx_len = size;
	e->buf = dp_alloc(&r->side, e->buf_len, bpat);
	e->src = dp_alloc(&r->side, e->src_len, spat);
	e->rx = dp_alloc(&r->side, DP_RX_SLOTS * e->rx_len, false);
	if (!r->side.ok)
		return -1;
	if (r->t == BENCH_DP_ATOMIC_LAT && r->server) {
		uint64_t v = DP_ATOMIC_INIT;

		memcpy(e->buf, &v, 8);
	}
	e->buf_mr = dp_reg(e, e->buf, e->buf_len, bacc);
	e->src_mr = dp_reg(e, e->src, e->src_len, sacc);
	e->rx_mr = dp_reg(e, e->rx, DP_RX_SLOTS * e->rx_len, lw);
	if (!r->side.ok)
		return -1;
	e->sge.addr = (uintptr_t)e->src;
	e->sge.length = (uint32_t)e->src_len;
	e->sge.lkey = iwcm_mr_get_stag(e->src_mr);
	return 0;
}

/* Connection parameters: ours in private data, the options' MPA. */
static struct iwcm_conn_param *dp_param(struct dp_ep *e)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[16];
	uint64_t a = (uintptr_t)e->buf;
	uint32_t v;
	int bad = 0;

	if (!p)
		return NULL;
	/* The region the peer may reach: address, STag, length. */
	v = htonl((uint32_t)(a >> 32));
	memcpy(pd, &v, 4);
	v = htonl((uint32_t)a);
	memcpy(pd + 4, &v, 4);
	v = htonl(iwcm_mr_get_stag(e->buf_mr));
	memcpy(pd + 8, &v, 4);
	v = htonl((uint32_t)e->buf_len);
	memcpy(pd + 12, &v, 4);
	bad |= iwcm_conn_param_set_private_data(p, pd, sizeof(pd));
	bad |= iwcm_conn_param_set_ird(p, DP_IRD_ORD);
	bad |= iwcm_conn_param_set_ord(p, DP_IRD_ORD);
	bad |= iwcm_conn_param_set_crc(p, o->crc ? IWCM_CRC_REQUEST :
						   IWCM_CRC_PREFER_OFF);
	bad |= iwcm_conn_param_set_markers(p, o->markers);
	if (!e->r->server)
		bad |= iwcm_conn_param_set_mpa_rev(p, o->mpa_rev);
	if (bad) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

/* Close an endpoint; the context, PD and CQ only if it owns them. */
static void dp_ep_close(struct dp_ep *e)
{
	if (e->qp)
		iwcm_destroy_qp(e->qp);
	iwcm_conn_free(e->conn);
	if (e->l)
		iwcm_listener_close(e->l);
	if (e->srq)
		iwcm_destroy_srq(e->srq);
	if (e->owner && e->cq)
		iwcm_destroy_cq(e->cq);
	if (e->owner && e->ch)
		iwcm_destroy_comp_channel(e->ch);
	if (e->buf_mr)
		iwcm_dereg_mr(e->buf_mr);
	if (e->src_mr)
		iwcm_dereg_mr(e->src_mr);
	if (e->rx_mr)
		iwcm_dereg_mr(e->rx_mr);
	if (e->owner && e->pd)
		iwcm_dealloc_pd(e->pd);
	if (e->owner)
		iwcm_ctx_close(e->ctx);
	iwcm_conn_param_free(e->param);
	free(e->buf);
	free(e->src);
	free(e->rx);
	free(e->wrs);
	memset(e, 0, sizeof(*e));
}

/* Every endpoint of the run, the owner of the shared objects last. */
static void dp_eps_close(struct dp_run *r)
{
	while (r->neps)
		dp_ep_close(&r->eps[--r->neps]);
	free(r->eps);
	r->eps = NULL;
}

/*
 * Context, PD, CQ (and channel), SRQ with its receives, buffers; with
 * -q the endpoints after the first share its context, PD and CQ.
 */
static int dp_ep_open(struct dp_run *r, struct dp_ep *e,
		      const struct dp_ep *shared)
{
	const struct bench_opts *o = r->o;
	struct iwcm_srq_init_attr sa = { .max_wr = DP_RX_SLOTS, .max_sge = 1 };
	unsigned int flags = IWCM_CTX_NONBLOCK;
	const char *what;
	uint32_t i;

	memset(e, 0, sizeof(*e));
	e->r = r;
	e->owner = !shared;
	e->manual = !o->event;
	if (e->manual)
		flags |= IWCM_CTX_MANUAL_PROGRESS;
	e->sq_depth = dp_is_bw(r->t) ? r->depth + 8 : DP_SQ_LAT;
	if (shared) {
		e->ctx = shared->ctx;
		e->pd = shared->pd;
		e->ch = shared->ch;
		e->cq = shared->cq;
		goto own;
	}
	what = "iwcm_ctx_open_path";
	e->ctx = iwcm_ctx_open_path(D.path, flags);
	if (!e->ctx)
		goto fail;
	what = "iwcm_alloc_pd";
	e->pd = iwcm_alloc_pd(e->ctx);
	if (!e->pd)
		goto fail;
	if (!e->manual) {
		what = "iwcm_create_comp_channel";
		e->ch = iwcm_create_comp_channel(e->ctx);
		if (!e->ch)
			goto fail;
		fcntl(iwcm_comp_channel_get_fd(e->ch), F_SETFL, O_NONBLOCK);
	}
	what = "iwcm_create_cq";
	e->cq = iwcm_create_cq(e->ctx,
			       (int)((e->sq_depth + DP_RX_SLOTS + 8) * o->qps),
			       e, e->ch);
	if (!e->cq)
		goto fail;
own:
	what = "iwcm_create_srq";
	e->srq = iwcm_create_srq(e->pd, &sa);
	if (!e->srq)
		goto fail;
	if (dp_is_bw(r->t)) {
		e->wrs = calloc(r->depth, sizeof(*e->wrs));
		if (!e->wrs) {
			errno = ENOMEM;
			what = "calloc";
			goto fail;
		}
	}
	if (dp_ep_bufs(e) < 0)
		return -1;
	for (i = 0; i < DP_RX_SLOTS; i++) {
		if (dp_post_rx(e, i) < 0)
			return -1;
	}
	what = "iwcm_conn_param_new";
	e->param = dp_param(e);
	if (!e->param)
		goto fail;
	return 0;
fail:
	dp_fail(&r->side, "%s: %s", what, strerror(errno));
	return -1;
}

/* What libiwcm knows of c (iwcm_conn_query(3)); unknown parts zero. */
static struct iwcm_conn_attr dp_conn_attr(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(c, &a) < 0)
		a.comp_mask = 0;
	return a;
}

/* The peer's region from its private data. */
static int dp_ep_peer(struct dp_ep *e)
{
	const uint8_t *pd;
	uint32_t v[4];
	size_t len = 0;
	bool need;

	pd = dp_conn_attr(e->conn).peer_private_data;
	len = dp_conn_attr(e->conn).peer_private_data_len;
	if (!pd || len != sizeof(v)) {
		dp_fail(&e->r->side, "the peer's private data: %zu octets",
			pd ? len : 0);
		return -1;
	}
	memcpy(v, pd, sizeof(v));
	e->r_addr = (uint64_t)ntohl(v[0]) << 32 | ntohl(v[1]);
	e->r_key = ntohl(v[2]);
	e->r_len = ntohl(v[3]);
	need = e->r->t == BENCH_DP_WRITE_LAT ||
	       (!e->r->server && e->r->t != BENCH_DP_SEND_LAT);
	if (need &&
	    e->r_len < (e->r->t == BENCH_DP_ATOMIC_LAT ? 8 : e->r->o->size)) {
		dp_fail(&e->r->side, "the peer's region: %u octets", e->r_len);
		return -1;
	}
	return 0;
}

/* ESTABLISHED: what was negotiated is what was asked; the QP. */
static int dp_ep_qp(struct dp_ep *e)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_qp_init_attr attr;
	struct iwcm_qp_attr qa;
	struct dp_nego *n = &e->r->nego;
	const struct iwcm_conn_attr ca = dp_conn_attr(e->conn);
	int crc = ca.crc;
	int mtx = ca.markers_tx;
	int mrx = ca.markers_rx;
	int rev = (int)ca.mpa_rev;

	if (crc != (int)o->crc || mtx != (int)o->markers ||
	    mrx != (int)o->markers || rev != (int)o->mpa_rev) {
		dp_fail(&e->r->side,
			"negotiated MPA rev %d, CRC %d, markers "
			"tx %d rx %d; asked rev %u, CRC %d, "
			"markers %d",
			rev, crc, mtx, mrx, o->mpa_rev, o->crc, o->markers);
		return -1;
	}
	if (dp_ep_peer(e) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	attr.srq = e->srq;
	attr.max_send_wr = e->sq_depth;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.max_inline_data = DP_INLINE_MAX;
	e->qp = iwcm_create_qp(e->conn, e->pd, &attr);
	if (!e->qp) {
		dp_fail(&e->r->side, "iwcm_create_qp: %s", strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	if (iwcm_query_qp(e->qp, &qa) == 0) {
		n->known = true;
		n->mpa_rev = rev;
		n->crc = qa.crc;
		n->markers_tx = qa.markers_tx;
		n->markers_rx = qa.markers_rx;
		n->ird = qa.ird;
		n->ord = qa.ord;
		n->mulpdu = qa.mulpdu;
	}
	if (!e->r->server && n->known && !n->ord &&
	    (e->r->t == BENCH_DP_READ_BW || e->r->t == BENCH_DP_ATOMIC_LAT)) {
		dp_fail(&e->r->side, "ORD 0: no RDMA Read or atomic allowed");
		return -1;
	}
	return 0;
}

/* ---- iwcm: the tests ---- */

/*
 * -q send_lat: the N ping-pongs at once, as the TCP streams run them.
 * The client times each round trip of each QP into lat[i * n + j]; the
 * server echoes whatever arrives.
 */
static void dp_iw_lat_multi(struct dp_run *r)
{
	unsigned long total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	unsigned int q = r->neps, left = q, i;
	bool fin[BENCH_QPS_MAX] = { false };
	struct dp_ep *last = &r->eps[0];
	uint32_t slot = 0, len;

	for (i = 0; i < q; i++) {
		r->eps[i].done = 0;
		r->eps[i].t0 = bench_now_ns();
		if (!r->server &&
		    dp_post(&r->eps[i], IWCM_WR_SEND, total == 1) < 0)
			return;
	}
	dp_mark(&a);
	while (left) {
		if (dp_poll(&r->eps[0]) < 0)
			return;
		for (i = 0; i < q; i++) {
			struct dp_ep *e = &r->eps[i];

			while (e->rx_count && e->done < total) {
				uint64_t now;

				if (dp_recv(e, &slot, &len) < 0)
					return;
				now = bench_now_ns();
				last = e;
				if (len != size) {
					dp_fail(&r->side,
						"a p%cng of %u octets",
						r->server ? 'i' : 'o', len);
					return;
				}
				if (!r->server && e->done >= r->warm)
					r->lat[(size_t)i * r->n + e->done -
					       r->warm] = (now - e->t0) / 2;
				e->done++;
				if (!r->server && e->done == total)
					break;
				e->t0 = now;
				/* The last pong, or the last ping: signaled. */
				if (dp_post(e, IWCM_WR_SEND,
					    e->done + !r->server == total) < 0)
					return;
			}
			if (e->done == total && !fin[i]) {
				fin[i] = true;
				left--;
			}
		}
	}
	dp_mark(&b);
	for (i = 0; i < q; i++) {
		if (dp_wait_sent(&r->eps[i], r->eps[i].posted) < 0)
			return;
	}
	dp_span(&r->side, &a, &b);
	dp_verify(&r->side, r->server ? "ping" : "pong",
		  last->rx + (size_t)slot * last->rx_len, size);
}

/* The server's part once READY is sent; sets its CPU span. */
static void dp_iw_serve(struct dp_run *r, struct dp_ep *e)
{
	unsigned long i, total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	uint32_t slot = 0, len;
	unsigned int k;
	uint64_t v;

	if (r->neps > 1 && r->t == BENCH_DP_SEND_LAT) {
		dp_iw_lat_multi(r);
		return;
	}
	switch (r->t) {
	case BENCH_DP_WRITE_BW:
	case BENCH_DP_READ_BW:
	case BENCH_DP_ATOMIC_LAT:
		/* The client's Writes, Reads or atomics complete nothing
		 * here: wait for DONE as long as the QPs work. */
		for (k = 0; k < r->neps; k++)
			r->eps[k].passive = true;
		for (k = 0; k < r->neps; k++) {
			if (dp_recv_msg(&r->eps[k], DP_MSG_START) < 0)
				return;
		}
		dp_mark(&a);
		for (k = 0; k < r->neps; k++) {
			if (dp_recv_msg(&r->eps[k], DP_MSG_DONE) < 0)
				return;
		}
		dp_mark(&b);
		break;
	case BENCH_DP_SEND_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_mark(&a);
			if (dp_recv(e, &slot, &len) < 0)
				return;
			if (len != size) {
				dp_fail(&r->side, "a ping of %u octets", len);
				return;
			}
			if (dp_post(e, IWCM_WR_SEND, i + 1 == total) < 0)
				return;
		}
		dp_mark(&b);
		if (dp_wait_sent(e, e->posted) < 0)
			return;
		dp_verify(&r->side, "ping", e->rx + (size_t)slot * e->rx_len,
			  size);
		break;
	case BENCH_DP_WRITE_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_mark(&a);
			if (dp_wait_tag(e, &e->buf[size - 1], dp_tag(i)) < 0)
				return;
			e->src[size - 1] = dp_tag(i);
			if (dp_post(e, IWCM_WR_RDMA_WRITE, i + 1 == total) < 0)
				return;
		}
		dp_mark(&b);
		if (dp_wait_sent(e, e->posted) < 0)
			return;
		dp_verify(&r->side, "RDMA Write target", e->buf, size - 1);
		break;
	default:
		return;
	}
	dp_span(&r->side, &a, &b);
	for (k = 0; r->t == BENCH_DP_WRITE_BW && k < r->neps; k++)
		dp_verify(&r->side, "RDMA Write target", r->eps[k].buf, size);
	if (r->t == BENCH_DP_ATOMIC_LAT) {
		memcpy(&v, e->buf, 8);
		if (v != DP_ATOMIC_INIT + total * DP_ATOMIC_ADD)
			dp_fail(&r->side, "the atomic word is %#llx",
				(unsigned long long)v);
	}
}

/* The client's part once READY arrived: the measurement. */
static void dp_iw_drive(struct dp_run *r, struct dp_ep *e)
{
	unsigned long i, total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	uint32_t slot = 0, len;
	unsigned int k;
	uint64_t t0, v;

	if (r->neps > 1 && r->t == BENCH_DP_SEND_LAT) {
		dp_iw_lat_multi(r);
		return;
	}
	if (dp_is_bw(r->t)) {
		if (r->warm && dp_window(r->eps, r->neps, r->warm) < 0)
			return;
		for (k = 0; k < r->neps; k++) {
			if (dp_post_msg(&r->eps[k], DP_MSG_START) < 0)
				return;
		}
		dp_mark(&a);
		if (dp_window(r->eps, r->neps, r->n) < 0)
			return;
		dp_mark(&b);
		for (k = 0; k < r->neps; k++) {
			if (dp_post_msg(&r->eps[k], DP_MSG_DONE) < 0)
				return;
		}
		for (k = 0; k < r->neps; k++) {
			if (dp_wait_sent(&r->eps[k], r->eps[k].posted) < 0)
				return;
		}
		dp_span(&r->side, &a, &b);
		if (r->t == BENCH_DP_READ_BW)
			dp_verify(&r->side, "RDMA Read sink", e->src, size);
		return;
	}
	for (i = 0; i < total; i++) {
		bool last = i + 1 == total;

		if (i == r->warm) {
			if (r->t == BENCH_DP_ATOMIC_LAT &&
			    dp_post_msg(e, DP_MSG_START) < 0)
				return;
			dp_mark(&a);
		}
		if (r->t == BENCH_DP_WRITE_LAT)
			e->src[size - 1] = dp_tag(i);
		t0 = bench_now_ns();
		switch (r->t) {
		case BENCH_DP_SEND_LAT:
			if (dp_post(e, IWCM_WR_SEND, last) < 0 ||
			    dp_recv(e, &slot, &len) < 0)
				return;
			if (len != size) {
				dp_fail(&r->side, "a pong of %u octets", len);
				return;
			}
			break;
		case BENCH_DP_WRITE_LAT:
			if (dp_post(e, IWCM_WR_RDMA_WRITE, last) < 0 ||
			    dp_wait_tag(e, &e->buf[size - 1], dp_tag(i)) < 0)
				return;
			break;
		default:
			if (dp_post(e, IWCM_WR_ATOMIC_FETCH_ADD, true) < 0 ||
			    dp_wait_sent(e, e->posted) < 0)
				return;
			break;
		}
		if (i >= r->warm)
			r->lat[i - r->warm] = (bench_now_ns() - t0) / 2;
	}
	dp_mark(&b);
	if (r->t == BENCH_DP_ATOMIC_LAT && dp_post_msg(e, DP_MSG_DONE) < 0)
		return;
	if (dp_wait_sent(e, e->posted) < 0)
		return;
	dp_span(&r->side, &a, &b);
	switch (r->t) {
	case BENCH_DP_SEND_LAT:
		dp_verify(&r->side, "pong", e->rx + (size_t)slot * e->rx_len,
			  size);
		break;
	case BENCH_DP_WRITE_LAT:
		dp_verify(&r->side, "RDMA Write target", e->buf, size - 1);
		break;
	default:
		memcpy(&v, e->src, 8);
		if (v != DP_ATOMIC_INIT + (total - 1) * DP_ATOMIC_ADD)
			dp_fail(&r->side, "FetchAdd returned %#llx",
				(unsigned long long)v);
		break;
	}
}

/* The server's connection of e: accept it, its QP, HELLO and READY. */
static int dp_iw_accept(struct dp_run *r, struct dp_ep *e)
{
	struct iwcm_event *ev;
	int type;

	ev = dp_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	e->conn = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_CONNECT_REQUEST) {
		dp_fail(&r->side, "event %s", iwcm_cm_event_str(type));
		return -1;
	}
	if (iwcm_accept(e->conn, e->param) < 0) {
		dp_fail(&r->side, "iwcm_accept: %s", strerror(errno));
		return -1;
	}
	ev = dp_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_ESTABLISHED) {
		dp_fail(&r->side, "event %s", iwcm_cm_event_str(type));
		return -1;
	}
	if (dp_ep_qp(e) < 0 || dp_recv_msg(e, DP_MSG_HELLO) < 0 ||
	    dp_post_msg(e, DP_MSG_READY) < 0)
		return -1;
	return 0;
}

/* The endpoints of the run (-q of them); -1 when one failed. */
static int dp_eps_open(struct dp_run *r)
{
	r->eps = calloc(r->o->qps, sizeof(*r->eps));
	if (!r->eps) {
		dp_fail(&r->side, "out of memory");
		return -1;
	}
	while (r->neps < r->o->qps) {
		struct dp_ep *e = &r->eps[r->neps];

		/* Counted at once: a failed one has something to close. */
		r->neps++;
		if (dp_ep_open(r, e, e == r->eps ? NULL : r->eps) < 0)
			return -1;
	}
	return 0;
}

static void dp_iw_server(struct dp_run *r)
{
	struct sockaddr_in sin;
	struct dp_ep *e;
	unsigned int i;

	if (dp_eps_open(r) < 0)
		goto setup_failed;
	e = &r->eps[0];
	bench_sin_loopback(&sin, 0);
	e->l = iwcm_listen(e->ctx, (struct sockaddr *)&sin, NULL, e->param,
			   (int)r->neps);
	if (!e->l) {
		dp_fail(&r->side, "iwcm_listen 127.0.0.1: %s", strerror(errno));
		goto setup_failed;
	}
	dp_ctl_port(r, iwcm_listener_get_port(e->l));
	/* The client connects one at a time. */
	for (i = 0; i < r->neps; i++) {
		if (dp_iw_accept(r, &r->eps[i]) < 0)
			goto out;
	}
	iwcm_listener_close(e->l);
	e->l = NULL;
	dp_iw_serve(r, e);
out:
	if (!r->side.ok)
		dp_eps_close(r);
	dp_ctl_finish(r);
	dp_eps_close(r);
	return;
setup_failed:
	dp_eps_close(r);
	dp_ctl_port(r, 0);
}

static const char *dp_conn_reason(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = dp_conn_attr(c);

	return a.reason_text ? a.reason_text : iwcm_status_str(a.reason);
}

/* The client's connection of e: ESTABLISHED, its QP, HELLO and READY. */
static int dp_iw_connect(struct dp_run *r, struct dp_ep *e, uint16_t port)
{
	struct iwcm_event *ev;
	struct sockaddr_in sin;
	int type;

	bench_sin_loopback(&sin, port);
	e->conn = iwcm_connect(e->ctx, (struct sockaddr *)&sin, NULL, e->param);
	if (!e->conn) {
		dp_fail(&r->side, "iwcm_connect: %s", strerror(errno));
		return -1;
	}
	ev = dp_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_ESTABLISHED) {
		dp_fail(&r->side, "%s: %s", iwcm_cm_event_str(type),
			dp_conn_reason(e->conn));
		return -1;
	}
	if (dp_ep_qp(e) < 0 || dp_post_msg(e, DP_MSG_HELLO) < 0 ||
	    dp_recv_msg(e, DP_MSG_READY) < 0)
		return -1;
	return 0;
}

static void dp_iw_client(struct dp_run *r)
{
	uint16_t port = dp_ctl_wait_port(r);
	unsigned int i;

	if (!port)
		return;
	if (dp_eps_open(r) < 0)
		goto out;
	for (i = 0; i < r->neps; i++) {
		if (dp_iw_connect(r, &r->eps[i], port) < 0)
			goto out;
	}
	dp_iw_drive(r, &r->eps[0]);
out:
	if (!r->side.ok)
		dp_eps_close(r);
	dp_ctl_finish(r);
	dp_eps_close(r);
}

/* ---- the rows and the two processes ---- */

static void dp_run_init(struct dp_run *r, const struct bench_opts *o,
			unsigned int depth, int ctl, bool server)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->t = o->test->dp;
	r->server = server;
	r->depth = depth;
	r->n = o->iters;
	r->warm = o->warmup;
	r->ctl = ctl;
	r->side.ok = 1;
}

static unsigned int dp_nrows(const struct bench_opts *o)
{
	return o->test->depths_def ? o->ndepths : 1;
}

static unsigned int dp_depth(const struct bench_opts *o, unsigned int i)
{
	return o->test->depths_def ? o->depths[i] : 1;
}

/* The forked server: every row's TCP, then iwcm, end. */
static int dp_server_main(const struct bench_opts *o, int ctl)
{
	struct dp_run r;
	unsigned int i;

	for (i = 0; i < dp_nrows(o); i++) {
		dp_run_init(&r, o, dp_depth(o, i), ctl, true);
		dp_tcp_server(&r);
		if (r.ctl_lost)
			return 1;
		dp_run_init(&r, o, dp_depth(o, i), ctl, true);
		dp_iw_server(&r);
		if (r.ctl_lost)
			return 1;
	}
	return 0;
}

static void dp_row_client(const struct bench_opts *o, int ctl,
			  struct dp_row *row)
{
	struct dp_run r;

	dp_run_init(&r, o, row->depth, ctl, false);
	r.lat = row->tcp_lat;
	dp_tcp_client(&r);
	row->tcp_cli = r.side;
	row->tcp_srv = r.peer;
	dp_run_init(&r, o, row->depth, ctl, false);
	r.lat = row->iw_lat;
	dp_iw_client(&r);
	row->iw_cli = r.side;
	row->iw_srv = r.peer;
	row->nego = r.nego;
}

/* ---- figures and output ---- */

/* Aggregate bandwidth of the -q connections. */
static double dp_bw(const struct bench_opts *o, const struct dp_side *s)
{
	if (!s->wall_ns)
		return 0.0;
	return (double)o->iters * (double)o->qps * (double)o->size / MIB /
	       ((double)s->wall_ns / 1e9);
}

/* Latency samples of a row: iters of each of the -q ping-pongs. */
static size_t dp_nlat(const struct bench_opts *o)
{
	return (size_t)o->iters * o->qps;
}

static double dp_mean(const struct bench_opts *o, const uint64_t *lat)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < dp_nlat(o); i++)
		sum += lat[i];
	return bench_us(sum / dp_nlat(o));
}

/* The figure of a latency row: p50, or with -q N the mean over all. */
static double dp_lat_value(const struct bench_opts *o, const uint64_t *lat)
{
	if (o->qps > 1)
		return dp_mean(o, lat);
	return bench_us(bench_percentile(lat, dp_nlat(o), 50));
}

/* Each row's figures and ratio; failures described on stderr. */
static void dp_figures(const struct bench_opts *o, struct dp_row *rows,
		       unsigned int n)
{
	static const char *const what[] = { "tcp client", "tcp server",
					    "iwcm client", "iwcm server" };
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		struct dp_row *w = &rows[i];
		const struct dp_side *s[4] = { &w->tcp_cli, &w->tcp_srv,
					       &w->iw_cli, &w->iw_srv };

		for (j = 0; j < 4; j++) {
			if (s[j]->ok)
				continue;
			w->failed = true;
			if (s[j]->err[0])
				fprintf(stderr,
					"iwcm-bench: %s depth %u: "
					"%s: %s\n",
					o->test->name, w->depth, what[j],
					s[j]->err);
		}
		if (w->failed)
			continue;
		if (dp_is_bw(o->test->dp)) {
			w->tcp_val = dp_bw(o, &w->tcp_cli);
			w->iw_val = dp_bw(o, &w->iw_cli);
		} else {
			qsort(w->tcp_lat, dp_nlat(o), sizeof(uint64_t),
			      bench_cmp_u64);
			qsort(w->iw_lat, dp_nlat(o), sizeof(uint64_t),
			      bench_cmp_u64);
			w->tcp_val = dp_lat_value(o, w->tcp_lat);
			w->iw_val = dp_lat_value(o, w->iw_lat);
		}
		w->ratio = w->tcp_val > 0.0 ? w->iw_val / w->tcp_val : 0.0;
	}
}

/* CPU time of a side as a percentage of one CPU over its span. */
static double dp_util(const struct dp_side *s)
{
	if (!s->wall_ns)
		return 0.0;
	return 100.0 * (double)(s->user_ns + s->sys_ns) / (double)s->wall_ns;
}

static const char *dp_progress_str(const struct bench_opts *o)
{
	return o->event ? "progress thread, waits on a completion channel" :
			  "manual, busy-polling iwcm_progress()";
}

static const char *const dp_what[] = {
	[BENCH_DP_WRITE_BW] = "RDMA Write bandwidth, client to server",
	[BENCH_DP_READ_BW] = "RDMA Read bandwidth, the client reads the "
			     "server",
	[BENCH_DP_SEND_LAT] = "Send ping-pong latency",
	[BENCH_DP_WRITE_LAT] = "RDMA Write ping-pong latency (polling the "
			       "last octet)",
	[BENCH_DP_ATOMIC_LAT] = "FetchAdd latency",
};

static const char *const dp_tcp_what[] = {
	[BENCH_DP_WRITE_BW] = "a stream, client to server",
	[BENCH_DP_READ_BW] = "a stream, server to client",
	[BENCH_DP_SEND_LAT] = "a ping-pong",
	[BENCH_DP_WRITE_LAT] = "a ping-pong",
	[BENCH_DP_ATOMIC_LAT] = "an 8-octet request and reply",
};

static void dp_print_text(const struct bench_opts *o, const struct dp_row *rows,
			  unsigned int n)
{
	enum bench_dp t = o->test->dp;
	bool bw = dp_is_bw(t);
	unsigned int i;

	printf("iwcm-bench %s: %s, 127.0.0.1, %ld CPUs, iwcmd %s\n",
	       o->test->name, dp_what[t], sysconf(_SC_NPROCESSORS_ONLN),
	       o->socket ? o->socket : "started for this run");
	printf("iwcm: MPA rev %u, CRC %s, markers %s, IRD/ORD %d asked; "
	       "progress: %s\n",
	       o->mpa_rev, o->crc ? "on" : "off", o->markers ? "on" : "off",
	       DP_IRD_ORD, dp_progress_str(o));
	for (i = 0; i < n; i++) {
		const struct dp_nego *g = &rows[i].nego;

		if (!g->known)
			continue;
		printf("      negotiated: IRD %u ORD %u, MULPDU %u\n", g->ird,
		       g->ord, g->mulpdu);
		break;
	}
	printf("tcp:  %s, %s %s, TCP_NODELAY\n", dp_tcp_what[t],
	       o->tcp_poll ? "busy-polling non-blocking" :
	       o->qps > 1  ? "non-blocking, poll(2)," :
			     "blocking",
	       o->tcp_gaps ? "readv(2)/writev(2) skipping 4 octets every "
			     "512 of the stream" :
			     "read(2)/write(2)");
	if (o->qps > 1)
		printf("-q %u: %u connections in one context (one progress "
		       "engine, one CQ) against\n%u TCP streams driven by one "
		       "thread per process, all at once\n",
		       o->qps, o->qps, o->qps);
	printf("%lu iterations of %zu octets per row after %lu warm-up; one "
	       "process per side;\n",
	       o->iters, o->size, o->warmup);
	if (bw)
		printf("ratio = iwcm/tcp %sbandwidth (higher is better)\n\n",
		       o->qps > 1 ? "aggregate " : "");
	else if (o->qps > 1)
		printf("ratio = iwcm/tcp mean half round trip over the %u "
		       "ping-pongs (lower is better)\n\n",
		       o->qps);
	else
		printf("ratio = iwcm/tcp typical (p50) half round trip "
		       "(lower is better)\n\n");
	if (bw)
		printf("%-10s %10s %5s %7s %11s %11s %6s %9s %9s\n", "test",
		       "size", "depth", "iters", "iwcm MiB/s", "tcp MiB/s",
		       "ratio", "iwcm cpu%", "tcp cpu%");
	else
		printf("%-10s %10s %7s %8s %8s %6s %8s %8s %9s %9s\n", "test",
		       "size", "iters", o->qps > 1 ? "iwcm avg" : "iwcm us",
		       o->qps > 1 ? "tcp avg" : "tcp us", "ratio", "iwcm p99",
		       "tcp p99", "iwcm cpu%", "tcp cpu%");
	for (i = 0; i < n; i++) {
		const struct dp_row *w = &rows[i];
		char ic[24], tc[24];

		snprintf(ic, sizeof(ic), "%.0f/%.0f", dp_util(&w->iw_cli),
			 dp_util(&w->iw_srv));
		snprintf(tc, sizeof(tc), "%.0f/%.0f", dp_util(&w->tcp_cli),
			 dp_util(&w->tcp_srv));
		if (w->failed && bw) {
			printf("%-10s %10zu %5u %7lu %11s\n", o->test->name,
			       o->size, w->depth, o->iters, "failed");
		} else if (w->failed) {
			printf("%-10s %10zu %7lu %8s\n", o->test->name, o->size,
			       o->iters, "failed");
		} else if (bw) {
			printf("%-10s %10zu %5u %7lu %11.1f %11.1f %6.3f %9s "
			       "%9s\n",
			       o->test->name, o->size, w->depth, o->iters,
			       w->iw_val, w->tcp_val, w->ratio, ic, tc);
		} else {
			printf("%-10s %10zu %7lu %8.2f %8.2f %6.3f %8.2f "
			       "%8.2f %9s %9s\n",
			       o->test->name, o->size, o->iters, w->iw_val,
			       w->tcp_val, w->ratio,
			       bench_us(bench_percentile(w->iw_lat, dp_nlat(o),
							 99)),
			       bench_us(bench_percentile(w->tcp_lat, dp_nlat(o),
							 99)),
			       ic, tc);
		}
	}
	printf("\ncpu%%: CPU time of the client/the server process over its "
	       "timed part,\nall threads, in percent of one CPU\n");
}

static void dp_json_side(const struct bench_opts *o, const struct dp_row *w,
			 bool iw)
{
	const struct dp_side *c = iw ? &w->iw_cli : &w->tcp_cli;
	const struct dp_side *s = iw ? &w->iw_srv : &w->tcp_srv;
	const uint64_t *lat = iw ? w->iw_lat : w->tcp_lat;
	size_t n = dp_nlat(o);

	printf("{\"value\":%.3f,\"seconds\":%.6f,", iw ? w->iw_val : w->tcp_val,
	       (double)c->wall_ns / 1e9);
	if (dp_is_bw(o->test->dp)) {
		printf("\"mib_per_sec\":%.3f,", iw ? w->iw_val : w->tcp_val);
	} else {
		printf("\"latency_us\":{\"min\":%.3f,\"p50\":%.3f,"
		       "\"p99\":%.3f,\"max\":%.3f,\"avg\":%.3f},",
		       bench_us(bench_percentile(lat, n, 0)),
		       bench_us(bench_percentile(lat, n, 50)),
		       bench_us(bench_percentile(lat, n, 99)),
		       bench_us(bench_percentile(lat, n, 100)),
		       dp_mean(o, lat));
	}
	printf("\"cpu\":{\"client\":{\"user\":%.6f,\"sys\":%.6f,"
	       "\"percent\":%.1f},\"server\":{\"user\":%.6f,\"sys\":%.6f,"
	       "\"percent\":%.1f}}",
	       (double)c->user_ns / 1e9, (double)c->sys_ns / 1e9, dp_util(c),
	       (double)s->user_ns / 1e9, (double)s->sys_ns / 1e9, dp_util(s));
	if (iw && w->nego.known)
		printf(",\"negotiated\":{\"mpa_rev\":%d,\"crc\":%s,"
		       "\"markers_tx\":%s,\"markers_rx\":%s,\"ird\":%u,"
		       "\"ord\":%u,\"mulpdu\":%u}",
		       w->nego.mpa_rev, w->nego.crc ? "true" : "false",
		       w->nego.markers_tx ? "true" : "false",
		       w->nego.markers_rx ? "true" : "false", w->nego.ird,
		       w->nego.ord, w->nego.mulpdu);
	printf("}");
}

static void dp_print_json(const struct bench_opts *o, const struct dp_row *rows,
			  unsigned int n)
{
	bool bw = dp_is_bw(o->test->dp);
	unsigned int i;

	printf("{\"test\":\"%s\",\"iters\":%lu,\"warmup\":%lu,\"size\":%zu,"
	       "\"depths\":[",
	       o->test->name, o->iters, o->warmup, o->size);
	for (i = 0; bw && i < n; i++)
		printf("%s%u", i ? "," : "", rows[i].depth);
	printf("],");
	bench_json_host(o);
	printf(",\"baseline\":\"tcp\",\"qps\":%u,\"tcp_io\":\"%s\","
	       "\"tcp_gaps\":%s,"
	       "\"progress\":\"%s\",\"mpa_rev\":%u,\"crc\":%s,"
	       "\"markers\":%s,\"ird_ord\":%d,\"metric\":\"%s\","
	       "\"better\":\"%s\",\"results\":[\n",
	       o->qps,
	       o->tcp_poll ? "poll" :
	       o->qps > 1  ? "multiplexed" :
			     "blocking",
	       o->tcp_gaps ? "true" : "false", o->event ? "event" : "manual",
	       o->mpa_rev, o->crc ? "true" : "false",
	       o->markers ? "true" : "false", DP_IRD_ORD,
	       bw	  ? "mib_per_sec" :
	       o->qps > 1 ? "half_rtt_mean_us" :
			    "half_rtt_p50_us",
	       bw ? "higher" : "lower");
	for (i = 0; i < n; i++) {
		const struct dp_row *w = &rows[i];

		printf("{\"name\":\"%s\",\"size\":%zu,\"depth\":%u,"
		       "\"iterations\":%lu,\"failed\":%s",
		       o->test->name, o->size, w->depth, o->iters,
		       w->failed ? "true" : "false");
		if (!w->failed) {
			printf(",\"iwcm\":");
			dp_json_side(o, w, true);
			printf(",\"tcp\":");
			dp_json_side(o, w, false);
			printf(",\"ratio\":%.4f", w->ratio);
		}
		printf("}%s\n", i + 1 < n ? "," : "");
	}
	printf("]}\n");
}

/* ---- the test ---- */

/* Run a datapath test: fork the server, drive every row, print. */
int dp_bench(const struct bench_opts *o)
{
	unsigned int n = dp_nrows(o), i;
	struct dp_row *rows = calloc(n, sizeof(*rows));
	pid_t parent = getpid(), pid;
	int sv[2], st = 0, rc = 0;
	struct sigaction sa;

	if (!rows) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return 1;
	}
	for (i = 0; i < n; i++) {
		rows[i].depth = dp_depth(o, i);
		if (dp_is_bw(o->test->dp))
			continue;
		rows[i].tcp_lat = calloc(dp_nlat(o), sizeof(uint64_t));
		rows[i].iw_lat = calloc(dp_nlat(o), sizeof(uint64_t));
		if (!rows[i].tcp_lat || !rows[i].iw_lat) {
			fprintf(stderr, "iwcm-bench: out of memory\n");
			rc = 1;
			goto out;
		}
	}
	if (daemon_start(o) < 0) {
		rc = 1;
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("iwcm-bench: socketpair");
		daemon_stop();
		rc = 1;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("iwcm-bench: fork");
		close(sv[0]);
		close(sv[1]);
		daemon_stop();
		rc = 1;
		goto out;
	}
	if (pid == 0) {
		/* The server: the daemon is the parent's to stop. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(1);
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = SIG_DFL;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGHUP, &sa, NULL);
		D.pid = 0;
		close(sv[0]);
		_exit(dp_server_main(o, sv[1]));
	}
	close(sv[1]);
	for (i = 0; i < n; i++)
		dp_row_client(o, sv[0], &rows[i]);
	close(sv[0]);
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr,
			"iwcm-bench: the server process ended with "
			"status %d\n",
			st);
		rc = 1;
	}
	if (daemon_stop() < 0)
		rc = 1;
	dp_figures(o, rows, n);
	for (i = 0; i < n; i++) {
		if (rows[i].failed)
			rc = 1;
	}
	if (o->json)
		dp_print_json(o, rows, n);
	else
		dp_print_text(o, rows, n);
out:
	for (i = 0; i < n; i++) {
		free(rows[i].tcp_lat);
		free(rows[i].iw_lat);
	}
	free(rows);
	return rc;
}
