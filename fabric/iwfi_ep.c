/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Active endpoints (FI_EP_MSG): one iwcm connection and, once it is
 * established, its QP (iwfi_cm.c creates it).  Binding, enabling,
 * options and closing live here; the data operations in iwfi_msg.c,
 * iwfi_rma.c and iwfi_atomic.c.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "iwfi.h"

static struct iwfi_ep *ep_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_ep, ep_fid.fid);
}

/*
 * Close the connection gracefully before the QP goes: destroying a
 * connected QP resets the connection, and a TCP reset makes the peer drop
 * what it received but has not read yet, such as our last message.  The
 * LLP close (RFC 5040 §6.2) sends what is queued, then a FIN; the QP
 * reaches IWCM_QPS_ERROR when the peer has closed too, or when the
 * disconnect timeout given at creation runs out.
 */
static void ep_linger(struct iwfi_ep *ep, struct iwcm_qp *qp)
{
	struct iwcm_qp_attr a = { 0 };
	int i;

	if (!qp || iwcm_qp_disconnect(qp) < 0)
		return;
	for (i = 0; i < IWFI_LINGER_MS + 100; i++) {
		if (iwcm_query_qp(qp, &a) < 0 || a.state == IWCM_QPS_ERROR)
			return;
		/* FI_PROGRESS_MANUAL: nobody else sends the FIN. */
		if (ep->domain->fabric->manual)
			iwfi_progress(ep->domain->fabric, 1);
		else
			usleep(1000);
	}
}

static int ep_close(struct fid *fid)
{
	struct iwfi_ep *ep = ep_of(fid);
	struct iwfi_req *req;
	struct iwcm_qp *qp;
	int act;

	/* From here the CM thread reports nothing more of ep. */
	iwfi_ep_lock(ep);
	act = iwfi_ep_fsm(ep, IWFI_EP_EV_CLOSE);
	qp = ep->qp;
	iwfi_ep_unlock(ep);
	if (act == IWFI_EP_A_LINGER)
		ep_linger(ep, qp);
	/* What the receive credits cost (iwfi_credit.c), for FI_LOG_LEVEL
	 * info and the tests that count them. */
	IWFI_INFO(FI_LOG_EP_DATA,
		  "ep %p: %" PRIu64 " receives completed, %" PRIu64
		  " credit updates sent (%" PRIu64
		  " along with an operation)\n",
		  (void *)ep, ep->rx_done, ep->credit_msgs, ep->credit_rides);
	/* What went as RDMA and what as Sends (iwfi_post_send()), for the
	 * tests that tell MPI one-sided over RDMA from its emulation. */
	IWFI_INFO(FI_LOG_EP_DATA,
		  "ep %p: posted %" PRIu64 " Sends, %" PRIu64
		  " RDMA Writes, %" PRIu64 " RDMA Read Requests, %" PRIu64
		  " atomics, %" PRIu64 " zero-length Read Requests\n",
		  (void *)ep, ep->tx_sends, ep->tx_writes, ep->tx_reads,
		  ep->tx_atomics, ep->tx_zreads);
	IWFI_INFO(FI_LOG_EP_DATA,
		  "ep %p: of the atomics, %" PRIu64 " fetching and %" PRIu64
		  " compare ones on a field narrower than 8 octets\n",
		  (void *)ep, ep->tx_narrow_fetch, ep->tx_narrow_compare);
	/* Destroys the QP and frees the connection; no completion of a
	 * closed endpoint is reported (fi_endpoint(3)). */
	iwfi_cm_unlink_ep(ep);
	iwfi_cq_purge(ep->tx_cq, ep);
	if (ep->rx_cq != ep->tx_cq)
		iwfi_cq_purge(ep->rx_cq, ep);
	while ((req = ep->held)) {
		ep->held = req->next;
		iwfi_req_free(req);
	}
	while ((req = ep->posted)) {
		iwfi_req_unlink(req);
		iwfi_req_free(req);
	}
	if (ep->scratch_mr)
		iwcm_dereg_mr(ep->scratch_mr);
	if (ep->credit_mr)
		iwcm_dereg_mr(ep->credit_mr);
	if (ep->tx_cq)
		__atomic_fetch_sub(&ep->tx_cq->refs, 1, __ATOMIC_RELEASE);
	if (ep->rx_cq)
		__atomic_fetch_sub(&ep->rx_cq->refs, 1, __ATOMIC_RELEASE);
	if (ep->eq)
		__atomic_fetch_sub(&ep->eq->refs, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&ep->domain->refs, 1, __ATOMIC_RELEASE);
	iwfi_req_pool_free(ep);
	pthread_mutex_destroy(&ep->req_lock);
	pthread_mutex_destroy(&ep->lock);
	fi_freeinfo(ep->info);
	free(ep);
	return 0;
}

