/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_DISSECT_SCTP_INT_H
#define IWCM_DISSECT_SCTP_INT_H

/*
 * Inside the SCTP dissector: the association state shared by
 * dissect_sctp.c (packets, chunks, reassembly) and dissect_sctp_msg.c
 * (user messages, DDP stream sessions, events).  Calls go
 * dissect_sctp.c -> dissect_sctp_msg.c, never back.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect_int.h"
#include "dissect_sctp.h"
#include "sctp_ss.h"

#define SCTP_STREAMS_MAX 64 /* DDP stream sessions followed per assoc */
#define SCTP_REASM_SLOTS 16 /* messages reassembled at once per assoc */

/* A DDP stream session as an observer follows it (RFC 5043 §6). */
struct sstream {
	bool used;
	uint16_t id;
	bool checking;	 /* its Initiate was seen: sequence checked */
	int active_side; /* side that sent the Initiate */
	struct sctp_ss_seq seq;
	bool noted; /* "not checked" said once */
};

/* A user message being reassembled from DATA or I-DATA fragments. */
struct sreasm {
	bool used;
	int side;
	uint16_t stream;
	bool u, idata;
	uint32_t mid;	   /* I-DATA Message Identifier */
	uint32_t next_tsn; /* DATA: the next fragment's TSN */
	uint32_t next_fsn; /* I-DATA: the next Fragment Sequence Number */
	uint32_t ppid;
	uint32_t tsn0;
	unsigned int frags;
	struct dbuf buf;
};

struct sassoc {
	struct sassoc *hnext;	    /* hash chain */
	struct sassoc *prev, *next; /* creation order */
	unsigned int id;
	int family;
	uint8_t addr[2][16];
	uint16_t port[2]; /* SCTP ports */
	bool udp;
	uint16_t uport[2];
	char ep[2][64];
	int init_side; /* the INIT sender, -1 unknown */
	unsigned long packets[2], messages[2];
	bool tsn_known[2];
	uint32_t tsn_hi[2];   /* highest TSN seen per direction */
	uint64_t tsn_seen[2]; /* bit i: tsn_hi - i seen */
	struct sreasm rs[SCTP_REASM_SLOTS];
	struct sstream streams[SCTP_STREAMS_MAX];
	bool streams_full;
	bool closed; /* ABORT or SHUTDOWN COMPLETE seen */
};

#define SCTP_HASH_SIZE 256

struct sctp_dis {
	struct out_sink *out;
	struct dissect_stats *st;
	struct sassoc *hash[SCTP_HASH_SIZE];
	struct sassoc *first, *last;
	unsigned int n_assocs;
	unsigned int next_id;
	bool limit_reported;
};

/* dissect_sctp_msg.c */

/* The direction of what side sends: by the INIT when seen, else A/B. */
enum out_dir sctp_side_dir(const struct sassoc *a, int side);

/* Report an event of association a (NULL: the input) and count it. */
void sctp_event(struct sctp_dis *sd, const struct sassoc *a, int side,
		enum out_ev kind, bool bad, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* One complete user message of side on stream: decode and report it. */
void sctp_msg_deliver(struct sctp_dis *sd, struct sassoc *a, int side,
		      uint16_t stream, uint32_t ppid, uint32_t tsn,
		      unsigned int frags, bool unordered, const uint8_t *p,
		      size_t len);

#endif
