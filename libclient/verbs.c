/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The datapath of a context and the queue pair verbs of <iwcm/verbs.h>:
 * creation from a connection, destruction, disconnect, query and work
 * request posting.  The other verbs objects are in pd_mr.c, cq.c, srq.c,
 * stag.c and async.c; the engine that moves the data is qp.c, qp_tx.c
 * and qp_rx.c; the thread is progress.c.  dp.h explains the locking.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dp.h"

static void qp_free(struct iwcm_qp *qp)
{
	qp_engine_free(qp);
	/* QP_A_RELEASE or QP_A_RELEASE_RST chose FIN or reset. */
	if (qp->fd >= 0)
		close(qp->fd);
	if (qp->abort_fd >= 0)
		close(qp->abort_fd);
	rq_free(&qp->rq);
	pthread_mutex_destroy(&qp->lock);
	free(qp);
}

/* Free every datapath object of a context. */
void dp_ctx_free(struct iwcm_ctx *ctx)
{
	struct dp *dp = ctx->dp;
	struct iwcm_qp *qp;
	struct iwcm_srq *srq;
	struct iwcm_cq *cq;
	struct iwcm_comp_channel *ch;
	struct iwcm_mr *mr;
	struct iwcm_pd *pd;

	if (!dp)
		return;
	progress_stop(dp);
	while ((qp = TAILQ_FIRST(&dp->qps))) {
		TAILQ_REMOVE(&dp->qps, qp, entry);
		/* No thread is left: the Terminate goes out here. */
		qp_linger(qp, NULL);
		qp_event(qp, QP_EV_CTX_CLOSE, NULL);
		qp_free(qp);
	}
	while ((srq = TAILQ_FIRST(&dp->srqs))) {
		TAILQ_REMOVE(&dp->srqs, srq, entry);
		srq_free(srq);
	}
	while ((cq = TAILQ_FIRST(&dp->cqs))) {
		TAILQ_REMOVE(&dp->cqs, cq, entry);
		cq_free(cq);
	}
	while ((ch = TAILQ_FIRST(&dp->channels))) {
		TAILQ_REMOVE(&dp->channels, ch, entry);
		channel_free(ch);
	}
	while ((mr = TAILQ_FIRST(&dp->mrs))) {
		TAILQ_REMOVE(&dp->mrs, mr, entry);
		free(mr);
	}
	while ((pd = TAILQ_FIRST(&dp->pds))) {
		TAILQ_REMOVE(&dp->pds, pd, entry);
		free(pd);
	}
	dp_stag_table_free(&dp->stags);
	free(dp->aq);
	close(dp->async_fd);
	pthread_cond_destroy(&dp->cond);
	pthread_mutex_destroy(&dp->alock);
	pthread_mutex_destroy(&dp->sync_lock);
	pthread_mutex_destroy(&dp->lock);
	free(dp);
	ctx->dp = NULL;
}

/* ---- queue pairs ---- */

static int qp_attr_check(const struct iwcm_pd *pd,
			 const struct iwcm_qp_init_attr *a)
{
	const uint32_t known = IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT |
			       IWCM_QP_INIT_ATTR_RECV_WR;

	if (!a || (a->comp_mask & ~known) || !a->send_cq || !a->recv_cq)
		return ERR(EINVAL);
	if ((a->comp_mask & IWCM_QP_INIT_ATTR_RECV_WR) && a->srq)
		return ERR(EINVAL);
	if ((a->comp_mask & IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT) &&
	    (!a->disconnect_timeout_ms ||
	     a->disconnect_timeout_ms > DP_DISCONNECT_TIMEOUT_MAX))
		return ERR(EINVAL);
	if (a->send_cq->ctx != pd->ctx || a->recv_cq->ctx != pd->ctx)
		return ERR(EINVAL);
	if (a->srq && a->srq->pd != pd)
		return ERR(EINVAL);
	if (!a->max_send_wr || a->max_send_wr > DP_MAX_WR ||
	    (!a->srq && (!a->max_recv_wr || a->max_recv_wr > DP_MAX_WR)) ||
	    a->max_send_sge > DP_MAX_SGE || a->max_recv_sge > DP_MAX_SGE ||
	    a->max_inline_data > DP_MAX_INLINE)
		return ERR(EINVAL);
	return 0;
}

