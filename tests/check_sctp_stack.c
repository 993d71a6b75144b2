/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/sctp.h over usrsctp on loopback, in one process: the stack
 * connects to its own listener through its own UDP encapsulation port.
 * Check forks each test, so each starts usrsctp afresh.  usrsctp runs
 * without threads (usrsctp_init_nothreads()): everything happens in the
 * loop this test runs.  Peers that break RFC 5043 §5.1 / §7.1 are plain
 * usrsctp sockets of the same stack, and a UDP socket of the test's own
 * relays the stack's packets to inject bad ones (test_drops).
 */
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <dirent.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

#include "common.h"
#include "udp_port.h"

#include "log.h"
#include "sctp_assoc.h"
#include "sctp_ss.h"
#include "sctp_stack.h"
#include "sctp_usrsctp_int.h"

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
};

static struct event_base *base;
static struct side srv, cli;

/* Linked with -Wl,--wrap=usrsctp_get_events: how often the loop asks
 * a socket's readiness (test_idle_assocs). */
int __real_usrsctp_get_events(struct socket *so);
int __wrap_usrsctp_get_events(struct socket *so);
static unsigned long get_events_calls;

int __wrap_usrsctp_get_events(struct socket *so)
{
	get_events_calls++;
	return __real_usrsctp_get_events(so);
}

static struct sctp_sock *lsock;

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

static uint16_t port;
static struct sockaddr_in laddr;

/* Start the stack and a listener on 127.0.0.1 (port in laddr). */
static void start(unsigned int adapt_wait_ms)
{
	struct sctp_stack_conf c;
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char err[256];

	log_init(LOG_TO_STDERR, false, "check_sctp_stack");
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	base = event_base_new();
	ck_assert_ptr_nonnull(base);
	sctp_stack_defaults(&c);
	port = test_free_udp_port();
	ck_assert_uint_ne(port, 0);
	c.udp_port = port;
	c.adapt_wait_ms = adapt_wait_ms;
	ck_assert_msg(sctp_stack_init(base, &c, err, sizeof(err)) == 0, "%s",
		      err);
	ck_assert(sctp_stack_running());
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

/* The encapsulation port taken by someone else fails clearly. */
START_TEST(test_port_taken)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sctp_stack_conf c;
	socklen_t len = sizeof(sin);
	char err[256] = "";
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	log_init(LOG_TO_STDERR, false, "check_sctp_stack");
	base = event_base_new();
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&sin, &len), 0);
	sctp_stack_defaults(&c);
	c.udp_port = ntohs(sin.sin_port);
	ck_assert_int_eq(sctp_stack_init(base, &c, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "sctp_udp_port") != NULL, "%s", err);
	ck_assert(!sctp_stack_running());
	ck_assert_ptr_null(sctp_stack_listen((struct sockaddr *)&sin, len,
					     &listen_cb, NULL));
	/* the kernel stack is not built in here */
	c.kind = SCTP_STACK_KERNEL;
	c.udp_port = 0;
	ck_assert_int_eq(sctp_stack_init(base, &c, err, sizeof(err)), -1);
	ck_assert_msg(strstr(err, "kernel") != NULL, "%s", err);
	close(fd);
	event_base_free(base);
}
END_TEST

/* An association both ways: RFC 5043 §5.1 indications, §8 streams,
 * §5 unordered messages with PPID 16/17 on one stream, §9 no
 * fragmentation, then a graceful end. */
START_TEST(test_assoc)
{
	static const char seg[] = "a DDP segment";
	static const char ctl[] = "\x00\x00\x00\x01 session control";
	uint8_t big[70000];

	start(SCTP_ADAPT_WAIT_MS);
	cli.s = sctp_stack_connect((struct sockaddr *)&laddr, sizeof(laddr),
				   port, &side_cb, &cli);
	ck_assert_ptr_nonnull(cli.s);
	ck_assert(run_until(&cli.up));
	ck_assert(run_until(&srv.up));
	ck_assert_int_eq(cli.down + srv.down, 0);
	ck_assert_uint_eq(cli.info.peer_adapt, 1);
	ck_assert_uint_eq(srv.info.peer_adapt, 1);
	ck_assert_uint_eq(cli.info.streams, SCTP_DEFAULT_STREAMS);
	ck_assert_uint_eq(srv.info.streams, SCTP_DEFAULT_STREAMS);
	ck_assert_uint_eq(cli.info.in_streams, cli.info.out_streams);
	ck_assert_uint_ge(cli.info.maxseg, SCTP_DDP_SEG_MIN);
	/* of the host's addresses, the one towards a loopback peer */
	{
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);

		ck_assert_int_eq(sctp_stack_local_addr(cli.s, &ss, &sl), 0);
		ck_assert_int_eq(ss.ss_family, AF_INET);
		ck_assert_uint_eq(
			ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr),
			INADDR_LOOPBACK);
		sl = sizeof(ss);
		ck_assert_int_eq(sctp_stack_peer_addr(cli.s, &ss, &sl), 0);
		ck_assert_uint_eq(((struct sockaddr_in *)&ss)->sin_port,
				  laddr.sin_port);
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

	/* §9: over the segment size is refused, never fragmented */
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
	/* a stream the association does not have */
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

