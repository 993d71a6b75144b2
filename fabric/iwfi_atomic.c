/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Atomics as native RFC 7306 atomics, one Atomic Request each, on the
 * naturally aligned 8-octet word that holds the operand.  RFC 7306 §5.1
 * gives both operations masks, which make them act on one field of the
 * word and leave the rest alone:
 *
 *  - FI_SUM is FetchAdd (§5.1.1) of the operand shifted to its field,
 *    with the Add Mask bit of the field's most significant bit set, so
 *    that the carry out of the field is dropped (64-bit: Add Mask 0,
 *    carries propagate over all 64 bits);
 *  - FI_BXOR is FetchAdd with every Add Mask bit set: each bit is a
 *    field of its own, whose sum modulo 2 is the exclusive or;
 *  - FI_ATOMIC_WRITE, FI_BOR, FI_BAND and FI_MSWAP are CmpSwap (§5.1.2)
 *    with a Compare Mask of 0, which always swaps, and a Swap Mask that
 *    names the bits to change: the field (write), the operand's set bits
 *    (or, to ones), its clear bits (and, to zeros), the compare operand
 *    (mswap);
 *  - FI_CSWAP is CmpSwap whose Compare Mask and Swap Mask are the field,
 *    and FI_ATOMIC_READ a FetchAdd of 0.
 *
 * The responder runs each on the whole word atomically (§5.3), so
 * operations on other fields of the same word, and writes to them, are
 * neither lost nor split.  The original value of the whole word comes
 * back (§5.2.2): a 64-bit fetching atomic has it placed in its result;
 * a narrower one has it placed in its request (req->word), and the
 * completion's hook (iwfi_cq.c) copies the field to the result when the
 * atomic succeeded, and only then.  Every other fi_op (FI_MIN, FI_MAX,
 * FI_PROD, the logical ones, the other compares) depends on the value
 * in ways neither mask expresses, and floating point is not carried.
 * The field's place in the word assumes that initiator and target
 * order bytes alike (the response is in the initiator's order, §5.1).
 * The target checks that the whole word lies in the region (RFC 5040
 * §7.2.2 Remote Protection Error otherwise): an operand in the last 4
 * octets of a region whose length is not a multiple of 8 fails with
 * FI_EACCES and touches nothing.  The operands travel in the Atomic
 * Request, so their buffers need no registration.
 */
#include "config.h"

#include <string.h>

#include "iwfi.h"

static struct iwfi_ep *ep_of(struct fid_ep *ep_fid)
{
	return iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
}

/* Octets of an integer datatype the atomics take, 0 for the others. */
size_t iwfi_atomic_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8:
	case FI_UINT8:
		return 1;
	case FI_INT16:
	case FI_UINT16:
		return 2;
	case FI_INT32:
	case FI_UINT32:
		return 4;
	case FI_INT64:
	case FI_UINT64:
		return 8;
	default:
		return 0;
	}
}

/* Whether the provider carries an atomic (fi_atomicvalid() and its
 * kin): the table of the header comment, every integer width alike. */
bool iwfi_atomic_valid(enum fi_datatype dt, enum fi_op op,
		       enum iwfi_atomic_kind kind)
{
	if (!iwfi_atomic_size(dt))
		return false;
	switch (kind) {
	case IWFI_ATOMIC_WRITE:
		return op == FI_SUM || op == FI_ATOMIC_WRITE || op == FI_BOR ||
		       op == FI_BAND || op == FI_BXOR;
	case IWFI_ATOMIC_FETCH:
		return op == FI_SUM || op == FI_ATOMIC_READ ||
		       op == FI_ATOMIC_WRITE || op == FI_BOR || op == FI_BAND ||
		       op == FI_BXOR;
	default:
		return op == FI_CSWAP || op == FI_MSWAP;
	}
}

