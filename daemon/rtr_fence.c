/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The RTR fence of peer-to-peer connections (RFC 6581 §9.2-9.3): the
 * initiator's zero-length Send, RDMA Write or RDMA Read as a real FPDU
 * with the negotiated markers and CRC, the responder's check of it and
 * its zero-length Read Response, the seed-003 "MPA ID RtR Frame", and
 * the Terminate (RFC 6581 §8) that ends a failed negotiation.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "conn.h"
#include "log.h"

/* Frame ulpdu as an FPDU on c's transmit direction and send it. */
static int rtr_fence_send_fpdu(struct conn *c, const uint8_t *ulpdu, size_t len,
			       bool keep)
{
	uint8_t buf[CONN_RTR_FPDU_MAX];
	enum wire_err e;
	size_t n;

	/*
	 * RFC 5044 §7.1.2 rule 7 and §4.3: the first FPDU starts with
	 * marker 0 when markers are on; mpa_fpdu_build() places it from
	 * the stream offset and advances c->tx.off.
	 */
	e = mpa_fpdu_build(&c->tx, ulpdu, (uint16_t)len, buf, sizeof(buf), &n);
	if (e != WIRE_OK) {
		conn_fail(c, CONN_RES_EINTERNAL, "cannot frame the FPDU: %s",
			  wire_strerror(e));
		errno = EINVAL;
		return -1;
	}
	if (keep) {
		memcpy(conn_buf(c)->rtr_raw, buf, n);
		conn_buf(c)->rtr_len = n;
	}
	if (conn_send(c, buf, n) < 0) {
		conn_fail(c, CONN_RES_ECONNRESET, "send: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void rtr_fence_msg_init(const struct conn *c, struct rdmap_msg *m,
			       uint8_t opcode)
{
	memset(m, 0, sizeof(*m));
	m->opcode = opcode;
	/* The negotiated DDP/RDMAP version (seed 002: 0 for Rev 0). */
	m->rv = c->res.version;
	m->ddp.dv = c->res.version;
	m->ddp.last = true;
	m->ddp.tagged = rdmap_opcode_tagged(opcode) == 1;
}

/* Send the seed-003 RtR frame: S unused (0), C as in the Reply, no PD. */
static int rtr_fence_send_frame(struct conn *c)
{
	struct mpa_frame f;
	enum wire_err e;
	size_t n;

	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_RTR;
	f.rev = c->res.rev;
	f.flags = c->rep.flags & MPA_FLAG_C;
	e = mpa_frame_build(&f, conn_buf(c)->rtr_raw,
			    sizeof(conn_buf(c)->rtr_raw), &n);
	if (e != WIRE_OK) {
		conn_fail(c, CONN_RES_EINTERNAL,
			  "cannot build the RtR frame: %s", wire_strerror(e));
		return -1;
	}
	conn_buf(c)->rtr_len = n;
	if (conn_send(c, conn_buf(c)->rtr_raw, n) < 0) {
		conn_fail(c, CONN_RES_ECONNRESET, "sending the RtR frame: %s",
			  strerror(errno));
		return -1;
	}
	log_debug("conn %llu: RtR frame sent", (unsigned long long)c->id);
	return 0;
}

/* Initiator: send the negotiated RTR (FPDU or seed-003 RtR frame). */
int rtr_fence_send(struct conn *c)
{
	uint8_t ulpdu[DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN];
	struct rdmap_msg m;
	size_t n;

	if (c->res.rtr_frame)
		return rtr_fence_send_frame(c);
	/* RFC 6581 §9.3: the first message is the negotiated RTR. */
	switch (c->res.rtr) {
	case MPA_RTR_SEND:
		rtr_fence_msg_init(c, &m, RDMAP_SEND);
		m.ddp.qn = DDP_QN_SEND;
		m.ddp.msn = c->next_msn[DDP_QN_SEND]++;
		break;
	case MPA_RTR_WRITE:
		/* a non-zero STag: some RNICs reject STag 0 */
		rtr_fence_msg_init(c, &m, RDMAP_WRITE);
		m.ddp.stag = CONN_RTR_STAG;
		m.ddp.to = 0;
		break;
	case MPA_RTR_READ:
		rtr_fence_msg_init(c, &m, RDMAP_READ_REQ);
		m.ddp.qn = DDP_QN_READ_REQ;
		m.ddp.msn = c->next_msn[DDP_QN_READ_REQ]++;
		c->read_rtr.sink_stag = CONN_RTR_STAG;
		c->read_rtr.sink_to = 0;
		c->read_rtr.size = 0;
		c->read_rtr.src_stag = CONN_RTR_STAG;
		c->read_rtr.src_to = 0;
		m.u.read_req = c->read_rtr;
		break;
	default:
		conn_fail(c, CONN_RES_EINTERNAL, "no RTR type");
		return -1;
	}
	if (rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &n) != WIRE_OK) {
		conn_fail(c, CONN_RES_EINTERNAL, "cannot build the RTR");
		return -1;
	}
	if (rtr_fence_send_fpdu(c, ulpdu, n, true) < 0)
		return -1;
	c->rtr_type = c->res.rtr;
	log_debug("conn %llu: zero-length %s RTR sent",
		  (unsigned long long)c->id, rdmap_opcode_name(m.opcode));
	return 0;
}

/* Responder: answer the Read RTR with a zero-length Read Response. */
int rtr_fence_send_read_resp(struct conn *c)
{
	uint8_t ulpdu[DDP_TAGGED_HDR_LEN];
	struct rdmap_msg m;
	size_t n;

	/* RFC 5040 §4.5: tagged to the Read's Data Sink STag and TO. */
	rtr_fence_msg_init(c, &m, RDMAP_READ_RESP);
	m.ddp.stag = c->read_rtr.sink_stag;
	m.ddp.to = c->read_rtr.sink_to;
	if (rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &n) != WIRE_OK) {
		conn_fail(c, CONN_RES_EINTERNAL,
			  "cannot build the Read Response");
		return -1;
	}
	if (rtr_fence_send_fpdu(c, ulpdu, n, false) < 0)
		return -1;
	log_debug("conn %llu: zero-length Read Response sent",
		  (unsigned long long)c->id);
	return 0;
}

