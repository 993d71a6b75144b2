/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_DP_H
#define IWCM_BENCH_DP_H

/*
 * The datapath tests' internals, shared by their files (dp.c describes
 * the tests).  Each file is one concern and calls only the ones below it:
 *
 *   dp.c         the run: rows, the two processes, dp_bench()
 *   dp_report.c  figures of the rows, text and JSON output
 *   dp_tcp.c     the TCP baselines: one stream, and -q N streams
 *   dp_sctp.c    the usrsctp baseline of --transport sctp (sctp_raw.c)
 *   dp_iw.c      the iwcm side of a row: connect or accept, run, close
 *   dp_ops.c     the iwcm test loops: windows, ping-pongs, atomics
 *   dp_wait.c    iwcm waiting: completions, receives, CM events
 *   dp_ep.c      iwcm endpoints: context, PD, CQ, SRQ, buffers, QP
 *   dp_ctl.c     the control socket between the two processes
 *   dp_side.c    one side's result: failures, time and CPU, the pattern
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iwcm/iwcm.h>

#include "bench.h"

/* Receive buffers of each QP's shared receive queue. */
#define DP_RX_SLOTS 4
/* perftest's default inline size of the latency tests. */
#define DP_INLINE_MAX 236
/* IRD and ORD asked for on both ends. */
#define DP_IRD_ORD 16
/* The server's atomic word before the first FetchAdd, and its Add Data. */
#define DP_ATOMIC_INIT 0x0123456789abcdefULL
#define DP_ATOMIC_ADD 1
/* Spins between two looks at the clock and the async events. */
#define DP_SPIN_CHECK 1024

/* In-band control messages (8 octets, host order). */
enum dp_msg {
	DP_MSG_HELLO = 1,
	DP_MSG_READY,
	DP_MSG_START,
	DP_MSG_DONE,
};

/* What one process measured of one run. */
struct dp_side {
	int ok;
	uint64_t wall_ns;
	uint64_t user_ns;
	uint64_t sys_ns;
	uint64_t daemon_ns; /* iwcmd's CPU time over the span, if known */
	bool daemon_known;
	char err[200];
};

/* What the connection negotiated, as the client's QP reports it. */
struct dp_nego {
	bool known;
	int mpa_rev;
	int crc;
	int markers_tx;
	int markers_rx;
	uint32_t ird;
	uint32_t ord;
	uint32_t mulpdu;
	uint32_t sctp_seg; /* --transport sctp: the largest DDP Segment */
};

/* One measurement (TCP or iwcm) of one row, in one process. */
struct dp_run {
	const struct bench_opts *o;
	enum bench_dp t;
	bool server;
	unsigned int depth;
	unsigned long n; /* timed iterations */
	unsigned long warm;
	int ctl;
	bool ctl_lost;
	struct dp_side side; /* this process */
	struct dp_side peer; /* client: the server's, from DP_CTL_RESULT */
	uint64_t *lat;	     /* client: n half round trips (latency) */
	struct dp_nego nego; /* client, iwcm */
	uint64_t tcp_off;    /* --tcp-gaps: stream octets moved */
	size_t seg;	     /* usrsctp baseline: the message size */
	uint32_t ctl_aux;    /* client: the server's second number */
	struct dp_ep *eps;   /* iwcm: the -q endpoints, sharing eps[0]'s */
	unsigned int neps;   /* context, PD and CQ */
};

/* A row of the output: one depth (bandwidth) or the only one. */
struct dp_row {
	unsigned int depth;
	struct dp_side tcp_cli, tcp_srv, iw_cli, iw_srv;
	uint64_t *tcp_lat, *iw_lat;
	struct dp_nego nego;
	size_t base_seg; /* usrsctp baseline: its message size */
	bool failed;
	double tcp_val, iw_val, ratio;
};

