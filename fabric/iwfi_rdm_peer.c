/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The peers of an RDM endpoint and their connections (iwfi_rdm.h):
 * operations find their peer through the address vector, open its
 * connection on demand and wait in the peer's queue until it is
 * established; connection requests of peers are accepted or, when two
 * peers ask at once, settled by the rule of iwfi_rdm_fsm.h.  The state
 * changes only through iwfi_rdm_fsm_step(), under rdm->lock.
 *
 * A connection is an FI_EP_MSG endpoint of the provider, reporting to
 * the RDM endpoint's CQs and event queue.  Its MPA private data carries
 * the name of the RDM endpoint that asks (RFC 5044 §7.1 with RFC 6581),
 * which tells the passive side which peer it is.  Connections are kept
 * until the RDM endpoint closes, so that a thread that took one to post
 * on never finds it freed.
 */
#include "config.h"

#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "iwfi_rdm.h"

/* The peer of name ss, made when absent (rdm->lock held). */
static struct iwfi_rdm_peer *peer_find(struct iwfi_rdm *rdm,
				       const struct sockaddr_storage *ss)
{
	struct iwfi_rdm_peer *p;

	for (p = rdm->peers; p; p = p->next)
		if (!iwfi_rdm_addr_cmp(&p->addr, ss))
			return p;
	p = calloc(1, sizeof(*p));
	if (!p)
		return NULL;
	p->addr = *ss;
	p->state = IWFI_RDM_S_IDLE;
	p->next = rdm->peers;
	rdm->peers = p;
	return p;
}

/* The peer of an address vector entry (rdm->lock held), or NULL. */
static struct iwfi_rdm_peer *peer_of(struct iwfi_rdm *rdm, fi_addr_t dest)
{
	struct sockaddr_storage ss;
	struct iwfi_rdm_peer *p;
	uint64_t gen;

	if (!rdm->av || dest == FI_ADDR_UNSPEC || dest == FI_ADDR_NOTAVAIL)
		return NULL;
	/* An address removed since: forget what was looked up. */
	gen = __atomic_load_n(&rdm->av->gen, __ATOMIC_ACQUIRE);
	if (gen != rdm->by_addr_gen) {
		if (rdm->by_addr)
			memset(rdm->by_addr, 0,
			       rdm->nby_addr * sizeof(*rdm->by_addr));
		rdm->by_addr_gen = gen;
	}
	if (dest < rdm->nby_addr && rdm->by_addr[dest])
		return rdm->by_addr[dest];
	if (iwfi_av_addr(rdm->av, dest, &ss))
		return NULL;
	p = peer_find(rdm, &ss);
	if (!p || dest >= IWFI_AV_MAX)
		return p;
	if (dest >= rdm->nby_addr) {
		size_t n = dest + 1 > 2 * rdm->nby_addr ? dest + 1 :
							  2 * rdm->nby_addr;
		struct iwfi_rdm_peer **b =
			realloc(rdm->by_addr, n * sizeof(*b));

		if (!b)
			return p;
		memset(b + rdm->nby_addr, 0, (n - rdm->nby_addr) * sizeof(*b));
		rdm->by_addr = b;
		rdm->nby_addr = n;
	}
	rdm->by_addr[dest] = p;
	return p;
}

/* A new MSG endpoint for peer p from info, bound to the RDM endpoint's
 * CQs and event queue and enabled (rdm->lock held); NULL on failure. */
static struct fid_ep *conn_open(struct iwfi_rdm *rdm, struct iwfi_rdm_peer *p,
				struct fi_info *info)
{
	struct iwfi_rdm_conn *c = calloc(1, sizeof(*c));
	struct fid_ep *ep = NULL;
	int ret;

