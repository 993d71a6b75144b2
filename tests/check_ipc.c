/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * IPC framing over socketpair(SOCK_SEQPACKET): round trips, fd passing
 * taken exactly once, oversize datagrams, truncated control data, stray
 * fds, bad headers, and no fd leaked on any error path.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common.h"

#include "ipc.h"
#include "iwcm.pb-c.h"

static int sp[2];
static struct ipc_msg msg;

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			n++;
	closedir(d);
	return n - 1; /* the DIR's own fd */
}

static void setup(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp), 0);
}

static void teardown(void)
{
	close(sp[0]);
	close(sp[1]);
}

START_TEST(test_hello_round_trip)
{
	Iwcm__Hello h = IWCM__HELLO__INIT;
	Iwcm__Hello *got;

	h.version = IPC_PROTO_VERSION;
	h.client_name = "check";
	ck_assert_int_eq(ipc_send(sp[0], IPC_HELLO, 77, &h.base, -1), 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	ck_assert_uint_eq(msg.hdr.version, IPC_PROTO_VERSION);
	ck_assert_uint_eq(msg.hdr.type, IPC_HELLO);
	ck_assert_uint_eq(msg.hdr.reqid, 77);
	ck_assert_int_eq(msg.fd, -1);
	got = (Iwcm__Hello *)ipc_unpack(&msg, &iwcm__hello__descriptor);
	ck_assert_ptr_nonnull(got);
	ck_assert_uint_eq(got->version, IPC_PROTO_VERSION);
	ck_assert_str_eq(got->client_name, "check");
	protobuf_c_message_free_unpacked(&got->base, NULL);
	ck_assert_str_eq(ipc_type_name(IPC_EVENT_ESTABLISHED),
			 "EVENT_ESTABLISHED");
	ck_assert_str_eq(ipc_type_name(9999), "UNKNOWN");
}
END_TEST

START_TEST(test_empty_body_and_eof)
{
	ck_assert_int_eq(ipc_send(sp[0], IPC_END, 1, NULL, -1), 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	ck_assert_uint_eq(msg.hdr.type, IPC_END);
	ck_assert_uint_eq(msg.body_len, 0);
	close(sp[0]);
	sp[0] = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 0);
}
END_TEST

START_TEST(test_fd_passing_taken_once)
{
	int p[2], fd, before;
	char c = 0;

	ck_assert_int_eq(pipe(p), 0);
	before = open_fds();
	ck_assert_int_eq(ipc_send(sp[0], IPC_EVENT_ESTABLISHED, 5, NULL, p[1]),
			 0);
	close(p[1]);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), 1);
	fd = ipc_take_fd(&msg);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ipc_take_fd(&msg), -1);
	ipc_msg_clear(&msg); /* must not close the taken fd */
	ck_assert_int_eq(write(fd, "x", 1), 1);
	ck_assert_int_eq(read(p[0], &c, 1), 1);
	ck_assert_int_eq(c, 'x');
	ck_assert(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	close(fd);
	/* the last writer is gone: the pipe reads EOF */
	ck_assert_int_eq(read(p[0], &c, 1), 0);
	close(p[0]);
	ck_assert_int_eq(open_fds(), before - 2);
}
END_TEST

START_TEST(test_untaken_fd_closed)
{
	int p[2];
	char c;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ipc_send(sp[0], IPC_EVENT_ESTABLISHED, 5, NULL, p[1]),
			 0);
	close(p[1]);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), 1);
	ipc_msg_clear(&msg);
	ck_assert_int_eq(read(p[0], &c, 1), 0);
	close(p[0]);
}
END_TEST

START_TEST(test_fd_refused_where_not_allowed)
{
	int p[2];
	char c;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(ipc_send(sp[0], IPC_CTL_STATUS, 1, NULL, p[1]), 0);
	close(p[1]);
	errno = 0;
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), -1);
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_int_eq(msg.fd, -1);
	/* the stray fd was closed, not leaked */
	ck_assert_int_eq(read(p[0], &c, 1), 0);
	close(p[0]);
}
END_TEST

