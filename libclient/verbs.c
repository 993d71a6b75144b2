/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The verbs objects of <iwcm/verbs.h>: protection domains, memory
 * regions and their STags, completion queues and channels, shared
 * receive queues, queue pairs, work request posting and asynchronous
 * events.  The engine that moves the data is qp.c; the thread is
 * progress.c.  dp.h explains the locking.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

/* Asynchronous events kept for a reader that does not read. */
#define DP_AQ_MAX 4096u

static pthread_mutex_t dp_create_lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- the context's datapath ---- */

/* The datapath of ctx, created on first use. */
struct dp *dp_get(struct iwcm_ctx *ctx)
{
	struct dp *dp;

	if (!ctx)
		return ERR_PTR(EINVAL);
	/* Made once, never replaced: no lock once it is there. */
	dp = __atomic_load_n(&ctx->dp, __ATOMIC_ACQUIRE);
	if (dp)
		return dp;
	pthread_mutex_lock(&dp_create_lock);
	dp = ctx->dp;
	if (dp)
		goto out;
	dp = calloc(1, sizeof(*dp));
	if (!dp)
		goto out;
	dp->ctx = ctx;
	dp->manual = ctx->flags & IWCM_CTX_MANUAL_PROGRESS;
	dp->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	if (dp->async_fd < 0) {
		free(dp);
		dp = NULL;
		goto out;
	}
	pthread_mutex_init(&dp->lock, NULL);
	pthread_mutex_init(&dp->alock, NULL);
	pthread_cond_init(&dp->cond, NULL);
	dp->stags.limit = DP_STAG_INDEX_MAX;
	TAILQ_INIT(&dp->pds);
	TAILQ_INIT(&dp->mrs);
	TAILQ_INIT(&dp->cqs);
	TAILQ_INIT(&dp->channels);
	TAILQ_INIT(&dp->srqs);
	TAILQ_INIT(&dp->qps);
	TAILQ_INIT(&dp->sync);
	__atomic_store_n(&ctx->dp, dp, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&dp_create_lock);
	return dp;
}

static void rq_free(struct rq *rq)
{
	free(rq->ring);
	free(rq->sges);
	memset(rq, 0, sizeof(*rq));
}

static void qp_free(struct iwcm_qp *qp)
{
	qp_engine_free(qp);
	if (qp->state == IWCM_QPS_RTS && qp->fd >= 0) {
		/*
		 * Still connected, no graceful close begun: an abortive one
		 * (RFC 5040 §6.2 LLP Abortive Termination; iw_cm does the
		 * same when a connected cm_id is destroyed).  A TCP RST
		 * tells the peer at once instead of a FIN it could take
		 * for a graceful close.
		 */
		struct linger lg = { .l_onoff = 1, .l_linger = 0 };

		(void)setsockopt(qp->fd, SOL_SOCKET, SO_LINGER, &lg,
				 sizeof(lg));
	}
	if (qp->fd >= 0)
		close(qp->fd);
	if (qp->abort_fd >= 0)
		close(qp->abort_fd);
	rq_free(&qp->rq);
	free(qp);
}

static void cq_free(struct iwcm_cq *cq)
{
	pthread_mutex_destroy(&cq->lock);
	free(cq->ring);
	free(cq);
}

static void channel_free(struct iwcm_comp_channel *ch)
{
	pthread_mutex_destroy(&ch->lock);
	if (ch->fd >= 0)
		close(ch->fd);
	free(ch);
}

/* Free every datapath object of a context. */
void dp_ctx_free(struct iwcm_ctx *ctx)
{
	struct dp *dp = ctx->dp;
	struct iwcm_qp *qp;
	struct iwcm_srq *srq;
	struct iwcm_cq *cq;
	struct iwcm_comp_channel *ch;
	struct iwcm_mr *mr;
	struct iwcm_pd *pd;

	if (!dp)
		return;
	progress_stop(dp);
	while ((qp = TAILQ_FIRST(&dp->qps))) {
		TAILQ_REMOVE(&dp->qps, qp, entry);
		qp_free(qp);
	}
	while ((srq = TAILQ_FIRST(&dp->srqs))) {
		TAILQ_REMOVE(&dp->srqs, srq, entry);
		rq_free(&srq->rq);
		free(srq);
	}
	while ((cq = TAILQ_FIRST(&dp->cqs))) {
		TAILQ_REMOVE(&dp->cqs, cq, entry);
		cq_free(cq);
	}
	while ((ch = TAILQ_FIRST(&dp->channels))) {
		TAILQ_REMOVE(&dp->channels, ch, entry);
		channel_free(ch);
	}
	while ((mr = TAILQ_FIRST(&dp->mrs))) {
		TAILQ_REMOVE(&dp->mrs, mr, entry);
		free(mr);
	}
	while ((pd = TAILQ_FIRST(&dp->pds))) {
		TAILQ_REMOVE(&dp->pds, pd, entry);
		free(pd);
	}
	dp_stag_table_free(&dp->stags);
	free(dp->aq);
	close(dp->async_fd);
	pthread_cond_destroy(&dp->cond);
	pthread_mutex_destroy(&dp->alock);
	pthread_mutex_destroy(&dp->lock);
	free(dp);
	ctx->dp = NULL;
}

