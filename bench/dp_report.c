/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The figures of the datapath rows (bandwidth, latency, CPU, the
 * ratio), printed as text or JSON.  The baseline is raw TCP, or raw
 * usrsctp with --transport sctp, where iwcmd relays every message and
 * its CPU time over the timed part is the relay's cost.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bench.h"
#include "dp.h"

#define MIB (1024.0 * 1024.0)

/* Aggregate bandwidth of the -q connections. */
static double dp_report_bw(const struct bench_opts *o, const struct dp_side *s)
{
	if (!s->wall_ns)
		return 0.0;
	return (double)o->iters * (double)o->qps * (double)o->size / MIB /
	       ((double)s->wall_ns / 1e9);
}

static double dp_report_mean(const struct bench_opts *o, const uint64_t *lat)
{
	uint64_t sum = 0;
	size_t i;

	for (i = 0; i < dp_nlat(o); i++)
		sum += lat[i];
	return bench_us(sum / dp_nlat(o));
}

/* The figure of a latency row: p50, or with -q N the mean over all. */
static double dp_report_lat_value(const struct bench_opts *o,
				  const uint64_t *lat)
{
	if (o->qps > 1)
		return dp_report_mean(o, lat);
	return bench_us(bench_percentile(lat, dp_nlat(o), 50));
}

/* Each row's figures and ratio; failures described on stderr. */
void dp_report_figures(const struct bench_opts *o, struct dp_row *rows,
		       unsigned int n)
{
	static const char *const what[] = { "tcp client", "tcp server",
					    "iwcm client", "iwcm server" };
	static const char *const what_sctp[] = { "usrsctp client",
						 "usrsctp server",
						 "iwcm client", "iwcm server" };
	unsigned int i, j;

	for (i = 0; i < n; i++) {
		struct dp_row *w = &rows[i];
		const struct dp_side *s[4] = { &w->tcp_cli, &w->tcp_srv,
					       &w->iw_cli, &w->iw_srv };

		for (j = 0; j < 4; j++) {
			if (s[j]->ok)
				continue;
			w->failed = true;
			if (s[j]->err[0])
				fprintf(stderr,
					"iwcm-bench: %s depth %u: "
					"%s: %s\n",
					o->test->name, w->depth,
					o->sctp ? what_sctp[j] : what[j],
					s[j]->err);
		}
		if (w->failed)
			continue;
		if (dp_is_bw(o->test->dp)) {
			w->tcp_val = dp_report_bw(o, &w->tcp_cli);
			w->iw_val = dp_report_bw(o, &w->iw_cli);
		} else {
			qsort(w->tcp_lat, dp_nlat(o), sizeof(uint64_t),
			      bench_cmp_u64);
			qsort(w->iw_lat, dp_nlat(o), sizeof(uint64_t),
			      bench_cmp_u64);
			w->tcp_val = dp_report_lat_value(o, w->tcp_lat);
			w->iw_val = dp_report_lat_value(o, w->iw_lat);
		}
		w->ratio = w->tcp_val > 0.0 ? w->iw_val / w->tcp_val : 0.0;
	}
}

/* CPU time of a side as a percentage of one CPU over its span. */
static double dp_report_util(const struct dp_side *s)
{
	if (!s->wall_ns)
		return 0.0;
	return 100.0 * (double)(s->user_ns + s->sys_ns) / (double)s->wall_ns;
}

/*
 * The relay's cost: iwcmd's CPU time over the client's timed part, in
 * percent of one CPU, and per MiB moved (bandwidth) or per round trip
 * (latency); -1 when unknown.
 */
static double dp_report_daemon_util(const struct dp_side *s)
{
	if (!s->daemon_known || !s->wall_ns)
		return -1.0;
	return 100.0 * (double)s->daemon_ns / (double)s->wall_ns;
}

static double dp_report_daemon_per(const struct bench_opts *o,
				   const struct dp_side *s)
{
	double units = dp_is_bw(o->test->dp) ?
			       (double)o->iters * (double)o->size / MIB :
			       (double)o->iters;

	if (!s->daemon_known || units <= 0.0)
		return -1.0;
	return (double)s->daemon_ns / 1e3 / units;
}

static const char *dp_report_progress_str(const struct bench_opts *o)
{
	if (o->event)
		return "automatic, waits on a completion channel";
	return o->manual ? "manual, busy-polling iwcm_progress()" :
			   "automatic, busy-polling iwcm_poll_cq()";
}

static const char *const dp_what[] = {
	[BENCH_DP_WRITE_BW] = "RDMA Write bandwidth, client to server",
	[BENCH_DP_READ_BW] = "RDMA Read bandwidth, the client reads the "
			     "server",
	[BENCH_DP_SEND_LAT] = "Send ping-pong latency",
	[BENCH_DP_WRITE_LAT] = "RDMA Write ping-pong latency (polling the "
			       "last octet)",
	[BENCH_DP_ATOMIC_LAT] = "FetchAdd latency",
};

