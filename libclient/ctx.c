/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The context: its channel to iwcmd (chan.c) with the HELLO/VERSION
 * handshake, the descriptor for the caller's loop, and the teardown of
 * everything a context owns.  The channel hands the daemon's events to
 * cm_handle_event() through the context's upcalls set here.
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

static int ctx_hello(struct iwcm_ctx *ctx)
{
	Iwcm__Hello hello = IWCM__HELLO__INIT;
	Iwcm__Version *v;
	int ok;

	hello.version = IPC_PROTO_VERSION;
	hello.client_name = program_invocation_short_name;
	v = (Iwcm__Version *)chan_request(ctx, IPC_HELLO, &hello.base,
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

	if (flags &
	    ~(unsigned int)(IWCM_CTX_NONBLOCK | IWCM_CTX_MANUAL_PROGRESS |
			    IWCM_CTX_ASYNC_CM))
		return ERR_PTR(EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->sock = ctx->epfd = ctx->evfd = -1;
	ctx->on_event = cm_handle_event;
	ctx->on_gone = cm_daemon_gone;
	ctx->msg.fd = -1;
	ctx->nonblock = flags & IWCM_CTX_NONBLOCK;
	ctx->async_cm = flags & IWCM_CTX_ASYNC_CM;
	ctx->flags = flags;
	TAILQ_INIT(&ctx->listeners);
	TAILQ_INIT(&ctx->conns);
	TAILQ_INIT(&ctx->queue);
	TAILQ_INIT(&ctx->out);
	if (ctx_poll_init(ctx) < 0 || cprog_idle_init(ctx) < 0 ||
	    ctx_connect(ctx, path) < 0) {
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
