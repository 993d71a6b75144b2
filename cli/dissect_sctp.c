/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * SCTP packets in a capture (RFC 4960, RFC 9260): associations by
 * address and port pair, the common header and its CRC32c (Appendix B),
 * a bounded walk over the chunks, INIT/INIT ACK parameters up to the
 * Adaptation Layer Indication (RFC 5061 §4.2.7, RFC 5043 §5.1), and DATA
 * (§3.3.1) and I-DATA (RFC 8260 §2.1) fragments reassembled into user
 * messages for dissect_sctp_msg.c.  A packet whose CRC32c is wrong is
 * reported and not decoded further: its receiver would discard it too.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "crc32c.h"
#include "dissect_sctp_int.h"
#include "wbuf.h"

#define SCTP_COMMON_LEN 12
#define SCTP_CHUNK_HDR_LEN 4
#define SCTP_DATA_HDR_LEN 16  /* RFC 4960 §3.3.1 */
#define SCTP_IDATA_HDR_LEN 20 /* RFC 8260 §2.1 */
#define SCTP_INIT_FIXED_LEN 20
#define SCTP_PARAMS_MAX 64 /* INIT parameters looked at */

enum sctp_chunk_type {
	CT_DATA = 0,
	CT_INIT = 1,
	CT_INIT_ACK = 2,
	CT_SACK = 3,
	CT_ABORT = 6,
	CT_SHUTDOWN = 7,
	CT_SHUTDOWN_COMPLETE = 14,
	CT_IDATA = 64,
};

/* DATA / I-DATA flags (RFC 4960 §3.3.1, RFC 8260 §2.1). */
#define DF_E 0x01
#define DF_B 0x02
#define DF_U 0x04

/* RFC 4960 §3.2, RFC 9260 §3.2 and the extensions' registry entries. */
static const char *chunk_name(uint8_t type)
{
	static const char *const names[] = {
		[0] = "DATA",  [1] = "INIT",	     [2] = "INIT ACK",
		[3] = "SACK",  [4] = "HEARTBEAT",    [5] = "HEARTBEAT ACK",
		[6] = "ABORT", [7] = "SHUTDOWN",     [8] = "SHUTDOWN ACK",
		[9] = "ERROR", [10] = "COOKIE ECHO", [11] = "COOKIE ACK",
		[12] = "ECNE", [13] = "CWR",	     [14] = "SHUTDOWN COMPLETE",
		[15] = "AUTH",
	};

	if (type < sizeof(names) / sizeof(names[0]))
		return names[type];
	switch (type) {
	case 64:
		return "I-DATA"; /* RFC 8260 */
	case 128:
		return "ASCONF ACK"; /* RFC 5061 */
	case 130:
		return "RE-CONFIG"; /* RFC 6525 */
	case 132:
		return "PAD"; /* RFC 4820 */
	case 192:
		return "FORWARD TSN"; /* RFC 3758 */
	case 193:
		return "ASCONF"; /* RFC 5061 */
	case 194:
		return "I-FORWARD TSN"; /* RFC 8260 */
	}
	return "unknown";
}

/* ---- associations ---- */

static size_t addr_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

static unsigned int assoc_hash(int family, const uint8_t *a, uint16_t pa,
			       const uint8_t *b, uint16_t pb)
{
	uint32_t h = 2166136261u, x = 0;
	size_t i;

	/* symmetric: both directions land in the same bucket */
	for (i = 0; i < addr_len(family); i++)
		x += (uint32_t)(a[i] ^ b[i]) * 16777619u + a[i] + b[i];
	h = (h ^ x) * 16777619u;
	h = (h ^ (uint32_t)(pa + pb)) * 16777619u;
	h = (h ^ (uint32_t)(pa ^ pb)) * 16777619u;
	return h % SCTP_HASH_SIZE;
}

