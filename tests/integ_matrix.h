/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_INTEG_MATRIX_H
#define IWCM_TESTS_INTEG_MATRIX_H

/*
 * The rows of check_integ_matrix (integ_matrix_rows.c): what each case
 * asks of both sides and what both must then report.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iwcm/iwcm.h>

/* A parameter that is set: V(x); 0 leaves it unset. */
#define V(x) ((x) + 1)

enum mx_kind {
	MX_CLIENT = 0, /* iwcm_connect() */
	MX_FORCE,      /* admin CTL_CONNECT (iwcmctl connect) */
	MX_RDMAC,      /* a raw Rev 0 (RDMA Consortium) initiator */
};

struct mx_params {
	int rev, p2p, rtr, markers, crc_off, ird, ord, fallback;
	const char *pd;
};

/* An event type that means: the request came and was rejected. */
#define MX_REQUEST_ONLY IWCM_CM_EVENT_CONNECT_REQUEST

struct mx_expect {
	int ev_i, ev_r; /* last event of each side, 0: none */
	int st_i, st_r; /* reason of iwcm_conn_query() */
	int rev, ver, enh, p2p, rtr, crc;
	int m_ir, m_ri;		 /* markers initiator->responder and back */
	uint64_t off_ir, off_ri; /* RTR-phase octets each way */
	int rtr_qn;		 /* V(QN) whose next MSN the RTR moved to 2 */
	bool irdord;		 /* check the values below */
	int ird_i, ord_i, ird_r, ord_r;
	int rej_ord; /* ORD the reject asks for, 0: not checked */
};

struct mx_row {
	const char *name;
	const char *service; /* [listener NAME], NULL: 127.0.0.1:0 */
	enum mx_kind kind;
	struct mx_params ip; /* connect */
	struct mx_params ap; /* accept (or the reject's private data) */
	bool reject;
	struct mx_expect x;
	const char *stat; /* a counter that grows, or NULL */
	int delta;	  /* by this much (1 when 0) */
};

#define EST(r, v, e)                                                          \
	.ev_i = IWCM_CM_EVENT_ESTABLISHED, .ev_r = IWCM_CM_EVENT_ESTABLISHED, \
	.rev = (r), .ver = (v), .enh = (e)

extern const struct mx_row mx_rows[];
extern const size_t mx_n_rows;

#endif
