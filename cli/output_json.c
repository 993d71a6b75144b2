/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The JSON output of iwcmctl decode: one object per line and PDU, with
 * the stable field names documented in iwcmctl(8).
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"
#include "output.h"

static void jw_begin(struct json *w, FILE *fp, const char *type)
{
	json_init(w, fp);
	json_open(w, NULL, '{');
	json_str(w, "type", type);
}

static void jw_end(struct json *w)
{
	json_close(w, '}');
	fputc('\n', w->fp);
}

static void jw_dir(struct json *w, unsigned int conn, enum out_dir dir,
		   const char *src, const char *dst)
{
	json_uint(w, "conn", conn);
	json_str(w, "dir", out_dir_name(dir));
	json_str(w, "src", src);
	json_str(w, "dst", dst);
}

static void js_conn(struct out_sink *o, const struct out_conn *c)
{
	struct json w;

	jw_begin(&w, o->fp, "conn");
	json_uint(&w, "conn", c->conn);
	json_str(&w, "a", c->a);
	json_str(&w, "b", c->b);
	jw_end(&w);
}

static void js_frame(struct out_sink *o, const struct out_frame *fr)
{
	const struct mpa_frame *f = fr->f;
	struct json w;

	jw_begin(&w, o->fp, "frame");
	jw_dir(&w, fr->conn, fr->dir, fr->src, fr->dst);
	json_uint(&w, "offset", fr->off);
	json_str(&w, "frame", out_frame_type_name(f->type));
	json_key(&w, "key");
	json_string(w.fp, (const char *)fr->raw,
		    fr->raw_len < MPA_KEY_LEN ? fr->raw_len : MPA_KEY_LEN);
	json_uint(&w, "length", fr->raw_len);
	json_hex8(&w, "flags", f->flags);
	json_uint(&w, "m", !!(f->flags & MPA_FLAG_M));
	json_uint(&w, "c", !!(f->flags & MPA_FLAG_C));
	json_uint(&w, "r", !!(f->flags & MPA_FLAG_R));
	json_uint(&w, "s", !!(f->flags & MPA_FLAG_S));
	json_uint(&w, "res", f->flags & MPA_FLAG_RES);
	json_uint(&w, "rev", f->rev);
	json_uint(&w, "pd_length", f->pd_len);
	json_bytes(&w, "private_data", f->pd, f->pd_len);
	json_bool(&w, "enhanced", f->enhanced);
	if (f->enhanced) {
		const struct mpa_enh *e = &f->enh;

		json_open(&w, "enh", '{');
		json_hex32(&w, "word", mpa_enh_word(e));
		json_uint(&w, "a", e->p2p);
		json_uint(&w, "b", !!(e->rtr & MPA_RTR_SEND));
		json_uint(&w, "c", !!(e->rtr & MPA_RTR_WRITE));
		json_uint(&w, "d", !!(e->rtr & MPA_RTR_READ));
		json_uint(&w, "ird", e->ird);
		json_uint(&w, "ord", e->ord);
		json_close(&w, '}');
		json_bytes(&w, "ulp_private_data", f->ulp_pd, f->ulp_pd_len);
	}
	if (fr->key_rtr_lower)
		json_bool(&w, "key_rtr_lower", true);
	if (o->flags & OUT_VERBOSE)
		json_bytes(&w, "wire", fr->raw, fr->raw_len);
	jw_end(&w);
}

