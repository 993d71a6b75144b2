/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The admin API (proto/ctl.proto, iwcmctl) on the admin socket: a table
 * from message type to handler.  Every body is unpacked by ipc_unpack()
 * (length capped) before a handler sees it; every request ends with END
 * or RESULT (the bgpd control.c model), and an unknown type closes the
 * peer.
 */
#include "config.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "client_api.h"
#include "ctl.pb-c.h"
#include "conn.h"
#include "log.h"
#include "metrics.h"

static void admin_result(struct client *c, uint32_t reqid, Iwcm__Result res,
			 const char *msg)
{
	Iwcm__Ctl__Result r = IWCM__CTL__RESULT__INIT;

	r.result = res;
	r.message = (char *)msg;
	control_send(c, IPC_RESULT, reqid, &r.base, -1);
}

static void admin_end(struct client *c, uint32_t reqid)
{
	control_send(c, IPC_END, reqid, NULL, -1);
}

static void admin_count_listener(struct listener *l, void *arg)
{
	(*(unsigned int *)arg)++;
}

static void admin_status(struct client *c, uint32_t reqid,
			 const ProtobufCMessage *req)
{
	Iwcm__Ctl__Status st = IWCM__CTL__STATUS__INIT;
	unsigned int nl = 0;

	listener_foreach(admin_count_listener, &nl);
	st.version = (char *)PACKAGE_VERSION;
	st.pid = (uint32_t)getpid();
	st.uptime_s = iwcmd_now_ms() / 1000;
	st.listeners = nl;
	st.conns = conn_count();
	st.clients = control_client_count();
	st.verbose = log_getverbose();
	control_send(c, IPC_CTL_STATUS_REPLY, reqid, &st.base, -1);
	admin_end(c, reqid);
}

struct admin_walk {
	struct client *c;
	uint32_t reqid;
};

static void admin_listener_one(struct listener *l, void *arg)
{
	struct admin_walk *w = arg;
	Iwcm__Ctl__ListenerInfo li = IWCM__CTL__LISTENER_INFO__INIT;
	Iwcm__ConnParams params;
	Iwcm__SockAddr sa;
	uint8_t sa_buf[16];

	pb_sockaddr_from(&l->addr, &sa, sa_buf);
	li.id = l->id;
	li.addr = &sa;
	li.service = l->service[0] ? l->service : NULL;
	li.owner_uid = (uint32_t)l->owner;
	li.pending = l->pending;
	if (l->params) {
		client_api_params_to(l->params, &params);
		li.params = &params;
	}
	control_send(w->c, IPC_CTL_LISTENER_INFO, w->reqid, &li.base, -1);
}

static void admin_listeners(struct client *c, uint32_t reqid,
			    const ProtobufCMessage *req)
{
	struct admin_walk w = { c, reqid };

	listener_foreach(admin_listener_one, &w);
	admin_end(c, reqid);
}

static void admin_conn_fill(const struct conn *c, Iwcm__Ctl__ConnInfo *i,
			    Iwcm__SockAddr *local, Iwcm__SockAddr *peer,
			    uint8_t lb[16], uint8_t pb[16])
{
	iwcm__ctl__conn_info__init(i);
	i->id = c->id;
	i->state = (char *)(uintptr_t)conn_state_names[c->fsm.state];
	pb_sockaddr_from(&c->local, local, lb);
	pb_sockaddr_from(&c->peer, peer, pb);
	i->local = local;
	i->peer = peer;
	i->initiator = c->role == NEG_INITIATOR;
	i->age_ms = iwcmd_now_ms() - c->created_ms;
	/* a responder's owner_pid is set when its request is routed */
	if (c->owner || c->owner_pid || c->role == NEG_INITIATOR) {
		i->has_owner_uid = i->has_owner_pid = 1;
		i->owner_uid = (uint32_t)c->owner_uid;
		i->owner_pid = (uint32_t)c->owner_pid;
	} else {
		i->has_owner_uid = 1;
		i->owner_uid = (uint32_t)c->owner_uid;
	}
	if (c->have_rep) {
		i->has_mpa_rev = i->has_markers_tx = i->has_markers_rx = 1;
		i->has_crc = i->has_ird = i->has_ord = i->has_p2p = 1;
		i->has_rtr_type = 1;
		i->mpa_rev = c->res.rev;
		i->markers_tx = neg_markers_tx(&c->res, c->role);
		i->markers_rx = neg_markers_rx(&c->res, c->role);
		i->crc = c->res.crc;
		i->ird = c->res.ird;
		i->ord = c->res.ord;
		i->p2p = c->res.p2p;
		i->rtr_type =
			c->rtr_type ?
				c->rtr_type :
				(c->role == NEG_INITIATOR ? c->res.rtr : 0);
	}
}

