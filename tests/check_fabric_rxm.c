/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The provider under libfabric's ofi_rxm (FI_EP_RDM over iwcm's
 * FI_EP_MSG), as Open MPI meets it: two RDM endpoints in one process
 * exchange messages large enough for rxm's rendezvous, in which the
 * receiver reads the sender's buffer with fi_readv() into the iovecs of
 * its posted receive (one Read Request per iovec, fi_iwcm(7)).
 */
#include "config.h"

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>

#include "fabric_harness.h"

/* Past rxm's eager and segmented (SAR) limits: a rendezvous. */
#define MSG_LEN (1u << 20)

struct rdm {
	struct fid_cq *cq;
	struct fid_av *av;
	struct fid_ep *ep;
	fi_addr_t peer;
	uint8_t *buf;
};

struct rdm_net {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct rdm a, b;
};

static void rdm_open(struct rdm_net *n, struct rdm *r)
{
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_MSG, .size = 64 };
	struct fi_av_attr aa = { .type = FI_AV_MAP };

	ck_assert_int_eq(fi_cq_open(n->domain, &ca, &r->cq, NULL), 0);
	ck_assert_int_eq(fi_av_open(n->domain, &aa, &r->av, NULL), 0);
	ck_assert_int_eq(fi_endpoint(n->domain, n->info, &r->ep, NULL), 0);
	ck_assert_int_eq(fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV),
			 0);
	ck_assert_int_eq(fi_ep_bind(r->ep, &r->av->fid, 0), 0);
	ck_assert_int_eq(fi_enable(r->ep), 0);
	r->buf = calloc(1, 2 * MSG_LEN);
	ck_assert_ptr_nonnull(r->buf);
}

/* r learns where o is. */
static void rdm_meet(struct rdm *r, const struct rdm *o)
{
	uint8_t addr[128];
	size_t len = sizeof(addr);

	ck_assert_int_eq(fi_getname(&o->ep->fid, addr, &len), 0);
	ck_assert_int_eq(fi_av_insert(r->av, addr, 1, &r->peer, 0, NULL), 1);
}

static void rdm_up(struct rdm_net *n)
{
	struct fi_info *h = fi_allocinfo();

	ck_assert_ptr_nonnull(h);
	memset(n, 0, sizeof(*n));
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_MSG;
	h->domain_attr->mr_mode = 0; /* rxm registers what it sends */
	h->addr_format = FI_SOCKADDR_IN;
	h->fabric_attr->prov_name = strdup("iwcm;ofi_rxm");
	n->info = getinfo_at(h, "127.0.0.1");
	fi_freeinfo(h);
	ck_assert_str_eq(n->info->fabric_attr->prov_name, "iwcm;ofi_rxm");
	ck_assert_int_eq(fi_fabric(n->info->fabric_attr, &n->fabric, NULL), 0);
	ck_assert_int_eq(fi_domain(n->fabric, n->info, &n->domain, NULL), 0);
	rdm_open(n, &n->a);
	rdm_open(n, &n->b);
	rdm_meet(&n->a, &n->b);
	rdm_meet(&n->b, &n->a);
}

static void rdm_close(struct rdm *r)
{
	ck_assert_int_eq(fi_close(&r->ep->fid), 0);
	ck_assert_int_eq(fi_close(&r->av->fid), 0);
	ck_assert_int_eq(fi_close(&r->cq->fid), 0);
	free(r->buf);
}

static void rdm_down(struct rdm_net *n)
{
	rdm_close(&n->a);
	rdm_close(&n->b);
	ck_assert_int_eq(fi_close(&n->domain->fid), 0);
	ck_assert_int_eq(fi_close(&n->fabric->fid), 0);
	fi_freeinfo(n->info);
}

static int64_t ms_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Drive both endpoints (rxm progresses in fi_cq_read()) until the send
 * of context sctx on a and the receive of rctx on b have completed. */
