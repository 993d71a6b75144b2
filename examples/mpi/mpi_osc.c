/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_osc: MPI one-sided operations whose every result is verified, to
 * run over either of Open MPI's one-sided components (tests/integ/
 * mpi_osc.sh):
 *
 *   mpirun -n 4 ... --mca osc pt2pt mpi_osc
 *   mpirun -n 4 ... --mca osc rdma  mpi_osc --expect-rdma
 *
 * On a window of MPI_Win_create memory (on one host osc rdma copies
 * through shared memory for MPI_Win_allocate, whatever the network):
 * MPI_Put and MPI_Get from 1 octet to 1 MiB to the neighbours in fence
 * epochs; MPI_Accumulate
 * (MPI_SUM) from every rank to one word of rank 0; MPI_Fetch_and_op
 * (MPI_SUM) as a ticket counter whose tickets must be a permutation; and
 * MPI_Compare_and_swap that exactly one rank wins.  With --narrow, the
 * same on 32-bit integers, side by side in one 8-octet word (MPI_SUM on
 * MPI_INT32_T with a negative start, a Fetch_and_op ticket counter and
 * a Compare_and_swap on the other half); --bitwise adds MPI_BOR on
 * MPI_UINT64_T and MPI_BXOR on MPI_UINT32_T in one word (Open MPI 4.1's
 * btl ofi aborts on bitwise atomics by itself, whatever the provider:
 * over osc rdma they need --mca osc_rdma_acc_use_amo 0).  With
 * --expect-rdma rank 0 leaves its own window's atomics out
 * (self_atomics below).
 *
 * Then a passive-target epoch during which the target makes no MPI call:
 * rank 0 locks the last rank's window, puts a block, flushes, puts a
 * flag and unlocks, while the target spins on the flag in its own memory
 * for up to a few seconds.  Over RDMA (osc rdma) the data lands without
 * the target and it sees the flag in time; a component that needs the
 * target's MPI calls (osc pt2pt) completes the epoch once the target
 * calls MPI again.  Both must leave the right data; --expect-rdma makes
 * the flag seen outside MPI a requirement.
 *
 * Each rank prints one line; the exit status is 0 only when every check
 * passed on every rank.
 */
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BULK (1 << 20)
/* Words at the start of the window, then the bulk area. */
#define W_ACC 0
#define W_TICKET 1
#define W_CAS 2
#define W_FLAG 3
/* --narrow: two 32-bit halves (a sum and a ticket counter), a word of
 * bits, two 32-bit halves (a compare-and-swap and a guard). */
#define W_N32 4
#define W_BITS 5
#define W_CAS32 6
#define HDR_WORDS 8
#define HDR_BYTES (HDR_WORDS * sizeof(uint64_t))
#define WIN_BYTES (HDR_BYTES + BULK)
/* How long the sleeping target waits for the flag, in seconds. */
#define SLEEP_S 5

static int rank, nranks, errors;
/* Whether rank 0 takes part in the atomics on its own window.  Not over
 * osc rdma: Open MPI 4.1 hands an atomic on a rank's own window of
 * MPI_Win_create memory to the btl with no registration handle for it,
 * which btl ofi dereferences (mca_btl_ofi_acswap(), _afop(), _aop());
 * the other ranks' atomics are the ones that cross the network. */
static int self_atomics = 1;

static void check(int ok, const char *what, long detail)
{
	if (!ok) {
		if (errors < 10)
			fprintf(stderr, "rank %d: %s failed (%ld)\n", rank,
				what, detail);
		errors++;
	}
}

static uint8_t octet(size_t i, int seed)
{
	return (uint8_t)(i * 31 + (size_t)seed * 7 + 1);
}

static void fill(uint8_t *p, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = octet(i, seed);
}

static int same(const uint8_t *p, size_t len, int seed)
{
	for (size_t i = 0; i < len; i++)
		if (p[i] != octet(i, seed))
			return 0;
	return 1;
}

/* Put to the right neighbour, Get from it, at each size. */
static void put_get(MPI_Win win, uint8_t *base, uint8_t *buf)
{
	static const size_t sizes[] = { 1, 8, 100, 4096, 65536, BULK };
	int right = (rank + 1) % nranks, left = (rank + nranks - 1) % nranks;

	for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		size_t len = sizes[s];
		int seed = (int)s * 16 + rank;

		fill(buf, len, seed);
		MPI_Win_fence(0, win);
		MPI_Put(buf, (int)len, MPI_BYTE, right, HDR_BYTES, (int)len,
			MPI_BYTE, win);
		MPI_Win_fence(0, win);
		check(same(base + HDR_BYTES, len, (int)s * 16 + left), "put",
		      (long)len);
		memset(buf, 0, len);
		MPI_Get(buf, (int)len, MPI_BYTE, right, HDR_BYTES, (int)len,
			MPI_BYTE, win);
		MPI_Win_fence(0, win);
		check(same(buf, len, seed), "get", (long)len);
	}
}