/* The receives queued before the QP reads an octet: all of them, or none
 * (EINVAL) when one is one iwcm_post_recv() would refuse or they
 * overflow the queue. */
static int qp_initial_recv(struct iwcm_qp *qp, struct iwcm_recv_wr *wr)
{
	uint32_t n = 0;

	for (const struct iwcm_recv_wr *w = wr; w; w = w->next)
		if (rq_check(&qp->rq, w) < 0 || ++n > qp->rq.size)
			return ERR(EINVAL);
	for (; wr; wr = wr->next)
		rq_push(&qp->rq, wr);
	return 0;
}

/* Create a queue pair on an established connection, taking its socket. */
IWCM_EXPORT struct iwcm_qp *iwcm_create_qp(struct iwcm_conn *conn,
					   struct iwcm_pd *pd,
					   const struct iwcm_qp_init_attr *attr)
{
	struct dp *dp;
	struct iwcm_qp *qp;
	int fd, fl, one = 1, e;

	if (!conn || !pd || conn->ctx != pd->ctx)
		return ERR_PTR(EINVAL);
	if (qp_attr_check(pd, attr) < 0)
		return NULL;
	/* ENOTCONN, EBADF; exactly once against any thread (cm.c). */
	fd = cm_conn_take_fd(conn);
	if (fd < 0)
		return NULL;
	/* MPA over TCP, or DDP over SCTP through iwcmd's relay (RFC 5043) */
	if (conn->transport != IWCM_TRANSPORT_TCP &&
	    conn->transport != IWCM_TRANSPORT_SCTP) {
		cm_conn_return_fd(conn);
		return ERR_PTR(EOPNOTSUPP);
	}
	dp = pd->ctx->dp;

	qp = calloc(1, sizeof(*qp));
	if (!qp) {
		cm_conn_return_fd(conn);
		return ERR_PTR(ENOMEM);
	}
	pthread_mutex_init(&qp->lock, NULL);
	qp->ctx = pd->ctx;
	qp->pd = pd;
	qp->fd = -1;
	qp->abort_fd = -1;
	qp->disconnect_ms = DP_DISCONNECT_TIMEOUT_MS;
	if (attr->comp_mask & IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT)
		qp->disconnect_ms = attr->disconnect_timeout_ms;
	qp->send_cq = attr->send_cq;
	qp->recv_cq = attr->recv_cq;
	qp->srq = attr->srq;
	qp->qp_context = attr->qp_context;
	qp->sq_sig_all = attr->sq_sig_all;
	qp->max_send_sge = attr->max_send_sge ? attr->max_send_sge : 1;
	qp->max_recv_sge = attr->max_recv_sge ? attr->max_recv_sge : 1;
	qp->max_inline = attr->max_inline_data;
	qp->sq_size = attr->max_send_wr;
	qp->fsm_state = QP_S_RTS;
	/* The progress thread takes the first octets (the daemon's, and
	 * what was posted), until an application thread comes. */
	qp->bg = true;
	qp->cp_fd = -1;
	if (!qp->srq &&
	    rq_init(&qp->rq, attr->max_recv_wr, qp->max_recv_sge) < 0) {
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(ENOMEM);
	}
	if ((attr->comp_mask & IWCM_QP_INIT_ATTR_RECV_WR) &&
	    qp_initial_recv(qp, attr->recv_wr) < 0) {
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(EINVAL);
	}
	if (qp_engine_init(qp, conn) < 0) {
		e = errno;
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}

	/* The engine never blocks on the socket; FPDUs go out whole. */
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		e = errno;
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));

	pthread_mutex_lock(&dp->lock);
	if (progress_start(dp) < 0) {
		e = errno;
		pthread_mutex_unlock(&dp->lock);
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}
	if (cqw_qp_attach(qp) < 0) {
		e = errno;
		pthread_mutex_unlock(&dp->lock);
		qp_free(qp);
		cm_conn_return_fd(conn);
		return ERR_PTR(e);
	}
	/* The connection keeps its state; the socket is the QP's. */
	qp->fd = fd;
	pd->refs++;
	qp->send_cq->refs++;
	qp->recv_cq->refs++;
	if (qp->srq)
		qp->srq->refs++;
	TAILQ_INSERT_TAIL(&dp->qps, qp, entry);
	pthread_mutex_lock(&qp->lock);
	cqw_qp_sync(qp);
	progress_sync_qp(dp, qp);
	pthread_mutex_unlock(&qp->lock);
	pthread_mutex_unlock(&dp->lock);
	return qp;
}

