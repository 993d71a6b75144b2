/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The association events of both SCTP stacks, one table (sctp_assoc.h):
 * {state mask, event, action, why}, the first row that matches the
 * state and the event acts; a pair no row names is ignored.  And the
 * socket options that make a socket DDP's, set alike on both stacks,
 * each with its own numbers (SCTP_AS_CONSTS) and setsockopt.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sctp_assoc.h"
#include "sctp_ss.h"

static struct event_base *sctp_as_base;
static unsigned int sctp_as_wait_ms, sctp_as_count;

const char *const sctp_as_state_names[SCTP_AS_STATES] = {
	[SCTP_AS_LISTEN] = "LISTEN",
	[SCTP_AS_CONNECTING] = "CONNECTING",
	[SCTP_AS_WAIT_ADAPT] = "WAIT_ADAPT",
	[SCTP_AS_UP] = "UP",
	[SCTP_AS_DOWN] = "DOWN",
};

const char *const sctp_as_event_names[SCTP_AE_EVENTS] = {
	[SCTP_AE_COMM_UP] = "COMM_UP",
	[SCTP_AE_COMM_LOST] = "COMM_LOST",
	[SCTP_AE_RESTART] = "RESTART",
	[SCTP_AE_SHUTDOWN_COMP] = "SHUTDOWN_COMP",
	[SCTP_AE_CANT_STR_ASSOC] = "CANT_STR_ASSOC",
	[SCTP_AE_ADAPTATION] = "ADAPTATION",
	[SCTP_AE_SHUTDOWN] = "SHUTDOWN",
	[SCTP_AE_ADAPT_TIMEOUT] = "ADAPT_TIMEOUT",
	[SCTP_AE_DATA] = "DATA",
	[SCTP_AE_TOO_BIG] = "TOO_BIG",
	[SCTP_AE_NO_RCVINFO] = "NO_RCVINFO",
};

enum sctp_as_action {
	AA_COMM_UP, /* streams noted, wait for (or check) the indication */
	AA_ADAPT,   /* the peer's indication noted, checked once up */
	AA_DOWN,    /* report down */
	AA_ABORT,   /* ABORT, report down */
	AA_DELIVER, /* the message goes to the owner */
};

#define M(s) (1u << (s))
#define LIVE (M(SCTP_AS_CONNECTING) | M(SCTP_AS_WAIT_ADAPT) | M(SCTP_AS_UP))

static const struct {
	unsigned int states;
	enum sctp_as_event ev;
	enum sctp_as_action act;
	const char *why;
} sctp_as_table[] = {
	{ M(SCTP_AS_CONNECTING), SCTP_AE_COMM_UP, AA_COMM_UP, NULL },
	/* usually right after COMM_UP; a stack may give it first */
	{ M(SCTP_AS_CONNECTING) | M(SCTP_AS_WAIT_ADAPT), SCTP_AE_ADAPTATION,
	  AA_ADAPT, NULL },
	{ LIVE, SCTP_AE_COMM_LOST, AA_DOWN, "association lost" },
	/* the peer's sessions are gone with its state */
	{ LIVE, SCTP_AE_RESTART, AA_ABORT, "peer restarted the association" },
	{ LIVE, SCTP_AE_SHUTDOWN_COMP, AA_DOWN, "association shut down" },
	{ LIVE, SCTP_AE_CANT_STR_ASSOC, AA_DOWN,
	  "association could not be started" },
	{ LIVE, SCTP_AE_SHUTDOWN, AA_DOWN, "peer shut the association down" },
	/* RFC 5043 §5.1: an association is DDP's only with the indication */
	{ M(SCTP_AS_CONNECTING) | M(SCTP_AS_WAIT_ADAPT), SCTP_AE_ADAPT_TIMEOUT,
	  AA_ABORT,
	  "no Adaptation Layer Indication from the peer (RFC 5043 §5.1)" },
	{ M(SCTP_AS_UP), SCTP_AE_DATA, AA_DELIVER, NULL },
	{ M(SCTP_AS_CONNECTING) | M(SCTP_AS_WAIT_ADAPT), SCTP_AE_DATA, AA_ABORT,
	  "data before the peer's Adaptation Layer Indication (RFC 5043 "
	  "§5.1)" },
	{ LIVE, SCTP_AE_TOO_BIG, AA_ABORT, "user message over 64 KiB" },
	{ LIVE, SCTP_AE_NO_RCVINFO, AA_ABORT,
	  "message without receive information" },
};

