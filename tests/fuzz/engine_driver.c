/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine in-process for the engine harnesses (see
 * engine_driver.h): main.c's globals, control.c's functions doubled, a
 * raw peer on the loopback and the operations of an input.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include "client_api.h"
#include "fuzz/engine_driver.h"
#include "log.h"

/* An hour: no timer expires by itself while an input runs. */
#define FZ_TIMEOUT_MS 3600000u

struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

struct fz_eng FE;

static const struct conn_notify fz_eng_notify = {
	.request = client_api_request,
	.error = client_api_error,
	.rejected = client_api_rejected,
	.established = client_api_established,
	.report = admin_report,
};

/* A client's socket failed: what control_close() and client_api_gone()
 * do, for the one client and the one listener there are. */
static void fz_eng_client_gone(struct client *c)
{
	if (c->fd < 0)
		return;
	c->fd = -1;
	if (FE.lis.client == c) {
		FE.lis.client = NULL;
		/* a listener bound by the client closes with it; a
		 * configured service stays, waiting for another client */
		if (!FE.lis.service[0] && FE.lis_open) {
			FE.lis_open = false;
			conn_listener_gone(&FE.lis);
		}
	}
	conn_client_gone(c);
}

/* control.c's functions as client_api.c and admin.c call them: each
 * message is packed and checked, then dropped. */
int control_send(struct client *c, uint16_t type, uint32_t reqid,
		 const ProtobufCMessage *body, int fd)
{
	static uint8_t buf[IPC_MAX_MSG];
	int t = 0;
	socklen_t tl = sizeof(t);

	FZ_CHECK(c != NULL);
	if (c->fd < 0) {
		errno = EPIPE;
		return -1;
	}
	if (FE.fail_type && FE.fail_type == type) {
		FE.fail_type = 0;
		fz_eng_client_gone(c);
		errno = EPIPE;
		return -1;
	}
	FZ_CHECK(ipc_pack(type, reqid, body, buf, sizeof(buf)) >= IPC_HDR_LEN);
	/* exactly one fd, with the handoff and nothing else (DESIGN.md) */
	FZ_CHECK((type == IPC_EVENT_ESTABLISHED) == (fd >= 0));
	if (fd >= 0) {
		FZ_CHECK(getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &tl) == 0);
		FZ_CHECK(t == SOCK_STREAM);
		FE.n_established++;
	}
	return 0;
}

/* control_send() that takes fd, as the handoff uses it. */
int control_send_fd(struct client *c, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, int fd)
{
	int r = control_send(c, type, reqid, body, fd);

	if (fd >= 0)
		close(fd);
	return r;
}

void control_cork(struct client *c)
{
	(void)c;
}

int control_reply(struct client *c, uint16_t type, uint32_t reqid,
		  const ProtobufCMessage *body)
{
	return control_send(c, type, reqid, body, -1);
}

void control_close(struct client *c, const char *why)
{
	(void)why;
	fz_eng_client_gone(c);
}

unsigned int control_client_count(void)
{
	return FE.client.fd >= 0;
}

/* ---- sockets ---- */

static void fz_eng_close_rst(int fd)
{
	struct linger lg = { 1, 0 };

	/* a reset leaves no TIME_WAIT behind, whoever closed first */
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	close(fd);
}

/* The peer's socket: non-blocking, and every chunk goes out at once
 * (Nagle would hold a second small chunk for the delayed ACK). */
static void fz_eng_peer_setup(int fd)
{
	int fl = fcntl(fd, F_GETFL), one = 1;

	FZ_CHECK(fl >= 0 && fcntl(fd, F_SETFL, fl | O_NONBLOCK) == 0);
	FZ_CHECK(setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)) ==
		 0);
}

static void fz_eng_listen(void)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	FE.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	FZ_CHECK(FE.lfd >= 0);
	FZ_CHECK(bind(FE.lfd, (struct sockaddr *)&sin, sizeof(sin)) == 0);
	FZ_CHECK(listen(FE.lfd, 64) == 0);
	FZ_CHECK(getsockname(FE.lfd, (struct sockaddr *)&sin, &len) == 0);
	FE.lport = ntohs(sin.sin_port);
}

