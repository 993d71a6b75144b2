/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What every test of iwcm-bench uses: the clock, CPU time, percentiles,
 * loopback TCP sockets and the host part of the JSON object.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"

/* ---- time, CPU, statistics ---- */

/* Nanoseconds of the monotonic clock. */
uint64_t bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* CPU time of a process (0: this one) in ns; 0 when it cannot be read. */
uint64_t bench_cpu_ns(pid_t pid)
{
	clockid_t clk = CLOCK_PROCESS_CPUTIME_ID;
	struct timespec ts;

	if (pid > 0 && clock_getcpuclockid(pid, &clk) != 0)
		return 0;
	if (clock_gettime(clk, &ts) != 0)
		return 0;
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* qsort(3) order of uint64_t values. */
int bench_cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of n sorted values. */
uint64_t bench_percentile(const uint64_t *v, size_t n, unsigned int pct)
{
	size_t rank;

	if (n == 0)
		return 0;
	rank = (n * pct + 99) / 100;
	if (rank == 0)
		rank = 1;
	return v[rank - 1];
}

/* Nanoseconds as microseconds. */
double bench_us(uint64_t ns)
{
	return (double)ns / 1000.0;
}

/* ---- loopback TCP ---- */

/* The server's address: 127.0.0.1, or --address between two hosts. */
static struct {
	struct in_addr a;
	char text[INET_ADDRSTRLEN];
} bench_addr = { { 0 }, "127.0.0.1" };

/* --address: the IPv4 address the server listens on; -1 if not one. */
int bench_set_address(const char *a)
{
	if (inet_pton(AF_INET, a, &bench_addr.a) != 1)
		return -1;
	snprintf(bench_addr.text, sizeof(bench_addr.text), "%s", a);
	return 0;
}

const char *bench_address(void)
{
	return bench_addr.text;
}

/* The server's address (127.0.0.1 unless --address), port. */
void bench_sin_loopback(struct sockaddr_in *sin, uint16_t port)
{
	memset(sin, 0, sizeof(*sin));
	sin->sin_family = AF_INET;
	sin->sin_port = htons(port);
	sin->sin_addr.s_addr = bench_addr.a.s_addr ? bench_addr.a.s_addr :
						     htonl(INADDR_LOOPBACK);
}

/* TCP_NODELAY on, as iwcmd sets it on the sockets it hands over. */
void bench_tcp_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

/* A non-blocking listener on 127.0.0.1, any port (stored in addr). */
int bench_tcp_listen(struct sockaddr_in *addr)
{
	socklen_t len = sizeof(*addr);
	int fd, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	bench_sin_loopback(addr, 0);
	if (bind(fd, (struct sockaddr *)addr, sizeof(*addr)) < 0 ||
	    listen(fd, BENCH_DEPTH_MAX) < 0 ||
	    getsockname(fd, (struct sockaddr *)addr, &len) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- output ---- */

/* The JSON keys address, cpus, kernel and daemon (no comma around). */
void bench_json_host(const struct bench_opts *o)
{
	struct utsname u;
	size_t i;

	if (uname(&u) < 0)
		strcpy(u.release, "unknown");
	printf("\"address\":\"%s\",\"cpus\":%ld,\"kernel\":\"", bench_address(),
	       sysconf(_SC_NPROCESSORS_ONLN));
	for (i = 0; u.release[i]; i++) {
		unsigned char ch = (unsigned char)u.release[i];

		putchar(ch >= 0x20 && ch != '"' && ch != '\\' && ch < 0x7f ?
				ch :
				'?');
	}
	printf("\",\"daemon\":\"%s\"", o->socket ? "external" : "spawned");
}

void bench_child_init(pid_t parent)
{
	struct sigaction sa;

	/* never outlive the benchmark */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}
