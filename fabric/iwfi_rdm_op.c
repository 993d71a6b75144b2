/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * One operation of an RDM endpoint posted on the connection to its peer,
 * an FI_EP_MSG endpoint of the provider: RDMA Write and Read
 * (iwfi_rma.c), RFC 7306 atomics (iwfi_atomic.c).  An FI_DELIVERY_COMPLETE
 * write ends with a zero-length Read (iwfi_rma.c) so that its completion
 * means the data is placed at the target.
 */
#include "config.h"

#include "iwfi_rdm.h"

ssize_t iwfi_rdm_op_post(struct fid_ep *ep, const struct iwfi_rdm_op *op)
{
	struct iovec iov = { .iov_base = op->copy ? op->copy : op->buf,
			     .iov_len = op->len };
	void *desc = op->desc;
	struct fi_rma_iov rma = { .addr = op->addr,
				  .len = op->len,
				  .key = op->key };
	struct fi_msg_rma msg = {
		.msg_iov = &iov,
		.desc = &desc,
		.iov_count = 1,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = op->context,
		.data = op->data,
	};
	struct fi_ioc ioc = { .addr = (void *)&op->operand, .count = 1 };
	struct fi_ioc cmp = { .addr = (void *)&op->compare, .count = 1 };
	struct fi_ioc res = { .addr = op->result, .count = 1 };
	void *res_desc = op->result_desc;
	struct fi_rma_ioc rioc = { .addr = op->addr,
				   .count = 1,
				   .key = op->key };
	struct fi_msg_atomic amsg = {
		.msg_iov = &ioc,
		.desc = NULL,
		.iov_count = 1,
		.rma_iov = &rioc,
		.rma_iov_count = 1,
		.datatype = op->dt,
		.op = op->op,
		.context = op->context,
	};

	switch (op->kind) {
	case IWFI_RDM_OP_WRITE:
		return fi_writemsg(ep, &msg, op->flags);
	case IWFI_RDM_OP_READ:
		return fi_readmsg(ep, &msg, op->flags);
	case IWFI_RDM_OP_ATOMIC:
		return fi_atomicmsg(ep, &amsg, op->flags);
	case IWFI_RDM_OP_FETCH:
		/* FI_ATOMIC_READ has no operand. */
		if (op->op == FI_ATOMIC_READ)
			amsg.iov_count = 0;
		return fi_fetch_atomicmsg(ep, &amsg, &res, &res_desc, 1,
					  op->flags);
	default:
		return fi_compare_atomicmsg(ep, &amsg, &cmp, NULL, 1, &res,
					    &res_desc, 1, op->flags);
	}
}
