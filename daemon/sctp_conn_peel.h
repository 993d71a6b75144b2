/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_CONN_PEEL_H
#define IWCMD_SCTP_CONN_PEEL_H

/*
 * The handoff of an association to the owner of its one session, on the
 * kernel's SCTP (docs/sctp.md "Handoff of the association"): the peer's
 * segments iwcmd read before it stopped reading (passed on by the
 * session, or held ahead of their turn), each as the whole SCTP user
 * message (DDP-SSN first), go with the Established event (SctpHandoff).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sc_conn;
struct sctp_session;
struct sctp_sock;

/* As many messages as a session holds ahead of its turn (sctp_session.c),
 * and as many octets. */
#define SCTP_PEEL_MSGS 256
#define SCTP_PEEL_BYTES (256 * 1024)
/* What fits one Established event (IPC_MAX_MSG 64 KiB with the rest):
 * beyond it the session is relayed after all. */
#define SCTP_PEEL_IPC_BYTES (32 * 1024)

struct sctp_peel_msg {
	uint16_t stream;
	uint32_t ppid;
	size_t len;
	uint8_t *buf; /* DDP-SSN first */
};

struct sctp_peel {
	uint16_t stream;
	uint16_t tx_ssn, rx_ssn; /* valid after sctp_peel_take() */
	unsigned int n_early;	 /* segments the session passed on, in order */
	struct sctp_peel_msg msg[SCTP_PEEL_MSGS];
	unsigned int n;
	size_t bytes;
};

/* The handoff of the session on stream; NULL with errno. */
struct sctp_peel *sctp_peel_new(uint16_t stream);
/* One DDP Segment (without its DDP-SSN) the session passed on in order
 * before the handoff; -1 (ENOBUFS, ENOMEM) when it cannot be kept. */
int sctp_peel_segment(struct sctp_peel *p, const uint8_t *seg, size_t len);
/* The session's DDP-SSNs and the messages it holds ahead of their turn:
 * p is complete (the early segments get their DDP-SSNs).  0 or -1. */
int sctp_peel_take(struct sctp_peel *p, const struct sctp_session *s);
void sctp_peel_free(struct sctp_peel *p);
/*
 * Whether k's association goes to k's owner instead of a relay: on the
 * kernel's SCTP (kernel: the running stack), when it carries k's session
 * and nothing else.
 */
bool sctp_peel_wanted(const struct sc_conn *k, bool kernel);
/*
 * p made complete from s (sctp_peel_take()), and a copy of the socket of
 * sock, the association, for the owner; -1 with errno (EMSGSIZE: more
 * was read ahead than SCTP_PEEL_IPC_BYTES).
 */
int sctp_peel_ready(struct sctp_peel *p, const struct sctp_session *s,
		    struct sctp_sock *sock);

#endif
