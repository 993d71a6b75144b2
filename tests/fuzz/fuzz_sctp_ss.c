/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * sctp_ss_parse on arbitrary bytes: the verdict must match an independent
 * reading of RFC 5043 §5.2.3 / RFC 6581 §7, an accepted message must
 * build back to the same bytes and parse to the same fields, and every
 * shorter prefix must behave.  The same bytes then drive the session
 * sequence tracker (checked against sctp_ss_legal_next) and, for an
 * Initiate, both ends of neg_sctp_*.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "negotiate.h"
#include "sctp_ss.h"

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

static uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* What the parser must say about size octets of data. */
static enum wire_err expected(const uint8_t *data, size_t size)
{
	uint16_t fc;

	if (size < 4)
		return WIRE_ESHORT;
	fc = be16(data + 2);
	if (fc < 1 || fc > 7)
		return WIRE_EOPCODE;
	if (size - 4 > 512)
		return WIRE_ELEN;
	if (fc == 4 && size > 4)
		return WIRE_ELEN;
	if ((fc == 5 || fc == 6) && size < 8)
		return WIRE_ESHORT;
	return WIRE_OK;
}

static void same_fields(const struct sctp_ss_msg *a,
			const struct sctp_ss_msg *b)
{
	CHECK(a->ssn == b->ssn && a->fc == b->fc);
	CHECK(a->enhanced == b->enhanced);
	CHECK(a->pd_len == b->pd_len && a->ulp_pd_len == b->ulp_pd_len);
	if (a->enhanced)
		CHECK(mpa_enh_word(&a->enh) == mpa_enh_word(&b->enh));
	if (a->ulp_pd_len)
		CHECK(memcmp(a->ulp_pd, b->ulp_pd, a->ulp_pd_len) == 0);
}

static void check_parse(const uint8_t *data, size_t size)
{
	static uint8_t out[SCTP_SS_MSG_MAX];
	struct sctp_ss_msg m, m2;
	size_t used = 0, w = 0, used2 = 0;
	enum wire_err e;

	e = sctp_ss_parse(data, size, &m, &used);
	CHECK(e == expected(data, size));
	if (e != WIRE_OK)
		return;
	CHECK(used == size);
	CHECK(m.ssn == be16(data) && m.fc == be16(data + 2));
	CHECK(m.pd_len == size - 4);
	CHECK(m.pd_len == 0 || m.pd == data + 4);
	if (sctp_ss_fc_has_enh(m.fc)) {
		CHECK(m.enhanced);
		CHECK(mpa_enh_word(&m.enh) ==
		      ((uint32_t)be16(data + 4) << 16 | be16(data + 6)));
		CHECK(m.ulp_pd_len == size - 8);
		CHECK(m.ulp_pd_len == 0 || m.ulp_pd == data + 8);
	} else {
		CHECK(!m.enhanced && m.ulp_pd_len == m.pd_len);
	}
	CHECK(sctp_ss_build(&m, out, sizeof(out), &w) == WIRE_OK);
	CHECK(w == size && memcmp(out, data, size) == 0);
	CHECK(sctp_ss_parse(out, w, &m2, &used2) == WIRE_OK);
	same_fields(&m, &m2);
	/* Too small an output buffer is refused, never overrun. */
	if (w)
		CHECK(sctp_ss_build(&m, out, w - 1, &used2) == WIRE_ENOSPC);
}

/* Bytes as steps: bit 7 sent/received, bits 0-3 the message, 0x70 a
 * wrong DDP-SSN. */
static void check_sequence(const uint8_t *data, size_t size)
{
	struct sctp_ss_seq s;
	bool est = false, done = false;
	size_t i;

	if (!size)
		return;
	sctp_ss_seq_init(&s, (data[0] & 1) ? SCTP_SS_PASSIVE : SCTP_SS_ACTIVE);
	for (i = 1; i < size && i < 64; i++) {
		uint8_t b = data[i], k = b & 0x0f, next = 0;
		bool tx = b & 0x80;
		uint32_t msg = k < 8 ? k : (k == 8 ? 0xffff : SCTP_SS_SEGMENT);
		unsigned int dir = ((s.role == SCTP_SS_ACTIVE) == tx) ? 0 : 1;
		uint16_t ssn = s.ssn[dir];
		struct sctp_ss_seq before = s;
		enum sctp_ss_verdict v;
		bool legal;

		if ((b & 0x70) == 0x70)
			ssn = (uint16_t)(ssn + 1 + (b & 1));
		legal = sctp_ss_legal_next(dir, s.d[0], s.d[1], msg, &next);
		v = sctp_ss_seq_step(&s, tx, msg, ssn);
		if (ssn != before.ssn[dir]) {
			CHECK(v == SCTP_SS_BAD_SSN);
		} else {
			CHECK(v == (legal ? SCTP_SS_OK : SCTP_SS_ILLEGAL));
		}
		if (v != SCTP_SS_OK) {
			CHECK(memcmp(&s, &before, sizeof(s)) == 0);
			continue;
		}
		/* Nothing is legal once the session is over. */
		CHECK(!done);
		CHECK(s.d[dir] == next && s.d[!dir] == before.d[!dir]);
		CHECK(s.ssn[dir] == (uint16_t)(before.ssn[dir] + 1));
		/* Established never goes back. */
		if (est)
			CHECK(sctp_ss_seq_established(&s));
		est = sctp_ss_seq_established(&s);
		done = sctp_ss_seq_done(&s);
	}
}

