/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * RMA: RDMA Read and RDMA Write (RFC 5040 §4.4, §4.3), and writedata as
 * an RDMA Write followed by an Immediate Data message (RFC 7306 §6),
 * which consumes a receive at the target (FI_RX_CQ_DATA).  The remote
 * address is the Tagged Offset, the key the STag.  A Read Request names
 * one Data Sink (RFC 5040 §4.4), so a read into several local buffers is
 * a Read Request per buffer, each for the next part of the remote range.
 *
 * A write with FI_DELIVERY_COMPLETE (what RDM endpoints offer, for
 * Open MPI's btl ofi) reports its completion only once a later
 * zero-length Read Request has completed (iwfi_cq.c): the Read Response
 * is not placed here until the Write's payload is placed at the peer
 * (RFC 5040 §5.5 and Appendix B, RDMA Write then RDMA Read), so the
 * completion means the data is in the target's memory.
 */
#include "config.h"

#include "iwfi.h"

static struct iwfi_ep *ep_of(struct fid_ep *ep_fid)
{
	return iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
}

/*
 * The Read Requests of a read into sge[0..count): one per non-empty
 * buffer (one without any if all are), in order over the remote range
 * from raddr, linked (rma_post() puts FENCE on the first and the request
 * on the last).  Returns how many.
 */
static int rma_read_parts(struct iwcm_send_wr *wr, struct iwcm_sge *sge,
			  size_t count, uint64_t raddr, uint32_t rkey)
{
	int n = 0;

	for (size_t i = 0; i < count; i++) {
		if (!sge[i].length)
			continue;
		wr[n] = (struct iwcm_send_wr){ .sg_list = &sge[i],
					       .num_sge = 1 };
		wr[n].wr.rdma.remote_addr = raddr;
		raddr += sge[i].length;
		n++;
	}
	if (!n)
		wr[n++] = (struct iwcm_send_wr){ .wr.rdma.remote_addr = raddr };
	for (int i = 0; i < n; i++) {
		wr[i].opcode = IWCM_WR_RDMA_READ;
		wr[i].wr.rdma.rkey = rkey;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	return n;
}

static ssize_t rma_post(struct fid_ep *ep_fid, const struct fi_msg_rma *msg,
			uint64_t flags, bool read)
{
	struct iwfi_ep *ep = ep_of(ep_fid);
	struct iwcm_sge sge[IWFI_IOV_LIMIT];
	struct iwcm_send_wr parts[IWFI_IOV_LIMIT];
	struct iwcm_send_wr wr = { 0 }, *last = &wr;
	bool inject = flags & FI_INJECT, copy;
	struct iwfi_req *req;
	size_t len, i;
	int ret;

	if (msg->rma_iov_count != 1)
		return -FI_EINVAL;
	ret = iwfi_sgl(ep->domain, sge, msg->msg_iov, msg->desc, msg->iov_count,
		       &len);
	if (ret)
		return ret;
	if (len > msg->rma_iov[0].len)
		return -FI_EINVAL;
	/* A small write without a descriptor is copied at post time; any
	 * other buffer without one is reached through the domain's local
	 * region (iwfi_mr.c). */
	copy = inject || (!read && !msg->desc && len <= IWFI_INJECT_SIZE);
	for (i = 0; !read && msg->desc && i < msg->iov_count; i++)
		if (!msg->desc[i] && len <= IWFI_INJECT_SIZE)
			copy = true;
	/* A read cannot be injected; its parts must all fit the send
	 * queue and the remote address space. */
	if (read && (inject || msg->rma_iov[0].addr > UINT64_MAX - len))
		return -FI_EINVAL;
	if (read) {
		int n = rma_read_parts(parts, sge, msg->iov_count,
				       msg->rma_iov[0].addr,
				       (uint32_t)msg->rma_iov[0].key);

		if ((size_t)n > ep->info->tx_attr->size)
			return -FI_EINVAL;
		last = &parts[n - 1];
	}
	if (copy && len > IWFI_INJECT_SIZE)
		return -FI_EINVAL;
	req = iwfi_req_new(
		ep, msg->context, FI_RMA | (read ? FI_READ : FI_WRITE),
		!inject && (!ep->tx_selective || (flags & FI_COMPLETION)));
	if (!req)
		return -FI_ENOMEM;
	req->len = len;
	if (!read) {
		wr.sg_list = sge;
		wr.num_sge = (int)msg->iov_count;
		wr.opcode = IWCM_WR_RDMA_WRITE;
		if (copy)
			wr.send_flags |= IWCM_SEND_INLINE;
		if (flags & FI_REMOTE_CQ_DATA) {
			wr.opcode = IWCM_WR_RDMA_WRITE_WITH_IMM;
			wr.imm_data = msg->data;
		}
		wr.wr.rdma.remote_addr = msg->rma_iov[0].addr;
		wr.wr.rdma.rkey = (uint32_t)msg->rma_iov[0].key;
	}
	if (flags & FI_FENCE)
		(read ? parts : &wr)->send_flags |= IWCM_SEND_FENCE;
	if (!read && (flags & FI_DELIVERY_COMPLETE) && req->report) {
		req->dc_hold = true;
		req->raddr = msg->rma_iov[0].addr;
		req->rkey = (uint32_t)msg->rma_iov[0].key;
	}
	/* Nothing to report: unsignaled, an error completes with no
	 * request (iwcm_post_send(3)).  Parts before the last report
	 * nothing either: Read Responses come in order (RFC 5040 §5.5),
	 * so the last one's completion says the whole read is done. */
	if (req->report) {
		last->wr_id = (uintptr_t)req;
		last->send_flags |= IWCM_SEND_SIGNALED;
	} else {
		iwfi_req_free(req);
		req = NULL;
	}
	ret = iwfi_post_send(ep, read ? parts : &wr);
	if (ret)
		iwfi_req_free(req);
	return ret;
}

static ssize_t rma_readmsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			   uint64_t flags)
{
	return rma_post(ep, msg, flags, true);
}

static ssize_t rma_writemsg(struct fid_ep *ep, const struct fi_msg_rma *msg,
			    uint64_t flags)
{
	return rma_post(ep, msg, flags, false);
}

static ssize_t rma_one(struct fid_ep *ep, void *buf, size_t len, void *desc,
		       uint64_t addr, uint64_t key, void *context,
		       uint64_t data, uint64_t flags, bool read)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };
	struct fi_rma_iov rma = { .addr = addr, .len = len, .key = key };
	struct fi_msg_rma msg = {
		.msg_iov = &iov,
		.desc = desc || !(flags & FI_INJECT) ? &desc : NULL,
		.iov_count = 1,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = context,
		.data = data,
	};

	return rma_post(ep, &msg, flags, read);
}