/* An integer operand of size octets, zero-extended. */
static uint64_t operand_get(const void *p, size_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* The bit position of the field of size octets at addr in its word,
 * for initiator and target of the host's byte order. */
static unsigned int field_shift(uint64_t addr, size_t size)
{
	unsigned int off = (unsigned int)(addr & 7);

#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	return 8 * (8 - off - (unsigned int)size);
#else
	(void)size;
	return 8 * off;
#endif
}

/* Fill the atomic fields of wr for an operation on the datatype at addr
 * (naturally aligned, else -FI_EINVAL): the RFC 7306 operation, its
 * masks, and the address of the word that holds the operand. */
int iwfi_atomic_wr(struct iwcm_send_wr *wr, enum fi_datatype dt, enum fi_op op,
		   uint64_t addr, const void *operand, const void *compare)
{
	size_t size = iwfi_atomic_size(dt);
	unsigned int shift;
	uint64_t ones, field, v = 0;

	if (!size || (addr & (size - 1)))
		return -FI_EINVAL;
	shift = field_shift(addr, size);
	ones = size == 8 ? UINT64_MAX : (UINT64_C(1) << (8 * size)) - 1;
	field = ones << shift;
	if (op != FI_ATOMIC_READ)
		v = operand_get(operand, size) << shift;
	/* RFC 7306 §5.1: the target word is 8-octet aligned. */
	wr->wr.atomic.remote_addr = addr & ~UINT64_C(7);
	wr->wr.atomic.compare_add = 0;
	wr->wr.atomic.compare_add_mask = 0;
	wr->wr.atomic.swap = 0;
	wr->wr.atomic.swap_mask = 0;
	switch (op) {
	case FI_SUM:
		wr->opcode = IWCM_WR_ATOMIC_FETCH_ADD;
		wr->wr.atomic.compare_add = v;
		/* §5.1.1: the carry out of the field's top bit is lost. */
		if (size < 8)
			wr->wr.atomic.compare_add_mask =
				UINT64_C(1) << (shift + 8 * size - 1);
		return 0;
	case FI_BXOR:
		/* §5.1.1: a field per bit, no carry at all. */
		wr->opcode = IWCM_WR_ATOMIC_FETCH_ADD;
		wr->wr.atomic.compare_add = v;
		wr->wr.atomic.compare_add_mask = UINT64_MAX;
		return 0;
	case FI_ATOMIC_READ:
		wr->opcode = IWCM_WR_ATOMIC_FETCH_ADD;
		return 0;
	case FI_ATOMIC_WRITE:
		wr->opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr->wr.atomic.swap = v;
		wr->wr.atomic.swap_mask = field;
		return 0;
	case FI_BOR:
		wr->opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr->wr.atomic.swap = UINT64_MAX;
		wr->wr.atomic.swap_mask = v;
		return 0;
	case FI_BAND:
		wr->opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr->wr.atomic.swap_mask = ~v & field;
		return 0;
	case FI_MSWAP:
		/* fi_atomic(3): the compare operand's bits take the
		 * operand's. */
		wr->opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr->wr.atomic.swap = v;
		wr->wr.atomic.swap_mask = operand_get(compare, size) << shift;
		return 0;
	case FI_CSWAP:
		/* §5.1.2: the field is compared and swapped, the rest of the
		 * word neither. */
		wr->opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr->wr.atomic.compare_add = operand_get(compare, size) << shift;
		wr->wr.atomic.compare_add_mask = field;
		wr->wr.atomic.swap = v;
		wr->wr.atomic.swap_mask = field;
		return 0;
	default:
		return -FI_EOPNOTSUPP;
	}
}

/* The completion hook of a narrow fetching atomic: the field of the
 * original word, at the place it had in the target's word, into the
 * caller's result. */
static void narrow_done(struct iwfi_req *req)
{
	uint64_t v = req->word >> req->shift;
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (req->size) {
	case 1:
		memcpy(req->buf, &v8, 1);
		break;
	case 2:
		memcpy(req->buf, &v16, 2);
		break;
	default:
		memcpy(req->buf, &v32, 4);
		break;
	}
}

/* fi_query_atomic() of the domain: count 1 of the datatype when valid. */
int iwfi_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
		      enum fi_op op, struct fi_atomic_attr *attr,
		      uint64_t flags)
{
	enum iwfi_atomic_kind kind = IWFI_ATOMIC_WRITE;

	if (flags & FI_COMPARE_ATOMIC)
		kind = IWFI_ATOMIC_COMPARE;
	else if (flags & FI_FETCH_ATOMIC)
		kind = IWFI_ATOMIC_FETCH;
	if (!iwfi_atomic_valid(datatype, op, kind))
		return -FI_EOPNOTSUPP;
	attr->count = 1;
	attr->size = iwfi_atomic_size(datatype);
	return 0;
}