static void policy_from(uint8_t b, struct neg_policy *p, enum neg_role role)
{
	neg_policy_init(p, role);
	p->enhanced = b & 1;
	p->p2p = (b & 2) && p->enhanced;
	p->ird_ord_strict = b & 4;
	p->rtr_reject = b & 8;
	p->rtr_types = (uint8_t)((b >> 4) & 7);
	if (!p->rtr_types)
		p->rtr_types = MPA_RTR_WRITE;
	p->fallback_v1 = b & 0x80;
	p->ord_required = b & 0x1f;
	p->ird = (uint16_t)(b % 9);
	p->ord = (uint16_t)(b % 7);
	if (b % 11 == 0)
		p->ird = MPA_IRD_ORD_NONE;
}

/* Both ends of neg_sctp_* on a parsed first message. */
static void check_negotiate(const uint8_t *data, size_t size)
{
	static uint8_t out[SCTP_SS_MSG_MAX];
	struct neg_policy pr, pi;
	struct sctp_ss_msg m, rep, rep2;
	struct neg_result rr, ri;
	enum neg_action ar, ai;
	size_t used, w;
	uint8_t b = size ? data[size - 1] : 0, d1;

	if (sctp_ss_parse(data, size, &m, &used) != WIRE_OK)
		return;
	policy_from(b, &pr, NEG_RESPONDER);
	policy_from((uint8_t)(b * 7 + 3), &pi, NEG_INITIATOR);
	ar = neg_sctp_respond(&m, &pr, b & 0x40, &rep, &rr);
	CHECK(ar == NEG_A_ACCEPT || ar == NEG_A_REJECT || ar == NEG_A_CLOSE);
	CHECK(rr.action == ar);
	CHECK(rep.ssn == 0);
	/* The answer is always a buildable message. */
	CHECK(sctp_ss_build(&rep, out, sizeof(out), &w) == WIRE_OK);
	CHECK(sctp_ss_parse(out, w, &rep2, &used) == WIRE_OK);
	if (ar == NEG_A_CLOSE) {
		CHECK(rep.fc == SCTP_SS_TERMINATE && rr.reason != NEG_R_NONE);
		return;
	}
	CHECK(m.fc == SCTP_SS_INITIATE || m.fc == SCTP_SS_ENH_INITIATE);
	CHECK(sctp_ss_legal_next(
		1, m.fc == SCTP_SS_INITIATE ? SCTP_SS_D_OPEN : SCTP_SS_D_EOPEN,
		SCTP_SS_D_NONE, rep.fc, &d1));
	if (rep.fc == SCTP_SS_ENH_ACCEPT) {
		/* RFC 6581 §9.1-9.2 as answered */
		CHECK(rep.enh.p2p == m.enh.p2p);
		if (m.enh.ird == MPA_IRD_ORD_NONE)
			CHECK(rep.enh.ord == MPA_IRD_ORD_NONE);
		else if (rep.enh.ord != MPA_IRD_ORD_NONE)
			CHECK(rep.enh.ord <= m.enh.ird);
		if (m.enh.ord == MPA_IRD_ORD_NONE)
			CHECK(rep.enh.ird == MPA_IRD_ORD_NONE);
		if (!m.enh.p2p)
			CHECK(rep.enh.rtr == 0);
		else
			CHECK(rep.enh.rtr && !(rep.enh.rtr & ~pr.rtr_types));
	}
	ai = neg_sctp_reply(&m, &rep2, &pi, &ri);
	if (ar == NEG_A_REJECT)
		CHECK(ai == NEG_A_REJECT);
	else
		CHECK(ai == NEG_A_ACCEPT || ai == NEG_A_TERM);
	if (ai == NEG_A_TERM)
		CHECK(ri.term == MPA_ECODE_INSUFFICIENT_IRD ||
		      ri.term == MPA_ECODE_NO_MATCHING_RTR);
	if (ai == NEG_A_ACCEPT && m.enh.p2p && m.fc == SCTP_SS_ENH_INITIATE) {
		CHECK(ri.rtr == MPA_RTR_SEND || ri.rtr == MPA_RTR_WRITE ||
		      ri.rtr == MPA_RTR_READ);
		CHECK(ri.rtr & rep.enh.rtr & m.enh.rtr);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t k;

	check_parse(data, size);
	/* Shorter messages: the first 12 prefixes and the one-short one. */
	for (k = 0; k < size && k < 12; k++)
		check_parse(data, k);
	if (size)
		check_parse(data, size - 1);
	check_sequence(data, size);
	check_negotiate(data, size);
	return 0;
}
