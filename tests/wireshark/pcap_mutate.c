/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * pcap_mutate MODE SEED IN OUT: a copy of the capture IN whose TCP
 * payloads and SCTP chunk data (raw, or over UDP) are damaged the way
 * MODE says, for the fuzz run of tshark with the Wireshark plugin
 * (wireshark/fuzz.sh).  The link, IP and transport headers stay
 * parseable so that the damage reaches the iWARP dissectors:
 *   flip    a few random bits of each payload
 *   random  each payload replaced by random octets (same length)
 *   trunc   each packet cut at a random point of its payload (the
 *           capture length shrinks, the IP length does not: a short
 *           snapshot)
 *   shrink  payloads shortened and the IP length fixed: holes in the
 *           TCP sequence space
 *   glue    consecutive packets of one direction merged into one
 *   keys    MPA startup-frame keys written over random payload octets
 *   splice  random octets inserted into or cut out of payloads
 *   chunks  the SCTP chunk headers damaged as well (lengths, types)
 *   fc      every DDP Stream Session Control message (PPID 17) given
 *           the function code SEED, the SCTP CRC32c recomputed: the
 *           codes a capture does not have, valid (1-7, RFC 5043 §5.2.3,
 *           RFC 6581 §7) or not
 * Except with fc, the IP addresses of both ends are changed by SEED too,
 * so that mutants merged into one file stay separate connections.
 * Ethernet, Linux cooked (SLL) and raw IP links, IPv4 and IPv6 without
 * extension headers.  Deterministic for a given SEED.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"

#define SNAP_MAX 262144

static uint64_t rng;

static uint32_t rnd(uint32_t n)
{
	/* xorshift64* */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return n ? (uint32_t)((rng * 2685821657736338717ull) >> 33) % n : 0;
}

struct pkt {
	uint8_t hdr[16];
	uint8_t *d;
	uint32_t caplen, len;
};

static int swapped;

static uint32_t u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	if (swapped)
		v = __builtin_bswap32(v);
	return v;
}

static void put32(uint8_t *p, uint32_t v)
{
	if (swapped)
		v = __builtin_bswap32(v);
	memcpy(p, &v, 4);
}

/* Where the payload to damage starts: after the transport header (TCP),
 * after the common header (SCTP), or 0 when the packet has none. */
struct where {
	uint32_t ip;	  /* offset of the IP header */
	int v6;		  /* IPv6 */
	uint32_t l4;	  /* offset of the transport payload's header */
	uint32_t payload; /* offset of the payload */
	int sctp;	  /* payload is SCTP chunks */
	uint32_t flow;	  /* ports, for glue */
};

static int locate(int link, const struct pkt *k, struct where *w)
{
	const uint8_t *d = k->d;
	uint32_t n = k->caplen, o, proto, ihl;

	memset(w, 0, sizeof(*w));
	switch (link) {
	case 1: /* Ethernet II: IPv4 or IPv6 */
		o = 14;
		if (n < o || !((d[12] == 0x08 && d[13] == 0x00) ||
			       (d[12] == 0x86 && d[13] == 0xdd)))
			return 0;
		break;
	case 113:
		o = 16;
		break;
	case 101:
	case 12:
	case 228:
	case 229:
		o = 0;
		break;
	default:
		return 0;
	}
	if (n < o + 20)
		return 0;
	w->ip = o;
	if ((d[o] >> 4) == 4) {
		ihl = (uint32_t)(d[o] & 0xF) * 4;
		proto = d[o + 9];
		o += ihl;
	} else if ((d[o] >> 4) == 6) {
		if (n < o + 40)
			return 0;
		w->v6 = 1;
		proto = d[o + 6];
		o += 40;
	} else {
		return 0;
	}
	if (proto == 17) { /* UDP: SCTP over UDP (RFC 6951) */
		if (n < o + 8 + 12)
			return 0;
		w->flow = (uint32_t)d[o] << 24 | (uint32_t)d[o + 1] << 16 |
			  (uint32_t)d[o + 2] << 8 | d[o + 3];
		o += 8;
		proto = 132;
	} else if (n >= o + 4) {
		w->flow = (uint32_t)d[o] << 24 | (uint32_t)d[o + 1] << 16 |
			  (uint32_t)d[o + 2] << 8 | d[o + 3];
	}
	w->l4 = o;
	if (proto == 6) {
		if (n < o + 20)
			return 0;
		o += (uint32_t)(d[o + 12] >> 4) * 4;
	} else if (proto == 132) {
		w->sctp = 1;
		o += 12;
	} else {
		return 0;
	}
	if (o >= n)
		return 0;
	w->payload = o;
	return 1;
}

