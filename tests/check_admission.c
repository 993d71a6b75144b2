/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/admission.c, the books of half-open connections (TCP ones and
 * SCTP associations alike): accept order, counts per source address
 * (IPv4 and IPv6 apart, ports ignored), the victim that makes room (the
 * oldest of a source at its cap, else the oldest of all at the total
 * cap, else none), and the owner's shed() it is handed to.
 */
#include "config.h"

#include <arpa/inet.h>

#include "common.h"

#include "admission.h"

static struct adm_entry conns[8];
static struct sockaddr_storage peers[8];

/* What shed() was last handed, and why. */
static struct adm_entry *shed_last;
static const char *shed_why;
static int n_shed, n_shed_other;

static void shed(struct adm_entry *e, const char *why)
{
	shed_last = e;
	shed_why = why;
	n_shed++;
	admission_remove(e); /* as its owner's close does */
}

static void shed_other(struct adm_entry *e, const char *why)
{
	(void)why;
	n_shed_other++;
	admission_remove(e);
}

static struct sockaddr_storage v4(const char *a, uint16_t port)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

	memset(&ss, 0, sizeof(ss));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	ck_assert_int_eq(inet_pton(AF_INET, a, &sin->sin_addr), 1);
	return ss;
}

static struct sockaddr_storage v6(const char *a)
{
	struct sockaddr_storage ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	s6->sin6_family = AF_INET6;
	ck_assert_int_eq(inet_pton(AF_INET6, a, &s6->sin6_addr), 1);
	return ss;
}

/* Book conns[i] as coming from ss. */
static struct adm_entry *add(int i, struct sockaddr_storage ss)
{
	memset(&conns[i], 0, sizeof(conns[i]));
	peers[i] = ss;
	admission_add(&conns[i], &peers[i], shed);
	return &conns[i];
}

START_TEST(test_books)
{
	struct sockaddr_storage a = v4("192.0.2.1", 1000),
				a2 = v4("192.0.2.1", 2000),
				b = v4("192.0.2.2", 1000),
				m = v6("::ffff:192.0.2.1"),
				c = v6("2001:db8::1");

	ck_assert_uint_eq(admission_count(), 0);
	ck_assert_ptr_null(admission_oldest());
	add(0, a);
	add(1, b);
	add(2, a2); /* the same address from another port */
	add(3, c);
	ck_assert_uint_eq(admission_count(), 4);
	ck_assert_uint_eq(admission_count_from(&a), 2);
	ck_assert_uint_eq(admission_count_from(&b), 1);
	ck_assert_uint_eq(admission_count_from(&c), 1);
	/* an IPv4-mapped IPv6 address is that IPv4 address */
	ck_assert_uint_eq(admission_count_from(&m), 2);
	ck_assert_ptr_eq(admission_oldest(), &conns[0]);
	/* booking twice changes nothing */
	admission_add(&conns[0], &peers[0], shed);
	ck_assert_uint_eq(admission_count(), 4);

	/* under both caps: nothing to drop */
	ck_assert_ptr_null(admission_victim(&a, 5, 3));
	/* a's cap of 2 reached: a's oldest, not the oldest of all */
	ck_assert_ptr_eq(admission_victim(&a, 100, 2), &conns[0]);
	ck_assert_ptr_eq(admission_victim(&b, 100, 1), &conns[1]);
	/* the total cap: the oldest of all, whoever asks */
	ck_assert_ptr_eq(admission_victim(&c, 4, 100), &conns[0]);
	/* a new source at the total cap too */
	ck_assert_ptr_eq(admission_victim(&m, 4, 100), &conns[0]);

	/* removal keeps the order and the counts; twice is harmless */
	admission_remove(&conns[0]);
	admission_remove(&conns[0]);
	ck_assert(!admission_booked(&conns[0]));
	ck_assert_uint_eq(admission_count(), 3);
	ck_assert_uint_eq(admission_count_from(&a), 1);
	ck_assert_ptr_eq(admission_oldest(), &conns[1]);
	ck_assert_ptr_eq(admission_victim(&a, 100, 1), &conns[2]);
	admission_remove(&conns[2]);
	ck_assert_uint_eq(admission_count_from(&a), 0);
	ck_assert_ptr_null(admission_victim(&a, 100, 1));
	admission_remove(&conns[1]);
	admission_remove(&conns[3]);
	ck_assert_uint_eq(admission_count(), 0);
	ck_assert_ptr_null(admission_oldest());
	ck_assert_uint_eq(admission_count_from(&c), 0);
}
END_TEST

