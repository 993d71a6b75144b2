/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Which SCTP endpoint an address names: a usrsctp listener that takes
 * an association only on its own address (sctp_usrsctp.c), an
 * association that finds the listener on its local address
 * (listener.c) and the UDP endpoints of usrsctp's peers
 * (sctp_usrsctp_udp.c) compare addresses the same way, here; the port
 * of an IPv4 or IPv6 address, read or set, and the UDP port a peer is
 * reached on.
 */
#include "config.h"

#include <netinet/in.h>
#include <string.h>

#include "sctp_stack.h"

bool sctp_addr_match(const struct sockaddr_storage *a, const struct sockaddr *b,
		     socklen_t len, bool wildcard)
{
	if (a->ss_family != b->sa_family)
		return false;
	if (b->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *x = (const void *)a;
		const struct sockaddr_in *y = (const void *)b;

		return x->sin_port == y->sin_port &&
		       ((wildcard && x->sin_addr.s_addr == htonl(INADDR_ANY)) ||
			x->sin_addr.s_addr == y->sin_addr.s_addr);
	}
	if (b->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *x = (const void *)a;
		const struct sockaddr_in6 *y = (const void *)b;

		if (x->sin6_port != y->sin6_port)
			return false;
		if (wildcard && IN6_IS_ADDR_UNSPECIFIED(&x->sin6_addr))
			return true;
		return IN6_ARE_ADDR_EQUAL(&x->sin6_addr, &y->sin6_addr) &&
		       x->sin6_scope_id == y->sin6_scope_id;
	}
	return false;
}

uint16_t sctp_addr_port(const void *sa)
{
	return ((const struct sockaddr *)sa)->sa_family == AF_INET6 ?
		       ((const struct sockaddr_in6 *)sa)->sin6_port :
		       ((const struct sockaddr_in *)sa)->sin_port;
}

socklen_t sctp_addr_set_port(void *sa, uint16_t port)
{
	if (((struct sockaddr *)sa)->sa_family == AF_INET6) {
		((struct sockaddr_in6 *)sa)->sin6_port = port;
		return sizeof(struct sockaddr_in6);
	}
	((struct sockaddr_in *)sa)->sin_port = port;
	return sizeof(struct sockaddr_in);
}

uint16_t sctp_addr_encap_port(const struct sctp_stack_conf *c, uint16_t rport)
{
	if (rport || !c->udp_port)
		return rport;
	return c->encap_port ? c->encap_port : c->udp_port;
}
