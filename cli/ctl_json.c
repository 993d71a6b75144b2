/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The JSON output of iwcmctl's admin commands (-j): one document per
 * command, the field names of iwcmctl(8), written by json.h.
 */
#include "config.h"

#include <stdio.h>

#include "ctl_output.h"
#include "json.h"
#include "vocab.h"

/* the document being written; lists span several calls */
static struct json ctl_w;

/* Strings from iwcmd are UTF-8 text. */
static void ctl_json_init(struct json *w)
{
	json_init(w, stdout);
	w->utf8 = true;
}

static void js_result(const char *what, const Iwcm__Ctl__Result *r)
{
	struct json w;

	ctl_json_init(&w);
	json_open(&w, NULL, '{');
	json_str(&w, "result", ctl_result_name(r->result));
	if (r->message)
		json_str(&w, "message", r->message);
	json_close(&w, '}');
	putchar('\n');
}

static void js_status(const Iwcm__Ctl__Status *s)
{
	struct json w;

	ctl_json_init(&w);
	json_open(&w, NULL, '{');
	json_str(&w, "version", s->version);
	json_uint(&w, "pid", s->pid);
	json_uint(&w, "uptime_s", s->uptime_s);
	json_uint(&w, "listeners", s->listeners);
	json_uint(&w, "conns", s->conns);
	json_uint(&w, "clients", s->clients);
	json_bool(&w, "verbose", s->verbose);
	json_close(&w, '}');
	putchar('\n');
}

static void js_list_begin(void)
{
	ctl_json_init(&ctl_w);
	json_open(&ctl_w, NULL, '[');
}

static void js_listener(const Iwcm__Ctl__ListenerInfo *li, unsigned int n)
{
	char a[64];

	json_open(&ctl_w, NULL, '{');
	json_uint(&ctl_w, "id", li->id);
	json_str(&ctl_w, "address", ctl_host_str(li->addr, a, sizeof(a)));
	json_uint(&ctl_w, "port", li->addr ? li->addr->port : 0);
	if (li->service)
		json_str(&ctl_w, "service", li->service);
	json_uint(&ctl_w, "owner_uid", li->owner_uid);
	json_uint(&ctl_w, "pending", li->pending);
	json_close(&ctl_w, '}');
}

static void js_conn_obj(struct json *w, const Iwcm__Ctl__ConnInfo *c)
{
	char a[64];

	json_open(w, NULL, '{');
	json_uint(w, "id", c->id);
	json_str(w, "state", c->state);
	json_str(w, "local", ctl_addr_str(c->local, a, sizeof(a)));
	json_str(w, "peer", ctl_addr_str(c->peer, a, sizeof(a)));
	json_bool(w, "initiator", c->initiator);
	json_str(w, "transport",
		 c->has_transport && c->transport ==
					     IWCM__TRANSPORT__TRANSPORT_SCTP ?
			 "sctp" :
			 "tcp");
	if (c->has_sctp_stream)
		json_uint(w, "sctp_stream", c->sctp_stream);
	if (c->has_sctp_assoc)
		json_uint(w, "sctp_assoc", c->sctp_assoc);
	if (c->has_mpa_rev)
		json_uint(w, "mpa_rev", c->mpa_rev);
	if (c->has_markers_tx)
		json_bool(w, "markers_tx", c->markers_tx);
	if (c->has_markers_rx)
		json_bool(w, "markers_rx", c->markers_rx);
	if (c->has_crc)
		json_bool(w, "crc", c->crc);
	if (c->has_ird)
		json_uint(w, "ird", c->ird);
	if (c->has_ord)
		json_uint(w, "ord", c->ord);
	if (c->has_p2p)
		json_bool(w, "p2p", c->p2p);
	if (c->has_rtr_type)
		json_str(w, "rtr", vocab_rtr_list(c->rtr_type, a, sizeof(a)));
	if (c->has_owner_uid)
		json_uint(w, "owner_uid", c->owner_uid);
	if (c->has_owner_pid)
		json_uint(w, "owner_pid", c->owner_pid);
	json_uint(w, "age_ms", c->age_ms);
	json_close(w, '}');
}

static void js_conn(const Iwcm__Ctl__ConnInfo *c, unsigned int n)
{
	js_conn_obj(&ctl_w, c);
}

static void js_list_end(unsigned int n)
{
	json_close(&ctl_w, ']');
	putchar('\n');
}

static void js_show(const Iwcm__Ctl__ConnInfo *c)
{
	struct json w;

	ctl_json_init(&w);
	js_conn_obj(&w, c);
	putchar('\n');
}

static void js_stats(const Iwcm__Ctl__Stats *s)
{
	struct json w;
	size_t i;

	ctl_json_init(&w);
	json_open(&w, NULL, '{');
	for (i = 0; i < s->n_counters; i++) {
		const Iwcm__Ctl__Stats__CountersEntry *e = s->counters[i];

		if (e->key)
			json_uint(&w, e->key, e->value);
	}
	json_close(&w, '}');
	putchar('\n');
}

static void js_reports_begin(void)
{
	ctl_json_init(&ctl_w);
	json_open(&ctl_w, NULL, '{');
	json_open(&ctl_w, "reports", '[');
}

static void js_octets(struct json *w, const char *k, protobuf_c_boolean has,
		      const ProtobufCBinaryData *b)
{
	if (has)
		json_bytes(w, k, b->data, b->len);
	else
		json_null(w, k);
}

