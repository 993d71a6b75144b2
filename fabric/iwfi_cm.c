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

/* Parameters of our connections: RFC 6581 enhanced, peer-to-peer. */
static struct iwcm_conn_param *cm_param(const void *data, size_t len)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();

	if (!p)
		return NULL;
	if (iwcm_conn_param_set_mpa_rev(p, IWCM_MPA_REV_2) ||
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

	pthread_mutex_lock(&ep->lock);
	if (ep->credit_mr) {
		iwfi_credit_hdr(ep, buf);
		hdr = IWFI_CM_HDR;
	}
	pthread_mutex_unlock(&ep->lock);
	if (len)
		memcpy(buf + hdr, data, len);
	return cm_param(buf, hdr + len);
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

static void link_ep(struct iwfi_fabric *fab, struct iwfi_ep *ep)
{
	struct iwfi_ep *e;

	for (e = fab->eps; e; e = e->next)
		if (e == ep)
			return;
	ep->next = fab->eps;
	fab->eps = ep;
}

/* Forget ep: no event reaches it any more.  Takes cm_lock. */
void iwfi_cm_unlink_ep(struct iwfi_ep *ep)
{
	struct iwfi_fabric *fab = ep->domain->fabric;
	struct iwfi_ep **pp;

	pthread_mutex_lock(&fab->cm_lock);
	for (pp = &fab->eps; *pp; pp = &(*pp)->next) {
		if (*pp == ep) {
			*pp = ep->next;
			break;
		}
	}
	pthread_mutex_lock(&ep->lock);
	if (ep->qp && iwcm_destroy_qp(ep->qp) == 0)
		ep->qp = NULL;
	pthread_mutex_unlock(&ep->lock);
	iwcm_conn_free(ep->conn);
	ep->conn = NULL;
	pthread_mutex_unlock(&fab->cm_lock);
}

/* Forget pep and close its listener.  Takes cm_lock. */
void iwfi_cm_unlink_pep(struct iwfi_pep *pep)
{
	struct iwfi_fabric *fab = pep->fabric;
	struct iwfi_pep **pp;

	pthread_mutex_lock(&fab->cm_lock);
	for (pp = &fab->peps; *pp; pp = &(*pp)->next) {
		if (*pp == pep) {
			*pp = pep->next;
			break;
		}
	}
	if (pep->listener)
		iwcm_listener_close(pep->listener);
	pep->listener = NULL;
	pthread_mutex_unlock(&fab->cm_lock);
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

static void on_request(struct iwfi_fabric *fab, struct iwcm_event *ev,
		       struct iwcm_conn *conn)
{
	struct iwcm_listener *l = iwcm_event_get_listener(ev);
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };
	struct iwfi_pep *pep;
	struct fi_info *info;

	for (pep = fab->peps; pep && pep->listener != l; pep = pep->next)
		;
	if (!pep || !pep->eq || iwcm_conn_query(conn, &a) < 0 ||
	    !(info = connreq_info(pep, conn, &a))) {
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		return;
	}
	{
		struct iwfi_connreq *cr = iwfi_container_of(
			info->handle, struct iwfi_connreq, fid);
		size_t hdr = iwfi_credit_parse(&cr->peer, a.peer_private_data,
					       a.peer_private_data_len);

		push_cm(pep->eq, FI_CONNREQ, &pep->pep_fid.fid, info,
			(const uint8_t *)a.peer_private_data + hdr,
			a.peer_private_data_len - hdr);
	}
}

/* The connection is up: create the QP and post the held receives. */
static int ep_established(struct iwfi_ep *ep)
{
	struct iwfi_cq *tx = ep->tx_cq ? ep->tx_cq : ep->rx_cq;
	struct iwfi_cq *rx = ep->rx_cq ? ep->rx_cq : ep->tx_cq;
	struct iwcm_qp_init_attr qa = { 0 };
	struct iwcm_recv_wr *chain;
	struct iwfi_req *failed;
	int ret = 0;

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
	pthread_mutex_lock(&ep->lock);
	/* The held receives are queued before the QP reads a Send. */
	chain = iwfi_msg_chain_held(ep, qa.max_recv_wr);
	if (chain) {
		qa.comp_mask |= IWCM_QP_INIT_ATTR_RECV_WR;
		qa.recv_wr = chain;
	}
	ep->qp = iwcm_create_qp(ep->conn, ep->domain->pd, &qa);
	iwfi_msg_chain_done(ep, chain, ep->qp != NULL);
	if (!ep->qp) {
		ret = -iwfi_errno(errno);
		ep->state = IWFI_EP_ERROR;
		failed = iwfi_msg_take_held(ep);
	} else {
		ep->state = IWFI_EP_CONNECTED;
		failed = iwfi_msg_post_held(ep);
		iwfi_credit_update(ep);
	}
	pthread_mutex_unlock(&ep->lock);
	iwfi_msg_cancel_list(ep, failed);
	return ret;
}

static void on_conn_event(struct iwfi_fabric *fab, enum iwcm_cm_event_type type,
			  struct iwcm_conn *conn)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };
	struct iwfi_ep *ep;
	size_t hdr = 0;
	int ret, err;

	for (ep = fab->eps; ep && ep->conn != conn; ep = ep->next)
		;
	if (!ep || !ep->eq || iwcm_conn_query(conn, &a) < 0)
		return;
	switch (type) {
	case IWCM_CM_EVENT_ESTABLISHED:
		if (a.initiator) {
			pthread_mutex_lock(&ep->lock);
			hdr = iwfi_credit_parse(&ep->peer, a.peer_private_data,
						a.peer_private_data_len);
			pthread_mutex_unlock(&ep->lock);
		}
		ret = ep_established(ep);
		if (ret) {
			IWFI_WARN(FI_LOG_EP_CTRL, "iwcm_create_qp: %d\n", ret);
			iwfi_eq_push_err(ep->eq, &ep->ep_fid.fid,
					 ep->ep_fid.fid.context, -ret, 0, NULL,
					 0);
			return;
		}
		/* The initiator gets the responder's private data. */
		push_cm(ep->eq, FI_CONNECTED, &ep->ep_fid.fid, NULL,
			a.initiator ?
				(const uint8_t *)a.peer_private_data + hdr :
				NULL,
			a.initiator ? a.peer_private_data_len - hdr : 0);
		return;
	case IWCM_CM_EVENT_REJECTED:
		err = FI_ECONNREFUSED;
		break;
	case IWCM_CM_EVENT_UNREACHABLE:
		err = status_err(a.reason, FI_EHOSTUNREACH);
		break;
	default:
		err = status_err(a.reason, FI_ECONNABORTED);
		break;
	}
	pthread_mutex_lock(&ep->lock);
	ep->state = IWFI_EP_ERROR;
	pthread_mutex_unlock(&ep->lock);
	IWFI_INFO(FI_LOG_EP_CTRL, "%s: %s\n", iwcm_cm_event_str(type),
		  iwcm_status_str(a.reason));
	/* fi_eq(3): the peer's reject data are the entry's err_data. */
	iwfi_eq_push_err(
		ep->eq, &ep->ep_fid.fid, ep->ep_fid.fid.context, err,
		(int)a.reason,
		type == IWCM_CM_EVENT_REJECTED ? a.peer_private_data : NULL,
		type == IWCM_CM_EVENT_REJECTED ? a.peer_private_data_len : 0);
}

