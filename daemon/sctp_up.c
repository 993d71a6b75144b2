/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What every SCTP stack checks of an association that came up, before
 * it reports it to the session code (sctp_stack.h): the peer's
 * Adaptation Layer Indication and the streams both sides can use.
 */
#include "config.h"

#include <stdio.h>

#include "log.h"
#include "sctp_ss.h"
#include "sctp_stack.h"

/* RFC 5043 §7.1: an association whose peer's Adaptation Code Point is not
 * DDP's is terminated; §8: the usable streams are min(inbound, outbound).
 * 0 and info completed, or -1 with why (abort the association). */
int sctp_up_check(struct sctp_assoc_info *info, uint32_t peer_adapt, char *why,
		  size_t len)
{
	if (peer_adapt != SCTP_ADAPT_IND_DDP) {
		snprintf(why, len,
			 "peer Adaptation Code Point 0x%08x is not DDP "
			 "(RFC 5043 §7.1)",
			 peer_adapt);
		return -1;
	}
	info->peer_adapt = peer_adapt;
	info->streams = info->in_streams < info->out_streams ?
				info->in_streams :
				info->out_streams;
	if (info->in_streams != info->out_streams)
		log_info("sctp: peer offers %u inbound / %u outbound streams; "
			 "using %u (RFC 5043 §8)",
			 info->out_streams, info->in_streams, info->streams);
	return 0;
}