/* Send a Terminate, Layer 2 (LLP) / type 0 (MPA) / code. */
int rtr_fence_send_term(struct conn *c, uint8_t code)
{
	uint8_t ulpdu[DDP_UNTAGGED_HDR_LEN + RDMAP_TERM_MAX_LEN];
	struct rdmap_msg m;
	size_t n;

	/*
	 * RFC 6581 §8: Layer 2, Error Type 0, codes 5-7; RFC 5040 §4.8:
	 * untagged, QN 2, the first Terminate has MSN 1; LLP errors carry
	 * no copied headers (Figure 10).
	 */
	rtr_fence_msg_init(c, &m, RDMAP_TERMINATE);
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = c->next_msn[DDP_QN_TERMINATE];
	rdmap_term_fill(&m.u.term, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA, code,
			NULL, 0);
	if (rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &n) != WIRE_OK) {
		errno = EINVAL;
		return -1;
	}
	log_debug("conn %llu: sending Terminate (MPA code %u: %s)",
		  (unsigned long long)c->id, code,
		  rdmap_term_ecode_name(RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA,
					code));
	return rtr_fence_send_fpdu(c, ulpdu, n, false);
}

/*
 * Read one FPDU exactly: a leading marker if one is due, ULPDU_Length,
 * then the rest by mpa_fpdu_wire_len().  1: complete (*wire octets in
 * c->rd), 0: more must come, -1: closed or reset, -2: too long for the
 * fence.
 */
