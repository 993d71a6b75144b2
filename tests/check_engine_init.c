/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine as the MPA initiator (RFC 5044 §7.1.2, RFC 6581
 * §8-9): the engine connects to a raw responder written in the test on
 * the loopback; the tests check the exact octets of its Request, RTR and
 * Terminate, and the events and handoff state its client receives.  The
 * RFC 6581 §10 fallback, Rev 0 and the RtR frame: check_engine_legacy.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "conn.h"
#include "engine_peer.h"

/* RFC 5044 §7.1.2 rules 1, 3: the default Request (DESIGN.md: Rev 2, S,
 * C=1, M=0, IRD/ORD 16, A=0 for client-server), an accepting Reply. */
START_TEST(init_v2_client_server)
{
	struct mpa_frame req,
		rep = frame_enh(MPA_FRAME_REP, 0, false, 0, 16, 16, "srv");
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	uint64_t id;
	int lfd, peer;

	env_setup();
	id = init_start(&lfd, &peer, NULL);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "50 02 0004 0010 0010");
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->conn_id, id);
	ck_assert(e->initiator);
	ck_assert_uint_eq(e->mpa_rev, 2);
	ck_assert(e->enhanced && !e->p2p);
	ck_assert(e->crc);
	ck_assert(!e->markers_tx && !e->markers_rx);
	ck_assert_uint_eq(e->rtr_type, 0);
	ck_assert(!e->wait_first_fpdu);
	ck_assert_uint_eq(e->ird, 16);
	ck_assert_uint_eq(e->ord, 16);
	ck_assert_uint_eq(e->tx_offset, 0);
	ck_assert_uint_eq(e->rx_offset, 0);
	ck_assert_uint_eq(e->peer_info->private_data.len, 3);
	ck_assert_mem_eq(e->peer_info->private_data.data, "srv", 3);
	ck_assert_uint_eq(e->peer_info->flags, MPA_FLAG_S);
	assert_msn(e, 1, 1);
	iwcm__established__free_unpacked(e, NULL);
	ck_assert(peer_idle(peer)); /* client-server: no RTR */
	env_assert_handed(&E.recs[0], peer);
	ck_assert_uint_eq(iwcmd_stats.connects, 1);
	ck_assert_uint_eq(iwcmd_stats.established, 1);
	init_end(lfd, peer);
}
END_TEST

START_TEST(init_v1)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_v(MPA_FRAME_REP, 1, 0, NULL);
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_mpa_rev = 1;
	p.mpa_rev = 1;
	set_pd(&p, "hello", 5);
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "40 01 0005 68656c6c6f");
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->mpa_rev, 1);
	ck_assert(!e->enhanced && !e->p2p);
	ck_assert(e->crc);
	ck_assert(!e->wait_first_fpdu);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[0], peer);
	init_end(lfd, peer);
}
END_TEST

/* RFC 6581 §9.2-9.3: A=1 with Write and Read offered (C|D); the Reply
 * picks Write; the zero-length Write RTR, STag 1, is the first FPDU. */
START_TEST(init_p2p_write)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "50 02 0004 8010 c010");
	peer_send_frame(peer, &rep);
	ck_assert_uint_eq(peer_read_fpdu(peer, &rx, raw, u, &info), 20);
	ck_assert(info.crc_ok);
	assert_hex(raw, 16, "000e c1 40 00000001 0000000000000000");
	e = rec_established(env_wait_rec(1));
	ck_assert(e->p2p);
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_WRITE);
	ck_assert_uint_eq(e->tx_offset, 20);
	ck_assert_uint_eq(e->rx_offset, 0);
	assert_msn(e, 1, 1);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[0], peer);
	init_end(lfd, peer);
}
END_TEST

/*
 * first_fpdu_delay_ms (docs/interop.md, Linux siw's responder race): the
 * first FPDU after the accepting Reply waits.  Loop 0 client-server (the
 * handoff waits), 1 the Write RTR, 2 the Read RTR, 3 the same with the
 * delay from iwcmd.conf instead of the connect: nothing reaches the
 * peer or the client for the first 150 ms of a 400 ms hold, then all
 * goes on as without it.
 */
