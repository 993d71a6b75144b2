/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Waiting on iwcm: spinning the progress engine or sleeping on the
 * completion channel, taking completions and receives, the octet a
 * peer's Write places, and the connection events.
 */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "dp.h"

#define DP_WC_BATCH 32

static const char *dp_wait_async_str(int type)
{
	switch (type) {
	case IWCM_EVENT_QP_FATAL:
		return "local error (QP fatal)";
	case IWCM_EVENT_QP_TERMINATE:
		return "Terminate from the peer";
	case IWCM_EVENT_QP_PEER_CLOSED:
		return "the peer closed the connection";
	case IWCM_EVENT_CQ_ERR:
		return "completion queue overflow";
	default:
		return "unknown asynchronous event";
	}
}

/* An asynchronous event ends the run: the QP is in error. */
static int dp_wait_async_check(struct dp_ep *e)
{
	struct iwcm_async_event ev;

	if (iwcm_get_async_event(e->ctx, &ev) < 0)
		return 0;
	if (ev.type == IWCM_EVENT_QP_TERMINATE)
		dp_side_fail(&e->r->side, "%s (layer %u type %u code %u)",
			     dp_wait_async_str(ev.type), ev.term_layer,
			     ev.term_etype, ev.term_ecode);
	else
		dp_side_fail(&e->r->side, "%s", dp_wait_async_str(ev.type));
	return -1;
}

/*
 * A spin: drive the engine once (manual progress), or with automatic
 * progress move the QP's data in this thread when qp says so (a wait on
 * memory the peer writes; iwcm_poll_cq() did it otherwise), asleep on
 * its socket for up to a millisecond in event mode; and every so often
 * look at the asynchronous events and the clock: *end is the stall
 * deadline, 0 until the first look and again whenever the engine
 * handled something.  -1 once the run failed.
 */
static int dp_wait_spin(struct dp_ep *e, bool qp, unsigned int *spins,
			uint64_t *end)
{
	int k = 0;

	if (e->manual) {
		k = iwcm_progress(e->ctx, 0);
		if (k < 0) {
			dp_side_fail(&e->r->side, "iwcm_progress: %s",
				     strerror(errno));
			return -1;
		}
	} else if (qp && e->qp) {
		k = iwcm_qp_progress(e->qp, e->busy ? 0 : 1);
		if (k < 0) {
			dp_side_fail(&e->r->side, "iwcm_qp_progress: %s",
				     strerror(errno));
			return -1;
		}
	}
	if (k > 0)
		*end = 0;
	if (++*spins % DP_SPIN_CHECK)
		return 0;
	if (dp_wait_async_check(e) < 0)
		return -1;
	if (e->passive)
		return 0;
	if (!*end) {
		*end = bench_now_ns() + e->r->o->stall_ms * 1000000ULL;
	} else if (bench_now_ns() > *end) {
		dp_side_fail(&e->r->side, "no progress for %u ms",
			     e->r->o->stall_ms);
		return -1;
	}
	return 0;
}

/*
 * Event mode: sleep until the CQ's channel or the async fd fires; a
 * passive wait (the server's, while the peer's one-sided operations run
 * through the progress thread without a completion here) has no limit.
 */
static int dp_wait_sleep(struct dp_ep *e)
{
	struct pollfd p[2] = {
		{ iwcm_comp_channel_get_fd(e->ch), POLLIN, 0 },
		{ iwcm_ctx_get_async_fd(e->ctx), POLLIN, 0 },
	};
	/* -q: the endpoints share the CQ, so whether it is armed too. */
	bool *armed = e->owner ? &e->armed : &e->r->eps[0].armed;
	struct iwcm_cq *cq;
	void *cq_ctx;
	int k;

	if (!*armed) {
		if (iwcm_req_notify_cq(e->cq, 0) < 0) {
			dp_side_fail(&e->r->side, "iwcm_req_notify_cq: %s",
				     strerror(errno));
			return -1;
		}
		/* Completions queued before arming give no event. */
		*armed = true;
		return 0;
	}
	do
		k = poll(p, 2, e->passive ? -1 : (int)e->r->o->stall_ms);
	while (k < 0 && errno == EINTR);
	if (k == 0) {
		dp_side_fail(&e->r->side, "no completion for %u ms",
			     e->r->o->stall_ms);
		return -1;
	}
	if (k < 0) {
		dp_side_fail(&e->r->side, "poll: %s", strerror(errno));
		return -1;
	}
	if (p[1].revents && dp_wait_async_check(e) < 0)
		return -1;
	if (iwcm_get_cq_event(e->ch, &cq, &cq_ctx) == 0) {
		iwcm_ack_cq_events(cq, 1);
		*armed = false;
	} else if (errno != EAGAIN && errno != EINTR) {
		dp_side_fail(&e->r->side, "iwcm_get_cq_event: %s",
			     strerror(errno));
		return -1;
	}
	return 0;
}

