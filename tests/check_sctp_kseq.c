/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What libiwcm parses when it carries a DDP Stream Session on the
 * association's own kernel SCTP socket (docs/sctp.md "Handoff of the
 * association"), without a kernel SCTP: the session sequencer
 * (libclient/sctp_kseq.c: DDP-SSNs, reordering, the peer's Terminate,
 * strangers' Initiates, RFC 5043 §5.2.1, §6), what recvmsg(2) returned
 * (libclient/sctp_kmsg.c: SCTP_RCVINFO, notifications, RFC 6458) and the
 * handoff's SctpHandoff (libclient/framing_sctp.c).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "common.h"
#include "framing_sctp.h"
#include "iwcm.pb-c.h"
#include "sctp_kmsg.h"
#include "sctp_kseq.h"

#ifdef HAVE_KERNEL_SCTP
#include <arpa/inet.h>
#include <linux/sctp.h>
#endif

#define STREAM 3
#define SEG SCTP_PPID_DDP_SEGMENT
#define CTL SCTP_PPID_DDP_SESSION_CTL

static struct sctp_kseq Q;

/* A message: DDP-SSN, then fill octets (or a function code). */
static size_t msg(uint8_t *b, uint16_t ssn, size_t body, uint8_t fill)
{
	b[0] = (uint8_t)(ssn >> 8);
	b[1] = (uint8_t)ssn;
	memset(b + 2, fill, body);
	return body + 2;
}

static size_t ctl(uint8_t *b, uint16_t ssn, uint16_t fc)
{
	b[0] = (uint8_t)(ssn >> 8);
	b[1] = (uint8_t)ssn;
	b[2] = (uint8_t)(fc >> 8);
	b[3] = (uint8_t)fc;
	return 4;
}

static enum sctp_kseq_verdict in(uint16_t stream, uint32_t ppid, bool unord,
				 const uint8_t *b, size_t len,
				 const uint8_t **seg, size_t *seg_len)
{
	return sctp_kseq_input(&Q, stream, ppid, unord, b, len, seg, seg_len);
}

START_TEST(test_in_order)
{
	uint8_t b[64];
	const uint8_t *seg;
	size_t n, sl;

	sctp_kseq_init(&Q, true, true, STREAM, 1, 1);
	for (uint16_t i = 1; i < 5; i++) {
		n = msg(b, i, 10, (uint8_t)i);
		ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
				 SCTP_KSEQ_SEGMENT);
		ck_assert_ptr_eq(seg, b + 2);
		ck_assert_uint_eq(sl, 10);
		ck_assert_int_eq(sctp_kseq_next(&Q, &seg, &sl),
				 SCTP_KSEQ_IGNORE);
	}
	sctp_kseq_fini(&Q);
}
END_TEST

/* RFC 5043 §5: unordered delivery; DDP-SSN order restored. */
START_TEST(test_reorder)
{
	uint8_t b[64];
	const uint8_t *seg;
	size_t n, sl;

	sctp_kseq_init(&Q, false, false, STREAM, 7, 0xfffe);
	/* 0xffff, 0x0000 and 0x0001 ahead of 0xfffe (wrapping) */
	for (uint16_t s = 0xffff, k = 0; k < 3; s++, k++) {
		n = msg(b, s, 5, (uint8_t)(0x40 + k));
		ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
				 SCTP_KSEQ_HELD);
	}
	ck_assert_uint_eq(Q.n_held, 3);
	n = msg(b, 0xfffe, 5, 0x3f);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_SEGMENT);
	ck_assert_uint_eq(seg[0], 0x3f);
	for (unsigned int k = 0; k < 3; k++) {
		ck_assert_int_eq(sctp_kseq_next(&Q, &seg, &sl),
				 SCTP_KSEQ_SEGMENT);
		ck_assert_uint_eq(sl, 5);
		ck_assert_uint_eq(seg[0], 0x40 + k);
	}
	ck_assert_int_eq(sctp_kseq_next(&Q, &seg, &sl), SCTP_KSEQ_IGNORE);
	ck_assert_uint_eq(Q.n_held, 0);
	ck_assert_uint_eq(Q.held_bytes, 0);
	sctp_kseq_fini(&Q);
}
END_TEST

