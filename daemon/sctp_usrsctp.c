/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The usrsctp stack (SCTP over UDP encapsulation, RFC 6951) in iwcmd's
 * libevent loop.  usrsctp runs its own timer and receive threads; their
 * upcalls only queue the socket's token and wake the loop through an
 * eventfd, and every accept, recv, send and close happens here on the
 * loop thread, which polls the readiness (usrsctp_get_events) of each
 * socket named on a wake-up.  The upcall carries a token, not a pointer,
 * so a socket closed by the loop can never be touched by a late upcall.
 *
 * The sockets themselves, their options and how they are closed are in
 * sctp_usrsctp_sock.c.
 *
 * This file includes usrsctp's <usrsctp.h> only: the kernel's SCTP
 * constants differ and live in sctp_kernel.c.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <linux/capability.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/queue.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <usrsctp.h>

#include "log.h"
#include "sctp_ss.h"
#include "sctp_usrsctp_int.h"

static int us_peer_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			socklen_t *len);
static int us_local_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			 socklen_t *len);

#define US_BATCH 64 /* messages per socket per pass, then yield */

/* Largest user message that goes out in one packet (RFC 5043 §9). */
static size_t us_maxseg(struct sctp_sock *s)
{
	struct sctp_paddrparams pp;
	socklen_t len = sizeof(pp);
	struct sctp_assoc_value av;
	socklen_t avlen = sizeof(av);
	size_t seg = 0, hdr;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);

	memset(&av, 0, sizeof(av));
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_MAXSEG, &av, &avlen) ==
		    0 &&
	    av.assoc_value > 0)
		seg = av.assoc_value;
	memset(&pp, 0, sizeof(pp));
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp,
			       &len) == 0 &&
	    pp.spp_pathmtu > 0) {
		/* IP + UDP (RFC 6951) + SCTP common header + DATA chunk */
		hdr = 8 + 12 + 16;
		if (us_peer_addr(s, &ss, &sl) == 0 && ss.ss_family == AF_INET6)
			hdr += 40;
		else
			hdr += 20;
		if (pp.spp_pathmtu > hdr &&
		    (seg == 0 || pp.spp_pathmtu - hdr < seg))
			seg = pp.spp_pathmtu - hdr;
	}
	if (seg == 0)
		seg = 1200;
	/* "or 516 bytes, whichever is larger" */
	return seg < SCTP_DDP_SEG_MIN ? SCTP_DDP_SEG_MIN : seg;
}

/* COMM_UP and the peer's indication both seen: check it, report up. */
static void us_check_up(struct sctp_sock *s)
{
	char why[128];

	if (s->state != US_WAIT_ADAPT || !s->got_adapt)
		return;
	evtimer_del(s->adapt_timer);
	if (sctp_up_check(&s->info, s->peer_adapt, why, sizeof(why)) < 0) {
		us_abort(s, why);
		return;
	}
	s->info.maxseg = us_maxseg(s);
	s->state = US_UP;
	if (s->cb->up)
		s->cb->up(s->arg, s, &s->info);
}

static void us_notification(struct sctp_sock *s, const uint8_t *buf, size_t len)
{
	union sctp_notification n;

	memset(&n, 0, sizeof(n));
	memcpy(&n, buf, len < sizeof(n) ? len : sizeof(n));
	if (len < sizeof(n.sn_header))
		return;
	switch (n.sn_header.sn_type) {
	case SCTP_ASSOC_CHANGE:
		switch (n.sn_assoc_change.sac_state) {
		case SCTP_COMM_UP:
			if (s->state != US_CONNECTING)
				break;
			s->info.in_streams =
				n.sn_assoc_change.sac_inbound_streams;
			s->info.out_streams =
				n.sn_assoc_change.sac_outbound_streams;
			s->state = US_WAIT_ADAPT;
			/* usrsctp queues the peer's indication right after
			 * COMM_UP, but another thread may still be on it */
			if (!s->got_adapt) {
				struct timeval tv = {
					us.conf.adapt_wait_ms / 1000,
					(us.conf.adapt_wait_ms % 1000) * 1000
				};
				evtimer_add(s->adapt_timer, &tv);
			}
			us_check_up(s);
			break;
		case SCTP_COMM_LOST:
			us_down(s, "association lost");
			break;
		case SCTP_RESTART:
			/* the peer's sessions are gone with its state */
			us_abort(s, "peer restarted the association");
			break;
		case SCTP_SHUTDOWN_COMP:
			us_down(s, "association shut down");
			break;
		case SCTP_CANT_STR_ASSOC:
			us_down(s, "association could not be started");
			break;
		}
		break;
	case SCTP_ADAPTATION_INDICATION:
		s->got_adapt = true;
		s->peer_adapt = n.sn_adaptation_event.sai_adaptation_ind;
		us_check_up(s);
		break;
	case SCTP_SHUTDOWN_EVENT:
		us_down(s, "peer shut the association down");
		break;
	}
}

