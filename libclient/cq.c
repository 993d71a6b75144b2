/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Completion channels and completion queues.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

/* The channel whose events the calling thread is taking, while it moves
 * the data of its QPs (iwcm_get_cq_event()): its own completions need
 * no wake-up. */
__thread struct iwcm_comp_channel *cq_channel_taking;

/*
 * Keep the channel's eventfd readable exactly while events are queued
 * (ch->lock held): one write when the queue fills, one read when it
 * empties, not one of each per event.
 */
void channel_signal(struct iwcm_comp_channel *ch)
{
	bool want = !TAILQ_EMPTY(&ch->pending);
	uint64_t v = 1;

	if (want == ch->signaled)
		return;
	if (want ? write(ch->efd, &v, sizeof(v)) == (ssize_t)sizeof(v) :
		   read(ch->efd, &v, sizeof(v)) == (ssize_t)sizeof(v))
		ch->signaled = want;
}

/* Free a completion queue (its QPs are gone). */
void cq_free(struct iwcm_cq *cq)
{
	cqw_cq_fini(cq);
	pthread_mutex_destroy(&cq->lock);
	free(cq->ring);
	free(cq);
}

/* Free a completion channel (its CQs are gone). */
void channel_free(struct iwcm_comp_channel *ch)
{
	pthread_mutex_destroy(&ch->lock);
	if (ch->fd >= 0)
		close(ch->fd);
	if (ch->efd >= 0)
		close(ch->efd);
	free(ch);
}

/* ---- completion channels and queues ---- */

/* Create a completion channel. */
IWCM_EXPORT struct iwcm_comp_channel *
iwcm_create_comp_channel(struct iwcm_ctx *ctx)
{
	struct dp *dp = dp_get(ctx);
	struct iwcm_comp_channel *ch;

	if (!dp)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->ctx = ctx;
	if (cqw_channel_init(ch) < 0) {
		free(ch);
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->pending);
	pthread_mutex_lock(&dp->lock);
	TAILQ_INSERT_TAIL(&dp->channels, ch, entry);
	pthread_mutex_unlock(&dp->lock);
	return ch;
}

/* Destroy a completion channel no CQ uses. */
IWCM_EXPORT int iwcm_destroy_comp_channel(struct iwcm_comp_channel *channel)
{
	struct dp *dp;

	if (!channel)
		return ERR(EINVAL);
	dp = channel->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	if (channel->refs) {
		pthread_mutex_unlock(&dp->lock);
		return ERR(EBUSY);
	}
	TAILQ_REMOVE(&dp->channels, channel, entry);
	pthread_mutex_unlock(&dp->lock);
	channel_free(channel);
	return 0;
}

/* The descriptor of a completion channel. */
IWCM_EXPORT int
iwcm_comp_channel_get_fd(const struct iwcm_comp_channel *channel)
{
	if (!channel)
		return ERR(EINVAL);
	return channel->fd;
}

/* Create a completion queue of at least cqe entries. */
IWCM_EXPORT struct iwcm_cq *iwcm_create_cq(struct iwcm_ctx *ctx, int cqe,
					   void *cq_context,
					   struct iwcm_comp_channel *channel)
{
	struct dp *dp;
	struct iwcm_cq *cq;

	if (!ctx || cqe < 1 || (unsigned int)cqe > DP_MAX_CQE ||
	    (channel && channel->ctx != ctx))
		return ERR_PTR(EINVAL);
	dp = dp_get(ctx);
	if (!dp)
		return NULL;
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return NULL;
	cq->ring = calloc((size_t)cqe, sizeof(*cq->ring));
	if (!cq->ring) {
		free(cq);
		return NULL;
	}
	cq->ctx = ctx;
	cq->size = (uint32_t)cqe;
	cq->cq_context = cq_context;
	cq->channel = channel;
	if (cqw_cq_init(cq) < 0 ||
	    (channel && cqw_channel_add(channel, cq) < 0)) {
		int e = errno;

		if (cq->epfd >= 0)
			cqw_cq_fini(cq);
		free(cq->ring);
		free(cq);
		return ERR_PTR(e);
	}
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_lock(&dp->lock);
	if (channel)
		channel->refs++;
	TAILQ_INSERT_TAIL(&dp->cqs, cq, entry);
	pthread_mutex_unlock(&dp->lock);
	return cq;
}

/* Destroy a completion queue no QP uses and no unacknowledged event
 * names. */
IWCM_EXPORT int iwcm_destroy_cq(struct iwcm_cq *cq)
{
	struct dp *dp;
	struct iwcm_comp_channel *ch;

	if (!cq)
		return ERR(EINVAL);
	dp = cq->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	if (cq->refs) {
		pthread_mutex_unlock(&dp->lock);
		return ERR(EBUSY);
	}
	ch = cq->channel;
	if (ch) {
		pthread_mutex_lock(&ch->lock);
		/* The caller still holds events naming cq (libibverbs
		 * waits here; failing cannot deadlock one thread). */
		if (cq->ch_unacked) {
			pthread_mutex_unlock(&ch->lock);
			pthread_mutex_unlock(&dp->lock);
			return ERR(EBUSY);
		}
		/* Events of this CQ not yet taken disappear with it. */
		cq->ch_events = 0;
		if (cq->ch_queued)
			TAILQ_REMOVE(&ch->pending, cq, ch_entry);
		cq->ch_queued = false;
		channel_signal(ch);
		pthread_mutex_unlock(&ch->lock);
		cqw_channel_del(ch, cq);
		ch->refs--;
	}
	TAILQ_REMOVE(&dp->cqs, cq, entry);
	pthread_mutex_unlock(&dp->lock);
	cq_free(cq);
	return 0;
}

