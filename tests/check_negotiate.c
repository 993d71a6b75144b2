/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection setup decisions as tables, each row written out: RFC 6581
 * §9.1 IRD/ORD on both sides (0x3FFF in each position, relaxed and
 * strict), §9.2-9.3 RTR flags (every offer x responder support, the
 * preference orders, the A echo), §10 enhanced/unenhanced, RFC 5044 CRC
 * (C x C) and markers (M x M), keys and Initiator/Initiator, ULP reject
 * and the seed-003 legacy RtR frame.  Frames go through
 * mpa_frame_build/parse so the decisions are checked on what the wire
 * carries.  Rev 0 peers, the siw captures, SCTP, policy and randomized
 * pairs are in check_negotiate_peers.c.
 */
#include "config.h"

#include "negotiate_util.h"

/* ---- RFC 6581 §9.1: IRD/ORD at the responder ---- */

struct resp_irdord_row {
	const char *name;
	uint16_t req_ird, req_ord; /* initiator's word */
	uint16_t ird, ord, ird_max, ord_req;
	bool strict;
	enum neg_action act;
	uint8_t term;
	uint16_t rep_ird, rep_ord; /* in the Reply */
	uint16_t loc_ird, loc_ord; /* final local values */
};

static const struct resp_irdord_row resp_irdord[] = {
	{ "equal", 4, 4, 4, 4, 8, 2, false, ACC, 0, 4, 4, 4, 4 },
	{ "initiator ORD above local IRD: IRD raised", 2, 6, 4, 4, 8, 2, false,
	  ACC, 0, 6, 2, 6, 2 },
	{ "initiator ORD above ird_max: IRD clamped", 10, 10, 4, 4, 8, 2, false,
	  ACC, 0, 8, 4, 8, 4 },
	{ "initiator ORD = ird_max", 10, 8, 4, 4, 8, 2, false, ACC, 0, 8, 4, 8,
	  4 },
	{ "zeros", 0, 0, 4, 4, 8, 2, false, ACC, 0, 4, 0, 4, 0 },
	{ "largest numeric values", 0x3ffe, 0x3ffe, 4, 4, 8, 2, false, ACC, 0,
	  8, 4, 8, 4 },
	{ "relaxed: initiator IRD below required ORD, clamp", 1, 3, 4, 4, 8, 2,
	  false, ACC, 0, 4, 1, 4, 1 },
	{ "strict: initiator IRD below required ORD: TERM 6", 1, 3, 4, 4, 8, 2,
	  true, REJ, MPA_ECODE_INSUFFICIENT_IRD, 4, 2, 4, 1 },
	{ "strict: initiator IRD 0: TERM 6", 0, 0, 4, 4, 8, 2, true, REJ,
	  MPA_ECODE_INSUFFICIENT_IRD, 4, 2, 4, 0 },
	{ "strict: initiator IRD = required ORD", 2, 3, 4, 4, 8, 2, true, ACC,
	  0, 4, 2, 4, 2 },
	{ "strict: required ORD 0 never rejects", 0, 0, 4, 4, 8, 0, true, ACC,
	  0, 4, 0, 4, 0 },
	{ "initiator ORD 0x3FFF: reply IRD 0x3FFF, local IRD kept", 3, NONE, 4,
	  4, 8, 2, false, ACC, 0, NONE, 3, 4, 3 },
	{ "initiator IRD 0x3FFF: reply ORD 0x3FFF, local ORD kept", NONE, 3, 4,
	  4, 8, 2, false, ACC, 0, 4, NONE, 4, 4 },
	{ "both 0x3FFF", NONE, NONE, 4, 4, 8, 2, false, ACC, 0, NONE, NONE, 4,
	  4 },
	{ "strict: initiator IRD 0x3FFF is not checked", NONE, 3, 4, 4, 8, 2,
	  true, ACC, 0, 4, NONE, 4, 4 },
	{ "strict: initiator ORD 0x3FFF, IRD 1: TERM 6", 1, NONE, 4, 4, 8, 2,
	  true, REJ, MPA_ECODE_INSUFFICIENT_IRD, NONE, 2, 4, 1 },
	{ "local IRD left to the ULP", 3, 3, NONE, 4, 8, 2, false, ACC, 0, NONE,
	  3, NONE, 3 },
	{ "local ORD left to the ULP", 3, 3, 4, NONE, 8, 2, false, ACC, 0, 4,
	  NONE, 4, NONE },
	{ "local IRD/ORD 0", 5, 5, 0, 0, 8, 0, false, ACC, 0, 5, 0, 5, 0 },
	{ "ird_max 0", 5, 5, 0, 4, 0, 0, false, ACC, 0, 0, 4, 0, 4 },
};

