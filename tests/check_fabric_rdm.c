/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The provider's FI_EP_RDM endpoints (fabric/iwfi_rdm*.c, fi_iwcm(7))
 * through libfabric over a real iwcmd: what fi_getinfo() answers to the
 * hints of Open MPI's btl ofi, address vectors, connections made on
 * demand by the first operation with the target making no call, two
 * peers connecting to each other at once, more operations queued for a
 * connection than its send queue holds, RDMA Write and Read, RFC 7306
 * atomics (on 8- to 64-bit fields of a word, under contention, at a
 * region's end, and what *valid() answers), and the errors: an address not in the vector, and RMA to a
 * region the target has closed (a Terminate: FI_EACCES at the
 * initiator, the target's memory untouched, the next operation
 * connecting again).
 */
#include <arpa/inet.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_rma.h>

#include "fabric_rdm.h"

static void pattern(uint8_t *b, size_t len, unsigned int seed)
{
	for (size_t i = 0; i < len; i++)
		b[i] = (uint8_t)(i * 7 + seed);
}

/* x writes len octets of its buffer to y's buffer at off. */
static ssize_t rdm_write(struct rdm *x, struct rdm *y, size_t off, size_t len,
			 void *ctx)
{
	return fi_write(x->ep, x->buf, len, fi_mr_desc(x->mr), x->peer,
			(uintptr_t)y->buf + off, fi_mr_key(y->mr), ctx);
}

/* ---- fi_getinfo ---- */

START_TEST(info_btl_ofi)
{
	struct fi_info *h = rdm_hints(), *info = NULL, *i;
	int ret;

	info = native(getinfo(h));
	/* btl ofi takes no provider that needs FI_MR_LOCAL */
	ck_assert_int_eq(info->domain_attr->mr_mode & FI_MR_LOCAL, 0);
	ck_assert_int_eq(info->domain_attr->mr_mode,
			 FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_VIRT_ADDR);
	ck_assert(info->tx_attr->op_flags & FI_DELIVERY_COMPLETE);
	ck_assert(info->caps & FI_RMA);
	ck_assert(info->caps & FI_ATOMIC);
	ck_assert_int_eq(info->caps & FI_MSG, 0);
	ck_assert_uint_eq(info->domain_attr->max_ep_tx_ctx, 1);
	ck_assert_uint_eq(info->tx_attr->iov_limit, 1);
	fi_freeinfo(info);

	/* an address vector type the hints name is answered */
	h->domain_attr->av_type = FI_AV_TABLE;
	info = native(getinfo(h));
	ck_assert_int_eq(info->domain_attr->av_type, FI_AV_TABLE);
	fi_freeinfo(info);

	/* no FI_MSG on RDM endpoints: no entry of iwcm itself */
	h->caps |= FI_MSG;
	info = NULL;
	ret = fi_getinfo(FI_VERSION(1, 17), "127.0.0.1", "0", FI_SOURCE, h,
			 &info);
	for (i = ret ? NULL : info; i; i = i->next)
		ck_assert_str_ne(i->fabric_attr->prov_name, "iwcm");
	fi_freeinfo(info);
	fi_freeinfo(h);

	/* without a type: the MSG entry first, then the RDM one */
	h = hints_new();
	h->ep_attr->type = FI_EP_UNSPEC;
	h->caps = FI_RMA;
	h->rx_attr->mode = 0;
	info = getinfo(h);
	for (i = info; i && strcmp(i->fabric_attr->prov_name, "iwcm");
	     i = i->next)
		;
	ck_assert_ptr_nonnull(i);
	ck_assert_int_eq(i->ep_attr->type, FI_EP_MSG);
	for (i = i->next; i && (i->ep_attr->type != FI_EP_RDM ||
				strcmp(i->fabric_attr->prov_name, "iwcm"));
	     i = i->next)
		;
	ck_assert_ptr_nonnull(i);
	fi_freeinfo(info);
	fi_freeinfo(h);
}
END_TEST

/* ---- address vectors ---- */

START_TEST(av_entries)
{
	struct rdm_pair p;
	struct sockaddr_in sa[3], out;
	fi_addr_t fa[3], again;
	size_t len;
	char s[64];

	rdm_pair_open(&p);
	for (int i = 0; i < 3; i++) {
		memset(&sa[i], 0, sizeof(sa[i]));
		sa[i].sin_family = AF_INET;
		sa[i].sin_port = htons((uint16_t)(5000 + i));
		sa[i].sin_addr.s_addr = htonl(0x7f000001);
	}
	ck_assert_int_eq(fi_av_insert(p.a.av, sa, 3, fa, 0, NULL), 3);
	ck_assert_uint_ne(fa[0], fa[1]);
	ck_assert_uint_ne(fa[1], fa[2]);
	len = sizeof(out);
	ck_assert_int_eq(fi_av_lookup(p.a.av, fa[1], &out, &len), 0);
	ck_assert_uint_eq(len, sizeof(out));
	ck_assert_int_eq(memcmp(&out, &sa[1], sizeof(out)), 0);
	len = sizeof(s);
	fi_av_straddr(p.a.av, &sa[2], s, &len);
	ck_assert_str_eq(s, "fi_sockaddr_in://127.0.0.1:5002");
	/* removed: gone, and its index is the next insert's */
	ck_assert_int_eq(fi_av_remove(p.a.av, &fa[1], 1, 0), 0);
	len = sizeof(out);
	ck_assert_int_eq(fi_av_lookup(p.a.av, fa[1], &out, &len), -FI_EINVAL);
	ck_assert_int_eq(fi_av_remove(p.a.av, &fa[1], 1, 0), -FI_EINVAL);
	ck_assert_int_eq(fi_av_insert(p.a.av, &sa[1], 1, &again, 0, NULL), 1);
	ck_assert_uint_eq(again, fa[1]);
	ck_assert_int_eq(fi_av_insert(p.a.av, &sa[1], 1, &again, 1, NULL),
			 -FI_EBADFLAGS);
	/* an AV in use cannot close */
	ck_assert_int_eq(fi_close(&p.a.av->fid), -FI_EBUSY);
	rdm_pair_close(&p);
}
END_TEST

/* ---- connections on demand, RMA ---- */

/*
 * A's first write to B opens the connection; B makes no call at all
 * (its thread accepts), yet the data is in B's memory once A's
 * completion says so (FI_DELIVERY_COMPLETE).  A reads it back; B then
 * writes to A over the connection B accepted.
 */
START_TEST(rma_on_demand)
{
	struct rdm_pair p;
	size_t len = 64 * 1024;

	rdm_pair_open(&p);
	pattern(p.a.buf, len, 1);
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 0, len, (void *)1), 0);
	cq_ok(p.a.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
	ck_assert_int_eq(memcmp(p.a.buf, p.b.buf, len), 0);

	memset(p.a.buf + len, 0, len);
	ck_assert_int_eq(fi_read(p.a.ep, p.a.buf + len, len, fi_mr_desc(p.a.mr),
				 p.a.peer, (uintptr_t)p.b.buf,
				 fi_mr_key(p.b.mr), (void *)2),
			 0);
	cq_ok(p.a.cq, (void *)2, FI_RMA | FI_READ, NULL);
	ck_assert_int_eq(memcmp(p.a.buf + len, p.b.buf, len), 0);

	pattern(p.b.buf + 2 * len, len, 9);
	ck_assert_int_eq(fi_write(p.b.ep, p.b.buf + 2 * len, len,
				  fi_mr_desc(p.b.mr), p.b.peer,
				  (uintptr_t)p.a.buf + 2 * len,
				  fi_mr_key(p.a.mr), (void *)3),
			 0);
	cq_ok(p.b.cq, (void *)3, FI_RMA | FI_WRITE, NULL);
	ck_assert_int_eq(memcmp(p.a.buf + 2 * len, p.b.buf + 2 * len, len), 0);

	/* an injected write of a buffer reused at once */
	memset(p.a.buf, 0x5a, 64);
	ck_assert_int_eq(fi_inject_write(p.a.ep, p.a.buf, 64, p.a.peer,
					 (uintptr_t)p.b.buf + 3 * len,
					 fi_mr_key(p.b.mr)),
			 0);
	memset(p.a.buf, 0, 64);
	/* a delivery-complete write after it says both are placed */
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 3 * len + 64, 8, (void *)4), 0);
	cq_ok(p.a.cq, (void *)4, FI_RMA | FI_WRITE, NULL);
	for (int i = 0; i < 64; i++)
		ck_assert_uint_eq(p.b.buf[3 * len + (size_t)i], 0x5a);
	rdm_pair_close(&p);
}
END_TEST

