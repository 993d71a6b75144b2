/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connection setup decisions: MPA Request/Reply (RFC 5044 §7.1, RFC 6581
 * §9-10), the RDMA Consortium Rev 0 interop (seed 002, RFC 5044 App. C),
 * the seed-003 legacy RtR frame, and DDP/SCTP session control (RFC 5043
 * §6, RFC 6581 §7).  Pure: frames and policy in, decisions out.
 */
#include "config.h"

#include <string.h>

#include "negotiate.h"
#include "rdmap.h"

#define NONE MPA_IRD_ORD_NONE

static const uint8_t rtr_default_order[3] = {
	MPA_RTR_WRITE,
	MPA_RTR_READ,
	MPA_RTR_SEND,
};

static bool rtr_single(uint8_t t)
{
	return t == MPA_RTR_SEND || t == MPA_RTR_WRITE || t == MPA_RTR_READ;
}

/* Fill p with the defaults of DESIGN.md for role. */
void neg_policy_init(struct neg_policy *p, enum neg_role role)
{
	memset(p, 0, sizeof(*p));
	p->rev = MPA_REV_2;
	p->enhanced = true;
	p->markers = false;
	p->ird = 16;
	p->ord = 16;
	p->ird_max = 128;
	memcpy(p->rtr_pref, rtr_default_order, sizeof(p->rtr_pref));
	if (role == NEG_INITIATOR) {
		/* Initiator: C=1, M=0, RTR offered as Write and Read. */
		p->crc = true;
		p->rtr_types = MPA_RTR_WRITE | MPA_RTR_READ;
	} else {
		/* Responder: CRC only when asked, any RTR type received. */
		p->crc = false;
		p->rtr_types = MPA_RTR_ALL;
	}
}

/* NEG_R_NONE if p is usable for role, NEG_R_POLICY otherwise. */
enum neg_reason neg_policy_check(const struct neg_policy *p, enum neg_role role)
{
	uint8_t seen = 0;
	bool ended = false;
	size_t i;

	if (p->ird > NONE || p->ord > NONE || p->ird_max >= NONE ||
	    p->ord_required >= NONE)
		return NEG_R_POLICY;
	if (p->ird != NONE && p->ird > p->ird_max)
		return NEG_R_POLICY;
	if (p->rtr_types & ~MPA_RTR_ALL)
		return NEG_R_POLICY;
	for (i = 0; i < sizeof(p->rtr_pref); i++) {
		uint8_t t = p->rtr_pref[i];

		if (!t) {
			ended = true;
			continue;
		}
		if (ended || !rtr_single(t) || (seen & t))
			return NEG_R_POLICY;
		seen |= t;
	}
	/* RFC 6581 §6: enhanced data needs Rev 2; seed 003 is on Rev 1. */
	if (p->enhanced && p->rev != MPA_REV_2)
		return NEG_R_POLICY;
	if (p->legacy_rtr && (p->rev != MPA_REV_1 || p->enhanced))
		return NEG_R_POLICY;
	if (role == NEG_INITIATOR) {
		if (p->rev > MPA_REV_2)
			return NEG_R_POLICY;
		/* RFC 6581 §9.2: A=1 comes with the RTR types offered. */
		if (p->p2p && (!p->enhanced || !p->rtr_types))
			return NEG_R_POLICY;
	} else {
		if (p->rev < MPA_REV_1 || p->rev > MPA_REV_2)
			return NEG_R_POLICY;
		/* RFC 6581 §9.2: an enhanced responder supports >= 1 RTR. */
		if (p->enhanced && !p->rtr_types)
			return NEG_R_POLICY;
	}
	return NEG_R_NONE;
}

/* The preferred RTR type in set, or 0 when set is empty. */
uint8_t neg_rtr_pick(uint8_t set, const uint8_t pref[3])
{
	size_t i;

	for (i = 0; i < 3 && pref && pref[i]; i++)
		if (rtr_single(pref[i]) && (set & pref[i]))
			return pref[i];
	for (i = 0; i < 3; i++)
		if (set & rtr_default_order[i])
			return rtr_default_order[i];
	return 0;
}

