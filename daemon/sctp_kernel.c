/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The kernel's SCTP under iwcmd's DDP stream sessions: one-to-one style
 * sockets (RFC 6458 §4), non-blocking, each watched by libevent.  With
 * sctp_udp_port set, over UDP encapsulation (RFC 6951, Linux 5.11): the
 * kernel receives on net.sctp.udp_port, which must be that port.  Only
 * this file includes <linux/sctp.h>: usrsctp's constants differ.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <stdint.h> /* before <linux/sctp.h>, which uses it */
#include <linux/sctp.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "sctp_assoc.h"
#include "sctp_stack.h"

struct sctp_sock {
	struct sctp_as as; /* first (sctp_stack.h): state, callbacks, info */
	int fd;
	struct event *rev, *wev;
	int busy;  /* in one of its own callbacks: free deferred */
	bool dead; /* closed while busy */
	bool paused;
};

#define KS_BATCH 64 /* messages per readiness event, then yield */
#define KS_SYSCTL_UDP_PORT "/proc/sys/net/sctp/udp_port"

static struct {
	struct event_base *base;
	struct sctp_stack_conf conf;
} ks;

static uint8_t ks_rxbuf[SCTP_RX_MAX];

static void ks_free(struct sctp_sock *s)
{
	if (s->rev)
		event_free(s->rev);
	if (s->wev)
		event_free(s->wev);
	if (s->fd >= 0)
		close(s->fd);
	sctp_as_free(&s->as);
}

/* End a callback pass over s; false when s was closed meanwhile. */
static bool ks_release(struct sctp_sock *s)
{
	if (--s->busy > 0 || !s->dead)
		return !s->dead;
	ks_free(s);
	return false;
}

/* The association is down: its socket is no longer watched. */
static void ks_as_stop(struct sctp_as *a)
{
	event_del(a->sock->wev);
	event_del(a->sock->rev);
}

/* The association is to be ABORTed (RFC 4960 §9.1). */
static void ks_as_abort(struct sctp_as *a)
{
	/* Linux refuses SCTP_ABORT on a one-to-one socket (EINVAL): the
	 * ABORT goes when the owner closes it, a zero linger making even a
	 * graceful close one (RFC 6458 §4.1.7) */
	struct linger lg = { 1, 0 };

	if (setsockopt(a->sock->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg)) < 0)
		log_warn("sctp: abort: SO_LINGER");
}

/* setsockopt(IPPROTO_SCTP) on the socket *fd (sctp_as_sockopts()) */
static int ks_setopt(void *fd, int name, const void *v, socklen_t len,
		     const char *what)
{
	if (setsockopt(*(int *)fd, IPPROTO_SCTP, name, v, len) < 0) {
		log_warn("sctp: setsockopt %s", what);
		return -1;
	}
	return 0;
}

/* The peer's UDP encapsulation port (RFC 6951 §5.1) for the socket's
 * future associations; 0: the sysctls decide (net.sctp.encap_port). */
static int ks_encap(int fd, uint16_t port)
{
	struct sctp_udpencaps ue;

	if (port == 0)
		return 0;
	memset(&ue, 0, sizeof(ue));
	ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
	ue.sue_port = htons(port);
	return ks_setopt(&fd, SCTP_REMOTE_UDP_ENCAPS_PORT, &ue, sizeof(ue),
			 "SCTP_REMOTE_UDP_ENCAPS_PORT");
}

/* the kernel's numbers, for what both stacks share (sctp_assoc.h) */
static const struct sctp_as_consts ks_consts = SCTP_AS_CONSTS;
SCTP_AS_LAYOUT_CHECK;

/* The options every DDP-enabled socket carries (an accepted one
 * inherits them from its listener). */
