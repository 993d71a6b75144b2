/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection management: parameters, listeners, connect/accept/reject
 * and freeing the connection handle (proto/iwcm.proto documents each
 * flow).  The daemon's events and the answers to pipelined requests are
 * applied by cm_events.c; cm_conn.c reads a connection's state out and
 * hands the socket over.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* Longest service name the daemon accepts (iwcmd.conf(5)). */
#define CM_SERVICE_MAX 63

struct iwcm_conn_param {
	Iwcm__ConnParams pb; /* has_* = set by the caller */
	uint8_t pd[IWCM_PRIVATE_DATA_MAX];
};

/* ---- addresses ---- */

/* Convert a caller's address into a SockAddr whose octets live in buf. */
int cm_sockaddr_to_pb(const struct sockaddr *sa, Iwcm__SockAddr *pb,
		      uint8_t *buf)
{
	iwcm__sock_addr__init(pb);
	if (!sa)
		return ERR(EINVAL);
	if (sa->sa_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)sa;

		memcpy(buf, &sin->sin_addr, 4);
		pb->addr.len = 4;
		pb->port = ntohs(sin->sin_port);
	} else if (sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 =
			(const struct sockaddr_in6 *)sa;

		memcpy(buf, &sin6->sin6_addr, 16);
		pb->addr.len = 16;
		pb->port = ntohs(sin6->sin6_port);
	} else {
		return ERR(EAFNOSUPPORT);
	}
	pb->addr.data = buf;
	return 0;
}

/* ---- connection parameters ---- */

/* Allocate connection parameters, all unset. */
IWCM_EXPORT struct iwcm_conn_param *iwcm_conn_param_new(void)
{
	struct iwcm_conn_param *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	iwcm__conn_params__init(&p->pb);
	return p;
}

/* Free connection parameters. */
IWCM_EXPORT void iwcm_conn_param_free(struct iwcm_conn_param *param)
{
	free(param);
}

/* Set the IRD. */
IWCM_EXPORT int iwcm_conn_param_set_ird(struct iwcm_conn_param *param,
					unsigned int ird)
{
	if (!param || ird > IWCM_IRD_ORD_MAX)
		return ERR(EINVAL);
	param->pb.has_ird = 1;
	param->pb.ird = ird;
	return 0;
}

/* Set the ORD. */
IWCM_EXPORT int iwcm_conn_param_set_ord(struct iwcm_conn_param *param,
					unsigned int ord)
{
	if (!param || ord > IWCM_IRD_ORD_MAX)
		return ERR(EINVAL);
	param->pb.has_ord = 1;
	param->pb.ord = ord;
	return 0;
}

/* Ask for the peer-to-peer model or not. */
IWCM_EXPORT int iwcm_conn_param_set_p2p(struct iwcm_conn_param *param, bool p2p)
{
	if (!param)
		return ERR(EINVAL);
	param->pb.has_p2p = 1;
	param->pb.p2p = p2p;
	return 0;
}

/* Set the RTR types offered or accepted. */
IWCM_EXPORT int iwcm_conn_param_set_rtr_types(struct iwcm_conn_param *param,
					      unsigned int types)
{
	const unsigned int all = IWCM_RTR_SEND | IWCM_RTR_WRITE | IWCM_RTR_READ;

	if (!param || !types || (types & ~all))
		return ERR(EINVAL);
	param->pb.has_rtr_types = 1;
	param->pb.rtr_types = types;
	return 0;
}

/* Set the private data to send. */
IWCM_EXPORT int iwcm_conn_param_set_private_data(struct iwcm_conn_param *param,
						 const void *data, size_t len)
{
	if (!param || (!data && len) || len > IWCM_PRIVATE_DATA_MAX)
		return ERR(EINVAL);
	if (len)
		memcpy(param->pd, data, len);
	param->pb.has_private_data = 1;
	param->pb.private_data.data = param->pd;
	param->pb.private_data.len = len;
	return 0;
}

