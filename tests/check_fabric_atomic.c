/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Fetching and compare atomics of every integer width on both endpoint
 * types of the provider iwcm (fabric/iwfi_atomic.c), against a real
 * iwcmd: each one RFC 7306 atomic on the 8-octet word that holds the
 * field, its original value narrowed into the caller's 1-, 2- or
 * 4-octet result when it completes.  For every fetching op (FI_SUM,
 * FI_ATOMIC_READ, FI_ATOMIC_WRITE, FI_BOR, FI_BAND, FI_BXOR) and compare
 * op (FI_CSWAP that matches and that does not, FI_MSWAP), every width,
 * signed (negative values) and unsigned, at every aligned place in the
 * word: the field ends as a model computed octet by octet in memory
 * says (not with the provider's shifts and masks), the octets around it
 * in the target and around the result are untouched, and the result is
 * the field's old value.  A fetching atomic flushed from a failed
 * connection, or refused by the target because its word reaches past
 * the region, leaves its result as it was.  fi_atomicvalid() and its
 * kin answer a table written apart from the provider's.
 */
#include "config.h"

#include <stdbool.h>

#include <rdma/fi_rma.h>

#include "fabric_rdm.h"

/* One endpoint type: where to post, whom, and the target's window. */
struct at_ep {
	struct fid_ep *ep;
	struct fid_cq *cq;
	fi_addr_t peer;
	uint8_t *target; /* the target's registered memory */
	uint64_t key;
	uint8_t *local; /* the initiator's registered memory */
	void *local_desc;
};

/* The RDM endpoint pair as an at_ep: a posts, b is the target. */
static void rdm_at_ep(struct rdm_pair *p, struct at_ep *x)
{
	rdm_pair_open(p);
	x->ep = p->a.ep;
	x->cq = p->a.cq;
	x->peer = p->a.peer;
	x->target = p->b.buf;
	x->key = fi_mr_key(p->b.mr);
	x->local = p->a.buf;
	x->local_desc = fi_mr_desc(p->a.mr);
}

/* ---- both endpoint types: loop index 0 FI_EP_MSG, 1 FI_EP_RDM ---- */

struct at_net {
	struct net n;
	struct rdm_pair p;
	bool rdm;
	struct at_ep x;
};

static void at_open(struct at_net *t, bool rdm)
{
	memset(t, 0, sizeof(*t));
	t->rdm = rdm;
	if (rdm) {
		rdm_at_ep(&t->p, &t->x);
		return;
	}
	net_open(&t->n);
	net_connect(&t->n, false);
	t->x.ep = t->n.c.ep;
	t->x.cq = t->n.c.cq;
	t->x.peer = 0;
	t->x.target = t->n.s.buf;
	t->x.key = fi_mr_key(t->n.s.mr);
	t->x.local = t->n.c.buf;
	t->x.local_desc = fi_mr_desc(t->n.c.mr);
}

static void at_close(struct at_net *t)
{
	if (t->rdm)
		rdm_pair_close(&t->p);
	else
		net_close(&t->n);
}

/* ---- the model ---- */

/* The field's value as its signed type, sign-extended. */
static int64_t as_signed(uint64_t v, size_t size)
{
	switch (size) {
	case 1:
		return (int8_t)v;
	case 2:
		return (int16_t)v;
	case 4:
		return (int32_t)v;
	default:
		return (int64_t)v;
	}
}

static bool dt_signed(enum fi_datatype dt)
{
	return dt == FI_INT8 || dt == FI_INT16 || dt == FI_INT32 ||
	       dt == FI_INT64;
}

/* What an op leaves in a field of old value o, operand v, compare c
 * (fi_atomic(3)), the sum in two's complement modulo the width. */
static uint64_t model(enum fi_op op, uint64_t o, uint64_t v, uint64_t c,
		      size_t size)
{
	uint64_t ones = size == 8 ? UINT64_MAX :
				    (UINT64_C(1) << (8 * size)) - 1;

	switch (op) {
	case FI_SUM:
		return (o + v) & ones;
	case FI_ATOMIC_READ:
		return o;
	case FI_ATOMIC_WRITE:
		return v;
	case FI_BOR:
		return o | v;
	case FI_BAND:
		return o & v;
	case FI_BXOR:
		return o ^ v;
	case FI_CSWAP:
		return o == c ? v : o;
	default: /* FI_MSWAP */
		return (o & ~c) | (v & c);
	}
}

static const enum fi_datatype dts[] = {
	FI_INT8,  FI_UINT8,  FI_INT16, FI_UINT16,
	FI_INT32, FI_UINT32, FI_INT64, FI_UINT64,
};

/* One case: the op, the field's old value, operand and compare, as
 * signed numbers narrowed to the width (negative ones for signed types
 * show in the result's sign). */
struct at_case {
	enum fi_op op;
	int kind; /* 1 fetch, 2 compare */
	int64_t old, operand, compare;
};

static const struct at_case cases[] = {
	{ FI_SUM, 1, -5, 3, 0 },
	{ FI_SUM, 1, -1, 1, 0 }, /* the carry out of the field is lost */
	{ FI_SUM, 1, 100, -120, 0 },
	{ FI_ATOMIC_READ, 1, -77, 0, 0 },
	{ FI_ATOMIC_WRITE, 1, 0x5a, -2, 0 },
	{ FI_BOR, 1, 0x41, 0x12, 0 },
	{ FI_BAND, 1, -1, 0x3c, 0 },
	{ FI_BXOR, 1, 0x55, -1, 0 },
	{ FI_BXOR, 1, -128, 0x0f, 0 },
	{ FI_CSWAP, 2, -9, 7, -9 }, /* matches: swapped */
	{ FI_CSWAP, 2, -9, 7, 9 },  /* does not: left */
	{ FI_MSWAP, 2, 0x33, -1, 0x0f },
};

/* The test's own narrowing of a signed number to size octets. */
static uint64_t bits(int64_t v, size_t size)
{
	return size == 8 ? (uint64_t)v :
			   (uint64_t)v & ((UINT64_C(1) << (8 * size)) - 1);
}

/* Run case c on datatype dt at offset off of the word at x->target +
 * 512: the target's 24 octets around the word and the result's
 * neighbours checked. */
static void run_case(struct at_ep *x, const struct at_case *c,
		     enum fi_datatype dt, unsigned int off, void *ctx)
{
	size_t size = dt_size(dt);
	uint8_t *word = x->target + 512, want[24], operand[8], compare[8];
	uint8_t *res = x->local + 1024, rwant[24];
	uint64_t o = bits(c->old, size), v = bits(c->operand, size);
	uint64_t cmp = bits(c->compare, size), got;
	ssize_t ret;

	for (int i = 0; i < 24; i++) {
		word[i - 8] = (uint8_t)(0xa0 + i * 11);
		res[i - 8] = (uint8_t)(0x3b + i * 5);
	}
	field_put(word + off, size, o);
	memcpy(want, word - 8, 24);
	field_put(want + 8 + off, size, model(c->op, o, v, cmp, size));
	memcpy(rwant, res - 8, 24);
	field_put(rwant + 8, size, o);
	field_put(operand, size, v);
	field_put(compare, size, cmp);
	if (c->kind == 1)
		ret = fi_fetch_atomic(x->ep,
				      c->op == FI_ATOMIC_READ ? NULL : operand,
				      1, NULL, res, x->local_desc, x->peer,
				      (uintptr_t)(word + off), x->key, dt,
				      c->op, ctx);
	else
		ret = fi_compare_atomic(x->ep, operand, 1, NULL, compare, NULL,
					res, x->local_desc, x->peer,
					(uintptr_t)(word + off), x->key, dt,
					c->op, ctx);
	ck_assert_msg(ret == 0, "dt %d op %d: %zd", dt, c->op, ret);
	cq_ok(x->cq, ctx, FI_ATOMIC, NULL);
	got = field_get(word + off, size);
	ck_assert_msg(!memcmp(word - 8, want, 24),
		      "dt %d op %d at %u: field %#llx, want %#llx, or a "
		      "neighbour changed",
		      dt, c->op, off, (unsigned long long)got,
		      (unsigned long long)field_get(want + 8 + off, size));
	ck_assert_msg(!memcmp(res - 8, rwant, 24),
		      "dt %d op %d at %u: result %#llx, want %#llx, or a "
		      "neighbour changed",
		      dt, c->op, off, (unsigned long long)field_get(res, size),
		      (unsigned long long)o);
	if (dt_signed(dt))
		ck_assert_int_eq(as_signed(field_get(res, size), size),
				 as_signed(o, size));
}

START_TEST(fetch_and_compare)
{
	struct at_net t;
	unsigned int n = 0;

	at_open(&t, _i == 1);
	for (size_t d = 0; d < sizeof(dts) / sizeof(dts[0]); d++) {
		size_t size = dt_size(dts[d]);

		for (unsigned int off = 0; off < 8; off += (unsigned int)size)
			for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]);
			     k++) {
				run_case(&t.x, &cases[k], dts[d], off,
					 (void *)(uintptr_t)(++n));
			}
	}
	at_close(&t);
}
END_TEST

