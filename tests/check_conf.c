/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcmd.conf parsing: defaults, every key, sections, and every error. */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <unistd.h>

#include "common.h"

#include "conf.h"
#include "mpa.h"

static struct iwcmd_conf conf;
static char err[256];

static int parse(const char *text)
{
	return conf_parse(text, strlen(text), "test.conf", &conf, err,
			  sizeof(err));
}

START_TEST(test_defaults)
{
	ck_assert_int_eq(parse(""), 0);
	ck_assert_str_eq(conf.socket_path, "/run/iwcm/iwcmd.sock");
	ck_assert_uint_eq(conf.request_timeout_ms, 5000);
	ck_assert_uint_eq(conf.reply_timeout_ms, 10000);
	ck_assert_uint_eq(conf.rtr_timeout_ms, 5000);
	ck_assert_uint_eq(conf.tcp_user_timeout_ms, 0); /* the kernel's */
	ck_assert_uint_eq(conf.pd_send_max, 256);
	ck_assert_int_eq(conf.policy.rev0, CONF_REV0_STRICT);
	ck_assert_int_eq(conf.policy.irdord, CONF_IRDORD_RELAXED);
	ck_assert_int_eq(conf.policy.crc, CONF_CRC_REQUEST);
	ck_assert(!conf.policy.markers);
	ck_assert(!conf.policy.rtr_frame);
	ck_assert_uint_eq(conf.policy.rtr_pref[0], MPA_RTR_WRITE);
	ck_assert_uint_eq(conf.policy.rtr_pref[1], MPA_RTR_READ);
	ck_assert_uint_eq(conf.policy.rtr_pref[2], MPA_RTR_SEND);
	ck_assert_uint_eq(conf.n_listeners, 0);
	ck_assert_uint_eq(conf.sctp_stack, 0);
	ck_assert_uint_eq(conf.sctp_udp_port, 9899);
	ck_assert_uint_eq(conf.sctp_encap_port, 0);
	ck_assert_uint_eq(conf.sctp_streams, 16);
}
END_TEST

START_TEST(test_sctp_keys)
{
	ck_assert_int_eq(parse("sctp_stack = kernel\nsctp_udp_port = 0\n"
			       "sctp_streams = 64\n"),
			 0);
	ck_assert_uint_eq(conf.sctp_stack, 1);
	ck_assert_uint_eq(conf.sctp_udp_port, 0);
	ck_assert_uint_eq(conf.sctp_streams, 64);
	ck_assert_int_eq(parse("sctp_encap_port = 29899\n"), 0);
	ck_assert_uint_eq(conf.sctp_encap_port, 29899);
	ck_assert_int_eq(parse("sctp_stack = usrsctp\n"), 0);
	ck_assert_uint_eq(conf.sctp_stack, 0);
	/* a listener of DDP over SCTP (RFC 5043); TCP by default */
	ck_assert_int_eq(parse("[listener a]\naddress = 127.0.0.1:5000\n"
			       "transport = sctp\n[listener b]\n"
			       "address = 127.0.0.1:5001\n"),
			 0);
	ck_assert_uint_eq(conf.listeners[0].transport, 1);
	ck_assert_uint_eq(conf.listeners[1].transport, 0);
}
END_TEST

