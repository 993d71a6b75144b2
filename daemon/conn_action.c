/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The actions and guards of the connection FSM (conn_fsm.c's table):
 * each action does one step of RFC 5044 §7.1.2 / RFC 6581 through the
 * phase files and conn.c's timers and I/O, and tells the owner what
 * happened; each guard answers one question about the connection's
 * surroundings and changes nothing.  No action feeds the FSM: what must
 * follow is queued with conn_post().
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "conn.h"
#include "log.h"

static struct log_ratelimit conn_peer_rl = LOG_RATELIMIT_INIT(10, 50);

static const char *conn_role_name(const struct conn *c)
{
	return c->role == NEG_INITIATOR ? "initiator" : "responder";
}
static void conn_fsm_log(void *arg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void conn_fsm_log(void *arg, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	(void)arg;
	/* Every transition comes here: format only what will be logged. */
	if (!log_getverbose())
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	log_debug("%s", buf);
}

/* Peer misbehaviour: info level, rate-limited. */
static void conn_peer_log(const struct conn *c, const char *what)
{
	unsigned int suppressed = 0;

	if (!log_ratelimit_ok(&conn_peer_rl, (long long)(iwcmd_now_ms() / 1000),
			      &suppressed))
		return;
	if (suppressed)
		log_info("conn %llu: %s (%u similar messages suppressed)",
			 (unsigned long long)c->id, what, suppressed);
	else
		log_info("conn %llu: %s", (unsigned long long)c->id, what);
}

/* ---- events to the owner ---- */

static void conn_send_error(struct conn *c, bool unreachable)
{
	if (c->err == CONN_RES_OK)
		conn_fail(c, CONN_RES_EPROTO, "connection failed");
	if (c->force) {
		handoff_report(c, c->err);
		return;
	}
	/* a responder has an owner once its request was routed */
	if (!c->owner)
		return;
	conn_notify()->error(c, unreachable);
}

/* ---- FSM guards ---- */

static bool conn_guard_no_listener(void *arg)
{
	struct conn *c = arg;

	return !c->listener;
}

static bool conn_guard_backlog_full(void *arg)
{
	struct conn *c = arg;
	struct listener *l = c->listener;

	return l && l->pending_max && l->pending >= l->pending_max;
}

static bool conn_guard_no_client(void *arg)
{
	struct conn *c = arg;

	return !c->listener || !listener_route(c->listener);
}

static bool conn_guard_uid_limit(void *arg)
{
	struct conn *c = arg;
	struct client *cl = c->listener ? listener_route(c->listener) : NULL;

	return cl &&
	       conn_uid_pending(cl->uid) >= iwcmd_conf->max_pending_per_uid;
}

/* ---- FSM actions ---- */

static int conn_start_connect(struct conn *c)
{
	int r;

	c->fd = socket(c->peer.ss_family,
		       SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		log_warn("conn %llu: socket", (unsigned long long)c->id);
		conn_fail(c, CONN_RES_EINTERNAL, "socket: %s", strerror(errno));
		return -1;
	}
	/* TCP_NODELAY on every connection: the frames are small. */
	conn_nodelay(c);
	if (c->src_len &&
	    bind(c->fd, (struct sockaddr *)&c->src, c->src_len) < 0) {
		conn_fail(c, CONN_RES_EADDRINUSE, "bind: %s", strerror(errno));
		conn_post(c, CONN_EV_TCP_FAILED);
		return 0;
	}
	r = connect(c->fd, (struct sockaddr *)&c->peer, c->peer_len);
	if (r < 0 && errno != EINPROGRESS) {
		conn_fail(c,
			  errno == ECONNREFUSED ? CONN_RES_ECONNREFUSED :
						  CONN_RES_ETIMEDOUT,
			  "connect: %s", strerror(errno));
		conn_post(c, CONN_EV_TCP_FAILED);
		return 0;
	}
	conn_io_set(c, EV_WRITE);
	event_add(c->ev_io, NULL);
	conn_timer_arm(c, c->reply_timeout_ms);
	return 0;
}

/* Initiator: the TCP connect finished (or failed); feeds the FSM. */
void conn_connected(struct conn *c)
{
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		conn_fail(c,
			  err == ECONNREFUSED ? CONN_RES_ECONNREFUSED :
						CONN_RES_ETIMEDOUT,
			  "connect: %s", strerror(err));
		conn_event(c, CONN_EV_TCP_FAILED);
		return;
	}
	conn_addrs(c);
	conn_event(c, CONN_EV_TCP_CONNECTED);
}

static int conn_act_connect(void *arg, enum conn_event ev)
{
	(void)ev;
	return conn_start_connect(arg);
}

static int conn_act_wait_request(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	if (!c->listener || !c->listener->nodelay)
		conn_nodelay(c);
	c->rd.len = 0;
	conn_read_enable(c, true);
	/* RFC 5044 §7.1.2 rules 8 and 10: Responder/Responder, DoS. */
	conn_timer_arm(c, iwcmd_conf->request_timeout_ms);
	return 0;
}

static int conn_act_send_request(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	/* RFC 5044 §7.1.2 rule 1. */
	if (mpa_negotiate_send_request(c) < 0)
		return -1;
	c->rd.len = 0;
	conn_read_enable(c, true);
	conn_timer_arm(c, c->reply_timeout_ms);
	return 0;
}

static int conn_act_wait_ulp(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	/* The ULP's decision time, separate from the peer's timers. */
	conn_timer_arm(c, c->ulp_timeout_ms);
	conn_post(c, CONN_EV_ROUTE);
	return 0;
}

static int conn_act_notify_request(void *arg, enum conn_event ev)
{
	struct conn *c = arg;
	struct client *cl = listener_route(c->listener);

	(void)ev;
	if (conn_notify()->request(cl, c) < 0) {
		/* that client is gone: wait for another, under the timer */
		conn_post(c, CONN_EV_ROUTE_FAILED);
		return 0;
	}
	c->owner = cl;
	c->owner_uid = cl->uid;
	c->owner_pid = cl->pid;
	log_debug("conn %llu: CONNECT_REQUEST to client %llu",
		  (unsigned long long)c->id, (unsigned long long)cl->id);
	return 0;
}

static int conn_act_decide(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_timer_stop(c);
	conn_post(c,
		  mpa_negotiate_decide(c, ev == CONN_EV_DECIDE_REJECT,
				       conn_buf(c)->pd, conn_buf(c)->pd_len));
	return 0;
}

static int conn_act_reject(void *arg, enum conn_event ev);

static int conn_act_reject_backlog(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_fail(c, CONN_RES_ELIMIT, "listener %llu: %u requests pending",
		  (unsigned long long)c->listener->id, c->listener->pending);
	conn_peer_log(c, "rejected: too many pending requests");
	return conn_act_reject(c, ev);
}

static int conn_act_reject_uid(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_fail(c, CONN_RES_ELIMIT, "too many pending requests for uid %u",
		  (unsigned int)listener_route(c->listener)->uid);
	return conn_act_reject(c, ev);
}

static int conn_act_reply_handoff(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	if (mpa_negotiate_send_reply(c) < 0)
		return -1;
	conn_read_enable(c, false);
	handoff_start(c);
	return 0;
}

static int conn_act_reply_wait_rtr(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	if (mpa_negotiate_send_reply(c) < 0)
		return -1;
	c->rd.len = 0;
	conn_read_enable(c, true);
	conn_timer_arm(c, iwcmd_conf->rtr_timeout_ms);
	return 0;
}

static int conn_act_reject(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_timer_stop(c);
	if (mpa_negotiate_send_reject(c) < 0)
		log_debug("conn %llu: sending the reject: %s",
			  (unsigned long long)c->id, strerror(errno));
	else
		iwcmd_stats.rejected_local++;
	if (ev != CONN_EV_ULP_REJECT || c->policy_reject) {
		if (c->err == CONN_RES_OK)
			conn_fail(c, CONN_RES_EREJECTED, "rejected (%s)",
				  conn_event_names[ev]);
		conn_send_error(c, false);
	}
	/* RFC 5044 §7.1.2 rule 2: MPA is left; the daemon, as the ULP,
	 * closes TCP once the Reply is out. */
	conn_close_fd(c, true);
	return 0;
}

static int conn_act_handoff(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	conn_read_enable(c, false);
	handoff_start(c);
	return 0;
}

/* The Reply chose a zero-length Read RTR (RFC 6581 §9.2). */
static bool conn_rtr_read(const struct conn *c)
{
	return c->res.p2p && !c->res.rtr_frame && c->res.rtr == MPA_RTR_READ;
}

/*
 * The RTR, then the handoff.  After a Read RTR the Read Response is
 * still due: the client's QP takes it, as an RNIC's QP takes the
 * Response to the Read it posted as the RTR (RFC 6581 §9.2 asks only
 * that nothing precede the RTR).
 */
static int conn_act_rtr_handoff(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	conn_read_enable(c, false);
	if (rtr_fence_send(c) < 0)
		return -1;
	c->read_resp_due = conn_rtr_read(c);
	handoff_start(c);
	return 0;
}

static int conn_act_rtr_read(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	if (rtr_fence_send(c) < 0)
		return -1;
	c->rd.len = 0;
	conn_read_enable(c, true);
	conn_timer_arm(c, iwcmd_conf->rtr_timeout_ms);
	return 0;
}

/* Hold the first FPDU (iwcmd.conf(5) first_fpdu_delay_ms): nothing is
 * read or written until the timer fires. */
static int conn_act_hold(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	conn_read_enable(c, false);
	log_debug("conn %llu: holding the first FPDU for %u ms",
		  (unsigned long long)c->id, c->hold_ms);
	conn_timer_arm(c, c->hold_ms);
	return 0;
}

static int conn_act_read_resp_handoff(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	conn_read_enable(c, false);
	if (rtr_fence_send_read_resp(c) < 0)
		return -1;
	handoff_start(c);
	return 0;
}

static int conn_act_notify_rejected(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	iwcmd_stats.rejected_peer++;
	conn_fail(c, CONN_RES_EREJECTED, "rejected by the peer");
	if (c->force) {
		handoff_report(c, c->err);
	} else if (c->owner) {
		/* RFC 5044 §7.1.2 rule 3, RFC 6581 §9.1: the peer's
		 * Private Data and IRD/ORD go to the ULP. */
		conn_notify()->rejected(c);
	}
	conn_close_fd(c, true);
	return 0;
}

static int conn_act_reconnect_v1(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	iwcmd_stats.fallbacks++;
	log_info("conn %llu: enhanced Request refused by closing; "
		 "retrying with MPA Rev 1 (RFC 6581 §10)",
		 (unsigned long long)c->id);
	conn_close_fd(c, false);
	c->pol = c->retry_pol;
	conn_buf(c)->req_len = conn_buf(c)->rep_len = 0;
	c->have_rep = false;
	c->rd.len = 0;
	c->err = CONN_RES_OK;
	c->reason[0] = '\0';
	memset(&c->res, 0, sizeof(c->res));
	return conn_start_connect(c);
}

static int conn_act_term(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	if (c->err == CONN_RES_OK)
		conn_fail(c, CONN_RES_EPROTO, "negotiation failed");
	/* RFC 6581 §8: Layer 2 (LLP), Error Type 0 (MPA). */
	conn_peer_log(c, c->reason);
	if (rtr_fence_send_term(c, c->term_code) < 0)
		log_debug("conn %llu: sending the Terminate: %s",
			  (unsigned long long)c->id, strerror(errno));
	if (c->term_code <
	    sizeof(iwcmd_stats.term_sent) / sizeof(iwcmd_stats.term_sent[0]))
		iwcmd_stats.term_sent[c->term_code]++;
	c->term_valid = true;
	c->term_layer = RDMAP_TERM_LAYER_LLP;
	c->term_etype = MPA_ETYPE_MPA;
	c->term_ecode = c->term_code;
	iwcmd_stats_term(false, c->term_layer, c->term_etype, c->term_ecode);
	conn_send_error(c, false);
	conn_close_fd(c, true);
	return 0;
}

static int conn_act_unreachable(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	conn_timer_stop(c);
	iwcmd_stats.unreachable++;
	if (c->err == CONN_RES_OK)
		conn_fail(c, CONN_RES_ETIMEDOUT, "unreachable");
	log_info("conn %llu: %s", (unsigned long long)c->id, c->reason);
	conn_send_error(c, true);
	conn_close_fd(c, false);
	return 0;
}

static int conn_act_error(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_timer_stop(c);
	if (ev == CONN_EV_PEER_CLOSED)
		conn_fail(c, CONN_RES_ECONNRESET, "peer closed the connection");
	if (c->shed)
		; /* dropped for room: conn.c logged it, rate-limited */
	else if (ev == CONN_EV_ABORT || ev == CONN_EV_HANDOFF_FAILED)
		log_info("conn %llu: %s: %s", (unsigned long long)c->id,
			 conn_event_names[ev],
			 c->reason[0] ? c->reason : "error");
	else /* the peer's doing: rate-limited */
		conn_peer_log(c, c->reason[0] ? c->reason : "error");
	conn_send_error(c, false);
	conn_close_fd(c, false);
	return 0;
}

static int conn_act_close(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	conn_timer_stop(c);
	if (ev == CONN_EV_BAD || ev == CONN_EV_TIMEOUT)
		conn_peer_log(c, c->reason[0] ? c->reason : "closed");
	else
		log_debug("conn %llu: closed (%s)", (unsigned long long)c->id,
			  conn_event_names[ev]);
	if (c->force && !c->reported)
		handoff_report(c, c->err != CONN_RES_OK ? c->err :
							  CONN_RES_ECONNRESET);
	conn_close_fd(c, false);
	return 0;
}

static int conn_act_release(void *arg, enum conn_event ev)
{
	struct conn *c = arg;

	(void)ev;
	iwcmd_stats.established++;
	/* one a handshake would be thousands a second: journald's default
	 * rate limit (10,000 in 30 s) would then drop the warnings too;
	 * the counters (iwcmctl stats) count them */
	log_debug("conn %llu: established (%s), handed off",
		  (unsigned long long)c->id, conn_role_name(c));
	/*
	 * The client holds the socket now: drop the daemon's descriptor
	 * without shutdown(), which would act on the shared connection.
	 */
	conn_close_fd(c, false);
	return 0;
}

static bool conn_guard_hold(void *arg)
{
	const struct conn *c = arg;

	return c->hold_ms > 0;
}

/* A Read RTR whose Response iwcmd waits for before the handoff: the
 * client did not say its QP takes it (iwcm.proto qp_takes_read_resp). */
static bool conn_guard_rtr_read(void *arg)
{
	const struct conn *c = arg;

	return conn_rtr_read(c) && !c->qp_takes_read_resp;
}

/* An RTR to send: a zero-length Send or Write, or the seed-003 frame. */
static bool conn_guard_rtr(void *arg)
{
	const struct conn *c = arg;

	return c->res.rtr_frame || c->res.p2p;
}

/* The actions and guards of the FSM table (conn_fsm.c). */
const struct conn_fsm_ops conn_action_ops = {
	.action = {
		[CONN_A_CONNECT] = conn_act_connect,
		[CONN_A_WAIT_REQUEST] = conn_act_wait_request,
		[CONN_A_SEND_REQUEST] = conn_act_send_request,
		[CONN_A_WAIT_ULP] = conn_act_wait_ulp,
		[CONN_A_NOTIFY_REQUEST] = conn_act_notify_request,
		[CONN_A_DECIDE] = conn_act_decide,
		[CONN_A_REJECT_BACKLOG] = conn_act_reject_backlog,
		[CONN_A_REJECT_UID] = conn_act_reject_uid,
		[CONN_A_REPLY_HANDOFF] = conn_act_reply_handoff,
		[CONN_A_REPLY_WAIT_RTR] = conn_act_reply_wait_rtr,
		[CONN_A_REJECT] = conn_act_reject,
		[CONN_A_HANDOFF] = conn_act_handoff,
		[CONN_A_RTR_HANDOFF] = conn_act_rtr_handoff,
		[CONN_A_RTR_READ] = conn_act_rtr_read,
		[CONN_A_READ_RESP_HANDOFF] = conn_act_read_resp_handoff,
		[CONN_A_NOTIFY_REJECTED] = conn_act_notify_rejected,
		[CONN_A_RECONNECT_V1] = conn_act_reconnect_v1,
		[CONN_A_TERM] = conn_act_term,
		[CONN_A_UNREACHABLE] = conn_act_unreachable,
		[CONN_A_ERROR] = conn_act_error,
		[CONN_A_CLOSE] = conn_act_close,
		[CONN_A_RELEASE] = conn_act_release,
		[CONN_A_HOLD] = conn_act_hold,
	},
	.guard = {
		[CONN_G_NO_LISTENER] = conn_guard_no_listener,
		[CONN_G_BACKLOG_FULL] = conn_guard_backlog_full,
		[CONN_G_NO_CLIENT] = conn_guard_no_client,
		[CONN_G_UID_LIMIT] = conn_guard_uid_limit,
		[CONN_G_HOLD] = conn_guard_hold,
		[CONN_G_RTR_READ] = conn_guard_rtr_read,
		[CONN_G_RTR] = conn_guard_rtr,
	},
	.log = conn_fsm_log,
};