/* First octet of SCTP DATA user data to damage: past chunk headers. */
static uint32_t sctp_data_start(const struct pkt *k, const struct where *w)
{
	uint32_t o = w->payload;

	/* DATA chunk: type 0, 16-octet header; damage after the first */
	if (o + 16 < k->caplen && k->d[o] == 0)
		return o + 16;
	return o;
}

/* Keep the IP length in step after the packet changed size. */
static void fix_ip_len(struct pkt *k, const struct where *w)
{
	uint32_t l;

	if (w->v6) {
		l = k->caplen - w->ip - 40;
		k->d[w->ip + 4] = (uint8_t)(l >> 8);
		k->d[w->ip + 5] = (uint8_t)l;
	} else {
		l = k->caplen - w->ip;
		k->d[w->ip + 2] = (uint8_t)(l >> 8);
		k->d[w->ip + 3] = (uint8_t)l;
	}
	k->len = k->caplen;
}

/* fc: rewrite the function code of PPID 17 messages, fix the CRC32c. */
static void set_fc(int link, struct pkt *k, uint16_t fc)
{
	struct where w;
	uint32_t o, clen, done = 0;
	uint8_t *c;

	if (!locate(link, k, &w) || !w.sctp)
		return;
	for (o = w.payload; o + 16 <= k->caplen; o += (clen + 3) & ~3u) {
		c = k->d + o;
		clen = (uint32_t)c[2] << 8 | c[3];
		if (clen < 4 || o + clen > k->caplen)
			break;
		/* RFC 4960 §3.3.1: DATA, PPID at 12, user data at 16 */
		if (c[0] == 0 && clen >= 20 && c[12] == 0 && c[13] == 0 &&
		    c[14] == 0 && c[15] == 17) {
			c[18] = (uint8_t)(fc >> 8);
			c[19] = (uint8_t)fc;
			done = 1;
		}
	}
	if (!done)
		return;
	/* RFC 4960 §6.8: CRC32c over the packet, checksum field zero */
	memset(k->d + w.l4 + 8, 0, 4);
	crc32c_put_wire(crc32c(k->d + w.l4, k->caplen - w.l4), k->d + w.l4 + 8);
}

/* Move both ends of every connection to other addresses, alike. */
static void readdress(int link, struct pkt *k, uint8_t x)
{
	struct where w;

	if (!locate(link, k, &w))
		return;
	if (w.v6) {
		k->d[w.ip + 8 + 2] ^= x;
		k->d[w.ip + 24 + 2] ^= x;
	} else {
		k->d[w.ip + 12 + 1] ^= x;
		k->d[w.ip + 16 + 1] ^= x;
	}
}

static const char *const keys[] = {
	"MPA ID Req Frame",
	"MPA ID Rep Frame",
	"MPA ID RtR Frame",
};

static void mutate(const char *mode, int link, struct pkt *k)
{
	struct where w;
	uint32_t s, n, i, cut;

	if (!locate(link, k, &w))
		return;
	s = w.sctp && strcmp(mode, "chunks") ? sctp_data_start(k, &w) :
					       w.payload;
	n = k->caplen - s;
	if (!n)
		return;
	if (!strcmp(mode, "flip") || !strcmp(mode, "chunks")) {
		for (i = 0; i < 1 + rnd(4); i++)
			k->d[s + rnd(n)] ^= (uint8_t)(1u << rnd(8));
	} else if (!strcmp(mode, "random")) {
		for (i = 0; i < n; i++)
			k->d[s + i] = (uint8_t)rnd(256);
	} else if (!strcmp(mode, "trunc")) {
		k->caplen = s + rnd(n);
	} else if (!strcmp(mode, "shrink")) {
		if (w.sctp)
			return;
		k->caplen = s + rnd(n);
		fix_ip_len(k, &w);
	} else if (!strcmp(mode, "keys")) {
		const char *key = keys[rnd(3)];
		uint32_t at = rnd(n);

		for (i = 0; i < 16 && at + i < n; i++)
			k->d[s + at + i] = (uint8_t)key[i];
	} else if (!strcmp(mode, "splice")) {
		if (w.sctp)
			return;
		cut = rnd(n);
		if (rnd(2) && k->caplen + 64 < SNAP_MAX) {
			uint32_t add = 1 + rnd(63);

			memmove(k->d + s + cut + add, k->d + s + cut, n - cut);
			for (i = 0; i < add; i++)
				k->d[s + cut + i] = (uint8_t)rnd(256);
			k->caplen += add;
		} else {
			uint32_t del = 1 + rnd(n - cut);

			memmove(k->d + s + cut, k->d + s + cut + del,
				n - cut - del);
			k->caplen -= del;
		}
		fix_ip_len(k, &w);
	}
}

