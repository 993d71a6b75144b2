/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcm-rping: one connection: its buffers, QP and the state machine its completions advance. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rping.h"

/* clang-format off */
static const char *const rc_state_names[] = {
	[RC_NEGOTIATING] = "NEGOTIATING",
	[RC_READ_ADV] = "RDMA_READ_ADV",
	[RC_READ] = "RDMA_READ",
	[RC_WRITE_ADV] = "RDMA_WRITE_ADV",
	[RC_WRITE] = "RDMA_WRITE",
	[RC_SERVED] = "SERVED",
	[RC_GO_SOURCE] = "WAIT_GO_SOURCE",
	[RC_GO_SINK] = "WAIT_GO_SINK",
	[RC_CLOSING] = "CLOSING",
};
/* clang-format on */

/* ---- one connection ---- */

static struct iwcm_mr *rc_reg(struct rping_conn *rc, void *buf, size_t len,
			      unsigned int access, const char *what)
{
	struct iwcm_mr *mr = iwcm_reg_mr(rc->rp->pd, buf, len, access);

	if (!mr)
		err("conn %" PRIu64 ": registering the %s buffer: %s", rc->id,
		    what, strerror(errno));
	return mr;
}

/* Buffers and memory regions, each with only the access rping uses. */
static int rc_setup_buffers(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	size_t size = (size_t)o->size;
	int i;

	rc->recv_mr = rc_reg(rc, rc->recv_buf, sizeof(rc->recv_buf),
			     IWCM_ACCESS_LOCAL_WRITE, "receive");
	if (!rc->recv_mr)
		return -1;
	for (i = 0; i < 2; i++) {
		rc->send_mr[i] = rc_reg(rc, rc->send_buf[i],
					sizeof(rc->send_buf[i]), 0, "send");
		if (!rc->send_mr[i])
			return -1;
	}
	rc->rdma_buf = calloc(1, size);
	if (!rc->rdma_buf) {
		err("out of memory");
		return -1;
	}
	/*
	 * The server's buffer is the sink of its RDMA Read and the source of
	 * its RDMA Write; the client's is the sink of the server's RDMA
	 * Write.  RFC 5042 §5.1: grant no more than that.
	 */
	rc->rdma_mr = rc_reg(rc, rc->rdma_buf, size,
			     IWCM_ACCESS_LOCAL_WRITE |
				     (o->server ? 0 : IWCM_ACCESS_REMOTE_WRITE),
			     "RDMA");
	if (!rc->rdma_mr)
		return -1;
	if (o->server) {
		if (o->validate) {
			rc->expect_buf = malloc(size);
			if (!rc->expect_buf) {
				err("out of memory");
				return -1;
			}
		}
		return 0;
	}
	rc->start_buf = calloc(1, size);
	if (!rc->start_buf) {
		err("out of memory");
		return -1;
	}
	rc->start_mr = rc_reg(rc, rc->start_buf, size, IWCM_ACCESS_REMOTE_READ,
			      "start");
	return rc->start_mr ? 0 : -1;
}

struct rping_conn *rc_new(struct rping *rp, struct iwcm_conn *conn)
{
	struct rping_conn *rc = calloc(1, sizeof(*rc));

	if (!rc) {
		err("out of memory");
		return NULL;
	}
	rc->rp = rp;
	rc->conn = conn;
	rc->id = conn_attr(conn).id;
	rc->state = RC_NEGOTIATING;
	rc->next = rp->conns;
	rp->conns = rc;
	return rc;
}

static bool rc_is_server(const struct rping_conn *rc)
{
	return rc->rp->o->server == 1;
}

