/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * mpi_mesh: MPI only as the launcher's address book, then a full mesh of
 * iWARP connections directly on <iwcm/iwcm.h>.  Each rank listens
 * through iwcmd (IWCM_SOCKET), publishes its address, port, STag and
 * region with MPI_Allgather, then all ranks connect at the same time:
 * rank i connects to every rank above it and accepts every rank below,
 * each connection MPA revision 2 with the peer-to-peer model and an RTR
 * exchange (RFC 6581 §9.2), the private data naming the initiator.  With
 * every peer it then RDMA Writes its slot of the peer's region (RFC 5040
 * §4.3), adds 1 to the peer's counter with FetchAdd and claims the
 * peer's flag word with CmpSwap (RFC 7306 §5), and reads its slot back
 * with an RDMA Read.  After a barrier each rank checks what the others
 * left in its own region.
 *
 *   mpirun -n 4 mpi_mesh [ADDR]     (ADDR to listen on, 127.0.0.1)
 *
 * Exit status 0 when every check passed on every rank.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <mpi.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <iwcm/iwcm.h>

#define SLOT 4096
#define WAIT_POLLS 200000000L

struct card {
	struct sockaddr_in addr;
	uint64_t region;
	uint32_t stag;
};

struct peer {
	struct iwcm_conn *conn;
	struct iwcm_qp *qp;
	bool up;
};

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

static void die(const char *what)
{
	fprintf(stderr, "rank %d: %s: %s\n", rank, what, strerror(errno));
	MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Region layout: nranks slots, then a counter and nranks flag words. */
static size_t counter_off(void)
{
	return (size_t)nranks * SLOT;
}

static uint8_t pat(int from, int to, size_t i)
{
	return (uint8_t)(from * 37 + to * 11 + i * 3);
}

static struct iwcm_conn_param *mesh_param(const int *who)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();

	if (!p || iwcm_conn_param_set_mpa_rev(p, IWCM_MPA_REV_2) ||
	    iwcm_conn_param_set_p2p(p, true) ||
	    iwcm_conn_param_set_rtr_types(p, IWCM_RTR_SEND | IWCM_RTR_WRITE |
						     IWCM_RTR_READ) ||
	    iwcm_conn_param_set_ird(p, 16) || iwcm_conn_param_set_ord(p, 16) ||
	    (who && iwcm_conn_param_set_private_data(p, who, sizeof(*who))))
		die("connection parameters");
	return p;
}

/* Wait for the completion of wr_id on cq; it must succeed. */
static void wait_wc(struct iwcm_cq *cq, uint64_t wr_id, const char *what)
{
	struct iwcm_wc wc;

	for (long i = 0; i < WAIT_POLLS; i++) {
		int n = iwcm_poll_cq(cq, 1, &wc);

		if (n < 0)
			die("iwcm_poll_cq");
		if (n == 0) {
			/* Other ranks may share this core. */
			sched_yield();
			continue;
		}
		check(wc.status == IWCM_WC_SUCCESS, what, wc.status);
		check(wc.wr_id == wr_id, what, (long)wc.wr_id);
		return;
	}
	check(0, what, -1);
}

