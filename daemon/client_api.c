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

#include "client_api.h"
#include "conn.h"
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

static bool client_api_sockaddr_ok(const Iwcm__SockAddr *a)
{
	return a && (a->addr.len == 4 || a->addr.len == 16) && a->addr.data &&
	       a->port <= 65535;
}

/* RFC 5044 §7.1.1 and RFC 6581 §9.1 bounds on what a client may ask. */
static bool client_api_params_ok(const Iwcm__ConnParams *p, bool forced)
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
	    (p->has_transport && (unsigned int)p->transport > 1) ||
	    (p->has_sctp_udp_port && p->sctp_udp_port > 65535))
		return false;
	if ((p->has_reply_timeout_ms &&
	     (p->reply_timeout_ms < TIMEOUT_MIN_MS ||
	      p->reply_timeout_ms > TIMEOUT_MAX_MS)) ||
	    (p->has_ulp_timeout_ms && (p->ulp_timeout_ms < TIMEOUT_MIN_MS ||
				       p->ulp_timeout_ms > TIMEOUT_MAX_MS)))
		return false;
	if (p->has_first_fpdu_delay_ms &&
	    p->first_fpdu_delay_ms > CONF_FIRST_FPDU_DELAY_MAX)
		return false;
	if (p->has_tcp_user_timeout_ms &&
	    p->tcp_user_timeout_ms > CONF_TCP_USER_TIMEOUT_MAX)
		return false;
	return true;
}

