/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmd's DDP stream sessions over SCTP (RFC 5043, docs/sctp.md): the
 * associations (a peer's half-open until it carries a session), their
 * sessions (sctp_session.c) and owners, and each established session's
 * handoff: a relay (sctp_relay.c), or on the kernel's SCTP the
 * association itself (sc_peel_run()).  What clients ask is
 * sctp_conn_api.c's, the listening endpoints sctp_listen.c's.
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "conn.h"
#include "idmap.h"
#include "iwcmd.h"
#include "log.h"
#include "sctp_conn_int.h"
#include "sctp_conn_peel.h"
#include "sctp_listen.h"
#include "sctp_relay.h"
#include "sctp_stack.h"

static TAILQ_HEAD(, sc_assoc) sc_assocs = TAILQ_HEAD_INITIALIZER(sc_assocs);
/* Ours only (initiator), as a connect looks for one to its peer: the
 * peers' associations, half-open ones too, are not walked for it. */
static TAILQ_HEAD(, sc_assoc)
	sc_out_assocs = TAILQ_HEAD_INITIALIZER(sc_out_assocs);
static const struct sctp_conn_notify *sc_notify;
static struct log_ratelimit sc_shed_rl = LOG_RATELIMIT_INIT(10, 5);
static struct log_ratelimit sc_limit_rl = LOG_RATELIMIT_INIT(10, 5);

static void sc_assoc_unlink(struct sc_assoc *as)
{
	TAILQ_REMOVE(&sc_assocs, as, entry);
	if (as->initiator)
		TAILQ_REMOVE(&sc_out_assocs, as, oentry);
}

/* How long a peer's association may have neither a session nor a
 * listener before it is shut down (sc_assoc_orphaned()). */
#define SC_ORPHAN_MS 1000

static const struct sctp_cb sc_listen_cb;
static void sc_listener_closed(uint64_t id);

/* Who is told what happens (main.c, at startup). */
void sctp_conn_init(const struct sctp_conn_notify *n)
{
	sc_notify = n;
	sctp_listen_init(&sc_listen_cb, sc_listener_closed);
	/* one max_pending_per_uid for both transports */
	conn_uid_pending_also(sctp_conn_uid_pending);
}

/* How a session's handshake ended, once, for the metrics (metrics.c). */
static void sc_count(struct sc_conn *k, enum conn_result r)
{
	if (k->counted || (unsigned int)r >= CONN_RES_MAX)
		return;
	k->counted = true;
	iwcmd_stats.ended_sctp[!k->initiator][r]++;
}

/* An error to the owner of a session it does not have yet, told once.
 * Telling may close the client (a full queue) and free its other
 * connections, not k (no owner from here on): callers look again. */
static void sc_conn_error(struct sc_conn *k, enum conn_result r,
			  const char *why, bool unreachable)
{
	struct sctp_conn_info i;
	struct client *owner = k->owner;

	if (!k->established && k->result == CONN_RES_OK)
		k->result = r;

	if (!owner || k->established || !sc_notify)
		return;
	sc_info(k, &i);
	i.result = r;
	i.reason = why;
	k->owner = NULL;
	sc_notify->error(owner, &i, unreachable);
}

static void sc_assoc_idle(evutil_socket_t fd, short what, void *arg);
static void sc_assoc_wait(struct sc_assoc *as);
static void sc_assoc_orphan_check(struct sc_assoc *as);

/* The listener a peer's association came in on, or the one listening
 * on its port since that one closed (listener_find_local()), which
 * then takes it over; NULL when none listens there. */
static struct listener *sc_listener_of(struct sc_assoc *as)
{
	struct listener *l = sctp_listen_find(as->listener_id);
	struct sockaddr_storage local;
	socklen_t len = sizeof(local);

	if (l || as->initiator || !as->sock)
		return l;
	if (sctp_stack_local_addr(as->sock, &local, &len) < 0)
		return NULL;
	l = listener_find_local(&sctp_listen_ops,
				(const struct sockaddr *)&local, len);
	if (l) {
		log_info("sctp assoc %llu: now on sctp listener %llu",
			 (unsigned long long)as->id,
			 (unsigned long long)(l->id & ~SCTP_CONN_ID_BIT));
		as->listener_id = l->id;
	}
	return l;
}

void sc_conn_free(struct sc_conn *k)
{
	struct sc_assoc *as = k->as;

	sc_books_del(k);
	sctp_relay_free(k->relay);
	sctp_peel_free(k->peel);
	sc_count(k, k->result != CONN_RES_OK ? k->result : CONN_RES_ECONNRESET);
	free(k);
	/* a peer's association that carries nothing more is half-open
	 * again (and shut down soon when no listener takes it); one of
	 * ours closes, on a later turn: this may run inside the
	 * association's callbacks */
	if (!as || !TAILQ_EMPTY(&as->conns) || as->freeing)
		return;
	if (!as->initiator) {
		sc_assoc_wait(as);
		sc_assoc_orphan_check(as);
		return;
	}
	event_base_once(iwcmd_base, -1, EV_TIMEOUT, sc_assoc_idle,
			(void *)(uintptr_t)as->id, NULL);
}

struct sc_conn *sc_conn_new(struct client *owner, struct sc_assoc *as,
			    bool initiator)
{
	struct sc_conn *k = calloc(1, sizeof(*k));

	if (!k)
		return NULL;
	if (sc_books_add(k) < 0) {
		free(k);
		return NULL;
	}
	k->owner = owner;
	sc_conn_set_assoc(k, as);
	k->initiator = initiator;
	k->created_ms = iwcmd_now_ms();
	return k;
}

/* ---- the relay's side ---- */

static void sc_relay_backlog(void *arg, bool high)
{
	struct sc_conn *k = arg;
	struct sc_assoc *as = k->as;

	if (high == k->backlog_high || !as)
		return;
	k->backlog_high = high;
	if (high && as->backlog++ == 0)
		sctp_stack_pause(as->sock, true);
	else if (!high && --as->backlog == 0)
		sctp_stack_pause(as->sock, false);
}

static int sc_from_owner(void *arg, const uint8_t *seg, size_t len)
{
	struct sc_conn *k = arg;

	if (!k->s) {
		errno = ENOTCONN;
		return -1;
	}
	return sctp_session_send_segment(k->s, seg, len);
}

static void sc_relay_closed(void *arg, bool error)
{
	struct sc_conn *k = arg;

	log_debug("sctp conn %llu: the owner %s",
		  (unsigned long long)(k->id & ~SCTP_CONN_ID_BIT),
		  error ? "broke the relay" : "closed");
	sctp_relay_free(k->relay);
	k->relay = NULL;
	k->established = false;
	k->owner = NULL;
	sc_relay_backlog(k, false);
	/* RFC 5043 §6.2: our Terminate ends the session */
	if (k->s)
		sctp_session_ulp_close(k->s, false); /* may free k */
	else
		sc_conn_free(k);
}

static const struct sctp_relay_ops sc_relay_ops = {
	.from_owner = sc_from_owner,
	.closed = sc_relay_closed,
	.backlog = sc_relay_backlog,
};

/* ---- the sessions' owners (struct sctp_session_ulp) ---- */

static int sc_io_send(void *arg, uint16_t stream, uint32_t ppid,
		      const void *buf, size_t len)
{
	struct sc_assoc *as = arg;

	return sctp_stack_send(as->sock, stream, ppid, buf, len);
}

static const struct sctp_assoc_io sc_io = { .send = sc_io_send };

/* Whether a peer's Initiate has a client to go to, one whose uid may
 * have another request awaiting its decision (max_pending_per_uid, TCP's
 * and SCTP's together); else it is answered with a Terminate (RFC 5043
 * §6.4, a non-ULP rejection). */
static bool sc_has_listener(void *arg, struct sctp_assoc *sa)
{
	struct sc_assoc *as = arg;
	struct listener *l = sc_listener_of(as);
	unsigned int suppressed = 0;

	(void)sa;
	if (as->initiator || !l || !l->client || l->client->fd < 0)
		return false;
	if (conn_uid_pending(l->client->uid) < iwcmd_conf->max_pending_per_uid)
		return true;
	if (log_ratelimit_ok(&sc_limit_rl, (long long)(iwcmd_now_ms() / 1000),
			     &suppressed))
		log_info("sctp listener %llu: uid %lu has max_pending_per_uid "
			 "requests awaiting a decision, refusing an "
			 "Initiate%s",
			 (unsigned long long)(l->id & ~SCTP_CONN_ID_BIT),
			 (unsigned long)l->client->uid,
			 suppressed ? " (similar messages suppressed)" : "");
	return false;
}

static int sc_request(void *arg, struct sctp_session *s)
{
	struct sc_assoc *as = arg;
	struct listener *l = sc_listener_of(as);
	struct sctp_conn_info i;
	struct client *owner;
	struct sc_conn *k;

	if (!l || !sc_notify)
		return -1;
	/* no owner while it is told (see sc_conn_error()) */
	owner = l->client;
	if (!(k = sc_conn_new(NULL, as, false)))
		return -1;
	/* a session Initiate came (RFC 5043 §6.1): no longer half-open */
	admission_remove(&as->adm);
	evtimer_del(as->ev_req);
	sc_conn_set_session(k, s);
	sc_info(k, &i);
	if (sc_notify->request(owner, &i) < 0)
		return -1; /* the session ends, then released */
	k->owner = owner;
	sc_await_set(k, true);
	return 0;
}

/* After the Established event: the session may relay (next loop turn:
 * the session module is not re-entered from its own callback). */
static void sc_handoff_done(evutil_socket_t fd, short what, void *arg)
{
	struct sc_conn *k = sc_conn_find((uint64_t)(uintptr_t)arg);

	(void)fd;
	(void)what;
	if (!k || !k->s)
		return;
	sctp_session_handoff_done(k->s, k->relay != NULL);
	k = sc_conn_find((uint64_t)(uintptr_t)arg);
	if (k && k->relay)
		sctp_relay_start(k->relay);
}

static void sc_peel_run(evutil_socket_t fd, short what, void *arg);
#define SC_KERNEL (iwcmd_conf->sctp_stack == SCTP_STACK_KERNEL)
static void sc_assoc_free(struct sc_assoc *as, const char *why, bool abort);

/* The Established event with the relay's end of k's session. */
static int sc_relay_handoff(struct sc_conn *k, struct sctp_session *s)
{
	struct sctp_conn_info i;
	struct client *owner;
	int fd = -1;

	k->relay = sctp_relay_new(iwcmd_base, sctp_session_stream(s),
				  k->as->maxseg - 2, &sc_relay_ops, k, &fd);
	if (!k->relay)
		return -1;
	sc_info(k, &i);
	sc_conn_set_session(k, s);
	/* the relay's end goes to the client (see sc_request()) */
	owner = k->owner;
	k->owner = NULL;
	if (sc_notify->established(owner, &i, fd) < 0) {
		sctp_relay_free(k->relay);
		k->relay = NULL;
		return -1;
	}
	k->owner = owner;
	k->established = true;
	sc_count(k, CONN_RES_OK);
	/* RFC 5043 §6.2: segments may follow at once; they queue */
	return event_base_once(iwcmd_base, -1, EV_TIMEOUT, sc_handoff_done,
			       (void *)(uintptr_t)k->id, NULL);
}

/* Start handing k's association over: the socket is read no more (the
 * owner reads what follows), what the session passes on meanwhile is
 * kept for it (sc_segment()), and on the next turn sc_peel_run(). */
static int sc_peel_begin(struct sc_conn *k, struct sctp_session *s)
{
	k->peel = sctp_peel_new(sctp_session_stream(s));
	if (!k->peel)
		return -1;
	sctp_stack_pause(k->as->sock, true);
	return event_base_once(iwcmd_base, -1, EV_TIMEOUT, sc_peel_run,
			       (void *)(uintptr_t)k->id, NULL);
}

/* The association could not go to the owner (too much read ahead for
 * one IPC message, out of descriptors): the session is relayed instead,
 * what was read ahead first; with its owner gone, it ends. */
static void sc_peel_failed(struct sc_conn *k, const char *why)
{
	struct sctp_peel *p = k->peel;
	unsigned int n;
	bool ok;

	log_info("sctp conn %llu: association not handed over (%s)%s",
		 (unsigned long long)(k->id & ~SCTP_CONN_ID_BIT), why,
		 k->owner ? ", relayed" : "");
	k->peel = NULL;
	if (k->as && k->as->sock)
		sctp_stack_pause(k->as->sock, false);
	ok = k->owner && sc_relay_handoff(k, k->s) == 0;
	for (n = 0; ok && n < p->n_early; n++)
		ok = sctp_relay_to_owner(k->relay, SCTP_PPID_DDP_SEGMENT,
					 p->msg[n].buf + 2,
					 p->msg[n].len - 2) == 0;
	sctp_peel_free(p);
	if (!ok) {
		iwcmd_stats.handoff_failed++;
		sctp_session_handoff_done(k->s, false); /* may free k */
	}
}

/*
 * Hand k's association to its owner (DESIGN.md: as a TCP socket is): a
 * copy of the association's socket goes with the Established event, the
 * session's DDP-SSNs and the messages read after the Accept; then iwcmd
 * closes its copy, which leaves the association running, and forgets
 * the association and the session without a word on the wire.
 */
static void sc_peel_run(evutil_socket_t fd, short what, void *arg)
{
	struct sc_conn *k = sc_conn_find((uint64_t)(uintptr_t)arg);
	struct sctp_conn_info i;
	struct sctp_assoc *sa;
	struct sc_assoc *as;
	struct client *owner;
	int cfd;

	(void)fd;
	(void)what;
	/* the session may have ended meanwhile (sc_ended()) */
	if (!k || !k->peel || !k->s || !k->as || !k->owner)
		return;
	as = k->as;
	if (!sctp_peel_wanted(k, SC_KERNEL)) {
		sc_peel_failed(k, "the association carries another session");
		return;
	}
	if ((cfd = sctp_peel_ready(k->peel, k->s, as->sock)) < 0) {
		sc_peel_failed(k, strerror(errno));
		return;
	}
	sc_info(k, &i);
	i.peel = k->peel;
	owner = k->owner;
	k->owner = NULL; /* see sc_request() */
	if (sc_notify->established(owner, &i, cfd) < 0) {
		sc_peel_failed(k, "the owner is gone"); /* k->owner is NULL */
		return;
	}
	sc_count(k, CONN_RES_OK);
	log_info("sctp conn %llu: sctp assoc %llu handed to its owner with "
		 "its session (stream %u, %u messages read ahead)",
		 (unsigned long long)(k->id & ~SCTP_CONN_ID_BIT),
		 (unsigned long long)as->id, k->peel->stream, k->peel->n);
	/* forget it all: only iwcmd's copy of the socket closes */
	as->freeing = true;
	sa = as->sa;
	as->sa = NULL;
	sctp_assoc_detach(sa); /* releases the session: frees k */
	sc_assoc_free(as, "handed to its owner", false);
}

static int sc_established(void *arg, struct sctp_session *s)
{
	struct sc_conn *k = sc_conn_of(s);

	(void)arg;
	if (!k || !k->owner || !sc_notify)
		return -1;
	if (sctp_peel_wanted(k, SC_KERNEL))
		return sc_peel_begin(k, s);
	return sc_relay_handoff(k, s);
}

static void sc_rejected(void *arg, struct sctp_session *s)
{
	struct sc_conn *k = sc_conn_of(s);
	struct sctp_conn_info i;
	struct client *owner;

	(void)arg;
	if (!k || !k->owner || !sc_notify)
		return;
	sc_info(k, &i);
	k->result = CONN_RES_EREJECTED;
	i.result = CONN_RES_EREJECTED;
	i.reason = i.si.nonulp_reject ? "non-ULP reject (RFC 5043 §6.4)" :
					"rejected by the peer";
	owner = k->owner;
	k->owner = NULL; /* told once, and see sc_request() */
	sc_notify->rejected(owner, &i);
}

static int sc_segment(void *arg, struct sctp_session *s, const uint8_t *seg,
		      size_t len)
{
	struct sc_conn *k = sc_conn_of(s);

	(void)arg;
	if (k && k->peel)
		return sctp_peel_segment(k->peel, seg, len);
	if (!k || !k->relay)
		return -1;
	return sctp_relay_to_owner(k->relay, SCTP_PPID_DDP_SEGMENT, seg, len);
}

static void sc_ended(void *arg, struct sctp_session *s, enum sess_end how)
{
	struct sc_conn *k = sc_conn_of(s);

	(void)arg;
	if (!k)
		return;
	if (k->peel) {
		/* ended before its handoff: the owner is told (below) */
		sctp_peel_free(k->peel);
		k->peel = NULL;
		if (k->as && k->as->sock)
			sctp_stack_pause(k->as->sock, false);
	}
	if (k->relay) {
		/* what is queued reaches the owner, then end of file */
		sc_relay_backlog(k, false);
		sctp_relay_finish(k->relay);
		k->relay = NULL;
		return;
	}
	switch (how) {
	case SESS_END_ERROR:
		sc_conn_error(k, CONN_RES_EPROTO, "session terminated", false);
		break;
	case SESS_END_DOWN:
		/* an association that ends (an ABORT, the peer gone) is a
		 * reset, not the peer's protocol error */
		sc_conn_error(k, CONN_RES_ECONNRESET, "association ended",
			      false);
		break;
	case SESS_END_TERMINATED:
		sc_conn_error(k, CONN_RES_ECONNRESET, "session terminated",
			      false);
		break;
	}
	k->owner = NULL; /* established too: nothing more to tell */
}

static void sc_release(void *arg, struct sctp_session *s)
{
	struct sc_conn *k = sc_conn_of(s);

	(void)arg;
	if (!k)
		return;
	sc_conn_set_session(k, NULL);
	if (k->relay)
		return; /* the owner still reads; freed when it closes */
	sc_conn_free(k);
}

static const struct sctp_session_ulp sc_ulp = {
	.has_listener = sc_has_listener,
	.request = sc_request,
	.established = sc_established,
	.rejected = sc_rejected,
	.segment = sc_segment,
	.ended = sc_ended,
	.release = sc_release,
};

/* ---- associations ---- */

/* as is gone from the books: its memory goes. */
static void sc_assoc_release(struct sc_assoc *as)
{
	admission_remove(&as->adm);
	if (as->ev_req)
		event_free(as->ev_req);
	if (as->ev_orphan)
		event_free(as->ev_orphan);
	free(as);
}

/* as ends (why): its sessions end, connects waiting for it fail; an
 * ABORT, or a SHUTDOWN (RFC 4960 §9.2) that delivers what is
 * outstanding first. */
static void sc_assoc_free(struct sc_assoc *as, const char *why, bool abort)
{
	struct sc_conn *k;

	as->freeing = true;
	admission_remove(&as->adm);
	sc_assoc_unlink(as);
	/* sessions end under their owners (ASSOC_DOWN) */
	if (as->sa)
		sctp_assoc_free(as->sa);
	/* connects waiting for the association (see sc_conn_error()) */
	while ((k = TAILQ_FIRST(&as->conns)) != NULL) {
		if (!k->s && !k->relay) {
			sc_conn_error(k, CONN_RES_ECONNREFUSED, why, true);
			sc_conn_free(k);
		} else {
			sc_conn_set_assoc(k, NULL); /* relay still draining */
		}
	}
	if (as->sock)
		sctp_stack_close(as->sock, abort);
	sc_assoc_release(as);
}

/* An association with no session left: shut down. */
static void sc_assoc_shutdown(struct sc_assoc *as, const char *why)
{
	log_info("sctp assoc %llu: %s, shutting down",
		 (unsigned long long)as->id, why);
	sc_assoc_free(as, why, false);
}

/* One of ours with no session left, a turn after its last one ended. */
static void sc_assoc_idle(evutil_socket_t fd, short what, void *arg)
{
	uint64_t id = (uint64_t)(uintptr_t)arg;
	struct sc_assoc *as;

	(void)fd;
	(void)what;
	TAILQ_FOREACH (as, &sc_out_assocs, oentry)
		if (as->id == id)
			break;
	if (!as || !TAILQ_EMPTY(&as->conns))
		return; /* a new session came meanwhile */
	sc_assoc_shutdown(as, "idle");
}

/*
 * A peer's association with neither a session nor a listener: its
 * Initiates could only be refused, so it is shut down SC_ORPHAN_MS
 * later, which lets a peer that closes its idle associations go first
 * (docs/sctp.md: two SHUTDOWNs that cross cost a retransmission).
 */
static void sc_assoc_orphaned(evutil_socket_t fd, short what, void *arg)
{
	struct sc_assoc *as = arg;

	(void)fd;
	(void)what;
	if (!TAILQ_EMPTY(&as->conns) || sc_listener_of(as))
		return; /* a session or a listener came meanwhile */
	sc_assoc_shutdown(as, "no listener");
}

static void sc_assoc_orphan_check(struct sc_assoc *as)
{
	struct timeval tv = { SC_ORPHAN_MS / 1000,
			      (SC_ORPHAN_MS % 1000) * 1000 };

	if (as->initiator || as->freeing || !TAILQ_EMPTY(&as->conns) ||
	    sc_listener_of(as) || evtimer_pending(as->ev_orphan, NULL))
		return;
	evtimer_add(as->ev_orphan, &tv);
}

/* A peer's association that carried no session for request_timeout_ms
 * (RFC 5043 leaves idle associations to the endpoints): closed, as a TCP
 * connection without its MPA Request is (RFC 5044 §7.1.2). */
static void sc_assoc_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct sc_assoc *as = arg;

	(void)fd;
	(void)what;
	iwcmd_stats.timeouts++;
	iwcmd_stats.timeouts_in[CONN_S_WAIT_REQUEST]++;
	log_debug("sctp assoc %llu: no session in %u ms, closing",
		  (unsigned long long)as->id, iwcmd_conf->request_timeout_ms);
	sc_assoc_free(as, "no session in request_timeout_ms", true);
}

