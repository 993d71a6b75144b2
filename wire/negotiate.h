/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_NEGOTIATE_H
#define IWCM_NEGOTIATE_H

/*
 * The decisions of iWARP connection setup as pure functions: given the
 * local policy and the peer's parsed frame, what to send and what was
 * negotiated.  MPA (RFC 5044 §7.1, RFC 6581 §9-10, the RDMA Consortium
 * Rev 0 interop of seed 002 / RFC 5044 Appendix C, the seed-003 legacy
 * RtR frame) and DDP over SCTP session control (RFC 5043 §6, RFC 6581
 * §7).  No I/O: the caller parses, calls, builds and sends.
 */
#include <stdbool.h>
#include <stdint.h>

#include "mpa.h"
#include "rdmap.h" /* MPA_ECODE_* in struct neg_result */
#include "sctp_ss.h"

enum neg_role {
	NEG_INITIATOR = 0,
	NEG_RESPONDER,
};

/* What the caller does next. */
enum neg_action {
	NEG_A_ACCEPT = 0, /* enter full operation (after the RTR) */
	NEG_A_REJECT,	  /* responder: send the reject reply and leave
				 * MPA (TCP stays open, RFC 5044 §7.1.2);
				 * initiator: the peer rejected */
	NEG_A_TERM,	  /* send a Terminate, Layer 2 / type 0 /
				 * code res->term (RFC 6581 §8), and close */
	NEG_A_CLOSE,	  /* close, nothing more is sent */
	NEG_A_MAX
};

/* Why an action other than a plain accept was taken. */
enum neg_reason {
	NEG_R_NONE = 0,
	NEG_R_KEY,	     /* wrong frame key (RFC 5044 §7.1.2 r. 5) */
	NEG_R_INIT_INIT,     /* a Request while waiting for a Reply (r. 8) */
	NEG_R_REV,	     /* a revision we cannot interoperate with */
	NEG_R_REV0,	     /* RDMA Consortium Rev 0 peer, strict policy */
	NEG_R_ENH_UNSUP,     /* enhanced request, enhanced not supported */
	NEG_R_ENH_MISMATCH,  /* reply enhanced or not, unlike the request
				 * (RFC 6581 §10) */
	NEG_R_ULP_REJECT,    /* the local ULP rejected */
	NEG_R_PEER_REJECT,   /* the peer rejected (R=1, Reject) */
	NEG_R_NONULP_REJECT, /* SCTP: Terminate as the answer
				 * (RFC 5043 §6.4) */
	NEG_R_IRD,	     /* insufficient IRD (TERM code 6) */
	NEG_R_MODEL,	     /* A flag not echoed (TERM code 7) */
	NEG_R_RTR,	     /* no matching RTR type (TERM code 7) */
	NEG_R_FC,	     /* SCTP: function code out of sequence */
	NEG_R_POLICY,	     /* the local policy is inconsistent */
	NEG_R_MAX
};

/*
 * Local policy of one connection (listener, connect or iwcmctl defaults).
 * IRD/ORD are 14-bit; MPA_IRD_ORD_NONE (0x3FFF) in ird or ord means the
 * ULP manages that value itself: it is sent (or answered) as 0x3FFF and
 * the result keeps 0x3FFF (RFC 6581 §9.1).
 */
struct neg_policy {
	uint8_t rev;	       /* initiator: Rev sent (0 emulates an RDMAC
				 * peer, 1, 2); responder: highest answered */
	bool enhanced;	       /* RFC 6581 S=1 + word (needs rev 2) */
	bool markers;	       /* M: markers required in what we receive */
	bool crc;	       /* C: CRC asked for */
	bool p2p;	       /* initiator: A=1, peer-to-peer with RTR */
	uint8_t rtr_types;     /* MPA_RTR_*: initiator: types it can send
				 * (offered when p2p); responder: types it
				 * can receive */
	uint8_t rtr_pref[3];   /* preference order, MPA_RTR_* each, 0 ends
				 * the list; unlisted types follow in the
				 * default order Write, Read, Send */
	uint16_t ird;	       /* local IRD wanted (initiator: sent) */
	uint16_t ord;	       /* local ORD wanted (initiator: sent) */
	uint16_t ird_max;      /* most inbound Reads the endpoint can take */
	uint16_t ord_required; /* responder, strict: ORD the ULP needs */
	bool ird_ord_strict;   /* strict IRD/ORD (TERM 6) vs relaxed clamp */
	bool rev0_permissive;  /* answer / accept Rev 0 (seed 002 §5.3) */
	bool rtr_reject;       /* responder: reply R=1 when none of the
				 * offered RTR types is supported */
	bool legacy_rtr;       /* seed-003 RtR frame mode (Rev 1, S bit) */
	bool fallback_v1;      /* RFC 6581 §10: retry unenhanced */
};

/* The outcome, on either side; everything the handoff needs. */
struct neg_result {
	enum neg_action action;
	enum neg_reason reason;
	uint8_t term;	      /* 0 or MPA_ECODE_* to send / reported */
	uint8_t rev;	      /* MPA revision of the Reply */
	uint8_t version;      /* DDP/RDMAP version: 1 IETF, 0 RDMAC */
	bool markers_irx;     /* markers in FPDUs the initiator receives
				 * (the Request's M) */
	bool markers_rrx;     /* markers in FPDUs the responder receives
				 * (the Reply's M) */
	bool crc;	      /* CRC generated and checked both ways */
	bool enhanced;	      /* RFC 6581 enhanced exchange */
	bool p2p;	      /* connection model A */
	uint8_t rtr;	      /* initiator: the one RTR type to send (0 =
				 * none); responder: the types the Reply
				 * allowed (the RTR must be one of them) */
	bool rtr_frame;	      /* seed 003: RtR frame to send / await */
	bool wait_first_fpdu; /* responder: RFC 5044 §7.1.2 rule 4 still
				 * applies (no RTR of any kind) */
	uint16_t ird;	      /* final local IRD (0x3FFF: ULP's) */
	uint16_t ord;	      /* final local ORD (0x3FFF: ULP's) */
	bool peer_enh;	      /* peer carried the RFC 6581 word */
	struct mpa_enh peer;  /* the peer's raw word */
	uint8_t peer_flags;   /* the peer frame's M/C/R/S/Res octet */
	uint8_t peer_rev;
};