static uint16_t sctp_as_u16(const uint8_t *p)
{
	uint16_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static uint32_t sctp_as_u32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * RFC 6458 §6.1: sn_type (16), sn_flags (16), sn_length (32), then for
 * SCTP_ASSOC_CHANGE (§6.1.1) sac_state, sac_error, sac_outbound_streams,
 * sac_inbound_streams (16 each), for SCTP_ADAPTATION_INDICATION (§6.1.6)
 * sai_adaptation_ind (32); the stack's byte order.
 */
#define SN_HDR 8
#define SAC_MIN (SN_HDR + 8)
#define SAI_MIN (SN_HDR + 4)

void sctp_as_notification(struct sctp_as *a, const struct sctp_as_consts *k,
			  const uint8_t *buf, size_t len)
{
	struct sctp_as_ev e;
	uint16_t type, st;

	if (len < SN_HDR)
		return;
	memset(&e, 0, sizeof(e));
	type = sctp_as_u16(buf);
	if (type == k->assoc_change && len >= SAC_MIN) {
		st = sctp_as_u16(buf + SN_HDR);
		if (st == k->comm_up)
			e.ev = SCTP_AE_COMM_UP;
		else if (st == k->comm_lost)
			e.ev = SCTP_AE_COMM_LOST;
		else if (st == k->restart)
			e.ev = SCTP_AE_RESTART;
		else if (st == k->shutdown_comp)
			e.ev = SCTP_AE_SHUTDOWN_COMP;
		else if (st == k->cant_str_assoc)
			e.ev = SCTP_AE_CANT_STR_ASSOC;
		else
			return;
		e.out_streams = sctp_as_u16(buf + SN_HDR + 4);
		e.in_streams = sctp_as_u16(buf + SN_HDR + 6);
	} else if (type == k->adaptation && len >= SAI_MIN) {
		e.ev = SCTP_AE_ADAPTATION;
		e.adapt = sctp_as_u32(buf + SN_HDR);
	} else if (type == k->shutdown) {
		e.ev = SCTP_AE_SHUTDOWN;
	} else {
		return;
	}
	(void)sctp_as_event(a, &e);
}

void sctp_as_start(struct event_base *base, unsigned int adapt_wait_ms)
{
	sctp_as_base = base;
	sctp_as_wait_ms = adapt_wait_ms;
}

void *sctp_as_new(size_t size, const struct sctp_as_ops *ops,
		  enum sctp_as_state st, const struct sctp_cb *cb, void *arg)
{
	struct sctp_as *a = calloc(1, size);

	if (!a)
		return NULL;
	*a = (struct sctp_as){ .sock = (struct sctp_sock *)(void *)a,
			       .ops = ops,
			       .state = st,
			       .cb = cb,
			       .arg = arg,
			       .adapt_wait_ms = sctp_as_wait_ms };
	a->adapt_timer = evtimer_new(sctp_as_base, sctp_as_adapt_timeout, a);
	if (!a->adapt_timer) {
		free(a);
		errno = ENOMEM;
		return NULL;
	}
	sctp_as_count++;
	return a;
}

void sctp_as_free(struct sctp_as *a)
{
	event_free(a->adapt_timer);
	sctp_as_count--;
	free(a);
}

unsigned int sctp_as_sockets(void)
{
	return sctp_as_count;
}

void sctp_as_down(struct sctp_as *a, const char *why)
{
	if (a->state == SCTP_AS_DOWN || a->state == SCTP_AS_LISTEN)
		return;
	a->state = SCTP_AS_DOWN;
	if (a->adapt_timer)
		evtimer_del(a->adapt_timer);
	if (a->ops->stop)
		a->ops->stop(a);
	if (a->cb->down)
		a->cb->down(a->arg, a->sock, why);
}

static void sctp_as_abort(struct sctp_as *a, const char *why)
{
	/* logged first: the peer may act on the ABORT at once */
	log_info("sctp: association aborted: %s", why);
	a->ops->abort(a);
	sctp_as_down(a, why);
}

/* RFC 5043 §7.1: an association whose peer's Adaptation Code Point is not
 * DDP's is terminated; §8: the usable streams are min(inbound,
 * outbound). */
static void sctp_as_check_up(struct sctp_as *a)
{
	struct sctp_assoc_info *info = &a->info;
	char why[128];

	if (a->state != SCTP_AS_WAIT_ADAPT || !a->got_adapt)
		return;
	if (a->adapt_timer)
		evtimer_del(a->adapt_timer);
	if (a->peer_adapt != SCTP_ADAPT_IND_DDP) {
		snprintf(why, sizeof(why),
			 "peer Adaptation Code Point 0x%08x is not DDP "
			 "(RFC 5043 §7.1)",
			 a->peer_adapt);
		sctp_as_abort(a, why);
		return;
	}
	info->peer_adapt = a->peer_adapt;
	info->streams = info->in_streams < info->out_streams ?
				info->in_streams :
				info->out_streams;
	if (info->in_streams != info->out_streams)
		log_info("sctp: peer offers %u inbound / %u outbound streams; "
			 "using %u (RFC 5043 §8)",
			 info->out_streams, info->in_streams, info->streams);
	info->maxseg = a->ops->maxseg(a);
	if (!info->maxseg)
		info->maxseg = 1200;
	if (info->maxseg > SCTP_RX_MAX)
		info->maxseg = SCTP_RX_MAX;
	/* RFC 5043 §9: "or 516 bytes, whichever is larger" */
	if (info->maxseg < SCTP_DDP_SEG_MIN)
		info->maxseg = SCTP_DDP_SEG_MIN;
	a->state = SCTP_AS_UP;
	if (a->cb->up)
		a->cb->up(a->arg, a->sock, info);
}

bool sctp_as_event(struct sctp_as *a, const struct sctp_as_ev *e)
{
	size_t i;

	for (i = 0; i < sizeof(sctp_as_table) / sizeof(sctp_as_table[0]); i++)
		if ((sctp_as_table[i].states & M(a->state)) &&
		    sctp_as_table[i].ev == e->ev)
			break;
	if (i == sizeof(sctp_as_table) / sizeof(sctp_as_table[0]))
		return false;
	switch (sctp_as_table[i].act) {
	case AA_COMM_UP:
		a->info.in_streams = e->in_streams;
		a->info.out_streams = e->out_streams;
		a->state = SCTP_AS_WAIT_ADAPT;
		if (!a->got_adapt && a->adapt_timer) {
			struct timeval tv = { a->adapt_wait_ms / 1000,
					      (a->adapt_wait_ms % 1000) *
						      1000 };

			evtimer_add(a->adapt_timer, &tv);
		}
		sctp_as_check_up(a);
		return false;
	case AA_ADAPT:
		a->got_adapt = true;
		a->peer_adapt = e->adapt;
		sctp_as_check_up(a);
		return false;
	case AA_DOWN:
		sctp_as_down(a, sctp_as_table[i].why);
		return false;
	case AA_ABORT:
		sctp_as_abort(a, sctp_as_table[i].why);
		return false;
	case AA_DELIVER:
		return true;
	}
	return false;
}

bool sctp_as_input(struct sctp_as *a, const struct sctp_as_consts *k,
		   const uint8_t *buf, ssize_t n, bool notification, bool eor,
		   const void *rcv)
{
	struct sctp_as_ev e = { .ev = eor ? SCTP_AE_DATA : SCTP_AE_TOO_BIG };
	size_t len = (size_t)n;

	if (n == 0)
		sctp_as_down(a, "association closed");
	else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
		 errno != EINTR)
		sctp_as_down(a, strerror(errno));
	if (n <= 0)
		return false;
	if (notification) {
		sctp_as_notification(a, k, buf, len);
		return true;
	}
	if (!sctp_as_event(a, &e))
		return false;
	if (!rcv) {
		e.ev = SCTP_AE_NO_RCVINFO;
		(void)sctp_as_event(a, &e);
		return false;
	}
	/* rcv_sid, rcv_flags, rcv_ppid (network order) */
	if (a->cb->msg)
		a->cb->msg(a->arg, a->sock, sctp_as_u16(rcv),
			   ntohl(sctp_as_u32((const uint8_t *)rcv + 8)),
			   sctp_as_u16((const uint8_t *)rcv + 4) & k->unordered,
			   buf, len);
	return true;
}

