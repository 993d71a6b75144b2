/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Library endpoints from synthesized handoff state and the raw FPDU peer
 * of the datapath protocol tests (see dp_peer.h).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

#include "dp_peer.h"

#define DP_CANARY 0xA5

/* ---- waiting ---- */

#define DP_MAX_MANUAL 8
static struct iwcm_ctx *dp_manual[DP_MAX_MANUAL];

/* Milliseconds of a monotonic clock. */
long long dp_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Drive every manual-progress context once (no wait). */
void (*dp_pump_hook)(void);

void dp_pump(void)
{
	int i;

	for (i = 0; i < DP_MAX_MANUAL; i++)
		if (dp_manual[i])
			ck_assert_int_ge(iwcm_progress(dp_manual[i], 0), 0);
	if (dp_pump_hook)
		dp_pump_hook();
}

static void dp_nap(void)
{
	struct timespec ts = { 0, 200 * 1000 };

	dp_pump();
	nanosleep(&ts, NULL);
}

/* Sleep about ms while driving the manual-progress contexts. */
void dp_idle(int ms)
{
	long long end = dp_ms() + ms;

	while (dp_ms() < end)
		dp_nap();
}

/* ---- library endpoints ---- */

/* A default configuration: version 1, MPA rev 2, CRC, no markers. */
void dp_cfg_default(struct dp_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->version = 1;
	c->mpa_rev = 2;
	c->crc = 1;
	c->ird_a = c->ord_a = c->ird_b = c->ord_b = 8;
	c->atomics = 1;
	c->imm_data = 1;
}

/* PD, completion channel and CQs (rcq on the channel) in ctx. */
void dp_ep_init(struct dp_ep *e, struct iwcm_ctx *ctx, bool manual)
{
	int i;

	memset(e, 0, sizeof(*e));
	e->ctx = ctx;
	e->manual = manual;
	if (e->manual) {
		for (i = 0; i < DP_MAX_MANUAL && dp_manual[i]; i++)
			;
		ck_assert_int_lt(i, DP_MAX_MANUAL);
		dp_manual[i] = e->ctx;
	}
	e->pd = iwcm_alloc_pd(e->ctx);
	ck_assert_msg(e->pd, "iwcm_alloc_pd: %s", strerror(errno));
	e->ch = iwcm_create_comp_channel(e->ctx);
	ck_assert_msg(e->ch, "iwcm_create_comp_channel: %s", strerror(errno));
	e->scq = iwcm_create_cq(e->ctx, 256, e, NULL);
	ck_assert_msg(e->scq, "iwcm_create_cq: %s", strerror(errno));
	e->rcq = iwcm_create_cq(e->ctx, 256, e, e->ch);
	ck_assert_msg(e->rcq, "iwcm_create_cq: %s", strerror(errno));
}

/* A detached context and its objects (dp_ep_init()). */
void dp_ep_open(struct dp_ep *e, unsigned int flags)
{
	struct iwcm_ctx *ctx = iwcm_ctx_new_detached(flags);

	ck_assert_msg(ctx, "iwcm_ctx_new_detached: %s", strerror(errno));
	dp_ep_init(e, ctx, flags & IWCM_CTX_MANUAL_PROGRESS);
}

/* An SRQ of e (in e->srq). */
void dp_ep_srq(struct dp_ep *e, uint32_t max_wr)
{
	struct iwcm_srq_init_attr a = { .max_wr = max_wr, .max_sge = 4 };

	e->srq = iwcm_create_srq(e->pd, &a);
	ck_assert_msg(e->srq, "iwcm_create_srq: %s", strerror(errno));
}

/* A QP of e on its ESTABLISHED connection e->conn. */
struct iwcm_qp *dp_ep_conn_qp(struct dp_ep *e, const struct dp_cfg *c)
{
	struct iwcm_qp_init_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.send_cq = e->scq;
	attr.recv_cq = e->rcq;
	attr.srq = e->srq;
	attr.max_send_wr = c && c->max_send_wr ? c->max_send_wr : 64;
	attr.max_recv_wr = c && c->max_recv_wr ? c->max_recv_wr : 64;
	attr.max_send_sge = 4;
	attr.max_recv_sge = 4;
	attr.max_inline_data = c && c->max_inline ? c->max_inline : 64;
	attr.qp_context = e;
	e->qp = iwcm_create_qp(e->conn, e->pd, &attr);
	ck_assert_msg(e->qp, "iwcm_create_qp: %s", strerror(errno));
	return e->qp;
}

