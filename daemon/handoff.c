/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The end of a negotiation: the Established message with everything the
 * datapath needs (DESIGN.md "Handoff state") and the socket as its one
 * SCM_RIGHTS fd; for iwcmctl connect, the NegotiationReport instead.
 * After it the daemon closes its copy and forgets the socket.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "log.h"

struct handoff_msg {
	Iwcm__Established e;
	Iwcm__SockAddr local, peer;
	uint8_t lbuf[16], pbuf[16];
	Iwcm__PeerInfo pi;
	uint32_t msn[CONN_NQN];
};

/*
 * Bytes the peer sent past the last handshake message are already in the
 * socket (a first FPDU glued to the frame, RFC 5044 §7.1.2 rule 4 being
 * broken in good faith): take them, bounded, so that they travel with
 * the fd as Established.unread; the datapath reads them first.
 */
static void handoff_drain(struct conn *c)
{
	ssize_t n;

	while (c->unread_len < sizeof(c->unread)) {
		n = recv(c->fd, c->unread + c->unread_len,
			 sizeof(c->unread) - c->unread_len, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		c->unread_len += (size_t)n;
	}
	if (c->unread_len)
		log_debug("conn %llu: %zu octets past the handshake",
			  (unsigned long long)c->id, c->unread_len);
}

static void handoff_fill(struct conn *c, struct handoff_msg *h)
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
	conn_peer_info(c->role == NEG_INITIATOR ? &c->rep : &c->req, &h->pi);
	e->peer_info = &h->pi;
	/* RFC 5044 §4.3: markers sit at offsets 0 mod 512 of FPDU mode. */
	e->tx_offset = c->tx.off;
	e->rx_offset = c->rx.off;
	if (c->unread_len) {
		e->has_unread = 1;
		e->unread.data = c->unread;
		e->unread.len = c->unread_len;
	}
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
	e->wait_first_fpdu = c->role == NEG_RESPONDER &&
			     c->res.wait_first_fpdu;
	e->has_rtr_frame = 1;
	e->rtr_frame = c->res.rtr_frame;
}

/* iwcmctl connect: send the NegotiationReport (and the RESULT). */
void handoff_report(struct conn *c, Iwcm__Result r)
{
	Iwcm__Ctl__NegotiationReport rep = IWCM__CTL__NEGOTIATION_REPORT__INIT;
	Iwcm__Ctl__Result res = IWCM__CTL__RESULT__INIT;
	struct handoff_msg h;

	if (c->reported || !c->owner)
		return;
	c->reported = true;
	if (c->req_len) {
		rep.has_request = 1;
		rep.request.data = c->req_raw;
		rep.request.len = c->req_len;
	}
	if (c->have_rep) {
		rep.has_reply = 1;
		rep.reply.data = c->rep_raw;
		rep.reply.len = c->rep_len;
	}
	if (c->rtr_len) {
		rep.has_rtr = 1;
		rep.rtr.data = c->rtr_raw;
		rep.rtr.len = c->rtr_len;
	}
	if (r == IWCM__RESULT__RES_OK) {
		handoff_fill(c, &h);
		rep.result = &h.e;
	} else {
		rep.has_error = 1;
		rep.error = r;
	}
	if (c->reason[0])
		rep.reason = c->reason;
	if (control_send(c->owner, IPC_CTL_NEGOTIATION, c->reqid, &rep.base,
			 -1) < 0 || !c->owner)
		return;
	res.result = r;
	if (c->reason[0])
		res.message = c->reason;
	control_send(c->owner, IPC_RESULT, c->reqid, &res.base, -1);
}

/* Pass c's socket and state to its owner; queues HANDOFF_DONE/_FAILED. */
void handoff_start(struct conn *c)
{
	struct handoff_msg h;

	handoff_drain(c);
	if (c->force) {
		handoff_report(c, IWCM__RESULT__RES_OK);
		conn_post(c, CONN_EV_HANDOFF_DONE);
		return;
	}
	if (!c->owner) {
		log_info("conn %llu: negotiated, but its owner is gone",
			 (unsigned long long)c->id);
		conn_post(c, CONN_EV_HANDOFF_FAILED);
		return;
	}
	handoff_fill(c, &h);
	if (control_send(c->owner, IPC_EVENT_ESTABLISHED, 0, &h.e.base, c->fd) <
	    0) {
		log_info("conn %llu: handoff to its owner failed",
			 (unsigned long long)c->id);
		conn_post(c, CONN_EV_HANDOFF_FAILED);
		return;
	}
	conn_post(c, CONN_EV_HANDOFF_DONE);
}
