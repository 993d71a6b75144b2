/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The SCTP side of the decoder (cli/dissect_sctp*.c) through
 * decode_packet(): IPv4 and IPv6, SCTP over UDP (RFC 6951) and raw, the
 * CRC32c (RFC 4960 Appendix B), the chunk walk, INIT with the Adaptation
 * Layer Indication (RFC 5061, RFC 5043 §5.1), DATA and I-DATA
 * reassembly with its cap, retransmissions, PPID 17 and 16 down to
 * RDMAP, unknown PPIDs, the RFC 5043 §6 sequence check, and damage:
 * bad CRC, a truncated chunk, a chunk length past the packet, lost
 * fragments.  Packets are built here byte by byte with the wire/
 * builders only for the DDP payloads.
 */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "crc32c.h"
#include "decode.h"
#include "dissect_sctp.h"
#include "output.h"
#include "rdmap.h"
#include "sctp_ss.h"

#define PKT_MAX 4096

struct pkt {
	uint8_t b[PKT_MAX];
	size_t ip;   /* start of the IP header */
	size_t sctp; /* start of the SCTP common header */
	size_t len;
	bool v6, udp;
};

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put32(uint8_t *p, uint32_t v)
{
	put16(p, (uint16_t)(v >> 16));
	put16(p + 2, (uint16_t)v);
}

/* IPv4 or IPv6, UDP to port udp_port or raw, SCTP 5000 -> 6000. */
static void pkt_start(struct pkt *k, bool v6, bool udp, uint16_t udp_port,
		      bool reverse, uint32_t vtag)
{
	memset(k, 0, sizeof(*k));
	k->v6 = v6;
	k->udp = udp;
	k->sctp = (v6 ? 40 : 20) + (udp ? 8 : 0);
	if (udp) {
		put16(k->b + k->sctp - 8, udp_port);
		put16(k->b + k->sctp - 6, udp_port);
	}
	put16(k->b + k->sctp, reverse ? 6000 : 5000);
	put16(k->b + k->sctp + 2, reverse ? 5000 : 6000);
	put32(k->b + k->sctp + 4, vtag);
	k->len = k->sctp + 12;
	/* addresses: 10.0.0.1 / 10.0.0.2, fe80::1 / fe80::2 */
	if (v6) {
		k->b[0] = 0x60;
		k->b[6] = udp ? 17 : 132;
		k->b[7] = 64;
		k->b[8] = 0xfe;
		k->b[9] = 0x80;
		k->b[23] = reverse ? 2 : 1;
		k->b[24] = 0xfe;
		k->b[25] = 0x80;
		k->b[39] = reverse ? 1 : 2;
	} else {
		k->b[0] = 0x45;
		k->b[8] = 64;
		k->b[9] = udp ? 17 : 132;
		put32(k->b + 12, reverse ? 0x0a000002 : 0x0a000001);
		put32(k->b + 16, reverse ? 0x0a000001 : 0x0a000002);
	}
}

/* Append a chunk with its body, padded to 4 octets. */
static void chunk(struct pkt *k, uint8_t type, uint8_t flags,
		  const uint8_t *body, size_t blen)
{
	size_t clen = 4 + blen;

	ck_assert_uint_lt(k->len + clen + 3, PKT_MAX);
	k->b[k->len] = type;
	k->b[k->len + 1] = flags;
	put16(k->b + k->len + 2, (uint16_t)clen);
	if (blen)
		memcpy(k->b + k->len + 4, body, blen);
	k->len += (clen + 3) & ~(size_t)3;
}

/* DATA (RFC 4960 §3.3.1) with flags U/B/E. */
static void data(struct pkt *k, uint8_t flags, uint32_t tsn, uint16_t stream,
		 uint32_t ppid, const uint8_t *p, size_t n)
{
	uint8_t b[PKT_MAX];

	put32(b, tsn);
	put16(b + 4, stream);
	put16(b + 6, 0);
	put32(b + 8, ppid);
	memcpy(b + 12, p, n);
	chunk(k, 0, flags, b, 12 + n);
}

/* Lengths, checksums and the CRC32c; then decode it. */
static void pkt_finish(struct pkt *k)
{
	size_t l4 = k->len - k->sctp + (k->udp ? 8 : 0);

	if (k->v6) {
		put16(k->b + 4, (uint16_t)l4);
	} else {
		put16(k->b + 2, (uint16_t)k->len);
	}
	if (k->udp)
		put16(k->b + k->sctp - 4, (uint16_t)l4);
	put32(k->b + k->sctp + 8, 0);
	crc32c_put_wire(crc32c(k->b + k->sctp, k->len - k->sctp),
			k->b + k->sctp + 8);
}