/*
 * A window of delivery-complete writes, then their completions: each
 * one's data is in B's memory when its completion is read, whether a
 * zero-length Read of its own or a later one confirmed it (iwfi_cq.c).
 * Loop index: the window, 1 to 128 (beyond the ORD of 32 Reads).
 */
START_TEST(dc_window)
{
	static const int windows[] = { 1, 8, 64, 128 };
	int w = windows[_i], got = 0;
	struct rdm_pair p;
	uint8_t seen[128] = { 0 };

	rdm_pair_open(&p);
	pattern(p.a.buf, (size_t)w * 512, 6);
	for (int i = 0; i < w; i++) {
		ssize_t ret;

		do {
			ret = fi_write(p.a.ep, p.a.buf + i * 512, 512,
				       fi_mr_desc(p.a.mr), p.a.peer,
				       (uintptr_t)p.b.buf + (size_t)i * 512,
				       fi_mr_key(p.b.mr),
				       (void *)(uintptr_t)(i + 1));
		} while (ret == -FI_EAGAIN);
		ck_assert_int_eq(ret, 0);
	}
	while (got < w) {
		struct fi_cq_data_entry e;
		uintptr_t i;

		cq_ok(p.a.cq, ANY_CTX, FI_RMA | FI_WRITE, &e);
		i = (uintptr_t)e.op_context - 1;
		ck_assert_uint_lt(i, (uintptr_t)w);
		ck_assert_int_eq(seen[i], 0);
		seen[i] = 1;
		ck_assert_int_eq(
			memcmp(p.b.buf + i * 512, p.a.buf + i * 512, 512), 0);
		got++;
	}
	rdm_pair_close(&p);
}
END_TEST

/* fi_tx_size_left() is deprecated in libfabric 1.17 but answered. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/*
 * More RDMA Writes than a connection's send queue holds (tx_attr->size,
 * 256), all posted before the connection is up, so that they wait in
 * the peer's queue; then the application only reads its CQ.  Every one
 * completes, and its data is in place: the queue drains by itself as
 * the send queue gets room (iwfi_rdm_drain()), not only when the
 * application posts again.  A stall (no completion for 3 s) fails.  The
 * daemon is stopped while they are posted (fi_connect() does not wait
 * for it), so that no connection can come up meanwhile; a watchdog
 * process lets it go on in any case.
 */
