/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * daemon/sctp_conn.c in-process over usrsctp on loopback, with clients
 * that go away while they are being told something.  control.c closes a
 * client whose queue is full in the middle of control_send(), and the
 * client's departure (sctp_conn_client_gone()) frees its listeners and
 * the connections it has not been handed yet.  Each notification here
 * may do the same to the client it is for; nothing of that client may
 * be used after it, and the other side still learns how the session
 * ended.  ASan fails the run where the code touches what was freed.
 */
#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common.h"
#include "udp_port.h"

#include "iwcmd.h"
#include "log.h"
#include "sctp_stack.h"

/* main.c's globals */
struct event_base *iwcmd_base;
const struct iwcmd_conf *iwcmd_conf;
struct iwcmd_stats iwcmd_stats;
struct timespec iwcmd_start;

static struct iwcmd_conf conf;
static struct client L, C;     /* the listener's owner, the connector */
static struct client *closing; /* the next notification for it closes it */
static int n_req, n_est, n_rej, n_err;
static int n_end; /* Established or error: an end learnt its outcome */
static uint64_t req_id;
static int est_fds[4]; /* kept when keep_fds, closed at teardown */
static int n_kept;
static bool keep_fds;

/* What control.c does to a client whose queue is full. */
static int told(struct client *cl)
{
	if (cl != closing)
		return 0;
	closing = NULL;
	cl->fd = -1;
	sctp_conn_client_gone(cl);
	return -1;
}

static int on_request(struct client *cl, const struct sctp_conn_info *i)
{
	n_req++;
	req_id = i->id;
	return told(cl);
}

static int on_established(struct client *cl, const struct sctp_conn_info *i,
			  int fd)
{
	(void)i;
	n_est++;
	n_end++;
	if (keep_fds && n_kept < 4)
		est_fds[n_kept++] = fd;
	else
		close(fd);
	return told(cl);
}

static void on_rejected(struct client *cl, const struct sctp_conn_info *i)
{
	(void)i;
	n_rej++;
	told(cl);
}

static enum conn_result last_err; /* the last error's result */

static void on_error(struct client *cl, const struct sctp_conn_info *i,
		     bool unreachable)
{
	(void)unreachable;
	last_err = i->result;
	n_err++;
	n_end++;
	told(cl);
}

static const struct sctp_conn_notify notify = {
	.request = on_request,
	.established = on_established,
	.rejected = on_rejected,
	.error = on_error,
};

static void setup(void)
{
	log_init(LOG_TO_STDERR, false, "check_sctp_conn");
	conf_defaults(&conf);
	conf.sctp_udp_port = test_free_udp_port();
	ck_assert_uint_ne(conf.sctp_udp_port, 0);
	iwcmd_conf = &conf;
	iwcmd_base = event_base_new();
	ck_assert_ptr_nonnull(iwcmd_base);
	sctp_conn_init(&notify);
	ck_assert_int_eq(sctp_conn_stack(), CONN_RES_OK);
	memset(&L, 0, sizeof(L));
	memset(&C, 0, sizeof(C));
	L.id = 1;
	C.id = 2;
	L.fd = C.fd = 100; /* open, as far as sctp_conn.c can tell */
	L.uid = C.uid = getuid();
	closing = NULL;
	n_req = n_est = n_rej = n_err = n_end = 0;
	n_kept = 0;
	keep_fds = false;
}

static void teardown(void)
{
	while (n_kept > 0)
		close(est_fds[--n_kept]);
	sctp_conn_shutdown();
	event_base_free(iwcmd_base);
	iwcmd_base = NULL;
}

/* Run the loop until *n reaches want or 5 s pass. */
static bool run_until(const int *n, int want)
{
	for (int i = 0; i < 500 && *n < want; i++) {
		struct timeval tv = { 0, 10000 };

		event_base_loopexit(iwcmd_base, &tv);
		event_base_dispatch(iwcmd_base);
	}
	return *n >= want;
}

/* Let the loop run a while (no more to wait for). */
static void settle(void)
{
	struct timeval tv = { 0, 200000 };

	event_base_loopexit(iwcmd_base, &tv);
	event_base_dispatch(iwcmd_base);
}

