/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Raw usrsctp for the SCTP baselines of iwcm-bench: what a program that
 * uses usrsctp itself, without iwcm, runs.  Each process starts its own
 * usrsctp stack on a UDP port of its own (RFC 6951 encapsulation on
 * loopback), and its sockets are one-to-one (SOCK_STREAM) with the
 * options iwcmd's associations carry: the DDP Adaptation Layer
 * Indication (RFC 5043 §5.1), as many inbound as outbound streams
 * (§8), no fragmentation (§9), no Nagle.  The sockets are non-blocking;
 * usrsctp's upcall only writes an eventfd, on which the caller waits
 * (the way iwcmd's loop waits for its sockets).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <linux/capability.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <usrsctp.h>

#include "bench.h"
#include "sctp_raw.h"
#include "sctp_raw_kernel.h"

static struct {
	bool up;
	uint16_t udp_port;
	int wake_fd;
	bool kernel; /* the kernel's SCTP (sctp_raw_kernel.c) instead */
} sraw = { .wake_fd = -1 };

/* The kernel stack for this process's baselines: sctp_raw_kernel.c. */
#ifdef HAVE_KERNEL_SCTP
#define KS(so) ((struct ksraw *)(void *)(so))
#define SO(k) ((struct socket *)(void *)(k))
#define IF_KERNEL(x)             \
	do {                     \
		if (sraw.kernel) \
			x;       \
	} while (0)
#else
#define IF_KERNEL(x) \
	do {         \
	} while (0)
#endif

/* Whether the baselines run on the kernel's SCTP (--sctp-stack kernel);
 * -1 (ENOTSUP) where this build has none. */
int sraw_kernel(bool on)
{
#ifndef HAVE_KERNEL_SCTP
	if (on) {
		errno = ENOTSUP;
		return -1;
	}
#endif
	sraw.kernel = on;
	return 0;
}

/* usrsctp's threads: only wake the waiting thread. */
static void sraw_upcall(struct socket *so, void *arg, int flags)
{
	uint64_t one = 1;

	(void)so;
	(void)arg;
	(void)flags;
	if (write(sraw.wake_fd, &one, sizeof(one)) < 0) {
		/* the counter is already non-zero: the waiter wakes */
	}
}

/* A UDP port nobody holds now, or 0. */
static uint16_t sraw_free_udp_port(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	uint16_t port = 0;
	int fd;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == 0 &&
	    getsockname(fd, (struct sockaddr *)&sin, &len) == 0)
		port = ntohs(sin.sin_port);
	close(fd);
	return port;
}

/* True when someone (usrsctp, once started) holds the UDP port. */
static bool sraw_udp_held(uint16_t port)
{
	struct sockaddr_in sin;
	int fd, rc;

	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_ANY);
	rc = bind(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return rc < 0 && errno == EADDRINUSE;
}

/*
 * CAP_NET_RAW off (clear) or back on in the effective set: usrsctp opens
 * raw SCTP sockets (and threads to read them) whenever it may, and
 * iwcmd starts it without, so the baseline's stack is the same.
 */
static void sraw_net_raw(bool clear, uint32_t *saved)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	const unsigned int w = CAP_NET_RAW / 32;
	const uint32_t bit = 1u << (CAP_NET_RAW % 32);

	if (syscall(SYS_capget, &h, d) < 0)
		return;
	if (clear) {
		*saved = d[w].effective & bit;
		d[w].effective &= ~bit;
	} else {
		d[w].effective |= *saved;
	}
	if (syscall(SYS_capset, &h, d) < 0) {
		/* then usrsctp reads raw SCTP too: the same figures */
	}
}

/* A free UDP port for a daemon's sctp_udp_port, or 0. */
uint16_t sraw_udp_port_pick(void)
{
	return sraw_free_udp_port();
}

/*
 * Start this process's usrsctp on a free UDP port (once); -1 with why
 * in err.  usrsctp must start after fork(2): its threads stay behind.
 */
