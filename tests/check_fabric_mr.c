/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Memory regions of the provider iwcm as applications meet them.  An
 * application that does not offer FI_MR_LOCAL passes no descriptors:
 * sends larger than the inject size, receives, RDMA Writes and Reads and
 * fetching atomics on memory it never registered still work (fabric/
 * iwfi_mr.c).  And an RMA to a region the target has closed ends in an
 * error completion at the initiator (RFC 5042 §5.1: the STag is no
 * longer valid, the target answers with a Terminate), never in a write
 * to the target's memory: the operation's own for a Read or an atomic,
 * the next waiting one's for an RDMA Write, which completed before the
 * target found the error.  The connection's end then says which
 * Terminate it was (an error entry on the event queue in place of
 * FI_SHUTDOWN).
 */
#include "config.h"

#include <stdbool.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

#include "common.h"
#include "fabric_harness.h"

#define REMOTE_BITS (FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY)
#define LEN 200000

static void pattern(uint8_t *p, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		p[i] = (uint8_t)(i * 13 + seed);
}

/* A domain answered without FI_MR_LOCAL, connected. */
static void net_open_nolocal(struct net *n)
{
	struct fi_info *h = hints_new();

	h->domain_attr->mr_mode = REMOTE_BITS;
	net_open_hints(n, h, "127.0.0.1");
	ck_assert_int_eq(n->info->domain_attr->mr_mode & FI_MR_LOCAL, 0);
	ck_assert_int_eq(n->info->mode & FI_LOCAL_MR, 0);
	net_connect(n, false);
}

/* Loop index 1: FI_IWCM_PROGRESS=manual. */
START_TEST(no_descriptors)
{
	struct net n;
	struct fi_cq_data_entry e;
	/* Never registered: the heap, and the stack for the atomics. */
	uint8_t *src = malloc(LEN), *dst = malloc(LEN);
	uint64_t raddr, key, v = 7, res = 0, cmp, swp;
	uint64_t *word;

	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	if (_i)
		setenv("FI_IWCM_PROGRESS", "manual", 1);
	net_open_nolocal(&n);
	raddr = (uintptr_t)n.s.buf;
	key = fi_mr_key(n.s.mr);
	/* A send larger than the inject size into a receive, both without
	 * descriptors. */
	memset(dst, 0, LEN);
	ck_assert_int_eq(fi_recv(n.s.ep, dst, LEN, NULL, 0, (void *)1), 0);
	pattern(src, LEN, 1);
	ck_assert_int_eq(RETRY(fi_send(n.c.ep, src, LEN, NULL, 0, (void *)2)),
			 0);
	cq_ok(n.c.cq, (void *)2, FI_SEND | FI_MSG, NULL);
	cq_ok(n.s.cq, (void *)1, FI_RECV | FI_MSG, &e);
	ck_assert_uint_eq(e.len, LEN);
	ck_assert_int_eq(memcmp(dst, src, LEN), 0);
	/* A small one is copied at post time. */
	ck_assert_int_eq(fi_recv(n.s.ep, dst, 64, NULL, 0, (void *)3), 0);
	ck_assert_int_eq(RETRY(fi_send(n.c.ep, "small", 6, NULL, 0, NULL)), 0);
	cq_ok(n.c.cq, ANY_CTX, FI_SEND, NULL);
	cq_ok(n.s.cq, (void *)3, FI_RECV, NULL);
	ck_assert_str_eq((char *)dst, "small");
	/* RDMA Write from unregistered memory, Read into it. */
	pattern(src, LEN, 2);
	ck_assert_int_eq(RETRY(fi_write(n.c.ep, src, LEN, NULL, 0, raddr, key,
					(void *)4)),
			 0);
	cq_ok(n.c.cq, (void *)4, FI_WRITE | FI_RMA, NULL);
	memset(dst, 0, LEN);
	ck_assert_int_eq(RETRY(fi_read(n.c.ep, dst, LEN, NULL, 0, raddr, key,
				       (void *)5)),
			 0);
	cq_ok(n.c.cq, (void *)5, FI_READ | FI_RMA, NULL);
	ck_assert_int_eq(memcmp(n.s.buf, src, LEN), 0);
	ck_assert_int_eq(memcmp(dst, src, LEN), 0);
	/* Fetching atomics into a result on the stack. */
	word = (uint64_t *)(n.s.buf + 65536);
	*word = 100;
	ck_assert_int_eq(RETRY(fi_fetch_atomic(n.c.ep, &v, 1, NULL, &res, NULL,
					       0, raddr + 65536, key, FI_UINT64,
					       FI_SUM, (void *)6)),
			 0);
	cq_ok(n.c.cq, (void *)6, FI_ATOMIC | FI_READ, NULL);
	ck_assert_uint_eq(res, 100);
	ck_assert_uint_eq(*word, 107);
	cmp = 107;
	swp = 9;
	ck_assert_int_eq(RETRY(fi_compare_atomic(n.c.ep, &swp, 1, NULL, &cmp,
						 NULL, &res, NULL, 0,
						 raddr + 65536, key, FI_UINT64,
						 FI_CSWAP, (void *)7)),
			 0);
	cq_ok(n.c.cq, (void *)7, FI_ATOMIC, NULL);
	ck_assert_uint_eq(res, 107);
	ck_assert_uint_eq(*word, 9);
	net_close(&n);
	free(src);
	free(dst);
}
END_TEST

