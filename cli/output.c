/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The output of iwcmctl decode: the names shared by both formats, the
 * helpers of output_text.c and output_json.c, and the null sink.
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "output.h"

/* ---- names ---- */

/* Name of a direction as used in both formats ("i2r", ...). */
const char *out_dir_name(enum out_dir dir)
{
	switch (dir) {
	case OUT_DIR_I2R:
		return "i2r";
	case OUT_DIR_R2I:
		return "r2i";
	case OUT_DIR_A2B:
		return "a2b";
	case OUT_DIR_B2A:
		return "b2a";
	default:
		return "none";
	}
}

/* Name of an event kind ("gap", ...). */
const char *out_ev_name(enum out_ev kind)
{
	static const char *const names[OUT_EV_MAX] = {
		[OUT_EV_NOTE] = "note",
		[OUT_EV_GAP] = "gap",
		[OUT_EV_TRUNCATED] = "truncated",
		[OUT_EV_MALFORMED] = "malformed",
		[OUT_EV_PROTOCOL] = "protocol",
		[OUT_EV_CAPTURE] = "capture",
	};

	if ((unsigned int)kind < OUT_EV_MAX && names[kind])
		return names[kind];
	return "unknown";
}

/* Name of a CRC state ("off", "good", "bad", "unknown"). */
const char *out_crc_name(enum out_crc crc)
{
	switch (crc) {
	case OUT_CRC_OFF:
		return "off";
	case OUT_CRC_GOOD:
		return "good";
	case OUT_CRC_BAD:
		return "bad";
	case OUT_CRC_UNKNOWN:
		return "unknown";
	}
	return "unknown";
}

/* "request", "reply" or "rtr". */
const char *out_frame_type_name(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return "request";
	case MPA_FRAME_REP:
		return "reply";
	case MPA_FRAME_RTR:
		return "rtr";
	}
	return "unknown";
}

/* "MPA Request", "MPA Reply" or "MPA RtR frame". */
const char *out_frame_title(enum mpa_frame_type t)
{
	switch (t) {
	case MPA_FRAME_REQ:
		return "MPA Request";
	case MPA_FRAME_REP:
		return "MPA Reply";
	case MPA_FRAME_RTR:
		return "MPA RtR frame";
	}
	return "MPA frame";
}

/* RFC 5040 §4.1: opcodes that carry an Invalidate STag. */
int out_opcode_has_inv(uint8_t op)
{
	return op == RDMAP_SEND_INV || op == RDMAP_SEND_SE_INV;
}

/* Name of an SCTP Payload Protocol Identifier (IANA registry). */
const char *out_ppid_name(uint32_t ppid)
{
	switch (ppid) {
	case 0:
		return "unspecified";
	case 3:
		return "M3UA";
	case SCTP_PPID_DDP_SEGMENT:
		return "DDP Segment";
	case SCTP_PPID_DDP_SESSION_CTL:
		return "DDP Stream Session Control";
	case 18:
		return "S1AP";
	case 46:
		return "Diameter";
	case 47:
		return "Diameter DTLS";
	case 50:
		return "WebRTC Control";
	case 51:
		return "WebRTC String";
	case 53:
		return "WebRTC Binary";
	case 60:
		return "NGAP";
	}
	return "other";
}

/* n octets at p as hex, sep between them (NULL: none). */
void out_put_hex(FILE *fp, const uint8_t *p, size_t n, const char *sep)
{
	size_t i;

	for (i = 0; i < n; i++)
		fprintf(fp, "%s%02x", i && sep ? sep : "", p[i]);
}

/* How many of n payload octets to show: all with OUT_VERBOSE. */
size_t out_brief_len(const struct out_sink *o, size_t n)
{
	if (o->flags & OUT_VERBOSE)
		return n;
	return n < OUT_PAYLOAD_BRIEF ? n : OUT_PAYLOAD_BRIEF;
}

/* ---- null ---- */

static void nul_conn(struct out_sink *o, const struct out_conn *c)
{
}

static void nul_frame(struct out_sink *o, const struct out_frame *f)
{
}

static void nul_params(struct out_sink *o, const struct out_params *p)
{
}

static void nul_fpdu(struct out_sink *o, const struct out_fpdu *f)
{
}

static void nul_event(struct out_sink *o, const struct out_event *e)
{
}

static void nul_conn_end(struct out_sink *o, const struct out_conn_end *c)
{
}

static void nul_summary(struct out_sink *o, const struct out_summary *s)
{
}

static void nul_assoc(struct out_sink *o, const struct out_assoc *a)
{
}

static void nul_sctp_pkt(struct out_sink *o, const struct out_sctp_pkt *p)
{
}

static void nul_sctp_chunk(struct out_sink *o, const struct out_sctp_chunk *c)
{
}

static void nul_sctp_msg(struct out_sink *o, const struct out_sctp_msg *m)
{
}

static void nul_assoc_end(struct out_sink *o, const struct out_assoc_end *a)
{
}

const struct output output_null = {
	.name = "null",
	.conn = nul_conn,
	.frame = nul_frame,
	.params = nul_params,
	.fpdu = nul_fpdu,
	.event = nul_event,
	.conn_end = nul_conn_end,
	.summary = nul_summary,
	.assoc = nul_assoc,
	.sctp_pkt = nul_sctp_pkt,
	.sctp_chunk = nul_sctp_chunk,
	.sctp_msg = nul_sctp_msg,
	.assoc_end = nul_assoc_end,
};
