/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The daemon's metrics as labelled samples (iwcmctl stats -o openmetrics,
 * iwcmctl(8)): handshakes by transport, role, outcome and reason,
 * Terminates by direction, layer, type and code, timeouts by phase,
 * shed and refused connections, handoffs, and gauges of connections by
 * state, half-open connections, clients and listeners, and the time the
 * loop polled (loop.c).  It reads
 * iwcmd_stats and walks the live objects; admin.c puts the samples into
 * ctl.proto.  No protobuf here.
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conn.h"
#include "metrics.h"
#include "sctp_stack.h"

static const struct metrics_family metrics_families[] = {
	[METRIC_HANDSHAKES] = { "iwcm_handshakes", METRIC_COUNTER,
				"Negotiations that ended, by transport, role, "
				"outcome and reason." },
	[METRIC_TERMINATES] = { "iwcm_terminates", METRIC_COUNTER,
				"Terminate messages sent or received during "
				"connection setup, by layer, type and code "
				"(RFC 5040 section 4.8)." },
	[METRIC_TIMEOUTS] = { "iwcm_timeouts", METRIC_COUNTER,
			      "Startup timeouts by phase (RFC 5044 section "
			      "7.1.2 rule 10; ulp is the local client's "
			      "decision)." },
	[METRIC_ACCEPTED] = { "iwcm_accepted", METRIC_COUNTER,
			      "TCP connections accepted by listeners." },
	[METRIC_CONNECTS] = { "iwcm_connects", METRIC_COUNTER,
			      "Connect requests from clients." },
	[METRIC_SHED] = { "iwcm_shed", METRIC_COUNTER,
			  "Half-open connections dropped to admit newer "
			  "ones." },
	[METRIC_REFUSED] = { "iwcm_refused", METRIC_COUNTER,
			     "Inbound connections closed for want of room." },
	[METRIC_HANDOFFS] = { "iwcm_handoffs", METRIC_COUNTER,
			      "Negotiated sockets passed to their owner, or "
			      "not." },
	[METRIC_BAD_FRAMES] = { "iwcm_bad_frames", METRIC_COUNTER,
				"Improperly formatted startup frames." },
	[METRIC_PROTOCOL_ERRORS] = { "iwcm_protocol_errors", METRIC_COUNTER,
				     "Events a connection's state did not "
				     "expect." },
	[METRIC_FALLBACKS] = { "iwcm_fallbacks", METRIC_COUNTER,
			       "Enhanced requests retried as MPA Rev 1 (RFC "
			       "6581 section 10)." },
	[METRIC_CONNECTIONS] = { "iwcm_connections", METRIC_GAUGE,
				 "Connections iwcmd holds, by transport and "
				 "state: TCP ones being negotiated, SCTP "
				 "sessions until their relay has drained." },
	[METRIC_HALFOPEN] = { "iwcm_halfopen", METRIC_GAUGE,
			      "Accepted connections without a complete MPA "
			      "Request, and peers' SCTP associations "
			      "without a session." },
	[METRIC_CLIENTS] = { "iwcm_clients", METRIC_GAUGE,
			     "Clients on the client socket." },
	[METRIC_LISTENERS] = { "iwcm_listeners", METRIC_GAUGE,
			       "Listening sockets." },
	[METRIC_LOOP_POLL] = { "iwcm_loop_poll_seconds", METRIC_COUNTER,
			       "Time the event loop polled without sleeping "
			       "after exchanges with clients (busy_poll_us, "
			       "adaptive_poll_us).",
			       "seconds" },
	[METRIC_SCTP_UDP_DROPPED] = { "iwcm_sctp_udp_dropped", METRIC_COUNTER,
				      "Datagrams on the SCTP UDP encapsulation "
				      "port (RFC 6951) dropped by the "
				      "user-space stack, by reason." },
};

/* The label value of each conn_result. */
static const char *const metrics_reason[CONN_RES_MAX] = {
	[CONN_RES_OK] = "none",
	[CONN_RES_EINVAL] = "invalid",
	[CONN_RES_EPERM] = "permission",
	[CONN_RES_ENOENT] = "no_entry",
	[CONN_RES_EEXIST] = "exists",
	[CONN_RES_ELIMIT] = "limit",
	[CONN_RES_EADDRINUSE] = "address_in_use",
	[CONN_RES_ETIMEDOUT] = "timeout",
	[CONN_RES_ECONNREFUSED] = "refused",
	[CONN_RES_ECONNRESET] = "reset",
	[CONN_RES_EREJECTED] = "rejected",
	[CONN_RES_EPROTO] = "protocol",
	[CONN_RES_EVERSION] = "version",
	[CONN_RES_EINTERNAL] = "internal",
	[CONN_RES_ESHUTDOWN] = "shutdown",
};