START_TEST(test_resp_irdord)
{
	const struct resp_irdord_row *r = &resp_irdord[_i];
	struct neg_policy p = policy(NEG_RESPONDER);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	p.ird = r->ird;
	p.ord = r->ord;
	p.ird_max = r->ird_max;
	p.ord_required = r->ord_req;
	p.ird_ord_strict = r->strict;
	ck_assert(neg_policy_check(&p, NEG_RESPONDER) == NEG_R_NONE);
	req = req_frame(2, MPA_FLAG_S, true, false, 0, r->req_ird, r->req_ord);
	through_wire(&req, buf);
	a = neg_mpa_respond(&req, &p, false, &rep, &res);
	ck_assert_msg(a == r->act, "%s: %s", r->name, neg_action_name(a));
	ck_assert_int_eq(res.action, a);
	ck_assert_uint_eq(res.term, r->term);
	ck_assert_int_eq(res.reason, r->act == ACC ? NEG_R_NONE : NEG_R_IRD);
	through_wire(&rep, buf);
	ck_assert(rep.enhanced);
	ck_assert_int_eq(!!(rep.flags & MPA_FLAG_R), r->act == REJ);
	ck_assert_msg(rep.enh.ird == r->rep_ird && rep.enh.ord == r->rep_ord,
		      "%s: reply %x/%x", r->name, rep.enh.ird, rep.enh.ord);
	ck_assert_msg(res.ird == r->loc_ird && res.ord == r->loc_ord,
		      "%s: local %x/%x", r->name, res.ird, res.ord);
	/* RFC 6581 §9.1: the peer's raw values go to the ULP. */
	ck_assert(res.peer_enh);
	ck_assert_uint_eq(res.peer.ird, r->req_ird);
	ck_assert_uint_eq(res.peer.ord, r->req_ord);
	/* The relationships after a successful negotiation. */
	if (a == ACC && r->req_ird != NONE && rep.enh.ord != NONE)
		ck_assert_uint_le(rep.enh.ord, r->req_ird);
}
END_TEST

/* ---- RFC 6581 §9.1: IRD/ORD at the initiator ---- */

struct init_irdord_row {
	const char *name;
	uint16_t rep_ird, rep_ord; /* responder's word */
	uint16_t ird, ord, ird_max;
	bool strict;
	enum neg_action act;
	uint16_t loc_ird, loc_ord;
};

static const struct init_irdord_row init_irdord[] = {
	{ "equal", 4, 4, 4, 4, 8, false, ACC, 4, 4 },
	{ "responder IRD lower: ORD lowered", 2, 3, 4, 4, 8, false, ACC, 4, 2 },
	{ "responder IRD higher: ORD kept", 10, 4, 4, 4, 8, false, ACC, 4, 4 },
	{ "responder IRD 0: ORD 0", 0, 0, 4, 4, 8, false, ACC, 4, 0 },
	{ "relaxed: responder ORD above IRD: IRD raised", 4, 6, 4, 4, 8, false,
	  ACC, 6, 4 },
	{ "relaxed: responder ORD = ird_max", 4, 8, 4, 4, 8, false, ACC, 8, 4 },
	{ "relaxed: responder ORD above ird_max: TERM 6", 4, 9, 4, 4, 8, false,
	  TRM, 4, 4 },
	{ "strict: responder ORD above IRD: TERM 6", 4, 6, 4, 4, 8, true, TRM,
	  4, 4 },
	{ "strict: responder ORD = IRD", 4, 4, 4, 4, 8, true, ACC, 4, 4 },
	{ "responder ORD 0x3FFF: local IRD kept", 4, NONE, 4, 4, 8, false, ACC,
	  4, 4 },
	{ "responder IRD 0x3FFF: local ORD kept", NONE, 4, 4, 4, 8, false, ACC,
	  4, 4 },
	{ "strict: responder ORD 0x3FFF is no demand", 4, NONE, 4, 4, 8, true,
	  ACC, 4, 4 },
	{ "local IRD left to the ULP", 4, 100, NONE, 4, 8, true, ACC, NONE, 4 },
	{ "local ORD left to the ULP", 2, 4, 4, NONE, 8, false, ACC, 4, NONE },
};

START_TEST(test_init_irdord)
{
	const struct init_irdord_row *r = &init_irdord[_i];
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	p.ird = r->ird;
	p.ord = r->ord;
	p.ird_max = r->ird_max;
	p.ird_ord_strict = r->strict;
	ck_assert(neg_policy_check(&p, NEG_INITIATOR) == NEG_R_NONE);
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	ck_assert_uint_eq(req.enh.ird, r->ird);
	ck_assert_uint_eq(req.enh.ord, r->ord);
	rep = rep_frame(2, MPA_FLAG_S, true, false, 0, r->rep_ird, r->rep_ord);
	through_wire(&rep, buf);
	a = neg_mpa_reply(&req, &rep, &p, &res);
	ck_assert_msg(a == r->act, "%s: %s", r->name, neg_action_name(a));
	if (a == TRM) {
		ck_assert_uint_eq(res.term, MPA_ECODE_INSUFFICIENT_IRD);
		ck_assert_int_eq(res.reason, NEG_R_IRD);
	} else {
		ck_assert_uint_eq(res.term, 0);
	}
	ck_assert_msg(res.ird == r->loc_ird && res.ord == r->loc_ord,
		      "%s: local %x/%x", r->name, res.ird, res.ord);
	ck_assert(res.peer_enh);
	ck_assert_uint_eq(res.peer.ird, r->rep_ird);
	ck_assert_uint_eq(res.peer.ord, r->rep_ord);
	/* initiator ORD <= responder IRD, responder ORD <= initiator IRD */
	if (a == ACC && res.ord != NONE && r->rep_ird != NONE)
		ck_assert_uint_le(res.ord, r->rep_ird);
	if (a == ACC && res.ird != NONE && r->rep_ord != NONE)
		ck_assert_uint_ge(res.ird, r->rep_ord);
}
END_TEST