/* One end of the iwcm connection. */
struct dp_ep {
	struct dp_run *r;
	bool owner;  /* its context, PD, CQ (-q: the first) */
	bool manual; /* IWCM_CTX_MANUAL_PROGRESS (--manual) */
	bool busy;   /* busy-polls (no --event) */
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *ch;
	struct iwcm_cq *cq;
	struct iwcm_srq *srq;
	struct iwcm_qp *qp;
	struct iwcm_conn *conn;
	struct iwcm_listener *l;
	struct iwcm_conn_param *param;
	uint32_t sq_depth;
	bool armed;
	bool passive; /* waits as long as the peer works */
	/* the region the peer reaches, and the local source or sink */
	uint8_t *buf;
	size_t buf_len;
	struct iwcm_mr *buf_mr;
	uint8_t *src;
	size_t src_len;
	struct iwcm_mr *src_mr;
	/* receive slots; received ones wait in rx_q until taken */
	uint8_t *rx;
	size_t rx_len;
	struct iwcm_mr *rx_mr;
	uint32_t rx_q[DP_RX_SLOTS];
	uint32_t rx_qlen[DP_RX_SLOTS];
	unsigned int rx_head, rx_count;
	/* the peer's region */
	uint64_t r_addr;
	uint32_t r_key;
	uint32_t r_len;
	/* send work requests: ids are posted in order, sent is the id
	 * after the latest send completion */
	uint64_t posted;
	uint64_t sent;
	struct iwcm_send_wr *wrs;
	struct iwcm_sge sge;
	/* -q send_lat: round trips done, the current one's start */
	unsigned long done;
	uint64_t t0;
};

/* A point in time and the CPU time of the process so far. */
struct dp_mark {
	uint64_t t;
	uint64_t user;
	uint64_t sys;
	uint64_t daemon; /* iwcmd's CPU time, 0 if unknown */
};

static inline bool dp_is_bw(enum bench_dp t)
{
	return t == BENCH_DP_WRITE_BW || t == BENCH_DP_READ_BW;
}

/* Latency samples of a row: iters of each of the -q ping-pongs. */
static inline size_t dp_nlat(const struct bench_opts *o)
{
	return (size_t)o->iters * o->qps;
}

/* dp_side.c */
void dp_side_fail(struct dp_side *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void dp_side_mark(struct dp_mark *m);
void dp_side_span(struct dp_side *s, const struct dp_mark *a,
		  const struct dp_mark *b);
void dp_side_verify(struct dp_side *s, const char *what, const uint8_t *p,
		    size_t n);
uint8_t *dp_side_alloc(struct dp_side *s, size_t n, bool pattern);
int dp_side_bufs(struct dp_run *r, size_t slack, uint8_t **buf, uint8_t **src);

/* dp_ctl.c */
void dp_ctl_port(struct dp_run *r, int port);
void dp_ctl_port_aux(struct dp_run *r, int port, uint32_t aux);
uint16_t dp_ctl_wait_port(struct dp_run *r);
void dp_ctl_finish(struct dp_run *r);

/* dp_tcp.c */
void dp_tcp_server(struct dp_run *r);
void dp_tcp_client(struct dp_run *r);

/* dp_sctp.c */
void dp_sctp_server(struct dp_run *r);
void dp_sctp_client(struct dp_run *r);
void dp_sctp_stop(void);

/* dp_ep.c */
int dp_ep_open_all(struct dp_run *r);
void dp_ep_close_all(struct dp_run *r);
int dp_ep_post_rx(struct dp_ep *e, uint32_t i);
struct dp_ep *dp_ep_of(struct dp_ep *e, const struct iwcm_qp *qp);
struct iwcm_conn_attr dp_ep_conn_attr(const struct iwcm_conn *c);
int dp_ep_qp(struct dp_ep *e);

/* dp_wait.c */
int dp_wait_poll(struct dp_ep *e);
int dp_wait_recv(struct dp_ep *e, uint32_t *slot, uint32_t *len);
int dp_wait_msg(struct dp_ep *e, enum dp_msg msg);
int dp_wait_sent(struct dp_ep *e, uint64_t id);
int dp_wait_tag(struct dp_ep *e, const uint8_t *p, uint8_t tag);
struct iwcm_event *dp_wait_cm_event(struct dp_ep *e);

/* dp_ops.c */
int dp_ops_post_msg(struct dp_ep *e, enum dp_msg msg);
void dp_ops_serve(struct dp_run *r, struct dp_ep *e);
void dp_ops_drive(struct dp_run *r, struct dp_ep *e);

/* dp_iw.c */
void dp_iw_server(struct dp_run *r);
void dp_iw_client(struct dp_run *r);

/* dp_report.c */
void dp_report_figures(const struct bench_opts *o, struct dp_row *rows,
		       unsigned int n);
void dp_report_text(const struct bench_opts *o, const struct dp_row *rows,
		    unsigned int n, unsigned long idle_left);
void dp_report_json(const struct bench_opts *o, const struct dp_row *rows,
		    unsigned int n, unsigned long idle_left);

#endif
