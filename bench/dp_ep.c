/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The iwcm endpoints of a run: context, PD, CQ and channel, SRQ with its
 * receives, the registered buffers, the connection parameters with the
 * region in private data, and the QP once ESTABLISHED.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include <iwcm/iwcm.h>

#include "bench.h"
#include "dp.h"

/* An in-band control message, and the smallest receive buffer. */
#define DP_CTL_LEN 64
/* Send queue of the latency tests (one data request at a time). */
#define DP_SQ_LAT 64

/* Repost receive slot i. */
int dp_ep_post_rx(struct dp_ep *e, uint32_t i)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)(e->rx + (size_t)i * e->rx_len),
		.length = (uint32_t)e->rx_len,
		.lkey = iwcm_mr_get_stag(e->rx_mr),
	};
	struct iwcm_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	int err = iwcm_post_srq_recv(e->srq, &wr, NULL);

	if (err) {
		dp_side_fail(&e->r->side, "iwcm_post_srq_recv: %s",
			     strerror(err));
		return -1;
	}
	return 0;
}

/* The endpoint of a QP: e itself, or with -q the one of the run's. */
struct dp_ep *dp_ep_of(struct dp_ep *e, const struct iwcm_qp *qp)
{
	struct dp_run *r = e->r;
	unsigned int i;

	if (r->neps <= 1)
		return e;
	for (i = 0; i < r->neps; i++) {
		if (r->eps[i].qp == qp)
			return &r->eps[i];
	}
	return NULL;
}

static struct iwcm_mr *dp_ep_reg(struct dp_ep *e, uint8_t *p, size_t len,
				 unsigned int access)
{
	struct iwcm_mr *mr;

	if (!p)
		return NULL;
	mr = iwcm_reg_mr(e->pd, p, len, access);
	if (!mr)
		dp_side_fail(&e->r->side, "iwcm_reg_mr: %s", strerror(errno));
	return mr;
}

/*
 * The buffers of test t on this side: buf is what the peer reaches
 * (written into, read from, or the atomic word), src what this side
 * sends or writes from, or where its Reads and FetchAdds land.
 */
static int dp_ep_bufs(struct dp_ep *e)
{
	struct dp_run *r = e->r;
	size_t size = r->o->size;
	const unsigned int lw = IWCM_ACCESS_LOCAL_WRITE;
	unsigned int bacc = 0, sacc = 0;
	bool bpat = false, spat = false;

	e->buf_len = e->src_len = 0;
	switch (r->t) {
	case BENCH_DP_WRITE_BW:
		if (r->server) {
			e->buf_len = size;
			bacc = lw | IWCM_ACCESS_REMOTE_WRITE;
		} else {
			e->src_len = size;
			spat = true;
		}
		break;
	case BENCH_DP_READ_BW:
		if (r->server) {
			e->buf_len = size;
			bacc = IWCM_ACCESS_REMOTE_READ;
			bpat = true;
		} else {
			e->src_len = size;
			sacc = lw;
		}
		break;
	case BENCH_DP_SEND_LAT:
		e->src_len = size;
		spat = true;
		break;
	case BENCH_DP_WRITE_LAT:
		e->buf_len = size;
		bacc = lw | IWCM_ACCESS_REMOTE_WRITE;
		e->src_len = size;
		spat = true;
		break;
	case BENCH_DP_ATOMIC_LAT:
		if (r->server) {
			e->buf_len = 8;
			bacc = lw | IWCM_ACCESS_REMOTE_ATOMIC;
		} else {
			e->src_len = 8;
			sacc = lw;
		}
		break;
	default:
		break;
	}
	e->rx_len = DP_CTL_LEN;
	if (r->t == BENCH_DP_SEND_LAT && size > e->rx_len)
		e->rx_len = size;
	e->buf = dp_side_alloc(&r->side, e->buf_len, bpat);
	e->src = dp_side_alloc(&r->side, e->src_len, spat);
	e->rx = dp_side_alloc(&r->side, DP_RX_SLOTS * e->rx_len, false);
	if (!r->side.ok)
		return -1;
	if (r->t == BENCH_DP_ATOMIC_LAT && r->server) {
		uint64_t v = DP_ATOMIC_INIT;

		memcpy(e->buf, &v, 8);
	}
	e->buf_mr = dp_ep_reg(e, e->buf, e->buf_len, bacc);
	e->src_mr = dp_ep_reg(e, e->src, e->src_len, sacc);
	e->rx_mr = dp_ep_reg(e, e->rx, DP_RX_SLOTS * e->rx_len, lw);
	if (!r->side.ok)
		return -1;
	e->sge.addr = (uintptr_t)e->src;
	e->sge.length = (uint32_t)e->src_len;
	e->sge.lkey = iwcm_mr_get_stag(e->src_mr);
	return 0;
}

