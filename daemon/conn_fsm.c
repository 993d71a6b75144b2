/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <stddef.h>

#include "conn_fsm.h"

#define S(x) (1u << CONN_S_##x)
/* every state that still negotiates (not NONE, not final) */
#define S_LIVE                                                               \
	(S(CONNECTING) | S(WAIT_REQUEST) | S(WAIT_ULP) | S(WAIT_REPLY) |     \
	 S(WAIT_RTR) | S(WAIT_READ_RESP) | S(HANDOFF))

const char *const conn_state_names[CONN_S_MAX] = {
	[CONN_S_NONE] = "NONE",
	[CONN_S_CONNECTING] = "CONNECTING",
	[CONN_S_WAIT_REQUEST] = "WAIT_REQUEST",
	[CONN_S_WAIT_ULP] = "WAIT_ULP",
	[CONN_S_WAIT_REPLY] = "WAIT_REPLY",
	[CONN_S_WAIT_RTR] = "WAIT_RTR",
	[CONN_S_WAIT_READ_RESP] = "WAIT_READ_RESP",
	[CONN_S_HANDOFF] = "HANDOFF",
	[CONN_S_DONE] = "DONE",
	[CONN_S_CLOSED] = "CLOSED",
};

const char *const conn_event_names[CONN_EV_MAX] = {
	[CONN_EV_START_CONNECT] = "START_CONNECT",
	[CONN_EV_START_ACCEPT] = "START_ACCEPT",
	[CONN_EV_TCP_CONNECTED] = "TCP_CONNECTED",
	[CONN_EV_TCP_FAILED] = "TCP_FAILED",
	[CONN_EV_REQUEST] = "REQUEST",
	[CONN_EV_ULP_ACCEPT] = "ULP_ACCEPT",
	[CONN_EV_ULP_ACCEPT_RTR] = "ULP_ACCEPT_RTR",
	[CONN_EV_ULP_REJECT] = "ULP_REJECT",
	[CONN_EV_ULP_GONE] = "ULP_GONE",
	[CONN_EV_REPLY] = "REPLY",
	[CONN_EV_REPLY_RTR] = "REPLY_RTR",
	[CONN_EV_REPLY_RTR_READ] = "REPLY_RTR_READ",
	[CONN_EV_REPLY_REJECT] = "REPLY_REJECT",
	[CONN_EV_RETRY_V1] = "RETRY_V1",
	[CONN_EV_RTR] = "RTR",
	[CONN_EV_RTR_READ] = "RTR_READ",
	[CONN_EV_READ_RESP] = "READ_RESP",
	[CONN_EV_TERM] = "TERM",
	[CONN_EV_BAD] = "BAD",
	[CONN_EV_PEER_CLOSED] = "PEER_CLOSED",
	[CONN_EV_TIMEOUT] = "TIMEOUT",
	[CONN_EV_HANDOFF_DONE] = "HANDOFF_DONE",
	[CONN_EV_HANDOFF_FAILED] = "HANDOFF_FAILED",
	[CONN_EV_ABORT] = "ABORT",
};

const char *const conn_action_names[CONN_A_MAX] = {
	[CONN_A_NONE] = "none",
	[CONN_A_CONNECT] = "connect",
	[CONN_A_WAIT_REQUEST] = "wait_request",
	[CONN_A_SEND_REQUEST] = "send_request",
	[CONN_A_NOTIFY_REQUEST] = "notify_request",
	[CONN_A_REPLY_HANDOFF] = "reply_handoff",
	[CONN_A_REPLY_WAIT_RTR] = "reply_wait_rtr",
	[CONN_A_REJECT] = "reject",
	[CONN_A_HANDOFF] = "handoff",
	[CONN_A_RTR_HANDOFF] = "rtr_handoff",
	[CONN_A_RTR_READ] = "rtr_read",
	[CONN_A_READ_RESP_HANDOFF] = "read_resp_handoff",
	[CONN_A_NOTIFY_REJECTED] = "notify_rejected",
	[CONN_A_RECONNECT_V1] = "reconnect_v1",
	[CONN_A_TERM] = "term",
	[CONN_A_UNREACHABLE] = "unreachable",
	[CONN_A_ERROR] = "error",
	[CONN_A_CLOSE] = "close",
	[CONN_A_RELEASE] = "release",
};

/*
 * First matching row wins.  RFC 5044 §7.1.2 and RFC 6581 §9-10 decide
 * the paths; the comments name the rule.
 */