/* Drop half-open as to admit a newer connection (admission.h's shed()):
 * counted, logged rate-limited, aborted. */
static void sc_assoc_shed(struct adm_entry *e, const char *why)
{
	struct sc_assoc *as =
		(struct sc_assoc *)(void *)((char *)e -
					    offsetof(struct sc_assoc, adm));
	unsigned int suppressed = 0;

	iwcmd_stats.shed++;
	if (log_ratelimit_ok(&sc_shed_rl, (long long)(iwcmd_now_ms() / 1000),
			     &suppressed))
		log_info("sctp listener %llu: %s: dropping sctp assoc %llu "
			 "with no session, the oldest, to admit one%s",
			 (unsigned long long)(as->listener_id &
					      ~SCTP_CONN_ID_BIT),
			 why, (unsigned long long)as->id,
			 suppressed ? " (similar messages suppressed)" : "");
	sc_assoc_free(as, "dropped to admit a newer connection", true);
}

/* A peer's association with no session: half-open until an Initiate. */
static void sc_assoc_wait(struct sc_assoc *as)
{
	struct timeval tv;
	unsigned int ms = iwcmd_conf->request_timeout_ms;

	if (as->initiator || as->freeing || admission_booked(&as->adm))
		return;
	admission_add(&as->adm, &as->peer, sc_assoc_shed);
	tv.tv_sec = ms / 1000;
	tv.tv_usec = (suseconds_t)(ms % 1000) * 1000;
	evtimer_add(as->ev_req, &tv);
}

