/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl sample: a complete synthetic iWARP session over TCP, built only
 * with the wire/ codecs, written as pcap (or as the two streams in hex).
 * Every value is fixed so that tests can assert on the output:
 *
 *	initiator  192.0.2.1:49152  02:00:00:00:00:01  ISN 1000000000
 *	responder  192.0.2.2:7174   02:00:00:00:00:02  ISN 2000000000
 *	first packet at 2026-01-01 00:00:00 UTC, 100 us apart
 *
 * The startup frames are what two iwcm daemons with their default
 * policies (wire/negotiate.h) exchange, with the options applied; the
 * session after them is the message table below, filtered by the
 * options.  All framing goes through the wire/ builders.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ddp.h"
#include "iwcmctl.h"
#include "mpa.h"
#include "negotiate.h"
#include "pcapw.h"
#include "rdmap.h"
#include "sample.h"
#include "wbuf.h"
#include "wire_err.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define I2R 0 /* initiator -> responder */
#define R2I 1 /* responder -> initiator */

#define SAMPLE_ADDR_I 0xc0000201u /* 192.0.2.1 (RFC 5737) */
#define SAMPLE_ADDR_R 0xc0000202u /* 192.0.2.2 */
#define SAMPLE_ISN_I 1000000000u
#define SAMPLE_ISN_R 2000000000u
#define SAMPLE_T0 1767225600u /* 2026-01-01 00:00:00 UTC */
#define SAMPLE_STEP_USEC 100
#define SAMPLE_WINDOW 65535

/* The responder's local IRD/ORD (the initiator's are the default 16/16). */
#define RESP_IRD 16
#define RESP_ORD 8

/* Steering Tags and Tagged Offsets of the sample. */
#define STAG_RTR 0x00000001u	/* RTR: non-zero, Chelsio rejects 0 */
#define I_STAG_READ 0x00001101u /* initiator's Read sink buffer */
#define I_TO_READ 0x00007f0000100000ull
#define I_STAG_INV 0x00001102u	 /* invalidated by the responder */
#define R_STAG_WRITE 0x00002201u /* responder's Write target */
#define R_TO_WRITE 0x00007f0000200000ull
#define R_STAG_READ 0x00002202u /* responder's Read source */
#define R_TO_READ 0x00007f0000300000ull
#define R_STAG_INV 0x00002203u /* invalidated by the initiator */
#define R_TO_INV 0x00007f0000400000ull
#define R_STAG_ATOMIC 0x00002204u /* responder's 64-bit counter */
#define R_TO_ATOMIC 0x00007f0000500000ull

#define WRITE_LEN 3000 /* spans several 512-octet intervals */
#define READ_LEN 2000
#define TERM_WRITE_LEN 16
#define PAYLOAD_MAX 4096

static const char req_pd[] = "iwcm sample: MPA Request";
static const char rep_pd[] = "iwcm sample: MPA Reply";

/* When a table entry is part of the session. */
#define W_RTR_WRITE 0x01 /* the negotiated RTR is a zero-length Write */
#define W_RTR_READ 0x02	 /* ... a zero-length Read */
#define W_RTR_SEND 0x04	 /* ... a zero-length Send */
#define W_V1 0x08	 /* needs DDP/RDMAP version 1 (RFC 7306) */
#define W_SWAP 0x10	 /* --swap */
#define W_TERM 0x20	 /* --terminate */

/* One RDMAP message of the session. */
struct sample_msg {
	uint8_t dir;
	uint8_t opcode;
	uint8_t when;  /* W_* */
	uint8_t aop;   /* Atomic Request: RDMAP_AOP_* */
	uint32_t stag; /* tagged: STag; Read Req: sink; atomic */
	uint64_t to;
	uint32_t src_stag; /* Read Request: data source */
	uint64_t src_to;
	uint32_t len;	    /* data octets; Read Request: its size */
	uint32_t inv_stag;  /* Send with Invalidate */
	uint32_t req_id;    /* atomics */
	uint64_t data;	    /* add/swap data, original, immediate */
	uint64_t data_mask; /* add/swap mask */
	uint64_t cmp, cmp_mask;
	const char *text; /* Send payload */
};