static const struct conn_fsm_row conn_fsm_tab[] = {
	/* start */
	{ S(NONE), CONN_EV_START_CONNECT, CONN_A_CONNECT, CONN_S_CONNECTING },
	{ S(NONE), CONN_EV_START_ACCEPT, CONN_A_WAIT_REQUEST,
	  CONN_S_WAIT_REQUEST },

	/* initiator: TCP */
	{ S(CONNECTING), CONN_EV_TCP_CONNECTED, CONN_A_SEND_REQUEST,
	  CONN_S_WAIT_REPLY },		/* §7.1.2 rule 1 */
	{ S(CONNECTING), CONN_EV_TCP_FAILED, CONN_A_UNREACHABLE,
	  CONN_S_CLOSED },
	{ S(CONNECTING), CONN_EV_TIMEOUT, CONN_A_UNREACHABLE, CONN_S_CLOSED },

	/* responder: Request, then the ULP's decision (§7.1.2 rule 2) */
	{ S(WAIT_REQUEST), CONN_EV_REQUEST, CONN_A_NOTIFY_REQUEST,
	  CONN_S_WAIT_ULP },
	{ S(WAIT_REQUEST), CONN_EV_TERM, CONN_A_TERM, CONN_S_CLOSED },
	{ S(WAIT_REQUEST), CONN_EV_BAD, CONN_A_CLOSE, CONN_S_CLOSED },
	{ S(WAIT_REQUEST), CONN_EV_TIMEOUT, CONN_A_CLOSE, CONN_S_CLOSED },
	{ S(WAIT_REQUEST), CONN_EV_PEER_CLOSED, CONN_A_CLOSE, CONN_S_CLOSED },
	{ S(WAIT_REQUEST), CONN_EV_ULP_GONE, CONN_A_CLOSE, CONN_S_CLOSED },
	{ S(WAIT_ULP), CONN_EV_ULP_ACCEPT, CONN_A_REPLY_HANDOFF,
	  CONN_S_HANDOFF },
	{ S(WAIT_ULP), CONN_EV_ULP_ACCEPT_RTR, CONN_A_REPLY_WAIT_RTR,
	  CONN_S_WAIT_RTR },		/* RFC 6581 §9.3 */
	{ S(WAIT_ULP), CONN_EV_ULP_REJECT, CONN_A_REJECT, CONN_S_CLOSED },
	{ S(WAIT_ULP), CONN_EV_TIMEOUT, CONN_A_REJECT, CONN_S_CLOSED },
	{ S(WAIT_ULP), CONN_EV_ULP_GONE, CONN_A_REJECT, CONN_S_CLOSED },
	{ S(WAIT_ULP), CONN_EV_PEER_CLOSED, CONN_A_ERROR, CONN_S_CLOSED },
	{ S(WAIT_ULP), CONN_EV_BAD, CONN_A_ERROR, CONN_S_CLOSED },

	/* initiator: Reply (§7.1.2 rules 3, 5, 8; RFC 6581 §9.1-9.3, §10) */
	{ S(WAIT_REPLY), CONN_EV_REPLY, CONN_A_HANDOFF, CONN_S_HANDOFF },
	{ S(WAIT_REPLY), CONN_EV_REPLY_RTR, CONN_A_RTR_HANDOFF,
	  CONN_S_HANDOFF },
	{ S(WAIT_REPLY), CONN_EV_REPLY_RTR_READ, CONN_A_RTR_READ,
	  CONN_S_WAIT_READ_RESP },
	{ S(WAIT_REPLY), CONN_EV_REPLY_REJECT, CONN_A_NOTIFY_REJECTED,
	  CONN_S_CLOSED },
	{ S(WAIT_REPLY), CONN_EV_RETRY_V1, CONN_A_RECONNECT_V1,
	  CONN_S_CONNECTING },
	{ S(WAIT_REPLY), CONN_EV_TERM, CONN_A_TERM, CONN_S_CLOSED },

	/* responder: the RTR (RFC 6581 §9.2) */
	{ S(WAIT_RTR), CONN_EV_RTR, CONN_A_HANDOFF, CONN_S_HANDOFF },
	{ S(WAIT_RTR), CONN_EV_RTR_READ, CONN_A_READ_RESP_HANDOFF,
	  CONN_S_HANDOFF },
	{ S(WAIT_RTR), CONN_EV_TERM, CONN_A_TERM, CONN_S_CLOSED },

	/* initiator: the Read RTR's zero-length Read Response */
	{ S(WAIT_READ_RESP), CONN_EV_READ_RESP, CONN_A_HANDOFF,
	  CONN_S_HANDOFF },
	{ S(WAIT_READ_RESP), CONN_EV_TERM, CONN_A_TERM, CONN_S_CLOSED },

	/* failures while waiting on the peer, with an owner to tell */
	{ S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP), CONN_EV_BAD,
	  CONN_A_ERROR, CONN_S_CLOSED },
	{ S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP), CONN_EV_TIMEOUT,
	  CONN_A_ERROR, CONN_S_CLOSED },
	{ S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP),
	  CONN_EV_PEER_CLOSED, CONN_A_ERROR, CONN_S_CLOSED },
	{ S(CONNECTING) | S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP),
	  CONN_EV_ULP_GONE, CONN_A_CLOSE, CONN_S_CLOSED },

	/* handoff */
	{ S(HANDOFF), CONN_EV_HANDOFF_DONE, CONN_A_RELEASE, CONN_S_DONE },
	{ S(HANDOFF), CONN_EV_HANDOFF_FAILED, CONN_A_CLOSE, CONN_S_CLOSED },
	{ S(HANDOFF), CONN_EV_ULP_GONE, CONN_A_CLOSE, CONN_S_CLOSED },

	/* shutdown / kill, from anywhere still alive */
	{ S_LIVE, CONN_EV_ABORT, CONN_A_ERROR, CONN_S_CLOSED },
};

