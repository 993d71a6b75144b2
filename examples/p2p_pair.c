/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * p2p_pair: the smallest peer-to-peer pair on libiwcm.  One process
 * listens, the other connects; iwcmd (found through IWCM_SOCKET)
 * negotiates MPA v2 with the peer-to-peer model and an RTR exchange
 * (RFC 6581), then hands each process its end of the TCP connection with
 * the negotiated state.  Each prints that state, then the two exchange
 * one line of plain bytes over the socket to show it is live: the
 * datapath (MPA framing, DDP, RDMAP) would take over from here.
 *
 *   IWCM_SOCKET=/tmp/x/iwcmd.sock p2p_pair listen 127.0.0.1:0
 *   IWCM_SOCKET=/tmp/x/iwcmd.sock p2p_pair connect 127.0.0.1:PORT
 *
 * With --transport sctp the pair runs DDP over SCTP (RFC 5043) instead:
 * iwcmd keeps the SCTP association and hands each side a SEQPACKET relay
 * of the session, where the line travels as one datagram behind the
 * relay's 8-octet header (iwcm_conn_query(3), IWCM_CONN_ATTR_SCTP).
 *
 * Only <iwcm/iwcm.h> and libc: copy it out of the tree and build it with
 * cc p2p_pair.c $(pkg-config --cflags --libs iwcm).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#else
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#define LINE_MAX_LEN 128
#define WAIT_MS 10000

static const char *role = "p2p_pair";
static bool sctp; /* --transport sctp */

static void die(const char *what)
{
	fprintf(stderr, "[%s] %s: %s\n", role, what, strerror(errno));
	exit(1);
}

static void usage(void)
{
	fprintf(stderr, "usage: p2p_pair listen [ADDR:]PORT "
			"[--transport tcp|sctp]\n"
			"       p2p_pair connect HOST:PORT "
			"[--transport tcp|sctp]\n"
			"The daemon's socket is $IWCM_SOCKET (default "
			"/run/iwcm/iwcmd.sock).\n");
	exit(2);
}

/* HOST:PORT or [HOST]:PORT; a bare PORT means any IPv4 address. */
static void parse_addr(const char *arg, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	const char *colon = strrchr(arg, ':');
	char host[256] = "0.0.0.0";
	const char *port = arg;
	size_t hl;

	if (colon) {
		hl = (size_t)(colon - arg);
		if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
			arg++;
			hl -= 2;
		}
		if (!hl || hl >= sizeof(host))
			usage();
		memcpy(host, arg, hl);
		host[hl] = '\0';
		port = colon + 1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(host, port, &hints, &res) != 0 ||
	    res->ai_addrlen > sizeof(*ss))
		usage();
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
}

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";
	unsigned int port = 0;

	if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)sa;

		inet_ntop(AF_INET, &s->sin_addr, h, sizeof(h));
		port = ntohs(s->sin_port);
	} else if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)sa;

		inet_ntop(AF_INET6, &s->sin6_addr, h, sizeof(h));
		port = ntohs(s->sin6_port);
	}
	snprintf(buf, len, "%s:%u", h, port);
	return buf;
}

static const char *rtr_str(int rtr)
{
	switch (rtr) {
	case IWCM_RTR_SEND:
		return "zero-length Send";
	case IWCM_RTR_WRITE:
		return "zero-length RDMA Write";
	case IWCM_RTR_READ:
		return "zero-length RDMA Read";
	default:
		return "none";
	}
}

/* What libiwcm knows of connection c (iwcm_conn_query(3)). */
static struct iwcm_conn_attr query(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(c, &a) < 0)
		die("iwcm_conn_query");
	return a;
}

/* The next event of ctx, which must be of type want for conn c. */
static struct iwcm_conn *next_event(struct iwcm_ctx *ctx,
				    enum iwcm_cm_event_type want,
				    struct iwcm_conn *c)
{
	struct iwcm_event *ev;
	struct iwcm_conn *got;
	enum iwcm_cm_event_type type;

	if (iwcm_get_event(ctx, &ev) < 0)
		die("iwcm_get_event");
	type = iwcm_event_get_type(ev);
	got = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	if (type != want || (c && got != c)) {
		const struct iwcm_conn_attr a = query(got);
		const char *text = a.reason_text;

		fprintf(stderr, "[%s] %s: %s%s%s\n", role,
			iwcm_cm_event_str(type), iwcm_status_str(a.reason),
			text ? ": " : "", text ? text : "");
		exit(1);
	}
	return got;
}

/* What the peer sent in its MPA Request or Reply (RFC 6581 §9). */
static void print_peer(const char *frame, struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = query(c);
	const char *pd = a.peer_private_data;
	size_t len = a.peer_private_data_len;
	char buf[64];

	printf("[%s] %s from %s: MPA rev %d, %s, IRD %d, ORD %d, "
	       "private data \"%.*s\"\n",
	       role, frame,
	       addr_str((const struct sockaddr *)&a.peer_addr, buf,
			sizeof(buf)),
	       (int)a.peer_mpa_rev,
	       a.peer_p2p ? "peer-to-peer" : "client-server", (int)a.peer_ird,
	       (int)a.peer_ord, (int)len, pd ? pd : "");
}