static int rtr_fence_read_fpdu(struct conn *c, size_t *wire)
{
	size_t lead, hdr, want;
	uint16_t ulen;
	int r;

	lead = c->rx.markers && c->rx.off % MPA_MARKER_INTERVAL == 0 ?
		       MPA_MARKER_LEN :
		       0;
	hdr = lead + MPA_HDR_LEN;
	for (;;) {
		want = hdr;
		if (c->rd.len >= hdr) {
			ulen = (uint16_t)(c->rd.buf[lead] << 8 |
					  c->rd.buf[lead + 1]);
			if (ulen > CONN_RTR_ULPDU_MAX)
				return -2;
			want = mpa_fpdu_wire_len(&c->rx, ulen);
			if (!want || want > sizeof(c->rd.buf))
				return -2;
		}
		r = conn_read_upto(c, want);
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		if (want > hdr) {
			*wire = want;
			return 1;
		}
	}
}

static void rtr_fence_term(struct conn *c, uint8_t code, const char *why)
{
	c->term_code = code;
	conn_fail(c, CONN_RES_EPROTO, "%s (TERM code %u)", why, code);
	conn_event(c, CONN_EV_TERM);
}

/* The responder's RtR frame in seed-003 mode. */
static void rtr_fence_frame_input(struct conn *c)
{
	struct mpa_frame f;
	enum wire_err e = WIRE_OK;
	int r;

	r = mpa_negotiate_read_frame(c, &f, &e);
	if (r == 0)
		return;
	if (r == -1) {
		conn_fail(c, CONN_RES_ECONNRESET,
			  "peer closed before the RtR frame");
		conn_event(c, CONN_EV_PEER_CLOSED);
		return;
	}
	if (r == -2 || f.type != MPA_FRAME_RTR) {
		/* RFC 5044 §7.1.2 rule 5 applied to the seed-003 key. */
		conn_fail(c, CONN_RES_EPROTO,
			  "improperly formatted RtR frame: %s",
			  r == -2 ? wire_strerror(e) : "wrong key");
		conn_event(c, CONN_EV_BAD);
		return;
	}
	memcpy(conn_buf(c)->rtr_raw, c->rd.buf, c->rd.len);
	conn_buf(c)->rtr_len = c->rd.len;
	c->rd.len = 0;
	log_debug("conn %llu: RtR frame received", (unsigned long long)c->id);
	conn_event(c, CONN_EV_RTR);
}

static uint8_t rtr_fence_type(uint8_t opcode)
{
	switch (opcode) {
	case RDMAP_SEND:
		return MPA_RTR_SEND;
	case RDMAP_WRITE:
		return MPA_RTR_WRITE;
	case RDMAP_READ_REQ:
		return MPA_RTR_READ;
	default:
		return 0;
	}
}