static ssize_t rma_read(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src_addr, uint64_t addr, uint64_t key,
			void *context)
{
	return rma_one(ep, buf, len, desc, addr, key, context, 0,
		       ep_of(ep)->tx_op_flags, true);
}

/* An iovec list to one remote range (fi_readv, fi_writev). */
static ssize_t rma_vec(struct fid_ep *ep, const struct iovec *iov, void **desc,
		       size_t count, uint64_t addr, uint64_t key, void *context,
		       bool read)
{
	size_t len = 0, i;

	for (i = 0; i < count; i++)
		len += iov[i].iov_len;
	struct fi_rma_iov rma = { .addr = addr, .len = len, .key = key };
	struct fi_msg_rma msg = {
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.context = context,
	};

	return rma_post(ep, &msg, ep_of(ep)->tx_op_flags, read);
}

static ssize_t rma_readv(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t src_addr,
			 uint64_t addr, uint64_t key, void *context)
{
	return rma_vec(ep, iov, desc, count, addr, key, context, true);
}

static ssize_t rma_write(struct fid_ep *ep, const void *buf, size_t len,
			 void *desc, fi_addr_t dest_addr, uint64_t addr,
			 uint64_t key, void *context)
{
	return rma_one(ep, (void *)buf, len, desc, addr, key, context, 0,
		       ep_of(ep)->tx_op_flags, false);
}

static ssize_t rma_writev(struct fid_ep *ep, const struct iovec *iov,
			  void **desc, size_t count, fi_addr_t dest_addr,
			  uint64_t addr, uint64_t key, void *context)
{
	return rma_vec(ep, iov, desc, count, addr, key, context, false);
}

static ssize_t rma_inject(struct fid_ep *ep, const void *buf, size_t len,
			  fi_addr_t dest_addr, uint64_t addr, uint64_t key)
{
	return rma_one(ep, (void *)buf, len, NULL, addr, key, NULL, 0,
		       FI_INJECT, false);
}

static ssize_t rma_writedata(struct fid_ep *ep, const void *buf, size_t len,
			     void *desc, uint64_t data, fi_addr_t dest_addr,
			     uint64_t addr, uint64_t key, void *context)
{
	return rma_one(ep, (void *)buf, len, desc, addr, key, context, data,
		       ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA, false);
}

static ssize_t rma_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			      uint64_t data, fi_addr_t dest_addr, uint64_t addr,
			      uint64_t key)
{
	return rma_one(ep, (void *)buf, len, NULL, addr, key, NULL, data,
		       FI_INJECT | FI_REMOTE_CQ_DATA, false);
}

const struct fi_ops_rma iwfi_rma_ops = {
	.size = sizeof(struct fi_ops_rma),
	.read = rma_read,
	.readv = rma_readv,
	.readmsg = rma_readmsg,
	.write = rma_write,
	.writev = rma_writev,
	.writemsg = rma_writemsg,
	.inject = rma_inject,
	.writedata = rma_writedata,
	.injectdata = rma_injectdata,
};
