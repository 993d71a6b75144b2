/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The progress engine: one libuv loop per context, watching the socket
 * of every QP (uv_poll) and woken by a doorbell (uv_async) when another
 * thread changed what a QP waits for.  By default a thread runs the
 * loop, so one-sided operations complete without the application; with
 * IWCM_CTX_MANUAL_PROGRESS iwcm_progress() runs it.
 *
 * libuv handles may only be touched by the thread running the loop, so
 * the other threads put a QP on dp.sync and ring the doorbell; the loop
 * thread (re)arms, starts or closes the QP's poll and its disconnect
 * timer.  Only uv_async_send() is called from other threads.
 *
 * The disconnect timer is a uv_timer: the progress thread's uv_run()
 * honours it, and so does iwcm_progress(), whose bounded wait ends when
 * the next timer is due.
 *
 * The thread is the fallback of the application's own threads, which
 * progress their QPs themselves (cprog.c).  It watches a QP's socket for
 * reading only while the QP is in the background (qp->bg): no thread of
 * the application entered the library for it during the last tick
 * (IWCM_PROGRESS_IDLE_US) and none sleeps on its completion channel.
 * Woken by a background QP that an application thread has touched
 * since, the thread leaves it to that thread and starts the tick, which
 * gives the QP back to the background once its callers are gone, so a
 * one-sided operation waits at most two ticks when nobody calls.  The
 * tick runs only while some QP is left to the application.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "dp.h"

static void progress_qp_apply(struct dp *dp, struct iwcm_qp *qp);

static void progress_work(struct dp *dp)
{
	__atomic_add_fetch(&dp->work, 1, __ATOMIC_RELAXED);
}

