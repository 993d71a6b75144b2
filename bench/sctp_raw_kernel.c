/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Raw kernel SCTP for the baselines of iwcm-bench --sctp-stack kernel:
 * what a program that uses the kernel's SCTP itself, without iwcm, runs
 * (sctp_raw.c turns to it once sraw_kernel() said so).  One-to-one
 * sockets (RFC 6458 §4) with the options iwcmd's associations carry:
 * the DDP Adaptation Layer Indication (RFC 5043 §5.1), as many inbound
 * as outbound streams (§8), no fragmentation (§9), no Nagle; plain SCTP
 * on loopback (no UDP encapsulation), as the benchmark's iwcmd runs it;
 * every message unordered with PPID 16 (§5.2).  Non-blocking, waited
 * for with poll(2).
 */
#include "config.h"

#ifdef HAVE_KERNEL_SCTP
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdint.h> /* before <linux/sctp.h>, which uses it */
#include <linux/sctp.h>

#include "sctp_raw_kernel.h"
#include "sctp_raw_msg.h"

struct ksraw {
	int fd;
};

/* Whether this host has SCTP; -1 with errno when not. */
int ksraw_start(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static struct ksraw *ksraw_wrap(int fd)
{
	struct ksraw *k = malloc(sizeof(*k));

	if (!k) {
		close(fd);
		return NULL;
	}
	k->fd = fd;
	return k;
}

/* A socket with the options of iwcmd's associations. */
struct ksraw *ksraw_socket(uint16_t streams)
{
	struct sctp_setadaptation ad = { .ssb_adaptation_ind =
						 SRAW_ADAPT_IND_DDP };
	struct sctp_initmsg init;
	const int on = 1;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			IPPROTO_SCTP);

	if (fd < 0)
		return NULL;
	memset(&init, 0, sizeof(init));
	init.sinit_num_ostreams = streams;
	init.sinit_max_instreams = streams;
	if (setsockopt(fd, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER, &ad,
		       sizeof(ad)) < 0 ||
	    setsockopt(fd, IPPROTO_SCTP, SCTP_INITMSG, &init, sizeof(init)) <
		    0 ||
	    setsockopt(fd, IPPROTO_SCTP, SCTP_DISABLE_FRAGMENTS, &on,
		       sizeof(on)) < 0 ||
	    setsockopt(fd, IPPROTO_SCTP, SCTP_NODELAY, &on, sizeof(on)) < 0) {
		close(fd);
		return NULL;
	}
	return ksraw_wrap(fd);
}

/* Listen on 127.0.0.1, a free port into *port. */
struct ksraw *ksraw_listen(uint16_t streams, uint16_t *port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	struct ksraw *k = ksraw_socket(streams);

	if (!k)
		return NULL;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(k->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(k->fd, 128) < 0 ||
	    getsockname(k->fd, (struct sockaddr *)&sin, &len) < 0) {
		ksraw_close(k, false);
		return NULL;
	}
	*port = ntohs(sin.sin_port);
	return k;
}

/* An association accepted, or NULL (EAGAIN: none yet). */
struct ksraw *ksraw_accept(struct ksraw *l)
{
	int fd = accept4(l->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	return fd < 0 ? NULL : ksraw_wrap(fd);
}

/* Start the association to 127.0.0.1:port. */
int ksraw_connect(struct ksraw *k, uint16_t port)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(k->fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 &&
	    errno != EINPROGRESS)
		return -1;
	return 0;
}

/* Whether the association is up. */
bool ksraw_connected(struct ksraw *k)
{
	struct pollfd p = { k->fd, POLLOUT, 0 };
	int err = 0;
	socklen_t len = sizeof(err);

	return poll(&p, 1, 0) == 1 && (p.revents & POLLOUT) &&
	       getsockopt(k->fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 &&
	       err == 0;
}

/* The largest message that goes unfragmented (RFC 5043 §9). */
size_t ksraw_maxseg(struct ksraw *k)
{
	struct sctp_assoc_value av;
	socklen_t len = sizeof(av);

	memset(&av, 0, sizeof(av));
	if (getsockopt(k->fd, IPPROTO_SCTP, SCTP_MAXSEG, &av, &len) < 0)
		av.assoc_value = 0;
	return sraw_seg_floor(av.assoc_value);
}

/* Wait up to ms for fd to be ready for ev; false when it did not. */
static bool ksraw_poll(int fd, short ev, unsigned int ms)
{
	struct pollfd p = { fd, ev, 0 };

	return poll(&p, 1, (int)ms) == 1;
}

/* One unordered message, PPID 16, waiting at most ms for room. */
int ksraw_send(struct ksraw *k, const void *p, size_t len, unsigned int ms)
{
	union {
		struct cmsghdr c;
		uint8_t b[CMSG_SPACE(sizeof(struct sctp_sndinfo))];
	} u;
	struct sctp_sndinfo si;
	struct iovec iov = { (void *)(uintptr_t)p, len };
	struct msghdr m;
	struct cmsghdr *c;

	memset(&u, 0, sizeof(u));
	memset(&si, 0, sizeof(si));
	si.snd_flags = SCTP_UNORDERED;
	si.snd_ppid = htonl(SRAW_PPID_DDP);
	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = u.b;
	m.msg_controllen = sizeof(u.b);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = IPPROTO_SCTP;
	c->cmsg_type = SCTP_SNDINFO;
	c->cmsg_len = CMSG_LEN(sizeof(si));
	memcpy(CMSG_DATA(c), &si, sizeof(si));
	for (;;) {
		if (sendmsg(k->fd, &m, MSG_NOSIGNAL) >= 0)
			return 0;
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (!ksraw_poll(k->fd, POLLOUT, ms)) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/* One message into p (cap octets), waiting at most ms for it. */
ssize_t ksraw_recv(struct ksraw *k, void *p, size_t cap, unsigned int ms)
{
	for (;;) {
		struct iovec iov = { p, cap };
		struct msghdr m;
		ssize_t n;

		memset(&m, 0, sizeof(m));
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		n = recvmsg(k->fd, &m, 0);
		switch (sraw_rx_outcome(n, m.msg_flags)) {
		case SRAW_RX_DONE:
			return n;
		case SRAW_RX_FAIL:
			return -1;
		case SRAW_RX_AGAIN:
			break;
		}
		if (!ksraw_poll(k->fd, POLLIN, ms)) {
			errno = ETIMEDOUT;
			return -1;
		}
	}
}

/* Close k (abort: zero linger, an ABORT). */
void ksraw_close(struct ksraw *k, bool abort)
{
	struct linger lg = { 1, 0 };

	if (!k)
		return;
	if (abort)
		(void)setsockopt(k->fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(k->fd);
	free(k);
}
#endif
