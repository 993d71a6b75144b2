/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The output vtables of iwcmctl decode: readable text (one block per PDU),
 * JSON lines (one object per PDU, stable field names, documented in
 * iwcmctl(8)) and a null sink.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

/* ---- names ---- */

/* Name of a direction as used in both formats ("i2r", ...). */
const char *out_dir_name(enum out_dir dir)
{
	switch (dir) {
	case OUT_DIR_I2R:
		return "i2r";
	case OUT_DIR_R2I:
		return "r2i";
	case OUT_DIR_A2B:
		return "a2b";
	case OUT_DIR_B2A:
		return "b2a";
	default:
		return "none";
	}
}

/* Name of an event kind ("gap", ...). */
const char *out_ev_name(enum out_ev kind)
{
	static const char *const names[OUT_EV_MAX] = {
		[OUT_EV_NOTE] = "note",
		[OUT_EV_GAP] = "gap",
		[OUT_EV_TRUNCATED] = "truncated",
		[OUT_EV_MALFORMED] = "malformed",
		[OUT_EV_PROTOCOL] = "protocol",
		[OUT_EV_CAPTURE] = "capture",
	};

	if ((unsigned int)kind < OUT_EV_MAX && names[kind])
		return names[kind];
	return "unknown";
}

/* Name of a CRC state ("off", "good", "bad", "unknown"). */
const char *out_crc_name(enum out_crc crc)
{
	switch (crc) {
	case OUT_CRC_OFF:
		return "off";
	case OUT_CRC_GOOD:
		return "good";
	case OUT_CRC_BAD:
		return "bad";
	case OUT_CRC_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}

/* Name of an RTR type set with one bit ("write", ...); "none" for 0. */
const char *out_rtr_name(uint8_t rtr)
{
	switch (rtr) {
	case 0:
		return "none";
	case MPA_RTR_SEND:
		return "send";
	case MPA_RTR_WRITE:
		return "write";
	case MPA_RTR_READ:
		return "read";
	default:
		return "several";
	}
}

static const char *frame_type_name(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return "request";
	case MPA_FRAME_REP:
		return "reply";
	case MPA_FRAME_RTR:
		return "rtr";
	}
	return "unknown";
}

static const char *frame_title(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return "MPA Request";
	case MPA_FRAME_REP:
		return "MPA Reply";
	case MPA_FRAME_RTR:
		return "MPA RtR frame";
	}
	return "MPA frame";
}

/* RFC 5040 §4.1: opcodes that carry an Invalidate STag. */
static int opcode_has_inv(uint8_t op)
{
	return op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV;
}

static void put_hex(FILE *fp, const uint8_t *p, size_t n, const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(fp, "%s%02x", i && sep ? sep : "", p[i]);
}

static size_t brief_len(const struct out_sink *o, size_t n)
{
	if (o->flags & OUT_VERBOSE)
		return n;
	return n < OUT_PAYLOAD_BRIEF ? n : OUT_PAYLOAD_BRIEF;
}

/* ---- text ---- */

static void txt_dump(FILE *fp, const uint8_t *p, size_t n, const char *ind)
{
	size_t i;

	for (i = 0; i < n; i += 16) {
		size_t k = n - i < 16 ? n - i : 16;

		fprintf(fp, "%s%04zx  ", ind, i);
		put_hex(fp, p + i, k, " ");
		fputc('\n', fp);
	}
}

static void txt_head(struct out_sink *o, unsigned int conn, enum out_dir dir,
		     const char *src, const char *dst)
{
	fprintf(o->fp, "conn %u %s %s > %s: ", conn, out_dir_name(dir), src,
		dst);
}

static void txt_conn(struct out_sink *o, const struct out_conn *c)
{
	fprintf(o->fp, "conn %u: %s <-> %s\n", c->conn, c->a, c->b);
}

static void txt_rtr_set(FILE *fp, uint8_t rtr)
{
	const char *sep = "";

	if (!rtr) {
		fputs("none", fp);
		return;
	}
	if (rtr & MPA_RTR_SEND) {
		fputs("send", fp);
		sep = ",";
	}
	if (rtr & MPA_RTR_WRITE) {
		fprintf(fp, "%swrite", sep);
		sep = ",";
	}
	if (rtr & MPA_RTR_READ)
		fprintf(fp, "%sread", sep);
}

static void txt_key(FILE *fp, const uint8_t *raw, size_t len)
{
	size_t i;

	fputc('"', fp);
	for (i = 0; i < MPA_KEY_LEN && i < len; i++) {
		if (raw[i] >= 0x20 && raw[i] < 0x7f && raw[i] != '"' &&
		    raw[i] != '\\')
			fputc(raw[i], fp);
		else
			fprintf(fp, "\\x%02x", raw[i]);
	}
	fputc('"', fp);
}

