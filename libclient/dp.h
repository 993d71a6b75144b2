/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_DP_H
#define IWCM_LIBCLIENT_DP_H

/*
 * The datapath internals: verbs objects (verbs.c), the RDMAP/DDP engine
 * (qp.c, qp_tx.c, qp_rx.c) over a framing (framing.h: MPA over TCP in
 * framing_mpa_tcp.c), the progress engine (progress.c) and the atomic
 * operations (atomics.c).
 *
 * Locking.  Locks are per QP and per CQ; no lock shared by several QPs
 * is held across a socket read or write, so one QP's I/O never holds up
 * another QP's posts, polls or progress.
 *
 *   dp.lock      the context: its object lists and reference counts,
 *                the loop's ownership (loop_busy, stopping) and dp.cond;
 *                the loop thread holds it to apply dp.sync.  Never held
 *                across socket I/O.
 *   qp->lock     one QP's engine: its queues, receive and transmit
 *                state, FSM state and libuv handle states; held across
 *                that QP's own socket reads and writes (progress.c,
 *                iwcm_post_send(), the linger of iwcm_destroy_qp()).
 *   srq->lock    a shared receive queue's ring (several QPs take from
 *                it).
 *   cq->lock     a completion queue; polling never waits for the engine.
 *   ch->lock     a completion channel.
 *   stags.lock   the STag table and the regions' validity: a reader lock
 *                for the checks of every QP's receive and transmit, the
 *                writer's for registration, deregistration and remote
 *                invalidation (RFC 5040 §5.3).
 *   dp.sync_lock the dp.sync list and qp->sync_queued.
 *   dp.alock     the asynchronous event queue.
 *
 * Lock order (take left before right, never the other way):
 *
 *   dp.lock -> qp->lock -> srq->lock -> cq->lock -> ch->lock
 *                       -> stags.lock
 *                       -> dp.sync_lock
 *                       -> dp.alock
 *
 * srq->lock, stags.lock, dp.sync_lock and dp.alock are leaves: nothing
 * else is taken while one is held.  A region's deregistration takes
 * dp.lock and the STag table's writer lock (then releases them), holding
 * each QP by its cp_refs, then each QP's lock in turn to detach the
 * region (qp_tx_detach(), qp_rx_detach()): a QP placing into it finishes
 * that read first, and no other QP's post, poll or progress waits for
 * it.  cq->qlock (cqwatch.c) is taken with qp->lock held or alone, and
 * a caller's pass over a CQ's QPs takes their locks only with a
 * trylock.  The
 * libuv handles are touched only by the thread that runs the loop (the
 * progress thread, or an iwcm_progress() caller with dp.loop_busy set);
 * their state enums change under qp->lock.  Sockets are non-blocking,
 * so nothing sleeps under a lock but in pthread_cond_wait().
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/uio.h>
#include <uv.h>

#include "framing.h"
#include "internal.h"
#include "mpa.h"
#include "qp_fsm.h"
#include "rdmap.h"

/* ---- STags (RFC 5042 §5) ---- */

/* An STag is a 24-bit index into the context's table and an 8-bit key
 * that changes each time the index is reused. */
#define DP_STAG_KEY_BITS 8
#define DP_STAG_INDEX_MAX 0xFFFFFFu
#define DP_STAG_INDEX(s) ((s) >> DP_STAG_KEY_BITS)
#define DP_STAG_KEY(s) ((uint8_t)(s))
#define DP_STAG_MAKE(i, k) ((uint32_t)(i) << DP_STAG_KEY_BITS | (uint8_t)(k))

struct dp_stag_slot {
	struct iwcm_mr *mr; /* NULL when free */
	uint32_t next_free; /* free list link (index) */
	uint8_t key;	    /* key of the last STag made here */
};

