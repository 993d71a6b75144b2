/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The event channel: events wait in ctx->queue until iwcm_get_event()
 * moves them to ctx->out, and iwcm_ack_event() frees them.  The fd the
 * caller polls is an epoll set of the daemon socket (a message may be an
 * event) and an eventfd that is readable exactly while the queue is not
 * empty (events that arrived while a request waited for its reply).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "internal.h"

/* Keep the eventfd readable exactly while events are queued. */
void events_signal(struct iwcm_ctx *ctx)
{
	bool want = !TAILQ_EMPTY(&ctx->queue);
	uint64_t v = 1;
	ssize_t n;

	if (want == ctx->signaled || ctx->signal_hold)
		return;
	if (want)
		n = write(ctx->evfd, &v, sizeof(v));
	else
		n = read(ctx->evfd, &v, sizeof(v));
	/* An eventfd read or write of 8 octets only fails on a counter
	 * overflow, which one pending unit cannot reach. */
	if (n == (ssize_t)sizeof(v))
		ctx->signaled = want;
}

/* Queue an event about conn, taking a reference on it. */
int events_queue(struct iwcm_ctx *ctx, enum iwcm_cm_event_type type,
		 struct iwcm_conn *conn)
{
	struct iwcm_event *ev = calloc(1, sizeof(*ev));

	if (!ev)
		return -1;
	ev->ctx = ctx;
	ev->type = type;
	ev->conn = conn;
	ev->queued = true;
	conn->refs++;
	TAILQ_INSERT_TAIL(&ctx->queue, ev, entry);
	events_signal(ctx);
	return 0;
}

/* Drop the queued events of conn. */
void events_drop_conn(struct iwcm_ctx *ctx, struct iwcm_conn *conn)
{
	struct iwcm_event *ev, *next;

	for (ev = TAILQ_FIRST(&ctx->queue); ev; ev = next) {
		next = TAILQ_NEXT(ev, entry);
		if (ev->conn != conn)
			continue;
		TAILQ_REMOVE(&ctx->queue, ev, entry);
		cm_conn_put(ev->conn);
		free(ev);
	}
	events_signal(ctx);
}

/* Free every event; the connections are freed by the caller. */
void events_free_all(struct iwcm_ctx *ctx)
{
	struct iwcm_event *ev;

	while ((ev = TAILQ_FIRST(&ctx->queue))) {
		TAILQ_REMOVE(&ctx->queue, ev, entry);
		free(ev);
	}
	while ((ev = TAILQ_FIRST(&ctx->out))) {
		TAILQ_REMOVE(&ctx->out, ev, entry);
		free(ev);
	}
}

/* Return the next event, waiting for one unless the context is
 * non-blocking. */
/* The next event, read from the daemon if none is queued. */
static int events_next(struct iwcm_ctx *ctx, struct iwcm_event **event)
{
	struct iwcm_event *ev;

	for (;;) {
		int r;

		ev = TAILQ_FIRST(&ctx->queue);
		if (ev) {
			TAILQ_REMOVE(&ctx->queue, ev, entry);
			ev->queued = false;
			TAILQ_INSERT_TAIL(&ctx->out, ev, entry);
			*event = ev;
			return 0;
		}
		if (ctx->dead)
			return ERR(ECONNRESET);
		r = chan_recv_one(ctx);
		if (r > 0)
			continue;
		if (r < 0) {
			/* The daemon went away: deliver what it left, then
			 * ECONNRESET; a bad datagram is dropped. */
			if (errno == ECONNRESET || errno == EBADMSG ||
			    errno == EMSGSIZE || errno == EPROTO)
				continue;
			return -1;
		}
		if (ctx->nonblock)
			return ERR(EAGAIN);
		if (ctx_poll_sock(ctx, -1) < 0)
			return -1;
	}
}

/*
 * The eventfd is brought up to date once, on return: an event read from
 * the daemon here and returned at once never makes it readable (two
 * system calls saved per event).
 */
IWCM_EXPORT int iwcm_get_event(struct iwcm_ctx *ctx, struct iwcm_event **event)
{
	int r, e;

	if (!ctx || !event)
		return ERR(EINVAL);
	ctx->signal_hold = true;
	r = events_next(ctx, event);
	e = errno;
	ctx->signal_hold = false;
	events_signal(ctx);
	errno = e;
	return r;
}

/* Free an event returned by iwcm_get_event(). */
IWCM_EXPORT void iwcm_ack_event(struct iwcm_event *event)
{
	struct iwcm_ctx *ctx;

	if (!event)
		return;
	ctx = event->ctx;
	TAILQ_REMOVE(event->queued ? &ctx->queue : &ctx->out, event, entry);
	cm_conn_put(event->conn);
	free(event);
	events_signal(ctx);
}

/* What an event reports. */
IWCM_EXPORT enum iwcm_cm_event_type
iwcm_event_get_type(const struct iwcm_event *event)
{
	if (!event) {
		errno = EINVAL;
		return (enum iwcm_cm_event_type)0;
	}
	return event->type;
}

/* The connection an event is about. */
IWCM_EXPORT struct iwcm_conn *
iwcm_event_get_conn(const struct iwcm_event *event)
{
	if (!event)
		return ERR_PTR(EINVAL);
	return event->conn;
}

/* The listener a connection request came to. */
IWCM_EXPORT struct iwcm_listener *
iwcm_event_get_listener(const struct iwcm_event *event)
{
	struct iwcm_listener *l;

	if (!event)
		return ERR_PTR(EINVAL);
	if (event->type != IWCM_CM_EVENT_CONNECT_REQUEST)
		return ERR_PTR(ENOENT);
	l = cm_listener_find(event->ctx, event->conn->listener_id);
	return l ? l : ERR_PTR(ENOENT);
}

/* The name of a connection manager event type. */
IWCM_EXPORT const char *iwcm_cm_event_str(enum iwcm_cm_event_type type)
{
	static const char *const names[] = {
		[IWCM_CM_EVENT_CONNECT_REQUEST] = "CONNECT_REQUEST",
		[IWCM_CM_EVENT_ESTABLISHED] = "ESTABLISHED",
		[IWCM_CM_EVENT_REJECTED] = "REJECTED",
		[IWCM_CM_EVENT_UNREACHABLE] = "UNREACHABLE",
		[IWCM_CM_EVENT_CONNECT_ERROR] = "CONNECT_ERROR",
	};

	/* Unsigned, so that a negative value out of any enum is unknown. */
	if ((unsigned int)type >= sizeof(names) / sizeof(names[0]) ||
	    !names[type])
		return "UNKNOWN";
	return names[type];
}
