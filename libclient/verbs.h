/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_VERBS_H
#define IWCM_VERBS_H

/**
 * DOC: libiwcm verbs
 *
 * <iwcm/verbs.h> (included by <iwcm/iwcm.h>) is the RDMA datapath, shaped
 * like libibverbs so that porting is mechanical: protection domains,
 * memory regions with 32-bit STags, completion queues with a completion
 * channel fd, queue pairs created on an established connection, work
 * requests and completions.  The wire protocol is RDMAP (RFC 5040) over
 * DDP (RFC 5041) over MPA (RFC 5044) with the RFC 7306 atomics and
 * immediate data, as negotiated by iwcmd for that connection.
 *
 * Differences from libibverbs, each forced by iWARP: immediate data is
 * 64 bits (RFC 7306 §6 carries 8 octets); an STag is both the lkey and
 * the rkey; one QP per connection, created from the ESTABLISHED
 * connection, which gives it the socket; the seed draft's Swap atomic
 * exists and an RFC 7306 peer refuses it.
 *
 * Progress: by default each context runs one progress thread that moves
 * data on all its QPs, so one-sided operations (inbound RDMA Writes,
 * Read Requests, atomics) complete without any call from the target
 * application.  With IWCM_CTX_MANUAL_PROGRESS the caller drives it with
 * iwcm_progress().
 *
 * Threads: unless a function says otherwise, verbs objects follow the
 * context rule of <iwcm/iwcm.h>; iwcm_post_send(), iwcm_post_recv(),
 * iwcm_poll_cq() and iwcm_req_notify_cq() may be called from any thread
 * concurrently with the progress thread (one caller per QP or CQ at a
 * time).
 *
 * The structures in this header whose fields are documented (work
 * requests, scatter/gather entries, completions, attributes) are part of
 * the ABI of IWCM_1.0; new fields are only ever appended behind a
 * comp_mask bit.
 */
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct iwcm_ctx;
struct iwcm_conn;
struct iwcm_pd;
struct iwcm_mr;
struct iwcm_cq;
struct iwcm_qp;
struct iwcm_srq;
struct iwcm_comp_channel;

/**
 * enum iwcm_access_flags - Access rights of a memory region (RFC 5042 §5).
 * @IWCM_ACCESS_LOCAL_WRITE: the local side may write (receives, Read
 *	Responses, atomic results land here).
 * @IWCM_ACCESS_REMOTE_WRITE: the peer may RDMA Write (needs LOCAL_WRITE).
 * @IWCM_ACCESS_REMOTE_READ: the peer may RDMA Read.
 * @IWCM_ACCESS_REMOTE_ATOMIC: the peer may run atomics (needs LOCAL_WRITE).
 */
enum iwcm_access_flags {
	IWCM_ACCESS_LOCAL_WRITE = 1 << 0,
	IWCM_ACCESS_REMOTE_WRITE = 1 << 1,
	IWCM_ACCESS_REMOTE_READ = 1 << 2,
	IWCM_ACCESS_REMOTE_ATOMIC = 1 << 3,
};

/**
 * struct iwcm_sge - One scatter/gather element.
 * @addr: start address inside the region of @lkey.
 * @length: octets.
 * @lkey: the STag of a region registered in the QP's protection domain.
 */
struct iwcm_sge {
	uint64_t addr;
	uint32_t length;
	uint32_t lkey;
};

/**
 * enum iwcm_wr_opcode - What a send work request does.
 * @IWCM_WR_SEND: Send (RFC 5040 §5.3); with IWCM_SEND_SOLICITED, Send with
 *	Solicited Event.
 * @IWCM_WR_SEND_WITH_INV: Send with Invalidate of @invalidate_stag (with
 *	SOLICITED: Send with SE and Invalidate).
 * @IWCM_WR_RDMA_WRITE: RDMA Write to wr.rdma.
 * @IWCM_WR_RDMA_WRITE_WITH_IMM: an RDMA Write followed by an Immediate
 *	Data message carrying @imm_data (RFC 7306 §6).
 * @IWCM_WR_IMM_DATA: Immediate Data alone (with SOLICITED: Immediate Data
 *	with SE), 8 octets of @imm_data.
 * @IWCM_WR_RDMA_READ: RDMA Read of wr.rdma into the local SGEs.
 * @IWCM_WR_ATOMIC_FETCH_ADD: RFC 7306 FetchAdd at wr.atomic with
 *	compare_add as Add Data and compare_add_mask as Add Mask; the
 *	original value lands in the single 8-octet SGE.
 * @IWCM_WR_ATOMIC_CMP_SWP: RFC 7306 CmpSwap (compare_add/compare_add_mask
 *	compare, swap/swap_mask swap).
 * @IWCM_WR_ATOMIC_SWAP: the seed draft's Swap (AOpCode 0001b); RFC 7306
 *	peers refuse it, which completes with IWCM_WC_REM_OP_ERR.
 */
