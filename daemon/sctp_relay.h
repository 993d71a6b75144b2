/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_RELAY_H
#define IWCM_SCTP_RELAY_H

/*
 * The relay between one DDP Stream Session and its owner, over one end
 * of a SOCK_SEQPACKET socketpair whose other end is the owner's fd
 * (docs/sctp.md "Handoff by relay"): one datagram, one message, an
 * 8-octet header {stream (16), reserved (16), PPID (32)}, network order,
 * then the DDP Segment without its DDP-SSN (RFC 5043 §5.2).  Messages
 * for the owner wait in a queue, whose high watermark pauses the
 * association; the owner's are read only while the stack takes them.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct event_base;
struct sctp_relay;

#define SCTP_RELAY_HDR 8
#define SCTP_RELAY_HIGH 256 /* queued messages: pause the association */
#define SCTP_RELAY_LOW 64   /* below again: resume it */

struct sctp_relay_ops {
	/*
	 * One message from the owner (header checked: the session's stream,
	 * PPID 16).  0, or -1 with errno: EAGAIN stops reading the owner
	 * until sctp_relay_start(); anything else closes the relay.
	 */
	int (*from_owner)(void *arg, const uint8_t *seg, size_t len);
	/* the owner closed its end, sent garbage, or the relay failed */
	void (*closed)(void *arg, bool error);
	/* the queue crossed a watermark: pause (true) or resume reading */
	void (*backlog)(void *arg, bool high);
};

/*
 * A relay for stream on base; *owner_fd receives the owner's end
 * (the caller hands it over and closes it).  maxseg bounds the segments
 * either way.  NULL with errno.
 */
struct sctp_relay *sctp_relay_new(struct event_base *base, uint16_t stream,
				  size_t maxseg,
				  const struct sctp_relay_ops *ops, void *arg,
				  int *owner_fd);
/* Queue one message for the owner; -1 (ENOMEM) when it cannot. */
int sctp_relay_to_owner(struct sctp_relay *r, uint32_t ppid, const uint8_t *buf,
			size_t len);
/* Start reading the owner's messages (after the handoff), or again once
 * the stack takes them again. */
void sctp_relay_start(struct sctp_relay *r);
/* The session ended: deliver what is queued, then close; frees r when
 * done.  No callback follows. */
void sctp_relay_finish(struct sctp_relay *r);
/* Close at once, dropping the queue; frees r. */
void sctp_relay_free(struct sctp_relay *r);
/* Daemon shutdown: every relay closes, draining or not (after their
 * owners in sctp_conn.c let go of theirs). */
void sctp_relay_shutdown(void);

#endif
