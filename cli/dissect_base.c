/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The dissector's plumbing: bounded byte buffers, the direction of a side,
 * events (counted in the shared statistics when bad) and stopping a
 * direction.  Nothing here decodes.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dissect_int.h"

/* Append n octets to b, growing it up to max; -1 past max or on ENOMEM. */
int dissect_buf_append(struct dbuf *b, const uint8_t *p, size_t n, size_t max)
{
	size_t want;
	uint8_t *np;

	if (n > max || b->len > max - n)
		return -1;
	want = b->len + n;
	if (want > b->cap) {
		size_t ncap = b->cap ? b->cap : 256;

		while (ncap < want)
			ncap *= 2;
		if (ncap > max)
			ncap = max;
		np = realloc(b->p, ncap);
		if (!np)
			return -1;
		b->p = np;
		b->cap = ncap;
	}
	if (n)
		memcpy(b->p + b->len, p, n);
	b->len += n;
	return 0;
}

/* Drop the first n octets of b. */
void dissect_buf_consume(struct dbuf *b, size_t n)
{
	if (n >= b->len) {
		b->len = 0;
		return;
	}
	memmove(b->p, b->p + n, b->len - n);
	b->len -= n;
}

/* Free b's storage and empty it. */
void dissect_buf_free(struct dbuf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* The direction of what side sends: MPA roles when known, else A/B. */
enum out_dir dissect_dir(const struct dissect *d, int side)
{
	if (d->init_side < 0)
		return side == 0 ? OUT_DIR_A2B : OUT_DIR_B2A;
	return side == d->init_side ? OUT_DIR_I2R : OUT_DIR_R2I;
}

static void count_event(struct dissect_stats *st, enum out_ev kind, bool bad)
{
	if (!bad)
		return;
	if (kind == OUT_EV_MALFORMED)
		st->malformed++;
	else
		st->errors++;
}

static void event_v(struct dissect *d, int side, bool has_off, uint64_t off,
		    enum out_ev kind, bool bad, const char *fmt, va_list ap)
	__attribute__((format(printf, 7, 0)));

static void event_v(struct dissect *d, int side, bool has_off, uint64_t off,
		    enum out_ev kind, bool bad, const char *fmt, va_list ap)
{
	struct out_event ev;
	char msg[256];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	memset(&ev, 0, sizeof(ev));
	ev.conn = d->conn;
	ev.dir = side < 0 ? OUT_DIR_NONE : dissect_dir(d, side);
	ev.has_off = has_off;
	ev.off = off;
	ev.kind = kind;
	ev.bad = bad;
	ev.msg = msg;
	count_event(d->st, kind, bad);
	d->out->ops->event(d->out, &ev);
}

/* Report an event at stream offset off of side and count it when bad. */
void dissect_event_at(struct dissect *d, int side, uint64_t off,
		      enum out_ev kind, bool bad, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(d, side, true, off, kind, bad, fmt, ap);
	va_end(ap);
}

/* Report an event for this connection and count it when bad. */
void dissect_event(struct dissect *d, int side, enum out_ev kind, bool bad,
		   const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	event_v(d, side, false, 0, kind, bad, fmt, ap);
	va_end(ap);
}

/* Stop decoding side: what follows is counted as ignored. */
void dissect_stop(struct dissect *d, int side, const char *why)
{
	struct side *s = &d->s[side];

	s->state = DS_STOP;
	s->stop_reason = why;
	s->ignored += s->pend.len;
	s->pend.len = 0;
	s->raw.len = 0;
	s->ulpdu.len = 0;
}
