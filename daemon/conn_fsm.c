/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <stddef.h>

#include "conn_fsm.h"

#define S(x) (1u << CONN_S_##x)
/* every state that still negotiates (not NONE, not final) */
#define S_LIVE                                                           \
	(S(CONNECTING) | S(WAIT_REQUEST) | S(WAIT_ROUTE) | S(WAIT_ULP) | \
	 S(DECIDED) | S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP) |  \
	 S(HOLD) | S(HANDOFF))

const char *const conn_state_names[CONN_S_MAX] = {
	[CONN_S_NONE] = "NONE",
	[CONN_S_CONNECTING] = "CONNECTING",
	[CONN_S_WAIT_REQUEST] = "WAIT_REQUEST",
	[CONN_S_WAIT_ROUTE] = "WAIT_ROUTE",
	[CONN_S_WAIT_ULP] = "WAIT_ULP",
	[CONN_S_DECIDED] = "DECIDED",
	[CONN_S_WAIT_REPLY] = "WAIT_REPLY",
	[CONN_S_WAIT_RTR] = "WAIT_RTR",
	[CONN_S_WAIT_READ_RESP] = "WAIT_READ_RESP",
	[CONN_S_HOLD] = "HOLD",
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
	[CONN_EV_ROUTE] = "ROUTE",
	[CONN_EV_ROUTE_FAILED] = "ROUTE_FAILED",
	[CONN_EV_DECIDE_ACCEPT] = "DECIDE_ACCEPT",
	[CONN_EV_DECIDE_REJECT] = "DECIDE_REJECT",
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
	[CONN_A_WAIT_ULP] = "wait_ulp",
	[CONN_A_NOTIFY_REQUEST] = "notify_request",
	[CONN_A_DECIDE] = "decide",
	[CONN_A_REJECT_BACKLOG] = "reject_backlog",
	[CONN_A_REJECT_UID] = "reject_uid",
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
	[CONN_A_HOLD] = "hold",
};

const char *const conn_guard_names[CONN_G_MAX] = {
	[CONN_G_NONE] = "-",
	[CONN_G_NO_LISTENER] = "no_listener",
	[CONN_G_BACKLOG_FULL] = "backlog_full",
	[CONN_G_NO_CLIENT] = "no_client",
	[CONN_G_UID_LIMIT] = "uid_limit",
	[CONN_G_HOLD] = "hold",
	[CONN_G_RTR_READ] = "rtr_read",
	[CONN_G_RTR] = "rtr",
};

/* One row: states, event, guard, action, next state.  The table is kept
 * out of clang-format: a comment under a row belongs to that row. */
