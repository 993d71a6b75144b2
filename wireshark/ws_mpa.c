/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * MPA over TCP (RFC 5044, RFC 6581) as a Wireshark dissector whose engine
 * is the project's stream decoder (cli/dissect.h): on the first pass the
 * in-order octets of each direction are fed to it, and what it reports
 * through its output vtable (struct output) is kept per packet as
 * records.  This is the TCP reassembly: a PDU is shown in the packet
 * where its last octet arrived, on the packet's own bytes when it lies
 * inside that segment, else on a reassembled copy.  The decoder keeps
 * the per-direction stream offsets that markers (RFC 5044 §4.3) and the
 * negotiated framing need; the conversation keeps the decoder.
 */
#include "config.h"

#include <string.h>

#include <epan/conversation.h>
#include <epan/decode_as.h>
#include <epan/dissectors/packet-tcp.h>
#include <epan/proto_data.h>
#include <epan/to_str.h>

#include "dissect.h"
#include "mpa.h"
#include "ws_mpa.h"

static int proto_mpa = -1;
static dissector_handle_t mpa_handle;

/* One TCP connection: the decoder and where each direction stands. */
struct ws_conv {
	struct out_sink sink; /* first: the callbacks find the conv */
	struct dissect *engine;
	struct dissect_stats st;
	address addr[2];
	guint32 port[2];
	char ep[2][64];
	bool seq_set[2];
	guint32 next_seq[2];	/* TCP sequence number of the next octet */
	uint64_t fed[2];	/* octets handed to the decoder (and lost) */
	uint64_t frames_len[2]; /* octets of startup frames */
	struct ws_pkt *cur;	/* packet being fed */
	struct ws_rec **tail;
};

static const struct output ws_output;

/* ---- the output vtable: reports become records ---- */

static struct ws_conv *sink_conv(struct out_sink *o)
{
	return (struct ws_conv *)o;
}

static int side_of(const struct ws_conv *c, const char *src)
{
	return src && !strcmp(src, c->ep[1]) ? 1 : 0;
}

static struct ws_rec *rec_new(struct ws_conv *c, enum ws_rec_kind kind)
{
	struct ws_rec *r = wmem_new0(wmem_file_scope(), struct ws_rec);

	r->kind = kind;
	if (c->cur) {
		*c->tail = r;
		c->tail = &r->next;
	}
	return r;
}

static const char *dup_str(const char *s)
{
	return s ? wmem_strdup(wmem_file_scope(), s) : NULL;
}

static const void *dup_mem(const void *p, size_t n)
{
	return p && n ? wmem_memdup(wmem_file_scope(), p, n) : NULL;
}

static void ws_conn(struct out_sink *o, const struct out_conn *oc)
{
}

static void ws_frame(struct out_sink *o, const struct out_frame *f)
{
	struct ws_conv *c = sink_conv(o);
	struct ws_rec *r = rec_new(c, WS_REC_FRAME);

	r->side = side_of(c, f->src);
	r->pos = f->off;
	r->raw = dup_mem(f->raw, f->raw_len);
	r->raw_len = f->raw_len;
	r->u.frame = *f;
	r->u.frame.f = NULL;
	r->u.frame.src = dup_str(f->src);
	r->u.frame.dst = dup_str(f->dst);
	r->u.frame.raw = r->raw;
	c->frames_len[r->side] = f->off + f->raw_len;
}

static void ws_params(struct out_sink *o, const struct out_params *p)
{
	struct ws_conv *c = sink_conv(o);
	struct ws_rec *r = rec_new(c, WS_REC_PARAMS);

	r->side = -1;
	r->u.params = *p;
	r->u.params.initiator = dup_str(p->initiator);
	r->u.params.responder = dup_str(p->responder);
	r->u.params.problem = dup_str(p->problem);
}

static void ws_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
	struct ws_conv *c = sink_conv(o);
	struct ws_rec *r = rec_new(c, WS_REC_FPDU);
	struct out_fpdu *k = &r->u.fpdu;

	r->side = side_of(c, f->src);
	/* full operation starts after the side's startup frames */
	r->pos = c->frames_len[r->side] + f->off;
	r->raw = dup_mem(f->raw, f->raw_len);
	r->raw_len = f->raw_len;
	*k = *f;
	k->src = dup_str(f->src);
	k->dst = dup_str(f->dst);
	k->ddp = NULL;
	k->msg = NULL;
	k->raw = r->raw;
	k->ulpdu = dup_mem(f->ulpdu, f->ulpdu_len);
	k->markers = dup_mem(f->markers, f->n_markers * sizeof(*f->markers));
	k->rtr_problem = dup_str(f->rtr_problem);
	k->version_problem = dup_str(f->version_problem);
	/* f->rtr is one of vocab.c's constant names */
}

