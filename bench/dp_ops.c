/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The iwcm measurements once both QPs are READY: windows of RDMA Writes
 * or Reads, Send and RDMA Write ping-pongs, FetchAdds, each side's part.
 */
#include "config.h"

#include <string.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "dp.h"

/* perftest's CQ moderation of the bandwidth tests. */
#define DP_SIG_EVERY 100

/* The tag write_lat puts in the last octet of iteration i (never 0). */
static uint8_t dp_ops_tag(unsigned long i)
{
	return (uint8_t)(i % 255 + 1);
}

/* One send work request (id e->posted) from the local source. */
static int dp_ops_post(struct dp_ep *e, int opcode, bool signaled)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_send_wr wr;
	struct iwcm_sge sge = {
		.addr = (uintptr_t)e->src,
		.length = (uint32_t)o->size,
		.lkey = iwcm_mr_get_stag(e->src_mr),
	};
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = e->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = (enum iwcm_wr_opcode)opcode;
	wr.send_flags = signaled ? IWCM_SEND_SIGNALED : 0;
	if (opcode != IWCM_WR_ATOMIC_FETCH_ADD && o->size <= DP_INLINE_MAX)
		wr.send_flags |= IWCM_SEND_INLINE;
	if (opcode == IWCM_WR_ATOMIC_FETCH_ADD) {
		sge.length = 8;
		wr.wr.atomic.remote_addr = e->r_addr;
		wr.wr.atomic.rkey = e->r_key;
		wr.wr.atomic.compare_add = DP_ATOMIC_ADD;
	} else if (opcode != IWCM_WR_SEND) {
		wr.wr.rdma.remote_addr = e->r_addr;
		wr.wr.rdma.rkey = e->r_key;
	}
	err = iwcm_post_send(e->qp, &wr, NULL);
	if (err) {
		dp_side_fail(&e->r->side, "iwcm_post_send: %s", strerror(err));
		return -1;
	}
	e->posted++;
	return 0;
}

/* An in-band message (signaled, inline). */
int dp_ops_post_msg(struct dp_ep *e, enum dp_msg msg)
{
	uint64_t v = msg;
	struct iwcm_sge sge = { (uintptr_t)&v, sizeof(v), 0 };
	struct iwcm_send_wr wr;
	int err;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = e->posted;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_SEND;
	wr.send_flags = IWCM_SEND_SIGNALED | IWCM_SEND_INLINE;
	err = iwcm_post_send(e->qp, &wr, NULL);
	if (err) {
		dp_side_fail(&e->r->side, "iwcm_post_send: %s", strerror(err));
		return -1;
	}
	e->posted++;
	return 0;
}

/*
 * n RDMA Writes or Reads of the whole region on each of the q endpoints
 * (-q), at most depth in flight on each, posted as lists; every
 * DP_SIG_EVERY-th and the last of each are signaled.
 */
static int dp_ops_window(struct dp_ep *eps, unsigned int q, unsigned long n)
{
	struct dp_run *r = eps[0].r;
	uint64_t base[BENCH_QPS_MAX];
	unsigned int depth = r->depth, sig, i;
	enum iwcm_wr_opcode op = r->t == BENCH_DP_WRITE_BW ?
					 IWCM_WR_RDMA_WRITE :
					 IWCM_WR_RDMA_READ;
	bool busy = true;
	int err;

	if (depth > n)
		depth = (unsigned int)n;
	sig = depth < DP_SIG_EVERY ? depth : DP_SIG_EVERY;
	for (i = 0; i < q; i++)
		base[i] = eps[i].posted;
	while (busy) {
		busy = false;
		for (i = 0; i < q; i++) {
			struct dp_ep *e = &eps[i];
			uint64_t end = base[i] + n;
			unsigned int k = 0;

			if (e->sent >= end)
				continue;
			busy = true;
			while (e->posted < end && e->posted - e->sent < depth) {
				struct iwcm_send_wr *w = &e->wrs[k];

				memset(w, 0, sizeof(*w));
				w->wr_id = e->posted;
				w->sg_list = &e->sge;
				w->num_sge = 1;
				w->opcode = op;
				if ((e->posted - base[i] + 1) % sig == 0 ||
				    e->posted + 1 == end)
					w->send_flags = IWCM_SEND_SIGNALED;
				w->wr.rdma.remote_addr = e->r_addr;
				w->wr.rdma.rkey = e->r_key;
				if (k)
					e->wrs[k - 1].next = w;
				k++;
				e->posted++;
			}
			err = k ? iwcm_post_send(e->qp, e->wrs, NULL) : 0;
			if (err) {
				dp_side_fail(&r->side, "iwcm_post_send: %s",
					     strerror(err));
				return -1;
			}
		}
		if (busy && dp_wait_poll(&eps[0]) < 0)
			return -1;
	}
	return 0;
}

