/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcm-rping: rdma-core's rping on libiwcm, with the same options and the
 * same messages on the wire, so that either end can be rping on a Linux
 * siw or hardware iWARP device.  One ping:
 *
 *   client  Send {start buffer: address, STag, size}        -> server
 *   server  RDMA Read of the client's start buffer
 *   server  Send {16 zero octets} ("go ahead")              -> client
 *   client  Send {sink buffer: address, STag, size}         -> server
 *   server  RDMA Write of what it read into the sink buffer
 *   server  Send {16 zero octets} ("go ahead")              -> client
 *
 * The advertisement is rping's struct rping_rdma_info: 16 octets, the
 * buffer address (64 bits), STag (32) and size (32), all big-endian.  The
 * ping data is "rdma-ping-N: " followed by a rotating run of the ASCII
 * characters 'A' (65) to 'z' (122) starting one further at each ping,
 * with a NUL in the last octet.  The client closes the connection after
 * -C pings.
 *
 * The program is a single-threaded poll loop over three descriptors: the
 * context's CM event channel, one completion channel shared by the
 * connections (one CQ each) and the context's asynchronous event fd.
 * Each connection is a small state machine advanced by its completions,
 * so a persistent server (-P) serves its clients concurrently.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "rping.h"

/* ---- the program ---- */

static struct rping_conn *rp_find_conn(struct rping *rp,
				       const struct iwcm_conn *conn)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc->conn == conn)
			return rc;
	return NULL;
}

static struct rping_conn *rp_find_cq(struct rping *rp, void *ctx,
				     const struct iwcm_cq *cq)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc == ctx && rc->cq == cq)
			return rc;
	return NULL;
}

/* A client connects to one of our listeners. */
static void rp_request(struct rping *rp, struct iwcm_conn *conn)
{
	struct rping_conn *rc;

	if (!rp->o->persistent && rp->served > 0) {
		/* rping without -P serves one connection. */
		dbg("conn %" PRIu64 ": busy, rejecting", conn_attr(conn).id);
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		return;
	}
	rc = rc_new(rp, conn);
	if (!rc) {
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		return;
	}
	rp->served++;
	dbg("accepting client connection request");
	if (iwcm_accept(conn, rp->param) < 0) {
		err("conn %" PRIu64 ": iwcm_accept: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
	}
}

static const char *conn_reason(const struct iwcm_conn *conn)
{
	const struct iwcm_conn_attr a = conn_attr(conn);

	return a.reason_text ? a.reason_text : iwcm_status_str(a.reason);
}

/* Drain the CM event channel. */
static void rp_cm_events(struct rping *rp)
{
	struct iwcm_event *ev;

	while (!rp->done && iwcm_get_event(rp->ctx, &ev) == 0) {
		enum iwcm_cm_event_type type = iwcm_event_get_type(ev);
		struct iwcm_conn *conn = iwcm_event_get_conn(ev);
		struct rping_conn *rc;

		dbg("cma_event type %s conn %" PRIu64, iwcm_cm_event_str(type),
		    conn_attr(conn).id);
		iwcm_ack_event(ev);
		if (type == IWCM_CM_EVENT_CONNECT_REQUEST) {
			rp_request(rp, conn);
			continue;
		}
		rc = rp_find_conn(rp, conn);
		if (!rc)
			continue;
		if (type == IWCM_CM_EVENT_ESTABLISHED) {
			dbg("ESTABLISHED");
			rc_established(rc);
			continue;
		}
		err("cma event %s, error %d: %s", iwcm_cm_event_str(type),
		    (int)conn_attr(conn).reason, conn_reason(conn));
		rc->failed = true;
		rc_end(rc);
	}
	if (rp->done || errno == EAGAIN || errno == EINTR)
		return;
	if (errno == ECONNRESET) {
		/* Established connections carry on without the daemon. */
		err("the daemon went away");
		rp->cm_gone = true;
		if (!rp->conns) {
			rp->failures++;
			rp->done = true;
		}
		return;
	}
	err("iwcm_get_event: %s", strerror(errno));
	rp->failures++;
	rp->done = true;
}

/* One completion channel event: poll that connection's CQ. */
static void rp_cq_event(struct rping *rp)
{
	struct iwcm_cq *cq;
	void *ctx;
	struct rping_conn *rc;

	if (iwcm_get_cq_event(rp->channel, &cq, &ctx) < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			err("iwcm_get_cq_event: %s", strerror(errno));
			rp->failures++;
			rp->done = true;
		}
		return;
	}
	rc = rp_find_cq(rp, ctx, cq);
	if (!rc)
		return; /* a connection already freed */
	iwcm_ack_cq_events(cq, 1);
	if (iwcm_req_notify_cq(cq, 0) < 0) {
		err("conn %" PRIu64 ": iwcm_req_notify_cq: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
		return;
	}
	rc_poll(rc);
}

/* Act on the events rp_async_drain() noted. */
static void rp_async_act(struct rping *rp)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc && !rp->done;) {
		if (!rc->async_type || rc->async_seen) {
			rc = rc->next;
			continue;
		}
		rc_async(rc);
		/* The list may have changed: start over. */
		rc = rp->conns;
	}
}