/* A QP of e over fd (consumed) from the handoff state st. */
struct iwcm_qp *dp_ep_qp(struct dp_ep *e, int fd, const struct iwcm_synth *st,
			 const struct dp_cfg *c)
{
	e->conn = iwcm_conn_synth(e->ctx, fd, st);
	ck_assert_msg(e->conn, "iwcm_conn_synth: %s", strerror(errno));
	return dp_ep_conn_qp(e, c);
}

/* Destroy e's QP (if any), connection and objects, then its context. */
void dp_ep_close(struct dp_ep *e)
{
	int i;

	if (e->qp)
		ck_assert_int_eq(iwcm_destroy_qp(e->qp), 0);
	if (e->conn)
		iwcm_conn_free(e->conn);
	if (e->srq)
		ck_assert_int_eq(iwcm_destroy_srq(e->srq), 0);
	ck_assert_int_eq(iwcm_destroy_cq(e->scq), 0);
	ck_assert_int_eq(iwcm_destroy_cq(e->rcq), 0);
	ck_assert_int_eq(iwcm_destroy_comp_channel(e->ch), 0);
	ck_assert_int_eq(iwcm_dealloc_pd(e->pd), 0);
	for (i = 0; i < DP_MAX_MANUAL; i++)
		if (dp_manual[i] == e->ctx)
			dp_manual[i] = NULL;
	iwcm_ctx_close(e->ctx);
	memset(e, 0, sizeof(*e));
}

/* A connected pair of sockets, TCP over the loopback or AF_UNIX. */
void dp_sockpair(int tcp, int fd[2])
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int lfd;

	if (!tcp) {
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC,
					    0, fd),
				 0);
		return;
	}
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(lfd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(lfd, 1), 0);
	ck_assert_int_eq(getsockname(lfd, (struct sockaddr *)&sin, &len), 0);
	fd[1] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	ck_assert_int_ge(fd[1], 0);
	ck_assert_int_eq(connect(fd[1], (struct sockaddr *)&sin, sizeof(sin)),
			 0);
	fd[0] = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ck_assert_int_ge(fd[0], 0);
	close(lfd);
}

/* The handoff states of both ends of c. */
void dp_cfg_synth(const struct dp_cfg *c, struct iwcm_synth *a,
		  struct iwcm_synth *b)
{
	int i;

	memset(a, 0, sizeof(*a));
	a->initiator = 1;
	a->mpa_rev = c->mpa_rev;
	a->version = c->version;
	a->crc = c->crc;
	a->atomics = c->atomics;
	a->imm_data = c->imm_data;
	for (i = 0; i < 4; i++)
		a->next_msn[i] = c->next_msn[i] ? c->next_msn[i] : 1;
	*b = *a;
	b->initiator = 0;
	/* RFC 5044 §4.3: markers per direction, at the handed offsets. */
	a->markers_tx = b->markers_rx = c->markers_ab;
	a->markers_rx = b->markers_tx = c->markers_ba;
	a->tx_offset = b->rx_offset = c->off_ab;
	a->rx_offset = b->tx_offset = c->off_ba;
	a->ird = c->ird_a;
	a->ord = c->ord_a;
	a->sctp = b->sctp = c->sctp;
	a->sctp_stream = b->sctp_stream = 5;
	a->sctp_max_segment = b->sctp_max_segment = c->sctp_maxseg;
	b->ird = c->ird_b;
	b->ord = c->ord_b;
}

