/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The relay between a DDP Stream Session and its owner
 * (daemon/sctp_relay.c), on its own loop with a recording stack: the
 * owner's messages reach the stack whole and in order, in batches of one
 * recvmmsg(2) each and no read to see the socket empty; messages the
 * stack refuses (EAGAIN) wait, in order, until it is started again; a
 * message of another stream, another PPID, shorter than its header or
 * over the segment size closes the relay as an error; the owner's close
 * closes it without one; messages for the owner arrive in order with
 * their header.
 */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <event2/event.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "sctp_relay.h"

#define STREAM 5
#define MAXSEG 600
#define MSGS 64

static struct event_base *base;
static struct sctp_relay *relay;
static int owner = -1;

/* What the stack took, and its answers. */
static struct {
	uint8_t first[MSGS]; /* each segment's first octet */
	size_t len[MSGS];
	unsigned int n;
	unsigned int refuse_at; /* the message refused once (0: none) */
	bool refused;
	int closed; /* 0: no; 1: without error; 2: an error */
	unsigned int backlog;
} st;

static unsigned long rx_calls;

/* recvmmsg(2) of the relay, counted (the test reads with recv(2)). */
int recvmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags,
	     struct timespec *t)
{
	static int (*real)(int, struct mmsghdr *, unsigned int, int,
			   struct timespec *);

	if (!real)
		real = (int (*)(int, struct mmsghdr *, unsigned int, int,
				struct timespec *))dlsym(RTLD_NEXT, "recvmmsg");
	rx_calls++;
	return real(fd, v, n, flags, t);
}

static int from_owner(void *arg, const uint8_t *seg, size_t len)
{
	(void)arg;
	if (st.refuse_at && st.n + 1 == st.refuse_at && !st.refused) {
		st.refused = true;
		errno = EAGAIN;
		return -1;
	}
	ck_assert_uint_lt(st.n, MSGS);
	st.first[st.n] = len ? seg[0] : 0;
	st.len[st.n] = len;
	st.n++;
	return 0;
}

static void closed(void *arg, bool error)
{
	(void)arg;
	st.closed = error ? 2 : 1;
}

static void backlog(void *arg, bool high)
{
	(void)arg;
	(void)high;
	st.backlog++;
}

static const struct sctp_relay_ops ops = { from_owner, closed, backlog };

static void setup(void)
{
	memset(&st, 0, sizeof(st));
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	relay = sctp_relay_new(base, STREAM, MAXSEG, &ops, NULL, &owner);
	ck_assert_ptr_nonnull(relay);
	sctp_relay_start(relay);
	event_base_loop(base, EVLOOP_NONBLOCK);
	rx_calls = 0;
}

static void teardown(void)
{
	if (relay)
		sctp_relay_free(relay);
	relay = NULL;
	if (owner >= 0)
		close(owner);
	owner = -1;
	event_base_free(base);
}

/* The owner sends one message: header {stream, 0, ppid}, len octets
 * starting with tag. */
static void owner_send(uint16_t stream, uint32_t ppid, uint8_t tag, size_t len)
{
	uint8_t m[SCTP_RELAY_HDR + MAXSEG + 8];

	ck_assert_uint_le(len, MAXSEG + 8);
	memset(m, tag, sizeof(m));
	m[0] = (uint8_t)(stream >> 8);
	m[1] = (uint8_t)stream;
	m[2] = m[3] = 0;
	m[4] = (uint8_t)(ppid >> 24);
	m[5] = (uint8_t)(ppid >> 16);
	m[6] = (uint8_t)(ppid >> 8);
	m[7] = (uint8_t)ppid;
	ck_assert_int_eq(send(owner, m, SCTP_RELAY_HDR + len, 0),
			 (ssize_t)(SCTP_RELAY_HDR + len));
}

/* Run the loop until nothing is left to do. */
static void run(void)
{
	for (int i = 0; i < 8; i++)
		event_base_loop(base, EVLOOP_NONBLOCK);
}

/* One message at a time: one call each; ten at once: three (4, 4, 2;
 * fewer than asked means empty); each whole and in order. */