struct dp_stag_table {
	pthread_rwlock_t lock;	    /* see Locking above */
	struct dp_stag_slot *slots; /* slot 0 is never used */
	uint32_t n;		    /* slots allocated */
	uint32_t free_head;	    /* oldest free index, 0: none */
	uint32_t free_tail;	    /* newest free index */
	uint32_t used;
	uint32_t limit; /* highest index allowed */
};

/* Results of the RFC 5042 checks, mapped to Terminate codes by the
 * caller (tagged DDP or RDMAP Remote Protection). */
enum dp_prot {
	DP_PROT_OK = 0,
	DP_PROT_INVALID_STAG, /* unknown, stale key, invalidated */
	DP_PROT_PD,	      /* not associated with this stream */
	DP_PROT_ACCESS,	      /* access rights */
	DP_PROT_WRAP,	      /* TO + length wraps 64 bits */
	DP_PROT_BOUNDS,	      /* outside the region */
	DP_PROT_ALIGN,	      /* atomic target not 8-aligned */
};

struct iwcm_pd {
	struct iwcm_ctx *ctx;
	TAILQ_ENTRY(iwcm_pd) entry;
	unsigned int refs; /* MRs, SRQs, QPs */
};

struct iwcm_mr {
	struct iwcm_pd *pd;
	TAILQ_ENTRY(iwcm_mr) entry;
	uint8_t *addr;
	size_t length;
	unsigned int access;
	uint32_t stag;
	bool valid; /* false once remotely invalidated */
};

/* ---- completion queues and channels ---- */

struct iwcm_comp_channel {
	struct iwcm_ctx *ctx;
	TAILQ_ENTRY(iwcm_comp_channel) entry;
	pthread_mutex_t lock;
	/* iwcm_comp_channel_get_fd(): an epoll set of efd and of the
	 * epoll sets of the channel's CQs (their QPs' sockets), readable
	 * when an event is ready or a socket wants progress (cprog.c) */
	int fd;
	int efd;		       /* eventfd, readable while pending */
	bool signaled;		       /* efd holds a count (under lock) */
	unsigned int waiters;	       /* threads asleep in it (atomic) */
	TAILQ_HEAD(, iwcm_cq) pending; /* CQs with events not yet taken */
	unsigned int refs;	       /* CQs */
};

enum cq_arm {
	CQ_ARM_NONE = 0,
	CQ_ARM_ALL,
	CQ_ARM_SOLICITED,
};

struct iwcm_cq {
	struct iwcm_ctx *ctx;
	TAILQ_ENTRY(iwcm_cq) entry;
	pthread_mutex_t lock;
	struct iwcm_wc *ring;
	uint32_t size, head, count;
	void *cq_context;
	struct iwcm_comp_channel *channel;
	enum cq_arm arm;
	/* Armed since the last poll: the next poll of an empty ring leaves
	 * the sockets to the channel's descriptor (atomic; cq.c). */
	bool arm_fresh;
	bool overflowed;
	bool overflow_told; /* IWCM_EVENT_CQ_ERR queued */
	/* channel bookkeeping (under the channel's lock) */
	TAILQ_ENTRY(iwcm_cq) ch_entry;
	bool ch_queued;
	unsigned int ch_events;	 /* queued, not yet taken */
	unsigned int ch_unacked; /* taken, not yet acknowledged */
	unsigned int refs;	 /* QPs */
	/* Caller progress (cprog.c): the QPs that complete here, under
	 * qlock, and an epoll set of their sockets (data.ptr: the QP). */
	pthread_rwlock_t qlock;
	struct iwcm_qp **qps;
	uint32_t nqps, qcap;
	int epfd;
};

/* ---- receive queues ---- */

struct rq_wqe {
	uint64_t wr_id;
	int num_sge;
	uint64_t total;
	struct iwcm_sge *sge;
};

struct rq {
	struct rq_wqe *ring;
	struct iwcm_sge *sges;
	uint32_t size, max_sge;
	uint32_t head, count;
};

