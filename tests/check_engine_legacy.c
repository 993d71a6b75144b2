/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine with peers of other generations, both ways: the
 * RFC 6581 §10 fallback to a Rev 1 Request when an unenhanced responder
 * closes, RDMA Consortium Rev 0 (seed 002) under the permissive and
 * strict policies, and the 2007 RtR frame (seed 003) as initiator and
 * responder, each against a raw peer on the loopback.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "conn.h"
#include "engine_peer.h"

/* RFC 6581 §10: an unenhanced responder closes on the enhanced Request;
 * with enhanced_fallback the engine reconnects with a Rev 1 Request. */
START_TEST(init_fallback)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rep = frame_v(MPA_FRAME_REP, 1, 0, NULL);
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	uint64_t id;
	int lfd, peer;

	env_setup();
	p.has_enhanced_fallback = 1;
	p.enhanced_fallback = 1;
	set_pd(&p, "pd", 2);
	id = init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	ck_assert(req.enhanced);
	close(peer); /* what an RFC 5044-only responder does */
	peer = tcp_accept(lfd);
	assert_hex(raw, init_request(peer, raw, &req),
		   REQ_KEY "40 01 0002 7064");
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->conn_id, id);
	ck_assert_uint_eq(e->mpa_rev, 1);
	ck_assert(!e->enhanced);
	iwcm__established__free_unpacked(e, NULL);
	ck_assert_uint_eq(iwcmd_stats.fallbacks, 1);
	init_end(lfd, peer);
}
END_TEST

START_TEST(init_no_fallback)
{
	struct mpa_frame req;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	init_start(&lfd, &peer, NULL);
	init_request(peer, raw, &req);
	close(peer);
	ce = rec_error(env_wait_rec(1));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNRESET);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(iwcmd_stats.fallbacks, 0);
	close(lfd);
	env_teardown();
}
END_TEST

/* Seed 002: an RDMAC (Rev 0) Request, M=1 C=1, version 0 after it. */
START_TEST(init_rev0)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req,
		rep = frame_v(MPA_FRAME_REP, 0, MPA_FLAG_M | MPA_FLAG_C, NULL);
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_mpa_rev = 1;
	p.mpa_rev = 0;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req), REQ_KEY "c0 00 0000");
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->mpa_rev, 0);
	ck_assert_uint_eq(e->ddp_version, 0);
	ck_assert_uint_eq(e->rdmap_version, 0);
	ck_assert(e->markers_tx && e->markers_rx && e->crc);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* Seed 002 §5.3.2 / §5.2.2: a Rev 0 Reply to a Rev 1 Request switches to
 * version 0 with markers and CRC under permissive, closes under strict. */
START_TEST(init_rev0_reply)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req,
		rep = frame_v(MPA_FRAME_REP, 0, MPA_FLAG_M | MPA_FLAG_C, NULL);
	Iwcm__Established *e;
	Iwcm__ConnError *ce;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_mpa_rev = 1;
	p.mpa_rev = 1;
	p.has_rev0 = 1;
	p.rev0 = IWCM__REV0_POLICY__REV0_PERMISSIVE;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	e = rec_established(env_wait_rec(1));
	ck_assert_uint_eq(e->mpa_rev, 0);
	ck_assert_uint_eq(e->ddp_version, 0);
	ck_assert(e->markers_tx && e->markers_rx && e->crc);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	close(lfd);

	p.rev0 = IWCM__REV0_POLICY__REV0_STRICT;
	init_start(&lfd, &peer, &p);
	init_request(peer, raw, &req);
	peer_send_frame(peer, &rep);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	init_end(lfd, peer);
}
END_TEST

/* Seed 003: S=1 in a Rev 1 Request; the Reply's S=1 says the responder
 * waits for the "MPA ID RtR Frame" (C as in the Reply, no PD). */