/*
 * The session after the startup frames.  The RTR rows come first (RFC
 * 6581 §9.3: the initiator's first FPDU is the RTR); with --terminate the
 * initiator writes to the STag its Send with Invalidate retired, and the
 * responder answers with a Terminate (RFC 5040 §4.8, §5.4: nothing
 * follows it).
 */
static const struct sample_msg session[] = {
	/* RFC 6581 §9.2: zero-length RTR messages. */
	{ .dir = I2R,
	  .opcode = RDMAP_WRITE,
	  .when = W_RTR_WRITE,
	  .stag = STAG_RTR },
	{ .dir = I2R,
	  .opcode = RDMAP_READ_REQ,
	  .when = W_RTR_READ,
	  .stag = STAG_RTR,
	  .src_stag = STAG_RTR },
	{ .dir = R2I,
	  .opcode = RDMAP_READ_RESP,
	  .when = W_RTR_READ,
	  .stag = STAG_RTR },
	{ .dir = I2R, .opcode = RDMAP_SEND, .when = W_RTR_SEND },
	/* RFC 5040 §5.3: the four Send variants. */
	{ .dir = I2R,
	  .opcode = RDMAP_SEND,
	  .text = "iwcm sample: Send from the initiator" },
	{ .dir = R2I,
	  .opcode = RDMAP_SEND_SE,
	  .text = "iwcm sample: Send with SE from the responder" },
	{ .dir = I2R,
	  .opcode = RDMAP_SEND_INV,
	  .inv_stag = R_STAG_INV,
	  .text = "iwcm sample: Send with Invalidate of STag 0x2203" },
	{ .dir = R2I,
	  .opcode = RDMAP_SEND_SE_INV,
	  .inv_stag = I_STAG_INV,
	  .text = "iwcm sample: Send with SE and Invalidate of 0x1102" },
	/* RFC 5040 §5.1: an RDMA Write longer than one segment. */
	{ .dir = I2R,
	  .opcode = RDMAP_WRITE,
	  .stag = R_STAG_WRITE,
	  .to = R_TO_WRITE,
	  .len = WRITE_LEN },
	/* RFC 7306 §6: Immediate Data, announcing the Write. */
	{ .dir = I2R,
	  .opcode = RDMAP_IMM_DATA,
	  .when = W_V1,
	  .data = WRITE_LEN },
	{ .dir = R2I,
	  .opcode = RDMAP_IMM_DATA_SE,
	  .when = W_V1,
	  .data = 0x6977636d2d6f6b00ull },
	/* RFC 5040 §5.2: RDMA Read. */
	{ .dir = I2R,
	  .opcode = RDMAP_READ_REQ,
	  .stag = I_STAG_READ,
	  .to = I_TO_READ,
	  .len = READ_LEN,
	  .src_stag = R_STAG_READ,
	  .src_to = R_TO_READ },
	{ .dir = R2I,
	  .opcode = RDMAP_READ_RESP,
	  .stag = I_STAG_READ,
	  .to = I_TO_READ,
	  .len = READ_LEN },
	/* RFC 7306 §5: FetchAdd 41 + 1, then CmpSwap 42 -> 0x1234. */
	{ .dir = I2R,
	  .opcode = RDMAP_ATOMIC_REQ,
	  .when = W_V1,
	  .aop = RDMAP_AOP_FETCHADD,
	  .req_id = 1,
	  .stag = R_STAG_ATOMIC,
	  .to = R_TO_ATOMIC,
	  .data = 1,
	  .data_mask = 0,
	  .cmp = 0,
	  .cmp_mask = ~0ull },
	{ .dir = R2I,
	  .opcode = RDMAP_ATOMIC_RESP,
	  .when = W_V1,
	  .req_id = 1,
	  .data = 41 },
	{ .dir = I2R,
	  .opcode = RDMAP_ATOMIC_REQ,
	  .when = W_V1,
	  .aop = RDMAP_AOP_CMPSWAP,
	  .req_id = 2,
	  .stag = R_STAG_ATOMIC,
	  .to = R_TO_ATOMIC,
	  .data = 0x1234,
	  .data_mask = ~0ull,
	  .cmp = 42,
	  .cmp_mask = ~0ull },
	{ .dir = R2I,
	  .opcode = RDMAP_ATOMIC_RESP,
	  .when = W_V1,
	  .req_id = 2,
	  .data = 42 },
	/* Seed 004 §5.1.2: Swap; both masks all ones, Compare Data 0. */
	{ .dir = I2R,
	  .opcode = RDMAP_ATOMIC_REQ,
	  .when = W_V1 | W_SWAP,
	  .aop = RDMAP_AOP_SWAP,
	  .req_id = 3,
	  .stag = R_STAG_ATOMIC,
	  .to = R_TO_ATOMIC,
	  .data = 0x5678,
	  .data_mask = ~0ull,
	  .cmp = 0,
	  .cmp_mask = ~0ull },
	{ .dir = R2I,
	  .opcode = RDMAP_ATOMIC_RESP,
	  .when = W_V1 | W_SWAP,
	  .req_id = 3,
	  .data = 0x1234 },
	/* RFC 5040 §4.8: a Write to an invalidated STag is terminated. */
	{ .dir = I2R,
	  .opcode = RDMAP_WRITE,
	  .when = W_TERM,
	  .stag = R_STAG_INV,
	  .to = R_TO_INV,
	  .len = TERM_WRITE_LEN },
	{ .dir = R2I, .opcode = RDMAP_TERMINATE, .when = W_TERM },
};