static void res_init(struct neg_result *res)
{
	memset(res, 0, sizeof(*res));
	res->version = RDMAP_VERSION_IETF;
}

static enum neg_action res_end(struct neg_result *res, enum neg_action a,
			       enum neg_reason r, uint8_t term)
{
	res->action = a;
	res->reason = r;
	res->term = term;
	return a;
}

static uint16_t u16_min(uint16_t a, uint16_t b)
{
	return a < b ? a : b;
}

static uint16_t u16_max(uint16_t a, uint16_t b)
{
	return a > b ? a : b;
}

/* Responder side of the RFC 6581 §9 word. */
enum neg_action neg_enh_respond(const struct mpa_enh *req,
				const struct neg_policy *p, struct mpa_enh *rep,
				struct neg_result *res)
{
	enum neg_action act = NEG_A_ACCEPT;
	uint16_t v;

	memset(rep, 0, sizeof(*rep));
	res->enhanced = true;
	res->peer_enh = true;
	res->peer = *req;

	/*
	 * RFC 6581 §9.2: A is echoed.  With A=0, B/C/D are sent as 0 and
	 * ignored on receive.  With A=1, answer the preferred type the
	 * initiator offered; if none is supported, name the types we do
	 * support ("MUST set at least one RTR indication type option it
	 * supports"), optionally rejecting (§7: "MAY generate a reject").
	 */
	rep->p2p = req->p2p;
	res->p2p = req->p2p;
	if (req->p2p) {
		uint8_t match = req->rtr & p->rtr_types & MPA_RTR_ALL;

		if (match) {
			rep->rtr = neg_rtr_pick(match, p->rtr_pref);
		} else {
			rep->rtr = p->rtr_types & MPA_RTR_ALL;
			if (p->rtr_reject) {
				act = NEG_A_REJECT;
				res_end(res, act, NEG_R_RTR,
					MPA_ECODE_NO_MATCHING_RTR);
			}
		}
		res->rtr = rep->rtr;
	}

	/*
	 * RFC 6581 §9.1: responder IRD >= initiator ORD when it can (relaxed
	 * or strict, the IRD is clamped to what the endpoint takes and the
	 * initiator lowers its ORD to it); an initiator ORD of 0x3FFF leaves
	 * the local IRD unchanged and is answered with IRD 0x3FFF.  "If the
	 * initiator ORD is 0 ... and the responder supports use of a
	 * zero-length RDMA Read RTR indication, then the responder IRD can
	 * be set to 1."
	 */
	if (req->ord == NONE || p->ird == NONE) {
		rep->ird = NONE;
		res->ird = p->ird;
	} else {
		v = u16_max(p->ird, req->ord);
		if (v > p->ird_max)
			v = u16_max(p->ird_max, p->ird);
		if (req->p2p && (rep->rtr & MPA_RTR_READ) && v == 0 &&
		    p->ird_max >= 1)
			v = 1;
		rep->ird = v;
		res->ird = v;
	}

	/*
	 * RFC 6581 §9.1: "The responder MUST set its ORD at most to the
	 * initiator IRD"; 0x3FFF leaves the local ORD unchanged and is
	 * answered with ORD 0x3FFF.  Strict: "MAY reject the connection
	 * request if the initiator IRD is not sufficient for the ULP-required
	 * ORD and specify the required ORD in the ... responder ORD", TERM
	 * code 6.
	 */
	if (req->ird == NONE || p->ord == NONE) {
		rep->ord = NONE;
		res->ord = p->ord;
	} else {
		v = u16_min(p->ord, req->ird);
		res->ord = v;
		rep->ord = v;
		if (p->ird_ord_strict && req->ird < p->ord_required) {
			rep->ord = p->ord_required;
			act = NEG_A_REJECT;
			res_end(res, act, NEG_R_IRD,
				MPA_ECODE_INSUFFICIENT_IRD);
		}
	}
	res->action = act;
	return act;
}

