/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CMOPT_H
#define IWCM_CMOPT_H

/*
 * The negotiation options of iwcmctl listen, connect and connect --daemon:
 * one table (cmopt.c) gives the grammar, the help text and which command
 * takes which option.  The parsed options become libiwcm connection
 * parameters (the client path) or an iwcm.proto ConnParams (the forced
 * negotiation of the admin socket).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/socket.h>

#include <iwcm/iwcm.h>
#include "iwcm.pb-c.h"
#include "vocab.h"

/* Which command parses: an option lists the commands that take it. */
#define CMOPT_LISTEN 1u
#define CMOPT_CONNECT 2u
#define CMOPT_DAEMON 4u /* connect --daemon */

struct cmopt {
	/* what was given; everything else is the daemon's default */
	bool has_rev, has_markers, has_crc, has_rtr, has_ird, has_ord;
	bool has_private_data, has_rev0, has_timeout, has_count;
	bool has_hold, has_tcp_user_timeout;
	unsigned int rev; /* 0, 1 or 2 */
	bool markers;
	bool crc;
	bool p2p;
	unsigned int rtr;      /* IWCM_RTR_* bits */
	unsigned int ird, ord; /* 14 bits */
	uint8_t private_data[IWCM_PRIVATE_DATA_MAX];
	size_t private_data_len;
	bool rev0_permissive;
	bool rtr_frame;
	bool fallback;
	unsigned int timeout_ms;
	unsigned int hold_ms; /* --first-fpdu-delay */
	unsigned int count;   /* listen: connections to handle */
	bool reject;	      /* listen: reject each request */
	const char *service;  /* listen: a configured listener */
	bool daemon;	      /* connect: the admin variant */
	bool sctp;	      /* DDP over SCTP (RFC 5043), not MPA/TCP */
	bool json;	      /* -j anywhere */

	/* --tcp-user-timeout */
	unsigned int tcp_user_timeout_ms;
};

/*
 * Parse argv[1..argc-1] for the command mode (one CMOPT_* bit) into *o,
 * the one positional argument into *target (NULL when none).  A usage
 * error is printed on stderr; returns 0, or -1 for a usage error.
 */
int cmopt_parse(struct cmopt *o, unsigned int mode, int argc, char **argv,
		const char **target);

/* Print the options that mode takes, one per line, on fp. */
void cmopt_usage(FILE *fp, unsigned int mode);

/*
 * The libiwcm parameters for o; responder says whether they serve
 * iwcm_listen()/iwcm_accept() rather than iwcm_connect().  NULL with
 * errno set on failure.
 */
struct iwcm_conn_param *cmopt_param(const struct cmopt *o, bool responder);

/*
 * Fill the ConnParams p (initialized by the caller) from o; the private
 * data stay in o.
 */
void cmopt_to_pb(const struct cmopt *o, Iwcm__ConnParams *p);

/*
 * "send,write,read" for IWCM_RTR_* bits, "none" for 0, into buf: the one
 * RTR list of vocab.c (IWCM_RTR_* has the values of MPA_RTR_*), under
 * the name client.c's libiwcm calls use.
 */
static inline const char *cmopt_rtr_str(unsigned int rtr, char *buf, size_t len)
{
	return vocab_rtr_list(rtr, buf, len);
}

/*
 * HOST:PORT, [HOST]:PORT, or PORT alone when host_opt (any IPv4 address);
 * port 0 only when port0.  Resolved to one address; -1 on bad input.
 */
int cmopt_parse_addr(const char *arg, bool host_opt, bool port0,
		     struct sockaddr_storage *ss);

#endif
