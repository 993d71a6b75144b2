/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Send and receive (RFC 5040 §5.3: Send messages take the oldest posted
 * receive).  libfabric posts receives as soon as an endpoint is enabled,
 * before its connection exists, while an iwcm QP is made from the
 * established connection: such receives are held here, in order, and
 * queued by iwcm_create_qp() itself (iwfi_msg_chain_held()), those beyond
 * the receive queue posted after it (iwfi_msg_post_held()).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iwfi.h"

/* Scatter/gather entries of count iovecs; their total length in *len.
 * A buffer without a descriptor gets the domain's local lkey
 * (iwfi_mr.c). */
int iwfi_sgl(struct iwfi_domain *dom, struct iwcm_sge *sge,
	     const struct iovec *iov, void **desc, size_t count, size_t *len)
{
	size_t i, total = 0;

	if (count > IWFI_IOV_LIMIT)
		return -FI_EINVAL;
	for (i = 0; i < count; i++) {
		if (iov[i].iov_len > UINT32_MAX)
			return -FI_EINVAL;
		sge[i].addr = (uintptr_t)iov[i].iov_base;
		sge[i].length = (uint32_t)iov[i].iov_len;
		sge[i].lkey = iwfi_mr_lkey(dom, desc ? desc[i] : NULL);
		total += iov[i].iov_len;
	}
	if (total > IWFI_MAX_MSG_SIZE)
		return -FI_EMSGSIZE;
	*len = total;
	return 0;
}

/* How long a send waits for the peer's next receive credit before it
 * says -FI_EAGAIN (automatic progress). */
#define IWFI_CREDIT_WAIT_NS (10 * 1000 * 1000)

static uint64_t iwfi_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Count the work requests of one operation by kind, for the line
 * ep_close() logs: what went as RDMA and what as Sends. */
static void count_posted(struct iwfi_ep *ep, const struct iwcm_send_wr *wr)
{
	for (; wr; wr = wr->next) {
		switch (wr->opcode) {
		case IWCM_WR_RDMA_WRITE:
		case IWCM_WR_RDMA_WRITE_WITH_IMM:
			ep->tx_writes++;
			break;
		case IWCM_WR_RDMA_READ:
			/* One that moves nothing only orders (iwfi_rma.c). */
			if (wr->num_sge)
				ep->tx_reads++;
			else
				ep->tx_zreads++;
			break;
		case IWCM_WR_ATOMIC_FETCH_ADD:
		case IWCM_WR_ATOMIC_CMP_SWP:
		case IWCM_WR_ATOMIC_SWAP:
			ep->tx_atomics++;
			break;
		default:
			ep->tx_sends++;
			break;
		}
	}
}

/* Whether an operation's work requests wait for a response: an RDMA
 * Read Request (RFC 5040 §4.4) or an atomic (RFC 7306). */
static bool waits_response(const struct iwcm_send_wr *wr)
{
	for (; wr; wr = wr->next)
		if (wr->opcode == IWCM_WR_RDMA_READ ||
		    wr->opcode == IWCM_WR_ATOMIC_FETCH_ADD ||
		    wr->opcode == IWCM_WR_ATOMIC_CMP_SWP ||
		    wr->opcode == IWCM_WR_ATOMIC_SWAP)
			return true;
	return false;
}

/*
 * Post a send work request on ep's QP, or a list of them that makes one
 * operation (a Read into several buffers, iwfi_rma.c): all or none, the
 * request (wr_id) on one of them, the others with none.
 */
