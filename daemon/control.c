/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The client and admin SEQPACKET sockets (the bgpd control.c model): one
 * struct client and one libevent event per peer, SO_PEERCRED identity, the
 * HELLO/VERSION handshake; requests go to client_api.c (client socket)
 * and admin.c (admin socket).  Any receive
 * error, malformed framing or unknown message type closes that peer only.
 *
 * Messages to a peer whose socket is full wait in a bounded queue; while
 * the queue is above a high watermark the peer's requests are not read
 * (XOFF), and a peer that lets it grow to the hard limit is dropped.
 *
 * Every message to a peer is queued and the queue goes out when the
 * loop has nothing else ready (ev_flush, at the lowest priority of
 * IWCMD_PRIORITIES): a request's reply, what the request raised (an
 * Accept's Established) and the events of the peer's other connections
 * in that busy spell go together, IPC_SEND_BATCH to a sendmmsg, and the
 * client wakes once for all of them instead of once each.  A queue of
 * IPC_SEND_BATCH goes at once, and a loop that never runs out of work
 * still flushes after CTL_FLUSH_LATE_US (ev_late).  libevent's clock is
 * CLOCK_MONOTONIC_COARSE, so that is anything from a few microseconds
 * (a tick falls in the spell) to a tick past it: a backstop, not a
 * measure.  A precise clock would cost a timerfd_settime(2) per pass of
 * the loop, 8 system calls per handshake.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "iwcm.pb-c.h"
#include "iwcmd.h"
#include "log.h"

#define CTL_BACKLOG 128
#define CTL_ACCEPT_BURST 16
#define CTL_OUTQ_MAX 4096 /* messages queued for one peer */
#define CTL_OUTQ_BYTES (8u << 20)
#define CTL_XOFF_HIGH 256 /* stop reading requests ... */
#define CTL_XOFF_LOW 64	  /* ... until drained below this */
#define CTL_GROUP "iwcm"
/* A busy loop holds a peer's messages at most this long. */
#define CTL_FLUSH_LATE_US 1000

unsigned int control_flush_late_us = CTL_FLUSH_LATE_US;

struct client_msg {
	TAILQ_ENTRY(client_msg) entry;
	int fd; /* ours to send and close, or -1 */
	size_t len;
	uint8_t buf[];
};

TAILQ_HEAD(client_msgq, client_msg);

/* struct client is embedded: the output queue is control.c's business. */
struct control_priv {
	struct client c;
	struct client_msgq outq;
	unsigned int outq_len;
	size_t outq_bytes;
	bool corked;
	struct client_msg *cork_after; /* last message before the cork */
	bool flush_pending;	       /* the queue waits for ev_flush */
	struct event *ev_flush;	       /* the loop is idle */
	struct event *ev_late;	       /* ... or has been busy too long */
	bool xoff;
	short evflags; /* what c.ev is armed with */
};

struct ctl_sock {
	int fd;
	bool admin;
	bool bound; /* ours to unlink at exit */
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	struct event *ev;
	struct event *pause; /* EMFILE back-off */
};

static TAILQ_HEAD(, client) ctl_clients = TAILQ_HEAD_INITIALIZER(ctl_clients);
static TAILQ_HEAD(, client) ctl_dead = TAILQ_HEAD_INITIALIZER(ctl_dead);
static struct ctl_sock ctl_socks[2] = { { .fd = -1 }, { .fd = -1 } };
static const struct control_handlers *ctl_handlers;
static struct event *ctl_reaper;
static uint64_t ctl_next_id;
static struct ipc_msg ctl_msg; /* one message handled at a time */
static struct log_ratelimit ctl_rl = LOG_RATELIMIT_INIT(10, 20);

static void control_event(evutil_socket_t fd, short what, void *arg);

static struct control_priv *control_priv(struct client *c)
{
	return (struct control_priv *)((char *)c -
				       offsetof(struct control_priv, c));
}

