/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* The helpers of the connection setup tables (negotiate_util.h). */
#include "config.h"

#include "negotiate_util.h"

/* RFC 6581 flag letters: B = Send, C = Write, D = Read. */
uint8_t rtr_bits(const char *s)
{
	uint8_t b = 0;

	for (; *s; s++) {
		switch (*s) {
		case 'B':
			b |= MPA_RTR_SEND;
			break;
		case 'C':
			b |= MPA_RTR_WRITE;
			break;
		case 'D':
			b |= MPA_RTR_READ;
			break;
		default:
			abort();
		}
	}
	return b;
}

void pref_from(const char *s, uint8_t pref[3])
{
	size_t i;

	memset(pref, 0, 3);
	for (i = 0; s[i]; i++) {
		char one[2] = { s[i], 0 };

		pref[i] = rtr_bits(one);
	}
}

/* Build f and parse it back, so f is what the wire carries. */
void through_wire(struct mpa_frame *f, uint8_t *buf)
{
	size_t w = 0, used = 0;
	enum wire_err e;

	e = mpa_frame_build(f, buf, MPA_FRAME_MAX, &w);
	ck_assert_msg(e == WIRE_OK, "build: %s", wire_errname(e));
	e = mpa_frame_parse(buf, w, f, &used);
	ck_assert_msg(e == WIRE_OK, "parse: %s", wire_errname(e));
	ck_assert_uint_eq(used, w);
}

struct neg_policy policy(enum neg_role role)
{
	struct neg_policy p;

	neg_policy_init(&p, role);
	return p;
}

/* A Request as any peer could send it. */
struct mpa_frame req_frame(uint8_t rev, uint8_t flags, bool enh, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord)
{
	struct mpa_frame f;

	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_REQ;
	f.rev = rev;
	f.flags = flags;
	f.enhanced = enh;
	f.enh.p2p = p2p;
	f.enh.rtr = rtr;
	f.enh.ird = ird;
	f.enh.ord = ord;
	return f;
}

struct mpa_frame rep_frame(uint8_t rev, uint8_t flags, bool enh, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord)
{
	struct mpa_frame f = req_frame(rev, flags, enh, p2p, rtr, ird, ord);

	f.type = MPA_FRAME_REP;
	return f;
}
