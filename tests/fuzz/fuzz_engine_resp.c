/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine as the MPA responder against a hostile peer: a
 * listener accepts a loopback TCP connection and the peer's octets, cut
 * into chunks by the input, go through the real conn.c, conn_fsm.c,
 * mpa_negotiate.c, rtr_fence.c and handoff.c from the accept through the
 * Request, the ULP's decision, the Reply and the RTR to the handoff.
 * The input also says when the timer expires, what the owner decides
 * and when it, the listener or the peer goes away (engine_driver.h).
 *
 * Input: 3 octets of setup, then operations (engine_driver.h).
 *   0, 1: the listener's policy (fz_eng_policy()).
 *   2: bit 0 the listener has default parameters (fz_eng_params()
 *      octets follow), bit 1 a client is attached, bit 2 the listener is
 *      a configured service, bits 3-5 its pending_max (0: none), bits 6-7
 *      max_pending_per_uid - 1.
 *
 * Checks: no crash or sanitizer report; every message to the owner packs
 * and an fd travels with ESTABLISHED and nothing else; after the daemon's
 * shutdown no connection, event or descriptor is left.
 */
#include "config.h"

#include "fuzz/engine_driver.h"
#include "fuzz/fuzz.h"

static void resp_find(const struct conn *c, void *arg)
{
	uint64_t *id = arg;

	if (c->id > *id)
		*id = c->id;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct conn_params lparams;
	uint8_t p0, p1, setup;
	uint64_t id = 0;

	fz_eng_begin();
	p0 = fz_u8(&in);
	p1 = fz_u8(&in);
	setup = fz_u8(&in);
	FE.lis.policy = FE.conf.policy;
	fz_eng_policy(&FE.lis.policy, p0, p1);
	if (setup & 0x01) {
		fz_eng_params(&in, &lparams, false);
		FE.lis.params = &lparams;
	}
	FE.lis.client = setup & 0x02 ? &FE.client : NULL;
	if (setup & 0x04)
		memcpy(FE.lis.service, "fuzz", 5);
	FE.lis.pending_max = (setup >> 3) & 7;
	FE.conf.max_pending_per_uid = (setup >> 6) + 1u;

	conn_accepted(&FE.lis, fz_eng_tcp_pair());
	conn_foreach(resp_find, &id);
	FE.conn_id = id;
	fz_eng_pump();
	while (fz_more(&in))
		fz_eng_op(&in);
	fz_eng_end();
	return 0;
}
