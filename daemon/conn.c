/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Connections being negotiated: their lifetime and ids, timers, the
 * posted-event queue, socket I/O, the pending counts, and the entry
 * points the rest of the daemon calls (iwcmd.h).  The FSM's actions and
 * guards are conn_action.c's, the negotiation policy conn_policy.c's;
 * the phase files (mpa_negotiate.c, rtr_fence.c, handoff.c) do the
 * protocol I/O.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conn.h"
#include "idmap.h"
#include "log.h"

static TAILQ_HEAD(, conn) conn_list = TAILQ_HEAD_INITIALIZER(conn_list);
/* The same connections by id: clients name them (conn_find()). */
static struct idmap conn_ids = IDMAP_INIT;
/*
 * Responders in WAIT_ULP, asking a client's decision: conn_uid_pending()
 * counts these rather than every connection, which a flood of half-open
 * ones would make long.  Listeners' pending_max and max_pending_per_uid
 * bound them.
 */
static TAILQ_HEAD(, conn) conn_ulp = TAILQ_HEAD_INITIALIZER(conn_ulp);
static const struct conn_notify *conn_notify_ops;
static uint64_t conn_next_id = 1;
static unsigned int conn_n;
static unsigned int conn_n_in; /* responders */

static struct log_ratelimit conn_refuse_rl = LOG_RATELIMIT_INIT(10, 5);
static struct log_ratelimit conn_shed_rl = LOG_RATELIMIT_INIT(10, 5);

_Static_assert(CONN_S_MAX <= IWCMD_STATS_STATES, "IWCMD_STATS_STATES");
_Static_assert(NEG_INITIATOR == 0 && NEG_RESPONDER == 1, "neg_role");

static void conn_free(struct conn *c);

/* Who learns what happens to connections (main.c, at startup). */
void conn_init(const struct conn_notify *n)
{
	conn_notify_ops = n;
}

/* How what happens to c is told (client_api.c, admin.c). */
const struct conn_notify *conn_notify(void)
{
	return conn_notify_ops;
}

/* Record why c failed (kept if already set) for the owner's event. */
void conn_fail(struct conn *c, enum conn_result r, const char *fmt, ...)
{
	va_list ap;

	if (c->err != CONN_RES_OK)
		return;
	c->err = r;
	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
}

/* ---- timers, posted events, socket I/O ---- */

/* Arm c's timer for ms; its expiry is CONN_EV_TIMEOUT. */
void conn_timer_arm(struct conn *c, unsigned int ms)
{
	struct timeval tv;

	tv.tv_sec = ms / 1000;
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(c->ev_timer, &tv);
}

/* Stop c's timer. */
void conn_timer_stop(struct conn *c)
{
	evtimer_del(c->ev_timer);
}

static void conn_timer_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	/* The first FPDU was held long enough: no failure. */
	if (c->fsm.state == CONN_S_HOLD) {
		conn_event(c, CONN_EV_TIMEOUT);
		return;
	}
	/*
	 * RFC 5044 §7.1.2 rule 10: startup timeouts.  The ULP's decision
	 * time is the local client's, not the peer's fault.
	 */
	if (c->fsm.state != CONN_S_WAIT_ROUTE &&
	    c->fsm.state != CONN_S_WAIT_ULP)
		iwcmd_stats.timeouts++;
	iwcmd_stats.timeouts_in[c->fsm.state]++;
	log_debug("conn %llu: timeout in %s", (unsigned long long)c->id,
		  conn_state_names[c->fsm.state]);
	conn_fail(c, CONN_RES_ETIMEDOUT, "timeout in %s",
		  conn_state_names[c->fsm.state]);
	conn_event(c, CONN_EV_TIMEOUT);
}

static void conn_post_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;
	struct conn_posted *p;
	enum conn_event ev;

	(void)fd;
	(void)what;
	p = TAILQ_FIRST(&c->post);
	if (!p)
		return;
	TAILQ_REMOVE(&c->post, p, entry);
	c->n_post--;
	ev = p->ev;
	free(p);
	if (c->n_post)
		event_active(c->ev_post, 0, 0);
	conn_event(c, ev);
}

/*
 * Queue ev for c, to run from the event loop after the current work.
 * Every event is kept: dropping one (a HANDOFF_DONE, an ABORT) would
 * leave the connection in a state nothing moves it out of.  Each entry
 * is allocated, so the queue holds what was posted, in order; it empties
 * one event per loop pass and with the connection.
 */
