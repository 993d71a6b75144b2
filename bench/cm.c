/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The cm test: handshakes per second through handoff (MPA v1, MPA v2
 * peer-to-peer with a Write or a Read RTR) against plain TCP
 * connect/accept pairs on 127.0.0.1, one at a time and pipelined.
 *
 * The iwcm rows use libiwcm only, two contexts in this process: one
 * listens and accepts, the other connects.  A handshake counts when both
 * ends received IWCM_CM_EVENT_ESTABLISHED with their socket and the
 * negotiated fields the row asked for; its latency runs from the
 * iwcm_connect() call to the later of the two events.  Both contexts
 * pipeline their requests (IWCM_CTX_ASYNC_CM) unless --wait-cm.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "cm.h"
#include "poll_adapt.h"
#include "sctp_raw.h"

/* ---- the cm test: rows and their results ---- */

static const struct cm_row cm_rows[] = {
	{ "tcp", "raw TCP connect/accept (baseline)", CM_TCP, 0, false,
	  IWCM_RTR_NONE, false },
	{ "v1", "MPA v1 client-server (RFC 5044)", CM_IWCM, 1, false,
	  IWCM_RTR_NONE, false },
	{ "v2-p2p-write", "MPA v2 peer-to-peer, RDMA Write RTR (RFC 6581)",
	  CM_IWCM, 2, true, IWCM_RTR_WRITE, false },
	{ "v2-p2p-read", "MPA v2 peer-to-peer, RDMA Read RTR (RFC 6581)",
	  CM_IWCM, 2, true, IWCM_RTR_READ, false },
};

/* --transport sctp: DDP Stream Sessions (RFC 5043) through iwcmd, each
 * on an association of its own (sctp_multiplex = yes: all on the one it
 * keeps), against raw usrsctp associations. */
static const struct cm_row cm_rows_sctp[] = {
	{ "sctp",
	  "raw usrsctp association: connect, accept, COMM_UP "
	  "(baseline)",
	  CM_SCTP, 0, false, IWCM_RTR_NONE, true },
	{ "sctp-plain", "DDP Stream Session Initiate/Accept (RFC 5043 §6)",
	  CM_IWCM, 1, false, IWCM_RTR_NONE, true },
	{ "sctp-enh", "enhanced Initiate/Accept with IRD/ORD (RFC 6581 §7)",
	  CM_IWCM, 2, false, IWCM_RTR_NONE, true },
};

#define N_CM_ROWS (sizeof(cm_rows) / sizeof(cm_rows[0]))
/* --idle: how many of the connections held were still open at the end */
static unsigned long cm_idle_end;
#define N_CM_ROWS_SCTP (sizeof(cm_rows_sctp) / sizeof(cm_rows_sctp[0]))

struct cm_result {
	const struct cm_row *row;
	unsigned int depth;
	unsigned long iters;
	unsigned long completed;
	unsigned long failed;
	unsigned long warm_failed;
	uint64_t elapsed_ns;
	uint64_t bench_cpu_ns;
	uint64_t daemon_cpu_ns;
	bool daemon_cpu_known;
	uint64_t *lat; /* ns, sorted after the run */
	double ratio;
};

