/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Address vectors of RDM endpoints: the names of peers, socket addresses
 * of their RDM endpoints' listeners (what fi_getname() of an RDM
 * endpoint gives).  FI_AV_MAP and FI_AV_TABLE are both an array: the
 * fi_addr_t of an address is its index, so a map's address is a table's
 * too.  Removing an entry frees its index for a later insert.  At most
 * IWFI_AV_MAX entries: an application's address vector is the only
 * thing that grows it, peers cannot.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi_rdm.h"

static struct iwfi_av *av_of(fid_t fid)
{
	return iwfi_container_of(fid, struct iwfi_av, av_fid.fid);
}

/* The length of an RDM name (IPv4 or IPv6 socket address), or 0. */
size_t iwfi_rdm_addr_len(const struct sockaddr_storage *ss)
{
	return iwfi_sockaddr_len((const struct sockaddr *)ss);
}

/*
 * Order two names: by family, then address, then port, all in network
 * order.  Both ends of a pair of peers compute the same answer, which
 * settles simultaneous connects (iwfi_rdm_fsm.h).
 */
int iwfi_rdm_addr_cmp(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b)
{
	const void *pa, *pb;
	size_t n;
	int c;

	if (a->ss_family != b->ss_family)
		return a->ss_family < b->ss_family ? -1 : 1;
	if (a->ss_family == AF_INET6) {
		const struct sockaddr_in6 *x = (const void *)a,
					  *y = (const void *)b;

		c = memcmp(&x->sin6_addr, &y->sin6_addr, sizeof(x->sin6_addr));
		pa = &x->sin6_port;
		pb = &y->sin6_port;
	} else {
		const struct sockaddr_in *x = (const void *)a,
					 *y = (const void *)b;

		c = memcmp(&x->sin_addr, &y->sin_addr, sizeof(x->sin_addr));
		pa = &x->sin_port;
		pb = &y->sin_port;
	}
	n = sizeof(in_port_t);
	if (!c)
		c = memcmp(pa, pb, n);
	return c < 0 ? -1 : c > 0;
}

/* The address of fi_addr in *out; -FI_EINVAL when there is none. */
int iwfi_av_addr(struct iwfi_av *av, fi_addr_t fi_addr,
		 struct sockaddr_storage *out)
{
	int ret = -FI_EINVAL;

	pthread_mutex_lock(&av->lock);
	if (fi_addr < av->count && av->used[fi_addr]) {
		*out = av->addrs[fi_addr];
		ret = 0;
	}
	pthread_mutex_unlock(&av->lock);
	return ret;
}

/* Room for one more entry (av->lock held); its index, or -1. */
static ssize_t av_slot(struct iwfi_av *av)
{
	size_t i, cap;

	for (i = 0; i < av->count; i++)
		if (!av->used[i])
			return (ssize_t)i;
	if (av->count == av->cap) {
		struct sockaddr_storage *a;
		bool *u;

		if (av->cap >= IWFI_AV_MAX)
			return -1;
		cap = av->cap ? av->cap * 2 : 64;
		if (cap > IWFI_AV_MAX)
			cap = IWFI_AV_MAX;
		a = realloc(av->addrs, cap * sizeof(*a));
		if (!a)
			return -1;
		av->addrs = a;
		u = realloc(av->used, cap * sizeof(*u));
		if (!u)
			return -1;
		av->used = u;
		av->cap = cap;
	}
	av->used[av->count] = false;
	return (ssize_t)av->count++;
}

/* The length of the name at addr, read as a socket address. */
static size_t name_len(const void *addr)
{
	struct sockaddr sa;

	memcpy(&sa, addr, sizeof(sa));
	return iwfi_sockaddr_len(&sa);
}

static int av_insert(struct fid_av *av_fid, const void *addr, size_t count,
		     fi_addr_t *fi_addr, uint64_t flags, void *context)
{
	struct iwfi_av *av = av_of(&av_fid->fid);
	const uint8_t *p = addr;
	int done = 0;

	if (flags)
		return -FI_EBADFLAGS;
	pthread_mutex_lock(&av->lock);
	for (size_t i = 0; i < count; i++) {
		size_t len = name_len(p);
		ssize_t slot = len ? av_slot(av) : -1;

		if (slot < 0) {
			if (fi_addr)
				fi_addr[i] = FI_ADDR_NOTAVAIL;
			p += len ? len : sizeof(struct sockaddr_in);
			continue;
		}
		memset(&av->addrs[slot], 0, sizeof(av->addrs[slot]));
		memcpy(&av->addrs[slot], p, len);
		av->used[slot] = true;
		if (fi_addr)
			fi_addr[i] = (fi_addr_t)slot;
		p += len;
		done++;
	}
	pthread_mutex_unlock(&av->lock);
	return done;
}