static void sin_lo(struct sockaddr_storage *ss, socklen_t *len, uint16_t port)
{
	struct sockaddr_in *sin = (struct sockaddr_in *)ss;

	memset(ss, 0, sizeof(*ss));
	sin->sin_family = AF_INET;
	sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin->sin_port = htons(port);
	*len = sizeof(*sin);
}

static unsigned int n_conns;

static void count(const struct sctp_conn_info *i, void *arg)
{
	(void)i;
	(void)arg;
	n_conns++;
}

static unsigned int conns(void)
{
	n_conns = 0;
	sctp_conn_foreach(count, NULL);
	return n_conns;
}

/* L listens on 127.0.0.1:port (0: any); the listener's id, and the
 * port bound. */
static uint64_t listen_lo(uint16_t *port)
{
	struct sockaddr_storage a, bound;
	uint64_t lid;
	socklen_t len;

	sin_lo(&a, &len, *port);
	ck_assert_int_eq(sctp_conn_listen(&L, &a, len, &lid, &bound),
			 CONN_RES_OK);
	*port = ntohs(((struct sockaddr_in *)&bound)->sin_port);
	ck_assert_uint_ne(*port, 0);
	return lid;
}

/* C connects to 127.0.0.1:port (a session each time). */
static void connect_lo(uint16_t port)
{
	struct conn_target t;
	uint64_t cid;

	memset(&t, 0, sizeof(t));
	sin_lo(&t.dst, &t.dst_len, port);
	ck_assert_int_eq(sctp_conn_connect(&C, &t, NULL, &cid), CONN_RES_OK);
}

/* L listens on 127.0.0.1; C connects to it (a session each time). */
static uint64_t listen_and_connect(void)
{
	uint16_t port = 0;
	uint64_t lid = listen_lo(&port);

	connect_lo(port);
	ck_assert(run_until(&n_req, 1));
	return lid;
}

/*
 * Two connects wait for an association nobody answers; the first
 * error told closes their client, whose departure frees the second
 * while sctp_conn.c walks its list.
 */
START_TEST(error_closes_client)
{
	struct conn_target t;
	enum conn_result r = CONN_RES_ECONNREFUSED;
	uint64_t id;
	int i;

	setup();
	memset(&t, 0, sizeof(t));
	/* the stack's own UDP port, an SCTP port nobody listens on */
	sin_lo(&t.dst, &t.dst_len, 9);
	/* the peer's ABORT may outrun this thread, and the refusal come
	 * before sctp_conn_connect() returns (seen under load): then no
	 * connect waits, and the test tries again */
	for (i = 0; i < 50 && r == CONN_RES_ECONNREFUSED; i++)
		r = sctp_conn_connect(&C, &t, NULL, &id);
	ck_assert_int_eq(r, CONN_RES_OK);
	ck_assert_int_eq(sctp_conn_connect(&C, &t, NULL, &id), CONN_RES_OK);
	ck_assert_uint_eq(conns(), 2);
	closing = &C;
	ck_assert(run_until(&n_err, 1));
	settle();
	ck_assert_int_eq(n_err, 1); /* the client was gone for the second */
	ck_assert_uint_eq(conns(), 0);
	teardown();
}
END_TEST

/* The association ends under a session waiting for its Reply: the
 * connector hears of a reset (ECONNRESET), not of the peer's protocol
 * error (EPROTO, as it did). */
START_TEST(assoc_down_is_reset)
{
	setup();
	listen_and_connect();
	sctp_conn_abort_all();
	ck_assert(run_until(&n_err, 1));
	ck_assert_int_eq(last_err, CONN_RES_ECONNRESET);
	sctp_conn_client_gone(&L);
	sctp_conn_client_gone(&C);
	teardown();
}
END_TEST

/* The request closes the listener's owner: the session is refused, and
 * the connector hears of it. */
START_TEST(request_closes_listener)
{
	setup();
	closing = &L;
	listen_and_connect();
	ck_assert_int_eq(L.fd, -1);
	ck_assert(run_until(&n_err, 1) || n_rej > 0);
	sctp_conn_client_gone(&C);
	teardown();
}
END_TEST

