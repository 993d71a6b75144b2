/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_WS_H
#define IWCM_WS_H

/*
 * The Wireshark 4.0 plugin iwcm.so: MPA over TCP (ws_mpa.c, with the
 * stream decoder of cli/libdissect.la as its engine, ws_mpa_tree.c for
 * the tree), DDP over SCTP (ws_sctp.c), and the DDP/RDMAP headers both
 * carry (ws_rdmap.c).  Every value shown comes from the wire/ codecs:
 * the plugin only places them in the tree.  Calls go ws_plugin.c ->
 * ws_mpa.c -> ws_mpa_tree.c -> ws_rdmap.c and ws_plugin.c -> ws_sctp.c
 * -> ws_rdmap.c, never back.
 */
#include <wireshark.h>

#include <epan/packet.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What the DDP/RDMAP renderer found, for the Info column and verdicts. */
struct ws_rdmap_res {
	bool ddp_ok;	    /* the DDP header parsed */
	bool rdmap_ok;	    /* the whole segment parsed as RDMAP */
	bool has_ctrl;	    /* the RDMAP control octet is present */
	uint8_t opcode;	    /* when has_ctrl */
	uint8_t dv, rv;	    /* DDP and RDMAP versions, when parsed */
	size_t payload_len; /* when rdmap_ok */
	bool zero_len;	    /* a zero-length RTR candidate */
};

/* ws_rdmap.c */

/* Register the DDP and RDMAP protocols and their fields. */
void ws_rdmap_register(void);

/*
 * Decode one DDP segment (RFC 5041) carrying RDMAP (RFC 5040, RFC 7306)
 * from tvb (the whole ULPDU, markers removed) into tree through
 * wire/ddp.c and wire/rdmap.c; *res says what was found.
 */
void ws_rdmap_dissect(tvbuff_t *tvb, packet_info *pinfo, proto_tree *tree,
		      struct ws_rdmap_res *res);

/* Short text of an RDMAP opcode for the Info column. */
const char *ws_rdmap_info(const struct ws_rdmap_res *res);

/* ws_mpa.c */

/* Register the MPA protocol, its fields and expert infos. */
void ws_mpa_register(void);

/* Attach the MPA dissector to TCP (heuristic, Decode As). */
void ws_mpa_handoff(void);

/* ws_sctp.c */

/* Register the DDP over SCTP protocol. */
void ws_sctp_register(void);

/* Attach it to SCTP PPIDs 16 and 17 (RFC 5043 §5.2). */
void ws_sctp_handoff(void);

#endif
