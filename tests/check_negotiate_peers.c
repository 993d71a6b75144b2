/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection setup with other peers and transports, each row written
 * out: the seed-002 Figures 2, 3 and 4 (RFC 5044 Figures 15, 16) cell by
 * cell and a Rev 0 initiator, the Linux siw captures, DDP over SCTP
 * session control (RFC 5043 §6, RFC 6581 §7), policy checks and
 * randomized pairs of our two ends.
 */
#include "config.h"

#include "negotiate_util.h"

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

static Suite *negotiate_peers_suite(void)
{
	Suite *s = suite_create("negotiate_peers");

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

TEST_MAIN(negotiate_peers_suite)
