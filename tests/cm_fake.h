/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The fake daemon of the libiwcm CM tests (check_libiwcm_cm*.c): a thread
 * serves a temporary SEQPACKET socket with proto/ipc and plays one script
 * per test; and the helpers those tests share.
 */
#ifndef IWCM_TEST_CM_FAKE_H
#define IWCM_TEST_CM_FAKE_H

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "common.h"

#include "ipc.h"
#include <iwcm/iwcm.h>
#include "iwcm.pb-c.h"

#define FAKE_WAIT_MS 10000

struct fake {
	char dir[64];
	char path[128];
	int lsock; /* the fake daemon's listening socket */
	int sock;  /* its accepted client */
	pthread_t thr;
	void (*script)(struct fake *);
	bool raw_hello; /* the script answers HELLO itself */
	int go[2];	/* main -> fake: proceed */
	char err[512];
	struct ipc_msg msg;
	ProtobufCMessage *last; /* last unpacked message, freed on next */
	uint32_t reqid;		/* of the last message */
	int variant;		/* _i of a loop test */
	/* A connected TCP pair: lib_fd travels to the library, peer_fd
	 * stays here. */
	int lib_fd, peer_fd;
	uint16_t lib_port, peer_port;
	uint64_t listener_id;
	int fds_before;
};

extern struct fake F;

/* The peer private data of the fake's ESTABLISHED. */
#define FAKE_PEER_PD "peer private data"
extern const uint8_t peer_pd[sizeof(FAKE_PEER_PD)];

#define FAKE_REQUIRE(f, cond)                                \
	do {                                                 \
		if (!(cond)) {                               \
			fake_fail(f, __LINE__, "%s", #cond); \
			return;                              \
		}                                            \
	} while (0)

#define fake_expect(f, type, d) fake_expect_(f, __LINE__, type, d)

#define ERRNO_IS(call, e)                     \
	do {                                  \
		errno = 0;                    \
		ck_assert_int_eq((call), -1); \
		ck_assert_int_eq(errno, (e)); \
	} while (0)

#define ERRNO_NULL(call, e)                   \
	do {                                  \
		errno = 0;                    \
		ck_assert_ptr_null(call);     \
		ck_assert_int_eq(errno, (e)); \
	} while (0)

int open_fds(void);
bool readable(int fd, int ms);
bool fake_send(struct fake *f, uint16_t type, uint32_t reqid,
	       const ProtobufCMessage *body, int fd);
bool fake_wait_go(struct fake *f);
void go(void);
bool fake_ack(struct fake *f, uint32_t reqid, Iwcm__Result res,
	      uint64_t conn_id);
void pb_addr4(Iwcm__SockAddr *sa, uint8_t *buf, const char *ip, uint16_t port);
void fake_start(void (*script)(struct fake *), bool raw_hello);
void fake_finish(void);
struct iwcm_ctx *open_ctx(unsigned int flags);
struct iwcm_conn_attr qa(const struct iwcm_conn *c);
const struct sockaddr *qa_addr(const struct iwcm_conn *c, bool local);
struct iwcm_event *get_event(struct iwcm_ctx *ctx,
			     enum iwcm_cm_event_type type);
void sin4(struct sockaddr_in *sin, const char *ip, uint16_t port);
void assert_lib_fd_closed(void);
void assert_fd_works(int fd);
void fill_peer_info(Iwcm__PeerInfo *pi);
bool fake_established(struct fake *f, uint64_t conn_id, bool initiator, int fd,
		      int bad);
void check_peer_info(struct iwcm_conn *c);
void check_addr4(const struct sockaddr *sa, uint16_t port);
void check_established(struct iwcm_conn *c, bool initiator);
void check_not_established(struct iwcm_conn *c);
void check_no_peer_info(struct iwcm_conn *c);
void script_connect_simple(struct fake *f);
struct iwcm_conn *connect_simple(struct iwcm_ctx *ctx);
bool fake_connect_request(struct fake *f, uint64_t conn_id,
			  uint64_t listener_id, bool enhanced);
bool fake_listen_reply(struct fake *f, uint64_t id);
ProtobufCMessage *fake_expect_(struct fake *f, int line, uint16_t type,
			       const ProtobufCMessageDescriptor *d);
void fake_fail(struct fake *f, int line, const char *fmt, ...);

#endif /* IWCM_TEST_CM_FAKE_H */
