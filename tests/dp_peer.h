/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_DP_PEER_H
#define IWCM_TESTS_DP_PEER_H

/*
 * Helpers of the datapath protocol tests (check_dp_*).
 *
 * Library endpoints: a detached libiwcm context, a connection made with
 * iwcm_conn_synth() from a handoff state the test chooses (libclient/
 * synth.h), and the verbs objects around its QP; two of them back to
 * back over a socketpair or a loopback TCP pair with mirrored state.
 *
 * The raw FPDU peer: the other end of such a pair written with wire/
 * only.  It frames any ULPDU with the markers, CRC and stream offset it
 * is given (or deliberately wrong ones), builds any RDMAP message, also
 * ones rdmap_hdr_build() refuses, and decodes what the library sends with
 * mpa_rx_step() and rdmap_msg_parse().
 *
 * Waiting never blocks without a bound, and every wait drives the
 * contexts created with IWCM_CTX_MANUAL_PROGRESS through iwcm_progress(),
 * so the same test runs in both progress modes.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <iwcm/iwcm.h>
#include "synth.h"
#include <iwcm/verbs.h>

#include "mpa.h"
#include "rdmap.h"

#define DP_TIMEOUT_MS 5000

/* ---- waiting ---- */

/* Milliseconds of a monotonic clock. */
long long dp_ms(void);
/* Drive every manual-progress context once (no wait), then the hook. */
void dp_pump(void);
/* Called by dp_pump() when set (a test's own transport). */
extern void (*dp_pump_hook)(void);
/* Sleep about ms while driving the manual-progress contexts. */
void dp_idle(int ms);

/* ---- library endpoints ---- */

/*
 * Handoff state of a back-to-back pair, as the direction a->b and b->a.
 * a is the initiator (it uses next_msn[] toward b, b expects it).
 */
struct dp_cfg {
	int version; /* DDP and RDMAP version, 0 or 1 */
	int mpa_rev; /* 0, 1 or 2 */
	int crc;
	int markers_ab;	 /* markers in what a sends */
	int markers_ba;	 /* markers in what b sends */
	uint64_t off_ab; /* stream offset of the direction a->b */
	uint64_t off_ba;
	uint32_t ird_a, ord_a, ird_b, ord_b;
	uint32_t next_msn[4]; /* a->b; 0 means 1 */
	int atomics, imm_data;
	int tcp; /* loopback TCP instead of a socketpair */
	/* DDP over SCTP's framing on a SEQPACKET pair (the daemon's relay
	 * format), segments up to sctp_maxseg octets */
	int sctp;
	uint32_t sctp_maxseg;
	unsigned int flags_a, flags_b; /* iwcm_ctx_new_detached() */
	uint32_t max_inline;
	uint32_t max_send_wr, max_recv_wr;
	int srq_b; /* b's QP receives through b's SRQ */
};

/* A default configuration: version 1, MPA rev 2, CRC, no markers. */
void dp_cfg_default(struct dp_cfg *c);

struct dp_ep {
	struct iwcm_ctx *ctx;
	bool manual;
	struct iwcm_conn *conn;
	struct iwcm_pd *pd;
	struct iwcm_comp_channel *ch;
	struct iwcm_cq *scq, *rcq;
	struct iwcm_srq *srq;
	struct iwcm_qp *qp;
};

/* PD, completion channel and CQs (rcq on the channel) in ctx. */
void dp_ep_init(struct dp_ep *e, struct iwcm_ctx *ctx, bool manual);
/* A detached context (iwcm_ctx_new_detached(flags)) and its objects. */
void dp_ep_open(struct dp_ep *e, unsigned int flags);
/* An SRQ of e (in e->srq). */
void dp_ep_srq(struct dp_ep *e, uint32_t max_wr);
/* A QP of e on its ESTABLISHED connection e->conn (c may be NULL). */
struct iwcm_qp *dp_ep_conn_qp(struct dp_ep *e, const struct dp_cfg *c);
/* A QP of e over fd (consumed) from the handoff state st. */
struct iwcm_qp *dp_ep_qp(struct dp_ep *e, int fd, const struct iwcm_synth *st,
			 const struct dp_cfg *c);
/* Destroy e's QP (if any), connection and objects, then its context. */
void dp_ep_close(struct dp_ep *e);

/* A connected pair of sockets, TCP over the loopback or AF_UNIX. */
void dp_sockpair(int tcp, int fd[2]);
/* The handoff states of both ends of c. */
void dp_cfg_synth(const struct dp_cfg *c, struct iwcm_synth *a,
		  struct iwcm_synth *b);
