/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_LISTEN_H
#define IWCMD_SCTP_LISTEN_H

/*
 * SCTP's listening sockets for DDP stream sessions (RFC 5043 §6), the
 * transport listener.c calls for them (sctp_listen.c): a client's own,
 * and the services of iwcmd.conf a client attaches to, in listener.c's
 * books.  sctp_conn.c starts the stack first and takes the associations
 * they accept (the callbacks given to sctp_listen_init()).
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/socket.h>

#include "conf.h"
#include "iwcmd.h"

struct sctp_cb;

extern const struct listener_ops sctp_listen_ops;

/* What the listeners' sockets are told of new associations (arg: the
 * struct listener), and what is told of a listener that closed (its id:
 * the associations it accepted have no listener of their own any more). */
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
/* The services of conf (listener_config()). */
int sctp_listen_config(const struct iwcmd_conf *conf, bool bind);
/* Whether conf has an SCTP service this process does not have yet. */
bool sctp_listen_config_new(const struct iwcmd_conf *conf);
/* A client stops listening (a service stays, without its client). */
enum conn_result sctp_listen_remove(struct client *c, uint64_t id);
/* An SCTP listener by id. */
struct listener *sctp_listen_find(uint64_t id);
/* The listener whose socket an association to local came in on, or would
 * now: the same family and port, on that address or the wildcard. */
struct listener *sctp_listen_find_local(const struct sockaddr *local,
					socklen_t len);
/* A client is gone: its listeners close, its services wait. */
void sctp_listen_client_gone(struct client *c);
/* Every SCTP listener closes (shutdown, the fuzz harnesses). */
void sctp_listen_free_all(void);

#endif
