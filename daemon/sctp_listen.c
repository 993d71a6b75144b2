/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The SCTP endpoints iwcmd listens on for DDP stream sessions (RFC 5043
 * §6): a client's own (Listen), and the services of iwcmd.conf
 * ([listener] with transport = sctp), bound at startup and reload, that
 * a client attaches to.  Only the books and the sockets: sctp_conn.c
 * starts the stack before it calls here, and takes the associations the
 * sockets accept.
 */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "sctp_listen.h"
#include "sctp_stack.h"

static TAILQ_HEAD(, sctp_listener) sl_list = TAILQ_HEAD_INITIALIZER(sl_list);
static const struct sctp_cb *sl_accept_cb;
static void (*sl_closed)(uint64_t id);
static uint64_t sl_next_id = 1;

static uint64_t sl_id(void)
{
	return SCTP_CONN_ID_BIT | sl_next_id++;
}

/* What the listeners' sockets are told of new associations. */
void sctp_listen_init(const struct sctp_cb *accept_cb,
		      void (*closed)(uint64_t id))
{
	sl_accept_cb = accept_cb;
	sl_closed = closed;
}

struct sctp_listener *sctp_listen_find(uint64_t id)
{
	struct sctp_listener *l;

	TAILQ_FOREACH (l, &sl_list, entry)
		if (l->id == id)
			return l;
	return NULL;
}

/* An association outlives the listener that accepted it (its sessions
 * go on, as TCP connections outlive theirs).  A listen on the same port
 * since then serves its new Initiates: on usrsctp it is the very socket,
 * kept (sctp_usrsctp_sock.c); on the kernel's SCTP the same endpoint. */
struct sctp_listener *sctp_listen_find_local(const struct sockaddr *local,
					     socklen_t len)
{
	struct sctp_listener *l;

	TAILQ_FOREACH (l, &sl_list, entry)
		if (sctp_addr_match(&l->bound, local, len, true))
			return l;
	return NULL;
}

/* Where l's socket listens (addr when the stack cannot tell). */
static void sl_bound(struct sctp_listener *l,
		     const struct sockaddr_storage *addr)
{
	socklen_t bl = sizeof(l->bound);

	if (sctp_stack_local_addr(l->sock, &l->bound, &bl) < 0)
		memcpy(&l->bound, addr, sizeof(l->bound));
}

/* A client listens for DDP stream sessions on addr. */
enum conn_result sctp_listen_add(struct client *c,
				 const struct sockaddr_storage *addr,
				 socklen_t len, uint64_t *id,
				 struct sockaddr_storage *bound)
{
	struct sctp_listener *l;
	enum conn_result r;

	l = calloc(1, sizeof(*l));
	if (!l)
		return CONN_RES_EINTERNAL;
	l->sock = sctp_stack_listen((const struct sockaddr *)addr, len,
				    sl_accept_cb, l);
	if (!l->sock) {
		r = errno == EADDRINUSE ? CONN_RES_EADDRINUSE : CONN_RES_EINVAL;
		free(l);
		return r;
	}
	l->id = sl_id();
	l->client = c;
	c->n_listeners++;
	TAILQ_INSERT_TAIL(&sl_list, l, entry);
	sl_bound(l, addr);
	memcpy(bound, &l->bound, sizeof(*bound));
	*id = l->id;
	log_info("sctp listener %llu: client %llu",
		 (unsigned long long)(l->id & ~SCTP_CONN_ID_BIT),
		 (unsigned long long)c->id);
	return CONN_RES_OK;
}

static void sl_free(struct sctp_listener *l)
{
	uint64_t id = l->id;

	TAILQ_REMOVE(&sl_list, l, entry);
	if (l->client && l->client->n_listeners)
		l->client->n_listeners--;
	sctp_stack_close(l->sock, false);
	free(l);
	if (sl_closed)
		sl_closed(id);
}

/* A client attaches to the SCTP service name of iwcmd.conf. */
enum conn_result sctp_listen_attach(struct client *c, const char *name,
				    uint64_t *id,
				    struct sockaddr_storage *bound)
{
	struct sctp_listener *l;

