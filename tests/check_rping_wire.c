/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcm-rping against rdma-core's rping as Linux siw puts it on the wire
 * (/work/shared/captures/siw-rping-default.pcap): a raw peer written with
 * wire/ only plays rping's client against "iwcm-rping -s" and rping's
 * server against "iwcm-rping -c", through the real iwcmd, sending the
 * capture's MPA frames, advertisements and ping data octet for octet and
 * checking every message iwcm-rping sends: opcode, queue, MSN, STag, TO,
 * size and data.  Then what -V must catch: a wrong Read Response, a wrong
 * echo, an advertisement of the wrong size.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include "common.h"
#include "daemon_harness.h"

#include "ddp.h"
#include "mpa.h"
#include "rdmap.h"

#define RPING_BIN BUILDDIR "/../examples/iwcm-rping"
#define PING_SIZE 64
#define INFO_LEN 16

/* The capture's rping client: start buffer, sink buffer, their STags. */
#define CLI_START_TO 0x00005584ecd37370ull
#define CLI_START_STAG 0x30c85600u
#define CLI_SINK_TO 0x00005584ecd37550ull
#define CLI_SINK_STAG 0xac1d9e00u
/* The capture's rping server: its buffer. */
#define SRV_TO 0x00005585276b2550ull
#define SRV_STAG 0x36c71300u

/* RFC 6581 enhanced Request and Reply, Rev 2, IRD 1, ORD 1 (capture). */
static const char *const CAP_REQ = "4d50412049442052 6571204672616d65"
				   "10020004 00010001";
static const char *const CAP_REP = "4d50412049442052 6570204672616d65"
				   "10020004 00010001";
/* The data of pings 0 and 1 in the capture's Read Responses. */
static const char *const CAP_PING[2] = {
	"72646d612d70696e672d303a20414243 4445464748494a4b4c4d4e4f50515253"
	"5455565758595a5b5c5d5e5f60616263 6465666768696a6b6c6d6e6f70717200",
	"72646d612d70696e672d313a20424344 45464748494a4b4c4d4e4f5051525354"
	"55565758595a5b5c5d5e5f6061626364 65666768696a6b6c6d6e6f7071727300",
};

static struct harness H;
static pid_t rping_pid = -1;
static char rping_err[128];

/* ---- helpers ---- */

static size_t unhex(const char *hex, uint8_t *out, size_t cap)
{
	size_t n = 0;
	int hi = -1;

	for (; *hex; hex++) {
		int v;

		if (*hex == ' ')
			continue;
		v = *hex <= '9' ? *hex - '0' : (*hex | 0x20) - 'a' + 10;
		if (hi < 0) {
			hi = v;
			continue;
		}
		ck_assert_uint_lt(n, cap);
		out[n++] = (uint8_t)(hi << 4 | v);
		hi = -1;
	}
	return n;
}

/* rping's client data for ping n (rping_test_client()). */
static void ping_data(uint8_t *buf, size_t size, int n)
{
	int c = 65 + n % 58;
	int cc = snprintf((char *)buf, size, "rdma-ping-%d: ", n);
	size_t i;

	for (i = (size_t)cc; i < size; i++) {
		buf[i] = (uint8_t)c;
		if (++c > 122)
			c = 65;
	}
	buf[size - 1] = 0;
}

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* struct rping_rdma_info, big-endian. */
static void info_put(uint8_t *p, uint64_t to, uint32_t stag, uint32_t size)
{
	put32(p, (uint32_t)(to >> 32));
	put32(p + 4, (uint32_t)to);
	put32(p + 8, stag);
	put32(p + 12, size);
}

/* ---- the program under test ---- */

/* Start iwcm-rping with args (NULL-ended); its stdout is *out. */
static void rping_start(const char *const *args, int *out)
{
	int p[2];

	snprintf(rping_err, sizeof(rping_err), "%s/rping.err", H.dir);
	ck_assert_int_eq(pipe(p), 0);
	rping_pid = fork();
	ck_assert_int_ge(rping_pid, 0);
	if (rping_pid == 0) {
		const char *argv[24];
		int fd = open(rping_err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		size_t n = 0;

		if (fd < 0 || dup2(fd, 2) < 0 || dup2(p[1], 1) < 0)
			_exit(126);
		close(p[0]);
		setenv("IWCM_SOCKET", H.sock, 1);
		argv[n++] = "iwcm-rping";
		for (; *args && n < 23; args++)
			argv[n++] = *args;
		argv[n] = NULL;
		execv(RPING_BIN, (char *const *)argv);
		_exit(127);
	}
	close(p[1]);
	*out = p[0];
}

/* One line of the program's stdout (without the newline), bounded. */
static void rping_line(int fd, char *buf, size_t cap)
{
	size_t n = 0;

	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		char c;

		ck_assert_msg(poll(&pf, 1, HARNESS_TIMEOUT_MS) == 1,
			      "iwcm-rping printed no line");
		ck_assert_msg(read(fd, &c, 1) == 1, "iwcm-rping: EOF");
		if (c == '\n')
			break;
		ck_assert_uint_lt(n + 1, cap);
		buf[n++] = c;
	}
	buf[n] = '\0';
}

