/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_SESSION_H
#define IWCM_SCTP_SESSION_H

/* How a session ended under its owner. */
enum sess_end {
	SESS_END_TERMINATED, /* the peer's orderly Terminate (RFC 5043 §6.2) */
	SESS_END_ERROR, /* a failed negotiation, a timeout, our Terminate */
	SESS_END_DOWN,	/* its association ended (an ABORT, the peer gone) */
};
/*
 * DDP Stream Sessions on one SCTP association (RFC 5043 §5.2, §6, RFC
 * 6581 §7), one per SCTP stream (§6), each with its DDP-SSNs (§5.2.1)
 * and owner: the phase that owns the session-control I/O and feeds the
 * FSM of sctp_session_fsm.h.  Messages go out through struct
 * sctp_assoc_io and come in through sctp_assoc_input(); owners are told
 * through struct sctp_session_ulp, whose callbacks must not call back
 * into this module synchronously.  Whatever the peer sends ends at most
 * the session it belongs to.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "negotiate.h"
#include "sctp_session_fsm.h"
#include "sctp_ss.h"

struct event_base;
struct sctp_assoc;
struct sctp_session;

struct sctp_assoc_io {
	/* one unordered user message on stream with ppid (host order);
	 * 0 or -1 with errno */
	int (*send)(void *arg, uint16_t stream, uint32_t ppid, const void *buf,
		    size_t len);
};

struct sctp_session_ulp {
	/* is anyone listening for Initiates on this association? */
	bool (*has_listener)(void *arg, struct sctp_assoc *a);
	/* passive: an Initiate for the owner to decide; 0 or -1 */
	int (*request)(void *arg, struct sctp_session *s);
	/* accepted (either side): give the session to its owner */
	int (*established)(void *arg, struct sctp_session *s);
	/* active: the peer rejected (Reject, or Terminate: §6.4) */
	void (*rejected)(void *arg, struct sctp_session *s);
	/* one DDP Segment (without its DDP-SSN) for the owner; 0 or -1 */
	int (*segment)(void *arg, struct sctp_session *s, const uint8_t *seg,
		       size_t len);
	/* the session ended under the owner, how (enum sess_end) */
	void (*ended)(void *arg, struct sctp_session *s, enum sess_end how);
	/* the session is freed: forget it */
	void (*release)(void *arg, struct sctp_session *s);
};

/* Limits and timers of one association. */
struct sctp_assoc_conf {
	uint16_t streams;	  /* usable streams (sctp_assoc_info) */
	size_t maxseg;		  /* largest user message sent */
	unsigned int pending_max; /* Initiates pending a ULP decision
				    * (§5.2.3, §6.4) */
	unsigned int reply_timeout_ms;
	unsigned int ulp_timeout_ms;
	unsigned int term_timeout_ms; /* the peer's Terminate after ours */
	struct neg_policy active;     /* defaults of our Initiates */
	struct neg_policy passive;    /* answering the peer's */
};

/* Fill c with defaults for streams usable streams. */
void sctp_assoc_conf_defaults(struct sctp_assoc_conf *c, uint16_t streams);

/* A new association's session table; NULL with errno. */
struct sctp_assoc *sctp_assoc_new(uint64_t id, struct event_base *base,
				  const struct sctp_assoc_conf *c,
				  const struct sctp_assoc_io *io, void *io_arg,
				  const struct sctp_session_ulp *ulp,
				  void *ulp_arg);
/* The association ended: every session gets ASSOC_DOWN, then free. */
void sctp_assoc_free(struct sctp_assoc *a);
/* Sessions that are not CLOSED, and Initiates pending at owners. */
unsigned int sctp_assoc_sessions(const struct sctp_assoc *a);
unsigned int sctp_assoc_pending(const struct sctp_assoc *a);
/* The session on stream, or NULL. */
struct sctp_session *sctp_assoc_session(struct sctp_assoc *a, uint16_t stream);

/*
 * One received user message (the stack's msg callback): classified into
 * a session event (RFC 5043 §5.2, §6).  Never fails: what the peer got
 * wrong ends that session.
 */
void sctp_assoc_input(struct sctp_assoc *a, uint16_t stream, uint32_t ppid,
		      bool unordered, const uint8_t *buf, size_t len);

/*
 * Active side: start a session on a free stream with policy p (NULL: the
 * association's) and the owner's Private Data (at most 512 octets, 508
 * when enhanced).  NULL with errno: EBUSY (stream in use), EINVAL.
 */
struct sctp_session *sctp_session_connect(struct sctp_assoc *a, uint16_t stream,
					  const struct neg_policy *p,
					  const uint8_t *pd, size_t pd_len);
/* Passive side: the owner's decision on an Initiate; 0 or -1 (errno). */
int sctp_session_decide(struct sctp_session *s, bool accept, const uint8_t *pd,
			size_t pd_len);
/* The Established event reached the owner (ok) or did not. */
void sctp_session_handoff_done(struct sctp_session *s, bool ok);
/*
 * One DDP Segment from the owner: sent with the next DDP-SSN (§5.2.1).
 * 0, or -1 with errno: EAGAIN (the stack is full, retry), EMSGSIZE,
 * EPROTO (no segment may be sent now), ENOTCONN.
 */
int sctp_session_send_segment(struct sctp_session *s, const uint8_t *seg,
			      size_t len);
/* The owner closed its end (ULP_CLOSE), or went away (ULP_GONE). */
void sctp_session_ulp_close(struct sctp_session *s, bool gone);

/* What the owner and iwcmctl see of a session. */
struct sctp_session_info {
	uint64_t id;
	uint16_t stream;
	bool active;
	enum sess_state state;
	struct neg_result res;	/* negotiated (IRD/ORD, peer's word) */
	bool peer_enh;		/* the peer's word came */
	uint8_t peer_word[4];	/* the peer's raw RFC 6581 word */
	const uint8_t *peer_pd; /* the peer's ULP Private Data */
	uint16_t peer_pd_len;
	bool nonulp_reject; /* active: rejected by a Terminate */
};
void sctp_session_get_info(const struct sctp_session *s,
			   struct sctp_session_info *out);
/* The stream of s. */
uint16_t sctp_session_stream(const struct sctp_session *s);
/* The state of s (sctp_session_get_info() without the rest). */
enum sess_state sctp_session_get_state(const struct sctp_session *s);
/* Passive: the policy the answer is decided with (before decide). */
void sctp_session_set_policy(struct sctp_session *s,
			     const struct neg_policy *p);
/* A session's own state, for an owner that carries it on by itself. */
struct sctp_session_state {
	uint16_t tx_ssn; /* our next DDP-SSN (§5.2.1) */
	uint16_t rx_ssn; /* the peer's next */
};
/*
 * The state of s (handed off or established) into st, and each message
 * of the peer held ahead of its DDP-SSN (the whole message, DDP-SSN
 * first) to held, which returns 0 or -1.  0, or -1 with errno (ENOTCONN:
 * not established; held's).
 */
int sctp_session_export(const struct sctp_session *s,
			struct sctp_session_state *st,
			int (*held)(void *arg, uint16_t ssn, uint32_t ppid,
				    const uint8_t *buf, size_t len),
			void *arg);
/* The association left iwcmd (its socket handed to the owner of its
 * sessions): free a, each session released, nothing sent, none ended. */
void sctp_assoc_detach(struct sctp_assoc *a);

#endif
