/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Receive queues: the ring of a QP or of a shared receive queue, and
 * the shared receive queue verbs.
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

/* Free the ring of a receive queue. */
void rq_free(struct rq *rq)
{
	free(rq->ring);
	free(rq->sges);
	memset(rq, 0, sizeof(*rq));
}

/* ---- receive queues ---- */

/* A receive ring of size entries of max_sge each. */
int rq_init(struct rq *rq, uint32_t size, uint32_t max_sge)
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

/* May wr be queued on rq? */
int rq_check(const struct rq *rq, const struct iwcm_recv_wr *wr)
{
	uint64_t total = 0;

	/* No optional field yet: a bit set names one we cannot read. */
	if (wr->comp_mask)
		return ERR(EINVAL);
	if (wr->num_sge < 0 || (uint32_t)wr->num_sge > rq->max_sge ||
	    (wr->num_sge && !wr->sg_list))
		return ERR(EINVAL);
	for (int i = 0; i < wr->num_sge; i++)
		total += wr->sg_list[i].length;
	if (total > UINT32_MAX)
		return ERR(EINVAL);
	return 0;
}

/* Queue a checked work request. */
void rq_push(struct rq *rq, const struct iwcm_recv_wr *wr)
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
IWCM_EXPORT struct iwcm_srq *
iwcm_create_srq(struct iwcm_pd *pd, const struct iwcm_srq_init_attr *attr)
{
	struct dp *dp;
	struct iwcm_srq *srq;
	uint32_t max_wr, max_sge;

	if (!pd || !attr || attr->comp_mask)
		return ERR_PTR(EINVAL);
	max_wr = attr->max_wr;
	max_sge = attr->max_sge;
	if (!max_wr || max_wr > DP_MAX_WR || max_sge > DP_MAX_SGE)
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
	pthread_mutex_init(&srq->lock, NULL);
	pthread_mutex_lock(&dp->lock);
	pd->refs++;
	TAILQ_INSERT_TAIL(&dp->srqs, srq, entry);
	pthread_mutex_unlock(&dp->lock);
	return srq;
}

/* Free a shared receive queue nothing uses. */
void srq_free(struct iwcm_srq *srq)
{
	rq_free(&srq->rq);
	pthread_mutex_destroy(&srq->lock);
	free(srq);
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
	srq_free(srq);
	return 0;
}

/*
 * Post receive buffers to a shared receive queue.  As ibv_post_srq_recv():
 * the error number is returned (errno untouched) and *bad_wr names the
 * first request not posted; the ones before it are posted, none after.
 */
IWCM_EXPORT int iwcm_post_srq_recv(struct iwcm_srq *srq,
				   struct iwcm_recv_wr *wr,
				   struct iwcm_recv_wr **bad_wr)
{
	int e = 0, saved = errno;

	if (bad_wr)
		*bad_wr = NULL;
	if (!srq) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&srq->lock);
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
	pthread_mutex_unlock(&srq->lock);
	errno = saved;
	if (e && bad_wr)
		*bad_wr = wr;
	return e;
}