/* A loopback TCP connection; the engine's end is returned. */
int fz_eng_tcp_pair(void)
{
	struct sockaddr_in sin;
	int fd, i;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(FE.lport);
	FE.peer = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FZ_CHECK(FE.peer >= 0);
	FZ_CHECK(fz_connect(FE.peer, (struct sockaddr *)&sin, sizeof(sin)) ==
		 0);
	fz_eng_peer_setup(FE.peer);
	for (i = 0; i < 1000; i++) {
		fd = accept4(FE.lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd >= 0)
			return fd;
		FZ_CHECK(errno == EAGAIN || errno == EINTR);
		usleep(100);
	}
	FZ_CHECK(!"the loopback connection never arrived");
	return -1;
}

/* Take the engine's connection to FE.lfd. */
static void fz_eng_take(void)
{
	int fd;

	fd = accept4(FE.lfd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
	if (fd < 0)
		return;
	/* RFC 6581 §10's retry connects again: the old peer goes */
	if (FE.peer >= 0)
		fz_eng_close_rst(FE.peer);
	fz_eng_peer_setup(fd);
	FE.peer = fd;
}

/* What the engine sent the peer is read and dropped. */
static void fz_eng_drain(void)
{
	uint8_t buf[4096];
	ssize_t n;

	if (FE.peer < 0)
		return;
	do
		n = recv(FE.peer, buf, sizeof(buf), MSG_DONTWAIT);
	while (n == (ssize_t)sizeof(buf));
}

/* Accept a connection of the engine's to FE.lfd and drain the peer,
 * each only when poll(2) says there is something: accept4() allocates
 * a socket before it finds the queue empty, and this runs at every turn
 * of the loop. */
static void fz_eng_peer_io(void)
{
	struct pollfd p[2] = { { FE.lfd, POLLIN, 0 }, { FE.peer, POLLIN, 0 } };

	if (poll(p, 2, 0) <= 0)
		return;
	if (p[0].revents & POLLIN)
		fz_eng_take();
	if (p[1].revents & POLLIN && FE.peer == p[1].fd)
		fz_eng_drain();
}

/* Accept the engine's connection to FE.lfd, if one came. */
void fz_eng_accept(void)
{
	struct pollfd p = { FE.lfd, POLLIN, 0 };

	if (poll(&p, 1, 0) == 1)
		fz_eng_take();
}

/* Run the event loop until nothing is left to do now. */
void fz_eng_pump(void)
{
	int i, idle = 0;

	for (i = 0; i < 256 && idle < 3; i++) {
		event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
		fz_eng_peer_io();
		if (event_base_get_num_events(iwcmd_base,
					      EVENT_BASE_COUNT_ACTIVE))
			idle = 0;
		else
			idle++;
	}
}

/* ---- input ---- */

static uint32_t fz_eng_irdord(uint8_t v)
{
	/* small values, the no-negotiation 0x3FFF and one over 14 bits */
	if (v == 0xFF)
		return 0x3FFF;
	if (v == 0xFE)
		return 0x4000;
	return v & 0x7F;
}

/* Conn params from one octet of the input (and what it asks for). */
void fz_eng_params(struct fz_in *in, struct conn_params *p, bool initiator)
{
	uint8_t b = fz_u8(in), x;
	const uint8_t *pd;
	size_t n;

	memset(p, 0, sizeof(*p));
	if (b & 0x01) {
		p->has_ird = true;
		p->ird = fz_eng_irdord(fz_u8(in));
	}
	if (b & 0x02) {
		p->has_ord = true;
		p->ord = fz_eng_irdord(fz_u8(in));
	}
	if (b & 0x04) {
		x = fz_u8(in);
		p->has_rtr_types = true;
		p->rtr_types = x & 0x0F;
		p->has_p2p = true;
		p->p2p = (x & 0x10) != 0;
		p->has_markers = (x & 0x20) != 0;
		p->markers = (x & 0x40) != 0;
	}
	if (b & 0x08) {
		x = fz_u8(in);
		p->has_mpa_rev = true;
		p->mpa_rev = x % 4;
		p->has_crc = (x & 0x04) != 0;
		p->crc_request = (x & 0x08) != 0;
		p->has_rev0 = (x & 0x10) != 0;
		p->rev0_permissive = (x & 0x20) != 0;
		if (initiator) {
			p->has_enhanced_fallback = (x & 0x40) != 0;
			p->enhanced_fallback = true;
		}
		p->has_rtr_frame = (x & 0x80) != 0;
		p->rtr_frame = true;
	}
	if (b & 0x10) {
		/* up to the array's 512: over 508 is too long for an
		 * enhanced frame (RFC 6581 §4), which the engine refuses */
		size_t want = fz_u8(in) * 3u;

		if (want > sizeof(p->private_data))
			want = sizeof(p->private_data);
		p->has_private_data = true;
		pd = fz_bytes(in, want, &n);
		memcpy(p->private_data, pd, n);
		p->private_data_len = n;
	}
	if (b & 0x20) {
		p->has_ulp_timeout_ms = true;
		p->ulp_timeout_ms = FZ_TIMEOUT_MS;
		p->has_reply_timeout_ms = true;
		p->reply_timeout_ms = FZ_TIMEOUT_MS;
	}
	if (b & 0x40) {
		p->has_transport = true;
		p->sctp = (b & 0x80) != 0;
	}
}

/* Policy bits of two octets over a policy (the configuration's). */
void fz_eng_policy(struct conf_policy *pol, uint8_t b, uint8_t b2)
{
	static const uint8_t accept[4] = { MPA_RTR_ALL,
					   MPA_RTR_WRITE | MPA_RTR_READ,
					   MPA_RTR_SEND, MPA_RTR_READ };

	pol->enhanced = !(b & 0x01);
	pol->rev0 = b & 0x02 ? CONF_REV0_PERMISSIVE : CONF_REV0_STRICT;
	pol->rtr_frame = (b & 0x04) != 0;
	pol->markers = (b & 0x08) != 0;
	pol->crc = b & 0x10 ? CONF_CRC_PREFER_OFF : CONF_CRC_REQUEST;
	pol->irdord = b & 0x20 ? CONF_IRDORD_STRICT : CONF_IRDORD_RELAXED;
	pol->rtr_accept = accept[b >> 6];
	if ((b2 & 0x0F) != 0x0F)
		pol->max_ird = b2 & 0x0F;
	if ((b2 >> 4) != 0x0F)
		pol->max_ord = b2 >> 4;
}

static void fz_eng_fire_timer(void)
{
	struct conn *c = conn_find(FE.conn_id);

	if (c && evtimer_pending(c->ev_timer, NULL))
		event_active(c->ev_timer, EV_TIMEOUT, 1);
}

static void fz_eng_send(const uint8_t *p, size_t n)
{
	ssize_t w;

	if (FE.peer < 0 || !n)
		return;
	/* the engine reads only what a frame holds: a full socket buffer
	 * is the engine's choice not to read, not an error */
	w = send(FE.peer, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
	(void)w;
}

static void fz_eng_decide(struct fz_in *in, uint8_t x)
{
	struct conn_params p;
	const uint8_t *pd;
	size_t n = 0;

	if (x & 1) {
		pd = x & 2 ? fz_bytes(in, fz_u8(in) * 3u, &n) : NULL;
		conn_ulp_reject(&FE.client, FE.conn_id, pd, n);
		return;
	}
	fz_eng_params(in, &p, false);
	conn_ulp_accept(&FE.client, FE.conn_id, &p);
}

static void fz_eng_peer_end(uint8_t how)
{
	if (FE.peer < 0)
		return;
	switch (how & 3) {
	case 0:
		shutdown(FE.peer, SHUT_WR);
		break;
	case 1:
		close(FE.peer);
		FE.peer = -1;
		break;
	case 2:
		fz_eng_close_rst(FE.peer);
		FE.peer = -1;
		break;
	}
}

static void fz_eng_owner(uint8_t x)
{
	if (!(x & 1)) {
		fz_eng_client_gone(&FE.client);
		return;
	}
	/* a client of the listener's uid (again): waiting requests go to
	 * it (listener.c's attach) */
	if (FE.client.fd >= 0 || FE.client.admin || !FE.lis_open)
		return;
	FE.client.fd = 0;
	FE.lis.client = &FE.client;
	conn_listener_attached(&FE.lis);
}

static void fz_eng_end_op(uint8_t x)
{
	switch (x & 3) {
	case 0:
		if (FE.lis_open) {
			FE.lis_open = false;
			FE.lis.client = NULL;
			conn_listener_gone(&FE.lis);
		}
		break;
	case 1:
		conn_kill(FE.conn_id);
		break;
	case 2:
		conn_disconnect(&FE.client, FE.conn_id);
		break;
	default:
		conn_abort_all();
		break;
	}
}

/* Run one operation of the input. */
void fz_eng_op(struct fz_in *in)
{
	static const uint16_t fail[4] = { IPC_EVENT_ESTABLISHED,
					  IPC_EVENT_CONNECT_REQUEST,
					  IPC_EVENT_ERROR, IPC_EVENT_REJECTED };
	uint8_t h = fz_u8(in), x = h >> 3;
	const uint8_t *p;
	size_t n;

	switch (h & 7) {
	case 0:
		p = fz_bytes(in, x + 1u, &n);
		fz_eng_send(p, n);
		break;
	case 1:
		p = fz_bytes(in, fz_u8(in), &n);
		fz_eng_send(p, n);
		break;
	case 2:
		fz_eng_fire_timer();
		break;
	case 3:
		fz_eng_decide(in, x);
		break;
	case 4:
		fz_eng_peer_end(x);
		break;
	case 5:
		fz_eng_owner(x);
		break;
	case 6:
		fz_eng_end_op(x);
		break;
	default:
		FE.fail_type = fail[x & 3];
		break;
	}
	fz_eng_pump();
}

/* ---- an input's life ---- */

/* Once per process, then fresh engine state for an input. */
void fz_eng_begin(void)
{
	static bool once;

	if (!once) {
		once = true;
		signal(SIGPIPE, SIG_IGN);
		fz_netns();
		/* IWCM_FUZZ_LOG=1: the daemon's log on stderr, verbose */
		if (getenv("IWCM_FUZZ_LOG"))
			log_init(LOG_TO_STDERR, true, "fuzz");
		else
			log_init(LOG_TO_NONE, false, "fuzz");
		clock_gettime(CLOCK_MONOTONIC, &iwcmd_start);
		iwcmd_base = event_base_new();
		FZ_CHECK(iwcmd_base != NULL);
		conn_init(&fz_eng_notify);
		fz_eng_listen();
	}
	FE.peer = -1;
	FE.conn_id = 0;
	FE.fail_type = 0;
	FE.n_established = 0;
	memset(&iwcmd_stats, 0, sizeof(iwcmd_stats));
	conf_defaults(&FE.conf);
	FE.conf.request_timeout_ms = FZ_TIMEOUT_MS;
	FE.conf.reply_timeout_ms = FZ_TIMEOUT_MS;
	FE.conf.ulp_timeout_ms = FZ_TIMEOUT_MS;
	FE.conf.rtr_timeout_ms = FZ_TIMEOUT_MS;
	FE.conf.max_conns = 8;
	iwcmd_conf = &FE.conf;
	memset(&FE.client, 0, sizeof(FE.client));
	FE.client.id = 1;
	FE.client.fd = 0; /* open (listener_route() asks); never used */
	FE.client.uid = getuid();
	FE.client.pid = getpid();
	memset(&FE.lis, 0, sizeof(FE.lis));
	FE.lis.id = 7;
	FE.lis.fd = -1;
	FE.lis.owner = getuid();
	FE.lis_open = true;
	fz_fd_snapshot(&FE.fds);
}

/* Tear the input's state down and check that nothing is left. */
void fz_eng_end(void)
{
	conn_abort_all();
	fz_eng_pump();
	FZ_CHECK(conn_count() == 0);
	if (FE.peer >= 0)
		fz_eng_close_rst(FE.peer);
	FE.peer = -1;
	/* an engine's connection to FE.lfd not accepted yet */
	fz_eng_accept();
	if (FE.peer >= 0)
		fz_eng_close_rst(FE.peer);
	FE.peer = -1;
	event_base_loop(iwcmd_base, EVLOOP_NONBLOCK);
	/* every event of every connection was freed with it */
	FZ_CHECK(event_base_get_num_events(
			 iwcmd_base, EVENT_BASE_COUNT_ADDED |
					     EVENT_BASE_COUNT_ACTIVE) == 0);
	fz_fd_check(&FE.fds);
}