START_TEST(t_batches)
{
	unsigned int i;

	for (i = 0; i < 4; i++) {
		rx_calls = 0;
		owner_send(STREAM, 16, (uint8_t)(i + 1), 100 + i);
		run();
		ck_assert_uint_eq(st.n, i + 1);
		ck_assert_uint_eq(st.first[i], i + 1);
		ck_assert_uint_eq(st.len[i], 100 + i);
		ck_assert_uint_eq(rx_calls, 1);
	}
	rx_calls = 0;
	for (i = 0; i < 10; i++)
		owner_send(STREAM, 16, (uint8_t)(0x40 + i),
			   i == 9 ? MAXSEG : 1);
	run();
	ck_assert_uint_eq(rx_calls, 3);
	ck_assert_uint_eq(st.n, 14);
	for (i = 0; i < 10; i++)
		ck_assert_uint_eq(st.first[4 + i], 0x40 + i);
	ck_assert_uint_eq(st.len[13], MAXSEG);
	ck_assert_int_eq(st.closed, 0);
}
END_TEST

/* The stack refuses the third of six (EAGAIN): nothing more is taken
 * until the relay is started again, then the third comes first. */
START_TEST(t_held)
{
	unsigned int i;

	st.refuse_at = 3;
	for (i = 0; i < 6; i++)
		owner_send(STREAM, 16, (uint8_t)(i + 1), 10);
	run();
	ck_assert(st.refused);
	ck_assert_uint_eq(st.n, 2);
	owner_send(STREAM, 16, 7, 10);
	run();
	ck_assert_uint_eq(st.n, 2); /* not reading */
	sctp_relay_start(relay);
	run();
	ck_assert_uint_eq(st.n, 7);
	for (i = 0; i < 7; i++)
		ck_assert_uint_eq(st.first[i], i + 1);
	ck_assert_int_eq(st.closed, 0);
}
END_TEST

enum { BAD_STREAM, BAD_PPID, BAD_SHORT, BAD_LONG, BAD_N };

/* A message the owner should never send, behind a good one in the same
 * batch: the good one is taken, then the relay closes as an error. */
START_TEST(t_bad)
{
	uint8_t shortm[5] = { 0, STREAM, 0, 0, 0 };

	owner_send(STREAM, 16, 1, 20);
	switch (_i) {
	case BAD_STREAM:
		owner_send(STREAM + 1, 16, 2, 20);
		break;
	case BAD_PPID:
		owner_send(STREAM, 17, 2, 20);
		break;
	case BAD_SHORT:
		ck_assert_int_eq(send(owner, shortm, sizeof(shortm), 0),
				 (ssize_t)sizeof(shortm));
		break;
	case BAD_LONG:
		owner_send(STREAM, 16, 2, MAXSEG + 1);
		break;
	}
	owner_send(STREAM, 16, 3, 20);
	run();
	ck_assert_uint_eq(st.n, 1);
	ck_assert_uint_eq(st.first[0], 1);
	ck_assert_int_eq(st.closed, 2);
}
END_TEST

/* The owner closes its end after two messages: both taken, then the
 * relay closes without an error. */
START_TEST(t_owner_close)
{
	owner_send(STREAM, 16, 1, 20);
	owner_send(STREAM, 16, 2, 20);
	close(owner);
	owner = -1;
	run();
	ck_assert_uint_eq(st.n, 2);
	ck_assert_int_eq(st.closed, 1);
}
END_TEST

/* Messages for the owner: in order, each with the session's header. */
START_TEST(t_to_owner)
{
	uint8_t seg[MAXSEG], got[SCTP_RELAY_HDR + MAXSEG + 1];

	for (unsigned int i = 0; i < 3; i++) {
		memset(seg, (int)(0x10 + i), sizeof(seg));
		ck_assert_int_eq(sctp_relay_to_owner(relay, i == 2 ? 17 : 16,
						     seg, 50 * (i + 1)),
				 0);
	}
	for (unsigned int i = 0; i < 3; i++) {
		ssize_t n = recv(owner, got, sizeof(got), MSG_DONTWAIT);

		ck_assert_int_eq(n, (ssize_t)(SCTP_RELAY_HDR + 50 * (i + 1)));
		ck_assert_uint_eq(got[1], STREAM);
		ck_assert_uint_eq(got[7], i == 2 ? 17 : 16);
		ck_assert_uint_eq(got[SCTP_RELAY_HDR], 0x10 + i);
	}
	errno = 0;
	ck_assert_int_eq(sctp_relay_to_owner(relay, 16, seg, MAXSEG + 1), -1);
	ck_assert_int_eq(errno, EINVAL);
}
END_TEST

static Suite *relay_suite(void)
{
	Suite *s = suite_create("sctp_relay");
	TCase *tc = tcase_create("relay");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, t_batches);
	tcase_add_test(tc, t_held);
	tcase_add_loop_test(tc, t_bad, 0, BAD_N);
	tcase_add_test(tc, t_owner_close);
	tcase_add_test(tc, t_to_owner);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(relay_suite)