void conn_post(struct conn *c, enum conn_event ev)
{
	struct conn_posted *p;

	p = malloc(sizeof(*p));
	if (!p)
		fatal("conn %llu: posting an event", (unsigned long long)c->id);
	p->ev = ev;
	TAILQ_INSERT_TAIL(&c->post, p, entry);
	c->n_post++;
	event_active(c->ev_post, 0, 0);
}

/* Events queued for c and not yet run. */
unsigned int conn_post_pending(const struct conn *c)
{
	return c->n_post;
}

static void conn_io_cb(evutil_socket_t fd, short what, void *arg);

/* Watch c's socket for what (EV_READ, EV_WRITE), replacing the event. */
void conn_io_set(struct conn *c, short what)
{
	if (c->ev_io) {
		event_free(c->ev_io);
		c->ev_io = NULL;
	}
	if (c->fd < 0)
		return;
	c->ev_io = event_new(iwcmd_base, c->fd, what, conn_io_cb, c);
	if (!c->ev_io)
		fatal("conn %llu: event_new", (unsigned long long)c->id);
	c->io_write = (what & EV_WRITE) != 0;
}

/* Start or stop watching c's socket for input. */
void conn_read_enable(struct conn *c, bool on)
{
	if (c->fd < 0)
		return;
	if (!c->ev_io || c->io_write)
		conn_io_set(c, EV_READ | EV_PERSIST);
	if (on)
		event_add(c->ev_io, NULL);
	else
		event_del(c->ev_io);
}

/* Write all of buf to c's socket; -1 with errno on error or short. */
int conn_send(struct conn *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	/*
	 * Handshake messages are a few hundred octets on a fresh
	 * connection: the socket buffer takes them whole.  A full buffer
	 * here is a peer that does not read, and fails the connection.
	 */
	while (len > 0) {
		n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read into c->rd until it holds want bytes, never more. */
int conn_read_upto(struct conn *c, size_t want)
{
	ssize_t n;

	if (want > sizeof(c->rd.buf)) {
		errno = EMSGSIZE;
		return -1;
	}
	while (c->rd.len < want) {
		n = recv(c->fd, c->rd.buf + c->rd.len, want - c->rd.len, 0);
		if (n > 0) {
			c->rd.len += (size_t)n;
			continue;
		}
		if (n == 0) {
			errno = 0;
			return -1;
		}
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		return -1;
	}
	return 1;
}

/*
 * Close the daemon's socket.  graceful: the peer gets a FIN after what
 * was sent (an R=1 Reply must arrive whole: RFC 5044 §7.1.2 leaves the
 * closing to the ULP, and a close with unread input would reset).
 */
void conn_close_fd(struct conn *c, bool graceful)
{
	uint8_t sink[512];
	int i;

	if (c->ev_io) {
		event_free(c->ev_io);
		c->ev_io = NULL;
	}
	if (c->fd < 0)
		return;
	if (graceful) {
		shutdown(c->fd, SHUT_WR);
		for (i = 0; i < 64; i++)
			if (recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT) <= 0)
				break;
	}
	close(c->fd);
	c->fd = -1;
}

/* TCP_NODELAY on c's socket: the handshake frames are small. */
void conn_nodelay(struct conn *c)
{
	int one = 1;

	if (setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) < 0)
		log_warn("conn %llu: TCP_NODELAY", (unsigned long long)c->id);
}

/* Record c's local and peer addresses (an initiator's peer is the address
 * it connected to: only the local one is asked for). */
void conn_addrs(struct conn *c)
{
	c->local_len = sizeof(c->local);
	if (getsockname(c->fd, (struct sockaddr *)&c->local, &c->local_len) < 0)
		c->local_len = 0;
	if (c->role == NEG_INITIATOR && c->peer_len)
		return;
	c->peer_len = sizeof(c->peer);
	if (getpeername(c->fd, (struct sockaddr *)&c->peer, &c->peer_len) < 0)
		c->peer_len = 0;
}

/* ---- lifetime ---- */

static struct conn *conn_new(enum neg_role role)
{
	struct conn *c;
	size_t i;