/* fi_atomic() (no result) of FI_BXOR on every width: the field flips,
 * the rest of the word stays. */
START_TEST(xor_no_fetch)
{
	struct at_net t;
	uint8_t *word, want[8];

	at_open(&t, _i == 1);
	word = t.x.target + 4096;
	for (size_t d = 0; d < sizeof(dts) / sizeof(dts[0]); d++) {
		size_t size = dt_size(dts[d]);
		unsigned int off = (unsigned int)(8 - size);
		uint8_t operand[8];

		memcpy(word, "\x01\x23\x45\x67\x89\xab\xcd\xef", 8);
		memcpy(want, word, 8);
		field_put(operand, size, bits(-1, size));
		for (size_t i = 0; i < size; i++)
			want[off + i] ^= 0xff;
		ck_assert_int_eq(fi_atomic(t.x.ep, operand, 1, NULL, t.x.peer,
					   (uintptr_t)(word + off), t.x.key,
					   dts[d], FI_BXOR, (void *)1),
				 0);
		cq_ok(t.x.cq, (void *)1, FI_ATOMIC | FI_WRITE, NULL);
		ck_assert_msg(!memcmp(word, want, 8), "dt %d", dts[d]);
	}
	at_close(&t);
}
END_TEST

/*
 * A fetching atomic flushed from a failed connection: a Read Request
 * to a closed region ahead of it makes the target answer with a
 * Terminate and stop (RFC 5040 §7), so the Read completes with
 * FI_EACCES and the 32-bit FI_SUM queued behind it is flushed,
 * FI_ECONNRESET: its result is left as it was, the target's word too.
 */
