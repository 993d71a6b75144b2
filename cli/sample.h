/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_SAMPLE_H
#define IWCM_CLI_SAMPLE_H

/*
 * iwcmctl sample: the options (sample_opts.c) of the session sample.c
 * (MPA over TCP) or sample_sctp.c (DDP over SCTP) builds.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define SAMPLE_MSS_DEFAULT 1448
#define SAMPLE_PORT_I 49152 /* the initiator's port by default */
#define SAMPLE_PORT_R 7174  /* the responder's: the rdma_cm examples' */
#define SAMPLE_MSS_MIN 128  /* RFC 5044 §4.5: MULPDU >= 128 */

struct sample_opts {
	const char *out;
	bool hex;
	int rev; /* -1: not given */
	bool client_server;
	uint8_t rtr; /* MPA_RTR_* asked with --rtr, 0: default */
	bool rtr_frame;
	bool markers_i2r, markers_r2i;
	bool no_crc;
	bool swap;
	bool terminate;
	bool no_ddp_seg;
	bool verbose;
	unsigned int mss;
	uint16_t port_i; /* the initiator's TCP port */
	long corrupt;	 /* -1: none; SCTP: a packet, TCP: an FPDU */
	bool sctp;	 /* --transport sctp */
};

/*
 * Parse the arguments of iwcmctl sample into *o: 0, 1 after printing the
 * help, or 2 after printing a usage error.
 */
int sample_opts_parse(int argc, char **argv, struct sample_opts *o);

/* Write the DDP-over-SCTP sample session (sample_sctp.c) as pcap to fp;
 * 0, or -1 after a message on stderr. */
int sample_sctp_write(const struct sample_opts *o, FILE *fp);

#endif
