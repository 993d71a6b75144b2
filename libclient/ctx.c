/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The context: one SEQPACKET connection to iwcmd, the HELLO/VERSION
 * handshake, and the request/reply exchange every other call is built on.
 * Requests wait for the reply carrying their request id; events that
 * arrive meanwhile are queued for iwcm_get_event().
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* The errno for a daemon result code. */
int ctx_result_errno(Iwcm__Result r)
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

static int64_t ctx_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint32_t ctx_reqid(struct iwcm_ctx *ctx)
{
	/* reqid 0 marks the daemon's own events: never use it. */
	if (++ctx->next_reqid == 0)
		ctx->next_reqid = 1;
	return ctx->next_reqid;
}

static int ctx_send(struct iwcm_ctx *ctx, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body)
{
	if (ctx->dead)
		return ERR(ECONNRESET);
	if (ipc_send(ctx->sock, type, reqid, body, -1) < 0) {
		if (errno == EPIPE || errno == ENOTCONN)
			errno = ECONNRESET;
		return -1;
	}
	return 0;
}

/*
 * Receive one datagram into ctx->msg without waiting: 1 when one came, 0
 * when none was ready, -1 with errno ECONNRESET when the daemon closed
 * (once: the pending connections then fail), or the ipc_recv() errno of
 * a datagram that was dropped (EBADMSG, EMSGSIZE, EPROTO).
 */
static int ctx_read(struct iwcm_ctx *ctx)
{
	int r;

	if (ctx->dead)
		return ERR(ECONNRESET);
	r = ipc_recv(ctx->sock, &ctx->msg, true);
	if (r > 0)
		return 1;
	if (r < 0 && errno == EAGAIN)
		return 0;
	if (r < 0 && errno != ECONNRESET)
		return -1;
	ctx->dead = true;
	cm_daemon_gone(ctx);
	return ERR(ECONNRESET);
}

/* Handle a message nobody waits for: an event, or a stray reply. */
static void ctx_dispatch(struct iwcm_ctx *ctx, struct ipc_msg *m)
{
	if (m->hdr.type >= IPC_EVENT_CONNECT_REQUEST &&
	    m->hdr.type <= IPC_EVENT_ERROR)
		cm_handle_event(ctx, m);
	/* Replies to fire-and-forget requests (Disconnect) end here. */
	ipc_msg_clear(m);
}

/* Receive and handle at most one message without waiting. */
int ctx_recv_one(struct iwcm_ctx *ctx)
{
	int r = ctx_read(ctx);

	if (r > 0)
		ctx_dispatch(ctx, &ctx->msg);
	return r;
}

static int ctx_wait(struct iwcm_ctx *ctx, int timeout_ms)
{
	struct pollfd pfd = { .fd = ctx->sock, .events = POLLIN };
	int r;

	r = poll(&pfd, 1, timeout_ms);
	if (r < 0)
		return -1;
	if (r == 0)
		return ERR(ETIMEDOUT);
	return 0;
}