enum iwcm_wr_opcode {
	IWCM_WR_SEND,
	IWCM_WR_SEND_WITH_INV,
	IWCM_WR_RDMA_WRITE,
	IWCM_WR_RDMA_WRITE_WITH_IMM,
	IWCM_WR_IMM_DATA,
	IWCM_WR_RDMA_READ,
	IWCM_WR_ATOMIC_FETCH_ADD,
	IWCM_WR_ATOMIC_CMP_SWP,
	IWCM_WR_ATOMIC_SWAP,
};

/**
 * enum iwcm_send_flags - Flags of a send work request.
 * @IWCM_SEND_SIGNALED: generate a completion (always, on error).
 * @IWCM_SEND_SOLICITED: set the Solicited Event bit (SE opcodes).
 * @IWCM_SEND_FENCE: start only after every earlier RDMA Read and atomic
 *	of this QP has completed.
 * @IWCM_SEND_INLINE: copy the payload at post time; the SGEs need no
 *	lkey and may be reused at once (up to max_inline_data octets).
 */
enum iwcm_send_flags {
	IWCM_SEND_SIGNALED = 1 << 0,
	IWCM_SEND_SOLICITED = 1 << 1,
	IWCM_SEND_FENCE = 1 << 2,
	IWCM_SEND_INLINE = 1 << 3,
};

/**
 * struct iwcm_send_wr - A send queue work request.
 * @wr_id: returned in the completion.
 * @next: the next request of a list, or NULL.
 * @sg_list: the local buffers.
 * @num_sge: entries in @sg_list.
 * @opcode: enum iwcm_wr_opcode.
 * @send_flags: enum iwcm_send_flags.
 * @imm_data: RFC 7306 Immediate Data, 64 bits, host order (sent
 *	big-endian).
 * @invalidate_stag: for IWCM_WR_SEND_WITH_INV.
 * @wr: the remote side of RDMA and atomic operations.
 */
struct iwcm_send_wr {
	uint64_t wr_id;
	struct iwcm_send_wr *next;
	struct iwcm_sge *sg_list;
	int num_sge;
	int opcode;
	unsigned int send_flags;
	uint64_t imm_data;
	uint32_t invalidate_stag;
	union {
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
		} rdma;
		struct {
			uint64_t remote_addr;
			uint32_t rkey;
			uint64_t compare_add;
			uint64_t compare_add_mask;
			uint64_t swap;
			uint64_t swap_mask;
		} atomic;
	} wr;
};

/**
 * struct iwcm_recv_wr - A receive queue work request.
 * @wr_id: returned in the completion.
 * @next: the next request of a list, or NULL.
 * @sg_list: where the message lands.
 * @num_sge: entries in @sg_list.
 */
struct iwcm_recv_wr {
	uint64_t wr_id;
	struct iwcm_recv_wr *next;
	struct iwcm_sge *sg_list;
	int num_sge;
};

/**
 * enum iwcm_wc_status - Completion status, same values as ibv_wc_status.
 */
enum iwcm_wc_status {
	IWCM_WC_SUCCESS,
	IWCM_WC_LOC_LEN_ERR,
	IWCM_WC_LOC_QP_OP_ERR,
	IWCM_WC_LOC_EEC_OP_ERR,
	IWCM_WC_LOC_PROT_ERR,
	IWCM_WC_WR_FLUSH_ERR,
	IWCM_WC_MW_BIND_ERR,
	IWCM_WC_BAD_RESP_ERR,
	IWCM_WC_LOC_ACCESS_ERR,
	IWCM_WC_REM_INV_REQ_ERR,
	IWCM_WC_REM_ACCESS_ERR,
	IWCM_WC_REM_OP_ERR,
	IWCM_WC_RETRY_EXC_ERR,
	IWCM_WC_RNR_RETRY_EXC_ERR,
	IWCM_WC_LOC_RDD_VIOL_ERR,
	IWCM_WC_REM_INV_RD_REQ_ERR,
	IWCM_WC_REM_ABORT_ERR,
	IWCM_WC_INV_EECN_ERR,
	IWCM_WC_INV_EEC_STATE_ERR,
	IWCM_WC_FATAL_ERR,
	IWCM_WC_RESP_TIMEOUT_ERR,
	IWCM_WC_GENERAL_ERR,
};

/**
 * enum iwcm_wc_opcode - What completed.
 */