static const char *const dp_tcp_what[] = {
	[BENCH_DP_WRITE_BW] = "a stream, client to server",
	[BENCH_DP_READ_BW] = "a stream, server to client",
	[BENCH_DP_SEND_LAT] = "a ping-pong",
	[BENCH_DP_WRITE_LAT] = "a ping-pong",
	[BENCH_DP_ATOMIC_LAT] = "an 8-octet request and reply",
};

/* --transport sctp: what the two sides are. */
static void dp_report_text_sctp(const struct bench_opts *o,
				const struct dp_row *rows, unsigned int n)
{
	unsigned int i;

	printf("iwcm: DDP over SCTP %s (RFC 5043), %s "
	       "session, IRD/ORD %d\n      asked; progress: %s\n",
	       o->sctp_kernel ? "on the association iwcmd handed over" :
				"through iwcmd's relay",
	       o->mpa_rev == 2 ? "enhanced (RFC 6581 §7)" : "plain", DP_IRD_ORD,
	       dp_report_progress_str(o));
	for (i = 0; i < n; i++) {
		const struct dp_nego *g = &rows[i].nego;

		if (!g->known)
			continue;
		printf("      negotiated: IRD %u ORD %u, DDP Segments of at "
		       "most %u octets\n",
		       g->ird, g->ord, g->sctp_seg);
		break;
	}
	if (o->sctp_kernel)
		printf("sctp: raw kernel SCTP on loopback, one-to-one, "
		       "unordered, PPID 16\n      (iwcm: the association "
		       "handed to the client, no relay): %s,\n      in "
		       "messages of at most %zu octets\n",
		       dp_tcp_what[o->test->dp], n ? rows[0].base_seg : 0);
	else
		printf("sctp: raw usrsctp, one stack per process on its own "
		       "UDP port (RFC 6951),\n      one-to-one, unordered, "
		       "PPID 16: %s, in messages of at most %zu octets\n",
		       dp_tcp_what[o->test->dp], n ? rows[0].base_seg : 0);
}

/* The rows as a table, with what was measured and how; idle_left of
 * --idle's associations were still up at the end. */
