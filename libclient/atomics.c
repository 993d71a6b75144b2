/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The responder's atomic operations: RFC 7306 §5.1 FetchAdd and CmpSwap
 * with their masks, and the seed draft's Swap (draft-ietf-storm-rdmap-
 * ext-00 §5.1.2).  RFC 7306 §5.3 asks for atomicity against concurrent
 * atomics of other streams of the same RNIC; here that is every QP of
 * the process, so each operation is one compare-and-swap loop on the
 * aligned 64-bit word, which no other atomic of the process can split.
 */
#include "config.h"

#include <stdint.h>

#include "dp.h"

/* RFC 7306 §5.1.1: add field by field; a set Add Mask bit marks the most
 * significant bit of a field and drops the carry out of it. */
uint64_t atomic_masked_add(uint64_t orig, uint64_t add, uint64_t mask)
{
	/*
	 * With the field-top bits cleared a field's carry lands in its top
	 * bit and stops there; adding the top bits back modulo 2 gives the
	 * pseudocode's result without its bit loop.
	 */
	return ((orig & ~mask) + (add & ~mask)) ^ ((orig ^ add) & mask);
}

/* RFC 7306 §5.1.2: the value CmpSwap leaves in the word. */
uint64_t atomic_cmp_swap_val(uint64_t orig, uint64_t cmp, uint64_t cmp_mask,
			     uint64_t swap, uint64_t swap_mask)
{
	if (!((cmp ^ orig) & cmp_mask))
		return (orig & ~swap_mask) | (swap & swap_mask);
	return orig;
}

/* Run one atomic on an aligned word and return the original value. */
uint64_t atomic_run(uint64_t *p, uint8_t aopcode, uint64_t add_swap,
		    uint64_t add_swap_mask, uint64_t cmp, uint64_t cmp_mask)
{
	uint64_t orig = __atomic_load_n(p, __ATOMIC_ACQUIRE), val;

	for (;;) {
		switch (aopcode) {
		case RDMAP_AOP_FETCHADD:
			val = atomic_masked_add(orig, add_swap, add_swap_mask);
			break;
		case RDMAP_AOP_CMPSWAP:
			val = atomic_cmp_swap_val(orig, cmp, cmp_mask, add_swap,
						  add_swap_mask);
			break;
		case RDMAP_AOP_SWAP:
		default:
			/* Seed 004 §5.1.2: the masks are ignored. */
			val = add_swap;
			break;
		}
		if (val == orig)
			return orig;
		if (__atomic_compare_exchange_n(p, &orig, val, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE))
			return orig;
	}
}
