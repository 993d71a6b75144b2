/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcm-rping: rdma-core's rping on libiwcm, with the same options and the
 * same messages on the wire, so that either end can be rping on a Linux
 * siw or hardware iWARP device.  One ping:
 *
 *   client  Send {start buffer: address, STag, size}        -> server
 *   server  RDMA Read of the client's start buffer
 *   server  Send {16 zero octets} ("go ahead")              -> client
 *   client  Send {sink buffer: address, STag, size}         -> server
 *   server  RDMA Write of what it read into the sink buffer
 *   server  Send {16 zero octets} ("go ahead")              -> client
 *
 * The advertisement is rping's struct rping_rdma_info: 16 octets, the
 * buffer address (64 bits), STag (32) and size (32), all big-endian.  The
 * ping data is "rdma-ping-N: " followed by a rotating run of the ASCII
 * characters 'A' (65) to 'z' (122) starting one further at each ping,
 * with a NUL in the last octet.  The client closes the connection after
 * -C pings.
 *
 * The program is a single-threaded poll loop over three descriptors: the
 * context's CM event channel, one completion channel shared by the
 * connections (one CQ each) and the context's asynchronous event fd.
 * Each connection is a small state machine advanced by its completions,
 * so a persistent server (-P) serves its clients concurrently.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <iwcm/iwcm.h>

#define RPING_PORT 7174
#define RPING_SIZE_DEFAULT 64
/*
 * rping's limits: at least sizeof(stringify(INT_MAX)) +
 * sizeof(RPING_MSG_FMT) = sizeof("0x7fffffff") + sizeof("rdma-ping-%d: "),
 * at most its 64 KiB buffer less one.
 */
#define RPING_SIZE_MIN 26
#define RPING_SIZE_MAX 65535
#define RPING_MSG_FMT "rdma-ping-%d: "
/* The rotating pattern runs over 'A' .. 'z'. */
#define RPING_CHAR_FIRST 65
#define RPING_CHAR_LAST 122
/* struct rping_rdma_info: buf (64), rkey (32), size (32), big-endian. */
#define RPING_INFO_LEN 16
#define RPING_SQ_DEPTH 16
#define RPING_RQ_DEPTH 2
#define RPING_BACKLOG 3
/* A graceful close that takes longer than this is cut short. */
#define RPING_CLOSE_MS 5000
/* While a close is pending, the QP state is checked this often. */
#define RPING_CLOSE_POLL_MS 50

enum {
	WR_RECV = 1,
	WR_SEND_SOURCE, /* client: start buffer advertisement */
	WR_SEND_SINK,	/* client: sink buffer advertisement */
	WR_SEND_GO,	/* server: go ahead */
	WR_READ,
	WR_WRITE,
};

struct rping_opts {
	int server; /* 1 server, 0 client, -1 not given */
	struct sockaddr_storage addr;
	bool addr_set;
	struct sockaddr_storage src;
	bool src_set;
	int port;
	int count; /* 0: forever */
	int size;
	int verbose;
	int validate;
	int debug;
	bool persistent;
	bool p2p;
	unsigned int rtr;     /* 0: the daemon's default */
	unsigned int mpa_rev; /* 0: the daemon's default */
	int crc;	      /* -1: the daemon's default */
	bool markers;
	int hold_ms; /* --first-fpdu-delay, -1: the daemon's default */
	bool sctp;   /* DDP over SCTP (RFC 5043) instead of MPA over TCP */
	const char *socket;
};

enum rc_state {
	RC_NEGOTIATING, /* waiting for IWCM_CM_EVENT_ESTABLISHED */
	RC_READ_ADV,	/* server: waiting for the source buffer */
	RC_READ,	/* server: RDMA Read posted */
	RC_WRITE_ADV,	/* server: waiting for the sink buffer */
	RC_WRITE,	/* server: RDMA Write posted */
	RC_SERVED,	/* server: -C pings done, awaiting close */
	RC_GO_SOURCE,	/* client: source advertised, waiting */
	RC_GO_SINK,	/* client: sink advertised, waiting */
	RC_CLOSING,	/* disconnect requested, awaiting the end */
};

/* clang-format off */
static const char *const rc_state_names[] = {
	[RC_NEGOTIATING] = "NEGOTIATING",
	[RC_READ_ADV] = "RDMA_READ_ADV",
	[RC_READ] = "RDMA_READ",
	[RC_WRITE_ADV] = "RDMA_WRITE_ADV",
	[RC_WRITE] = "RDMA_WRITE",
	[RC_SERVED] = "SERVED",
	[RC_GO_SOURCE] = "WAIT_GO_SOURCE",
	[RC_GO_SINK] = "WAIT_GO_SINK",
	[RC_CLOSING] = "CLOSING",
};
/* clang-format on */

struct rping;

/* One connection and everything made for it. */
struct rping_conn {
	struct rping *rp;
	struct rping_conn *next;
	struct iwcm_conn *conn;
	uint64_t id;
	struct iwcm_cq *cq;
	struct iwcm_srq *srq;
	struct iwcm_qp *qp;
	enum rc_state state;
	int ping;	    /* pings completed */
	int async_type;	    /* the asynchronous event that ended the QP */
	bool async_seen;    /* ... acted on */
	uint8_t term_layer; /* its Terminate layer, type and code */
	uint8_t term_etype;
	uint8_t term_ecode;
	bool failed;
	bool ok; /* the end reached so far is a success */
	long long close_deadline;

	uint8_t recv_buf[RPING_INFO_LEN];
	struct iwcm_mr *recv_mr;
	uint8_t send_buf[2][RPING_INFO_LEN];
	struct iwcm_mr *send_mr[2];
	char *rdma_buf; /* Read sink (server), Write sink (client) */
	struct iwcm_mr *rdma_mr;
	char *start_buf; /* client: read source */
	struct iwcm_mr *start_mr;
	char *expect_buf; /* server -V: what the client should send */

	uint64_t remote_addr;
	uint32_t remote_rkey;
	uint32_t remote_len;
	uint32_t read_len;
};

struct rping {
	const struct rping_opts *o;
	struct iwcm_ctx *ctx;
	struct iwcm_conn_param *param;
	struct iwcm_listener *listener;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *channel;
	struct rping_conn *conns;
	int served;   /* connections accepted */
	int failures; /* connections that failed */
	bool cm_gone; /* the daemon went away */
	bool done;
};

static int debug;
static volatile sig_atomic_t stop_signal;

static void rp_async_drain(struct rping *rp);