#define QUEUED_OPS 1000
/* Each one too large to leave at once through the socket, so that the
 * send queue fills: the buffer in four parts, each written 250 times. */
#define QUEUED_LEN (RDM_BUF / 4)
#define QUEUED_OFF(i) ((size_t)((i) % 4) * QUEUED_LEN)
/* What a peer's queue holds (fi_iwcm(7)). */
#define RDM_QUEUE_MAX 4096

START_TEST(queue_drains)
{
	struct rdm_pair p;
	uint8_t seen[QUEUED_OPS] = { 0 };
	int got = 0, idle_ms = 0;

	ssize_t ret = 0;
	pid_t watchdog;

	rdm_pair_open(&p);
	pattern(p.a.buf, RDM_BUF, 8);
	ck_assert_int_eq(kill(daemon_pid, SIGSTOP), 0);
	watchdog = fork();
	if (watchdog == 0) {
		sleep(5);
		kill(daemon_pid, SIGCONT);
		_exit(0);
	}
	for (int i = 0; i < QUEUED_OPS && !ret; i++)
		ret = fi_write(p.a.ep, p.a.buf + QUEUED_OFF(i), QUEUED_LEN,
			       fi_mr_desc(p.a.mr), p.a.peer,
			       (uintptr_t)p.b.buf + QUEUED_OFF(i),
			       fi_mr_key(p.b.mr), (void *)(uintptr_t)(i + 1));
	/* All wait: no connection, the whole queue but for them. */
	if (!ret)
		ret = fi_tx_size_left(p.a.ep);
	kill(daemon_pid, SIGCONT);
	kill(watchdog, SIGKILL);
	waitpid(watchdog, NULL, 0);
	ck_assert_int_eq(ret, RDM_QUEUE_MAX - QUEUED_OPS);
	while (got < QUEUED_OPS && idle_ms < 3000) {
		struct fi_cq_data_entry e[64];
		struct fi_cq_err_entry err = { 0 };
		ssize_t n = fi_cq_sread(p.a.cq, e, 64, NULL, 100);

		if (n == -FI_EAGAIN) {
			idle_ms += 100;
			continue;
		}
		if (n == -FI_EAVAIL) {
			ck_assert_int_eq(fi_cq_readerr(p.a.cq, &err, 0), 1);
			ck_abort_msg("op %p failed: %d", err.op_context,
				     err.err);
		}
		ck_assert_int_gt(n, 0);
		idle_ms = 0;
		for (ssize_t k = 0; k < n; k++) {
			uintptr_t i = (uintptr_t)e[k].op_context - 1;

			ck_assert_uint_lt(i, QUEUED_OPS);
			ck_assert_int_eq(seen[i], 0);
			seen[i] = 1;
			got++;
		}
	}
	ck_assert_msg(got == QUEUED_OPS, "%d of %d completions, then none", got,
		      QUEUED_OPS);
	ck_assert_int_eq(memcmp(p.a.buf, p.b.buf, RDM_BUF), 0);
	rdm_pair_close(&p);
}
END_TEST
#pragma GCC diagnostic pop

/*
 * Both peers write to each other before either has a connection: one
 * connection is kept (the lower address's, iwfi_rdm_fsm.h), the other
 * side's queued write goes over it.  Loop: a few rounds, each with new
 * endpoints, so that the requests cross in different orders.
 */
START_TEST(simultaneous_connect)
{
	struct rdm_pair p;
	size_t len = 4096;

	rdm_pair_open(&p);
	pattern(p.a.buf, len, 3);
	pattern(p.b.buf + len, len, 4);
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 2 * len, len, (void *)1), 0);
	ck_assert_int_eq(fi_write(p.b.ep, p.b.buf + len, len,
				  fi_mr_desc(p.b.mr), p.b.peer,
				  (uintptr_t)p.a.buf + 2 * len,
				  fi_mr_key(p.a.mr), (void *)2),
			 0);
	cq_ok(p.a.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
	cq_ok(p.b.cq, (void *)2, FI_RMA | FI_WRITE, NULL);
	ck_assert_int_eq(memcmp(p.b.buf + 2 * len, p.a.buf, len), 0);
	ck_assert_int_eq(memcmp(p.a.buf + 2 * len, p.b.buf + len, len), 0);
	/* and the connection carries more, both ways */
	for (int i = 0; i < 16; i++) {
		ck_assert_int_eq(rdm_write(&p.a, &p.b, 0, 64, (void *)3), 0);
		cq_ok(p.a.cq, (void *)3, FI_RMA | FI_WRITE, NULL);
		ck_assert_int_eq(rdm_write(&p.b, &p.a, 0, 64, (void *)4), 0);
		cq_ok(p.b.cq, (void *)4, FI_RMA | FI_WRITE, NULL);
	}
	rdm_pair_close(&p);
}
END_TEST

/* ---- atomics ---- */

static uint64_t fetch(struct rdm_pair *p, enum fi_op op, uint64_t operand)
{
	uint64_t *res = (uint64_t *)(p->a.buf + 64);

	*res = 0xdead;
	ck_assert_int_eq(fi_fetch_atomic(p->a.ep, &operand, 1, NULL, res,
					 fi_mr_desc(p->a.mr), p->a.peer,
					 (uintptr_t)p->b.buf,
					 fi_mr_key(p->b.mr), FI_UINT64, op,
					 (void *)5),
			 0);
	cq_ok(p->a.cq, (void *)5, FI_ATOMIC, NULL);
	return *res;
}