static uint16_t sa_port(const struct sockaddr *sa)
{
	if (!sa)
		return 0;
	if (sa->sa_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

/* ---- iwcm: iwcm_connect on one context, accept on the other ---- */

/* The initiator's side of a handshake in flight. */
struct cm_init {
	struct iwcm_conn *ic;
	uint64_t t0;
	uint64_t t_est;
	uint16_t port;	 /* local port, once established */
	uint16_t stream; /* SCTP: the session's stream, then */
	bool est;
};

enum cm_resp_state {
	RESP_FREE,
	RESP_PENDING,
	RESP_EST,
	RESP_FAILED,
};

/* The responder's side, found again through the initiator's port. */
struct cm_resp {
	struct iwcm_conn *rc;
	uint64_t t_est;
	uint16_t port;	 /* peer port = the initiator's local port */
	uint16_t stream; /* SCTP: the session's stream, once established */
	enum cm_resp_state state;
};

struct cm_loop {
	struct run *r;
	struct iwcm_ctx *srv;
	struct iwcm_ctx *cli;
	struct iwcm_listener *l;
	struct iwcm_conn_param *cp;
	struct iwcm_conn_param *ap;
	struct sockaddr_in dst;
	struct cm_init *init; /* depth slots */
	struct cm_resp *resp;
	unsigned int nresp;
	int *port_init; /* port -> init slot, or -1 */
	int *port_resp; /* port -> resp slot, or -1 */
};

static struct iwcm_conn_attr cm_attr(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(c, &a) < 0)
		a.comp_mask = 0;
	return a;
}

/*
 * What finds the other end of a connection: the local or the peer's
 * port, over SCTP the association's (its SCTP port) with the session's
 * stream (the same at both ends, RFC 5043 §6), as sessions may share
 * an association (sctp_multiplex = yes: one port, a stream each) or
 * have one each (the default: a port each, all on stream 0).
 */
static uint16_t cm_port(const struct iwcm_conn *c, bool local, uint16_t *stream)
{
	const struct iwcm_conn_attr a = cm_attr(c);

	*stream = a.transport == IWCM_TRANSPORT_SCTP ? a.sctp_stream : 0;
	return sa_port((const struct sockaddr *)(local ? &a.local_addr :
							 &a.peer_addr));
}

static const char *cm_reason(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = cm_attr(c);

	return a.reason_text ? a.reason_text : iwcm_status_str(a.reason);
}

/*
 * What the row asked for on both ends: the socket, the MPA revision, the
 * connection model, the RTR (RFC 6581 §9.2) and the private data.
 */
static const char *cm_check(const struct cm_loop *lp, const struct iwcm_conn *c)
{
	const struct cm_row *row = lp->r->row;
	const struct iwcm_conn_attr a = cm_attr(c);

	if (iwcm_conn_get_fd(c) < 0)
		return "no socket";
	if (row->sctp && (a.transport != IWCM_TRANSPORT_SCTP ||
			  !(a.comp_mask & IWCM_CONN_ATTR_SCTP)))
		return "transport";
	if (row->sctp && a.enhanced != (row->mpa_rev == 2))
		return "session (enhanced or plain)";
	if (row->sctp)
		goto pd;
	if ((int)a.mpa_rev != (int)row->mpa_rev)
		return "MPA revision";
	if ((int)a.p2p != (int)row->p2p)
		return "connection model";
	if ((int)a.rtr_type != (int)row->rtr)
		return "RTR type";
pd:
	if (!(a.comp_mask & IWCM_CONN_ATTR_PEER) ||
	    a.peer_private_data_len != lp->r->o->size)
		return "private data length";
	return NULL;
}

static struct iwcm_conn_param *
cm_param(const struct bench_opts *o, const struct cm_row *row, bool initiator)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	unsigned char pd[IWCM_PRIVATE_DATA_MAX];
	size_t i;
	int bad = 0;

	if (!p)
		return NULL;
	for (i = 0; i < o->size; i++)
		pd[i] = (unsigned char)i;
	if (o->size)
		bad |= iwcm_conn_param_set_private_data(p, pd, o->size);
	if (row->sctp)
		bad |= iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP);
	if (initiator) {
		bad |= iwcm_conn_param_set_mpa_rev(p, row->mpa_rev);
		bad |= iwcm_conn_param_set_p2p(p, row->p2p);
		if (row->rtr != IWCM_RTR_NONE)
			bad |= iwcm_conn_param_set_rtr_types(p, row->rtr);
	}
	if (bad) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

static void cm_init_clear(struct cm_loop *lp, struct cm_init *s)
{
	if (s->est && lp->port_init[s->port] == (int)(s - lp->init))
		lp->port_init[s->port] = -1;
	iwcm_conn_free(s->ic);
	memset(s, 0, sizeof(*s));
	lp->r->inflight--;
}

static void cm_resp_clear(struct cm_loop *lp, struct cm_resp *rs)
{
	if (lp->port_resp[rs->port] == (int)(rs - lp->resp))
		lp->port_resp[rs->port] = -1;
	iwcm_conn_free(rs->rc);
	memset(rs, 0, sizeof(*rs));
}