/* One piece of a stream: a startup frame or an FPDU, as on the wire. */
struct unit {
	uint8_t dir;
	bool fpdu;
	uint8_t *data;
	size_t len;
	size_t flip_at;	  /* FPDU: index of its last ULPDU octet */
	size_t ulpdu_len; /* FPDU */
	const char *name; /* frame type or RDMAP opcode */
	bool corrupt;
	uint8_t *ulpdu; /* FPDU: copy of its ULPDU (as sent) */
};

struct sample {
	const struct sample_opts *o;
	struct unit *units;
	size_t n_units, cap_units;
	unsigned long n_fpdus;
	/* negotiated */
	uint8_t rtr;	 /* one MPA_RTR_* bit, 0 without RTR FPDU */
	uint8_t version; /* DDP and RDMAP version */
	struct mpa_dir tx[2];
	uint32_t msn[2][4];	    /* next MSN per direction and queue */
	uint8_t seg[MPA_ULPDU_MAX]; /* ULPDU being built */
	uint8_t last_seg[2][MPA_ULPDU_MAX]; /* last ULPDU each way */
	size_t last_seg_len[2];
	uint8_t payload[PAYLOAD_MAX];
};

static void *no_memory(void)
{
	fprintf(stderr, "iwcmctl sample: out of memory\n");
	return NULL;
}

/* Grow the unit list and return a new unit of len octets. */
static struct unit *unit_add(struct sample *s, uint8_t dir, bool fpdu,
			     size_t len)
{
	struct unit *u;
	size_t cap;

	if (s->n_units == s->cap_units) {
		cap = s->cap_units ? 2 * s->cap_units : 64;
		u = realloc(s->units, cap * sizeof(*u));
		if (!u)
			return no_memory();
		s->units = u;
		s->cap_units = cap;
	}
	u = &s->units[s->n_units];
	u->data = malloc(len ? len : 1);
	if (!u->data)
		return no_memory();
	u->dir = dir;
	u->fpdu = fpdu;
	u->len = len;
	u->flip_at = 0;
	u->ulpdu_len = 0;
	u->name = "";
	u->corrupt = false;
	u->ulpdu = NULL;
	s->n_units++;
	return u;
}

static void sample_free(struct sample *s)
{
	size_t i;

	for (i = 0; i < s->n_units; i++) {
		free(s->units[i].data);
		free(s->units[i].ulpdu);
	}
	free(s->units);
	free(s);
}

static int wire_fail(const char *what, enum wire_err err)
{
	fprintf(stderr, "iwcmctl sample: %s: %s\n", what, wire_strerror(err));
	return -1;
}

/* Build a startup frame into a new unit. */
static int emit_frame(struct sample *s, uint8_t dir, const struct mpa_frame *f)
{
	uint8_t buf[MPA_FRAME_MAX];
	struct unit *u;
	enum wire_err err;
	size_t n;

	err = mpa_frame_build(f, buf, sizeof(buf), &n);
	if (err != WIRE_OK)
		return wire_fail("mpa_frame_build", err);
	u = unit_add(s, dir, false, n);
	if (!u)
		return -1;
	memcpy(u->data, buf, n);
	u->name = mpa_frame_type_name(f->type);
	return 0;
}

