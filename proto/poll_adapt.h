/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_POLL_ADAPT_H
#define IWCM_POLL_ADAPT_H

/*
 * The adaptive polling window shared by both ends of the IPC: iwcmd's
 * loop (adaptive_poll_us, iwcmd.conf(5)) and each libiwcm context
 * (IWCM_POLL_US, iwcm_ctx_poll_us(3)).  A handshake through iwcmd is a
 * chain of short exchanges between the daemon and its clients; waking a
 * CPU that went idle for each costs more than the exchange on a virtual
 * machine, so after an exchange each end may keep polling for a window,
 * as the kernel's cpuidle-haltpoll governor does for an idle virtual CPU.
 */
#include <stdint.h>
#include <time.h>

/* The first window when a window of 0 was too short. */
#define POLL_ADAPT_START_US 25

/*
 * The window after a wait of gap_us from the last exchange to the next
 * message that the window win did not catch, with limit max (all in us):
 * when a window within the limit would have caught it, it doubles (from
 * POLL_ADAPT_START_US) up to max; when none would have, it halves, to 0
 * below POLL_ADAPT_START_US.  A limit of 0 turns it off.
 */
unsigned int poll_adapt(unsigned int win, uint64_t gap_us, unsigned int max);

/*
 * A spin polls its descriptors every POLL_ADAPT_PACE_NS or so, and waits
 * in between without a system call: each poll(2) takes the locks of the
 * sockets the peer is writing to, and polling back to back slowed a busy
 * iwcmd down (iwcm-bench cm at depth 16) for a few microseconds gained.
 */
#define POLL_ADAPT_PACE_NS 3000

/* Wait POLL_ADAPT_PACE_NS without a system call. */
static inline void poll_adapt_pace(void)
{
	struct timespec t;
	uint64_t now, end;

	clock_gettime(CLOCK_MONOTONIC, &t);
	now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	end = now + POLL_ADAPT_PACE_NS;
	while (now < end) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#elif defined(__aarch64__)
		__asm__ __volatile__("yield");
#endif
		clock_gettime(CLOCK_MONOTONIC, &t);
		now = (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
	}
}

#endif