void dp_report_text(const struct bench_opts *o, const struct dp_row *rows,
		    unsigned int n, unsigned long idle_left)
{
	enum bench_dp t = o->test->dp;
	bool bw = dp_is_bw(t);
	const char *bl = o->sctp ? "sctp" : "tcp";
	char h1[24], h2[24], h3[24];
	unsigned int i;

	printf("iwcm-bench %s: %s, %s, %ld CPUs, iwcmd %s\n", o->test->name,
	       dp_what[t], bench_address(), sysconf(_SC_NPROCESSORS_ONLN),
	       o->socket ? o->socket : "started for this run");
	if (o->sctp) {
		dp_report_text_sctp(o, rows, n);
		goto table;
	}
	printf("iwcm: MPA rev %u, CRC %s, markers %s, IRD/ORD %d asked; "
	       "progress: %s\n",
	       o->mpa_rev, o->crc ? "on" : "off", o->markers ? "on" : "off",
	       DP_IRD_ORD, dp_report_progress_str(o));
	for (i = 0; i < n; i++) {
		const struct dp_nego *g = &rows[i].nego;

		if (!g->known)
			continue;
		printf("      negotiated: IRD %u ORD %u, MULPDU %u\n", g->ird,
		       g->ord, g->mulpdu);
		break;
	}
	printf("tcp:  %s, %s %s, TCP_NODELAY\n", dp_tcp_what[t],
	       o->tcp_poll ? "busy-polling non-blocking" :
	       o->qps > 1  ? "non-blocking, poll(2)," :
			     "blocking",
	       o->tcp_gaps ? "readv(2)/writev(2) skipping 4 octets every "
			     "512 of the stream" :
			     "read(2)/write(2)");
	if (o->qps > 1)
		printf("-q %u: %u connections in one context (one progress "
		       "engine, one CQ) against\n%u TCP streams driven by one "
		       "thread per process, all at once\n",
		       o->qps, o->qps, o->qps);
table:
	printf("%lu iterations of %zu octets per row after %lu warm-up; one "
	       "process per side;\n",
	       o->iters, o->size, o->warmup);
	if (o->idle)
		printf("beside %lu SCTP associations to iwcmd that never carry "
		       "a session (%lu still up\nat the end);\n",
		       o->idle, idle_left);
	if (bw)
		printf("ratio = iwcm/%s %sbandwidth (higher is better)\n\n", bl,
		       o->qps > 1 ? "aggregate " : "");
	else if (o->qps > 1)
		printf("ratio = iwcm/tcp mean half round trip over the %u "
		       "ping-pongs (lower is better)\n\n",
		       o->qps);
	else
		printf("ratio = iwcm/%s typical (p50) half round trip "
		       "(lower is better)\n\n",
		       bl);
	snprintf(h1, sizeof(h1), bw ? "%s MiB/s" : "%s us", bl);
	snprintf(h2, sizeof(h2), "%s p99", bl);
	snprintf(h3, sizeof(h3), "%s cpu%%", bl);
	if (bw)
		printf("%-10s %10s %5s %7s %11s %11s %6s %9s %9s", "test",
		       "size", "depth", "iters", "iwcm MiB/s", h1, "ratio",
		       "iwcm cpu%", h3);
	else
		printf("%-10s %10s %7s %8s %8s %6s %8s %8s %9s %9s", "test",
		       "size", "iters", o->qps > 1 ? "iwcm avg" : "iwcm us",
		       o->qps > 1 ? "tcp avg" : h1, "ratio", "iwcm p99", h2,
		       "iwcm cpu%", h3);
	if (o->sctp)
		printf(" %7s %12s", "iwcmd%",
		       bw ? "iwcmd us/MiB" : "iwcmd us/rt");
	printf("\n");
	for (i = 0; i < n; i++) {
		const struct dp_row *w = &rows[i];
		char ic[24], tc[24];

		snprintf(ic, sizeof(ic), "%.0f/%.0f",
			 dp_report_util(&w->iw_cli),
			 dp_report_util(&w->iw_srv));
		snprintf(tc, sizeof(tc), "%.0f/%.0f",
			 dp_report_util(&w->tcp_cli),
			 dp_report_util(&w->tcp_srv));
		if (w->failed && bw) {
			printf("%-10s %10zu %5u %7lu %11s\n", o->test->name,
			       o->size, w->depth, o->iters, "failed");
		} else if (w->failed) {
			printf("%-10s %10zu %7lu %8s\n", o->test->name, o->size,
			       o->iters, "failed");
		} else if (bw) {
			printf("%-10s %10zu %5u %7lu %11.1f %11.1f %6.3f %9s "
			       "%9s",
			       o->test->name, o->size, w->depth, o->iters,
			       w->iw_val, w->tcp_val, w->ratio, ic, tc);
		} else {
			printf("%-10s %10zu %7lu %8.2f %8.2f %6.3f %8.2f "
			       "%8.2f %9s %9s",
			       o->test->name, o->size, o->iters, w->iw_val,
			       w->tcp_val, w->ratio,
			       bench_us(bench_percentile(w->iw_lat, dp_nlat(o),
							 99)),
			       bench_us(bench_percentile(w->tcp_lat, dp_nlat(o),
							 99)),
			       ic, tc);
		}
		if (o->sctp && !w->failed)
			printf(" %7.0f %12.1f",
			       dp_report_daemon_util(&w->iw_cli),
			       dp_report_daemon_per(o, &w->iw_cli));
		if (!w->failed)
			printf("\n");
	}
	printf("\ncpu%%: CPU time of the client/the server process over its "
	       "timed part,\nall threads, in percent of one CPU\n");
	if (o->sctp)
		printf("iwcmd%%, iwcmd us: the relay's cost, iwcmd's CPU time "
		       "over the client's timed\npart of the iwcm run (it "
		       "relays both ends' messages: one daemon, both\nends "
		       "of the association), in percent of one CPU and per %s\n",
		       bw ? "MiB" : "round trip");
}

