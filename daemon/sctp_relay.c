/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include <errno.h>
#include <event2/event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/socket.h>
#include <unistd.h>

#include "log.h"
#include "sctp_relay.h"

/* The daemon's end's send buffer once the owner's socket first fills:
 * the kernel's default (net.core.wmem_default) holds some 90 segments,
 * less than one 128 KiB burst of an RDMA Write, and each message past it
 * costs a copy into the queue and a wake-up more. */
#define RELAY_SNDBUF (1 << 20)
/*
 * The owner's messages taken per recvmmsg(2).  Fewer than asked means
 * its socket was empty: the read event says when more comes, so a
 * ping-pong's message costs one call and no read to see EAGAIN.
 */
#define RELAY_RX_BATCH 4

struct relay_msg {
	STAILQ_ENTRY(relay_msg) entry;
	size_t len; /* header included */
	uint8_t buf[];
};

struct sctp_relay {
	LIST_ENTRY(sctp_relay) entry; /* every relay, for shutdown */
	int fd;			      /* the daemon's end */
	uint16_t stream;
	size_t maxseg;
	const struct sctp_relay_ops *ops;
	void *arg;
	struct event *rev, *wev;
	STAILQ_HEAD(, relay_msg) q;
	size_t queued;
	bool high;	/* backlog(true) was reported */
	bool reading;	/* the owner's end is read */
	bool finishing; /* close once the queue is empty */
	uint8_t *rxbuf; /* RELAY_RX_BATCH messages of rxcap */
	size_t rxcap;
	struct mmsghdr rxmm[RELAY_RX_BATCH];
	struct iovec rxiov[RELAY_RX_BATCH];
	/* the batch read: the next message to give the stack (those
	 * before it taken, it and the rest held until it takes them), how
	 * many, and whether fewer came than were asked for */
	unsigned int rx_i, rx_n;
	bool rx_short;
	bool grown; /* RELAY_SNDBUF set */
};

/* Relays still draining to an owner belong to nobody else. */
static LIST_HEAD(, sctp_relay) relays = LIST_HEAD_INITIALIZER(relays);

static void relay_put_hdr(uint8_t *h, uint16_t stream, uint32_t ppid)
{
	h[0] = (uint8_t)(stream >> 8);
	h[1] = (uint8_t)stream;
	h[2] = h[3] = 0;
	h[4] = (uint8_t)(ppid >> 24);
	h[5] = (uint8_t)(ppid >> 16);
	h[6] = (uint8_t)(ppid >> 8);
	h[7] = (uint8_t)ppid;
}

/* Free everything; no callback. */
void sctp_relay_free(struct sctp_relay *r)
{
	struct relay_msg *m;

	if (!r)
		return;
	LIST_REMOVE(r, entry);
	while ((m = STAILQ_FIRST(&r->q))) {
		STAILQ_REMOVE_HEAD(&r->q, entry);
		free(m);
	}
	if (r->rev)
		event_free(r->rev);
	if (r->wev)
		event_free(r->wev);
	close(r->fd);
	free(r->rxbuf);
	free(r);
}

static void relay_fail(struct sctp_relay *r, bool error)
{
	const struct sctp_relay_ops *ops = r->ops;
	void *arg = r->arg;

	/* the owner of r decides its end (sctp_relay_free/_finish) */
	event_del(r->rev);
	event_del(r->wev);
	r->reading = false;
	ops->closed(arg, error);
}

/* Write what is queued; false when r was freed. */
static bool relay_flush(struct sctp_relay *r)
{
	struct relay_msg *m;

	while ((m = STAILQ_FIRST(&r->q))) {
		ssize_t n = send(r->fd, m->buf, m->len, MSG_DONTWAIT);

		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			event_add(r->wev, NULL);
			return true;
		}
		if (n < 0 || (size_t)n != m->len) {
			/* the owner's end is gone */
			if (r->finishing) {
				sctp_relay_free(r);
				return false;
			}
			relay_fail(r, true);
			return true;
		}
		STAILQ_REMOVE_HEAD(&r->q, entry);
		free(m);
		r->queued--;
		if (r->high && r->queued <= SCTP_RELAY_LOW) {
			r->high = false;
			if (!r->finishing)
				r->ops->backlog(r->arg, false);
		}
	}
	event_del(r->wev);
	if (r->finishing) {
		sctp_relay_free(r);
		return false;
	}
	return true;
}