/* Two endpoints back to back, each with its QP. */
void dp_pair_open(const struct dp_cfg *c, struct dp_ep *a, struct dp_ep *b);

/* Register buf in e's PD; fails the test on error. */
struct iwcm_mr *dp_reg(struct dp_ep *e, void *buf, size_t len,
		       unsigned int access);
/* Post one send WR, failing the test on error. */
void dp_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr);
/* Post one receive of len octets at buf (lkey of mr). */
void dp_post_recv(struct iwcm_qp *qp, uint64_t wr_id, struct iwcm_mr *mr,
		  void *buf, uint32_t len);
/* Post one SRQ receive of len octets at buf. */
void dp_post_srq_recv(struct iwcm_srq *srq, uint64_t wr_id, struct iwcm_mr *mr,
		      void *buf, uint32_t len);
/* A send WR for op with one SGE; signaled. */
void dp_wr(struct iwcm_send_wr *wr, struct iwcm_sge *sge, int opcode,
	   uint64_t wr_id, struct iwcm_mr *mr, void *buf, uint32_t len);

/* Poll one completion within ms; 1, or 0 on timeout. */
int dp_poll(struct iwcm_cq *cq, struct iwcm_wc *wc, int ms);
/* One completion (fails the test after DP_TIMEOUT_MS). */
void dp_wc(struct iwcm_cq *cq, struct iwcm_wc *wc);
/* One successful completion of wr_id and opcode; returns byte_len. */
uint32_t dp_wc_ok(struct iwcm_cq *cq, uint64_t wr_id, int opcode);
/* No completion arrives within ms. */
void dp_no_wc(struct iwcm_cq *cq, int ms);
/* Wait for an async event of ctx within ms; 1, or 0 on timeout. */
int dp_async(struct iwcm_ctx *ctx, struct iwcm_async_event *ev, int ms);
/* The QP's state (iwcm_query_qp). */
int dp_qp_state(struct iwcm_qp *qp);

/*
 * Memory with PROT_NONE guard pages on both sides and canary octets
 * between the guards and the part a test registers: a write outside the
 * region faults (the forked test fails) or changes a canary.
 */
struct dp_buf {
	uint8_t *map;
	size_t map_len;
	uint8_t *p; /* the usable region */
	size_t len;
	size_t canary; /* canary octets on each side of p */
};

/* len usable octets (filled with fill) with canary octets around. */
void dp_buf_new(struct dp_buf *b, size_t len, size_t canary, uint8_t fill);
/* The canaries are intact. */
bool dp_buf_canaries_ok(const struct dp_buf *b);
void dp_buf_free(struct dp_buf *b);

/* ---- the raw FPDU peer ---- */

/* One FPDU the peer received and its RDMAP decoding. */
struct dp_msg {
	uint8_t ulpdu[MPA_ULPDU_MAX + 1];
	size_t len;
	uint32_t fpdu_off;
	bool crc_ok;
	bool markers_ok;
	enum wire_err perr; /* rdmap_msg_parse() */
	struct rdmap_msg m; /* valid when perr == WIRE_OK */
};

struct dp_peer {
	int fd;
	uint8_t dv, rv; /* versions the peer sends */
	struct mpa_dir tx;
	struct mpa_rx rx;
	uint32_t msn[4];    /* next MSN the peer sends, per QN */
	uint32_t rx_msn[4]; /* next MSN expected from the library */
	uint8_t in[256 * 1024];
	size_t in_pos, in_len;
	uint8_t out[MPA_ULPDU_MAX + 8 * MPA_FPDU_MAX_MARKERS];
	bool eof;
	bool term_only; /* dp_peer_recv_term(): nothing before it */
	struct dp_msg msg;
};

/*
 * A peer on fd facing a library connection made from st (the library's
 * handoff state): markers and offsets crosswise, MSNs by st->initiator.
 * fd is made non-blocking.
 */
void dp_peer_init(struct dp_peer *p, int fd, const struct iwcm_synth *st);
void dp_peer_close(struct dp_peer *p);

/* Write all of buf to the socket (driving manual progress meanwhile). */
void dp_peer_write(struct dp_peer *p, const void *buf, size_t len);
/* Frame ulpdu on p->tx (advanced) into out; returns the wire length. */
size_t dp_peer_fpdu(struct dp_peer *p, const uint8_t *ulpdu, size_t len,
		    uint8_t *out, size_t cap);
