/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection management: fi_connect/fi_accept/fi_reject/fi_shutdown and
 * fi_listen on top of iwcm_connect(), iwcm_accept(), iwcm_reject() and
 * iwcm_listen(), and the fabric's CM thread, which turns the context's
 * CM and asynchronous events into event queue entries.  Connections ask
 * for MPA revision 2 with the peer-to-peer model and an RTR exchange
 * (RFC 6581 §9.2), which ofi_rxm needs: both sides connect on demand.
 */
#include "config.h"

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "iwfi.h"

#define CM_POLL_MS 50

/* Wake the CM thread: a call may have queued events on the context. */
void iwfi_cm_wake(struct iwfi_fabric *fab)
{
	uint64_t one = 1;

	if (write(fab->wake_fd, &one, sizeof(one)) < 0) {
		/* Already signalled. */
	}
}

/*
 * Parameters of our connections: RFC 6581 enhanced, peer-to-peer, and
 * MPA CRC as fab->crc says.  Without FI_IWCM_CRC=on the provider sets
 * C=0 (RFC 5044 §4.4): two such ends agree to no CRC, and a peer that
 * sets C=1 (Linux siw with its CRC on) still gets it.  On a checksummed
 * TCP stream between hosts or over loopback the CRC costs the largest
 * share of a large transfer: each end's pass over the payload.
 */
struct iwcm_conn_param *iwfi_cm_param(struct iwfi_fabric *fab, const void *data,
				      size_t len)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();

	if (!p)
		return NULL;
	if (iwcm_conn_param_set_mpa_rev(p, IWCM_MPA_REV_2) ||
	    iwcm_conn_param_set_crc(p, fab->crc ? IWCM_CRC_REQUEST :
						  IWCM_CRC_PREFER_OFF) ||
	    iwcm_conn_param_set_p2p(p, true) ||
	    iwcm_conn_param_set_rtr_types(p, IWCM_RTR_SEND | IWCM_RTR_WRITE |
						     IWCM_RTR_READ) ||
	    iwcm_conn_param_set_ird(p, IWFI_IRD_ORD) ||
	    iwcm_conn_param_set_ord(p, IWFI_IRD_ORD) ||
	    iwcm_conn_param_set_private_data(p, data, len)) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

/* The parameters of ep's MPA Request or Reply: the receive credit
 * header (iwfi_credit.c), then the caller's private data. */
static struct iwcm_conn_param *cm_data(struct iwfi_ep *ep, const void *data,
				       size_t len)
{
	uint8_t buf[IWFI_CM_HDR + IWFI_CM_DATA_SIZE];
	size_t hdr = 0;

	iwfi_ep_lock(ep);
	if (ep->credit_mr) {
		iwfi_credit_hdr(ep, buf);
		hdr = IWFI_CM_HDR;
	}
	iwfi_ep_unlock(ep);
	if (len)
		memcpy(buf + hdr, data, len);
	return iwfi_cm_param(ep->domain->fabric, buf, hdr + len);
}

/* The EQ error of a connection that failed for reason st; with
 * IWCM_CTX_ASYNC_CM that includes what the daemon refused (the errno
 * the waiting calls would have returned). */
static int status_err(enum iwcm_status st, int dflt)
{
	switch (st) {
	case IWCM_STATUS_INVALID:
		return FI_EINVAL;
	case IWCM_STATUS_NOENT:
		return FI_ENOENT;
	case IWCM_STATUS_LIMIT:
		return FI_EMFILE;
	case IWCM_STATUS_ADDRINUSE:
		return FI_EADDRINUSE;
	case IWCM_STATUS_REFUSED:
	case IWCM_STATUS_REJECTED:
		return FI_ECONNREFUSED;
	case IWCM_STATUS_TIMEDOUT:
		return FI_ETIMEDOUT;
	case IWCM_STATUS_RESET:
		return FI_ECONNRESET;
	case IWCM_STATUS_PERM:
		return FI_EACCES;
	default:
		return dflt;
	}
}

/* Publish ep under conn, made by the libiwcm call the caller is still
 * in: the CM thread cannot read conn's first event before it is found. */
