/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The usrsctp stack (SCTP over UDP encapsulation, RFC 6951) in iwcmd's
 * loop, without threads (docs/sctp.md): its upcalls, which run inside
 * our calls into usrsctp (sctp_usrsctp_udp.c), only put the socket on a
 * list, which us_run() serves once usrsctp has returned.  Its sockets
 * are AF_CONN ones whose peer address is a UDP endpoint, so the peer
 * takes the packet's source address (RFC 4960 §5.1.2).  Only this file
 * and sctp_usrsctp_udp.c include <usrsctp.h>: the kernel's constants
 * differ.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <unistd.h>
#include <usrsctp.h>

#include "log.h"
#include "sctp_assoc.h"
#include "sctp_usrsctp_int.h"

#define US_BATCH 64 /* messages per socket per pass, then yield */
/* A listener's queue of associations set up, not yet accepted. */
#define US_LISTEN_BACKLOG 16
#define US_DATA_HDR 16 /* RFC 4960 §3.3.1 DATA chunk header */
#define US_PORT_TRIES 64
#define US_UDP_MAX 65507 /* the largest IPv4 UDP payload */

struct sctp_sock {
	struct sctp_as as; /* first (sctp_stack.h): state, callbacks, info */
	TAILQ_ENTRY(sctp_sock) entry;
	TAILQ_ENTRY(sctp_sock) ready_entry; /* an upcall named it */
	struct socket *so;
	bool ready;	 /* on us.ready */
	bool dead;	 /* closed: freed once the loop is done with it */
	bool want_write; /* a send got EAGAIN */
	bool paused;	 /* messages stay in the stack */
	void *peer;	 /* the remote UDP endpoint (us_peer_*()), or NULL */
	uint16_t port;	 /* the local SCTP port (network order) */
	uint16_t rport;	 /* the peer's */
	struct sockaddr_storage bound; /* a listener's own address */
};

/* The stack's sockets. */
static struct {
	struct sctp_stack_conf conf;
	TAILQ_HEAD(, sctp_sock) socks;
	TAILQ_HEAD(, sctp_sock) ready; /* named by an upcall, not served */
	TAILQ_HEAD(, sctp_sock) dead;  /* freed at the end of a pass */
	int in_pass;
} us; /* the lists set up by us_init() */

static uint8_t us_rxbuf[SCTP_RX_MAX];

/* A closed socket's callbacks: none. */
static const struct sctp_cb us_nocb;

/*
 * usrsctp's upcall, inside a call of ours into usrsctp (its input, its
 * timers, a send): the socket is served once usrsctp has returned.
 */
static void us_upcall(struct socket *so, void *arg, int flags)
{
	struct sctp_sock *s = arg;

	(void)so;
	(void)flags;
	if (!s || s->dead || s->ready)
		return;
	s->ready = true;
	TAILQ_INSERT_TAIL(&us.ready, s, ready_entry);
}

/* s served on the next pass. */
static void us_rewake(struct sctp_sock *s)
{
	us_upcall(NULL, s, 0);
	us_kick();
}

static void us_free(struct sctp_sock *s)
{
	TAILQ_REMOVE(&us.socks, s, entry);
	sctp_as_free(&s->as);
}

/* Largest user message that goes out in one packet (RFC 5043 §9): the
 * path's SCTP packet (usrsctp's MTU for AF_CONN has no IP or UDP header,
 * nor the common header) less the DATA chunk's header. */
static size_t us_maxseg(struct sctp_as *a)
{
	struct sctp_sock *s = a->sock;
	struct sctp_paddrparams pp;
	socklen_t len = sizeof(pp);
	struct sctp_assoc_value av;
	socklen_t avlen = sizeof(av);
	size_t seg = 0;

	memset(&av, 0, sizeof(av));
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_MAXSEG, &av, &avlen) ==
		    0 &&
	    av.assoc_value > 0)
		seg = av.assoc_value;
	memset(&pp, 0, sizeof(pp));
	if (usrsctp_getsockopt(s->so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp,
			       &len) == 0 &&
	    pp.spp_pathmtu > US_DATA_HDR &&
	    (seg == 0 || pp.spp_pathmtu - US_DATA_HDR < seg))
		seg = pp.spp_pathmtu - US_DATA_HDR;
	return seg;
}