static void txt_frame(struct out_sink *o, const struct out_frame *fr)
{
	const struct mpa_frame *f = fr->f;
	FILE *fp = o->fp;

	txt_head(o, fr->conn, fr->dir, fr->src, fr->dst);
	fprintf(fp, "%s, %zu octets\n    key ", frame_title(f->type),
		fr->raw_len);
	txt_key(fp, fr->raw, fr->raw_len);
	fprintf(fp, "  M=%d C=%d R=%d S=%d Res=0x%x  Rev=%u  PD_Length=%u\n",
		!!(f->flags & MPA_FLAG_M), !!(f->flags & MPA_FLAG_C),
		!!(f->flags & MPA_FLAG_R), !!(f->flags & MPA_FLAG_S),
		f->flags & MPA_FLAG_RES, f->rev, f->pd_len);
	if (fr->key_rtr_lower)
		fputs("    key spelled \"Rtr\" (seed 003 text)\n", fp);
	if (f->type == MPA_FRAME_REP && (f->flags & MPA_FLAG_R))
		fputs("    connection REJECTED (R=1)\n", fp);
	if (!f->enhanced && (f->flags & MPA_FLAG_S) &&
	    f->type != MPA_FRAME_RTR)
		/* seed 003: S in a Rev 1 frame announces the RtR frame */
		fprintf(fp, "    S=1 with Rev %u: %s (seed 003)\n", f->rev,
			f->type == MPA_FRAME_REQ ? "will send an RtR frame" :
						   "waits for an RtR frame");
	if (f->enhanced) {
		const struct mpa_enh *e = &f->enh;

		fprintf(fp, "    enhanced 0x%08" PRIx32 ": A=%d B=%d C=%d D=%d "
			"IRD=%u ORD=%u", mpa_enh_word(e), e->p2p,
			!!(e->rtr & MPA_RTR_SEND), !!(e->rtr & MPA_RTR_WRITE),
			!!(e->rtr & MPA_RTR_READ), e->ird, e->ord);
		if (e->ird == MPA_IRD_ORD_NONE || e->ord == MPA_IRD_ORD_NONE)
			fputs(" (0x3fff: no automatic negotiation)", fp);
		fprintf(fp, "\n    %s", e->p2p ? "peer-to-peer, RTR " :
						  "client-server\n");
		if (e->p2p) {
			txt_rtr_set(fp, e->rtr);
			fputc('\n', fp);
		}
		if (f->ulp_pd_len) {
			fprintf(fp, "    ULP private data (%u octets): ",
				f->ulp_pd_len);
			put_hex(fp, f->ulp_pd, f->ulp_pd_len, NULL);
			fputc('\n', fp);
		}
	} else if (f->pd_len) {
		fprintf(fp, "    private data (%u octets): ", f->pd_len);
		put_hex(fp, f->pd, f->pd_len, NULL);
		fputc('\n', fp);
	}
	if (o->flags & OUT_VERBOSE)
		txt_dump(fp, fr->raw, fr->raw_len, "      ");
}

static void txt_params(struct out_sink *o, const struct out_params *p)
{
	FILE *fp = o->fp;

	fprintf(fp, "conn %u: negotiated: initiator %s, responder %s, Rev "
		"%u/%u%s", p->conn, p->initiator, p->responder, p->rev_req,
		p->rev_rep, p->rdmac ? " (RDMA Consortium)" : "");
	if (p->rejected) {
		fputs(", REJECTED\n", fp);
		return;
	}
	fprintf(fp, "\n    markers i2r %s, r2i %s; CRC %s; DDP/RDMAP "
		"version %u\n", p->markers_i2r ? "on" : "off",
		p->markers_r2i ? "on" : "off", p->crc ? "on" : "off",
		p->version);
	if (p->enhanced) {
		fprintf(fp, "    enhanced: IRD/ORD request %u/%u, reply "
			"%u/%u; %s", p->ird_req, p->ord_req, p->ird_rep,
			p->ord_rep, p->p2p ? "peer-to-peer, RTR offered " :
					     "client-server");
		if (p->p2p) {
			txt_rtr_set(fp, p->rtr_offered);
			fputs(", allowed ", fp);
			txt_rtr_set(fp, p->rtr_allowed);
		}
		fputc('\n', fp);
	}
	if (p->problem)
		fprintf(fp, "    ! %s\n", p->problem);
}

static void txt_ddp(FILE *fp, const struct ddp_hdr *h)
{
	fprintf(fp, "T=%d L=%d DV=%u", h->tagged, h->last, h->dv);
	if (h->rsvd)
		fprintf(fp, " Rsvd=0x%x", h->rsvd);
	if (h->tagged)
		fprintf(fp, " STag 0x%08" PRIx32 " TO 0x%016" PRIx64, h->stag,
			h->to);
	else
		fprintf(fp, " QN %" PRIu32 " MSN %" PRIu32 " MO %" PRIu32,
			h->qn, h->msn, h->mo);
}

