/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection setup decisions as tables, each row written out: RFC 6581
 * §9.1 IRD/ORD on both sides (0x3FFF in each position, relaxed and
 * strict), §9.2-9.3 RTR flags (every offer x responder support, the
 * preference orders, the A echo), §10 enhanced/unenhanced, RFC 5044 CRC
 * (C x C) and markers (M x M), keys and Initiator/Initiator, ULP reject,
 * the seed-003 legacy RtR frame, the seed-002 Figures 2, 3 and 4 cell by
 * cell, the siw captures, DDP/SCTP session control, policy checks and
 * randomized invariants.  Frames go through mpa_frame_build/parse so
 * the decisions are checked on what the wire carries.
 */
#include "common.h"

#include "negotiate.h"
#include "rdmap.h"

#define NONE MPA_IRD_ORD_NONE
#define ACC NEG_A_ACCEPT
#define REJ NEG_A_REJECT
#define TRM NEG_A_TERM
#define CLS NEG_A_CLOSE

/* RFC 6581 flag letters: B = Send, C = Write, D = Read. */
static uint8_t rtr_bits(const char *s)
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

static void pref_from(const char *s, uint8_t pref[3])
{
	size_t i;

	memset(pref, 0, 3);
	for (i = 0; s[i]; i++) {
		char one[2] = { s[i], 0 };

		pref[i] = rtr_bits(one);
	}
}

/* Build f and parse it back, so f is what the wire carries. */
static void through_wire(struct mpa_frame *f, uint8_t *buf)
{
	size_t w = 0, used = 0;
	enum wire_err e;

	e = mpa_frame_build(f, buf, MPA_FRAME_MAX, &w);
	ck_assert_msg(e == WIRE_OK, "build: %s", wire_errname(e));
	e = mpa_frame_parse(buf, w, f, &used);
	ck_assert_msg(e == WIRE_OK, "parse: %s", wire_errname(e));
	ck_assert_uint_eq(used, w);
}

static struct neg_policy policy(enum neg_role role)
{
	struct neg_policy p;

	neg_policy_init(&p, role);
	return p;
}

/* A Request as any peer could send it. */
static struct mpa_frame req_frame(uint8_t rev, uint8_t flags, bool enh,
				  bool p2p, uint8_t rtr, uint16_t ird,
				  uint16_t ord)
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

static struct mpa_frame rep_frame(uint8_t rev, uint8_t flags, bool enh,
				  bool p2p, uint8_t rtr, uint16_t ird,
				  uint16_t ord)
{
	struct mpa_frame f = req_frame(rev, flags, enh, p2p, rtr, ird, ord);

	f.type = MPA_FRAME_REP;
	return f;
}

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

/* ---- Seed 002 Figures 2, 3, 4 (RFC 5044 Figures 15, 16) ---- */

enum rnic { RDMAC, IETF_NP, IETF_P, OURS_REV0 };

struct outcome {
	bool close;
	int v;	  /* DDP/RDMAP version */
	int x, y; /* markers received by initiator / responder */
};

#define CLOSE_                   \
	{                        \
		true, -1, -1, -1 \
	}
#define V(v, x, y)                   \
	{                            \
		false, (v), (x), (y) \
	}

/*
 * Run one connection.  RDMAC is an in-test model of an upgraded RDMAC
 * RNIC (seed 002 §5.2.1, §5.2.2, §5.3.1, §5.3.2): it always sends Rev 0,
 * M=1, C=1, runs version 0 with markers and CRC both ways, and closes on
 * a Reply that is not Rev 0.  IETF_NP / IETF_P are our implementation
 * with the strict / permissive policy.  OURS_REV0 is our initiator with
 * rev 0 (the iwcmctl --rev 0 emulation of an RDMAC peer).
 */
static struct outcome run_pair(enum rnic it, bool im, enum rnic rt, bool rm,
			       uint8_t ietf_rev)
{
	struct outcome o = CLOSE_;
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct mpa_frame req, rep;
	struct neg_result ri, rr;
	uint8_t buf[MPA_FRAME_MAX];
	bool ietf_i = it == IETF_NP || it == IETF_P || it == OURS_REV0;
	bool ietf_r = rt == IETF_NP || rt == IETF_P;

	pi.rev = it == OURS_REV0 ? MPA_REV_RDMAC : ietf_rev;
	pi.enhanced = pi.rev == MPA_REV_2;
	pi.markers = im;
	pi.rev0_permissive = it == IETF_P;
	pr.rev = ietf_rev;
	pr.enhanced = ietf_rev == MPA_REV_2;
	pr.markers = rm;
	pr.rev0_permissive = rt == IETF_P;
	ck_assert(neg_policy_check(&pi, NEG_INITIATOR) == NEG_R_NONE);
	ck_assert(neg_policy_check(&pr, NEG_RESPONDER) == NEG_R_NONE);

	if (ietf_i) {
		neg_mpa_request(&pi, &req);
	} else {
		/* seed 002 §5.2.1: Rev 0, M and C set */
		req = req_frame(0, MPA_FLAG_M | MPA_FLAG_C, false, false, 0, 0,
				0);
	}
	through_wire(&req, buf);
	if (it == OURS_REV0 || it == RDMAC) {
		ck_assert_uint_eq(req.rev, 0);
		ck_assert_uint_eq(req.flags, MPA_FLAG_M | MPA_FLAG_C);
	}

	if (ietf_r) {
		if (neg_mpa_respond(&req, &pr, false, &rep, &rr) == CLS) {
			ck_assert_int_eq(rr.reason, NEG_R_REV0);
			return o;
		}
	} else {
		/* seed 002 §5.2.2 / §5.3.2: Rev 0 and M=1 whatever came */
		rep = rep_frame(0, MPA_FLAG_M | MPA_FLAG_C, false, false, 0, 0,
				0);
	}
	through_wire(&rep, buf);

	if (ietf_i) {
		enum neg_action a = neg_mpa_reply(&req, &rep, &pi, &ri);

		if (a == CLS)
			return o;
		ck_assert_int_eq(a, ACC);
		o.v = ri.version;
		o.x = ri.markers_irx;
		o.y = ri.markers_rrx;
		ck_assert(ri.version == 1 || ri.crc);
	} else {
		if (rep.rev != 0)
			return o; /* the model closes */
		o.v = 0;
		o.x = 1;
		o.y = 1;
	}
	/* Both ends see the same connection. */
	if (ietf_r) {
		ck_assert_int_eq(rr.version, o.v);
		ck_assert_int_eq(rr.markers_irx, o.x);
		ck_assert_int_eq(rr.markers_rrx, o.y);
		if (o.v == 0) {
			ck_assert(rr.crc);
			/* seed 002 §5.3: never M=0 in a Rev 0 Reply */
			ck_assert(rep.flags & MPA_FLAG_M);
			ck_assert(rep.flags & MPA_FLAG_C);
		}
	}
	if (ietf_i && o.v == 0)
		ck_assert(ri.crc);
	o.close = false;
	return o;
}

