/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * DDP Stream Sessions on one association (daemon/sctp_session.c) driven
 * by arbitrary bytes: records {op, stream, len, len octets} (len times
 * 4 when the stream octet's top bit is set) mix what a
 * peer sends with what owners decide.  Whatever comes, every message
 * sent is well formed and within the segment size, pending Initiates
 * stay within the limit, and every session an owner saw is released.
 */
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz/fuzz.h"
#include "log.h"
#include "sctp_session.h"

#define STREAMS 4
#define MAXSEG 600 /* RFC 5043 §9: at least 516 */
#define KNOWN_MAX 64

static struct sctp_session *known[KNOWN_MAX];

static void known_add(struct sctp_session *s)
{
	size_t i;

	for (i = 0; i < KNOWN_MAX; i++)
		if (known[i] == s)
			return;
	for (i = 0; i < KNOWN_MAX; i++)
		if (!known[i]) {
			known[i] = s;
			return;
		}
	abort();
}

static int io_send(void *arg, uint16_t stream, uint32_t ppid, const void *buf,
		   size_t len)
{
	struct sctp_ss_msg m;
	size_t used;

	(void)arg;
	if (stream >= STREAMS || len > MAXSEG)
		abort();
	if (ppid == SCTP_PPID_DDP_SESSION_CTL) {
		if (sctp_ss_parse(buf, len, &m, &used) != WIRE_OK)
			abort();
	} else if (ppid != SCTP_PPID_DDP_SEGMENT || len < 2) {
		abort();
	}
	return 0;
}

static bool ulp_has_listener(void *arg, struct sctp_assoc *a)
{
	(void)a;
	return *(bool *)arg;
}

static int ulp_request(void *arg, struct sctp_session *s)
{
	(void)arg;
	known_add(s);
	return 0;
}

static int ulp_established(void *arg, struct sctp_session *s)
{
	(void)arg;
	known_add(s);
	return 0;
}

static int ulp_segment(void *arg, struct sctp_session *s, const uint8_t *seg,
		       size_t len)
{
	(void)arg;
	(void)s;
	if (len && !seg)
		abort();
	return 0;
}

static void ulp_release(void *arg, struct sctp_session *s)
{
	size_t i;

	(void)arg;
	for (i = 0; i < KNOWN_MAX; i++)
		if (known[i] == s)
			known[i] = NULL;
}

static const struct sctp_assoc_io io = { .send = io_send };
static const struct sctp_session_ulp ulp = {
	.has_listener = ulp_has_listener,
	.request = ulp_request,
	.established = ulp_established,
	.segment = ulp_segment,
	.release = ulp_release,
};

static void step(struct sctp_assoc *a, uint8_t op, uint16_t stream,
		 const uint8_t *d, size_t n, bool *listening,
		 struct event_base *base)
{
	struct sctp_session *s = sctp_assoc_session(a, stream);

	switch (op & 7) {
	case 0:
		sctp_assoc_input(a, stream, SCTP_PPID_DDP_SESSION_CTL, true, d,
				 n);
		break;
	case 1:
		sctp_assoc_input(a, stream, SCTP_PPID_DDP_SEGMENT, true, d, n);
		break;
	case 2:
		sctp_assoc_input(a, stream, n ? d[0] : 0, op & 8, d, n);
		break;
	case 3:
	case 4:
		if (s)
			sctp_session_decide(s, (op & 7) == 3, d, n);
		break;
	case 5:
		s = sctp_session_connect(a, stream, NULL, d, n);
		if (s)
			known_add(s);
		break;
	case 6:
		if (s)
			sctp_session_ulp_close(s, op & 8);
		else
			*listening = !*listening;
		break;
	case 7:
		if (s && (op & 8))
			sctp_session_handoff_done(s, !(op & 16));
		else if (s)
			sctp_session_send_segment(s, d, n);
		else
			event_base_loop(base, EVLOOP_NONBLOCK);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct event_base *base;
	struct sctp_assoc_conf c;
	struct sctp_assoc *a;
	bool listening = true;
	size_t i;

	if (!base) {
		log_init(LOG_TO_STDERR, false, "fuzz_sctp_session");
		base = event_base_new();
		if (!base)
			abort();
	}
	sctp_assoc_conf_defaults(&c, STREAMS);
	c.maxseg = MAXSEG;
	c.pending_max = 2;
	c.ulp_timeout_ms = 0; /* a loop turn times everything out */
	c.reply_timeout_ms = 0;
	c.term_timeout_ms = 0;
	a = sctp_assoc_new(1, base, &c, &io, NULL, &ulp, &listening);
	if (!a)
		abort();
	while (size >= 3) {
		uint8_t op = data[0];
		uint16_t stream = (data[1] & 0x7f) % (STREAMS + 1);
		size_t n = data[2];

		if (data[1] & 0x80)
			n = n * 4; /* reach past 512 octets */
		data += 3;
		size -= 3;
		if (n > size)
			n = size;
		step(a, op, stream, data, n, &listening, base);
		data += n;
		size -= n;
		if (sctp_assoc_pending(a) > c.pending_max ||
		    sctp_assoc_pending(a) > sctp_assoc_sessions(a) ||
		    sctp_assoc_sessions(a) > STREAMS)
			abort();
	}
	sctp_assoc_free(a);
	for (i = 0; i < KNOWN_MAX; i++)
		if (known[i])
			abort();
	/* no session left, so no timer either */
	event_base_loop(base, EVLOOP_NONBLOCK);
	return 0;
}
