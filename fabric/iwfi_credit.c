/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Receive credits.  A Send (or Immediate Data, or a Write with Immediate
 * Data) that finds no posted receive is a fatal error of the connection
 * (RFC 5040 §5.3, RFC 5041 §7.2: the Terminate), where the tcp provider
 * simply leaves the bytes in the socket.  ofi_rxm, which posts a fixed
 * number of receives per connection and reposts them as it goes, relies
 * on the latter.  So each endpoint tells its peer how many receives it
 * has posted in all: first in the private data of the MPA Request or
 * Reply (a header the provider adds and strips), then by RDMA Writes of
 * the count into a word the peer registered for it (RFC 5040 §4.3; a
 * later Write is placed after an earlier one, so the word only grows).
 * A sender that has used every credit gets -FI_EAGAIN until more come.
 *
 * The count costs no message of its own while the peer has credits to
 * spare.  Receives reposted are told in batches: once a quarter of the
 * receives outstanding here have been reposted since the last count,
 * the count rides along with the next operation posted on the endpoint
 * (iwfi_credit_wr(): one more FPDU in the same writev(2), no system call
 * of its own).  The peer is never left short: when what it may still
 * send falls to what is untold, the count is due: at once, in a message
 * of its own, on an endpoint that only receives; on one that sent since
 * its last receive was posted (an exchange, whose answer usually
 * follows at once) with its next operation, or else at the next
 * fi_cq_read() or fi_trywait() of its CQs, which a receiver makes
 * before it waits.  A completed receive that leaves the peer none while
 * some are untold sends the count at once.
 * So a peer that holds a credit is not delayed by the batching, and one
 * that posts nothing is never overrun: a Send still needs a credit (RFC
 * 5040 §5.3, RFC 5041 §7.2).  The endpoint counts what it sent
 * (credit_msgs, credit_rides), logged at FI_LOG_LEVEL=info on close.
 */
#include "config.h"

#include <endian.h>
#include <string.h>

#include "iwfi.h"

/* "IWFI", then the credit word's STag and address, then the count. */
#define CREDIT_MAGIC 0x49574649u

/* Write the header of ep's private data into buf (IWFI_CM_HDR octets;
 * ep->lock held). */
void iwfi_credit_hdr(struct iwfi_ep *ep, void *buf)
{
	uint8_t *p = buf;
	uint32_t magic = htobe32(CREDIT_MAGIC);
	uint32_t stag = htobe32(iwcm_mr_get_stag(ep->credit_mr));
	uint64_t addr = htobe64((uintptr_t)&ep->credit_word);
	uint64_t posted = htobe64(ep->rx_posted);

	memcpy(p, &magic, 4);
	memcpy(p + 4, &stag, 4);
	memcpy(p + 8, &addr, 8);
	memcpy(p + 16, &posted, 8);
	ep->rx_advertised = ep->rx_posted;
}

/* Read the peer's header from its private data: the octets it occupies
 * (0 when the peer sent none: no credits are kept then). */
size_t iwfi_credit_parse(struct iwfi_peer_credit *pc, const void *data,
			 size_t len)
{
	const uint8_t *p = data;
	uint32_t magic, stag;
	uint64_t addr, posted;

	memset(pc, 0, sizeof(*pc));
	if (!data || len < IWFI_CM_HDR)
		return 0;
	memcpy(&magic, p, 4);
	if (be32toh(magic) != CREDIT_MAGIC)
		return 0;
	memcpy(&stag, p + 4, 4);
	memcpy(&addr, p + 8, 8);
	memcpy(&posted, p + 16, 8);
	pc->on = true;
	pc->stag = be32toh(stag);
	pc->addr = be64toh(addr);
	pc->posted = be64toh(posted);
	return IWFI_CM_HDR;
}

/* The receives posted and not yet told, and those the peer may still
 * use as far as we know (ep->lock held). */
static uint64_t credit_untold(const struct iwfi_ep *ep)
{
	return ep->rx_posted - ep->rx_advertised;
}

static uint64_t credit_left(const struct iwfi_ep *ep)
{
	return ep->rx_advertised > ep->rx_done ?
		       ep->rx_advertised - ep->rx_done :
		       0;
}

/* The receives outstanding here: the unit of the batches. */
static uint64_t credit_window(const struct iwfi_ep *ep)
{
	return ep->rx_posted - ep->rx_done;
}

/* Is the count due at once (ep->lock held)?  While the peer may still
 * send more than is untold it is not short; at or below that the count
 * goes out.  Since what the peer may send and what is untold add up to
 * the receives outstanding, a steady exchange tells every half of them,
 * and a burst of receives posted after the connection is told as it
 * grows (after the 1st, 2nd, 4th, 8th...). */
static bool credit_urgent(const struct iwfi_ep *ep)
{
	return credit_untold(ep) && credit_left(ep) <= credit_untold(ep);
}

/* Does the count ride along with the next operation (ep->lock held)?
 * From a quarter of the receives outstanding on, before it is urgent. */
static bool credit_batch(const struct iwfi_ep *ep)
{
	uint64_t quarter = credit_window(ep) / 4;

	return credit_untold(ep) >= (quarter ? quarter : 1);
}

/* Fill wr with an RDMA Write of the count into the peer's word; *val
 * holds the count (copied at post time: IWCM_SEND_INLINE). */
