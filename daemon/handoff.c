/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The end of a negotiation: the socket and everything the datapath needs
 * (DESIGN.md "Handoff state") go to the owner, through conn_notify()
 * (client_api.c builds the Established message, the socket its one
 * SCM_RIGHTS fd); for iwcmctl connect, the NegotiationReport instead
 * (admin.c).  After it the daemon closes its copy and forgets the socket.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "log.h"

/*
 * Bytes the peer sent past the last handshake message are already in the
 * socket (a first FPDU glued to the frame, RFC 5044 §7.1.2 rule 4 being
 * broken in good faith): take them, bounded, so that they travel with
 * the fd as Established.unread; the datapath reads them first.
 */
static void handoff_drain(struct conn *c)
{
	ssize_t n;

	while (conn_buf(c)->unread_len < sizeof(conn_buf(c)->unread)) {
		n = recv(c->fd, conn_buf(c)->unread + conn_buf(c)->unread_len,
			 sizeof(conn_buf(c)->unread) - conn_buf(c)->unread_len,
			 MSG_DONTWAIT);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		conn_buf(c)->unread_len += (size_t)n;
	}
	if (conn_buf(c)->unread_len)
		log_debug("conn %llu: %zu octets past the handshake",
			  (unsigned long long)c->id, conn_buf(c)->unread_len);
}

/* iwcmctl connect: send the NegotiationReport (and the RESULT), once. */
void handoff_report(struct conn *c, enum conn_result r)
{
	if (c->reported || !c->owner)
		return;
	c->reported = true;
	conn_notify()->report(c, r);
}

/* Pass c's socket and state to its owner; queues HANDOFF_DONE/_FAILED. */
void handoff_start(struct conn *c)
{
	handoff_drain(c);
	if (c->force) {
		handoff_report(c, CONN_RES_OK);
		conn_post(c, CONN_EV_HANDOFF_DONE);
		return;
	}
	if (!c->owner) {
		log_info("conn %llu: negotiated, but its owner is gone",
			 (unsigned long long)c->id);
		iwcmd_stats.handoff_failed++;
		conn_post(c, CONN_EV_HANDOFF_FAILED);
		return;
	}
	if (conn_notify()->established(c) < 0) {
		log_info("conn %llu: handoff to its owner failed",
			 (unsigned long long)c->id);
		iwcmd_stats.handoff_failed++;
		conn_post(c, CONN_EV_HANDOFF_FAILED);
		return;
	}
	conn_post(c, CONN_EV_HANDOFF_DONE);
}