/* ---- STags ---- */

/* Give mr an STag: a free index and that index's next key. */
int dp_stag_alloc(struct dp_stag_table *t, struct iwcm_mr *mr)
{
	struct dp_stag_slot *s;
	uint32_t idx;

	if (!t->free_head) {
		uint32_t old = t->n, n, first;

		/* Index 0 stays unused: no STag below 256 is ever valid. */
		first = old ? old : 1;
		if (first > t->limit)
			return ERR(ENOSPC);
		n = old ? old * 2 : 64;
		if (n > t->limit + 1 || n < old)
			n = t->limit + 1;
		s = realloc(t->slots, (size_t)n * sizeof(*s));
		if (!s)
			return -1;
		memset(s + old, 0, (size_t)(n - old) * sizeof(*s));
		for (uint32_t i = first; i < n; i++)
			s[i].next_free = i + 1 < n ? i + 1 : 0;
		t->slots = s;
		t->n = n;
		t->free_head = first;
		t->free_tail = n - 1;
	}
	idx = t->free_head;
	s = &t->slots[idx];
	t->free_head = s->next_free;
	if (!t->free_head)
		t->free_tail = 0;
	/* RFC 5042 §5.1: a new key on every reuse, so that a stale STag of
	 * the index's previous region no longer matches. */
	s->key++;
	s->mr = mr;
	s->next_free = 0;
	t->used++;
	mr->stag = DP_STAG_MAKE(idx, s->key);
	return 0;
}

/* Return an STag's index to the table (oldest free index reused first). */
void dp_stag_free(struct dp_stag_table *t, uint32_t stag)
{
	uint32_t idx = DP_STAG_INDEX(stag);

	/* A stale STag (the index reused since) frees nothing. */
	if (!idx || idx >= t->n || !t->slots[idx].mr ||
	    t->slots[idx].key != DP_STAG_KEY(stag))
		return;
	t->slots[idx].mr = NULL;
	t->slots[idx].next_free = 0;
	if (t->free_tail)
		t->slots[t->free_tail].next_free = idx;
	else
		t->free_head = idx;
	t->free_tail = idx;
	t->used--;
}

/* The region an STag names, or NULL (unknown index or stale key). */
struct iwcm_mr *dp_stag_lookup(const struct dp_stag_table *t, uint32_t stag)
{
	uint32_t idx = DP_STAG_INDEX(stag);
	const struct dp_stag_slot *s;

	if (!idx || idx >= t->n)
		return NULL;
	s = &t->slots[idx];
	if (!s->mr || s->key != DP_STAG_KEY(stag))
		return NULL;
	return s->mr;
}

/* Free the table's memory. */
void dp_stag_table_free(struct dp_stag_table *t)
{
	free(t->slots);
	t->slots = NULL;
	t->n = t->used = t->free_head = t->free_tail = 0;
}

/* RFC 5042 §5: STag valid, same PD, access rights, no wrap, in bounds. */
enum dp_prot dp_mr_check(const struct dp_stag_table *t, uint32_t stag,
			 const struct iwcm_pd *pd, uint64_t to, uint64_t len,
			 unsigned int access, struct iwcm_mr **out)
{
	struct iwcm_mr *mr = dp_stag_lookup(t, stag);
	uint64_t base;

	if (out)
		*out = mr;
	/* RFC 5042 §5.1: an invalidated STag is no longer valid. */
	if (!mr || !mr->valid)
		return DP_PROT_INVALID_STAG;
	/* RFC 5042 §5.2: the STag must belong to the stream's PD. */
	if (mr->pd != pd)
		return DP_PROT_PD;
	/* RFC 5042 §5.3: the access rights granted at registration. */
	if ((mr->access & access) != access)
		return DP_PROT_ACCESS;
	/* RFC 5041 §7.1 check 5: the 64-bit sum must not wrap. */
	if (len > UINT64_MAX - to)
		return DP_PROT_WRAP;
	/* RFC 5041 §7.1 checks 3-4: start and end inside the region. */
	base = (uint64_t)(uintptr_t)mr->addr;
	if (to < base || to - base > mr->length ||
	    len > mr->length - (to - base))
		return DP_PROT_BOUNDS;
	return DP_PROT_OK;
}

/* ---- asynchronous events ---- */

