/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The socket of an established connection is taken exactly once.
 * iwcm_create_qp() is thread-safe, so it may race with another
 * iwcm_create_qp() or with iwcm_conn_release_fd() on the same connection
 * in another thread: exactly one wins, the others fail with EBADF, and
 * nothing reads the connection's socket state without its lock (run
 * under TSan to see it).  A QP that cannot be made gives the socket back.
 * Connections are synthesized over a socketpair (synth.h), no daemon.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "internal.h"
#include "synth.h"

/* Rounds per race: each a new connection and two threads. */
#define RACE_ROUNDS 200

struct racer {
	struct iwcm_conn *conn;
	struct iwcm_pd *pd;
	const struct iwcm_qp_init_attr *attr;
	atomic_int *ready;  /* both threads spin on it to start together */
	bool create;	    /* iwcm_create_qp(), else iwcm_conn_release_fd() */
	struct iwcm_qp *qp; /* out */
	int fd;		    /* out: released descriptor, or -1 */
	int err;	    /* out: errno on failure, else 0 */
};

static void *racer_run(void *arg)
{
	struct racer *r = arg;

	atomic_fetch_add(r->ready, 1);
	while (atomic_load(r->ready) < 2)
		;
	errno = 0;
	if (r->create) {
		r->qp = iwcm_create_qp(r->conn, r->pd, r->attr);
		r->err = r->qp ? 0 : errno;
	} else {
		r->fd = iwcm_conn_release_fd(r->conn);
		r->err = r->fd >= 0 ? 0 : errno;
	}
	return NULL;
}

static struct iwcm_conn *synth_conn(struct iwcm_ctx *ctx, int *peer)
{
	struct iwcm_synth st;
	struct iwcm_conn *c;
	int sv[2];

	memset(&st, 0, sizeof(st));
	st.initiator = 1;
	st.mpa_rev = 2;
	st.version = 1;
	st.crc = 1;
	st.ird = st.ord = 4;
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	c = iwcm_conn_synth(ctx, sv[0], &st);
	ck_assert_ptr_nonnull(c);
	*peer = sv[1];
	return c;
}

static void qp_attr(struct iwcm_qp_init_attr *a, struct iwcm_cq *cq)
{
	memset(a, 0, sizeof(*a));
	a->send_cq = a->recv_cq = cq;
	a->max_send_wr = a->max_recv_wr = 4;
}

/*
 * Loop 0: iwcm_create_qp() against iwcm_conn_release_fd(); loop 1: two
 * iwcm_create_qp() calls.  One winner per round, the loser gets EBADF.
 */
START_TEST(test_take_race)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_qp_init_attr attr;
	struct iwcm_pd *pd;
	struct iwcm_cq *cq;
	int round;

	ck_assert_ptr_nonnull(ctx);
	pd = iwcm_alloc_pd(ctx);
	ck_assert_ptr_nonnull(pd);
	cq = iwcm_create_cq(ctx, 64, NULL, NULL);
	ck_assert_ptr_nonnull(cq);
	qp_attr(&attr, cq);
	for (round = 0; round < RACE_ROUNDS; round++) {
		atomic_int ready = 0;
		struct racer r[2];
		pthread_t t[2];
		int peer, i, won = 0;
		struct iwcm_conn *c = synth_conn(ctx, &peer);
		int want = iwcm_conn_get_fd(c);

		ck_assert_int_ge(want, 0);
		for (i = 0; i < 2; i++) {
			memset(&r[i], 0, sizeof(r[i]));
			r[i].conn = c;
			r[i].pd = pd;
			r[i].attr = &attr;
			r[i].ready = &ready;
			r[i].create = i == 0 || _i == 1;
			r[i].fd = -1;
		}
		for (i = 0; i < 2; i++)
			ck_assert_int_eq(pthread_create(&t[i], NULL, racer_run,
							&r[i]),
					 0);
		for (i = 0; i < 2; i++)
			ck_assert_int_eq(pthread_join(t[i], NULL), 0);
		for (i = 0; i < 2; i++) {
			if (r[i].err == 0) {
				won++;
				if (!r[i].create)
					ck_assert_int_eq(r[i].fd, want);
			} else {
				ck_assert_int_eq(r[i].err, EBADF);
			}
		}
		ck_assert_int_eq(won, 1);
		/* Taken: the connection no longer hands it out. */
		errno = 0;
		ck_assert_int_eq(iwcm_conn_get_fd(c), -1);
		ck_assert_int_eq(errno, EBADF);
		errno = 0;
		ck_assert_int_eq(iwcm_conn_release_fd(c), -1);
		ck_assert_int_eq(errno, EBADF);
		iwcm_conn_free(c);
		for (i = 0; i < 2; i++) {
			if (r[i].qp)
				ck_assert_int_eq(iwcm_destroy_qp(r[i].qp), 0);
			if (r[i].fd >= 0)
				close(r[i].fd);
		}
		close(peer);
	}
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

/* A QP that cannot be made leaves the socket with the connection. */
START_TEST(test_failed_create_gives_back)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(0);
	struct iwcm_qp_init_attr attr;
	struct iwcm_conn *c;
	struct iwcm_pd *pd;
	struct iwcm_cq *cq;
	struct iwcm_qp *qp;
	int peer, fd;

	ck_assert_ptr_nonnull(ctx);
	pd = iwcm_alloc_pd(ctx);
	cq = iwcm_create_cq(ctx, 64, NULL, NULL);
	ck_assert_ptr_nonnull(pd);
	ck_assert_ptr_nonnull(cq);
	c = synth_conn(ctx, &peer);
	fd = iwcm_conn_get_fd(c);
	ck_assert_int_ge(fd, 0);

	/* Refused before the socket is touched. */
	qp_attr(&attr, cq);
	attr.max_send_wr = 0;
	errno = 0;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &attr));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(iwcm_conn_get_fd(c), fd);

	/* Refused after the socket was taken (a transport the datapath
	 * does not run): it is given back. */
	qp_attr(&attr, cq);
	c->transport = IWCM_TRANSPORT_SCTP + 1;
	errno = 0;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &attr));
	ck_assert_int_eq(errno, EOPNOTSUPP);
	ck_assert_int_eq(iwcm_conn_get_fd(c), fd);
	/* DDP over SCTP without a usable segment size: given back too */
	c->transport = IWCM_TRANSPORT_SCTP;
	c->sctp_max_segment = 0;
	errno = 0;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &attr));
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(iwcm_conn_get_fd(c), fd);
	c->transport = IWCM_TRANSPORT_TCP;

	/* Taken once by a QP, then never again. */
	qp_attr(&attr, cq);
	qp = iwcm_create_qp(c, pd, &attr);
	ck_assert_ptr_nonnull(qp);
	errno = 0;
	ck_assert_ptr_null(iwcm_create_qp(c, pd, &attr));
	ck_assert_int_eq(errno, EBADF);
	iwcm_conn_free(c);
	ck_assert_int_eq(iwcm_destroy_qp(qp), 0);
	close(peer);
	ck_assert_int_eq(iwcm_destroy_cq(cq), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(pd), 0);
	iwcm_ctx_close(ctx);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("conn_fd");
	SRunner *sr;
	int failed;

	add_loop_tcase(s, "take_race", test_take_race, 2);
	add_tcase(s, "failed_create_gives_back", test_failed_create_gives_back);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