struct iwcm_srq {
	struct iwcm_pd *pd;
	TAILQ_ENTRY(iwcm_srq) entry;
	pthread_mutex_t lock; /* rq */
	struct rq rq;
	unsigned int refs; /* QPs */
};

/* ---- queue pairs ---- */

enum sq_wqe_state {
	WQE_QUEUED = 0, /* not started */
	WQE_TX,		/* segments being built or written */
	WQE_WAIT,	/* request sent, response awaited */
	WQE_DONE,	/* ready to complete */
};

struct sq_wqe {
	uint64_t wr_id;
	uint8_t opcode; /* enum iwcm_wr_opcode */
	uint8_t state;	/* enum sq_wqe_state */
	bool signaled, solicited, fence, inl;
	bool imm_phase; /* Write with Immediate: Write sent */
	bool built;	/* every segment built */
	int num_sge;
	struct iwcm_sge *sge;
	uint8_t *inl_buf;
	uint64_t total;
	uint64_t imm;
	uint32_t inv_stag;
	uint64_t raddr;
	uint32_t rkey;
	uint64_t cmp_add, cmp_add_mask, swap, swap_mask;
	uint64_t sent;	  /* payload octets segmented */
	uint32_t frames;  /* frames built, not yet written */
	uint32_t req_msn; /* Read/Atomic Request: QN 1 MSN */
	uint32_t req_id;  /* Atomic Request identifier */
	int status;
	uint32_t vendor_err;
};

enum irq_kind {
	IRQ_READ = 1,
	IRQ_ATOMIC,
};

/* An inbound Read or Atomic Request awaiting its response. */
struct irq_entry {
	uint8_t kind;
	bool started;
	struct rdmap_read_req rr;
	struct rdmap_atomic_req ar;
	uint64_t sent; /* Read Response octets segmented */
	uint8_t seg[DDP_UNTAGGED_HDR_LEN + RDMAP_ATOMIC_REQ_LEN];
	size_t seg_len; /* for a Terminate's header copy */
};

/* One DDP segment on its way to the framing's transport. */
enum tx_kind {
	TXF_SQ = 1, /* a segment of an SQ work request */
	TXF_IRQ,    /* a response */
	TXF_TERM,   /* our Terminate */
};

struct tx_frame {
	uint8_t kind;	    /* enum tx_kind */
	bool msg_last;	    /* last segment of its message */
	struct sq_wqe *wqe; /* TXF_SQ */
	/* DDP/RDMAP headers, until the framing gave the segment back */
	uint8_t hdr[DDP_UNTAGGED_HDR_LEN + RDMAP_ATOMIC_REQ_LEN +
		    RDMAP_TERM_MAX_LEN];
};

/* Receive phases of one DDP segment. */
enum rx_phase {
	RXP_IDLE = 0, /* between segments */
	RXP_DATA,     /* payload into its target */
	RXP_DISCARD,  /* payload of a rejected segment */
};

/* Limits of one object. */
#define DP_MAX_WR 16384u
#define DP_MAX_SGE 32u
#define DP_MAX_INLINE 4096u
#define DP_MAX_CQE (1u << 20)
#define DP_MAX_RX_IOV DP_MAX_SGE
/* RFC 5040 §4.4: a Read Request names one Data Sink STag and TO, so the
 * response lands in one local buffer (Linux siw: SIW_MAX_SGE_RD 1). */
#define DP_MAX_SGE_RD 1u
/* Bound of the close begun by iwcm_qp_disconnect(), milliseconds. */
#define DP_DISCONNECT_TIMEOUT_MS 3000u
#define DP_DISCONNECT_TIMEOUT_MAX 600000u

/* Header octets of a received segment kept (a header-only message
 * whole). */
#define DP_HBUF_LEN 256
/* Segments handed to the framing and not yet given back. */
#define DP_TX_FRAMES FRAMING_TX_QUEUE

