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

/* Take a completion event the channel holds, without waiting: 0, or -1
 * with EAGAIN when none is there. */
static int channel_take(struct iwcm_comp_channel *channel, struct iwcm_cq **cq,
			void **cq_context)
{
	struct iwcm_cq *c;

	pthread_mutex_lock(&channel->lock);
	c = TAILQ_FIRST(&channel->pending);
	if (!c) {
		pthread_mutex_unlock(&channel->lock);
		return ERR(EAGAIN);
	}
	if (--c->ch_events == 0) {
		TAILQ_REMOVE(&channel->pending, c, ch_entry);
		c->ch_queued = false;
	}
	c->ch_unacked++;
	channel_signal(channel);
	pthread_mutex_unlock(&channel->lock);
	*cq = c;
	if (cq_context)
		*cq_context = c->cq_context;
	return 0;
}

/* Progress the QPs of every CQ of the channel (cprog.c). */
static void channel_progress(struct dp *dp, struct iwcm_comp_channel *channel)
{
	struct iwcm_cq *c;
	struct iwcm_cq *cqs[16];
	unsigned int n = 0;

	pthread_mutex_lock(&dp->lock);
	TAILQ_FOREACH (c, &dp->cqs, entry)
		if (c->channel == channel && n < 16)
			cqs[n++] = c;
	pthread_mutex_unlock(&dp->lock);
	/* A CQ outlives the calls that wait on its channel (as in
	 * libibverbs): destroying it meanwhile is the caller's error. */
	for (unsigned int i = 0; i < n; i++)
		cprog_cq(cqs[i]);
}

/*
 * Wait for the next completion event of a channel.  The caller's thread
 * moves the data of the channel's QPs itself and sleeps on their sockets
 * and the channel's eventfd (one epoll set): one wake-up per message.
 * In manual progress mode it drives the whole engine while it waits.
 */
IWCM_EXPORT int iwcm_get_cq_event(struct iwcm_comp_channel *channel,
				  struct iwcm_cq **cq, void **cq_context)
{
	struct dp *dp;
	bool progressed = false;
	int fl;

	if (!channel || !cq)
		return ERR(EINVAL);
	dp = channel->ctx->dp;
	fl = fcntl(channel->fd, F_GETFL);
	for (;;) {
		if (channel_take(channel, cq, cq_context) == 0)
			return 0;
		if (errno != EAGAIN)
			return -1;
		if (!progressed) {
			/* What the sockets hold may make the event; one made
			 * here wakes nobody (cq.c). */
			cq_channel_taking = channel;
			channel_progress(dp, channel);
			cq_channel_taking = NULL;
			progressed = true;
			continue;
		}
		if (fl < 0 || (fl & O_NONBLOCK))
			return ERR(EAGAIN);
		if (dp->manual) {
			if (iwcm_progress(dp->ctx, 100) < 0)
				return -1;
		} else {
			int r;

			cq_channel_taking = channel;
			r = cprog_channel_wait(channel, -1);
			cq_channel_taking = NULL;
			if (r < 0)
				return -1;
		}
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
