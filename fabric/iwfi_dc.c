/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * FI_DELIVERY_COMPLETE writes (iwfi_rma.c).  A write's completion says
 * its data left; it is held until a zero-length RDMA Read Request posted
 * after it completes, since that Read's Response is not placed before
 * the Write's payload is placed at the peer (RFC 5040 §5.5, Appendix B).
 * One Read covers every such write posted before it: the first held
 * write whose seq no Read covers yet posts one for all up to the
 * endpoint's last (ep->dc_seq), so a window of writes costs one round
 * trip.
 *
 * This file keeps the endpoint's books (ep->dc_*) and posts the Reads;
 * what becomes of a write it hands back to the CQ (iwfi_cq.c) in a
 * struct iwfi_dc_out: the writes a Read confirmed, which wait on the
 * CQ's ready list for the next fi_cq_read(), and those no Read will
 * confirm any more, which fail as a connection's flush does.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "iwfi.h"

static void out_append(struct iwfi_req **head, struct iwfi_req **tail,
		       struct iwfi_req *req)
{
	req->next = NULL;
	if (*tail)
		(*tail)->next = req;
	else
		*head = req;
	*tail = req;
}

/* Post the zero-length Read that confirms ep's writes up to ep->dc_seq on
 * the remote range raddr/rkey (ep->lock held): 0, -FI_EAGAIN when the
 * send queue is full (iwfi_dc_retry() posts it once a request of ep has
 * completed), another error when it cannot be posted at all. */
static int dc_post_confirm_at(struct iwfi_ep *ep, uint64_t raddr, uint32_t rkey)
{
	struct iwcm_send_wr wr = { 0 }, *bad = NULL;
	struct iwfi_req *c;
	int ret;

	if (!ep->qp || ep->state != IWFI_EP_S_CONNECTED)
		return -FI_ENOTCONN;
	c = iwfi_req_new(ep, NULL, FI_RMA | FI_READ, false);
	if (!c)
		return -FI_ENOMEM;
	c->dc_confirm = true;
	c->seq = ep->dc_seq;
	wr.wr_id = (uintptr_t)c;
	wr.opcode = IWCM_WR_RDMA_READ;
	wr.send_flags = IWCM_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = raddr;
	wr.wr.rdma.rkey = rkey;
	iwfi_req_link(c);
	ret = iwcm_post_send(ep->qp, &wr, &bad);
	if (ret) {
		iwfi_req_unlink(c);
		iwfi_req_free(c);
		return ret == ENOMEM ? -FI_EAGAIN : -FI_EIO;
	}
	ep->tx_zreads++;
	ep->dc_cover = c->seq;
	__atomic_store_n(&ep->dc_retry, false, __ATOMIC_RELAXED);
	return 0;
}

/* The same, on the range of the held write w. */
static int dc_post_confirm(struct iwfi_ep *ep, const struct iwfi_req *w)
{
	return dc_post_confirm_at(ep, w->raddr, w->rkey);
}

/*
 * A Read or an atomic is about to be posted on ep (ep->lock held): first
 * post the zero-length Read that confirms the FI_DELIVERY_COMPLETE
 * writes no Read covers yet, on the last one's range.  A Terminate that
 * one of those writes caused ends the first Read or atomic that waits
 * behind it (RFC 5040 §5.5 rule 13, §7): that is then this Read, which
 * fails the writes it covers with the Terminate's error, not the
 * operation posted after them, which is flushed.  Without a Read or
 * atomic behind them the Read waits, as before, for the first write's
 * completion to be read (iwfi_dc_done()).  Returns 0, or -FI_EAGAIN when
 * the send queue is full (the operation is refused too, so the order
 * holds).
 */
int iwfi_dc_confirm_before(struct iwfi_ep *ep)
{
	int ret;

	if (ep->dc_dead || ep->dc_seq <= ep->dc_cover)
		return 0;
	ret = dc_post_confirm_at(ep, ep->dc_raddr, ep->dc_rkey);
	/* Nothing to keep in order on a connection that is gone. */
	return ret == -FI_EAGAIN ? ret : 0;
}

/* No Read will confirm ep's held writes nor any later one: they go to
 * out's failed ones (ep->lock held, released here). */
static void dc_kill(struct iwfi_ep *ep, struct iwfi_dc_out *out)
{
	struct iwfi_req *held, *w;

	ep->dc_dead = true;
	__atomic_store_n(&ep->dc_retry, false, __ATOMIC_RELAXED);
	held = ep->dc_held;
	ep->dc_held = ep->dc_held_tail = NULL;
	iwfi_ep_unlock(ep);
	while ((w = held)) {
		held = w->next;
		out_append(&out->failed, &out->failed_tail, w);
	}
}

/*
 * A completion of ep is about to be handled (cq->lock held): if a
 * confirming Read found the send queue full, post it now, as that
 * request has left the queue.  Under a queue the application (or an RDM
 * endpoint's queued operations, iwfi_rdm_peer.c) keeps full, the Read
 * is late, never lost.  If it cannot be posted any more (the connection
 * failed: this completion is a flush), the held writes fail.
 */