/* A libuv handle of a QP (progress.c). */
enum dp_handle {
	DP_H_NONE = 0, /* not initialised */
	DP_H_IDLE,     /* initialised, stopped */
	DP_H_ACTIVE,   /* started */
	DP_H_CLOSING,  /* uv_close() called */
	DP_H_CLOSED,   /* its close callback ran */
};

enum qp_reason {
	QP_R_NONE = 0,
	QP_R_LOCAL,  /* we detected an error */
	QP_R_TERM,   /* the peer sent a Terminate */
	QP_R_CLOSED, /* the peer closed or reset */
	QP_R_USER,   /* destroyed by the application */
};

struct iwcm_qp {
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd;
	TAILQ_ENTRY(iwcm_qp) entry;	 /* dp.qps, under dp.lock */
	TAILQ_ENTRY(iwcm_qp) sync_entry; /* dp.sync list */
	bool sync_queued;		 /* under dp.sync_lock */
	pthread_mutex_t lock;		 /* everything below */
	struct iwcm_cq *send_cq, *recv_cq;
	struct iwcm_srq *srq;
	void *qp_context;
	int fd;
	enum qp_state fsm_state; /* qp_fsm.h; only qp_event() sets it */
	bool fsm_busy;		 /* an action of qp_event() runs */
	enum qp_reason reason;
	bool sq_sig_all;
	uint32_t max_send_sge, max_recv_sge, max_inline;

	/* Negotiated state (struct iwcm_conn at creation). */
	bool initiator;
	uint8_t version;     /* RDMAP version (RV) */
	uint8_t ddp_version; /* DDP version (DV) */
	bool atomics, imm_data;
	uint32_t ird, ord;
	bool markers_tx, markers_rx, crc;
	uint16_t mulpdu; /* the framing's */

	/* Send queue: counters, ring index = counter % sq_size. */
	struct sq_wqe *sq;
	struct iwcm_sge *sq_sges;
	uint8_t *sq_inl;
	uint32_t sq_size;
	uint32_t sq_pi, sq_ci, sq_tx; /* produced, completed, next to start */
	uint32_t *orq;		      /* SQ counters of requests sent */
	uint32_t orq_head, orq_count; /* awaiting a response */
	/* initiator: the Read RTR iwcmd sent awaits its zero-length
	 * Response, to this sink (RFC 6581 §9.2); one of our ORD */
	bool rtr_read_due;
	uint32_t rtr_read_stag;
	uint64_t rtr_read_to;
	uint32_t next_req_id;

	struct rq rq;

	/* Responder queue of inbound Read and Atomic Requests. */
	struct irq_entry *irq;
	uint32_t irq_size, irq_head, irq_count;

	/* The framing below RDMAP/DDP (framing.h). */
	struct framing *fr;

	/* Transmit. */
	uint32_t tx_msn[4];
	struct tx_frame *frames;
	struct iovec *tx_iov; /* one segment: header + payload */
	size_t tx_iov_cap;
	uint32_t tx_head, tx_count; /* frames ring */
	enum tx_kind tx_cur;	    /* message being segmented, or 0 */
	struct sq_wqe *tx_wqe;
	bool tx_blocked;	/* socket full: wait for POLLOUT */
	struct rdmap_term term; /* ours */

	/* Bounded close (iwcm_qp_disconnect(), our Terminate). */
	uint32_t disconnect_ms;	 /* the bound */
	uint64_t close_deadline; /* uv_hrtime() milliseconds */
	int abort_fd;		 /* reset socket libuv still watches */