struct fig_cell {
	const char *fig;
	enum rnic it;
	bool im;
	enum rnic rt;
	bool rm;
	struct outcome want;
};

static const struct fig_cell fig_cells[] = {
	/* Figure 2: RDMAC RNIC and non-permissive IETF RNIC. */
	{ "2", RDMAC, 1, RDMAC, 1, V(0, 1, 1) },
	{ "2", RDMAC, 1, IETF_NP, 0, CLOSE_ },
	{ "2", RDMAC, 1, IETF_NP, 1, CLOSE_ },
	{ "2", IETF_NP, 0, RDMAC, 1, CLOSE_ },
	{ "2", IETF_NP, 0, IETF_NP, 0, V(1, 0, 0) },
	{ "2", IETF_NP, 0, IETF_NP, 1, V(1, 0, 1) },
	{ "2", IETF_NP, 1, RDMAC, 1, CLOSE_ },
	{ "2", IETF_NP, 1, IETF_NP, 0, V(1, 1, 0) },
	{ "2", IETF_NP, 1, IETF_NP, 1, V(1, 1, 1) },
	/* Figure 3: RDMAC RNIC and permissive IETF RNIC. */
	{ "3", RDMAC, 1, RDMAC, 1, V(0, 1, 1) },
	/*
	 * RDMAC x permissive responder with M=0 is N/A in the figure: a
	 * permissive responder "will never return an MPA Reply Frame with
	 * the M bit set to zero" to Rev 0.  Run with M=0 configured, it
	 * answers M=1 (checked in run_pair), so the cell equals the M=1
	 * one.
	 */
	{ "3 (N/A cell, M=0 configured)", RDMAC, 1, IETF_P, 0, V(0, 1, 1) },
	{ "3", RDMAC, 1, IETF_P, 1, V(0, 1, 1) },
	{ "3", IETF_P, 0, RDMAC, 1, V(0, 1, 1) },
	{ "3", IETF_P, 0, IETF_P, 0, V(1, 0, 0) },
	{ "3", IETF_P, 0, IETF_P, 1, V(1, 0, 1) },
	{ "3", IETF_P, 1, RDMAC, 1, V(0, 1, 1) },
	{ "3", IETF_P, 1, IETF_P, 0, V(1, 1, 0) },
	{ "3", IETF_P, 1, IETF_P, 1, V(1, 1, 1) },
	/* Figure 4: non-permissive and permissive IETF RNICs. */
	{ "4", IETF_NP, 0, IETF_NP, 0, V(1, 0, 0) },
	{ "4", IETF_NP, 0, IETF_NP, 1, V(1, 0, 1) },
	{ "4", IETF_NP, 0, IETF_P, 0, V(1, 0, 0) },
	{ "4", IETF_NP, 0, IETF_P, 1, V(1, 0, 1) },
	{ "4", IETF_NP, 1, IETF_NP, 0, V(1, 1, 0) },
	{ "4", IETF_NP, 1, IETF_NP, 1, V(1, 1, 1) },
	{ "4", IETF_NP, 1, IETF_P, 0, V(1, 1, 0) },
	{ "4", IETF_NP, 1, IETF_P, 1, V(1, 1, 1) },
	{ "4", IETF_P, 0, IETF_NP, 0, V(1, 0, 0) },
	{ "4", IETF_P, 0, IETF_NP, 1, V(1, 0, 1) },
	{ "4", IETF_P, 0, IETF_P, 0, V(1, 0, 0) },
	{ "4", IETF_P, 0, IETF_P, 1, V(1, 0, 1) },
	{ "4", IETF_P, 1, IETF_NP, 0, V(1, 1, 0) },
	{ "4", IETF_P, 1, IETF_NP, 1, V(1, 1, 1) },
	{ "4", IETF_P, 1, IETF_P, 0, V(1, 1, 0) },
	{ "4", IETF_P, 1, IETF_P, 1, V(1, 1, 1) },
	/* Our rev-0 initiator plays the RDMAC rows of Figures 2 and 3. */
	{ "2 (ours as RDMAC)", OURS_REV0, 1, RDMAC, 1, V(0, 1, 1) },
	{ "2 (ours as RDMAC)", OURS_REV0, 1, IETF_NP, 0, CLOSE_ },
	{ "2 (ours as RDMAC)", OURS_REV0, 1, IETF_NP, 1, CLOSE_ },
	{ "3 (ours as RDMAC)", OURS_REV0, 1, IETF_P, 0, V(0, 1, 1) },
	{ "3 (ours as RDMAC)", OURS_REV0, 1, IETF_P, 1, V(0, 1, 1) },
};

