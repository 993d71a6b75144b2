/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* Bounded reader/writer: every short read fails without moving. */
#include "common.h"

#include "wbuf.h"

START_TEST(test_get_bounds)
{
	const uint8_t in[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9 };
	struct wbuf b;
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;
	uint8_t tmp[16];

	wbuf_init(&b, in, sizeof(in));
	ck_assert_int_eq(wbuf_get_u64(&b, &u64), WIRE_OK);
	ck_assert_uint_eq(u64, 0x0102030405060708ull);
	ck_assert_int_eq(wbuf_get_u16(&b, &u16), WIRE_ESHORT);
	ck_assert_int_eq(wbuf_get_u32(&b, &u32), WIRE_ESHORT);
	ck_assert_int_eq(wbuf_get_u64(&b, &u64), WIRE_ESHORT);
	ck_assert_int_eq(wbuf_get_bytes(&b, tmp, 2), WIRE_ESHORT);
	ck_assert_uint_eq(b.off, 8);
	ck_assert_int_eq(wbuf_get_u8(&b, &u8), WIRE_OK);
	ck_assert_uint_eq(u8, 9);
	ck_assert_int_eq(wbuf_get_u8(&b, &u8), WIRE_ESHORT);
	ck_assert_int_eq(wbuf_skip(&b, 1), WIRE_ESHORT);
	ck_assert_int_eq(wbuf_skip(&b, 0), WIRE_OK);
	wbuf_init(&b, in, 3);
	ck_assert_int_eq(wbuf_get_u16(&b, &u16), WIRE_OK);
	ck_assert_uint_eq(u16, 0x0102);
	ck_assert_int_eq(wbuf_get_u32(&b, &u32), WIRE_ESHORT);
}
END_TEST

START_TEST(test_put_bounds)
{
	uint8_t out[7];
	struct wbuf_w w;
	struct wbuf b;
	uint32_t u32;
	uint16_t u16;
	uint8_t u8;

	wbuf_w_init(&w, out, sizeof(out));
	ck_assert_int_eq(wbuf_put_u32(&w, 0xdeadbeef), WIRE_OK);
	ck_assert_int_eq(wbuf_put_u32(&w, 1), WIRE_ENOSPC);
	ck_assert_int_eq(wbuf_put_u64(&w, 1), WIRE_ENOSPC);
	ck_assert_int_eq(wbuf_put_bytes(&w, out, 4), WIRE_ENOSPC);
	ck_assert_int_eq(wbuf_put_u16(&w, 0xcafe), WIRE_OK);
	ck_assert_int_eq(wbuf_put_u8(&w, 0x7f), WIRE_OK);
	ck_assert_int_eq(wbuf_put_u8(&w, 0), WIRE_ENOSPC);
	ck_assert_uint_eq(w.off, 7);
	wbuf_init(&b, out, w.off);
	ck_assert_int_eq(wbuf_get_u32(&b, &u32), WIRE_OK);
	ck_assert_int_eq(wbuf_get_u16(&b, &u16), WIRE_OK);
	ck_assert_int_eq(wbuf_get_u8(&b, &u8), WIRE_OK);
	ck_assert_uint_eq(u32, 0xdeadbeef);
	ck_assert_uint_eq(u16, 0xcafe);
	ck_assert_uint_eq(u8, 0x7f);
}
END_TEST

/* The fixed-position helpers: network byte order, every octet. */
START_TEST(test_be_fixed)
{
	static const uint8_t want[8] = { 0x01, 0x23, 0x45, 0x67,
					 0x89, 0xab, 0xcd, 0xef };
	uint8_t b[10];

	memset(b, 0xee, sizeof(b));
	wire_put_be64(b + 1, 0x0123456789abcdefull);
	ck_assert_mem_eq(b + 1, want, 8);
	ck_assert_uint_eq(b[0], 0xee);
	ck_assert_uint_eq(b[9], 0xee);
	ck_assert_uint_eq(wire_be64(want), 0x0123456789abcdefull);
	ck_assert_uint_eq(wire_be32(want + 4), 0x89abcdefu);
	ck_assert_uint_eq(wire_be16(want + 6), 0xcdefu);
	wire_put_be32(b, 0xfedcba98u);
	wire_put_be16(b + 4, 0x7654);
	ck_assert_uint_eq(wire_be64(b) >> 16, 0xfedcba987654ull);
}
END_TEST

START_TEST(test_errnames)
{
	int e;

	for (e = 0; e < WIRE_ERR_MAX; e++) {
		ck_assert_ptr_nonnull(wire_strerror(e));
		ck_assert_str_ne(wire_errname(e), "EUNKNOWN");
	}
	ck_assert_str_eq(wire_errname(WIRE_ERR_MAX), "EUNKNOWN");
	ck_assert(!wire_err_malformed(WIRE_OK));
	ck_assert(!wire_err_malformed(WIRE_ESHORT));
	ck_assert(wire_err_malformed(WIRE_ELEN));
}
END_TEST

static Suite *wbuf_suite(void)
{
	Suite *s = suite_create("wbuf");

	add_tcase(s, "get_bounds", test_get_bounds);
	add_tcase(s, "put_bounds", test_put_bounds);
	add_tcase(s, "be_fixed", test_be_fixed);
	add_tcase(s, "errnames", test_errnames);
	return s;
}

TEST_MAIN(wbuf_suite)