	/* Receive. */
	enum rx_phase rx_phase;
	uint8_t hbuf[DP_HBUF_LEN]; /* the header of this segment */
	size_t hlen;
	uint32_t seg_len;     /* its length, header included */
	struct rdmap_msg msg; /* the header of this segment */
	uint32_t rx_msn[4];
	/* placement of this segment */
	uint8_t *dst;	    /* tagged: contiguous target */
	uint64_t dst_off;   /* untagged: MO of its first octet */
	uint32_t data_left; /* its payload octets */
	bool rx_err;	    /* a check failed on this segment */
	uint8_t err_layer, err_etype, err_ecode;
	/* Statuses this segment's header decided, for the receive and for
	 * the Read it answers: held until the framing vouched for it. */
	int seg_status, seg_sq_status;
	int err_status; /* the receive's, once that happened */
	/* untagged QN 0 message in progress */
	bool cur_recv;
	struct rq_wqe recv;
	uint64_t recv_len; /* highest MO + length seen */
	/* RFC 7306 §6: an Immediate Data after a Write */
	bool write_open;
	uint64_t write_len;
	bool last_was_write;
	uint64_t last_write_len;

	/* Caller progress (cprog.c).  cp_stamp counts the application's
	 * passes (atomic); cp_seen is the loop's last look at it; bg: the
	 * loop watches the socket for reading (no application thread did
	 * for a tick); cp_refs: callers between the CQ's list and the
	 * lock (atomic); cp_ev, cp_fd: what the CQs' epoll sets watch. */
	uint32_t cp_stamp, cp_seen;
	bool bg;
	unsigned int cp_refs;
	uint32_t cp_ev;
	int cp_fd;

	/* Progress engine (loop thread only). */
	uv_poll_t poll;
	enum dp_handle poll_state;
	int poll_events;
	uv_timer_t timer; /* the disconnect timeout */
	enum dp_handle timer_state;

	/* The peer's Terminate, once it came (iwcm_qp_peer_term()); cold,
	 * so last. */
	struct rdmap_term peer_term;
	bool peer_term_rx;
};

/* ---- the context's datapath ---- */

struct dp_async {
	struct iwcm_async_event ev;
};

struct dp {
	struct iwcm_ctx *ctx;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t sync_lock;
	bool manual;

	struct dp_stag_table stags;
	TAILQ_HEAD(, iwcm_pd) pds;
	TAILQ_HEAD(, iwcm_mr) mrs;
	TAILQ_HEAD(, iwcm_cq) cqs;
	TAILQ_HEAD(, iwcm_comp_channel) channels;
	TAILQ_HEAD(, iwcm_srq) srqs;
	TAILQ_HEAD(, iwcm_qp) qps;
	TAILQ_HEAD(, iwcm_qp) sync; /* QPs whose poll needs the loop */

	/* Asynchronous events. */
	pthread_mutex_t alock;
	struct dp_async *aq;
	uint32_t aq_size, aq_head, aq_count;
	int async_fd; /* eventfd, semaphore */

	/* Progress engine. */
	bool loop_init;
	uv_loop_t loop;
	uv_async_t doorbell;
	pthread_t thread;
	bool thread_started;
	bool stopping;
	bool loop_busy;		   /* a thread is inside uv_run() */
	unsigned long work;	   /* events handled (atomic) */
	unsigned int direct_calls; /* iwcm_progress() without the loop */
	bool direct_idle;	   /* the last direct pass found nothing */
	/* The fallback's tick (progress.c): while a QP is left to the
	 * application's threads, the loop looks every idle_us whether
	 * they still come; 0: the thread always watches every socket. */
	uv_timer_t tick;
	enum dp_handle tick_state;
	unsigned int idle_us;
};

/* ---- small helpers shared by qp.c, qp_tx.c and qp_rx.c ---- */

static inline bool dp_op_is_atomic(int op)
{
	return op == IWCM_WR_ATOMIC_FETCH_ADD || op == IWCM_WR_ATOMIC_CMP_SWP ||
	       op == IWCM_WR_ATOMIC_SWAP;
}

static inline struct dp_stag_table *qp_stags(const struct iwcm_qp *qp)
{
	return &qp->ctx->dp->stags;
}

static inline struct sq_wqe *sq_at(const struct iwcm_qp *qp, uint32_t c)
{
	return &qp->sq[c % qp->sq_size];
}

/* ---- dp.c ---- */

/* The datapath of ctx, created on first use; NULL with errno. */
struct dp *dp_get(struct iwcm_ctx *ctx);

