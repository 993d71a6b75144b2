/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SCTP_USRSCTP_INT_H
#define IWCM_SCTP_USRSCTP_INT_H

/*
 * What sctp_usrsctp.c (the stack's sockets) and sctp_usrsctp_udp.c (its
 * UDP socket, its peers and its timers) share, on the loop thread
 * (usrsctp_init_nothreads()).  Includes <usrsctp.h>: for those two only.
 */
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/socket.h>

#include <event2/event.h>
#include <usrsctp.h>

#include "sctp_stack.h"

/* ---- sctp_usrsctp_udp.c ---- */

/*
 * The UDP side of RFC 6951: iwcmd's own socket(s) on *port (0: one the
 * host picks, written back).  run is called after each call into
 * usrsctp from the loop (sctp_usrsctp.c serves the sockets its upcalls
 * named, then flushes).  -1 with a message in err.
 */
int us_udp_init(struct event_base *base, uint16_t *port, bool gso,
		void (*run)(void), char *err, size_t errlen);
void us_udp_fini(void);
/* The AF_CONN address for the peer at sa (an IP address, the UDP port
 * being encap_port), taken (us_peer_put()); NULL with errno. */
void *us_peer_get(const struct sockaddr *sa, uint16_t encap_port);
/* The same peer taken once more (an accepted association); false when
 * the address names no peer any more. */
bool us_peer_hold(void *peer);
void us_peer_put(void *peer);
/* The peer's IP address with port, or the local one it is reached on;
 * -1 (ENOTCONN) when it is gone. */
int us_peer_addr(void *peer, bool local, uint16_t port,
		 struct sockaddr_storage *ss, socklen_t *len);
/* The path MTU towards the peer, UDP payload (the SCTP packet) octets. */
unsigned int us_peer_mtu(void *peer);
/* Send what usrsctp handed to its output callback (sendmmsg). */
void us_udp_flush(void);
/* Flush and serve from the loop soon, before it sleeps: for output and
 * upcalls caused by a call from outside a pass. */
void us_kick(void);

/* The datagrams dropped (sctp_stack_drops()). */
void us_udp_drops(struct sctp_drops *d);

/* The output callback given to usrsctp_init_nothreads(). */
int us_conn_output(void *addr, void *buf, size_t len, uint8_t tos,
		   uint8_t set_df);

#endif