static void us_accept_all(struct sctp_sock *l)
{
	struct sctp_sock *s;

	while (!l->dead && (s = us_accept_next(l, l->cb, l->arg)))
		if (l->cb->accept)
			l->cb->accept(l->arg, l, s);
}

/* A listener's deferred accept (us_service()); what the accepted
 * sockets already hold is served on the next pass. */
static void us_accept_deferred(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_sock *l = arg;

	(void)fd;
	(void)what;
	if (l->dead || l->parked)
		return;
	us_accept_all(l); /* each accepted is served next (us_sock_new()) */
	us_rewake(l);
}

static void us_recv_all(struct sctp_sock *s)
{
	int i;

	for (i = 0; i < US_BATCH && !s->dead && s->state != US_DOWN; i++) {
		struct sctp_rcvinfo rcv;
		socklen_t infolen = sizeof(rcv);
		unsigned int infotype = 0;
		int flags = 0;
		ssize_t n;

		memset(&rcv, 0, sizeof(rcv));
		n = usrsctp_recvv(s->so, us.rxbuf, SCTP_RX_MAX, NULL, NULL,
				  &rcv, &infolen, &infotype, &flags);
		if (n < 0) {
			if (errno == EWOULDBLOCK || errno == EAGAIN)
				return;
			us_down(s, strerror(errno));
			return;
		}
		if (n == 0) {
			us_down(s, "association closed");
			return;
		}
		if (flags & MSG_NOTIFICATION) {
			us_notification(s, us.rxbuf, (size_t)n);
			continue;
		}
		if (!(flags & MSG_EOR)) {
			us_abort(s, "user message over 64 KiB");
			return;
		}
		if (s->state != US_UP) {
			us_abort(s, "data before the peer's Adaptation Layer "
				    "Indication (RFC 5043 §5.1)");
			return;
		}
		if (infotype != SCTP_RECVV_RCVINFO) {
			us_abort(s, "message without receive information");
			return;
		}
		if (s->cb->msg)
			s->cb->msg(s->arg, s, rcv.rcv_sid, ntohl(rcv.rcv_ppid),
				   (rcv.rcv_flags & SCTP_UNORDERED) != 0,
				   us.rxbuf, (size_t)n);
	}
	if (i == US_BATCH)
		us_rewake(s); /* more may be queued: come back after others */
}

static void us_service(struct sctp_sock *s)
{
	int ev;

	if (s->dead)
		return;
	ev = usrsctp_get_events(s->so);
	if (s->state == US_LISTEN) {
		/*
		 * Accepted a little later, not at once: usrsctp 0.9.5 wakes
		 * a listener from its receive thread while it handles the
		 * COOKIE ECHO that queued the association, and then reads
		 * the queued socket's listener twice, unlocked (upstream
		 * issue #697); an accept that clears it in between sends
		 * the thread to a NULL mutex.  An accept at once on this
		 * wakeup aims at that window; after US_ACCEPT_DEFER_US the
		 * thread is long past it.  The same two reads happen for
		 * each later packet of a queued association, so the race
		 * is narrowed, not gone: the fix is usrsctp's (#698).  A
		 * kept listener's queue waits (see us_close()).
		 */
		if ((ev & SCTP_EVENT_READ) && !s->parked &&
		    !evtimer_pending(s->accept_timer, NULL)) {
			struct timeval tv = { 0, US_ACCEPT_DEFER_US };

			evtimer_add(s->accept_timer, &tv);
		}
		return;
	}
	if ((ev & (SCTP_EVENT_READ | SCTP_EVENT_ERROR)) && !s->paused)
		us_recv_all(s);
	(void)us_linger_check(s);
	if (!s->dead && s->state == US_UP && s->want_write &&
	    (ev & SCTP_EVENT_WRITE)) {
		s->want_write = false;
		if (s->cb->writable)
			s->cb->writable(s->arg, s);
	}
}

