/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_TESTS_DAEMON_REQUESTS_H
#define IWCM_TESTS_DAEMON_REQUESTS_H

/*
 * Requests to a real iwcmd started with daemon_harness.h, shared by the
 * Check programs that drive it (check_daemon_control, check_daemon_root,
 * check_daemon_sd): one daemon per test (H), the last message read (M),
 * and the Listen/Unlisten and admin requests with their replies.  Include
 * after common.h and daemon_harness.h, in one file per program.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

static struct harness H;
static struct ipc_msg M;
static uint32_t next_reqid = 100;

/* Every daemon must stop cleanly at SIGTERM (and, in the ASan build,
 * without a leak or a sanitizer report). */
static inline void teardown(void)
{
	int st = harness_stop(&H);

	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fprintf(stderr, "iwcmd log:\n%s\n", harness_log(&H));
	harness_cleanup(&H);
	ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0,
		      "iwcmd did not exit 0 (status 0x%x)", st);
}

/* Send a request and wait for the message answering it. */
static inline void request(int fd, uint16_t type, const ProtobufCMessage *body,
			   uint32_t *reqid)
{
	*reqid = next_reqid++;
	ck_assert_int_eq(ipc_send(fd, type, *reqid, body, -1), 0);
}

static inline int reply(int fd, uint16_t type, uint32_t reqid)
{
	ck_assert_int_eq(ipc_wait(fd, &M), 1);
	ck_assert_uint_eq(M.hdr.reqid, reqid);
	ck_assert_msg(M.hdr.type == type, "got %s, wanted %s",
		      ipc_type_name(M.hdr.type), ipc_type_name(type));
	return 1;
}

