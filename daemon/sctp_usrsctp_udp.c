/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The UDP side of SCTP over UDP encapsulation (RFC 6951) for usrsctp run
 * without threads (docs/sctp.md): iwcmd's UDP socket(s) read in batches
 * (recvmmsg, UDP GRO) into usrsctp_conninput(), one SCTP packet (§5)
 * each; what usrsctp outputs sent in batches (sendmmsg, UDP GSO) before
 * the loop sleeps; usrsctp_handle_timers() on a libevent timer.  The
 * CRC32c (RFC 4960 §6.8) is ours, summed and checked with ISA-L.
 *
 * A peer is an AF_CONN address of usrsctp naming a slot of a bounded
 * table of UDP endpoints (RFC 6951 §5.1, with the local address they
 * reach).  A slot is reused only once no socket of iwcmd refers to it:
 * what usrsctp still sends there reaches the new peer, which drops it
 * (RFC 4960 §8.5), and a packet queued before carries its own addresses.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "crc32c.h"
#include "log.h"
#include "sctp_usrsctp_int.h"

#define US_PKT_MAX 65536     /* one UDP datagram, at most */
#define US_RX_BATCH 32	     /* datagrams per recvmmsg */
#define US_RX_ROUNDS 4	     /* recvmmsg per wakeup, then others run */
#define US_TX_BATCH 32	     /* packets per sendmmsg */
#define US_PEERS_MAX 4096    /* remote UDP endpoints known at once */
#define US_PEER_BUCKETS 1024 /* their hash */
#define US_TICK_MS 10	     /* usrsctp's timers, as its own thread ran them */
#define US_SCTP_HDR 12	     /* RFC 4960 §3.1 common header */
#define US_SCTP_CSUM 8	     /* its Checksum field */
/* The IP MTU a path is taken to have at most: Ethernet's (docs/sctp.md) */
#define US_IP_MTU_MAX 1500
#define US_CHUNK_HDR 4
/* UDP GSO: segments per send (the kernel's UDP_MAX_SEGMENTS, 64 before
 * Linux 6.7) and octets (one IPv6 UDP payload) */
#define US_GSO_MAX 64
#define US_GSO_BYTES 65000

struct us_peer {
	struct sockaddr_storage remote; /* address and UDP port */
	struct sockaddr_storage local;	/* the address it reaches, port 0 */
	uint32_t refs;			/* iwcmd's sockets on it */
	uint32_t next;			/* hash chain: slot + 1, 0 at the end */
	uint32_t next_free;		/* while free */
	uint64_t used_ms;
	unsigned int mtu;
	bool live;
	bool registered; /* its AF_CONN address, with usrsctp */
};

union us_ctl {
	struct cmsghdr align;
	/* IP_PKTINFO or IPV6_PKTINFO, and UDP_SEGMENT or UDP_GRO */
	char buf[CMSG_SPACE(sizeof(struct in6_pktinfo)) +
		 CMSG_SPACE(sizeof(int))];
};

static struct {
	int fd[2]; /* IPv4, IPv6 (-1: none) */
	struct event_base *base;
	void (*run)(void); /* after each call into usrsctp */
	struct event *ev[2];
	struct event *timer;
	struct event *kick;
	bool kicked;
	uint64_t last_ms;
	struct us_peer *peer;
	uint32_t n_peer;    /* slots allocated */
	uint32_t free_peer; /* first free slot + 1 */
	uint32_t bucket[US_PEER_BUCKETS];
	/* receive batch */
	uint8_t *rbuf;
	struct mmsghdr rmsg[US_RX_BATCH];
	struct iovec riov[US_RX_BATCH];
	struct sockaddr_storage rfrom[US_RX_BATCH];
	union us_ctl rctl[US_RX_BATCH];
	/* send batch */
	uint8_t *tbuf;
	struct mmsghdr tmsg[US_TX_BATCH];
	struct iovec tiov[US_TX_BATCH];
	struct sockaddr_storage tto[US_TX_BATCH];
	union us_ctl tctl[US_TX_BATCH];
	int tfd[US_TX_BATCH];
	unsigned int n_tx;
	/* what one sendmmsg sends: single packets and GSO runs of them */
	struct mmsghdr gmsg[US_TX_BATCH];
	union us_ctl gctl[US_TX_BATCH];
	unsigned int gcount[US_TX_BATCH];
	bool no_gso; /* the kernel refused UDP_SEGMENT */
	struct sctp_drops drops;
} udp = { .fd = { -1, -1 } };

