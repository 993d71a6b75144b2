/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* The matrix and helpers of the datapath operation tests (dp_ops_util.h). */
#include "config.h"

#include "dp_ops_util.h"

struct dp_cfg C;
struct dp_ep A, B;

/* ---- the configuration matrix ---- */

static const uint64_t offs[] = { 0, 20, 508, 509, (1ull << 32) + 1000 };

/*
 * Configuration i: bit 0 version 0, bit 1 markers a->b, bit 2 markers
 * b->a, bit 3 CRC off; offsets, MSNs, transport and progress modes vary
 * with i too so that every one appears with markers on.
 */
void cfg_matrix(int i, struct dp_cfg *c)
{
	static const uint32_t sctp_seg[NSCTP] = { 516, 1452, 9000, 65535 };

	dp_cfg_default(c);
	if (i >= NCFG) {
		/* RFC 5043 §9: segments of at least 516 octets */
		c->sctp = 1;
		c->sctp_maxseg = sctp_seg[i - NCFG];
		c->mpa_rev = 0;
		c->crc = 0;
		c->next_msn[0] = 1 + (uint32_t)(i % 3);
		c->flags_a = i & 1 ? IWCM_CTX_MANUAL_PROGRESS : 0;
		c->flags_b = i & 2 ? IWCM_CTX_MANUAL_PROGRESS : 0;
		return;
	}
	c->version = i & 1 ? 0 : 1;
	c->mpa_rev = c->version ? 1 + (i >> 2 & 1) : 0;
	c->markers_ab = i >> 1 & 1;
	c->markers_ba = i >> 2 & 1;
	c->crc = !(i >> 3 & 1);
	c->off_ab = offs[i % 5];
	c->off_ba = offs[(i + 3) % 5];
	c->next_msn[0] = 1 + (uint32_t)(i % 3);
	c->next_msn[1] = 1 + (uint32_t)(i % 2);
	c->tcp = i % 3 == 1;
	c->flags_a = i % 4 == 3 ? IWCM_CTX_MANUAL_PROGRESS : 0;
	c->flags_b = i % 5 == 2 ? IWCM_CTX_MANUAL_PROGRESS : 0;
	c->atomics = c->imm_data = c->version == 1;
}

/* ---- registered buffers ---- */

static struct reg regs[32];
static int n_regs;

struct reg *reg_new(struct dp_ep *e, size_t len, unsigned int acc)
{
	struct reg *r;

	ck_assert_int_lt(n_regs, (int)ARRAY_SIZE(regs));
	r = &regs[n_regs++];
	r->p = calloc(1, len ? len : 1);
	ck_assert_ptr_nonnull(r->p);
	r->len = len;
	r->mr = dp_reg(e, r->p, len, acc);
	r->stag = iwcm_mr_get_stag(r->mr);
	return r;
}

void regs_free(void)
{
	int i;

	for (i = 0; i < n_regs; i++) {
		ck_assert_int_eq(iwcm_dereg_mr(regs[i].mr), 0);
		free(regs[i].p);
	}
	n_regs = 0;
}

void pair_open(int i)
{
	cfg_matrix(i, &C);
	dp_pair_open(&C, &A, &B);
}

void pair_close(void)
{
	regs_free();
	dp_ep_close(&B);
	dp_ep_close(&A);
}

uint64_t addr(const void *p)
{
	return (uintptr_t)p;
}

/* The QP reports what the connection was handed. */
void check_attr(struct dp_ep *e, int markers_tx, int markers_rx, uint32_t ird,
		uint32_t ord)
{
	struct iwcm_qp_attr at;

	memset(&at, 0, sizeof(at));
	ck_assert_int_eq(iwcm_query_qp(e->qp, &at), 0);
	ck_assert_int_eq(at.state, IWCM_QPS_RTS);
	ck_assert_uint_eq(at.rdmap_version, (uint32_t)C.version);
	ck_assert_int_eq(!!at.markers_tx, markers_tx);
	ck_assert_int_eq(!!at.markers_rx, markers_rx);
	ck_assert_int_eq(!!at.crc, C.crc);
	ck_assert_uint_eq(at.ird, ird);
	ck_assert_uint_eq(at.ord, ord);
	/* RFC 7306 needs RDMAP version 1. */
	ck_assert_int_eq(!!at.atomics, C.version == 1 && C.atomics);
	ck_assert_int_eq(!!at.imm_data, C.version == 1 && C.imm_data);
	/* RFC 5044 §4.5: never below 128, a 16-bit ULPDU_Length. */
	ck_assert_uint_ge(at.mulpdu, 128);
	ck_assert_uint_le(at.mulpdu, MPA_ULPDU_MAX);
	ck_assert_uint_ge(at.max_inline_data, C.max_inline ? C.max_inline : 64);
	ck_assert_ptr_eq(iwcm_qp_get_context(e->qp), e);
}

/* A receive completion with every field checked. */
void recv_ok(struct dp_ep *e, uint64_t wr_id, int opcode, uint32_t byte_len,
	     unsigned int flags)
{
	struct iwcm_wc wc;

	dp_wc(e->rcq, &wc);
	ck_assert_msg(wc.status == IWCM_WC_SUCCESS,
		      "recv %llu: status %s vendor_err 0x%x",
		      (unsigned long long)wc.wr_id,
		      iwcm_wc_status_str(wc.status), wc.vendor_err);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.opcode, opcode);
	ck_assert_uint_eq(wc.byte_len, byte_len);
	ck_assert_uint_eq(wc.wc_flags, flags);
	ck_assert_ptr_eq(wc.qp, e->qp);
	ck_assert_uint_eq(wc.vendor_err, 0);
}

/* A send-side completion: status, opcode, byte_len, the QP. */
void send_ok(struct dp_ep *e, uint64_t wr_id, int opcode, uint32_t byte_len)
{
	struct iwcm_wc wc;

	dp_wc(e->scq, &wc);
	ck_assert_msg(wc.status == IWCM_WC_SUCCESS,
		      "wr_id %llu: status %s vendor_err 0x%x",
		      (unsigned long long)wc.wr_id,
		      iwcm_wc_status_str(wc.status), wc.vendor_err);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.opcode, opcode);
	if (byte_len != ANY_LEN)
		ck_assert_uint_eq(wc.byte_len, byte_len);
	ck_assert_ptr_eq(wc.qp, e->qp);
}

/* A signaled 8-octet Send (or Immediate Data) with extra flags, and its
 * completion. */
void post_send_flags(struct dp_ep *s, struct reg *src, uint64_t id, int opcode,
		     unsigned int flags)
{
	struct iwcm_send_wr wr;
	struct iwcm_sge sg;

	dp_wr(&wr, &sg, opcode, id, src->mr, src->p, 8);
	if (opcode == IWCM_WR_IMM_DATA)
		wr.num_sge = 0;
	wr.imm_data = id;
	wr.send_flags |= flags;
	dp_post_send(s->qp, &wr);
	send_ok(s, id,
		opcode == IWCM_WR_IMM_DATA ? IWCM_WC_IMM_DATA : IWCM_WC_SEND,
		opcode == IWCM_WR_IMM_DATA ? ANY_LEN : 8);
}
