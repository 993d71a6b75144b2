/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_CM_H
#define IWCM_BENCH_CM_H

/*
 * The cm test's internals, shared by its files, each calling only the
 * ones below it:
 *
 *   cm.c       the rows, the iwcm loop (two contexts), the output
 *   cm_tcp.c   the raw TCP baseline: connect and accept pairs
 *   cm_sctp.c  the raw usrsctp baseline of --transport sctp
 *   cm_run.c   the counters of a row's run
 *   cm_idle.c  --idle: the connections held open beside the rows (TCP;
 *              the SCTP associations are sctp_idle.c's, bench.h)
 */
#include <stdbool.h>
#include <stdint.h>

#include "bench.h"

enum cm_kind {
	CM_TCP,
	CM_IWCM,
	CM_SCTP,
};

struct cm_row {
	const char *name;
	const char *desc;
	enum cm_kind kind;
	unsigned int mpa_rev; /* SCTP: 2 asks for the enhanced session */
	bool p2p;
	unsigned int rtr; /* offered by the initiator, and expected */
	bool sctp;	  /* DDP over SCTP (RFC 5043) */
};

/* One row's run: counters shared by the baseline and the iwcm loops. */
struct run {
	const struct cm_row *row;
	const struct bench_opts *o;
	unsigned int depth;
	unsigned long iters;
	unsigned long started;
	unsigned long done; /* completed + failed */
	unsigned long completed;
	unsigned long failed;
	unsigned int inflight;
	uint64_t *lat; /* NULL during the warm-up */
};

/* cm_run.c */
void run_fail(struct run *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void run_complete(struct run *r, uint64_t t0, uint64_t t_end);

/* cm_idle.c */
int cm_idle_open(const struct bench_opts *o);
unsigned long cm_idle_left(void);
void cm_idle_close(void);

/* cm_tcp.c */
int cm_tcp_run(struct run *r);

/* cm_sctp.c */
int cm_sctp_run(struct run *r);

#endif