static void relay_writable(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	relay_flush(arg);
}

/* A batch of the owner's messages: its count, 0 when the socket is
 * empty, -1 when it failed. */
static int relay_read_batch(struct sctp_relay *r, int fd)
{
	int k, i;

	for (i = 0; i < RELAY_RX_BATCH; i++) {
		struct msghdr *mh = &r->rxmm[i].msg_hdr;

		r->rxiov[i].iov_base = r->rxbuf + (size_t)i * r->rxcap;
		r->rxiov[i].iov_len = r->rxcap;
		memset(mh, 0, sizeof(*mh));
		mh->msg_iov = &r->rxiov[i];
		mh->msg_iovlen = 1;
	}
	k = recvmmsg(fd, r->rxmm, RELAY_RX_BATCH, MSG_DONTWAIT, NULL);
	if (k < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -1;
	r->rx_i = 0;
	r->rx_n = (unsigned int)k;
	r->rx_short = k < RELAY_RX_BATCH;
	return k;
}

/* Read the owner's messages while the stack takes them. */
static void relay_readable(evutil_socket_t fd, short what, void *arg)
{
	struct sctp_relay *r = arg;
	int i;

	(void)what;
	for (i = 0; i < 64 && r->reading; i++) {
		const uint8_t *d;
		uint32_t ppid;
		uint16_t stream;
		size_t n;

		/* Messages the stack refused last time come first; after a
		 * short batch the socket was empty, and the event fires
		 * when it is not. */
		if (r->rx_i == r->rx_n) {
			int k;

			if (r->rx_short && i > 0)
				return;
			k = relay_read_batch(r, fd);
			if (k == 0)
				return;
			if (k < 0) {
				relay_fail(r, true);
				return;
			}
		}
		d = r->rxiov[r->rx_i].iov_base;
		n = r->rxmm[r->rx_i].msg_len;
		if (n == 0) {
			relay_fail(r, false); /* the owner closed its end */
			return;
		}
		/* one datagram, one message: header, PPID 16, the stream;
		 * one longer than allowed shows as such (rxcap) */
		stream = n < 2 ? 0 : (uint16_t)(d[0] << 8 | d[1]);
		ppid = n < SCTP_RELAY_HDR ?
			       0 :
			       (uint32_t)d[4] << 24 | (uint32_t)d[5] << 16 |
				       (uint32_t)d[6] << 8 | d[7];
		if (n < SCTP_RELAY_HDR || n > SCTP_RELAY_HDR + r->maxseg ||
		    stream != r->stream || ppid != 16) {
			log_info("relay stream %u: bad message from the owner "
				 "(%zu octets, stream %u, PPID %u)",
				 r->stream, n, stream, ppid);
			relay_fail(r, true);
			return;
		}
		if (r->ops->from_owner(r->arg, d + SCTP_RELAY_HDR,
				       n - SCTP_RELAY_HDR) < 0) {
			if (errno == EAGAIN) {
				/* held until resumed */
				event_del(r->rev);
				r->reading = false;
				return;
			}
			relay_fail(r, true);
			return;
		}
		r->rx_i++;
	}
}

/* A relay for stream on base; *owner_fd receives the owner's end. */
struct sctp_relay *sctp_relay_new(struct event_base *base, uint16_t stream,
				  size_t maxseg,
				  const struct sctp_relay_ops *ops, void *arg,
				  int *owner_fd)
{
	struct sctp_relay *r = calloc(1, sizeof(*r));
	int sv[2];

	if (!r)
		return NULL;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC,
		       0, sv) < 0) {
		free(r);
		return NULL;
	}
	LIST_INSERT_HEAD(&relays, r, entry);
	r->fd = sv[0];
	r->stream = stream;
	r->maxseg = maxseg;
	r->ops = ops;
	r->arg = arg;
	STAILQ_INIT(&r->q);
	r->rxcap = SCTP_RELAY_HDR + maxseg + 1;
	r->rxbuf = malloc(RELAY_RX_BATCH * r->rxcap);
	r->rev =
		event_new(base, r->fd, EV_READ | EV_PERSIST, relay_readable, r);
	r->wev = event_new(base, r->fd, EV_WRITE | EV_PERSIST, relay_writable,
			   r);
	if (!r->rxbuf || !r->rev || !r->wev) {
		close(sv[1]);
		sctp_relay_free(r);
		errno = ENOMEM;
		return NULL;
	}
	*owner_fd = sv[1];
	return r;
}