static uint64_t us_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* ---- the peers ---- */

/* a and b (port 0 in local addresses) name the same UDP endpoint */
static bool us_ip_eq(const struct sockaddr_storage *a,
		     const struct sockaddr_storage *b)
{
	return sctp_addr_match(a, (const struct sockaddr *)b, sizeof(*b),
			       false);
}

static uint32_t us_hash(const struct sockaddr_storage *r)
{
	const uint8_t *p;
	size_t n, i;
	uint32_t h = 2166136261u; /* FNV-1a */

	h = (h ^ sctp_addr_port(r)) * 16777619u;
	if (r->ss_family == AF_INET) {
		p = (const uint8_t *)&((const struct sockaddr_in *)r)->sin_addr;
		n = 4;
	} else {
		p = (const uint8_t *)&((const struct sockaddr_in6 *)r)
			    ->sin6_addr;
		n = 16;
	}
	for (i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h % US_PEER_BUCKETS;
}

static void *us_key(uint32_t idx)
{
	return (void *)(uintptr_t)(idx + 1);
}

static struct us_peer *us_peer_of(void *key)
{
	uintptr_t idx = (uintptr_t)key;

	if (!idx || idx > udp.n_peer || !udp.peer[idx - 1].live)
		return NULL;
	return &udp.peer[idx - 1];
}

static int us_peer_find(const struct sockaddr_storage *remote,
			const struct sockaddr_storage *local)
{
	uint32_t i = udp.bucket[us_hash(remote)];

	while (i) {
		struct us_peer *p = &udp.peer[i - 1];

		if (us_ip_eq(&p->remote, remote) &&
		    (!local || us_ip_eq(&p->local, local)))
			return (int)i - 1;
		i = p->next;
	}
	return -1;
}

static void us_peer_unlink(uint32_t idx)
{
	uint32_t *pp = &udp.bucket[us_hash(&udp.peer[idx].remote)];

	while (*pp && *pp != idx + 1)
		pp = &udp.peer[*pp - 1].next;
	if (*pp)
		*pp = udp.peer[idx].next;
	udp.peer[idx].live = false;
	udp.peer[idx].next_free = udp.free_peer;
	udp.free_peer = idx + 1;
}

/* A free slot: a new one, or the unused one idle longest; -1 when every
 * one is in use by a socket. */
static int us_peer_slot(void)
{
	uint32_t i, n, old = UINT32_MAX;
	struct us_peer *t;

	if (!udp.free_peer && udp.n_peer < US_PEERS_MAX) {
		n = udp.n_peer ? udp.n_peer * 2 : 64;
		if (n > US_PEERS_MAX)
			n = US_PEERS_MAX;
		t = reallocarray(udp.peer, n, sizeof(*t));
		if (!t)
			return -1;
		memset(t + udp.n_peer, 0, (n - udp.n_peer) * sizeof(*t));
		for (i = udp.n_peer; i < n; i++)
			t[i].next_free = i + 1 < n ? i + 2 : 0;
		udp.peer = t;
		udp.free_peer = udp.n_peer + 1;
		udp.n_peer = n;
	}
	if (!udp.free_peer) {
		for (i = 0; i < udp.n_peer; i++)
			if (udp.peer[i].live && !udp.peer[i].refs &&
			    (old == UINT32_MAX ||
			     udp.peer[i].used_ms < udp.peer[old].used_ms))
				old = i;
		if (old == UINT32_MAX)
			return -1;
		us_peer_unlink(old);
	}
	i = udp.free_peer - 1;
	udp.free_peer = udp.peer[i].next_free;
	return (int)i;
}

/* The local address and the path MTU towards remote, as the kernel
 * routes a UDP datagram there. */
static void us_route(const struct sockaddr_storage *remote,
		     struct sockaddr_storage *local, unsigned int *mtu)
{
	socklen_t len = remote->ss_family == AF_INET6 ?
				sizeof(struct sockaddr_in6) :
				sizeof(struct sockaddr_in);
	int fd = socket(remote->ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int m = 0;
	socklen_t ml = sizeof(m);
	unsigned int hdr = remote->ss_family == AF_INET6 ? 40 + 8 : 20 + 8;

	*mtu = 1500 - hdr;
	if (fd < 0)
		return;
	if (connect(fd, (const struct sockaddr *)remote, len) == 0) {
		socklen_t ll = sizeof(*local);
		struct sockaddr_storage l;

		if (!local->ss_family &&
		    getsockname(fd, (struct sockaddr *)&l, &ll) == 0)
			*local = l;
		if (getsockopt(fd,
			       remote->ss_family == AF_INET6 ? IPPROTO_IPV6 :
							       IPPROTO_IP,
			       remote->ss_family == AF_INET6 ? IPV6_MTU :
							       IP_MTU,
			       &m, &ml) == 0 &&
		    (unsigned int)m > hdr + 512)
			*mtu = ((unsigned int)m < US_IP_MTU_MAX ?
					(unsigned int)m :
					US_IP_MTU_MAX) -
			       hdr;
	}
	close(fd);
	if (local->ss_family)
		sctp_addr_set_port(local, 0);
}

/* The slot of the peer remote reaching local (NULL: as routed), made
 * when there is none; -1 when the table is full. */
static int us_peer_take(const struct sockaddr_storage *remote,
			const struct sockaddr_storage *local)
{
	struct us_peer *p;
	uint32_t h;
	int i = us_peer_find(remote, local);

	if (i >= 0)
		return i;
	i = us_peer_slot();
	if (i < 0) {
		udp.drops.no_room++;
		return -1;
	}
	p = &udp.peer[i];
	memset(&p->local, 0, sizeof(p->local));
	p->remote = *remote;
	if (local)
		p->local = *local;
	us_route(remote, &p->local, &p->mtu);
	p->refs = 0;
	p->live = true;
	p->used_ms = us_now_ms();
	if (!p->registered) {
		/* usrsctp takes a packet only to an address of its own;
		 * never given back, as usrsctp's removal of an address is
		 * work for its iterator thread (docs/sctp.md) */
		usrsctp_register_address(us_key((uint32_t)i));
		p->registered = true;
	}
	h = us_hash(remote);
	p->next = udp.bucket[h];
	udp.bucket[h] = (uint32_t)i + 1;
	return i;
}

void *us_peer_get(const struct sockaddr *sa, uint16_t encap_port)
{
	struct sockaddr_storage r;
	int i;

	if ((sa->sa_family != AF_INET && sa->sa_family != AF_INET6) ||
	    udp.fd[sa->sa_family == AF_INET6] < 0) {
		errno = EAFNOSUPPORT;
		return NULL;
	}
	memset(&r, 0, sizeof(r));
	r.ss_family = sa->sa_family;
	memcpy(&r, sa, sctp_addr_set_port(&r, 0)); /* as long as sa */
	sctp_addr_set_port(&r, htons(encap_port));
	i = us_peer_take(&r, NULL);
	if (i < 0) {
		errno = ENOBUFS;
		return NULL;
	}
	udp.peer[i].refs++;
	return us_key((uint32_t)i);
}

bool us_peer_hold(void *peer)
{
	struct us_peer *p = us_peer_of(peer);

	if (!p)
		return false;
	p->refs++;
	return true;
}

void us_peer_put(void *peer)
{
	struct us_peer *p = us_peer_of(peer);

	if (p && p->refs)
		p->refs--;
}

int us_peer_addr(void *peer, bool local, uint16_t port,
		 struct sockaddr_storage *ss, socklen_t *len)
{
	struct us_peer *p = us_peer_of(peer);

	if (!p) {
		errno = ENOTCONN;
		return -1;
	}
	*ss = local ? p->local : p->remote;
	*len = sctp_addr_set_port(ss, port);
	return 0;
}

unsigned int us_peer_mtu(void *peer)
{
	struct us_peer *p = us_peer_of(peer);

	return p ? p->mtu : 1200;
}

/* ---- the CRC32c (RFC 4960 §6.8, Appendix B) ---- */

/*
 * The CRC32c of an SCTP packet: over the whole packet with its Checksum
 * field zero, stored least significant octet first (the reflected
 * CRC's byte order, RFC 4960 Appendix B, as usrsctp and Linux store
 * it).  buf is ours to write: the field is zeroed for the sum.
 */
static uint32_t us_crc_of(uint8_t *buf, size_t len)
{
	memset(buf + US_SCTP_CSUM, 0, 4);
	return crc32c(buf, len);
}

/* Whether buf is an SCTP packet whose CRC32c is right (RFC 4960 §6.8);
 * the field is left as it came. */
static bool us_crc_ok(uint8_t *buf, size_t len)
{
	uint8_t sum[4];
	uint32_t crc;

	memcpy(sum, buf + US_SCTP_CSUM, 4);
	crc = us_crc_of(buf, len);
	memcpy(buf + US_SCTP_CSUM, sum, 4);
	return crc == crc32c_get_wire(sum);
}

/* ---- output ---- */

/* A control message of level and type with len octets of data, after
 * those mh has. */
static void us_cmsg_add(struct msghdr *mh, int level, int type,
			const void *data, size_t len)
{
	struct cmsghdr *cm = (struct cmsghdr *)((uint8_t *)mh->msg_control +
						mh->msg_controllen);

	cm->cmsg_level = level;
	cm->cmsg_type = type;
	cm->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(cm), data, len);
	mh->msg_controllen += CMSG_SPACE(len);
}

/*
 * How many packets from i on go as one UDP GSO send: the same
 * destination and source address (the same socket), each as long as
 * the first but the last, which may be shorter.
 */
static unsigned int us_gso_run(unsigned int i)
{
	size_t seg = udp.tiov[i].iov_len, total = seg;
	unsigned int j = i + 1;

	if (udp.no_gso)
		return 1;
	while (j < udp.n_tx && j - i < US_GSO_MAX &&
	       us_ip_eq(&udp.tto[j], &udp.tto[i]) &&
	       udp.tmsg[j].msg_hdr.msg_controllen ==
		       udp.tmsg[i].msg_hdr.msg_controllen &&
	       !memcmp(udp.tctl[j].buf, udp.tctl[i].buf,
		       udp.tmsg[i].msg_hdr.msg_controllen) &&
	       udp.tiov[j].iov_len <= seg &&
	       total + udp.tiov[j].iov_len <= US_GSO_BYTES) {
		total += udp.tiov[j].iov_len;
		if (udp.tiov[j++].iov_len < seg)
			break; /* a shorter one ends the run */
	}
	return j - i;
}

/* Entry e of the send batch: packets i..i+n-1, as one GSO send when
 * n > 1 (the source address's cmsg, then UDP_SEGMENT). */
static void us_gso_entry(unsigned int e, unsigned int i, unsigned int n)
{
	struct msghdr *mh = &udp.gmsg[e].msg_hdr;
	const struct msghdr *one = &udp.tmsg[i].msg_hdr;
	uint16_t seg = (uint16_t)udp.tiov[i].iov_len;

	udp.gcount[e] = n;
	*mh = *one;
	if (n == 1)
		return;
	mh->msg_iov = &udp.tiov[i];
	mh->msg_iovlen = n;
	mh->msg_control = udp.gctl[e].buf;
	if (one->msg_controllen)
		memcpy(udp.gctl[e].buf, one->msg_control, one->msg_controllen);
	us_cmsg_add(mh, SOL_UDP, UDP_SEGMENT, &seg, sizeof(seg));
}

void us_udp_flush(void)
{
	unsigned int i = 0, k, e, j;
	int n, fd;

	while (i < udp.n_tx) {
		/* one sendmmsg per run of packets on one socket */
		fd = udp.tfd[i];
		for (e = 0, k = i; k < udp.n_tx && udp.tfd[k] == fd; e++) {
			us_gso_entry(e, k, us_gso_run(k));
			k += udp.gcount[e];
		}
		n = sendmmsg(fd, udp.gmsg, e, MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && udp.gcount[0] > 1 &&
		    (errno == EIO || errno == EINVAL || errno == ENOPROTOOPT ||
		     errno == EOPNOTSUPP)) {
			/* no UDP GSO here (a device without checksum
			 * offload, an old kernel): one datagram each */
			log_info("sctp: UDP GSO refused (%s); sending "
				 "datagrams one by one",
				 strerror(errno));
			udp.no_gso = true;
			continue;
		}
		if (n < 0) {
			/* the first one fails (ICMP unreachable, EAGAIN):
			 * lost, as on the wire; SCTP retransmits */
			udp.drops.send_failed += udp.gcount[0];
			i += udp.gcount[0];
			continue;
		}
		for (j = 0; j < (unsigned int)n; j++)
			i += udp.gcount[j];
	}
	udp.n_tx = 0;
}

int us_conn_output(void *addr, void *buf, size_t len, uint8_t tos,
		   uint8_t set_df)
{
	struct us_peer *p = us_peer_of(addr);
	unsigned int i;
	struct msghdr *mh;
	uint8_t *pkt;

	(void)tos;
	(void)set_df;
	if (!p || len > US_PKT_MAX) {
		udp.drops.send_failed++;
		return 0; /* lost, as on the wire */
	}
	if (udp.n_tx == US_TX_BATCH)
		us_udp_flush();
	i = udp.n_tx++;
	pkt = udp.tbuf + (size_t)i * US_PKT_MAX;
	memcpy(pkt, buf, len);
	/* offloaded: usrsctp left the field zero */
	if (len >= US_SCTP_HDR)
		crc32c_put_wire(us_crc_of(pkt, len), pkt + US_SCTP_CSUM);
	udp.tiov[i].iov_base = pkt;
	udp.tiov[i].iov_len = len;
	udp.tto[i] = p->remote;
	udp.tfd[i] = udp.fd[p->remote.ss_family == AF_INET6];
	mh = &udp.tmsg[i].msg_hdr;
	memset(mh, 0, sizeof(*mh));
	memset(&udp.tctl[i], 0, sizeof(udp.tctl[i])); /* compared whole */
	mh->msg_name = &udp.tto[i];
	mh->msg_namelen = p->remote.ss_family == AF_INET6 ?
				  sizeof(struct sockaddr_in6) :
				  sizeof(struct sockaddr_in);
	mh->msg_iov = &udp.tiov[i];
	mh->msg_iovlen = 1;
	/* from the address the peer reached (or that routes to it) */
	mh->msg_control = udp.tctl[i].buf;
	if (p->local.ss_family == AF_INET) {
		struct in_pktinfo pi = {
			.ipi_spec_dst =
				((struct sockaddr_in *)&p->local)->sin_addr
		};

		us_cmsg_add(mh, IPPROTO_IP, IP_PKTINFO, &pi, sizeof(pi));
	} else if (p->local.ss_family == AF_INET6) {
		struct in6_pktinfo pi = {
			.ipi6_addr =
				((struct sockaddr_in6 *)&p->local)->sin6_addr
		};

		us_cmsg_add(mh, IPPROTO_IPV6, IPV6_PKTINFO, &pi, sizeof(pi));
	}
	us_kick();
	return 0;
}

/* ---- input ---- */

/* The address a datagram reached (IP_PKTINFO / IPV6_PKTINFO), and the
 * size of the datagrams UDP GRO joined into it (0: one datagram). */
static size_t us_dst_of(struct msghdr *mh, int family,
			struct sockaddr_storage *dst)
{
	struct cmsghdr *cm;
	size_t gro = 0;

	memset(dst, 0, sizeof(*dst));
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO &&
		    cm->cmsg_len >= CMSG_LEN(sizeof(int))) {
			int g;

			memcpy(&g, CMSG_DATA(cm), sizeof(g));
			gro = g > 0 ? (size_t)g : 0;
		} else if (family == AF_INET && cm->cmsg_level == IPPROTO_IP &&
			   cm->cmsg_type == IP_PKTINFO) {
			struct in_pktinfo pi;
			struct sockaddr_in *s = (struct sockaddr_in *)dst;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			s->sin_family = AF_INET;
			s->sin_addr = pi.ipi_addr;
		} else if (family == AF_INET6 &&
			   cm->cmsg_level == IPPROTO_IPV6 &&
			   cm->cmsg_type == IPV6_PKTINFO) {
			struct in6_pktinfo pi;
			struct sockaddr_in6 *s = (struct sockaddr_in6 *)dst;

			memcpy(&pi, CMSG_DATA(cm), sizeof(pi));
			s->sin6_family = AF_INET6;
			s->sin6_addr = pi.ipi6_addr;
			if (IN6_IS_ADDR_LINKLOCAL(&pi.ipi6_addr))
				s->sin6_scope_id = pi.ipi6_ifindex;
		}
	}
	return gro;
}