/* ---- stag.c ---- */

/* STag table: insert mr (sets mr->stag), remove, look up. */
int dp_stag_alloc(struct dp_stag_table *t, struct iwcm_mr *mr);
void dp_stag_free(struct dp_stag_table *t, uint32_t stag);
struct iwcm_mr *dp_stag_lookup(const struct dp_stag_table *t, uint32_t stag);
void dp_stag_table_free(struct dp_stag_table *t);
/* RFC 5042 §5: may pd reach [to, to + len) of stag with access? */
enum dp_prot dp_mr_check(const struct dp_stag_table *t, uint32_t stag,
			 const struct iwcm_pd *pd, uint64_t to, uint64_t len,
			 unsigned int access, struct iwcm_mr **out);
/* The RDMAP Remote Protection error code of a failed check. */
uint8_t dp_prot_rdmap_ecode(enum dp_prot p);

/* ---- cq.c ---- */

/* Queue a completion (its QP's lock held); false when the CQ
 * overflowed. */
bool dp_cq_push(struct iwcm_cq *cq, const struct iwcm_wc *wc);
/* The channel whose events this thread takes (wait.c sets it). */
extern __thread struct iwcm_comp_channel *cq_channel_taking;
/* Keep the channel's eventfd readable while events are queued (its lock
 * held). */
void channel_signal(struct iwcm_comp_channel *ch);
/* Take up to num_entries completions into wc (iwcm_poll_cq_sz()). */
int cq_poll_ring(struct iwcm_cq *cq, int num_entries, struct iwcm_wc *wc,
		 size_t wc_size);
/* True the first time a caller sees the CQ overflowed. */
bool cq_overflow_first(struct iwcm_cq *cq);
/* Drop this QP's completions from a CQ (destroy). */
void cq_purge_qp(struct iwcm_cq *cq, const struct iwcm_qp *qp);
/* Free a completion queue, a completion channel (nothing refers to it). */
void cq_free(struct iwcm_cq *cq);
void channel_free(struct iwcm_comp_channel *ch);

/* ---- srq.c ---- */

/* A receive ring of size entries of max_sge each; -1 with errno. */
int rq_init(struct rq *rq, uint32_t size, uint32_t max_sge);
/* May wr be queued on rq?  -1 with errno if not. */
int rq_check(const struct rq *rq, const struct iwcm_recv_wr *wr);
/* Queue wr (checked) on rq. */
void rq_push(struct rq *rq, const struct iwcm_recv_wr *wr);
void rq_free(struct rq *rq);
/* Free a shared receive queue nothing uses. */
void srq_free(struct iwcm_srq *srq);

/* ---- async.c ---- */

/* Queue an asynchronous event. */
void dp_async_push(struct dp *dp, const struct iwcm_async_event *ev);

/* ---- qp.c ---- */

/* The completion opcode (enum iwcm_wc_opcode) of a send opcode. */
int dp_wc_opcode(int wr_opcode);
/* How much one call reads before letting other QPs run. */
#define QP_RX_BUDGET (1u << 20)

/* Set up the engine state of a new QP from its connection. */
int qp_engine_init(struct iwcm_qp *qp, const struct iwcm_conn *conn);
void qp_engine_free(struct iwcm_qp *qp);
/* Work the socket: read what is there, write what is queued. */
bool qp_rx_progress(struct iwcm_qp *qp);
void qp_tx_progress(struct iwcm_qp *qp);
/* The QP's framing (qp_rx.c): made from conn, replaced (tests), freed. */
int qp_framing_init(struct iwcm_qp *qp, const struct iwcm_conn *conn);
void qp_framing_set(struct iwcm_qp *qp, struct framing *fr);
void qp_framing_free(struct iwcm_qp *qp);
/* Do octets received before the handoff wait to be read? */
bool qp_rx_buffered(const struct iwcm_qp *qp);
/* May the framing send yet (qp_tx.c)? */
bool qp_tx_ready(const struct iwcm_qp *qp);
/* The framing gave segment cookie (a struct tx_frame) back: it is out. */
void qp_tx_done(void *arg, void *cookie);
/* Feed an event to the QP's state machine (qp_fsm.h). */
int qp_event(struct iwcm_qp *qp, enum qp_event ev, const void *data);
/* Post one work request (QP_EV_POST_SEND or _RECV): 0 to queue it, 1 if
 * it completed flushed, -1 with errno if refused. */