/* Connect cli to the listener and wait until both ends are up. */
static void both_up(void)
{
	memset(&srv, 0, sizeof(srv));
	memset(&cli, 0, sizeof(cli));
	cli.s = sctp_stack_connect((struct sockaddr *)&laddr, sizeof(laddr),
				   port, &side_cb, &cli);
	ck_assert_ptr_nonnull(cli.s);
	ck_assert(run_until(&cli.up));
	ck_assert(run_until(&srv.up));
}

/* Run the loop until the stack holds n sockets or 5 s pass. */
static bool run_until_sockets(unsigned int n)
{
	int i;

	for (i = 0; i < 500 && sctp_stack_sockets() != n; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return sctp_stack_sockets() == n;
}

/*
 * A graceful close gives the socket back at once: usrsctp, on this
 * thread, completes the SHUTDOWN of an association whose socket is gone.
 * The peer is paused with the window full, so the SHUTDOWN waits for
 * what is queued (RFC 4960 §9.2); once it reads, every message arrives,
 * then the SHUTDOWN.
 */
START_TEST(test_close_graceful)
{
	static uint8_t seg[1024];
	int sent = 0, i;

	start(SCTP_ADAPT_WAIT_MS);
	both_up();
	ck_assert_uint_eq(sctp_stack_sockets(), 3); /* listener, both ends */
	sctp_stack_pause(srv.s, true);
	while (sent < 100000 &&
	       sctp_stack_send(cli.s, 1, 16, seg, sizeof(seg)) == 0)
		sent++;
	ck_assert_int_eq(errno, EAGAIN);
	sctp_stack_close(cli.s, false);
	cli.s = NULL;
	ck_assert_uint_eq(sctp_stack_sockets(), 2);
	for (i = 0; i < 20; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	ck_assert_int_eq(srv.down, 0);
	sctp_stack_pause(srv.s, false);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.msgs, sent);
	ck_assert_msg(strstr(srv.why, "shut") != NULL, "%s", srv.why);
	sctp_stack_close(srv.s, true);
	srv.s = NULL;
	ck_assert_uint_eq(sctp_stack_sockets(), 1);
	ck_assert_int_eq(cli.down, 0);
	stop();
}
END_TEST

/*
 * A close while the association is still being set up (its INIT goes to
 * a UDP port that never answers), gracefully or not: the socket goes at
 * once, and no callback follows.
 */
START_TEST(test_close_connecting)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sin);
	int mute = socket(AF_INET, SOCK_DGRAM, 0);

	ck_assert_int_ge(mute, 0);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(mute, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(getsockname(mute, (struct sockaddr *)&sin, &sl), 0);
	start(SCTP_ADAPT_WAIT_MS);
	cli.s = sctp_stack_connect((struct sockaddr *)&laddr, sizeof(laddr),
				   ntohs(sin.sin_port), &side_cb, &cli);
	ck_assert_ptr_nonnull(cli.s);
	ck_assert_uint_eq(sctp_stack_sockets(), 2);
	sctp_stack_close(cli.s, _i == 1);
	cli.s = NULL;
	ck_assert_uint_eq(sctp_stack_sockets(), 1);
	for (int i = 0; i < 20; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	ck_assert_int_eq(cli.up + cli.down, 0);
	close(mute);
	stop();
}
END_TEST

/* An abortive close reaches the peer as an ABORT (RFC 4960 §9.1) at
 * once: its association is lost, and no callback reaches the closed
 * end. */
START_TEST(test_close_abort)
{
	start(SCTP_ADAPT_WAIT_MS);
	both_up();
	sctp_stack_close(cli.s, true);
	cli.s = NULL;
	ck_assert(run_until(&srv.down));
	ck_assert_msg(strstr(srv.why, "lost") != NULL, "%s", srv.why);
	ck_assert_int_eq(cli.down, 0);
	stop();
}
END_TEST

/*
 * Both ends closed at once, one gracefully and one with an ABORT, again
 * and again in one stack: the SHUTDOWN and the ABORT cross while the
 * sockets close.  Under ASan a double free or leak fails the run.
 */
START_TEST(test_close_crossing)
{
	int i;

	start(SCTP_ADAPT_WAIT_MS);
	for (i = 0; i < 20; i++) {
		both_up();
		sctp_stack_close(i & 1 ? cli.s : srv.s, false);
		sctp_stack_close(i & 1 ? srv.s : cli.s, true);
		cli.s = srv.s = NULL;
		/* both associations end and both sockets go */
		ck_assert(run_until_sockets(1));
		ck_assert_int_eq(cli.down + srv.down, 0);
	}
	stop();
}
END_TEST

/* The loop for 10 ms. */
static void run_a_little(void)
{
	struct timeval tv = { 0, 10000 };

	event_base_loopexit(base, &tv);
	event_base_dispatch(base);
}

/* A raw peer's association state (SCTP_STATUS), SCTP_CLOSED when gone. */
static int raw_state(struct socket *so)
{
	struct sctp_status st;
	socklen_t len = sizeof(st);

	memset(&st, 0, sizeof(st));
	if (usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st, &len) < 0)
		return SCTP_CLOSED;
	return st.sstat_state;
}

/*
 * A plain usrsctp socket of the same stack, an AF_CONN one towards the
 * listener through the stack's own UDP port; adapt 0: no indication
 * sent.  Its association comes up while the loop runs.
 */
