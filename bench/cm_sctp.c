/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The raw usrsctp baseline of cm --transport sctp: association setups
 * on this process's usrsctp stack (sctp_raw.c), to itself over UDP
 * encapsulation on loopback as iwcmd's associations go, both ends here,
 * depth of them in flight.  One counts once the connecting socket's
 * association is ESTABLISHED (COMM_UP) and the listener accepted it
 * (the INIT, INIT ACK, COOKIE ECHO, COOKIE ACK exchange of RFC 4960
 * §5.1 with the DDP Adaptation Layer Indication); both ends then close.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cm.h"
#include "sctp_raw.h"

struct sctp_slot {
	bool used;
	bool connected;
	bool accepted;
	struct socket *cso; /* the connecting end */
	struct socket *aso; /* the accepted end */
	uint16_t port;	    /* the connecting end's SCTP port, if known */
	uint64_t t0;
	uint64_t t_conn;
	uint64_t t_acc;
};

static void sctp_slot_close(struct sctp_slot *s)
{
	sraw_close(s->cso, false);
	sraw_close(s->aso, false);
	memset(s, 0, sizeof(*s));
}

/* Start an association in a free slot. */
static void sctp_start(struct run *r, struct sctp_slot *slots, uint16_t port)
{
	struct sctp_slot *s = NULL;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		if (!slots[i].used) {
			s = &slots[i];
			break;
		}
	}
	r->started++;
	s->t0 = bench_now_ns();
	s->cso = sraw_socket();
	if (!s->cso || sraw_connect(s->cso, sraw_udp_port(), port) < 0) {
		run_fail(r, "usrsctp connect: %s", strerror(errno));
		sctp_slot_close(s);
		return;
	}
	s->port = sraw_port(s->cso, false);
	s->used = true;
	r->inflight++;
}

static void sctp_finish(struct run *r, struct sctp_slot *s)
{
	if (!s->connected || !s->accepted)
		return;
	run_complete(r, s->t0, s->t_conn > s->t_acc ? s->t_conn : s->t_acc);
	sctp_slot_close(s);
	r->inflight--;
}

/* The slot of an accepted association: by the peer's port, else the
 * oldest one waiting. */
static struct sctp_slot *sctp_match(struct run *r, struct sctp_slot *slots,
				    uint16_t port)
{
	struct sctp_slot *old = NULL;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		struct sctp_slot *s = &slots[i];

		if (!s->used || s->accepted)
			continue;
		if (port && s->port == port)
			return s;
		if (!old || s->t0 < old->t0)
			old = s;
	}
	return old;
}

static void sctp_accept_all(struct run *r, struct sctp_slot *slots,
			    struct socket *l)
{
	struct socket *so;

	while ((so = sraw_accept(l))) {
		struct sctp_slot *s = sctp_match(r, slots, sraw_port(so, true));

		if (!s) {
			sraw_close(so, true); /* not ours */
			continue;
		}
		s->aso = so;
		s->accepted = true;
		s->t_acc = bench_now_ns();
		sctp_finish(r, s);
	}
}

/* Look at every connecting end; true when one came up. */
static bool sctp_check(struct run *r, struct sctp_slot *slots)
{
	bool moved = false;
	unsigned int i;

	for (i = 0; i < r->depth; i++) {
		struct sctp_slot *s = &slots[i];

		if (!s->used || s->connected || !sraw_connected(s->cso))
			continue;
		s->connected = true;
		s->t_conn = bench_now_ns();
		moved = true;
		sctp_finish(r, s);
	}
	return moved;
}

/* The raw usrsctp loop; -1 when it could not run at all. */
int cm_sctp_run(struct run *r)
{
	struct sctp_slot *slots = calloc(r->depth, sizeof(*slots));
	struct socket *l = NULL;
	uint64_t last = bench_now_ns();
	unsigned int i;
	uint16_t port = 0;
	char err[160];
	int rc = -1;

	if (!slots) {
		fprintf(stderr, "iwcm-bench: out of memory\n");
		return -1;
	}
	if (sraw_start(err, sizeof(err)) < 0) {
		fprintf(stderr, "iwcm-bench: %s\n", err);
		goto out;
	}
	l = sraw_listen(&port);
	if (!l) {
		fprintf(stderr, "iwcm-bench: usrsctp listener: %s\n",
			strerror(errno));
		goto out;
	}
	rc = 0;
	while (r->done < r->iters) {
		unsigned long done = r->done;

		while (r->inflight < r->depth && r->started < r->iters)
			sctp_start(r, slots, port);
		if (r->inflight == 0)
			continue;
		/* a wake-up, or a look every 10 ms all the same */
		sraw_wait(10);
		sctp_accept_all(r, slots, l);
		if (sctp_check(r, slots) || r->done != done)
			last = bench_now_ns();
		if (bench_now_ns() - last < BENCH_STALL_MS * 1000000ULL)
			continue;
		fprintf(stderr,
			"iwcm-bench: %s depth %u: no progress for 10 s\n",
			r->row->name, r->depth);
		r->failed += r->iters - r->done;
		r->done = r->iters;
		rc = 1;
		break;
	}
out:
	for (i = 0; i < r->depth; i++) {
		if (slots[i].used)
			sctp_slot_close(&slots[i]);
	}
	r->inflight = 0;
	sraw_close(l, false);
	free(slots);
	return rc;
}
