/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Asynchronous events of a context: a queue counted by an eventfd, as
 * ibv_get_async_event() reads them.
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