/* RFC 6581 §9.1: the responder's IRD/ORD reach the ULP on a reject too. */
START_TEST(test_init_reject_reports)
{
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	rep = rep_frame(2, MPA_FLAG_S | MPA_FLAG_R, true, false, 0, 7, 9);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), REJ);
	ck_assert_int_eq(res.reason, NEG_R_PEER_REJECT);
	ck_assert(res.peer_enh);
	ck_assert_uint_eq(res.peer.ird, 7);
	ck_assert_uint_eq(res.peer.ord, 9);
	ck_assert_uint_eq(res.peer_flags, MPA_FLAG_S | MPA_FLAG_R);
	ck_assert_uint_eq(res.peer_rev, 2);
}
END_TEST

/* ---- RFC 6581 §9.2-9.3: RTR flags ---- */

struct rtr_row {
	const char *offer;   /* initiator's B/C/D with A=1 */
	const char *support; /* responder rtr_types */
	const char *reply;   /* B/C/D in the Reply */
	const char *chosen;  /* initiator's RTR, "-" = TERM 7 */
};

/*
 * Default preference Write (C), Read (D), Send (B).  The responder answers
 * the preferred offered type it supports, or all it supports when none
 * matches; the initiator sends one it offered, else TERM 7.
 */
static const struct rtr_row rtr_rows[] = {
	{ "", "B", "B", "-" },	   { "", "C", "C", "-" },
	{ "", "BC", "BC", "-" },   { "", "D", "D", "-" },
	{ "", "BD", "BD", "-" },   { "", "CD", "CD", "-" },
	{ "", "BCD", "BCD", "-" }, { "B", "B", "B", "B" },
	{ "B", "C", "C", "-" },	   { "B", "BC", "B", "B" },
	{ "B", "D", "D", "-" },	   { "B", "BD", "B", "B" },
	{ "B", "CD", "CD", "-" },  { "B", "BCD", "B", "B" },
	{ "C", "B", "B", "-" },	   { "C", "C", "C", "C" },
	{ "C", "BC", "C", "C" },   { "C", "D", "D", "-" },
	{ "C", "BD", "BD", "-" },  { "C", "CD", "C", "C" },
	{ "C", "BCD", "C", "C" },  { "BC", "B", "B", "B" },
	{ "BC", "C", "C", "C" },   { "BC", "BC", "C", "C" },
	{ "BC", "D", "D", "-" },   { "BC", "BD", "B", "B" },
	{ "BC", "CD", "C", "C" },  { "BC", "BCD", "C", "C" },
	{ "D", "B", "B", "-" },	   { "D", "C", "C", "-" },
	{ "D", "BC", "BC", "-" },  { "D", "D", "D", "D" },
	{ "D", "BD", "D", "D" },   { "D", "CD", "D", "D" },
	{ "D", "BCD", "D", "D" },  { "BD", "B", "B", "B" },
	{ "BD", "C", "C", "-" },   { "BD", "BC", "B", "B" },
	{ "BD", "D", "D", "D" },   { "BD", "BD", "D", "D" },
	{ "BD", "CD", "D", "D" },  { "BD", "BCD", "D", "D" },
	{ "CD", "B", "B", "-" },   { "CD", "C", "C", "C" },
	{ "CD", "BC", "C", "C" },  { "CD", "D", "D", "D" },
	{ "CD", "BD", "D", "D" },  { "CD", "CD", "C", "C" },
	{ "CD", "BCD", "C", "C" }, { "BCD", "B", "B", "B" },
	{ "BCD", "C", "C", "C" },  { "BCD", "BC", "C", "C" },
	{ "BCD", "D", "D", "D" },  { "BCD", "BD", "D", "D" },
	{ "BCD", "CD", "C", "C" }, { "BCD", "BCD", "C", "C" },
};

START_TEST(test_rtr)
{
	const struct rtr_row *r = &rtr_rows[_i];
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result rr, ri;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	pr.rtr_types = rtr_bits(r->support);
	pi.p2p = true;
	pi.rtr_types = rtr_bits(r->offer);
	req = req_frame(2, MPA_FLAG_S, true, true, rtr_bits(r->offer), 4, 4);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &rr), ACC);
	through_wire(&rep, buf);
	/* §9.2: "the responder MUST set Control Flag A to 1" */
	ck_assert(rep.enh.p2p);
	ck_assert_msg(rep.enh.rtr == rtr_bits(r->reply),
		      "offer %s support %s: reply %x", r->offer, r->support,
		      rep.enh.rtr);
	ck_assert_uint_eq(rr.rtr, rep.enh.rtr);
	ck_assert(rr.p2p);
	ck_assert(!rr.wait_first_fpdu);

	a = neg_mpa_reply(&req, &rep, &pi, &ri);
	if (strcmp(r->chosen, "-") == 0) {
		ck_assert_int_eq(a, TRM);
		ck_assert_uint_eq(ri.term, MPA_ECODE_NO_MATCHING_RTR);
		ck_assert_int_eq(ri.reason, NEG_R_RTR);
		ck_assert_uint_eq(ri.rtr, 0);
	} else {
		ck_assert_int_eq(a, ACC);
		ck_assert_uint_eq(ri.rtr, rtr_bits(r->chosen));
		ck_assert(ri.p2p);
	}
}
END_TEST

