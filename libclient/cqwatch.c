/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What the application's threads watch (cprog.c): each CQ keeps the QPs
 * that complete on it, under its qlock, and an epoll set of their
 * sockets, watched for reading while the QP reads and for writing while
 * its socket is full; a completion channel's descriptor is an epoll set
 * of its eventfd and of its CQs' sets.  The loop (progress.c), the
 * verbs (verbs.c) and the engine (qp.c) keep the sets in line with each
 * QP's state through cqw_qp_sync() and cqw_qp_unwatch().
 *
 * Lifetime: a caller finds a QP through its CQ's list or epoll set under
 * the CQ's qlock (reader) and takes cp_refs before it lets go of it;
 * cqw_qp_detach() takes the QP out of both under the writer lock, then
 * waits until no caller holds a reference.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "dp.h"

int cqw_cq_init(struct iwcm_cq *cq)
{
	cq->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (cq->epfd < 0)
		return -1;
	pthread_rwlock_init(&cq->qlock, NULL);
	return 0;
}

void cqw_cq_fini(struct iwcm_cq *cq)
{
	if (cq->epfd >= 0)
		close(cq->epfd);
	cq->epfd = -1;
	pthread_rwlock_destroy(&cq->qlock);
	free(cq->qps);
	cq->qps = NULL;
}

static int cq_list_add(struct iwcm_cq *cq, struct iwcm_qp *qp)
{
	pthread_rwlock_wrlock(&cq->qlock);
	if (cq->nqps == cq->qcap) {
		uint32_t cap = cq->qcap ? cq->qcap * 2 : 4;
		struct iwcm_qp **n = realloc(cq->qps, cap * sizeof(*n));

		if (!n) {
			pthread_rwlock_unlock(&cq->qlock);
			return ERR(ENOMEM);
		}
		cq->qps = n;
		cq->qcap = cap;
	}
	cq->qps[cq->nqps++] = qp;
	pthread_rwlock_unlock(&cq->qlock);
	return 0;
}

static void cq_list_del(struct iwcm_cq *cq, struct iwcm_qp *qp)
{
	pthread_rwlock_wrlock(&cq->qlock);
	for (uint32_t i = 0; i < cq->nqps; i++) {
		if (cq->qps[i] == qp) {
			cq->qps[i] = cq->qps[--cq->nqps];
			break;
		}
	}
	pthread_rwlock_unlock(&cq->qlock);
}

/* The QP's CQs, each once. */
static unsigned int qp_cqs(const struct iwcm_qp *qp, struct iwcm_cq *cqs[2])
{
	cqs[0] = qp->send_cq;
	if (qp->recv_cq == qp->send_cq)
		return 1;
	cqs[1] = qp->recv_cq;
	return 2;
}

/* A QP starts completing on its CQs: listed, its socket not watched
 * until cqw_qp_sync(). */
int cqw_qp_attach(struct iwcm_qp *qp)
{
	struct iwcm_cq *cqs[2];
	unsigned int n = qp_cqs(qp, cqs);

	qp->cp_fd = -1;
	qp->cp_ev = 0;
	for (unsigned int i = 0; i < n; i++) {
		if (cq_list_add(cqs[i], qp) < 0) {
			while (i--)
				cq_list_del(cqs[i], qp);
			return -1;
		}
	}
	return 0;
}

/* A QP leaves its CQs: off the lists and out of the epoll sets under
 * each CQ's writer lock (a caller that found it there holds a reference
 * by then), then no caller still in it. */
void cqw_qp_detach(struct iwcm_qp *qp)
{
	struct iwcm_cq *cqs[2];
	unsigned int n = qp_cqs(qp, cqs);

	pthread_mutex_lock(&qp->lock);
	for (unsigned int i = 0; i < n; i++) {
		cq_list_del(cqs[i], qp);
		if (qp->cp_fd >= 0) {
			pthread_rwlock_wrlock(&cqs[i]->qlock);
			(void)epoll_ctl(cqs[i]->epfd, EPOLL_CTL_DEL, qp->cp_fd,
					NULL);
			pthread_rwlock_unlock(&cqs[i]->qlock);
		}
	}
	qp->cp_fd = -1;
	qp->cp_ev = 0;
	pthread_mutex_unlock(&qp->lock);
	/* A caller holds a reference only for one pass over its QPs. */
	while (__atomic_load_n(&qp->cp_refs, __ATOMIC_ACQUIRE))
		usleep(50);
}

/* What the CQs' epoll sets watch the socket for now. */
static uint32_t qp_cp_events(const struct iwcm_qp *qp)
{
	uint32_t ev = 0;

	if (qp->fd < 0)
		return 0;
	if (qp_rx_open(qp))
		ev |= EPOLLIN;
	if (qp->tx_blocked && qp_tx_writes(qp))
		ev |= EPOLLOUT;
	return ev;
}

/* Unwatch the socket in every epoll set of the QP's CQs. */
void cqw_qp_unwatch(struct iwcm_qp *qp)
{
	struct iwcm_cq *cqs[2];
	unsigned int n = qp_cqs(qp, cqs);

	if (qp->cp_fd < 0)
		return;
	for (unsigned int i = 0; i < n; i++)
		(void)epoll_ctl(cqs[i]->epfd, EPOLL_CTL_DEL, qp->cp_fd, NULL);
	qp->cp_fd = -1;
	qp->cp_ev = 0;
}

/* Watch the socket for what the QP needs now (qp->lock held).  A socket
 * that needs nothing leaves the sets: epoll reports a hang-up whatever
 * the events asked, and a QP past reading would wake its waiters for
 * ever. */
void cqw_qp_sync(struct iwcm_qp *qp)
{
	struct iwcm_cq *cqs[2];
	unsigned int n;
	uint32_t ev;

	if (qp->fsm_state == QP_S_DESTROYED)
		return;
	ev = qp_cp_events(qp);
	if (!ev || qp->cp_fd != qp->fd)
		cqw_qp_unwatch(qp);
	if (!ev || (qp->cp_fd == qp->fd && ev == qp->cp_ev))
		return;
	n = qp_cqs(qp, cqs);
	for (unsigned int i = 0; i < n; i++) {
		struct epoll_event e = { .events = ev, .data.ptr = qp };

		(void)epoll_ctl(cqs[i]->epfd,
				qp->cp_fd == qp->fd ? EPOLL_CTL_MOD :
						      EPOLL_CTL_ADD,
				qp->fd, &e);
	}
	qp->cp_fd = qp->fd;
	qp->cp_ev = ev;
}

int cqw_channel_init(struct iwcm_comp_channel *ch)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = NULL };

	ch->efd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (ch->efd < 0)
		return -1;
	ch->fd = epoll_create1(EPOLL_CLOEXEC);
	if (ch->fd < 0 || epoll_ctl(ch->fd, EPOLL_CTL_ADD, ch->efd, &e) < 0) {
		int err = errno;

		if (ch->fd >= 0)
			close(ch->fd);
		close(ch->efd);
		ch->fd = ch->efd = -1;
		return ERR(err);
	}
	return 0;
}

int cqw_channel_add(struct iwcm_comp_channel *ch, struct iwcm_cq *cq)
{
	struct epoll_event e = { .events = EPOLLIN, .data.ptr = cq };

	return epoll_ctl(ch->fd, EPOLL_CTL_ADD, cq->epfd, &e);
}

void cqw_channel_del(struct iwcm_comp_channel *ch, struct iwcm_cq *cq)
{
	(void)epoll_ctl(ch->fd, EPOLL_CTL_DEL, cq->epfd, NULL);
}