/* Closing connections whose QP reached ERROR, or whose time is up. */
static void rp_check_closing(struct rping *rp)
{
	struct rping_conn *rc;
	struct iwcm_qp_attr a = { .comp_mask = 0 };
	long long now = now_ms();

	for (rc = rp->conns; rc && !rp->done;) {
		if (rc->state != RC_CLOSING ||
		    (rc->qp && iwcm_query_qp(rc->qp, &a) == 0 &&
		     a.state != IWCM_QPS_ERROR && now < rc->close_deadline)) {
			rc = rc->next;
			continue;
		}
		if (now >= rc->close_deadline)
			dbg("conn %" PRIu64 ": close timed out", rc->id);
		if (rc_poll(rc))
			rc_end(rc);
		rc = rp->conns;
	}
}

static int rp_poll_timeout(const struct rping *rp)
{
	const struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc->state == RC_CLOSING)
			return RPING_CLOSE_POLL_MS;
	return -1;
}

static int rp_loop(struct rping *rp)
{
	struct pollfd pfd[3];
	int n;

	pfd[0].fd = iwcm_ctx_get_fd(rp->ctx);
	pfd[1].fd = iwcm_comp_channel_get_fd(rp->channel);
	pfd[2].fd = iwcm_ctx_get_async_fd(rp->ctx);
	if (pfd[0].fd < 0 || pfd[1].fd < 0 || pfd[2].fd < 0) {
		err("event descriptors: %s", strerror(errno));
		return -1;
	}
	while (!rp->done) {
		pfd[0].events = rp->cm_gone ? 0 : POLLIN;
		pfd[1].events = POLLIN;
		pfd[2].events = POLLIN;
		n = poll(pfd, 3, rp_poll_timeout(rp));
		if (stop_signal) {
			dbg("signal %d", (int)stop_signal);
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents)
			rp_cq_event(rp);
		if (!rp->done && pfd[2].revents)
			rp_async_drain(rp);
		if (!rp->done)
			rp_async_act(rp);
		if (!rp->done && pfd[0].revents)
			rp_cm_events(rp);
		if (!rp->done)
			rp_check_closing(rp);
	}
	return 0;
}

static struct iwcm_conn_param *rp_param(const struct rping_opts *o)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	int bad = 0;

	if (!p)
		return NULL;
	/* rping: responder_resources = initiator_depth = 1. */
	bad |= iwcm_conn_param_set_ird(p, 1);
	bad |= iwcm_conn_param_set_ord(p, 1);
	if (o->p2p)
		bad |= iwcm_conn_param_set_p2p(p, true);
	if (o->rtr)
		bad |= iwcm_conn_param_set_rtr_types(p, o->rtr);
	if (o->mpa_rev)
		bad |= iwcm_conn_param_set_mpa_rev(p, o->mpa_rev);
	if (o->crc >= 0)
		bad |= iwcm_conn_param_set_crc(p, o->crc ? IWCM_CRC_REQUEST :
							   IWCM_CRC_PREFER_OFF);
	if (o->markers)
		bad |= iwcm_conn_param_set_markers(p, true);
	if (o->hold_ms >= 0)
		bad |= iwcm_conn_param_set_first_fpdu_delay(
			p, (unsigned int)o->hold_ms);
	if (o->sctp)
		bad |= iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP);
	if (bad) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