/* Two endpoints back to back, each with its QP. */
void dp_pair_open(const struct dp_cfg *c, struct dp_ep *a, struct dp_ep *b)
{
	struct iwcm_synth sa, sb;
	int fd[2];

	dp_cfg_synth(c, &sa, &sb);
	if (c->sctp)
		ck_assert_int_eq(socketpair(AF_UNIX,
					    SOCK_SEQPACKET | SOCK_CLOEXEC, 0,
					    fd),
				 0);
	else
		dp_sockpair(c->tcp, fd);
	dp_ep_open(a, c->flags_a);
	dp_ep_open(b, c->flags_b);
	if (c->srq_b)
		dp_ep_srq(b, 64);
	dp_ep_qp(a, fd[0], &sa, c);
	dp_ep_qp(b, fd[1], &sb, c);
}

/* Register buf in e's PD; fails the test on error. */
struct iwcm_mr *dp_reg(struct dp_ep *e, void *buf, size_t len,
		       unsigned int access)
{
	struct iwcm_mr *mr = iwcm_reg_mr(e->pd, buf, len, access);

	ck_assert_msg(mr, "iwcm_reg_mr: %s", strerror(errno));
	return mr;
}

/* Post one send WR, failing the test on error. */
void dp_post_send(struct iwcm_qp *qp, struct iwcm_send_wr *wr)
{
	struct iwcm_send_wr *bad = NULL;
	int e = iwcm_post_send(qp, wr, &bad);

	ck_assert_msg(e == 0, "iwcm_post_send(opcode %d): %s", wr->opcode,
		      strerror(e));
}

/* Post one receive of len octets at buf (lkey of mr). */
void dp_post_recv(struct iwcm_qp *qp, uint64_t wr_id, struct iwcm_mr *mr,
		  void *buf, uint32_t len)
{
	struct iwcm_sge sge = { (uintptr_t)buf, len, iwcm_mr_get_stag(mr) };
	struct iwcm_recv_wr wr = { wr_id, NULL, &sge, 1, 0 };
	struct iwcm_recv_wr *bad = NULL;
	int e = iwcm_post_recv(qp, &wr, &bad);

	ck_assert_msg(e == 0, "iwcm_post_recv: %s", strerror(e));
}

/* Post one SRQ receive of len octets at buf. */
void dp_post_srq_recv(struct iwcm_srq *srq, uint64_t wr_id, struct iwcm_mr *mr,
		      void *buf, uint32_t len)
{
	struct iwcm_sge sge = { (uintptr_t)buf, len, iwcm_mr_get_stag(mr) };
	struct iwcm_recv_wr wr = { wr_id, NULL, &sge, 1, 0 };
	struct iwcm_recv_wr *bad = NULL;
	int e = iwcm_post_srq_recv(srq, &wr, &bad);

	ck_assert_msg(e == 0, "iwcm_post_srq_recv: %s", strerror(e));
}

/* A send WR for op with one SGE; signaled. */
void dp_wr(struct iwcm_send_wr *wr, struct iwcm_sge *sge, int opcode,
	   uint64_t wr_id, struct iwcm_mr *mr, void *buf, uint32_t len)
{
	memset(wr, 0, sizeof(*wr));
	sge->addr = (uintptr_t)buf;
	sge->length = len;
	sge->lkey = mr ? iwcm_mr_get_stag(mr) : 0;
	wr->wr_id = wr_id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = opcode;
	wr->send_flags = IWCM_SEND_SIGNALED;
}

/* Poll one completion within ms; 1, or 0 on timeout. */
int dp_poll(struct iwcm_cq *cq, struct iwcm_wc *wc, int ms)
{
	long long end = dp_ms() + ms;

	for (;;) {
		int n = iwcm_poll_cq(cq, 1, wc);

		ck_assert_msg(n >= 0, "iwcm_poll_cq: %s", strerror(errno));
		if (n == 1)
			return 1;
		if (dp_ms() >= end)
			return 0;
		dp_nap();
	}
}

/* One completion (fails the test after DP_TIMEOUT_MS). */
void dp_wc(struct iwcm_cq *cq, struct iwcm_wc *wc)
{
	ck_assert_msg(dp_poll(cq, wc, DP_TIMEOUT_MS),
		      "no completion within %d ms", DP_TIMEOUT_MS);
}