/* Connection parameters: ours in private data, the options' MPA. */
static struct iwcm_conn_param *dp_ep_param(struct dp_ep *e)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	uint8_t pd[16];
	uint64_t a = (uintptr_t)e->buf;
	uint32_t v;
	int bad = 0;

	if (!p)
		return NULL;
	/* The region the peer may reach: address, STag, length. */
	v = htonl((uint32_t)(a >> 32));
	memcpy(pd, &v, 4);
	v = htonl((uint32_t)a);
	memcpy(pd + 4, &v, 4);
	v = htonl(iwcm_mr_get_stag(e->buf_mr));
	memcpy(pd + 8, &v, 4);
	v = htonl((uint32_t)e->buf_len);
	memcpy(pd + 12, &v, 4);
	bad |= iwcm_conn_param_set_private_data(p, pd, sizeof(pd));
	bad |= iwcm_conn_param_set_ird(p, DP_IRD_ORD);
	bad |= iwcm_conn_param_set_ord(p, DP_IRD_ORD);
	bad |= iwcm_conn_param_set_crc(p, o->crc ? IWCM_CRC_REQUEST :
						   IWCM_CRC_PREFER_OFF);
	bad |= iwcm_conn_param_set_markers(p, o->markers);
	if (!e->r->server)
		bad |= iwcm_conn_param_set_mpa_rev(p, o->mpa_rev);
	/* RFC 6581 §7: revision 2 asks for the enhanced session codes */
	if (o->sctp)
		bad |= iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP);
	if (bad) {
		iwcm_conn_param_free(p);
		return NULL;
	}
	return p;
}

/* Close an endpoint; the context, PD and CQ only if it owns them. */
static void dp_ep_close(struct dp_ep *e)
{
	if (e->qp)
		iwcm_destroy_qp(e->qp);
	iwcm_conn_free(e->conn);
	if (e->l)
		iwcm_listener_close(e->l);
	if (e->srq)
		iwcm_destroy_srq(e->srq);
	if (e->owner && e->cq)
		iwcm_destroy_cq(e->cq);
	if (e->owner && e->ch)
		iwcm_destroy_comp_channel(e->ch);
	if (e->buf_mr)
		iwcm_dereg_mr(e->buf_mr);
	if (e->src_mr)
		iwcm_dereg_mr(e->src_mr);
	if (e->rx_mr)
		iwcm_dereg_mr(e->rx_mr);
	if (e->owner && e->pd)
		iwcm_dealloc_pd(e->pd);
	if (e->owner)
		iwcm_ctx_close(e->ctx);
	iwcm_conn_param_free(e->param);
	free(e->buf);
	free(e->src);
	free(e->rx);
	free(e->wrs);
	memset(e, 0, sizeof(*e));
}

/* Every endpoint of the run, the owner of the shared objects last. */
void dp_ep_close_all(struct dp_run *r)
{
	while (r->neps)
		dp_ep_close(&r->eps[--r->neps]);
	free(r->eps);
	r->eps = NULL;
}

