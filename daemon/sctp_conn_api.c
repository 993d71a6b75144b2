/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * What clients and iwcmctl ask of iwcmd's DDP stream sessions over SCTP
 * (RFC 5043): listen, connect, decide, give up, go away, look; and the
 * daemon's end of them all.  The books and the protocol are
 * sctp_conn.c's (sctp_conn_int.h).
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sctp_conn_int.h"
#include "sctp_listen.h"
#include "sctp_relay.h"
#include "sctp_session.h"

/* The stack failed to start once: usrsctp starts once per process. */
static bool sc_stack_failed;

/* Start the stack on first use, from iwcmd.conf. */
enum conn_result sctp_conn_stack(void)
{
	struct sctp_stack_conf c;
	char err[256];

	if (sctp_stack_running())
		return CONN_RES_OK;
	if (sc_stack_failed)
		return CONN_RES_EINTERNAL;
	sctp_stack_defaults(&c);
	c.kind = (enum sctp_stack_kind)iwcmd_conf->sctp_stack;
	c.udp_port = (uint16_t)iwcmd_conf->sctp_udp_port;
	c.encap_port = (uint16_t)iwcmd_conf->sctp_encap_port;
	c.streams = (uint16_t)iwcmd_conf->sctp_streams;
	c.udp_gso = iwcmd_conf->sctp_udp_gso;
	if (sctp_stack_init(iwcmd_base, &c, err, sizeof(err)) < 0) {
		/* usrsctp starts once per process: no retry */
		log_warnx("sctp: %s", err);
		sc_stack_failed = true;
		return errno == EADDRINUSE ? CONN_RES_EADDRINUSE :
					     CONN_RES_EINTERNAL;
	}
	return CONN_RES_OK;
}

/* ---- what clients ask ---- */

/* A client listens for DDP stream sessions on addr. */
enum conn_result sctp_conn_listen(struct client *c,
				  const struct sockaddr_storage *addr,
				  socklen_t len, uint64_t *id,
				  struct sockaddr_storage *bound)
{
	struct listener_req req = { .addr = *addr, .addrlen = len };
	enum conn_result r;
	uint16_t port;

	port = ntohs(sctp_addr_port(addr));
	if (port && !conf_port_allowed(iwcmd_conf, c->uid, port))
		return CONN_RES_EPERM;
	if (c->n_listeners >= iwcmd_conf->max_listeners_per_uid)
		return CONN_RES_ELIMIT;
	r = sctp_conn_stack();
	if (r != CONN_RES_OK)
		return r;
	return sctp_listen_open(c, &req, id, bound);
}

/* A client attaches to the SCTP service name of iwcmd.conf. */
enum conn_result sctp_conn_attach(struct client *c, const char *name,
				  uint64_t *id, struct sockaddr_storage *bound)
{
	struct listener_req req = { .service = name };

	return sctp_listen_open(c, &req, id, bound);
}

/* The SCTP services of conf ([listener] with transport = sctp): bound
 * at startup and reload (the stack starts for the first), gone when no
 * longer configured. */
int sctp_conn_init_config(const struct iwcmd_conf *conf)
{
	bool bind = !listener_config_new(&sctp_listen_ops, conf) ||
		    sctp_conn_stack() == CONN_RES_OK;

	return listener_config(&sctp_listen_ops, conf, bind) < 0 || !bind ? -1 :
									    0;
}

/* Stop listening. */
enum conn_result sctp_conn_unlisten(struct client *c, uint64_t id)
{
	return listener_unlisten(c, id);
}

/* A client's Connect over SCTP: an association of ours to the peer
 * carries it (an existing one or a new one). */
enum conn_result sctp_conn_connect(struct client *c,
				   const struct conn_target *t,
				   const struct conn_params *p, uint64_t *id)
{
	uint16_t rport = p && p->has_sctp_udp_port ? p->sctp_udp_port : 0;
	struct sc_assoc *as;
	struct sc_conn *k;
	enum conn_result r;

	r = sctp_conn_stack();
	if (r != CONN_RES_OK)
		return r;
	as = sc_assoc_to(&t->dst, t->dst_len, rport);
	if (!as) {
		/* no stack calls back into iwcmd while it connects: a
		 * refusal, the peer's ABORT, comes later, as down */
		log_warn("sctp: association to the peer");
		return errno == ENOMEM ? CONN_RES_EINTERNAL :
					 CONN_RES_ECONNREFUSED;
	}
	k = sc_conn_new(c, as, true);
	if (!k)
		return CONN_RES_EINTERNAL;
	if (conn_policy_sctp(iwcmd_conf, p, NEG_INITIATOR, &k->policy) < 0) {
		sc_conn_free(k);
		return CONN_RES_EINVAL;
	}
	if (p && p->has_private_data) {
		memcpy(k->pd, p->private_data, p->private_data_len);
		k->pd_len = p->private_data_len;
	}
	*id = k->id;
	if (as->sa) {
		uint64_t kid = k->id;

		sc_assoc_start(as);
		if (!sc_conn_find(kid))
			return CONN_RES_ELIMIT;
	}
	return CONN_RES_OK;
}

static struct sc_conn *sc_conn_owned(struct client *c, uint64_t id)
{
	struct sc_conn *k = sc_conn_find(id);

	return k && k->owner == c ? k : NULL;
}

