/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Ids to objects (idmap.h): open addressing, linear probing, deletion by
 * backward shift.  The table doubles when it would pass half full and
 * never shrinks: its size follows the peak number of connections, which
 * max_conns bounds.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>

#include "idmap.h"

#define IDMAP_MIN 64

struct idmap_slot {
	uint64_t id; /* 0: empty */
	void *v;
};

/* Fibonacci hashing: the daemon's ids are consecutive, and the high bits
 * of the product spread them; the slot is taken from those. */
static size_t idmap_home(const struct idmap *m, uint64_t id)
{
	return (size_t)((id * 0x9E3779B97F4A7C15ull) >> 32) & m->mask;
}

static void idmap_insert(struct idmap *m, uint64_t id, void *v)
{
	size_t i = idmap_home(m, id);

	while (m->slot[i].id)
		i = (i + 1) & m->mask;
	m->slot[i].id = id;
	m->slot[i].v = v;
}

static int idmap_grow(struct idmap *m)
{
	struct idmap_slot *old = m->slot;
	size_t i, n = old ? (m->mask + 1) * 2 : IDMAP_MIN;

	m->slot = calloc(n, sizeof(*m->slot));
	if (!m->slot) {
		m->slot = old;
		return -1;
	}
	m->mask = n - 1;
	for (i = 0; old && i < n / 2; i++)
		if (old[i].id)
			idmap_insert(m, old[i].id, old[i].v);
	free(old);
	return 0;
}

int idmap_put(struct idmap *m, uint64_t id, void *v)
{
	if (!id || !v)
		return -1;
	if ((!m->slot || (m->n + 1) * 2 > m->mask + 1) && idmap_grow(m) < 0)
		return -1;
	idmap_insert(m, id, v);
	m->n++;
	return 0;
}

static size_t idmap_find(const struct idmap *m, uint64_t id, bool *found)
{
	size_t i = idmap_home(m, id);

	while (m->slot[i].id && m->slot[i].id != id)
		i = (i + 1) & m->mask;
	*found = m->slot[i].id == id;
	return i;
}

void *idmap_get(const struct idmap *m, uint64_t id)
{
	bool found;
	size_t i;

	if (!id || !m->slot)
		return NULL;
	i = idmap_find(m, id, &found);
	return found ? m->slot[i].v : NULL;
}

void *idmap_del(struct idmap *m, uint64_t id)
{
	size_t i, j, h;
	bool found;
	void *v;

	if (!id || !m->slot)
		return NULL;
	i = idmap_find(m, id, &found);
	if (!found)
		return NULL;
	v = m->slot[i].v;
	/* Backward shift: a later entry of the run moves into the hole
	 * unless its home lies cyclically in (hole, its slot]. */
	for (j = (i + 1) & m->mask; m->slot[j].id; j = (j + 1) & m->mask) {
		h = idmap_home(m, m->slot[j].id);
		if (((j - h) & m->mask) < ((j - i) & m->mask))
			continue;
		m->slot[i] = m->slot[j];
		i = j;
	}
	m->slot[i].id = 0;
	m->slot[i].v = NULL;
	m->n--;
	return v;
}

size_t idmap_count(const struct idmap *m)
{
	return m->n;
}

void idmap_clear(struct idmap *m)
{
	free(m->slot);
	m->slot = NULL;
	m->mask = 0;
	m->n = 0;
}