static void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void dbg(const char *fmt, ...)
{
	va_list ap;

	if (!debug)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

static void err(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("iwcm-rping: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* ---- rping's message and data ---- */

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static void info_build(uint8_t *p, uint64_t addr, uint32_t stag, uint32_t size)
{
	put_be32(p, addr >> 32);
	put_be32(p + 4, (uint32_t)addr);
	put_be32(p + 8, stag);
	put_be32(p + 12, size);
}

static void info_parse(const uint8_t *p, uint64_t *addr, uint32_t *stag,
		       uint32_t *size)
{
	*addr = (uint64_t)get_be32(p) << 32 | get_be32(p + 4);
	*stag = get_be32(p + 8);
	*size = get_be32(p + 12);
}

/* The data of ping number ping, exactly as rping's client writes it. */
static void ping_fill(char *buf, size_t size, int ping)
{
	int c = RPING_CHAR_FIRST +
		ping % (RPING_CHAR_LAST - RPING_CHAR_FIRST + 1);
	int cc = snprintf(buf, size, RPING_MSG_FMT, ping);
	size_t i;

	for (i = cc > 0 ? (size_t)cc : 0; i < size; i++) {
		buf[i] = (char)c;
		if (++c > RPING_CHAR_LAST)
			c = RPING_CHAR_FIRST;
	}
	buf[size - 1] = '\0';
}

/* ---- one connection ---- */

static struct iwcm_mr *rc_reg(struct rping_conn *rc, void *buf, size_t len,
			      unsigned int access, const char *what)
{
	struct iwcm_mr *mr = iwcm_reg_mr(rc->rp->pd, buf, len, access);

	if (!mr)
		err("conn %" PRIu64 ": registering the %s buffer: %s", rc->id,
		    what, strerror(errno));
	return mr;
}

/* Buffers and memory regions, each with only the access rping uses. */
static int rc_setup_buffers(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	size_t size = (size_t)o->size;
	int i;

	rc->recv_mr = rc_reg(rc, rc->recv_buf, sizeof(rc->recv_buf),
			     IWCM_ACCESS_LOCAL_WRITE, "receive");
	if (!rc->recv_mr)
		return -1;
	for (i = 0; i < 2; i++) {
		rc->send_mr[i] = rc_reg(rc, rc->send_buf[i],
					sizeof(rc->send_buf[i]), 0, "send");
		if (!rc->send_mr[i])
			return -1;
	}
	rc->rdma_buf = calloc(1, size);
	if (!rc->rdma_buf) {
		err("out of memory");
		return -1;
	}
	/*
	 * The server's buffer is the sink of its RDMA Read and the source of
	 * its RDMA Write; the client's is the sink of the server's RDMA
	 * Write.  RFC 5042 §5.1: grant no more than that.
	 */
	rc->rdma_mr = rc_reg(rc, rc->rdma_buf, size,
			     IWCM_ACCESS_LOCAL_WRITE |
				     (o->server ? 0 : IWCM_ACCESS_REMOTE_WRITE),
			     "RDMA");
	if (!rc->rdma_mr)
		return -1;
	if (o->server) {
		if (o->validate) {
			rc->expect_buf = malloc(size);
			if (!rc->expect_buf) {
				err("out of memory");
				return -1;
			}
		}
		return 0;
	}
	rc->start_buf = calloc(1, size);
	if (!rc->start_buf) {
		err("out of memory");
		return -1;
	}
	rc->start_mr = rc_reg(rc, rc->start_buf, size, IWCM_ACCESS_REMOTE_READ,
			      "start");
	return rc->start_mr ? 0 : -1;
}

/* What libiwcm knows of a connection (iwcm_conn_query(3)); zero where
 * nothing is known. */
static struct iwcm_conn_attr conn_attr(const struct iwcm_conn *conn)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(conn, &a) < 0)
		a.comp_mask = 0;
	return a;
}

static struct rping_conn *rc_new(struct rping *rp, struct iwcm_conn *conn)
{
	struct rping_conn *rc = calloc(1, sizeof(*rc));

	if (!rc) {
		err("out of memory");
		return NULL;
	}
	rc->rp = rp;
	rc->conn = conn;
	rc->id = conn_attr(conn).id;
	rc->state = RC_NEGOTIATING;
	rc->next = rp->conns;
	rp->conns = rc;
	return rc;
}

static bool rc_is_server(const struct rping_conn *rc)
{
	return rc->rp->o->server == 1;
}

/* Free a connection: QP, CQ, regions, buffers, the iwcm connection. */
static void rc_free(struct rping_conn *rc)
{
	struct rping_conn **pp;
	int i;

	for (pp = &rc->rp->conns; *pp; pp = &(*pp)->next) {
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	}
	if (rc->qp) {
		if (iwcm_destroy_qp(rc->qp) < 0)
			err("conn %" PRIu64 ": iwcm_destroy_qp: %s", rc->id,
			    strerror(errno));
		/* No event of this QP can come later: drop those queued. */
		rp_async_drain(rc->rp);
	}
	if (rc->srq && iwcm_destroy_srq(rc->srq) < 0)
		err("conn %" PRIu64 ": iwcm_destroy_srq: %s", rc->id,
		    strerror(errno));
	if (rc->cq && iwcm_destroy_cq(rc->cq) < 0)
		err("conn %" PRIu64 ": iwcm_destroy_cq: %s", rc->id,
		    strerror(errno));
	iwcm_dereg_mr(rc->recv_mr);
	for (i = 0; i < 2; i++)
		iwcm_dereg_mr(rc->send_mr[i]);
	iwcm_dereg_mr(rc->rdma_mr);
	iwcm_dereg_mr(rc->start_mr);
	free(rc->rdma_buf);
	free(rc->start_buf);
	free(rc->expect_buf);
	iwcm_conn_free(rc->conn);
	free(rc);
}

/*
 * The connection is over: count the outcome, free it, and end the
 * program unless this is a persistent server.
 */
static void rc_end(struct rping_conn *rc)
{
	struct rping *rp = rc->rp;
	bool ok = rc->ok && !rc->failed;

	dbg("conn %" PRIu64 ": %s after %d ping%s", rc->id,
	    ok ? "done" : "failed", rc->ping, rc->ping == 1 ? "" : "s");
	if (!ok)
		rp->failures++;
	rc_free(rc);
	if (!rp->o->persistent)
		rp->done = true;
}

/* Start a graceful close; the end comes with the flush or a timeout. */
static void rc_disconnect(struct rping_conn *rc)
{
	if (rc->state == RC_CLOSING)
		return;
	rc->state = RC_CLOSING;
	rc->close_deadline = now_ms() + RPING_CLOSE_MS;
	if (!rc->qp) {
		rc_end(rc);
		return;
	}
	if (iwcm_qp_disconnect(rc->qp) < 0)
		dbg("conn %" PRIu64 ": iwcm_qp_disconnect: %s", rc->id,
		    strerror(errno));
}

static void rc_fail(struct rping_conn *rc)
{
	rc->failed = true;
	rc_disconnect(rc);
}

/*
 * The QP is closed (flushed, peer closed or Terminate): decide whether
 * the connection ended where rping ends successfully, then free it.
 */
static void rc_closed(struct rping_conn *rc, const char *why)
{
	const struct rping_opts *o = rc->rp->o;

	switch (rc->state) {
	case RC_CLOSING:
		break;
	case RC_READ_ADV:
		/* The client closed between pings, as rping's does. */
		fprintf(stderr, "server DISCONNECT EVENT...\n");
		if (o->count && rc->ping != o->count) {
			err("conn %" PRIu64 ": the client closed after %d of "
			    "%d pings",
			    rc->id, rc->ping, o->count);
			rc->failed = true;
		} else {
			rc->ok = true;
		}
		break;
	case RC_SERVED:
		fprintf(stderr, "server DISCONNECT EVENT...\n");
		rc->ok = true;
		break;
	case RC_GO_SOURCE:
		fprintf(stderr, "client DISCONNECT EVENT...\n");
		if (!o->count && rc->ping > 0) {
			/* Forever: the server ended the session. */
			rc->ok = true;
			break;
		}
		/* FALLTHROUGH */
	default:
		err("conn %" PRIu64 ": connection closed (%s) in state %s "
		    "after %d ping%s",
		    rc->id, why, rc_state_names[rc->state], rc->ping,
		    rc->ping == 1 ? "" : "s");
		rc->failed = true;
		break;
	}
	rc_end(rc);
}

static int rc_post_send(struct rping_conn *rc, struct iwcm_send_wr *wr)
{
	struct iwcm_send_wr *bad = NULL;
	int e = iwcm_post_send(rc->qp, wr, &bad);

	if (e) {
		err("conn %" PRIu64 ": post send error: %s", rc->id,
		    strerror(e));
		rc_fail(rc);
		return -1;
	}
	return 0;
}

static int rc_post_recv(struct rping_conn *rc)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->recv_buf,
		.length = sizeof(rc->recv_buf),
		.lkey = iwcm_mr_get_stag(rc->recv_mr),
	};
	struct iwcm_recv_wr wr = {
		.wr_id = WR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct iwcm_recv_wr *bad = NULL;
	int e = iwcm_post_srq_recv(rc->srq, &wr, &bad);

	if (e) {
		err("conn %" PRIu64 ": post recv error: %s", rc->id,
		    strerror(e));
		rc_fail(rc);
		return -1;
	}
	return 0;
}