static void on_async(struct iwfi_fabric *fab, const struct iwcm_async_event *ae)
{
	struct iwfi_ep *ep;
	bool report;

	if (!ae->qp) {
		IWFI_WARN(FI_LOG_CQ, "completion queue overflow\n");
		return;
	}
	for (ep = fab->eps; ep && ep->qp != ae->qp; ep = ep->next)
		;
	if (!ep)
		return;
	if (ae->type == IWCM_EVENT_QP_TERMINATE)
		IWFI_INFO(FI_LOG_EP_CTRL,
			  "Terminate: layer %u type %u code %u\n",
			  ae->term_layer, ae->term_etype, ae->term_ecode);
	/* The QP is in error: every posted request completes (flushed if
	 * nothing else); FI_SHUTDOWN follows the last one read. */
	pthread_mutex_lock(&ep->lock);
	ep->peer_closed = true;
	report = !ep->posted && !ep->shutdown_reported && ep->eq;
	if (report)
		ep->shutdown_reported = true;
	if (ep->state == IWFI_EP_CONNECTED)
		ep->state = IWFI_EP_SHUTDOWN;
	pthread_mutex_unlock(&ep->lock);
	if (report)
		iwfi_eq_shutdown(ep->eq, &ep->ep_fid.fid);
}

static void cm_drain(struct iwfi_fabric *fab)
{
	struct iwcm_async_event ae;
	struct iwcm_event *ev;

	pthread_mutex_lock(&fab->cm_lock);
	while (iwcm_get_event(fab->ctx, &ev) == 0) {
		enum iwcm_cm_event_type type = iwcm_event_get_type(ev);
		struct iwcm_conn *conn = iwcm_event_get_conn(ev);

		if (type == IWCM_CM_EVENT_CONNECT_REQUEST)
			on_request(fab, ev, conn);
		else
			on_conn_event(fab, type, conn);
		iwcm_ack_event(ev);
	}
	while (iwcm_get_async_event(fab->ctx, &ae) == 0)
		on_async(fab, &ae);
	pthread_mutex_unlock(&fab->cm_lock);
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

		pthread_mutex_lock(&fab->cm_lock);
		us = iwcm_ctx_poll_us(fab->ctx);
		pthread_mutex_unlock(&fab->cm_lock);
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
	if (pthread_create(&fab->thread, NULL, cm_thread, fab)) {
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
	void *copy;

	if (!iwfi_sockaddr_len(addr) || addrlen < iwfi_sockaddr_len(addr))
		return -FI_EINVAL;
	copy = malloc(addrlen);
	if (!copy)
		return -FI_ENOMEM;
	memcpy(copy, addr, addrlen);
	free(ep->info->src_addr);
	ep->info->src_addr = copy;
	ep->info->src_addrlen = addrlen;
	return 0;
}

static int copy_name(const void *sa, size_t len, void *addr, size_t *addrlen)
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
	int ret;

	pthread_mutex_lock(&fab->cm_lock);
	if (ep->conn && iwcm_conn_query(ep->conn, &a) == 0)
		sa = (const struct sockaddr *)(peer ? &a.peer_addr :
						      &a.local_addr);
	if (sa && !peer && !(a.comp_mask & IWCM_CONN_ATTR_LOCAL_ADDR))
		sa = NULL;
	if (!sa)
		sa = peer ? ep->info->dest_addr : ep->info->src_addr;
	ret = copy_name(sa, iwfi_sockaddr_len(sa), addr, addrlen);
	pthread_mutex_unlock(&fab->cm_lock);
	return ret;
}

