/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_LISTEN_H
#define IWCMD_SCTP_LISTEN_H

/*
 * SCTP's listening sockets for DDP stream sessions (RFC 5043 §6), the
 * transport listener.c calls for them (sctp_listen.c), in its books.
 * sctp_conn.c starts the stack first and takes the associations they
 * accept (sctp_listen_init()).
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
/* A client's listen or attach (req: its address, or a service of
 * iwcmd.conf), on the stack that runs; the id and where it listens. */
enum conn_result sctp_listen_open(struct client *c, struct listener_req *req,
				  uint64_t *id, struct sockaddr_storage *bound);
/* An SCTP listener by id. */
struct listener *sctp_listen_find(uint64_t id);

#endif
