/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The datapath of a context, made on its first verbs call.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/eventfd.h>

#include "dp.h"

static pthread_mutex_t dp_create_lock = PTHREAD_MUTEX_INITIALIZER;

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
	/* Without the thread nobody would take a QP back. */
	dp->idle_us = dp->manual ? 0 : ctx->progress_idle_us;
	dp->async_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK | EFD_SEMAPHORE);
	if (dp->async_fd < 0) {
		free(dp);
		dp = NULL;
		goto out;
	}
	pthread_mutex_init(&dp->lock, NULL);
	pthread_mutex_init(&dp->alock, NULL);
	pthread_mutex_init(&dp->sync_lock, NULL);
	pthread_cond_init(&dp->cond, NULL);
	pthread_rwlock_init(&dp->stags.lock, NULL);
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
