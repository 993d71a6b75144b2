/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Full operation of one direction: FPDUs framed by wire/mpa_fpdu.c
 * (markers and CRC as negotiated), their DDP and RDMAP headers, the
 * checks of the negotiated version and of the peer-to-peer RTR, and the
 * report of each FPDU to the output.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "dissect_int.h"
#include "vocab.h"
#include "wbuf.h"

/* Enter full operation on side with the given framing (RFC 5044 §4.3). */
void dissect_fpdu_start(struct dissect *d, int side, bool markers,
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
		snprintf(why, whylen,
			 "the first FPDU after a peer-to-peer "
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
		snprintf(why, whylen,
			 "the first FPDU is %s, not an RTR "
			 "(RFC 6581 §9.2)",
			 rdmap_opcode_name(m->opcode));
		o->rtr_problem = why;
		return;
	}
	s->rtr_type = type;
	o->rtr = vocab_rtr_name(type);
	if (!zero)
		snprintf(why, whylen,
			 "the %s RTR is not zero-length (RFC "
			 "6581 §9.2)",
			 o->rtr);
	else if (!(d->params.rtr_allowed & type))
		snprintf(why, whylen,
			 "a %s RTR, which the Reply did not allow "
			 "(RFC 6581 §9.2)",
			 o->rtr);
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
		snprintf(why, whylen,
			 "the Read RTR must be answered by a "
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
		mk[n].expect = p < o->hdr_off ? 0 : (uint16_t)(p - o->hdr_off);
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
	o.dir = dissect_dir(d, side);
	o.src = d->ep[side];
	o.dst = d->ep[!side];
	o.index = ++s->n_fpdus;
	o.off = s->fpdu_start;
	o.raw = s->raw.p;
	o.raw_len = s->raw.len;
	o.wire_len = s->raw.len;
	o.hdr_off = o.off;
	if (s->markers && o.off % MPA_MARKER_INTERVAL == 0)
		o.hdr_off += MPA_MARKER_LEN; /* leading marker */
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
			check_rtr_initiator(d, s, &o, rtr_why, sizeof(rtr_why));
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
void dissect_fpdu_feed(struct dissect *d, int side, const uint8_t *buf,
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
			used = len; /* never past the input */
		if (used &&
		    dissect_buf_append(&s->raw, buf, used, FPDU_WIRE_MAX)) {
			dissect_event_at(d, side, s->fpdu_start,
					 OUT_EV_MALFORMED, true,
					 "FPDU longer than %u octets",
					 (unsigned int)FPDU_WIRE_MAX);
			dissect_stop(d, side, "oversized FPDU");
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
			dissect_event_at(d, side, s->fpdu_start,
					 OUT_EV_MALFORMED, true,
					 "FPDU framing: %s (%s); direction "
					 "stopped",
					 wire_strerror(e), wire_errname(e));
			dissect_stop(d, side, "FPDU framing error");
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
			    dissect_buf_append(&s->ulpdu, ev.data, ev.len,
					       MPA_ULPDU_MAX)) {
				dissect_event_at(d, side, s->fpdu_start,
						 OUT_EV_MALFORMED, true,
						 "ULPDU longer than its length "
						 "field");
				dissect_stop(d, side, "ULPDU overrun");
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
			dissect_event_at(d, side, s->fpdu_start,
					 OUT_EV_MALFORMED, true,
					 "FPDU decoder stalled; direction "
					 "stopped");
			dissect_stop(d, side, "decoder stalled");
			s->ignored += len;
			return;
		}
	}
}
