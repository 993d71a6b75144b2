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

/* Tell the peer the receives posted since the last time (ep->lock held,
 * QP up).  A full send queue leaves it for the next call. */
void iwfi_credit_update(struct iwfi_ep *ep)
{
	struct iwcm_send_wr wr = { 0 };
	struct iwcm_sge sge;
	uint64_t posted = ep->rx_posted;

	if (!ep->peer.on || !ep->qp || ep->rx_posted == ep->rx_advertised)
		return;
	/* Copied at post time (IWCM_SEND_INLINE): no registration. */
	sge.addr = (uintptr_t)&posted;
	sge.length = sizeof(posted);
	sge.lkey = 0;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_RDMA_WRITE;
	wr.send_flags = IWCM_SEND_INLINE;
	wr.wr.rdma.remote_addr = ep->peer.addr;
	wr.wr.rdma.rkey = ep->peer.stag;
	if (iwcm_post_send(ep->qp, &wr, NULL) == 0)
		ep->rx_advertised = posted;
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