static int bind_cq(struct iwfi_ep *ep, struct iwfi_cq *cq, uint64_t flags)
{
	if (!(flags & (FI_TRANSMIT | FI_RECV)))
		return -FI_EINVAL;
	if (cq->domain != ep->domain)
		return -FI_EINVAL;
	if (flags & FI_TRANSMIT) {
		if (ep->tx_cq)
			return -FI_EINVAL;
		ep->tx_cq = cq;
		ep->tx_selective = flags & FI_SELECTIVE_COMPLETION;
		__atomic_fetch_add(&cq->refs, 1, __ATOMIC_RELEASE);
	}
	if (flags & FI_RECV) {
		if (ep->rx_cq)
			return -FI_EINVAL;
		ep->rx_cq = cq;
		ep->rx_selective = flags & FI_SELECTIVE_COMPLETION;
		__atomic_fetch_add(&cq->refs, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static int ep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct iwfi_ep *ep = ep_of(fid);
	bool enabled;

	iwfi_ep_lock(ep);
	enabled = iwfi_ep_state_enabled(ep->state);
	iwfi_ep_unlock(ep);
	if (enabled && bfid->fclass != FI_CLASS_EQ)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_EQ:
		if (ep->eq)
			return -FI_EINVAL;
		ep->eq = iwfi_container_of(bfid, struct iwfi_eq, eq_fid.fid);
		__atomic_fetch_add(&ep->eq->refs, 1, __ATOMIC_RELEASE);
		return 0;
	case FI_CLASS_CQ:
		return bind_cq(
			ep, iwfi_container_of(bfid, struct iwfi_cq, cq_fid.fid),
			flags);
	default:
		IWFI_WARN(FI_LOG_EP_CTRL, "cannot bind class %zu\n",
			  bfid->fclass);
		return -FI_ENOSYS;
	}
}

/* The MRs of an endpoint: the scratch word of non-fetching atomics and
 * the credit word the peer writes (ep->lock held). */
static int ep_reg(struct iwfi_ep *ep)
{
	int e;

	if (!ep->tx_cq && !ep->rx_cq)
		return -FI_ENOCQ;
	if (!ep->eq)
		return -FI_ENOEQ;
	ep->scratch_mr = iwcm_reg_mr(ep->domain->pd, &ep->scratch,
				     sizeof(ep->scratch),
				     IWCM_ACCESS_LOCAL_WRITE);
	if (!ep->scratch_mr)
		return -iwfi_errno(errno);
	/* The peer writes its count of posted receives here. */
	ep->credit_mr = iwcm_reg_mr(
		ep->domain->pd, &ep->credit_word, sizeof(ep->credit_word),
		IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	if (!ep->credit_mr) {
		e = errno;
		iwcm_dereg_mr(ep->scratch_mr);
		ep->scratch_mr = NULL;
		return -iwfi_errno(e);
	}
	return 0;
}

static int ep_enable(struct iwfi_ep *ep)
{
	const struct iwfi_ep_fsm_row *row;
	int ret = 0;

	iwfi_ep_lock(ep);
	/* Registering may fail: only then is the state left as it was. */
	row = iwfi_ep_fsm_lookup(ep->state, IWFI_EP_EV_ENABLE);
	if (row && row->action == IWFI_EP_A_ENABLE)
		ret = ep_reg(ep);
	if (!ret)
		ret = iwfi_ep_fsm(ep, IWFI_EP_EV_ENABLE);
	iwfi_ep_unlock(ep);
	return ret < 0 ? ret : 0;
}

/* FI_GETOPSFLAG and FI_SETOPSFLAG of fi_control(3) on an endpoint's
 * transmit and receive operation flags (FI_EP_MSG and FI_EP_RDM). */
int iwfi_opsflag(int command, uint64_t *flags, uint64_t *tx, uint64_t *rx)
{
	uint64_t *op, which;

	if (*flags & FI_TRANSMIT) {
		op = tx;
		which = FI_TRANSMIT;
	} else if (*flags & FI_RECV) {
		op = rx;
		which = FI_RECV;
	} else {
		return -FI_EINVAL;
	}
	if (command == FI_GETOPSFLAG)
		*flags = *op;
	else
		*op = *flags & ~which;
	return 0;
}

static int ep_control(struct fid *fid, int command, void *arg)
{
	struct iwfi_ep *ep = ep_of(fid);
	uint64_t *flags = arg;

	switch (command) {
	case FI_ENABLE:
		return ep_enable(ep);
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return iwfi_opsflag(command, flags, &ep->tx_op_flags,
				    &ep->rx_op_flags);
	default:
		return -FI_ENOSYS;
	}
}

static ssize_t ep_cancel(fid_t fid, void *context)
{
	return iwfi_msg_cancel(ep_of(fid), context);
}

static int ep_getopt(fid_t fid, int level, int optname, void *optval,
		     size_t *optlen)
{
	struct iwfi_ep *ep = ep_of(fid);

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		if (*optlen < sizeof(size_t))
			return -FI_ETOOSMALL;
		*(size_t *)optval = ep->cm_data_size;
		*optlen = sizeof(size_t);
		return 0;
	default:
		return -FI_ENOPROTOOPT;
	}
}

static int ep_setopt(fid_t fid, int level, int optname, const void *optval,
		     size_t optlen)
{
	struct iwfi_ep *ep = ep_of(fid);
	size_t v;

	if (level != FI_OPT_ENDPOINT)
		return -FI_ENOPROTOOPT;
	switch (optname) {
	case FI_OPT_CM_DATA_SIZE:
		if (optlen != sizeof(size_t))
			return -FI_EINVAL;
		memcpy(&v, optval, sizeof(v));
		if (v > IWFI_CM_DATA_SIZE)
			return -FI_EINVAL;
		ep->cm_data_size = v;
		return 0;
	default:
		return -FI_ENOPROTOOPT;
	}
}

static struct fi_ops ep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = ep_close,
	.bind = ep_bind,
	.control = ep_control,
	.ops_open = iwfi_no_ops_open,
};

