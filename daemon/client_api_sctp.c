/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What clients learn about DDP stream sessions over SCTP (RFC 5043):
 * sctp_conn.c's events as client.proto messages.  The Established event
 * carries the session's relay fd (sctp_relay.h), or on the kernel's SCTP
 * the association's own socket with the session's DDP-SSNs and what
 * iwcmd read of it (SctpHandoff, sctp_conn_peel.h), the stream, the
 * negotiated IRD/ORD and the peer's raw RFC 6581 word and Private Data.
 */
#include "config.h"

#include <stdlib.h>
#include <unistd.h>

#include "client_api.h"
#include "iwcmd.h"
#include "sctp_conn_peel.h"

/* The peer's side of the session as a PeerInfo (points into i). */
static void cas_peer_info(const struct sctp_conn_info *i, Iwcm__PeerInfo *pi)
{
	const struct sctp_session_info *si = &i->si;

	iwcm__peer_info__init(pi);
	pi->has_enhanced = 1;
	pi->enhanced = si->peer_enh;
	if (si->peer_enh) {
		/* RFC 6581 §9.1: the raw word, A/B/C/D and 14-bit IRD/ORD */
		pi->has_p2p = pi->has_rtr_types = pi->has_ird = pi->has_ord = 1;
		pi->p2p = (si->peer_word[0] & 0x80) != 0;
		pi->rtr_types = (si->peer_word[0] & 0x40 ? MPA_RTR_SEND : 0) |
				(si->peer_word[2] & 0x80 ? MPA_RTR_WRITE : 0) |
				(si->peer_word[2] & 0x40 ? MPA_RTR_READ : 0);
		pi->ird = (uint32_t)(si->peer_word[0] & 0x3f) << 8 |
			  si->peer_word[1];
		pi->ord = (uint32_t)(si->peer_word[2] & 0x3f) << 8 |
			  si->peer_word[3];
	}
	/* RFC 5043 §5.2.3: the Private Data goes to the ULP */
	pi->has_private_data = 1;
	pi->private_data.data = (uint8_t *)(uintptr_t)si->peer_pd;
	pi->private_data.len = si->peer_pd_len;
}

static int cas_request(struct client *cl, const struct sctp_conn_info *i)
{
	Iwcm__ConnectRequest r = IWCM__CONNECT_REQUEST__INIT;
	Iwcm__SockAddr local, peer;
	Iwcm__PeerInfo pi;
	uint8_t lb[16], pb[16];

	r.conn_id = i->id;
	r.listener_id = i->listener_id;
	pb_sockaddr_from(&i->local, &local, lb);
	pb_sockaddr_from(&i->peer, &peer, pb);
	r.local = &local;
	r.peer = &peer;
	cas_peer_info(i, &pi);
	r.peer_info = &pi;
	r.has_transport = r.has_sctp_stream = 1;
	r.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	r.sctp_stream = i->si.stream;
	return control_send(cl, IPC_EVENT_CONNECT_REQUEST, 0, &r.base, -1);
}

/* The handoff of the association (RFC 5043 §5.2.1 DDP-SSNs, the messages
 * read after the Accept); points into p.  -1 when out of memory. */
static int cas_handoff(const struct sctp_peel *p, Iwcm__SctpHandoff *h,
		       Iwcm__SctpMessage *m, Iwcm__SctpMessage **pm)
{
	unsigned int k;

	iwcm__sctp_handoff__init(h);
	h->tx_ssn = p->tx_ssn;
	h->rx_ssn = p->rx_ssn;
	h->n_unread = p->n;
	h->unread = pm;
	for (k = 0; k < p->n; k++) {
		iwcm__sctp_message__init(&m[k]);
		m[k].stream = p->msg[k].stream;
		m[k].ppid = p->msg[k].ppid;
		m[k].data.data = p->msg[k].buf;
		m[k].data.len = p->msg[k].len;
		pm[k] = &m[k];
	}
	return 0;
}

