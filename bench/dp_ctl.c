/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The control socket of the datapath tests: the two processes keep in
 * step over a SOCK_SEQPACKET socketpair (the port, finished, the
 * server's result; dp.c describes the exchange).
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "bench.h"
#include "dp.h"

/* The control socket's messages (one process image on both ends). */
enum dp_ctl_type {
	DP_CTL_PORT = 1, /* server: listening (port 0: failed) */
	DP_CTL_FIN,	 /* client: finished */
	DP_CTL_RESULT,	 /* server: its side */
};

struct dp_ctl {
	uint32_t type;
	uint32_t port;
	uint32_t aux; /* DP_CTL_PORT: the usrsctp baseline's SCTP port */
	struct dp_side side;
};

static void dp_ctl_send(struct dp_run *r, uint32_t type, uint32_t port,
			uint32_t aux)
{
	struct dp_ctl m;

	if (r->ctl_lost)
		return;
	memset(&m, 0, sizeof(m));
	m.type = type;
	m.port = port;
	m.aux = aux;
	m.side = r->side;
	if (send(r->ctl, &m, sizeof(m), MSG_NOSIGNAL) != (ssize_t)sizeof(m))
		r->ctl_lost = true;
}

/* The next message, which must be of type; -1 when the peer is gone. */
static int dp_ctl_recv(struct dp_run *r, uint32_t type, struct dp_ctl *m)
{
	ssize_t k;

	if (r->ctl_lost)
		return -1;
	do
		k = recv(r->ctl, m, sizeof(*m), 0);
	while (k < 0 && errno == EINTR);
	if (k != (ssize_t)sizeof(*m) || m->type != type) {
		r->ctl_lost = true;
		dp_side_fail(&r->side, "the %s process is gone",
			     r->server ? "client" : "server");
		return -1;
	}
	return 0;
}

/* Server, setup done (port) or failed (0). */
void dp_ctl_port(struct dp_run *r, int port)
{
	dp_ctl_send(r, DP_CTL_PORT, port > 0 ? (uint32_t)port : 0, 0);
}

/* Server, setup done: the port and a second number the client needs. */
void dp_ctl_port_aux(struct dp_run *r, int port, uint32_t aux)
{
	dp_ctl_send(r, DP_CTL_PORT, port > 0 ? (uint32_t)port : 0, aux);
}

/* Client: the server's port, 0 when it could not start (why in peer). */
uint16_t dp_ctl_wait_port(struct dp_run *r)
{
	struct dp_ctl m;

	if (dp_ctl_recv(r, DP_CTL_PORT, &m) < 0) {
		r->peer = r->side;
		return 0;
	}
	if (!m.port || m.port > 65535) {
		r->peer = m.side;
		r->peer.ok = 0;
		dp_side_fail(&r->side, "the server did not start");
		return 0;
	}
	r->ctl_aux = m.aux;
	return (uint16_t)m.port;
}

/* Both sides are done: the client says so, the server answers. */
void dp_ctl_finish(struct dp_run *r)
{
	struct dp_ctl m;

	if (r->server) {
		if (dp_ctl_recv(r, DP_CTL_FIN, &m) == 0)
			dp_ctl_send(r, DP_CTL_RESULT, 0, 0);
		return;
	}
	dp_ctl_send(r, DP_CTL_FIN, 0, 0);
	if (dp_ctl_recv(r, DP_CTL_RESULT, &m) == 0)
		r->peer = m.side;
	else
		r->peer = r->side;
}
