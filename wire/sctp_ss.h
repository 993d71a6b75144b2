/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_SS_H
#define IWCM_SCTP_SS_H

/*
 * DDP over SCTP (RFC 5043) session control: the DDP Stream Session Control
 * message (PPID 17) with the function codes of RFC 5043 §5.2.3 and the
 * enhanced ones of RFC 6581 §7, and the legal session sequences of
 * RFC 5043 §6 / RFC 6581 §7 as a transition table.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "mpa.h"
#include "wire_err.h"

/* RFC 5043 §5.1: Adaptation Layer Indication parameter and DDP's value. */
#define SCTP_ADAPT_IND_PARAM 0xC006
#define SCTP_ADAPT_IND_DDP 0x00000001u

/* RFC 5043 §5.2: Payload Protocol Identifiers. */
#define SCTP_PPID_DDP_SEGMENT 16
#define SCTP_PPID_DDP_SESSION_CTL 17

/* RFC 5043 §5.2.3 / RFC 6581 §7 / RFC 6580 §3.5: 16-bit function codes. */
enum sctp_ss_fc {
	SCTP_SS_INITIATE = 0x0001,
	SCTP_SS_ACCEPT = 0x0002,
	SCTP_SS_REJECT = 0x0003,
	SCTP_SS_TERMINATE = 0x0004,
	SCTP_SS_ENH_INITIATE = 0x0005,
	SCTP_SS_ENH_ACCEPT = 0x0006,
	SCTP_SS_ENH_REJECT = 0x0007,
	SCTP_SS_EXPERIMENTAL = 0xFFFF, /* RFC 6580 §3.5: reserved */
};

#define SCTP_SS_HDR_LEN 4  /* DDP-SSN + Function Code */
#define SCTP_SS_PD_MAX 512 /* RFC 5043 §5.2.3, RFC 6581 §7 */
#define SCTP_SS_MSG_MAX (SCTP_SS_HDR_LEN + SCTP_SS_PD_MAX)

/*
 * One session control message.  The message is one SCTP user message:
 * there is no length field, the Private Data runs to the end of it.
 */
struct sctp_ss_msg {
	uint16_t ssn;	    /* DDP-SSN (RFC 5043 §5.2.1) */
	uint16_t fc;	    /* enum sctp_ss_fc */
	bool enhanced;	    /* fc is 5 or 6: enh is valid */
	struct mpa_enh enh; /* RFC 6581 §9 word (first 4 octets of PD) */
	const uint8_t *pd;  /* whole Private Data incl. the word */
	uint16_t pd_len;
	const uint8_t *ulp_pd; /* Private Data after the word */
	uint16_t ulp_pd_len;
};

/*
 * Parse a session control message that is the whole of buf (an SCTP user
 * message with PPID 17).  WIRE_ESHORT when buf is shorter than the fixed
 * part (4 octets, 8 for Enhanced Initiate/Accept, whose Private Data
 * starts with the enhanced word); a caller holding a complete message
 * (MSG_EOR) treats that as malformed.  WIRE_EOPCODE for a function code
 * not in 1..7, WIRE_ELEN for Private Data over 512 octets or any on a
 * Terminate.  *used is len on WIRE_OK; pd/ulp_pd point into buf.
 */
enum wire_err sctp_ss_parse(const uint8_t *buf, size_t len,
			    struct sctp_ss_msg *out, size_t *used);

/*
 * Build m into buf.  For Enhanced Initiate/Accept the word is encoded from
 * m->enh and m->ulp_pd/ulp_pd_len follow it (m->pd, m->pd_len and
 * m->enhanced are ignored); for the other codes m->pd/m->pd_len are copied.
 * WIRE_EINVAL for an unknown function code or IRD/ORD over 14 bits,
 * WIRE_ELEN for Private Data over 512 (word included) or on a Terminate,
 * WIRE_ENOSPC when cap is too small.
 */
enum wire_err sctp_ss_build(const struct sctp_ss_msg *m, uint8_t *buf,
			    size_t cap, size_t *written);

