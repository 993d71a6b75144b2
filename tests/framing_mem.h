/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_FRAMING_MEM_H
#define IWCM_TESTS_FRAMING_MEM_H

/*
 * A second framing below RDMAP/DDP, in memory: one DDP segment per
 * message, as DDP over SCTP carries them (RFC 5043 §5.2.2), between two
 * framings of one process.  It knows nothing of MPA; it proves that
 * RDMAP/DDP (libclient/qp_tx.c, qp_rx.c) reaches its transport only
 * through struct framing_ops.  Not thread-safe: for manual-progress
 * contexts driven by one thread.
 */
#include <stddef.h>
#include <stdint.h>

#include "framing.h"

/* Two framings, each one's segments arriving at the other; segments of
 * at most mulpdu octets. */
void framing_mem_pair(struct framing **a, struct framing **b, uint16_t mulpdu);
/* The next segment fr receives ends with err (a transport's own check
 * failing, like SCTP's CRC32c or MPA's) instead of intact. */
void framing_mem_spoil_next(struct framing *fr, const struct framing_err *err);
/* Segments sent through fr, received by fr (every one seen). */
unsigned int framing_mem_sent(const struct framing *fr);
unsigned int framing_mem_received(const struct framing *fr);

#endif
