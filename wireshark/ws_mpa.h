/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_WS_MPA_H
#define IWCM_WS_MPA_H

/*
 * MPA over TCP inside the plugin: ws_mpa.c runs the stream decoder of
 * cli/libdissect.la (the one `iwcmctl decode` runs) over each direction
 * of a TCP connection on Wireshark's first pass and keeps what it
 * reports, per packet, as records; ws_mpa_tree.c turns records into the
 * tree on every pass.  A record is a copy of one out_* report with its
 * pointers made to outlive the call.
 */
#include "iwcm_ws.h"
#include "output.h"

enum ws_rec_kind {
	WS_REC_FRAME = 0, /* an MPA Request, Reply or RtR frame */
	WS_REC_PARAMS,	  /* what the two frames negotiated */
	WS_REC_FPDU,	  /* one FPDU */
	WS_REC_EVENT,	  /* a note or a problem the decoder reported */
};

struct ws_rec {
	enum ws_rec_kind kind;
	int side;	    /* 0: the side that sent the first frame seen */
	uint64_t pos;	    /* position of raw[0] in the side's stream */
	const uint8_t *raw; /* the PDU as on the wire (frame, FPDU) */
	size_t raw_len;
	union {
		struct out_frame frame; /* f: NULL */
		struct out_params params;
		struct out_fpdu fpdu; /* ddp, msg: NULL;
				       * markers, ulpdu: copies */
		struct out_event ev;
	} u;
	struct ws_rec *next;
};

/* What one packet of the connection carried, kept across passes. */
struct ws_pkt {
	int side;
	uint64_t seg_pos;    /* position of the segment's first octet */
	uint32_t seg_len;    /* octets of the segment */
	bool retransmission; /* every octet was fed before */
	struct ws_rec *recs; /* what completed in this packet, in order */
};

/* ws_mpa_tree.c */

/* Register the MPA protocol (iwcm_mpa), its fields and expert infos. */
int ws_mpa_tree_register(void);

/* Show the records of packet k (tvb is the TCP payload) in tree. */
void ws_mpa_tree(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		 const struct ws_pkt *k);

#endif
