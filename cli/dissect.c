/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA/DDP/RDMAP dissector for one TCP connection: the startup frames and
 * the public API.  Each side goes through the states of dissect_int.h;
 * the codecs in wire/ do all the decoding, wire/negotiate.c decides how
 * each direction is framed (markers, CRC, DDP/RDMAP version) from the
 * observed Request and Reply, dissect_fpdu.c follows full operation.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect_int.h"
#include "negotiate.h"

/* ---- startup frames ---- */

enum keym {
	KEYM_NO = 0,
	KEYM_PARTIAL,
	KEYM_FULL,
};

/* seed 003: the RtR key as its text spells it ("Rtr"); its bytes say
 * "RtR" (mpa_key_rtr).  Both are accepted. */
static const uint8_t key_rtr_lower[MPA_KEY_LEN] = {
	'M', 'P', 'A', ' ', 'I', 'D', ' ', 'R',
	't', 'r', ' ', 'F', 'r', 'a', 'm', 'e',
};

/* What all keys start with: a frame whose key is damaged after it is
 * still reported as a bad frame, not decoded as FPDUs. */
static const uint8_t key_common[] = { 'M', 'P', 'A', ' ', 'I', 'D', ' ' };

static enum keym key_match_n(const uint8_t *p, size_t len, const uint8_t *key,
			     size_t key_len)
{
	size_t n = len < key_len ? len : key_len;

	if (memcmp(p, key, n) != 0)
		return KEYM_NO;
	return n < key_len ? KEYM_PARTIAL : KEYM_FULL;
}

static enum keym key_match1(const uint8_t *p, size_t len, const uint8_t *key)
{
	if (key == key_common)
		return key_match_n(p, len, key, sizeof(key_common));
	return key_match_n(p, len, key, MPA_KEY_LEN);
}

/* Best match of p against the keys in keys[] (NULL-terminated). */
static enum keym key_match(const uint8_t *p, size_t len,
			   const uint8_t *const *keys)
{
	enum keym best = KEYM_NO, m;

	for (; *keys; keys++) {
		m = key_match1(p, len, *keys);
		if (m > best)
			best = m;
	}
	return best;
}

static void emit_frame(struct dissect *d, int side, const struct mpa_frame *f,
		       const uint8_t *raw, size_t raw_len, bool rtr_lower)
{
	struct side *s = &d->s[side];
	struct out_frame of;

	memset(&of, 0, sizeof(of));
	of.conn = d->conn;
	of.dir = dissect_dir(d, side);
	of.src = d->ep[side];
	of.dst = d->ep[!side];
	of.off = s->frames_len;
	of.f = f;
	of.raw = raw;
	of.raw_len = raw_len;
	of.key_rtr_lower = rtr_lower;
	s->frames_len += raw_len;
	d->st->frames++;
	d->out->ops->frame(d->out, &of);
}

static void side_advance(struct dissect *d, int side);

/*
 * Markers, CRC and the DDP/RDMAP version of a connection as the initiator
 * decides them from the Request it sent and the Reply it got (RFC 5044
 * §7.1.1, RFC 6581 §10, seed 002 §5.3): wire/negotiate.c, with the policy
 * of an observer that follows whatever the peers did (Rev 0 and the
 * seed-003 RtR frame accepted).  A revision pair the initiator would
 * close on still has its M and C bits judged, as if both frames had the
 * Reply's revision.
 */
static void dissect_outcome(const struct mpa_frame *req,
			    const struct mpa_frame *rep, struct neg_result *res)
{
	struct mpa_frame req2, rep2;
	struct neg_policy pol;

	neg_policy_init(&pol, NEG_INITIATOR);
	pol.rev0_permissive = true;
	pol.legacy_rtr = true;
	neg_mpa_reply(req, rep, &pol, res);
	if (res->reason != NEG_R_REV)
		return;
	req2 = *req;
	rep2 = *rep;
	req2.rev = rep2.rev = rep->rev > MPA_REV_2 ? MPA_REV_2 : rep->rev;
	neg_mpa_reply(&req2, &rep2, &pol, res);
}