static void txt_read_req(FILE *fp, const struct rdmap_read_req *r)
{
	fprintf(fp, "sink STag 0x%08" PRIx32 " TO 0x%016" PRIx64 " size %"
		PRIu32 ", source STag 0x%08" PRIx32 " TO 0x%016" PRIx64,
		r->sink_stag, r->sink_to, r->size, r->src_stag, r->src_to);
}

static void txt_term(FILE *fp, const struct rdmap_term *t)
{
	struct ddp_hdr h;
	struct rdmap_read_req rr;
	size_t used;

	fprintf(fp, ":\n      layer %u (%s) etype %u (%s) code 0x%02x "
		"(%s)\n      HdrCt M=%d D=%d R=%d", t->layer,
		rdmap_term_layer_name(t->layer), t->etype,
		rdmap_term_etype_name(t->layer, t->etype), t->ecode,
		rdmap_term_ecode_name(t->layer, t->etype, t->ecode),
		!!(t->hdrct & RDMAP_TERM_HDRCT_M),
		!!(t->hdrct & RDMAP_TERM_HDRCT_D),
		!!(t->hdrct & RDMAP_TERM_HDRCT_R));
	if (t->has_ddp_seg_len)
		fprintf(fp, ", DDP segment length %u", t->ddp_seg_len);
	if ((t->hdrct & RDMAP_TERM_HDRCT_D) && t->ddp_hdr_len) {
		fputs("\n      terminated DDP header: ", fp);
		if (ddp_hdr_parse(t->ddp_hdr, t->ddp_hdr_len, &h, &used) ==
		    WIRE_OK) {
			txt_ddp(fp, &h);
			fprintf(fp, " RDMAP RV=%u %s",
				h.rsvd_ulp8 >> RDMAP_RV_SHIFT,
				rdmap_opcode_name(h.rsvd_ulp8 &
						  RDMAP_OPCODE_MASK));
		} else {
			put_hex(fp, t->ddp_hdr, t->ddp_hdr_len, " ");
		}
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R) {
		fputs("\n      terminated RDMA header: ", fp);
		if (rdmap_read_req_parse(t->rdma_hdr, sizeof(t->rdma_hdr),
					 &rr) == WIRE_OK)
			txt_read_req(fp, &rr);
		else
			put_hex(fp, t->rdma_hdr, sizeof(t->rdma_hdr), " ");
	}
}

/* Opcodes whose payload is ULP data, so a length of 0 is worth showing. */
static int opcode_carries_data(uint8_t op)
{
	return op <= RDMAP_SEND_SE_INV && op != RDMAP_READ_REQ &&
	       op != RDMAP_TERMINATE;
}

static void txt_rdmap(struct out_sink *o, const struct out_fpdu *f)
{
	const struct rdmap_msg *m = f->msg;
	FILE *fp = o->fp;
	size_t n;

	fprintf(fp, "    RDMAP RV=%u %s", m->rv, rdmap_opcode_name(m->opcode));
	if (m->ctrl_rsvd)
		fprintf(fp, " Rsvd=0x%x", m->ctrl_rsvd);
	if (opcode_has_inv(m->opcode))
		fprintf(fp, ", Invalidate STag 0x%08" PRIx32, m->inv_stag);
	switch (m->opcode) {
	case RDMAP_READ_REQ:
		fputs(":\n      ", fp);
		txt_read_req(fp, &m->u.read_req);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		fputs(" 0x", fp);
		put_hex(fp, m->u.imm, sizeof(m->u.imm), NULL);
		break;
	case RDMAP_ATOMIC_REQ: {
		const struct rdmap_atomic_req *a = &m->u.atomic_req;

		fprintf(fp, ": %s (AOpCode %u) request id 0x%08" PRIx32
			"\n      STag 0x%08" PRIx32 " TO 0x%016" PRIx64
			"\n      add/swap 0x%016" PRIx64 " mask 0x%016" PRIx64
			"\n      compare  0x%016" PRIx64 " mask 0x%016" PRIx64,
			rdmap_aopcode_name(a->aopcode), a->aopcode, a->req_id,
			a->stag, a->to, a->add_swap, a->add_swap_mask, a->cmp,
			a->cmp_mask);
		break;
	}
	case RDMAP_ATOMIC_RESP:
		fprintf(fp, ": request id 0x%08" PRIx32 " original 0x%016"
			PRIx64, m->u.atomic_resp.req_id,
			m->u.atomic_resp.orig);
		break;
	case RDMAP_TERMINATE:
		txt_term(fp, &m->u.term);
		break;
	default:
		break;
	}
	if (m->payload_len || opcode_carries_data(m->opcode))
		fprintf(fp, "%spayload %zu octets",
			m->opcode == RDMAP_TERMINATE ? "\n    " : ", ",
			m->payload_len);
	fputc('\n', fp);
	n = brief_len(o, m->payload_len);
	if (n) {
		fputs("    data  ", fp);
		put_hex(fp, m->payload, n, " ");
		if (n < m->payload_len)
			fputs(" ...", fp);
		fputc('\n', fp);
	}
}