/* Everything the datapath would need, from one iwcm_conn_query(). */
static void print_state(struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = query(c);
	char la[64], pa[64];

	printf("[%s] established %s <-> %s, fd %d\n", role,
	       addr_str((const struct sockaddr *)&a.local_addr, la, sizeof(la)),
	       addr_str((const struct sockaddr *)&a.peer_addr, pa, sizeof(pa)),
	       iwcm_conn_get_fd(c));
	printf("[%s]   MPA rev %d%s, DDP/RDMAP version %d/%d, %s\n", role,
	       (int)a.mpa_rev, a.enhanced ? " (enhanced)" : "", a.ddp_version,
	       a.rdmap_version, a.p2p ? "peer-to-peer" : "client-server");
	printf("[%s]   RTR: %s; markers: send %s, receive %s; CRC %s\n", role,
	       rtr_str(a.rtr_type), a.markers_tx ? "on" : "off",
	       a.markers_rx ? "on" : "off", a.crc ? "on" : "off");
	printf("[%s]   IRD %u, ORD %u (the peer sent IRD %u, ORD %u)\n", role,
	       a.ird, a.ord, a.peer_ird, a.peer_ord);
	if (a.comp_mask & IWCM_CONN_ATTR_SCTP)
		printf("[%s]   DDP over SCTP: stream %u, segments up to %u "
		       "octets\n",
		       role, a.sctp_stream, a.sctp_max_segment);
	fflush(stdout);
}

static void send_line(int fd, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off < len) {
		ssize_t n = send(fd, line + off, len - off, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			die("send");
		off += (size_t)n;
	}
	printf("[%s] sent \"%.*s\"\n", role, (int)len - 1, line);
	fflush(stdout);
}

/*
 * One line from the peer: first the octets the daemon already read past
 * the handshake (unread of iwcm_conn_query()), then the socket.
 */
static void recv_line(struct iwcm_conn *c, int fd)
{
	const struct iwcm_conn_attr a = query(c);
	char line[LINE_MAX_LEN];
	size_t len = 0, unread = a.unread_len;
	const char *early = a.unread;
	struct pollfd p = { fd, POLLIN, 0 };

	if (early && unread) {
		len = unread < sizeof(line) ? unread : sizeof(line) - 1;
		memcpy(line, early, len);
	}
	while (!memchr(line, '\n', len) && len < sizeof(line) - 1) {
		ssize_t n;

		if (poll(&p, 1, WAIT_MS) != 1) {
			errno = ETIMEDOUT;
			die("waiting for the peer's line");
		}
		n = recv(fd, line + len, sizeof(line) - 1 - len, 0);
		if (n == 0) {
			errno = ECONNRESET;
			die("recv");
		}
		if (n < 0 && errno != EINTR)
			die("recv");
		if (n > 0)
			len += (size_t)n;
	}
	while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
		len--;
	printf("[%s] received \"%.*s\"\n", role, (int)len, line);
	fflush(stdout);
}

/*
 * DDP over SCTP: the line is one datagram of the session's relay, behind
 * its header {stream (16), 0 (16), PPID 16 (32)}, big-endian.
 */
static void sctp_send_line(struct iwcm_conn *c, const char *line)
{
	const struct iwcm_conn_attr a = query(c);
	uint8_t d[8 + LINE_MAX_LEN];
	size_t len = strlen(line);

	if (!(a.comp_mask & IWCM_CONN_ATTR_SCTP) || len > LINE_MAX_LEN) {
		errno = EPROTO;
		die("SCTP session state");
	}
	memset(d, 0, 8);
	d[0] = (uint8_t)(a.sctp_stream >> 8);
	d[1] = (uint8_t)a.sctp_stream;
	d[7] = 16;
	memcpy(d + 8, line, len);
	if (send(iwcm_conn_get_fd(c), d, 8 + len, MSG_NOSIGNAL) !=
	    (ssize_t)(8 + len))
		die("send");
	printf("[%s] sent \"%.*s\"\n", role, (int)len - 1, line);
	fflush(stdout);
}

static void sctp_recv_line(struct iwcm_conn *c)
{
	struct pollfd p = { iwcm_conn_get_fd(c), POLLIN, 0 };
	uint8_t d[8 + LINE_MAX_LEN];
	ssize_t n;

	if (poll(&p, 1, WAIT_MS) != 1) {
		errno = ETIMEDOUT;
		die("waiting for the peer's line");
	}
	n = recv(p.fd, d, sizeof(d), 0);
	if (n < 8 || d[7] != 16) {
		errno = n < 0 ? errno : EPROTO;
		die("recv");
	}
	while (n > 8 && (d[n - 1] == '\n' || d[n - 1] == '\r'))
		n--;
	printf("[%s] received \"%.*s\"\n", role, (int)(n - 8),
	       (const char *)d + 8);
	fflush(stdout);
}