/* Destroy a queue pair and close its socket. */
IWCM_EXPORT int iwcm_destroy_qp(struct iwcm_qp *qp)
{
	struct dp *dp;

	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&qp->lock);
	/* RFC 5040 §5.4: a Terminate queued leaves before the FIN or the
	 * reset, whatever the application does next. */
	qp_linger(qp, &qp->lock);
	qp_event(qp, QP_EV_DESTROY, NULL);
	pthread_mutex_unlock(&qp->lock);
	/* No other QP waits while this one writes; now the lists. */
	pthread_mutex_lock(&dp->lock);
	progress_detach_qp(dp, qp);
	TAILQ_REMOVE(&dp->qps, qp, entry);
	cq_purge_qp(qp->send_cq, qp);
	if (qp->recv_cq != qp->send_cq)
		cq_purge_qp(qp->recv_cq, qp);
	qp->pd->refs--;
	qp->send_cq->refs--;
	qp->recv_cq->refs--;
	if (qp->srq)
		qp->srq->refs--;
	pthread_mutex_unlock(&dp->lock);
	/* Out of its CQs too; then no thread still holds it (a caller's
	 * pass, a deregistration). */
	cqw_qp_detach(qp);
	qp_free(qp);
	return 0;
}

/* Close gracefully: FIN once the send queue is drained. */
IWCM_EXPORT int iwcm_qp_disconnect(struct iwcm_qp *qp)
{
	struct dp *dp;

	if (!qp)
		return ERR(EINVAL);
	dp = qp->ctx->dp;
	pthread_mutex_lock(&qp->lock);
	if (qp_event(qp, QP_EV_DISCONNECT, NULL) == 0) {
		qp_tx_progress(qp);
		qp_close_check(qp);
		cqw_qp_sync(qp);
		progress_sync_qp(dp, qp);
	}
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

/* What the connection of a queue pair supports. */
IWCM_EXPORT int iwcm_query_qp(const struct iwcm_qp *qp,
			      struct iwcm_qp_attr *attr)
{
	struct iwcm_qp *q = (struct iwcm_qp *)qp;
	uint32_t want;

	/* The caller asks for optional fields with comp_mask; a bit we do
	 * not know may name a field its structure has and ours lacks. */
	if (!qp || !attr || (attr->comp_mask & ~(uint32_t)IWCM_QP_ATTR_ALL))
		return ERR(EINVAL);
	want = attr->comp_mask;
	pthread_mutex_lock(&q->lock);
	attr->state = qp_state_public(qp->fsm_state);
	attr->ird = qp->ird;
	attr->ord = qp->ord;
	attr->rdmap_version = qp->version;
	attr->atomics = qp->atomics;
	attr->imm_data = qp->imm_data;
	attr->markers_tx = qp->markers_tx;
	attr->markers_rx = qp->markers_rx;
	attr->crc = qp->crc;
	attr->mulpdu = qp->mulpdu;
	attr->max_inline_data = qp->max_inline;
	if (want & IWCM_QP_ATTR_MAX_SGE_RD)
		attr->max_sge_rd = DP_MAX_SGE_RD;
	if (want & IWCM_QP_ATTR_DISCONNECT_TIMEOUT)
		attr->disconnect_timeout_ms = qp->disconnect_ms;
	pthread_mutex_unlock(&q->lock);
	return 0;
}

IWCM_EXPORT int iwcm_qp_peer_term(struct iwcm_qp *qp, struct iwcm_term_info *ti)
{
	struct ddp_hdr d;
	size_t used;

	if (!qp || !ti)
		return ERR(EINVAL);
	memset(ti, 0, sizeof(*ti));
	pthread_mutex_lock(&qp->lock);
	if (!qp->peer_term_rx) {
		pthread_mutex_unlock(&qp->lock);
		return ERR(ENOENT);
	}
	ti->layer = qp->peer_term.layer;
	ti->etype = qp->peer_term.etype;
	ti->ecode = qp->peer_term.ecode;
	/* RFC 5040 §4.8: with D, the terminated DDP header follows. */
	if ((qp->peer_term.hdrct & RDMAP_TERM_HDRCT_D) &&
	    ddp_hdr_parse(qp->peer_term.ddp_hdr, qp->peer_term.ddp_hdr_len, &d,
			  &used) == WIRE_OK) {
		if (d.tagged) {
			ti->flags |= IWCM_TERM_TAGGED;
			ti->stag = d.stag;
			ti->to = d.to;
		} else {
			ti->flags |= IWCM_TERM_UNTAGGED;
			ti->qn = d.qn;
			ti->msn = d.msn;
			ti->mo = d.mo;
		}
	}
	pthread_mutex_unlock(&qp->lock);
	return 0;
}

/* The qp_context given at creation. */
IWCM_EXPORT void *iwcm_qp_get_context(const struct iwcm_qp *qp)
{
	return qp ? qp->qp_context : NULL;
}

static bool wr_is_atomic(int op)
{
	return op == IWCM_WR_ATOMIC_FETCH_ADD || op == IWCM_WR_ATOMIC_CMP_SWP ||
	       op == IWCM_WR_ATOMIC_SWAP;
}

/* Check a send work request against the QP; errno for iwcm_post_send. */
static int sq_wr_check(const struct iwcm_qp *qp, const struct iwcm_send_wr *wr,
		       uint64_t *total)
{
	const unsigned int flags_all = IWCM_SEND_SIGNALED |
				       IWCM_SEND_SOLICITED | IWCM_SEND_FENCE |
				       IWCM_SEND_INLINE;
	uint64_t t = 0;
	int op = wr->opcode;

	/* No optional field yet: a bit set names one we cannot read. */
	if (wr->comp_mask)
		return ERR(EINVAL);
	if (op < IWCM_WR_SEND || op > IWCM_WR_ATOMIC_SWAP ||
	    (wr->send_flags & ~flags_all) || wr->num_sge < 0 ||
	    (wr->num_sge && !wr->sg_list))
		return ERR(EINVAL);
	if ((uint32_t)wr->num_sge > qp->max_send_sge)
		return ERR(EINVAL);
	for (int i = 0; i < wr->num_sge; i++)
		t += wr->sg_list[i].length;
	/* RFC 5041 §5.2: a ULP message is shorter than 2^32. */
	if (t > UINT32_MAX)
		return ERR(EINVAL);
	if (wr->send_flags & IWCM_SEND_INLINE) {
		if (t > qp->max_inline ||
		    !(op == IWCM_WR_SEND || op == IWCM_WR_SEND_WITH_INV ||
		      op == IWCM_WR_RDMA_WRITE ||
		      op == IWCM_WR_RDMA_WRITE_WITH_IMM))
			return ERR(EINVAL);
	}
	if ((op == IWCM_WR_IMM_DATA || op == IWCM_WR_RDMA_WRITE_WITH_IMM) &&
	    !qp->imm_data)
		return ERR(EOPNOTSUPP);
	if (op == IWCM_WR_IMM_DATA && wr->num_sge)
		return ERR(EINVAL);
	if (op == IWCM_WR_RDMA_READ) {
		/* RFC 5040 §4.4: the Read Request names one Data Sink STag
		 * and TO, so the response lands in one local buffer. */
		if ((uint32_t)wr->num_sge > DP_MAX_SGE_RD || !qp->ord)
			return ERR(EINVAL);
		if (wr->num_sge && wr->wr.rdma.remote_addr > UINT64_MAX - t)
			return ERR(EINVAL);
	}
	if (wr_is_atomic(op)) {
		if (!qp->atomics)
			return ERR(EOPNOTSUPP);
		/* RFC 7306 §5.1: 64-bit aligned targets, one 8-octet
		 * result buffer. */
		if (wr->num_sge != 1 || wr->sg_list[0].length != 8 ||
		    (wr->wr.atomic.remote_addr & 7) || !qp->ord)
			return ERR(EINVAL);
	}
	*total = t;
	return 0;
}

static void sq_wqe_fill(struct iwcm_qp *qp, struct sq_wqe *w,
			const struct iwcm_send_wr *wr, uint64_t total)
{
	struct iwcm_sge *sge = w->sge;
	uint8_t *inl = w->inl_buf;

	memset(w, 0, sizeof(*w));
	w->sge = sge;
	w->inl_buf = inl;
	w->wr_id = wr->wr_id;
	w->opcode = (uint8_t)wr->opcode;
	w->state = WQE_QUEUED;
	w->signaled = qp->sq_sig_all || (wr->send_flags & IWCM_SEND_SIGNALED);
	w->solicited = wr->send_flags & IWCM_SEND_SOLICITED;
	w->fence = wr->send_flags & IWCM_SEND_FENCE;
	w->total = total;
	w->imm = wr->imm_data;
	w->inv_stag = wr->invalidate_stag;
	if (wr_is_atomic(wr->opcode)) {
		w->raddr = wr->wr.atomic.remote_addr;
		w->rkey = wr->wr.atomic.rkey;
		w->cmp_add = wr->wr.atomic.compare_add;
		w->cmp_add_mask = wr->wr.atomic.compare_add_mask;
		w->swap = wr->wr.atomic.swap;
		w->swap_mask = wr->wr.atomic.swap_mask;
	} else {
		w->raddr = wr->wr.rdma.remote_addr;
		w->rkey = wr->wr.rdma.rkey;
	}
	if (wr->send_flags & IWCM_SEND_INLINE) {
		uint64_t off = 0;

		/* Copied now: the caller may reuse its buffers at once. */
		for (int i = 0; i < wr->num_sge; i++) {
			const struct iwcm_sge *s = &wr->sg_list[i];

			if (s->length)
				memcpy(inl + off,
				       (const void *)(uintptr_t)s->addr,
				       s->length);
			off += s->length;
		}
		w->inl = true;
		w->num_sge = 0;
	} else {
		w->num_sge = wr->num_sge;
		for (int i = 0; i < wr->num_sge; i++)
			sge[i] = wr->sg_list[i];
	}
}

/*
 * Post a list of send work requests.  As ibv_post_send(): the error
 * number is returned (errno untouched) and *bad_wr names the first
 * request not posted; the ones before it are posted, none after it.
 */
IWCM_EXPORT int iwcm_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr,
			       struct iwcm_send_wr **bad_wr)
{
	struct dp *dp;
	int e = 0, r, saved = errno;
	bool posted = false;