static void admin_conn_one(const struct conn *c, void *arg)
{
	struct admin_walk *w = arg;
	Iwcm__Ctl__ConnInfo ci;
	Iwcm__SockAddr local, peer;
	uint8_t lb[16], pb[16];

	admin_conn_fill(c, &ci, &local, &peer, lb, pb);
	control_send(w->c, IPC_CTL_CONN_INFO, w->reqid, &ci.base, -1);
}

/* An SCTP session (RFC 5043) as a ConnInfo: no MPA, its stream. */
static void admin_sctp_one(const struct sctp_conn_info *s, void *arg)
{
	struct admin_walk *w = arg;
	Iwcm__Ctl__ConnInfo i;
	Iwcm__SockAddr local, peer;
	uint8_t lb[16], pb[16];

	iwcm__ctl__conn_info__init(&i);
	i.id = s->id;
	i.state = (char *)(uintptr_t)s->state;
	pb_sockaddr_from(&s->local, &local, lb);
	pb_sockaddr_from(&s->peer, &peer, pb);
	i.local = &local;
	i.peer = &peer;
	i.initiator = s->initiator;
	i.age_ms = s->age_ms;
	i.has_transport = i.has_sctp_stream = i.has_sctp_assoc = 1;
	i.transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
	i.sctp_stream = s->si.stream;
	i.sctp_assoc = s->assoc_id;
	if (s->has_owner) {
		i.has_owner_uid = i.has_owner_pid = 1;
		i.owner_uid = (uint32_t)s->owner_uid;
		i.owner_pid = (uint32_t)s->owner_pid;
	}
	if (s->si.state == SESS_S_HANDOFF ||
	    s->si.state == SESS_S_ESTABLISHED) {
		i.has_ird = i.has_ord = i.has_crc = 1;
		i.has_markers_tx = i.has_markers_rx = 1;
		i.ird = s->si.res.ird;
		i.ord = s->si.res.ord;
	}
	control_send(w->c, IPC_CTL_CONN_INFO, w->reqid, &i.base, -1);
}

static void admin_conns(struct client *c, uint32_t reqid,
			const ProtobufCMessage *req)
{
	struct admin_walk w = { c, reqid };

	conn_foreach(admin_conn_one, &w);
	sctp_conn_foreach(admin_sctp_one, &w);
	admin_end(c, reqid);
}

static void admin_show(struct client *c, uint32_t reqid,
		       const ProtobufCMessage *req)
{
	const Iwcm__Ctl__Show *s = (const void *)req;
	struct admin_walk w = { c, reqid };
	const struct conn *cn = conn_find(s->conn_id);
	struct sctp_conn_info si;

	if ((s->conn_id & SCTP_CONN_ID_BIT) &&
	    sctp_conn_get(s->conn_id, &si) == 0) {
		admin_sctp_one(&si, &w);
		admin_result(c, reqid, IWCM__RESULT__RES_OK, NULL);
		return;
	}
	if (cn)
		admin_conn_one(cn, &w);
	admin_result(c, reqid,
		     cn ? IWCM__RESULT__RES_OK : IWCM__RESULT__RES_ENOENT,
		     NULL);
}

/* ---- metrics (metrics.c) as ctl.proto MetricFamily messages ---- */

struct admin_metrics {
	Iwcm__Ctl__MetricFamily *fam[METRIC_MAX];
};

