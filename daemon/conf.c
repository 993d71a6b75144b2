/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#include "config.h"

#include "conf.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mpa.h"

#define CONF_FILE_MAX (1024 * 1024)

enum conf_type {
	CT_UINT,
	CT_BOOL,
	CT_ENUM,
	CT_PATH,
	CT_RTR,
	CT_ADDR,
	CT_OWNER,
	CT_ALLOW,
};

struct conf_key {
	const char *name;
	enum conf_type type;
	size_t off;
	unsigned int min, max;
	const char *const *names; /* CT_ENUM, NULL-terminated */
};

static const char *const rev0_names[] = { "strict", "permissive", NULL };
static const char *const irdord_names[] = { "relaxed", "strict", NULL };
static const char *const crc_names[] = { "request", "prefer-off", NULL };
static const char *const log_names[] = { "info", "debug", NULL };
/* the order of enum sctp_stack_kind */
static const char *const sctp_stack_kinds[] = { "usrsctp", "kernel", NULL };
static const char *const transport_names[] = { "tcp", "sctp", NULL };

#define GOFF(f) offsetof(struct iwcmd_conf, f)
#define POFF(f) offsetof(struct conf_policy, f)
#define LOFF(f) offsetof(struct conf_listener, f)

/* Keys valid only at the top level. */
static const struct conf_key conf_global_keys[] = {
	{ "socket", CT_PATH, GOFF(socket_path), 0, 0, NULL },
	{ "log_level", CT_ENUM, GOFF(verbose), 0, 0, log_names },
	{ "request_timeout_ms", CT_UINT, GOFF(request_timeout_ms), 100, 600000,
	  NULL },
	{ "reply_timeout_ms", CT_UINT, GOFF(reply_timeout_ms), 100, 600000,
	  NULL },
	{ "ulp_timeout_ms", CT_UINT, GOFF(ulp_timeout_ms), 100, 3600000, NULL },
	{ "rtr_timeout_ms", CT_UINT, GOFF(rtr_timeout_ms), 100, 600000, NULL },
	{ "first_fpdu_delay_ms", CT_UINT, GOFF(first_fpdu_delay_ms), 0,
	  CONF_FIRST_FPDU_DELAY_MAX, NULL },
	{ "tcp_user_timeout_ms", CT_UINT, GOFF(tcp_user_timeout_ms), 0,
	  CONF_TCP_USER_TIMEOUT_MAX, NULL },
	{ "max_listeners_per_uid", CT_UINT, GOFF(max_listeners_per_uid), 1,
	  65536, NULL },
	{ "max_pending_per_uid", CT_UINT, GOFF(max_pending_per_uid), 1, 1048576,
	  NULL },
	{ "max_conns", CT_UINT, GOFF(max_conns), 0, 1048576, NULL },
	{ "halfopen_max", CT_UINT, GOFF(halfopen_max), 0, 1048576, NULL },
	{ "halfopen_per_source", CT_UINT, GOFF(halfopen_per_source), 1, 1048576,
	  NULL },
	{ "conn_reserve", CT_UINT, GOFF(conn_reserve), 0, 1048576, NULL },
	{ "private_data_send_max", CT_UINT, GOFF(pd_send_max), 0, MPA_PD_MAX,
	  NULL },
	{ "busy_poll_us", CT_UINT, GOFF(busy_poll_us), 0, CONF_BUSY_POLL_MAX,
	  NULL },
	{ "adaptive_poll_us", CT_UINT, GOFF(adaptive_poll_us), 0,
	  CONF_BUSY_POLL_MAX, NULL },
	{ "allow_privileged", CT_ALLOW, 0, 0, 0, NULL },
	{ "sctp_stack", CT_ENUM, GOFF(sctp_stack), 0, 0, sctp_stack_kinds },
	{ "sctp_udp_port", CT_UINT, GOFF(sctp_udp_port), 0, 65535, NULL },
	{ "sctp_encap_port", CT_UINT, GOFF(sctp_encap_port), 0, 65535, NULL },
	{ "sctp_streams", CT_UINT, GOFF(sctp_streams), 1, 65535, NULL },
	{ "sctp_udp_gso", CT_BOOL, GOFF(sctp_udp_gso), 0, 0, NULL },
	{ "sctp_multiplex", CT_BOOL, GOFF(sctp_multiplex), 0, 0, NULL },
};