/* One datagram from remote to dst: usrsctp's. */
static void us_input(uint8_t *buf, size_t len, struct sockaddr_storage *remote,
		     const struct sockaddr_storage *dst)
{
	int i;

	if (len < US_SCTP_HDR + US_CHUNK_HDR) {
		udp.drops.not_sctp++;
		return;
	}
	/* usrsctp checks no checksum (offloaded to us): every packet,
	 * and a slot only for SCTP with a right one */
	if (!us_crc_ok(buf, len)) {
		udp.drops.bad_crc++;
		return;
	}
	i = us_peer_find(remote, dst);
	if (i < 0) {
		i = us_peer_take(remote, dst);
		if (i < 0)
			return;
	}
	udp.peer[i].used_ms = us_now_ms();
	usrsctp_conninput(us_key((uint32_t)i), buf, len, 0);
}

static void us_udp_read(evutil_socket_t fd, short what, void *arg)
{
	int family = (int)(intptr_t)arg;
	int r, n, k;

	(void)what;
	for (r = 0; r < US_RX_ROUNDS; r++) {
		for (k = 0; k < US_RX_BATCH; k++) {
			struct msghdr *mh = &udp.rmsg[k].msg_hdr;

			udp.riov[k].iov_base =
				udp.rbuf + (size_t)k * US_PKT_MAX;
			udp.riov[k].iov_len = US_PKT_MAX;
			memset(mh, 0, sizeof(*mh));
			mh->msg_name = &udp.rfrom[k];
			mh->msg_namelen = sizeof(udp.rfrom[k]);
			mh->msg_iov = &udp.riov[k];
			mh->msg_iovlen = 1;
			mh->msg_control = udp.rctl[k].buf;
			mh->msg_controllen = sizeof(udp.rctl[k].buf);
		}
		n = recvmmsg(fd, udp.rmsg, US_RX_BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			break;
		for (k = 0; k < n; k++) {
			struct sockaddr_storage dst;
			struct msghdr *mh = &udp.rmsg[k].msg_hdr;
			uint8_t *p = udp.riov[k].iov_base;
			size_t len = udp.rmsg[k].msg_len, seg;

			if ((mh->msg_flags & MSG_TRUNC) ||
			    udp.rfrom[k].ss_family != family) {
				udp.drops.not_sctp++;
				continue;
			}
			/* UDP GRO: datagrams of seg octets, the last one
			 * maybe shorter, each an SCTP packet */
			seg = us_dst_of(mh, family, &dst);
			if (!seg || seg > len)
				seg = len;
			do {
				size_t one = len < seg ? len : seg;

				us_input(p, one, &udp.rfrom[k], &dst);
				p += one;
				len -= one;
			} while (len);
		}
		udp.run();
		if (n < US_RX_BATCH)
			break;
	}
}

/* ---- timers and the end of a turn ---- */

static void us_tick(evutil_socket_t fd, short what, void *arg)
{
	uint64_t now = us_now_ms();

	(void)fd;
	(void)what;
	(void)arg;
	if (now > udp.last_ms) {
		usrsctp_handle_timers((uint32_t)(now - udp.last_ms));
		udp.last_ms = now;
	}
	udp.run();
}

static void us_kicked(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	(void)arg;
	udp.kicked = false;
	udp.run();
}

void us_kick(void)
{
	if (udp.kicked || !udp.kick)
		return;
	udp.kicked = true;
	event_active(udp.kick, EV_TIMEOUT, 0);
}

/* ---- setup ---- */

static int us_udp_open(int family, uint16_t *port, char *err, size_t errlen)
{
	struct sockaddr_storage ss;
	socklen_t len;
	const int on = 1, buf = 4 << 20;
	int fd, i = family == AF_INET6;

	fd = socket(family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		if (family == AF_INET6)
			return 0; /* a host without IPv6 */
		snprintf(err, errlen, "sctp: UDP socket: %s", strerror(errno));
		return -1;
	}
	memset(&ss, 0, sizeof(ss));
	ss.ss_family = (sa_family_t)family;
	len = sctp_addr_set_port(&ss, htons(*port));
	if (family == AF_INET) {
		(void)setsockopt(fd, IPPROTO_IP, IP_PKTINFO, &on, sizeof(on));
	} else {
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on,
				 sizeof(on));
		(void)setsockopt(fd, IPPROTO_IPV6, IPV6_RECVPKTINFO, &on,
				 sizeof(on));
	}
	/* datagrams of one flow joined (us_udp_read() cuts them again);
	 * a kernel without UDP GRO hands them one by one */
	(void)setsockopt(fd, SOL_UDP, UDP_GRO, &on, sizeof(on));
	/* past net.core.rmem_max where iwcmd may (CAP_NET_ADMIN) */
	if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &buf, sizeof(buf)) < 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(fd, (struct sockaddr *)&ss, len) < 0) {
		int e = errno;

		close(fd);
		if (family == AF_INET6 && e == EADDRNOTAVAIL)
			return 0;
		snprintf(err, errlen,
			 "sctp_udp_port %u: %s (is another iwcmd or SCTP "
			 "stack using it?)",
			 *port, strerror(e));
		errno = e;
		return -1;
	}
	if (!*port && getsockname(fd, (struct sockaddr *)&ss, &len) == 0)
		*port = ntohs(sctp_addr_port(&ss));
	udp.fd[i] = fd;
	udp.ev[i] = event_new(udp.base, fd, EV_READ | EV_PERSIST, us_udp_read,
			      (void *)(intptr_t)family);
	if (!udp.ev[i] || event_add(udp.ev[i], NULL) < 0) {
		snprintf(err, errlen, "sctp: cannot watch the UDP socket");
		return -1;
	}
	return 0;
}

