/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "pbaddr.h"

/* Fill out from an IPv4 or IPv6 socket address. */
void pb_sockaddr_from(const struct sockaddr_storage *ss, Iwcm__SockAddr *out,
		      uint8_t buf[16])
{
	iwcm__sock_addr__init(out);
	out->addr.data = buf;
	out->addr.len = 0;
	out->port = 0;
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *sin = (const void *)ss;

		memcpy(buf, &sin->sin_addr, 4);
		out->addr.len = 4;
		out->port = ntohs(sin->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *sin6 = (const void *)ss;

		memcpy(buf, &sin6->sin6_addr, 16);
		out->addr.len = 16;
		out->port = ntohs(sin6->sin6_port);
	}
}

/* The socket address of a 4 or 16 octet SockAddr (len may be NULL). */
int pb_sockaddr_to(const Iwcm__SockAddr *a, struct sockaddr_storage *ss,
		   socklen_t *len)
{
	memset(ss, 0, sizeof(*ss));
	if (!a || a->port > 65535 || !a->addr.data)
		goto bad;
	if (a->addr.len == 4) {
		struct sockaddr_in *sin = (void *)ss;

		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)a->port);
		memcpy(&sin->sin_addr, a->addr.data, 4);
		if (len)
			*len = sizeof(*sin);
		return 0;
	}
	if (a->addr.len == 16) {
		struct sockaddr_in6 *sin6 = (void *)ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)a->port);
		memcpy(&sin6->sin6_addr, a->addr.data, 16);
		if (len)
			*len = sizeof(*sin6);
		return 0;
	}
bad:
	errno = EINVAL;
	return -1;
}

/* A deep copy of p (pack, then unpack). */
Iwcm__ConnParams *pb_conn_params_dup(const Iwcm__ConnParams *p)
{
	Iwcm__ConnParams *d;
	uint8_t *buf;
	size_t len;

	if (!p)
		return NULL;
	len = iwcm__conn_params__get_packed_size(p);
	buf = malloc(len ? len : 1);
	if (!buf) {
		errno = ENOMEM;
		return NULL;
	}
	iwcm__conn_params__pack(p, buf);
	d = iwcm__conn_params__unpack(NULL, len, buf);
	free(buf);
	if (!d)
		errno = ENOMEM;
	return d;
}