static struct socket *raw_peer(uint32_t adapt, bool send_data)
{
	struct socket *so = usrsctp_socket(AF_CONN, SOCK_STREAM, IPPROTO_SCTP,
					   NULL, NULL, 0, NULL);
	struct sockaddr_conn sc;
	int i;

	ck_assert_ptr_nonnull(so);
	ck_assert_int_eq(usrsctp_set_non_blocking(so, 1), 0);
	if (adapt) {
		struct sctp_setadaptation ad = { .ssb_adaptation_ind = adapt };

		ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP,
						    SCTP_ADAPTATION_LAYER, &ad,
						    sizeof(ad)),
				 0);
	}
	memset(&sc, 0, sizeof(sc));
	sc.sconn_family = AF_CONN;
	sc.sconn_port = laddr.sin_port;
	sc.sconn_addr = us_peer_get((struct sockaddr *)&laddr, port);
	ck_assert_ptr_nonnull(sc.sconn_addr);
	ck_assert(usrsctp_connect(so, (struct sockaddr *)&sc, sizeof(sc)) ==
			  0 ||
		  errno == EINPROGRESS);
	us_kick();
	for (i = 0; i < 500 && raw_state(so) != SCTP_ESTABLISHED && !srv.down;
	     i++)
		run_a_little();
	if (send_data) {
		struct sctp_sndinfo si = { .snd_ppid = htonl(16) };

		ck_assert_int_eq(raw_state(so), SCTP_ESTABLISHED);
		ck_assert_int_ge(usrsctp_sendv(so, "xxxx", 4, NULL, 0, &si,
					       sizeof(si), SCTP_SENDV_SNDINFO,
					       0),
				 0);
		us_kick();
	}
	return so;
}

/* Wait until the raw peer has taken the stack's ABORT. */
static void wait_aborted(struct socket *so)
{
	int i;

	for (i = 0; i < 500 && raw_state(so) != SCTP_CLOSED; i++)
		run_a_little();
	ck_assert_msg(raw_state(so) == SCTP_CLOSED,
		      "the raw peer never saw the ABORT (state %d)",
		      raw_state(so));
}

/* RFC 5043 §5.1: a peer without the indication is aborted, by the
 * timer or by its first data, whichever comes first. */
START_TEST(test_no_indication)
{
	struct socket *so;

	start(200);
	so = raw_peer(0, _i == 1);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.up, 0);
	ck_assert_msg(strstr(srv.why, "RFC 5043 §5.1") != NULL, "%s", srv.why);
	if (_i == 1)
		ck_assert_msg(strstr(srv.why, "data before") != NULL, "%s",
			      srv.why);
	else
		ck_assert_msg(strstr(srv.why, "no Adaptation") != NULL, "%s",
			      srv.why);
	wait_aborted(so);
	usrsctp_close(so);
	stop();
}
END_TEST

/* RFC 5043 §7.1: another adaptation code point is refused. */
START_TEST(test_wrong_indication)
{
	struct socket *so;

	start(SCTP_ADAPT_WAIT_MS);
	so = raw_peer(0x2, false);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.up, 0);
	ck_assert_msg(strstr(srv.why, "0x00000002 is not DDP") != NULL, "%s",
		      srv.why);
	wait_aborted(so);
	usrsctp_close(so);
	stop();
}
END_TEST

/* The in-flight peers of test_close_listener_busy. */
#define BUSY_PEERS 8
static struct side busy[BUSY_PEERS];
static int busy_accepted;

static void cb_busy_accept(void *arg, struct sctp_sock *l, struct sctp_sock *s)
{
	(void)arg;
	(void)l;
	busy_accepted++;
	sctp_stack_close(s, true);
}

static const struct sctp_cb busy_listen_cb = { .accept = cb_busy_accept };

/* Sockets of busy[] not yet down. */
static int busy_live(void)
{
	int i, n = 0;

	for (i = 0; i < BUSY_PEERS; i++)
		n += busy[i].down == 0;
	return n;
}

/*
 * A listener closed while handshakes to it are in flight, some done and
 * accepted, some not: it goes at once, every peer in flight ends down
 * (an ABORT, or the INIT's retransmissions meeting none), and the same
 * port can be listened on again at once, its next peers the new
 * owner's.  Under ASan a double free or leak fails the run.
 */