static void ws_event(struct out_sink *o, const struct out_event *e)
{
	struct ws_conv *c = sink_conv(o);
	struct ws_rec *r = rec_new(c, WS_REC_EVENT);

	r->side = -1;
	r->u.ev = *e;
	r->u.ev.msg = dup_str(e->msg);
}

static void ws_conn_end(struct out_sink *o, const struct out_conn_end *e)
{
}

static void ws_summary(struct out_sink *o, const struct out_summary *s)
{
}

static void ws_assoc(struct out_sink *o, const struct out_assoc *a)
{
}

static void ws_sctp_pkt(struct out_sink *o, const struct out_sctp_pkt *p)
{
}

static void ws_sctp_chunk(struct out_sink *o, const struct out_sctp_chunk *ch)
{
}

static void ws_sctp_msg(struct out_sink *o, const struct out_sctp_msg *m)
{
}

static void ws_assoc_end(struct out_sink *o, const struct out_assoc_end *a)
{
}

static const struct output ws_output = {
	.name = "wireshark",
	.conn = ws_conn,
	.frame = ws_frame,
	.params = ws_params,
	.fpdu = ws_fpdu,
	.event = ws_event,
	.conn_end = ws_conn_end,
	.summary = ws_summary,
	.assoc = ws_assoc,
	.sctp_pkt = ws_sctp_pkt,
	.sctp_chunk = ws_sctp_chunk,
	.sctp_msg = ws_sctp_msg,
	.assoc_end = ws_assoc_end,
};

/* ---- conversations ---- */

/* The decoder lives until the capture file is closed. */
static gboolean conv_free_cb(wmem_allocator_t *allocator, wmem_cb_event_t event,
			     void *user_data)
{
	struct ws_conv *c = user_data;

	dissect_free(c->engine);
	c->engine = NULL;
	return FALSE;
}

static void ep_name(char *buf, size_t len, const address *a, guint32 port)
{
	char *s = address_to_str(NULL, a);

	/* as iwcmctl decode names endpoints: [v6]:port, v4:port */
	snprintf(buf, len, a->type == AT_IPv6 ? "[%s]:%u" : "%s:%u", s, port);
	wmem_free(NULL, s);
}

static struct ws_conv *conv_get(packet_info *pinfo, bool create)
{
	conversation_t *cv = find_or_create_conversation(pinfo);
	struct ws_conv *c = conversation_get_proto_data(cv, proto_mpa);

	if (c || !create)
		return c;
	c = wmem_new0(wmem_file_scope(), struct ws_conv);
	c->sink.ops = &ws_output;
	copy_address_wmem(wmem_file_scope(), &c->addr[0], &pinfo->src);
	copy_address_wmem(wmem_file_scope(), &c->addr[1], &pinfo->dst);
	c->port[0] = pinfo->srcport;
	c->port[1] = pinfo->destport;
	ep_name(c->ep[0], sizeof(c->ep[0]), &pinfo->src, pinfo->srcport);
	ep_name(c->ep[1], sizeof(c->ep[1]), &pinfo->dst, pinfo->destport);
	/* side 0 sent the first packet seen; roles come from the frames */
	c->engine = dissect_new(&c->sink, &c->st, cv->conv_index + 1, c->ep[0],
				c->ep[1], -1);
	if (!c->engine)
		return NULL;
	wmem_register_callback(wmem_file_scope(), conv_free_cb, c);
	conversation_add_proto_data(cv, proto_mpa, c);
	conversation_set_dissector(cv, mpa_handle);
	return c;
}

static int pkt_side(const struct ws_conv *c, const packet_info *pinfo)
{
	return addresses_equal(&pinfo->src, &c->addr[0]) &&
			       pinfo->srcport == c->port[0] ?
		       0 :
		       1;
}

/*
 * First pass: hand the new octets of this segment to the decoder, in
 * sequence order.  Octets seen before (retransmissions) are not fed
 * again; a hole is a gap the decoder is told about (it stops that
 * direction, as iwcmctl decode does when octets are missing).
 */