/* The daemon's result codes are iwcm.proto's: client_api_result() casts. */
#define CLIENT_API_SAME(x)                                              \
	_Static_assert((int)CONN_RES_##x == (int)IWCM__RESULT__RES_##x, \
		       "enum conn_result differs from Result: " #x)
CLIENT_API_SAME(OK);
CLIENT_API_SAME(EINVAL);
CLIENT_API_SAME(EPERM);
CLIENT_API_SAME(ENOENT);
CLIENT_API_SAME(EEXIST);
CLIENT_API_SAME(ELIMIT);
CLIENT_API_SAME(EADDRINUSE);
CLIENT_API_SAME(ETIMEDOUT);
CLIENT_API_SAME(ECONNREFUSED);
CLIENT_API_SAME(ECONNRESET);
CLIENT_API_SAME(EREJECTED);
CLIENT_API_SAME(EPROTO);
CLIENT_API_SAME(EVERSION);
CLIENT_API_SAME(EINTERNAL);
CLIENT_API_SAME(ESHUTDOWN);

/* pb in the daemon's form (pb was checked); -1 if it does not fit. */
int client_api_params_from(const Iwcm__ConnParams *pb, struct conn_params *out)
{
	memset(out, 0, sizeof(*out));
	if (pb->has_private_data) {
		/* RFC 5044 §7.1.1: at most 512 octets */
		if (pb->private_data.len > sizeof(out->private_data) ||
		    (pb->private_data.len && !pb->private_data.data))
			return -1;
		out->has_private_data = true;
		if (pb->private_data.len)
			memcpy(out->private_data, pb->private_data.data,
			       pb->private_data.len);
		out->private_data_len = pb->private_data.len;
	}
	out->has_ird = pb->has_ird;
	out->ird = pb->ird;
	out->has_ord = pb->has_ord;
	out->ord = pb->ord;
	out->has_p2p = pb->has_p2p;
	out->p2p = pb->p2p;
	out->has_rtr_types = pb->has_rtr_types;
	out->rtr_types = pb->rtr_types;
	out->has_mpa_rev = pb->has_mpa_rev;
	out->mpa_rev = pb->mpa_rev;
	out->has_markers = pb->has_markers;
	out->markers = pb->markers;
	out->has_crc = pb->has_crc;
	out->crc_request = pb->crc == IWCM__CRC_POLICY__CRC_REQUEST;
	out->has_rev0 = pb->has_rev0;
	out->rev0_permissive = pb->rev0 == IWCM__REV0_POLICY__REV0_PERMISSIVE;
	out->has_enhanced_fallback = pb->has_enhanced_fallback;
	out->enhanced_fallback = pb->enhanced_fallback;
	out->has_reply_timeout_ms = pb->has_reply_timeout_ms;
	out->reply_timeout_ms = pb->reply_timeout_ms;
	out->has_ulp_timeout_ms = pb->has_ulp_timeout_ms;
	out->ulp_timeout_ms = pb->ulp_timeout_ms;
	out->has_first_fpdu_delay_ms = pb->has_first_fpdu_delay_ms;
	out->first_fpdu_delay_ms = pb->first_fpdu_delay_ms;
	out->has_qp_takes_read_resp = pb->has_qp_takes_read_resp;
	out->qp_takes_read_resp = pb->qp_takes_read_resp;
	out->has_tcp_user_timeout_ms = pb->has_tcp_user_timeout_ms;
	out->tcp_user_timeout_ms = pb->tcp_user_timeout_ms;
	out->has_rtr_frame = pb->has_rtr_frame;
	out->rtr_frame = pb->rtr_frame;
	out->has_transport = pb->has_transport;
	out->sctp = pb->transport == IWCM__TRANSPORT__TRANSPORT_SCTP;
	out->has_sctp_udp_port = pb->has_sctp_udp_port;
	out->sctp_udp_port = (uint16_t)pb->sctp_udp_port;
	return 0;
}

/* p in protobuf form; out points into p. */
void client_api_params_to(const struct conn_params *p, Iwcm__ConnParams *out)
{
	iwcm__conn_params__init(out);
	out->has_ird = p->has_ird;
	out->ird = p->ird;
	out->has_ord = p->has_ord;
	out->ord = p->ord;
	out->has_p2p = p->has_p2p;
	out->p2p = p->p2p;
	out->has_rtr_types = p->has_rtr_types;
	out->rtr_types = p->rtr_types;
	out->has_private_data = p->has_private_data;
	out->private_data.data = (uint8_t *)(uintptr_t)p->private_data;
	out->private_data.len = p->private_data_len;
	out->has_mpa_rev = p->has_mpa_rev;
	out->mpa_rev = p->mpa_rev;
	out->has_markers = p->has_markers;
	out->markers = p->markers;
	out->has_crc = p->has_crc;
	out->crc = p->crc_request ? IWCM__CRC_POLICY__CRC_REQUEST :
				    IWCM__CRC_POLICY__CRC_PREFER_OFF;
	out->has_rev0 = p->has_rev0;
	out->rev0 = p->rev0_permissive ? IWCM__REV0_POLICY__REV0_PERMISSIVE :
					 IWCM__REV0_POLICY__REV0_STRICT;
	out->has_enhanced_fallback = p->has_enhanced_fallback;
	out->enhanced_fallback = p->enhanced_fallback;
	out->has_reply_timeout_ms = p->has_reply_timeout_ms;
	out->reply_timeout_ms = p->reply_timeout_ms;
	out->has_ulp_timeout_ms = p->has_ulp_timeout_ms;
	out->ulp_timeout_ms = p->ulp_timeout_ms;
	out->has_first_fpdu_delay_ms = p->has_first_fpdu_delay_ms;
	out->first_fpdu_delay_ms = p->first_fpdu_delay_ms;
	out->has_qp_takes_read_resp = p->has_qp_takes_read_resp;
	out->qp_takes_read_resp = p->qp_takes_read_resp;
	out->has_tcp_user_timeout_ms = p->has_tcp_user_timeout_ms;
	out->tcp_user_timeout_ms = p->tcp_user_timeout_ms;
	out->has_rtr_frame = p->has_rtr_frame;
	out->rtr_frame = p->rtr_frame;
	out->has_transport = p->has_transport;
	out->transport = p->sctp ? IWCM__TRANSPORT__TRANSPORT_SCTP :
				   IWCM__TRANSPORT__TRANSPORT_TCP;
	out->has_sctp_udp_port = p->has_sctp_udp_port;
	out->sctp_udp_port = p->sctp_udp_port;
}

/* Where a (checked) Connect goes: dst, and src when given. */
int client_api_target(const Iwcm__SockAddr *dst, const Iwcm__SockAddr *src,
		      struct conn_target *t)
{
	memset(t, 0, sizeof(*t));
	if (pb_sockaddr_to(dst, &t->dst, &t->dst_len) < 0)
		return -1;
	if (src && pb_sockaddr_to(src, &t->src, &t->src_len) < 0)
		return -1;
	return 0;
}

/* Check a Connect's destination and parameters. */
Iwcm__Result client_api_check_connect(const Iwcm__SockAddr *dst,
				      const Iwcm__ConnParams *p, bool forced)
{
	if (!client_api_sockaddr_ok(dst) || dst->port == 0 ||
	    !client_api_params_ok(p, forced))
		return IWCM__RESULT__RES_EINVAL;
	return IWCM__RESULT__RES_OK;
}

/* A client's TCP listener (listener.c). */
static enum conn_result cat_listen(struct client *c,
				   const struct listener_req *lr, uint64_t *id,
				   struct sockaddr_storage *bound)
{
	struct listener *lst;
	enum conn_result r = listener_listen(c, lr, &lst);

	if (r == CONN_RES_OK) {
		*id = lst->id;
		*bound = lst->addr;
	}
	return r;
}

static const struct client_transport client_transport_tcp = {
	.name = "tcp",
	.listen = cat_listen,
	.unlisten = listener_unlisten,
	.connect = conn_connect,
	.accept = conn_ulp_accept,
	.reject = conn_ulp_reject,
	.disconnect = conn_disconnect,
};

/* The transport a request's parameters ask for. */
static const struct client_transport *
client_api_transport(const Iwcm__ConnParams *p)
{
	return p && p->has_transport &&
			       p->transport == IWCM__TRANSPORT__TRANSPORT_SCTP ?
		       &client_transport_sctp :
		       &client_transport_tcp;
}

/* The transport of a connection or listener id. */
static const struct client_transport *client_api_transport_of(uint64_t id)
{
	return id & SCTP_CONN_ID_BIT ? &client_transport_sctp :
				       &client_transport_tcp;
}

static Iwcm__Result client_api_listen(struct client *c,
				      const ProtobufCMessage *req,
				      struct client_reply_buf *r)
{
	const Iwcm__Listen *l = (const void *)req;
	const struct client_transport *tr = client_api_transport(l->params);
	const struct conf_listener *svc = NULL;
	struct sockaddr_storage bound;
	struct listener_req lr;
	struct conn_params params;
	Iwcm__Result res;
	uint64_t id = 0;

	/* exactly one of an address and a configured service */
	if (!l->addr == !l->service)
		return IWCM__RESULT__RES_EINVAL;
	if (l->addr && !client_api_sockaddr_ok(l->addr))
		return IWCM__RESULT__RES_EINVAL;
	if (l->service &&
	    (!l->service[0] || strlen(l->service) >= CONF_NAME_MAX))
		return IWCM__RESULT__RES_EINVAL;
	if (!client_api_params_ok(l->params, false) ||
	    (l->has_backlog && l->backlog > 65535))
		return IWCM__RESULT__RES_EINVAL;
	/* a service's transport is iwcmd.conf's (transport = sctp) */
	if (l->service)
		svc = conf_listener_find(iwcmd_conf, l->service);
	if (svc && svc->transport)
		tr = &client_transport_sctp;
	else if (l->service && tr == &client_transport_sctp)
		return IWCM__RESULT__RES_EINVAL; /* SCTP needs an address */
	memset(&lr, 0, sizeof(lr));
	lr.service = l->service;
	if (l->addr && pb_sockaddr_to(l->addr, &lr.addr, &lr.addrlen) < 0)
		return IWCM__RESULT__RES_EINVAL;
	if (l->params) {
		if (client_api_params_from(l->params, &params) < 0)
			return IWCM__RESULT__RES_EINVAL;
		lr.params = &params;
	}
	lr.backlog = l->has_backlog ? l->backlog : 0;
	memset(&bound, 0, sizeof(bound));
	res = client_api_result(tr->listen(c, &lr, &id, &bound));
	if (res == IWCM__RESULT__RES_OK) {
		r->lr.has_listener_id = 1;
		r->lr.listener_id = id;
		pb_sockaddr_from(&bound, &r->bound, r->bound_buf);
		r->lr.bound = &r->bound;
	}
	return res;
}

static Iwcm__Result client_api_unlisten(struct client *c,
					const ProtobufCMessage *req,
					struct client_reply_buf *r)
{
	const Iwcm__Unlisten *u = (const void *)req;

	(void)r;
	return client_api_result(client_api_transport_of(u->listener_id)
					 ->unlisten(c, u->listener_id));
}

static Iwcm__Result client_api_connect(struct client *c,
				       const ProtobufCMessage *req,
				       struct client_reply_buf *r)
{
	const Iwcm__Connect *cn = (const void *)req;
	struct conn_params params;
	struct conn_target t;
	Iwcm__Result res;
	uint64_t id = 0;

	res = client_api_check_connect(cn->dst, cn->params, false);
	if (res != IWCM__RESULT__RES_OK)
		return res;
	if (cn->src && (!client_api_sockaddr_ok(cn->src) ||
			cn->src->addr.len != cn->dst->addr.len))
		return IWCM__RESULT__RES_EINVAL;
	if (conn_uid_pending(c->uid) >= iwcmd_conf->max_pending_per_uid)
		return IWCM__RESULT__RES_ELIMIT;
	if (client_api_target(cn->dst, cn->src, &t) < 0 ||
	    (cn->params && client_api_params_from(cn->params, &params) < 0))
		return IWCM__RESULT__RES_EINVAL;
	res = client_api_result(
		client_api_transport(cn->params)
			->connect(c, &t, cn->params ? &params : NULL, &id));
	if (res == IWCM__RESULT__RES_OK) {
		r->ack.has_conn_id = 1;
		r->ack.conn_id = id;
	}
	return res;
}

static Iwcm__Result client_api_accept(struct client *c,
				      const ProtobufCMessage *req,
				      struct client_reply_buf *r)
{
	const Iwcm__Accept *a = (const void *)req;
	struct conn_params params;

	r->ack.has_conn_id = 1;
	r->ack.conn_id = a->conn_id;
	if (!client_api_params_ok(a->params, false) ||
	    (a->params && client_api_params_from(a->params, &params) < 0))
		return IWCM__RESULT__RES_EINVAL;
	return client_api_result(
		client_api_transport_of(a->conn_id)
			->accept(c, a->conn_id, a->params ? &params : NULL));
}

static Iwcm__Result client_api_reject(struct client *c,
				      const ProtobufCMessage *req,
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
	return client_api_result(
		client_api_transport_of(rj->conn_id)
			->reject(c, rj->conn_id,
				 rj->has_private_data ? rj->private_data.data :
							NULL,
				 rj->has_private_data ? rj->private_data.len :
							0));
}

static Iwcm__Result client_api_disconnect(struct client *c,
					  const ProtobufCMessage *req,
					  struct client_reply_buf *r)
{
	const Iwcm__Disconnect *d = (const void *)req;

	r->ack.has_conn_id = 1;
	r->ack.conn_id = d->conn_id;
	return client_api_result(
		client_api_transport_of(d->conn_id)->disconnect(c, d->conn_id));
}

static const struct client_handler {
	uint16_t type;
	const ProtobufCMessageDescriptor *desc;
	uint16_t reply; /* IPC_CLIENT_LISTEN_REPLY or _ACK */
	Iwcm__Result (*fn)(struct client *, const ProtobufCMessage *,
			   struct client_reply_buf *);
} client_handlers[] = {
	{ IPC_CLIENT_LISTEN, &iwcm__listen__descriptor, IPC_CLIENT_LISTEN_REPLY,
	  client_api_listen },
	{ IPC_CLIENT_UNLISTEN, &iwcm__unlisten__descriptor, IPC_CLIENT_ACK,
	  client_api_unlisten },
	{ IPC_CLIENT_CONNECT, &iwcm__connect__descriptor, IPC_CLIENT_ACK,
	  client_api_connect },
	{ IPC_CLIENT_ACCEPT, &iwcm__accept__descriptor, IPC_CLIENT_ACK,
	  client_api_accept },
	{ IPC_CLIENT_REJECT, &iwcm__reject__descriptor, IPC_CLIENT_ACK,
	  client_api_reject },
	{ IPC_CLIENT_DISCONNECT, &iwcm__disconnect__descriptor, IPC_CLIENT_ACK,
	  client_api_disconnect },
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

/* ---- what happens to connections, for their owners (conn_notify) ---- */

/* Describe the peer frame f as a PeerInfo (points into f). */
static void client_api_peer_info(const struct mpa_frame *f, Iwcm__PeerInfo *pi)
{
	iwcm__peer_info__init(pi);
	pi->has_mpa_rev = pi->has_flags = pi->has_enhanced = 1;
	pi->mpa_rev = f->rev;
	pi->flags = f->flags;
	pi->enhanced = f->enhanced;
	if (f->enhanced) {
		/* RFC 6581 §9.1: the peer's raw IRD/ORD go to the ULP. */
		pi->has_p2p = pi->has_rtr_types = pi->has_ird = pi->has_ord = 1;
		pi->p2p = f->enh.p2p;
		pi->rtr_types = f->enh.rtr;
		pi->ird = f->enh.ird;
		pi->ord = f->enh.ord;
	}
	/* RFC 5044 §7.1.2 rule 6: the Private Data goes to the ULP. */
	pi->has_private_data = 1;
	pi->private_data.data = (uint8_t *)(uintptr_t)f->ulp_pd;
	pi->private_data.len = f->ulp_pd ? f->ulp_pd_len : 0;
}

/* Describe c's negotiated state as an Established (points into c, h). */
void client_api_established_fill(const struct conn *c,
				 struct client_api_established *h)
{
	Iwcm__Established *e = &h->e;
	size_t i;

	iwcm__established__init(e);
	e->conn_id = c->id;
	e->transport = IWCM__TRANSPORT__TRANSPORT_TCP;
	pb_sockaddr_from(&c->local, &h->local, h->lbuf);
	pb_sockaddr_from(&c->peer, &h->peer, h->pbuf);
	e->local = &h->local;
	e->peer = &h->peer;
	e->initiator = c->role == NEG_INITIATOR;
	e->mpa_rev = c->res.rev;
	/* seed 002: DDP and RDMAP versions move together (0 or 1) */
	e->ddp_version = c->res.version;
	e->rdmap_version = c->res.version;
	e->markers_tx = c->tx.markers;
	e->markers_rx = c->rx.markers;
	e->crc = c->res.crc;
	e->enhanced = c->res.enhanced;
	e->p2p = c->res.p2p;
	e->rtr_type = c->rtr_type;
	e->ird = c->res.ird;
	e->ord = c->res.ord;
	/* RFC 6581 §9.1: the peer's raw IRD/ORD and flags; its ULP PD. */
	client_api_peer_info(c->role == NEG_INITIATOR ? &c->rep : &c->req,
			     &h->pi);
	e->peer_info = &h->pi;
	/* RFC 5044 §4.3: markers sit at offsets 0 mod 512 of FPDU mode. */
	e->tx_offset = c->tx.off;
	e->rx_offset = c->rx.off;
	/* unread stays absent: the handshake reads exactly its frames and
	 * leaves what follows in the socket (handoff.c). */
	/*
	 * RFC 5041 §5.3: next MSN per untagged queue (QN 0-3), in the
	 * direction the RTR used: what the initiator sends next, what the
	 * responder expects next.  The other direction starts at 1.
	 */
	for (i = 0; i < CONN_NQN; i++)
		h->msn[i] = c->next_msn[i];
	e->n_next_msn = CONN_NQN;
	e->next_msn = h->msn;
	/* RFC 5044 §7.1.2 rule 4: no RTR, so the datapath fences. */
	e->wait_first_fpdu = c->role == NEG_RESPONDER && c->res.wait_first_fpdu;
	e->has_rtr_frame = 1;
	e->rtr_frame = c->res.rtr_frame;
	/* RFC 6581 §9.2: the Read RTR's Response, for the client's QP */
	if (c->read_resp_due) {
		e->has_rtr_read_due = e->rtr_read_due = 1;
		e->has_rtr_read_stag = 1;
		e->rtr_read_stag = c->read_rtr.sink_stag;
		e->has_rtr_read_to = 1;
		e->rtr_read_to = c->read_rtr.sink_to;
	}
}

/* CONNECT_REQUEST for a client of the listener; -1 when not sent. */
int client_api_request(struct client *cl, const struct conn *c)
{
	Iwcm__ConnectRequest r = IWCM__CONNECT_REQUEST__INIT;
	Iwcm__SockAddr local, peer;
	Iwcm__PeerInfo pi;
	uint8_t lb[16], pb[16];

	r.conn_id = c->id;
	r.listener_id = c->listener_id;
	pb_sockaddr_from(&c->local, &local, lb);
	pb_sockaddr_from(&c->peer, &peer, pb);
	r.local = &local;
	r.peer = &peer;
	client_api_peer_info(&c->req, &pi);
	r.peer_info = &pi;
	return control_send(cl, IPC_EVENT_CONNECT_REQUEST, 0, &r.base, -1);
}

/* CONNECT_ERROR (or UNREACHABLE) to c's owner, with the Terminate sent
 * or received if any. */
void client_api_error(const struct conn *c, bool unreachable)
{
	Iwcm__ConnError e = IWCM__CONN_ERROR__INIT;

	e.conn_id = c->id;
	e.result = client_api_result(c->err);
	e.reason = (char *)(uintptr_t)c->reason;
	if (c->term_valid) {
		e.has_term_layer = e.has_term_etype = e.has_term_ecode = 1;
		e.term_layer = c->term_layer;
		e.term_etype = c->term_etype;
		e.term_ecode = c->term_ecode;
	}
	control_send(c->owner,
		     unreachable ? IPC_EVENT_UNREACHABLE : IPC_EVENT_ERROR, 0,
		     &e.base, -1);
}

/* REJECTED to c's owner: the peer's Private Data and IRD/ORD. */
void client_api_rejected(const struct conn *c)
{
	Iwcm__Rejected r = IWCM__REJECTED__INIT;
	Iwcm__PeerInfo pi;

	r.conn_id = c->id;
	r.result = IWCM__RESULT__RES_EREJECTED;
	client_api_peer_info(&c->rep, &pi);
	r.peer_info = &pi;
	r.reason = (char *)(uintptr_t)c->reason;
	control_send(c->owner, IPC_EVENT_REJECTED, 0, &r.base, -1);
}

/* Established with c's socket to its owner; -1 when not sent.  The
 * socket goes with the message and the daemon's copy is closed once it
 * is sent: the connection forgets it now (its events are off already). */
int client_api_established(struct conn *c)
{
	struct client_api_established h;
	int fd = c->fd;

	client_api_established_fill(c, &h);
	c->fd = -1;
	return control_send_fd(c->owner, IPC_EVENT_ESTABLISHED, 0, &h.e.base,
			       fd);
}

struct gone_walk {
	struct client *c;
	uint64_t *ids;
	size_t n, cap;
};

static void client_api_gone_collect(struct listener *l, void *arg)
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

	listener_foreach(client_api_gone_collect, &w);
	for (i = 0; i < w.n; i++)
		listener_unlisten(c, w.ids[i]);
	free(w.ids);
	conn_client_gone(c);
	sctp_conn_client_gone(c);
}