int sraw_start(char *err, size_t errlen)
{
	uint32_t raw = 0;
	int tries;
#ifdef HAVE_KERNEL_SCTP
	if (sraw.kernel) {
		if (ksraw_start() < 0) {
			snprintf(err, errlen, "kernel SCTP: %s",
				 strerror(errno));
			return -1;
		}
		return 0;
	}
#endif

	if (sraw.up)
		return 0;
	sraw.wake_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (sraw.wake_fd < 0) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		return -1;
	}
	/* usrsctp_init() reports nothing: look whether it holds the port. */
	for (tries = 0; tries < 3; tries++) {
		sraw.udp_port = sraw_free_udp_port();
		if (!sraw.udp_port)
			continue;
		sraw_net_raw(true, &raw);
		usrsctp_init(sraw.udp_port, NULL, NULL);
		sraw_net_raw(false, &raw);
		if (sraw_udp_held(sraw.udp_port)) {
			sraw.up = true;
			return 0;
		}
		usrsctp_finish();
	}
	snprintf(err, errlen, "usrsctp could not bind a UDP port");
	close(sraw.wake_fd);
	sraw.wake_fd = -1;
	return -1;
}

/* Stop this process's usrsctp, once its associations wound down. */
void sraw_stop(void)
{
	int i;
	if (sraw.kernel)
		return;

	if (!sraw.up)
		return;
	for (i = 0; i < 200 && usrsctp_finish() != 0; i++)
		poll(NULL, 0, 10);
	close(sraw.wake_fd);
	sraw.wake_fd = -1;
	sraw.up = false;
}

/* The UDP port of this process's stack. */
uint16_t sraw_udp_port(void)
{
	/* plain SCTP, no UDP port: any non-zero value tells the client to
	 * go on (dp_ctl_wait_port()) */
	if (sraw.kernel)
		return 1;
	return sraw.udp_port;
}

/* A one-to-one socket with the options of iwcmd's associations. */
struct socket *sraw_socket(void)
{
	struct sctp_setadaptation ad = { .ssb_adaptation_ind =
						 SRAW_ADAPT_IND_DDP };
	struct sctp_initmsg init;
	const uint32_t on = 1;
	struct socket *so;
	IF_KERNEL(return SO(ksraw_socket(SRAW_STREAMS)));

	so = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP, NULL, NULL, 0,
			    NULL);
	if (!so)
		return NULL;
	memset(&init, 0, sizeof(init));
	init.sinit_num_ostreams = SRAW_STREAMS;
	init.sinit_max_instreams = SRAW_STREAMS;
	if (usrsctp_set_non_blocking(so, 1) < 0 ||
	    usrsctp_set_upcall(so, sraw_upcall, NULL) < 0 ||
	    usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &ad,
			       sizeof(ad)) < 0 ||
	    usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_INITMSG, &init,
			       sizeof(init)) < 0 ||
	    usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &on,
			       sizeof(on)) < 0 ||
	    usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_NODELAY, &on,
			       sizeof(on)) < 0) {
		int e = errno;

		usrsctp_close(so);
		errno = e;
		return NULL;
	}
	return so;
}

/* A listening socket on 127.0.0.1 of this process's stack, its port in
 * *port. */
struct socket *sraw_listen(uint16_t *port)
{
	struct socket *so = sraw_socket();
	struct sockaddr *addrs = NULL;
	struct sockaddr_in sin;
	int n;
	IF_KERNEL(return SO(ksraw_listen(SRAW_STREAMS, port)));