/*
 * Frame the ULPDU in s->seg as an FPDU of direction dir (RFC 5044 §4:
 * markers and CRC as negotiated for that direction) into a new unit, and
 * remember where its last ULPDU octet landed for --corrupt.
 */
static int emit_fpdu(struct sample *s, uint8_t dir, size_t len,
		     const char *name)
{
	struct iovec out[MPA_FPDU_MAX_MARKERS * 2 + 4];
	struct mpa_tx_scratch scratch;
	struct iovec in = { .iov_base = s->seg, .iov_len = len };
	uintptr_t lo = (uintptr_t)s->seg, hi = lo + len, b;
	size_t n_out, wire_len, pos, i;
	struct unit *u;
	enum wire_err err;
	bool found = false;

	err = mpa_fpdu_build_iov(&s->tx[dir], &in, 1, &scratch, out,
				 ARRAY_SIZE(out), &n_out, &wire_len);
	if (err != WIRE_OK)
		return wire_fail("mpa_fpdu_build_iov", err);
	u = unit_add(s, dir, true, wire_len);
	if (!u)
		return -1;
	for (pos = 0, i = 0; i < n_out; i++) {
		if (pos + out[i].iov_len > wire_len)
			break;
		if (out[i].iov_len)
			memcpy(u->data + pos, out[i].iov_base, out[i].iov_len);
		b = (uintptr_t)out[i].iov_base;
		if (out[i].iov_len && b >= lo && b < hi &&
		    b + out[i].iov_len == hi) {
			u->flip_at = pos + out[i].iov_len - 1;
			found = true;
		}
		pos += out[i].iov_len;
	}
	if (i != n_out || pos != wire_len || !found) {
		fprintf(stderr,
			"iwcmctl sample: FPDU framing is inconsistent "
			"(%zu of %zu octets)\n",
			pos, wire_len);
		return -1;
	}
	u->ulpdu = malloc(len);
	if (!u->ulpdu) {
		no_memory();
		return -1;
	}
	memcpy(u->ulpdu, s->seg, len);
	u->ulpdu_len = len;
	u->name = name;
	memcpy(s->last_seg[dir], s->seg, len);
	s->last_seg_len[dir] = len;
	s->n_fpdus++;
	return 0;
}

/* Deterministic printable data for Writes and Read Responses. */
static void fill_payload(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++)
		p[i] = (uint8_t)(0x21 + (i + seed) % 94);
}

/*
 * Emit one RDMAP message as one or more DDP segments (RFC 5041 §5.2: a
 * tagged message advances the TO, an untagged one the MO under one MSN;
 * L marks the last segment).  Each segment fits MULPDU (RFC 5044 §4.5)
 * unless --no-ddp-seg.
 */
