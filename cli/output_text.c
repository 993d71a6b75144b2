/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The text output of iwcmctl decode: one readable block per PDU.
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "output.h"
#include "vocab.h"

static void txt_dump(FILE *fp, const uint8_t *p, size_t n, const char *ind)
{
	size_t i;

	for (i = 0; i < n; i += 16) {
		size_t k = n - i < 16 ? n - i : 16;

		fprintf(fp, "%s%04zx  ", ind, i);
		out_put_hex(fp, p + i, k, " ");
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
	char buf[24];

	fputs(vocab_rtr_list(rtr, buf, sizeof(buf)), fp);
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
	fprintf(fp, "%s, %zu octets\n    key ", out_frame_title(f->type),
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
	if (!f->enhanced && (f->flags & MPA_FLAG_S) && f->type != MPA_FRAME_RTR)
		/* seed 003: S in a Rev 1 frame announces the RtR frame */
		fprintf(fp, "    S=1 with Rev %u: %s (seed 003)\n", f->rev,
			f->type == MPA_FRAME_REQ ? "will send an RtR frame" :
						   "waits for an RtR frame");
	if (f->enhanced) {
		const struct mpa_enh *e = &f->enh;

		fprintf(fp,
			"    enhanced 0x%08" PRIx32 ": A=%d B=%d C=%d D=%d "
			"IRD=%u ORD=%u",
			mpa_enh_word(e), e->p2p, !!(e->rtr & MPA_RTR_SEND),
			!!(e->rtr & MPA_RTR_WRITE), !!(e->rtr & MPA_RTR_READ),
			e->ird, e->ord);
		if (e->ird == MPA_IRD_ORD_NONE || e->ord == MPA_IRD_ORD_NONE)
			fputs(" (0x3fff: no automatic negotiation)", fp);
		fprintf(fp, "\n    %s",
			e->p2p ? "peer-to-peer, RTR " : "client-server\n");
		if (e->p2p) {
			txt_rtr_set(fp, e->rtr);
			fputc('\n', fp);
		}
		if (f->ulp_pd_len) {
			fprintf(fp, "    ULP private data (%u octets): ",
				f->ulp_pd_len);
			out_put_hex(fp, f->ulp_pd, f->ulp_pd_len, NULL);
			fputc('\n', fp);
		}
	} else if (f->pd_len) {
		fprintf(fp, "    private data (%u octets): ", f->pd_len);
		out_put_hex(fp, f->pd, f->pd_len, NULL);
		fputc('\n', fp);
	}
	if (o->flags & OUT_VERBOSE)
		txt_dump(fp, fr->raw, fr->raw_len, "      ");
}

static void txt_params(struct out_sink *o, const struct out_params *p)
{
	FILE *fp = o->fp;

	fprintf(fp,
		"conn %u: negotiated: initiator %s, responder %s, Rev "
		"%u/%u%s",
		p->conn, p->initiator, p->responder, p->rev_req, p->rev_rep,
		p->rdmac ? " (RDMA Consortium)" : "");
	if (p->rejected) {
		fputs(", REJECTED\n", fp);
		return;
	}
	fprintf(fp,
		"\n    markers i2r %s, r2i %s; CRC %s; DDP/RDMAP "
		"version %u\n",
		p->markers_i2r ? "on" : "off", p->markers_r2i ? "on" : "off",
		p->crc ? "on" : "off", p->version);
	if (p->enhanced) {
		fprintf(fp,
			"    enhanced: IRD/ORD request %u/%u, reply "
			"%u/%u; %s",
			p->ird_req, p->ord_req, p->ird_rep, p->ord_rep,
			p->p2p ? "peer-to-peer, RTR offered " :
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
	fprintf(fp,
		"sink STag 0x%08" PRIx32 " TO 0x%016" PRIx64 " size %" PRIu32
		", source STag 0x%08" PRIx32 " TO 0x%016" PRIx64,
		r->sink_stag, r->sink_to, r->size, r->src_stag, r->src_to);
}

static void txt_term(FILE *fp, const struct rdmap_term *t)
{
	struct ddp_hdr h;
	struct rdmap_read_req rr;
	size_t used;

	fprintf(fp,
		":\n      layer %u (%s) etype %u (%s) code 0x%02x "
		"(%s)\n      HdrCt M=%d D=%d R=%d",
		t->layer, rdmap_term_layer_name(t->layer), t->etype,
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
			out_put_hex(fp, t->ddp_hdr, t->ddp_hdr_len, " ");
		}
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R) {
		fputs("\n      terminated RDMA header: ", fp);
		if (rdmap_read_req_parse(t->rdma_hdr, sizeof(t->rdma_hdr),
					 &rr) == WIRE_OK)
			txt_read_req(fp, &rr);
		else
			out_put_hex(fp, t->rdma_hdr, sizeof(t->rdma_hdr), " ");
	}
}

/* Opcodes whose payload is ULP data, so a length of 0 is worth showing. */
static int opcode_carries_data(uint8_t op)
{
	return op <= RDMAP_SEND_SE_INV && op != RDMAP_READ_REQ &&
	       op != RDMAP_TERMINATE;
}

static void txt_rdmap(struct out_sink *o, const struct rdmap_msg *m)
{
	FILE *fp = o->fp;
	size_t n;

	fprintf(fp, "    RDMAP RV=%u %s", m->rv, rdmap_opcode_name(m->opcode));
	if (m->ctrl_rsvd)
		fprintf(fp, " Rsvd=0x%x", m->ctrl_rsvd);
	if (out_opcode_has_inv(m->opcode))
		fprintf(fp, ", Invalidate STag 0x%08" PRIx32, m->inv_stag);
	switch (m->opcode) {
	case RDMAP_READ_REQ:
		fputs(":\n      ", fp);
		txt_read_req(fp, &m->u.read_req);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		fputs(" 0x", fp);
		out_put_hex(fp, m->u.imm, sizeof(m->u.imm), NULL);
		break;
	case RDMAP_ATOMIC_REQ: {
		const struct rdmap_atomic_req *a = &m->u.atomic_req;

		fprintf(fp,
			": %s (AOpCode %u) request id 0x%08" PRIx32
			"\n      STag 0x%08" PRIx32 " TO 0x%016" PRIx64
			"\n      add/swap 0x%016" PRIx64 " mask 0x%016" PRIx64
			"\n      compare  0x%016" PRIx64 " mask 0x%016" PRIx64,
			rdmap_aopcode_name(a->aopcode), a->aopcode, a->req_id,
			a->stag, a->to, a->add_swap, a->add_swap_mask, a->cmp,
			a->cmp_mask);
		break;
	}
	case RDMAP_ATOMIC_RESP:
		fprintf(fp,
			": request id 0x%08" PRIx32 " original 0x%016" PRIx64,
			m->u.atomic_resp.req_id, m->u.atomic_resp.orig);
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
	n = out_brief_len(o, m->payload_len);
	if (n) {
		fputs("    data  ", fp);
		out_put_hex(fp, m->payload, n, " ");
		if (n < m->payload_len)
			fputs(" ...", fp);
		fputc('\n', fp);
	}
}

static void txt_rdmap_bad(FILE *fp, bool has_ctrl, uint8_t rv, uint8_t opcode,
			  enum wire_err err)
{
	fputs("    RDMAP ", fp);
	if (has_ctrl)
		fprintf(fp, "RV=%u opcode 0x%x (%s): ", rv, opcode,
			rdmap_opcode_name(opcode));
	fprintf(fp, "MALFORMED: %s (%s)\n",
		err == WIRE_ESHORT ? "ULPDU shorter than its headers" :
				     wire_strerror(err),
		wire_errname(err));
}

static void txt_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	FILE *fp = o->fp;
	unsigned int i;

	txt_head(o, f->conn, f->dir, f->src, f->dst);
	fprintf(fp,
		"FPDU %lu @%" PRIu64 " ULPDU_Length %u pad %u (%zu "
		"octets), ",
		f->index, f->off, f->ulpdu_len, f->pad, f->wire_len);
	switch (f->crc) {
	case OUT_CRC_OFF:
		fprintf(fp, "CRC off (field 0x%08" PRIx32 ")", f->crc_wire);
		break;
	case OUT_CRC_GOOD:
		fprintf(fp, "CRC good 0x%08" PRIx32, f->crc_wire);
		break;
	case OUT_CRC_BAD:
		fprintf(fp,
			"CRC BAD: wire 0x%08" PRIx32 ", computed 0x%08" PRIx32,
			f->crc_wire, f->crc_calc);
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
	if (f->msg)
		txt_rdmap(o, f->msg);
	else
		txt_rdmap_bad(fp, f->has_ctrl, f->rv, f->opcode, f->rdmap_err);
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
	if (e->assoc)
		fprintf(fp, "assoc %u ", e->assoc);
	if (e->dir != OUT_DIR_NONE)
		fprintf(fp, "%s ", out_dir_name(e->dir));
	if (e->has_off)
		fprintf(fp, "@%" PRIu64 " ", e->off);
	fprintf(fp, "%s%s: %s\n", e->bad ? "ERROR " : "", out_ev_name(e->kind),
		e->msg);
}

static void txt_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
	fprintf(o->fp,
		"conn %u: end: %s %lu FPDUs (%" PRIu64 " octets), %s "
		"%lu FPDUs (%" PRIu64 " octets)\n",
		c->conn, out_dir_name(c->dir0), c->fpdus[0], c->bytes[0],
		out_dir_name(c->dir1), c->fpdus[1], c->bytes[1]);
}

static void txt_summary(struct out_sink *o, const struct out_summary *s)
{
	fprintf(o->fp,
		"summary: %s: %lu packets, %lu TCP segments, %lu "
		"connections, %lu MPA frames, %lu FPDUs; %lu CRC bad, %lu "
		"marker bad, %lu malformed, %lu other errors\n",
		s->input, s->packets, s->tcp_segments, s->conns, s->frames,
		s->fpdus, s->crc_bad, s->marker_bad, s->malformed, s->errors);
	if (s->sctp_packets)
		fprintf(o->fp,
			"summary: SCTP: %lu packets, %lu associations, %lu "
			"session control messages, %lu DDP segments; %lu "
			"CRC32c bad\n",
			s->sctp_packets, s->assocs, s->ss_msgs, s->ddp_segments,
			s->sctp_crc_bad);
}

/* ---- SCTP ---- */

static void txt_assoc(struct out_sink *o, const struct out_assoc *a)
{
	fprintf(o->fp, "assoc %u: %s <-> %s", a->assoc, a->a, a->b);
	if (a->udp)
		fprintf(o->fp, " (SCTP over UDP %u <-> %u)", a->udp_a,
			a->udp_b);
	else
		fputs(" (SCTP)", o->fp);
	fputc('\n', o->fp);
}

static void txt_sctp_pkt(struct out_sink *o, const struct out_sctp_pkt *p)
{
	FILE *fp = o->fp;

	fprintf(fp,
		"assoc %u %s %s > %s: SCTP packet %lu, %zu octets, vtag "
		"0x%08" PRIx32 ", ",
		p->assoc, out_dir_name(p->dir), p->src, p->dst, p->index,
		p->len, p->vtag);
	if (p->crc_ok)
		fprintf(fp, "CRC32c good 0x%08" PRIx32 "\n", p->crc_wire);
	else
		fprintf(fp,
			"CRC32c BAD: wire 0x%08" PRIx32
			", computed 0x%08" PRIx32 "  [BAD]\n",
			p->crc_wire, p->crc_calc);
	if (o->flags & OUT_VERBOSE)
		txt_dump(fp, p->raw, p->len, "      ");
}

static void txt_sctp_chunk(struct out_sink *o, const struct out_sctp_chunk *c)
{
	FILE *fp = o->fp;

	fprintf(fp, "  %s", c->name);
	if (c->data) {
		fprintf(fp, " TSN %" PRIu32 " stream %u %s %" PRIu32, c->tsn,
			c->stream, c->idata ? "MID" : "SSN", c->ssn);
		if (c->has_ppid)
			fprintf(fp, " PPID %" PRIu32 " (%s)", c->ppid,
				out_ppid_name(c->ppid));
		else
			fprintf(fp, " FSN %" PRIu32, c->fsn);
		fprintf(fp, " U=%d B=%d E=%d, %zu octets%s", c->u, c->b, c->e,
			c->user_len, c->dup ? ", retransmission" : "");
	} else if (c->init) {
		fprintf(fp,
			" init tag 0x%08" PRIx32 " a_rwnd %" PRIu32
			" OS %u MIS %u initial TSN %" PRIu32,
			c->init_tag, c->a_rwnd, c->os, c->mis, c->init_tsn);
		if (c->has_adapt)
			fprintf(fp,
				"\n    adaptation indication 0x%08" PRIx32 "%s",
				c->adapt,
				c->adapt == SCTP_ADAPT_IND_DDP ? " (DDP)" : "");
		else
			fputs("\n    no adaptation indication", fp);
	} else {
		fprintf(fp, " (type %u) flags 0x%02x, %u octets", c->type,
			c->flags, c->len);
		if (c->has_cum_ack)
			fprintf(fp, ", cumulative TSN ack %" PRIu32,
				c->cum_ack);
	}
	fputc('\n', fp);
	if (c->problem)
		fprintf(fp, "    ! %s\n", c->problem);
}

static void txt_ss(FILE *fp, const struct sctp_ss_msg *m)
{
	fprintf(fp, "    DDP Stream Session Control: %s (%u)",
		sctp_ss_fc_name(m->fc), m->fc);
	if (m->enhanced) {
		const struct mpa_enh *e = &m->enh;

		fprintf(fp,
			"\n    enhanced 0x%08" PRIx32 ": A=%d B=%d C=%d D=%d "
			"IRD=%u ORD=%u",
			mpa_enh_word(e), e->p2p, !!(e->rtr & MPA_RTR_SEND),
			!!(e->rtr & MPA_RTR_WRITE), !!(e->rtr & MPA_RTR_READ),
			e->ird, e->ord);
		if (e->ird == MPA_IRD_ORD_NONE || e->ord == MPA_IRD_ORD_NONE)
			fputs(" (0x3fff: no automatic negotiation)", fp);
	}
	fprintf(fp, "\n    private data (%u octets)", m->pd_len);
	if (m->pd_len) {
		fputs(": ", fp);
		out_put_hex(fp, m->pd, m->pd_len, NULL);
	}
	fputc('\n', fp);
	if (m->enhanced && m->ulp_pd_len) {
		fprintf(fp,
			"    ULP private data (%u octets): ", m->ulp_pd_len);
		out_put_hex(fp, m->ulp_pd, m->ulp_pd_len, NULL);
		fputc('\n', fp);
	}
}

static void txt_sctp_msg(struct out_sink *o, const struct out_sctp_msg *m)
{
	FILE *fp = o->fp;
	size_t n;

	fprintf(fp, "  message %lu stream %u PPID %" PRIu32 " (%s), %zu octets",
		m->index, m->stream, m->ppid, m->ppid_name, m->len);
	if (m->frags > 1)
		fprintf(fp, " in %u fragments from TSN %" PRIu32, m->frags,
			m->tsn);
	if (m->has_ssn)
		fprintf(fp, ", DDP-SSN %u", m->ddp_ssn);
	fprintf(fp, "%s\n", m->bad ? "  [BAD]" : "");
	if (m->ppid == SCTP_PPID_DDP_SESSION_CTL) {
		if (m->ss)
			txt_ss(fp, m->ss);
		else
			fprintf(fp,
				"    DDP Stream Session Control MALFORMED: "
				"%s (%s)\n",
				m->ss_err == WIRE_ESHORT ?
					"message shorter than its fixed part" :
					wire_strerror(m->ss_err),
				wire_errname(m->ss_err));
	} else if (m->ppid == SCTP_PPID_DDP_SEGMENT && m->has_ssn) {
		if (m->ddp) {
			fputs("    DDP   ", fp);
			txt_ddp(fp, m->ddp);
			fputc('\n', fp);
		} else {
			fprintf(fp, "    DDP   header: %s\n",
				m->ddp_err == WIRE_ESHORT ?
					"segment shorter than a DDP header" :
					wire_strerror(m->ddp_err));
		}
		if (m->msg)
			txt_rdmap(o, m->msg);
		else
			txt_rdmap_bad(fp, m->has_ctrl, m->rv, m->opcode,
				      m->rdmap_err);
	} else if (m->ppid == SCTP_PPID_DDP_SEGMENT) {
		fputs("    DDP Segment MALFORMED: no DDP-SSN\n", fp);
	} else {
		n = out_brief_len(o, m->len);
		fputs("    not decoded", fp);
		if (n) {
			fputs(": ", fp);
			out_put_hex(fp, m->data, n, " ");
			if (n < m->len)
				fputs(" ...", fp);
		}
		fputc('\n', fp);
	}
	if (m->version_problem)
		fprintf(fp, "    ! %s\n", m->version_problem);
	if (m->seq_problem)
		fprintf(fp, "    ! %s\n", m->seq_problem);
}

static void txt_assoc_end(struct out_sink *o, const struct out_assoc_end *a)
{
	fprintf(o->fp,
		"assoc %u: end: %s %lu packets %lu messages, %s %lu packets "
		"%lu messages\n",
		a->assoc, out_dir_name(a->dir0), a->packets[0], a->messages[0],
		out_dir_name(a->dir1), a->packets[1], a->messages[1]);
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
	.assoc = txt_assoc,
	.sctp_pkt = txt_sctp_pkt,
	.sctp_chunk = txt_sctp_chunk,
	.sctp_msg = txt_sctp_msg,
	.assoc_end = txt_assoc_end,
};
