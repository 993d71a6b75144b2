/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_FUZZ_ENGINE_DRIVER_H
#define IWCM_FUZZ_ENGINE_DRIVER_H

/*
 * The connection engine (daemon/conn*.c, mpa_negotiate.c, rtr_fence.c,
 * handoff.c) in-process for fuzz_engine_resp and fuzz_engine_init: the
 * daemon globals main.c would define, control.c doubled by a recorder
 * (owners hear through the real client_api.c and admin.c), a raw peer on
 * the loopback, and the operations an input is made of.  Timers never
 * expire by themselves (their timeouts are an hour): the input fires the
 * connection's timer, so no input waits.
 *
 * Operations (fz_eng_op(); h is the operation's octet, x = h >> 3):
 *   h & 7 == 0: the peer sends x + 1 octets of the input (a chunk of the
 *      byte stream: where the chunks end is the input's choice)
 *   1: the peer sends an 8-bit length and that many octets
 *   2: the connection's timer expires (when it is armed)
 *   3: the owner decides: x & 1 reject, else accept; then an octet of
 *      parameters and, for x & 2, Private Data (an 8-bit length)
 *   4: the peer ends: x & 3 == 0 shutdown(SHUT_WR), 1 close, 2 reset,
 *      3 nothing
 *   5: the owner goes away (its socket failed, control.c's close), or
 *      with x & 1 attaches (a listener's client that was missing)
 *   6: x % 4: the listener closes, iwcmctl kill, the owner's Disconnect,
 *      the daemon shutting down (conn_abort_all)
 *   7: the owner's socket will fail at the next message of a type:
 *      x % 4: ESTABLISHED, CONNECT_REQUEST, ERROR or REJECTED, none
 */
#include <stdbool.h>
#include <stdint.h>

#include "conn.h"
#include "fuzz/fuzz_util.h"

struct fz_eng {
	struct iwcmd_conf conf;
	struct client client; /* the ULP, or iwcmctl for a forced connect */
	struct listener lis;  /* the responder's listener */
	bool lis_open;
	uint64_t conn_id; /* the connection of this input */
	int peer;	  /* the raw peer's socket, or -1 */
	int lfd;	  /* where the initiator connects to */
	uint16_t lport;
	uint16_t fail_type; /* control_send() of this type fails */
	unsigned int n_established;
	struct fz_fds fds; /* open when the input began */
	int ev_base;	   /* events the driver itself keeps */
};

extern struct fz_eng FE;

/* Once per process, then fresh engine state for an input. */
void fz_eng_begin(void);
/* Tear the input's state down and check that nothing is left. */
void fz_eng_end(void);
/* Run the event loop until nothing is left to do now. */
void fz_eng_pump(void);
/* A loopback TCP connection: the engine's end is returned, the peer's
 * in FE.peer. */
int fz_eng_tcp_pair(void);
/* Accept the engine's connection to FE.lfd, if one came (new FE.peer). */
void fz_eng_accept(void);
/* Conn params from one octet of the input (and Private Data if asked). */
void fz_eng_params(struct fz_in *in, struct conn_params *p, bool initiator);
/* Policy bits of one octet over conf's policy. */
void fz_eng_policy(struct conf_policy *pol, uint8_t b, uint8_t b2);
/* Run one operation of the input (see above). */
void fz_eng_op(struct fz_in *in);

#endif
