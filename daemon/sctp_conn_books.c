/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The books of iwcmd's SCTP sessions' connections (sctp_conn.c): every
 * connection by id (clients name them) and by session (every DDP
 * Segment a peer sends asks), the association that carries each, and
 * those awaiting their owner's decision.  Nothing here calls back into
 * sctp_conn.c.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "idmap.h"
#include "log.h"
#include "sctp_conn_int.h"
#include "sctp_session.h"

static TAILQ_HEAD(, sc_conn) sc_conns = TAILQ_HEAD_INITIALIZER(sc_conns);
/* Peers' sessions told to their owner, not decided yet: what they count
 * against max_pending_per_uid (with TCP's, conn_uid_pending()). */
static TAILQ_HEAD(, sc_conn) sc_await = TAILQ_HEAD_INITIALIZER(sc_await);
static struct idmap sc_ids = IDMAP_INIT;
static struct idmap sc_sessions = IDMAP_INIT;
static uint64_t sc_next_id = 1;

/* A new id, of a connection or an association: one series for both. */
uint64_t sc_id(void)
{
	return SCTP_CONN_ID_BIT | sc_next_id++;
}

/* k, new, gets its id and goes on the books: 0, or -1 (no memory). */
int sc_books_add(struct sc_conn *k)
{
	k->id = sc_id();
	if (idmap_put(&sc_ids, k->id, k) < 0)
		return -1;
	TAILQ_INSERT_TAIL(&sc_conns, k, entry);
	return 0;
}

/* k leaves the books: its id, session, association and await. */
void sc_books_del(struct sc_conn *k)
{
	TAILQ_REMOVE(&sc_conns, k, entry);
	idmap_del(&sc_ids, k->id);
	sc_conn_set_session(k, NULL);
	sc_conn_set_assoc(k, NULL);
	sc_await_set(k, false);
}

void sc_await_set(struct sc_conn *k, bool on)
{
	if (on == k->awaiting)
		return;
	if (on)
		TAILQ_INSERT_TAIL(&sc_await, k, aentry);
	else
		TAILQ_REMOVE(&sc_await, k, aentry);
	k->awaiting = on;
}

/* Peers' sessions at a client of uid awaiting its decision. */
unsigned int sctp_conn_uid_pending(uid_t uid)
{
	const struct sc_conn *k;
	unsigned int n = 0;

	TAILQ_FOREACH (k, &sc_await, aentry)
		if (k->owner && k->owner->uid == uid)
			n++;
	return n;
}

struct sc_conn *sc_conn_find(uint64_t id)
{
	return idmap_get(&sc_ids, id);
}

/* The connection of session s: every DDP Segment a peer sends asks. */
struct sc_conn *sc_conn_of(const struct sctp_session *s)
{
	return s ? idmap_get(&sc_sessions, (uint64_t)(uintptr_t)s) : NULL;
}

/* k's session is s now (NULL: none). */
void sc_conn_set_session(struct sc_conn *k, struct sctp_session *s)
{
	if (k->s)
		idmap_del(&sc_sessions, (uint64_t)(uintptr_t)k->s);
	k->s = s;
	if (s && idmap_put(&sc_sessions, (uint64_t)(uintptr_t)s, k) < 0)
		fatal("sctp conn: idmap");
}

/* k is carried by as now (NULL: by none, its relay draining). */
void sc_conn_set_assoc(struct sc_conn *k, struct sc_assoc *as)
{
	if (k->as)
		TAILQ_REMOVE(&k->as->conns, k, as_entry);
	k->as = as;
	if (as)
		TAILQ_INSERT_TAIL(&as->conns, k, as_entry);
}

void sc_info(const struct sc_conn *k, struct sctp_conn_info *i)
{
	socklen_t len = sizeof(i->local);

	memset(i, 0, sizeof(*i));
	i->id = k->id;
	i->initiator = k->initiator;
	if (!k->as)
		return; /* its relay drains */
	i->listener_id = k->as->listener_id;
	i->assoc_id = k->as->id;
	i->maxseg = k->as->maxseg > 2 ? k->as->maxseg - 2 : 0; /* DDP-SSN */
	if (k->as->sock)
		sctp_stack_local_addr(k->as->sock, &i->local, &len);
	memcpy(&i->peer, &k->as->peer, sizeof(i->peer));
	if (k->s)
		sctp_session_get_info(k->s, &i->si);
}

/* The connection after k (NULL: the first); NULL after the last. */
struct sc_conn *sc_conn_next(struct sc_conn *k)
{
	return k ? TAILQ_NEXT(k, entry) : TAILQ_FIRST(&sc_conns);
}