enum iwcm_wc_opcode {
	IWCM_WC_SEND,
	IWCM_WC_RDMA_WRITE,
	IWCM_WC_RDMA_READ,
	IWCM_WC_COMP_SWAP,
	IWCM_WC_FETCH_ADD,
	IWCM_WC_SWAP,
	IWCM_WC_IMM_DATA,
	IWCM_WC_RECV = 1 << 7,
	IWCM_WC_RECV_RDMA_WITH_IMM,
	IWCM_WC_RECV_IMM_DATA,
};

/**
 * enum iwcm_wc_flags - Flags of a completion.
 * @IWCM_WC_WITH_IMM: imm_data is valid.
 * @IWCM_WC_WITH_INV: invalidated_stag is valid (Send with Invalidate).
 * @IWCM_WC_SOLICITED: the message carried the Solicited Event bit.
 */
enum iwcm_wc_flags {
	IWCM_WC_WITH_IMM = 1 << 0,
	IWCM_WC_WITH_INV = 1 << 1,
	IWCM_WC_SOLICITED = 1 << 2,
};

/**
 * struct iwcm_wc - A work completion.
 * @wr_id: from the work request.
 * @status: enum iwcm_wc_status.
 * @opcode: enum iwcm_wc_opcode.
 * @vendor_err: for errors caused by a Terminate: layer << 16 | etype << 8
 *	| code of RFC 5040 §4.8; 0 otherwise.
 * @byte_len: octets received (receives) or transferred.
 * @wc_flags: enum iwcm_wc_flags.
 * @imm_data: 64-bit Immediate Data, host order (IWCM_WC_WITH_IMM).
 * @invalidated_stag: the STag a Send with Invalidate invalidated.
 * @qp: the queue pair.
 */
struct iwcm_wc {
	uint64_t wr_id;
	int status;
	int opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	unsigned int wc_flags;
	uint64_t imm_data;
	uint32_t invalidated_stag;
	struct iwcm_qp *qp;
};

/**
 * struct iwcm_qp_init_attr - Queue pair creation attributes.
 * @comp_mask: 0 (reserved for future fields).
 * @send_cq: completions of the send queue.
 * @recv_cq: completions of the receive queue.
 * @srq: a shared receive queue, or NULL.
 * @max_send_wr: send queue depth.
 * @max_recv_wr: receive queue depth (ignored with @srq).
 * @max_send_sge: SGEs per send request.
 * @max_recv_sge: SGEs per receive request.
 * @max_inline_data: octets IWCM_SEND_INLINE may carry.
 * @sq_sig_all: every send request is signaled.
 * @qp_context: returned by iwcm_qp_get_context().
 */
struct iwcm_qp_init_attr {
	uint32_t comp_mask;
	struct iwcm_cq *send_cq;
	struct iwcm_cq *recv_cq;
	struct iwcm_srq *srq;
	uint32_t max_send_wr;
	uint32_t max_recv_wr;
	uint32_t max_send_sge;
	uint32_t max_recv_sge;
	uint32_t max_inline_data;
	int sq_sig_all;
	void *qp_context;
};

/**
 * enum iwcm_qp_state - State of a queue pair.
 * @IWCM_QPS_RTS: connected, moving data.
 * @IWCM_QPS_CLOSING: graceful close in progress.
 * @IWCM_QPS_ERROR: failed or closed: outstanding requests were flushed.
 */
enum iwcm_qp_state {
	IWCM_QPS_RTS = 1,
	IWCM_QPS_CLOSING,
	IWCM_QPS_ERROR,
};

/**
 * struct iwcm_qp_attr - What a connection really supports.
 * @comp_mask: 0 (reserved).
 * @state: enum iwcm_qp_state.
 * @ird: inbound RDMA Read (and atomic) requests accepted at once.
 * @ord: outbound RDMA Read (and atomic) requests in flight at once.
 * @rdmap_version: 1 IETF, 0 RDMA Consortium.
 * @atomics: 1 if atomics can be used on this connection.
 * @imm_data: 1 if Immediate Data can be used on this connection.
 * @markers_tx: MPA markers in what we send.
 * @markers_rx: MPA markers in what we receive.
 * @crc: MPA CRC on.
 * @mulpdu: largest ULPDU per FPDU (RFC 5044 §4.5).
 * @max_inline_data: as created.
 */
struct iwcm_qp_attr {
	uint32_t comp_mask;
	int state;
	uint32_t ird;
	uint32_t ord;
	uint32_t rdmap_version;
	int atomics;
	int imm_data;
	int markers_tx;
	int markers_rx;
	int crc;
	uint32_t mulpdu;
	uint32_t max_inline_data;
};