START_TEST(test_close_listener_busy)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int round, i;

	start(SCTP_ADAPT_WAIT_MS);
	for (round = 0; round < 10; round++) {
		struct sockaddr_in la = laddr;
		struct sctp_sock *l, *again;

		la.sin_port = 0;
		l = sctp_stack_listen((struct sockaddr *)&la, sizeof(la),
				      &busy_listen_cb, NULL);
		ck_assert_ptr_nonnull(l);
		sl = sizeof(ss);
		ck_assert_int_eq(sctp_stack_local_addr(l, &ss, &sl), 0);
		la.sin_port = ((struct sockaddr_in *)&ss)->sin_port;
		memset(busy, 0, sizeof(busy));
		busy_accepted = 0;
		for (i = 0; i < BUSY_PEERS; i++) {
			busy[i].s = sctp_stack_connect((struct sockaddr *)&la,
						       sizeof(la), port,
						       &side_cb, &busy[i]);
			ck_assert_ptr_nonnull(busy[i].s);
		}
		/* half of the rounds: some handshakes done and accepted */
		if (round & 1) {
			struct timeval tv = { 0, 2000 };

			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
		sctp_stack_close(l, false);
		ck_assert_uint_eq(sctp_stack_sockets(), 1 + BUSY_PEERS);
		for (i = 0; i < 500 && busy_live(); i++)
			run_a_little();
		ck_assert_int_eq(busy_live(), 0);
		for (i = 0; i < BUSY_PEERS; i++)
			sctp_stack_close(busy[i].s, true);
		ck_assert_uint_eq(sctp_stack_sockets(), 1);
		/* its port, at once */
		again = sctp_stack_listen((struct sockaddr *)&la, sizeof(la),
					  &busy_listen_cb, NULL);
		ck_assert_msg(again != NULL, "listen again: %s",
			      strerror(errno));
		busy_accepted = 0;
		memset(&busy[0], 0, sizeof(busy[0]));
		busy[0].s = sctp_stack_connect((struct sockaddr *)&la,
					       sizeof(la), port, &side_cb,
					       &busy[0]);
		ck_assert_ptr_nonnull(busy[0].s);
		ck_assert(run_until(&busy_accepted));
		sctp_stack_close(busy[0].s, true);
		sctp_stack_close(again, false);
		ck_assert_uint_eq(sctp_stack_sockets(), 1);
	}
	stop();
}
END_TEST

/* Nobody listens: the association fails and is reported down. */
START_TEST(test_refused)
{
	struct sockaddr_in dst;

	start(SCTP_ADAPT_WAIT_MS);
	dst = laddr;
	dst.sin_port = htons(ntohs(laddr.sin_port) ^ 0x4000);
	errno = 0;
	cli.s = sctp_stack_connect((struct sockaddr *)&dst, sizeof(dst), port,
				   &side_cb, &cli);
	/* The refusal may come at once (the stack saw it while connecting,
	 * as in the ASan build) or later, as the association going down. */
	if (!cli.s) {
		ck_assert_msg(errno == ECONNREFUSED, "%s", strerror(errno));
	} else {
		ck_assert(run_until(&cli.down));
		ck_assert_int_eq(cli.up, 0);
	}
	stop();
}
END_TEST

/* The threads of this process (/proc/self/task). */
static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * usrsctp_init_nothreads(): the stack adds one thread to the process,
 * usrsctp's iterator (idle: it serves address changes and SCTP_SENDALL,
 * which iwcmd never asks for), whatever associations carry; no receive
 * or timer thread.
 */
START_TEST(test_threads)
{
	int before = threads();

	start(SCTP_ADAPT_WAIT_MS);
	ck_assert_int_eq(threads(), before + 1);
	both_up();
	ck_assert_int_eq(sctp_stack_send(cli.s, 0, 16, "x", 1), 0);
	ck_assert(run_until(&srv.msgs));
	ck_assert_int_eq(threads(), before + 1);
	stop();
	ck_assert_int_eq(threads(), before);
}
END_TEST

/* The test's relay (test_drops): what reaches it from the stack goes
 * back to the stack's UDP port; the last SCTP packet is kept. */
static int relay_fd;
static uint8_t relay_last[2048];
static size_t relay_last_len;
/* Packets the relay saw whose CRC32c usrsctp's own function refutes. */
static unsigned int relay_bad_crc;

/* Whether an SCTP packet's CRC32c is right (RFC 4960 §6.8), by
 * usrsctp_crc32c(): the stack sums with ISA-L instead. */
static bool relay_crc_ok(const uint8_t *pkt, size_t len)
{
	uint8_t copy[65536];
	uint32_t crc;

	if (len < 12 || len > sizeof(copy))
		return false;
	memcpy(copy, pkt, len);
	memset(copy + 8, 0, 4);
	crc = usrsctp_crc32c(copy, len);
	return !memcmp(&crc, pkt + 8, 4);
}

static void relay_read(evutil_socket_t fd, short what, void *arg)
{
	uint8_t buf[65536];
	struct sockaddr_in to = laddr;
	ssize_t n;

	(void)what;
	(void)arg;
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0) {
		if (!relay_crc_ok(buf, (size_t)n))
			relay_bad_crc++;
		if ((size_t)n <= sizeof(relay_last)) {
			memcpy(relay_last, buf, (size_t)n);
			relay_last_len = (size_t)n;
		}
		to.sin_port = htons(port);
		ck_assert_int_eq(sendto(fd, buf, (size_t)n, 0,
					(struct sockaddr *)&to, sizeof(to)),
				 n);
	}
}

/* Send len octets to the stack's UDP port from fd. */
static void inject(int fd, const void *buf, size_t len)
{
	struct sockaddr_in to = laddr;

	to.sin_port = htons(port);
	ck_assert_int_eq(sendto(fd, buf, len, 0, (struct sockaddr *)&to,
				sizeof(to)),
			 (ssize_t)len);
}

/*
 * Datagrams that are not SCTP, with a wrong CRC32c (RFC 4960 §6.8) or a
 * wrong Verification Tag (§8.5) reach the stack's UDP port, from a peer
 * it does not know and from one carrying a live association (the test's
 * relay): each is dropped and counted, and the association goes on.
 */
