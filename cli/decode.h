/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_DECODE_H
#define IWCM_CLI_DECODE_H

/*
 * Input side of iwcmctl decode: link-layer, IPv4/IPv6, TCP, UDP and SCTP
 * (raw or over UDP, handed to dissect_sctp.h) parsing of captured packets, per-direction TCP reassembly, and hex text input.  In-
 * order stream bytes go to one dissector per connection (dissect.h).
 * Every length comes from the capture and is checked before use; held
 * out-of-order data and the number of connections are capped.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "output.h"

#define DECODE_MAX_CONNS 1024 /* connections followed at once */
/* out-of-order data held per direction: octets and segments */
#define DECODE_HOLD_MAX (1u << 20)
#define DECODE_HOLD_SEGS 1024
#define DECODE_HEX_MAX (64u << 20) /* hex input text */

/* Link types decode_packet() understands (pcap LINKTYPE_/DLT_ values). */
#define DECODE_LINK_NULL 0
#define DECODE_LINK_EN10MB 1
#define DECODE_LINK_RAW 12	/* DLT_RAW on most systems */
#define DECODE_LINK_RAW_OBSD 14 /* DLT_RAW on OpenBSD */
#define DECODE_LINK_RAW_LT 101	/* LINKTYPE_RAW */
#define DECODE_LINK_LOOP 108
#define DECODE_LINK_LINUX_SLL 113
#define DECODE_LINK_IPV4 228
#define DECODE_LINK_IPV6 229
#define DECODE_LINK_LINUX_SLL2 276

struct decode;

/* Start decoding an input named input (for messages); NULL on ENOMEM. */
struct decode *decode_new(struct out_sink *out, const char *input);

/* SCTP is looked for in UDP datagrams to or from port (RFC 6951);
 * the default is SCTP_UDP_PORT_DEFAULT (9899).  Raw SCTP is always. */
void decode_set_sctp_udp_port(struct decode *dc, uint16_t port);

/* True when decode_packet() can parse frames of this link type. */
int decode_link_supported(int linktype);

/*
 * Decode one captured frame: caplen octets present of a frame that was
 * wirelen octets long on the link.
 */
void decode_packet(struct decode *dc, int linktype, const uint8_t *pkt,
		   size_t caplen, size_t wirelen);

/* Report a problem with the input itself (conn 0); bad ones count. */
void decode_input_event(struct decode *dc, int bad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/*
 * Decode hex text from fp (see iwcmctl(8)): '>' lines go initiator to
 * responder, '<' lines back.  Returns 0, or -1 after printing an error
 * naming input and the line to stderr.
 */
int decode_hex(struct decode *dc, FILE *fp);

/*
 * End every connection, print the summary and return the exit status:
 * 0 clean, 1 if any PDU or the capture was bad.
 */
int decode_finish(struct decode *dc);

/* The input's name as given to decode_new(). */
const char *decode_input(const struct decode *dc);

/* Free everything decode_new() and the decoding allocated. */
void decode_free(struct decode *dc);

#endif
