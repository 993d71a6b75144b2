/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Completion queues: an iwcm CQ with a completion channel, whose
 * descriptor is the wait object (FI_WAIT_FD).  Each work request carries
 * a struct iwfi_req as its wr_id, which says what to report.  An error
 * becomes an fi_cq_err_entry; one caused by a Terminate carries its
 * layer, type and code (RFC 5040 §4.8) in prov_errno.  A request may
 * carry a hook (req->on_done) that finishes its work once it completes
 * successfully, before it is reported: an error or a flush skips it, so
 * the operation's buffers are left as they were.  Requests are
 * iwfi_req.c's; FI_DELIVERY_COMPLETE writes are held until a Read
 * confirms them (iwfi_dc.c).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "iwfi.h"

/* The longest one wait of a manual-progress fi_cq_sread() lasts: a
 * completion another thread's progress queued is seen this late. */
#define IWFI_SREAD_SLICE_MS 10

/* A completion's request leaves its endpoint's list; the last one of an
 * endpoint whose connection is gone lets FI_SHUTDOWN out. */
static void req_done(struct iwfi_req *req)
{
	struct iwfi_ep *ep = req->ep;
	int act = IWFI_EP_A_NONE, term;

	iwfi_ep_lock(ep);
	iwfi_req_unlink(req);
	if (req->flags & FI_RECV)
		iwfi_credit_used(ep);
	if (!ep->posted)
		act = iwfi_ep_fsm(ep, IWFI_EP_EV_LAST_COMPLETION);
	term = ep->term;
	iwfi_ep_unlock(ep);
	if (act == IWFI_EP_A_SHUTDOWN)
		iwfi_eq_shutdown(ep->eq, &ep->ep_fid.fid, term);
}

/*
 * Drop the completions of ep already taken from the iwcm CQ; those left
 * in it went with the QP (iwcm_destroy_qp(3)).  The caller then frees
 * every request still on ep's list.
 */
void iwfi_cq_purge(struct iwfi_cq *cq, struct iwfi_ep *ep)
{
	int i, n, keep = 0;

	if (!cq)
		return;
	pthread_mutex_lock(&cq->lock);
	n = cq->stash_len;
	for (i = 0; i < n; i++) {
		struct iwcm_wc *wc = &cq->stash[cq->stash_head + i];
		struct iwfi_req *req = (void *)(uintptr_t)wc->wr_id;

		if (req && req->ep == ep)
			continue;
		cq->stash[keep++] = *wc;
	}
	cq->stash_head = 0;
	cq->stash_len = keep;
	/* Confirmed writes of ep: still on its posted list, freed there. */
	{
		struct iwfi_req **pp = &cq->ready;

		cq->ready_tail = NULL;
		while (*pp) {
			if ((*pp)->ep == ep) {
				*pp = (*pp)->next;
				continue;
			}
			cq->ready_tail = *pp;
			pp = &(*pp)->next;
		}
	}
	pthread_mutex_unlock(&cq->lock);
}

/*
 * The error of a work request of ep flushed from its QP: FI_ECANCELED
 * when the application's own fi_shutdown() or fi_close() ended the
 * queue pair (fi_cq(3): the operation was canceled), FI_ECONNRESET when
 * the connection ended under it (the peer closed or reset it, the TCP
 * user timeout expired, a Terminate).  A caller such as Open MPI takes
 * FI_ECANCELED on a receive for its own MPI_Cancel: the request would
 * complete without data and without an error.
 */
static int flush_err(struct iwfi_ep *ep)
{
	bool own;

	iwfi_ep_lock(ep);
	own = ep->app_shutdown || ep->state == IWFI_EP_S_CLOSED;
	iwfi_ep_unlock(ep);
	return own ? FI_ECANCELED : FI_ECONNRESET;
}

static int wc_err(enum iwcm_wc_status st)
{
	switch (st) {
	case IWCM_WC_WR_FLUSH_ERR:
		return FI_ECONNRESET;
	case IWCM_WC_LOC_LEN_ERR:
		return FI_ETRUNC;
	case IWCM_WC_LOC_PROT_ERR:
	case IWCM_WC_LOC_ACCESS_ERR:
	case IWCM_WC_REM_ACCESS_ERR:
		return FI_EACCES;
	case IWCM_WC_REM_INV_REQ_ERR:
	case IWCM_WC_REM_INV_RD_REQ_ERR:
		return FI_EINVAL;
	case IWCM_WC_REM_OP_ERR:
		return FI_EREMOTEIO;
	case IWCM_WC_REM_ABORT_ERR:
		return FI_ECONNABORTED;
	case IWCM_WC_RETRY_EXC_ERR:
	case IWCM_WC_RESP_TIMEOUT_ERR:
		return FI_ETIMEDOUT;
	default:
		return FI_EIO;
	}
}

