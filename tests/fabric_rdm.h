/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_FABRIC_RDM_H
#define IWCM_TESTS_FABRIC_RDM_H
/*
 * Two FI_EP_RDM endpoints of the provider iwcm on one domain, each with
 * the other in its address vector and a registered buffer, opened with
 * the hints of Open MPI's btl ofi; and the integer fields of atomics
 * read and written in host octet order.  For the tests of the RDM
 * endpoints and of atomics; include after fabric_harness.h.
 */
#include <rdma/fi_atomic.h>

#include "fabric_harness.h"

#define RDM_BUF (256 * 1024)

struct rdm {
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	uint8_t *buf;
	struct sockaddr_storage name;
	fi_addr_t peer;
};

struct rdm_pair {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct rdm a, b;
};

/* What Open MPI 4.1's btl ofi asks (btl_ofi_component.c). */
static inline struct fi_info *rdm_hints(void)
{
	struct fi_info *h = fi_allocinfo();

	ck_assert_ptr_nonnull(h);
	h->ep_attr->type = FI_EP_RDM;
	h->caps = FI_RMA | FI_ATOMIC;
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	h->domain_attr->mr_mode = FI_MR_ALLOCATED | FI_MR_PROV_KEY |
				  FI_MR_VIRT_ADDR;
	h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
	h->tx_attr->iov_limit = 1;
	h->rx_attr->iov_limit = 1;
	h->addr_format = FI_SOCKADDR_IN;
	h->fabric_attr->prov_name = strdup("iwcm");
	return h;
}

/* The provider's own RDM entry of a list (ofi_rxm offers one over it
 * too, "iwcm;ofi_rxm"); the rest of the list is freed. */
static inline struct fi_info *native(struct fi_info *list)
{
	struct fi_info *i, *pick = NULL;

	for (i = list; i && !pick; i = i->next)
		if (i->ep_attr->type == FI_EP_RDM &&
		    !strcmp(i->fabric_attr->prov_name, "iwcm"))
			pick = fi_dupinfo(i);
	fi_freeinfo(list);
	ck_assert_msg(pick != NULL, "no FI_EP_RDM entry of iwcm itself");
	return pick;
}

static inline void rdm_open(struct rdm_pair *p, struct rdm *r)
{
	struct fi_av_attr aa = { .type = FI_AV_MAP };
	struct fi_cq_attr ca = { .format = FI_CQ_FORMAT_DATA,
				 .wait_obj = FI_WAIT_FD,
				 .size = 1024 };
	size_t len = sizeof(r->name);

	ck_assert_int_eq(fi_av_open(p->domain, &aa, &r->av, NULL), 0);
	ck_assert_int_eq(fi_cq_open(p->domain, &ca, &r->cq, NULL), 0);
	ck_assert_int_eq(fi_endpoint(p->domain, p->info, &r->ep, NULL), 0);
	ck_assert_int_eq(fi_ep_bind(r->ep, &r->av->fid, 0), 0);
	ck_assert_int_eq(fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV),
			 0);
	ck_assert_int_eq(fi_enable(r->ep), 0);
	ck_assert_int_eq(fi_getname(&r->ep->fid, &r->name, &len), 0);
	ck_assert_uint_eq(len, sizeof(struct sockaddr_in));
	ck_assert_uint_ne(port_of(&r->name), 0);
	r->buf = calloc(1, RDM_BUF);
	ck_assert_ptr_nonnull(r->buf);
	ck_assert_int_eq(fi_mr_reg(p->domain, r->buf, RDM_BUF,
				   FI_READ | FI_WRITE | FI_REMOTE_READ |
					   FI_REMOTE_WRITE,
				   0, 0, 0, &r->mr, NULL),
			 0);
}

static inline void rdm_close(struct rdm *r)
{
	ck_assert_int_eq(fi_close(&r->ep->fid), 0);
	ck_assert_int_eq(fi_close(&r->mr->fid), 0);
	ck_assert_int_eq(fi_close(&r->cq->fid), 0);
	ck_assert_int_eq(fi_close(&r->av->fid), 0);
	free(r->buf);
}

