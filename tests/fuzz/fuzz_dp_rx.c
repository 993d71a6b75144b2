/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm's receive path (libclient/framing_mpa_tcp.c under qp_rx.c)
 * against a hostile peer: one QP made with iwcm_conn_synth() over a
 * socketpair, in a manual-progress context (everything runs in this
 * thread, deterministically); the input says what the peer sends.
 *
 * Input: 4 octets of configuration, then records.
 *   0: bit 0 RDMAP/DDP version 1 (else 0), bits 1-2 MPA revision (3 is
 *      2), bit 3 CRC, bit 4 markers toward the library, bit 5 markers
 *      from it, bit 6 atomics and Immediate Data (version 1 only), bit 7
 *      receives through an SRQ.
 *   1: bits 0-2 IRD, bits 3-5 ORD, bit 6 post an RDMA Read, bit 7 post an
 *      atomic FetchAdd (both need ORD > 0).
 *   2: bit 7 raw mode (the rest of the input is the byte stream as it
 *      is), bit 6 MPA v1 responder fencing, bits 0-5 with octet 3: the
 *      stream offset of the first octet (where the markers fall).
 * Records (h is the record's first octet):
 *   h & 3 == 0: an FPDU; a 16-bit length and that many ULPDU octets,
 *      whose fields are fixed up (below), framed with the right markers
 *      and CRC; h & 4 spoils the CRC; h >> 4, if not 0, splits the
 *      FPDU: the library gets (h >> 4) sixteenths of it at once, the rest
 *      after the actions that follow, before the next FPDU or raw octets.
 *   h & 3 == 1: the same without the fix-ups.
 *   h & 3 == 2: raw octets: an 8-bit length and the octets.
 *   h & 3 == 3: an action, (h >> 2) & 7: pump, post a receive,
 *      deregister a region (the next octet says which), half close,
 *      post a Send, reset, post one more Read, poll the CQs.
 *   h & 8 on the first three: write and pump before the next record.
 *
 * CRC: the records of kind 0 and 1 are framed by mpa_fpdu_build(), so
 * their CRC and markers are right unless h & 4 asks otherwise; raw
 * octets (kind 2, raw mode) reach the CRC check only when the fuzzer
 * finds the CRC itself, or with CRC off.
 *
 * Fix-ups, so that placement is reached: an STag field of 1 to R_N
 * becomes the STag of that region (tagged segments, a Read Request's
 * Data Source, an Atomic Request's target, the STag a Send with
 * Invalidate names) and the Tagged Offset that goes with it is taken
 * relative to the region's first octet; an untagged segment's MSN is
 * taken relative to the next one the library expects on its queue; an
 * Atomic Response's request identifier relative to the last one the
 * library sent.
 *
 * Checks: no octet outside what the peer was granted changes (regions
 * sit between PROT_NONE guard pages, canaries fill the room before a
 * region, one without remote write or atomic rights keeps its contents,
 * a local one changes only in the posted receive, Read sink and atomic
 * result buffers, a deregistered one not at all after deregistration); every
 * Read Response the library sends comes from a region with REMOTE_READ of
 * its PD, within a Read Request the peer made; what the library sends is
 * well framed and nothing follows its Terminate; each work request
 * completes at most once; no descriptor leaks; ASan for the rest.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "fuzz/fuzz.h"
#include <iwcm/iwcm.h>
#include "synth.h"
#include <iwcm/verbs.h>

#include "ddp.h"
#include "mpa.h"
#include "rdmap.h"
#include "wbuf.h"

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

#define ACC_ALL                                               \
	(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE | \
	 IWCM_ACCESS_REMOTE_READ | IWCM_ACCESS_REMOTE_ATOMIC)
#define CANARY 0xA5
#define PUMP_MAX 256
#define MAX_READS 256
#define MAX_WR 32

/* Regions; the fix-ups name them 1 to R_N. */
enum {
	R_LOCAL,
	R_WRITE,
	R_READ,
	R_ATOMIC,
	R_ALL,
	R_SECRET,
	R_OTHER,
	R_EMPTY,
	R_N
};

/* Places in R_LOCAL. */
#define L_RECV_A 0   /* 64 octets */
#define L_RECV_B1 80 /* 32 + 32 octets, two SGEs */
#define L_RECV_B2 128
#define L_RECV_X 176 /* 4 more receives of 32, every 40 */
#define L_SINK 352   /* Read sinks: 64, then 32 at 424 */
#define L_SINK2 424
#define L_ATOMIC 464 /* the FetchAdd's result */
#define N_EXTRA_RECV 4

struct region {
	unsigned int access;
	size_t len;
	bool other_pd;
	uint8_t fill;
	/* set once */
	uint8_t *map;
	size_t map_len;
	uint8_t *p;   /* the last octet before the trailing guard */
	uint8_t *img; /* what lies between the guards at the start of a run */
	/* per run */
	struct iwcm_mr *mr;
	uint32_t stag;
	bool gone;     /* deregistered: frozen from then on */
	uint8_t *snap; /* contents when it went */
};

#define REGION(a, l, o, f)                                              \
	{                                                               \
		.access = (a), .len = (l), .other_pd = (o), .fill = (f) \
	}
static struct region R[R_N] = {
	[R_LOCAL] = REGION(IWCM_ACCESS_LOCAL_WRITE, 512, false, 0x11),
	[R_WRITE] = REGION(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE,
			   4096, false, 0x22),
	[R_READ] = REGION(IWCM_ACCESS_REMOTE_READ, 4096, false, 0x33),
	[R_ATOMIC] = REGION(IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_ATOMIC,
			    64, false, 0x44),
	[R_ALL] = REGION(ACC_ALL, 300, false, 0x55),
	[R_SECRET] = REGION(0, 256, false, 0x66),
	[R_OTHER] = REGION(ACC_ALL, 128, true, 0x77),
	[R_EMPTY] = REGION(ACC_ALL, 0, false, 0x88),
};

/* A Read Request the peer sent, as the library decodes it. */
struct read_req {
	uint32_t sink_stag, size, src_stag;
	uint64_t sink_to, src_to;
};

/* One direction's FPDU decoder and the ULPDU it is assembling. */
struct dec {
	struct mpa_rx rx;
	uint8_t u[MPA_ULPDU_MAX + 1];
	size_t len;
	bool dead;
};

static struct {
	struct iwcm_ctx *ctx;
	struct iwcm_pd *pd, *pd2;
	struct iwcm_cq *scq, *rcq;
	struct iwcm_srq *srq;
	struct iwcm_qp *qp;
	struct iwcm_conn *conn;
	int fd;		      /* the peer's end */
	bool wr_closed;	      /* the peer wrote its last octet */
	struct mpa_dir tx;    /* what the peer frames */
	uint32_t next_msn[4]; /* untagged messages the peer ended */
	uint32_t lib_req_id;  /* the library's last Atomic Request */
	bool atomics;
	uint8_t version;
	/* octets framed, not yet written */
	uint8_t out[1 << 17];
	size_t out_len;
	/* what the peer sends, decoded as the library does */
	struct dec sent;
	struct read_req reads[MAX_READS];
	size_t n_reads;
	bool reads_lost;
	/* what the library sends */
	struct dec got;
	bool term_seen;
	bool term_llp; /* the library's Terminate: layer LLP */
	bool len_err;  /* a completion with a local length error */
	uint32_t lib_msn[4];
	/* R_LOCAL octets the library may write */
	bool local_ok[512];
	int extra_recvs, extra_reads;
	/* work requests: posted, completed */
	bool posted[MAX_WR], done[MAX_WR];
	uint32_t recv_len[MAX_WR];
} H;

/* The second part of a split FPDU, written with the next octets. */
static uint8_t held[MPA_ULPDU_MAX + 8 * MPA_FPDU_MAX_MARKERS + 16];
static size_t held_len;
static int first_fd = -1;
/* FUZZ_DP_RX_VERBOSE set: say what happens (to triage an input). */
static bool verbose;

/* ---- regions ---- */

/*
 * Each region ends at a PROT_NONE page; canary octets fill the room
 * between the leading PROT_NONE page and its first octet.
 */
static uint8_t fill_at(const struct region *r, size_t k)
{
	/* Not one value: a shifted copy shows. */
	return (uint8_t)(r->fill ^ (k * 7) ^ (k >> 8));
}

static void regions_map(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < R_N; i++) {
		struct region *r = &R[i];
		size_t inner = (r->len + page - 1) / page * page;

		if (!inner)
			inner = page;
		r->map_len = inner + 2 * page;
		r->map = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		CHECK(r->map != MAP_FAILED);
		CHECK(mprotect(r->map, page, PROT_NONE) == 0);
		CHECK(mprotect(r->map + page + inner, page, PROT_NONE) == 0);
		r->p = r->map + page + inner - r->len;
		r->snap = malloc(r->len ? r->len : 1);
		CHECK(r->snap);
		/* The canary, then the fill: copied in and compared against
		 * whole, not an octet at a time. */
		r->img = malloc(inner);
		CHECK(r->img);
		memset(r->img, CANARY, inner - r->len);
		for (size_t k = 0; k < r->len; k++)
			r->img[inner - r->len + k] = fill_at(r, k);
	}
}