static void push_err(struct iwfi_cq *cq, struct iwfi_cq_err *e)
{
	if (cq->errs_tail)
		cq->errs_tail->next = e;
	else
		cq->errs = e;
	cq->errs_tail = e;
}

/* Queue the error of a completion (under the lock); frees req. */
static void wc_to_err(struct iwfi_cq *cq, const struct iwcm_wc *wc,
		      struct iwfi_req *req)
{
	struct iwfi_cq_err *e = calloc(1, sizeof(*e));

	if (e) {
		e->entry.op_context = req ? req->context : NULL;
		e->entry.flags = req ? req->flags : 0;
		e->entry.buf = req ? req->buf : NULL;
		e->entry.len = wc->byte_len;
		e->entry.err = req && wc->status == IWCM_WC_WR_FLUSH_ERR ?
				       flush_err(req->ep) :
				       wc_err(wc->status);
		e->entry.prov_errno = wc->vendor_err ?
					      IWFI_PROV_TERM | wc->vendor_err :
					      IWFI_PROV_STATUS | wc->status;
		if (req && wc->status == IWCM_WC_LOC_LEN_ERR)
			e->entry.olen = wc->byte_len > req->len ?
						wc->byte_len - req->len :
						0;
		push_err(cq, e);
	}
	if (req) {
		req_done(req);
		iwfi_req_free(req);
	}
}

/* Append req to the confirmed writes (cq->lock held). */
static void ready_push(struct iwfi_cq *cq, struct iwfi_req *req)
{
	req->next = NULL;
	if (cq->ready_tail)
		cq->ready_tail->next = req;
	else
		cq->ready = req;
	cq->ready_tail = req;
}

/* What FI_DELIVERY_COMPLETE's books decided (iwfi_dc.c; cq->lock held):
 * confirmed writes wait on cq->ready for the next fi_cq_read(), the
 * others fail as flushed. */
static void dc_apply(struct iwfi_cq *cq, struct iwfi_dc_out *out)
{
	static const struct iwcm_wc flushed = { .status =
							IWCM_WC_WR_FLUSH_ERR };
	struct iwfi_req *w;

	while ((w = out->ready)) {
		out->ready = w->next;
		ready_push(cq, w);
	}
	while ((w = out->failed)) {
		out->failed = w->next;
		wc_to_err(cq, &flushed, w);
	}
}

/* A confirming Read c failed (cq->lock held): the writes it covered
 * complete with its error, or the one the peer's Terminate names does
 * and the others are flushed (iwfi_dc_fail()); c is not reported. */
static void dc_fail(struct iwfi_cq *cq, const struct iwcm_wc *wc,
		    struct iwfi_req *c)
{
	struct iwfi_dc_out out = { 0 };
	struct iwfi_req *held = iwfi_dc_fail(c->ep, c->seq, &out), *w;

	dc_apply(cq, &out);
	while ((w = held)) {
		held = w->next;
		wc_to_err(cq, wc, w);
	}
	req_done(c);
	iwfi_req_free(c);
}

/* Cancel a receive that was never posted: FI_ECANCELED; frees req. */
void iwfi_cq_cancel(struct iwfi_cq *cq, struct iwfi_req *req)
{
	struct iwfi_cq_err *e = calloc(1, sizeof(*e));

	if (e && cq) {
		e->entry.op_context = req->context;
		e->entry.flags = req->flags;
		e->entry.buf = req->buf;
		e->entry.err = FI_ECANCELED;
		e->entry.prov_errno = IWFI_PROV_STATUS | IWCM_WC_WR_FLUSH_ERR;
		pthread_mutex_lock(&cq->lock);
		push_err(cq, e);
		pthread_mutex_unlock(&cq->lock);
	} else {
		free(e);
	}
	iwfi_req_free(req);
}

/* The error err of an operation that never reached a QP (an RDM
 * endpoint's operation whose connection failed, iwfi_rdm_peer.c). */