START_TEST(test_drops)
{
	struct sockaddr_in ra = { .sin_family = AF_INET };
	socklen_t rl = sizeof(ra);
	struct sctp_drops d0, d;
	struct event *ev;
	uint8_t pkt[2048];
	uint32_t crc, vtag;
	int other = socket(AF_INET, SOCK_DGRAM, 0);

	start(SCTP_ADAPT_WAIT_MS);
	ck_assert(sctp_stack_drops(&d0));
	relay_fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	ra.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(relay_fd, (struct sockaddr *)&ra, sizeof(ra)), 0);
	ck_assert_int_eq(getsockname(relay_fd, (struct sockaddr *)&ra, &rl), 0);
	ev = event_new(base, relay_fd, EV_READ | EV_PERSIST, relay_read, NULL);
	event_add(ev, NULL);
	/* both ends' packets through the relay */
	cli.s = sctp_stack_connect((struct sockaddr *)&laddr, sizeof(laddr),
				   ntohs(ra.sin_port), &side_cb, &cli);
	ck_assert_ptr_nonnull(cli.s);
	ck_assert(run_until(&cli.up));
	ck_assert(run_until(&srv.up));
	ck_assert_int_eq(sctp_stack_send(cli.s, 0, 16, "x", 1), 0);
	ck_assert(run_until(&srv.msgs));
	ck_assert_uint_ge(relay_last_len, 16);
	/* what the stack sent, summed by it, is right by usrsctp's sum */
	ck_assert_uint_eq(relay_bad_crc, 0);

	/* not SCTP: too short, from the relay and from a stranger */
	inject(relay_fd, "hello", 5);
	inject(other, "hi", 2);
	/* a wrong CRC32c, from both */
	memset(pkt, 0x5a, 64);
	inject(relay_fd, pkt, 64);
	inject(other, pkt, 64);
	/* a packet of the association with another Verification Tag and a
	 * right CRC32c */
	memcpy(pkt, relay_last, relay_last_len);
	memcpy(&vtag, pkt + 4, 4);
	vtag ^= 0x01020304;
	memcpy(pkt + 4, &vtag, 4);
	memset(pkt + 8, 0, 4);
	crc = usrsctp_crc32c(pkt, relay_last_len);
	memcpy(pkt + 8, &crc, 4);
	inject(relay_fd, pkt, relay_last_len);
	for (int i = 0; i < 10; i++)
		run_a_little();
	ck_assert(sctp_stack_drops(&d));
	ck_assert_uint_eq(d.not_sctp - d0.not_sctp, 2);
	ck_assert_uint_eq(d.bad_crc - d0.bad_crc, 2);
	ck_assert_uint_eq(d.bad_vtag - d0.bad_vtag, 1);
	/* the association goes on */
	srv.msgs = cli.msgs = 0;
	ck_assert_int_eq(sctp_stack_send(srv.s, 2, 16, "y", 1), 0);
	ck_assert(run_until(&cli.msgs));
	ck_assert_int_eq(cli.down + srv.down, 0);
	ck_assert_uint_eq(relay_bad_crc, 0);
	event_free(ev);
	close(relay_fd);
	close(other);
	stop();
}
END_TEST

/*
 * A packet costs the loop the sockets it names, not every socket the
 * stack holds: beside 100 idle associations (200 sockets), a message
 * each way asks few sockets' readiness.  Serving every socket on each
 * wake-up asked each of the 200 for every packet (over 20,000 calls
 * for these 50 round trips).
 */
#define IDLE_ASSOCS 100
#define IDLE_BATCH 8
#define IDLE_ROUNDS 50

/* Both ends of every idle association count here. */
static struct side idle;

static void idle_accept(void *arg, struct sctp_sock *l, struct sctp_sock *s)
{
	(void)arg;
	(void)l;
	sctp_stack_set_cb(s, &side_cb, &idle);
}

static const struct sctp_cb idle_listen_cb = { .accept = idle_accept };

/* Run the loop until idle.up reaches n or 5 s pass. */
static bool run_until_idle_up(int n)
{
	int i;

	for (i = 0; i < 500 && idle.up < n; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
	}
	return idle.up >= n;
}

START_TEST(test_idle_assocs)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct sockaddr_in ia = laddr;
	struct sctp_sock *il;
	unsigned long calls;
	uint8_t b = 0;
	int i;

	start(SCTP_ADAPT_WAIT_MS);
	ia = laddr;
	ia.sin_port = 0;
	il = sctp_stack_listen((struct sockaddr *)&ia, sizeof(ia),
			       &idle_listen_cb, NULL);
	ck_assert_ptr_nonnull(il);
	ck_assert_int_eq(sctp_stack_local_addr(il, &ss, &sl), 0);
	ia.sin_port = ((struct sockaddr_in *)&ss)->sin_port;
	/* in batches, under the listener's backlog */
	for (i = 0; i < IDLE_ASSOCS; i++) {
		ck_assert_ptr_nonnull(sctp_stack_connect((struct sockaddr *)&ia,
							 sizeof(ia), port,
							 &side_cb, &idle));
		if ((i + 1) % IDLE_BATCH == 0 || i + 1 == IDLE_ASSOCS)
			ck_assert_msg(run_until_idle_up(2 * (i + 1)),
				      "%d of %d ends up", idle.up, 2 * (i + 1));
	}
	both_up();
	ck_assert_uint_eq(sctp_stack_sockets(), 2 * IDLE_ASSOCS + 4);

	get_events_calls = 0;
	for (i = 0; i < IDLE_ROUNDS; i++) {
		srv.msgs = cli.msgs = 0;
		ck_assert_int_eq(sctp_stack_send(cli.s, 0, 16, &b, 1), 0);
		ck_assert(run_until(&srv.msgs));
		ck_assert_int_eq(sctp_stack_send(srv.s, 0, 16, &b, 1), 0);
		ck_assert(run_until(&cli.msgs));
	}
	calls = get_events_calls;
	printf("idle_assocs: %lu readiness checks for %d round trips\n", calls,
	       IDLE_ROUNDS);
	ck_assert_msg(calls <= 10 * IDLE_ROUNDS,
		      "%lu readiness checks for %d round trips beside %d "
		      "idle associations",
		      calls, IDLE_ROUNDS, IDLE_ASSOCS);
	ck_assert_int_eq(idle.down, 0);
	ck_assert_int_eq(cli.down + srv.down, 0);
	stop();
}
END_TEST