/* The QP moves data: up, and not failed by a Terminate or a reset the
 * CM thread has not reported yet (ep->lock held). */
static bool ep_qp_up(struct iwfi_ep *ep)
{
	struct iwcm_qp_attr a = { 0 };

	return ep->state == IWFI_EP_S_CONNECTED && ep->qp &&
	       !iwcm_query_qp(ep->qp, &a) && a.state == IWCM_QPS_RTS;
}

/*
 * fi_tx_size_left(3): a lower bound on the transmit operations a post
 * takes now without -FI_EAGAIN: the QP's free send queue entries, and
 * no more than the peer's receive credits while it counts them (a Send
 * needs one, iwfi_credit.c).  Before the connection is up a post is
 * refused (-FI_ENOTCONN): 0.  -FI_EOPBADSTATE (fi_endpoint(3)) before
 * fi_enable() and once the connection failed or ended: the QP takes no
 * more work.
 */
static ssize_t ep_tx_size_left(struct fid_ep *ep_fid)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	ssize_t n = -FI_EOPBADSTATE;

	iwfi_ep_lock(ep);
	if (iwfi_ep_state_enabled(ep->state) &&
	    iwfi_ep_state_holds(ep->state)) {
		n = 0;
	} else if (ep_qp_up(ep)) {
		n = iwcm_qp_send_room(ep->qp);
		if (n >= 0 && ep->peer.on) {
			uint64_t have = __atomic_load_n(&ep->credit_word,
							__ATOMIC_ACQUIRE);

			if (have < ep->peer.posted)
				have = ep->peer.posted;
			have = have > ep->tx_sent ? have - ep->tx_sent : 0;
			if (have < (uint64_t)n)
				n = (ssize_t)have;
		}
		if (n < 0)
			n = -FI_EOPBADSTATE;
	}
	iwfi_ep_unlock(ep);
	return n;
}

/*
 * fi_rx_size_left(3): the receive queue's free entries, the receives
 * held for a connection not yet up counted as posted (they fill the
 * queue when it is made, iwfi_msg.c).  A receive is counted until its
 * completion is read.  -FI_EOPBADSTATE as fi_tx_size_left().
 */
static ssize_t ep_rx_size_left(struct fid_ep *ep_fid)
{
	struct iwfi_ep *ep = ep_of(&ep_fid->fid);
	const struct iwfi_req *req;
	size_t used = 0, size = ep->info->rx_attr->size;
	ssize_t n = -FI_EOPBADSTATE;

	iwfi_ep_lock(ep);
	if ((iwfi_ep_state_enabled(ep->state) &&
	     iwfi_ep_state_holds(ep->state)) ||
	    ep_qp_up(ep)) {
		for (req = ep->held; req; req = req->next)
			used++;
		for (req = ep->posted; req; req = req->pnext)
			if (req->flags & FI_RECV)
				used++;
		n = used < size ? (ssize_t)(size - used) : 0;
	}
	iwfi_ep_unlock(ep);
	return n;
}