static void js_report(const Iwcm__Ctl__NegotiationReport *r, unsigned int n)
{
	struct json *w = &ctl_w;
	char a[64];

	json_open(w, NULL, '{');
	js_octets(w, "request", r->has_request, &r->request);
	js_octets(w, "reply", r->has_reply, &r->reply);
	if (r->has_rtr)
		json_bytes(w, "rtr", r->rtr.data, r->rtr.len);
	if (r->result) {
		const Iwcm__Established *e = r->result;

		json_open(w, "established", '{');
		json_str(w, "local", ctl_addr_str(e->local, a, sizeof(a)));
		json_str(w, "peer", ctl_addr_str(e->peer, a, sizeof(a)));
		json_uint(w, "mpa_rev", e->mpa_rev);
		json_uint(w, "ddp_version", e->ddp_version);
		json_uint(w, "rdmap_version", e->rdmap_version);
		json_bool(w, "markers_tx", e->markers_tx);
		json_bool(w, "markers_rx", e->markers_rx);
		json_bool(w, "crc", e->crc);
		json_bool(w, "enhanced", e->enhanced);
		json_bool(w, "p2p", e->p2p);
		json_str(w, "rtr", vocab_rtr_list(e->rtr_type, a, sizeof(a)));
		json_uint(w, "ird", e->ird);
		json_uint(w, "ord", e->ord);
		json_close(w, '}');
	}
	if (r->has_error)
		json_str(w, "error", ctl_result_name(r->error));
	if (r->reason)
		json_str(w, "reason", r->reason);
	json_close(w, '}');
}

static void js_reports_end(const char *target, const Iwcm__Ctl__Result *r)
{
	json_close(&ctl_w, ']');
	if (r) {
		json_str(&ctl_w, "result", ctl_result_name(r->result));
		if (r->message)
			json_str(&ctl_w, "message", r->message);
	}
	json_close(&ctl_w, '}');
	putchar('\n');
}

/* ---- probe ---- */

static void js_probe_begin(const char *target, const char *transport)
{
	ctl_json_init(&ctl_w);
	json_open(&ctl_w, NULL, '{');
	json_str(&ctl_w, "target", target);
	json_str(&ctl_w, "transport", transport);
	json_open(&ctl_w, "rows", '[');
}

static void js_probe_row(const struct ctl_probe_row *r, unsigned int n)
{
	const struct mpa_frame *f = &r->reply;

	(void)n;
	json_open(&ctl_w, NULL, '{');
	json_str(&ctl_w, "offer", r->offer);
	json_str(&ctl_w, "offered", r->what);
	json_str(&ctl_w, "result",
		 r->result == IWCM__RESULT__RES_OK ?
			 "ESTABLISHED" :
			 ctl_result_name(r->result));
	if (r->reason && r->reason[0])
		json_str(&ctl_w, "reason", r->reason);
	if (r->reply_ok) {
		json_open(&ctl_w, "reply", '{');
		json_uint(&ctl_w, "rev", f->rev);
		json_bool(&ctl_w, "markers", f->flags & MPA_FLAG_M);
		json_bool(&ctl_w, "crc", f->flags & MPA_FLAG_C);
		json_bool(&ctl_w, "reject", f->flags & MPA_FLAG_R);
		json_bool(&ctl_w, "s", f->flags & MPA_FLAG_S);
		json_bool(&ctl_w, "enhanced", f->enhanced);
		if (f->enhanced) {
			json_bool(&ctl_w, "p2p", f->enh.p2p);
			json_rtr_array(&ctl_w, "rtr", f->enh.rtr);
			json_uint(&ctl_w, "ird", f->enh.ird);
			json_uint(&ctl_w, "ord", f->enh.ord);
		}
		json_uint(&ctl_w, "private_data_len", f->ulp_pd_len);
		json_close(&ctl_w, '}');
	} else if (r->sctp_answer) {
		json_open(&ctl_w, "reply", '{');
		json_bool(&ctl_w, "enhanced", r->sctp_enhanced);
		if (r->sctp_enhanced) {
			json_uint(&ctl_w, "ird", r->sctp_ird);
			json_uint(&ctl_w, "ord", r->sctp_ord);
		}
		json_close(&ctl_w, '}');
	} else {
		json_null(&ctl_w, "reply");
	}
	if (r->est) {
		const Iwcm__Established *e = r->est;

		json_open(&ctl_w, "negotiated", '{');
		json_uint(&ctl_w, "mpa_rev", e->mpa_rev);
		json_bool(&ctl_w, "crc", e->crc);
		json_bool(&ctl_w, "markers_tx", e->markers_tx);
		json_bool(&ctl_w, "markers_rx", e->markers_rx);
		json_bool(&ctl_w, "p2p", e->p2p);
		json_rtr_array(&ctl_w, "rtr_type", e->rtr_type);
		json_uint(&ctl_w, "ird", e->ird);
		json_uint(&ctl_w, "ord", e->ord);
		json_close(&ctl_w, '}');
	}
	json_close(&ctl_w, '}');
}

static void js_probe_end(unsigned int n)
{
	json_close(&ctl_w, ']');
	json_uint(&ctl_w, "offers", n);
	json_close(&ctl_w, '}');
	putchar('\n');
}

const struct ctl_output ctl_output_json = {
	.result = js_result,
	.status = js_status,
	.listeners_begin = js_list_begin,
	.listener = js_listener,
	.conns_begin = js_list_begin,
	.conn = js_conn,
	.list_end = js_list_end,
	.show = js_show,
	.stats = js_stats,
	.reports_begin = js_reports_begin,
	.report = js_report,
	.reports_end = js_reports_end,
	.probe_begin = js_probe_begin,
	.probe_row = js_probe_row,
	.probe_end = js_probe_end,
};
