/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * A context's adaptive polling window (iwcm_ctx_poll_us(3)), the client's
 * half of what iwcmd's loop does with adaptive_poll_us (poll_adapt.h).
 *
 * A handshake through iwcmd is a chain of exchanges between the daemon
 * and its clients (Connect, ConnectRequest, Accept, Established).  A
 * client that sleeps in poll(2) after each of its messages pays for
 * waking an idle CPU before it can take the next, on a virtual machine
 * more than the exchange itself costs; and iwcmd, which keeps polling for
 * a while after each exchange, burns that wait too.  So the context
 * keeps a window: the time after its last exchange with the daemon (a
 * message sent or received) during which a waiter polls instead of
 * sleeping.  When a message came that the window did not catch (the
 * channel was found empty after the last exchange, so the waiter slept
 * or went elsewhere), poll_adapt() doubles the window if a window within
 * the limit would have caught it and halves it if none would.  A context
 * that exchanges nothing never polls.
 *
 * The limit is IWCM_POLL_US (microseconds, 0 to IWCM_POLL_US_MAX, 0
 * turns it off), IWCM_POLL_US_DEFAULT without it, and 0 when the
 * calling thread may run on one CPU only: polling would then only keep
 * the daemon from that CPU.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"
#include "poll_adapt.h"

uint64_t ctx_poll_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* The limit a value of IWCM_POLL_US names; -1 with EINVAL when it is
 * not a decimal number from 0 to IWCM_POLL_US_MAX. */
int ctx_poll_parse(const char *s, unsigned int *limit)
{
	return env_uint_parse(s, IWCM_POLL_US_MAX, limit);
}

int ctx_poll_init(struct iwcm_ctx *ctx)
{
	const char *s = secure_getenv("IWCM_POLL_US");
	unsigned int limit = IWCM_POLL_US_DEFAULT;
	cpu_set_t cpus;

	if (s && ctx_poll_parse(s, &limit) < 0)
		return -1;
	if (sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
	    CPU_COUNT(&cpus) < 2)
		limit = 0;
	ctx->poll_max = limit;
	ctx->poll_win = 0;
	ctx->poll_last = 0;
	ctx->poll_idle = false;
	return 0;
}

void ctx_poll_sent(struct iwcm_ctx *ctx, uint64_t now)
{
	ctx->poll_last = now;
}

void ctx_poll_empty(struct iwcm_ctx *ctx)
{
	ctx->poll_idle = true;
}

void ctx_poll_received(struct iwcm_ctx *ctx, uint64_t now)
{
	uint64_t gap = now - ctx->poll_last;

	/* Adapt only to a message the window did not catch. */
	if (ctx->poll_idle && gap > ctx->poll_win)
		ctx->poll_win = poll_adapt(ctx->poll_win, gap, ctx->poll_max);
	ctx->poll_idle = false;
	ctx->poll_last = now;
}

unsigned int ctx_poll_left(const struct iwcm_ctx *ctx, uint64_t now)
{
	uint64_t since = now - ctx->poll_last;
	unsigned int win = ctx->poll_win < ctx->poll_max ? ctx->poll_win :
							   ctx->poll_max;

	return since < win ? (unsigned int)(win - since) : 0;
}

int ctx_poll_sock(struct iwcm_ctx *ctx, int timeout_ms)
{
	struct pollfd pfd = { .fd = ctx->sock, .events = POLLIN };
	int r;

	while (ctx_poll_left(ctx, ctx_poll_now())) {
		r = poll(&pfd, 1, 0);
		if (r != 0)
			return r;
		poll_adapt_pace();
	}
	return poll(&pfd, 1, timeout_ms);
}

/* How long the caller's loop should poll before it sleeps. */
IWCM_EXPORT unsigned int iwcm_ctx_poll_us(const struct iwcm_ctx *ctx)
{
	if (!ctx) {
		errno = EINVAL;
		return 0;
	}
	return ctx_poll_left(ctx, ctx_poll_now());
}

/* The environment variable a context refuses, with its value and range. */
IWCM_EXPORT const char *iwcm_env_error(void)
{
	static __thread char text[128];
	const char *s = getenv("IWCM_POLL_US");
	unsigned int v;

	if (s && ctx_poll_parse(s, &v) < 0) {
		snprintf(text, sizeof(text), "IWCM_POLL_US '%.40s' (0 to %u)",
			 s, IWCM_POLL_US_MAX);
		return text;
	}
	s = getenv("IWCM_PROGRESS_IDLE_US");
	if (s && cprog_idle_parse(s, &v) < 0) {
		snprintf(text, sizeof(text),
			 "IWCM_PROGRESS_IDLE_US '%.40s' (0 to %u)", s,
			 CPROG_IDLE_US_MAX);
		return text;
	}
	return NULL;
}
