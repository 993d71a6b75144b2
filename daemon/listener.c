/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * Listening sockets of both transports, one list and one set of books:
 * TCP's (MPA), whose sockets are this file's, and SCTP's (DDP stream
 * sessions), whose sockets are sctp_listen.c's (struct listener_ops).  A
 * listener is either bound for a client (Listen{addr}: it belongs to
 * that client's uid and closes with the client) or declared in iwcmd.conf
 * ([listener NAME]: it lives as long as the configuration and clients
 * attach to it with Listen{service}).
 *
 * Listening is cheap: the kernel backlog is large and fixed; what bounds
 * the work a listener can cause is pending_max, the number of requests
 * waiting for its owner's decision (conn.c enforces it).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "iwcmd.h"
#include "log.h"
#include "sctp_stack.h"

#define LISTENER_BACKLOG 4096
#define LISTENER_ACCEPT_BURST 64
#define LISTENER_PENDING_DEFAULT 64

/* struct listener is embedded: TCP's EMFILE back-off timer is ours. */
struct listener_priv {
	struct listener l;
	struct event *pause;
	unsigned int backlog;
	bool activated; /* fd from systemd */
};

/* Sockets from systemd named after a [listener NAME], not yet used. */
struct listener_adopted {
	char name[CONF_NAME_MAX];
	int fd;
};
#define LISTENER_ADOPT_MAX CONF_MAX_LISTENERS

static TAILQ_HEAD(, listener) listeners = TAILQ_HEAD_INITIALIZER(listeners);
static struct listener_adopted adopted[LISTENER_ADOPT_MAX];
static size_t n_adopted;
static uint64_t listener_next_id;
/* "listener 3", "sctp listener 4" in logs */
#define LFMT "%slistener %llu"
#define LARG(l) \
	(l)->ops->name, (unsigned long long)((l)->id & ~(l)->ops->id_bit)
static struct log_ratelimit listener_rl = LOG_RATELIMIT_INIT(10, 10);

static struct listener_priv *listener_priv(struct listener *l)
{
	return (struct listener_priv *)((char *)l -
					offsetof(struct listener_priv, l));
}

static uint16_t ss_port(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET6)
		return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
	return ntohs(((const struct sockaddr_in *)ss)->sin_port);
}

static const char *ss_str(const struct sockaddr_storage *ss, char *buf,
			  size_t len)
{
	char a[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6,
			  &((const struct sockaddr_in6 *)ss)->sin6_addr, a,
			  sizeof(a));
		snprintf(buf, len, "[%s]:%u", a, ss_port(ss));
	} else {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr,
			  a, sizeof(a));
		snprintf(buf, len, "%s:%u", a, ss_port(ss));
	}
	return buf;
}

/* Same family and address, and the same port unless want's is 0. */
static bool ss_match(const struct sockaddr_storage *have,
		     const struct sockaddr_storage *want)
{
	if (have->ss_family != want->ss_family)
		return false;
	if (ss_port(want) && ss_port(have) != ss_port(want))
		return false;
	if (want->ss_family == AF_INET6)
		return !memcmp(&((const struct sockaddr_in6 *)have)->sin6_addr,
			       &((const struct sockaddr_in6 *)want)->sin6_addr,
			       sizeof(struct in6_addr));
	return ((const struct sockaddr_in *)have)->sin_addr.s_addr ==
	       ((const struct sockaddr_in *)want)->sin_addr.s_addr;
}

static void listener_resume(evutil_socket_t fd, short what, void *arg)
{
	struct listener *l = arg;

	event_add(l->ev, NULL);
}

static void listener_accept(evutil_socket_t lfd, short what, void *arg)
{
	static const struct timeval pause_tv = { 1, 0 };
	struct listener *l = arg;
	struct sockaddr_storage peer;
	struct timespec ts;
	unsigned int supp;
	socklen_t plen;
	int i, fd;

	for (i = 0; i < LISTENER_ACCEPT_BURST; i++) {
		plen = sizeof(peer);
		fd = accept4(l->fd, (struct sockaddr *)&peer, &plen,
			     SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			if (errno == EAGAIN)
				return;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if (log_ratelimit_ok(&listener_rl, ts.tv_sec, &supp))
				log_warn("listener %llu: accept",
					 (unsigned long long)l->id);
			if (errno == EMFILE || errno == ENFILE) {
				/* out of fds: retry in a second rather than
				 * spin on a readable socket */
				event_del(l->ev);
				evtimer_add(listener_priv(l)->pause, &pause_tv);
			}
			return;
		}
		conn_accepted_from(l, fd, &peer, plen);
	}
}