static void us_serve(struct sctp_sock *s)
{
	if (s->pass == us.pass_no)
		return;
	s->pass = us.pass_no;
	us_service(s);
}

static void us_wake(evutil_socket_t fd, short what, void *arg)
{
	const uint64_t *ready;
	struct sctp_sock *s;
	unsigned int i, n;
	uint64_t cnt;
	ssize_t rd;
	bool all;

	(void)what;
	(void)arg;
	rd = read(fd, &cnt, sizeof(cnt));
	(void)rd;
	/* Upcalls from here on wake the loop again; those before are in
	 * what this pass takes. */
	__atomic_store_n(&us.wake_pending, false, __ATOMIC_RELEASE);
	ready = us_ready_take(&n, &all);
	us.in_pass++;
	us.pass_no++;
	if (all) {
		/* sockets accepted during the pass join the tail */
		TAILQ_FOREACH (s, &us.socks, entry)
			us_serve(s);
	} else {
		for (i = 0; i < n; i++)
			if ((s = us_by_token(ready[i])))
				us_serve(s);
	}
	us.in_pass--;
	while ((s = TAILQ_FIRST(&us.dead))) {
		TAILQ_REMOVE(&us.dead, s, dead_entry);
		us_free(s);
	}
}

/* Clear CAP_NET_RAW from the effective set (restore: saved != NULL). */
static int us_net_raw(bool clear, uint32_t *saved)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned int w = CAP_NET_RAW / 32;
	const uint32_t bit = 1u << (CAP_NET_RAW % 32);

	if (syscall(SYS_capget, &h, d) < 0)
		return -1;
	if (clear) {
		*saved = d[w].effective & bit;
		if (!*saved)
			return 0;
		d[w].effective &= ~bit;
	} else {
		if (!*saved)
			return 0;
		d[w].effective |= bit;
	}
	return (int)syscall(SYS_capset, &h, d);
}

/* 0 when nobody holds UDP port (IPv4 wildcard), else -1 with errno. */
static int us_udp_probe(uint16_t port)
{
	struct sockaddr_in sin;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return rc;
}

static int us_init(struct event_base *base, const struct sctp_stack_conf *c,
		   char *err, size_t errlen)
{
	uint32_t raw = 0;

	us.base = base;
	us.conf = *c;
	TAILQ_INIT(&us.socks);
	TAILQ_INIT(&us.dead);
	if (c->udp_port && us_udp_probe(c->udp_port) < 0) {
		snprintf(err, errlen,
			 "sctp_udp_port %u: %s (is another iwcmd or SCTP "
			 "stack using it?)",
			 c->udp_port, strerror(errno));
		return -1;
	}
	us.rxbuf = malloc(SCTP_RX_MAX);
	us.wake_pending = false;
	us.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (!us.rxbuf || us.wake_fd < 0) {
		snprintf(err, errlen, "sctp: %s", strerror(errno));
		goto fail;
	}
	us.wake_ev = event_new(base, us.wake_fd, EV_READ | EV_PERSIST, us_wake,
			       NULL);
	if (!us.wake_ev || event_add(us.wake_ev, NULL) < 0) {
		snprintf(err, errlen, "sctp: cannot watch the eventfd");
		goto fail;
	}
	/*
	 * With UDP encapsulation no raw socket is wanted: usrsctp opens
	 * one whenever it may, so CAP_NET_RAW is off while it starts (its
	 * threads inherit that).
	 */
	if (c->udp_port && us_net_raw(true, &raw) < 0)
		log_warn("sctp: cannot drop CAP_NET_RAW");
	usrsctp_init(c->udp_port, NULL, NULL);
	if (c->udp_port)
		us_net_raw(false, &raw);
	/* usrsctp_init() has no result: the port must be held now */
	if (c->udp_port && us_udp_probe(c->udp_port) == 0) {
		snprintf(err, errlen,
			 "sctp_udp_port %u: usrsctp could not bind it",
			 c->udp_port);
		usrsctp_finish();
		goto fail;
	}
	log_info("sctp: usrsctp on UDP port %u, %u streams", c->udp_port,
		 c->streams);
	return 0;
fail:
	if (us.wake_ev)
		event_free(us.wake_ev);
	us.wake_ev = NULL;
	if (us.wake_fd >= 0)
		close(us.wake_fd);
	us.wake_fd = -1;
	free(us.rxbuf);
	us.rxbuf = NULL;
	return -1;
}

