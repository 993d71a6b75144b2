/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_COMMON_H
#define IWCM_TESTS_COMMON_H

/*
 * Shared helpers for the Check programs: a tcase macro with a timeout, a
 * reproducible PRNG for randomized round trips (seed from IWCM_TEST_SEED,
 * printed so a failure can be replayed) and hex parsing for vectors.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define add_tcase(suite, name, fn)               \
	do {                                     \
		TCase *tc_ = tcase_create(name); \
		tcase_set_timeout(tc_, 60);      \
		tcase_add_test(tc_, fn);         \
		suite_add_tcase(suite, tc_);     \
	} while (0)

#define add_loop_tcase(suite, name, fn, n)                 \
	do {                                               \
		TCase *tc_ = tcase_create(name);           \
		tcase_set_timeout(tc_, 60);                \
		tcase_add_loop_test(tc_, fn, 0, (int)(n)); \
		suite_add_tcase(suite, tc_);               \
	} while (0)

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static uint64_t test_rng_state;

static inline void test_rng_seed(void)
{
	const char *s = getenv("IWCM_TEST_SEED");

	test_rng_state = s ? strtoull(s, NULL, 0) : 0x1234567887654321ull;
	if (!test_rng_state)
		test_rng_state = 1;
	fprintf(stderr, "IWCM_TEST_SEED=0x%llx\n",
		(unsigned long long)test_rng_state);
}

/* xorshift64*: deterministic for a given seed. */
static inline uint64_t test_rand64(void)
{
	uint64_t x = test_rng_state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	test_rng_state = x;
	return x * 0x2545F4914F6CDD1Dull;
}

static inline uint32_t test_rand32(void)
{
	return (uint32_t)(test_rand64() >> 32);
}

static inline void test_rand_bytes(uint8_t *p, size_t n)
{
	while (n--)
		*p++ = (uint8_t)test_rand64();
}

/* Parse hex digits (spaces ignored) into out; returns the byte count. */
static inline size_t test_hex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (*hex >= '0' && *hex <= '9')
			v = *hex - '0';
		else if (*hex >= 'a' && *hex <= 'f')
			v = *hex - 'a' + 10;
		else if (*hex >= 'A' && *hex <= 'F')
			v = *hex - 'A' + 10;
		else
			continue;
		if (hi < 0) {
			hi = v;
		} else {
			if (n >= cap)
				abort();
			out[n++] = (uint8_t)(hi << 4 | v);
			hi = -1;
		}
	}
	if (hi != -1)
		abort(); /* odd number of digits: a broken vector */
	return n;
}

/* Standard main: run the suite, exit non-zero on any failure. */
#define TEST_MAIN(suite_fn)                                   \
	int main(void)                                        \
	{                                                     \
		SRunner *sr;                                  \
		int nf;                                       \
                                                              \
		test_rng_seed();                              \
		sr = srunner_create(suite_fn());              \
		srunner_run_all(sr, CK_NORMAL);               \
		nf = srunner_ntests_failed(sr);               \
		srunner_free(sr);                             \
		return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE; \
	}

#endif
