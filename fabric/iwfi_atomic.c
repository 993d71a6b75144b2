/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Atomics on 64-bit integers as native RFC 7306 atomics: FI_SUM is
 * FetchAdd with an Add Mask of 0 (RFC 7306 §5.1.1: carries propagate over
 * all 64 bits), FI_CSWAP is CmpSwap with every compare and swap bit set
 * (§5.1.2), FI_ATOMIC_READ a FetchAdd of 0 and FI_ATOMIC_WRITE a CmpSwap
 * whose compare mask is 0, which always swaps.  The operands travel in
 * the Atomic Request, so their buffers need no registration; a
 * non-fetching atomic's original value lands in the endpoint's scratch
 * word.
 */
#include "config.h"

#include <string.h>

#include "iwfi.h"

enum atomic_kind { ATOMIC_WRITE, ATOMIC_FETCH, ATOMIC_COMPARE };

static struct iwfi_ep *ep_of(struct fid_ep *ep_fid)
{
	return iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
}

static bool op_valid(enum fi_datatype dt, enum fi_op op, enum atomic_kind kind)
{
	if (dt != FI_INT64 && dt != FI_UINT64)
		return false;
	switch (kind) {
	case ATOMIC_WRITE:
		return op == FI_SUM || op == FI_ATOMIC_WRITE;
	case ATOMIC_FETCH:
		return op == FI_SUM || op == FI_ATOMIC_READ ||
		       op == FI_ATOMIC_WRITE;
	default:
		return op == FI_CSWAP;
	}
}

/* fi_query_atomic() of the domain: count 1 of 8 octets when valid. */
int iwfi_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
		      enum fi_op op, struct fi_atomic_attr *attr,
		      uint64_t flags)
{
	enum atomic_kind kind = ATOMIC_WRITE;

	if (flags & FI_COMPARE_ATOMIC)
		kind = ATOMIC_COMPARE;
	else if (flags & FI_FETCH_ATOMIC)
		kind = ATOMIC_FETCH;
	if (!op_valid(datatype, op, kind))
		return -FI_EOPNOTSUPP;
	attr->count = 1;
	attr->size = sizeof(uint64_t);
	return 0;
}

struct atomic_args {
	enum atomic_kind kind;
	enum fi_datatype dt;
	enum fi_op op;
	const void *operand;
	const void *compare;
	void *result;
	void *result_desc;
	uint64_t addr;
	uint64_t key;
	void *context;
	uint64_t flags;
};

static ssize_t atomic_post(struct fid_ep *ep_fid, const struct atomic_args *a)
{
	struct iwfi_ep *ep = ep_of(ep_fid);
	struct iwcm_send_wr wr = { 0 };
	struct iwcm_sge sge;
	struct iwfi_req *req;
	uint64_t operand = 0, compare = 0;
	bool inject = a->flags & FI_INJECT;
	int ret;

	if (!op_valid(a->dt, a->op, a->kind))
		return -FI_EOPNOTSUPP;
	/* RFC 7306 §5.1: the target word is 8-octet aligned. */
	if (a->addr & 7)
		return -FI_EINVAL;
	if (a->op != FI_ATOMIC_READ)
		memcpy(&operand, a->operand, sizeof(operand));
	if (a->kind == ATOMIC_COMPARE)
		memcpy(&compare, a->compare, sizeof(compare));
	/* A result without a descriptor lands through the domain's local
	 * region (iwfi_mr.c). */
	if (a->kind != ATOMIC_WRITE && !a->result)
		return -FI_EINVAL;
	req = iwfi_req_new(
		ep, a->context,
		FI_ATOMIC | (a->kind == ATOMIC_WRITE ? FI_WRITE : FI_READ),
		!inject && (!ep->tx_selective || (a->flags & FI_COMPLETION)));
	if (!req)
		return -FI_ENOMEM;
	req->len = sizeof(uint64_t);
	if (a->kind == ATOMIC_WRITE) {
		sge.addr = (uintptr_t)&ep->scratch;
		sge.lkey = iwcm_mr_get_stag(ep->scratch_mr);
	} else {
		sge.addr = (uintptr_t)a->result;
		sge.lkey = iwfi_mr_lkey(ep->domain, a->result_desc);
		req->buf = a->result;
	}
	sge.length = sizeof(uint64_t);
	wr.wr_id = (uintptr_t)req;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IWCM_SEND_SIGNALED;
	if (a->flags & FI_FENCE)
		wr.send_flags |= IWCM_SEND_FENCE;
	wr.wr.atomic.remote_addr = a->addr;
	wr.wr.atomic.rkey = (uint32_t)a->key;
	switch (a->op) {
	case FI_SUM:
	case FI_ATOMIC_READ:
		wr.opcode = IWCM_WR_ATOMIC_FETCH_ADD;
		wr.wr.atomic.compare_add = operand;
		wr.wr.atomic.compare_add_mask = 0;
		break;
	case FI_ATOMIC_WRITE:
		wr.opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr.wr.atomic.compare_add_mask = 0;
		wr.wr.atomic.swap = operand;
		wr.wr.atomic.swap_mask = UINT64_MAX;
		break;
	default:
		wr.opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr.wr.atomic.compare_add = compare;
		wr.wr.atomic.compare_add_mask = UINT64_MAX;
		wr.wr.atomic.swap = operand;
		wr.wr.atomic.swap_mask = UINT64_MAX;
		break;
	}
	if (!req->report) {
		/* Nothing to report: unsignaled, an error completes with
		 * no request (iwcm_post_send(3)). */
		iwfi_req_free(req);
		req = NULL;
		wr.wr_id = 0;
		wr.send_flags &= ~IWCM_SEND_SIGNALED;
	}
	ret = iwfi_post_send(ep, &wr);
	if (ret)
		iwfi_req_free(req);
	return ret;
}

