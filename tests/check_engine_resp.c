/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine as the MPA responder (RFC 5044 §7.1.2, RFC 6581
 * §9): a raw initiator written in the test sends frames and RTRs over a
 * real TCP connection on the loopback; the tests check the exact octets
 * of the engine's Reply, Read Response and Terminate, and the events and
 * handoff state its client receives.  Rev 0 and the RtR frame (seeds 002
 * and 003): check_engine_legacy.
 */
#include "config.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"

#include "crc32c.h"
#include "conn.h"
#include "engine_peer.h"

/* The handed fd is the connection: octets from the peer arrive on it. */
/* RFC 5044 §7.1.2 rules 2, 4, 6: a v1 client-server startup. */
START_TEST(resp_v1_client_server)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, "hello");
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__ConnectRequest *q;
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	uint64_t id;
	int peer;

	env_setup();
	id = resp_start(&peer, &req);
	q = rec_request(&E.recs[0]);
	ck_assert_uint_eq(q->peer_info->mpa_rev, 1);
	ck_assert_uint_eq(q->peer_info->flags, MPA_FLAG_C);
	ck_assert(!q->peer_info->enhanced);
	ck_assert_uint_eq(q->peer_info->private_data.len, 5);
	ck_assert_mem_eq(q->peer_info->private_data.data, "hello", 5);
	iwcm__connect_request__free_unpacked(q, NULL);
	ck_assert_uint_eq(E.lis.pending, 1);
	ck_assert_uint_eq(conn_uid_pending(E.client.uid), 1);

	p.has_private_data = 1;
	p.private_data.data = (uint8_t *)"ok";
	p.private_data.len = 2;
	resp_accept(id, &p);
	n = peer_read_frame(peer, raw, &rep);
	/* key, M=0 C=1 R=0 S=0, Rev 1, PD_Length 2, "ok" */
	assert_hex(raw, n, REP_KEY "40 01 0002 6f6b");

	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->conn_id, id);
	ck_assert(!e->initiator);
	ck_assert_uint_eq(e->mpa_rev, 1);
	ck_assert_uint_eq(e->ddp_version, 1);
	ck_assert_uint_eq(e->rdmap_version, 1);
	ck_assert(!e->enhanced && !e->p2p);
	ck_assert(e->crc);
	ck_assert(!e->markers_tx && !e->markers_rx);
	ck_assert_uint_eq(e->rtr_type, 0);
	/* rule 4: no RTR, the datapath waits for the first FPDU */
	ck_assert(e->wait_first_fpdu);
	ck_assert_uint_eq(e->tx_offset, 0);
	ck_assert_uint_eq(e->rx_offset, 0);
	ck_assert(!e->has_unread);
	assert_msn(e, 1, 1);
	ck_assert_uint_eq(e->peer_info->private_data.len, 5);
	ck_assert_uint_eq(e->local->addr.len, 4);
	ck_assert_uint_eq(e->peer->addr.len, 4);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[1], peer);
	ck_assert_uint_eq(E.lis.pending, 0);
	ck_assert_uint_eq(conn_uid_pending(E.client.uid), 0);
	ck_assert_uint_eq(iwcmd_stats.accepted, 1);
	ck_assert_uint_eq(iwcmd_stats.established, 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §9.1-9.2: enhanced, client-server (A=0): no RTR. */
START_TEST(resp_v2_client_server)
{
	struct mpa_frame req = req_enh(MPA_FLAG_C, false, 0, 4, 8, "hi");
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	/* C|S, Rev 2, PD 4: IRD max(16, 8) = 16, ORD min(16, 4) = 4 */
	assert_hex(raw, n,
		   REP_KEY "50 02 0004"
			   "0010 0004");
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->mpa_rev, 2);
	ck_assert(e->enhanced && !e->p2p);
	ck_assert(e->wait_first_fpdu);
	ck_assert_uint_eq(e->ird, 16);
	ck_assert_uint_eq(e->ord, 4);
	ck_assert(e->peer_info->enhanced);
	ck_assert_uint_eq(e->peer_info->ird, 4);
	ck_assert_uint_eq(e->peer_info->ord, 8);
	ck_assert_uint_eq(e->peer_info->private_data.len, 2);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[1], peer);
	close(peer);
	env_teardown();
}
END_TEST