START_TEST(atomics)
{
	struct rdm_pair p;
	uint64_t v = 3, cmp = 8, swap = 42, *res, *word;
	size_t count = 0;

	rdm_pair_open(&p);
	word = (uint64_t *)p.b.buf;
	res = (uint64_t *)(p.a.buf + 64);
	*word = 0;
	ck_assert_uint_eq(fetch(&p, FI_SUM, 5), 0);
	ck_assert_int_eq(fi_atomic(p.a.ep, &v, 1, NULL, p.a.peer,
				   (uintptr_t)p.b.buf, fi_mr_key(p.b.mr),
				   FI_UINT64, FI_SUM, (void *)6),
			 0);
	cq_ok(p.a.cq, (void *)6, FI_ATOMIC, NULL);
	ck_assert_uint_eq(*word, 8);
	ck_assert_int_eq(fi_compare_atomic(p.a.ep, &swap, 1, NULL, &cmp, NULL,
					   res, fi_mr_desc(p.a.mr), p.a.peer,
					   (uintptr_t)p.b.buf,
					   fi_mr_key(p.b.mr), FI_UINT64,
					   FI_CSWAP, (void *)7),
			 0);
	cq_ok(p.a.cq, (void *)7, FI_ATOMIC, NULL);
	ck_assert_uint_eq(*res, 8);
	ck_assert_uint_eq(*word, 42);
	/* a compare that fails leaves the word */
	ck_assert_int_eq(fi_compare_atomic(p.a.ep, &v, 1, NULL, &cmp, NULL, res,
					   fi_mr_desc(p.a.mr), p.a.peer,
					   (uintptr_t)p.b.buf,
					   fi_mr_key(p.b.mr), FI_UINT64,
					   FI_CSWAP, (void *)7),
			 0);
	cq_ok(p.a.cq, (void *)7, FI_ATOMIC, NULL);
	ck_assert_uint_eq(*res, 42);
	ck_assert_uint_eq(*word, 42);
	ck_assert_uint_eq(fetch(&p, FI_ATOMIC_WRITE, 7), 42);
	ck_assert_uint_eq(fetch(&p, FI_ATOMIC_READ, 0), 7);
	ck_assert_uint_eq(*word, 7);
	/* 64-bit bitwise and masked swap, fetching: one CmpSwap each */
	*word = 0xf0f0000000000f0full;
	ck_assert_uint_eq(fetch(&p, FI_BOR, 0x0000ffff0000ff00ull),
			  0xf0f0000000000f0full);
	ck_assert_uint_eq(*word, 0xf0f0ffff0000ff0full);
	ck_assert_uint_eq(fetch(&p, FI_BAND, 0xff00ff00ff00ff00ull),
			  0xf0f0ffff0000ff0full);
	ck_assert_uint_eq(*word, 0xf000ff000000ff00ull);
	v = 0x1234567812345678ull;
	cmp = 0x00000000ffffffffull; /* the bits to change */
	ck_assert_int_eq(fi_compare_atomic(p.a.ep, &v, 1, NULL, &cmp, NULL, res,
					   fi_mr_desc(p.a.mr), p.a.peer,
					   (uintptr_t)p.b.buf,
					   fi_mr_key(p.b.mr), FI_UINT64,
					   FI_MSWAP, (void *)7),
			 0);
	cq_ok(p.a.cq, (void *)7, FI_ATOMIC, NULL);
	ck_assert_uint_eq(*res, 0xf000ff000000ff00ull);
	ck_assert_uint_eq(*word, 0xf000ff0012345678ull);
	ck_assert_int_eq(
		fi_fetch_atomicvalid(p.a.ep, FI_UINT64, FI_SUM, &count), 0);
	ck_assert_uint_eq(count, 1);
	ck_assert_int_eq(
		fi_compare_atomicvalid(p.a.ep, FI_UINT64, FI_CSWAP, &count), 0);
	rdm_pair_close(&p);
}
END_TEST

/*
 * What fi_atomicvalid(), fi_fetch_atomicvalid(), fi_compare_atomicvalid()
 * and fi_query_atomic() answer, for every datatype and operation of
 * fi_atomic(3) of the kind, against want_valid() of fabric_rdm.h, a table
 * written apart from the provider's: fi_atomic() takes 8- to 64-bit
 * integers with FI_SUM, FI_ATOMIC_WRITE, FI_BOR, FI_BAND and FI_BXOR;
 * the fetching ones the same, with FI_ATOMIC_READ too; the compare ones
 * FI_CSWAP and FI_MSWAP.  What is refused is refused by the call as well.
 */
START_TEST(atomic_valid)
{
	struct rdm_pair p;
	struct fi_atomic_attr attr;
	uint64_t v = 1, cmp = 1, res = 0;

	rdm_pair_open(&p);
	for (int dt = FI_INT8; dt < FI_DATATYPE_LAST; dt++) {
		for (int op = FI_MIN; op <= FI_MSWAP; op++) {
			for (int kind = 0; kind < 3; kind++) {
				bool want;
				int call;

				if ((kind == 2) != (op >= FI_CSWAP))
					continue;
				want = valid_ok(p.a.ep, kind, dt, op);
				ck_assert_int_eq(
					fi_query_atomic(
						p.domain, dt, op, &attr,
						kind == 1 ? FI_FETCH_ATOMIC :
						kind == 2 ? FI_COMPARE_ATOMIC :
							    0),
					want ? 0 : -FI_EOPNOTSUPP);
				if (want)
					continue;
				/* refused by the call too, nothing posted */
				if (kind == 0)
					call = (int)fi_atomic(
						p.a.ep, &v, 1, NULL, p.a.peer,
						(uintptr_t)p.b.buf,
						fi_mr_key(p.b.mr), dt, op,
						NULL);
				else if (kind == 1)
					call = (int)fi_fetch_atomic(
						p.a.ep, &v, 1, NULL, &res, NULL,
						p.a.peer, (uintptr_t)p.b.buf,
						fi_mr_key(p.b.mr), dt, op,
						NULL);
				else
					call = (int)fi_compare_atomic(
						p.a.ep, &v, 1, NULL, &cmp, NULL,
						&res, NULL, p.a.peer,
						(uintptr_t)p.b.buf,
						fi_mr_key(p.b.mr), dt, op,
						NULL);
				ck_assert_int_eq(call, -FI_EOPNOTSUPP);
			}
		}
	}
	ck_assert_int_eq(fi_query_atomic(p.domain, FI_UINT16, FI_SUM, &attr, 0),
			 0);
	ck_assert_uint_eq(attr.size, 2);
	ck_assert_uint_eq(attr.count, 1);
	rdm_pair_close(&p);
}
END_TEST

