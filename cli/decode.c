/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The input side of the decoder: captured frames (the caller reads the
 * capture) or hex text, link, IP and TCP headers, each TCP direction
 * reassembled by sequence number and fed to the per-connection dissector.
 */
#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "decode.h"
#include "dissect.h"
#include "dissect_sctp.h"
#include "wbuf.h"

#define CONN_HASH_SIZE 1024
#define FRAG_NOTES_MAX 20 /* fragment notes printed, the rest counted */

/* One out-of-order TCP segment held for later. */
struct seg {
	struct seg *next;
	uint32_t seq;
	uint32_t len;
	uint8_t data[];
};

struct tcp_dir {
	bool synced; /* next_seq is known */
	uint32_t next_seq;
	bool fin;
	struct seg *held; /* sorted by sequence from next_seq */
	size_t held_bytes;
	unsigned int held_n;
};

struct conn {
	struct conn *hnext;	  /* hash chain */
	struct conn *prev, *next; /* creation order */
	int family;
	uint8_t addr[2][16]; /* side 0 = A (SYN sender, else first) */
	uint16_t port[2];
	struct tcp_dir dir[2];
	struct dissect *d;
	unsigned int id;
};

struct decode {
	struct out_sink *out;
	struct dissect_stats st;
	struct out_summary sum;
	struct conn *hash[CONN_HASH_SIZE];
	struct conn *first, *last;
	unsigned int n_conns;
	unsigned int next_id;
	bool limit_reported;
	unsigned long capture_bad;
	struct sctp_dis *sctp;
	uint16_t sctp_udp_port; /* RFC 6951 encapsulation port */
	char input[256];
};

/* ---- events ---- */

static void input_event_v(struct decode *dc, int bad, const char *fmt,
			  va_list ap) __attribute__((format(printf, 3, 0)));

static void input_event_v(struct decode *dc, int bad, const char *fmt,
			  va_list ap)
{
	struct out_event ev;
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	memset(&ev, 0, sizeof(ev));
	ev.dir = OUT_DIR_NONE;
	ev.kind = OUT_EV_CAPTURE;
	ev.bad = bad;
	ev.msg = msg;
	if (bad)
		dc->st.errors++;
	dc->out->ops->event(dc->out, &ev);
}

/* Report a problem with the input itself (conn 0); bad ones count. */
void decode_input_event(struct decode *dc, int bad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	input_event_v(dc, bad, fmt, ap);
	va_end(ap);
}

/* ---- connections ---- */

static unsigned int conn_hash(int family, const uint8_t *a, uint16_t pa,
			      const uint8_t *b, uint16_t pb)
{
	/* symmetric: both directions land in the same bucket */
	uint32_t h = 2166136261u, x = 0;
	size_t n = family == AF_INET6 ? 16 : 4, i;

	for (i = 0; i < n; i++)
		x += (uint32_t)(a[i] ^ b[i]) * 16777619u + a[i] + b[i];
	h = (h ^ x) * 16777619u;
	h = (h ^ (uint32_t)(pa + pb)) * 16777619u;
	h = (h ^ (uint32_t)(pa ^ pb)) * 16777619u;
	return h % CONN_HASH_SIZE;
}

static int conn_side(const struct conn *c, int family, const uint8_t *src,
		     uint16_t sp, const uint8_t *dst, uint16_t dp)
{
	size_t n = family == AF_INET6 ? 16 : 4;

	if (c->family != family)
		return -1;
	if (c->port[0] == sp && c->port[1] == dp &&
	    !memcmp(c->addr[0], src, n) && !memcmp(c->addr[1], dst, n))
		return 0;
	if (c->port[1] == sp && c->port[0] == dp &&
	    !memcmp(c->addr[1], src, n) && !memcmp(c->addr[0], dst, n))
		return 1;
	return -1;
}

