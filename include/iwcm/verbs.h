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
 * Differences from libibverbs forced by iWARP: immediate data is 64 bits
 * (RFC 7306 §6 carries 8 octets); an STag is both the lkey and the rkey;
 * one QP per connection, created from the ESTABLISHED connection, which
 * gives it the socket; the seed draft's Swap atomic exists and an RFC
 * 7306 peer refuses it.
 *
 * Other differences: iwcm_post_send(), iwcm_post_recv() and
 * iwcm_post_srq_recv() return the error number and set *bad_wr as
 * ibv_post_send() does, but also accept a NULL bad_wr.  The calls whose
 * ibverbs twins return the error number on failure (iwcm_dealloc_pd(),
 * iwcm_dereg_mr(), iwcm_destroy_comp_channel(), iwcm_destroy_cq(),
 * iwcm_req_notify_cq(), iwcm_destroy_srq(), iwcm_destroy_qp(),
 * iwcm_query_qp()) return -1 and set errno, as the rest of libiwcm; 0 on
 * success either way.  iwcm_destroy_cq() fails with EBUSY where
 * ibv_destroy_cq() waits for unacknowledged events.  An asynchronous
 * event is a copy, with nothing to acknowledge.  iwcm_create_srq() takes
 * no srq_limit (no SRQ_LIMIT_REACHED event).
 *
 * Growth: the public structures grow only at their end, and a binary
 * built against an older header keeps working with a newer library.
 * What the caller fills in (struct iwcm_qp_init_attr, struct
 * iwcm_srq_init_attr, work requests) carries a comp_mask the caller sets:
 * a field added later is read only when its bit is set, and a bit this
 * library does not know is EINVAL, so a comp_mask cannot be left unset.
 * struct iwcm_qp_attr is asked for with comp_mask (in: the optional
 * fields the caller wants, out: those written; unknown bits EINVAL).
 * What the library hands out by the record (completions, asynchronous
 * events) is written through iwcm_poll_cq_sz() and
 * iwcm_get_async_event_sz(), which take the caller's sizeof:
 * iwcm_poll_cq() and iwcm_get_async_event() are inline functions
 * passing it, so an array of completions keeps the caller's stride and
 * only the caller's prefix of each record is written (the role ibv_cq_ex
 * plays in rdma-core); wc_flags and comp_mask say which optional fields
 * are valid.
 *
 * Progress: a thread that polls a CQ, waits for a completion event or
 * posts work moves the data of the QPs concerned itself, in the call
 * (one wake-up per message, as with TCP).  Each context also runs one
 * progress thread as the fallback: it takes over a QP for which no
 * application thread entered the library during a tick
 * (IWCM_PROGRESS_IDLE_US, 10000 us by default, 0 to let it move all data
 * at once), so one-sided operations (inbound RDMA Writes, Read Requests,
 * atomics) complete without any call from the target application,
 * within two ticks.  With IWCM_CTX_MANUAL_PROGRESS there is no thread
 * and the caller drives the rest with iwcm_progress().
 *
 * Threads: every function of this header may be called from any thread,
 * concurrently with the progress engine and with other calls, except
 * that an object must not be destroyed while another call uses it.
 * iwcm_poll_cq() never waits for the progress engine.
 *
 * The structures in this header whose fields are documented (work
 * requests, scatter/gather entries, completions, attributes) are part of
 * the ABI of IWCM_1.0; new fields are only ever appended, behind a
 * comp_mask or wc_flags bit (see Growth above).
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
 * @opcode: what the request does.
 * @send_flags: an OR of enum iwcm_send_flags.
 * @comp_mask: 0: no optional field follows yet (fields added later are
 *	read only behind a bit of it; unknown bits are EINVAL).
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
	enum iwcm_wr_opcode opcode;
	unsigned int send_flags;
	uint32_t comp_mask;
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
 * @comp_mask: 0 (as in struct iwcm_send_wr).
 */