/*
 * The path MTU of an association: the UDP path's, fixed (RFC 6951 §5.6
 * leaves PMTU discovery to SCTP, and usrsctp sees no ICMP here).
 * usrsctp only lowers an MTU: every socket starts at the largest (peer
 * NULL), each association is lowered to its path's.
 */
static void us_set_mtu(struct socket *so, void *peer, sctp_assoc_t id)
{
	struct sctp_paddrparams pp;
	unsigned int mtu = peer ? us_peer_mtu(peer) : US_UDP_MAX;

	struct sockaddr_conn *all = (struct sockaddr_conn *)&pp.spp_address;

	memset(&pp, 0, sizeof(pp));
	pp.spp_assoc_id = id;
	/* every path: an AF_CONN address naming none (usrsctp refuses an
	 * unspecified family) */
	all->sconn_family = AF_CONN;
	pp.spp_flags = SPP_PMTUD_DISABLE;
	/* usrsctp's AF_CONN path MTU excludes the common header */
	pp.spp_pathmtu = mtu - 12;
	if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp,
			       sizeof(pp)) < 0)
		log_debug("sctp: path MTU %u: %s", mtu, strerror(errno));
}

/* usrsctp's numbers, for what both stacks share (sctp_assoc.h) */
static const struct sctp_as_consts us_consts = SCTP_AS_CONSTS;
SCTP_AS_LAYOUT_CHECK;

static int us_setopt(void *h, int name, const void *v, socklen_t len,
		     const char *what)
{
	if (usrsctp_setsockopt(h, IPPROTO_SCTP, name, v, len) < 0) {
		log_warn("sctp: setsockopt %s", what);
		return -1;
	}
	return 0;
}

/* The options every DDP-enabled socket carries; -1 on failure. */
static int us_sockopts(struct socket *so)
{
	if (usrsctp_set_non_blocking(so, 1) < 0) {
		log_warn("sctp: non-blocking");
		return -1;
	}
	if (sctp_as_sockopts(&us_consts, us.conf.streams, us_setopt, so) < 0)
		return -1;
	us_set_mtu(so, NULL, SCTP_FUTURE_ASSOC);
	return 0;
}

/* ABORT the association (RFC 4960 §9.1) for the table. */
static void us_as_abort(struct sctp_as *a)
{
	static const char none[1];
	struct sctp_sndinfo si = { .snd_flags = SCTP_ABORT };

	/* usrsctp_sendv() refuses a NULL buffer (EFAULT) even for an
	 * ABORT without a cause; the length is what counts */
	if (usrsctp_sendv(a->sock->so, none, 0, NULL, 0, &si, sizeof(si),
			  SCTP_SENDV_SNDINFO, 0) < 0 &&
	    errno != ENOTCONN)
		log_debug("sctp: abort: %s", strerror(errno));
	us_kick();
}

/* usrsctp's socket stays until closed: nothing to stop */
static const struct sctp_as_ops us_as_ops = {
	.abort = us_as_abort,
	.maxseg = us_maxseg,
};

/* A socket of ours for so, in state st; NULL (errno) on failure. */
static struct sctp_sock *us_sock_new(struct socket *so, enum sctp_as_state st,
				     const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *s = sctp_as_new(sizeof(*s), &us_as_ops, st, cb, arg);

	if (!s)
		return NULL;
	s->so = so;
	TAILQ_INSERT_TAIL(&us.socks, s, entry);
	usrsctp_set_upcall(so, us_upcall, s);
	/* what reached it before its upcall did (an accepted socket's
	 * COMM_UP) is served on the next pass */
	us_rewake(s);
	return s;
}