/* Set the MPA revision to request. */
IWCM_EXPORT int iwcm_conn_param_set_mpa_rev(struct iwcm_conn_param *param,
					    enum iwcm_mpa_rev rev)
{
	if (!param || (rev != IWCM_MPA_REV_1 && rev != IWCM_MPA_REV_2))
		return ERR(EINVAL);
	param->pb.has_mpa_rev = 1;
	param->pb.mpa_rev = (uint32_t)rev;
	return 0;
}

/* Ask the peer for markers or not. */
IWCM_EXPORT int iwcm_conn_param_set_markers(struct iwcm_conn_param *param,
					    bool markers)
{
	if (!param)
		return ERR(EINVAL);
	param->pb.has_markers = 1;
	param->pb.markers = markers;
	return 0;
}

/* Set the CRC policy. */
IWCM_EXPORT int iwcm_conn_param_set_crc(struct iwcm_conn_param *param,
					enum iwcm_crc_policy crc)
{
	if (!param || (crc != IWCM_CRC_REQUEST && crc != IWCM_CRC_PREFER_OFF))
		return ERR(EINVAL);
	param->pb.has_crc = 1;
	param->pb.crc = (Iwcm__CrcPolicy)crc;
	return 0;
}

/* Set the policy toward Rev 0 peers. */
IWCM_EXPORT int iwcm_conn_param_set_rev0(struct iwcm_conn_param *param,
					 enum iwcm_rev0_policy rev0)
{
	if (!param ||
	    (rev0 != IWCM_REV0_STRICT && rev0 != IWCM_REV0_PERMISSIVE))
		return ERR(EINVAL);
	param->pb.has_rev0 = 1;
	param->pb.rev0 = (Iwcm__Rev0Policy)rev0;
	return 0;
}

/* Allow or forbid the RFC 6581 §10 retry without enhancement. */
IWCM_EXPORT int iwcm_conn_param_set_fallback(struct iwcm_conn_param *param,
					     bool fallback)
{
	if (!param)
		return ERR(EINVAL);
	param->pb.has_enhanced_fallback = 1;
	param->pb.enhanced_fallback = fallback;
	return 0;
}

/* Set the MPA Reply timeout. */
IWCM_EXPORT int iwcm_conn_param_set_reply_timeout(struct iwcm_conn_param *param,
						  unsigned int ms)
{
	if (!param || ms < 100 || ms > 600000)
		return ERR(EINVAL);
	param->pb.has_reply_timeout_ms = 1;
	param->pb.reply_timeout_ms = ms;
	return 0;
}

/* Hold the first FPDU after the Reply (docs/interop.md). */
IWCM_EXPORT int
iwcm_conn_param_set_first_fpdu_delay(struct iwcm_conn_param *param,
				     unsigned int ms)
{
	if (!param || ms > IWCM_FIRST_FPDU_DELAY_MAX)
		return ERR(EINVAL);
	param->pb.has_first_fpdu_delay_ms = 1;
	param->pb.first_fpdu_delay_ms = ms;
	return 0;
}

/* Set the timeout of the accept/reject decision. */
IWCM_EXPORT int iwcm_conn_param_set_ulp_timeout(struct iwcm_conn_param *param,
						unsigned int ms)
{
	if (!param || ms < 100 || ms > 3600000)
		return ERR(EINVAL);
	param->pb.has_ulp_timeout_ms = 1;
	param->pb.ulp_timeout_ms = ms;
	return 0;
}

/* Set TCP_USER_TIMEOUT and keepalive on the handed-over socket. */
IWCM_EXPORT int
iwcm_conn_param_set_tcp_user_timeout(struct iwcm_conn_param *param,
				     unsigned int ms)
{
	if (!param || ms > IWCM_TCP_USER_TIMEOUT_MAX)
		return ERR(EINVAL);
	param->pb.has_tcp_user_timeout_ms = 1;
	param->pb.tcp_user_timeout_ms = ms;
	return 0;
}

/* Use the legacy RtR frame or not. */
IWCM_EXPORT int iwcm_conn_param_set_rtr_frame(struct iwcm_conn_param *param,
					      bool rtr_frame)
{
	if (!param)
		return ERR(EINVAL);
	param->pb.has_rtr_frame = 1;
	param->pb.rtr_frame = rtr_frame;
	return 0;
}

