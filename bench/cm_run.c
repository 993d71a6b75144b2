/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The counters of a cm row's run, shared by its loops (cm.h).
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "cm.h"

/* Count a failed handshake and describe the first few. */
void run_fail(struct run *r, const char *fmt, ...)
{
	va_list ap;

	r->failed++;
	r->done++;
	if (r->failed > BENCH_FAIL_PRINT)
		return;
	fprintf(stderr, "iwcm-bench: %s depth %u: ", r->row->name, r->depth);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Count a handshake that completed at t_end, started at t0. */
void run_complete(struct run *r, uint64_t t0, uint64_t t_end)
{
	if (r->lat)
		r->lat[r->completed] = t_end - t0;
	r->completed++;
	r->done++;
}
