/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The text output of iwcmctl's admin commands (tables and blocks, errors
 * on stderr), and the address and result words both formats use.
 */
#include "config.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "ctl_output.h"
#include "mpa.h"
#include "vocab.h"

/* "ADDR:PORT" or "[ADDR]:PORT", "-" for none. */
const char *ctl_addr_str(const Iwcm__SockAddr *a, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (!a) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (a->addr.len == 16) {
		inet_ntop(AF_INET6, a->addr.data, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, a->port);
	} else if (a->addr.len == 4) {
		inet_ntop(AF_INET, a->addr.data, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, a->port);
	} else {
		snprintf(buf, len, "?:%u", a->port);
	}
	return buf;
}

/* The address alone, "?" when there is none. */
const char *ctl_host_str(const Iwcm__SockAddr *a, char *buf, size_t len)
{
	snprintf(buf, len, "?");
	if (a && a->addr.len == 16)
		inet_ntop(AF_INET6, a->addr.data, buf, (socklen_t)len);
	else if (a && a->addr.len == 4)
		inet_ntop(AF_INET, a->addr.data, buf, (socklen_t)len);
	return buf;
}

/* "RES_ENOENT" -> "ENOENT". */
const char *ctl_result_name(Iwcm__Result r)
{
	const ProtobufCEnumValue *v = protobuf_c_enum_descriptor_get_value(
		&iwcm__result__descriptor, (int)r);

	if (!v)
		return "UNKNOWN";
	return strncmp(v->name, "RES_", 4) ? v->name : v->name + 4;
}

/* "not found" for RES_ENOENT. */
const char *ctl_result_text(Iwcm__Result r)
{
	switch (r) {
	case IWCM__RESULT__RES_OK:
		return "ok";
	case IWCM__RESULT__RES_EINVAL:
		return "invalid request";
	case IWCM__RESULT__RES_EPERM:
		return "not permitted";
	case IWCM__RESULT__RES_ENOENT:
		return "not found";
	case IWCM__RESULT__RES_EEXIST:
		return "already exists";
	case IWCM__RESULT__RES_ELIMIT:
		return "limit reached";
	case IWCM__RESULT__RES_EADDRINUSE:
		return "address in use";
	case IWCM__RESULT__RES_ETIMEDOUT:
		return "timed out";
	case IWCM__RESULT__RES_ECONNREFUSED:
		return "connection refused";
	case IWCM__RESULT__RES_ECONNRESET:
		return "connection reset";
	case IWCM__RESULT__RES_EREJECTED:
		return "rejected by the peer";
	case IWCM__RESULT__RES_EPROTO:
		return "protocol error";
	case IWCM__RESULT__RES_EVERSION:
		return "IPC version mismatch";
	case IWCM__RESULT__RES_EINTERNAL:
		return "internal error";
	case IWCM__RESULT__RES_ESHUTDOWN:
		return "daemon stopping";
	default:
		return "unknown result";
	}
}

static const char *opt_bool(protobuf_c_boolean has, protobuf_c_boolean v)
{
	return !has ? "-" : vocab_onoff(v);
}

static void txt_result(const char *what, const Iwcm__Ctl__Result *r)
{
	if (r->result == IWCM__RESULT__RES_OK)
		return;
	fprintf(stderr, "iwcmctl: %s: %s%s%s\n", what,
		ctl_result_text(r->result), r->message ? ": " : "",
		r->message ? r->message : "");
}

static void txt_status(const Iwcm__Ctl__Status *s)
{
	printf("iwcmd %s, pid %u, up %" PRIu64 "d %02" PRIu64 ":%02" PRIu64
	       ":%02" PRIu64 "\n",
	       s->version, s->pid, s->uptime_s / 86400, s->uptime_s / 3600 % 24,
	       s->uptime_s / 60 % 60, s->uptime_s % 60);
	printf("listeners %u, connections %u, clients %u, log %s\n",
	       s->listeners, s->conns, s->clients,
	       s->verbose ? "verbose" : "brief");
}

static void txt_listeners_begin(void)
{
	printf("%-6s %-28s %-16s %-8s %s\n", "ID", "ADDRESS", "SERVICE",
	       "OWNER", "PENDING");
}

static void txt_listener(const Iwcm__Ctl__ListenerInfo *li, unsigned int n)
{
	char a[64];

	printf("%-6" PRIu64 " %-28s %-16s %-8u %u\n", li->id,
	       ctl_addr_str(li->addr, a, sizeof(a)),
	       li->service ? li->service : "-", li->owner_uid, li->pending);
}

static void txt_conns_begin(void)
{
	printf("%-6s %-14s %-22s %-22s %-4s %-3s %-7s %-3s %-11s %-6s "
	       "%-5s %-6s %s\n",
	       "ID", "STATE", "LOCAL", "PEER", "ROLE", "REV", "MARKERS", "CRC",
	       "IRD/ORD", "MODEL", "RTR", "OWNER", "AGE");
}