/* Peer misbehaviour is logged at info level, rate limited. */
static void ctl_peer_log(const struct client *c, const char *what)
{
	struct timespec ts;
	unsigned int supp;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	if (!log_ratelimit_ok(&ctl_rl, ts.tv_sec, &supp))
		return;
	if (supp)
		log_info("ctl: %u messages suppressed", supp);
	log_info("ctl pid %ld: %s%s", (long)c->pid, c->admin ? "admin: " : "",
		 what);
}

/* Arm the peer's one event for what it needs now. */
static void control_update_ev(struct client *c)
{
	struct control_priv *p = control_priv(c);
	short want = EV_PERSIST;

	if (c->fd < 0)
		return;
	if (!p->xoff)
		want |= EV_READ;
	if (!TAILQ_EMPTY(&p->outq) && !p->corked && !p->flush_pending)
		want |= EV_WRITE;
	if (want == p->evflags)
		return;
	event_del(c->ev);
	event_assign(c->ev, iwcmd_base, c->fd, want, control_event, c);
	if (want & (EV_READ | EV_WRITE))
		event_add(c->ev, NULL);
	p->evflags = want;
}

static void control_msg_free(struct client_msg *m)
{
	if (m->fd >= 0)
		close(m->fd);
	free(m);
}

static void control_outq_drop(struct control_priv *p)
{
	struct client_msg *m;

	while ((m = TAILQ_FIRST(&p->outq))) {
		TAILQ_REMOVE(&p->outq, m, entry);
		control_msg_free(m);
	}
	p->outq_len = 0;
	p->outq_bytes = 0;
}

static void ctl_reap(evutil_socket_t fd, short what, void *arg)
{
	struct client *c;

	while ((c = TAILQ_FIRST(&ctl_dead))) {
		TAILQ_REMOVE(&ctl_dead, c, entry);
		free(control_priv(c));
	}
}

/* The first IPC_SEND_BATCH queued messages as a batch; how many. */
static unsigned int control_outq_batch(struct control_priv *p,
				       struct ipc_buf b[IPC_SEND_BATCH])
{
	struct client_msg *m;
	unsigned int n = 0;

	TAILQ_FOREACH (m, &p->outq, entry) {
		if (n == IPC_SEND_BATCH)
			break;
		b[n].buf = m->buf;
		b[n].len = m->len;
		b[n++].fd = m->fd;
	}
	return n;
}

/* A reply queued before the close still goes, if the socket takes it
 * (a request refused and its client dropped). */
static void control_last_words(struct client *c)
{
	struct control_priv *p = control_priv(c);
	struct ipc_buf b[IPC_SEND_BATCH];
	unsigned int n;

	p->flush_pending = false;
	n = control_outq_batch(p, b);
	if (n)
		(void)ipc_send_bufs(c->fd, b, n);
}

/* Close a client's connection; the struct is freed from the loop. */
void control_close(struct client *c, const char *why)
{
	struct control_priv *p = control_priv(c);
	static const struct timeval now = { 0, 0 };

	if (c->fd < 0)
		return;
	if (why)
		ctl_peer_log(c, why);
	else
		log_debug("ctl pid %ld: closed", (long)c->pid);
	TAILQ_REMOVE(&ctl_clients, c, entry);
	event_free(c->ev);
	c->ev = NULL;
	event_free(p->ev_flush);
	p->ev_flush = NULL;
	event_free(p->ev_late);
	p->ev_late = NULL;
	if (p->flush_pending)
		control_last_words(c);
	close(c->fd);
	c->fd = -1;
	control_outq_drop(p);
	/* who refers to c learns it now; sends to it fail from here on */
	if (c->admin)
		conn_client_gone(c);
	else
		ctl_handlers->gone(c);
	TAILQ_INSERT_TAIL(&ctl_dead, c, entry);
	if (ctl_reaper)
		evtimer_add(ctl_reaper, &now);
}

/*
 * Write queued messages until the socket is full, IPC_SEND_BATCH at a
 * time (each batch one wake-up of the client); 0, or -1 when the client
 * was closed.
 */
