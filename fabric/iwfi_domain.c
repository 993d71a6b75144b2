/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Domains: a protection domain of the fabric's iwcm context (RFC 5042
 * §5: a QP reaches only the memory regions of its own domain).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi_rdm.h"

static int dom_close(struct fid *fid)
{
	struct iwfi_domain *dom =
		iwfi_container_of(fid, struct iwfi_domain, domain_fid.fid);

	if (__atomic_load_n(&dom->refs, __ATOMIC_ACQUIRE))
		return -FI_EBUSY;
	iwfi_mr_local_close(dom);
	if (iwcm_dealloc_pd(dom->pd) < 0)
		return -iwfi_errno(errno);
	__atomic_fetch_sub(&dom->fabric->refs, 1, __ATOMIC_RELEASE);
	fi_freeinfo(dom->info);
	free(dom);
	return 0;
}

static int dom_scalable_ep(struct fid_domain *domain, struct fi_info *info,
			   struct fid_ep **sep, void *context)
{
	return -FI_ENOSYS;
}

static int dom_cntr_open(struct fid_domain *domain, struct fi_cntr_attr *attr,
			 struct fid_cntr **cntr, void *context)
{
	return -FI_ENOSYS;
}

static int dom_poll_open(struct fid_domain *domain, struct fi_poll_attr *attr,
			 struct fid_poll **pollset)
{
	return -FI_ENOSYS;
}

static int dom_stx_ctx(struct fid_domain *domain, struct fi_tx_attr *attr,
		       struct fid_stx **stx, void *context)
{
	return -FI_ENOSYS;
}

static int dom_srx_ctx(struct fid_domain *domain, struct fi_rx_attr *attr,
		       struct fid_ep **rx_ep, void *context)
{
	return -FI_ENOSYS;
}

static int dom_query_collective(struct fid_domain *domain,
				enum fi_collective_op coll,
				struct fi_collective_attr *attr, uint64_t flags)
{
	return -FI_ENOSYS;
}

/* fi_endpoint(): an FI_EP_RDM endpoint (iwfi_rdm.c) or an FI_EP_MSG
 * one (iwfi_ep.c). */
static int dom_endpoint(struct fid_domain *domain, struct fi_info *info,
			struct fid_ep **ep, void *context)
{
	if (info && info->ep_attr && info->ep_attr->type == FI_EP_RDM)
		return iwfi_rdm_endpoint(domain, info, ep, context);
	return iwfi_endpoint(domain, info, ep, context);
}

static int dom_endpoint2(struct fid_domain *domain, struct fi_info *info,
			 struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return dom_endpoint(domain, info, ep, context);
}

static struct fi_ops dom_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = dom_close,
	.bind = iwfi_no_bind,
	.control = iwfi_no_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_domain dom_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = iwfi_av_open,
	.cq_open = iwfi_cq_open,
	.endpoint = dom_endpoint,
	.scalable_ep = dom_scalable_ep,
	.cntr_open = dom_cntr_open,
	.poll_open = dom_poll_open,
	.stx_ctx = dom_stx_ctx,
	.srx_ctx = dom_srx_ctx,
	.query_atomic = iwfi_query_atomic,
	.query_collective = dom_query_collective,
	.endpoint2 = dom_endpoint2,
};

static struct fi_ops_mr dom_mr_ops = {
	.size = sizeof(struct fi_ops_mr),
	.reg = iwfi_mr_reg,
	.regv = iwfi_mr_regv,
	.regattr = iwfi_mr_regattr,
};

/* fi_domain(): the domain "iwcm". */
int iwfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain, void *context)
{
	struct iwfi_fabric *fab =
		iwfi_container_of(fabric, struct iwfi_fabric, fabric_fid);
	struct iwfi_domain *dom;
	int e;

	if (info && info->domain_attr && info->domain_attr->name &&
	    strcmp(info->domain_attr->name, IWFI_NAME))
		return -FI_EINVAL;
	/* A context without a progress thread cannot progress by itself. */
	if (fab->manual && info && info->domain_attr &&
	    info->domain_attr->data_progress == FI_PROGRESS_AUTO) {
		IWFI_WARN(FI_LOG_DOMAIN,
			  "FI_PROGRESS_AUTO asked, FI_IWCM_PROGRESS=manual\n");
		return -FI_EINVAL;
	}
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	dom->info = info ? fi_dupinfo(info) : NULL;
	dom->pd = iwcm_alloc_pd(fab->ctx);
	if (!dom->pd) {
		e = errno;
		fi_freeinfo(dom->info);
		free(dom);
		return -iwfi_errno(e);
	}
	e = iwfi_mr_local_open(dom);
	if (e) {
		iwcm_dealloc_pd(dom->pd);
		fi_freeinfo(dom->info);
		free(dom);
		return e;
	}
	dom->fabric = fab;
	dom->domain_fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->domain_fid.fid.context = context;
	dom->domain_fid.fid.ops = &dom_fi_ops;
	dom->domain_fid.ops = &dom_ops;
	dom->domain_fid.mr = &dom_mr_ops;
	__atomic_fetch_add(&fab->refs, 1, __ATOMIC_RELEASE);
	*domain = &dom->domain_fid;
	return 0;
}