void iwfi_cq_fail(struct iwfi_cq *cq, void *context, uint64_t flags, int err)
{
	struct iwfi_cq_err *e = calloc(1, sizeof(*e));

	if (!e)
		return;
	e->entry.op_context = context;
	e->entry.flags = flags;
	e->entry.err = err;
	e->entry.prov_errno = IWFI_PROV_STATUS | IWCM_WC_WR_FLUSH_ERR;
	pthread_mutex_lock(&cq->lock);
	push_err(cq, e);
	pthread_mutex_unlock(&cq->lock);
}

/* Write completion wc of req in the CQ's format at out. */
static void fill(struct iwfi_cq *cq, void *out, const struct iwcm_wc *wc,
		 const struct iwfi_req *req)
{
	struct fi_cq_tagged_entry e = {
		.op_context = req->context,
		.flags = req->flags,
		.len = req->len,
		.buf = req->buf,
	};

	if (req->flags & FI_RECV)
		e.len = wc->byte_len;
	if (wc->wc_flags & IWCM_WC_WITH_IMM) {
		e.flags |= FI_REMOTE_CQ_DATA;
		e.data = wc->imm_data;
	}
	if (wc->opcode == IWCM_WC_RECV_RDMA_WITH_IMM) {
		/* RFC 7306 §6: the Write placed data, the Immediate Data
		 * message consumed this receive without filling it. */
		e.flags = FI_RMA | FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA;
		e.buf = NULL;
	}
	switch (cq->format) {
	case FI_CQ_FORMAT_CONTEXT:
		memcpy(out, &e, sizeof(struct fi_cq_entry));
		break;
	case FI_CQ_FORMAT_MSG:
		memcpy(out, &e, sizeof(struct fi_cq_msg_entry));
		break;
	case FI_CQ_FORMAT_DATA:
		memcpy(out, &e, sizeof(struct fi_cq_data_entry));
		break;
	default:
		memcpy(out, &e, sizeof(e));
		break;
	}
}

static size_t entry_size(enum fi_cq_format format)
{
	switch (format) {
	case FI_CQ_FORMAT_CONTEXT:
		return sizeof(struct fi_cq_entry);
	case FI_CQ_FORMAT_MSG:
		return sizeof(struct fi_cq_msg_entry);
	case FI_CQ_FORMAT_DATA:
		return sizeof(struct fi_cq_data_entry);
	default:
		return sizeof(struct fi_cq_tagged_entry);
	}
}

/* Refill the stash from the iwcm CQ (under the lock). */
static int refill(struct iwfi_cq *cq)
{
	int n;

	if (cq->stash_len)
		return cq->stash_len;
	n = iwcm_poll_cq(cq->cq, IWFI_CQ_STASH, cq->stash);
	if (n < 0)
		return -iwfi_errno(errno);
	cq->stash_head = 0;
	cq->stash_len = n;
	return n;
}

/* Read up to count completions into buf (under the CQ's lock). */
static ssize_t cq_read_locked(struct iwfi_cq *cq, void *buf, size_t count)
{
	size_t n = 0, sz = entry_size(cq->format);
	ssize_t ret = 0;

	while (n < count) {
		struct iwcm_wc *wc;
		struct iwfi_req *req;

		if (cq->errs)
			break;
		if ((req = cq->ready)) {
			/* A write a Read confirmed placed. */
			struct iwcm_wc done = { .status = IWCM_WC_SUCCESS };

			cq->ready = req->next;
			if (!cq->ready)
				cq->ready_tail = NULL;
			fill(cq, (char *)buf + n * sz, &done, req);
			n++;
			req_done(req);
			iwfi_req_free(req);
			continue;
		}
		ret = refill(cq);
		if (ret <= 0)
			break;
		wc = &cq->stash[cq->stash_head++];
		cq->stash_len--;
		req = (struct iwfi_req *)(uintptr_t)wc->wr_id;
		if (req) {
			struct iwfi_dc_out out = { 0 };

			iwfi_dc_retry(req->ep, &out);
			dc_apply(cq, &out);
		}
		if (!req) {
			/* An unsignaled request failed: report it without a
			 * context, unless it was only flushed. */
			if (wc->status != IWCM_WC_SUCCESS &&
			    wc->status != IWCM_WC_WR_FLUSH_ERR) {
				wc_to_err(cq, wc, NULL);
				break;
			}
			continue;
		}
		if (wc->status != IWCM_WC_SUCCESS) {
			if (req->dc_confirm)
				dc_fail(cq, wc, req);
			else
				wc_to_err(cq, wc, req);
			break;
		}
		if (req->dc_hold || req->dc_confirm) {
			struct iwfi_dc_out out = { 0 };
			bool kept = iwfi_dc_done(req, &out);

			dc_apply(cq, &out);
			if (kept)
				continue;
		}
		if (req->on_done)
			req->on_done(req);
		if (req->report) {
			fill(cq, (char *)buf + n * sz, wc, req);
			n++;
		}
		req_done(req);
		iwfi_req_free(req);
	}
	if (!n && cq->errs)
		ret = -FI_EAVAIL;
	if (n)
		return (ssize_t)n;
	return ret < 0 ? ret : -FI_EAGAIN;
}

