/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The connection engine as the MPA initiator against a hostile peer: a
 * client's Connect (or iwcmctl connect) goes through the real conn.c,
 * conn_fsm.c, mpa_negotiate.c, rtr_fence.c and handoff.c to a raw peer
 * on the loopback, whose Reply, Read Response and anything else it
 * sends come from the input in chunks the input chooses, through the RTR
 * to the handoff; the input also fires the timer and makes the owner,
 * the peer or the administrator act (engine_driver.h).  A peer that
 * closes on an enhanced Request may be met by the RFC 6581 §10 retry:
 * the driver accepts the new connection as the peer's.
 *
 * Input: 3 octets of setup, then operations (engine_driver.h).
 *   0, 1: the configuration's policy (fz_eng_policy()).
 *   2: bit 0 parameters follow (fz_eng_params()), bit 1 iwcmctl connect
 *      (a forced negotiation, reported to the admin), bit 2 bind the
 *      source address first, bit 3 to a port nobody listens on, bits 4-5
 *      max_pending_per_uid - 1.
 *
 * Checks: as fuzz_engine_resp.c.
 */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include "fuzz/engine_driver.h"
#include "fuzz/fuzz.h"

static void init_find(const struct conn *c, void *arg)
{
	uint64_t *id = arg;

	if (c->id > *id)
		*id = c->id;
}

/* 127.0.0.1:port as a connect target. */
static void init_addr(struct sockaddr_storage *ss, socklen_t *len,
		      uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(port);
	*len = sizeof(*sin);
}

/* A port nobody listens on: bound, then closed. */
static uint16_t init_dead_port(void)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd;

	init_addr(&ss, &len, 0);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	FZ_CHECK(fd >= 0);
	FZ_CHECK(bind(fd, (struct sockaddr *)&ss, len) == 0);
	FZ_CHECK(getsockname(fd, (struct sockaddr *)&ss, &len) == 0);
	close(fd);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct conn_target t;
	struct conn_params params;
	uint8_t p0, p1, setup;
	uint64_t id = 0;
	enum conn_result r;

	fz_eng_begin();
	p0 = fz_u8(&in);
	p1 = fz_u8(&in);
	setup = fz_u8(&in);
	fz_eng_policy(&FE.conf.policy, p0, p1);
	FE.conf.max_pending_per_uid = ((setup >> 4) & 3) + 1u;
	if (setup & 0x01)
		fz_eng_params(&in, &params, true);
	memset(&t, 0, sizeof(t));
	init_addr(&t.dst, &t.dst_len,
		  setup & 0x08 ? init_dead_port() : FE.lport);
	if (setup & 0x04)
		init_addr(&t.src, &t.src_len, 0);
	FE.lis_open = false;
	if (setup & 0x02) {
		FE.client.admin = true;
		FE.client.uid = 0;
		r = conn_force(&FE.client, 42, &t,
			       setup & 0x01 ? &params : NULL);
		conn_foreach(init_find, &id);
	} else {
		r = conn_connect(&FE.client, &t, setup & 0x01 ? &params : NULL,
				 &id);
	}
	if (r == CONN_RES_OK) {
		FE.conn_id = id;
		fz_eng_pump();
		while (fz_more(&in))
			fz_eng_op(&in);
	}
	fz_eng_end();
	return 0;
}
