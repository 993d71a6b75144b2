/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The CM's objects: connections and listeners of a context, their
 * references and lookup by the daemon's ids, what a connection is
 * (iwcm_conn_query()) and who owns its socket.  The
 * socket is taken exactly once, by iwcm_conn_release_fd() or by
 * iwcm_create_qp() through cm_conn_take_fd(), under the connection's
 * fd_lock because iwcm_create_qp() is thread-safe; everything else of a
 * connection belongs to its context's thread (cm.c).
 */
#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "framing_sctp.h"
#include "internal.h"

/* Find a listener of ctx by the daemon's id. */
struct iwcm_listener *cm_listener_find(struct iwcm_ctx *ctx, uint64_t id)
{
	struct iwcm_listener *l;

	TAILQ_FOREACH (l, &ctx->listeners, entry)
		if (l->id == id)
			return l;
	return NULL;
}

/* Free a listener (the daemon is told by the caller). */
void cm_listener_destroy(struct iwcm_listener *l)
{
	TAILQ_REMOVE(&l->ctx->listeners, l, entry);
	free(l);
}

/* Close the connection's socket unless something took it. */
void cm_conn_close_fd(struct iwcm_conn *c)
{
	pthread_mutex_lock(&c->fd_lock);
	if (c->fd >= 0 && !c->fd_released)
		close(c->fd);
	c->fd = -1;
	pthread_mutex_unlock(&c->fd_lock);
}

/* Find a live (not freed by the caller) connection of ctx by id. */
struct iwcm_conn *cm_conn_find(struct iwcm_ctx *ctx, uint64_t id)
{
	struct iwcm_conn *c;

	TAILQ_FOREACH (c, &ctx->conns, entry)
		if (c->id == id && !c->user_freed)
			return c;
	return NULL;
}

/* Allocate a connection owned by ctx with the caller's reference. */
struct iwcm_conn *cm_conn_new(struct iwcm_ctx *ctx, uint64_t id)
{
	struct iwcm_conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->ctx = ctx;
	c->id = id;
	c->refs = 1;
	c->fd = -1;
	pthread_mutex_init(&c->fd_lock, NULL);
	TAILQ_INSERT_TAIL(&ctx->conns, c, entry);
	return c;
}

/* Free a connection whatever its references. */
void cm_conn_destroy(struct iwcm_conn *c)
{
	TAILQ_REMOVE(&c->ctx->conns, c, entry);
	cm_conn_close_fd(c);
	pthread_mutex_destroy(&c->fd_lock);
	free(c->reason_text);
	free(c->peer_info.pd);
	free(c->unread);
	fs_handoff_free(c->sctp_handoff);
	free(c->next_msn);
	free(c);
}

/* Drop a reference; the last one frees the connection. */
void cm_conn_put(struct iwcm_conn *c)
{
	if (--c->refs == 0)
		cm_conn_destroy(c);
}

/* Take the socket for a QP, exactly once whatever the threads. */
int cm_conn_take_fd(struct iwcm_conn *conn)
{
	int fd, e = 0;

	pthread_mutex_lock(&conn->fd_lock);
	fd = conn->fd;
	if (conn->fd_released)
		e = EBADF;
	else if (fd < 0)
		e = ENOTCONN;
	else
		conn->fd_released = true;
	pthread_mutex_unlock(&conn->fd_lock);
	return e ? ERR(e) : fd;
}

/* Give back a socket that no QP took after all. */
void cm_conn_return_fd(struct iwcm_conn *conn)
{
	pthread_mutex_lock(&conn->fd_lock);
	conn->fd_released = false;
	pthread_mutex_unlock(&conn->fd_lock);
}

/* The socket of an established connection, still owned by it. */
IWCM_EXPORT int iwcm_conn_get_fd(const struct iwcm_conn *conn)
{
	/* The lock is not part of what the caller sees as constant. */
	struct iwcm_conn *c = (struct iwcm_conn *)conn;
	int fd, e = 0;

	if (!c)
		return ERR(EINVAL);
	pthread_mutex_lock(&c->fd_lock);
	fd = c->fd;
	if (c->fd_released)
		e = EBADF;
	else if (fd < 0)
		e = ENOTCONN;
	pthread_mutex_unlock(&c->fd_lock);
	return e ? ERR(e) : fd;
}

/* Hand the socket of an established connection to the caller. */
IWCM_EXPORT int iwcm_conn_release_fd(struct iwcm_conn *conn)
{
	if (!conn)
		return ERR(EINVAL);
	return cm_conn_take_fd(conn);
}