static void regions_fill(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < R_N; i++) {
		struct region *r = &R[i];

		memcpy(r->map + page, r->img, r->map_len - 2 * page);
		r->gone = false;
	}
}

static void regions_check(void)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	for (int i = 0; i < R_N; i++) {
		const struct region *r = &R[i];
		size_t head = (size_t)(r->p - r->map) - page;
		bool all = false;

		CHECK(memcmp(r->map + page, r->img, head) == 0);
		if (r->gone) {
			CHECK(memcmp(r->p, r->snap, r->len) == 0);
			continue;
		}
		/* Remote writes and atomics may land anywhere inside. */
		if (!r->other_pd && (r->access & (IWCM_ACCESS_REMOTE_WRITE |
						  IWCM_ACCESS_REMOTE_ATOMIC)))
			all = true;
		if (all || memcmp(r->p, r->img + head, r->len) == 0)
			continue;
		for (size_t k = 0; k < r->len; k++)
			CHECK(r->p[k] == fill_at(r, k) ||
			      (i == R_LOCAL && H.local_ok[k]));
	}
}

/* ---- the library's objects ---- */

static struct iwcm_sge sge_at(int r, size_t off, uint32_t len)
{
	struct iwcm_sge s = { (uintptr_t)(R[r].p + off), len, R[r].stag };

