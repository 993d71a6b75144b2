/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Passive endpoints: an iwcm listener (the daemon owns the socket); its
 * connection requests become FI_CONNREQ entries (iwfi_cm.c).
 */
#include "config.h"

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
	pep->pep_fid.cm = (struct fi_ops_cm *)&iwfi_pep_cm_ops;
	__atomic_fetch_add(&fab->refs, 1, __ATOMIC_RELEASE);
	*pep_fid = &pep->pep_fid;
	return 0;
}