/* §6.1: what no legal pattern allows ends the session. */
START_TEST(test_illegal)
{
	uint8_t b[600];
	const uint8_t *seg;
	size_t n, sl;

	sctp_kseq_init(&Q, true, false, STREAM, 1, 10);
	n = msg(b, 10, 4, 0);
	/* ordered (RFC 5043 §5), another PPID, too short */
	ck_assert_int_eq(in(STREAM, SEG, false, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	ck_assert_int_eq(in(STREAM, 18, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	ck_assert_int_eq(in(STREAM, SEG, true, b, 1, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	/* behind (a duplicate) and too far ahead */
	n = msg(b, 9, 4, 0);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	n = msg(b, 10 + SCTP_KSEQ_HOLD, 4, 0);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	/* the same DDP-SSN held twice */
	n = msg(b, 12, 4, 0);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_HELD);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	/* an Accept, a Reject, an Initiate in the session: out of place */
	for (uint16_t fc = 1; fc <= 7; fc++) {
		if (fc == SCTP_SS_TERMINATE)
			continue;
		memset(b, 0, 12);
		n = ctl(b, 10, fc);
		if (sctp_ss_fc_has_enh(fc))
			n = 8;
		ck_assert_int_eq(in(STREAM, CTL, true, b, n, &seg, &sl),
				 SCTP_KSEQ_ILLEGAL);
	}
	/* a Terminate with Private Data, an unknown function code */
	n = ctl(b, 10, SCTP_SS_TERMINATE) + 1;
	ck_assert_int_eq(in(STREAM, CTL, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	n = ctl(b, 10, 9);
	ck_assert_int_eq(in(STREAM, CTL, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	sctp_kseq_fini(&Q);
}
END_TEST

/* §6.2: the peer's Terminate, even held ahead, in its turn. */
START_TEST(test_peer_terminate)
{
	uint8_t b[64];
	const uint8_t *seg;
	size_t n, sl;

	sctp_kseq_init(&Q, false, true, STREAM, 0, 5);
	n = ctl(b, 6, SCTP_SS_TERMINATE);
	ck_assert_int_eq(in(STREAM, CTL, true, b, n, &seg, &sl),
			 SCTP_KSEQ_HELD);
	ck_assert(!sctp_kseq_peer_done(&Q));
	n = msg(b, 5, 3, 1);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_SEGMENT);
	ck_assert_int_eq(sctp_kseq_next(&Q, &seg, &sl), SCTP_KSEQ_TERMINATE);
	ck_assert(sctp_kseq_peer_done(&Q));
	/* nothing may follow it */
	n = msg(b, 7, 3, 1);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	/* our direction goes on: segments, then our Terminate */
	ck_assert_int_eq(sctp_kseq_tx_peek(&Q, &(uint16_t){ 0 }), 0);
	sctp_kseq_fini(&Q);
}
END_TEST

/* §5.2.1 and §6.2: our DDP-SSNs and our Terminate. */
START_TEST(test_tx)
{
	uint8_t b[16];
	uint16_t ssn;
	size_t n;

	sctp_kseq_init(&Q, true, false, STREAM, 0xfffe, 1);
	ck_assert_int_eq(sctp_kseq_tx_peek(&Q, &ssn), 0);
	ck_assert_uint_eq(ssn, 0xfffe);
	ck_assert_int_eq(sctp_kseq_tx_peek(&Q, &ssn), 0);
	ck_assert_uint_eq(ssn, 0xfffe); /* a peek does not advance */
	sctp_kseq_tx_done(&Q);
	sctp_kseq_tx_done(&Q);
	ck_assert_int_eq(sctp_kseq_tx_peek(&Q, &ssn), 0);
	ck_assert_uint_eq(ssn, 0);
	ck_assert_int_eq(sctp_kseq_term(&Q, b, sizeof(b), &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(b, "\x00\x00\x00\x04", 4);
	errno = 0;
	ck_assert_int_eq(sctp_kseq_tx_peek(&Q, &ssn), -1);
	ck_assert_int_eq(errno, EPROTO);
	ck_assert_int_eq(sctp_kseq_term(&Q, b, sizeof(b), &n), -1);
	ck_assert_int_eq(errno, EALREADY);
	/* the stranger's answer: DDP-SSN 0, Terminate (§6.4) */
	memset(b, 0xaa, sizeof(b));
	ck_assert_int_eq(sctp_kseq_stranger_term(b, sizeof(b), &n), 0);
	ck_assert_uint_eq(n, 4);
	ck_assert_mem_eq(b, "\x00\x00\x00\x04", 4);
	ck_assert_int_eq(sctp_kseq_stranger_term(b, 3, &n), -1);
	sctp_kseq_fini(&Q);
}
END_TEST

/* §6.4: another stream's Initiate is answered, the rest ignored. */
START_TEST(test_stranger)
{
	uint8_t b[64];
	const uint8_t *seg;
	size_t n, sl;

	sctp_kseq_init(&Q, false, true, STREAM, 1, 1);
	n = ctl(b, 0, SCTP_SS_INITIATE);
	ck_assert_int_eq(in(STREAM + 1, CTL, true, b, n, &seg, &sl),
			 SCTP_KSEQ_INITIATE);
	memset(b + 4, 0, 4);
	n = ctl(b, 0, SCTP_SS_ENH_INITIATE) + 4;
	ck_assert_int_eq(in(0, CTL, true, b, n, &seg, &sl), SCTP_KSEQ_INITIATE);
	n = ctl(b, 0, SCTP_SS_TERMINATE);
	ck_assert_int_eq(in(0, CTL, true, b, n, &seg, &sl), SCTP_KSEQ_IGNORE);
	n = msg(b, 1, 8, 0);
	ck_assert_int_eq(in(0, SEG, true, b, n, &seg, &sl), SCTP_KSEQ_IGNORE);
	ck_assert_int_eq(in(0, CTL, true, b, 3, &seg, &sl), SCTP_KSEQ_IGNORE);
	/* the session's own DDP-SSNs did not move */
	n = msg(b, 1, 8, 0);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_SEGMENT);
	sctp_kseq_fini(&Q);
}
END_TEST

/* As many held as iwcmd holds, and no more octets. */
START_TEST(test_hold_limits)
{
	static uint8_t b[4096];
	const uint8_t *seg;
	size_t n, sl;
	unsigned int k;

	sctp_kseq_init(&Q, true, true, STREAM, 0, 0);
	/* 4002-octet messages until the next would pass 256 KiB */
	for (k = 1; Q.held_bytes + 4002 <= SCTP_KSEQ_HOLD_BYTES; k++) {
		n = msg(b, (uint16_t)k, 4000, 1);
		ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
				 SCTP_KSEQ_HELD);
	}
	ck_assert_uint_eq(k, 66);
	n = msg(b, (uint16_t)k, 4000, 1);
	ck_assert_int_eq(in(STREAM, SEG, true, b, n, &seg, &sl),
			 SCTP_KSEQ_ILLEGAL);
	ck_assert_uint_le(Q.held_bytes, SCTP_KSEQ_HOLD_BYTES);
	sctp_kseq_fini(&Q);
	ck_assert_uint_eq(Q.n_held, 0);
}
END_TEST

#ifdef HAVE_KERNEL_SCTP
/* A notification buffer: {type, flags, length} then state (ASSOC_CHANGE). */
static size_t note(uint8_t *b, uint16_t type, uint16_t state, uint32_t len)
{
	struct sctp_assoc_change ac;

	memset(&ac, 0, sizeof(ac));
	ac.sac_type = type;
	ac.sac_length = len;
	ac.sac_state = state;
	memcpy(b, &ac, sizeof(ac));
	return sizeof(ac);
}

static const struct {
	uint16_t type, state;
	enum sctp_kmsg_kind kind;
} notes[] = {
	{ SCTP_ASSOC_CHANGE, SCTP_COMM_UP, SCTP_KMSG_IGNORE },
	{ SCTP_ASSOC_CHANGE, SCTP_COMM_LOST, SCTP_KMSG_LOST },
	{ SCTP_ASSOC_CHANGE, SCTP_RESTART, SCTP_KMSG_LOST },
	{ SCTP_ASSOC_CHANGE, SCTP_CANT_STR_ASSOC, SCTP_KMSG_LOST },
	{ SCTP_ASSOC_CHANGE, SCTP_SHUTDOWN_COMP, SCTP_KMSG_SHUTDOWN },
	{ SCTP_SHUTDOWN_EVENT, 0, SCTP_KMSG_SHUTDOWN },
	{ SCTP_ADAPTATION_INDICATION, 0, SCTP_KMSG_IGNORE },
	{ SCTP_PEER_ADDR_CHANGE, 0, SCTP_KMSG_IGNORE },
};

START_TEST(test_notifications)
{
	uint8_t b[64];
	struct sctp_kmsg k;
	size_t n = note(b, notes[_i].type, notes[_i].state, 0);

	note(b, notes[_i].type, notes[_i].state, (uint32_t)n);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_NOTIFICATION | MSG_EOR, NULL, 0, b,
					 n, &k),
			 notes[_i].kind);
	ck_assert_int_eq(k.kind, notes[_i].kind);
	if (k.kind == SCTP_KMSG_LOST || k.kind == SCTP_KMSG_SHUTDOWN)
		ck_assert_ptr_nonnull(k.why);
	/* a part of one, a length beyond the buffer, a short one */
	ck_assert_int_eq(sctp_kmsg_parse(MSG_NOTIFICATION, NULL, 0, b, n, &k),
			 SCTP_KMSG_BAD);
	note(b, notes[_i].type, notes[_i].state, (uint32_t)n + 1);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_NOTIFICATION | MSG_EOR, NULL, 0, b,
					 n, &k),
			 SCTP_KMSG_BAD);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_NOTIFICATION | MSG_EOR, NULL, 0, b,
					 7, &k),
			 SCTP_KMSG_BAD);
	if (notes[_i].type == SCTP_ASSOC_CHANGE) {
		note(b, notes[_i].type, notes[_i].state, 9);
		ck_assert_int_eq(sctp_kmsg_parse(MSG_NOTIFICATION | MSG_EOR,
						 NULL, 0, b, 9, &k),
				 SCTP_KMSG_BAD);
	}
}
END_TEST

/* A control buffer with one cmsg of level/type and len octets of data. */
static size_t cmsg(void *ctl, size_t cap, int level, int type, const void *data,
		   size_t len)
{
	struct msghdr m;
	struct cmsghdr *c;

	memset(ctl, 0, cap);
	memset(&m, 0, sizeof(m));
	m.msg_control = ctl;
	m.msg_controllen = CMSG_SPACE(len);
	ck_assert_uint_le(CMSG_SPACE(len), cap);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = level;
	c->cmsg_type = type;
	c->cmsg_len = CMSG_LEN(len);
	memcpy(CMSG_DATA(c), data, len);
	return CMSG_SPACE(len);
}

START_TEST(test_rcvinfo)
{
	union {
		struct cmsghdr c;
		uint8_t b[256];
	} u;
	struct sctp_rcvinfo ri;
	struct sctp_sndrcvinfo sr;
	struct sctp_kmsg k;
	uint8_t d[8] = { 0 };
	size_t cl;

	memset(&ri, 0, sizeof(ri));
	ri.rcv_sid = 9;
	ri.rcv_ppid = htonl(16);
	ri.rcv_flags = SCTP_UNORDERED;
	cl = cmsg(u.b, sizeof(u.b), IPPROTO_SCTP, SCTP_RCVINFO, &ri,
		  sizeof(ri));
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, u.b, cl, d, 8, &k),
			 SCTP_KMSG_DATA);
	ck_assert_uint_eq(k.stream, 9);
	ck_assert_uint_eq(k.ppid, 16);
	ck_assert(k.unordered);
	/* RFC 5043 §9: a part of a message; truncated control; none */
	ck_assert_int_eq(sctp_kmsg_parse(0, u.b, cl, d, 8, &k), SCTP_KMSG_BAD);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR | MSG_CTRUNC, u.b, cl, d, 8,
					 &k),
			 SCTP_KMSG_BAD);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, NULL, 0, d, 8, &k),
			 SCTP_KMSG_BAD);
	/* a cmsg_len beyond the buffer, one too short for the info */
	cl = cmsg(u.b, sizeof(u.b), IPPROTO_SCTP, SCTP_RCVINFO, &ri,
		  sizeof(ri));
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, u.b, CMSG_LEN(4), d, 8, &k),
			 SCTP_KMSG_BAD);
	cl = cmsg(u.b, sizeof(u.b), IPPROTO_SCTP, SCTP_RCVINFO, &ri, 4);
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, u.b, cl, d, 8, &k),
			 SCTP_KMSG_BAD);
	/* another level's cmsg only */
	cl = cmsg(u.b, sizeof(u.b), SOL_SOCKET, SCTP_RCVINFO, &ri, sizeof(ri));
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, u.b, cl, d, 8, &k),
			 SCTP_KMSG_BAD);
	/* the older SCTP_SNDRCV, ordered */
	memset(&sr, 0, sizeof(sr));
	sr.sinfo_stream = 2;
	sr.sinfo_ppid = htonl(17);
	cl = cmsg(u.b, sizeof(u.b), IPPROTO_SCTP, SCTP_SNDRCV, &sr, sizeof(sr));
	ck_assert_int_eq(sctp_kmsg_parse(MSG_EOR, u.b, cl, d, 8, &k),
			 SCTP_KMSG_DATA);
	ck_assert_uint_eq(k.stream, 2);
	ck_assert_uint_eq(k.ppid, 17);
	ck_assert(!k.unordered);
}
END_TEST

