/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/sctp.h over usrsctp on loopback, in one process: the stack
 * connects to its own listener through its own UDP encapsulation port.
 * Check forks each test, so each starts usrsctp afresh.  Peers that
 * break RFC 5043 §5.1 / §7.1 are plain usrsctp sockets made here.
 */
#include <errno.h>
#include <event2/event.h>
#include <netinet/in.h>
#include <time.h>
#include <unistd.h>
#include <usrsctp.h>

#include "common.h"
#include "udp_port.h"

#include "log.h"
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

/*
 * Linked with -Wl,--wrap=usrsctp_getsockopt.  Until status_stale_until
 * (CLOCK_MONOTONIC), SCTP_STATUS reports an association that is gone as
 * still shutting down: what usrsctp itself shows for a moment after it
 * has queued an association's last notification and before its thread
 * frees the association.
 */
int __real_usrsctp_getsockopt(struct socket *so, int level, int name, void *v,
			      socklen_t *len);
int __wrap_usrsctp_getsockopt(struct socket *so, int level, int name, void *v,
			      socklen_t *len);
static struct timespec status_stale_until;

int __wrap_usrsctp_getsockopt(struct socket *so, int level, int name, void *v,
			      socklen_t *len)
{
	int rc = __real_usrsctp_getsockopt(so, level, name, v, len);
	struct sctp_status *st = v;
	struct timespec now;

	if (level != IPPROTO_SCTP || name != SCTP_STATUS)
		return rc;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (now.tv_sec > status_stale_until.tv_sec ||
	    (now.tv_sec == status_stale_until.tv_sec &&
	     now.tv_nsec >= status_stale_until.tv_nsec))
		return rc;
	if (rc == 0 && st->sstat_state != SCTP_CLOSED)
		return rc;
	memset(st, 0, sizeof(*st));
	st->sstat_state = SCTP_SHUTDOWN_ACK_SENT;
	*len = sizeof(*st);
	return 0;
}

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

/* SCTP_STATUS lags for ms from now (see above). */
static void status_stale_for(unsigned int ms)
{
	clock_gettime(CLOCK_MONOTONIC, &status_stale_until);
	status_stale_until.tv_nsec += (long)(ms % 1000) * 1000000L;
	status_stale_until.tv_sec +=
		ms / 1000 + status_stale_until.tv_nsec / 1000000000L;
	status_stale_until.tv_nsec %= 1000000000L;
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
 * A graceful close keeps the socket until the SHUTDOWN has ended the
 * association: usrsctp must not end an association of a socket already
 * given back to it (see sctp_usrsctp.c).  The peer is paused with the
 * window full, so the SHUTDOWN waits for what is queued (RFC 4960 §9.2);
 * once it reads, every message arrives, then the SHUTDOWN.  The other
 * end's abortive close gives its socket back once the ABORT has ended
 * what was left of the association.
 */
START_TEST(test_close_lingers)
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
	for (i = 0; i < 20; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(base, &tv);
		event_base_dispatch(base);
		ck_assert_uint_eq(sctp_stack_sockets(), 3);
	}
	ck_assert_int_eq(srv.down, 0);
	sctp_stack_pause(srv.s, false);
	ck_assert(run_until(&srv.down));
	ck_assert_int_eq(srv.msgs, sent);
	ck_assert_msg(strstr(srv.why, "shut") != NULL, "%s", srv.why);
	ck_assert(run_until_sockets(2));
	sctp_stack_close(srv.s, true);
	srv.s = NULL;
	ck_assert(run_until_sockets(1));
	ck_assert_int_eq(cli.down, 0);
	stop();
}
END_TEST

/*
 * A graceful close whose SHUTDOWN completes while SCTP_STATUS still
 * shows the association (usrsctp frees it just after it queues
 * SHUTDOWN_COMP).  The socket goes once the association has gone, at a
 * later linger tick: the notification's report of the association down
 * must not end those ticks, or the socket stays for good (found by
 * fuzz_ipc_client's corpus replay, about one close in a thousand).
 */
START_TEST(test_close_status_lags)
{
	start(SCTP_ADAPT_WAIT_MS);
	both_up();
	status_stale_for(300);
	sctp_stack_close(cli.s, false);
	cli.s = NULL;
	ck_assert(run_until(&srv.down));
	ck_assert_msg(strstr(srv.why, "shut") != NULL, "%s", srv.why);
	/* the client's socket: kept while SCTP_STATUS lags, then given
	 * back (the server's stays: it is open) */
	ck_assert_uint_eq(sctp_stack_sockets(), 3);
	ck_assert(run_until_sockets(2));
	ck_assert_int_eq(cli.down, 0);
	stop();
}
END_TEST

