/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_INTEG_UTIL_H
#define IWCM_TESTS_INTEG_UTIL_H

/*
 * Helpers of the integration tests that run against the real iwcmd
 * (daemon_harness.h): raw TCP peers on the loopback, the admin API
 * (counters and listings), and one RDMAP Send framed as an FPDU with the
 * wire/ codecs, written or decoded with the state a handoff carries.
 * Nothing here asserts: every function reports failure to its caller, so
 * that forked client processes can use them too.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "daemon_harness.h"
#include "mpa.h"
#include "rdmap.h"

#define INTEG_TIMEOUT_MS 5000

/* ---- raw TCP ---- */

/* A blocking TCP connection to 127.0.0.1:port, or -1. */
static inline int integ_tcp_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* A TCP listener on 127.0.0.1, port chosen by the kernel, or -1. */
static inline int integ_tcp_listen(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    listen(fd, 16) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) < 0) {
		close(fd);
		return -1;
	}
	*port = ntohs(sin.sin_port);
	return fd;
}

/* Accept one connection within the timeout, or -1. */
static inline int integ_tcp_accept(int lfd)
{
	struct pollfd p = { lfd, POLLIN, 0 };

	if (poll(&p, 1, INTEG_TIMEOUT_MS) != 1)
		return -1;
	return accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
}

/* Write all of buf; 0 or -1. */
static inline int integ_write(int fd, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == ENOTSOCK)
			n = write(fd, p, len);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Read exactly len octets within ms; 0, or -1 (timeout, EOF or error;
 * *got says how many came).
 */
