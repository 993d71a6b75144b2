/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The raw usrsctp baseline of the datapath rows with --transport sctp:
 * the path a program would take instead of iwcm, two processes
 * exchanging messages directly over usrsctp (sctp_raw.c: each process
 * its own stack and UDP port, RFC 6951 encapsulation on loopback, a
 * one-to-one association, every message unordered with PPID 16).
 *
 * SCTP never fragments here (RFC 5043 §9), so a message of SIZE goes
 * as messages of the segment size iwcmd uses on the same path, the last
 * one shorter: the bytes iwcm moves in DDP Segments, without the DDP
 * and RDMAP headers.  The shapes are those of the TCP baseline (dp.c):
 * a stream one way for the bandwidth tests, a ping-pong of SIZE for
 * send_lat, an 8-octet request and reply for atomic_lat.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "dp.h"
#include "sctp_raw.h"

/*
 * Room behind a stream's receive buffer for one more message: unordered
 * delivery may hand over a message of the next SIZE before the last,
 * shorter one of the current SIZE.
 */
#define DP_SCTP_SLACK 65536

/* Send len octets as messages of at most the segment size. */
static int dp_sctp_out(struct dp_run *r, struct socket *so, const uint8_t *p,
		       size_t len)
{
	while (len) {
		size_t n = len < r->seg ? len : r->seg;

		if (sraw_send(so, p, n, r->o->stall_ms) < 0) {
			dp_side_fail(&r->side, "usrsctp send: %s",
				     errno == ETIMEDOUT ?
					     "no room for the stall time" :
					     strerror(errno));
			return -1;
		}
		p += n;
		len -= n;
	}
	return 0;
}