START_TEST(test_full_file)
{
	static const char text[] = "# iwcmd.conf\n"
				   "socket = /tmp/x/iwcmd.sock\n"
				   "log_level = debug\r\n"
				   "  request_timeout_ms=2500  \n"
				   "reply_timeout_ms = 12000\n"
				   "ulp_timeout_ms = 60000\n"
				   "tcp_user_timeout_ms = 3000\n"
				   "rtr_timeout_ms = 4000\n"
				   "max_listeners_per_uid = 8\n"
				   "max_pending_per_uid = 100\n"
				   "max_conns = 500\n"
				   "private_data_send_max = 512\n"
				   "allow_privileged = 1000:445\n"
				   "rev0 = permissive\n"
				   "ird_ord = strict\n"
				   "crc = prefer-off\n"
				   "markers = yes\n"
				   "rtr = read,send\n"
				   "max_ird = 16\n"
				   "max_ord = 8\n"
				   "\n"
				   "[listener mpi]\n"
				   "address = 192.0.2.1:4791\n"
				   "owner = 1000\n"
				   "backlog = 32\n"
				   "markers = no\n"
				   "rtr_frame = on\n"
				   "[ listener storage ]\n"
				   "address = [2001:db8::1]:20049\n"
				   "pending_max = 7\n";
	const struct conf_listener *l;
	const struct sockaddr_in *s4;
	const struct sockaddr_in6 *s6;

	ck_assert_msg(parse(text) == 0, "%s", err);
	ck_assert_str_eq(conf.socket_path, "/tmp/x/iwcmd.sock");
	ck_assert(conf.verbose);
	ck_assert_uint_eq(conf.request_timeout_ms, 2500);
	ck_assert_uint_eq(conf.reply_timeout_ms, 12000);
	ck_assert_uint_eq(conf.ulp_timeout_ms, 60000);
	ck_assert_uint_eq(conf.tcp_user_timeout_ms, 3000);
	ck_assert_uint_eq(conf.rtr_timeout_ms, 4000);
	ck_assert_uint_eq(conf.max_listeners_per_uid, 8);
	ck_assert_uint_eq(conf.max_pending_per_uid, 100);
	ck_assert_uint_eq(conf.max_conns, 500);
	ck_assert_uint_eq(conf.pd_send_max, 512);
	ck_assert_int_eq(conf.policy.rev0, CONF_REV0_PERMISSIVE);
	ck_assert_int_eq(conf.policy.irdord, CONF_IRDORD_STRICT);
	ck_assert_int_eq(conf.policy.crc, CONF_CRC_PREFER_OFF);
	ck_assert(conf.policy.markers);
	ck_assert_uint_eq(conf.policy.rtr_accept, MPA_RTR_READ | MPA_RTR_SEND);
	ck_assert_uint_eq(conf.policy.rtr_pref[0], MPA_RTR_READ);
	ck_assert_uint_eq(conf.policy.rtr_pref[1], MPA_RTR_SEND);
	ck_assert_uint_eq(conf.policy.rtr_pref[2], 0);
	ck_assert_uint_eq(conf.policy.max_ird, 16);
	ck_assert_uint_eq(conf.policy.max_ord, 8);
	ck_assert_uint_eq(conf.n_listeners, 2);
	l = conf_listener_find(&conf, "mpi");
	ck_assert_ptr_nonnull(l);
	s4 = (const struct sockaddr_in *)&l->addr;
	ck_assert_int_eq(s4->sin_family, AF_INET);
	ck_assert_uint_eq(ntohs(s4->sin_port), 4791);
	ck_assert_uint_eq(ntohl(s4->sin_addr.s_addr), 0xC0000201);
	ck_assert(l->has_owner);
	ck_assert_uint_eq(l->owner, 1000);
	ck_assert_uint_eq(l->backlog, 32);
	/* inherits the top-level policy, overrides what it sets */
	ck_assert(!l->policy.markers);
	ck_assert(l->policy.rtr_frame);
	ck_assert_int_eq(l->policy.rev0, CONF_REV0_PERMISSIVE);
	ck_assert_uint_eq(l->policy.max_ird, 16);
	l = conf_listener_find(&conf, "storage");
	ck_assert_ptr_nonnull(l);
	s6 = (const struct sockaddr_in6 *)&l->addr;
	ck_assert_int_eq(s6->sin6_family, AF_INET6);
	ck_assert_uint_eq(ntohs(s6->sin6_port), 20049);
	ck_assert_uint_eq(l->pending_max, 7);
	ck_assert(!l->has_owner);
	ck_assert(l->policy.markers);
	ck_assert_ptr_null(conf_listener_find(&conf, "nope"));
	ck_assert(conf_port_allowed(&conf, 1000, 445));
	ck_assert(!conf_port_allowed(&conf, 1000, 446));
	ck_assert(!conf_port_allowed(&conf, 1001, 445));
	ck_assert(conf_port_allowed(&conf, 0, 80));
	ck_assert(conf_port_allowed(&conf, 1001, 4791));
}
END_TEST

