/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The one table of RTR type names and the one on/off parser of iwcmctl
 * (decode, sample, the admin commands, listen and connect).
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "mpa.h"
#include "vocab.h"

/* RFC 6581 §9.2: flags B (Send), C (Write) and D (Read). */
const struct vocab_rtr vocab_rtr[VOCAB_RTR_N] = {
	{ MPA_RTR_SEND, "send" },
	{ MPA_RTR_WRITE, "write" },
	{ MPA_RTR_READ, "read" },
};

/* Name of one RTR type bit, "none" for 0, "several" for more bits. */
const char *vocab_rtr_name(unsigned int rtr)
{
	size_t i;

	if (!rtr)
		return "none";
	for (i = 0; i < VOCAB_RTR_N; i++)
		if (rtr == vocab_rtr[i].bit)
			return vocab_rtr[i].name;
	return "several";
}

/* "send,write,read" for a set of RTR type bits, "none" for 0. */
const char *vocab_rtr_list(unsigned int rtr, char *buf, size_t len)
{
	size_t i, n = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	if (!rtr) {
		snprintf(buf, len, "none");
		return buf;
	}
	for (i = 0; i < VOCAB_RTR_N && n < len; i++) {
		int k;

		if (!(rtr & vocab_rtr[i].bit))
			continue;
		k = snprintf(buf + n, len - n, "%s%s", n ? "," : "",
			     vocab_rtr[i].name);
		if (k < 0)
			break;
		n += (size_t)k;
	}
	return buf;
}

/* Parse a comma-separated list of RTR type names. */
int vocab_rtr_parse(const char *v, unsigned int *out)
{
	const char *p = v;
	unsigned int set = 0;
	size_t i, n;

	for (;;) {
		n = strcspn(p, ",");
		for (i = 0; i < VOCAB_RTR_N; i++)
			if (strlen(vocab_rtr[i].name) == n &&
			    !strncmp(p, vocab_rtr[i].name, n))
				break;
		if (i == VOCAB_RTR_N)
			return -1; /* unknown or empty element */
		set |= vocab_rtr[i].bit;
		p += n;
		if (!*p)
			break;
		p++; /* the comma */
	}
	*out = set;
	return 0;
}

/* "on" or "off". */
const char *vocab_onoff(bool v)
{
	return v ? "on" : "off";
}

/* Parse on|yes|1 or off|no|0. */
int vocab_onoff_parse(const char *v, bool *out)
{
	static const char *const on[] = { "on", "yes", "1" };
	static const char *const off[] = { "off", "no", "0" };
	size_t i;

	for (i = 0; i < 3; i++) {
		if (!strcmp(v, on[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, off[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}