struct run {
	struct decode *dc;
	FILE *fp;
	char *text;
	size_t len;
	struct out_sink out;
	int status;
};

static void run_start(struct run *r)
{
	memset(r, 0, sizeof(*r));
	r->fp = open_memstream(&r->text, &r->len);
	ck_assert_ptr_nonnull(r->fp);
	r->out.ops = &output_json;
	r->out.fp = r->fp;
	r->dc = decode_new(&r->out, "test");
	ck_assert_ptr_nonnull(r->dc);
}

static void feed(struct run *r, const struct pkt *k)
{
	uint8_t *copy = malloc(k->len);

	/* an exact-size copy: ASan sees any read past the packet */
	ck_assert_ptr_nonnull(copy);
	memcpy(copy, k->b, k->len);
	decode_packet(r->dc, DECODE_LINK_RAW, copy, k->len, k->len);
	free(copy);
}

static void run_end(struct run *r)
{
	r->status = decode_finish(r->dc);
	decode_free(r->dc);
	fclose(r->fp);
}

static unsigned int count(const char *text, const char *s)
{
	unsigned int n = 0;
	const char *p = text;

	while ((p = strstr(p, s))) {
		n++;
		p += strlen(s);
	}
	return n;
}

#define HAS(r, s) \
	ck_assert_msg(strstr((r)->text, s), "no %s in:\n%s", s, (r)->text)
#define HASNT(r, s) \
	ck_assert_msg(!strstr((r)->text, s), "%s in:\n%s", s, (r)->text)

static const char ulp_pd[] = "hello";

/* PPID 17: an Enhanced Initiate (RFC 6581 §7), IRD 16 ORD 8. */
static size_t enh_initiate(uint8_t *b, uint16_t ssn)
{
	struct sctp_ss_msg m;
	size_t n;

	memset(&m, 0, sizeof(m));
	m.ssn = ssn;
	m.fc = SCTP_SS_ENH_INITIATE;
	m.enh.ird = 16;
	m.enh.ord = 8;
	m.ulp_pd = (const uint8_t *)ulp_pd;
	m.ulp_pd_len = sizeof(ulp_pd) - 1;
	ck_assert_int_eq(sctp_ss_build(&m, b, SCTP_SS_MSG_MAX, &n), WIRE_OK);
	return n;
}

/* PPID 16: DDP-SSN, then an RDMAP Send of text (RFC 5043 §5.2.2). */
static size_t ddp_send(uint8_t *b, uint16_t ssn, const char *text)
{
	struct rdmap_msg m;
	size_t h;

	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_SEND;
	m.rv = m.ddp.dv = 1;
	m.ddp.last = true;
	m.ddp.msn = 1;
	put16(b, ssn);
	ck_assert_int_eq(rdmap_hdr_build(&m, b + 2, 64, &h), WIRE_OK);
	memcpy(b + 2 + h, text, strlen(text));
	return 2 + h + strlen(text);
}

/* One packet per case: IPv4/IPv6 x UDP/raw. */
START_TEST(t_session_control)
{
	bool v6 = _i & 1, udp = _i & 2;
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0);

	run_start(&r);
	pkt_start(&k, v6, udp, SCTP_UDP_PORT_DEFAULT, false, 7);
	data(&k, 7, 100, 3, SCTP_PPID_DDP_SESSION_CTL, m, n);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 0);
	HAS(&r,
	    udp ? "\"encap\":\"udp\",\"udp_a\":9899" : "\"encap\":\"none\"");
	HAS(&r, v6 ? "\"a\":\"[fe80::1]:5000\"" : "\"a\":\"10.0.0.1:5000\"");
	HAS(&r, "\"crc\":\"good\"");
	HAS(&r, "\"name\":\"DATA\",\"flags\":\"0x07\"");
	HAS(&r, "\"tsn\":100,\"stream\":3,\"ssn\":0,\"ppid\":17");
	HAS(&r, "\"u\":1,\"b\":1,\"e\":1");
	HAS(&r, "\"function_code\":5,\"name\":\"Enhanced Initiate\"");
	HAS(&r, "\"pd_length\":9,\"private_data\":\"0010000868656c6c6f\"");
	HAS(&r, "\"ird\":16,\"ord\":8");
	HAS(&r, "\"ulp_private_data\":\"68656c6c6f\"");
	HAS(&r, "\"sctp_packets\":1,\"associations\":1,\"session_control\":1");
	HASNT(&r, "\"bad\":true");
	free(r.text);
}
END_TEST