static int ks_sockopts(int fd)
{
	const uint32_t pd = SCTP_RX_MAX;

	if (sctp_as_sockopts(&ks_consts, ks.conf.streams, ks_setopt, &fd) < 0)
		return -1;
	/* a message up to SCTP_RX_MAX is delivered whole, never in parts
	 * (the kernel refuses a point over half the receive buffer: then
	 * its own, and a larger message aborts the association) */
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_PARTIAL_DELIVERY_POINT, &pd,
		       sizeof(pd)) < 0)
		log_debug("sctp: SCTP_PARTIAL_DELIVERY_POINT %u: %s", pd,
			  strerror(errno));
	return 0;
}

static void ks_readable(evutil_socket_t fd, short what, void *arg);
static void ks_writable(evutil_socket_t fd, short what, void *arg);

/* Largest user message that goes out unfragmented (RFC 5043 §9): the
 * association's fragmentation point, which counts the UDP header when
 * encapsulated. */
static size_t ks_maxseg(struct sctp_as *a)
{
	struct sctp_sock *s = a->sock;
	struct sctp_assoc_value av;
	socklen_t len = sizeof(av);
	size_t seg = 0;

	memset(&av, 0, sizeof(av));
	if (getsockopt(s->fd, IPPROTO_SCTP, SCTP_MAXSEG, &av, &len) == 0 &&
	    av.assoc_value > 0)
		seg = av.assoc_value;
	return seg;
}

static const struct sctp_as_ops ks_as_ops = {
	.abort = ks_as_abort,
	.stop = ks_as_stop,
	.maxseg = ks_maxseg,
};

static struct sctp_sock *ks_sock_new(int fd, enum sctp_as_state st,
				     const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *s = sctp_as_new(sizeof(*s), &ks_as_ops, st, cb, arg);

	if (!s)
		return NULL;
	s->fd = fd;
	s->rev = event_new(ks.base, fd, EV_READ | EV_PERSIST, ks_readable, s);
	s->wev = event_new(ks.base, fd, EV_WRITE, ks_writable, s);
	if (!s->rev || !s->wev || event_add(s->rev, NULL) < 0) {
		s->fd = -1; /* the caller's */
		ks_free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

static void ks_accept_all(struct sctp_sock *l)
{
	struct sctp_sock *s;
	int fd;

	while (!l->dead) {
		fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				log_warn("sctp: accept");
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		s = ks_sock_new(fd, SCTP_AS_CONNECTING, l->as.cb, l->as.arg);
		if (!s) {
			close(fd);
			continue;
		}
		if (l->as.cb->accept)
			l->as.cb->accept(l->as.arg, l, s);
	}
}

/* One received message; false: stop reading this time. */
static bool ks_recv_one(struct sctp_sock *s)
{
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(sizeof(struct sctp_rcvinfo))];
	} u;
	struct iovec iov = { ks_rxbuf, SCTP_RX_MAX };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	const void *rcv = NULL;
	struct cmsghdr *c;
	ssize_t n;

	n = recvmsg(s->fd, &m, 0);
	if (n < 0 && errno == ENOTCONN && s->as.state == SCTP_AS_CONNECTING)
		return false; /* the handshake is still going on */
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
		if (c->cmsg_level == IPPROTO_SCTP &&
		    c->cmsg_type == SCTP_RCVINFO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct sctp_rcvinfo)))
			rcv = CMSG_DATA(c);
	return sctp_as_input(&s->as, &ks_consts, ks_rxbuf, n,
			     m.msg_flags & MSG_NOTIFICATION,
			     m.msg_flags & MSG_EOR, rcv);
}

static void ks_readable(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_sock *s = arg;
	int i;

	(void)fd;
	(void)what;
	s->busy++;
	if (s->as.state == SCTP_AS_LISTEN) {
		ks_accept_all(s);
		ks_release(s);
		return;
	}
	for (i = 0; i < KS_BATCH && !s->dead && !s->paused &&
		    s->as.state != SCTP_AS_DOWN;
	     i++)
		if (!ks_recv_one(s))
			break;
	/* more may be queued: the persistent event fires again */
	ks_release(s);
}

