/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's event loop, with optional busy polling (busy_poll_us in
 * iwcmd.conf(5)).
 *
 * A handshake through iwcmd is a chain of short steps between the daemon
 * and its clients (Connect, ConnectRequest, Accept, Established), each a
 * few microseconds of work.  When the loop sleeps between them, each step
 * also pays for waking a CPU that went idle, which on a virtual machine
 * costs more than the step (a round trip over a UNIX socket between two
 * idle CPUs: about 200 us here, 10 us when neither sleeps).  With
 * busy_poll_us set, the loop keeps polling without blocking for that long
 * after it last exchanged a message with a client, as net.core.busy_poll
 * does for sockets: latency for CPU.  0, the default, always sleeps.
 */
#include "config.h"

#include <stdbool.h>
#include <time.h>

#include "iwcmd.h"

static bool loop_stopping;
static bool loop_worked;

void loop_note_work(void)
{
	loop_worked = true;
}

void loop_stop(void)
{
	loop_stopping = true;
	/* what is active now still runs, as with event_base_dispatch() */
	event_base_loopexit(iwcmd_base, NULL);
}

static uint64_t loop_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000u + (uint64_t)t.tv_nsec / 1000u;
}

/* Poll without sleeping until no client message has come or gone for
 * busy_poll_us. */
static int loop_spin(struct event_base *base)
{
	uint64_t last = loop_now_us(), now;

	for (;;) {
		loop_worked = false;
		if (event_base_loop(base, EVLOOP_NONBLOCK) < 0)
			return -1;
		if (loop_stopping)
			return 0;
		now = loop_now_us();
		if (loop_worked)
			last = now;
		else if (now - last >= iwcmd_conf->busy_poll_us)
			return 0;
	}
}

int loop_run(struct event_base *base)
{
	int rc;

	loop_stopping = false;
	while (!loop_stopping) {
		/* sleeps until something is ready, runs it, returns */
		loop_worked = false;
		rc = event_base_loop(base, EVLOOP_ONCE);
		if (rc != 0)
			return rc < 0 ? -1 :
					0; /* 1: nothing left to wait for */
		if (!loop_stopping && iwcmd_conf->busy_poll_us && loop_worked &&
		    loop_spin(base) < 0)
			return -1;
	}
	return 0;
}