/* One successful completion of wr_id and opcode; returns byte_len. */
uint32_t dp_wc_ok(struct iwcm_cq *cq, uint64_t wr_id, int opcode)
{
	struct iwcm_wc wc;

	dp_wc(cq, &wc);
	ck_assert_msg(wc.status == IWCM_WC_SUCCESS,
		      "wr_id %llu: status %d (%s), vendor_err 0x%x",
		      (unsigned long long)wc.wr_id, wc.status,
		      iwcm_wc_status_str(wc.status), wc.vendor_err);
	ck_assert_uint_eq(wc.wr_id, wr_id);
	ck_assert_int_eq(wc.opcode, opcode);
	return wc.byte_len;
}

/* No completion arrives within ms. */
void dp_no_wc(struct iwcm_cq *cq, int ms)
{
	struct iwcm_wc wc;

	ck_assert_msg(!dp_poll(cq, &wc, ms),
		      "unexpected completion: wr_id %llu status %d opcode %d",
		      (unsigned long long)wc.wr_id, wc.status, wc.opcode);
}

/* Wait for an async event of ctx within ms; 1, or 0 on timeout. */
int dp_async(struct iwcm_ctx *ctx, struct iwcm_async_event *ev, int ms)
{
	long long end = dp_ms() + ms;
	int fd = iwcm_ctx_get_async_fd(ctx);

	ck_assert_int_ge(fd, 0);
	for (;;) {
		struct pollfd p = { fd, POLLIN, 0 };

		dp_pump();
		if (poll(&p, 1, 1) == 1 && iwcm_get_async_event(ctx, ev) == 0)
			return 1;
		if (dp_ms() >= end)
			return 0;
	}
}

/* The QP's state (iwcm_query_qp). */
int dp_qp_state(struct iwcm_qp *qp)
{
	struct iwcm_qp_attr attr;

	memset(&attr, 0, sizeof(attr));
	ck_assert_int_eq(iwcm_query_qp(qp, &attr), 0);
	return attr.state;
}

/* len usable octets (filled with fill) with canary octets around. */
void dp_buf_new(struct dp_buf *b, size_t len, size_t canary, uint8_t fill)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t inner = (2 * canary + len + page - 1) / page * page;

	if (!inner)
		inner = page;
	b->map_len = inner + 2 * page;
	b->map = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(b->map != MAP_FAILED);
	ck_assert_int_eq(mprotect(b->map, page, PROT_NONE), 0);
	ck_assert_int_eq(mprotect(b->map + page + inner, page, PROT_NONE), 0);
	memset(b->map + page, DP_CANARY, inner);
	/* The region ends canary octets before the trailing guard page. */
	b->p = b->map + page + inner - canary - len;
	b->len = len;
	b->canary = canary;
	memset(b->p, fill, len);
}

/* The canaries are intact. */
bool dp_buf_canaries_ok(const struct dp_buf *b)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	const uint8_t *q;

	for (q = b->map + page; q < b->p; q++)
		if (*q != DP_CANARY)
			return false;
	for (q = b->p + b->len; q < b->map + b->map_len - page; q++)
		if (*q != DP_CANARY)
			return false;
	return true;
}

void dp_buf_free(struct dp_buf *b)
{
	munmap(b->map, b->map_len);
	memset(b, 0, sizeof(*b));
}

/* ---- the raw FPDU peer ---- */

/*
 * A peer on fd facing a library connection made from st (the library's
 * handoff state): markers and offsets crosswise, MSNs by st->initiator.
 */
void dp_peer_init(struct dp_peer *p, int fd, const struct iwcm_synth *st)
{
	int i;

	memset(p, 0, offsetof(struct dp_peer, in));
	p->in_pos = p->in_len = 0;
	p->eof = false;
	p->fd = fd;
	ck_assert_int_eq(fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK),
			 0);
	p->dv = p->rv = (uint8_t)st->version;
	p->tx.markers = st->markers_rx;
	p->tx.crc = st->crc;
	p->tx.off = (uint32_t)st->rx_offset;
	mpa_rx_init(&p->rx, st->markers_tx, st->crc, (uint32_t)st->tx_offset);
	/*
	 * daemon/handoff.c: next_msn[] is the direction the RTR used, what
	 * the initiator sends next and the responder expects; the other
	 * direction starts at 1 (RFC 5041 §5.3).
	 */
	for (i = 0; i < 4; i++) {
		uint32_t n = st->next_msn[i] ? st->next_msn[i] : 1;

		p->msn[i] = st->initiator ? 1 : n;
		p->rx_msn[i] = st->initiator ? n : 1;
	}
}