/* The row for (state, event), or NULL. */
const struct conn_fsm_row *conn_fsm_lookup(enum conn_state s,
					   enum conn_event ev)
{
	size_t i;

	if ((unsigned)s >= CONN_S_MAX || (unsigned)ev >= CONN_EV_MAX)
		return NULL;
	for (i = 0; i < sizeof(conn_fsm_tab) / sizeof(conn_fsm_tab[0]); i++)
		if ((conn_fsm_tab[i].states & (1u << s)) &&
		    conn_fsm_tab[i].event == ev)
			return &conn_fsm_tab[i];
	return NULL;
}

static void conn_change_state(struct conn_fsm *f, enum conn_state next,
			      enum conn_event ev,
			      const struct conn_fsm_ops *ops)
{
	if (f->state != next && ops->log)
		ops->log(f->arg, "conn %llu: %s -> %s (%s)",
			 (unsigned long long)f->id, conn_state_names[f->state],
			 conn_state_names[next], conn_event_names[ev]);
	f->state = next;
}

static int conn_run(struct conn_fsm *f, enum conn_action a,
		    enum conn_event ev, const struct conn_fsm_ops *ops)
{
	if (a == CONN_A_NONE || !ops->action[a])
		return 0;
	return ops->action[a](f->arg, ev);
}

/* Feed ev to f: find the row, run its action, change state. */
int conn_fsm(struct conn_fsm *f, enum conn_event ev,
	     const struct conn_fsm_ops *ops)
{
	const struct conn_fsm_row *row;

	if ((unsigned)ev >= CONN_EV_MAX)
		ev = CONN_EV_BAD;
	row = conn_fsm_lookup(f->state, ev);
	if (!row) {
		if (ops->log)
			ops->log(f->arg, "conn %llu: protocol error: event "
				 "%s in state %s",
				 (unsigned long long)f->id,
				 conn_event_names[ev],
				 conn_state_names[f->state]);
		if (!conn_state_final(f->state)) {
			conn_run(f, f->state == CONN_S_NONE ? CONN_A_CLOSE
							    : CONN_A_ERROR,
				 ev, ops);
			conn_change_state(f, CONN_S_CLOSED, ev, ops);
		}
		return -1;
	}
	if (conn_run(f, row->action, ev, ops) < 0) {
		if (ops->log)
			ops->log(f->arg, "conn %llu: action %s failed in %s",
				 (unsigned long long)f->id,
				 conn_action_names[row->action],
				 conn_state_names[f->state]);
		if (row->action != CONN_A_ERROR && row->action != CONN_A_CLOSE)
			conn_run(f, CONN_A_ERROR, ev, ops);
		conn_change_state(f, CONN_S_CLOSED, ev, ops);
		return -1;
	}
	conn_change_state(f, row->next, ev, ops);
	return 0;
}
