/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/idmap.c, the daemon's connections by id: put, get and delete
 * against a plain array as the model, through growth, runs of colliding
 * ids that wrap past the table's end (deletion by backward shift must
 * keep every later entry reachable), and the refusals (id 0, NULL).
 */
#include "config.h"

#include <stdbool.h>

#include "common.h"

#include "idmap.h"

#define MODEL 4096

static void *obj(uint64_t id)
{
	return (void *)(uintptr_t)(id * 16 + 8);
}

START_TEST(test_basic)
{
	struct idmap m = IDMAP_INIT;
	uint64_t id;

	ck_assert_ptr_null(idmap_get(&m, 1));
	ck_assert_ptr_null(idmap_del(&m, 1));
	ck_assert_int_eq(idmap_put(&m, 0, obj(1)), -1);
	ck_assert_int_eq(idmap_put(&m, 1, NULL), -1);
	for (id = 1; id <= 1000; id++)
		ck_assert_int_eq(idmap_put(&m, id, obj(id)), 0);
	ck_assert_uint_eq(idmap_count(&m), 1000);
	/* at most half full: grown from 64 to 2048 slots */
	ck_assert_uint_eq(m.mask + 1, 2048);
	for (id = 1; id <= 1000; id++)
		ck_assert_ptr_eq(idmap_get(&m, id), obj(id));
	ck_assert_ptr_null(idmap_get(&m, 0));
	ck_assert_ptr_null(idmap_get(&m, 1001));
	for (id = 1; id <= 1000; id += 2)
		ck_assert_ptr_eq(idmap_del(&m, id), obj(id));
	ck_assert_uint_eq(idmap_count(&m), 500);
	for (id = 1; id <= 1000; id++)
		ck_assert_ptr_eq(idmap_get(&m, id), id % 2 ? NULL : obj(id));
	ck_assert_ptr_null(idmap_del(&m, 1));
	idmap_clear(&m);
	ck_assert_uint_eq(idmap_count(&m), 0);
	ck_assert_ptr_null(idmap_get(&m, 2));
}
END_TEST

/* Ids whose home is the table's last slot: their run wraps to slot 0. */
START_TEST(test_wrap)
{
	struct idmap m = IDMAP_INIT;
	uint64_t ids[8], id;
	size_t n = 0, i, k;

	/* the table has 64 slots until the 33rd id */
	ck_assert_int_eq(idmap_put(&m, 1, obj(1)), 0);
	ck_assert_uint_eq(m.mask, 63);
	for (id = 2; n < 8; id++)
		if (((id * 0x9E3779B97F4A7C15ull) >> 32 & m.mask) == m.mask)
			ids[n++] = id;
	idmap_del(&m, 1);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(idmap_put(&m, ids[i], obj(ids[i])), 0);
	/* delete each in turn: the others stay reachable */
	for (k = 0; k < n; k++) {
		ck_assert_ptr_eq(idmap_del(&m, ids[k]), obj(ids[k]));
		for (i = 0; i < n; i++)
			ck_assert_ptr_eq(idmap_get(&m, ids[i]),
					 i <= k ? NULL : obj(ids[i]));
	}
	ck_assert_uint_eq(idmap_count(&m), 0);
	idmap_clear(&m);
}
END_TEST

/* Random operations against the model, ids from a small range so that
 * puts, deletes and misses all happen often, with growth on the way. */
START_TEST(test_model)
{
	static bool have[MODEL];
	struct idmap m = IDMAP_INIT;
	uint64_t x = 0x2545F4914F6CDD1Dull, id;
	size_t n = 0, i, round;

	memset(have, 0, sizeof(have));
	for (round = 0; round < 400000; round++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* the range widens: the table grows while it churns */
		id = 1 + x % (64 + round / 100 % (MODEL - 64));
		switch (x >> 60 & 3) {
		case 0:
		case 1:
			if (have[id]) {
				ck_assert_ptr_eq(idmap_get(&m, id), obj(id));
				break;
			}
			ck_assert_int_eq(idmap_put(&m, id, obj(id)), 0);
			have[id] = true;
			n++;
			break;
		case 2:
			ck_assert_ptr_eq(idmap_del(&m, id),
					 have[id] ? obj(id) : NULL);
			n -= have[id];
			have[id] = false;
			break;
		default:
			ck_assert_ptr_eq(idmap_get(&m, id),
					 have[id] ? obj(id) : NULL);
			break;
		}
		ck_assert_uint_eq(idmap_count(&m), n);
	}
	for (i = 1; i < MODEL; i++)
		ck_assert_ptr_eq(idmap_get(&m, i), have[i] ? obj(i) : NULL);
	idmap_clear(&m);
}
END_TEST

static Suite *idmap_suite(void)
{
	Suite *s = suite_create("idmap");

	add_tcase(s, "basic", test_basic);
	add_tcase(s, "wrap", test_wrap);
	add_tcase(s, "model", test_model);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(idmap_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