static void js_params(struct out_sink *o, const struct out_params *p)
{
	struct json w;

	jw_begin(&w, o->fp, "negotiated");
	json_uint(&w, "conn", p->conn);
	json_str(&w, "initiator", p->initiator);
	json_str(&w, "responder", p->responder);
	json_uint(&w, "rev_request", p->rev_req);
	json_uint(&w, "rev_reply", p->rev_rep);
	json_bool(&w, "rejected", p->rejected);
	json_bool(&w, "rdmac", p->rdmac);
	json_bool(&w, "markers_i2r", p->markers_i2r);
	json_bool(&w, "markers_r2i", p->markers_r2i);
	json_str(&w, "crc", p->crc ? "on" : "off");
	json_uint(&w, "version", p->version);
	json_bool(&w, "enhanced", p->enhanced);
	json_bool(&w, "p2p", p->p2p);
	if (p->enhanced) {
		json_uint(&w, "ird_request", p->ird_req);
		json_uint(&w, "ord_request", p->ord_req);
		json_uint(&w, "ird_reply", p->ird_rep);
		json_uint(&w, "ord_reply", p->ord_rep);
		json_rtr_array(&w, "rtr_offered", p->rtr_offered);
		json_rtr_array(&w, "rtr_allowed", p->rtr_allowed);
	}
	if (p->problem)
		json_str(&w, "problem", p->problem);
	jw_end(&w);
}

static void js_ddp(struct json *w, const char *k, const struct ddp_hdr *h)
{
	json_open(w, k, '{');
	json_uint(w, "t", h->tagged);
	json_uint(w, "l", h->last);
	json_uint(w, "rsvd", h->rsvd);
	json_uint(w, "dv", h->dv);
	if (h->tagged) {
		json_hex32(w, "stag", h->stag);
		json_hex64(w, "to", h->to);
	} else {
		json_hex32(w, "rsvd_ulp", h->rsvd_ulp32);
		json_uint(w, "qn", h->qn);
		json_uint(w, "msn", h->msn);
		json_uint(w, "mo", h->mo);
	}
	json_close(w, '}');
}

static void js_read_req(struct json *w, const char *k,
			const struct rdmap_read_req *r)
{
	json_open(w, k, '{');
	json_hex32(w, "sink_stag", r->sink_stag);
	json_hex64(w, "sink_to", r->sink_to);
	json_uint(w, "size", r->size);
	json_hex32(w, "src_stag", r->src_stag);
	json_hex64(w, "src_to", r->src_to);
	json_close(w, '}');
}

static void js_term(struct json *w, const struct rdmap_term *t)
{
	struct ddp_hdr h;
	struct rdmap_read_req rr;
	size_t used;

	json_open(w, "term", '{');
	json_uint(w, "layer", t->layer);
	json_str(w, "layer_name", rdmap_term_layer_name(t->layer));
	json_uint(w, "etype", t->etype);
	json_str(w, "etype_name", rdmap_term_etype_name(t->layer, t->etype));
	json_uint(w, "ecode", t->ecode);
	json_str(w, "ecode_name",
		 rdmap_term_ecode_name(t->layer, t->etype, t->ecode));
	json_uint(w, "hdrct_m", !!(t->hdrct & RDMAP_TERM_HDRCT_M));
	json_uint(w, "hdrct_d", !!(t->hdrct & RDMAP_TERM_HDRCT_D));
	json_uint(w, "hdrct_r", !!(t->hdrct & RDMAP_TERM_HDRCT_R));
	if (t->has_ddp_seg_len)
		json_uint(w, "ddp_seg_len", t->ddp_seg_len);
	if ((t->hdrct & RDMAP_TERM_HDRCT_D) && t->ddp_hdr_len) {
		if (ddp_hdr_parse(t->ddp_hdr, t->ddp_hdr_len, &h, &used) ==
		    WIRE_OK) {
			js_ddp(w, "ddp", &h);
			json_uint(w, "rdmap_rv", h.rsvd_ulp8 >> RDMAP_RV_SHIFT);
			json_uint(w, "rdmap_opcode",
				  h.rsvd_ulp8 & RDMAP_OPCODE_MASK);
		}
		json_bytes(w, "ddp_raw", t->ddp_hdr, t->ddp_hdr_len);
	}
	if (t->hdrct & RDMAP_TERM_HDRCT_R) {
		if (rdmap_read_req_parse(t->rdma_hdr, sizeof(t->rdma_hdr),
					 &rr) == WIRE_OK)
			js_read_req(w, "read_req", &rr);
		json_bytes(w, "rdma_raw", t->rdma_hdr, sizeof(t->rdma_hdr));
	}
	json_close(w, '}');
}