/* Queue an asynchronous event; the async fd counts them. */
void dp_async_push(struct dp *dp, const struct iwcm_async_event *ev)
{
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&dp->alock);
	if (dp->aq_count == dp->aq_size) {
		uint32_t size = dp->aq_size ? dp->aq_size * 2 : 16;
		struct dp_async *aq;

		if (size > DP_AQ_MAX || !(aq = calloc(size, sizeof(*aq)))) {
			/* A reader that never reads loses the newest. */
			pthread_mutex_unlock(&dp->alock);
			return;
		}
		for (uint32_t i = 0; i < dp->aq_count; i++)
			aq[i] = dp->aq[(dp->aq_head + i) % dp->aq_size];
		free(dp->aq);
		dp->aq = aq;
		dp->aq_size = size;
		dp->aq_head = 0;
	}
	dp->aq[(dp->aq_head + dp->aq_count) % dp->aq_size].ev = *ev;
	dp->aq_count++;
	n = write(dp->async_fd, &one, sizeof(one));
	(void)n;
	pthread_mutex_unlock(&dp->alock);
}

/* Wait until fd is readable, driving progress in manual mode. */
static int dp_wait_readable(struct dp *dp, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	for (;;) {
		int r;

		if (!dp->manual) {
			r = poll(&pfd, 1, -1);
			if (r < 0 && errno != EINTR)
				return -1;
			if (r > 0)
				return 0;
			continue;
		}
		r = poll(&pfd, 1, 0);
		if (r > 0)
			return 0;
		if (r < 0 && errno != EINTR)
			return -1;
		if (iwcm_progress(dp->ctx, 100) < 0)
			return -1;
	}
}

/* The descriptor that is readable while asynchronous events wait. */
IWCM_EXPORT int iwcm_ctx_get_async_fd(const struct iwcm_ctx *ctx)
{
	struct dp *dp;

	if (!ctx)
		return ERR(EINVAL);
	dp = dp_get((struct iwcm_ctx *)ctx);
	if (!dp)
		return -1;
	return dp->async_fd;
}

/* Take the next asynchronous event. */
IWCM_EXPORT int iwcm_get_async_event(struct iwcm_ctx *ctx,
				     struct iwcm_async_event *event)
{
	struct dp *dp;

	if (!ctx || !event)
		return ERR(EINVAL);
	dp = dp_get(ctx);
	if (!dp)
		return -1;
	for (;;) {
		uint64_t v;
		ssize_t n;

		pthread_mutex_lock(&dp->alock);
		if (dp->aq_count) {
			*event = dp->aq[dp->aq_head].ev;
			dp->aq_head = (dp->aq_head + 1) % dp->aq_size;
			dp->aq_count--;
			n = read(dp->async_fd, &v, sizeof(v));
			(void)n;
			pthread_mutex_unlock(&dp->alock);
			return 0;
		}
		pthread_mutex_unlock(&dp->alock);
		if (ctx->nonblock)
			return ERR(EAGAIN);
		if (dp_wait_readable(dp, dp->async_fd) < 0)
			return -1;
	}
}

/* ---- protection domains and memory regions ---- */

/* Allocate a protection domain. */
IWCM_EXPORT struct iwcm_pd *iwcm_alloc_pd(struct iwcm_ctx *ctx)
{
	struct dp *dp = dp_get(ctx);
	struct iwcm_pd *pd;

	if (!dp)
		return NULL;
	pd = calloc(1, sizeof(*pd));
	if (!pd)
		return NULL;
	pd->ctx = ctx;
	pthread_mutex_lock(&dp->lock);
	TAILQ_INSERT_TAIL(&dp->pds, pd, entry);
	pthread_mutex_unlock(&dp->lock);
	return pd;
}

/* Free a protection domain nothing uses any more. */
IWCM_EXPORT int iwcm_dealloc_pd(struct iwcm_pd *pd)
{
	struct dp *dp;

	if (!pd)
		return ERR(EINVAL);
	dp = pd->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	if (pd->refs) {
		pthread_mutex_unlock(&dp->lock);
		return ERR(EBUSY);
	}
	TAILQ_REMOVE(&dp->pds, pd, entry);
	pthread_mutex_unlock(&dp->lock);
	free(pd);
	return 0;
}

#define ACCESS_ALL                                                           \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |                \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)

/* Register a memory region and give it an STag. */
IWCM_EXPORT struct iwcm_mr *iwcm_reg_mr(struct iwcm_pd *pd, void *addr,
					size_t length, unsigned int access)
{
	struct dp *dp;
	struct iwcm_mr *mr;
	int e;

	if (!pd || (access & ~(unsigned int)ACCESS_ALL) ||
	    (!addr && length) ||
	    (uintptr_t)addr > UINTPTR_MAX - length)
		return ERR_PTR(EINVAL);
	/* As in libibverbs: remote writes and atomics need local write. */
	if ((access & (IWCM_ACCESS_REMOTE_WRITE | IWCM_ACCESS_REMOTE_ATOMIC)) &&
	    !(access & IWCM_ACCESS_LOCAL_WRITE))
		return ERR_PTR(EINVAL);
	dp = pd->ctx->dp;
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return NULL;
	mr->pd = pd;
	mr->addr = addr;
	mr->length = length;
	mr->access = access;
	mr->valid = true;
	pthread_mutex_lock(&dp->lock);
	if (dp_stag_alloc(&dp->stags, mr) < 0) {
		e = errno;
		pthread_mutex_unlock(&dp->lock);
		free(mr);
		return ERR_PTR(e);
	}
	pd->refs++;
	TAILQ_INSERT_TAIL(&dp->mrs, mr, entry);
	pthread_mutex_unlock(&dp->lock);
	return mr;
}