/* Whether listener l, bound to an address or its family's wildcard,
 * takes association s (the address its peer's datagrams reached). */
static bool us_bound_match(const struct sctp_sock *l, const struct sctp_sock *s)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (us_peer_addr(s->peer, true, l->port, &ss, &len) < 0)
		return false;
	return sctp_addr_match(&l->bound, (struct sockaddr *)&ss, len, true);
}

/* Close so; abort: with a zero linger, so that usrsctp's close sends
 * the ABORT. */
static void us_so_close(struct socket *so, bool abort)
{
	const struct linger lg = { 1, 0 };

	if (abort)
		usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	usrsctp_close(so);
}

/*
 * The owner is done with s: no callback reaches it any more.  usrsctp
 * ends the association on its own, on this thread: an ABORT, or a
 * SHUTDOWN (RFC 4960 §9.2) that first delivers what is queued, its
 * retransmissions run by usrsctp_handle_timers() after the socket is
 * gone.
 */
static void us_close(struct sctp_sock *s, bool abort)
{
	if (s->dead)
		return;
	s->dead = true;
	s->as.cb = &us_nocb;
	s->as.arg = NULL;
	evtimer_del(s->as.adapt_timer);
	usrsctp_set_upcall(s->so, us_upcall, NULL); /* which ignores it */
	if (s->ready) {
		TAILQ_REMOVE(&us.ready, s, ready_entry);
		s->ready = false;
	}
	us_so_close(s->so,
		    s->as.state != SCTP_AS_LISTEN &&
			    (abort || (s->as.state != SCTP_AS_UP &&
				       s->as.state != SCTP_AS_WAIT_ADAPT)));
	s->so = NULL;
	if (s->peer)
		us_peer_put(s->peer);
	us_kick();
	if (us.in_pass) {
		TAILQ_INSERT_TAIL(&us.dead, s, ready_entry);
		return;
	}
	us_free(s);
}

static void us_accept_all(struct sctp_sock *l)
{
	struct sctp_sock *s;
	struct socket *so;

	while (!l->dead) {
		struct sockaddr_conn sc;
		socklen_t len = sizeof(sc);

		memset(&sc, 0, sizeof(sc));
		so = usrsctp_accept(l->so, (struct sockaddr *)&sc, &len);
		if (!so)
			return;
		s = NULL;
		if (us_sockopts(so) == 0 && us_peer_hold(sc.sconn_addr)) {
			s = us_sock_new(so, SCTP_AS_CONNECTING, l->as.cb,
					l->as.arg);
			if (!s)
				us_peer_put(sc.sconn_addr);
		}
		if (s) {
			s->peer = sc.sconn_addr;
			s->port = l->port;
			s->rport = sc.sconn_port;
			us_set_mtu(so, s->peer, 0);
			/* a listener on one address takes no association
			 * that reached another (a UDP datagram to any of
			 * the host's addresses reaches usrsctp) */
			if (!us_bound_match(l, s)) {
				log_info("sctp: association to another "
					 "address than its listener's: "
					 "aborted");
				us_close(s, true);
				continue;
			}
			if (l->as.cb->accept)
				l->as.cb->accept(l->as.arg, l, s);
			continue;
		}
		us_so_close(so, true);
	}
}

static void us_recv_all(struct sctp_sock *s)
{
	int i;

	for (i = 0; i < US_BATCH && !s->dead && s->as.state != SCTP_AS_DOWN;
	     i++) {
		struct sctp_rcvinfo rcv;
		socklen_t infolen = sizeof(rcv);
		unsigned int infotype = 0;
		int flags = 0;
		ssize_t n;

		memset(&rcv, 0, sizeof(rcv));
		n = usrsctp_recvv(s->so, us_rxbuf, SCTP_RX_MAX, NULL, NULL,
				  &rcv, &infolen, &infotype, &flags);
		if (!sctp_as_input(&s->as, &us_consts, us_rxbuf, n,
				   flags & MSG_NOTIFICATION, flags & MSG_EOR,
				   infotype == SCTP_RECVV_RCVINFO ? &rcv :
								    NULL))
			return;
	}
	if (i == US_BATCH)
		us_rewake(s); /* more may be queued: come back after others */
}

