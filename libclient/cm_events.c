/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's events (proto/iwcm.proto): a connection request, the
 * handoff that fills in a connection's negotiated state, a reject or a
 * failure; and the daemon's answers to the requests a context with
 * IWCM_CTX_ASYNC_CM did not wait for.  Every value from the daemon is
 * range-checked before a connection takes it; a malformed handoff fails
 * that connection, never the process.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framing_sctp.h"
#include "internal.h"

/* A connection's untagged queues: RFC 5040 §5 uses three. */
#define CM_MAX_MSN 64

static enum iwcm_status cm_status(Iwcm__Result r)
{
	if (r > IWCM__RESULT__RES_OK && r <= IWCM__RESULT__RES_ESHUTDOWN)
		return (enum iwcm_status)r;
	return IWCM_STATUS_PROTOCOL;
}

/* Copy a PeerInfo after checking every field's range. */
int cm_peer_info_set(struct peer_info *pi, const Iwcm__PeerInfo *pb)
{
	uint8_t *pd;

	if (pb->mpa_rev > 2 || pb->flags > 0xFF ||
	    (pb->rtr_types &
	     ~(uint32_t)(IWCM_RTR_SEND | IWCM_RTR_WRITE | IWCM_RTR_READ)) ||
	    pb->ird > IWCM_IRD_ORD_MAX || pb->ord > IWCM_IRD_ORD_MAX ||
	    pb->private_data.len > IWCM_PRIVATE_DATA_MAX)
		return ERR(EPROTO);
	/* Never NULL, so that an empty private data reads as such. */
	pd = malloc(pb->private_data.len ? pb->private_data.len : 1);
	if (!pd)
		return -1;
	if (pb->private_data.len)
		memcpy(pd, pb->private_data.data, pb->private_data.len);
	free(pi->pd);
	pi->pd = pd;
	pi->pd_len = pb->private_data.len;
	pi->mpa_rev = pb->mpa_rev;
	pi->flags = pb->flags;
	pi->enhanced = pb->enhanced;
	pi->p2p = pb->p2p;
	pi->rtr_types = pb->rtr_types;
	pi->ird = pb->ird;
	pi->ord = pb->ord;
	pi->known = true;
	return 0;
}

static void cm_set_reason_text(struct iwcm_conn *c, const char *text)
{
	free(c->reason_text);
	c->reason_text = text ? strdup(text) : NULL;
}

/* A connection failed: record why and tell the caller. */
static void cm_fail(struct iwcm_conn *c, enum iwcm_cm_event_type type,
		    enum iwcm_status status, const char *text)
{
	c->state = type == IWCM_CM_EVENT_REJECTED ? CONN_REJECTED : CONN_FAILED;
	c->reason = status;
	cm_set_reason_text(c, text);
	cm_conn_close_fd(c);
	/* Without memory the caller still learns of the failure through
	 * the connection's state on its next request. */
	events_queue(c->ctx, type, c);
}

/* The daemon refused nothing but we cannot take this request. */
static void cm_refuse(struct iwcm_ctx *ctx, uint64_t conn_id)
{
	Iwcm__Reject rj = IWCM__REJECT__INIT;

	rj.conn_id = conn_id;
	chan_send_async(ctx, IPC_CLIENT_REJECT, &rj.base);
}

static void cm_on_request(struct iwcm_ctx *ctx, const Iwcm__ConnectRequest *r)
{
	struct iwcm_conn *c;

	if (!r->conn_id || cm_conn_find(ctx, r->conn_id))
		return;
	if (!cm_listener_find(ctx, r->listener_id)) {
		/* Closed while the request was on its way. */
		cm_refuse(ctx, r->conn_id);
		return;
	}
	c = cm_conn_new(ctx, r->conn_id);
	if (!c) {
		cm_refuse(ctx, r->conn_id);
		return;
	}
	c->state = CONN_REQUESTED;
	c->listener_id = r->listener_id;
	if (pb_sockaddr_to(r->local, &c->local, NULL) < 0 ||
	    pb_sockaddr_to(r->peer, &c->peer, NULL) < 0 ||
	    cm_peer_info_set(&c->peer_info, r->peer_info) < 0 ||
	    events_queue(ctx, IWCM_CM_EVENT_CONNECT_REQUEST, c) < 0) {
		cm_refuse(ctx, r->conn_id);
		cm_conn_destroy(c);
		return;
	}
	c->local_known = true;
}