struct iwcm_recv_wr {
	uint64_t wr_id;
	struct iwcm_recv_wr *next;
	struct iwcm_sge *sg_list;
	int num_sge;
	uint32_t comp_mask;
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
 *
 * A field added to struct iwcm_wc later comes with a flag of its own,
 * set only when the field is valid and inside the caller's structure.
 */
enum iwcm_wc_flags {
	IWCM_WC_WITH_IMM = 1 << 0,
	IWCM_WC_WITH_INV = 1 << 1,
	IWCM_WC_SOLICITED = 1 << 2,
};

/**
 * struct iwcm_wc - A work completion.
 * @wr_id: from the work request.
 * @status: how it ended.
 * @opcode: what completed.
 * @vendor_err: for errors caused by a Terminate: layer << 16 | etype << 8
 *	| code of RFC 5040 §4.8; 0 otherwise.
 * @byte_len: octets received (receives) or transferred.
 * @qp: the queue pair.
 * @wc_flags: an OR of enum iwcm_wc_flags: which of the optional fields
 *	after it are valid, and the Solicited Event bit.
 * @invalidated_stag: the STag a Send with Invalidate invalidated
 *	(IWCM_WC_WITH_INV).
 * @imm_data: 64-bit Immediate Data, host order (IWCM_WC_WITH_IMM).
 *
 * The fields up to @wc_flags are always written; the optional ones after
 * it only when their wc_flags bit is set.  Fields are appended, each
 * with a wc_flags bit; iwcm_poll_cq() passes the caller's sizeof.
 */
struct iwcm_wc {
	uint64_t wr_id;
	enum iwcm_wc_status status;
	enum iwcm_wc_opcode opcode;
	uint32_t vendor_err;
	uint32_t byte_len;
	struct iwcm_qp *qp;
	unsigned int wc_flags;
	uint32_t invalidated_stag;
	uint64_t imm_data;
};

/**
 * enum iwcm_qp_init_attr_mask - Optional fields of struct iwcm_qp_init_attr.
 * @IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT: disconnect_timeout_ms is set.
 * @IWCM_QP_INIT_ATTR_RECV_WR: recv_wr is set.
 */
enum iwcm_qp_init_attr_mask {
	IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT = 1 << 0,
	IWCM_QP_INIT_ATTR_RECV_WR = 1 << 1,
};

/**
 * struct iwcm_qp_init_attr - Queue pair creation attributes.
 * @comp_mask: an OR of enum iwcm_qp_init_attr_mask: which of the fields
 *	after @qp_context the caller set.
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
 * @disconnect_timeout_ms: with IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT, how
 *	long a close begun by iwcm_qp_disconnect() may take before it turns
 *	abortive, 1 to 600000 milliseconds; without it, 3000.
 * @recv_wr: with IWCM_QP_INIT_ATTR_RECV_WR, a chain of receive requests
 *	(as iwcm_post_recv() takes, at most max_recv_wr, not with @srq) on
 *	the receive queue before the QP reads anything: a Send the peer
 *	issued as soon as it was established, already among the octets the
 *	daemon read past the handshake or in the socket, finds its buffer.
 *	Posting them after iwcm_create_qp() races the progress engine.
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
	uint32_t disconnect_timeout_ms;
	struct iwcm_recv_wr *recv_wr;
};

/**
 * enum iwcm_qp_state - State of a queue pair.
 * @IWCM_QPS_RTS: connected, moving data.
 * @IWCM_QPS_CLOSING: graceful close in progress (iwcm_qp_disconnect()).
 * @IWCM_QPS_ERROR: failed or closed: outstanding requests were flushed.
 */
enum iwcm_qp_state {
	IWCM_QPS_RTS = 1,
	IWCM_QPS_CLOSING,
	IWCM_QPS_ERROR,
};

/**
 * enum iwcm_qp_attr_mask - Optional fields of struct iwcm_qp_attr.
 * @IWCM_QP_ATTR_MAX_SGE_RD: max_sge_rd.
 * @IWCM_QP_ATTR_DISCONNECT_TIMEOUT: disconnect_timeout_ms.
 * @IWCM_QP_ATTR_ALL: every field of this version of the header.
 */
enum iwcm_qp_attr_mask {
	IWCM_QP_ATTR_MAX_SGE_RD = 1 << 0,
	IWCM_QP_ATTR_DISCONNECT_TIMEOUT = 1 << 1,
	IWCM_QP_ATTR_ALL = (1 << 2) - 1,
};

/**
 * struct iwcm_qp_attr - What a connection really supports.
 * @comp_mask: in: an OR of enum iwcm_qp_attr_mask, the optional fields
 *	(after @max_inline_data) the caller asks for; out: those written.
 * @state: the QP's state.
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
 * @max_sge_rd: local scatter/gather entries an RDMA Read may have: 1,
 *	because a Read Request names a single Data Sink STag and Tagged
 *	Offset (RFC 5040 §4.4), as libibverbs' max_sge_rd of Linux siw.
 * @disconnect_timeout_ms: how long a close begun by iwcm_qp_disconnect()
 *	may take (struct iwcm_qp_init_attr).
 */
struct iwcm_qp_attr {
	uint32_t comp_mask;
	enum iwcm_qp_state state;
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
	uint32_t max_sge_rd;
	uint32_t disconnect_timeout_ms;
};

/**
 * enum iwcm_event_type - Asynchronous events.
 * @IWCM_EVENT_QP_FATAL: a local error moved the QP to error; also a close
 *	of iwcm_qp_disconnect() that timed out (Terminate Layer LLP, Error
 *	Type MPA, Error Code 1: RFC 5044 §8 "lost by timeout").
 * @IWCM_EVENT_QP_TERMINATE: the peer sent a Terminate (layer, type and
 *	code in the event); the QP is in error.
 * @IWCM_EVENT_QP_PEER_CLOSED: the peer closed or reset the connection.
 * @IWCM_EVENT_CQ_ERR: a completion queue overflowed.
 */
enum iwcm_event_type {
	IWCM_EVENT_QP_FATAL = 1,
	IWCM_EVENT_QP_TERMINATE,
	IWCM_EVENT_QP_PEER_CLOSED,
	IWCM_EVENT_CQ_ERR,
};

/**
 * struct iwcm_async_event - One asynchronous event.
 * @type: what happened.
 * @comp_mask: which optional fields (after @term_ecode) are valid: 0,
 *	none yet.  Fields are appended, each with a bit of its own;
 *	iwcm_get_async_event() passes the caller's sizeof.
 * @qp: the queue pair, or NULL.
 * @cq: the completion queue, or NULL.
 * @term_layer: Terminate Layer (RFC 5040 §4.8), QP_TERMINATE/QP_FATAL.
 * @term_etype: Terminate Error Type.
 * @term_ecode: Terminate Error Code.
 */
struct iwcm_async_event {
	enum iwcm_event_type type;
	uint32_t comp_mask;
	struct iwcm_qp *qp;
	struct iwcm_cq *cq;
	uint8_t term_layer;
	uint8_t term_etype;
	uint8_t term_ecode;
};

/* ---- protection domains and memory regions (RFC 5042 §5) ---- */

/**
 * iwcm_alloc_pd() - Allocate a protection domain.
 * @ctx: the context.
 *
 * A QP reaches only memory regions of its own protection domain: an STag
 * of another domain is "not associated with this stream" (RFC 5042
 * §5.2) whatever its access rights.
 *
 * Context: Thread-safe.
 * Return: The protection domain, or NULL with errno EINVAL (@ctx NULL)
 * or ENOMEM.
 */
struct iwcm_pd *iwcm_alloc_pd(struct iwcm_ctx *ctx);

/**
 * iwcm_dealloc_pd() - Free a protection domain.
 * @pd: the protection domain.
 *
 * Context: Thread-safe; @pd must not be in use by another call.
 * Return: 0, or -1 with errno EBUSY while a memory region, shared receive
 * queue or QP still uses @pd, EINVAL if @pd is NULL.
 */
int iwcm_dealloc_pd(struct iwcm_pd *pd);

/**
 * iwcm_reg_mr() - Register a memory region and give it an STag.
 * @pd: the protection domain.
 * @addr: start of the region; Tagged Offsets are addresses, so the
 *	peer names this octet with TO @addr.
 * @length: octets, 0 allowed.
 * @access: an OR of enum iwcm_access_flags; 0 allows local reads only
 *	(send sources).
 *
 * The STag is a 24-bit index into the context's STag table and an 8-bit
 * key incremented each time that index is reused, so an STag of a
 * deregistered region does not match its successor.  No STag below 256
 * is ever valid.  The memory must stay valid until iwcm_dereg_mr().
 *
 * Context: Thread-safe.
 * Return: The region, or NULL with errno EINVAL (@pd NULL, @addr NULL
 * with a @length, unknown @access bits, REMOTE_WRITE or REMOTE_ATOMIC
 * without LOCAL_WRITE, a range that wraps), ENOSPC (STag table full) or
 * ENOMEM.
 */
struct iwcm_mr *iwcm_reg_mr(struct iwcm_pd *pd, void *addr, size_t length,
			    unsigned int access);

/**
 * iwcm_dereg_mr() - Deregister a memory region.
 * @mr: the region.
 *
 * From the moment this returns, the library no longer reads or writes
 * the region: octets of queued FPDUs that point into it are copied
 * first, work requests that still name its STag complete with
 * IWCM_WC_LOC_PROT_ERR and the peer's accesses get a Terminate.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EINVAL if @mr is NULL.
 */
int iwcm_dereg_mr(struct iwcm_mr *mr);

/**
 * iwcm_mr_get_stag() - The STag of a memory region.
 * @mr: the region.
 *
 * The STag is both the lkey of local scatter/gather entries and the rkey
 * the peer uses.
 *
 * Context: Thread-safe.
 * Return: The STag, or 0 if @mr is NULL.
 */
uint32_t iwcm_mr_get_stag(const struct iwcm_mr *mr);

/* ---- completion channels and queues ---- */

/**
 * iwcm_create_comp_channel() - Create a completion channel.
 * @ctx: the context.
 *
 * A completion channel is a file descriptor that becomes readable when a
 * completion queue armed with iwcm_req_notify_cq() gets a completion.
 *
 * Context: Thread-safe.
 * Return: The channel, or NULL with errno EINVAL (@ctx NULL), ENOMEM or
 * the errno of eventfd(2).
 */
struct iwcm_comp_channel *iwcm_create_comp_channel(struct iwcm_ctx *ctx);

/**
 * iwcm_destroy_comp_channel() - Destroy a completion channel.
 * @channel: the channel.
 *
 * Context: Thread-safe; @channel must not be in use by another call.
 * Return: 0, or -1 with errno EBUSY while a completion queue uses it,
 * EINVAL if @channel is NULL.
 */
int iwcm_destroy_comp_channel(struct iwcm_comp_channel *channel);

/**
 * iwcm_comp_channel_get_fd() - The descriptor of a completion channel.
 * @channel: the channel.
 *
 * Readable while completion events wait for iwcm_get_cq_event(), and
 * while a socket of a QP completing on the channel's CQs has something
 * to read (or room to write what waits): the call that follows moves
 * that data in the caller's thread and may find no event, so a caller
 * that polls the descriptor sets O_NONBLOCK on it and takes EAGAIN from
 * iwcm_get_cq_event() as "nothing yet".  It is an epoll descriptor: the
 * caller must not read, write or close it.
 *
 * Context: Thread-safe.
 * Return: The descriptor, or -1 with errno EINVAL if @channel is NULL.
 */
int iwcm_comp_channel_get_fd(const struct iwcm_comp_channel *channel);

/**
 * iwcm_create_cq() - Create a completion queue.
 * @ctx: the context.
 * @cqe: entries, 1 to 1048576.
 * @cq_context: returned by iwcm_get_cq_event().
 * @channel: the completion channel for notifications, or NULL.
 *
 * A completion that finds the queue full is lost: the queue reports
 * IWCM_EVENT_CQ_ERR once and the QP that completed moves to error.
 *
 * Context: Thread-safe.
 * Return: The completion queue, or NULL with errno EINVAL (@ctx NULL,
 * @cqe out of range, @channel of another context) or ENOMEM.
 */
struct iwcm_cq *iwcm_create_cq(struct iwcm_ctx *ctx, int cqe, void *cq_context,
			       struct iwcm_comp_channel *channel);

/**
 * iwcm_destroy_cq() - Destroy a completion queue.
 * @cq: the completion queue.
 *
 * Its completions and the channel events not yet taken are dropped.  A
 * completion event taken with iwcm_get_cq_event() hands the caller a
 * pointer to @cq, so @cq outlives it: where libibverbs' ibv_destroy_cq()
 * waits until every such event is acknowledged, this call fails at once
 * instead, which cannot deadlock a single-threaded caller.
 *
 * Context: Thread-safe; @cq must not be in use by another call.
 * Return: 0, or -1 with errno EBUSY while a QP uses it or while events
 * taken with iwcm_get_cq_event() are not acknowledged with
 * iwcm_ack_cq_events(), EINVAL if @cq is NULL.
 */
int iwcm_destroy_cq(struct iwcm_cq *cq);

/**
 * iwcm_poll_cq_sz() - Take completions into an array of sized records.
 * @cq: the completion queue.
 * @num_entries: at most this many.
 * @wc: an array of @num_entries completion structures of @wc_size octets.
 * @wc_size: sizeof(struct iwcm_wc) as the caller was compiled: at least
 *	offsetof(struct iwcm_wc, invalidated_stag), the fields always
 *	written.
 *
 * What iwcm_poll_cq() calls.  Completion i is written at @wc + i *
 * @wc_size; of each, only the first @wc_size octets are written, and a
 * wc_flags bit is set only for a field inside them, so a binary built
 * with an older, shorter struct iwcm_wc keeps working when fields are
 * added.  Octets beyond the structure this library knows are zeroed.
 * An empty queue makes the call move the data of the queue's QPs first,
 * as iwcm_poll_cq() says.
 *
 * Context: Thread-safe; never waits for the progress engine.
 * Return: The number of completions stored (0 when none), or -1 with
 * errno EINVAL (@cq NULL, @num_entries negative, @wc NULL, @wc_size too
 * small).
 */
int iwcm_poll_cq_sz(struct iwcm_cq *cq, int num_entries, struct iwcm_wc *wc,
		    size_t wc_size);

/**
 * iwcm_poll_cq() - Take completions.
 * @cq: the completion queue.
 * @num_entries: at most this many.
 * @wc: where to store them.
 *
 * Never waits.  When the queue is empty the call first moves the data of
 * the QPs that complete on it, in the calling thread: it reads what
 * their sockets hold and writes what waits (the QP's lock taken with a
 * trylock: a QP another thread is moving is skipped).  One
 * epoll_wait(2) without waiting says which sockets have something (it
 * takes no socket's lock, which a read of an empty socket would, in
 * the way of the peer's delivery), then one read(2) per arriving batch.
 * A CQ of a single QP skips the epoll_wait(2): its socket is read
 * directly, one read(2) per call whether or not it holds anything, as a
 * busy-polling TCP program does, so that a message costs one system call
 * to receive instead of two (unless the socket is full for writing,
 * when the QP waits to be told it has room).  The first call after
 * iwcm_req_notify_cq() only looks at the queue (see there).
 * Completions of one QP's send
 * queue come in the order the work requests were posted (RFC 5040 §5.5
 * rule 15), receives in the order the messages arrived.  After an error
 * every outstanding work request completes with IWCM_WC_WR_FLUSH_ERR,
 * signaled or not.
 *
 * An inline function: it calls iwcm_poll_cq_sz() with sizeof(*@wc), so
 * struct iwcm_wc can grow without breaking binaries.
 *
 * Context: Thread-safe; never waits for the progress engine.
 * Return: The number of completions stored (0 when none), or -1 with
 * errno EINVAL.
 */
static inline int iwcm_poll_cq(struct iwcm_cq *cq, int num_entries,
			       struct iwcm_wc *wc)
{
	return iwcm_poll_cq_sz(cq, num_entries, wc, sizeof(*wc));
}

/**
 * iwcm_req_notify_cq() - Ask for a completion event.
 * @cq: a completion queue with a channel.
 * @solicited_only: 0 for the next completion; otherwise the next
 *	completion of a message with the Solicited Event bit, or an
 *	unsuccessful one.
 *
 * One request gives at most one event on the channel.  Completions
 * already queued do not count: poll the queue after requesting.  That
 * poll (the first iwcm_poll_cq() after this call) only looks at the
 * queue and reads no socket: what the QPs' sockets hold makes the
 * channel's descriptor readable, and iwcm_get_cq_event() or any later
 * poll moves it.  An event loop (poll, request, poll, wait) so makes no
 * read(2) that finds nothing between the request and the wait.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EINVAL (@cq NULL or without a channel).
 */
int iwcm_req_notify_cq(struct iwcm_cq *cq, int solicited_only);

/**
 * iwcm_get_cq_event() - Take the next completion event of a channel.
 * @channel: the channel.
 * @cq: where to store the completion queue the event is about.
 * @cq_context: where to store its cq_context, or NULL.
 *
 * Moves the data of the QPs of the channel's CQs in the calling thread,
 * then waits unless the channel's descriptor was set O_NONBLOCK: asleep
 * on their sockets and the channel's events at once, it moves what
 * arrives itself, so that a message wakes one thread.  While a thread
 * waits here the progress thread leaves these QPs to it.  With
 * IWCM_CTX_MANUAL_PROGRESS a waiting call drives the progress engine
 * itself.  Every event returned must be acknowledged with
 * iwcm_ack_cq_events() before iwcm_destroy_cq() can destroy its queue.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EAGAIN (non-blocking, no event), EINVAL
 * or the errno of read(2) and epoll_wait(2).
 */
int iwcm_get_cq_event(struct iwcm_comp_channel *channel, struct iwcm_cq **cq,
		      void **cq_context);

/**
 * iwcm_ack_cq_events() - Acknowledge completion events.
 * @cq: the completion queue.
 * @nevents: events of @cq taken with iwcm_get_cq_event().
 *
 * As ibv_ack_cq_events(): one call may acknowledge several events, and
 * iwcm_destroy_cq() fails with EBUSY until every event taken for @cq has
 * been acknowledged.  Acknowledging more events than were taken counts
 * only those taken; a NULL @cq is ignored.
 *
 * Context: Thread-safe.
 */
void iwcm_ack_cq_events(struct iwcm_cq *cq, unsigned int nevents);

/* ---- shared receive queues ---- */

/**
 * struct iwcm_srq_init_attr - Shared receive queue creation attributes.
 * @comp_mask: 0: no optional field follows yet (unknown bits are EINVAL).
 * @max_wr: receive work requests it holds, 1 to 16384.
 * @max_sge: scatter/gather entries per request, 0 to 32 (0 counts as 1).
 */
struct iwcm_srq_init_attr {
	uint32_t comp_mask;
	uint32_t max_wr;
	uint32_t max_sge;
};

/**
 * iwcm_create_srq() - Create a shared receive queue.
 * @pd: the protection domain of the QPs that will use it.
 * @attr: its depth and scatter/gather entries per request.
 *
 * Sends, Sends with Invalidate and Immediate Data arriving on any QP
 * created with this queue take its oldest buffer.
 *
 * Context: Thread-safe.
 * Return: The queue, or NULL with errno EINVAL (@pd or @attr NULL, a
 * value out of range, an unknown comp_mask bit) or ENOMEM.
 */
struct iwcm_srq *iwcm_create_srq(struct iwcm_pd *pd,
				 const struct iwcm_srq_init_attr *attr);

/**
 * iwcm_destroy_srq() - Destroy a shared receive queue.
 * @srq: the queue.
 *
 * Context: Thread-safe; @srq must not be in use by another call.
 * Return: 0, or -1 with errno EBUSY while a QP uses it, EINVAL if @srq
 * is NULL.
 */
int iwcm_destroy_srq(struct iwcm_srq *srq);

/**
 * iwcm_post_srq_recv() - Post receive buffers to a shared receive queue.
 * @srq: the queue.
 * @wr: a list of receive work requests (next-linked).
 * @bad_wr: where to store the first request not posted, or NULL.
 *
 * The scatter/gather entries are checked when a message lands in them
 * (lkey valid, same protection domain, LOCAL_WRITE, in bounds).  The
 * requests before the first bad one are posted; *@bad_wr is set to that
 * one and nothing from it on is posted.
 *
 * Context: Thread-safe.
 * Return: 0, or the error number (errno is left alone), as
 * ibv_post_srq_recv(): EINVAL (@srq NULL; a request with more than
 * max_sge entries, 4 GiB or more, or an unknown comp_mask bit), ENOMEM
 * (the queue is full).
 */
int iwcm_post_srq_recv(struct iwcm_srq *srq, struct iwcm_recv_wr *wr,
		       struct iwcm_recv_wr **bad_wr);

/* ---- queue pairs ---- */

/**
 * iwcm_create_qp() - Create the queue pair of an established connection.
 * @conn: a connection after IWCM_CM_EVENT_ESTABLISHED, with its socket.
 * @pd: the protection domain, of the same context as @conn.
 * @attr: queues, depths and limits: max_send_wr 1 to 16384, max_recv_wr
 *	1 to 16384 (unless srq), max_send_sge and max_recv_sge up to 32 (0
 *	counts as 1), max_inline_data up to 4096; comp_mask 0 or
 *	IWCM_QP_INIT_ATTR_DISCONNECT_TIMEOUT with disconnect_timeout_ms 1
 *	to 600000.
 *
 * The QP takes the connection's socket (iwcm_conn_get_fd() then fails
 * with EBADF), its negotiated state (versions, markers, CRC, IRD/ORD,
 * marker positions, next MSNs, MPA v1 fencing) and the octets the daemon
 * read past the handshake, and starts moving data: in its RTS state it
 * receives at once.  The connection may be freed afterwards.
 *
 * Context: Thread-safe.
 * Return: The QP, or NULL with errno EINVAL (bad argument or attribute,
 * objects of different contexts, a receive request iwcm_post_recv()
 * would refuse; none of recv_wr is then queued), ENOTCONN (not established), EBADF
 * (socket released or taken by another QP), EOPNOTSUPP (not TCP) or
 * ENOMEM.
 */
struct iwcm_qp *iwcm_create_qp(struct iwcm_conn *conn, struct iwcm_pd *pd,
			       const struct iwcm_qp_init_attr *attr);

/**
 * iwcm_destroy_qp() - Destroy a queue pair and close its socket.
 * @qp: the queue pair.
 *
 * Abortive when the QP is still connected (use iwcm_qp_disconnect()
 * first for a graceful close).  No completion is generated; completions
 * of @qp still in its completion queues are dropped.
 *
 * Context: Thread-safe; @qp must not be in use by another call.  Waits
 * for the progress engine to let go of the socket.
 * Return: 0, or -1 with errno EINVAL if @qp is NULL.
 */
int iwcm_destroy_qp(struct iwcm_qp *qp);

/**
 * iwcm_qp_disconnect() - Close a queue pair gracefully.
 * @qp: the queue pair.
 *
 * The QP moves to IWCM_QPS_CLOSING: new send work requests fail with
 * ENOTCONN, the ones posted are sent and their RDMA Reads and atomics
 * answered, responses owed to the peer go out, then the socket's sending
 * side is shut down (FIN: the LLP Graceful Termination of RFC 5040 §6.2
 * and RFC 5044 §7.2).  Receiving goes on until the peer closes too; the
 * QP then moves to IWCM_QPS_ERROR, flushes what is left and reports
 * IWCM_EVENT_QP_PEER_CLOSED.
 *
 * The close is bounded: when it has not completed within the QP's
 * disconnect timeout (3 seconds unless set at creation), counted from
 * this call and kept by the progress engine (the progress thread, or
 * iwcm_progress() with IWCM_CTX_MANUAL_PROGRESS), the QP moves to
 * IWCM_QPS_ERROR, every outstanding work request completes with
 * IWCM_WC_WR_FLUSH_ERR, the socket is closed abortively (a TCP reset,
 * RFC 5040 §6.2 LLP Abortive Termination, as Chelsio's iw_cxgb4 does
 * when its endpoint timer expires in CLOSING) and IWCM_EVENT_QP_FATAL
 * reports Layer LLP, Error Type MPA, Error Code 1 (RFC 5044 §8).  A
 * peer that never reads or never closes cannot keep the QP in
 * IWCM_QPS_CLOSING.
 *
 * Context: Thread-safe.
 * Return: 0 (also when already closing or in error), or -1 with errno
 * EINVAL if @qp is NULL.
 */
int iwcm_qp_disconnect(struct iwcm_qp *qp);

/**
 * iwcm_query_qp() - What a queue pair's connection supports.
 * @qp: the queue pair.
 * @attr: where to store the attributes; the caller sets its comp_mask
 *	first, to an OR of enum iwcm_qp_attr_mask (IWCM_QP_ATTR_ALL for
 *	every field), 0 for the fields up to max_inline_data only.
 *
 * IRD and ORD are those of the handoff; atomics and Immediate Data are
 * on for RDMAP version 1; mulpdu follows the TCP maximum segment size;
 * max_sge_rd is 1 (RFC 5040 §4.4: a Read Request names one Data Sink);
 * disconnect_timeout_ms is the bound of iwcm_qp_disconnect().  The
 * fields up to max_inline_data are always written, the optional ones
 * only when asked for; comp_mask keeps the bits of those written, and
 * fields not asked for are left untouched.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EINVAL (@qp or @attr NULL, or comp_mask
 * has a bit this version of the library does not know).
 */
int iwcm_query_qp(const struct iwcm_qp *qp, struct iwcm_qp_attr *attr);

/**
 * enum iwcm_term_flags - The terminated message's headers a Terminate
 *	carried (RFC 5040 §4.8: its Hdr Ctrl bits).
 * @IWCM_TERM_TAGGED: the DDP header of a tagged segment (stag, to).
 * @IWCM_TERM_UNTAGGED: the DDP header of an untagged segment (qn, msn,
 *	mo).
 */
enum iwcm_term_flags {
	IWCM_TERM_TAGGED = 1 << 0,
	IWCM_TERM_UNTAGGED = 1 << 1,
};

/**
 * struct iwcm_term_info - The Terminate a queue pair's peer sent.
 * @layer: Terminate Layer (RFC 5040 §4.8).
 * @etype: Terminate Error Type.
 * @ecode: Terminate Error Code.
 * @flags: an OR of enum iwcm_term_flags: which fields below hold the
 *	header of the message the peer refused.
 * @stag: IWCM_TERM_TAGGED: that segment's STag (RFC 5041 §4.2).
 * @to: IWCM_TERM_TAGGED: its Tagged Offset.
 * @qn: IWCM_TERM_UNTAGGED: that segment's Queue Number (RFC 5041 §4.3).
 * @msn: IWCM_TERM_UNTAGGED: its Message Sequence Number.
 * @mo: IWCM_TERM_UNTAGGED: its Message Offset.
 */
struct iwcm_term_info {
	uint8_t layer;
	uint8_t etype;
	uint8_t ecode;
	uint32_t flags;
	uint32_t stag;
	uint64_t to;
	uint32_t qn;
	uint32_t msn;
	uint32_t mo;
};

/**
 * iwcm_qp_peer_term() - The Terminate that ended a queue pair.
 * @qp: the queue pair.
 * @ti: where to store it.
 *
 * Once the peer's Terminate moved @qp to error (IWCM_EVENT_QP_TERMINATE),
 * what it said and which message it refused: for an RDMA Write refused
 * at the Data Sink, the STag and Tagged Offset of the refused segment,
 * which tell the Write that failed from those placed before it (over
 * MPA/TCP the peer takes segments in order and stops at the first it
 * refuses).  The completion of the request the Terminate is charged to
 * carries only its layer, type and code (vendor_err).
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EINVAL (@qp or @ti NULL) or ENOENT (no
 * Terminate of the peer ended @qp).
 */
int iwcm_qp_peer_term(struct iwcm_qp *qp, struct iwcm_term_info *ti);

/**
 * iwcm_qp_get_context() - The context pointer of a queue pair.
 * @qp: the queue pair.
 *
 * Context: Thread-safe.
 * Return: The qp_context given at creation, NULL if @qp is NULL.
 */
void *iwcm_qp_get_context(const struct iwcm_qp *qp);

/**
 * iwcm_qp_send_room() - Free entries of a queue pair's send queue.
 * @qp: the queue pair.
 *
 * A send work request takes an entry from iwcm_post_send() until it has
 * completed, signaled or not, whether or not its completion has been
 * read from the CQ.  The count only grows between calls unless something
 * posts in between: a caller that serializes its own posts can post that
 * many requests as one list and know that all or none of it is posted
 * (a libfabric provider splitting one operation into several requests,
 * as fi_iwcm(7) does for a Read into several buffers).
 *
 * Context: Thread-safe.
 * Return: the free entries (0 to max_send_wr), or -1 with errno EINVAL
 * (@qp NULL).
 */
int iwcm_qp_send_room(struct iwcm_qp *qp);

/**
 * iwcm_post_send() - Post send work requests.
 * @qp: the queue pair.
 * @wr: a list of send work requests (next-linked).
 * @bad_wr: where to store the first request not posted, or NULL.
 *
 * Requests are carried out in order (RFC 5040 §5.5 rule 13).  An RDMA
 * Read or atomic waits while ORD requests are outstanding, and every
 * request behind it waits too; IWCM_SEND_FENCE waits for every earlier
 * Read and atomic to complete.  A Send or Write completes once all of it
 * is written to the socket, a Read or atomic when its response has been
 * placed.  Scatter/gather entries are checked when they are sent (lkey
 * valid, same protection domain, in bounds; LOCAL_WRITE for Read and
 * atomic results): a failure completes the request with
 * IWCM_WC_LOC_PROT_ERR, sends a Terminate and moves the QP to error.
 * Payload is sent from the registered memory without a copy, so it must
 * stay untouched until completion, unless IWCM_SEND_INLINE copied it.
 * Posting to a QP in error completes each request at once with
 * IWCM_WC_WR_FLUSH_ERR.
 *
 * The requests before the first bad one are posted; *@bad_wr is set to
 * that one and nothing from it on is posted, as ibv_post_send().
 *
 * Context: Thread-safe, also concurrently with the progress engine.
 * Return: 0, or the error number (errno is left alone), as
 * ibv_post_send(): EINVAL (@qp NULL; bad opcode, flags, comp_mask or SGE
 * count; a Read with more SGEs than max_sge_rd, which is 1 because a
 * Read Request names a single Data Sink STag and Tagged Offset (RFC 5040
 * §4.4), the same limit as Linux siw; an atomic without exactly one
 * 8-octet SGE or with an unaligned remote address; a Read or atomic when
 * ORD is 0; INLINE above max_inline_data), EOPNOTSUPP (atomics or
 * Immediate Data on a connection without them), ENOMEM (send queue
 * full), ENOTCONN (after iwcm_qp_disconnect()).
 */
int iwcm_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr,
		   struct iwcm_send_wr **bad_wr);