static void js_rdmap(struct json *w, const struct rdmap_msg *m)
{
	json_open(w, "rdmap", '{');
	json_uint(w, "rv", m->rv);
	json_uint(w, "rsvd", m->ctrl_rsvd);
	json_uint(w, "opcode", m->opcode);
	json_str(w, "name", rdmap_opcode_name(m->opcode));
	if (out_opcode_has_inv(m->opcode))
		json_hex32(w, "inv_stag", m->inv_stag);
	switch (m->opcode) {
	case RDMAP_READ_REQ:
		js_read_req(w, "read_req", &m->u.read_req);
		break;
	case RDMAP_IMM_DATA:
	case RDMAP_IMM_DATA_SE:
		json_key(w, "imm");
		fputs("\"0x", w->fp);
		out_put_hex(w->fp, m->u.imm, sizeof(m->u.imm), NULL);
		fputc('"', w->fp);
		break;
	case RDMAP_ATOMIC_REQ: {
		const struct rdmap_atomic_req *a = &m->u.atomic_req;

		json_open(w, "atomic_req", '{');
		json_uint(w, "aopcode", a->aopcode);
		json_str(w, "aop", rdmap_aopcode_name(a->aopcode));
		json_hex32(w, "req_id", a->req_id);
		json_hex32(w, "stag", a->stag);
		json_hex64(w, "to", a->to);
		json_hex64(w, "add_swap", a->add_swap);
		json_hex64(w, "add_swap_mask", a->add_swap_mask);
		json_hex64(w, "cmp", a->cmp);
		json_hex64(w, "cmp_mask", a->cmp_mask);
		json_close(w, '}');
		break;
	}
	case RDMAP_ATOMIC_RESP:
		json_open(w, "atomic_resp", '{');
		json_hex32(w, "req_id", m->u.atomic_resp.req_id);
		json_hex64(w, "orig", m->u.atomic_resp.orig);
		json_close(w, '}');
		break;
	case RDMAP_TERMINATE:
		js_term(w, &m->u.term);
		break;
	default:
		break;
	}
	json_close(w, '}');
}

static void js_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	struct json w;
	unsigned int i;
	size_t n;

	jw_begin(&w, o->fp, "fpdu");
	jw_dir(&w, f->conn, f->dir, f->src, f->dst);
	json_uint(&w, "index", f->index);
	json_uint(&w, "offset", f->off);
	json_uint(&w, "hdr_offset", f->hdr_off);
	json_uint(&w, "wire_length", f->wire_len);
	json_uint(&w, "ulpdu_length", f->ulpdu_len);
	json_uint(&w, "pad", f->pad);
	json_str(&w, "crc", out_crc_name(f->crc));
	json_hex32(&w, "crc_wire", f->crc_wire);
	if (f->crc == OUT_CRC_BAD || f->crc == OUT_CRC_UNKNOWN)
		json_hex32(&w, "crc_calc", f->crc_calc);
	if (f->crc == OUT_CRC_UNKNOWN)
		json_str(&w, "crc_check", f->crc_match ? "matches" : "differs");
	json_open(&w, "markers", '{');
	json_uint(&w, "count", f->n_markers);
	json_bool(&w, "ok", f->markers_ok);
	json_open(&w, "list", '[');
	for (i = 0; i < f->n_markers; i++) {
		json_open(&w, NULL, '{');
		json_uint(&w, "offset", f->markers[i].off);
		json_uint(&w, "fpduptr", f->markers[i].fpduptr);
		json_uint(&w, "expect", f->markers[i].expect);
		json_bool(&w, "ok", f->markers[i].ok);
		json_close(&w, '}');
	}
	json_close(&w, ']');
	json_close(&w, '}');
	if (f->ddp)
		js_ddp(&w, "ddp", f->ddp);
	else
		json_str(&w, "ddp_error", wire_errname(f->ddp_err));
	if (f->msg) {
		js_rdmap(&w, f->msg);
		json_uint(&w, "payload_length", f->msg->payload_len);
		n = out_brief_len(o, f->msg->payload_len);
		json_bytes(&w, "payload", f->msg->payload, n);
		json_bool(&w, "payload_truncated", n < f->msg->payload_len);
	} else {
		if (f->has_ctrl) {
			json_uint(&w, "rdmap_rv", f->rv);
			json_uint(&w, "rdmap_opcode", f->opcode);
		}
		json_str(&w, "rdmap_error", wire_errname(f->rdmap_err));
		json_str(&w, "error_text",
			 f->rdmap_err == WIRE_ESHORT ?
				 "ULPDU shorter than its headers" :
				 wire_strerror(f->rdmap_err));
	}
	if (f->rtr)
		json_str(&w, "rtr", f->rtr);
	if (f->rtr_problem)
		json_str(&w, "rtr_problem", f->rtr_problem);
	if (f->version_problem)
		json_str(&w, "version_problem", f->version_problem);
	json_bool(&w, "bad", f->bad);
	if (o->flags & OUT_VERBOSE)
		json_bytes(&w, "wire", f->raw, f->raw_len);
	jw_end(&w);
}