static void send_raw(const void *buf, size_t len, const int *fds, int nfds)
{
	struct iovec iov = { (void *)(uintptr_t)buf, len };
	struct msghdr mh;
	char cbuf[CMSG_SPACE(64 * sizeof(int))];

	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (nfds) {
		struct cmsghdr *cm;

		memset(cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf;
		mh.msg_controllen = CMSG_SPACE(nfds * sizeof(int));
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(nfds * sizeof(int));
		memcpy(CMSG_DATA(cm), fds, nfds * sizeof(int));
	}
	ck_assert_int_eq(sendmsg(sp[0], &mh, 0), (ssize_t)len);
}

START_TEST(test_two_fds_rejected)
{
	uint8_t hdr[IPC_HDR_LEN] = { 0, IPC_PROTO_VERSION, 0x01, 0x2d, 0, 0, 0,
				     1 };
	int p[2], q[2], fds[2], before;
	char c;

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pipe(q), 0);
	fds[0] = p[1];
	fds[1] = q[1];
	send_raw(hdr, sizeof(hdr), fds, 2);
	close(p[1]);
	close(q[1]);
	before = open_fds();
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), -1);
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_int_eq(open_fds(), before);
	ck_assert_int_eq(read(p[0], &c, 1), 0);
	ck_assert_int_eq(read(q[0], &c, 1), 0);
	close(p[0]);
	close(q[0]);
}
END_TEST

START_TEST(test_ctrunc_rejected_no_leak)
{
	uint8_t hdr[IPC_HDR_LEN] = { 0, IPC_PROTO_VERSION, 0x01, 0x2d, 0, 0, 0,
				     1 };
	int fds[32], i, before;

	for (i = 0; i < 32; i++)
		fds[i] = dup(0);
	send_raw(hdr, sizeof(hdr), fds, 32);
	for (i = 0; i < 32; i++)
		close(fds[i]);
	before = open_fds();
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), -1);
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

START_TEST(test_oversize_datagram)
{
	static uint8_t big[IPC_MAX_MSG + 100];
	int val = 4 * IPC_MAX_MSG;

	ck_assert_int_eq(
		setsockopt(sp[0], SOL_SOCKET, SO_SNDBUF, &val, sizeof(val)), 0);
	big[1] = IPC_PROTO_VERSION;
	send_raw(big, sizeof(big), NULL, 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	/* the peer can still be read (caller decides to close it) */
	ck_assert_int_eq(ipc_send(sp[0], IPC_END, 2, NULL, -1), 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), 1);
	ck_assert_uint_eq(msg.hdr.reqid, 2);
}
END_TEST

START_TEST(test_oversize_send)
{
	Iwcm__Reject r = IWCM__REJECT__INIT;
	static uint8_t pd[IPC_MAX_MSG];

	r.conn_id = 1;
	r.has_private_data = 1;
	r.private_data.data = pd;
	r.private_data.len = sizeof(pd);
	ck_assert_int_eq(ipc_send(sp[0], IPC_CLIENT_REJECT, 1, &r.base, -1),
			 -1);
	ck_assert_int_eq(errno, EMSGSIZE);
}
END_TEST

START_TEST(test_bad_headers)
{
	uint8_t shorthdr[5] = { 0, 1, 0, 1, 0 };
	uint8_t badver[IPC_HDR_LEN] = { 0, 9, 0, 1, 0, 0, 0, 1 };
	uint8_t garbage[IPC_HDR_LEN + 3] = {
		0, IPC_PROTO_VERSION, 0, 1, 0, 0, 0, 1, 0xff, 0xff, 0xff
	};

	send_raw(shorthdr, sizeof(shorthdr), NULL, 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), -1);
	ck_assert_int_eq(errno, EBADMSG);
	send_raw(badver, sizeof(badver), NULL, 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), -1);
	ck_assert_int_eq(errno, EPROTO);
	send_raw(garbage, sizeof(garbage), NULL, 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	errno = 0;
	ck_assert_ptr_null(ipc_unpack(&msg, &iwcm__hello__descriptor));
	ck_assert_int_eq(errno, EBADMSG);
}
END_TEST