/*
 * fi_atomic() on one field of an 8-octet word: the RFC 7306 masked
 * FetchAdd and CmpSwap change that field and nothing else, a carry out
 * of the field is lost, signed operands act as their two's complement.
 * The expected word is computed octet by octet in memory, not with the
 * provider's shifts.  The word after it must be untouched too.
 */
struct narrow {
	enum fi_datatype dt;
	enum fi_op op;
	unsigned int off;
	uint64_t field; /* what the field holds before */
	uint64_t operand;
	uint64_t want; /* what the field holds after */
};

static const struct narrow narrows[] = {
	{ FI_UINT8, FI_SUM, 7, 0xff, 0x01, 0x00 },
	{ FI_INT8, FI_SUM, 3, 0x05, 0xff /* -1 */, 0x04 },
	{ FI_UINT16, FI_SUM, 6, 0xffff, 0x0002, 0x0001 },
	{ FI_INT16, FI_ATOMIC_WRITE, 2, 0x1234, 0x8001, 0x8001 },
	{ FI_UINT32, FI_SUM, 0, 0xffffffff, 0x00000001, 0x00000000 },
	{ FI_UINT32, FI_SUM, 4, 0xfffffff0, 0x00000020, 0x00000010 },
	{ FI_INT32, FI_SUM, 4, 0x00000005, 0xfffffffd /* -3 */, 0x00000002 },
	{ FI_INT32, FI_SUM, 0, 0x7fffffff, 0x00000001, 0x80000000 },
	{ FI_INT32, FI_ATOMIC_WRITE, 4, 0x01020304, 0xffffffff, 0xffffffff },
	{ FI_UINT32, FI_ATOMIC_WRITE, 0, 0xa5a5a5a5, 0x00000000, 0x00000000 },
	{ FI_UINT32, FI_BOR, 0, 0x10000001, 0x0f0f0f0f, 0x1f0f0f0f },
	{ FI_UINT32, FI_BAND, 4, 0x12345678, 0x00ff00ff, 0x00340078 },
	{ FI_UINT16, FI_BAND, 0, 0xbeef, 0x0000, 0x0000 },
	{ FI_UINT8, FI_BOR, 5, 0x80, 0x01, 0x81 },
	{ FI_UINT64, FI_SUM, 0, 0xffffffffffffffffull, 2, 1 },
};

START_TEST(atomic_narrow)
{
	const struct narrow *t = &narrows[_i];
	size_t size = dt_size(t->dt);
	uint8_t *target, want[16], operand[8];
	struct rdm_pair p;

	rdm_pair_open(&p);
	target = p.b.buf + 256;
	pattern(target, 16, 0x31);
	field_put(target + t->off, size, t->field);
	memcpy(want, target, 16);
	field_put(want + t->off, size, t->want);
	field_put(operand, size, t->operand);
	ck_assert_int_eq(fi_atomic(p.a.ep, operand, 1, NULL, p.a.peer,
				   (uintptr_t)(target + t->off),
				   fi_mr_key(p.b.mr), t->dt, t->op, (void *)8),
			 0);
	cq_ok(p.a.cq, (void *)8, FI_ATOMIC, NULL);
	ck_assert_msg(!memcmp(target, want, 16),
		      "%zu-octet op %d at %u: field %#llx, want %#llx", size,
		      t->op, t->off,
		      (unsigned long long)field_get(target + t->off, size),
		      (unsigned long long)t->want);
	/* A field not naturally aligned is refused, nothing posted. */
	if (size > 1)
		ck_assert_int_eq(fi_atomic(p.a.ep, operand, 1, NULL, p.a.peer,
					   (uintptr_t)(target + 1),
					   fi_mr_key(p.b.mr), t->dt, t->op,
					   NULL),
				 -FI_EINVAL);
	rdm_pair_close(&p);
}
END_TEST

/*
 * Two initiators add to the two halves of one word at once, each add a
 * 32-bit FI_SUM that wraps its half: the low half must end at the
 * sequential sum modulo 2^32 and no carry may reach the high half,
 * whose own adds must all be there.
 */
#define CONTEND_N 320
#define CONTEND_BATCH 32

/* Post one 32-bit add of 1 at addr (retrying a full queue). */
static void add32(struct rdm *x, fi_addr_t peer, uint64_t addr, uint64_t key,
		  void *ctx)
{
	static const uint32_t one = 1;
	ssize_t ret;

	do {
		ret = fi_atomic(x->ep, &one, 1, NULL, peer, addr, key,
				FI_UINT32, FI_SUM, ctx);
	} while (ret == -FI_EAGAIN);
	ck_assert_int_eq(ret, 0);
}