static int emit_msg(struct sample *s, const struct sample_msg *e)
{
	struct rdmap_msg m, chk;
	const uint8_t *data = NULL;
	size_t data_len = 0, max, off = 0, n, hlen;
	uint8_t dir = e->dir;
	enum wire_err err;
	int qn;

	memset(&m, 0, sizeof(m));
	m.opcode = e->opcode;
	m.rv = s->version;
	m.ddp.dv = s->version;
	m.ddp.tagged = rdmap_opcode_tagged(e->opcode) == 1;
	qn = rdmap_opcode_qn(e->opcode);
	if (m.ddp.tagged) {
		m.ddp.stag = e->stag;
	} else {
		if (qn < 0 || qn >= (int)ARRAY_SIZE(s->msn[dir]))
			return wire_fail("untagged queue", WIRE_EOPCODE);
		m.ddp.qn = (uint32_t)qn;
		m.ddp.msn = s->msn[dir][qn];
	}

	switch (e->opcode) {
	case RDMAP_WRITE:
	case RDMAP_READ_RESP:
		if (e->len > PAYLOAD_MAX)
			return wire_fail("sample payload", WIRE_ELEN);
		fill_payload(s->payload, e->len, e->stag);
		data = s->payload;
		data_len = e->len;
		break;
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE_INV:
		m.inv_stag = e->inv_stag;
		/* FALLTHROUGH */
	case RDMAP_SEND:
	case RDMAP_SEND_SE:
		if (e->text) {
			data = (const uint8_t *)e->text;
			data_len = strlen(e->text);
		}
		break;
	case RDMAP_READ_REQ:
		/* RFC 5040 §4.4: the sink is the requester's buffer. */
		m.u.read_req.sink_stag = e->stag;
		m.u.read_req.sink_to = e->to;
		m.u.read_req.size = e->len;
		m.u.read_req.src_stag = e->src_stag;
		m.u.read_req.src_to = e->src_to;
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		wire_put_be64(m.u.imm, e->data);
		break;
	case RDMAP_ATOMIC_REQ:
		m.u.atomic_req.aopcode = e->aop;
		m.u.atomic_req.req_id = e->req_id;
		m.u.atomic_req.stag = e->stag;
		m.u.atomic_req.to = e->to;
		m.u.atomic_req.add_swap = e->data;
		m.u.atomic_req.add_swap_mask = e->data_mask;
		m.u.atomic_req.cmp = e->cmp;
		m.u.atomic_req.cmp_mask = e->cmp_mask;
		break;
	case RDMAP_ATOMIC_RESP:
		m.u.atomic_resp.req_id = e->req_id;
		m.u.atomic_resp.orig = e->data;
		break;
	case RDMAP_TERMINATE:
		/* RFC 5040 §7.2: invalid STag on the peer's last segment. */
		rdmap_term_fill(&m.u.term, RDMAP_TERM_LAYER_RDMAP,
				RDMAP_ETYPE_REMOTE_PROT,
				RDMAP_ECODE_INVALID_STAG, s->last_seg[!dir],
				s->last_seg_len[!dir]);
		break;
	default:
		return -1;
	}

	max = mpa_mulpdu(s->o->mss, s->tx[dir].markers);
	if (s->o->no_ddp_seg)
		max = MPA_ULPDU_MAX;
	do {
		m.ddp.last = true;
		if (m.ddp.tagged)
			m.ddp.to = e->to + off;
		else
			m.ddp.mo = (uint32_t)off;
		/* Header length first: the L bit does not change it. */
		err = rdmap_hdr_build(&m, s->seg, sizeof(s->seg), &hlen);
		if (err != WIRE_OK)
			return wire_fail("rdmap_hdr_build", err);
		if (hlen >= max && data_len) {
			fprintf(stderr, "iwcmctl sample: MSS too small\n");
			return -1;
		}
		n = data_len - off;
		if (n > max - hlen)
			n = max - hlen;
		if (off + n < data_len) {
			m.ddp.last = false;
			err = rdmap_hdr_build(&m, s->seg, sizeof(s->seg),
					      &hlen);
			if (err != WIRE_OK)
				return wire_fail("rdmap_hdr_build", err);
		}
		if (n)
			memcpy(s->seg + hlen, data + off, n);
		/* The builders' output must parse back as what we meant. */
		err = rdmap_msg_parse(s->seg, hlen + n, &chk);
		if (err != WIRE_OK || chk.opcode != e->opcode ||
		    chk.payload_len != n)
			return wire_fail("built segment does not parse",
					 err != WIRE_OK ? err : WIRE_EINVAL);
		if (emit_fpdu(s, dir, hlen + n, rdmap_opcode_name(e->opcode)) <
		    0)
			return -1;
		off += n;
	} while (off < data_len);

	if (!m.ddp.tagged)
		s->msn[dir][qn]++;
	return 0;
}

/*
 * The two sides' policies: the daemon's defaults (wire/negotiate.c, after
 * DESIGN.md) with the sample's options.  The responder's local limits are
 * IRD 16 / ORD 8, so that its Reply visibly answers (RFC 6581 §9.1).
 */
static void sample_policies(const struct sample_opts *o, struct neg_policy *pi,
			    struct neg_policy *pr)
{
	neg_policy_init(pi, NEG_INITIATOR);
	neg_policy_init(pr, NEG_RESPONDER);
	pi->rev = (uint8_t)o->rev;
	pi->enhanced = o->rev == MPA_REV_2;
	pi->p2p = pi->enhanced && !o->client_server;
	if (o->rtr)
		pi->rtr_types = o->rtr;
	/* M: markers required in what the side receives. */
	pi->markers = o->markers_r2i;
	pr->markers = o->markers_i2r;
	pi->crc = !o->no_crc;
	pr->ird = RESP_IRD;
	pr->ord = RESP_ORD;
	/* Seed 002 §5.3: a permissive responder answers Rev 0. */
	pr->rev0_permissive = o->rev == MPA_REV_RDMAC;
	pi->rev0_permissive = o->rev == MPA_REV_RDMAC;
	/* Seed 003: only when both ends are configured for it. */
	pi->legacy_rtr = pr->legacy_rtr = o->rtr_frame;
}