/**
 * enum iwcm_async_event_type - Asynchronous events.
 * @IWCM_EVENT_QP_FATAL: a local error moved the QP to error.
 * @IWCM_EVENT_QP_TERMINATE: the peer sent a Terminate (layer, type and
 *	code in the event); the QP is in error.
 * @IWCM_EVENT_QP_PEER_CLOSED: the peer closed or reset the connection.
 * @IWCM_EVENT_CQ_ERR: a completion queue overflowed.
 */
enum iwcm_async_event_type {
	IWCM_EVENT_QP_FATAL = 1,
	IWCM_EVENT_QP_TERMINATE,
	IWCM_EVENT_QP_PEER_CLOSED,
	IWCM_EVENT_CQ_ERR,
};

/**
 * struct iwcm_async_event - One asynchronous event.
 * @type: enum iwcm_async_event_type.
 * @qp: the queue pair, or NULL.
 * @cq: the completion queue, or NULL.
 * @term_layer: Terminate Layer (RFC 5040 §4.8), QP_TERMINATE/QP_FATAL.
 * @term_etype: Terminate Error Type.
 * @term_ecode: Terminate Error Code.
 */
struct iwcm_async_event {
	int type;
	struct iwcm_qp *qp;
	struct iwcm_cq *cq;
	uint8_t term_layer;
	uint8_t term_etype;
	uint8_t term_ecode;
};

/* Protection domains and memory regions (RFC 5042 §5). */
struct iwcm_pd *iwcm_alloc_pd(struct iwcm_ctx *ctx);
int iwcm_dealloc_pd(struct iwcm_pd *pd);
struct iwcm_mr *iwcm_reg_mr(struct iwcm_pd *pd, void *addr, size_t length,
			    unsigned int access);
int iwcm_dereg_mr(struct iwcm_mr *mr);
uint32_t iwcm_mr_get_stag(const struct iwcm_mr *mr);

/* Completion channels and queues. */
struct iwcm_comp_channel *iwcm_create_comp_channel(struct iwcm_ctx *ctx);
int iwcm_destroy_comp_channel(struct iwcm_comp_channel *channel);
int iwcm_comp_channel_get_fd(const struct iwcm_comp_channel *channel);
struct iwcm_cq *iwcm_create_cq(struct iwcm_ctx *ctx, int cqe,
			       void *cq_context,
			       struct iwcm_comp_channel *channel);
int iwcm_destroy_cq(struct iwcm_cq *cq);
int iwcm_poll_cq(struct iwcm_cq *cq, int num_entries, struct iwcm_wc *wc);
int iwcm_req_notify_cq(struct iwcm_cq *cq, int solicited_only);
int iwcm_get_cq_event(struct iwcm_comp_channel *channel, struct iwcm_cq **cq,
		      void **cq_context);
void iwcm_ack_cq_events(struct iwcm_cq *cq, unsigned int nevents);

/* Shared receive queues. */
struct iwcm_srq *iwcm_create_srq(struct iwcm_pd *pd, uint32_t max_wr,
				 uint32_t max_sge);
int iwcm_destroy_srq(struct iwcm_srq *srq);
int iwcm_post_srq_recv(struct iwcm_srq *srq, struct iwcm_recv_wr *wr,
		       struct iwcm_recv_wr **bad_wr);

/*
 * Queue pairs.  iwcm_create_qp() takes an ESTABLISHED connection and its
 * socket (the connection keeps no fd afterwards) and starts moving data.
 */
struct iwcm_qp *iwcm_create_qp(struct iwcm_conn *conn, struct iwcm_pd *pd,
			       const struct iwcm_qp_init_attr *attr);
int iwcm_destroy_qp(struct iwcm_qp *qp);
int iwcm_qp_disconnect(struct iwcm_qp *qp);
int iwcm_query_qp(const struct iwcm_qp *qp, struct iwcm_qp_attr *attr);
void *iwcm_qp_get_context(const struct iwcm_qp *qp);
int iwcm_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr,
		   struct iwcm_send_wr **bad_wr);
int iwcm_post_recv(struct iwcm_qp *qp, struct iwcm_recv_wr *wr,
		   struct iwcm_recv_wr **bad_wr);

/* Asynchronous events and manual progress. */
int iwcm_ctx_get_async_fd(const struct iwcm_ctx *ctx);
int iwcm_get_async_event(struct iwcm_ctx *ctx, struct iwcm_async_event *event);
int iwcm_progress(struct iwcm_ctx *ctx, int timeout_ms);
const char *iwcm_wc_status_str(int status);

#ifdef __cplusplus
}
#endif

#endif