static int control_flush(struct client *c)
{
	struct control_priv *p = control_priv(c);
	struct ipc_buf b[IPC_SEND_BATCH];
	struct client_msg *m;
	char why[96];
	int k;

	while (!p->corked && !TAILQ_EMPTY(&p->outq)) {
		k = ipc_send_bufs(c->fd, b, control_outq_batch(p, b));
		if (k < 0) {
			if (errno == EAGAIN || errno == ENOBUFS)
				break;
			snprintf(why, sizeof(why), "send: %s", strerror(errno));
			control_close(c, why);
			return -1;
		}
		if (k > 0)
			loop_note_work();
		while (k-- > 0) {
			m = TAILQ_FIRST(&p->outq);
			TAILQ_REMOVE(&p->outq, m, entry);
			p->outq_len--;
			p->outq_bytes -= m->len;
			control_msg_free(m);
		}
	}
	if (p->xoff && p->outq_len < CTL_XOFF_LOW) {
		log_debug("ctl pid %ld: xon", (long)c->pid);
		p->xoff = false;
	}
	control_update_ev(c);
	return 0;
}

/* Flush now what waited for the loop to be idle. */
static int control_flush_now(struct client *c)
{
	struct control_priv *p = control_priv(c);

	if (p->flush_pending) {
		p->flush_pending = false;
		event_del(p->ev_flush);
		event_del(p->ev_late);
	}
	return control_flush(c);
}

/* The loop is idle, or has been busy for CTL_FLUSH_LATE_US. */
static void control_flush_cb(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;

	(void)fd;
	(void)what;
	if (c->fd >= 0)
		control_flush_now(c);
}

/* The queue goes when the loop is next idle (unless it waits for room
 * in the socket, EV_WRITE). */
static void control_flush_later(struct client *c)
{
	struct control_priv *p = control_priv(c);
	struct timeval late = { control_flush_late_us / 1000000,
				control_flush_late_us % 1000000 };

	if (p->flush_pending || p->corked || (p->evflags & EV_WRITE))
		return;
	p->flush_pending = true;
	event_active(p->ev_flush, 0, 0);
	evtimer_add(p->ev_late, &late);
}

/*
 * Queue a packed message at the tail, or for a reply right behind what
 * was queued before control_cork() (reply is true).  The message takes
 * fd (closed on failure too).
 */
