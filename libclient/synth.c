/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The test hook of synth.h: a context without a daemon and an
 * ESTABLISHED connection built from a chosen negotiated state, so that
 * the datapath runs over a socketpair or a TCP pair.  Not exported.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "internal.h"
#include "synth.h"

/* A context with no daemon behind it. */
struct iwcm_ctx *iwcm_ctx_new_detached(unsigned int flags)
{
	struct epoll_event ev;
	struct iwcm_ctx *ctx;
	int e;

	if (flags &
	    ~(unsigned int)(IWCM_CTX_NONBLOCK | IWCM_CTX_MANUAL_PROGRESS))
		return ERR_PTR(EINVAL);
	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return NULL;
	ctx->sock = -1;
	ctx->msg.fd = -1;
	ctx->nonblock = flags & IWCM_CTX_NONBLOCK;
	ctx->flags = flags;
	/* Requests fail as if the daemon had gone away. */
	ctx->dead = true;
	TAILQ_INIT(&ctx->listeners);
	TAILQ_INIT(&ctx->conns);
	TAILQ_INIT(&ctx->queue);
	TAILQ_INIT(&ctx->out);
	ctx->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	ctx->epfd = epoll_create1(EPOLL_CLOEXEC);
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.fd = ctx->evfd;
	if (ctx->evfd < 0 || ctx->epfd < 0 ||
	    epoll_ctl(ctx->epfd, EPOLL_CTL_ADD, ctx->evfd, &ev) < 0 ||
	    cprog_idle_init(ctx) < 0) {
		e = errno;
		iwcm_ctx_close(ctx);
		return ERR_PTR(e);
	}
	return ctx;
}

static int synth_check(const struct iwcm_synth *st)
{
	if (st->mpa_rev < 0 || st->mpa_rev > 2 || st->version < 0 ||
	    st->version > 1 || st->ird > IWCM_IRD_ORD_MAX ||
	    st->ord > IWCM_IRD_ORD_MAX || (st->unread_len && !st->unread))
		return ERR(EINVAL);
	if (st->rtr_read_due && (!st->initiator || st->sctp))
		return ERR(EINVAL);
	/* RFC 5043 §4: no MPA under DDP over SCTP */
	if (st->sctp &&
	    (st->markers_tx || st->markers_rx || st->crc || st->unread_len ||
	     st->sctp_stream > 0xffff || st->sctp_max_segment < 64 ||
	     st->sctp_max_segment > 0xffff))
		return ERR(EINVAL);
	return 0;
}

/* An ESTABLISHED connection over fd with the state st describes. */
struct iwcm_conn *iwcm_conn_synth(struct iwcm_ctx *ctx, int fd,
				  const struct iwcm_synth *st)
{
	static uint64_t next_id;
	struct iwcm_conn *c = NULL;
	uint64_t id;
	socklen_t len;
	uint8_t *unread;
	uint32_t *msn;

	if (!ctx || fd < 0 || !st || synth_check(st) < 0) {
		if (fd >= 0)
			close(fd);
		return ERR_PTR(EINVAL);
	}
	unread = malloc(st->unread_len ? st->unread_len : 1);
	msn = calloc(4, sizeof(*msn));
	/* Ids the daemon never hands out. */
	id = 1ull << 63 | __atomic_add_fetch(&next_id, 1, __ATOMIC_RELAXED);
	if (unread && msn)
		c = cm_conn_new(ctx, id);
	if (!c) {
		free(unread);
		free(msn);
		close(fd);
		return ERR_PTR(ENOMEM);
	}
	if (st->unread_len)
		memcpy(unread, st->unread, st->unread_len);
	for (int i = 0; i < 4; i++)
		msn[i] = st->next_msn[i] ? st->next_msn[i] : 1;

	c->state = CONN_ESTABLISHED;
	c->initiator = st->initiator;
	c->fd = fd;
	c->transport = st->sctp ? IWCM_TRANSPORT_SCTP : IWCM_TRANSPORT_TCP;
	c->sctp_stream = (uint16_t)st->sctp_stream;
	c->sctp_max_segment = st->sctp_max_segment;
	c->mpa_rev = (uint32_t)st->mpa_rev;
	c->ddp_version = c->rdmap_version = (uint32_t)st->version;
	c->markers_tx = st->markers_tx;
	c->markers_rx = st->markers_rx;
	c->crc = st->crc;
	c->enhanced = st->mpa_rev == 2;
	c->ird = st->ird;
	c->ord = st->ord;
	c->tx_offset = st->tx_offset;
	c->rx_offset = st->rx_offset;
	c->unread = unread;
	c->unread_len = st->unread_len;
	c->next_msn = msn;
	c->n_msn = 4;
	c->wait_first_fpdu = st->wait_first_fpdu;
	c->rtr_read_due = st->rtr_read_due;
	c->rtr_read_stag = st->rtr_read_stag;
	c->rtr_read_to = st->rtr_read_to;
	c->dp_caps = true;
	c->dp_atomics = st->atomics;
	c->dp_imm_data = st->imm_data;
	len = sizeof(c->local);
	c->local_known = getsockname(fd, (struct sockaddr *)&c->local, &len) ==
			 0;
	len = sizeof(c->peer);
	if (getpeername(fd, (struct sockaddr *)&c->peer, &len) < 0)
		memset(&c->peer, 0, sizeof(c->peer));
	return c;
}
