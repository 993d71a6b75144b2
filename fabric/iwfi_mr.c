/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Memory regions: an iwcm memory region of the domain's protection
 * domain.  Its STag is the key the peer uses (FI_MR_PROV_KEY) and the
 * lkey of local buffers (FI_MR_LOCAL); Tagged Offsets are virtual
 * addresses (FI_MR_VIRT_ADDR, RFC 5040 §4.4).
 *
 * Local buffers without a descriptor (an application that did not offer
 * FI_MR_LOCAL, fi_domain(3)) use one more region per domain: all of the
 * address space, with local write access only -- the role of a verbs
 * device's local DMA lkey.  No registration cache is needed, and none
 * could go stale: libiwcm's registration pins and translates nothing,
 * it is an entry of the STag table that the QP checks a virtual address
 * range against (RFC 5042 §5), and the QP moves data through the same
 * virtual addresses the application named.  Memory freed and mapped
 * again at the same address is reached as the new memory, exactly as
 * the application asks.  Without remote access rights the region's
 * STag is worthless to a peer: a tagged message or Read Request naming
 * it fails the access check (RFC 5042 §5.3) and ends in a Terminate.
 * The rule that stays is the one of registered memory: a buffer is the
 * application's again once its operation completes.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "iwfi.h"

/* The lkey of a local buffer: the STag of the region behind a
 * descriptor of fi_mr_desc(), or without one the domain's local one. */
uint32_t iwfi_mr_lkey(struct iwfi_domain *dom, void *desc)
{
	struct iwfi_mr *mr = desc;

	if (mr)
		return iwcm_mr_get_stag(mr->mr);
	return iwcm_mr_get_stag(dom->local_mr);
}

/* Register the domain's local region.  Address 0 is never mapped and
 * iwcm_reg_mr() refuses a region there, so it starts at 1. */
int iwfi_mr_local_open(struct iwfi_domain *dom)
{
	dom->local_mr = iwcm_reg_mr(dom->pd, (void *)(uintptr_t)1,
				    UINTPTR_MAX - 1, IWCM_ACCESS_LOCAL_WRITE);
	if (!dom->local_mr) {
		int e = errno;

		IWFI_WARN(FI_LOG_MR, "local region: iwcm_reg_mr: %d\n", e);
		return -iwfi_errno(e);
	}
	return 0;
}

/* Deregister the domain's local region (its endpoints are closed). */
void iwfi_mr_local_close(struct iwfi_domain *dom)
{
	if (dom->local_mr)
		iwcm_dereg_mr(dom->local_mr);
	dom->local_mr = NULL;
}

static int mr_close(struct fid *fid)
{
	struct iwfi_mr *mr = iwfi_container_of(fid, struct iwfi_mr, mr_fid.fid);

	if (iwcm_dereg_mr(mr->mr) < 0)
		return -iwfi_errno(errno);
	__atomic_fetch_sub(&mr->domain->refs, 1, __ATOMIC_RELEASE);
	free(mr);
	return 0;
}

static struct fi_ops mr_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = mr_close,
	.bind = iwfi_no_bind,
	.control = iwfi_no_control,
	.ops_open = iwfi_no_ops_open,
};

/* RFC 5042 §5: iwcm access rights from libfabric's.  Local writes are
 * always allowed, since receives, Read Responses and atomic results land
 * in the buffers a caller registers for them. */
static unsigned int mr_access(uint64_t access)
{
	unsigned int a = IWCM_ACCESS_LOCAL_WRITE;

	if (access & FI_REMOTE_WRITE)
		a |= IWCM_ACCESS_REMOTE_WRITE | IWCM_ACCESS_REMOTE_ATOMIC;
	if (access & FI_REMOTE_READ)
		a |= IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC;
	return a;
}

/* fi_mr_regattr(): one iovec, no requested key (the STag is the key). */
int iwfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
		    uint64_t flags, struct fid_mr **mr_fid)
{
	struct iwfi_domain *dom;
	struct iwfi_mr *mr;
	void *addr = NULL;
	size_t len = 0;

	if (fid->fclass != FI_CLASS_DOMAIN || !attr || !mr_fid)
		return -FI_EINVAL;
	if (attr->iov_count > 1)
		return -FI_EOPNOTSUPP;
	if (attr->iov_count) {
		addr = attr->mr_iov[0].iov_base;
		len = attr->mr_iov[0].iov_len;
	}
	if (attr->iface != FI_HMEM_SYSTEM)
		return -FI_EOPNOTSUPP;
	dom = iwfi_container_of(fid, struct iwfi_domain, domain_fid.fid);
	mr = calloc(1, sizeof(*mr));
	if (!mr)
		return -FI_ENOMEM;
	mr->mr = iwcm_reg_mr(dom->pd, addr, len, mr_access(attr->access));
	if (!mr->mr) {
		int e = errno;

		IWFI_WARN(FI_LOG_MR, "iwcm_reg_mr: %d\n", e);
		free(mr);
		return -iwfi_errno(e);
	}
	mr->domain = dom;
	mr->mr_fid.fid.fclass = FI_CLASS_MR;
	mr->mr_fid.fid.context = attr->context;
	mr->mr_fid.fid.ops = &mr_fi_ops;
	mr->mr_fid.mem_desc = mr;
	mr->mr_fid.key = iwcm_mr_get_stag(mr->mr);
	__atomic_fetch_add(&dom->refs, 1, __ATOMIC_RELEASE);
	*mr_fid = &mr->mr_fid;
	return 0;
}

/* fi_mr_regv(). */
int iwfi_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		 uint64_t access, uint64_t offset, uint64_t requested_key,
		 uint64_t flags, struct fid_mr **mr, void *context)
{
	struct fi_mr_attr attr = {
		.mr_iov = iov,
		.iov_count = count,
		.access = access,
		.offset = offset,
		.requested_key = requested_key,
		.context = context,
	};

	return iwfi_mr_regattr(fid, &attr, flags, mr);
}

/* fi_mr_reg(). */
int iwfi_mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
		uint64_t offset, uint64_t requested_key, uint64_t flags,
		struct fid_mr **mr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return iwfi_mr_regv(fid, &iov, 1, access, offset, requested_key, flags,
			    mr, context);
}