static char *rping_stderr(void)
{
	static char buf[4096];
	int fd = open(rping_err, O_RDONLY);
	ssize_t n = 0;

	if (fd >= 0) {
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
	}
	buf[n > 0 ? n : 0] = '\0';
	return buf;
}

/* The program's exit status, or -1 if it had to be killed. */
static int rping_exit(void)
{
	int st = harness_wait(rping_pid);

	rping_pid = -1;
	if (st == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void teardown(void)
{
	if (rping_pid > 0) {
		kill(rping_pid, SIGKILL);
		waitpid(rping_pid, NULL, 0);
		rping_pid = -1;
	}
	harness_cleanup(&H);
}

/* ---- the raw rping peer ---- */

struct peer {
	int fd;
	struct mpa_dir tx;
	struct mpa_dir rx;
	uint32_t msn_send; /* next MSN of our Sends (QN 0) */
	uint32_t msn_rr;   /* next MSN of our Read Requests (QN 1) */
	uint32_t exp_send; /* next MSN expected on QN 0 */
	uint32_t exp_rr;   /* next MSN expected on QN 1 */
};

static void raw_read(int fd, void *buf, size_t n)
{
	uint8_t *p = buf;
	size_t got = 0;

	while (got < n) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		ck_assert_msg(poll(&pf, 1, HARNESS_TIMEOUT_MS) == 1,
			      "raw peer: %zu of %zu octets: %s", got, n,
			      rping_stderr());
		r = recv(fd, p + got, n - got, 0);
		ck_assert_msg(r > 0, "raw peer: %zu of %zu octets, then %s: %s",
			      got, n, r == 0 ? "EOF" : strerror(errno),
			      rping_stderr());
		got += (size_t)r;
	}
}

static void raw_send(int fd, const void *buf, size_t n)
{
	ck_assert_int_eq(send(fd, buf, n, MSG_NOSIGNAL), (ssize_t)n);
}

/* True once the other end closed (whatever FPDUs come before). */
static bool raw_wait_closed(int fd)
{
	long long end = harness_ms() + HARNESS_TIMEOUT_MS;
	uint8_t b[512];

	while (harness_ms() < end) {
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, 100) != 1)
			continue;
		r = recv(fd, b, sizeof(b), 0);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			return true;
		if (r < 0)
			return false;
	}
	return false;
}

static void frame_read(int fd, uint8_t *buf, struct mpa_frame *f)
{
	size_t pd, used;

	raw_read(fd, buf, MPA_FRAME_HDR_LEN);
	pd = (size_t)buf[18] << 8 | buf[19];
	ck_assert_uint_le(pd, MPA_PD_MAX);
	raw_read(fd, buf + MPA_FRAME_HDR_LEN, pd);
	ck_assert_int_eq(mpa_frame_parse(buf, MPA_FRAME_HDR_LEN + pd, f, &used),
			 WIRE_OK);
}

/* Frame one ULPDU (headers of m, then payload) and send it. */
static void peer_send_msg(struct peer *p, const struct rdmap_msg *m,
			  const void *payload, size_t len)
{
	static uint8_t ulpdu[MPA_ULPDU_MAX];
	static uint8_t fpdu[MPA_ULPDU_MAX + 1024];
	size_t hl, n;

	ck_assert_int_eq(rdmap_hdr_build(m, ulpdu, sizeof(ulpdu), &hl),
			 WIRE_OK);
	ck_assert_uint_le(hl + len, sizeof(ulpdu));
	if (len)
		memcpy(ulpdu + hl, payload, len);
	ck_assert_int_eq(mpa_fpdu_build(&p->tx, ulpdu, (uint16_t)(hl + len),
					fpdu, sizeof(fpdu), &n),
			 WIRE_OK);
	raw_send(p->fd, fpdu, n);
}

static void peer_send_send(struct peer *p, const uint8_t *payload, size_t len)
{
	struct rdmap_msg m;

	memset(&m, 0, sizeof(m));
	m.ddp.last = true;
	m.ddp.dv = DDP_VERSION_IETF;
	m.ddp.qn = DDP_QN_SEND;
	m.ddp.msn = p->msn_send++;
	m.rv = RDMAP_VERSION_IETF;
	m.opcode = RDMAP_SEND;
	peer_send_msg(p, &m, payload, len);
}