/* Both ends reported: a completed or a failed handshake. */
static void cm_pair(struct cm_loop *lp, struct cm_init *s, struct cm_resp *rs)
{
	const char *bad;

	if (rs->state == RESP_FAILED) {
		run_fail(lp->r, "responder: %s", cm_reason(rs->rc));
	} else if ((bad = cm_check(lp, s->ic))) {
		run_fail(lp->r, "initiator: unexpected %s", bad);
	} else if ((bad = cm_check(lp, rs->rc))) {
		run_fail(lp->r, "responder: unexpected %s", bad);
	} else {
		run_complete(lp->r, s->t0,
			     s->t_est > rs->t_est ? s->t_est : rs->t_est);
	}
	cm_init_clear(lp, s);
	cm_resp_clear(lp, rs);
}

static void cm_start(struct cm_loop *lp)
{
	struct run *r = lp->r;
	struct cm_init *s = NULL;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		if (!lp->init[i].ic) {
			s = &lp->init[i];
			break;
		}
	}
	r->started++;
	s->t0 = bench_now_ns();
	s->ic = iwcm_connect(lp->cli, (const struct sockaddr *)&lp->dst, NULL,
			     lp->cp);
	if (!s->ic) {
		run_fail(r, "iwcm_connect: %s", strerror(errno));
		return;
	}
	r->inflight++;
}

static struct cm_init *cm_find_init(struct cm_loop *lp,
				    const struct iwcm_conn *c)
{
	unsigned int i;

	for (i = 0; i < lp->r->depth; i++) {
		if (lp->init[i].ic == c)
			return &lp->init[i];
	}
	return NULL;
}

static struct cm_resp *cm_find_resp(struct cm_loop *lp,
				    const struct iwcm_conn *c)
{
	unsigned int i;

	for (i = 0; i < lp->nresp; i++) {
		if (lp->resp[i].state != RESP_FREE && lp->resp[i].rc == c)
			return &lp->resp[i];
	}
	return NULL;
}

/* SCTP: the established initiator of the session on port and stream. */
static struct cm_init *cm_sctp_init(struct cm_loop *lp, uint16_t port,
				    uint16_t stream)
{
	unsigned int i;

	for (i = 0; i < lp->r->depth; i++) {
		struct cm_init *s = &lp->init[i];

		if (s->ic && s->est && s->port == port && s->stream == stream)
			return s;
	}
	return NULL;
}

/* SCTP: an established responder on port and stream other than skip. */
static struct cm_resp *cm_sctp_resp(struct cm_loop *lp, uint16_t port,
				    uint16_t stream, const struct cm_resp *skip)
{
	unsigned int i;

	for (i = 0; i < lp->nresp; i++) {
		struct cm_resp *rs = &lp->resp[i];

		if (rs != skip && rs->state == RESP_EST && rs->port == port &&
		    rs->stream == stream)
			return rs;
	}
	return NULL;
}

/* The initiator's outcome. */
static void cm_init_event(struct cm_loop *lp, int type, struct iwcm_conn *c)
{
	struct cm_init *s = cm_find_init(lp, c);
	int ri;

	if (!s)
		return;
	if (type != IWCM_CM_EVENT_ESTABLISHED) {
		run_fail(lp->r, "initiator: %s: %s", iwcm_cm_event_str(type),
			 cm_reason(c));
		cm_init_clear(lp, s);
		return;
	}
	s->est = true;
	s->t_est = bench_now_ns();
	s->port = cm_port(c, true, &s->stream);
	if (lp->r->row->sctp) {
		struct cm_resp *rs = cm_sctp_resp(lp, s->port, s->stream, NULL);

		if (rs)
			cm_pair(lp, s, rs);
		return;
	}
	ri = lp->port_resp[s->port];
	if (ri >= 0 && lp->resp[ri].state != RESP_PENDING)
		cm_pair(lp, s, &lp->resp[ri]);
	else
		lp->port_init[s->port] = (int)(s - lp->init);
}

/*
 * A new connection request: accept it, remembered by the peer's port
 * (SCTP: by the association's and its stream once established).
 */