START_TEST(test_established_round_trip)
{
	Iwcm__Established e = IWCM__ESTABLISHED__INIT;
	Iwcm__SockAddr l = IWCM__SOCK_ADDR__INIT, p = IWCM__SOCK_ADDR__INIT;
	Iwcm__PeerInfo pi = IWCM__PEER_INFO__INIT;
	Iwcm__Established *g;
	uint8_t a4[4] = { 192, 0, 2, 1 }, unread[7] = "abcdef";
	uint32_t msn[4] = { 1, 1, 1, 1 };

	l.addr.data = a4;
	l.addr.len = 4;
	l.port = 4791;
	p = l;
	e.conn_id = 42;
	e.local = &l;
	e.peer = &p;
	e.peer_info = &pi;
	e.mpa_rev = 2;
	e.ddp_version = 1;
	e.rdmap_version = 1;
	e.crc = 1;
	e.ird = 16;
	e.ord = 8;
	e.rtr_type = IWCM__RTR_TYPE__RTR_WRITE;
	e.tx_offset = 20;
	e.has_unread = 1;
	e.unread.data = unread;
	e.unread.len = 6;
	e.n_next_msn = 4;
	e.next_msn = msn;
	ck_assert_int_eq(ipc_send(sp[0], IPC_EVENT_ESTABLISHED, 3, &e.base, -1),
			 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, true), 1);
	g = (Iwcm__Established *)ipc_unpack(&msg,
					    &iwcm__established__descriptor);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->conn_id, 42);
	ck_assert_uint_eq(g->ird, 16);
	ck_assert_uint_eq(g->ord, 8);
	ck_assert_uint_eq(g->rtr_type, 2);
	ck_assert_uint_eq(g->tx_offset, 20);
	ck_assert_uint_eq(g->unread.len, 6);
	ck_assert_mem_eq(g->unread.data, "abcdef", 6);
	ck_assert_uint_eq(g->n_next_msn, 4);
	protobuf_c_message_free_unpacked(&g->base, NULL);
}
END_TEST