/* ---- the association table of both stacks (sctp_assoc.c) ---- */

static int as_aborts, as_stops, as_ups, as_downs, as_maxsegs;
static char as_why[160];

static void as_abort_rec(struct sctp_as *a)
{
	(void)a;
	as_aborts++;
}

static void as_stop_rec(struct sctp_as *a)
{
	(void)a;
	as_stops++;
}

static size_t as_maxseg_rec(struct sctp_as *a)
{
	(void)a;
	as_maxsegs++;
	return 1400;
}

static void as_up_rec(void *arg, struct sctp_sock *s,
		      const struct sctp_assoc_info *info)
{
	(void)arg;
	(void)s;
	(void)info;
	as_ups++;
}

static void as_down_rec(void *arg, struct sctp_sock *s, const char *why)
{
	(void)arg;
	(void)s;
	as_downs++;
	snprintf(as_why, sizeof(as_why), "%s", why);
}

static const struct sctp_as_ops as_rec_ops = { .abort = as_abort_rec,
					       .stop = as_stop_rec,
					       .maxseg = as_maxseg_rec };
static const struct sctp_cb as_rec_cb = { .up = as_up_rec,
					  .down = as_down_rec };

/* What each (state, event) pair must do, written out apart from the
 * table: the state after, and whether it delivers, aborts, reports down
 * or up. */
enum { X_IGNORE, X_DELIVER, X_DOWN, X_ABORT, X_WAIT, X_NOTE, X_UP };

static int as_expect(enum sctp_as_state st, enum sctp_as_event ev)
{
	bool live = st == SCTP_AS_CONNECTING || st == SCTP_AS_WAIT_ADAPT ||
		    st == SCTP_AS_UP;
	bool early = st == SCTP_AS_CONNECTING || st == SCTP_AS_WAIT_ADAPT;

	if (!live)
		return X_IGNORE;
	switch (ev) {
	case SCTP_AE_COMM_UP:
		return st == SCTP_AS_CONNECTING ? X_WAIT : X_IGNORE;
	case SCTP_AE_ADAPTATION:
		return st == SCTP_AS_CONNECTING ? X_NOTE :
		       st == SCTP_AS_WAIT_ADAPT ? X_UP :
						  X_IGNORE;
	case SCTP_AE_COMM_LOST:
	case SCTP_AE_SHUTDOWN_COMP:
	case SCTP_AE_CANT_STR_ASSOC:
	case SCTP_AE_SHUTDOWN:
		return X_DOWN;
	case SCTP_AE_RESTART:
	case SCTP_AE_TOO_BIG:
	case SCTP_AE_NO_RCVINFO:
		return X_ABORT;
	case SCTP_AE_ADAPT_TIMEOUT:
		return early ? X_ABORT : X_IGNORE;
	case SCTP_AE_DATA:
		return early ? X_ABORT : X_DELIVER;
	default:
		return -1;
	}
}

/* Every state x event of the table, with the peer's DDP indication. */
START_TEST(test_assoc_table)
{
	for (int st = 0; st < SCTP_AS_STATES; st++)
		for (int ev = 0; ev < SCTP_AE_EVENTS; ev++) {
			struct sctp_as a;
			struct sctp_as_ev e = { .ev = ev,
						.in_streams = 8,
						.out_streams = 6,
						.adapt = SCTP_ADAPT_IND_DDP };
			int x = as_expect(st, ev);
			bool d;

			memset(&a, 0, sizeof(a));
			a.ops = &as_rec_ops;
			a.cb = &as_rec_cb;
			a.state = st;
			/* WAIT_ADAPT: COMM_UP seen, no indication yet */
			as_aborts = as_stops = as_ups = as_downs = 0;
			as_maxsegs = 0;
			d = sctp_as_event(&a, &e);
			ck_assert_msg(x >= 0, "%s", sctp_as_event_names[ev]);
			ck_assert_msg(d == (x == X_DELIVER),
				      "%s %s: deliver %d",
				      sctp_as_state_names[st],
				      sctp_as_event_names[ev], d);
			ck_assert_msg(as_aborts == (x == X_ABORT),
				      "%s %s: %d aborts",
				      sctp_as_state_names[st],
				      sctp_as_event_names[ev], as_aborts);
			ck_assert_msg(as_downs == (x == X_ABORT || x == X_DOWN),
				      "%s %s: %d downs",
				      sctp_as_state_names[st],
				      sctp_as_event_names[ev], as_downs);
			ck_assert_int_eq(as_stops, as_downs);
			ck_assert_msg(as_ups == (x == X_UP), "%s %s: %d ups",
				      sctp_as_state_names[st],
				      sctp_as_event_names[ev], as_ups);
			switch (x) {
			case X_IGNORE:
			case X_DELIVER:
				ck_assert_int_eq(a.state, st);
				break;
			case X_DOWN:
			case X_ABORT:
				ck_assert_int_eq(a.state, SCTP_AS_DOWN);
				break;
			case X_WAIT:
				ck_assert_int_eq(a.state, SCTP_AS_WAIT_ADAPT);
				ck_assert_uint_eq(a.info.in_streams, 8);
				break;
			case X_NOTE:
				ck_assert_int_eq(a.state, SCTP_AS_CONNECTING);
				ck_assert(a.got_adapt);
				break;
			case X_UP:
				ck_assert_int_eq(a.state, SCTP_AS_UP);
				ck_assert_int_eq(as_maxsegs, 1);
				ck_assert_uint_eq(a.info.maxseg, 1400);
				break;
			}
		}
}
END_TEST