START_TEST(fetch_flushed)
{
	struct at_net t;
	struct fi_cq_data_entry e;
	struct fi_cq_err_entry err;
	struct fid_domain *dom;
	uint8_t *dead = calloc(1, 4096), *res;
	uint32_t one = 1;
	uint64_t dead_key, before;
	ssize_t ret;

	ck_assert_ptr_nonnull(dead);
	at_open(&t, _i == 1);
	dom = t.rdm ? t.p.domain : t.n.domain;
	dead_key = closed_key(dom, dead, 4096);
	if (t.rdm) {
		/* connected first, so that both go on one connection */
		ck_assert_int_eq(
			fi_fetch_atomic(t.x.ep, &one, 1, NULL, t.x.local,
					t.x.local_desc, t.x.peer,
					(uintptr_t)t.x.target + 256, t.x.key,
					FI_UINT32, FI_SUM, (void *)9),
			0);
		cq_ok(t.x.cq, (void *)9, FI_ATOMIC, NULL);
	}
	res = t.x.local + 2048;
	memset(res - 8, 0xee, 24);
	memcpy(&before, t.x.target + 512, 8);
	ck_assert_int_eq(fi_read(t.x.ep, t.x.local + 4096, 64, t.x.local_desc,
				 t.x.peer, (uintptr_t)dead, dead_key,
				 (void *)1),
			 0);
	ck_assert_int_eq(fi_fetch_atomic(t.x.ep, &one, 1, NULL, res,
					 t.x.local_desc, t.x.peer,
					 (uintptr_t)t.x.target + 516, t.x.key,
					 FI_UINT32, FI_SUM, (void *)2),
			 0);
	ret = cq_wait(t.x.cq, &e, &err);
	ck_assert_int_eq(ret, -FI_EAVAIL);
	ck_assert_ptr_eq(err.op_context, (void *)1);
	ck_assert_int_eq(err.err, FI_EACCES);
	ret = cq_wait(t.x.cq, &e, &err);
	ck_assert_int_eq(ret, -FI_EAVAIL);
	ck_assert_ptr_eq(err.op_context, (void *)2);
	ck_assert_int_eq(err.err, FI_ECONNRESET);
	for (int i = -8; i < 16; i++)
		ck_assert_uint_eq(res[i], 0xee);
	ck_assert_int_eq(memcmp(&before, t.x.target + 512, 8), 0);
	at_close(&t);
	free(dead);
}
END_TEST