START_TEST(init_hold)
{
	static const uint8_t rtr[] = { 0, MPA_RTR_WRITE, MPA_RTR_READ,
				       MPA_RTR_WRITE };
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, _i != 0,
					      rtr[_i], 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	uint64_t t0;
	size_t n;
	int lfd, peer;

	env_setup();
	p.has_p2p = _i != 0;
	p.p2p = _i != 0;
	if (_i == 3) {
		E.conf.first_fpdu_delay_ms = 400;
	} else {
		p.has_first_fpdu_delay_ms = 1;
		p.first_fpdu_delay_ms = 400;
	}
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	t0 = iwcmd_now_ms();
	env_pump(150);
	ck_assert(peer_idle(peer));
	ck_assert_int_eq(E.n_recs, 0);
	if (_i) {
		n = peer_read_fpdu(peer, &rx, raw, u, &info);
		ck_assert(info.crc_ok);
		ck_assert_uint_eq(n, rtr[_i] == MPA_RTR_READ ? 52 : 20);
	}
	if (rtr[_i] == MPA_RTR_READ) {
		n = peer_rtr_ulpdu(RDMAP_READ_RESP, 1, u);
		peer_send_fpdu(peer, &tx, u, n);
	}
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_ge(iwcmd_now_ms() - t0, 390);
	ck_assert_uint_eq(e->rtr_type, rtr[_i]);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[0], peer);
	/* a hold is no timeout */
	ck_assert_uint_eq(iwcmd_stats.timeouts, 0);
	ck_assert_uint_eq(iwcmd_stats.established, 1);
	init_end(lfd, peer);
}
END_TEST

/* The Read RTR: QN 1 MSN 1, non-zero sink and source STags, size 0; no
 * handoff before the zero-length Read Response. */
START_TEST(init_p2p_read)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, MPA_FLAG_C, true,
					      MPA_RTR_READ, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	size_t n;
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	ck_assert_uint_eq(peer_read_fpdu(peer, &rx, raw, u, &info), 52);
	ck_assert(info.crc_ok);
	assert_hex(raw, 48,
		   "002e 41 41 00000000 00000001 00000001 00000000"
		   "00000001 0000000000000000 00000000"
		   "00000001 0000000000000000");
	env_pump(20);
	ck_assert_int_eq(E.n_recs, 0);
	n = peer_rtr_ulpdu(RDMAP_READ_RESP, 1, u);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 20);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_READ);
	ck_assert_uint_eq(e->tx_offset, 52);
	ck_assert_uint_eq(e->rx_offset, 20);
	assert_msn(e, 1, 2);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[0], peer);
	init_end(lfd, peer);
}
END_TEST

/* Send offered only on request (B); the zero-length Send on QN 0. */
START_TEST(init_p2p_send)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_SEND, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	p.has_rtr_types = 1;
	p.rtr_types = MPA_RTR_SEND;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "50 02 0004 c010 0010");
	peer_send_frame(peer, &rep);
	ck_assert_uint_eq(peer_read_fpdu(peer, &rx, raw, u, &info), 24);
	assert_hex(raw, 20, "0012 41 43 00000000 00000000 00000001 00000000");
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_SEND);
	ck_assert_uint_eq(e->tx_offset, 24);
	assert_msn(e, 2, 1);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* The Reply's M=1: the RTR starts with marker 0 (RFC 5044 §7.1.2 rule
 * 7) and tx_offset counts it. */
START_TEST(init_markers_tx)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, MPA_FLAG_M, true,
					      MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir rx = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	ck_assert_uint_eq(peer_read_fpdu(peer, &rx, raw, u, &info), 24);
	ck_assert(info.crc_ok && info.markers_ok);
	assert_hex(raw, 20, "00000000 000e c1 40 00000001 0000000000000000");
	e = rec_established(env_wait_rec(1));
	ck_assert(e->markers_tx && !e->markers_rx);
	ck_assert_uint_eq(e->tx_offset, 24);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* markers asked for (M=1 in the Request): the Read Response arrives
 * with marker 0 and rx_offset counts it. */
START_TEST(init_markers_rx)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_READ, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir tx = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	size_t n;
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	p.has_markers = 1;
	p.markers = 1;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "d0 02 0004 8010 c010");
	peer_send_frame(peer, &rep);
	peer_read_fpdu(peer, &rx, raw, u, &info);
	n = peer_rtr_ulpdu(RDMAP_READ_RESP, 1, u);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 24);
	e = rec_established(env_wait_rec(1));
	ck_assert(e->markers_rx && !e->markers_tx);
	ck_assert_uint_eq(e->rx_offset, 24);
	ck_assert_uint_eq(e->tx_offset, 52);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* C=0 on both sides: no CRC, the CRC field is sent as zeros. */