/* Initiator side of the RFC 6581 §9 word. */
enum neg_action neg_enh_accept(const struct mpa_enh *sent,
			       const struct mpa_enh *rep,
			       const struct neg_policy *p,
			       struct neg_result *res)
{
	uint8_t cand;

	res->enhanced = true;
	res->peer_enh = true;
	res->peer = *rep;
	res->p2p = sent->p2p;

	/*
	 * RFC 6581 §9.1: "the initiator MUST set its IRD at least to the
	 * responder ORD and its ORD at most to the responder IRD"; 0x3FFF
	 * leaves the local value unchanged.  Without the resources for the
	 * IRD (strict: beyond the IRD sent; relaxed: beyond ird_max) it
	 * "MUST send a TERM message", code 6.
	 */
	if (p->ird == NONE) {
		res->ird = NONE;
	} else if (rep->ord == NONE || rep->ord <= p->ird) {
		res->ird = p->ird;
	} else if (!p->ird_ord_strict && rep->ord <= p->ird_max) {
		res->ird = rep->ord;
	} else {
		res->ird = p->ird;
		res->ord = p->ord;
		return res_end(res, NEG_A_TERM, NEG_R_IRD,
			       MPA_ECODE_INSUFFICIENT_IRD);
	}
	if (p->ord == NONE)
		res->ord = NONE;
	else if (rep->ird == NONE)
		res->ord = p->ord;
	else
		res->ord = u16_min(p->ord, rep->ird);

	/*
	 * RFC 6581 §9.2: the responder MUST echo A.  With A=1 the initiator
	 * "MUST generate one of the negotiated RTR indications", one it
	 * offered (it offered every type it supports), else TERM code 7.
	 */
	if (rep->p2p != sent->p2p)
		return res_end(res, NEG_A_TERM, NEG_R_MODEL,
			       MPA_ECODE_NO_MATCHING_RTR);
	if (sent->p2p) {
		cand = rep->rtr & sent->rtr & p->rtr_types & MPA_RTR_ALL;
		res->rtr = neg_rtr_pick(cand, p->rtr_pref);
		if (!res->rtr)
			return res_end(res, NEG_A_TERM, NEG_R_RTR,
				       MPA_ECODE_NO_MATCHING_RTR);
	}
	return res_end(res, NEG_A_ACCEPT, NEG_R_NONE, 0);
}

static void enh_from_policy(const struct neg_policy *p, struct mpa_enh *e)
{
	memset(e, 0, sizeof(*e));
	/* RFC 6581 §9.2: B/C/D only with A=1, one per supported type. */
	e->p2p = p->p2p;
	if (p->p2p)
		e->rtr = p->rtr_types & MPA_RTR_ALL;
	e->ird = p->ird > NONE ? NONE : p->ird;
	e->ord = p->ord > NONE ? NONE : p->ord;
}

/* Initiator: the Request for p. */
void neg_mpa_request(const struct neg_policy *p, struct mpa_frame *req)
{
	memset(req, 0, sizeof(*req));
	req->type = MPA_FRAME_REQ;
	req->rev = p->rev;
	if (p->rev == MPA_REV_RDMAC) {
		/* Seed 002 §5.2.1: an RDMAC peer sends Rev 0, M=1, C=1. */
		req->flags = MPA_FLAG_M | MPA_FLAG_C;
		return;
	}
	if (p->markers)
		req->flags |= MPA_FLAG_M;
	if (p->crc)
		req->flags |= MPA_FLAG_C;
	if (p->enhanced && p->rev >= MPA_REV_2) {
		/* RFC 6581 §6: S=1, the word first in Private Data. */
		req->flags |= MPA_FLAG_S;
		req->enhanced = true;
		enh_from_policy(p, &req->enh);
	} else if (p->legacy_rtr && p->rev == MPA_REV_1) {
		/* Seed 003 item 2: S=1, "Rtr frame will be sent". */
		req->flags |= MPA_FLAG_S;
	}
}