	return s;
}

static void grant_local(size_t off, size_t len)
{
	memset(H.local_ok + off, 1, len);
}

static void post_recv(uint64_t id, struct iwcm_sge *sg, int n)
{
	struct iwcm_recv_wr wr = { id, NULL, sg, n, 0 };
	struct iwcm_recv_wr *bad = NULL;
	int rc;

	if (H.srq)
		rc = iwcm_post_srq_recv(H.srq, &wr, &bad);
	else
		rc = iwcm_post_recv(H.qp, &wr, &bad);
	if (rc)
		return;
	H.posted[id] = true;
	for (int i = 0; i < n; i++)
		grant_local((size_t)((uint8_t *)(uintptr_t)sg[i].addr -
				     R[R_LOCAL].p),
			    sg[i].length);
}

static void post_send(struct iwcm_send_wr *wr)
{
	struct iwcm_send_wr *bad = NULL;

	if (iwcm_post_send(H.qp, wr, &bad) == 0)
		H.posted[wr->wr_id] = true;
}

static void post_read(uint64_t id, size_t off, uint32_t len)
{
	struct iwcm_sge sg = sge_at(R_LOCAL, off, len);
	struct iwcm_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_RDMA_READ;
	wr.send_flags = IWCM_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = 0x7000 + id;
	wr.wr.rdma.rkey = 0xabcdef01;
	grant_local(off, len);
	post_send(&wr);
}

static void post_atomic(uint64_t id)
{
	struct iwcm_sge sg = sge_at(R_LOCAL, L_ATOMIC, 8);
	struct iwcm_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_ATOMIC_FETCH_ADD;
	wr.send_flags = IWCM_SEND_SIGNALED;
	wr.wr.atomic.remote_addr = 0x9000;
	wr.wr.atomic.rkey = 0x12345601;
	wr.wr.atomic.compare_add = 1;
	wr.wr.atomic.compare_add_mask = ~0ull;
	grant_local(L_ATOMIC, 8);
	post_send(&wr);
}