static void link_ep(struct iwfi_fabric *fab, struct iwfi_ep *ep,
		    struct iwcm_conn *conn)
{
	struct iwfi_ep *e;

	assert(iwfi_held(&fab->ctx_owner) && !iwfi_held(&ep->lock_owner));
	iwfi_cm_lock(fab);
	ep->conn = conn;
	for (e = fab->eps; e && e != ep; e = e->next)
		;
	if (!e) {
		ep->next = fab->eps;
		fab->eps = ep;
	}
	iwfi_cm_unlock(fab);
}

/* The endpoint of conn, or of qp, held for the CM thread (ep_put()). */
static struct iwfi_ep *ep_get(struct iwfi_fabric *fab, struct iwcm_conn *conn,
			      struct iwcm_qp *qp)
{
	struct iwfi_ep *ep;

	iwfi_cm_lock(fab);
	for (ep = fab->eps; ep; ep = ep->next)
		if (conn ? ep->conn == conn : ep->qp == qp)
			break;
	if (ep)
		ep->cm_refs++;
	iwfi_cm_unlock(fab);
	return ep;
}

static void ep_put(struct iwfi_fabric *fab, struct iwfi_ep *ep)
{
	iwfi_cm_lock(fab);
	if (--ep->cm_refs == 0)
		pthread_cond_broadcast(&fab->cm_cond);
	iwfi_cm_unlock(fab);
}

/*
 * Forget ep: no event reaches it any more once the CM thread is done with
 * it; then destroy its QP and free its connection, with no lock held
 * across either.
 */
void iwfi_cm_unlink_ep(struct iwfi_ep *ep)
{
	struct iwfi_fabric *fab = ep->domain->fabric;
	struct iwfi_ep **pp;
	struct iwcm_conn *conn;
	struct iwcm_qp *qp;

	iwfi_cm_lock(fab);
	for (pp = &fab->eps; *pp; pp = &(*pp)->next) {
		if (*pp == ep) {
			*pp = ep->next;
			break;
		}
	}
	while (ep->cm_refs)
		iwfi_cond_wait(&fab->cm_cond, &fab->cm_lock, &fab->cm_owner);
	iwfi_cm_unlock(fab);
	iwfi_ep_lock(ep);
	qp = ep->qp;
	ep->qp = NULL;
	iwfi_ep_unlock(ep);
	/* iwcm_destroy_qp() lingers: no lock over it (iwfi.h). */
	assert(!iwfi_held(&fab->cm_owner) && !iwfi_held(&fab->ctx_owner));
	if (qp && iwcm_destroy_qp(qp) < 0)
		IWFI_WARN(FI_LOG_EP_CTRL, "ep %p: iwcm_destroy_qp: %s\n",
			  (void *)ep, strerror(errno));
	iwfi_ctx_lock(fab);
	conn = ep->conn;
	ep->conn = NULL;
	iwcm_conn_free(conn);
	iwfi_ctx_unlock(fab);
}

/* Forget pep and close its listener. */
void iwfi_cm_unlink_pep(struct iwfi_pep *pep)
{
	struct iwfi_fabric *fab = pep->fabric;
	struct iwcm_listener *l;
	struct iwfi_pep **pp;

	iwfi_cm_lock(fab);
	for (pp = &fab->peps; *pp; pp = &(*pp)->next) {
		if (*pp == pep) {
			*pp = pep->next;
			break;
		}
	}
	l = pep->listener;
	pep->listener = NULL;
	while (pep->cm_refs)
		iwfi_cond_wait(&fab->cm_cond, &fab->cm_lock, &fab->cm_owner);
	iwfi_cm_unlock(fab);
	if (!l)
		return;
	iwfi_ctx_lock(fab);
	iwcm_listener_close(l);
	iwfi_ctx_unlock(fab);
}

/* ---- the CM thread ---- */

