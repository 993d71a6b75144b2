/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What one process measured of one run: the first failure, the wall and
 * CPU time of its timed part, and the data pattern it sends and checks.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>

#include "bench.h"
#include "dp.h"

/* Mark a side failed; the first reason is kept. */
void dp_side_fail(struct dp_side *s, const char *fmt, ...)
{
	va_list ap;

	if (!s->ok)
		return;
	s->ok = 0;
	va_start(ap, fmt);
	vsnprintf(s->err, sizeof(s->err), fmt, ap);
	va_end(ap);
}

static uint64_t tv_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * NS_PER_S + (uint64_t)tv->tv_usec * 1000;
}

/* Now, the CPU time of every thread of this process, and of iwcmd. */
void dp_side_mark(struct dp_mark *m)
{
	struct rusage ru;

	m->t = bench_now_ns();
	if (getrusage(RUSAGE_SELF, &ru) == 0) {
		m->user = tv_ns(&ru.ru_utime);
		m->sys = tv_ns(&ru.ru_stime);
	} else {
		m->user = m->sys = 0;
	}
	m->daemon = D.peer_pid ? bench_cpu_ns(D.peer_pid) : 0;
}

/* The wall and CPU time between two marks as the side's figures. */
void dp_side_span(struct dp_side *s, const struct dp_mark *a,
		  const struct dp_mark *b)
{
	s->wall_ns = b->t - a->t;
	s->user_ns = b->user - a->user;
	s->sys_ns = b->sys - a->sys;
	s->daemon_known = a->daemon && b->daemon >= a->daemon;
	s->daemon_ns = s->daemon_known ? b->daemon - a->daemon : 0;
}

/* The pattern of octet i: a hash of i, so that no shift goes unseen. */
static uint8_t dp_side_pat(size_t i)
{
	return (uint8_t)(((uint32_t)i * 2654435761u) >> 24);
}

static void dp_side_fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = dp_side_pat(i);
}

/* The first octet of p[0..n) off the pattern, or n. */
static size_t dp_side_check(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] != dp_side_pat(i))
			break;
	}
	return i;
}

/* Fail the side when p[0..n) is off the pattern, naming the octet. */
void dp_side_verify(struct dp_side *s, const char *what, const uint8_t *p,
		    size_t n)
{
	size_t i = dp_side_check(p, n);

	if (i < n)
		dp_side_fail(s, "%s: octet %zu of %zu is 0x%02x, not 0x%02x",
			     what, i, n, p[i], dp_side_pat(i));
}

/* A page-aligned buffer of n octets, the pattern or zeros; NULL if n 0. */
uint8_t *dp_side_alloc(struct dp_side *s, size_t n, bool pattern)
{
	void *p = NULL;
	int e;

	if (!n)
		return NULL;
	e = posix_memalign(&p, 4096, n);
	if (e) {
		dp_side_fail(s, "%zu octets: %s", n, strerror(e));
		return NULL;
	}
	if (pattern)
		dp_side_fill(p, n);
	else
		memset(p, 0, n);
	return p;
}

/*
 * The buffers of a baseline run: *buf receives, *src sends.  A stream
 * (write_bw, read_bw) reads on one end only and writes on the other,
 * its reading end with slack octets more; a ping-pong does both; the
 * atomic test neither (its word is its own).  0, or -1 (said).
 */
int dp_side_bufs(struct dp_run *r, size_t slack, uint8_t **buf, uint8_t **src)
{
	bool rd = r->t != BENCH_DP_ATOMIC_LAT, wr = rd;

	if (r->t == BENCH_DP_WRITE_BW) {
		rd = r->server;
		wr = !r->server;
	} else if (r->t == BENCH_DP_READ_BW) {
		rd = !r->server;
		wr = r->server;
	}
	if (!dp_is_bw(r->t))
		slack = 0;
	*buf = rd ? dp_side_alloc(&r->side, r->o->size + slack, false) : NULL;
	*src = wr ? dp_side_alloc(&r->side, r->o->size, true) : NULL;
	return r->side.ok ? 0 : -1;
}