static void us_fini(void)
{
	struct sctp_sock *s;
	int i;

	while ((s = TAILQ_FIRST(&us.socks))) {
		if (!s->dead) {
			/* none survives this: end them on this thread */
			if (s->state != US_LISTEN)
				(void)us_send_abort(s->so);
			usrsctp_close(s->so);
		}
		us_free(s);
	}
	TAILQ_INIT(&us.parked);
	us.n_parked = 0;
	TAILQ_INIT(&us.dead);
	us_slots_free();
	/* usrsctp_finish fails while associations still wind down */
	for (i = 0; i < 50 && usrsctp_finish() != 0; i++)
		usleep(20000);
	if (us.wake_ev)
		event_free(us.wake_ev);
	us.wake_ev = NULL;
	/* its threads are gone: nothing writes the eventfd any more */
	if (us.wake_fd >= 0)
		close(us.wake_fd);
	us.wake_fd = -1;
	free(us.rxbuf);
	us.rxbuf = NULL;
}

static struct socket *us_socket(int family)
{
	struct socket *so = usrsctp_socket(family, SOCK_STREAM, IPPROTO_SCTP,
					   NULL, NULL, 0, NULL);

	if (!so)
		return NULL;
	if (us_sockopts(so) < 0) {
		usrsctp_close(so);
		errno = EINVAL;
		return NULL;
	}
	return so;
}

static struct sctp_sock *us_listen(const struct sockaddr *sa, socklen_t len,
				   const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *s = us_parked_take(sa, len, cb, arg);
	struct socket *so;
	socklen_t bl = sizeof(s->bound);
	int e;

	if (s)
		return s;
	so = us_socket(sa->sa_family);
	if (!so)
		return NULL;
	if (usrsctp_bind(so, (struct sockaddr *)sa, len) < 0 ||
	    usrsctp_listen(so, US_LISTEN_BACKLOG) < 0)
		goto fail;
	s = us_sock_new(so, US_LISTEN, cb, arg);
	if (!s)
		goto fail;
	s->accept_timer = evtimer_new(us.base, us_accept_deferred, s);
	if (!s->accept_timer) {
		us_free(s);
		errno = ENOMEM;
		goto fail;
	}
	/* what a later listen on this address finds it by (us_close()) */
	if (us_local_addr(s, &s->bound, &bl) < 0)
		s->bound.ss_family = AF_UNSPEC;
	return s;
fail:
	e = errno;
	usrsctp_close(so);
	errno = e;
	return NULL;
}

static struct sctp_sock *us_connect(const struct sockaddr *sa, socklen_t len,
				    uint16_t remote_udp_port,
				    const struct sctp_cb *cb, void *arg)
{
	struct socket *so = us_socket(sa->sa_family);
	struct sctp_udpencaps ue;
	struct sctp_sock *s;
	int e;

	if (!so)
		return NULL;
	/* RFC 6951 §5.1: the peer's encapsulation port, before connect */
	memset(&ue, 0, sizeof(ue));
	ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
	if (!remote_udp_port)
		remote_udp_port = us.conf.encap_port ? us.conf.encap_port :
						       us.conf.udp_port;
	ue.sue_port = htons(remote_udp_port);
	if (ue.sue_port &&
	    usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT,
			       &ue, sizeof(ue)) < 0)
		goto fail;
	if (usrsctp_connect(so, (struct sockaddr *)sa, len) < 0 &&
	    errno != EINPROGRESS)
		goto fail;
	/* served on the next pass: a refusal may already be queued */
	s = us_sock_new(so, US_CONNECTING, cb, arg);
	if (!s)
		goto fail;
	return s;