/* Many sources in one bucket chain and out again: every count exact. */
START_TEST(test_many_sources)
{
	static struct adm_entry many[3000];
	static struct sockaddr_storage from[3000];
	struct sockaddr_storage ss;
	char a[32];
	int i;

	for (i = 0; i < 3000; i++) {
		snprintf(a, sizeof(a), "10.%d.%d.1", i / 256, i % 256);
		memset(&many[i], 0, sizeof(many[i]));
		from[i] = v4(a, 1);
		admission_add(&many[i], &from[i], shed);
	}
	ck_assert_uint_eq(admission_count(), 3000);
	for (i = 0; i < 3000; i += 7) {
		ss = from[i];
		ck_assert_uint_eq(admission_count_from(&ss), 1);
	}
	for (i = 2999; i >= 0; i--)
		admission_remove(&many[i]);
	ck_assert_uint_eq(admission_count(), 0);
	ss = from[0];
	ck_assert_uint_eq(admission_count_from(&ss), 0);
}
END_TEST

/* Making room hands the victim to the shed() it was booked with, with
 * the cap that made it; the oldest of one owner skips the others'. */
START_TEST(test_make_room)
{
	struct sockaddr_storage a = v4("192.0.2.1", 1), b = v4("192.0.2.2", 1),
				c = v4("192.0.2.3", 1);
	struct adm_entry other;
	struct sockaddr_storage op = v4("192.0.2.9", 1);

	shed_last = NULL;
	n_shed = n_shed_other = 0;
	memset(&other, 0, sizeof(other));
	admission_add(&other, &op, shed_other); /* the oldest of all */
	add(0, a);
	add(1, a);
	add(2, b);
	ck_assert_ptr_eq(admission_oldest(), &other);
	ck_assert_ptr_eq(admission_oldest_of(shed), &conns[0]);
	ck_assert_ptr_eq(admission_oldest_of(shed_other), &other);
	/* under both caps */
	ck_assert(!admission_make_room(&c, 10, 10));
	ck_assert_int_eq(n_shed + n_shed_other, 0);
	/* a at its cap of 2: a's oldest, not other */
	ck_assert(admission_make_room(&a, 10, 2));
	ck_assert_ptr_eq(shed_last, &conns[0]);
	ck_assert_ptr_nonnull(strstr(shed_why, "halfopen_per_source"));
	ck_assert_uint_eq(admission_count_from(&a), 1);
	/* the total cap: the oldest of all, another owner's */
	ck_assert(admission_make_room(&c, 3, 10));
	ck_assert_int_eq(n_shed_other, 1);
	ck_assert(!admission_booked(&other));
	ck_assert(admission_make_room(&c, 2, 10));
	ck_assert_ptr_eq(shed_last, &conns[1]);
	ck_assert_ptr_nonnull(strstr(shed_why, "halfopen_max"));
	ck_assert_ptr_null(admission_oldest_of(shed_other));
	admission_remove(&conns[2]);
	ck_assert_uint_eq(admission_count(), 0);
	ck_assert_ptr_null(admission_oldest_of(shed));
}
END_TEST

static Suite *admission_suite(void)
{
	Suite *s = suite_create("admission");

	add_tcase(s, "books", test_books);
	add_tcase(s, "many sources", test_many_sources);
	add_tcase(s, "make room", test_make_room);
	return s;
}

int main(void)
{
	SRunner *sr = srunner_create(admission_suite());
	int nf;

	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
