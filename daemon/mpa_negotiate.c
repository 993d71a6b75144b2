/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The MPA startup phase on one connection (RFC 5044 §7.1, RFC 6581 §6,
 * §9-10): send the Request, read the Request or the Reply exactly (never
 * a byte past it), send the Reply, and turn each into an FSM event.
 * Every decision is made by wire/negotiate.h.
 */
#include "config.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>

#include "conn.h"
#include "log.h"

static void mpa_negotiate_reparse(const uint8_t *raw, size_t len,
				  struct mpa_frame *f)
{
	size_t used;

	/* Our own bytes, already validated: parse them in place. */
	if (mpa_frame_parse(raw, len, f, &used) != WIRE_OK || used != len)
		fatalx("mpa: a frame that was just built does not parse");
}

/* Initiator: build and send the Request for c->pol and conn_buf(c)->pd. */
int mpa_negotiate_send_request(struct conn *c)
{
	struct mpa_frame f;
	enum wire_err e;
	size_t n;

	neg_mpa_request(&c->pol, &f);
	if (f.enhanced) {
		f.ulp_pd = conn_buf(c)->pd;
		f.ulp_pd_len = conn_buf(c)->pd_len;
	} else {
		f.pd = conn_buf(c)->pd;
		f.pd_len = conn_buf(c)->pd_len;
	}
	e = mpa_frame_build(&f, conn_buf(c)->req_raw,
			    sizeof(conn_buf(c)->req_raw), &n);
	if (e != WIRE_OK) {
		conn_fail(c, CONN_RES_EINVAL, "cannot build the Request: %s",
			  wire_strerror(e));
		return -1;
	}
	conn_buf(c)->req_len = n;
	mpa_negotiate_reparse(conn_buf(c)->req_raw, n, &c->req);
	if (conn_send(c, conn_buf(c)->req_raw, conn_buf(c)->req_len) < 0) {
		conn_fail(c, CONN_RES_ECONNRESET, "sending the Request: %s",
			  strerror(errno));
		return -1;
	}
	log_debug("conn %llu: Request sent: Rev %u flags 0x%02x PD %u%s",
		  (unsigned long long)c->id, c->req.rev, c->req.flags,
		  c->req.pd_len, c->req.enhanced ? " (enhanced)" : "");
	return 0;
}

/* Read one startup frame into c->rd, exactly. */
int mpa_negotiate_read_frame(struct conn *c, struct mpa_frame *f,
			     enum wire_err *err)
{
	size_t want, used;
	enum wire_err e;
	int r;

	for (;;) {
		/*
		 * The 20-octet header first, then exactly PD_Length more:
		 * what follows the frame (a peer's first FPDU) stays in the
		 * socket for the datapath.
		 */
		want = MPA_FRAME_HDR_LEN;
		if (c->rd.len >= MPA_FRAME_HDR_LEN)
			want += (size_t)c->rd.buf[18] << 8 | c->rd.buf[19];
		if (want > MPA_FRAME_MAX) {
			/* RFC 5044 §7.1.2 rule 9: PD_Length over 512. */
			*err = WIRE_ELEN;
			return -2;
		}
		r = conn_read_upto(c, want);
		if (r < 0)
			return -1;
		e = mpa_frame_parse(c->rd.buf, c->rd.len, f, &used);
		if (e == WIRE_OK)
			return 1;
		if (e != WIRE_ESHORT) {
			/* a bad key is seen in its first wrong octet */
			*err = e;
			return -2;
		}
		if (r == 0)
			return 0;
	}
}

static void mpa_negotiate_request_in(struct conn *c)
{
	struct mpa_frame rep;
	struct neg_result res;
	enum neg_action act;

	memcpy(conn_buf(c)->req_raw, c->rd.buf, c->rd.len);
	conn_buf(c)->req_len = c->rd.len;
	c->rd.len = 0;
	mpa_negotiate_reparse(conn_buf(c)->req_raw, conn_buf(c)->req_len,
			      &c->req);
	log_debug("conn %llu: Request: Rev %u flags 0x%02x PD %u%s",
		  (unsigned long long)c->id, c->req.rev, c->req.flags,
		  c->req.pd_len, c->req.enhanced ? " (enhanced)" : "");
	/*
	 * RFC 5044 §7.1.2 rules 2 and 5, RFC 6581 §10, seed 002: a Request
	 * that cannot be answered at all closes now; anything the Reply
	 * can say (accept or reject) waits for the ULP.
	 */
	act = neg_mpa_respond(&c->req, &c->pol, false, &rep, &res);
	c->res = res;
	if (act == NEG_A_CLOSE) {
		conn_fail(c, CONN_RES_EPROTO, "Request refused: %s",
			  neg_reason_name(res.reason));
		conn_event(c, CONN_EV_BAD);
		return;
	}
	conn_event(c, CONN_EV_REQUEST);
}