/*
 * RFC 6581 §9.2-9.3 peer-to-peer: the Reply picks Write from the offered
 * Write|Read, the raw initiator sends the zero-length Write RTR (with a
 * non-zero STag the engine does not check), and only then the handoff.
 */
START_TEST(resp_p2p_write)
{
	struct mpa_frame req = req_enh(
		MPA_FLAG_C, true, MPA_RTR_WRITE | MPA_RTR_READ, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	/* A echoed, C (Write) chosen */
	assert_hex(raw, n,
		   REP_KEY "50 02 0004"
			   "8010 8010");
	env_pump(20);
	ck_assert_int_eq(E.n_recs, 1); /* no handoff before the RTR */
	n = peer_rtr_ulpdu(RDMAP_WRITE, 0xdeadbeef, u);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 20);
	e = rec_established(env_wait_rec(2));
	ck_assert(e->p2p && e->enhanced);
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_WRITE);
	ck_assert(!e->wait_first_fpdu);
	ck_assert_uint_eq(e->tx_offset, 0);
	ck_assert_uint_eq(e->rx_offset, 20);
	assert_msn(e, 1, 1);
	ck_assert(!e->has_unread);
	iwcm__established__free_unpacked(e, NULL);
	ck_assert(peer_idle(peer));
	env_assert_handed(&E.recs[1], peer);
	close(peer);
	env_teardown();
}
END_TEST

/* The zero-length Read RTR is answered with a zero-length Read Response
 * to its sink STag/TO (RFC 5040 §4.5) before the handoff. */
START_TEST(resp_p2p_read)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_READ, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n,
		   REP_KEY "50 02 0004"
			   "8010 4010");
	n = peer_rtr_ulpdu(RDMAP_READ_REQ, 0x1234, u);
	ck_assert_uint_eq(n, 46);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 52);
	n = peer_read_fpdu(peer, &rx, raw, u, &info);
	ck_assert_uint_eq(n, 20);
	ck_assert(info.crc_ok);
	/* ULPDU_Length 14, tagged last DV 1, RV 1 Read Response,
	 * STag 0x1234, TO 0 */
	assert_hex(raw, 16, "000e c1 42 00001234 0000000000000000");
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_READ);
	ck_assert_uint_eq(e->tx_offset, 20);
	ck_assert_uint_eq(e->rx_offset, 52);
	assert_msn(e, 1, 2);
	iwcm__established__free_unpacked(e, NULL);
	env_assert_handed(&E.recs[1], peer);
	close(peer);
	env_teardown();
}
END_TEST

START_TEST(resp_p2p_send)
{
	struct mpa_frame req = req_enh(0, true, MPA_RTR_SEND, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n,
		   REP_KEY "50 02 0004"
			   "c010 0010");
	n = peer_rtr_ulpdu(RDMAP_SEND, 0, u);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 24);
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_SEND);
	ck_assert_uint_eq(e->rx_offset, 24);
	assert_msn(e, 2, 1);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.1 M: markers the engine asks for arrive from the first
 * FPDU on, marker 0 first (§7.1.2 rule 7); rx_offset counts them. */
