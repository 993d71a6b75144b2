/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * systemd notifications: READY/RELOADING/STOPPING with a STATUS= line,
 * and the watchdog.  The ping comes from a libevent timer at half of
 * WATCHDOG_USEC, so it stops when the event loop stops turning, and it is
 * sent only while the loop serves its control sockets; otherwise systemd
 * restarts the daemon (Restart=on-failure).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iwcmd.h"
#include "log.h"
#include "sd_compat.h"

#define STATUS_INTERVAL_US 5000000ULL /* STATUS= refresh without watchdog */

static struct event *wd_ev;
static bool wd_enabled;
static uint64_t wd_period_us;
static uint64_t wd_last_ms;
static char wd_status[128];

static void watchdog_count_listener(struct listener *l, void *arg)
{
	(*(unsigned int *)arg)++;
}

static void watchdog_status_line(char *buf, size_t len)
{
	unsigned int nl = 0;

	listener_foreach(watchdog_count_listener, &nl);
	snprintf(buf, len, "%u listener%s, %u connection%s in progress", nl,
		 nl == 1 ? "" : "s", conn_count(),
		 conn_count() == 1 ? "" : "s");
}

/* Tell systemd state ("READY=1", ...) with a fresh STATUS= line. */
void watchdog_notify(const char *state)
{
	char msg[256];

	watchdog_status_line(wd_status, sizeof(wd_status));
	snprintf(msg, sizeof(msg), "%s%sSTATUS=%s", state ? state : "",
		 state ? "\n" : "", wd_status);
	sd_notify(0, msg);
}

static void watchdog_tick(evutil_socket_t fd, short what, void *arg)
{
	char st[sizeof(wd_status)];
	uint64_t now = iwcmd_now_ms();

	if (wd_enabled) {
		/* a timer that fires a whole period late means the loop
		 * was stuck; it turns again now, which is what counts */
		if (wd_last_ms && now - wd_last_ms > 2 * wd_period_us / 1000)
			log_warnx("watchdog: event loop stalled for %llu ms",
				  (unsigned long long)(now - wd_last_ms));
		if (control_healthy())
			sd_notify(0, "WATCHDOG=1");
		else
			log_warnx("watchdog: control sockets not served, "
				  "no ping");
	}
	wd_last_ms = now;
	watchdog_status_line(st, sizeof(st));
	if (strcmp(st, wd_status)) {
		memcpy(wd_status, st, sizeof(st));
		watchdog_notify(NULL);
	}
}

/* Start the systemd watchdog pings and STATUS= updates, if enabled. */
void watchdog_init(void)
{
	struct timeval tv;
	uint64_t usec = 0;

	if (!getenv("NOTIFY_SOCKET"))
		return;
	wd_enabled = sd_watchdog_enabled(0, &usec) > 0 && usec > 0;
	wd_period_us = wd_enabled ? usec / 2 : STATUS_INTERVAL_US;
	if (wd_period_us == 0)
		wd_period_us = 1;
	tv.tv_sec = (time_t)(wd_period_us / 1000000);
	tv.tv_usec = (suseconds_t)(wd_period_us % 1000000);
	wd_ev = event_new(iwcmd_base, -1, EV_PERSIST, watchdog_tick, NULL);
	if (!wd_ev)
		fatal("watchdog: event_new");
	event_add(wd_ev, &tv);
	if (wd_enabled) {
		log_debug("watchdog: ping every %llu ms",
			  (unsigned long long)(wd_period_us / 1000));
		sd_notify(0, "WATCHDOG=1");
	}
}

/* Stop the pings (shutdown). */
void watchdog_stop(void)
{
	if (wd_ev)
		event_free(wd_ev);
	wd_ev = NULL;
	wd_enabled = false;
}