/* True for the function codes RFC 5043 and RFC 6581 define (1..7). */
bool sctp_ss_fc_valid(uint16_t fc);

/* True for the codes whose Private Data starts with the word (5, 6). */
bool sctp_ss_fc_has_enh(uint16_t fc);

/* Short name of a function code ("Initiate", "Enhanced Accept", ...). */
const char *sctp_ss_fc_name(uint16_t fc);

/* ---- Legal sequences (RFC 5043 §6, RFC 6581 §7) ---- */

/*
 * A DDP Stream Session seen as two directions, each fed in DDP-SSN order
 * (RFC 5043 §6.1: the normative order is the DDP-SSN's, not arrival):
 *   active -> passive:  Initiate | Enhanced Initiate, Segment*, [Terminate]
 *   passive -> active:  Accept (Enhanced Accept after Enhanced Initiate),
 *                       Segment*, [Terminate]                    (§6.2)
 *                     | Reject (Enhanced Reject after Enh. Init.)  (§6.3)
 *                     | Terminate                   (§6.4, non-ULP reject)
 * Nothing may follow a direction's Terminate or a Reject.
 */
enum sctp_ss_role {
	SCTP_SS_ACTIVE = 0,
	SCTP_SS_PASSIVE,
};

/* A DDP Segment Chunk (PPID 16) in a sequence, beside function codes. */
#define SCTP_SS_SEGMENT 0x10000u

/* State of one direction. */
enum sctp_ss_dstate {
	SCTP_SS_D_NONE = 0, /* nothing sent yet */
	SCTP_SS_D_OPEN,	    /* Initiate / Accept sent: segments follow */
	SCTP_SS_D_EOPEN,    /* the same, enhanced codes */
	SCTP_SS_D_TERM,	    /* Terminate after OPEN: direction over */
	SCTP_SS_D_ETERM,    /* Terminate after EOPEN */
	SCTP_SS_D_REJ,	    /* Reject, Enh. Reject, non-ULP Terminate */
	SCTP_SS_D_MAX
};

struct sctp_ss_seq {
	enum sctp_ss_role role; /* our side */
	uint8_t d[2];		/* enum sctp_ss_dstate, by direction:
					 * [0] active->passive, [1] back */
	uint16_t ssn[2];	/* next DDP-SSN per direction */
};

enum sctp_ss_verdict {
	SCTP_SS_OK = 0,
	SCTP_SS_ILLEGAL, /* no legal pattern: terminate (§6.1) */
	SCTP_SS_BAD_SSN, /* DDP-SSN is not the next in sequence */
};

/*
 * The transition table as a pure function: may the next message msg (a
 * function code or SCTP_SS_SEGMENT) travel in direction dir (0 = from the
 * active side) when the directions are in states d0 (active->passive) and
 * d1 (passive->active)?  *next receives dir's new state when it may.
 */
bool sctp_ss_legal_next(unsigned int dir, uint8_t d0, uint8_t d1, uint32_t msg,
			uint8_t *next);

/* Start tracking a session on a stream; DDP-SSNs restart at 0 (§6.1). */
void sctp_ss_seq_init(struct sctp_ss_seq *s, enum sctp_ss_role role);

/*
 * Account for one message sent (tx = true) or received, in DDP-SSN order.
 * On anything but SCTP_SS_OK the state is unchanged.
 */
enum sctp_ss_verdict sctp_ss_seq_step(struct sctp_ss_seq *s, bool tx,
				      uint32_t msg, uint16_t ssn);

/* True once the passive side accepted (Accept or Enhanced Accept). */
bool sctp_ss_seq_established(const struct sctp_ss_seq *s);

/*
 * True when no more messages can legally follow in either direction:
 * the session was rejected (Reject, Enhanced Reject, non-ULP Terminate)
 * or both directions have sent their Terminate.
 */
bool sctp_ss_seq_done(const struct sctp_ss_seq *s);

/* Names of direction states and verdicts, for logs. */
const char *sctp_ss_dstate_name(uint8_t d);
const char *sctp_ss_verdict_name(enum sctp_ss_verdict v);

#endif