/* A connect that waited for as finds no stream free on it: the peer
 * granted fewer outbound streams than sctp_streams asked (RFC 4960
 * §5.1.1: min of our OS and its MIS) or a concurrent one took the last.
 * With sctp_multiplex it moves to another association to the peer, as
 * a connect made now would (sc_assoc_to()); true when it did. */
static bool sc_conn_move(struct sc_conn *k, struct sc_assoc *as)
{
	struct sc_assoc *to;

	if (SC_KERNEL || !iwcmd_conf->sctp_multiplex)
		return false;
	to = sc_assoc_to(&as->peer, as->peer_len, as->remote_udp_port);
	if (!to || to == as)
		return false;
	log_info("sctp assoc %llu: %u streams granted, all taken: "
		 "conn %llu goes to assoc %llu",
		 (unsigned long long)as->id, as->streams,
		 (unsigned long long)k->id, (unsigned long long)to->id);
	sc_conn_set_assoc(k, to);
	if (to->sa)
		sc_assoc_start(to);
	return true;
}

/* Start the sessions that waited for the association. */
void sc_assoc_start(struct sc_assoc *as)
{
	struct sc_conn *k;
	uint16_t stream = 0;

	/* see sc_conn_error() */
	for (;;) {
		TAILQ_FOREACH (k, &as->conns, as_entry)
			if (!k->s && k->initiator)
				break;
		if (!k)
			break;
		while (stream < as->streams &&
		       sctp_assoc_session(as->sa, stream))
			stream++;
		if (stream >= as->streams && sc_conn_move(k, as))
			continue;
		sc_conn_set_session(k, sctp_session_connect(as->sa, stream,
							    &k->policy, k->pd,
							    k->pd_len));
		if (!k->s) {
			sc_conn_error(k, CONN_RES_ELIMIT,
				      "no free stream on the association",
				      false);
			sc_conn_free(k);
		}
	}
}

