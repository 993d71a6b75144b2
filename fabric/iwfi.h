/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The libfabric provider "iwcm": FI_EP_MSG endpoints over libiwcm.  Only
 * the installed rdma/ headers of libfabric and the public iwcm/ headers
 * are used.
 *
 * One iwcm context per fabric: its connection manager events are read by
 * the fabric's CM thread (iwfi_cm.c), which dispatches them to the event
 * queues of the endpoints and passive endpoints; its progress thread moves
 * the data (FI_PROGRESS_AUTO), or with FI_IWCM_PROGRESS=manual the calls
 * of the application do (iwfi_progress.c).  A domain is a protection domain of that
 * context, a CQ an iwcm CQ with its completion channel (FI_WAIT_FD), an
 * endpoint one connection and, once established, its QP.
 *
 * The files call one way: init -> fabric -> domain -> {pep, ep} -> cm ->
 * {rma, atomic} -> msg -> {eq, cq, mr} -> ep_fsm -> attr -> progress;
 * nosys only fills the tables.  FI_EP_RDM endpoints (iwfi_rdm.h) are
 * built on FI_EP_MSG ones through libfabric's calls: domain -> {rdm,
 * av}, rdm -> rdm_ops -> rdm_peer -> {rdm_op, rdm_fsm, av, cq}; their
 * rdm->lock is outermost, above ctx_lock, but for a CQ's watch_lock,
 * under which it is only tried (iwfi_rdm_drain()).
 *
 * Locks, outermost first; a thread holding one never takes one above it:
 *
 *   cq->watch_lock a CQ's watchers (iwfi_cq_watch): held while
 *                  fi_cq_read() calls them, with no other lock held; a
 *                  watcher only tries rdm->lock (iwfi_rdm.h).
 *   fab->ctx_lock  one libiwcm CM call on the context at a time (iwcm.h:
 *                  one thread per context): iwcm_connect/accept/reject/
 *                  listen/listener_close/conn_query/conn_free and the CM
 *                  thread's iwcm_get_event/ack_event/ctx_poll_us.  Held
 *                  around that call only, plus cm_lock to publish the
 *                  connection or
 *                  listener it made before the CM thread can read its
 *                  first event.  Never taken with an endpoint's lock or
 *                  cm_lock held, never across iwcm_destroy_qp().
 *   fab->cm_lock   the lists eps and peps, their keys (ep->conn,
 *                  pep->listener) and the CM thread's references to their
 *                  members (cm_refs, which fi_close() waits out); nothing
 *                  that writes to iwcmd and no iwcm_destroy_qp() under it.
 *   cq->lock       a CQ (iwfi_cq.c reads completions, then ends their
 *                  requests under the endpoint's lock).
 *   ep->lock       the endpoint's state (iwfi_ep_fsm.c), QP, held and
 *                  posted requests, credits; no request to iwcmd under it.
 *   eq->lock       an event queue; innermost (FI_SHUTDOWN may be pushed
 *                  from under a CQ's lock).
 *
 * Where a lock is a rule, the code asserts it (iwfi_held()).
 */
#ifndef IWFI_H
#define IWFI_H

#include <assert.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_eq.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <rdma/providers/fi_log.h>
#include <rdma/providers/fi_prov.h>

#include <iwcm/iwcm.h>

#include "iwfi_ep_fsm.h"

#define IWFI_NAME "iwcm"
#define IWFI_PROV_VERSION FI_VERSION(1, 0)
#define IWFI_API_VERSION FI_VERSION(1, 17)

/* Queue depths and limits of libiwcm's QPs (iwcm_create_qp(3)). */
#define IWFI_DEF_QUEUE 256
#define IWFI_MAX_QUEUE 16384
#define IWFI_IOV_LIMIT 8
#define IWFI_INJECT_SIZE 512
#define IWFI_MAX_MSG_SIZE 0x7fffffffUL
#define IWFI_CQ_MAX 1048576
/* How long closing an endpoint waits for the peer to close too. */
#define IWFI_LINGER_MS 1000
/* RFC 6581 §9.1: the IRD/ORD each side offers. */
#define IWFI_IRD_ORD 32
/* RFC 5044 §7.1 with RFC 6581 §8: 512 octets less 4 of IRD/ORD, less
 * the provider's receive credit header (iwfi_credit.c). */
#define IWFI_CM_HDR 24
#define IWFI_CM_DATA_SIZE (IWCM_PRIVATE_DATA_MAX_ENHANCED - IWFI_CM_HDR)

#define IWFI_CAPS                                                      \
	(FI_MSG | FI_RMA | FI_ATOMIC | FI_SEND | FI_RECV | FI_READ |   \
	 FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE | FI_LOCAL_COMM | \
	 FI_REMOTE_COMM)
/* What an FI_EP_RDM endpoint offers (iwfi_rdm.h): one-sided only. */
#define IWFI_RDM_CAPS                                               \
	(FI_RMA | FI_ATOMIC | FI_READ | FI_WRITE | FI_REMOTE_READ | \
	 FI_REMOTE_WRITE | FI_LOCAL_COMM | FI_REMOTE_COMM)
#define IWFI_MR_MODE \
	(FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_PROV_KEY | FI_MR_ALLOCATED)

extern struct fi_provider iwfi_prov;

/* prov_errno of CQ and EQ error entries (iwfi_eq.c spells them out): a
 * Terminate's layer, error type and code (RFC 5040 §4.8), octets 2, 1
 * and 0 under IWFI_PROV_TERM; or under IWFI_PROV_STATUS an iwcm work
 * completion status; or, on an EQ, an iwcm status (enum iwcm_status)
 * as it is. */
#define IWFI_PROV_TERM 0x1000000
#define IWFI_PROV_STATUS 0x2000000

/* The prov_errno of a Terminate. */
static inline int iwfi_prov_term(uint8_t layer, uint8_t etype, uint8_t ecode)
{
	return IWFI_PROV_TERM | layer << 16 | etype << 8 | ecode;
}

#define IWFI_WARN(sub, ...) FI_WARN(&iwfi_prov, sub, __VA_ARGS__)
#define IWFI_INFO(sub, ...) FI_INFO(&iwfi_prov, sub, __VA_ARGS__)

#define iwfi_container_of(ptr, type, field) \
	((type *)((char *)(ptr)-offsetof(type, field)))

struct iwfi_ep;
struct iwfi_pep;

/* Who holds a lock, for assertions (libfabric's ofi_mutex_held()). */
struct iwfi_owner {
	pthread_t thread;
	bool held;
};

/* Take m and note the owner o. */
static inline void iwfi_lock(pthread_mutex_t *m, struct iwfi_owner *o)
{
	pthread_mutex_lock(m);
#ifndef NDEBUG
	o->thread = pthread_self();
	__atomic_store_n(&o->held, true, __ATOMIC_RELAXED);
#else
	(void)o;
#endif
}

/* Release m, taken with iwfi_lock(). */
static inline void iwfi_unlock(pthread_mutex_t *m, struct iwfi_owner *o)
{
#ifndef NDEBUG
	__atomic_store_n(&o->held, false, __ATOMIC_RELAXED);
#else
	(void)o;
#endif
	pthread_mutex_unlock(m);
}

/* pthread_cond_wait() on m, taken with iwfi_lock(). */
static inline void iwfi_cond_wait(pthread_cond_t *c, pthread_mutex_t *m,
				  struct iwfi_owner *o)
{
#ifndef NDEBUG
	__atomic_store_n(&o->held, false, __ATOMIC_RELAXED);
#endif
	pthread_cond_wait(c, m);
#ifndef NDEBUG
	o->thread = pthread_self();
	__atomic_store_n(&o->held, true, __ATOMIC_RELAXED);
#else
	(void)o;
#endif
}

#ifndef NDEBUG
/* The calling thread holds the lock o notes (taken with iwfi_lock()). */
static inline bool iwfi_held(const struct iwfi_owner *o)
{
	return __atomic_load_n(&o->held, __ATOMIC_RELAXED) &&
	       pthread_equal(o->thread, pthread_self());
}
#endif

struct iwfi_fabric {
	struct fid_fabric fabric_fid;
	struct iwcm_ctx *ctx;
	/* The lock order is at the top of this file. */
	pthread_mutex_t ctx_lock;
	struct iwfi_owner ctx_owner;
	pthread_mutex_t cm_lock;
	struct iwfi_owner cm_owner;
	/* An endpoint's close waits here for the CM thread (ep->cm_refs). */
	pthread_cond_t cm_cond;
	struct iwfi_ep *eps;
	struct iwfi_pep *peps;
	pthread_t thread;
	bool thread_running;
	int stop;
	int wake_fd;
	int refs;
	/* FI_PROGRESS_MANUAL: the context has no progress thread, the
	 * application's calls move the data (iwfi_progress.c). */
	bool manual;
	/* FI_IWCM_CRC=on: connections ask for MPA CRC (iwfi_cm.c). */
	bool crc;
	/* Endpoints whose receive count is due (iwfi_credit.c). */
	unsigned int credit_due;
};

/* Take the context for one libiwcm CM call (the lock order above). */
static inline void iwfi_ctx_lock(struct iwfi_fabric *fab)
{
	assert(!iwfi_held(&fab->cm_owner));
	iwfi_lock(&fab->ctx_lock, &fab->ctx_owner);
}

static inline void iwfi_ctx_unlock(struct iwfi_fabric *fab)
{
	iwfi_unlock(&fab->ctx_lock, &fab->ctx_owner);
}

/* Take the fabric's lists. */
static inline void iwfi_cm_lock(struct iwfi_fabric *fab)
{
	iwfi_lock(&fab->cm_lock, &fab->cm_owner);
}

static inline void iwfi_cm_unlock(struct iwfi_fabric *fab)
{
	iwfi_unlock(&fab->cm_lock, &fab->cm_owner);
}

struct iwfi_domain {
	struct fid_domain domain_fid;
	struct iwfi_fabric *fabric;
	struct iwcm_pd *pd;
	/* Local access only, all of the address space: the lkey of buffers
	 * without a descriptor (iwfi_mr.c). */
	struct iwcm_mr *local_mr;
	struct fi_info *info;
	int refs;
};

/* A queued event queue entry. */
struct iwfi_eq_ent {
	struct iwfi_eq_ent *next;
	uint32_t event;
	bool err;
	size_t len;
	struct fi_eq_err_entry err_entry;
	void *err_data;
	uint8_t buf[];
};

struct iwfi_eq {
	struct fid_eq eq_fid;
	struct iwfi_fabric *fabric;
	pthread_mutex_t lock;
	struct iwfi_eq_ent *head, *tail;
	int efd;
	enum fi_wait_obj wait_obj;
	/* The err_data of the last fi_eq_readerr() without a buffer. */
	void *last_err_data;
	int refs;
};

/* An outstanding operation: wr_id of its work request. */
struct iwfi_req {
	struct iwfi_req *next;
	/* ep->posted: work requests handed to the QP (under ep->lock). */
	struct iwfi_req *pnext, *pprev;
	struct iwfi_ep *ep;
	void *context;
	uint64_t flags;
	void *buf;
	size_t len;
	bool report;
	/* FI_DELIVERY_COMPLETE writes (iwfi_cq.c): the write's completion
	 * waits for a later zero-length Read's (dc_hold), which covers
	 * the writes up to seq (dc_confirm); the range to read. */
	bool dc_hold, dc_confirm;
	uint64_t seq;
	uint64_t raddr;
	uint32_t rkey;
	/* Run on the request's successful completion, before it is
	 * reported or not (iwfi_cq.c), never on an error or a flush; NULL
	 * for most requests. */
	void (*on_done)(struct iwfi_req *req);
	/* A fetching atomic narrower than 8 octets (iwfi_atomic.c): the
	 * original word lands here, on_done copies the field at bit shift
	 * of size octets to buf. */
	uint64_t word;
	unsigned int size, shift;
	/* Held receives: the request to post once the QP exists. */
	struct iwcm_recv_wr wr;
	struct iwcm_sge sge[IWFI_IOV_LIMIT];
};

/*
 * Something that wants to hear of room in the send queues of a CQ's
 * endpoints: an RDM endpoint whose operations wait for a connection's
 * send queue (iwfi_rdm_peer.c).  fi_cq_read() calls fn(arg) after
 * releasing the CQ's lock, whether or not it read anything (an
 * unsignaled request frees its entry without a completion).
 */
struct iwfi_cq_watch {
	struct iwfi_cq_watch *next;
	void (*fn)(void *arg);
	void *arg;
};

/* A software completion error (a cancelled held receive). */
struct iwfi_cq_err {
	struct iwfi_cq_err *next;
	struct fi_cq_err_entry entry;
};

#define IWFI_CQ_STASH 64

struct iwfi_cq {
	struct fid_cq cq_fid;
	struct iwfi_domain *domain;
	struct iwcm_cq *cq;
	struct iwcm_comp_channel *channel;
	enum fi_cq_format format;
	enum fi_wait_obj wait_obj;
	pthread_mutex_t lock;
	struct iwcm_wc stash[IWFI_CQ_STASH];
	int stash_head, stash_len;
	struct iwfi_cq_err *errs, *errs_tail;
	/* Writes whose placement a Read confirmed, to report (under the
	 * lock; iwfi_cq.c). */
	struct iwfi_req *ready, *ready_tail;
	/* Watchers, under watch_lock (the lock order above). */
	pthread_mutex_t watch_lock;
	struct iwfi_cq_watch *watch;
	int refs;
};

struct iwfi_mr {
	struct fid_mr mr_fid;
	struct iwfi_domain *domain;
	struct iwcm_mr *mr;
};

/* What the peer said of its receive credits (iwfi_credit.c). */
struct iwfi_peer_credit {
	bool on;
	uint32_t stag;
	uint64_t addr;
	uint64_t posted;
};

/* The handle of an FI_CONNREQ's fi_info: a connection request. */
struct iwfi_connreq {
	struct fid fid;
	struct iwcm_conn *conn;
	struct iwfi_peer_credit peer;
};

struct iwfi_ep {
	struct fid_ep ep_fid;
	struct iwfi_ep *next; /* fabric->eps, under cm_lock */
	struct iwfi_domain *domain;
	struct iwfi_eq *eq;
	struct iwfi_cq *tx_cq, *rx_cq;
	bool tx_selective, rx_selective;
	uint64_t tx_op_flags, rx_op_flags;
	struct fi_info *info;
	/* Set with ctx_lock and cm_lock held, cleared once unlinked. */
	struct iwcm_conn *conn;
	/* The CM thread's dispatches under way (under cm_lock). */
	int cm_refs;
	/* Guards state, qp and the held receives against the CM thread. */
	pthread_mutex_t lock;
	struct iwfi_owner lock_owner;
	/* Changed only by iwfi_ep_fsm() (iwfi_ep_fsm.h). */
	enum iwfi_ep_state state;
	/* fi_shutdown() began the QP's close (under lock): what it flushes
	 * was cancelled by the application, even once the peer's close
	 * moved the state on to PEER_CLOSED. */
	bool app_shutdown;
	/* The peer's Terminate ended the connection (under lock): its
	 * iwfi_prov_term(), reported on the EQ in place of FI_SHUTDOWN
	 * (iwfi_eq_shutdown()); 0 for any other end. */
	int term;
	/* Set by the CM thread, cleared once unlinked: the CM thread may
	 * read it under cm_lock. */
	struct iwcm_qp *qp;
	struct iwfi_req *held, *held_tail;
	struct iwfi_req *posted;
	/* The original value of a non-fetching atomic lands here. */
	uint64_t scratch;
	struct iwcm_mr *scratch_mr;
	size_t cm_data_size;
	/* Receive credits (iwfi_credit.c), under ep->lock but for the
	 * word the peer writes. */
	uint64_t credit_word;
	struct iwcm_mr *credit_mr;
	uint64_t rx_posted, rx_advertised, tx_sent;
	uint64_t rx_done; /* receives completed */
	uint64_t tx_ops;  /* operations posted */
	/* tx_ops when a receive was last posted */
	uint64_t tx_ops_at_recv;
	bool credit_due;       /* the count goes with the next operation */
	uint64_t credit_msgs;  /* counts sent */
	uint64_t credit_rides; /* of which along with an operation */
	/* Requests kept for reuse (iwfi_cq.c), under req_lock. */
	pthread_mutex_t req_lock;
	struct iwfi_req *req_pool;
	unsigned int req_pooled;
	/* Work requests posted, by kind (iwfi_post_send()). */
	uint64_t tx_sends, tx_writes, tx_reads, tx_atomics;
	/* zero-length Read Requests (FI_DELIVERY_COMPLETE, iwfi_cq.c) */
	uint64_t tx_zreads;
	/* Fetching and compare atomics on fields narrower than 8 octets
	 * (iwfi_atomic.c), of tx_atomics. */
	uint64_t tx_narrow_fetch, tx_narrow_compare;
	/* FI_DELIVERY_COMPLETE writes, under ep->lock: the last one's
	 * seq, the last one a Read was posted for and the last one a Read
	 * confirmed; those completed but not confirmed yet, in order. */
	uint64_t dc_seq, dc_cover, dc_confirmed;
	bool dc_dead; /* no Read will confirm a write any more */
	/* The remote range of the last one posted (dc_seq): what a Read
	 * posted before a Read or an atomic names (iwfi_cq.c). */
	uint64_t dc_raddr;
	uint32_t dc_rkey;
	/* A confirming Read found the send queue full: the next
	 * completion of ep posts it (iwfi_cq.c); read without the lock. */
	bool dc_retry;
	struct iwfi_req *dc_held, *dc_held_tail;
	struct iwfi_peer_credit peer;
};

/* Take ep->lock, noting the owner for iwfi_ep_fsm()'s assertion. */
static inline void iwfi_ep_lock(struct iwfi_ep *ep)
{
	iwfi_lock(&ep->lock, &ep->lock_owner);
}

/* Release ep->lock taken with iwfi_ep_lock(). */
static inline void iwfi_ep_unlock(struct iwfi_ep *ep)
{
	iwfi_unlock(&ep->lock, &ep->lock_owner);
}

struct iwfi_pep {
	struct fid_pep pep_fid;
	struct iwfi_pep *next; /* fabric->peps, under cm_lock */
	struct iwfi_fabric *fabric;
	struct iwfi_eq *eq;
	struct fi_info *info;
	/* Set with ctx_lock and cm_lock held, cleared under cm_lock. */
	struct iwcm_listener *listener;
	/* The CM thread's dispatches under way (under cm_lock). */
	int cm_refs;
	struct sockaddr_storage addr;
};

/* iwfi_init.c: the entry point libfabric calls (FI_EXT_INI). */
struct fi_provider *fi_prov_ini(void);

/* iwfi_progress.c */
void iwfi_progress(struct iwfi_fabric *fab, int wait_ms);

/* iwfi_attr.c */
int iwfi_progress_default(void);
int iwfi_crc_default(void);
int iwfi_info_set_src(struct fi_info *info, const void *addr, size_t addrlen);
int iwfi_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info);
size_t iwfi_sockaddr_len(const struct sockaddr *sa);
int iwfi_errno(int e);

/* iwfi_eq.c */
int iwfi_eq_open(struct fid_fabric *fabric, struct fi_eq_attr *attr,
		 struct fid_eq **eq, void *context);
int iwfi_eq_push(struct iwfi_eq *eq, uint32_t event, const void *buf,
		 size_t len);
int iwfi_eq_push_err(struct iwfi_eq *eq, fid_t fid, void *context, int err,
		     int prov_errno, const void *data, size_t data_len);
int iwfi_eq_trywait(struct iwfi_eq *eq);
void iwfi_eq_shutdown(struct iwfi_eq *eq, fid_t fid, int term);
const char *iwfi_prov_str(int prov_errno, char *buf, size_t len);

/* iwfi_cq.c */
int iwfi_cq_open(struct fid_domain *domain, struct fi_cq_attr *attr,
		 struct fid_cq **cq, void *context);
struct iwfi_req *iwfi_req_new(struct iwfi_ep *ep, void *context, uint64_t flags,
			      bool report);
void iwfi_req_free(struct iwfi_req *req);
void iwfi_req_pool_free(struct iwfi_ep *ep);
void iwfi_req_link(struct iwfi_req *req);
void iwfi_req_unlink(struct iwfi_req *req);
void iwfi_cq_purge(struct iwfi_cq *cq, struct iwfi_ep *ep);
void iwfi_cq_cancel(struct iwfi_cq *cq, struct iwfi_req *req);
void iwfi_cq_fail(struct iwfi_cq *cq, void *context, uint64_t flags, int err);
int iwfi_cq_trywait(struct iwfi_cq *cq);
/* What a step of FI_DELIVERY_COMPLETE's books leaves to the CQ
 * (iwfi_dc.c): writes now confirmed, to report; writes no Read will
 * confirm, to fail as flushed.  Lists linked by next, in order. */
struct iwfi_dc_out {
	struct iwfi_req *ready, *ready_tail;
	struct iwfi_req *failed, *failed_tail;
};
int iwfi_dc_confirm_before(struct iwfi_ep *ep);
void iwfi_dc_retry(struct iwfi_ep *ep, struct iwfi_dc_out *out);
bool iwfi_dc_done(struct iwfi_req *req, struct iwfi_dc_out *out);
struct iwfi_req *iwfi_dc_fail(struct iwfi_ep *ep, uint64_t seq,
			      struct iwfi_dc_out *out);
void iwfi_cq_watch_add(struct iwfi_cq *cq, struct iwfi_cq_watch *w);
void iwfi_cq_watch_del(struct iwfi_cq *cq, struct iwfi_cq_watch *w);

/* iwfi_mr.c */
int iwfi_mr_reg(struct fid *fid, const void *buf, size_t len, uint64_t access,
		uint64_t offset, uint64_t requested_key, uint64_t flags,
		struct fid_mr **mr, void *context);
int iwfi_mr_regv(struct fid *fid, const struct iovec *iov, size_t count,
		 uint64_t access, uint64_t offset, uint64_t requested_key,
		 uint64_t flags, struct fid_mr **mr, void *context);
int iwfi_mr_regattr(struct fid *fid, const struct fi_mr_attr *attr,
		    uint64_t flags, struct fid_mr **mr);
uint32_t iwfi_mr_lkey(struct iwfi_domain *dom, void *desc);
int iwfi_mr_local_open(struct iwfi_domain *dom);
void iwfi_mr_local_close(struct iwfi_domain *dom);

/* iwfi_credit.c */
void iwfi_credit_hdr(struct iwfi_ep *ep, void *buf);
size_t iwfi_credit_parse(struct iwfi_peer_credit *pc, const void *data,
			 size_t len);
void iwfi_credit_update(struct iwfi_ep *ep);
int iwfi_credit_wr(struct iwfi_ep *ep, struct iwcm_send_wr *wr,
		   struct iwcm_sge *sge, uint64_t *val);
void iwfi_credit_sent(struct iwfi_ep *ep, uint64_t val);
bool iwfi_credit_posted(struct iwfi_ep *ep);
void iwfi_credit_used(struct iwfi_ep *ep);
void iwfi_credit_flush_all(struct iwfi_fabric *fab);
int iwfi_credit_take(struct iwfi_ep *ep, enum iwcm_wr_opcode op);
void iwfi_credit_return(struct iwfi_ep *ep, enum iwcm_wr_opcode op);

/* iwfi_msg.c */
extern const struct fi_ops_msg iwfi_msg_ops;
struct iwcm_recv_wr *iwfi_msg_chain_held(struct iwfi_ep *ep, uint32_t max);
void iwfi_msg_chain_done(struct iwfi_ep *ep, struct iwcm_recv_wr *chain,
			 bool posted);
struct iwfi_req *iwfi_msg_post_held(struct iwfi_ep *ep);
struct iwfi_req *iwfi_msg_take_held(struct iwfi_ep *ep);
void iwfi_msg_cancel_list(struct iwfi_ep *ep, struct iwfi_req *list);
ssize_t iwfi_msg_cancel(struct iwfi_ep *ep, void *context);
int iwfi_post_send(struct iwfi_ep *ep, struct iwcm_send_wr *wr);
/* iwfi_ep.c: fi_control(3)'s FI_GETOPSFLAG/FI_SETOPSFLAG on tx and rx. */
int iwfi_opsflag(int command, uint64_t *flags, uint64_t *tx, uint64_t *rx);
int iwfi_sgl(struct iwfi_domain *dom, struct iwcm_sge *sge,
	     const struct iovec *iov, void **desc, size_t count, size_t *len);

/* iwfi_rma.c */
extern const struct fi_ops_rma iwfi_rma_ops;

/* iwfi_atomic.c */
enum iwfi_atomic_kind {
	IWFI_ATOMIC_WRITE,   /* fi_atomic() */
	IWFI_ATOMIC_FETCH,   /* fi_fetch_atomic() */
	IWFI_ATOMIC_COMPARE, /* fi_compare_atomic() */
};
extern const struct fi_ops_atomic iwfi_atomic_ops;
size_t iwfi_atomic_size(enum fi_datatype dt);
bool iwfi_atomic_valid(enum fi_datatype dt, enum fi_op op,
		       enum iwfi_atomic_kind kind);
/* fi_atomicvalid(3) and its fetch and compare forms: the one table of
 * iwfi_atomic_valid(), for both endpoint types. */
int iwfi_atomic_writevalid(struct fid_ep *ep, enum fi_datatype dt,
			   enum fi_op op, size_t *count);
int iwfi_atomic_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			       enum fi_op op, size_t *count);
int iwfi_atomic_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
			       enum fi_op op, size_t *count);
