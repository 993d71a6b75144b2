/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcm-rping: the context's asynchronous events, noted on their connections. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "rping.h"

/*
 * Take every queued asynchronous event and note it on its connection, to
 * be acted on by rp_async_act().  A connection being freed is no longer
 * in the list, so an event of its QP is dropped; only pointers are
 * compared, never followed.
 */
void rp_async_drain(struct rping *rp)
{
	struct iwcm_async_event ev;
	struct rping_conn *rc;

	while (iwcm_get_async_event(rp->ctx, &ev) == 0) {
		if (ev.type == IWCM_EVENT_CQ_ERR) {
			err("a completion queue overflowed");
			rp->failures++;
			rp->done = true;
			continue;
		}
		for (rc = rp->conns; rc; rc = rc->next)
			if (rc->qp && rc->qp == ev.qp)
				break;
		if (!rc || rc->async_type)
			continue;
		rc->async_type = ev.type;
		rc->term_layer = ev.term_layer;
		rc->term_etype = ev.term_etype;
		rc->term_ecode = ev.term_ecode;
	}
	if (errno != EAGAIN && errno != EINTR) {
		err("iwcm_get_async_event: %s", strerror(errno));
		rp->failures++;
		rp->done = true;
	}
}