static void txt_conn(const Iwcm__Ctl__ConnInfo *c, unsigned int n)
{
	char l[64], p[64], io[24], rev[8], mk[16], rtr[24], own[16];

	snprintf(io, sizeof(io), "%s/%s", "-", "-");
	if (c->has_ird || c->has_ord)
		snprintf(io, sizeof(io), "%u/%u", c->ird, c->ord);
	snprintf(rev, sizeof(rev), "%s", "-");
	if (c->has_mpa_rev)
		snprintf(rev, sizeof(rev), "%u", c->mpa_rev);
	/* DDP over SCTP has no MPA revision: the column names it */
	if (c->has_transport && c->transport == IWCM__TRANSPORT__TRANSPORT_SCTP)
		snprintf(rev, sizeof(rev), "%s", "sctp");
	snprintf(mk, sizeof(mk), "%s/%s",
		 opt_bool(c->has_markers_tx, c->markers_tx),
		 opt_bool(c->has_markers_rx, c->markers_rx));
	snprintf(own, sizeof(own), "%s", "-");
	if (c->has_owner_uid)
		snprintf(own, sizeof(own), "%u", c->owner_uid);
	printf("%-6" PRIu64 " %-14s %-22s %-22s %-4s %-3s %-7s %-3s %-11s "
	       "%-6s %-5s %-6s %.1fs\n",
	       c->id, c->state, ctl_addr_str(c->local, l, sizeof(l)),
	       ctl_addr_str(c->peer, p, sizeof(p)),
	       c->initiator ? "init" : "resp", rev, mk,
	       opt_bool(c->has_crc, c->crc), io,
	       !c->has_p2p ? "-" :
	       c->p2p	   ? "p2p" :
			     "cs",
	       c->has_rtr_type ? vocab_rtr_list(c->rtr_type, rtr, sizeof(rtr)) :
				 "-",
	       own, (double)c->age_ms / 1000.0);
}

static void txt_list_end(unsigned int n)
{
}

static void txt_show(const Iwcm__Ctl__ConnInfo *c)
{
	char a[64];

	printf("conn %" PRIu64 "\n", c->id);
	printf("  state      %s\n", c->state);
	printf("  local      %s\n", ctl_addr_str(c->local, a, sizeof(a)));
	printf("  peer       %s\n", ctl_addr_str(c->peer, a, sizeof(a)));
	printf("  role       %s\n", c->initiator ? "initiator" : "responder");
	if (c->has_transport && c->transport == IWCM__TRANSPORT__TRANSPORT_SCTP)
		printf("  transport  sctp, association %" PRIu64
		       ", stream %u\n",
		       c->has_sctp_assoc ? c->sctp_assoc : 0, c->sctp_stream);
	if (c->has_mpa_rev)
		printf("  revision   %u\n", c->mpa_rev);
	printf("  markers    tx %s, rx %s\n",
	       opt_bool(c->has_markers_tx, c->markers_tx),
	       opt_bool(c->has_markers_rx, c->markers_rx));
	printf("  crc        %s\n", opt_bool(c->has_crc, c->crc));
	if (c->has_ird || c->has_ord)
		printf("  ird/ord    %u/%u\n", c->ird, c->ord);
	if (c->has_p2p)
		printf("  model      %s\n",
		       c->p2p ? "peer-to-peer" : "client-server");
	if (c->has_rtr_type)
		printf("  rtr        %s\n",
		       vocab_rtr_list(c->rtr_type, a, sizeof(a)));
	if (c->has_owner_uid || c->has_owner_pid)
		printf("  owner      uid %u pid %u\n", c->owner_uid,
		       c->owner_pid);
	printf("  age        %.3fs\n", (double)c->age_ms / 1000.0);
}

static void txt_stats(const Iwcm__Ctl__Stats *s)
{
	size_t i;

	for (i = 0; i < s->n_counters; i++) {
		const Iwcm__Ctl__Stats__CountersEntry *e = s->counters[i];

		if (e->key)
			printf("%-20s %" PRIu64 "\n", e->key, e->value);
	}
}

static void txt_octets(const char *name, const ProtobufCBinaryData *raw)
{
	size_t i;

	printf("%s (%zu octets):", name, raw->len);
	for (i = 0; i < raw->len; i++)
		printf("%s%02x", i % 16 ? " " : "\n    ", raw->data[i]);
	printf("\n");
}

/* RFC 5044 §7.1 frame, RFC 6581 §8 enhanced word. */
static void txt_frame(const char *name, const ProtobufCBinaryData *raw)
{
	struct mpa_frame f;
	size_t used;
	char rtr[24];

	txt_octets(name, raw);
	if (mpa_frame_parse(raw->data, raw->len, &f, &used) != WIRE_OK)
		return;
	printf("    %s rev %u, M=%d C=%d R=%d S=%d, private data %u",
	       mpa_frame_type_name(f.type), f.rev, !!(f.flags & MPA_FLAG_M),
	       !!(f.flags & MPA_FLAG_C), !!(f.flags & MPA_FLAG_R),
	       !!(f.flags & MPA_FLAG_S), f.pd_len);
	if (f.enhanced)
		printf("; enhanced: %s, rtr %s, ird %u, ord %u",
		       f.enh.p2p ? "p2p" : "client-server",
		       vocab_rtr_list(f.enh.rtr, rtr, sizeof(rtr)), f.enh.ird,
		       f.enh.ord);
	printf("\n");
}

