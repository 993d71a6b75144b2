/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * loop.c, the daemon's event loop (busy_poll_us and adaptive_poll_us in
 * iwcmd.conf(5)).  Whether the loop slept shows in the voluntary context
 * switches of its thread (getrusage): blocking in epoll_wait with nothing
 * ready is one, polling without sleeping is none.  A message "from a
 * client" is a byte on a pipe whose callback calls loop_note_work(), as
 * control.c does.
 */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include "common.h"

#include "iwcmd.h"

/* main.c's globals */
struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

static struct iwcmd_conf conf;
static int pfd[2];
static struct event *ev_msg, *ev_timer, *ev_stop;
static long nvcsw_at_msg, nvcsw_at_timer;
static int n_msgs, n_timers;

static long nvcsw(void)
{
	struct rusage ru;

	ck_assert_int_eq(getrusage(RUSAGE_THREAD, &ru), 0);
	return ru.ru_nvcsw;
}

/* A client's message: the loop stays awake busy_poll_us after it. */
static void on_msg(evutil_socket_t fd, short what, void *arg)
{
	char b;

	(void)what;
	(void)arg;
	ck_assert_int_eq(read(fd, &b, 1), 1);
	n_msgs++;
	loop_note_work();
	nvcsw_at_msg = nvcsw();
}

/* Due a little after the message. */
static void on_timer(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	n_timers++;
	nvcsw_at_timer = nvcsw();
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	loop_stop();
}

static void setup(unsigned int busy_poll_us)
{
	conf_defaults(&conf);
	conf.busy_poll_us = busy_poll_us;
	conf.adaptive_poll_us = 0;
	iwcmd_conf = &conf;
	iwcmd_base = control_base_new();
	ck_assert_ptr_nonnull(iwcmd_base);
	ck_assert_int_eq(pipe(pfd), 0);
	ev_msg = event_new(iwcmd_base, pfd[0], EV_READ | EV_PERSIST, on_msg,
			   NULL);
	ev_timer = evtimer_new(iwcmd_base, on_timer, NULL);
	ev_stop = evtimer_new(iwcmd_base, on_stop, NULL);
	ck_assert_int_eq(event_add(ev_msg, NULL), 0);
}

static void teardown(void)
{
	event_free(ev_msg);
	event_free(ev_timer);
	event_free(ev_stop);
	event_base_free(iwcmd_base);
	iwcmd_base = NULL;
	close(pfd[0]);
	close(pfd[1]);
}

static void arm(struct event *ev, long us)
{
	struct timeval tv = { us / 1000000, us % 1000000 };

	ck_assert_int_eq(evtimer_add(ev, &tv), 0);
}

/*
 * A message, then a timer due 20 ms later: with busy polling of 200 ms
 * the timer fires without the loop having slept (no voluntary switch
 * between the two); without, the loop sleeps until it is due.
 */
START_TEST(test_awake_after_work)
{
	unsigned int busy = _i ? 200000 : 0;

	setup(busy);
	ck_assert_int_eq(write(pfd[1], "m", 1), 1);
	arm(ev_timer, 20000);
	arm(ev_stop, 60000);
	ck_assert_int_eq(loop_run(iwcmd_base), 0);
	ck_assert_int_eq(n_msgs, 1);
	ck_assert_int_eq(n_timers, 1);
	if (busy)
		ck_assert_int_eq(nvcsw_at_timer, nvcsw_at_msg);
	else
		ck_assert_int_gt(nvcsw_at_timer, nvcsw_at_msg);
	teardown();
}
END_TEST

/*
 * Busy polling ends busy_poll_us after the last message: with 5 ms of
 * it, a timer due 100 ms after the message finds the loop asleep.  Work
 * that does not come from a client (this timer) does not keep it awake.
 */
START_TEST(test_sleeps_when_quiet)
{
	setup(5000);
	ck_assert_int_eq(write(pfd[1], "m", 1), 1);
	arm(ev_timer, 100000);
	arm(ev_stop, 150000);
	ck_assert_int_eq(loop_run(iwcmd_base), 0);
	ck_assert_int_eq(n_timers, 1);
	ck_assert_int_gt(nvcsw_at_timer, nvcsw_at_msg);
	teardown();
}
END_TEST

/* loop_stop() from a callback ends loop_run() whether it polls or
 * sleeps; so does a loop with nothing left to wait for. */
START_TEST(test_stop)
{
	setup(_i ? 1000000 : 0);
	ck_assert_int_eq(write(pfd[1], "m", 1), 1);
	arm(ev_stop, 10000);
	ck_assert_int_eq(loop_run(iwcmd_base), 0);
	ck_assert_int_eq(n_msgs, 1);
	event_del(ev_msg);
	ck_assert_int_eq(loop_run(iwcmd_base), 0);
	teardown();
}
END_TEST

/*
 * A client on another thread answers each message of the loop after
 * A.gap_us (the loop writes a byte on A.ack; the client sleeps, then
 * writes the next message), A.fast rounds, then A.slow rounds after
 * 20 ms.  Counted: the fast rounds after which the loop slept.
 */
