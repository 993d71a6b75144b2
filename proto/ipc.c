/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ipc.h"

static const struct {
	uint16_t type;
	const char *name;
} ipc_type_names[] = {
	{ IPC_HELLO, "HELLO" },
	{ IPC_VERSION, "VERSION" },
	{ IPC_END, "END" },
	{ IPC_RESULT, "RESULT" },
	{ IPC_CTL_STATUS, "CTL_STATUS" },
	{ IPC_CTL_LISTENERS, "CTL_LISTENERS" },
	{ IPC_CTL_CONNS, "CTL_CONNS" },
	{ IPC_CTL_SHOW, "CTL_SHOW" },
	{ IPC_CTL_STATS, "CTL_STATS" },
	{ IPC_CTL_LOG, "CTL_LOG" },
	{ IPC_CTL_KILL, "CTL_KILL" },
	{ IPC_CTL_LISTENER_SET, "CTL_LISTENER_SET" },
	{ IPC_CTL_CONNECT, "CTL_CONNECT" },
	{ IPC_CTL_STATUS_REPLY, "CTL_STATUS_REPLY" },
	{ IPC_CTL_LISTENER_INFO, "CTL_LISTENER_INFO" },
	{ IPC_CTL_CONN_INFO, "CTL_CONN_INFO" },
	{ IPC_CTL_STATS_REPLY, "CTL_STATS_REPLY" },
	{ IPC_CTL_NEGOTIATION, "CTL_NEGOTIATION" },
	{ IPC_CLIENT_LISTEN, "CLIENT_LISTEN" },
	{ IPC_CLIENT_UNLISTEN, "CLIENT_UNLISTEN" },
	{ IPC_CLIENT_CONNECT, "CLIENT_CONNECT" },
	{ IPC_CLIENT_ACCEPT, "CLIENT_ACCEPT" },
	{ IPC_CLIENT_REJECT, "CLIENT_REJECT" },
	{ IPC_CLIENT_DISCONNECT, "CLIENT_DISCONNECT" },
	{ IPC_CLIENT_LISTEN_REPLY, "CLIENT_LISTEN_REPLY" },
	{ IPC_CLIENT_ACK, "CLIENT_ACK" },
	{ IPC_EVENT_CONNECT_REQUEST, "EVENT_CONNECT_REQUEST" },
	{ IPC_EVENT_ESTABLISHED, "EVENT_ESTABLISHED" },
	{ IPC_EVENT_REJECTED, "EVENT_REJECTED" },
	{ IPC_EVENT_UNREACHABLE, "EVENT_UNREACHABLE" },
	{ IPC_EVENT_ERROR, "EVENT_ERROR" },
};

/* Name of a message type for logs, never NULL. */
const char *ipc_type_name(uint16_t type)
{
	size_t i;

	for (i = 0; i < sizeof(ipc_type_names) / sizeof(ipc_type_names[0]); i++)
		if (ipc_type_names[i].type == type)
			return ipc_type_names[i].name;
	return "UNKNOWN";
}

static void ipc_hdr_put(uint8_t *p, uint16_t type, uint32_t reqid)
{
	p[0] = IPC_PROTO_VERSION >> 8;
	p[1] = IPC_PROTO_VERSION & 0xFF;
	p[2] = (uint8_t)(type >> 8);
	p[3] = (uint8_t)type;
	p[4] = (uint8_t)(reqid >> 24);
	p[5] = (uint8_t)(reqid >> 16);
	p[6] = (uint8_t)(reqid >> 8);
	p[7] = (uint8_t)reqid;
}

/* Pack header and body into buf; returns the message length. */
ssize_t ipc_pack(uint16_t type, uint32_t reqid, const ProtobufCMessage *body,
		 uint8_t *buf, size_t cap)
{
	size_t blen = 0;

	if (cap < IPC_HDR_LEN) {
		errno = EMSGSIZE;
		return -1;
	}
	if (body) {
		blen = protobuf_c_message_get_packed_size(body);
		if (blen > IPC_MAX_BODY || blen > cap - IPC_HDR_LEN) {
			errno = EMSGSIZE;
			return -1;
		}
		protobuf_c_message_pack(body, buf + IPC_HDR_LEN);
	}
	ipc_hdr_put(buf, type, reqid);
	return (ssize_t)(IPC_HDR_LEN + blen);
}