static void cm_request(struct cm_loop *lp, struct iwcm_conn *c)
{
	bool sctp = lp->r->row->sctp;
	uint16_t stream;
	uint16_t port = sctp ? 0 : cm_port(c, false, &stream);
	struct cm_resp *rs = NULL;
	unsigned int i;
	int old = sctp ? -1 : lp->port_resp[port];

	/* A leftover of a failed handshake on a reused port goes. */
	if (old >= 0)
		cm_resp_clear(lp, &lp->resp[old]);
	for (i = 0; i < lp->nresp; i++) {
		if (lp->resp[i].state == RESP_FREE) {
			rs = &lp->resp[i];
			break;
		}
	}
	if (!rs) {
		struct cm_resp *n =
			realloc(lp->resp, (lp->nresp * 2 + 1) * sizeof(*n));

		if (!n) {
			iwcm_conn_free(c);
			return;
		}
		memset(n + lp->nresp, 0, (lp->nresp + 1) * sizeof(*n));
		lp->resp = n;
		rs = &lp->resp[lp->nresp];
		lp->nresp = lp->nresp * 2 + 1;
	}
	rs->rc = c;
	rs->port = port;
	rs->state = RESP_PENDING;
	if (!sctp)
		lp->port_resp[port] = (int)(rs - lp->resp);
	if (iwcm_accept(c, lp->ap) < 0) {
		rs->state = RESP_FAILED;
		fprintf(stderr, "iwcm-bench: iwcm_accept: %s\n",
			strerror(errno));
	}
}

/* The responder's outcome. */
static void cm_resp_event(struct cm_loop *lp, int type, struct iwcm_conn *c)
{
	struct cm_resp *rs;
	int si;

	if (type == IWCM_CM_EVENT_CONNECT_REQUEST) {
		cm_request(lp, c);
		return;
	}
	rs = cm_find_resp(lp, c);
	if (!rs)
		return;
	if (type == IWCM_CM_EVENT_ESTABLISHED) {
		rs->state = RESP_EST;
		rs->t_est = bench_now_ns();
	} else {
		rs->state = RESP_FAILED;
	}
	if (lp->r->row->sctp) {
		struct cm_resp *old;
		struct cm_init *s;

		if (rs->state == RESP_FAILED) {
			/* no stream to pair by: the initiator counts it */
			cm_resp_clear(lp, rs);
			return;
		}
		rs->port = cm_port(c, false, &rs->stream);
		/* a leftover of a failed handshake on the same association
		 * and stream goes */
		while ((old = cm_sctp_resp(lp, rs->port, rs->stream, rs)))
			cm_resp_clear(lp, old);
		s = cm_sctp_init(lp, rs->port, rs->stream);
		if (s)
			cm_pair(lp, s, rs);
		return;
	}
	si = lp->port_init[rs->port];
	if (si >= 0 && lp->init[si].est)
		cm_pair(lp, &lp->init[si], rs);
}

/* Drain a context; false when it failed (the daemon went away). */
static bool cm_drain(struct cm_loop *lp, struct iwcm_ctx *ctx, bool srv)
{
	struct iwcm_event *ev;

	while (iwcm_get_event(ctx, &ev) == 0) {
		int type = iwcm_event_get_type(ev);
		struct iwcm_conn *c = iwcm_event_get_conn(ev);

		iwcm_ack_event(ev);
		if (srv)
			cm_resp_event(lp, type, c);
		else
			cm_init_event(lp, type, c);
	}
	if (errno == EAGAIN || errno == EINTR)
		return true;
	fprintf(stderr, "iwcm-bench: iwcm_get_event: %s\n", strerror(errno));
	return false;
}

static void cm_loop_free(struct cm_loop *lp)
{
	unsigned int i;

	for (i = 0; lp->init && i < lp->r->depth; i++) {
		if (lp->init[i].ic)
			cm_init_clear(lp, &lp->init[i]);
	}
	for (i = 0; lp->resp && i < lp->nresp; i++) {
		if (lp->resp[i].state != RESP_FREE)
			cm_resp_clear(lp, &lp->resp[i]);
	}
	if (lp->l)
		iwcm_listener_close(lp->l);
	iwcm_ctx_close(lp->cli);
	iwcm_ctx_close(lp->srv);
	iwcm_conn_param_free(lp->cp);
	iwcm_conn_param_free(lp->ap);
	free(lp->init);
	free(lp->resp);
	free(lp->port_init);
	free(lp->port_resp);
}