/**
 * iwcm_post_recv() - Post receive buffers.
 * @qp: a queue pair without a shared receive queue.
 * @wr: a list of receive work requests (next-linked).
 * @bad_wr: where to store the first request not posted, or NULL.
 *
 * Each Send, Send with Invalidate or Immediate Data message takes the
 * oldest buffer (RFC 5040 §5.3); a message that finds none, or does not
 * fit, is a Terminate (RFC 5041 §7.2).  Posting to a QP in error
 * completes each request at once with IWCM_WC_WR_FLUSH_ERR.  The
 * requests before the first bad one are posted; *@bad_wr is set to that
 * one and nothing from it on is posted.
 *
 * Context: Thread-safe, also concurrently with the progress engine.
 * Return: 0, or the error number (errno is left alone), as
 * ibv_post_recv(): EINVAL (@qp NULL or with a shared receive queue; too
 * many SGEs, 4 GiB or more, an unknown comp_mask bit), ENOMEM (receive
 * queue full).
 */
int iwcm_post_recv(struct iwcm_qp *qp, struct iwcm_recv_wr *wr,
		   struct iwcm_recv_wr **bad_wr);

/* ---- asynchronous events and manual progress ---- */

/**
 * iwcm_ctx_get_async_fd() - The asynchronous event descriptor.
 * @ctx: the context.
 *
 * Readable exactly while asynchronous events wait for
 * iwcm_get_async_event().  Poll it; never read, write or close it.
 *
 * Context: Thread-safe.
 * Return: The descriptor, or -1 with errno EINVAL or ENOMEM.
 */
