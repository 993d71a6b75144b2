/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_ENGINE_PEER_H
#define IWCM_TESTS_ENGINE_PEER_H

/*
 * The connection engine (daemon/conn.c and its phase files) in-process:
 * an event_base of the test's own, the daemon globals it reads, and test
 * doubles for control.c; owners hear through the real client_api.c and
 * admin.c, whose messages control_send() records.  The other end is a
 * raw MPA peer written with the wire/ builders on real TCP sockets over
 * the loopback: the tests assert the exact octets the engine sends and
 * the handoff state the client receives.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <event2/event.h>

#include "client_api.h"
#include "ctl.pb-c.h"
#include "iwcmd.h"
#include "mpa.h"
#include "rdmap.h"

#define ENV_MAX_RECS 32

/* One message the engine sent to a client. */
struct env_rec {
	struct client *to;
	uint16_t type;
	uint32_t reqid;
	uint8_t body[IPC_MAX_MSG];
	size_t len;
	int fd; /* a dup of the fd sent, or -1 */
};

struct env {
	struct event_base *base;
	struct iwcmd_conf conf;
	struct client client; /* the ULP */
	struct client admin;  /* an iwcmctl */
	struct listener lis;
	uint16_t fail_type; /* control_send() of this type fails and
				 * drops the client, as control.c does */
	struct env_rec recs[ENV_MAX_RECS];
	int n_recs;
};

extern struct env E;

/* Fresh engine globals, conf defaults (timeouts that do not fire). */
void env_setup(void);
void env_teardown(void);

/* Run the event loop until cond(arg) holds; fails the test after ms. */
void env_pump_until(bool (*cond)(void *), void *arg, int ms);
/* Run the loop for about ms (to let timers that must NOT fire run). */
void env_pump(int ms);
/* Wait for the n-th (1-based) client message; returns it. */
struct env_rec *env_wait_rec(int n);
/* The first client message of type, or NULL. */
struct env_rec *env_find(uint16_t type);

/* ---- sockets ---- */

/* A listening socket on 127.0.0.1, port chosen by the kernel. */
int tcp_listen(uint16_t *port);
/* A connected pair: *peer (test) and the accepted end (returned). */
int tcp_pair(int *peer);
/* Accept on lfd once a connection is there (pumping meanwhile). */
int tcp_accept(int lfd);

/* Send all of buf from the raw peer. */
void peer_send(int fd, const void *buf, size_t len);
/* Read exactly n octets into buf (pumping the engine until they come). */
void peer_read(int fd, void *buf, size_t n);
/* Read one MPA startup frame exactly; returns its length. */
size_t peer_read_frame(int fd, uint8_t *buf, struct mpa_frame *f);
/* True once the engine closed or reset its end (pumping meanwhile). */
bool peer_wait_closed(int fd, int ms);
/* No octet is waiting on fd now. */
bool peer_idle(int fd);

/* Build and send a frame; returns its length. */
size_t peer_send_frame(int fd, const struct mpa_frame *f);
/* Build a zero-length RTR or Read Response ULPDU; returns its length. */
size_t peer_rtr_ulpdu(uint8_t opcode, uint32_t stag, uint8_t *buf);
/* Frame ulpdu on d and send it; returns the wire length. */
size_t peer_send_fpdu(int fd, struct mpa_dir *d, const uint8_t *ulpdu,
		      size_t len);
/* Read one FPDU exactly at d (advanced); the ULPDU goes to ulpdu. */
size_t peer_read_fpdu(int fd, struct mpa_dir *d, uint8_t *raw, uint8_t *ulpdu,
		      struct mpa_fpdu_info *info);

/* ---- requests and their protobuf messages ---- */

/* The engine's entry points fed a client's or iwcmctl's request as the
 * IPC edge converts it (client_api.c); the result in protobuf form. */
Iwcm__Result env_connect(struct client *cl, const Iwcm__Connect *req,
			 uint64_t *id);
Iwcm__Result env_accept(struct client *cl, const Iwcm__Accept *req);
Iwcm__Result env_reject(struct client *cl, const Iwcm__Reject *req);
Iwcm__Result env_force(struct client *cl, uint32_t reqid,
		       const Iwcm__Ctl__ForceConnect *req);

/* A SockAddr for 127.0.0.1:port (storage in *buf). */
void env_sockaddr(Iwcm__SockAddr *a, uint8_t buf[4], uint16_t port);
/* Unpack a recorded message; free with protobuf_c_message_free_unpacked. */
Iwcm__Established *rec_established(struct env_rec *r);
Iwcm__ConnectRequest *rec_request(struct env_rec *r);
Iwcm__ConnError *rec_error(struct env_rec *r);
Iwcm__Rejected *rec_rejected(struct env_rec *r);

/* ---- assertions and frames ---- */

/* buf holds exactly the octets of hex (spaces ignored). */
void assert_hex(const uint8_t *buf, size_t len, const char *hex);
/* The fd of r is the connection; the engine forgets its copy. */
void env_assert_handed(struct env_rec *r, int peer);
/* The handed-over socket of r yields exactly these n octets first. */
void env_assert_fd_starts(struct env_rec *r, const void *want, size_t n);
/* next_msn of an Established: QN 0 and 1 as given, 2 and 3 at 1. */
void assert_msn(const Iwcm__Established *e, uint32_t q0, uint32_t q1);
/* An unenhanced frame; pd NULL: no Private Data. */
struct mpa_frame frame_v(enum mpa_frame_type t, uint8_t rev, uint8_t flags,
			 const char *pd);
/* An RFC 6581 enhanced frame (Rev 2, S=1 and the word first). */
struct mpa_frame frame_enh(enum mpa_frame_type t, uint8_t flags, bool p2p,
			   uint8_t rtr, uint16_t ird, uint16_t ord,
			   const char *pd);
/* A Terminate ULPDU, Layer 2 / type 0 / code; returns its length. */
size_t peer_term_ulpdu(uint8_t code, uint8_t *buf);
/* Read one FPDU and check it is a Terminate Layer 2 / type 0 / code. */
void peer_expect_term(int fd, struct mpa_dir *d, uint8_t code);

/* ---- the engine as initiator, against a raw responder ---- */

/* The MPA Request key (RFC 5044 §7.1), in hex as assert_hex() takes it. */
#define REQ_KEY "4d504120494420526571204672616d65"
/* The MPA Reply key, likewise. */
#define REP_KEY "4d504120494420526570204672616d65"

/* Start a connect for the client to a raw responder; *peer is its end. */
uint64_t init_start(int *lfd, int *peer, Iwcm__ConnParams *p);
/* Read the Request; returns its length in raw. */
size_t init_request(int peer, uint8_t *raw, struct mpa_frame *f);
/* Close both test sockets and the environment. */
void init_end(int lfd, int peer);
/* ULP private data in p. */
void set_pd(Iwcm__ConnParams *p, const void *pd, size_t len);

/* ---- the engine as responder, to a raw initiator ---- */

/* The raw initiator's enhanced Request. */
struct mpa_frame req_enh(uint8_t flags, bool p2p, uint8_t rtr, uint16_t ird,
			 uint16_t ord, const char *pd);
/* Connect the raw initiator, send req; returns the conn id once the
 * CONNECT_REQUEST is at the client. */
uint64_t resp_start(int *peer, const struct mpa_frame *req);
/* The client accepts conn id with p (NULL: defaults). */
void resp_accept(uint64_t id, Iwcm__ConnParams *p);

#endif