/* RFC 6458 §5.3.4: the stream, unordered, PPID in network order. */
START_TEST(test_sndinfo)
{
	union {
		struct cmsghdr c;
		uint8_t b[SCTP_KMSG_SNDINFO_SPACE];
	} u;
	struct sctp_sndinfo si;
	struct msghdr m;
	struct cmsghdr *c;
	size_t n = sctp_kmsg_sndinfo(u.b, sizeof(u.b), 7, 16);

	ck_assert_uint_eq(n, CMSG_SPACE(sizeof(si)));
	memset(&m, 0, sizeof(m));
	m.msg_control = u.b;
	m.msg_controllen = n;
	c = CMSG_FIRSTHDR(&m);
	ck_assert_int_eq(c->cmsg_level, IPPROTO_SCTP);
	ck_assert_int_eq(c->cmsg_type, SCTP_SNDINFO);
	ck_assert_uint_eq(c->cmsg_len, CMSG_LEN(sizeof(si)));
	memcpy(&si, CMSG_DATA(c), sizeof(si));
	ck_assert_uint_eq(si.snd_sid, 7);
	ck_assert_uint_eq(si.snd_flags, SCTP_UNORDERED);
	ck_assert_uint_eq(si.snd_ppid, htonl(16));
	ck_assert_uint_eq(
		sctp_kmsg_sndinfo(u.b, CMSG_SPACE(sizeof(si)) - 1, 7, 16), 0);
}
END_TEST
#endif