/* Free a connection: QP, CQ, regions, buffers, the iwcm connection. */
void rc_free(struct rping_conn *rc)
{
	struct rping_conn **pp;
	int i;

	for (pp = &rc->rp->conns; *pp; pp = &(*pp)->next) {
		if (*pp == rc) {
			*pp = rc->next;
			break;
		}
	}
	if (rc->qp) {
		if (iwcm_destroy_qp(rc->qp) < 0)
			err("conn %" PRIu64 ": iwcm_destroy_qp: %s", rc->id,
			    strerror(errno));
		/* No event of this QP can come later: drop those queued. */
		rp_async_drain(rc->rp);
	}
	if (rc->srq && iwcm_destroy_srq(rc->srq) < 0)
		err("conn %" PRIu64 ": iwcm_destroy_srq: %s", rc->id,
		    strerror(errno));
	if (rc->cq && iwcm_destroy_cq(rc->cq) < 0)
		err("conn %" PRIu64 ": iwcm_destroy_cq: %s", rc->id,
		    strerror(errno));
	iwcm_dereg_mr(rc->recv_mr);
	for (i = 0; i < 2; i++)
		iwcm_dereg_mr(rc->send_mr[i]);
	iwcm_dereg_mr(rc->rdma_mr);
	iwcm_dereg_mr(rc->start_mr);
	free(rc->rdma_buf);
	free(rc->start_buf);
	free(rc->expect_buf);
	iwcm_conn_free(rc->conn);
	free(rc);
}

/*
 * The connection is over: count the outcome, free it, and end the
 * program unless this is a persistent server.
 */
void rc_end(struct rping_conn *rc)
{
	struct rping *rp = rc->rp;
	bool ok = rc->ok && !rc->failed;

	dbg("conn %" PRIu64 ": %s after %d ping%s", rc->id,
	    ok ? "done" : "failed", rc->ping, rc->ping == 1 ? "" : "s");
	if (!ok)
		rp->failures++;
	rc_free(rc);
	if (!rp->o->persistent)
		rp->done = true;
}

/* Start a graceful close; the end comes with the flush or a timeout. */
static void rc_disconnect(struct rping_conn *rc)
{
	if (rc->state == RC_CLOSING)
		return;
	rc->state = RC_CLOSING;
	rc->close_deadline = now_ms() + RPING_CLOSE_MS;
	if (!rc->qp) {
		rc_end(rc);
		return;
	}
	if (iwcm_qp_disconnect(rc->qp) < 0)
		dbg("conn %" PRIu64 ": iwcm_qp_disconnect: %s", rc->id,
		    strerror(errno));
}

static void rc_fail(struct rping_conn *rc)
{
	rc->failed = true;
	rc_disconnect(rc);
}

/*
 * The QP is closed (flushed, peer closed or Terminate): decide whether
 * the connection ended where rping ends successfully, then free it.
 */
static void rc_closed(struct rping_conn *rc, const char *why)
{
	const struct rping_opts *o = rc->rp->o;

	switch (rc->state) {
	case RC_CLOSING:
		break;
	case RC_READ_ADV:
		/* The client closed between pings, as rping's does. */
		fprintf(stderr, "server DISCONNECT EVENT...\n");
		if (o->count && rc->ping != o->count) {
			err("conn %" PRIu64 ": the client closed after %d of "
			    "%d pings",
			    rc->id, rc->ping, o->count);
			rc->failed = true;
		} else {
			rc->ok = true;
		}
		break;
	case RC_SERVED:
		fprintf(stderr, "server DISCONNECT EVENT...\n");
		rc->ok = true;
		break;
	case RC_GO_SOURCE:
		fprintf(stderr, "client DISCONNECT EVENT...\n");
		if (!o->count && rc->ping > 0) {
			/* Forever: the server ended the session. */
			rc->ok = true;
			break;
		}
		/* FALLTHROUGH */
	default:
		err("conn %" PRIu64 ": connection closed (%s) in state %s "
		    "after %d ping%s",
		    rc->id, why, rc_state_names[rc->state], rc->ping,
		    rc->ping == 1 ? "" : "s");
		rc->failed = true;
		break;
	}
	rc_end(rc);
}

static int rc_post_send(struct rping_conn *rc, struct iwcm_send_wr *wr)
{
	struct iwcm_send_wr *bad = NULL;
	int e = iwcm_post_send(rc->qp, wr, &bad);

	if (e) {
		err("conn %" PRIu64 ": post send error: %s", rc->id,
		    strerror(e));
		rc_fail(rc);
		return -1;
	}
	return 0;
}

