/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_H
#define IWCM_BENCH_H

/*
 * iwcm-bench internals: the options, the table of tests, and what the
 * tests share (time, CPU, statistics, loopback sockets, the JSON
 * preamble in bench.c; the daemon in daemon.c).  Each test is a file:
 * cm.c (its parts in cm_*.c, declared in cm.h), and dp.c for the
 * datapath tests with their baselines (its parts in dp_*.c, declared in
 * dp.h); sctp_raw.c is raw usrsctp for the SCTP baselines, and
 * sctp_idle.c holds the associations of --idle over SCTP.
 */
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCH_ITERS_DEFAULT 1000
#define BENCH_ITERS_MAX 10000000UL
#define BENCH_WARMUP_MAX 100
#define BENCH_DEPTH_MAX 1024
#define BENCH_DEPTHS_MAX 8
/* cm --transport sctp: iwcmd's Initiates pending per association. */
#define BENCH_SCTP_DEPTH_MAX 16
/* -q: connections of write_bw and send_lat in one context. */
#define BENCH_QPS_MAX 64
/* Largest message of the datapath tests (one registered buffer each). */
#define BENCH_SIZE_MAX (1UL << 30)
/* No progress for this long ends a row as failed (the datapath tests
 * take IWCM_BENCH_STALL_MS from the environment instead). */
#define BENCH_STALL_MS 10000
/* --busy-poll at most (iwcmd.conf's busy_poll_us too). */
#define BENCH_BUSY_POLL_MAX 100000u
/* --idle at most: connections (SCTP: associations) held beside the rows. */
#define BENCH_IDLE_MAX 100000u
/* --idle over SCTP: iwcmd's halfopen caps above N, for the rows' own
 * associations, half-open until their first session. */
#define BENCH_IDLE_SLACK 64u
/* Failures described on stderr per row; the rest are only counted. */
#define BENCH_FAIL_PRINT 5
#define NS_PER_S 1000000000ULL

/* What a datapath test measures (0 for the cm test). */
enum bench_dp {
	BENCH_DP_NONE = 0,
	BENCH_DP_WRITE_BW,
	BENCH_DP_READ_BW,
	BENCH_DP_SEND_LAT,
	BENCH_DP_WRITE_LAT,
	BENCH_DP_ATOMIC_LAT,
};

struct bench_test;

struct bench_opts {
	const struct bench_test *test;
	unsigned long iters;
	unsigned long warmup;
	bool warmup_set;
	size_t size;
	unsigned int depths[BENCH_DEPTHS_MAX];
	unsigned int ndepths;
	bool json;
	const char *socket;
	const char *iwcmd;
	bool sctp; /* --transport sctp: DDP over SCTP, usrsctp baselines */
	/* --sctp-stack kernel: iwcmd and the baselines on the kernel's
	 * SCTP (plain SCTP on loopback); sessions handed to their owners */
	bool sctp_kernel;
	bool wait_cm; /* cm: contexts without IWCM_CTX_ASYNC_CM */
	/* cm: poll this long before sleeping, here and in the iwcmd we start
	 * (its busy_poll_us) */
	unsigned long busy_poll_us;
	/* cm: never poll libiwcm's adaptive window (IWCM_POLL_US=0) */
	bool no_client_poll;
	/* cm: connections held open to iwcmd, never sending (cm_idle.c);
	 * --transport sctp, any test: associations (sctp_idle.c) */
	unsigned long idle;
	/* the datapath tests */
	unsigned int mpa_rev;
	bool crc;
	bool markers;
	bool event;	       /* progress thread + completion channel */
	bool manual;	       /* busy-polls iwcm_progress() (manual) */
	bool tcp_poll;	       /* the TCP baseline spins, never blocks */
	bool tcp_gaps;	       /* *_bw: the TCP stream has Markers' gaps */
	unsigned int qps;      /* -q: connections (and TCP streams) */
	unsigned int stall_ms; /* datapath: no progress this long fails */
	/* datapath between two hosts: the server process runs in this
	 * network namespace (/run/netns/NAME or a path) on the iwcmd
	 * serving server_socket, listening on address (the client's
	 * daemon is --socket's) */
	const char *server_netns;
	const char *server_socket;
	const char *address;
};

/* A row of the table of tests; -s and -d are checked against it. */
struct bench_test {
	const char *name;
	const char *summary;
	int (*run)(const struct bench_opts *o);
	enum bench_dp dp;
	size_t size_def;
	size_t size_min;
	size_t size_max;
	const char *depths_def; /* NULL: -d does not apply */
};

/* The daemon the tests talk to (daemon.c). */
struct daemon {
	pid_t pid;	/* ours to stop, or 0 */
	pid_t peer_pid; /* whoever serves the socket, or 0 */
	char dir[80];
	char sock[112];
	char admin[112];
	char conf[112];
	char log[112];
	const char *path;	/* the socket the contexts open */
	uint16_t sctp_udp_port; /* ours, --transport sctp: its UDP port */
	char bin[PATH_MAX];
};

extern struct daemon D;

/* bench.c */
uint64_t bench_now_ns(void);
uint64_t bench_cpu_ns(pid_t pid);
int bench_cmp_u64(const void *a, const void *b);
uint64_t bench_percentile(const uint64_t *v, size_t n, unsigned int pct);
double bench_us(uint64_t ns);
void bench_sin_loopback(struct sockaddr_in *sin, uint16_t port);
int bench_set_address(const char *a);
const char *bench_address(void);
void bench_tcp_nodelay(int fd);
int bench_tcp_listen(struct sockaddr_in *addr);
void bench_json_host(const struct bench_opts *o);
/* In a child of the benchmark: killed when the parent dies, default
 * actions for SIGINT, SIGTERM and SIGHUP; exits at once (1) when the
 * parent is already gone. */
void bench_child_init(pid_t parent);

/* daemon.c */
void daemon_signal(int sig);
int daemon_start(const struct bench_opts *o);
int daemon_server_side(const struct bench_opts *o);
int daemon_stop(void);

/* cm.c */
int cm_bench(const struct bench_opts *o);

/* dp.c */
int dp_bench(const struct bench_opts *o);

/* sctp_idle.c */
int sctp_idle_open(const struct bench_opts *o);
unsigned long sctp_idle_close(void);
void sctp_idle_drop(void);

#endif