void iwfi_dc_retry(struct iwfi_ep *ep, struct iwfi_dc_out *out)
{
	struct iwfi_req *w;
	int ret;

	if (!__atomic_load_n(&ep->dc_retry, __ATOMIC_RELAXED))
		return;
	iwfi_ep_lock(ep);
	for (w = ep->dc_held; w && w->seq <= ep->dc_cover; w = w->next)
		;
	if (!ep->dc_retry || !w) {
		__atomic_store_n(&ep->dc_retry, false, __ATOMIC_RELAXED);
		iwfi_ep_unlock(ep);
		return;
	}
	ret = dc_post_confirm(ep, w);
	if (ret && ret != -FI_EAGAIN) {
		dc_kill(ep, out);
		return;
	}
	iwfi_ep_unlock(ep);
}

/* ep's held writes up to seq are confirmed (ep->lock held). */
static void dc_release(struct iwfi_ep *ep, uint64_t seq,
		       struct iwfi_dc_out *out)
{
	struct iwfi_req *w;

	while ((w = ep->dc_held) && w->seq <= seq) {
		ep->dc_held = w->next;
		if (!ep->dc_held)
			ep->dc_held_tail = NULL;
		out_append(&out->ready, &out->ready_tail, w);
	}
}

/*
 * The successful completion of a held write or of a confirming Read
 * (cq->lock held): true when it was taken care of here, false when the
 * request is to be reported now (a write already confirmed; a Read,
 * after the writes it confirmed).  A write that no Read can confirm any
 * more (the connection failed, or the Read could not be posted) is not
 * known placed: it fails after the writes held before it, as a
 * connection's flush does, and so does every later one (ep->dc_dead).
 */
bool iwfi_dc_done(struct iwfi_req *req, struct iwfi_dc_out *out)
{
	struct iwfi_ep *ep = req->ep;
	bool keep = true;
	int ret = 0;

	iwfi_ep_lock(ep);
	if (req->dc_confirm) {
		if (req->seq > ep->dc_confirmed)
			ep->dc_confirmed = req->seq;
		dc_release(ep, req->seq, out);
		iwfi_ep_unlock(ep);
		return false;
	}
	if (!ep->dc_dead && req->seq > ep->dc_cover && !ep->dc_retry) {
		ret = dc_post_confirm(ep, req);
		/* A full send queue: the Read goes later (iwfi_dc_retry()). */
		if (ret == -FI_EAGAIN) {
			__atomic_store_n(&ep->dc_retry, true, __ATOMIC_RELAXED);
			ret = 0;
		}
	}
	if (req->seq <= ep->dc_confirmed && !ep->dc_dead) {
		keep = false;
	} else if (ep->dc_dead || ret) {
		dc_kill(ep, out);
		out_append(&out->failed, &out->failed_tail, req);
		return true;
	} else {
		out_append(&ep->dc_held, &ep->dc_held_tail, req);
	}
	iwfi_ep_unlock(ep);
	return keep;
}

/* The held write (covered by the Read of seq) that the peer's Terminate
 * names (ep->lock held): RFC 5040 §4.8 gives the refused segment's
 * tagged DDP header, whose STag and Tagged Offset fall in exactly one
 * write's range; NULL when none or several do, or no such header came. */
static struct iwfi_req *dc_refused(struct iwfi_ep *ep, uint64_t seq)
{
	struct iwcm_term_info ti;
	struct iwfi_req *w, *bad = NULL;

	if (!ep->qp || iwcm_qp_peer_term(ep->qp, &ti) < 0 ||
	    !(ti.flags & IWCM_TERM_TAGGED))
		return NULL;
	for (w = ep->dc_held; w && w->seq <= seq; w = w->next) {
		if (w->rkey != ti.stag || ti.to < w->raddr ||
		    ti.to - w->raddr >= (w->len ? w->len : 1))
			continue;
		if (bad)
			return NULL; /* two writes to one range: unknown */
		bad = w;
	}
	return bad;
}

/*
 * A confirming Read of ep, covering its writes up to seq, failed: the
 * writes it covered are not known placed, and no later one will be
 * (ep->dc_dead).  They are returned (linked by next) to complete with
 * the Read's error.
 *
 * When the peer's Terminate names one of them (dc_refused()), that one
 * alone is returned, to carry the Terminate; the others go to out's
 * failed ones, as a flush.  None of them is reported placed: the writes
 * before the named one probably were (the Data Sink takes the segments
 * of a TCP stream in order and stops at the first it refuses, RFC 5041
 * §7.2), but another tagged segment to the same range, a plain write
 * or a Read Response, may have been the one refused.
 */
struct iwfi_req *iwfi_dc_fail(struct iwfi_ep *ep, uint64_t seq,
			      struct iwfi_dc_out *out)
{
	struct iwfi_req *held, *bad, *w;

	iwfi_ep_lock(ep);
	bad = dc_refused(ep, seq);
	held = ep->dc_held;
	ep->dc_held = ep->dc_held_tail = NULL;
	/* Later writes wait for a Read that will not come either. */
	ep->dc_dead = true;
	iwfi_ep_unlock(ep);
	if (!bad)
		return held;
	while ((w = held)) {
		held = w->next;
		if (w != bad)
			out_append(&out->failed, &out->failed_tail, w);
	}
	bad->next = NULL;
	return bad;
}