/* Send len packed octets as one datagram, with fd attached when >= 0. */
int ipc_send_buf(int sock, const uint8_t *buf, size_t len, int fd)
{
	struct iovec iov;
	struct msghdr mh;
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} cbuf;
	ssize_t n;

	if (len > IPC_MAX_MSG) {
		errno = EMSGSIZE;
		return -1;
	}
	iov.iov_base = (void *)buf;
	iov.iov_len = len;
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (fd >= 0) {
		struct cmsghdr *cm;

		memset(&cbuf, 0, sizeof(cbuf));
		mh.msg_control = cbuf.buf;
		mh.msg_controllen = sizeof(cbuf.buf);
		cm = CMSG_FIRSTHDR(&mh);
		cm->cmsg_level = SOL_SOCKET;
		cm->cmsg_type = SCM_RIGHTS;
		cm->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cm), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EMSGSIZE;
		return -1;
	}
	return 0;
}

/* Up to IPC_SEND_BATCH messages in one sendmmsg(2). */
int ipc_send_bufs(int sock, const struct ipc_buf *b, unsigned int n)
{
	struct mmsghdr mm[IPC_SEND_BATCH];
	struct iovec iov[IPC_SEND_BATCH];
	union {
		struct cmsghdr align;
		char buf[CMSG_SPACE(sizeof(int))];
	} cbuf[IPC_SEND_BATCH];
	unsigned int i;
	int k;

	if (n > IPC_SEND_BATCH)
		n = IPC_SEND_BATCH;
	if (n == 0) {
		errno = EINVAL;
		return -1;
	}
	memset(mm, 0, n * sizeof(mm[0]));
	for (i = 0; i < n; i++) {
		struct msghdr *mh = &mm[i].msg_hdr;

		if (b[i].len > IPC_MAX_MSG) {
			if (i == 0) {
				errno = EMSGSIZE;
				return -1;
			}
			n = i; /* the caller meets it first next time */
			break;
		}
		iov[i].iov_base = (void *)b[i].buf;
		iov[i].iov_len = b[i].len;
		mh->msg_iov = &iov[i];
		mh->msg_iovlen = 1;
		if (b[i].fd >= 0) {
			struct cmsghdr *cm;

			memset(&cbuf[i], 0, sizeof(cbuf[i]));
			mh->msg_control = cbuf[i].buf;
			mh->msg_controllen = sizeof(cbuf[i].buf);
			cm = CMSG_FIRSTHDR(mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int));
			memcpy(CMSG_DATA(cm), &b[i].fd, sizeof(int));
		}
	}
	do
		k = sendmmsg(sock, mm, n, MSG_NOSIGNAL);
	while (k < 0 && errno == EINTR);
	if (k <= 0) {
		if (k == 0)
			errno = EAGAIN;
		return -1;
	}
	/* a datagram goes whole or not at all */
	for (i = 0; i < (unsigned int)k; i++)
		if (mm[i].msg_len != b[i].len) {
			errno = EMSGSIZE;
			return -1;
		}
	return k;
}

/* Pack body behind a header and send it as one datagram, maybe with fd. */
int ipc_send(int sock, uint16_t type, uint32_t reqid,
	     const ProtobufCMessage *body, int fd)
{
	uint8_t buf[IPC_MAX_MSG];
	ssize_t len;

	len = ipc_pack(type, reqid, body, buf, sizeof(buf));
	if (len < 0)
		return -1;
	return ipc_send_buf(sock, buf, (size_t)len, fd);
}

