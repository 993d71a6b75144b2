/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP Stream Sessions on one association (daemon/sctp_session.c) against
 * a recording transport and owner: the legal sequences of RFC 5043
 * §6.2-6.4 and RFC 6581 §7 on both sides, several sessions at once, and
 * peers that break the rules, which end their session and nothing else.
 */
#include <errno.h>
#include <event2/event.h>

#include "common.h"

#include "log.h"
#include "sctp_conn_peel.h"
#include "sctp_session.h"

#define MAX_SENT 32

static struct {
	uint16_t stream;
	uint32_t ppid;
	uint8_t buf[600];
	size_t len;
} sent[MAX_SENT];
static int n_sent;
static int send_fail; /* errno to fail sends with, 0: none */

static int io_send(void *arg, uint16_t stream, uint32_t ppid, const void *buf,
		   size_t len)
{
	(void)arg;
	if (send_fail) {
		errno = send_fail;
		return -1;
	}
	ck_assert_int_lt(n_sent, MAX_SENT);
	ck_assert_uint_le(len, sizeof(sent[0].buf));
	sent[n_sent].stream = stream;
	sent[n_sent].ppid = ppid;
	memcpy(sent[n_sent].buf, buf, len);
	sent[n_sent].len = len;
	n_sent++;
	return 0;
}

static const struct sctp_assoc_io io = { .send = io_send };

static bool listening = true;
static struct sctp_session *req[8];
static int n_req, n_est, n_rej, n_ended, n_ended_err, n_ended_down, n_rel,
	n_seg;
static uint8_t seg_buf[256];
static size_t seg_len;
static char seg_order[64]; /* first octet of each segment relayed */

static bool ulp_has_listener(void *arg, struct sctp_assoc *a)
{
	(void)arg;
	(void)a;
	return listening;
}

static int ulp_request(void *arg, struct sctp_session *s)
{
	(void)arg;
	ck_assert_int_lt(n_req, 8);
	req[n_req++] = s;
	return 0;
}

static int ulp_established(void *arg, struct sctp_session *s)
{
	(void)arg;
	(void)s;
	n_est++;
	return 0;
}

static void ulp_rejected(void *arg, struct sctp_session *s)
{
	(void)arg;
	(void)s;
	n_rej++;
}

/* what a handoff of the association keeps (sctp_conn_peel.h), if any */
static struct sctp_peel *peel;

static int ulp_segment(void *arg, struct sctp_session *s, const uint8_t *seg,
		       size_t len)
{
	(void)arg;
	(void)s;
	if (n_seg < (int)sizeof(seg_order) - 1 && len)
		seg_order[n_seg] = (char)seg[0];
	n_seg++;
	seg_len = len < sizeof(seg_buf) ? len : sizeof(seg_buf);
	memcpy(seg_buf, seg, seg_len);
	if (peel)
		return sctp_peel_segment(peel, seg, len);
	return 0;
}

static void ulp_ended(void *arg, struct sctp_session *s, enum sess_end how)
{
	(void)arg;
	(void)s;
	n_ended++;
	n_ended_err += how != SESS_END_TERMINATED;
	n_ended_down += how == SESS_END_DOWN;
}

static void ulp_release(void *arg, struct sctp_session *s)
{
	(void)arg;
	(void)s;
	n_rel++;
}

static const struct sctp_session_ulp ulp = {
	.has_listener = ulp_has_listener,
	.request = ulp_request,
	.established = ulp_established,
	.rejected = ulp_rejected,
	.segment = ulp_segment,
	.ended = ulp_ended,
	.release = ulp_release,
};

static struct event_base *base;
static struct sctp_assoc *a;
static struct sctp_assoc_conf conf;

static void setup(void)
{
	log_init(LOG_TO_STDERR, false, "check_sctp_assoc");
	n_sent = send_fail = 0;
	n_req = n_est = n_rej = n_ended = n_ended_err = n_ended_down = n_rel =
		n_seg = 0;
	memset(seg_order, 0, sizeof(seg_order));
	listening = true;
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	sctp_assoc_conf_defaults(&conf, 8);
	conf.ulp_timeout_ms = 50;
	conf.reply_timeout_ms = 50;
	conf.term_timeout_ms = 50;
	conf.pending_max = 3;
	a = sctp_assoc_new(7, base, &conf, &io, NULL, &ulp, NULL);
	ck_assert_ptr_nonnull(a);
}