START_TEST(init_crc_off)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = false, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	p.has_crc = 1;
	p.crc = IWCM__CRC_POLICY__CRC_PREFER_OFF;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "10 02 0004 8010 c010");
	peer_send_frame(peer, &rep);
	ck_assert_uint_eq(peer_read_fpdu(peer, &rx, raw, u, &info), 20);
	assert_hex(raw, 20, "000e c1 40 00000001 0000000000000000 00000000");
	e = rec_established(env_wait_rec(1));
	ck_assert(!e->crc);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* RFC 6581 §9.1 on the initiator: IRD at least the responder's ORD, ORD
 * at most its IRD, 0x3FFF in either position leaves a value alone. */
static const struct {
	int ird, ord;		   /* connect params, -1: default */
	const char *word;	   /* the Request's enhanced word */
	uint16_t rep_ird, rep_ord; /* the Reply's */
	uint16_t fin_ird, fin_ord; /* handed off */
} irdord_tab[] = {
	{ 0x3FFF, 0x3FFF, "3fff 3fff", 0x3FFF, 0x3FFF, 0x3FFF, 0x3FFF },
	{ -1, -1, "0010 0010", 8, 32, 32, 8 },
	{ -1, -1, "0010 0010", 0x3FFF, 0x3FFF, 16, 16 },
	{ 4, 0x3FFF, "0004 3fff", 2, 2, 4, 0x3FFF },
	{ 0x3FFF, 6, "3fff 0006", 9, 100, 0x3FFF, 6 },
};

START_TEST(init_irdord)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, false, 0,
					      irdord_tab[_i].rep_ird,
					      irdord_tab[_i].rep_ord, NULL);
	char want[128];
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	if (irdord_tab[_i].ird >= 0) {
		p.has_ird = p.has_ord = 1;
		p.ird = (uint32_t)irdord_tab[_i].ird;
		p.ord = (uint32_t)irdord_tab[_i].ord;
	}
	init_start(&lfd, &peer, &p);
	snprintf(want, sizeof(want), "%s 50 02 0004 %s", REQ_KEY,
		 irdord_tab[_i].word);
	assert_hex(raw, init_request(peer, raw, &req), want);
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->ird, irdord_tab[_i].fin_ird);
	ck_assert_uint_eq(e->ord, irdord_tab[_i].fin_ord);
	ck_assert_uint_eq(e->peer_info->ird, irdord_tab[_i].rep_ird);
	ck_assert_uint_eq(e->peer_info->ord, irdord_tab[_i].rep_ord);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* RFC 6581 §9.1 strict: the responder's ORD beyond our IRD: TERM code 6
 * as the first FPDU, then close. */
START_TEST(init_term6)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req,
		rep = frame_enh(MPA_FRAME_REP, 0, false, 0, 16, 8, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	E.conf.policy.irdord = CONF_IRDORD_STRICT;
	p.has_ird = 1;
	p.ird = 4;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	peer_expect_term(peer, &rx, MPA_ECODE_INSUFFICIENT_IRD);
	ck_assert(peer_wait_closed(peer, 1000));
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	ck_assert_uint_eq(ce->term_layer, 2);
	ck_assert_uint_eq(ce->term_etype, 0);
	ck_assert_uint_eq(ce->term_ecode, 6);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(iwcmd_stats.term_sent[6], 1);
	init_end(lfd, peer);
}
END_TEST

/* RFC 6581 §9.2: none of the offered RTR types came back (here only B),
 * or A was not echoed: TERM code 7. */
START_TEST(init_term7)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep;
	struct mpa_dir rx = { .markers = true, .crc = true, .off = 0 };
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_p2p = 1;
	p.p2p = 1;
	rep = frame_enh(MPA_FRAME_REP, MPA_FLAG_M, _i == 0, MPA_RTR_SEND, 16,
			16, NULL);
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	/* markers toward the responder: the TERM starts with marker 0 */
	peer_expect_term(peer, &rx, MPA_ECODE_NO_MATCHING_RTR);
	ck_assert(peer_wait_closed(peer, 1000));
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->term_ecode, 7);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(iwcmd_stats.term_sent[7], 1);
	init_end(lfd, peer);
}
END_TEST

/* RFC 5044 §7.1.2 rule 3, RFC 6581 §9.1: a rejecting Reply; the client
 * gets the peer's Private Data and raw IRD/ORD. */