static const char *const rnic_names[] = {
	"RDMAC",
	"IETF non-permissive",
	"IETF permissive",
	"ours Rev 0",
};

START_TEST(test_seed002)
{
	const struct fig_cell *c = &fig_cells[_i];
	uint8_t rev;

	/* The figures' IETF RNICs are Rev 1; ours also speak Rev 2. */
	for (rev = MPA_REV_1; rev <= MPA_REV_2; rev++) {
		struct outcome o = run_pair(c->it, c->im, c->rt, c->rm, rev);

		ck_assert_msg(o.close == c->want.close && o.v == c->want.v &&
				      o.x == c->want.x && o.y == c->want.y,
			      "Figure %s, %s M=%d x %s M=%d (Rev %u): got %s "
			      "V=%d M=%d/%d",
			      c->fig, rnic_names[c->it], c->im,
			      rnic_names[c->rt], c->rm, rev,
			      o.close ? "close" : "", o.v, o.x, o.y);
	}
}
END_TEST

/* Rev 0 Replies in the initiator's own words (seed 002 §5.2.2, §5.3.2). */
START_TEST(test_rev0_init)
{
	struct neg_policy p = policy(NEG_INITIATOR);
	struct mpa_frame req, rep;
	struct neg_result res;
	uint8_t buf[MPA_FRAME_MAX];

	p.p2p = true;
	neg_mpa_request(&p, &req);
	through_wire(&req, buf);
	rep = rep_frame(0, MPA_FLAG_M | MPA_FLAG_C, false, false, 0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), CLS);
	ck_assert_int_eq(res.reason, NEG_R_REV0);
	p.rev0_permissive = true;
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert_uint_eq(res.version, 0);
	ck_assert_uint_eq(res.rev, 0);
	ck_assert(res.markers_irx && res.markers_rrx && res.crc);
	ck_assert(!res.enhanced);
	ck_assert(!res.p2p);
	ck_assert_uint_eq(res.rtr, 0);
	/* even an RDMAC Reply that says M=0 C=0: RDMAC always uses both */
	rep = rep_frame(0, 0, false, false, 0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), ACC);
	ck_assert(res.markers_irx && res.markers_rrx && res.crc);
	rep = rep_frame(0, MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_R, false, false,
			0, 0, 0);
	through_wire(&rep, buf);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &p, &res), REJ);
	ck_assert_int_eq(res.reason, NEG_R_PEER_REJECT);
	ck_assert_uint_eq(res.version, 0);

	/* Permissive responder: ULP reject of a Rev 0 Request. */
	p = policy(NEG_RESPONDER);
	p.rev0_permissive = true;
	req = req_frame(0, MPA_FLAG_M | MPA_FLAG_C, false, false, 0, 0, 0);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &p, true, &rep, &res), REJ);
	through_wire(&rep, buf);
	ck_assert_uint_eq(rep.rev, 0);
	ck_assert_uint_eq(rep.flags, MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_R);
	/* A Rev 0 S bit means nothing: no enhanced reply. */
	req = req_frame(0, MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_S, false, false,
			0, 0, 0);
	through_wire(&req, buf);
	ck_assert_int_eq(neg_mpa_respond(&req, &p, false, &rep, &res), ACC);
	ck_assert_uint_eq(rep.flags, MPA_FLAG_M | MPA_FLAG_C);
	ck_assert(!rep.enhanced);
	ck_assert(res.wait_first_fpdu);
}
END_TEST

/* ---- The siw captures (../shared/captures) ---- */

#define KEY_REQ "4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 "
#define KEY_REP "4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 "

struct capture_row {
	const char *name;
	const char *req_hex, *rep_hex;
	bool p2p, crc_i, crc_r;
	uint16_t ird, ord;
	uint8_t rtr;
	bool crc;
};

static const struct capture_row captures[] = {
	{ "siw-rping-default", KEY_REQ "10 02 00 04 00 01 00 01",
	  KEY_REP "10 02 00 04 00 01 00 01", false, false, false, 1, 1, 0,
	  false },
	{ "siw-rping-mpa2-p2p-writertr", KEY_REQ "10 02 00 04 80 01 c0 01",
	  KEY_REP "10 02 00 04 80 01 80 01", true, false, false, 1, 1,
	  MPA_RTR_WRITE, false },
	{ "siw-rping-mpa1", KEY_REQ "00 01 00 00", KEY_REP "00 01 00 00", false,
	  false, false, 1, 1, 0, false },
	{ "siw-readbw-mpa1-crc", KEY_REQ "40 01 00 00", KEY_REP "40 01 00 00",
	  false, true, true, 1, 1, 0, true },
};

