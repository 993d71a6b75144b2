/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The provider's connection calls do not wait for the daemon (the fabric
 * opens its context with IWCM_CTX_ASYNC_CM): fi_connect() returns once
 * the request is sent, and what the daemon refuses reaches the endpoint's
 * EQ as an error entry (fi_cm(3)), here over a real iwcmd -d with
 * max_pending_per_uid = 1; a bad IWCM_POLL_US fails fi_fabric(); and
 * the work a connection's end flushes says whose end it was.
 */
#include "config.h"

#include <poll.h>
#include <time.h>

#include "fabric_harness.h"

/* The next entry of eq must be an error: its entry in *err. */
static void eq_error(struct fid_eq *eq, struct fi_eq_err_entry *err)
{
	struct fi_eq_cm_entry e;
	uint32_t ev;

	ck_assert_int_eq(eq_wait(eq, &ev, &e, sizeof(e)), -FI_EAVAIL);
	memset(err, 0, sizeof(*err));
	ck_assert_int_eq(fi_eq_readerr(eq, err, 0), sizeof(*err));
}

/* Accept the request in cb: both ends are connected. */
static void accept_request(struct net *n, struct cm_buf *cb)
{
	uint32_t ev;

	ep_setup(n, &n->s, cb->e.info);
	ck_assert_int_eq(fi_accept(n->s.ep, NULL, 0), 0);
	fi_freeinfo(cb->e.info);
	ck_assert_int_ge(eq_wait(n->s.eq, &ev, cb, sizeof(*cb)), 0);
	ck_assert_int_eq(ev, FI_CONNECTED);
	ck_assert_int_ge(eq_wait(n->c.eq, &ev, cb, sizeof(*cb)), 0);
	ck_assert_int_eq(ev, FI_CONNECTED);
}

/*
 * A request waits for the listener's decision, so a second connect is
 * over the daemon's limit: fi_connect() still returns 0, and the
 * refusal comes as FI_EMFILE on that endpoint's EQ (prov_errno
 * IWCM_STATUS_LIMIT).  The first connection then completes.
 */
START_TEST(refused_through_eq)
{
	struct fi_eq_err_entry err;
	struct net n;
	struct side c2;
	struct cm_buf cb;
	uint32_t ev;

	net_open(&n);
	memset(&c2, 0, sizeof(c2));
	side_open(&n, &c2, true);
	ep_setup(&n, &n.c, n.info);
	ep_setup(&n, &c2, n.info);
	ck_assert_int_eq(fi_connect(n.c.ep, &n.addr, NULL, 0), 0);
	ck_assert_int_eq(eq_wait(n.s.eq, &ev, &cb, sizeof(cb)), sizeof(cb.e));
	ck_assert_int_eq(ev, FI_CONNREQ);

	ck_assert_int_eq(fi_connect(c2.ep, &n.addr, NULL, 0), 0);
	eq_error(c2.eq, &err);
	ck_assert_ptr_eq(err.fid, &c2.ep->fid);
	ck_assert_int_eq(err.err, FI_EMFILE);
	ck_assert_int_eq(err.prov_errno, 5); /* IWCM_STATUS_LIMIT */

	accept_request(&n, &cb);

	ck_assert_int_eq(fi_close(&c2.ep->fid), 0);
	side_close(&c2);
	net_close(&n);
}
END_TEST

/*
 * A bad IWCM_POLL_US: libiwcm refuses the fabric's context
 * (iwcm_ctx_open(3)), so fi_fabric() fails with -FI_EINVAL; a good one,
 * and 0 (no polling), open it, and its connections complete.
 */
/* A connection made and closed under the environment as it is. */
static void connect_once(void)
{
	struct cm_buf cb;
	struct net n;
	uint32_t ev;

	net_open(&n);
	ep_setup(&n, &n.c, n.info);
	ck_assert_int_eq(fi_connect(n.c.ep, &n.addr, NULL, 0), 0);
	ck_assert_int_eq(eq_wait(n.s.eq, &ev, &cb, sizeof(cb)), sizeof(cb.e));
	ck_assert_int_eq(ev, FI_CONNREQ);
	accept_request(&n, &cb);
	net_close(&n);
}

START_TEST(poll_us_env)
{
	static const char *const bad[] = { "x", "100001", "-1", "" };
	struct fi_info *h = hints_new();
	struct fi_info *info = getinfo_at(h, "127.0.0.1");
	struct fid_fabric *fab;
	size_t i;

	fi_freeinfo(h);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(setenv("IWCM_POLL_US", bad[i], 1), 0);
		ck_assert_int_eq(fi_fabric(info->fabric_attr, &fab, NULL),
				 -FI_EINVAL);
	}
	ck_assert_int_eq(setenv("IWCM_POLL_US", "100000", 1), 0);
	ck_assert_int_eq(fi_fabric(info->fabric_attr, &fab, NULL), 0);
	ck_assert_int_eq(fi_close(&fab->fid), 0);
	fi_freeinfo(info);
	/* no polling: the CM thread sleeps at once, and still connects */
	ck_assert_int_eq(setenv("IWCM_POLL_US", "0", 1), 0);
	connect_once();
	unsetenv("IWCM_POLL_US");
}
END_TEST