	if (bad_wr)
		*bad_wr = NULL;
	if (!qp) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	dp = qp->ctx->dp;
	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		uint64_t total = 0;
		struct sq_wqe *w;

		if (sq_wr_check(qp, wr, &total) < 0) {
			e = errno;
			break;
		}
		/* CLOSING refuses; in error, as libibverbs, flushed at
		 * once. */
		r = qp_post_event(qp, QP_EV_POST_SEND, wr->wr_id,
				  dp_wc_opcode(wr->opcode));
		if (r < 0) {
			e = errno;
			break;
		}
		if (r > 0)
			continue;
		if (qp->sq_pi - qp->sq_ci == qp->sq_size) {
			e = ENOMEM;
			break;
		}
		w = &qp->sq[qp->sq_pi % qp->sq_size];
		sq_wqe_fill(qp, w, wr, total);
		qp->sq_pi++;
		posted = true;
	}
	cprog_touch(qp);
	if (posted) {
		qp_tx_progress(qp);
		cqw_qp_sync(qp);
		progress_sync_qp(dp, qp);
	}
	pthread_mutex_unlock(&qp->lock);
	errno = saved;
	if (e && bad_wr)
		*bad_wr = wr;
	return e;
}

/* Free send queue entries: a completed request gives its entry back
 * (qp_sq_reap()), read from the CQ or not. */
