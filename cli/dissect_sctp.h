/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_DISSECT_SCTP_H
#define IWCM_CLI_DISSECT_SCTP_H

/*
 * SCTP dissector: SCTP packets (RFC 4960), raw or UDP-encapsulated
 * (RFC 6951), with their CRC32c checked (RFC 4960 Appendix B), their
 * chunks walked and named, DATA and I-DATA (RFC 8260) reassembled per
 * association, direction and stream up to SCTP_REASM_MAX octets, and the
 * user messages of DDP over SCTP decoded (RFC 5043: PPID 17 session
 * control with the RFC 6581 §7 enhanced codes, PPID 16 DDP segments down
 * to RDMAP).  Reports through an out_sink; counts in dissect_stats.
 * All state is bounded: associations, reassembly slots, streams.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dissect.h"
#include "output.h"

#define SCTP_UDP_PORT_DEFAULT 9899    /* RFC 6951 §5.1: IANA sctp-tunneling */
#define SCTP_REASM_MAX (256u * 1024u) /* octets of one user message */
#define SCTP_ASSOC_MAX 1024	      /* associations followed at once */

struct sctp_dis;

/* A dissector reporting to out and counting in st; NULL on ENOMEM. */
struct sctp_dis *sctp_dis_new(struct out_sink *out, struct dissect_stats *st);

/*
 * One SCTP packet of len octets (common header first) between the IP
 * addresses src and dst of family (AF_INET or AF_INET6).  udp is true
 * when it came in a UDP datagram from port usport to udport.
 */
void sctp_dis_packet(struct sctp_dis *sd, int family, const uint8_t *src,
		     const uint8_t *dst, bool udp, uint16_t usport,
		     uint16_t udport, const uint8_t *p, size_t len);

/* End of input: report what is incomplete and end every association. */
void sctp_dis_finish(struct sctp_dis *sd);

/* Free the dissector (sctp_dis_finish() first for the final report). */
void sctp_dis_free(struct sctp_dis *sd);

#endif