/* The admin socket path beside a client socket path. */
int ipc_admin_path(const char *client_path, char *out, size_t len)
{
	static const char sfx[] = ".sock";
	size_t n = strlen(client_path), sl = sizeof(sfx) - 1;
	int w;

	if (n >= sl && !strcmp(client_path + n - sl, sfx))
		w = snprintf(out, len, "%.*s.admin.sock", (int)(n - sl),
			     client_path);
	else
		w = snprintf(out, len, "%s.admin", client_path);
	if (w < 0 || (size_t)w >= len) {
		if (len)
			out[0] = '\0';
		errno = ENAMETOOLONG;
		return -1;
	}
	return 0;
}

/*
 * Collect the fds of every SCM_RIGHTS block.  Returns the number found
 * (storing the first in *fd, closing all others) or -1 when control data
 * other than SCM_RIGHTS is present (every fd closed).
 */
static int ipc_collect_fds(struct msghdr *mh, int *fd)
{
	struct cmsghdr *cm;
	int count = 0, bad = 0;

	*fd = -1;
	for (cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		size_t i, nfds;

		if (cm->cmsg_level != SOL_SOCKET ||
		    cm->cmsg_type != SCM_RIGHTS) {
			bad = 1;
			continue;
		}
		nfds = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (i = 0; i < nfds; i++) {
			int f;

			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int),
			       sizeof(int));
			if (count++ == 0)
				*fd = f;
			else
				close(f);
		}
	}
	if (bad) {
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
		return -1;
	}
	return count;
}

/* Receive one datagram into m (see ipc.h for the errors). */
int ipc_recv(int sock, struct ipc_msg *m, bool allow_fd)
{
	struct iovec iov;
	struct msghdr mh;
	union {
		struct cmsghdr align;
		/* room for a few fds so that extra ones are seen and closed
		 * rather than silently truncated */
		char buf[CMSG_SPACE(8 * sizeof(int))];
	} cbuf;
	ssize_t n;
	int nfds, fd;

	m->fd = -1;
	m->body = NULL;
	m->body_len = 0;
	iov.iov_base = m->buf;
	iov.iov_len = sizeof(m->buf);
	memset(&mh, 0, sizeof(mh));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = cbuf.buf;
	mh.msg_controllen = sizeof(cbuf.buf);
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	nfds = ipc_collect_fds(&mh, &fd);
	if (n == 0 && nfds == 0 && !(mh.msg_flags & MSG_CTRUNC))
		return 0;
	if (mh.msg_flags & MSG_TRUNC) {
		if (fd >= 0)
			close(fd);
		errno = EMSGSIZE;
		return -1;
	}
	if (nfds < 0 || nfds > 1 || (mh.msg_flags & MSG_CTRUNC) ||
	    (nfds == 1 && !allow_fd) || (size_t)n < IPC_HDR_LEN) {
		if (fd >= 0)
			close(fd);
		errno = EBADMSG;
		return -1;
	}
	m->hdr.version = (uint16_t)(m->buf[0] << 8 | m->buf[1]);
	m->hdr.type = (uint16_t)(m->buf[2] << 8 | m->buf[3]);
	m->hdr.reqid = (uint32_t)m->buf[4] << 24 | (uint32_t)m->buf[5] << 16 |
		       (uint32_t)m->buf[6] << 8 | m->buf[7];
	if (m->hdr.version != IPC_PROTO_VERSION) {
		if (fd >= 0)
			close(fd);
		errno = EPROTO;
		return -1;
	}
	m->body = m->buf + IPC_HDR_LEN;
	m->body_len = (size_t)n - IPC_HDR_LEN;
	m->fd = fd;
	return 1;
}

/* Take the message's fd; returns it once, then -1. */
int ipc_take_fd(struct ipc_msg *m)
{
	int fd = m->fd;

	m->fd = -1;
	return fd;
}

/* Close an fd the handler did not take. */
void ipc_msg_clear(struct ipc_msg *m)
{
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

/* Unpack m's body as descriptor d after checking its length. */
ProtobufCMessage *ipc_unpack(const struct ipc_msg *m,
			     const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *msg;

	if (m->body_len > IPC_MAX_BODY) {
		errno = EMSGSIZE;
		return NULL;
	}
	msg = protobuf_c_message_unpack(d, NULL, m->body_len, m->body);
	if (!msg)
		errno = EBADMSG;
	return msg;
}