static int assoc_side(const struct sassoc *a, int family, const uint8_t *src,
		      uint16_t sp, const uint8_t *dst, uint16_t dp)
{
	size_t n = addr_len(family);

	if (a->family != family)
		return -1;
	if (a->port[0] == sp && a->port[1] == dp &&
	    !memcmp(a->addr[0], src, n) && !memcmp(a->addr[1], dst, n))
		return 0;
	if (a->port[1] == sp && a->port[0] == dp &&
	    !memcmp(a->addr[1], src, n) && !memcmp(a->addr[0], dst, n))
		return 1;
	return -1;
}

static void endpoint_str(int family, const uint8_t *addr, uint16_t port,
			 char *buf, size_t len)
{
	char s[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, s, sizeof(s)))
		snprintf(s, sizeof(s), "?");
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", s, port);
	else
		snprintf(buf, len, "%s:%u", s, port);
}

static struct sassoc *assoc_new(struct sctp_dis *sd, int family,
				const uint8_t *src, uint16_t sp,
				const uint8_t *dst, uint16_t dp, bool udp,
				uint16_t usp, uint16_t udp_port)
{
	struct out_assoc oa;
	struct sassoc *a;
	unsigned int h;

	if (sd->n_assocs >= SCTP_ASSOC_MAX) {
		if (!sd->limit_reported)
			sctp_event(sd, NULL, -1, OUT_EV_CAPTURE, true,
				   "more than %u SCTP associations at once; "
				   "further ones are not decoded",
				   SCTP_ASSOC_MAX);
		sd->limit_reported = true;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->family = family;
	memcpy(a->addr[0], src, addr_len(family));
	memcpy(a->addr[1], dst, addr_len(family));
	a->port[0] = sp;
	a->port[1] = dp;
	a->udp = udp;
	a->uport[0] = usp;
	a->uport[1] = udp_port;
	a->init_side = -1;
	a->id = ++sd->next_id;
	endpoint_str(family, src, sp, a->ep[0], sizeof(a->ep[0]));
	endpoint_str(family, dst, dp, a->ep[1], sizeof(a->ep[1]));
	h = assoc_hash(family, src, sp, dst, dp);
	a->hnext = sd->hash[h];
	sd->hash[h] = a;
	a->prev = sd->last;
	if (sd->last)
		sd->last->next = a;
	else
		sd->first = a;
	sd->last = a;
	sd->n_assocs++;
	sd->st->assocs++;
	memset(&oa, 0, sizeof(oa));
	oa.assoc = a->id;
	oa.a = a->ep[0];
	oa.b = a->ep[1];
	oa.udp = udp;
	oa.udp_a = usp;
	oa.udp_b = udp_port;
	sd->out->ops->assoc(sd->out, &oa);
	return a;
}

static void assoc_end(struct sctp_dis *sd, struct sassoc *a)
{
	struct out_assoc_end ae;
	struct sassoc **pp;
	unsigned int i;

	for (i = 0; i < SCTP_REASM_SLOTS; i++) {
		struct sreasm *r = &a->rs[i];

		if (!r->used)
			continue;
		sctp_event(sd, a, r->side, OUT_EV_TRUNCATED, true,
			   "stream %u: message from TSN %u incomplete at "
			   "the end of the input: %u fragments, %zu octets",
			   r->stream, r->tsn0, r->frags, r->buf.len);
		dissect_buf_free(&r->buf);
		r->used = false;
	}
	memset(&ae, 0, sizeof(ae));
	ae.assoc = a->id;
	ae.dir0 = sctp_side_dir(a, 0);
	ae.dir1 = sctp_side_dir(a, 1);
	for (i = 0; i < 2; i++) {
		ae.packets[i] = a->packets[i];
		ae.messages[i] = a->messages[i];
	}
	sd->out->ops->assoc_end(sd->out, &ae);
	for (pp = &sd->hash[assoc_hash(a->family, a->addr[0], a->port[0],
				       a->addr[1], a->port[1])];
	     *pp; pp = &(*pp)->hnext) {
		if (*pp == a) {
			*pp = a->hnext;
			break;
		}
	}
	if (a->prev)
		a->prev->next = a->next;
	else
		sd->first = a->next;
	if (a->next)
		a->next->prev = a->prev;
	else
		sd->last = a->prev;
	sd->n_assocs--;
	free(a);
}

/* ---- DATA and I-DATA ---- */

/* True when tsn was seen before in side's direction (a retransmission);
 * records it otherwise.  The last 64 TSNs are remembered. */
static bool tsn_dup(struct sassoc *a, int side, uint32_t tsn)
{
	int32_t d;

	if (!a->tsn_known[side]) {
		a->tsn_known[side] = true;
		a->tsn_hi[side] = tsn;
		a->tsn_seen[side] = 1;
		return false;
	}
	d = (int32_t)(tsn - a->tsn_hi[side]);
	if (d > 0) {
		a->tsn_seen[side] = d >= 64 ? 0 : a->tsn_seen[side] << d;
		a->tsn_seen[side] |= 1;
		a->tsn_hi[side] = tsn;
		return false;
	}
	if (-(int64_t)d >= 64)
		return true; /* too old to tell: assume seen */
	if (a->tsn_seen[side] & (1ull << -d))
		return true;
	a->tsn_seen[side] |= 1ull << -d;
	return false;
}

static struct sreasm *reasm_find(struct sassoc *a, int side,
				 const struct out_sctp_chunk *c)
{
	unsigned int i;

	for (i = 0; i < SCTP_REASM_SLOTS; i++) {
		struct sreasm *r = &a->rs[i];

		if (!r->used || r->side != side || r->stream != c->stream ||
		    r->u != c->u || r->idata != c->idata)
			continue;
		if (c->idata ? r->mid == c->ssn : r->next_tsn == c->tsn)
			return r;
	}
	return NULL;
}

static void reasm_drop(struct sreasm *r)
{
	dissect_buf_free(&r->buf);
	r->used = false;
}

/*
 * One DATA or I-DATA chunk's user data: a whole message (B and E) goes
 * out at once; fragments are collected (RFC 4960 §6.9) in TSN order for
 * DATA, FSN order for I-DATA (RFC 8260 §2.1), up to SCTP_REASM_MAX.
 */
static void data_user(struct sctp_dis *sd, struct sassoc *a, int side,
		      const struct out_sctp_chunk *c, const uint8_t *p)
{
	struct sreasm *r;
	unsigned int i;

	if (c->b && c->e) {
		sctp_msg_deliver(sd, a, side, c->stream, c->ppid, c->tsn, 1,
				 c->u, p, c->user_len);
		return;
	}
	if (c->b) {
		for (r = NULL, i = 0; i < SCTP_REASM_SLOTS && !r; i++)
			if (!a->rs[i].used)
				r = &a->rs[i];
		if (!r) {
			sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
				   "stream %u: more than %u messages in "
				   "reassembly; first fragment TSN %u dropped",
				   c->stream, SCTP_REASM_SLOTS, c->tsn);
			return;
		}
		memset(r, 0, sizeof(*r));
		r->used = true;
		r->side = side;
		r->stream = c->stream;
		r->u = c->u;
		r->idata = c->idata;
		r->mid = c->ssn;
		r->ppid = c->ppid;
		r->tsn0 = c->tsn;
	} else {
		r = reasm_find(a, side, c);
		if (!r || (c->idata && r->next_fsn != c->fsn)) {
			sctp_event(sd, a, side, OUT_EV_GAP, true,
				   "stream %u: fragment TSN %u without the "
				   "fragments before it; dropped",
				   c->stream, c->tsn);
			if (r)
				reasm_drop(r);
			return;
		}
	}
	if (dissect_buf_append(&r->buf, p, c->user_len, SCTP_REASM_MAX)) {
		sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
			   "stream %u: message from TSN %u longer than %u "
			   "octets; dropped",
			   c->stream, r->tsn0, SCTP_REASM_MAX);
		reasm_drop(r);
		return;
	}
	r->frags++;
	r->next_tsn = c->tsn + 1;
	r->next_fsn = c->b ? 1 : c->fsn + 1;
	if (c->e) {
		sctp_msg_deliver(sd, a, side, r->stream, r->ppid, r->tsn0,
				 r->frags, r->u, r->buf.p, r->buf.len);
		reasm_drop(r);
	}
}

