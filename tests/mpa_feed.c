/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* The MPA decoder fed in every kind of split (mpa_feed.h). */
#include "config.h"

#include "mpa_feed.h"

/* ---------------------------------------------------------------- */
/* FPDU helpers                                                     */
/* ---------------------------------------------------------------- */

/* RFC 5044 Figures 5/6: a 42-octet untagged Send, Last, QN 0, MSN msn. */
void fig_ulpdu(uint8_t u[42], uint32_t msn)
{
	memset(u, 0, 42);
	u[0] = 0x41;
	u[1] = 0x43;
	u[10] = (uint8_t)(msn >> 24);
	u[11] = (uint8_t)(msn >> 16);
	u[12] = (uint8_t)(msn >> 8);
	u[13] = (uint8_t)msn;
}

void run_init(struct rx_run *r, size_t max_fpdus, size_t max_data)
{
	memset(r, 0, sizeof(*r));
	r->cap = max_fpdus;
	r->f = calloc(max_fpdus ? max_fpdus : 1, sizeof(*r->f));
	r->data_cap = max_data;
	r->data = malloc(max_data ? max_data : 1);
	ck_assert(r->f && r->data);
}

void run_free(struct rx_run *r)
{
	free(r->f);
	free(r->data);
}

/* Account for one event; fails the test on a protocol-order violation. */
void run_event(struct rx_run *r, const struct mpa_rx_ev *ev)
{
	struct rx_fpdu *cur = r->n ? &r->f[r->n - 1] : NULL;

	r->n_events++;
	switch (ev->type) {
	case MPA_RX_EV_NONE:
		break;
	case MPA_RX_EV_START:
		REQUIRE_MSG(!cur || cur->ended, "START inside an FPDU");
		REQUIRE_LT(r->n, r->cap);
		cur = &r->f[r->n++];
		memset(cur, 0, sizeof(*cur));
		cur->ulpdu_len = ev->ulpdu_len;
		cur->fpdu_off = ev->fpdu_off;
		cur->data_at = r->data_len;
		break;
	case MPA_RX_EV_DATA:
		REQUIRE_MSG(cur && !cur->ended, "DATA outside an FPDU");
		REQUIRE_GT(ev->len, 0);
		REQUIRE_LE(cur->data_len + ev->len, cur->ulpdu_len);
		REQUIRE_LE(r->data_len + ev->len, r->data_cap);
		memcpy(r->data + r->data_len, ev->data, ev->len);
		r->data_len += ev->len;
		cur->data_len += ev->len;
		break;
	case MPA_RX_EV_END:
		REQUIRE_MSG(cur && !cur->ended, "END outside an FPDU");
		REQUIRE_EQ(cur->data_len, cur->ulpdu_len);
		REQUIRE_EQ(ev->ulpdu_len, cur->ulpdu_len);
		REQUIRE_EQ(ev->fpdu_off, cur->fpdu_off);
		cur->end = *ev;
		cur->ended = true;
		break;
	default:
		ck_abort_msg("unexpected event %d (err %s)", ev->type,
			     wire_errname(ev->err));
	}
}

const char *const split_names[SPLIT_MAX] = {
	"whole", "byte", "small", "random", "datapath", "runs", "take",
};

void feed_chunk(struct mpa_rx *rx, struct rx_run *r, const uint8_t *p, size_t n)
{
	while (n) {
		struct mpa_rx_ev ev;
		size_t used;

		REQUIRE_EQ(mpa_rx_step(rx, p, n, &used, &ev), WIRE_OK);
		REQUIRE_LE(used, n);
		if (ev.type == MPA_RX_EV_DATA) {
			/* Zero copy: the slice is the input itself. */
			REQUIRE(ev.data >= p && ev.data + ev.len <= p + used);
		}
		if (ev.type == MPA_RX_EV_NONE)
			REQUIRE_EQ(used, n);
		run_event(r, &ev);
		p += used;
		n -= used;
	}
}

/*
 * The framing step of the datapath: exactly ctrl_need octets (never ULPDU
 * octets) read into a small bounce buffer and handed over.  Returns how
 * many octets of s it took.
 */
size_t feed_ctrl(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		 size_t len)
{
	size_t need = mpa_rx_ctrl_need(rx), n = 0, used;
	uint8_t bounce[32];
	struct mpa_rx_ev ev;

	REQUIRE_GT(need, 0);
	REQUIRE_LE(need, sizeof(bounce));
	REQUIRE_LE(need, len);
	memcpy(bounce, s, need);
	while (n < need) {
		REQUIRE_EQ(mpa_rx_step(rx, bounce + n, need - n, &used, &ev),
			   WIRE_OK);
		REQUIRE_MSG(ev.type != MPA_RX_EV_DATA,
			    "ctrl_need pulled ULPDU octets");
		run_event(r, &ev);
		n += used;
		if (ev.type == MPA_RX_EV_NONE)
			break;
	}
	REQUIRE_EQ(n, need);
	return need;
}

/*
 * The datapath pattern: read framing octets (exactly ctrl_need) into a
 * small bounce buffer, and ULPDU octets (at most data_room) straight into
 * the "target", then hand exactly those to mpa_rx_step.
 */