/* Read x's CQ once: 1 for a completion of ctx, 0 for none. */
static int reap(struct rdm *x, void *ctx)
{
	struct fi_cq_data_entry e;
	ssize_t ret = fi_cq_read(x->cq, &e, 1);

	ck_assert_msg(ret == 1 || ret == -FI_EAGAIN, "fi_cq_read: %zd", ret);
	if (ret != 1)
		return 0;
	ck_assert_ptr_eq(e.op_context, ctx);
	return 1;
}

START_TEST(atomic_contend)
{
	struct rdm_pair p;
	struct rdm c;
	fi_addr_t c_peer;
	uint32_t *half;
	uint8_t *target;
	uint64_t key;
	int done_a = 0, done_c = 0;

	rdm_pair_open(&p);
	rdm_open(&p, &c);
	ck_assert_int_eq(fi_av_insert(c.av, &p.b.name, 1, &c_peer, 0, NULL), 1);
	target = p.b.buf + 512;
	key = fi_mr_key(p.b.mr);
	/* Both connections up first, on another word. */
	add32(&p.a, p.a.peer, (uintptr_t)target + 8, key, (void *)9);
	cq_ok(p.a.cq, (void *)9, FI_ATOMIC, NULL);
	add32(&c, c_peer, (uintptr_t)target + 8, key, (void *)10);
	cq_ok(c.cq, (void *)10, FI_ATOMIC, NULL);
	half = (uint32_t *)target;
	half[0] = 0xffffff00u;
	half[1] = 7;
	/* Batches in flight from both at once, each read to its end. */
	for (int r = 0; r < CONTEND_N / CONTEND_BATCH; r++) {
		for (int i = 0; i < CONTEND_BATCH; i++) {
			add32(&p.a, p.a.peer, (uintptr_t)target, key,
			      (void *)9);
			add32(&c, c_peer, (uintptr_t)target, key, (void *)10);
			add32(&c, c_peer, (uintptr_t)target + 4, key,
			      (void *)10);
		}
		for (int idle = 0; done_a < (r + 1) * CONTEND_BATCH ||
				   done_c < 2 * (r + 1) * CONTEND_BATCH;) {
			int got_a = reap(&p.a, (void *)9);
			int got_c = reap(&c, (void *)10);

			done_a += got_a;
			done_c += got_c;
			idle = got_a || got_c ? 0 : idle + 1;
			if (idle)
				usleep(100);
			ck_assert_msg(idle < 10 * WAIT_MS,
				      "%d and %d of %d and %d adds done",
				      done_a, done_c, CONTEND_N, 2 * CONTEND_N);
		}
	}
	ck_assert_uint_eq(__atomic_load_n(&half[0], __ATOMIC_ACQUIRE),
			  (uint32_t)(0xffffff00u + 2 * CONTEND_N));
	ck_assert_uint_eq(__atomic_load_n(&half[1], __ATOMIC_ACQUIRE),
			  7 + CONTEND_N);
	rdm_close(&c);
	rdm_pair_close(&p);
}
END_TEST

/*
 * A 4-octet operand in the last 4 octets of a 12-octet region: the word
 * that holds it reaches past the region, so the target refuses it (an
 * RFC 5040 §7.2 Remote Protection Error): FI_EACCES at the initiator,
 * and nothing changes, in the region or after it.  The operand in the
 * first word of the same region is carried.
 */
START_TEST(atomic_bound)
{
	struct rdm_pair p;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct fid_mr *mr;
	uint8_t *region, copy[32];
	uint32_t one = 1, got;

	rdm_pair_open(&p);
	region = p.b.buf + 1024; /* 8-octet aligned */
	pattern(region, 32, 9);
	ck_assert_int_eq(fi_mr_reg(p.domain, region, 12,
				   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0,
				   &mr, NULL),
			 0);
	memcpy(&got, region + 4, 4);
	ck_assert_int_eq(fi_atomic(p.a.ep, &one, 1, NULL, p.a.peer,
				   (uintptr_t)(region + 4), fi_mr_key(mr),
				   FI_UINT32, FI_SUM, (void *)11),
			 0);
	cq_ok(p.a.cq, (void *)11, FI_ATOMIC, NULL);
	got++;
	ck_assert_int_eq(memcmp(region + 4, &got, 4), 0);
	memcpy(copy, region, sizeof(copy));
	ck_assert_int_eq(fi_atomic(p.a.ep, &one, 1, NULL, p.a.peer,
				   (uintptr_t)(region + 8), fi_mr_key(mr),
				   FI_UINT32, FI_SUM, (void *)12),
			 0);
	ck_assert_int_eq(cq_wait(p.a.cq, &e, &err), -FI_EAVAIL);
	ck_assert_int_eq(err.err, FI_EACCES);
	ck_assert_ptr_eq(err.op_context, (void *)12);
	ck_assert_int_eq(memcmp(region, copy, sizeof(copy)), 0);
	ck_assert_int_eq(fi_close(&mr->fid), 0);
	rdm_pair_close(&p);
}
END_TEST

/* ---- errors ---- */