START_TEST(test_captures)
{
	const struct capture_row *c = &captures[_i];
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct neg_policy pr = policy(NEG_RESPONDER);
	uint8_t want_req[64], want_rep[64], out[MPA_FRAME_MAX];
	struct mpa_frame req, rep;
	struct neg_result ri, rr;
	size_t nreq, nrep, used, w;
	bool v1 = strstr(c->name, "mpa1") != NULL;

	nreq = test_hex(c->req_hex, want_req, sizeof(want_req));
	nrep = test_hex(c->rep_hex, want_rep, sizeof(want_rep));
	/* Our initiator, configured like siw, sends the same bytes. */
	pi.rev = v1 ? MPA_REV_1 : MPA_REV_2;
	pi.enhanced = !v1;
	pi.crc = c->crc_i;
	pi.p2p = c->p2p;
	pi.ird = c->ird;
	pi.ord = c->ord;
	neg_mpa_request(&pi, &req);
	ck_assert(mpa_frame_build(&req, out, sizeof(out), &w) == WIRE_OK);
	ck_assert_uint_eq(w, nreq);
	ck_assert_msg(memcmp(out, want_req, w) == 0, "%s request", c->name);

	/* Our responder answers siw's Request with siw's Reply bytes. */
	pr.crc = c->crc_r;
	pr.ird = c->ird;
	pr.ord = c->ord;
	ck_assert(mpa_frame_parse(want_req, nreq, &req, &used) == WIRE_OK);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &rr), ACC);
	ck_assert(mpa_frame_build(&rep, out, sizeof(out), &w) == WIRE_OK);
	ck_assert_uint_eq(w, nrep);
	ck_assert_msg(memcmp(out, want_rep, w) == 0, "%s reply", c->name);

	/* Our initiator takes siw's Reply. */
	ck_assert(mpa_frame_parse(want_rep, nrep, &rep, &used) == WIRE_OK);
	ck_assert_int_eq(neg_mpa_reply(&req, &rep, &pi, &ri), ACC);
	ck_assert_uint_eq(ri.rtr, c->rtr);
	ck_assert_int_eq(ri.crc, c->crc);
	ck_assert_int_eq(rr.crc, c->crc);
	ck_assert_int_eq(ri.enhanced, !v1);
	/* RFC 6581 §10: unenhanced, both sides keep their own IRD/ORD. */
	ck_assert_uint_eq(ri.ird, c->ird);
	ck_assert_uint_eq(ri.ord, c->ord);
	ck_assert_uint_eq(rr.ird, c->ird);
	ck_assert_uint_eq(rr.ord, c->ord);
	ck_assert(!ri.markers_irx && !ri.markers_rrx);
	ck_assert_int_eq(rr.wait_first_fpdu, !c->p2p);

	/* A responder with C=0 still turns CRC on for a C=1 Request. */
	pr.crc = false;
	ck_assert(mpa_frame_parse(want_req, nreq, &req, &used) == WIRE_OK);
	ck_assert_int_eq(neg_mpa_respond(&req, &pr, false, &rep, &rr), ACC);
	ck_assert_int_eq(rr.crc, c->crc_i);
	ck_assert(!(rep.flags & MPA_FLAG_C));
}
END_TEST

/* ---- DDP over SCTP (RFC 5043 §6, RFC 6581 §7) ---- */

struct sctp_resp_row {
	const char *name;
	uint16_t init_fc;
	bool pol_enh;
	bool ulp_reject;
	bool strict_fail;
	uint16_t rep_fc;
	enum neg_action act;
	enum neg_reason reason;
};

static const struct sctp_resp_row sctp_resp_rows[] = {
	{ "Initiate -> Accept", SCTP_SS_INITIATE, true, false, false,
	  SCTP_SS_ACCEPT, ACC, NEG_R_NONE },
	{ "Initiate, plain responder -> Accept", SCTP_SS_INITIATE, false, false,
	  false, SCTP_SS_ACCEPT, ACC, NEG_R_NONE },
	{ "Initiate, ULP rejects -> Reject", SCTP_SS_INITIATE, true, true,
	  false, SCTP_SS_REJECT, REJ, NEG_R_ULP_REJECT },
	{ "Enhanced Initiate -> Enhanced Accept", SCTP_SS_ENH_INITIATE, true,
	  false, false, SCTP_SS_ENH_ACCEPT, ACC, NEG_R_NONE },
	{ "Enhanced Initiate, ULP rejects -> Enhanced Reject",
	  SCTP_SS_ENH_INITIATE, true, true, false, SCTP_SS_ENH_REJECT, REJ,
	  NEG_R_ULP_REJECT },
	{ "Enhanced Initiate, strict IRD -> Enhanced Reject",
	  SCTP_SS_ENH_INITIATE, true, false, true, SCTP_SS_ENH_REJECT, REJ,
	  NEG_R_IRD },
	{ "Enhanced Initiate, plain responder -> Terminate",
	  SCTP_SS_ENH_INITIATE, false, false, false, SCTP_SS_TERMINATE, CLS,
	  NEG_R_ENH_UNSUP },
	{ "Accept first -> Terminate", SCTP_SS_ACCEPT, true, false, false,
	  SCTP_SS_TERMINATE, CLS, NEG_R_FC },
	{ "Reject first -> Terminate", SCTP_SS_REJECT, true, false, false,
	  SCTP_SS_TERMINATE, CLS, NEG_R_FC },
	{ "Terminate first -> Terminate", SCTP_SS_TERMINATE, true, false, false,
	  SCTP_SS_TERMINATE, CLS, NEG_R_FC },
	{ "Enhanced Accept first -> Terminate", SCTP_SS_ENH_ACCEPT, true, false,
	  false, SCTP_SS_TERMINATE, CLS, NEG_R_FC },
	{ "Enhanced Reject first -> Terminate", SCTP_SS_ENH_REJECT, true, false,
	  false, SCTP_SS_TERMINATE, CLS, NEG_R_FC },
};

