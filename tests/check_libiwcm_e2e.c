/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * libiwcm connection management end to end: the real iwcmd, two contexts,
 * listen/connect/accept or reject on 127.0.0.1, consistent negotiated
 * state on both ends and working sockets, with contexts that wait for
 * the daemon's answers and with IWCM_CTX_ASYNC_CM ones; a connect the
 * daemon refuses (its per-uid limit) fails through an event there.
 */

#include "config.h"

#include <netinet/tcp.h>

#include "cm_fake.h"

/* ---- end to end: the real iwcmd, two contexts, 127.0.0.1 ---- */

struct e2e {
	char dir[64];
	char sock[128];
	char conf[128];
	char log[128];
	pid_t pid;
};

static struct e2e E;

static void e2e_log(char *buf, size_t cap)
{
	FILE *fp = fopen(E.log, "r");
	size_t n = 0;

	if (fp) {
		n = fread(buf, 1, cap - 1, fp);
		fclose(fp);
	}
	buf[n] = 0;
}

/* Start iwcmd -d on a temporary socket and config (with the lines
 * extra); open a context with flags (and IWCM_CTX_NONBLOCK). */
static struct iwcm_ctx *e2e_start(const char *extra, unsigned int flags)
{
	pid_t parent = getpid();
	struct iwcm_ctx *ctx = NULL;
	char log[4096];
	FILE *fp;
	int i, st;

	memset(&E, 0, sizeof(E));
	strcpy(E.dir, "/tmp/iwcm-e2e-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(E.dir));
	snprintf(E.sock, sizeof(E.sock), "%s/iwcmd.sock", E.dir);
	snprintf(E.conf, sizeof(E.conf), "%s/iwcmd.conf", E.dir);
	snprintf(E.log, sizeof(E.log), "%s/iwcmd.log", E.dir);
	fp = fopen(E.conf, "w");
	ck_assert_ptr_nonnull(fp);
	fprintf(fp,
		"# check_libiwcm_cm\nrequest_timeout_ms = 5000\n"
		"reply_timeout_ms = 5000\n%s",
		extra);
	fclose(fp);
	E.pid = fork();
	ck_assert_int_ge(E.pid, 0);
	if (E.pid == 0) {
		int fd = open(E.log, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		/* Never outlive the test, even when an assertion ends it. */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent || fd < 0)
			_exit(126);
		dup2(fd, STDERR_FILENO);
		close(fd);
		execl(IWCMD_PATH, "iwcmd", "-d", "-v", "-f", E.conf, "-s",
		      E.sock, (char *)NULL);
		_exit(127);
	}
	/* The socket appears when the daemon is ready: nothing to poll
	 * before it exists, so retry briefly (at most 5 s). */
	for (i = 0; i < 500; i++) {
		ctx = iwcm_ctx_open_path(E.sock, IWCM_CTX_NONBLOCK | flags);
		if (ctx || errno != ECONNREFUSED)
			break;
		if (waitpid(E.pid, &st, WNOHANG) == E.pid) {
			E.pid = 0;
			break;
		}
		usleep(10000);
	}
	e2e_log(log, sizeof(log));
	ck_assert_msg(ctx != NULL, "iwcmd did not start (%s): %s",
		      strerror(errno), log);
	return ctx;
}

/* SIGTERM: the daemon exits 0 and removes its sockets. */
static void e2e_stop(void)
{
	char log[4096];
	DIR *d;
	struct dirent *de;
	int st = 0;

	ck_assert_int_eq(kill(E.pid, SIGTERM), 0);
	ck_assert_int_eq(waitpid(E.pid, &st, 0), E.pid);
	e2e_log(log, sizeof(log));
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "iwcmd exit status %d: %s", st, log);
	ck_assert_int_ne(access(E.sock, F_OK), 0);
	d = opendir(E.dir);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		char p[sizeof(E.dir) + 258];