static void *admin_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);

	if (!p)
		fatal("admin: calloc");
	return p;
}

static void admin_metric_one(const struct metric_sample *m, void *arg)
{
	struct admin_metrics *am = arg;
	Iwcm__Ctl__MetricFamily *f = am->fam[m->id];
	Iwcm__Ctl__MetricSample *s;
	size_t k;

	/* grow by doubling: a family has a few dozen samples at most */
	k = f->n_samples;
	if ((k & (k - 1)) == 0) {
		Iwcm__Ctl__MetricSample **v =
			realloc(f->samples, (k ? 2 * k : 1) * sizeof(*v));

		if (!v)
			fatal("admin: realloc");
		f->samples = v;
	}
	s = admin_xcalloc(1, sizeof(*s));
	iwcm__ctl__metric_sample__init(s);
	s->value = m->value;
	s->n_labels = m->n_labels;
	s->labels = admin_xcalloc(m->n_labels, sizeof(*s->labels));
	for (unsigned int i = 0; i < m->n_labels; i++) {
		Iwcm__Ctl__MetricLabel *l = admin_xcalloc(1, sizeof(*l));

		iwcm__ctl__metric_label__init(l);
		l->name = (char *)m->labels[i].name;
		l->value = strdup(m->labels[i].value);
		if (!l->value)
			fatal("admin: strdup");
		s->labels[i] = l;
	}
	f->samples[f->n_samples++] = s;
}

/* Fill st's families from the daemon's metrics. */
static void admin_metrics(Iwcm__Ctl__Stats *st)
{
	struct admin_metrics am;
	size_t n = 0;

	memset(&am, 0, sizeof(am));
	/* every family, with its samples or none (a Terminate may not
	 * have happened yet) */
	for (int i = 0; i < METRIC_MAX; i++) {
		const struct metrics_family *d = metrics_family(i);
		Iwcm__Ctl__MetricFamily *f = admin_xcalloc(1, sizeof(*f));

		iwcm__ctl__metric_family__init(f);
		f->name = (char *)d->name;
		f->gauge = d->type == METRIC_GAUGE;
		f->help = (char *)d->help;
		f->unit = (char *)d->unit;
		am.fam[i] = f;
	}
	metrics_collect(admin_metric_one, &am);
	st->families = admin_xcalloc(METRIC_MAX, sizeof(*st->families));
	for (int i = 0; i < METRIC_MAX; i++)
		st->families[n++] = am.fam[i];
	st->n_families = n;
}

static void admin_metrics_free(Iwcm__Ctl__Stats *st)
{
	for (size_t i = 0; i < st->n_families; i++) {
		Iwcm__Ctl__MetricFamily *f = st->families[i];

		for (size_t j = 0; j < f->n_samples; j++) {
			Iwcm__Ctl__MetricSample *s = f->samples[j];

			for (size_t k = 0; k < s->n_labels; k++) {
				free(s->labels[k]->value);
				free(s->labels[k]);
			}
			free(s->labels);
			free(s);
		}
		free(f->samples);
		free(f);
	}
	free(st->families);
	st->families = NULL;
	st->n_families = 0;
}

/* DDP stream sessions over SCTP (RFC 5043) that ended established, or
 * not, in either role. */
static uint64_t admin_sctp_ended(bool ok)
{
	uint64_t n = 0;

	for (int r = 0; r < 2; r++)
		for (int k = 0; k < CONN_RES_MAX; k++)
			if ((k == CONN_RES_OK) == ok)
				n += iwcmd_stats.ended_sctp[r][k];
	return n;
}