	if (!c)
		return NULL;
	ret = fi_endpoint(&rdm->domain->domain_fid, info, &ep, rdm);
	if (!ret)
		ret = fi_ep_bind(ep, &rdm->eq->fid, 0);
	if (!ret && rdm->tx_cq == rdm->rx_cq)
		ret = fi_ep_bind(ep, &rdm->tx_cq->cq_fid.fid,
				 rdm->tx_cq_flags | rdm->rx_cq_flags);
	else {
		if (!ret && rdm->tx_cq)
			ret = fi_ep_bind(ep, &rdm->tx_cq->cq_fid.fid,
					 rdm->tx_cq_flags);
		if (!ret && rdm->rx_cq)
			ret = fi_ep_bind(ep, &rdm->rx_cq->cq_fid.fid,
					 rdm->rx_cq_flags);
	}
	if (!ret)
		ret = fi_enable(ep);
	if (ret) {
		IWFI_WARN(FI_LOG_EP_CTRL, "rdm %p: no connection: %s\n",
			  (void *)rdm, fi_strerror(-ret));
		if (ep)
			fi_close(&ep->fid);
		free(c);
		return NULL;
	}
	c->ep = ep;
	c->peer = p;
	c->next = rdm->conns;
	rdm->conns = c;
	return ep;
}

/* Open a connection to p and send our MPA Request (rdm->lock held). */
static int peer_connect(struct iwfi_rdm *rdm, struct iwfi_rdm_peer *p)
{
	struct fi_info *info = fi_dupinfo(rdm->info);
	struct fid_ep *ep;
	int ret;

	if (!info)
		return -FI_ENOMEM;
	info->ep_attr->type = FI_EP_MSG;
	ep = conn_open(rdm, p, info);
	fi_freeinfo(info);
	if (!ep)
		return -FI_ENOMEM;
	p->ep = ep;
	ret = fi_connect(ep, &p->addr, &rdm->name,
			 iwfi_rdm_addr_len(&rdm->name));
	if (ret)
		IWFI_WARN(FI_LOG_EP_CTRL, "rdm %p: fi_connect: %s\n",
			  (void *)rdm, fi_strerror(-ret));
	return ret;
}

/* Report the failure of a queued operation on the transmit CQ. */
static void op_fail(struct iwfi_rdm *rdm, struct iwfi_rdm_op *op, int err)
{
	uint64_t f = op->kind == IWFI_RDM_OP_WRITE ? FI_RMA | FI_WRITE :
		     op->kind == IWFI_RDM_OP_READ  ? FI_RMA | FI_READ :
						     FI_ATOMIC;

	if (!(op->flags & FI_INJECT) && rdm->tx_cq)
		iwfi_cq_fail(rdm->tx_cq, op->context, f, err);
}

static void op_free(struct iwfi_rdm_op *op)
{
	free(op->copy);
	free(op);
}

