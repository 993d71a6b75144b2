/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_BENCH_SCTP_RAW_KERNEL_H
#define IWCM_BENCH_SCTP_RAW_KERNEL_H

/*
 * Raw kernel SCTP for the baselines of --sctp-stack kernel
 * (sctp_raw_kernel.c); sctp_raw.c's functions turn to these once
 * sraw_kernel(true).  Only with HAVE_KERNEL_SCTP.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ksraw;

int ksraw_start(void);
struct ksraw *ksraw_socket(uint16_t streams);
struct ksraw *ksraw_listen(uint16_t streams, uint16_t *port);
struct ksraw *ksraw_accept(struct ksraw *l);
int ksraw_connect(struct ksraw *k, uint16_t port);
bool ksraw_connected(struct ksraw *k);
size_t ksraw_maxseg(struct ksraw *k);
int ksraw_send(struct ksraw *k, const void *p, size_t len, unsigned int ms);
ssize_t ksraw_recv(struct ksraw *k, void *p, size_t cap, unsigned int ms);
void ksraw_close(struct ksraw *k, bool abort);

#endif