/* Listen, accept one peer-to-peer connection, answer its line. */
static int run_listen(struct iwcm_ctx *ctx, const struct sockaddr *addr)
{
	struct iwcm_conn_param *param = iwcm_conn_param_new();
	struct iwcm_listener *l;
	struct iwcm_conn *c;
	char buf[64];
	static const char pd[] = "hello from the listener";

	if (!param || iwcm_conn_param_set_ird(param, 4) < 0 ||
	    iwcm_conn_param_set_ord(param, 4) < 0 ||
	    iwcm_conn_param_set_private_data(param, pd, strlen(pd)) < 0 ||
	    (sctp &&
	     iwcm_conn_param_set_transport(param, IWCM_TRANSPORT_SCTP) < 0))
		die("connection parameters");
	l = iwcm_listen(ctx, addr, NULL, param, 0);
	if (!l)
		die("iwcm_listen");
	printf("[%s] listening on %s\n", role,
	       addr_str(iwcm_listener_get_addr(l), buf, sizeof(buf)));
	fflush(stdout);

	c = next_event(ctx, IWCM_CM_EVENT_CONNECT_REQUEST, NULL);
	print_peer("connect request", c);
	if (iwcm_accept(c, param) < 0)
		die("iwcm_accept");
	next_event(ctx, IWCM_CM_EVENT_ESTABLISHED, c);
	print_state(c);

	if (sctp) {
		sctp_recv_line(c);
		sctp_send_line(c, "pong from the listener\n");
	} else {
		recv_line(c, iwcm_conn_get_fd(c));
		send_line(iwcm_conn_get_fd(c), "pong from the listener\n");
	}

	iwcm_conn_free(c);
	iwcm_listener_close(l);
	iwcm_conn_param_free(param);
	return 0;
}

/* Connect peer-to-peer, send a line, wait for the answer. */
static int run_connect(struct iwcm_ctx *ctx, const struct sockaddr *dst)
{
	struct iwcm_conn_param *param = iwcm_conn_param_new();
	struct iwcm_conn *c;
	static const char pd[] = "hello from the connector";

	/* RFC 6581 §9.2: A set, offering a Write or a Read RTR (MPA's;
	 * over SCTP the session needs no RTR, RFC 5043 §6.2) */
	if (!param ||
	    (!sctp && (iwcm_conn_param_set_p2p(param, true) < 0 ||
		       iwcm_conn_param_set_rtr_types(
			       param, IWCM_RTR_WRITE | IWCM_RTR_READ) < 0)) ||
	    (sctp &&
	     iwcm_conn_param_set_transport(param, IWCM_TRANSPORT_SCTP) < 0) ||
	    iwcm_conn_param_set_ird(param, 4) < 0 ||
	    iwcm_conn_param_set_ord(param, 4) < 0 ||
	    iwcm_conn_param_set_private_data(param, pd, strlen(pd)) < 0)
		die("connection parameters");
	c = iwcm_connect(ctx, dst, NULL, param);
	if (!c)
		die("iwcm_connect");
	next_event(ctx, IWCM_CM_EVENT_ESTABLISHED, c);
	print_peer("reply", c);
	print_state(c);

	if (sctp) {
		sctp_send_line(c, "ping from the connector\n");
		sctp_recv_line(c);
	} else {
		send_line(iwcm_conn_get_fd(c), "ping from the connector\n");
		recv_line(c, iwcm_conn_get_fd(c));
	}

	iwcm_conn_free(c);
	iwcm_conn_param_free(param);
	return 0;
}

/* p2p_pair listen [ADDR:]PORT | connect HOST:PORT */
int main(int argc, char **argv)
{
	struct sockaddr_storage ss;
	struct iwcm_ctx *ctx;
	int rc;

	if ((argc != 3 && argc != 5) ||
	    (strcmp(argv[1], "listen") && strcmp(argv[1], "connect")))
		usage();
	if (argc == 5) {
		if (strcmp(argv[3], "--transport") ||
		    (strcmp(argv[4], "tcp") && strcmp(argv[4], "sctp")))
			usage();
		sctp = !strcmp(argv[4], "sctp");
	}
	role = !strcmp(argv[1], "listen") ? "listener" : "connector";
	parse_addr(argv[2], &ss);
	ctx = iwcm_ctx_open(0);
	if (!ctx && errno == EINVAL && iwcm_env_error()) {
		fprintf(stderr, "p2p_pair: iwcm_ctx_open: bad %s\n",
			iwcm_env_error());
		exit(1);
	}
	if (!ctx)
		die("iwcm_ctx_open (is iwcmd running? IWCM_SOCKET?)");
	if (!strcmp(argv[1], "listen"))
		rc = run_listen(ctx, (struct sockaddr *)&ss);
	else
		rc = run_connect(ctx, (struct sockaddr *)&ss);
	iwcm_ctx_close(ctx);
	return rc;
}
