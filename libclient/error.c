/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcm_status_str(): text for enum iwcm_status, whose values are those of
 * the daemon's Result enum (proto/iwcm.proto) so that a result code
 * passes through unchanged.
 */
#include "config.h"

#include "internal.h"

#define SAME(a, b) _Static_assert((int)(a) == (int)(b), #a " != " #b)
SAME(IWCM_STATUS_OK, IWCM__RESULT__RES_OK);
SAME(IWCM_STATUS_INVALID, IWCM__RESULT__RES_EINVAL);
SAME(IWCM_STATUS_PERM, IWCM__RESULT__RES_EPERM);
SAME(IWCM_STATUS_NOENT, IWCM__RESULT__RES_ENOENT);
SAME(IWCM_STATUS_EXISTS, IWCM__RESULT__RES_EEXIST);
SAME(IWCM_STATUS_LIMIT, IWCM__RESULT__RES_ELIMIT);
SAME(IWCM_STATUS_ADDRINUSE, IWCM__RESULT__RES_EADDRINUSE);
SAME(IWCM_STATUS_TIMEDOUT, IWCM__RESULT__RES_ETIMEDOUT);
SAME(IWCM_STATUS_REFUSED, IWCM__RESULT__RES_ECONNREFUSED);
SAME(IWCM_STATUS_RESET, IWCM__RESULT__RES_ECONNRESET);
SAME(IWCM_STATUS_REJECTED, IWCM__RESULT__RES_EREJECTED);
SAME(IWCM_STATUS_PROTOCOL, IWCM__RESULT__RES_EPROTO);
SAME(IWCM_STATUS_VERSION, IWCM__RESULT__RES_EVERSION);
SAME(IWCM_STATUS_INTERNAL, IWCM__RESULT__RES_EINTERNAL);
SAME(IWCM_STATUS_SHUTDOWN, IWCM__RESULT__RES_ESHUTDOWN);
SAME(IWCM_TRANSPORT_TCP, IWCM__TRANSPORT__TRANSPORT_TCP);
SAME(IWCM_TRANSPORT_SCTP, IWCM__TRANSPORT__TRANSPORT_SCTP);
SAME(IWCM_CRC_REQUEST, IWCM__CRC_POLICY__CRC_REQUEST);
SAME(IWCM_CRC_PREFER_OFF, IWCM__CRC_POLICY__CRC_PREFER_OFF);
SAME(IWCM_REV0_STRICT, IWCM__REV0_POLICY__REV0_STRICT);
SAME(IWCM_REV0_PERMISSIVE, IWCM__REV0_POLICY__REV0_PERMISSIVE);
SAME(IWCM_RTR_SEND, IWCM__RTR_TYPE__RTR_SEND);
SAME(IWCM_RTR_WRITE, IWCM__RTR_TYPE__RTR_WRITE);
SAME(IWCM_RTR_READ, IWCM__RTR_TYPE__RTR_READ);

static const char *const status_text[] = {
	[IWCM_STATUS_OK] = "success",
	[IWCM_STATUS_INVALID] = "invalid request",
	[IWCM_STATUS_PERM] = "not permitted",
	[IWCM_STATUS_NOENT] = "no such listener, connection or service",
	[IWCM_STATUS_EXISTS] = "already listening there",
	[IWCM_STATUS_LIMIT] = "per-user limit reached",
	[IWCM_STATUS_ADDRINUSE] = "address already in use",
	[IWCM_STATUS_TIMEDOUT] = "timed out",
	[IWCM_STATUS_REFUSED] = "connection refused",
	[IWCM_STATUS_RESET] = "connection reset",
	[IWCM_STATUS_REJECTED] = "rejected by the peer",
	[IWCM_STATUS_PROTOCOL] = "protocol error",
	[IWCM_STATUS_VERSION] = "IPC version mismatch",
	[IWCM_STATUS_INTERNAL] = "internal daemon error",
	[IWCM_STATUS_SHUTDOWN] = "daemon shutting down",
};

/* Describe a connection failure reason. */
IWCM_EXPORT const char *iwcm_status_str(enum iwcm_status status)
{
	/* Unsigned, so that a negative value out of any enum is unknown. */
	if ((unsigned int)status >=
	    sizeof(status_text) / sizeof(status_text[0]))
		return "unknown status";
	return status_text[status];
}