static void txt_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	FILE *fp = o->fp;
	unsigned int i;

	txt_head(o, f->conn, f->dir, f->src, f->dst);
	fprintf(fp, "FPDU %lu @%" PRIu64 " ULPDU_Length %u pad %u (%zu "
		"octets), ", f->index, f->off, f->ulpdu_len, f->pad,
		f->wire_len);
	switch (f->crc) {
	case OUT_CRC_OFF:
		fprintf(fp, "CRC off (field 0x%08" PRIx32 ")", f->crc_wire);
		break;
	case OUT_CRC_GOOD:
		fprintf(fp, "CRC good 0x%08" PRIx32, f->crc_wire);
		break;
	case OUT_CRC_BAD:
		fprintf(fp, "CRC BAD: wire 0x%08" PRIx32 ", computed 0x%08"
			PRIx32, f->crc_wire, f->crc_calc);
		break;
	case OUT_CRC_UNKNOWN:
		fprintf(fp, "CRC unknown: 0x%08" PRIx32 " %s 0x%08" PRIx32,
			f->crc_wire,
			f->crc_match ? "matches" : "differs from computed",
			f->crc_calc);
		break;
	}
	fprintf(fp, "%s\n", f->bad ? "  [BAD]" : "");
	if (f->n_markers || !f->markers_ok) {
		fprintf(fp, "    markers %u%s", f->n_markers,
			f->markers_ok ? "" : " BAD");
		for (i = 0; i < f->n_markers; i++)
			fprintf(fp, "%s @%" PRIu64 " FPDUPTR %u %s",
				i ? "," : ":", f->markers[i].off,
				f->markers[i].fpduptr,
				f->markers[i].ok ? "ok" : "BAD");
		fputc('\n', fp);
	}
	if (f->ddp) {
		fputs("    DDP   ", fp);
		txt_ddp(fp, f->ddp);
		fputc('\n', fp);
	} else {
		fprintf(fp, "    DDP   header: %s\n",
			f->ddp_err == WIRE_ESHORT ?
				"ULPDU shorter than a DDP header" :
				wire_strerror(f->ddp_err));
	}
	if (f->msg) {
		txt_rdmap(o, f);
	} else {
		fputs("    RDMAP ", fp);
		if (f->has_ctrl)
			fprintf(fp, "RV=%u opcode 0x%x (%s): ", f->rv,
				f->opcode, rdmap_opcode_name(f->opcode));
		fprintf(fp, "MALFORMED: %s (%s)\n",
			f->rdmap_err == WIRE_ESHORT ?
				"ULPDU shorter than its headers" :
				wire_strerror(f->rdmap_err),
			wire_errname(f->rdmap_err));
	}
	if (f->rtr)
		fprintf(fp, "    RTR %s\n", f->rtr);
	if (f->rtr_problem)
		fprintf(fp, "    ! RTR: %s\n", f->rtr_problem);
	if (f->version_problem)
		fprintf(fp, "    ! %s\n", f->version_problem);
	if (o->flags & OUT_VERBOSE)
		txt_dump(fp, f->raw, f->raw_len, "      ");
}

static void txt_event(struct out_sink *o, const struct out_event *e)
{
	FILE *fp = o->fp;

	if (e->conn)
		fprintf(fp, "conn %u ", e->conn);
	if (e->dir != OUT_DIR_NONE)
		fprintf(fp, "%s ", out_dir_name(e->dir));
	if (e->has_off)
		fprintf(fp, "@%" PRIu64 " ", e->off);
	fprintf(fp, "%s%s: %s\n", e->bad ? "ERROR " : "", out_ev_name(e->kind),
		e->msg);
}

static void txt_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
	fprintf(o->fp, "conn %u: end: %s %lu FPDUs (%" PRIu64 " octets), %s "
		"%lu FPDUs (%" PRIu64 " octets)\n", c->conn,
		out_dir_name(c->dir0), c->fpdus[0], c->bytes[0],
		out_dir_name(c->dir1), c->fpdus[1], c->bytes[1]);
}

static void txt_summary(struct out_sink *o, const struct out_summary *s)
{
	fprintf(o->fp, "summary: %s: %lu packets, %lu TCP segments, %lu "
		"connections, %lu MPA frames, %lu FPDUs; %lu CRC bad, %lu "
		"marker bad, %lu malformed, %lu other errors\n", s->input,
		s->packets, s->tcp_segments, s->conns, s->frames, s->fpdus,
		s->crc_bad, s->marker_bad, s->malformed, s->errors);
}