static void teardown(void)
{
	sctp_assoc_free(a);
	event_base_free(base);
}

/* A session control message as the peer sends it. */
static void peer_ctl(uint16_t stream, uint16_t ssn, uint16_t fc, const char *pd,
		     uint16_t ird, uint16_t ord)
{
	struct sctp_ss_msg m;
	uint8_t buf[SCTP_SS_MSG_MAX];
	size_t n;

	memset(&m, 0, sizeof(m));
	m.ssn = ssn;
	m.fc = fc;
	if (sctp_ss_fc_has_enh(fc)) {
		m.enh.ird = ird;
		m.enh.ord = ord;
		m.ulp_pd = (const uint8_t *)pd;
		m.ulp_pd_len = pd ? (uint16_t)strlen(pd) : 0;
	} else {
		m.pd = (const uint8_t *)pd;
		m.pd_len = pd ? (uint16_t)strlen(pd) : 0;
	}
	ck_assert_int_eq(sctp_ss_build(&m, buf, sizeof(buf), &n), WIRE_OK);
	sctp_assoc_input(a, stream, SCTP_PPID_DDP_SESSION_CTL, true, buf, n);
}

static void peer_seg(uint16_t stream, uint16_t ssn, const char *data)
{
	uint8_t buf[64];
	size_t n = strlen(data);

	buf[0] = (uint8_t)(ssn >> 8);
	buf[1] = (uint8_t)ssn;
	memcpy(buf + 2, data, n);
	sctp_assoc_input(a, stream, SCTP_PPID_DDP_SEGMENT, true, buf, n + 2);
}

/* The i-th message we sent, parsed. */
static struct sctp_ss_msg sent_ctl(int i, uint16_t stream)
{
	struct sctp_ss_msg m;
	size_t used;

	ck_assert_int_gt(n_sent, i);
	ck_assert_uint_eq(sent[i].stream, stream);
	ck_assert_uint_eq(sent[i].ppid, SCTP_PPID_DDP_SESSION_CTL);
	ck_assert_int_eq(sctp_ss_parse(sent[i].buf, sent[i].len, &m, &used),
			 WIRE_OK);
	return m;
}