/* The sequences: COMM_UP then the indication (or the indication first),
 * RFC 5043 §8's stream count, §7.1's refusal, the timer armed by
 * COMM_UP, and a second down reported once. */
START_TEST(test_assoc_sequences)
{
	struct event_base *b = event_base_new();
	struct sctp_as a;
	struct sctp_as_ev up = { .ev = SCTP_AE_COMM_UP,
				 .in_streams = 8,
				 .out_streams = 6 };
	struct sctp_as_ev ind = { .ev = SCTP_AE_ADAPTATION,
				  .adapt = SCTP_ADAPT_IND_DDP };
	struct sctp_as_ev lost = { .ev = SCTP_AE_COMM_LOST };
	struct sctp_as_ev data = { .ev = SCTP_AE_DATA };

	for (int order = 0; order < 2; order++) {
		memset(&a, 0, sizeof(a));
		a.ops = &as_rec_ops;
		a.cb = &as_rec_cb;
		a.state = SCTP_AS_CONNECTING;
		a.adapt_wait_ms = 1000;
		a.adapt_timer = evtimer_new(b, (event_callback_fn)abort, NULL);
		as_ups = as_downs = as_aborts = 0;
		(void)sctp_as_event(&a, order ? &ind : &up);
		if (!order)
			ck_assert(evtimer_pending(a.adapt_timer, NULL));
		(void)sctp_as_event(&a, order ? &up : &ind);
		ck_assert_int_eq(a.state, SCTP_AS_UP);
		ck_assert(!evtimer_pending(a.adapt_timer, NULL));
		ck_assert_int_eq(as_ups, 1);
		ck_assert_uint_eq(a.info.streams, 6); /* min(8, 6) */
		ck_assert_uint_eq(a.info.peer_adapt, SCTP_ADAPT_IND_DDP);
		ck_assert(sctp_as_event(&a, &data));
		ck_assert_int_eq(sctp_as_send_check(&a, 5, 1400), 0);
		errno = 0;
		ck_assert_int_eq(sctp_as_send_check(&a, 6, 10), -1);
		ck_assert_int_eq(errno, EINVAL);
		ck_assert_int_eq(sctp_as_send_check(&a, 0, 1401), -1);
		ck_assert_int_eq(errno, EMSGSIZE);
		(void)sctp_as_event(&a, &lost);
		(void)sctp_as_event(&a, &lost);
		sctp_as_down(&a, "again");
		ck_assert_int_eq(as_downs, 1);
		ck_assert_str_eq(as_why, "association lost");
		ck_assert_int_eq(sctp_as_send_check(&a, 0, 1), -1);
		ck_assert_int_eq(errno, ENOTCONN);
		event_free(a.adapt_timer);
	}
	/* RFC 5043 §7.1: another code point is aborted */
	memset(&a, 0, sizeof(a));
	a.ops = &as_rec_ops;
	a.cb = &as_rec_cb;
	a.state = SCTP_AS_CONNECTING;
	as_ups = as_downs = as_aborts = 0;
	ind.adapt = 2;
	(void)sctp_as_event(&a, &up);
	(void)sctp_as_event(&a, &ind);
	ck_assert_int_eq(as_aborts, 1);
	ck_assert_int_eq(as_ups, 0);
	ck_assert_msg(strstr(as_why, "0x00000002 is not DDP") != NULL, "%s",
		      as_why);
	event_base_free(b);
}
END_TEST