static const char *dp_wait_wc_op_str(int opcode)
{
	switch (opcode) {
	case IWCM_WC_SEND:
		return "Send";
	case IWCM_WC_RDMA_WRITE:
		return "RDMA Write";
	case IWCM_WC_RDMA_READ:
		return "RDMA Read";
	case IWCM_WC_FETCH_ADD:
		return "FetchAdd";
	case IWCM_WC_RECV:
		return "receive";
	default:
		return "work request";
	}
}

/*
 * Take what completed, waiting (busy or asleep) until something did:
 * receives queue up in rx_q, send completions advance sent, of the
 * endpoint whose QP completed (-q: they share one CQ).
 */
int dp_wait_poll(struct dp_ep *e)
{
	struct iwcm_wc wc[DP_WC_BATCH];
	unsigned int spins = 0;
	uint64_t end = 0;
	int k, i;

	for (;;) {
		k = iwcm_poll_cq(e->cq, DP_WC_BATCH, wc);
		if (k < 0) {
			dp_side_fail(&e->r->side, "iwcm_poll_cq: %s",
				     strerror(errno));
			return -1;
		}
		if (k > 0)
			break;
		if (e->busy ? dp_wait_spin(e, false, &spins, &end) < 0 :
			      dp_wait_sleep(e) < 0)
			return -1;
	}
	for (i = 0; i < k; i++) {
		struct dp_ep *t = dp_ep_of(e, wc[i].qp);

		if (wc[i].status != IWCM_WC_SUCCESS) {
			dp_side_fail(&e->r->side, "%s: %s (vendor_err %#x)",
				     dp_wait_wc_op_str(wc[i].opcode),
				     iwcm_wc_status_str(wc[i].status),
				     wc[i].vendor_err);
			return -1;
		}
		if (!t) {
			dp_side_fail(&e->r->side,
				     "a completion of no QP of ours");
			return -1;
		}
		if (wc[i].opcode & IWCM_WC_RECV) {
			unsigned int at =
				(t->rx_head + t->rx_count) % DP_RX_SLOTS;

			t->rx_q[at] = (uint32_t)wc[i].wr_id;
			t->rx_qlen[at] = wc[i].byte_len;
			t->rx_count++;
		} else {
			t->sent = wc[i].wr_id + 1;
		}
	}
	return 0;
}

/* The next receive: its slot and length; the slot is posted again. */
int dp_wait_recv(struct dp_ep *e, uint32_t *slot, uint32_t *len)
{
	while (!e->rx_count) {
		if (dp_wait_poll(e) < 0)
			return -1;
	}
	*slot = e->rx_q[e->rx_head];
	*len = e->rx_qlen[e->rx_head];
	e->rx_head = (e->rx_head + 1) % DP_RX_SLOTS;
	e->rx_count--;
	return dp_ep_post_rx(e, *slot);
}

/* The next receive must be the in-band message msg. */
int dp_wait_msg(struct dp_ep *e, enum dp_msg msg)
{
	uint32_t slot, len;
	uint64_t v;

	if (dp_wait_recv(e, &slot, &len) < 0)
		return -1;
	memcpy(&v, e->rx + (size_t)slot * e->rx_len, sizeof(v));
	if (len != sizeof(v) || v != msg) {
		dp_side_fail(&e->r->side,
			     "in-band message %d expected, got %u "
			     "octets",
			     msg, len);
		return -1;
	}
	return 0;
}

/* Until every send up to id has completed. */
int dp_wait_sent(struct dp_ep *e, uint64_t id)
{
	while (e->sent < id) {
		if (dp_wait_poll(e) < 0)
			return -1;
	}
	return 0;
}

/* Until the octet at p holds tag (placed by this thread's calls or the
 * progress engine). */
int dp_wait_tag(struct dp_ep *e, const uint8_t *p, uint8_t tag)
{
	unsigned int spins = 0;
	uint64_t end = 0;

	while (__atomic_load_n(p, __ATOMIC_ACQUIRE) != tag) {
		if (dp_wait_spin(e, true, &spins, &end) < 0)
			return -1;
	}
	return 0;
}

/* The next CM event of the endpoint's context, within the stall time. */
struct iwcm_event *dp_wait_cm_event(struct dp_ep *e)
{
	struct iwcm_event *ev;
	struct pollfd p = { iwcm_ctx_get_fd(e->ctx), POLLIN, 0 };
	uint64_t end = bench_now_ns() + e->r->o->stall_ms * 1000000ULL;

	while (iwcm_get_event(e->ctx, &ev) < 0) {
		if (errno != EAGAIN && errno != EINTR) {
			dp_side_fail(&e->r->side, "iwcm_get_event: %s",
				     strerror(errno));
			return NULL;
		}
		if (bench_now_ns() > end) {
			dp_side_fail(&e->r->side,
				     "no connection event for %u ms",
				     e->r->o->stall_ms);
			return NULL;
		}
		poll(&p, 1, 100);
	}
	return ev;
}
