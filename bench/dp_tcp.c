/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The raw TCP baseline of every datapath row over 127.0.0.1 (dp.c
 * describes it): one stream with blocking or busy-polled read(2) and
 * write(2), or with -q N, N streams driven by one thread.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "bench.h"
#include "dp.h"

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
		dp_side_fail(&r->side, "TCP %s: no progress for %u ms",
			     wr ? "write" : "read", r->o->stall_ms);
	else
		dp_side_fail(&r->side, "TCP %s: %s", wr ? "write" : "read",
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
static int dp_tcp_gap_iov(uint64_t off, uint8_t *p, size_t len,
			  struct iovec *iov)
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
		int cnt = dp_tcp_gap_iov(r->tcp_off, p, len, iov);
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
		dp_side_mark(&a);
		if (dp_tcp_sink(r, fd, buf, r->n) < 0)
			return;
		dp_side_mark(&b);
		dp_side_verify(&r->side, "TCP stream", buf, r->o->size);
		break;
	case BENCH_DP_READ_BW:
		if (dp_tcp_io(r, fd, &go, 1, false) < 0 ||
		    dp_tcp_source(r, fd, src, r->warm) < 0 ||
		    dp_tcp_io(r, fd, &go, 1, false) < 0)
			return;
		dp_side_mark(&a);
		if (dp_tcp_source(r, fd, src, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	case BENCH_DP_ATOMIC_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_tcp_io(r, fd, &add, 8, false) < 0 ||
			    dp_tcp_io(r, fd, &word, 8, true) < 0)
				return;
			word += add;
		}
		dp_side_mark(&b);
		if (word != DP_ATOMIC_INIT + total * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "TCP: the word is %#llx",
				     (unsigned long long)word);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_tcp_io(r, fd, buf, r->o->size, false) < 0 ||
			    dp_tcp_io(r, fd, src, r->o->size, true) < 0)
				return;
		}
		dp_side_mark(&b);
		dp_side_verify(&r->side, "TCP ping", buf, r->o->size);
		break;
	}
	dp_side_span(&r->side, &a, &b);
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
		dp_side_mark(&a);
		if (dp_tcp_source(r, fd, src, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	case BENCH_DP_READ_BW:
		if (dp_tcp_io(r, fd, &go, 1, true) < 0 ||
		    dp_tcp_sink(r, fd, buf, r->warm) < 0)
			return;
		dp_side_mark(&a);
		if (dp_tcp_io(r, fd, &go, 1, true) < 0 ||
		    dp_tcp_sink(r, fd, buf, r->n) < 0)
			return;
		dp_side_mark(&b);
		dp_side_verify(&r->side, "TCP stream", buf, r->o->size);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
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
		dp_side_mark(&b);
		if (r->t != BENCH_DP_ATOMIC_LAT)
			dp_side_verify(&r->side, "TCP pong", buf, r->o->size);
		else if (word != DP_ATOMIC_INIT + (total - 1) * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "TCP: fetched %#llx",
				     (unsigned long long)word);
		break;
	}
	dp_side_span(&r->side, &a, &b);
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
		dp_side_fail(&r->side, "TCP %s: %s", s->wr ? "write" : "read",
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
			dp_side_fail(&r->side, "TCP: no progress for %u ms",
				     r->o->stall_ms);
			return -1;
		}
		if (k < 0) {
			dp_side_fail(&r->side, "poll: %s", strerror(errno));
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
			st[i].buf = dp_side_alloc(&r->side, r->o->size, false);
		if (i && src)
			st[i].src = dp_side_alloc(&r->side, r->o->size, true);
	}
	if (!r->side.ok)
		goto out;
	if (r->t == BENCH_DP_WRITE_BW) {
		if (dp_tcp_multi(r, st, q, r->warm) < 0)
			goto out;
		dp_side_mark(&a);
		if (dp_tcp_multi(r, st, q, r->warm + r->n) < 0)
			goto out;
		dp_side_mark(&b);
		for (i = 0; r->server && i < q && r->side.ok; i++)
			dp_side_verify(&r->side, "TCP streams", st[i].buf,
				       r->o->size);
	} else {
		dp_side_mark(&a);
		if (dp_tcp_multi(r, st, q, r->warm + r->n) < 0)
			goto out;
		dp_side_mark(&b);
		for (i = 0; i < q && r->side.ok; i++)
			dp_side_verify(&r->side,
				       r->server ? "TCP pings" : "TCP pongs",
				       st[i].buf, r->o->size);
	}
	dp_side_span(&r->side, &a, &b);
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

/* The server's TCP baseline of a row: listen, accept, serve. */
void dp_tcp_server(struct dp_run *r)
{
	struct sockaddr_in addr;
	struct pollfd p;
	uint8_t *buf = NULL, *src = NULL;
	int lfd, fd = -1, k = 0, fds[BENCH_QPS_MAX];
	unsigned int nfd = 0;

	if (dp_side_bufs(r, 0, &buf, &src) < 0) {
		dp_ctl_port(r, 0);
		goto out;
	}
	lfd = bench_tcp_listen(&addr);
	if (lfd < 0) {
		dp_side_fail(&r->side, "TCP listener on 127.0.0.1: %s",
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
		dp_side_fail(&r->side, "TCP accept: no connection for %u ms",
			     r->o->stall_ms);
	else if (fd < 0)
		dp_side_fail(&r->side, "TCP accept: %s", strerror(errno));
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

/* The client's TCP baseline of a row: connect, drive. */
void dp_tcp_client(struct dp_run *r)
{
	struct sockaddr_in sin;
	uint8_t *buf = NULL, *src = NULL;
	uint16_t port = dp_ctl_wait_port(r);
	/* Zeroed only for GCC 12's -Wmaybe-uninitialized (fds[0..nfd) is
	 * all that is read). */
	int fd = -1, fds[BENCH_QPS_MAX] = { 0 };
	unsigned int nfd = 0;

	if (!port)
		return;
	if (dp_side_bufs(r, 0, &buf, &src) == 0) {
		bench_sin_loopback(&sin, port);
		while (nfd < r->o->qps) {
			fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0 || connect(fd, (struct sockaddr *)&sin,
					      sizeof(sin)) < 0) {
				dp_side_fail(&r->side, "TCP connect: %s",
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
