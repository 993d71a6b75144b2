/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_FUZZ_IPC_DRIVER_H
#define IWCM_FUZZ_IPC_DRIVER_H

/*
 * The whole daemon but main.c in-process for fuzz_ipc_client and
 * fuzz_ipc_admin: control.c bound on sockets of a private directory,
 * client_api.c, admin.c, listener.c, the connection engine and the SCTP
 * sessions on usrsctp (started once, before the first input; what an
 * input leaves of SCTP is ended at its end), one event loop.  Peers are SOCK_SEQPACKET socketpairs handed to
 * control_peer_new() with the credentials the input chooses, or real
 * connections to the bound socket (accept, SO_PEERCRED).  The driver
 * reads everything the daemon sends, checks that it unpacks and that an
 * fd travels with ESTABLISHED only, and remembers the ids and addresses
 * it hears of, so that the inputs can name them (the daemon's ids are not
 * the same from one input to the next).  Timers never expire by
 * themselves: the input fires them.
 */
#include <stdbool.h>
#include <stdint.h>

#include "ctl.pb-c.h"
#include "fuzz/fuzz_util.h"
#include "iwcm.pb-c.h"
#include "iwcmd.h"

#define FZ_IPC_PEERS 4
#define FZ_IPC_IDS 8
/* Datagrams fz_ipc_repeat() sends per input, at most. */
#define FZ_IPC_REPEAT_MAX 640
/* A big flood: past control.c's XOFF mark (256 queued replies) with the
 * socket's own queue on top. */
#define FZ_IPC_FLOOD_BIG 300
/* Steps of usrsctp's virtual clock per input while SCTP settles, per
 * pump, and how long each: 60 steps of 100 ms reach past RFC 4960's
 * initial RTO (3 s), so a lost INIT is retransmitted within an input. */
#define FZ_IPC_SCTP_WAITS 60
#define FZ_IPC_SCTP_STEPS 8
#define FZ_IPC_SCTP_STEP_MS 100

struct fz_ipc_addr {
	uint8_t addr[16];
	size_t len;
	uint32_t port;
};

struct fz_ipc {
	struct iwcmd_conf conf;
	int fd[FZ_IPC_PEERS]; /* our end of each peer, or -1 */
	/* ids each peer heard of (a request is its own to accept) */
	uint64_t conn_ids[FZ_IPC_PEERS][FZ_IPC_IDS];
	unsigned int n_conn[FZ_IPC_PEERS];
	uint64_t lis_ids[FZ_IPC_PEERS][FZ_IPC_IDS];
	unsigned int n_lis[FZ_IPC_PEERS];
	struct fz_ipc_addr bound[FZ_IPC_IDS];
	unsigned int n_bound;
	bool deaf[FZ_IPC_PEERS]; /* the driver does not read this peer */
	uint8_t last[FZ_IPC_PEERS][512]; /* the last datagram it sent */
	size_t last_len[FZ_IPC_PEERS];
	unsigned int repeat_left;     /* of FZ_IPC_REPEAT_MAX per input */
	unsigned int sctp_waits_left; /* of FZ_IPC_SCTP_WAITS */
	uint8_t last_fds[FZ_IPC_PEERS];
	char dir[64];
	char client_path[128], admin_path[128];
	struct fz_fds fds; /* open when the input began */
	int ev_base;
};

extern struct fz_ipc FI;

/* Once per process, then fresh state for an input. */
void fz_ipc_begin(void);
/* Close every peer, let the daemon clean up, check nothing is left. */
void fz_ipc_end(void);
/* Run the loop and read what the daemon sends until all is quiet. */
void fz_ipc_pump(void);
/*
 * A peer in slot on the client or admin socket; cred 0: ours, 1: uid 0,
 * 2: another uid, 3: a real connection to the bound socket.
 */
void fz_ipc_open(int slot, bool admin, uint8_t cred);
void fz_ipc_close(int slot);
/*
 * Send one datagram from slot; fds: 0 none, 1 /dev/null, 2 a socket, 3
 * a pipe, 4 two descriptors, others none.  The driver keeps none.
 */
void fz_ipc_send(int slot, const uint8_t *buf, size_t len, uint8_t fds);
/* A header {version 1, type, reqid} and body (may be NULL) from slot. */
void fz_ipc_send_pb(int slot, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, uint8_t fds);
/* The last datagram slot sent (its first 512 octets) again, as many
 * times as the octet sel says: sel < 0xC0, (sel & 31) + 1 times (past the
 * caps of 16 connections, 4 listeners and 4 pending per uid); otherwise
 * FZ_IPC_FLOOD_BIG times.  FZ_IPC_REPEAT_MAX in all per input. */
void fz_ipc_repeat(int slot, uint8_t sel);
/* Header and raw body octets from slot. */
void fz_ipc_send_raw(int slot, uint16_t type, uint32_t reqid,
		     const uint8_t *body, size_t len, uint8_t fds);
/* HELLO from slot (version 1 unless bad). */
void fz_ipc_hello(int slot, bool bad);
/* Expire every armed connection timer. */
void fz_ipc_fire_timers(void);
/* The id slot's peer heard of that sel picks, counting back from the
 * latest (sel 0); sel itself when it heard of none yet. */
uint64_t fz_ipc_conn_id(int slot, uint8_t sel);
uint64_t fz_ipc_lis_id(int slot, uint8_t sel);
/* A bound listener address (127.0.0.1:1 when none yet); buf holds it. */
void fz_ipc_bound(uint8_t sel, Iwcm__SockAddr *a, uint8_t buf[16]);
/* The message d of the input's next 16-bit length and octets, or NULL. */
ProtobufCMessage *fz_ipc_unpack(struct fz_in *in,
				const ProtobufCMessageDescriptor *d);

#endif
