/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <stddef.h>

#include "sctp_session_fsm.h"

#define S(x) (1u << SESS_S_##x)

const char *const sctp_session_state_names[SESS_S_MAX] = {
	[SESS_S_NONE] = "NONE",
	[SESS_S_WAIT_REPLY] = "WAIT_REPLY",
	[SESS_S_WAIT_ULP] = "WAIT_ULP",
	[SESS_S_HANDOFF] = "HANDOFF",
	[SESS_S_ESTABLISHED] = "ESTABLISHED",
	[SESS_S_TERM_SENT] = "TERM_SENT",
	[SESS_S_CLOSED] = "CLOSED",
};

const char *const sctp_session_event_names[SESS_EV_MAX] = {
	[SESS_EV_START_CONNECT] = "START_CONNECT",
	[SESS_EV_INITIATE] = "INITIATE",
	[SESS_EV_ULP_ACCEPT] = "ULP_ACCEPT",
	[SESS_EV_ULP_REJECT] = "ULP_REJECT",
	[SESS_EV_ULP_GONE] = "ULP_GONE",
	[SESS_EV_ULP_CLOSE] = "ULP_CLOSE",
	[SESS_EV_ACCEPT] = "ACCEPT",
	[SESS_EV_REJECT] = "REJECT",
	[SESS_EV_NEG_FAIL] = "NEG_FAIL",
	[SESS_EV_SEGMENT] = "SEGMENT",
	[SESS_EV_TERMINATE] = "TERMINATE",
	[SESS_EV_ILLEGAL] = "ILLEGAL",
	[SESS_EV_TIMEOUT] = "TIMEOUT",
	[SESS_EV_HANDOFF_DONE] = "HANDOFF_DONE",
	[SESS_EV_HANDOFF_FAILED] = "HANDOFF_FAILED",
	[SESS_EV_ASSOC_DOWN] = "ASSOC_DOWN",
};

const char *const sctp_session_action_names[SESS_A_MAX] = {
	[SESS_A_NONE] = "none",
	[SESS_A_SEND_INITIATE] = "send_initiate",
	[SESS_A_NOTIFY_REQUEST] = "notify_request",
	[SESS_A_ACCEPT_HANDOFF] = "accept_handoff",
	[SESS_A_REJECT] = "reject",
	[SESS_A_HANDOFF] = "handoff",
	[SESS_A_NOTIFY_REJECTED] = "notify_rejected",
	[SESS_A_RELAY] = "relay",
	[SESS_A_PEER_TERM] = "peer_term",
	[SESS_A_TERMINATE] = "terminate",
	[SESS_A_TERM_ERROR] = "term_error",
	[SESS_A_ERROR] = "error",
	[SESS_A_CLOSE] = "close",
};

const char *const sctp_session_guard_names[SESS_G_MAX] = {
	[SESS_G_NONE] = "-",
	[SESS_G_NO_LISTENER] = "no_listener",
	[SESS_G_PENDING_FULL] = "pending_full",
};