static void peer_send_tagged(struct peer *p, uint8_t opcode, uint32_t stag,
			     uint64_t to, const uint8_t *payload, size_t len)
{
	struct rdmap_msg m;

	memset(&m, 0, sizeof(m));
	m.ddp.tagged = true;
	m.ddp.last = true;
	m.ddp.dv = DDP_VERSION_IETF;
	m.ddp.stag = stag;
	m.ddp.to = to;
	m.rv = RDMAP_VERSION_IETF;
	m.opcode = opcode;
	peer_send_msg(p, &m, payload, len);
}

static void peer_send_rr(struct peer *p, const struct rdmap_read_req *rr)
{
	struct rdmap_msg m;

	memset(&m, 0, sizeof(m));
	m.ddp.last = true;
	m.ddp.dv = DDP_VERSION_IETF;
	m.ddp.qn = DDP_QN_READ_REQ;
	m.ddp.msn = p->msn_rr++;
	m.rv = RDMAP_VERSION_IETF;
	m.opcode = RDMAP_READ_REQ;
	m.u.read_req = *rr;
	peer_send_msg(p, &m, NULL, 0);
}

/* Read one FPDU, check CRC and markers; the RDMAP message in *m. */
static void peer_read_msg(struct peer *p, struct rdmap_msg *m)
{
	static uint8_t raw[MPA_ULPDU_MAX + 1024];
	static uint8_t ulpdu[MPA_ULPDU_MAX];
	struct mpa_fpdu_info info;
	size_t lead, total;
	uint16_t ulen;

	lead = p->rx.markers && p->rx.off % MPA_MARKER_INTERVAL == 0 ?
		       MPA_MARKER_LEN :
		       0;
	raw_read(p->fd, raw, lead + MPA_HDR_LEN);
	ulen = (uint16_t)(raw[lead] << 8 | raw[lead + 1]);
	total = mpa_fpdu_wire_len(&p->rx, ulen);
	ck_assert_uint_gt(total, lead + MPA_HDR_LEN);
	raw_read(p->fd, raw + lead + MPA_HDR_LEN, total - lead - MPA_HDR_LEN);
	ck_assert_int_eq(mpa_fpdu_parse(&p->rx, raw, total, &info, ulpdu,
					sizeof(ulpdu)),
			 WIRE_OK);
	ck_assert_msg(info.crc_ok, "bad CRC");
	ck_assert_msg(info.markers_ok, "bad marker");
	p->rx.off += (uint32_t)total;
	ck_assert_int_eq(rdmap_msg_parse(ulpdu, info.ulpdu_len, m), WIRE_OK);
	ck_assert_uint_eq(m->ddp.dv, DDP_VERSION_IETF);
	ck_assert_uint_eq(m->rv, RDMAP_VERSION_IETF);
	ck_assert_msg(m->opcode != RDMAP_TERMINATE,
		      "Terminate layer %u type %u code %u: %s", m->u.term.layer,
		      m->u.term.etype, m->u.term.ecode, rping_stderr());
}

/* A Send of 16 octets on QN 0 with the next MSN, into info. */
static void peer_expect_send(struct peer *p, uint8_t *info)
{
	struct rdmap_msg m;

	peer_read_msg(p, &m);
	ck_assert_uint_eq(m.opcode, RDMAP_SEND);
	ck_assert(!m.ddp.tagged);
	ck_assert(m.ddp.last);
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_SEND);
	ck_assert_uint_eq(m.ddp.msn, p->exp_send);
	ck_assert_uint_eq(m.ddp.mo, 0);
	p->exp_send++;
	ck_assert_uint_eq(m.payload_len, INFO_LEN);
	memcpy(info, m.payload, INFO_LEN);
}

/* A whole tagged message (one or more segments) of opcode into buf. */
static void peer_expect_tagged(struct peer *p, uint8_t opcode, uint32_t stag,
			       uint64_t to, uint8_t *buf, size_t len)
{
	struct rdmap_msg m;
	size_t got = 0;

	do {
		peer_read_msg(p, &m);
		ck_assert_uint_eq(m.opcode, opcode);
		ck_assert(m.ddp.tagged);
		ck_assert_uint_eq(m.ddp.stag, stag);
		ck_assert_uint_eq(m.ddp.to, to + got);
		ck_assert_uint_le(got + m.payload_len, len);
		memcpy(buf + got, m.payload, m.payload_len);
		got += m.payload_len;
	} while (!m.ddp.last);
	ck_assert_uint_eq(got, len);
}

/* TCP to 127.0.0.1:port, no Nagle (as siw sets it). */
static int tcp_connect(int port)
{
	struct sockaddr_in sin;
	int one = 1;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static int tcp_listen(int *port)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(fd, 4), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &sl), 0);
	*port = ntohs(sin.sin_port);
	return fd;
}