static int control_enqueue(struct client *c, uint16_t type, uint32_t reqid,
			   const ProtobufCMessage *body, int fd, bool reply)
{
	struct control_priv *p = control_priv(c);
	struct client_msg *m;
	size_t len = IPC_HDR_LEN;
	ssize_t n;

	if (body)
		len += protobuf_c_message_get_packed_size(body);
	if (len > IPC_MAX_MSG) {
		log_warnx("ctl pid %ld: %s too large, not sent", (long)c->pid,
			  ipc_type_name(type));
		errno = EMSGSIZE;
		goto fail;
	}
	if (p->outq_len >= CTL_OUTQ_MAX ||
	    p->outq_bytes + len > CTL_OUTQ_BYTES) {
		control_close(c, "not reading its messages, dropped");
		errno = EPIPE;
		goto fail;
	}
	m = malloc(sizeof(*m) + len);
	if (!m)
		fatal("ctl: queue");
	n = ipc_pack(type, reqid, body, m->buf, len);
	if (n < 0) {
		free(m);
		goto fail;
	}
	m->len = (size_t)n;
	m->fd = fd;
	if (!reply)
		TAILQ_INSERT_TAIL(&p->outq, m, entry);
	else if (p->cork_after)
		TAILQ_INSERT_AFTER(&p->outq, p->cork_after, m, entry);
	else
		TAILQ_INSERT_HEAD(&p->outq, m, entry);
	p->outq_len++;
	p->outq_bytes += m->len;
	if (!p->xoff && p->outq_len >= CTL_XOFF_HIGH) {
		log_debug("ctl pid %ld: xoff", (long)c->pid);
		p->xoff = true;
		control_update_ev(c);
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * Queue one message to a client, taking fd; it goes when the loop is
 * idle, or at once when IPC_SEND_BATCH are queued.  -1 when the client
 * is gone or was dropped (its queue full), or the message is too large.
 */
int control_send_fd(struct client *c, uint16_t type, uint32_t reqid,
		    const ProtobufCMessage *body, int fd)
{
	struct control_priv *p = control_priv(c);

	if (c->fd < 0) {
		if (fd >= 0)
			close(fd);
		errno = EPIPE;
		return -1;
	}
	if (control_enqueue(c, type, reqid, body, fd, false) < 0)
		return -1;
	control_flush_later(c);
	if (p->flush_pending && p->outq_len >= IPC_SEND_BATCH &&
	    control_flush_now(c) < 0) {
		errno = EPIPE;
		return -1;
	}
	return 0;
}

/* Send one message to a client, fd (if any) a copy of the caller's. */
int control_send(struct client *c, uint16_t type, uint32_t reqid,
		 const ProtobufCMessage *body, int fd)
{
	int dup = -1;

	if (fd >= 0 && c->fd >= 0) {
		dup = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (dup < 0) {
			log_warn("ctl pid %ld: dup", (long)c->pid);
			return -1;
		}
	}
	return control_send_fd(c, type, reqid, body, dup);
}

/* Hold back messages to c while one of its requests is handled. */
void control_cork(struct client *c)
{
	struct control_priv *p = control_priv(c);

	p->corked = true;
	p->cork_after = TAILQ_LAST(&p->outq, client_msgq);
}

/* Send a request's reply ahead of the held-back messages. */
int control_reply(struct client *c, uint16_t type, uint32_t reqid,
		  const ProtobufCMessage *body)
{
	struct control_priv *p = control_priv(c);
	int rc;

	if (c->fd < 0) {
		errno = EPIPE;
		return -1;
	}
	if (!p->corked)
		return control_send(c, type, reqid, body, -1);
	rc = control_enqueue(c, type, reqid, body, -1, true);
	if (c->fd < 0)
		return -1;
	p->corked = false;
	p->cork_after = NULL;
	/* with what the request raised, when the loop is idle */
	control_flush_later(c);
	return rc;
}

/* Find a live client by id. */
struct client *control_find(uint64_t id)
{
	struct client *c;

	TAILQ_FOREACH (c, &ctl_clients, entry)
		if (c->id == id)
			return c;
	return NULL;
}

/* Clients on the client socket (not admin) with an open connection. */
unsigned int control_client_count(void)
{
	struct client *o;
	unsigned int n = 0;

	TAILQ_FOREACH (o, &ctl_clients, entry)
		if (!o->admin)
			n++;
	return n;
}

/* Whether both control sockets are being served. */
bool control_healthy(void)
{
	size_t i;

	for (i = 0; i < 2; i++) {
		struct ctl_sock *s = &ctl_socks[i];

		if (s->fd < 0 || !s->ev)
			return false;
		if (!event_pending(s->ev, EV_READ, NULL) &&
		    !evtimer_pending(s->pause, NULL))
			return false;
	}
	return true;
}

/* ---- the HELLO/VERSION handshake ---- */

static void control_version(struct client *c, uint32_t reqid, Iwcm__Result res)
{
	Iwcm__Version v = IWCM__VERSION__INIT;

	v.version = IPC_PROTO_VERSION;
	v.result = res;
	control_send(c, IPC_VERSION, reqid, &v.base, -1);
}

static void control_hello(struct client *c, struct ipc_msg *m)
{
	Iwcm__Hello *h;
	char why[128];

	if (m->hdr.type != IPC_HELLO) {
		snprintf(why, sizeof(why), "first message is %s, not HELLO",
			 ipc_type_name(m->hdr.type));
		control_version(c, m->hdr.reqid, IWCM__RESULT__RES_EVERSION);
		control_close(c, why);
		return;
	}
	h = (Iwcm__Hello *)ipc_unpack(m, &iwcm__hello__descriptor);
	if (!h || h->version != IPC_PROTO_VERSION) {
		if (h)
			snprintf(why, sizeof(why), "HELLO version %u, not %u",
				 h->version, IPC_PROTO_VERSION);
		else
			snprintf(why, sizeof(why), "malformed HELLO");
		control_version(c, m->hdr.reqid, IWCM__RESULT__RES_EVERSION);
		control_close(c, why);
		if (h)
			protobuf_c_message_free_unpacked(&h->base, NULL);
		return;
	}
	log_debug("ctl pid %ld: hello from uid %lu%s%s", (long)c->pid,
		  (unsigned long)c->uid, h->client_name ? ", " : "",
		  h->client_name ? h->client_name : "");
	protobuf_c_message_free_unpacked(&h->base, NULL);
	c->hello = true;
	control_version(c, m->hdr.reqid, IWCM__RESULT__RES_OK);
}

static void control_read(struct client *c)
{
	struct ipc_msg *m = &ctl_msg;
	char why[128];
	int n;

	/* neither socket carries fds toward the daemon */
	n = ipc_recv(c->fd, m, false);
	if (n == 0) {
		control_close(c, NULL);
		return;
	}
	if (n < 0) {
		if (errno == EAGAIN || errno == EINTR)
			return;
		if (errno == EPROTO) {
			control_version(c, m->hdr.reqid,
					IWCM__RESULT__RES_EVERSION);
			snprintf(why, sizeof(why), "IPC version %u, not %u",
				 m->hdr.version, IPC_PROTO_VERSION);
		} else {
			snprintf(why, sizeof(why), "receive: %s",
				 errno == EMSGSIZE ? "message too large" :
				 errno == EBADMSG  ? "malformed message or "
						     "control data" :
						     strerror(errno));
		}
		control_close(c, why);
		return;
	}
	loop_note_work();
	if (!c->hello)
		control_hello(c, m);
	else if (m->hdr.type == IPC_HELLO)
		control_close(c, "HELLO after the handshake");
	else if (c->admin)
		ctl_handlers->admin(c, m);
	else
		ctl_handlers->client(c, m);
	ipc_msg_clear(m);
}

static void control_event(evutil_socket_t fd, short what, void *arg)
{
	struct client *c = arg;

	if ((what & EV_WRITE) && control_flush(c) < 0)
		return;
	if ((what & EV_READ) && c->fd >= 0 && !control_priv(c)->xoff)
		control_read(c);
}

/* ---- accepting ---- */

static void ctl_resume(evutil_socket_t fd, short what, void *arg)
{
	struct ctl_sock *s = arg;

	event_add(s->ev, NULL);
}

static void ctl_new_client(struct ctl_sock *s, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0) {
		log_warn("ctl: SO_PEERCRED");
		close(fd);
		return;
	}
	control_peer_new(fd, s->admin, &cred);
}

/* Serve fd as a peer of the client or admin socket (consumes fd). */
int control_peer_new(int fd, bool admin, const struct ucred *cred)
{
	struct control_priv *p;
	struct client *c;

	/* the admin socket is 0600; refuse anyone else who got through */
	if (admin && cred->uid != 0 && cred->uid != geteuid()) {
		log_info("ctl pid %ld: admin: uid %lu refused", (long)cred->pid,
			 (unsigned long)cred->uid);
		close(fd);
		return -1;
	}
	p = calloc(1, sizeof(*p));
	if (!p)
		fatal("ctl: client");
	c = &p->c;
	TAILQ_INIT(&p->outq);
	c->id = ++ctl_next_id;
	c->fd = fd;
	c->admin = admin;
	c->uid = cred->uid;
	c->gid = cred->gid;
	c->pid = cred->pid;
	c->ev = event_new(iwcmd_base, fd, EV_READ | EV_PERSIST, control_event,
			  c);
	if (!c->ev)
		fatal("ctl: event_new");
	event_add(c->ev, NULL);
	p->evflags = EV_READ | EV_PERSIST;
	p->ev_flush = event_new(iwcmd_base, -1, 0, control_flush_cb, c);
	p->ev_late = evtimer_new(iwcmd_base, control_flush_cb, c);
	if (!p->ev_flush || !p->ev_late)
		fatal("ctl: event_new");
	/* the lowest: after everything else that is ready */
	event_priority_set(p->ev_flush,
			   event_base_get_npriorities(iwcmd_base) - 1);
	TAILQ_INSERT_TAIL(&ctl_clients, c, entry);
	log_debug("ctl pid %ld: connected to the %s socket, uid %lu",
		  (long)c->pid, admin ? "admin" : "client",
		  (unsigned long)c->uid);
	return 0;
}

static void ctl_accept(evutil_socket_t lfd, short what, void *arg)
{
	static const struct timeval pause_tv = { 1, 0 };
	struct ctl_sock *s = arg;
	int i, fd;

	for (i = 0; i < CTL_ACCEPT_BURST; i++) {
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd >= 0) {
			ctl_new_client(s, fd);
			continue;
		}
		if (errno == EINTR || errno == ECONNABORTED)
			continue;
		if (errno == EMFILE || errno == ENFILE) {
			log_warn("ctl: accept on %s, pausing for a second",
				 s->path);
			event_del(s->ev);
			evtimer_add(s->pause, &pause_tv);
		} else if (errno != EAGAIN) {
			log_warn("ctl: accept on %s", s->path);
		}
		return;
	}
}