fail:
	e = errno;
	usrsctp_close(so);
	errno = e;
	return NULL;
}

static void us_set_cb(struct sctp_sock *s, const struct sctp_cb *cb, void *arg)
{
	s->cb = cb;
	s->arg = arg;
}

static int us_send(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		   const void *buf, size_t len)
{
	struct sctp_sndinfo si;

	if (s->dead || s->state != US_UP) {
		errno = ENOTCONN;
		return -1;
	}
	if (stream >= s->info.streams) {
		errno = EINVAL;
		return -1;
	}
	if (len > s->info.maxseg) {
		errno = EMSGSIZE; /* RFC 5043 §9: never fragmented */
		return -1;
	}
	memset(&si, 0, sizeof(si));
	si.snd_sid = stream;
	si.snd_flags = SCTP_UNORDERED; /* RFC 5043 §5 */
	si.snd_ppid = htonl(ppid);
	if (usrsctp_sendv(s->so, buf, len, NULL, 0, &si, sizeof(si),
			  SCTP_SENDV_SNDINFO, 0) < 0) {
		if (errno == EWOULDBLOCK || errno == EAGAIN) {
			s->want_write = true;
			errno = EAGAIN;
		}
		return -1;
	}
	return 0;
}

static bool us_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)sa)
				      ->sin_addr.s_addr) >>
			24) == 127;
	return sa->sa_family == AF_INET6 &&
	       IN6_IS_ADDR_LOOPBACK(
		       &((const struct sockaddr_in6 *)sa)->sin6_addr);
}

static socklen_t us_salen(const struct sockaddr *sa)
{
	return sa->sa_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
					   sizeof(struct sockaddr_in);
}

/*
 * One address of s: the peer's primary, or of the local ones (an
 * unbound endpoint has all of the host's) the one a path to the peer
 * would use: its family, a loopback one for a loopback peer.
 */
static int us_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
		   socklen_t *len, bool peer)
{
	struct sockaddr_storage p;
	struct sockaddr *addrs = NULL;
	const struct sockaddr *pick = NULL;
	bool have_peer = false;
	const uint8_t *q;
	int n, i;

	if (!peer && us_addr(s, &p, len, true) == 0)
		have_peer = true;
	n = peer ? usrsctp_getpaddrs(s->so, 0, &addrs) :
		   usrsctp_getladdrs(s->so, 0, &addrs);
	if (n <= 0 || !addrs) {
		errno = ENOTCONN;
		return -1;
	}
	q = (const uint8_t *)addrs;
	for (i = 0; i < n; i++) {
		const struct sockaddr *sa = (const struct sockaddr *)q;

		if (!pick)
			pick = sa;
		if (have_peer && sa->sa_family == p.ss_family &&
		    us_loopback(sa) == us_loopback((struct sockaddr *)&p)) {
			pick = sa;
			break;
		}
		q += us_salen(sa);
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, pick, us_salen(pick));
	*len = us_salen(pick);
	if (peer)
		usrsctp_freepaddrs(addrs);
	else
		usrsctp_freeladdrs(addrs);
	return 0;
}

static int us_local_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			 socklen_t *len)
{
	return us_addr(s, ss, len, false);
}

static int us_peer_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			socklen_t *len)
{
	return us_addr(s, ss, len, true);
}

static unsigned int us_sockets(void)
{
	return us.n_socks - us.n_parked;
}

static void us_pause(struct sctp_sock *s, bool pause)
{
	s->paused = pause;
	if (!pause)
		us_rewake(s); /* what waits is read on the next pass */
}

const struct sctp_stack_ops sctp_stack_usrsctp = {
	.name = "usrsctp",
	.init = us_init,
	.fini = us_fini,
	.listen = us_listen,
	.connect = us_connect,
	.set_cb = us_set_cb,
	.send = us_send,
	.local_addr = us_local_addr,
	.peer_addr = us_peer_addr,
	.close = us_close,
	.pause = us_pause,
	.sockets = us_sockets,
};
