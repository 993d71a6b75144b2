/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl sample --transport sctp: a synthetic DDP-over-SCTP session
 * (RFC 5043 with the enhanced session control of RFC 6581 §7) in SCTP
 * over UDP (RFC 6951), as two iwcm daemons on usrsctp run it:
 *
 *	initiator  192.0.2.1  SCTP port 49152  UDP port 9899
 *	responder  192.0.2.2  SCTP port 7174   UDP port 9899
 *
 * INIT and INIT ACK with the DDP Adaptation Layer Indication (RFC 5043
 * §5.1), COOKIE ECHO/ACK, Enhanced Initiate and Accept on stream 1
 * (wire/negotiate.c, the daemon's default policies, responder IRD/ORD
 * 16/8), DDP segments one per unfragmented unordered DATA chunk (Send,
 * a multi-segment Write, Read Request and Response, a Write to an
 * invalidated STag and the responder's RDMAP Terminate), the session's
 * Terminate both ways and SHUTDOWN.  Every packet carries a valid
 * CRC32c (RFC 4960 Appendix B) unless --corrupt names it.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crc32c.h"
#include "ddp.h"
#include "iwcmctl.h"
#include "negotiate.h"
#include "pcapw.h"
#include "rdmap.h"
#include "sample.h"
#include "sctp_ss.h"
#include "wire_err.h"

#define I2R 0
#define R2I 1

#define UDP_PORT 9899 /* RFC 6951 §5.1 */
#define TAG_I 0x1a2b3c4du
#define TAG_R 0x5e6f7081u
#define TSN_I 1000u
#define TSN_R 5000u
#define A_RWND 131072u
#define N_STREAMS 16
#define STREAM 1

#define STAG_WRITE 0x00002201u
#define TO_WRITE 0x00007f0000200000ull
#define STAG_SINK 0x00001101u
#define TO_SINK 0x00007f0000100000ull
#define STAG_SRC 0x00002202u
#define TO_SRC 0x00007f0000300000ull
#define STAG_INV 0x00002203u
#define TO_INV 0x00007f0000400000ull
#define WRITE_LEN 3000
#define READ_LEN 2000
#define TERM_WRITE_LEN 16

#define PKT_MAX 2048
#define SEG_MAX 1400 /* largest DDP segment: fits a 1500-octet path */

static const char init_pd[] = "iwcm sample: Enhanced Initiate";
static const char send_text[] = "iwcm sample: Send over SCTP";
static const uint8_t cookie[] = "iwcm sample state cookie";

struct ssample {
	const struct sample_opts *o;
	struct pcapw *w;
	unsigned long n_pkts;
	uint8_t pkt[PKT_MAX];
	size_t len;
	int from;
	uint32_t next_tsn[2];
	uint16_t ddp_ssn[2];
	bool owes_sack[2];	      /* the peer's DATA not yet acked */
	uint32_t msn[2][3];	      /* RFC 5041 §4.3: next MSN per queue */
	uint8_t last_seg[2][SEG_MAX]; /* last DDP segment each way */
	size_t last_seg_len[2];
	uint8_t payload[WRITE_LEN];
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

/* RFC 4960 §3.1: a new packet from side from with the peer's tag. */
static void pkt_start(struct ssample *s, int from, uint32_t vtag)
{
	s->from = from;
	put16(s->pkt, from == I2R ? SAMPLE_PORT_I : SAMPLE_PORT_R);
	put16(s->pkt + 2, from == I2R ? SAMPLE_PORT_R : SAMPLE_PORT_I);
	put32(s->pkt + 4, vtag);
	put32(s->pkt + 8, 0);
	s->len = 12;
}

/* RFC 4960 §3.2: a chunk, padded to 4 octets; body may be NULL (zeros). */
static int chunk(struct ssample *s, uint8_t type, uint8_t flags,
		 const uint8_t *body, size_t blen)
{
	size_t clen = 4 + blen, pad = (4 - clen % 4) % 4;

	if (clen > 0xffff || s->len + clen + pad > sizeof(s->pkt)) {
		fprintf(stderr, "iwcmctl sample: SCTP packet too large\n");
		return -1;
	}
	s->pkt[s->len] = type;
	s->pkt[s->len + 1] = flags;
	put16(s->pkt + s->len + 2, (uint16_t)clen);
	if (blen)
		memcpy(s->pkt + s->len + 4, body, blen);
	memset(s->pkt + s->len + clen, 0, pad);
	s->len += clen + pad;
	return 0;
}

/* RFC 4960 §3.3.4: SACK of all the peer sent, no gaps, if owed. */
static int sack_if_owed(struct ssample *s)
{
	uint8_t b[12];

	if (!s->owes_sack[s->from])
		return 0;
	s->owes_sack[s->from] = false;
	put32(b, s->next_tsn[!s->from] - 1);
	put32(b + 4, A_RWND);
	put32(b + 8, 0); /* no gap blocks, no duplicates */
	return chunk(s, 3, 0, b, sizeof(b));
}

/* RFC 4960 Appendix B: the CRC32c, then the packet in a UDP datagram. */
static int pkt_send(struct ssample *s)
{
	uint32_t crc = crc32c(s->pkt, s->len);

	crc32c_put_wire(crc, s->pkt + 8);
	if (s->o->corrupt >= 0 && (unsigned long)s->o->corrupt == s->n_pkts)
		s->pkt[s->len - 1] ^= 0xff;
	if (s->o->verbose)
		fprintf(stderr, "packet %lu %s %zu%s\n", s->n_pkts,
			s->from == I2R ? "i2r" : "r2i", s->len,
			(long)s->n_pkts == s->o->corrupt ? " corrupted" : "");
	s->n_pkts++;
	return pcapw_udp(s->w, s->from == I2R ? PCAPW_CLIENT : PCAPW_SERVER,
			 s->pkt, s->len);
}

/* RFC 4960 §3.3.2/§3.3.3 with RFC 5061 §4.2.7's indication for DDP. */
static int init_chunk(struct ssample *s, uint8_t type, uint32_t tag,
		      uint32_t tsn)
{
	uint8_t b[16 + 8 + 4 + sizeof(cookie) + 4];
	size_t n = 16;

	put32(b, tag);
	put32(b + 4, A_RWND);
	put16(b + 8, N_STREAMS);
	put16(b + 10, N_STREAMS);
	put32(b + 12, tsn);
	if (type == 2) {
		/* State Cookie (§3.3.3.1), its length unpadded */
		put16(b + n, 7);
		put16(b + n + 2, (uint16_t)(4 + sizeof(cookie)));
		memcpy(b + n + 4, cookie, sizeof(cookie));
		n += 4 + sizeof(cookie);
		while (n % 4)
			b[n++] = 0;
	}
	put16(b + n, SCTP_ADAPT_IND_PARAM);
	put16(b + n + 2, 8);
	put32(b + n + 4, SCTP_ADAPT_IND_DDP);
	n += 8;
	return chunk(s, type, 0, b, n);
}

/* One user message in one DATA chunk: U=1 B=1 E=1 (RFC 5043 §5.2). */
static int data_msg(struct ssample *s, int from, uint32_t ppid,
		    const uint8_t *msg, size_t len)
{
	uint8_t b[12 + 2 + SEG_MAX + SCTP_SS_MSG_MAX];

	if (len > sizeof(b) - 12)
		return -1;
	pkt_start(s, from, from == I2R ? TAG_R : TAG_I);
	if (sack_if_owed(s) < 0)
		return -1;
	put32(b, s->next_tsn[from]++);
	put16(b + 4, STREAM);
	put16(b + 6, 0); /* SSN: unused for unordered data */
	put32(b + 8, ppid);
	memcpy(b + 12, msg, len);
	if (chunk(s, 0, 0x07, b, 12 + len) < 0)
		return -1;
	s->owes_sack[!from] = true;
	return pkt_send(s);
}

/*
 * A session control message (RFC 5043 §5.2.3) with the next DDP-SSN,
 * built into b and parsed back into *in as the peer sees it.
 */
static int ss_msg(struct ssample *s, int from, struct sctp_ss_msg *m,
		  uint8_t b[SCTP_SS_MSG_MAX], struct sctp_ss_msg *in)
{
	enum wire_err err;
	size_t n, used;

	m->ssn = s->ddp_ssn[from]++;
	err = sctp_ss_build(m, b, SCTP_SS_MSG_MAX, &n);
	if (err == WIRE_OK)
		err = sctp_ss_parse(b, n, in, &used);
	if (err != WIRE_OK) {
		fprintf(stderr, "iwcmctl sample: session control: %s\n",
			wire_strerror(err));
		return -1;
	}
	return data_msg(s, from, SCTP_PPID_DDP_SESSION_CTL, b, n);
}

/* A DDP segment (RFC 5043 §5.2.2): DDP-SSN, then the segment. */
static int seg_msg(struct ssample *s, int from, const uint8_t *seg, size_t len)
{
	uint8_t b[2 + SEG_MAX];

	put16(b, s->ddp_ssn[from]++);
	memcpy(b + 2, seg, len);
	memcpy(s->last_seg[from], seg, len);
	s->last_seg_len[from] = len;
	return data_msg(s, from, SCTP_PPID_DDP_SEGMENT, b, 2 + len);
}

/* One RDMAP message as DDP segments of at most SEG_MAX (RFC 5041 §5.2). */
static int rdmap_send(struct ssample *s, int from, struct rdmap_msg *m,
		      const uint8_t *data, size_t data_len, uint64_t to)
{
	uint8_t seg[SEG_MAX];
	size_t off = 0, n, hlen;
	enum wire_err err;
	int qn = rdmap_opcode_qn(m->opcode);

	m->rv = m->ddp.dv = DDP_VERSION_IETF;
	m->ddp.tagged = rdmap_opcode_tagged(m->opcode) == 1;
	if (!m->ddp.tagged) {
		if (qn < 0 || qn > 2)
			return -1;
		m->ddp.qn = (uint32_t)qn;
		m->ddp.msn = s->msn[from][qn]++;
	}
	do {
		m->ddp.last = true;
		if (m->ddp.tagged)
			m->ddp.to = to + off;
		else
			m->ddp.mo = (uint32_t)off;
		err = rdmap_hdr_build(m, seg, sizeof(seg), &hlen);
		if (err != WIRE_OK)
			break;
		n = data_len - off;
		if (n > SEG_MAX - hlen)
			n = SEG_MAX - hlen;
		if (off + n < data_len) {
			m->ddp.last = false;
			err = rdmap_hdr_build(m, seg, sizeof(seg), &hlen);
			if (err != WIRE_OK)
				break;
		}
		if (n)
			memcpy(seg + hlen, data + off, n);
		if (seg_msg(s, from, seg, hlen + n) < 0)
			return -1;
		off += n;
	} while (off < data_len);
	if (err != WIRE_OK) {
		fprintf(stderr, "iwcmctl sample: rdmap_hdr_build: %s\n",
			wire_strerror(err));
		return -1;
	}
	return 0;
}

static void fill(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(0x21 + (i + seed) % 94);
}

/* The association and the session's control messages. */
static int setup(struct ssample *s)
{
	struct sctp_ss_msg init, init_in, acc, acc_in;
	uint8_t b[2][SCTP_SS_MSG_MAX];
	struct neg_policy pi, pr;
	struct neg_result res;

	/* RFC 4960 §5.1: INIT with verification tag 0. */
	pkt_start(s, I2R, 0);
	if (init_chunk(s, 1, TAG_I, TSN_I) < 0 || pkt_send(s) < 0)
		return -1;
	pkt_start(s, R2I, TAG_I);
	if (init_chunk(s, 2, TAG_R, TSN_R) < 0 || pkt_send(s) < 0)
		return -1;
	pkt_start(s, I2R, TAG_R);
	if (chunk(s, 10, 0, cookie, sizeof(cookie)) < 0 || pkt_send(s) < 0)
		return -1;
	pkt_start(s, R2I, TAG_I);
	if (chunk(s, 11, 0, NULL, 0) < 0 || pkt_send(s) < 0)
		return -1;

	/* RFC 6581 §7: Enhanced Initiate and Accept, the daemon's way. */
	neg_policy_init(&pi, NEG_INITIATOR);
	neg_policy_init(&pr, NEG_RESPONDER);
	pr.ird = 16;
	pr.ord = 8;
	neg_sctp_initiate(&pi, &init);
	init.ulp_pd = (const uint8_t *)init_pd;
	init.ulp_pd_len = (uint16_t)strlen(init_pd);
	if (ss_msg(s, I2R, &init, b[0], &init_in) < 0)
		return -1;
	if (neg_sctp_respond(&init_in, &pr, false, &acc, &res) !=
	    NEG_A_ACCEPT) {
		fprintf(stderr, "iwcmctl sample: responder: %s\n",
			neg_reason_name(res.reason));
		return -1;
	}
	if (ss_msg(s, R2I, &acc, b[1], &acc_in) < 0)
		return -1;
	if (neg_sctp_reply(&init, &acc_in, &pi, &res) != NEG_A_ACCEPT) {
		fprintf(stderr, "iwcmctl sample: initiator: %s\n",
			neg_reason_name(res.reason));
		return -1;
	}
	return 0;
}

/* RFC 5040 §5: Send, Write, Read, a Write to an invalid STag, Terminate. */
static int traffic(struct ssample *s)
{
	struct rdmap_msg m;

	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_SEND;
	if (rdmap_send(s, I2R, &m, (const uint8_t *)send_text,
		       strlen(send_text), 0) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_WRITE;
	m.ddp.stag = STAG_WRITE;
	fill(s->payload, WRITE_LEN, STAG_WRITE);
	if (rdmap_send(s, I2R, &m, s->payload, WRITE_LEN, TO_WRITE) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_READ_REQ;
	m.u.read_req.sink_stag = STAG_SINK;
	m.u.read_req.sink_to = TO_SINK;
	m.u.read_req.size = READ_LEN;
	m.u.read_req.src_stag = STAG_SRC;
	m.u.read_req.src_to = TO_SRC;
	if (rdmap_send(s, I2R, &m, NULL, 0, 0) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_READ_RESP;
	m.ddp.stag = STAG_SINK;
	fill(s->payload, READ_LEN, STAG_SINK);
	if (rdmap_send(s, R2I, &m, s->payload, READ_LEN, TO_SINK) < 0)
		return -1;
	/* RFC 5040 §4.8: a Write to an invalidated STag is terminated. */
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_WRITE;
	m.ddp.stag = STAG_INV;
	fill(s->payload, TERM_WRITE_LEN, STAG_INV);
	if (rdmap_send(s, I2R, &m, s->payload, TERM_WRITE_LEN, TO_INV) < 0)
		return -1;
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	rdmap_term_fill(&m.u.term, RDMAP_TERM_LAYER_RDMAP,
			RDMAP_ETYPE_REMOTE_PROT, RDMAP_ECODE_INVALID_STAG,
			s->last_seg[I2R], s->last_seg_len[I2R]);
	return rdmap_send(s, R2I, &m, NULL, 0, 0);
}

/* RFC 5043 §6.2: each side's Terminate; RFC 4960 §9.2: SHUTDOWN. */
static int teardown(struct ssample *s)
{
	struct sctp_ss_msg t, in;
	uint8_t b[4], m[SCTP_SS_MSG_MAX];

	memset(&t, 0, sizeof(t));
	t.fc = SCTP_SS_TERMINATE;
	if (ss_msg(s, R2I, &t, m, &in) < 0)
		return -1;
	memset(&t, 0, sizeof(t));
	t.fc = SCTP_SS_TERMINATE;
	if (ss_msg(s, I2R, &t, m, &in) < 0)
		return -1;
	pkt_start(s, R2I, TAG_I);
	s->owes_sack[R2I] = false; /* SHUTDOWN carries the ack */
	put32(b, s->next_tsn[I2R] - 1);
	if (chunk(s, 7, 0, b, 4) < 0 || pkt_send(s) < 0)
		return -1;
	pkt_start(s, I2R, TAG_R);
	if (chunk(s, 8, 0, NULL, 0) < 0 || pkt_send(s) < 0)
		return -1;
	pkt_start(s, R2I, TAG_I);
	if (chunk(s, 14, 0, NULL, 0) < 0 || pkt_send(s) < 0)
		return -1;
	return 0;
}

/* Write the SCTP sample session to fp as pcap; 0 or -1. */
int sample_sctp_write(const struct sample_opts *o, FILE *fp)
{
	static const struct pcapw_conf base = {
		.host = {
			{ .mac = { 0x02, 0, 0, 0, 0, 0x01 },
			  .addr = 0xc0000201u, .port = UDP_PORT,
			  .ip_id = 0x1000 },
			{ .mac = { 0x02, 0, 0, 0, 0, 0x02 },
			  .addr = 0xc0000202u, .port = UDP_PORT,
			  .ip_id = 0x2000 },
		},
		.mss = 1448,
		.window = 65535,
		.t0_sec = 1767225600u, /* 2026-01-01 00:00:00 UTC */
		.step_usec = 100,
	};
	struct ssample *s;
	int rc;

	s = calloc(1, sizeof(*s));
	if (!s) {
		fprintf(stderr, "iwcmctl sample: out of memory\n");
		return -1;
	}
	s->o = o;
	s->next_tsn[I2R] = TSN_I;
	s->next_tsn[R2I] = TSN_R;
	s->msn[0][0] = s->msn[0][1] = s->msn[0][2] = 1;
	s->msn[1][0] = s->msn[1][1] = s->msn[1][2] = 1;
	s->w = pcapw_new(fp, &base);
	if (!s->w) {
		free(s);
		return -1;
	}
	rc = setup(s);
	if (!rc)
		rc = traffic(s);
	if (!rc)
		rc = teardown(s);
	if (!rc && o->corrupt >= 0 && (unsigned long)o->corrupt >= s->n_pkts) {
		fprintf(stderr,
			"iwcmctl sample: --corrupt %ld: the session has "
			"only %lu packets (0-%lu)\n",
			o->corrupt, s->n_pkts, s->n_pkts - 1);
		errno = EINVAL;
		rc = -1;
	}
	if (!rc && pcapw_flush(s->w) < 0) {
		fprintf(stderr, "iwcmctl sample: writing the capture: %s\n",
			strerror(errno));
		rc = -1;
	}
	pcapw_free(s->w);
	free(s);
	return rc;
}
