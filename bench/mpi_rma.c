/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_rma: MPI one-sided latency and bandwidth from rank 0 to rank 1,
 * shaped like the OSU micro-benchmarks with a passive-target lock:
 * osu_put_latency and osu_get_latency (one MPI_Put or MPI_Get, then
 * MPI_Win_flush, timed per operation) and osu_put_bw and osu_get_bw
 * (windows of 64 operations, each followed by one MPI_Win_flush).
 * Rank 1 makes no call during a size's timing but the MPI_Barrier that
 * ends it, so a one-sided component that needs the target's MPI calls (osc pt2pt)
 * shows what that costs.  Whatever osc component mpirun selects;
 * bench/mpi-rma-compare.sh runs it over several.
 *
 *   mpirun -n 2 mpi_rma [-s MIN_SIZE] [-m MAX_SIZE] [-i ITERS]
 *                       [-w WINDOWS]
 *
 * (sizes 1, 4, 16, ... from the first power of 4 at or above MIN_SIZE,
 * 1 by default, up to MAX_SIZE, 4 MiB by default).  Latency: ITERS
 * operations per size, 200 by default, a tenth of them above 64 KiB.
 * Bandwidth: WINDOWS timed windows per size, 10 by default, after
 * SKIP_WINDOWS untimed ones, at every size: each window moves 64 x size
 * octets, 64 MiB at 1 MiB, so the default times 640 MiB there (about
 * a second on loopback).  Three windows, as a tenth of a tenth of the
 * latency count once gave above 64 KiB, let one scheduling hiccup move
 * the figure at 1 MiB by tens of percent.
 *
 * Rank 0 prints one line per size:
 * "size put_latency_us get_latency_us put_MBps get_MBps".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW 64
#define SKIP_ITERS 10
#define SKIP_WINDOWS 2

/* Microseconds per operation, each followed by a flush. */
static double latency(MPI_Win win, char *buf, int size, int iters, int get)
{
	double t0 = 0;

	MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
	for (int i = 0; i < iters + SKIP_ITERS; i++) {
		if (i == SKIP_ITERS)
			t0 = MPI_Wtime();
		if (get)
			MPI_Get(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
		else
			MPI_Put(buf, size, MPI_CHAR, 1, 0, size, MPI_CHAR, win);
		MPI_Win_flush(1, win);
	}
	t0 = MPI_Wtime() - t0;
	MPI_Win_unlock(1, win);
	return t0 * 1e6 / iters;
}

/* MB/s of WINDOWS windows of operations, one flush per window. */
static double bandwidth(MPI_Win win, char *buf, int size, int windows, int get)
{
	double t0 = 0;

	MPI_Win_lock(MPI_LOCK_SHARED, 1, 0, win);
	for (int i = 0; i < windows + SKIP_WINDOWS; i++) {
		if (i == SKIP_WINDOWS)
			t0 = MPI_Wtime();
		for (int w = 0; w < WINDOW; w++) {
			if (get)
				MPI_Get(buf, size, MPI_CHAR, 1, 0, size,
					MPI_CHAR, win);
			else
				MPI_Put(buf, size, MPI_CHAR, 1, 0, size,
					MPI_CHAR, win);
		}
		MPI_Win_flush(1, win);
	}
	t0 = MPI_Wtime() - t0;
	MPI_Win_unlock(1, win);
	return (double)size * WINDOW * windows / t0 / 1e6;
}

int main(int argc, char **argv)
{
	int rank, nranks, min = 1, max = 4 << 20, iters = 200, windows = 10;
	int opt, bad = 0;
	char *buf, *base;
	MPI_Win win;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "s:m:i:w:")) != -1) {
		if (opt == 's')
			min = atoi(optarg);
		else if (opt == 'm')
			max = atoi(optarg);
		else if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'w')
			windows = atoi(optarg);
		else
			bad = 1;
	}
	if (bad || optind != argc || nranks != 2 || min < 1 || max < 1 ||
	    iters < 1 || windows < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -n 2 mpi_rma "
					"[-s MIN_SIZE] [-m MAX_SIZE] "
					"[-i ITERS] [-w WINDOWS]\n");
		MPI_Finalize();
		return 2;
	}
	buf = malloc((size_t)max);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(buf, 'a', (size_t)max);
	/* MPI_Win_create: on one host, osc rdma puts the memory of
	 * MPI_Win_allocate in a shared segment and copies, whatever the
	 * network; the memory of MPI_Win_create it reaches through it. */
	base = malloc((size_t)max);
	if (!base)
		MPI_Abort(MPI_COMM_WORLD, 1);
	MPI_Win_create(base, max, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	if (rank == 0)
		printf("# size put_latency_us get_latency_us put_MBps "
		       "get_MBps\n");
	for (int size = 1; size <= max; size *= 4) {
		if (size < min)
			continue;
		int n = size > 65536 ? iters / 10 + 1 : iters;
		double pl = 0, gl = 0, pb = 0, gb = 0;

		MPI_Barrier(MPI_COMM_WORLD);
		if (rank == 0) {
			pl = latency(win, buf, size, n, 0);
			gl = latency(win, buf, size, n, 1);
			pb = bandwidth(win, buf, size, windows, 0);
			gb = bandwidth(win, buf, size, windows, 1);
			printf("%d %.2f %.2f %.3f %.3f\n", size, pl, gl, pb,
			       gb);
			fflush(stdout);
		}
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Win_free(&win);
	free(base);
	free(buf);
	MPI_Finalize();
	return 0;
}
