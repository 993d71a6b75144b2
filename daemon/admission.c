/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Half-open connections: accepted by a listener, no complete MPA Request
 * yet.  Anyone who can reach a listener can open them for the price of a
 * TCP handshake, so they are a class of their own with a cap of their
 * own and a cap per source address, kept in accept order so that the
 * oldest one makes room for a new one, as a SYN cache evicts
 * (iwcmd.conf(5) halfopen_max, halfopen_per_source).  This file only
 * keeps the books; conn.c decides and closes.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "conn.h"
#include "log.h"

#define ADM_BUCKETS 4096

/* The half-open connections of one source address. */
struct adm_src {
	struct adm_src *next;
	uint8_t addr[16]; /* IPv6, or IPv4 mapped */
	unsigned int n;
};

static TAILQ_HEAD(, conn) adm_list = TAILQ_HEAD_INITIALIZER(adm_list);
static unsigned int adm_n;
static struct adm_src *adm_tab[ADM_BUCKETS];

/* The source address of ss as 16 octets (IPv4 mapped into IPv6). */
static void adm_key(const struct sockaddr_storage *ss, uint8_t key[16])
{
	memset(key, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)ss;

		key[10] = key[11] = 0xff;
		memcpy(key + 12, &sin->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

		memcpy(key, &s6->sin6_addr, 16);
	}
}

/* FNV-1a over the address: sources spread over the buckets. */
static unsigned int adm_hash(const uint8_t key[16])
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 16; i++)
		h = (h ^ key[i]) * 16777619u;
	return h % ADM_BUCKETS;
}

static struct adm_src **adm_find(const uint8_t key[16])
{
	struct adm_src **pp = &adm_tab[adm_hash(key)];

	while (*pp && memcmp((*pp)->addr, key, 16))
		pp = &(*pp)->next;
	return pp;
}

/* How many half-open connections come from the address of ss. */
unsigned int admission_count_from(const struct sockaddr_storage *ss)
{
	uint8_t key[16];
	struct adm_src **pp;

	adm_key(ss, key);
	pp = adm_find(key);
	return *pp ? (*pp)->n : 0;
}

/* How many half-open connections there are. */
unsigned int admission_count(void)
{
	return adm_n;
}

/* c was accepted and waits for its Request: book it as the newest. */
void admission_add(struct conn *c)
{
	uint8_t key[16];
	struct adm_src **pp, *s;

	if (c->halfopen)
		return;
	adm_key(&c->peer, key);
	pp = adm_find(key);
	s = *pp;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			fatal("admission: calloc");
		memcpy(s->addr, key, 16);
		*pp = s;
	}
	s->n++;
	c->halfopen = true;
	TAILQ_INSERT_TAIL(&adm_list, c, hentry);
	adm_n++;
}

/* c delivered its Request, or goes away: no longer half-open. */
void admission_remove(struct conn *c)
{
	uint8_t key[16];
	struct adm_src **pp, *s;

	if (!c->halfopen)
		return;
	c->halfopen = false;
	TAILQ_REMOVE(&adm_list, c, hentry);
	adm_n--;
	adm_key(&c->peer, key);
	pp = adm_find(key);
	s = *pp;
	if (!s)
		fatalx("admission: conn %llu has no source entry",
		       (unsigned long long)c->id);
	if (--s->n == 0) {
		*pp = s->next;
		free(s);
	}
}

/* The oldest half-open connection, or NULL. */
struct conn *admission_oldest(void)
{
	return TAILQ_FIRST(&adm_list);
}

/*
 * The half-open connection to drop so that one more from the address of
 * ss fits under the caps (the oldest of that source when the source is
 * at per_source, else the oldest of all when there are cap), or NULL
 * when it fits as it is.
 */
struct conn *admission_victim(const struct sockaddr_storage *ss,
			      unsigned int cap, unsigned int per_source)
{
	uint8_t key[16], k2[16];
	struct adm_src **pp;
	struct conn *c;

	adm_key(ss, key);
	pp = adm_find(key);
	if (*pp && (*pp)->n >= per_source) {
		TAILQ_FOREACH (c, &adm_list, hentry) {
			adm_key(&c->peer, k2);
			if (!memcmp(k2, key, 16))
				return c;
		}
	}
	if (adm_n >= cap)
		return TAILQ_FIRST(&adm_list);
	return NULL;
}