/* A Send of one 16-octet rping_rdma_info from send_buf[i]. */
static int rc_send_info(struct rping_conn *rc, int i, uint64_t wr_id)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->send_buf[i],
		.length = RPING_INFO_LEN,
		.lkey = iwcm_mr_get_stag(rc->send_mr[i]),
	};
	struct iwcm_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IWCM_WR_SEND,
		.send_flags = IWCM_SEND_SIGNALED,
	};

	return rc_post_send(rc, &wr);
}

/* An RDMA Read or Write between rdma_buf and the advertised buffer. */
static int rc_rdma(struct rping_conn *rc, int opcode, uint32_t len,
		   uint64_t wr_id)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->rdma_buf,
		.length = len,
		.lkey = iwcm_mr_get_stag(rc->rdma_mr),
	};
	struct iwcm_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IWCM_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = rc->remote_addr;
	wr.wr.rdma.rkey = rc->remote_rkey;
	return rc_post_send(rc, &wr);
}

/* Client: fill the start buffer for the next ping and advertise it. */
static void rc_client_ping(struct rping_conn *rc)
{
	size_t size = (size_t)rc->rp->o->size;

	ping_fill(rc->start_buf, size, rc->ping);
	/* Whatever the sink holds now must not pass for the echo. */
	memset(rc->rdma_buf, 0, size);
	info_build(rc->send_buf[0], (uintptr_t)rc->start_buf,
		   iwcm_mr_get_stag(rc->start_mr), (uint32_t)size);
	dbg("RDMA addr %" PRIxPTR " rkey %" PRIx32 " len %zu",
	    (uintptr_t)rc->start_buf, iwcm_mr_get_stag(rc->start_mr), size);
	rc->state = RC_GO_SOURCE;
	rc_send_info(rc, 0, WR_SEND_SOURCE);
}

/* Client: a go-ahead arrived. */
static void rc_client_recv(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	size_t size = (size_t)o->size;

	switch (rc->state) {
	case RC_GO_SOURCE:
		info_build(rc->send_buf[1], (uintptr_t)rc->rdma_buf,
			   iwcm_mr_get_stag(rc->rdma_mr), (uint32_t)size);
		dbg("RDMA addr %" PRIxPTR " rkey %" PRIx32 " len %zu",
		    (uintptr_t)rc->rdma_buf, iwcm_mr_get_stag(rc->rdma_mr),
		    size);
		rc->state = RC_GO_SINK;
		rc_send_info(rc, 1, WR_SEND_SINK);
		return;
	case RC_GO_SINK:
		break;
	default:
		err("conn %" PRIu64 ": unexpected message from the server in "
		    "state %s",
		    rc->id, rc_state_names[rc->state]);
		rc_fail(rc);
		return;
	}
	/* The server's RDMA Write is placed before its Send (RFC 5040
	 * §5.5), so the echo is complete now. */
	if (o->validate && memcmp(rc->start_buf, rc->rdma_buf, size) != 0) {
		fprintf(stderr, "data mismatch!\n");
		err("conn %" PRIu64 ": ping %d: the echo differs from what was "
		    "sent",
		    rc->id, rc->ping);
		rc_fail(rc);
		return;
	}
	if (o->verbose)
		printf("ping data: %.*s\n", (int)strnlen(rc->rdma_buf, size),
		       rc->rdma_buf);
	rc->ping++;
	if (o->count && rc->ping >= o->count) {
		rc->ok = true;
		rc_disconnect(rc);
		return;
	}
	rc_client_ping(rc);
}