/*
 * The word of a narrow fetching or compare atomic must lie in the
 * region whole (RFC 7306 §5.1 acts on the aligned word; RFC 5040 §7.2
 * Remote Protection Error): a 32-bit one in the last 4 octets of a
 * 12-octet region completes with FI_EACCES, changes nothing in the
 * target and leaves its result as it was; the same in the region's
 * first word succeeds.
 */
START_TEST(fetch_bound)
{
	struct at_net t;
	struct fid_mr *mr;
	struct fid_domain *dom;
	uint8_t *region, copy[32], *res;
	uint32_t one = 1, cmp = 0, got;
	uint64_t key;

	at_open(&t, _i >= 2);
	dom = t.rdm ? t.p.domain : t.n.domain;
	region = t.x.target + 8192; /* 8-octet aligned */
	for (int i = 0; i < 32; i++)
		region[i] = (uint8_t)(i * 7 + 1);
	ck_assert_int_eq(fi_mr_reg(dom, region, 12,
				   FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 0, 0,
				   &mr, NULL),
			 0);
	key = fi_mr_key(mr);
	res = t.x.local + 8192;
	memcpy(&got, region + 4, 4);
	ck_assert_int_eq(fi_fetch_atomic(t.x.ep, &one, 1, NULL, res,
					 t.x.local_desc, t.x.peer,
					 (uintptr_t)(region + 4), key,
					 FI_UINT32, FI_SUM, (void *)1),
			 0);
	cq_ok(t.x.cq, (void *)1, FI_ATOMIC | FI_READ, NULL);
	ck_assert_int_eq(memcmp(res, &got, 4), 0);
	got++;
	ck_assert_int_eq(memcmp(region + 4, &got, 4), 0);
	memcpy(copy, region, sizeof(copy));
	memset(res - 8, 0xee, 24);
	/* Loop index odd: compare, even: fetch. */
	if (_i & 1)
		ck_assert_int_eq(
			fi_compare_atomic(t.x.ep, &one, 1, NULL, &cmp, NULL,
					  res, t.x.local_desc, t.x.peer,
					  (uintptr_t)(region + 8), key,
					  FI_UINT32, FI_CSWAP, (void *)2),
			0);
	else
		ck_assert_int_eq(fi_fetch_atomic(t.x.ep, &one, 1, NULL, res,
						 t.x.local_desc, t.x.peer,
						 (uintptr_t)(region + 8), key,
						 FI_UINT32, FI_SUM, (void *)2),
				 0);
	{
		struct fi_cq_data_entry e;
		struct fi_cq_err_entry err;

		ck_assert_int_eq(cq_wait(t.x.cq, &e, &err), -FI_EAVAIL);
		ck_assert_int_eq(err.err, FI_EACCES);
		ck_assert_ptr_eq(err.op_context, (void *)2);
	}
	ck_assert_int_eq(memcmp(region, copy, sizeof(copy)), 0);
	for (int i = -8; i < 16; i++)
		ck_assert_uint_eq(res[i], 0xee);
	ck_assert_int_eq(fi_close(&mr->fid), 0);
	at_close(&t);
}
END_TEST