/* Bind and listen; 0, or -1 with errno. */
static int listener_bind(const struct sockaddr_storage *ss, socklen_t sslen,
			 unsigned int backlog, int *fdp,
			 struct sockaddr_storage *bound, socklen_t *blen)
{
	int fd, one = 1, saved;

	fd = socket(ss->ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0)
		return -1;
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(fd, (const struct sockaddr *)ss, sslen) < 0 ||
	    listen(fd, (int)backlog) < 0)
		goto fail;
	*blen = sizeof(*bound);
	if (getsockname(fd, (struct sockaddr *)bound, blen) < 0)
		goto fail;
	*fdp = fd;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/*
 * What every accepted socket would otherwise cost a system call for:
 * TCP_NODELAY (handshake frames are small) is inherited from the
 * listening socket, and the local address of a socket accepted on a
 * specific address is that address.
 */
static void listener_sockopts(struct listener *l)
{
	const struct sockaddr_in *in = (const struct sockaddr_in *)&l->addr;
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)&l->addr;
	int one = 1;

	l->nodelay = setsockopt(l->fd, IPPROTO_TCP, TCP_NODELAY, &one,
				sizeof(one)) == 0;
	if (l->addr.ss_family == AF_INET)
		l->specific = in->sin_addr.s_addr != htonl(INADDR_ANY);
	else if (l->addr.ss_family == AF_INET6)
		l->specific = !IN6_IS_ADDR_UNSPECIFIED(&in6->sin6_addr) &&
			      !IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr);
	else
		l->specific = false;
}

/* TCP: a new socket, or fd (>= 0: socket-activated). */
static int listener_tcp_open(struct listener *l,
			     const struct sockaddr_storage *ss, socklen_t sslen,
			     unsigned int backlog, int fd)
{
	struct listener_priv *p = listener_priv(l);

	if (fd >= 0) {
		l->addrlen = sizeof(l->addr);
		if (getsockname(fd, (struct sockaddr *)&l->addr, &l->addrlen) <
		    0)
			return -1;
	} else if (listener_bind(ss, sslen, backlog, &fd, &l->addr,
				 &l->addrlen) < 0) {
		return -1;
	}
	l->fd = fd;
	listener_sockopts(l);
	l->ev = event_new(iwcmd_base, fd, EV_READ | EV_PERSIST, listener_accept,
			  l);
	p->pause = evtimer_new(iwcmd_base, listener_resume, l);
	if (!l->ev || !p->pause)
		fatal("listener: event_new");
	event_add(l->ev, NULL);
	return 0;
}

static void listener_tcp_close(struct listener *l)
{
	/* conn.c forgets l before it goes */
	conn_listener_gone(l);
	event_free(l->ev);
	event_free(listener_priv(l)->pause);
	close(l->fd);
}

const struct listener_ops listener_tcp = {
	.name = "",
	.transport = 0,
	.open = listener_tcp_open,
	.close = listener_tcp_close,
	.attached = conn_listener_attached,
};

/* A listener of ops's transport on ss (or fd); NULL with errno. */
static struct listener *listener_new(const struct listener_ops *ops,
				     const struct sockaddr_storage *ss,
				     socklen_t sslen, unsigned int backlog,
				     int fd)
{
	struct listener_priv *p;
	struct listener *l;

	p = calloc(1, sizeof(*p));
	if (!p)
		fatal("listener");
	l = &p->l;
	l->ops = ops;
	l->fd = -1;
	if (ops->open(l, ss, sslen, backlog, fd) < 0) {
		free(p);
		return NULL;
	}
	l->id = ops->id_bit | ++listener_next_id;
	p->backlog = backlog;
	TAILQ_INSERT_TAIL(&listeners, l, entry);
	return l;
}