static void peer_init(struct peer *p, int fd, bool crc, bool markers_tx,
		      bool markers_rx)
{
	memset(p, 0, sizeof(*p));
	p->fd = fd;
	p->tx.crc = crc;
	p->tx.markers = markers_tx;
	p->rx.crc = crc;
	p->rx.markers = markers_rx;
	p->msn_send = 1;
	p->msn_rr = 1;
	p->exp_send = 1;
	p->exp_rr = 1;
}

/* ---- rping's client against iwcm-rping -s ---- */

/* Start "iwcm-rping -s -p 0 args..."; connect and run the capture's
 * MPA Request; returns the peer. */
static void server_start(struct peer *p, const char *const *extra, int *out)
{
	const char *args[16] = { "-s", "-a", "127.0.0.1", "-p", "0" };
	uint8_t req[64], buf[MPA_FRAME_MAX];
	struct mpa_frame f;
	char line[256];
	size_t n = 5, len;
	int port;

	for (; *extra; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	harness_start(&H, "");
	rping_start(args, out);
	rping_line(*out, line, sizeof(line));
	ck_assert_msg(sscanf(line, "listening on 127.0.0.1 port %d", &port) ==
			      1,
		      "first line: %s", line);

	len = unhex(CAP_REQ, req, sizeof(req));
	p->fd = tcp_connect(port);
	raw_send(p->fd, req, len);
	frame_read(p->fd, buf, &f);
	ck_assert_int_eq(f.type, MPA_FRAME_REP);
	ck_assert_uint_eq(f.flags & MPA_FLAG_R, 0);
	ck_assert_uint_eq(f.rev, 2);
	ck_assert(f.enhanced);
	ck_assert(!f.enh.p2p);
	ck_assert_uint_eq(f.enh.ird, 1);
	ck_assert_uint_eq(f.enh.ord, 1);
	/* RFC 5044 §7.1: CRC when either side asks; M asks for markers. */
	peer_init(p, p->fd, (f.flags & MPA_FLAG_C) != 0,
		  (f.flags & MPA_FLAG_M) != 0, false);
}

/*
 * One ping as rping's client: Send the start buffer, answer the Read
 * Request with data, take the go-ahead, Send the sink buffer, take the
 * RDMA Write and the go-ahead.
 */
static void client_ping(struct peer *p, int n, const uint8_t *data)
{
	uint8_t info[INFO_LEN], got[PING_SIZE];
	struct rdmap_msg m;
	struct rdmap_read_req *rr = &m.u.read_req;
	size_t i;

	info_put(info, CLI_START_TO, CLI_START_STAG, PING_SIZE);
	peer_send_send(p, info, sizeof(info));

	/* RFC 5040 §4.4: a Read Request on QN 1 for the advertised
	 * source, as rping's server issues it. */
	peer_read_msg(p, &m);
	ck_assert_uint_eq(m.opcode, RDMAP_READ_REQ);
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_READ_REQ);
	ck_assert_uint_eq(m.ddp.msn, p->exp_rr);
	p->exp_rr++;
	ck_assert_uint_eq(rr->size, PING_SIZE);
	ck_assert_uint_eq(rr->src_stag, CLI_START_STAG);
	ck_assert_uint_eq(rr->src_to, CLI_START_TO);
	peer_send_tagged(p, RDMAP_READ_RESP, rr->sink_stag, rr->sink_to, data,
			 PING_SIZE);

	peer_expect_send(p, info);
	for (i = 0; i < INFO_LEN; i++)
		ck_assert_uint_eq(info[i], 0);

	info_put(info, CLI_SINK_TO, CLI_SINK_STAG, PING_SIZE);
	peer_send_send(p, info, sizeof(info));
	peer_expect_tagged(p, RDMAP_WRITE, CLI_SINK_STAG, CLI_SINK_TO, got,
			   PING_SIZE);
	ck_assert_msg(memcmp(got, data, PING_SIZE) == 0, "ping %d echo", n);

	peer_expect_send(p, info);
	for (i = 0; i < INFO_LEN; i++)
		ck_assert_uint_eq(info[i], 0);
}

