/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "log.h"

static enum log_dest log_dest = LOG_TO_STDERR;
static bool log_verbose;
static const char *log_ident = "iwcmd";

/* Set up logging for process name ident. */
void log_init(enum log_dest dest, bool verbose, const char *ident)
{
	if (log_dest == LOG_TO_SYSLOG && dest != LOG_TO_SYSLOG)
		closelog();
	log_dest = dest;
	log_verbose = verbose;
	if (ident)
		log_ident = ident;
	if (dest == LOG_TO_SYSLOG)
		openlog(log_ident, LOG_PID | LOG_NDELAY, LOG_DAEMON);
	tzset();
}

/* Turn debug messages on or off at runtime. */
void log_setverbose(bool verbose)
{
	log_verbose = verbose;
}

/* Whether debug messages are on. */
bool log_getverbose(void)
{
	return log_verbose;
}

static void log_vwrite(int prio, const char *fmt, va_list ap, int err)
{
	char msg[1024];
	int n;

	n = vsnprintf(msg, sizeof(msg), fmt, ap);
	if (n < 0)
		return;
	if (err && (size_t)n < sizeof(msg))
		snprintf(msg + n, sizeof(msg) - (size_t)n, ": %s",
			 strerror(err));
	switch (log_dest) {
	case LOG_TO_SYSLOG:
		syslog(prio, "%s", msg);
		break;
	case LOG_TO_JOURNAL:
		/* sd-daemon(3) priority prefix, read by journald */
		fprintf(stderr, "<%d>%s\n", prio, msg);
		break;
	case LOG_TO_STDERR:
		fprintf(stderr, "%s\n", msg);
		break;
	case LOG_TO_NONE:
		break;
	}
}

/* Log at warning level, appending strerror(errno). */
void log_warn(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, fmt, ap, err);
	va_end(ap);
	errno = err;
}

/* Log at warning level. */
void log_warnx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_WARNING, fmt, ap, 0);
	va_end(ap);
}

/* Log at info level. */
void log_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_INFO, fmt, ap, 0);
	va_end(ap);
}

/* Log at debug level, only when verbose. */
void log_debug(const char *fmt, ...)
{
	va_list ap;

	if (!log_verbose)
		return;
	va_start(ap, fmt);
	log_vwrite(LOG_DEBUG, fmt, ap, 0);
	va_end(ap);
}

/* Log an error with strerror(errno) and exit(1). */
void fatal(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, fmt, ap, err);
	va_end(ap);
	exit(1);
}

/* Log an error and exit(1). */
void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vwrite(LOG_CRIT, fmt, ap, 0);
	va_end(ap);
	exit(1);
}

/* Whether a rate-limited message may be logged now. */
bool log_ratelimit_ok(struct log_ratelimit *rl, long long now_s,
		      unsigned int *suppressed)
{
	*suppressed = 0;
	if (now_s - rl->window_start >= (long long)rl->interval_s) {
		*suppressed = rl->suppressed;
		rl->window_start = now_s;
		rl->count = 0;
		rl->suppressed = 0;
	}
	if (rl->count >= rl->burst) {
		rl->suppressed++;
		return false;
	}
	rl->count++;
	return true;
}