/* A bad FI_IWCM_PROGRESS or IWCM_PROGRESS_IDLE_US is refused by
 * fi_fabric() (and fi_getinfo() for the former); the thread's tick at 0
 * (it moves everything at once) still carries a connection's data. */
START_TEST(progress_env)
{
	static const char *const bad_idle[] = { "x", "1000001", "-1", "" };
	struct fi_info *h = hints_new();
	struct fi_info *info = getinfo_at(h, "127.0.0.1"), *none = NULL;
	struct fid_fabric *fab;
	size_t i;

	ck_assert_int_eq(setenv("FI_IWCM_PROGRESS", "sometimes", 1), 0);
	ck_assert_int_eq(fi_fabric(info->fabric_attr, &fab, NULL), -FI_EINVAL);
	ck_assert_int_ne(fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", NULL, 0, h,
				    &none),
			 0);
	ck_assert_ptr_null(none);
	unsetenv("FI_IWCM_PROGRESS");
	fi_freeinfo(h);
	for (i = 0; i < ARRAY_SIZE(bad_idle); i++) {
		ck_assert_int_eq(
			setenv("IWCM_PROGRESS_IDLE_US", bad_idle[i], 1), 0);
		ck_assert_int_eq(fi_fabric(info->fabric_attr, &fab, NULL),
				 -FI_EINVAL);
	}
	fi_freeinfo(info);
	ck_assert_int_eq(setenv("IWCM_PROGRESS_IDLE_US", "0", 1), 0);
	connect_once();
	unsetenv("IWCM_PROGRESS_IDLE_US");
}
END_TEST

/*
 * A receive flushed from its queue pair says why (fi_iwcm(7)): the
 * peer's end of the connection went away, FI_ECONNRESET (Open MPI
 * fails the request with it, where FI_ECANCELED would complete it as if
 * MPI_Cancel had), then FI_SHUTDOWN; the application's own
 * fi_shutdown() ended it, FI_ECANCELED.
 */
START_TEST(flush_reason)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct fi_eq_cm_entry cm;
	struct net n;
	uint32_t ev;

	net_open(&n);
	net_connect(&n, false);
	ck_assert_int_eq(fi_recv(n.c.ep, n.c.buf, 64, fi_mr_desc(n.c.mr), 0,
				 (void *)21),
			 0);
	ck_assert_int_eq(fi_recv(n.s.ep, n.s.buf, 64, fi_mr_desc(n.s.mr), 0,
				 (void *)31),
			 0);
	/* c closes its end: for s, the peer is gone. */
	ck_assert_int_eq(fi_shutdown(n.c.ep, 0), 0);
	ck_assert_int_eq(cq_wait(n.s.cq, &e, &err), -FI_EAVAIL);
	ck_assert_int_eq(err.err, FI_ECONNRESET);
	ck_assert_ptr_eq(err.op_context, (void *)31);
	ck_assert(err.flags & FI_RECV);
	ck_assert_int_eq(eq_wait(n.s.eq, &ev, &cm, sizeof(cm)), sizeof(cm));
	ck_assert_int_eq(ev, FI_SHUTDOWN);
	ck_assert_ptr_eq(cm.fid, &n.s.ep->fid);
	/* s's close completes c's: c's receive was cancelled by its own
	 * fi_shutdown(). */
	ck_assert_int_eq(fi_close(&n.s.ep->fid), 0);
	n.s.ep = NULL;
	ck_assert_int_eq(cq_wait(n.c.cq, &e, &err), -FI_EAVAIL);
	ck_assert_int_eq(err.err, FI_ECANCELED);
	ck_assert_ptr_eq(err.op_context, (void *)21);
	ck_assert_int_eq(eq_wait(n.c.eq, &ev, &cm, sizeof(cm)), sizeof(cm));
	ck_assert_int_eq(ev, FI_SHUTDOWN);
	net_close(&n);
}
END_TEST

static Suite *fabric_cm_suite(void)
{
	Suite *s = suite_create("fabric_cm");

	add_tcase(s, "refused_through_eq", refused_through_eq);
	add_tcase(s, "poll_us_env", poll_us_env);
	add_tcase(s, "progress_env", progress_env);
	add_tcase(s, "flush_reason", flush_reason);
	return s;
}

int main(void)
{
	return fabric_run(fabric_cm_suite(), "max_pending_per_uid = 1\n");
}
