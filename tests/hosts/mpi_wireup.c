/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_wireup: the wiring-up time of a job, from the barrier after
 * MPI_Init to the moment every rank has exchanged its first message
 * with every other rank (each connection made on demand by the
 * transport), as the slowest rank saw it.  Every message carries its
 * sender and receiver, checked.  Rank 0 prints
 *
 *   wireup: N ranks, S s (first message to all ranks)
 *
 * and every rank "rank R: ok" or a failure; exit status 0 when all
 * passed.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int rank, n, bad = 0, total = 0;
	double t0, t, tmax = 0;
	int *sbuf, *rbuf;
	MPI_Request *rq;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &n);
	sbuf = calloc((size_t)n, 2 * sizeof(int));
	rbuf = calloc((size_t)n, 2 * sizeof(int));
	rq = calloc(2 * (size_t)n, sizeof(*rq));
	if (!sbuf || !rbuf || !rq)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (int p = 0; p < n; p++) {
		sbuf[2 * p] = rank;
		sbuf[2 * p + 1] = p;
		MPI_Irecv(&rbuf[2 * p], 2, MPI_INT, p, 5, MPI_COMM_WORLD,
			  &rq[p]);
	}
	for (int k = 1; k <= n; k++) {
		int p = (rank + k) % n;

		MPI_Isend(&sbuf[2 * p], 2, MPI_INT, p, 5, MPI_COMM_WORLD,
			  &rq[n + p]);
	}
	MPI_Waitall(2 * n, rq, MPI_STATUSES_IGNORE);
	t = MPI_Wtime() - t0;
	for (int p = 0; p < n; p++)
		if (rbuf[2 * p] != p || rbuf[2 * p + 1] != rank)
			bad++;
	MPI_Reduce(&t, &tmax, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
	MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d: %s\n", rank, bad ? "FAILED" : "ok");
	if (rank == 0)
		printf("wireup: %d ranks, %.3f s (first message to all "
		       "ranks)\n",
		       n, tmax);
	free(sbuf);
	free(rbuf);
	free(rq);
	MPI_Finalize();
	return total ? 1 : 0;
}