/* Deregister a memory region; its STag is never valid again. */
IWCM_EXPORT int iwcm_dereg_mr(struct iwcm_mr *mr)
{
	struct dp *dp;
	struct iwcm_qp *qp;

	if (!mr)
		return ERR(EINVAL);
	dp = mr->pd->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	dp_stag_free(&dp->stags, mr->stag);
	/* Zero copy: frames still point into the region, a segment may be
	 * half placed in it; after this call the caller may free it, so
	 * copy what is not sent yet and place nothing more there. */
	TAILQ_FOREACH(qp, &dp->qps, entry) {
		qp_tx_detach(qp, mr->addr, mr->length);
		qp_rx_detach(qp, mr->addr, mr->length);
	}
	mr->pd->refs--;
	TAILQ_REMOVE(&dp->mrs, mr, entry);
	pthread_mutex_unlock(&dp->lock);
	free(mr);
	return 0;
}

/* The STag of a region (both its lkey and its rkey). */
IWCM_EXPORT uint32_t iwcm_mr_get_stag(const struct iwcm_mr *mr)
{
	return mr ? mr->stag : 0;
}

/* ---- completion channels and queues ---- */

/* Create a completion channel. */
IWCM_EXPORT struct iwcm_comp_channel *iwcm_create_comp_channel(
	struct iwcm_ctx *ctx)
{
	struct dp *dp = dp_get(ctx);
	struct iwcm_comp_channel *ch;