/* Tell the watchers there may be room now (no lock held).  A thread
 * that finds another one doing it leaves it to that one. */
static void cq_watch_run(struct iwfi_cq *cq)
{
	struct iwfi_cq_watch *w;

	if (!__atomic_load_n(&cq->watch, __ATOMIC_ACQUIRE) ||
	    pthread_mutex_trylock(&cq->watch_lock))
		return;
	for (w = cq->watch; w; w = w->next)
		w->fn(w->arg);
	pthread_mutex_unlock(&cq->watch_lock);
}

/* Have w called at every fi_cq_read() of cq; w stays the caller's. */
void iwfi_cq_watch_add(struct iwfi_cq *cq, struct iwfi_cq_watch *w)
{
	pthread_mutex_lock(&cq->watch_lock);
	w->next = cq->watch;
	__atomic_store_n(&cq->watch, w, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&cq->watch_lock);
}

/* Stop calling w; once this returns, no call of it is under way. */
void iwfi_cq_watch_del(struct iwfi_cq *cq, struct iwfi_cq_watch *w)
{
	struct iwfi_cq_watch **pp;

	pthread_mutex_lock(&cq->watch_lock);
	for (pp = &cq->watch; *pp; pp = &(*pp)->next) {
		if (*pp == w) {
			__atomic_store_n(pp, w->next, __ATOMIC_RELEASE);
			break;
		}
	}
	pthread_mutex_unlock(&cq->watch_lock);
}

/*
 * Read completions.  The iwcm CQ moves the data of its QPs in this call
 * when it has nothing (iwcm_poll_cq(3)), so a caller polling in a loop
 * is the one that progresses them, as with libfabric's tcp provider.  A
 * second thread reading the same CQ meanwhile is told -FI_EAGAIN rather
 * than kept waiting across that I/O.
 */
static ssize_t cq_read(struct fid_cq *cq_fid, void *buf, size_t count)
{
	struct iwfi_cq *cq = iwfi_container_of(cq_fid, struct iwfi_cq, cq_fid);
	ssize_t ret = -FI_EAGAIN;

	iwfi_credit_flush_all(cq->domain->fabric);
	/* FI_PROGRESS_MANUAL: this call drives the whole context too
	 * (timers, closes). */
	if (cq->domain->fabric->manual)
		iwfi_progress(cq->domain->fabric, 0);
	if (!pthread_mutex_trylock(&cq->lock)) {
		ret = cq_read_locked(cq, buf, count);
		pthread_mutex_unlock(&cq->lock);
	}
	/* The completions read may have made room for what waits. */
	cq_watch_run(cq);
	return ret;
}

static ssize_t cq_readfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			   fi_addr_t *src_addr)
{
	ssize_t ret = cq_read(cq_fid, buf, count);

	for (ssize_t i = 0; src_addr && i < ret; i++)
		src_addr[i] = FI_ADDR_NOTAVAIL;
	return ret;
}

static ssize_t cq_readerr(struct fid_cq *cq_fid, struct fi_cq_err_entry *buf,
			  uint64_t flags)
{
	struct iwfi_cq *cq = iwfi_container_of(cq_fid, struct iwfi_cq, cq_fid);
	struct iwfi_cq_err *e;

	pthread_mutex_lock(&cq->lock);
	e = cq->errs;
	if (e) {
		cq->errs = e->next;
		if (!cq->errs)
			cq->errs_tail = NULL;
	}
	pthread_mutex_unlock(&cq->lock);
	if (!e)
		return -FI_EAGAIN;
	/* No provider error data: leave the caller's buffer alone. */
	e->entry.err_data = buf->err_data;
	e->entry.err_data_size = 0;
	*buf = e->entry;
	free(e);
	return 1;
}

