/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Fabrics: one iwcm context (a connection to iwcmd, found through
 * IWCM_SOCKET) with its progress thread (FI_PROGRESS_AUTO) or driven by
 * the application (FI_IWCM_PROGRESS=manual, iwfi_progress.c), and the CM
 * thread of iwfi_cm.c.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi.h"

static int fab_close(struct fid *fid)
{
	struct iwfi_fabric *fab =
		iwfi_container_of(fid, struct iwfi_fabric, fabric_fid.fid);

	if (__atomic_load_n(&fab->refs, __ATOMIC_ACQUIRE))
		return -FI_EBUSY;
	iwfi_cm_stop(fab);
	iwcm_ctx_close(fab->ctx);
	pthread_mutex_destroy(&fab->cm_lock);
	free(fab);
	return 0;
}

static int fab_wait_open(struct fid_fabric *fabric, struct fi_wait_attr *attr,
			 struct fid_wait **waitset)
{
	return -FI_ENOSYS;
}

/* fi_trywait(): every CQ and EQ in fids is armed and empty. */
static int fab_trywait(struct fid_fabric *fabric, struct fid **fids, int count)
{
	int i, ret;

	for (i = 0; i < count; i++) {
		switch (fids[i]->fclass) {
		case FI_CLASS_CQ:
			ret = iwfi_cq_trywait(iwfi_container_of(
				fids[i], struct iwfi_cq, cq_fid.fid));
			break;
		case FI_CLASS_EQ:
			ret = iwfi_eq_trywait(iwfi_container_of(
				fids[i], struct iwfi_eq, eq_fid.fid));
			break;
		default:
			return -FI_EINVAL;
		}
		if (ret)
			return ret;
	}
	return 0;
}

static int fab_domain2(struct fid_fabric *fabric, struct fi_info *info,
		       struct fid_domain **dom, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return iwfi_domain_open(fabric, info, dom, context);
}

static struct fi_ops fab_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = fab_close,
	.bind = iwfi_no_bind,
	.control = iwfi_no_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_fabric fab_ops = {
	.size = sizeof(struct fi_ops_fabric),
	.domain = iwfi_domain_open,
	.passive_ep = iwfi_passive_ep,
	.eq_open = iwfi_eq_open,
	.wait_open = fab_wait_open,
	.trywait = fab_trywait,
	.domain2 = fab_domain2,
};

/* fi_fabric(): connect to iwcmd and start the CM thread. */
int iwfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		     void *context)
{
	struct iwfi_fabric *fab;
	int ret;

	if (attr && attr->name && strcmp(attr->name, IWFI_NAME))
		return -FI_ENODATA;
	fab = calloc(1, sizeof(*fab));
	if (!fab)
		return -FI_ENOMEM;
	/* Who moves the data: FI_IWCM_PROGRESS (iwfi_progress.c). */
	ret = iwfi_progress_default();
	if (ret < 0) {
		free(fab);
		return ret;
	}
	fab->manual = ret == FI_PROGRESS_MANUAL;
	/* Whether connections ask for MPA CRC: FI_IWCM_CRC (iwfi_cm.c). */
	ret = iwfi_crc_default();
	if (ret < 0) {
		free(fab);
		return ret;
	}
	fab->crc = ret;
	/* fi_connect() and fi_accept() return once the request is sent,
	 * and what the daemon refuses comes through the EQ (fi_cm(3)):
	 * ofi_rxm's connections on demand do not wait for the daemon */
	fab->ctx = iwcm_ctx_open(IWCM_CTX_NONBLOCK | IWCM_CTX_ASYNC_CM |
				 (fab->manual ? IWCM_CTX_MANUAL_PROGRESS : 0));
	if (!fab->ctx) {
		ret = errno;
		if (ret == EINVAL && iwcm_env_error())
			IWFI_WARN(FI_LOG_FABRIC, "bad %s\n", iwcm_env_error());
		else
			IWFI_WARN(FI_LOG_FABRIC, "no iwcmd: %s\n",
				  strerror(ret));
		free(fab);
		return -iwfi_errno(ret);
	}
	pthread_mutex_init(&fab->cm_lock, NULL);
	ret = iwfi_cm_start(fab);
	if (ret) {
		iwcm_ctx_close(fab->ctx);
		pthread_mutex_destroy(&fab->cm_lock);
		free(fab);
		return ret;
	}
	fab->fabric_fid.fid.fclass = FI_CLASS_FABRIC;
	fab->fabric_fid.fid.context = context;
	fab->fabric_fid.fid.ops = &fab_fi_ops;
	fab->fabric_fid.ops = &fab_ops;
	*fabric = &fab->fabric_fid;
	return 0;
}