int main(int argc, char **argv)
{
	const char *host = argc > 1 ? argv[1] : "127.0.0.1";
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	struct iwcm_cq *cq;
	struct iwcm_mr *mr, *lmr;
	struct iwcm_listener *l;
	struct iwcm_conn_param *param;
	struct card me = { 0 }, *cards;
	struct peer *peers;
	uint8_t *region, *local;
	uint64_t *counter, *flags;
	int up = 0, want, total = 0;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	cards = calloc((size_t)nranks, sizeof(*cards));
	peers = calloc((size_t)nranks, sizeof(*peers));
	region = calloc(1, counter_off() + 8 * ((size_t)nranks + 1));
	local = calloc(1, SLOT + 64);
	if (!cards || !peers || !region || !local)
		die("calloc");
	counter = (uint64_t *)(region + counter_off());
	flags = counter + 1;

	ctx = iwcm_ctx_open(0);
	if (!ctx && errno == EINVAL && iwcm_env_error()) {
		fprintf(stderr, "mpi_mesh: iwcm_ctx_open: bad %s\n",
			iwcm_env_error());
		exit(1);
	}
	if (!ctx) {
		const char *sock = getenv("IWCM_SOCKET");

		/* The rank's host is in the message: name its socket. */
		fprintf(stderr,
			"rank %d: iwcm_ctx_open: no iwcmd answers on "
			"%s: %s\n",
			rank, sock && *sock ? sock : "/run/iwcm/iwcmd.sock",
			strerror(errno));
		MPI_Abort(MPI_COMM_WORLD, 1);
	}
	pd = iwcm_alloc_pd(ctx);
	cq = iwcm_create_cq(ctx, 4 * nranks + 16, NULL, NULL);
	mr = pd ? iwcm_reg_mr(
			  pd, region, counter_off() + 8 * ((size_t)nranks + 1),
			  IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE |
				  IWCM_ACCESS_REMOTE_READ |
				  IWCM_ACCESS_REMOTE_ATOMIC) :
		  NULL;
	lmr = pd ? iwcm_reg_mr(pd, local, SLOT + 64, IWCM_ACCESS_LOCAL_WRITE) :
		   NULL;
	if (!pd || !cq || !mr || !lmr)
		die("verbs objects");

	/* Listen, publish the card, learn everyone's. */
	me.addr.sin_family = AF_INET;
	if (inet_pton(AF_INET, host, &me.addr.sin_addr) != 1) {
		errno = EINVAL;
		die(host);
	}
	param = mesh_param(NULL);
	l = iwcm_listen(ctx, (struct sockaddr *)&me.addr, NULL, param, 0);
	if (!l)
		die("iwcm_listen");
	me.addr.sin_port = htons((uint16_t)iwcm_listener_get_port(l));
	me.region = (uintptr_t)region;
	me.stag = iwcm_mr_get_stag(mr);
	MPI_Allgather(&me, sizeof(me), MPI_BYTE, cards, sizeof(me), MPI_BYTE,
		      MPI_COMM_WORLD);

	/* Everyone connects upward at once; requests from below are
	 * accepted as they come. */
	for (int j = rank + 1; j < nranks; j++) {
		struct iwcm_conn_param *p = mesh_param(&rank);

		peers[j].conn = iwcm_connect(
			ctx, (struct sockaddr *)&cards[j].addr, NULL, p);
		iwcm_conn_param_free(p);
		if (!peers[j].conn)
			die("iwcm_connect");
	}
	want = nranks - 1;
	while (up < want) {
		struct iwcm_event *ev;
		struct iwcm_conn *c;
		enum iwcm_cm_event_type type;
		struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_PEER };
		int who = -1;

		if (iwcm_get_event(ctx, &ev))
			die("iwcm_get_event");
		type = iwcm_event_get_type(ev);
		c = iwcm_event_get_conn(ev);
		iwcm_ack_event(ev);
		if (iwcm_conn_query(c, &a))
			die("iwcm_conn_query");
		if (type == IWCM_CM_EVENT_CONNECT_REQUEST) {
			if (a.peer_private_data_len == sizeof(who))
				memcpy(&who, a.peer_private_data, sizeof(who));
			if (who < 0 || who >= rank || peers[who].conn) {
				iwcm_reject(c, NULL, 0);
				iwcm_conn_free(c);
				check(0, "connect request from", who);
				continue;
			}
			peers[who].conn = c;
			if (iwcm_accept(c, param))
				die("iwcm_accept");
			continue;
		}
		for (who = 0; who < nranks && peers[who].conn != c; who++)
			;
		if (type != IWCM_CM_EVENT_ESTABLISHED || who == nranks) {
			fprintf(stderr, "rank %d: %s from rank %d: %s\n", rank,
				iwcm_cm_event_str(type), who,
				iwcm_status_str(a.reason));
			MPI_Abort(MPI_COMM_WORLD, 1);
		}
		check(a.comp_mask & IWCM_CONN_ATTR_PEER ? a.peer_p2p : 1,
		      "peer-to-peer", who);
		peers[who].up = true;
		up++;
	}
	for (int j = 0; j < nranks; j++) {
		struct iwcm_qp_init_attr qa = {
			.send_cq = cq,
			.recv_cq = cq,
			.max_send_wr = 16,
			.max_recv_wr = 4,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		};

		if (j == rank)
			continue;
		peers[j].qp = iwcm_create_qp(peers[j].conn, pd, &qa);
		if (!peers[j].qp)
			die("iwcm_create_qp");
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* With every peer: Write my slot, FetchAdd its counter, CmpSwap my
	 * flag word, Read my slot back. */
	for (int j = 0; j < nranks; j++) {
		struct iwcm_sge sge = { .addr = (uintptr_t)local,
					.length = SLOT,
					.lkey = iwcm_mr_get_stag(lmr) };
		struct iwcm_send_wr wr = { .sg_list = &sge, .num_sge = 1 };
		uint64_t *res = (uint64_t *)(local + SLOT);
		uint64_t raddr = cards[j].region;

		if (j == rank)
			continue;
		for (size_t i = 0; i < SLOT; i++)
			local[i] = pat(rank, j, i);
		wr.wr_id = 1;
		wr.opcode = IWCM_WR_RDMA_WRITE;
		wr.send_flags = IWCM_SEND_SIGNALED;
		wr.wr.rdma.remote_addr = raddr + (uint64_t)rank * SLOT;
		wr.wr.rdma.rkey = cards[j].stag;
		if (iwcm_post_send(peers[j].qp, &wr, NULL))
			die("RDMA Write");
		wait_wc(cq, 1, "RDMA Write");

		sge.addr = (uintptr_t)res;
		sge.length = 8;
		wr.wr_id = 2;
		wr.opcode = IWCM_WR_ATOMIC_FETCH_ADD;
		wr.wr.atomic.remote_addr = raddr + counter_off();
		wr.wr.atomic.rkey = cards[j].stag;
		wr.wr.atomic.compare_add = 1;
		wr.wr.atomic.compare_add_mask = 0;
		if (iwcm_post_send(peers[j].qp, &wr, NULL))
			die("FetchAdd");
		wait_wc(cq, 2, "FetchAdd");
		check(*res < (uint64_t)nranks, "FetchAdd original", (long)*res);

		wr.wr_id = 3;
		wr.opcode = IWCM_WR_ATOMIC_CMP_SWP;
		wr.wr.atomic.remote_addr =
			raddr + counter_off() + 8 * (1 + (uint64_t)rank);
		wr.wr.atomic.compare_add = 0;
		wr.wr.atomic.compare_add_mask = UINT64_MAX;
		wr.wr.atomic.swap = 1000 + (uint64_t)rank;
		wr.wr.atomic.swap_mask = UINT64_MAX;
		if (iwcm_post_send(peers[j].qp, &wr, NULL))
			die("CmpSwap");
		wait_wc(cq, 3, "CmpSwap");
		check(*res == 0, "CmpSwap original", (long)*res);

		memset(local, 0, SLOT);
		sge.addr = (uintptr_t)local;
		sge.length = SLOT;
		wr.wr_id = 4;
		wr.opcode = IWCM_WR_RDMA_READ;
		wr.wr.rdma.remote_addr = raddr + (uint64_t)rank * SLOT;
		wr.wr.rdma.rkey = cards[j].stag;
		if (iwcm_post_send(peers[j].qp, &wr, NULL))
			die("RDMA Read");
		wait_wc(cq, 4, "RDMA Read");
		for (size_t i = 0; i < SLOT; i++)
			if (local[i] != pat(rank, j, i)) {
				check(0, "RDMA Read data", j);
				break;
			}
	}
	MPI_Barrier(MPI_COMM_WORLD);

	/* What the others left here. */
	for (int j = 0; j < nranks; j++) {
		if (j == rank)
			continue;
		for (size_t i = 0; i < SLOT; i++)
			if (region[(size_t)j * SLOT + i] != pat(j, rank, i)) {
				check(0, "RDMA Write data from", j);
				break;
			}
		check(flags[j] == 1000 + (uint64_t)j, "CmpSwap word of", j);
	}
	check(*counter == (uint64_t)nranks - 1, "FetchAdd total",
	      (long)*counter);

	MPI_Allreduce(&errors, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	printf("rank %d of %d: mesh of %d connections, RDMA Write, Read, "
	       "FetchAdd, CmpSwap with every peer: %s\n",
	       rank, nranks, nranks - 1, errors ? "FAILED" : "ok");
	fflush(stdout);
	MPI_Barrier(MPI_COMM_WORLD);
	iwcm_conn_param_free(param);
	iwcm_ctx_close(ctx);
	free(cards);
	free(peers);
	free(region);
	free(local);
	MPI_Finalize();
	return total ? 1 : 0;
}