	if (!dp)
		return NULL;
	ch = calloc(1, sizeof(*ch));
	if (!ch)
		return NULL;
	ch->ctx = ctx;
	ch->fd = eventfd(0, EFD_CLOEXEC | EFD_SEMAPHORE);
	if (ch->fd < 0) {
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
IWCM_EXPORT int iwcm_comp_channel_get_fd(
	const struct iwcm_comp_channel *channel)
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
		while (cq->ch_events) {
			uint64_t v;

			if (read(ch->fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
				break;
			cq->ch_events--;
		}
		if (cq->ch_queued)
			TAILQ_REMOVE(&ch->pending, cq, ch_entry);
		pthread_mutex_unlock(&ch->lock);
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
	if (cq->arm == CQ_ARM_ALL ||
	    (cq->arm == CQ_ARM_SOLICITED &&
	     ((wc->wc_flags & IWCM_WC_SOLICITED) ||
	      wc->status != IWCM_WC_SUCCESS)))
		notify = true;
	if (notify && ch) {
		uint64_t one = 1;
		ssize_t n;

		/* One event per request for notification. */
		cq->arm = CQ_ARM_NONE;
		pthread_mutex_lock(&ch->lock);
		cq->ch_events++;
		if (!cq->ch_queued) {
			TAILQ_INSERT_TAIL(&ch->pending, cq, ch_entry);
			cq->ch_queued = true;
		}
		n = write(ch->fd, &one, sizeof(one));
		(void)n;
		pthread_mutex_unlock(&ch->lock);
	}
	pthread_mutex_unlock(&cq->lock);
	return true;
}

/* Take up to num_entries completions. */
IWCM_EXPORT int iwcm_poll_cq(struct iwcm_cq *cq, int num_entries,
			     struct iwcm_wc *wc)
{
	int n = 0;

	if (!cq || num_entries < 0 || (num_entries && !wc))
		return ERR(EINVAL);
	/* An empty queue is seen without the lock, so that a caller
	 * polling in a loop never holds up the progress engine. */
	if (!__atomic_load_n(&cq->count, __ATOMIC_ACQUIRE))
		return 0;
	pthread_mutex_lock(&cq->lock);
	while (n < num_entries && cq->count) {
		wc[n++] = cq->ring[cq->head];
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
	pthread_mutex_unlock(&cq->lock);
	return 0;
}

/* Wait for the next completion event of a channel. */
IWCM_EXPORT int iwcm_get_cq_event(struct iwcm_comp_channel *channel,
				  struct iwcm_cq **cq, void **cq_context)
{
	struct dp *dp;

	if (!channel || !cq)
		return ERR(EINVAL);
	dp = channel->ctx->dp;
	for (;;) {
		struct iwcm_cq *c;
		uint64_t v;
		ssize_t n;
		int fl;

		fl = fcntl(channel->fd, F_GETFL);
		if (dp->manual && fl >= 0 && !(fl & O_NONBLOCK) &&
		    dp_wait_readable(dp, channel->fd) < 0)
			return -1;
		n = read(channel->fd, &v, sizeof(v));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		pthread_mutex_lock(&channel->lock);
		c = TAILQ_FIRST(&channel->pending);
		if (!c) {
			/* Its CQ was destroyed meanwhile. */
			pthread_mutex_unlock(&channel->lock);
			continue;
		}
		if (--c->ch_events == 0) {
			TAILQ_REMOVE(&channel->pending, c, ch_entry);
			c->ch_queued = false;
		}
		c->ch_unacked++;
		pthread_mutex_unlock(&channel->lock);
		*cq = c;
		if (cq_context)
			*cq_context = c->cq_context;
		return 0;
	}
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

/* ---- receive queues ---- */

static int rq_init(struct rq *rq, uint32_t size, uint32_t max_sge)
{
	memset(rq, 0, sizeof(*rq));
	if (!max_sge)
		max_sge = 1;
	rq->ring = calloc(size, sizeof(*rq->ring));
	rq->sges = calloc((size_t)size * max_sge, sizeof(*rq->sges));
	if (!rq->ring || !rq->sges) {
		rq_free(rq);
		return ERR(ENOMEM);
	}
	rq->size = size;
	rq->max_sge = max_sge;
	for (uint32_t i = 0; i < size; i++)
		rq->ring[i].sge = rq->sges + (size_t)i * max_sge;
	return 0;
}

static int rq_check(const struct rq *rq, const struct iwcm_recv_wr *wr)
{
	uint64_t total = 0;

	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return ERR(EINVAL);
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > UINT32_MAX)
		return ERR(EINVAL);
	return 0;
}

static void rq_push(struct rq *rq, const struct iwcm_recv_wr *wr)
{
	struct rq_wqe *w = &rq->ring[(rq->head + rq->count) % rq->size];

	w->wr_id = wr->wr_id;
	w->num_sge = wr->num_sge;
	w->total = 0;
	for (int i = 0; i < wr->num_sge; i++) {
		w->sge[i] = wr->sg_list[i];
		w->total += wr->sg_list[i].length;
	}
	rq->count++;
}

/* Create a shared receive queue. */
IWCM_EXPORT struct iwcm_srq *iwcm_create_srq(struct iwcm_pd *pd,
					     uint32_t max_wr,
					     uint32_t max_sge)
{
	struct dp *dp;
	struct iwcm_srq *srq;

	if (!pd || !max_wr || max_wr > DP_MAX_WR || max_sge > DP_MAX_SGE)
		return ERR_PTR(EINVAL);
	dp = pd->ctx->dp;
	srq = calloc(1, sizeof(*srq));
	if (!srq)
		return NULL;
	if (rq_init(&srq->rq, max_wr, max_sge) < 0) {
		free(srq);
		return ERR_PTR(ENOMEM);
	}
	srq->pd = pd;
	pthread_mutex_lock(&dp->lock);
	pd->refs++;
	TAILQ_INSERT_TAIL(&dp->srqs, srq, entry);
	pthread_mutex_unlock(&dp->lock);
	return srq;
}

/* Destroy a shared receive queue no QP uses. */
IWCM_EXPORT int iwcm_destroy_srq(struct iwcm_srq *srq)
{
	struct dp *dp;

	if (!srq)
		return ERR(EINVAL);
	dp = srq->pd->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	if (srq->refs) {
		pthread_mutex_unlock(&dp->lock);
		return ERR(EBUSY);
	}
	srq->pd->refs--;
	TAILQ_REMOVE(&dp->srqs, srq, entry);
	pthread_mutex_unlock(&dp->lock);
	rq_free(&srq->rq);
	free(srq);
	return 0;
}

/* Post receive buffers to a shared receive queue. */
IWCM_EXPORT int iwcm_post_srq_recv(struct iwcm_srq *srq,
				   struct iwcm_recv_wr *wr,
				   struct iwcm_recv_wr **bad_wr)
{
	struct dp *dp;
	int e = 0;

	if (bad_wr)
		*bad_wr = NULL;
	if (!srq)
		return ERR(EINVAL);
	dp = srq->pd->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	for (; wr; wr = wr->next) {
		if (rq_check(&srq->rq, wr) < 0) {
			e = EINVAL;
			break;
		}
		if (srq->rq.count == srq->rq.size) {
			e = ENOMEM;
			break;
		}
		rq_push(&srq->rq, wr);
	}
	pthread_mutex_unlock(&dp->lock);
	if (e) {
		if (bad_wr)
			*bad_wr = wr;
		return ERR(e);
	}
	return 0;
}

/* ---- queue pairs ---- */

static int qp_attr_check(const struct iwcm_pd *pd,
			 const struct iwcm_qp_init_attr *a)
{
	const uint32_t known = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;

	if (!a || (a->comp_mask & ~known) || !a->send_cq || !a->recv_cq)
		return ERR(EINVAL);
	if ((a->comp_mask & IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT) &&
	    (!a->disconnect_timeout_ms ||
	     a->disconnect_timeout_ms > DP_DISCONNECT_TIMEOUT_MAX))
		return ERR(EINVAL);
	if (a->send_cq->ctx != pd->ctx || a->recv_cq->ctx != pd->ctx)
		return ERR(EINVAL);
	if (a->srq && a->srq->pd != pd)
		return ERR(EINVAL);
	if (!a->max_send_wr || a->max_send_wr > DP_MAX_WR ||
	    (!a->srq && (!a->max_recv_wr || a->max_recv_wr > DP_MAX_WR)) ||
	    a->max_send_sge > DP_MAX_SGE || a->max_recv_sge > DP_MAX_SGE ||
	    a->max_inline_data > DP_MAX_INLINE)
		return ERR(EINVAL);
	return 0;
}

/* Create a queue pair on an established connection, taking its socket. */
IWCM_EXPORT struct iwcm_qp *iwcm_create_qp(struct iwcm_conn *conn,
					   struct iwcm_pd *pd,
					   const struct iwcm_qp_init_attr *attr)
{
	struct dp *dp;
	struct iwcm_qp *qp;
	int fd, fl, one = 1, e;

	if (!conn || !pd || conn->ctx != pd->ctx)
		return ERR_PTR(EINVAL);
	if (qp_attr_check(pd, attr) < 0)
		return NULL;
	/* ENOTCONN, EBADF; exactly once against any thread (cm.c). */
	fd = cm_conn_take_fd(conn);
	if (fd < 0)
		return NULL;
	if (conn->transport != IWCM_TRANSPORT_TCP) {
		cm_conn_return_fd(conn);
		return ERR_PTR(EOPNOTSUPP);
	}
	dp = pd->ctx->dp;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		cm_conn_return_fd(conn);
		return ERR_PTR(ENOMEM);
	}
	qp->ctx = pd->ctx;
	qp->pd = pd;
	qp->fd = -1;
	qp->abort_fd = -1;
	qp->disconnect_ms = DP_DISCONNECT_TIMEOUT_MS;
	if (attr->comp_mask & IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT)
		qp->disconnect_ms = attr->disconnect_timeout_ms;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_context = attr->qp_context;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->max_send_sge = attr->max_send_sge ? attr->max_send_sge : 1;
	qp->max_recv_sge = attr->max_recv_sge ? attr->max_recv_sge : 1;
	qp->max_inline = attr->max_inline_data;
	qp->sq_size = attr->max_send_wr;
	qp->state = IWCM_QPS_RTS;
	if (!qp->srq && rq_init(&qp->rq, attr->max_recv_wr,
				qp->max_recv_sge) < 0) {
		free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(ENOMEM);
	}
	if (qp_engine_init(qp, conn) < 0) {
		e = errno;
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}

	/* The engine never blocks on the socket; FPDUs go out whole. */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		e = errno;
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	qp->mulpdu = mpa_stream_mulpdu(fd, qp->markers_tx);

	pthread_mutex_lock(&dp->lock);
	if (progress_start(dp) < 0) {
		e = errno;
		pthread_mutex_unlock(&dp->lock);
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}
	/* The connection keeps its state; the socket is the QP's. */
	qp->fd = fd;
	pd->refs++;
	qp->send_cq->refs++;
	qp->recv_cq->refs++;
	if (qp->srq)
		qp->srq->refs++;
	TAILQ_INSERT_TAIL(&dp->qps, qp, entry);
	progress_sync_qp(dp, qp);
	pthread_mutex_unlock(&dp->lock);
	return qp;
}

/* Destroy a queue pair and close its socket. */
IWCM_EXPORT int iwcm_destroy_qp(struct iwcm_qp *qp)
{
	struct dp *dp;

	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	qp->dying = true;
	progress_detach_qp(dp, qp);
	TAILQ_REMOVE(&dp->qps, qp, entry);
	qp_cq_purge(qp->send_cq, qp);
	if (qp->recv_cq != qp->send_cq)
		qp_cq_purge(qp->recv_cq, qp);
	qp->pd->refs--;
	qp->send_cq->refs--;
	qp->recv_cq->refs--;
	if (qp->srq)
		qp->srq->refs--;
	pthread_mutex_unlock(&dp->lock);
	qp_free(qp);
	return 0;
}

/* Close gracefully: FIN once the send queue is drained. */
IWCM_EXPORT int iwcm_qp_disconnect(struct iwcm_qp *qp)
{
	struct dp *dp;

	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	if (qp->state == IWCM_QPS_RTS) {
		qp->state = IWCM_QPS_CLOSING;
		/* Bounded: the progress engine's timer aborts a close that
		 * is not done by then (qp_close_timeout()). */
		qp->close_deadline = uv_hrtime() / 1000000 + qp->disconnect_ms;
		qp_tx_progress(qp);
		qp_close_check(qp);
		progress_sync_qp(dp, qp);
	}
	pthread_mutex_unlock(&dp->lock);
	return 0;
}

/* What the connection of a queue pair supports. */
IWCM_EXPORT int iwcm_query_qp(const struct iwcm_qp *qp,
			      struct iwcm_qp_attr *attr)
{
	struct dp *dp;

	if (!qp || !attr)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	memset(attr, 0, sizeof(*attr));
	pthread_mutex_lock(&dp->lock);
	attr->state = qp->state;
	attr->ird = qp->ird;
	attr->ord = qp->ord;
	attr->rdmap_version = qp->version;
	attr->atomics = qp->atomics;
	attr->imm_data = qp->imm_data;
	attr->markers_tx = qp->markers_tx;
	attr->markers_rx = qp->markers_rx;
	attr->crc = qp->crc;
	attr->mulpdu = qp->mulpdu;
	attr->max_inline_data = qp->max_inline;
	attr->max_sge_rd = DP_MAX_SGE_RD;
	attr->disconnect_timeout_ms = qp->disconnect_ms;
	attr->comp_mask = IWCM_QP_ATTR_MAX_SGE_RD |
			  IWCM_QP_ATTR_DISCONNECT_TIMEOUT;
	pthread_mutex_unlock(&dp->lock);
	return 0;
}

/* The qp_context given at creation. */
IWCM_EXPORT void *iwcm_qp_get_context(const struct iwcm_qp *qp)
{
	return qp ? qp->qp_context : NULL;
}

static bool wr_is_atomic(int op)
{
	return op == IWCM_WR_ATOMIC_FETCH_ADD || op == IWCM_WR_ATOMIC_CMP_SWP ||
	       op == IWCM_WR_ATOMIC_SWAP;
}

/* Check a send work request against the QP; errno for iwcm_post_send. */
static int sq_wr_check(const struct iwcm_qp *qp, const struct iwcm_send_wr *wr,
		       uint64_t *total)
{
	const unsigned int flags_all = IWCM_SEND_SIGNALED |
				       IWCM_SEND_SOLICITED | IWCM_SEND_FENCE |
				       IWCM_SEND_INLINE;
	uint64_t t = 0;
	int op = wr->opcode;

	if (op < IWCM_WR_SEND || op > IWCM_WR_ATOMIC_SWAP ||
	    (wr->send_flags & ~flags_all) || wr->num_sge < 0 ||
	    (wr->num_sge && !wr->sg_list))
		return ERR(EINVAL);
	if ((uint32_t)wr->num_sge > qp->max_send_sge)
		return ERR(EINVAL);
	for (int i = 0; i < wr->num_sge; i++)
		t += wr->sg_list[i].length;
	/* RFC 5041 §5.2: a ULP message is shorter than 2^32. */
	if (t > UINT32_MAX)
		return ERR(EINVAL);
	if (wr->send_flags & IWCM_SEND_INLINE) {
		if (t > qp->max_inline ||
		    !(op == IWCM_WR_SEND || op == IWCM_WR_SEND_WITH_INV ||
		      op == IWCM_WR_RDMA_WRITE ||
		      op == IWCM_WR_RDMA_WRITE_WITH_IMM))
			return ERR(EINVAL);
	}
	if ((op == IWCM_WR_IMM_DATA || op == IWCM_WR_RDMA_WRITE_WITH_IMM) &&
	    !qp->imm_data)
		return ERR(EOPNOTSUPP);
	if (op == IWCM_WR_IMM_DATA && wr->num_sge)
		return ERR(EINVAL);
	if (op == IWCM_WR_RDMA_READ) {
		/* RFC 5040 §4.4: the Read Request names one Data Sink STag
		 * and TO, so the response lands in one local buffer. */
		if ((uint32_t)wr->num_sge > DP_MAX_SGE_RD || !qp->ord)
			return ERR(EINVAL);
		if (wr->num_sge && wr->wr.rdma.remote_addr >
					   UINT64_MAX - t)
			return ERR(EINVAL);
	}
	if (wr_is_atomic(op)) {
		if (!qp->atomics)
			return ERR(EOPNOTSUPP);
		/* RFC 7306 §5.1: 64-bit aligned targets, one 8-octet
		 * result buffer. */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    (wr->wr.atomic.remote_addr & 7) || !qp->ord)
			return ERR(EINVAL);
	}
	*total = t;
	return 0;
}

static void sq_wqe_fill(struct iwcm_qp *qp, struct sq_wqe *w,
			const struct iwcm_send_wr *wr, uint64_t total)
{
	struct iwcm_sge *sge = w->sge;
	uint8_t *inl = w->inl_buf;

	memset(w, 0, sizeof(*w));
	w->sge = sge;
	w->inl_buf = inl;
	w->wr_id = wr->wr_id;
	w->opcode = (uint8_t)wr->opcode;
	w->state = WQE_QUEUED;
	w->signaled = qp->sq_sig_all || (wr->send_flags & IWCM_SEND_SIGNALED);
	w->solicited = wr->send_flags & IWCM_SEND_SOLICITED;
	w->fence = wr->send_flags & IWCM_SEND_FENCE;
	w->total = total;
	w->imm = wr->imm_data;
	w->inv_stag = wr->invalidate_stag;
	if (wr_is_atomic(wr->opcode)) {
		w->raddr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->cmp_add = wr->wr.atomic.compare_add;
		w->cmp_add_mask = wr->wr.atomic.compare_add_mask;
		w->swap = wr->wr.atomic.swap;
		w->swap_mask = wr->wr.atomic.swap_mask;
	} else {
		w->raddr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	}
	if (wr->send_flags & IWCM_SEND_INLINE) {
		uint64_t off = 0;

		/* Copied now: the caller may reuse its buffers at once. */
		for (int i = 0; i < wr->num_sge; i++) {
			const struct iwcm_sge *s = &wr->sg_list[i];

			if (s->length)
				memcpy(inl + off,
				       (const void *)(uintptr_t)s->addr,
				       s->length);
			off += s->length;
		}
		w->inl = true;
		w->num_sge = 0;
	} else {
		w->num_sge = wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++)
			sge[i] = wr->sg_list[i];
	}
}

static void qp_flush_wc(struct iwcm_qp *qp, struct iwcm_cq *cq,
			uint64_t wr_id, int opcode)
{
	struct iwcm_wc wc;

	memset(&wc, 0, sizeof(wc));
	wc.wr_id = wr_id;
	wc.status = IWCM_WC_WR_FLUSH_ERR;
	wc.opcode = opcode;
	/* A full CQ reports IWCM_EVENT_CQ_ERR, as for any completion. */
	qp_cq_push(qp, cq, &wc);
}

/* Post a list of send work requests. */
IWCM_EXPORT int iwcm_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr,
			       struct iwcm_send_wr **bad_wr)
{
	struct dp *dp;
	int e = 0;
	bool posted = false;