/*
 * Build one startup frame with the sample's Private Data and parse it
 * back as the peer sees it (*parsed points into *u).
 */
static int emit_pd_frame(struct sample *s, uint8_t dir, struct mpa_frame *f,
			 const char *pd, struct mpa_frame *parsed)
{
	struct unit *u;
	enum wire_err err;
	size_t used;

	if (f->enhanced) {
		f->ulp_pd = (const uint8_t *)pd;
		f->ulp_pd_len = (uint16_t)strlen(pd);
	} else {
		f->pd = (const uint8_t *)pd;
		f->pd_len = (uint16_t)strlen(pd);
	}
	if (emit_frame(s, dir, f) < 0)
		return -1;
	u = &s->units[s->n_units - 1];
	err = mpa_frame_parse(u->data, u->len, parsed, &used);
	if (err != WIRE_OK || used != u->len)
		return wire_fail("built frame does not parse",
				 err != WIRE_OK ? err : WIRE_ELEN);
	return 0;
}

static int neg_fail(const char *side, const struct neg_result *res)
{
	fprintf(stderr, "iwcmctl sample: %s: %s (%s)\n", side,
		neg_action_name(res->action), neg_reason_name(res->reason));
	return -1;
}

/*
 * The startup phase as two iwcm daemons run it: the initiator's Request,
 * the responder's decision and Reply, the initiator's verdict, then the
 * seed-003 RtR frame when both ends run that mode.  The outcome sets the
 * FPDU framing of each direction and the RTR message.
 */
static int emit_startup(struct sample *s)
{
	struct neg_policy pi, pr;
	struct mpa_frame req, rep, rtr, req_in, rep_in;
	struct neg_result res_r, res_i;

	sample_policies(s->o, &pi, &pr);
	neg_mpa_request(&pi, &req);
	if (emit_pd_frame(s, I2R, &req, req_pd, &req_in) < 0)
		return -1;
	if (neg_mpa_respond(&req_in, &pr, false, &rep, &res_r) != NEG_A_ACCEPT)
		return neg_fail("responder", &res_r);
	if (emit_pd_frame(s, R2I, &rep, rep_pd, &rep_in) < 0)
		return -1;
	if (neg_mpa_reply(&req, &rep_in, &pi, &res_i) != NEG_A_ACCEPT)
		return neg_fail("initiator", &res_i);
	if (res_i.rtr_frame) {
		/* Seed 003 item 2: S unused (0), C as in the Reply, no PD. */
		memset(&rtr, 0, sizeof(rtr));
		rtr.type = MPA_FRAME_RTR;
		rtr.rev = res_i.rev;
		rtr.flags = rep_in.flags & MPA_FLAG_C;
		if (emit_frame(s, I2R, &rtr) < 0)
			return -1;
	}
	/* RFC 6581 §9.3: the initiator's first FPDU is the chosen RTR. */
	s->rtr = res_i.p2p ? res_i.rtr : 0;
	s->version = res_i.version;
	/* RFC 5044 §7.1.1: CRC if either side asked; markers per M. */
	s->tx[I2R].markers = res_i.markers_rrx;
	s->tx[R2I].markers = res_i.markers_irx;
	s->tx[I2R].crc = s->tx[R2I].crc = res_i.crc;
	s->tx[I2R].off = s->tx[R2I].off = 0;
	return 0;
}

static bool msg_wanted(const struct sample *s, const struct sample_msg *e)
{
	if ((e->when & W_RTR_WRITE) && s->rtr != MPA_RTR_WRITE)
		return false;
	if ((e->when & W_RTR_READ) && s->rtr != MPA_RTR_READ)
		return false;
	if ((e->when & W_RTR_SEND) && s->rtr != MPA_RTR_SEND)
		return false;
	if ((e->when & W_V1) && s->version != DDP_VERSION_IETF)
		return false;
	if ((e->when & W_SWAP) && !s->o->swap)
		return false;
	if ((e->when & W_TERM) && !s->o->terminate)
		return false;
	return true;
}