/* A key to a region of the target's that is closed already, over the
 * 4096 octets at *canary (a copy of its pattern in copy). */
static uint64_t dead_key(struct net *n, uint8_t *canary, uint8_t *copy)
{
	pattern(canary, 4096, 3);
	memcpy(copy, canary, 4096);
	return closed_key(n->domain, canary, 4096);
}

/* The next completion of cq is an error with context ctx, err and the
 * text of prov_errno text (NULL: any). */
static void cq_err_is(struct fid_cq *cq, void *ctx, int err_no,
		      const char *text)
{
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	ssize_t ret = cq_wait(cq, &e, &err);

	ck_assert_msg(ret == -FI_EAVAIL, "context %p completed without error",
		      e.op_context);
	ck_assert_ptr_eq(err.op_context, ctx);
	ck_assert_msg(err.err == err_no, "context %p: error %d, want %d", ctx,
		      err.err, err_no);
	if (text)
		ck_assert_str_eq(fi_cq_strerror(cq, err.prov_errno, NULL, NULL,
						0),
				 text);
}

#define TERM_DDP_TAGGED "Terminate: layer 1 (DDP), error type 1, code 0x00"
#define TERM_RDMAP_PROT "Terminate: layer 0 (RDMAP), error type 1, code 0x00"

/*
 * The target registers a region, hands out its key and closes it; the
 * initiator's RMA to it must fail and leave the memory as it was (RFC
 * 5042 §5: the STag is invalid, the target answers with a Terminate).
 * A Read Request or an atomic waits for its response, so the Terminate
 * (an RDMAP Remote Protection Error, RFC 5040 §7.2, RFC 7306 §8) ends
 * that operation itself with FI_EACCES.  Loop index: 0 fi_read, 1
 * fi_atomic, 2 fi_fetch_atomic.
 */
START_TEST(dead_region)
{
	struct net n;
	uint8_t *canary = malloc(4096), copy[4096];
	uint64_t key, v = 5;
	uintptr_t addr = (uintptr_t)canary;
	ssize_t ret = -1;

	ck_assert_ptr_nonnull(canary);
	net_open(&n);
	net_connect(&n, false);
	key = dead_key(&n, canary, copy);
	switch (_i) {
	case 0:
		ret = fi_read(n.c.ep, n.c.buf, 4096, fi_mr_desc(n.c.mr), 0,
			      addr, key, (void *)1);
		break;
	case 1:
		ret = fi_atomic(n.c.ep, &v, 1, NULL, 0, addr, key, FI_UINT64,
				FI_SUM, (void *)1);
		break;
	default:
		ret = fi_fetch_atomic(n.c.ep, &v, 1, NULL, n.c.buf,
				      fi_mr_desc(n.c.mr), 0, addr, key,
				      FI_UINT64, FI_SUM, (void *)1);
		break;
	}
	ck_assert_int_eq(ret, 0);
	cq_err_is(n.c.cq, (void *)1, FI_EACCES, TERM_RDMAP_PROT);
	ck_assert_int_eq(memcmp(canary, copy, sizeof(copy)), 0);
	eq_term_wait(n.c.eq, n.c.ep, TERM_RDMAP_PROT);
	net_close(&n);
	free(canary);
}
END_TEST