static struct fi_info *connreq_info(struct iwfi_pep *pep,
				    struct iwcm_conn *conn,
				    const struct iwcm_conn_attr *a)
{
	struct iwfi_connreq *cr = calloc(1, sizeof(*cr));
	struct fi_info *info = fi_dupinfo(pep->info);
	size_t len;

	if (!cr || !info)
		goto err;
	cr->fid.fclass = FI_CLASS_CONNREQ;
	cr->conn = conn;
	info->handle = &cr->fid;
	free(info->src_addr);
	free(info->dest_addr);
	info->src_addr = info->dest_addr = NULL;
	info->src_addrlen = info->dest_addrlen = 0;
	len = iwfi_sockaddr_len((const struct sockaddr *)&a->local_addr);
	if (len && (info->src_addr = malloc(len))) {
		memcpy(info->src_addr, &a->local_addr, len);
		info->src_addrlen = len;
	}
	len = iwfi_sockaddr_len((const struct sockaddr *)&a->peer_addr);
	if (len && (info->dest_addr = malloc(len))) {
		memcpy(info->dest_addr, &a->peer_addr, len);
		info->dest_addrlen = len;
		info->addr_format = a->peer_addr.ss_family == AF_INET6 ?
					    FI_SOCKADDR_IN6 :
					    FI_SOCKADDR_IN;
	}
	return info;
err:
	free(cr);
	if (info)
		fi_freeinfo(info);
	return NULL;
}

/* Push an FI_CONNREQ or FI_CONNECTED entry with the peer's data. */
static void push_cm(struct iwfi_eq *eq, uint32_t event, fid_t fid,
		    struct fi_info *info, const void *data, size_t len)
{
	struct fi_eq_cm_entry *e = calloc(1, sizeof(*e) + len);

	if (!e)
		return;
	e->fid = fid;
	e->info = info;
	if (len)
		memcpy(e->data, data, len);
	if (iwfi_eq_push(eq, event, e, sizeof(*e) + len) && info)
		fi_freeinfo(info);
	free(e);
}

/* A connection request for one of our listeners becomes FI_CONNREQ on
 * its passive endpoint's EQ; one we cannot report is rejected. */
static void on_request(struct iwfi_fabric *fab, struct iwcm_listener *l,
		       struct iwcm_conn *conn, const struct iwcm_conn_attr *a)
{
	struct fi_info *info = NULL;
	struct iwfi_connreq *cr;
	struct iwfi_pep *pep;
	size_t hdr;

	/* Held by a reference, as endpoints are: fi_close() waits. */
	iwfi_cm_lock(fab);
	for (pep = fab->peps; pep && pep->listener != l; pep = pep->next)
		;
	if (pep)
		pep->cm_refs++;
	iwfi_cm_unlock(fab);
	if (pep && pep->eq && a)
		info = connreq_info(pep, conn, a);
	if (!info) {
		iwfi_ctx_lock(fab);
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		iwfi_ctx_unlock(fab);
	} else {
		cr = iwfi_container_of(info->handle, struct iwfi_connreq, fid);
		hdr = iwfi_credit_parse(&cr->peer, a->peer_private_data,
					a->peer_private_data_len);
		push_cm(pep->eq, FI_CONNREQ, &pep->pep_fid.fid, info,
			(const uint8_t *)a->peer_private_data + hdr,
			a->peer_private_data_len - hdr);
	}
	if (!pep)
		return;
	iwfi_cm_lock(fab);
	if (--pep->cm_refs == 0)
		pthread_cond_broadcast(&fab->cm_cond);
	iwfi_cm_unlock(fab);
}

/* The connection is up: create the QP with the held receives queued
 * (ep->lock held).  0, or the error that fails the connection. */