int qp_post_event(struct iwcm_qp *qp, enum qp_event ev, uint64_t wr_id,
		  int wc_opcode);
/* Move the QP to error: the event for reason (a Terminate if send_term
 * and one may be sent), flush, async event. */
void qp_fatal(struct iwcm_qp *qp, enum qp_reason reason, bool send_term,
	      uint8_t layer, uint8_t etype, uint8_t ecode, const uint8_t *seg,
	      size_t seg_len);
/* Complete (flush) what a QP in error still holds. */
void qp_flush(struct iwcm_qp *qp);
/* Complete finished send work requests in order. */
void qp_sq_reap(struct iwcm_qp *qp);
/* Complete a receive work request (its CQ, or the QP's if none). */
void qp_recv_complete(struct iwcm_qp *qp, struct iwcm_wc *wc);
/* Drop queued frames nobody started writing (a QP in error). */
void qp_tx_drop_unsent(struct iwcm_qp *qp);
/* A local error on a send work request (RFC 5040 §7.1 case 1). */
void qp_sq_local_error(struct iwcm_qp *qp, struct sq_wqe *w, int status);
/* Write what is queued unless the socket is full. */
void qp_tx_kick(struct iwcm_qp *qp);
/* Feed QP_EV_TX_DRAINED once what must precede our FIN is written. */
void qp_close_check(struct iwcm_qp *qp);
/* Queue our Terminate (qp->term) behind what is begun (qp_tx.c). */
void qp_tx_term(struct iwcm_qp *qp);
/*
 * Let a queued Terminate out before the socket is closed: write it,
 * waiting for room until the disconnect deadline, then the time-out
 * (RFC 5040 §5.4: the Terminate is the last message).  lock, when not
 * NULL, is held and dropped while waiting.
 */
void qp_linger(struct iwcm_qp *qp, pthread_mutex_t *lock);
/* Push a completion of qp; an overflow is reported once per CQ. */
bool qp_cq_push(struct iwcm_qp *qp, struct iwcm_cq *cq, struct iwcm_wc *wc);
/* A memory region goes away: copy the frames not all sent that point
 * into it. */
void qp_tx_detach(struct iwcm_qp *qp, const uint8_t *addr, size_t len);
/* A memory region goes away: stop placing through its STag. */
void qp_rx_detach(struct iwcm_qp *qp, uint32_t stag);
/* The poll events the QP needs now (UV_READABLE | UV_WRITABLE). */
int qp_poll_events(const struct iwcm_qp *qp);

/* What each state lets the engine do with the socket. */
static inline bool qp_rx_open(const struct iwcm_qp *qp)
{
	/* Not while our Terminate waits: nothing read matters, and the
	 * peer's FIN is read once ours is out. */
	return qp->fsm_state <= QP_S_FIN_WAIT || qp->fsm_state == QP_S_ERROR;
}

static inline bool qp_rx_live(const struct iwcm_qp *qp)
{
	/* RFC 5041 §7.1: in error, later segments are dropped. */
	return qp->fsm_state <= QP_S_FIN_WAIT;
}

static inline bool qp_tx_open(const struct iwcm_qp *qp)
{
	/* Work requests and responses are segmented. */
	return qp->fsm_state <= QP_S_CLOSING;
}

static inline bool qp_tx_writes(const struct iwcm_qp *qp)
{
	return qp->fsm_state <= QP_S_CLOSING || qp->fsm_state == QP_S_TERMINATE;
}