/* Set the transport. */
IWCM_EXPORT int iwcm_conn_param_set_transport(struct iwcm_conn_param *param,
					      enum iwcm_transport transport)
{
	if (!param || (transport != IWCM_TRANSPORT_TCP &&
		       transport != IWCM_TRANSPORT_SCTP))
		return ERR(EINVAL);
	param->pb.has_transport = 1;
	param->pb.transport = (Iwcm__Transport)transport;
	return 0;
}

/* Private data beyond what the frame can carry is refused here rather
 * than cut by the daemon. */
static int cm_param_check_pd(const struct iwcm_conn_param *param, bool enhanced)
{
	size_t max = enhanced ? IWCM_PRIVATE_DATA_MAX_ENHANCED :
				IWCM_PRIVATE_DATA_MAX;

	if (param && param->pb.has_private_data &&
	    param->pb.private_data.len > max)
		return ERR(EINVAL);
	return 0;
}

/* ---- listeners ---- */

static int cm_addr_ok(const struct sockaddr *sa)
{
	if (!sa)
		return ERR(EINVAL);
	if (sa->sa_family != AF_INET && sa->sa_family != AF_INET6)
		return ERR(EAFNOSUPPORT);
	return 0;
}

/* Ask the daemon to listen on an address or a configured service. */
IWCM_EXPORT struct iwcm_listener *
iwcm_listen(struct iwcm_ctx *ctx, const struct sockaddr *addr,
	    const char *service, const struct iwcm_conn_param *param,
	    int backlog)
{
	Iwcm__Listen req = IWCM__LISTEN__INIT;
	Iwcm__SockAddr sa;
	uint8_t buf[16];
	Iwcm__ListenReply *rep;
	struct iwcm_listener *l;
	Iwcm__ConnParams params;
	int e;

	if (!ctx || !addr == !service || backlog < 0 || backlog > 65535)
		return ERR_PTR(EINVAL);
	if (addr) {
		if (cm_addr_ok(addr) < 0 || cm_sockaddr_to_pb(addr, &sa, buf))
			return NULL;
		req.addr = &sa;
	} else {
		size_t n = strlen(service);

		if (n == 0 || n > CM_SERVICE_MAX)
			return ERR_PTR(EINVAL);
		req.service = (char *)service;
	}
	if (param) {
		params = param->pb;
		req.params = &params;
	}
	if (backlog) {
		req.has_backlog = 1;
		req.backlog = (uint32_t)backlog;
	}
	l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	rep = (Iwcm__ListenReply *)chan_request(
		ctx, IPC_CLIENT_LISTEN, &req.base, IPC_CLIENT_LISTEN_REPLY,
		&iwcm__listen_reply__descriptor);
	if (!rep) {
		e = errno;
		free(l);
		return ERR_PTR(e);
	}
	e = chan_result_errno(rep->result);
	if (!e && (!rep->has_listener_id || !rep->bound ||
		   pb_sockaddr_to(rep->bound, &l->addr, NULL) < 0 ||
		   cm_listener_find(ctx, rep->listener_id)))
		e = EPROTO;
	if (e) {
		protobuf_c_message_free_unpacked(&rep->base, NULL);
		free(l);
		return ERR_PTR(e);
	}
	l->ctx = ctx;
	l->id = rep->listener_id;
	protobuf_c_message_free_unpacked(&rep->base, NULL);
	TAILQ_INSERT_TAIL(&ctx->listeners, l, entry);
	return l;
}

/* Stop listening and free the listener. */
IWCM_EXPORT int iwcm_listener_close(struct iwcm_listener *listener)
{
	Iwcm__Unlisten req = IWCM__UNLISTEN__INIT;
	Iwcm__Ack *ack;
	int e = 0;

	if (!listener)
		return 0;
	/* Requests that arrive while we wait for the Ack are refused. */
	TAILQ_REMOVE(&listener->ctx->listeners, listener, entry);
	req.listener_id = listener->id;
	ack = (Iwcm__Ack *)chan_request(listener->ctx, IPC_CLIENT_UNLISTEN,
					&req.base, IPC_CLIENT_ACK,
					&iwcm__ack__descriptor);
	if (!ack) {
		e = errno;
	} else {
		e = chan_result_errno(ack->result);
		protobuf_c_message_free_unpacked(&ack->base, NULL);
	}
	free(listener);
	return e ? ERR(e) : 0;
}