static int ep_create_qp(struct iwfi_ep *ep)
{
	struct iwfi_cq *tx = ep->tx_cq ? ep->tx_cq : ep->rx_cq;
	struct iwfi_cq *rx = ep->rx_cq ? ep->rx_cq : ep->tx_cq;
	struct iwcm_qp_init_attr qa = { 0 };
	struct iwcm_recv_wr *chain;

	if (!tx)
		return -FI_ENOCQ;
	qa.send_cq = tx->cq;
	qa.recv_cq = rx->cq;
	qa.max_send_wr = (uint32_t)ep->info->tx_attr->size;
	qa.max_recv_wr = (uint32_t)ep->info->rx_attr->size;
	qa.max_send_sge = IWFI_IOV_LIMIT;
	qa.max_recv_sge = IWFI_IOV_LIMIT;
	qa.max_inline_data = IWFI_INJECT_SIZE;
	qa.qp_context = ep;
	qa.comp_mask = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT;
	qa.disconnect_timeout_ms = IWFI_LINGER_MS;
	/* The held receives are queued before the QP reads a Send.
	 * iwcm_create_qp() only takes the socket iwcmd handed over: no
	 * request to iwcmd under the lock. */
	chain = iwfi_msg_chain_held(ep, qa.max_recv_wr);
	if (chain) {
		qa.comp_mask |= IWCM_QP_INIT_ATTR_RECV_WR;
		qa.recv_wr = chain;
	}
	ep->qp = iwcm_create_qp(ep->conn, ep->domain->pd, &qa);
	iwfi_msg_chain_done(ep, chain, ep->qp != NULL);
	if (!ep->qp)
		return -iwfi_errno(errno);
	{
		struct iwcm_qp_attr a = { 0 };

		/* What was negotiated, for FI_LOG_LEVEL=info and tests. */
		if (iwcm_query_qp(ep->qp, &a) == 0)
			IWFI_INFO(
				FI_LOG_EP_CTRL,
				"ep %p: connected: MPA CRC %s, markers %s/%s, "
				"IRD %u, ORD %u\n",
				(void *)ep, a.crc ? "on" : "off",
				a.markers_tx ? "on" : "off",
				a.markers_rx ? "on" : "off", a.ird, a.ord);
	}
	return 0;
}

/* The EQ error of a failed connection, what iwcm says of it. */
static int conn_err(enum iwcm_cm_event_type type,
		    const struct iwcm_conn_attr *a)
{
	switch (type) {
	case IWCM_CM_EVENT_REJECTED:
		return FI_ECONNREFUSED;
	case IWCM_CM_EVENT_UNREACHABLE:
		return status_err(a->reason, FI_EHOSTUNREACH);
	default:
		return status_err(a->reason, FI_ECONNABORTED);
	}
}

static enum iwfi_ep_event conn_event(enum iwcm_cm_event_type type)
{
	switch (type) {
	case IWCM_CM_EVENT_ESTABLISHED:
		return IWFI_EP_EV_ESTABLISHED;
	case IWCM_CM_EVENT_REJECTED:
		return IWFI_EP_EV_REJECTED;
	case IWCM_CM_EVENT_UNREACHABLE:
		return IWFI_EP_EV_UNREACHABLE;
	default:
		return IWFI_EP_EV_ERROR;
	}
}

/* The outcome of an endpoint's connection, through its FSM; the QP is
 * made before ESTABLISHED is fed, so that a failure feeds ERROR instead. */
static void on_conn_event(struct iwfi_fabric *fab, enum iwcm_cm_event_type type,
			  struct iwcm_conn *conn,
			  const struct iwcm_conn_attr *a)
{
	enum iwfi_ep_event ev = conn_event(type);
	const struct iwfi_ep_fsm_row *row;
	struct iwfi_req *failed = NULL;
	struct iwfi_ep *ep;
	size_t hdr = 0;
	int act, err = a ? conn_err(type, a) : FI_ECONNABORTED;

	ep = ep_get(fab, conn, NULL);
	if (!ep)
		return;
	iwfi_ep_lock(ep);
	row = iwfi_ep_fsm_lookup(ep->state, ev);
	if (row && row->action == IWFI_EP_A_CONNECTED) {
		int ret = a ? 0 : -FI_ECONNABORTED;

		if (!ret && a->initiator)
			hdr = iwfi_credit_parse(&ep->peer, a->peer_private_data,
						a->peer_private_data_len);
		if (!ret)
			ret = ep_create_qp(ep);
		if (ret) {
			IWFI_WARN(FI_LOG_EP_CTRL, "ep %p: iwcm_create_qp: %d\n",
				  (void *)ep, ret);
			ev = IWFI_EP_EV_ERROR;
			err = -ret;
			failed = iwfi_msg_take_held(ep);
		}
	}
	act = iwfi_ep_fsm(ep, ev);
	if (act == IWFI_EP_A_CONNECTED) {
		failed = iwfi_msg_post_held(ep);
		iwfi_credit_update(ep);
	}
	iwfi_ep_unlock(ep);
	iwfi_msg_cancel_list(ep, failed);
	if (act == IWFI_EP_A_CONNECTED) {
		/* The initiator gets the responder's private data. */
		push_cm(ep->eq, FI_CONNECTED, &ep->ep_fid.fid, NULL,
			a->initiator ?
				(const uint8_t *)a->peer_private_data + hdr :
				NULL,
			a->initiator ? a->peer_private_data_len - hdr : 0);
	} else if (act == IWFI_EP_A_FAIL) {
		IWFI_INFO(FI_LOG_EP_CTRL, "%s: %s\n", iwcm_cm_event_str(type),
			  a ? iwcm_status_str(a->reason) : "?");
		/* fi_eq(3): the peer's reject data are the entry's
		 * err_data. */
		iwfi_eq_push_err(ep->eq, &ep->ep_fid.fid,
				 ep->ep_fid.fid.context, err,
				 a ? (int)a->reason : 0,
				 a && type == IWCM_CM_EVENT_REJECTED ?
					 a->peer_private_data :
					 NULL,
				 a && type == IWCM_CM_EVENT_REJECTED ?
					 a->peer_private_data_len :
					 0);
	}
	ep_put(fab, ep);
}

