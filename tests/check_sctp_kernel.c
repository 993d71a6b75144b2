/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/sctp_stack.h over the kernel's SCTP (sctp_kernel.c) on
 * loopback, in one process: plain SCTP, and UDP encapsulation (RFC 6951)
 * through the kernel's net.sctp.udp_port when it is set.  Peers that
 * break RFC 5043 §5.1 / §7.1 are plain kernel sockets made here.  On a
 * kernel without SCTP only the startup message is checked, and the
 * program exits 77 (SKIP) saying so; the interop suite runs it in its
 * guest (tests/interop/, case sctp-kernel-check).
 */
#include <errno.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdint.h>
#include <linux/sctp.h>
#include <unistd.h>

#include "common.h"

#include "log.h"
#include "sctp_ss.h"
#include "sctp_stack.h"

#define NO_SCTP "the kernel has no SCTP; load sctp or use sctp_stack = usrsctp"

struct side {
	struct sctp_sock *s;
	int up, down, msgs, writable;
	struct sctp_assoc_info info;
	char why[160];
	uint16_t stream;
	uint32_t ppid;
	bool unordered;
	uint8_t buf[2048];
	size_t len;
	size_t full_len; /* of the last message */
};

static struct event_base *base;
static struct side srv, cli;
static struct sctp_sock *lsock;
static struct sockaddr_in laddr;
static uint16_t udp_port; /* 0: plain SCTP */

static void cb_up(void *arg, struct sctp_sock *s,
		  const struct sctp_assoc_info *info)
{
	struct side *d = arg;

	(void)s;
	d->up++;
	d->info = *info;
}

static void cb_msg(void *arg, struct sctp_sock *s, uint16_t stream,
		   uint32_t ppid, bool unordered, const uint8_t *buf,
		   size_t len)
{
	struct side *d = arg;

	(void)s;
	d->msgs++;
	d->stream = stream;
	d->ppid = ppid;
	d->unordered = unordered;
	d->full_len = len;
	d->len = len < sizeof(d->buf) ? len : sizeof(d->buf);
	memcpy(d->buf, buf, d->len);
}

static void cb_writable(void *arg, struct sctp_sock *s)
{
	(void)s;
	((struct side *)arg)->writable++;
}

static void cb_down(void *arg, struct sctp_sock *s, const char *why)
{
	struct side *d = arg;

	(void)s;
	d->down++;
	snprintf(d->why, sizeof(d->why), "%s", why);
}

static const struct sctp_cb side_cb = {
	.up = cb_up,
	.msg = cb_msg,
	.writable = cb_writable,
	.down = cb_down,
};

static void cb_accept(void *arg, struct sctp_sock *l, struct sctp_sock *s)
{
	(void)arg;
	(void)l;
	ck_assert_ptr_null(srv.s); /* one association per test */
	srv.s = s;
	sctp_stack_set_cb(s, &side_cb, &srv);
}

static const struct sctp_cb listen_cb = { .accept = cb_accept };