/* fi_atomicvalid() and its kin on the endpoint answer the table, for
 * every datatype and operation of fi_atomic(3). */
START_TEST(valid_table)
{
	struct at_net t;

	at_open(&t, _i == 1);
	for (int dt = FI_INT8; dt < FI_DATATYPE_LAST; dt++)
		for (int op = FI_MIN; op <= FI_MSWAP; op++)
			for (int kind = 0; kind < 3; kind++)
				(void)valid_ok(t.x.ep, kind, dt, op);
	at_close(&t);
}
END_TEST

/*
 * Selective completion: a narrow fetching atomic posted without
 * FI_COMPLETION reports nothing, yet its result is in place once a
 * later operation's completion is read (completions come in order, and
 * reading them runs the earlier one's copy first).
 */
START_TEST(fetch_unreported)
{
	struct net n;
	struct fi_cq_data_entry e;
	uint16_t one = 1, *res, *field;
	struct fi_ioc ioc = { .addr = &one, .count = 1 };
	struct fi_ioc rioc = { .count = 1 };
	struct fi_rma_ioc rma = { .count = 1 };
	struct fi_msg_atomic msg = {
		.msg_iov = &ioc,
		.iov_count = 1,
		.rma_iov = &rma,
		.rma_iov_count = 1,
		.datatype = FI_UINT16,
		.op = FI_SUM,
	};
	void *rdesc;

	net_open(&n);
	net_connect_selective(&n);
	field = (uint16_t *)(n.s.buf + 1030);
	*field = 500;
	res = (uint16_t *)(n.c.buf + 64);
	res[0] = res[1] = 0xeeee;
	rma.addr = (uintptr_t)field;
	rma.key = fi_mr_key(n.s.mr);
	rdesc = fi_mr_desc(n.c.mr);
	rioc.addr = &res[0];
	msg.context = (void *)1;
	ck_assert_int_eq(fi_fetch_atomicmsg(n.c.ep, &msg, &rioc, &rdesc, 1, 0),
			 0);
	rioc.addr = &res[1];
	msg.context = (void *)2;
	ck_assert_int_eq(fi_fetch_atomicmsg(n.c.ep, &msg, &rioc, &rdesc, 1,
					    FI_COMPLETION),
			 0);
	cq_ok(n.c.cq, (void *)2, FI_ATOMIC | FI_READ, NULL);
	ck_assert_int_eq(fi_cq_read(n.c.cq, &e, 1), -FI_EAGAIN);
	ck_assert_uint_eq(res[0], 500);
	ck_assert_uint_eq(res[1], 501);
	ck_assert_uint_eq(*field, 502);
	net_close(&n);
}
END_TEST

static Suite *fabric_atomic_suite(void)
{
	Suite *s = suite_create("fabric_atomic");

	add_loop_tcase(s, "fetch_and_compare", fetch_and_compare, 2);
	add_loop_tcase(s, "xor_no_fetch", xor_no_fetch, 2);
	add_loop_tcase(s, "fetch_flushed", fetch_flushed, 2);
	add_loop_tcase(s, "fetch_bound", fetch_bound, 4);
	add_loop_tcase(s, "valid_table", valid_table, 2);
	add_loop_tcase(s, "fetch_unreported", fetch_unreported, 1);
	return s;
}

int main(void)
{
	return fabric_run(fabric_atomic_suite(), "");
}