int iwcm_ctx_get_async_fd(const struct iwcm_ctx *ctx);

/**
 * iwcm_get_async_event_sz() - Take the next asynchronous event, sized.
 * @ctx: the context.
 * @event: where to store the event.
 * @event_size: sizeof(struct iwcm_async_event) as the caller was
 *	compiled: at least offsetof(struct iwcm_async_event, term_ecode) +
 *	1.
 *
 * What iwcm_get_async_event() calls.  Only the first @event_size octets
 * of @event are written, and a comp_mask bit is set only for a field
 * inside them, so a binary built with an older, shorter struct
 * iwcm_async_event keeps working when fields are added.  Octets beyond
 * the structure this library knows are zeroed.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EAGAIN (non-blocking, no event) or EINVAL
 * (@ctx or @event NULL, @event_size too small).
 */
int iwcm_get_async_event_sz(struct iwcm_ctx *ctx,
			    struct iwcm_async_event *event, size_t event_size);

/**
 * iwcm_get_async_event() - Take the next asynchronous event.
 * @ctx: the context.
 * @event: where to store the event (a copy: nothing to acknowledge).
 *
 * Each QP that moves to error reports exactly one event:
 * IWCM_EVENT_QP_TERMINATE when the peer's Terminate did it (its layer,
 * type and code in the event), IWCM_EVENT_QP_PEER_CLOSED when the peer
 * closed or reset the connection, IWCM_EVENT_QP_FATAL for an error found
 * here (with the Terminate sent, if any) or a close of
 * iwcm_qp_disconnect() that timed out.  A completion queue that
 * overflows reports IWCM_EVENT_CQ_ERR.  Waits for an event unless @ctx
 * is IWCM_CTX_NONBLOCK; with IWCM_CTX_MANUAL_PROGRESS a waiting call
 * drives the progress engine itself.
 *
 * An inline function: it calls iwcm_get_async_event_sz() with
 * sizeof(*@event), so struct iwcm_async_event can grow without breaking
 * binaries.
 *
 * Context: Thread-safe.
 * Return: 0, or -1 with errno EAGAIN (non-blocking, no event) or EINVAL.
 */
