/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Two libiwcm QPs over a socketpair, each from synthesized handoff state,
 * with the progress thread or manual progress: what the verbs tests
 * (check_verbs*.c) share.
 */
#ifndef IWCM_TEST_VERBS_PAIR_H
#define IWCM_TEST_VERBS_PAIR_H

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"
#include "dp.h"
#include "synth.h"

struct end {
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *ch;
	struct iwcm_srq *srq;
	struct iwcm_cq *cq;
	struct iwcm_qp *qp;
	struct iwcm_mr *mr;
	uint8_t *buf;
};

#define BUF_LEN (1u << 20)

/* Manual progress for both ends (a loop test's odd runs). */
extern bool manual;
/* Knobs for the next end_up(), reset by pair_up(). */
extern int cq_depth;
extern bool with_srq, with_channel;
extern uint32_t disc_timeout; /* disconnect_timeout_ms, 0: not set */
/* Receives queued by iwcm_create_qp() (IWCM_QP_INIT_ATTR_RECV_WR), at
 * most 8: wr_id 10 + k, 64 octets at offset 64 * k of the buffer. */
extern uint32_t pre_recv;

void end_up(struct end *e, int fd, const struct iwcm_synth *st);
void pair_up(struct end *a, struct end *b, const struct iwcm_synth *sa,
	     const struct iwcm_synth *sb);
void pair_default(struct end *a, struct end *b);
void end_down(struct end *e);
int64_t now_ms(void);
struct iwcm_wc wait_wc(struct end *e, struct end *other);
void post_recv(struct end *e, uint64_t id, uint64_t off, uint32_t len);
void post(struct end *e, struct iwcm_send_wr *wr, uint64_t off, uint32_t len);
void fill(uint8_t *p, size_t n, uint8_t seed);
void smoke_send(void);
struct iwcm_send_wr wr_of(int opcode, uint64_t id);
void expect_wc(struct end *e, struct end *o, uint64_t id, int status,
	       int opcode);
struct iwcm_async_event wait_async(struct end *e, struct end *o);

#endif /* IWCM_TEST_VERBS_PAIR_H */
