/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_PCAPW_H
#define IWCM_PCAPW_H

/*
 * pcap writer for synthetic TCP sessions (and UDP datagrams, pcapw_udp()): Ethernet II / IPv4 / TCP frames
 * around the two byte streams of one connection, with a real three-way
 * handshake, consistent sequence and acknowledgment numbers, correct IPv4
 * header and TCP checksums, segmentation to a maximum segment size and an
 * orderly FIN/ACK close.  Everything is deterministic: the same calls give
 * the same bytes.  The file is a classic little-endian pcap (LINKTYPE 1).
 *
 * Segmenting rules, so that captures look like a TCP_NODELAY sender:
 * every pcapw_send() starts a new segment (units are never coalesced) and
 * its last segment carries PSH; every data segment acknowledges all the
 * peer sent so far; before a side sends again while its earlier data is
 * still unacknowledged (or after two full segments, or when the window
 * would be exceeded) the peer sends a pure ACK.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PCAPW_CLIENT 0 /* active opener (sends the SYN) */
#define PCAPW_SERVER 1

#define PCAPW_MSS_MIN 64
#define PCAPW_MSS_MAX 65495 /* 65535 - IPv4 and TCP headers */

struct pcapw_host {
	uint8_t mac[6];
	uint32_t addr; /* IPv4 address, host byte order */
	uint16_t port;
	uint32_t isn;	/* initial sequence number */
	uint16_t ip_id; /* IPv4 Identification, first packet */
};

struct pcapw_conf {
	struct pcapw_host host[2]; /* PCAPW_CLIENT, PCAPW_SERVER */
	uint16_t mss;		   /* largest TCP payload of one segment */
	uint16_t window;	   /* receive window both sides advertise */
	uint32_t t0_sec;	   /* timestamp of the first packet (Unix) */
	uint32_t step_usec;	   /* time between two packets */
};

struct pcapw;

/*
 * Start a capture on out (not closed by pcapw_free) and write the pcap
 * file header.  NULL with errno set on failure (EINVAL for a bad conf).
 */
struct pcapw *pcapw_new(FILE *out, const struct pcapw_conf *conf);

/* Free the writer; the FILE stays open. */
void pcapw_free(struct pcapw *w);

/* Write the three-way handshake (SYN and SYN/ACK carry the MSS option). */
int pcapw_connect(struct pcapw *w);

/*
 * Send len bytes from side from (PCAPW_CLIENT or PCAPW_SERVER) as one
 * unit: one or more segments of at most mss bytes.  0, or -1 with errno.
 */
int pcapw_send(struct pcapw *w, int from, const uint8_t *data, size_t len);

/*
 * Send len bytes (at most PCAPW_MSS_MAX) from side from as one UDP
 * datagram, the hosts' ports as UDP ports, with its checksum; no TCP
 * state changes.  0, or -1 with errno.
 */
int pcapw_udp(struct pcapw *w, int from, const uint8_t *data, size_t len);

/* Close: FIN/ACK from the client, FIN/ACK from the server, final ACK. */
int pcapw_close(struct pcapw *w);

/* Number of packets written so far. */
unsigned long pcapw_packets(const struct pcapw *w);

/* Flush the output; -1 with errno if any write so far failed. */
int pcapw_flush(struct pcapw *w);

#endif