static int rc_post_recv(struct rping_conn *rc)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->recv_buf,
		.length = sizeof(rc->recv_buf),
		.lkey = iwcm_mr_get_stag(rc->recv_mr),
	};
	struct iwcm_recv_wr wr = {
		.wr_id = WR_RECV,
		.sg_list = &sge,
		.num_sge = 1,
	};
	struct iwcm_recv_wr *bad = NULL;
	int e = iwcm_post_srq_recv(rc->srq, &wr, &bad);

	if (e) {
		err("conn %" PRIu64 ": post recv error: %s", rc->id,
		    strerror(e));
		rc_fail(rc);
		return -1;
	}
	return 0;
}

/* A Send of one 16-octet rping_rdma_info from send_buf[i]. */
static int rc_send_info(struct rping_conn *rc, int i, uint64_t wr_id)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->send_buf[i],
		.length = RPING_INFO_LEN,
		.lkey = iwcm_mr_get_stag(rc->send_mr[i]),
	};
	struct iwcm_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IWCM_WR_SEND,
		.send_flags = IWCM_SEND_SIGNALED,
	};

	return rc_post_send(rc, &wr);
}

/* An RDMA Read or Write between rdma_buf and the advertised buffer. */
static int rc_rdma(struct rping_conn *rc, int opcode, uint32_t len,
		   uint64_t wr_id)
{
	struct iwcm_sge sge = {
		.addr = (uintptr_t)rc->rdma_buf,
		.length = len,
		.lkey = iwcm_mr_get_stag(rc->rdma_mr),
	};
	struct iwcm_send_wr wr = {
		.wr_id = wr_id,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = opcode,
		.send_flags = IWCM_SEND_SIGNALED,
	};

	wr.wr.rdma.remote_addr = rc->remote_addr;
	wr.wr.rdma.rkey = rc->remote_rkey;
	return rc_post_send(rc, &wr);
}

/* Client: fill the start buffer for the next ping and advertise it. */
static void rc_client_ping(struct rping_conn *rc)
{
	size_t size = (size_t)rc->rp->o->size;

	ping_fill(rc->start_buf, size, rc->ping);
	/* Whatever the sink holds now must not pass for the echo. */
	memset(rc->rdma_buf, 0, size);
	info_build(rc->send_buf[0], (uintptr_t)rc->start_buf,
		   iwcm_mr_get_stag(rc->start_mr), (uint32_t)size);
	dbg("RDMA addr %" PRIxPTR " rkey %" PRIx32 " len %zu",
	    (uintptr_t)rc->start_buf, iwcm_mr_get_stag(rc->start_mr), size);
	rc->state = RC_GO_SOURCE;
	rc_send_info(rc, 0, WR_SEND_SOURCE);
}

/* Client: a go-ahead arrived. */
static void rc_client_recv(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	size_t size = (size_t)o->size;

	switch (rc->state) {
	case RC_GO_SOURCE:
		info_build(rc->send_buf[1], (uintptr_t)rc->rdma_buf,
			   iwcm_mr_get_stag(rc->rdma_mr), (uint32_t)size);
		dbg("RDMA addr %" PRIxPTR " rkey %" PRIx32 " len %zu",
		    (uintptr_t)rc->rdma_buf, iwcm_mr_get_stag(rc->rdma_mr),
		    size);
		rc->state = RC_GO_SINK;
		rc_send_info(rc, 1, WR_SEND_SINK);
		return;
	case RC_GO_SINK:
		break;
	default:
		err("conn %" PRIu64 ": unexpected message from the server in "
		    "state %s",
		    rc->id, rc_state_names[rc->state]);
		rc_fail(rc);
		return;
	}
	/* The server's RDMA Write is placed before its Send (RFC 5040
	 * §5.5), so the echo is complete now. */
	if (o->validate && memcmp(rc->start_buf, rc->rdma_buf, size) != 0) {
		fprintf(stderr, "data mismatch!\n");
		err("conn %" PRIu64 ": ping %d: the echo differs from what was "
		    "sent",
		    rc->id, rc->ping);
		rc_fail(rc);
		return;
	}
	if (o->verbose)
		printf("ping data: %.*s\n", (int)strnlen(rc->rdma_buf, size),
		       rc->rdma_buf);
	rc->ping++;
	if (o->count && rc->ping >= o->count) {
		rc->ok = true;
		rc_disconnect(rc);
		return;
	}
	rc_client_ping(rc);
}

