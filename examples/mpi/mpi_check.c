/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_check: MPI traffic whose every octet is verified, to run over the
 * libfabric provider iwcm (through ofi_rxm):
 *
 *   mpirun -n 4 --mca pml cm --mca mtl ofi \
 *          --mca mtl_ofi_provider_include "iwcm;ofi_rxm" mpi_check
 *
 * Point-to-point from 1 octet to 4 MiB between every pair of ranks (a
 * ring in both directions, and each rank with each other), a window of
 * large non-blocking sends from one buffer (osu_bw's pattern: the same
 * octets registered once per rendezvous, several in flight), Allreduce and
 * Alltoall, and one-sided windows: Put, Get and Fetch_and_op (MPI_SUM)
 * from every rank to every rank.  Each rank prints one line; the exit
 * status is 0 only when every check passed on every rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SIZE (4 << 20)
#define WINDOW 8
#define WINDOW_SIZE ((1 << 20) + 5)
#define WIN_WORDS 1024

static int rank, nranks, errors;

static void check(int ok, const char *what, long detail)
{
	if (!ok) {
		if (errors < 10)
			fprintf(stderr, "rank %d: %s failed (%ld)\n", rank,
				what, detail);
		errors++;
	}
}

/* The octet at offset i of a message from rank src of size len. */
static uint8_t pat(int src, size_t len, size_t i)
{
	return (uint8_t)(src * 31 + len * 7 + i * 13 + (i >> 8));
}

static void fill(uint8_t *p, int src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		p[i] = pat(src, len, i);
}

static size_t verify(const uint8_t *p, int src, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != pat(src, len, i))
			return i + 1;
	return 0;
}

static void p2p(uint8_t *sbuf, uint8_t *rbuf)
{
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	size_t len;

	for (len = 1; len <= MAX_SIZE; len *= 2) {
		MPI_Status st;
		int count;

		fill(sbuf, rank, len);
		memset(rbuf, 0, len);
		MPI_Sendrecv(sbuf, (int)len, MPI_BYTE, right, (int)len, rbuf,
			     (int)len, MPI_BYTE, left, (int)len, MPI_COMM_WORLD,
			     &st);
		MPI_Get_count(&st, MPI_BYTE, &count);
		check((size_t)count == len, "ring count", count);
		check(!verify(rbuf, left, len), "ring data", (long)len);
		/* The other direction, with odd sizes. */
		fill(sbuf, rank, len + 3);
		MPI_Sendrecv(sbuf, (int)len + 3, MPI_BYTE, left, 1, rbuf,
			     (int)len + 3, MPI_BYTE, right, 1, MPI_COMM_WORLD,
			     &st);
		check(!verify(rbuf, right, len + 3), "reverse ring data",
		      (long)len + 3);
	}
	/* Every pair, non-blocking, 64 KiB + 1 each. */
	len = 65537;
	for (int peer = 0; peer < nranks; peer++) {
		MPI_Request rq[2];

		if (peer == rank)
			continue;
		fill(sbuf, rank, len);
		MPI_Irecv(rbuf, (int)len, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
			  &rq[0]);
		MPI_Isend(sbuf, (int)len, MPI_BYTE, peer, 7, MPI_COMM_WORLD,
			  &rq[1]);
		MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
		check(!verify(rbuf, peer, len), "pair data", peer);
	}
}

/* WINDOW sends of WINDOW_SIZE octets in flight from one buffer to the
 * right neighbour, received into distinct slices, each slice checked. */
