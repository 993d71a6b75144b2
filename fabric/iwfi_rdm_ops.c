/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The data operations of an RDM endpoint: RMA and atomics to a peer of
 * the address vector, each one buffer (iov_limit 1) and one remote
 * range, handed to the peer's connection (iwfi_rdm_peer.c) as an
 * iwfi_rdm_op.  What an operation becomes on the wire is the MSG
 * endpoint's business: RDMA Write and Read (iwfi_rma.c), RFC 7306
 * atomics (iwfi_atomic.c).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "iwfi_rdm.h"

static struct iwfi_rdm *rdm_of(struct fid_ep *ep)
{
	return iwfi_container_of(ep, struct iwfi_rdm, ep_fid);
}

/* The flags of an operation without flags of its own: the endpoint's
 * (fi_endpoint(3), FI_SETOPSFLAG). */
static uint64_t tx_flags(struct fid_ep *ep)
{
	return rdm_of(ep)->tx_op_flags;
}

static ssize_t rdm_rma(struct fid_ep *ep, enum iwfi_rdm_kind kind,
		       const void *buf, size_t len, void *desc, fi_addr_t dest,
		       uint64_t addr, uint64_t key, void *context,
		       uint64_t data, uint64_t flags)
{
	struct iwfi_rdm_op op = {
		.kind = kind,
		.buf = (void *)buf,
		.len = len,
		.desc = desc,
		.addr = addr,
		.key = key,
		.context = context,
		.flags = flags,
		.data = data,
	};

	if (kind == IWFI_RDM_OP_READ && (flags & FI_INJECT))
		return -FI_EINVAL;
	if ((flags & FI_INJECT) && len > IWFI_INJECT_SIZE)
		return -FI_EINVAL;
	return iwfi_rdm_submit(rdm_of(ep), dest, &op);
}

static ssize_t rdm_rma_msg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   uint64_t flags, enum iwfi_rdm_kind kind)
{
	if (msg->iov_count > 1 || msg->rma_iov_count != 1)
		return -FI_EINVAL;
	if (msg->iov_count && msg->msg_iov[0].iov_len > msg->rma_iov[0].len)
		return -FI_EINVAL;
	return rdm_rma(ep, kind,
		       msg->iov_count ? msg->msg_iov[0].iov_base : NULL,
		       msg->iov_count ? msg->msg_iov[0].iov_len : 0,
		       msg->desc ? msg->desc[0] : NULL, msg->addr,
		       msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->context,
		       msg->data, flags);
}

static ssize_t rdm_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src, uint64_t addr, uint64_t key,
			void *context)
{
	return rdm_rma(ep, IWFI_RDM_OP_READ, buf, len, desc, src, addr, key,
		       context, 0, tx_flags(ep));
}

static ssize_t rdm_readv(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t src,
			 uint64_t addr, uint64_t key, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return rdm_rma(ep, IWFI_RDM_OP_READ, count ? iov[0].iov_base : NULL,
		       count ? iov[0].iov_len : 0, desc ? desc[0] : NULL, src,
		       addr, key, context, 0, tx_flags(ep));
}

static ssize_t rdm_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   uint64_t flags)
{
	return rdm_rma_msg(ep, msg, flags, IWFI_RDM_OP_READ);
}

static ssize_t rdm_write(struct fid_ep *ep, const void *buf, size_t len,
			 void *desc, fi_addr_t dest, uint64_t addr,
			 uint64_t key, void *context)
{
	return rdm_rma(ep, IWFI_RDM_OP_WRITE, buf, len, desc, dest, addr, key,
		       context, 0, tx_flags(ep));
}

static ssize_t rdm_writev(struct fid_ep *ep, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest,
			  uint64_t addr, uint64_t key, void *context)
{
	if (count > 1)
		return -FI_EINVAL;
	return rdm_rma(ep, IWFI_RDM_OP_WRITE, count ? iov[0].iov_base : NULL,
		       count ? iov[0].iov_len : 0, desc ? desc[0] : NULL, dest,
		       addr, key, context, 0, tx_flags(ep));
}