/* Send a request and wait for its reply, queueing events meanwhile. */
ProtobufCMessage *ctx_request(struct iwcm_ctx *ctx, uint16_t type,
			      const ProtobufCMessage *body,
			      uint16_t reply_type,
			      const ProtobufCMessageDescriptor *d)
{
	uint32_t reqid = ctx_reqid(ctx);
	int64_t deadline = ctx_now_ms() + IWCM_REQUEST_TIMEOUT_MS;
	struct ipc_msg *m = &ctx->msg;
	ProtobufCMessage *reply;

	if (ctx_send(ctx, type, reqid, body) < 0)
		return NULL;
	for (;;) {
		int64_t left;
		int r = ctx_read(ctx);

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
			left = deadline - ctx_now_ms();
			if (left <= 0)
				return ERR_PTR(ETIMEDOUT);
			if (ctx_wait(ctx, (int)left) < 0 && errno != EINTR)
				return NULL;
			continue;
		}
		/* A VERSION reply answers HELLO whatever its request id. */
		if (m->hdr.reqid != reqid &&
		    !(reply_type == IPC_VERSION &&
		      m->hdr.type == IPC_VERSION)) {
			ctx_dispatch(ctx, m);
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
int ctx_send_async(struct iwcm_ctx *ctx, uint16_t type,
		   const ProtobufCMessage *body)
{
	return ctx_send(ctx, type, ctx_reqid(ctx), body);
}

static int ctx_hello(struct iwcm_ctx *ctx)
{
	Iwcm__Hello hello = IWCM__HELLO__INIT;
	Iwcm__Version *v;
	int ok;

	hello.version = IPC_PROTO_VERSION;
	hello.client_name = program_invocation_short_name;
	v = (Iwcm__Version *)ctx_request(ctx, IPC_HELLO, &hello.base,
					 IPC_VERSION,
					 &iwcm__version__descriptor);
	if (!v) {
		/* A daemon that hangs up on HELLO does not speak our
		 * protocol. */
		if (errno == ECONNRESET)
			errno = EPROTO;
		return -1;
	}
	ok = v->result == IWCM__RESULT__RES_OK &&
	     v->version == IPC_PROTO_VERSION;
	protobuf_c_message_free_unpacked(&v->base, NULL);
	return ok ? 0 : ERR(EPROTO);
}

static int ctx_connect(struct iwcm_ctx *ctx, const char *path)
{
	struct sockaddr_un sun;
	struct epoll_event ev;
	int r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (!path || !*path || strlen(path) >= sizeof(sun.sun_path))
		return ERR(EINVAL);
	memcpy(sun.sun_path, path, strlen(path));
	ctx->sock = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (ctx->sock < 0)
		return -1;
	do
		r = connect(ctx->sock, (struct sockaddr *)&sun, sizeof(sun));
	while (r < 0 && errno == EINTR);
	if (r < 0) {
		/* No socket file or nobody behind it: no daemon. */
		if (errno == ENOENT || errno == ENOTDIR)
			errno = ECONNREFUSED;
		return -1;
	}
	if (fcntl(ctx->sock, F_SETFL, O_NONBLOCK) < 0)
		return -1;
	ctx->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ctx->evfd < 0)
		return -1;
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (ctx->epfd < 0)
		return -1;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = ctx->sock;
	if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->sock, &ev) < 0)
		return -1;
	ev.data.fd = ctx->evfd;
	if (epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->evfd, &ev) < 0)
		return -1;
	return ctx_hello(ctx);
}

static void ctx_free(struct iwcm_ctx *ctx)
{
	struct iwcm_conn *c;
	struct iwcm_listener *l;

	/* QPs own the sockets of their connections: stop them first. */
	dp_ctx_free(ctx);
	events_free_all(ctx);
	while ((c = TAILQ_FIRST(&ctx->conns)))
		cm_conn_destroy(c);
	while ((l = TAILQ_FIRST(&ctx->listeners)))
		cm_listener_destroy(l);
	if (ctx->epfd >= 0)
		close(ctx->epfd);
	if (ctx->evfd >= 0)
		close(ctx->evfd);
	if (ctx->sock >= 0)
		close(ctx->sock);
	free(ctx);
}

/* Connect to the daemon at path and perform the version handshake. */
IWCM_EXPORT struct iwcm_ctx *iwcm_ctx_open_path(const char *path,
						unsigned int flags)
{
	struct iwcm_ctx *ctx;
	int e;

	if (flags & ~(unsigned int)(IWCM_CTX_NONBLOCK |
				    IWCM_CTX_MANUAL_PROGRESS))
		return ERR_PTR(EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->sock = ctx->epfd = ctx->evfd = -1;
	ctx->msg.fd = -1;
	ctx->nonblock = flags & IWCM_CTX_NONBLOCK;
	ctx->flags = flags;
	TAILQ_INIT(&ctx->listeners);
	TAILQ_INIT(&ctx->conns);
	TAILQ_INIT(&ctx->queue);
	TAILQ_INIT(&ctx->out);
	if (ctx_connect(ctx, path) < 0) {
		e = errno;
		ctx_free(ctx);
		return ERR_PTR(e);
	}
	return ctx;
}

/* Connect to the daemon named by IWCM_SOCKET or at the default path. */
IWCM_EXPORT struct iwcm_ctx *iwcm_ctx_open(unsigned int flags)
{
	const char *path = secure_getenv("IWCM_SOCKET");

	if (!path || !*path)
		path = IWCM_DEFAULT_SOCKET;
	return iwcm_ctx_open_path(path, flags);
}

/* Free a context and everything made from it. */
IWCM_EXPORT void iwcm_ctx_close(struct iwcm_ctx *ctx)
{
	int e = errno;

	if (ctx)
		ctx_free(ctx);
	errno = e;
}

/* The descriptor that becomes readable when an event may be ready. */
IWCM_EXPORT int iwcm_ctx_get_fd(const struct iwcm_ctx *ctx)
{
	if (!ctx)
		return ERR(EINVAL);
	return ctx->epfd;
}