int iwfi_post_send(struct iwfi_ep *ep, struct iwcm_send_wr *wr)
{
	struct iwfi_req *req = NULL;
	const struct iwcm_send_wr *w;
	struct iwcm_send_wr cwr, *head, *bad = NULL;
	struct iwcm_sge csge;
	struct iwcm_qp *qp;
	uint64_t until = 0, cval = 0;
	int ret, n = 0;

	for (w = wr; w; w = w->next, n++)
		if (w->wr_id)
			req = (void *)(uintptr_t)w->wr_id;

	for (int tries = 0;; tries++) {
		pthread_mutex_lock(&ep->lock);
		if (!ep->qp || ep->state != IWFI_EP_S_CONNECTED) {
			pthread_mutex_unlock(&ep->lock);
			return -FI_ENOTCONN;
		}
		ret = iwfi_credit_take(ep, wr->opcode);
		if (!ret)
			break;
		qp = ep->qp;
		pthread_mutex_unlock(&ep->lock);
		/* The peer may be an endpoint of ours whose count waits. */
		iwfi_credit_flush_all(ep->domain->fabric);
		if (ep->domain->fabric->manual) {
			/* FI_PROGRESS_MANUAL: the peer's new credits may
			 * wait in the socket; place them before saying
			 * -FI_EAGAIN. */
			if (tries)
				return ret;
			iwfi_progress(ep->domain->fabric, 0);
			continue;
		}
		/*
		 * The peer's receive for this message is often posted
		 * already, its count on the wire: a peer answering the last
		 * message of an exchange at once (fi_pingpong's "fin", which
		 * it does not retry) races it.  Wait for it a little,
		 * asleep on the socket that brings it.
		 */
		if (!until)
			until = iwfi_now_ns() + IWFI_CREDIT_WAIT_NS;
		else if (iwfi_now_ns() >= until)
			return ret;
		(void)iwcm_qp_progress(qp, 1);
	}
	/* A Read or an atomic goes behind the Read that confirms the
	 * delivery-complete writes before it (iwfi_cq.c). */
	if (waits_response(wr) && iwfi_dc_confirm_before(ep)) {
		iwfi_credit_return(ep, wr->opcode);
		pthread_mutex_unlock(&ep->lock);
		return -FI_EAGAIN;
	}
	if (req)
		iwfi_req_link(req);
	/* ep->lock orders every post on the QP: the room only grows
	 * until iwcm_post_send(3) takes it.  A receive count that is due
	 * rides along when there is room for it (iwfi_credit.c). */
	head = wr;
	if (iwfi_credit_wr(ep, &cwr, &csge, &cval) &&
	    iwcm_qp_send_room(ep->qp) > n) {
		cwr.next = wr;
		head = &cwr;
	}
	ret = n > 1 && iwcm_qp_send_room(ep->qp) < n ?
		      ENOMEM :
		      iwcm_post_send(ep->qp, head, &bad);
	if (head == &cwr && (!ret || bad != &cwr))
		iwfi_credit_sent(ep, cval);
	if (!ret)
		ep->tx_ops++;
	/* In posting order: what a later Read covers (iwfi_cq.c). */
	if (!ret && req && req->dc_hold) {
		req->seq = ++ep->dc_seq;
		ep->dc_raddr = req->raddr;
		ep->dc_rkey = req->rkey;
	}
	if (ret && req)
		iwfi_req_unlink(req);
	if (ret)
		iwfi_credit_return(ep, wr->opcode);
	else
		count_posted(ep, wr);
	pthread_mutex_unlock(&ep->lock);
	if (ret == ENOMEM)
		return -FI_EAGAIN;
	if (ret == ENOTCONN)
		return -FI_ENOTCONN;
	return ret ? -iwfi_errno(ret) : 0;
}

/* A held receive as one work request of its own, linked as posted. */
static void iwfi_held_ready(struct iwfi_req *req)
{
	req->wr.wr_id = (uintptr_t)req;
	req->wr.sg_list = req->sge;
	req->wr.next = NULL;
	iwfi_req_link(req);
}

/*
 * Post the receives held before the QP existed (ep->lock held).  Returns
 * those the QP refused, for iwfi_msg_cancel_list() once the lock is
 * released (the CQ's lock is taken before an endpoint's).
 */
struct iwfi_req *iwfi_msg_post_held(struct iwfi_ep *ep)
{
	struct iwfi_req *req, *failed = NULL;
	int ret;

	while ((req = ep->held)) {
		ep->held = req->next;
		if (!ep->held)
			ep->held_tail = NULL;
		req->next = NULL;
		iwfi_held_ready(req);
		ret = iwcm_post_recv(ep->qp, &req->wr, NULL);
		if (ret) {
			iwfi_req_unlink(req);
			IWFI_WARN(FI_LOG_EP_DATA, "held receive: %d\n", ret);
			req->next = failed;
			failed = req;
		}
	}
	return failed;
}

/*
 * The first max held receives as one chain of work requests, linked as
 * posted (ep->lock held), for iwcm_create_qp() to queue before the QP
 * reads anything (IWCM_QP_INIT_ATTR_RECV_WR): the peer may Send as soon
 * as it is established.  They stay held until iwfi_msg_chain_done().
 */
struct iwcm_recv_wr *iwfi_msg_chain_held(struct iwfi_ep *ep, uint32_t max)
{
	struct iwfi_req *req;
	struct iwcm_recv_wr *head = NULL, **tail = &head;
	uint32_t n = 0;

	for (req = ep->held; req && n < max; req = req->next, n++) {
		iwfi_held_ready(req);
		*tail = &req->wr;
		tail = &req->wr.next;
	}
	return head;
}

/* The chain went onto the QP (posted) or did not (the QP was not made):
 * take its receives off the held list, or unlink them again. */