START_TEST(init_rejected)
{
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, MPA_FLAG_R, false,
					      0, 3, 5, "busy");
	Iwcm__Rejected *j;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	j = rec_rejected(env_wait_rec(1));
	ck_assert_uint_eq(j->result, IWCM__RESULT__RES_EREJECTED);
	ck_assert_ptr_nonnull(j->peer_info);
	ck_assert_uint_eq(j->peer_info->ird, 3);
	ck_assert_uint_eq(j->peer_info->ord, 5);
	ck_assert_uint_eq(j->peer_info->private_data.len, 4);
	ck_assert_mem_eq(j->peer_info->private_data.data, "busy", 4);
	iwcm__rejected__free_unpacked(j, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.rejected_peer, 1);
	init_end(lfd, peer);
}
END_TEST

/* RFC 5044 §7.1.2 rule 9 on the Reply: 512 taken, 513 closes. */
START_TEST(init_reply_pd)
{
	static char pd[513];
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep;
	Iwcm__Established *e;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_mpa_rev = 1;
	p.mpa_rev = 1;
	memset(pd, 'r', 512);
	rep = frame_v(MPA_FRAME_REP, 1, 0, pd);
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->peer_info->private_data.len, 512);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	close(lfd);

	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	test_hex(REP_KEY "00 01 0201", raw, 20);
	peer_send(peer, raw, 20);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	init_end(lfd, peer);
}
END_TEST

/* RFC 5044 §7.1.2 rules 5 and 8: a bad key, and a Request where the
 * Reply belongs (Initiator/Initiator). */
START_TEST(init_bad_key)
{
	struct mpa_frame req, other = frame_enh(MPA_FRAME_REQ, MPA_FLAG_C,
						false, 0, 1, 1, NULL);
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	peer_send(peer, "MPA ID Rex Frame", 16);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	close(peer);
	close(lfd);

	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &other);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	ck_assert_ptr_nonnull(strstr(ce->reason, "initiator/initiator"));
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.bad_frames, 2);
	init_end(lfd, peer);
}
END_TEST

/* RFC 5044 §7.1.2 rule 10: the reply timeout (per connect here). */
START_TEST(init_reply_timeout)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	E.conf.reply_timeout_ms = 5000;
	p.has_reply_timeout_ms = 1;
	p.reply_timeout_ms = 100;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ETIMEDOUT);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.timeouts, 1);
	init_end(lfd, peer);
}
END_TEST

/* The RTR timeout while the Read Response is awaited. */
START_TEST(init_read_resp_timeout)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_READ, 16, 16, NULL);
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	E.conf.rtr_timeout_ms = 100;
	p.has_p2p = 1;
	p.p2p = 1;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ETIMEDOUT);
	iwcm__conn_error__free_unpacked(ce, NULL);
	init_end(lfd, peer);
}
END_TEST

/* A responder that sends its first FPDU right behind the Reply: not an
 * error (Linux siw's strict check broke real connections); the octets
 * stay in the socket, where the datapath reads them first. */