/* Markers and CRC from the two frames' M and C bits (RFC 5044 §7.1.1). */
static void mpa_bits(uint8_t req_flags, uint8_t rep_flags,
		     struct neg_result *res)
{
	/*
	 * M in the Request: markers required in FPDUs from the responder
	 * (received by the initiator); M in the Reply: required from the
	 * initiator.  C in either frame: CRC generated and checked by both.
	 */
	res->markers_irx = (req_flags & MPA_FLAG_M) != 0;
	res->markers_rrx = (rep_flags & MPA_FLAG_M) != 0;
	res->crc = ((req_flags | rep_flags) & MPA_FLAG_C) != 0;
}

static void rdmac_result(struct neg_result *res)
{
	/*
	 * Seed 002 §5.1 Figure 1, RFC 5044 Figure 14: an RDMAC RNIC uses
	 * DDP/RDMAP version 0 and always markers and CRC, so both
	 * directions carry markers (Figure 3: "M=1/1" in every V=0 cell).
	 */
	res->rev = MPA_REV_RDMAC;
	res->version = RDMAP_VERSION_RDMAC;
	res->markers_irx = true;
	res->markers_rrx = true;
	res->crc = true;
}

/* Responder: the Reply to the Request req. */
enum neg_action neg_mpa_respond(const struct mpa_frame *req,
				const struct neg_policy *p, bool ulp_reject,
				struct mpa_frame *rep, struct neg_result *res)
{
	enum neg_action act = NEG_A_ACCEPT;
	bool legacy = false;

	memset(rep, 0, sizeof(*rep));
	res_init(res);
	rep->type = MPA_FRAME_REP;
	res->peer_flags = req->flags;
	res->peer_rev = req->rev;
	if (req->enhanced) {
		res->peer_enh = true;
		res->peer = req->enh;
	}
	/*
	 * RFC 6581 §10: without the enhanced exchange the ULP deals with
	 * IRD and ORD, so the local values stand, as on the initiator.
	 */
	res->ird = p->ird;
	res->ord = p->ord;

	/* RFC 5044 §7.1.2 rule 5: a key other than the Request's. */
	if (req->type != MPA_FRAME_REQ)
		return res_end(res, NEG_A_CLOSE, NEG_R_KEY, 0);

	if (req->rev == MPA_REV_RDMAC) {
		/*
		 * Seed 002 §5.2 / §5.3.1, RFC 5044 C.2.1 / C.2.4: strict
		 * (non-permissive) closes; permissive answers Rev 0 with M=1
		 * and C=1 and uses DDP/RDMAP version 0.
		 */
		if (!p->rev0_permissive)
			return res_end(res, NEG_A_CLOSE, NEG_R_REV0, 0);
		rep->rev = MPA_REV_RDMAC;
		rep->flags = MPA_FLAG_M | MPA_FLAG_C;
		rdmac_result(res);
		goto decide;
	}
	/* RFC 5044 §7.1.1 Rev: close on a revision we cannot follow. */
	if (req->rev > MPA_REV_2)
		return res_end(res, NEG_A_CLOSE, NEG_R_REV, 0);

	if (req->enhanced) {
		/*
		 * RFC 6581 §10: an enhanced responder MUST answer enhanced;
		 * one that does not support it treats the frame as
		 * improperly formatted and closes.
		 */
		if (!p->enhanced || p->rev < MPA_REV_2)
			return res_end(res, NEG_A_CLOSE, NEG_R_ENH_UNSUP, 0);
		rep->rev = MPA_REV_2;
		rep->enhanced = true;
		rep->flags |= MPA_FLAG_S;
		act = neg_enh_respond(&req->enh, p, &rep->enh, res);
	} else {
		/*
		 * RFC 6581 §10: an unenhanced request gets an unenhanced
		 * reply, at the lower of the two revisions.  A Rev 1 S bit
		 * is Res (RFC 5044: not checked) unless both ends run the
		 * seed-003 RtR frame mode.
		 */
		rep->rev = req->rev < p->rev ? req->rev : p->rev;
		if (rep->rev < MPA_REV_1)
			rep->rev = MPA_REV_1;
		legacy = p->legacy_rtr && req->rev == MPA_REV_1 &&
			 (req->flags & MPA_FLAG_S);
	}
	if (p->markers)
		rep->flags |= MPA_FLAG_M;
	if (p->crc)
		rep->flags |= MPA_FLAG_C;
	res->rev = rep->rev;
	mpa_bits(req->flags, rep->flags, res);

decide:
	/* RFC 5044 §7.1.2 rule 2: the ULP's verdict on the Private Data. */
	if (act == NEG_A_ACCEPT && ulp_reject) {
		act = NEG_A_REJECT;
		res_end(res, act, NEG_R_ULP_REJECT, 0);
	}
	if (act == NEG_A_REJECT) {
		rep->flags |= MPA_FLAG_R;
	} else if (legacy) {
		/* Seed 003 item 2: Rep S=1, "waiting for" the RtR frame. */
		rep->flags |= MPA_FLAG_S;
		res->rtr_frame = true;
	}
	/*
	 * RFC 5044 §7.1.2 rule 4 holds unless an RTR (RFC 6581 §9.3 or the
	 * seed-003 frame) is the initiator's first message.
	 */
	res->wait_first_fpdu = act == NEG_A_ACCEPT && !res->p2p &&
			       !res->rtr_frame;
	res->action = act;
	return act;
}