static struct {
	int ack[2];
	unsigned int fast, slow, round, slept_fast;
	long nvcsw;
	unsigned int window_after_fast;
} A;

static void *adapt_client(void *arg)
{
	unsigned int i;
	char b;

	(void)arg;
	for (i = 0; i < A.fast + A.slow; i++) {
		if (read(A.ack[0], &b, 1) != 1)
			break;
		usleep(i < A.fast ? 200 : 20000);
		if (write(pfd[1], "m", 1) != 1)
			break;
	}
	return NULL;
}

static void on_adapt_msg(evutil_socket_t fd, short what, void *arg)
{
	long now = nvcsw();
	char b;

	(void)what;
	(void)arg;
	ck_assert_int_eq(read(fd, &b, 1), 1);
	loop_note_work();
	if (A.round > 0 && A.round <= A.fast && now > A.nvcsw)
		A.slept_fast++;
	if (A.round == A.fast)
		A.window_after_fast = loop_window_us();
	if (A.round++ == A.fast + A.slow) {
		loop_stop();
		return;
	}
	ck_assert_int_eq(write(A.ack[1], "a", 1), 1);
	A.nvcsw = nvcsw();
}

/* Run the rounds with adaptive_poll_us limit, on one CPU if one_cpu. */
static void adapt_run(unsigned int limit, bool one_cpu)
{
	pthread_t th;

	setup(0);
	conf.adaptive_poll_us = limit;
	if (one_cpu) {
		cpu_set_t cpus;

		ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &cpus)) {
				CPU_ZERO(&cpus);
				CPU_SET(c, &cpus);
				break;
			}
		ck_assert_int_eq(sched_setaffinity(0, sizeof(cpus), &cpus), 0);
	}
	event_free(ev_msg);
	ev_msg = event_new(iwcmd_base, pfd[0], EV_READ | EV_PERSIST,
			   on_adapt_msg, NULL);
	ck_assert_int_eq(event_add(ev_msg, NULL), 0);
	memset(&A, 0, sizeof(A));
	A.fast = 60;
	A.slow = 10;
	ck_assert_int_eq(pipe(A.ack), 0);
	ck_assert_int_eq(pthread_create(&th, NULL, adapt_client, NULL), 0);
	ck_assert_int_eq(write(pfd[1], "m", 1), 1);
	ck_assert_int_eq(loop_run(iwcmd_base), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	close(A.ack[0]);
	close(A.ack[1]);
	ck_assert_uint_eq(A.round, A.fast + A.slow + 1);
	teardown();
}

static int cpu_count(void)
{
	cpu_set_t cpus;

	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	return CPU_COUNT(&cpus);
}

/*
 * A client that answers within the limit (200 us, and its wake-up) keeps
 * the adaptive loop awake after a few rounds: it slept after at most
 * half of them (a loaded machine delays some answers past the 5 ms
 * limit, which halves the window).  Ten answers 20 ms late bring the
 * window back to 0.  With one CPU the loop never polls.
 */
START_TEST(test_adaptive)
{
	if (cpu_count() < 2) {
		printf("check_loop adaptive: one CPU here, the window stays "
		       "0\n");
		adapt_run(5000, false);
		ck_assert_uint_eq(A.window_after_fast, 0);
		ck_assert_uint_gt(A.slept_fast, A.fast / 2);
		return;
	}
	adapt_run(5000, false);
	printf("check_loop adaptive: slept after %u of %u fast rounds, "
	       "window %u us\n",
	       A.slept_fast, A.fast, A.window_after_fast);
	ck_assert_uint_le(A.slept_fast, A.fast / 2);
	ck_assert_uint_gt(A.window_after_fast, 0);
	/* the polling is counted (iwcm_loop_poll_seconds) */
	ck_assert_uint_gt(iwcmd_stats.loop_poll_us, 0);
	ck_assert_uint_eq(loop_window_us(), 0);
}
END_TEST

/* Without the adaptive window (0), or with one CPU, the loop sleeps
 * after every round. */
START_TEST(test_adaptive_off)
{
	adapt_run(_i ? 5000 : 0, _i != 0);
	/* An answer that comes before the loop reaches its wait (the
	 * client ran first on a loaded machine) is taken without a sleep:
	 * more than half, where a polling loop sleeps after at most half
	 * (test_adaptive), and no polling at all (below). */
	ck_assert_uint_gt(A.slept_fast, A.fast / 2);
	ck_assert_uint_eq(A.window_after_fast, 0);
	ck_assert_uint_eq(iwcmd_stats.loop_poll_us, 0);
}
END_TEST

static Suite *loop_suite(void)
{
	Suite *s = suite_create("loop");

	add_loop_tcase(s, "awake_after_work", test_awake_after_work, 2);
	add_tcase(s, "sleeps_when_quiet", test_sleeps_when_quiet);
	add_loop_tcase(s, "stop", test_stop, 2);
	add_tcase(s, "adaptive", test_adaptive);
	add_loop_tcase(s, "adaptive_off", test_adaptive_off, 2);
	return s;
}

TEST_MAIN(loop_suite)
