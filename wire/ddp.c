/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP segment headers (RFC 5041 §4): the control octet, then either the
 * tagged header (STag, TO) or the untagged one (RsvdULP, QN, MSN, MO).
 */
#include "config.h"

#include <string.h>

#include "ddp.h"
#include "wbuf.h"

#define DDP_RSVD_SHIFT 2

/* Parse the DDP header at buf. */
enum wire_err ddp_hdr_parse(const uint8_t *buf, size_t len, struct ddp_hdr *out,
			    size_t *used)
{
	struct ddp_hdr h;
	struct wbuf b;
	uint8_t ctrl;

	if (len < 1)
		return WIRE_ESHORT;
	/* RFC 5041 §4.1: T selects the model and so the header length. */
	if (len < ddp_hdr_len(buf[0]))
		return WIRE_ESHORT;

	memset(&h, 0, sizeof(h));
	wbuf_init(&b, buf, len);
	(void)wbuf_get_u8(&b, &ctrl);
	h.tagged = (ctrl & DDP_FLAG_T) != 0;
	h.last = (ctrl & DDP_FLAG_L) != 0;
	/* RFC 5041 §4.1: Rsvd is "not checked on receive"; keep it. */
	h.rsvd = (uint8_t)((ctrl & DDP_RSVD_MASK) >> DDP_RSVD_SHIFT);
	h.dv = ctrl & DDP_DV_MASK;
	(void)wbuf_get_u8(&b, &h.rsvd_ulp8);
	if (h.tagged) {
		/* RFC 5041 §4.2 Figure 4. */
		(void)wbuf_get_u32(&b, &h.stag);
		(void)wbuf_get_u64(&b, &h.to);
	} else {
		/* RFC 5041 §4.3 Figure 5. */
		(void)wbuf_get_u32(&b, &h.rsvd_ulp32);
		(void)wbuf_get_u32(&b, &h.qn);
		(void)wbuf_get_u32(&b, &h.msn);
		(void)wbuf_get_u32(&b, &h.mo);
	}
	*out = h;
	*used = b.off;
	return WIRE_OK;
}

/* Build a DDP header; reserved bits are sent as zero. */
enum wire_err ddp_hdr_build(const struct ddp_hdr *h, uint8_t *buf, size_t cap,
			    size_t *written)
{
	struct wbuf_w w;
	uint8_t ctrl = 0;
	size_t need;

	if (h->dv > DDP_DV_MASK)
		return WIRE_EINVAL;
	need = h->tagged ? DDP_TAGGED_HDR_LEN : DDP_UNTAGGED_HDR_LEN;
	if (cap < need)
		return WIRE_ENOSPC;

	if (h->tagged)
		ctrl |= DDP_FLAG_T;
	if (h->last)
		ctrl |= DDP_FLAG_L;
	/* RFC 5041 §4.1: Rsvd MUST be set to zero on transmit. */
	ctrl |= h->dv;

	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_u8(&w, ctrl);
	(void)wbuf_put_u8(&w, h->rsvd_ulp8);
	if (h->tagged) {
		(void)wbuf_put_u32(&w, h->stag);
		(void)wbuf_put_u64(&w, h->to);
	} else {
		(void)wbuf_put_u32(&w, h->rsvd_ulp32);
		(void)wbuf_put_u32(&w, h->qn);
		(void)wbuf_put_u32(&w, h->msn);
		(void)wbuf_put_u32(&w, h->mo);
	}
	*written = w.off;
	return WIRE_OK;
}