static void sc_up(void *arg, struct sctp_sock *s,
		  const struct sctp_assoc_info *info)
{
	struct sc_assoc *as = arg;
	struct sctp_assoc_conf c;

	(void)s;
	as->peer_len = sizeof(as->peer);
	sctp_stack_peer_addr(as->sock, &as->peer, &as->peer_len);
	as->maxseg = info->maxseg;
	as->streams = info->streams;
	sctp_assoc_conf_defaults(&c, info->streams);
	c.maxseg = info->maxseg;
	c.reply_timeout_ms = iwcmd_conf->reply_timeout_ms;
	c.ulp_timeout_ms = iwcmd_conf->ulp_timeout_ms;
	as->sa =
		sctp_assoc_new(as->id, iwcmd_base, &c, &sc_io, as, &sc_ulp, as);
	if (!as->sa) {
		log_warn("sctp assoc %llu", (unsigned long long)as->id);
		sc_assoc_free(as, "association setup failed", true);
		return;
	}
	log_info("sctp assoc %llu: up, %u streams, segments up to %zu",
		 (unsigned long long)as->id, info->streams, info->maxseg);
	if (as->initiator)
		sc_assoc_start(as);
}

static void sc_msg(void *arg, struct sctp_sock *s, uint16_t stream,
		   uint32_t ppid, bool unordered, const uint8_t *buf,
		   size_t len)
{
	struct sc_assoc *as = arg;

	(void)s;
	if (as->sa)
		sctp_assoc_input(as->sa, stream, ppid, unordered, buf, len);
}

