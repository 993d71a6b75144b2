/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP Stream Session Control messages (RFC 5043 §5.2.3, RFC 6581 §7) and
 * the legal session sequences (RFC 5043 §6, RFC 6581 §7).
 */
#include "config.h"

#include <string.h>

#include "sctp_ss.h"
#include "wbuf.h"

/* True for the function codes RFC 5043 and RFC 6581 define (1..7). */
bool sctp_ss_fc_valid(uint16_t fc)
{
	return fc >= SCTP_SS_INITIATE && fc <= SCTP_SS_ENH_REJECT;
}

/* True for the codes whose Private Data starts with the word (5, 6). */
bool sctp_ss_fc_has_enh(uint16_t fc)
{
	/*
	 * RFC 6581 §7: the enhanced data is the first 32 bits of Private
	 * Data of the Enhanced Initiate and Enhanced Accept only; Enhanced
	 * Reject carries ULP Private Data alone.
	 */
	return fc == SCTP_SS_ENH_INITIATE || fc == SCTP_SS_ENH_ACCEPT;
}

/* Short name of a function code ("Initiate", "Enhanced Accept", ...). */
const char *sctp_ss_fc_name(uint16_t fc)
{
	switch (fc) {
	case SCTP_SS_INITIATE:
		return "Initiate";
	case SCTP_SS_ACCEPT:
		return "Accept";
	case SCTP_SS_REJECT:
		return "Reject";
	case SCTP_SS_TERMINATE:
		return "Terminate";
	case SCTP_SS_ENH_INITIATE:
		return "Enhanced Initiate";
	case SCTP_SS_ENH_ACCEPT:
		return "Enhanced Accept";
	case SCTP_SS_ENH_REJECT:
		return "Enhanced Reject";
	case SCTP_SS_EXPERIMENTAL:
		return "Experimental";
	}
	return "Unassigned";
}

/* Parse one PPID 17 message occupying all of buf. */
enum wire_err sctp_ss_parse(const uint8_t *buf, size_t len,
			    struct sctp_ss_msg *out, size_t *used)
{
	struct wbuf b;
	struct sctp_ss_msg m;
	size_t pd_len;

	memset(&m, 0, sizeof(m));
	wbuf_init(&b, buf, len);
	/* RFC 5043 §5.2.3: DDP-SSN (16) | Function Code (16) | PD */
	if (wbuf_get_u16(&b, &m.ssn) != WIRE_OK ||
	    wbuf_get_u16(&b, &m.fc) != WIRE_OK)
		return WIRE_ESHORT;
	/* RFC 6580 §3.5: 0xFFFF experimental, the rest unassigned. */
	if (!sctp_ss_fc_valid(m.fc))
		return WIRE_EOPCODE;
	pd_len = wbuf_left(&b);
	/* RFC 5043 §5.2.3, RFC 6581 §7: at most 512 octets, word included. */
	if (pd_len > SCTP_SS_PD_MAX)
		return WIRE_ELEN;
	/* RFC 5043 §5.2.3: "MUST NOT be included in ... Terminate". */
	if (m.fc == SCTP_SS_TERMINATE && pd_len)
		return WIRE_ELEN;
	m.pd = wbuf_cur(&b);
	m.pd_len = (uint16_t)pd_len;
	m.ulp_pd = m.pd;
	m.ulp_pd_len = m.pd_len;
	if (sctp_ss_fc_has_enh(m.fc)) {
		/* RFC 6581 §7, §9: Private Data begins with the word. */
		if (mpa_enh_parse(m.pd, pd_len, &m.enh) != WIRE_OK)
			return WIRE_ESHORT;
		m.enhanced = true;
		m.ulp_pd = m.pd + MPA_ENH_LEN;
		m.ulp_pd_len = (uint16_t)(pd_len - MPA_ENH_LEN);
	}
	if (!m.pd_len)
		m.pd = m.ulp_pd = NULL;
	else if (!m.ulp_pd_len)
		m.ulp_pd = NULL;
	*out = m;
	*used = len;
	return WIRE_OK;
}