START_TEST(resp_markers_rx)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir tx = { .markers = true, .crc = true, .off = 0 };
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.markers = true;
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	ck_assert_uint_eq(raw[16], MPA_FLAG_M | MPA_FLAG_C | MPA_FLAG_S);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	ck_assert_uint_eq(peer_send_fpdu(peer, &tx, u, n), 24);
	e = rec_established(env_wait_rec(2));
	ck_assert(e->markers_rx && !e->markers_tx);
	ck_assert_uint_eq(e->rx_offset, 24);
	ck_assert_uint_eq(e->tx_offset, 0);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* The peer's M=1: the engine's first FPDU (the Read Response) starts
 * with marker 0 and tx_offset counts it. */
START_TEST(resp_markers_tx)
{
	struct mpa_frame req = req_enh(MPA_FLAG_M | MPA_FLAG_C, true,
				       MPA_RTR_READ, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir rx = { .markers = true, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	n = peer_read_frame(peer, raw, &rep);
	ck_assert_uint_eq(raw[16], MPA_FLAG_C | MPA_FLAG_S);
	n = peer_rtr_ulpdu(RDMAP_READ_REQ, 7, u);
	peer_send_fpdu(peer, &tx, u, n);
	n = peer_read_fpdu(peer, &rx, raw, u, &info);
	ck_assert_uint_eq(n, 24);
	ck_assert(info.crc_ok && info.markers_ok);
	assert_hex(raw, 20, "00000000 000e c1 42 00000007 0000000000000000");
	e = rec_established(env_wait_rec(2));
	ck_assert(e->markers_tx && !e->markers_rx);
	ck_assert_uint_eq(e->tx_offset, 24);
	ck_assert_uint_eq(e->rx_offset, 52);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.1 C: CRC when either frame has C=1. */
static const struct {
	bool peer_c;
	enum conf_crc lis;
	bool crc;
} crc_tab[] = {
	{ true, CONF_CRC_REQUEST, true },
	{ true, CONF_CRC_PREFER_OFF, true },
	{ false, CONF_CRC_REQUEST, true },
	{ false, CONF_CRC_PREFER_OFF, false },
};

START_TEST(resp_crc)
{
	struct mpa_frame req = req_enh(crc_tab[_i].peer_c ? MPA_FLAG_C : 0,
				       true, MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = crc_tab[_i].crc };
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.crc = crc_tab[_i].lis;
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	ck_assert_int_eq(!!(rep.flags & MPA_FLAG_C),
			 crc_tab[_i].lis == CONF_CRC_REQUEST);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	peer_send_fpdu(peer, &tx, u, n);
	e = rec_established(env_wait_rec(2));
	ck_assert_int_eq(e->crc, crc_tab[_i].crc);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* A CRC error in the RTR: TERM code 2 (RFC 5044 §8), no handoff. */
START_TEST(resp_rtr_bad_crc)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 16, 16, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[256], fp[64];
	size_t n, w;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	ck_assert_int_eq(mpa_fpdu_build(&tx, u, (uint16_t)n, fp, sizeof(fp),
					&w),
			 WIRE_OK);
	fp[w - 1] ^= 1;
	peer_send(peer, fp, w);
	peer_read_fpdu(peer, &rx, raw, u, &info);
	ck_assert(info.crc_ok);
	/* Terminate: QN 2, MSN 1; Layer 2 / EType 0 / code 2 */
	assert_hex(raw, 24,
		   "0016 41 47 00000000 00000002 00000001 00000000"
		   "20 02 0000");
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	ck_assert_uint_eq(ce->term_layer, 2);
	ck_assert_uint_eq(ce->term_etype, 0);
	ck_assert_uint_eq(ce->term_ecode, 2);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.term_sent[2], 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §9.1: the Reply's IRD/ORD and the final values, 0x3FFF
 * (no automatic negotiation) in either position. */
static const struct {
	uint16_t req_ird, req_ord; /* the raw initiator's */
	int acc_ird, acc_ord;	   /* accept params, -1: none */
	uint16_t rep_ird, rep_ord; /* in the Reply */
	uint16_t ird, ord;	   /* handed off */
} irdord_tab[] = {
	{ 0x3FFF, 0x3FFF, -1, -1, 0x3FFF, 0x3FFF, 16, 16 },
	{ 4, 0x3FFF, -1, -1, 0x3FFF, 4, 16, 4 },
	{ 0x3FFF, 40, -1, -1, 40, 0x3FFF, 40, 16 },
	{ 8, 200, -1, -1, 128, 8, 128, 8 },
	{ 8, 8, 0x3FFF, 0x3FFF, 0x3FFF, 0x3FFF, 0x3FFF, 0x3FFF },
	{ 8, 2, 1, 32, 2, 8, 2, 8 },
};

START_TEST(resp_irdord)
{
	struct mpa_frame req = req_enh(MPA_FLAG_C, false, 0,
				       irdord_tab[_i].req_ird,
				       irdord_tab[_i].req_ord, NULL);
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__Established *e;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	int peer;

	env_setup();
	if (irdord_tab[_i].acc_ird >= 0) {
		p.has_ird = p.has_ord = 1;
		p.ird = (uint32_t)irdord_tab[_i].acc_ird;
		p.ord = (uint32_t)irdord_tab[_i].acc_ord;
	}
	resp_accept(resp_start(&peer, &req), &p);
	peer_read_frame(peer, raw, &rep);
	ck_assert(rep.enhanced);
	ck_assert_uint_eq(rep.enh.ird, irdord_tab[_i].rep_ird);
	ck_assert_uint_eq(rep.enh.ord, irdord_tab[_i].rep_ord);
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->ird, irdord_tab[_i].ird);
	ck_assert_uint_eq(e->ord, irdord_tab[_i].ord);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §9.1 strict: an initiator IRD below the ORD the ULP needs is
 * rejected, the required ORD in the Reject frame. */
START_TEST(resp_strict_ird_reject)
{
	struct mpa_frame req = req_enh(MPA_FLAG_C, false, 0, 2, 4, NULL);
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.irdord = CONF_IRDORD_STRICT;
	p.has_ord = 1;
	p.ord = 8;
	resp_accept(resp_start(&peer, &req), &p);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n,
		   REP_KEY "70 02 0004"
			   "0010 0008");
	ck_assert(peer_wait_closed(peer, 1000));
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EREJECTED);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(iwcmd_stats.rejected_local, 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.2 rule 2: the ULP rejects; R=1 with its Private Data
 * (the enhanced word first), then the daemon closes gracefully. */
START_TEST(resp_reject_pd)
{
	struct mpa_frame req = req_enh(MPA_FLAG_C, false, 0, 1, 1, "x");
	Iwcm__Reject rj = IWCM__REJECT__INIT;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	rj.conn_id = resp_start(&peer, &req);
	rj.has_private_data = 1;
	rj.private_data.data = (uint8_t *)"nope";
	rj.private_data.len = 4;
	ck_assert_int_eq(env_reject(&E.client, &rj), IWCM__RESULT__RES_OK);
	ck_assert_int_eq(env_reject(&E.client, &rj),
			 IWCM__RESULT__RES_EINVAL); /* decided once */
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n,
		   REP_KEY "70 02 0008"
			   "0010 0001 6e6f7065");
	ck_assert(peer_wait_closed(peer, 1000));
	env_pump(10);
	ck_assert_int_eq(E.n_recs, 1); /* the client knows */
	ck_assert_uint_eq(iwcmd_stats.rejected_local, 1);
	ck_assert_uint_eq(conn_count(), 0);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.2 rule 9: PD_Length up to 512 is taken, 513 closes. */
START_TEST(resp_pd_512)
{
	static char pd[513];
	struct mpa_frame req;
	Iwcm__ConnectRequest *q;
	int peer;

	env_setup();
	memset(pd, 'p', 512);
	req = frame_v(MPA_FRAME_REQ, 1, 0, pd);
	resp_start(&peer, &req);
	q = rec_request(&E.recs[0]);
	ck_assert_uint_eq(q->peer_info->private_data.len, 512);
	iwcm__connect_request__free_unpacked(q, NULL);
	close(peer);
	env_teardown();
}
END_TEST

START_TEST(resp_pd_513)
{
	uint8_t hdr[MPA_FRAME_HDR_LEN];
	int peer;

	env_setup();
	test_hex("4d504120494420526571204672616d65 40 01 0201", hdr,
		 sizeof(hdr));
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send(peer, hdr, sizeof(hdr));
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 0);
	ck_assert_uint_eq(iwcmd_stats.bad_frames, 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.2 rule 5: a wrong key closes (a Reply key, garbage). */
START_TEST(resp_bad_key)
{
	struct mpa_frame rep = frame_v(MPA_FRAME_REP, 1, 0, NULL);
	int peer;

	env_setup();
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send_frame(peer, &rep);
	ck_assert(peer_wait_closed(peer, 1000));
	close(peer);
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send(peer, "GET / HTTP/1.0\r\n", 16);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 0);
	ck_assert_uint_eq(iwcmd_stats.bad_frames, 2);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §10: an engine without enhanced support closes on S=1. */
START_TEST(resp_enhanced_off)
{
	struct mpa_frame req = req_enh(MPA_FLAG_C, false, 0, 1, 1, NULL);
	int peer;

	env_setup();
	E.lis.policy.enhanced = false;
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send_frame(peer, &req);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 0);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §7.1.2 rules 8 and 10: the request timeout. */
START_TEST(resp_request_timeout)
{
	int peer;

	env_setup();
	E.conf.request_timeout_ms = 500;
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send(peer, "MPA ID", 6); /* a valid start, then silence */
	env_pump(50); /* well before the timeout, even under load */
	ck_assert_uint_eq(conn_count(), 1);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.timeouts, 1);
	ck_assert_int_eq(E.n_recs, 0);
	close(peer);
	env_teardown();
}
END_TEST

/* The ULP's decision timeout: R=1 to the peer, ERROR to the client, and
 * not a timeout against the peer. */
START_TEST(resp_ulp_timeout)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, NULL);
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	size_t n;
	int peer;

	env_setup();
	E.conf.ulp_timeout_ms = 100;
	resp_start(&peer, &req);
	n = peer_read_frame(peer, raw, &rep);
	assert_hex(raw, n, REP_KEY "60 01 0000");
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ETIMEDOUT);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.timeouts, 0);
	ck_assert_uint_eq(iwcmd_stats.rejected_local, 1);
	ck_assert_uint_eq(E.lis.pending, 0);
	close(peer);
	env_teardown();
}
END_TEST

