/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_RPING_H
#define IWCM_RPING_H

/*
 * iwcm-rping's parts (see iwcm-rping.c for what the program does):
 * rping_util.c  output, rping's message and data, addresses;
 * rping_conn.c  one connection's state machine and resources;
 * rping_async.c the context's asynchronous events;
 * rping_opts.c  the command line;
 * iwcm-rping.c  the poll loop over the CM, completion and async fds.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>

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

extern int debug;
extern volatile sig_atomic_t stop_signal;

/* rping_util.c */
void on_signal(int sig);
struct iwcm_conn_attr conn_attr(const struct iwcm_conn *conn);
void dbg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info_build(uint8_t *p, uint64_t addr, uint32_t stag, uint32_t size);
void info_parse(const uint8_t *p, uint64_t *addr, uint32_t *stag,
		uint32_t *size);
long long now_ms(void);
void ping_fill(char *buf, size_t size, int ping);
const char *rtr_name(int rtr);
void set_port(struct sockaddr_storage *ss, int port);
int addr_port(const struct sockaddr *sa);

/* rping_conn.c */
void rc_async(struct rping_conn *rc);
void rc_end(struct rping_conn *rc);
void rc_established(struct rping_conn *rc);
void rc_free(struct rping_conn *rc);
struct rping_conn *rc_new(struct rping *rp, struct iwcm_conn *conn);
bool rc_poll(struct rping_conn *rc);

/* rping_async.c */
void rp_async_drain(struct rping *rp);

/* rping_opts.c */
int parse_args(int argc, char **argv, struct rping_opts *o);

#endif /* IWCM_RPING_H */