static void feed(struct ws_conv *c, packet_info *pinfo, tvbuff_t *tvb,
		 const struct tcpinfo *ti, struct ws_pkt *k)
{
	guint cap = tvb_captured_length(tvb);
	guint rep = tvb_reported_length(tvb);
	int s = k->side;
	gint32 delta;
	guint skip = 0;

	if (!c->seq_set[s]) {
		c->seq_set[s] = true;
		c->next_seq[s] = ti ? ti->seq : 0;
	}
	delta = ti ? (gint32)(ti->seq - c->next_seq[s]) : 0;
	if (delta > 0) {
		dissect_gap(c->engine, s, (uint64_t)delta);
		c->fed[s] += (uint64_t)delta;
		c->next_seq[s] += (guint32)delta;
		delta = 0;
	}
	/* in unsigned arithmetic: a segment 2^31 behind is INT32_MIN */
	skip = 0u - (guint32)delta;
	k->seg_pos = c->fed[s] - skip;
	k->seg_len = rep;
	if (skip >= rep) {
		k->retransmission = true;
		return;
	}
	c->cur = k;
	c->tail = &k->recs;
	if (skip < cap)
		dissect_data(c->engine, s, tvb_get_ptr(tvb, skip, cap - skip),
			     cap - skip);
	if (rep > cap)
		/* cut by the capture's snapshot length */
		dissect_gap(c->engine, s, rep - (cap > skip ? cap : skip));
	c->cur = NULL;
	c->fed[s] += rep - skip;
	c->next_seq[s] += rep - skip;
}

static int dissect_mpa(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		       void *data)
{
	const struct tcpinfo *ti = data;
	struct ws_pkt *k;
	struct ws_conv *c;

	k = p_get_proto_data(wmem_file_scope(), pinfo, proto_mpa,
			     pinfo->curr_layer_num);
	if (!k) {
		if (PINFO_FD_VISITED(pinfo))
			return 0;
		c = conv_get(pinfo, true);
		if (!c || !c->engine)
			return 0;
		k = wmem_new0(wmem_file_scope(), struct ws_pkt);
		k->side = pkt_side(c, pinfo);
		feed(c, pinfo, tvb, ti, k);
		p_add_proto_data(wmem_file_scope(), pinfo, proto_mpa,
				 pinfo->curr_layer_num, k);
	}
	ws_mpa_tree(tvb, pinfo, tree, k);
	return (int)tvb_captured_length(tvb);
}

/*
 * RFC 5044 §7.1.1: a connection that will run MPA begins with a startup
 * frame whose 16-octet key says so.  Claim the connection on the first
 * octets of one (the whole key, or all of a shorter segment).
 */
static gboolean heur_mpa(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
			 void *data)
{
	static const uint8_t prefix[] = { 'M', 'P', 'A', ' ', 'I', 'D', ' ' };
	guint len = tvb_captured_length(tvb);
	const uint8_t *p;
	guint n;

	if (len < sizeof(prefix))
		return FALSE;
	p = tvb_get_ptr(tvb, 0, len);
	n = len < MPA_KEY_LEN ? len : MPA_KEY_LEN;
	if (memcmp(p, mpa_key_req, n) && memcmp(p, mpa_key_rep, n))
		return FALSE;
	if (!conv_get(pinfo, true))
		return FALSE;
	dissect_mpa(tvb, pinfo, tree, data);
	return TRUE;
}

/* Register the MPA protocol, its fields and expert infos. */
void ws_mpa_register(void)
{
	proto_mpa = ws_mpa_tree_register();
	mpa_handle = create_dissector_handle(dissect_mpa, proto_mpa);
}

/*
 * Plugins' handoffs run after the built-in ones, and a heuristic list
 * tries its newest entry first: this heuristic sees an MPA startup frame
 * before the built-in iwarp_mpa_tcp, and once it claims the connection
 * the conversation's dissector is this one, so the built-in iWARP
 * dissectors are not asked about its later segments.
 */
void ws_mpa_handoff(void)
{
	heur_dissector_add("tcp", heur_mpa, "MPA over TCP (iwcm)",
			   "iwcm_mpa_tcp", proto_mpa, HEURISTIC_ENABLE);
	/* a capture that starts in full operation: Decode As */
	dissector_add_for_decode_as_with_preference("tcp.port", mpa_handle);
}