START_TEST(resp_rtr_timeout)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 1, 1, NULL);
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	int peer;

	env_setup();
	E.conf.rtr_timeout_ms = 100;
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ETIMEDOUT);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.timeouts, 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §9.2: an RTR of a type the Reply did not name: TERM code 7. */
START_TEST(resp_rtr_wrong_type)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_SEND, 1, 1, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_fpdu_info info;
	struct rdmap_msg m;
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[256];
	size_t n;
	int peer;

	env_setup();
	E.lis.policy.rtr_accept = MPA_RTR_WRITE;
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	/* none offered is supported: the Reply names what is (Write) */
	ck_assert(rep.enh.p2p);
	ck_assert_uint_eq(rep.enh.rtr, MPA_RTR_WRITE);
	n = peer_rtr_ulpdu(RDMAP_SEND, 0, u);
	peer_send_fpdu(peer, &tx, u, n);
	n = peer_read_fpdu(peer, &rx, raw, u, &info);
	ck_assert_uint_eq(n, 28);
	ck_assert_int_eq(rdmap_msg_parse(u, info.ulpdu_len, &m), WIRE_OK);
	ck_assert_uint_eq(m.opcode, RDMAP_TERMINATE);
	ck_assert_uint_eq(m.ddp.qn, DDP_QN_TERMINATE);
	ck_assert_uint_eq(m.ddp.msn, 1);
	ck_assert_uint_eq(m.u.term.layer, RDMAP_TERM_LAYER_LLP);
	ck_assert_uint_eq(m.u.term.etype, MPA_ETYPE_MPA);
	ck_assert_uint_eq(m.u.term.ecode, MPA_ECODE_NO_MATCHING_RTR);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->term_ecode, 7);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.term_sent[7], 1);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 5044 §8 code 3: a marker that disagrees with the framing. */