/* Initiator: judge the frame rep received after sending sent. */
enum neg_action neg_mpa_reply(const struct mpa_frame *sent,
			      const struct mpa_frame *rep,
			      const struct neg_policy *p,
			      struct neg_result *res)
{
	res_init(res);
	res->peer_flags = rep->flags;
	res->peer_rev = rep->rev;
	if (rep->enhanced) {
		res->peer_enh = true;
		res->peer = rep->enh;
	}
	res->ird = p->ird;
	res->ord = p->ord;

	/* RFC 5044 §7.1.2 rule 8: a Request back is Initiator/Initiator. */
	if (rep->type == MPA_FRAME_REQ)
		return res_end(res, NEG_A_CLOSE, NEG_R_INIT_INIT, 0);
	/* Rule 5: any other key. */
	if (rep->type != MPA_FRAME_REP)
		return res_end(res, NEG_A_CLOSE, NEG_R_KEY, 0);

	if (rep->rev == MPA_REV_RDMAC) {
		/*
		 * Seed 002 §5.2.2: a non-permissive initiator closes on a
		 * Rev 0 Reply; §5.3.2: a permissive one switches to version
		 * 0 with markers and CRC on.
		 */
		if (sent->rev != MPA_REV_RDMAC && !p->rev0_permissive)
			return res_end(res, NEG_A_CLOSE, NEG_R_REV0, 0);
		rdmac_result(res);
		if (rep->flags & MPA_FLAG_R)
			return res_end(res, NEG_A_REJECT, NEG_R_PEER_REJECT, 0);
		return res_end(res, NEG_A_ACCEPT, NEG_R_NONE, 0);
	}
	/*
	 * RFC 5044 §7.1.1 Rev: close when we cannot interoperate: above
	 * Rev 2, above what we sent, or anything but 0 when we sent 0.
	 */
	if (rep->rev > MPA_REV_2 || rep->rev > sent->rev ||
	    sent->rev == MPA_REV_RDMAC)
		return res_end(res, NEG_A_CLOSE, NEG_R_REV, 0);

	res->rev = rep->rev;
	mpa_bits(sent->flags, rep->flags, res);

	/*
	 * RFC 5044 §7.1.2 rule 3 and RFC 6581 §9.1: a rejection leaves MPA
	 * with the responder's IRD/ORD passed to the ULP.
	 */
	if (rep->flags & MPA_FLAG_R)
		return res_end(res, NEG_A_REJECT, NEG_R_PEER_REJECT, 0);

	/*
	 * RFC 6581 §10: an enhanced request gets an enhanced reply and an
	 * unenhanced one an unenhanced reply; anything else is a broken
	 * exchange.
	 */
	if (sent->enhanced != rep->enhanced)
		return res_end(res, NEG_A_CLOSE, NEG_R_ENH_MISMATCH, 0);
	if (sent->enhanced)
		return neg_enh_accept(&sent->enh, &rep->enh, p, res);

