/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The socket options of a DDP-enabled SCTP socket (RFC 5043), set
 * alike on both stacks: each gives its own numbers (SCTP_AS_CONSTS) and
 * its setsockopt.  The stacks call here, never the other way.
 */
#include "config.h"

#include <string.h>

#include "sctp_assoc.h"
#include "sctp_ss.h"

/* RFC 6458 §8.1.10, §6.2.1, §8.1.3 (SCTP_AS_LAYOUT_CHECK) */
struct sso_adaptation {
	uint32_t ind;
};
struct sso_event {
	uint32_t assoc_id;
	uint16_t type;
	uint8_t on;
};
struct sso_initmsg {
	uint16_t ostreams, instreams, attempts, init_timeo;
};
_Static_assert(sizeof(struct sso_adaptation) == 4 &&
		       sizeof(struct sso_initmsg) == 8 &&
		       sizeof(struct sso_event) == 8 &&
		       offsetof(struct sso_event, on) == 6,
	       "RFC 6458 layouts");

int sctp_sockopt_ddp(const struct sctp_as_consts *k, uint16_t streams,
		     int (*setopt)(void *h, int name, const void *v,
				   socklen_t len, const char *what),
		     void *h)
{
	/* §5.1: the DDP Adaptation Layer Indication */
	const struct sso_adaptation ad = { .ind = SCTP_ADAPT_IND_DDP };
	/* §8: as many inbound as outbound streams */
	const struct sso_initmsg init = { .ostreams = streams,
					  .instreams = streams };
	/* the notifications sctp_assoc.c reads */
	const uint16_t events[] = { k->assoc_change, k->adaptation,
				    k->shutdown };
	struct sso_event ev;
	const int on = 1;
	size_t i;

	if (setopt(h, k->opt_adaptation, &ad, sizeof(ad),
		   "SCTP_ADAPTATION_LAYER") < 0)
		return -1;
	for (i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		memset(&ev, 0, sizeof(ev)); /* SCTP_FUTURE_ASSOC: 0 */
		ev.type = events[i];
		ev.on = 1;
		if (setopt(h, k->opt_event, &ev, sizeof(ev), "SCTP_EVENT") < 0)
			return -1;
	}
	/* §9: SCTP never fragments a DDP segment */
	if (setopt(h, k->opt_initmsg, &init, sizeof(init), "SCTP_INITMSG") <
		    0 ||
	    setopt(h, k->opt_rcvinfo, &on, sizeof(on), "SCTP_RECVRCVINFO") <
		    0 ||
	    setopt(h, k->opt_nofrag, &on, sizeof(on),
		   "SCTP_DISABLE_FRAGMENTS") < 0 ||
	    setopt(h, k->opt_nodelay, &on, sizeof(on), "SCTP_NODELAY") < 0)
		return -1;
	return 0;
}