	c = calloc(1, sizeof(*c));
	if (!c)
		fatal("conn: calloc");
	c->id = conn_next_id++;
	c->fd = -1;
	c->role = role;
	c->fsm.state = CONN_S_NONE;
	c->fsm.id = c->id;
	c->fsm.arg = c;
	TAILQ_INIT(&c->post);
	c->created_ms = iwcmd_now_ms();
	/* RFC 5041 §5.3: the first MSN of every queue is 1. */
	for (i = 0; i < CONN_NQN; i++)
		c->next_msn[i] = 1;
	c->reply_timeout_ms = iwcmd_conf->reply_timeout_ms;
	c->hold_ms = iwcmd_conf->first_fpdu_delay_ms;
	c->ulp_timeout_ms = iwcmd_conf->ulp_timeout_ms;
	c->tcp_user_timeout_ms = iwcmd_conf->tcp_user_timeout_ms;
	c->ev_timer = evtimer_new(iwcmd_base, conn_timer_cb, c);
	c->ev_post = event_new(iwcmd_base, -1, 0, conn_post_cb, c);
	if (!c->ev_timer || !c->ev_post)
		fatal("conn: event_new");
	if (idmap_put(&conn_ids, c->id, c) < 0)
		fatal("conn: idmap");
	TAILQ_INSERT_TAIL(&conn_list, c, entry);
	conn_n++;
	if (role == NEG_RESPONDER)
		conn_n_in++;
	return c;
}

/*
 * A responder's request counts against its listener's pending_max while
 * it waits for a client or for that client's decision (WAIT_ROUTE,
 * WAIT_ULP): the count follows the state and the listener pointer, and
 * nothing else.  (Against its owner's uid while in WAIT_ULP with an
 * owner: conn_uid_pending() counts those.)
 */
static void conn_pending_count(struct conn *c, enum conn_state s, bool add)
{
	unsigned int *lp;

	if ((s != CONN_S_WAIT_ROUTE && s != CONN_S_WAIT_ULP) || !c->listener)
		return;
	lp = &c->listener->pending;
	*lp = add ? *lp + 1 : (*lp ? *lp - 1 : 0);
}

/* On the WAIT_ULP list while a responder is in that state. */
static void conn_ulp_track(struct conn *c, bool in)
{
	in = in && c->role == NEG_RESPONDER && c->fsm.state == CONN_S_WAIT_ULP;
	if (in == c->in_ulp)
		return;
	if (in)
		TAILQ_INSERT_TAIL(&conn_ulp, c, uentry);
	else
		TAILQ_REMOVE(&conn_ulp, c, uentry);
	c->in_ulp = in;
}

static void conn_free(struct conn *c)
{
	struct conn_posted *p;

	while ((p = TAILQ_FIRST(&c->post)) != NULL) {
		TAILQ_REMOVE(&c->post, p, entry);
		free(p);
	}
	c->n_post = 0;
	conn_close_fd(c, false);
	if (c->ev_timer)
		event_free(c->ev_timer);
	if (c->ev_post)
		event_free(c->ev_post);
	free(c->lparams);
	free(c->b);
	/* how it ended, for the metrics: handed off, or why not */
	if (c->fsm.state != CONN_S_NONE)
		iwcmd_stats.ended[c->role == NEG_RESPONDER]
				 [c->fsm.state == CONN_S_DONE ? CONN_RES_OK :
				  c->err != CONN_RES_OK	      ? c->err :
							  CONN_RES_ECONNRESET]++;
	admission_remove(&c->adm);
	conn_ulp_track(c, false);
	idmap_del(&conn_ids, c->id);
	TAILQ_REMOVE(&conn_list, c, entry);
	conn_n--;
	if (c->role == NEG_RESPONDER)
		conn_n_in--;
	log_debug("conn %llu: freed", (unsigned long long)c->id);
	free(c);
}