/* The Established event closes its client (_i 0 the connector, 1 the
 * listener's owner): that end is not handed the session; the other end
 * still is, and the session then ends. */
START_TEST(established_closes)
{
	struct client *cl = _i ? &L : &C;

	enum conn_result r;

	setup();
	listen_and_connect();
	closing = cl;
	/* the responder's handoff may come within the accept, which then
	 * finds its client gone */
	r = sctp_conn_accept(&L, req_id, NULL);
	ck_assert(r == CONN_RES_OK || (_i && L.fd == -1));
	/* both ends learn the outcome: the other end was handed its
	 * session, or told it failed */
	ck_assert(run_until(&n_end, 2));
	ck_assert_int_ge(n_est, 1);
	ck_assert_int_eq(cl->fd, -1);
	settle();
	sctp_conn_client_gone(_i ? &C : &L);
	teardown();
}
END_TEST

/* The rejection closes the connector as it is told. */
START_TEST(rejected_closes)
{
	setup();
	listen_and_connect();
	closing = &C;
	ck_assert_int_eq(sctp_conn_reject(&L, req_id, NULL, 0), CONN_RES_OK);
	ck_assert(run_until(&n_rej, 1));
	ck_assert_int_eq(C.fd, -1);
	settle();
	ck_assert_int_eq(n_rej, 1);
	sctp_conn_client_gone(&L);
	teardown();
}
END_TEST

/* ---- listeners that close under their associations ---- */

static int n_up, n_down;

static void raw_up(void *arg, struct sctp_sock *so,
		   const struct sctp_assoc_info *info)
{
	(void)arg;
	(void)so;
	(void)info;
	n_up++;
}

static void raw_down(void *arg, struct sctp_sock *so, const char *why)
{
	(void)arg;
	(void)so;
	(void)why;
	n_down++;
}

static const struct sctp_cb raw_cb = { .up = raw_up, .down = raw_down };

/*
 * A peer's association that carries no session ends when the listener
 * it came in on closes, well before request_timeout_ms; a TCP
 * listener's unaccepted connections end with it too.
 */
START_TEST(listener_close_ends_idle)
{
	struct sockaddr_storage a;
	struct sctp_sock *raw;
	uint16_t port = 0;
	uint64_t lid;
	socklen_t len;

	setup();
	conf.request_timeout_ms = 60000;
	n_up = n_down = 0;
	lid = listen_lo(&port);
	sin_lo(&a, &len, port);
	raw = sctp_stack_connect((struct sockaddr *)&a, len, 0, &raw_cb, NULL);
	ck_assert_ptr_nonnull(raw);
	ck_assert(run_until(&n_up, 1));
	settle(); /* the listener has taken the association */
	ck_assert_int_eq(n_down, 0);
	ck_assert_int_eq(sctp_conn_unlisten(&L, lid), CONN_RES_OK);
	ck_assert(run_until(&n_down, 1));
	sctp_stack_close(raw, true);
	teardown();
}
END_TEST

/*
 * An association that carries a session outlives its listener; a listen
 * on the same port takes its next Initiate (before, the Initiate found
 * no listener and got a non-ULP reject).  iwcmd's own association to
 * that port is such a peer: the second connect goes over it.
 */
START_TEST(relisten_takes_over)
{
	uint16_t port = 0, again;
	uint64_t lid;

	setup();
	keep_fds = true;
	lid = listen_lo(&port);
	connect_lo(port);
	ck_assert(run_until(&n_req, 1));
	ck_assert_int_eq(sctp_conn_accept(&L, req_id, NULL), CONN_RES_OK);
	ck_assert(run_until(&n_est, 2));
	ck_assert_int_eq(sctp_conn_unlisten(&L, lid), CONN_RES_OK);
	settle(); /* the association stays: it carries a session */
	ck_assert_int_eq(n_err, 0);
	ck_assert_uint_eq(conns(), 2);
	again = port;
	listen_lo(&again);
	ck_assert_uint_eq(again, port);
	connect_lo(port);
	ck_assert(run_until(&n_req, 2));
	ck_assert_int_eq(n_rej + n_err, 0);
	ck_assert_int_eq(sctp_conn_accept(&L, req_id, NULL), CONN_RES_OK);
	ck_assert(run_until(&n_est, 4));
	teardown();
}
END_TEST