IWCM_EXPORT int iwcm_qp_send_room(struct iwcm_qp *qp)
{
	uint32_t used;

	if (!qp)
		return ERR(EINVAL);
	pthread_mutex_lock(&qp->lock);
	used = qp->sq_pi - qp->sq_ci;
	pthread_mutex_unlock(&qp->lock);
	return (int)(qp->sq_size - used);
}

/* Post a list of receive work requests; returns as iwcm_post_send(). */
IWCM_EXPORT int iwcm_post_recv(struct iwcm_qp *qp, struct iwcm_recv_wr *wr,
			       struct iwcm_recv_wr **bad_wr)
{
	int e = 0, r, saved = errno;
	bool posted = false;

	if (bad_wr)
		*bad_wr = NULL;
	if (!qp) {
		if (bad_wr)
			*bad_wr = wr;
		return EINVAL;
	}
	pthread_mutex_lock(&qp->lock);
	for (; wr; wr = wr->next) {
		if (qp->srq || rq_check(&qp->rq, wr) < 0) {
			e = EINVAL;
			break;
		}
		r = qp_post_event(qp, QP_EV_POST_RECV, wr->wr_id, IWCM_WC_RECV);
		if (r < 0) {
			e = errno;
			break;
		}
		if (r > 0)
			continue;
		if (qp->rq.count == qp->rq.size) {
			e = ENOMEM;
			break;
		}
		rq_push(&qp->rq, wr);
		posted = true;
	}
	/* A segment may have waited for this buffer (it never does: a
	 * Send without a buffer is a Terminate), nothing else to do. */
	(void)posted;
	cprog_touch(qp);
	pthread_mutex_unlock(&qp->lock);
	errno = saved;
	if (e && bad_wr)
		*bad_wr = wr;
	return e;
}