/* Queue a completion, notify the channel if armed. */
bool dp_cq_push(struct iwcm_cq *cq, const struct iwcm_wc *wc)
{
	struct iwcm_comp_channel *ch = cq->channel;
	bool notify = false;

	pthread_mutex_lock(&cq->lock);
	if (cq->count == cq->size) {
		cq->overflowed = true;
		pthread_mutex_unlock(&cq->lock);
		return false;
	}
	cq->ring[(cq->head + cq->count) % cq->size] = *wc;
	__atomic_store_n(&cq->count, cq->count + 1, __ATOMIC_RELEASE);
	if (cq->arm == CQ_ARM_ALL || (cq->arm == CQ_ARM_SOLICITED &&
				      ((wc->wc_flags & IWCM_WC_SOLICITED) ||
				       wc->status != IWCM_WC_SUCCESS)))
		notify = true;
	if (notify && ch) {
		/* One event per request for notification. */
		cq->arm = CQ_ARM_NONE;
		pthread_mutex_lock(&ch->lock);
		cq->ch_events++;
		if (!cq->ch_queued) {
			TAILQ_INSERT_TAIL(&ch->pending, cq, ch_entry);
			cq->ch_queued = true;
		}
		/* A thread taking this channel's events moved the data
		 * itself: it looks at the queue next, no need to wake it. */
		if (cq_channel_taking != ch)
			channel_signal(ch);
		pthread_mutex_unlock(&ch->lock);
	}
	pthread_mutex_unlock(&cq->lock);
	return true;
}

/* True the first time a caller sees the CQ overflowed (QPs of several
 * threads may push to it). */
bool cq_overflow_first(struct iwcm_cq *cq)
{
	bool first;

	pthread_mutex_lock(&cq->lock);
	first = !cq->overflow_told;
	cq->overflow_told = true;
	pthread_mutex_unlock(&cq->lock);
	return first;
}

/*
 * Copy a completion into the caller's record of size octets: its prefix,
 * with the wc_flags of optional fields it cannot hold cleared, and zeros
 * past the structure we know.
 */
static void wc_copy_sized(void *dst, const struct iwcm_wc *src, size_t size)
{
	struct iwcm_wc w = *src;

	if (size < offsetof(struct iwcm_wc, invalidated_stag) +
			   sizeof(w.invalidated_stag))
		w.wc_flags &= ~(unsigned int)IWCM_WC_WITH_INV;
	if (size < offsetof(struct iwcm_wc, imm_data) + sizeof(w.imm_data))
		w.wc_flags &= ~(unsigned int)IWCM_WC_WITH_IMM;
	if (size <= sizeof(w)) {
		memcpy(dst, &w, size);
		return;
	}
	memcpy(dst, &w, sizeof(w));
	memset((char *)dst + sizeof(w), 0, size - sizeof(w));
}

/* Take up to num_entries completions of wc_size octets each (checked by
 * iwcm_poll_cq_sz(), cprog.c). */
int cq_poll_ring(struct iwcm_cq *cq, int num_entries, struct iwcm_wc *wc,
		 size_t wc_size)
{
	int n = 0;

	/* An empty queue is seen without the lock, so that a caller
	 * polling in a loop never holds up the progress engine. */
	if (!__atomic_load_n(&cq->count, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&cq->lock);
	while (n < num_entries && cq->count) {
		if (wc_size == sizeof(*wc))
			wc[n] = cq->ring[cq->head];
		else
			wc_copy_sized((char *)wc + (size_t)n * wc_size,
				      &cq->ring[cq->head], wc_size);
		n++;
		cq->head = (cq->head + 1) % cq->size;
		__atomic_store_n(&cq->count, cq->count - 1, __ATOMIC_RELAXED);
	}
	pthread_mutex_unlock(&cq->lock);
	return n;
}

/* Ask for one channel event at the next (solicited) completion. */
IWCM_EXPORT int iwcm_req_notify_cq(struct iwcm_cq *cq, int solicited_only)
{
	if (!cq)
		return ERR(EINVAL);
	if (!cq->channel)
		return ERR(EINVAL);
	pthread_mutex_lock(&cq->lock);
	/* An earlier request for every completion is not narrowed. */
	if (!solicited_only || cq->arm != CQ_ARM_ALL)
		cq->arm = solicited_only ? CQ_ARM_SOLICITED : CQ_ARM_ALL;
	__atomic_store_n(&cq->arm_fresh, true, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

/* Acknowledge completion events taken with iwcm_get_cq_event(). */
IWCM_EXPORT void iwcm_ack_cq_events(struct iwcm_cq *cq, unsigned int nevents)
{
	struct iwcm_comp_channel *ch;

	/* A CQ without a channel never had an event to acknowledge. */
	if (!cq || !(ch = cq->channel))
		return;
	pthread_mutex_lock(&ch->lock);
	cq->ch_unacked -= nevents < cq->ch_unacked ? nevents : cq->ch_unacked;
	pthread_mutex_unlock(&ch->lock);
}

/* Drop this QP's completions from a CQ. */
void cq_purge_qp(struct iwcm_cq *cq, const struct iwcm_qp *qp)
{
	uint32_t n = 0;

	pthread_mutex_lock(&cq->lock);
	for (uint32_t i = 0; i < cq->count; i++) {
		struct iwcm_wc *w = &cq->ring[(cq->head + i) % cq->size];

		if (w->qp != qp)
			cq->ring[(cq->head + n++) % cq->size] = *w;
	}
	__atomic_store_n(&cq->count, n, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&cq->lock);
}
