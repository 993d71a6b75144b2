/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_IPC_H
#define IWCM_IPC_H

/*
 * Message framing on the daemon's SOCK_SEQPACKET UNIX sockets: one message
 * per datagram, an 8-octet header {u16 version, u16 type, u32 request id}
 * in network byte order, then a protobuf-c body.  Every length is capped
 * (IPC_MAX_MSG) before anything is unpacked; a truncated datagram or
 * truncated control data is an error that closes that peer.  At most one
 * fd travels with a message (SCM_RIGHTS); the receiver takes it exactly
 * once with ipc_take_fd() and ipc_msg_clear() closes one left behind.
 *
 * Functions return 0 or -1 with errno (STYLE.md), never print.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <protobuf-c/protobuf-c.h>

#define IPC_PROTO_VERSION 1
#define IPC_HDR_LEN 8
#define IPC_MAX_MSG (64 * 1024) /* header + body */
#define IPC_MAX_BODY (IPC_MAX_MSG - IPC_HDR_LEN)

/* Message types (the header's type field). */
enum ipc_type {
	IPC_HELLO = 1,	 /* client -> daemon: Hello */
	IPC_VERSION = 2, /* daemon -> client: Version */
	IPC_END = 3,	 /* admin: end of a multi-message reply */
	IPC_RESULT = 4,	 /* admin: ctl.Result ends a request */

	IPC_CTL_STATUS = 100, /* Empty -> Status */
	IPC_CTL_LISTENERS,    /* Empty -> ListenerInfo* END */
	IPC_CTL_CONNS,	      /* Empty -> ConnInfo* END */
	IPC_CTL_SHOW,	      /* Show -> ConnInfo RESULT */
	IPC_CTL_STATS,	      /* Empty -> Stats */
	IPC_CTL_LOG,	      /* LogLevel -> RESULT */
	IPC_CTL_KILL,	      /* Kill -> RESULT */
	IPC_CTL_LISTENER_SET, /* ListenerSet -> RESULT */
	IPC_CTL_CONNECT,      /* ForceConnect -> NegotiationReport */
	IPC_CTL_STATUS_REPLY = 150,
	IPC_CTL_LISTENER_INFO,
	IPC_CTL_CONN_INFO,
	IPC_CTL_STATS_REPLY,
	IPC_CTL_NEGOTIATION,

	IPC_CLIENT_LISTEN = 200, /* Listen -> ListenReply */
	IPC_CLIENT_UNLISTEN,	 /* Unlisten -> Ack */
	IPC_CLIENT_CONNECT,	 /* Connect -> Ack, then events */
	IPC_CLIENT_ACCEPT,	 /* Accept -> Ack, then ESTABLISHED */
	IPC_CLIENT_REJECT,	 /* Reject -> Ack */
	IPC_CLIENT_DISCONNECT,	 /* Disconnect -> Ack */
	IPC_CLIENT_LISTEN_REPLY = 250,
	IPC_CLIENT_ACK,

	IPC_EVENT_CONNECT_REQUEST = 300,
	IPC_EVENT_ESTABLISHED, /* carries the connection's fd */
	IPC_EVENT_REJECTED,
	IPC_EVENT_UNREACHABLE,
	IPC_EVENT_ERROR,
};

struct ipc_hdr {
	uint16_t version;
	uint16_t type;
	uint32_t reqid;
};

/* A received message; the body points into buf. */
struct ipc_msg {
	struct ipc_hdr hdr;
	const uint8_t *body;
	size_t body_len;
	int fd; /* -1 when none or already taken */
	uint8_t buf[IPC_MAX_MSG];
};

/* Name of a message type for logs ("CLIENT_LISTEN"), never NULL. */
const char *ipc_type_name(uint16_t type);

/*
 * Pack body (may be NULL for an empty body) behind a header and send it as
 * one datagram, with fd attached when fd >= 0 (the caller keeps its fd).
 * EMSGSIZE if the packed message exceeds IPC_MAX_MSG.
 */
int ipc_send(int sock, uint16_t type, uint32_t reqid,
	     const ProtobufCMessage *body, int fd);

/*
 * Pack header and body into buf (cap octets, IPC_MAX_MSG is always
 * enough); returns the message length, or -1 with EMSGSIZE.  With
 * ipc_send_buf() this is ipc_send() in two steps, for senders that queue
 * messages while a peer's socket is full.
 */
ssize_t ipc_pack(uint16_t type, uint32_t reqid, const ProtobufCMessage *body,
		 uint8_t *buf, size_t cap);

/* Send len packed octets as one datagram, with fd attached when >= 0. */
int ipc_send_buf(int sock, const uint8_t *buf, size_t len, int fd);

/* One packed message of a batch for ipc_send_bufs(). */
struct ipc_buf {
	const uint8_t *buf;
	size_t len;
	int fd; /* attached when >= 0 */
};

#define IPC_SEND_BATCH 16

/*
 * Send up to IPC_SEND_BATCH packed messages, each one datagram, in one
 * system call (sendmmsg): the peer is woken once for the lot.  Returns
 * how many went, from the first (at least one), or -1 with errno when the
 * first could not (EAGAIN when the socket is full).
 */
int ipc_send_bufs(int sock, const struct ipc_buf *b, unsigned int n);

/*
 * The admin socket path beside a client socket path: a trailing ".sock"
 * becomes ".admin.sock", any other path gets ".admin" appended.  -1 with
 * ENAMETOOLONG when the result does not fit in len.
 */
int ipc_admin_path(const char *client_path, char *out, size_t len);

/*
 * Receive one datagram into m.  Returns 1 on a message, 0 on orderly EOF,
 * -1 with errno: EMSGSIZE (MSG_TRUNC: datagram larger than IPC_MAX_MSG),
 * EBADMSG (short header, MSG_CTRUNC, more than one fd, unexpected control
 * data, or an fd when allow_fd is false; any fd received is closed),
 * EPROTO (header version is not IPC_PROTO_VERSION: the caller answers VERSION and closes),
 * or the recvmsg() errno (EAGAIN included).
 */
int ipc_recv(int sock, struct ipc_msg *m, bool allow_fd);

/* Take the message's fd; returns it once, then -1. Consumes the fd. */
int ipc_take_fd(struct ipc_msg *m);

/* Close an fd the handler did not take. */
void ipc_msg_clear(struct ipc_msg *m);

/*
 * Unpack m's body as descriptor d after checking its length; NULL with
 * errno EBADMSG when it does not parse.  Free with
 * protobuf_c_message_free_unpacked(msg, NULL).
 */
ProtobufCMessage *ipc_unpack(const struct ipc_msg *m,
			     const ProtobufCMessageDescriptor *d);

#endif
