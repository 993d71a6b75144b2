/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_IDMAP_H
#define IWCMD_IDMAP_H

/*
 * Ids to objects in constant time: the daemon's connections by the id
 * clients name them with.  A peer can make iwcmd hold tens of thousands
 * of connections (half-open ones among them), and a lookup by walking
 * them all made every client's Accept and every Request routed to a
 * client cost in proportion.  Open addressing with linear probing and
 * deletion by backward shift (no tombstones), at most half full, so a
 * lookup reads one or two cache lines.  Id 0 is never stored.
 */
#include <stddef.h>
#include <stdint.h>

struct idmap_slot;

struct idmap {
	struct idmap_slot *slot; /* NULL until the first put */
	size_t mask;		 /* slots - 1 */
	size_t n;
};

#define IDMAP_INIT         \
	{                  \
		NULL, 0, 0 \
	}

/* Map id (not 0, not present) to v (not NULL); -1 when out of memory. */
int idmap_put(struct idmap *m, uint64_t id, void *v);
/* The object of id, or NULL. */
void *idmap_get(const struct idmap *m, uint64_t id);
/* Forget id; its object, or NULL when it was not there. */
void *idmap_del(struct idmap *m, uint64_t id);
/* Number of ids held. */
size_t idmap_count(const struct idmap *m);
/* Forget everything and give the memory back. */
void idmap_clear(struct idmap *m);

#endif
