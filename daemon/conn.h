/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CONN_H
#define IWCM_CONN_H

/*
 * One connection being negotiated, shared by the connection engine's
 * files: conn.c (lifetime, ids, timers, queued events, I/O),
 * conn_action.c (the FSM's actions and guards), conn_policy.c (what the
 * local side wants), mpa_negotiate.c (the startup frames), rtr_fence.c
 * (the RTR and the Terminate FPDUs) and handoff.c (the Established
 * message with the fd).  The rest of the
 * daemon sees only the functions of iwcmd.h.
 *
 * The phase files read input and classify it into an FSM event with
 * conn_event(), which may free the connection: a caller never touches c
 * after it.  Work that must follow an action (the handoff's outcome, a
 * client that went away) is queued with conn_post() and runs from the
 * event loop, so that no action ever re-enters the FSM.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/event.h>

#include "admission.h"
#include "conn_fsm.h"
#include "iwcmd.h"
#include "log.h"
#include "mpa.h"
#include "negotiate.h"
#include "rdmap.h"

/* Largest ULPDU read while fencing: a Read Request or a Terminate. */
#define CONN_RTR_ULPDU_MAX 256
/* A whole RTR-phase FPDU: leading marker, header, ULPDU, pad, CRC and
 * the markers inside. */
#define CONN_RTR_FPDU_MAX                                                      \
	(MPA_MARKER_LEN + MPA_HDR_LEN + CONN_RTR_ULPDU_MAX + 3 + MPA_CRC_LEN + \
	 2 * MPA_MARKER_LEN)
#define CONN_RD_MAX MPA_FRAME_MAX
/* STag of the zero-length Write and Read RTR: non-zero, as Linux siw
 * sends it (Chelsio hardware rejects STag 0). */
#define CONN_RTR_STAG 0x1u
/* Untagged queues tracked for the handoff (RFC 5040 §4.1, RFC 7306). */
#define CONN_NQN 4

/* One event queued by conn_post(); allocated, so none is ever lost. */
struct conn_posted {
	TAILQ_ENTRY(conn_posted) entry;
	enum conn_event ev;
};

/* Exact-length reader: never consumes a byte past the message. */
struct conn_rd {
	uint8_t buf[CONN_RD_MAX];
	size_t len; /* bytes read so far */
};

/*
 * What a connection holds once the peer has sent something (or, for an
 * initiator, from the start): the frames as on the wire, the private
 * data to send and the RTR.  A half-open connection (accepted, no
 * complete Request yet) has none, so that a flood of them costs little
 * memory (iwcmd.conf(5) halfopen_max).
 */
struct conn_buf {
	uint8_t req_raw[MPA_FRAME_MAX];
	size_t req_len;
	uint8_t rep_raw[MPA_FRAME_MAX];
	size_t rep_len;
	uint8_t pd[MPA_PD_MAX]; /* ULP private data to send */
	uint16_t pd_len;
	uint8_t rtr_raw[CONN_RTR_FPDU_MAX > MPA_FRAME_MAX ? CONN_RTR_FPDU_MAX :
							    MPA_FRAME_MAX];
	size_t rtr_len; /* RTR as sent or received */
};

struct conn {
	TAILQ_ENTRY(conn) entry;
	TAILQ_ENTRY(conn) uentry; /* responder in WAIT_ULP (conn.c) */
	struct adm_entry adm;	  /* booked while half-open (admission.h) */
	bool in_ulp;		  /* on conn.c's WAIT_ULP list */
	bool shed;		  /* dropped to admit another */
	struct conn_fsm fsm;	  /* fsm.id == id, fsm.arg == this */
	uint64_t id;
	int fd;
	enum neg_role role;
	bool force; /* iwcmctl connect: report, no fd */
	uint64_t created_ms;

	struct event *ev_io; /* read, or write to connect */
	bool io_write;
	struct event *ev_timer;
	struct event *ev_post;
	TAILQ_HEAD(, conn_posted) post; /* queued events, run in order */
	unsigned int n_post;