/* A session: Initiate, Accept, a Send each way, and one illegal Send. */
START_TEST(t_ddp_segments)
{
	uint8_t m[SCTP_SS_MSG_MAX];
	struct sctp_ss_msg acc;
	struct pkt k;
	struct run r;
	size_t n;

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	n = enh_initiate(m, 0);
	data(&k, 7, 1, 0, 17, m, n);
	n = ddp_send(m, 1, "from a");
	data(&k, 7, 2, 0, 16, m, n);
	pkt_finish(&k);
	feed(&r, &k);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, true, 2);
	/* RFC 5043 §6.2: the passive side's segment before its Accept */
	n = ddp_send(m, 0, "early");
	data(&k, 7, 49, 0, 16, m, n);
	memset(&acc, 0, sizeof(acc));
	acc.fc = SCTP_SS_ENH_ACCEPT;
	acc.enh.ird = 8;
	acc.enh.ord = 16;
	ck_assert_int_eq(sctp_ss_build(&acc, m, sizeof(m), &n), WIRE_OK);
	data(&k, 7, 50, 0, 17, m, n);
	n = ddp_send(m, 1, "from b");
	data(&k, 7, 51, 0, 16, m, n);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 1);
	HAS(&r, "\"ddp_ssn\":1,\"ddp\":{\"t\":0,\"l\":1");
	HAS(&r,
	    "\"rdmap\":{\"rv\":1,\"rsvd\":0,\"opcode\":3,\"name\":\"Send\"}");
	HAS(&r, "\"payload\":\"66726f6d2062\"");
	HAS(&r, "\"sequence_problem\":\"no legal sequence");
	ck_assert_uint_eq(count(r.text, "\"sequence_problem\""), 1);
	ck_assert_uint_eq(count(r.text, "\"type\":\"sctp_message\""), 5);
	HAS(&r, "\"ddp_segments\":3");
	free(r.text);
}
END_TEST

/* RFC 4960 §6.8: a packet with a bad CRC32c is reported, not decoded. */
START_TEST(t_bad_crc)
{
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0);

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	data(&k, 7, 1, 0, 17, m, n);
	pkt_finish(&k);
	k.b[k.len - 1] ^= 1;
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 1);
	HAS(&r, "\"crc\":\"bad\"");
	HAS(&r, "\"crc_calc\":");
	HASNT(&r, "sctp_chunk");
	HAS(&r, "\"sctp_crc_bad\":1");
	free(r.text);
}
END_TEST

/*
 * A UDP GSO send captured on the sender before the kernel cut it: three
 * packets in one datagram, two of one size and a shorter one, each
 * decoded with a good CRC32c, as the wire carries them.
 */
START_TEST(t_gso)
{
	static const char *const text[] = { "first!", "second", "3" };
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k, one;
	struct run r;
	size_t n, i, l4;

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	k.len = k.sctp;
	for (i = 0; i < 3; i++) {
		pkt_start(&one, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
		n = ddp_send(m, (uint16_t)i, text[i]);
		data(&one, 7, (uint32_t)i + 1, 0, 16, m, n);
		pkt_finish(&one);
		memcpy(k.b + k.len, one.b + one.sctp, one.len - one.sctp);
		k.len += one.len - one.sctp;
	}
	l4 = k.len - k.sctp + 8;
	put16(k.b + 2, (uint16_t)k.len);
	put16(k.b + k.sctp - 4, (uint16_t)l4);
	feed(&r, &k);
	run_end(&r);
	HASNT(&r, "\"crc\":\"bad\"");
	ck_assert_uint_eq(count(r.text, "\"type\":\"sctp_message\""), 3);
	HAS(&r, "\"payload\":\"7365636f6e64\"");
	HAS(&r, "\"ddp_segments\":3");
	free(r.text);
}
END_TEST

/* Damaged chunk walks (RFC 4960 §3.2): each reported as malformed. */
START_TEST(t_damaged_chunks)
{
	static const struct {
		const char *what;
		size_t cut;  /* octets removed from the end */
		int set_len; /* >= 0: the first chunk's length field */
		const char *expect;
	} v[] = {
		{ "4 octets of a chunk header cut to 2", 2, -1,
		  "2 octets after the last chunk" },
		{ "chunk length past the packet", 0, 400,
		  "length 400 past the packet" },
		{ "chunk length below its header", 0, 2,
		  "length 2 below its header" },
		{ "DATA shorter than its fields", 0, 8,
		  "DATA: chunk shorter than its fixed fields" },
		{ "DATA without user data", 0, 16, "no user data" },
	};
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0);

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	data(&k, 7, 1, 0, 17, m, n);
	if (v[_i].cut) {
		/* a HEARTBEAT header cut short */
		k.b[k.len] = 4;
		k.len += 4 - v[_i].cut;
	}
	if (v[_i].set_len >= 0)
		put16(k.b + k.sctp + 14, (uint16_t)v[_i].set_len);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_msg(r.status == 1, "%s: exit %d", v[_i].what, r.status);
	ck_assert_msg(strstr(r.text, "\"event\":\"malformed\""), "%s: %s",
		      v[_i].what, r.text);
	ck_assert_msg(strstr(r.text, v[_i].expect), "%s: no '%s' in %s",
		      v[_i].what, v[_i].expect, r.text);
	free(r.text);
}
END_TEST