static void sc_writable(void *arg, struct sctp_sock *s)
{
	struct sc_assoc *as = arg;
	struct sc_conn *k;

	(void)s;
	TAILQ_FOREACH (k, &as->conns, as_entry)
		if (k->relay && k->established)
			sctp_relay_start(k->relay);
}

static void sc_down(void *arg, struct sctp_sock *s, const char *why)
{
	struct sc_assoc *as = arg;

	(void)s;
	log_info("sctp assoc %llu: down: %s", (unsigned long long)as->id, why);
	sc_assoc_free(as, why, true);
}

static const struct sctp_cb sc_assoc_cb = {
	.up = sc_up,
	.msg = sc_msg,
	.writable = sc_writable,
	.down = sc_down,
};

/* An association on sock (NULL: connecting); NULL when out of memory. */
static struct sc_assoc *sc_assoc_new(struct sctp_sock *sock, bool initiator)
{
	struct sc_assoc *as = calloc(1, sizeof(*as));

	if (!as)
		return NULL;
	as->id = sc_id();
	TAILQ_INIT(&as->conns);
	as->sock = sock;
	as->initiator = initiator;
	if (!initiator &&
	    (!(as->ev_req = evtimer_new(iwcmd_base, sc_assoc_timeout, as)) ||
	     !(as->ev_orphan =
		       evtimer_new(iwcmd_base, sc_assoc_orphaned, as)))) {
		sc_assoc_release(as);
		return NULL;
	}
	TAILQ_INSERT_TAIL(&sc_assocs, as, entry);
	if (initiator)
		TAILQ_INSERT_TAIL(&sc_out_assocs, as, oentry);
	return as;
}