static inline bool qp_timed(const struct iwcm_qp *qp)
{
	/* The disconnect timer runs while a close or a Terminate is on
	 * its way. */
	return qp->fsm_state == QP_S_CLOSING ||
	       qp->fsm_state == QP_S_FIN_WAIT ||
	       qp->fsm_state == QP_S_TERMINATE;
}

/* ---- progress.c ---- */

/* Start the loop (and the thread unless manual). */
int progress_start(struct dp *dp);
/* Stop the thread and close the loop (no lock held). */
void progress_stop(struct dp *dp);
/* Ask the loop to (re)arm this QP's poll; rings the doorbell (qp->lock
 * held). */
void progress_sync_qp(struct dp *dp, struct iwcm_qp *qp);
/* What the loop watches the QP's socket for (qp->lock held): what it
 * needs, less reading while the application's threads progress it. */
int progress_qp_events(const struct iwcm_qp *qp);
/* Wait until the loop has closed this QP's handles (dp.lock held, the
 * QP destroyed). */
void progress_detach_qp(struct dp *dp, struct iwcm_qp *qp);

/* ---- cqwatch.c ---- */

/* A CQ's list and epoll set: set up, freed. */
int cqw_cq_init(struct iwcm_cq *cq);
void cqw_cq_fini(struct iwcm_cq *cq);
/* A QP starts or stops completing on its CQs (dp.lock held, not
 * qp->lock); detaching waits for the callers that still see it. */
int cqw_qp_attach(struct iwcm_qp *qp);
void cqw_qp_detach(struct iwcm_qp *qp);
/* Bring the CQs' epoll sets in line with what the QP's socket must be
 * watched for (qp->lock held). */
void cqw_qp_sync(struct iwcm_qp *qp);
/* The QP lets go of its socket: unwatch it now (qp->lock held). */
void cqw_qp_unwatch(struct iwcm_qp *qp);
/* A channel's descriptors: set up (epoll set + eventfd), a CQ added
 * or removed. */
int cqw_channel_init(struct iwcm_comp_channel *ch);
int cqw_channel_add(struct iwcm_comp_channel *ch, struct iwcm_cq *cq);
void cqw_channel_del(struct iwcm_comp_channel *ch, struct iwcm_cq *cq);

/* ---- cprog.c ---- */

/* The QPs one pass over a CQ takes at most. */
#define CPROG_PICK 16
/* The application entered the library for this QP. */
static inline void cprog_touch(struct iwcm_qp *qp)
{
	__atomic_add_fetch(&qp->cp_stamp, 1, __ATOMIC_RELAXED);
}
/* Progress the QPs of cq in the calling thread; the work done. */
unsigned int cprog_cq(struct iwcm_cq *cq);
/* Progress one QP in the calling thread if no other thread does
 * (trylock); the work done. */
unsigned int cprog_qp(struct iwcm_qp *qp);
/* Sleep until the channel's descriptor is readable, for at most
 * timeout_ms (-1: no limit), then progress the CQs that woke it; -1
 * with errno. */
int cprog_channel_wait(struct iwcm_comp_channel *ch, int timeout_ms);

/* ---- atomics.c ---- */

/* RFC 7306 §5.1.1: masked add of one 64-bit word (pure). */
uint64_t atomic_masked_add(uint64_t orig, uint64_t add, uint64_t mask);
/* RFC 7306 §5.1.2: the CmpSwap result for orig (pure). */
uint64_t atomic_cmp_swap_val(uint64_t orig, uint64_t cmp, uint64_t cmp_mask,
			     uint64_t swap, uint64_t swap_mask);
/* Run an atomic on an aligned word, atomically with every other one of
 * the process; returns the original value. */
uint64_t atomic_run(uint64_t *p, uint8_t aopcode, uint64_t add_swap,
		    uint64_t add_swap_mask, uint64_t cmp, uint64_t cmp_mask);

#endif