static void post_send_msg(uint64_t id)
{
	struct iwcm_sge sg = sge_at(R_ALL, 0, 16);
	struct iwcm_send_wr wr;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sg;
	wr.num_sge = 1;
	wr.opcode = IWCM_WR_SEND;
	wr.send_flags = IWCM_SEND_SIGNALED;
	post_send(&wr);
}

/* Work request ids. */
enum {
	WR_RECV_A = 1,
	WR_RECV_B,
	WR_READ,
	WR_ATOMIC,
	WR_RECV_X,
	WR_SEND = WR_RECV_X + N_EXTRA_RECV,
	WR_READ2,
	WR_N
};

static void poll_cqs(void)
{
	struct iwcm_cq *cqs[2] = { H.scq, H.rcq };

	for (int c = 0; c < 2; c++) {
		struct iwcm_wc wc[8];
		int n;

		while ((n = iwcm_poll_cq(cqs[c], 8, wc)) > 0) {
			for (int i = 0; i < n; i++) {
				uint64_t id = wc[i].wr_id;

				if (verbose)
					fprintf(stderr,
						"wc %llu %s opcode 0x%x len %u "
						"vendor_err 0x%x\n",
						(unsigned long long)id,
						iwcm_wc_status_str(
							wc[i].status),
						wc[i].opcode, wc[i].byte_len,
						wc[i].vendor_err);
				CHECK(id < MAX_WR && H.posted[id]);
				CHECK(!H.done[id]);
				H.done[id] = true;
				CHECK(wc[i].qp == H.qp);
				if (wc[i].status == IWCM_WC_LOC_LEN_ERR)
					H.len_err = true;
				if (wc[i].status == IWCM_WC_SUCCESS &&
				    (wc[i].opcode & IWCM_WC_RECV) &&
				    !(wc[i].wc_flags & IWCM_WC_WITH_IMM))
					CHECK(wc[i].byte_len <= H.recv_len[id]);
			}
		}
		CHECK(n == 0);
	}
}

/* ---- the two directions ---- */

static void dec_init(struct dec *d, bool markers, bool crc, uint32_t off)
{
	mpa_rx_init(&d->rx, markers, crc, off);
	d->len = 0;
	d->dead = false;
}

/* Feed octets; calls fn for each complete FPDU. */
static void dec_feed(struct dec *d, const uint8_t *buf, size_t n,
		     void (*fn)(const struct mpa_rx_ev *ev))
{
	size_t off = 0;

	while (off < n && !d->dead) {
		struct mpa_rx_ev ev;
		size_t used = 0;

		mpa_rx_step(&d->rx, buf + off, n - off, &used, &ev);
		off += used;
		switch (ev.type) {
		case MPA_RX_EV_START:
			d->len = 0;
			break;
		case MPA_RX_EV_DATA:
			CHECK(d->len + ev.len <= MPA_ULPDU_MAX);
			memcpy(d->u + d->len, ev.data, ev.len);
			d->len += ev.len;
			break;
		case MPA_RX_EV_END:
			fn(&ev);
			break;
		case MPA_RX_EV_ERROR:
			d->dead = true;
			return;
		default:
			if (!used)
				return;
			break;
		}
	}
}

/* An FPDU of the peer, as the library sees it: note Read Requests. */
static void on_sent(const struct mpa_rx_ev *ev)
{
	struct rdmap_msg m;
	struct read_req *r;

	if (!ev->crc_ok || !ev->markers_ok)
		return;
	memset(&m, 0, sizeof(m));
	if (rdmap_msg_parse(H.sent.u, H.sent.len, &m) != WIRE_OK ||
	    m.opcode != RDMAP_READ_REQ)
		return;
	if (H.n_reads == MAX_READS) {
		H.reads_lost = true;
		return;
	}
	r = &H.reads[H.n_reads++];
	r->sink_stag = m.u.read_req.sink_stag;
	r->sink_to = m.u.read_req.sink_to;
	r->size = m.u.read_req.size;
	r->src_stag = m.u.read_req.src_stag;
	r->src_to = m.u.read_req.src_to;
}

