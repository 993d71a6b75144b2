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

#include "conn.h"
#include "log.h"

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
	/* Octets the peer sent past its last handshake message (a first
	 * FPDU glued to the frame, RFC 5044 §7.1.2 rule 4 broken in good
	 * faith) stay in the socket: the datapath reads them there, in
	 * order.  The handshake reads exactly its frames (conn_read_upto),
	 * so Established.unread stays empty and costs no system call. */
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