/* Both frames known: apply the negotiation rules and start full operation. */
static void negotiate(struct dissect *d)
{
	struct out_params *p = &d->params;
	const struct mpa_frame *req, *rep;
	struct neg_result res;
	bool problem_bad = false;
	int is, rs;

	if (d->params_done || !d->s[0].have_frame || !d->s[1].have_frame)
		return;
	d->params_done = true;
	if (d->s[0].role == d->s[1].role) {
		/* RFC 5044 §7.1.2: two Requests (Initiator/Initiator) or two
		 * Replies cannot set up a connection. */
		dissect_event(d, -1, OUT_EV_PROTOCOL, true,
			      "both sides sent an MPA %s frame",
			      d->s[0].role == ROLE_INITIATOR ? "Request" :
							       "Reply");
		dissect_stop(d, 0, "no valid handshake");
		dissect_stop(d, 1, "no valid handshake");
		return;
	}
	is = d->s[0].role == ROLE_INITIATOR ? 0 : 1;
	rs = !is;
	d->init_side = is;
	req = &d->s[is].frame;
	rep = &d->s[rs].frame;

	memset(p, 0, sizeof(*p));
	p->conn = d->conn;
	p->initiator = d->ep[is];
	p->responder = d->ep[rs];
	p->rev_req = req->rev;
	p->rev_rep = rep->rev;
	p->rejected = (rep->flags & MPA_FLAG_R) != 0;
	dissect_outcome(req, rep, &res);
	p->rdmac = res.version == RDMAP_VERSION_RDMAC;
	p->markers_i2r = res.markers_rrx;
	p->markers_r2i = res.markers_irx;
	p->crc = res.crc;
	p->version = res.version;
	if (p->rdmac && req->rev != MPA_REV_RDMAC && !(req->flags & MPA_FLAG_M))
		/* seed 002 §5.3 Figure 3: an RDMA Consortium responder runs
		 * Rev 0 with markers both ways, whatever the IETF side asked. */
		p->problem = "Rev 0 responder: markers forced on";
	else if (!p->rdmac && req->rev == MPA_REV_RDMAC)
		/* seed 002 §5.2.1: an IETF responder that answers a Rev 0
		 * Request with Rev 1 then closes. */
		p->problem = "Rev 0 Request answered by an IETF "
			     "responder: the connection should close";
	p->enhanced = req->enhanced && rep->enhanced;
	if (req->enhanced) {
		p->rtr_offered = req->enh.rtr;
		p->ird_req = req->enh.ird;
		p->ord_req = req->enh.ord;
	}
	if (rep->enhanced) {
		p->rtr_allowed = rep->enh.rtr;
		p->ird_rep = rep->enh.ird;
		p->ord_rep = rep->enh.ord;
	}
	if (req->enhanced && !rep->enhanced && !p->rejected)
		/* RFC 6581 §10: an enhanced Request gets an enhanced Reply
		 * or the connection is closed. */
		p->problem = "enhanced Request, unenhanced Reply (RFC 6581 "
			     "§10)";
	else if (!req->enhanced && rep->enhanced)
		p->problem = "unenhanced Request, enhanced Reply (RFC 6581 "
			     "§10)";
	/* RFC 6581 §9.2: peer-to-peer when A is set in both frames. */
	p->p2p = p->enhanced && req->enh.p2p && rep->enh.p2p;
	if (p->enhanced && req->enh.p2p && !rep->enh.p2p && !p->rejected) {
		/* a MUST of the responder, not a choice: count it */
		p->problem = "Request has A=1 but the Reply has A=0 (RFC 6581 "
			     "§9.2)";
		problem_bad = true;
	}
	d->out->ops->params(d->out, p);
	if (p->problem)
		dissect_event(d, -1, OUT_EV_PROTOCOL, problem_bad, "%s",
			      p->problem);

	if (p->rejected) {
		/* RFC 5044 §7.1.2: a rejected connection goes no further. */
		dissect_stop(d, is, "the Reply rejected the connection");
		dissect_stop(d, rs, "the Reply rejected the connection");
		d->s[is].data_forbidden = d->s[rs].data_forbidden = true;
		return;
	}
	d->s[is].version_known = d->s[rs].version_known =
		!(req->rev == MPA_REV_RDMAC && rep->rev != MPA_REV_RDMAC);
	d->s[is].version = d->s[rs].version = p->version;
	dissect_fpdu_start(d, rs, p->markers_r2i,
			   p->crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
	d->s[is].state = DS_RTR_KEY;
	/* initiator first: its RTR type is needed to check the reply to it */
	side_advance(d, is);
	side_advance(d, rs);
}

/* Frame parsed on side: record it and see whether framing is decided. */
static void frame_done(struct dissect *d, int side, const struct mpa_frame *f,
		       size_t used)
{
	struct side *s = &d->s[side];

	if (f->type == MPA_FRAME_RTR) {
		/* seed 003: the RtR frame only follows a Request/Reply. */
		emit_frame(d, side, f, s->pend.p, used, false);
		dissect_event_at(d, side, 0, OUT_EV_PROTOCOL, true,
				 "RtR frame before any Request/Reply");
		dissect_stop(d, side, "RtR frame out of place");
		return;
	}
	memcpy(s->frame_raw, s->pend.p, used);
	s->frame_len = used;
	/* re-parse from our own copy so that pd pointers stay valid */
	if (mpa_frame_parse(s->frame_raw, used, &s->frame, &used) != WIRE_OK) {
		dissect_stop(d, side, "frame parse failed");
		return;
	}
	s->have_frame = true;
	s->role = f->type == MPA_FRAME_REQ ? ROLE_INITIATOR : ROLE_RESPONDER;
	if (s->role == ROLE_INITIATOR && d->s[!side].role != ROLE_INITIATOR)
		d->init_side = side;
	else if (s->role == ROLE_RESPONDER &&
		 d->s[!side].role != ROLE_RESPONDER)
		d->init_side = !side;
	emit_frame(d, side, &s->frame, s->frame_raw, s->frame_len, false);
	dissect_buf_consume(&s->pend, used);
	s->state = DS_WAIT;
}

static void frame_error(struct dissect *d, int side, const char *what,
			enum wire_err err)
{
	dissect_event_at(d, side, d->s[side].frames_len, OUT_EV_MALFORMED, true,
			 "%s frame: %s (%s)", what, wire_strerror(err),
			 wire_errname(err));
	dissect_stop(d, side, "malformed startup frame");
}

/* Run side's state machine over its pending octets. */
static void side_advance(struct dissect *d, int side)
{
	static const uint8_t *const start_keys[] = {
		mpa_key_req, mpa_key_rep, mpa_key_rtr, key_rtr_lower, NULL,
	};
	static const uint8_t *const rtr_keys[] = {
		mpa_key_rtr,
		key_rtr_lower,
		NULL,
	};
	struct side *s = &d->s[side];
	struct mpa_frame f;
	enum wire_err r;
	enum keym m;
	size_t used;

	for (;;) {
		switch (s->state) {
		case DS_START:
			if (!s->pend.len)
				return;
			m = key_match(s->pend.p, s->pend.len, start_keys);
			if (m == KEYM_PARTIAL)
				return;
			/* a frame, or one whose key is damaged after
			 * "MPA ID ": mpa_frame_parse() says which */
			if (m == KEYM_FULL ||
			    key_match1(s->pend.p, s->pend.len, key_common) ==
				    KEYM_FULL) {
				s->state = DS_FRAME;
				break;
			}
			if (d->s[!side].have_frame) {
				bool req = d->s[!side].role == ROLE_INITIATOR;

				/* RFC 5044 §7.1.2: the peer's frame must be
				 * answered by a frame */
				dissect_event_at(d, side, 0, OUT_EV_MALFORMED,
						 true,
						 "expected an MPA %s "
						 "frame",
						 req ? "Reply" : "Request");
				dissect_stop(d, side, "no startup frame");
				return;
			}
			/* No startup frame: the capture began in full
			 * operation.  Decode FPDUs from the first octet seen,
			 * markers unknown (assumed off), CRC checked but not
			 * judged. */
			dissect_event_at(
				d, side, 0, OUT_EV_NOTE, false,
				"no MPA startup frame: decoding FPDUs "
				"from the first octet, markers assumed "
				"off, CRC unknown");
			dissect_fpdu_start(d, side, false, OUT_CRC_UNKNOWN);
			break;
		case DS_FRAME:
			r = mpa_frame_parse(s->pend.p, s->pend.len, &f, &used);
			if (r == WIRE_ESHORT)
				return;
			if (r != WIRE_OK) {
				frame_error(d, side, "MPA startup", r);
				return;
			}
			frame_done(d, side, &f, used);
			negotiate(d);
			break;
		case DS_WAIT:
			return;
		case DS_RTR_KEY:
			if (!s->pend.len)
				return;
			m = key_match(s->pend.p, s->pend.len, rtr_keys);
			if (m == KEYM_PARTIAL)
				return;
			if (m == KEYM_FULL) {
				s->state = DS_RTR_FRAME;
				break;
			}
			dissect_fpdu_start(d, side, d->params.markers_i2r,
					   d->params.crc ? OUT_CRC_GOOD :
							   OUT_CRC_OFF);
			break;
		case DS_RTR_FRAME:
			/* the parser takes both spellings of the key */
			r = mpa_frame_parse(s->pend.p, s->pend.len, &f, &used);
			if (r == WIRE_ESHORT)
				return;
			if (r != WIRE_OK) {
				frame_error(d, side, "MPA RtR", r);
				return;
			}
			emit_frame(d, side, &f, s->pend.p, used,
				   key_match1(s->pend.p, used, key_rtr_lower) ==
					   KEYM_FULL);
			dissect_buf_consume(&s->pend, used);
			/* seed 003: full operation starts after the RtR
			 * frame; framing as negotiated by Request/Reply. */
			dissect_fpdu_start(d, side, d->params.markers_i2r,
					   d->params.crc ? OUT_CRC_GOOD :
							   OUT_CRC_OFF);
			break;
		case DS_FPDU:
			if (s->pend.len) {
				struct dbuf tmp = s->pend;

				/* hand over the pending octets */
				memset(&s->pend, 0, sizeof(s->pend));
				dissect_fpdu_feed(d, side, tmp.p, tmp.len);
				dissect_buf_free(&tmp);
			}
			return;
		case DS_STOP:
			s->ignored += s->pend.len;
			s->pend.len = 0;
			return;
		}
	}
}

/* ---- public API ---- */

/* Create a dissector for one connection and report the connection. */
struct dissect *dissect_new(struct out_sink *out, struct dissect_stats *st,
			    unsigned int conn, const char *a, const char *b,
			    int initiator_side)
{
	struct dissect *d = calloc(1, sizeof(*d));
	struct out_conn oc;

	if (!d)
		return NULL;
	d->out = out;
	d->st = st;
	d->conn = conn;
	snprintf(d->ep[0], sizeof(d->ep[0]), "%s", a);
	snprintf(d->ep[1], sizeof(d->ep[1]), "%s", b);
	d->init_side = initiator_side == 0 || initiator_side == 1 ?
			       initiator_side :
			       -1;
	st->conns++;
	oc.conn = conn;
	oc.a = d->ep[0];
	oc.b = d->ep[1];
	out->ops->conn(out, &oc);
	return d;
}

/* Feed len in-order octets of one side of the connection. */
void dissect_data(struct dissect *d, int side, const uint8_t *buf, size_t len)
{
	struct side *s;

	if (side < 0 || side > 1 || !len)
		return;
	s = &d->s[side];
	s->bytes += len;
	switch (s->state) {
	case DS_STOP:
		s->ignored += len;
		return;
	case DS_FPDU:
		dissect_fpdu_feed(d, side, buf, len);
		return;
	default:
		break;
	}
	if (dissect_buf_append(&s->pend, buf, len, DISSECT_PEND_MAX)) {
		dissect_event_at(d, side, 0, OUT_EV_PROTOCOL, true,
				 "more than %u octets before full operation "
				 "could start; direction stopped",
				 (unsigned int)DISSECT_PEND_MAX);
		dissect_stop(d, side, "too much data before full operation");
		s->ignored += len;
		return;
	}
	side_advance(d, side);
}

/* Octets lost before the next data: that direction cannot be followed. */
void dissect_gap(struct dissect *d, int side, uint64_t missing)
{
	struct side *s;

	if (side < 0 || side > 1)
		return;
	s = &d->s[side];
	if (s->state == DS_STOP) {
		s->ignored += missing;
		return;
	}
	if (s->state == DS_FPDU)
		dissect_event_at(d, side, s->off, OUT_EV_GAP, true,
				 "%llu octets missing from the capture; "
				 "direction not decoded further",
				 (unsigned long long)missing);
	else
		dissect_event(d, side, OUT_EV_GAP, true,
			      "%llu octets missing from the capture before "
			      "full operation; direction not decoded further",
			      (unsigned long long)missing);
	dissect_stop(d, side, "gap in the capture");
}

static void side_end(struct dissect *d, int side)
{
	struct side *s = &d->s[side];

	switch (s->state) {
	case DS_START:
	case DS_FRAME:
		if (s->pend.len)
			dissect_event_at(d, side, s->frames_len,
					 OUT_EV_TRUNCATED, true,
					 "MPA startup frame incomplete: %zu "
					 "octets",
					 s->pend.len);
		break;
	case DS_RTR_FRAME:
		dissect_event_at(d, side, s->frames_len, OUT_EV_TRUNCATED, true,
				 "MPA RtR frame incomplete: %zu octets",
				 s->pend.len);
		break;
	case DS_RTR_KEY:
		/* a short prefix of the RtR key: FPDU octets after all */
		dissect_fpdu_start(d, side, d->params.markers_i2r,
				   d->params.crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
		side_advance(d, side);
		break;
	case DS_WAIT:
		if (!s->pend.len)
			break;
		/* The peer's frame never showed up: decode anyway. */
		dissect_event(d, side, OUT_EV_NOTE, false,
			      "the peer's MPA frame was not seen: decoding "
			      "%zu octets with markers off, CRC unknown",
			      s->pend.len);
		dissect_fpdu_start(d, side, false, OUT_CRC_UNKNOWN);
		side_advance(d, side);
		break;
	default:
		break;
	}
	if (s->state == DS_FPDU) {
		static const uint8_t none[1];

		/* flush an END the decoder may still hold */
		dissect_fpdu_feed(d, side, none, 0);
		if (s->state == DS_FPDU && s->raw.len)
			dissect_event_at(d, side, s->fpdu_start,
					 OUT_EV_TRUNCATED, true,
					 "FPDU incomplete at the end of the "
					 "input: %zu octets",
					 s->raw.len);
	}
	if (s->state == DS_STOP && s->ignored && s->data_forbidden)
		/* RFC 5044 §7.1.2: nothing follows a rejecting Reply */
		dissect_event(d, side, OUT_EV_PROTOCOL, true,
			      "%llu octets sent after %s",
			      (unsigned long long)s->ignored,
			      "the Reply rejected the connection");
	else if (s->state == DS_STOP && s->ignored)
		dissect_event(d, side, OUT_EV_NOTE, false,
			      "%llu octets not decoded (%s)",
			      (unsigned long long)s->ignored, s->stop_reason);
}

/* End of input: report incomplete PDUs and the per-connection counts. */
void dissect_end(struct dissect *d)
{
	struct out_conn_end ce;
	int i;

	for (i = 0; i < 2; i++)
		side_end(d, i);
	memset(&ce, 0, sizeof(ce));
	ce.conn = d->conn;
	ce.dir0 = dissect_dir(d, 0);
	ce.dir1 = dissect_dir(d, 1);
	for (i = 0; i < 2; i++) {
		ce.fpdus[i] = d->s[i].n_fpdus;
		ce.bytes[i] = d->s[i].bytes;
	}
	d->out->ops->conn_end(d->out, &ce);
}

/* Free a dissector and its buffers. */
void dissect_free(struct dissect *d)
{
	int i;

	if (!d)
		return;
	for (i = 0; i < 2; i++) {
		dissect_buf_free(&d->s[i].pend);
		dissect_buf_free(&d->s[i].raw);
		dissect_buf_free(&d->s[i].ulpdu);
	}
	free(d);
}
