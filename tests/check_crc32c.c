/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * CRC32c vectors: RFC 7143 Appendix A.4 (all five) and the two FPDUs of
 * RFC 5044 Figures 5 and 6, for both the selected implementation (ISA-L
 * when built with it) and the portable fallback, plus incremental
 * updates split at every point.
 */
#include "common.h"

#include "crc32c.h"

struct crc_vec {
	const char *name;
	uint8_t data[560];
	size_t len;
	uint8_t wire[4]; /* expected trailer bytes, in wire order */
};

static struct crc_vec vecs[7];
static size_t n_vecs;

static void vec_add(const char *name, const uint8_t *d, size_t len,
		    const char *wire_hex)
{
	struct crc_vec *v = &vecs[n_vecs++];

	v->name = name;
	memcpy(v->data, d, len);
	v->len = len;
	test_hex(wire_hex, v->wire, 4);
}

static void vectors_init(void)
{
	uint8_t b[560];
	size_t i;

	if (n_vecs)
		return;
	/* RFC 7143 Appendix A.4 */
	memset(b, 0, 32);
	vec_add("32 bytes of zeroes", b, 32, "aa 36 91 8a");
	memset(b, 0xff, 32);
	vec_add("32 bytes of ones", b, 32, "43 ab a8 62");
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)i;
	vec_add("32 bytes incrementing", b, 32, "4e 79 dd 46");
	for (i = 0; i < 32; i++)
		b[i] = (uint8_t)(31 - i);
	vec_add("32 bytes decrementing", b, 32, "5c db 3f 11");
	{
		static const char read10[] =
			"01 c0 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
			"14 00 00 00 00 00 04 00 00 00 00 14 00 00 00 18"
			"28 00 00 00 00 00 00 00 02 00 00 00 00 00 00 00";
		size_t n = test_hex(read10, b, sizeof(b));

		vec_add("iSCSI Read(10) PDU", b, n, "56 3a 96 d9");
	}
	/* RFC 5044 Figure 5: marker, ULPDU_Length 0x2a, untagged Send,
	 * MSN 1, 24 zero octets; CRC over octets 0x00-0x2F. */
	memset(b, 0, sizeof(b));
	b[5] = 0x2a;
	b[6] = 0x41;
	b[7] = 0x43;
	b[0x13] = 0x01;
	vec_add("RFC 5044 Figure 5", b, 0x30, "52 23 99 83");
	/* RFC 5044 Figure 6: second FPDU at 0x1ec, marker at 0x200 with
	 * FPDUPTR 0x14; CRC over octets 0x1ec-0x21b. */
	memset(b, 0, sizeof(b));
	b[0x1ed] = 0x2a;
	b[0x1ee] = 0x41;
	b[0x1ef] = 0x43;
	b[0x1fb] = 0x02;
	b[0x203] = 0x14;
	vec_add("RFC 5044 Figure 6", b + 0x1ec, 0x21c - 0x1ec, "84 92 58 98");
}

START_TEST(test_vectors)
{
	const struct crc_vec *v;
	uint8_t out[4];
	uint32_t c;

	vectors_init();
	ck_assert_uint_lt((size_t)_i, n_vecs);
	v = &vecs[_i];
	c = crc32c(v->data, v->len);
	crc32c_put_wire(c, out);
	ck_assert_msg(memcmp(out, v->wire, 4) == 0, "%s (%s): got %08x",
		      v->name, crc32c_impl(), c);
	ck_assert_uint_eq(crc32c_get_wire(v->wire), c);
	c = crc32c_final(
		crc32c_update_portable(crc32c_init(), v->data, v->len));
	crc32c_put_wire(c, out);
	ck_assert_msg(memcmp(out, v->wire, 4) == 0, "%s (portable): %08x",
		      v->name, c);
}
END_TEST

START_TEST(test_check_value)
{
	/* The catalogue check value of CRC-32C. */
	ck_assert_uint_eq(crc32c("123456789", 9), 0xE3069283u);
	ck_assert_uint_eq(crc32c("", 0), 0);
}
END_TEST

START_TEST(test_incremental_splits)
{
	uint8_t buf[300];
	size_t split, split2;
	uint32_t whole;

	test_rand_bytes(buf, sizeof(buf));
	whole = crc32c(buf, sizeof(buf));
	for (split = 0; split <= sizeof(buf); split++) {
		uint32_t s = crc32c_init();

		s = crc32c_update(s, buf, split);
		s = crc32c_update(s, buf + split, sizeof(buf) - split);
		ck_assert_uint_eq(crc32c_final(s), whole);
	}
	for (split = 0; split < 40; split++)
		for (split2 = split; split2 < 80; split2++) {
			uint32_t s = crc32c_init();

			s = crc32c_update_portable(s, buf, split);
			s = crc32c_update(s, buf + split, split2 - split);
			s = crc32c_update_portable(s, buf + split2,
						   sizeof(buf) - split2);
			ck_assert_uint_eq(crc32c_final(s), whole);
		}
}
END_TEST

START_TEST(test_impl_agree_random)
{
	static uint8_t buf[70000];
	int i;

	test_rand_bytes(buf, sizeof(buf));
	for (i = 0; i < 200; i++) {
		size_t off = test_rand32() % 64;
		size_t len = test_rand32() % (sizeof(buf) - off);

		ck_assert_uint_eq(crc32c_update(crc32c_init(), buf + off, len),
				  crc32c_update_portable(crc32c_init(),
							 buf + off, len));
	}
}
END_TEST

START_TEST(test_wire_order)
{
	uint8_t out[4];

	/* Least significant byte first: htonl() would be wrong. */
	crc32c_put_wire(0x83992352u, out);
	ck_assert_uint_eq(out[0], 0x52);
	ck_assert_uint_eq(out[3], 0x83);
}
END_TEST

static Suite *crc32c_suite(void)
{
	Suite *s = suite_create("crc32c");

	vectors_init();
	add_loop_tcase(s, "vectors", test_vectors, n_vecs);
	add_tcase(s, "check_value", test_check_value);
	add_tcase(s, "incremental", test_incremental_splits);
	add_tcase(s, "implementations_agree", test_impl_agree_random);
	add_tcase(s, "wire_order", test_wire_order);
	return s;
}

TEST_MAIN(crc32c_suite)
