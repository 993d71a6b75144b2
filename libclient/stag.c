/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The STag table of a context (RFC 5042 §5): 24-bit indexes with an
 * 8-bit key that changes on every reuse, and the checks every remote
 * access passes before a byte is placed.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

/* ---- STags ---- */

/* Give mr an STag (the table's writer lock held). */
static int stag_alloc(struct dp_stag_table *t, struct iwcm_mr *mr)
{
	struct dp_stag_slot *s;
	uint32_t idx;

	if (!t->free_head) {
		uint32_t old = t->n, n, first;

		/* Index 0 stays unused: no STag below 256 is ever valid. */
		first = old ? old : 1;
		if (first > t->limit)
			return ERR(ENOSPC);
		n = old ? old * 2 : 64;
		if (n > t->limit + 1 || n < old)
			n = t->limit + 1;
		s = realloc(t->slots, (size_t)n * sizeof(*s));
		if (!s)
			return -1;
		memset(s + old, 0, (size_t)(n - old) * sizeof(*s));
		for (uint32_t i = first; i < n; i++)
			s[i].next_free = i + 1 < n ? i + 1 : 0;
		t->slots = s;
		t->n = n;
		t->free_head = first;
		t->free_tail = n - 1;
	}
	idx = t->free_head;
	s = &t->slots[idx];
	t->free_head = s->next_free;
	if (!t->free_head)
		t->free_tail = 0;
	/* RFC 5042 §5.1: a new key on every reuse, so that a stale STag of
	 * the index's previous region no longer matches. */
	s->key++;
	s->mr = mr;
	s->next_free = 0;
	t->used++;
	mr->stag = DP_STAG_MAKE(idx, s->key);
	return 0;
}

/* Give mr an STag: a free index and that index's next key. */
int dp_stag_alloc(struct dp_stag_table *t, struct iwcm_mr *mr)
{
	int r;

	pthread_rwlock_wrlock(&t->lock);
	r = stag_alloc(t, mr);
	pthread_rwlock_unlock(&t->lock);
	return r;
}

/* Free an STag (the table's writer lock held). */
static void stag_free(struct dp_stag_table *t, uint32_t stag)
{
	uint32_t idx = DP_STAG_INDEX(stag);

	/* A stale STag (the index reused since) frees nothing. */
	if (!idx || idx >= t->n || !t->slots[idx].mr ||
	    t->slots[idx].key != DP_STAG_KEY(stag))
		return;
	t->slots[idx].mr = NULL;
	t->slots[idx].next_free = 0;
	if (t->free_tail)
		t->slots[t->free_tail].next_free = idx;
	else
		t->free_head = idx;
	t->free_tail = idx;
	t->used--;
}

/* Return an STag's index to the table (oldest free index reused first). */
void dp_stag_free(struct dp_stag_table *t, uint32_t stag)
{
	pthread_rwlock_wrlock(&t->lock);
	stag_free(t, stag);
	pthread_rwlock_unlock(&t->lock);
}

/* The region an STag names, or NULL (unknown index or stale key); the
 * caller holds the table's lock. */
struct iwcm_mr *dp_stag_lookup(const struct dp_stag_table *t, uint32_t stag)
{
	uint32_t idx = DP_STAG_INDEX(stag);
	const struct dp_stag_slot *s;

	if (!idx || idx >= t->n)
		return NULL;
	s = &t->slots[idx];
	if (!s->mr || s->key != DP_STAG_KEY(stag))
		return NULL;
	return s->mr;
}

/* Free the table's memory. */
void dp_stag_table_free(struct dp_stag_table *t)
{
	free(t->slots);
	pthread_rwlock_destroy(&t->lock);
	t->slots = NULL;
	t->n = t->used = t->free_head = t->free_tail = 0;
}

/* RFC 5042 §5 checks (the table's lock held). */
static enum dp_prot mr_check(const struct dp_stag_table *t, uint32_t stag,
			     const struct iwcm_pd *pd, uint64_t to,
			     uint64_t len, unsigned int access,
			     struct iwcm_mr **out)
{
	struct iwcm_mr *mr = dp_stag_lookup(t, stag);
	uint64_t base;

	if (out)
		*out = mr;
	/* RFC 5042 §5.1: an invalidated STag is no longer valid. */
	if (!mr || !mr->valid)
		return DP_PROT_INVALID_STAG;
	/* RFC 5042 §5.2: the STag must belong to the stream's PD. */
	if (mr->pd != pd)
		return DP_PROT_PD;
	/* RFC 5042 §5.3: the access rights granted at registration. */
	if ((mr->access & access) != access)
		return DP_PROT_ACCESS;
	/* RFC 5041 §7.1 check 5: the 64-bit sum must not wrap. */
	if (len > UINT64_MAX - to)
		return DP_PROT_WRAP;
	/* RFC 5041 §7.1 checks 3-4: start and end inside the region. */
	base = (uint64_t)(uintptr_t)mr->addr;
	if (to < base || to - base > mr->length ||
	    len > mr->length - (to - base))
		return DP_PROT_BOUNDS;
	return DP_PROT_OK;
}

/* RFC 5042 §5: STag valid, same PD, access rights, no wrap, in bounds. */
enum dp_prot dp_mr_check(const struct dp_stag_table *t, uint32_t stag,
			 const struct iwcm_pd *pd, uint64_t to, uint64_t len,
			 unsigned int access, struct iwcm_mr **out)
{
	struct dp_stag_table *w = (struct dp_stag_table *)t;
	enum dp_prot p;

	/* Every QP checks at once; registration waits for them. */
	pthread_rwlock_rdlock(&w->lock);
	p = mr_check(t, stag, pd, to, len, access, out);
	pthread_rwlock_unlock(&w->lock);
	return p;
}

/* The RDMAP Remote Protection code (RFC 5040 §7.2 type 0) of a failed
 * check. */
uint8_t dp_prot_rdmap_ecode(enum dp_prot p)
{
	switch (p) {
	case DP_PROT_PD:
		return RDMAP_ECODE_STAG_NOT_ASSOC;
	case DP_PROT_ACCESS:
		return RDMAP_ECODE_ACCESS;
	case DP_PROT_WRAP:
		return RDMAP_ECODE_TO_WRAP;
	case DP_PROT_BOUNDS:
		return RDMAP_ECODE_BASE_BOUNDS;
	default:
		return RDMAP_ECODE_INVALID_STAG;
	}
}