/*
 * A close while the association is still being set up (its INIT goes to
 * a UDP port that never answers): usrsctp takes no ABORT for it.  The
 * socket is not handed back at once (usrsctp's zero-linger close races
 * its receive thread ending the association on a peer's answer, and both
 * free the socket: found by fuzz_ipc_client), but it goes within about a
 * second, not when the linger gives up (10 s).
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
	ck_assert_uint_eq(sctp_stack_sockets(), 2);
	ck_assert(run_until_sockets(1));
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
 * sockets close.  usrsctp frees a closed socket twice when an
 * association ends on its receive thread (upstream issues #676, #709);
 * the stack ends associations on the loop thread first.  Under ASan a
 * double free or leak fails the run.
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

/* A plain usrsctp peer; adapt 0: no indication sent. */
static struct socket *raw_peer(uint32_t adapt, bool send_data)
{
	struct socket *so = usrsctp_socket(AF_INET, SOCK_STREAM, IPPROTO_SCTP,
					   NULL, NULL, 0, NULL);
	struct sctp_udpencaps ue;

	ck_assert_ptr_nonnull(so);
	if (adapt) {
		struct sctp_setadaptation ad = { .ssb_adaptation_ind = adapt };

		ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP,
						    SCTP_ADAPTATION_LAYER, &ad,
						    sizeof(ad)),
				 0);
	}
	memset(&ue, 0, sizeof(ue));
	ue.sue_port = htons(port);
	ck_assert_int_eq(usrsctp_setsockopt(so, IPPROTO_SCTP,
					    SCTP_REMOTE_UDP_ENCAPS_PORT, &ue,
					    sizeof(ue)),
			 0);
	/* blocking: usrsctp's threads do the handshake */
	ck_assert_int_eq(usrsctp_connect(so, (struct sockaddr *)&laddr,
					 sizeof(laddr)),
			 0);
	if (send_data) {
		struct sctp_sndinfo si = { .snd_ppid = htonl(16) };

		ck_assert_int_ge(usrsctp_sendv(so, "xxxx", 4, NULL, 0, &si,
					       sizeof(si), SCTP_SENDV_SNDINFO,
					       0),
				 0);
	}
	return so;
}

/*
 * Wait until the raw peer has taken the stack's ABORT, so that its
 * close sends nothing.  usrsctp races itself when a packet for an
 * association it is tearing down arrives while the application closes
 * that socket (upstream issues #676 and #709); the test keeps clear of
 * that window.
 */