static inline int iwcm_get_async_event(struct iwcm_ctx *ctx,
				       struct iwcm_async_event *event)
{
	return iwcm_get_async_event_sz(ctx, event, sizeof(*event));
}

/**
 * iwcm_progress() - Drive the progress engine of a context.
 * @ctx: a context opened with IWCM_CTX_MANUAL_PROGRESS.
 * @timeout_ms: 0 to handle what is ready and return, a positive number
 *	of milliseconds to wait at most for something to happen, -1 to wait
 *	until something does.
 *
 * Reads and places what arrived on every QP of @ctx, answers RDMA Reads
 * and atomics, sends what is queued, runs the disconnect timeouts that
 * expired and generates the completions and events; a wait ends early
 * when a disconnect timeout expires.  Posting already sends what the
 * socket accepts at once.  Without IWCM_CTX_MANUAL_PROGRESS the
 * context's own thread does this.  A busy-polling caller is served best
 * with @timeout_ms 0: with at most four QPs in @ctx such a call reads
 * their sockets directly, one read(2) per arrived message, and consults
 * epoll only on one call in sixteen, or on every call while a QP waits
 * to write or is closing.
 *
 * Context: Thread-safe: a call made while another thread is inside
 * iwcm_progress() for the same context waits for it and returns 0.
 * Return: The number of socket events and expired disconnect timeouts
 * handled (0 when none), or -1 with errno EINVAL (@ctx NULL or not in
 * manual progress mode) or ENOMEM.
 */
int iwcm_progress(struct iwcm_ctx *ctx, int timeout_ms);

/**
 * iwcm_qp_progress() - Move the data of one QP in the calling thread.
 * @qp: the QP.
 * @timeout_ms: 0 to handle what is ready, a positive number of
 *	milliseconds to wait at most for its socket when nothing was, -1
 *	without a limit.
 *
 * Reads what arrived, writes what waits, as iwcm_poll_cq() does for the
 * QPs of its CQ; a caller waiting for the peer's RDMA Write into its
 * memory (a flag, a credit) polls with it instead of sleeping.
 *
 * Context: Thread-safe; when another thread moves this QP's data at the
 * time the call returns 0 at once.
 * Return: The work done (0 when none), or -1 with errno EINVAL.
 */
int iwcm_qp_progress(struct iwcm_qp *qp, int timeout_ms);

/**
 * iwcm_wc_status_str() - Describe a completion status.
 * @status: an enum iwcm_wc_status.
 *
 * Context: Thread-safe.
 * Return: A static string, as ibv_wc_status_str() words it; "unknown"
 * for an unknown @status.
 */
const char *iwcm_wc_status_str(enum iwcm_wc_status status);

#ifdef __cplusplus
}
#endif

#endif
