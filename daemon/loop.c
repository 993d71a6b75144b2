/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's event loop, with busy polling (busy_poll_us and
 * adaptive_poll_us in iwcmd.conf(5)).
 *
 * A handshake through iwcmd is a chain of short steps between the daemon
 * and its clients (Connect, ConnectRequest, Accept, Established), each a
 * few microseconds of work.  When the loop sleeps between them, each step
 * also pays for waking a CPU that went idle, which on a virtual machine
 * costs more than the step (a round trip over a UNIX socket between two
 * idle CPUs: about 200 us here, 10 us when neither sleeps).  So after an
 * exchange with a client the loop may keep polling without blocking, as
 * net.core.busy_poll does for sockets: latency for CPU.
 *
 * busy_poll_us set, it polls that long after every exchange.  Otherwise
 * it polls for an adaptive window, as the kernel's cpuidle-haltpoll
 * governor does for an idle virtual CPU: the window starts at 0; when the
 * loop slept and the next event came within adaptive_poll_us of the last
 * exchange (a longer window would have caught it), the window doubles
 * from POLL_ADAPT_START_US up to adaptive_poll_us; when it came later,
 * the window halves, down to 0.  A client that answers at once keeps the
 * loop awake; one that answers slowly, or not at all, costs at most a
 * few windows.  With one CPU to run on (sched_getaffinity(2) at start),
 * polling would only keep the client from the CPU, and the adaptive
 * window stays 0.
 */
#include "config.h"

#include <sched.h>
#include <stdbool.h>
#include <time.h>

#include "iwcmd.h"
#include "poll_adapt.h"

static bool loop_stopping;
static bool loop_worked;
static unsigned int loop_win; /* the adaptive window, us */
static bool loop_one_cpu;

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

/* The adaptive window's limit now: 0 when it is off. */
static unsigned int loop_adapt_max(void)
{
	if (iwcmd_conf->busy_poll_us || loop_one_cpu)
		return 0;
	return iwcmd_conf->adaptive_poll_us;
}

/* Poll without sleeping until no client message has come or gone for
 * win_us; the time of the last one in *last. */
static int loop_spin(struct event_base *base, unsigned int win_us,
		     uint64_t *last)
{
	uint64_t start = loop_now_us(), now;
	int rc = 0;

	*last = start;
	for (;;) {
		loop_worked = false;
		if (event_base_loop(base, EVLOOP_NONBLOCK) < 0) {
			rc = -1;
			break;
		}
		if (loop_stopping)
			break;
		now = loop_now_us();
		if (loop_worked)
			*last = now;
		else if (now - *last >= win_us)
			break;
	}
	iwcmd_stats.loop_poll_us += loop_now_us() - start;
	return rc;
}

int loop_run(struct event_base *base)
{
	uint64_t last = 0;	 /* the last exchange before a sleep */
	bool adapt_next = false; /* adapt the window at the next wake */
	cpu_set_t cpus;
	int rc;

	loop_one_cpu = sched_getaffinity(0, sizeof(cpus), &cpus) == 0 &&
		       CPU_COUNT(&cpus) < 2;
	loop_win = 0;
	loop_stopping = false;
	while (!loop_stopping) {
		unsigned int max, win;

		/* sleeps until something is ready, runs it, returns */
		loop_worked = false;
		rc = event_base_loop(base, EVLOOP_ONCE);
		if (rc != 0)
			return rc < 0 ? -1 :
					0; /* 1: nothing left to wait for */
		max = loop_adapt_max();
		if (adapt_next)
			loop_win =
				poll_adapt(loop_win, loop_now_us() - last, max);
		adapt_next = false;
		if (loop_stopping || !loop_worked)
			continue;
		win = iwcmd_conf->busy_poll_us;
		if (!win)
			win = loop_win < max ? loop_win : max;
		if (!win)
			last = loop_now_us();
		else if (loop_spin(base, win, &last) < 0)
			return -1;
		adapt_next = max != 0;
	}
	return 0;
}

unsigned int loop_window_us(void)
{
	return loop_win;
}