static int cm_loop_init(struct cm_loop *lp, struct run *r)
{
	unsigned int flags = IWCM_CTX_NONBLOCK |
			     (r->o->wait_cm ? 0 : IWCM_CTX_ASYNC_CM);
	struct iwcm_conn_param *lparam = NULL;
	struct sockaddr_in sin;
	size_t i;

	memset(lp, 0, sizeof(*lp));
	lp->r = r;
	lp->init = calloc(r->depth, sizeof(*lp->init));
	lp->port_init = malloc(65536 * sizeof(int));
	lp->port_resp = malloc(65536 * sizeof(int));
	lp->cp = cm_param(r->o, r->row, true);
	lp->ap = cm_param(r->o, r->row, false);
	if (!lp->init || !lp->port_init || !lp->port_resp || !lp->cp ||
	    !lp->ap) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return -1;
	}
	for (i = 0; i < 65536; i++)
		lp->port_init[i] = lp->port_resp[i] = -1;
	lp->srv = iwcm_ctx_open_path(D.path, flags);
	if (lp->srv)
		lp->cli = iwcm_ctx_open_path(D.path, flags);
	if (!lp->cli) {
		fprintf(stderr, "iwcm-bench: iwcmd at %s: %s\n", D.path,
			strerror(errno));
		return -1;
	}
	bench_sin_loopback(&sin, 0);
	if (r->row->sctp) {
		lparam = iwcm_conn_param_new();
		if (!lparam || iwcm_conn_param_set_transport(
				       lparam, IWCM_TRANSPORT_SCTP) < 0) {
			fprintf(stderr, "iwcm-bench: out of memory\n");
			iwcm_conn_param_free(lparam);
			return -1;
		}
	}
	lp->l = iwcm_listen(lp->srv, (struct sockaddr *)&sin, NULL, lparam,
			    (int)(r->depth < 128 ? 128 : r->depth));
	iwcm_conn_param_free(lparam);
	if (!lp->l) {
		fprintf(stderr, "iwcm-bench: iwcm_listen 127.0.0.1: %s\n",
			strerror(errno));
		return -1;
	}
	bench_sin_loopback(&lp->dst, (uint16_t)iwcm_listener_get_port(lp->l));
	return 0;
}

/*
 * poll(2) both contexts: with --busy-poll, without sleeping for that long
 * first (as iwcmd does with busy_poll_us); otherwise for as long as
 * either context's adaptive window lasts (iwcm_ctx_poll_us(3), which
 * --no-client-poll turns off), paced as libiwcm paces its own
 * (poll_adapt.h), as a client's own loop would.
 */
static int cm_poll(const struct cm_loop *lp, struct pollfd pfd[2],
		   unsigned long spin_us)
{
	uint64_t end = spin_us ? bench_now_ns() + spin_us * 1000u : 0;
	int k;

	while (spin_us) {
		k = poll(pfd, 2, 0);
		if (k != 0 || bench_now_ns() >= end)
			return k ? k : poll(pfd, 2, BENCH_STALL_MS);
	}
	while (iwcm_ctx_poll_us(lp->srv) || iwcm_ctx_poll_us(lp->cli)) {
		k = poll(pfd, 2, 0);
		if (k != 0)
			return k;
		poll_adapt_pace();
	}
	return poll(pfd, 2, BENCH_STALL_MS);
}

/* The iwcm loop; -1 when it could not run at all. */
static int cm_run(struct run *r)
{
	struct cm_loop lp;
	int rc = 0;

	if (cm_loop_init(&lp, r) < 0) {
		cm_loop_free(&lp);
		return -1;
	}
	while (r->done < r->iters) {
		struct pollfd pfd[2] = {
			{ .fd = iwcm_ctx_get_fd(lp.srv), .events = POLLIN },
			{ .fd = iwcm_ctx_get_fd(lp.cli), .events = POLLIN },
		};
		int k;

		while (r->inflight < r->depth && r->started < r->iters)
			cm_start(&lp);
		if (r->inflight == 0)
			continue;
		k = cm_poll(&lp, pfd, r->o->busy_poll_us);
		if (k < 0 && errno == EINTR)
			continue;
		if (k > 0 && cm_drain(&lp, lp.srv, true) &&
		    cm_drain(&lp, lp.cli, false))
			continue;
		if (k == 0)
			fprintf(stderr,
				"iwcm-bench: %s depth %u: no progress "
				"for 10 s\n",
				r->row->name, r->depth);
		else if (k < 0)
			perror("iwcm-bench: poll");
		r->failed += r->iters - r->done;
		r->done = r->iters;
		rc = 1;
		break;
	}
	cm_loop_free(&lp);
	r->inflight = 0;
	return rc;
}