static ssize_t at_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			   uint64_t flags)
{
	struct atomic_args a = { .kind = ATOMIC_WRITE };

	if (msg->iov_count != 1 || msg->msg_iov[0].count != 1 ||
	    msg->rma_iov_count != 1 || msg->rma_iov[0].count != 1)
		return -FI_EINVAL;
	a.dt = msg->datatype;
	a.op = msg->op;
	a.operand = msg->msg_iov[0].addr;
	a.addr = msg->rma_iov[0].addr;
	a.key = msg->rma_iov[0].key;
	a.context = msg->context;
	a.flags = flags;
	return atomic_post(ep, &a);
}

static ssize_t at_write(struct fid_ep *ep, const void *buf, size_t count,
			void *desc, fi_addr_t dest_addr, uint64_t addr,
			uint64_t key, enum fi_datatype datatype, enum fi_op op,
			void *context)
{
	struct atomic_args a = {
		.kind = ATOMIC_WRITE,
		.dt = datatype,
		.op = op,
		.operand = buf,
		.addr = addr,
		.key = key,
		.context = context,
		.flags = ep_of(ep)->tx_op_flags,
	};

	if (count != 1)
		return -FI_EINVAL;
	return atomic_post(ep, &a);
}

static ssize_t at_writev(struct fid_ep *ep, const struct fi_ioc *iov,
			 void **desc, size_t count, fi_addr_t dest_addr,
			 uint64_t addr, uint64_t key, enum fi_datatype datatype,
			 enum fi_op op, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return at_write(ep, iov[0].addr, iov[0].count, desc ? desc[0] : NULL,
			dest_addr, addr, key, datatype, op, context);
}

static ssize_t at_inject(struct fid_ep *ep, const void *buf, size_t count,
			 fi_addr_t dest_addr, uint64_t addr, uint64_t key,
			 enum fi_datatype datatype, enum fi_op op)
{
	struct atomic_args a = {
		.kind = ATOMIC_WRITE,
		.dt = datatype,
		.op = op,
		.operand = buf,
		.addr = addr,
		.key = key,
		.flags = FI_INJECT,
	};

	if (count != 1)
		return -FI_EINVAL;
	return atomic_post(ep, &a);
}

static ssize_t at_readwrite(struct fid_ep *ep, const void *buf, size_t count,
			    void *desc, void *result, void *result_desc,
			    fi_addr_t dest_addr, uint64_t addr, uint64_t key,
			    enum fi_datatype datatype, enum fi_op op,
			    void *context)
{
	struct atomic_args a = {
		.kind = ATOMIC_FETCH,
		.dt = datatype,
		.op = op,
		.operand = buf,
		.result = result,
		.result_desc = result_desc,
		.addr = addr,
		.key = key,
		.context = context,
		.flags = ep_of(ep)->tx_op_flags,
	};

	if (count != 1)
		return -FI_EINVAL;
	return atomic_post(ep, &a);
}

static ssize_t at_readwritev(struct fid_ep *ep, const struct fi_ioc *iov,
			     void **desc, size_t count, struct fi_ioc *resultv,
			     void **result_desc, size_t result_count,
			     fi_addr_t dest_addr, uint64_t addr, uint64_t key,
			     enum fi_datatype datatype, enum fi_op op,
			     void *context)
{
	if (count != 1 || result_count != 1)
		return -FI_EINVAL;
	return at_readwrite(ep, iov[0].addr, iov[0].count, NULL,
			    resultv[0].addr,
			    result_desc ? result_desc[0] : NULL, dest_addr,
			    addr, key, datatype, op, context);
}