START_TEST(resp_rtr_bad_marker)
{
	struct mpa_frame req = req_enh(0, true, MPA_RTR_WRITE, 1, 1, NULL);
	struct mpa_dir tx = { .markers = true, .crc = false, .off = 0 };
	struct mpa_dir rx = { .markers = false, .crc = false, .off = 0 };
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64], fp[64];
	size_t n, w;
	int peer;

	env_setup();
	E.lis.policy.markers = true;
	E.lis.policy.crc = CONF_CRC_PREFER_OFF;
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	ck_assert_int_eq(mpa_fpdu_build(&tx, u, (uint16_t)n, fp, sizeof(fp),
					&w),
			 WIRE_OK);
	ck_assert_uint_eq(w, 24);
	fp[3] = 0x08; /* marker 0 pointing elsewhere */
	peer_send(peer, fp, w);
	peer_expect_term(peer, &rx, MPA_ECODE_MARKER);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->term_ecode, 3);
	iwcm__conn_error__free_unpacked(ce, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* RFC 6581 §9.3: an error with no code of its own (an RTR carrying
 * data) is TERM code 5 before the reset. */
START_TEST(resp_rtr_not_zero_length)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 1, 1, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct mpa_dir rx = { .markers = false, .crc = true, .off = 0 };
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	memcpy(u + n, "data", 4);
	peer_send_fpdu(peer, &tx, u, n + 4);
	peer_expect_term(peer, &rx, MPA_ECODE_LOCAL_CATASTROPHIC);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->term_ecode, 5);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.term_sent[5], 1);
	close(peer);
	env_teardown();
}
END_TEST

