/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Data progress.  FI_IWCM_PROGRESS chooses, for the fabrics a process
 * opens, who moves the data of the fabric's iwcm context:
 *
 * auto (the default): libiwcm's progress thread, so one-sided operations
 *   complete without any call from the target (FI_PROGRESS_AUTO, which
 *   serves callers asking for FI_PROGRESS_MANUAL as well).
 * manual: the application's calls (IWCM_CTX_MANUAL_PROGRESS):
 *   fi_cq_read() reads the sockets itself (iwcm_progress() with no wait,
 *   one read(2) per QP), so no other thread must get the CPU before a
 *   rank sees its message (FI_PROGRESS_MANUAL only).
 *
 * On a machine whose cores are shared by more runnable threads than it
 * has, the thread wins: woken by the socket, it preempts the pollers,
 * where a poller that reads the socket itself waits for its turn (see
 * fi_iwcm(7) for the numbers).
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