/* RFC 5043 §6.2 on the passive side, then the peer terminates. */
START_TEST(test_passive_accept)
{
	struct sctp_session_info info;
	struct sctp_ss_msg m;

	setup();
	peer_ctl(2, 0, SCTP_SS_INITIATE, "hello", 0, 0);
	ck_assert_int_eq(n_req, 1);
	ck_assert_uint_eq(sctp_assoc_pending(a), 1);
	sctp_session_get_info(req[0], &info);
	ck_assert_uint_eq(info.stream, 2);
	ck_assert(!info.active);
	ck_assert_int_eq(info.state, SESS_S_WAIT_ULP);
	ck_assert_uint_eq(info.peer_pd_len, 5);
	ck_assert_mem_eq(info.peer_pd, "hello", 5);
	ck_assert_int_eq(n_sent, 0);

	ck_assert_int_eq(
		sctp_session_decide(req[0], true, (const uint8_t *)"ok", 2), 0);
	m = sent_ctl(0, 2);
	ck_assert_uint_eq(m.fc, SCTP_SS_ACCEPT);
	ck_assert_uint_eq(m.ssn, 0);
	ck_assert_uint_eq(m.pd_len, 2);
	ck_assert_int_eq(n_est, 1);
	ck_assert_uint_eq(sctp_assoc_pending(a), 0);

	peer_seg(2, 1, "early"); /* after the Accept: legal */
	ck_assert_int_eq(n_seg, 1);
	sctp_session_handoff_done(req[0], true);
	peer_seg(2, 2, "segment");
	ck_assert_int_eq(n_seg, 2);
	ck_assert_uint_eq(seg_len, 7);
	ck_assert_mem_eq(seg_buf, "segment", 7);

	ck_assert_int_eq(
		sctp_session_send_segment(req[0], (const uint8_t *)"x", 1), 0);
	ck_assert_uint_eq(sent[1].ppid, SCTP_PPID_DDP_SEGMENT);
	ck_assert_uint_eq(sent[1].len, 3);
	ck_assert_uint_eq(sent[1].buf[0] << 8 | sent[1].buf[1], 1);

	peer_ctl(2, 3, SCTP_SS_TERMINATE, NULL, 0, 0);
	ck_assert_int_eq(n_ended, 1);
	ck_assert_int_eq(n_ended_err, 0);
	m = sent_ctl(2, 2);
	ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	ck_assert_uint_eq(m.ssn, 2);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	ck_assert_int_eq(n_rel, 1);
	/* the stream is free for the next session (DDP-SSN from 0) */
	peer_ctl(2, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_int_eq(n_req, 2);
	teardown();
}
END_TEST

/* RFC 6581 §7, §9.1: Enhanced Initiate answered with the word. */
START_TEST(test_passive_enhanced)
{
	struct sctp_session_info info;
	struct sctp_ss_msg m;

	setup();
	peer_ctl(0, 0, SCTP_SS_ENH_INITIATE, "pd", 4, 8);
	ck_assert_int_eq(n_req, 1);
	sctp_session_get_info(req[0], &info);
	ck_assert(info.peer_enh);
	ck_assert_uint_eq(info.peer_pd_len, 2);
	/* the raw word: IRD 4, ORD 8 in 14 bits each (§9.1) */
	ck_assert_uint_eq((info.peer_word[0] & 0x3f) << 8 | info.peer_word[1],
			  4);
	ck_assert_uint_eq((info.peer_word[2] & 0x3f) << 8 | info.peer_word[3],
			  8);
	ck_assert_int_eq(sctp_session_decide(req[0], true, NULL, 0), 0);
	m = sent_ctl(0, 0);
	ck_assert_uint_eq(m.fc, SCTP_SS_ENH_ACCEPT);
	ck_assert(m.enhanced);
	sctp_session_get_info(req[0], &info);
	ck_assert(info.res.enhanced || info.res.peer_enh);
	/* our IRD covers the peer's ORD 8, our ORD is what it can take */
	ck_assert_uint_ge(m.enh.ird, 8);
	ck_assert_uint_le(m.enh.ord, 4);
	teardown();
}
END_TEST

/* RFC 5043 §6.3 and the enhanced Reject. */
START_TEST(test_passive_reject)
{
	struct sctp_ss_msg m;
	char big[600];

	setup();
	peer_ctl(1, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	peer_ctl(3, 0, SCTP_SS_ENH_INITIATE, NULL, 1, 1);
	ck_assert_int_eq(n_req, 2);
	/* Private Data over 512 is refused, the session stays */
	memset(big, 'p', sizeof(big));
	errno = 0;
	ck_assert_int_eq(sctp_session_decide(req[0], false,
					     (const uint8_t *)big, 513),
			 -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_int_eq(sctp_session_decide(req[0], false,
					     (const uint8_t *)big, 512),
			 0);
	m = sent_ctl(0, 1);
	ck_assert_uint_eq(m.fc, SCTP_SS_REJECT);
	ck_assert_uint_eq(m.pd_len, 512);
	ck_assert_int_eq(sctp_session_decide(req[1], false, NULL, 0), 0);
	m = sent_ctl(1, 3);
	ck_assert_uint_eq(m.fc, SCTP_SS_ENH_REJECT);
	ck_assert_int_eq(n_est, 0);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	teardown();
}
END_TEST

/* The active side: Accept, Reject, non-ULP Terminate (§6.2-6.4). */
START_TEST(test_active)
{
	struct sctp_session *s[4];
	struct sctp_session_info info;
	struct sctp_ss_msg m;
	int i;

	setup();
	for (i = 0; i < 4; i++) {
		s[i] = sctp_session_connect(a, (uint16_t)i, NULL,
					    (const uint8_t *)"ini", 3);
		ck_assert_ptr_nonnull(s[i]);
		m = sent_ctl(i, (uint16_t)i);
		ck_assert_uint_eq(m.fc, SCTP_SS_ENH_INITIATE);
		ck_assert_uint_eq(m.ulp_pd_len, 3);
	}
	errno = 0;
	ck_assert_ptr_null(sctp_session_connect(a, 0, NULL, NULL, 0));
	ck_assert_int_eq(errno, EBUSY);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 4);

	peer_ctl(0, 0, SCTP_SS_ENH_ACCEPT, "acc", 16, 16);
	ck_assert_int_eq(n_est, 1);
	sctp_session_get_info(s[0], &info);
	ck_assert_int_eq(info.state, SESS_S_HANDOFF);
	ck_assert_uint_eq(info.peer_pd_len, 3);
	sctp_session_handoff_done(s[0], true);
	peer_ctl(1, 0, SCTP_SS_ENH_REJECT, "no", 0, 0);
	ck_assert_int_eq(n_rej, 1);
	peer_ctl(2, 0, SCTP_SS_TERMINATE, NULL, 0, 0);
	ck_assert_int_eq(n_rej, 2);
	/* a plain Accept to an Enhanced Initiate: no legal pattern */
	peer_ctl(3, 0, SCTP_SS_ACCEPT, NULL, 0, 0);
	ck_assert_int_eq(n_ended_err, 1);
	ck_assert_int_eq(n_ended_down, 0);
	m = sent_ctl(4, 3);
	ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 1);

	/* the owner closes: Terminate, then the peer's ends it */
	sctp_session_ulp_close(s[0], false);
	m = sent_ctl(5, 0);
	ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	peer_seg(0, 1, "late"); /* §6.2: still allowed, dropped */
	ck_assert_int_eq(n_seg, 0);
	peer_ctl(0, 2, SCTP_SS_TERMINATE, NULL, 0, 0);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	ck_assert_int_eq(n_sent, 6);
	teardown();
}
END_TEST

/* Hostile peers, one per row: the session ends with a Terminate (or
 * nothing, for a stray Terminate), the association keeps going. */
enum hostile_kind {
	H_UNKNOWN_FC,
	H_PD_OVER_512,
	H_ACCEPT_NO_INIT,
	H_SEGMENT_BEFORE_ACCEPT,
	H_SECOND_INITIATE,
	H_ORDERED,
	H_BAD_SSN,
	H_BAD_PPID,
	H_SHORT,
	H_SEGMENT_FREE_STREAM,
	H_STRAY_TERMINATE,
	H_MAX
};

START_TEST(test_hostile)
{
	uint8_t buf[600];
	int before;

	setup();
	switch (_i) {
	case H_UNKNOWN_FC:
		memcpy(buf, "\x00\x00\x00\x09", 4);
		sctp_assoc_input(a, 4, 17, true, buf, 4);
		break;
	case H_PD_OVER_512:
		memset(buf, 0, sizeof(buf));
		buf[3] = SCTP_SS_INITIATE;
		sctp_assoc_input(a, 4, 17, true, buf, 4 + 513);
		break;
	case H_ACCEPT_NO_INIT:
		peer_ctl(4, 0, SCTP_SS_ACCEPT, NULL, 0, 0);
		break;
	case H_SEGMENT_BEFORE_ACCEPT:
		peer_ctl(4, 0, SCTP_SS_INITIATE, NULL, 0, 0);
		peer_seg(4, 1, "too early");
		break;
	case H_SECOND_INITIATE:
		peer_ctl(4, 0, SCTP_SS_INITIATE, NULL, 0, 0);
		ck_assert_int_eq(sctp_session_decide(req[0], true, NULL, 0), 0);
		sctp_session_handoff_done(req[0], true);
		peer_ctl(4, 1, SCTP_SS_INITIATE, NULL, 0, 0);
		break;
	case H_ORDERED:
		memcpy(buf, "\x00\x00\x00\x01", 4);
		sctp_assoc_input(a, 4, 17, false, buf, 4);
		break;
	case H_BAD_SSN:
		peer_ctl(4, 0, SCTP_SS_INITIATE, NULL, 0, 0);
		ck_assert_int_eq(sctp_session_decide(req[0], true, NULL, 0), 0);
		peer_seg(4, 0, "old"); /* behind: never held */
		break;
	case H_BAD_PPID:
		memcpy(buf, "\x00\x00\x00\x01", 4);
		sctp_assoc_input(a, 4, 18, true, buf, 4);
		break;
	case H_SHORT:
		sctp_assoc_input(a, 4, 17, true, (const uint8_t *)"\x00", 1);
		break;
	case H_SEGMENT_FREE_STREAM:
		peer_seg(4, 0, "who?");
		break;
	case H_STRAY_TERMINATE:
		peer_ctl(4, 0, SCTP_SS_TERMINATE, NULL, 0, 0);
		ck_assert_int_eq(n_sent, 0); /* not answered */
		break;
	}
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	ck_assert_uint_eq(sctp_assoc_pending(a), 0);
	if (_i != H_STRAY_TERMINATE) {
		struct sctp_ss_msg m = sent_ctl(n_sent - 1, 4);

		ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	}
	if (_i == H_SEGMENT_BEFORE_ACCEPT || _i == H_SECOND_INITIATE ||
	    _i == H_BAD_SSN)
		ck_assert_int_eq(n_ended_err, 1); /* the owner is told */
	ck_assert_int_eq(n_seg, 0);
	/* the association lives on: a good session on another stream */
	before = n_req;
	peer_ctl(5, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_int_eq(n_req, before + 1);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 1);
	teardown();
}
END_TEST

/* §5.2.3 / §6.4: over the pending limit, or nobody listening. */
START_TEST(test_limits)
{
	struct sctp_ss_msg m;
	uint16_t i;

	setup();
	for (i = 0; i < 4; i++)
		peer_ctl(i, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_int_eq(n_req, 3);
	ck_assert_uint_eq(sctp_assoc_pending(a), 3);
	m = sent_ctl(0, 3);
	ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	listening = false;
	peer_ctl(6, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	m = sent_ctl(1, 6);
	ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 3);
	/* ULP timeout: a Terminate, not a Reject (§6.3) */
	event_base_dispatch(base);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	ck_assert_uint_eq(sctp_assoc_pending(a), 0);
	for (i = 2; i < 5; i++) {
		m = sent_ctl(i, sent[i].stream);
		ck_assert_uint_eq(m.fc, SCTP_SS_TERMINATE);
	}
	teardown();
}
END_TEST

/* The active side's timers and a failing transport. */
START_TEST(test_timeouts)
{
	struct sctp_session *s;

	setup();
	s = sctp_session_connect(a, 0, NULL, NULL, 0);
	ck_assert_ptr_nonnull(s);
	/* no answer: Terminate, the owner told, then TERM_SENT expires */
	event_base_dispatch(base);
	ck_assert_int_eq(n_ended_err, 1);
	ck_assert_int_eq(n_ended_down, 0);
	ck_assert_uint_eq(sent_ctl(1, 0).fc, SCTP_SS_TERMINATE);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	send_fail = ENOBUFS;
	errno = 0;
	ck_assert_ptr_null(sctp_session_connect(a, 1, NULL, NULL, 0));
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	teardown();
}
END_TEST

/* The association goes down under live sessions. */
START_TEST(test_assoc_down)
{
	setup();
	peer_ctl(0, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_ptr_nonnull(sctp_session_connect(a, 1, NULL, NULL, 0));
	sctp_assoc_free(a);
	a = NULL;
	/* both owners told, as an association that ended (a reset) */
	ck_assert_int_eq(n_ended_err, 2);
	ck_assert_int_eq(n_ended_down, 2);
	ck_assert_int_eq(n_rel, 2);
	event_base_free(base);
}
END_TEST

/* RFC 5043 §5: unordered chunks may come out of DDP-SSN order; they
 * reach the owner in DDP-SSN order. */
START_TEST(test_reorder)
{
	struct sctp_session *s;
	uint16_t i;

	setup();
	peer_ctl(1, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_int_eq(sctp_session_decide(req[0], true, NULL, 0), 0);
	sctp_session_handoff_done(req[0], true);
	peer_seg(1, 4, "d");
	peer_seg(1, 2, "b");
	peer_seg(1, 3, "c");
	ck_assert_int_eq(n_seg, 0);
	peer_seg(1, 1, "a");
	ck_assert_str_eq(seg_order, "abcd");
	/* a retransmission trailing 200 later messages: all wait, then
	 * reach the owner in order */
	for (i = 205; i > 5; i--)
		peer_seg(1, i, "z");
	ck_assert_int_eq(n_seg, 4);
	peer_seg(1, 5, "e");
	ck_assert_int_eq(n_seg, 205);
	ck_assert_int_eq(seg_order[4], 'e');
	ck_assert_int_eq(seg_order[5], 'z');
	ck_assert_uint_eq(sctp_assoc_sessions(a), 1);
	/* what follows is counted afresh */
	n_seg = 0;
	memset(seg_order, 0, sizeof(seg_order));
	/* a duplicate of a held DDP-SSN: no legal pattern (§6.1) */
	peer_seg(1, 207, "g");
	peer_seg(1, 207, "g");
	ck_assert_uint_eq(sent_ctl(n_sent - 1, 1).fc, SCTP_SS_TERMINATE);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);

	/* the passive side's first segments overtake its Accept (§6.6
	 * orders control messages only) */
	s = sctp_session_connect(a, 2, NULL, NULL, 0);
	ck_assert_ptr_nonnull(s);
	peer_seg(2, 2, "y");
	peer_seg(2, 1, "x");
	ck_assert_int_eq(n_est, 1);
	peer_ctl(2, 0, SCTP_SS_ENH_ACCEPT, NULL, 8, 8);
	ck_assert_int_eq(n_est, 2);
	ck_assert_str_eq(seg_order, "xy");

	/* too far ahead to wait: the session ends */
	for (i = 0; i < 3; i++)
		peer_seg(2, (uint16_t)(3 + 600 + i), "z");
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);

	/* the table grows to 256 held messages and no further: the 257th
	 * cannot wait, and no legal pattern fits it (§6.1) */
	peer_ctl(3, 0, SCTP_SS_INITIATE, NULL, 0, 0);
	ck_assert_int_eq(n_req, 2);
	ck_assert_int_eq(sctp_session_decide(req[1], true, NULL, 0), 0);
	sctp_session_handoff_done(req[1], true);
	n_seg = 0;
	for (i = 2; i < 2 + 256; i++)
		peer_seg(3, i, "h");
	ck_assert_int_eq(n_seg, 0);
	ck_assert_uint_eq(sctp_assoc_sessions(a), 1);
	peer_seg(3, 2 + 256, "h");
	ck_assert_uint_eq(sctp_assoc_sessions(a), 0);
	ck_assert_uint_eq(sent_ctl(n_sent - 1, 3).fc, SCTP_SS_TERMINATE);
	teardown();
}
END_TEST

/* RFC 5043 §9: the segment size holds a full control message. */
START_TEST(test_conf_checked)
{
	struct sctp_assoc_conf c;

	sctp_assoc_conf_defaults(&c, 4);
	c.maxseg = SCTP_SS_MSG_MAX - 1;
	errno = 0;
	ck_assert_ptr_null(sctp_assoc_new(1, NULL, &c, &io, NULL, &ulp, NULL));
	ck_assert_int_eq(errno, EINVAL);
	sctp_assoc_conf_defaults(&c, 0);
	ck_assert_ptr_null(sctp_assoc_new(1, NULL, &c, &io, NULL, &ulp, NULL));
}
END_TEST

/*
 * The handoff of the association (kernel SCTP): the segments the session
 * passed on after the Accept and those it holds ahead of their DDP-SSN
 * go to the owner whole, with their DDP-SSNs; the session and the
 * association then leave without a message on the wire.
 */
START_TEST(test_peel)
{
	struct sctp_session *s;
	const struct sctp_peel_msg *m;

	setup();
	s = sctp_session_connect(a, 3, NULL, NULL, 0);
	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(n_sent, 1); /* our Initiate, DDP-SSN 0 */
	/* the peer's first segments overtake its Accept; 4 is ahead */
	peer_seg(3, 2, "two");
	peer_seg(3, 1, "one");
	peer_seg(3, 4, "four");
	ck_assert_int_eq(n_seg, 0);
	/* as sc_established() begins a handoff: segments kept from now */
	peel = sctp_peel_new(3);
	ck_assert_ptr_nonnull(peel);
	/* Accept, or Enhanced Accept after an Enhanced Initiate */
	peer_ctl(3, 0, (uint16_t)(sent_ctl(0, 3).fc + 1), NULL, 1, 1);
	ck_assert_int_eq(n_est, 1);
	ck_assert_int_eq(n_seg, 2);
	ck_assert_uint_eq(peel->n_early, 2);
	/* the session sent one segment meanwhile (DDP-SSN 1) */
	ck_assert_int_eq(sctp_session_send_segment(s, (const uint8_t *)"x", 1),
			 0);
	ck_assert_int_eq(sctp_peel_take(peel, s), 0);
	ck_assert_uint_eq(peel->tx_ssn, 2);
	ck_assert_uint_eq(peel->rx_ssn, 1); /* the first early one's */
	ck_assert_uint_eq(peel->n, 3);
	m = &peel->msg[0];
	ck_assert_uint_eq(m->len, 5);
	ck_assert_mem_eq(m->buf, "\x00\x01one", 5);
	ck_assert_uint_eq(m->ppid, SCTP_PPID_DDP_SEGMENT);
	ck_assert_uint_eq(m->stream, 3);
	ck_assert_mem_eq(peel->msg[1].buf, "\x00\x02two", 5);
	ck_assert_mem_eq(peel->msg[2].buf,
			 "\x00\x04"
			 "four",
			 6);
	/* the association leaves: released, nothing sent, nobody told */
	n_sent = 0;
	sctp_assoc_detach(a);
	a = NULL;
	ck_assert_int_eq(n_rel, 1);
	ck_assert_int_eq(n_ended, 0);
	ck_assert_int_eq(n_sent, 0);
	sctp_peel_free(peel);
	peel = NULL;
	teardown();
}
END_TEST

/* At most SCTP_PEEL_MSGS messages and SCTP_PEEL_BYTES are kept. */
START_TEST(test_peel_limits)
{
	static uint8_t big[SCTP_PEEL_BYTES];
	struct sctp_peel *p = sctp_peel_new(0);
	unsigned int i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < SCTP_PEEL_MSGS; i++)
		ck_assert_int_eq(sctp_peel_segment(p, big, 1), 0);
	ck_assert_int_eq(sctp_peel_segment(p, big, 1), -1);
	ck_assert_int_eq(errno, ENOBUFS);
	sctp_peel_free(p);
	p = sctp_peel_new(0);
	ck_assert_int_eq(sctp_peel_segment(p, big, SCTP_PEEL_BYTES - 2), 0);
	ck_assert_int_eq(sctp_peel_segment(p, big, 0), -1);
	sctp_peel_free(p);
}
END_TEST

static Suite *sctp_assoc_suite(void)
{
	Suite *s = suite_create("sctp_assoc");

	add_tcase(s, "passive_accept", test_passive_accept);
	add_tcase(s, "passive_enhanced", test_passive_enhanced);
	add_tcase(s, "passive_reject", test_passive_reject);
	add_tcase(s, "active", test_active);
	add_loop_tcase(s, "hostile", test_hostile, H_MAX);
	add_tcase(s, "limits", test_limits);
	add_tcase(s, "timeouts", test_timeouts);
	add_tcase(s, "assoc_down", test_assoc_down);
	add_tcase(s, "conf_checked", test_conf_checked);
	add_tcase(s, "reorder", test_reorder);
	add_tcase(s, "peel", test_peel);
	add_tcase(s, "peel_limits", test_peel_limits);
	return s;
}

TEST_MAIN(sctp_assoc_suite)
