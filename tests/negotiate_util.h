/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What the connection setup tables (check_negotiate*.c) share: the RTR
 * flag letters, frames as the wire carries them, the default policies.
 */
#ifndef IWCM_TEST_NEGOTIATE_UTIL_H
#define IWCM_TEST_NEGOTIATE_UTIL_H

#include "common.h"
#include "negotiate.h"
#include "rdmap.h"

#define NONE MPA_IRD_ORD_NONE
#define ACC NEG_A_ACCEPT
#define REJ NEG_A_REJECT
#define TRM NEG_A_TERM
#define CLS NEG_A_CLOSE

uint8_t rtr_bits(const char *s);
void pref_from(const char *s, uint8_t pref[3]);
void through_wire(struct mpa_frame *f, uint8_t *buf);
struct neg_policy policy(enum neg_role role);
struct mpa_frame req_frame(uint8_t rev, uint8_t flags, bool enh, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord);
struct mpa_frame rep_frame(uint8_t rev, uint8_t flags, bool enh, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord);

#endif /* IWCM_TEST_NEGOTIATE_UTIL_H */