static void dp_report_json_side(const struct bench_opts *o,
				const struct dp_row *w, bool iw)
{
	const struct dp_side *c = iw ? &w->iw_cli : &w->tcp_cli;
	const struct dp_side *s = iw ? &w->iw_srv : &w->tcp_srv;
	const uint64_t *lat = iw ? w->iw_lat : w->tcp_lat;
	size_t n = dp_nlat(o);

	printf("{\"value\":%.3f,\"seconds\":%.6f,", iw ? w->iw_val : w->tcp_val,
	       (double)c->wall_ns / 1e9);
	if (dp_is_bw(o->test->dp)) {
		printf("\"mib_per_sec\":%.3f,", iw ? w->iw_val : w->tcp_val);
	} else {
		printf("\"latency_us\":{\"min\":%.3f,\"p50\":%.3f,"
		       "\"p99\":%.3f,\"max\":%.3f,\"avg\":%.3f},",
		       bench_us(bench_percentile(lat, n, 0)),
		       bench_us(bench_percentile(lat, n, 50)),
		       bench_us(bench_percentile(lat, n, 99)),
		       bench_us(bench_percentile(lat, n, 100)),
		       dp_report_mean(o, lat));
	}
	printf("\"cpu\":{\"client\":{\"user\":%.6f,\"sys\":%.6f,"
	       "\"percent\":%.1f},\"server\":{\"user\":%.6f,\"sys\":%.6f,"
	       "\"percent\":%.1f}}",
	       (double)c->user_ns / 1e9, (double)c->sys_ns / 1e9,
	       dp_report_util(c), (double)s->user_ns / 1e9,
	       (double)s->sys_ns / 1e9, dp_report_util(s));
	if (iw && o->sctp && c->daemon_known)
		printf(",\"iwcmd\":{\"percent\":%.1f,\"%s\":%.3f}",
		       dp_report_daemon_util(c),
		       dp_is_bw(o->test->dp) ? "us_per_mib" : "us_per_rtt",
		       dp_report_daemon_per(o, c));
	/* two hosts: the server's own iwcmd, over the server's span */
	if (iw && o->sctp && o->server_socket && s->daemon_known)
		printf(",\"iwcmd_server\":{\"percent\":%.1f,\"%s\":%.3f}",
		       dp_report_daemon_util(s),
		       dp_is_bw(o->test->dp) ? "us_per_mib" : "us_per_rtt",
		       dp_report_daemon_per(o, s));
	if (!iw && o->sctp)
		printf(",\"message_max\":%zu", w->base_seg);
	if (iw && w->nego.known && o->sctp)
		printf(",\"negotiated\":{\"enhanced\":%s,\"ird\":%u,"
		       "\"ord\":%u,\"sctp_max_segment\":%u}",
		       o->mpa_rev == 2 ? "true" : "false", w->nego.ird,
		       w->nego.ord, w->nego.sctp_seg);
	else if (iw && w->nego.known)
		printf(",\"negotiated\":{\"mpa_rev\":%d,\"crc\":%s,"
		       "\"markers_tx\":%s,\"markers_rx\":%s,\"ird\":%u,"
		       "\"ord\":%u,\"mulpdu\":%u}",
		       w->nego.mpa_rev, w->nego.crc ? "true" : "false",
		       w->nego.markers_tx ? "true" : "false",
		       w->nego.markers_rx ? "true" : "false", w->nego.ird,
		       w->nego.ord, w->nego.mulpdu);
	printf("}");
}

/* The rows as one JSON object. */
void dp_report_json(const struct bench_opts *o, const struct dp_row *rows,
		    unsigned int n, unsigned long idle_left)
{
	bool bw = dp_is_bw(o->test->dp);
	unsigned int i;

	printf("{\"test\":\"%s\",\"iters\":%lu,\"warmup\":%lu,\"size\":%zu,"
	       "\"depths\":[",
	       o->test->name, o->iters, o->warmup, o->size);
	for (i = 0; bw && i < n; i++)
		printf("%s%u", i ? "," : "", rows[i].depth);
	printf("],");
	bench_json_host(o);
	printf(",\"baseline\":\"%s\",\"transport\":\"%s\",\"idle\":%lu,"
	       "\"idle_left\":%lu,\"qps\":%u,\"tcp_io\":\"%s\",\"tcp_gaps\":%s,"
	       "\"progress\":\"%s\",\"mpa_rev\":%u,\"crc\":%s,"
	       "\"markers\":%s,\"ird_ord\":%d,\"metric\":\"%s\","
	       "\"better\":\"%s\",\"results\":[\n",
	       o->sctp_kernel ? "kernel_sctp" :
	       o->sctp	      ? "usrsctp" :
				"tcp",
	       o->sctp ? "sctp" : "tcp", o->idle, idle_left, o->qps,
	       o->tcp_poll ? "poll" :
	       o->qps > 1  ? "multiplexed" :
			     "blocking",
	       o->tcp_gaps ? "true" : "false",
	       o->event	 ? "event" :
	       o->manual ? "manual" :
			   "busy",
	       o->mpa_rev, o->crc ? "true" : "false",
	       o->markers ? "true" : "false", DP_IRD_ORD,
	       bw	  ? "mib_per_sec" :
	       o->qps > 1 ? "half_rtt_mean_us" :
			    "half_rtt_p50_us",
	       bw ? "higher" : "lower");
	for (i = 0; i < n; i++) {
		const struct dp_row *w = &rows[i];

		printf("{\"name\":\"%s\",\"size\":%zu,\"depth\":%u,"
		       "\"iterations\":%lu,\"failed\":%s",
		       o->test->name, o->size, w->depth, o->iters,
		       w->failed ? "true" : "false");
		if (!w->failed) {
			printf(",\"iwcm\":");
			dp_report_json_side(o, w, true);
			printf(",\"%s\":", o->sctp_kernel ? "kernel_sctp" :
					   o->sctp	  ? "usrsctp" :
							    "tcp");
			dp_report_json_side(o, w, false);
			printf(",\"ratio\":%.4f", w->ratio);
		}
		printf("}%s\n", i + 1 < n ? "," : "");
	}
	printf("]}\n");
}