/* fi_trywait() on a CQ: arm it, then -FI_EAGAIN if anything is there. */
int iwfi_cq_trywait(struct iwfi_cq *cq)
{
	struct iwcm_cq *ev_cq;
	void *ctx;
	int busy, n = 0;

	if (!cq->channel)
		return -FI_EINVAL;
	iwfi_credit_flush_all(cq->domain->fabric);
	/* FI_PROGRESS_MANUAL: nothing but a call of ours places what comes
	 * in, so the descriptor may never wake a caller waiting on it: make
	 * what progress there is, and tell the caller to poll again. */
	if (cq->domain->fabric->manual) {
		iwfi_progress(cq->domain->fabric, 0);
		return -FI_EAGAIN;
	}
	while (!iwcm_get_cq_event(cq->channel, &ev_cq, &ctx))
		n++;
	if (n)
		iwcm_ack_cq_events(cq->cq, (unsigned int)n);
	if (iwcm_req_notify_cq(cq->cq, 0) < 0)
		return -iwfi_errno(errno);
	pthread_mutex_lock(&cq->lock);
	busy = cq->errs || cq->ready || refill(cq) != 0;
	pthread_mutex_unlock(&cq->lock);
	if (!busy) {
		/* A socket with something that another thread moves right
		 * now (the progress thread): the descriptor is readable
		 * already, so the caller polls again rather than sleeps. */
		struct pollfd p = { .fd = iwcm_comp_channel_get_fd(cq->channel),
				    .events = POLLIN };

		busy = poll(&p, 1, 0) > 0;
	}
	return busy ? -FI_EAGAIN : 0;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* fi_cq_sread() with FI_PROGRESS_MANUAL: wait in iwcm_progress(), which
 * returns when a socket of the context has something (or is writable
 * again), then look at the queue. */
static ssize_t cq_sread_manual(struct iwfi_cq *cq, void *buf, size_t count,
			       int timeout)
{
	int64_t end = timeout >= 0 ? now_ms() + timeout : 0;
	ssize_t ret;

	for (;;) {
		int wait = IWFI_SREAD_SLICE_MS;

		ret = cq_read(&cq->cq_fid, buf, count);
		if (ret != -FI_EAGAIN)
			return ret;
		if (timeout >= 0) {
			int64_t left = end - now_ms();

			if (left <= 0)
				return -FI_EAGAIN;
			if (left < wait)
				wait = (int)left;
		}
		iwfi_progress(cq->domain->fabric, wait);
	}
}

static ssize_t cq_sread(struct fid_cq *cq_fid, void *buf, size_t count,
			const void *cond, int timeout)
{
	struct iwfi_cq *cq = iwfi_container_of(cq_fid, struct iwfi_cq, cq_fid);
	ssize_t ret;

	if (!cq->channel)
		return -FI_ENOSYS;
	if (cq->domain->fabric->manual)
		return cq_sread_manual(cq, buf, count, timeout);
	for (;;) {
		struct pollfd p = { .fd = iwcm_comp_channel_get_fd(cq->channel),
				    .events = POLLIN };

		ret = cq_read(cq_fid, buf, count);
		if (ret != -FI_EAGAIN)
			return ret;
		if (iwfi_cq_trywait(cq) == -FI_EAGAIN)
			continue;
		ret = poll(&p, 1, timeout);
		if (ret == 0)
			return -FI_EAGAIN;
		if (ret < 0 && errno != EINTR)
			return -FI_EOTHER;
	}
}

static ssize_t cq_sreadfrom(struct fid_cq *cq_fid, void *buf, size_t count,
			    fi_addr_t *src_addr, const void *cond, int timeout)
{
	ssize_t ret = cq_sread(cq_fid, buf, count, cond, timeout);

	for (ssize_t i = 0; src_addr && i < ret; i++)
		src_addr[i] = FI_ADDR_NOTAVAIL;
	return ret;
}

static int cq_signal(struct fid_cq *cq_fid)
{
	return -FI_ENOSYS;
}

static const char *cq_strerror(struct fid_cq *cq_fid, int prov_errno,
			       const void *err_data, char *buf, size_t len)
{
	return iwfi_prov_str(prov_errno, buf, len);
}

static int cq_control(struct fid *fid, int command, void *arg)
{
	struct iwfi_cq *cq = iwfi_container_of(fid, struct iwfi_cq, cq_fid.fid);

	switch (command) {
	case FI_GETWAIT:
		if (!cq->channel)
			return -FI_ENODATA;
		*(int *)arg = iwcm_comp_channel_get_fd(cq->channel);
		return 0;
	case FI_GETWAITOBJ:
		*(enum fi_wait_obj *)arg = cq->wait_obj;
		return 0;
	default:
		return -FI_ENOSYS;
	}
}

static int cq_close(struct fid *fid)
{
	struct iwfi_cq *cq = iwfi_container_of(fid, struct iwfi_cq, cq_fid.fid);
	struct iwfi_cq_err *e;

	if (__atomic_load_n(&cq->refs, __ATOMIC_ACQUIRE))
		return -FI_EBUSY;
	/* No endpoint uses it: their requests went with them. */
	if (iwcm_destroy_cq(cq->cq) < 0)
		return -iwfi_errno(errno);
	if (cq->channel)
		iwcm_destroy_comp_channel(cq->channel);
	while ((e = cq->errs)) {
		cq->errs = e->next;
		free(e);
	}
	pthread_mutex_destroy(&cq->lock);
	pthread_mutex_destroy(&cq->watch_lock);
	__atomic_fetch_sub(&cq->domain->refs, 1, __ATOMIC_RELEASE);
	free(cq);
	return 0;
}

static struct fi_ops cq_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = cq_close,
	.bind = iwfi_no_bind,
	.control = cq_control,
	.ops_open = iwfi_no_ops_open,
};