/* c's decision on k's Initiate, off the list of those awaiting one
 * first: the decision may free k.  One refused before the session moved
 * (EINVAL: a second Accept, bad private data) leaves k as it was; 0, or
 * -1 with errno (EIO: the session is gone). */
static int sc_decide(struct client *c, struct sc_conn *k, bool accept,
		     const uint8_t *pd, size_t pd_len)
{
	bool was = k->awaiting;

	if (!accept)
		k->owner = NULL; /* nothing more to tell */
	sc_await_set(k, false);
	if (sctp_session_decide(k->s, accept, pd, pd_len) == 0)
		return 0;
	if (errno != EIO) {
		k->owner = c;
		sc_await_set(k, was);
	}
	return -1;
}

/* The owner accepts an Initiate. */
enum conn_result sctp_conn_accept(struct client *c, uint64_t id,
				  const struct conn_params *p)
{
	struct sc_conn *k = sc_conn_owned(c, id);
	bool pd = p && p->has_private_data;

	if (!k || k->initiator || !k->s)
		return CONN_RES_ENOENT;
	if (conn_policy_sctp(iwcmd_conf, p, NEG_RESPONDER, &k->policy) < 0)
		return CONN_RES_EINVAL;
	sctp_session_set_policy(k->s, &k->policy);
	if (sc_decide(c, k, true, pd ? p->private_data : NULL,
		      pd ? p->private_data_len : 0) < 0)
		return errno == EINVAL ? CONN_RES_EINVAL : CONN_RES_EPROTO;
	return CONN_RES_OK;
}

/* The owner rejects an Initiate (RFC 5043 §6.3). */
enum conn_result sctp_conn_reject(struct client *c, uint64_t id,
				  const uint8_t *pd, size_t pd_len)
{
	struct sc_conn *k = sc_conn_owned(c, id);

	if (!k || k->initiator || !k->s)
		return CONN_RES_ENOENT;
	return sc_decide(c, k, false, pd, pd_len) < 0 ? CONN_RES_EINVAL :
							CONN_RES_OK;
}

/* The owner gives up a session it does not have yet. */
enum conn_result sctp_conn_disconnect(struct client *c, uint64_t id)
{
	struct sc_conn *k = sc_conn_owned(c, id);

	if (!k || k->established)
		return CONN_RES_ENOENT;
	k->owner = NULL;
	if (k->s)
		sctp_session_ulp_close(k->s, true);
	else
		sc_conn_free(k);
	return CONN_RES_OK;
}

/* A client went away: its listeners close, its pending sessions end. */
void sctp_conn_client_gone(struct client *c)
{
	struct sc_conn *k;

	listener_client_gone(c);
	for (k = sc_conn_next(NULL); k; k = sc_conn_next(k))
		if (k->owner == c && !k->established) {
			sctp_conn_disconnect(c, k->id);
			k = NULL; /* it may free others: start over */
		}
	/* its established sessions relay on until it closes their fds, but
	 * c goes now: nothing may point to it (iwcmctl conns reads it) */
	for (k = sc_conn_next(NULL); k; k = sc_conn_next(k))
		if (k->owner == c)
			k->owner = NULL;
}

void sctp_conn_abort_all(void)
{
	listener_shutdown_ops(&sctp_listen_ops);
	sc_free_all();
	sctp_relay_shutdown();
}

void sctp_conn_shutdown(void)
{
	sctp_conn_abort_all();
	sctp_stack_fini();
}

/* What iwcmctl shows of k. */
static unsigned int sc_state(const struct sc_conn *k)
{
	if (k->s)
		return sctp_session_get_state(k->s);
	return k->relay ? SCTP_CONN_DRAINING : SCTP_CONN_WAIT_ASSOC;
}

const char *sctp_conn_state_name(unsigned int state)
{
	if (state < SESS_S_MAX)
		return sctp_session_state_names[state];
	return state == SCTP_CONN_DRAINING ? "DRAINING" : "WAIT_ASSOC";
}

void sctp_conn_count_states(unsigned int n[SCTP_CONN_STATES])
{
	struct sc_conn *k;

	memset(n, 0, SCTP_CONN_STATES * sizeof(n[0]));
	for (k = sc_conn_next(NULL); k; k = sc_conn_next(k))
		n[sc_state(k)]++;
}

static void sc_view(const struct sc_conn *k, struct sctp_conn_info *i)
{
	sc_info(k, i);
	i->state = sctp_conn_state_name(sc_state(k));
	if (k->owner) {
		i->has_owner = true;
		i->owner_uid = k->owner->uid;
		i->owner_pid = k->owner->pid;
	}
	i->age_ms = iwcmd_now_ms() - k->created_ms;
}

/* iwcmctl conns: every SCTP session. */
void sctp_conn_foreach(void (*fn)(const struct sctp_conn_info *, void *),
		       void *arg)
{
	struct sctp_conn_info i;
	struct sc_conn *k;

	for (k = sc_conn_next(NULL); k; k = sc_conn_next(k)) {
		sc_view(k, &i);
		fn(&i, arg);
	}
}

/* iwcmctl show: the SCTP session id; -1 when there is none. */
int sctp_conn_get(uint64_t id, struct sctp_conn_info *out)
{
	struct sc_conn *k = sc_conn_find(id);

	if (!k)
		return -1;
	sc_view(k, out);
	return 0;
}