static void us_service(struct sctp_sock *s)
{
	int ev;

	if (s->dead)
		return;
	if (s->as.state == SCTP_AS_LISTEN) {
		us_accept_all(s);
		return;
	}
	ev = usrsctp_get_events(s->so);
	if ((ev & (SCTP_EVENT_READ | SCTP_EVENT_ERROR)) && !s->paused)
		us_recv_all(s);
	if (!s->dead && s->as.state == SCTP_AS_UP && s->want_write &&
	    (ev & SCTP_EVENT_WRITE)) {
		s->want_write = false;
		if (s->as.cb->writable)
			s->as.cb->writable(s->as.arg, s);
	}
}

/* Free the sockets closed during a pass. */
static void us_reap(void)
{
	struct sctp_sock *s;

	while ((s = TAILQ_FIRST(&us.dead))) {
		TAILQ_REMOVE(&us.dead, s, ready_entry);
		us_free(s);
	}
}

static void us_run(void)
{
	struct sctp_sock *s;

	us.in_pass++;
	while ((s = TAILQ_FIRST(&us.ready))) {
		TAILQ_REMOVE(&us.ready, s, ready_entry);
		s->ready = false;
		us_service(s);
	}
	if (!--us.in_pass)
		us_reap();
	us_udp_flush();
}

static int us_init(struct event_base *base, const struct sctp_stack_conf *c,
		   char *err, size_t errlen)
{
	us.conf = *c;
	TAILQ_INIT(&us.socks);
	TAILQ_INIT(&us.ready);
	TAILQ_INIT(&us.dead);
	if (us_udp_init(base, &us.conf.udp_port, c->udp_gso, us_run, err,
			errlen) < 0)
		return -1;
	/* no thread but its idle iterator (docs/sctp.md), no UDP socket of
	 * its own (port 0: the datagrams are ours) */
	usrsctp_init_nothreads(0, us_conn_output, NULL);
	/* the CRC32c is ours (RFC 4960 §6.8, sctp_usrsctp_udp.c) */
	usrsctp_enable_crc32c_offload();
	log_info("sctp: usrsctp on UDP port %u, %u streams", us.conf.udp_port,
		 c->streams);
	return 0;
}

static void us_fini(void)
{
	struct sctp_sock *s;
	int i;

	while ((s = TAILQ_FIRST(&us.socks)))
		us_close(s, true);
	us_reap();
	/* usrsctp frees closed endpoints from its timers: run them on */
	for (i = 0; i < 100; i++) {
		usrsctp_handle_timers(1000);
		us_udp_flush();
		if (usrsctp_finish() == 0)
			break;
	}
	us_udp_fini();
}

/* Bind so to port (network order; 0: a free one), all of usrsctp's
 * AF_CONN addresses; the port bound, or 0 with errno. */
static uint16_t us_bind(struct socket *so, uint16_t port)
{
	struct sockaddr_conn sc;
	int i;

	for (i = 0; i < (port ? 1 : US_PORT_TRIES); i++) {
		memset(&sc, 0, sizeof(sc));
		sc.sconn_family = AF_CONN;
		/* usrsctp picks no port it could tell us (its AF_CONN
		 * endpoints have no address to ask), so one of the
		 * dynamic ports (RFC 6335 §6) is tried at random */
		sc.sconn_port =
			port ? port :
			       htons((uint16_t)(49152 + random() % 16384));
		if (usrsctp_bind(so, (struct sockaddr *)&sc, sizeof(sc)) == 0)
			return sc.sconn_port;
		if (errno != EADDRINUSE)
			return 0;
	}
	return 0;
}