/* sctp_addr_match(): the listener's and the kept socket's comparison. */
START_TEST(test_addr_match)
{
	struct sockaddr_storage a;
	struct sockaddr_in *a4 = (struct sockaddr_in *)&a, b4;
	struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&a, b6;

	memset(&a, 0, sizeof(a));
	a4->sin_family = AF_INET;
	a4->sin_port = htons(5000);
	a4->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	b4 = *a4;
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), false));
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));
	/* short, another port, another address, another family */
	ck_assert(!sctp_addr_match(&a, (struct sockaddr *)&b4, 8, true));
	b4.sin_port = htons(5001);
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));
	b4.sin_port = htons(5000);
	b4.sin_addr.s_addr = htonl(0x7f000002);
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));
	/* the wildcard takes it, only when asked */
	a4->sin_addr.s_addr = htonl(INADDR_ANY);
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));
	ck_assert(!sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4),
				   false));
	/* ... and not another port */
	b4.sin_port = htons(5001);
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));

	memset(&a, 0, sizeof(a));
	a6->sin6_family = AF_INET6;
	a6->sin6_port = htons(5000);
	a6->sin6_addr = in6addr_loopback;
	b6 = *a6;
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b4, sizeof(b4), true));
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b6), false));
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b4), true));
	/* a link-local address names one interface */
	a6->sin6_addr.s6_addr[0] = 0xfe;
	a6->sin6_addr.s6_addr[1] = 0x80;
	a6->sin6_scope_id = 2;
	b6 = *a6;
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b6), true));
	b6.sin6_scope_id = 3;
	ck_assert(
		!sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b6), true));
	a6->sin6_addr = in6addr_any;
	a6->sin6_scope_id = 0;
	ck_assert(
		sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b6), true));
	ck_assert(!sctp_addr_match(&a, (struct sockaddr *)&b6, sizeof(b6),
				   false));
}
END_TEST

/* A UDP socket of the test on 127.0.0.1; its port in *port. */
static int udp_sink(uint16_t *port)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	socklen_t l = sizeof(a);
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);

	ck_assert_int_ge(fd, 0);
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	ck_assert_int_eq(getsockname(fd, (struct sockaddr *)&a, &l), 0);
	*port = ntohs(a.sin_port);
	return fd;
}

/* The SCTP packet fd received next carries tag in its Verification Tag;
 * none more follows. */
static void udp_sink_got(int fd, uint32_t tag)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	uint8_t buf[256];
	ssize_t n;

	ck_assert_int_eq(poll(&p, 1, 2000), 1);
	n = recv(fd, buf, sizeof(buf), 0);
	ck_assert_int_eq(n, 16);
	ck_assert(!memcmp(buf + 4, &tag, 4));
	ck_assert_int_lt(recv(fd, buf, sizeof(buf), MSG_DONTWAIT), 0);
}

/*
 * A slot of the peer table evicted while packets for its peer wait in
 * the send batch: they still go to that peer, and what is queued for
 * the slot's next peer goes to the new one (two packets of one size to
 * one slot, one after the other, are no GSO run to one of them).  The
 * table is filled to the end with peers no socket holds, so that the
 * next peer evicts the one unused longest, the first.
 */
START_TEST(test_evict_queued)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	uint8_t pkt[16] = { 0 };
	uint32_t tag_a = htonl(0xa0a0a0a0), tag_b = htonl(0xb0b0b0b0);
	static void *fill[8192];
	uint16_t pa, pb;
	void *a, *b;
	unsigned int i, n = 0;
	int fa = udp_sink(&pa), fb = udp_sink(&pb);

	start(SCTP_ADAPT_WAIT_MS);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	a = us_peer_get((struct sockaddr *)&sin, pa);
	ck_assert_ptr_nonnull(a);
	/* the rest of the table: ports below the ephemeral ones, nobody
	 * listens there and nothing is sent */
	while (n < 8192 && (fill[n] = us_peer_get((struct sockaddr *)&sin,
						  (uint16_t)(1 + n))))
		n++;
	ck_assert_int_eq(errno, ENOBUFS);
	ck_assert_uint_gt(n, 100);
	ck_assert_uint_lt(n, 8192);
	for (i = 0; i < n; i++)
		us_peer_put(fill[i]);
	us_peer_put(a);

	/* a packet queued for a's peer, then its slot goes to b's */
	memcpy(pkt + 4, &tag_a, 4);
	ck_assert_int_eq(us_conn_output(a, pkt, sizeof(pkt), 0, 0), 0);
	b = us_peer_get((struct sockaddr *)&sin, pb);
	ck_assert_ptr_eq(b, a); /* the same slot */
	memcpy(pkt + 4, &tag_b, 4);
	ck_assert_int_eq(us_conn_output(b, pkt, sizeof(pkt), 0, 0), 0);
	us_udp_flush();
	udp_sink_got(fa, tag_a);
	udp_sink_got(fb, tag_b);
	us_peer_put(b);
	close(fa);
	close(fb);
	stop();
}
END_TEST

static Suite *sctp_stack_suite(void)
{
	Suite *s = suite_create("sctp_stack");
	TCase *tc;

	add_tcase(s, "addr_match", test_addr_match);
	add_tcase(s, "assoc_table", test_assoc_table);
	add_tcase(s, "assoc_sequences", test_assoc_sequences);
	add_tcase(s, "port_taken", test_port_taken);
	add_tcase(s, "assoc", test_assoc);
	tc = tcase_create("no_indication");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_no_indication, 0, 2);
	suite_add_tcase(s, tc);
	add_tcase(s, "wrong_indication", test_wrong_indication);
	add_tcase(s, "refused", test_refused);
	add_tcase(s, "close_graceful", test_close_graceful);
	add_loop_tcase(s, "close_connecting", test_close_connecting, 2);
	add_tcase(s, "close_abort", test_close_abort);
	add_tcase(s, "close_crossing", test_close_crossing);
	add_tcase(s, "close_listener_busy", test_close_listener_busy);
	add_tcase(s, "threads", test_threads);
	add_tcase(s, "drops", test_drops);
	add_tcase(s, "evict_queued", test_evict_queued);
	tc = tcase_create("idle_assocs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_idle_assocs);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(sctp_stack_suite)