/* Feed ev to c's FSM; true when c was freed. */
static bool conn_step(struct conn *c, enum conn_event ev)
{
	enum conn_state old = c->fsm.state;

	if (!conn_state_final(c->fsm.state) &&
	    !conn_fsm_lookup(c->fsm.state, ev)) {
		iwcmd_stats.protocol_errors++;
		log_info("conn %llu: protocol error: %s in %s",
			 (unsigned long long)c->id, conn_event_names[ev],
			 conn_state_names[c->fsm.state]);
		conn_fail(c, CONN_RES_EPROTO, "unexpected %s in state %s",
			  conn_event_names[ev], conn_state_names[c->fsm.state]);
	}
	if (ev == CONN_EV_BAD)
		iwcmd_stats.bad_frames++;
	conn_fsm(&c->fsm, ev, &conn_action_ops);
	if (c->fsm.state != old) {
		conn_pending_count(c, old, false);
		conn_pending_count(c, c->fsm.state, true);
		conn_ulp_track(c, true);
		/* The Request is in (or the connection failed): no longer
		 * half-open. */
		if (old == CONN_S_WAIT_REQUEST)
			admission_remove(&c->adm);
	}
	if (!conn_state_final(c->fsm.state))
		return false;
	conn_free(c);
	return true;
}

/* Feed ev to c's FSM; c may be freed on return. */
void conn_event(struct conn *c, enum conn_event ev)
{
	conn_step(c, ev);
}

/* The live connection with id, or NULL. */
struct conn *conn_find(uint64_t id)
{
	return idmap_get(&conn_ids, id);
}

static void conn_io_cb(evutil_socket_t fd, short what, void *arg)
{
	struct conn *c = arg;

	(void)fd;
	(void)what;
	switch (c->fsm.state) {
	case CONN_S_CONNECTING:
		conn_connected(c);
		break;
	case CONN_S_WAIT_REQUEST:
	case CONN_S_WAIT_REPLY:
		mpa_negotiate_input(c);
		break;
	case CONN_S_WAIT_ROUTE:
	case CONN_S_WAIT_ULP:
	case CONN_S_DECIDED:
		mpa_negotiate_idle(c);
		break;
	case CONN_S_WAIT_RTR:
	case CONN_S_WAIT_READ_RESP:
		rtr_fence_input(c);
		break;
	default:
		conn_read_enable(c, false);
		break;
	}
}

/* ---- entry points (iwcmd.h) ---- */

/* Drop half-open v to admit a newer connection (admission.h's shed()):
 * counted, logged rate-limited, aborted. */
static void conn_shed(struct adm_entry *e, const char *why)
{
	struct conn *v =
		(struct conn *)(void *)((char *)e - offsetof(struct conn, adm));
	unsigned int suppressed = 0;

	iwcmd_stats.shed++;
	v->shed = true;
	conn_fail(v, CONN_RES_ELIMIT, "dropped to admit a newer connection");
	if (log_ratelimit_ok(&conn_shed_rl, (long long)(iwcmd_now_ms() / 1000),
			     &suppressed))
		log_info("listener %llu: %s: dropping half-open conn %llu, "
			 "the oldest, to admit one%s",
			 (unsigned long long)v->listener_id, why,
			 (unsigned long long)v->id,
			 suppressed ? " (similar messages suppressed)" : "");
	conn_event(v, CONN_EV_ABORT);
}

/* Refuse fd: no room, and nothing may be dropped for it. */
static void conn_refuse(const struct listener *l, int fd)
{
	unsigned int suppressed = 0;

	iwcmd_stats.refused++;
	close(fd);
	/* a flood of peers: rate-limited like their misbehaviour */
	if (!log_ratelimit_ok(&conn_refuse_rl,
			      (long long)(iwcmd_now_ms() / 1000), &suppressed))
		return;
	if (suppressed)
		log_info("listener %llu: %u connections, refusing "
			 "one (%u similar messages suppressed)",
			 (unsigned long long)l->id, conn_n, suppressed);
	else
		log_info("listener %llu: %u connections, refusing one",
			 (unsigned long long)l->id, conn_n);
}

/*
 * Make room for one more inbound connection from peer: the half-open
 * caps (admission.c) drop the oldest half-open connection of the source
 * or of all; inbound connections may not take the reserve kept for
 * outgoing connects (iwcmd.conf(5) conn_reserve), and when they have
 * used the rest the oldest half-open one makes room, if there is one.
 * False when nothing could be dropped.
 */