/* ---- running the rows ---- */

/* Run one row (iters handshakes); the warm-up records nothing. */
static int cm_row_run(const struct bench_opts *o, struct cm_result *res,
		      unsigned long iters, bool warm)
{
	struct run r;
	uint64_t t0, c0, d0, t1;
	int rc;

	memset(&r, 0, sizeof(r));
	r.row = res->row;
	r.o = o;
	r.depth = res->depth;
	r.iters = iters;
	if (!warm) {
		res->lat = calloc(iters ? iters : 1, sizeof(*res->lat));
		if (!res->lat) {
			fprintf(stderr, "iwcm-bench: out of memory\n");
			return -1;
		}
		r.lat = res->lat;
	}
	c0 = bench_cpu_ns(0);
	d0 = D.peer_pid ? bench_cpu_ns(D.peer_pid) : 0;
	t0 = bench_now_ns();
	rc = res->row->kind == CM_TCP  ? cm_tcp_run(&r) :
	     res->row->kind == CM_SCTP ? cm_sctp_run(&r) :
					 cm_run(&r);
	t1 = bench_now_ns();
	if (rc < 0)
		return rc;
	if (warm) {
		res->warm_failed = r.failed;
		return 0;
	}
	res->iters = iters;
	res->completed = r.completed;
	res->failed = r.failed;
	res->elapsed_ns = t1 - t0;
	res->bench_cpu_ns = bench_cpu_ns(0) - c0;
	if (D.peer_pid && d0) {
		uint64_t d1 = bench_cpu_ns(D.peer_pid);

		res->daemon_cpu_known = d1 >= d0;
		res->daemon_cpu_ns = d1 - d0;
	}
	qsort(res->lat, res->completed, sizeof(*res->lat), bench_cmp_u64);
	return 0;
}

static double res_rate(const struct cm_result *res)
{
	if (!res->elapsed_ns)
		return 0.0;
	return (double)res->completed * 1e9 / (double)res->elapsed_ns;
}

static double per_hs_us(const struct cm_result *res, uint64_t ns)
{
	return res->completed ? bench_us(ns) / (double)res->completed : 0.0;
}

/* The limit of libiwcm's adaptive window in this run (IWCM_POLL_US,
 * iwcm_ctx_poll_us(3)). */
static const char *cm_client_poll(void)
{
	const char *s = getenv("IWCM_POLL_US");

	return s && *s ? s : "default";
}