/* Server: an advertisement arrived. */
static void rc_server_recv(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	uint32_t len;

	if (rc->state == RC_SERVED) {
		dbg("conn %" PRIu64 ": ping beyond -C %d, closing", rc->id,
		    o->count);
		rc->ok = true;
		rc_disconnect(rc);
		return;
	}
	if (rc->state != RC_READ_ADV && rc->state != RC_WRITE_ADV) {
		err("conn %" PRIu64 ": unexpected message from the client in "
		    "state %s",
		    rc->id, rc_state_names[rc->state]);
		rc_fail(rc);
		return;
	}
	info_parse(rc->recv_buf, &rc->remote_addr, &rc->remote_rkey,
		   &rc->remote_len);
	dbg("Received rkey %" PRIx32 " addr %" PRIx64 " len %" PRIu32
	    " from peer",
	    rc->remote_rkey, rc->remote_addr, rc->remote_len);

	if (rc->state == RC_READ_ADV) {
		if (rc->remote_len == 0 || rc->remote_len > (uint32_t)o->size) {
			err("conn %" PRIu64 ": the client advertised %" PRIu32
			    " octets, this server takes 1 to %d (-S)",
			    rc->id, rc->remote_len, o->size);
			rc_fail(rc);
			return;
		}
		rc->read_len = rc->remote_len;
		rc->state = RC_READ;
		if (rc_rdma(rc, IWCM_WR_RDMA_READ, rc->read_len, WR_READ) == 0)
			dbg("server posted rdma read req");
		return;
	}

	dbg("server received sink adv");
	/* rping writes back strlen() + 1 octets of what it read. */
	len = (uint32_t)strnlen(rc->rdma_buf, rc->read_len) + 1;
	if (len > rc->read_len)
		len = rc->read_len;
	if (len > rc->remote_len) {
		err("conn %" PRIu64 ": the client's sink holds %" PRIu32
		    " octets, the echo needs %" PRIu32,
		    rc->id, rc->remote_len, len);
		rc_fail(rc);
		return;
	}
	dbg("rdma write from lkey %" PRIx32 " laddr %" PRIxPTR " len %" PRIu32,
	    iwcm_mr_get_stag(rc->rdma_mr), (uintptr_t)rc->rdma_buf, len);
	rc->state = RC_WRITE;
	rc_rdma(rc, IWCM_WR_RDMA_WRITE, len, WR_WRITE);
}

/* Server: the RDMA Read of the client's start buffer completed. */
static void rc_server_read_done(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;

	dbg("server received read complete");
	if (o->validate) {
		ping_fill(rc->expect_buf, rc->read_len, rc->ping);
		if (memcmp(rc->expect_buf, rc->rdma_buf, rc->read_len) != 0) {
			fprintf(stderr, "data mismatch!\n");
			err("conn %" PRIu64 ": ping %d: the client's data is "
			    "not rping's",
			    rc->id, rc->ping);
			rc_fail(rc);
			return;
		}
	}
	if (o->verbose)
		printf("server ping data: %.*s\n",
		       (int)strnlen(rc->rdma_buf, rc->read_len), rc->rdma_buf);
	rc->state = RC_WRITE_ADV;
	if (rc_send_info(rc, 0, WR_SEND_GO) == 0)
		dbg("server posted go ahead");
}

/* Server: the RDMA Write of the echo completed. */
static void rc_server_write_done(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;

	dbg("server rdma write complete");
	rc->ping++;
	rc->state = o->count && rc->ping >= o->count ? RC_SERVED : RC_READ_ADV;
	if (rc_send_info(rc, 0, WR_SEND_GO) == 0)
		dbg("server posted go ahead");
}

static void rc_wc_error(struct rping_conn *rc, const struct iwcm_wc *wc)
{
	if (rc->state == RC_CLOSING) {
		dbg("conn %" PRIu64 ": completion status %d while closing",
		    rc->id, wc->status);
		return;
	}
	if (wc->vendor_err)
		err("conn %" PRIu64 ": cq completion failed status %d (%s), "
		    "Terminate layer %" PRIu32 " type %" PRIu32
		    " code %" PRIu32,
		    rc->id, wc->status, iwcm_wc_status_str(wc->status),
		    wc->vendor_err >> 16, (wc->vendor_err >> 8) & 0xff,
		    wc->vendor_err & 0xff);
	else
		err("conn %" PRIu64 ": cq completion failed status %d (%s)",
		    rc->id, wc->status, iwcm_wc_status_str(wc->status));
	rc_fail(rc);
}

/*
 * One completion.  Returns false when the connection was freed (the
 * caller must not touch it again).
 */
static bool rc_handle_wc(struct rping_conn *rc, const struct iwcm_wc *wc)
{
	if (wc->status == IWCM_WC_WR_FLUSH_ERR) {
		/* The QP went to error: the connection is over. */
		rc_closed(rc, "flushed");
		return false;
	}
	if (wc->status != IWCM_WC_SUCCESS) {
		rc_wc_error(rc, wc);
		return true;
	}
	switch (wc->opcode) {
	case IWCM_WC_SEND:
		dbg("send completion");
		break;
	case IWCM_WC_RDMA_READ:
		dbg("rdma read completion");
		if (rc->state == RC_READ)
			rc_server_read_done(rc);
		break;
	case IWCM_WC_RDMA_WRITE:
		dbg("rdma write completion");
		if (rc->state == RC_WRITE)
			rc_server_write_done(rc);
		break;
	case IWCM_WC_RECV:
		dbg("recv completion");
		if (rc->state == RC_CLOSING)
			break;
		if (wc->byte_len != RPING_INFO_LEN) {
			err("conn %" PRIu64
			    ": Received bogus data, size %" PRIu32,
			    rc->id, wc->byte_len);
			rc_fail(rc);
			break;
		}
		if (rc_post_recv(rc) < 0)
			break;
		if (rc_is_server(rc))
			rc_server_recv(rc);
		else
			rc_client_recv(rc);
		break;
	default:
		err("conn %" PRIu64 ": unexpected completion opcode %d", rc->id,
		    wc->opcode);
		rc_fail(rc);
		break;
	}
	return true;
}