const struct output output_text = {
	.name = "text",
	.conn = txt_conn,
	.frame = txt_frame,
	.params = txt_params,
	.fpdu = txt_fpdu,
	.event = txt_event,
	.conn_end = txt_conn_end,
	.summary = txt_summary,
};

/* ---- JSON lines ---- */

#define JW_DEPTH 8

struct jw {
	FILE *fp;
	int depth;
	bool first[JW_DEPTH];
};

static void json_str(FILE *fp, const char *s, size_t n)
{
	size_t i;

	fputc('"', fp);
	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		default:
			/* control and non-ASCII octets escaped: the output
			 * is ASCII whatever the input held */
			if (c < 0x20 || c >= 0x7f)
				fprintf(fp, "\\u%04x", c);
			else
				fputc(c, fp);
		}
	}
	fputc('"', fp);
}

static void jw_sep(struct jw *w)
{
	if (!w->first[w->depth])
		fputc(',', w->fp);
	w->first[w->depth] = false;
}

static void jw_key(struct jw *w, const char *k)
{
	jw_sep(w);
	json_str(w->fp, k, strlen(k));
	fputc(':', w->fp);
}

static void jw_open(struct jw *w, const char *k, char c)
{
	if (k)
		jw_key(w, k);
	else
		jw_sep(w);
	fputc(c, w->fp);
	if (w->depth < JW_DEPTH - 1)
		w->depth++;
	w->first[w->depth] = true;
}

static void jw_close(struct jw *w, char c)
{
	fputc(c, w->fp);
	if (w->depth > 0)
		w->depth--;
}

static void jw_begin(struct jw *w, FILE *fp, const char *type)
{
	w->fp = fp;
	w->depth = 0;
	w->first[0] = true;
	jw_open(w, NULL, '{');
	jw_key(w, "type");
	json_str(fp, type, strlen(type));
}

static void jw_end(struct jw *w)
{
	jw_close(w, '}');
	fputc('\n', w->fp);
}

static void jw_str(struct jw *w, const char *k, const char *v)
{
	jw_key(w, k);
	json_str(w->fp, v, strlen(v));
}

static void jw_uint(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	fprintf(w->fp, "%" PRIu64, v);
}

static void jw_bool(struct jw *w, const char *k, bool v)
{
	jw_key(w, k);
	fputs(v ? "true" : "false", w->fp);
}

static void jw_hex32(struct jw *w, const char *k, uint32_t v)
{
	jw_key(w, k);
	fprintf(w->fp, "\"0x%08" PRIx32 "\"", v);
}

static void jw_hex64(struct jw *w, const char *k, uint64_t v)
{
	jw_key(w, k);
	fprintf(w->fp, "\"0x%016" PRIx64 "\"", v);
}

static void jw_bytes(struct jw *w, const char *k, const uint8_t *p, size_t n)
{
	jw_key(w, k);
	fputc('"', w->fp);
	put_hex(w->fp, p, n, NULL);
	fputc('"', w->fp);
}

static void jw_rtr_set(struct jw *w, const char *k, uint8_t rtr)
{
	jw_open(w, k, '[');
	if (rtr & MPA_RTR_SEND) {
		jw_sep(w);
		json_str(w->fp, "send", 4);
	}
	if (rtr & MPA_RTR_WRITE) {
		jw_sep(w);
		json_str(w->fp, "write", 5);
	}
	if (rtr & MPA_RTR_READ) {
		jw_sep(w);
		json_str(w->fp, "read", 4);
	}
	jw_close(w, ']');
}

static void jw_dir(struct jw *w, unsigned int conn, enum out_dir dir,
		   const char *src, const char *dst)
{
	jw_uint(w, "conn", conn);
	jw_str(w, "dir", out_dir_name(dir));
	jw_str(w, "src", src);
	jw_str(w, "dst", dst);
}

static void js_conn(struct out_sink *o, const struct out_conn *c)
{
	struct jw w;

	jw_begin(&w, o->fp, "conn");
	jw_uint(&w, "conn", c->conn);
	jw_str(&w, "a", c->a);
	jw_str(&w, "b", c->b);
	jw_end(&w);
}