static void print_text(const struct bench_opts *o, const struct cm_result *res,
		       size_t n)
{
	size_t i;

	printf("iwcm-bench cm: %s on 127.0.0.1, %ld CPUs, iwcmd %s\n",
	       o->sctp ? "DDP Stream Sessions over SCTP through the relay" :
			 "handshakes through handoff",
	       sysconf(_SC_NPROCESSORS_ONLN),
	       o->socket ? o->socket : "started for this run");
	printf("%lu handshakes per row after %lu warm-up, private data %zu "
	       "octets each way;\nratio = handshakes/s over %s at the same "
	       "depth,\nthe faster of a run before and one after the iwcm "
	       "rows\n\n",
	       o->iters, o->warmup, o->size,
	       o->sctp ? "raw usrsctp association setup (connect, accept,\n"
			 "COMM_UP; UDP encapsulation on loopback)" :
			 "raw TCP connect/accept");
	if (o->busy_poll_us)
		printf("this program polls %lu us before sleeping\n\n",
		       o->busy_poll_us);
	else if (!strcmp(cm_client_poll(), "0"))
		printf("this program sleeps as soon as its contexts are "
		       "drained (IWCM_POLL_US 0)\n\n");
	else
		printf("this program polls for its contexts' adaptive window "
		       "(IWCM_POLL_US %s)\n\n",
		       cm_client_poll());
	if (o->idle && o->sctp)
		printf("beside %lu SCTP associations to iwcmd that never carry "
		       "a session (%lu still up\nat the end)\n\n",
		       o->idle, cm_idle_end);
	else if (o->idle)
		printf("beside %lu connections to iwcmd that never send a byte "
		       "(%lu still open at the end)\n\n",
		       o->idle, cm_idle_end);
	printf("%-13s %5s %7s %6s %8s %9s %6s %8s %8s %7s %7s\n", "test",
	       "depth", "iters", "failed", "seconds", "hs/s", "ratio", "p50 us",
	       "p99 us", "cpu us", "iwcmd");
	for (i = 0; i < n; i++) {
		const struct cm_result *r = &res[i];
		char dcpu[16] = "-";

		if (r->daemon_cpu_known && r->row->kind == CM_IWCM)
			snprintf(dcpu, sizeof(dcpu), "%.1f",
				 per_hs_us(r, r->daemon_cpu_ns));
		printf("%-13s %5u %7lu %6lu %8.4f %9.1f %6.3f %8.1f %8.1f "
		       "%7.1f %7s\n",
		       r->row->name, r->depth, r->iters, r->failed,
		       (double)r->elapsed_ns / 1e9, res_rate(r), r->ratio,
		       bench_us(bench_percentile(r->lat, r->completed, 50)),
		       bench_us(bench_percentile(r->lat, r->completed, 99)),
		       per_hs_us(r, r->bench_cpu_ns), dcpu);
	}
	printf("\ncpu us: CPU time per handshake of this program (both ends "
	       "of every row);\niwcmd: of the daemon, which runs both ends "
	       "of every iwcm handshake\n");
	if (o->sctp)
		printf("an iwcm session sets up an association of its own, "
		       "as a baseline row does\n(with sctp_multiplex = yes "
		       "in iwcmd.conf, all run on one iwcmd keeps\nbetween "
		       "its own two ends, shut down when idle)\n");
}

static void print_json(const struct bench_opts *o, const struct cm_result *res,
		       size_t n)
{
	size_t i;

	printf("{\"test\":\"cm\",\"iters\":%lu,\"warmup\":%lu,\"size\":%zu,"
	       "\"depths\":[",
	       o->iters, o->warmup, o->size);
	for (i = 0; i < o->ndepths; i++)
		printf("%s%u", i ? "," : "", o->depths[i]);
	printf("],");
	bench_json_host(o);
	printf(",\"baseline\":\"%s\",\"pipelined\":%s,\"busy_poll_us\":%lu,"
	       "\"client_poll_us\":\"%s\","
	       "\"idle\":%lu,\"idle_left\":%lu,\"results\":[\n",
	       o->sctp ? "usrsctp" : "tcp", o->wait_cm ? "false" : "true",
	       o->busy_poll_us, cm_client_poll(), o->idle, cm_idle_end);
	for (i = 0; i < n; i++) {
		const struct cm_result *r = &res[i];

		printf("{\"name\":\"%s\",\"transport\":\"%s\","
		       "\"mpa_rev\":%u,\"p2p\":%s,\"rtr\":\"%s\","
		       "\"depth\":%u,\"iterations\":%lu,\"completed\":%lu,"
		       "\"failed\":%lu,\"seconds\":%.6f,"
		       "\"handshakes_per_sec\":%.1f,\"ratio\":%.4f,"
		       "\"latency_us\":{\"min\":%.1f,\"p50\":%.1f,"
		       "\"p99\":%.1f,\"max\":%.1f},"
		       "\"cpu_us_per_handshake\":{\"bench\":%.2f,",
		       r->row->name,
		       r->row->kind == CM_TCP ? "tcp" :
		       r->row->sctp	      ? "sctp" :
						"mpa",
		       r->row->mpa_rev, r->row->p2p ? "true" : "false",
		       r->row->rtr == IWCM_RTR_WRITE ? "write" :
		       r->row->rtr == IWCM_RTR_READ  ? "read" :
						       "none",
		       r->depth, r->iters, r->completed, r->failed,
		       (double)r->elapsed_ns / 1e9, res_rate(r), r->ratio,
		       bench_us(bench_percentile(r->lat, r->completed, 0)),
		       bench_us(bench_percentile(r->lat, r->completed, 50)),
		       bench_us(bench_percentile(r->lat, r->completed, 99)),
		       bench_us(bench_percentile(r->lat, r->completed, 100)),
		       per_hs_us(r, r->bench_cpu_ns));
		if (r->daemon_cpu_known)
			printf("\"iwcmd\":%.2f}}",
			       per_hs_us(r, r->daemon_cpu_ns));
		else
			printf("\"iwcmd\":null}}");
		printf("%s\n", i + 1 < n ? "," : "");
	}
	printf("]}\n");
}

