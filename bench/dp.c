/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The datapath tests, shaped like perftest: two processes, the server
 * forked once the daemon serves and the client (this process), each with
 * its own libiwcm context.  They connect through iwcmd, so the MPA
 * revision, markers and CRC are negotiated for real, and each makes its
 * QP on its end of the ESTABLISHED connection.  Private data carries the
 * address, STag and length of the region the peer may reach.
 *
 * Every row first measures the raw TCP baseline with the same two
 * processes over 127.0.0.1, the same message size and count, blocking
 * read(2) and write(2) and TCP_NODELAY: a stream (one side writes
 * messages of SIZE, the other reads them all) for the bandwidth tests,
 * a ping-pong of SIZE for the latency tests, an 8-octet request and
 * reply for atomic_lat.  Then the iwcm measurement:
 *
 *   write_bw    the client RDMA Writes SIZE into the server's region,
 *		 depth work requests in flight, every 100th signaled
 *		 (perftest's CQ moderation); bandwidth from the first post
 *		 to the last completion;
 *   read_bw     the same with RDMA Reads of the server's region (the
 *		 library keeps at most ORD outstanding); a Read completes
 *		 when its data is placed;
 *   send_lat    Send ping-pong, half the round trip;
 *   write_lat   perftest's ib_write_lat: each side RDMA Writes into the
 *		 other's region and polls the last octet of its own;
 *   atomic_lat  FetchAdd of the server's word, waiting for each.
 *
 * With --transport sctp the iwcm connection is a DDP stream session
 * over SCTP (RFC 5043) that iwcmd relays, and the baseline is raw
 * usrsctp between the same two processes (dp_sctp.c), messages of the
 * size of iwcmd's SCTP messages; iwcmd's CPU time over the timed part
 * is the relay's cost (dp_side_mark()).
 *
 * --idle N (--transport sctp only): N SCTP associations to iwcmd that
 * never carry a session, held by a process of their own through every
 * row (sctp_idle.c), to see whether the relay's cost per message grows
 * with the associations iwcmd holds.
 *
 * Progress is the library's default, automatic: waiting busy-polls
 * iwcm_poll_cq(), which moves the data in the caller's thread (as
 * perftest busy-polls ibv_poll_cq()), and a wait for memory the peer
 * writes iwcm_qp_progress(); --event waits on the completion channel
 * instead (asleep on the sockets), and --manual busy-polls
 * iwcm_progress() on a context without a progress thread.
 *
 * -q N (write_bw, send_lat): N connections in one context, so one
 * progress engine and one completion queue, against N TCP streams
 * driven by one thread per process (non-blocking sockets and poll(2),
 * or busy-polled with --tcp-poll), in the same run.  write_bw keeps
 * depth Writes in flight on every QP and reports the aggregate
 * bandwidth; send_lat runs the N ping-pongs at once and reports the
 * mean half round trip over all of them.
 *
 * The processes keep in step over a SOCK_SEQPACKET socketpair: for each
 * measurement the server sends the port it listens on (0 when it could
 * not start), both run, the client says it finished, the server answers
 * with its result (CPU time, verification).  Whichever side fails
 * closes its connection first so that the other fails fast too; a side
 * that waits for something from its peer fails after the stall time (10
 * s, or IWCM_BENCH_STALL_MS) without progress, except the server while
 * the client's one-sided operations run.  In-band Sends (HELLO from the
 * client, READY from the server, START after the warm-up, DONE at the
 * end) keep the two QPs in step; the client sends first because an MPA
 * revision 1 responder sends nothing before the first FPDU arrived (RFC
 * 5044 §7.1.2).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "dp.h"
#include "sctp_raw.h"

/* ---- the rows and the two processes ---- */

static void dp_run_init(struct dp_run *r, const struct bench_opts *o,
			unsigned int depth, int ctl, bool server)
{
	memset(r, 0, sizeof(*r));
	r->o = o;
	r->t = o->test->dp;
	r->server = server;
	r->depth = depth;
	r->n = o->iters;
	r->warm = o->warmup;
	r->ctl = ctl;
	r->side.ok = 1;
}

static unsigned int dp_nrows(const struct bench_opts *o)
{
	return o->test->depths_def ? o->ndepths : 1;
}

static unsigned int dp_depth(const struct bench_opts *o, unsigned int i)
{
	return o->test->depths_def ? o->depths[i] : 1;
}