	/* Seed 003 item 5: send the RtR frame only if the Reply's S says. */
	if (p->legacy_rtr && sent->rev == MPA_REV_1 &&
	    (sent->flags & MPA_FLAG_S) && (rep->flags & MPA_FLAG_S))
		res->rtr_frame = true;
	return res_end(res, NEG_A_ACCEPT, NEG_R_NONE, 0);
}

/* RFC 6581 §10: may the initiator retry without enhancement? */
bool neg_fallback(const struct neg_policy *p, bool sent_enhanced, bool no_reply,
		  struct neg_policy *retry)
{
	/*
	 * "the initiator MAY attempt to establish an RDMA connection using
	 * the unenhanced MPA protocol as defined in [RFC5044] ... and let
	 * the ULP deal with ORD and IRD and peer-to-peer negotiations."
	 * Once only: the retry policy has the fallback turned off.
	 */
	if (!p->fallback_v1 || !sent_enhanced || !no_reply)
		return false;
	*retry = *p;
	retry->rev = MPA_REV_1;
	retry->enhanced = false;
	retry->p2p = false;
	retry->legacy_rtr = false;
	retry->fallback_v1 = false;
	return true;
}

/* Active side: the Initiate or Enhanced Initiate for p. */
void neg_sctp_initiate(const struct neg_policy *p, struct sctp_ss_msg *m)
{
	memset(m, 0, sizeof(*m));
	/* RFC 5043 §6.1: the first message of a session has DDP-SSN 0. */
	m->ssn = 0;
	/* RFC 6581 §10: enhanced codes only when enhanced is wanted. */
	if (p->enhanced && p->rev >= MPA_REV_2) {
		m->fc = SCTP_SS_ENH_INITIATE;
		m->enhanced = true;
		enh_from_policy(p, &m->enh);
	} else {
		m->fc = SCTP_SS_INITIATE;
	}
}

static void sctp_result(struct neg_result *res)
{
	/* SCTP has neither MPA markers nor the MPA CRC (RFC 5043 §4). */
	res->rev = 0;
	res->version = RDMAP_VERSION_IETF;
	res->markers_irx = false;
	res->markers_rrx = false;
	res->crc = false;
}

/* Passive side: the answer to the first message of a session. */
enum neg_action neg_sctp_respond(const struct sctp_ss_msg *init,
				 const struct neg_policy *p, bool ulp_reject,
				 struct sctp_ss_msg *rep,
				 struct neg_result *res)
{
	enum neg_action act = NEG_A_ACCEPT;

	memset(rep, 0, sizeof(*rep));
	res_init(res);
	sctp_result(res);
	res->ird = p->ird;
	res->ord = p->ord;
	/* RFC 5043 §6.1: the passive side's first message is DDP-SSN 0. */
	rep->ssn = 0;
	rep->fc = SCTP_SS_TERMINATE;
	if (init->enhanced) {
		res->peer_enh = true;
		res->peer = init->enh;
	}

	switch (init->fc) {
	case SCTP_SS_INITIATE:
		/* RFC 5043 §6.2 / §6.3. */
		if (ulp_reject) {
			rep->fc = SCTP_SS_REJECT;
			return res_end(res, NEG_A_REJECT, NEG_R_ULP_REJECT, 0);
		}
		rep->fc = SCTP_SS_ACCEPT;
		return res_end(res, NEG_A_ACCEPT, NEG_R_NONE, 0);
	case SCTP_SS_ENH_INITIATE:
		/*
		 * RFC 6581 §10 (as for MPA): without enhanced support the
		 * code is unknown, no legal pattern fits and the session is
		 * terminated (RFC 5043 §6.1, the §6.4 sequence).
		 */
		if (!p->enhanced || p->rev < MPA_REV_2)
			return res_end(res, NEG_A_CLOSE, NEG_R_ENH_UNSUP, 0);
		act = neg_enh_respond(&init->enh, p, &rep->enh, res);
		if (act == NEG_A_ACCEPT && ulp_reject)
			act = res_end(res, NEG_A_REJECT, NEG_R_ULP_REJECT, 0);
		/*
		 * RFC 6581 §7: Enhanced Accept, or Enhanced Reject (the
		 * enhanced §6.3 sequence); the word travels in the Accept
		 * only.
		 */
		if (act == NEG_A_REJECT) {
			memset(&rep->enh, 0, sizeof(rep->enh));
			rep->fc = SCTP_SS_ENH_REJECT;
		} else {
			rep->fc = SCTP_SS_ENH_ACCEPT;
			rep->enhanced = true;
		}
		res->action = act;
		return act;
	default:
		/* RFC 5043 §6.1: not a legal first message. */
		return res_end(res, NEG_A_CLOSE, NEG_R_FC, 0);
	}
}