/* A peer's association: half-open (admission.h) until its first session
 * Initiate, under the same caps as TCP's, which may drop the oldest. */
static void sc_accept(void *arg, struct sctp_sock *l, struct sctp_sock *s)
{
	struct listener *sl = arg;
	struct sockaddr_storage peer;
	socklen_t len = sizeof(peer);
	struct sc_assoc *as;

	(void)l;
	memset(&peer, 0, sizeof(peer));
	if (sctp_stack_peer_addr(s, &peer, &len) < 0)
		len = 0;
	admission_make_room(&peer, iwcmd_conf->lim.halfopen_max,
			    iwcmd_conf->halfopen_per_source);
	as = sc_assoc_new(s, false);
	if (!as) {
		sctp_stack_close(s, true);
		return;
	}
	as->listener_id = sl->id;
	as->peer = peer;
	as->peer_len = len;
	sc_assoc_wait(as);
	sctp_stack_set_cb(s, &sc_assoc_cb, as);
}

static const struct sctp_cb sc_listen_cb = { .accept = sc_accept };

/* A listener closed: the peers' associations it accepted are shut down
 * soon once they carry no session (sc_assoc_orphaned()), unless a
 * listen on their port takes them over. */
static void sc_listener_closed(uint64_t id)
{
	struct sc_assoc *as;

	TAILQ_FOREACH (as, &sc_assocs, entry)
		if (!as->initiator && as->listener_id == id)
			sc_assoc_orphan_check(as);
}