/* The Established event's SctpHandoff: packed and unpacked as iwcmd
 * sends it, then checked and copied; every bound refused. */
START_TEST(test_handoff_pb)
{
	Iwcm__SctpMessage m[2], *pm[2] = { &m[0], &m[1] };
	Iwcm__SctpHandoff h = IWCM__SCTP_HANDOFF__INIT, *u;
	uint8_t d0[6] = { 0, 5, 1, 2, 3, 4 }, d1[4] = { 0, 6, 0, 4 };
	static uint8_t big[1024];
	uint8_t wire[256];
	struct fs_handoff *fh;
	size_t n;

	iwcm__sctp_message__init(&m[0]);
	iwcm__sctp_message__init(&m[1]);
	m[0].stream = 3;
	m[0].ppid = 16;
	m[0].data.data = d0;
	m[0].data.len = sizeof(d0);
	m[1].stream = 3;
	m[1].ppid = 17;
	m[1].data.data = d1;
	m[1].data.len = sizeof(d1);
	h.tx_ssn = 2;
	h.rx_ssn = 5;
	h.n_unread = 2;
	h.unread = pm;
	n = iwcm__sctp_handoff__pack(&h, wire);
	u = iwcm__sctp_handoff__unpack(NULL, n, wire);
	ck_assert_ptr_nonnull(u);
	fh = fs_handoff_from_pb(u, 1400);
	ck_assert_ptr_nonnull(fh);
	ck_assert_uint_eq(fh->tx_ssn, 2);
	ck_assert_uint_eq(fh->rx_ssn, 5);
	ck_assert_uint_eq(fh->n, 2);
	ck_assert_uint_eq(fh->msg[0].len, 6);
	ck_assert_mem_eq(fh->msg[0].buf, d0, 6);
	ck_assert_uint_eq(fh->msg[1].ppid, 17);
	fs_handoff_free(fh);
	iwcm__sctp_handoff__free_unpacked(u, NULL);

	/* bounds: DDP-SSNs, a stream, a message too short or too long */
	ck_assert_ptr_null(fs_handoff_from_pb(NULL, 1400));
	h.tx_ssn = 0x10000;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 1400));
	ck_assert_int_eq(errno, EPROTO);
	h.tx_ssn = 2;
	h.rx_ssn = 0x10000;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 1400));
	h.rx_ssn = 5;
	m[1].stream = 0x10000;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 1400));
	m[1].stream = 3;
	m[1].data.len = 1;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 1400));
	m[1].data.len = 4;
	/* a segment and its DDP-SSN: maxseg + 2, or a control message's
	 * 516 octets (RFC 5043 §9), at most */
	m[0].data.data = big;
	m[0].data.len = 601;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 598));
	ck_assert_ptr_nonnull(fh = fs_handoff_from_pb(&h, 599));
	fs_handoff_free(fh);
	m[0].data.len = SCTP_SS_MSG_MAX + 1;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 64));
	m[0].data.len = SCTP_SS_MSG_MAX;
	ck_assert_ptr_nonnull(fh = fs_handoff_from_pb(&h, 64));
	fs_handoff_free(fh);
	h.n_unread = FS_HANDOFF_MAX + 1;
	ck_assert_ptr_null(fs_handoff_from_pb(&h, 1400));
}
END_TEST

static Suite *sctp_kseq_suite(void)
{
	Suite *s = suite_create("sctp_kseq");

	add_tcase(s, "in_order", test_in_order);
	add_tcase(s, "reorder", test_reorder);
	add_tcase(s, "illegal", test_illegal);
	add_tcase(s, "peer_terminate", test_peer_terminate);
	add_tcase(s, "tx", test_tx);
	add_tcase(s, "stranger", test_stranger);
	add_tcase(s, "hold_limits", test_hold_limits);
#ifdef HAVE_KERNEL_SCTP
	add_loop_tcase(s, "notifications", test_notifications,
		       ARRAY_SIZE(notes));
	add_tcase(s, "rcvinfo", test_rcvinfo);
	add_tcase(s, "sndinfo", test_sndinfo);
#endif
	add_tcase(s, "handoff_pb", test_handoff_pb);
	return s;
}

TEST_MAIN(sctp_kseq_suite)
