/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The DDP Stream Session phase (RFC 5043 §5.2, §6; RFC 6581 §7, §9.1):
 * classify each received message into an event for the session of its
 * stream, and do the actions of sctp_session_fsm.c: build and send
 * session control messages, keep the DDP-SSNs, ask and tell the owner.
 */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sctp_session.h"

/*
 * RFC 5043 §5: every chunk is unordered, so a session's messages may
 * come out of DDP-SSN order (§6.6 orders only control messages).  Those
 * ahead of the next DDP-SSN wait, up to a full receive window (32 were
 * too few under load); beyond that no legal pattern fits (§6.1).
 */
#define SESS_HOLD_MAX 256
#define SESS_HOLD_BYTES (256 * 1024)

struct sess_held {
	uint16_t ssn;
	uint32_t ppid;
	size_t len;
	uint8_t *buf;
};

struct sctp_session {
	struct sess_fsm fsm;
	struct sctp_assoc *a;
	uint16_t stream;
	bool active;
	bool pending; /* counted in a->pending (WAIT_ULP) */
	bool nonulp;  /* active: rejected by a Terminate (§6.4) */
	struct event *timer;
	struct sctp_ss_seq seq; /* legal sequence and DDP-SSNs (§6.1) */
	struct neg_policy policy;
	struct neg_result res;
	struct sctp_ss_msg sent; /* active: our Initiate */
	struct sctp_ss_msg init; /* passive: the peer's Initiate */
	uint8_t my_pd[SCTP_SS_PD_MAX];
	uint16_t my_pd_len;
	uint8_t peer_pd[SCTP_SS_PD_MAX]; /* ULP Private Data */
	uint16_t peer_pd_len;
	bool peer_enh;
	uint8_t peer_word[4];
	const uint8_t *cur; /* the segment being relayed */
	size_t cur_len;
	struct sess_held *held; /* grown on demand, to SESS_HOLD_MAX */
	unsigned int n_held, cap_held;
	size_t held_bytes;
};

struct sctp_assoc {
	uint64_t id;
	struct event_base *base;
	struct sctp_assoc_conf conf;
	const struct sctp_assoc_io *io;
	void *io_arg;
	const struct sctp_session_ulp *ulp;
	void *ulp_arg;
	unsigned int pending;
	unsigned int live;
	uint8_t *txbuf;		    /* DDP-SSN + segment, maxseg octets */
	struct sctp_session **sess; /* by stream */
};

static uint64_t sess_next_id = 1;

/* Fill c with defaults for streams usable streams. */
void sctp_assoc_conf_defaults(struct sctp_assoc_conf *c, uint16_t streams)
{
	memset(c, 0, sizeof(*c));
	c->streams = streams;
	c->maxseg = 1400;
	c->pending_max = 16;
	c->reply_timeout_ms = 10000;
	c->ulp_timeout_ms = 30000;
	c->term_timeout_ms = 5000;
	neg_policy_init(&c->active, NEG_INITIATOR);
	neg_policy_init(&c->passive, NEG_RESPONDER);
}

/* ---- the session's own bookkeeping ---- */

static unsigned int sess_dir(const struct sctp_session *s)
{
	return s->active ? 0 : 1; /* sctp_ss_seq: 0 carries the active's */
}

static void sess_arm(struct sctp_session *s, unsigned int ms)
{
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };

	evtimer_add(s->timer, &tv);
}

static void sess_timeout(evutil_socket_t fd, short what, void *arg);