static void ks_writable(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_sock *s = arg;

	(void)fd;
	(void)what;
	if (s->as.state != SCTP_AS_UP || !s->as.cb->writable)
		return;
	s->busy++;
	s->as.cb->writable(s->as.arg, s);
	ks_release(s);
}

/* The kernel's UDP encapsulation port (net.sctp.udp_port), or -1 when
 * it has none (before Linux 5.11). */
static long ks_sysctl_udp_port(void)
{
	char buf[16];
	ssize_t n;
	long v;
	char *end;
	int fd = open(KS_SYSCTL_UDP_PORT, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	errno = 0;
	v = strtol(buf, &end, 10);
	if (errno || end == buf || (*end != '\n' && *end != '\0') || v < 0 ||
	    v > 65535)
		return -1;
	return v;
}

static int ks_init(struct event_base *base, const struct sctp_stack_conf *c,
		   char *err, size_t errlen)
{
	long port;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_SCTP);
	if (fd < 0) {
		if (errno == EPROTONOSUPPORT || errno == ESOCKTNOSUPPORT ||
		    errno == EAFNOSUPPORT)
			snprintf(err, errlen,
				 "sctp_stack kernel: the kernel has no SCTP; "
				 "load sctp or use sctp_stack = usrsctp");
		else
			snprintf(err, errlen, "sctp_stack kernel: socket: %s",
				 strerror(errno));
		errno = EPROTONOSUPPORT;
		return -1;
	}
	close(fd);
	if (c->udp_port) {
		/* RFC 6951: the kernel receives on one netns-wide port */
		port = ks_sysctl_udp_port();
		if (port < 0) {
			snprintf(err, errlen,
				 "sctp_udp_port %u: the kernel has no SCTP UDP "
				 "encapsulation (%s, Linux 5.11); use "
				 "sctp_udp_port = 0 or sctp_stack = usrsctp",
				 c->udp_port, KS_SYSCTL_UDP_PORT);
			errno = ENOTSUP;
			return -1;
		}
		if (port != c->udp_port) {
			snprintf(err, errlen,
				 "sctp_udp_port %u: the kernel's "
				 "net.sctp.udp_port is %ld; set it (sysctl -w "
				 "net.sctp.udp_port=%u) or use sctp_udp_port = "
				 "0 for SCTP without UDP encapsulation",
				 c->udp_port, port, c->udp_port);
			errno = EINVAL;
			return -1;
		}
	}
	ks.base = base;
	ks.conf = *c;
	if (c->udp_port)
		log_info("sctp: kernel SCTP over UDP port %u (peers' port %u), "
			 "%u streams",
			 c->udp_port,
			 c->encap_port ? c->encap_port : c->udp_port,
			 c->streams);
	else
		log_info("sctp: kernel SCTP, %u streams", c->streams);
	return 0;
}

static void ks_fini(void)
{
	ks.base = NULL;
}

static int ks_socket(int family, uint16_t encap)
{
	int fd = socket(family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_SCTP);
	int e;

	if (fd < 0)
		return -1;
	if (ks_sockopts(fd) < 0 || ks_encap(fd, encap) < 0) {
		e = errno;
		close(fd);
		errno = e ? e : EINVAL;
		return -1;
	}
	return fd;
}

/* A socket on fd when ok, else (or when out of memory) NULL with fd
 * closed and errno kept. */
static struct sctp_sock *ks_sock_or_close(int fd, bool ok,
					  enum sctp_as_state st,
					  const struct sctp_cb *cb, void *arg)
{
	struct sctp_sock *s = ok ? ks_sock_new(fd, st, cb, arg) : NULL;
	int e = errno;

	if (!s) {
		close(fd);
		errno = e;
	}
	return s;
}

static struct sctp_sock *ks_listen(const struct sockaddr *sa, socklen_t len,
				   const struct sctp_cb *cb, void *arg)
{
	int fd = ks_socket(sa->sa_family, sctp_addr_encap_port(&ks.conf, 0));
	const int on = 1;

	if (fd < 0)
		return NULL;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof(on));
	return ks_sock_or_close(fd,
				bind(fd, sa, len) == 0 && listen(fd, 16) == 0,
				SCTP_AS_LISTEN, cb, arg);
}