static void window(uint8_t *sbuf)
{
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;
	MPI_Request rq[2 * WINDOW];
	uint8_t *rbuf = calloc(WINDOW, WINDOW_SIZE);
	int w;

	if (!rbuf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	fill(sbuf, rank, WINDOW_SIZE);
	for (int round = 0; round < 3; round++) {
		memset(rbuf, 0, (size_t)WINDOW * WINDOW_SIZE);
		for (w = 0; w < WINDOW; w++)
			MPI_Irecv(rbuf + (size_t)w * WINDOW_SIZE, WINDOW_SIZE,
				  MPI_BYTE, left, 9, MPI_COMM_WORLD, &rq[w]);
		for (w = 0; w < WINDOW; w++)
			MPI_Isend(sbuf, WINDOW_SIZE, MPI_BYTE, right, 9,
				  MPI_COMM_WORLD, &rq[WINDOW + w]);
		MPI_Waitall(2 * WINDOW, rq, MPI_STATUSES_IGNORE);
		for (w = 0; w < WINDOW; w++)
			check(!verify(rbuf + (size_t)w * WINDOW_SIZE, left,
				      WINDOW_SIZE),
			      "window data", w);
	}
	free(rbuf);
}

static void collectives(void)
{
	long in[64], out[64], *a2a_s, *a2a_r;
	int i, r;

	for (i = 0; i < 64; i++)
		in[i] = rank * 1000 + i;
	MPI_Allreduce(in, out, 64, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < 64; i++) {
		long want =
			1000L * nranks * (nranks - 1) / 2 + (long)i * nranks;

		check(out[i] == want, "allreduce", i);
	}
	a2a_s = malloc(sizeof(long) * 16 * nranks);
	a2a_r = malloc(sizeof(long) * 16 * nranks);
	for (r = 0; r < nranks; r++)
		for (i = 0; i < 16; i++)
			a2a_s[r * 16 + i] = rank * 100000 + r * 100 + i;
	MPI_Alltoall(a2a_s, 16, MPI_LONG, a2a_r, 16, MPI_LONG, MPI_COMM_WORLD);
	for (r = 0; r < nranks; r++)
		for (i = 0; i < 16; i++)
			check(a2a_r[r * 16 + i] == r * 100000 + rank * 100 + i,
			      "alltoall", r);
	free(a2a_s);
	free(a2a_r);
}

static void one_sided(void)
{
	int64_t *base, *got, one = 1, old;
	MPI_Win win;
	int r, i;

	MPI_Win_allocate(WIN_WORDS * sizeof(int64_t), sizeof(int64_t),
			 MPI_INFO_NULL, MPI_COMM_WORLD, &base, &win);
	got = malloc(WIN_WORDS * sizeof(int64_t));
	for (i = 0; i < WIN_WORDS; i++)
		base[i] = 0;
	MPI_Win_fence(0, win);
	/* Each rank Puts its slice (8 words at rank * 8) into every rank. */
	for (r = 0; r < nranks; r++) {
		int64_t mine[8];

		for (i = 0; i < 8; i++)
			mine[i] = rank * 1000000 + r * 1000 + i;
		MPI_Put(mine, 8, MPI_INT64_T, r, rank * 8, 8, MPI_INT64_T, win);
	}
	MPI_Win_fence(0, win);
	for (r = 0; r < nranks; r++)
		for (i = 0; i < 8; i++)
			check(base[r * 8 + i] == r * 1000000 + rank * 1000 + i,
			      "put", r);
	/* Get the whole Put area of the next rank back. */
	MPI_Get(got, nranks * 8, MPI_INT64_T, (rank + 1) % nranks, 0,
		nranks * 8, MPI_INT64_T, win);
	MPI_Win_fence(0, win);
	for (r = 0; r < nranks; r++)
		for (i = 0; i < 8; i++)
			check(got[r * 8 + i] ==
				      r * 1000000 +
					      ((rank + 1) % nranks) * 1000 + i,
			      "get", r);
	/* Fetch_and_op: every rank adds 1 to word 512 of every rank, 10
	 * times; the old values seen are distinct and the total right. */
	MPI_Win_lock_all(0, win);
	for (int k = 0; k < 10; k++) {
		for (r = 0; r < nranks; r++) {
			MPI_Fetch_and_op(&one, &old, MPI_INT64_T, r, 512,
					 MPI_SUM, win);
			MPI_Win_flush(r, win);
			check(old >= 0 && old < 10 * nranks, "fetch_and_op old",
			      (long)old);
		}
	}
	MPI_Win_unlock_all(win);
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Win_lock(MPI_LOCK_SHARED, rank, 0, win);
	check(base[512] == 10 * nranks, "fetch_and_op total", (long)base[512]);
	MPI_Win_unlock(rank, win);
	MPI_Barrier(MPI_COMM_WORLD);
	free(got);
	MPI_Win_free(&win);
}

int main(int argc, char **argv)
{
	uint8_t *sbuf, *rbuf;
	int total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	sbuf = malloc(MAX_SIZE + 16);
	rbuf = malloc(MAX_SIZE + 16);
	if (!sbuf || !rbuf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	p2p(sbuf, rbuf);
	window(sbuf);
	collectives();
	one_sided();
	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d: point-to-point 1 octet to 4 MiB, window, "
	       "allreduce, alltoall, put, get, fetch_and_op: %s\n",
	       rank, nranks, errors ? "FAILED" : "ok");
	free(sbuf);
	free(rbuf);
	MPI_Finalize();
	return total ? 1 : 0;
}
