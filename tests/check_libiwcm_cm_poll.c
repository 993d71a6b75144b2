/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Adaptive polling (proto/poll_adapt.h, libclient/ctx_poll.c): the
 * window rule every row of it, a context's window over a made-up
 * timeline, IWCM_POLL_US, the one-CPU rule, and against the fake daemon
 * (cm_fake.c) a window that grows with a daemon that answers in 2 ms, and
 * a blocking iwcm_get_event() that polls no longer than its window before
 * it sleeps.
 */
#include "config.h"

#include <sched.h>
#include <time.h>

#include "cm_fake.h"
#include "internal.h"
#include "poll_adapt.h"

/*
 * The window after a wait the window did not catch: each row is the
 * window, the time from the last exchange to the next message, the limit
 * and the window that follows.
 */
START_TEST(test_adapt_table)
{
	static const struct {
		unsigned int win;
		uint64_t gap;
		unsigned int max, next;
	} t[] = {
		/* soon enough: grow from the start, doubling, to the limit */
		{ 0, 10, 200, POLL_ADAPT_START_US },
		{ 0, 200, 200, POLL_ADAPT_START_US },
		{ 25, 150, 200, 50 },
		{ 50, 150, 200, 100 },
		{ 100, 150, 200, 200 },
		{ 120, 150, 200, 200 },
		{ 200, 150, 200, 200 },
		{ 300, 150, 200, 200 }, /* the limit was lowered (SIGHUP) */
		{ 0, 5, 10, 10 },	/* a limit below the start */
		/* too late: halve, to 0 below the start */
		{ 200, 201, 200, 100 },
		{ 100, 5000, 200, 50 },
		{ 50, 5000, 200, 25 },
		{ 25, 5000, 200, 0 },
		{ 40, 5000, 200, 0 },
		{ 0, 5000, 200, 0 },
		{ 0, UINT64_MAX, 200, 0 },
		/* off */
		{ 0, 0, 0, 0 },
		{ 100, 0, 0, 0 },
		{ 100, 1, 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++)
		ck_assert_msg(poll_adapt(t[i].win, t[i].gap, t[i].max) ==
				      t[i].next,
			      "row %zu: %u", i,
			      poll_adapt(t[i].win, t[i].gap, t[i].max));
}
END_TEST

/*
 * A context's window over a timeline (us): S a message sent, E the
 * channel found empty, R a message received; after each step the window
 * and what is left of it at the step's time plus "later".
 */
START_TEST(test_ctx_timeline)
{
	static const struct {
		char op;
		uint64_t t;
		unsigned int win;
		uint64_t later;
		unsigned int left;
	} t[] = {
		{ 'S', 1000, 0, 0, 0 }, /* nothing learnt yet */
		{ 'E', 1001, 0, 0, 0 },
		{ 'R', 1100, 25, 0, 25 },  /* missed, 100 <= 200: start */
		{ 'R', 1110, 25, 10, 15 }, /* back to back: no change */
		{ 'S', 1120, 25, 30, 0 },
		{ 'E', 1121, 25, 0, 24 },
		{ 'R', 1200, 50, 49, 1 }, /* missed again: double */
		{ 'S', 1210, 50, 0, 50 },
		{ 'E', 1211, 50, 0, 49 },
		{ 'R', 1240, 50, 0, 50 }, /* caught (30 <= 50): keep */
		{ 'E', 1241, 50, 0, 49 },
		{ 'R', 1400, 100, 0, 100 }, /* 160: double */
		{ 'E', 1401, 100, 0, 99 },
		{ 'R', 1590, 200, 0, 200 }, /* 190: to the limit */
		{ 'E', 1591, 200, 199, 0 },
		{ 'R', 2000, 100, 0, 100 }, /* 410 > 200: halve */
		{ 'E', 2001, 100, 0, 99 },
		{ 'R', 9000, 50, 0, 50 }, /* halve */
		{ 'E', 9001, 50, 0, 49 },
		{ 'R', 90000, 25, 0, 25 },
		{ 'E', 90001, 25, 0, 24 },
		{ 'R', 900000, 0, 0, 0 }, /* off until it misses again */
		{ 'R', 900001, 0, 0, 0 }, /* not after an empty channel */
	};
	struct iwcm_ctx *ctx = calloc(1, sizeof(*ctx));
	size_t i;

	ck_assert_ptr_nonnull(ctx);
	ctx->poll_max = 200;
	for (i = 0; i < ARRAY_SIZE(t); i++) {
		if (t[i].op == 'S')
			ctx_poll_sent(ctx, t[i].t);
		else if (t[i].op == 'E')
			ctx_poll_empty(ctx);
		else
			ctx_poll_received(ctx, t[i].t);
		ck_assert_msg(ctx->poll_win == t[i].win, "row %zu: window %u",
			      i, ctx->poll_win);
		ck_assert_msg(ctx_poll_left(ctx, t[i].t + t[i].later) ==
				      t[i].left,
			      "row %zu: left %u", i,
			      ctx_poll_left(ctx, t[i].t + t[i].later));
	}
	/* A lower limit caps what is left of a wider window. */
	ctx->poll_win = 200;
	ctx->poll_max = 50;
	ctx_poll_sent(ctx, 5000);
	ck_assert_uint_eq(ctx_poll_left(ctx, 5010), 40);
	free(ctx);
}
END_TEST

/* IWCM_POLL_US: a decimal number from 0 to 100000. */
START_TEST(test_parse)
{
	static const struct {
		const char *s;
		int ok;
		unsigned int v;
	} t[] = {
		{ "0", 1, 0 },		 { "200", 1, 200 },
		{ "100000", 1, 100000 }, { "0007", 1, 7 },
		{ "100001", 0, 0 },	 { "", 0, 0 },
		{ "-1", 0, 0 },		 { "+5", 0, 0 },
		{ "abc", 0, 0 },	 { "20 ", 0, 0 },
		{ " 20", 0, 0 },	 { "0x10", 0, 0 },
		{ "1e3", 0, 0 },	 { "99999999999999999999999", 0, 0 },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		unsigned int v = 12345;
		int r;

		errno = 0;
		r = ctx_poll_parse(t[i].s, &v);
		if (t[i].ok) {
			ck_assert_msg(r == 0 && v == t[i].v, "'%s': %d %u",
				      t[i].s, r, v);
		} else {
			ck_assert_msg(r == -1 && errno == EINVAL && v == 12345,
				      "'%s' accepted", t[i].s);
		}
	}
	ck_assert_int_eq(ctx_poll_parse(NULL, NULL), -1);
}
END_TEST

/* A bad IWCM_POLL_US fails iwcm_ctx_open_path() before any connect. */
START_TEST(test_open_bad_env)
{
	static const char *const bad[] = { "x", "-1", "100001", "" };
	size_t i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(setenv("IWCM_POLL_US", bad[i], 1), 0);
		ERRNO_NULL(iwcm_ctx_open_path("/nonexistent/iwcmd.sock", 0),
			   EINVAL);
	}
	/* A good one gets as far as the missing daemon. */
	ck_assert_int_eq(setenv("IWCM_POLL_US", "0", 1), 0);
	ERRNO_NULL(iwcm_ctx_open_path("/nonexistent/iwcmd.sock", 0),
		   ECONNREFUSED);
	unsetenv("IWCM_POLL_US");
}
END_TEST