/* Markers on what the local side sends, by role. */
static inline bool neg_markers_tx(const struct neg_result *r,
				  enum neg_role role)
{
	return role == NEG_INITIATOR ? r->markers_rrx : r->markers_irx;
}

/* Markers on what the local side receives, by role. */
static inline bool neg_markers_rx(const struct neg_result *r,
				  enum neg_role role)
{
	return role == NEG_INITIATOR ? r->markers_irx : r->markers_rrx;
}

/* Fill p with the defaults of DESIGN.md for role. */
void neg_policy_init(struct neg_policy *p, enum neg_role role);

/* NEG_R_NONE if p is usable for role, NEG_R_POLICY otherwise. */
enum neg_reason neg_policy_check(const struct neg_policy *p,
				 enum neg_role role);

/*
 * The preferred RTR type in set by pref (see struct neg_policy), as a
 * single MPA_RTR_* bit, or 0 when set is empty.
 */
uint8_t neg_rtr_pick(uint8_t set, const uint8_t pref[3]);

/* ---- RFC 6581 §9 word, shared by MPA and SCTP ---- */

/*
 * Responder: the word to answer req with (A echoed, RTR types, IRD/ORD by
 * §9.1-9.3) and the IRD/ORD/RTR parts of *res.  Returns NEG_A_ACCEPT or
 * NEG_A_REJECT (strict IRD: res->term 6 and rep->ord the required ORD;
 * rtr_reject: res->term 7).
 */
enum neg_action neg_enh_respond(const struct mpa_enh *req,
				const struct neg_policy *p, struct mpa_enh *rep,
				struct neg_result *res);

/*
 * Initiator: check the responder's word against the one sent, set the
 * final IRD/ORD and choose the RTR (§9.1-9.3).  Returns NEG_A_ACCEPT or
 * NEG_A_TERM with res->term 6 (insufficient IRD) or 7 (A not echoed, no
 * RTR type both can use).
 */
enum neg_action neg_enh_accept(const struct mpa_enh *sent,
			       const struct mpa_enh *rep,
			       const struct neg_policy *p,
			       struct neg_result *res);

/* ---- MPA over TCP ---- */

/*
 * Initiator: the Request for p (type, flags, rev, enhanced word).  Private
 * Data is left empty: the caller sets ulp_pd (pd when not enhanced).
 */
void neg_mpa_request(const struct neg_policy *p, struct mpa_frame *req);

/*
 * Responder: decide the Reply to the parsed Request req.  ulp_reject is
 * the ULP's verdict on the Private Data.  On NEG_A_ACCEPT / NEG_A_REJECT
 * *rep is the Reply to send (Private Data left to the caller); on
 * NEG_A_CLOSE nothing is sent.  *res is filled in every case.
 */
enum neg_action neg_mpa_respond(const struct mpa_frame *req,
				const struct neg_policy *p, bool ulp_reject,
				struct mpa_frame *rep, struct neg_result *res);

/*
 * Initiator: judge the frame rep received after sending sent.  Reports
 * the peer's flags and IRD/ORD in *res also on a reject (RFC 6581 §9.1).
 */
enum neg_action neg_mpa_reply(const struct mpa_frame *sent,
			      const struct mpa_frame *rep,
			      const struct neg_policy *p,
			      struct neg_result *res);

/*
 * RFC 6581 §10: after an enhanced attempt that the responder refused
 * without a reply (MPA: closed the connection; SCTP: answered with a
 * Terminate), may the initiator retry unenhanced?  Only when
 * p->fallback_v1 allows it; *retry is then the policy for the retry.
 */
bool neg_fallback(const struct neg_policy *p, bool sent_enhanced, bool no_reply,
		  struct neg_policy *retry);

/* ---- DDP over SCTP session control ---- */

/* Active side: the Initiate or Enhanced Initiate for p (DDP-SSN 0). */
void neg_sctp_initiate(const struct neg_policy *p, struct sctp_ss_msg *m);

/*
 * Passive side: the answer to the first message init of a session.  *rep
 * is always the message to send: Accept, Enhanced Accept, Reject,
 * Enhanced Reject, or Terminate (non-ULP rejection, RFC 5043 §6.4, for
 * an enhanced Initiate when enhanced is off or a message that is not an
 * Initiate), with the action NEG_A_ACCEPT, NEG_A_REJECT or NEG_A_CLOSE.
 */
enum neg_action neg_sctp_respond(const struct sctp_ss_msg *init,
				 const struct neg_policy *p, bool ulp_reject,
				 struct sctp_ss_msg *rep,
				 struct neg_result *res);

/*
 * Active side: judge the passive side's first message rep after sending
 * sent.  NEG_A_CLOSE means the sequence is illegal (terminate it).
 */
enum neg_action neg_sctp_reply(const struct sctp_ss_msg *sent,
			       const struct sctp_ss_msg *rep,
			       const struct neg_policy *p,
			       struct neg_result *res);

/* Names for logs and iwcmctl ("accept", "insufficient IRD", ...). */
const char *neg_action_name(enum neg_action a);
const char *neg_reason_name(enum neg_reason r);

#endif