START_TEST(init_rtr_frame)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	struct mpa_frame req, rtr,
		rep = frame_v(MPA_FRAME_REP, 1, MPA_FLAG_C | MPA_FLAG_S, NULL);
	Iwcm__Established *e;
	uint8_t raw[MPA_FRAME_MAX];
	int lfd, peer;

	env_setup();
	p.has_rtr_frame = 1;
	p.rtr_frame = 1;
	init_start(&lfd, &peer, &p);
	assert_hex(raw, init_request(peer, raw, &req), REQ_KEY "50 01 0000");
	peer_send_frame(peer, &rep);
	assert_hex(raw, peer_read_frame(peer, raw, &rtr),
		   "4d504120494420527452204672616d65 40 01 0000");
	ck_assert_int_eq(rtr.type, MPA_FRAME_RTR);
	e = rec_established(env_wait_rec(1));
	ck_assert(e->rtr_frame);
	ck_assert_uint_eq(e->tx_offset, 0);
	iwcm__established__free_unpacked(e, NULL);
	init_end(lfd, peer);
}
END_TEST

/* Seed 002 §5.3 / RFC 5044 App. C: permissive answers Rev 0 with Rev 0,
 * M=1, C=1, version 0; strict closes. */
START_TEST(resp_rev0)
{
	struct mpa_frame req =
		frame_v(MPA_FRAME_REQ, 0, MPA_FLAG_M | MPA_FLAG_C, NULL);
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.rev0 = CONF_REV0_PERMISSIVE;
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n, REP_KEY "c0 00 0000");
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->mpa_rev, 0);
	ck_assert_uint_eq(e->ddp_version, 0);
	ck_assert_uint_eq(e->rdmap_version, 0);
	ck_assert(e->markers_tx && e->markers_rx && e->crc);
	ck_assert(e->wait_first_fpdu);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

START_TEST(resp_rev0_strict)
{
	struct mpa_frame req =
		frame_v(MPA_FRAME_REQ, 0, MPA_FLAG_M | MPA_FLAG_C, NULL);
	int peer;

	env_setup();
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send_frame(peer, &req);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 0);
	close(peer);
	env_teardown();
}
END_TEST

/* Seed 003: the "MPA ID RtR Frame" after the Reply, only when the
 * listener runs that mode; otherwise S is ignored (v1 fencing). */
START_TEST(resp_rtr_frame)
{
	struct mpa_frame req =
		frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C | MPA_FLAG_S, NULL);
	struct mpa_frame rtr = frame_v(MPA_FRAME_RTR, 1, MPA_FLAG_C, NULL);
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.rtr_frame = true;
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n, REP_KEY "50 01 0000");
	env_pump(20);
	ck_assert_int_eq(E.n_recs, 1);
	peer_send_frame(peer, &rtr);
	e = rec_established(env_wait_rec(2));
	ck_assert(e->rtr_frame);
	ck_assert(!e->wait_first_fpdu);
	ck_assert_uint_eq(e->rx_offset, 0);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);

	/* a listener not in that mode: S is reserved, rule 4 applies */
	E.lis.policy.rtr_frame = false;
	close(E.recs[1].fd);
	E.n_recs = 0;
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n, REP_KEY "40 01 0000");
	e = rec_established(env_wait_rec(2));
	ck_assert(!e->rtr_frame);
	ck_assert(e->wait_first_fpdu);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

static Suite *engine_legacy_suite(void)
{
	Suite *s = suite_create("engine_legacy");

	add_tcase(s, "fallback", init_fallback);
	add_tcase(s, "no fallback", init_no_fallback);
	add_tcase(s, "Rev 0", init_rev0);
	add_tcase(s, "Rev 0 Reply", init_rev0_reply);
	add_tcase(s, "RtR frame", init_rtr_frame);
	add_tcase(s, "responder Rev 0", resp_rev0);
	add_tcase(s, "responder Rev 0 strict", resp_rev0_strict);
	add_tcase(s, "responder RtR frame", resp_rtr_frame);
	return s;
}

TEST_MAIN(engine_legacy_suite)