START_TEST(wire_server)
{
	const char *extra[] = { "-C", "3", "-v", "-V", NULL };
	uint8_t data[PING_SIZE], cap[PING_SIZE];
	char line[256], want[256];
	struct peer p;
	int out, n;

	server_start(&p, extra, &out);
	for (n = 0; n < 3; n++) {
		ping_data(data, sizeof(data), n);
		if (n < 2) {
			ck_assert_uint_eq(unhex(CAP_PING[n], cap, sizeof(cap)),
					  PING_SIZE);
			ck_assert(memcmp(cap, data, PING_SIZE) == 0);
		}
		client_ping(&p, n, data);
		rping_line(out, line, sizeof(line));
		snprintf(want, sizeof(want), "server ping data: %s",
			 (const char *)data);
		ck_assert_str_eq(line, want);
	}
	/* rping's client disconnects after its count. */
	shutdown(p.fd, SHUT_WR);
	ck_assert(raw_wait_closed(p.fd));
	close(p.fd);
	ck_assert_msg(rping_exit() == 0, "iwcm-rping -s: %s", rping_stderr());
	close(out);
}
END_TEST

/* -V: the server catches data that is not rping's. */
START_TEST(wire_server_mismatch)
{
	const char *extra[] = { "-V", NULL };
	uint8_t info[INFO_LEN], data[PING_SIZE];
	struct rdmap_msg m;
	struct peer p;
	int out;

	server_start(&p, extra, &out);
	info_put(info, CLI_START_TO, CLI_START_STAG, PING_SIZE);
	peer_send_send(&p, info, sizeof(info));
	peer_read_msg(&p, &m);
	ck_assert_uint_eq(m.opcode, RDMAP_READ_REQ);
	ping_data(data, sizeof(data), 0);
	data[20] ^= 1;
	peer_send_tagged(&p, RDMAP_READ_RESP, m.u.read_req.sink_stag,
			 m.u.read_req.sink_to, data, PING_SIZE);
	ck_assert(raw_wait_closed(p.fd));
	close(p.fd);
	ck_assert_int_eq(rping_exit(), 1);
	ck_assert_ptr_nonnull(strstr(rping_stderr(), "data mismatch!"));
	close(out);
}
END_TEST

/*
 * rping's check of the advertisement's size: 15 octets are "bogus", 17
 * do not fit the 16-octet receive buffer (a local length error).
 */
START_TEST(wire_server_bogus)
{
	const char *extra[] = { NULL };
	static const char *const want[] = {
		"Received bogus data, size 15",
		"cq completion failed",
	};
	uint8_t info[INFO_LEN + 1];
	struct peer p;
	int out;

	server_start(&p, extra, &out);
	memset(info, 0, sizeof(info));
	peer_send_send(&p, info, _i ? INFO_LEN + 1 : INFO_LEN - 1);
	ck_assert(raw_wait_closed(p.fd));
	close(p.fd);
	ck_assert_int_eq(rping_exit(), 1);
	ck_assert_msg(strstr(rping_stderr(), want[_i]), "%s", rping_stderr());
	close(out);
}
END_TEST

/* ---- rping's server against iwcm-rping -c ---- */

/*
 * Start "iwcm-rping -c extra..." against a listener of ours; take its MPA
 * Request (client-server as rping asks, IRD 1 and ORD 1 as in the
 * capture; with p2p_read peer-to-peer offering a Read RTR) and answer
 * with the Reply rep_hex, which has C=0 and M=0.
 */
static void client_start(struct peer *p, const char *const *extra, int *out,
			 int *lfd, const char *rep_hex, bool p2p_read)
{
	const char *args[16] = { "-c", "-a", "127.0.0.1", "-p" };
	uint8_t rep[64], buf[MPA_FRAME_MAX];
	char port_s[16];
	struct mpa_frame f;
	struct pollfd pf;
	size_t n = 5, len;
	int port;

	harness_start(&H, "");
	*lfd = tcp_listen(&port);
	snprintf(port_s, sizeof(port_s), "%d", port);
	args[4] = port_s;
	for (; *extra; extra++)
		args[n++] = *extra;
	args[n] = NULL;
	rping_start(args, out);

	pf.fd = *lfd;
	pf.events = POLLIN;
	ck_assert_msg(poll(&pf, 1, HARNESS_TIMEOUT_MS) == 1,
		      "no connection: %s", rping_stderr());
	p->fd = accept(*lfd, NULL, NULL);
	ck_assert_int_ge(p->fd, 0);
	frame_read(p->fd, buf, &f);
	ck_assert_int_eq(f.type, MPA_FRAME_REQ);
	ck_assert_uint_eq(f.rev, 2);
	ck_assert(f.enhanced);
	ck_assert_int_eq(f.enh.p2p, p2p_read);
	if (p2p_read) {
		ck_assert(f.enh.rtr & MPA_RTR_READ);
	} else {
		ck_assert_uint_eq(f.enh.ird, 1);
		ck_assert_uint_eq(f.enh.ord, 1);
	}
	ck_assert_uint_eq(f.ulp_pd_len, 0);
	len = unhex(rep_hex, rep, sizeof(rep));
	raw_send(p->fd, rep, len);
	peer_init(p, p->fd, (f.flags & MPA_FLAG_C) != 0, false, false);
	ck_assert_uint_eq(f.flags & MPA_FLAG_M, 0);
}