static void rdm_wait(struct rdm_net *n, void *sctx, void *rctx, size_t rlen)
{
	bool sent = false, recvd = false;
	int64_t end = ms_now() + WAIT_MS;

	while ((!sent || !recvd) && ms_now() < end) {
		struct rdm *r[2] = { &n->a, &n->b };

		for (int i = 0; i < 2; i++) {
			struct fi_cq_msg_entry e;
			struct fi_cq_err_entry err = { 0 };
			ssize_t ret = fi_cq_read(r[i]->cq, &e, 1);

			if (ret == -FI_EAVAIL) {
				fi_cq_readerr(r[i]->cq, &err, 0);
				ck_abort_msg("completion error on %c: %s",
					     "ab"[i], fi_strerror(err.err));
			}
			if (ret != 1)
				continue;
			if (e.op_context == sctx && (e.flags & FI_SEND)) {
				sent = true;
			} else {
				ck_assert_ptr_eq(e.op_context, rctx);
				ck_assert(e.flags & FI_RECV);
				ck_assert_uint_eq(e.len, rlen);
				recvd = true;
			}
		}
	}
	ck_assert_msg(sent && recvd,
		      "no completion in %d ms (sent %d, received %d)", WAIT_MS,
		      sent, recvd);
}

/* fi_send() from a to b: -FI_EAGAIN while rxm connects, which takes
 * the progress of both ends (fi_cq_read(), nothing to read yet). */
static void rdm_send(struct rdm_net *n, size_t len, void *ctx)
{
	int64_t end = ms_now() + WAIT_MS;
	ssize_t ret;

	while ((ret = fi_send(n->a.ep, n->a.buf, len, NULL, n->a.peer, ctx)) ==
		       -FI_EAGAIN &&
	       ms_now() < end) {
		struct fi_cq_msg_entry e;

		ck_assert_int_eq(fi_cq_read(n->a.cq, &e, 1), -FI_EAGAIN);
		ck_assert_int_eq(fi_cq_read(n->b.cq, &e, 1), -FI_EAGAIN);
	}
	ck_assert_msg(ret == 0, "fi_send: %s", fi_strerror((int)-ret));
}

/* A rendezvous into one buffer, then into two iovecs, then three with
 * an empty one between: rxm's fi_readv() carries the receive's iovecs
 * to the provider.  Before it split a read, two iovecs failed.  Loop
 * index 1: FI_OFI_RXM_USE_RNDV_WRITE, the sender writes into them with
 * fi_writev() instead (each test runs in a process of its own, which
 * loads libfabric anew). */
START_TEST(rendezvous_iovecs)
{
	struct rdm_net n;

	if (_i)
		setenv("FI_OFI_RXM_USE_RNDV_WRITE", "1", 1);
	rdm_up(&n);
	for (unsigned int k = 0; k < 3; k++) {
		uint8_t *d = n.b.buf;
		struct iovec v[3][3] = {
			{ { d, MSG_LEN } },
			{ { d, 300000 }, { d + 300064, MSG_LEN - 300000 } },
			{ { d, 4096 },
			  { d + MSG_LEN + 200, 0 },
			  { d + 4160, MSG_LEN - 4096 } },
		};
		size_t cnt = k + 1, off = 0;

		for (size_t i = 0; i < MSG_LEN; i++)
			n.a.buf[i] = (uint8_t)(i * 13 + k + 1);
		memset(d, 0, 2 * MSG_LEN);
		ck_assert_int_eq(fi_recvv(n.b.ep, v[k], NULL, cnt, n.b.peer,
					  (void *)(uintptr_t)(100 + k)),
				 0);
		rdm_send(&n, MSG_LEN, (void *)(uintptr_t)(200 + k));
		rdm_wait(&n, (void *)(uintptr_t)(200 + k),
			 (void *)(uintptr_t)(100 + k), MSG_LEN);
		for (size_t i = 0; i < cnt; i++) {
			ck_assert_msg(memcmp(v[k][i].iov_base, n.a.buf + off,
					     v[k][i].iov_len) == 0,
				      "case %u: iovec %zu differs", k, i);
			off += v[k][i].iov_len;
		}
		/* nothing between or after them */
		if (k == 1)
			ck_assert_uint_eq(d[300000], 0);
		if (k == 2)
			ck_assert_uint_eq(d[4096], 0);
		ck_assert_uint_eq(d[MSG_LEN + 200], 0);
	}
	rdm_down(&n);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("fabric_rxm");

	add_loop_tcase(s, "rendezvous_iovecs", rendezvous_iovecs, 2);
	return fabric_run(s, "");
}
