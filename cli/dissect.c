/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA/DDP/RDMAP dissector for one TCP connection.  Each side goes through
 * the states below; the codecs in wire/ do all the decoding (frames,
 * FPDU framing with markers and CRC, DDP and RDMAP headers), this file
 * keeps the per-connection state, applies the negotiation rules to know
 * how each direction is framed, and describes the result to the output.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "dissect.h"
#include "wbuf.h"

enum ds_state {
	DS_START = 0,	/* nothing decided: startup frame or raw FPDUs */
	DS_FRAME,	/* collecting a Request or Reply */
	DS_WAIT,	/* own frame done; the peer's frame decides framing */
	DS_RTR_KEY,	/* initiator: a seed-003 RtR frame may come first */
	DS_RTR_FRAME,	/* collecting the RtR frame */
	DS_FPDU,	/* full operation: FPDUs */
	DS_STOP,	/* damaged, lost or rejected: the rest is ignored */
};

enum ds_role { ROLE_NONE = 0, ROLE_INITIATOR, ROLE_RESPONDER };

/* Growable byte buffer with a hard cap. */
struct dbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

/* Largest FPDU on the wire: length, ULPDU, pad, CRC and its markers. */
#define FPDU_WIRE_MAX                                                        \
	(MPA_HDR_LEN + MPA_ULPDU_MAX + 3 + MPA_CRC_LEN +                     \
	 (MPA_FPDU_MAX_MARKERS + 1) * MPA_MARKER_LEN)
#define MARKERS_MAX (MPA_FPDU_MAX_MARKERS + 2)

struct side {
	enum ds_state state;
	enum ds_role role;
	struct dbuf pend;	/* octets before full operation */
	/* this side's startup frame, kept for the negotiation */
	bool have_frame;
	uint8_t frame_raw[MPA_FRAME_MAX];
	size_t frame_len;
	struct mpa_frame frame;
	uint64_t frames_len;	/* octets of startup frames so far */
	/* full operation */
	struct mpa_rx rx;
	bool markers;
	enum out_crc crc_mode;	/* OFF, GOOD (= on) or UNKNOWN */
	bool version_known;
	uint8_t version;
	uint64_t off;		/* stream octets consumed in FPDU mode */
	uint64_t fpdu_start;	/* stream offset of the current FPDU */
	struct dbuf raw;	/* wire octets of the current FPDU */
	struct dbuf ulpdu;	/* its ULPDU octets, markers removed */
	unsigned long n_fpdus;
	uint8_t rtr_type;	/* initiator: MPA_RTR_* it sent */
	/* accounting */
	uint64_t bytes;
	uint64_t ignored;
	const char *stop_reason;
	bool data_forbidden;	/* octets after the stop break a rule */
};

struct dissect {
	struct out_sink *out;
	struct dissect_stats *st;
	unsigned int conn;
	char ep[2][64];
	int init_side;		/* the MPA initiator's side, -1 unknown */
	bool params_done;
	struct out_params params;
	struct side s[2];
};

/* ---- small helpers ---- */