static void listener_detach(struct listener *l)
{
	if (l->client && l->client->n_listeners)
		l->client->n_listeners--;
	l->client = NULL;
	free(l->params);
	l->params = NULL;
}

static void listener_free(struct listener *l)
{
	listener_detach(l);
	TAILQ_REMOVE(&listeners, l, entry);
	l->ops->close(l);
	free(listener_priv(l));
}

/* A copy of a client's parameters; out of memory is fatal here. */
static struct conn_params *listener_params_dup(const struct conn_params *p)
{
	struct conn_params *d;

	if (!p)
		return NULL;
	d = malloc(sizeof(*d));
	if (!d)
		fatal("listener: params copy");
	*d = *p;
	return d;
}

static enum conn_result listener_attach(struct client *c,
					const struct listener_req *req,
					struct listener **out)
{
	struct listener *l;
	char a[64];

	TAILQ_FOREACH (l, &listeners, entry)
		if (l->ops == req->ops && l->service[0] &&
		    !strcmp(l->service, req->service))
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
	l->params = listener_params_dup(req->params);
	if (req->backlog)
		l->pending_max = req->backlog < l->pending_max ? req->backlog :
								 l->pending_max;
	log_info(LFMT ": service %s on %s attached to pid %ld", LARG(l),
		 l->service, ss_str(&l->addr, a, sizeof(a)), (long)c->pid);
	*out = l;
	if (l->ops->attached)
		l->ops->attached(l);
	return CONN_RES_OK;
}

/* A client asks to listen (by address or service); result code. */
enum conn_result listener_listen(struct client *c,
				 const struct listener_req *in,
				 struct listener **out)
{
	struct listener_req req = *in;
	const struct sockaddr_storage *ss = &req.addr;
	struct listener *l;
	unsigned int n = 0, pmax;
	uint16_t port;
	char a[64];

	if (!req.ops)
		req.ops = &listener_tcp;
	if (req.service)
		return listener_attach(c, &req, out);
	port = ss_port(ss);
	if (!conf_port_allowed(iwcmd_conf, c->uid, port))
		return CONN_RES_EPERM;
	TAILQ_FOREACH (l, &listeners, entry) {
		if (!l->service[0] && l->owner == c->uid)
			n++;
		if (port && l->ops == req.ops && ss_match(&l->addr, ss))
			return l->owner == c->uid ? CONN_RES_EEXIST :
						    CONN_RES_EADDRINUSE;
	}
	if (n >= iwcmd_conf->max_listeners_per_uid)
		return CONN_RES_ELIMIT;
	l = listener_new(req.ops, ss, req.addrlen, LISTENER_BACKLOG, -1);
	if (!l) {
		switch (errno) {
		case EADDRINUSE:
			return CONN_RES_EADDRINUSE;
		case EACCES:
		case EPERM:
			return CONN_RES_EPERM;
		case EADDRNOTAVAIL:
		case EAFNOSUPPORT:
		case EINVAL:
			return CONN_RES_EINVAL;
		default:
			log_warn("%slistener: %s for pid %ld", req.ops->name,
				 ss_str(ss, a, sizeof(a)), (long)c->pid);
			return CONN_RES_EINTERNAL;
		}
	}
	/* the backlog a client asks for bounds its pending requests */
	pmax = req.backlog ? req.backlog : LISTENER_PENDING_DEFAULT;
	if (pmax > iwcmd_conf->max_pending_per_uid)
		pmax = iwcmd_conf->max_pending_per_uid;
	l->owner = c->uid;
	l->client = c;
	l->pending_max = pmax;
	l->policy = iwcmd_conf->policy;
	l->params = listener_params_dup(req.params);
	c->n_listeners++;
	log_info(LFMT ": listening on %s for pid %ld uid %lu", LARG(l),
		 ss_str(&l->addr, a, sizeof(a)), (long)c->pid,
		 (unsigned long)c->uid);
	*out = l;
	return CONN_RES_OK;
}

/* A client stops listening: its own listener closes, a service detaches. */
enum conn_result listener_unlisten(struct client *c, uint64_t id)
{
	struct listener *l = listener_find(id);