/* One ping as rping's server; echo is what the RDMA Write carries. */
static void server_ping(struct peer *p, int n, const uint8_t *echo)
{
	uint8_t info[INFO_LEN], zero[INFO_LEN], got[PING_SIZE];
	uint8_t data[PING_SIZE];
	struct rdmap_read_req rr;
	uint64_t to;
	uint32_t stag;

	ping_data(data, sizeof(data), n);
	memset(zero, 0, sizeof(zero));
	peer_expect_send(p, info);
	ck_assert_uint_eq(get32(info + 12), PING_SIZE);
	to = (uint64_t)get32(info) << 32 | get32(info + 4);
	stag = get32(info + 8);

	memset(&rr, 0, sizeof(rr));
	rr.sink_stag = SRV_STAG;
	rr.sink_to = SRV_TO;
	rr.size = PING_SIZE;
	rr.src_stag = stag;
	rr.src_to = to;
	peer_send_rr(p, &rr);
	peer_expect_tagged(p, RDMAP_READ_RESP, SRV_STAG, SRV_TO, got,
			   PING_SIZE);
	ck_assert_msg(memcmp(got, data, PING_SIZE) == 0, "ping %d data", n);
	peer_send_send(p, zero, sizeof(zero));

	peer_expect_send(p, info);
	ck_assert_uint_eq(get32(info + 12), PING_SIZE);
	to = (uint64_t)get32(info) << 32 | get32(info + 4);
	stag = get32(info + 8);
	ck_assert_uint_ne(stag, rr.src_stag);
	peer_send_tagged(p, RDMAP_WRITE, stag, to, echo ? echo : data,
			 PING_SIZE);
	peer_send_send(p, zero, sizeof(zero));
}

/* iwcm-rping -c printed ping n's data (-v). */
static void client_line_ok(int out, int n)
{
	uint8_t data[PING_SIZE];
	char line[256], want[256];

	rping_line(out, line, sizeof(line));
	ping_data(data, sizeof(data), n);
	snprintf(want, sizeof(want), "ping data: %s", (const char *)data);
	ck_assert_str_eq(line, want);
}

/* After its -C pings iwcm-rping -c closes and exits 0. */
static void client_end_ok(struct peer *p, int lfd, int out)
{
	ck_assert_msg(raw_wait_closed(p->fd), "client did not close: %s",
		      rping_stderr());
	close(p->fd);
	close(lfd);
	ck_assert_msg(rping_exit() == 0, "iwcm-rping -c: %s", rping_stderr());
	close(out);
}

START_TEST(wire_client)
{
	const char *extra[] = { "-C", "3", "-v", "-V", NULL };
	struct peer p;
	int out, lfd, n;

	client_start(&p, extra, &out, &lfd, CAP_REP, false);
	for (n = 0; n < 3; n++) {
		server_ping(&p, n, NULL);
		client_line_ok(out, n);
	}
	client_end_ok(&p, lfd, out);
}
END_TEST

/* -V: the client catches an echo that differs from what it sent. */
START_TEST(wire_client_mismatch)
{
	const char *extra[] = { "-C", "3", "-V", NULL };
	uint8_t echo[PING_SIZE];
	struct peer p;
	int out, lfd;

	client_start(&p, extra, &out, &lfd, CAP_REP, false);
	ping_data(echo, sizeof(echo), 0);
	echo[PING_SIZE - 2] ^= 1;
	server_ping(&p, 0, echo);
	ck_assert(raw_wait_closed(p.fd));
	close(p.fd);
	close(lfd);
	ck_assert_int_eq(rping_exit(), 1);
	ck_assert_ptr_nonnull(strstr(rping_stderr(), "data mismatch!"));
	close(out);
}
END_TEST

/* ---- the Terminates iwcm-rping -s sends (RFC 5040 §5.4) ---- */

/* Start "iwcm-rping -s -C 1"; connect and negotiate MPA v1 with CRC
 * (RFC 5044 §7.1: C=1, no enhanced word, no RTR). */