static struct fi_ops_ep ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = ep_cancel,
	.getopt = ep_getopt,
	.setopt = ep_setopt,
	.tx_ctx = iwfi_no_tx_ctx,
	.rx_ctx = iwfi_no_rx_ctx,
	.rx_size_left = ep_rx_size_left,
	.tx_size_left = ep_tx_size_left,
};

/*
 * fi_endpoint(3): an endpoint opened with a passive endpoint as its
 * handle takes over the address that one was given (fi_setname()) or
 * listens at, as its source for fi_connect(); the passive endpoint may
 * be closed at once.  iwcmd owns the sockets, so nothing is held at that
 * address until the connection binds it.
 */
static int ep_take_name(struct iwfi_ep *ep, fid_t handle)
{
	struct iwfi_pep *pep =
		iwfi_container_of(handle, struct iwfi_pep, pep_fid.fid);
	const struct sockaddr *sa =
		pep->listener ? (const struct sockaddr *)&pep->addr :
				pep->info->src_addr;
	size_t len = iwfi_sockaddr_len(sa);
	void *copy = NULL;

	if (len && !(copy = malloc(len)))
		return -1;
	if (len)
		memcpy(copy, sa, len);
	free(ep->info->src_addr);
	ep->info->src_addr = copy;
	ep->info->src_addrlen = len;
	/* Not a connection request: nothing for fi_accept(). */
	ep->info->handle = NULL;
	return 0;
}

/* fi_endpoint(): an FI_EP_MSG endpoint, for fi_connect() or, with the
 * info of an FI_CONNREQ, fi_accept(). */
int iwfi_endpoint(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **ep_fid, void *context)
{
	struct iwfi_domain *dom =
		iwfi_container_of(domain, struct iwfi_domain, domain_fid);
	struct iwfi_ep *ep;

	if (!info || (info->ep_attr && info->ep_attr->type != FI_EP_MSG &&
		      info->ep_attr->type != FI_EP_UNSPEC))
		return -FI_EINVAL;
	if (info->handle && info->handle->fclass != FI_CLASS_CONNREQ &&
	    info->handle->fclass != FI_CLASS_PEP)
		return -FI_EINVAL;
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -FI_ENOMEM;
	ep->info = fi_dupinfo(info);
	if (!ep->info) {
		free(ep);
		return -FI_ENOMEM;
	}
	if (info->handle && info->handle->fclass == FI_CLASS_PEP &&
	    ep_take_name(ep, info->handle)) {
		fi_freeinfo(ep->info);
		free(ep);
		return -FI_ENOMEM;
	}
	if (!ep->info->tx_attr->size)
		ep->info->tx_attr->size = IWFI_DEF_QUEUE;
	if (!ep->info->rx_attr->size)
		ep->info->rx_attr->size = IWFI_DEF_QUEUE;
	if (ep->info->tx_attr->size > IWFI_MAX_QUEUE)
		ep->info->tx_attr->size = IWFI_MAX_QUEUE;
	if (ep->info->rx_attr->size > IWFI_MAX_QUEUE)
		ep->info->rx_attr->size = IWFI_MAX_QUEUE;
	pthread_mutex_init(&ep->lock, NULL);
	pthread_mutex_init(&ep->req_lock, NULL);
	ep->domain = dom;
	ep->state = IWFI_EP_S_IDLE;
	ep->cm_data_size = IWFI_CM_DATA_SIZE;
	ep->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	ep->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	ep->ep_fid.fid.fclass = FI_CLASS_EP;
	ep->ep_fid.fid.context = context;
	ep->ep_fid.fid.ops = &ep_fi_ops;
	ep->ep_fid.ops = &ep_ops;
	ep->ep_fid.cm = (struct fi_ops_cm *)&iwfi_ep_cm_ops;
	ep->ep_fid.msg = (struct fi_ops_msg *)&iwfi_msg_ops;
	ep->ep_fid.rma = (struct fi_ops_rma *)&iwfi_rma_ops;
	ep->ep_fid.atomic = (struct fi_ops_atomic *)&iwfi_atomic_ops;
	__atomic_fetch_add(&dom->refs, 1, __ATOMIC_RELEASE);
	*ep_fid = &ep->ep_fid;
	return 0;
}