/* Server: an advertisement arrived. */
static void rc_server_recv(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;
	uint32_t len;

	if (rc->state == RC_SERVED) {
		dbg("conn %" PRIu64 ": ping beyond -C %d, closing", rc->id,
		    o->count);
		rc->ok = true;
		rc_disconnect(rc);
		return;
	}
	if (rc->state != RC_READ_ADV && rc->state != RC_WRITE_ADV) {
		err("conn %" PRIu64 ": unexpected message from the client in "
		    "state %s",
		    rc->id, rc_state_names[rc->state]);
		rc_fail(rc);
		return;
	}
	info_parse(rc->recv_buf, &rc->remote_addr, &rc->remote_rkey,
		   &rc->remote_len);
	dbg("Received rkey %" PRIx32 " addr %" PRIx64 " len %" PRIu32
	    " from peer",
	    rc->remote_rkey, rc->remote_addr, rc->remote_len);

	if (rc->state == RC_READ_ADV) {
		if (rc->remote_len == 0 || rc->remote_len > (uint32_t)o->size) {
			err("conn %" PRIu64 ": the client advertised %" PRIu32
			    " octets, this server takes 1 to %d (-S)",
			    rc->id, rc->remote_len, o->size);
			rc_fail(rc);
			return;
		}
		rc->read_len = rc->remote_len;
		rc->state = RC_READ;
		if (rc_rdma(rc, IWCM_WR_RDMA_READ, rc->read_len, WR_READ) == 0)
			dbg("server posted rdma read req");
		return;
	}

	dbg("server received sink adv");
	/* rping writes back strlen() + 1 octets of what it read. */
	len = (uint32_t)strnlen(rc->rdma_buf, rc->read_len) + 1;
	if (len > rc->read_len)
		len = rc->read_len;
	if (len > rc->remote_len) {
		err("conn %" PRIu64 ": the client's sink holds %" PRIu32
		    " octets, the echo needs %" PRIu32,
		    rc->id, rc->remote_len, len);
		rc_fail(rc);
		return;
	}
	dbg("rdma write from lkey %" PRIx32 " laddr %" PRIxPTR " len %" PRIu32,
	    iwcm_mr_get_stag(rc->rdma_mr), (uintptr_t)rc->rdma_buf, len);
	rc->state = RC_WRITE;
	rc_rdma(rc, IWCM_WR_RDMA_WRITE, len, WR_WRITE);
}

/* Server: the RDMA Read of the client's start buffer completed. */
static void rc_server_read_done(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;

	dbg("server received read complete");
	if (o->validate) {
		ping_fill(rc->expect_buf, rc->read_len, rc->ping);
		if (memcmp(rc->expect_buf, rc->rdma_buf, rc->read_len) != 0) {
			fprintf(stderr, "data mismatch!\n");
			err("conn %" PRIu64 ": ping %d: the client's data is "
			    "not rping's",
			    rc->id, rc->ping);
			rc_fail(rc);
			return;
		}
	}
	if (o->verbose)
		printf("server ping data: %.*s\n",
		       (int)strnlen(rc->rdma_buf, rc->read_len), rc->rdma_buf);
	rc->state = RC_WRITE_ADV;
	if (rc_send_info(rc, 0, WR_SEND_GO) == 0)
		dbg("server posted go ahead");
}

/* Server: the RDMA Write of the echo completed. */
static void rc_server_write_done(struct rping_conn *rc)
{
	const struct rping_opts *o = rc->rp->o;

	dbg("server rdma write complete");
	rc->ping++;
	rc->state = o->count && rc->ping >= o->count ? RC_SERVED : RC_READ_ADV;
	if (rc_send_info(rc, 0, WR_SEND_GO) == 0)
		dbg("server posted go ahead");
}