/* Build the whole session into s->units. */
static int sample_build(struct sample *s)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		/* RFC 5041 §4.3: the first MSN of every queue is 1. */
		s->msn[i][0] = s->msn[i][1] = s->msn[i][2] = s->msn[i][3] = 1;
	}
	if (emit_startup(s) < 0)
		return -1;
	for (i = 0; i < ARRAY_SIZE(session); i++) {
		if (msg_wanted(s, &session[i]) && emit_msg(s, &session[i]) < 0)
			return -1;
	}
	return 0;
}

static int corrupt_fpdu(struct sample *s, unsigned long n)
{
	unsigned long k = 0;
	size_t i;

	for (i = 0; i < s->n_units; i++) {
		if (!s->units[i].fpdu)
			continue;
		if (k++ == n) {
			s->units[i].data[s->units[i].flip_at] ^= 0xff;
			s->units[i].ulpdu[s->units[i].ulpdu_len - 1] ^= 0xff;
			s->units[i].corrupt = true;
			return 0;
		}
	}
	fprintf(stderr,
		"iwcmctl sample: --corrupt %lu: the session has "
		"only %lu FPDUs (0-%lu)\n",
		n, s->n_fpdus, s->n_fpdus - 1);
	return -1;
}

/*
 * -v: one line per unit on stderr, for people and tests:
 *	frame DIR OCTETS NAME
 *	fpdu N DIR ULPDU_LENGTH OCTETS CRC DDP RDMAP NAME
 * CRC is good, bad or off; DDP is T/DV/STAG/TO/L for a tagged segment
 * and U/DV/QN/MSN/MO/L for an untagged one (hex STag and TO); RDMAP is
 * RV/OPCODE (hex).  The fields are parsed back from the ULPDU as sent,
 * after --corrupt.
 */
static void list_units(const struct sample *s, FILE *fp)
{
	const struct unit *u;
	struct rdmap_msg m;
	unsigned long k = 0;
	char hdr[80];
	size_t i;

	for (i = 0; i < s->n_units; i++) {
		u = &s->units[i];
		if (!u->fpdu) {
			fprintf(fp, "frame %s %zu %s\n",
				u->dir == I2R ? "i2r" : "r2i", u->len, u->name);
			continue;
		}
		if (rdmap_msg_parse(u->ulpdu, u->ulpdu_len, &m) != WIRE_OK)
			snprintf(hdr, sizeof(hdr), "- -");
		else if (m.ddp.tagged)
			snprintf(hdr, sizeof(hdr), "T/%u/%x/%llx/%d %u/%x",
				 m.ddp.dv, m.ddp.stag,
				 (unsigned long long)m.ddp.to, m.ddp.last, m.rv,
				 m.opcode);
		else
			snprintf(hdr, sizeof(hdr), "U/%u/%u/%u/%u/%d %u/%x",
				 m.ddp.dv, m.ddp.qn, m.ddp.msn, m.ddp.mo,
				 m.ddp.last, m.rv, m.opcode);
		fprintf(fp, "fpdu %lu %s %zu %zu %s %s %s\n", k++,
			u->dir == I2R ? "i2r" : "r2i", u->ulpdu_len, u->len,
			!s->tx[u->dir].crc ? "off" :
			u->corrupt	   ? "bad" :
					     "good",
			hdr, u->name);
	}
}