static int ep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	return ep_name(fid, addr, addrlen, false);
}

static int ep_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return ep_name(&ep->fid, addr, addrlen, true);
}

static int ep_connect(struct fid_ep *ep_fid, const void *addr,
		      const void *param, size_t paramlen)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	struct iwfi_fabric *fab = ep->domain->fabric;
	const struct sockaddr *src = ep->info->src_addr;
	struct iwcm_conn_param *p;
	struct iwcm_conn *conn;
	int e;

	if (!addr || !iwfi_sockaddr_len(addr))
		return -FI_EINVAL;
	if (paramlen > IWFI_CM_DATA_SIZE)
		return -FI_EINVAL;
	if (!ep->eq)
		return -FI_ENOEQ;
	if (ep->state != IWFI_EP_IDLE)
		return -FI_EOPBADSTATE;
	/* A source of another family cannot be bound. */
	if (src && src->sa_family != ((const struct sockaddr *)addr)->sa_family)
		src = NULL;
	p = cm_data(ep, param, paramlen);
	if (!p)
		return -FI_ENOMEM;
	pthread_mutex_lock(&fab->cm_lock);
	conn = iwcm_connect(fab->ctx, addr, src, p);
	e = errno;
	if (conn) {
		ep->conn = conn;
		ep->state = IWFI_EP_CONNECTING;
		ep->info->dest_addr =
			realloc(ep->info->dest_addr, iwfi_sockaddr_len(addr));
		if (ep->info->dest_addr) {
			ep->info->dest_addrlen = iwfi_sockaddr_len(addr);
			memcpy(ep->info->dest_addr, addr,
			       ep->info->dest_addrlen);
		}
		link_ep(fab, ep);
	}
	pthread_mutex_unlock(&fab->cm_lock);
	iwcm_conn_param_free(p);
	iwfi_cm_wake(fab);
	if (!conn) {
		IWFI_WARN(FI_LOG_EP_CTRL, "iwcm_connect: %s\n", strerror(e));
		return -iwfi_errno(e);
	}
	return 0;
}

