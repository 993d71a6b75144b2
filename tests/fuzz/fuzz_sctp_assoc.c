/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The association events of both SCTP stacks (daemon/sctp_assoc.c) driven
 * by arbitrary bytes: records {op, len, len octets}.  op 0-1: a
 * notification (RFC 6458 §6.1) of len octets in usrsctp's (0) or the
 * kernel's (1) constants, whatever its bytes say; op 2: the indication's
 * timer; op 3: a user message (op 4: too big, op 5: without rcvinfo).
 * Whatever comes: down is reported once and ends everything, up at most
 * once and only with DDP's code point (RFC 5043 §7.1) and the smaller
 * stream count (§8), messages are delivered only while up (§5.1), and the
 * state is always one of the table's.
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "fuzz.h"
#include "fuzz_util.h"
#include "log.h"
#include "sctp_assoc.h"
#include "sctp_ss.h"

/* The numbers of both stacks: usrsctp's <usrsctp.h> and Linux's
 * <linux/sctp.h> (the harness includes neither). */
static const struct sctp_as_consts consts[2] = {
	{ .assoc_change = 0x0001,
	  .adaptation = 0x0006,
	  .shutdown = 0x0005,
	  .comm_up = 0x0001,
	  .comm_lost = 0x0002,
	  .restart = 0x0003,
	  .shutdown_comp = 0x0004,
	  .cant_str_assoc = 0x0005 },
	{ .assoc_change = 0x8001,
	  .adaptation = 0x8007,
	  .shutdown = 0x8005,
	  .comm_up = 0,
	  .comm_lost = 1,
	  .restart = 2,
	  .shutdown_comp = 3,
	  .cant_str_assoc = 4 },
};

static int ups, downs, aborts, stops;
static uint16_t in_seen, out_seen;

static void rec_abort(struct sctp_as *a)
{
	(void)a;
	aborts++;
}

static void rec_stop(struct sctp_as *a)
{
	(void)a;
	stops++;
}

static size_t rec_maxseg(struct sctp_as *a)
{
	(void)a;
	return 1400;
}

static void rec_up(void *arg, struct sctp_sock *s,
		   const struct sctp_assoc_info *info)
{
	(void)arg;
	(void)s;
	FZ_CHECK(info->peer_adapt == SCTP_ADAPT_IND_DDP);
	FZ_CHECK(info->streams == (info->in_streams < info->out_streams ?
					   info->in_streams :
					   info->out_streams));
	FZ_CHECK(info->in_streams == in_seen && info->out_streams == out_seen);
	FZ_CHECK(info->maxseg == 1400);
	ups++;
}

static void rec_down(void *arg, struct sctp_sock *s, const char *why)
{
	(void)arg;
	(void)s;
	FZ_CHECK(why && *why);
	downs++;
}

static const struct sctp_as_ops ops = { .abort = rec_abort,
					.stop = rec_stop,
					.maxseg = rec_maxseg };
static const struct sctp_cb cb = { .up = rec_up, .down = rec_down };

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static bool once;
	struct sctp_as a;
	size_t off = 0;

	if (!once) {
		once = true;
		log_init(LOG_TO_NONE, false, "fuzz_sctp_assoc");
	}
	memset(&a, 0, sizeof(a));
	a.ops = &ops;
	a.cb = &cb;
	a.state = size && (data[0] & 0x80) ? SCTP_AS_LISTEN :
					     SCTP_AS_CONNECTING;
	ups = downs = aborts = stops = 0;
	in_seen = out_seen = 0;
	if (size)
		off = 1;
	while (off + 2 <= size) {
		unsigned int op = data[off] % 6;
		size_t len = data[off + 1];
		const uint8_t *p = data + off + 2;
		enum sctp_as_state before = a.state;
		int downs_before = downs;
		struct sctp_as_ev e;
		bool d;

		if (len > size - off - 2)
			len = size - off - 2;
		off += 2 + len;
		memset(&e, 0, sizeof(e));
		switch (op) {
		case 0:
		case 1: {
			/* what COMM_UP would tell, for rec_up() */
			uint8_t buf[256];

			memcpy(buf, p, len);
			if (len >= 16 && before == SCTP_AS_CONNECTING) {
				uint16_t t, st;

				memcpy(&t, buf, 2);
				memcpy(&st, buf + 8, 2);
				if (t == consts[op].assoc_change &&
				    st == consts[op].comm_up) {
					memcpy(&out_seen, buf + 12, 2);
					memcpy(&in_seen, buf + 14, 2);
				}
			}
			sctp_as_notification(&a, &consts[op], buf, len);
			d = false;
			break;
		}
		case 2:
			e.ev = SCTP_AE_ADAPT_TIMEOUT;
			d = sctp_as_event(&a, &e);
			break;
		default:
			e.ev = op == 3 ? SCTP_AE_DATA :
			       op == 4 ? SCTP_AE_TOO_BIG :
					 SCTP_AE_NO_RCVINFO;
			d = sctp_as_event(&a, &e);
			break;
		}
		FZ_CHECK((unsigned int)a.state < SCTP_AS_STATES);
		FZ_CHECK(!d || (op == 3 && a.state == SCTP_AS_UP));
		FZ_CHECK(ups <= 1 && downs <= 1 && aborts <= 1);
		FZ_CHECK(stops == downs && aborts <= downs);
		if (before == SCTP_AS_DOWN || before == SCTP_AS_LISTEN)
			FZ_CHECK(a.state == before && downs == downs_before);
		if (downs)
			FZ_CHECK(a.state == SCTP_AS_DOWN);
		if (a.state == SCTP_AS_UP)
			FZ_CHECK(ups == 1);
		FZ_CHECK(sctp_as_send_check(&a, 0, 1) == 0 ||
			 a.state != SCTP_AS_UP || a.info.streams == 0);
	}
	return 0;
}