/* A handle of a QP is closed (loop thread, no lock held). */
static void progress_handle_closed(uv_handle_t *h)
{
	struct iwcm_qp *qp = h->data;
	struct dp *dp = qp->ctx->dp;

	pthread_mutex_lock(&qp->lock);
	if (h == (uv_handle_t *)&qp->timer) {
		qp->timer_state = DP_H_CLOSED;
	} else {
		qp->poll_state = DP_H_CLOSED;
		/* libuv let go of an aborted QP's socket: close it now,
		 * before its number can be reused under the watcher. */
		if (qp->abort_fd >= 0) {
			close(qp->abort_fd);
			qp->abort_fd = -1;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	/* progress_detach_qp() waits on dp.cond under dp.lock. */
	pthread_mutex_lock(&dp->lock);
	pthread_cond_broadcast(&dp->cond);
	pthread_mutex_unlock(&dp->lock);
}

/* Has the loop nothing to change for this QP's timer? */
static bool progress_timer_synced(const struct iwcm_qp *qp)
{
	return (qp->timer_state == DP_H_ACTIVE) == qp_timed(qp);
}

/* Has the loop nothing to change for this QP, poll or timer? */
static bool progress_qp_in_sync(const struct iwcm_qp *qp)
{
	if (qp->fsm_state == QP_S_DESTROYED || qp->abort_fd >= 0 ||
	    !progress_timer_synced(qp))
		return false;
	/* Reset and closed: nothing left to watch. */
	if (qp->fd < 0)
		return true;
	return (qp->poll_state == DP_H_IDLE || qp->poll_state == DP_H_ACTIVE) &&
	       progress_qp_events(qp) == qp->poll_events;
}

/* What the loop watches the QP's socket for. */
int progress_qp_events(const struct iwcm_qp *qp)
{
	int ev = qp_poll_events(qp);

	if (!qp->bg)
		ev &= ~UV_READABLE;
	return ev;
}

/* Is an application thread in the library for this QP, or asleep on its
 * completion channel?  (loop thread, qp->lock held) */
static bool progress_qp_called(struct iwcm_qp *qp)
{
	uint32_t stamp = __atomic_load_n(&qp->cp_stamp, __ATOMIC_RELAXED);
	bool called = stamp != qp->cp_seen;
	struct iwcm_comp_channel *s = qp->send_cq->channel;
	struct iwcm_comp_channel *r = qp->recv_cq->channel;

	qp->cp_seen = stamp;
	return called ||
	       (s && __atomic_load_n(&s->waiters, __ATOMIC_RELAXED)) ||
	       (r && __atomic_load_n(&r->waiters, __ATOMIC_RELAXED));
}

static void progress_on_tick(uv_timer_t *t);

/* Run the tick while a QP is left to the application (loop thread). */
static void progress_tick_start(struct dp *dp)
{
	uint64_t ms = (dp->idle_us + 999) / 1000;

	if (dp->tick_state != DP_H_IDLE)
		return;
	uv_timer_start(&dp->tick, progress_on_tick, ms, ms);
	dp->tick_state = DP_H_ACTIVE;
}

/* The disconnect timeout expired (loop thread, no lock held). */
static void progress_on_timer(uv_timer_t *t)
{
	struct iwcm_qp *qp = t->data;
	struct dp *dp = qp->ctx->dp;

	pthread_mutex_lock(&qp->lock);
	qp->timer_state = DP_H_IDLE;
	/* A destroyed QP's handles are closed through dp.sync. */
	if (qp->fsm_state != QP_S_DESTROYED) {
		if (qp_timed(qp)) {
			progress_work(dp);
			qp_event(qp, QP_EV_TIMER, NULL);
		}
		progress_qp_apply(dp, qp);
	}
	pthread_mutex_unlock(&qp->lock);
}

/* Run the disconnect timer exactly while the QP is closing (loop thread,
 * qp->lock held). */
static void progress_qp_timer(struct dp *dp, struct iwcm_qp *qp)
{
	uint64_t now, left;

	if (progress_timer_synced(qp))
		return;
	if (qp->timer_state == DP_H_ACTIVE) {
		uv_timer_stop(&qp->timer);
		qp->timer_state = DP_H_IDLE;
		return;
	}
	if (qp->timer_state == DP_H_NONE) {
		/* uv_timer_init() cannot fail. */
		uv_timer_init(&dp->loop, &qp->timer);
		qp->timer.data = qp;
		qp->timer_state = DP_H_IDLE;
	}
	/* The deadline counts from iwcm_qp_disconnect(); the loop's clock
	 * may be old in manual mode. */
	uv_update_time(&dp->loop);
	now = uv_now(&dp->loop);
	left = qp->close_deadline > now ? qp->close_deadline - now : 0;
	uv_timer_start(&qp->timer, progress_on_timer, left, 0);
	qp->timer_state = DP_H_ACTIVE;
}

/* Close a QP's handles for its destruction (loop thread, dp.lock held). */
static void progress_handle_close(uv_handle_t *h, enum dp_handle *st)
{
	if (*st == DP_H_NONE) {
		*st = DP_H_CLOSED;
	} else if (*st == DP_H_IDLE || *st == DP_H_ACTIVE) {
		*st = DP_H_CLOSING;
		uv_close(h, progress_handle_closed);
	}
}

/* Close a QP's handles for its destruction (loop thread, dp.lock and
 * qp->lock held). */
static void progress_qp_close(struct dp *dp, struct iwcm_qp *qp)
{
	progress_handle_close((uv_handle_t *)&qp->timer, &qp->timer_state);
	progress_handle_close((uv_handle_t *)&qp->poll, &qp->poll_state);
	pthread_cond_broadcast(&dp->cond);
}

/* A QP's socket is readable or writable (loop thread, no lock held):
 * only this QP's lock is held across its reads and writes. */
static void progress_on_poll(uv_poll_t *h, int status, int events)
{
	struct iwcm_qp *qp = h->data;
	struct dp *dp = qp->ctx->dp;

	pthread_mutex_lock(&qp->lock);
	if (qp->fsm_state == QP_S_DESTROYED || qp->poll_state >= DP_H_CLOSING) {
		pthread_mutex_unlock(&qp->lock);
		return;
	}
	progress_work(dp);
	if (status < 0) {
		/* libuv reports a socket error: read it as a reset. */
		events = UV_READABLE | UV_WRITABLE;
	}
	if (events & UV_WRITABLE) {
		qp->tx_blocked = false;
		qp_tx_progress(qp);
	}
	/* Octets the daemon read are not in the socket: the first call
	 * takes them. */
	if ((events & (UV_READABLE | UV_DISCONNECT)) || qp_rx_buffered(qp))
		qp_rx_progress(qp);
	/* An application thread progresses this QP now: leave its socket
	 * to that thread until the tick finds it gone. */
	if (qp->bg && dp->idle_us && progress_qp_called(qp)) {
		qp->bg = false;
		progress_tick_start(dp);
	}
	cqw_qp_sync(qp);
	progress_qp_apply(dp, qp);
	pthread_mutex_unlock(&qp->lock);
}

/* Every tick: a QP that no application thread called for since the last
 * one goes back to the background (loop thread). */
static void progress_on_tick(uv_timer_t *t)
{
	struct dp *dp = t->data;
	struct iwcm_qp *qp;
	unsigned int left = 0;

	pthread_mutex_lock(&dp->lock);
	TAILQ_FOREACH (qp, &dp->qps, entry) {
		bool called;

		if (pthread_mutex_trylock(&qp->lock)) {
			left++; /* a caller moves its data right now */
			continue;
		}
		if (qp->fsm_state == QP_S_DESTROYED) {
			pthread_mutex_unlock(&qp->lock);
			continue;
		}
		called = progress_qp_called(qp);
		if (qp->bg == called) {
			qp->bg = !called;
			progress_qp_apply(dp, qp);
		}
		left += !qp->bg;
		pthread_mutex_unlock(&qp->lock);
	}
	if (!left) {
		uv_timer_stop(&dp->tick);
		dp->tick_state = DP_H_IDLE;
	}
	pthread_mutex_unlock(&dp->lock);
}

/* Bring a QP's poll and timer in line with its state (loop thread,
 * qp->lock held; dp.lock too for a destroyed QP).  No socket I/O: a new
 * poll is started writable, and its first callback does the I/O. */
static void progress_qp_apply(struct dp *dp, struct iwcm_qp *qp)
{
	int ev;

	if (qp->fsm_state == QP_S_DESTROYED) {
		progress_qp_close(dp, qp);
		return;
	}
	progress_qp_timer(dp, qp);
	if (qp->poll_state >= DP_H_CLOSING)
		return;
	if (qp->abort_fd >= 0) {
		/* Reset by the disconnect timeout: stop watching, then
		 * close (progress_handle_closed). */
		if (qp->poll_state != DP_H_NONE) {
			qp->poll_events = 0;
			progress_handle_close((uv_handle_t *)&qp->poll,
					      &qp->poll_state);
		} else {
			close(qp->abort_fd);
			qp->abort_fd = -1;
		}
		return;
	}
	if (qp->fd < 0)
		return;
	if (qp->poll_state == DP_H_NONE) {
		if (uv_poll_init(&dp->loop, &qp->poll, qp->fd) < 0) {
			/* Not watched, nothing can be written. */
			qp_fatal(qp, QP_R_LOCAL, false, RDMAP_TERM_LAYER_RDMAP,
				 RDMAP_ETYPE_CATASTROPHIC, 0, NULL, 0);
			return;
		}
		qp->poll.data = qp;
		qp->poll_state = DP_H_IDLE;
		qp->poll_events = 0;
		/* The first callback comes at once: it writes what was
		 * posted and reads the octets the daemon read. */
		if (progress_qp_events(qp)) {
			ev = progress_qp_events(qp) | UV_WRITABLE;
			uv_poll_start(&qp->poll, ev, progress_on_poll);
			qp->poll_state = DP_H_ACTIVE;
			qp->poll_events = ev;
			return;
		}
	}
	ev = progress_qp_events(qp);
	if (ev == qp->poll_events)
		return;
	if (ev)
		uv_poll_start(&qp->poll, ev, progress_on_poll);
	else
		uv_poll_stop(&qp->poll);
	qp->poll_state = ev ? DP_H_ACTIVE : DP_H_IDLE;
	qp->poll_events = ev;
}

/* Apply every pending change (loop thread, dp.lock held: a QP queued
 * here is not freed meanwhile). */
static void progress_sync_all(struct dp *dp)
{
	TAILQ_HEAD(, iwcm_qp) busy = TAILQ_HEAD_INITIALIZER(busy);
	struct iwcm_qp *qp;

	for (;;) {
		pthread_mutex_lock(&dp->sync_lock);
		qp = TAILQ_FIRST(&dp->sync);
		if (qp)
			TAILQ_REMOVE(&dp->sync, qp, sync_entry);
		pthread_mutex_unlock(&dp->sync_lock);
		if (!qp)
			break;
		/* dp.lock is held: no waiting for a QP that a caller moves
		 * data for (or a deregistration waits for); it stays queued
		 * and the doorbell rings again. */
		if (pthread_mutex_trylock(&qp->lock)) {
			TAILQ_INSERT_TAIL(&busy, qp, sync_entry);
			continue;
		}
		pthread_mutex_lock(&dp->sync_lock);
		qp->sync_queued = false;
		pthread_mutex_unlock(&dp->sync_lock);
		progress_qp_apply(dp, qp);
		pthread_mutex_unlock(&qp->lock);
	}
	if (TAILQ_EMPTY(&busy))
		return;
	pthread_mutex_lock(&dp->sync_lock);
	while ((qp = TAILQ_FIRST(&busy))) {
		TAILQ_REMOVE(&busy, qp, sync_entry);
		TAILQ_INSERT_TAIL(&dp->sync, qp, sync_entry);
	}
	pthread_mutex_unlock(&dp->sync_lock);
	uv_async_send(&dp->doorbell);
}

static void progress_on_doorbell(uv_async_t *h)
{
	struct dp *dp = h->data;

	pthread_mutex_lock(&dp->lock);
	progress_sync_all(dp);
	if (dp->stopping)
		uv_stop(&dp->loop);
	pthread_mutex_unlock(&dp->lock);
}

static void *progress_thread(void *arg)
{
	struct dp *dp = arg;
	sigset_t all;

	/* Signals belong to the application's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	uv_run(&dp->loop, UV_RUN_DEFAULT);
	return NULL;
}

/* Set up the loop, and start the thread unless progress is manual. */
int progress_start(struct dp *dp)
{
	int r;

	if (!dp->loop_init) {
		if (uv_loop_init(&dp->loop) < 0)
			return ERR(ENOMEM);
		if (uv_async_init(&dp->loop, &dp->doorbell,
				  progress_on_doorbell) < 0) {
			uv_loop_close(&dp->loop);
			return ERR(ENOMEM);
		}
		dp->doorbell.data = dp;
		/* uv_timer_init() cannot fail. */
		uv_timer_init(&dp->loop, &dp->tick);
		dp->tick.data = dp;
		dp->tick_state = DP_H_IDLE;
		dp->loop_init = true;
	}
	if (dp->manual || dp->thread_started)
		return 0;
	r = pthread_create(&dp->thread, NULL, progress_thread, dp);
	if (r)
		return ERR(r);
	dp->thread_started = true;
	dp->loop_busy = true;
	return 0;
}

static void progress_close_walk(uv_handle_t *h, void *arg)
{
	(void)arg;
	if (!uv_is_closing(h))
		uv_close(h, NULL);
}

/* Stop the thread and close the loop and every handle. */
void progress_stop(struct dp *dp)
{
	if (!dp->loop_init)
		return;
	if (dp->thread_started) {
		pthread_mutex_lock(&dp->lock);
		dp->stopping = true;
		pthread_mutex_unlock(&dp->lock);
		uv_async_send(&dp->doorbell);
		pthread_join(dp->thread, NULL);
		dp->thread_started = false;
	}
	/* The loop is ours now: close what is left and let it finish. */
	uv_walk(&dp->loop, progress_close_walk, NULL);
	uv_run(&dp->loop, UV_RUN_DEFAULT);
	uv_loop_close(&dp->loop);
	dp->loop_init = false;
}

static void progress_sync_queue(struct dp *dp, struct iwcm_qp *qp)
{
	pthread_mutex_lock(&dp->sync_lock);
	if (!qp->sync_queued) {
		TAILQ_INSERT_TAIL(&dp->sync, qp, sync_entry);
		qp->sync_queued = true;
	}
	pthread_mutex_unlock(&dp->sync_lock);
}

static void progress_sync_dequeue(struct dp *dp, struct iwcm_qp *qp)
{
	pthread_mutex_lock(&dp->sync_lock);
	if (qp->sync_queued) {
		TAILQ_REMOVE(&dp->sync, qp, sync_entry);
		qp->sync_queued = false;
	}
	pthread_mutex_unlock(&dp->sync_lock);
}

/* Ask the loop to apply a QP's new state (qp->lock held). */
void progress_sync_qp(struct dp *dp, struct iwcm_qp *qp)
{
	if (!dp->loop_init)
		return;
	if (progress_qp_in_sync(qp))
		return;
	progress_sync_queue(dp, qp);
	uv_async_send(&dp->doorbell);
}

/* Run the loop ourselves once (manual mode, dp.lock held, not busy). */
static void progress_run_once(struct dp *dp, uv_run_mode mode)
{
	dp->loop_busy = true;
	progress_sync_all(dp);
	pthread_mutex_unlock(&dp->lock);
	uv_run(&dp->loop, mode);
	pthread_mutex_lock(&dp->lock);
	dp->loop_busy = false;
	pthread_cond_broadcast(&dp->cond);
}

/* Both handles of a destroyed QP are closed, or were never opened. */
static bool progress_qp_closed(struct iwcm_qp *qp, bool untouched)
{
	bool r;

	pthread_mutex_lock(&qp->lock);
	r = untouched ? qp->poll_state == DP_H_NONE &&
				qp->timer_state == DP_H_NONE :
			qp->poll_state == DP_H_CLOSED &&
				qp->timer_state == DP_H_CLOSED;
	pthread_mutex_unlock(&qp->lock);
	return r;
}

/* Close a QP's handles and wait until libuv let go of them (dp.lock
 * held, the QP destroyed: only the loop touches it now). */
void progress_detach_qp(struct dp *dp, struct iwcm_qp *qp)
{
	/* dp.lock keeps the loop from taking it off dp.sync meanwhile. */
	if (!dp->loop_init || progress_qp_closed(qp, true)) {
		progress_sync_dequeue(dp, qp);
		return;
	}
	progress_sync_queue(dp, qp);
	while (!progress_qp_closed(qp, false)) {
		if (dp->loop_busy) {
			/* The loop thread (or an iwcm_progress() caller)
			 * closes it. */
			uv_async_send(&dp->doorbell);
			pthread_cond_wait(&dp->cond, &dp->lock);
		} else {
			progress_run_once(dp, UV_RUN_NOWAIT);
		}
	}
	progress_sync_dequeue(dp, qp);
}

/*
 * A manual-progress context polled without waiting: read each QP's
 * socket directly (one read(2) when a message is there, where the loop
 * takes epoll_wait(2) and then the read), and let libuv run one call in
 * PROGRESS_DIRECT_LOOP, or at once when a QP needs its poll or timer
 * changed or waits to write.  With more than PROGRESS_DIRECT_CHEAP QPs a
 * pass that found nothing costs a read(2) per QP, so the next call asks
 * the loop instead: one epoll_wait(2) says which sockets have data.
 * Returns false when the loop must run now (caller holds dp.lock, the
 * loop is not busy).
 */
#define PROGRESS_DIRECT_QPS 64
#define PROGRESS_DIRECT_CHEAP 4
#define PROGRESS_DIRECT_LOOP 16

static bool progress_direct(struct dp *dp)
{
	struct iwcm_qp *qp, *qps[PROGRESS_DIRECT_QPS];
	unsigned int n = 0;
	bool empty, ok, found = false;

	pthread_mutex_lock(&dp->sync_lock);
	empty = TAILQ_EMPTY(&dp->sync);
	pthread_mutex_unlock(&dp->sync_lock);
	if (!empty || ++dp->direct_calls % PROGRESS_DIRECT_LOOP == 0)
		return false;
	if (dp->direct_idle) {
		dp->direct_idle = false;
		return false;
	}
	TAILQ_FOREACH (qp, &dp->qps, entry) {
		if (n == PROGRESS_DIRECT_QPS)
			return false;
		/* A disconnect timer must fire in time however seldom
		 * the caller polls: the loop runs while one is armed. */
		pthread_mutex_lock(&qp->lock);
		ok = progress_qp_in_sync(qp) && !qp->tx_blocked &&
		     qp->poll_events == UV_READABLE &&
		     qp->timer_state != DP_H_ACTIVE;
		pthread_mutex_unlock(&qp->lock);
		if (!ok)
			return false;
		qps[n++] = qp;
	}
	/* The caller is the loop's thread now; a QP destroyed meanwhile
	 * waits for it (progress_detach_qp()), so qps[] stays valid, and
	 * no lock of the context is held across the reads. */
	dp->loop_busy = true;
	pthread_mutex_unlock(&dp->lock);
	for (unsigned int i = 0; i < n; i++) {
		qp = qps[i];
		pthread_mutex_lock(&qp->lock);
		if (qp_rx_progress(qp)) {
			found = true;
			progress_work(dp);
			/* Its poll or timer changes (say, to wait until it
			 * can write). */
			if (!progress_qp_in_sync(qp) &&
			    qp->fsm_state != QP_S_DESTROYED)
				progress_qp_apply(dp, qp);
		}
		pthread_mutex_unlock(&qp->lock);
	}
	pthread_mutex_lock(&dp->lock);
	dp->loop_busy = false;
	dp->direct_idle = !found && n > PROGRESS_DIRECT_CHEAP;
	pthread_cond_broadcast(&dp->cond);
	return true;
}

/* Drive the progress engine of a manual-progress context. */
IWCM_EXPORT int iwcm_progress(struct iwcm_ctx *ctx, int timeout_ms)
{
	struct dp *dp;
	unsigned long before;
	uv_run_mode mode = UV_RUN_ONCE;

	if (!ctx)
		return ERR(EINVAL);
	dp = dp_get(ctx);
	if (!dp)
		return -1;
	if (!dp->manual)
		return ERR(EINVAL);
	pthread_mutex_lock(&dp->lock);
	if (progress_start(dp) < 0) {
		pthread_mutex_unlock(&dp->lock);
		return -1;
	}
	if (dp->loop_busy) {
		/* Another thread is progressing: wait for it. */
		while (dp->loop_busy)
			pthread_cond_wait(&dp->cond, &dp->lock);
		pthread_mutex_unlock(&dp->lock);
		return 0;
	}
	before = __atomic_load_n(&dp->work, __ATOMIC_RELAXED);
	if (timeout_ms < 0) {
		progress_run_once(dp, mode);
	} else if (timeout_ms == 0 && progress_direct(dp)) {
		/* done without the loop */
	} else {
		/*
		 * A bounded wait is done outside libuv: a uv timer armed
		 * here can expire before uv_run() computes its poll timeout
		 * (the machine being slow is enough), and uv_run() then
		 * blocks with no timer at all.  Poll the loop's backend fd
		 * instead, which the doorbell and every QP socket wake.
		 */
		progress_run_once(dp, UV_RUN_NOWAIT);
		if (timeout_ms > 0 &&
		    __atomic_load_n(&dp->work, __ATOMIC_RELAXED) == before) {
			struct pollfd p = { uv_backend_fd(&dp->loop), POLLIN,
					    0 };
			int wait = timeout_ms, next;

			/* A disconnect timer due sooner ends the wait; the
			 * run below fires it. */
			uv_update_time(&dp->loop);
			next = uv_backend_timeout(&dp->loop);
			if (next >= 0 && next < wait)
				wait = next;
			dp->loop_busy = true;
			pthread_mutex_unlock(&dp->lock);
			(void)poll(&p, 1, wait);
			pthread_mutex_lock(&dp->lock);
			dp->loop_busy = false;
			pthread_cond_broadcast(&dp->cond);
			progress_run_once(dp, UV_RUN_NOWAIT);
		}
	}
	before = __atomic_load_n(&dp->work, __ATOMIC_RELAXED) - before;
	pthread_mutex_unlock(&dp->lock);
	return before > INT32_MAX ? INT32_MAX : (int)before;
}
