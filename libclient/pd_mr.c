/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Protection domains and memory regions.
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

#define ACCESS_ALL                                            \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)

/* Register a memory region and give it an STag. */
IWCM_EXPORT struct iwcm_mr *iwcm_reg_mr(struct iwcm_pd *pd, void *addr,
					size_t length, unsigned int access)
{
	struct dp *dp;
	struct iwcm_mr *mr;
	int e;

	if (!pd || (access & ~(unsigned int)ACCESS_ALL) || (!addr && length) ||
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
	struct iwcm_qp *qp, **qps;
	size_t n = 0, cap = 0;

	if (!mr)
		return ERR(EINVAL);
	dp = mr->pd->ctx->dp;
	pthread_mutex_lock(&dp->lock);
	dp_stag_free(&dp->stags, mr->stag);
	mr->pd->refs--;
	TAILQ_REMOVE(&dp->mrs, mr, entry);
	TAILQ_FOREACH (qp, &dp->qps, entry)
		cap++;
	qps = cap ? malloc(cap * sizeof(*qps)) : NULL;
	if (cap && !qps) {
		/* No memory for the list: detach under the context's lock,
		 * as slow as that is. */
		TAILQ_FOREACH (qp, &dp->qps, entry) {
			pthread_mutex_lock(&qp->lock);
			qp_tx_detach(qp, mr->addr, mr->length);
			qp_rx_detach(qp, mr->stag);
			pthread_mutex_unlock(&qp->lock);
		}
		pthread_mutex_unlock(&dp->lock);
		free(mr);
		return 0;
	}
	/* Each QP is held (cp_refs: iwcm_destroy_qp() waits for it), so
	 * that the context's lock is not held while we wait for the QPs'
	 * own locks, one after the other. */
	TAILQ_FOREACH (qp, &dp->qps, entry) {
		__atomic_add_fetch(&qp->cp_refs, 1, __ATOMIC_ACQ_REL);
		qps[n++] = qp;
	}
	pthread_mutex_unlock(&dp->lock);
	/* Zero copy: frames still point into the region, a segment may be
	 * half placed in it; after this call the caller may free it, so
	 * copy what is not sent yet and place nothing more there.  A QP
	 * placing into the region finishes its read first. */
	for (size_t i = 0; i < n; i++) {
		pthread_mutex_lock(&qps[i]->lock);
		qp_tx_detach(qps[i], mr->addr, mr->length);
		qp_rx_detach(qps[i], mr->stag);
		pthread_mutex_unlock(&qps[i]->lock);
		__atomic_sub_fetch(&qps[i]->cp_refs, 1, __ATOMIC_ACQ_REL);
	}
	free(qps);
	free(mr);
	return 0;
}

/* The STag of a region (both its lkey and its rkey). */
IWCM_EXPORT uint32_t iwcm_mr_get_stag(const struct iwcm_mr *mr)
{
	return mr ? mr->stag : 0;
}
