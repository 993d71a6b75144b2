/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The iwcm side of a datapath row: the endpoints, the server's listener
 * and accepts or the client's connects with HELLO and READY, the test's
 * loops (dp_ops.c), then the result over the control socket.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "dp.h"

/* The server's connection of e: accept it, its QP, HELLO and READY. */
static int dp_iw_accept(struct dp_run *r, struct dp_ep *e)
{
	struct iwcm_event *ev;
	int type;

	ev = dp_wait_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	e->conn = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_CONNECT_REQUEST) {
		dp_side_fail(&r->side, "event %s", iwcm_cm_event_str(type));
		return -1;
	}
	if (iwcm_accept(e->conn, e->param) < 0) {
		dp_side_fail(&r->side, "iwcm_accept: %s", strerror(errno));
		return -1;
	}
	ev = dp_wait_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_ESTABLISHED) {
		dp_side_fail(&r->side, "event %s", iwcm_cm_event_str(type));
		return -1;
	}
	if (dp_ep_qp(e) < 0 || dp_wait_msg(e, DP_MSG_HELLO) < 0 ||
	    dp_ops_post_msg(e, DP_MSG_READY) < 0)
		return -1;
	return 0;
}

/* The server's iwcm measurement of a row: listen, accept, serve. */
void dp_iw_server(struct dp_run *r)
{
	struct sockaddr_in sin;
	struct dp_ep *e;
	unsigned int i;

	if (dp_ep_open_all(r) < 0)
		goto setup_failed;
	e = &r->eps[0];
	bench_sin_loopback(&sin, 0);
	e->l = iwcm_listen(e->ctx, (struct sockaddr *)&sin, NULL, e->param,
			   (int)r->neps);
	if (!e->l) {
		dp_side_fail(&r->side, "iwcm_listen 127.0.0.1: %s",
			     strerror(errno));
		goto setup_failed;
	}
	dp_ctl_port(r, iwcm_listener_get_port(e->l));
	/* The client connects one at a time. */
	for (i = 0; i < r->neps; i++) {
		if (dp_iw_accept(r, &r->eps[i]) < 0)
			goto out;
	}
	iwcm_listener_close(e->l);
	e->l = NULL;
	dp_ops_serve(r, e);
out:
	if (!r->side.ok)
		dp_ep_close_all(r);
	dp_ctl_finish(r);
	dp_ep_close_all(r);
	return;
setup_failed:
	dp_ep_close_all(r);
	dp_ctl_port(r, 0);
}

static const char *dp_iw_conn_reason(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = dp_ep_conn_attr(c);

	return a.reason_text ? a.reason_text : iwcm_status_str(a.reason);
}

/* The client's connection of e: ESTABLISHED, its QP, HELLO and READY. */
static int dp_iw_connect(struct dp_run *r, struct dp_ep *e, uint16_t port)
{
	struct iwcm_event *ev;
	struct sockaddr_in sin;
	int type;

	bench_sin_loopback(&sin, port);
	e->conn = iwcm_connect(e->ctx, (struct sockaddr *)&sin, NULL, e->param);
	if (!e->conn) {
		dp_side_fail(&r->side, "iwcm_connect: %s", strerror(errno));
		return -1;
	}
	ev = dp_wait_cm_event(e);
	if (!ev)
		return -1;
	type = iwcm_event_get_type(ev);
	iwcm_ack_event(ev);
	if (type != IWCM_CM_EVENT_ESTABLISHED) {
		dp_side_fail(&r->side, "%s: %s", iwcm_cm_event_str(type),
			     dp_iw_conn_reason(e->conn));
		return -1;
	}
	if (dp_ep_qp(e) < 0 || dp_ops_post_msg(e, DP_MSG_HELLO) < 0 ||
	    dp_wait_msg(e, DP_MSG_READY) < 0)
		return -1;
	return 0;
}

/* The client's iwcm measurement of a row: connect, drive. */
void dp_iw_client(struct dp_run *r)
{
	uint16_t port = dp_ctl_wait_port(r);
	unsigned int i;

	if (!port)
		return;
	if (dp_ep_open_all(r) < 0)
		goto out;
	for (i = 0; i < r->neps; i++) {
		if (dp_iw_connect(r, &r->eps[i], port) < 0)
			goto out;
	}
	dp_ops_drive(r, &r->eps[0]);
out:
	if (!r->side.ok)
		dp_ep_close_all(r);
	dp_ctl_finish(r);
	dp_ep_close_all(r);
}
