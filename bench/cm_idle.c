/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * cm --idle N: N connections that never send a byte, held open to a
 * listener of iwcmd through every row, as a flood leaves them.  iwcmd
 * keeps them half-open (no MPA Request) until its request timeout, or
 * sheds them past its halfopen caps; a handshake should cost the same
 * beside them as without them.
 *
 * They come from source addresses 127.1.x.y, CM_IDLE_PER_SOURCE each, to
 * stay under iwcmd's default halfopen_per_source.  The listener belongs
 * to a context of its own that is never read: no Request ever reaches it.
 * At the end, the ones iwcmd has not closed are counted (left).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "cm.h"

/* Under iwcmd's default halfopen_per_source (256). */
#define CM_IDLE_PER_SOURCE 200u
/* Connects in flight at once, under the listener's backlog. */
#define CM_IDLE_BATCH 64u

static struct {
	struct iwcm_ctx *ctx;
	struct iwcm_listener *l;
	int *fd;
	unsigned long n;
} I;

/* The k-th source address: 127.1.0.1, 127.1.0.2, ... */
static void cm_idle_src(struct sockaddr_in *sin, unsigned long k)
{
	unsigned long j = k / CM_IDLE_PER_SOURCE;

	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(0x7F010000u | (uint32_t)(j / 250) << 8 |
				     (uint32_t)(j % 250 + 1));
}

/* Wait until the connects of fds [from, to) are through. */
static int cm_idle_wait(unsigned long from, unsigned long to)
{
	struct pollfd pfd[CM_IDLE_BATCH];
	unsigned long i;
	int err;
	socklen_t len;

	for (i = from; i < to; i++) {
		pfd[i - from].fd = I.fd[i];
		pfd[i - from].events = POLLOUT;
	}
	if (poll(pfd, (nfds_t)(to - from), BENCH_STALL_MS) < 0)
		return -1;
	for (i = from; i < to; i++) {
		len = sizeof(err);
		if (!(pfd[i - from].revents & POLLOUT) ||
		    getsockopt(I.fd[i], SOL_SOCKET, SO_ERROR, &err, &len) < 0 ||
		    err) {
			fprintf(stderr,
				"iwcm-bench: --idle: connection %lu to "
				"iwcmd's listener: %s\n",
				i + 1, err ? strerror(err) : "no answer");
			return -1;
		}
	}
	return 0;
}

/* Open o->idle connections to a listener of iwcmd; 0 or -1 (said). */
int cm_idle_open(const struct bench_opts *o)
{
	struct sockaddr_in dst, src;
	unsigned long i, from = 0;

	if (!o->idle)
		return 0;
	I.fd = malloc(o->idle * sizeof(*I.fd));
	I.ctx = iwcm_ctx_open_path(D.path, IWCM_CTX_NONBLOCK);
	bench_sin_loopback(&dst, 0);
	if (I.ctx)
		I.l = iwcm_listen(I.ctx, (struct sockaddr *)&dst, NULL, NULL,
				  (int)CM_IDLE_BATCH * 2);
	if (!I.fd || !I.l) {
		fprintf(stderr, "iwcm-bench: --idle: a listener at %s: %s\n",
			D.path, I.fd ? strerror(errno) : "out of memory");
		return -1;
	}
	dst.sin_port = htons((uint16_t)iwcm_listener_get_port(I.l));
	for (i = 0; i < o->idle; i++) {
		int fd = socket(AF_INET,
				SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);

		cm_idle_src(&src, i);
		if (fd < 0 ||
		    bind(fd, (struct sockaddr *)&src, sizeof(src)) < 0 ||
		    (connect(fd, (struct sockaddr *)&dst, sizeof(dst)) < 0 &&
		     errno != EINPROGRESS)) {
			fprintf(stderr,
				"iwcm-bench: --idle: connection %lu: %s\n",
				i + 1, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		I.fd[I.n++] = fd;
		if (I.n - from == CM_IDLE_BATCH || I.n == o->idle) {
			if (cm_idle_wait(from, I.n) < 0)
				return -1;
			from = I.n;
		}
	}
	return 0;
}

/* How many iwcmd has not closed (read end still open). */
unsigned long cm_idle_left(void)
{
	unsigned long i, left = 0;
	struct pollfd p;

	for (i = 0; i < I.n; i++) {
		p.fd = I.fd[i];
		p.events = POLLRDHUP;
		p.revents = 0;
		if (poll(&p, 1, 0) == 0)
			left++;
	}
	return left;
}

void cm_idle_close(void)
{
	unsigned long i;

	for (i = 0; i < I.n; i++)
		close(I.fd[i]);
	free(I.fd);
	if (I.l)
		iwcm_listener_close(I.l);
	if (I.ctx)
		iwcm_ctx_close(I.ctx);
	memset(&I, 0, sizeof(I));
}
