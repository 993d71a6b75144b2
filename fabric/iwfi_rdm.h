/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWFI_RDM_H
#define IWFI_RDM_H

/*
 * FI_EP_RDM endpoints of the provider (fi_iwcm(7), "RDM endpoints"):
 * reliable, unconnected, for one-sided operations.  An RDM endpoint
 * listens at its name with a passive endpoint of its own and reaches
 * each peer through one FI_EP_MSG endpoint of the provider, made on
 * demand by the first operation for that peer (iwfi_rdm_peer.c) or
 * accepted when the peer asks first; a thread of the RDM endpoint
 * reads the event queue of those connections (iwfi_rdm.c), so the
 * passive side needs no call of the application.  The MSG endpoints
 * report to the CQs bound to the RDM endpoint.
 *
 * Files call one way: rdm -> rdm_ops -> rdm_peer -> rdm_op -> rdm_fsm,
 * av.  Lock: rdm->lock guards the peers, their states and queues, and
 * the list of connections; it is taken before any lock of iwfi.h, and
 * never under one (the CQ's completions do not need it), except that a
 * CQ's watcher, called under the CQ's watch_lock, only tries it
 * (iwfi_rdm_drain()).
 */
#include "iwfi.h"
#include "iwfi_rdm_fsm.h"

/* How many peers an address vector holds at most. */
#define IWFI_AV_MAX (1u << 20)
/* The private data of a reject that says "my request to you is on the
 * way" (iwfi_rdm_fsm.h). */
#define IWFI_RDM_YIELD "iwcm-rdm-yield"
/* How many operations wait for one peer's connection at most. */
#define IWFI_RDM_QUEUE_MAX 4096

struct iwfi_av {
	struct fid_av av_fid;
	struct iwfi_domain *domain;
	enum fi_av_type type;
	pthread_mutex_t lock;
	struct sockaddr_storage *addrs;
	bool *used;
	size_t count, cap;
	/* Changes at every fi_av_remove(): lookups cached by an endpoint
	 * are stale (iwfi_rdm_peer.c). */
	uint64_t gen;
	int refs;
};

enum iwfi_rdm_kind {
	IWFI_RDM_OP_WRITE,
	IWFI_RDM_OP_READ,
	IWFI_RDM_OP_ATOMIC,
	IWFI_RDM_OP_FETCH,
	IWFI_RDM_OP_COMPARE,
};

/* One operation of an RDM endpoint, as it is posted to the connection
 * or queued until it exists (single buffer: iov_limit 1). */
struct iwfi_rdm_op {
	struct iwfi_rdm_op *next;
	enum iwfi_rdm_kind kind;
	void *buf;
	size_t len;
	void *desc;
	uint64_t addr, key;
	uint64_t operand, compare;
	void *result, *result_desc;
	enum fi_datatype dt;
	enum fi_op op;
	void *context;
	uint64_t flags;
	uint64_t data;
	/* A queued FI_INJECT write's copy of the data. */
	void *copy;
};

/* A connection made for a peer: the MSG endpoint and whose it is. */
struct iwfi_rdm_conn {
	struct iwfi_rdm_conn *next;
	struct fid_ep *ep;
	struct iwfi_rdm_peer *peer;
};

struct iwfi_rdm_peer {
	struct iwfi_rdm_peer *next;
	struct sockaddr_storage addr;
	enum iwfi_rdm_state state;
	/* The connection operations go to (CONNECTED), or the one being
	 * set up. */
	struct fid_ep *ep;
	struct iwfi_rdm_op *q, *q_tail;
	unsigned int qlen;
};

struct iwfi_rdm {
	struct fid_ep ep_fid;
	struct iwfi_domain *domain;
	struct fi_info *info;
	struct iwfi_av *av;
	struct iwfi_cq *tx_cq, *rx_cq;
	uint64_t tx_cq_flags, rx_cq_flags;
	uint64_t tx_op_flags, rx_op_flags;
	/* The event queue of the passive endpoint and the connections. */
	struct fid_eq *eq;
	struct fid_pep *pep;
	struct sockaddr_storage name;
	bool enabled;
	pthread_mutex_t lock;
	struct iwfi_rdm_peer *peers;
	/* peers by fi_addr_t of the address vector */
	struct iwfi_rdm_peer **by_addr;
	size_t nby_addr;
	uint64_t by_addr_gen; /* av->gen by_addr was filled under */
	struct iwfi_rdm_conn *conns;
	/* Operations in the peers' queues (changed under lock, read
	 * without it), and the CQ watcher that posts them as the send
	 * queues get room (iwfi_rdm_drain()). */
	unsigned int queued;
	struct iwfi_cq_watch room;
	struct iwfi_cq *room_cq;
	pthread_t thread;
	bool running;
	int stop;
};

/* iwfi_av.c */
int iwfi_av_open(struct fid_domain *domain, struct fi_av_attr *attr,
		 struct fid_av **av, void *context);
int iwfi_av_addr(struct iwfi_av *av, fi_addr_t fi_addr,
		 struct sockaddr_storage *out);
size_t iwfi_rdm_addr_len(const struct sockaddr_storage *ss);
int iwfi_rdm_addr_cmp(const struct sockaddr_storage *a,
		      const struct sockaddr_storage *b);

/* iwfi_rdm_op.c */
ssize_t iwfi_rdm_op_post(struct fid_ep *ep, const struct iwfi_rdm_op *op);

/* iwfi_rdm_peer.c */
ssize_t iwfi_rdm_submit(struct iwfi_rdm *rdm, fi_addr_t dest,
			const struct iwfi_rdm_op *op);
void iwfi_rdm_on_request(struct iwfi_rdm *rdm, struct fi_info *info,
			 const void *data, size_t len);
void iwfi_rdm_on_event(struct iwfi_rdm *rdm, fid_t fid, enum iwfi_rdm_event ev);
void iwfi_rdm_peers_close(struct iwfi_rdm *rdm);
void iwfi_rdm_drain(struct iwfi_rdm *rdm);
ssize_t iwfi_rdm_tx_left(struct iwfi_rdm *rdm);

/* iwfi_rdm_ops.c */
extern const struct fi_ops_rma iwfi_rdm_rma_ops;
extern const struct fi_ops_atomic iwfi_rdm_atomic_ops;
extern const struct fi_ops_msg iwfi_rdm_msg_ops;

/* iwfi_rdm.c */
int iwfi_rdm_endpoint(struct fid_domain *domain, struct fi_info *info,
		      struct fid_ep **ep, void *context);

#endif