/* Is a live daemon answering on path? */
static bool ctl_path_alive(const char *path)
{
	struct sockaddr_un sun;
	int fd, rc;

	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return false;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, strlen(path) + 1);
	rc = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	close(fd);
	return rc == 0 || (errno != ECONNREFUSED && errno != ENOENT);
}

static int ctl_mkdir_parent(const char *path)
{
	char dir[sizeof(ctl_socks[0].path)];
	char *p;

	memcpy(dir, path, strlen(path) + 1);
	p = strrchr(dir, '/');
	if (!p || p == dir)
		return 0;
	*p = '\0';
	for (p = dir + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -1;
		*p = '/';
	}
	if (mkdir(dir, 0755) < 0 && errno != EEXIST)
		return -1;
	return 0;
}

/* Bind our own socket at s->path with mode. */
static int ctl_bind(struct ctl_sock *s, mode_t mode)
{
	struct sockaddr_un sun;
	struct stat st;
	struct group *gr;
	mode_t old;
	int fd, rc;

	if (ctl_mkdir_parent(s->path) < 0) {
		log_warn("ctl: mkdir for %s", s->path);
		return -1;
	}
	if (lstat(s->path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			log_warnx("ctl: %s exists and is not a socket",
				  s->path);
			errno = EEXIST;
			return -1;
		}
		/* a stale socket goes only when nobody answers on it */
		if (ctl_path_alive(s->path)) {
			log_warnx("ctl: %s is in use (another iwcmd?)",
				  s->path);
			errno = EADDRINUSE;
			return -1;
		}
		log_info("ctl: removing the stale socket %s", s->path);
		if (unlink(s->path) < 0 && errno != ENOENT) {
			log_warn("ctl: unlink %s", s->path);
			return -1;
		}
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		log_warn("ctl: socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, s->path, strlen(s->path) + 1);
	old = umask(0777 & ~mode);
	rc = bind(fd, (struct sockaddr *)&sun, sizeof(sun));
	umask(old);
	if (rc < 0) {
		log_warn("ctl: bind %s", s->path);
		close(fd);
		return -1;
	}
	s->bound = true;
	if (!s->admin && (gr = getgrnam(CTL_GROUP)) &&
	    chown(s->path, (uid_t)-1, gr->gr_gid) < 0)
		log_warn("ctl: chown %s to group %s", s->path, CTL_GROUP);
	if (chmod(s->path, mode) < 0 || listen(fd, CTL_BACKLOG) < 0) {
		log_warn("ctl: %s", s->path);
		close(fd);
		return -1;
	}
	s->fd = fd;
	return 0;
}

/* Adopt a socket-activated fd after checking what it is. */
static int ctl_adopt(struct ctl_sock *s, int fd)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	int type = 0, acc = 0;
	socklen_t tl = sizeof(type), al = sizeof(acc);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) < 0 ||
	    getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &al) < 0 ||
	    type != SOCK_SEQPACKET || !acc) {
		log_warnx("ctl: activated %s socket (fd %d) is not a "
			  "listening SEQPACKET socket",
			  s->admin ? "admin" : "client", fd);
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&sun, &len) == 0 &&
	    sun.sun_family == AF_UNIX &&
	    len > offsetof(struct sockaddr_un, sun_path) && sun.sun_path[0])
		snprintf(s->path, sizeof(s->path), "%.*s",
			 (int)sizeof(sun.sun_path), sun.sun_path);
	if (fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0 ||
	    fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
		log_warn("ctl: fd %d", fd);
		return -1;
	}
	s->fd = fd;
	s->bound = false; /* systemd owns the path */
	return 0;
}