static bool conn_admit(const struct listener *l,
		       const struct sockaddr_storage *peer)
{
	const struct iwcmd_conf *k = iwcmd_conf;
	const struct conf_lim *m = &k->lim;
	unsigned int in_max = m->max_conns > m->conn_reserve ?
				      m->max_conns - m->conn_reserve :
				      1;
	struct adm_entry *v;

	(void)l;
	admission_make_room(peer, m->halfopen_max, k->halfopen_per_source);
	if (conn_n_in < in_max && conn_n < m->max_conns)
		return true;
	/* only a TCP connection gives back a place under max_conns */
	v = admission_oldest_of(conn_shed);
	if (!v)
		return false;
	conn_shed(v, "inbound connections at max_conns - conn_reserve");
	return conn_n_in < in_max && conn_n < m->max_conns;
}

/* Responder side: an accepted fd whose peer is not known yet (consumes
 * fd; it is made non-blocking). */
void conn_accepted(struct listener *l, int fd)
{
	struct sockaddr_storage peer;
	socklen_t plen = sizeof(peer);
	int fl;

	memset(&peer, 0, sizeof(peer));
	if (getpeername(fd, (struct sockaddr *)&peer, &plen) < 0) {
		/* Reset before we saw it. */
		iwcmd_stats.accepted++;
		close(fd);
		return;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		log_warn("accepted fd %d: O_NONBLOCK", fd);
	conn_accepted_from(l, fd, &peer, plen);
}

/* Responder side: fd accepted non-blocking from peer, as accept4(2)
 * gave it (consumes fd; saves a getpeername() per connection). */
void conn_accepted_from(struct listener *l, int fd,
			const struct sockaddr_storage *peer, socklen_t plen)
{
	struct conn *c;

	iwcmd_stats.accepted++;
	if (!conn_admit(l, peer)) {
		conn_refuse(l, fd);
		return;
	}
	c = conn_new(NEG_RESPONDER);
	c->fd = fd;
	c->peer = *peer;
	c->peer_len = plen;
	if (l->specific && l->addrlen <= sizeof(c->local)) {
		memcpy(&c->local, &l->addr, l->addrlen);
		c->local_len = l->addrlen;
	} else {
		c->local_len = sizeof(c->local);
		if (getsockname(fd, (struct sockaddr *)&c->local,
				&c->local_len) < 0)
			c->local_len = 0;
	}
	c->listener = l;
	c->listener_id = l->id;
	c->owner_uid = l->owner;
	c->cpol = l->policy;
	c->lparams = conn_params_dup(l->params);
	if (c->lparams && c->lparams->has_ulp_timeout_ms &&
	    c->lparams->ulp_timeout_ms)
		c->ulp_timeout_ms = c->lparams->ulp_timeout_ms;
	if (c->lparams && c->lparams->has_tcp_user_timeout_ms)
		c->tcp_user_timeout_ms = c->lparams->tcp_user_timeout_ms;
	if (conn_policy(&c->pol, NEG_RESPONDER, &c->cpol, c->lparams, NULL) <
	    0) {
		log_warnx("conn %llu: listener %llu: inconsistent policy",
			  (unsigned long long)c->id, (unsigned long long)l->id);
		conn_free(c);
		return;
	}
	log_debug("conn %llu: accepted on listener %llu",
		  (unsigned long long)c->id, (unsigned long long)l->id);
	admission_add(&c->adm, &c->peer, conn_shed);
	conn_event(c, CONN_EV_START_ACCEPT);
}

static enum conn_result conn_initiate(struct client *cl,
				      const struct conn_target *t,
				      const struct conn_params *params,
				      bool force, uint32_t reqid,
				      uint64_t *conn_id)
{
	struct conn *c;

	if (conn_n >= iwcmd_conf->lim.max_conns)
		return CONN_RES_ELIMIT;
	c = conn_new(NEG_INITIATOR);
	c->peer = t->dst;
	c->peer_len = t->dst_len;
	c->src = t->src;
	c->src_len = t->src_len;
	if (conn_policy(&c->pol, NEG_INITIATOR, &iwcmd_conf->policy, NULL,
			params) < 0 ||
	    (params && params->has_private_data &&
	     conn_pd_set(c, params->private_data, params->private_data_len,
			 c->pol.enhanced) < 0)) {
		conn_free(c);
		return CONN_RES_EINVAL;
	}
	if (params && params->has_reply_timeout_ms && params->reply_timeout_ms)
		c->reply_timeout_ms = params->reply_timeout_ms;
	if (params && params->has_first_fpdu_delay_ms)
		c->hold_ms = params->first_fpdu_delay_ms;
	if (params && params->has_tcp_user_timeout_ms)
		c->tcp_user_timeout_ms = params->tcp_user_timeout_ms;
	c->qp_takes_read_resp = params && params->qp_takes_read_resp;
	c->owner = cl;
	c->owner_uid = cl->uid;
	c->owner_pid = cl->pid;
	c->force = force;
	c->reqid = reqid;
	if (conn_id)
		*conn_id = c->id;
	log_debug("conn %llu: connect for client %llu%s",
		  (unsigned long long)c->id, (unsigned long long)cl->id,
		  force ? " (forced negotiation)" : "");
	/* Posted: the client's Ack goes out before any event. */
	conn_post(c, CONN_EV_START_CONNECT);
	return CONN_RES_OK;
}

/* Initiator side: a client's Connect; returns the result for its Ack. */
enum conn_result conn_connect(struct client *c, const struct conn_target *t,
			      const struct conn_params *p, uint64_t *conn_id)
{
	enum conn_result r;

	r = conn_initiate(c, t, p, false, 0, conn_id);
	if (r == CONN_RES_OK)
		iwcmd_stats.connects++;
	return r;
}

/* iwcmctl connect: negotiate on behalf of an admin client. */
enum conn_result conn_force(struct client *c, uint32_t reqid,
			    const struct conn_target *t,
			    const struct conn_params *p)
{
	return conn_initiate(c, t, p, true, reqid, NULL);
}

static enum conn_result conn_decision(struct client *cl, uint64_t id,
				      struct conn **out)
{
	struct conn *c = conn_find(id);

	/* only the client the request was routed to decides, once */
	if (!c || c->role != NEG_RESPONDER || !cl || c->owner != cl)
		return CONN_RES_ENOENT;
	if (c->fsm.state != CONN_S_WAIT_ULP)
		return CONN_RES_EINVAL;
	*out = c;
	return CONN_RES_OK;
}

/* The owner's decision on a CONNECT_REQUEST: accept. */
enum conn_result conn_ulp_accept(struct client *cl, uint64_t conn_id,
				 const struct conn_params *params)
{
	struct neg_policy p;
	struct conn *c;
	enum conn_result r;
	const uint8_t *pd = NULL;
	size_t pd_len = 0;

	r = conn_decision(cl, conn_id, &c);
	if (r != CONN_RES_OK)
		return r;
	if (conn_policy(&p, NEG_RESPONDER, &c->cpol, c->lparams, params) < 0)
		return CONN_RES_EINVAL;
	if (params && params->has_private_data) {
		pd = params->private_data;
		pd_len = params->private_data_len;
	} else if (c->lparams && c->lparams->has_private_data) {
		pd = c->lparams->private_data;
		pd_len = c->lparams->private_data_len;
	}
	if (conn_pd_set(c, pd, pd_len, c->req.enhanced) < 0)
		return CONN_RES_EINVAL;
	c->pol = p;
	if (params && params->has_tcp_user_timeout_ms)
		c->tcp_user_timeout_ms = params->tcp_user_timeout_ms;
	conn_event(c, CONN_EV_DECIDE_ACCEPT); /* to DECIDED: c stays */
	return CONN_RES_OK;
}

/* The owner's decision on a CONNECT_REQUEST: reject, with pd. */
enum conn_result conn_ulp_reject(struct client *cl, uint64_t conn_id,
				 const uint8_t *pd, size_t pd_len)
{
	struct conn *c;
	enum conn_result r;

	r = conn_decision(cl, conn_id, &c);
	if (r != CONN_RES_OK)
		return r;
	if (conn_pd_set(c, pd, pd_len, c->req.enhanced) < 0)
		return CONN_RES_EINVAL;
	conn_event(c, CONN_EV_DECIDE_REJECT); /* to DECIDED: c stays */
	return CONN_RES_OK;
}

/* A client gives up a connection of its own before the handoff. */
enum conn_result conn_disconnect(struct client *cl, uint64_t conn_id)
{
	struct conn *c = conn_find(conn_id);

	if (!c || !cl || c->owner != cl || c->force)
		return CONN_RES_ENOENT;
	/* no longer pending for anyone: its ABORT follows */
	conn_pending_count(c, c->fsm.state, false);
	c->owner = NULL;
	c->listener = NULL;
	conn_fail(c, CONN_RES_ECONNRESET, "disconnected by the client");
	conn_post(c, CONN_EV_ABORT);
	return CONN_RES_OK;
}

/* A listener now has a client: deliver the requests waiting for one. */
void conn_listener_attached(struct listener *l)
{
	struct conn *c;

	TAILQ_FOREACH (c, &conn_list, entry)
		if (c->listener == l && c->fsm.state == CONN_S_WAIT_ROUTE)
			conn_post(c, CONN_EV_ROUTE);
}

/* A listener is gone: its requests not yet routed are closed. */
void conn_listener_gone(struct listener *l)
{
	struct conn *c;

	TAILQ_FOREACH (c, &conn_list, entry) {
		if (c->listener != l)
			continue;
		conn_pending_count(c, c->fsm.state, false);
		c->listener = NULL;
		if (c->fsm.state == CONN_S_WAIT_REQUEST ||
		    c->fsm.state == CONN_S_WAIT_ROUTE) {
			conn_fail(c, CONN_RES_ENOENT, "listener %llu closed",
				  (unsigned long long)l->id);
			conn_post(c, CONN_EV_ULP_GONE);
		}
	}
}

/* A client is gone: its connections lose their owner. */
void conn_client_gone(struct client *cl)
{
	struct conn *c;

	TAILQ_FOREACH (c, &conn_list, entry) {
		if (c->owner != cl)
			continue;
		/* still pending on its listener, until ULP_GONE runs */
		c->owner = NULL;
		conn_fail(c, CONN_RES_ECONNRESET, "owner gone");
		/* queued behind a START_CONNECT still to run, if any */
		conn_post(c, CONN_EV_ULP_GONE);
	}
}

static void conn_abort(struct conn *c, enum conn_result r, const char *why)
{
	struct conn_posted *p;
	enum conn_event ev;

	conn_fail(c, r, "%s", why);
	if (c->fsm.state == CONN_S_NONE) {
		conn_free(c);
		return;
	}
	/*
	 * The client may already have the socket: the handoff's outcome
	 * (HANDOFF_DONE or _FAILED) is queued, so run the queue now rather
	 * than report an abort.
	 */
	while (c->fsm.state == CONN_S_HANDOFF &&
	       (p = TAILQ_FIRST(&c->post)) != NULL) {
		TAILQ_REMOVE(&c->post, p, entry);
		c->n_post--;
		ev = p->ev;
		free(p);
		if (conn_step(c, ev))
			return;
	}
	conn_event(c, CONN_EV_ABORT);
}

/* iwcmctl kill. */
enum conn_result conn_kill(uint64_t conn_id)
{
	struct conn *c = conn_find(conn_id);

	if (!c)
		return CONN_RES_ENOENT;
	log_info("conn %llu: killed by the administrator",
		 (unsigned long long)c->id);
	conn_fail(c, CONN_RES_ECONNRESET, "killed by the administrator");
	conn_post(c, CONN_EV_ABORT);
	return CONN_RES_OK;
}

/* Shutdown: abort every connection still negotiating. */
void conn_abort_all(void)
{
	struct conn *c;

	while ((c = TAILQ_FIRST(&conn_list)) != NULL)
		conn_abort(c, CONN_RES_ESHUTDOWN, "daemon stopping");
}

/* Call fn for every live connection (the admin API describes them). */
void conn_foreach(void (*fn)(const struct conn *, void *), void *arg)
{
	const struct conn *c;

	TAILQ_FOREACH (c, &conn_list, entry)
		fn(c, arg);
}

/* Number of live connections. */
unsigned int conn_count(void)
{
	return conn_n;
}

/* Another transport's requests of the same kind (sctp_conn.c's). */
static unsigned int (*conn_uid_pending_more)(uid_t uid);

void conn_uid_pending_also(unsigned int (*fn)(uid_t uid))
{
	conn_uid_pending_more = fn;
}

/* Requests at a client of uid awaiting its decision (all its clients,
 * either transport). */
unsigned int conn_uid_pending(uid_t uid)
{
	const struct conn *c;
	unsigned int n = 0;

	TAILQ_FOREACH (c, &conn_ulp, uentry)
		if (c->owner && c->owner->uid == uid)
			n++;
	return n + (conn_uid_pending_more ? conn_uid_pending_more(uid) : 0);
}
