/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Data progress.  FI_IWCM_PROGRESS chooses, for the fabrics a process
 * opens, who moves the data of the fabric's iwcm context:
 *
 * auto (the default): the application's own calls move the data of the
 *   QPs they concern: fi_cq_read() and fi_cq_sread() through
 *   iwcm_poll_cq(3) and iwcm_get_cq_event(3), posting through
 *   iwcm_post_send(3), as libfabric's tcp provider does in its calls.
 *   libiwcm's progress thread takes over a QP for which no call came
 *   during a tick (IWCM_PROGRESS_IDLE_US), so one-sided operations
 *   complete without any call from the target (FI_PROGRESS_AUTO, which
 *   serves callers asking for FI_PROGRESS_MANUAL as well).
 * manual: no progress thread (IWCM_CTX_MANUAL_PROGRESS): fi_cq_read()
 *   also runs the context's loop (iwcm_progress() with no wait), and
 *   nothing moves between the application's calls (FI_PROGRESS_MANUAL
 *   only).
 *
 * fi_iwcm(7) has the numbers of both, on a quiet machine and on cores
 * shared with other busy processes.
 */
#include "config.h"

#include <unistd.h>

#include "iwfi.h"

/*
 * Move the data of a manual-progress fabric now, waiting at most wait_ms
 * for something to happen (0: only what is ready); with auto progress
 * the thread does it, and a caller that would wait sleeps instead.
 */
void iwfi_progress(struct iwfi_fabric *fab, int wait_ms)
{
	if (!fab->manual) {
		if (wait_ms > 0)
			usleep((useconds_t)wait_ms * 1000);
		return;
	}
	(void)iwcm_progress(fab->ctx, wait_ms);
}
