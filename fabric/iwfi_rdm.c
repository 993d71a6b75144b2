/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * FI_EP_RDM endpoints (iwfi_rdm.h): binding, enabling, names, closing,
 * and the endpoint's thread, which reads the event queue of its passive
 * endpoint and connections: it accepts the peers' requests and tells
 * iwfi_rdm_peer.c when a connection is up or down.  The data operations
 * are in iwfi_rdm_ops.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "iwfi_rdm.h"

/* How long the thread sleeps on the event queue before it looks whether
 * the endpoint is closing. */
#define RDM_EQ_WAIT_MS 100

static struct iwfi_rdm *rdm_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_rdm, ep_fid.fid);
}

/* One entry of the event queue; false when there was none. */
static bool rdm_event(struct iwfi_rdm *rdm)
{
	union {
		struct fi_eq_cm_entry cm;
		uint8_t buf[sizeof(struct fi_eq_cm_entry) + IWFI_CM_DATA_SIZE];
	} u;
	struct fi_eq_err_entry err = { 0 };
	uint32_t event;
	ssize_t n;

	n = fi_eq_sread(rdm->eq, &event, &u, sizeof(u), RDM_EQ_WAIT_MS, 0);
	if (n == -FI_EAVAIL) {
		if (fi_eq_readerr(rdm->eq, &err, 0) <= 0 || !err.fid)
			return true;
		/* A connection a Terminate ended (iwfi_eq_shutdown()) is
		 * down as after FI_SHUTDOWN. */
		if (err.prov_errno & IWFI_PROV_TERM)
			iwfi_rdm_on_event(rdm, err.fid, IWFI_RDM_EV_DOWN);
		else
			iwfi_rdm_on_event(
				rdm, err.fid,
				err.err == FI_ECONNREFUSED &&
						err.err_data_size ==
							sizeof(IWFI_RDM_YIELD) &&
						!memcmp(err.err_data,
							IWFI_RDM_YIELD,
							sizeof(IWFI_RDM_YIELD)) ?
					IWFI_RDM_EV_YIELD :
					IWFI_RDM_EV_REFUSED);
		return true;
	}
	if (n < 0)
		return false;
	switch (event) {
	case FI_CONNREQ:
		iwfi_rdm_on_request(rdm, u.cm.info, u.cm.data,
				    (size_t)n - sizeof(u.cm));
		break;
	case FI_CONNECTED:
		iwfi_rdm_on_event(rdm, u.cm.fid, IWFI_RDM_EV_CONNECTED);
		break;
	case FI_SHUTDOWN:
		iwfi_rdm_on_event(rdm, u.cm.fid, IWFI_RDM_EV_DOWN);
		break;
	default:
		break;
	}
	return true;
}

/* The thread also posts what waits for room (iwfi_rdm_drain()) at
 * least every RDM_EQ_WAIT_MS, for an application that reads no CQ for a
 * while, or whose last read found the work taken. */
static void *rdm_thread(void *arg)
{
	struct iwfi_rdm *rdm = arg;

	while (!__atomic_load_n(&rdm->stop, __ATOMIC_ACQUIRE)) {
		rdm_event(rdm);
		iwfi_rdm_drain(rdm);
	}
	return NULL;
}

/* The CQ watcher (iwfi_cq_watch): a read of the transmit CQ. */
static void rdm_room(void *arg)
{
	iwfi_rdm_drain(arg);
}

static int rdm_close(struct fid *fid)
{
	struct iwfi_rdm *rdm = rdm_of(fid);

	if (rdm->room_cq)
		iwfi_cq_watch_del(rdm->room_cq, &rdm->room);
	if (rdm->running) {
		__atomic_store_n(&rdm->stop, 1, __ATOMIC_RELEASE);
		pthread_join(rdm->thread, NULL);
	}
	iwfi_rdm_peers_close(rdm);
	if (rdm->pep)
		fi_close(&rdm->pep->fid);
	if (rdm->eq)
		fi_close(&rdm->eq->fid);
	if (rdm->tx_cq)
		__atomic_fetch_sub(&rdm->tx_cq->refs, 1, __ATOMIC_RELEASE);
	if (rdm->rx_cq)
		__atomic_fetch_sub(&rdm->rx_cq->refs, 1, __ATOMIC_RELEASE);
	if (rdm->av)
		__atomic_fetch_sub(&rdm->av->refs, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&rdm->domain->refs, 1, __ATOMIC_RELEASE);
	pthread_mutex_destroy(&rdm->lock);
	fi_freeinfo(rdm->info);
	free(rdm);
	return 0;
}