static ssize_t rdm_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    uint64_t flags)
{
	return rdm_rma_msg(ep, msg, flags, IWFI_RDM_OP_WRITE);
}

static ssize_t rdm_inject(struct fid_ep *ep, const void *buf, size_t len,
			  fi_addr_t dest, uint64_t addr, uint64_t key)
{
	return rdm_rma(ep, IWFI_RDM_OP_WRITE, buf, len, NULL, dest, addr, key,
		       NULL, 0, FI_INJECT);
}

static ssize_t rdm_writedata(struct fid_ep *ep, const void *buf, size_t len,
			     void *desc, uint64_t data, fi_addr_t dest,
			     uint64_t addr, uint64_t key, void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			      uint64_t data, fi_addr_t dest, uint64_t addr,
			      uint64_t key)
{
	return -FI_ENOSYS;
}

const struct fi_ops_rma iwfi_rdm_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = rdm_read,
	.readv = rdm_readv,
	.readmsg = rdm_readmsg,
	.write = rdm_write,
	.writev = rdm_writev,
	.writemsg = rdm_writemsg,
	.inject = rdm_inject,
	.writedata = rdm_writedata,
	.injectdata = rdm_injectdata,
};

/* The atomics the connection carries (iwfi_atomic.c). */
static bool at_valid(enum fi_datatype dt, enum fi_op op,
		     enum iwfi_rdm_kind kind)
{
	switch (kind) {
	case IWFI_RDM_OP_ATOMIC:
		return iwfi_atomic_valid(dt, op, IWFI_ATOMIC_WRITE);
	case IWFI_RDM_OP_FETCH:
		return iwfi_atomic_valid(dt, op, IWFI_ATOMIC_FETCH);
	default:
		return iwfi_atomic_valid(dt, op, IWFI_ATOMIC_COMPARE);
	}
}

static ssize_t rdm_at(struct fid_ep *ep, enum iwfi_rdm_kind kind,
		      const void *buf, size_t count, const void *compare,
		      void *result, void *result_desc, fi_addr_t dest,
		      uint64_t addr, uint64_t key, enum fi_datatype dt,
		      enum fi_op op, void *context, uint64_t flags)
{
	struct iwfi_rdm_op o = {
		.kind = kind,
		.addr = addr,
		.key = key,
		.result = result,
		.result_desc = result_desc,
		.dt = dt,
		.op = op,
		.context = context,
		.flags = flags,
	};

	if (count != 1)
		return -FI_EINVAL;
	if (!at_valid(dt, op, kind)) {
		char opname[32];

		/* An application that did not ask fi_atomicvalid() (Open
		 * MPI's btl ofi) learns here what it asked for. */
		snprintf(opname, sizeof(opname), "%s",
			 fi_tostr(&op, FI_TYPE_ATOMIC_OP));
		IWFI_WARN(FI_LOG_EP_DATA,
			  "rdm %p: %s atomic %s on %s not carried\n",
			  (void *)ep,
			  kind == IWFI_RDM_OP_ATOMIC ? "non-fetching" :
			  kind == IWFI_RDM_OP_FETCH  ? "fetching" :
						       "compare",
			  opname, fi_tostr(&dt, FI_TYPE_ATOMIC_TYPE));
		return -FI_EOPNOTSUPP;
	}
	if (kind != IWFI_RDM_OP_ATOMIC && !result)
		return -FI_EINVAL;
	/* The operands are taken now, as many octets as the datatype has
	 * (iwfi_atomic.c reads them back from the start): the caller may
	 * reuse them. */
	if (op != FI_ATOMIC_READ && buf)
		memcpy(&o.operand, buf, iwfi_atomic_size(dt));
	else if (op != FI_ATOMIC_READ)
		return -FI_EINVAL;
	if (kind == IWFI_RDM_OP_COMPARE) {
		if (!compare)
			return -FI_EINVAL;
		memcpy(&o.compare, compare, iwfi_atomic_size(dt));
	}
	return iwfi_rdm_submit(rdm_of(ep), dest, &o);
}