/* The initiator's Terminate instead of an RTR reaches the client. */
START_TEST(resp_peer_term)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 1, 1, NULL);
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	struct rdmap_msg m;
	Iwcm__ConnError *ce;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX], u[64];
	size_t n;
	int peer;

	env_setup();
	resp_accept(resp_start(&peer, &req), NULL);
	peer_read_frame(peer, raw, &rep);
	memset(&m, 0, sizeof(m));
	m.opcode = RDMAP_TERMINATE;
	m.rv = 1;
	m.ddp.dv = 1;
	m.ddp.last = true;
	m.ddp.qn = DDP_QN_TERMINATE;
	m.ddp.msn = 1;
	rdmap_term_fill(&m.u.term, RDMAP_TERM_LAYER_LLP, MPA_ETYPE_MPA,
			MPA_ECODE_NO_MATCHING_RTR, NULL, 0);
	ck_assert_int_eq(rdmap_hdr_build(&m, u, sizeof(u), &n), WIRE_OK);
	peer_send_fpdu(peer, &tx, u, n);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_EPROTO);
	ck_assert(ce->has_term_layer);
	ck_assert_uint_eq(ce->term_layer, 2);
	ck_assert_uint_eq(ce->term_etype, 0);
	ck_assert_uint_eq(ce->term_ecode, 7);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_uint_eq(iwcmd_stats.term_sent[7], 0);
	close(peer);
	env_teardown();
}
END_TEST

/* Request, RTR and the first ULP octets in one segment: read exactly,
 * the rest left in the handed-over socket. */
