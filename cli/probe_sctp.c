/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The SCTP offers of iwcmctl probe: a DDP stream session (RFC 5043) has
 * no forced negotiation (its relay needs an owner), so iwcmctl opens the
 * session as a client would, through libiwcm, and reads the peer's answer
 * from the connection: Accept or Reject, enhanced (RFC 6581 §7, codes 6
 * and 7, with the IRD/ORD word) or not (codes 2 and 3).
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <iwcm/iwcm.h>

#include "iwcmctl.h"
#include "probe.h"

/* The Result a failed connect or event stands for. */
static Iwcm__Result probe_sctp_result(enum iwcm_cm_event_type t, int err,
				      enum iwcm_status st)
{
	if (t == IWCM_CM_EVENT_REJECTED)
		return IWCM__RESULT__RES_EREJECTED;
	if (t == IWCM_CM_EVENT_UNREACHABLE)
		return st == IWCM_STATUS_TIMEDOUT ?
			       IWCM__RESULT__RES_ETIMEDOUT :
			       IWCM__RESULT__RES_ECONNREFUSED;
	switch (err) {
	case ETIMEDOUT:
		return IWCM__RESULT__RES_ETIMEDOUT;
	case ECONNREFUSED:
		return IWCM__RESULT__RES_ECONNREFUSED;
	case ECONNRESET:
		return IWCM__RESULT__RES_ECONNRESET;
	case EPROTO:
		return IWCM__RESULT__RES_EPROTO;
	default:
		return IWCM__RESULT__RES_EINVAL;
	}
}

/*
 * Open one session to dst, plain (mpa_rev 1: codes 1-4) or enhanced,
 * and fill row with the answer; est receives the negotiated state.
 * reason (len octets) holds the text row->reason points to.
 */
void probe_sctp_row(const struct sockaddr_storage *dst, bool enhanced,
		    unsigned int wait_ms, struct ctl_probe_row *row,
		    Iwcm__Established *est, char *reason, size_t len)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };
	long long deadline = cli_now_ms() + wait_ms;
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	struct iwcm_ctx *ctx = cli_open("probe");
	enum iwcm_cm_event_type t = IWCM_CM_EVENT_CONNECT_ERROR;
	struct iwcm_conn *c = NULL;
	struct iwcm_event *ev;

	row->ran = true;
	row->reason = reason;
	reason[0] = '\0';
	if (!p || !ctx ||
	    iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP) < 0 ||
	    iwcm_conn_param_set_reply_timeout(p, wait_ms) < 0 ||
	    (!enhanced && iwcm_conn_param_set_mpa_rev(p, IWCM_MPA_REV_1) < 0)) {
		row->result = IWCM__RESULT__RES_EINVAL;
		snprintf(reason, len, "%s", strerror(errno));
		goto out;
	}
	c = iwcm_connect(ctx, (const struct sockaddr *)dst, NULL, p);
	if (!c) {
		row->result = probe_sctp_result(t, errno, IWCM_STATUS_OK);
		snprintf(reason, len, "connect: %s", strerror(errno));
		goto out;
	}
	for (;;) {
		if (cli_event(ctx, deadline, &ev) < 0) {
			row->result =
				probe_sctp_result(t, errno, IWCM_STATUS_OK);
			snprintf(reason, len, "%s", strerror(errno));
			goto out;
		}
		t = iwcm_event_get_type(ev);
		if (iwcm_event_get_conn(ev) == c) {
			iwcm_ack_event(ev);
			break;
		}
		iwcm_ack_event(ev);
	}
	if (iwcm_conn_query(c, &a) < 0)
		a.comp_mask = 0;
	if (t == IWCM_CM_EVENT_ESTABLISHED) {
		row->result = IWCM__RESULT__RES_OK;
		est->mpa_rev = 0;
		est->enhanced = a.enhanced;
		est->ird = a.ird;
		est->ord = a.ord;
		row->est = est;
	} else {
		row->result = probe_sctp_result(t, EPROTO, a.reason);
		if (a.reason_text)
			snprintf(reason, len, "%s", a.reason_text);
	}
	if (a.comp_mask & IWCM_CONN_ATTR_PEER) {
		row->sctp_answer = true;
		row->sctp_enhanced = a.peer_enhanced;
		row->sctp_ird = a.peer_ird;
		row->sctp_ord = a.peer_ord;
	}
out:
	if (c)
		iwcm_conn_free(c);
	if (ctx)
		iwcm_ctx_close(ctx);
	iwcm_conn_param_free(p);
}