/* The phase of a timeout in each state; NULL where none is armed. */
static const char *const metrics_phase[CONN_S_MAX] = {
	[CONN_S_CONNECTING] = "connect", [CONN_S_WAIT_REQUEST] = "request",
	[CONN_S_WAIT_ROUTE] = "ulp",	 [CONN_S_WAIT_ULP] = "ulp",
	[CONN_S_DECIDED] = "ulp",	 [CONN_S_WAIT_REPLY] = "reply",
	[CONN_S_WAIT_RTR] = "rtr",	 [CONN_S_WAIT_READ_RESP] = "rtr",
};

/* A family's description. */
const struct metrics_family *metrics_family(enum metric_id id)
{
	return &metrics_families[id];
}

struct metrics_out {
	void (*emit)(const struct metric_sample *s, void *arg);
	void *arg;
};

static void metrics_emit(const struct metrics_out *o, enum metric_id id,
			 uint64_t value, ...) __attribute__((sentinel));

/* One sample: label name, value pairs, NULL-terminated. */
static void metrics_emit(const struct metrics_out *o, enum metric_id id,
			 uint64_t value, ...)
{
	struct metric_sample s;
	va_list ap;
	const char *name;

	memset(&s, 0, sizeof(s));
	s.id = id;
	s.value = value;
	va_start(ap, value);
	while ((name = va_arg(ap, const char *)) != NULL &&
	       s.n_labels < METRIC_LABELS_MAX) {
		s.labels[s.n_labels].name = name;
		snprintf(s.labels[s.n_labels].value,
			 sizeof(s.labels[s.n_labels].value), "%s",
			 va_arg(ap, const char *));
		s.n_labels++;
	}
	va_end(ap);
	o->emit(&s, o->arg);
}

static void metrics_count_state(const struct conn *c, void *arg)
{
	unsigned int *n = arg;

	n[c->fsm.state]++;
}

static void metrics_count_listener(struct listener *l, void *arg)
{
	unsigned int *n = arg;

	(void)l;
	(*n)++;
}

/* One transport's rows: TCP connections (MPA) or DDP stream sessions over
 * SCTP (RFC 5043), as the initiator (active side) or the responder. */
static void metrics_handshakes_of(const struct metrics_out *o,
				  const char *transport,
				  const uint64_t (*ended)[CONN_RES_MAX])
{
	static const char *const role[2] = { "initiator", "responder" };

	for (int r = 0; r < 2; r++) {
		for (int e = 0; e < CONN_RES_MAX; e++) {
			const char *outcome = e == CONN_RES_OK ? "established" :
					      e == CONN_RES_EREJECTED ?
								 "rejected" :
								 "failed";

			/* every established and failed row, so that a rate
			 * has a series from the start */
			if (!ended[r][e] && e != CONN_RES_OK &&
			    e != CONN_RES_ETIMEDOUT)
				continue;
			metrics_emit(o, METRIC_HANDSHAKES, ended[r][e],
				     "transport", transport, "role", role[r],
				     "outcome", outcome, "reason",
				     metrics_reason[e], NULL);
		}
	}
}

static void metrics_handshakes(const struct metrics_out *o)
{
	metrics_handshakes_of(o, "tcp", iwcmd_stats.ended);
	metrics_handshakes_of(o, "sctp", iwcmd_stats.ended_sctp);
}

static void metrics_terminates(const struct metrics_out *o)
{
	const struct iwcmd_stats *st = &iwcmd_stats;
	char layer[8], type[8], code[8];

	for (unsigned int i = 0; i < st->n_term; i++) {
		const struct iwcmd_stats_term *t = &st->term[i];

		snprintf(layer, sizeof(layer), "%u", t->layer);
		snprintf(type, sizeof(type), "%u", t->etype);
		snprintf(code, sizeof(code), "%u", t->ecode);
		metrics_emit(o, METRIC_TERMINATES, t->n, "direction",
			     t->rcvd ? "received" : "sent", "layer", layer,
			     "type", type, "code", code, NULL);
	}
	if (st->term_other)
		metrics_emit(o, METRIC_TERMINATES, st->term_other, "direction",
			     "any", "layer", "other", "type", "other", "code",
			     "other", NULL);
}