static int av_insertsvc(struct fid_av *av, const char *node,
			const char *service, fi_addr_t *fi_addr, uint64_t flags,
			void *context)
{
	return -FI_ENOSYS;
}

static int av_insertsym(struct fid_av *av, const char *node, size_t nodecnt,
			const char *service, size_t svccnt, fi_addr_t *fi_addr,
			uint64_t flags, void *context)
{
	return -FI_ENOSYS;
}

static int av_remove(struct fid_av *av_fid, fi_addr_t *fi_addr, size_t count,
		     uint64_t flags)
{
	struct iwfi_av *av = av_of(&av_fid->fid);
	int ret = 0;

	pthread_mutex_lock(&av->lock);
	for (size_t i = 0; i < count; i++) {
		if (fi_addr[i] >= av->count || !av->used[fi_addr[i]])
			ret = -FI_EINVAL;
		else
			av->used[fi_addr[i]] = false;
	}
	__atomic_fetch_add(&av->gen, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&av->lock);
	return ret;
}

static int av_lookup(struct fid_av *av_fid, fi_addr_t fi_addr, void *addr,
		     size_t *addrlen)
{
	struct iwfi_av *av = av_of(&av_fid->fid);
	struct sockaddr_storage ss;
	size_t len;

	if (iwfi_av_addr(av, fi_addr, &ss))
		return -FI_EINVAL;
	len = iwfi_rdm_addr_len(&ss);
	memcpy(addr, &ss, len < *addrlen ? len : *addrlen);
	*addrlen = len;
	return 0;
}

static const char *av_straddr(struct fid_av *av, const void *addr, char *buf,
			      size_t *len)
{
	char host[INET6_ADDRSTRLEN] = "?";
	struct sockaddr_storage ss = { 0 };
	size_t n = name_len(addr);
	int port = 0, w;

	memcpy(&ss, addr, n);
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)&ss;

		inet_ntop(AF_INET6, &s->sin6_addr, host, sizeof(host));
		port = ntohs(s->sin6_port);
	} else if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)&ss;

		inet_ntop(AF_INET, &s->sin_addr, host, sizeof(host));
		port = ntohs(s->sin_port);
	}
	w = snprintf(buf, *len, "fi_sockaddr_in%s://%s:%d",
		     ss.ss_family == AF_INET6 ? "6" : "", host, port);
	*len = (size_t)w + 1;
	return buf;
}

static int av_close(struct fid *fid)
{
	struct iwfi_av *av = av_of(fid);

	if (__atomic_load_n(&av->refs, __ATOMIC_ACQUIRE))
		return -FI_EBUSY;
	__atomic_fetch_sub(&av->domain->refs, 1, __ATOMIC_RELEASE);
	pthread_mutex_destroy(&av->lock);
	free(av->addrs);
	free(av->used);
	free(av);
	return 0;
}

static struct fi_ops av_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = av_close,
	.bind = iwfi_no_bind,
	.control = iwfi_no_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_av av_ops = {
	.size = sizeof(struct fi_ops_av),
	.insert = av_insert,
	.insertsvc = av_insertsvc,
	.insertsym = av_insertsym,
	.remove = av_remove,
	.lookup = av_lookup,
	.straddr = av_straddr,
};

/* fi_av_open(): FI_AV_MAP, FI_AV_TABLE or FI_AV_UNSPEC (a map). */
int iwfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **av_fid, void *context)
{
	struct iwfi_domain *dom =
		iwfi_container_of(domain, struct iwfi_domain, domain_fid);
	struct iwfi_av *av;

	if (!attr)
		return -FI_EINVAL;
	if (attr->type != FI_AV_MAP && attr->type != FI_AV_TABLE &&
	    attr->type != FI_AV_UNSPEC)
		return -FI_EINVAL;
	if (attr->rx_ctx_bits || attr->name || (attr->flags & ~FI_EVENT) ||
	    (attr->flags & FI_EVENT) || attr->count > IWFI_AV_MAX)
		return -FI_ENOSYS;
	av = calloc(1, sizeof(*av));
	if (!av)
		return -FI_ENOMEM;
	pthread_mutex_init(&av->lock, NULL);
	av->domain = dom;
	av->type = attr->type == FI_AV_TABLE ? FI_AV_TABLE : FI_AV_MAP;
	attr->type = av->type;
	av->av_fid.fid.fclass = FI_CLASS_AV;
	av->av_fid.fid.context = context;
	av->av_fid.fid.ops = &av_fi_ops;
	av->av_fid.ops = &av_ops;
	__atomic_fetch_add(&dom->refs, 1, __ATOMIC_RELEASE);
	*av_fid = &av->av_fid;
	return 0;
}