static ssize_t rdm_at_write(struct fid_ep *ep, const void *buf, size_t count,
			    void *desc, fi_addr_t dest, uint64_t addr,
			    uint64_t key, enum fi_datatype dt, enum fi_op op,
			    void *context)
{
	return rdm_at(ep, IWFI_RDM_OP_ATOMIC, buf, count, NULL, NULL, NULL,
		      dest, addr, key, dt, op, context, tx_flags(ep));
}

static ssize_t rdm_at_writev(struct fid_ep *ep, const struct fi_ioc *iov,
			     void **desc, size_t count, fi_addr_t dest,
			     uint64_t addr, uint64_t key, enum fi_datatype dt,
			     enum fi_op op, void *context)
{
	if (count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_ATOMIC, iov[0].addr, iov[0].count, NULL,
		      NULL, NULL, dest, addr, key, dt, op, context,
		      tx_flags(ep));
}

static ssize_t rdm_at_writemsg(struct fid_ep *ep,
			       const struct fi_msg_atomic *msg, uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_ATOMIC, msg->msg_iov[0].addr,
		      msg->msg_iov[0].count, NULL, NULL, NULL, msg->addr,
		      msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->datatype,
		      msg->op, msg->context, flags);
}

static ssize_t rdm_at_inject(struct fid_ep *ep, const void *buf, size_t count,
			     fi_addr_t dest, uint64_t addr, uint64_t key,
			     enum fi_datatype dt, enum fi_op op)
{
	return rdm_at(ep, IWFI_RDM_OP_ATOMIC, buf, count, NULL, NULL, NULL,
		      dest, addr, key, dt, op, NULL, FI_INJECT);
}

static ssize_t rdm_at_readwrite(struct fid_ep *ep, const void *buf,
				size_t count, void *desc, void *result,
				void *result_desc, fi_addr_t dest,
				uint64_t addr, uint64_t key,
				enum fi_datatype dt, enum fi_op op,
				void *context)
{
	return rdm_at(ep, IWFI_RDM_OP_FETCH, buf, count, NULL, result,
		      result_desc, dest, addr, key, dt, op, context,
		      tx_flags(ep));
}

static ssize_t rdm_at_readwritev(struct fid_ep *ep, const struct fi_ioc *iov,
				 void **desc, size_t count,
				 struct fi_ioc *resultv, void **result_desc,
				 size_t result_count, fi_addr_t dest,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype dt, enum fi_op op,
				 void *context)
{
	if (count != 1 || result_count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_FETCH, iov[0].addr, iov[0].count, NULL,
		      resultv[0].addr, result_desc ? result_desc[0] : NULL,
		      dest, addr, key, dt, op, context, tx_flags(ep));
}

static ssize_t rdm_at_readwritemsg(struct fid_ep *ep,
				   const struct fi_msg_atomic *msg,
				   struct fi_ioc *resultv, void **result_desc,
				   size_t result_count, uint64_t flags)
{
	if (msg->iov_count > 1 || msg->rma_iov_count != 1 ||
	    result_count != 1 || resultv[0].count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_FETCH,
		      msg->iov_count ? msg->msg_iov[0].addr : NULL, 1, NULL,
		      resultv[0].addr, result_desc ? result_desc[0] : NULL,
		      msg->addr, msg->rma_iov[0].addr, msg->rma_iov[0].key,
		      msg->datatype, msg->op, msg->context, flags);
}

static ssize_t
rdm_at_compwrite(struct fid_ep *ep, const void *buf, size_t count, void *desc,
		 const void *compare, void *compare_desc, void *result,
		 void *result_desc, fi_addr_t dest, uint64_t addr, uint64_t key,
		 enum fi_datatype dt, enum fi_op op, void *context)
{
	return rdm_at(ep, IWFI_RDM_OP_COMPARE, buf, count, compare, result,
		      result_desc, dest, addr, key, dt, op, context,
		      tx_flags(ep));
}