START_TEST(resp_glued)
{
	struct mpa_frame req =
		req_enh(MPA_FLAG_C, true, MPA_RTR_WRITE, 1, 1, "pd");
	struct mpa_dir tx = { .markers = false, .crc = true, .off = 0 };
	uint8_t all[256], u[64], raw[MPA_FRAME_MAX];
	Iwcm__ConnectRequest *q;
	Iwcm__Established *e;
	struct mpa_frame rep;
	size_t n, len, w;
	int peer;

	env_setup();
	ck_assert_int_eq(mpa_frame_build(&req, all, sizeof(all), &len),
			 WIRE_OK);
	n = peer_rtr_ulpdu(RDMAP_WRITE, 1, u);
	ck_assert_int_eq(mpa_fpdu_build(&tx, u, (uint16_t)n, all + len,
					sizeof(all) - len, &w),
			 WIRE_OK);
	len += w;
	memcpy(all + len, "ULPDATA!", 8);
	len += 8;
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send(peer, all, len);
	q = rec_request(env_wait_rec(1));
	resp_accept(q->conn_id, NULL);
	iwcm__connect_request__free_unpacked(q, NULL);
	peer_read_frame(peer, raw, &rep);
	e = rec_established(env_wait_rec(2));
	ck_assert_uint_eq(e->rtr_type, MPA_RTR_WRITE);
	ck_assert_uint_eq(e->rx_offset, 20);
	ck_assert(!e->has_unread);
	env_assert_fd_starts(&E.recs[1], "ULPDATA!", 8);
	iwcm__established__free_unpacked(e, NULL);
	close(peer);
	env_teardown();
}
END_TEST

/* No client on the listener: the request waits (bounded by the ULP
 * timer) and goes out when one attaches; past pending_max, R=1. */
START_TEST(resp_pending)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, NULL);
	Iwcm__ConnectRequest *q;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	int peer, peer2;

	env_setup();
	E.lis.client = NULL; /* no client: requests wait */
	E.lis.pending_max = 1;
	conn_accepted(&E.lis, tcp_pair(&peer));
	peer_send_frame(peer, &req);
	env_pump(30);
	ck_assert_int_eq(E.n_recs, 0);
	ck_assert_uint_eq(E.lis.pending, 1);

	conn_accepted(&E.lis, tcp_pair(&peer2));
	peer_send_frame(peer2, &req);
	peer_read_frame(peer2, raw, &rep);
	ck_assert(rep.flags & MPA_FLAG_R);
	ck_assert(peer_wait_closed(peer2, 1000));
	close(peer2);

	E.lis.client = &E.client;
	conn_listener_attached(&E.lis);
	q = rec_request(env_wait_rec(1));
	resp_accept(q->conn_id, NULL);
	iwcm__connect_request__free_unpacked(q, NULL);
	peer_read_frame(peer, raw, &rep);
	ck_assert(!(rep.flags & MPA_FLAG_R));
	ck_assert_uint_eq(env_wait_rec(2)->type, IPC_EVENT_ESTABLISHED);
	close(peer);
	env_teardown();
}
END_TEST

/* The client goes away while deciding: R=1 and the connection closes;
 * a decision from another client is refused. */
START_TEST(resp_client_gone)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, NULL);
	Iwcm__Accept a = IWCM__ACCEPT__INIT;
	struct mpa_frame rep;
	uint8_t raw[MPA_FRAME_MAX];
	int peer;

	env_setup();
	a.conn_id = resp_start(&peer, &req);
	ck_assert_int_eq(env_accept(&E.admin, &a), IWCM__RESULT__RES_ENOENT);
	conn_client_gone(&E.client);
	peer_read_frame(peer, raw, &rep);
	ck_assert(rep.flags & MPA_FLAG_R);
	ck_assert(peer_wait_closed(peer, 1000));
	ck_assert_int_eq(E.n_recs, 1);
	ck_assert_uint_eq(conn_count(), 0);
	close(peer);
	env_teardown();
}
END_TEST