void feed_datapath(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
		   size_t len)
{
	size_t pos = 0;
	uint8_t *target = malloc(65536);

	ck_assert_ptr_nonnull(target);
	while (pos < len) {
		size_t room = mpa_rx_data_room(rx);
		size_t need = mpa_rx_ctrl_need(rx);
		struct mpa_rx_ev ev;
		size_t used, n;

		if (room) {
			REQUIRE_EQ(need, 0);
			n = room;
			if (test_rand32() & 1)
				n = 1 + test_rand32() % room;
			REQUIRE_LE(n, len - pos);
			memcpy(target, s + pos, n);
			REQUIRE_EQ(mpa_rx_step(rx, target, n, &used, &ev),
				   WIRE_OK);
			REQUIRE_EQ(ev.type, MPA_RX_EV_DATA);
			REQUIRE_EQ(used, n);
			REQUIRE(ev.data == target);
			REQUIRE_EQ(ev.len, n);
			run_event(r, &ev);
			pos += n;
			continue;
		}
		pos += feed_ctrl(rx, r, s + pos, len - pos);
	}
	free(target);
}

/*
 * Hand one planned run to the decoder by mpa_rx_take_run(), in pieces of
 * random size: data pieces are taken (and reported here as the DATA they
 * would have been), a whole Marker is taken, a part of one is refused and
 * stepped.  false: the run was left to mpa_rx_step().
 */
bool take_run(struct mpa_rx *rx, struct rx_run *r, const uint8_t *dst,
	      const struct mpa_rx_run *run)
{
	struct mpa_rx_ev ev;

	if (run->marker) {
		if (run->len != 4) {
			REQUIRE(!mpa_rx_take_run(rx, dst, run->len, true));
			return false;
		}
		/* Neither a part of a Marker nor data in its place. */
		REQUIRE(!mpa_rx_take_run(rx, dst, 2, true));
		REQUIRE(!mpa_rx_take_run(rx, dst, 4, false));
		REQUIRE(mpa_rx_take_run(rx, dst, 4, true));
		return true;
	}
	/* A Marker where data is expected is refused. */
	REQUIRE(!mpa_rx_take_run(rx, dst, 4, true));
	for (size_t n = 0; n < run->len;) {
		size_t k = 1 + test_rand32() % (run->len - n);

		REQUIRE(mpa_rx_take_run(rx, dst + n, k, false));
		memset(&ev, 0, sizeof(ev));
		ev.type = MPA_RX_EV_DATA;
		ev.data = dst + n;
		ev.len = k;
		run_event(r, &ev);
		n += k;
	}
	/* Past the run: past the ULPDU or across a Marker. */
	if (rx->dir.markers || run->len == 0)
		REQUIRE(mpa_rx_data_room(rx) == 0 ||
			!mpa_rx_take_run(rx, dst, mpa_rx_data_room(rx) + 1,
					 false));
	return true;
}

/*
 * The gathered-read pattern: framing through ctrl_need as above, ULPDU
 * octets as planned by mpa_rx_data_runs (data runs into the "target",
 * Marker runs into their own scratch), handed over run by run, by
 * mpa_rx_step() or (take) mpa_rx_take_run().
 */
void feed_runs(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s,
	       size_t len, bool take)
{
	size_t pos = 0;

	while (pos < len) {
		struct mpa_rx_run runs[9];
		uint8_t target[4096], mk[sizeof(runs) / sizeof(runs[0])][4];
		size_t want = 1 + test_rand32() % 3000;
		size_t nr =
			mpa_rx_data_runs(rx, want, runs, 1 + test_rand32() % 9);
		size_t data = 0, t = 0;
		struct mpa_rx_ev ev;
		size_t used;

		if (!nr) {
			REQUIRE_EQ(mpa_rx_data_room(rx), 0);
			pos += feed_ctrl(rx, r, s + pos, len - pos);
			continue;
		}
		REQUIRE_MSG(!runs[nr - 1].marker, "plan ends in a Marker");
		for (size_t i = 0; i < nr; i++) {
			uint8_t *dst = runs[i].marker ? mk[i] : target + t;

			REQUIRE_LE(runs[i].len, len - pos);
			if (runs[i].marker)
				REQUIRE_LE(runs[i].len, 4);
			else
				REQUIRE_LE(t + runs[i].len, sizeof(target));
			memcpy(dst, s + pos, runs[i].len);
			pos += runs[i].len;
			for (size_t n = take && take_run(rx, r, dst, &runs[i]) ?
						runs[i].len :
						0;
			     n < runs[i].len;) {
				REQUIRE_EQ(mpa_rx_step(rx, dst + n,
						       runs[i].len - n, &used,
						       &ev),
					   WIRE_OK);
				if (runs[i].marker) {
					REQUIRE_MSG(ev.type != MPA_RX_EV_DATA,
						    "Marker run gave data");
				} else {
					REQUIRE_EQ(ev.type, MPA_RX_EV_DATA);
					REQUIRE(ev.data == dst + n);
				}
				run_event(r, &ev);
				n += used;
			}
			if (!runs[i].marker) {
				t += runs[i].len;
				data += runs[i].len;
			}
		}
		REQUIRE_LE(data, want);
	}
}

void feed(struct mpa_rx *rx, struct rx_run *r, const uint8_t *s, size_t len,
	  enum split_mode mode)
{
	if (mode == SPLIT_RUNS || mode == SPLIT_TAKE) {
		feed_runs(rx, r, s, len, mode == SPLIT_TAKE);
		return;
	}
	size_t pos = 0;

	if (mode == SPLIT_DATAPATH) {
		feed_datapath(rx, r, s, len);
		return;
	}
	while (pos < len) {
		size_t n = len - pos;

		if (mode == SPLIT_BYTE)
			n = 1;
		else if (mode == SPLIT_SMALL)
			n = 1 + test_rand32() % 16;
		else if (mode == SPLIT_RANDOM)
			n = 1 + test_rand32() % 3000;
		if (n > len - pos)
			n = len - pos;
		feed_chunk(rx, r, s + pos, n);
		pos += n;
	}
}