void sc_free_all(void)
{
	struct sc_assoc *as;
	struct sc_conn *k;

	while ((as = TAILQ_FIRST(&sc_assocs)))
		sc_assoc_free(as, "daemon stopping", true);
	while ((k = sc_conn_next(NULL)))
		sc_conn_free(k);
}

/* Whether one more session fits on our association: a session holds
 * its stream until the peer's Terminate answers ours (RFC 5043 §6.6), a
 * connect waiting for the association to come up holds one too. */
static bool sc_assoc_room(const struct sc_assoc *as)
{
	const struct sc_conn *k;
	unsigned int n = as->sa ? sctp_assoc_sessions(as->sa) : 0;

	TAILQ_FOREACH (k, &as->conns, as_entry)
		n += !k->s && k->initiator;
	return n < (as->sa ? as->streams : iwcmd_conf->sctp_streams);
}

struct sc_assoc *sc_assoc_to(const struct sockaddr_storage *dst, socklen_t len,
			     uint16_t rport)
{
	struct sctp_sock *s;
	struct sc_assoc *as;

	/* One association per session unless sctp_multiplex, never on the
	 * kernel's SCTP (the association goes to the session's owner, whose
	 * peer may refuse a second Initiate, RFC 5043 §6.4); with it, a new
	 * one once those to the peer have no stream left. */
	if (!SC_KERNEL && iwcmd_conf->sctp_multiplex)
		TAILQ_FOREACH (as, &sc_out_assocs, oentry)
			if (as->remote_udp_port == rport &&
			    as->peer_len == len &&
			    !memcmp(&as->peer, dst, len) && sc_assoc_room(as))
				return as;
	as = sc_assoc_new(NULL, true);
	if (!as) {
		errno = ENOMEM;
		return NULL;
	}
	memcpy(&as->peer, dst, sizeof(as->peer));
	as->peer_len = len;
	as->remote_udp_port = rport;
	s = sctp_stack_connect((const struct sockaddr *)dst, len, rport,
			       &sc_assoc_cb, as);
	if (!s) {
		int e = errno;

		sc_assoc_unlink(as);
		free(as);
		errno = e;
		return NULL;
	}
	as->sock = s;
	return as;
}
