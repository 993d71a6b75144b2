/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What the datapath operation tests (check_dp_ops.c, check_dp_raw.c)
 * share: the configuration matrix, the pair of endpoints under test,
 * registered buffers and completion checks.
 */
#ifndef IWCM_TEST_DP_OPS_UTIL_H
#define IWCM_TEST_DP_OPS_UTIL_H

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>
#include "common.h"
#include "dp_peer.h"

#define NCFG 16
#define NSCTP 4 /* configurations NCFG.. run DDP over SCTP */
#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define BIG (300 * 1000)   /* several DDP segments whatever the MULPDU */
#define ANY_LEN UINT32_MAX /* byte_len not checked */
extern struct dp_cfg C;
extern struct dp_ep A, B;
struct reg {
	uint8_t *p;
	size_t len;
	struct iwcm_mr *mr;
	uint32_t stag;
};

void cfg_matrix(int i, struct dp_cfg *c);
struct reg *reg_new(struct dp_ep *e, size_t len, unsigned int acc);
void regs_free(void);
void pair_open(int i);
void pair_close(void);
uint64_t addr(const void *p);
void check_attr(struct dp_ep *e, int markers_tx, int markers_rx, uint32_t ird,
		uint32_t ord);
void recv_ok(struct dp_ep *e, uint64_t wr_id, int opcode, uint32_t byte_len,
	     unsigned int flags);
void post_send_flags(struct dp_ep *s, struct reg *src, uint64_t id, int opcode,
		     unsigned int flags);
void send_ok(struct dp_ep *e, uint64_t wr_id, int opcode, uint32_t byte_len);

#endif /* IWCM_TEST_DP_OPS_UTIL_H */