static void admin_stats(struct client *c, uint32_t reqid,
			const ProtobufCMessage *req)
{
	static const char *const term_names[8] = {
		"term_sent_0", "term_sent_1", "term_sent_2", "term_sent_3",
		"term_sent_4", "term_sent_5", "term_sent_6", "term_sent_7",
	};
	const struct iwcmd_stats *s = &iwcmd_stats;
	const struct {
		const char *name;
		uint64_t value;
	} ctr[] = {
		{ "accepted", s->accepted },
		{ "connects", s->connects },
		{ "established", s->established },
		{ "rejected_local", s->rejected_local },
		{ "rejected_peer", s->rejected_peer },
		{ "timeouts", s->timeouts },
		{ "bad_frames", s->bad_frames },
		{ "fallbacks", s->fallbacks },
		{ "unreachable", s->unreachable },
		{ "protocol_errors", s->protocol_errors },
		{ "shed", s->shed },
		{ "refused", s->refused },
		{ "sctp_established", admin_sctp_ended(true) },
		{ "sctp_failed", admin_sctp_ended(false) },
		{ "loop_poll_us", s->loop_poll_us },
	};
	enum { N = sizeof(ctr) / sizeof(ctr[0]) + 8 };
	Iwcm__Ctl__Stats__CountersEntry e[N], *ep[N];
	Iwcm__Ctl__Stats st = IWCM__CTL__STATS__INIT;
	size_t i, n = 0;

	for (i = 0; i < sizeof(ctr) / sizeof(ctr[0]); i++, n++) {
		iwcm__ctl__stats__counters_entry__init(&e[n]);
		e[n].key = (char *)ctr[i].name;
		e[n].has_value = 1;
		e[n].value = ctr[i].value;
		ep[n] = &e[n];
	}
	for (i = 0; i < 8; i++, n++) {
		iwcm__ctl__stats__counters_entry__init(&e[n]);
		e[n].key = (char *)term_names[i];
		e[n].has_value = 1;
		e[n].value = s->term_sent[i];
		ep[n] = &e[n];
	}
	st.n_counters = n;
	st.counters = ep;
	admin_metrics(&st);
	control_send(c, IPC_CTL_STATS_REPLY, reqid, &st.base, -1);
	admin_metrics_free(&st);
	admin_end(c, reqid);
}

static void admin_log(struct client *c, uint32_t reqid,
		      const ProtobufCMessage *req)
{
	const Iwcm__Ctl__LogLevel *l = (const void *)req;

	log_setverbose(l->verbose);
	log_info("ctl pid %ld: log level %s", (long)c->pid,
		 l->verbose ? "verbose" : "brief");
	admin_result(c, reqid, IWCM__RESULT__RES_OK, NULL);
}

static void admin_kill(struct client *c, uint32_t reqid,
		       const ProtobufCMessage *req)
{
	const Iwcm__Ctl__Kill *k = (const void *)req;
	Iwcm__Result res = client_api_result(conn_kill(k->conn_id));

	if (res == IWCM__RESULT__RES_OK)
		log_info("ctl pid %ld: conn %llu killed", (long)c->pid,
			 (unsigned long long)k->conn_id);
	admin_result(c, reqid, res, NULL);
}

struct admin_set_walk {
	uint16_t port;
	const Iwcm__ConnParams *p;
	unsigned int n;
};

/* Apply what ListenerSet.params says to one listener's policy. */
static void admin_listener_set_one(struct listener *l, void *arg)
{
	struct admin_set_walk *ls = arg;
	const Iwcm__ConnParams *p = ls->p;
	struct conf_policy *pol = &l->policy;
	uint16_t port;

	port = l->addr.ss_family == AF_INET6 ?
		       ntohs(((struct sockaddr_in6 *)&l->addr)->sin6_port) :
		       ntohs(((struct sockaddr_in *)&l->addr)->sin_port);
	if (port != ls->port)
		return;
	ls->n++;
	if (p->has_crc)
		pol->crc = p->crc == IWCM__CRC_POLICY__CRC_PREFER_OFF ?
				   CONF_CRC_PREFER_OFF :
				   CONF_CRC_REQUEST;
	if (p->has_rev0)
		pol->rev0 = p->rev0 == IWCM__REV0_POLICY__REV0_PERMISSIVE ?
				    CONF_REV0_PERMISSIVE :
				    CONF_REV0_STRICT;
	if (p->has_markers)
		pol->markers = p->markers;
	if (p->has_rtr_frame)
		pol->rtr_frame = p->rtr_frame;
	if (p->has_mpa_rev)
		pol->enhanced = p->mpa_rev >= 2;
	if (p->has_ird)
		pol->max_ird = p->ird;
	if (p->has_ord)
		pol->max_ord = p->ord;
	if (p->has_rtr_types) {
		static const uint8_t order[3] = { 0x2, 0x4, 0x1 };
		uint8_t pref[3] = { 0, 0, 0 }, set = (uint8_t)p->rtr_types;
		size_t i, j, n = 0;

		/* keep the configured preference among the types left */
		for (i = 0; i < 3; i++)
			if (pol->rtr_pref[i] & set)
				pref[n++] = pol->rtr_pref[i];
		for (i = 0; i < 3; i++) {
			bool have = false;

			for (j = 0; j < n; j++)
				have |= pref[j] == order[i];
			if ((order[i] & set) && !have)
				pref[n++] = order[i];
		}
		pol->rtr_accept = set;
		memcpy(pol->rtr_pref, pref, sizeof(pref));
	}
	log_info("listener %llu: policy changed by iwcmctl",
		 (unsigned long long)l->id);
}