static void js_frame(struct out_sink *o, const struct out_frame *fr)
{
	const struct mpa_frame *f = fr->f;
	struct jw w;

	jw_begin(&w, o->fp, "frame");
	jw_dir(&w, fr->conn, fr->dir, fr->src, fr->dst);
	jw_uint(&w, "offset", fr->off);
	jw_str(&w, "frame", frame_type_name(f->type));
	jw_key(&w, "key");
	json_str(w.fp, (const char *)fr->raw,
		 fr->raw_len < MPA_KEY_LEN ? fr->raw_len : MPA_KEY_LEN);
	jw_uint(&w, "length", fr->raw_len);
	jw_key(&w, "flags");
	fprintf(w.fp, "\"0x%02x\"", f->flags);
	jw_uint(&w, "m", !!(f->flags & MPA_FLAG_M));
	jw_uint(&w, "c", !!(f->flags & MPA_FLAG_C));
	jw_uint(&w, "r", !!(f->flags & MPA_FLAG_R));
	jw_uint(&w, "s", !!(f->flags & MPA_FLAG_S));
	jw_uint(&w, "res", f->flags & MPA_FLAG_RES);
	jw_uint(&w, "rev", f->rev);
	jw_uint(&w, "pd_length", f->pd_len);
	jw_bytes(&w, "private_data", f->pd, f->pd_len);
	jw_bool(&w, "enhanced", f->enhanced);
	if (f->enhanced) {
		const struct mpa_enh *e = &f->enh;

		jw_open(&w, "enh", '{');
		jw_hex32(&w, "word", mpa_enh_word(e));
		jw_uint(&w, "a", e->p2p);
		jw_uint(&w, "b", !!(e->rtr & MPA_RTR_SEND));
		jw_uint(&w, "c", !!(e->rtr & MPA_RTR_WRITE));
		jw_uint(&w, "d", !!(e->rtr & MPA_RTR_READ));
		jw_uint(&w, "ird", e->ird);
		jw_uint(&w, "ord", e->ord);
		jw_close(&w, '}');
		jw_bytes(&w, "ulp_private_data", f->ulp_pd, f->ulp_pd_len);
	}
	if (fr->key_rtr_lower)
		jw_bool(&w, "key_rtr_lower", true);
	if (o->flags & OUT_VERBOSE)
		jw_bytes(&w, "wire", fr->raw, fr->raw_len);
	jw_end(&w);
}

static void js_params(struct out_sink *o, const struct out_params *p)
{
	struct jw w;

	jw_begin(&w, o->fp, "negotiated");
	jw_uint(&w, "conn", p->conn);
	jw_str(&w, "initiator", p->initiator);
	jw_str(&w, "responder", p->responder);
	jw_uint(&w, "rev_request", p->rev_req);
	jw_uint(&w, "rev_reply", p->rev_rep);
	jw_bool(&w, "rejected", p->rejected);
	jw_bool(&w, "rdmac", p->rdmac);
	jw_bool(&w, "markers_i2r", p->markers_i2r);
	jw_bool(&w, "markers_r2i", p->markers_r2i);
	jw_str(&w, "crc", p->crc ? "on" : "off");
	jw_uint(&w, "version", p->version);
	jw_bool(&w, "enhanced", p->enhanced);
	jw_bool(&w, "p2p", p->p2p);
	if (p->enhanced) {
		jw_uint(&w, "ird_request", p->ird_req);
		jw_uint(&w, "ord_request", p->ord_req);
		jw_uint(&w, "ird_reply", p->ird_rep);
		jw_uint(&w, "ord_reply", p->ord_rep);
		jw_rtr_set(&w, "rtr_offered", p->rtr_offered);
		jw_rtr_set(&w, "rtr_allowed", p->rtr_allowed);
	}
	if (p->problem)
		jw_str(&w, "problem", p->problem);
	jw_end(&w);
}

static void js_ddp(struct jw *w, const char *k, const struct ddp_hdr *h)
{
	jw_open(w, k, '{');
	jw_uint(w, "t", h->tagged);
	jw_uint(w, "l", h->last);
	jw_uint(w, "rsvd", h->rsvd);
	jw_uint(w, "dv", h->dv);
	if (h->tagged) {
		jw_hex32(w, "stag", h->stag);
		jw_hex64(w, "to", h->to);
	} else {
		jw_hex32(w, "rsvd_ulp", h->rsvd_ulp32);
		jw_uint(w, "qn", h->qn);
		jw_uint(w, "msn", h->msn);
		jw_uint(w, "mo", h->mo);
	}
	jw_close(w, '}');
}

static void js_read_req(struct jw *w, const char *k,
			const struct rdmap_read_req *r)
{
	jw_open(w, k, '{');
	jw_hex32(w, "sink_stag", r->sink_stag);
	jw_hex64(w, "sink_to", r->sink_to);
	jw_uint(w, "size", r->size);
	jw_hex32(w, "src_stag", r->src_stag);
	jw_hex64(w, "src_to", r->src_to);
	jw_close(w, '}');
}