	if (!l || l->client != c)
		return CONN_RES_ENOENT;
	if (l->service[0]) {
		const struct conf_listener *cl;

		/* Initiates of SCTP get a Terminate (RFC 5043 §6.4) */
		log_info(LFMT ": service %s detached from pid %ld", LARG(l),
			 l->service, (long)c->pid);
		listener_detach(l);
		/* the service goes on: later requests wait for a client */
		cl = conf_listener_find(iwcmd_conf, l->service);
		l->pending_max = cl ? cl->pending_max :
				      LISTENER_PENDING_DEFAULT;
		return CONN_RES_OK;
	}
	log_info(LFMT ": closed by pid %ld", LARG(l), (long)c->pid);
	listener_free(l);
	return CONN_RES_OK;
}

/* Find a listener by id. */
struct listener *listener_find(uint64_t id)
{
	struct listener *l;

	TAILQ_FOREACH (l, &listeners, entry)
		if (l->id == id)
			return l;
	return NULL;
}

/* The listener of ops listening where local is (sctp_listen.c). */
struct listener *listener_find_local(const struct listener_ops *ops,
				     const struct sockaddr *local,
				     socklen_t len)
{
	struct listener *l;

	TAILQ_FOREACH (l, &listeners, entry)
		if (l->ops == ops &&
		    sctp_addr_match(&l->addr, local, len, true))
			return l;
	return NULL;
}

/* Call fn for every listener (fn must not remove listeners). */
void listener_foreach(void (*fn)(struct listener *, void *), void *arg)
{
	struct listener *l;

	TAILQ_FOREACH (l, &listeners, entry)
		fn(l, arg);
}

static void listener_conf_apply(struct listener *l,
				const struct conf_listener *cl)
{
	uid_t owner = cl->has_owner ? cl->owner : 0;

	l->owner = owner;
	l->policy = cl->policy;
	l->pending_max = cl->pending_max;
	if (l->client && l->client->uid != owner) {
		log_info(LFMT ": service %s now belongs to uid %lu, "
			      "pid %ld detached",
			 LARG(l), l->service, (unsigned long)owner,
			 (long)l->client->pid);
		listener_detach(l);
	}
}

/* Keep a socket-activated TCP socket for its [listener NAME]. */
void listener_adopt(const char *name, int fd)
{
	int type = 0, acc = 0;
	socklen_t tl = sizeof(type), al = sizeof(acc);
	int fl;

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 ||
	    type != SOCK_STREAM || !acc || strlen(name) >= CONF_NAME_MAX ||
	    n_adopted == LISTENER_ADOPT_MAX) {
		log_warnx("listener %s: activated fd %d is not a listening "
			  "TCP socket, closed",
			  name, fd);
		close(fd);
		return;
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		log_warn("listener %s: activated fd %d", name, fd);
		close(fd);
		return;
	}
	memcpy(adopted[n_adopted].name, name, strlen(name) + 1);
	adopted[n_adopted].fd = fd;
	n_adopted++;
}

static int listener_take_adopted(const char *name)
{
	size_t i;
	int fd;

	for (i = 0; i < n_adopted; i++) {
		if (strcmp(adopted[i].name, name))
			continue;
		fd = adopted[i].fd;
		adopted[i] = adopted[--n_adopted];
		return fd;
	}
	return -1;
}

static struct listener *listener_service(const struct listener_ops *ops,
					 const char *name)
{
	struct listener *l;

	TAILQ_FOREACH (l, &listeners, entry)
		if (l->ops == ops && !strcmp(l->service, name))
			return l;
	return NULL;
}

/* Whether conf has a service of ops's transport not bound yet. */
bool listener_config_new(const struct listener_ops *ops,
			 const struct iwcmd_conf *conf)
{
	size_t i;

	for (i = 0; i < conf->n_listeners; i++)
		if (conf->listeners[i].transport == ops->transport &&
		    !listener_service(ops, conf->listeners[i].name))
			return true;
	return false;
}