static int rdm_bind_cq(struct iwfi_rdm *rdm, struct iwfi_cq *cq, uint64_t flags)
{
	if (!(flags & (FI_TRANSMIT | FI_RECV)) || cq->domain != rdm->domain)
		return -FI_EINVAL;
	if (((flags & FI_TRANSMIT) && rdm->tx_cq) ||
	    ((flags & FI_RECV) && rdm->rx_cq))
		return -FI_EINVAL;
	if (flags & FI_TRANSMIT) {
		rdm->tx_cq = cq;
		rdm->tx_cq_flags = flags &
				   (FI_TRANSMIT | FI_SELECTIVE_COMPLETION);
		__atomic_fetch_add(&cq->refs, 1, __ATOMIC_RELEASE);
	}
	if (flags & FI_RECV) {
		rdm->rx_cq = cq;
		rdm->rx_cq_flags = flags & (FI_RECV | FI_SELECTIVE_COMPLETION);
		__atomic_fetch_add(&cq->refs, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

static int rdm_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct iwfi_rdm *rdm = rdm_of(fid);
	struct iwfi_av *av;

	if (rdm->enabled)
		return -FI_EOPBADSTATE;
	switch (bfid->fclass) {
	case FI_CLASS_AV:
		av = iwfi_container_of(bfid, struct iwfi_av, av_fid.fid);
		if (rdm->av || av->domain != rdm->domain)
			return -FI_EINVAL;
		rdm->av = av;
		__atomic_fetch_add(&av->refs, 1, __ATOMIC_RELEASE);
		return 0;
	case FI_CLASS_CQ:
		return rdm_bind_cq(rdm,
				   iwfi_container_of(bfid, struct iwfi_cq,
						     cq_fid.fid),
				   flags);
	default:
		return -FI_ENOSYS;
	}
}

/* fi_enable(): listen at the endpoint's name for the peers' requests
 * and start the thread that answers them. */
static int rdm_enable(struct iwfi_rdm *rdm)
{
	struct fi_eq_attr attr = { .wait_obj = FI_WAIT_FD };
	struct fid_fabric *fabric = &rdm->domain->fabric->fabric_fid;
	struct fi_info *info;
	size_t len = sizeof(rdm->name);
	int ret;

	if (rdm->enabled)
		return 0;
	if (!rdm->av)
		return -FI_ENOAV;
	if (!rdm->tx_cq && !rdm->rx_cq)
		return -FI_ENOCQ;
	info = fi_dupinfo(rdm->info);
	if (!info)
		return -FI_ENOMEM;
	info->ep_attr->type = FI_EP_MSG;
	ret = fi_eq_open(fabric, &attr, &rdm->eq, rdm);
	if (!ret)
		ret = fi_passive_ep(fabric, info, &rdm->pep, rdm);
	fi_freeinfo(info);
	if (!ret)
		ret = fi_pep_bind(rdm->pep, &rdm->eq->fid, 0);
	if (!ret)
		ret = fi_listen(rdm->pep);
	if (!ret)
		ret = fi_getname(&rdm->pep->fid, &rdm->name, &len);
	if (!ret && pthread_create(&rdm->thread, NULL, rdm_thread, rdm))
		ret = -FI_ENOMEM;
	if (ret) {
		if (rdm->pep)
			fi_close(&rdm->pep->fid);
		if (rdm->eq)
			fi_close(&rdm->eq->fid);
		rdm->pep = NULL;
		rdm->eq = NULL;
		return ret;
	}
	rdm->running = true;
	/* The connections' transmit completions go to the transmit CQ. */
	rdm->room_cq = rdm->tx_cq ? rdm->tx_cq : rdm->rx_cq;
	rdm->room.fn = rdm_room;
	rdm->room.arg = rdm;
	iwfi_cq_watch_add(rdm->room_cq, &rdm->room);
	pthread_mutex_lock(&rdm->lock);
	rdm->enabled = true;
	pthread_mutex_unlock(&rdm->lock);
	return 0;
}

static int rdm_control(struct fid *fid, int command, void *arg)
{
	struct iwfi_rdm *rdm = rdm_of(fid);
	uint64_t *flags = arg;

	switch (command) {
	case FI_ENABLE:
		return rdm_enable(rdm);
	case FI_GETOPSFLAG:
	case FI_SETOPSFLAG:
		return iwfi_opsflag(command, flags, &rdm->tx_op_flags,
				    &rdm->rx_op_flags);
	default:
		return -FI_ENOSYS;
	}
}

/* fi_getname(): the listener's address once enabled, before that the
 * source address it will listen at. */
static int rdm_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct iwfi_rdm *rdm = rdm_of(fid);

	if (rdm->enabled)
		return iwfi_copy_name(&rdm->name, iwfi_rdm_addr_len(&rdm->name),
				      addr, addrlen);
	return iwfi_copy_name(rdm->info->src_addr, rdm->info->src_addrlen, addr,
			      addrlen);
}

static int rdm_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct iwfi_rdm *rdm = rdm_of(fid);

	if (rdm->enabled)
		return -FI_EOPBADSTATE;
	return iwfi_info_set_src(rdm->info, addr, addrlen);
}