/* Run the loop until *flag is non-zero or 5 s pass. */
static int run_until(const int *flag)
{
	int i;

	for (i = 0; i < 500 && !*flag; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return *flag;
}

/* The kernel's net.sctp.udp_port, -1 when it has none. */
static long sysctl_udp_port(void)
{
	char buf[16] = "";
	int fd = open("/proc/sys/net/sctp/udp_port", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	return n > 0 ? strtol(buf, NULL, 10) : -1;
}

/* Start the kernel stack and a listener on 127.0.0.1 (port in laddr). */
static void start(unsigned int adapt_wait_ms)
{
	struct sctp_stack_conf c;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char err[256];

	log_init(LOG_TO_STDERR, false, "check_sctp_kernel");
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	sctp_stack_defaults(&c);
	c.kind = SCTP_STACK_KERNEL;
	c.udp_port = udp_port;
	c.adapt_wait_ms = adapt_wait_ms;
	ck_assert_msg(sctp_stack_init(base, &c, err, sizeof(err)) == 0, "%s",
		      err);
	memset(&laddr, 0, sizeof(laddr));
	laddr.sin_family = AF_INET;
	laddr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lsock = sctp_stack_listen((struct sockaddr *)&laddr, sizeof(laddr),
				  &listen_cb, NULL);
	ck_assert_ptr_nonnull(lsock);
	ck_assert_int_eq(sctp_stack_local_addr(lsock, &ss, &sl), 0);
	laddr.sin_port = ((struct sockaddr_in *)&ss)->sin_port;
	ck_assert_uint_ne(laddr.sin_port, 0);
}

static void stop(void)
{
	if (srv.s)
		sctp_stack_close(srv.s, true);
	if (cli.s)
		sctp_stack_close(cli.s, true);
	sctp_stack_close(lsock, false);
	sctp_stack_fini();
	event_base_free(base);
}

/* An association both ways: RFC 5043 §5.1 indications, §8 streams,
 * §5 unordered messages with PPID 16/17, §9 no fragmentation, then a
 * graceful end; _i 1: over UDP encapsulation (RFC 6951). */
START_TEST(test_assoc)
{
	static const char seg[] = "a DDP segment";
	static const char ctl[] = "\x00\x00\x00\x01 session control";
	static uint8_t big[70000];
	long sp = sysctl_udp_port();

	if (_i == 1) {
		/* main() adds this loop only when the sysctl is set */
		ck_assert_int_gt(sp, 0);
		udp_port = (uint16_t)sp;
	} else {
		udp_port = 0;
	}
	start(SCTP_ADAPT_WAIT_MS);
	cli.s = sctp_stack_connect((struct sockaddr *)&laddr, sizeof(laddr), 0,
				   &side_cb, &cli);
	ck_assert_ptr_nonnull(cli.s);
	ck_assert(run_until(&cli.up));
	ck_assert(run_until(&srv.up));
	ck_assert_int_eq(cli.down + srv.down, 0);
	ck_assert_uint_eq(cli.info.peer_adapt, SCTP_ADAPT_IND_DDP);
	ck_assert_uint_eq(srv.info.peer_adapt, SCTP_ADAPT_IND_DDP);
	ck_assert_uint_eq(cli.info.streams, SCTP_DEFAULT_STREAMS);
	ck_assert_uint_eq(srv.info.streams, SCTP_DEFAULT_STREAMS);
	ck_assert_uint_eq(cli.info.in_streams, cli.info.out_streams);
	ck_assert_uint_ge(cli.info.maxseg, SCTP_DDP_SEG_MIN);
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		ck_assert_int_eq(sctp_stack_peer_addr(cli.s, &ss, &sl), 0);
		ck_assert_uint_eq(((struct sockaddr_in *)&ss)->sin_port,
				  laddr.sin_port);
		sl = sizeof(ss);
		ck_assert_int_eq(sctp_stack_local_addr(cli.s, &ss, &sl), 0);
		ck_assert_int_eq(ss.ss_family, AF_INET);
	}

	ck_assert_int_eq(sctp_stack_send(cli.s, 3, 16, seg, sizeof(seg)), 0);
	ck_assert(run_until(&srv.msgs));
	ck_assert_uint_eq(srv.stream, 3);
	ck_assert_uint_eq(srv.ppid, 16);
	ck_assert(srv.unordered);
	ck_assert_uint_eq(srv.len, sizeof(seg));
	ck_assert_mem_eq(srv.buf, seg, sizeof(seg));

	ck_assert_int_eq(sctp_stack_send(srv.s, 15, 17, ctl, sizeof(ctl)), 0);
	ck_assert(run_until(&cli.msgs));
	ck_assert_uint_eq(cli.stream, 15);
	ck_assert_uint_eq(cli.ppid, 17);
	ck_assert(cli.unordered);
	ck_assert_mem_eq(cli.buf, ctl, sizeof(ctl));

	/* §9: over the segment size is refused, never fragmented; the
	 * segment size itself goes out */
	memset(big, 0xab, sizeof(big));
	errno = 0;
	ck_assert_int_eq(
		sctp_stack_send(cli.s, 0, 16, big, cli.info.maxseg + 1), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_int_eq(sctp_stack_send(cli.s, 0, 16, big, cli.info.maxseg),
			 0);
	srv.msgs = 0;
	ck_assert(run_until(&srv.msgs));
	ck_assert_uint_eq(srv.len, sizeof(srv.buf) < cli.info.maxseg ?
					   sizeof(srv.buf) :
					   cli.info.maxseg);
	errno = 0;
	ck_assert_int_eq(
		sctp_stack_send(cli.s, SCTP_DEFAULT_STREAMS, 16, seg, 4), -1);
	ck_assert_int_eq(errno, EINVAL);

	/* a graceful close ends the peer's association */
	sctp_stack_close(cli.s, false);
	cli.s = NULL;
	ck_assert(run_until(&srv.down));
	errno = 0;
	ck_assert_int_eq(sctp_stack_send(srv.s, 0, 16, seg, 4), -1);
	ck_assert_int_eq(errno, ENOTCONN);
	stop();
}
END_TEST

/* A plain kernel socket connected to the listener (blocking: the
 * kernel does the handshake); adapt 0: no indication sent. */
static int raw_peer(uint32_t adapt)
{
	int fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);

	ck_assert_int_ge(fd, 0);
	if (adapt) {
		struct sctp_setadaptation ad = { .ssb_adaptation_ind = adapt };

		ck_assert_int_eq(setsockopt(fd, IPPROTO_SCTP,
					    SCTP_ADAPTATION_LAYER, &ad,
					    sizeof(ad)),
				 0);
	}
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&laddr, sizeof(laddr)),
			 0);
	return fd;
}