static int rp_start_server(struct rping *rp)
{
	const struct rping_opts *o = rp->o;
	char host[NI_MAXHOST];

	rp->listener = iwcm_listen(rp->ctx, (struct sockaddr *)&o->addr, NULL,
				   rp->param, RPING_BACKLOG);
	if (!rp->listener) {
		err("listen on port %d: %s", o->port, strerror(errno));
		return -1;
	}
	if (getnameinfo((struct sockaddr *)&o->addr, sizeof(o->addr), host,
			sizeof(host), NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(host, sizeof(host), "?");
	/* With -p 0 the port is only known now: always tell it. */
	if (o->port == 0 || debug) {
		printf("listening on %s port %d\n", host,
		       iwcm_listener_get_port(rp->listener));
		fflush(stdout);
	}
	return 0;
}

static int rp_start_client(struct rping *rp)
{
	const struct rping_opts *o = rp->o;
	struct iwcm_conn *conn;

	conn = iwcm_connect(rp->ctx, (struct sockaddr *)&o->addr,
			    o->src_set ? (struct sockaddr *)&o->src : NULL,
			    rp->param);
	if (!conn) {
		err("connect: %s", strerror(errno));
		return -1;
	}
	if (!rc_new(rp, conn)) {
		iwcm_conn_free(conn);
		return -1;
	}
	dbg("connecting to port %d", addr_port((struct sockaddr *)&o->addr));
	return 0;
}

static int rp_run(const struct rping_opts *o)
{
	struct rping rp;
	int ret = -1;

	memset(&rp, 0, sizeof(rp));
	rp.o = o;
	rp.ctx = o->socket ? iwcm_ctx_open_path(o->socket, IWCM_CTX_NONBLOCK) :
			     iwcm_ctx_open(IWCM_CTX_NONBLOCK);
	if (!rp.ctx && errno == EINVAL && iwcm_env_error()) {
		/* iwcm_ctx_open(3): libiwcm refuses a bad one */
		err("bad %s", iwcm_env_error());
		return -1;
	}
	if (!rp.ctx) {
		err("cannot reach iwcmd at %s: %s",
		    o->socket		  ? o->socket :
		    getenv("IWCM_SOCKET") ? getenv("IWCM_SOCKET") :
					    "/run/iwcm/iwcmd.sock",
		    strerror(errno));
		return -1;
	}
	rp.param = rp_param(o);
	if (!rp.param) {
		err("connection parameters: %s", strerror(errno));
		goto out;
	}
	rp.pd = iwcm_alloc_pd(rp.ctx);
	if (!rp.pd) {
		err("iwcm_alloc_pd: %s", strerror(errno));
		goto out;
	}
	rp.channel = iwcm_create_comp_channel(rp.ctx);
	if (!rp.channel) {
		err("iwcm_create_comp_channel: %s", strerror(errno));
		goto out;
	}
	/* Polled with the others: readable may mean "data to move", after
	 * which iwcm_get_cq_event() finds no event (EAGAIN). */
	{
		int cfd = iwcm_comp_channel_get_fd(rp.channel);

		(void)fcntl(cfd, F_SETFL, fcntl(cfd, F_GETFL) | O_NONBLOCK);
	}
	if ((o->server ? rp_start_server(&rp) : rp_start_client(&rp)) < 0)
		goto out;
	if (rp_loop(&rp) < 0)
		goto out;
	ret = rp.failures || stop_signal ? -1 : 0;
	if (stop_signal && o->persistent && !rp.failures)
		ret = 0;
out:
	while (rp.conns) {
		rp.conns->failed = true;
		rc_free(rp.conns);
	}
	iwcm_listener_close(rp.listener);
	if (rp.channel)
		iwcm_destroy_comp_channel(rp.channel);
	if (rp.pd)
		iwcm_dealloc_pd(rp.pd);
	iwcm_conn_param_free(rp.param);
	iwcm_ctx_close(rp.ctx);
	return ret;
}

int main(int argc, char **argv)
{
	struct rping_opts o;
	struct sigaction sa;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret < 0) {
		fprintf(stderr, "Try 'iwcm-rping --help'.\n");
		return 2;
	}
	if (ret > 0)
		return 0;
	debug = o.debug;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return rp_run(&o) == 0 ? 0 : 1;
}