struct pref_row {
	const char *offer, *support, *pref, *reply;
};

/* The responder's preference order (unlisted types follow W, R, S). */
static const struct pref_row resp_pref_rows[] = {
	{ "BCD", "BCD", "", "C" },    { "BCD", "BCD", "CDB", "C" },
	{ "BCD", "BCD", "DCB", "D" }, { "BCD", "BCD", "BCD", "B" },
	{ "BCD", "BCD", "D", "D" },   { "BCD", "BCD", "B", "B" },
	{ "BCD", "BC", "D", "C" },    { "BCD", "BCD", "DB", "D" },
	{ "BC", "BCD", "DB", "B" },   { "C", "BCD", "DB", "C" },
	{ "CD", "BD", "BC", "D" },    { "B", "CD", "D", "CD" },
};

START_TEST(test_resp_pref)
{
	const struct pref_row *r = &resp_pref_rows[_i];
	struct neg_policy p = policy(NEG_RESPONDER);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	p.rtr_types = rtr_bits(r->support);
	pref_from(r->pref, p.rtr_pref);
	ck_assert(neg_policy_check(&p, NEG_RESPONDER) == NEG_R_NONE);
	req = req_frame(2, MPA_FLAG_S, true, true, rtr_bits(r->offer), 1, 1);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &p, false, &rep, &res), ACC);
	ck_assert_msg(rep.enh.rtr == rtr_bits(r->reply), "pref %s: %x", r->pref,
		      rep.enh.rtr);
}
END_TEST

/* The initiator's choice among the Reply's types (another peer may set
 * several). */
static const struct pref_row init_pref_rows[] = {
	/* offer, reply, initiator preference, chosen */
	{ "BCD", "BCD", "", "C" },  { "BCD", "BCD", "D", "D" },
	{ "BCD", "BCD", "B", "B" }, { "BCD", "BCD", "DCB", "D" },
	{ "BCD", "BD", "", "D" },   { "CD", "BD", "", "D" },
	{ "C", "BCD", "B", "C" },   { "BCD", "B", "CD", "B" },
	{ "B", "CD", "", "-" },	    { "CD", "B", "B", "-" },
};

START_TEST(test_init_pref)
{
	const struct pref_row *r = &init_pref_rows[_i];
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	p.p2p = true;
	p.rtr_types = rtr_bits(r->offer);
	pref_from(r->pref, p.rtr_pref);
	ck_assert(neg_policy_check(&p, NEG_INITIATOR) == NEG_R_NONE);
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	ck_assert(req.enh.p2p);
	ck_assert_uint_eq(req.enh.rtr, rtr_bits(r->offer));
	rep = rep_frame(2, MPA_FLAG_S, true, true, rtr_bits(r->support), 4, 4);
	through_wire(&rep, buf);
	a = neg_mpa_reply(&req, &rep, &p, &res);
	if (strcmp(r->reply, "-") == 0) {
		ck_assert_int_eq(a, TRM);
		ck_assert_uint_eq(res.term, MPA_ECODE_NO_MATCHING_RTR);
	} else {
		ck_assert_int_eq(a, ACC);
		ck_assert_uint_eq(res.rtr, rtr_bits(r->reply));
	}
}
END_TEST

/* §9.2 connection model A: echoed; with A=0, B/C/D sent 0, ignored. */
START_TEST(test_model_flag)
{
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	/* A=0 with B, C, D set by a sloppy peer: reply A=0, B=C=D=0. */
	req = req_frame(2, MPA_FLAG_S, true, false, MPA_RTR_ALL, 1, 1);
	through_wire(&req, buf);
	ck_assert_uint_eq(mpa_enh_word(&req.enh), 0x4001c001);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &res), ACC);
	ck_assert(!rep.enh.p2p);
	ck_assert_uint_eq(rep.enh.rtr, 0);
	ck_assert_uint_eq(res.rtr, 0);
	ck_assert(!res.p2p);
	/* client-server: RFC 5044 §7.1.2 rule 4 still applies */
	ck_assert(res.wait_first_fpdu);

	/* Initiator A=0; a Reply with A=0 but C set: C ignored. */
	neg_mpa_request(&pi, &req);
	through_wire(&req, buf);
	ck_assert(!req.enh.p2p);
	ck_assert_uint_eq(req.enh.rtr, 0);
	rep = rep_frame(2, MPA_FLAG_S, true, false, MPA_RTR_WRITE, 16, 16);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &res), ACC);
	ck_assert_uint_eq(res.rtr, 0);
	ck_assert(!res.p2p);

	/* Initiator A=0, Reply A=1: model mismatch, TERM 7. */
	rep = rep_frame(2, MPA_FLAG_S, true, true, MPA_RTR_WRITE, 16, 16);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &res), TRM);
	ck_assert_int_eq(res.reason, NEG_R_MODEL);
	ck_assert_uint_eq(res.term, MPA_ECODE_NO_MATCHING_RTR);

	/* Initiator A=1, Reply A=0: TERM 7. */
	pi.p2p = true;
	neg_mpa_request(&pi, &req);
	through_wire(&req, buf);
	rep = rep_frame(2, MPA_FLAG_S, true, false, 0, 16, 16);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &res), TRM);
	ck_assert_int_eq(res.reason, NEG_R_MODEL);
	ck_assert_uint_eq(res.term, MPA_ECODE_NO_MATCHING_RTR);

	/* rtr_reject: no offered type supported -> R=1 naming ours. */
	pr.rtr_types = MPA_RTR_WRITE | MPA_RTR_READ;
	pr.rtr_reject = true;
	req = req_frame(2, MPA_FLAG_S, true, true, MPA_RTR_SEND, 1, 1);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &res), REJ);
	ck_assert_int_eq(res.reason, NEG_R_RTR);
	ck_assert_uint_eq(res.term, MPA_ECODE_NO_MATCHING_RTR);
	through_wire(&rep, buf);
	ck_assert(rep.flags & MPA_FLAG_R);
	ck_assert(rep.enh.p2p);
	ck_assert_uint_eq(rep.enh.rtr, MPA_RTR_WRITE | MPA_RTR_READ);
}
END_TEST