/* Build one PPID 17 message into buf. */
enum wire_err sctp_ss_build(const struct sctp_ss_msg *m, uint8_t *buf,
			    size_t cap, size_t *written)
{
	struct wbuf_w w;
	const uint8_t *pd;
	size_t pd_len, total;
	bool enh;
	enum wire_err err;

	if (!sctp_ss_fc_valid(m->fc))
		return WIRE_EINVAL;
	enh = sctp_ss_fc_has_enh(m->fc);
	if (enh) {
		pd = m->ulp_pd;
		pd_len = m->ulp_pd_len;
		total = MPA_ENH_LEN + pd_len;
	} else {
		pd = m->pd;
		pd_len = m->pd_len;
		total = pd_len;
	}
	/* RFC 5043 §5.2.3, RFC 6581 §7: nothing on a Terminate, max 512. */
	if (m->fc == SCTP_SS_TERMINATE && total)
		return WIRE_ELEN;
	if (total > SCTP_SS_PD_MAX)
		return WIRE_ELEN;
	if (pd_len && !pd)
		return WIRE_EINVAL;
	if (cap < SCTP_SS_HDR_LEN + total)
		return WIRE_ENOSPC;
	wbuf_w_init(&w, buf, cap);
	(void)wbuf_put_u16(&w, m->ssn);
	(void)wbuf_put_u16(&w, m->fc);
	if (enh) {
		/* The one encoder of the RFC 6581 §9 word lives in mpa.c. */
		err = mpa_enh_build(&m->enh, buf + w.off, wbuf_w_left(&w));
		if (err != WIRE_OK)
			return err;
		w.off += MPA_ENH_LEN;
	}
	(void)wbuf_put_bytes(&w, pd, pd_len);
	*written = w.off;
	return WIRE_OK;
}

/* ---- Legal sequences ---- */

#define D_BIT(d) (1u << (d))
#define D_ANY 0xFFu
#define D_STARTED                                         \
	(D_BIT(SCTP_SS_D_OPEN) | D_BIT(SCTP_SS_D_EOPEN) | \
	 D_BIT(SCTP_SS_D_TERM) | D_BIT(SCTP_SS_D_ETERM))
#define D_PLAIN (D_BIT(SCTP_SS_D_OPEN) | D_BIT(SCTP_SS_D_TERM))
#define D_ENH (D_BIT(SCTP_SS_D_EOPEN) | D_BIT(SCTP_SS_D_ETERM))
#define D_NOT_REJ (D_ANY & ~D_BIT(SCTP_SS_D_REJ))

/*
 * One row: message msg may travel in direction dir while that direction
 * is in state cur and the other direction's state is in the set other;
 * the direction then moves to next.
 */
struct sctp_ss_row {
	uint8_t dir;
	uint8_t cur;
	uint32_t msg;
	uint8_t other; /* D_BIT set of the other direction's states */
	uint8_t next;
};

static const struct sctp_ss_row sctp_ss_rows[] = {
	/* RFC 5043 §6.2-6.4: the active side starts the session. */
	{ 0, SCTP_SS_D_NONE, SCTP_SS_INITIATE, D_BIT(SCTP_SS_D_NONE),
	  SCTP_SS_D_OPEN },
	/* RFC 6581 §7: the enhanced sequences start the same way. */
	{ 0, SCTP_SS_D_NONE, SCTP_SS_ENH_INITIATE, D_BIT(SCTP_SS_D_NONE),
	  SCTP_SS_D_EOPEN },
	/*
	 * RFC 5043 §6.2, §6.6: the active side may send segments once the
	 * Initiate cannot be overtaken (the caller waits for its SCTP ack
	 * or the reply), not after a rejection.
	 */
	{ 0, SCTP_SS_D_OPEN, SCTP_SS_SEGMENT, D_NOT_REJ, SCTP_SS_D_OPEN },
	{ 0, SCTP_SS_D_EOPEN, SCTP_SS_SEGMENT, D_NOT_REJ, SCTP_SS_D_EOPEN },
	/* RFC 5043 §6.2: "The final User Data Chunk for each side MAY be a
	 * DDP Stream Terminate." */
	{ 0, SCTP_SS_D_OPEN, SCTP_SS_TERMINATE, D_NOT_REJ, SCTP_SS_D_TERM },
	{ 0, SCTP_SS_D_EOPEN, SCTP_SS_TERMINATE, D_NOT_REJ, SCTP_SS_D_ETERM },
	/* RFC 5043 §6.2: the passive side accepts an Initiate. */
	{ 1, SCTP_SS_D_NONE, SCTP_SS_ACCEPT, D_PLAIN, SCTP_SS_D_OPEN },
	/* RFC 6581 §7: Enhanced Accept answers an Enhanced Initiate. */
	{ 1, SCTP_SS_D_NONE, SCTP_SS_ENH_ACCEPT, D_ENH, SCTP_SS_D_EOPEN },
	/* RFC 5043 §6.3: ULP rejection; RFC 6581 §7 the enhanced one. */
	{ 1, SCTP_SS_D_NONE, SCTP_SS_REJECT, D_PLAIN, SCTP_SS_D_REJ },
	{ 1, SCTP_SS_D_NONE, SCTP_SS_ENH_REJECT, D_ENH, SCTP_SS_D_REJ },
	/* RFC 5043 §6.4, RFC 6581 §7: non-ULP rejection by Terminate. */
	{ 1, SCTP_SS_D_NONE, SCTP_SS_TERMINATE, D_STARTED, SCTP_SS_D_REJ },
	/* RFC 5043 §6.2: segments after the Accept, then a Terminate. */
	{ 1, SCTP_SS_D_OPEN, SCTP_SS_SEGMENT, D_STARTED, SCTP_SS_D_OPEN },
	{ 1, SCTP_SS_D_EOPEN, SCTP_SS_SEGMENT, D_STARTED, SCTP_SS_D_EOPEN },
	{ 1, SCTP_SS_D_OPEN, SCTP_SS_TERMINATE, D_STARTED, SCTP_SS_D_TERM },
	{ 1, SCTP_SS_D_EOPEN, SCTP_SS_TERMINATE, D_STARTED, SCTP_SS_D_ETERM },
};