/* Input while the RTR (responder) or Read Response (initiator) is due. */
void rtr_fence_input(struct conn *c)
{
	uint8_t ulpdu[CONN_RTR_ULPDU_MAX];
	struct mpa_fpdu_info info;
	struct rdmap_msg m;
	enum wire_err e;
	size_t wire = 0;
	uint8_t type;
	int r;

	if (c->role == NEG_RESPONDER && c->res.rtr_frame) {
		rtr_fence_frame_input(c);
		return;
	}
	r = rtr_fence_read_fpdu(c, &wire);
	if (r == 0)
		return;
	if (r == -1) {
		conn_fail(c, CONN_RES_ECONNRESET, "peer %s before the %s",
			  errno ? "reset the connection" : "closed",
			  c->role == NEG_RESPONDER ? "RTR" : "Read Response");
		conn_event(c, CONN_EV_PEER_CLOSED);
		return;
	}
	if (r == -2) {
		rtr_fence_term(c, MPA_ECODE_LOCAL_CATASTROPHIC,
			       "FPDU too long for the RTR exchange");
		return;
	}
	memcpy(conn_buf(c)->rtr_raw, c->rd.buf, wire);
	conn_buf(c)->rtr_len = wire;
	c->rd.len = 0;
	e = mpa_fpdu_parse(&c->rx, conn_buf(c)->rtr_raw, wire, &info, ulpdu,
			   sizeof(ulpdu));
	c->rx.off += (uint32_t)wire;
	if (e != WIRE_OK || info.wire_len != wire) {
		rtr_fence_term(c, MPA_ECODE_LOCAL_CATASTROPHIC,
			       "unreadable FPDU");
		return;
	}
	/* RFC 5044 §8 codes 2 and 3. */
	if (c->rx.crc && !info.crc_ok) {
		rtr_fence_term(c, MPA_ECODE_CRC, "CRC error in the RTR phase");
		return;
	}
	if (!info.markers_ok) {
		rtr_fence_term(c, MPA_ECODE_MARKER,
			       "marker error in the RTR phase");
		return;
	}
	e = rdmap_msg_parse(ulpdu, info.ulpdu_len, &m);
	if (e == WIRE_OK && m.opcode == RDMAP_TERMINATE) {
		c->term_valid = true;
		c->term_layer = m.u.term.layer;
		c->term_etype = m.u.term.etype;
		c->term_ecode = m.u.term.ecode;
		iwcmd_stats_term(true, c->term_layer, c->term_etype,
				 c->term_ecode);
		conn_fail(c, CONN_RES_EPROTO, "peer sent Terminate: %s / %s",
			  rdmap_term_layer_name(m.u.term.layer),
			  rdmap_term_ecode_name(m.u.term.layer, m.u.term.etype,
						m.u.term.ecode));
		conn_event(c, CONN_EV_BAD);
		return;
	}
	if (e != WIRE_OK) {
		rtr_fence_term(c,
			       e == WIRE_EOPCODE ? MPA_ECODE_NO_MATCHING_RTR :
						   MPA_ECODE_LOCAL_CATASTROPHIC,
			       "malformed RTR");
		return;
	}
	if (m.ddp.dv != c->res.version || m.rv != c->res.version) {
		rtr_fence_term(c, MPA_ECODE_LOCAL_CATASTROPHIC,
			       "DDP/RDMAP version mismatch in the RTR");
		return;
	}
	if (c->role == NEG_INITIATOR) {
		/* RFC 5040 §4.5: to our sink STag/TO, zero-length. */
		if (m.opcode != RDMAP_READ_RESP || !m.ddp.last ||
		    m.payload_len || m.ddp.stag != c->read_rtr.sink_stag ||
		    m.ddp.to != c->read_rtr.sink_to) {
			rtr_fence_term(c, MPA_ECODE_LOCAL_CATASTROPHIC,
				       "not the Read RTR's Read Response");
			return;
		}
		log_debug("conn %llu: zero-length Read Response received",
			  (unsigned long long)c->id);
		conn_event(c, CONN_EV_READ_RESP);
		return;
	}
	/*
	 * RFC 6581 §9.2: one of the types the Reply allowed, zero-length.
	 * The STag and TO of a zero-length Write or Read are not checked:
	 * nothing is placed, and peers differ in what they send.
	 */
	type = rtr_fence_type(m.opcode);
	if (!type || !(type & c->res.rtr)) {
		rtr_fence_term(c, MPA_ECODE_NO_MATCHING_RTR,
			       "RTR of a type the Reply did not allow");
		return;
	}
	if (!m.ddp.last || m.payload_len ||
	    (type == MPA_RTR_READ && m.u.read_req.size)) {
		rtr_fence_term(c, MPA_ECODE_LOCAL_CATASTROPHIC,
			       "RTR is not zero-length");
		return;
	}
	c->rtr_type = type;
	if (!m.ddp.tagged && m.ddp.qn < CONN_NQN)
		c->next_msn[m.ddp.qn] = m.ddp.msn + 1;
	log_debug("conn %llu: zero-length %s RTR received",
		  (unsigned long long)c->id, rdmap_opcode_name(m.opcode));
	if (type == MPA_RTR_READ) {
		c->read_rtr = m.u.read_req;
		conn_event(c, CONN_EV_RTR_READ);
		return;
	}
	conn_event(c, CONN_EV_RTR);
}