static void *init_on_one_cpu(void *arg)
{
	struct iwcm_ctx *ctx = arg;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() < 0 ? 0 : sched_getcpu(), &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0 ||
	    ctx_poll_init(ctx) < 0)
		ctx->poll_max = 99999; /* fails below */
	return NULL;
}

/* The default limit, the variable's, and 0 on one CPU. */
START_TEST(test_limit)
{
	struct iwcm_ctx ctx;
	cpu_set_t cpus;
	pthread_t th;

	unsetenv("IWCM_POLL_US");
	memset(&ctx, 0, sizeof(ctx));
	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);
	ck_assert_int_eq(ctx_poll_init(&ctx), 0);
	ck_assert_uint_eq(ctx.poll_max,
			  CPU_COUNT(&cpus) > 1 ? IWCM_POLL_US_DEFAULT : 0);
	ck_assert_int_eq(setenv("IWCM_POLL_US", "777", 1), 0);
	ck_assert_int_eq(ctx_poll_init(&ctx), 0);
	ck_assert_uint_eq(ctx.poll_max, CPU_COUNT(&cpus) > 1 ? 777 : 0);
	ck_assert_int_eq(pthread_create(&th, NULL, init_on_one_cpu, &ctx), 0);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert_uint_eq(ctx.poll_max, 0);
	unsetenv("IWCM_POLL_US");
	ck_assert_uint_eq(iwcm_ctx_poll_us(NULL), 0);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

#define ROUNDS 12
#define DELAY_US 2000

/* ROUNDS Listens, each answered DELAY_US late; then a ConnectRequest
 * 150 ms after main says go. */
