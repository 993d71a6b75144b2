/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * --idle N with --transport sctp, for cm and the datapath tests: N SCTP
 * associations to iwcmd that never carry a session (no RFC 5043 §6
 * Initiate, no user data at all), held through every row.  iwcmd keeps
 * each half-open, as it keeps a TCP connection without its MPA Request,
 * until request_timeout_ms or its halfopen caps shed it; a handshake or
 * a relayed message should cost it the same beside them as without.
 *
 * A child process holds them, on a usrsctp stack of its own with a UDP
 * port of its own (sctp_raw.c): the benchmark's own stacks, the
 * baselines', carry nothing more, only iwcmd does.  The child listens
 * through a context of its own that it never reads, so no Initiate can
 * reach it, and the open listener keeps iwcmd from shutting the
 * associations down as orphans.  It connects them in batches under
 * iwcmd's listen queue, says on a pipe once all are up, and waits; asked
 * at the end, it answers how many are still up, aborts them all (iwcmd
 * frees them at once, and stops in time) and exits.
 *
 * They all come from 127.0.0.1: the iwcmd the benchmark starts gets
 * halfopen_per_source and halfopen_max to match (daemon.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "sctp_raw.h"

/*
 * iwcmd's SCTP listener queues at most 16 associations set up and not
 * yet accepted (US_LISTEN_BACKLOG in daemon/sctp_usrsctp_int.h), and
 * accepts what is queued 2 ms after the first arrives
 * (US_ACCEPT_DEFER_US).  usrsctp drops a COOKIE ECHO that finds the
 * queue full, and the peer sends it again a second later (RTO.Min, RFC
 * 4960 §15): a batch of half the queue, and a pause longer than the
 * deferral before the next, keep the associations clear of that second.
 * One refused or aborted all the same is started again.
 */
#define SCTP_IDLE_BATCH 8u
#define SCTP_IDLE_PAUSE_MS 5
/* iwcmd's sctp_udp_port when it is not ours (iwcmd.conf(5)). */
#define SCTP_IDLE_UDP_PORT 9899
/* The child's "all up" on the pipe; the parent's "count and end". */
#define SCTP_IDLE_READY 'R'
#define SCTP_IDLE_END 'E'

/* The parent's end of the holder. */
static struct {
	pid_t pid;
	int to_child;
	int from_child;
} S = { 0, -1, -1 };

/* The child's associations and what holds them open. */
struct sctp_idle {
	struct iwcm_ctx *ctx;
	struct iwcm_listener *l;
	struct socket **so;
	unsigned long n;
	uint16_t udp_port; /* iwcmd's (RFC 6951) */
	uint16_t port;	   /* the listener's SCTP port */
};

/* Start association i (again). */
static int sctp_idle_connect(struct sctp_idle *c, unsigned long i)
{
	sraw_close(c->so[i], true);
	c->so[i] = sraw_socket();
	if (!c->so[i] || sraw_connect(c->so[i], c->udp_port, c->port) < 0) {
		fprintf(stderr,
			"iwcm-bench: --idle: SCTP association %lu to "
			"iwcmd: %s\n",
			i + 1, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * Associations [from, to) up.  One refused (iwcmd's queue was full) or
 * aborted starts again; no more of them up for the stall time fails.
 */
static int sctp_idle_batch(struct sctp_idle *c, unsigned long from,
			   unsigned long to)
{
	uint64_t last = bench_now_ns();
	unsigned long i, up = 0, was = 0, again = 0;
	int st;

	for (i = from; i < to; i++)
		if (sctp_idle_connect(c, i) < 0)
			return -1;
	for (;;) {
		up = 0;
		for (i = from; i < to; i++) {
			st = sraw_state(c->so[i]);
			if (st > 0) {
				up++;
			} else if (st < 0) {
				again++;
				if (sctp_idle_connect(c, i) < 0)
					return -1;
			}
		}
		if (up == to - from)
			return 0;
		if (up > was)
			last = bench_now_ns();
		was = up;
		if (bench_now_ns() - last > BENCH_STALL_MS * 1000000ULL)
			break;
		/* an upcall, or a look every 10 ms all the same */
		sraw_wait(10);
	}
	fprintf(stderr,
		"iwcm-bench: --idle: %lu of %lu SCTP associations to iwcmd "
		"(UDP port %u, SCTP port %u) up, no more for %d s (%lu "
		"refused or aborted and started again)\n",
		from + up, c->n, c->udp_port, c->port, BENCH_STALL_MS / 1000,
		again);
	return -1;
}

/* A listener of a context of its own over SCTP, never read. */
static int sctp_idle_listen(struct sctp_idle *c)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct sockaddr_in sin;
	int e = ENOMEM;

	c->ctx = iwcm_ctx_open_path(D.path, IWCM_CTX_NONBLOCK);
	if (!c->ctx)
		e = errno;
	bench_sin_loopback(&sin, 0);
	if (c->ctx && p &&
	    iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP) == 0) {
		c->l = iwcm_listen(c->ctx, (struct sockaddr *)&sin, NULL, p,
				   (int)SCTP_IDLE_BATCH * 2);
		e = errno;
	}
	iwcm_conn_param_free(p);
	if (!c->l) {
		fprintf(stderr,
			"iwcm-bench: --idle: an SCTP listener at %s: %s\n",
			D.path, strerror(e));
		return -1;
	}
	c->port = (uint16_t)iwcm_listener_get_port(c->l);
	return 0;
}

/* The child: open them all, say so, hold them until asked; exit status. */
static int sctp_idle_child(const struct bench_opts *o, uint16_t udp_port,
			   int rd, int wr)
{
	struct sctp_idle c = { .n = o->idle, .udp_port = udp_port };
	unsigned long i, to, left = 0;
	char err[160], ch = SCTP_IDLE_READY;
	int rc = 1;

	c.so = calloc(c.n, sizeof(*c.so));
	if (!c.so) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return 1;
	}
	if (sctp_idle_listen(&c) < 0)
		goto out;
	if (sraw_start(err, sizeof(err)) < 0) {
		fprintf(stderr, "iwcm-bench: --idle: %s\n", err);
		goto out;
	}
	for (i = 0; i < c.n; i = to) {
		to = c.n - i < SCTP_IDLE_BATCH ? c.n : i + SCTP_IDLE_BATCH;
		if (i)
			poll(NULL, 0, SCTP_IDLE_PAUSE_MS);
		if (sctp_idle_batch(&c, i, to) < 0)
			goto out;
	}
	if (write(wr, &ch, 1) != 1)
		goto out;
	/* until the parent asks (or is gone: end of file) */
	while (read(rd, &ch, 1) < 0 && errno == EINTR)
		;
	for (i = 0; i < c.n; i++)
		if (sraw_state(c.so[i]) > 0)
			left++;
	if (write(wr, &left, sizeof(left)) == (ssize_t)sizeof(left))
		rc = 0;
out:
	/* ABORT before the listener goes: iwcmd frees them at once rather
	 * than shut down orphans while it is asked to stop */
	for (i = 0; i < c.n; i++)
		sraw_close(c.so[i], true);
	sraw_stop();
	if (c.l)
		iwcm_listener_close(c.l);
	if (c.ctx)
		iwcm_ctx_close(c.ctx);
	free(c.so);
	return rc;
}

/* iwcmd's SCTP UDP port: our daemon's, else IWCM_BENCH_SCTP_UDP_PORT,
 * else iwcmd's default. */
static uint16_t sctp_idle_udp_port(void)
{
	const char *v = getenv("IWCM_BENCH_SCTP_UDP_PORT");
	char *end;
	long n;

	if (D.sctp_udp_port)
		return D.sctp_udp_port;
	if (!v || !*v)
		return SCTP_IDLE_UDP_PORT;
	errno = 0;
	n = strtol(v, &end, 10);
	if (!errno && !*end && n >= 1 && n <= 65535)
		return (uint16_t)n;
	fprintf(stderr,
		"iwcm-bench: IWCM_BENCH_SCTP_UDP_PORT '%s' is not a port: "
		"%u\n",
		v, SCTP_IDLE_UDP_PORT);
	return SCTP_IDLE_UDP_PORT;
}

/* Close the parent's ends and wait for the child, 5 s at most. */
static void sctp_idle_reap(void)
{
	uint64_t end = bench_now_ns() + 5 * NS_PER_S;
	int st;

	if (S.to_child >= 0)
		close(S.to_child);
	if (S.from_child >= 0)
		close(S.from_child);
	S.to_child = S.from_child = -1;
	while (S.pid > 0 && waitpid(S.pid, &st, WNOHANG) == 0) {
		if (bench_now_ns() > end) {
			kill(S.pid, SIGKILL);
			waitpid(S.pid, &st, 0);
			break;
		}
		poll(NULL, 0, 5);
	}
	S.pid = 0;
}

/*
 * Fork the holder of o->idle associations and wait until all are up
 * (with --transport sctp only); 0, or -1 once the child said why.
 */
int sctp_idle_open(const struct bench_opts *o)
{
	uint16_t udp_port;
	pid_t parent = getpid();
	int up[2], down[2];
	char ch = 0;
	ssize_t k;

	if (!o->idle || !o->sctp)
		return 0;
	udp_port = sctp_idle_udp_port();
	if (o->socket)
		fprintf(stderr,
			"iwcm-bench: --idle: iwcmd at %s was not started "
			"here: its own halfopen_max, halfopen_per_source (all "
			"%lu come from 127.0.0.1) and request_timeout_ms "
			"apply; its SCTP is taken to be on UDP port %u "
			"(IWCM_BENCH_SCTP_UDP_PORT)\n",
			o->socket, o->idle, udp_port);
	if (pipe2(up, O_CLOEXEC) < 0) {
		perror("iwcm-bench: pipe");
		return -1;
	}
	if (pipe2(down, O_CLOEXEC) < 0) {
		perror("iwcm-bench: pipe");
		close(up[0]);
		close(up[1]);
		return -1;
	}
	fflush(NULL);
	S.pid = fork();
	if (S.pid == 0) {
		/* the daemon is not ours to stop */
		bench_child_init(parent);
		D.pid = 0;
		close(up[0]);
		close(down[1]);
		_exit(sctp_idle_child(o, udp_port, down[0], up[1]));
	}
	close(up[1]);
	close(down[0]);
	S.from_child = up[0];
	S.to_child = down[1];
	if (S.pid < 0) {
		perror("iwcm-bench: fork");
		S.pid = 0;
		sctp_idle_reap();
		return -1;
	}
	/* the child's waits are bounded: its answer, or its exit */
	do
		k = read(S.from_child, &ch, 1);
	while (k < 0 && errno == EINTR);
	if (k == 1 && ch == SCTP_IDLE_READY)
		return 0;
	sctp_idle_reap();
	return -1;
}

/* End the holder; how many of its associations were still up (0 when
 * it held none). */
unsigned long sctp_idle_close(void)
{
	struct pollfd p = { .fd = S.from_child, .events = POLLIN };
	unsigned long left = 0;
	char ch = SCTP_IDLE_END;

	if (S.pid <= 0)
		return 0;
	if (write(S.to_child, &ch, 1) == 1 &&
	    poll(&p, 1, BENCH_STALL_MS) == 1 &&
	    read(S.from_child, &left, sizeof(left)) != (ssize_t)sizeof(left))
		left = 0;
	sctp_idle_reap();
	return left;
}

/* In another child of the benchmark: the holder is not its own. */
void sctp_idle_drop(void)
{
	if (S.to_child >= 0)
		close(S.to_child);
	if (S.from_child >= 0)
		close(S.from_child);
	S.to_child = S.from_child = -1;
	S.pid = 0;
}