/* May msg travel in direction dir from states (d0, d1)? */
bool sctp_ss_legal_next(unsigned int dir, uint8_t d0, uint8_t d1, uint32_t msg,
			uint8_t *next)
{
	uint8_t cur, other;
	size_t i;

	if (dir > 1 || d0 >= SCTP_SS_D_MAX || d1 >= SCTP_SS_D_MAX)
		return false;
	cur = dir ? d1 : d0;
	other = dir ? d0 : d1;
	for (i = 0; i < sizeof(sctp_ss_rows) / sizeof(sctp_ss_rows[0]); i++) {
		const struct sctp_ss_row *r = &sctp_ss_rows[i];

		if (r->dir != dir || r->cur != cur || r->msg != msg ||
		    !(r->other & D_BIT(other)))
			continue;
		if (next)
			*next = r->next;
		return true;
	}
	return false;
}

/* Start tracking a session; DDP-SSNs restart at 0 (RFC 5043 §6.1). */
void sctp_ss_seq_init(struct sctp_ss_seq *s, enum sctp_ss_role role)
{
	memset(s, 0, sizeof(*s));
	s->role = role;
}

/* Account for one message sent or received, in DDP-SSN order. */
enum sctp_ss_verdict sctp_ss_seq_step(struct sctp_ss_seq *s, bool tx,
				      uint32_t msg, uint16_t ssn)
{
	unsigned int dir;
	uint8_t next;

	/* Direction 0 carries what the active side sends. */
	dir = ((s->role == SCTP_SS_ACTIVE) == tx) ? 0 : 1;
	/* RFC 5043 §6: DDP-SSNs of a session start at 0 with no gaps. */
	if (ssn != s->ssn[dir])
		return SCTP_SS_BAD_SSN;
	if (!sctp_ss_legal_next(dir, s->d[0], s->d[1], msg, &next))
		return SCTP_SS_ILLEGAL;
	s->d[dir] = next;
	s->ssn[dir] = (uint16_t)(s->ssn[dir] + 1);
	return SCTP_SS_OK;
}

/* True once the passive side accepted (Accept or Enhanced Accept). */
bool sctp_ss_seq_established(const struct sctp_ss_seq *s)
{
	return (D_STARTED & D_BIT(s->d[1])) != 0;
}

/* True when nothing more may legally follow in either direction. */
bool sctp_ss_seq_done(const struct sctp_ss_seq *s)
{
	uint8_t term = D_BIT(SCTP_SS_D_TERM) | D_BIT(SCTP_SS_D_ETERM);

	if (s->d[1] == SCTP_SS_D_REJ)
		return true;
	return (term & D_BIT(s->d[0])) && (term & D_BIT(s->d[1]));
}

/* Name of a direction state. */
const char *sctp_ss_dstate_name(uint8_t d)
{
	static const char *const names[SCTP_SS_D_MAX] = {
		[SCTP_SS_D_NONE] = "none",
		[SCTP_SS_D_OPEN] = "open",
		[SCTP_SS_D_EOPEN] = "open (enhanced)",
		[SCTP_SS_D_TERM] = "terminated",
		[SCTP_SS_D_ETERM] = "terminated (enhanced)",
		[SCTP_SS_D_REJ] = "rejected",
	};

	return d < SCTP_SS_D_MAX ? names[d] : "unknown";
}

/* Name of a sequence verdict. */
const char *sctp_ss_verdict_name(enum sctp_ss_verdict v)
{
	switch (v) {
	case SCTP_SS_OK:
		return "ok";
	case SCTP_SS_ILLEGAL:
		return "illegal sequence";
	case SCTP_SS_BAD_SSN:
		return "DDP-SSN out of sequence";
	}
	return "unknown";
}