static struct sctp_session *sess_new(struct sctp_assoc *a, uint16_t stream,
				     bool active)
{
	struct sctp_session *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->timer = evtimer_new(a->base, sess_timeout, s);
	if (!s->timer) {
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	s->fsm.state = SESS_S_NONE;
	s->fsm.id = sess_next_id++;
	s->fsm.arg = s;
	s->a = a;
	s->stream = stream;
	s->active = active;
	s->policy = active ? a->conf.active : a->conf.passive;
	sctp_ss_seq_init(&s->seq, active ? SCTP_SS_ACTIVE : SCTP_SS_PASSIVE);
	a->sess[stream] = s;
	a->live++;
	return s;
}

static void sess_free(struct sctp_session *s)
{
	struct sctp_assoc *a = s->a;
	unsigned int i;

	for (i = 0; i < s->n_held; i++)
		free(s->held[i].buf);
	free(s->held);
	if (s->pending)
		a->pending--;
	a->sess[s->stream] = NULL;
	a->live--;
	event_free(s->timer);
	if (a->ulp->release)
		a->ulp->release(a->ulp_arg, s);
	free(s);
}

static const struct sess_fsm_ops sess_ops;

/* Feed ev; false when the session ended and is freed. */
static bool sess_feed(struct sctp_session *s, enum sess_event ev)
{
	sctp_session_fsm(&s->fsm, ev, &sess_ops);
	if (s->pending && s->fsm.state != SESS_S_WAIT_ULP) {
		s->pending = false;
		s->a->pending--;
	}
	if (s->fsm.state == SESS_S_CLOSED) {
		sess_free(s);
		return false;
	}
	return true;
}

static void sess_timeout(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	sess_feed(arg, SESS_EV_TIMEOUT);
}

/* Send a session control message with our next DDP-SSN (§5.2.1). */
static int sess_send_ctl(struct sctp_session *s, struct sctp_ss_msg *m,
			 bool force)
{
	uint8_t buf[SCTP_SS_MSG_MAX];
	struct sctp_ss_seq next = s->seq;
	size_t n;

	m->ssn = s->seq.ssn[sess_dir(s)];
	if (sctp_ss_build(m, buf, sizeof(buf), &n) != WIRE_OK) {
		errno = EINVAL;
		return -1;
	}
	/* RFC 5043 §6.1: only what a legal pattern allows, except the
	 * Terminate that ends a session the peer broke */
	if (sctp_ss_seq_step(&next, true, m->fc, m->ssn) != SCTP_SS_OK &&
	    !force) {
		errno = EPROTO;
		return -1;
	}
	if (s->a->io->send(s->a->io_arg, s->stream, SCTP_PPID_DDP_SESSION_CTL,
			   buf, n) < 0)
		return -1;
	s->seq = next;
	return 0;
}

/* Our Terminate, unless our direction already ended. */
static int sess_send_term(struct sctp_session *s)
{
	uint8_t d = s->seq.d[sess_dir(s)];
	struct sctp_ss_msg m;

	if (d == SCTP_SS_D_TERM || d == SCTP_SS_D_ETERM || d == SCTP_SS_D_REJ)
		return 0;
	memset(&m, 0, sizeof(m));
	m.fc = SCTP_SS_TERMINATE;
	if (sess_send_ctl(s, &m, true) < 0)
		return -1;
	sess_arm(s, s->a->conf.term_timeout_ms);
	return 0;
}

/* Keep the peer's Private Data (the ULP part) and its raw word. */
static void sess_keep_peer(struct sctp_session *s, const struct sctp_ss_msg *m)
{
	const uint8_t *pd = m->enhanced ? m->ulp_pd : m->pd;
	uint16_t len = m->enhanced ? m->ulp_pd_len : m->pd_len;

	if (len > sizeof(s->peer_pd))
		len = sizeof(s->peer_pd); /* the parser caps it at 512 */
	if (len)
		memcpy(s->peer_pd, pd, len);
	s->peer_pd_len = len;
	s->peer_enh = m->enhanced;
	if (m->enhanced && m->pd_len >= 4)
		memcpy(s->peer_word, m->pd, 4);
}

/* Point m's Private Data at the owner's, enhanced or not. */
static void sess_set_pd(struct sctp_session *s, struct sctp_ss_msg *m)
{
	if (m->fc == SCTP_SS_ENH_INITIATE || m->fc == SCTP_SS_ENH_ACCEPT) {
		m->ulp_pd = s->my_pd;
		m->ulp_pd_len = s->my_pd_len;
	} else {
		m->pd = s->my_pd;
		m->pd_len = s->my_pd_len;
	}
}

/* ---- actions ---- */

static int act_send_initiate(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	neg_sctp_initiate(&s->policy, &s->sent);
	sess_set_pd(s, &s->sent);
	if (sess_send_ctl(s, &s->sent, false) < 0)
		return -1;
	sess_arm(s, s->a->conf.reply_timeout_ms);
	return 0;
}

static int act_notify_request(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;
	struct sctp_assoc *a = s->a;

	(void)ev;
	s->pending = true;
	a->pending++;
	sess_arm(s, a->conf.ulp_timeout_ms);
	return a->ulp->request ? a->ulp->request(a->ulp_arg, s) : -1;
}

/* Passive: the answer to the peer's Initiate (RFC 6581 §9.1). */
static int sess_answer(struct sctp_session *s, bool reject)
{
	struct sctp_ss_msg rep;
	enum neg_action act;

	act = neg_sctp_respond(&s->init, &s->policy, reject, &rep, &s->res);
	if (act == NEG_A_CLOSE) {
		errno = EPROTO;
		return -1;
	}
	sess_set_pd(s, &rep);
	return sess_send_ctl(s, &rep, false);
}

static int act_accept_handoff(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	evtimer_del(s->timer);
	if (sess_answer(s, false) < 0)
		return -1;
	return s->a->ulp->established(s->a->ulp_arg, s);
}

static int act_reject(void *arg, enum sess_event ev)
{
	(void)ev;
	return sess_answer(arg, true);
}

static int act_handoff(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	evtimer_del(s->timer);
	return s->a->ulp->established(s->a->ulp_arg, s);
}

static int act_notify_rejected(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	if (s->a->ulp->rejected)
		s->a->ulp->rejected(s->a->ulp_arg, s);
	return 0;
}

static int act_relay(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	return s->a->ulp->segment(s->a->ulp_arg, s, s->cur, s->cur_len);
}

static int act_peer_term(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	if (s->a->ulp->ended)
		s->a->ulp->ended(s->a->ulp_arg, s, SESS_END_TERMINATED);
	/* RFC 5043 §6.2: our direction ends too */
	return sess_send_term(s);
}

static int act_terminate(void *arg, enum sess_event ev)
{
	(void)ev;
	return sess_send_term(arg);
}

static int act_term_error(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;
	int rc;

	(void)ev;
	rc = sess_send_term(s);
	if (s->a->ulp->ended)
		s->a->ulp->ended(s->a->ulp_arg, s, SESS_END_ERROR);
	return rc;
}

static int act_error(void *arg, enum sess_event ev)
{
	struct sctp_session *s = arg;

	(void)ev;
	if (s->a->ulp->ended)
		s->a->ulp->ended(s->a->ulp_arg, s, SESS_END_DOWN);
	return 0;
}

static bool guard_no_listener(void *arg)
{
	struct sctp_session *s = arg;

	return !s->a->ulp->has_listener ||
	       !s->a->ulp->has_listener(s->a->ulp_arg, s->a);
}

static bool guard_pending_full(void *arg)
{
	struct sctp_session *s = arg;

	return s->a->pending >= s->a->conf.pending_max;
}

static void sess_log(void *arg, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void sess_log(void *arg, const char *fmt, ...)
{
	struct sctp_session *s = arg;
	char msg[256];
	va_list ap;

	if (!log_getverbose())
		return; /* log_debug() would drop it: do not format it */
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_debug("assoc %llu stream %u: %s", (unsigned long long)s->a->id,
		  s->stream, msg);
}

static const struct sess_fsm_ops sess_ops = {
	.action = {
		[SESS_A_SEND_INITIATE] = act_send_initiate,
		[SESS_A_NOTIFY_REQUEST] = act_notify_request,
		[SESS_A_ACCEPT_HANDOFF] = act_accept_handoff,
		[SESS_A_REJECT] = act_reject,
		[SESS_A_HANDOFF] = act_handoff,
		[SESS_A_NOTIFY_REJECTED] = act_notify_rejected,
		[SESS_A_RELAY] = act_relay,
		[SESS_A_PEER_TERM] = act_peer_term,
		[SESS_A_TERMINATE] = act_terminate,
		[SESS_A_TERM_ERROR] = act_term_error,
		[SESS_A_ERROR] = act_error,
	},
	.guard = {
		[SESS_G_NO_LISTENER] = guard_no_listener,
		[SESS_G_PENDING_FULL] = guard_pending_full,
	},
	.log = sess_log,
};

/* ---- classifying what the peer sent ---- */

/* A session control message (PPID 17) into an event. */
static enum sess_event sess_classify_ctl(struct sctp_session *s,
					 const uint8_t *buf, size_t len)
{
	struct sctp_ss_msg m;
	enum neg_action act;
	struct sctp_ss_msg rep;
	size_t used;

	/* the message is whole: short is malformed; Private Data over
	 * 512 (§5.2.3), unknown function codes are refused here */
	if (sctp_ss_parse(buf, len, &m, &used) != WIRE_OK)
		return SESS_EV_ILLEGAL;
	if (s->fsm.state == SESS_S_NONE) {
		if (m.fc == SCTP_SS_TERMINATE)
			return SESS_EV_TERMINATE;
		if (m.fc != SCTP_SS_INITIATE && m.fc != SCTP_SS_ENH_INITIATE)
			return SESS_EV_ILLEGAL; /* e.g. Accept, no Initiate */
	}
	/* §6.1: DDP-SSN in sequence and a legal pattern */
	if (sctp_ss_seq_step(&s->seq, false, m.fc, m.ssn) != SCTP_SS_OK)
		return SESS_EV_ILLEGAL;
	switch (m.fc) {
	case SCTP_SS_INITIATE:
	case SCTP_SS_ENH_INITIATE:
		sess_keep_peer(s, &m);
		s->init = m;
		s->init.pd = NULL; /* buf does not outlive this call */
		s->init.ulp_pd = NULL;
		s->init.pd_len = 0;
		s->init.ulp_pd_len = 0;
		/* RFC 6581 §10: an enhanced Initiate we cannot answer, or a
		 * policy refusal, is a non-ULP rejection (§6.4) */
		act = neg_sctp_respond(&s->init, &s->policy, false, &rep,
				       &s->res);
		return act == NEG_A_ACCEPT ? SESS_EV_INITIATE : SESS_EV_ILLEGAL;
	case SCTP_SS_TERMINATE:
		if (s->fsm.state == SESS_S_WAIT_REPLY)
			s->nonulp = true;
		return SESS_EV_TERMINATE;
	default:
		break;
	}
	/* Accept, Reject and their enhanced forms */
	if (s->fsm.state != SESS_S_WAIT_REPLY)
		return (m.fc == SCTP_SS_ACCEPT || m.fc == SCTP_SS_ENH_ACCEPT) ?
			       SESS_EV_ACCEPT :
			       SESS_EV_REJECT;
	sess_keep_peer(s, &m);
	switch (neg_sctp_reply(&s->sent, &m, &s->policy, &s->res)) {
	case NEG_A_ACCEPT:
		return SESS_EV_ACCEPT;
	case NEG_A_REJECT:
		return SESS_EV_REJECT;
	case NEG_A_TERM:
		return SESS_EV_NEG_FAIL; /* RFC 6581 §9.1 */
	default:
		return SESS_EV_ILLEGAL;
	}
}

/* One user message into an event for s. */
static enum sess_event sess_classify(struct sctp_session *s, uint32_t ppid,
				     bool unordered, const uint8_t *buf,
				     size_t len)
{
	uint16_t ssn;

	s->cur = NULL;
	s->cur_len = 0;
	/* RFC 5043 §5: every chunk of the adaptation is unordered */
	if (!unordered)
		return SESS_EV_ILLEGAL;
	if (ppid == SCTP_PPID_DDP_SESSION_CTL)
		return sess_classify_ctl(s, buf, len);
	if (ppid != SCTP_PPID_DDP_SEGMENT || len < 2 ||
	    s->fsm.state == SESS_S_NONE)
		return SESS_EV_ILLEGAL;
	/* RFC 5043 §5.2.2: DDP-SSN, then the DDP Segment */
	ssn = (uint16_t)(buf[0] << 8 | buf[1]);
	if (sctp_ss_seq_step(&s->seq, false, SCTP_SS_SEGMENT, ssn) !=
	    SCTP_SS_OK)
		return SESS_EV_ILLEGAL;
	s->cur = buf + 2;
	s->cur_len = len - 2;
	return SESS_EV_SEGMENT;
}

/* The next DDP-SSN expected from the peer. */
static uint16_t sess_peer_ssn(const struct sctp_session *s)
{
	return s->seq.ssn[s->active ? 1 : 0];
}

/* Keep a message that came ahead of its turn; -1 when it cannot wait
 * (then it is judged now, and fails the DDP-SSN check). */
static int sess_hold(struct sctp_session *s, uint16_t ssn, uint32_t ppid,
		     const uint8_t *buf, size_t len)
{
	struct sess_held *h;
	unsigned int i;

	if (s->n_held == SESS_HOLD_MAX || s->held_bytes + len > SESS_HOLD_BYTES)
		return -1;
	for (i = 0; i < s->n_held; i++)
		if (s->held[i].ssn == ssn)
			return -1; /* a duplicate DDP-SSN */
	if (s->n_held == s->cap_held) {
		/* most sessions never hold one: the table grows when used */
		unsigned int cap = s->cap_held ? 2 * s->cap_held : 8;

		h = reallocarray(s->held, cap, sizeof(*h));
		if (!h)
			return -1;
		s->held = h;
		s->cap_held = cap;
	}
	h = &s->held[s->n_held];
	h->buf = malloc(len);
	if (!h->buf)
		return -1;
	memcpy(h->buf, buf, len);
	h->ssn = ssn;
	h->ppid = ppid;
	h->len = len;
	s->n_held++;
	s->held_bytes += len;
	return 0;
}

/* Feed the held messages whose turn came; false when s ended. */
static bool sess_release(struct sctp_session *s)
{
	unsigned int i;

	for (i = 0; i < s->n_held; i++) {
		struct sess_held h = s->held[i];
		bool alive;

		if (h.ssn != sess_peer_ssn(s))
			continue;
		s->held[i] = s->held[--s->n_held];
		s->held_bytes -= h.len;
		alive = sess_feed(s,
				  sess_classify(s, h.ppid, true, h.buf, h.len));
		free(h.buf);
		if (!alive)
			return false;
		i = (unsigned int)-1; /* the next one may be anywhere */
	}
	return true;
}

/* One received user message. */
void sctp_assoc_input(struct sctp_assoc *a, uint16_t stream, uint32_t ppid,
		      bool unordered, const uint8_t *buf, size_t len)
{
	struct sctp_session *s;

	if (stream >= a->conf.streams) {
		log_debug("assoc %llu: message on stream %u of %u",
			  (unsigned long long)a->id, stream, a->conf.streams);
		return;
	}
	s = a->sess[stream];
	/* a live session's message ahead of its DDP-SSN waits its turn (a
	 * new session starts with its Initiate, §6.6) */
	if (s && unordered && len >= 2 &&
	    (ppid == SCTP_PPID_DDP_SEGMENT ||
	     ppid == SCTP_PPID_DDP_SESSION_CTL)) {
		uint16_t ahead =
			(uint16_t)((buf[0] << 8 | buf[1]) - sess_peer_ssn(s));

		if (ahead && ahead < SESS_HOLD_MAX * 2 &&
		    sess_hold(s, (uint16_t)(buf[0] << 8 | buf[1]), ppid, buf,
			      len) == 0)
			return;
	}
	if (!s && !(s = sess_new(a, stream, false))) {
		log_warn("assoc %llu: session", (unsigned long long)a->id);
		return;
	}
	if (sess_feed(s, sess_classify(s, ppid, unordered, buf, len)))
		sess_release(s);
}

/* ---- the association ---- */

/* A new association's session table. */
struct sctp_assoc *sctp_assoc_new(uint64_t id, struct event_base *base,
				  const struct sctp_assoc_conf *c,
				  const struct sctp_assoc_io *io, void *io_arg,
				  const struct sctp_session_ulp *ulp,
				  void *ulp_arg)
{
	struct sctp_assoc *a;

	/* RFC 5043 §9: at least 516 octets, a control message with 512
	 * octets of Private Data */
	if (!c->streams || c->maxseg < SCTP_SS_MSG_MAX || c->maxseg > 65536 ||
	    !ulp->established || !ulp->segment) {
		errno = EINVAL;
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		return NULL;
	a->sess = calloc(c->streams, sizeof(*a->sess));
	a->txbuf = malloc(c->maxseg);
	if (!a->sess || !a->txbuf) {
		sctp_assoc_detach(a); /* a->conf.streams is 0 */
		errno = ENOMEM;
		return NULL;
	}
	a->id = id;
	a->base = base;
	a->conf = *c;
	a->io = io;
	a->io_arg = io_arg;
	a->ulp = ulp;
	a->ulp_arg = ulp_arg;
	return a;
}

/* a is freed with its sessions: each gets ASSOC_DOWN first when down,
 * else is released with no message sent and no owner told. */
static void assoc_free(struct sctp_assoc *a, bool down)
{
	unsigned int i;

	if (!a)
		return;
	for (i = 0; i < a->conf.streams; i++)
		if (a->sess[i] &&
		    (!down || sess_feed(a->sess[i], SESS_EV_ASSOC_DOWN)))
			sess_free(a->sess[i]); /* ASSOC_DOWN: cannot be */
	free(a->sess);
	free(a->txbuf);
	free(a);
}

/* The association ended: every session gets ASSOC_DOWN, then free. */
void sctp_assoc_free(struct sctp_assoc *a)
{
	assoc_free(a, true);
}

/* a leaves iwcmd with its association. */
void sctp_assoc_detach(struct sctp_assoc *a)
{
	assoc_free(a, false);
}

/* Sessions that are not CLOSED. */
unsigned int sctp_assoc_sessions(const struct sctp_assoc *a)
{
	return a->live;
}

/* Initiates pending at owners. */
unsigned int sctp_assoc_pending(const struct sctp_assoc *a)
{
	return a->pending;
}

/* The session on stream, or NULL. */
struct sctp_session *sctp_assoc_session(struct sctp_assoc *a, uint16_t stream)
{
	return stream < a->conf.streams ? a->sess[stream] : NULL;
}

/* ---- the owner's side ---- */

static int sess_pd_check(bool enhanced, size_t pd_len)
{
	/* RFC 5043 §5.2.3: 512 octets; RFC 6581 §7: the word is in them */
	if (pd_len > SCTP_SS_PD_MAX - (enhanced ? 4 : 0)) {
		errno = EINVAL;
		return -1;
	}
	return 0;
}

/* Active side: start a session on a free stream. */
struct sctp_session *sctp_session_connect(struct sctp_assoc *a, uint16_t stream,
					  const struct neg_policy *p,
					  const uint8_t *pd, size_t pd_len)
{
	const struct neg_policy *pol = p ? p : &a->conf.active;
	struct sctp_session *s;

	if (stream >= a->conf.streams) {
		errno = EINVAL;
		return NULL;
	}
	if (a->sess[stream]) {
		errno = EBUSY;
		return NULL;
	}
	if (sess_pd_check(pol->enhanced && pol->rev >= MPA_REV_2, pd_len) < 0)
		return NULL;
	s = sess_new(a, stream, true);
	if (!s)
		return NULL;
	s->policy = *pol;
	if (pd_len)
		memcpy(s->my_pd, pd, pd_len);
	s->my_pd_len = (uint16_t)pd_len;
	if (!sess_feed(s, SESS_EV_START_CONNECT)) {
		errno = EIO;
		return NULL;
	}
	return s;
}

/* Passive side: the owner's decision on an Initiate. */
int sctp_session_decide(struct sctp_session *s, bool accept, const uint8_t *pd,
			size_t pd_len)
{
	bool enh = s->init.fc == SCTP_SS_ENH_INITIATE;

	if (s->fsm.state != SESS_S_WAIT_ULP) {
		errno = EINVAL;
		return -1;
	}
	/* the Enhanced Reject carries no word (RFC 6581 §7) */
	if (sess_pd_check(enh && accept, pd_len) < 0)
		return -1;
	if (pd_len)
		memcpy(s->my_pd, pd, pd_len);
	s->my_pd_len = (uint16_t)pd_len;
	if (!sess_feed(s, accept ? SESS_EV_ULP_ACCEPT : SESS_EV_ULP_REJECT) &&
	    accept) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* The Established event reached the owner (ok) or did not. */
void sctp_session_handoff_done(struct sctp_session *s, bool ok)
{
	sess_feed(s, ok ? SESS_EV_HANDOFF_DONE : SESS_EV_HANDOFF_FAILED);
}

/* One DDP Segment from the owner, with the next DDP-SSN (§5.2.1). */
int sctp_session_send_segment(struct sctp_session *s, const uint8_t *seg,
			      size_t len)
{
	struct sctp_assoc *a = s->a;
	struct sctp_ss_seq next = s->seq;
	uint16_t ssn = s->seq.ssn[sess_dir(s)];

	if (s->fsm.state != SESS_S_HANDOFF &&
	    s->fsm.state != SESS_S_ESTABLISHED) {
		errno = ENOTCONN;
		return -1;
	}
	if (len + 2 > a->conf.maxseg) {
		errno = EMSGSIZE; /* RFC 5043 §9 */
		return -1;
	}
	if (sctp_ss_seq_step(&next, true, SCTP_SS_SEGMENT, ssn) != SCTP_SS_OK) {
		errno = EPROTO;
		return -1;
	}
	a->txbuf[0] = (uint8_t)(ssn >> 8);
	a->txbuf[1] = (uint8_t)ssn;
	memcpy(a->txbuf + 2, seg, len);
	if (a->io->send(a->io_arg, s->stream, SCTP_PPID_DDP_SEGMENT, a->txbuf,
			len + 2) < 0)
		return -1;
	s->seq = next;
	return 0;
}

/* The owner closed its end, or went away. */
void sctp_session_ulp_close(struct sctp_session *s, bool gone)
{
	sess_feed(s, gone ? SESS_EV_ULP_GONE : SESS_EV_ULP_CLOSE);
}

/* What the owner and iwcmctl see of a session. */
void sctp_session_get_info(const struct sctp_session *s,
			   struct sctp_session_info *out)
{
	memset(out, 0, sizeof(*out));
	out->id = s->fsm.id;
	out->stream = s->stream;
	out->active = s->active;
	out->state = s->fsm.state;
	out->res = s->res;
	out->peer_enh = s->peer_enh;
	memcpy(out->peer_word, s->peer_word, sizeof(out->peer_word));
	out->peer_pd = s->peer_pd;
	out->peer_pd_len = s->peer_pd_len;
	out->nonulp_reject = s->nonulp;
}

/* What the owner needs to carry s on by itself, and the peer's messages
 * held ahead of their DDP-SSN, each given to held (RFC 5043 §5.2.1). */
int sctp_session_export(const struct sctp_session *s,
			struct sctp_session_state *st,
			int (*held)(void *arg, uint16_t ssn, uint32_t ppid,
				    const uint8_t *buf, size_t len),
			void *arg)
{
	unsigned int i;

	if (s->fsm.state != SESS_S_HANDOFF &&
	    s->fsm.state != SESS_S_ESTABLISHED) {
		errno = ENOTCONN;
		return -1;
	}
	st->tx_ssn = s->seq.ssn[sess_dir(s)];
	st->rx_ssn = sess_peer_ssn(s);
	for (i = 0; i < s->n_held; i++)
		if (held(arg, s->held[i].ssn, s->held[i].ppid, s->held[i].buf,
			 s->held[i].len) < 0)
			return -1;
	return 0;
}

/* The stream of s. */
uint16_t sctp_session_stream(const struct sctp_session *s)
{
	return s->stream;
}

enum sess_state sctp_session_get_state(const struct sctp_session *s)
{
	return s->fsm.state;
}

/* Passive: the policy the answer is decided with. */
void sctp_session_set_policy(struct sctp_session *s, const struct neg_policy *p)
{
	s->policy = *p;
}