static int ep_name(fid_t fid, void *addr, size_t *addrlen, bool peer);

/*
 * Say which peer a connected endpoint lost and why, so that a job that
 * fails on it names the host (FI_LOG_LEVEL=warn): libiwcm reports a
 * connection that timed out (TCP_USER_TIMEOUT) or was reset as the
 * peer's close, so every end the application did not ask for is told.
 */
static void log_lost(struct iwfi_ep *ep, enum iwcm_event_type type)
{
	struct sockaddr_storage ss = { 0 };
	size_t len = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (ep_name(&ep->ep_fid.fid, &ss, &len, true) == 0) {
		const struct sockaddr_in6 *s6 = (const void *)&ss;
		const struct sockaddr_in *s4 = (const void *)&ss;

		if (ss.ss_family == AF_INET6) {
			inet_ntop(AF_INET6, &s6->sin6_addr, host, sizeof(host));
			port = ntohs(s6->sin6_port);
		} else if (ss.ss_family == AF_INET) {
			inet_ntop(AF_INET, &s4->sin_addr, host, sizeof(host));
			port = ntohs(s4->sin_port);
		}
	}
	IWFI_WARN(FI_LOG_EP_CTRL,
		  "ep %p: connection with %s port %u lost (%s); its posted "
		  "operations complete with FI_ECONNRESET\n",
		  (void *)ep, host, port,
		  type == IWCM_EVENT_QP_TERMINATE ?
			  "the peer sent a Terminate" :
		  type == IWCM_EVENT_QP_PEER_CLOSED ?
			  "closed, reset or timed out" :
			  "a local error");
}

/* The QP is in error: every posted request completes (flushed if
 * nothing else); FI_SHUTDOWN follows the last one read. */
static void on_async(struct iwfi_fabric *fab, const struct iwcm_async_event *ae)
{
	struct iwfi_ep *ep;
	int act = IWFI_EP_A_NONE, term;
	bool lost;

	if (!ae->qp) {
		IWFI_WARN(FI_LOG_CQ, "completion queue overflow\n");
		return;
	}
	ep = ep_get(fab, NULL, ae->qp);
	if (!ep)
		return;
	if (ae->type == IWCM_EVENT_QP_TERMINATE)
		IWFI_INFO(FI_LOG_EP_CTRL,
			  "Terminate: layer %u type %u code %u\n",
			  ae->term_layer, ae->term_etype, ae->term_ecode);
	iwfi_ep_lock(ep);
	/* Not our own fi_shutdown() or fi_close(). */
	lost = ep->state == IWFI_EP_S_CONNECTED;
	/* RFC 5040 §5.6: the peer's Terminate says why; the EQ tells the
	 * application in place of FI_SHUTDOWN (iwfi_eq_shutdown()). */
	if (lost && ae->type == IWCM_EVENT_QP_TERMINATE)
		ep->term = iwfi_prov_term(ae->term_layer, ae->term_etype,
					  ae->term_ecode);
	if (iwfi_ep_fsm(ep, IWFI_EP_EV_QP_ERROR) >= 0 && !ep->posted)
		act = iwfi_ep_fsm(ep, IWFI_EP_EV_LAST_COMPLETION);
	term = ep->term;
	iwfi_ep_unlock(ep);
	if (lost)
		log_lost(ep, ae->type);
	if (act == IWFI_EP_A_SHUTDOWN)
		iwfi_eq_shutdown(ep->eq, &ep->ep_fid.fid, term);
	ep_put(fab, ep);
}

