/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The usrsctp stack's sockets (sctp_usrsctp.c runs the stack): their
 * options, the errors that end an association, and their close.
 *
 * usrsctp races itself when the last association of a socket the
 * application has closed ends on its receive thread: both threads free
 * the socket (upstream issues #676 and #709; a peer's ABORT or SHUTDOWN
 * arriving while iwcmd closes is enough).  So the loop never closes a
 * socket that still has an association: a close first ends it, by an
 * ABORT on this thread or a SHUTDOWN (RFC 4960 §9.2) whose end it waits
 * for, and gives the socket back to usrsctp once SCTP_STATUS finds no
 * association left.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "sctp_ss.h"
#include "sctp_usrsctp_int.h"

struct us_stack us = { .wake_fd = -1,
		       .parked = TAILQ_HEAD_INITIALIZER(us.parked),
		       .ready_mtx = PTHREAD_MUTEX_INITIALIZER };

/* A closed socket's callbacks: none. */
static const struct sctp_cb us_nocb;

/*
 * usrsctp's threads: name the socket to the loop, touch nothing else.
 * The argument is the socket's token, not a pointer: a late upcall for
 * a socket the loop has freed names a slot whose generation has moved
 * on (us_by_token()).  One eventfd write per pass of the loop: what is
 * queued until the pass begins is served by it.
 */
static void us_ready_push(uint64_t token)
{
	uint64_t one = 1;
	ssize_t n;

	pthread_mutex_lock(&us.ready_mtx);
	if (!token || us.n_ready == US_READY_MAX)
		us.ready_all = true;
	else if (!us.n_ready || us.ready[us.cur][us.n_ready - 1] != token)
		us.ready[us.cur][us.n_ready++] = token;
	pthread_mutex_unlock(&us.ready_mtx);
	if (__atomic_exchange_n(&us.wake_pending, true, __ATOMIC_ACQ_REL))
		return;
	n = write(us.wake_fd, &one, sizeof(one));
	(void)n; /* a full counter still wakes the loop */
}

void us_upcall(struct socket *so, void *arg, int flags)
{
	(void)so;
	(void)flags;
	us_ready_push((uint64_t)(uintptr_t)arg);
}

void us_rewake(struct sctp_sock *s)
{
	us_ready_push(s ? s->token : 0);
}

const uint64_t *us_ready_take(unsigned int *n, bool *all)
{
	const uint64_t *r;

	pthread_mutex_lock(&us.ready_mtx);
	r = us.ready[us.cur];
	*n = us.n_ready;
	*all = us.ready_all;
	us.cur ^= 1;
	us.n_ready = 0;
	us.ready_all = false;
	pthread_mutex_unlock(&us.ready_mtx);
	return r;
}

/* Tokens: slot + 1 in the low half (0 is no token), generation above. */
static uint64_t us_token(uint32_t idx)
{
	return ((uint64_t)us.slot[idx].gen << 32) | (idx + 1);
}

struct sctp_sock *us_by_token(uint64_t token)
{
	uint32_t idx = (uint32_t)token;

	if (!idx || idx > us.n_slot)
		return NULL;
	idx--;
	if (us.slot[idx].gen != (uint32_t)(token >> 32))
		return NULL;
	return us.slot[idx].s;
}

/* A slot for s: its token; 0 when memory is short. */
static uint64_t us_slot_take(struct sctp_sock *s)
{
	uint32_t idx, i, n;
	struct us_slot *t;

	if (!us.free_slot) {
		n = us.n_slot ? us.n_slot * 2 : 64;
		if (n < us.n_slot ||
		    !(t = reallocarray(us.slot, n, sizeof(*t))))
			return 0;
		for (i = us.n_slot; i < n; i++) {
			t[i].s = NULL;
			t[i].gen = 0;
			t[i].next_free = i + 1 < n ? i + 2 : 0;
		}
		us.slot = t;
		us.free_slot = us.n_slot + 1;
		us.n_slot = n;
	}
	idx = us.free_slot - 1;
	us.free_slot = us.slot[idx].next_free;
	us.slot[idx].s = s;
	return us_token(idx);
}

/* The slot back: its generation moves on, so its tokens name nothing. */
static void us_slot_give(uint64_t token)
{
	uint32_t idx = (uint32_t)token - 1;

	us.slot[idx].s = NULL;
	us.slot[idx].gen++;
	us.slot[idx].next_free = us.free_slot;
	us.free_slot = idx + 1;
}

