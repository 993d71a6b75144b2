/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The MPA negotiation functions with fuzzed policies and frames.  Input:
 * a mode octet, two 8-octet policies (initiator, responder), then a raw
 * startup frame.  Mode 0 runs our two ends against each other; mode 1
 * gives the raw frame to the responder as a Request; mode 2 gives it to
 * the initiator as the Reply.  Invariants of RFC 5044 §7.1, RFC 6581
 * §9-10 and seed 002 are checked on every outcome; abort() on any
 * violation.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "negotiate.h"
#include "rdmap.h"

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

#define NONE MPA_IRD_ORD_NONE
#define HDR 17

static uint16_t irdord(uint8_t b)
{
	if (b == 0xff)
		return NONE;
	if (b == 0xfe)
		return 0x3ffe;
	return b % 64;
}

static void policy_from(const uint8_t *b, struct neg_policy *p,
			enum neg_role role)
{
	static const uint8_t perms[6][3] = {
		{ 2, 4, 1 }, { 2, 1, 4 }, { 4, 2, 1 },
		{ 4, 1, 2 }, { 1, 2, 4 }, { 1, 4, 2 },
	};
	unsigned int n = (b[2] / 6) % 4;

	neg_policy_init(p, role);
	p->rev = b[0] & 3;
	p->enhanced = b[0] & 4;
	p->markers = b[0] & 8;
	p->crc = b[0] & 0x10;
	p->p2p = b[0] & 0x20;
	p->ird_ord_strict = b[0] & 0x40;
	p->rev0_permissive = b[0] & 0x80;
	p->rtr_types = b[1] & 7;
	p->rtr_reject = b[1] & 8;
	p->legacy_rtr = b[1] & 0x10;
	p->fallback_v1 = b[1] & 0x20;
	memset(p->rtr_pref, 0, sizeof(p->rtr_pref));
	memcpy(p->rtr_pref, perms[b[2] % 6], n);
	p->ird = irdord(b[3]);
	p->ord = irdord(b[4]);
	p->ird_max = b[5] == 0xfe ? 0x3ffe : b[5] % 64;
	p->ord_required = b[6] % 64;
	if (b[7] & 1 && p->ird != NONE && p->ird > p->ird_max)
		p->ird_max = p->ird;
}

static bool frame_from(const uint8_t *data, size_t size, struct mpa_frame *f)
{
	size_t used;

	return mpa_frame_parse(data, size, f, &used) == WIRE_OK;
}

/* Build f and parse it back; a decision must always be encodable. */
static void wire(struct mpa_frame *f, uint8_t *buf)
{
	size_t w = 0, used = 0;

	CHECK(mpa_frame_build(f, buf, MPA_FRAME_MAX, &w) == WIRE_OK);
	CHECK(mpa_frame_parse(buf, w, f, &used) == WIRE_OK && used == w);
}

static bool one_rtr(uint8_t t)
{
	return t == MPA_RTR_SEND || t == MPA_RTR_WRITE || t == MPA_RTR_READ;
}

static void check_result(const struct neg_result *r, enum neg_action a)
{
	CHECK(r->action == a && (unsigned int)a < NEG_A_MAX);
	CHECK((unsigned int)r->reason < NEG_R_MAX);
	CHECK(r->term == 0 || r->term == MPA_ECODE_INSUFFICIENT_IRD ||
	      r->term == MPA_ECODE_NO_MATCHING_RTR);
	if (a == NEG_A_CLOSE || a == NEG_A_TERM)
		CHECK(r->reason != NEG_R_NONE);
	if (a == NEG_A_TERM)
		CHECK(r->term != 0);
	if (a == NEG_A_ACCEPT) {
		CHECK(r->reason == NEG_R_NONE && r->term == 0);
		/* seed 002: version 0 always with markers and CRC */
		if (r->version == RDMAP_VERSION_RDMAC)
			CHECK(r->markers_irx && r->markers_rrx && r->crc &&
			      !r->enhanced && r->rev == 0);
		else
			CHECK(r->version == RDMAP_VERSION_IETF);
	}
}

/* Responder invariants for Request req answered by rep. */
static void check_responder(const struct mpa_frame *req,
			    const struct neg_policy *p,
			    const struct mpa_frame *rep,
			    const struct neg_result *r, enum neg_action a)
{
	check_result(r, a);
	CHECK(a != NEG_A_TERM);
	if (a == NEG_A_CLOSE)
		return;
	CHECK(req->type == MPA_FRAME_REQ && rep->type == MPA_FRAME_REP);
	CHECK(!!(rep->flags & MPA_FLAG_R) == (a == NEG_A_REJECT));
	if (req->rev == 0) {
		/* seed 002 §5.3.1: only permissive, Rev 0, M=1, C=1 */
		CHECK(p->rev0_permissive && rep->rev == 0);
		CHECK((rep->flags & (MPA_FLAG_M | MPA_FLAG_C)) ==
		      (MPA_FLAG_M | MPA_FLAG_C));
		CHECK(r->version == 0);
		return;
	}
	CHECK(req->rev <= MPA_REV_2 && rep->rev >= 1 && rep->rev <= req->rev);
	/* RFC 6581 §10: enhanced in, enhanced out; unenhanced likewise */
	CHECK(rep->enhanced == req->enhanced);
	CHECK(!!(rep->flags & MPA_FLAG_M) == p->markers);
	CHECK(r->crc == !!((req->flags | rep->flags) & MPA_FLAG_C));
	CHECK(r->markers_irx == !!(req->flags & MPA_FLAG_M));
	CHECK(r->markers_rrx == !!(rep->flags & MPA_FLAG_M));
	if (!req->enhanced)
		return;
	CHECK(rep->enh.p2p == req->enh.p2p);
	if (!req->enh.p2p) {
		CHECK(rep->enh.rtr == 0);
	} else if (neg_policy_check(p, NEG_RESPONDER) == NEG_R_NONE) {
		CHECK(rep->enh.rtr && !(rep->enh.rtr & ~p->rtr_types));
		if (req->enh.rtr & p->rtr_types)
			CHECK(one_rtr(rep->enh.rtr) &&
			      (rep->enh.rtr & req->enh.rtr));
	}
	/* RFC 6581 §9.1 */
	if (req->enh.ird == NONE)
		CHECK(rep->enh.ord == NONE);
	else if (a == NEG_A_ACCEPT && rep->enh.ord != NONE)
		CHECK(rep->enh.ord <= req->enh.ird);
	if (req->enh.ord == NONE)
		CHECK(rep->enh.ird == NONE && r->ird == p->ird);
	if (req->enh.ird == NONE)
		CHECK(r->ord == p->ord);
}