void iwfi_msg_chain_done(struct iwfi_ep *ep, struct iwcm_recv_wr *chain,
			 bool posted)
{
	for (struct iwcm_recv_wr *wr = chain; wr; wr = wr->next) {
		struct iwfi_req *req = (void *)(uintptr_t)wr->wr_id;

		if (!posted) {
			iwfi_req_unlink(req);
			continue;
		}
		ep->held = req->next;
		if (!ep->held)
			ep->held_tail = NULL;
		req->next = NULL;
	}
}

/* Take every held receive (ep->lock held), for iwfi_msg_cancel_list(). */
struct iwfi_req *iwfi_msg_take_held(struct iwfi_ep *ep)
{
	struct iwfi_req *list = ep->held;

	ep->held = ep->held_tail = NULL;
	return list;
}

/* Complete each receive of list with FI_ECANCELED (no lock held). */
void iwfi_msg_cancel_list(struct iwfi_ep *ep, struct iwfi_req *list)
{
	struct iwfi_req *req;

	while ((req = list)) {
		list = req->next;
		iwfi_cq_cancel(ep->rx_cq, req);
	}
}

/* fi_cancel(): only a receive still held can be taken back. */
ssize_t iwfi_msg_cancel(struct iwfi_ep *ep, void *context)
{
	struct iwfi_req **pp, *req = NULL, *prev = NULL;

	pthread_mutex_lock(&ep->lock);
	for (pp = &ep->held; *pp; prev = *pp, pp = &(*pp)->next) {
		if ((*pp)->context == context) {
			req = *pp;
			*pp = req->next;
			if (ep->held_tail == req)
				ep->held_tail = prev;
			/* A credit not yet given away is taken back. */
			if (ep->rx_posted > ep->rx_advertised)
				ep->rx_posted--;
			break;
		}
	}
	pthread_mutex_unlock(&ep->lock);
	if (!req)
		return -FI_ENOENT;
	iwfi_cq_cancel(ep->rx_cq, req);
	return 0;
}

static struct iwfi_ep *ep_of(struct fid_ep *ep_fid)
{
	return iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
}

static ssize_t msg_recvmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			   uint64_t flags)
{
	struct iwfi_ep *ep = ep_of(ep_fid);
	struct iwfi_req *req;
	size_t len;
	int ret;

	req = iwfi_req_new(ep, msg->context, FI_RECV | FI_MSG,
			   !ep->rx_selective || (flags & FI_COMPLETION));
	if (!req)
		return -FI_ENOMEM;
	ret = iwfi_sgl(ep->domain, req->sge, msg->msg_iov, msg->desc,
		       msg->iov_count, &len);
	if (ret) {
		iwfi_req_free(req);
		return ret;
	}
	req->buf = msg->iov_count ? msg->msg_iov[0].iov_base : NULL;
	req->len = len;
	req->wr.wr_id = (uintptr_t)req;
	req->wr.sg_list = req->sge;
	req->wr.num_sge = (int)msg->iov_count;
	pthread_mutex_lock(&ep->lock);
	if (ep->qp) {
		bool due = false;

		iwfi_req_link(req);
		ret = iwcm_post_recv(ep->qp, &req->wr, NULL);
		if (ret)
			iwfi_req_unlink(req);
		else
			due = iwfi_credit_posted(ep);
		pthread_mutex_unlock(&ep->lock);
		if (ret) {
			iwfi_req_free(req);
			return ret == ENOMEM ? -FI_EAGAIN : -iwfi_errno(ret);
		}
		/* The count waits for the next operation, or the fabric's
		 * next CQ read if none came. */
		if (due)
			__atomic_add_fetch(&ep->domain->fabric->credit_due, 1,
					   __ATOMIC_RELEASE);
		return 0;
	}
	if (!iwfi_ep_state_holds(ep->state)) {
		pthread_mutex_unlock(&ep->lock);
		iwfi_req_free(req);
		return -FI_ENOTCONN;
	}
	if (ep->held_tail)
		ep->held_tail->next = req;
	else
		ep->held = req;
	ep->held_tail = req;
	ep->rx_posted++;
	pthread_mutex_unlock(&ep->lock);
	return 0;
}

static ssize_t msg_recvv(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t src_addr,
			 void *context)
{
	struct fi_msg msg = {
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.addr = src_addr,
		.context = context,
	};

	return msg_recvmsg(ep, &msg, ep_of(ep)->rx_op_flags);
}

static ssize_t msg_recv(struct fid_ep *ep, void *buf, size_t len, void *desc,
			fi_addr_t src_addr, void *context)
{
	struct iovec iov = { .iov_base = buf, .iov_len = len };

	return msg_recvv(ep, &iov, &desc, 1, src_addr, context);
}