/*
 * -q send_lat: the N ping-pongs at once, as the TCP streams run them.
 * The client times each round trip of each QP into lat[i * n + j]; the
 * server echoes whatever arrives.
 */
static void dp_ops_lat_multi(struct dp_run *r)
{
	unsigned long total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	unsigned int q = r->neps, left = q, i;
	bool fin[BENCH_QPS_MAX] = { false };
	struct dp_ep *last = &r->eps[0];
	uint32_t slot = 0, len;

	for (i = 0; i < q; i++) {
		r->eps[i].done = 0;
		r->eps[i].t0 = bench_now_ns();
		if (!r->server &&
		    dp_ops_post(&r->eps[i], IWCM_WR_SEND, total == 1) < 0)
			return;
	}
	dp_side_mark(&a);
	while (left) {
		if (dp_wait_poll(&r->eps[0]) < 0)
			return;
		for (i = 0; i < q; i++) {
			struct dp_ep *e = &r->eps[i];

			while (e->rx_count && e->done < total) {
				uint64_t now;

				if (dp_wait_recv(e, &slot, &len) < 0)
					return;
				now = bench_now_ns();
				last = e;
				if (len != size) {
					dp_side_fail(&r->side,
						     "a p%cng of %u octets",
						     r->server ? 'i' : 'o',
						     len);
					return;
				}
				if (!r->server && e->done >= r->warm)
					r->lat[(size_t)i * r->n + e->done -
					       r->warm] = (now - e->t0) / 2;
				e->done++;
				if (!r->server && e->done == total)
					break;
				e->t0 = now;
				/* The last pong, or the last ping: signaled. */
				if (dp_ops_post(e, IWCM_WR_SEND,
						e->done + !r->server == total) <
				    0)
					return;
			}
			if (e->done == total && !fin[i]) {
				fin[i] = true;
				left--;
			}
		}
	}
	dp_side_mark(&b);
	for (i = 0; i < q; i++) {
		if (dp_wait_sent(&r->eps[i], r->eps[i].posted) < 0)
			return;
	}
	dp_side_span(&r->side, &a, &b);
	dp_side_verify(&r->side, r->server ? "ping" : "pong",
		       last->rx + (size_t)slot * last->rx_len, size);
}

/* The server's part once READY is sent; sets its CPU span. */
void dp_ops_serve(struct dp_run *r, struct dp_ep *e)
{
	unsigned long i, total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	uint32_t slot = 0, len;
	unsigned int k;
	uint64_t v;

	if (r->neps > 1 && r->t == BENCH_DP_SEND_LAT) {
		dp_ops_lat_multi(r);
		return;
	}
	switch (r->t) {
	case BENCH_DP_WRITE_BW:
	case BENCH_DP_READ_BW:
	case BENCH_DP_ATOMIC_LAT:
		/* The client's Writes, Reads or atomics complete nothing
		 * here: wait for DONE as long as the QPs work. */
		for (k = 0; k < r->neps; k++)
			r->eps[k].passive = true;
		for (k = 0; k < r->neps; k++) {
			if (dp_wait_msg(&r->eps[k], DP_MSG_START) < 0)
				return;
		}
		dp_side_mark(&a);
		for (k = 0; k < r->neps; k++) {
			if (dp_wait_msg(&r->eps[k], DP_MSG_DONE) < 0)
				return;
		}
		dp_side_mark(&b);
		break;
	case BENCH_DP_SEND_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_wait_recv(e, &slot, &len) < 0)
				return;
			if (len != size) {
				dp_side_fail(&r->side, "a ping of %u octets",
					     len);
				return;
			}
			if (dp_ops_post(e, IWCM_WR_SEND, i + 1 == total) < 0)
				return;
		}
		dp_side_mark(&b);
		if (dp_wait_sent(e, e->posted) < 0)
			return;
		dp_side_verify(&r->side, "ping",
			       e->rx + (size_t)slot * e->rx_len, size);
		break;
	case BENCH_DP_WRITE_LAT:
		for (i = 0; i < total; i++) {
			if (i == r->warm)
				dp_side_mark(&a);
			if (dp_wait_tag(e, &e->buf[size - 1], dp_ops_tag(i)) <
			    0)
				return;
			e->src[size - 1] = dp_ops_tag(i);
			if (dp_ops_post(e, IWCM_WR_RDMA_WRITE, i + 1 == total) <
			    0)
				return;
		}
		dp_side_mark(&b);
		if (dp_wait_sent(e, e->posted) < 0)
			return;
		dp_side_verify(&r->side, "RDMA Write target", e->buf, size - 1);
		break;
	default:
		return;
	}
	dp_side_span(&r->side, &a, &b);
	for (k = 0; r->t == BENCH_DP_WRITE_BW && k < r->neps; k++)
		dp_side_verify(&r->side, "RDMA Write target", r->eps[k].buf,
			       size);
	if (r->t == BENCH_DP_ATOMIC_LAT) {
		memcpy(&v, e->buf, 8);
		if (v != DP_ATOMIC_INIT + total * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "the atomic word is %#llx",
				     (unsigned long long)v);
	}
}