static void js_event(struct out_sink *o, const struct out_event *e)
{
	struct json w;

	jw_begin(&w, o->fp, "event");
	if (e->conn)
		json_uint(&w, "conn", e->conn);
	if (e->assoc)
		json_uint(&w, "assoc", e->assoc);
	if (e->dir != OUT_DIR_NONE)
		json_str(&w, "dir", out_dir_name(e->dir));
	if (e->has_off)
		json_uint(&w, "offset", e->off);
	json_str(&w, "event", out_ev_name(e->kind));
	json_bool(&w, "bad", e->bad);
	json_str(&w, "message", e->msg);
	jw_end(&w);
}

static void js_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
	struct json w;

	jw_begin(&w, o->fp, "conn_end");
	json_uint(&w, "conn", c->conn);
	json_open(&w, "fpdus", '{');
	json_uint(&w, out_dir_name(c->dir0), c->fpdus[0]);
	json_uint(&w, out_dir_name(c->dir1), c->fpdus[1]);
	json_close(&w, '}');
	json_open(&w, "octets", '{');
	json_uint(&w, out_dir_name(c->dir0), c->bytes[0]);
	json_uint(&w, out_dir_name(c->dir1), c->bytes[1]);
	json_close(&w, '}');
	jw_end(&w);
}

static void js_summary(struct out_sink *o, const struct out_summary *s)
{
	struct json w;

	jw_begin(&w, o->fp, "summary");
	json_str(&w, "input", s->input);
	json_uint(&w, "packets", s->packets);
	json_uint(&w, "tcp_segments", s->tcp_segments);
	json_uint(&w, "ip_fragments", s->ip_fragments);
	json_uint(&w, "skipped", s->skipped);
	json_uint(&w, "connections", s->conns);
	json_uint(&w, "frames", s->frames);
	json_uint(&w, "fpdus", s->fpdus);
	json_uint(&w, "crc_bad", s->crc_bad);
	json_uint(&w, "marker_bad", s->marker_bad);
	json_uint(&w, "malformed", s->malformed);
	json_uint(&w, "errors", s->errors);
	if (s->sctp_packets) {
		json_uint(&w, "sctp_packets", s->sctp_packets);
		json_uint(&w, "associations", s->assocs);
		json_uint(&w, "session_control", s->ss_msgs);
		json_uint(&w, "ddp_segments", s->ddp_segments);
		json_uint(&w, "sctp_crc_bad", s->sctp_crc_bad);
	}
	json_uint(&w, "exit", (uint64_t)s->exit_status);
	jw_end(&w);
}

/* ---- SCTP ---- */