static void endpoint_str(int family, const uint8_t *addr, uint16_t port,
			 char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (!inet_ntop(family, addr, a, sizeof(a)))
		snprintf(a, sizeof(a), "?");
	if (family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", a, port);
	else
		snprintf(buf, len, "%s:%u", a, port);
}

static struct conn *conn_new(struct decode *dc, int family, const uint8_t *a,
			     uint16_t pa, const uint8_t *b, uint16_t pb)
{
	char ea[64], eb[64];
	struct conn *c;
	unsigned int h;

	if (dc->n_conns >= DECODE_MAX_CONNS) {
		if (!dc->limit_reported)
			decode_input_event(dc, 1,
					   "more than %u connections "
					   "open at once; further ones are "
					   "not decoded",
					   DECODE_MAX_CONNS);
		dc->limit_reported = true;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (!c)
		return NULL;
	c->family = family;
	memcpy(c->addr[0], a, family == AF_INET6 ? 16 : 4);
	memcpy(c->addr[1], b, family == AF_INET6 ? 16 : 4);
	c->port[0] = pa;
	c->port[1] = pb;
	c->id = ++dc->next_id;
	endpoint_str(family, a, pa, ea, sizeof(ea));
	endpoint_str(family, b, pb, eb, sizeof(eb));
	c->d = dissect_new(dc->out, &dc->st, c->id, ea, eb, -1);
	if (!c->d) {
		free(c);
		return NULL;
	}
	h = conn_hash(family, a, pa, b, pb);
	c->hnext = dc->hash[h];
	dc->hash[h] = c;
	c->prev = dc->last;
	if (dc->last)
		dc->last->next = c;
	else
		dc->first = c;
	dc->last = c;
	dc->n_conns++;
	return c;
}

static struct conn *conn_find(struct decode *dc, int family, const uint8_t *src,
			      uint16_t sp, const uint8_t *dst, uint16_t dp,
			      int *side)
{
	struct conn *c;

	for (c = dc->hash[conn_hash(family, src, sp, dst, dp)]; c;
	     c = c->hnext) {
		*side = conn_side(c, family, src, sp, dst, dp);
		if (*side >= 0)
			return c;
	}
	return NULL;
}

/* ---- TCP reassembly ---- */

static void seg_free_all(struct tcp_dir *t)
{
	struct seg *s, *n;

	for (s = t->held; s; s = n) {
		n = s->next;
		free(s);
	}
	t->held = NULL;
	t->held_bytes = 0;
	t->held_n = 0;
}

/* Deliver held segments that are now in order. */
static void tcp_drain(struct conn *c, int side)
{
	struct tcp_dir *t = &c->dir[side];
	struct seg *s;

	while ((s = t->held) && (int32_t)(s->seq - t->next_seq) <= 0) {
		uint32_t trim = t->next_seq - s->seq;

		t->held = s->next;
		t->held_bytes -= s->len;
		t->held_n--;
		if (trim < s->len) {
			dissect_data(c->d, side, s->data + trim, s->len - trim);
			t->next_seq += s->len - trim;
		}
		free(s);
	}
}

/* Give up waiting for the bytes before the first held segment. */
static void tcp_skip_gap(struct conn *c, int side)
{
	struct tcp_dir *t = &c->dir[side];

	if (!t->held)
		return;
	dissect_gap(c->d, side, t->held->seq - t->next_seq);
	t->next_seq = t->held->seq;
	tcp_drain(c, side);
}

static void tcp_hold(struct decode *dc, struct conn *c, int side, uint32_t seq,
		     const uint8_t *p, uint32_t n)
{
	struct tcp_dir *t = &c->dir[side];
	struct seg **pp, *s;
	uint32_t rel = seq - t->next_seq;

	for (pp = &t->held; *pp; pp = &(*pp)->next) {
		uint32_t r = (*pp)->seq - t->next_seq;

		if (r == rel && (*pp)->len >= n)
			return; /* duplicate */
		if (r > rel)
			break;
	}
	s = malloc(sizeof(*s) + n);
	if (!s) {
		decode_input_event(dc, 1, "out of memory holding a segment");
		return;
	}
	s->seq = seq;
	s->len = n;
	memcpy(s->data, p, n);
	s->next = *pp;
	*pp = s;
	t->held_bytes += n;
	t->held_n++;
	/* Bounded: past the cap the missing bytes are declared lost. */
	while (t->held && (t->held_bytes > DECODE_HOLD_MAX ||
			   t->held_n > DECODE_HOLD_SEGS))
		tcp_skip_gap(c, side);
}

static void tcp_data(struct decode *dc, struct conn *c, int side, uint32_t seq,
		     const uint8_t *p, uint32_t n)
{
	struct tcp_dir *t = &c->dir[side];
	int32_t rel;

	if (!t->synced) {
		/* no SYN seen: follow the stream from the first data */
		t->synced = true;
		t->next_seq = seq;
	}
	rel = (int32_t)(seq - t->next_seq);
	if (rel > 0) {
		tcp_hold(dc, c, side, seq, p, n);
		return;
	}
	/* in order, or a retransmission overlapping what we have */
	if ((uint32_t) - (int64_t)rel >= n)
		return;
	p += (uint32_t) - (int64_t)rel;
	n -= (uint32_t) - (int64_t)rel;
	dissect_data(c->d, side, p, n);
	t->next_seq += n;
	tcp_drain(c, side);
}

static void conn_finish(struct decode *dc, struct conn *c)
{
	struct conn **pp;
	int i;

	for (i = 0; i < 2; i++) {
		while (c->dir[i].held)
			tcp_skip_gap(c, i);
		seg_free_all(&c->dir[i]);
	}
	dissect_end(c->d);
	dissect_free(c->d);
	for (pp = &dc->hash[conn_hash(c->family, c->addr[0], c->port[0],
				      c->addr[1], c->port[1])];
	     *pp; pp = &(*pp)->hnext) {
		if (*pp == c) {
			*pp = c->hnext;
			break;
		}
	}
	if (c->prev)
		c->prev->next = c->next;
	else
		dc->first = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		dc->last = c->prev;
	dc->n_conns--;
	free(c);
}

#define TH_FIN 0x01
#define TH_SYN 0x02
#define TH_RST 0x04
#define TH_ACK 0x10

static void tcp_segment(struct decode *dc, int family, const uint8_t *src,
			const uint8_t *dst, const uint8_t *tcp, size_t len)
{
	uint16_t sp, dp;
	uint32_t seq;
	uint8_t flags;
	size_t doff;
	const uint8_t *data;
	size_t n;
	struct conn *c;
	int side;

	/* RFC 9293 §3.1: 20-octet header, Data Offset in 32-bit words */
	if (len < 20) {
		decode_input_event(dc, 0, "TCP header truncated (%zu octets)",
				   len);
		return;
	}
	sp = wire_be16(tcp);
	dp = wire_be16(tcp + 2);
	seq = wire_be32(tcp + 4);
	doff = (size_t)(tcp[12] >> 4) * 4;
	flags = tcp[13];
	if (doff < 20 || doff > len) {
		decode_input_event(dc, 0, "bad TCP data offset %zu", doff);
		return;
	}
	dc->sum.tcp_segments++;
	data = tcp + doff;
	n = len - doff;

	c = conn_find(dc, family, src, sp, dst, dp, &side);
	if (c && (flags & TH_SYN) && !(flags & TH_ACK) && side == 0 &&
	    c->dir[0].synced && c->dir[0].next_seq != seq + 1) {
		/* a new connection reusing the same address pair */
		conn_finish(dc, c);
		c = NULL;
	}
	if (!c) {
		if (!(flags & TH_SYN) && !n)
			return; /* nothing to follow yet */
		if ((flags & TH_SYN) && (flags & TH_ACK))
			c = conn_new(dc, family, dst, dp, src, sp);
		else
			c = conn_new(dc, family, src, sp, dst, dp);
		if (!c)
			return;
		side = conn_side(c, family, src, sp, dst, dp);
	}
	if (flags & TH_SYN) {
		if (!c->dir[side].synced) {
			c->dir[side].synced = true;
			c->dir[side].next_seq = seq + 1;
		}
		seq++; /* data in a SYN starts after it */
	}
	if (n)
		tcp_data(dc, c, side, seq, data, (uint32_t)n);
	if (flags & TH_FIN)
		c->dir[side].fin = true;
	if ((flags & TH_RST) || (c->dir[0].fin && c->dir[1].fin &&
				 !c->dir[0].held && !c->dir[1].held))
		conn_finish(dc, c);
}

/* ---- SCTP, raw or over UDP ---- */

#define IPPROTO_SCTP_NUM 132 /* RFC 4960 §1.1 */

/* RFC 768 UDP; RFC 6951 §5.1: SCTP in datagrams to or from the port. */
static void udp_datagram(struct decode *dc, int family, const uint8_t *src,
			 const uint8_t *dst, const uint8_t *u, size_t len)
{
	uint16_t sp, dp, ulen;

	if (len < 8) {
		decode_input_event(dc, 0, "UDP header truncated (%zu octets)",
				   len);
		dc->sum.skipped++;
		return;
	}
	sp = wire_be16(u);
	dp = wire_be16(u + 2);
	if (sp != dc->sctp_udp_port && dp != dc->sctp_udp_port) {
		dc->sum.skipped++;
		return;
	}
	ulen = wire_be16(u + 4);
	if (ulen < 8 || ulen > len) {
		decode_input_event(dc, 1, "bad UDP length %u (%zu octets)",
				   ulen, len);
		dc->sum.skipped++;
		return;
	}
	sctp_dis_packet(dc->sctp, family, src, dst, true, sp, dp, u + 8,
			(size_t)ulen - 8);
}

static void ip_payload(struct decode *dc, int family, uint8_t proto,
		       const uint8_t *src, const uint8_t *dst, const uint8_t *p,
		       size_t len)
{
	switch (proto) {
	case IPPROTO_TCP:
		tcp_segment(dc, family, src, dst, p, len);
		break;
	case IPPROTO_UDP:
		udp_datagram(dc, family, src, dst, p, len);
		break;
	case IPPROTO_SCTP_NUM:
		sctp_dis_packet(dc->sctp, family, src, dst, false, 0, 0, p,
				len);
		break;
	default:
		dc->sum.skipped++;
		break;
	}
}

/* ---- IP ---- */

static void ipv4_packet(struct decode *dc, const uint8_t *p, size_t len)
{
	size_t ihl, tot;
	uint16_t frag;

	/* RFC 791 §3.1 */
	if (len < 20 || (p[0] >> 4) != 4) {
		dc->sum.skipped++;
		return;
	}
	ihl = (size_t)(p[0] & 0x0f) * 4;
	tot = wire_be16(p + 2);
	if (tot == 0)
		tot = len; /* segmentation offload left it unset */
	if (ihl < 20 || ihl > len || tot < ihl) {
		decode_input_event(dc, 0,
				   "malformed IPv4 header (IHL %zu, "
				   "total length %zu)",
				   ihl, tot);
		dc->sum.skipped++;
		return;
	}
	if (tot > len) {
		decode_input_event(dc, 0,
				   "IPv4 packet cut short by the "
				   "capture (%zu of %zu octets); dropped",
				   len, tot);
		dc->sum.skipped++;
		return;
	}
	frag = wire_be16(p + 6);
	if (frag & 0x3fff) {
		/* MF set or a non-zero offset: not reassembled */
		if (++dc->sum.ip_fragments <= FRAG_NOTES_MAX)
			decode_input_event(dc, 0,
					   "IPv4 fragment (id 0x%04x, "
					   "offset %u) skipped",
					   wire_be16(p + 4),
					   (frag & 0x1fff) * 8u);
		return;
	}
	ip_payload(dc, AF_INET, p[9], p + 12, p + 16, p + ihl, tot - ihl);
}

static void ipv6_packet(struct decode *dc, const uint8_t *p, size_t len)
{
	size_t plen, off = 40;
	uint8_t nh;
	int i;

	/* RFC 8200 §3 */
	if (len < 40 || (p[0] >> 4) != 6) {
		dc->sum.skipped++;
		return;
	}
	plen = wire_be16(p + 4);
	if (plen == 0 || 40 + plen > len) {
		/* jumbogram or cut by the snap length */
		if (plen && 40 + plen > len) {
			decode_input_event(dc, 0,
					   "IPv6 packet cut short by "
					   "the capture; dropped");
			dc->sum.skipped++;
			return;
		}
		plen = len - 40;
	}
	len = 40 + plen;
	nh = p[6];
	/* RFC 8200 §4: walk a bounded chain of extension headers */
	for (i = 0; i < 16; i++) {
		size_t hl;

		switch (nh) {
		case IPPROTO_TCP:
		case IPPROTO_UDP:
		case IPPROTO_SCTP_NUM:
			ip_payload(dc, AF_INET6, nh, p + 8, p + 24, p + off,
				   len - off);
			return;
		case 0:	 /* Hop-by-Hop */
		case 43: /* Routing */
		case 60: /* Destination Options */
			if (len - off < 8)
				goto bad;
			hl = ((size_t)p[off + 1] + 1) * 8;
			break;
		case 51: /* AH, RFC 4302 */
			if (len - off < 8)
				goto bad;
			hl = ((size_t)p[off + 1] + 2) * 4;
			break;
		case 44: /* Fragment */
			if (++dc->sum.ip_fragments <= FRAG_NOTES_MAX)
				decode_input_event(dc, 0,
						   "IPv6 fragment skipped");
			return;
		default:
			dc->sum.skipped++;
			return;
		}
		if (hl > len - off)
			goto bad;
		nh = p[off];
		off += hl;
	}
bad:
	decode_input_event(dc, 0, "malformed IPv6 extension headers");
	dc->sum.skipped++;
}

static void ip_by_version(struct decode *dc, const uint8_t *p, size_t len)
{
	if (len && (p[0] >> 4) == 4)
		ipv4_packet(dc, p, len);
	else if (len && (p[0] >> 4) == 6)
		ipv6_packet(dc, p, len);
	else
		dc->sum.skipped++;
}

static void ether_type(struct decode *dc, uint16_t et, const uint8_t *p,
		       size_t len)
{
	int tags = 0;

	/* IEEE 802.1Q / 802.1ad tags: 2 more octets of TCI, then a type */
	while ((et == 0x8100 || et == 0x88a8 || et == 0x9100) && tags < 4) {
		if (len < 4) {
			dc->sum.skipped++;
			return;
		}
		et = wire_be16(p + 2);
		p += 4;
		len -= 4;
		tags++;
	}
	if (et == 0x0800)
		ipv4_packet(dc, p, len);
	else if (et == 0x86dd)
		ipv6_packet(dc, p, len);
	else
		dc->sum.skipped++;
}

/* True when decode_packet() can parse frames of this link type. */
int decode_link_supported(int linktype)
{
	switch (linktype) {
	case DECODE_LINK_NULL:
	case DECODE_LINK_EN10MB:
	case DECODE_LINK_RAW:
	case DECODE_LINK_RAW_OBSD:
	case DECODE_LINK_RAW_LT:
	case DECODE_LINK_LOOP:
	case DECODE_LINK_LINUX_SLL:
	case DECODE_LINK_IPV4:
	case DECODE_LINK_IPV6:
	case DECODE_LINK_LINUX_SLL2:
		return 1;
	default:
		return 0;
	}
}

/* Decode one captured frame of the given link type. */
void decode_packet(struct decode *dc, int linktype, const uint8_t *pkt,
		   size_t caplen, size_t wirelen)
{
	dc->sum.packets++;
	(void)wirelen; /* IP lengths tell what the snap length cut */
	switch (linktype) {
	case DECODE_LINK_EN10MB:
		if (caplen < 14)
			break;
		ether_type(dc, wire_be16(pkt + 12), pkt + 14, caplen - 14);
		return;
	case DECODE_LINK_LINUX_SLL:
		/* 16 octets, protocol type in the last two */
		if (caplen < 16)
			break;
		ether_type(dc, wire_be16(pkt + 14), pkt + 16, caplen - 16);
		return;
	case DECODE_LINK_LINUX_SLL2:
		/* 20 octets, protocol type first */
		if (caplen < 20)
			break;
		ether_type(dc, wire_be16(pkt), pkt + 20, caplen - 20);
		return;
	case DECODE_LINK_NULL:
	case DECODE_LINK_LOOP:
		/* 4-octet address family: host order for NULL (any host),
		 * network order for LOOP; the IP version nibble decides. */
		if (caplen < 4)
			break;
		ip_by_version(dc, pkt + 4, caplen - 4);
		return;
	case DECODE_LINK_RAW:
	case DECODE_LINK_RAW_OBSD:
	case DECODE_LINK_RAW_LT:
	case DECODE_LINK_IPV4:
	case DECODE_LINK_IPV6:
		ip_by_version(dc, pkt, caplen);
		return;
	default:
		break;
	}
	dc->sum.skipped++;
}

/* ---- hex input ---- */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex_line(struct decode *dc, struct dissect *d, char *line,
		    unsigned long lineno, int *side)
{
	uint8_t bytes[512];
	size_t nb = 0;
	char *p = line, *q;
	bool first = true;

	if ((q = strchr(p, '#')))
		*q = '\0';
	if ((q = strchr(p, '|'))) /* hexdump -C text column */
		*q = '\0';
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '>' || *p == '<') {
		*side = *p == '>' ? 0 : 1;
		p++;
	}
	for (;;) {
		char *tok, *end;
		size_t tl, i;

		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			break;
		tok = p;
		while (*p && !isspace((unsigned char)*p))
			p++;
		end = p;
		tl = (size_t)(end - tok);
		if (first) {
			first = false;
			/* "0000:" or "0000  4d 50": a leading offset */
			if (tok[tl - 1] == ':')
				continue;
			if (tl >= 4 && *p &&
			    (p[0] == '\t' || (p[0] == ' ' && p[1] == ' ') ||
			     (p[0] == ' ' && p[1] == '\t')))
				continue;
		}
		if (tl % 2) {
			fprintf(stderr,
				"iwcmctl: decode: %s:%lu: odd number "
				"of hex digits in \"%.*s\"\n",
				dc->input, lineno, (int)(tl > 40 ? 40 : tl),
				tok);
			return -1;
		}
		for (i = 0; i < tl; i += 2) {
			int hi = hexval((unsigned char)tok[i]);
			int lo = hexval((unsigned char)tok[i + 1]);

			if (hi < 0 || lo < 0) {
				fprintf(stderr,
					"iwcmctl: decode: %s:%lu: not "
					"hex: \"%.*s\"\n",
					dc->input, lineno,
					(int)(tl > 40 ? 40 : tl), tok);
				return -1;
			}
			bytes[nb++] = (uint8_t)(hi << 4 | lo);
			if (nb == sizeof(bytes)) {
				dissect_data(d, *side, bytes, nb);
				nb = 0;
			}
		}
	}
	if (nb)
		dissect_data(d, *side, bytes, nb);
	return 0;
}

/* Decode hex text from fp: '>' lines initiator->responder, '<' back. */
int decode_hex(struct decode *dc, FILE *fp)
{
	struct dissect *d;
	char *line = NULL;
	size_t cap = 0, total = 0;
	ssize_t n;
	unsigned long lineno = 0;
	int side = 0, rc = 0;

	d = dissect_new(dc->out, &dc->st, ++dc->next_id, "initiator",
			"responder", 0);
	if (!d) {
		fprintf(stderr, "iwcmctl: decode: %s: out of memory\n",
			dc->input);
		return -1;
	}
	while ((n = getline(&line, &cap, fp)) > 0) {
		lineno++;
		total += (size_t)n;
		if (total > DECODE_HEX_MAX) {
			fprintf(stderr,
				"iwcmctl: decode: %s: more than %u "
				"octets of hex text\n",
				dc->input, DECODE_HEX_MAX);
			rc = -1;
			break;
		}
		if (memchr(line, '\0', (size_t)n)) {
			fprintf(stderr,
				"iwcmctl: decode: %s:%lu: NUL in "
				"text\n",
				dc->input, lineno);
			rc = -1;
			break;
		}
		if (hex_line(dc, d, line, lineno, &side) < 0) {
			rc = -1;
			break;
		}
	}
	if (!rc && ferror(fp)) {
		fprintf(stderr, "iwcmctl: decode: %s: %s\n", dc->input,
			strerror(errno));
		rc = -1;
	}
	free(line);
	if (!rc)
		dissect_end(d);
	dissect_free(d);
	return rc;
}

/* ---- lifetime ---- */

/* Start decoding an input named input. */
struct decode *decode_new(struct out_sink *out, const char *input)
{
	struct decode *dc = calloc(1, sizeof(*dc));

	if (!dc)
		return NULL;
	dc->out = out;
	dc->sctp = sctp_dis_new(out, &dc->st);
	if (!dc->sctp) {
		free(dc);
		return NULL;
	}
	dc->sctp_udp_port = SCTP_UDP_PORT_DEFAULT;
	snprintf(dc->input, sizeof(dc->input), "%s", input);
	dc->sum.input = dc->input;
	return dc;
}

/* SCTP is looked for in UDP datagrams to or from port (RFC 6951). */
void decode_set_sctp_udp_port(struct decode *dc, uint16_t port)
{
	dc->sctp_udp_port = port;
}

/* End every connection, print the summary and return the exit status. */
int decode_finish(struct decode *dc)
{
	struct out_summary *s = &dc->sum;

	while (dc->first)
		conn_finish(dc, dc->first);
	sctp_dis_finish(dc->sctp);
	s->conns = dc->st.conns;
	s->frames = dc->st.frames;
	s->fpdus = dc->st.fpdus;
	s->crc_bad = dc->st.crc_bad;
	s->marker_bad = dc->st.marker_bad;
	s->malformed = dc->st.malformed;
	s->errors = dc->st.errors;
	s->sctp_packets = dc->st.sctp_packets;
	s->assocs = dc->st.assocs;
	s->sctp_crc_bad = dc->st.sctp_crc_bad;
	s->ss_msgs = dc->st.ss_msgs;
	s->ddp_segments = dc->st.ddp_segments;
	s->exit_status = s->crc_bad || s->marker_bad || s->malformed ||
			 s->errors || s->sctp_crc_bad;
	dc->out->ops->summary(dc->out, s);
	return s->exit_status;
}

/* The input's name as given to decode_new(). */
const char *decode_input(const struct decode *dc)
{
	return dc->input;
}

/* Free everything the decoder holds. */
void decode_free(struct decode *dc)
{
	struct conn *c, *n;
	int i;

	if (!dc)
		return;
	for (c = dc->first; c; c = n) {
		n = c->next;
		for (i = 0; i < 2; i++)
			seg_free_all(&c->dir[i]);
		dissect_free(c->d);
		free(c);
	}
	sctp_dis_free(dc->sctp);
	free(dc);
}