/* §9.1 example: a Read RTR with initiator ORD 0 lets the responder IRD
 * be 1. */
struct bump_row {
	const char *name;
	const char *offer, *support;
	uint16_t req_ord, ird, ird_max;
	const char *reply;
	uint16_t rep_ird;
};

static const struct bump_row bump_rows[] = {
	{ "Read RTR, initiator ORD 0: IRD 1", "D", "D", 0, 0, 8, "D", 1 },
	{ "Write RTR, initiator ORD 0: IRD 0", "C", "BCD", 0, 0, 8, "C", 0 },
	{ "Read RTR, ird_max 0: IRD 0", "D", "BCD", 0, 0, 0, "D", 0 },
	{ "Read RTR, initiator ORD 2: IRD 2", "D", "D", 2, 0, 8, "D", 2 },
	{ "Read RTR, initiator ORD 0x3FFF", "D", "D", NONE, 0, 8, "D", NONE },
	{ "no match, Reply names Read: IRD 1", "B", "CD", 0, 0, 8, "CD", 1 },
	{ "local IRD 3 already", "D", "D", 0, 3, 8, "D", 3 },
};

START_TEST(test_read_bump)
{
	const struct bump_row *r = &bump_rows[_i];
	struct neg_policy p = policy(NEG_RESPONDER);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	p.rtr_types = rtr_bits(r->support);
	p.ird = r->ird;
	p.ird_max = r->ird_max;
	req = req_frame(2, MPA_FLAG_S, true, true, rtr_bits(r->offer), 4,
			r->req_ord);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &p, false, &rep, &res), ACC);
	ck_assert_uint_eq(rep.enh.rtr, rtr_bits(r->reply));
	ck_assert_msg(rep.enh.ird == r->rep_ird, "%s: %x", r->name,
		      rep.enh.ird);
}
END_TEST

/* ---- RFC 6581 §10 ---- */

struct enh_resp_row {
	const char *name;
	uint8_t req_rev;
	bool req_s;
	uint8_t pol_rev;
	bool pol_enh;
	enum neg_action act;
	enum neg_reason reason;
	uint8_t rep_rev;
	bool rep_enh;
};

static const struct enh_resp_row enh_resp_rows[] = {
	{ "enhanced x enhanced responder", 2, true, 2, true, ACC, NEG_R_NONE, 2,
	  true },
	{ "enhanced x Rev 2 responder without it", 2, true, 2, false, CLS,
	  NEG_R_ENH_UNSUP, 0, false },
	{ "enhanced x Rev 1 responder", 2, true, 1, false, CLS, NEG_R_ENH_UNSUP,
	  0, false },
	{ "Rev 2 S=0 x enhanced responder: unenhanced reply", 2, false, 2, true,
	  ACC, NEG_R_NONE, 2, false },
	{ "Rev 2 S=0 x Rev 2 responder", 2, false, 2, false, ACC, NEG_R_NONE, 2,
	  false },
	{ "Rev 2 S=0 x Rev 1 responder", 2, false, 1, false, ACC, NEG_R_NONE, 1,
	  false },
	{ "Rev 1 x enhanced responder (MUST accept Rev 1)", 1, false, 2, true,
	  ACC, NEG_R_NONE, 1, false },
	{ "Rev 1 x Rev 1 responder", 1, false, 1, false, ACC, NEG_R_NONE, 1,
	  false },
	{ "Rev 1 S=1 is Res: ignored", 1, true, 2, true, ACC, NEG_R_NONE, 1,
	  false },
	{ "Rev 3", 3, false, 2, true, CLS, NEG_R_REV, 0, false },
	{ "Rev 3 with S", 3, true, 2, true, CLS, NEG_R_REV, 0, false },
	{ "Rev 255", 255, false, 2, true, CLS, NEG_R_REV, 0, false },
};