static int dbuf_append(struct dbuf *b, const uint8_t *p, size_t n,
		       size_t max)
{
	size_t want;
	uint8_t *np;

	if (n > max || b->len > max - n)
		return -1;
	want = b->len + n;
	if (want > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;

		while (ncap < want)
			ncap *= 2;
		if (ncap > max)
			ncap = max;
		np = realloc(b->p, ncap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = ncap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

static void dbuf_consume(struct dbuf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

static void dbuf_free(struct dbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

static enum out_dir side_dir(const struct dissect *d, int side)
{
	if (d->init_side < 0)
		return side == 0 ? OUT_DIR_A2B : OUT_DIR_B2A;
	return side == d->init_side ? OUT_DIR_I2R : OUT_DIR_R2I;
}

static void count_event(struct dissect_stats *st, enum out_ev kind, bool bad)
{
	if (!bad)
		return;
	if (kind == OUT_EV_MALFORMED)
		st->malformed++;
	else
		st->errors++;
}

static void event_v(struct dissect *d, int side, bool has_off, uint64_t off,
		    enum out_ev kind, bool bad, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

static void event_v(struct dissect *d, int side, bool has_off, uint64_t off,
		    enum out_ev kind, bool bad, const char *fmt, va_list ap)
{
	struct out_event ev;
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	memset(&ev, 0, sizeof(ev));
	ev.conn = d->conn;
	ev.dir = side < 0 ? OUT_DIR_NONE : side_dir(d, side);
	ev.has_off = has_off;
	ev.off = off;
	ev.kind = kind;
	ev.bad = bad;
	ev.msg = msg;
	count_event(d->st, kind, bad);
	d->out->ops->event(d->out, &ev);
}

static void event_at(struct dissect *d, int side, uint64_t off,
		     enum out_ev kind, bool bad, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

static void event_at(struct dissect *d, int side, uint64_t off,
		     enum out_ev kind, bool bad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(d, side, true, off, kind, bad, fmt, ap);
	va_end(ap);
}

/* Report an event for this connection and count it when bad. */
void dissect_event(struct dissect *d, int side, enum out_ev kind, bool bad,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(d, side, false, 0, kind, bad, fmt, ap);
	va_end(ap);
}

static void side_stop(struct dissect *d, int side, const char *why)
{
	struct side *s = &d->s[side];

	s->state = DS_STOP;
	s->stop_reason = why;
	s->ignored += s->pend.len;
	s->pend.len = 0;
	s->raw.len = 0;
	s->ulpdu.len = 0;
}

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

static enum keym key_match_n(const uint8_t *p, size_t len,
			     const uint8_t *key, size_t key_len)
{
	size_t n = len < key_len ? len : key_len;

	if (memcmp(p, key, n) != 0)
		return KEYM_NO;
	return n < key_len ? KEYM_PARTIAL : KEYM_FULL;
}

static enum keym key_match1(const uint8_t *p, size_t len,
			    const uint8_t *key)
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
	of.dir = side_dir(d, side);
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

static void go_fpdu(struct dissect *d, int side, bool markers,
		    enum out_crc mode);
static void fpdu_feed(struct dissect *d, int side, const uint8_t *buf,
		      size_t len);
static void side_advance(struct dissect *d, int side);

/* Both frames known: apply the negotiation rules and start full operation. */
static void negotiate(struct dissect *d)
{
	struct out_params *p = &d->params;
	const struct mpa_frame *req, *rep;
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
		side_stop(d, 0, "no valid handshake");
		side_stop(d, 1, "no valid handshake");
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
	if (rep->rev == MPA_REV_RDMAC) {
		/* seed 002 §5.3 Figure 3: with an RDMA Consortium peer the
		 * connection runs Rev 0 with markers in both directions, CRC
		 * on and DDP/RDMAP version 0, whatever the IETF side asked. */
		p->rdmac = true;
		p->markers_i2r = p->markers_r2i = true;
		p->crc = true;
		p->version = DDP_VERSION_RDMAC;
		if (req->rev != MPA_REV_RDMAC && !(req->flags & MPA_FLAG_M))
			p->problem = "Rev 0 responder: markers forced on";
	} else {
		/* RFC 5044 §7.1.1: M in the Request asks for markers from the
		 * Responder, M in the Reply for markers from the Initiator;
		 * C in either frame turns CRCs on in both directions. */
		p->markers_r2i = (req->flags & MPA_FLAG_M) != 0;
		p->markers_i2r = (rep->flags & MPA_FLAG_M) != 0;
		p->crc = ((req->flags | rep->flags) & MPA_FLAG_C) != 0;
		p->version = DDP_VERSION_IETF;
		if (req->rev == MPA_REV_RDMAC)
			/* seed 002 §5.2.1: an IETF responder that answers
			 * a Rev 0 Request with Rev 1 then closes. */
			p->problem = "Rev 0 Request answered by an IETF "
				     "responder: the connection should close";
	}
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
		side_stop(d, is, "the Reply rejected the connection");
		side_stop(d, rs, "the Reply rejected the connection");
		d->s[is].data_forbidden = d->s[rs].data_forbidden = true;
		return;
	}
	d->s[is].version_known = d->s[rs].version_known =
		!(req->rev == MPA_REV_RDMAC && rep->rev != MPA_REV_RDMAC);
	d->s[is].version = d->s[rs].version = p->version;
	go_fpdu(d, rs, p->markers_r2i, p->crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
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
		event_at(d, side, 0, OUT_EV_PROTOCOL, true,
			 "RtR frame before any Request/Reply");
		side_stop(d, side, "RtR frame out of place");
		return;
	}
	memcpy(s->frame_raw, s->pend.p, used);
	s->frame_len = used;
	/* re-parse from our own copy so that pd pointers stay valid */
	if (mpa_frame_parse(s->frame_raw, used, &s->frame, &used) != WIRE_OK) {
		side_stop(d, side, "frame parse failed");
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
	dbuf_consume(&s->pend, used);
	s->state = DS_WAIT;
}

static void frame_error(struct dissect *d, int side, const char *what,
			enum wire_err err)
{
	event_at(d, side, d->s[side].frames_len, OUT_EV_MALFORMED, true,
		 "%s frame: %s (%s)", what, wire_strerror(err),
		 wire_errname(err));
	side_stop(d, side, "malformed startup frame");
}

/* Run side's state machine over its pending octets. */
static void side_advance(struct dissect *d, int side)
{
	static const uint8_t *const start_keys[] = {
		mpa_key_req, mpa_key_rep, mpa_key_rtr, key_rtr_lower, NULL,
	};
	static const uint8_t *const rtr_keys[] = {
		mpa_key_rtr, key_rtr_lower, NULL,
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
				/* RFC 5044 §7.1.2: the peer's frame must be
				 * answered by a frame */
				event_at(d, side, 0, OUT_EV_MALFORMED, true,
					 "expected an MPA %s frame",
					 d->s[!side].role == ROLE_INITIATOR ?
						 "Reply" : "Request");
				side_stop(d, side, "no startup frame");
				return;
			}
			/* No startup frame: the capture began in full
			 * operation.  Decode FPDUs from the first octet seen,
			 * markers unknown (assumed off), CRC checked but not
			 * judged. */
			event_at(d, side, 0, OUT_EV_NOTE, false,
				 "no MPA startup frame: decoding FPDUs from "
				 "the first octet, markers assumed off, CRC "
				 "unknown");
			go_fpdu(d, side, false, OUT_CRC_UNKNOWN);
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
			go_fpdu(d, side, d->params.markers_i2r,
				d->params.crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
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
			dbuf_consume(&s->pend, used);
			/* seed 003: full operation starts after the RtR
			 * frame; framing as negotiated by Request/Reply. */
			go_fpdu(d, side, d->params.markers_i2r,
				d->params.crc ? OUT_CRC_GOOD : OUT_CRC_OFF);
			break;
		case DS_FPDU:
			if (s->pend.len) {
				struct dbuf tmp = s->pend;

				/* hand over the pending octets */
				memset(&s->pend, 0, sizeof(s->pend));
				fpdu_feed(d, side, tmp.p, tmp.len);
				dbuf_free(&tmp);
			}
			return;
		case DS_STOP:
			s->ignored += s->pend.len;
			s->pend.len = 0;
			return;
		}
	}
}

/* ---- full operation ---- */

static void go_fpdu(struct dissect *d, int side, bool markers,
		    enum out_crc mode)
{
	struct side *s = &d->s[side];

	/* RFC 5044 §4.3: stream offset 0 is the first octet of full
	 * operation, where the first marker sits. */
	mpa_rx_init(&s->rx, markers, mode != OUT_CRC_OFF, 0);
	s->markers = markers;
	s->crc_mode = mode;
	s->off = 0;
	s->fpdu_start = 0;
	s->raw.len = 0;
	s->ulpdu.len = 0;
	s->state = DS_FPDU;
}

/* RFC 6581 §9.2: the initiator's first FPDU is the negotiated RTR. */
static void check_rtr_initiator(struct dissect *d, struct side *s,
				struct out_fpdu *o, char *why, size_t whylen)
{
	const struct rdmap_msg *m = o->msg;
	uint8_t type = 0;
	bool zero = false;

	if (!m) {
		snprintf(why, whylen, "the first FPDU after a peer-to-peer "
			 "handshake must be the RTR (RFC 6581 §9.2)");
		o->rtr_problem = why;
		return;
	}
	switch (m->opcode) {
	case RDMAP_WRITE:
		type = MPA_RTR_WRITE;
		zero = m->payload_len == 0;
		break;
	case RDMAP_READ_REQ:
		type = MPA_RTR_READ;
		zero = m->u.read_req.size == 0;
		break;
	case RDMAP_SEND:
		type = MPA_RTR_SEND;
		zero = m->payload_len == 0;
		break;
	case RDMAP_TERMINATE:
		/* RFC 6581 §9.2: no usable RTR -> TERM 2/0/7 instead. */
		return;
	default:
		snprintf(why, whylen, "the first FPDU is %s, not an RTR "
			 "(RFC 6581 §9.2)", rdmap_opcode_name(m->opcode));
		o->rtr_problem = why;
		return;
	}
	s->rtr_type = type;
	o->rtr = out_rtr_name(type);
	if (!zero)
		snprintf(why, whylen, "the %s RTR is not zero-length (RFC "
			 "6581 §9.2)", o->rtr);
	else if (!(d->params.rtr_allowed & type))
		snprintf(why, whylen, "a %s RTR, which the Reply did not allow "
			 "(RFC 6581 §9.2)", o->rtr);
	else
		return;
	o->rtr_problem = why;
}

/* RFC 6581 §9.2: a zero-length Read RTR is answered by a zero-length Read
 * Response, the responder's first FPDU. */
static void check_rtr_responder(struct dissect *d, struct out_fpdu *o,
				char *why, size_t whylen)
{
	const struct rdmap_msg *m = o->msg;
	const struct side *is = &d->s[d->init_side];

	if (m && m->opcode == RDMAP_READ_RESP && m->payload_len == 0 &&
	    (d->params.rtr_allowed & MPA_RTR_READ)) {
		o->rtr = "read-response";
		return;
	}
	if (is->rtr_type == MPA_RTR_READ) {
		snprintf(why, whylen, "the Read RTR must be answered by a "
			 "zero-length Read Response first (RFC 6581 §9.2)");
		o->rtr_problem = why;
	}
}

static void fpdu_markers(struct side *s, struct out_fpdu *o,
			 struct out_marker *mk)
{
	uint64_t p, end = o->off + o->raw_len;
	unsigned int n = 0;

	o->markers_ok = true;
	if (!s->markers)
		return;
	/* RFC 5044 §4.3: a marker every 512 octets of the stream from
	 * offset 0; FPDUPTR points back to ULPDU_Length, or is 0 for a
	 * marker just before the header.  The low two bits are ignored. */
	p = (o->off + MPA_MARKER_INTERVAL - 1) / MPA_MARKER_INTERVAL *
	    MPA_MARKER_INTERVAL;
	for (; p + MPA_MARKER_LEN <= end && n < MARKERS_MAX;
	     p += MPA_MARKER_INTERVAL) {
		const uint8_t *q = o->raw + (p - o->off);

		mk[n].off = p;
		mk[n].rsvd = wire_be16(q);
		mk[n].fpduptr = wire_be16(q + 2);
		mk[n].expect = p < o->hdr_off ? 0 :
						(uint16_t)(p - o->hdr_off);
		mk[n].ok = (mk[n].fpduptr & ~3u) == mk[n].expect;
		if (!mk[n].ok)
			o->markers_ok = false;
		n++;
	}
	o->n_markers = n;
	o->markers = mk;
}

/* One FPDU complete: decode its ULPDU and report it. */
static void fpdu_report(struct dissect *d, int side, const struct mpa_rx_ev *ev)
{
	struct side *s = &d->s[side];
	struct out_marker mk[MARKERS_MAX];
	struct out_fpdu o;
	struct ddp_hdr ddp;
	struct rdmap_msg msg;
	char rtr_why[160], ver_why[96];
	size_t used;

	memset(&o, 0, sizeof(o));
	o.conn = d->conn;
	o.dir = side_dir(d, side);
	o.src = d->ep[side];
	o.dst = d->ep[!side];
	o.index = ++s->n_fpdus;
	o.off = s->fpdu_start;
	o.raw = s->raw.p;
	o.raw_len = s->raw.len;
	o.wire_len = s->raw.len;
	o.hdr_off = o.off;
	if (s->markers && o.off % MPA_MARKER_INTERVAL == 0)
		o.hdr_off += MPA_MARKER_LEN;	/* leading marker */
	o.ulpdu_len = ev->ulpdu_len;
	o.pad = mpa_pad_len(ev->ulpdu_len);
	o.ulpdu = s->ulpdu.p;

	switch (s->crc_mode) {
	case OUT_CRC_OFF:
		/* RFC 5044 §7.1.1: without CRCs the field is present but
		 * valid whatever it holds; show it. */
		o.crc = OUT_CRC_OFF;
		if (s->raw.len >= MPA_CRC_LEN)
			o.crc_wire = crc32c_get_wire(s->raw.p + s->raw.len -
						     MPA_CRC_LEN);
		break;
	case OUT_CRC_UNKNOWN:
		o.crc = OUT_CRC_UNKNOWN;
		o.crc_wire = ev->crc_wire;
		o.crc_calc = ev->crc_calc;
		o.crc_match = ev->crc_wire == ev->crc_calc;
		break;
	default:
		o.crc_wire = ev->crc_wire;
		o.crc_calc = ev->crc_calc;
		o.crc_match = ev->crc_ok;
		o.crc = ev->crc_ok ? OUT_CRC_GOOD : OUT_CRC_BAD;
		break;
	}
	fpdu_markers(s, &o, mk);
	if (!ev->markers_ok)
		o.markers_ok = false;

	o.ddp_err = ddp_hdr_parse(s->ulpdu.p, s->ulpdu.len, &ddp, &used);
	if (o.ddp_err == WIRE_OK)
		o.ddp = &ddp;
	if (s->ulpdu.len >= 2) {
		/* RFC 5040 §4.1: RDMAP control in the second ULPDU octet */
		o.has_ctrl = true;
		o.rv = (uint8_t)(s->ulpdu.p[1] >> RDMAP_RV_SHIFT);
		o.opcode = s->ulpdu.p[1] & RDMAP_OPCODE_MASK;
	}
	o.rdmap_err = rdmap_msg_parse(s->ulpdu.p, s->ulpdu.len, &msg);
	if (o.rdmap_err == WIRE_OK)
		o.msg = &msg;

	if (s->version_known && o.ddp && o.ddp->dv != s->version) {
		/* RFC 5041 §7.2: Invalid DDP version; seed 002 §5.1. */
		snprintf(ver_why, sizeof(ver_why),
			 "DDP version %u, the connection uses %u", o.ddp->dv,
			 s->version);
		o.version_problem = ver_why;
	} else if (s->version_known && o.has_ctrl && o.rv != s->version) {
		/* RFC 5040 §7.2: Invalid RDMAP version. */
		snprintf(ver_why, sizeof(ver_why),
			 "RDMAP version %u, the connection uses %u", o.rv,
			 s->version);
		o.version_problem = ver_why;
	}
	if (d->params_done && d->params.p2p && o.index == 1) {
		if (s->role == ROLE_INITIATOR)
			check_rtr_initiator(d, s, &o, rtr_why,
					    sizeof(rtr_why));
		else
			check_rtr_responder(d, &o, rtr_why, sizeof(rtr_why));
	}

	d->st->fpdus++;
	if (o.crc == OUT_CRC_BAD)
		d->st->crc_bad++;
	if (!o.markers_ok)
		d->st->marker_bad++;
	if (o.rdmap_err != WIRE_OK)
		d->st->malformed++;
	if (o.version_problem || o.rtr_problem)
		d->st->errors++;
	o.bad = o.crc == OUT_CRC_BAD || !o.markers_ok ||
		o.rdmap_err != WIRE_OK || o.version_problem || o.rtr_problem;
	d->out->ops->fpdu(d->out, &o);

	s->fpdu_start = s->off;
	s->raw.len = 0;
	s->ulpdu.len = 0;
}

/* Feed in-order octets of side to its FPDU decoder. */
static void fpdu_feed(struct dissect *d, int side, const uint8_t *buf,
		      size_t len)
{
	struct side *s = &d->s[side];
	struct mpa_rx_ev ev;
	unsigned int idle = 0;
	enum wire_err r;
	size_t used;

	for (;;) {
		memset(&ev, 0, sizeof(ev));
		used = 0;
		r = mpa_rx_step(&s->rx, buf, len, &used, &ev);
		if (used > len)
			used = len;	/* never past the input */
		if (used && dbuf_append(&s->raw, buf, used, FPDU_WIRE_MAX)) {
			event_at(d, side, s->fpdu_start, OUT_EV_MALFORMED,
				 true, "FPDU longer than %u octets",
				 (unsigned int)FPDU_WIRE_MAX);
			side_stop(d, side, "oversized FPDU");
			s->ignored += len - used;
			return;
		}
		buf += used;
		len -= used;
		s->off += used;
		idle = used ? 0 : idle + 1;
		if (r != WIRE_OK || ev.type == MPA_RX_EV_ERROR) {
			enum wire_err e = r;

			if (ev.type == MPA_RX_EV_ERROR && ev.err != WIRE_OK)
				e = ev.err;
			event_at(d, side, s->fpdu_start, OUT_EV_MALFORMED,
				 true, "FPDU framing: %s (%s); direction "
				 "stopped", wire_strerror(e), wire_errname(e));
			side_stop(d, side, "FPDU framing error");
			s->ignored += len;
			return;
		}
		switch (ev.type) {
		case MPA_RX_EV_NONE:
			if (!len || !used)
				return;
			break;
		case MPA_RX_EV_START:
			s->ulpdu.len = 0;
			break;
		case MPA_RX_EV_DATA:
			if (ev.len && ev.data &&
			    dbuf_append(&s->ulpdu, ev.data, ev.len,
					MPA_ULPDU_MAX)) {
				event_at(d, side, s->fpdu_start,
					 OUT_EV_MALFORMED, true,
					 "ULPDU longer than its length field");
				side_stop(d, side, "ULPDU overrun");
				s->ignored += len;
				return;
			}
			break;
		case MPA_RX_EV_END:
			fpdu_report(d, side, &ev);
			break;
		default:
			break;
		}
		if (idle > 8) {
			/* the decoder makes no progress: do not spin */
			event_at(d, side, s->fpdu_start, OUT_EV_MALFORMED,
				 true, "FPDU decoder stalled; direction "
				 "stopped");
			side_stop(d, side, "decoder stalled");
			s->ignored += len;
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
			       initiator_side : -1;
	st->conns++;
	oc.conn = conn;
	oc.a = d->ep[0];
	oc.b = d->ep[1];
	out->ops->conn(out, &oc);
	return d;
}

/* Feed len in-order octets of one side of the connection. */
void dissect_data(struct dissect *d, int side, const uint8_t *buf,
		  size_t len)
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
		fpdu_feed(d, side, buf, len);
		return;
	default:
		break;
	}
	if (dbuf_append(&s->pend, buf, len, DISSECT_PEND_MAX)) {
		event_at(d, side, 0, OUT_EV_PROTOCOL, true,
			 "more than %u octets before full operation could "
			 "start; direction stopped",
			 (unsigned int)DISSECT_PEND_MAX);
		side_stop(d, side, "too much data before full operation");
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
		event_at(d, side, s->off, OUT_EV_GAP, true,
			 "%llu octets missing from the capture; direction "
			 "not decoded further", (unsigned long long)missing);
	else
		dissect_event(d, side, OUT_EV_GAP, true,
			      "%llu octets missing from the capture before "
			      "full operation; direction not decoded further",
			      (unsigned long long)missing);
	side_stop(d, side, "gap in the capture");
}

static void side_end(struct dissect *d, int side)
{
	struct side *s = &d->s[side];

	switch (s->state) {
	case DS_START:
	case DS_FRAME:
		if (s->pend.len)
			event_at(d, side, s->frames_len, OUT_EV_TRUNCATED, true,
				 "MPA startup frame incomplete: %zu octets",
				 s->pend.len);
		break;
	case DS_RTR_FRAME:
		event_at(d, side, s->frames_len, OUT_EV_TRUNCATED, true,
			 "MPA RtR frame incomplete: %zu octets", s->pend.len);
		break;
	case DS_RTR_KEY:
		/* a short prefix of the RtR key: FPDU octets after all */
		go_fpdu(d, side, d->params.markers_i2r,
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
		go_fpdu(d, side, false, OUT_CRC_UNKNOWN);
		side_advance(d, side);
		break;
	default:
		break;
	}
	if (s->state == DS_FPDU) {
		static const uint8_t none[1];

		/* flush an END the decoder may still hold */
		fpdu_feed(d, side, none, 0);
		if (s->state == DS_FPDU && s->raw.len)
			event_at(d, side, s->fpdu_start, OUT_EV_TRUNCATED, true,
				 "FPDU incomplete at the end of the input: "
				 "%zu octets", s->raw.len);
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
	ce.dir0 = side_dir(d, 0);
	ce.dir1 = side_dir(d, 1);
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
		dbuf_free(&d->s[i].pend);
		dbuf_free(&d->s[i].raw);
		dbuf_free(&d->s[i].ulpdu);
	}
	free(d);
}