	struct client *owner; /* gets the events, or NULL */
	uid_t owner_uid;
	pid_t owner_pid;
	uint32_t reqid;		   /* force: the admin request */
	struct listener *listener; /* responder, until it goes away */
	uint64_t listener_id;

	struct sockaddr_storage local, peer;
	socklen_t local_len, peer_len;
	struct sockaddr_storage src; /* initiator: bind here first */
	socklen_t src_len;

	/* policy: the listener's (responder) or the connect's */
	struct conf_policy cpol;
	struct conn_params *lparams; /* responder: listener defaults */
	struct neg_policy pol;
	struct neg_policy retry_pol; /* RFC 6581 §10 retry */
	unsigned int reply_timeout_ms;
	unsigned int hold_ms;	 /* first_fpdu_delay_ms (initiator) */
	bool qp_takes_read_resp; /* initiator: the client's QP takes the
				  * Read RTR's Response (iwcm.proto) */
	unsigned int ulp_timeout_ms;
	unsigned int tcp_user_timeout_ms; /* set at the handoff, 0: none */

	/* the startup frames, parsed in place in b's req_raw/rep_raw */
	struct mpa_frame req;
	struct mpa_frame rep;
	bool have_rep;	    /* rep_raw holds a Reply */
	bool policy_reject; /* R=1 by the policy */
	struct neg_result res;
	struct conn_rd rd;
	struct conn_buf *b; /* conn_buf() allocates it */

	/* full operation (after the Reply) */
	struct mpa_dir tx, rx;
	uint32_t next_msn[CONN_NQN];
	uint8_t rtr_type;		/* RTR sent or received, MPA_RTR_* */
	struct rdmap_read_req read_rtr; /* Read RTR sent or received */
	bool read_resp_due; /* initiator: handed off before its Response */

	/* outcome */
	enum conn_result err;
	char reason[160];
	bool term_valid; /* a Terminate was sent or received */
	uint8_t term_layer, term_etype, term_ecode;
	uint8_t term_code; /* TERM to send (CONN_EV_TERM) */
	bool reported;	   /* force: report sent */
};

/* c's buffers, allocated when first needed (see struct conn_buf); an
 * inline so that the phase files need no call into conn.c for it. */
static inline struct conn_buf *conn_buf(struct conn *c)
{
	if (!c->b) {
		c->b = calloc(1, sizeof(*c->b));
		if (!c->b)
			fatal("conn: calloc");
	}
	return c->b;
}

/* ---- conn.c ---- */