static void sctp_wire(struct sctp_ss_msg *m, uint8_t *buf)
{
	size_t w = 0, used = 0;

	ck_assert(sctp_ss_build(m, buf, SCTP_SS_MSG_MAX, &w) == WIRE_OK);
	ck_assert(sctp_ss_parse(buf, w, m, &used) == WIRE_OK);
}

START_TEST(test_sctp_respond)
{
	const struct sctp_resp_row *r = &sctp_resp_rows[_i];
	struct neg_policy p = policy(NEG_RESPONDER);
	struct sctp_ss_msg init, rep;
	struct neg_result res;
	uint8_t buf[SCTP_SS_MSG_MAX];
	enum neg_action a;
	uint8_t d1;

	p.ird = 2;
	p.ord = 8;
	if (!r->pol_enh)
		p.enhanced = false;
	if (r->strict_fail) {
		p.ird_ord_strict = true;
		p.ord_required = 8;
	}
	memset(&init, 0, sizeof(init));
	init.fc = r->init_fc;
	init.enh.p2p = true;
	init.enh.rtr = MPA_RTR_WRITE | MPA_RTR_READ;
	init.enh.ird = 4;
	init.enh.ord = 6;
	sctp_wire(&init, buf);
	a = neg_sctp_respond(&init, &p, r->ulp_reject, &rep, &res);
	ck_assert_msg(a == r->act, "%s: %s", r->name, neg_action_name(a));
	ck_assert_int_eq(res.reason, r->reason);
	ck_assert_uint_eq(rep.fc, r->rep_fc);
	ck_assert_uint_eq(rep.ssn, 0);
	sctp_wire(&rep, buf);
	ck_assert(!res.crc && !res.markers_irx && !res.markers_rrx);
	if (rep.fc == SCTP_SS_ENH_ACCEPT) {
		ck_assert(rep.enh.p2p);
		ck_assert_uint_eq(rep.enh.rtr, MPA_RTR_WRITE);
		ck_assert_uint_eq(rep.enh.ird, 6);
		ck_assert_uint_eq(rep.enh.ord, 4);
		ck_assert(res.enhanced);
	}
	if (r->strict_fail)
		ck_assert_uint_eq(res.term, MPA_ECODE_INSUFFICIENT_IRD);
	/* The answer forms a legal RFC 5043 §6 / RFC 6581 §7 sequence. */
	if (sctp_ss_fc_valid(r->init_fc) &&
	    (r->init_fc == SCTP_SS_INITIATE ||
	     r->init_fc == SCTP_SS_ENH_INITIATE)) {
		uint8_t d0 = r->init_fc == SCTP_SS_INITIATE ? SCTP_SS_D_OPEN :
							      SCTP_SS_D_EOPEN;

		ck_assert(
			sctp_ss_legal_next(1, d0, SCTP_SS_D_NONE, rep.fc, &d1));
	}
}
END_TEST

struct sctp_reply_row {
	uint16_t sent, rep;
	enum neg_action act;
	enum neg_reason reason;
};

static const struct sctp_reply_row sctp_reply_rows[] = {
	{ SCTP_SS_INITIATE, SCTP_SS_ACCEPT, ACC, NEG_R_NONE },
	{ SCTP_SS_INITIATE, SCTP_SS_REJECT, REJ, NEG_R_PEER_REJECT },
	{ SCTP_SS_INITIATE, SCTP_SS_TERMINATE, REJ, NEG_R_NONULP_REJECT },
	{ SCTP_SS_INITIATE, SCTP_SS_ENH_ACCEPT, CLS, NEG_R_FC },
	{ SCTP_SS_INITIATE, SCTP_SS_ENH_REJECT, CLS, NEG_R_FC },
	{ SCTP_SS_INITIATE, SCTP_SS_INITIATE, CLS, NEG_R_FC },
	{ SCTP_SS_INITIATE, SCTP_SS_ENH_INITIATE, CLS, NEG_R_FC },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_ENH_ACCEPT, ACC, NEG_R_NONE },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_ENH_REJECT, REJ, NEG_R_PEER_REJECT },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_TERMINATE, REJ, NEG_R_NONULP_REJECT },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_ACCEPT, CLS, NEG_R_FC },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_REJECT, CLS, NEG_R_FC },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_ENH_INITIATE, CLS, NEG_R_FC },
	{ SCTP_SS_ENH_INITIATE, SCTP_SS_INITIATE, CLS, NEG_R_FC },
};