static void script_slow(struct fake *f)
{
	int i;

	for (i = 0; i < ROUNDS; i++) {
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_LISTEN,
					    &iwcm__listen__descriptor));
		usleep(DELAY_US);
		FAKE_REQUIRE(f, fake_listen_reply(f, 10 + (uint64_t)i));
	}
	FAKE_REQUIRE(f, fake_wait_go(f));
	usleep(150000);
	FAKE_REQUIRE(f, fake_connect_request(f, 99, 10, false));
	FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_REJECT,
				    &iwcm__reject__descriptor));
	FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 99));
	for (i = 0; i < ROUNDS; i++) {
		FAKE_REQUIRE(f, fake_expect(f, IPC_CLIENT_UNLISTEN,
					    &iwcm__unlisten__descriptor));
		FAKE_REQUIRE(f, fake_ack(f, f->reqid, IWCM__RESULT__RES_OK, 0));
	}
}

static uint64_t thread_cpu_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

/*
 * With a limit of 100 ms, a daemon that answers each request 2 ms late
 * widens the window until it covers 2 ms; the window is what
 * iwcm_ctx_poll_us() counts down; a blocking iwcm_get_event() for an
 * event 150 ms away polls for the window, then sleeps (its thread's CPU
 * time stays far below 150 ms).  With IWCM_POLL_US=0 the window stays 0.
 */
START_TEST(test_fake_daemon)
{
	struct iwcm_listener *l[ROUNDS];
	struct sockaddr_in sin;
	struct iwcm_event *ev;
	struct iwcm_ctx *ctx;
	cpu_set_t cpus;
	uint64_t cpu;
	int i;

	/* on one CPU the window stays 0 (test_limit) */
	ck_assert_int_eq(sched_getaffinity(0, sizeof(cpus), &cpus), 0);

	ck_assert_int_eq(setenv("IWCM_POLL_US", _i ? "0" : "100000", 1), 0);
	fake_start(script_slow, false);
	ctx = open_ctx(0);
	unsetenv("IWCM_POLL_US");
	sin4(&sin, "127.0.0.1", 0);
	for (i = 0; i < ROUNDS; i++) {
		l[i] = iwcm_listen(ctx, (struct sockaddr *)&sin, NULL, NULL, 0);
		ck_assert_msg(l[i] != NULL, "listen %d: %s (%s)", i,
			      strerror(errno), F.err);
	}
	if (_i || CPU_COUNT(&cpus) < 2) {
		ck_assert_uint_eq(ctx->poll_win, 0);
		ck_assert_uint_eq(iwcm_ctx_poll_us(ctx), 0);
	} else {
		/* 25 doubled at least 7 times, as the 2 ms gaps needed */
		ck_assert_msg(ctx->poll_win >= DELAY_US &&
				      ctx->poll_win <= 100000,
			      "window %u", ctx->poll_win);
		ck_assert_uint_le(iwcm_ctx_poll_us(ctx), ctx->poll_win);
	}
	usleep(ctx->poll_win + 1000);
	ck_assert_uint_eq(iwcm_ctx_poll_us(ctx), 0);
	/* a fresh exchange opens the window again */
	go();
	cpu = thread_cpu_us();
	ck_assert_int_eq(iwcm_get_event(ctx, &ev), 0);
	cpu = thread_cpu_us() - cpu;
	ck_assert_int_eq(iwcm_event_get_type(ev),
			 IWCM_CM_EVENT_CONNECT_REQUEST);
	ck_assert_msg(cpu < 75000,
		      "polled %lu us of CPU for an event 150 ms "
		      "away",
		      (unsigned long)cpu);
	ck_assert_int_eq(iwcm_reject(iwcm_event_get_conn(ev), NULL, 0), 0);
	iwcm_ack_event(ev);
	for (i = 0; i < ROUNDS; i++)
		iwcm_listener_close(l[i]);
	iwcm_ctx_close(ctx);
	fake_finish();
}
END_TEST

static Suite *poll_adapt_suite(void)
{
	Suite *s = suite_create("libiwcm_cm_poll");

	add_tcase(s, "adapt_table", test_adapt_table);
	add_tcase(s, "ctx_timeline", test_ctx_timeline);
	add_tcase(s, "parse", test_parse);
	add_tcase(s, "open_bad_env", test_open_bad_env);
	add_tcase(s, "limit", test_limit);
	add_loop_tcase(s, "fake_daemon", test_fake_daemon, 2);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(poll_adapt_suite());
	int failed;

	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