/* Queue a copy of op for p (rdm->lock held). */
static int op_queue(struct iwfi_rdm *rdm, struct iwfi_rdm_peer *p,
		    const struct iwfi_rdm_op *op)
{
	struct iwfi_rdm_op *q;

	if (p->qlen >= IWFI_RDM_QUEUE_MAX)
		return -FI_EAGAIN;
	q = malloc(sizeof(*q));
	if (!q)
		return -FI_ENOMEM;
	*q = *op;
	q->next = NULL;
	q->copy = NULL;
	/* The caller may reuse an injected buffer at once. */
	if ((op->flags & FI_INJECT) && op->len) {
		q->copy = malloc(op->len);
		if (!q->copy) {
			free(q);
			return -FI_ENOMEM;
		}
		memcpy(q->copy, op->buf, op->len);
	}
	if (p->q_tail)
		p->q_tail->next = q;
	else
		p->q = q;
	p->q_tail = q;
	p->qlen++;
	__atomic_add_fetch(&rdm->queued, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Post what waits for p's connection, in order, until the send queue
 * is full (rdm->lock held); an operation the connection refuses fails
 * on the CQ.  The rest is posted as the queue gets room
 * (iwfi_rdm_drain()). */
static void peer_flush(struct iwfi_rdm *rdm, struct iwfi_rdm_peer *p)
{
	struct iwfi_rdm_op *op;

	while ((op = p->q)) {
		ssize_t ret = iwfi_rdm_op_post(p->ep, op);

		if (ret == -FI_EAGAIN)
			return;
		if (ret)
			op_fail(rdm, op, (int)-ret);
		p->q = op->next;
		if (!p->q)
			p->q_tail = NULL;
		p->qlen--;
		__atomic_sub_fetch(&rdm->queued, 1, __ATOMIC_RELEASE);
		op_free(op);
	}
}

/* Fail every queued operation of p (rdm->lock held). */
static void peer_fail(struct iwfi_rdm *rdm, struct iwfi_rdm_peer *p, int err)
{
	struct iwfi_rdm_op *op;

	while ((op = p->q)) {
		p->q = op->next;
		op_fail(rdm, op, err);
		op_free(op);
	}
	__atomic_sub_fetch(&rdm->queued, p->qlen, __ATOMIC_RELEASE);
	p->q_tail = NULL;
	p->qlen = 0;
}

/* Whether a connection still moves data: its QP is up (a Terminate
 * moves it to error before the CM thread says so). */
static bool conn_alive(struct fid_ep *ep_fid)
{
	struct iwfi_ep *ep = iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
	struct iwcm_qp_attr a = { 0 };
	bool up;

	iwfi_ep_lock(ep);
	up = ep->state == IWFI_EP_S_CONNECTED && ep->qp &&
	     !iwcm_query_qp(ep->qp, &a) && a.state == IWCM_QPS_RTS;
	iwfi_ep_unlock(ep);
	return up;
}

/* The free entries of a live connection's send queue, or -1 when it is
 * down (a post would open a new one). */
static ssize_t conn_room(struct fid_ep *ep_fid)
{
	struct iwfi_ep *ep = iwfi_container_of(ep_fid, struct iwfi_ep, ep_fid);
	ssize_t n = -1;

	if (!conn_alive(ep_fid))
		return -1;
	iwfi_ep_lock(ep);
	if (ep->qp)
		n = iwcm_qp_send_room(ep->qp);
	iwfi_ep_unlock(ep);
	return n;
}

/*
 * fi_tx_size_left(3) of an RDM endpoint: a lower bound on what a post
 * takes now, whichever peer it is for.  A peer whose connection is up
 * with nothing waiting takes what its send queue has room for (more
 * gets -FI_EAGAIN); any other peer queues its operations
 * (iwfi_rdm_submit()) up to IWFI_RDM_QUEUE_MAX, and so does a peer not
 * met yet.  -FI_EOPBADSTATE before fi_enable().
 */
ssize_t iwfi_rdm_tx_left(struct iwfi_rdm *rdm)
{
	struct iwfi_rdm_peer *p;
	ssize_t n = IWFI_RDM_QUEUE_MAX, k;

	pthread_mutex_lock(&rdm->lock);
	if (!rdm->enabled) {
		pthread_mutex_unlock(&rdm->lock);
		return -FI_EOPBADSTATE;
	}
	for (p = rdm->peers; p; p = p->next) {
		k = -1;
		if (p->state == IWFI_RDM_S_CONNECTED && !p->q)
			k = conn_room(p->ep);
		if (k < 0)
			k = (ssize_t)(IWFI_RDM_QUEUE_MAX - p->qlen);
		if (k < n)
			n = k;
	}
	pthread_mutex_unlock(&rdm->lock);
	return n;
}

/*
 * An operation for dest: posted on the peer's connection, queued until
 * it is established (opening it if there is none), or -FI_EINVAL for an
 * address not in the address vector.
 */
ssize_t iwfi_rdm_submit(struct iwfi_rdm *rdm, fi_addr_t dest,
			const struct iwfi_rdm_op *op)
{
	struct iwfi_rdm_peer *p;
	struct fid_ep *ep;
	bool retried = false;
	ssize_t ret = 0;
	int act;

again:
	pthread_mutex_lock(&rdm->lock);
	if (!rdm->enabled) {
		pthread_mutex_unlock(&rdm->lock);
		return -FI_EOPBADSTATE;
	}
	p = peer_of(rdm, dest);
	if (!p) {
		pthread_mutex_unlock(&rdm->lock);
		return -FI_EINVAL;
	}
	act = iwfi_rdm_fsm_step(&p->state, IWFI_RDM_EV_POST, p);
	switch (act) {
	case IWFI_RDM_A_CONNECT:
		ret = peer_connect(rdm, p);
		if (ret) {
			iwfi_rdm_fsm_step(&p->state, IWFI_RDM_EV_REFUSED, p);
			break;
		}
		ret = op_queue(rdm, p, op);
		break;
	case IWFI_RDM_A_QUEUE:
		ret = op_queue(rdm, p, op);
		break;
	case IWFI_RDM_A_POST:
		/* What waits goes first. */
		if (p->q) {
			ret = op_queue(rdm, p, op);
			if (!ret)
				peer_flush(rdm, p);
			break;
		}
		ep = p->ep;
		pthread_mutex_unlock(&rdm->lock);
		/* A QP a Terminate failed takes posts and flushes them
		 * (iwcm_post_send(3)): a new connection takes them instead. */
		ret = conn_alive(ep) ? iwfi_rdm_op_post(ep, op) : -FI_ENOTCONN;
		if (ret != -FI_ENOTCONN || retried)
			return ret;
		/* The connection is down and its FI_SHUTDOWN not read yet:
		 * say so now, and open a new one. */
		iwfi_rdm_on_event(rdm, &ep->fid, IWFI_RDM_EV_DOWN);
		retried = true;
		goto again;
	default:
		ret = -FI_EOPBADSTATE;
		break;
	}
	pthread_mutex_unlock(&rdm->lock);
	return ret;
}

/*
 * Post what waits for the peers' connections as their send queues have
 * room (a read of the CQ, iwfi_cq_watch, or the endpoint's thread): an
 * application that posted more than a queue holds before the
 * connection came up, then only reads its CQ, gets every completion.
 * Nothing to do costs one load; a thread that finds the lock taken
 * leaves the work to the one holding it, which posts too.
 */
void iwfi_rdm_drain(struct iwfi_rdm *rdm)
{
	struct iwfi_rdm_peer *p;

	if (!__atomic_load_n(&rdm->queued, __ATOMIC_ACQUIRE) ||
	    pthread_mutex_trylock(&rdm->lock))
		return;
	for (p = rdm->peers; p; p = p->next)
		if (p->q && p->state == IWFI_RDM_S_CONNECTED &&
		    conn_alive(p->ep))
			peer_flush(rdm, p);
	pthread_mutex_unlock(&rdm->lock);
}

/* The peer and connection of a MSG endpoint (rdm->lock held). */
static struct iwfi_rdm_conn *conn_of(struct iwfi_rdm *rdm, fid_t fid)
{
	struct iwfi_rdm_conn *c;

	for (c = rdm->conns; c; c = c->next)
		if (&c->ep->fid == fid)
			return c;
	return NULL;
}

/*
 * FI_CONNREQ of a peer (the RDM endpoint's thread): accepted, or
 * rejected when we keep our own connection to it (iwfi_rdm_fsm.h).  A
 * request without an RDM name is not one of ours: rejected.  Consumes
 * info.
 */
void iwfi_rdm_on_request(struct iwfi_rdm *rdm, struct fi_info *info,
			 const void *data, size_t len)
{
	struct sockaddr_storage ss = { 0 };
	struct iwfi_rdm_peer *p = NULL;
	struct fid_ep *ep;
	int act = IWFI_RDM_A_REJECT;

	pthread_mutex_lock(&rdm->lock);
	if (len >= sizeof(struct sockaddr_in) && len <= sizeof(ss)) {
		memcpy(&ss, data, len);
		if (iwfi_rdm_addr_len(&ss) == len)
			p = peer_find(rdm, &ss);
	}
	/* A peer asking again found our connection dead before we did. */
	if (p && p->state == IWFI_RDM_S_CONNECTED && !conn_alive(p->ep))
		iwfi_rdm_fsm_step(&p->state, IWFI_RDM_EV_DOWN, p);
	if (p)
		act = iwfi_rdm_fsm_step(&p->state,
					iwfi_rdm_addr_cmp(&ss, &rdm->name) < 0 ?
						IWFI_RDM_EV_REQ_LOW :
						IWFI_RDM_EV_REQ_HIGH,
					p);
	if (act == IWFI_RDM_A_ACCEPT) {
		ep = conn_open(rdm, p, info);
		if (ep && !fi_accept(ep, NULL, 0)) {
			/* Our own request, if any, is the peer's to reject;
			 * what is queued goes to this connection. */
			p->ep = ep;
		} else {
			iwfi_rdm_fsm_step(&p->state, IWFI_RDM_EV_REFUSED, p);
			peer_fail(rdm, p, FI_ECONNREFUSED);
			p->ep = NULL;
		}
	} else if (p && p->state == IWFI_RDM_S_CONNECTING) {
		/* A simultaneous connect we win: ours is on its way. */
		fi_reject(rdm->pep, info->handle, IWFI_RDM_YIELD,
			  sizeof(IWFI_RDM_YIELD));
	} else {
		fi_reject(rdm->pep, info->handle, NULL, 0);
	}
	pthread_mutex_unlock(&rdm->lock);
	fi_freeinfo(info);
}

/* An event of a connection (the RDM endpoint's thread): only the one a
 * peer uses changes its state; the others (the request that lost a
 * simultaneous connect) have nothing to say. */
void iwfi_rdm_on_event(struct iwfi_rdm *rdm, fid_t fid, enum iwfi_rdm_event ev)
{
	struct iwfi_rdm_conn *c;
	struct iwfi_rdm_peer *p;
	int act;

	pthread_mutex_lock(&rdm->lock);
	c = conn_of(rdm, fid);
	p = c ? c->peer : NULL;
	if (!p || p->ep != c->ep) {
		pthread_mutex_unlock(&rdm->lock);
		return;
	}
	act = iwfi_rdm_fsm_step(&p->state, ev, p);
	if (act == IWFI_RDM_A_FLUSH)
		peer_flush(rdm, p);
	else if (act == IWFI_RDM_A_FAIL)
		peer_fail(rdm, p,
			  ev == IWFI_RDM_EV_REFUSED ? FI_ECONNREFUSED :
						      FI_ECONNRESET);
	pthread_mutex_unlock(&rdm->lock);
}

/* fi_close() of the RDM endpoint, its thread stopped: close every
 * connection (gracefully, iwfi_ep.c) and forget the peers. */
void iwfi_rdm_peers_close(struct iwfi_rdm *rdm)
{
	struct iwfi_rdm_conn *c;
	struct iwfi_rdm_peer *p;

	while ((c = rdm->conns)) {
		rdm->conns = c->next;
		fi_close(&c->ep->fid);
		free(c);
	}
	while ((p = rdm->peers)) {
		struct iwfi_rdm_op *op;

		rdm->peers = p->next;
		while ((op = p->q)) {
			p->q = op->next;
			op_free(op);
		}
		__atomic_sub_fetch(&rdm->queued, p->qlen, __ATOMIC_RELEASE);
		free(p);
	}
	free(rdm->by_addr);
	rdm->by_addr = NULL;
	rdm->nby_addr = 0;
}