START_TEST(init_glued)
{
	struct mpa_frame req,
		rep = frame_enh(MPA_FRAME_REP, 0, false, 0, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	uint8_t raw[MPA_FRAME_MAX], all[256], u[64];
	Iwcm__Established *e;
	size_t n, len, w;
	int lfd, peer;

	env_setup();
	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	ck_assert_int_eq(mpa_frame_build(&rep, all, sizeof(all), &len),
			 WIRE_OK);
	n = peer_rtr_ulpdu(RDMAP_SEND, 0, u);
	ck_assert_int_eq(mpa_fpdu_build(&tx, u, (uint16_t)n, all + len,
					sizeof(all) - len, &w),
			 WIRE_OK);
	peer_send(peer, all, len + w);
	e = rec_established(env_wait_rec(1));
	ck_assert(!e->has_unread);
	env_assert_fd_starts(&E.recs[0], all + len, w);
	ck_assert_uint_eq(e->rx_offset, 0);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* Nothing listens: UNREACHABLE with ECONNREFUSED. */
START_TEST(init_unreachable)
{
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst;
	Iwcm__ConnError *ce;
	uint8_t ab[4];
	uint16_t port;
	uint64_t id;
	int lfd;

	env_setup();
	lfd = tcp_listen(&port);
	close(lfd);
	env_sockaddr(&dst, ab, port);
	c.dst = &dst;
	ck_assert_int_eq(env_connect(&E.client, &c, &id), IWCM__RESULT__RES_OK);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(E.recs[0].type, IPC_EVENT_UNREACHABLE);
	ck_assert_uint_eq(ce->conn_id, id);
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNREFUSED);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(iwcmd_stats.unreachable, 1);
	env_teardown();
}
END_TEST

/* What a Connect may ask: PD over pd_send_max is sent when asked for,
 * never past 512 with the enhanced word; IRD/ORD 14 bits; A needs Rev 2. */
START_TEST(init_params)
{
	static uint8_t pd[509];
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Connect c = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst;
	struct mpa_frame req;
	uint8_t raw[MPA_FRAME_MAX], ab[4];
	uint64_t id;
	int lfd, peer;

	env_setup();
	env_sockaddr(&dst, ab, 9);
	c.dst = &dst;
	c.params = &p;
	set_pd(&p, pd, 509);
	ck_assert_int_eq(env_connect(&E.client, &c, &id),
			 IWCM__RESULT__RES_EINVAL);
	p.has_private_data = 0;
	p.has_ird = 1;
	p.ird = 0x4000;
	ck_assert_int_eq(env_connect(&E.client, &c, &id),
			 IWCM__RESULT__RES_EINVAL);
	p.has_ird = 0;
	p.has_p2p = p.p2p = p.has_mpa_rev = 1;
	p.mpa_rev = 1;
	ck_assert_int_eq(env_connect(&E.client, &c, &id),
			 IWCM__RESULT__RES_EINVAL);
	dst.addr.len = 3;
	ck_assert_int_eq(env_connect(&E.client, &c, &id),
			 IWCM__RESULT__RES_EINVAL);
	ck_assert_uint_eq(conn_count(), 0);

	memset(&p, 0, sizeof(p));
	iwcm__conn_params__init(&p);
	set_pd(&p, pd, 300);
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	ck_assert_uint_eq(req.pd_len, 304);
	init_end(lfd, peer);
}
END_TEST

/* iwcmctl connect: the raw frames and the outcome, then RESULT. */
START_TEST(init_force)
{
	Iwcm__Ctl__ForceConnect fc = IWCM__CTL__FORCE_CONNECT__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_enh(MPA_FRAME_REP, 0, true,
					      MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	Iwcm__Ctl__NegotiationReport *nr;
	Iwcm__Ctl__Result *res;
	struct mpa_fpdu_info info;
	Iwcm__SockAddr dst;
	uint8_t raw[MPA_FRAME_MAX], u[256], ab[4];
	uint16_t port;
	size_t n;
	int lfd, peer;

	env_setup();
	lfd = tcp_listen(&port);
	env_sockaddr(&dst, ab, port);
	fc.dst = &dst;
	fc.params = &p;
	p.has_p2p = p.p2p = 1;
	ck_assert_int_eq(env_force(&E.admin, 42, &fc), IWCM__RESULT__RES_OK);
	peer = tcp_accept(lfd);
	n = init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	peer_read_fpdu(peer, &rx, u + 64, u, &info);
	env_wait_rec(2);
	ck_assert_uint_eq(E.recs[0].type, IPC_CTL_NEGOTIATION);
	ck_assert_uint_eq(E.recs[0].reqid, 42);
	ck_assert_ptr_eq(E.recs[0].to, &E.admin);
	ck_assert_int_eq(E.recs[0].fd, -1);
	nr = iwcm__ctl__negotiation_report__unpack(NULL, E.recs[0].len,
						   E.recs[0].body);
	ck_assert_ptr_nonnull(nr);
	ck_assert_uint_eq(nr->request.len, n);
	ck_assert_mem_eq(nr->request.data, raw, n);
	ck_assert_uint_eq(nr->reply.len, 24);
	ck_assert_uint_eq(nr->rtr.len, 20);
	ck_assert_ptr_nonnull(nr->result);
	ck_assert_uint_eq(nr->result->rtr_type, MPA_RTR_WRITE);
	ck_assert(!nr->has_error);
	iwcm__ctl__negotiation_report__free_unpacked(nr, NULL);
	ck_assert_uint_eq(E.recs[1].type, IPC_RESULT);
	ck_assert_uint_eq(E.recs[1].reqid, 42);
	res = iwcm__ctl__result__unpack(NULL, E.recs[1].len, E.recs[1].body);
	ck_assert_uint_eq(res->result, IWCM__RESULT__RES_OK);
	iwcm__ctl__result__free_unpacked(res, NULL);
	/* the daemon closes the forced connection */
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.connects, 0);
	init_end(lfd, peer);
}
END_TEST

/* The client is gone as the Established is sent: the daemon closes. */
START_TEST(init_handoff_fails)
{
	struct mpa_frame req,
		rep = frame_enh(MPA_FRAME_REP, 0, false, 0, 16, 16, NULL);
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	E.fail_type = IPC_EVENT_ESTABLISHED;
	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(conn_count(), 0);
	ck_assert_int_eq(E.n_recs, 0);
	ck_assert_uint_eq(iwcmd_stats.established, 0);
	init_end(lfd, peer);
}
END_TEST

/* The client disconnects before the handoff (no event follows), or an
 * administrator kills the connection (ERROR). */
START_TEST(init_disconnect_kill)
{
	struct mpa_frame req;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	uint64_t id;
	int lfd, peer;

	env_setup();
	id = init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	ck_assert_int_eq(conn_disconnect(&E.admin, id),
			 IWCM__RESULT__RES_ENOENT);
	ck_assert_int_eq(conn_disconnect(&E.client, id), IWCM__RESULT__RES_OK);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 0);
	ck_assert_uint_eq(conn_count(), 0);
	close(peer);
	close(lfd);

	id = init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	ck_assert_int_eq(conn_kill(id + 100), IWCM__RESULT__RES_ENOENT);
	ck_assert_int_eq(conn_kill(id), IWCM__RESULT__RES_OK);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNRESET);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	init_end(lfd, peer);
}
END_TEST

