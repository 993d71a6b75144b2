/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* Daemon logging: destinations, verbosity, strerror, rate limiting. */
#include <errno.h>
#include <unistd.h>

#include "common.h"

#include "log.h"

static char out[4096];

/* Run fn with stderr captured into out. */
static void capture(void (*fn)(void))
{
	FILE *tmp = tmpfile();
	int saved = dup(2);
	size_t n;

	ck_assert_ptr_nonnull(tmp);
	fflush(stderr);
	dup2(fileno(tmp), 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(tmp);
	n = fread(out, 1, sizeof(out) - 1, tmp);
	out[n] = '\0';
	fclose(tmp);
}

static void emit_levels(void)
{
	errno = ECONNRESET;
	log_warn("conn %u: read", 7u);
	log_warnx("conn %u: bad key", 8u);
	log_info("listening on %s", "0.0.0.0:4791");
	log_debug("conn %u: hidden unless verbose", 9u);
}

START_TEST(test_stderr_levels)
{
	log_init(LOG_TO_STDERR, false, "iwcmd");
	capture(emit_levels);
	ck_assert_str_eq(out, "conn 7: read: Connection reset by peer\n"
			      "conn 8: bad key\n"
			      "listening on 0.0.0.0:4791\n");
	log_setverbose(true);
	ck_assert(log_getverbose());
	capture(emit_levels);
	ck_assert_ptr_nonnull(strstr(out, "conn 9: hidden unless verbose\n"));
	log_setverbose(false);
}
END_TEST

START_TEST(test_journal_prefix)
{
	log_init(LOG_TO_JOURNAL, true, "iwcmd");
	capture(emit_levels);
	ck_assert_ptr_nonnull(strstr(out, "<4>conn 7: read: Connection reset"));
	ck_assert_ptr_nonnull(strstr(out, "<6>listening on"));
	ck_assert_ptr_nonnull(strstr(out, "<7>conn 9:"));
	log_init(LOG_TO_STDERR, false, NULL);
}
END_TEST

/* Nothing written, verbose or not (the fuzz harnesses' destination). */
START_TEST(test_none_writes_nothing)
{
	log_init(LOG_TO_NONE, true, "iwcmd");
	capture(emit_levels);
	ck_assert_str_eq(out, "");
	log_init(LOG_TO_STDERR, false, NULL);
}
END_TEST

START_TEST(test_warn_keeps_errno)
{
	log_init(LOG_TO_STDERR, false, NULL);
	errno = EPIPE;
	capture(emit_levels);
	errno = EPIPE;
	log_warn("x");
	ck_assert_int_eq(errno, EPIPE);
}
END_TEST

START_TEST(test_ratelimit)
{
	struct log_ratelimit rl = LOG_RATELIMIT_INIT(10, 3);
	unsigned int sup, allowed = 0, i;

	for (i = 0; i < 10; i++)
		allowed += log_ratelimit_ok(&rl, 100, &sup);
	ck_assert_uint_eq(allowed, 3);
	ck_assert(!log_ratelimit_ok(&rl, 109, &sup));
	ck_assert(log_ratelimit_ok(&rl, 110, &sup));
	ck_assert_uint_eq(sup, 8);
	ck_assert(log_ratelimit_ok(&rl, 111, &sup));
	ck_assert_uint_eq(sup, 0);
}
END_TEST

static Suite *log_suite(void)
{
	Suite *s = suite_create("log");

	add_tcase(s, "stderr_levels", test_stderr_levels);
	add_tcase(s, "journal_prefix", test_journal_prefix);
	add_tcase(s, "none_writes_nothing", test_none_writes_nothing);
	add_tcase(s, "warn_keeps_errno", test_warn_keeps_errno);
	add_tcase(s, "ratelimit", test_ratelimit);
	return s;
}

TEST_MAIN(log_suite)
