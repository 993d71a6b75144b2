/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The user messages of an SCTP association as DDP over SCTP sees them
 * (RFC 5043 §5.2): PPID 17 session control through wire/sctp_ss.c, PPID
 * 16 DDP segments through wire/ddp.c and wire/rdmap.c (no MPA: no
 * markers, no CRC, no length), other PPIDs named and shown.  Each DDP
 * stream session's messages are checked against the legal sequences of
 * RFC 5043 §6 (wire/sctp_ss.c's table).  Also the SCTP dissector's
 * events and directions.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dissect_sctp_int.h"
#include "wbuf.h"

/* The direction of what side sends: by the INIT when seen, else A/B. */
enum out_dir sctp_side_dir(const struct sassoc *a, int side)
{
	if (a->init_side < 0)
		return side == 0 ? OUT_DIR_A2B : OUT_DIR_B2A;
	return side == a->init_side ? OUT_DIR_I2R : OUT_DIR_R2I;
}

/* Report an event of association a (NULL: the input) and count it. */
void sctp_event(struct sctp_dis *sd, const struct sassoc *a, int side,
		enum out_ev kind, bool bad, const char *fmt, ...)
{
	struct out_event ev;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	memset(&ev, 0, sizeof(ev));
	ev.assoc = a ? a->id : 0;
	ev.dir = a && side >= 0 ? sctp_side_dir(a, side) : OUT_DIR_NONE;
	ev.kind = a ? kind : OUT_EV_CAPTURE;
	ev.bad = bad;
	ev.msg = msg;
	if (bad) {
		if (kind == OUT_EV_MALFORMED)
			sd->st->malformed++;
		else
			sd->st->errors++;
	}
	sd->out->ops->event(sd->out, &ev);
}

static struct sstream *stream_get(struct sctp_dis *sd, struct sassoc *a,
				  uint16_t id)
{
	struct sstream *free_s = NULL;
	unsigned int i;

	for (i = 0; i < SCTP_STREAMS_MAX; i++) {
		if (a->streams[i].used && a->streams[i].id == id)
			return &a->streams[i];
		if (!a->streams[i].used && !free_s)
			free_s = &a->streams[i];
	}
	if (!free_s) {
		if (!a->streams_full)
			sctp_event(sd, a, -1, OUT_EV_NOTE, false,
				   "more than %u streams in use: the "
				   "sessions of further ones are not checked",
				   SCTP_STREAMS_MAX);
		a->streams_full = true;
		return NULL;
	}
	memset(free_s, 0, sizeof(*free_s));
	free_s->used = true;
	free_s->id = id;
	return free_s;
}

/*
 * RFC 5043 §6: follow the stream's session in DDP-SSN order as the
 * observer of both directions.  A session starts with an Initiate (the
 * capture may begin later: then the stream is not checked); a new one
 * may start once the last is over (§6.1: DDP-SSNs restart at 0).
 * Unordered delivery (§5.2.1) may show messages out of DDP-SSN order:
 * that is legal, so the stream is only no longer checked.
 */
static void seq_check(struct sctp_dis *sd, struct sassoc *a, int side,
		      uint16_t stream, uint32_t msg, uint16_t ssn,
		      struct out_sctp_msg *m, char *why, size_t whylen)
{
	struct sstream *s = stream_get(sd, a, stream);
	enum sctp_ss_verdict v;
	bool initiate = msg == SCTP_SS_INITIATE || msg == SCTP_SS_ENH_INITIATE;

	if (!s)
		return;
	if (initiate && (!s->checking || sctp_ss_seq_done(&s->seq))) {
		s->checking = true;
		s->active_side = side;
		sctp_ss_seq_init(&s->seq, SCTP_SS_ACTIVE);
	}
	if (!s->checking) {
		if (!s->noted)
			sctp_event(sd, a, side, OUT_EV_NOTE, false,
				   "stream %u: no Initiate seen, its session "
				   "is not checked",
				   stream);
		s->noted = true;
		return;
	}
	v = sctp_ss_seq_step(&s->seq, side == s->active_side, msg, ssn);
	if (v == SCTP_SS_OK)
		return;
	if (v == SCTP_SS_BAD_SSN) {
		uint16_t want = s->seq.ssn[side == s->active_side ? 0 : 1];

		sctp_event(sd, a, side, OUT_EV_NOTE, false,
			   "stream %u: DDP-SSN %u where %u was next "
			   "(reordered by unordered delivery, or lost from "
			   "the capture); session no longer checked",
			   stream, ssn, want);
		s->checking = false;
		s->noted = true;
		return;
	}
	snprintf(why, whylen,
		 "no legal sequence allows this message here (RFC 5043 "
		 "§6.1): %s after %s / %s",
		 msg == SCTP_SS_SEGMENT ? "DDP Segment" :
					  sctp_ss_fc_name((uint16_t)msg),
		 sctp_ss_dstate_name(s->seq.d[0]),
		 sctp_ss_dstate_name(s->seq.d[1]));
	m->seq_problem = why;
}

/* RFC 5043 §5.2.2: DDP-SSN, then a DDP segment (RFC 5041) with RDMAP. */
static void ddp_segment(struct out_sctp_msg *m, const uint8_t *p, size_t len,
			struct ddp_hdr *ddp, struct rdmap_msg *msg, char *why,
			size_t whylen)
{
	size_t used;

	m->ddp_err = ddp_hdr_parse(p, len, ddp, &used);
	if (m->ddp_err == WIRE_OK)
		m->ddp = ddp;
	if (len >= 2) {
		/* RFC 5040 §4.1: RDMAP control in the second octet */
		m->has_ctrl = true;
		m->rv = (uint8_t)(p[1] >> RDMAP_RV_SHIFT);
		m->opcode = p[1] & RDMAP_OPCODE_MASK;
	}
	m->rdmap_err = rdmap_msg_parse(p, len, msg);
	if (m->rdmap_err == WIRE_OK)
		m->msg = msg;
	/* RFC 5043 runs DDP and RDMAP version 1 (RFC 5041 §7.2). */
	if (m->ddp && m->ddp->dv != DDP_VERSION_IETF) {
		snprintf(why, whylen, "DDP version %u over SCTP, not %u",
			 m->ddp->dv, DDP_VERSION_IETF);
		m->version_problem = why;
	} else if (m->has_ctrl && m->rv != RDMAP_VERSION_IETF) {
		snprintf(why, whylen, "RDMAP version %u over SCTP, not %u",
			 m->rv, RDMAP_VERSION_IETF);
		m->version_problem = why;
	}
}

/* One complete user message of side on stream: decode and report it. */
void sctp_msg_deliver(struct sctp_dis *sd, struct sassoc *a, int side,
		      uint16_t stream, uint32_t ppid, uint32_t tsn,
		      unsigned int frags, bool unordered, const uint8_t *p,
		      size_t len)
{
	struct out_sctp_msg m;
	struct sctp_ss_msg ss;
	struct ddp_hdr ddp;
	struct rdmap_msg msg;
	char seq_why[200], ver_why[96];
	size_t used;

	memset(&m, 0, sizeof(m));
	m.assoc = a->id;
	m.dir = sctp_side_dir(a, side);
	m.src = a->ep[side];
	m.dst = a->ep[!side];
	m.index = ++a->messages[side];
	m.stream = stream;
	m.ppid = ppid;
	m.ppid_name = out_ppid_name(ppid);
	m.tsn = tsn;
	m.frags = frags;
	m.unordered = unordered;
	m.len = len;
	m.data = p;
	m.ss_err = WIRE_OK;
	m.ddp_err = m.rdmap_err = WIRE_OK;

	if (ppid == SCTP_PPID_DDP_SESSION_CTL) {
		sd->st->ss_msgs++;
		/* RFC 5043 §5.2.3: the message is the whole user message */
		m.ss_err = sctp_ss_parse(p, len, &ss, &used);
		if (len >= 2) {
			m.has_ssn = true;
			m.ddp_ssn = wire_be16(p);
		}
		if (m.ss_err == WIRE_OK) {
			m.ss = &ss;
			seq_check(sd, a, side, stream, ss.fc, ss.ssn, &m,
				  seq_why, sizeof(seq_why));
		} else {
			sd->st->malformed++;
		}
	} else if (ppid == SCTP_PPID_DDP_SEGMENT) {
		sd->st->ddp_segments++;
		if (len >= 2) {
			m.has_ssn = true;
			m.ddp_ssn = wire_be16(p);
			ddp_segment(&m, p + 2, len - 2, &ddp, &msg, ver_why,
				    sizeof(ver_why));
			seq_check(sd, a, side, stream, SCTP_SS_SEGMENT,
				  m.ddp_ssn, &m, seq_why, sizeof(seq_why));
		} else {
			m.ddp_err = m.rdmap_err = WIRE_ESHORT;
		}
		if (m.rdmap_err != WIRE_OK)
			sd->st->malformed++;
	}
	if (m.version_problem || m.seq_problem)
		sd->st->errors++;
	m.bad = m.ss_err != WIRE_OK || m.rdmap_err != WIRE_OK ||
		m.version_problem || m.seq_problem;
	sd->out->ops->sctp_msg(sd->out, &m);
}