START_TEST(test_enh_resp)
{
	const struct enh_resp_row *r = &enh_resp_rows[_i];
	struct neg_policy p = policy(NEG_RESPONDER);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	p.rev = r->pol_rev;
	p.enhanced = r->pol_enh;
	ck_assert(neg_policy_check(&p, NEG_RESPONDER) == NEG_R_NONE);
	req = req_frame(r->req_rev, r->req_s ? MPA_FLAG_S : 0,
			r->req_s && r->req_rev >= 2, false, 0, 1, 1);
	through_wire(&req, buf);
	a = neg_mpa_respond(&req, &p, false, &rep, &res);
	ck_assert_msg(a == r->act, "%s: %s", r->name, neg_action_name(a));
	ck_assert_int_eq(res.reason, r->reason);
	if (a == CLS)
		return;
	through_wire(&rep, buf);
	ck_assert_uint_eq(rep.rev, r->rep_rev);
	ck_assert_int_eq(rep.enhanced, r->rep_enh);
	ck_assert_int_eq(!!(rep.flags & MPA_FLAG_S), r->rep_enh);
	ck_assert_int_eq(res.enhanced, r->rep_enh);
	ck_assert_uint_eq(res.rev, r->rep_rev);
}
END_TEST

struct enh_init_row {
	const char *name;
	bool sent_enh;
	uint8_t sent_rev;
	uint8_t rep_rev;
	bool rep_enh;
	bool rep_r;
	enum neg_action act;
	enum neg_reason reason;
};

static const struct enh_init_row enh_init_rows[] = {
	{ "enhanced / enhanced", true, 2, 2, true, false, ACC, NEG_R_NONE },
	{ "enhanced / Rev 1 unenhanced", true, 2, 1, false, false, CLS,
	  NEG_R_ENH_MISMATCH },
	{ "enhanced / Rev 2 S=0", true, 2, 2, false, false, CLS,
	  NEG_R_ENH_MISMATCH },
	{ "enhanced / unenhanced reject", true, 2, 1, false, true, REJ,
	  NEG_R_PEER_REJECT },
	{ "enhanced / enhanced reject", true, 2, 2, true, true, REJ,
	  NEG_R_PEER_REJECT },
	{ "Rev 2 S=0 / enhanced", false, 2, 2, true, false, CLS,
	  NEG_R_ENH_MISMATCH },
	{ "Rev 2 S=0 / Rev 2 S=0", false, 2, 2, false, false, ACC, NEG_R_NONE },
	{ "Rev 2 S=0 / Rev 1", false, 2, 1, false, false, ACC, NEG_R_NONE },
	{ "Rev 1 / Rev 1", false, 1, 1, false, false, ACC, NEG_R_NONE },
	{ "Rev 1 / Rev 2 (above what was sent)", false, 1, 2, false, false, CLS,
	  NEG_R_REV },
	{ "enhanced / Rev 3", true, 2, 3, true, false, CLS, NEG_R_REV },
};

START_TEST(test_enh_init)
{
	const struct enh_init_row *r = &enh_init_rows[_i];
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];
	enum neg_action a;

	p.rev = r->sent_rev;
	p.enhanced = r->sent_enh;
	ck_assert(neg_policy_check(&p, NEG_INITIATOR) == NEG_R_NONE);
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	ck_assert_int_eq(req.enhanced, r->sent_enh);
	ck_assert_uint_eq(req.rev, r->sent_rev);
	rep = rep_frame(r->rep_rev,
			(r->rep_enh ? MPA_FLAG_S : 0) |
				(r->rep_r ? MPA_FLAG_R : 0),
			r->rep_enh, false, 0, 16, 16);
	through_wire(&rep, buf);
	a = neg_mpa_reply(&req, &rep, &p, &res);
	ck_assert_msg(a == r->act, "%s: %s", r->name, neg_action_name(a));
	ck_assert_int_eq(res.reason, r->reason);
	if (a == ACC)
		ck_assert_int_eq(res.enhanced, r->sent_enh);
}
END_TEST

/* §10: retry unenhanced only after an enhanced attempt refused without a
 * reply and only when the connection's flag allows it. */
START_TEST(test_fallback)
{
	static const struct {
		bool flag, sent_enh, no_reply, retry;
	} t[] = {
		{ false, false, false, false }, { false, false, true, false },
		{ false, true, false, false },	{ false, true, true, false },
		{ true, false, false, false },	{ true, false, true, false },
		{ true, true, false, false },	{ true, true, true, true },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct neg_policy p = policy(NEG_INITIATOR), retry;
		struct mpa_frame req;
		uint8_t buf[MPA_FRAME_MAX];

		p.p2p = true;
		p.fallback_v1 = t[i].flag;
		memset(&retry, 0xa5, sizeof(retry));
		ck_assert_int_eq(neg_fallback(&p, t[i].sent_enh, t[i].no_reply,
					      &retry),
				 t[i].retry);
		if (!t[i].retry)
			continue;
		ck_assert_uint_eq(retry.rev, MPA_REV_1);
		ck_assert(!retry.enhanced);
		ck_assert(!retry.p2p);
		ck_assert(!retry.fallback_v1); /* once only */
		ck_assert_uint_eq(retry.ird, p.ird);
		ck_assert_uint_eq(retry.crc, p.crc);
		ck_assert(neg_policy_check(&retry, NEG_INITIATOR) ==
			  NEG_R_NONE);
		neg_mpa_request(&retry, &req);
		through_wire(&req, buf);
		ck_assert(!req.enhanced);
		ck_assert_uint_eq(req.rev, 1);
		ck_assert(!(req.flags & MPA_FLAG_S));
		ck_assert(!neg_fallback(&retry, false, true, &p));
	}
}
END_TEST