/* Poll a connection's CQ dry; false when the connection was freed. */
static bool rc_poll(struct rping_conn *rc)
{
	struct iwcm_wc wc[4];
	int i, n;

	while ((n = iwcm_poll_cq(rc->cq, 4, wc)) > 0) {
		for (i = 0; i < n; i++)
			if (!rc_handle_wc(rc, &wc[i]))
				return false;
	}
	if (n < 0) {
		err("conn %" PRIu64 ": iwcm_poll_cq: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
		return false;
	}
	return true;
}

static const char *rtr_name(int rtr)
{
	switch (rtr) {
	case IWCM_RTR_SEND:
		return "send";
	case IWCM_RTR_WRITE:
		return "write";
	case IWCM_RTR_READ:
		return "read";
	default:
		return "none";
	}
}

/* -d: what was negotiated for the connection. */
static void rc_print_params(const struct rping_conn *rc)
{
	struct iwcm_qp_attr a;
	struct iwcm_conn_attr ca;
	char model[40];

	if (!debug)
		return;
	memset(&a, 0, sizeof(a));
	if (iwcm_query_qp(rc->qp, &a) < 0) {
		dbg("conn %" PRIu64 ": iwcm_query_qp: %s", rc->id,
		    strerror(errno));
		return;
	}
	ca = conn_attr(rc->conn);
	if (ca.p2p)
		snprintf(model, sizeof(model), "peer-to-peer (RTR %s)",
			 rtr_name(ca.rtr_type));
	else
		snprintf(model, sizeof(model), "client-server");
	dbg("conn %" PRIu64 ": MPA rev %d, %s, CRC %s, markers tx %s rx %s, "
	    "IRD %" PRIu32 " ORD %" PRIu32 ", RDMAP version %" PRIu32
	    ", over %s",
	    rc->id, (int)ca.mpa_rev, model, a.crc ? "on" : "off",
	    a.markers_tx ? "on" : "off", a.markers_rx ? "on" : "off", a.ird,
	    a.ord, a.rdmap_version,
	    ca.transport == IWCM_TRANSPORT_SCTP ? "SCTP" : "TCP");
}

/*
 * ESTABLISHED: CQ, a receive, the QP on the connection, the first ping.
 *
 * iwcm_create_qp() starts moving data at once, and the peer may Send as
 * soon as it is established (rping's client does): a Send that finds no
 * receive buffer is fatal (RFC 5041 §7.2, "no buffer available").  rping
 * posts its receive before it connects; here the receive goes to a
 * shared receive queue of the connection's own, which exists before the
 * QP does.
 */
static void rc_established(struct rping_conn *rc)
{
	struct rping *rp = rc->rp;
	struct iwcm_qp_init_attr attr;
	struct iwcm_srq_init_attr sa = {
		.max_wr = RPING_RQ_DEPTH,
		.max_sge = 1,
	};
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	const char *what;

	if (rc_setup_buffers(rc) < 0)
		goto fail;
	what = "iwcm_create_cq";
	rc->cq = iwcm_create_cq(rp->ctx, RPING_SQ_DEPTH * 2, rc, rp->channel);
	if (!rc->cq)
		goto fail_errno;
	what = "iwcm_req_notify_cq";
	if (iwcm_req_notify_cq(rc->cq, 0) < 0)
		goto fail_errno;
	what = "iwcm_create_srq";
	rc->srq = iwcm_create_srq(rp->pd, &sa);
	if (!rc->srq)
		goto fail_errno;
	if (rc_post_recv(rc) < 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = rc->cq;
	attr.recv_cq = rc->cq;
	attr.srq = rc->srq;
	attr.max_send_wr = RPING_SQ_DEPTH;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.qp_context = rc;
	what = "iwcm_create_qp";
	rc->qp = iwcm_create_qp(rc->conn, rp->pd, &attr);
	if (!rc->qp)
		goto fail_errno;
	rc_print_params(rc);
	if (!rc_is_server(rc)) {
		rc_client_ping(rc);
		return;
	}
	if (iwcm_query_qp(rc->qp, &qa) == 0 && qa.ord == 0) {
		err("conn %" PRIu64 ": the connection allows no RDMA Read "
		    "(ORD 0)",
		    rc->id);
		rc_fail(rc);
		return;
	}
	rc->state = RC_READ_ADV;
	return;

fail_errno:
	err("conn %" PRIu64 ": %s: %s", rc->id, what, strerror(errno));
fail:
	rc->failed = true;
	rc_end(rc);
}

/* ---- the program ---- */

static struct rping_conn *rp_find_conn(struct rping *rp,
				       const struct iwcm_conn *conn)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc->conn == conn)
			return rc;
	return NULL;
}

static struct rping_conn *rp_find_cq(struct rping *rp, void *ctx,
				     const struct iwcm_cq *cq)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc == ctx && rc->cq == cq)
			return rc;
	return NULL;
}