/* Negotiation policy: top level (defaults) or inside a listener. */
static const struct conf_key conf_policy_keys[] = {
	{ "rev0", CT_ENUM, POFF(rev0), 0, 0, rev0_names },
	{ "ird_ord", CT_ENUM, POFF(irdord), 0, 0, irdord_names },
	{ "crc", CT_ENUM, POFF(crc), 0, 0, crc_names },
	{ "markers", CT_BOOL, POFF(markers), 0, 0, NULL },
	{ "rtr_frame", CT_BOOL, POFF(rtr_frame), 0, 0, NULL },
	{ "enhanced", CT_BOOL, POFF(enhanced), 0, 0, NULL },
	{ "rtr", CT_RTR, 0, 0, 0, NULL },
	{ "max_ird", CT_UINT, POFF(max_ird), 0, MPA_IRD_ORD_NONE - 1, NULL },
	{ "max_ord", CT_UINT, POFF(max_ord), 0, MPA_IRD_ORD_NONE - 1, NULL },
};

/* Keys valid only inside [listener NAME]. */
static const struct conf_key conf_listener_keys[] = {
	{ "address", CT_ADDR, 0, 0, 0, NULL },
	{ "owner", CT_OWNER, 0, 0, 0, NULL },
	{ "backlog", CT_UINT, LOFF(backlog), 1, 65535, NULL },
	{ "pending_max", CT_UINT, LOFF(pending_max), 1, 65535, NULL },
	{ "transport", CT_ENUM, LOFF(transport), 0, 0, transport_names },
};

struct conf_ctx {
	const char *fname;
	unsigned int line;
	char *err;
	size_t errlen;
};