/* Receive messages until len octets came, placed one after another. */
static int dp_sctp_in(struct dp_run *r, struct socket *so, uint8_t *p,
		      size_t len)
{
	while (len) {
		ssize_t k = sraw_recv(so, p, len, r->o->stall_ms);

		if (k < 0) {
			dp_side_fail(&r->side, "usrsctp receive: %s",
				     errno == ETIMEDOUT ?
					     "nothing for the stall time" :
				     errno == ECONNRESET ?
					     "association closed" :
					     strerror(errno));
			return -1;
		}
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

static int dp_sctp_source(struct dp_run *r, struct socket *so,
			  const uint8_t *src, unsigned long count)
{
	unsigned long i;

	for (i = 0; i < count; i++) {
		if (dp_sctp_out(r, so, src, r->o->size) < 0)
			return -1;
	}
	return 0;
}

/*
 * count messages of SIZE, each landing at the start of buf (of SIZE and
 * the slack): the octets are counted, not which SIZE they belong to,
 * since unordered messages may cross from one SIZE to the next.
 */
static int dp_sctp_sink(struct dp_run *r, struct socket *so, uint8_t *buf,
			unsigned long count)
{
	uint64_t left = (uint64_t)count * r->o->size;
	size_t pos = 0;

	while (left) {
		ssize_t k = sraw_recv(so, buf + pos,
				      r->o->size - pos + DP_SCTP_SLACK,
				      r->o->stall_ms);

		if (k < 0) {
			dp_side_fail(&r->side, "usrsctp receive: %s",
				     errno == ETIMEDOUT ?
					     "nothing for the stall time" :
				     errno == ECONNRESET ?
					     "association closed" :
					     strerror(errno));
			return -1;
		}
		if ((uint64_t)k > left) {
			dp_side_fail(&r->side,
				     "usrsctp receive: %zu octets "
				     "more than were sent",
				     (size_t)k - (size_t)left);
			return -1;
		}
		pos = (pos + (size_t)k) % r->o->size;
		left -= (uint64_t)k;
	}
	return 0;
}

/* The server's end: a stream in, a stream out or the echo. */
static void dp_sctp_serve(struct dp_run *r, struct socket *so, uint8_t *buf,
			  uint8_t *src)
{
	unsigned long i, total = r->warm + r->n;
	uint64_t word = DP_ATOMIC_INIT, add;
	struct dp_mark a = { 0 }, b = { 0 };
	uint8_t go;

	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (dp_sctp_sink(r, so, buf, r->warm) < 0)
			return;
		dp_side_mark(&a);
		if (dp_sctp_sink(r, so, buf, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	case BENCH_DP_READ_BW:
		if (dp_sctp_in(r, so, &go, 1) < 0 ||
		    dp_sctp_source(r, so, src, r->warm) < 0 ||
		    dp_sctp_in(r, so, &go, 1) < 0)
			return;
		dp_side_mark(&a);
		if (dp_sctp_source(r, so, src, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	case BENCH_DP_ATOMIC_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_sctp_in(r, so, (uint8_t *)&add, 8) < 0 ||
			    dp_sctp_out(r, so, (uint8_t *)&word, 8) < 0)
				return;
			word += add;
		}
		dp_side_mark(&b);
		if (word != DP_ATOMIC_INIT + total * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "usrsctp: the word is %#llx",
				     (unsigned long long)word);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_sctp_in(r, so, buf, r->o->size) < 0 ||
			    dp_sctp_out(r, so, src, r->o->size) < 0)
				return;
		}
		dp_side_mark(&b);
		dp_side_verify(&r->side, "usrsctp ping", buf, r->o->size);
		break;
	}
	dp_side_span(&r->side, &a, &b);
}

/* The client's end, timing each round trip of the latency tests. */
static void dp_sctp_drive(struct dp_run *r, struct socket *so, uint8_t *buf,
			  uint8_t *src)
{
	unsigned long i, total = r->warm + r->n;
	uint64_t add = DP_ATOMIC_ADD, word = 0, t0;
	struct dp_mark a = { 0 }, b = { 0 };
	uint8_t go = 1;
	int k;

	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (dp_sctp_source(r, so, src, r->warm) < 0)
			return;
		dp_side_mark(&a);
		if (dp_sctp_source(r, so, src, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	case BENCH_DP_READ_BW:
		if (dp_sctp_out(r, so, &go, 1) < 0 ||
		    dp_sctp_sink(r, so, buf, r->warm) < 0)
			return;
		dp_side_mark(&a);
		if (dp_sctp_out(r, so, &go, 1) < 0 ||
		    dp_sctp_sink(r, so, buf, r->n) < 0)
			return;
		dp_side_mark(&b);
		break;
	default:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			t0 = bench_now_ns();
			if (r->t == BENCH_DP_ATOMIC_LAT)
				k = dp_sctp_out(r, so, (uint8_t *)&add, 8) ||
				    dp_sctp_in(r, so, (uint8_t *)&word, 8);
			else
				k = dp_sctp_out(r, so, src, r->o->size) ||
				    dp_sctp_in(r, so, buf, r->o->size);
			if (k)
				return;
			if (i >= r->warm)
				r->lat[i - r->warm] = (bench_now_ns() - t0) / 2;
		}
		dp_side_mark(&b);
		if (r->t != BENCH_DP_ATOMIC_LAT)
			dp_side_verify(&r->side, "usrsctp pong", buf,
				       r->o->size);
		else if (word != DP_ATOMIC_INIT + (total - 1) * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "usrsctp: fetched %#llx",
				     (unsigned long long)word);
		break;
	}
	dp_side_span(&r->side, &a, &b);
}

/* This process's usrsctp, started on first use; -1 (failed) if not. */
static int dp_sctp_start(struct dp_run *r)
{
	char err[160];

	if (sraw_start(err, sizeof(err)) < 0) {
		dp_side_fail(&r->side, "%s", err);
		return -1;
	}
	return 0;
}

/* The accepted association, waiting at most the stall time. */
static struct socket *dp_sctp_accept(struct dp_run *r, struct socket *l)
{
	uint64_t end = bench_now_ns() + r->o->stall_ms * 1000000ULL;
	struct socket *so;

	while (!(so = sraw_accept(l))) {
		if (errno != EWOULDBLOCK && errno != EAGAIN) {
			dp_side_fail(&r->side, "usrsctp accept: %s",
				     strerror(errno));
			return NULL;
		}
		if (bench_now_ns() > end || !sraw_wait(r->o->stall_ms)) {
			dp_side_fail(&r->side, "usrsctp accept: no "
					       "association for the stall "
					       "time");
			return NULL;
		}
	}
	return so;
}

/* The server's baseline of a row: listen, accept, serve. */
void dp_sctp_server(struct dp_run *r)
{
	uint8_t *buf = NULL, *src = NULL;
	struct socket *l = NULL, *so = NULL;
	uint16_t port = 0;

	if (dp_side_bufs(r, DP_SCTP_SLACK, &buf, &src) < 0 ||
	    dp_sctp_start(r) < 0) {
		dp_ctl_port(r, 0);
		goto out;
	}
	l = sraw_listen(&port);
	if (!l) {
		dp_side_fail(&r->side, "usrsctp listener on 127.0.0.1: %s",
			     strerror(errno));
		dp_ctl_port(r, 0);
		goto out;
	}
	dp_ctl_port_aux(r, sraw_udp_port(), port);
	so = dp_sctp_accept(r, l);
	sraw_close(l, false);
	if (so) {
		r->seg = sraw_maxseg(so);
		dp_sctp_serve(r, so, buf, src);
	}
	if (!r->side.ok && so) {
		sraw_close(so, true);
		so = NULL;
	}
	dp_ctl_finish(r);
	sraw_close(so, false);
out:
	free(buf);
	free(src);
}

/* The client's baseline of a row: associate, drive. */
void dp_sctp_client(struct dp_run *r)
{
	uint8_t *buf = NULL, *src = NULL;
	uint16_t udp_port = dp_ctl_wait_port(r);
	uint64_t end = bench_now_ns() + r->o->stall_ms * 1000000ULL;
	struct socket *so = NULL;

	if (!udp_port)
		return;
	if (dp_side_bufs(r, DP_SCTP_SLACK, &buf, &src) < 0 ||
	    dp_sctp_start(r) < 0)
		goto fin;
	so = sraw_socket();
	if (!so || sraw_connect(so, udp_port, (uint16_t)r->ctl_aux) < 0) {
		dp_side_fail(&r->side, "usrsctp connect: %s", strerror(errno));
		goto fin;
	}
	while (!sraw_connected(so)) {
		if (bench_now_ns() > end || !sraw_wait(r->o->stall_ms)) {
			dp_side_fail(&r->side, "usrsctp connect: no "
					       "association for the stall "
					       "time");
			goto fin;
		}
	}
	r->seg = sraw_maxseg(so);
	dp_sctp_drive(r, so, buf, src);
fin:
	if (!r->side.ok && so) {
		sraw_close(so, true);
		so = NULL;
	}
	dp_ctl_finish(r);
	sraw_close(so, false);
	free(buf);
	free(src);
}

/* The end of a process: its usrsctp stack, if it started one. */
void dp_sctp_stop(void)
{
	sraw_stop();
}