/* clang-format off */
#define R(st, ev, g, a, n)                                                   \
	{ st, CONN_EV_##ev, CONN_G_##g, CONN_A_##a, CONN_S_##n }
#define WAITING_PEER (S(WAIT_REPLY) | S(WAIT_RTR) | S(WAIT_READ_RESP))

/*
 * First matching row wins: within a (state, event) pair the guarded rows
 * come first and the last row has no guard.  RFC 5044 §7.1.2 and RFC
 * 6581 §9-10 decide the paths; the comments name the rule.
 */
static const struct conn_fsm_row conn_fsm_tab[] = {
	/* start */
	R(S(NONE), START_CONNECT, NONE, CONNECT, CONNECTING),
	R(S(NONE), START_ACCEPT, NONE, WAIT_REQUEST, WAIT_REQUEST),

	/* initiator: TCP */
	R(S(CONNECTING), TCP_CONNECTED, NONE, SEND_REQUEST, WAIT_REPLY),
					/* §7.1.2 rule 1 */
	R(S(CONNECTING), TCP_FAILED, NONE, UNREACHABLE, CLOSED),
	R(S(CONNECTING), TIMEOUT, NONE, UNREACHABLE, CLOSED),

	/*
	 * responder: the Request goes to a client of the listener, which
	 * decides (§7.1.2 rule 2); the listener's backlog and the
	 * client's uid are bounded, over them the peer gets R=1.
	 */
	R(S(WAIT_REQUEST), REQUEST, NO_LISTENER, REJECT, CLOSED),
	R(S(WAIT_REQUEST), REQUEST, BACKLOG_FULL, REJECT_BACKLOG, CLOSED),
	R(S(WAIT_REQUEST), REQUEST, NONE, WAIT_ULP, WAIT_ROUTE),
	R(S(WAIT_REQUEST), TERM, NONE, TERM, CLOSED),
	R(S(WAIT_REQUEST), BAD, NONE, CLOSE, CLOSED),
	R(S(WAIT_REQUEST), TIMEOUT, NONE, CLOSE, CLOSED),
	R(S(WAIT_REQUEST), PEER_CLOSED, NONE, CLOSE, CLOSED),
	R(S(WAIT_REQUEST), ULP_GONE, NONE, CLOSE, CLOSED),
	R(S(WAIT_ROUTE), ROUTE, NO_CLIENT, NONE, WAIT_ROUTE),
	R(S(WAIT_ROUTE), ROUTE, UID_LIMIT, REJECT_UID, CLOSED),
	R(S(WAIT_ROUTE), ROUTE, NONE, NOTIFY_REQUEST, WAIT_ULP),
	R(S(WAIT_ULP), ROUTE, NONE, NONE, WAIT_ULP),
	R(S(DECIDED), ROUTE, NONE, NONE, DECIDED),
	R(S(WAIT_ULP), ROUTE_FAILED, NONE, NONE, WAIT_ROUTE),
	R(S(WAIT_ULP), DECIDE_ACCEPT, NONE, DECIDE, DECIDED),
	R(S(WAIT_ULP), DECIDE_REJECT, NONE, DECIDE, DECIDED),
	R(S(DECIDED), ULP_ACCEPT, NONE, REPLY_HANDOFF, HANDOFF),
	R(S(DECIDED), ULP_ACCEPT_RTR, NONE, REPLY_WAIT_RTR, WAIT_RTR),
					/* RFC 6581 §9.3 */
	R(S(DECIDED), ULP_REJECT, NONE, REJECT, CLOSED),
	R(S(WAIT_ROUTE) | S(WAIT_ULP), TIMEOUT, NONE, REJECT, CLOSED),
	R(S(WAIT_ROUTE) | S(WAIT_ULP) | S(DECIDED), ULP_GONE, NONE, REJECT,
	  CLOSED),
	R(S(WAIT_ROUTE) | S(WAIT_ULP) | S(DECIDED), PEER_CLOSED, NONE, ERROR,
	  CLOSED),
	R(S(WAIT_ROUTE) | S(WAIT_ULP) | S(DECIDED), BAD, NONE, ERROR, CLOSED),

	/*
	 * initiator: Reply (§7.1.2 rules 3, 5, 8; RFC 6581 §9.1-9.3, §10);
	 * with first_fpdu_delay_ms the first FPDU (the RTR, or the ULP's
	 * first after the handoff) waits in HOLD, for responders that miss
	 * one sent at once (docs/interop.md)
	 */
	R(S(WAIT_REPLY), REPLY, HOLD, HOLD, HOLD),
	R(S(WAIT_REPLY), REPLY, NONE, HANDOFF, HANDOFF),
	R(S(WAIT_REPLY), REPLY_RTR, HOLD, HOLD, HOLD),
	R(S(WAIT_REPLY), REPLY_RTR, NONE, RTR_HANDOFF, HANDOFF),
	R(S(WAIT_REPLY), REPLY_RTR_READ, HOLD, HOLD, HOLD),
	R(S(WAIT_REPLY), REPLY_RTR_READ, RTR_READ, RTR_READ, WAIT_READ_RESP),
	R(S(WAIT_REPLY), REPLY_RTR_READ, NONE, RTR_HANDOFF, HANDOFF),
	R(S(HOLD), TIMEOUT, RTR_READ, RTR_READ, WAIT_READ_RESP),
	R(S(HOLD), TIMEOUT, RTR, RTR_HANDOFF, HANDOFF),
	R(S(HOLD), TIMEOUT, NONE, HANDOFF, HANDOFF),
	R(S(HOLD), PEER_CLOSED, NONE, ERROR, CLOSED),
	R(S(HOLD), BAD, NONE, ERROR, CLOSED),
	R(S(WAIT_REPLY), REPLY_REJECT, NONE, NOTIFY_REJECTED, CLOSED),
	R(S(WAIT_REPLY), RETRY_V1, NONE, RECONNECT_V1, CONNECTING),
	R(S(WAIT_REPLY), TERM, NONE, TERM, CLOSED),

	/* responder: the RTR (RFC 6581 §9.2) */
	R(S(WAIT_RTR), RTR, NONE, HANDOFF, HANDOFF),
	R(S(WAIT_RTR), RTR_READ, NONE, READ_RESP_HANDOFF, HANDOFF),
	R(S(WAIT_RTR), TERM, NONE, TERM, CLOSED),

	/* initiator: the Read RTR's zero-length Read Response */
	R(S(WAIT_READ_RESP), READ_RESP, NONE, HANDOFF, HANDOFF),
	R(S(WAIT_READ_RESP), TERM, NONE, TERM, CLOSED),

	/* failures while waiting on the peer, with an owner to tell */
	R(WAITING_PEER, BAD, NONE, ERROR, CLOSED),
	R(WAITING_PEER, TIMEOUT, NONE, ERROR, CLOSED),
	R(WAITING_PEER, PEER_CLOSED, NONE, ERROR, CLOSED),
	R(S(CONNECTING) | WAITING_PEER | S(HOLD), ULP_GONE, NONE, CLOSE,
	  CLOSED),

	/* handoff */
	R(S(HANDOFF), HANDOFF_DONE, NONE, RELEASE, DONE),
	R(S(HANDOFF), HANDOFF_FAILED, NONE, CLOSE, CLOSED),
	R(S(HANDOFF), ULP_GONE, NONE, CLOSE, CLOSED),

	/* shutdown / kill, from anywhere still alive */
	R(S_LIVE, ABORT, NONE, ERROR, CLOSED),
};
/* clang-format on */

/* The first row for (state, event) whatever its guard, or NULL. */
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

static bool conn_guard_holds(enum conn_guard g, const struct conn_fsm_ops *ops,
			     void *arg)
{
	if (g == CONN_G_NONE)
		return true;
	/* a guard nobody can answer never holds: the unguarded row runs */
	return ops->guard[g] && ops->guard[g](arg);
}

/* The row conn_fsm() takes for (state, event), asking ops->guard. */
const struct conn_fsm_row *conn_fsm_match(enum conn_state s, enum conn_event ev,
					  const struct conn_fsm_ops *ops,
					  void *arg)
{
	size_t i;

	if ((unsigned)s >= CONN_S_MAX || (unsigned)ev >= CONN_EV_MAX)
		return NULL;
	for (i = 0; i < sizeof(conn_fsm_tab) / sizeof(conn_fsm_tab[0]); i++)
		if ((conn_fsm_tab[i].states & (1u << s)) &&
		    conn_fsm_tab[i].event == ev &&
		    conn_guard_holds(conn_fsm_tab[i].guard, ops, arg))
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

static int conn_run(struct conn_fsm *f, enum conn_action a, enum conn_event ev,
		    const struct conn_fsm_ops *ops)
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
	row = conn_fsm_match(f->state, ev, ops, f->arg);
	if (!row) {
		if (ops->log)
			ops->log(f->arg,
				 "conn %llu: protocol error: event "
				 "%s in state %s",
				 (unsigned long long)f->id,
				 conn_event_names[ev],
				 conn_state_names[f->state]);
		if (!conn_state_final(f->state)) {
			conn_run(f,
				 f->state == CONN_S_NONE ? CONN_A_CLOSE :
							   CONN_A_ERROR,
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