static struct sctp_sock *ks_connect(const struct sockaddr *sa, socklen_t len,
				    uint16_t remote_udp_port,
				    const struct sctp_cb *cb, void *arg)
{
	/* RFC 6951 §5.1: the peer's encapsulation port, before connect */
	int fd = ks_socket(sa->sa_family,
			   sctp_addr_encap_port(&ks.conf, remote_udp_port));

	if (fd < 0)
		return NULL;
	return ks_sock_or_close(
		fd, connect(fd, sa, len) == 0 || errno == EINPROGRESS,
		SCTP_AS_CONNECTING, cb, arg);
}

static int ks_send(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		   const void *buf, size_t len)
{
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} u;
	/* RFC 5043 §5: unordered */
	const struct sctp_sndinfo si = { .snd_sid = stream,
					 .snd_flags = SCTP_UNORDERED,
					 .snd_ppid = htonl(ppid) };
	struct iovec iov = { (void *)(uintptr_t)buf, len };
	struct msghdr m = { .msg_iov = &iov,
			    .msg_iovlen = 1,
			    .msg_control = u.b,
			    .msg_controllen = sizeof(u.b) };
	struct cmsghdr *c;

	if (s->dead) {
		errno = ENOTCONN;
		return -1;
	}
	memset(&u, 0, sizeof(u));
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = IPPROTO_SCTP;
	c->cmsg_type = SCTP_SNDINFO;
	c->cmsg_len = CMSG_LEN(sizeof(si));
	memcpy(CMSG_DATA(c), &si, sizeof(si));
	/* one whole message per call (MSG_EOR) */
	if (sendmsg(s->fd, &m, MSG_NOSIGNAL | MSG_EOR) < 0) {
		if (errno == EWOULDBLOCK || errno == EAGAIN) {
			event_add(s->wev, NULL);
			errno = EAGAIN;
		} else if (errno == EPIPE || errno == ECONNRESET) {
			errno = ENOTCONN;
		}
		return -1;
	}
	return 0;
}

static int ks_addr(struct sctp_sock *s, bool peer, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	*len = sizeof(*ss);
	return (peer ? getpeername : getsockname)(s->fd, (struct sockaddr *)ss,
						  len);
}

static void ks_close(struct sctp_sock *s, bool abort)
{
	if (s->dead)
		return;
	s->dead = true;
	evtimer_del(s->as.adapt_timer);
	event_del(s->rev);
	event_del(s->wev);
	if (abort)
		ks_as_abort(&s->as);
	/* a one-to-one socket's close ends its association: SHUTDOWN, or
	 * ABORT with a zero linger (RFC 6458 §4.1.7) */
	close(s->fd);
	s->fd = -1;
	if (!s->busy)
		ks_free(s);
}

/* The socket of an association that is up, for its handoff (a copy goes
 * to the owner; closing iwcmd's then leaves the association running). */
static int ks_fd(struct sctp_sock *s)
{
	if (!s || s->dead || s->fd < 0 || s->as.state != SCTP_AS_UP) {
		errno = EINVAL;
		return -1;
	}
	return s->fd;
}

static void ks_pause(struct sctp_sock *s, bool pause)
{
	if (s->dead || s->paused == pause)
		return;
	s->paused = pause;
	if (s->as.state == SCTP_AS_DOWN)
		return;
	if (pause)
		event_del(s->rev);
	else /* level-triggered: what waits is read */
		event_add(s->rev, NULL);
}

const struct sctp_stack_ops sctp_stack_kernel = {
	.init = ks_init,
	.fini = ks_fini,
	.listen = ks_listen,
	.connect = ks_connect,
	.send = ks_send,
	.addr = ks_addr,
	.close = ks_close,
	.pause = ks_pause,
	.fd = ks_fd,
};