static bool cm_rtr_type_ok(uint32_t t)
{
	return t == IWCM_RTR_NONE || t == IWCM_RTR_SEND ||
	       t == IWCM_RTR_WRITE || t == IWCM_RTR_READ;
}

static int cm_take_established(struct iwcm_conn *c, const Iwcm__Established *e)
{
	struct sockaddr_storage local, peer;
	uint8_t *unread;
	uint32_t *msn;

	if ((e->transport != IWCM__TRANSPORT__TRANSPORT_TCP &&
	     e->transport != IWCM__TRANSPORT__TRANSPORT_SCTP) ||
	    pb_sockaddr_to(e->local, &local, NULL) < 0 ||
	    pb_sockaddr_to(e->peer, &peer, NULL) < 0 ||
	    e->initiator != c->initiator || e->mpa_rev > 2 ||
	    e->ddp_version > 1 || e->rdmap_version > 1 ||
	    !cm_rtr_type_ok(e->rtr_type) || e->ird > IWCM_IRD_ORD_MAX ||
	    e->ord > IWCM_IRD_ORD_MAX || e->n_next_msn > CM_MAX_MSN)
		return ERR(EPROTO);
	/* DDP over SCTP: the relay's stream and segment size (RFC 5043 §9) */
	if (e->transport == IWCM__TRANSPORT__TRANSPORT_SCTP &&
	    (!e->has_sctp_stream || e->sctp_stream > 0xffff ||
	     !e->has_max_segment || e->max_segment < 64 ||
	     e->max_segment > 0xffff))
		return ERR(EPROTO);
	if (e->sctp_handoff && e->transport != IWCM__TRANSPORT__TRANSPORT_SCTP)
		return ERR(EPROTO);
	if (cm_peer_info_set(&c->peer_info, e->peer_info) < 0)
		return -1;
	/* the association's own socket (kernel SCTP), with its session */
	if (e->sctp_handoff) {
		fs_handoff_free(c->sctp_handoff);
		c->sctp_handoff =
			fs_handoff_from_pb(e->sctp_handoff, e->max_segment);
		if (!c->sctp_handoff)
			return -1;
	}
	unread = malloc(e->unread.len ? e->unread.len : 1);
	msn = calloc(e->n_next_msn ? e->n_next_msn : 1, sizeof(*msn));
	if (!unread || !msn) {
		free(unread);
		free(msn);
		return -1;
	}
	if (e->has_unread && e->unread.len)
		memcpy(unread, e->unread.data, e->unread.len);
	if (e->n_next_msn)
		memcpy(msn, e->next_msn, e->n_next_msn * sizeof(*msn));
	c->unread = unread;
	c->unread_len = e->has_unread ? e->unread.len : 0;
	c->next_msn = msn;
	c->n_msn = e->n_next_msn;
	c->local = local;
	c->local_known = true;
	c->peer = peer;
	c->transport = e->transport;
	c->sctp_stream = (uint16_t)e->sctp_stream;
	c->sctp_max_segment = e->max_segment;
	c->mpa_rev = e->mpa_rev;
	c->ddp_version = e->ddp_version;
	c->rdmap_version = e->rdmap_version;
	c->markers_tx = e->markers_tx;
	c->markers_rx = e->markers_rx;
	c->crc = e->crc;
	c->enhanced = e->enhanced;
	c->p2p = e->p2p;
	c->rtr_type = e->rtr_type;
	c->rtr_frame = e->has_rtr_frame && e->rtr_frame;
	c->ird = e->ird;
	c->ord = e->ord;
	c->tx_offset = e->tx_offset;
	c->rx_offset = e->rx_offset;
	c->wait_first_fpdu = e->wait_first_fpdu;
	/* RFC 6581 §9.2: only an initiator's Read RTR has a Response due */
	c->rtr_read_due = e->has_rtr_read_due && e->rtr_read_due;
	if (c->rtr_read_due &&
	    (!c->initiator || e->rtr_type != IWCM__RTR_TYPE__RTR_READ ||
	     e->transport != IWCM__TRANSPORT__TRANSPORT_TCP))
		return ERR(EPROTO);
	c->rtr_read_stag = e->rtr_read_stag;
	c->rtr_read_to = e->rtr_read_to;
	return 0;
}