/* Initiator invariants for Reply rep to Request req. */
static void check_initiator(const struct mpa_frame *req,
			    const struct neg_policy *p,
			    const struct mpa_frame *rep,
			    const struct neg_result *r, enum neg_action a)
{
	check_result(r, a);
	if (rep->type == MPA_FRAME_REQ)
		CHECK(a == NEG_A_CLOSE && r->reason == NEG_R_INIT_INIT);
	if (a == NEG_A_CLOSE || a == NEG_A_TERM)
		return;
	CHECK(rep->type == MPA_FRAME_REP);
	CHECK(!!(rep->flags & MPA_FLAG_R) == (a == NEG_A_REJECT));
	if (rep->rev == 0) {
		CHECK(p->rev0_permissive || req->rev == 0);
		CHECK(r->version == 0);
		return;
	}
	CHECK(req->rev != 0 && rep->rev <= req->rev && rep->rev <= 2);
	CHECK(r->crc == !!((req->flags | rep->flags) & MPA_FLAG_C));
	if (a == NEG_A_REJECT)
		return;
	CHECK(rep->enhanced == req->enhanced);
	if (!req->enhanced) {
		CHECK(r->rtr == 0);
		return;
	}
	/* RFC 6581 §9.1 after success */
	if (p->ird == NONE)
		CHECK(r->ird == NONE);
	else if (rep->enh.ord != NONE)
		CHECK(r->ird >= rep->enh.ord && r->ird >= p->ird);
	else
		CHECK(r->ird == p->ird);
	if (p->ord == NONE)
		CHECK(r->ord == NONE);
	else if (rep->enh.ird != NONE)
		CHECK(r->ord <= rep->enh.ird && r->ord <= p->ord);
	else
		CHECK(r->ord == p->ord);
	/* RFC 6581 §9.2: exactly one RTR type, offered and allowed */
	CHECK(rep->enh.p2p == req->enh.p2p);
	if (req->enh.p2p)
		CHECK(one_rtr(r->rtr) &&
		      (r->rtr & req->enh.rtr & rep->enh.rtr));
	else
		CHECK(r->rtr == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint8_t buf[MPA_FRAME_MAX];
	struct neg_policy pi, pr, retry;
	struct mpa_frame req, rep;
	struct neg_result ri, rr;
	enum neg_action ai, ar;
	bool ulp_reject;

	if (size < HDR)
		return 0;
	policy_from(data + 1, &pi, NEG_INITIATOR);
	policy_from(data + 9, &pr, NEG_RESPONDER);
	ulp_reject = data[0] & 0x80;

	switch (data[0] % 3) {
	case 0:
		neg_mpa_request(&pi, &req);
		if (mpa_frame_build(&req, buf, sizeof(buf), &(size_t){ 0 }) !=
		    WIRE_OK) {
			/* only an invalid policy may give an unencodable
			 * Request */
			CHECK(neg_policy_check(&pi, NEG_INITIATOR) !=
			      NEG_R_NONE);
			return 0;
		}
		wire(&req, buf);
		ar = neg_mpa_respond(&req, &pr, ulp_reject, &rep, &rr);
		check_responder(&req, &pr, &rep, &rr, ar);
		if (ar == NEG_A_CLOSE) {
			if (neg_fallback(&pi, req.enhanced, true, &retry))
				CHECK(!retry.enhanced && retry.rev == 1);
			return 0;
		}
		wire(&rep, buf);
		ai = neg_mpa_reply(&req, &rep, &pi, &ri);
		check_initiator(&req, &pi, &rep, &ri, ai);
		if (ar == NEG_A_REJECT)
			CHECK(ai == NEG_A_REJECT);
		if (ai == NEG_A_ACCEPT) {
			/* both ends see the same connection */
			CHECK(ri.version == rr.version && ri.crc == rr.crc);
			CHECK(ri.markers_irx == rr.markers_irx &&
			      ri.markers_rrx == rr.markers_rrx);
			CHECK(ri.rtr_frame == rr.rtr_frame);
			if (ri.rtr)
				CHECK(ri.rtr & rr.rtr);
		}
		break;
	case 1:
		if (!frame_from(data + HDR, size - HDR, &req))
			return 0;
		ar = neg_mpa_respond(&req, &pr, ulp_reject, &rep, &rr);
		check_responder(&req, &pr, &rep, &rr, ar);
		if (ar != NEG_A_CLOSE &&
		    neg_policy_check(&pr, NEG_RESPONDER) == NEG_R_NONE)
			wire(&rep, buf);
		break;
	default:
		neg_mpa_request(&pi, &req);
		if (!frame_from(data + HDR, size - HDR, &rep))
			return 0;
		ai = neg_mpa_reply(&req, &rep, &pi, &ri);
		check_initiator(&req, &pi, &rep, &ri, ai);
		break;
	}
	return 0;
}