static struct fi_ops_cq cq_ops = {
	.size = sizeof(struct fi_ops_cq),
	.read = cq_read,
	.readfrom = cq_readfrom,
	.readerr = cq_readerr,
	.sread = cq_sread,
	.sreadfrom = cq_sreadfrom,
	.signal = cq_signal,
	.strerror = cq_strerror,
};

/* fi_cq_open(): every format but FI_CQ_FORMAT_UNSPEC's default is
 * FI_CQ_FORMAT_CONTEXT; FI_WAIT_NONE, FI_WAIT_UNSPEC or FI_WAIT_FD. */
int iwfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cq_fid, void *context)
{
	struct iwfi_domain *dom =
		iwfi_container_of(domain, struct iwfi_domain, domain_fid);
	struct iwcm_ctx *ctx = dom->fabric->ctx;
	struct iwfi_cq *cq;
	size_t size = attr->size ? attr->size : 4096;
	int fd;

	if (attr->flags & FI_AFFINITY || attr->wait_cond != FI_CQ_COND_NONE)
		return -FI_ENOSYS;
	switch (attr->wait_obj) {
	case FI_WAIT_NONE:
	case FI_WAIT_UNSPEC:
	case FI_WAIT_FD:
		break;
	default:
		return -FI_ENOSYS;
	}
	cq = calloc(1, sizeof(*cq));
	if (!cq)
		return -FI_ENOMEM;
	cq->format = attr->format == FI_CQ_FORMAT_UNSPEC ?
			     FI_CQ_FORMAT_CONTEXT :
			     attr->format;
	cq->wait_obj = attr->wait_obj == FI_WAIT_NONE ? FI_WAIT_NONE :
							FI_WAIT_FD;
	if (cq->wait_obj == FI_WAIT_FD) {
		cq->channel = iwcm_create_comp_channel(ctx);
		if (!cq->channel)
			goto err;
		fd = iwcm_comp_channel_get_fd(cq->channel);
		fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	if (size < 64)
		size = 64;
	if (size > IWFI_CQ_MAX)
		size = IWFI_CQ_MAX;
	cq->cq = iwcm_create_cq(ctx, (int)size, cq, cq->channel);
	if (!cq->cq)
		goto err;
	pthread_mutex_init(&cq->lock, NULL);
	pthread_mutex_init(&cq->watch_lock, NULL);
	cq->domain = dom;
	cq->cq_fid.fid.fclass = FI_CLASS_CQ;
	cq->cq_fid.fid.context = context;
	cq->cq_fid.fid.ops = &cq_fi_ops;
	cq->cq_fid.ops = &cq_ops;
	__atomic_fetch_add(&dom->refs, 1, __ATOMIC_RELEASE);
	*cq_fid = &cq->cq_fid;
	return 0;
err:
	fd = errno;
	if (cq->channel)
		iwcm_destroy_comp_channel(cq->channel);
	free(cq);
	return -iwfi_errno(fd);
}
