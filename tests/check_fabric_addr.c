/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Addresses of the provider's endpoints over a real iwcmd -d: an active
 * endpoint opened with a passive endpoint as its handle takes over the
 * address given to that one with fi_setname() (fi_endpoint(3)), keeps it
 * once the passive endpoint is closed, and connects from it (libfabric's
 * fabtest fi_msg_sockets).
 */
#include "config.h"

#include <arpa/inet.h>
#include <sys/socket.h>

#include "fabric_harness.h"

/* A TCP port of 127.0.0.1 nobody holds right now. */
static in_port_t free_port(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t len = sizeof(sin);
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ck_assert_int_ge(fd, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	close(fd);
	return sin.sin_port;
}

/* fi_getname() or fi_getpeer() of fid says want. */
static void name_is(fid_t fid, bool peer, const struct sockaddr_in *want)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *got = (struct sockaddr_in *)&ss;
	size_t len = sizeof(ss);

	memset(&ss, 0, sizeof(ss));
	if (peer)
		ck_assert_int_eq(
			fi_getpeer(container_of(fid, struct fid_ep, fid), &ss,
				   &len),
			0);
	else
		ck_assert_int_eq(fi_getname(fid, &ss, &len), 0);
	ck_assert_uint_eq(len, sizeof(*want));
	ck_assert_int_eq(got->sin_family, AF_INET);
	ck_assert_uint_eq(ntohs(got->sin_port), ntohs(want->sin_port));
	ck_assert_uint_eq(got->sin_addr.s_addr, want->sin_addr.s_addr);
}

START_TEST(ep_takes_pep_name)
{
	struct sockaddr_in want = { .sin_family = AF_INET };
	struct fi_info *info;
	struct fid_pep *pep;
	struct cm_buf cb;
	struct net n;
	uint32_t ev;

	net_open(&n);
	want.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	want.sin_port = free_port();
	ck_assert_int_eq(fi_passive_ep(n.fabric, n.info, &pep, NULL), 0);
	ck_assert_int_eq(fi_setname(&pep->fid, &want, sizeof(want)), 0);
	name_is(&pep->fid, false, &want);

	info = fi_dupinfo(n.info);
	ck_assert_ptr_nonnull(info);
	info->handle = &pep->fid;
	ep_setup(&n, &n.c, info);
	info->handle = NULL;
	fi_freeinfo(info);
	/* The passive endpoint the address came from goes at once. */
	ck_assert_int_eq(fi_close(&pep->fid), 0);
	name_is(&n.c.ep->fid, false, &want);

	ck_assert_int_eq(fi_connect(n.c.ep, &n.addr, NULL, 0), 0);
	ck_assert_int_ge(eq_wait(n.s.eq, &ev, &cb, sizeof(cb)), 0);
	ck_assert_int_eq(ev, FI_CONNREQ);
	ep_setup(&n, &n.s, cb.e.info);
	ck_assert_int_eq(fi_accept(n.s.ep, NULL, 0), 0);
	fi_freeinfo(cb.e.info);
	ck_assert_int_ge(eq_wait(n.s.eq, &ev, &cb, sizeof(cb)), 0);
	ck_assert_int_eq(ev, FI_CONNECTED);
	ck_assert_int_ge(eq_wait(n.c.eq, &ev, &cb, sizeof(cb)), 0);
	ck_assert_int_eq(ev, FI_CONNECTED);
	/* Connected from that address, as both ends see it. */
	name_is(&n.c.ep->fid, false, &want);
	name_is(&n.s.ep->fid, true, &want);
	net_close(&n);
}
END_TEST

/* Any other kind of handle is refused. */
START_TEST(ep_refuses_other_handle)
{
	struct fi_info *info;
	struct fid_ep *ep;
	struct net n;

	net_open(&n);
	info = fi_dupinfo(n.info);
	ck_assert_ptr_nonnull(info);
	info->handle = &n.s.eq->fid;
	ck_assert_int_eq(fi_endpoint(n.domain, info, &ep, NULL), -FI_EINVAL);
	info->handle = NULL;
	fi_freeinfo(info);
	net_close(&n);
}
END_TEST

static Suite *fabric_addr_suite(void)
{
	Suite *s = suite_create("fabric_addr");

	add_tcase(s, "ep_takes_pep_name", ep_takes_pep_name);
	add_tcase(s, "ep_refuses_other_handle", ep_refuses_other_handle);
	return s;
}

int main(void)
{
	return fabric_run(fabric_addr_suite(), "");
}