static int rdm_no_getpeer(struct fid_ep *ep, void *addr, size_t *addrlen)
{
	return -FI_ENOSYS;
}

static int rdm_no_connect(struct fid_ep *ep, const void *addr,
			  const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

static int rdm_no_listen(struct fid_pep *pep)
{
	return -FI_ENOSYS;
}

static int rdm_no_accept(struct fid_ep *ep, const void *param, size_t paramlen)
{
	return -FI_ENOSYS;
}

static int rdm_no_reject(struct fid_pep *pep, fid_t handle, const void *param,
			 size_t paramlen)
{
	return -FI_ENOSYS;
}

static int rdm_no_shutdown(struct fid_ep *ep, uint64_t flags)
{
	return -FI_ENOSYS;
}

static int rdm_no_join(struct fid_ep *ep, const void *addr, uint64_t flags,
		       struct fid_mc **mc, void *context)
{
	return -FI_ENOSYS;
}

static struct fi_ops_cm rdm_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = rdm_setname,
	.getname = rdm_getname,
	.getpeer = rdm_no_getpeer,
	.connect = rdm_no_connect,
	.listen = rdm_no_listen,
	.accept = rdm_no_accept,
	.reject = rdm_no_reject,
	.shutdown = rdm_no_shutdown,
	.join = rdm_no_join,
};

static ssize_t rdm_cancel(fid_t fid, void *context)
{
	return 0;
}

static int rdm_getopt(fid_t fid, int level, int optname, void *optval,
		      size_t *optlen)
{
	return -FI_ENOPROTOOPT;
}

static int rdm_setopt(fid_t fid, int level, int optname, const void *optval,
		      size_t optlen)
{
	return -FI_ENOPROTOOPT;
}

static ssize_t rdm_tx_size_left(struct fid_ep *ep)
{
	return iwfi_rdm_tx_left(rdm_of(&ep->fid));
}

/* fi_rx_size_left(3): RDM endpoints take no receives (no FI_MSG), so
 * none can be posted; -FI_EOPBADSTATE before fi_enable(). */
static ssize_t rdm_rx_size_left(struct fid_ep *ep)
{
	struct iwfi_rdm *rdm = rdm_of(&ep->fid);
	bool enabled;

	pthread_mutex_lock(&rdm->lock);
	enabled = rdm->enabled;
	pthread_mutex_unlock(&rdm->lock);
	return enabled ? 0 : -FI_EOPBADSTATE;
}

static struct fi_ops rdm_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = rdm_close,
	.bind = rdm_bind,
	.control = rdm_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_ep rdm_ep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = rdm_cancel,
	.getopt = rdm_getopt,
	.setopt = rdm_setopt,
	.tx_ctx = iwfi_no_tx_ctx,
	.rx_ctx = iwfi_no_rx_ctx,
	.rx_size_left = rdm_rx_size_left,
	.tx_size_left = rdm_tx_size_left,
};

/* fi_endpoint() of an FI_EP_RDM info. */
int iwfi_rdm_endpoint(struct fid_domain *domain, struct fi_info *info,
		      struct fid_ep **ep_fid, void *context)
{
	struct iwfi_domain *dom =
		iwfi_container_of(domain, struct iwfi_domain, domain_fid);
	struct iwfi_rdm *rdm;

	if (!info || !info->ep_attr || info->ep_attr->type != FI_EP_RDM)
		return -FI_EINVAL;
	rdm = calloc(1, sizeof(*rdm));
	if (!rdm)
		return -FI_ENOMEM;
	rdm->info = fi_dupinfo(info);
	if (!rdm->info) {
		free(rdm);
		return -FI_ENOMEM;
	}
	/* The connections are not connection requests of anyone's. */
	rdm->info->handle = NULL;
	free(rdm->info->dest_addr);
	rdm->info->dest_addr = NULL;
	rdm->info->dest_addrlen = 0;
	pthread_mutex_init(&rdm->lock, NULL);
	rdm->domain = dom;
	rdm->tx_op_flags = info->tx_attr ? info->tx_attr->op_flags : 0;
	rdm->rx_op_flags = info->rx_attr ? info->rx_attr->op_flags : 0;
	rdm->ep_fid.fid.fclass = FI_CLASS_EP;
	rdm->ep_fid.fid.context = context;
	rdm->ep_fid.fid.ops = &rdm_fi_ops;
	rdm->ep_fid.ops = &rdm_ep_ops;
	rdm->ep_fid.cm = &rdm_cm_ops;
	rdm->ep_fid.msg = (struct fi_ops_msg *)&iwfi_rdm_msg_ops;
	rdm->ep_fid.rma = (struct fi_ops_rma *)&iwfi_rdm_rma_ops;
	rdm->ep_fid.atomic = (struct fi_ops_atomic *)&iwfi_rdm_atomic_ops;
	__atomic_fetch_add(&dom->refs, 1, __ATOMIC_RELEASE);
	*ep_fid = &rdm->ep_fid;
	return 0;
}