static int conf_error(struct conf_ctx *x, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int conf_error(struct conf_ctx *x, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(x->err, x->errlen, "%s:%u: ", x->fname, x->line);
	if (n >= 0 && (size_t)n < x->errlen) {
		va_start(ap, fmt);
		vsnprintf(x->err + n, x->errlen - (size_t)n, fmt, ap);
		va_end(ap);
	}
	errno = EINVAL;
	return -1;
}

/* Fill c with the built-in defaults. */
void conf_defaults(struct iwcmd_conf *c)
{
	memset(c, 0, sizeof(*c));
	snprintf(c->socket_path, sizeof(c->socket_path), "%s",
		 "/run/iwcm/iwcmd.sock");
	c->request_timeout_ms = 5000;
	c->reply_timeout_ms = 10000;
	c->ulp_timeout_ms = 30000;
	c->rtr_timeout_ms = 5000;
	c->max_listeners_per_uid = 64;
	c->max_pending_per_uid = 1024;
	c->max_conns = 0;    /* from RLIMIT_NOFILE (conf_limits()) */
	c->halfopen_max = 0; /* max_conns / 4 */
	c->halfopen_per_source = 256;
	c->conn_reserve = 0; /* max_conns / 8 */
	conf_limits(c, 0, 0);
	c->pd_send_max = 256;	   /* siw and cxgb4 accept no more */
	c->busy_poll_us = 0;	   /* sleep when idle ... */
	c->adaptive_poll_us = 200; /* ... unless clients answer fast */
	c->sctp_stack = 0;	   /* usrsctp */
	c->sctp_udp_port = 9899;   /* SCTP_DEFAULT_UDP_PORT */
	c->sctp_encap_port = 0;	   /* the same as sctp_udp_port */
	c->sctp_streams = 16;
	c->sctp_udp_gso = true;
	c->policy.rev0 = CONF_REV0_STRICT;
	c->policy.irdord = CONF_IRDORD_RELAXED;
	c->policy.crc = CONF_CRC_REQUEST;
	c->policy.markers = false;
	c->policy.rtr_frame = false;
	c->policy.enhanced = true;
	c->policy.rtr_accept = MPA_RTR_ALL;
	c->policy.rtr_pref[0] = MPA_RTR_WRITE;
	c->policy.rtr_pref[1] = MPA_RTR_READ;
	c->policy.rtr_pref[2] = MPA_RTR_SEND;
	c->policy.max_ird = 128;
	c->policy.max_ord = 128;
}

static int conf_parse_uint(const char *v, unsigned int min, unsigned int max,
			   unsigned int *out)
{
	char *end;
	unsigned long n;

	if (*v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoul(v, &end, 10);
	if (errno || *end || n < min || n > max)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

static int conf_parse_bool(const char *v, bool *out)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcmp(v, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcmp(v, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -1;
}

/* "write,read,send" in preference order; also the set accepted. */
static int conf_parse_rtr(const char *v, struct conf_policy *p)
{
	static const struct {
		const char *name;
		uint8_t bit;
	} types[] = { { "send", MPA_RTR_SEND },
		      { "write", MPA_RTR_WRITE },
		      { "read", MPA_RTR_READ } };
	uint8_t seen = 0, pref[3] = { 0, 0, 0 };
	size_t n = 0, i;
	const char *s = v;

	while (*s) {
		size_t len = strcspn(s, ",");
		bool found = false;

		for (i = 0; i < 3; i++) {
			if (strlen(types[i].name) == len &&
			    !strncmp(s, types[i].name, len)) {
				if (seen & types[i].bit)
					return -1;
				seen |= types[i].bit;
				pref[n++] = types[i].bit;
				found = true;
			}
		}
		if (!found)
			return -1;
		s += len;
		if (*s == ',' && *++s == '\0')
			return -1;
	}
	if (!n)
		return -1;
	p->rtr_accept = seen;
	memcpy(p->rtr_pref, pref, sizeof(pref));
	return 0;
}

/* "a.b.c.d:port", "[v6]:port" or "*:port". */
static int conf_parse_addr(const char *v, struct sockaddr_storage *ss,
			   socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	unsigned int port;
	size_t hlen;

	colon = strrchr(v, ':');
	if (!colon || conf_parse_uint(colon + 1, 0, 65535, &port) < 0)
		return -1;
	hlen = (size_t)(colon - v);
	if (hlen == 0 || hlen >= sizeof(host))
		return -1;
	memcpy(host, v, hlen);
	host[hlen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (host[0] == '[') {
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)ss;

		if (hlen < 3 || host[hlen - 1] != ']')
			return -1;
		host[hlen - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &s6->sin6_addr) != 1)
			return -1;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons((uint16_t)port);
		*len = sizeof(*s6);
	} else {
		struct sockaddr_in *s4 = (struct sockaddr_in *)ss;

		if (strcmp(host, "*") == 0)
			s4->sin_addr.s_addr = htonl(INADDR_ANY);
		else if (inet_pton(AF_INET, host, &s4->sin_addr) != 1)
			return -1;
		s4->sin_family = AF_INET;
		s4->sin_port = htons((uint16_t)port);
		*len = sizeof(*s4);
	}
	return 0;
}

static int conf_parse_uid(const char *v, uid_t *uid)
{
	unsigned int n;
	struct passwd pw, *res = NULL;
	char buf[1024];

	if (conf_parse_uint(v, 0, UINT_MAX - 1, &n) == 0) {
		*uid = (uid_t)n;
		return 0;
	}
	if (getpwnam_r(v, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return -1;
	*uid = res->pw_uid;
	return 0;
}

static const struct conf_key *conf_find(const struct conf_key *tab, size_t n,
					const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(tab[i].name, name))
			return &tab[i];
	return NULL;
}

#define CONF_FIND(tab, name) conf_find(tab, sizeof(tab) / sizeof(tab[0]), name)

/* Apply one key to base (the struct its offsets are relative to). */
static int conf_apply(struct conf_ctx *x, struct iwcmd_conf *c,
		      struct conf_listener *l, const struct conf_key *k,
		      char *base, const char *v)
{
	unsigned int u, i;
	bool b;

	switch (k->type) {
	case CT_UINT:
		if (conf_parse_uint(v, k->min, k->max, &u) < 0)
			return conf_error(x,
					  "%s: expected a number from %u "
					  "to %u",
					  k->name, k->min, k->max);
		memcpy(base + k->off, &u, sizeof(u));
		return 0;
	case CT_BOOL:
		if (conf_parse_bool(v, &b) < 0)
			return conf_error(x, "%s: expected yes or no", k->name);
		memcpy(base + k->off, &b, sizeof(b));
		return 0;
	case CT_ENUM:
		for (i = 0; k->names[i]; i++)
			if (!strcmp(v, k->names[i]))
				break;
		if (!k->names[i])
			return conf_error(x, "%s: unknown value '%s'", k->name,
					  v);
		if (k->names == log_names) {
			b = i == 1;
			memcpy(base + k->off, &b, sizeof(b));
		} else {
			memcpy(base + k->off, &i, sizeof(i));
		}
		return 0;
	case CT_PATH:
		if (v[0] != '/' || strlen(v) >= CONF_PATH_MAX)
			return conf_error(x,
					  "%s: expected an absolute path "
					  "shorter than %d",
					  k->name, CONF_PATH_MAX);
		memcpy(base + k->off, v, strlen(v) + 1);
		return 0;
	case CT_RTR:
		if (conf_parse_rtr(v, (struct conf_policy *)base) < 0)
			return conf_error(x,
					  "%s: expected a list of send, "
					  "write, read",
					  k->name);
		return 0;
	case CT_ADDR:
		if (conf_parse_addr(v, &l->addr, &l->addrlen) < 0)
			return conf_error(x,
					  "%s: expected ADDR:PORT, "
					  "[ADDR6]:PORT or *:PORT",
					  k->name);
		return 0;
	case CT_OWNER:
		if (conf_parse_uid(v, &l->owner) < 0)
			return conf_error(x, "%s: unknown user '%s'", k->name,
					  v);
		l->has_owner = true;
		return 0;
	case CT_ALLOW: {
		char tmp[CONF_NAME_MAX];
		const char *colon = strrchr(v, ':');
		struct conf_priv_allow *a;

		if (c->n_priv_allow >= CONF_MAX_PRIV_ALLOW)
			return conf_error(x, "%s: more than %d entries",
					  k->name, CONF_MAX_PRIV_ALLOW);
		a = &c->priv_allow[c->n_priv_allow];
		if (!colon || (size_t)(colon - v) >= sizeof(tmp) ||
		    colon == v || conf_parse_uint(colon + 1, 1, 1023, &u) < 0)
			return conf_error(x,
					  "%s: expected USER:PORT with a "
					  "port below 1024",
					  k->name);
		memcpy(tmp, v, (size_t)(colon - v));
		tmp[colon - v] = '\0';
		if (conf_parse_uid(tmp, &a->uid) < 0)
			return conf_error(x, "%s: unknown user '%s'", k->name,
					  tmp);
		a->port = (uint16_t)u;
		c->n_priv_allow++;
		return 0;
	}
	}
	return conf_error(x, "%s: internal error", k->name);
}

static char *conf_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
		*--e = '\0';
	return s;
}

static int conf_section(struct conf_ctx *x, struct iwcmd_conf *c, char *s,
			struct conf_listener **cur)
{
	char *name, *end = strchr(s, ']');
	size_t i;

	if (!end || end[1] != '\0')
		return conf_error(x, "section header without ']'");
	*end = '\0';
	s = conf_trim(s + 1);
	if (strncmp(s, "listener", 8) != 0 || (s[8] != ' ' && s[8] != '\t'))
		return conf_error(x, "unknown section '[%s]'", s);
	name = conf_trim(s + 8);
	if (!*name || strlen(name) >= CONF_NAME_MAX ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789-_.") != strlen(name))
		return conf_error(x,
				  "listener name must be 1-%d letters, "
				  "digits, '-', '_' or '.'",
				  CONF_NAME_MAX - 1);
	for (i = 0; i < c->n_listeners; i++)
		if (!strcmp(c->listeners[i].name, name))
			return conf_error(x, "listener '%s' defined twice",
					  name);
	if (c->n_listeners >= CONF_MAX_LISTENERS)
		return conf_error(x, "more than %d listeners",
				  CONF_MAX_LISTENERS);
	*cur = &c->listeners[c->n_listeners++];
	memset(*cur, 0, sizeof(**cur));
	memcpy((*cur)->name, name, strlen(name) + 1);
	(*cur)->backlog = 128;
	(*cur)->pending_max = 64;
	(*cur)->policy = c->policy; /* top-level policy keys come first */
	(*cur)->addrlen = 0;
	return 0;
}

static int conf_line(struct conf_ctx *x, struct iwcmd_conf *c, char *s,
		     struct conf_listener **cur)
{
	const struct conf_key *k;
	char *eq, *key, *val;

	s = conf_trim(s);
	if (*s == '\0' || *s == '#')
		return 0;
	if (*s == '[')
		return conf_section(x, c, s, cur);
	eq = strchr(s, '=');
	if (!eq)
		return conf_error(x, "expected 'key = value'");
	*eq = '\0';
	key = conf_trim(s);
	val = conf_trim(eq + 1);
	if (!*val)
		return conf_error(x, "%s: empty value", key);
	if ((k = CONF_FIND(conf_policy_keys, key)))
		return conf_apply(x, c, *cur, k,
				  *cur ? (char *)&(*cur)->policy :
					 (char *)&c->policy,
				  val);
	if (*cur) {
		if ((k = CONF_FIND(conf_listener_keys, key)))
			return conf_apply(x, c, *cur, k, (char *)*cur, val);
		if (CONF_FIND(conf_global_keys, key))
			return conf_error(x,
					  "%s: not valid inside a listener "
					  "section",
					  key);
	} else {
		if ((k = CONF_FIND(conf_global_keys, key)))
			return conf_apply(x, c, NULL, k, (char *)c, val);
		if (CONF_FIND(conf_listener_keys, key))
			return conf_error(x,
					  "%s: only valid inside "
					  "[listener NAME]",
					  key);
	}
	return conf_error(x, "unknown key '%s'", key);
}

/* Parse text on top of the defaults into *c. */
int conf_parse(const char *text, size_t len, const char *fname,
	       struct iwcmd_conf *c, char *err, size_t errlen)
{
	struct conf_ctx x = { fname, 0, err, errlen };
	struct conf_listener *cur = NULL;
	char line[CONF_LINE_MAX + 1];
	size_t pos = 0, i;

	conf_defaults(c);
	if (errlen)
		err[0] = '\0';
	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t llen = nl ? (size_t)(nl - (text + pos)) : len - pos;

		x.line++;
		if (llen > CONF_LINE_MAX)
			return conf_error(&x, "line longer than %d characters",
					  CONF_LINE_MAX);
		if (memchr(text + pos, '\0', llen))
			return conf_error(&x, "NUL character");
		memcpy(line, text + pos, llen);
		line[llen] = '\0';
		if (conf_line(&x, c, line, &cur) < 0)
			return -1;
		pos += llen + (nl ? 1 : 0);
	}
	for (i = 0; i < c->n_listeners; i++) {
		if (c->listeners[i].addrlen == 0) {
			x.line = 0;
			return conf_error(&x, "listener '%s' has no address",
					  c->listeners[i].name);
		}
	}
	conf_limits(c, 0, 0);
	return 0;
}

/* Read and parse path. */
int conf_load(const char *path, struct iwcmd_conf *c, char *err, size_t errlen)
{
	char *buf;
	size_t len = 0;
	ssize_t n;
	int fd, rc, saved;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		saved = errno;
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	buf = malloc(CONF_FILE_MAX);
	if (!buf) {
		close(fd);
		snprintf(err, errlen, "%s: out of memory", path);
		errno = ENOMEM;
		return -1;
	}
	while ((n = read(fd, buf + len, CONF_FILE_MAX - len)) > 0) {
		len += (size_t)n;
		if (len == CONF_FILE_MAX)
			break;
	}
	saved = errno;
	close(fd);
	if (n < 0) {
		free(buf);
		snprintf(err, errlen, "%s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	if (len == CONF_FILE_MAX) {
		free(buf);
		snprintf(err, errlen, "%s: larger than %d bytes", path,
			 CONF_FILE_MAX - 1);
		errno = EFBIG;
		return -1;
	}
	rc = conf_parse(buf, len, path, c, err, errlen);
	free(buf);
	return rc;
}

/* Find a configured listener by service name. */
const struct conf_listener *conf_listener_find(const struct iwcmd_conf *c,
					       const char *name)
{
	size_t i;

	for (i = 0; i < c->n_listeners; i++)
		if (!strcmp(c->listeners[i].name, name))
			return &c->listeners[i];
	return NULL;
}

/* Resolve the connection limits for a descriptor limit (conf.h). */
unsigned int conf_limits(struct iwcmd_conf *c, unsigned long long nofile,
			 unsigned int reserve)
{
	unsigned long long avail;
	unsigned int lowered = 0;

	/* Every connection being negotiated holds a descriptor. */
	if (!nofile)
		avail = CONF_MAX_CONNS_AUTO;
	else if (nofile > 2ULL * reserve)
		avail = nofile - reserve;
	else
		avail = nofile / 2;
	if (avail > CONF_MAX_CONNS_AUTO)
		avail = CONF_MAX_CONNS_AUTO;
	if (avail < 1)
		avail = 1;
	c->lim.max_conns = c->max_conns ? c->max_conns : (unsigned int)avail;
	if (c->lim.max_conns > avail) {
		lowered = c->lim.max_conns;
		c->lim.max_conns = (unsigned int)avail;
	}
	c->lim.halfopen_max = c->halfopen_max ? c->halfopen_max :
						c->lim.max_conns / 4;
	if (!c->lim.halfopen_max)
		c->lim.halfopen_max = 1;
	c->lim.conn_reserve = c->conn_reserve ? c->conn_reserve :
						c->lim.max_conns / 8;
	return lowered;
}

/* Whether uid may bind port. */
bool conf_port_allowed(const struct iwcmd_conf *c, uid_t uid, uint16_t port)
{
	size_t i;

	if (port >= 1024 || port == 0 || uid == 0)
		return true;
	for (i = 0; i < c->n_priv_allow; i++)
		if (c->priv_allow[i].uid == uid &&
		    c->priv_allow[i].port == port)
			return true;
	return false;
}