/* The peer's indication is late (RFC 5043 §5.1). */
void sctp_as_adapt_timeout(evutil_socket_t fd, short what, void *arg)
{
	const struct sctp_as_ev e = { .ev = SCTP_AE_ADAPT_TIMEOUT };

	(void)fd;
	(void)what;
	(void)sctp_as_event(arg, &e);
}

int sctp_as_send_check(const struct sctp_as *a, uint16_t stream, size_t len)
{
	if (a->state != SCTP_AS_UP) {
		errno = ENOTCONN;
		return -1;
	}
	if (stream >= a->info.streams) {
		errno = EINVAL;
		return -1;
	}
	if (len > a->info.maxseg) {
		errno = EMSGSIZE; /* RFC 5043 §9: never fragmented */
		return -1;
	}
	return 0;
}

/* ---- the options of a DDP socket ---- */

/* RFC 6458 §8.1.10, §6.2.1, §8.1.3 (SCTP_AS_LAYOUT_CHECK) */
struct sso_adaptation {
	uint32_t ind;
};
struct sso_event {
	uint32_t assoc_id;
	uint16_t type;
	uint8_t on;
};
struct sso_initmsg {
	uint16_t ostreams, instreams, attempts, init_timeo;
};
_Static_assert(sizeof(struct sso_adaptation) == 4 &&
		       sizeof(struct sso_initmsg) == 8 &&
		       sizeof(struct sso_event) == 8 &&
		       offsetof(struct sso_event, on) == 6,
	       "RFC 6458 layouts");

