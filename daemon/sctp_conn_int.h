/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_CONN_INT_H
#define IWCMD_SCTP_CONN_INT_H

/*
 * sctp_conn.c's books for sctp_conn_api.c, the requests of clients and
 * iwcmctl: the associations and the sessions' connections, and what
 * creates, finds and ends them.  sctp_conn_api.c calls down here, never
 * the other way.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "admission.h"
#include "conn.h"
#include "iwcmd.h"
#include "sctp_stack.h"

struct sc_assoc {
	TAILQ_ENTRY(sc_assoc) entry;
	TAILQ_ENTRY(sc_assoc) oentry; /* initiator: on sc_out_assocs */
	uint64_t id;
	uint64_t listener_id; /* passive: where it came in */
	struct sctp_sock *sock;
	struct sctp_assoc *sa; /* once up */
	bool initiator;
	struct sockaddr_storage peer;
	socklen_t peer_len;
	uint16_t remote_udp_port;
	size_t maxseg;
	uint16_t streams;
	unsigned int backlog; /* relays over their high watermark */
	/* passive: half-open while it carries no session (admission.h),
	 * closed when none comes in request_timeout_ms */
	struct adm_entry adm;
	struct event *ev_req;
	/* passive: shuts it down SC_ORPHAN_MS after it has neither a
	 * session nor a listener (sctp_conn.c) */
	struct event *ev_orphan;
	bool freeing;		     /* sc_assoc_free() runs */
	TAILQ_HEAD(, sc_conn) conns; /* the connections it carries */
};

struct sc_conn {
	TAILQ_ENTRY(sc_conn) entry;
	TAILQ_ENTRY(sc_conn) aentry;   /* on sc_await */
	TAILQ_ENTRY(sc_conn) as_entry; /* on as->conns */
	bool awaiting;		       /* passive, its owner has to decide */
	uint64_t id;
	struct client *owner;
	struct sc_assoc *as;
	struct sctp_session *s;
	struct sctp_relay *relay;
	/* kernel SCTP: the association is being handed to the owner */
	struct sctp_peel *peel;
	bool initiator;
	bool established;	 /* the owner has its fd */
	bool counted;		 /* its handshake is in iwcmd_stats */
	enum conn_result result; /* why it failed, CONN_RES_OK until then */
	bool backlog_high;
	uint64_t created_ms;
	struct neg_policy policy;
	uint8_t pd[CONN_PARAMS_PD_MAX];
	size_t pd_len;
};

/* Our association to dst (len octets) over the peer's UDP port rport:
 * the one there is, or a new one connecting; NULL with errno. */
struct sc_assoc *sc_assoc_to(const struct sockaddr_storage *dst, socklen_t len,
			     uint16_t rport);
/* The connection after k (NULL: the first); NULL after the last. */
struct sc_conn *sc_conn_next(struct sc_conn *k);
/* Every association and connection ends (the daemon stops). */
void sc_free_all(void);

/* Start the sessions that waited for the association. */
void sc_assoc_start(struct sc_assoc *as);
struct sc_conn *sc_conn_new(struct client *owner, struct sc_assoc *as,
			    bool initiator);
void sc_conn_free(struct sc_conn *k);
struct sc_conn *sc_conn_find(uint64_t id);
/* On or off the list of sessions awaiting their owner's decision. */
void sc_await_set(struct sc_conn *k, bool on);
/* What a client and iwcmctl are told of k. */
void sc_info(const struct sc_conn *k, struct sctp_conn_info *i);

/* The books (sctp_conn_books.c). */
uint64_t sc_id(void);
int sc_books_add(struct sc_conn *k);
void sc_books_del(struct sc_conn *k);
/* The connection of session s (NULL: none). */
struct sc_conn *sc_conn_of(const struct sctp_session *s);
/* k's session is s now (NULL: none). */
void sc_conn_set_session(struct sc_conn *k, struct sctp_session *s);
/* k is carried by as now (NULL: by none, its relay draining). */
void sc_conn_set_assoc(struct sc_conn *k, struct sc_assoc *as);

#endif