static void rc_wc_error(struct rping_conn *rc, const struct iwcm_wc *wc)
{
	if (rc->state == RC_CLOSING) {
		dbg("conn %" PRIu64 ": completion status %d while closing",
		    rc->id, wc->status);
		return;
	}
	if (wc->vendor_err)
		err("conn %" PRIu64 ": cq completion failed status %d (%s), "
		    "Terminate layer %" PRIu32 " type %" PRIu32
		    " code %" PRIu32,
		    rc->id, wc->status, iwcm_wc_status_str(wc->status),
		    wc->vendor_err >> 16, (wc->vendor_err >> 8) & 0xff,
		    wc->vendor_err & 0xff);
	else
		err("conn %" PRIu64 ": cq completion failed status %d (%s)",
		    rc->id, wc->status, iwcm_wc_status_str(wc->status));
	rc_fail(rc);
}

/*
 * One completion.  Returns false when the connection was freed (the
 * caller must not touch it again).
 */
static bool rc_handle_wc(struct rping_conn *rc, const struct iwcm_wc *wc)
{
	if (wc->status == IWCM_WC_WR_FLUSH_ERR) {
		/* The QP went to error: the connection is over. */
		rc_closed(rc, "flushed");
		return false;
	}
	if (wc->status != IWCM_WC_SUCCESS) {
		rc_wc_error(rc, wc);
		return true;
	}
	switch (wc->opcode) {
	case IWCM_WC_SEND:
		dbg("send completion");
		break;
	case IWCM_WC_RDMA_READ:
		dbg("rdma read completion");
		if (rc->state == RC_READ)
			rc_server_read_done(rc);
		break;
	case IWCM_WC_RDMA_WRITE:
		dbg("rdma write completion");
		if (rc->state == RC_WRITE)
			rc_server_write_done(rc);
		break;
	case IWCM_WC_RECV:
		dbg("recv completion");
		if (rc->state == RC_CLOSING)
			break;
		if (wc->byte_len != RPING_INFO_LEN) {
			err("conn %" PRIu64
			    ": Received bogus data, size %" PRIu32,
			    rc->id, wc->byte_len);
			rc_fail(rc);
			break;
		}
		if (rc_post_recv(rc) < 0)
			break;
		if (rc_is_server(rc))
			rc_server_recv(rc);
		else
			rc_client_recv(rc);
		break;
	default:
		err("conn %" PRIu64 ": unexpected completion opcode %d", rc->id,
		    wc->opcode);
		rc_fail(rc);
		break;
	}
	return true;
}

/* Poll a connection's CQ dry; false when the connection was freed. */
bool rc_poll(struct rping_conn *rc)
{
	struct iwcm_wc wc[4];
	int i, n;

	while ((n = iwcm_poll_cq(rc->cq, 4, wc)) > 0) {
		for (i = 0; i < n; i++)
			if (!rc_handle_wc(rc, &wc[i]))
				return false;
	}
	if (n < 0) {
		err("conn %" PRIu64 ": iwcm_poll_cq: %s", rc->id,
		    strerror(errno));
		rc->failed = true;
		rc_end(rc);
		return false;
	}
	return true;
}

/* -d: what was negotiated for the connection. */
static void rc_print_params(const struct rping_conn *rc)
{
	struct iwcm_qp_attr a;
	struct iwcm_conn_attr ca;
	char model[40];

	if (!debug)
		return;
	memset(&a, 0, sizeof(a));
	if (iwcm_query_qp(rc->qp, &a) < 0) {
		dbg("conn %" PRIu64 ": iwcm_query_qp: %s", rc->id,
		    strerror(errno));
		return;
	}
	ca = conn_attr(rc->conn);
	if (ca.p2p)
		snprintf(model, sizeof(model), "peer-to-peer (RTR %s)",
			 rtr_name(ca.rtr_type));
	else
		snprintf(model, sizeof(model), "client-server");
	dbg("conn %" PRIu64 ": MPA rev %d, %s, CRC %s, markers tx %s rx %s, "
	    "IRD %" PRIu32 " ORD %" PRIu32 ", RDMAP version %" PRIu32
	    ", over %s",
	    rc->id, (int)ca.mpa_rev, model, a.crc ? "on" : "off",
	    a.markers_tx ? "on" : "off", a.markers_rx ? "on" : "off", a.ird,
	    a.ord, a.rdmap_version,
	    ca.transport == IWCM_TRANSPORT_SCTP ? "SCTP" : "TCP");
}

