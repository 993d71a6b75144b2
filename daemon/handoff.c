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

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include "conn.h"
#include "log.h"

/*
 * tcp_user_timeout_ms (iwcmd.conf(5), ConnParams): the socket ends with
 * ETIMEDOUT once data stays unacknowledged that long (TCP_USER_TIMEOUT,
 * RFC 5482's local UTO), and keepalive probes every third of it after
 * a third of it idle let an idle end see an unreachable peer as well;
 * with TCP_USER_TIMEOUT set the kernel ends the connection at the user
 * timeout rather than after TCP_KEEPCNT probes.  Set before the handoff,
 * so the client's QP ends with that error.  Returns 0 or -1 (errno).
 */
static int handoff_user_timeout(struct conn *c)
{
	unsigned int ms = c->tcp_user_timeout_ms;
	int on = 1, s = (int)(ms / 3000);

	if (!ms)
		return 0;
	if (s < 1)
		s = 1;
	if (setsockopt(c->fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof(ms)) <
		    0 ||
	    setsockopt(c->fd, SOL_SOCKET, SO_KEEPALIVE, &on, sizeof(on)) < 0 ||
	    setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPIDLE, &s, sizeof(s)) < 0 ||
	    setsockopt(c->fd, IPPROTO_TCP, TCP_KEEPINTVL, &s, sizeof(s)) < 0)
		return -1;
	return 0;
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
	if (handoff_user_timeout(c) < 0)
		log_warn("conn %llu: tcp_user_timeout_ms %u",
			 (unsigned long long)c->id, c->tcp_user_timeout_ms);
	if (conn_notify()->established(c) < 0) {
		log_info("conn %llu: handoff to its owner failed",
			 (unsigned long long)c->id);
		iwcmd_stats.handoff_failed++;
		conn_post(c, CONN_EV_HANDOFF_FAILED);
		return;
	}
	conn_post(c, CONN_EV_HANDOFF_DONE);
}
