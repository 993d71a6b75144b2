/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_DISSECT_INT_H
#define IWCM_DISSECT_INT_H

/*
 * Inside the dissector: the per-connection and per-direction state shared
 * by dissect.c (startup frames, negotiation, the public API),
 * dissect_fpdu.c (full operation) and dissect_base.c (buffers, events).
 * Calls go dissect.c -> dissect_fpdu.c -> dissect_base.c, never back.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect.h"
#include "mpa.h"

enum ds_state {
	DS_START = 0, /* nothing decided: startup frame or raw FPDUs */
	DS_FRAME,     /* collecting a Request or Reply */
	DS_WAIT,      /* own frame done; the peer's frame decides framing */
	DS_RTR_KEY,   /* initiator: a seed-003 RtR frame may come first */
	DS_RTR_FRAME, /* collecting the RtR frame */
	DS_FPDU,      /* full operation: FPDUs */
	DS_STOP,      /* damaged, lost or rejected: the rest is ignored */
};

enum ds_role { ROLE_NONE = 0, ROLE_INITIATOR, ROLE_RESPONDER };

/* Growable byte buffer with a hard cap. */
struct dbuf {
	uint8_t *p;
	size_t len;
	size_t cap;
};

/* Largest FPDU on the wire: length, ULPDU, pad, CRC and its markers. */
#define FPDU_WIRE_MAX                                    \
	(MPA_HDR_LEN + MPA_ULPDU_MAX + 3 + MPA_CRC_LEN + \
	 (MPA_FPDU_MAX_MARKERS + 1) * MPA_MARKER_LEN)
#define MARKERS_MAX (MPA_FPDU_MAX_MARKERS + 2)

struct side {
	enum ds_state state;
	enum ds_role role;
	struct dbuf pend; /* octets before full operation */
	/* this side's startup frame, kept for the negotiation */
	bool have_frame;
	uint8_t frame_raw[MPA_FRAME_MAX];
	size_t frame_len;
	struct mpa_frame frame;
	uint64_t frames_len; /* octets of startup frames so far */
	/* full operation */
	struct mpa_rx rx;
	bool markers;
	enum out_crc crc_mode; /* OFF, GOOD (= on) or UNKNOWN */
	bool version_known;
	uint8_t version;
	uint64_t off;	     /* stream octets consumed in FPDU mode */
	uint64_t fpdu_start; /* stream offset of the current FPDU */
	struct dbuf raw;     /* wire octets of the current FPDU */
	struct dbuf ulpdu;   /* its ULPDU octets, markers removed */
	unsigned long n_fpdus;
	uint8_t rtr_type; /* initiator: MPA_RTR_* it sent */
	/* accounting */
	uint64_t bytes;
	uint64_t ignored;
	const char *stop_reason;
	bool data_forbidden; /* octets after the stop break a rule */
};

struct dissect {
	struct out_sink *out;
	struct dissect_stats *st;
	unsigned int conn;
	char ep[2][64];
	int init_side; /* the MPA initiator's side, -1 unknown */
	bool params_done;
	struct out_params params;
	struct side s[2];
};

/* dissect_base.c */

/* Append n octets to b, growing it up to max; -1 past max or on ENOMEM. */
int dissect_buf_append(struct dbuf *b, const uint8_t *p, size_t n, size_t max);

/* Drop the first n octets of b. */
void dissect_buf_consume(struct dbuf *b, size_t n);

/* Free b's storage and empty it. */
void dissect_buf_free(struct dbuf *b);

/* The direction of what side sends: MPA roles when known, else A/B. */
enum out_dir dissect_dir(const struct dissect *d, int side);

/* Report an event at stream offset off of side and count it when bad. */
void dissect_event_at(struct dissect *d, int side, uint64_t off,
		      enum out_ev kind, bool bad, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Stop decoding side: what follows is counted as ignored. */
void dissect_stop(struct dissect *d, int side, const char *why);

/* dissect_fpdu.c */

/* Enter full operation on side with the given framing (RFC 5044 §4.3). */
void dissect_fpdu_start(struct dissect *d, int side, bool markers,
			enum out_crc mode);

/* Feed in-order octets of side to its FPDU decoder. */
void dissect_fpdu_feed(struct dissect *d, int side, const uint8_t *buf,
		       size_t len);

#endif