START_TEST(bad_addr)
{
	struct rdm_pair p;

	rdm_pair_open(&p);
	ck_assert_int_eq(fi_write(p.a.ep, p.a.buf, 8, fi_mr_desc(p.a.mr), 99,
				  (uintptr_t)p.b.buf, fi_mr_key(p.b.mr), NULL),
			 -FI_EINVAL);
	ck_assert_int_eq(fi_read(p.a.ep, p.a.buf, 8, fi_mr_desc(p.a.mr),
				 FI_ADDR_UNSPEC, (uintptr_t)p.b.buf,
				 fi_mr_key(p.b.mr), NULL),
			 -FI_EINVAL);
	/* a peer used, then removed from the vector, is no address */
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 0, 8, (void *)1), 0);
	cq_ok(p.a.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
	ck_assert_int_eq(fi_av_remove(p.a.av, &p.a.peer, 1, 0), 0);
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 0, 8, NULL), -FI_EINVAL);
	/* one buffer per operation */
	{
		struct iovec iov[2] = { { p.a.buf, 8 }, { p.a.buf + 8, 8 } };

		ck_assert_int_eq(fi_writev(p.a.ep, iov, NULL, 2, p.a.peer,
					   (uintptr_t)p.b.buf,
					   fi_mr_key(p.b.mr), NULL),
				 -FI_EINVAL);
	}
	rdm_pair_close(&p);
}
END_TEST

/* Connect a to b first (one write done, so that a later error is the
 * Terminate's), then register a region of 4096 octets at buf and close
 * it: its key, no longer valid. */
static uint64_t dead_key_after_connect(struct rdm_pair *p, uint8_t *buf)
{
	ck_assert_int_eq(rdm_write(&p->a, &p->b, 0, 8, (void *)1), 0);
	cq_ok(p->a.cq, (void *)1, FI_RMA | FI_WRITE, NULL);
	return closed_key(p->domain, buf, 4096);
}

/*
 * RMA to a region B has closed: B's QP answers with a Terminate
 * (RFC 5042 §5, RFC 5040 §7.2), A's operation completes with FI_EACCES,
 * nothing lands in B's memory, and A's next operation connects again.
 * Loop index: 0 fi_write, 1 fi_read, 2 fi_fetch_atomic.
 */
START_TEST(dead_key)
{
	struct rdm_pair p;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	uint8_t *canary = malloc(4096), copy[4096];
	uint64_t key, v = 5;
	ssize_t ret;
	bool failed = false;

	ck_assert_ptr_nonnull(canary);
	pattern(canary, 4096, 2);
	memcpy(copy, canary, sizeof(copy));
	rdm_pair_open(&p);
	key = dead_key_after_connect(&p, canary);
	pattern(p.a.buf, 4096, 5);
	switch (_i) {
	case 0:
		ret = fi_write(p.a.ep, p.a.buf, 4096, fi_mr_desc(p.a.mr),
			       p.a.peer, (uintptr_t)canary, key, (void *)2);
		break;
	case 1:
		ret = fi_read(p.a.ep, p.a.buf, 4096, fi_mr_desc(p.a.mr),
			      p.a.peer, (uintptr_t)canary, key, (void *)2);
		break;
	default:
		ret = fi_fetch_atomic(p.a.ep, &v, 1, NULL, p.a.buf,
				      fi_mr_desc(p.a.mr), p.a.peer,
				      (uintptr_t)canary, key, FI_UINT64, FI_SUM,
				      (void *)2);
		break;
	}
	ck_assert_int_eq(ret, 0);
	while (!failed) {
		ret = cq_wait(p.a.cq, &e, &err);
		ck_assert_msg(ret == -FI_EAVAIL,
			      "op %d completed without error", _i);
		failed = true;
	}
	/* A write is told by the Terminate through the Read that confirms
	 * it (FI_EACCES); when the Terminate came before the write's own
	 * completion was read, no Read can confirm it (FI_ECONNRESET). */
	ck_assert_msg(err.err == FI_EACCES ||
			      (_i == 0 && err.err == FI_ECONNRESET),
		      "op %d: error %d", _i, err.err);
	ck_assert_ptr_eq(err.op_context, (void *)2);
	ck_assert_int_eq(memcmp(canary, copy, sizeof(copy)), 0);
	/* The connection is gone; the next write makes a new one. */
	do {
		ret = rdm_write(&p.a, &p.b, 0, 64, (void *)3);
	} while (ret == -FI_EAGAIN);
	ck_assert_int_eq(ret, 0);
	for (;;) {
		ret = cq_wait(p.a.cq, &e, &err);
		if (ret == 1)
			break;
		/* a flushed leftover of the dead connection */
		ck_assert_ptr_ne(err.op_context, (void *)3);
	}
	ck_assert_ptr_eq(e.op_context, (void *)3);
	ck_assert_int_eq(memcmp(p.a.buf, p.b.buf, 64), 0);
	rdm_pair_close(&p);
	free(canary);
}
END_TEST

/* An FI_DELIVERY_COMPLETE write to a closed region whose Terminate has
 * failed the connection before the write's completion is read: nothing
 * can confirm it placed, so it completes with an error, never as a
 * success. */
START_TEST(dead_key_late)
{
	struct rdm_pair p;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	uint8_t *canary = malloc(4096);
	uint64_t key;
	ssize_t ret;

	ck_assert_ptr_nonnull(canary);
	rdm_pair_open(&p);
	key = dead_key_after_connect(&p, canary);
	ck_assert_int_eq(fi_write(p.a.ep, p.a.buf, 64, fi_mr_desc(p.a.mr),
				  p.a.peer, (uintptr_t)canary, key, (void *)2),
			 0);
	/* The target's side runs meanwhile; the initiator reads nothing. */
	for (int i = 0; i < 50; i++) {
		(void)fi_cq_read(p.b.cq, &e, 1);
		usleep(10000);
	}
	ret = cq_wait(p.a.cq, &e, &err);
	ck_assert_msg(ret == -FI_EAVAIL, "the write completed without error");
	ck_assert_ptr_eq(err.op_context, (void *)2);
	ck_assert_msg(err.err == FI_EACCES || err.err == FI_ECONNRESET,
		      "error %d", err.err);
	rdm_pair_close(&p);
	free(canary);
}
END_TEST