/* Feed ev to c's FSM; c may be freed on return. */
void conn_event(struct conn *c, enum conn_event ev);
/* Queue ev for c, to run from the event loop after the current work. */
void conn_post(struct conn *c, enum conn_event ev);
/* The live connection with id, or NULL. */
struct conn *conn_find(uint64_t id);
/* Events queued for c and not yet run. */
unsigned int conn_post_pending(const struct conn *c);
/* Record why c failed (kept if already set) for the owner's event. */
void conn_fail(struct conn *c, enum conn_result r, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Write all of buf to c's socket; -1 with errno on error or short. */
int conn_send(struct conn *c, const void *buf, size_t len);
/*
 * Read into c->rd until it holds want bytes, never more.  Returns 1 when
 * complete, 0 when more must come, -1 when the peer closed or reset (or
 * another error; errno set, 0 for an orderly close).
 */
int conn_read_upto(struct conn *c, size_t want);
/* Start or stop watching c's socket for input. */
void conn_read_enable(struct conn *c, bool on);
/* Watch c's socket for what (EV_READ, EV_WRITE), replacing the event. */
void conn_io_set(struct conn *c, short what);
/* Arm c's timer for ms; its expiry is CONN_EV_TIMEOUT. */
void conn_timer_arm(struct conn *c, unsigned int ms);
/* Stop c's timer. */
void conn_timer_stop(struct conn *c);
/* Close c's socket; graceful: FIN after what was sent, input drained. */
void conn_close_fd(struct conn *c, bool graceful);
/* TCP_NODELAY on c's socket: the handshake frames are small. */
void conn_nodelay(struct conn *c);
/* Record c's local and peer addresses. */
void conn_addrs(struct conn *c);
/* How what happens to c is told (client_api.c, admin.c). */
const struct conn_notify *conn_notify(void);

/* ---- conn_action.c ---- */

/* The actions and guards of the FSM table (conn_fsm.c). */
extern const struct conn_fsm_ops conn_action_ops;
/* Initiator: the TCP connect finished (or failed); feeds the FSM. */
void conn_connected(struct conn *c);

/* ---- conn_policy.c ---- */

/*
 * The negotiation policy for role from the configuration (cp), the
 * listener's default parameters (lp) and the connect's or accept's
 * (cparams), either NULL; -1 when the result is unusable.
 */
int conn_policy(struct neg_policy *p, enum neg_role role,
		const struct conf_policy *cp, const struct conn_params *lp,
		const struct conn_params *cparams);
/* The same for an SCTP session (sctp_conn.c). */
int conn_policy_sctp(const struct iwcmd_conf *conf, const struct conn_params *p,
		     enum neg_role role, struct neg_policy *out);
/* A copy of p (NULL for NULL); fatal when memory runs out. */
struct conn_params *conn_params_dup(const struct conn_params *p);
/* Private Data a client asks to send, at most what the frame holds. */
int conn_pd_set(struct conn *c, const uint8_t *pd, size_t len, bool enhanced);

/* ---- mpa_negotiate.c ---- */

/* Initiator: build and send the Request for c->pol and c->pd. */
int mpa_negotiate_send_request(struct conn *c);
/* Responder: decide the Reply now that the ULP has spoken. */
enum conn_event mpa_negotiate_decide(struct conn *c, bool ulp_reject,
				     const uint8_t *pd, size_t pd_len);
/* Responder: send the Reply built by mpa_negotiate_decide(). */
int mpa_negotiate_send_reply(struct conn *c);
/* Responder: a Reply with R=1 when the ULP did not decide in time. */
int mpa_negotiate_send_reject(struct conn *c);
/*
 * Read one startup frame into c->rd, exactly.  1: complete, parsed into
 * *f; 0: more must come; -1: the peer closed or reset; -2: improperly
 * formatted (*err says why).
 */
int mpa_negotiate_read_frame(struct conn *c, struct mpa_frame *f,
			     enum wire_err *err);
/* Input while a startup frame is expected (WAIT_REQUEST, WAIT_REPLY). */
void mpa_negotiate_input(struct conn *c);
/* Input while the ULP decides (WAIT_ROUTE to DECIDED): watch for a
 * close. */
void mpa_negotiate_idle(struct conn *c);
/* Set up the FPDU-mode directions from c->res. */
void mpa_negotiate_fpdu_mode(struct conn *c);

/* ---- rtr_fence.c ---- */

/* Initiator: send the negotiated RTR (FPDU or seed-003 RtR frame). */
int rtr_fence_send(struct conn *c);
/* Responder: answer the Read RTR with a zero-length Read Response. */
int rtr_fence_send_read_resp(struct conn *c);
/* Send a Terminate, Layer 2 (LLP) / type 0 (MPA) / code. */
int rtr_fence_send_term(struct conn *c, uint8_t code);
/* Input while the RTR (responder) or Read Response (initiator) is due. */
void rtr_fence_input(struct conn *c);

/* ---- handoff.c ---- */

/* Pass c's socket and state to its owner; queues HANDOFF_DONE/_FAILED. */
void handoff_start(struct conn *c);
/* iwcmctl connect: send the NegotiationReport (and the RESULT). */
void handoff_report(struct conn *c, enum conn_result r);

#endif