/* Frame and send one ULPDU. */
void dp_peer_send_ulpdu(struct dp_peer *p, const uint8_t *ulpdu, size_t len);

/*
 * Headers of m (rdmap_hdr_build) followed by payload into out; returns
 * the ULPDU length.  DV/RV come from the peer unless m->rv/m->ddp.dv
 * are set by the caller with force (dp_raw_* bypass the checks).
 */
size_t dp_msg_build(const struct rdmap_msg *m, const void *payload, size_t plen,
		    uint8_t *out, size_t cap);
/*
 * A ULPDU with any header fields, also ones rdmap_hdr_build() refuses:
 * the DDP header h (rsvd_ulp8 is the RDMAP control octet as given), then
 * hdr (an opcode header, may be NULL) and payload.
 */
size_t dp_raw_build(const struct ddp_hdr *h, const void *hdr, size_t hlen,
		    const void *payload, size_t plen, uint8_t *out, size_t cap);

/* An untagged message of the peer on qn with its next MSN. */
void dp_peer_untagged(struct dp_peer *p, struct rdmap_msg *m, uint8_t op,
		      uint32_t qn);
/* A tagged message of the peer. */
void dp_peer_tagged(struct dp_peer *p, struct rdmap_msg *m, uint8_t op,
		    uint32_t stag, uint64_t to);

/*
 * Send a whole untagged message (one segment, MSN next; for Immediate
 * Data, data is the 8-octet header); the ULPDU is copied to seg (if
 * non-NULL, cap 65536) for a later Terminate check.
 */
size_t dp_peer_send(struct dp_peer *p, uint8_t op, uint32_t inv_stag,
		    const void *data, size_t len, uint8_t *seg);
/* One RDMA Write segment (L set); ULPDU to seg as above. */
size_t dp_peer_write_seg(struct dp_peer *p, uint32_t stag, uint64_t to,
			 const void *data, size_t len, uint8_t *seg);
/* A Read Request with the peer's next QN 1 MSN. */
size_t dp_peer_read_req(struct dp_peer *p, const struct rdmap_read_req *r,
			uint8_t *seg);
/* An Atomic Request with the peer's next QN 1 MSN. */
size_t dp_peer_atomic_req(struct dp_peer *p, const struct rdmap_atomic_req *r,
			  uint8_t *seg);
/* Answer a Read Request of the library with data (segments of seg_max). */
void dp_peer_read_resp(struct dp_peer *p, const struct rdmap_read_req *r,
		       const void *data, size_t seg_max);
/* An Atomic Response to req_id with the original value orig. */
void dp_peer_atomic_resp(struct dp_peer *p, uint32_t req_id, uint64_t orig);
/* A Terminate of the peer about seg (NULL: no headers copied). */
void dp_peer_term(struct dp_peer *p, uint8_t layer, uint8_t etype,
		  uint8_t ecode, const uint8_t *seg, size_t seg_len);

/*
 * Receive one FPDU within ms: NULL with errno ETIMEDOUT, or ECONNRESET
 * once the library closed the connection (p->eof).
 */
struct dp_msg *dp_peer_recv(struct dp_peer *p, int ms);
/* One FPDU with a good CRC and markers that parses; fails otherwise. */
struct dp_msg *dp_peer_expect(struct dp_peer *p, uint8_t opcode);
/* No octet arrives within ms. */
void dp_peer_silent(struct dp_peer *p, int ms);
/* The library closed its end within ms (after any further FPDUs). */
bool dp_peer_wait_eof(struct dp_peer *p, int ms);

/*
 * Receive FPDUs until the library's Terminate (skipping other messages)
 * and check its DDP fields: untagged QN 2, L, MO 0, the next QN 2 MSN,
 * the peer's version.  With p->term_only, any other message first fails.
 */
struct dp_msg *dp_peer_recv_term(struct dp_peer *p);
/*
 * Check a Terminate: layer/etype/ecode as given, HdrCt and the copied
 * headers as rdmap_term_fill() computes them from the offending segment
 * seg (seg_len octets; NULL for none).
 */
void dp_check_term(const struct dp_msg *msg, uint8_t layer, uint8_t etype,
		   uint8_t ecode, const uint8_t *seg, size_t seg_len);
/* Both of the above; returns the Terminate. */
struct dp_msg *dp_peer_expect_term(struct dp_peer *p, uint8_t layer,
				   uint8_t etype, uint8_t ecode,
				   const uint8_t *seg, size_t seg_len);

#endif