/* Send a message; with FI_REMOTE_CQ_DATA and no payload, an RFC 7306 §6
 * Immediate Data message carrying data. */
static ssize_t msg_sendmsg(struct fid_ep *ep_fid, const struct fi_msg *msg,
			   uint64_t flags)
{
	struct iwfi_ep *ep = ep_of(ep_fid);
	struct iwcm_sge sge[IWFI_IOV_LIMIT];
	struct iwcm_send_wr wr = { 0 };
	bool inject = flags & FI_INJECT, copy;
	struct iwfi_req *req;
	size_t len, i;
	int ret;

	ret = iwfi_sgl(ep->domain, sge, msg->msg_iov, msg->desc, msg->iov_count,
		       &len);
	if (ret)
		return ret;
	/* Small buffers without a descriptor are copied at post time,
	 * which is cheaper than sending from them; larger ones go from
	 * the domain's local region (iwfi_mr.c). */
	copy = inject || (!msg->desc && len <= IWFI_INJECT_SIZE);
	for (i = 0; msg->desc && i < msg->iov_count; i++)
		if (!msg->desc[i] && len <= IWFI_INJECT_SIZE)
			copy = true;
	if (inject && len > IWFI_INJECT_SIZE)
		return -FI_EINVAL;
	req = iwfi_req_new(ep, msg->context, FI_SEND | FI_MSG,
			   !inject && (!ep->tx_selective ||
				       (flags & FI_COMPLETION)));
	if (!req)
		return -FI_ENOMEM;
	req->len = len;
	wr.wr_id = (uintptr_t)req;
	wr.sg_list = sge;
	wr.num_sge = (int)msg->iov_count;
	wr.opcode = IWCM_WR_SEND;
	wr.send_flags = IWCM_SEND_SIGNALED;
	if (copy)
		wr.send_flags |= IWCM_SEND_INLINE;
	if (flags & FI_FENCE)
		wr.send_flags |= IWCM_SEND_FENCE;
	if (flags & FI_REMOTE_CQ_DATA) {
		if (len) {
			iwfi_req_free(req);
			return -FI_EOPNOTSUPP;
		}
		wr.opcode = IWCM_WR_IMM_DATA;
		wr.imm_data = msg->data;
		wr.num_sge = 0;
		wr.send_flags &= ~IWCM_SEND_INLINE;
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

static ssize_t msg_sendv(struct fid_ep *ep, const struct iovec *iov,
			 void **desc, size_t count, fi_addr_t dest_addr,
			 void *context)
{
	struct fi_msg msg = {
		.msg_iov = iov,
		.desc = desc,
		.iov_count = count,
		.addr = dest_addr,
		.context = context,
	};

	return msg_sendmsg(ep, &msg, ep_of(ep)->tx_op_flags);
}

static ssize_t msg_send(struct fid_ep *ep, const void *buf, size_t len,
			void *desc, fi_addr_t dest_addr, void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };

	return msg_sendv(ep, &iov, &desc, 1, dest_addr, context);
}

static ssize_t msg_inject(struct fid_ep *ep, const void *buf, size_t len,
			  fi_addr_t dest_addr)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1 };

	return msg_sendmsg(ep, &msg, FI_INJECT);
}

static ssize_t msg_senddata(struct fid_ep *ep, const void *buf, size_t len,
			    void *desc, uint64_t data, fi_addr_t dest_addr,
			    void *context)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = {
		.msg_iov = &iov,
		.desc = &desc,
		.iov_count = 1,
		.context = context,
		.data = data,
	};

	return msg_sendmsg(ep, &msg,
			   ep_of(ep)->tx_op_flags | FI_REMOTE_CQ_DATA);
}

static ssize_t msg_injectdata(struct fid_ep *ep, const void *buf, size_t len,
			      uint64_t data, fi_addr_t dest_addr)
{
	struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
	struct fi_msg msg = { .msg_iov = &iov, .iov_count = 1, .data = data };

	return msg_sendmsg(ep, &msg, FI_INJECT | FI_REMOTE_CQ_DATA);
}

const struct fi_ops_msg iwfi_msg_ops = {
	.size = sizeof(struct fi_ops_msg),
	.recv = msg_recv,
	.recvv = msg_recvv,
	.recvmsg = msg_recvmsg,
	.send = msg_send,
	.sendv = msg_sendv,
	.sendmsg = msg_sendmsg,
	.inject = msg_inject,
	.senddata = msg_senddata,
	.injectdata = msg_injectdata,
};