	TAILQ_FOREACH (l, &sl_list, entry)
		if (l->service[0] && !strcmp(l->service, name))
			break;
	if (!l)
		return CONN_RES_ENOENT;
	/* only the configured owner, or root when none is configured */
	if (c->uid != l->owner)
		return CONN_RES_EPERM;
	if (l->client)
		return CONN_RES_EEXIST;
	l->client = c;
	c->n_listeners++;
	memcpy(bound, &l->bound, sizeof(*bound));
	*id = l->id;
	log_info("sctp listener %llu: service %s attached to pid %ld",
		 (unsigned long long)(l->id & ~SCTP_CONN_ID_BIT), l->service,
		 (long)c->pid);
	return CONN_RES_OK;
}

static bool sl_have(const char *service)
{
	const struct sctp_listener *l;

	TAILQ_FOREACH (l, &sl_list, entry)
		if (!strcmp(l->service, service))
			return true;
	return false;
}

/* Whether conf has an SCTP service not bound yet. */
bool sctp_listen_config_new(const struct iwcmd_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->n_listeners; i++)
		if (conf->listeners[i].transport &&
		    !sl_have(conf->listeners[i].name))
			return true;
	return false;
}

/* The SCTP services of conf ([listener] with transport = sctp): bound
 * at startup and reload, gone when no longer configured. */
int sctp_listen_config(const struct iwcmd_conf *conf, bool bind)
{
	struct sctp_listener *l, *ln;
	size_t i;
	int rc = 0;

	for (l = TAILQ_FIRST(&sl_list); l; l = ln) {
		const struct conf_listener *cl;

		ln = TAILQ_NEXT(l, entry);
		if (!l->service[0])
			continue;
		cl = conf_listener_find(conf, l->service);
		if (!cl || !cl->transport ||
		    memcmp(&cl->addr, &l->addr, sizeof(l->addr)) ||
		    l->owner != (cl->has_owner ? cl->owner : 0)) {
			log_info("sctp listener %llu: service %s removed or "
				 "changed",
				 (unsigned long long)(l->id &
						      ~SCTP_CONN_ID_BIT),
				 l->service);
			sl_free(l);
		}
	}
	for (i = 0; bind && i < conf->n_listeners; i++) {
		const struct conf_listener *cl = &conf->listeners[i];

		if (!cl->transport || sl_have(cl->name))
			continue;
		l = calloc(1, sizeof(*l));
		if (!l)
			return -1;
		l->sock = sctp_stack_listen((const struct sockaddr *)&cl->addr,
					    cl->addrlen, sl_accept_cb, l);
		if (!l->sock) {
			log_warn("sctp listener %s", cl->name);
			free(l);
			rc = -1;
			continue;
		}
		l->id = sl_id();
		memcpy(l->service, cl->name, strlen(cl->name) + 1);
		l->owner = cl->has_owner ? cl->owner : 0;
		l->addr = cl->addr;
		sl_bound(l, &cl->addr);
		TAILQ_INSERT_TAIL(&sl_list, l, entry);
		log_info("sctp listener %llu: service %s",
			 (unsigned long long)(l->id & ~SCTP_CONN_ID_BIT),
			 l->service);
	}
	return rc;
}

/* Stop listening. */
enum conn_result sctp_listen_remove(struct client *c, uint64_t id)
{
	struct sctp_listener *l = sctp_listen_find(id);

	if (!l || l->client != c)
		return CONN_RES_ENOENT;
	if (l->service[0]) {
		/* the service goes on; its Initiates get a Terminate
		 * until a client attaches again (RFC 5043 §6.4) */
		l->client = NULL;
		if (c->n_listeners)
			c->n_listeners--;
		return CONN_RES_OK;
	}
	sl_free(l);
	return CONN_RES_OK;
}

/* A client went away: its listeners close, its services wait. */
void sctp_listen_client_gone(struct client *c)
{
	struct sctp_listener *l, *ln;

	for (l = TAILQ_FIRST(&sl_list); l; l = ln) {
		ln = TAILQ_NEXT(l, entry);
		if (l->client == c)
			sctp_listen_remove(c, l->id);
	}
}

void sctp_listen_free_all(void)
{
	struct sctp_listener *l;

	while ((l = TAILQ_FIRST(&sl_list)))
		sl_free(l);
}