/* The source of a Read Response segment was granted to the peer. */
static bool read_granted(uint32_t stag, uint64_t to, size_t len)
{
	/* Nothing read, or more Read Requests than we kept. */
	if (!len || H.reads_lost)
		return true;
	for (size_t i = 0; i < H.n_reads; i++) {
		const struct read_req *q = &H.reads[i];
		/* The peer's sink may wrap: its addresses, its problem. */
		uint64_t at = to - q->sink_to, src;

		if (q->sink_stag != stag || at >= q->size || len > q->size - at)
			continue;
		src = q->src_to + at;
		for (int k = 0; k < R_N; k++) {
			const struct region *r = &R[k];
			uint64_t base = (uintptr_t)r->p;

			if (r->stag == q->src_stag && !r->other_pd &&
			    (r->access & IWCM_ACCESS_REMOTE_READ) &&
			    src >= base && src - base <= r->len &&
			    len <= r->len - (src - base))
				return true;
		}
	}
	return false;
}

/* An FPDU of the library. */
static void on_got(const struct mpa_rx_ev *ev)
{
	struct rdmap_msg m;

	/* RFC 5040 §5.4: the Terminate is the last message. */
	CHECK(!H.term_seen);
	CHECK(ev->crc_ok && ev->markers_ok);
	memset(&m, 0, sizeof(m));
	CHECK(rdmap_msg_parse(H.got.u, H.got.len, &m) == WIRE_OK);
	CHECK(m.ddp.dv == H.version && m.rv == H.version);
	if (!m.ddp.tagged) {
		/* RFC 5041 §5.3: one MSN per message, in order. */
		CHECK(m.ddp.qn < 4 && m.ddp.msn == H.lib_msn[m.ddp.qn]);
		if (m.ddp.last)
			H.lib_msn[m.ddp.qn]++;
	}
	if (verbose)
		fprintf(stderr, "library sends %s (%zu octets)%s\n",
			rdmap_opcode_name(m.opcode), H.got.len,
			m.opcode == RDMAP_TERMINATE ?
				rdmap_term_ecode_name(m.u.term.layer,
						      m.u.term.etype,
						      m.u.term.ecode) :
				"");
	switch (m.opcode) {
	case RDMAP_READ_RESP:
		CHECK(read_granted(m.ddp.stag, m.ddp.to, m.payload_len));
		break;
	case RDMAP_ATOMIC_REQ:
		H.lib_req_id = m.u.atomic_req.req_id;
		break;
	case RDMAP_TERMINATE:
		H.term_seen = true;
		H.term_llp = m.u.term.layer == RDMAP_TERM_LAYER_LLP;
		break;
	default:
		break;
	}
}

/* Read what the library sent; true if anything came. */
static bool drain(void)
{
	static uint8_t buf[65536];
	bool any = false;

	for (;;) {
		ssize_t n = recv(H.fd, buf, sizeof(buf), 0);

		if (n <= 0)
			break;
		any = true;
		dec_feed(&H.got, buf, (size_t)n, on_got);
		/* The library frames right: its stream never dies. */
		CHECK(!H.got.dead);
	}
	return any;
}

/* Write what is framed; true if anything went. */
static bool flush_out(void)
{
	size_t off = 0;

	while (off < H.out_len && !H.wr_closed) {
		ssize_t n = send(H.fd, H.out + off, H.out_len - off,
				 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n > 0) {
			off += (size_t)n;
			continue;
		}
		if (n < 0 && (errno == EAGAIN || errno == EINTR))
			break;
		/* The library closed: the rest goes nowhere. */
		H.wr_closed = true;
	}
	if (H.wr_closed)
		off = H.out_len;
	memmove(H.out, H.out + off, H.out_len - off);
	H.out_len -= off;
	return off > 0;
}

/* Run the library and the peer until neither has anything to do. */
static void pump(void)
{
	int idle = 0;

	for (int i = 0; i < PUMP_MAX && idle < 2; i++) {
		int w = iwcm_progress(H.ctx, 0);
		bool got, put;

		CHECK(w >= 0);
		got = drain();
		put = flush_out();
		idle = w || got || put ? 0 : idle + 1;
	}
}

/* Queue octets for the library (pumping when the buffer is full). */
static void emit(const uint8_t *p, size_t n)
{
	dec_feed(&H.sent, p, n, on_sent);
	while (n) {
		size_t k = sizeof(H.out) - H.out_len;

		if (!k) {
			pump();
			if (H.out_len == sizeof(H.out))
				return; /* stuck: drop the rest */
			continue;
		}
		if (k > n)
			k = n;
		memcpy(H.out + H.out_len, p, k);
		H.out_len += k;
		H.tx.off += (uint32_t)k;
		p += k;
		n -= k;
	}
}

