/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_PROBE_H
#define IWCM_CLI_PROBE_H

/* iwcmctl probe: the SCTP offers, run through libiwcm (probe_sctp.c). */
#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

#include "ctl_output.h"

/*
 * One DDP stream session to dst, enhanced (RFC 6581 §7) or plain
 * (RFC 5043): the peer's answer in row, the negotiated state in est,
 * the failure's text in reason (len octets).
 */
void probe_sctp_row(const struct sockaddr_storage *dst, bool enhanced,
		    unsigned int wait_ms, struct ctl_probe_row *row,
		    Iwcm__Established *est, char *reason, size_t len);

#endif