/* ---- one book of listeners for both transports (listener.c) ---- */

static void count_listener(struct listener *l, void *arg)
{
	(void)l;
	(*(unsigned int *)arg)++;
}

static unsigned int listeners(void)
{
	unsigned int n = 0;

	listener_foreach(count_listener, &n);
	return n;
}

/*
 * An SCTP listener is listed with TCP's; a uid has one per address and
 * transport (a second SCTP listen there is EEXIST, a TCP one on the
 * same port another socket); its client's departure closes both.
 */
START_TEST(one_book)
{
	struct listener_req tcp;
	struct sockaddr_storage a, bound;
	struct listener *tl;
	uint16_t port = 0;
	uint64_t lid, id2;
	socklen_t len;

	setup();
	lid = listen_lo(&port);
	ck_assert_ptr_nonnull(listener_find(lid));
	ck_assert_uint_eq(listeners(), 1);
	sin_lo(&a, &len, port);
	ck_assert_int_eq(sctp_conn_listen(&L, &a, len, &id2, &bound),
			 CONN_RES_EEXIST);
	memset(&tcp, 0, sizeof(tcp));
	sin_lo(&tcp.addr, &tcp.addrlen, port);
	ck_assert_int_eq(listener_listen(&L, &tcp, &tl), CONN_RES_OK);
	ck_assert_uint_ne(tl->id, lid);
	ck_assert_uint_eq(listeners(), 2);
	ck_assert_uint_eq(L.n_listeners, 2);
	sctp_conn_client_gone(&L);
	ck_assert_uint_eq(listeners(), 0);
	ck_assert_uint_eq(L.n_listeners, 0);
	teardown();
}
END_TEST

/*
 * A [listener] with transport = sctp on reload: an owner changed
 * detaches its client and keeps the socket (as for TCP), a service no
 * longer configured closes.
 */
START_TEST(service_reload)
{
	struct conf_listener *cl = &conf.listeners[0];
	struct sockaddr_storage bound;
	uint64_t lid;

	setup();
	memset(cl, 0, sizeof(*cl));
	strcpy(cl->name, "ddp");
	sin_lo(&cl->addr, &cl->addrlen, 0);
	cl->transport = 1;
	cl->has_owner = true;
	cl->owner = L.uid;
	conf.n_listeners = 1;
	ck_assert_int_eq(sctp_conn_init_config(&conf), 0);
	ck_assert_int_eq(sctp_conn_attach(&L, "ddp", &lid, &bound),
			 CONN_RES_OK);
	ck_assert_ptr_eq(listener_find(lid)->client, &L);
	ck_assert_int_eq(sctp_conn_init_config(&conf), 0);
	ck_assert_ptr_eq(listener_find(lid)->client, &L);
	cl->owner = L.uid + 1;
	ck_assert_int_eq(sctp_conn_init_config(&conf), 0);
	ck_assert_ptr_nonnull(listener_find(lid));
	ck_assert_ptr_null(listener_find(lid)->client);
	ck_assert_uint_eq(L.n_listeners, 0);
	ck_assert_int_eq(sctp_conn_attach(&L, "ddp", &lid, &bound),
			 CONN_RES_EPERM);
	conf.n_listeners = 0;
	ck_assert_int_eq(sctp_conn_init_config(&conf), 0);
	ck_assert_ptr_null(listener_find(lid));
	teardown();
}
END_TEST

static Suite *sctp_conn_suite(void)
{
	Suite *s = suite_create("sctp_conn");

	add_tcase(s, "error_closes_client", error_closes_client);
	add_tcase(s, "assoc_down_is_reset", assoc_down_is_reset);
	add_tcase(s, "request_closes_listener", request_closes_listener);
	add_loop_tcase(s, "established_closes", established_closes, 2);
	add_tcase(s, "rejected_closes", rejected_closes);
	add_tcase(s, "listener_close_ends_idle", listener_close_ends_idle);
	add_tcase(s, "relisten_takes_over", relisten_takes_over);
	add_tcase(s, "one_book", one_book);
	add_tcase(s, "service_reload", service_reload);
	return s;
}

TEST_MAIN(sctp_conn_suite)