	if (bad_wr)
		*bad_wr = NULL;
	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	for (; wr; wr = wr->next) {
		uint64_t total = 0;
		struct sq_wqe *w;

		if (sq_wr_check(qp, wr, &total) < 0) {
			e = errno;
			break;
		}
		if (qp->state == IWCM_QPS_CLOSING) {
			e = ENOTCONN;
			break;
		}
		if (qp->state == IWCM_QPS_ERROR) {
			/* As libibverbs: flushed at once. */
			qp_flush_wc(qp, qp->send_cq, wr->wr_id,
				    dp_wc_opcode(wr->opcode));
			continue;
		}
		if (qp->sq_pi - qp->sq_ci == qp->sq_size) {
			e = ENOMEM;
			break;
		}
		w = &qp->sq[qp->sq_pi % qp->sq_size];
		sq_wqe_fill(qp, w, wr, total);
		qp->sq_pi++;
		posted = true;
	}
	if (posted) {
		qp_tx_progress(qp);
		progress_sync_qp(dp, qp);
	}
	pthread_mutex_unlock(&dp->lock);
	if (e) {
		if (bad_wr)
			*bad_wr = wr;
		return ERR(e);
	}
	return 0;
}

/* Post a list of receive work requests. */
IWCM_EXPORT int iwcm_post_recv(struct iwcm_qp *qp, struct iwcm_recv_wr *wr,
			       struct iwcm_recv_wr **bad_wr)
{
	struct dp *dp;
	int e = 0;
	bool posted = false;

