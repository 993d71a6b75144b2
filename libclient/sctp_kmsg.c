/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * recvmsg(2) results and sendmsg(2) control of the kernel's SCTP for a
 * session its owner carries on itself (sctp_kmsg.h): RFC 6458 §5.3.5
 * (SCTP_RCVINFO), §5.3.2 (SCTP_SNDRCV), §5.3.4 (SCTP_SNDINFO), §6.1
 * (SCTP_ASSOC_CHANGE, SCTP_SHUTDOWN_EVENT).  Every field is read with
 * memcpy from within the length given.
 */
#include "config.h"

#include <string.h>

#include "sctp_kmsg.h"

#ifdef HAVE_KERNEL_SCTP
#include <arpa/inet.h>
#include <stdint.h> /* before <linux/sctp.h>, which uses it */
#include <linux/sctp.h>
#include <stddef.h>
#include <sys/socket.h>

/* RFC 6458 §6.1: every notification starts {u16 type, u16 flags, u32
 * length}, host order (sn_header of union sctp_notification). */
#define KMSG_NOTE_HDR 8

/* A notification (RFC 6458 §6.1): its type and, for an association
 * change, its state. */
static enum sctp_kmsg_kind kmsg_note(const uint8_t *buf, size_t len,
				     struct sctp_kmsg *out)
{
	uint16_t type, state;
	uint32_t nlen;

	if (len < KMSG_NOTE_HDR) {
		out->why = "short notification";
		return SCTP_KMSG_BAD;
	}
	memcpy(&type, buf, sizeof(type));
	memcpy(&nlen, buf + 4, sizeof(nlen));
	if (nlen > len || nlen < KMSG_NOTE_HDR) {
		out->why = "truncated notification";
		return SCTP_KMSG_BAD;
	}
	switch (type) {
	case SCTP_ASSOC_CHANGE:
		if (nlen < offsetof(struct sctp_assoc_change, sac_state) +
				   sizeof(state)) {
			out->why = "short association change";
			return SCTP_KMSG_BAD;
		}
		memcpy(&state,
		       buf + offsetof(struct sctp_assoc_change, sac_state),
		       sizeof(state));
		switch (state) {
		case SCTP_COMM_LOST:
			out->why = "association lost";
			return SCTP_KMSG_LOST;
		case SCTP_CANT_STR_ASSOC:
			out->why = "association failed";
			return SCTP_KMSG_LOST;
		case SCTP_RESTART:
			/* the peer restarted: its side of the session is
			 * gone (RFC 4960 §5.2.2) */
			out->why = "peer restarted";
			return SCTP_KMSG_LOST;
		case SCTP_SHUTDOWN_COMP:
			out->why = "association shut down";
			return SCTP_KMSG_SHUTDOWN;
		default:
			return SCTP_KMSG_IGNORE;
		}
	case SCTP_SHUTDOWN_EVENT:
		out->why = "peer shut down";
		return SCTP_KMSG_SHUTDOWN;
	default:
		return SCTP_KMSG_IGNORE;
	}
}

/* A user message's receive information, from SCTP_RCVINFO or the older
 * SCTP_SNDRCV; false when neither is there whole. */
static bool kmsg_rcvinfo(const void *control, size_t controllen,
			 struct sctp_kmsg *out)
{
	struct msghdr m;
	struct cmsghdr *c;
	bool found = false;

	memset(&m, 0, sizeof(m));
	m.msg_control = (void *)(uintptr_t)control;
	m.msg_controllen = controllen;
	for (c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		const uint8_t *d = CMSG_DATA(c);

		if (c->cmsg_len < sizeof(*c) ||
		    (size_t)((const uint8_t *)c - (const uint8_t *)control) +
				    c->cmsg_len >
			    controllen)
			return false;
		if (c->cmsg_level != IPPROTO_SCTP)
			continue;
		if (c->cmsg_type == SCTP_RCVINFO &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct sctp_rcvinfo))) {
			struct sctp_rcvinfo r;

			memcpy(&r, d, sizeof(r));
			out->stream = r.rcv_sid;
			out->ppid = ntohl(r.rcv_ppid);
			out->unordered = (r.rcv_flags & SCTP_UNORDERED) != 0;
			found = true;
		} else if (c->cmsg_type == SCTP_SNDRCV &&
			   c->cmsg_len >=
				   CMSG_LEN(sizeof(struct sctp_sndrcvinfo)) &&
			   !found) {
			struct sctp_sndrcvinfo r;

			memcpy(&r, d, sizeof(r));
			out->stream = r.sinfo_stream;
			out->ppid = ntohl(r.sinfo_ppid);
			out->unordered = (r.sinfo_flags & SCTP_UNORDERED) != 0;
			found = true;
		}
	}
	return found;
}

/* Classify what recvmsg(2) returned. */
enum sctp_kmsg_kind sctp_kmsg_parse(int flags, const void *control,
				    size_t controllen, const uint8_t *buf,
				    size_t len, struct sctp_kmsg *out)
{
	memset(out, 0, sizeof(*out));
	if (flags & MSG_NOTIFICATION) {
		if (!(flags & MSG_EOR)) {
			out->why = "part of a notification";
			return out->kind = SCTP_KMSG_BAD;
		}
		return out->kind = kmsg_note(buf, len, out);
	}
	/* RFC 5043 §9: SCTP never fragments a DDP Segment, and a message
	 * is delivered whole (MSG_EOR); a part of one is an error */
	if (!(flags & MSG_EOR)) {
		out->why = "part of a message";
		return out->kind = SCTP_KMSG_BAD;
	}
	if ((flags & MSG_CTRUNC) || !control ||
	    !kmsg_rcvinfo(control, controllen, out)) {
		out->why = "no receive information";
		return out->kind = SCTP_KMSG_BAD;
	}
	return out->kind = SCTP_KMSG_DATA;
}

/* The SCTP_SNDINFO of one unordered message. */
size_t sctp_kmsg_sndinfo(void *control, size_t cap, uint16_t stream,
			 uint32_t ppid)
{
	struct sctp_sndinfo si;
	struct cmsghdr c;

	if (cap < CMSG_SPACE(sizeof(si)))
		return 0;
	memset(control, 0, CMSG_SPACE(sizeof(si)));
	memset(&si, 0, sizeof(si));
	si.snd_sid = stream;
	si.snd_flags = SCTP_UNORDERED; /* RFC 5043 §5.2 */
	si.snd_ppid = htonl(ppid);     /* network order on the wire */
	memset(&c, 0, sizeof(c));
	c.cmsg_level = IPPROTO_SCTP;
	c.cmsg_type = SCTP_SNDINFO;
	c.cmsg_len = CMSG_LEN(sizeof(si));
	memcpy(control, &c, sizeof(c));
	memcpy((uint8_t *)control + CMSG_LEN(0), &si, sizeof(si));
	return CMSG_SPACE(sizeof(si));
}

#else

enum sctp_kmsg_kind sctp_kmsg_parse(int flags, const void *control,
				    size_t controllen, const uint8_t *buf,
				    size_t len, struct sctp_kmsg *out)
{
	(void)flags;
	(void)control;
	(void)controllen;
	(void)buf;
	(void)len;
	memset(out, 0, sizeof(*out));
	out->why = "no kernel SCTP in this build";
	return out->kind = SCTP_KMSG_BAD;
}

size_t sctp_kmsg_sndinfo(void *control, size_t cap, uint16_t stream,
			 uint32_t ppid)
{
	(void)control;
	(void)cap;
	(void)stream;
	(void)ppid;
	return 0;
}

#endif