/* RFC 4960 §3.3.1 DATA, RFC 8260 §2.1 I-DATA: the fixed fields. */
static bool data_chunk(struct out_sctp_chunk *c, const uint8_t *p, size_t len)
{
	size_t hl = c->idata ? SCTP_IDATA_HDR_LEN : SCTP_DATA_HDR_LEN;

	c->data = true;
	if (len < hl) {
		c->problem = "chunk shorter than its fixed fields";
		return false;
	}
	c->u = !!(c->flags & DF_U);
	c->b = !!(c->flags & DF_B);
	c->e = !!(c->flags & DF_E);
	c->tsn = wire_be32(p + 4);
	c->stream = wire_be16(p + 8);
	if (c->idata) {
		c->ssn = wire_be32(p + 12);
		/* PPID in the first fragment, FSN in the others */
		c->has_ppid = c->b;
		if (c->b)
			c->ppid = wire_be32(p + 16);
		else
			c->fsn = wire_be32(p + 16);
	} else {
		c->ssn = wire_be16(p + 10);
		c->has_ppid = true;
		c->ppid = wire_be32(p + 12);
	}
	c->user_len = len - hl;
	if (!c->user_len) {
		/* RFC 4960 §3.3.1: no user data is an error */
		c->problem = "no user data (RFC 4960 §3.3.1)";
		return false;
	}
	return true;
}