/*
 * More events posted than the old 8-slot queue held: none is dropped,
 * they run in order (START_CONNECT first, then the first kill's ABORT)
 * and the connection ends with one ERROR.
 */
START_TEST(init_post_many)
{
	struct mpa_frame req;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	uint64_t id;
	Iwcm__Connect cn = IWCM__CONNECT__INIT;
	Iwcm__SockAddr dst;
	uint8_t ab[4];
	uint16_t port;
	struct conn *c;
	int lfd, peer, i;

	env_setup();
	id = init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	c = conn_find(id);
	ck_assert_ptr_nonnull(c);
	ck_assert_uint_eq(conn_post_pending(c), 0);
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(conn_kill(id), IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(conn_post_pending(c), 20);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNRESET);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(conn_count(), 0);
	env_pump(20);
	ck_assert_int_eq(E.n_recs, 1);

	/* posted before START_CONNECT ran: it stays first */
	E.n_recs = 0;
	close(peer);
	close(lfd);
	lfd = tcp_listen(&port);
	env_sockaddr(&dst, ab, port);
	cn.dst = &dst;
	ck_assert_int_eq(env_connect(&E.client, &cn, &id),
			 IWCM__RESULT__RES_OK);
	c = conn_find(id);
	ck_assert_ptr_nonnull(c);
	for (i = 0; i < 20; i++)
		ck_assert_int_eq(conn_kill(id), IWCM__RESULT__RES_OK);
	ck_assert_uint_eq(conn_post_pending(c), 21);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNRESET);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(conn_count(), 0);
	env_pump(20);
	ck_assert_int_eq(E.n_recs, 1);
	close(lfd);
	env_teardown();
}
END_TEST

static Suite *engine_init_suite(void)
{
	Suite *s = suite_create("engine_init");

	add_tcase(s, "v2 client-server", init_v2_client_server);
	add_tcase(s, "v1", init_v1);
	add_tcase(s, "p2p Write RTR", init_p2p_write);
	add_tcase(s, "p2p Read RTR", init_p2p_read);
	add_tcase(s, "p2p Send RTR", init_p2p_send);
	add_loop_tcase(s, "hold", init_hold, 4);
	add_tcase(s, "markers tx", init_markers_tx);
	add_tcase(s, "markers rx", init_markers_rx);
	add_tcase(s, "CRC off", init_crc_off);
	add_loop_tcase(s, "IRD/ORD", init_irdord, ARRAY_SIZE(irdord_tab));
	add_tcase(s, "TERM 6", init_term6);
	add_loop_tcase(s, "TERM 7", init_term7, 2);
	add_tcase(s, "rejected", init_rejected);
	add_tcase(s, "Reply PD", init_reply_pd);
	add_tcase(s, "bad key", init_bad_key);
	add_tcase(s, "reply timeout", init_reply_timeout);
	add_tcase(s, "Read Response timeout", init_read_resp_timeout);
	add_tcase(s, "glued", init_glued);
	add_tcase(s, "unreachable", init_unreachable);
	add_tcase(s, "params", init_params);
	add_tcase(s, "force", init_force);
	add_tcase(s, "disconnect, kill", init_disconnect_kill);
	add_tcase(s, "handoff fails", init_handoff_fails);
	add_tcase(s, "post many", init_post_many);
	return s;
}

TEST_MAIN(engine_init_suite)