void dp_peer_close(struct dp_peer *p)
{
	if (p->fd >= 0)
		close(p->fd);
	p->fd = -1;
}

/* Write all of buf to the socket (driving manual progress meanwhile). */
void dp_peer_write(struct dp_peer *p, const void *buf, size_t len)
{
	const uint8_t *b = buf;
	long long end = dp_ms() + DP_TIMEOUT_MS;

	while (len) {
		ssize_t n = send(p->fd, b, len, MSG_NOSIGNAL);

		if (n > 0) {
			b += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EPIPE || errno == ECONNRESET))
			return; /* the library closed: hostile tests go on */
		ck_assert_msg(n < 0 && (errno == EAGAIN || errno == EINTR),
			      "send: %s", strerror(errno));
		ck_assert_msg(dp_ms() < end, "peer write stuck");
		dp_nap();
	}
}

/* Frame ulpdu on p->tx (advanced) into out; returns the wire length. */
size_t dp_peer_fpdu(struct dp_peer *p, const uint8_t *ulpdu, size_t len,
		    uint8_t *out, size_t cap)
{
	size_t n;

	ck_assert_uint_le(len, MPA_ULPDU_MAX);
	ck_assert_int_eq(mpa_fpdu_build(&p->tx, ulpdu, (uint16_t)len, out, cap,
					&n),
			 WIRE_OK);
	return n;
}

/* Frame and send one ULPDU. */
void dp_peer_send_ulpdu(struct dp_peer *p, const uint8_t *ulpdu, size_t len)
{
	size_t n = dp_peer_fpdu(p, ulpdu, len, p->out, sizeof(p->out));

	dp_peer_write(p, p->out, n);
}

/* Headers of m followed by payload into out; returns the ULPDU length. */
size_t dp_msg_build(const struct rdmap_msg *m, const void *payload, size_t plen,
		    uint8_t *out, size_t cap)
{
	size_t n;

	ck_assert_int_eq(rdmap_hdr_build(m, out, cap, &n), WIRE_OK);
	ck_assert_uint_le(n + plen, cap);
	if (plen)
		memcpy(out + n, payload, plen);
	return n + plen;
}

/* A ULPDU with any header fields, also ones rdmap_hdr_build() refuses. */
size_t dp_raw_build(const struct ddp_hdr *h, const void *hdr, size_t hlen,
		    const void *payload, size_t plen, uint8_t *out, size_t cap)
{
	size_t n;

	ck_assert_int_eq(ddp_hdr_build(h, out, cap, &n), WIRE_OK);
	ck_assert_uint_le(n + hlen + plen, cap);
	if (hlen)
		memcpy(out + n, hdr, hlen);
	if (plen)
		memcpy(out + n + hlen, payload, plen);
	return n + hlen + plen;
}

/* An untagged message of the peer on qn with its next MSN. */
void dp_peer_untagged(struct dp_peer *p, struct rdmap_msg *m, uint8_t op,
		      uint32_t qn)
{
	memset(m, 0, sizeof(*m));
	m->opcode = op;
	m->rv = p->rv;
	m->ddp.dv = p->dv;
	m->ddp.last = true;
	m->ddp.qn = qn;
	m->ddp.msn = p->msn[qn & 3]++;
}

/* A tagged message of the peer. */
void dp_peer_tagged(struct dp_peer *p, struct rdmap_msg *m, uint8_t op,
		    uint32_t stag, uint64_t to)
{
	memset(m, 0, sizeof(*m));
	m->opcode = op;
	m->rv = p->rv;
	m->ddp.dv = p->dv;
	m->ddp.last = true;
	m->ddp.tagged = true;
	m->ddp.stag = stag;
	m->ddp.to = to;
}

static size_t dp_peer_emit(struct dp_peer *p, const struct rdmap_msg *m,
			   const void *data, size_t len, uint8_t *seg)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];
	size_t n = dp_msg_build(m, data, len, u, MPA_ULPDU_MAX);

	if (seg)
		memcpy(seg, u, n);
	dp_peer_send_ulpdu(p, u, n);
	return n;
}