/* ---- fix-ups ---- */

/* An STag field of 1..R_N names a region; its TO field (if any) is then
 * relative to the region. */
static void fix_stag(uint8_t *stag, uint8_t *to)
{
	uint32_t s = wire_be32(stag);
	const struct region *r;

	if (s < 1 || s > R_N)
		return;
	r = &R[s - 1];
	wire_put_be32(stag, r->stag);
	if (to)
		wire_put_be64(to, wire_be64(to) + (uintptr_t)r->p);
}

static void fixup(uint8_t *u, size_t len)
{
	uint8_t op;

	if (len < 2)
		return;
	op = u[1] & RDMAP_OPCODE_MASK;
	if (u[0] & DDP_FLAG_T) {
		/* RFC 5041 §4.2: STag at 2, TO at 6. */
		if (len >= DDP_TAGGED_HDR_LEN)
			fix_stag(u + 2, u + 6);
		return;
	}
	if (len < DDP_UNTAGGED_HDR_LEN)
		return;
	/* RFC 5041 §4.3: QN at 6, MSN at 10; the L bit ends a message. */
	{
		uint32_t qn = wire_be32(u + 6);

		if (qn < 4) {
			wire_put_be32(u + 10,
				      wire_be32(u + 10) + H.next_msn[qn]);
			if (u[0] & DDP_FLAG_L)
				H.next_msn[qn]++;
		}
	}
	switch (op) {
	case RDMAP_SEND_INV:
	case RDMAP_SEND_SE_INV:
		/* RFC 5040 §4.3: the Invalidate STag. */
		fix_stag(u + 2, NULL);
		break;
	case RDMAP_READ_REQ:
		/* RFC 5040 §4.4: Data Source STag at 16, TO at 20. */
		if (len >= DDP_UNTAGGED_HDR_LEN + RDMAP_READ_REQ_LEN)
			fix_stag(u + DDP_UNTAGGED_HDR_LEN + 16,
				 u + DDP_UNTAGGED_HDR_LEN + 20);
		break;
	case RDMAP_ATOMIC_REQ:
		/* RFC 7306 §5.2.1: Remote STag at 8, TO at 12. */
		if (len >= DDP_UNTAGGED_HDR_LEN + 20)
			fix_stag(u + DDP_UNTAGGED_HDR_LEN + 8,
				 u + DDP_UNTAGGED_HDR_LEN + 12);
		break;
	case RDMAP_ATOMIC_RESP:
		/* RFC 7306 §5.2.2: the Original Request Identifier. */
		if (len >= DDP_UNTAGGED_HDR_LEN + 4)
			wire_put_be32(u + DDP_UNTAGGED_HDR_LEN,
				      wire_be32(u + DDP_UNTAGGED_HDR_LEN) ^
					      H.lib_req_id);
		break;
	default:
		break;
	}
}

/* ---- one run ---- */