static void wait_aborted(struct socket *so)
{
	struct sctp_status st;
	socklen_t len;
	int i, rc = 0;

	for (i = 0; i < 500; i++) {
		memset(&st, 0, sizeof(st));
		len = sizeof(st);
		rc = usrsctp_getsockopt(so, IPPROTO_SCTP, SCTP_STATUS, &st,
					&len);
		if (rc < 0 || st.sstat_state == SCTP_CLOSED)
			break;
		usleep(10000);
	}
	ck_assert_msg(rc < 0 || st.sstat_state == SCTP_CLOSED,
		      "the raw peer never saw the ABORT (state %d)",
		      st.sstat_state);
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
 * A listener closed while handshakes to it are in flight: usrsctp's
 * receive thread completing one takes a reference to the listener's
 * socket while usrsctp frees it, and both free it (found by
 * fuzz_ipc_client; under ASan a double free fails the run).  So the
 * closed listener is kept (it no longer counts), and the next listen on
 * its address gets it at once: what waited in its queue is aborted,
 * every peer in flight ends down, and what comes then is the new
 * owner's.
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
		/* half of the rounds: some handshakes done and accepted
		 * (accepts wait 2 ms after the listener's wakeup) */
		if (round & 1) {
			struct timeval tv = { 0, 5000 };

			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
		sctp_stack_close(l, false);
		/* lsock and the peers; the closed listener is kept aside */
		ck_assert_uint_eq(sctp_stack_sockets(), 1 + BUSY_PEERS);
		/* handshakes done meanwhile wait in its queue */
		for (i = 0; i < 2; i++) {
			struct timeval tv = { 0, 10000 };

			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
		/* its port, at once: what waited in its queue is aborted,
		 * what comes now is the new owner's */
		again = sctp_stack_listen((struct sockaddr *)&la, sizeof(la),
					  &busy_listen_cb, NULL);
		ck_assert_msg(again == l, "listen again: %s", strerror(errno));
		for (i = 0; i < 500 && busy_live(); i++) {
			struct timeval tv = { 0, 10000 };

			event_base_loopexit(base, &tv);
			event_base_dispatch(base);
		}
		ck_assert_int_eq(busy_live(), 0);
		for (i = 0; i < BUSY_PEERS; i++)
			sctp_stack_close(busy[i].s, true);
		ck_assert(run_until_sockets(2));
		busy_accepted = 0;
		memset(&busy[0], 0, sizeof(busy[0]));
		busy[0].s = sctp_stack_connect((struct sockaddr *)&la,
					       sizeof(la), port, &side_cb,
					       &busy[0]);
		ck_assert_ptr_nonnull(busy[0].s);
		ck_assert(run_until(&busy_accepted));
		sctp_stack_close(busy[0].s, true);
		sctp_stack_close(again, false);
		ck_assert(run_until_sockets(1));
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

/*
 * The queue from usrsctp's upcalls to the loop: consecutive upcalls for
 * one socket take one entry; an upcall without a token, or one past
 * US_READY_MAX, makes the pass serve every socket; a freed socket's
 * token names nothing, and a late upcall with it is harmless.
 */
START_TEST(test_ready_queue)
{
	const uint64_t *r;
	unsigned int n, i;
	uint64_t tok;
	bool all;

	start(SCTP_ADAPT_WAIT_MS);
	both_up();
	(void)us_ready_take(&n, &all); /* what setting up left */
	us_upcall(NULL, (void *)(uintptr_t)cli.s->token, 0);
	us_upcall(NULL, (void *)(uintptr_t)cli.s->token, 0);
	us_upcall(NULL, (void *)(uintptr_t)srv.s->token, 0);
	us_upcall(NULL, (void *)(uintptr_t)cli.s->token, 0);
	r = us_ready_take(&n, &all);
	ck_assert(!all);
	ck_assert_uint_eq(n, 3);
	ck_assert_uint_eq(r[0], cli.s->token);
	ck_assert_uint_eq(r[1], srv.s->token);
	ck_assert_uint_eq(r[2], cli.s->token);
	ck_assert_ptr_eq(us_by_token(r[0]), cli.s);
	ck_assert_ptr_eq(us_by_token(r[1]), srv.s);
	(void)us_ready_take(&n, &all);
	ck_assert_uint_eq(n, 0);
	ck_assert(!all);

	us_upcall(NULL, NULL, 0);
	(void)us_ready_take(&n, &all);
	ck_assert(all);
	for (i = 0; i <= US_READY_MAX; i++)
		us_upcall(NULL,
			  (void *)(uintptr_t)(i % 2 ? cli.s->token :
						      srv.s->token),
			  0);
	(void)us_ready_take(&n, &all);
	ck_assert_uint_eq(n, US_READY_MAX);
	ck_assert(all);

	/* a pass over every socket still serves what waits */
	ck_assert_int_eq(sctp_stack_send(cli.s, 0, 16, "x", 1), 0);
	us_upcall(NULL, NULL, 0);
	ck_assert(run_until(&srv.msgs));

	tok = cli.s->token;
	ck_assert_uint_ne(tok, 0);
	ck_assert_ptr_null(us_by_token(0));
	ck_assert_ptr_null(us_by_token(us.n_slot + 1)); /* past the table */
	ck_assert_ptr_null(us_by_token(tok + (1ull << 32))); /* generation */
	sctp_stack_close(cli.s, true);
	cli.s = NULL;
	ck_assert(run_until_sockets(2));
	ck_assert_ptr_null(us_by_token(tok));
	/* its slot's next socket has a token of its own */
	both_up();
	ck_assert_uint_ne(cli.s->token, tok);
	ck_assert_ptr_null(us_by_token(tok));
	us_upcall(NULL, (void *)(uintptr_t)tok, 0);
	ck_assert_int_eq(sctp_stack_send(srv.s, 0, 16, "y", 1), 0);
	ck_assert(run_until(&cli.msgs));
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

static Suite *sctp_stack_suite(void)
{
	Suite *s = suite_create("sctp_stack");
	TCase *tc;

	add_tcase(s, "addr_match", test_addr_match);
	add_tcase(s, "port_taken", test_port_taken);
	add_tcase(s, "assoc", test_assoc);
	tc = tcase_create("no_indication");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_no_indication, 0, 2);
	suite_add_tcase(s, tc);
	add_tcase(s, "wrong_indication", test_wrong_indication);
	add_tcase(s, "refused", test_refused);
	add_tcase(s, "close_lingers", test_close_lingers);
	add_tcase(s, "close_status_lags", test_close_status_lags);
	add_loop_tcase(s, "close_connecting", test_close_connecting, 2);
	add_tcase(s, "close_abort", test_close_abort);
	add_tcase(s, "close_crossing", test_close_crossing);
	add_tcase(s, "close_listener_busy", test_close_listener_busy);
	add_tcase(s, "ready_queue", test_ready_queue);
	tc = tcase_create("idle_assocs");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_idle_assocs);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(sctp_stack_suite)