/* A readable name for a completion status. */
IWCM_EXPORT const char *iwcm_wc_status_str(enum iwcm_wc_status status)
{
	static const char *const names[] = {
		[IWCM_WC_SUCCESS] = "success",
		[IWCM_WC_LOC_LEN_ERR] = "local length error",
		[IWCM_WC_LOC_QP_OP_ERR] = "local QP operation error",
		[IWCM_WC_LOC_EEC_OP_ERR] = "local EE context operation error",
		[IWCM_WC_LOC_PROT_ERR] = "local protection error",
		[IWCM_WC_WR_FLUSH_ERR] = "Work Request Flushed Error",
		[IWCM_WC_MW_BIND_ERR] = "memory management operation error",
		[IWCM_WC_BAD_RESP_ERR] = "bad response error",
		[IWCM_WC_LOC_ACCESS_ERR] = "local access error",
		[IWCM_WC_REM_INV_REQ_ERR] = "remote invalid request error",
		[IWCM_WC_REM_ACCESS_ERR] = "remote access error",
		[IWCM_WC_REM_OP_ERR] = "remote operation error",
		[IWCM_WC_RETRY_EXC_ERR] = "transport retry counter exceeded",
		[IWCM_WC_RNR_RETRY_EXC_ERR] = "RNR retry counter exceeded",
		[IWCM_WC_LOC_RDD_VIOL_ERR] = "local RDD violation error",
		[IWCM_WC_REM_INV_RD_REQ_ERR] = "remote invalid RD request",
		[IWCM_WC_REM_ABORT_ERR] = "aborted error",
		[IWCM_WC_INV_EECN_ERR] = "invalid EE context number",
		[IWCM_WC_INV_EEC_STATE_ERR] = "invalid EE context state",
		[IWCM_WC_FATAL_ERR] = "fatal error",
		[IWCM_WC_RESP_TIMEOUT_ERR] = "response timeout error",
		[IWCM_WC_GENERAL_ERR] = "general error",
	};

	int i = (int)status;

	if (i < 0 || (size_t)i >= sizeof(names) / sizeof(names[0]))
		return "unknown";
	return names[i];
}
