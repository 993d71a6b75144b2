/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_PBADDR_H
#define IWCM_PBADDR_H

/*
 * Conversions between the IPC messages' address and parameter types and
 * their C counterparts, shared by iwcmd, libiwcm and iwcmctl.
 */
#include <stdint.h>
#include <sys/socket.h>

#include "iwcm.pb-c.h"

/*
 * Fill out from an IPv4 or IPv6 socket address; buf (16 octets) holds the
 * address octets out points to.  Another family gives an empty address
 * and port 0.
 */
void pb_sockaddr_from(const struct sockaddr_storage *ss, Iwcm__SockAddr *out,
		      uint8_t buf[16]);

/*
 * The socket address of a (4 or 16 octet) SockAddr, its length in *len
 * (len may be NULL); -1 with errno EINVAL for anything else or a port
 * above 65535.
 */
int pb_sockaddr_to(const Iwcm__SockAddr *a, struct sockaddr_storage *ss,
		   socklen_t *len);

/* A deep copy of p (NULL for NULL); NULL with errno ENOMEM on failure. */
Iwcm__ConnParams *pb_conn_params_dup(const Iwcm__ConnParams *p);

#endif
