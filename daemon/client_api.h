/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLIENT_API_H
#define IWCM_CLIENT_API_H

/*
 * What the IPC edge files (client_api.c, admin.c) share beyond iwcmd.h:
 * the Established message both build, the client for a handoff and
 * iwcmctl connect for its report.  Protobuf types; for the edge only.
 */
#include <stdint.h>

#include "conn.h"
#include "iwcm.pb-c.h"

/* An Established and the storage it points into. */
struct client_api_established {
	Iwcm__Established e;
	Iwcm__SockAddr local, peer;
	uint8_t lbuf[16], pbuf[16];
	Iwcm__PeerInfo pi;
	uint32_t msn[CONN_NQN];
};

/* Describe c's negotiated state as an Established (points into c, h). */
void client_api_established_fill(const struct conn *c,
				 struct client_api_established *h);

#endif