int sctp_as_sockopts(const struct sctp_as_consts *k, uint16_t streams,
		     int (*setopt)(void *h, int name, const void *v,
				   socklen_t len, const char *what),
		     void *h)
{
	/* §5.1: the DDP Adaptation Layer Indication */
	const struct sso_adaptation ad = { .ind = SCTP_ADAPT_IND_DDP };
	/* §8: as many inbound as outbound streams */
	const struct sso_initmsg init = { .ostreams = streams,
					  .instreams = streams };
	/* the notifications sctp_assoc.c reads */
	const uint16_t events[] = { k->assoc_change, k->adaptation,
				    k->shutdown };
	struct sso_event ev;
	const int on = 1;
	size_t i;

	if (setopt(h, k->opt_adaptation, &ad, sizeof(ad),
		   "SCTP_ADAPTATION_LAYER") < 0)
		return -1;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		memset(&ev, 0, sizeof(ev)); /* SCTP_FUTURE_ASSOC: 0 */
		ev.type = events[i];
		ev.on = 1;
		if (setopt(h, k->opt_event, &ev, sizeof(ev), "SCTP_EVENT") < 0)
			return -1;
	}
	/* §9: SCTP never fragments a DDP segment */
	if (setopt(h, k->opt_initmsg, &init, sizeof(init), "SCTP_INITMSG") <
		    0 ||
	    setopt(h, k->opt_rcvinfo, &on, sizeof(on), "SCTP_RECVRCVINFO") <
		    0 ||
	    setopt(h, k->opt_nofrag, &on, sizeof(on),
		   "SCTP_DISABLE_FRAGMENTS") < 0 ||
	    setopt(h, k->opt_nodelay, &on, sizeof(on), "SCTP_NODELAY") < 0)
		return -1;
	return 0;
}