static const struct {
	const char *text;
	const char *msg; /* expected error text */
} bad[] = {
	{ "bogus = 1\n", "test.conf:1: unknown key 'bogus'" },
	{ "\n\nreply_timeout_ms = 5\n",
	  "test.conf:3: reply_timeout_ms: expected a number from 100 to "
	  "600000" },
	{ "reply_timeout_ms = -1\n",
	  "test.conf:1: reply_timeout_ms: expected" },
	{ "reply_timeout_ms = 12x\n",
	  "test.conf:1: reply_timeout_ms: expected" },
	{ "reply_timeout_ms = 99999999999999999999\n",
	  "test.conf:1: reply_timeout_ms: expected" },
	{ "tcp_user_timeout_ms = 3600001\n",
	  "test.conf:1: tcp_user_timeout_ms: expected a number from 0 to "
	  "3600000" },
	{ "markers = maybe\n", "test.conf:1: markers: expected yes or no" },
	{ "rev0 = lax\n", "test.conf:1: rev0: unknown value 'lax'" },
	{ "[listener a]\naddress = *:1\ntransport = udp\n",
	  "test.conf:3: transport: unknown value 'udp'" },
	{ "sctp_stack = tcp\n",
	  "test.conf:1: sctp_stack: unknown value 'tcp'" },
	{ "sctp_udp_port = 65536\n",
	  "test.conf:1: sctp_udp_port: expected a number from 0 to 65535" },
	{ "sctp_encap_port = -1\n",
	  "test.conf:1: sctp_encap_port: expected a number from 0 to 65535" },
	{ "sctp_streams = 0\n", "test.conf:1: sctp_streams: expected" },
	{ "socket = relative\n", "test.conf:1: socket: expected an absolute" },
	{ "rtr = write,write\n", "test.conf:1: rtr: expected a list" },
	{ "rtr = write,\n", "test.conf:1: rtr: expected a list" },
	{ "rtr = fly\n", "test.conf:1: rtr: expected a list" },
	{ "max_ird = 16383\n", "test.conf:1: max_ird: expected a number" },
	{ "private_data_send_max = 513\n",
	  "test.conf:1: private_data_send_max: expected" },
	{ "markers\n", "test.conf:1: expected 'key = value'" },
	{ "markers =\n", "test.conf:1: markers: empty value" },
	{ "address = *:1\n",
	  "test.conf:1: address: only valid inside [listener NAME]" },
	{ "[listener a]\naddress = *:1\nsocket = /x\n",
	  "test.conf:3: socket: not valid inside a listener section" },
	{ "[listener a\n", "test.conf:1: section header without ']'" },
	{ "[server a]\n", "test.conf:1: unknown section '[server a]'" },
	{ "[listener]\n", "test.conf:1: unknown section" },
	{ "[listener a b]\n", "test.conf:1: listener name must be" },
	{ "[listener a]\naddress = *:1\n[listener a]\n",
	  "test.conf:3: listener 'a' defined twice" },
	{ "[listener a]\nmarkers = yes\n", "test.conf:0: listener 'a' has no "
					   "address" },
	{ "[listener a]\naddress = 1.2.3:80\n", "test.conf:2: address:" },
	{ "[listener a]\naddress = 1.2.3.4\n", "test.conf:2: address:" },
	{ "[listener a]\naddress = 1.2.3.4:65536\n", "test.conf:2: address:" },
	{ "[listener a]\naddress = [::1:80\n", "test.conf:2: address:" },
	{ "[listener a]\naddress = :80\n", "test.conf:2: address:" },
	{ "[listener a]\naddress = *:1\nowner = no-such-user-xyz\n",
	  "test.conf:3: owner: unknown user 'no-such-user-xyz'" },
	{ "allow_privileged = 1000:1024\n",
	  "test.conf:1: allow_privileged: expected USER:PORT" },
	{ "allow_privileged = :80\n",
	  "test.conf:1: allow_privileged: expected USER:PORT" },
};

START_TEST(test_errors)
{
	errno = 0;
	ck_assert_int_eq(parse(bad[_i].text), -1);
	ck_assert_int_eq(errno, EINVAL);
	ck_assert_msg(strncmp(err, bad[_i].msg, strlen(bad[_i].msg)) == 0,
		      "row %d: got \"%s\", want \"%s\"", _i, err, bad[_i].msg);
}
END_TEST

START_TEST(test_limits)
{
	static char text[CONF_MAX_LISTENERS * 48 + 4096];
	size_t n = 0;
	int i;

	/* an over-long line */
	memset(text, 'a', CONF_LINE_MAX + 1);
	text[CONF_LINE_MAX + 1] = '\0';
	ck_assert_int_eq(parse(text), -1);
	ck_assert_ptr_nonnull(strstr(err, "line longer than"));
	/* exactly CONF_LINE_MAX is fine if it is a comment */
	text[0] = '#';
	text[CONF_LINE_MAX] = '\0';
	ck_assert_int_eq(parse(text), 0);
	/* an embedded NUL */
	ck_assert_int_eq(
		conf_parse("a\0b = 1\n", 8, "t", &conf, err, sizeof(err)), -1);
	ck_assert_ptr_nonnull(strstr(err, "NUL"));
	/* one listener too many */
	for (i = 0; i <= CONF_MAX_LISTENERS; i++)
		n += (size_t)snprintf(text + n, sizeof(text) - n,
				      "[listener l%d]\naddress = *:%d\n", i,
				      2000 + i);
	ck_assert_int_eq(parse(text), -1);
	ck_assert_ptr_nonnull(strstr(err, "more than 64 listeners"));
	/* no trailing newline */
	ck_assert_int_eq(parse("markers = yes"), 0);
	ck_assert(conf.policy.markers);
}
END_TEST

