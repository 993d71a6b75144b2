/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The datapath between two libiwcm QPs over a socketpair: markers and CRC
 * each way, DDP/RDMAP version 0, the first-FPDU fence, the handoff's unread
 * octets first, the shared receive queue, completion channel wake-ups, CQ
 * overflow, and regions deregistered while operations on them are in
 * flight or being placed (RFC 5042 §5).
 */
#include "config.h"

#include "verbs_pair.h"

/* Send, Write and Read over one configuration of the pair. */
static void traffic(struct end *a, struct end *b)
{
	static const uint32_t sizes[] = { 0, 5, 511, 1500, 66000, 250000 };
	struct iwcm_send_wr wr;

	for (size_t i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint32_t n = sizes[i];
		struct iwcm_wc wc;

		fill(a->buf, n, (uint8_t)(i * 13));
		post_recv(b, i, 300000, 300000);
		wr = wr_of(IWCM_WR_SEND, i);
		post(a, &wr, 0, n);
		expect_wc(a, b, i, IWCM_WC_SUCCESS, IWCM_WC_SEND);
		wc = wait_wc(b, a);
		ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
		ck_assert_uint_eq(wc.byte_len, n);
		ck_assert(memcmp(a->buf, b->buf + 300000, n) == 0);

		fill(b->buf, n, (uint8_t)(i * 17));
		wr = wr_of(IWCM_WR_RDMA_WRITE, 100 + i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(a->buf + 600000);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(a->mr);
		post(b, &wr, 0, n);
		expect_wc(b, a, 100 + i, IWCM_WC_SUCCESS, IWCM_WC_RDMA_WRITE);
		wr = wr_of(IWCM_WR_RDMA_READ, 200 + i);
		wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(a->buf + 600000);
		wr.wr.rdma.rkey = iwcm_mr_get_stag(a->mr);
		post(b, &wr, 300000, n);
		expect_wc(b, a, 200 + i, IWCM_WC_SUCCESS, IWCM_WC_RDMA_READ);
		ck_assert(memcmp(b->buf, b->buf + 300000, n) == 0);
	}
}

struct mk_case {
	int m_ab, m_ba, crc; /* markers A->B, B->A */
	uint64_t off_ab, off_ba;
};

static const struct mk_case mk_cases[] = {
	{ 1, 1, 1, 0, 0 },     { 1, 0, 1, 4, 100 },
	{ 0, 1, 0, 300, 511 }, { 1, 1, 0, 508, 1028 },
	{ 0, 0, 0, 0, 0 },     { 1, 1, 1, (1ull << 32) + 516, 7 * 512 + 4 },
};

/* RFC 5044 §4.3-4.4: markers at the handed-over stream offsets, CRC on
 * or off, each direction on its own. */
START_TEST(test_markers_crc)
{
	const struct mk_case *c = &mk_cases[_i / 2];
	struct iwcm_synth sa, sb;
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	struct end a, b;

	manual = _i & 1;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.ird = sa.ord = 4;
	sa.atomics = sa.imm_data = 1;
	sa.crc = c->crc;
	sb = sa;
	sa.initiator = 1;
	sa.markers_tx = sb.markers_rx = c->m_ab;
	sa.markers_rx = sb.markers_tx = c->m_ba;
	sa.tx_offset = sb.rx_offset = c->off_ab;
	sa.rx_offset = sb.tx_offset = c->off_ba;
	pair_up(&a, &b, &sa, &sb);
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_int_eq(qa.markers_tx, c->m_ab);
	ck_assert_int_eq(qa.markers_rx, c->m_ba);
	ck_assert_int_eq(qa.crc, c->crc);
	ck_assert_uint_ge(qa.mulpdu, 128);
	traffic(&a, &b);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RDMA Consortium peers: DDP and RDMAP version 0, no RFC 7306. */
START_TEST(test_version0)
{
	struct iwcm_synth sa, sb;
	struct iwcm_qp_attr qa = { .comp_mask = 0 };
	struct iwcm_send_wr wr;
	struct end a, b;

	manual = _i;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 0;
	sa.version = 0;
	sa.markers_tx = sa.markers_rx = sa.crc = 1;
	sa.ird = sa.ord = 2;
	sa.atomics = sa.imm_data = 1;
	sb = sa;
	sa.initiator = 1;
	pair_up(&a, &b, &sa, &sb);
	ck_assert_int_eq(iwcm_query_qp(a.qp, &qa), 0);
	ck_assert_uint_eq(qa.rdmap_version, 0);
	ck_assert_int_eq(qa.atomics, 0);
	ck_assert_int_eq(qa.imm_data, 0);
	wr = wr_of(IWCM_WR_IMM_DATA, 1);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), EOPNOTSUPP);
	traffic(&a, &b);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* RFC 5044 §7.1.2 rule 4: an MPA v1 responder sends nothing before the
 * initiator's first FPDU. */
START_TEST(test_first_fpdu_fence)
{
	struct iwcm_synth sa, sb;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a, b;

	manual = _i;
	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.crc = 1;
	sa.ird = sa.ord = 1;
	sb = sa;
	sa.initiator = 1;
	sb.wait_first_fpdu = 1;
	pair_up(&a, &b, &sa, &sb);
	post_recv(&a, 1, 0, 64);
	post_recv(&b, 2, 0, 64);
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&b, &wr, 1000, 10);
	for (int i = 0; i < 50; i++) {
		if (manual) {
			iwcm_progress(a.ctx, 1);
			iwcm_progress(b.ctx, 1);
		} else {
			usleep(1000);
		}
	}
	ck_assert_int_eq(iwcm_poll_cq(a.cq, 1, &wc), 0);
	ck_assert_int_eq(iwcm_poll_cq(b.cq, 1, &wc), 0);
	wr = wr_of(IWCM_WR_SEND, 4);
	post(&a, &wr, 1000, 10);
	expect_wc(&a, &b, 4, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&b, &a, 2, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	expect_wc(&b, &a, 3, IWCM_WC_SUCCESS, IWCM_WC_SEND);
	expect_wc(&a, &b, 1, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* The octets the daemon read past the handshake come first: here a
 * whole Send and half of the next FPDU, with markers and CRC. */
START_TEST(test_unread_first)
{
	struct iwcm_synth sa, sb;
	struct mpa_dir d = { .markers = true, .crc = true, .off = 0 };
	struct rdmap_msg m;
	uint8_t ulpdu[64], wire[2][256];
	size_t hl, wl[2], n;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct end a, b;
	uint8_t unread[512];

	manual = _i;
	for (int k = 0; k < 2; k++) {
		memset(&m, 0, sizeof(m));
		m.rv = 1;
		m.ddp.dv = 1;
		m.opcode = RDMAP_SEND;
		m.ddp.qn = 0;
		m.ddp.msn = 1 + (uint32_t)k;
		m.ddp.last = true;
		ck_assert_int_eq(rdmap_hdr_build(&m, ulpdu, sizeof(ulpdu), &hl),
				 WIRE_OK);
		memset(ulpdu + hl, 'a' + k, 10);
		ck_assert_int_eq(mpa_fpdu_build(&d, ulpdu, (uint16_t)(hl + 10),
						wire[k], sizeof(wire[k]),
						&wl[k]),
				 WIRE_OK);
	}
	n = wl[0] + wl[1] / 2;
	memcpy(unread, wire[0], wl[0]);
	memcpy(unread + wl[0], wire[1], wl[1] / 2);

	memset(&sa, 0, sizeof(sa));
	sa.mpa_rev = 1;
	sa.version = 1;
	sa.crc = 1;
	sa.markers_tx = sa.markers_rx = 1;
	sa.ird = sa.ord = 1;
	sb = sa;
	sa.initiator = 1;
	/* A "sent" MSNs 1 and 2 already; B expects 1. */
	sa.next_msn[0] = 3;
	sa.tx_offset = wl[0] + wl[1];
	sb.unread = unread;
	sb.unread_len = n;
	/* The receives are there before the unread Send is read, even by
	 * the progress thread: posted after iwcm_create_qp(), they could
	 * come too late and the Send would end the QP (RFC 5041 §7.2). */
	pre_recv = 3;
	pair_up(&a, &b, &sa, &sb);
	/* The other half of the second FPDU, as if still in flight. */
	ck_assert_int_eq(write(a.qp->fd, wire[1] + wl[1] / 2,
			       wl[1] - wl[1] / 2),
			 (ssize_t)(wl[1] - wl[1] / 2));
	wr = wr_of(IWCM_WR_SEND, 5);
	fill(a.buf, 20, 3);
	post(&a, &wr, 0, 20);
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 10);
	ck_assert_uint_eq(wc.byte_len, 10);
	ck_assert_uint_eq(b.buf[0], 'a');
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 11);
	ck_assert_uint_eq(b.buf[64], 'b');
	wc = wait_wc(&b, &a);
	ck_assert_uint_eq(wc.wr_id, 12);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert(memcmp(b.buf + 128, a.buf, 20) == 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A shared receive queue serves the QP's Sends. */
START_TEST(test_srq)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	struct iwcm_sge sge[2];
	struct iwcm_recv_wr rwr[2];

	manual = _i;
	with_srq = true;
	pair_default(&a, &b);
	/* The receive queue of a QP with an SRQ takes no buffers. */
	sge[0].addr = (uint64_t)(uintptr_t)b.buf;
	sge[0].length = 100;
	sge[0].lkey = iwcm_mr_get_stag(b.mr);
	memset(rwr, 0, sizeof(rwr));
	rwr[0].wr_id = 1;
	rwr[0].next = NULL;
	rwr[0].sg_list = sge;
	rwr[0].num_sge = 1;
	ck_assert_int_eq(iwcm_post_recv(b.qp, rwr, NULL), EINVAL);
	ck_assert_int_eq(iwcm_destroy_srq(b.srq), -1);
	ck_assert_int_eq(errno, EBUSY);
	sge[1] = sge[0];
	sge[1].addr += 100;
	rwr[1] = rwr[0];
	rwr[1].wr_id = 2;
	rwr[1].sg_list = &sge[1];
	rwr[0].next = &rwr[1];
	ck_assert_int_eq(iwcm_post_srq_recv(b.srq, rwr, NULL), 0);
	for (int i = 0; i < 2; i++) {
		fill(a.buf, 50, (uint8_t)i);
		wr = wr_of(IWCM_WR_SEND, 10 + (uint64_t)i);
		post(&a, &wr, 0, 50);
		expect_wc(&a, &b, 10 + (uint64_t)i, IWCM_WC_SUCCESS,
			  IWCM_WC_SEND);
		wc = wait_wc(&b, &a);
		ck_assert_uint_eq(wc.wr_id, 1 + (uint64_t)i);
		ck_assert_uint_eq(wc.byte_len, 50);
		ck_assert(memcmp(b.buf + 100 * i, a.buf, 50) == 0);
	}
	ck_assert_int_eq(iwcm_destroy_qp(b.qp), 0);
	ck_assert_int_eq(iwcm_destroy_srq(b.srq), 0);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* The completion channel wakes a waiter on a solicited completion. */
START_TEST(test_channel_wakeup)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_cq *cq;
	struct iwcm_wc wc;
	void *cctx;

	manual = _i;
	with_channel = true;
	pair_default(&a, &b);
	post_recv(&b, 1, 0, 64);
	post_recv(&b, 2, 0, 64);
	ck_assert_int_eq(iwcm_req_notify_cq(b.cq, 1), 0);
	/* Not solicited: no event yet. */
	wr = wr_of(IWCM_WR_SEND, 3);
	post(&a, &wr, 0, 8);
	expect_wc(&b, &a, 1, IWCM_WC_SUCCESS, IWCM_WC_RECV);
	{
		struct pollfd p = { iwcm_comp_channel_get_fd(b.ch), POLLIN, 0 };

		ck_assert_int_eq(poll(&p, 1, 0), 0);
	}
	wr = wr_of(IWCM_WR_SEND, 4);
	wr.send_flags |= IWCM_SEND_SOLICITED;
	post(&a, &wr, 0, 8);
	/* Blocks: the progress thread, or (manual) the call itself. */
	ck_assert_int_eq(iwcm_get_cq_event(b.ch, &cq, &cctx), 0);
	ck_assert_ptr_eq(cq, b.cq);
	ck_assert_ptr_eq(cctx, &b);
	iwcm_ack_cq_events(cq, 1);
	ck_assert_int_eq(iwcm_poll_cq(b.cq, 1, &wc), 1);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert(wc.wc_flags & IWCM_WC_SOLICITED);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A full CQ: IWCM_EVENT_CQ_ERR once, the QP in error. */
START_TEST(test_cq_overflow)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;

	manual = _i;
	pair_default(&a, &b);
	/* Replace B's CQ by a tiny one on a fresh pair. */
	end_down(&a);
	end_down(&b);
	cq_depth = 256;
	{
		struct iwcm_synth s;
		int sv[2];

		memset(&s, 0, sizeof(s));
		s.version = 1;
		s.mpa_rev = 1;
		s.ird = s.ord = 1;
		ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		s.initiator = 1;
		end_up(&a, sv[0], &s);
		cq_depth = 2;
		s.initiator = 0;
		end_up(&b, sv[1], &s);
		cq_depth = 256;
	}
	for (int i = 0; i < 4; i++)
		post_recv(&b, 10 + (uint64_t)i, 0, 64);
	for (int i = 0; i < 3; i++) {
		wr = wr_of(IWCM_WR_SEND, (uint64_t)i);
		post(&a, &wr, 0, 8);
	}
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_CQ_ERR);
	ck_assert_ptr_eq(ev.cq, b.cq);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* Zero copy and deregistration: octets queued for the socket are copied
 * before iwcm_dereg_mr() returns, so scribbling afterwards is harmless. */
START_TEST(test_dereg_in_flight)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_wc wc;
	const uint32_t n = 700000;
	uint8_t *copy = malloc(n);
	struct iwcm_mr *mr;

	manual = _i;
	pair_default(&a, &b);
	/* A second region over the same memory, deregistered early. */
	mr = iwcm_reg_mr(a.pd, a.buf, n, 0);
	fill(a.buf, n, 42);
	memcpy(copy, a.buf, n);
	post_recv(&b, 1, 0, BUF_LEN);
	{
		struct iwcm_sge sge = { (uint64_t)(uintptr_t)a.buf, n,
					iwcm_mr_get_stag(mr) };

		wr = wr_of(IWCM_WR_SEND, 2);
		wr.sg_list = &sge;
		wr.num_sge = 1;
		ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	}
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	memset(a.buf, 0xEE, n);
	wc = wait_wc(&a, &b);
	ck_assert_uint_eq(wc.wr_id, 2);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	wc = wait_wc(&b, &a);
	ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
	ck_assert_uint_eq(wc.byte_len, n);
	ck_assert(memcmp(b.buf, copy, n) == 0);
	free(copy);
	end_down(&a);
	end_down(&b);
}
END_TEST

/* A region deregistered while a Write is being placed into it: nothing
 * more lands there, the segment is refused with the DDP Terminate. */
START_TEST(test_dereg_mid_placement)
{
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	const uint32_t n = 700000;
	struct iwcm_mr *mr;
	bool clean = true;

	manual = true;
	pair_default(&a, &b);
	mr = iwcm_reg_mr(b.pd, b.buf, n,
			 IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	fill(a.buf, n, 5);
	wr = wr_of(IWCM_WR_RDMA_WRITE, 1);
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)b.buf;
	wr.wr.rdma.rkey = iwcm_mr_get_stag(mr);
	post(&a, &wr, 0, n);
	/* B places what the socket holds, part of the Write. */
	iwcm_progress(b.ctx, 0);
	ck_assert_int_eq(iwcm_dereg_mr(mr), 0);
	memset(b.buf, 0xEE, n);
	ev = wait_async(&b, &a);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
	ck_assert_uint_eq(ev.term_layer, RDMAP_TERM_LAYER_DDP);
	ck_assert_uint_eq(ev.term_etype, DDP_ETYPE_TAGGED);
	ev = wait_async(&a, &b);
	ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
	for (uint32_t i = 0; i < n; i++)
		clean &= b.buf[i] == 0xEE;
	ck_assert(clean);
	end_down(&a);
	end_down(&b);
}
END_TEST

/*
 * A region deregistered under an RDMA Read in flight.  Bit 0 clear: the
 * requester's sink, before the response arrives: the Read completes with
 * IWCM_WC_LOC_PROT_ERR and nothing lands in the region.  Bit 0 set: the
 * responder's source, mid-response: the octets already queued are sent
 * from a copy, the rest is refused with RDMAP Remote Protection, Invalid
 * STag (RFC 5040 §4.8), so the requester sees IWCM_WC_REM_ACCESS_ERR and
 * never an octet written after deregistration.  The Read is larger than
 * the socket buffer and the frames queued together (16 of up to 64 KiB).
 */
START_TEST(test_dereg_read_in_flight)
{
	const uint32_t n = 4u << 20;
	bool source = _i & 1;
	struct end a, b;
	struct iwcm_send_wr wr;
	struct iwcm_async_event ev;
	struct iwcm_sge sge;
	struct iwcm_mr *src, *dst;
	struct iwcm_wc wc;
	uint8_t *sbuf = malloc(n), *dbuf = calloc(1, n), *copy = malloc(n);
	bool clean = true;

	ck_assert_ptr_nonnull(sbuf);
	ck_assert_ptr_nonnull(dbuf);
	ck_assert_ptr_nonnull(copy);
	manual = true;
	pair_default(&a, &b);
	fill(sbuf, n, 4);
	memcpy(copy, sbuf, n);
	src = iwcm_reg_mr(b.pd, sbuf, n, IWCM_ACCESS_REMOTE_READ);
	dst = iwcm_reg_mr(a.pd, dbuf, n, IWCM_ACCESS_LOCAL_WRITE);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	wr = wr_of(IWCM_WR_RDMA_READ, 1);
	sge.addr = (uint64_t)(uintptr_t)dbuf;
	sge.length = n;
	sge.lkey = iwcm_mr_get_stag(dst);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)sbuf;
	wr.wr.rdma.rkey = iwcm_mr_get_stag(src);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	/* b answers what its socket takes; a reads nothing yet. */
	for (int i = 0; i < 20; i++)
		iwcm_progress(b.ctx, 1);
	if (source) {
		ck_assert_int_eq(iwcm_dereg_mr(src), 0);
		memset(sbuf, 0xEE, n);
	} else {
		ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
		memset(dbuf, 0xEE, n);
	}
	wc = wait_wc(&a, &b);
	ck_assert_uint_eq(wc.wr_id, 1);
	ck_assert_int_eq(wc.opcode, IWCM_WC_RDMA_READ);
	if (source) {
		ck_assert_int_eq(wc.status, IWCM_WC_REM_ACCESS_ERR);
		ck_assert_uint_eq(wc.vendor_err,
				  (uint32_t)RDMAP_TERM_LAYER_RDMAP << 16 |
					  RDMAP_ETYPE_REMOTE_PROT << 8 |
					  RDMAP_ECODE_INVALID_STAG);
		ev = wait_async(&b, &a);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ev = wait_async(&a, &b);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		/* What arrived is the region as it was, or nothing. */
		for (uint32_t i = 0; i < n; i++)
			clean &= dbuf[i] == copy[i] || dbuf[i] == 0;
		/* Some of it arrived, not all. */
		ck_assert(memcmp(dbuf, copy, 1000) == 0);
		ck_assert(memcmp(dbuf, copy, n) != 0);
		ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
	} else {
		ck_assert_int_eq(wc.status, IWCM_WC_LOC_PROT_ERR);
		ev = wait_async(&a, &b);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_FATAL);
		ev = wait_async(&b, &a);
		ck_assert_int_eq(ev.type, IWCM_EVENT_QP_TERMINATE);
		for (uint32_t i = 0; i < n; i++)
			clean &= dbuf[i] == 0xEE;
		ck_assert_int_eq(iwcm_dereg_mr(src), 0);
	}
	ck_assert(clean);
	end_down(&a);
	end_down(&b);
	free(sbuf);
	free(dbuf);
	free(copy);
}
END_TEST