static void metrics_timeouts(const struct metrics_out *o)
{
	static const char *const phases[] = { "connect", "request", "ulp",
					      "reply", "rtr" };
	const struct iwcmd_stats *st = &iwcmd_stats;

	for (size_t p = 0; p < sizeof(phases) / sizeof(phases[0]); p++) {
		uint64_t n = 0;

		for (int s = 0; s < CONN_S_MAX; s++)
			if (metrics_phase[s] &&
			    !strcmp(metrics_phase[s], phases[p]))
				n += st->timeouts_in[s];
		metrics_emit(o, METRIC_TIMEOUTS, n, "phase", phases[p], NULL);
	}
}

/* One iwcm_connections sample; the state's name in lower case. */
static void metrics_connections(const struct metrics_out *o,
				const char *transport, const char *name,
				unsigned int n)
{
	char state[32];
	size_t i;

	for (i = 0; name[i] && i + 1 < sizeof(state); i++)
		state[i] = (char)tolower((unsigned char)name[i]);
	state[i] = '\0';
	metrics_emit(o, METRIC_CONNECTIONS, n, "transport", transport, "state",
		     state, NULL);
}

static void metrics_gauges(const struct metrics_out *o)
{
	unsigned int by_state[CONN_S_MAX] = { 0 }, nl = 0;
	unsigned int sctp[SCTP_CONN_STATES];

	conn_foreach(metrics_count_state, by_state);
	for (int s = CONN_S_CONNECTING; s < CONN_S_MAX; s++)
		if (s != CONN_S_DONE && s != CONN_S_CLOSED)
			metrics_connections(o, "tcp", conn_state_names[s],
					    by_state[s]);
	/* RFC 5043 sessions: every state but before and after one */
	sctp_conn_count_states(sctp);
	for (unsigned int s = 0; s < SCTP_CONN_STATES; s++)
		if (s != SESS_S_NONE && s != SESS_S_CLOSED)
			metrics_connections(o, "sctp", sctp_conn_state_name(s),
					    sctp[s]);
	metrics_emit(o, METRIC_HALFOPEN, admission_count(), NULL);
	metrics_emit(o, METRIC_CLIENTS, control_client_count(), NULL);
	listener_foreach(metrics_count_listener, &nl);
	metrics_emit(o, METRIC_LISTENERS, nl, NULL);
}

/* What usrsctp's UDP port dropped (RFC 4960 §6.8, §8.5); nothing while
 * no stack runs or the kernel's counts its own. */
static void metrics_sctp_drops(const struct metrics_out *o)
{
	struct sctp_drops d;

	if (!sctp_stack_drops(&d))
		return;
	metrics_emit(o, METRIC_SCTP_UDP_DROPPED, d.not_sctp, "reason",
		     "not_sctp", NULL);
	metrics_emit(o, METRIC_SCTP_UDP_DROPPED, d.bad_crc, "reason", "bad_crc",
		     NULL);
	metrics_emit(o, METRIC_SCTP_UDP_DROPPED, d.bad_vtag, "reason",
		     "bad_vtag", NULL);
	metrics_emit(o, METRIC_SCTP_UDP_DROPPED, d.no_room, "reason", "no_room",
		     NULL);
	metrics_emit(o, METRIC_SCTP_UDP_DROPPED, d.send_failed, "reason",
		     "send_failed", NULL);
}

/* Call emit for every sample, family by family in enum metric_id order. */
void metrics_collect(void (*emit)(const struct metric_sample *s, void *arg),
		     void *arg)
{
	const struct iwcmd_stats *st = &iwcmd_stats;
	const struct metrics_out o = { emit, arg };

	metrics_handshakes(&o);
	metrics_terminates(&o);
	metrics_timeouts(&o);
	metrics_emit(&o, METRIC_ACCEPTED, st->accepted, NULL);
	metrics_emit(&o, METRIC_CONNECTS, st->connects, NULL);
	metrics_emit(&o, METRIC_SHED, st->shed, NULL);
	metrics_emit(&o, METRIC_REFUSED, st->refused, NULL);
	metrics_emit(&o, METRIC_HANDOFFS, st->established, "result", "done",
		     NULL);
	metrics_emit(&o, METRIC_HANDOFFS, st->handoff_failed, "result",
		     "failed", NULL);
	metrics_emit(&o, METRIC_BAD_FRAMES, st->bad_frames, NULL);
	metrics_emit(&o, METRIC_PROTOCOL_ERRORS, st->protocol_errors, NULL);
	metrics_emit(&o, METRIC_FALLBACKS, st->fallbacks, NULL);
	metrics_gauges(&o);
	metrics_emit(&o, METRIC_LOOP_POLL, st->loop_poll_us, NULL);
	metrics_sctp_drops(&o);
}