/* clang-format off */
#define R(st, ev, g, a, n)                                                   \
	{ st, SESS_EV_##ev, SESS_G_##g, SESS_A_##a, SESS_S_##n }
/* accepted: segments flow, the owner has (or is getting) the session */
#define S_OPEN (S(HANDOFF) | S(ESTABLISHED))

/*
 * First matching row wins; guarded rows of a pair come first.  RFC 5043
 * §6.2-6.4 and RFC 6581 §7 are the legal sequences, the comments name
 * the rule.
 */
static const struct sess_fsm_row sess_fsm_tab[] = {
	/* active side (§6.2): the Initiate starts the session */
	R(S(NONE), START_CONNECT, NONE, SEND_INITIATE, WAIT_REPLY),

	/*
	 * passive side: an Initiate on a free stream goes to the owner;
	 * without one, or over the pending limit, it is answered with a
	 * Terminate (§5.2.3, §6.4 non-ULP rejection)
	 */
	R(S(NONE), INITIATE, NO_LISTENER, TERMINATE, CLOSED),
	R(S(NONE), INITIATE, PENDING_FULL, TERMINATE, CLOSED),
	R(S(NONE), INITIATE, NONE, NOTIFY_REQUEST, WAIT_ULP),
	/* a stray Terminate on a free stream ends nothing: answering it
	 * would bounce Terminates between the two sides */
	R(S(NONE), TERMINATE, NONE, CLOSE, CLOSED),

	/* active: the passive side's answer (§6.2, §6.3, §6.4) */
	R(S(WAIT_REPLY), ACCEPT, NONE, HANDOFF, HANDOFF),
	R(S(WAIT_REPLY), REJECT, NONE, NOTIFY_REJECTED, CLOSED),
	R(S(WAIT_REPLY), TERMINATE, NONE, NOTIFY_REJECTED, CLOSED),
	/* RFC 6581 §9.1: IRD/ORD not acceptable; the peer may already
	 * send segments after its Accept */
	R(S(WAIT_REPLY), NEG_FAIL, NONE, TERM_ERROR, TERM_SENT),
	R(S(WAIT_REPLY), TIMEOUT, NONE, TERM_ERROR, TERM_SENT),
	R(S(WAIT_REPLY), ULP_GONE, NONE, TERMINATE, TERM_SENT),

	/*
	 * passive: the owner decides.  A Reject only at the ULP's
	 * direction (§6.3); otherwise a Terminate (§6.4).
	 */
	R(S(WAIT_ULP), ULP_ACCEPT, NONE, ACCEPT_HANDOFF, HANDOFF),
	R(S(WAIT_ULP), ULP_REJECT, NONE, REJECT, CLOSED),
	R(S(WAIT_ULP), ULP_GONE, NONE, TERMINATE, CLOSED),
	R(S(WAIT_ULP), TIMEOUT, NONE, TERMINATE, CLOSED),
	/* the active side withdrew its Initiate */
	R(S(WAIT_ULP), TERMINATE, NONE, TERM_ERROR, CLOSED),

	/* accepted (§6.2): segments both ways, then Terminates */
	R(S(HANDOFF), HANDOFF_DONE, NONE, NONE, ESTABLISHED),
	R(S(HANDOFF), HANDOFF_FAILED, NONE, TERMINATE, TERM_SENT),
	R(S(HANDOFF), SEGMENT, NONE, RELAY, HANDOFF),
	R(S(ESTABLISHED), SEGMENT, NONE, RELAY, ESTABLISHED),
	R(S_OPEN, TERMINATE, NONE, PEER_TERM, CLOSED),
	R(S(ESTABLISHED), ULP_CLOSE, NONE, TERMINATE, TERM_SENT),
	R(S_OPEN, ULP_GONE, NONE, TERMINATE, TERM_SENT),

	/* our Terminate is out: the peer's direction winds down */
	R(S(TERM_SENT), SEGMENT, NONE, NONE, TERM_SENT),
	R(S(TERM_SENT), ACCEPT, NONE, NONE, TERM_SENT),
	R(S(TERM_SENT), ULP_GONE, NONE, NONE, TERM_SENT),
	R(S(TERM_SENT), ULP_CLOSE, NONE, NONE, TERM_SENT),
	R(S(TERM_SENT), REJECT, NONE, CLOSE, CLOSED),
	R(S(TERM_SENT), TERMINATE, NONE, CLOSE, CLOSED),
	R(S(TERM_SENT), TIMEOUT, NONE, CLOSE, CLOSED),
	R(S(TERM_SENT), ASSOC_DOWN, NONE, CLOSE, CLOSED),

	/* the association ends under a live session (the daemon's end too) */
	R(S(WAIT_REPLY) | S(WAIT_ULP) | S_OPEN, ASSOC_DOWN, NONE, ERROR,
	  CLOSED),
};
/* clang-format on */

#define N_ROWS (sizeof(sess_fsm_tab) / sizeof(sess_fsm_tab[0]))

/* The action a pair missing from the table runs in state s. */
enum sess_action sctp_session_fsm_error_action(enum sess_state s)
{
	switch (s) {
	case SESS_S_NONE:
		return SESS_A_TERMINATE; /* RFC 5043 §6.1 */
	case SESS_S_TERM_SENT:
		return SESS_A_CLOSE; /* already terminated */
	case SESS_S_CLOSED:
	case SESS_S_MAX:
		return SESS_A_NONE;
	default:
		return SESS_A_TERM_ERROR;
	}
}

/* Whether guard g lets its row be taken (ops NULL: any guard does). */
static bool sess_guard_holds(enum sess_guard g, const struct sess_fsm_ops *ops,
			     void *arg)
{
	if (g == SESS_G_NONE || !ops)
		return true;
	return ops->guard[g] && ops->guard[g](arg);
}

/* The row sctp_session_fsm() takes for (state, event). */
const struct sess_fsm_row *
sctp_session_fsm_match(enum sess_state s, enum sess_event ev,
		       const struct sess_fsm_ops *ops, void *arg)
{
	size_t i;

	if ((unsigned)s >= SESS_S_MAX || (unsigned)ev >= SESS_EV_MAX)
		return NULL;
	for (i = 0; i < N_ROWS; i++)
		if ((sess_fsm_tab[i].states & (1u << s)) &&
		    sess_fsm_tab[i].event == ev &&
		    sess_guard_holds(sess_fsm_tab[i].guard, ops, arg))
			return &sess_fsm_tab[i];
	return NULL;
}

static void sess_change_state(struct sess_fsm *f, enum sess_state next,
			      enum sess_event ev,
			      const struct sess_fsm_ops *ops)
{
	if (f->state != next && ops->log)
		ops->log(f->arg, "session %llu: %s -> %s (%s)",
			 (unsigned long long)f->id,
			 sctp_session_state_names[f->state],
			 sctp_session_state_names[next],
			 sctp_session_event_names[ev]);
	f->state = next;
}

static int sess_run(struct sess_fsm *f, enum sess_action a, enum sess_event ev,
		    const struct sess_fsm_ops *ops)
{
	if (a == SESS_A_NONE || !ops->action[a])
		return 0;
	return ops->action[a](f->arg, ev);
}

/* Feed ev to f: find the row, run its action, change state. */
int sctp_session_fsm(struct sess_fsm *f, enum sess_event ev,
		     const struct sess_fsm_ops *ops)
{
	const struct sess_fsm_row *row;
	enum sess_action a;

	if ((unsigned)ev >= SESS_EV_MAX)
		ev = SESS_EV_ILLEGAL;
	row = sctp_session_fsm_match(f->state, ev, ops, f->arg);
	if (!row) {
		if (ops->log)
			ops->log(f->arg,
				 "session %llu: protocol error: event %s in "
				 "state %s",
				 (unsigned long long)f->id,
				 sctp_session_event_names[ev],
				 sctp_session_state_names[f->state]);
		if (f->state != SESS_S_CLOSED) {
			sess_run(f, sctp_session_fsm_error_action(f->state), ev,
				 ops);
			sess_change_state(f, SESS_S_CLOSED, ev, ops);
		}
		return -1;
	}
	if (sess_run(f, row->action, ev, ops) < 0) {
		a = row->action;
		if (ops->log)
			ops->log(f->arg, "session %llu: action %s failed in %s",
				 (unsigned long long)f->id,
				 sctp_session_action_names[a],
				 sctp_session_state_names[f->state]);
		if (a != SESS_A_TERM_ERROR && a != SESS_A_ERROR &&
		    a != SESS_A_CLOSE)
			sess_run(f, SESS_A_TERM_ERROR, ev, ops);
		sess_change_state(f, SESS_S_CLOSED, ev, ops);
		return -1;
	}
	sess_change_state(f, row->next, ev, ops);
	return 0;
}
