/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* SCTP's listening sockets for DDP stream sessions (sctp_listen.h). */
#include "config.h"

#include <string.h>

#include "sctp_listen.h"
#include "sctp_stack.h"

static const struct sctp_cb *sl_accept_cb;
static void (*sl_closed)(uint64_t id);

void sctp_listen_init(const struct sctp_cb *accept_cb,
		      void (*closed)(uint64_t id))
{
	sl_accept_cb = accept_cb;
	sl_closed = closed;
}

/* The stack's socket on ss; where it listens (ss when the stack cannot
 * tell). */
static int sl_open(struct listener *l, const struct sockaddr_storage *ss,
		   socklen_t sslen, unsigned int backlog, int fd)
{
	(void)backlog;
	(void)fd;
	l->sock = sctp_stack_listen((const struct sockaddr *)ss, sslen,
				    sl_accept_cb, l);
	if (!l->sock)
		return -1;
	l->addrlen = sizeof(l->addr);
	if (sctp_stack_local_addr(l->sock, &l->addr, &l->addrlen) < 0) {
		memcpy(&l->addr, ss, sizeof(l->addr));
		l->addrlen = sslen;
	}
	return 0;
}

/* An association outlives the listener that accepted it (its sessions
 * go on, as TCP connections outlive theirs); a listen on the same port
 * since then serves its new Initiates (listener_find_local()). */
static void sl_close(struct listener *l)
{
	sctp_stack_close(l->sock, false);
	if (sl_closed)
		sl_closed(l->id);
}

const struct listener_ops sctp_listen_ops = {
	.name = "sctp ",
	.transport = 1,
	.id_bit = SCTP_CONN_ID_BIT,
	.open = sl_open,
	.close = sl_close,
};

/* A client's listen or attach (req), on the stack that runs. */
enum conn_result sctp_listen_open(struct client *c, struct listener_req *req,
				  uint64_t *id, struct sockaddr_storage *bound)
{
	struct listener *l;
	enum conn_result r;

	req->ops = &sctp_listen_ops;
	r = listener_listen(c, req, &l);
	if (r == CONN_RES_OK) {
		*id = l->id;
		memcpy(bound, &l->addr, sizeof(*bound));
	}
	return r;
}

struct listener *sctp_listen_find(uint64_t id)
{
	struct listener *l = listener_find(id);

	return l && l->ops == &sctp_listen_ops ? l : NULL;
}