/* Read the context's events, one at a time under ctx_lock, and hand
 * each out with none held. */
static void cm_drain(struct iwfi_fabric *fab)
{
	struct iwcm_async_event ae;

	for (;;) {
		struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };
		enum iwcm_cm_event_type type;
		struct iwcm_listener *l;
		struct iwcm_conn *conn;
		struct iwcm_event *ev;
		bool known;

		iwfi_ctx_lock(fab);
		if (iwcm_get_event(fab->ctx, &ev) < 0) {
			iwfi_ctx_unlock(fab);
			break;
		}
		type = iwcm_event_get_type(ev);
		conn = iwcm_event_get_conn(ev);
		l = iwcm_event_get_listener(ev);
		/* What it points to lives as long as conn. */
		known = iwcm_conn_query(conn, &a) == 0;
		iwfi_ctx_unlock(fab);
		if (type == IWCM_CM_EVENT_CONNECT_REQUEST)
			on_request(fab, l, conn, known ? &a : NULL);
		else
			on_conn_event(fab, type, conn, known ? &a : NULL);
		iwfi_ctx_lock(fab);
		iwcm_ack_event(ev);
		iwfi_ctx_unlock(fab);
	}
	/* iwcm_get_async_event(3) is thread-safe. */
	while (iwcm_get_async_event(fab->ctx, &ae) == 0)
		on_async(fab, &ae);
}

/* Between two polls of a spin, about 3 us without a system call, as
 * libiwcm paces its own (iwcm_ctx_poll_us(3)): polling back to back takes
 * the locks of the sockets iwcmd is writing to. */
static void cm_pace(void)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) * 1000000000L +
			 (t.tv_nsec - t0.tv_nsec) <
		 3000);
}

/*
 * Wait up to CM_POLL_MS for the context, the async events or a wake;
 * first poll without sleeping for what is left of the context's adaptive
 * window (iwcm_ctx_poll_us(3)), which keeps a handshake's next exchange
 * with iwcmd from waiting for this thread to wake.
 */
static int cm_wait(struct iwfi_fabric *fab, struct pollfd *p, nfds_t n)
{
	for (;;) {
		unsigned int us;
		int k;

		/* iwcm_ctx_poll_us(3): as iwcm_get_event(). */
		iwfi_ctx_lock(fab);
		us = iwcm_ctx_poll_us(fab->ctx);
		iwfi_ctx_unlock(fab);
		if (!us)
			return poll(p, n, CM_POLL_MS);
		k = poll(p, n, 0);
		if (k != 0)
			return k;
		cm_pace();
	}
}

static void *cm_thread(void *arg)
{
	struct iwfi_fabric *fab = arg;
	struct pollfd p[3];
	uint64_t v;

	p[0].fd = iwcm_ctx_get_fd(fab->ctx);
	p[1].fd = iwcm_ctx_get_async_fd(fab->ctx);
	p[2].fd = fab->wake_fd;
	for (int i = 0; i < 3; i++)
		p[i].events = POLLIN;
	while (!__atomic_load_n(&fab->stop, __ATOMIC_ACQUIRE)) {
		if (cm_wait(fab, p, 3) > 0 && (p[2].revents & POLLIN) &&
		    read(fab->wake_fd, &v, sizeof(v)) < 0) {
			/* Drained by another wake. */
		}
		cm_drain(fab);
	}
	return NULL;
}