static void cm_on_established(struct iwcm_ctx *ctx, struct ipc_msg *m,
			      const Iwcm__Established *e)
{
	struct iwcm_conn *c = cm_conn_find(ctx, e->conn_id);
	int fd;

	/* Not ours (any more): ipc_msg_clear() closes the fd. */
	if (!c || (c->state != CONN_CONNECTING && c->state != CONN_ACCEPTING))
		return;
	fd = ipc_take_fd(m);
	if (fd < 0) {
		cm_fail(c, IWCM_CM_EVENT_CONNECT_ERROR, IWCM_STATUS_PROTOCOL,
			"handoff without a socket");
		return;
	}
	if (cm_take_established(c, e) < 0) {
		bool proto = errno == EPROTO;

		close(fd);
		cm_fail(c, IWCM_CM_EVENT_CONNECT_ERROR,
			proto ? IWCM_STATUS_PROTOCOL : IWCM_STATUS_INTERNAL,
			proto ? "malformed handoff" : "out of memory");
		return;
	}
	/* From here iwcm_create_qp() may take the socket in any thread. */
	pthread_mutex_lock(&c->fd_lock);
	c->fd = fd;
	c->state = CONN_ESTABLISHED;
	pthread_mutex_unlock(&c->fd_lock);
	/* Without memory for the event the state still tells. */
	events_queue(ctx, IWCM_CM_EVENT_ESTABLISHED, c);
}

static void cm_on_rejected(struct iwcm_ctx *ctx, const Iwcm__Rejected *r)
{
	struct iwcm_conn *c = cm_conn_find(ctx, r->conn_id);

	if (!c || c->state != CONN_CONNECTING)
		return;
	if (r->peer_info && cm_peer_info_set(&c->peer_info, r->peer_info) < 0) {
		cm_fail(c, IWCM_CM_EVENT_CONNECT_ERROR, IWCM_STATUS_PROTOCOL,
			"malformed reject");
		return;
	}
	cm_fail(c, IWCM_CM_EVENT_REJECTED, cm_status(r->result), r->reason);
}

static void cm_on_error(struct iwcm_ctx *ctx, uint16_t type,
			const Iwcm__ConnError *ce)
{
	struct iwcm_conn *c = cm_conn_find(ctx, ce->conn_id);

	if (!c || (c->state != CONN_CONNECTING && c->state != CONN_REQUESTED &&
		   c->state != CONN_ACCEPTING))
		return;
	/* RFC 5040 §4.8: Layer and Error Type are 4 bits, Error Code 8;
	 * a Terminate out of range is not one (the failure still is). */
	if ((ce->has_term_layer || ce->has_term_etype || ce->has_term_ecode) &&
	    ce->term_layer <= 0xF && ce->term_etype <= 0xF &&
	    ce->term_ecode <= 0xFF) {
		c->term = true;
		c->term_layer = ce->term_layer;
		c->term_etype = ce->term_etype;
		c->term_ecode = ce->term_ecode;
	}
	cm_fail(c,
		type == IPC_EVENT_UNREACHABLE ? IWCM_CM_EVENT_UNREACHABLE :
						IWCM_CM_EVENT_CONNECT_ERROR,
		cm_status(ce->result), ce->reason);
}

/* The connection waiting for the Ack of reqid, freed by the user or not. */
static struct iwcm_conn *cm_acked(struct iwcm_ctx *ctx, uint32_t reqid)
{
	struct iwcm_conn *c;

	TAILQ_FOREACH (c, &ctx->conns, entry)
		if (c->ack_reqid == reqid)
			return c;
	return NULL;
}

/* A Connect's Ack names the connection; one the user freed meanwhile is
 * disconnected at once.  Returns the failure to report, or OK. */
static enum iwcm_status cm_ack_connect(struct iwcm_conn *c,
				       const Iwcm__Ack *ack)
{
	Iwcm__Disconnect d = IWCM__DISCONNECT__INIT;

	if (!ack->has_conn_id || !ack->conn_id ||
	    cm_conn_find(c->ctx, ack->conn_id))
		return IWCM_STATUS_PROTOCOL;
	c->id = ack->conn_id;
	if (c->user_freed) {
		d.conn_id = c->id;
		chan_send_async(c->ctx, IPC_CLIENT_DISCONNECT, &d.base);
	}
	return IWCM_STATUS_OK;
}