	if (!so)
		return NULL;
	bench_sin_loopback(&sin, 0);
	if (usrsctp_bind(so, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    usrsctp_listen(so, SRAW_BACKLOG) < 0)
		goto fail;
	n = usrsctp_getladdrs(so, 0, &addrs);
	if (n < 1 || addrs->sa_family != AF_INET) {
		if (n > 0)
			usrsctp_freeladdrs(addrs);
		errno = EADDRNOTAVAIL;
		goto fail;
	}
	*port = ntohs(((struct sockaddr_in *)addrs)->sin_port);
	usrsctp_freeladdrs(addrs);
	return so;
fail:
	n = errno;
	usrsctp_close(so);
	errno = n;
	return NULL;
}

/* The local or the peer's SCTP port of a socket, 0 if unknown. */
uint16_t sraw_port(struct socket *so, bool peer)
{
	struct sockaddr *addrs = NULL;
	uint16_t port = 0;
	int n;

	n = peer ? usrsctp_getpaddrs(so, 0, &addrs) :
		   usrsctp_getladdrs(so, 0, &addrs);
	if (n < 1)
		return 0;
	if (addrs->sa_family == AF_INET)
		port = ntohs(((struct sockaddr_in *)addrs)->sin_port);
	if (peer)
		usrsctp_freepaddrs(addrs);
	else
		usrsctp_freeladdrs(addrs);
	return port;
}

/* The next association of a listening socket (non-blocking), or NULL. */
struct socket *sraw_accept(struct socket *l)
{
	struct socket *so;

	IF_KERNEL(return SO(ksraw_accept(KS(l))));
	so = usrsctp_accept(l, NULL, NULL);
	if (!so)
		return NULL;
	if (usrsctp_set_non_blocking(so, 1) < 0 ||
	    usrsctp_set_upcall(so, sraw_upcall, NULL) < 0) {
		int e = errno;

		usrsctp_close(so);
		errno = e;
		return NULL;
	}
	return so;
}

/*
 * Start an association to 127.0.0.1:sctp_port of the stack on UDP
 * udp_port (RFC 6951 §5.1: the peer's encapsulation port first).
 */
int sraw_connect(struct socket *so, uint16_t udp_port, uint16_t sctp_port)
{
	struct sctp_udpencaps ue;
	struct sockaddr_in sin;
	IF_KERNEL(return ksraw_connect(KS(so), sctp_port));

	memset(&ue, 0, sizeof(ue));
	ue.sue_assoc_id = SCTP_FUTURE_ASSOC;
	ue.sue_port = htons(udp_port);
	if (usrsctp_setsockopt(so, IPPROTO_SCTP, SCTP_REMOTE_UDP_ENCAPS_PORT,
			       &ue, sizeof(ue)) < 0)
		return -1;
	bench_sin_loopback(&sin, sctp_port);
	if (usrsctp_connect(so, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
	    errno != EINPROGRESS)
		return -1;
	return 0;
}

/*
 * Where the association of a socket is: 1 up (COMM_UP, RFC 4960
 * ESTABLISHED), 0 being set up (COOKIE-WAIT, COOKIE-ECHOED), -1 gone
 * (refused or aborted, shutting down or closed; usrsctp then reports no
 * association at all) or never started.
 */
int sraw_state(struct socket *so)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st, &len) < 0)
		return -1;
	if (st.sstat_state == SCTP_ESTABLISHED)
		return 1;
	if (st.sstat_state == SCTP_COOKIE_WAIT ||
	    st.sstat_state == SCTP_COOKIE_ECHOED)
		return 0;
	return -1;
}

/* True once the association of a socket is up (COMM_UP, RFC 4960
 * ESTABLISHED). */
bool sraw_connected(struct socket *so)
{
	IF_KERNEL(return ksraw_connected(KS(so)));
	return sraw_state(so) > 0;
}

/* Wait for the next upcall, at most ms; 1 when one came, 0 if not. */
int sraw_wait(unsigned int ms)
{
	struct pollfd p = { .fd = sraw.wake_fd, .events = POLLIN };
	uint64_t v;
	int k;

	/* the kernel's sockets are polled by the callers themselves */
	if (sraw.kernel) {
		(void)poll(NULL, 0, ms < 1 ? (int)ms : 1);
		return 1;
	}
	do
		k = poll(&p, 1, (int)ms);
	while (k < 0 && errno == EINTR);
	if (k <= 0)
		return 0;
	if (read(sraw.wake_fd, &v, sizeof(v)) < 0) {
		/* drained by a racing reader: nothing to do */
	}
	return 1;
}