/* RFC 5043 §5.1 / §7.1: once the owner closes the aborted socket (as
 * iwcmd does at once), even gracefully, its ABORT reaches the raw peer,
 * whose association is gone (getsockopt fails) or closed.  Linux sends
 * no ABORT on a one-to-one socket before its close (sctp_kernel.c). */
static void wait_aborted(int fd)
{
	struct sctp_status st;
	socklen_t len;
	int i, rc = 0;

	for (i = 0; i < 500; i++) {
		memset(&st, 0, sizeof(st));
		len = sizeof(st);
		rc = getsockopt(fd, IPPROTO_SCTP, SCTP_STATUS, &st, &len);
		if (rc < 0 || st.sstat_state == SCTP_CLOSED)
			break;
		usleep(10000);
	}
	ck_assert_msg(rc < 0 || st.sstat_state == SCTP_CLOSED,
		      "the raw peer never saw the ABORT (state %d)",
		      st.sstat_state);
}

/* RFC 5043 §5.1: a peer without the indication is aborted, by the
 * timer (_i 0) or by its first data (_i 1). */
START_TEST(test_no_indication)
{
	int fd;

	udp_port = 0;
	start(_i == 1 ? 3000 : 200);
	fd = raw_peer(0);
	if (_i == 1)
		ck_assert_int_eq(write(fd, "xxxx", 4), 4);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.up, 0);
	ck_assert_msg(strstr(srv.why, "RFC 5043 §5.1") != NULL, "%s", srv.why);
	if (_i == 1)
		ck_assert_msg(strstr(srv.why, "data before") != NULL, "%s",
			      srv.why);
	else
		ck_assert_msg(strstr(srv.why, "no Adaptation") != NULL, "%s",
			      srv.why);
	sctp_stack_close(srv.s, false);
	srv.s = NULL;
	wait_aborted(fd);
	close(fd);
	stop();
}
END_TEST

/* RFC 5043 §7.1: another adaptation code point is refused. */
START_TEST(test_wrong_indication)
{
	int fd;

	udp_port = 0;
	start(SCTP_ADAPT_WAIT_MS);
	fd = raw_peer(0x2);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.up, 0);
	ck_assert_msg(strstr(srv.why, "0x00000002 is not DDP") != NULL, "%s",
		      srv.why);
	sctp_stack_close(srv.s, false);
	srv.s = NULL;
	wait_aborted(fd);
	close(fd);
	stop();
}
END_TEST

/* A message up to SCTP_RX_MAX is taken whole; one over it cannot be:
 * the association is aborted. */
START_TEST(test_oversized)
{
	static uint8_t big[SCTP_RX_MAX + 4096];
	struct sctp_setadaptation ad = { .ssb_adaptation_ind =
						 SCTP_ADAPT_IND_DDP };
	int fd, sb = 4 * (int)sizeof(big);

	udp_port = 0;
	start(SCTP_ADAPT_WAIT_MS);
	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(setsockopt(fd, IPPROTO_SCTP, SCTP_ADAPTATION_LAYER,
				    &ad, sizeof(ad)),
			 0);
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sb, sizeof(sb));
	ck_assert_int_eq(connect(fd, (struct sockaddr *)&laddr, sizeof(laddr)),
			 0);
	ck_assert(run_until(&srv.up));
	memset(big, 0x5a, sizeof(big));
	/* one just under SCTP_RX_MAX comes whole (in many packets) */
	ck_assert_int_eq(write(fd, big, SCTP_RX_MAX - 16),
			 (ssize_t)SCTP_RX_MAX - 16);
	ck_assert(run_until(&srv.msgs));
	ck_assert_uint_eq(srv.full_len, SCTP_RX_MAX - 16);
	srv.msgs = 0;
	ck_assert_int_eq(write(fd, big, sizeof(big)), (ssize_t)sizeof(big));
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.msgs, 0);
	ck_assert_msg(strstr(srv.why, "over 64 KiB") != NULL, "%s", srv.why);
	close(fd);
	stop();
}
END_TEST