/* Send a whole untagged message (one segment, MSN next). */
size_t dp_peer_send(struct dp_peer *p, uint8_t op, uint32_t inv_stag,
		    const void *data, size_t len, uint8_t *seg)
{
	struct rdmap_msg m;

	dp_peer_untagged(p, &m, op, (uint32_t)rdmap_opcode_qn(op));
	m.inv_stag = inv_stag;
	if (op == RDMAP_IMM_DATA || op == RDMAP_IMM_DATA_SE) {
		/* RFC 7306 §6.2: the 8 octets are the opcode's header. */
		ck_assert_uint_eq(len, RDMAP_IMM_DATA_LEN);
		memcpy(m.u.imm, data, RDMAP_IMM_DATA_LEN);
		len = 0;
	}
	return dp_peer_emit(p, &m, data, len, seg);
}

/* One RDMA Write segment (L set). */
size_t dp_peer_write_seg(struct dp_peer *p, uint32_t stag, uint64_t to,
			 const void *data, size_t len, uint8_t *seg)
{
	struct rdmap_msg m;

	dp_peer_tagged(p, &m, RDMAP_WRITE, stag, to);
	return dp_peer_emit(p, &m, data, len, seg);
}

/* A Read Request with the peer's next QN 1 MSN. */
size_t dp_peer_read_req(struct dp_peer *p, const struct rdmap_read_req *r,
			uint8_t *seg)
{
	struct rdmap_msg m;

	dp_peer_untagged(p, &m, RDMAP_READ_REQ, DDP_QN_READ_REQ);
	m.u.read_req = *r;
	return dp_peer_emit(p, &m, NULL, 0, seg);
}

/* An Atomic Request with the peer's next QN 1 MSN. */
size_t dp_peer_atomic_req(struct dp_peer *p, const struct rdmap_atomic_req *r,
			  uint8_t *seg)
{
	struct rdmap_msg m;

	dp_peer_untagged(p, &m, RDMAP_ATOMIC_REQ, DDP_QN_READ_REQ);
	m.u.atomic_req = *r;
	return dp_peer_emit(p, &m, NULL, 0, seg);
}

/* Answer a Read Request of the library with data (segments of seg_max). */
void dp_peer_read_resp(struct dp_peer *p, const struct rdmap_read_req *r,
		       const void *data, size_t seg_max)
{
	const uint8_t *d = data;
	size_t off = 0;

	do {
		struct rdmap_msg m;
		size_t n = r->size - off;

		if (n > seg_max)
			n = seg_max;
		dp_peer_tagged(p, &m, RDMAP_READ_RESP, r->sink_stag,
			       r->sink_to + off);
		m.ddp.last = off + n == r->size;
		dp_peer_emit(p, &m, d + off, n, NULL);
		off += n;
	} while (off < r->size);
}

/* An Atomic Response to req_id with the original value orig. */
void dp_peer_atomic_resp(struct dp_peer *p, uint32_t req_id, uint64_t orig)
{
	struct rdmap_msg m;

	dp_peer_untagged(p, &m, RDMAP_ATOMIC_RESP, DDP_QN_ATOMIC_RESP);
	m.u.atomic_resp.req_id = req_id;
	m.u.atomic_resp.orig = orig;
	dp_peer_emit(p, &m, NULL, 0, NULL);
}

/* A Terminate of the peer about seg (NULL: no headers copied). */
void dp_peer_term(struct dp_peer *p, uint8_t layer, uint8_t etype,
		  uint8_t ecode, const uint8_t *seg, size_t seg_len)
{
	struct rdmap_msg m;

	dp_peer_untagged(p, &m, RDMAP_TERMINATE, DDP_QN_TERMINATE);
	rdmap_term_fill(&m.u.term, layer, etype, ecode, seg, seg_len);
	dp_peer_emit(p, &m, NULL, 0, NULL);
}

/* Receive one FPDU within ms, or NULL with errno. */
struct dp_msg *dp_peer_recv(struct dp_peer *p, int ms)
{
	struct dp_msg *msg = &p->msg;
	long long end = dp_ms() + ms;