/*
 * The largest message that goes out in one packet, as iwcmd computes
 * its DDP segment size (RFC 5043 §9): SCTP_MAXSEG, or the path MTU less
 * the IPv4, UDP (RFC 6951), SCTP common and DATA chunk headers.
 */
size_t sraw_maxseg(struct socket *so)
{
	struct sctp_assoc_value av;
	struct sctp_paddrparams pp;
	socklen_t avlen = sizeof(av), pplen = sizeof(pp);
	const size_t hdr = 20 + 8 + 12 + 16;
	size_t seg = 0;

	IF_KERNEL(return ksraw_maxseg(KS(so)));
	memset(&av, 0, sizeof(av));
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_MAXSEG, &av, &avlen) ==
		    0 &&
	    av.assoc_value > 0)
		seg = av.assoc_value;
	memset(&pp, 0, sizeof(pp));
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_PEER_ADDR_PARAMS, &pp,
			       &pplen) == 0 &&
	    pp.spp_pathmtu > hdr && (seg == 0 || pp.spp_pathmtu - hdr < seg))
		seg = pp.spp_pathmtu - hdr;
	return sraw_seg_floor(seg);
}

/*
 * Send one message of len octets, unordered with the DDP Segment PPID
 * (RFC 5043 §5), waiting while the stack has no room; -1 with errno
 * (ETIMEDOUT after ms without room).
 */
int sraw_send(struct socket *so, const void *p, size_t len, unsigned int ms)
{
	struct sctp_sndinfo si;

	IF_KERNEL(return ksraw_send(KS(so), p, len, ms));
	memset(&si, 0, sizeof(si));
	si.snd_flags = SCTP_UNORDERED;
	si.snd_ppid = htonl(SRAW_PPID_DDP);
	for (;;) {
		if (usrsctp_sendv(so, p, len, NULL, 0, &si, sizeof(si),
				  SCTP_SENDV_SNDINFO, 0) >= 0)
			return 0;
		if (errno != EWOULDBLOCK && errno != EAGAIN)
			return -1;
		/* the upcall comes when the peer's SACK frees room */
		if (!sraw_wait(ms)) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/*
 * Receive one message into p (at most cap octets), waiting for it; its
 * length, or -1 with errno (ETIMEDOUT after ms without one, ECONNRESET
 * when the association ended, EMSGSIZE for a partial message).
 */
ssize_t sraw_recv(struct socket *so, void *p, size_t cap, unsigned int ms)
{
	struct sctp_rcvinfo ri;
	socklen_t rilen, fromlen;
	struct sockaddr_in from;
	unsigned int infotype;
	ssize_t n;
	int flags;

	IF_KERNEL(return ksraw_recv(KS(so), p, cap, ms));
	for (;;) {
		rilen = sizeof(ri);
		fromlen = sizeof(from);
		infotype = 0;
		flags = 0;
		n = usrsctp_recvv(so, p, cap, (struct sockaddr *)&from,
				  &fromlen, &ri, &rilen, &infotype, &flags);
		if (n > 0 && (flags & MSG_NOTIFICATION))
			continue;
		switch (sraw_rx_outcome(n, flags)) {
		case SRAW_RX_DONE:
			return n;
		case SRAW_RX_FAIL:
			return -1;
		case SRAW_RX_AGAIN:
			break;
		}
		if (usrsctp_get_events(so) & SCTP_EVENT_READ)
			continue;
		if (!sraw_wait(ms)) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/* Close a socket (SHUTDOWN, or ABORT when abort). */
void sraw_close(struct socket *so, bool abort)
{
	struct linger lg = { .l_onoff = 1, .l_linger = 0 };

	if (!so)
		return;
	IF_KERNEL(ksraw_close(KS(so), abort); return );
	if (abort)
		usrsctp_setsockopt(so, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	usrsctp_close(so);
}