struct atomic_args {
	enum iwfi_atomic_kind kind;
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
	bool inject = a->flags & FI_INJECT;
	size_t size = iwfi_atomic_size(a->dt);
	bool narrow = a->kind != IWFI_ATOMIC_WRITE && size < 8;
	int ret;

	if (!iwfi_atomic_valid(a->dt, a->op, a->kind))
		return -FI_EOPNOTSUPP;
	if (a->op != FI_ATOMIC_READ && !a->operand)
		return -FI_EINVAL;
	if (a->kind == IWFI_ATOMIC_COMPARE && !a->compare)
		return -FI_EINVAL;
	/* A result without a descriptor lands through the domain's local
	 * region (iwfi_mr.c). */
	if (a->kind != IWFI_ATOMIC_WRITE && !a->result)
		return -FI_EINVAL;
	ret = iwfi_atomic_wr(&wr, a->dt, a->op, a->addr, a->operand,
			     a->compare);
	if (ret)
		return ret;
	req = iwfi_req_new(
		ep, a->context,
		FI_ATOMIC | (a->kind == IWFI_ATOMIC_WRITE ? FI_WRITE : FI_READ),
		!inject && (!ep->tx_selective || (a->flags & FI_COMPLETION)));
	if (!req)
		return -FI_ENOMEM;
	req->len = sizeof(uint64_t);
	if (a->kind == IWFI_ATOMIC_WRITE) {
		sge.addr = (uintptr_t)&ep->scratch;
		sge.lkey = iwcm_mr_get_stag(ep->scratch_mr);
	} else if (narrow) {
		/* The word lands in the request; its field goes to the
		 * result once the atomic completed. */
		req->len = size;
		req->buf = a->result;
		req->size = (unsigned int)size;
		req->shift = field_shift(a->addr, size);
		req->on_done = narrow_done;
		sge.addr = (uintptr_t)&req->word;
		sge.lkey = iwfi_mr_lkey(ep->domain, NULL);
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
	wr.wr.atomic.rkey = (uint32_t)a->key;
	if (!req->report && !narrow) {
		/* Nothing to report: unsignaled, an error completes with
		 * no request (iwcm_post_send(3)).  A narrow fetching atomic
		 * keeps its request, which holds the word until its hook
		 * ran. */
		iwfi_req_free(req);
		req = NULL;
		wr.wr_id = 0;
		wr.send_flags &= ~IWCM_SEND_SIGNALED;
	}
	ret = iwfi_post_send(ep, &wr);
	if (ret) {
		iwfi_req_free(req);
		return ret;
	}
	if (narrow)
		__atomic_fetch_add(a->kind == IWFI_ATOMIC_FETCH ?
					   &ep->tx_narrow_fetch :
					   &ep->tx_narrow_compare,
				   1, __ATOMIC_RELAXED);
	return 0;
}

static ssize_t at_writemsg(struct fid_ep *ep, const struct fi_msg_atomic *msg,
			   uint64_t flags)
{
	struct atomic_args a = { .kind = IWFI_ATOMIC_WRITE };

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
		.kind = IWFI_ATOMIC_WRITE,
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
		.kind = IWFI_ATOMIC_WRITE,
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
		.kind = IWFI_ATOMIC_FETCH,
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
	struct atomic_args a = { .kind = IWFI_ATOMIC_FETCH };

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
		.kind = IWFI_ATOMIC_COMPARE,
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
	struct atomic_args a = { .kind = IWFI_ATOMIC_COMPARE };

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

static int valid(enum fi_datatype dt, enum fi_op op, enum iwfi_atomic_kind kind,
		 size_t *count)
{
	if (!iwfi_atomic_valid(dt, op, kind))
		return -FI_EOPNOTSUPP;
	if (count)
		*count = 1;
	return 0;
}

int iwfi_atomic_writevalid(struct fid_ep *ep, enum fi_datatype dt,
			   enum fi_op op, size_t *count)
{
	return valid(dt, op, IWFI_ATOMIC_WRITE, count);
}

int iwfi_atomic_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			       enum fi_op op, size_t *count)
{
	return valid(dt, op, IWFI_ATOMIC_FETCH, count);
}

int iwfi_atomic_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			       enum fi_op op, size_t *count)
{
	return valid(dt, op, IWFI_ATOMIC_COMPARE, count);
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
	.writevalid = iwfi_atomic_writevalid,
	.readwritevalid = iwfi_atomic_readwritevalid,
	.compwritevalid = iwfi_atomic_compwritevalid,
};