/*
 * Context, PD, CQ (and channel), SRQ with its receives, buffers; with
 * -q the endpoints after the first share its context, PD and CQ.
 */
static int dp_ep_open(struct dp_run *r, struct dp_ep *e,
		      const struct dp_ep *shared)
{
	const struct bench_opts *o = r->o;
	struct iwcm_srq_init_attr sa = { .max_wr = DP_RX_SLOTS, .max_sge = 1 };
	unsigned int flags = IWCM_CTX_NONBLOCK;
	const char *what;
	uint32_t i;

	memset(e, 0, sizeof(*e));
	e->r = r;
	e->owner = !shared;
	e->busy = !o->event;
	e->manual = e->busy && o->manual;
	if (e->manual)
		flags |= IWCM_CTX_MANUAL_PROGRESS;
	e->sq_depth = dp_is_bw(r->t) ? r->depth + 8 : DP_SQ_LAT;
	if (shared) {
		e->ctx = shared->ctx;
		e->pd = shared->pd;
		e->ch = shared->ch;
		e->cq = shared->cq;
		goto own;
	}
	what = "iwcm_ctx_open_path";
	e->ctx = iwcm_ctx_open_path(D.path, flags);
	if (!e->ctx)
		goto fail;
	what = "iwcm_alloc_pd";
	e->pd = iwcm_alloc_pd(e->ctx);
	if (!e->pd)
		goto fail;
	if (!e->busy) {
		what = "iwcm_create_comp_channel";
		e->ch = iwcm_create_comp_channel(e->ctx);
		if (!e->ch)
			goto fail;
		fcntl(iwcm_comp_channel_get_fd(e->ch), F_SETFL, O_NONBLOCK);
	}
	what = "iwcm_create_cq";
	e->cq = iwcm_create_cq(e->ctx,
			       (int)((e->sq_depth + DP_RX_SLOTS + 8) * o->qps),
			       e, e->ch);
	if (!e->cq)
		goto fail;
own:
	what = "iwcm_create_srq";
	e->srq = iwcm_create_srq(e->pd, &sa);
	if (!e->srq)
		goto fail;
	if (dp_is_bw(r->t)) {
		e->wrs = calloc(r->depth, sizeof(*e->wrs));
		if (!e->wrs) {
			errno = ENOMEM;
			what = "calloc";
			goto fail;
		}
	}
	if (dp_ep_bufs(e) < 0)
		return -1;
	for (i = 0; i < DP_RX_SLOTS; i++) {
		if (dp_ep_post_rx(e, i) < 0)
			return -1;
	}
	what = "iwcm_conn_param_new";
	e->param = dp_ep_param(e);
	if (!e->param)
		goto fail;
	return 0;
fail:
	dp_side_fail(&r->side, "%s: %s", what, strerror(errno));
	return -1;
}

/* What libiwcm knows of c (iwcm_conn_query(3)); unknown parts zero. */
struct iwcm_conn_attr dp_ep_conn_attr(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(c, &a) < 0)
		a.comp_mask = 0;
	return a;
}

/* The peer's region from its private data. */
static int dp_ep_peer(struct dp_ep *e)
{
	const uint8_t *pd;
	uint32_t v[4];
	size_t len = 0;
	bool need;

	pd = dp_ep_conn_attr(e->conn).peer_private_data;
	len = dp_ep_conn_attr(e->conn).peer_private_data_len;
	if (!pd || len != sizeof(v)) {
		dp_side_fail(&e->r->side, "the peer's private data: %zu octets",
			     pd ? len : 0);
		return -1;
	}
	memcpy(v, pd, sizeof(v));
	e->r_addr = (uint64_t)ntohl(v[0]) << 32 | ntohl(v[1]);
	e->r_key = ntohl(v[2]);
	e->r_len = ntohl(v[3]);
	need = e->r->t == BENCH_DP_WRITE_LAT ||
	       (!e->r->server && e->r->t != BENCH_DP_SEND_LAT);
	if (need &&
	    e->r_len < (e->r->t == BENCH_DP_ATOMIC_LAT ? 8 : e->r->o->size)) {
		dp_side_fail(&e->r->side, "the peer's region: %u octets",
			     e->r_len);
		return -1;
	}
	return 0;
}

