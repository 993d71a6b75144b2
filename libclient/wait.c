/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The verbs that block: taking a completion event from a channel and an
 * asynchronous event from a context.  Each waits on its descriptor and,
 * in manual progress mode, drives the progress engine while it waits.
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

/* The fields of struct iwcm_async_event of IWCM_1.0. */
#define DP_ASYNC_EVENT_MIN_SIZE \
	(offsetof(struct iwcm_async_event, term_ecode) + sizeof(uint8_t))

/* Wait until fd is readable, driving progress in manual mode. */
static int wait_readable(struct dp *dp, int fd)
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
		    wait_readable(dp, channel->fd) < 0)
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

/*
 * Take the next asynchronous event into the caller's record of
 * event_size octets (its sizeof, passed by the inline
 * iwcm_get_async_event()): its prefix, zeros past what we know.
 */
IWCM_EXPORT int iwcm_get_async_event_sz(struct iwcm_ctx *ctx,
					struct iwcm_async_event *event,
					size_t event_size)
{
	struct dp *dp;

	if (!ctx || !event || event_size < DP_ASYNC_EVENT_MIN_SIZE)
		return ERR(EINVAL);
	dp = dp_get(ctx);
	if (!dp)
		return -1;
	for (;;) {
		uint64_t v;
		ssize_t n;

		pthread_mutex_lock(&dp->alock);
		if (dp->aq_count) {
			const struct iwcm_async_event *ev =
				&dp->aq[dp->aq_head].ev;

			/* No optional field yet: comp_mask stays 0. */
			if (event_size <= sizeof(*ev)) {
				memcpy(event, ev, event_size);
			} else {
				memcpy(event, ev, sizeof(*ev));
				memset((char *)event + sizeof(*ev), 0,
				       event_size - sizeof(*ev));
			}
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
		if (wait_readable(dp, dp->async_fd) < 0)
			return -1;
	}
}