/*
 * An RDMA Write to a closed region completes at the initiator once its
 * data has left (RFC 5040 §5.1): the target finds the invalid STag later
 * and answers with a Terminate, a DDP Tagged Buffer Error (RFC 5041
 * §7.2) naming the Write's segment, and stops.  RFC 5040 §7: the error
 * is detected after the operation completed; it reaches the application
 * through what still waits, in order (RFC 5040 §5.5), or, when nothing
 * waits, through the connection's end.  Both orders, made on purpose:
 *
 * 0. the Terminate comes back while two Reads of live memory wait (the
 *    fabric's progress is manual, so nothing at the target moves until
 *    the initiator reads its CQ): the Write completes, the first Read
 *    with the Terminate's FI_EACCES, and only then the second Read is
 *    flushed, FI_ECONNRESET;
 * 1. the Terminate has failed the connection before the Read is posted
 *    (the connection's end seen first): the Read is refused with
 *    -FI_ENOTCONN and completes with nothing.
 *
 * Neither writes the target's memory.
 */
START_TEST(dead_region_write)
{
	struct net n;
	struct fi_cq_data_entry e;
	uint8_t *canary = malloc(4096), copy[4096];
	uint64_t key;
	uintptr_t addr = (uintptr_t)canary;

	ck_assert_ptr_nonnull(canary);
	if (_i == 0)
		setenv("FI_IWCM_PROGRESS", "manual", 1);
	net_open(&n);
	net_connect(&n, false);
	key = dead_key(&n, canary, copy);
	pattern(n.c.buf, 4096, 4);
	ck_assert_int_eq(fi_write(n.c.ep, n.c.buf, 4096, fi_mr_desc(n.c.mr), 0,
				  addr, key, (void *)1),
			 0);
	if (_i == 0) {
		ck_assert_int_eq(fi_read(n.c.ep, n.c.buf + 8192, 64,
					 fi_mr_desc(n.c.mr), 0,
					 (uintptr_t)n.s.buf, fi_mr_key(n.s.mr),
					 (void *)2),
				 0);
		ck_assert_int_eq(fi_read(n.c.ep, n.c.buf + 16384, 64,
					 fi_mr_desc(n.c.mr), 0,
					 (uintptr_t)n.s.buf, fi_mr_key(n.s.mr),
					 (void *)3),
				 0);
		cq_ok(n.c.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
		cq_err_is(n.c.cq, (void *)2, FI_EACCES, TERM_DDP_TAGGED);
		cq_err_is(n.c.cq, (void *)3, FI_ECONNRESET, NULL);
		eq_term_wait(n.c.eq, n.c.ep, TERM_DDP_TAGGED);
	} else {
		cq_ok(n.c.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
		eq_term_wait(n.c.eq, n.c.ep, TERM_DDP_TAGGED);
		ck_assert_int_eq(fi_read(n.c.ep, n.c.buf + 8192, 64,
					 fi_mr_desc(n.c.mr), 0,
					 (uintptr_t)n.s.buf, fi_mr_key(n.s.mr),
					 (void *)2),
				 -FI_ENOTCONN);
	}
	/* Nothing more: no completion without a posted operation. */
	ck_assert_int_eq(fi_cq_read(n.c.cq, &e, 1), -FI_EAGAIN);
	ck_assert_int_eq(memcmp(canary, copy, sizeof(copy)), 0);
	net_close(&n);
	free(canary);
}
END_TEST

/*
 * An FI_DELIVERY_COMPLETE write to a closed region, then a Read of live
 * memory posted before the write's completion is read.  The target's
 * Terminate (a DDP Tagged Buffer Error, RFC 5041 §7.2) ends the first
 * Read that waits at the initiator (RFC 5040 §5.5, §7).  That must be
 * the zero-length Read confirming the write, posted ahead of the
 * application's Read (iwfi_cq.c): the write, whose delivery failed,
 * completes with FI_EACCES and the Terminate; the Read, which did
 * nothing wrong, is flushed (FI_ECONNRESET).  The write asks
 * FI_DELIVERY_COMPLETE itself, as an RDM endpoint's connection (such an
 * endpoint) is asked.  The fabric's progress is manual, so the
 * Terminate cannot come before the Read is posted.  Loop index 1: an
 * atomic in place of the Read.
 */
START_TEST(dead_region_dc)
{
	struct net n;
	struct iovec iov;
	void *desc;
	struct fi_rma_iov rma;
	struct fi_msg_rma msg = { .msg_iov = &iov,
				  .desc = &desc,
				  .iov_count = 1,
				  .rma_iov = &rma,
				  .rma_iov_count = 1,
				  .context = (void *)1 };
	uint8_t *canary = malloc(4096), copy[4096];
	uint64_t key, v = 1;
	struct fi_cq_data_entry e;

	ck_assert_ptr_nonnull(canary);
	setenv("FI_IWCM_PROGRESS", "manual", 1);
	net_open(&n);
	net_connect(&n, false);
	key = dead_key(&n, canary, copy);
	pattern(n.c.buf, 4096, 4);
	iov = (struct iovec){ .iov_base = n.c.buf, .iov_len = 4096 };
	desc = fi_mr_desc(n.c.mr);
	rma = (struct fi_rma_iov){ .addr = (uintptr_t)canary,
				   .len = 4096,
				   .key = key };
	ck_assert_int_eq(fi_writemsg(n.c.ep, &msg,
				     FI_COMPLETION | FI_DELIVERY_COMPLETE),
			 0);
	if (_i == 0)
		ck_assert_int_eq(fi_read(n.c.ep, n.c.buf + 8192, 64,
					 fi_mr_desc(n.c.mr), 0,
					 (uintptr_t)n.s.buf, fi_mr_key(n.s.mr),
					 (void *)2),
				 0);
	else
		ck_assert_int_eq(
			fi_fetch_atomic(n.c.ep, &v, 1, NULL, n.c.buf + 8192,
					fi_mr_desc(n.c.mr), 0,
					(uintptr_t)n.s.buf, fi_mr_key(n.s.mr),
					FI_UINT64, FI_SUM, (void *)2),
			0);
	cq_err_is(n.c.cq, (void *)1, FI_EACCES, TERM_DDP_TAGGED);
	cq_err_is(n.c.cq, (void *)2, FI_ECONNRESET, NULL);
	eq_term_wait(n.c.eq, n.c.ep, TERM_DDP_TAGGED);
	ck_assert_int_eq(fi_cq_read(n.c.cq, &e, 1), -FI_EAGAIN);
	ck_assert_int_eq(memcmp(canary, copy, sizeof(copy)), 0);
	net_close(&n);
	free(canary);
}
END_TEST

/*
 * Three FI_DELIVERY_COMPLETE writes under one confirming Read, the
 * second to a closed region.  The target places the first, refuses the
 * second and stops (RFC 5041 §7.2); its Terminate carries the refused
 * segment's STag and Tagged Offset (RFC 5040 §4.8), which name the
 * second write: it alone completes with FI_EACCES and the Terminate,
 * the other two are flushed (FI_ECONNRESET), and so is the application's
 * Read behind them.  None is reported placed, although the first was.
 */
START_TEST(dead_region_dc_named)
{
	static const struct {
		void *ctx;
		int err;
		const char *text;
	} want[] = {
		{ (void *)1, FI_ECONNRESET, NULL },
		{ (void *)2, FI_EACCES, TERM_DDP_TAGGED },
		{ (void *)3, FI_ECONNRESET, NULL },
		{ (void *)4, FI_ECONNRESET, NULL },
	};
	bool seen[4] = { false };
	struct net n;
	uint8_t *canary = malloc(4096), copy[4096];
	uint64_t dead, live;
	uint64_t flags = FI_COMPLETION | FI_DELIVERY_COMPLETE;

	ck_assert_ptr_nonnull(canary);
	setenv("FI_IWCM_PROGRESS", "manual", 1);
	net_open(&n);
	net_connect(&n, false);
	dead = dead_key(&n, canary, copy);
	live = fi_mr_key(n.s.mr);
	pattern(n.c.buf, 3 * 4096, 5);
	for (int i = 0; i < 3; i++) {
		struct iovec iov = { n.c.buf + i * 4096, 4096 };
		void *desc = fi_mr_desc(n.c.mr);
		struct fi_rma_iov rma = {
			.addr = i == 1 ? (uintptr_t)canary :
					 (uintptr_t)n.s.buf + (size_t)i * 4096,
			.len = 4096,
			.key = i == 1 ? dead : live,
		};
		struct fi_msg_rma msg = { .msg_iov = &iov,
					  .desc = &desc,
					  .iov_count = 1,
					  .rma_iov = &rma,
					  .rma_iov_count = 1,
					  .context =
						  (void *)(uintptr_t)(i + 1) };

		ck_assert_int_eq(fi_writemsg(n.c.ep, &msg, flags), 0);
	}
	ck_assert_int_eq(fi_read(n.c.ep, n.c.buf + 4 * 4096, 64,
				 fi_mr_desc(n.c.mr), 0, (uintptr_t)n.s.buf,
				 live, (void *)4),
			 0);
	for (int k = 0; k < 4; k++) {
		struct fi_cq_data_entry e;
		struct fi_cq_err_entry err;
		ssize_t ret = cq_wait(n.c.cq, &e, &err);
		uintptr_t i;

		ck_assert_msg(ret == -FI_EAVAIL,
			      "context %p completed without error",
			      e.op_context);
		i = (uintptr_t)err.op_context - 1;
		ck_assert_uint_lt(i, 4);
		ck_assert_msg(!seen[i], "context %p twice", err.op_context);
		seen[i] = true;
		ck_assert_msg(err.err == want[i].err,
			      "context %p: error %d, want %d", err.op_context,
			      err.err, want[i].err);
		if (want[i].text)
			ck_assert_str_eq(fi_cq_strerror(n.c.cq, err.prov_errno,
							NULL, NULL, 0),
					 want[i].text);
	}
	eq_term_wait(n.c.eq, n.c.ep, TERM_DDP_TAGGED);
	/* The target took the first write, and nothing after the second. */
	ck_assert_int_eq(memcmp(n.s.buf, n.c.buf, 4096), 0);
	ck_assert_int_eq(memcmp(canary, copy, sizeof(copy)), 0);
	for (size_t k = 0; k < 4096; k++)
		ck_assert_uint_eq(n.s.buf[2 * 4096 + k], 0);
	net_close(&n);
	free(canary);
}
END_TEST

static Suite *fabric_mr_suite(void)
{
	Suite *s = suite_create("fabric_mr");

	add_loop_tcase(s, "no_descriptors", no_descriptors, 2);
	add_loop_tcase(s, "dead_region", dead_region, 3);
	add_loop_tcase(s, "dead_region_write", dead_region_write, 2);
	add_loop_tcase(s, "dead_region_dc", dead_region_dc, 2);
	add_tcase(s, "dead_region_dc_named", dead_region_dc_named);
	return s;
}

int main(void)
{
	return fabric_run(fabric_mr_suite(), "");
}