static void setup(const uint8_t *cfg)
{
	struct iwcm_synth st;
	struct iwcm_qp_init_attr attr;
	int fd[2];

	memset(&H, 0, sizeof(H));
	memset(&st, 0, sizeof(st));
	st.version = cfg[0] & 1;
	st.mpa_rev = (cfg[0] >> 1) & 3;
	if (st.mpa_rev == 3)
		st.mpa_rev = 2;
	st.crc = !!(cfg[0] & 8);
	st.markers_rx = !!(cfg[0] & 16);
	st.markers_tx = !!(cfg[0] & 32);
	st.atomics = st.imm_data = st.version == 1 && (cfg[0] & 64);
	st.ird = cfg[1] & 7;
	st.ord = (cfg[1] >> 3) & 7;
	st.wait_first_fpdu = st.mpa_rev == 1 && (cfg[2] & 64);
	st.rx_offset = (uint64_t)(cfg[2] & 63) << 8 | cfg[3];
	/* Never inside a marker: the library frames from there. */
	st.tx_offset = (uint64_t)(cfg[3] & ~3u) * 2;
	for (int i = 0; i < 4; i++)
		st.next_msn[i] = 1;
	H.atomics = st.atomics;

	CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fd) == 0);
	if (first_fd < 0)
		first_fd = fd[0];
	/* Every run closes what it opened. */
	CHECK(fd[0] < first_fd + 8);
	H.fd = fd[1];
	CHECK(fcntl(H.fd, F_SETFL, fcntl(H.fd, F_GETFL) | O_NONBLOCK) == 0);
	H.tx.markers = st.markers_rx;
	H.tx.crc = st.crc;
	H.tx.off = (uint32_t)st.rx_offset;
	dec_init(&H.sent, st.markers_rx, st.crc, (uint32_t)st.rx_offset);
	dec_init(&H.got, st.markers_tx, st.crc, (uint32_t)st.tx_offset);
	for (int i = 0; i < 4; i++)
		H.lib_msn[i] = H.next_msn[i] = 1;
	H.version = (uint8_t)st.version;

	H.ctx = iwcm_ctx_new_detached(IWCM_CTX_MANUAL_PROGRESS);
	CHECK(H.ctx);
	H.pd = iwcm_alloc_pd(H.ctx);
	H.pd2 = iwcm_alloc_pd(H.ctx);
	H.scq = iwcm_create_cq(H.ctx, 64, NULL, NULL);
	H.rcq = iwcm_create_cq(H.ctx, 64, NULL, NULL);
	CHECK(H.pd && H.pd2 && H.scq && H.rcq);
	if (cfg[0] & 128) {
		const struct iwcm_srq_init_attr sa = { .max_wr = 16,
						       .max_sge = 4 };

		H.srq = iwcm_create_srq(H.pd, &sa);
		CHECK(H.srq);
	}
	regions_fill();
	held_len = 0;
	for (int i = 0; i < R_N; i++) {
		struct region *r = &R[i];

		r->mr = iwcm_reg_mr(r->other_pd ? H.pd2 : H.pd, r->p, r->len,
				    r->access);
		CHECK(r->mr);
		r->stag = iwcm_mr_get_stag(r->mr);
	}
	H.conn = iwcm_conn_synth(H.ctx, fd[0], &st);
	CHECK(H.conn);
	memset(&attr, 0, sizeof(attr));
	attr.send_cq = H.scq;
	attr.recv_cq = H.rcq;
	attr.srq = H.srq;
	attr.max_send_wr = 16;
	attr.max_recv_wr = 16;
	attr.max_send_sge = 4;
	attr.max_recv_sge = 4;
	attr.max_inline_data = 64;
	H.qp = iwcm_create_qp(H.conn, H.pd, &attr);
	CHECK(H.qp);

	{
		struct iwcm_sge a = sge_at(R_LOCAL, L_RECV_A, 64);
		struct iwcm_sge b[2] = { sge_at(R_LOCAL, L_RECV_B1, 32),
					 sge_at(R_LOCAL, L_RECV_B2, 32) };

		H.recv_len[WR_RECV_A] = 64;
		H.recv_len[WR_RECV_B] = 64;
		post_recv(WR_RECV_A, &a, 1);
		post_recv(WR_RECV_B, b, 2);
	}
	if ((cfg[1] & 64) && st.ord)
		post_read(WR_READ, L_SINK, 64);
	if ((cfg[1] & 128) && st.ord && st.atomics)
		post_atomic(WR_ATOMIC);
	pump();
}

static void teardown(void)
{
	poll_cqs();
	CHECK(iwcm_destroy_qp(H.qp) == 0);
	iwcm_conn_free(H.conn);
	for (int i = 0; i < R_N; i++)
		if (R[i].mr)
			CHECK(iwcm_dereg_mr(R[i].mr) == 0);
	if (H.srq)
		CHECK(iwcm_destroy_srq(H.srq) == 0);
	CHECK(iwcm_destroy_cq(H.scq) == 0);
	CHECK(iwcm_destroy_cq(H.rcq) == 0);
	CHECK(iwcm_dealloc_pd(H.pd) == 0);
	CHECK(iwcm_dealloc_pd(H.pd2) == 0);
	iwcm_ctx_close(H.ctx);
	if (H.fd >= 0)
		close(H.fd);
	for (int i = 0; i < R_N; i++)
		R[i].mr = NULL;
}