static void info_cb(const struct conn *c, void *arg)
{
	const struct conn **out = arg;

	ck_assert_str_eq(conn_state_names[c->fsm.state], "WAIT_ULP");
	ck_assert_int_eq(c->peer.ss_family, AF_INET);
	ck_assert_uint_eq(c->owner_uid, getuid());
	*out = c;
}

/* iwcmctl conns / show while the ULP decides: what admin.c describes. */
START_TEST(resp_conn_info)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, NULL);
	const struct conn *out = NULL;
	uint64_t id;
	int peer;

	env_setup();
	id = resp_start(&peer, &req);
	ck_assert_ptr_nonnull(conn_find(id));
	ck_assert(conn_find(id)->role == NEG_RESPONDER);
	conn_foreach(info_cb, &out);
	ck_assert_ptr_nonnull(out);
	ck_assert_uint_eq(out->id, id);
	ck_assert_ptr_null(conn_find(id + 1));
	ck_assert_uint_eq(conn_count(), 1);
	close(peer);
	env_teardown();
}
END_TEST

/* The peer closes while the ULP decides: ERROR to the client. */
START_TEST(resp_peer_closes)
{
	struct mpa_frame req = frame_v(MPA_FRAME_REQ, 1, MPA_FLAG_C, NULL);
	Iwcm__ConnError *ce;
	int peer;

	env_setup();
	resp_start(&peer, &req);
	close(peer);
	ce = rec_error(env_wait_rec(2));
	ck_assert_uint_eq(ce->result, IWCM__RESULT__RES_ECONNRESET);
	iwcm__conn_error__free_unpacked(ce, NULL);
	ck_assert_uint_eq(conn_count(), 0);
	env_teardown();
}
END_TEST

static Suite *engine_resp_suite(void)
{
	Suite *s = suite_create("engine_resp");

	add_tcase(s, "v1 client-server", resp_v1_client_server);
	add_tcase(s, "v2 client-server", resp_v2_client_server);
	add_tcase(s, "p2p Write RTR", resp_p2p_write);
	add_tcase(s, "p2p Read RTR", resp_p2p_read);
	add_tcase(s, "p2p Send RTR", resp_p2p_send);
	add_tcase(s, "markers rx", resp_markers_rx);
	add_tcase(s, "markers tx", resp_markers_tx);
	add_loop_tcase(s, "CRC", resp_crc, ARRAY_SIZE(crc_tab));
	add_tcase(s, "RTR CRC error", resp_rtr_bad_crc);
	add_loop_tcase(s, "IRD/ORD", resp_irdord, ARRAY_SIZE(irdord_tab));
	add_tcase(s, "strict IRD", resp_strict_ird_reject);
	add_tcase(s, "reject with PD", resp_reject_pd);
	add_tcase(s, "PD 512", resp_pd_512);
	add_tcase(s, "PD 513", resp_pd_513);
	add_tcase(s, "bad key", resp_bad_key);
	add_tcase(s, "enhanced off", resp_enhanced_off);
	add_tcase(s, "request timeout", resp_request_timeout);
	add_tcase(s, "ULP timeout", resp_ulp_timeout);
	add_tcase(s, "RTR timeout", resp_rtr_timeout);
	add_tcase(s, "RTR wrong type", resp_rtr_wrong_type);
	add_tcase(s, "peer TERM", resp_peer_term);
	add_tcase(s, "RTR with data", resp_rtr_not_zero_length);
	add_tcase(s, "RTR bad marker", resp_rtr_bad_marker);
	add_tcase(s, "glued", resp_glued);
	add_tcase(s, "pending", resp_pending);
	add_tcase(s, "client gone", resp_client_gone);
	add_tcase(s, "peer closes", resp_peer_closes);
	add_tcase(s, "conn info", resp_conn_info);
	return s;
}

TEST_MAIN(engine_resp_suite)