START_TEST(test_packed_queue_send)
{
	Iwcm__Hello h = IWCM__HELLO__INIT, *g;
	uint8_t buf[IPC_MAX_MSG];
	ssize_t len;

	h.version = IPC_PROTO_VERSION;
	len = ipc_pack(IPC_HELLO, 9, &h.base, buf, sizeof(buf));
	ck_assert_int_gt(len, IPC_HDR_LEN);
	ck_assert_int_eq(ipc_pack(IPC_HELLO, 9, &h.base, buf, 4), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_int_eq(ipc_send_buf(sp[0], buf, (size_t)len, -1), 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	ck_assert_uint_eq(msg.hdr.type, IPC_HELLO);
	ck_assert_uint_eq(msg.hdr.reqid, 9);
	g = (Iwcm__Hello *)ipc_unpack(&msg, &iwcm__hello__descriptor);
	ck_assert_ptr_nonnull(g);
	ck_assert_uint_eq(g->version, IPC_PROTO_VERSION);
	protobuf_c_message_free_unpacked(&g->base, NULL);
}
END_TEST

/* A batch: each message its own datagram, the fd with the one it
 * belongs to, and on a full socket the count of those that went. */
START_TEST(test_send_batch)
{
	struct ipc_buf b[IPC_SEND_BATCH + 1];
	uint8_t buf[3][64];
	struct stat st;
	ssize_t len;
	int i, k, fd, total;

	fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	for (i = 0; i < 3; i++) {
		len = ipc_pack(IPC_CLIENT_ACK, (uint32_t)i + 1, NULL, buf[i],
			       sizeof(buf[i]));
		ck_assert_int_eq(len, IPC_HDR_LEN);
		b[i].buf = buf[i];
		b[i].len = (size_t)len;
		b[i].fd = i == 1 ? fd : -1;
	}
	ck_assert_int_eq(ipc_send_bufs(sp[0], b, 3), 3);
	close(fd);
	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(ipc_recv(sp[1], &msg, true), 1);
		ck_assert_uint_eq(msg.hdr.reqid, (uint32_t)i + 1);
		if (i != 1) {
			ck_assert_int_eq(msg.fd, -1);
			continue;
		}
		ck_assert_int_ge(msg.fd, 0);
		ck_assert_int_eq(fstat(msg.fd, &st), 0);
		ck_assert(S_ISCHR(st.st_mode));
		close(msg.fd);
	}
	ck_assert_int_eq(ipc_send_bufs(sp[0], b, 0), -1);
	ck_assert_int_eq(errno, EINVAL);
	/* an oversized one ends the batch before it, and fails first */
	b[1].fd = -1;
	b[1].len = IPC_MAX_MSG + 1;
	ck_assert_int_eq(ipc_send_bufs(sp[0], b, 3), 1);
	ck_assert_int_eq(ipc_send_bufs(sp[0], b + 1, 2), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	ck_assert_uint_eq(msg.hdr.reqid, 1);

	/* more than a batch: IPC_SEND_BATCH go, the rest is the caller's */
	for (i = 0; i <= IPC_SEND_BATCH; i++)
		b[i] = (struct ipc_buf){ buf[0], IPC_HDR_LEN, -1 };
	ck_assert_int_eq(fcntl(sp[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(ipc_send_bufs(sp[0], b, IPC_SEND_BATCH + 1),
			 IPC_SEND_BATCH);
	/* fill the socket: a partial batch, then EAGAIN */
	total = IPC_SEND_BATCH;
	while ((k = ipc_send_bufs(sp[0], b, IPC_SEND_BATCH)) > 0)
		total += k;
	ck_assert_int_eq(errno, EAGAIN);
	for (i = 0; i < total; i++)
		ck_assert_int_eq(ipc_recv(sp[1], &msg, false), 1);
	ck_assert_int_eq(fcntl(sp[1], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(ipc_recv(sp[1], &msg, false), -1);
	ck_assert_int_eq(errno, EAGAIN);
}
END_TEST

START_TEST(test_admin_path)
{
	char out[64];

	ck_assert_int_eq(
		ipc_admin_path("/run/iwcm/iwcmd.sock", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/run/iwcm/iwcmd.admin.sock");
	ck_assert_int_eq(ipc_admin_path("/tmp/x", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp/x.admin");
	ck_assert_int_eq(ipc_admin_path(".sock", out, sizeof(out)), 0);
	ck_assert_str_eq(out, ".admin.sock");
	ck_assert_int_eq(ipc_admin_path("/tmp/sock", out, sizeof(out)), 0);
	ck_assert_str_eq(out, "/tmp/sock.admin");
	ck_assert_int_eq(ipc_admin_path("/run/iwcm/iwcmd.sock", out, 20), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	ck_assert_str_eq(out, "");
}
END_TEST

static Suite *ipc_suite(void)
{
	Suite *s = suite_create("ipc");
	TCase *tc = tcase_create("seqpacket");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_hello_round_trip);
	tcase_add_test(tc, test_empty_body_and_eof);
	tcase_add_test(tc, test_fd_passing_taken_once);
	tcase_add_test(tc, test_untaken_fd_closed);
	tcase_add_test(tc, test_fd_refused_where_not_allowed);
	tcase_add_test(tc, test_two_fds_rejected);
	tcase_add_test(tc, test_ctrunc_rejected_no_leak);
	tcase_add_test(tc, test_oversize_datagram);
	tcase_add_test(tc, test_oversize_send);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_established_round_trip);
	tcase_add_test(tc, test_packed_queue_send);
	tcase_add_test(tc, test_send_batch);
	tcase_add_test(tc, test_admin_path);
	suite_add_tcase(s, tc);
	return s;
}

TEST_MAIN(ipc_suite)