/* Two RDM endpoints, each with the other in its address vector. */
static inline void rdm_pair_open(struct rdm_pair *p)
{
	struct fi_info *h = rdm_hints();

	memset(p, 0, sizeof(*p));
	p->info = native(getinfo(h));
	fi_freeinfo(h);
	ck_assert_int_eq(p->info->ep_attr->type, FI_EP_RDM);
	ck_assert_int_eq(fi_fabric(p->info->fabric_attr, &p->fabric, NULL), 0);
	ck_assert_int_eq(fi_domain(p->fabric, p->info, &p->domain, NULL), 0);
	rdm_open(p, &p->a);
	rdm_open(p, &p->b);
	ck_assert_int_eq(
		fi_av_insert(p->a.av, &p->b.name, 1, &p->a.peer, 0, NULL), 1);
	ck_assert_int_eq(
		fi_av_insert(p->b.av, &p->a.name, 1, &p->b.peer, 0, NULL), 1);
}

static inline void rdm_pair_close(struct rdm_pair *p)
{
	rdm_close(&p->a);
	rdm_close(&p->b);
	ck_assert_int_eq(fi_close(&p->domain->fid), 0);
	ck_assert_int_eq(fi_close(&p->fabric->fid), 0);
	fi_freeinfo(p->info);
}

/* ---- integer fields of atomics, in host octet order ---- */

/* The octets of an integer datatype. */
static inline size_t dt_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8:
	case FI_UINT8:
		return 1;
	case FI_INT16:
	case FI_UINT16:
		return 2;
	case FI_INT32:
	case FI_UINT32:
		return 4;
	default:
		return 8;
	}
}

/* The field of size octets at p, zero-extended. */
static inline uint64_t field_get(const uint8_t *p, size_t size)
{
	uint8_t v8;
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	switch (size) {
	case 1:
		memcpy(&v8, p, 1);
		return v8;
	case 2:
		memcpy(&v16, p, 2);
		return v16;
	case 4:
		memcpy(&v32, p, 4);
		return v32;
	default:
		memcpy(&v64, p, 8);
		return v64;
	}
}

/* Store v, narrowed to size octets, at p. */
static inline void field_put(uint8_t *p, size_t size, uint64_t v)
{
	uint8_t v8 = (uint8_t)v;
	uint16_t v16 = (uint16_t)v;
	uint32_t v32 = (uint32_t)v;

	switch (size) {
	case 1:
		memcpy(p, &v8, 1);
		break;
	case 2:
		memcpy(p, &v16, 2);
		break;
	case 4:
		memcpy(p, &v32, 4);
		break;
	default:
		memcpy(p, &v, 8);
		break;
	}
}

/* ---- what fi_atomicvalid() and its kin answer ---- */

/* Whether the provider carries op on dt, kind 0 fi_atomic(), 1
 * fi_fetch_atomic(), 2 fi_compare_atomic() (fi_iwcm(7)): a table
 * written apart from the provider's. */
static inline bool want_valid(int kind, enum fi_datatype dt, enum fi_op op)
{
	bool integer = dt == FI_INT8 || dt == FI_UINT8 || dt == FI_INT16 ||
		       dt == FI_UINT16 || dt == FI_INT32 || dt == FI_UINT32 ||
		       dt == FI_INT64 || dt == FI_UINT64;
	bool common = op == FI_SUM || op == FI_ATOMIC_WRITE || op == FI_BOR ||
		      op == FI_BAND || op == FI_BXOR;

	if (!integer)
		return false;
	if (kind == 0)
		return common;
	if (kind == 1)
		return common || op == FI_ATOMIC_READ;
	return op == FI_CSWAP || op == FI_MSWAP;
}

/* The *valid() call of kind on ep answers as want_valid() says, with a
 * count of 1 where it carries op; whether it does. */
static inline bool valid_ok(struct fid_ep *ep, int kind, enum fi_datatype dt,
			    enum fi_op op)
{
	size_t count = 0;
	bool want = want_valid(kind, dt, op);
	int ret;

	if (kind == 0)
		ret = fi_atomicvalid(ep, dt, op, &count);
	else if (kind == 1)
		ret = fi_fetch_atomicvalid(ep, dt, op, &count);
	else
		ret = fi_compare_atomicvalid(ep, dt, op, &count);
	ck_assert_msg(ret == (want ? 0 : -FI_EOPNOTSUPP),
		      "kind %d dt %d op %d: %d", kind, dt, op, ret);
	if (want)
		ck_assert_uint_eq(count, 1);
	return want;
}

#endif