/* A client connects to one of our listeners. */
static void rp_request(struct rping *rp, struct iwcm_conn *conn)
{
	struct rping_conn *rc;

	if (!rp->o->persistent && rp->served > 0) {
		/* rping without -P serves one connection. */
		dbg("conn %" PRIu64 ": busy, rejecting", conn_attr(conn).id);
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		return;
	}
	rc = rc_new(rp, conn);
	if (!rc) {
		iwcm_reject(conn, NULL, 0);
		iwcm_conn_free(conn);
		return;
	}
	rp->served++;
	dbg("accepting client connection request");
	if (iwcm_accept(conn, rp->param) < 0) {
		err("conn %" PRIu64 ": iwcm_accept: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
	}
}

static const char *conn_reason(const struct iwcm_conn *conn)
{
	const struct iwcm_conn_attr a = conn_attr(conn);

	return a.reason_text ? a.reason_text : iwcm_status_str(a.reason);
}

/* Drain the CM event channel. */
static void rp_cm_events(struct rping *rp)
{
	struct iwcm_event *ev;

	while (!rp->done && iwcm_get_event(rp->ctx, &ev) == 0) {
		enum iwcm_cm_event_type type = iwcm_event_get_type(ev);
		struct iwcm_conn *conn = iwcm_event_get_conn(ev);
		struct rping_conn *rc;

		dbg("cma_event type %s conn %" PRIu64, iwcm_cm_event_str(type),
		    conn_attr(conn).id);
		iwcm_ack_event(ev);
		if (type == IWCM_CM_EVENT_CONNECT_REQUEST) {
			rp_request(rp, conn);
			continue;
		}
		rc = rp_find_conn(rp, conn);
		if (!rc)
			continue;
		if (type == IWCM_CM_EVENT_ESTABLISHED) {
			dbg("ESTABLISHED");
			rc_established(rc);
			continue;
		}
		err("cma event %s, error %d: %s", iwcm_cm_event_str(type),
		    (int)conn_attr(conn).reason, conn_reason(conn));
		rc->failed = true;
		rc_end(rc);
	}
	if (rp->done || errno == EAGAIN || errno == EINTR)
		return;
	if (errno == ECONNRESET) {
		/* Established connections carry on without the daemon. */
		err("the daemon went away");
		rp->cm_gone = true;
		if (!rp->conns) {
			rp->failures++;
			rp->done = true;
		}
		return;
	}
	err("iwcm_get_event: %s", strerror(errno));
	rp->failures++;
	rp->done = true;
}

/* One completion channel event: poll that connection's CQ. */
static void rp_cq_event(struct rping *rp)
{
	struct iwcm_cq *cq;
	void *ctx;
	struct rping_conn *rc;

	if (iwcm_get_cq_event(rp->channel, &cq, &ctx) < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			err("iwcm_get_cq_event: %s", strerror(errno));
			rp->failures++;
			rp->done = true;
		}
		return;
	}
	rc = rp_find_cq(rp, ctx, cq);
	if (!rc)
		return; /* a connection already freed */
	iwcm_ack_cq_events(cq, 1);
	if (iwcm_req_notify_cq(cq, 0) < 0) {
		err("conn %" PRIu64 ": iwcm_req_notify_cq: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
		return;
	}
	rc_poll(rc);
}

/*
 * Take every queued asynchronous event and note it on its connection, to
 * be acted on by rp_async_act().  A connection being freed is no longer
 * in the list, so an event of its QP is dropped; only pointers are
 * compared, never followed.
 */
static void rp_async_drain(struct rping *rp)
{
	struct iwcm_async_event ev;
	struct rping_conn *rc;

	while (iwcm_get_async_event(rp->ctx, &ev) == 0) {
		if (ev.type == IWCM_EVENT_CQ_ERR) {
			err("a completion queue overflowed");
			rp->failures++;
			rp->done = true;
			continue;
		}
		for (rc = rp->conns; rc; rc = rc->next)
			if (rc->qp && rc->qp == ev.qp)
				break;
		if (!rc || rc->async_type)
			continue;
		rc->async_type = ev.type;
		rc->term_layer = ev.term_layer;
		rc->term_etype = ev.term_etype;
		rc->term_ecode = ev.term_ecode;
	}
	if (errno != EAGAIN && errno != EINTR) {
		err("iwcm_get_async_event: %s", strerror(errno));
		rp->failures++;
		rp->done = true;
	}
}

/* A QP closed, failed or got a Terminate: end its connection. */
static void rc_async(struct rping_conn *rc)
{
	const char *why = "peer closed";

	rc->async_seen = true;
	if (rc->async_type == IWCM_EVENT_QP_TERMINATE) {
		why = "Terminate";
		if (rc->state != RC_CLOSING) {
			err("conn %" PRIu64 ": the peer sent a Terminate: "
			    "layer %u type %u code %u",
			    rc->id, rc->term_layer, rc->term_etype,
			    rc->term_ecode);
			rc->failed = true;
		}
	} else if (rc->async_type == IWCM_EVENT_QP_FATAL) {
		why = "fatal error";
		if (rc->state != RC_CLOSING) {
			err("conn %" PRIu64 ": QP fatal error: layer %u type "
			    "%u code %u",
			    rc->id, rc->term_layer, rc->term_etype,
			    rc->term_ecode);
			rc->failed = true;
		}
	}
	dbg("conn %" PRIu64 ": async event %d (%s)", rc->id, rc->async_type,
	    why);
	/* Completions that came before the close still count. */
	if (rc_poll(rc))
		rc_closed(rc, why);
}

/* Act on the events rp_async_drain() noted. */
static void rp_async_act(struct rping *rp)
{
	struct rping_conn *rc;

	for (rc = rp->conns; rc && !rp->done;) {
		if (!rc->async_type || rc->async_seen) {
			rc = rc->next;
			continue;
		}
		rc_async(rc);
		/* The list may have changed: start over. */
		rc = rp->conns;
	}
}

/* Closing connections whose QP reached ERROR, or whose time is up. */
static void rp_check_closing(struct rping *rp)
{
	struct rping_conn *rc;
	struct iwcm_qp_attr a = { .comp_mask = 0 };
	long long now = now_ms();

	for (rc = rp->conns; rc && !rp->done;) {
		if (rc->state != RC_CLOSING ||
		    (rc->qp && iwcm_query_qp(rc->qp, &a) == 0 &&
		     a.state != IWCM_QPS_ERROR && now < rc->close_deadline)) {
			rc = rc->next;
			continue;
		}
		if (now >= rc->close_deadline)
			dbg("conn %" PRIu64 ": close timed out", rc->id);
		if (rc_poll(rc))
			rc_end(rc);
		rc = rp->conns;
	}
}

static int rp_poll_timeout(const struct rping *rp)
{
	const struct rping_conn *rc;

	for (rc = rp->conns; rc; rc = rc->next)
		if (rc->state == RC_CLOSING)
			return RPING_CLOSE_POLL_MS;
	return -1;
}

static int rp_loop(struct rping *rp)
{
	struct pollfd pfd[3];
	int n;

	pfd[0].fd = iwcm_ctx_get_fd(rp->ctx);
	pfd[1].fd = iwcm_comp_channel_get_fd(rp->channel);
	pfd[2].fd = iwcm_ctx_get_async_fd(rp->ctx);
	if (pfd[0].fd < 0 || pfd[1].fd < 0 || pfd[2].fd < 0) {
		err("event descriptors: %s", strerror(errno));
		return -1;
	}
	while (!rp->done) {
		pfd[0].events = rp->cm_gone ? 0 : POLLIN;
		pfd[1].events = POLLIN;
		pfd[2].events = POLLIN;
		n = poll(pfd, 3, rp_poll_timeout(rp));
		if (stop_signal) {
			dbg("signal %d", (int)stop_signal);
			break;
		}
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err("poll: %s", strerror(errno));
			return -1;
		}
		if (pfd[1].revents)
			rp_cq_event(rp);
		if (!rp->done && pfd[2].revents)
			rp_async_drain(rp);
		if (!rp->done)
			rp_async_act(rp);
		if (!rp->done && pfd[0].revents)
			rp_cm_events(rp);
		if (!rp->done)
			rp_check_closing(rp);
	}
	return 0;
}