/* Nobody listens: the association fails and is reported down. */
START_TEST(test_refused)
{
	struct sockaddr_in dst;

	udp_port = 0;
	start(SCTP_ADAPT_WAIT_MS);
	dst = laddr;
	dst.sin_port = htons(ntohs(laddr.sin_port) ^ 0x4000);
	errno = 0;
	cli.s = sctp_stack_connect((struct sockaddr *)&dst, sizeof(dst), 0,
				   &side_cb, &cli);
	if (!cli.s) {
		ck_assert_msg(errno == ECONNREFUSED, "%s", strerror(errno));
	} else {
		ck_assert(run_until(&cli.down));
		ck_assert_int_eq(cli.up, 0);
	}
	stop();
}
END_TEST

/* RFC 6951: an encapsulation port the kernel does not receive on is
 * refused, naming the sysctl. */
START_TEST(test_udp_port_mismatch)
{
	struct sctp_stack_conf c;
	char err[256] = "";
	long sp = sysctl_udp_port();

	log_init(LOG_TO_STDERR, false, "check_sctp_kernel");
	base = event_base_new();
	sctp_stack_defaults(&c);
	c.kind = SCTP_STACK_KERNEL;
	c.udp_port = sp == 9 ? 10 : 9;
	ck_assert_int_eq(sctp_stack_init(base, &c, err, sizeof(err)), -1);
	ck_assert(!sctp_stack_running());
	if (sp < 0)
		ck_assert_msg(strstr(err, "no SCTP UDP encapsulation") != NULL,
			      "%s", err);
	else
		ck_assert_msg(strstr(err, "net.sctp.udp_port") != NULL, "%s",
			      err);
	event_base_free(base);
}
END_TEST

static Suite *sctp_kernel_suite(void)
{
	Suite *s = suite_create("sctp_kernel");
	TCase *tc;

	/* with the kernel's encapsulation port set, over it too */
	add_loop_tcase(s, "assoc", test_assoc, sysctl_udp_port() > 0 ? 2 : 1);
	tc = tcase_create("no_indication");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_no_indication, 0, 2);
	suite_add_tcase(s, tc);
	add_tcase(s, "wrong_indication", test_wrong_indication);
	add_tcase(s, "oversized", test_oversized);
	add_tcase(s, "refused", test_refused);
	add_tcase(s, "udp_port_mismatch", test_udp_port_mismatch);
	return s;
}

/* Without SCTP in the kernel: the message iwcmd gives, then SKIP. */
static int no_sctp(int e)
{
	struct sctp_stack_conf c;
	char err[256] = "";

	log_init(LOG_TO_STDERR, false, "check_sctp_kernel");
	base = event_base_new();
	sctp_stack_defaults(&c);
	c.kind = SCTP_STACK_KERNEL;
	if (sctp_stack_init(base, &c, err, sizeof(err)) != -1 ||
	    !strstr(err, NO_SCTP) || sctp_stack_running()) {
		fprintf(stderr, "FAIL: sctp_stack_init: '%s'\n", err);
		return EXIT_FAILURE;
	}
	event_base_free(base);
	printf("SKIP: %s (socket: %s); the interop suite runs these tests "
	       "in its guest\n",
	       NO_SCTP, strerror(e));
	return 77;
}

int main(void)
{
	SRunner *sr;
	int fd, nf;

	fd = socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP);
	if (fd < 0)
		return no_sctp(errno);
	close(fd);
	if (sysctl_udp_port() > 0)
		printf("net.sctp.udp_port is %ld: over UDP encapsulation "
		       "too\n",
		       sysctl_udp_port());
	else
		printf("net.sctp.udp_port is not set: plain SCTP only\n");
	sr = srunner_create(sctp_kernel_suite());
	srunner_run_all(sr, CK_NORMAL);
	nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