static ssize_t at_readwritemsg(struct fid_ep *ep,
			       const struct fi_msg_atomic *msg,
			       struct fi_ioc *resultv, void **result_desc,
			       size_t result_count, uint64_t flags)
{
	struct atomic_args a = { .kind = ATOMIC_FETCH };

	if (msg->iov_count > 1 || msg->rma_iov_count != 1 ||
	    result_count != 1 || resultv[0].count != 1)
		return -FI_EINVAL;
	a.dt = msg->datatype;
	a.op = msg->op;
	a.operand = msg->iov_count ? msg->msg_iov[0].addr : NULL;
	a.result = resultv[0].addr;
	a.result_desc = result_desc ? result_desc[0] : NULL;
	a.addr = msg->rma_iov[0].addr;
	a.key = msg->rma_iov[0].key;
	a.context = msg->context;
	a.flags = flags;
	return atomic_post(ep, &a);
}

static ssize_t at_compwrite(struct fid_ep *ep, const void *buf, size_t count,
			    void *desc, const void *compare, void *compare_desc,
			    void *result, void *result_desc,
			    fi_addr_t dest_addr, uint64_t addr, uint64_t key,
			    enum fi_datatype datatype, enum fi_op op,
			    void *context)
{
	struct atomic_args a = {
		.kind = ATOMIC_COMPARE,
		.dt = datatype,
		.op = op,
		.operand = buf,
		.compare = compare,
		.result = result,
		.result_desc = result_desc,
		.addr = addr,
		.key = key,
		.context = context,
		.flags = ep_of(ep)->tx_op_flags,
	};

	if (count != 1)
		return -FI_EINVAL;
	return atomic_post(ep, &a);
}

static ssize_t at_compwritev(struct fid_ep *ep, const struct fi_ioc *iov,
			     void **desc, size_t count,
			     const struct fi_ioc *comparev, void **compare_desc,
			     size_t compare_count, struct fi_ioc *resultv,
			     void **result_desc, size_t result_count,
			     fi_addr_t dest_addr, uint64_t addr, uint64_t key,
			     enum fi_datatype datatype, enum fi_op op,
			     void *context)
{
	if (count != 1 || compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	return at_compwrite(ep, iov[0].addr, iov[0].count, NULL,
			    comparev[0].addr, NULL, resultv[0].addr,
			    result_desc ? result_desc[0] : NULL, dest_addr,
			    addr, key, datatype, op, context);
}

static ssize_t at_compwritemsg(struct fid_ep *ep,
			       const struct fi_msg_atomic *msg,
			       const struct fi_ioc *comparev,
			       void **compare_desc, size_t compare_count,
			       struct fi_ioc *resultv, void **result_desc,
			       size_t result_count, uint64_t flags)
{
	struct atomic_args a = { .kind = ATOMIC_COMPARE };

	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	a.dt = msg->datatype;
	a.op = msg->op;
	a.operand = msg->msg_iov[0].addr;
	a.compare = comparev[0].addr;
	a.result = resultv[0].addr;
	a.result_desc = result_desc ? result_desc[0] : NULL;
	a.addr = msg->rma_iov[0].addr;
	a.key = msg->rma_iov[0].key;
	a.context = msg->context;
	a.flags = flags;
	return atomic_post(ep, &a);
}

static int valid(enum fi_datatype dt, enum fi_op op, enum atomic_kind kind,
		 size_t *count)
{
	if (!op_valid(dt, op, kind))
		return -FI_EOPNOTSUPP;
	if (count)
		*count = 1;
	return 0;
}

static int at_writevalid(struct fid_ep *ep, enum fi_datatype dt, enum fi_op op,
			 size_t *count)
{
	return valid(dt, op, ATOMIC_WRITE, count);
}

static int at_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			     enum fi_op op, size_t *count)
{
	return valid(dt, op, ATOMIC_FETCH, count);
}

static int at_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			     enum fi_op op, size_t *count)
{
	return valid(dt, op, ATOMIC_COMPARE, count);
}

const struct fi_ops_atomic iwfi_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = at_write,
	.writev = at_writev,
	.writemsg = at_writemsg,
	.inject = at_inject,
	.readwrite = at_readwrite,
	.readwritev = at_readwritev,
	.readwritemsg = at_readwritemsg,
	.compwrite = at_compwrite,
	.compwritev = at_compwritev,
	.compwritemsg = at_compwritemsg,
	.writevalid = at_writevalid,
	.readwritevalid = at_readwritevalid,
	.compwritevalid = at_compwritevalid,
};