	for (;;) {
		struct mpa_rx_ev ev;
		size_t used = 0;
		ssize_t n;

		mpa_rx_step(&p->rx, p->in + p->in_pos, p->in_len - p->in_pos,
			    &used, &ev);
		p->in_pos += used;
		switch (ev.type) {
		case MPA_RX_EV_START:
			msg->len = 0;
			msg->fpdu_off = ev.fpdu_off;
			continue;
		case MPA_RX_EV_DATA:
			ck_assert_uint_le(msg->len + ev.len, MPA_ULPDU_MAX);
			memcpy(msg->ulpdu + msg->len, ev.data, ev.len);
			msg->len += ev.len;
			continue;
		case MPA_RX_EV_END:
			ck_assert_uint_eq(msg->len, ev.ulpdu_len);
			msg->crc_ok = ev.crc_ok;
			msg->markers_ok = ev.markers_ok;
			memset(&msg->m, 0, sizeof(msg->m));
			msg->perr =
				rdmap_msg_parse(msg->ulpdu, msg->len, &msg->m);
			return msg;
		case MPA_RX_EV_ERROR:
			ck_abort_msg("peer decoder: %s", wire_strerror(ev.err));
			break;
		case MPA_RX_EV_NONE:
			break;
		}
		if (p->in_pos == p->in_len)
			p->in_pos = p->in_len = 0;
		if (p->eof) {
			errno = ECONNRESET;
			return NULL;
		}
		n = recv(p->fd, p->in + p->in_len, sizeof(p->in) - p->in_len,
			 0);
		if (n > 0) {
			p->in_len += (size_t)n;
			continue;
		}
		if (n == 0 || errno == ECONNRESET) {
			p->eof = true;
			continue;
		}
		ck_assert_msg(errno == EAGAIN || errno == EINTR, "recv: %s",
			      strerror(errno));
		if (dp_ms() >= end) {
			errno = ETIMEDOUT;
			return NULL;
		}
		dp_nap();
	}
}

static void dp_check_msn(struct dp_peer *p, const struct rdmap_msg *m)
{
	uint32_t qn = m->ddp.qn;

	if (m->ddp.tagged)
		return;
	ck_assert_uint_lt(qn, 4);
	/* RFC 5041 §5.3: one MSN per message, every segment carries it. */
	ck_assert_msg(m->ddp.msn == p->rx_msn[qn], "QN %u MSN %u, expected %u",
		      qn, m->ddp.msn, p->rx_msn[qn]);
	if (m->ddp.last)
		p->rx_msn[qn]++;
}

/* One FPDU with a good CRC and markers that parses; fails otherwise. */
struct dp_msg *dp_peer_expect(struct dp_peer *p, uint8_t opcode)
{
	struct dp_msg *msg = dp_peer_recv(p, DP_TIMEOUT_MS);

	ck_assert_msg(msg, "expected %s: %s", rdmap_opcode_name(opcode),
		      strerror(errno));
	ck_assert_msg(msg->crc_ok, "bad CRC from the library");
	ck_assert_msg(msg->markers_ok, "bad marker from the library");
	ck_assert_msg(msg->perr == WIRE_OK, "unparsable ULPDU: %s",
		      wire_strerror(msg->perr));
	ck_assert_msg(msg->m.opcode == opcode, "got %s, expected %s",
		      rdmap_opcode_name(msg->m.opcode),
		      rdmap_opcode_name(opcode));
	ck_assert_uint_eq(msg->m.ddp.dv, p->dv);
	ck_assert_uint_eq(msg->m.rv, p->rv);
	dp_check_msn(p, &msg->m);
	return msg;
}

/* No octet arrives within ms. */
void dp_peer_silent(struct dp_peer *p, int ms)
{
	long long end = dp_ms() + ms;
	uint8_t c;

	ck_assert_uint_eq(p->in_len - p->in_pos, 0);
	while (dp_ms() < end) {
		ssize_t n = recv(p->fd, &c, 1, MSG_PEEK);

		ck_assert_msg(n < 0 && errno == EAGAIN,
			      "the library sent something (%zd)", n);
		dp_nap();
	}
}