static void mpa_negotiate_reply_in(struct conn *c)
{
	enum conn_event ev;
	enum neg_action act;

	memcpy(conn_buf(c)->rep_raw, c->rd.buf, c->rd.len);
	conn_buf(c)->rep_len = c->rd.len;
	c->rd.len = 0;
	mpa_negotiate_reparse(conn_buf(c)->rep_raw, conn_buf(c)->rep_len,
			      &c->rep);
	c->have_rep = true;
	log_debug("conn %llu: Reply: Rev %u flags 0x%02x PD %u%s",
		  (unsigned long long)c->id, c->rep.rev, c->rep.flags,
		  c->rep.pd_len, c->rep.enhanced ? " (enhanced)" : "");
	/* RFC 5044 §7.1.2 rules 3, 5, 8; RFC 6581 §9-10; seed 002, 003. */
	act = neg_mpa_reply(&c->req, &c->rep, &c->pol, &c->res);
	switch (act) {
	case NEG_A_ACCEPT:
		mpa_negotiate_fpdu_mode(c);
		if (c->res.rtr_frame)
			ev = CONN_EV_REPLY_RTR;
		else if (!c->res.p2p)
			ev = CONN_EV_REPLY;
		else if (c->res.rtr == MPA_RTR_READ)
			ev = CONN_EV_REPLY_RTR_READ;
		else
			ev = CONN_EV_REPLY_RTR;
		break;
	case NEG_A_REJECT:
		conn_fail(c, CONN_RES_EREJECTED, "rejected by the peer");
		ev = CONN_EV_REPLY_REJECT;
		break;
	case NEG_A_TERM:
		/* RFC 6581 §8-9: the Terminate is the first FPDU. */
		mpa_negotiate_fpdu_mode(c);
		c->term_code = c->res.term;
		conn_fail(c, CONN_RES_EPROTO, "%s (TERM code %u)",
			  neg_reason_name(c->res.reason), c->res.term);
		ev = CONN_EV_TERM;
		break;
	default:
		conn_fail(c, CONN_RES_EPROTO, "Reply refused: %s",
			  neg_reason_name(c->res.reason));
		ev = CONN_EV_BAD;
		break;
	}
	conn_event(c, ev);
}

/* Input while a startup frame is expected (WAIT_REQUEST, WAIT_REPLY). */
void mpa_negotiate_input(struct conn *c)
{
	struct mpa_frame f;
	enum wire_err e = WIRE_OK;
	int r;

	r = mpa_negotiate_read_frame(c, &f, &e);
	if (r == 0)
		return;
	if (r == -1) {
		/*
		 * RFC 6581 §10: an unenhanced responder closes on an
		 * enhanced Request; the initiator may retry unenhanced.
		 */
		if (c->role == NEG_INITIATOR && c->rd.len == 0 &&
		    neg_fallback(&c->pol, c->req.enhanced, true,
				 &c->retry_pol)) {
			conn_event(c, CONN_EV_RETRY_V1);
			return;
		}
		conn_fail(c, CONN_RES_ECONNRESET,
			  "peer %s while the %s was expected",
			  errno ? "reset the connection" : "closed",
			  c->role == NEG_INITIATOR ? "Reply" : "Request");
		conn_event(c, CONN_EV_PEER_CLOSED);
		return;
	}
	if (r == -2) {
		/* RFC 5044 §7.1.2 rules 2, 3, 9: close. */
		conn_fail(c, CONN_RES_EPROTO, "improperly formatted %s: %s",
			  c->role == NEG_INITIATOR ? "Reply" : "Request",
			  wire_strerror(e));
		conn_event(c, CONN_EV_BAD);
		return;
	}
	if (c->role == NEG_RESPONDER)
		mpa_negotiate_request_in(c);
	else
		mpa_negotiate_reply_in(c);
}

/* Input while the ULP decides (WAIT_ROUTE to DECIDED): watch for a
 * close. */