/* Unknown PPIDs are named and shown, not decoded and not bad. */
START_TEST(t_other_ppid)
{
	static const uint8_t hello[] = "webrtc";
	struct pkt k;
	struct run r;

	run_start(&r);
	pkt_start(&k, false, false, 0, false, 1);
	data(&k, 3, 9, 1, 51, hello, 6);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 0);
	HAS(&r, "\"ppid\":51,\"ppid_name\":\"WebRTC String\"");
	HAS(&r, "\"data\":\"776562727463\"");
	HASNT(&r, "\"bad\":true");
	free(r.text);
}
END_TEST

/* RFC 4960 §6.9: fragments B, -, E in three packets, in TSN order;
 * loop 1 loses the middle one, loop 2 retransmits the first. */
START_TEST(t_fragments)
{
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0), a = 5, b = 10;

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	data(&k, 4 | 2, 10, 2, 17, m, a);
	pkt_finish(&k);
	feed(&r, &k);
	if (_i == 2)
		feed(&r, &k);
	if (_i != 1) {
		pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
		data(&k, 4, 11, 2, 17, m + a, b - a);
		pkt_finish(&k);
		feed(&r, &k);
	}
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	data(&k, 4 | 1, 12, 2, 17, m + b, n - b);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	if (_i == 1) {
		ck_assert_int_eq(r.status, 1);
		HAS(&r, "fragment TSN 12 without the fragments before it");
		HAS(&r, "message from TSN 10 incomplete");
		HASNT(&r, "sctp_message");
		free(r.text);
		return;
	}
	ck_assert_int_eq(r.status, 0);
	HAS(&r, "\"tsn\":10,\"fragments\":3,\"unordered\":true");
	HAS(&r, "\"name\":\"Enhanced Initiate\"");
	ck_assert_uint_eq(count(r.text, "\"type\":\"sctp_message\""), 1);
	if (_i == 2)
		ck_assert_uint_eq(count(r.text, "\"retransmission\":true"), 1);
	free(r.text);
}
END_TEST

/* The reassembly cap: a message past SCTP_REASM_MAX is dropped. */
START_TEST(t_reassembly_cap)
{
	static uint8_t big[1400];
	struct pkt k;
	struct run r;
	uint32_t tsn = 1;
	size_t total = 0;

	run_start(&r);
	while (total <= SCTP_REASM_MAX) {
		pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
		data(&k, tsn == 1 ? 2 : 0, tsn, 0, 16, big, sizeof(big));
		pkt_finish(&k);
		feed(&r, &k);
		tsn++;
		total += sizeof(big);
	}
	run_end(&r);
	ck_assert_int_eq(r.status, 1);
	HAS(&r, "longer than 262144 octets; dropped");
	HASNT(&r, "sctp_message");
	free(r.text);
}
END_TEST