/* The address a listener is bound to. */
IWCM_EXPORT const struct sockaddr *
iwcm_listener_get_addr(const struct iwcm_listener *listener)
{
	if (!listener)
		return ERR_PTR(EINVAL);
	return (const struct sockaddr *)&listener->addr;
}

/* The port a listener is bound to. */
IWCM_EXPORT int iwcm_listener_get_port(const struct iwcm_listener *listener)
{
	const struct sockaddr_storage *ss;

	if (!listener)
		return ERR(EINVAL);
	ss = &listener->addr;
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

/* ---- connections ---- */

/*
 * IWCM_CTX_ASYNC_CM: send the request and let its Ack come to
 * cm_events.c, which holds a reference on c until then.
 */
static int cm_pipeline(struct iwcm_conn *c, uint16_t type,
		       const ProtobufCMessage *body)
{
	uint32_t reqid;

	if (chan_send_pipelined(c->ctx, type, body, &reqid) < 0)
		return -1;
	c->ack_reqid = reqid;
	c->refs++;
	return 0;
}

/* IWCM_CTX_ASYNC_CM: a connection whose id its Connect's Ack brings. */
static struct iwcm_conn *cm_connect_pipelined(struct iwcm_ctx *ctx,
					      const Iwcm__Connect *req)
{
	struct iwcm_conn *c = cm_conn_new(ctx, 0);
	int e;

	if (!c)
		return NULL;
	if (cm_pipeline(c, IPC_CLIENT_CONNECT, &req->base) < 0) {
		e = errno;
		cm_conn_destroy(c);
		return ERR_PTR(e);
	}
	return c;
}

/* Start an outgoing connection. */
IWCM_EXPORT struct iwcm_conn *iwcm_connect(struct iwcm_ctx *ctx,
					   const struct sockaddr *dst,
					   const struct sockaddr *src,
					   const struct iwcm_conn_param *param)
{
	Iwcm__Connect req = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dpb, spb;
	uint8_t dbuf[16], sbuf[16];
	Iwcm__ConnParams params;
	Iwcm__Ack *ack;
	struct iwcm_conn *c;
	bool enhanced;
	int e;

	if (!ctx)
		return ERR_PTR(EINVAL);
	if (cm_addr_ok(dst) < 0 || cm_sockaddr_to_pb(dst, &dpb, dbuf) < 0)
		return NULL;
	if (dpb.port == 0)
		return ERR_PTR(EINVAL);
	req.dst = &dpb;
	if (src) {
		if (cm_addr_ok(src) < 0 ||
		    cm_sockaddr_to_pb(src, &spb, sbuf) < 0)
			return NULL;
		if (src->sa_family != dst->sa_family)
			return ERR_PTR(EINVAL);
		req.src = &spb;
	}
	enhanced = !(param && param->pb.has_mpa_rev && param->pb.mpa_rev == 1);
	if (cm_param_check_pd(param, enhanced) < 0)
		return NULL;
	if (param)
		params = param->pb;
	else
		iwcm__conn_params__init(&params);
	/* our QP takes a Read RTR's Response (qp_rx.c), so iwcmd hands
	 * the connection off right after the RTR */
	params.has_qp_takes_read_resp = 1;
	params.qp_takes_read_resp = 1;
	req.params = &params;
	if (ctx->async_cm) {
		c = cm_connect_pipelined(ctx, &req);
		if (!c)
			return NULL;
		goto out;
	}
	ack = (Iwcm__Ack *)chan_request(ctx, IPC_CLIENT_CONNECT, &req.base,
					IPC_CLIENT_ACK, &iwcm__ack__descriptor);
	if (!ack)
		return NULL;
	e = chan_result_errno(ack->result);
	if (!e && (!ack->has_conn_id || !ack->conn_id ||
		   cm_conn_find(ctx, ack->conn_id)))
		e = EPROTO;
	if (!e) {
		c = cm_conn_new(ctx, ack->conn_id);
		if (!c)
			e = ENOMEM;
	}
	protobuf_c_message_free_unpacked(&ack->base, NULL);
	if (e)
		return ERR_PTR(e);
out:
	c->initiator = true;
	c->state = CONN_CONNECTING;
	pb_sockaddr_to(&dpb, &c->peer, NULL);
	return c;
}

static int cm_decide(struct iwcm_conn *conn, uint16_t type,
		     const ProtobufCMessage *body)
{
	Iwcm__Ack *ack;
	int e;

	if (conn->ctx->async_cm)
		return cm_pipeline(conn, type, body);
	ack = (Iwcm__Ack *)chan_request(conn->ctx, type, body, IPC_CLIENT_ACK,
					&iwcm__ack__descriptor);
	if (!ack)
		return -1;
	e = chan_result_errno(ack->result);
	protobuf_c_message_free_unpacked(&ack->base, NULL);
	/* The daemon no longer knows the request (it expired): the
	 * connection is over, unless an event said so meanwhile. */
	if (e == ENOENT && conn->state == CONN_REQUESTED) {
		conn->state = CONN_FAILED;
		conn->reason = IWCM_STATUS_NOENT;
	}
	return e ? ERR(e) : 0;
}

/* Accept a connection request. */
IWCM_EXPORT int iwcm_accept(struct iwcm_conn *conn,
			    const struct iwcm_conn_param *param)
{
	Iwcm__Accept req = IWCM__ACCEPT__INIT;
	Iwcm__ConnParams params;

	if (!conn || conn->user_freed || conn->state != CONN_REQUESTED)
		return ERR(EINVAL);
	if (cm_param_check_pd(param, conn->peer_info.enhanced) < 0)
		return -1;
	req.conn_id = conn->id;
	if (param) {
		params = param->pb;
		req.params = &params;
	}
	if (cm_decide(conn, IPC_CLIENT_ACCEPT, &req.base) < 0)
		return -1;
	conn->state = CONN_ACCEPTING;
	return 0;
}

/* Reject a connection request. */
IWCM_EXPORT int iwcm_reject(struct iwcm_conn *conn, const void *private_data,
			    size_t len)
{
	Iwcm__Reject req = IWCM__REJECT__INIT;
	size_t max;

	if (!conn || conn->user_freed || conn->state != CONN_REQUESTED ||
	    (!private_data && len))
		return ERR(EINVAL);
	max = conn->peer_info.enhanced ? IWCM_PRIVATE_DATA_MAX_ENHANCED :
					 IWCM_PRIVATE_DATA_MAX;
	if (len > max)
		return ERR(EINVAL);
	req.conn_id = conn->id;
	if (private_data) {
		req.has_private_data = 1;
		req.private_data.data = (uint8_t *)private_data;
		req.private_data.len = len;
	}
	if (cm_decide(conn, IPC_CLIENT_REJECT, &req.base) < 0)
		return -1;
	conn->state = CONN_REJECTED;
	return 0;
}

/* Free a connection, abandoning it if it is still being negotiated. */
IWCM_EXPORT void iwcm_conn_free(struct iwcm_conn *conn)
{
	struct iwcm_ctx *ctx;
	int e = errno;

	if (!conn || conn->user_freed)
		return;
	ctx = conn->ctx;
	conn->user_freed = true;
	/* A Connect whose Ack has not come (id 0) is disconnected by
	 * cm_events.c once the Ack names it. */
	if (conn->state == CONN_REQUESTED) {
		Iwcm__Reject rj = IWCM__REJECT__INIT;

		rj.conn_id = conn->id;
		chan_send_async(ctx, IPC_CLIENT_REJECT, &rj.base);
	} else if ((conn->state == CONN_CONNECTING && conn->id) ||
		   conn->state == CONN_ACCEPTING) {
		Iwcm__Disconnect d = IWCM__DISCONNECT__INIT;

		d.conn_id = conn->id;
		chan_send_async(ctx, IPC_CLIENT_DISCONNECT, &d.base);
	}
	cm_conn_close_fd(conn);
	events_drop_conn(ctx, conn);
	cm_conn_put(conn);
	errno = e;
}