/* The client's part once READY arrived: the measurement. */
void dp_ops_drive(struct dp_run *r, struct dp_ep *e)
{
	unsigned long i, total = r->warm + r->n;
	size_t size = r->o->size;
	struct dp_mark a = { 0 }, b = { 0 };
	uint32_t slot = 0, len;
	unsigned int k;
	uint64_t t0, v;

	if (r->neps > 1 && r->t == BENCH_DP_SEND_LAT) {
		dp_ops_lat_multi(r);
		return;
	}
	if (dp_is_bw(r->t)) {
		if (r->warm && dp_ops_window(r->eps, r->neps, r->warm) < 0)
			return;
		for (k = 0; k < r->neps; k++) {
			if (dp_ops_post_msg(&r->eps[k], DP_MSG_START) < 0)
				return;
		}
		dp_side_mark(&a);
		if (dp_ops_window(r->eps, r->neps, r->n) < 0)
			return;
		dp_side_mark(&b);
		for (k = 0; k < r->neps; k++) {
			if (dp_ops_post_msg(&r->eps[k], DP_MSG_DONE) < 0)
				return;
		}
		for (k = 0; k < r->neps; k++) {
			if (dp_wait_sent(&r->eps[k], r->eps[k].posted) < 0)
				return;
		}
		dp_side_span(&r->side, &a, &b);
		if (r->t == BENCH_DP_READ_BW)
			dp_side_verify(&r->side, "RDMA Read sink", e->src,
				       size);
		return;
	}
	for (i = 0; i < total; i++) {
		bool last = i + 1 == total;

		if (i == r->warm) {
			if (r->t == BENCH_DP_ATOMIC_LAT &&
			    dp_ops_post_msg(e, DP_MSG_START) < 0)
				return;
			dp_side_mark(&a);
		}
		if (r->t == BENCH_DP_WRITE_LAT)
			e->src[size - 1] = dp_ops_tag(i);
		t0 = bench_now_ns();
		switch (r->t) {
		case BENCH_DP_SEND_LAT:
			if (dp_ops_post(e, IWCM_WR_SEND, last) < 0 ||
			    dp_wait_recv(e, &slot, &len) < 0)
				return;
			if (len != size) {
				dp_side_fail(&r->side, "a pong of %u octets",
					     len);
				return;
			}
			break;
		case BENCH_DP_WRITE_LAT:
			if (dp_ops_post(e, IWCM_WR_RDMA_WRITE, last) < 0 ||
			    dp_wait_tag(e, &e->buf[size - 1], dp_ops_tag(i)) <
				    0)
				return;
			break;
		default:
			if (dp_ops_post(e, IWCM_WR_ATOMIC_FETCH_ADD, true) <
				    0 ||
			    dp_wait_sent(e, e->posted) < 0)
				return;
			break;
		}
		if (i >= r->warm)
			r->lat[i - r->warm] = (bench_now_ns() - t0) / 2;
	}
	dp_side_mark(&b);
	if (r->t == BENCH_DP_ATOMIC_LAT && dp_ops_post_msg(e, DP_MSG_DONE) < 0)
		return;
	if (dp_wait_sent(e, e->posted) < 0)
		return;
	dp_side_span(&r->side, &a, &b);
	switch (r->t) {
	case BENCH_DP_SEND_LAT:
		dp_side_verify(&r->side, "pong",
			       e->rx + (size_t)slot * e->rx_len, size);
		break;
	case BENCH_DP_WRITE_LAT:
		dp_side_verify(&r->side, "RDMA Write target", e->buf, size - 1);
		break;
	default:
		memcpy(&v, e->src, 8);
		if (v != DP_ATOMIC_INIT + (total - 1) * DP_ATOMIC_ADD)
			dp_side_fail(&r->side, "FetchAdd returned %#llx",
				     (unsigned long long)v);
		break;
	}
}