static struct iwcm_conn_param *rp_param(const struct rping_opts *o)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	int bad = 0;

	if (!p)
		return NULL;
	/* rping: responder_resources = initiator_depth = 1. */
	bad |= iwcm_conn_param_set_ird(p, 1);
	bad |= iwcm_conn_param_set_ord(p, 1);
	if (o->p2p)
		bad |= iwcm_conn_param_set_p2p(p, true);
	if (o->rtr)
		bad |= iwcm_conn_param_set_rtr_types(p, o->rtr);
	if (o->mpa_rev)
		bad |= iwcm_conn_param_set_mpa_rev(p, o->mpa_rev);
	if (o->crc >= 0)
		bad |= iwcm_conn_param_set_crc(p, o->crc ? IWCM_CRC_REQUEST :
							   IWCM_CRC_PREFER_OFF);
	if (o->markers)
		bad |= iwcm_conn_param_set_markers(p, true);
	if (o->hold_ms >= 0)
		bad |= iwcm_conn_param_set_first_fpdu_delay(
			p, (unsigned int)o->hold_ms);
	if (o->sctp)
		bad |= iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP);
	if (bad) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

static void set_port(struct sockaddr_storage *ss, int port)
{
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons((uint16_t)port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons((uint16_t)port);
}

static int addr_port(const struct sockaddr *sa)
{
	if (!sa)
		return -1;
	if (sa->sa_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

static int rp_start_server(struct rping *rp)
{
	const struct rping_opts *o = rp->o;
	char host[NI_MAXHOST];

	rp->listener = iwcm_listen(rp->ctx, (struct sockaddr *)&o->addr, NULL,
				   rp->param, RPING_BACKLOG);
	if (!rp->listener) {
		err("listen on port %d: %s", o->port, strerror(errno));
		return -1;
	}
	if (getnameinfo((struct sockaddr *)&o->addr, sizeof(o->addr), host,
			sizeof(host), NULL, 0, NI_NUMERICHOST) != 0)
		snprintf(host, sizeof(host), "?");
	/* With -p 0 the port is only known now: always tell it. */
	if (o->port == 0 || debug) {
		printf("listening on %s port %d\n", host,
		       iwcm_listener_get_port(rp->listener));
		fflush(stdout);
	}
	return 0;
}

static int rp_start_client(struct rping *rp)
{
	const struct rping_opts *o = rp->o;
	struct iwcm_conn *conn;

	conn = iwcm_connect(rp->ctx, (struct sockaddr *)&o->addr,
			    o->src_set ? (struct sockaddr *)&o->src : NULL,
			    rp->param);
	if (!conn) {
		err("connect: %s", strerror(errno));
		return -1;
	}
	if (!rc_new(rp, conn)) {
		iwcm_conn_free(conn);
		return -1;
	}
	dbg("connecting to port %d", addr_port((struct sockaddr *)&o->addr));
	return 0;
}

static int rp_run(const struct rping_opts *o)
{
	struct rping rp;
	int ret = -1;

	memset(&rp, 0, sizeof(rp));
	rp.o = o;
	rp.ctx = o->socket ? iwcm_ctx_open_path(o->socket, IWCM_CTX_NONBLOCK) :
			     iwcm_ctx_open(IWCM_CTX_NONBLOCK);
	if (!rp.ctx) {
		err("cannot reach iwcmd at %s: %s",
		    o->socket		  ? o->socket :
		    getenv("IWCM_SOCKET") ? getenv("IWCM_SOCKET") :
					    "/run/iwcm/iwcmd.sock",
		    strerror(errno));
		return -1;
	}
	rp.param = rp_param(o);
	if (!rp.param) {
		err("connection parameters: %s", strerror(errno));
		goto out;
	}
	rp.pd = iwcm_alloc_pd(rp.ctx);
	if (!rp.pd) {
		err("iwcm_alloc_pd: %s", strerror(errno));
		goto out;
	}
	rp.channel = iwcm_create_comp_channel(rp.ctx);
	if (!rp.channel) {
		err("iwcm_create_comp_channel: %s", strerror(errno));
		goto out;
	}
	if ((o->server ? rp_start_server(&rp) : rp_start_client(&rp)) < 0)
		goto out;
	if (rp_loop(&rp) < 0)
		goto out;
	ret = rp.failures || stop_signal ? -1 : 0;
	if (stop_signal && o->persistent && !rp.failures)
		ret = 0;
out:
	while (rp.conns) {
		rp.conns->failed = true;
		rc_free(rp.conns);
	}
	iwcm_listener_close(rp.listener);
	if (rp.channel)
		iwcm_destroy_comp_channel(rp.channel);
	if (rp.pd)
		iwcm_dealloc_pd(rp.pd);
	iwcm_conn_param_free(rp.param);
	iwcm_ctx_close(rp.ctx);
	return ret;
}

/* ---- options ---- */

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: iwcm-rping -s [-vVdP] [-S size] [-C count] [-a addr] "
		"[-p port] [iwcm options]\n"
		"       iwcm-rping -c [-vVd] [-S size] [-C count] [-I addr] "
		"-a addr [-p port] [iwcm options]\n"
		"\t-c\t\tclient side\n"
		"\t-I addr\t\tsource address to bind to for the client\n"
		"\t-s\t\tserver side; to bind to any IPv6 address use -a ::0\n"
		"\t-v\t\tdisplay ping data to stdout\n"
		"\t-V\t\tvalidate ping data\n"
		"\t-d\t\tdebug printfs\n"
		"\t-S size\t\tping data size (%d to %d, default %d)\n"
		"\t-C count\tping count times (default 0: forever)\n"
		"\t-a addr\t\taddress\n"
		"\t-p port\t\tport (default %d; 0 with -s: any, printed)\n"
		"\t-P\t\tpersistent server mode allowing multiple "
		"connections\n"
		"\t-q\t\taccepted for compatibility (no effect)\n"
		"iwcm options:\n"
		"\t--socket PATH\tiwcmd's client socket (default "
		"$IWCM_SOCKET)\n"
		"\t--p2p\t\tpeer-to-peer connection model (RFC 6581)\n"
		"\t--rtr LIST\tRTR types, from write,read,send\n"
		"\t--mpa-rev N\tMPA revision to ask for: 1 or 2\n"
		"\t--crc on|off\task for MPA CRCs (on) or prefer none (off)\n"
		"\t--markers\task the peer for MPA markers\n"
		"\t--first-fpdu-delay MS\n\t\t\tclient: hold the first FPDU "
		"after the Reply (0 to %d)\n"
		"\t--transport tcp|sctp\tMPA over TCP (default) or DDP over "
		"SCTP\n"
		"\t-h, --help\tthis help\n"
		"\t--version\tthe version\n",
		RPING_SIZE_MIN, RPING_SIZE_MAX, RPING_SIZE_DEFAULT, RPING_PORT,
		IWCM_FIRST_FPDU_DELAY_MAX);
}

/* A decimal integer from lo to hi, or -1 with a message. */
static int parse_int(const char *s, const char *what, long lo, long hi,
		     int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		err("invalid %s '%s' (valid range is %ld to %ld)", what, s, lo,
		    hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	int ret;

	if (!*s) {
		err("invalid address '': empty");
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(s, NULL, &hints, &res);
	if (ret) {
		err("invalid address '%s': %s", s, gai_strerror(ret));
		return -1;
	}
	if (res->ai_family != AF_INET && res->ai_family != AF_INET6) {
		err("invalid address '%s': not IPv4 or IPv6", s);
		freeaddrinfo(res);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static int parse_rtr(const char *s, unsigned int *out)
{
	char buf[64];
	char *tok, *save = NULL;

	*out = 0;
	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "write") == 0)
			*out |= IWCM_RTR_WRITE;
		else if (strcmp(tok, "read") == 0)
			*out |= IWCM_RTR_READ;
		else if (strcmp(tok, "send") == 0)
			*out |= IWCM_RTR_SEND;
		else
			goto bad;
	}
	if (*out)
		return 0;
bad:
	err("invalid --rtr '%s' (a list of write, read, send)", s);
	return -1;
}

enum {
	OPT_SOCKET = 256,
	OPT_P2P,
	OPT_RTR,
	OPT_MPA_REV,
	OPT_CRC,
	OPT_MARKERS,
	OPT_HOLD,
	OPT_TRANSPORT,
	OPT_VERSION,
};

static const struct option longopts[] = {
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "p2p", no_argument, NULL, OPT_P2P },
	{ "rtr", required_argument, NULL, OPT_RTR },
	{ "mpa-rev", required_argument, NULL, OPT_MPA_REV },
	{ "crc", required_argument, NULL, OPT_CRC },
	{ "markers", no_argument, NULL, OPT_MARKERS },
	{ "first-fpdu-delay", required_argument, NULL, OPT_HOLD },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* 0, -1 after a message (exit 2), or 1 after --help (exit 0). */
static int parse_args(int argc, char **argv, struct rping_opts *o)
{
	int ch, v;

	memset(o, 0, sizeof(*o));
	o->server = -1;
	o->port = RPING_PORT;
	o->size = RPING_SIZE_DEFAULT;
	o->crc = -1;
	o->hold_ms = -1;
	o->addr.ss_family = AF_INET;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":a:I:Pp:C:S:scvVdqh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (parse_addr(optarg, &o->addr) < 0)
				return -1;
			o->addr_set = true;
			break;
		case 'I':
			if (parse_addr(optarg, &o->src) < 0)
				return -1;
			o->src_set = true;
			break;
		case 'P':
			o->persistent = true;
			break;
		case 'p':
			if (parse_int(optarg, "port", 0, 65535, &o->port) < 0)
				return -1;
			break;
		case 's':
			o->server = 1;
			break;
		case 'c':
			o->server = 0;
			break;
		case 'S':
			if (parse_int(optarg, "size", RPING_SIZE_MIN,
				      RPING_SIZE_MAX, &o->size) < 0)
				return -1;
			break;
		case 'C':
			if (parse_int(optarg, "count", 0, INT_MAX, &o->count) <
			    0)
				return -1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			o->validate++;
			break;
		case 'd':
			o->debug++;
			break;
		case 'q':
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("iwcm-rping %s\n", PACKAGE_VERSION);
			return 1;
		case OPT_SOCKET:
			o->socket = optarg;
			break;
		case OPT_P2P:
			o->p2p = true;
			break;
		case OPT_RTR:
			if (parse_rtr(optarg, &o->rtr) < 0)
				return -1;
			break;
		case OPT_MPA_REV:
			if (parse_int(optarg, "MPA revision", 1, 2, &v) < 0)
				return -1;
			o->mpa_rev = (unsigned int)v;
			break;
		case OPT_CRC:
			if (strcmp(optarg, "on") == 0) {
				o->crc = 1;
			} else if (strcmp(optarg, "off") == 0) {
				o->crc = 0;
			} else {
				err("invalid --crc '%s' (on or off)", optarg);
				return -1;
			}
			break;
		case OPT_MARKERS:
			o->markers = true;
			break;
		case OPT_HOLD:
			if (parse_int(optarg, "first FPDU delay", 0,
				      IWCM_FIRST_FPDU_DELAY_MAX, &v) < 0)
				return -1;
			o->hold_ms = v;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "sctp") == 0) {
				o->sctp = true;
			} else if (strcmp(optarg, "tcp") != 0) {
				err("invalid --transport '%s' (tcp or sctp)",
				    optarg);
				return -1;
			}
			break;
		case ':':
			err("option '%s' needs an argument", argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				err("unknown option '-%c'", optopt);
			else
				err("unknown option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->server == -1) {
		err("either -s (server) or -c (client) is needed");
		return -1;
	}
	if (!o->server && !o->addr_set) {
		err("the client needs the server's address (-a)");
		return -1;
	}
	if (!o->server && o->port == 0) {
		err("the client needs the server's port (-p 1 to 65535)");
		return -1;
	}
	if (!o->server && o->persistent) {
		err("-P is for the server (-s)");
		return -1;
	}
	if (o->server && o->src_set) {
		err("-I is for the client (-c); the server binds -a");
		return -1;
	}
	if (o->sctp && (o->markers || o->crc >= 0 || o->rtr)) {
		err("--markers, --crc and --rtr are MPA's, not SCTP's");
		return -1;
	}
	if (o->mpa_rev == 1 && (o->p2p || o->rtr)) {
		err("--p2p and --rtr need MPA revision 2");
		return -1;
	}
	if (o->rtr && !o->p2p && !o->server) {
		err("--rtr needs --p2p");
		return -1;
	}
	if (o->src_set && o->src.ss_family != o->addr.ss_family) {
		err("-I and -a are of different address families");
		return -1;
	}
	set_port(&o->addr, o->port);
	return 0;
}

int main(int argc, char **argv)
{
	struct rping_opts o;
	struct sigaction sa;
	int ret;

	ret = parse_args(argc, argv, &o);
	if (ret < 0) {
		fprintf(stderr, "Try 'iwcm-rping --help'.\n");
		return 2;
	}
	if (ret > 0)
		return 0;
	debug = o.debug;
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGPIPE, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return rp_run(&o) == 0 ? 0 : 1;
}
