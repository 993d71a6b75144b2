/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* The adaptive polling window of iwcmd and libiwcm (poll_adapt.h). */
#include "config.h"

#include "poll_adapt.h"

unsigned int poll_adapt(unsigned int win, uint64_t gap_us, unsigned int max)
{
	if (!max) /* off */
		return 0;
	if (gap_us > max) /* no window allowed would have caught it */
		return win / 2 >= POLL_ADAPT_START_US ? win / 2 : 0;
	if (win >= max / 2)
		return max;
	return win ? win * 2 :
		     (max < POLL_ADAPT_START_US ? max : POLL_ADAPT_START_US);
}