/* The library closed its end within ms (after any further FPDUs). */
bool dp_peer_wait_eof(struct dp_peer *p, int ms)
{
	long long end = dp_ms() + ms;

	while (!p->eof && dp_ms() < end) {
		int left = (int)(end - dp_ms());

		if (!dp_peer_recv(p, left) && errno != ETIMEDOUT)
			break;
	}
	return p->eof;
}

/* Receive FPDUs until the library's Terminate; check its DDP fields. */
struct dp_msg *dp_peer_recv_term(struct dp_peer *p)
{
	struct dp_msg *msg;

	for (;;) {
		msg = dp_peer_recv(p, DP_TIMEOUT_MS);
		ck_assert_msg(msg, "no Terminate: %s", strerror(errno));
		ck_assert_msg(msg->crc_ok && msg->markers_ok,
			      "bad CRC or marker from the library");
		ck_assert_msg(msg->perr == WIRE_OK, "unparsable ULPDU: %s",
			      wire_strerror(msg->perr));
		if (msg->m.opcode == RDMAP_TERMINATE)
			break;
		ck_assert_msg(!p->term_only, "%s before the Terminate",
			      rdmap_opcode_name(msg->m.opcode));
		dp_check_msn(p, &msg->m);
	}
	/* RFC 5040 §5.4: untagged, QN 2, one message. */
	ck_assert(!msg->m.ddp.tagged);
	ck_assert(msg->m.ddp.last);
	ck_assert_uint_eq(msg->m.ddp.qn, DDP_QN_TERMINATE);
	ck_assert_uint_eq(msg->m.ddp.mo, 0);
	ck_assert_uint_eq(msg->m.ddp.dv, p->dv);
	ck_assert_uint_eq(msg->m.rv, p->rv);
	dp_check_msn(p, &msg->m);
	return msg;
}

/* The Terminate's codes, HdrCt and copied headers. */
void dp_check_term(const struct dp_msg *msg, uint8_t layer, uint8_t etype,
		   uint8_t ecode, const uint8_t *seg, size_t seg_len)
{
	const struct rdmap_term *t = &msg->m.u.term;
	struct rdmap_term exp;

	ck_assert_msg(
		t->layer == layer && t->etype == etype && t->ecode == ecode,
		"Terminate %u/%u/0x%02x (%s), expected %u/%u/0x%02x (%s)",
		t->layer, t->etype, t->ecode,
		rdmap_term_ecode_name(t->layer, t->etype, t->ecode), layer,
		etype, ecode, rdmap_term_ecode_name(layer, etype, ecode));
	/* RFC 5040 §4.8 Figure 10, RFC 7306 §8.1: the copied headers. */
	rdmap_term_fill(&exp, layer, etype, ecode, seg, seg_len);
	ck_assert_msg(t->hdrct == exp.hdrct, "HdrCt %u, expected %u", t->hdrct,
		      exp.hdrct);
	if (exp.hdrct & RDMAP_TERM_HDRCT_M)
		ck_assert_uint_eq(t->ddp_seg_len, exp.ddp_seg_len);
	if (exp.hdrct & RDMAP_TERM_HDRCT_D) {
		ck_assert_uint_eq(t->ddp_hdr_len, exp.ddp_hdr_len);
		ck_assert_msg(!memcmp(t->ddp_hdr, exp.ddp_hdr, exp.ddp_hdr_len),
			      "Terminated DDP Header differs");
	}
	if (exp.hdrct & RDMAP_TERM_HDRCT_R)
		ck_assert_msg(!memcmp(t->rdma_hdr, exp.rdma_hdr,
				      RDMAP_READ_REQ_LEN),
			      "Terminated RDMA Header differs");
}

/* Receive FPDUs until the library's Terminate, and check it. */
struct dp_msg *dp_peer_expect_term(struct dp_peer *p, uint8_t layer,
				   uint8_t etype, uint8_t ecode,
				   const uint8_t *seg, size_t seg_len)
{
	struct dp_msg *msg = dp_peer_recv_term(p);

	dp_check_term(msg, layer, etype, ecode, seg, seg_len);
	return msg;
}