static struct socket *us_socket(void)
{
	struct socket *so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP,
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
	struct sctp_sock *s;
	struct socket *so;
	uint16_t port;
	int e;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    len > sizeof(s->bound)) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	so = us_socket();
	if (!so)
		return NULL;
	port = us_bind(so, sctp_addr_port(sa));
	if (!port || usrsctp_listen(so, US_LISTEN_BACKLOG) < 0)
		goto fail;
	s = us_sock_new(so, SCTP_AS_LISTEN, cb, arg);
	if (!s)
		goto fail;
	s->port = port;
	memcpy(&s->bound, sa, len);
	sctp_addr_set_port(&s->bound, port);
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
	struct socket *so;
	struct sctp_sock *s;
	struct sockaddr_conn sc;
	uint16_t port;
	void *peer;
	int e;

	(void)len;
	peer = us_peer_get(sa, sctp_addr_encap_port(&us.conf, remote_udp_port));
	if (!peer)
		return NULL;
	so = us_socket();
	if (!so) {
		e = errno;
		us_peer_put(peer);
		errno = e;
		return NULL;
	}
	port = us_bind(so, 0);
	if (!port)
		goto fail;
	memset(&sc, 0, sizeof(sc));
	sc.sconn_family = AF_CONN;
	sc.sconn_port = sctp_addr_port(sa);
	sc.sconn_addr = peer;
	if (usrsctp_connect(so, (struct sockaddr *)&sc, sizeof(sc)) < 0 &&
	    errno != EINPROGRESS)
		goto fail;
	/* on the association now there (usrsctp takes no path MTU for
	 * one to come on an AF_CONN socket) */
	us_set_mtu(so, peer, 0);
	s = us_sock_new(so, SCTP_AS_CONNECTING, cb, arg);
	if (!s)
		goto fail;
	s->peer = peer;
	s->port = port;
	s->rport = sc.sconn_port;
	return s;
fail:
	e = errno;
	usrsctp_close(so);
	us_peer_put(peer);
	errno = e;
	return NULL;
}

static int us_send(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		   const void *buf, size_t len)
{
	/* RFC 5043 §5: unordered */
	struct sctp_sndinfo si = { .snd_sid = stream,
				   .snd_flags = SCTP_UNORDERED,
				   .snd_ppid = htonl(ppid) };

	if (s->dead) {
		errno = ENOTCONN;
		return -1;
	}
	if (usrsctp_sendv(s->so, buf, len, NULL, 0, &si, sizeof(si),
			  SCTP_SENDV_SNDINFO, 0) < 0) {
		if (errno == EWOULDBLOCK || errno == EAGAIN) {
			s->want_write = true;
			errno = EAGAIN;
		}
		return -1;
	}
	us_kick(); /* the packets go before the loop sleeps */
	return 0;
}

/* A listener's own address is its bound one; it has no peer. */
static int us_addr(struct sctp_sock *s, bool peer, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	if (s->as.state != SCTP_AS_LISTEN)
		return us_peer_addr(s->peer, !peer, peer ? s->rport : s->port,
				    ss, len);
	if (peer) {
		errno = ENOTCONN;
		return -1;
	}
	memcpy(ss, &s->bound, sizeof(*ss));
	*len = s->bound.ss_family == AF_INET6 ? sizeof(struct sockaddr_in6) :
						sizeof(struct sockaddr_in);
	return 0;
}

static void us_pause(struct sctp_sock *s, bool pause)
{
	s->paused = pause;
	if (!pause)
		us_rewake(s); /* what waits is read on the next pass */
}

const struct sctp_stack_ops sctp_stack_usrsctp = {
	.init = us_init,
	.fini = us_fini,
	.listen = us_listen,
	.connect = us_connect,
	.send = us_send,
	.addr = us_addr,
	.close = us_close,
	.pause = us_pause,
	.drops = us_udp_drops,
};