int us_udp_init(struct event_base *base, uint16_t *port_io, bool gso,
		void (*run)(void), char *err, size_t errlen)
{
	struct timeval tv = { 0, US_TICK_MS * 1000 };
	uint16_t port = *port_io;

	udp.base = base;
	udp.run = run;
	udp.no_gso = !gso;
	memset(udp.bucket, 0, sizeof(udp.bucket));
	memset(&udp.drops, 0, sizeof(udp.drops));
	udp.rbuf = malloc((size_t)US_RX_BATCH * US_PKT_MAX);
	udp.tbuf = malloc((size_t)US_TX_BATCH * US_PKT_MAX);
	udp.timer = event_new(udp.base, -1, EV_PERSIST, us_tick, NULL);
	udp.kick = event_new(udp.base, -1, 0, us_kicked, NULL);
	if (!udp.rbuf || !udp.tbuf || !udp.timer || !udp.kick) {
		snprintf(err, errlen, "sctp: %s", strerror(ENOMEM));
		goto fail;
	}
	if (us_udp_open(AF_INET, &port, err, errlen) < 0 ||
	    us_udp_open(AF_INET6, &port, err, errlen) < 0)
		goto fail;
	*port_io = port;
	udp.last_ms = us_now_ms();
	if (event_add(udp.timer, &tv) < 0) {
		snprintf(err, errlen, "sctp: cannot arm the timer");
		goto fail;
	}
	return 0;
fail:
	us_udp_fini();
	return -1;
}

void us_udp_fini(void)
{
	int i;

	us_udp_flush();
	for (i = 0; i < 2; i++) {
		if (udp.ev[i])
			event_free(udp.ev[i]);
		udp.ev[i] = NULL;
		if (udp.fd[i] >= 0)
			close(udp.fd[i]);
		udp.fd[i] = -1;
	}
	if (udp.timer)
		event_free(udp.timer);
	if (udp.kick)
		event_free(udp.kick);
	udp.timer = udp.kick = NULL;
	udp.kicked = false;
	free(udp.rbuf);
	free(udp.tbuf);
	udp.rbuf = udp.tbuf = NULL;
	free(udp.peer);
	udp.peer = NULL;
	udp.n_peer = udp.free_peer = 0;
	udp.n_tx = 0;
}

void us_udp_drops(struct sctp_drops *d)
{
	struct sctpstat st;

	*d = udp.drops;
	memset(&st, 0, sizeof(st));
	usrsctp_get_stat(&st);
	/* usrsctp's own count for known peers (RFC 4960 §8.5); it checks
	 * no CRC32c (us_input() does), its sctps_badsum stays 0 */
	d->bad_vtag += st.sctps_badvtag;
	d->not_sctp += st.sctps_hdrops;
}