/*
 * The same octets registered twice, as MPI does for each rendezvous: a
 * second region over a buffer is registered and deregistered again and
 * again while a 4 MiB RDMA Read (bit 0 clear) or RDMA Write (bit 0 set)
 * is placed into the buffer through the first region.  Deregistering the
 * alias never stops the placement through the other STag (RFC 5042
 * §5.1): the operation completes and every octet arrives.
 */
START_TEST(test_dereg_alias_mid_placement)
{
	const uint32_t n = 4u << 20;
	bool write = _i & 1;
	struct end a, b, *sink;
	struct iwcm_send_wr wr;
	struct iwcm_sge sge;
	struct iwcm_mr *src, *dst;
	struct iwcm_wc wc;
	uint8_t *sbuf = malloc(n), *dbuf = calloc(1, n);
	int64_t end;
	int n_alias = 0, got = 0;

	ck_assert_ptr_nonnull(sbuf);
	ck_assert_ptr_nonnull(dbuf);
	manual = true;
	pair_default(&a, &b);
	fill(sbuf, n, 9);
	/* A Read: a pulls from b's sbuf into its dbuf.  A Write: a pushes
	 * its sbuf into b's dbuf, then a Send says it is all there. */
	sink = write ? &b : &a;
	src = iwcm_reg_mr(write ? a.pd : b.pd, sbuf, n,
			  IWCM_ACCESS_REMOTE_READ);
	dst = iwcm_reg_mr(sink->pd, dbuf, n,
			  IWCM_ACCESS_LOCAL_WRITE | IWCM_ACCESS_REMOTE_WRITE);
	ck_assert_ptr_nonnull(src);
	ck_assert_ptr_nonnull(dst);
	wr = wr_of(write ? IWCM_WR_RDMA_WRITE : IWCM_WR_RDMA_READ, 1);
	sge.addr = (uint64_t)(uintptr_t)(write ? sbuf : dbuf);
	sge.length = n;
	sge.lkey = iwcm_mr_get_stag(write ? src : dst);
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uint64_t)(uintptr_t)(write ? dbuf : sbuf);
	wr.wr.rdma.rkey = iwcm_mr_get_stag(write ? dst : src);
	if (write)
		post_recv(&b, 2, 0, 16);
	ck_assert_int_eq(iwcm_post_send(a.qp, &wr, NULL), 0);
	if (write) {
		wr = wr_of(IWCM_WR_SEND, 2);
		post(&a, &wr, 0, 16);
	}
	end = now_ms() + 20000;
	while (got < (write ? 3 : 1)) {
		struct iwcm_mr *alias;
		int k;

		ck_assert_msg(now_ms() < end, "no completion");
		/* One step of each end, the alias registered across it and
		 * deregistered while the sink may be mid-segment. */
		alias = iwcm_reg_mr(sink->pd, dbuf, n, IWCM_ACCESS_LOCAL_WRITE);
		ck_assert_ptr_nonnull(alias);
		iwcm_progress(a.ctx, 0);
		iwcm_progress(b.ctx, 0);
		ck_assert_int_eq(iwcm_dereg_mr(alias), 0);
		n_alias++;
		while ((k = iwcm_poll_cq(a.cq, 1, &wc)) == 1 ||
		       (k = iwcm_poll_cq(b.cq, 1, &wc)) == 1) {
			ck_assert_int_eq(wc.status, IWCM_WC_SUCCESS);
			got++;
		}
		ck_assert_int_eq(k, 0);
	}
	/* Polling moves data too (cprog.c): a step places up to a read
	 * budget, so the 4 MiB take a few steps, not one. */
	ck_assert_int_gt(n_alias, 2);
	ck_assert(memcmp(sbuf, dbuf, n) == 0);
	ck_assert_int_eq(iwcm_dereg_mr(src), 0);
	ck_assert_int_eq(iwcm_dereg_mr(dst), 0);
	end_down(&a);
	end_down(&b);
	free(sbuf);
	free(dbuf);
}
END_TEST

static Suite *verbs_dp_suite(void)
{
	Suite *s = suite_create("verbs_dp");

	add_loop_tcase(s, "markers_crc", test_markers_crc,
		       2 * ARRAY_SIZE(mk_cases));
	add_loop_tcase(s, "version0", test_version0, 2);
	add_loop_tcase(s, "first_fpdu_fence", test_first_fpdu_fence, 2);
	add_loop_tcase(s, "unread_first", test_unread_first, 2);
	add_loop_tcase(s, "srq", test_srq, 2);
	add_loop_tcase(s, "channel_wakeup", test_channel_wakeup, 2);
	add_loop_tcase(s, "cq_overflow", test_cq_overflow, 2);
	add_loop_tcase(s, "dereg_in_flight", test_dereg_in_flight, 2);
	add_tcase(s, "dereg_mid_placement", test_dereg_mid_placement);
	add_loop_tcase(s, "dereg_read_in_flight", test_dereg_read_in_flight, 2);
	add_loop_tcase(s, "dereg_alias_mid_placement",
		       test_dereg_alias_mid_placement, 2);
	return s;
}

TEST_MAIN(verbs_dp_suite)