static void credit_fill(struct iwfi_ep *ep, struct iwcm_send_wr *wr,
			struct iwcm_sge *sge, uint64_t *val)
{
	*val = ep->rx_posted;
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)val;
	sge->length = sizeof(*val);
	sge->lkey = 0;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IWCM_WR_RDMA_WRITE;
	wr->send_flags = IWCM_SEND_INLINE;
	wr->wr.rdma.remote_addr = ep->peer.addr;
	wr->wr.rdma.rkey = ep->peer.stag;
}

/* Tell the peer every receive posted since the last count, in a message
 * of its own (ep->lock held, QP up).  A full send queue leaves it for
 * the next call. */
void iwfi_credit_update(struct iwfi_ep *ep)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	uint64_t posted;

	if (!ep->peer.on || !ep->qp || !credit_untold(ep))
		return;
	credit_fill(ep, &wr, &sge, &posted);
	if (iwcm_post_send(ep->qp, &wr, NULL) == 0) {
		ep->rx_advertised = posted;
		ep->credit_msgs++;
		ep->credit_due = false;
	}
}

/*
 * The count to put in front of the operation about to be posted, if one
 * is due (ep->lock held, QP up): 1 with wr filled (sge and *val its
 * storage), 0 if none.  iwfi_credit_sent() once it is posted.
 */
int iwfi_credit_wr(struct iwfi_ep *ep, struct iwcm_send_wr *wr,
		   struct iwcm_sge *sge, uint64_t *val)
{
	if (!ep->peer.on || !ep->qp || !(ep->credit_due || credit_batch(ep)))
		return 0;
	credit_fill(ep, wr, sge, val);
	return 1;
}

/* The count of iwfi_credit_wr() is posted (ep->lock held). */
void iwfi_credit_sent(struct iwfi_ep *ep, uint64_t val)
{
	ep->rx_advertised = val;
	ep->credit_msgs++;
	ep->credit_rides++;
	ep->credit_due = false;
}

/*
 * A receive was posted (ep->lock held).  When the peer runs short the
 * count is due: at once if this endpoint only receives, and along with
 * its next operation if it sent since its last receive was posted (an
 * exchange: the answer usually follows), in which case true tells the
 * caller to count it in fab->credit_due, for the next fi_cq_read() or
 * fi_trywait() to send if no operation took it first
 * (iwfi_credit_flush_all()).
 */
bool iwfi_credit_posted(struct iwfi_ep *ep)
{
	bool exchange = ep->tx_ops != ep->tx_ops_at_recv;

	ep->rx_posted++;
	ep->tx_ops_at_recv = ep->tx_ops;
	if (ep->credit_due || !credit_urgent(ep))
		return false;
	if (!exchange || !ep->peer.on || !ep->qp) {
		iwfi_credit_update(ep);
		return false;
	}
	ep->credit_due = true;
	return true;
}

/*
 * Send the counts due on the fabric's endpoints that no operation took
 * along (no lock held).  A receiver reads its CQ, or calls fi_trywait(),
 * before it waits; a sender short of credits calls it before it waits
 * for the peer, which may be an endpoint of this process.
 */
void iwfi_credit_flush_all(struct iwfi_fabric *fab)
{
	struct iwfi_ep *ep;

	if (!__atomic_load_n(&fab->credit_due, __ATOMIC_ACQUIRE) ||
	    !__atomic_exchange_n(&fab->credit_due, 0, __ATOMIC_ACQ_REL))
		return;
	iwfi_cm_lock(fab);
	for (ep = fab->eps; ep; ep = ep->next) {
		iwfi_ep_lock(ep);
		if (ep->credit_due)
			iwfi_credit_update(ep);
		iwfi_ep_unlock(ep);
	}
	iwfi_cm_unlock(fab);
}

/* A receive completed: the peer used one credit (ep->lock held).  One
 * that has none left while receives are untold gets the count now: it
 * may be waiting for it, and no receive may be posted again. */
void iwfi_credit_used(struct iwfi_ep *ep)
{
	ep->rx_done++;
	if (!credit_left(ep) && credit_untold(ep))
		iwfi_credit_update(ep);
}

/* Take a credit for a message that consumes one of the peer's receives
 * (ep->lock held): 0, or -FI_EAGAIN when the peer has none left. */
int iwfi_credit_take(struct iwfi_ep *ep, enum iwcm_wr_opcode op)
{
	uint64_t have;

	if (op != IWCM_WR_SEND && op != IWCM_WR_IMM_DATA &&
	    op != IWCM_WR_RDMA_WRITE_WITH_IMM)
		return 0;
	if (!ep->peer.on)
		return 0;
	have = __atomic_load_n(&ep->credit_word, __ATOMIC_ACQUIRE);
	if (have < ep->peer.posted)
		have = ep->peer.posted;
	if (ep->tx_sent >= have)
		return -FI_EAGAIN;
	ep->tx_sent++;
	return 0;
}

/* Give back the credit of a message that was not posted after all. */
void iwfi_credit_return(struct iwfi_ep *ep, enum iwcm_wr_opcode op)
{
	if (ep->peer.on && (op == IWCM_WR_SEND || op == IWCM_WR_IMM_DATA ||
			    op == IWCM_WR_RDMA_WRITE_WITH_IMM))
		ep->tx_sent--;
}
