/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The raw TCP baseline of the cm test: non-blocking connect(2) and
 * accept(2) pairs on 127.0.0.1, both ends in this process, depth of
 * them in flight; a pair counts once both ends are connected.
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "cm.h"

struct tcp_slot {
	bool used;
	bool connected;
	bool accepted;
	int cfd;
	int afd;
	uint16_t port; /* the connecting end's local port */
	uint64_t t0;
	uint64_t t_conn;
	uint64_t t_acc;
};

static void tcp_slot_close(struct tcp_slot *s)
{
	if (s->cfd >= 0)
		close(s->cfd);
	if (s->afd >= 0)
		close(s->afd);
	memset(s, 0, sizeof(*s));
	s->cfd = s->afd = -1;
}

/* Start a non-blocking connect in a free slot. */
static void tcp_start(struct run *r, struct tcp_slot *slots,
		      const struct sockaddr_in *dst)
{
	struct sockaddr_in me;
	socklen_t len = sizeof(me);
	struct tcp_slot *s = NULL;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		if (!slots[i].used) {
			s = &slots[i];
			break;
		}
	}
	r->started++;
	s->t0 = bench_now_ns();
	s->cfd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s->cfd < 0) {
		run_fail(r, "socket: %s", strerror(errno));
		tcp_slot_close(s);
		return;
	}
	bench_tcp_nodelay(s->cfd);
	if (connect(s->cfd, (const struct sockaddr *)dst, sizeof(*dst)) == 0) {
		s->connected = true;
		s->t_conn = bench_now_ns();
	} else if (errno != EINPROGRESS) {
		run_fail(r, "connect: %s", strerror(errno));
		tcp_slot_close(s);
		return;
	}
	if (getsockname(s->cfd, (struct sockaddr *)&me, &len) < 0) {
		run_fail(r, "getsockname: %s", strerror(errno));
		tcp_slot_close(s);
		return;
	}
	s->port = ntohs(me.sin_port);
	s->used = true;
	r->inflight++;
}

static void tcp_finish(struct run *r, struct tcp_slot *s)
{
	if (!s->connected || !s->accepted)
		return;
	run_complete(r, s->t0, s->t_conn > s->t_acc ? s->t_conn : s->t_acc);
	tcp_slot_close(s);
	r->inflight--;
}

static void tcp_accept_all(struct run *r, struct tcp_slot *slots, int lfd)
{
	for (;;) {
		struct sockaddr_in peer;
		socklen_t len = sizeof(peer);
		unsigned int i;
		uint16_t port;
		int fd;

		fd = accept4(lfd, (struct sockaddr *)&peer, &len,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK &&
			    errno != EINTR && errno != ECONNABORTED)
				fprintf(stderr, "iwcm-bench: accept: %s\n",
					strerror(errno));
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return;
		}
		bench_tcp_nodelay(fd);
		port = ntohs(peer.sin_port);
		for (i = 0; i < r->depth; i++) {
			if (slots[i].used && !slots[i].accepted &&
			    slots[i].port == port)
				break;
		}
		if (i == r->depth) {
			/* Not ours (a stray connection to our port). */
			close(fd);
			continue;
		}
		slots[i].afd = fd;
		slots[i].accepted = true;
		slots[i].t_acc = bench_now_ns();
		tcp_finish(r, &slots[i]);
	}
}

/* A connect finished: see whether it worked. */
static void tcp_connected(struct run *r, struct tcp_slot *s)
{
	socklen_t len = sizeof(int);
	int err = 0;

	if (getsockopt(s->cfd, SOL_SOCKET, SO_ERROR, &err, &len) < 0)
		err = errno;
	if (err) {
		run_fail(r, "connect: %s", strerror(err));
		tcp_slot_close(s);
		r->inflight--;
		return;
	}
	s->connected = true;
	s->t_conn = bench_now_ns();
	tcp_finish(r, s);
}

/* The raw TCP loop; -1 when it could not run at all. */
int cm_tcp_run(struct run *r)
{
	struct pollfd *pfd = calloc(r->depth + 1, sizeof(*pfd));
	struct tcp_slot *slots = calloc(r->depth, sizeof(*slots));
	unsigned int *idx = calloc(r->depth + 1, sizeof(*idx));
	struct sockaddr_in addr;
	unsigned int i, n;
	int lfd = -1, rc = -1;

	if (!pfd || !slots || !idx) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		goto out;
	}
	for (i = 0; i < r->depth; i++)
		tcp_slot_close(&slots[i]);
	lfd = bench_tcp_listen(&addr);
	if (lfd < 0) {
		fprintf(stderr, "iwcm-bench: TCP listener on 127.0.0.1: %s\n",
			strerror(errno));
		goto out;
	}
	rc = 0;
	while (r->done < r->iters) {
		int k;

		while (r->inflight < r->depth && r->started < r->iters)
			tcp_start(r, slots, &addr);
		n = 0;
		pfd[n].fd = lfd;
		pfd[n++].events = POLLIN;
		for (i = 0; i < r->depth; i++) {
			if (!slots[i].used || slots[i].connected)
				continue;
			idx[n] = i;
			pfd[n].fd = slots[i].cfd;
			pfd[n++].events = POLLOUT;
		}
		if (r->inflight == 0)
			continue;
		k = poll(pfd, n, BENCH_STALL_MS);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			fprintf(stderr, "iwcm-bench: %s depth %u: %s\n",
				r->row->name, r->depth,
				k == 0 ? "no progress for 10 s" :
					 strerror(errno));
			for (i = 0; i < r->depth; i++) {
				if (slots[i].used)
					tcp_slot_close(&slots[i]);
			}
			r->failed += r->iters - r->done;
			r->done = r->iters;
			r->inflight = 0;
			rc = 1;
			break;
		}
		for (i = 1; i < n; i++) {
			struct tcp_slot *s = &slots[idx[i]];

			if (pfd[i].revents && s->used && !s->connected)
				tcp_connected(r, s);
		}
		if (pfd[0].revents)
			tcp_accept_all(r, slots, lfd);
	}
out:
	if (lfd >= 0)
		close(lfd);
	free(pfd);
	free(slots);
	free(idx);
	return rc;
}
