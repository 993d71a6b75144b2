/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_VOCAB_H
#define IWCM_CLI_VOCAB_H

/*
 * The words iwcmctl reads and prints in more than one command, each in
 * one table: the RTR types of RFC 6581 §9.2 ("send", "write", "read" for
 * flags B, C and D; MPA_RTR_* and IWCM_RTR_* have the same values) and
 * the on/off values of the options and listener settings.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define VOCAB_RTR_N 3 /* entries of vocab_rtr[] */

struct vocab_rtr {
	uint8_t bit; /* MPA_RTR_* */
	const char *name;
};

/* The RTR types in the order every list prints them: send, write, read. */
extern const struct vocab_rtr vocab_rtr[VOCAB_RTR_N];

/* Name of one RTR type bit ("write", ...), "none" for 0, else "several". */
const char *vocab_rtr_name(unsigned int rtr);

/* "send,write,read" for a set of RTR type bits, "none" for 0, into buf. */
const char *vocab_rtr_list(unsigned int rtr, char *buf, size_t len);

/*
 * Parse a non-empty comma-separated list of RTR type names (no empty
 * element) into *out; 0, or -1 on a bad list.
 */
int vocab_rtr_parse(const char *v, unsigned int *out);

/* "on" or "off". */
const char *vocab_onoff(bool v);

/* Parse on|yes|1 or off|no|0 into *out; 0, or -1 for anything else. */
int vocab_onoff_parse(const char *v, bool *out);

#endif