/* RFC 4960 §3.3.2/§3.3.3: fixed fields, then parameters (TLV, padded to
 * 4 octets, §3.2.1), looked at for the Adaptation Layer Indication. */
static void init_chunk(struct out_sctp_chunk *c, const uint8_t *p, size_t len)
{
	size_t off = SCTP_INIT_FIXED_LEN;
	unsigned int n;

	c->init = true;
	if (len < SCTP_INIT_FIXED_LEN) {
		c->problem = "chunk shorter than its fixed fields";
		return;
	}
	c->init_tag = wire_be32(p + 4);
	c->a_rwnd = wire_be32(p + 8);
	c->os = wire_be16(p + 12);
	c->mis = wire_be16(p + 14);
	c->init_tsn = wire_be32(p + 16);
	for (n = 0; n < SCTP_PARAMS_MAX && len - off >= 4; n++) {
		uint16_t type = wire_be16(p + off);
		uint16_t plen = wire_be16(p + off + 2);

		if (plen < 4 || plen > len - off) {
			c->problem = "parameter length past the chunk";
			return;
		}
		if (type == SCTP_ADAPT_IND_PARAM) {
			if (plen != 8) {
				c->problem = "Adaptation Layer Indication "
					     "of the wrong length";
				return;
			}
			c->has_adapt = true;
			c->adapt = wire_be32(p + off + 4);
		}
		off += (size_t)(plen + 3u) & ~(size_t)3;
		if (off > len)
			break; /* the last parameter's padding may be cut */
	}
	/* RFC 5043 §5.1: the indication MUST be there for DDP */
	if (c->has_adapt && c->adapt != SCTP_ADAPT_IND_DDP)
		c->problem = "adaptation indication other than DDP's "
			     "(RFC 5043 §5.1)";
}