/* The connection limits in force from a descriptor limit. */
START_TEST(test_conn_limits)
{
	/* defaults: everything but the reserve, a quarter half-open, an
	 * eighth kept for outgoing connects */
	ck_assert_int_eq(parse(""), 0);
	ck_assert_uint_eq(conf_limits(&conf, 20000, 256), 0);
	ck_assert_uint_eq(conf.lim.max_conns, 19744);
	ck_assert_uint_eq(conf.lim.halfopen_max, 4936);
	ck_assert_uint_eq(conf.lim.conn_reserve, 2468);
	ck_assert_uint_eq(conf.halfopen_per_source, 256);
	/* no limit known: the cap */
	ck_assert_uint_eq(conf_limits(&conf, 0, 256), 0);
	ck_assert_uint_eq(conf.lim.max_conns, CONF_MAX_CONNS_AUTO);
	/* a tiny limit: half of it */
	ck_assert_uint_eq(conf_limits(&conf, 300, 256), 0);
	ck_assert_uint_eq(conf.lim.max_conns, 150);
	/* configured values stand where they fit */
	ck_assert_int_eq(parse("max_conns = 1000\nhalfopen_max = 10\n"
			       "halfopen_per_source = 3\nconn_reserve = 7\n"),
			 0);
	ck_assert_uint_eq(conf_limits(&conf, 20000, 256), 0);
	ck_assert_uint_eq(conf.lim.max_conns, 1000);
	ck_assert_uint_eq(conf.lim.halfopen_max, 10);
	ck_assert_uint_eq(conf.halfopen_per_source, 3);
	ck_assert_uint_eq(conf.lim.conn_reserve, 7);
	/* and are lowered where they do not */
	ck_assert_uint_eq(conf_limits(&conf, 600, 256), 1000);
	ck_assert_uint_eq(conf.lim.max_conns, 344);
	/* out of range */
	ck_assert_int_eq(parse("halfopen_per_source = 0\n"), -1);
	ck_assert_int_eq(parse("busy_poll_us = 100001\n"), -1);
	/* busy polling: off unless asked for, up to 100 ms */
	ck_assert_int_eq(parse(""), 0);
	ck_assert_uint_eq(conf.busy_poll_us, 0);
	ck_assert_int_eq(parse("busy_poll_us = 100000\n"), 0);
	ck_assert_uint_eq(conf.busy_poll_us, CONF_BUSY_POLL_MAX);
	/* adaptive polling: on, up to 200 us, 0 turns it off */
	ck_assert_int_eq(parse(""), 0);
	ck_assert_uint_eq(conf.adaptive_poll_us, 200);
	ck_assert_int_eq(parse("adaptive_poll_us = 0\n"), 0);
	ck_assert_uint_eq(conf.adaptive_poll_us, 0);
	ck_assert_int_eq(parse("adaptive_poll_us = 100000\n"), 0);
	ck_assert_uint_eq(conf.adaptive_poll_us, CONF_BUSY_POLL_MAX);
	ck_assert_int_eq(parse("adaptive_poll_us = 100001\n"), -1);
	ck_assert_int_eq(parse("adaptive_poll_us = -1\n"), -1);
	ck_assert_int_eq(parse("conn_reserve = 1048577\n"), -1);
}
END_TEST

START_TEST(test_load)
{
	char path[] = "/tmp/check_conf.XXXXXX";
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "rev0 = permissive\n", 18), 18);
	close(fd);
	ck_assert_int_eq(conf_load(path, &conf, err, sizeof(err)), 0);
	ck_assert_int_eq(conf.policy.rev0, CONF_REV0_PERMISSIVE);
	unlink(path);
	ck_assert_int_eq(conf_load(path, &conf, err, sizeof(err)), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "No such file"));
}
END_TEST

static Suite *conf_suite(void)
{
	Suite *s = suite_create("conf");

	add_tcase(s, "defaults", test_defaults);
	add_tcase(s, "full_file", test_full_file);
	add_tcase(s, "sctp_keys", test_sctp_keys);
	add_loop_tcase(s, "errors", test_errors, ARRAY_SIZE(bad));
	add_tcase(s, "limits", test_limits);
	add_tcase(s, "conn_limits", test_conn_limits);
	add_tcase(s, "load", test_load);
	return s;
}

TEST_MAIN(conf_suite)
