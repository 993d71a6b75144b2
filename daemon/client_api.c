/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The client API (proto/iwcm.proto): a table from message type to
 * handler.  Every body is unpacked by ipc_unpack() (length capped) and
 * checked before anything acts on it; a bad body gets RES_EINVAL, an
 * unknown type closes the client.  Each request gets exactly one reply,
 * sent ahead of any event the request itself raised (control_cork()).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iwcmd.h"
#include "log.h"
#include "mpa.h"

#define TIMEOUT_MIN_MS 100
#define TIMEOUT_MAX_MS 3600000

/* Replies built by the handlers; dispatch sends the one that applies. */
struct client_reply_buf {
	Iwcm__Ack ack;
	Iwcm__ListenReply lr;
	Iwcm__SockAddr bound;
	uint8_t bound_buf[16];
};

static bool sockaddr_ok(const Iwcm__SockAddr *a)
{
	return a && (a->addr.len == 4 || a->addr.len == 16) && a->addr.data &&
	       a->port <= 65535;
}

/* RFC 5044 §7.1.1 and RFC 6581 §9.1 bounds on what a client may ask. */
static bool params_ok(const Iwcm__ConnParams *p, bool forced)
{
	if (!p)
		return true;
	/* RFC 6581 §9.1: IRD and ORD are 14-bit fields */
	if ((p->has_ird && p->ird > MPA_IRD_ORD_NONE) ||
	    (p->has_ord && p->ord > MPA_IRD_ORD_NONE))
		return false;
	/* RFC 5044 §7.1.1: at most 512 octets of private data */
	if (p->has_private_data &&
	    (p->private_data.len > MPA_PD_MAX ||
	     (p->private_data.len && !p->private_data.data)))
		return false;
	if (p->has_rtr_types && (p->rtr_types & ~(uint32_t)MPA_RTR_ALL))
		return false;
	/* Rev 0 (seed 002) only in a forced negotiation */
	if (p->has_mpa_rev && (p->mpa_rev > MPA_REV_2 ||
			       (p->mpa_rev == MPA_REV_RDMAC && !forced)))
		return false;
	if ((p->has_crc && (unsigned int)p->crc > 1) ||
	    (p->has_rev0 && (unsigned int)p->rev0 > 1) ||
	    (p->has_transport && (unsigned int)p->transport > 1))
		return false;
	if ((p->has_reply_timeout_ms &&
	     (p->reply_timeout_ms < TIMEOUT_MIN_MS ||
	      p->reply_timeout_ms > TIMEOUT_MAX_MS)) ||
	    (p->has_ulp_timeout_ms &&
	     (p->ulp_timeout_ms < TIMEOUT_MIN_MS ||
	      p->ulp_timeout_ms > TIMEOUT_MAX_MS)))
		return false;
	return true;
}

/* Check a Connect's destination and parameters. */
Iwcm__Result client_api_check_connect(const Iwcm__SockAddr *dst,
				      const Iwcm__ConnParams *p, bool forced)
{
	if (!sockaddr_ok(dst) || dst->port == 0 || !params_ok(p, forced))
		return IWCM__RESULT__RES_EINVAL;
	return IWCM__RESULT__RES_OK;
}

static Iwcm__Result api_listen(struct client *c, const ProtobufCMessage *req,
			       struct client_reply_buf *r)
{
	const Iwcm__Listen *l = (const void *)req;
	struct listener *lst;
	Iwcm__Result res;

	/* exactly one of an address and a configured service */
	if (!l->addr == !l->service)
		return IWCM__RESULT__RES_EINVAL;
	if (l->addr && !sockaddr_ok(l->addr))
		return IWCM__RESULT__RES_EINVAL;
	if (l->service &&
	    (!l->service[0] || strlen(l->service) >= CONF_NAME_MAX))
		return IWCM__RESULT__RES_EINVAL;
	if (!params_ok(l->params, false) ||
	    (l->has_backlog && l->backlog > 65535))
		return IWCM__RESULT__RES_EINVAL;
	/* listeners are TCP (SCTP associations are not listened for here) */
	if (l->params && l->params->has_transport &&
	    l->params->transport != IWCM__TRANSPORT__TRANSPORT_TCP)
		return IWCM__RESULT__RES_EINVAL;
	res = listener_listen(c, l, &lst);
	if (res == IWCM__RESULT__RES_OK) {
		r->lr.has_listener_id = 1;
		r->lr.listener_id = lst->id;
		pb_sockaddr_from(&lst->addr, &r->bound, r->bound_buf);
		r->lr.bound = &r->bound;
	}
	return res;
}

static Iwcm__Result api_unlisten(struct client *c, const ProtobufCMessage *req,
				 struct client_reply_buf *r)
{
	const Iwcm__Unlisten *u = (const void *)req;

	return listener_unlisten(c, u->listener_id);
}

static Iwcm__Result api_connect(struct client *c, const ProtobufCMessage *req,
				struct client_reply_buf *r)
{
	const Iwcm__Connect *cn = (const void *)req;
	Iwcm__Result res;
	uint64_t id = 0;