static void js_assoc(struct out_sink *o, const struct out_assoc *a)
{
	struct json w;

	jw_begin(&w, o->fp, "assoc");
	json_uint(&w, "assoc", a->assoc);
	json_str(&w, "a", a->a);
	json_str(&w, "b", a->b);
	json_str(&w, "encap", a->udp ? "udp" : "none");
	if (a->udp) {
		json_uint(&w, "udp_a", a->udp_a);
		json_uint(&w, "udp_b", a->udp_b);
	}
	jw_end(&w);
}

static void js_assoc_dir(struct json *w, unsigned int assoc, enum out_dir dir)
{
	json_uint(w, "assoc", assoc);
	json_str(w, "dir", out_dir_name(dir));
}

static void js_sctp_pkt(struct out_sink *o, const struct out_sctp_pkt *p)
{
	struct json w;

	jw_begin(&w, o->fp, "sctp_packet");
	js_assoc_dir(&w, p->assoc, p->dir);
	json_str(&w, "src", p->src);
	json_str(&w, "dst", p->dst);
	json_uint(&w, "index", p->index);
	json_uint(&w, "length", p->len);
	json_uint(&w, "sport", p->sport);
	json_uint(&w, "dport", p->dport);
	json_hex32(&w, "vtag", p->vtag);
	json_str(&w, "crc", p->crc_ok ? "good" : "bad");
	json_hex32(&w, "crc_wire", p->crc_wire);
	if (!p->crc_ok)
		json_hex32(&w, "crc_calc", p->crc_calc);
	json_bool(&w, "bad", !p->crc_ok);
	if (o->flags & OUT_VERBOSE)
		json_bytes(&w, "wire", p->raw, p->len);
	jw_end(&w);
}

static void js_sctp_chunk(struct out_sink *o, const struct out_sctp_chunk *c)
{
	struct json w;

	jw_begin(&w, o->fp, "sctp_chunk");
	js_assoc_dir(&w, c->assoc, c->dir);
	json_uint(&w, "chunk_type", c->type);
	json_str(&w, "name", c->name);
	json_hex8(&w, "flags", c->flags);
	json_uint(&w, "length", c->len);
	if (c->data) {
		json_uint(&w, "tsn", c->tsn);
		json_uint(&w, "stream", c->stream);
		json_uint(&w, c->idata ? "mid" : "ssn", c->ssn);
		if (c->has_ppid) {
			json_uint(&w, "ppid", c->ppid);
			json_str(&w, "ppid_name", out_ppid_name(c->ppid));
		} else {
			json_uint(&w, "fsn", c->fsn);
		}
		json_uint(&w, "u", c->u);
		json_uint(&w, "b", c->b);
		json_uint(&w, "e", c->e);
		json_uint(&w, "user_length", c->user_len);
		json_bool(&w, "retransmission", c->dup);
	}
	if (c->init) {
		json_hex32(&w, "init_tag", c->init_tag);
		json_uint(&w, "a_rwnd", c->a_rwnd);
		json_uint(&w, "os", c->os);
		json_uint(&w, "mis", c->mis);
		json_uint(&w, "initial_tsn", c->init_tsn);
		if (c->has_adapt)
			json_hex32(&w, "adaptation", c->adapt);
		else
			json_null(&w, "adaptation");
	}
	if (c->has_cum_ack)
		json_uint(&w, "cum_tsn_ack", c->cum_ack);
	if (c->problem)
		json_str(&w, "problem", c->problem);
	jw_end(&w);
}

static void js_ss(struct json *w, const struct sctp_ss_msg *m)
{
	json_open(w, "session_control", '{');
	json_uint(w, "function_code", m->fc);
	json_str(w, "name", sctp_ss_fc_name(m->fc));
	json_uint(w, "pd_length", m->pd_len);
	json_bytes(w, "private_data", m->pd, m->pd_len);
	json_bool(w, "enhanced", m->enhanced);
	if (m->enhanced) {
		const struct mpa_enh *e = &m->enh;

		json_open(w, "enh", '{');
		json_hex32(w, "word", mpa_enh_word(e));
		json_uint(w, "a", e->p2p);
		json_uint(w, "b", !!(e->rtr & MPA_RTR_SEND));
		json_uint(w, "c", !!(e->rtr & MPA_RTR_WRITE));
		json_uint(w, "d", !!(e->rtr & MPA_RTR_READ));
		json_uint(w, "ird", e->ird);
		json_uint(w, "ord", e->ord);
		json_close(w, '}');
		json_bytes(w, "ulp_private_data", m->ulp_pd, m->ulp_pd_len);
	}
	json_close(w, '}');
}