int iwfi_atomic_wr(struct iwcm_send_wr *wr, enum fi_datatype dt, enum fi_op op,
		   uint64_t addr, const void *operand, const void *compare);
int iwfi_query_atomic(struct fid_domain *domain, enum fi_datatype datatype,
		      enum fi_op op, struct fi_atomic_attr *attr,
		      uint64_t flags);

/* iwfi_cm.c */
extern const struct fi_ops_cm iwfi_ep_cm_ops;
struct iwcm_conn_param *iwfi_cm_param(struct iwfi_fabric *fab, const void *data,
				      size_t len);
int iwfi_copy_name(const void *sa, size_t len, void *addr, size_t *addrlen);
int iwfi_cm_start(struct iwfi_fabric *fab);
void iwfi_cm_stop(struct iwfi_fabric *fab);
void iwfi_cm_wake(struct iwfi_fabric *fab);
void iwfi_cm_unlink_ep(struct iwfi_ep *ep);
void iwfi_cm_unlink_pep(struct iwfi_pep *pep);

/* iwfi_ep.c */
int iwfi_endpoint(struct fid_domain *domain, struct fi_info *info,
		  struct fid_ep **ep, void *context);

/* iwfi_pep.c */
int iwfi_passive_ep(struct fid_fabric *fabric, struct fi_info *info,
		    struct fid_pep **pep, void *context);

/* iwfi_domain.c */
int iwfi_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domain, void *context);

/* iwfi_fabric.c */
int iwfi_fabric_open(struct fi_fabric_attr *attr, struct fid_fabric **fabric,
		     void *context);

/* iwfi_nosys.c: what the tables do not support, -FI_ENOSYS */
int iwfi_no_bind(struct fid *fid, struct fid *bfid, uint64_t flags);
int iwfi_no_control(struct fid *fid, int command, void *arg);
int iwfi_no_ops_open(struct fid *fid, const char *name, uint64_t flags,
		     void **ops, void *context);
int iwfi_no_tx_ctx(struct fid_ep *sep, int index, struct fi_tx_attr *attr,
		   struct fid_ep **tx_ep, void *context);
int iwfi_no_rx_ctx(struct fid_ep *sep, int index, struct fi_rx_attr *attr,
		   struct fid_ep **rx_ep, void *context);
ssize_t iwfi_no_size_left(struct fid_ep *ep);

#endif
