/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_SCTP_RAW_H
#define IWCM_BENCH_SCTP_RAW_H

/*
 * Raw usrsctp for the SCTP baselines (sctp_raw.c): one stack per
 * process on a UDP port of its own, one-to-one non-blocking sockets
 * woken through one eventfd.  Only the baselines and the holder of
 * --idle's associations (sctp_idle.c) include it; libusrsctp is linked
 * into iwcm-bench alone.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sctp_raw_msg.h"

struct socket;

/*
 * Streams asked for on both ends, by the baselines and by the iwcmd
 * the benchmark starts (sctp_streams): one session per stream, and the
 * cm test keeps up to 16 in flight while closed ones wind down.
 */
#define SRAW_STREAMS 64
#define SRAW_BACKLOG 128

uint16_t sraw_udp_port_pick(void);
/* The baselines on the kernel's SCTP (--sctp-stack kernel) rather than
 * usrsctp; -1 (ENOTSUP) without it in this build. */
int sraw_kernel(bool on);
int sraw_start(char *err, size_t errlen);
void sraw_stop(void);
uint16_t sraw_udp_port(void);
struct socket *sraw_socket(void);
struct socket *sraw_listen(uint16_t *port);
struct socket *sraw_accept(struct socket *l);
int sraw_connect(struct socket *so, uint16_t udp_port, uint16_t sctp_port);
int sraw_state(struct socket *so);
bool sraw_connected(struct socket *so);
uint16_t sraw_port(struct socket *so, bool peer);
int sraw_wait(unsigned int ms);
size_t sraw_maxseg(struct socket *so);
int sraw_send(struct socket *so, const void *p, size_t len, unsigned int ms);
ssize_t sraw_recv(struct socket *so, void *p, size_t cap, unsigned int ms);
void sraw_close(struct socket *so, bool abort);

#endif