/* fi_tx_size_left() and fi_rx_size_left() are deprecated in libfabric
 * 1.17 but still answered: the test calls them on purpose. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/*
 * fi_tx_size_left() and fi_rx_size_left() of an RDM endpoint: what a
 * post takes now.  -FI_EOPBADSTATE before fi_enable(); no receives at
 * all; a peer without a connection queues up to 4096 operations
 * (fi_iwcm(7)); a connected one takes what its send queue has room
 * for; once a Terminate has failed that connection a post opens a new
 * one, so the queue's 4096 again, not an error.
 */
START_TEST(size_left)
{
	struct rdm_pair p;
	struct fid_ep *ep;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	uint8_t *canary = malloc(4096);
	uint64_t key;
	ssize_t ret;

	ck_assert_ptr_nonnull(canary);
	rdm_pair_open(&p);
	ck_assert_int_eq(fi_endpoint(p.domain, p.info, &ep, NULL), 0);
	ck_assert_int_eq(fi_tx_size_left(ep), -FI_EOPBADSTATE);
	ck_assert_int_eq(fi_rx_size_left(ep), -FI_EOPBADSTATE);
	ck_assert_int_eq(fi_close(&ep->fid), 0);

	ck_assert_int_eq(fi_rx_size_left(p.a.ep), 0);
	ck_assert_int_eq(fi_tx_size_left(p.a.ep), RDM_QUEUE_MAX);
	/* Connected, every completion read: the whole send queue. */
	key = dead_key_after_connect(&p, canary);
	ck_assert_int_eq(fi_tx_size_left(p.a.ep),
			 (ssize_t)p.info->tx_attr->size);
	/* One write in flight takes an entry until it completes. */
	ck_assert_int_eq(rdm_write(&p.a, &p.b, 0, 8, (void *)2), 0);
	ret = fi_tx_size_left(p.a.ep);
	ck_assert_int_ge(ret, (ssize_t)p.info->tx_attr->size - 2);
	ck_assert_int_le(ret, (ssize_t)p.info->tx_attr->size);
	cq_ok(p.a.cq, (void *)2, FI_RMA | FI_WRITE, NULL);
	/* A write to the closed region: the Terminate fails the QP. */
	ck_assert_int_eq(fi_write(p.a.ep, p.a.buf, 64, fi_mr_desc(p.a.mr),
				  p.a.peer, (uintptr_t)canary, key, (void *)3),
			 0);
	ck_assert_int_eq(cq_wait(p.a.cq, &e, &err), -FI_EAVAIL);
	ck_assert_ptr_eq(err.op_context, (void *)3);
	ck_assert_int_eq(fi_tx_size_left(p.a.ep), RDM_QUEUE_MAX);
	ck_assert_int_eq(fi_rx_size_left(p.a.ep), 0);
	rdm_pair_close(&p);
	free(canary);
}
END_TEST
#pragma GCC diagnostic pop

/* fi_control(3) FI_GETOPSFLAG and FI_SETOPSFLAG: each side's own
 * flags, the selecting bit not kept, neither side -FI_EINVAL. */
START_TEST(opsflag)
{
	struct rdm_pair p;
	uint64_t f;

	rdm_pair_open(&p);
	f = FI_TRANSMIT | FI_INJECT_COMPLETE;
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_SETOPSFLAG, &f), 0);
	f = FI_RECV | FI_COMPLETION;
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_SETOPSFLAG, &f), 0);
	f = FI_TRANSMIT;
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_GETOPSFLAG, &f), 0);
	ck_assert_uint_eq(f, FI_INJECT_COMPLETE);
	f = FI_RECV;
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_GETOPSFLAG, &f), 0);
	ck_assert_uint_eq(f, FI_COMPLETION);
	f = FI_COMPLETION;
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_GETOPSFLAG, &f),
			 -FI_EINVAL);
	ck_assert_int_eq(fi_control(&p.a.ep->fid, FI_SETOPSFLAG, &f),
			 -FI_EINVAL);
	rdm_pair_close(&p);
}
END_TEST

static Suite *rdm_suite(void)
{
	Suite *s = suite_create("fabric_rdm");
	TCase *tc = tcase_create("rdm");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, info_btl_ofi);
	tcase_add_test(tc, av_entries);
	tcase_add_test(tc, rma_on_demand);
	tcase_add_test(tc, opsflag);
	tcase_add_loop_test(tc, dc_window, 0, 4);
	tcase_add_test(tc, queue_drains);
	tcase_add_loop_test(tc, simultaneous_connect, 0, 4);
	tcase_add_test(tc, atomics);
	tcase_add_test(tc, atomic_valid);
	tcase_add_loop_test(tc, atomic_narrow, 0,
			    (int)(sizeof(narrows) / sizeof(narrows[0])));
	tcase_add_test(tc, atomic_contend);
	tcase_add_test(tc, atomic_bound);
	tcase_add_test(tc, bad_addr);
	tcase_add_loop_test(tc, dead_key, 0, 3);
	tcase_add_test(tc, dead_key_late);
	tcase_add_test(tc, size_left);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return fabric_run(rdm_suite(), "");
}
