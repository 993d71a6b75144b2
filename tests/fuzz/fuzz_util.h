/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_FUZZ_UTIL_H
#define IWCM_FUZZ_UTIL_H

/*
 * What the daemon harnesses (fuzz_ipc_*, fuzz_engine_*) share: a reader
 * over the input, a private network namespace where the process may make
 * one (so that the sockets the input asks for never touch the host's
 * ports or network), and the descriptor-leak check run after each input.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* A broken invariant: say which and abort, so that libFuzzer keeps it. */
#define FZ_CHECK(c)                                                     \
	do {                                                            \
		if (!(c)) {                                             \
			fprintf(stderr,                                 \
				"%s:%d: check failed: %s (errno %d)\n", \
				__FILE__, __LINE__, #c, errno);         \
			abort();                                        \
		}                                                       \
	} while (0)

/* Descriptors checked for leaks: [0, FZ_FD_SPAN). */
#define FZ_FD_SPAN 256

struct fz_in {
	const uint8_t *p;
	size_t n;
};

static inline bool fz_more(const struct fz_in *in)
{
	return in->n > 0;
}

static inline uint8_t fz_u8(struct fz_in *in)
{
	uint8_t v;

	if (!in->n)
		return 0;
	v = *in->p++;
	in->n--;
	return v;
}

static inline uint16_t fz_u16(struct fz_in *in)
{
	uint16_t hi = fz_u8(in);

	return (uint16_t)(hi << 8 | fz_u8(in));
}

/* Up to want octets of the input (fewer at its end); *got says how many. */
static inline const uint8_t *fz_bytes(struct fz_in *in, size_t want,
				      size_t *got)
{
	const uint8_t *p = in->p;

	if (want > in->n)
		want = in->n;
	in->p += want;
	in->n -= want;
	*got = want;
	return p;
}

/*
 * connect(), carried to its end when a signal interrupts the wait:
 * libFuzzer's timer (SIGALRM) has no SA_RESTART, and connect(2) then
 * fails with EINTR while the connection goes on in the background.
 * 0, or -1 with errno.
 */
static inline int fz_connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	struct pollfd p = { fd, POLLOUT, 0 };
	socklen_t el = sizeof(int);
	int err = 0;

	if (connect(fd, sa, len) == 0)
		return 0;
	if (errno != EINTR)
		return -1;
	while (poll(&p, 1, -1) < 0)
		if (errno != EINTR)
			return -1;
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
		return -1;
	errno = err;
	return err ? -1 : 0;
}

static inline void fz_sysctl(const char *path, const char *value)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, value, strlen(value)) < 0)
		fprintf(stderr, "%s: cannot set\n", path);
	close(fd);
}

/*
 * A network namespace of our own with only the loopback up, when the
 * process may unshare one (root, or user namespaces; true then);
 * otherwise the host's.
 */
static inline bool fz_netns(void)
{
	struct ifreq ifr;
	int s;

	if (unshare(CLONE_NEWNET) < 0)
		return false;
	s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return true;
	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == 0) {
		ifr.ifr_flags |= IFF_UP;
		ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	close(s);
	/*
	 * Our namespace only: a connection per input would leave tens of
	 * thousands in TIME_WAIT and run out of ports; keep none.
	 */
	fz_sysctl("/proc/sys/net/ipv4/tcp_max_tw_buckets", "0\n");
	fz_sysctl("/proc/sys/net/ipv4/ip_local_port_range", "1024 65000\n");
	return true;
}

/*
 * In our own namespace: every address of family (AF_INET, AF_INET6) is
 * local, as 127.0.0.0/8 is (a "local" route of prefix 0 on lo, RFC 1122
 * §3.2.1.3 aside).  A connection the input aims anywhere then meets this
 * process's own stacks and is answered at once (an SCTP INIT with an
 * ABORT, a TCP SYN with a RST) instead of going nowhere until its setup
 * times out.  Nothing when it cannot be added.
 */
static inline void fz_netns_all_local(int family)
{
	struct {
		struct nlmsghdr nh;
		struct rtmsg rt;
		char attrs[64];
	} req;
	struct rtattr *a;
	int s, oif = (int)if_nametoindex("lo");
	uint8_t any[16] = { 0 };

	s = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (s < 0 || oif <= 0) {
		if (s >= 0)
			close(s);
		return;
	}
	memset(&req, 0, sizeof(req));
	req.nh.nlmsg_len = NLMSG_LENGTH(sizeof(req.rt));
	req.nh.nlmsg_type = RTM_NEWROUTE;
	req.nh.nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_EXCL;
	req.rt.rtm_family = (unsigned char)family;
	req.rt.rtm_dst_len = 0;
	req.rt.rtm_table = RT_TABLE_LOCAL;
	req.rt.rtm_protocol = RTPROT_BOOT;
	req.rt.rtm_scope = RT_SCOPE_HOST;
	req.rt.rtm_type = RTN_LOCAL;
	a = (struct rtattr *)((char *)&req + NLMSG_ALIGN(req.nh.nlmsg_len));
	a->rta_type = RTA_DST;
	a->rta_len = RTA_LENGTH(family == AF_INET ? 4 : 16);
	memcpy(RTA_DATA(a), any, family == AF_INET ? 4 : 16);
	req.nh.nlmsg_len =
		NLMSG_ALIGN(req.nh.nlmsg_len) + RTA_ALIGN(a->rta_len);
	a = (struct rtattr *)((char *)&req + req.nh.nlmsg_len);
	a->rta_type = RTA_OIF;
	a->rta_len = RTA_LENGTH(sizeof(int));
	memcpy(RTA_DATA(a), &oif, sizeof(int));
	req.nh.nlmsg_len += RTA_ALIGN(a->rta_len);
	if (send(s, &req, req.nh.nlmsg_len, 0) < 0)
		fprintf(stderr, "fuzz: all-local route: %s\n", strerror(errno));
	close(s);
}

/*
 * Which descriptors are open now, at the start of an input (libFuzzer
 * itself opens some between inputs: the symbolizer's pipes).
 */
struct fz_fds {
	bool open[FZ_FD_SPAN];
};

/* Which of [0, FZ_FD_SPAN) are open, in one system call: poll() marks
 * a closed descriptor POLLNVAL (an fcntl() each would be 256 a run). */
static inline void fz_fd_scan(bool open[FZ_FD_SPAN])
{
	struct pollfd p[FZ_FD_SPAN];
	int fd;

	for (fd = 0; fd < FZ_FD_SPAN; fd++) {
		p[fd].fd = fd;
		p[fd].events = 0;
		p[fd].revents = 0;
	}
	if (poll(p, FZ_FD_SPAN, 0) < 0) {
		perror("poll");
		abort();
	}
	for (fd = 0; fd < FZ_FD_SPAN; fd++)
		open[fd] = !(p[fd].revents & POLLNVAL);
}

static inline void fz_fd_snapshot(struct fz_fds *f)
{
	fz_fd_scan(f->open);
}

/* No descriptor is open that was not open at the snapshot. */
static inline void fz_fd_check(const struct fz_fds *f)
{
	char path[64], what[256];
	bool now[FZ_FD_SPAN];
	ssize_t n;
	int fd;

	fz_fd_scan(now);
	for (fd = 0; fd < FZ_FD_SPAN; fd++) {
		if (f->open[fd] || !now[fd])
			continue;
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		n = readlink(path, what, sizeof(what) - 1);
		what[n > 0 ? n : 0] = '\0';
		fprintf(stderr, "descriptor %d leaked (%s)\n", fd, what);
		abort();
	}
}

#endif