void mpa_negotiate_idle(struct conn *c)
{
	uint8_t b;
	ssize_t n;

	n = recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT);
	if (n > 0) {
		/*
		 * The initiator sent more before our Reply (RFC 5044
		 * §7.1.2 forbids it, but be liberal): leave it in the
		 * socket, which the datapath reads after the handoff.
		 */
		conn_read_enable(c, false);
		return;
	}
	if (n < 0 &&
	    (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return;
	conn_fail(c, CONN_RES_ECONNRESET, "peer %s while the ULP decided",
		  n == 0 ? "closed" : "reset the connection");
	conn_event(c, CONN_EV_PEER_CLOSED);
}

/* Set up the FPDU-mode directions from c->res. */
void mpa_negotiate_fpdu_mode(struct conn *c)
{
	/* RFC 5044 §7.1.1: M asks for markers toward its sender; CRC on
	 * when either frame had C.  Offsets count from the first FPDU. */
	c->tx.markers = neg_markers_tx(&c->res, c->role);
	c->rx.markers = neg_markers_rx(&c->res, c->role);
	c->tx.crc = c->rx.crc = c->res.crc;
	c->tx.off = c->rx.off = 0;
}

/* Responder: decide the Reply now that the ULP has spoken. */
enum conn_event mpa_negotiate_decide(struct conn *c, bool ulp_reject,
				     const uint8_t *pd, size_t pd_len)
{
	struct mpa_frame rep;
	struct neg_result res;
	enum neg_action act;
	enum wire_err e;
	size_t n;

	act = neg_mpa_respond(&c->req, &c->pol, ulp_reject, &rep, &res);
	if (act == NEG_A_CLOSE) {
		conn_fail(c, CONN_RES_EPROTO, "Request refused: %s",
			  neg_reason_name(res.reason));
		return CONN_EV_BAD;
	}
	/* RFC 5044 §7.1.2 rule 2: the Reply MAY carry ULP Private Data. */
	if (rep.enhanced) {
		rep.ulp_pd = pd;
		rep.ulp_pd_len = (uint16_t)pd_len;
	} else {
		rep.pd = pd;
		rep.pd_len = (uint16_t)pd_len;
	}
	e = mpa_frame_build(&rep, conn_buf(c)->rep_raw,
			    sizeof(conn_buf(c)->rep_raw), &n);
	if (e != WIRE_OK) {
		conn_fail(c, CONN_RES_EINVAL, "cannot build the Reply: %s",
			  wire_strerror(e));
		return CONN_EV_BAD;
	}
	conn_buf(c)->rep_len = n;
	mpa_negotiate_reparse(conn_buf(c)->rep_raw, n, &c->rep);
	c->have_rep = true;
	c->res = res;
	if (act == NEG_A_REJECT) {
		if (!ulp_reject) {
			/* RFC 6581 §9.1/§9.2: the policy's reject, with
			 * the required ORD in the Reply. */
			c->policy_reject = true;
			conn_fail(c, CONN_RES_EREJECTED,
				  "rejected by the local policy: %s",
				  neg_reason_name(res.reason));
		}
		return CONN_EV_ULP_REJECT;
	}
	mpa_negotiate_fpdu_mode(c);
	/* RFC 6581 §9.2-9.3, seed 003: an RTR comes before the handoff. */
	return res.p2p || res.rtr_frame ? CONN_EV_ULP_ACCEPT_RTR :
					  CONN_EV_ULP_ACCEPT;
}

/* Responder: send the Reply built by mpa_negotiate_decide(). */
int mpa_negotiate_send_reply(struct conn *c)
{
	if (!c->have_rep) {
		errno = EINVAL;
		return -1;
	}
	if (conn_send(c, conn_buf(c)->rep_raw, conn_buf(c)->rep_len) < 0) {
		conn_fail(c, CONN_RES_ECONNRESET, "sending the Reply: %s",
			  strerror(errno));
		return -1;
	}
	log_debug("conn %llu: Reply sent: Rev %u flags 0x%02x PD %u",
		  (unsigned long long)c->id, c->rep.rev, c->rep.flags,
		  c->rep.pd_len);
	return 0;
}

/* Responder: a Reply with R=1 when the ULP did not decide in time. */
int mpa_negotiate_send_reject(struct conn *c)
{
	if (!c->have_rep || !(c->rep.flags & MPA_FLAG_R)) {
		conn_buf(c)->pd_len = 0;
		if (mpa_negotiate_decide(c, true, NULL, 0) !=
		    CONN_EV_ULP_REJECT)
			return 0; /* nothing can be answered */
	}
	return mpa_negotiate_send_reply(c);
}