static int write_pcap(const struct sample *s, FILE *fp)
{
	static const struct pcapw_conf base = {
		.host = {
			{ .mac = { 0x02, 0, 0, 0, 0, 0x01 },
			  .addr = SAMPLE_ADDR_I, .port = SAMPLE_PORT_I,
			  .isn = SAMPLE_ISN_I, .ip_id = 0x1000 },
			{ .mac = { 0x02, 0, 0, 0, 0, 0x02 },
			  .addr = SAMPLE_ADDR_R, .port = SAMPLE_PORT_R,
			  .isn = SAMPLE_ISN_R, .ip_id = 0x2000 },
		},
		.window = SAMPLE_WINDOW,
		.t0_sec = SAMPLE_T0,
		.step_usec = SAMPLE_STEP_USEC,
	};
	struct pcapw_conf conf = base;
	struct pcapw *w;
	size_t i;
	int rc;

	conf.mss = (uint16_t)s->o->mss;
	conf.host[0].port = s->o->port_i;
	w = pcapw_new(fp, &conf);
	if (!w)
		return -1;
	rc = pcapw_connect(w);
	for (i = 0; rc == 0 && i < s->n_units; i++)
		rc = pcapw_send(
			w, s->units[i].dir == I2R ? PCAPW_CLIENT : PCAPW_SERVER,
			s->units[i].data, s->units[i].len);
	if (rc == 0)
		rc = pcapw_close(w);
	pcapw_free(w);
	return rc;
}

/* The decode --hex format: one direction character per line. */
static int write_hex(const struct sample *s, FILE *fp)
{
	const struct unit *u;
	unsigned long n = 0;
	size_t i, k;

	for (i = 0; i < s->n_units; i++) {
		u = &s->units[i];
		if (u->fpdu)
			fprintf(fp, "# FPDU %lu: %s%s\n", n++, u->name,
				u->corrupt ? " (corrupted)" : "");
		else
			fprintf(fp, "# MPA %s frame\n", u->name);
		for (k = 0; k < u->len; k++) {
			if (k % 16 == 0)
				fputc(u->dir == I2R ? '>' : '<', fp);
			fprintf(fp, " %02x", u->data[k]);
			if (k % 16 == 15 || k + 1 == u->len)
				fputc('\n', fp);
		}
	}
	return fflush(fp) == 0 && !ferror(fp) ? 0 : -1;
}

/*
 * iwcmctl sample: write the synthetic session.  Exit status 0, or 2 for a
 * usage error or an output that cannot be written (iwcmctl(8)).
 */
int cmd_sample(int argc, char **argv)
{
	struct sample_opts o;
	struct sample *s;
	FILE *fp = stdout;
	bool to_stdout;
	int rc;

	rc = sample_opts_parse(argc, argv, &o);
	if (rc == 1)
		return 0; /* --help */
	if (rc)
		return rc;
	to_stdout = !o.out || !strcmp(o.out, "-");
	if (to_stdout && !o.hex && isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"iwcmctl sample: not writing a pcap to a "
			"terminal; use -o FILE or redirect the output\n");
		return 2;
	}

	if (o.sctp) {
		if (to_stdout)
			return sample_sctp_write(&o, stdout) < 0 ? 2 : 0;
		fp = fopen(o.out, "wb");
		if (!fp) {
			fprintf(stderr, "iwcmctl sample: %s: %s\n", o.out,
				strerror(errno));
			return 2;
		}
		rc = sample_sctp_write(&o, fp);
		if (fclose(fp) != 0 && rc == 0) {
			fprintf(stderr, "iwcmctl sample: %s: %s\n", o.out,
				strerror(errno));
			rc = -1;
		}
		return rc < 0 ? 2 : 0;
	}
	s = calloc(1, sizeof(*s));
	if (!s) {
		no_memory();
		return 2;
	}
	s->o = &o;
	if (sample_build(s) < 0) {
		sample_free(s);
		return 2;
	}
	if (o.corrupt >= 0 && corrupt_fpdu(s, (unsigned long)o.corrupt)) {
		sample_free(s);
		return 2;
	}

	if (o.verbose)
		list_units(s, stderr);
	if (!to_stdout) {
		fp = fopen(o.out, o.hex ? "w" : "wb");
		if (!fp) {
			fprintf(stderr, "iwcmctl sample: %s: %s\n", o.out,
				strerror(errno));
			sample_free(s);
			return 2;
		}
	}
	rc = o.hex ? write_hex(s, fp) : write_pcap(s, fp);
	if (rc < 0)
		fprintf(stderr, "iwcmctl sample: %s: %s\n",
			to_stdout ? "standard output" : o.out,
			strerror(errno ? errno : EIO));
	if (!to_stdout && fclose(fp) != 0 && rc == 0) {
		fprintf(stderr, "iwcmctl sample: %s: %s\n", o.out,
			strerror(errno));
		rc = -1;
	}
	sample_free(s);
	return rc < 0 ? 2 : 0;
}