START_TEST(test_sctp_reply)
{
	const struct sctp_reply_row *r = &sctp_reply_rows[_i];
	struct neg_policy p = policy(NEG_INITIATOR);
	struct sctp_ss_msg sent, rep;
	struct neg_result res;
	uint8_t buf[SCTP_SS_MSG_MAX], d1;
	enum neg_action a;
	bool legal;

	p.enhanced = r->sent == SCTP_SS_ENH_INITIATE;
	neg_sctp_initiate(&p, &sent);
	ck_assert_uint_eq(sent.fc, r->sent);
	ck_assert_uint_eq(sent.ssn, 0);
	sctp_wire(&sent, buf);
	memset(&rep, 0, sizeof(rep));
	rep.fc = r->rep;
	rep.enh.ird = 16;
	rep.enh.ord = 16;
	sctp_wire(&rep, buf);
	a = neg_sctp_reply(&sent, &rep, &p, &res);
	ck_assert_msg(a == r->act, "%s after %s: %s", sctp_ss_fc_name(r->rep),
		      sctp_ss_fc_name(r->sent), neg_action_name(a));
	ck_assert_int_eq(res.reason, r->reason);
	/* Agrees with the sequence table. */
	legal = sctp_ss_legal_next(
		1,
		r->sent == SCTP_SS_INITIATE ? SCTP_SS_D_OPEN : SCTP_SS_D_EOPEN,
		SCTP_SS_D_NONE, r->rep, &d1);
	ck_assert_int_eq(legal, a != CLS);
}
END_TEST

/* A whole enhanced SCTP exchange through the wire, and the §10 retry. */
START_TEST(test_sctp_exchange)
{
	struct neg_policy pi = policy(NEG_INITIATOR);
	struct neg_policy pr = policy(NEG_RESPONDER);
	struct neg_policy retry;
	struct sctp_ss_msg init, rep;
	struct neg_result ri, rr;
	uint8_t buf[SCTP_SS_MSG_MAX];

	pi.ird = 2;
	pi.ord = 5;
	pr.ird = 3;
	pr.ord = 3;
	neg_sctp_initiate(&pi, &init);
	sctp_wire(&init, buf);
	ck_assert_uint_eq(buf[3], SCTP_SS_ENH_INITIATE);
	ck_assert_int_eq(neg_sctp_respond(&init, &pr, false, &rep, &rr), ACC);
	sctp_wire(&rep, buf);
	ck_assert_int_eq(neg_sctp_reply(&init, &rep, &pi, &ri), ACC);
	/* responder IRD = max(3, 5) = 5, ORD = min(3, 2) = 2 */
	ck_assert_uint_eq(rep.enh.ird, 5);
	ck_assert_uint_eq(rep.enh.ord, 2);
	ck_assert_uint_eq(ri.ird, 2);
	ck_assert_uint_eq(ri.ord, 5);
	ck_assert(ri.enhanced && rr.enhanced);

	/* An RFC 5043-only passive side terminates; retry with Initiate. */
	pr.enhanced = false;
	ck_assert_int_eq(neg_sctp_respond(&init, &pr, false, &rep, &rr), CLS);
	ck_assert_uint_eq(rep.fc, SCTP_SS_TERMINATE);
	ck_assert_int_eq(neg_sctp_reply(&init, &rep, &pi, &ri), REJ);
	ck_assert(!neg_fallback(&pi, true, true, &retry));
	pi.fallback_v1 = true;
	ck_assert(neg_fallback(&pi, true, true, &retry));
	neg_sctp_initiate(&retry, &init);
	ck_assert_uint_eq(init.fc, SCTP_SS_INITIATE);
	ck_assert_int_eq(neg_sctp_respond(&init, &pr, false, &rep, &rr), ACC);
	ck_assert_uint_eq(rep.fc, SCTP_SS_ACCEPT);
	ck_assert_int_eq(neg_sctp_reply(&init, &rep, &retry, &ri), ACC);
	ck_assert(!ri.enhanced);
}
END_TEST

/* ---- Policy ---- */