static inline Iwcm__Result listen_addr(int fd, const char *ip, uint16_t port,
				       uint64_t *id, uint16_t *bound)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__SockAddr a = IWCM__SOCK_ADDR__INIT;
	Iwcm__ListenReply *r;
	uint8_t buf[16];
	uint32_t reqid;
	Iwcm__Result res;

	if (strchr(ip, ':')) {
		ck_assert_int_eq(inet_pton(AF_INET6, ip, buf), 1);
		a.addr.len = 16;
	} else {
		ck_assert_int_eq(inet_pton(AF_INET, ip, buf), 1);
		a.addr.len = 4;
	}
	a.addr.data = buf;
	a.port = port;
	l.addr = &a;
	request(fd, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(fd, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	res = r->result;
	if (res == IWCM__RESULT__RES_OK) {
		ck_assert(r->has_listener_id && r->listener_id);
		ck_assert_ptr_nonnull(r->bound);
		ck_assert_uint_eq(r->bound->addr.len, a.addr.len);
		if (id)
			*id = r->listener_id;
		if (bound)
			*bound = (uint16_t)r->bound->port;
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return res;
}

static inline Iwcm__Result listen_service(int fd, const char *name,
					  uint64_t *id, uint16_t *bound)
{
	Iwcm__Listen l = IWCM__LISTEN__INIT;
	Iwcm__ListenReply *r;
	uint32_t reqid;
	Iwcm__Result res;

	l.service = (char *)name;
	request(fd, IPC_CLIENT_LISTEN, &l.base, &reqid);
	reply(fd, IPC_CLIENT_LISTEN_REPLY, reqid);
	r = (Iwcm__ListenReply *)ipc_unpack(&M,
					    &iwcm__listen_reply__descriptor);
	ck_assert_ptr_nonnull(r);
	res = r->result;
	if (res == IWCM__RESULT__RES_OK) {
		if (id)
			*id = r->listener_id;
		if (bound)
			*bound = (uint16_t)r->bound->port;
	}
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return res;
}

static inline Iwcm__Result ack_of(int fd, uint16_t type,
				  const ProtobufCMessage *b)
{
	Iwcm__Ack *a;
	uint32_t reqid;
	Iwcm__Result res;

	request(fd, type, b, &reqid);
	reply(fd, IPC_CLIENT_ACK, reqid);
	a = (Iwcm__Ack *)ipc_unpack(&M, &iwcm__ack__descriptor);
	ck_assert_ptr_nonnull(a);
	res = a->result;
	protobuf_c_message_free_unpacked(&a->base, NULL);
	return res;
}

static inline Iwcm__Result unlisten(int fd, uint64_t id)
{
	Iwcm__Unlisten u = IWCM__UNLISTEN__INIT;

	u.listener_id = id;
	return ack_of(fd, IPC_CLIENT_UNLISTEN, &u.base);
}

static inline int tcp_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), rc;

	ck_assert_int_ge(fd, 0);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons(port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	rc = connect(fd, (struct sockaddr *)&sin, sizeof(sin));
	close(fd);
	return rc;
}

/* Listener infos, counting them; *port gets the one named svc. */
static inline unsigned int admin_listeners(int fd, const char *svc,
					   uint16_t *port)
{
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	uint32_t reqid;
	unsigned int n = 0;

	request(fd, IPC_CTL_LISTENERS, &e.base, &reqid);
	for (;;) {
		Iwcm__Ctl__ListenerInfo *li;

		ck_assert_int_eq(ipc_wait(fd, &M), 1);
		ck_assert_uint_eq(M.hdr.reqid, reqid);
		if (M.hdr.type == IPC_END)
			return n;
		ck_assert_uint_eq(M.hdr.type, IPC_CTL_LISTENER_INFO);
		li = (Iwcm__Ctl__ListenerInfo *)ipc_unpack(
			&M, &iwcm__ctl__listener_info__descriptor);
		ck_assert_ptr_nonnull(li);
		n++;
		if (svc && port && li->service && !strcmp(li->service, svc))
			*port = (uint16_t)li->addr->port;
		protobuf_c_message_free_unpacked(&li->base, NULL);
	}
}

/*
 * main() of a Check program whose tests need something the machine may
 * lack: when missing() names it, the program prints why and exits 77,
 * which the automake test driver reports as SKIP (not PASS).
 */
#define DAEMON_TEST_MAIN_OR_SKIP(suite_fn, missing)           \
	int main(void)                                        \
	{                                                     \
		const char *why = missing();                  \
		SRunner *sr;                                  \
		int nf;                                       \
                                                              \
		if (why) {                                    \
			fprintf(stderr, "SKIP: %s\n", why);   \
			return 77;                            \
		}                                             \
		test_rng_seed();                              \
		signal(SIGPIPE, SIG_IGN);                     \
		sr = srunner_create(suite_fn());              \
		srunner_run_all(sr, CK_NORMAL);               \
		nf = srunner_ntests_failed(sr);               \
		srunner_free(sr);                             \
		return nf == 0 ? EXIT_SUCCESS : EXIT_FAILURE; \
	}

/* The daemon closed fd (after what it still had to say). */
static inline bool peer_closed(int fd)
{
	int n;

	/* the daemon may answer (VERSION) before it closes */
	while ((n = ipc_wait(fd, &M)) == 1)
		ipc_msg_clear(&M);
	return n == 0 || (n < 0 && errno == ECONNRESET);
}

/* Admin request answered by one message then END; returns it unpacked. */
static inline ProtobufCMessage *admin_one(int fd, uint16_t type, uint16_t rtype,
					  const ProtobufCMessageDescriptor *d)
{
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	ProtobufCMessage *r;
	uint32_t reqid;

	request(fd, type, &e.base, &reqid);
	reply(fd, rtype, reqid);
	r = ipc_unpack(&M, d);
	ck_assert_ptr_nonnull(r);
	reply(fd, IPC_END, reqid);
	return r;
}

static inline Iwcm__Result admin_result(int fd, uint16_t type,
					const ProtobufCMessage *b)
{
	Iwcm__Ctl__Result *r;
	uint32_t reqid;
	Iwcm__Result res;

	request(fd, type, b, &reqid);
	reply(fd, IPC_RESULT, reqid);
	r = (Iwcm__Ctl__Result *)ipc_unpack(&M, &iwcm__ctl__result__descriptor);
	ck_assert_ptr_nonnull(r);
	res = r->result;
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return res;
}

static inline uint64_t admin_counter(int fd, const char *name)
{
	Iwcm__Ctl__Stats *s;
	uint64_t v = UINT64_MAX;
	size_t i;

	s = (Iwcm__Ctl__Stats *)admin_one(fd, IPC_CTL_STATS,
					  IPC_CTL_STATS_REPLY,
					  &iwcm__ctl__stats__descriptor);
	for (i = 0; i < s->n_counters; i++)
		if (!strcmp(s->counters[i]->key, name))
			v = s->counters[i]->value;
	protobuf_c_message_free_unpacked(&s->base, NULL);
	return v;
}

/* One tcase per test, each with a daemon stopped by teardown(). */
static inline void daemon_add_test(Suite *s, const char *name, const TTest *fn)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, 30);
	tcase_add_checked_fixture(tc, NULL, teardown);
	tcase_add_test(tc, fn);
	suite_add_tcase(s, tc);
}

#endif