static void js_term(struct jw *w, const struct rdmap_term *t)
{
	struct ddp_hdr h;
	struct rdmap_read_req rr;
	size_t used;

	jw_open(w, "term", '{');
	jw_uint(w, "layer", t->layer);
	jw_str(w, "layer_name", rdmap_term_layer_name(t->layer));
	jw_uint(w, "etype", t->etype);
	jw_str(w, "etype_name", rdmap_term_etype_name(t->layer, t->etype));
	jw_uint(w, "ecode", t->ecode);
	jw_str(w, "ecode_name",
	       rdmap_term_ecode_name(t->layer, t->etype, t->ecode));
	jw_uint(w, "hdrct_m", !!(t->hdrct & RDMAP_TERM_HDRCT_M));
	jw_uint(w, "hdrct_d", !!(t->hdrct & RDMAP_TERM_HDRCT_D));
	jw_uint(w, "hdrct_r", !!(t->hdrct & RDMAP_TERM_HDRCT_R));
	if (t->has_ddp_seg_len)
		jw_uint(w, "ddp_seg_len", t->ddp_seg_len);
	if ((t->hdrct & RDMAP_TERM_HDRCT_D) && t->ddp_hdr_len) {
		if (ddp_hdr_parse(t->ddp_hdr, t->ddp_hdr_len, &h, &used) ==
		    WIRE_OK) {
			js_ddp(w, "ddp", &h);
			jw_uint(w, "rdmap_rv", h.rsvd_ulp8 >> RDMAP_RV_SHIFT);
			jw_uint(w, "rdmap_opcode",
				h.rsvd_ulp8 & RDMAP_OPCODE_MASK);
		}
		jw_bytes(w, "ddp_raw", t->ddp_hdr, t->ddp_hdr_len);
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R) {
		if (rdmap_read_req_parse(t->rdma_hdr, sizeof(t->rdma_hdr),
					 &rr) == WIRE_OK)
			js_read_req(w, "read_req", &rr);
		jw_bytes(w, "rdma_raw", t->rdma_hdr, sizeof(t->rdma_hdr));
	}
	jw_close(w, '}');
}

static void js_rdmap(struct jw *w, const struct rdmap_msg *m)
{
	jw_open(w, "rdmap", '{');
	jw_uint(w, "rv", m->rv);
	jw_uint(w, "rsvd", m->ctrl_rsvd);
	jw_uint(w, "opcode", m->opcode);
	jw_str(w, "name", rdmap_opcode_name(m->opcode));
	if (opcode_has_inv(m->opcode))
		jw_hex32(w, "inv_stag", m->inv_stag);
	switch (m->opcode) {
	case RDMAP_READ_REQ:
		js_read_req(w, "read_req", &m->u.read_req);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		jw_key(w, "imm");
		fputs("\"0x", w->fp);
		put_hex(w->fp, m->u.imm, sizeof(m->u.imm), NULL);
		fputc('"', w->fp);
		break;
	case RDMAP_ATOMIC_REQ: {
		const struct rdmap_atomic_req *a = &m->u.atomic_req;

		jw_open(w, "atomic_req", '{');
		jw_uint(w, "aopcode", a->aopcode);
		jw_str(w, "aop", rdmap_aopcode_name(a->aopcode));
		jw_hex32(w, "req_id", a->req_id);
		jw_hex32(w, "stag", a->stag);
		jw_hex64(w, "to", a->to);
		jw_hex64(w, "add_swap", a->add_swap);
		jw_hex64(w, "add_swap_mask", a->add_swap_mask);
		jw_hex64(w, "cmp", a->cmp);
		jw_hex64(w, "cmp_mask", a->cmp_mask);
		jw_close(w, '}');
		break;
	}
	case RDMAP_ATOMIC_RESP:
		jw_open(w, "atomic_resp", '{');
		jw_hex32(w, "req_id", m->u.atomic_resp.req_id);
		jw_hex64(w, "orig", m->u.atomic_resp.orig);
		jw_close(w, '}');
		break;
	case RDMAP_TERMINATE:
		js_term(w, &m->u.term);
		break;
	default:
		break;
	}
	jw_close(w, '}');
}