static void server_start_v1(struct peer *p, int *out)
{
	const char *args[] = { "-s", "-a", "127.0.0.1", "-p",
			       "0",  "-C", "1",		NULL };
	uint8_t req[MPA_FRAME_MAX], buf[MPA_FRAME_MAX];
	struct mpa_frame f;
	char line[256];
	size_t len;
	int port;

	harness_start(&H, "");
	rping_start(args, out);
	rping_line(*out, line, sizeof(line));
	ck_assert_msg(sscanf(line, "listening on 127.0.0.1 port %d", &port) ==
			      1,
		      "first line: %s", line);
	memset(&f, 0, sizeof(f));
	f.type = MPA_FRAME_REQ;
	f.flags = MPA_FLAG_C;
	f.rev = 1;
	ck_assert_int_eq(mpa_frame_build(&f, req, sizeof(req), &len), WIRE_OK);
	p->fd = tcp_connect(port);
	raw_send(p->fd, req, len);
	frame_read(p->fd, buf, &f);
	ck_assert_int_eq(f.type, MPA_FRAME_REP);
	ck_assert_uint_eq(f.flags & MPA_FLAG_R, 0);
	ck_assert_uint_eq(f.rev, 1);
	ck_assert_uint_ne(f.flags & MPA_FLAG_C, 0);
	peer_init(p, p->fd, true, (f.flags & MPA_FLAG_M) != 0, false);
}

/* Frame one ULPDU and send it, its CRC spoiled if bad_crc. */
static void peer_send_raw(struct peer *p, const struct rdmap_msg *m,
			  const uint8_t *payload, size_t len, bool bad_crc)
{
	uint8_t ulpdu[256], fpdu[512];
	size_t hl, n;

	ck_assert_int_eq(rdmap_hdr_build(m, ulpdu, sizeof(ulpdu), &hl),
			 WIRE_OK);
	ck_assert_uint_le(hl + len, sizeof(ulpdu));
	memcpy(ulpdu + hl, payload, len);
	ck_assert_int_eq(mpa_fpdu_build(&p->tx, ulpdu, (uint16_t)(hl + len),
					fpdu, sizeof(fpdu), &n),
			 WIRE_OK);
	if (bad_crc)
		fpdu[n - 1] ^= 0x5a;
	raw_send(p->fd, fpdu, n);
}

/*
 * The next FPDU must be a Terminate (good CRC, RFC 5040 §4.8) naming
 * layer, etype and ecode, and the connection must end after it with a
 * FIN or a reset, nothing else.
 */
static void peer_expect_term(struct peer *p, uint8_t layer, uint8_t etype,
			     uint8_t ecode)
{
	uint8_t raw[1024], ulpdu[512];
	struct mpa_fpdu_info info;
	struct rdmap_msg m;
	size_t lead, total;
	uint16_t ulen;

	lead = p->rx.markers && p->rx.off % MPA_MARKER_INTERVAL == 0 ?
		       MPA_MARKER_LEN :
		       0;
	raw_read(p->fd, raw, lead + MPA_HDR_LEN);
	ulen = (uint16_t)(raw[lead] << 8 | raw[lead + 1]);
	total = mpa_fpdu_wire_len(&p->rx, ulen);
	ck_assert_uint_le(total, sizeof(raw));
	raw_read(p->fd, raw + lead + MPA_HDR_LEN, total - lead - MPA_HDR_LEN);
	ck_assert_int_eq(mpa_fpdu_parse(&p->rx, raw, total, &info, ulpdu,
					sizeof(ulpdu)),
			 WIRE_OK);
	ck_assert_msg(info.crc_ok, "bad CRC");
	p->rx.off += (uint32_t)total;
	ck_assert_int_eq(rdmap_msg_parse(ulpdu, info.ulpdu_len, &m), WIRE_OK);
	ck_assert_msg(m.opcode == RDMAP_TERMINATE,
		      "opcode %u, not a "
		      "Terminate: %s",
		      m.opcode, rping_stderr());
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_TERMINATE);
	ck_assert_uint_eq(m.ddp.msn, 1);
	ck_assert_msg(m.u.term.layer == layer && m.u.term.etype == etype &&
			      m.u.term.ecode == ecode,
		      "Terminate layer %u type %u code %u, want %u %u %u",
		      m.u.term.layer, m.u.term.etype, m.u.term.ecode, layer,
		      etype, ecode);
	/* Nothing after the Terminate but the end of the stream. */
	for (;;) {
		struct pollfd pf = { p->fd, POLLIN, 0 };
		ssize_t r;

		ck_assert_msg(poll(&pf, 1, HARNESS_TIMEOUT_MS) == 1,
			      "no FIN after the Terminate");
		r = recv(p->fd, raw, sizeof(raw), 0);
		if (r == 0 || (r < 0 && errno == ECONNRESET))
			break;
		ck_assert_msg(r < 0, "%zd octets after the Terminate", r);
	}
}

/*
 * Loop index: (a) an 8-octet Send with a bad CRC, (b) a 30-octet one,
 * longer than rping's 16-octet receive buffer: RFC 5044 §8 code 2, and
 * the headers of an FPDU whose CRC failed decide nothing; (c) the
 * 30-octet Send with a good CRC: RFC 5041 §7.2 untagged "too long";
 * (d) an RDMA Write to an STag never advertised: tagged "invalid STag".
 * However the application tears down after its error, the Terminate
 * leaves first.
 */
