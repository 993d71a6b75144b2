/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Passive endpoints: an iwcm listener (the daemon owns the socket) made
 * by fi_listen(), and fi_reject(); the CM thread turns its connection
 * requests into FI_CONNREQ entries (iwfi_cm.c).
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi.h"

static struct iwfi_pep *pep_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_pep, pep_fid.fid);
}

static int pep_close(struct fid *fid)
{
	struct iwfi_pep *pep = pep_of(fid);

	iwfi_cm_unlink_pep(pep);
	if (pep->eq)
		__atomic_fetch_sub(&pep->eq->refs, 1, __ATOMIC_RELEASE);
	__atomic_fetch_sub(&pep->fabric->refs, 1, __ATOMIC_RELEASE);
	fi_freeinfo(pep->info);
	free(pep);
	return 0;
}

static int pep_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct iwfi_pep *pep = pep_of(fid);

	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	if (pep->eq)
		return -FI_EINVAL;
	pep->eq = iwfi_container_of(bfid, struct iwfi_eq, eq_fid.fid);
	__atomic_fetch_add(&pep->eq->refs, 1, __ATOMIC_RELEASE);
	return 0;
}

static ssize_t pep_cancel(fid_t fid, void *context)
{
	return -FI_ENOENT;
}

static int pep_getopt(fid_t fid, int level, int optname, void *optval,
		      size_t *optlen)
{
	if (level != FI_OPT_ENDPOINT || optname != FI_OPT_CM_DATA_SIZE)
		return -FI_ENOPROTOOPT;
	if (*optlen < sizeof(size_t))
		return -FI_ETOOSMALL;
	*(size_t *)optval = IWFI_CM_DATA_SIZE;
	*optlen = sizeof(size_t);
	return 0;
}

static int pep_setopt(fid_t fid, int level, int optname, const void *optval,
		      size_t optlen)
{
	return -FI_ENOPROTOOPT;
}

static int pep_setname(fid_t fid, void *addr, size_t addrlen)
{
	struct iwfi_pep *pep = pep_of(fid);

	if (pep->listener)
		return -FI_EOPBADSTATE;
	return iwfi_info_set_src(pep->info, addr, addrlen);
}

static int pep_getname(fid_t fid, void *addr, size_t *addrlen)
{
	struct iwfi_pep *pep = pep_of(fid);
	const struct sockaddr *sa = pep->info->src_addr;

	if (pep->listener)
		sa = (const struct sockaddr *)&pep->addr;
	return iwfi_copy_name(sa, iwfi_sockaddr_len(sa), addr, addrlen);
}

static int pep_listen(struct fid_pep *pep_fid)
{
	struct iwfi_pep *pep = pep_of(&pep_fid->fid);
	struct iwfi_fabric *fab = pep->fabric;
	struct sockaddr_in any = { .sin_family = AF_INET };
	const struct sockaddr *sa = pep->info->src_addr, *bound;
	struct iwcm_listener *l;
	struct iwcm_conn_param *p;
	int e;

	if (pep->listener)
		return 0;
	if (!pep->eq)
		return -FI_ENOEQ;
	if (!sa)
		sa = (const struct sockaddr *)&any;
	p = iwfi_cm_param(fab, NULL, 0);
	if (!p)
		return -FI_ENOMEM;
	iwfi_ctx_lock(fab);
	l = iwcm_listen(fab->ctx, sa, NULL, p, 0);
	e = errno;
	if (l) {
		bound = iwcm_listener_get_addr(l);
		memcpy(&pep->addr, bound, iwfi_sockaddr_len(bound));
		/* Found by the CM thread before the first request. */
		iwfi_cm_lock(fab);
		pep->listener = l;
		pep->next = fab->peps;
		fab->peps = pep;
		iwfi_cm_unlock(fab);
	}
	iwfi_ctx_unlock(fab);
	iwcm_conn_param_free(p);
	iwfi_cm_wake(fab);
	if (!l) {
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
	iwfi_ctx_lock(fab);
	ret = iwcm_reject(cr->conn, param, paramlen);
	e = errno;
	iwcm_conn_free(cr->conn);
	iwfi_ctx_unlock(fab);
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

static int pep_join_none(struct fid_ep *ep, const void *addr, uint64_t flags,
			 struct fid_mc **mc, void *context)
{
	return -FI_ENOSYS;
}

static const struct fi_ops_cm pep_cm_ops = {
	.size = sizeof(struct fi_ops_cm),
	.setname = pep_setname,
	.getname = pep_getname,
	.getpeer = pep_getpeer_none,
	.connect = pep_connect_none,
	.listen = pep_listen,
	.accept = pep_accept_none,
	.reject = pep_reject,
	.shutdown = pep_shutdown_none,
	.join = pep_join_none,
};

static struct fi_ops pep_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = pep_close,
	.bind = pep_bind,
	.control = iwfi_no_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_ep pep_ops = {
	.size = sizeof(struct fi_ops_ep),
	.cancel = pep_cancel,
	.getopt = pep_getopt,
	.setopt = pep_setopt,
	.tx_ctx = iwfi_no_tx_ctx,
	.rx_ctx = iwfi_no_rx_ctx,
	.rx_size_left = iwfi_no_size_left,
	.tx_size_left = iwfi_no_size_left,
};

/* fi_passive_ep(): listens at info->src_addr (any address, port 0 when
 * none) once fi_listen() is called. */
int iwfi_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_pep **pep_fid, void *context)
{
	struct iwfi_fabric *fab =
		iwfi_container_of(fabric, struct iwfi_fabric, fabric_fid);
	struct iwfi_pep *pep;

	if (!info)
		return -FI_EINVAL;
	pep = calloc(1, sizeof(*pep));
	if (!pep)
		return -FI_ENOMEM;
	pep->info = fi_dupinfo(info);
	if (!pep->info) {
		free(pep);
		return -FI_ENOMEM;
	}
	pep->fabric = fab;
	pep->pep_fid.fid.fclass = FI_CLASS_PEP;
	pep->pep_fid.fid.context = context;
	pep->pep_fid.fid.ops = &pep_fi_ops;
	pep->pep_fid.ops = &pep_ops;
	pep->pep_fid.cm = (struct fi_ops_cm *)&pep_cm_ops;
	__atomic_fetch_add(&fab->refs, 1, __ATOMIC_RELEASE);
	*pep_fid = &pep->pep_fid;
	return 0;
}