static inline int integ_read(int fd, void *buf, size_t len, int ms, size_t *got)
{
	long long end = harness_ms() + ms;
	uint8_t *p = buf;
	size_t n = 0;
	ssize_t r;

	while (n < len) {
		struct pollfd pf = { fd, POLLIN, 0 };
		long long left = end - harness_ms();

		if (left <= 0 || poll(&pf, 1, (int)left) != 1)
			break;
		r = read(fd, p + n, len - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	if (got)
		*got = n;
	return n == len ? 0 : -1;
}

/*
 * Wait until the peer closes or resets fd, discarding what it sends
 * first (at most 64 KiB); true when that happened within ms.
 */
static inline bool integ_closed(int fd, int ms)
{
	long long end = harness_ms() + ms;
	uint8_t b[4096];
	size_t total = 0;

	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		long long left = end - harness_ms();
		ssize_t r;

		if (left <= 0 || poll(&pf, 1, (int)left) != 1)
			return false;
		r = recv(fd, b, sizeof(b), 0);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return true;
		if (r < 0 && errno != EINTR)
			return false;
		if (r > 0)
			total += (size_t)r;
		if (total > 65536)
			return false;
	}
}

/* Read one MPA startup frame exactly into buf (MPA_FRAME_MAX); 0/-1. */
static inline int integ_read_frame(int fd, uint8_t *buf, struct mpa_frame *f)
{
	size_t pd, used;

	if (integ_read(fd, buf, MPA_FRAME_HDR_LEN, INTEG_TIMEOUT_MS, NULL) < 0)
		return -1;
	pd = (size_t)buf[18] << 8 | buf[19];
	if (pd > MPA_PD_MAX || integ_read(fd, buf + MPA_FRAME_HDR_LEN, pd,
					  INTEG_TIMEOUT_MS, NULL) < 0)
		return -1;
	if (mpa_frame_parse(buf, MPA_FRAME_HDR_LEN + pd, f, &used) != WIRE_OK)
		return -1;
	return 0;
}

/* Build f and send it; 0/-1. */
static inline int integ_send_frame(int fd, const struct mpa_frame *f)
{
	uint8_t buf[MPA_FRAME_MAX];
	size_t n;

	if (mpa_frame_build(f, buf, sizeof(buf), &n) != WIRE_OK)
		return -1;
	return integ_write(fd, buf, n);
}

/* ---- the admin API ---- */

/* The value of one "iwcmctl stats" counter, or -1. */
static inline long long integ_stat(const struct harness *h, const char *name)
{
	static struct ipc_msg m;
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	Iwcm__Ctl__Stats *st;
	long long v = -1;
	size_t i;
	int fd = ipc_open_hello(h->admin);

	if (fd < 0)
		return -1;
	if (ipc_send(fd, IPC_CTL_STATS, 7, &e.base, -1) < 0 ||
	    ipc_wait(fd, &m) != 1 || m.hdr.type != IPC_CTL_STATS_REPLY) {
		close(fd);
		return -1;
	}
	st = (Iwcm__Ctl__Stats *)ipc_unpack(&m, &iwcm__ctl__stats__descriptor);
	for (i = 0; st && i < st->n_counters; i++)
		if (!strcmp(st->counters[i]->key, name))
			v = (long long)st->counters[i]->value;
	if (st)
		protobuf_c_message_free_unpacked(&st->base, NULL);
	if (ipc_wait(fd, &m) != 1 || m.hdr.type != IPC_END)
		v = -1;
	close(fd);
	return v;
}

/* How many records an admin listing (IPC_CTL_LISTENERS or _CONNS) has,
 * or -1. */
static inline int integ_count(const struct harness *h, uint16_t type)
{
	static struct ipc_msg m;
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	int fd = ipc_open_hello(h->admin), n = 0;

	if (fd < 0)
		return -1;
	if (ipc_send(fd, type, 8, &e.base, -1) < 0) {
		close(fd);
		return -1;
	}
	for (;;) {
		if (ipc_wait(fd, &m) != 1) {
			n = -1;
			break;
		}
		if (m.hdr.type == IPC_END)
			break;
		n++;
	}
	close(fd);
	return n;
}

/* Wait (at most ms) until a listing has want records; the last count. */
static inline int integ_count_until(const struct harness *h, uint16_t type,
				    int want, int ms)
{
	long long end = harness_ms() + ms;
	int n;

	for (;;) {
		n = integ_count(h, type);
		if (n == want || harness_ms() >= end)
			return n;
		poll(NULL, 0, 5);
	}
}

/* The status reply's count of attached (non-admin) clients, or -1. */
static inline int integ_clients(const struct harness *h)
{
	static struct ipc_msg m;
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	Iwcm__Ctl__Status *st;
	int fd = ipc_open_hello(h->admin), n = -1;

	if (fd < 0)
		return -1;
	if (ipc_send(fd, IPC_CTL_STATUS, 9, &e.base, -1) == 0 &&
	    ipc_wait(fd, &m) == 1 && m.hdr.type == IPC_CTL_STATUS_REPLY) {
		st = (Iwcm__Ctl__Status *)ipc_unpack(
			&m, &iwcm__ctl__status__descriptor);
		if (st) {
			n = (int)st->clients;
			protobuf_c_message_free_unpacked(&st->base, NULL);
		}
	}
	close(fd);
	return n;
}

/* Open descriptors of a process (from /proc), or -1. */
static inline int integ_fds(pid_t pid)
{
	char path[64], cmd[96];
	FILE *fp;
	int n = -1;

	snprintf(path, sizeof(path), "/proc/%ld/fd", (long)pid);
	snprintf(cmd, sizeof(cmd), "ls %s 2>/dev/null | wc -l", path);
	fp = popen(cmd, "r");
	if (!fp)
		return -1;
	if (fscanf(fp, "%d", &n) != 1)
		n = -1;
	pclose(fp);
	return n;
}

/* Occurrences of what in the daemon's log. */
static inline int integ_log_count(const struct harness *h, const char *what)
{
	const char *p = harness_log(h);
	int n = 0;

	while ((p = strstr(p, what))) {
		n++;
		p += strlen(what);
	}
	return n;
}

/* ---- one RDMAP Send as an FPDU (RFC 5044 §4, RFC 5041, RFC 5040) ---- */

#define INTEG_PAYLOAD_MAX 4096

/* The payload octets of a test message: a pattern from seed. */
static inline void integ_pattern(uint8_t *p, size_t len, uint32_t seed)
{
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245u + 12345u;
		p[i] = (uint8_t)(seed >> 16);
	}
}

/*
 * Frame an untagged Send (QN 0, the given MSN, DDP/RDMAP version ver)
 * carrying len pattern octets on direction d (markers, CRC and the
 * stream offset a handoff gave) and write it to fd; d->off advances.
 */
static inline int integ_fpdu_send(int fd, struct mpa_dir *d, uint8_t ver,
				  uint32_t msn, size_t len, uint32_t seed)
{
	static uint8_t ulpdu[DDP_UNTAGGED_HDR_LEN + INTEG_PAYLOAD_MAX];
	static uint8_t wire[2 * INTEG_PAYLOAD_MAX];
	struct rdmap_msg m;
	size_t n, w;

	if (len > INTEG_PAYLOAD_MAX)
		return -1;
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_SEND;
	m.rv = ver;
	m.ddp.dv = ver;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_SEND;
	m.ddp.msn = msn;
	m.ddp.mo = 0;
	if (rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &n) != WIRE_OK)
		return -1;
	integ_pattern(ulpdu + n, len, seed);
	if (mpa_fpdu_build(d, ulpdu, (uint16_t)(n + len), wire, sizeof(wire),
			   &w) != WIRE_OK)
		return -1;
	return integ_write(fd, wire, w);
}