/* Start the fabric's CM thread. */
int iwfi_cm_start(struct iwfi_fabric *fab)
{
	fab->wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fab->wake_fd < 0)
		return -FI_EOTHER;
	pthread_mutex_init(&fab->ctx_lock, NULL);
	pthread_cond_init(&fab->cm_cond, NULL);
	if (pthread_create(&fab->thread, NULL, cm_thread, fab)) {
		pthread_cond_destroy(&fab->cm_cond);
		pthread_mutex_destroy(&fab->ctx_lock);
		close(fab->wake_fd);
		return -FI_EOTHER;
	}
	fab->thread_running = true;
	return 0;
}

/* Stop and join the CM thread. */
void iwfi_cm_stop(struct iwfi_fabric *fab)
{
	if (!fab->thread_running)
		return;
	__atomic_store_n(&fab->stop, 1, __ATOMIC_RELEASE);
	iwfi_cm_wake(fab);
	pthread_join(fab->thread, NULL);
	pthread_cond_destroy(&fab->cm_cond);
	pthread_mutex_destroy(&fab->ctx_lock);
	close(fab->wake_fd);
	fab->thread_running = false;
}

/* ---- active endpoints ---- */

static struct iwfi_ep *ep_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_ep, ep_fid.fid);
}

static int ep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct iwfi_ep *ep = ep_of(fid);

	return iwfi_info_set_src(ep->info, addr, addrlen);
}

/* Copy an address out as fi_getname(3) says. */
int iwfi_copy_name(const void *sa, size_t len, void *addr, size_t *addrlen)
{
	size_t cap = *addrlen;

	if (!len)
		return -FI_EADDRNOTAVAIL;
	*addrlen = len;
	if (cap < len)
		return -FI_ETOOSMALL;
	memcpy(addr, sa, len);
	return 0;
}

static int ep_name(fid_t fid, void *addr, size_t *addrlen, bool peer)
{
	struct iwfi_ep *ep = ep_of(fid);
	struct iwfi_fabric *fab = ep->domain->fabric;
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_LOCAL_ADDR };
	const struct sockaddr *sa = NULL;

	/* ep->conn changes only under ctx_lock while ep is open. */
	iwfi_ctx_lock(fab);
	if (ep->conn && iwcm_conn_query(ep->conn, &a) == 0)
		sa = (const struct sockaddr *)(peer ? &a.peer_addr :
						      &a.local_addr);
	iwfi_ctx_unlock(fab);
	if (sa && !peer && !(a.comp_mask & IWCM_CONN_ATTR_LOCAL_ADDR))
		sa = NULL;
	if (!sa)
		sa = peer ? ep->info->dest_addr : ep->info->src_addr;
	return iwfi_copy_name(sa, iwfi_sockaddr_len(sa), addr, addrlen);
}

static int ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	return ep_name(fid, addr, addrlen, false);
}

static int ep_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return ep_name(&ep->fid, addr, addrlen, true);
}

/* Feed ev to ep under its lock. */
static int ep_event(struct iwfi_ep *ep, enum iwfi_ep_event ev)
{
	int act;

	iwfi_ep_lock(ep);
	act = iwfi_ep_fsm(ep, ev);
	iwfi_ep_unlock(ep);
	return act;
}

/* Remember where ep connects to, for fi_getpeer() before the connection
 * knows it. */
static void ep_set_dest(struct iwfi_ep *ep, const void *addr)
{
	size_t len = iwfi_sockaddr_len(addr);
	void *copy = malloc(len);

	if (!copy)
		return;
	memcpy(copy, addr, len);
	free(ep->info->dest_addr);
	ep->info->dest_addr = copy;
	ep->info->dest_addrlen = len;
}