/* The negotiated state (IWCM_CONN_ATTR_NEGOTIATED). */
static void cm_query_negotiated(const struct iwcm_conn *c,
				struct iwcm_conn_attr *a)
{
	a->transport = (enum iwcm_transport)c->transport;
	a->mpa_rev = (enum iwcm_mpa_rev)c->mpa_rev;
	a->ddp_version = (uint8_t)c->ddp_version;
	a->rdmap_version = (uint8_t)c->rdmap_version;
	a->markers_tx = c->markers_tx;
	a->markers_rx = c->markers_rx;
	a->crc = c->crc;
	a->enhanced = c->enhanced;
	a->p2p = c->p2p;
	a->rtr_frame = c->rtr_frame;
	a->wait_first_fpdu = c->wait_first_fpdu;
	a->rtr_type = (enum iwcm_rtr)c->rtr_type;
	a->ird = c->ird;
	a->ord = c->ord;
	a->tx_offset = c->tx_offset;
	a->rx_offset = c->rx_offset;
	a->unread = c->unread;
	a->unread_len = c->unread_len;
	a->next_msn = c->next_msn;
	a->num_next_msn = (uint32_t)c->n_msn;
}

/* What the peer's MPA frame said (IWCM_CONN_ATTR_PEER). */
static void cm_query_peer(const struct peer_info *pi, struct iwcm_conn_attr *a)
{
	a->peer_mpa_rev = (enum iwcm_mpa_rev)pi->mpa_rev;
	a->peer_flags = (uint8_t)pi->flags;
	a->peer_enhanced = pi->enhanced;
	a->peer_p2p = pi->p2p;
	a->peer_rtr_types = pi->rtr_types;
	a->peer_ird = pi->ird;
	a->peer_ord = pi->ord;
	a->peer_private_data = pi->pd;
	a->peer_private_data_len = pi->pd_len;
}

/* Zero the fields of attr from first to last, both included. */
#define ATTR_ZERO(attr, first, last)                                          \
	memset(&(attr)->first, 0,                                             \
	       offsetof(struct iwcm_conn_attr, last) + sizeof((attr)->last) - \
		       offsetof(struct iwcm_conn_attr, first))

/* What is known of a connection, by groups the caller asks for. */
IWCM_EXPORT int iwcm_conn_query(const struct iwcm_conn *conn,
				struct iwcm_conn_attr *attr)
{
	uint32_t want, known = 0;

	if (!conn || !attr || (attr->comp_mask & ~(uint32_t)IWCM_CONN_ATTR_ALL))
		return ERR(EINVAL);
	want = attr->comp_mask;
	attr->id = conn->id;
	attr->initiator = conn->initiator;
	attr->listener = conn->initiator ?
				 NULL :
				 cm_listener_find(conn->ctx, conn->listener_id);
	attr->reason = conn->reason;
	attr->reason_text = conn->reason_text;
	attr->peer_addr = conn->peer;

	/* Each group asked for is written whole: values or zeros.  Fields
	 * of groups not asked for may lie past the caller's structure. */
	if (want & IWCM_CONN_ATTR_LOCAL_ADDR) {
		memset(&attr->local_addr, 0, sizeof(attr->local_addr));
		if (conn->local_known) {
			attr->local_addr = conn->local;
			known |= IWCM_CONN_ATTR_LOCAL_ADDR;
		}
	}
	if (want & IWCM_CONN_ATTR_TERM) {
		attr->term_layer = attr->term_etype = attr->term_ecode = 0;
		if (conn->term) {
			attr->term_layer = (uint8_t)conn->term_layer;
			attr->term_etype = (uint8_t)conn->term_etype;
			attr->term_ecode = (uint8_t)conn->term_ecode;
			known |= IWCM_CONN_ATTR_TERM;
		}
	}
	if (want & IWCM_CONN_ATTR_NEGOTIATED) {
		ATTR_ZERO(attr, transport, num_next_msn);
		if (conn->state == CONN_ESTABLISHED) {
			cm_query_negotiated(conn, attr);
			known |= IWCM_CONN_ATTR_NEGOTIATED;
		}
	}
	if (want & IWCM_CONN_ATTR_PEER) {
		ATTR_ZERO(attr, peer_mpa_rev, peer_private_data_len);
		if (conn->peer_info.known) {
			cm_query_peer(&conn->peer_info, attr);
			known |= IWCM_CONN_ATTR_PEER;
		}
	}
	if (want & IWCM_CONN_ATTR_SCTP) {
		ATTR_ZERO(attr, sctp_stream, sctp_max_segment);
		if (conn->state == CONN_ESTABLISHED &&
		    conn->transport == IWCM_TRANSPORT_SCTP) {
			attr->sctp_stream = conn->sctp_stream;
			attr->sctp_max_segment = conn->sctp_max_segment;
			known |= IWCM_CONN_ATTR_SCTP;
		}
	}
	if (want & IWCM_CONN_ATTR_RTR_READ) {
		ATTR_ZERO(attr, rtr_read_due, rtr_read_to);
		if (conn->state == CONN_ESTABLISHED &&
		    conn->transport == IWCM_TRANSPORT_TCP) {
			attr->rtr_read_due = conn->rtr_read_due;
			attr->rtr_read_stag = conn->rtr_read_stag;
			attr->rtr_read_to = conn->rtr_read_to;
			known |= IWCM_CONN_ATTR_RTR_READ;
		}
	}
	attr->comp_mask = known;
	return 0;
}