static void js_sctp_msg(struct out_sink *o, const struct out_sctp_msg *m)
{
	struct json w;
	size_t n;

	jw_begin(&w, o->fp, "sctp_message");
	js_assoc_dir(&w, m->assoc, m->dir);
	json_str(&w, "src", m->src);
	json_str(&w, "dst", m->dst);
	json_uint(&w, "index", m->index);
	json_uint(&w, "stream", m->stream);
	json_uint(&w, "ppid", m->ppid);
	json_str(&w, "ppid_name", m->ppid_name);
	json_uint(&w, "tsn", m->tsn);
	json_uint(&w, "fragments", m->frags);
	json_bool(&w, "unordered", m->unordered);
	json_uint(&w, "length", m->len);
	if (m->has_ssn)
		json_uint(&w, "ddp_ssn", m->ddp_ssn);
	if (m->ppid == SCTP_PPID_DDP_SESSION_CTL) {
		if (m->ss)
			js_ss(&w, m->ss);
		else
			json_str(&w, "session_control_error",
				 wire_errname(m->ss_err));
	} else if (m->ppid == SCTP_PPID_DDP_SEGMENT && m->has_ssn) {
		if (m->ddp)
			js_ddp(&w, "ddp", m->ddp);
		else
			json_str(&w, "ddp_error", wire_errname(m->ddp_err));
		if (m->msg) {
			js_rdmap(&w, m->msg);
			json_uint(&w, "payload_length", m->msg->payload_len);
			n = out_brief_len(o, m->msg->payload_len);
			json_bytes(&w, "payload", m->msg->payload, n);
			json_bool(&w, "payload_truncated",
				  n < m->msg->payload_len);
		} else {
			if (m->has_ctrl) {
				json_uint(&w, "rdmap_rv", m->rv);
				json_uint(&w, "rdmap_opcode", m->opcode);
			}
			json_str(&w, "rdmap_error", wire_errname(m->rdmap_err));
		}
	} else if (m->ppid == SCTP_PPID_DDP_SEGMENT) {
		json_str(&w, "ddp_error", wire_errname(WIRE_ESHORT));
	} else {
		n = out_brief_len(o, m->len);
		json_bytes(&w, "data", m->data, n);
		json_bool(&w, "data_truncated", n < m->len);
	}
	if (m->version_problem)
		json_str(&w, "version_problem", m->version_problem);
	if (m->seq_problem)
		json_str(&w, "sequence_problem", m->seq_problem);
	json_bool(&w, "bad", m->bad);
	jw_end(&w);
}

static void js_assoc_end(struct out_sink *o, const struct out_assoc_end *a)
{
	struct json w;

	jw_begin(&w, o->fp, "assoc_end");
	json_uint(&w, "assoc", a->assoc);
	json_open(&w, "packets", '{');
	json_uint(&w, out_dir_name(a->dir0), a->packets[0]);
	json_uint(&w, out_dir_name(a->dir1), a->packets[1]);
	json_close(&w, '}');
	json_open(&w, "messages", '{');
	json_uint(&w, out_dir_name(a->dir0), a->messages[0]);
	json_uint(&w, out_dir_name(a->dir1), a->messages[1]);
	json_close(&w, '}');
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
	.assoc = js_assoc,
	.sctp_pkt = js_sctp_pkt,
	.sctp_chunk = js_sctp_chunk,
	.sctp_msg = js_sctp_msg,
	.assoc_end = js_assoc_end,
};
