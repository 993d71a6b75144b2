/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * ddp_hdr_parse on arbitrary bytes.  Checks: WIRE_ESHORT exactly when the
 * input is shorter than the header its T bit announces, never a malformed
 * result; every shorter prefix is WIRE_ESHORT; build(parse(x)) gives back
 * x's header bytes with the reserved bits zero; parse(build(h)) == h.
 */
#include <stdlib.h>
#include <string.h>

#include "ddp.h"
#include "fuzz/fuzz.h"

static int same_hdr(const struct ddp_hdr *a, const struct ddp_hdr *b)
{
	return a->tagged == b->tagged && a->last == b->last && a->dv == b->dv &&
	       a->rsvd_ulp8 == b->rsvd_ulp8 && a->stag == b->stag &&
	       a->to == b->to && a->rsvd_ulp32 == b->rsvd_ulp32 &&
	       a->qn == b->qn && a->msn == b->msn && a->mo == b->mo;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ddp_hdr h, h2;
	uint8_t out[DDP_UNTAGGED_HDR_LEN];
	size_t used = 0, used2 = 0, w = 0, k, need;
	enum wire_err e;

	e = ddp_hdr_parse(data, size, &h, &used);
	need = size ? ddp_hdr_len(data[0]) : 1;
	if (size < need) {
		if (e != WIRE_ESHORT)
			abort();
		return 0;
	}
	if (e != WIRE_OK || used != need)
		abort();
	for (k = 0; k < used; k++)
		if (ddp_hdr_parse(data, k, &h2, &used2) != WIRE_ESHORT)
			abort();
	if (h.tagged != ((data[0] & DDP_FLAG_T) != 0) || h.rsvd > 0xf ||
	    h.dv > 3)
		abort();

	if (ddp_hdr_build(&h, out, sizeof(out), &w) != WIRE_OK || w != used)
		abort();
	if (out[0] != (data[0] & (uint8_t)~DDP_RSVD_MASK) ||
	    memcmp(out + 1, data + 1, used - 1) != 0)
		abort();
	if (ddp_hdr_parse(out, w, &h2, &used2) != WIRE_OK || used2 != w ||
	    !same_hdr(&h, &h2) || h2.rsvd != 0)
		abort();
	if (ddp_hdr_build(&h, out, w - 1, &w) != WIRE_ENOSPC)
		abort();
	return 0;
}