void us_slots_free(void)
{
	free(us.slot);
	us.slot = NULL;
	us.n_slot = 0;
	us.free_slot = 0;
	us.n_ready = 0;
	us.ready_all = false;
}

void us_free(struct sctp_sock *s)
{
	TAILQ_REMOVE(&us.socks, s, entry);
	us.n_socks--;
	us_slot_give(s->token);
	if (s->adapt_timer)
		event_free(s->adapt_timer);
	if (s->accept_timer)
		event_free(s->accept_timer);
	free(s);
}

void us_down(struct sctp_sock *s, const char *why)
{
	if (s->state == US_DOWN || s->dead)
		return;
	s->state = US_DOWN;
	/* a closing socket's timer is its linger tick: it runs on, as
	 * SCTP_STATUS may show the association for a moment after its
	 * last notification (usrsctp frees it after queueing that) */
	if (s->adapt_timer && !s->closing)
		evtimer_del(s->adapt_timer);
	if (s->cb->down)
		s->cb->down(s->arg, s, why);
}

/* Send an ABORT (RFC 4960 §9.1): usrsctp frees the association on this
 * thread, unless its receive thread holds it at that moment.  -1 when
 * usrsctp refuses (EINVAL for one still being set up). */
int us_send_abort(struct socket *so)
{
	static const char none[1];
	struct sctp_sndinfo si;

	memset(&si, 0, sizeof(si));
	si.snd_flags = SCTP_ABORT;
	/* usrsctp_sendv() refuses a NULL buffer (EFAULT) even for an
	 * ABORT without a cause; the length is what counts */
	if (usrsctp_sendv(so, none, 0, NULL, 0, &si, sizeof(si),
			  SCTP_SENDV_SNDINFO, 0) < 0 &&
	    errno != ENOTCONN) {
		log_debug("sctp: abort: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* ABORT the association, report it down. */
void us_abort(struct sctp_sock *s, const char *why)
{
	/* logged first: the peer may act on the ABORT at once */
	log_info("sctp: association aborted: %s", why);
	(void)us_send_abort(s->so);
	us_down(s, why);
}

/* No association left on so (SCTP_STATUS has none, or a closed one). */
static bool us_assoc_gone(struct socket *so)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	return usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st, &len) <
		       0 ||
	       st.sstat_state == SCTP_CLOSED;
}

/* Give the socket back to usrsctp; the struct goes at the end of the
 * pass, or now outside one. */
static void us_release(struct sctp_sock *s)
{
	s->dead = true;
	evtimer_del(s->adapt_timer);
	usrsctp_close(s->so);
	s->so = NULL;
	if (!us.in_pass)
		us_free(s);
	else
		TAILQ_INSERT_TAIL(&us.dead, s, dead_entry);
}

/* A closing socket whose association is gone is released; true then
 * (and s may be freed already). */
bool us_linger_check(struct sctp_sock *s)
{
	if (!s->closing || s->dead || !us_assoc_gone(s->so))
		return false;
	us_release(s);
	return true;
}

static void us_linger_arm(struct sctp_sock *s)
{
	struct timeval tv = { 0, 0 };

	s->tick_ms = s->in_setup || s->state == US_DOWN ? US_SETUP_TICK_MS :
							  US_LINGER_TICK_MS;
	tv.tv_usec = (suseconds_t)s->tick_ms * 1000;
	evtimer_add(s->adapt_timer, &tv);
}

/* Every tick of a closing socket: ABORT a SHUTDOWN that takes too long,
 * release once the association is gone (or at the last tick). */
static void us_linger_tick(struct sctp_sock *s)
{
	s->linger_ms += s->tick_ms;
	/* up meanwhile: now it takes the ABORT (the time to the last tick
	 * counts from here) */
	if (s->in_setup && us_send_abort(s->so) == 0) {
		s->in_setup = false;
		s->linger_ms = 0;
	}
	if (s->in_setup && !us_assoc_gone(s->so) &&
	    s->linger_ms >= US_LINGER_SETUP_MS) {
		struct linger lg = { 1, 0 };

		usrsctp_setsockopt(s->so, SOL_SOCKET, SO_LINGER, &lg,
				   sizeof(lg));
		us_release(s);
		return;
	}
	if (s->linger_ms >= US_LINGER_SHUTDOWN_MS && s->state != US_DOWN)
		us_abort(s, "SHUTDOWN not completed in time");
	if (us_linger_check(s))
		return;
	if (s->linger_ms >= US_LINGER_MAX_MS) {
		log_warnx("sctp: an association outlived its ABORT; "
			  "closing its socket");
		us_release(s);
		return;
	}
	us_linger_arm(s);
}

static int us_setopt(struct socket *so, int level, int name, const void *v,
		     socklen_t len, const char *what)
{
	if (usrsctp_setsockopt(so, level, name, v, len) < 0) {
		log_warn("sctp: setsockopt %s", what);
		return -1;
	}
	return 0;
}

/* The options every DDP-enabled socket carries. */
int us_sockopts(struct socket *so)
{
	/* RFC 5043 §5.1: the DDP Adaptation Layer Indication */
	struct sctp_setadaptation ad = { .ssb_adaptation_ind =
						 SCTP_ADAPT_IND_DDP };
	struct sctp_initmsg init;
	static const uint16_t evs[] = { SCTP_ASSOC_CHANGE,
					SCTP_ADAPTATION_INDICATION,
					SCTP_SHUTDOWN_EVENT };
	struct sctp_event ev;
	const uint32_t on = 1;
	size_t i;

	/* its upcall once it has a token (us_sock_new()) */
	if (usrsctp_set_non_blocking(so, 1) < 0) {
		log_warn("sctp: non-blocking");
		return -1;
	}
	if (us_setopt(so, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &ad, sizeof(ad),
		      "SCTP_ADAPTATION_LAYER") < 0)
		return -1;
	for (i = 0; i < sizeof(evs) / sizeof(evs[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		ev.se_assoc_id = SCTP_FUTURE_ASSOC;
		ev.se_type = evs[i];
		ev.se_on = 1;
		if (us_setopt(so, IPPROTO_SCTP, SCTP_EVENT, &ev, sizeof(ev),
			      "SCTP_EVENT") < 0)
			return -1;
	}
	/* RFC 5043 §8: as many inbound as outbound streams */
	memset(&init, 0, sizeof(init));
	init.sinit_num_ostreams = us.conf.streams;
	init.sinit_max_instreams = us.conf.streams;
	/* RFC 5043 §9: SCTP never fragments a DDP segment */
	if (us_setopt(so, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof(init),
		      "SCTP_INITMSG") < 0 ||
	    us_setopt(so, IPPROTO_SCTP, SCTP_RECVRCVINFO, &on, sizeof(on),
		      "SCTP_RECVRCVINFO") < 0 ||
	    us_setopt(so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &on, sizeof(on),
		      "SCTP_DISABLE_FRAGMENTS") < 0 ||
	    us_setopt(so, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on),
		      "SCTP_NODELAY") < 0)
		return -1;
	return 0;
}

/* The peer's indication is late, or a closing socket's tick. */
static void us_adapt_timeout(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_sock *s = arg;

	(void)fd;
	(void)what;
	if (s->closing) {
		us_linger_tick(s);
		return;
	}
	us_abort(s, "no Adaptation Layer Indication from the peer "
		    "(RFC 5043 §5.1)");
}

struct sctp_sock *us_sock_new(struct socket *so, enum us_state st,
			      const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->adapt_timer = evtimer_new(us.base, us_adapt_timeout, s);
	if (!s->adapt_timer) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->token = us_slot_take(s);
	if (!s->token) {
		event_free(s->adapt_timer);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->so = so;
	s->state = st;
	s->cb = cb;
	s->arg = arg;
	TAILQ_INSERT_TAIL(&us.socks, s, entry);
	us.n_socks++;
	/* what reached it before its upcall did is served on the next
	 * pass (an accepted socket has none of its own until now) */
	usrsctp_set_upcall(so, us_upcall, (void *)(uintptr_t)s->token);
	us_rewake(s);
	return s;
}

/* The next association usrsctp has queued on listener l, as a socket
 * with callbacks cb; NULL when none is left. */
struct sctp_sock *us_accept_next(struct sctp_sock *l, const struct sctp_cb *cb,
				 void *arg)
{
	struct socket *so;
	struct sctp_sock *s;

	while ((so = usrsctp_accept(l->so, NULL, NULL))) {
		if (us_sockopts(so) == 0 &&
		    (s = us_sock_new(so, US_CONNECTING, cb, arg)))
			return s;
		/* its association ends here first (see the top) */
		(void)us_send_abort(so);
		usrsctp_close(so);
	}
	return NULL;
}

/* A kept listener's queue: taken and aborted. */
static void us_listen_drain(struct sctp_sock *l)
{
	struct sctp_sock *a;

	while (!l->dead && (a = us_accept_next(l, &us_nocb, NULL)))
		us_close(a, true);
}

static void us_unpark(struct sctp_sock *l)
{
	TAILQ_REMOVE(&us.parked, l, park_entry);
	us.n_parked--;
	l->parked = false;
}

/* Keep a closed listener; past US_PARKED_MAX, the one kept longest
 * goes back to usrsctp. */
static void us_park(struct sctp_sock *l)
{
	struct sctp_sock *old;

	evtimer_del(l->accept_timer);
	l->parked = true;
	TAILQ_INSERT_TAIL(&us.parked, l, park_entry);
	if (++us.n_parked <= US_PARKED_MAX)
		return;
	old = TAILQ_FIRST(&us.parked);
	us_listen_drain(old);
	us_unpark(old);
	us_release(old);
}

struct sctp_sock *us_parked_take(const struct sockaddr *sa, socklen_t len,
				 const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *l;

	TAILQ_FOREACH_REVERSE (l, &us.parked, us_parked_head, park_entry)
		if (!l->dead && sctp_addr_match(&l->bound, sa, len, false))
			break;
	if (!l)
		return NULL;
	/* what came meanwhile was for the last owner */
	us_listen_drain(l);
	us_unpark(l);
	l->cb = cb;
	l->arg = arg;
	return l;
}

/*
 * The owner is done with s: no callback reaches it any more.  The
 * association ends first (see the top of this file): gracefully, a
 * SHUTDOWN delivers what is queued (RFC 4960 §9.2); else an ABORT.
 */
void us_close(struct sctp_sock *s, bool abort)
{
	if (s->dead || s->closing)
		return;
	evtimer_del(s->adapt_timer);
	if (s->state == US_LISTEN) {
		/*
		 * usrsctp frees a listener's socket in its close while its
		 * receive thread may take a reference to it for a packet of
		 * an association set up on it (one in the accept queue, or
		 * a handshake it is completing, such as a COOKIE ECHO that
		 * a peer retransmits seconds later): both free the socket
		 * (found by fuzz_ipc_client, the daemon's own connects in
		 * flight to the listener of a client that went).  No wait
		 * rules that out, so a closed listener is kept and serves
		 * the next listen on its address; past US_PARKED_MAX kept,
		 * the one kept longest goes.
		 *
		 * Meanwhile what reaches it waits in its queue (16 at most,
		 * then usrsctp refuses), and is aborted when it is taken
		 * back or goes: usrsctp 0.9.5 also races its receive thread
		 * on each accept (upstream issue #697: it reads the queued
		 * socket's listener twice, unlocked, and follows a NULL when
		 * the accept clears it in between), so a kept listener
		 * accepts nothing while nobody wants it.  Nor may anything
		 * end what waits in its queue (an abort after an accept, or
		 * a peer's own abort on an INIT ACK without DDP's code
		 * point): usrsctp frees such a queued socket from its timer
		 * thread, into the same race (docs/sctp.md).  It does not
		 * stop listening either (usrsctp_listen() with a backlog of
		 * 0): listening again then fails now and then with
		 * EADDRINUSE, or the next INIT is refused.
		 */
		if (s->parked)
			return;
		s->cb = &us_nocb;
		s->arg = NULL;
		us_park(s);
		return;
	}
	s->closing = true;
	s->paused = false;
	s->cb = &us_nocb;
	s->arg = NULL;
	if (abort || (s->state != US_UP && s->state != US_WAIT_ADAPT) ||
	    usrsctp_shutdown(s->so, SHUT_WR) < 0) {
		/*
		 * usrsctp takes no ABORT for an association it is still
		 * setting up.  Its own close with a zero linger would abort
		 * it, but races its receive thread ending the association
		 * on the peer's answer (an ABORT to our INIT): both free the
		 * socket.  So the socket lingers until the association has
		 * ended or come up (then it takes the ABORT), and only past
		 * US_LINGER_SETUP_MS is that close the way left.
		 */
		if (us_send_abort(s->so) < 0 && !us_assoc_gone(s->so))
			s->in_setup = true;
		s->state = US_DOWN;
	}
	if (!us_linger_check(s))
		us_linger_arm(s);
}
