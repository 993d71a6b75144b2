/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "sctp_assoc.h"
#include "sctp_stack.h"

const char *const sctp_stack_names[SCTP_STACK_MAX] = {
	[SCTP_STACK_USRSCTP] = "usrsctp",
	[SCTP_STACK_KERNEL] = "kernel",
};

/* The running stack, or NULL, and which it is. */
static const struct sctp_stack_ops *sctp_ops;
static enum sctp_stack_kind sctp_kind;

void sctp_stack_defaults(struct sctp_stack_conf *c)
{
	c->kind = SCTP_STACK_USRSCTP;
	c->udp_port = SCTP_DEFAULT_UDP_PORT;
	c->encap_port = 0;
	c->streams = SCTP_DEFAULT_STREAMS;
	c->adapt_wait_ms = SCTP_ADAPT_WAIT_MS;
	c->udp_gso = true;
}

/* The stacks built in. */
static const struct sctp_stack_ops *const sctp_ops_of[SCTP_STACK_MAX] = {
	[SCTP_STACK_USRSCTP] = &sctp_stack_usrsctp,
#ifdef HAVE_KERNEL_SCTP
	[SCTP_STACK_KERNEL] = &sctp_stack_kernel,
#endif
};

int sctp_stack_init(struct event_base *base, const struct sctp_stack_conf *c,
		    char *err, size_t errlen)
{
	const struct sctp_stack_ops *ops;

	if (sctp_ops) {
		snprintf(err, errlen, "SCTP stack %s already running",
			 sctp_stack_names[sctp_kind]);
		errno = EALREADY;
		return -1;
	}
	ops = (unsigned)c->kind < SCTP_STACK_MAX ? sctp_ops_of[c->kind] : NULL;
	if (!ops) {
		snprintf(err, errlen,
			 "sctp_stack %s: not built in (no <linux/sctp.h> "
			 "with UDP encapsulation at build time); use "
			 "sctp_stack = usrsctp",
			 (unsigned)c->kind < SCTP_STACK_MAX ?
				 sctp_stack_names[c->kind] :
				 "?");
		errno = ENOTSUP;
		return -1;
	}
	if (c->streams == 0) {
		snprintf(err, errlen, "sctp: at least one stream is needed");
		errno = EINVAL;
		return -1;
	}
	sctp_as_start(base, c->adapt_wait_ms);
	if (ops->init(base, c, err, errlen) < 0)
		return -1;
	sctp_ops = ops;
	sctp_kind = c->kind;
	return 0;
}

bool sctp_stack_running(void)
{
	return sctp_ops != NULL;
}

void sctp_stack_fini(void)
{
	if (!sctp_ops)
		return;
	sctp_ops->fini();
	sctp_ops = NULL;
}

struct sctp_sock *sctp_stack_listen(const struct sockaddr *sa, socklen_t len,
				    const struct sctp_cb *cb, void *arg)
{
	if (!sctp_ops) {
		errno = ENOTCONN;
		return NULL;
	}
	return sctp_ops->listen(sa, len, cb, arg);
}

struct sctp_sock *sctp_stack_connect(const struct sockaddr *sa, socklen_t len,
				     uint16_t remote_udp_port,
				     const struct sctp_cb *cb, void *arg)
{
	if (!sctp_ops) {
		errno = ENOTCONN;
		return NULL;
	}
	return sctp_ops->connect(sa, len, remote_udp_port, cb, arg);
}

/* What a stack keeps of s for the table: its first member. */
static struct sctp_as *sctp_as_of(struct sctp_sock *s)
{
	return (struct sctp_as *)(void *)s;
}

void sctp_stack_set_cb(struct sctp_sock *s, const struct sctp_cb *cb, void *arg)
{
	struct sctp_as *a = sctp_as_of(s);

	a->cb = cb;
	a->arg = arg;
}

int sctp_stack_send(struct sctp_sock *s, uint16_t stream, uint32_t ppid,
		    const void *buf, size_t len)
{
	if (sctp_as_send_check(sctp_as_of(s), stream, len) < 0)
		return -1;
	return sctp_ops->send(s, stream, ppid, buf, len);
}

int sctp_stack_local_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			  socklen_t *len)
{
	return sctp_ops->addr(s, false, ss, len);
}

int sctp_stack_peer_addr(struct sctp_sock *s, struct sockaddr_storage *ss,
			 socklen_t *len)
{
	return sctp_ops->addr(s, true, ss, len);
}

void sctp_stack_close(struct sctp_sock *s, bool abort)
{
	if (s)
		sctp_ops->close(s, abort);
}

unsigned int sctp_stack_sockets(void)
{
	return sctp_ops ? sctp_as_sockets() : 0;
}

void sctp_stack_pause(struct sctp_sock *s, bool pause)
{
	sctp_ops->pause(s, pause);
}

int sctp_stack_fd(struct sctp_sock *s)
{
	if (!sctp_ops->fd) {
		errno = ENOTSUP;
		return -1;
	}
	return sctp_ops->fd(s);
}

bool sctp_stack_drops(struct sctp_drops *d)
{
	if (!sctp_ops || !sctp_ops->drops)
		return false;
	sctp_ops->drops(d);
	return true;
}