		if (de->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", E.dir, de->d_name);
		unlink(p);
	}
	closedir(d);
	rmdir(E.dir);
}

/* The next event of ctx, waiting on its event fd (at most 10 s). */
static struct iwcm_event *e2e_event(struct iwcm_ctx *ctx,
				    enum iwcm_cm_event_type type)
{
	struct iwcm_event *ev = NULL;
	char log[4096];
	int i;

	for (i = 0; i < 100; i++) {
		if (iwcm_get_event(ctx, &ev) == 0)
			break;
		ck_assert_int_eq(errno, EAGAIN);
		readable(iwcm_ctx_get_fd(ctx), 100);
	}
	e2e_log(log, sizeof(log));
	ck_assert_msg(ev != NULL, "no %s event: %s", iwcm_cm_event_str(type),
		      log);
	ck_assert_msg(iwcm_event_get_type(ev) == type,
		      "event %s (%s: %s), want %s: %s",
		      iwcm_cm_event_str(iwcm_event_get_type(ev)),
		      iwcm_status_str(qa(iwcm_event_get_conn(ev)).reason),
		      qa(iwcm_event_get_conn(ev)).reason_text,
		      iwcm_cm_event_str(type), log);
	return ev;
}

static uint16_t addr_port(const struct sockaddr *sa)
{
	ck_assert_ptr_nonnull(sa);
	ck_assert_int_eq(sa->sa_family, AF_INET);
	return ntohs(((const struct sockaddr_in *)sa)->sin_port);
}

/* The address itself, port included, as the socket says it is. */
static void addr_is_sock(const struct sockaddr *sa, int fd, bool local)
{
	struct sockaddr_in sin;
	socklen_t sl = sizeof(sin);

	ck_assert_int_eq(local ? getsockname(fd, (struct sockaddr *)&sin, &sl) :
				 getpeername(fd, (struct sockaddr *)&sin, &sl),
			 0);
	ck_assert_int_eq(sa->sa_family, AF_INET);
	ck_assert_int_eq(memcmp(&((const struct sockaddr_in *)sa)->sin_addr,
				&sin.sin_addr, sizeof(sin.sin_addr)),
			 0);
	ck_assert_uint_eq(addr_port(sa), ntohs(sin.sin_port));
}

static int nodelay_of(int fd)
{
	int v = -1;
	socklen_t vl = sizeof(v);

	ck_assert_int_eq(getsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &v, &vl), 0);
	return v;
}

/* Bytes written on one fd arrive on the other. */
static void e2e_pipe(int from, int to, const char *msg)
{
	char buf[64];
	size_t len = strlen(msg);

	ck_assert_int_eq(write(from, msg, len), (ssize_t)len);
	ck_assert(readable(to, 5000));
	ck_assert_int_eq(read(to, buf, sizeof(buf)), (ssize_t)len);
	ck_assert_int_eq(memcmp(buf, msg, len), 0);
}

/*
 * Variants: 0 MPA v2 peer-to-peer, 1 MPA v2 client-server, 2 MPA v1,
 * 3 the responder rejects; 4-7 the same with IWCM_CTX_ASYNC_CM; 8-11 those
 * again against a daemon that busy-polls (busy_poll_us, loop.c), which
 * must still exit cleanly on SIGTERM.  0-3 and 8-11 run with the daemon's
 * adaptive polling (its default), 4-7 without (adaptive_poll_us = 0).
 */
