/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_LOG_H
#define IWCM_LOG_H

/*
 * Daemon logging (the OpenBGPD log.c model): stderr in the foreground or
 * under systemd (journald reads it; lines carry <N> priority prefixes
 * there), syslog otherwise.  log_warn appends strerror(errno); log_debug
 * prints only when verbose.  fatal/fatalx are for startup failures and
 * broken invariants only: peer-caused errors never end the daemon.
 */
#include <stdarg.h>
#include <stdbool.h>

enum log_dest {
	LOG_TO_STDERR,	/* -d: plain lines */
	LOG_TO_JOURNAL, /* under systemd: "<prio>" prefixed lines */
	LOG_TO_SYSLOG,
	LOG_TO_NONE, /* formatted, then dropped (the fuzz harnesses) */
};

/* Set up logging for process name ident (call again to change). */
void log_init(enum log_dest dest, bool verbose, const char *ident);

/* Turn debug messages on or off at runtime (iwcmctl log verbose|brief). */
void log_setverbose(bool verbose);
bool log_getverbose(void);

/* Log at warning level, appending ": strerror(errno)" when errno is set. */
void log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at warning level. */
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at info level. */
void log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log at debug level, only when verbose. */
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Log an error with strerror(errno) and exit(1). */
void fatal(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));
/* Log an error and exit(1). */
void fatalx(const char *fmt, ...)
	__attribute__((format(printf, 1, 2), noreturn));

/*
 * Rate limiting for peer-caused messages: returns true when a message of
 * this class may be logged now (at most burst per interval seconds); the
 * number suppressed is reported with the next allowed message.
 */
struct log_ratelimit {
	unsigned int interval_s;
	unsigned int burst;
	/* private */
	long long window_start;
	unsigned int count;
	unsigned int suppressed;
};

#define LOG_RATELIMIT_INIT(iv, b)  \
	{                          \
		(iv), (b), 0, 0, 0 \
	}

bool log_ratelimit_ok(struct log_ratelimit *rl, long long now_s,
		      unsigned int *suppressed);

#endif
