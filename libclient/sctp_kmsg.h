/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LIBCLIENT_SCTP_KMSG_H
#define IWCM_LIBCLIENT_SCTP_KMSG_H

/*
 * What a recvmsg(2) on a kernel SCTP one-to-one socket returned (RFC 6458
 * §5.3, §6.1): a whole user message with its receive information, or a
 * notification; and the send information of a message we send.  Pure:
 * bounded reads of the buffers given, no I/O.  Built where the kernel's
 * SCTP headers are (HAVE_KERNEL_SCTP).
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sctp_kmsg_kind {
	SCTP_KMSG_DATA,	    /* a user message: stream, ppid, unordered */
	SCTP_KMSG_IGNORE,   /* a notification that changes nothing */
	SCTP_KMSG_SHUTDOWN, /* the association shuts down (SHUTDOWN
			     * received, or complete): an orderly end */
	SCTP_KMSG_LOST,	    /* the association is gone (COMM_LOST, an
			     * ABORT; CANT_STR_ASSOC; RESTART) */
	SCTP_KMSG_BAD,	    /* a part of a message, no receive information,
			     * a truncated control or notification */
};

struct sctp_kmsg {
	enum sctp_kmsg_kind kind;
	uint16_t stream;
	uint32_t ppid; /* host order */
	bool unordered;
	const char *why; /* for LOST and BAD */
};

/*
 * Classify what recvmsg(2) returned: its msg_flags, its control buffer
 * (controllen octets) and the len octets of data in buf.  Always fills
 * out; returns out->kind.
 */
enum sctp_kmsg_kind sctp_kmsg_parse(int flags, const void *control,
				    size_t controllen, const uint8_t *buf,
				    size_t len, struct sctp_kmsg *out);

/* Room for the control message of sctp_kmsg_sndinfo(). */
#define SCTP_KMSG_SNDINFO_SPACE 64

/*
 * The SCTP_SNDINFO control message (RFC 6458 §5.3.4) of one user message
 * on stream with ppid (host order), unordered (RFC 5043 §5), into control
 * (cap octets); returns its length, 0 when cap is too small.
 */
size_t sctp_kmsg_sndinfo(void *control, size_t cap, uint16_t stream,
			 uint32_t ppid);

#endif