static ssize_t rdm_at_compwritev(
	struct fid_ep *ep, const struct fi_ioc *iov, void **desc, size_t count,
	const struct fi_ioc *comparev, void **compare_desc,
	size_t compare_count, struct fi_ioc *resultv, void **result_desc,
	size_t result_count, fi_addr_t dest, uint64_t addr, uint64_t key,
	enum fi_datatype dt, enum fi_op op, void *context)
{
	if (count != 1 || compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_COMPARE, iov[0].addr, iov[0].count,
		      comparev[0].addr, resultv[0].addr,
		      result_desc ? result_desc[0] : NULL, dest, addr, key, dt,
		      op, context, tx_flags(ep));
}

static ssize_t rdm_at_compwritemsg(struct fid_ep *ep,
				   const struct fi_msg_atomic *msg,
				   const struct fi_ioc *comparev,
				   void **compare_desc, size_t compare_count,
				   struct fi_ioc *resultv, void **result_desc,
				   size_t result_count, uint64_t flags)
{
	if (msg->iov_count != 1 || msg->rma_iov_count != 1 ||
	    compare_count != 1 || result_count != 1)
		return -FI_EINVAL;
	return rdm_at(ep, IWFI_RDM_OP_COMPARE, msg->msg_iov[0].addr,
		      msg->msg_iov[0].count, comparev[0].addr, resultv[0].addr,
		      result_desc ? result_desc[0] : NULL, msg->addr,
		      msg->rma_iov[0].addr, msg->rma_iov[0].key, msg->datatype,
		      msg->op, msg->context, flags);
}

const struct fi_ops_atomic iwfi_rdm_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = rdm_at_write,
	.writev = rdm_at_writev,
	.writemsg = rdm_at_writemsg,
	.inject = rdm_at_inject,
	.readwrite = rdm_at_readwrite,
	.readwritev = rdm_at_readwritev,
	.readwritemsg = rdm_at_readwritemsg,
	.compwrite = rdm_at_compwrite,
	.compwritev = rdm_at_compwritev,
	.compwritemsg = rdm_at_compwritemsg,
	.writevalid = iwfi_atomic_writevalid,
	.readwritevalid = iwfi_atomic_readwritevalid,
	.compwritevalid = iwfi_atomic_compwritevalid,
};

/* No FI_MSG on RDM endpoints: fi_getinfo() does not offer it. */
static ssize_t rdm_no_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			   fi_addr_t src, void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_recvv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t src,
			    void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_recvmsg(struct fid_ep *ep, const struct fi_msg *msg,
			      uint64_t flags)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_send(struct fid_ep *ep, const void *buf, size_t len,
			   void *desc, fi_addr_t dest, void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_sendv(struct fid_ep *ep, const struct iovec *iov,
			    void **desc, size_t count, fi_addr_t dest,
			    void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_sendmsg(struct fid_ep *ep, const struct fi_msg *msg,
			      uint64_t flags)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_inject(struct fid_ep *ep, const void *buf, size_t len,
			     fi_addr_t dest)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_senddata(struct fid_ep *ep, const void *buf, size_t len,
			       void *desc, uint64_t data, fi_addr_t dest,
			       void *context)
{
	return -FI_ENOSYS;
}

static ssize_t rdm_no_injectdata(struct fid_ep *ep, const void *buf, size_t len,
				 uint64_t data, fi_addr_t dest)
{
	return -FI_ENOSYS;
}

const struct fi_ops_msg iwfi_rdm_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = rdm_no_recv,
	.recvv = rdm_no_recvv,
	.recvmsg = rdm_no_recvmsg,
	.send = rdm_no_send,
	.sendv = rdm_no_sendv,
	.sendmsg = rdm_no_sendmsg,
	.inject = rdm_no_inject,
	.senddata = rdm_no_senddata,
	.injectdata = rdm_no_injectdata,
};