static void txt_reports_begin(void)
{
}

static void txt_report(const Iwcm__Ctl__NegotiationReport *r, unsigned int n)
{
	char a[64], b[64], rtr[24];

	if (r->has_request)
		txt_frame("request", &r->request);
	if (r->has_reply)
		txt_frame("reply", &r->reply);
	if (r->has_rtr)
		txt_octets("rtr", &r->rtr);
	if (r->result) {
		const Iwcm__Established *e = r->result;

		printf("established %s -> %s: rev %u, ddp/rdmap %u/%u, "
		       "markers tx %s rx %s, crc %s, %s, %s, rtr %s, "
		       "ird %u, ord %u\n",
		       ctl_addr_str(e->local, a, sizeof(a)),
		       ctl_addr_str(e->peer, b, sizeof(b)), e->mpa_rev,
		       e->ddp_version, e->rdmap_version,
		       vocab_onoff(e->markers_tx), vocab_onoff(e->markers_rx),
		       vocab_onoff(e->crc),
		       e->enhanced ? "enhanced" : "not enhanced",
		       e->p2p ? "peer-to-peer" : "client-server",
		       vocab_rtr_list(e->rtr_type, rtr, sizeof(rtr)), e->ird,
		       e->ord);
	}
	if (r->has_error)
		printf("failed: %s%s%s\n", ctl_result_text(r->error),
		       r->reason ? ": " : "", r->reason ? r->reason : "");
	else if (r->reason)
		printf("note: %s\n", r->reason);
}

static void txt_reports_end(const char *target, const Iwcm__Ctl__Result *r)
{
	char what[300];

	if (!r)
		return;
	snprintf(what, sizeof(what), "connect %s", target);
	txt_result(what, r);
}

/* ---- probe ---- */

static void txt_probe_begin(const char *target, const char *transport)
{
	printf("probe %s (%s): the peer's Reply to each offer\n", target,
	       transport);
	printf("%-14s %-12s %-4s %-7s %-11s %-5s %-5s %s\n", "offer", "result",
	       "rev", "M C R S", "model", "ird", "ord", "rtr");
}

static void txt_probe_row(const struct ctl_probe_row *r, unsigned int n)
{
	const struct mpa_frame *f = &r->reply;
	char rtr[32], flags[16], rev[8], ird[8], ord[8];
	const char *model = "-";

	(void)n;
	snprintf(rev, sizeof(rev), "-");
	snprintf(flags, sizeof(flags), "-");
	snprintf(ird, sizeof(ird), "-");
	snprintf(ord, sizeof(ord), "-");
	snprintf(rtr, sizeof(rtr), "-");
	if (r->reply_ok) {
		snprintf(rev, sizeof(rev), "%u", f->rev);
		snprintf(flags, sizeof(flags), "%d %d %d %d",
			 !!(f->flags & MPA_FLAG_M), !!(f->flags & MPA_FLAG_C),
			 !!(f->flags & MPA_FLAG_R), !!(f->flags & MPA_FLAG_S));
		if (f->enhanced) {
			model = f->enh.p2p ? "p2p" : "client-srv";
			snprintf(ird, sizeof(ird), "%u", f->enh.ird);
			snprintf(ord, sizeof(ord), "%u", f->enh.ord);
			vocab_rtr_list(f->enh.rtr, rtr, sizeof(rtr));
		} else {
			model = "unenhanced";
		}
	} else if (r->sctp_answer) {
		/* RFC 5043 session control: no MPA frame */
		model = r->sctp_enhanced ? "enhanced" : "plain";
		if (r->sctp_enhanced) {
			snprintf(ird, sizeof(ird), "%u", r->sctp_ird);
			snprintf(ord, sizeof(ord), "%u", r->sctp_ord);
		}
	}
	printf("%-14s %-12s %-4s %-7s %-11s %-5s %-5s %s\n", r->offer,
	       r->result == IWCM__RESULT__RES_OK ? "established" :
						   ctl_result_name(r->result),
	       rev, flags, model, ird, ord, rtr);
	if (r->reason && r->reason[0])
		printf("%-14s   %s\n", "", r->reason);
}

static void txt_probe_end(unsigned int n)
{
	printf("%u offer%s\n", n, n == 1 ? "" : "s");
}

const struct ctl_output ctl_output_text = {
	.result = txt_result,
	.status = txt_status,
	.listeners_begin = txt_listeners_begin,
	.listener = txt_listener,
	.conns_begin = txt_conns_begin,
	.conn = txt_conn,
	.list_end = txt_list_end,
	.show = txt_show,
	.stats = txt_stats,
	.reports_begin = txt_reports_begin,
	.report = txt_report,
	.reports_end = txt_reports_end,
	.probe_begin = txt_probe_begin,
	.probe_row = txt_probe_row,
	.probe_end = txt_probe_end,
};
