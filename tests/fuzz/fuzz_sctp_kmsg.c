/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What libiwcm reads from a kernel SCTP association's own socket
 * (libclient/sctp_kmsg.c, libclient/sctp_kseq.c) on arbitrary input: a
 * sequence of records, each what one recvmsg(2) returned,
 *   flags (1: MSG_NOTIFICATION, 2: MSG_EOR, 4: MSG_CTRUNC, 8: a valid
 *   SCTP_RCVINFO built from the next octet: stream = low 2 bits, PPID 16
 *   or 17 by bit 2, unordered by bit 3; else the control octets given),
 *   control length (1 octet), control, data length (16 bits), data;
 * classified, and each user message fed to one session's sequencer with
 * its held ones: a segment given back lies inside the message or a held
 * copy of it, the held never exceed their bounds, and the session's
 * DDP-SSNs only move forward one at a time.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz/fuzz.h"
#include "sctp_kmsg.h"
#include "sctp_kseq.h"

#ifdef HAVE_KERNEL_SCTP
#include <arpa/inet.h>
#include <linux/sctp.h>
#endif

#ifdef MSG_NOTIFICATION
#define MSG_NOTIFICATION_FLAG MSG_NOTIFICATION
#else
#define MSG_NOTIFICATION_FLAG 0x8000
#endif

#define CHECK(c)                 \
	do {                     \
		if (!(c))        \
			abort(); \
	} while (0)

/* The session's verdicts, and its invariants after each. */
static void feed(struct sctp_kseq *q, const struct sctp_kmsg *k,
		 const uint8_t *buf, size_t len)
{
	const uint8_t *seg = NULL;
	size_t sl = 0;
	unsigned int rx = q->tx_dir ? 0 : 1;
	uint16_t before = q->seq.ssn[rx];
	enum sctp_kseq_verdict v = sctp_kseq_input(
		q, k->stream, k->ppid, k->unordered, buf, len, &seg, &sl);
	unsigned int guard = 0;

	while (v == SCTP_KSEQ_SEGMENT || v == SCTP_KSEQ_TERMINATE) {
		uint16_t now = q->seq.ssn[rx];

		CHECK((uint16_t)(now - before) == 1);
		before = now;
		if (v == SCTP_KSEQ_SEGMENT) {
			CHECK(seg != NULL);
			/* inside the message, or the held copy */
			if (seg >= buf && seg <= buf + len)
				CHECK(seg + sl <= buf + len);
			else
				CHECK(q->cur && seg == q->cur + 2);
		}
		CHECK(++guard <= SCTP_KSEQ_HOLD + 1);
		v = sctp_kseq_next(q, &seg, &sl);
	}
	CHECK(q->n_held <= SCTP_KSEQ_HOLD);
	CHECK(q->held_bytes <= SCTP_KSEQ_HOLD_BYTES);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sctp_kseq q;
	size_t off = 0;

	sctp_kseq_init(&q, size && (data[0] & 1), size && (data[0] & 2), 1, 0,
		       0);
	if (size)
		off = 1;
	while (off + 4 <= size) {
		union {
			struct cmsghdr c;
			uint8_t b[512];
		} u;
		uint8_t fl = data[off], cl = data[off + 1];
		size_t ctl_len = 0, dl;
		int flags = 0;
		uint8_t *buf;
		struct sctp_kmsg k;

		off += 2;
		memset(&u, 0, sizeof(u));
#ifdef HAVE_KERNEL_SCTP
		if (fl & 8) {
			struct sctp_rcvinfo ri;
			struct msghdr m;
			struct cmsghdr *c;

			memset(&ri, 0, sizeof(ri));
			ri.rcv_sid = cl & 3;
			ri.rcv_ppid = htonl(cl & 4 ? 17 : 16);
			ri.rcv_flags = cl & 8 ? SCTP_UNORDERED : 0;
			memset(&m, 0, sizeof(m));
			m.msg_control = u.b;
			m.msg_controllen = CMSG_SPACE(sizeof(ri));
			c = CMSG_FIRSTHDR(&m);
			c->cmsg_level = IPPROTO_SCTP;
			c->cmsg_type = SCTP_RCVINFO;
			c->cmsg_len = CMSG_LEN(sizeof(ri));
			memcpy(CMSG_DATA(c), &ri, sizeof(ri));
			ctl_len = CMSG_SPACE(sizeof(ri));
		} else
#endif
		{
			if (cl > size - off)
				break;
			memcpy(u.b, data + off, cl);
			ctl_len = cl;
			off += cl;
		}
		if (off + 2 > size)
			break;
		dl = (size_t)data[off] << 8 | data[off + 1];
		off += 2;
		if (dl > size - off)
			dl = size - off;
		/* exactly dl octets, so that a read past them is seen */
		buf = malloc(dl ? dl : 1);
		if (!buf)
			break;
		memcpy(buf, data + off, dl);
		off += dl;
		if (fl & 1)
			flags |= MSG_NOTIFICATION_FLAG;
		if (fl & 2)
			flags |= MSG_EOR;
		if (fl & 4)
			flags |= MSG_CTRUNC;
		if (sctp_kmsg_parse(flags, ctl_len ? u.b : NULL, ctl_len, buf,
				    dl, &k) == SCTP_KMSG_DATA)
			feed(&q, &k, buf, dl);
		else
			CHECK(k.kind != SCTP_KMSG_DATA);
		free(buf);
	}
	sctp_kseq_fini(&q);
	return 0;
}
