/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_SD_COMPAT_H
#define IWCM_SD_COMPAT_H

/*
 * The few sd-daemon(3) calls iwcmd makes.  With libsystemd they are the
 * real ones; without it (configure --without-systemd, or no
 * libsystemd-dev) they are no-op stubs, so that the daemon's code has no
 * #ifdef (the rdma-core model): no socket activation, no notifications,
 * no watchdog.
 */
#include "config.h"

#ifdef HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#else
#include <stdint.h>
#include <stdlib.h>

#define SD_LISTEN_FDS_START 3

static inline int sd_listen_fds_with_names(int unset_environment, char ***names)
{
	(void)unset_environment;
	if (names)
		*names = NULL;
	return 0;
}

static inline int sd_notify(int unset_environment, const char *state)
{
	(void)unset_environment;
	(void)state;
	return 0;
}

static inline int sd_watchdog_enabled(int unset_environment, uint64_t *usec)
{
	(void)unset_environment;
	if (usec)
		*usec = 0;
	return 0;
}
#endif

#endif