	if (bad_wr)
		*bad_wr = NULL;
	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	for (; wr; wr = wr->next) {
		if (qp->srq || rq_check(&qp->rq, wr) < 0) {
			e = EINVAL;
			break;
		}
		if (qp->state == IWCM_QPS_ERROR) {
			qp_flush_wc(qp, qp->recv_cq, wr->wr_id, IWCM_WC_RECV);
			continue;
		}
		if (qp->rq.count == qp->rq.size) {
			e = ENOMEM;
			break;
		}
		rq_push(&qp->rq, wr);
		posted = true;
	}
	/* A segment may have waited for this buffer (it never does: a
	 * Send without a buffer is a Terminate), nothing else to do. */
	(void)posted;
	pthread_mutex_unlock(&dp->lock);
	if (e) {
		if (bad_wr)
			*bad_wr = wr;
		return ERR(e);
	}
	return 0;
}

/* A readable name for a completion status. */
IWCM_EXPORT const char *iwcm_wc_status_str(int status)
{
	static const char *const names[] = {
		[IWCM_WC_SUCCESS] = "success",
		[IWCM_WC_LOC_LEN_ERR] = "local length error",
		[IWCM_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IWCM_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IWCM_WC_LOC_PROT_ERR] = "local protection error",
		[IWCM_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IWCM_WC_MW_BIND_ERR] = "memory management operation error",
		[IWCM_WC_BAD_RESP_ERR] = "bad response error",
		[IWCM_WC_LOC_ACCESS_ERR] = "local access error",
		[IWCM_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IWCM_WC_REM_ACCESS_ERR] = "remote access error",
		[IWCM_WC_REM_OP_ERR] = "remote operation error",
		[IWCM_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IWCM_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IWCM_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IWCM_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IWCM_WC_REM_ABORT_ERR] = "aborted error",
		[IWCM_WC_INV_EECN_ERR] = "invalid EE context number",
		[IWCM_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IWCM_WC_FATAL_ERR] = "fatal error",
		[IWCM_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IWCM_WC_GENERAL_ERR] = "general error",
	};

	if (status < 0 || (size_t)status >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[status];
}
