/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLI_CTL_H
#define IWCM_CLI_CTL_H

/*
 * ctl.c's admin connection for the commands that run several requests
 * on it (probe.c).
 */
#include <stdbool.h>
#include <stddef.h>

#include "iwcm.pb-c.h"
#include "ctl.pb-c.h"

struct ctl_output;

extern bool ctl_json;

/* The output of -j or text. */
const struct ctl_output *ctl_output(void);

/* Open the admin connection (-1: reported on stderr). */
int ctl_admin_open(void);

/*
 * One forced negotiation (connect --daemon) on fd: each report to
 * report(), then the RESULT's code in *res and its message in msg.
 * 0, or -1 (reported) when iwcmd did not answer in wait_ms.
 */
int ctl_force(int fd, const Iwcm__SockAddr *dst, const Iwcm__ConnParams *p,
	      int wait_ms,
	      void (*report)(const Iwcm__Ctl__NegotiationReport *r,
			     unsigned int n, void *arg),
	      void *arg, Iwcm__Result *res, char *msg, size_t msglen);

#endif
