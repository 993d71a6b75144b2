/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcm-bench: perftest-style benchmarks of iwcm, each printed beside a
 * raw TCP baseline measured in the same run (with --transport sctp: DDP
 * over SCTP through iwcmd's relay, beside raw usrsctp).  The tests are
 * rows of one
 * table: "cm", the connection manager (cm.c), and the datapath tests
 * write_bw, read_bw, send_lat, write_lat and atomic_lat (dp.c).
 *
 * Unless --socket names a running daemon, the benchmark starts its own
 * iwcmd on a private socket in a temporary directory and stops it at the
 * end (daemon.c).  --idle holds connections to it beside the rows
 * (cm_idle.c; SCTP associations in sctp_idle.c).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iwcm/iwcm.h>

#include "bench.h"

/* ---- command line ---- */

static const struct bench_test bench_tests[] = {
	{ "cm",
	  "handshakes per second through handoff: MPA v1, MPA v2 "
	  "peer-to-peer\n             with a Write and with a Read "
	  "RTR, against raw TCP connect/accept",
	  cm_bench, BENCH_DP_NONE, 0, 0, IWCM_PRIVATE_DATA_MAX_ENHANCED,
	  "1,16" },
	{ "write_bw", "RDMA Write bandwidth against a TCP stream", dp_bench,
	  BENCH_DP_WRITE_BW, 1 << 20, 1, BENCH_SIZE_MAX, "128" },
	{ "read_bw", "RDMA Read bandwidth against a TCP stream", dp_bench,
	  BENCH_DP_READ_BW, 1 << 20, 1, BENCH_SIZE_MAX, "128" },
	{ "send_lat", "Send ping-pong latency against a TCP ping-pong",
	  dp_bench, BENCH_DP_SEND_LAT, 8, 1, BENCH_SIZE_MAX, NULL },
	{ "write_lat",
	  "RDMA Write ping-pong latency against a TCP "
	  "ping-pong",
	  dp_bench, BENCH_DP_WRITE_LAT, 8, 1, BENCH_SIZE_MAX, NULL },
	{ "atomic_lat",
	  "FetchAdd latency against an 8-octet TCP "
	  "request/reply",
	  dp_bench, BENCH_DP_ATOMIC_LAT, 8, 8, 8, NULL },
};

#define N_BENCH_TESTS (sizeof(bench_tests) / sizeof(bench_tests[0]))

static void usage(FILE *fp)
{
	size_t i;

	fprintf(fp,
		"usage: iwcm-bench TEST [-j] [-n ITERS] [-w N] [-s SIZE] "
		"[-d DEPTH[,DEPTH...]]\n"
		"                  [-q N] [-e] [--mpa-rev 1|2] [--markers] "
		"[--crc | --no-crc] [--tcp-poll]\n"
		"                  [--tcp-gaps] [--transport tcp|sctp] "
		"[--wait-cm]\n"
		"                  [--busy-poll US] [--no-client-poll] "
		"[--idle N]\n"
		"                  [--socket PATH | --iwcmd PATH]\n"
		"                  [--server-netns NS --server-socket PATH "
		"--address A]\n"
		"  -n, --iters N      handshakes or messages per row "
		"(default %d)\n"
		"  -w, --warmup N     untimed iterations before each row\n"
		"                     (default iters/10, at most %d)\n"
		"  -s, --size N       cm: private data octets each way "
		"(0 to %d, default 0);\n"
		"                     datapath: octets per message, K, M or G "
		"suffix allowed\n"
		"                     (default 1M for *_bw, 8 for *_lat; "
		"atomic_lat only 8)\n"
		"  -d, --depth LIST   cm: handshakes in flight (default 1,16); "
		"*_bw: work\n"
		"                     requests in flight (default 128); a set "
		"of rows per\n"
		"                     value (1 to %d, at most %d values)\n"
		"  -q, --qps N        write_bw, send_lat: N connections in "
		"one context (one\n"
		"                     progress engine) against N TCP streams "
		"in one thread\n"
		"                     (1 to %d, default 1)\n"
		"  -e, --event        datapath: wait on the completion channel "
		"(the\n"
		"                     default configuration asleep) instead of "
		"busy-polling\n"
		"                     iwcm_poll_cq()\n"
		"      --manual       datapath: IWCM_CTX_MANUAL_PROGRESS, "
		"busy-polling\n"
		"                     iwcm_progress() (no progress thread)\n"
		"      --mpa-rev N    datapath: MPA revision 1 or 2 "
		"(default 2)\n"
		"      --markers      datapath: MPA markers both ways\n"
		"      --crc          datapath: MPA CRC (the default)\n"
		"      --no-crc       datapath: no MPA CRC\n"
		"      --tcp-poll     datapath: the TCP baseline spins on "
		"non-blocking sockets\n"
		"                     instead of blocking in read(2) and "
		"write(2)\n"
		"      --tcp-gaps     *_bw: the TCP stream skips 4 octets "
		"every 512, as MPA\n"
		"                     Markers make iwcm do (writev/readv): "
		"the ceiling of\n"
		"                     zero-copy Markers on this kernel\n"
		"      --transport T  tcp (MPA, the default) or sctp (DDP "
		"over SCTP through\n"
		"                     iwcmd's relay, RFC 5043; the baseline is "
		"raw usrsctp)\n"
		"      --sctp-stack S usrsctp (the default) or kernel: "
		"iwcmd and the\n"
		"                     baseline on the kernel's SCTP (the "
		"association handed\n"
		"                     to the client, no relay; datapath "
		"tests only)\n"
		"      --wait-cm      cm: iwcm_connect() and iwcm_accept() "
		"wait for the\n"
		"                     daemon's answer (no IWCM_CTX_ASYNC_CM)\n"
		"      --busy-poll US cm: poll this long before sleeping, here "
		"and in the\n"
		"                     iwcmd started (its busy_poll_us; "
		"0 to %u, default 0)\n"
		"      --no-client-poll cm: this program sleeps as soon as "
		"its contexts are\n"
		"                     drained (IWCM_POLL_US=0) instead of "
		"polling for their\n"
		"                     adaptive window (iwcm_ctx_poll_us(3))\n"
		"      --idle N       cm: hold N connections to iwcmd that "
		"never send a byte\n"
		"                     (half-open, as a flood leaves them) "
		"through every row\n"
		"                     (0 to %u, default 0); with --transport "
		"sctp, any test:\n"
		"                     N SCTP associations that never carry a "
		"session, held\n"
		"                     by a child process\n"
		"  -j, --json         one JSON object instead of the table\n"
		"      --socket PATH  measure the iwcmd serving PATH\n"
		"      --iwcmd PATH   the iwcmd to start (default: beside this "
		"program,\n"
		"                     else %s)\n"
		"      --server-netns NS  datapath, two hosts: the server side "
		"runs in\n"
		"                     network namespace NS (/run/netns/NS or a "
		"path) on the\n"
		"                     iwcmd of --server-socket PATH, listening "
		"on --address A\n"
		"                     (IPv4); the client stays here on "
		"--socket's iwcmd\n"
		"tests:\n",
		BENCH_ITERS_DEFAULT, BENCH_WARMUP_MAX,
		IWCM_PRIVATE_DATA_MAX_ENHANCED, BENCH_DEPTH_MAX,
		BENCH_DEPTHS_MAX, BENCH_QPS_MAX, BENCH_BUSY_POLL_MAX,
		BENCH_IDLE_MAX, IWCMD_SBIN);
	for (i = 0; i < N_BENCH_TESTS; i++)
		fprintf(fp, "  %-10s %s\n", bench_tests[i].name,
			bench_tests[i].summary);
}

static int parse_ulong(const char *s, unsigned long min, unsigned long max,
		       unsigned long *out)
{
	unsigned long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Octets, with an optional binary K, M or G suffix; range checked later. */
static int parse_size(const char *s, size_t *out)
{
	unsigned long v, mul = 1;
	char buf[32], *end;
	size_t n;

	if (!s || strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	n = strlen(buf);
	end = n ? &buf[n - 1] : buf;
	if (*end == 'k' || *end == 'K')
		mul = 1UL << 10;
	else if (*end == 'm' || *end == 'M')
		mul = 1UL << 20;
	else if (*end == 'g' || *end == 'G')
		mul = 1UL << 30;
	if (mul > 1)
		*end = '\0';
	if (parse_ulong(buf, 0, BENCH_SIZE_MAX / mul, &v) < 0)
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_depths(const char *s, struct bench_opts *o)
{
	char buf[128], *tok, *save = NULL;
	unsigned long v;

	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	o->ndepths = 0;
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (o->ndepths == BENCH_DEPTHS_MAX ||
		    parse_ulong(tok, 1, BENCH_DEPTH_MAX, &v) < 0)
			return -1;
		o->depths[o->ndepths++] = (unsigned int)v;
	}
	return o->ndepths ? 0 : -1;
}

/* The options that depend on the test; -1 after printing why not. */
static int check_test_opts(struct bench_opts *o, bool size_set, bool depth_set,
			   bool qps_set, bool crc_set, const char *dp_opt)
{
	const struct bench_test *t = o->test;

	if (!size_set)
		o->size = t->size_def;
	if (o->size < t->size_min || o->size > t->size_max) {
		fprintf(stderr,
			"iwcm-bench: %s: --size %zu out of range "
			"(%zu to %zu)\n",
			t->name, o->size, t->size_min, t->size_max);
		return -1;
	}
	if (!t->depths_def && depth_set) {
		fprintf(stderr, "iwcm-bench: %s: --depth does not apply\n",
			t->name);
		return -1;
	}
	if (t->depths_def && !depth_set && parse_depths(t->depths_def, o) < 0)
		return -1;
	if (o->tcp_gaps && t->dp != BENCH_DP_WRITE_BW &&
	    t->dp != BENCH_DP_READ_BW) {
		fprintf(stderr,
			"iwcm-bench: %s: --tcp-gaps applies to "
			"write_bw and read_bw only\n",
			t->name);
		return -1;
	}
	if (qps_set && t->dp != BENCH_DP_WRITE_BW &&
	    t->dp != BENCH_DP_SEND_LAT) {
		fprintf(stderr,
			"iwcm-bench: %s: --qps applies to write_bw "
			"and send_lat only\n",
			t->name);
		return -1;
	}
	if (o->qps > 1 && o->tcp_gaps) {
		fprintf(stderr,
			"iwcm-bench: %s: --tcp-gaps takes one "
			"connection (no --qps)\n",
			t->name);
		return -1;
	}
	if (o->event && o->manual) {
		fprintf(stderr,
			"iwcm-bench: %s: --manual busy-polls "
			"iwcm_progress(); it takes no --event\n",
			t->name);
		return -1;
	}
	if (o->sctp && (o->markers || o->tcp_gaps || o->tcp_poll ||
			o->qps > 1 || crc_set)) {
		fprintf(stderr,
			"iwcm-bench: %s: --transport sctp takes no "
			"--markers, --crc, --no-crc, --tcp-poll, "
			"--tcp-gaps or --qps\n",
			t->name);
		return -1;
	}
	if (o->sctp_kernel && (!o->sctp || !t->dp || o->idle)) {
		fprintf(stderr,
			"iwcm-bench: %s: --sctp-stack kernel takes "
			"--transport sctp and a datapath test, no "
			"--idle\n",
			t->name);
		return -1;
	}
	for (unsigned int i = 0; !t->dp && o->sctp && i < o->ndepths; i++) {
		if (o->depths[i] <= BENCH_SCTP_DEPTH_MAX)
			continue;
		/* RFC 5043 §6.4: iwcmd answers more with a Terminate */
		fprintf(stderr,
			"iwcm-bench: cm --transport sctp: --depth at most %d "
			"(iwcmd's limit of Initiates waiting for a decision "
			"per association)\n",
			BENCH_SCTP_DEPTH_MAX);
		return -1;
	}
	if (t->dp && (o->wait_cm || o->busy_poll_us || o->no_client_poll)) {
		fprintf(stderr,
			"iwcm-bench: %s: %s applies to the cm test only\n",
			t->name,
			o->wait_cm	? "--wait-cm" :
			o->busy_poll_us ? "--busy-poll" :
					  "--no-client-poll");
		return -1;
	}
	/* over TCP the connections are the cm test's (cm_idle.c); SCTP
	 * associations weigh on the relay of every message too */
	if (t->dp && o->idle && !o->sctp) {
		fprintf(stderr,
			"iwcm-bench: %s: --idle applies to the cm test only, "
			"or with --transport sctp\n",
			t->name);
		return -1;
	}
	if (!t->dp && dp_opt) {
		fprintf(stderr,
			"iwcm-bench: %s: %s applies to the datapath "
			"tests only\n",
			t->name, dp_opt);
		return -1;
	}
	return 0;
}

/* Parse the command line and run the test it names. */
int main(int argc, char **argv)
{
	enum {
		OPT_SOCKET = 256,
		OPT_IWCMD,
		OPT_VERSION,
		OPT_MPA_REV,
		OPT_MARKERS,
		OPT_CRC,
		OPT_NO_CRC,
		OPT_TCP_POLL,
		OPT_MANUAL,
		OPT_TCP_GAPS,
		OPT_TRANSPORT,
		OPT_SCTP_STACK,
		OPT_WAIT_CM,
		OPT_BUSY_POLL,
		OPT_NO_CLIENT_POLL,
		OPT_IDLE,
		OPT_SERVER_NETNS,
		OPT_SERVER_SOCKET,
		OPT_ADDRESS,
	};
	static const struct option longopts[] = {
		{ "iters", required_argument, NULL, 'n' },
		{ "warmup", required_argument, NULL, 'w' },
		{ "size", required_argument, NULL, 's' },
		{ "depth", required_argument, NULL, 'd' },
		{ "qps", required_argument, NULL, 'q' },
		{ "json", no_argument, NULL, 'j' },
		{ "event", no_argument, NULL, 'e' },
		{ "mpa-rev", required_argument, NULL, OPT_MPA_REV },
		{ "markers", no_argument, NULL, OPT_MARKERS },
		{ "crc", no_argument, NULL, OPT_CRC },
		{ "no-crc", no_argument, NULL, OPT_NO_CRC },
		{ "tcp-poll", no_argument, NULL, OPT_TCP_POLL },
		{ "manual", no_argument, NULL, OPT_MANUAL },
		{ "tcp-gaps", no_argument, NULL, OPT_TCP_GAPS },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "sctp-stack", required_argument, NULL, OPT_SCTP_STACK },
		{ "wait-cm", no_argument, NULL, OPT_WAIT_CM },
		{ "busy-poll", required_argument, NULL, OPT_BUSY_POLL },
		{ "no-client-poll", no_argument, NULL, OPT_NO_CLIENT_POLL },
		{ "idle", required_argument, NULL, OPT_IDLE },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "iwcmd", required_argument, NULL, OPT_IWCMD },
		{ "server-netns", required_argument, NULL, OPT_SERVER_NETNS },
		{ "server-socket", required_argument, NULL, OPT_SERVER_SOCKET },
		{ "address", required_argument, NULL, OPT_ADDRESS },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, OPT_VERSION },
		{ NULL, 0, NULL, 0 },
	};
	struct bench_opts o = {
		.iters = BENCH_ITERS_DEFAULT,
		.mpa_rev = 2,
		.crc = true,
		.stall_ms = BENCH_STALL_MS,
		.qps = 1,
	};
	const char *dp_opt = NULL, *env;
	bool size_set = false, depth_set = false, qps_set = false;
	bool crc_set = false;
	struct sigaction sa;
	unsigned long v;
	size_t i;
	int ch, li = 0;

	while ((ch = getopt_long(argc, argv, "n:w:s:d:q:jeh", longopts, &li)) !=
	       -1) {
		switch (ch) {
		case 'n':
			if (parse_ulong(optarg, 1, BENCH_ITERS_MAX, &o.iters) <
			    0)
				goto bad;
			break;
		case 'w':
			if (parse_ulong(optarg, 0, BENCH_ITERS_MAX, &o.warmup) <
			    0)
				goto bad;
			o.warmup_set = true;
			break;
		case 's':
			if (parse_size(optarg, &o.size) < 0)
				goto bad;
			size_set = true;
			break;
		case 'd':
			if (parse_depths(optarg, &o) < 0)
				goto bad;
			depth_set = true;
			break;
		case 'q':
			if (parse_ulong(optarg, 1, BENCH_QPS_MAX, &v) < 0)
				goto bad;
			o.qps = (unsigned int)v;
			qps_set = true;
			break;
		case 'j':
			o.json = true;
			break;
		case 'e':
			o.event = true;
			dp_opt = "--event";
			break;
		case OPT_MPA_REV:
			if (parse_ulong(optarg, 1, 2, &v) < 0)
				goto bad;
			o.mpa_rev = (unsigned int)v;
			dp_opt = "--mpa-rev";
			break;
		case OPT_MARKERS:
			o.markers = true;
			dp_opt = "--markers";
			break;
		case OPT_CRC:
		case OPT_NO_CRC:
			o.crc = ch == OPT_CRC;
			crc_set = true;
			dp_opt = ch == OPT_CRC ? "--crc" : "--no-crc";
			break;
		case OPT_TCP_POLL:
			o.tcp_poll = true;
			dp_opt = "--tcp-poll";
			break;
		case OPT_MANUAL:
			o.manual = true;
			dp_opt = "--manual";
			break;
		case OPT_TCP_GAPS:
			o.tcp_gaps = true;
			dp_opt = "--tcp-gaps";
			break;
		case OPT_WAIT_CM:
			o.wait_cm = true;
			break;
		case OPT_BUSY_POLL:
			if (parse_ulong(optarg, 0, BENCH_BUSY_POLL_MAX,
					&o.busy_poll_us) < 0)
				goto bad;
			break;
		case OPT_NO_CLIENT_POLL:
			o.no_client_poll = true;
			break;
		case OPT_IDLE:
			if (parse_ulong(optarg, 0, BENCH_IDLE_MAX, &o.idle) < 0)
				goto bad;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "tcp") && strcmp(optarg, "sctp"))
				goto bad;
			o.sctp = !strcmp(optarg, "sctp");
			break;
		case OPT_SCTP_STACK:
			if (strcmp(optarg, "usrsctp") &&
			    strcmp(optarg, "kernel"))
				goto bad;
			o.sctp_kernel = !strcmp(optarg, "kernel");
			break;
		case OPT_SOCKET:
			o.socket = optarg;
			break;
		case OPT_IWCMD:
			o.iwcmd = optarg;
			break;
		case OPT_SERVER_NETNS:
			o.server_netns = optarg;
			break;
		case OPT_SERVER_SOCKET:
			o.server_socket = optarg;
			break;
		case OPT_ADDRESS:
			if (bench_set_address(optarg) < 0)
				goto bad;
			o.address = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		case OPT_VERSION:
			printf("iwcm-bench %s\n", PACKAGE_VERSION);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind + 1 != argc) {
		usage(stderr);
		return 2;
	}
	for (i = 0; i < N_BENCH_TESTS; i++) {
		if (!strcmp(argv[optind], bench_tests[i].name))
			o.test = &bench_tests[i];
	}
	if (!o.test) {
		fprintf(stderr, "iwcm-bench: unknown test '%s'\n",
			argv[optind]);
		usage(stderr);
		return 2;
	}
	if (check_test_opts(&o, size_set, depth_set, qps_set, crc_set, dp_opt) <
	    0)
		return 2;
	/* libiwcm reads it when the contexts open (iwcm_ctx_open(3)) */
	if (o.no_client_poll && setenv("IWCM_POLL_US", "0", 1) < 0) {
		perror("iwcm-bench: setenv");
		return 1;
	}
	/* two hosts: all three, a daemon each side, the datapath tests */
	if ((o.server_netns || o.server_socket || o.address) &&
	    (!o.server_netns || !o.server_socket || !o.address || !o.socket ||
	     !o.test->dp || o.idle)) {
		fprintf(stderr, "iwcm-bench: --server-netns, --server-socket "
				"and --address go together, with --socket, "
				"for a datapath test without --idle\n");
		return 2;
	}
	if (o.socket && o.iwcmd) {
		fprintf(stderr, "iwcm-bench: --socket and --iwcmd exclude "
				"each other\n");
		return 2;
	}
	/* libiwcm refuses to open a context with a bad one: say so here */
	env = getenv("IWCM_POLL_US");
	if (env && parse_ulong(env, 0, 100000, &v) < 0) {
		fprintf(stderr,
			"iwcm-bench: bad IWCM_POLL_US '%s' (0 to 100000)\n",
			env);
		return 2;
	}
	env = getenv("IWCM_BENCH_STALL_MS");
	if (env && *env) {
		if (parse_ulong(env, 1, 3600000, &v) < 0) {
			fprintf(stderr,
				"iwcm-bench: bad IWCM_BENCH_STALL_MS "
				"'%s' (1 to 3600000)\n",
				env);
			return 2;
		}
		o.stall_ms = (unsigned int)v;
	}
	if (!o.warmup_set) {
		o.warmup = o.iters / 10;
		if (o.warmup > BENCH_WARMUP_MAX)
			o.warmup = BENCH_WARMUP_MAX;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_handler = daemon_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	return o.test->run(&o);
bad:
	if (ch < 256)
		fprintf(stderr, "iwcm-bench: bad value '%s' for -%c\n", optarg,
			ch);
	else
		fprintf(stderr, "iwcm-bench: bad value '%s' for --%s\n", optarg,
			longopts[li].name);
	usage(stderr);
	return 2;
}