static int ep_accept(struct fid_ep *ep_fid, const void *param, size_t paramlen)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	struct iwfi_fabric *fab = ep->domain->fabric;
	struct iwfi_connreq *cr;
	struct iwcm_conn_param *p;
	int ret, e;

	if (paramlen > IWFI_CM_DATA_SIZE)
		return -FI_EINVAL;
	if (!ep->eq)
		return -FI_ENOEQ;
	if (!ep->info->handle || ep->info->handle->fclass != FI_CLASS_CONNREQ ||
	    ep->state != IWFI_EP_IDLE)
		return -FI_EOPBADSTATE;
	cr = iwfi_container_of(ep->info->handle, struct iwfi_connreq, fid);
	pthread_mutex_lock(&ep->lock);
	ep->peer = cr->peer;
	pthread_mutex_unlock(&ep->lock);
	p = cm_data(ep, param, paramlen);
	if (!p)
		return -FI_ENOMEM;
	pthread_mutex_lock(&fab->cm_lock);
	ep->conn = cr->conn;
	ep->state = IWFI_EP_ACCEPTING;
	link_ep(fab, ep);
	ret = iwcm_accept(cr->conn, p);
	e = errno;
	if (ret) {
		ep->state = IWFI_EP_ERROR;
	}
	pthread_mutex_unlock(&fab->cm_lock);
	iwcm_conn_param_free(p);
	iwfi_cm_wake(fab);
	/* The connection now belongs to ep (freed with it). */
	ep->info->handle = NULL;
	free(cr);
	return ret ? -iwfi_errno(e) : 0;
}

static int ep_shutdown(struct fid_ep *ep_fid, uint64_t flags)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	int ret = 0;

	pthread_mutex_lock(&ep->lock);
	/* RFC 5040 §6.2: the LLP's graceful close after what is queued. */
	if (ep->qp && iwcm_qp_disconnect(ep->qp) < 0)
		ret = -iwfi_errno(errno);
	if (ep->state == IWFI_EP_CONNECTED)
		ep->state = IWFI_EP_SHUTDOWN;
	pthread_mutex_unlock(&ep->lock);
	return ret;
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

/* ---- passive endpoints ---- */

static struct iwfi_pep *pep_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_pep, pep_fid.fid);
}

static int pep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct iwfi_pep *pep = pep_of(fid);
	void *copy;

	if (pep->listener)
		return -FI_EOPBADSTATE;
	if (!iwfi_sockaddr_len(addr) || addrlen < iwfi_sockaddr_len(addr))
		return -FI_EINVAL;
	copy = malloc(addrlen);
	if (!copy)
		return -FI_ENOMEM;
	memcpy(copy, addr, addrlen);
	free(pep->info->src_addr);
	pep->info->src_addr = copy;
	pep->info->src_addrlen = addrlen;
	return 0;
}