START_TEST(test_e2e)
{
	unsigned int flags = _i >= 4 ? IWCM_CTX_ASYNC_CM : 0;
	int v = _i % 4;
	struct iwcm_ctx *srv, *cli;
	struct iwcm_conn_param *cp = iwcm_conn_param_new();
	struct iwcm_conn_param *ap = iwcm_conn_param_new();
	struct iwcm_listener *l;
	struct iwcm_conn *rc, *ic;
	struct iwcm_event *ev;
	struct sockaddr_in sin;
	const void *pd;
	size_t len;
	int fds = open_fds();

	srv = e2e_start(_i >= 8 ? "busy_poll_us = 2000\n" :
			_i >= 4 ? "adaptive_poll_us = 0\n" :
				  "",
			flags);
	cli = iwcm_ctx_open_path(E.sock, IWCM_CTX_NONBLOCK | flags);
	ck_assert_ptr_nonnull(cli);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(srv, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_msg(l != NULL, "listen: %s", strerror(errno));
	ck_assert_int_gt(iwcm_listener_get_port(l), 0);

	ck_assert_int_eq(iwcm_conn_param_set_ird(cp, 4), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(cp, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_private_data(cp, "hello", 5), 0);
	ck_assert_int_eq(iwcm_conn_param_set_p2p(cp, v == 0), 0);
	if (v == 2)
		ck_assert_int_eq(iwcm_conn_param_set_mpa_rev(cp, 1), 0);
	sin4(&sin, "127.0.0.1", (uint16_t)iwcm_listener_get_port(l));
	ic = iwcm_connect(cli, (struct sockaddr *)&sin, NULL, cp);
	ck_assert_msg(ic != NULL, "connect: %s", strerror(errno));
	iwcm_conn_param_free(cp);

	ev = e2e_event(srv, IWCM_CM_EVENT_CONNECT_REQUEST);
	ck_assert_ptr_eq(iwcm_event_get_listener(ev), l);
	rc = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	ck_assert_int_eq(qa(rc).initiator, 0);
	ck_assert_int_eq(addr_port(qa_addr(rc, true)),
			 iwcm_listener_get_port(l));
	ck_assert_int_gt(addr_port(qa_addr(rc, false)), 0);
	pd = qa(rc).peer_private_data;
	len = qa(rc).peer_private_data_len;
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(len, 5);
	ck_assert_int_eq(memcmp(pd, "hello", 5), 0);
	ck_assert_int_eq(qa(rc).peer_mpa_rev, v == 2 ? 1 : 2);
	ck_assert_int_eq(qa(rc).peer_enhanced, v != 2);
	if (v != 2) {
		/* RFC 6581 §9.1: the initiator's IRD/ORD as sent. */
		ck_assert_int_eq(qa(rc).peer_ird, 4);
		ck_assert_int_eq(qa(rc).peer_ord, 2);
		ck_assert_int_eq(qa(rc).peer_p2p, v == 0);
	}

	if (v == 3) {
		ck_assert_int_eq(iwcm_reject(rc, "busy", 4), 0);
		ev = e2e_event(cli, IWCM_CM_EVENT_REJECTED);
		ck_assert_ptr_eq(iwcm_event_get_conn(ev), ic);
		iwcm_ack_event(ev);
		ck_assert_int_eq(qa(ic).reason, IWCM_STATUS_REJECTED);
		pd = qa(ic).peer_private_data;
		len = qa(ic).peer_private_data_len;
		ck_assert_ptr_nonnull(pd);
		ck_assert_uint_eq(len, 4);
		ck_assert_int_eq(memcmp(pd, "busy", 4), 0);
		ck_assert_int_eq(qa(ic).peer_flags & IWCM_MPA_FLAG_R,
				 IWCM_MPA_FLAG_R);
		ERRNO_IS(iwcm_conn_get_fd(ic), ENOTCONN);
		goto out;
	}

	ck_assert_int_eq(iwcm_conn_param_set_private_data(ap, "world", 5), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ird(ap, 2), 0);
	ck_assert_int_eq(iwcm_conn_param_set_ord(ap, 4), 0);
	ck_assert_msg(iwcm_accept(rc, ap) == 0, "accept: %s", strerror(errno));
	ev = e2e_event(cli, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), ic);
	iwcm_ack_event(ev);
	ev = e2e_event(srv, IWCM_CM_EVENT_ESTABLISHED);
	ck_assert_ptr_eq(iwcm_event_get_conn(ev), rc);
	iwcm_ack_event(ev);

	/* Both ends agree on what was negotiated. */
	ck_assert_int_eq(qa(ic).initiator, 1);
	ck_assert_int_eq(qa(rc).initiator, 0);
	ck_assert_int_eq(qa(ic).transport, IWCM_TRANSPORT_TCP);
	ck_assert_int_eq(qa(rc).transport, IWCM_TRANSPORT_TCP);
	ck_assert_int_eq(qa(ic).mpa_rev, v == 2 ? 1 : 2);
	ck_assert_int_eq(qa(rc).mpa_rev, qa(ic).mpa_rev);
	ck_assert_int_eq(qa(ic).enhanced, v != 2);
	ck_assert_int_eq(qa(rc).enhanced, v != 2);
	ck_assert_int_eq(qa(ic).ddp_version, 1);
	ck_assert_int_eq(qa(rc).ddp_version, 1);
	ck_assert_int_eq(qa(ic).rdmap_version, 1);
	ck_assert_int_eq(qa(rc).rdmap_version, 1);
	ck_assert_int_eq(qa(ic).crc, qa(rc).crc);
	ck_assert_int_eq(qa(ic).markers_tx, qa(rc).markers_rx);
	ck_assert_int_eq(qa(ic).markers_rx, qa(rc).markers_tx);
	ck_assert_int_eq(qa(ic).p2p, v == 0);
	ck_assert_int_eq(qa(rc).p2p, v == 0);
	ck_assert_int_eq(qa(ic).rtr_type, qa(rc).rtr_type);
	if (v == 0)
		ck_assert_int_ne(qa(ic).rtr_type, IWCM_RTR_NONE);
	pd = qa(ic).peer_private_data;
	len = qa(ic).peer_private_data_len;
	ck_assert_ptr_nonnull(pd);
	ck_assert_uint_eq(len, 5);
	ck_assert_int_eq(memcmp(pd, "world", 5), 0);
	if (v != 2) {
		/* RFC 6581 §9.1: initiator ORD <= responder IRD, responder
		 * ORD <= initiator IRD, and the responder's values reach
		 * the initiator as sent. */
		ck_assert_int_le(qa(ic).ord, qa(rc).ird);
		ck_assert_int_le(qa(rc).ord, qa(ic).ird);
		ck_assert_int_eq(qa(ic).peer_ird, qa(rc).ird);
		ck_assert_int_eq(qa(ic).peer_ord, qa(rc).ord);
	}
	ck_assert_int_eq(addr_port(qa_addr(ic, true)),
			 addr_port(qa_addr(rc, false)));
	ck_assert_int_eq(addr_port(qa_addr(ic, false)),
			 addr_port(qa_addr(rc, true)));
	/* What iwcmd reported is what the sockets say, though it asked
	 * the responder's socket nothing (its listener's address). */
	addr_is_sock(qa_addr(ic, true), iwcm_conn_get_fd(ic), true);
	addr_is_sock(qa_addr(ic, false), iwcm_conn_get_fd(ic), false);
	addr_is_sock(qa_addr(rc, true), iwcm_conn_get_fd(rc), true);
	addr_is_sock(qa_addr(rc, false), iwcm_conn_get_fd(rc), false);
	/* TCP_NODELAY on both: the responder's from the listening socket. */
	ck_assert_int_eq(nodelay_of(iwcm_conn_get_fd(ic)), 1);
	ck_assert_int_eq(nodelay_of(iwcm_conn_get_fd(rc)), 1);
	len = qa(ic).unread_len;
	ck_assert_uint_eq(len, 0);
	len = qa(rc).unread_len;
	ck_assert_uint_eq(len, 0);

	/* The two sockets are the two ends of one TCP connection. */
	e2e_pipe(iwcm_conn_get_fd(ic), iwcm_conn_get_fd(rc), "from initiator");
	e2e_pipe(iwcm_conn_get_fd(rc), iwcm_conn_get_fd(ic), "from responder");
out:
	iwcm_conn_param_free(ap);
	iwcm_conn_free(ic);
	iwcm_conn_free(rc);
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	iwcm_ctx_close(cli);
	iwcm_ctx_close(srv);
	e2e_stop();
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

/*
 * The daemon refuses a connect (max_pending_per_uid: one request of this
 * uid already waits for a decision): iwcm_connect() says EMFILE, or
 * with IWCM_CTX_ASYNC_CM the connection fails with IWCM_STATUS_LIMIT.
 */
START_TEST(test_e2e_refused)
{
	bool async = _i == 1;
	unsigned int flags = async ? IWCM_CTX_ASYNC_CM : 0;
	struct iwcm_ctx *srv, *cli;
	struct iwcm_listener *l;
	struct iwcm_conn *rc, *ic, *ic2;
	struct iwcm_event *ev;
	struct sockaddr_in sin;
	int fds = open_fds();

	srv = e2e_start("max_pending_per_uid = 1\n", flags);
	cli = iwcm_ctx_open_path(E.sock, IWCM_CTX_NONBLOCK | flags);
	ck_assert_ptr_nonnull(cli);
	sin4(&sin, "127.0.0.1", 0);
	l = iwcm_listen(srv, (struct sockaddr *)&sin, NULL, NULL, 0);
	ck_assert_msg(l != NULL, "listen: %s", strerror(errno));
	sin4(&sin, "127.0.0.1", (uint16_t)iwcm_listener_get_port(l));
	ic = iwcm_connect(cli, (struct sockaddr *)&sin, NULL, NULL);
	ck_assert_msg(ic != NULL, "connect: %s", strerror(errno));
	ev = e2e_event(srv, IWCM_CM_EVENT_CONNECT_REQUEST);
	rc = iwcm_event_get_conn(ev);
	iwcm_ack_event(ev);
	/* one request waits for srv's decision: the next is over the cap */
	if (!async) {
		ERRNO_NULL(iwcm_connect(cli, (struct sockaddr *)&sin, NULL,
					NULL),
			   EMFILE);
	} else {
		ic2 = iwcm_connect(cli, (struct sockaddr *)&sin, NULL, NULL);
		ck_assert_msg(ic2 != NULL, "connect: %s", strerror(errno));
		ev = e2e_event(cli, IWCM_CM_EVENT_CONNECT_ERROR);
		ck_assert_ptr_eq(iwcm_event_get_conn(ev), ic2);
		iwcm_ack_event(ev);
		ck_assert_int_eq(qa(ic2).reason, IWCM_STATUS_LIMIT);
		ERRNO_IS(iwcm_conn_get_fd(ic2), ENOTCONN);
		iwcm_conn_free(ic2);
	}
	/* the first one still completes */
	ck_assert_msg(iwcm_accept(rc, NULL) == 0, "accept: %s",
		      strerror(errno));
	iwcm_ack_event(e2e_event(cli, IWCM_CM_EVENT_ESTABLISHED));
	iwcm_ack_event(e2e_event(srv, IWCM_CM_EVENT_ESTABLISHED));
	e2e_pipe(iwcm_conn_get_fd(ic), iwcm_conn_get_fd(rc), "still works");
	iwcm_conn_free(ic);
	iwcm_conn_free(rc);
	ck_assert_int_eq(iwcm_listener_close(l), 0);
	iwcm_ctx_close(cli);
	iwcm_ctx_close(srv);
	e2e_stop();
	ck_assert_int_eq(open_fds(), fds);
}
END_TEST

static Suite *libiwcm_e2e_suite(void)
{
	Suite *s = suite_create("libiwcm_e2e");

	add_loop_tcase(s, "e2e", test_e2e, 12);
	add_loop_tcase(s, "e2e_refused", test_e2e_refused, 2);
	return s;
}

TEST_MAIN(libiwcm_e2e_suite)