/* Start reading the owner's messages (after the handoff). */
void sctp_relay_start(struct sctp_relay *r)
{
	if (r->finishing || r->reading)
		return;
	r->reading = true;
	event_add(r->rev, NULL);
	event_active(r->rev, EV_READ, 0); /* what came before the start */
}

/*
 * One message straight to the owner's socket (nothing queued before
 * it): the header and the segment gathered from where they are, without
 * a copy of the segment or an allocation.  1 sent, 0 no room (queue
 * it), -1 the owner's end failed (r told its owner, may be gone).
 */
static int relay_send_now(struct sctp_relay *r, uint32_t ppid,
			  const uint8_t *buf, size_t len)
{
	uint8_t h[SCTP_RELAY_HDR];
	struct iovec iov[2] = { { h, sizeof(h) },
				{ (void *)(uintptr_t)buf, len } };
	struct msghdr mh = { .msg_iov = iov, .msg_iovlen = len ? 2 : 1 };
	ssize_t n;

	relay_put_hdr(h, r->stream, ppid);
	n = sendmsg(r->fd, &mh, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) && !r->grown) {
		const int sz = RELAY_SNDBUF;

		/* past net.core.wmem_max where iwcmd may (CAP_NET_ADMIN) */
		r->grown = true;
		if (setsockopt(r->fd, SOL_SOCKET, SO_SNDBUFFORCE, &sz,
			       sizeof(sz)) < 0)
			(void)setsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &sz,
					 sizeof(sz));
		n = sendmsg(r->fd, &mh, MSG_DONTWAIT);
	}
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (n < 0 || (size_t)n != SCTP_RELAY_HDR + len) {
		relay_fail(r, true); /* the owner's end is gone */
		return -1;
	}
	return 1;
}

/* Queue one message for the owner. */
int sctp_relay_to_owner(struct sctp_relay *r, uint32_t ppid, const uint8_t *buf,
			size_t len)
{
	struct relay_msg *m;
	bool was_empty = STAILQ_EMPTY(&r->q);

	if (r->finishing || len > r->maxseg) {
		errno = EINVAL;
		return -1;
	}
	if (was_empty) {
		int k = relay_send_now(r, ppid, buf, len);

		if (k != 0)
			return 0; /* sent, or the relay failed as a flush
				   * would have made it */
	}
	m = malloc(sizeof(*m) + SCTP_RELAY_HDR + len);
	if (!m)
		return -1;
	relay_put_hdr(m->buf, r->stream, ppid);
	if (len)
		memcpy(m->buf + SCTP_RELAY_HDR, buf, len);
	m->len = SCTP_RELAY_HDR + len;
	STAILQ_INSERT_TAIL(&r->q, m, entry);
	r->queued++;
	if (!r->high && r->queued >= SCTP_RELAY_HIGH) {
		r->high = true;
		r->ops->backlog(r->arg, true);
	}
	if (was_empty)
		event_add(r->wev, NULL); /* the owner's socket was full */
	return 0;
}

/* The session ended: deliver what is queued, then close. */
void sctp_relay_finish(struct sctp_relay *r)
{
	event_del(r->rev);
	r->reading = false;
	r->finishing = true;
	if (r->high) {
		r->high = false;
		r->ops->backlog(r->arg, false);
	}
	/* the owner reads what is queued, then end of file */
	shutdown(r->fd, SHUT_RD);
	relay_flush(r);
}

/* Daemon shutdown: every relay closes, draining or not. */
void sctp_relay_shutdown(void)
{
	while (!LIST_EMPTY(&relays))
		sctp_relay_free(LIST_FIRST(&relays));
}