/* Enough descriptors for the deepest row (both ends of each handshake)
 * and the connections --idle holds (not its SCTP associations: another
 * process holds them, and usrsctp's sockets are no descriptors). */
static int raise_nofile(const struct bench_opts *o)
{
	unsigned int i, depth = 1;
	struct rlimit rl;
	rlim_t need;

	for (i = 0; i < o->ndepths; i++)
		if (o->depths[i] > depth)
			depth = o->depths[i];
	need = (rlim_t)depth * 2 + 64 + (o->sctp ? 0 : o->idle);
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= need)
		return 0;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > need * 4 ?
			      need * 4 :
			      rl.rlim_max;
	if (rl.rlim_cur < need || setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		fprintf(stderr,
			"iwcm-bench: depth %u%s needs %lu descriptors; "
			"raise the limit (ulimit -n)\n",
			depth, o->idle && !o->sctp ? " with --idle" : "",
			(unsigned long)need);
		return -1;
	}
	return 0;
}

/*
 * The baseline again, after the depth's iwcm rows: its rate swings
 * between runs on a shared machine (from one mode of about 16,000 to
 * another of about 24,000 connect/accept pairs per second here), so the
 * ratios use the faster of the runs before and after them, which makes
 * them the lower of the two.
 */
static int cm_rebase(const struct bench_opts *o, struct cm_result *base)
{
	struct cm_result again = { .row = base->row, .depth = base->depth };

	if ((o->warmup && cm_row_run(o, &again, o->warmup, true) < 0) ||
	    cm_row_run(o, &again, o->iters, false) < 0) {
		free(again.lat);
		return -1;
	}
	if (!again.failed && res_rate(&again) > res_rate(base)) {
		free(base->lat);
		*base = again;
	} else {
		free(again.lat);
	}
	return 0;
}

/* Run the cm test: every row at every depth, then the table. */
int cm_bench(const struct bench_opts *o)
{
	const struct cm_row *rows = o->sctp ? cm_rows_sctp : cm_rows;
	size_t nrows = o->sctp ? N_CM_ROWS_SCTP : N_CM_ROWS;
	size_t n = (size_t)o->ndepths * nrows, i;
	struct cm_result *res = calloc(n, sizeof(*res));
	int rc = 0;

	if (!res) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return 1;
	}
	if (raise_nofile(o) < 0 || daemon_start(o) < 0) {
		free(res);
		return 1;
	}
	if ((o->sctp ? sctp_idle_open(o) : cm_idle_open(o)) < 0) {
		cm_idle_close();
		daemon_stop();
		free(res);
		return 1;
	}
	for (i = 0; i < n; i++) {
		struct cm_result *r = &res[i];

		r->row = &rows[i % nrows];
		r->depth = o->depths[i / nrows];
		if ((o->warmup && cm_row_run(o, r, o->warmup, true) < 0) ||
		    cm_row_run(o, r, o->iters, false) < 0) {
			rc = 1;
			n = i;
			break;
		}
		if (r->failed || r->warm_failed)
			rc = 1;
		if (i % nrows == nrows - 1 &&
		    cm_rebase(o, &res[i - i % nrows]) < 0) {
			rc = 1;
			break;
		}
	}
	/* Ratio over the baseline of the same depth (cm_rebase()). */
	for (i = 0; i < n; i++) {
		const struct cm_result *base = &res[i - i % nrows];
		double b = res_rate(base);

		res[i].ratio = b > 0.0 ? res_rate(&res[i]) / b : 0.0;
	}
	cm_idle_end = o->sctp ? sctp_idle_close() : cm_idle_left();
	cm_idle_close();
	if (daemon_stop() < 0)
		rc = 1;
	if (n > 0) {
		if (o->json)
			print_json(o, res, n);
		else
			print_text(o, res, n);
	}
	sraw_stop();
	for (i = 0; i < (size_t)o->ndepths * nrows; i++)
		free(res[i].lat);
	free(res);
	return rc;
}