static int ep_connect(struct fid_ep *ep_fid, const void *addr,
		      const void *param, size_t paramlen)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	struct iwfi_fabric *fab = ep->domain->fabric;
	const struct sockaddr *src = ep->info->src_addr;
	struct iwcm_conn_param *p;
	struct iwcm_conn *conn;
	int act, e;

	if (!addr || !iwfi_sockaddr_len(addr))
		return -FI_EINVAL;
	if (paramlen > IWFI_CM_DATA_SIZE)
		return -FI_EINVAL;
	if (!ep->eq)
		return -FI_ENOEQ;
	/* A source of another family cannot be bound. */
	if (src && src->sa_family != ((const struct sockaddr *)addr)->sa_family)
		src = NULL;
	p = cm_data(ep, param, paramlen);
	if (!p)
		return -FI_ENOMEM;
	act = ep_event(ep, IWFI_EP_EV_CONNECT);
	if (act != IWFI_EP_A_REQUEST) {
		iwcm_conn_param_free(p);
		return act < 0 ? act : -FI_EOPBADSTATE;
	}
	iwfi_ctx_lock(fab);
	conn = iwcm_connect(fab->ctx, addr, src, p);
	e = errno;
	if (conn)
		link_ep(fab, ep, conn);
	iwfi_ctx_unlock(fab);
	iwcm_conn_param_free(p);
	if (!conn) {
		ep_event(ep, IWFI_EP_EV_REQUEST_FAILED);
		IWFI_WARN(FI_LOG_EP_CTRL, "iwcm_connect: %s\n", strerror(e));
		return -iwfi_errno(e);
	}
	ep_set_dest(ep, addr);
	iwfi_cm_wake(fab);
	return 0;
}

static int ep_accept(struct fid_ep *ep_fid, const void *param, size_t paramlen)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	struct iwfi_fabric *fab = ep->domain->fabric;
	struct iwfi_connreq *cr;
	struct iwcm_conn_param *p;
	int ret, act, e;

	if (paramlen > IWFI_CM_DATA_SIZE)
		return -FI_EINVAL;
	if (!ep->eq)
		return -FI_ENOEQ;
	if (!ep->info->handle || ep->info->handle->fclass != FI_CLASS_CONNREQ)
		return -FI_EOPBADSTATE;
	cr = iwfi_container_of(ep->info->handle, struct iwfi_connreq, fid);
	p = cm_data(ep, param, paramlen);
	if (!p)
		return -FI_ENOMEM;
	iwfi_ep_lock(ep);
	act = iwfi_ep_fsm(ep, IWFI_EP_EV_ACCEPT);
	if (act == IWFI_EP_A_REQUEST)
		ep->peer = cr->peer;
	iwfi_ep_unlock(ep);
	if (act != IWFI_EP_A_REQUEST) {
		iwcm_conn_param_free(p);
		return act < 0 ? act : -FI_EOPBADSTATE;
	}
	iwfi_ctx_lock(fab);
	/* The connection now belongs to ep (freed with it). */
	link_ep(fab, ep, cr->conn);
	ret = iwcm_accept(cr->conn, p);
	e = errno;
	iwfi_ctx_unlock(fab);
	iwcm_conn_param_free(p);
	if (ret)
		ep_event(ep, IWFI_EP_EV_REQUEST_FAILED);
	iwfi_cm_wake(fab);
	ep->info->handle = NULL;
	free(cr);
	return ret ? -iwfi_errno(e) : 0;
}

static int ep_shutdown(struct fid_ep *ep_fid, uint64_t flags)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	struct iwcm_qp *qp;
	int act;

	iwfi_ep_lock(ep);
	act = iwfi_ep_fsm(ep, IWFI_EP_EV_SHUTDOWN);
	if (act == IWFI_EP_A_DISCONNECT)
		ep->app_shutdown = true;
	qp = ep->qp;
	iwfi_ep_unlock(ep);
	if (act < 0)
		return act;
	/* RFC 5040 §6.2: the LLP's graceful close after what is queued. */
	if (act == IWFI_EP_A_DISCONNECT && iwcm_qp_disconnect(qp) < 0)
		return -iwfi_errno(errno);
	return 0;
}

static int cm_listen_none(struct fid_pep *pep)
{
	return -FI_EOPNOTSUPP;
}

static int ep_reject_none(struct fid_pep *pep, fid_t handle, const void *param,
			  size_t paramlen)
{
	return -FI_EOPNOTSUPP;
}

static int cm_join_none(struct fid_ep *ep, const void *addr, uint64_t flags,
			struct fid_mc **mc, void *context)
{
	return -FI_ENOSYS;
}

const struct fi_ops_cm iwfi_ep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = ep_setname,
	.getname = ep_getname,
	.getpeer = ep_getpeer,
	.connect = ep_connect,
	.listen = cm_listen_none,
	.accept = ep_accept,
	.reject = ep_reject_none,
	.shutdown = ep_shutdown,
	.join = cm_join_none,
};
