/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Half-open connections: accepted by a listener, no complete MPA Request
 * yet (TCP), or an SCTP association with no DDP stream session (RFC 5043
 * §6: no Session Initiate yet, or none left).  Anyone who can reach a
 * listener can open them for the price of a TCP or SCTP handshake, so
 * they are a class of their own with a cap of their own and a cap per
 * source address, kept in accept order so that the oldest one makes room
 * for a new one, as a SYN cache evicts (iwcmd.conf(5) halfopen_max,
 * halfopen_per_source).  This file keeps the books and picks the one to
 * drop; its owner (conn.c, sctp_conn.c) closes it.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "admission.h"
#include "log.h"

#define ADM_BUCKETS 4096

/* The half-open connections of one source address. */
struct adm_src {
	struct adm_src *next;
	uint8_t addr[16]; /* IPv6, or IPv4 mapped */
	unsigned int n;
	TAILQ_HEAD(, adm_entry) list; /* oldest first */
};

static TAILQ_HEAD(, adm_entry) adm_list = TAILQ_HEAD_INITIALIZER(adm_list);
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

static struct adm_src *adm_src_of(const struct sockaddr_storage *ss)
{
	uint8_t key[16];

	adm_key(ss, key);
	return *adm_find(key);
}

/* How many half-open connections come from the address of ss. */
unsigned int admission_count_from(const struct sockaddr_storage *ss)
{
	struct adm_src *s = adm_src_of(ss);

	return s ? s->n : 0;
}

/* How many half-open connections there are. */
unsigned int admission_count(void)
{
	return adm_n;
}

/* e was accepted and waits for its first message: book it as the
 * newest. */
void admission_add(struct adm_entry *e, const struct sockaddr_storage *peer,
		   void (*shed)(struct adm_entry *, const char *))
{
	uint8_t key[16];
	struct adm_src **pp, *s;

	if (e->src)
		return;
	adm_key(peer, key);
	pp = adm_find(key);
	s = *pp;
	if (!s) {
		s = calloc(1, sizeof(*s));
		if (!s)
			fatal("admission: calloc");
		memcpy(s->addr, key, 16);
		TAILQ_INIT(&s->list);
		*pp = s;
	}
	s->n++;
	TAILQ_INSERT_TAIL(&s->list, e, sentry);
	e->src = s;
	e->shed = shed;
	TAILQ_INSERT_TAIL(&adm_list, e, entry);
	adm_n++;
}

/* e delivered its first message, or goes away: no longer half-open. */
void admission_remove(struct adm_entry *e)
{
	struct adm_src **pp, *s = e->src;

	if (!s)
		return;
	e->src = NULL;
	TAILQ_REMOVE(&adm_list, e, entry);
	adm_n--;
	TAILQ_REMOVE(&s->list, e, sentry);
	if (--s->n)
		return;
	pp = adm_find(s->addr);
	if (*pp != s)
		fatalx("admission: a source not in its bucket");
	*pp = s->next;
	free(s);
}

/* The oldest half-open connection, or NULL. */
struct adm_entry *admission_oldest(void)
{
	return TAILQ_FIRST(&adm_list);
}

/* The oldest booked with shed: conn.c's at max_conns, where only one of
 * its own makes room. */
struct adm_entry *admission_oldest_of(void (*shed)(struct adm_entry *,
						   const char *))
{
	struct adm_entry *e;

	TAILQ_FOREACH (e, &adm_list, entry)
		if (e->shed == shed)
			return e;
	return NULL;
}

/*
 * The half-open connection to drop so that one more from the address of
 * ss fits under the caps (the oldest of that source when the source is
 * at per_source, else the oldest of all when there are cap), or NULL
 * when it fits as it is.
 */
struct adm_entry *admission_victim(const struct sockaddr_storage *ss,
				   unsigned int cap, unsigned int per_source)
{
	struct adm_src *s = adm_src_of(ss);

	if (s && s->n >= per_source)
		return TAILQ_FIRST(&s->list);
	if (adm_n >= cap)
		return TAILQ_FIRST(&adm_list);
	return NULL;
}

/* Make room for one more from the address of ss: drop the victim. */
bool admission_make_room(const struct sockaddr_storage *ss, unsigned int cap,
			 unsigned int per_source)
{
	struct adm_entry *v = admission_victim(ss, cap, per_source);

	if (!v)
		return false;
	v->shed(v, admission_count_from(ss) >= per_source ?
			   "half-open connections of one source at "
			   "halfopen_per_source" :
			   "half-open connections at halfopen_max");
	return true;
}
