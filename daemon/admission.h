/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_ADMISSION_H
#define IWCMD_ADMISSION_H

/*
 * The books of half-open connections (admission.c): TCP connections
 * accepted without a complete MPA Request yet (conn.c), and SCTP
 * associations a peer set up that carry no DDP stream session
 * (sctp_conn.c).  Both are one class, under one cap and one cap per
 * source address (iwcmd.conf(5) halfopen_max, halfopen_per_source).
 */
#include <stdbool.h>
#include <sys/queue.h>
#include <sys/socket.h>

struct adm_src;

struct adm_entry {
	TAILQ_ENTRY(adm_entry) entry;  /* all, oldest first */
	TAILQ_ENTRY(adm_entry) sentry; /* its source's, oldest first */
	struct adm_src *src;	       /* NULL: not booked */
	/* Drop it to make room (its owner logs why, counts, closes). */
	void (*shed)(struct adm_entry *e, const char *why);
};

/* Book e, from the address of peer, as the newest half-open one (a
 * booked e stays as it is). */
void admission_add(struct adm_entry *e, const struct sockaddr_storage *peer,
		   void (*shed)(struct adm_entry *, const char *));
/* e is no longer half-open (or goes away); unbooked e is fine. */
void admission_remove(struct adm_entry *e);
static inline bool admission_booked(const struct adm_entry *e)
{
	return e->src != NULL;
}
/* How many there are, in all and from the address of ss. */
unsigned int admission_count(void);
unsigned int admission_count_from(const struct sockaddr_storage *ss);
/* The oldest, or NULL. */
struct adm_entry *admission_oldest(void);
/* The oldest of one owner (booked with shed), or NULL. */
struct adm_entry *admission_oldest_of(void (*shed)(struct adm_entry *,
						   const char *));
/*
 * The one to drop so that one more from the address of ss fits under the
 * caps (the oldest of that source when the source is at per_source, else
 * the oldest of all when there are cap), or NULL when it fits as it is.
 */
struct adm_entry *admission_victim(const struct sockaddr_storage *ss,
				   unsigned int cap, unsigned int per_source);
/*
 * Make room for one more from the address of ss: drop the victim, if any
 * (its shed() with the reason); true when one was dropped.
 */
bool admission_make_room(const struct sockaddr_storage *ss, unsigned int cap,
			 unsigned int per_source);

#endif