/* What integ_fpdu_recv() found. */
struct integ_rx {
	int done; /* an FPDU was decoded whole */
	int crc_checked;
	int crc_ok;
	int markers_ok;
	unsigned int n_markers;
	int parsed; /* the ULPDU parsed as RDMAP */
	int opcode;
	int version_ok; /* DV and RV as negotiated */
	uint32_t qn, msn;
	int payload_ok; /* length and octets as sent */
	int extra;	/* octets after the FPDU (must be 0) */
	int tagged;
	uint32_t stag; /* tagged: STag and TO */
	uint64_t to;
	uint32_t off_end; /* the stream offset after the FPDU */
	char err[96];
};

/*
 * Decode one FPDU from the stream that starts with the handoff's unread
 * octets and goes on in fd, with the receive state of the handoff
 * (markers, CRC, stream offset off), and check it against what
 * integ_fpdu_send() sent with ver, len and seed.
 */
static inline void integ_fpdu_recv(int fd, const uint8_t *unread,
				   size_t unread_len, bool markers, bool crc,
				   uint32_t off, uint8_t ver, size_t len,
				   uint32_t seed, struct integ_rx *out)
{
	static uint8_t ulpdu[DDP_UNTAGGED_HDR_LEN + INTEG_PAYLOAD_MAX];
	static uint8_t expect[INTEG_PAYLOAD_MAX];
	uint8_t buf[1024];
	const uint8_t *p = unread;
	size_t have = unread_len, ulen = 0, used, want;
	long long end = harness_ms() + INTEG_TIMEOUT_MS;
	struct mpa_rx rx;
	struct mpa_rx_ev ev;
	struct rdmap_msg m;

	memset(out, 0, sizeof(*out));
	mpa_rx_init(&rx, markers, crc, off);
	while (!out->done) {
		if (!have) {
			struct pollfd pf = { fd, POLLIN, 0 };
			long long left = end - harness_ms();
			ssize_t r;

			if (left <= 0 || poll(&pf, 1, (int)left) != 1) {
				snprintf(out->err, sizeof(out->err),
					 "no FPDU within %d ms (%zu octets)",
					 INTEG_TIMEOUT_MS, ulen);
				return;
			}
			/* never read past the FPDU */
			want = mpa_rx_data_room(&rx);
			if (!want)
				want = mpa_rx_ctrl_need(&rx);
			if (!want || want > sizeof(buf))
				want = want ? sizeof(buf) : 1;
			r = read(fd, buf, want);
			if (r <= 0) {
				snprintf(out->err, sizeof(out->err),
					 "socket %s after %zu ULPDU octets",
					 r ? "error" : "closed", ulen);
				return;
			}
			p = buf;
			have = (size_t)r;
		}
		if (mpa_rx_step(&rx, p, have, &used, &ev) != WIRE_OK) {
			snprintf(out->err, sizeof(out->err), "mpa_rx: %s",
				 wire_strerror(ev.err));
			return;
		}
		p += used;
		have -= used;
		if (ev.type == MPA_RX_EV_DATA) {
			if (ulen + ev.len > sizeof(ulpdu)) {
				snprintf(out->err, sizeof(out->err),
					 "ULPDU too long");
				return;
			}
			memcpy(ulpdu + ulen, ev.data, ev.len);
			ulen += ev.len;
		} else if (ev.type == MPA_RX_EV_END) {
			out->done = 1;
			out->crc_checked = ev.crc_checked;
			out->crc_ok = ev.crc_ok;
			out->markers_ok = ev.markers_ok;
			out->n_markers = ev.n_markers;
		}
	}
	out->extra = (int)have;
	out->off_end = rx.dir.off;
	if (rdmap_msg_parse(ulpdu, ulen, &m) != WIRE_OK) {
		snprintf(out->err, sizeof(out->err),
			 "the ULPDU (%zu octets) is not RDMAP", ulen);
		return;
	}
	out->parsed = 1;
	out->opcode = m.opcode;
	out->version_ok = m.rv == ver && m.ddp.dv == ver;
	out->qn = m.ddp.qn;
	out->msn = m.ddp.msn;
	out->tagged = m.ddp.tagged;
	out->stag = m.ddp.stag;
	out->to = m.ddp.to;
	integ_pattern(expect, len, seed);
	out->payload_ok = m.payload_len == len &&
			  memcmp(m.payload, expect, len) == 0;
}

#endif
