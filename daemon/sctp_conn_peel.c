/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What goes with an association handed to the owner of its one session
 * (sctp_conn_peel.h): the session's DDP-SSNs (RFC 5043 §5.2.1) and the
 * peer's messages iwcmd read after the Accept.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "sctp_conn_int.h"
#include "sctp_conn_peel.h"
#include "sctp_session.h"
#include "sctp_ss.h"

/* The handoff of the session on stream. */
struct sctp_peel *sctp_peel_new(uint16_t stream)
{
	struct sctp_peel *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->stream = stream;
	return p;
}

/* Keep one message (ssn written in front of body); -1 when it cannot. */
static int peel_add(struct sctp_peel *p, uint16_t ssn, uint32_t ppid,
		    const uint8_t *body, size_t len)
{
	struct sctp_peel_msg *m;

	if (p->n == SCTP_PEEL_MSGS || len > SCTP_PEEL_BYTES - 2 ||
	    p->bytes + len + 2 > SCTP_PEEL_BYTES) {
		errno = ENOBUFS;
		return -1;
	}
	m = &p->msg[p->n];
	m->buf = malloc(len + 2);
	if (!m->buf)
		return -1;
	m->buf[0] = (uint8_t)(ssn >> 8);
	m->buf[1] = (uint8_t)ssn;
	if (len)
		memcpy(m->buf + 2, body, len);
	m->stream = p->stream;
	m->ppid = ppid;
	m->len = len + 2;
	p->n++;
	p->bytes += len + 2;
	return 0;
}

/* A segment the session passed on in order; its DDP-SSN comes later. */
int sctp_peel_segment(struct sctp_peel *p, const uint8_t *seg, size_t len)
{
	if (p->n != p->n_early) {
		errno = EINVAL; /* taken already */
		return -1;
	}
	if (peel_add(p, 0, SCTP_PPID_DDP_SEGMENT, seg, len) < 0)
		return -1;
	p->n_early++;
	return 0;
}

static int peel_held(void *arg, uint16_t ssn, uint32_t ppid, const uint8_t *buf,
		     size_t len)
{
	/* held whole: DDP-SSN first (sctp_assoc_input()) */
	if (len < 2)
		return 0;
	return peel_add(arg, ssn, ppid, buf + 2, len - 2);
}

/* The session's DDP-SSNs and held messages. */
int sctp_peel_take(struct sctp_peel *p, const struct sctp_session *s)
{
	struct sctp_session_state st;
	unsigned int i;

	if (sctp_session_export(s, &st, peel_held, p) < 0)
		return -1;
	p->tx_ssn = st.tx_ssn;
	/* the early segments came just before the next DDP-SSN */
	p->rx_ssn = (uint16_t)(st.rx_ssn - p->n_early);
	for (i = 0; i < p->n_early; i++) {
		uint16_t ssn = (uint16_t)(p->rx_ssn + i);

		p->msg[i].buf[0] = (uint8_t)(ssn >> 8);
		p->msg[i].buf[1] = (uint8_t)ssn;
	}
	return 0;
}

void sctp_peel_free(struct sctp_peel *p)
{
	unsigned int i;

	if (!p)
		return;
	for (i = 0; i < p->n; i++)
		free(p->msg[i].buf);
	free(p);
}

/*
 * On the kernel's SCTP a one-to-one socket is the association itself
 * (RFC 6458 §4): it goes to the owner when it carries k's session and
 * nothing else, not even an Initiate awaiting a decision (a session
 * too, in WAIT_ULP).  A peer that multiplexes sessions over one
 * association (RFC 5043 §5) keeps the relay for it.  Asked at the
 * Accept and again at the handoff.
 */
bool sctp_peel_wanted(const struct sc_conn *k, bool kernel)
{
	const struct sc_assoc *as = k->as;

	return kernel && as && as->sock && as->sa &&
	       TAILQ_FIRST(&as->conns) == k && !TAILQ_NEXT(k, as_entry) &&
	       sctp_assoc_sessions(as->sa) == 1;
}

/* p complete, and the owner's copy of the association's socket. */
int sctp_peel_ready(struct sctp_peel *p, const struct sctp_session *s,
		    struct sctp_sock *sock)
{
	int fd;

	if (sctp_peel_take(p, s) < 0 || (fd = sctp_stack_fd(sock)) < 0)
		return -1;
	if (p->bytes > SCTP_PEEL_IPC_BYTES) {
		errno = EMSGSIZE;
		return -1;
	}
	return fcntl(fd, F_DUPFD_CLOEXEC, 0);
}