	res = client_api_check_connect(cn->dst, cn->params, false);
	if (res != IWCM__RESULT__RES_OK)
		return res;
	if (cn->src && (!sockaddr_ok(cn->src) ||
			cn->src->addr.len != cn->dst->addr.len))
		return IWCM__RESULT__RES_EINVAL;
	if (conn_uid_pending(c->uid) >= iwcmd_conf->max_pending_per_uid)
		return IWCM__RESULT__RES_ELIMIT;
	res = conn_connect(c, cn, &id);
	if (res == IWCM__RESULT__RES_OK) {
		r->ack.has_conn_id = 1;
		r->ack.conn_id = id;
	}
	return res;
}

static Iwcm__Result api_accept(struct client *c, const ProtobufCMessage *req,
			       struct client_reply_buf *r)
{
	const Iwcm__Accept *a = (const void *)req;

	r->ack.has_conn_id = 1;
	r->ack.conn_id = a->conn_id;
	if (!params_ok(a->params, false))
		return IWCM__RESULT__RES_EINVAL;
	return conn_ulp_accept(c, a);
}

static Iwcm__Result api_reject(struct client *c, const ProtobufCMessage *req,
			       struct client_reply_buf *r)
{
	const Iwcm__Reject *rj = (const void *)req;

	r->ack.has_conn_id = 1;
	r->ack.conn_id = rj->conn_id;
	/* RFC 5044 §7.1.1: the reject's private data is bounded too */
	if (rj->has_private_data &&
	    (rj->private_data.len > MPA_PD_MAX ||
	     (rj->private_data.len && !rj->private_data.data)))
		return IWCM__RESULT__RES_EINVAL;
	return conn_ulp_reject(c, rj);
}

static Iwcm__Result api_disconnect(struct client *c,
				   const ProtobufCMessage *req,
				   struct client_reply_buf *r)
{
	const Iwcm__Disconnect *d = (const void *)req;

	r->ack.has_conn_id = 1;
	r->ack.conn_id = d->conn_id;
	return conn_disconnect(c, d->conn_id);
}

static const struct client_handler {
	uint16_t type;
	const ProtobufCMessageDescriptor *desc;
	uint16_t reply;		/* IPC_CLIENT_LISTEN_REPLY or _ACK */
	Iwcm__Result (*fn)(struct client *, const ProtobufCMessage *,
			   struct client_reply_buf *);
} client_handlers[] = {
	{ IPC_CLIENT_LISTEN, &iwcm__listen__descriptor,
	  IPC_CLIENT_LISTEN_REPLY, api_listen },
	{ IPC_CLIENT_UNLISTEN, &iwcm__unlisten__descriptor, IPC_CLIENT_ACK,
	  api_unlisten },
	{ IPC_CLIENT_CONNECT, &iwcm__connect__descriptor, IPC_CLIENT_ACK,
	  api_connect },
	{ IPC_CLIENT_ACCEPT, &iwcm__accept__descriptor, IPC_CLIENT_ACK,
	  api_accept },
	{ IPC_CLIENT_REJECT, &iwcm__reject__descriptor, IPC_CLIENT_ACK,
	  api_reject },
	{ IPC_CLIENT_DISCONNECT, &iwcm__disconnect__descriptor,
	  IPC_CLIENT_ACK, api_disconnect },
};

/* Handle one message from a client after the handshake. */
void client_api_dispatch(struct client *c, struct ipc_msg *m)
{
	const struct client_handler *h = NULL;
	struct client_reply_buf r;
	ProtobufCMessage *req;
	Iwcm__Result res = IWCM__RESULT__RES_EINVAL;
	char why[96];
	size_t i;

	for (i = 0; i < sizeof(client_handlers) / sizeof(client_handlers[0]);
	     i++)
		if (client_handlers[i].type == m->hdr.type)
			h = &client_handlers[i];
	if (!h) {
		snprintf(why, sizeof(why), "unexpected message %s (%u)",
			 ipc_type_name(m->hdr.type), m->hdr.type);
		control_close(c, why);
		return;
	}
	iwcm__ack__init(&r.ack);
	iwcm__listen_reply__init(&r.lr);
	req = ipc_unpack(m, h->desc);
	control_cork(c);
	if (req) {
		res = h->fn(c, req, &r);
		protobuf_c_message_free_unpacked(req, NULL);
	}
	if (res != IWCM__RESULT__RES_OK)
		log_debug("ctl pid %ld: %s: result %d", (long)c->pid,
			  ipc_type_name(m->hdr.type), (int)res);
	if (h->reply == IPC_CLIENT_LISTEN_REPLY) {
		r.lr.result = res;
		control_reply(c, h->reply, m->hdr.reqid, &r.lr.base);
	} else {
		r.ack.result = res;
		control_reply(c, h->reply, m->hdr.reqid, &r.ack.base);
	}
}

struct gone_walk {
	struct client *c;
	uint64_t *ids;
	size_t n, cap;
};

static void gone_collect(struct listener *l, void *arg)
{
	struct gone_walk *w = arg;

	if (l->client != w->c)
		return;
	if (w->n == w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 16;
		uint64_t *ids = reallocarray(w->ids, cap, sizeof(*ids));

		if (!ids)
			fatal("client_api: listeners");
		w->ids = ids;
		w->cap = cap;
	}
	w->ids[w->n++] = l->id;
}

/* A client went away: drop its listeners, reject its pending requests. */
void client_api_gone(struct client *c)
{
	struct gone_walk w = { c, NULL, 0, 0 };
	size_t i;

	listener_foreach(gone_collect, &w);
	for (i = 0; i < w.n; i++)
		listener_unlisten(c, w.ids[i]);
	free(w.ids);
	conn_client_gone(c);
}