static void admin_listener_set(struct client *c, uint32_t reqid,
			       const ProtobufCMessage *req)
{
	const Iwcm__Ctl__ListenerSet *s = (const void *)req;
	const Iwcm__ConnParams *p = s->params;
	struct admin_set_walk ls = { 0, p, 0 };

	if (s->port > 65535 || (p->has_ird && p->ird >= 0x3FFF) ||
	    (p->has_ord && p->ord >= 0x3FFF) ||
	    (p->has_rtr_types && (!p->rtr_types || p->rtr_types & ~7u)) ||
	    (p->has_mpa_rev && p->mpa_rev != 1 && p->mpa_rev != 2) ||
	    (p->has_crc && (unsigned int)p->crc > 1) ||
	    (p->has_rev0 && (unsigned int)p->rev0 > 1)) {
		admin_result(c, reqid, IWCM__RESULT__RES_EINVAL,
			     "invalid listener setting");
		return;
	}
	if (p->has_p2p || p->has_private_data || p->has_enhanced_fallback ||
	    p->has_reply_timeout_ms || p->has_ulp_timeout_ms ||
	    p->has_transport) {
		admin_result(c, reqid, IWCM__RESULT__RES_EINVAL,
			     "not a listener setting");
		return;
	}
	ls.port = (uint16_t)s->port;
	listener_foreach(admin_listener_set_one, &ls);
	admin_result(c, reqid,
		     ls.n ? IWCM__RESULT__RES_OK : IWCM__RESULT__RES_ENOENT,
		     ls.n ? NULL : "no listener on that port");
}

static void admin_connect(struct client *c, uint32_t reqid,
			  const ProtobufCMessage *req)
{
	const Iwcm__Ctl__ForceConnect *f = (const void *)req;
	struct conn_params params;
	struct conn_target t;
	Iwcm__Result res;

	/* The daemon forces MPA negotiations; an SCTP session needs a
	 * client to own its relay. */
	if (f->params && f->params->has_transport &&
	    f->params->transport == IWCM__TRANSPORT__TRANSPORT_SCTP) {
		admin_result(c, reqid, IWCM__RESULT__RES_EINVAL,
			     "forced negotiations are MPA over TCP; for SCTP "
			     "use iwcmctl connect --transport sctp");
		return;
	}
	res = client_api_check_connect(f->dst, f->params, true);
	if (res == IWCM__RESULT__RES_OK &&
	    (client_api_target(f->dst, NULL, &t) < 0 ||
	     (f->params && client_api_params_from(f->params, &params) < 0)))
		res = IWCM__RESULT__RES_EINVAL;
	if (res == IWCM__RESULT__RES_OK)
		res = client_api_result(
			conn_force(c, reqid, &t, f->params ? &params : NULL));
	/* on success conn_force() reports and ends the request itself */
	if (res != IWCM__RESULT__RES_OK)
		admin_result(c, reqid, res, NULL);
}