/* ---- RFC 5044 §7.1.1: C and M ---- */

START_TEST(test_crc_markers)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		bool ic = i & 1, rc = i & 2, im = i & 4, rm = i & 8;
		struct neg_policy pi = policy(NEG_INITIATOR);
		struct neg_policy pr = policy(NEG_RESPONDER);
		struct mpa_frame req, rep;
		struct neg_result ri, rr;
		uint8_t buf[MPA_FRAME_MAX];

		pi.crc = ic;
		pi.markers = im;
		pr.crc = rc;
		pr.markers = rm;
		neg_mpa_request(&pi, &req);
		through_wire(&req, buf);
		ck_assert_int_eq(!!(req.flags & MPA_FLAG_C), ic);
		ck_assert_int_eq(!!(req.flags & MPA_FLAG_M), im);
		ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &rr),
				 ACC);
		through_wire(&rep, buf);
		ck_assert_int_eq(!!(rep.flags & MPA_FLAG_C), rc);
		ck_assert_int_eq(!!(rep.flags & MPA_FLAG_M), rm);
		ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &ri), ACC);
		/* C: "When this bit is '1' in either ... CRCs MUST be
		 * generated and checked by both endpoints." */
		ck_assert_int_eq(ri.crc, ic || rc);
		ck_assert_int_eq(rr.crc, ic || rc);
		/* M in the Request: markers from the responder, received by
		 * the initiator; M in the Reply: the other way. */
		ck_assert_int_eq(ri.markers_irx, im);
		ck_assert_int_eq(ri.markers_rrx, rm);
		ck_assert_int_eq(rr.markers_irx, im);
		ck_assert_int_eq(rr.markers_rrx, rm);
		ck_assert_int_eq(neg_markers_rx(&ri, NEG_INITIATOR), im);
		ck_assert_int_eq(neg_markers_tx(&ri, NEG_INITIATOR), rm);
		ck_assert_int_eq(neg_markers_rx(&rr, NEG_RESPONDER), rm);
		ck_assert_int_eq(neg_markers_tx(&rr, NEG_RESPONDER), im);
		ck_assert_uint_eq(ri.version, RDMAP_VERSION_IETF);
	}
}
END_TEST

/* ---- Keys, Initiator/Initiator, ULP reject ---- */

START_TEST(test_keys)
{
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct mpa_frame req, f, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	/* RFC 5044 §7.1.2 rule 5: the responder wants a Request key. */
	f = rep_frame(1, 0, false, false, 0, 0, 0);
	through_wire(&f, buf);
	ck_assert_int_eq(neg_mpa_respond(&f, &pr, false, &rep, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_KEY);
	f.type = MPA_FRAME_RTR;
	ck_assert_int_eq(neg_mpa_respond(&f, &pr, false, &rep, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_KEY);

	/* Rule 8: a Request while waiting for a Reply. */
	neg_mpa_request(&pi, &req);
	through_wire(&req, buf);
	f = req;
	ck_assert_int_eq(neg_mpa_reply(&req, &f, &pi, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_INIT_INIT);
	f.type = MPA_FRAME_RTR;
	ck_assert_int_eq(neg_mpa_reply(&req, &f, &pi, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_KEY);
}
END_TEST

START_TEST(test_ulp_reject)
{
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res, ri;
	uint8_t buf[MPA_FRAME_MAX];

	/* Unenhanced: R=1, nothing else changes. */
	req = req_frame(1, MPA_FLAG_C, false, false, 0, 0, 0);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, true, &rep, &res), REJ);
	ck_assert_int_eq(res.reason, NEG_R_ULP_REJECT);
	ck_assert_uint_eq(res.term, 0);
	ck_assert(!res.wait_first_fpdu);
	through_wire(&rep, buf);
	ck_assert_uint_eq(rep.flags, MPA_FLAG_R);
	ck_assert_uint_eq(rep.rev, 1);

	/* Enhanced: R=1 with S and the word (A echoed, IRD/ORD). */
	pi.p2p = true;
	neg_mpa_request(&pi, &req);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, true, &rep, &res), REJ);
	through_wire(&rep, buf);
	ck_assert_uint_eq(rep.flags, MPA_FLAG_R | MPA_FLAG_S);
	ck_assert(rep.enh.p2p);
	ck_assert_uint_eq(rep.enh.ird, 16);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &ri), REJ);
	ck_assert_int_eq(ri.reason, NEG_R_PEER_REJECT);
	ck_assert_uint_eq(ri.peer.ird, 16);

	/* A provider rejection (strict IRD) keeps its reason and code. */
	pr.ird_ord_strict = true;
	pr.ord_required = 20;
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, true, &rep, &res), REJ);
	ck_assert_int_eq(res.reason, NEG_R_IRD);
	ck_assert_uint_eq(res.term, MPA_ECODE_INSUFFICIENT_IRD);
	ck_assert_uint_eq(rep.enh.ord, 20);
}
END_TEST

/* ---- Seed 003: legacy RtR frame, only when both ends run it ---- */

