/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_LISTEN_H
#define IWCMD_SCTP_LISTEN_H

/*
 * The SCTP endpoints iwcmd listens on for DDP stream sessions (RFC 5043),
 * sctp_listen.c: a client's own, and the services of iwcmd.conf a client
 * attaches to.  sctp_conn.c starts the stack first and takes the
 * associations they accept (the callbacks given to sctp_listen_init()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include "conf.h"
#include "iwcmd.h"

struct sctp_cb;
struct sctp_sock;

struct sctp_listener {
	TAILQ_ENTRY(sctp_listener) entry;
	uint64_t id;
	struct client *client; /* a service's: while one is attached */
	struct sctp_sock *sock;
	char service[CONF_NAME_MAX]; /* [listener NAME] of iwcmd.conf */
	uid_t owner;
	struct sockaddr_storage addr;  /* a service's, as configured */
	struct sockaddr_storage bound; /* where its socket listens */
};

/* What the listeners' sockets are told of new associations, and what is
 * told of a listener that closed (its id: the associations it accepted
 * have no listener of their own any more). */
void sctp_listen_init(const struct sctp_cb *accept_cb,
		      void (*closed)(uint64_t id));
/* A client listens on addr (the stack runs). */
enum conn_result sctp_listen_add(struct client *c,
				 const struct sockaddr_storage *addr,
				 socklen_t len, uint64_t *id,
				 struct sockaddr_storage *bound);
/* A client attaches to the service name. */
enum conn_result sctp_listen_attach(struct client *c, const char *name,
				    uint64_t *id,
				    struct sockaddr_storage *bound);
/* The services of conf: the ones gone or changed close; new ones bind
 * when bind (the stack runs), else they are left for later.  -1 when one
 * could not be bound. */
int sctp_listen_config(const struct iwcmd_conf *conf, bool bind);
/* Whether conf has an SCTP service this process does not have yet. */
bool sctp_listen_config_new(const struct iwcmd_conf *conf);
/* A client stops listening (a service stays, without its client). */
enum conn_result sctp_listen_remove(struct client *c, uint64_t id);
struct sctp_listener *sctp_listen_find(uint64_t id);
/* The listener whose socket an association to local came in on, or would
 * now: the same family and port, on that address or the wildcard. */
struct sctp_listener *sctp_listen_find_local(const struct sockaddr *local,
					     socklen_t len);
/* A client is gone: its listeners close, its services wait. */
void sctp_listen_client_gone(struct client *c);
/* Every listener closes (shutdown, the fuzz harnesses). */
void sctp_listen_free_all(void);

#endif