/*
 * ESTABLISHED: CQ, a receive, the QP on the connection, the first ping.
 *
 * iwcm_create_qp() starts moving data at once, and the peer may Send as
 * soon as it is established (rping's client does): a Send that finds no
 * receive buffer is fatal (RFC 5041 §7.2, "no buffer available").  rping
 * posts its receive before it connects; here the receive goes to a
 * shared receive queue of the connection's own, which exists before the
 * QP does.
 */
void rc_established(struct rping_conn *rc)
{
	struct rping *rp = rc->rp;
	struct iwcm_qp_init_attr attr;
	struct iwcm_srq_init_attr sa = {
		.max_wr = RPING_RQ_DEPTH,
		.max_sge = 1,
	};
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	const char *what;

	if (rc_setup_buffers(rc) < 0)
		goto fail;
	what = "iwcm_create_cq";
	rc->cq = iwcm_create_cq(rp->ctx, RPING_SQ_DEPTH * 2, rc, rp->channel);
	if (!rc->cq)
		goto fail_errno;
	what = "iwcm_req_notify_cq";
	if (iwcm_req_notify_cq(rc->cq, 0) < 0)
		goto fail_errno;
	what = "iwcm_create_srq";
	rc->srq = iwcm_create_srq(rp->pd, &sa);
	if (!rc->srq)
		goto fail_errno;
	if (rc_post_recv(rc) < 0)
		return;
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = rc->cq;
	attr.recv_cq = rc->cq;
	attr.srq = rc->srq;
	attr.max_send_wr = RPING_SQ_DEPTH;
	attr.max_send_sge = 1;
	attr.max_recv_sge = 1;
	attr.qp_context = rc;
	what = "iwcm_create_qp";
	rc->qp = iwcm_create_qp(rc->conn, rp->pd, &attr);
	if (!rc->qp)
		goto fail_errno;
	rc_print_params(rc);
	if (!rc_is_server(rc)) {
		rc_client_ping(rc);
		return;
	}
	if (iwcm_query_qp(rc->qp, &qa) == 0 && qa.ord == 0) {
		err("conn %" PRIu64 ": the connection allows no RDMA Read "
		    "(ORD 0)",
		    rc->id);
		rc_fail(rc);
		return;
	}
	rc->state = RC_READ_ADV;
	return;

fail_errno:
	err("conn %" PRIu64 ": %s: %s", rc->id, what, strerror(errno));
fail:
	rc->failed = true;
	rc_end(rc);
}

/* A QP closed, failed or got a Terminate: end its connection. */
void rc_async(struct rping_conn *rc)
{
	const char *why = "peer closed";

	rc->async_seen = true;
	if (rc->async_type == IWCM_EVENT_QP_TERMINATE) {
		why = "Terminate";
		if (rc->state != RC_CLOSING) {
			err("conn %" PRIu64 ": the peer sent a Terminate: "
			    "layer %u type %u code %u",
			    rc->id, rc->term_layer, rc->term_etype,
			    rc->term_ecode);
			rc->failed = true;
		}
	} else if (rc->async_type == IWCM_EVENT_QP_FATAL) {
		why = "fatal error";
		if (rc->state != RC_CLOSING) {
			err("conn %" PRIu64 ": QP fatal error: layer %u type "
			    "%u code %u",
			    rc->id, rc->term_layer, rc->term_etype,
			    rc->term_ecode);
			rc->failed = true;
		}
	}
	dbg("conn %" PRIu64 ": async event %d (%s)", rc->id, rc->async_type,
	    why);
	/* Completions that came before the close still count. */
	if (rc_poll(rc))
		rc_closed(rc, why);
}