static int read_pkt(FILE *f, struct pkt *k)
{
	if (fread(k->hdr, 1, 16, f) != 16)
		return 0;
	k->caplen = u32(k->hdr + 8);
	k->len = u32(k->hdr + 12);
	if (k->caplen > SNAP_MAX)
		return 0;
	if (fread(k->d, 1, k->caplen, f) != k->caplen)
		return 0;
	return 1;
}

static void write_pkt(FILE *f, struct pkt *k)
{
	if (k->len < k->caplen)
		k->len = k->caplen;
	put32(k->hdr + 8, k->caplen);
	put32(k->hdr + 12, k->len);
	fwrite(k->hdr, 1, 16, f);
	fwrite(k->d, 1, k->caplen, f);
}

/* glue: the next packet's payload appended when it is of one flow. */
static int glue(int link, struct pkt *a, struct pkt *b)
{
	struct where wa, wb;
	uint32_t n;

	if (!locate(link, a, &wa) || !locate(link, b, &wb) || wa.sctp ||
	    wb.sctp || wa.flow != wb.flow)
		return 0;
	n = b->caplen - wb.payload;
	if (a->caplen + n > SNAP_MAX || a->caplen != a->len)
		return 0;
	memcpy(a->d + a->caplen, b->d + wb.payload, n);
	a->caplen += n;
	fix_ip_len(a, &wa);
	return 1;
}

int main(int argc, char **argv)
{
	uint8_t gh[24];
	struct pkt k, next;
	FILE *in, *out;
	int link, have_next;

	if (argc != 5) {
		fprintf(stderr, "usage: pcap_mutate MODE SEED IN OUT\n");
		return 2;
	}
	rng = strtoull(argv[2], NULL, 0) * 0x9E3779B97F4A7C15ull + 1;
	in = fopen(argv[3], "rb");
	out = fopen(argv[4], "wb");
	if (!in || !out || fread(gh, 1, 24, in) != 24) {
		perror("pcap_mutate");
		return 1;
	}
	if (gh[0] == 0xd4 && gh[1] == 0xc3)
		swapped = 0; /* little-endian file on a little-endian host */
	else if (gh[0] == 0xa1 && gh[1] == 0xb2)
		swapped = 1;
	else if (gh[0] == 0x4d && gh[1] == 0x3c)
		swapped = 0; /* nanosecond, little-endian */
	else {
		fprintf(stderr, "pcap_mutate: %s: not a pcap file\n", argv[3]);
		return 1;
	}
	link = (int)u32(gh + 20);
	fwrite(gh, 1, 24, out);
	k.d = malloc(SNAP_MAX * 2);
	next.d = malloc(SNAP_MAX * 2);
	if (!k.d || !next.d)
		return 1;
	have_next = read_pkt(in, &next);
	while (have_next) {
		struct pkt t = k;

		k = next;
		next = t;
		have_next = read_pkt(in, &next);
		if (!strcmp(argv[1], "fc"))
			set_fc(link, &k, (uint16_t)strtoul(argv[2], NULL, 0));
		else if (!strcmp(argv[1], "glue"))
			while (have_next && rnd(2) && glue(link, &k, &next))
				have_next = read_pkt(in, &next);
		else
			mutate(argv[1], link, &k);
		if (strcmp(argv[1], "fc"))
			readdress(link, &k,
				  (uint8_t)(strtoul(argv[2], NULL, 0) | 1));
		write_pkt(out, &k);
	}
	fclose(in);
	if (fclose(out)) {
		perror("pcap_mutate");
		return 1;
	}
	free(k.d);
	free(next.d);
	return 0;
}