/* Walk the chunks of a packet whose CRC32c is good (RFC 4960 §3.2). */
static void chunks(struct sctp_dis *sd, struct sassoc *a, int side,
		   const uint8_t *p, size_t len)
{
	struct out_sctp_chunk c;
	size_t off = SCTP_COMMON_LEN, clen, padded;

	if (off == len)
		sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
			   "SCTP packet without chunks");
	/* each chunk takes at least 4 octets: the walk is bounded */
	while (off < len) {
		if (len - off < SCTP_CHUNK_HDR_LEN) {
			sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
				   "%zu octets after the last chunk",
				   len - off);
			return;
		}
		memset(&c, 0, sizeof(c));
		c.assoc = a->id;
		c.dir = sctp_side_dir(a, side);
		c.type = p[off];
		c.flags = p[off + 1];
		c.len = wire_be16(p + off + 2);
		c.name = chunk_name(c.type);
		clen = c.len;
		if (clen < SCTP_CHUNK_HDR_LEN || clen > len - off) {
			sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
				   "%s chunk length %zu %s (%zu octets left)",
				   c.name, clen,
				   clen < SCTP_CHUNK_HDR_LEN ?
					   "below its header" :
					   "past the packet",
				   len - off);
			return;
		}
		switch (c.type) {
		case CT_IDATA:
			c.idata = true;
			/* FALLTHROUGH */
		case CT_DATA:
			if (data_chunk(&c, p + off, clen))
				c.dup = tsn_dup(a, side, c.tsn);
			break;
		case CT_INIT:
		case CT_INIT_ACK:
			init_chunk(&c, p + off, clen);
			break;
		case CT_ABORT:
		case CT_SHUTDOWN_COMPLETE:
			/* a later INIT starts a new association */
			a->closed = true;
			break;
		case CT_SACK:
		case CT_SHUTDOWN:
			if (clen >= 8) {
				c.has_cum_ack = true;
				c.cum_ack = wire_be32(p + off + 4);
			}
			break;
		default:
			break;
		}
		sd->out->ops->sctp_chunk(sd->out, &c);
		if (c.problem)
			sctp_event(sd, a, side, OUT_EV_MALFORMED, true,
				   "%s: %s", c.name, c.problem);
		else if (c.data && !c.dup)
			data_user(sd, a, side, &c,
				  p + off +
					  (c.idata ? SCTP_IDATA_HDR_LEN :
						     SCTP_DATA_HDR_LEN));
		padded = (clen + 3) & ~(size_t)3;
		off += padded < len - off ? padded : len - off;
	}
}

/* RFC 4960 Appendix B: CRC32c over the packet with the field zeroed. */
static uint32_t packet_crc(const uint8_t *p, size_t len)
{
	static const uint8_t zero[4];
	uint32_t s = crc32c_init();

	s = crc32c_update(s, p, 8);
	s = crc32c_update(s, zero, sizeof(zero));
	s = crc32c_update(s, p + SCTP_COMMON_LEN, len - SCTP_COMMON_LEN);
	return crc32c_final(s);
}

/*
 * A UDP datagram that holds several SCTP packets: a UDP GSO send
 * (UDP_SEGMENT, as iwcmd's usrsctp stack sends) captured on the sending
 * host before the kernel cut it into datagrams of one size, the last
 * maybe shorter.  The size is the chunk boundary (RFC 4960 §3.2) of the
 * first packet at which its CRC32c holds, and every other packet's must
 * hold too; 0 when there is none (then it is one packet, a bad one).
 */
static size_t gso_size(const uint8_t *p, size_t len)
{
	size_t off = SCTP_COMMON_LEN, q, n, clen;

	while (off + 4 <= len) {
		clen = wire_be16(p + off + 2);
		if (clen < 4)
			return 0;
		off += (clen + 3) & ~(size_t)3;
		if (off + SCTP_COMMON_LEN > len)
			return 0;
		if (packet_crc(p, off) != crc32c_get_wire(p + 8))
			continue;
		for (q = off; q < len; q += off) {
			n = len - q < off ? len - q : off;
			if (n < SCTP_COMMON_LEN ||
			    packet_crc(p + q, n) != crc32c_get_wire(p + q + 8))
				return 0;
		}
		return off;
	}
	return 0;
}

/* ---- public API ---- */

