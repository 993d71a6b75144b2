/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Progress in the caller's thread.  A thread that polls a CQ, waits on a
 * completion channel or posts work moves the data of the QPs it concerns
 * itself: non-blocking reads and writes of each QP's socket under that
 * QP's lock, taken with a trylock so that two callers never wait for each
 * other (the one holding it is doing the work).  This is what libfabric's
 * tcp provider does in fi_cq_read() and Open MPI's TCP BTL in
 * opal_progress(): a message costs the one wake-up of the thread that
 * wants it, where a progress thread in between costs two.
 *
 * Each CQ keeps the QPs that complete on it and an epoll set of their
 * sockets, watched for reading while the QP reads and for writing while
 * its socket is full.  A pass asks the set which sockets have something
 * (epoll_wait(2) without waiting, which takes no socket's lock), then
 * reads those: one read(2) per arriving batch.  A completion channel's
 * descriptor is an epoll set holding its eventfd and the epoll sets of
 * its CQs, so a thread asleep on it, in iwcm_get_cq_event() or in its
 * own loop, is woken by the socket itself and progresses it.
 *
 * The context's libuv thread (progress.c) is the fallback: it watches a
 * QP's socket for reading only while no application thread has entered
 * the library for that QP during a tick (IWCM_PROGRESS_IDLE_US), so that
 * one-sided operations (inbound Writes, Read Requests, atomics) complete
 * without any call from the target.
 *
 * Lifetime: a caller finds a QP through its CQ's list under the CQ's
 * qlock (reader) and holds cp_refs across its pass; cqw_qp_detach()
 * takes the QP off the list (writer) and waits until no caller holds it.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dp.h"

/* The value of IWCM_PROGRESS_IDLE_US; -1 with EINVAL when it is not a
 * decimal number from 0 to CPROG_IDLE_US_MAX. */
int cprog_idle_parse(const char *s, unsigned int *us)
{
	return env_uint_parse(s, CPROG_IDLE_US_MAX, us);
}

int cprog_idle_init(struct iwcm_ctx *ctx)
{
	const char *s = secure_getenv("IWCM_PROGRESS_IDLE_US");

	ctx->progress_idle_us = CPROG_IDLE_US_DEFAULT;
	if (s && cprog_idle_parse(s, &ctx->progress_idle_us) < 0)
		return -1;
	return 0;
}

/* One pass over a QP whose lock we hold: what its socket has, what
 * waits to be written; the work done. */
static unsigned int qp_pass(struct iwcm_qp *qp)
{
	unsigned int work = 0;
	struct dp *dp = qp->ctx->dp;

	if (qp->fsm_state == QP_S_DESTROYED || qp->fd < 0)
		return 0;
	if (qp->tx_blocked && qp_tx_writes(qp)) {
		uint32_t before = qp->tx_count;

		qp->tx_blocked = false;
		qp_tx_progress(qp);
		work += qp->tx_count != before;
	}
	if (qp_rx_progress(qp))
		work++;
	if (work) {
		__atomic_add_fetch(&dp->work, work, __ATOMIC_RELAXED);
		cqw_qp_sync(qp);
		progress_sync_qp(dp, qp);
	}
	return work;
}

unsigned int cprog_qp(struct iwcm_qp *qp)
{
	unsigned int work;

	cprog_touch(qp);
	if (pthread_mutex_trylock(&qp->lock))
		return 0; /* another thread moves its data now */
	work = qp_pass(qp);
	pthread_mutex_unlock(&qp->lock);
	return work;
}

/*
 * Take a reference on each QP of a pass whose socket has something (qlock
 * held as reader).  The epoll set says which without taking any socket's
 * lock: a read(2) of an empty TCP socket takes the socket's lock, which
 * a busy poller then contends for with the peer's delivery into that
 * socket (tcp_poll() takes none).  libfabric's tcp provider polls the
 * same way.
 *
 * A CQ of one QP (a ping-pong; ofi_rxm between two ranks) is the
 * exception: asking the set first costs a second system call for every
 * message that comes, so its socket is read directly, one read(2) per
 * pass whether or not it has something, as a busy-polling TCP program
 * does.  The delivery that meets our hold of the socket's lock is queued
 * on its backlog and processed as we let go, in this thread.  A QP whose
 * socket is full waits for the set to say it has room.
 */
static unsigned int cq_pick_one(struct iwcm_cq *cq, struct iwcm_qp **out)
{
	struct iwcm_qp *qp = cq->qps[0];

	if (__atomic_load_n(&qp->tx_blocked, __ATOMIC_RELAXED))
		return 0;
	__atomic_add_fetch(&qp->cp_refs, 1, __ATOMIC_ACQ_REL);
	out[0] = qp;
	return 1;
}

static unsigned int cq_pick(struct iwcm_cq *cq, struct iwcm_qp **out,
			    unsigned int max)
{
	struct epoll_event ev[CPROG_PICK];
	unsigned int n = 0;
	int k;

	k = epoll_wait(cq->epfd, ev, (int)(max < CPROG_PICK ? max : CPROG_PICK),
		       0);
	for (int i = 0; i < k; i++)
		out[n++] = ev[i].data.ptr;
	for (unsigned int i = 0; i < n; i++)
		__atomic_add_fetch(&out[i]->cp_refs, 1, __ATOMIC_ACQ_REL);
	return n;
}

unsigned int cprog_cq(struct iwcm_cq *cq)
{
	struct iwcm_qp *qps[CPROG_PICK];
	unsigned int n, work = 0;

	if (!__atomic_load_n(&cq->nqps, __ATOMIC_RELAXED))
		return 0;
	pthread_rwlock_rdlock(&cq->qlock);
	n = cq->nqps == 1 ? cq_pick_one(cq, qps) : 0;
	if (!n)
		n = cq_pick(cq, qps, sizeof(qps) / sizeof(qps[0]));
	pthread_rwlock_unlock(&cq->qlock);
	for (unsigned int i = 0; i < n; i++) {
		work += cprog_qp(qps[i]);
		__atomic_sub_fetch(&qps[i]->cp_refs, 1, __ATOMIC_ACQ_REL);
	}
	return work;
}

/* ---- completion channels ---- */

#define CPROG_WAIT_EVENTS 8

int cprog_channel_wait(struct iwcm_comp_channel *ch, int timeout_ms)
{
	struct epoll_event ev[CPROG_WAIT_EVENTS];
	int k;

	__atomic_add_fetch(&ch->waiters, 1, __ATOMIC_ACQ_REL);
	do
		k = epoll_wait(ch->fd, ev, CPROG_WAIT_EVENTS, timeout_ms);
	while (k < 0 && errno == EINTR && timeout_ms < 0);
	__atomic_sub_fetch(&ch->waiters, 1, __ATOMIC_ACQ_REL);
	if (k < 0)
		return errno == EINTR ? 0 : -1;
	/* A CQ of the channel whose sockets have something: progress it
	 * here (the CQ outlives a wait on its channel, as in
	 * libibverbs). */
	for (int i = 0; i < k; i++)
		if (ev[i].data.ptr)
			cprog_cq(ev[i].data.ptr);
	return 0;
}

/* Move the data of one QP in the calling thread. */
IWCM_EXPORT int iwcm_qp_progress(struct iwcm_qp *qp, int timeout_ms)
{
	unsigned int work;
	struct pollfd p = { .fd = -1 };

	if (!qp)
		return ERR(EINVAL);
	cprog_touch(qp);
	/* Whether the socket has something, without its lock (cq_pick()),
	 * waiting up to timeout_ms; another thread moving this QP's data
	 * now is not waited for. */
	if (pthread_mutex_trylock(&qp->lock))
		return 0;
	if (qp->fsm_state != QP_S_DESTROYED && qp->fd >= 0) {
		p.fd = qp->fd;
		p.events = (short)((qp_rx_open(qp) ? POLLIN : 0) |
				   (qp->tx_blocked ? POLLOUT : 0));
	}
	pthread_mutex_unlock(&qp->lock);
	if (p.fd < 0 || !p.events || poll(&p, 1, timeout_ms) <= 0)
		return 0;
	work = cprog_qp(qp);
	return work > INT32_MAX ? INT32_MAX : (int)work;
}

/* The fields of struct iwcm_wc always written: those up to wc_flags. */
#define DP_WC_MIN_SIZE \
	(offsetof(struct iwcm_wc, wc_flags) + sizeof(unsigned int))

/* Was the CQ armed since the last poll?  (Clears it.) */
static bool cq_arm_fresh(struct iwcm_cq *cq)
{
	return __atomic_load_n(&cq->arm_fresh, __ATOMIC_RELAXED) &&
	       __atomic_exchange_n(&cq->arm_fresh, false, __ATOMIC_RELAXED);
}

/*
 * Take up to num_entries completions into an array of wc_size-octet
 * records: the caller's sizeof(struct iwcm_wc), passed by the inline
 * iwcm_poll_cq(), so that the structure may grow.  An empty queue makes
 * the caller move the data of the CQ's QPs first, except in the poll
 * that follows iwcm_req_notify_cq(): it only looks at the ring.  That
 * poll checks for completions made before the arming, and the caller
 * sleeps next on the channel, whose descriptor is readable while a
 * socket of the CQ is, and whose wait moves that socket's data: reading
 * the socket here would cost every message of an event-driven loop one
 * more read(2) that finds nothing (TCP's blocking read(2) makes none).
 * Any later poll reads again.
 */
IWCM_EXPORT int iwcm_poll_cq_sz(struct iwcm_cq *cq, int num_entries,
				struct iwcm_wc *wc, size_t wc_size)
{
	bool fresh;
	int n;

	if (!cq || num_entries < 0 || (num_entries && !wc) ||
	    wc_size < DP_WC_MIN_SIZE)
		return ERR(EINVAL);
	fresh = cq_arm_fresh(cq);
	n = cq_poll_ring(cq, num_entries, wc, wc_size);
	if (n || !num_entries || fresh || !cprog_cq(cq))
		return n;
	return cq_poll_ring(cq, num_entries, wc, wc_size);
}