/* Active side: judge the passive side's first message. */
enum neg_action neg_sctp_reply(const struct sctp_ss_msg *sent,
			       const struct sctp_ss_msg *rep,
			       const struct neg_policy *p,
			       struct neg_result *res)
{
	bool enh = sent->fc == SCTP_SS_ENH_INITIATE;

	res_init(res);
	sctp_result(res);
	res->ird = p->ird;
	res->ord = p->ord;
	if (rep->enhanced) {
		res->peer_enh = true;
		res->peer = rep->enh;
	}
	switch (rep->fc) {
	case SCTP_SS_ACCEPT:
		if (enh)
			break;
		return res_end(res, NEG_A_ACCEPT, NEG_R_NONE, 0);
	case SCTP_SS_REJECT:
		if (enh)
			break;
		return res_end(res, NEG_A_REJECT, NEG_R_PEER_REJECT, 0);
	case SCTP_SS_ENH_ACCEPT:
		if (!enh || !rep->enhanced)
			break;
		return neg_enh_accept(&sent->enh, &rep->enh, p, res);
	case SCTP_SS_ENH_REJECT:
		if (!enh)
			break;
		res->enhanced = true;
		return res_end(res, NEG_A_REJECT, NEG_R_PEER_REJECT, 0);
	case SCTP_SS_TERMINATE:
		/* RFC 5043 §6.4: Non-ULP Rejected. */
		return res_end(res, NEG_A_REJECT, NEG_R_NONULP_REJECT, 0);
	default:
		break;
	}
	/* RFC 5043 §6.1, RFC 6581 §7: no legal sequence; terminate. */
	return res_end(res, NEG_A_CLOSE, NEG_R_FC, 0);
}

/* Name of an action. */
const char *neg_action_name(enum neg_action a)
{
	static const char *const names[NEG_A_MAX] = {
		[NEG_A_ACCEPT] = "accept",
		[NEG_A_REJECT] = "reject",
		[NEG_A_TERM] = "terminate",
		[NEG_A_CLOSE] = "close",
	};

	return (unsigned int)a < NEG_A_MAX ? names[a] : "unknown";
}

/* Name of a reason. */
const char *neg_reason_name(enum neg_reason r)
{
	static const char *const names[NEG_R_MAX] = {
		[NEG_R_NONE] = "none",
		[NEG_R_KEY] = "unexpected frame key",
		[NEG_R_INIT_INIT] = "initiator/initiator startup",
		[NEG_R_REV] = "unsupported revision",
		[NEG_R_REV0] = "RDMAC Rev 0 peer refused",
		[NEG_R_ENH_UNSUP] = "enhanced setup not supported",
		[NEG_R_ENH_MISMATCH] = "enhanced/unenhanced mismatch",
		[NEG_R_ULP_REJECT] = "rejected by the local ULP",
		[NEG_R_PEER_REJECT] = "rejected by the peer",
		[NEG_R_NONULP_REJECT] = "non-ULP reject",
		[NEG_R_IRD] = "insufficient IRD",
		[NEG_R_MODEL] = "connection model mismatch",
		[NEG_R_RTR] = "no matching RTR option",
		[NEG_R_FC] = "function code out of sequence",
		[NEG_R_POLICY] = "inconsistent local policy",
	};

	return (unsigned int)r < NEG_R_MAX ? names[r] : "unknown";
}