static void js_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	struct jw w;
	unsigned int i;
	size_t n;

	jw_begin(&w, o->fp, "fpdu");
	jw_dir(&w, f->conn, f->dir, f->src, f->dst);
	jw_uint(&w, "index", f->index);
	jw_uint(&w, "offset", f->off);
	jw_uint(&w, "hdr_offset", f->hdr_off);
	jw_uint(&w, "wire_length", f->wire_len);
	jw_uint(&w, "ulpdu_length", f->ulpdu_len);
	jw_uint(&w, "pad", f->pad);
	jw_str(&w, "crc", out_crc_name(f->crc));
	jw_hex32(&w, "crc_wire", f->crc_wire);
	if (f->crc == OUT_CRC_BAD || f->crc == OUT_CRC_UNKNOWN)
		jw_hex32(&w, "crc_calc", f->crc_calc);
	if (f->crc == OUT_CRC_UNKNOWN)
		jw_str(&w, "crc_check", f->crc_match ? "matches" : "differs");
	jw_open(&w, "markers", '{');
	jw_uint(&w, "count", f->n_markers);
	jw_bool(&w, "ok", f->markers_ok);
	jw_open(&w, "list", '[');
	for (i = 0; i < f->n_markers; i++) {
		jw_open(&w, NULL, '{');
		jw_uint(&w, "offset", f->markers[i].off);
		jw_uint(&w, "fpduptr", f->markers[i].fpduptr);
		jw_uint(&w, "expect", f->markers[i].expect);
		jw_bool(&w, "ok", f->markers[i].ok);
		jw_close(&w, '}');
	}
	jw_close(&w, ']');
	jw_close(&w, '}');
	if (f->ddp)
		js_ddp(&w, "ddp", f->ddp);
	else
		jw_str(&w, "ddp_error", wire_errname(f->ddp_err));
	if (f->msg) {
		js_rdmap(&w, f->msg);
		jw_uint(&w, "payload_length", f->msg->payload_len);
		n = brief_len(o, f->msg->payload_len);
		jw_bytes(&w, "payload", f->msg->payload, n);
		jw_bool(&w, "payload_truncated", n < f->msg->payload_len);
	} else {
		if (f->has_ctrl) {
			jw_uint(&w, "rdmap_rv", f->rv);
			jw_uint(&w, "rdmap_opcode", f->opcode);
		}
		jw_str(&w, "rdmap_error", wire_errname(f->rdmap_err));
		jw_str(&w, "error_text", f->rdmap_err == WIRE_ESHORT ?
				 "ULPDU shorter than its headers" :
				 wire_strerror(f->rdmap_err));
	}
	if (f->rtr)
		jw_str(&w, "rtr", f->rtr);
	if (f->rtr_problem)
		jw_str(&w, "rtr_problem", f->rtr_problem);
	if (f->version_problem)
		jw_str(&w, "version_problem", f->version_problem);
	jw_bool(&w, "bad", f->bad);
	if (o->flags & OUT_VERBOSE)
		jw_bytes(&w, "wire", f->raw, f->raw_len);
	jw_end(&w);
}

static void js_event(struct out_sink *o, const struct out_event *e)
{
	struct jw w;

	jw_begin(&w, o->fp, "event");
	if (e->conn)
		jw_uint(&w, "conn", e->conn);
	if (e->dir != OUT_DIR_NONE)
		jw_str(&w, "dir", out_dir_name(e->dir));
	if (e->has_off)
		jw_uint(&w, "offset", e->off);
	jw_str(&w, "event", out_ev_name(e->kind));
	jw_bool(&w, "bad", e->bad);
	jw_str(&w, "message", e->msg);
	jw_end(&w);
}

static void js_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
	struct jw w;

	jw_begin(&w, o->fp, "conn_end");
	jw_uint(&w, "conn", c->conn);
	jw_open(&w, "fpdus", '{');
	jw_uint(&w, out_dir_name(c->dir0), c->fpdus[0]);
	jw_uint(&w, out_dir_name(c->dir1), c->fpdus[1]);
	jw_close(&w, '}');
	jw_open(&w, "octets", '{');
	jw_uint(&w, out_dir_name(c->dir0), c->bytes[0]);
	jw_uint(&w, out_dir_name(c->dir1), c->bytes[1]);
	jw_close(&w, '}');
	jw_end(&w);
}

static void js_summary(struct out_sink *o, const struct out_summary *s)
{
	struct jw w;

	jw_begin(&w, o->fp, "summary");
	jw_str(&w, "input", s->input);
	jw_uint(&w, "packets", s->packets);
	jw_uint(&w, "tcp_segments", s->tcp_segments);
	jw_uint(&w, "ip_fragments", s->ip_fragments);
	jw_uint(&w, "skipped", s->skipped);
	jw_uint(&w, "connections", s->conns);
	jw_uint(&w, "frames", s->frames);
	jw_uint(&w, "fpdus", s->fpdus);
	jw_uint(&w, "crc_bad", s->crc_bad);
	jw_uint(&w, "marker_bad", s->marker_bad);
	jw_uint(&w, "malformed", s->malformed);
	jw_uint(&w, "errors", s->errors);
	jw_uint(&w, "exit", (uint64_t)s->exit_status);
	jw_end(&w);
}

const struct output output_json = {
	.name = "json",
	.conn = js_conn,
	.frame = js_frame,
	.params = js_params,
	.fpdu = js_fpdu,
	.event = js_event,
	.conn_end = js_conn_end,
	.summary = js_summary,
};

/* ---- null ---- */

static void nul_conn(struct out_sink *o, const struct out_conn *c)
{
}

static void nul_frame(struct out_sink *o, const struct out_frame *f)
{
}

static void nul_params(struct out_sink *o, const struct out_params *p)
{
}

static void nul_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
}

static void nul_event(struct out_sink *o, const struct out_event *e)
{
}

static void nul_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
}

static void nul_summary(struct out_sink *o, const struct out_summary *s)
{
}

const struct output output_null = {
	.name = "null",
	.conn = nul_conn,
	.frame = nul_frame,
	.params = nul_params,
	.fpdu = nul_fpdu,
	.event = nul_event,
	.conn_end = nul_conn_end,
	.summary = nul_summary,
};