static int cas_established(struct client *cl, const struct sctp_conn_info *i,
			   int fd)
{
	Iwcm__Established e = IWCM__ESTABLISHED__INIT;
	Iwcm__SockAddr local, peer;
	Iwcm__PeerInfo pi;
	Iwcm__SctpHandoff h;
	Iwcm__SctpMessage *m = NULL, **pm = NULL;
	uint8_t lb[16], pb[16];
	int r;

	e.conn_id = i->id;
	e.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	pb_sockaddr_from(&i->local, &local, lb);
	pb_sockaddr_from(&i->peer, &peer, pb);
	e.local = &local;
	e.peer = &peer;
	e.initiator = i->initiator;
	/* RFC 5043 §4: no MPA (no revision, markers or CRC) */
	e.mpa_rev = 0;
	e.ddp_version = e.rdmap_version = 1;
	e.enhanced = i->si.res.enhanced || i->si.peer_enh;
	e.p2p = i->si.res.p2p;
	e.ird = i->si.res.ird;
	e.ord = i->si.res.ord;
	cas_peer_info(i, &pi);
	e.peer_info = &pi;
	e.has_sctp_stream = e.has_max_segment = 1;
	e.sctp_stream = i->si.stream;
	e.max_segment = (uint32_t)i->maxseg;
	if (i->peel) {
		m = calloc(i->peel->n + 1, sizeof(*m));
		pm = calloc(i->peel->n + 1, sizeof(*pm));
		if (!m || !pm) {
			free(m);
			free(pm);
			close(fd);
			return -1;
		}
		cas_handoff(i->peel, &h, m, pm);
		e.sctp_handoff = &h;
	}
	r = control_send_fd(cl, IPC_EVENT_ESTABLISHED, 0, &e.base, fd);
	free(m);
	free(pm);
	return r;
}

static void cas_rejected(struct client *cl, const struct sctp_conn_info *i)
{
	Iwcm__Rejected r = IWCM__REJECTED__INIT;
	Iwcm__PeerInfo pi;

	r.conn_id = i->id;
	r.result = IWCM__RESULT__RES_EREJECTED;
	cas_peer_info(i, &pi);
	r.peer_info = &pi;
	r.reason = (char *)(uintptr_t)i->reason;
	control_send(cl, IPC_EVENT_REJECTED, 0, &r.base, -1);
}

static void cas_error(struct client *cl, const struct sctp_conn_info *i,
		      bool unreachable)
{
	Iwcm__ConnError e = IWCM__CONN_ERROR__INIT;

	e.conn_id = i->id;
	e.result = client_api_result(i->result);
	e.reason = (char *)(uintptr_t)i->reason;
	control_send(cl, unreachable ? IPC_EVENT_UNREACHABLE : IPC_EVENT_ERROR,
		     0, &e.base, -1);
}

/* sctp_conn.c's notifications (main.c hands them over). */
const struct sctp_conn_notify client_api_sctp_notify = {
	.request = cas_request,
	.established = cas_established,
	.rejected = cas_rejected,
	.error = cas_error,
};

/* A client's SCTP endpoint on an address, or its attach to an SCTP
 * [listener] service of iwcmd.conf. */
static enum conn_result cas_listen(struct client *c,
				   const struct listener_req *lr, uint64_t *id,
				   struct sockaddr_storage *bound)
{
	if (lr->service)
		return sctp_conn_attach(c, lr->service, id, bound);
	return sctp_conn_listen(c, &lr->addr, lr->addrlen, id, bound);
}

const struct client_transport client_transport_sctp = {
	.name = "sctp",
	.listen = cas_listen,
	.unlisten = sctp_conn_unlisten,
	.connect = sctp_conn_connect,
	.accept = sctp_conn_accept,
	.reject = sctp_conn_reject,
	.disconnect = sctp_conn_disconnect,
};