/* The services of conf of ops's transport (startup, SIGHUP). */
int listener_config(const struct listener_ops *ops,
		    const struct iwcmd_conf *conf, bool bind)
{
	struct listener *l, *next;
	size_t i;
	int rc = 0;
	char a[64];

	/* services no longer configured (for this transport) go */
	for (l = TAILQ_FIRST(&listeners); l; l = next) {
		const struct conf_listener *cl;

		next = TAILQ_NEXT(l, entry);
		if (l->ops != ops || !l->service[0])
			continue;
		cl = conf_listener_find(conf, l->service);
		if (!cl || cl->transport != ops->transport) {
			log_info(LFMT ": service %s no longer configured",
				 LARG(l), l->service);
			listener_free(l);
		}
	}
	for (i = 0; i < conf->n_listeners; i++) {
		const struct conf_listener *cl = &conf->listeners[i];
		struct listener *old, *nl;
		int afd;

		if (cl->transport != ops->transport)
			continue;
		old = listener_service(ops, cl->name);
		if (old && (listener_priv(old)->activated ||
			    (ss_match(&old->addr, &cl->addr) &&
			     listener_priv(old)->backlog == cl->backlog))) {
			/* a socket from systemd stays what systemd made */
			listener_conf_apply(old, cl);
			continue;
		}
		if (!bind)
			continue; /* SCTP's, before the stack runs */
		afd = ops == &listener_tcp ? listener_take_adopted(cl->name) :
					     -1;
		if (!conf_port_allowed(conf, cl->has_owner ? cl->owner : 0,
				       ss_port(&cl->addr))) {
			log_warnx("listener %s: owner may not use port %u",
				  cl->name, ss_port(&cl->addr));
			rc = -1;
			continue;
		}
		/* a changed address closes the old socket first (the new
		 * one may overlap it, *:P and 127.0.0.1:P); an attached
		 * client attaches again */
		if (old) {
			log_info(LFMT ": service %s changed", LARG(old),
				 old->service);
			listener_free(old);
		}
		nl = listener_new(ops, &cl->addr, cl->addrlen, cl->backlog,
				  afd);
		if (!nl) {
			log_warn("%slistener %s: %s", ops->name, cl->name,
				 ss_str(&cl->addr, a, sizeof(a)));
			if (afd >= 0)
				close(afd);
			rc = -1;
			continue;
		}
		listener_priv(nl)->activated = afd >= 0;
		memcpy(nl->service, cl->name, strlen(cl->name) + 1);
		listener_conf_apply(nl, cl);
		log_info(LFMT ": service %s listening on %s%s", LARG(nl),
			 nl->service, ss_str(&nl->addr, a, sizeof(a)),
			 afd >= 0 ? " (socket activation)" : "");
	}
	return rc;
}

/* Bind the TCP listeners declared in the configuration (startup,
 * SIGHUP); SCTP's are sctp_conn.c's, once its stack runs. */
int listener_init_config(const struct iwcmd_conf *conf)
{
	int rc = listener_config(&listener_tcp, conf, true);
	size_t i;

	/* sockets named after no configured listener are of no use */
	for (i = 0; i < n_adopted; i++) {
		log_warnx("listener %s: activated socket (fd %d) names no "
			  "[listener] in the configuration, closed",
			  adopted[i].name, adopted[i].fd);
		close(adopted[i].fd);
	}
	n_adopted = 0;
	return rc;
}

/* A client went away: its listeners close, its services wait. */
void listener_client_gone(struct client *c)
{
	struct listener *l, *next;

	for (l = TAILQ_FIRST(&listeners); l; l = next) {
		next = TAILQ_NEXT(l, entry);
		if (l->client == c)
			listener_unlisten(c, l->id);
	}
}

/* Close every listening socket of ops (NULL: all). */
void listener_shutdown_ops(const struct listener_ops *ops)
{
	struct listener *l, *next;

	for (l = TAILQ_FIRST(&listeners); l; l = next) {
		next = TAILQ_NEXT(l, entry);
		if (!ops || l->ops == ops)
			listener_free(l);
	}
}

/* Close every listening socket (shutdown). */
void listener_shutdown(void)
{
	listener_shutdown_ops(NULL);
}