START_TEST(test_legacy_rtr)
{
	static const struct {
		bool init_legacy, resp_legacy, ulp_reject;
		uint8_t req_flags, rep_flags;
		bool frame;
		bool wait;
	} t[] = {
		/* both: Req S=1 "will send", Rep S=1 "waiting for it" */
		{ true, true, false, MPA_FLAG_S, MPA_FLAG_S, true, false },
		/* responder not in the mode: S is Res, not echoed */
		{ true, false, false, MPA_FLAG_S, 0, false, true },
		/* initiator not in the mode: plain Rev 1 */
		{ false, true, false, 0, 0, false, true },
		{ false, false, false, 0, 0, false, true },
		/* a reject carries R, never S */
		{ true, true, true, MPA_FLAG_S, MPA_FLAG_R, false, false },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		struct neg_policy pi = policy(NEG_INITIATOR);
		struct neg_policy pr = policy(NEG_RESPONDER);
		struct mpa_frame req, rep;
		struct neg_result ri, rr;
		uint8_t buf[MPA_FRAME_MAX];
		enum neg_action a;

		pi.rev = pr.rev = MPA_REV_1;
		pi.enhanced = pr.enhanced = false;
		pi.crc = false;
		pi.legacy_rtr = t[i].init_legacy;
		pr.legacy_rtr = t[i].resp_legacy;
		ck_assert(neg_policy_check(&pi, NEG_INITIATOR) == NEG_R_NONE);
		ck_assert(neg_policy_check(&pr, NEG_RESPONDER) == NEG_R_NONE);
		neg_mpa_request(&pi, &req);
		through_wire(&req, buf);
		ck_assert_uint_eq(req.rev, 1);
		ck_assert(!req.enhanced);
		ck_assert_uint_eq(req.flags, t[i].req_flags);
		ck_assert_uint_eq(req.pd_len, 0);
		a = neg_mpa_respond(&req, &pr, t[i].ulp_reject, &rep, &rr);
		ck_assert_int_eq(a, t[i].ulp_reject ? REJ : ACC);
		through_wire(&rep, buf);
		ck_assert_uint_eq(rep.rev, 1);
		ck_assert_uint_eq(rep.flags, t[i].rep_flags);
		ck_assert_int_eq(rr.rtr_frame, t[i].frame);
		ck_assert_int_eq(rr.wait_first_fpdu, t[i].wait);
		ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &ri), a);
		ck_assert_int_eq(ri.rtr_frame, t[i].frame);
	}
}
END_TEST

START_TEST(test_legacy_init_reply)
{
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	p.rev = MPA_REV_1;
	p.enhanced = false;
	p.legacy_rtr = true;
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	/* Seed 003 item 5: the Reply's S decides. */
	rep = rep_frame(1, MPA_FLAG_S, false, false, 0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert(res.rtr_frame);
	rep = rep_frame(1, 0, false, false, 0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert(!res.rtr_frame);
	/* Without the mode a Rev 1 Reply S bit is Res: ignored. */
	p.legacy_rtr = false;
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	rep = rep_frame(1, MPA_FLAG_S, false, false, 0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert(!res.rtr_frame);
	/* ... even if the caller's own Request carried S. */
	req.flags |= MPA_FLAG_S;
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert(!res.rtr_frame);
	/* An enhanced Request to a legacy (Rev 1) responder: closed. */
	p = policy(NEG_RESPONDER);
	p.rev = MPA_REV_1;
	p.enhanced = false;
	p.legacy_rtr = true;
	req = req_frame(2, MPA_FLAG_S, true, true, MPA_RTR_WRITE, 1, 1);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &p, false, &rep, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_ENH_UNSUP);
}
END_TEST

static Suite *negotiate_suite(void)
{
	Suite *s = suite_create("negotiate");

	add_loop_tcase(s, "resp_irdord", test_resp_irdord,
		       ARRAY_SIZE(resp_irdord));
	add_loop_tcase(s, "init_irdord", test_init_irdord,
		       ARRAY_SIZE(init_irdord));
	add_tcase(s, "init_reject_reports", test_init_reject_reports);
	add_loop_tcase(s, "rtr", test_rtr, ARRAY_SIZE(rtr_rows));
	add_loop_tcase(s, "resp_pref", test_resp_pref,
		       ARRAY_SIZE(resp_pref_rows));
	add_loop_tcase(s, "init_pref", test_init_pref,
		       ARRAY_SIZE(init_pref_rows));
	add_tcase(s, "model_flag", test_model_flag);
	add_loop_tcase(s, "read_bump", test_read_bump, ARRAY_SIZE(bump_rows));
	add_loop_tcase(s, "enh_resp", test_enh_resp, ARRAY_SIZE(enh_resp_rows));
	add_loop_tcase(s, "enh_init", test_enh_init, ARRAY_SIZE(enh_init_rows));
	add_tcase(s, "fallback", test_fallback);
	add_tcase(s, "crc_markers", test_crc_markers);
	add_tcase(s, "keys", test_keys);
	add_tcase(s, "ulp_reject", test_ulp_reject);
	add_tcase(s, "legacy_rtr", test_legacy_rtr);
	add_tcase(s, "legacy_init_reply", test_legacy_init_reply);
	return s;
}

TEST_MAIN(negotiate_suite)