static int pep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct iwfi_pep *pep = pep_of(fid);
	const struct sockaddr *sa = pep->info->src_addr;

	if (pep->listener)
		sa = (const struct sockaddr *)&pep->addr;
	return copy_name(sa, iwfi_sockaddr_len(sa), addr, addrlen);
}

static int pep_listen(struct fid_pep *pep_fid)
{
	struct iwfi_pep *pep = pep_of(&pep_fid->fid);
	struct iwfi_fabric *fab = pep->fabric;
	struct sockaddr_in any = { .sin_family = AF_INET };
	const struct sockaddr *sa = pep->info->src_addr, *bound;
	struct iwcm_conn_param *p;
	int e;

	if (pep->listener)
		return 0;
	if (!pep->eq)
		return -FI_ENOEQ;
	if (!sa)
		sa = (const struct sockaddr *)&any;
	p = cm_param(NULL, 0);
	if (!p)
		return -FI_ENOMEM;
	pthread_mutex_lock(&fab->cm_lock);
	pep->listener = iwcm_listen(fab->ctx, sa, NULL, p, 0);
	e = errno;
	if (pep->listener) {
		bound = iwcm_listener_get_addr(pep->listener);
		memcpy(&pep->addr, bound, iwfi_sockaddr_len(bound));
		pep->next = fab->peps;
		fab->peps = pep;
	}
	pthread_mutex_unlock(&fab->cm_lock);
	iwcm_conn_param_free(p);
	iwfi_cm_wake(fab);
	if (!pep->listener) {
		IWFI_WARN(FI_LOG_EP_CTRL, "iwcm_listen: %s\n", strerror(e));
		return -iwfi_errno(e);
	}
	return 0;
}

/* fi_reject(): an MPA Reply with the R bit and the caller's private data
 * (RFC 5044 §7.1.2). */
static int pep_reject(struct fid_pep *pep_fid, fid_t handle, const void *param,
		      size_t paramlen)
{
	struct iwfi_pep *pep = pep_of(&pep_fid->fid);
	struct iwfi_fabric *fab = pep->fabric;
	struct iwfi_connreq *cr;
	int ret, e;

	if (!handle || handle->fclass != FI_CLASS_CONNREQ)
		return -FI_EINVAL;
	if (paramlen > IWFI_CM_DATA_SIZE)
		return -FI_EINVAL;
	cr = iwfi_container_of(handle, struct iwfi_connreq, fid);
	pthread_mutex_lock(&fab->cm_lock);
	ret = iwcm_reject(cr->conn, param, paramlen);
	e = errno;
	iwcm_conn_free(cr->conn);
	pthread_mutex_unlock(&fab->cm_lock);
	free(cr);
	iwfi_cm_wake(fab);
	return ret ? -iwfi_errno(e) : 0;
}

static int pep_getpeer_none(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return -FI_EOPNOTSUPP;
}

static int pep_connect_none(struct fid_ep *ep, const void *addr,
			    const void *param, size_t paramlen)
{
	return -FI_EOPNOTSUPP;
}

static int pep_accept_none(struct fid_ep *ep, const void *param,
			   size_t paramlen)
{
	return -FI_EOPNOTSUPP;
}

static int pep_shutdown_none(struct fid_ep *ep, uint64_t flags)
{
	return -FI_EOPNOTSUPP;
}

const struct fi_ops_cm iwfi_pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = pep_setname,
	.getname = pep_getname,
	.getpeer = pep_getpeer_none,
	.connect = pep_connect_none,
	.listen = pep_listen,
	.accept = pep_accept_none,
	.reject = pep_reject,
	.shutdown = pep_shutdown_none,
	.join = cm_join_none,
};