/*
 * The Ack of a Connect, Accept or Reject sent without waiting
 * (IWCM_CTX_ASYNC_CM).  A refused Connect or Accept fails its
 * connection as iwcm_connect() or iwcm_accept() would have returned the
 * error; a refused Reject leaves nothing to do.  The daemon sends a
 * Connect's Ack before any event of the connection it names.
 */
static void cm_on_ack(struct iwcm_ctx *ctx, struct ipc_msg *m)
{
	struct iwcm_conn *c = cm_acked(ctx, m->hdr.reqid);
	enum iwcm_status st = IWCM_STATUS_PROTOCOL;
	Iwcm__Ack *ack;

	if (!c)
		return;
	c->ack_reqid = 0;
	ack = (Iwcm__Ack *)ipc_unpack(m, &iwcm__ack__descriptor);
	if (ack && ack->result != IWCM__RESULT__RES_OK)
		st = cm_status(ack->result);
	else if (ack && !c->id)
		st = cm_ack_connect(c, ack);
	else if (ack)
		st = IWCM_STATUS_OK;
	if (ack)
		protobuf_c_message_free_unpacked(&ack->base, NULL);
	if (st != IWCM_STATUS_OK && !c->user_freed &&
	    (c->state == CONN_CONNECTING || c->state == CONN_ACCEPTING))
		cm_fail(c, IWCM_CM_EVENT_CONNECT_ERROR, st,
			ack ? "the daemon refused the request" :
			      "malformed reply from the daemon");
	cm_conn_put(c);
}

/* Apply one event message from the daemon. */
void cm_handle_event(struct iwcm_ctx *ctx, struct ipc_msg *m)
{
	const ProtobufCMessageDescriptor *d;
	ProtobufCMessage *pb;

	switch (m->hdr.type) {
	case IPC_CLIENT_ACK:
		cm_on_ack(ctx, m);
		return;
	case IPC_EVENT_CONNECT_REQUEST:
		d = &iwcm__connect_request__descriptor;
		break;
	case IPC_EVENT_ESTABLISHED:
		d = &iwcm__established__descriptor;
		break;
	case IPC_EVENT_REJECTED:
		d = &iwcm__rejected__descriptor;
		break;
	case IPC_EVENT_UNREACHABLE:
	case IPC_EVENT_ERROR:
		d = &iwcm__conn_error__descriptor;
		break;
	default:
		return;
	}
	pb = ipc_unpack(m, d);
	if (!pb)
		return;
	switch (m->hdr.type) {
	case IPC_EVENT_CONNECT_REQUEST:
		cm_on_request(ctx, (Iwcm__ConnectRequest *)pb);
		break;
	case IPC_EVENT_ESTABLISHED:
		cm_on_established(ctx, m, (Iwcm__Established *)pb);
		break;
	case IPC_EVENT_REJECTED:
		cm_on_rejected(ctx, (Iwcm__Rejected *)pb);
		break;
	default:
		cm_on_error(ctx, m->hdr.type, (Iwcm__ConnError *)pb);
		break;
	}
	protobuf_c_message_free_unpacked(pb, NULL);
}

/* The daemon is gone: every connection being negotiated fails. */
void cm_daemon_gone(struct iwcm_ctx *ctx)
{
	struct iwcm_conn *c, *next;

	for (c = TAILQ_FIRST(&ctx->conns); c; c = next) {
		bool acked = c->ack_reqid != 0;

		if (!c->user_freed &&
		    (c->state == CONN_CONNECTING ||
		     c->state == CONN_REQUESTED || c->state == CONN_ACCEPTING))
			cm_fail(c, IWCM_CM_EVENT_CONNECT_ERROR,
				IWCM_STATUS_RESET, "the daemon went away");
		next = TAILQ_NEXT(c, entry);
		/* No Ack will come: drop the reference that waited. */
		c->ack_reqid = 0;
		if (acked)
			cm_conn_put(c);
	}
}