START_TEST(test_policy)
{
	struct neg_policy p;
	uint8_t i;

	neg_policy_init(&p, NEG_INITIATOR);
	ck_assert(neg_policy_check(&p, NEG_INITIATOR) == NEG_R_NONE);
	/* DESIGN.md initiator defaults: Rev 2 with S, C=1, M=0, C|D. */
	ck_assert_uint_eq(p.rev, 2);
	ck_assert(p.enhanced && p.crc && !p.markers && !p.p2p);
	ck_assert_uint_eq(p.rtr_types, MPA_RTR_WRITE | MPA_RTR_READ);
	ck_assert(!p.ird_ord_strict && !p.rev0_permissive);
	ck_assert(!p.legacy_rtr && !p.fallback_v1);
	neg_policy_init(&p, NEG_RESPONDER);
	ck_assert(neg_policy_check(&p, NEG_RESPONDER) == NEG_R_NONE);
	ck_assert(!p.crc && !p.markers);
	ck_assert_uint_eq(p.rtr_types, MPA_RTR_ALL);
	ck_assert_uint_eq(p.rtr_pref[0], MPA_RTR_WRITE);
	ck_assert_uint_eq(p.rtr_pref[1], MPA_RTR_READ);
	ck_assert_uint_eq(p.rtr_pref[2], MPA_RTR_SEND);

	for (i = 0; i < 2; i++) {
		enum neg_role role = i ? NEG_RESPONDER : NEG_INITIATOR;

#define BAD(stmt)                                                         \
	do {                                                              \
		neg_policy_init(&p, role);                                \
		stmt;                                                     \
		ck_assert_msg(neg_policy_check(&p, role) == NEG_R_POLICY, \
			      "%s accepted", #stmt);                      \
	} while (0)
#define GOOD(stmt)                                                      \
	do {                                                            \
		neg_policy_init(&p, role);                              \
		stmt;                                                   \
		ck_assert_msg(neg_policy_check(&p, role) == NEG_R_NONE, \
			      "%s refused", #stmt);                     \
	} while (0)
		BAD(p.ird = 0x4000);
		BAD(p.ord = 0x4000);
		BAD(p.ird_max = NONE);
		BAD(p.ord_required = NONE);
		BAD(p.ird = 200);
		BAD(p.rtr_types = 0x08);
		BAD(p.rtr_pref[1] = MPA_RTR_WRITE);
		BAD(p.rtr_pref[1] = 0);
		BAD(p.rtr_pref[0] = MPA_RTR_WRITE | MPA_RTR_READ);
		BAD(p.rtr_pref[0] = 0x08);
		BAD(p.rev = 1); /* enhanced needs Rev 2 */
		BAD(p.legacy_rtr = true);
		BAD(p.rev = 1; p.enhanced = false; p.legacy_rtr = true;
		    p.rev = 2);
		BAD(p.rev = 3; p.enhanced = false);
		GOOD(p.ird = NONE; p.ird_max = 0);
		GOOD(p.ord = NONE);
		GOOD(p.rev = 1; p.enhanced = false);
		GOOD(p.rev = 1; p.enhanced = false; p.legacy_rtr = true);
		GOOD(p.rtr_pref[0] = 0; p.rtr_pref[1] = 0; p.rtr_pref[2] = 0);
		GOOD(p.rtr_pref[1] = 0; p.rtr_pref[2] = 0);
		GOOD(p.rtr_pref[0] = MPA_RTR_SEND;
		     p.rtr_pref[1] = MPA_RTR_WRITE;
		     p.rtr_pref[2] = MPA_RTR_READ);
		GOOD(p.ird = 128; p.ird_max = 128);
		GOOD(p.ird_max = 0x3ffe; p.ord_required = 0x3ffe);
		if (role == NEG_INITIATOR) {
			BAD(p.p2p = true; p.rtr_types = 0);
			BAD(p.p2p = true; p.enhanced = false);
			GOOD(p.p2p = true);
			GOOD(p.rev = 0; p.enhanced = false);
			GOOD(p.enhanced = false);
		} else {
			BAD(p.rtr_types = 0);
			BAD(p.rev = 0; p.enhanced = false);
			GOOD(p.rtr_types = 0; p.enhanced = false);
			GOOD(p.rtr_types = MPA_RTR_SEND);
		}
#undef BAD
#undef GOOD
	}
}
END_TEST

START_TEST(test_rtr_pick)
{
	static const struct {
		const char *set, *pref, *want;
	} t[] = {
		{ "", "", "" },	      { "", "CDB", "" },
		{ "BCD", "", "C" },   { "BD", "", "D" },
		{ "B", "", "B" },     { "BCD", "B", "B" },
		{ "BCD", "DB", "D" }, { "BC", "DB", "B" },
		{ "C", "DB", "C" },   { "BD", "C", "D" },
		{ "CD", "BDC", "D" }, { "BCD", "BDC", "B" },
	};
	uint8_t pref[3];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(t); i++) {
		pref_from(t[i].pref, pref);
		ck_assert_msg(neg_rtr_pick(rtr_bits(t[i].set), pref) ==
				      rtr_bits(t[i].want),
			      "set %s pref %s", t[i].set, t[i].pref);
	}
	ck_assert_uint_eq(neg_rtr_pick(MPA_RTR_ALL, NULL), MPA_RTR_WRITE);
}
END_TEST

START_TEST(test_names)
{
	unsigned int i;

	for (i = 0; i < NEG_A_MAX; i++)
		ck_assert_str_ne(neg_action_name((enum neg_action)i),
				 "unknown");
	for (i = 0; i < NEG_R_MAX; i++)
		ck_assert_str_ne(neg_reason_name((enum neg_reason)i),
				 "unknown");
	ck_assert_str_eq(neg_action_name(NEG_A_MAX), "unknown");
	ck_assert_str_eq(neg_reason_name(NEG_R_MAX), "unknown");
	ck_assert_str_eq(neg_action_name(NEG_A_TERM), "terminate");
	ck_assert_str_eq(neg_reason_name(NEG_R_IRD), "insufficient IRD");
	ck_assert_str_eq(neg_reason_name(NEG_R_RTR), "no matching RTR option");
}
END_TEST

/* ---- Randomized: our two ends against each other ---- */

static uint16_t rand_irdord(void)
{
	switch (test_rand32() % 6) {
	case 0:
		return NONE;
	case 1:
		return 0;
	default:
		return (uint16_t)(test_rand32() % 40);
	}
}

static uint8_t rand_pref(uint8_t pref[3])
{
	static const uint8_t perms[6][3] = {
		{ 2, 4, 1 }, { 2, 1, 4 }, { 4, 2, 1 },
		{ 4, 1, 2 }, { 1, 2, 4 }, { 1, 4, 2 },
	};
	unsigned int k = test_rand32() % 6, n = test_rand32() % 4;

	memset(pref, 0, 3);
	memcpy(pref, perms[k], n);
	return (uint8_t)n;
}

START_TEST(test_random_pairs)
{
	int i, accepted = 0;

	for (i = 0; i < 20000; i++) {
		struct neg_policy pi = policy(NEG_INITIATOR);
		struct neg_policy pr = policy(NEG_RESPONDER);
		struct mpa_frame req, rep;
		struct neg_result ri, rr;
		uint8_t buf[MPA_FRAME_MAX];
		enum neg_action ai, ar;

		pi.p2p = test_rand32() & 1;
		pi.rtr_types = (uint8_t)(1 + test_rand32() % 7);
		pi.ird = rand_irdord();
		pi.ord = rand_irdord();
		pi.ird_max = (uint16_t)(test_rand32() % 40);
		if (pi.ird != NONE && pi.ird > pi.ird_max)
			pi.ird_max = pi.ird;
		pi.ird_ord_strict = test_rand32() & 1;
		pi.markers = test_rand32() & 1;
		pi.crc = test_rand32() & 1;
		rand_pref(pi.rtr_pref);
		pr.rtr_types = (uint8_t)(1 + test_rand32() % 7);
		pr.ird = rand_irdord();
		pr.ord = rand_irdord();
		pr.ird_max = (uint16_t)(test_rand32() % 40);
		if (pr.ird != NONE && pr.ird > pr.ird_max)
			pr.ird_max = pr.ird;
		pr.ord_required = (uint16_t)(test_rand32() % 8);
		pr.ird_ord_strict = test_rand32() & 1;
		pr.rtr_reject = test_rand32() & 1;
		pr.markers = test_rand32() & 1;
		pr.crc = test_rand32() & 1;
		rand_pref(pr.rtr_pref);
		ck_assert(neg_policy_check(&pi, NEG_INITIATOR) == NEG_R_NONE);
		ck_assert(neg_policy_check(&pr, NEG_RESPONDER) == NEG_R_NONE);

		neg_mpa_request(&pi, &req);
		through_wire(&req, buf);
		ar = neg_mpa_respond(&req, &pr, false, &rep, &rr);
		ck_assert(ar == ACC || ar == REJ);
		through_wire(&rep, buf);
		/* §9.2: A echoed; B/C/D only with A; >= 1 type with A */
		ck_assert_int_eq(rep.enh.p2p, req.enh.p2p);
		if (!rep.enh.p2p)
			ck_assert_uint_eq(rep.enh.rtr, 0);
		else
			ck_assert_uint_ne(rep.enh.rtr, 0);
		ck_assert_uint_eq(rep.enh.rtr & ~pr.rtr_types, 0);
		/* §9.1: responder ORD <= initiator IRD, 0x3FFF answered */
		if (req.enh.ird == NONE)
			ck_assert_uint_eq(rep.enh.ord, NONE);
		else if (ar == ACC && rep.enh.ord != NONE)
			ck_assert_uint_le(rep.enh.ord, req.enh.ird);
		if (req.enh.ord == NONE)
			ck_assert_uint_eq(rep.enh.ird, NONE);
		ai = neg_mpa_reply(&req, &rep, &pi, &ri);
		if (ar == REJ) {
			ck_assert_int_eq(ai, REJ);
			continue;
		}
		ck_assert(ai == ACC || ai == TRM);
		ck_assert_int_eq(ri.crc, rr.crc);
		ck_assert_int_eq(ri.markers_irx, rr.markers_irx);
		ck_assert_int_eq(ri.markers_rrx, rr.markers_rrx);
		if (ai != ACC) {
			ck_assert(ri.term == MPA_ECODE_INSUFFICIENT_IRD ||
				  ri.term == MPA_ECODE_NO_MATCHING_RTR);
			continue;
		}
		accepted++;
		/* §9.1 after success, where both values are numbers */
		if (ri.ord != NONE && rr.ird != NONE && pi.ord != NONE &&
		    rep.enh.ird != NONE)
			ck_assert_uint_le(ri.ord, rr.ird);
		if (rr.ord != NONE && ri.ird != NONE && rep.enh.ord != NONE)
			ck_assert_uint_le(rr.ord, ri.ird);
		/* exactly one RTR type, one both can use */
		if (pi.p2p) {
			ck_assert(ri.rtr == MPA_RTR_SEND ||
				  ri.rtr == MPA_RTR_WRITE ||
				  ri.rtr == MPA_RTR_READ);
			ck_assert(ri.rtr & rr.rtr & pi.rtr_types &
				  pr.rtr_types);
		} else {
			ck_assert_uint_eq(ri.rtr, 0);
		}
	}
	ck_assert_int_gt(accepted, 1000);
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
	add_loop_tcase(s, "seed002", test_seed002, ARRAY_SIZE(fig_cells));
	add_tcase(s, "rev0_init", test_rev0_init);
	add_loop_tcase(s, "captures", test_captures, ARRAY_SIZE(captures));
	add_loop_tcase(s, "sctp_respond", test_sctp_respond,
		       ARRAY_SIZE(sctp_resp_rows));
	add_loop_tcase(s, "sctp_reply", test_sctp_reply,
		       ARRAY_SIZE(sctp_reply_rows));
	add_tcase(s, "sctp_exchange", test_sctp_exchange);
	add_tcase(s, "policy", test_policy);
	add_tcase(s, "rtr_pick", test_rtr_pick);
	add_tcase(s, "names", test_names);
	add_tcase(s, "random_pairs", test_random_pairs);
	return s;
}

TEST_MAIN(negotiate_suite)