/* iwcmctl connect: the NegotiationReport and the RESULT, r the outcome. */
void admin_report(const struct conn *c, enum conn_result r)
{
	Iwcm__Ctl__NegotiationReport rep = IWCM__CTL__NEGOTIATION_REPORT__INIT;
	Iwcm__Ctl__Result res = IWCM__CTL__RESULT__INIT;
	struct client_api_established h;

	/* An initiator's buffers exist from its start (conn_buf()). */
	if (c->b && c->b->req_len) {
		rep.has_request = 1;
		rep.request.data = (uint8_t *)(uintptr_t)c->b->req_raw;
		rep.request.len = c->b->req_len;
	}
	if (c->b && c->have_rep) {
		rep.has_reply = 1;
		rep.reply.data = (uint8_t *)(uintptr_t)c->b->rep_raw;
		rep.reply.len = c->b->rep_len;
	}
	if (c->b && c->b->rtr_len) {
		rep.has_rtr = 1;
		rep.rtr.data = (uint8_t *)(uintptr_t)c->b->rtr_raw;
		rep.rtr.len = c->b->rtr_len;
	}
	if (r == CONN_RES_OK) {
		client_api_established_fill(c, &h);
		rep.result = &h.e;
	} else {
		rep.has_error = 1;
		rep.error = client_api_result(r);
	}
	if (c->reason[0])
		rep.reason = (char *)(uintptr_t)c->reason;
	if (control_send(c->owner, IPC_CTL_NEGOTIATION, c->reqid, &rep.base,
			 -1) < 0 ||
	    !c->owner)
		return;
	res.result = client_api_result(r);
	if (c->reason[0])
		res.message = (char *)(uintptr_t)c->reason;
	control_send(c->owner, IPC_RESULT, c->reqid, &res.base, -1);
}

static const struct admin_handler {
	uint16_t type;
	const ProtobufCMessageDescriptor *desc;
	void (*fn)(struct client *, uint32_t, const ProtobufCMessage *);
} admin_handlers[] = {
	{ IPC_CTL_STATUS, &iwcm__ctl__empty__descriptor, admin_status },
	{ IPC_CTL_LISTENERS, &iwcm__ctl__empty__descriptor, admin_listeners },
	{ IPC_CTL_CONNS, &iwcm__ctl__empty__descriptor, admin_conns },
	{ IPC_CTL_SHOW, &iwcm__ctl__show__descriptor, admin_show },
	{ IPC_CTL_STATS, &iwcm__ctl__empty__descriptor, admin_stats },
	{ IPC_CTL_LOG, &iwcm__ctl__log_level__descriptor, admin_log },
	{ IPC_CTL_KILL, &iwcm__ctl__kill__descriptor, admin_kill },
	{ IPC_CTL_LISTENER_SET, &iwcm__ctl__listener_set__descriptor,
	  admin_listener_set },
	{ IPC_CTL_CONNECT, &iwcm__ctl__force_connect__descriptor,
	  admin_connect },
};

/* Handle one admin request; always ends with END or RESULT. */
void admin_dispatch(struct client *c, struct ipc_msg *m)
{
	const struct admin_handler *h = NULL;
	ProtobufCMessage *req;
	char why[96];
	size_t i;

	for (i = 0; i < sizeof(admin_handlers) / sizeof(admin_handlers[0]); i++)
		if (admin_handlers[i].type == m->hdr.type)
			h = &admin_handlers[i];
	if (!h) {
		snprintf(why, sizeof(why), "unexpected message %s (%u)",
			 ipc_type_name(m->hdr.type), m->hdr.type);
		control_close(c, why);
		return;
	}
	req = ipc_unpack(m, h->desc);
	if (!req) {
		admin_result(c, m->hdr.reqid, IWCM__RESULT__RES_EINVAL,
			     "malformed request");
		return;
	}
	log_debug("ctl pid %ld: admin %s", (long)c->pid,
		  ipc_type_name(m->hdr.type));
	h->fn(c, m->hdr.reqid, req);
	protobuf_c_message_free_unpacked(req, NULL);
}
