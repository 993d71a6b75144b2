/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_CLIENT_API_H
#define IWCM_CLIENT_API_H

/*
 * What the IPC edge files (client_api.c, admin.c) share beyond iwcmd.h:
 * the conversions between iwcm.proto's messages and the daemon's own
 * types, and the Established message both build (the client for a
 * handoff, iwcmctl connect for its report).  Protobuf types: only the
 * edge includes this.
 */
#include <stdbool.h>
#include <stdint.h>

#include "conn.h"
#include "iwcmd.h"
#include "iwcm.pb-c.h"
#include "pbaddr.h"

/* iwcm.proto's Result for r: the same codes in the same order (checked
 * in client_api.c). */
static inline Iwcm__Result client_api_result(enum conn_result r)
{
	return (Iwcm__Result)r;
}

/* pb in the daemon's form (pb was checked); -1 if it does not fit. */
int client_api_params_from(const Iwcm__ConnParams *pb, struct conn_params *out);
/* p in protobuf form; out points into p. */
void client_api_params_to(const struct conn_params *p, Iwcm__ConnParams *out);
/* Check a Connect's (or iwcmctl connect's, forced) destination and
 * parameters: RES_OK or RES_EINVAL. */
Iwcm__Result client_api_check_connect(const Iwcm__SockAddr *dst,
				      const Iwcm__ConnParams *p, bool forced);
/* Where a (checked) Connect goes: dst, and src when given. */
int client_api_target(const Iwcm__SockAddr *dst, const Iwcm__SockAddr *src,
		      struct conn_target *t);

/*
 * One transport's side of the clients' requests, chosen once per request
 * (client_api.c): MPA over TCP (listener.c, conn.c) or DDP stream
 * sessions over SCTP (sctp_conn.c, RFC 5043).  An id names its
 * transport (SCTP_CONN_ID_BIT).
 */
struct client_transport {
	const char *name;
	/* by address, or the service lr->service; *id and *bound set */
	enum conn_result (*listen)(struct client *c,
				   const struct listener_req *lr, uint64_t *id,
				   struct sockaddr_storage *bound);
	enum conn_result (*unlisten)(struct client *c, uint64_t id);
	enum conn_result (*connect)(struct client *c,
				    const struct conn_target *t,
				    const struct conn_params *p, uint64_t *id);
	enum conn_result (*accept)(struct client *c, uint64_t id,
				   const struct conn_params *p);
	enum conn_result (*reject)(struct client *c, uint64_t id,
				   const uint8_t *pd, size_t len);
	enum conn_result (*disconnect)(struct client *c, uint64_t id);
};

/* client_api_sctp.c */
extern const struct client_transport client_transport_sctp;

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