/* Accumulate, Fetch_and_op and Compare_and_swap on rank 0's words, by
 * every rank (rank 0 too when self_atomics). */
static void atomics(MPI_Win win, uint64_t *words)
{
	uint64_t one = 1, add = (uint64_t)rank + 1, ticket = (uint64_t)-1;
	uint64_t want = (uint64_t)-1, mine = (uint64_t)rank, old = 0;
	uint64_t *tickets = calloc((size_t)nranks, sizeof(*tickets));
	int won, winners = 0, first = self_atomics ? 0 : 1;
	uint64_t takers = (uint64_t)(nranks - first);
	int takes = rank >= first;

	if (rank == 0) {
		words[W_ACC] = 0;
		words[W_TICKET] = 0;
		words[W_CAS] = (uint64_t)-1;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (takes) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Accumulate(&add, 1, MPI_UINT64_T, 0,
			       W_ACC * sizeof(uint64_t), 1, MPI_UINT64_T,
			       MPI_SUM, win);
		MPI_Fetch_and_op(&one, &ticket, MPI_UINT64_T, 0,
				 W_TICKET * sizeof(uint64_t), MPI_SUM, win);
		MPI_Compare_and_swap(&mine, &want, &old, MPI_UINT64_T, 0,
				     W_CAS * sizeof(uint64_t), win);
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	won = takes && old == (uint64_t)-1;
	MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(winners == 1, "compare_and_swap winners", winners);
	MPI_Allgather(&ticket, 1, MPI_UINT64_T, tickets, 1, MPI_UINT64_T,
		      MPI_COMM_WORLD);
	for (int r = 0; r < (int)takers; r++) {
		int seen = 0;

		for (int q = 0; q < nranks; q++)
			seen += tickets[q] == (uint64_t)r;
		check(seen == 1, "fetch_and_op tickets", r);
	}
	if (rank == 0) {
		uint64_t sum = (uint64_t)nranks * ((uint64_t)nranks + 1) / 2 -
			       (uint64_t)first;

		/* The window is this rank's memory: read it in an epoch of
		 * its own (the separate memory model allows no less). */
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		check(words[W_ACC] == sum, "accumulate", (long)words[W_ACC]);
		check(words[W_TICKET] == takers, "fetch_and_op",
		      (long)words[W_TICKET]);
		check(words[W_CAS] < (uint64_t)nranks, "compare_and_swap",
		      (long)words[W_CAS]);
		MPI_Win_unlock(0, win);
	}
	free(tickets);
}

/* The --narrow atomics on rank 0's words, and the --bitwise ones when
 * bitwise, by every rank (rank 0 too when self_atomics). */
static void narrow(MPI_Win win, uint64_t *words, int bitwise)
{
	int32_t add = rank + 1, one = 1, ticket = -1, mine = rank, want = -1;
	int32_t old = 0, *n32 = (int32_t *)&words[W_N32];
	int32_t *c32 = (int32_t *)&words[W_CAS32];
	uint64_t bit = UINT64_C(1) << (32 + rank);
	uint32_t flip = UINT32_C(1) << rank, mask = 0;
	int32_t *tickets = calloc((size_t)nranks, sizeof(*tickets));
	int won, winners = 0, first = self_atomics ? 0 : 1;
	int takers = nranks - first, takes = rank >= first;
	MPI_Aint n32_disp = W_N32 * sizeof(uint64_t);

	if (rank == 0) {
		n32[0] = -1000;
		n32[1] = 100;
		words[W_BITS] = 0xffffffffu;
		c32[0] = -1;
		c32[1] = 0x5a5a5a5a;
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (takes) {
		MPI_Win_lock(MPI_LOCK_SHARED, 0, 0, win);
		MPI_Accumulate(&add, 1, MPI_INT32_T, 0, n32_disp, 1,
			       MPI_INT32_T, MPI_SUM, win);
		MPI_Fetch_and_op(&one, &ticket, MPI_INT32_T, 0,
				 n32_disp + sizeof(int32_t), MPI_SUM, win);
		if (bitwise) {
			MPI_Accumulate(&bit, 1, MPI_UINT64_T, 0,
				       W_BITS * sizeof(uint64_t), 1,
				       MPI_UINT64_T, MPI_BOR, win);
			MPI_Accumulate(&flip, 1, MPI_UINT32_T, 0,
				       W_BITS * sizeof(uint64_t), 1,
				       MPI_UINT32_T, MPI_BXOR, win);
		}
		MPI_Compare_and_swap(&mine, &want, &old, MPI_INT32_T, 0,
				     W_CAS32 * sizeof(uint64_t), win);
		MPI_Win_unlock(0, win);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	won = takes && old == -1;
	MPI_Allreduce(&won, &winners, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	check(winners == 1, "32-bit compare_and_swap winners", winners);
	MPI_Allgather(&ticket, 1, MPI_INT32_T, tickets, 1, MPI_INT32_T,
		      MPI_COMM_WORLD);
	for (int r = 0; r < takers; r++) {
		int seen = 0;

		for (int q = 0; q < nranks; q++)
			seen += tickets[q] == 100 + r;
		check(seen == 1, "32-bit fetch_and_op tickets", r);
	}
	if (rank == 0) {
		int32_t sum = -1000;
		uint64_t bits = 0;

		for (int r = first; r < nranks; r++) {
			sum += r + 1;
			bits |= UINT64_C(1) << (32 + r);
			mask |= UINT32_C(1) << r;
		}
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, 0, 0, win);
		check(n32[0] == sum, "32-bit accumulate", (long)n32[0]);
		check(n32[1] == 100 + takers, "32-bit fetch_and_op",
		      (long)n32[1]);
		if (bitwise)
			check(words[W_BITS] == (bits | (0xffffffffu ^ mask)),
			      "bor and bxor", (long)words[W_BITS]);
		check(c32[0] >= first && c32[0] < nranks,
		      "32-bit compare_and_swap", (long)c32[0]);
		check(c32[1] == 0x5a5a5a5a,
		      "32-bit compare_and_swap's neighbour", (long)c32[1]);
		MPI_Win_unlock(0, win);
	}
	free(tickets);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The passive-target epoch with a target outside MPI; returns 1 when
 * the target saw the flag before it called MPI again. */
static int passive(MPI_Win win, uint64_t *words, uint8_t *base, uint8_t *buf)
{
	int target = nranks - 1, seen = 0, any = 0;
	volatile uint64_t *flag = &words[W_FLAG];
	uint64_t one = 1;

	if (rank == target) {
		*flag = 0;
		memset(base + HDR_BYTES, 0, BULK);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == 0) {
		fill(buf, BULK, 99);
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
		MPI_Put(buf, BULK, MPI_BYTE, target, HDR_BYTES, BULK, MPI_BYTE,
			win);
		/* The data is in place before the flag says so. */
		MPI_Win_flush(target, win);
		MPI_Put(&one, 1, MPI_UINT64_T, target,
			W_FLAG * sizeof(uint64_t), 1, MPI_UINT64_T, win);
		MPI_Win_unlock(target, win);
	} else if (rank == target) {
		double end = now() + SLEEP_S;

		/* No MPI call here: only RDMA can change this memory. */
		while (!seen && now() < end)
			seen = __atomic_load_n(flag, __ATOMIC_ACQUIRE) == 1;
		if (seen)
			check(same(base + HDR_BYTES, BULK, 99),
			      "passive data while outside MPI", 0);
	}
	MPI_Barrier(MPI_COMM_WORLD);
	if (rank == target) {
		MPI_Win_lock(MPI_LOCK_EXCLUSIVE, target, 0, win);
		check(*flag == 1, "passive flag", (long)*flag);
		check(same(base + HDR_BYTES, BULK, 99), "passive data", 0);
		MPI_Win_unlock(target, win);
	}
	MPI_Allreduce(&seen, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return any;
}

int main(int argc, char **argv)
{
	int expect_rdma = 0, with_narrow = 0, bitwise = 0, total = 0, outside;
	uint8_t *base, *buf;
	MPI_Win win;

	for (int i = 1; i < argc; i++) {
		expect_rdma |= !strcmp(argv[i], "--expect-rdma");
		with_narrow |= !strcmp(argv[i], "--narrow");
		bitwise |= !strcmp(argv[i], "--bitwise");
	}
	self_atomics = !expect_rdma;
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	buf = malloc(BULK);
	if (!buf)
		MPI_Abort(MPI_COMM_WORLD, 2);
	base = malloc(WIN_BYTES);
	if (!base)
		MPI_Abort(MPI_COMM_WORLD, 2);
	MPI_Win_create(base, WIN_BYTES, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &win);
	memset(base, 0, WIN_BYTES);
	MPI_Barrier(MPI_COMM_WORLD);
	put_get(win, base, buf);
	atomics(win, (uint64_t *)base);
	if (with_narrow || bitwise)
		narrow(win, (uint64_t *)base, bitwise);
	outside = passive(win, (uint64_t *)base, base, buf);
	if (expect_rdma)
		check(outside, "target outside MPI saw the passive epoch", 0);
	MPI_Win_free(&win);
	free(base);
	free(buf);
	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d: put, get 1 octet to 1 MiB, accumulate, "
	       "fetch_and_op, compare_and_swap%s, passive target (seen "
	       "outside MPI: %s): %s\n",
	       rank, nranks,
	       bitwise	   ? ", 32-bit and bitwise" :
	       with_narrow ? ", 32-bit" :
			     "",
	       outside ? "yes" : "no", total ? "FAILED" : "ok");
	MPI_Finalize();
	return total ? 1 : 0;
}