/* ESTABLISHED: what was negotiated is what was asked; the QP. */
int dp_ep_qp(struct dp_ep *e)
{
	const struct bench_opts *o = e->r->o;
	struct iwcm_qp_init_attr attr;
	struct iwcm_qp_attr qa;
	struct dp_nego *n = &e->r->nego;
	const struct iwcm_conn_attr ca = dp_ep_conn_attr(e->conn);
	int crc = ca.crc;
	int mtx = ca.markers_tx;
	int mrx = ca.markers_rx;
	int rev = (int)ca.mpa_rev;

	if (o->sctp) {
		if (ca.transport != IWCM_TRANSPORT_SCTP ||
		    ca.enhanced != (o->mpa_rev == 2) ||
		    !(ca.comp_mask & IWCM_CONN_ATTR_SCTP)) {
			dp_side_fail(&e->r->side,
				     "negotiated transport %d, enhanced %d; "
				     "asked SCTP, enhanced %d",
				     (int)ca.transport, (int)ca.enhanced,
				     o->mpa_rev == 2);
			return -1;
		}
		n->sctp_seg = ca.sctp_max_segment;
	} else if (crc != (int)o->crc || mtx != (int)o->markers ||
		   mrx != (int)o->markers || rev != (int)o->mpa_rev) {
		dp_side_fail(&e->r->side,
			     "negotiated MPA rev %d, CRC %d, markers "
			     "tx %d rx %d; asked rev %u, CRC %d, "
			     "markers %d",
			     rev, crc, mtx, mrx, o->mpa_rev, o->crc,
			     o->markers);
		return -1;
	}
	if (dp_ep_peer(e) < 0)
		return -1;
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e->cq;
	attr.recv_cq = e->cq;
	attr.srq = e->srq;
	attr.max_send_wr = e->sq_depth;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.max_inline_data = DP_INLINE_MAX;
	e->qp = iwcm_create_qp(e->conn, e->pd, &attr);
	if (!e->qp) {
		dp_side_fail(&e->r->side, "iwcm_create_qp: %s",
			     strerror(errno));
		return -1;
	}
	memset(&qa, 0, sizeof(qa));
	if (iwcm_query_qp(e->qp, &qa) == 0) {
		n->known = true;
		n->mpa_rev = o->sctp ? (int)o->mpa_rev : rev;
		n->crc = qa.crc;
		n->markers_tx = qa.markers_tx;
		n->markers_rx = qa.markers_rx;
		n->ird = qa.ird;
		n->ord = qa.ord;
		n->mulpdu = qa.mulpdu;
	}
	if (!e->r->server && n->known && !n->ord &&
	    (e->r->t == BENCH_DP_READ_BW || e->r->t == BENCH_DP_ATOMIC_LAT)) {
		dp_side_fail(&e->r->side,
			     "ORD 0: no RDMA Read or atomic allowed");
		return -1;
	}
	return 0;
}

/* The endpoints of the run (-q of them); -1 when one failed. */
int dp_ep_open_all(struct dp_run *r)
{
	r->eps = calloc(r->o->qps, sizeof(*r->eps));
	if (!r->eps) {
		dp_side_fail(&r->side, "out of memory");
		return -1;
	}
	while (r->neps < r->o->qps) {
		struct dp_ep *e = &r->eps[r->neps];

		/* Counted at once: a failed one has something to close. */
		r->neps++;
		if (dp_ep_open(r, e, e == r->eps ? NULL : r->eps) < 0)
			return -1;
	}
	return 0;
}