static void action(unsigned int a, const uint8_t **p, const uint8_t *end)
{
	switch (a) {
	case 0:
		break;
	case 1:
		if (H.extra_recvs < N_EXTRA_RECV) {
			int k = H.extra_recvs++;
			struct iwcm_sge s =
				sge_at(R_LOCAL, L_RECV_X + (size_t)k * 40, 32);

			H.recv_len[WR_RECV_X + k] = 32;
			post_recv((uint64_t)(WR_RECV_X + k), &s, 1);
		}
		break;
	case 2: {
		/* The region goes: it must not change from now on. */
		struct region *r;

		if (*p == end)
			break;
		r = &R[*(*p)++ % R_N];
		if (!r->mr)
			break;
		CHECK(iwcm_dereg_mr(r->mr) == 0);
		r->mr = NULL;
		memcpy(r->snap, r->p, r->len);
		r->gone = true;
		break;
	}
	case 3:
		flush_out();
		if (!H.wr_closed)
			shutdown(H.fd, SHUT_WR);
		H.wr_closed = true;
		break;
	case 4:
		if (!H.posted[WR_SEND])
			post_send_msg(WR_SEND);
		break;
	case 5: {
		struct linger l = { 1, 0 };

		/* A reset: the library sees ECONNRESET. */
		CHECK(setsockopt(H.fd, SOL_SOCKET, SO_LINGER, &l, sizeof(l)) ==
		      0);
		close(H.fd);
		H.fd = -1;
		H.wr_closed = true;
		iwcm_progress(H.ctx, 0);
		iwcm_progress(H.ctx, 0);
		return;
	}
	case 6:
		if (!H.posted[WR_READ2])
			post_read(WR_READ2, L_SINK2, 32);
		break;
	default:
		poll_cqs();
		break;
	}
	pump();
}

static void release_held(void)
{
	if (held_len)
		emit(held, held_len);
	held_len = 0;
}

static void records(const uint8_t *p, const uint8_t *end)
{
	static uint8_t u[MPA_ULPDU_MAX + 1];
	static uint8_t w[MPA_ULPDU_MAX + 8 * MPA_FPDU_MAX_MARKERS + 16];

	while (p < end && H.fd >= 0) {
		uint8_t h = *p++;
		size_t len;

		if ((h & 3) != 3)
			release_held();
		switch (h & 3) {
		case 0:
		case 1:
			if (end - p < 2)
				return;
			len = (size_t)p[0] << 8 | p[1];
			p += 2;
			if (len > (size_t)(end - p))
				len = (size_t)(end - p);
			memcpy(u, p, len);
			p += len;
			if ((h & 3) == 0)
				fixup(u, len);
			{
				struct mpa_dir d = H.tx;
				size_t n;

				if (mpa_fpdu_build(&d, u, (uint16_t)len, w,
						   sizeof(w), &n) != WIRE_OK)
					break; /* a start inside a marker */
				if (h & 4)
					w[n - 1] ^= 0x20;
				if (h >> 4) {
					size_t a = n * (h >> 4) / 16;

					emit(w, a);
					pump();
					memcpy(held, w + a, n - a);
					held_len = n - a;
				} else {
					emit(w, n);
				}
			}
			break;
		case 2:
			if (p == end)
				return;
			len = *p++;
			if (len > (size_t)(end - p))
				len = (size_t)(end - p);
			emit(p, len);
			p += len;
			break;
		default:
			action((h >> 2) & 7, &p, end);
			continue;
		}
		if (h & 8)
			pump();
	}
}

/* One run: a fresh QP, the peer's stream, the checks, the teardown. */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool mapped;

	if (size < 4)
		return 0;
	if (!mapped) {
		regions_map();
		verbose = getenv("FUZZ_DP_RX_VERBOSE") != NULL;
		mapped = true;
	}
	setup(data);
	if (data[2] & 128)
		emit(data + 4, size - 4);
	else
		records(data + 4, data + size);
	release_held();
	pump();
	poll_cqs();
	/* RFC 5044 §8: a segment the framing refused (CRC, Markers) reports
	 * nothing its header decided, such as a length error. */
	CHECK(!(H.len_err && H.term_llp));
	regions_check();
	teardown();
	return 0;
}