/* RFC 8260 §2.1: I-DATA fragments by MID and FSN. */
START_TEST(t_idata)
{
	uint8_t m[SCTP_SS_MSG_MAX], b[64];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0);

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	put32(b, 20);
	put16(b + 4, 4);
	put16(b + 6, 0);
	put32(b + 8, 77);  /* MID */
	put32(b + 12, 17); /* PPID in the first fragment */
	memcpy(b + 16, m, 6);
	chunk(&k, 64, 2, b, 16 + 6);
	put32(b, 21);
	put32(b + 12, 1); /* FSN 1 */
	memcpy(b + 16, m + 6, n - 6);
	chunk(&k, 64, 1, b, 16 + n - 6);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 0);
	HAS(&r, "\"name\":\"I-DATA\"");
	HAS(&r, "\"mid\":77,\"ppid\":17");
	HAS(&r, "\"mid\":77,\"fsn\":1");
	HAS(&r, "\"fragments\":2");
	HAS(&r, "\"name\":\"Enhanced Initiate\"");
	free(r.text);
}
END_TEST

/* RFC 5061 §4.2.7 in INIT; a parameter past the chunk is malformed. */
START_TEST(t_init)
{
	uint8_t b[64];
	struct pkt k;
	struct run r;

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 0);
	put32(b, 0x11223344);
	put32(b + 4, 65536);
	put16(b + 8, 10);
	put16(b + 10, 12);
	put32(b + 12, 1);
	put16(b + 16, 0x8008); /* Supported Extensions, 5 octets: padded */
	put16(b + 18, 5);
	b[20] = 64;
	memset(b + 21, 0, 3);
	put16(b + 24, SCTP_ADAPT_IND_PARAM);
	put16(b + 26, 8);
	put32(b + 28, SCTP_ADAPT_IND_DDP);
	chunk(&k, 1, 0, b, 32);
	pkt_finish(&k);
	feed(&r, &k);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, true, 0x11223344);
	put16(b + 18, 60); /* past the chunk */
	chunk(&k, 2, 0, b, 32);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 1);
	HAS(&r, "\"name\":\"INIT\",\"flags\":\"0x00\",\"length\":36,"
		"\"init_tag\":\"0x11223344\",\"a_rwnd\":65536,\"os\":10,"
		"\"mis\":12,\"initial_tsn\":1,\"adaptation\":\"0x00000001\"");
	HAS(&r, "\"dir\":\"i2r\"");
	HAS(&r, "INIT ACK: parameter length past the chunk");
	free(r.text);
}
END_TEST

/* The encapsulation port: 9899 by default, another when set. */
START_TEST(t_udp_port)
{
	uint8_t m[SCTP_SS_MSG_MAX];
	struct pkt k;
	struct run r;
	size_t n = enh_initiate(m, 0);

	run_start(&r);
	if (_i)
		decode_set_sctp_udp_port(r.dc, 4444);
	pkt_start(&k, false, true, 4444, false, 1);
	data(&k, 7, 1, 0, 17, m, n);
	pkt_finish(&k);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 0);
	if (_i)
		HAS(&r, "\"sctp_packets\":1");
	else
		HASNT(&r, "sctp");
	free(r.text);
}
END_TEST

/* A UDP payload shorter than the common header; a bad UDP length. */
START_TEST(t_short)
{
	struct pkt k;
	struct run r;

	run_start(&r);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	k.len = k.sctp + 6;
	pkt_finish(&k);
	feed(&r, &k);
	pkt_start(&k, false, true, SCTP_UDP_PORT_DEFAULT, false, 1);
	pkt_finish(&k);
	put16(k.b + k.sctp - 4, 4000);
	feed(&r, &k);
	run_end(&r);
	ck_assert_int_eq(r.status, 1);
	HAS(&r, "shorter than its common header");
	HAS(&r, "bad UDP length 4000");
	free(r.text);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("dissect_sctp");
	SRunner *sr;
	int failed;

	add_loop_tcase(s, "session_control", t_session_control, 4);
	add_tcase(s, "ddp_segments", t_ddp_segments);
	add_tcase(s, "bad_crc", t_bad_crc);
	add_tcase(s, "gso", t_gso);
	add_loop_tcase(s, "damaged_chunks", t_damaged_chunks, 5);
	add_tcase(s, "other_ppid", t_other_ppid);
	add_loop_tcase(s, "fragments", t_fragments, 3);
	add_tcase(s, "reassembly_cap", t_reassembly_cap);
	add_tcase(s, "idata", t_idata);
	add_tcase(s, "init", t_init);
	add_loop_tcase(s, "udp_port", t_udp_port, 2);
	add_tcase(s, "short", t_short);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