START_TEST(wire_server_terminate)
{
	static const struct {
		size_t len;
		bool tagged, bad_crc;
		uint8_t layer, etype, ecode;
	} c[] = {
		{ 8, false, true, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		  MPA_ECODE_CRC },
		{ 30, false, true, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA,
		  MPA_ECODE_CRC },
		{ 30, false, false, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_UNTAGGED,
		  DDP_ECODE_U_TOO_LONG },
		{ 8, true, false, RDMAP_TERM_LAYER_DDP, DDP_ETYPE_TAGGED,
		  DDP_ECODE_T_INVALID_STAG },
	};
	uint8_t payload[32];
	struct rdmap_msg m;
	struct peer p;
	int out;

	server_start_v1(&p, &out);
	memset(payload, 0x41, sizeof(payload));
	memset(&m, 0, sizeof(m));
	m.ddp.last = true;
	m.ddp.dv = DDP_VERSION_IETF;
	m.rv = RDMAP_VERSION_IETF;
	if (c[_i].tagged) {
		m.ddp.tagged = true;
		m.ddp.stag = 0x7e57ab00u;
		m.opcode = RDMAP_WRITE;
	} else {
		m.ddp.qn = DDP_QN_SEND;
		m.ddp.msn = p.msn_send++;
		m.opcode = RDMAP_SEND;
	}
	peer_send_raw(&p, &m, payload, c[_i].len, c[_i].bad_crc);
	peer_expect_term(&p, c[_i].layer, c[_i].etype, c[_i].ecode);
	close(p.fd);
	ck_assert_int_eq(rping_exit(), 1);
	close(out);
}
END_TEST

/*
 * iwcm-rping -c peer-to-peer with a Read RTR (RFC 6581 §9.2): iwcmd hands
 * the connection off right after the RTR, the program's QP takes the
 * zero-length Read Response.  (a) The right Response, then a ping; (b) 8
 * octets instead: the QP's Terminate (RDMAP, remote operation,
 * catastrophic) before its FIN, and iwcm-rping fails.
 */
static const char *const P2P_READ_REP = "4d50412049442052 6570204672616d65"
					"10020004 80014001";

START_TEST(wire_client_read_rtr)
{
	const char *extra[] = { "-C",	 "1",	  "-v",	  "-V",
				"--p2p", "--rtr", "read", NULL };
	static const uint8_t octets[8] = "octets!";
	uint8_t info[INFO_LEN];
	struct rdmap_msg m;
	struct peer p;
	int out, lfd;

	/* IRD 1 with A (peer-to-peer), ORD 1 with D (the Read RTR) */
	client_start(&p, extra, &out, &lfd, P2P_READ_REP, true);
	/* the RTR: a zero-length Read, QN 1 MSN 1 */
	peer_read_msg(&p, &m);
	ck_assert_uint_eq(m.opcode, RDMAP_READ_REQ);
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_READ_REQ);
	ck_assert_uint_eq(m.ddp.msn, 1);
	ck_assert_uint_eq(m.u.read_req.size, 0);
	if (!_i) {
		peer_send_tagged(&p, RDMAP_READ_RESP, m.u.read_req.sink_stag,
				 m.u.read_req.sink_to, NULL, 0);
		server_ping(&p, 0, NULL);
		client_line_ok(out, 0);
		client_end_ok(&p, lfd, out);
		return;
	}
	/* the ULP's first Send may go before the Response */
	peer_expect_send(&p, info);
	peer_send_tagged(&p, RDMAP_READ_RESP, m.u.read_req.sink_stag,
			 m.u.read_req.sink_to, octets, sizeof(octets));
	peer_expect_term(&p, RDMAP_TERM_LAYER_RDMAP, RDMAP_ETYPE_REMOTE_OP,
			 RDMAP_ECODE_CATASTROPHIC_STREAM);
	close(p.fd);
	close(lfd);
	ck_assert_int_eq(rping_exit(), 1);
	close(out);
}
END_TEST

static Suite *rping_wire_suite(void)
{
	Suite *s = suite_create("rping_wire");
	TCase *tc = tcase_create("siw rping");

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, wire_server);
	tcase_add_test(tc, wire_server_mismatch);
	tcase_add_loop_test(tc, wire_server_bogus, 0, 2);
	tcase_add_test(tc, wire_client);
	tcase_add_test(tc, wire_client_mismatch);
	tcase_add_loop_test(tc, wire_client_read_rtr, 0, 2);
	suite_add_tcase(s, tc);
	tc = tcase_create("terminate");
	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_loop_test(tc, wire_server_terminate, 0, 4);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(rping_wire_suite)