/* A dissector reporting to out and counting in st. */
struct sctp_dis *sctp_dis_new(struct out_sink *out, struct dissect_stats *st)
{
	struct sctp_dis *sd = calloc(1, sizeof(*sd));

	if (!sd)
		return NULL;
	sd->out = out;
	sd->st = st;
	return sd;
}

/* One SCTP packet (common header first) between src and dst. */
void sctp_dis_packet(struct sctp_dis *sd, int family, const uint8_t *src,
		     const uint8_t *dst, bool udp, uint16_t usport,
		     uint16_t udport, const uint8_t *p, size_t len)
{
	struct out_sctp_pkt op;
	struct sassoc *a;
	uint16_t sp, dp;
	int side = -1;

	/* RFC 4960 §3.1: the 12-octet common header */
	if (len < SCTP_COMMON_LEN) {
		sctp_event(sd, NULL, -1, OUT_EV_MALFORMED, true,
			   "SCTP packet of %zu octets, shorter than its "
			   "common header",
			   len);
		return;
	}
	if (udp && crc32c_get_wire(p + 8) != packet_crc(p, len)) {
		size_t seg = gso_size(p, len), q;

		/* each packet of a GSO send, as the wire carries them */
		for (q = 0; seg && q < len; q += seg)
			sctp_dis_packet(sd, family, src, dst, udp, usport,
					udport, p + q,
					len - q < seg ? len - q : seg);
		if (seg)
			return;
	}
	sd->st->sctp_packets++;
	sp = wire_be16(p);
	dp = wire_be16(p + 2);
	for (a = sd->hash[assoc_hash(family, src, sp, dst, dp)]; a;
	     a = a->hnext)
		if ((side = assoc_side(a, family, src, sp, dst, dp)) >= 0)
			break;
	if (a && a->closed && len > SCTP_COMMON_LEN &&
	    p[SCTP_COMMON_LEN] == CT_INIT) {
		assoc_end(sd, a);
		a = NULL;
	}
	if (!a) {
		/* the INIT sender, else the first sender, is side 0 */
		a = assoc_new(sd, family, src, sp, dst, dp, udp, usport,
			      udport);
		if (!a)
			return;
		side = 0;
	}
	if (len > SCTP_COMMON_LEN && p[SCTP_COMMON_LEN] == CT_INIT &&
	    a->init_side < 0)
		a->init_side = side;
	memset(&op, 0, sizeof(op));
	op.assoc = a->id;
	op.dir = sctp_side_dir(a, side);
	op.src = a->ep[side];
	op.dst = a->ep[!side];
	op.index = ++a->packets[side];
	op.len = len;
	op.sport = sp;
	op.dport = dp;
	op.vtag = wire_be32(p + 4);
	/* RFC 4960 §6.8: the checksum field carries the CRC32c in the
	 * same octet order as iSCSI and MPA (least significant first). */
	op.crc_wire = crc32c_get_wire(p + 8);
	op.crc_calc = packet_crc(p, len);
	op.crc_ok = op.crc_wire == op.crc_calc;
	op.raw = p;
	sd->out->ops->sctp_pkt(sd->out, &op);
	if (!op.crc_ok) {
		/* RFC 4960 §6.8: the receiver discards it; so do we */
		sd->st->sctp_crc_bad++;
		return;
	}
	chunks(sd, a, side, p, len);
}

/* End of input: report what is incomplete and end every association. */
void sctp_dis_finish(struct sctp_dis *sd)
{
	while (sd->first)
		assoc_end(sd, sd->first);
}

/* Free the dissector. */
void sctp_dis_free(struct sctp_dis *sd)
{
	struct sassoc *a, *n;
	unsigned int i;

	if (!sd)
		return;
	for (a = sd->first; a; a = n) {
		n = a->next;
		for (i = 0; i < SCTP_REASM_SLOTS; i++)
			dissect_buf_free(&a->rs[i].buf);
		free(a);
	}
	free(sd);
}
