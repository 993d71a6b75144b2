/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The channel to iwcmd: one SEQPACKET socket, requests that wait for the
 * reply carrying their request id, and the daemon's events, which are
 * handed up to the context's on_event (cm_handle_event()) whenever they
 * arrive, also while a request waits, and so are the Acks of pipelined
 * requests (IWCM_CTX_ASYNC_CM).  When the daemon goes away the
 * context's on_gone (cm_daemon_gone()) runs once.  The channel calls
 * nothing above it but through those two.
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "internal.h"

/* The errno for a daemon result code. */
int chan_result_errno(Iwcm__Result r)
{
	switch (r) {
	case IWCM__RESULT__RES_OK:
		return 0;
	case IWCM__RESULT__RES_EINVAL:
		return EINVAL;
	case IWCM__RESULT__RES_EPERM:
		return EACCES;
	case IWCM__RESULT__RES_ENOENT:
		return ENOENT;
	case IWCM__RESULT__RES_EEXIST:
		return EEXIST;
	case IWCM__RESULT__RES_ELIMIT:
		return EMFILE;
	case IWCM__RESULT__RES_EADDRINUSE:
		return EADDRINUSE;
	case IWCM__RESULT__RES_ETIMEDOUT:
		return ETIMEDOUT;
	case IWCM__RESULT__RES_ECONNREFUSED:
	case IWCM__RESULT__RES_EREJECTED:
		return ECONNREFUSED;
	case IWCM__RESULT__RES_ECONNRESET:
		return ECONNRESET;
	case IWCM__RESULT__RES_EINTERNAL:
		return EIO;
	case IWCM__RESULT__RES_ESHUTDOWN:
		return ESHUTDOWN;
	case IWCM__RESULT__RES_EPROTO:
	case IWCM__RESULT__RES_EVERSION:
	default:
		return EPROTO;
	}
}

static int64_t chan_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t chan_reqid(struct iwcm_ctx *ctx)
{
	/* reqid 0 marks the daemon's own events: never use it. */
	if (++ctx->next_reqid == 0)
		ctx->next_reqid = 1;
	return ctx->next_reqid;
}

static int chan_send(struct iwcm_ctx *ctx, uint16_t type, uint32_t reqid,
		     const ProtobufCMessage *body)
{
	if (ctx->dead)
		return ERR(ECONNRESET);
	if (ipc_send(ctx->sock, type, reqid, body, -1) < 0) {
		if (errno == EPIPE || errno == ENOTCONN)
			errno = ECONNRESET;
		return -1;
	}
	ctx_poll_sent(ctx, ctx_poll_now());
	return 0;
}

/*
 * Receive one datagram into ctx->msg without waiting: 1 when one came, 0
 * when none was ready, -1 with errno ECONNRESET when the daemon closed
 * (once: the pending connections then fail), or the ipc_recv() errno of
 * a datagram that was dropped (EBADMSG, EMSGSIZE, EPROTO).
 */
static int chan_read(struct iwcm_ctx *ctx)
{
	int r;

	if (ctx->dead)
		return ERR(ECONNRESET);
	r = ipc_recv(ctx->sock, &ctx->msg, true);
	if (r > 0) {
		ctx_poll_received(ctx, ctx_poll_now());
		return 1;
	}
	if (r < 0 && errno == EAGAIN) {
		ctx_poll_empty(ctx);
		return 0;
	}
	if (r < 0 && errno != ECONNRESET)
		return -1;
	ctx->dead = true;
	ctx->on_gone(ctx);
	return ERR(ECONNRESET);
}

/* Handle a message nobody waits for: an event, the Ack of a pipelined
 * request, or a stray reply. */
static void chan_dispatch(struct iwcm_ctx *ctx, struct ipc_msg *m)
{
	if ((m->hdr.type >= IPC_EVENT_CONNECT_REQUEST &&
	     m->hdr.type <= IPC_EVENT_ERROR) ||
	    (m->hdr.type == IPC_CLIENT_ACK && m->hdr.reqid))
		ctx->on_event(ctx, m);
	/* Replies to fire-and-forget requests (Disconnect) end here. */
	ipc_msg_clear(m);
}

/* Receive and handle at most one message without waiting. */
int chan_recv_one(struct iwcm_ctx *ctx)
{
	int r = chan_read(ctx);

	if (r > 0)
		chan_dispatch(ctx, &ctx->msg);
	return r;
}

static int chan_wait(struct iwcm_ctx *ctx, int timeout_ms)
{
	int r = ctx_poll_sock(ctx, timeout_ms);

	if (r < 0)
		return -1;
	if (r == 0)
		return ERR(ETIMEDOUT);
	return 0;
}

/* Send a request and wait for its reply, queueing events meanwhile. */
ProtobufCMessage *chan_request(struct iwcm_ctx *ctx, uint16_t type,
			       const ProtobufCMessage *body,
			       uint16_t reply_type,
			       const ProtobufCMessageDescriptor *d)
{
	uint32_t reqid = chan_reqid(ctx);
	int64_t deadline = chan_now_ms() + IWCM_REQUEST_TIMEOUT_MS;
	struct ipc_msg *m = &ctx->msg;
	ProtobufCMessage *reply;

	if (chan_send(ctx, type, reqid, body) < 0)
		return NULL;
	for (;;) {
		int64_t left;
		int r = chan_read(ctx);

		if (r < 0 && (errno == EBADMSG || errno == EMSGSIZE ||
			      errno == EPROTO)) {
			/* A bad datagram: in the handshake it means another
			 * protocol; later it is dropped. */
			if (reply_type == IPC_VERSION)
				return ERR_PTR(EPROTO);
			continue;
		}
		if (r < 0)
			return NULL;
		if (r == 0) {
			left = deadline - chan_now_ms();
			if (left <= 0)
				return ERR_PTR(ETIMEDOUT);
			if (chan_wait(ctx, (int)left) < 0 && errno != EINTR)
				return NULL;
			continue;
		}
		/* A VERSION reply answers HELLO whatever its request id. */
		if (m->hdr.reqid != reqid && !(reply_type == IPC_VERSION &&
					       m->hdr.type == IPC_VERSION)) {
			chan_dispatch(ctx, m);
			continue;
		}
		ipc_msg_clear(m);
		if (m->hdr.type != reply_type)
			return ERR_PTR(EPROTO);
		reply = ipc_unpack(m, d);
		if (!reply)
			return ERR_PTR(EPROTO);
		return reply;
	}
}

/* Send a request whose reply is ignored. */
int chan_send_async(struct iwcm_ctx *ctx, uint16_t type,
		    const ProtobufCMessage *body)
{
	return chan_send(ctx, type, chan_reqid(ctx), body);
}

/* Send a request whose Ack comes to on_event, named by *reqid. */
int chan_send_pipelined(struct iwcm_ctx *ctx, uint16_t type,
			const ProtobufCMessage *body, uint32_t *reqid)
{
	*reqid = chan_reqid(ctx);
	return chan_send(ctx, type, *reqid, body);
}
