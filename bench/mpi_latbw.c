/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_latbw: MPI latency and bandwidth between ranks 0 and 1, shaped
 * like the OSU micro-benchmarks' osu_latency (ping-pong, half the round
 * trip) and osu_bw (a window of 64 MPI_Isend answered by one ack per
 * window).  Whatever transport mpirun selects; bench/mpi-compare.sh
 * runs it over iwcm;ofi_rxm, tcp;ofi_rxm and Open MPI's TCP BTL.
 *
 *   mpirun -n 2 mpi_latbw [-m MAX_SIZE] [-i ITERS] [-w WINDOWS]
 *
 * (4 MiB; ITERS round trips per size, 200 by default, a tenth of them
 * above 64 KiB; WINDOWS timed windows per size, 10 by default, after
 * SKIP_WINDOWS untimed ones: 640 MiB at 1 MiB.  Three windows, as a
 * tenth of a tenth of ITERS once gave above 64 KiB, let one scheduling
 * hiccup move the bandwidth there by tens of percent.)
 *
 * Rank 0 prints one line per size: "size latency_us bandwidth_MBps".
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WINDOW 64
#define SKIP_ITERS 10
#define SKIP_WINDOWS 2

static double latency(char *sbuf, char *rbuf, int size, int iters, int rank)
{
	double t0 = 0;

	for (int i = 0; i < iters + SKIP_ITERS; i++) {
		if (i == SKIP_ITERS) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			MPI_Send(sbuf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(rbuf, size, MPI_CHAR, 1, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(rbuf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
			MPI_Send(sbuf, size, MPI_CHAR, 0, 1, MPI_COMM_WORLD);
		}
	}
	return (MPI_Wtime() - t0) * 1e6 / (2.0 * iters);
}

static double bandwidth(char *sbuf, char *rbuf, int size, int windows, int rank)
{
	MPI_Request rq[WINDOW];
	double t0 = 0;
	char ack;

	for (int i = 0; i < windows + SKIP_WINDOWS; i++) {
		if (i == SKIP_WINDOWS) {
			MPI_Barrier(MPI_COMM_WORLD);
			t0 = MPI_Wtime();
		}
		if (rank == 0) {
			for (int w = 0; w < WINDOW; w++)
				MPI_Isend(sbuf, size, MPI_CHAR, 1, 2,
					  MPI_COMM_WORLD, &rq[w]);
			MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
			MPI_Recv(&ack, 1, MPI_CHAR, 1, 3, MPI_COMM_WORLD,
				 MPI_STATUS_IGNORE);
		} else {
			for (int w = 0; w < WINDOW; w++)
				MPI_Irecv(rbuf, size, MPI_CHAR, 0, 2,
					  MPI_COMM_WORLD, &rq[w]);
			MPI_Waitall(WINDOW, rq, MPI_STATUSES_IGNORE);
			MPI_Send(&ack, 1, MPI_CHAR, 0, 3, MPI_COMM_WORLD);
		}
	}
	return (double)size * WINDOW * windows / (MPI_Wtime() - t0) / 1e6;
}

int main(int argc, char **argv)
{
	int rank, nranks, max = 4 << 20, iters = 200, windows = 10, opt;
	int bad = 0;
	char *sbuf, *rbuf;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "m:i:w:")) != -1) {
		if (opt == 'm')
			max = atoi(optarg);
		else if (opt == 'i')
			iters = atoi(optarg);
		else if (opt == 'w')
			windows = atoi(optarg);
		else
			bad = 1;
	}
	if (bad || optind != argc || nranks != 2 || max < 1 || iters < 1 ||
	    windows < 1) {
		if (rank == 0)
			fprintf(stderr, "usage: mpirun -n 2 mpi_latbw "
					"[-m MAX_SIZE] [-i ITERS] "
					"[-w WINDOWS]\n");
		MPI_Finalize();
		return 2;
	}
	sbuf = malloc((size_t)max);
	rbuf = malloc((size_t)max);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 1);
	memset(sbuf, 'a', (size_t)max);
	if (rank == 0)
		printf("# size latency_us bandwidth_MBps\n");
	for (int size = 1; size <= max; size *= 4) {
		int n = size > 65536 ? iters / 10 + 1 : iters;
		double lat = latency(sbuf, rbuf, size, n, rank);
		double bw = bandwidth(sbuf, rbuf, size, windows, rank);

		if (rank == 0)
			printf("%d %.2f %.3f\n", size, lat, bw);
		fflush(stdout);
	}
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return 0;
}
