/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What the MPA decoder tests (check_mpa.c, check_mpa_frame.c) share: the
 * cheap assertions of their hot loops, the Figure 5 ULPDU, the events of
 * a decoder run collected and checked for order, and the decoder fed a
 * stream in every kind of split.
 */
#ifndef IWCM_TEST_MPA_FEED_H
#define IWCM_TEST_MPA_FEED_H

#include "common.h"
#include "crc32c.h"
#include "mpa.h"
#include "vectors/mpa_siw.h"

/*
 * Check's ck_assert_*() reports every passing assertion to the parent
 * process (one write each); the hot loops below use these instead, which
 * only call into Check on failure.
 */
#define REQUIRE_MSG(cond, ...)                     \
	do {                                       \
		if (!(cond))                       \
			ck_abort_msg(__VA_ARGS__); \
	} while (0)
#define REQUIRE(cond) REQUIRE_MSG(cond, "%s:%d: %s", __FILE__, __LINE__, #cond)
#define REQUIRE_OP(a, op, b)                                                \
	REQUIRE_MSG((uintmax_t)(a)op(uintmax_t)(b),                         \
		    "%s:%d: %s %s %s (%ju vs %ju)", __FILE__, __LINE__, #a, \
		    #op, #b, (uintmax_t)(a), (uintmax_t)(b))
#define REQUIRE_EQ(a, b) REQUIRE_OP(a, ==, b)
#define REQUIRE_LE(a, b) REQUIRE_OP(a, <=, b)
#define REQUIRE_LT(a, b) REQUIRE_OP(a, <, b)
#define REQUIRE_GT(a, b) REQUIRE_OP(a, >, b)
#define REQUIRE_GE(a, b) REQUIRE_OP(a, >=, b)

/* Events collected from one run of the decoder. */
struct rx_fpdu {
	uint16_t ulpdu_len;
	uint32_t fpdu_off;
	size_t data_len; /* ULPDU octets delivered by DATA */
	size_t data_at;	 /* where they start in the data buffer */
	struct mpa_rx_ev end;
	bool ended;
};

struct rx_run {
	struct rx_fpdu *f;
	size_t n, cap;
	uint8_t *data; /* concatenated DATA */
	size_t data_len, data_cap;
	size_t n_events;
};

/* Feed buf in chunks chosen by mode, stepping until each is consumed. */
enum split_mode {
	SPLIT_WHOLE,
	SPLIT_BYTE,
	SPLIT_SMALL,	/* 1..16 */
	SPLIT_RANDOM,	/* 1..3000 */
	SPLIT_DATAPATH, /* ctrl_need / data_room, readv-style */
	SPLIT_RUNS,	/* ctrl_need / data_runs, gathered reads */
	SPLIT_TAKE,	/* the same, placed runs by mpa_rx_take_run */
	SPLIT_MAX
};

extern const char *const split_names[SPLIT_MAX];
void fig_ulpdu(uint8_t u[42], uint32_t msn);
void run_init(struct rx_run *r, size_t max_fpdus, size_t max_data);
void run_free(struct rx_run *r);
void run_event(struct rx_run *r, const struct mpa_rx_ev *ev);
void feed_chunk(struct mpa_rx *rx, struct rx_run *r, const uint8_t *p,
		size_t n);
size_t feed_ctrl(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		 size_t len);
void feed_datapath(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		   size_t len);
bool take_run(struct mpa_rx *rx, struct rx_run *r, const uint8_t *dst,
	      const struct mpa_rx_run *run);
void feed_runs(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
	       size_t len, bool take);
void feed(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s, size_t len,
	  enum split_mode mode);

#endif /* IWCM_TEST_MPA_FEED_H */