static int ctl_open(struct ctl_sock *s, bool admin, const char *path, int fd)
{
	s->admin = admin;
	s->fd = -1;
	if (strlen(path) >= sizeof(s->path)) {
		log_warnx("ctl: socket path too long: %s", path);
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(s->path, path, strlen(path) + 1);
	if (fd >= 0 ? ctl_adopt(s, fd) : ctl_bind(s, admin ? 0600 : 0660))
		return -1;
	s->ev = event_new(iwcmd_base, s->fd, EV_READ | EV_PERSIST, ctl_accept,
			  s);
	s->pause = evtimer_new(iwcmd_base, ctl_resume, s);
	if (!s->ev || !s->pause)
		fatal("ctl: event_new");
	event_add(s->ev, NULL);
	log_debug("ctl: %s socket %s%s", admin ? "admin" : "client", s->path,
		  fd >= 0 ? " (socket activation)" : "");
	return 0;
}

/* Bind (or adopt) the client and the admin socket. */
/* The daemon's loop as control.c needs it (see the top of this file). */
struct event_base *control_base_new(void)
{
	struct event_base *b = event_base_new();

	if (b && event_base_priority_init(b, IWCMD_PRIORITIES) < 0) {
		event_base_free(b);
		b = NULL;
	}
	return b;
}

int control_init(const char *client_path, int client_fd, const char *admin_path,
		 int admin_fd, const struct control_handlers *h)
{
	ctl_handlers = h;
	ctl_reaper = evtimer_new(iwcmd_base, ctl_reap, NULL);
	if (!ctl_reaper)
		fatal("ctl: event_new");
	if (ctl_open(&ctl_socks[0], false, client_path, client_fd) < 0)
		return -1;
	if (ctl_open(&ctl_socks[1], true, admin_path, admin_fd) < 0)
		return -1;
	return 0;
}

/* Close the listening sockets and every client. */
void control_shutdown(void)
{
	struct client *c;
	size_t i;

	while ((c = TAILQ_FIRST(&ctl_clients))) {
		/* best effort: what is queued (shutdown errors) goes out */
		control_priv(c)->corked = false;
		if (control_flush_now(c) == 0)
			control_close(c, NULL);
	}
	for (i = 0; i < 2; i++) {
		struct ctl_sock *s = &ctl_socks[i];

		if (s->ev)
			event_free(s->ev);
		if (s->pause)
			event_free(s->pause);
		s->ev = s->pause = NULL;
		if (s->fd >= 0)
			close(s->fd);
		if (s->bound && unlink(s->path) < 0 && errno != ENOENT)
			log_warn("ctl: unlink %s", s->path);
		s->fd = -1;
		s->bound = false;
	}
	ctl_reap(-1, 0, NULL);
	if (ctl_reaper)
		event_free(ctl_reaper);
	ctl_reaper = NULL;
}

/* The admin socket path beside a client socket path. */
void control_admin_path(const char *client_path, char *out, size_t len)
{
	if (ipc_admin_path(client_path, out, len) < 0 && len)
		out[0] = '\0';
}
