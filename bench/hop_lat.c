/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * hop_lat [-n ITERS] [-s SIZE]: the cost of one relay hop, the floor
 * under iwcm's SCTP latency on usrsctp.  There iwcmd runs the stack
 * and each DDP message crosses a SOCK_SEQPACKET socket between the
 * client and its iwcmd once on each host: the sender's client hands it
 * to its iwcmd, which sleeps in its loop (a wake-up), and the
 * receiver's iwcmd hands it to its client, which busy-polls in
 * iwcm-bench's latency rows (no wake-up).  A program on raw usrsctp
 * crosses neither.
 *
 * Two processes ping-pong SIZE octets (default 8) over a SOCK_SEQPACKET
 * socket pair, ITERS times (default 20000) after a tenth as many warm-up
 * rounds, twice: once each side sleeps in poll(2) until the message
 * comes ("wake"), once each side spins on a non-blocking recv(2)
 * ("spin").  It prints the median half round trip of each in
 * microseconds, one "name value" a line:
 *
 *   hop_wake_us 6.12
 *   hop_spin_us 2.05
 *
 * so that bench/sctp_netns.sh can show, in the same run, the floor
 * raw + hop_wake_us + hop_spin_us beside raw usrsctp.  Exit 2 on a
 * usage error, 1 when the sockets fail.
 */
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define HOP_SIZE_MAX 65536
#define HOP_ITERS_MAX 10000000UL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* One message of len octets into buf: sleeping in poll(2), or
 * spinning on recv(2); -1 when the peer is gone or the socket fails. */
static int hop_recv(int fd, void *buf, size_t len, int spin)
{
	for (;;) {
		ssize_t k = recv(fd, buf, len, MSG_DONTWAIT);
		struct pollfd p = { .fd = fd, .events = POLLIN };

		if (k == (ssize_t)len)
			return 0;
		if (k >= 0 || (errno != EAGAIN && errno != EINTR))
			return -1;
		if (!spin && poll(&p, 1, -1) < 0 && errno != EINTR)
			return -1;
	}
}

static int hop_send(int fd, const void *buf, size_t len)
{
	ssize_t k;

	do
		k = send(fd, buf, len, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	return k == (ssize_t)len ? 0 : -1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* One ping-pong of iters rounds; the median half round trip in ns, or
 * 0 when it failed. */
static uint64_t hop_run(unsigned long iters, size_t size, int spin)
{
	unsigned long warm = iters / 10, i;
	uint64_t *lat, t0, med = 0;
	char *buf;
	int sv[2], st;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("hop_lat: socketpair");
		return 0;
	}
	buf = calloc(1, size);
	lat = calloc(iters, sizeof(*lat));
	if (!buf || !lat) {
		fprintf(stderr, "hop_lat: out of memory\n");
		goto out;
	}
	pid = fork();
	if (pid < 0) {
		perror("hop_lat: fork");
		goto out;
	}
	if (pid == 0) {
		close(sv[0]);
		for (i = 0; i < warm + iters; i++)
			if (hop_recv(sv[1], buf, size, spin) < 0 ||
			    hop_send(sv[1], buf, size) < 0)
				_exit(1);
		_exit(0);
	}
	close(sv[1]);
	sv[1] = -1;
	for (i = 0; i < warm + iters; i++) {
		t0 = now_ns();
		if (hop_send(sv[0], buf, size) < 0 ||
		    hop_recv(sv[0], buf, size, spin) < 0) {
			fprintf(stderr, "hop_lat: round %lu failed: %s\n", i,
				strerror(errno));
			break;
		}
		if (i >= warm)
			lat[i - warm] = (now_ns() - t0) / 2;
	}
	close(sv[0]);
	sv[0] = -1;
	if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 0 && i == warm + iters) {
		qsort(lat, iters, sizeof(*lat), cmp_u64);
		med = lat[iters / 2];
		if (!med)
			med = 1; /* below the clock's grain, not a failure */
	}
out:
	if (sv[0] >= 0)
		close(sv[0]);
	if (sv[1] >= 0)
		close(sv[1]);
	free(buf);
	free(lat);
	return med;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: hop_lat [-n ITERS (1 to %lu)] "
		"[-s SIZE (1 to %d)]\n",
		HOP_ITERS_MAX, HOP_SIZE_MAX);
	return 2;
}

int main(int argc, char **argv)
{
	unsigned long iters = 20000, size = 8;
	uint64_t wake, spin;
	char *end;
	int opt;

	while ((opt = getopt(argc, argv, "n:s:")) != -1) {
		switch (opt) {
		case 'n':
			errno = 0;
			iters = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' ||
			    !iters || iters > HOP_ITERS_MAX)
				return usage();
			break;
		case 's':
			errno = 0;
			size = strtoul(optarg, &end, 10);
			if (errno || *end || !*optarg || optarg[0] == '-' ||
			    !size || size > HOP_SIZE_MAX)
				return usage();
			break;
		default:
			return usage();
		}
	}
	if (optind != argc)
		return usage();
	wake = hop_run(iters, size, 0);
	spin = wake ? hop_run(iters, size, 1) : 0;
	if (!wake || !spin)
		return 1;
	printf("hop_wake_us %.2f\nhop_spin_us %.2f\n", wake / 1000.0,
	       spin / 1000.0);
	return 0;
}