/* The forked server: every row's TCP, then iwcm, end. */
static int dp_server_main(const struct bench_opts *o, int ctl)
{
	struct dp_run r;
	unsigned int i;

	int rc = 0;

	for (i = 0; i < dp_nrows(o) && !rc; i++) {
		dp_run_init(&r, o, dp_depth(o, i), ctl, true);
		if (o->sctp)
			dp_sctp_server(&r);
		else
			dp_tcp_server(&r);
		if (r.ctl_lost) {
			rc = 1;
			break;
		}
		dp_run_init(&r, o, dp_depth(o, i), ctl, true);
		dp_iw_server(&r);
		if (r.ctl_lost)
			rc = 1;
	}
	dp_sctp_stop();
	return rc;
}

static void dp_row_client(const struct bench_opts *o, int ctl,
			  struct dp_row *row)
{
	struct dp_run r;

	dp_run_init(&r, o, row->depth, ctl, false);
	r.lat = row->tcp_lat;
	if (o->sctp)
		dp_sctp_client(&r);
	else
		dp_tcp_client(&r);
	row->base_seg = r.seg;
	row->tcp_cli = r.side;
	row->tcp_srv = r.peer;
	dp_run_init(&r, o, row->depth, ctl, false);
	r.lat = row->iw_lat;
	dp_iw_client(&r);
	row->iw_cli = r.side;
	row->iw_srv = r.peer;
	row->nego = r.nego;
}

/* Run a datapath test: fork the server, drive every row, print. */
int dp_bench(const struct bench_opts *o)
{
	unsigned int n = dp_nrows(o), i;
	struct dp_row *rows = calloc(n, sizeof(*rows));
	unsigned long idle_left;
	pid_t parent = getpid(), pid;
	int sv[2], st = 0, rc = 0;

	if (!rows) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return 1;
	}
	/* both processes' baselines: the kernel's SCTP or usrsctp */
	if (sraw_kernel(o->sctp_kernel) < 0) {
		fprintf(stderr, "iwcm-bench: --sctp-stack kernel: %s\n",
			strerror(errno));
		free(rows);
		return 1;
	}
	for (i = 0; i < n; i++) {
		rows[i].depth = dp_depth(o, i);
		if (dp_is_bw(o->test->dp))
			continue;
		rows[i].tcp_lat = calloc(dp_nlat(o), sizeof(uint64_t));
		rows[i].iw_lat = calloc(dp_nlat(o), sizeof(uint64_t));
		if (!rows[i].tcp_lat || !rows[i].iw_lat) {
			fprintf(stderr, "iwcm-bench: out of memory\n");
			rc = 1;
			goto out;
		}
	}
	if (daemon_start(o) < 0) {
		rc = 1;
		goto out;
	}
	if (sctp_idle_open(o) < 0) {
		daemon_stop();
		rc = 1;
		goto out;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		perror("iwcm-bench: socketpair");
		sctp_idle_close();
		daemon_stop();
		rc = 1;
		goto out;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		perror("iwcm-bench: fork");
		close(sv[0]);
		close(sv[1]);
		sctp_idle_close();
		daemon_stop();
		rc = 1;
		goto out;
	}
	if (pid == 0) {
		/* The server: the daemon is the parent's to stop. */
		bench_child_init(parent);
		D.pid = 0;
		sctp_idle_drop();
		close(sv[0]);
		if (daemon_server_side(o) < 0)
			_exit(1);
		_exit(dp_server_main(o, sv[1]));
	}
	close(sv[1]);
	for (i = 0; i < n; i++)
		dp_row_client(o, sv[0], &rows[i]);
	close(sv[0]);
	dp_sctp_stop();
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		fprintf(stderr,
			"iwcm-bench: the server process ended with "
			"status %d\n",
			st);
		rc = 1;
	}
	/* before iwcmd goes, which would end them */
	idle_left = sctp_idle_close();
	if (daemon_stop() < 0)
		rc = 1;
	dp_report_figures(o, rows, n);
	for (i = 0; i < n; i++) {
		if (rows[i].failed)
			rc = 1;
	}
	if (o->json)
		dp_report_json(o, rows, n, idle_left);
	else
		dp_report_text(o, rows, n, idle_left);
out:
	for (i = 0; i < n; i++) {
		free(rows[i].tcp_lat);
		free(rows[i].iw_lat);
	}
	free(rows);
	return rc;
}
