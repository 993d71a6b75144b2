/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The option table of iwcmctl listen, connect and connect --daemon, and
 * the translation of the parsed options into libiwcm parameters or an
 * iwcm.proto ConnParams.  The daemon makes every protocol decision; this
 * only checks what the options can say on their own (ranges, RFC 5044
 * §7.1 private data length, RFC 6581 §9.1 14-bit IRD/ORD).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmopt.h"
#include "vocab.h"

#define CMOPT_ALL (CMOPT_LISTEN | CMOPT_CONNECT | CMOPT_DAEMON)
#define CMOPT_INIT (CMOPT_CONNECT | CMOPT_DAEMON)

/* iwcm_conn_param_set_reply_timeout(): 100 ms to 10 min. */
#define CMOPT_TIMEOUT_MIN 100
#define CMOPT_TIMEOUT_MAX 600000
#define CMOPT_COUNT_MAX 1000000

struct cmopt_def {
	const char *name;   /* after the leading "--" */
	const char *arg;    /* NULL: a flag */
	unsigned int modes; /* CMOPT_* commands that take it */
	int (*set)(struct cmopt *o, const char *v);
	const char *help;
};

static int parse_uint(const char *v, unsigned long max, unsigned int *out)
{
	unsigned long n;
	char *end;

	if (!v || *v < '0' || *v > '9')
		return -1;
	errno = 0;
	n = strtoul(v, &end, 0);
	if (errno || *end || n > max)
		return -1;
	*out = (unsigned int)n;
	return 0;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int set_rev(struct cmopt *o, const char *v)
{
	o->has_rev = true;
	return parse_uint(v, 2, &o->rev);
}

static int set_markers(struct cmopt *o, const char *v)
{
	o->has_markers = true;
	return vocab_onoff_parse(v, &o->markers);
}

static int set_crc(struct cmopt *o, const char *v)
{
	o->has_crc = true;
	return vocab_onoff_parse(v, &o->crc);
}

static int set_p2p(struct cmopt *o, const char *v)
{
	o->p2p = true;
	return 0;
}

/* RFC 6581 §9.2: flags B (Send), C (Write) and D (Read). */
static int set_rtr(struct cmopt *o, const char *v)
{
	o->has_rtr = true;
	return vocab_rtr_parse(v, &o->rtr);
}

/* RFC 6581 §9.1: 14-bit values, 0x3FFF for "no automatic negotiation". */
static int set_ird(struct cmopt *o, const char *v)
{
	o->has_ird = true;
	return parse_uint(v, IWCM_IRD_ORD_MAX, &o->ird);
}

static int set_ord(struct cmopt *o, const char *v)
{
	o->has_ord = true;
	return parse_uint(v, IWCM_IRD_ORD_MAX, &o->ord);
}

/* RFC 5044 §7.1: at most 512 octets of private data. */
static int set_private_data(struct cmopt *o, const char *v)
{
	size_t n = strlen(v), i;

	if (n >= 2 && v[0] == '0' && (v[1] == 'x' || v[1] == 'X')) {
		v += 2;
		n -= 2;
	}
	if (n % 2 || n / 2 > sizeof(o->private_data))
		return -1;
	for (i = 0; i < n / 2; i++) {
		int hi = hexval(v[2 * i]), lo = hexval(v[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -1;
		o->private_data[i] = (uint8_t)(hi << 4 | lo);
	}
	o->has_private_data = true;
	o->private_data_len = n / 2;
	return 0;
}

static int set_rev0(struct cmopt *o, const char *v)
{
	o->has_rev0 = true;
	if (!strcmp(v, "strict"))
		o->rev0_permissive = false;
	else if (!strcmp(v, "permissive"))
		o->rev0_permissive = true;
	else
		return -1;
	return 0;
}

static int set_rtr_frame(struct cmopt *o, const char *v)
{
	o->rtr_frame = true;
	return 0;
}

static int set_fallback(struct cmopt *o, const char *v)
{
	o->fallback = true;
	return 0;
}

static int set_timeout(struct cmopt *o, const char *v)
{
	o->has_timeout = true;
	if (parse_uint(v, CMOPT_TIMEOUT_MAX, &o->timeout_ms) < 0 ||
	    o->timeout_ms < CMOPT_TIMEOUT_MIN)
		return -1;
	return 0;
}

static int set_hold(struct cmopt *o, const char *v)
{
	o->has_hold = true;
	return parse_uint(v, IWCM_FIRST_FPDU_DELAY_MAX, &o->hold_ms);
}

static int set_count(struct cmopt *o, const char *v)
{
	o->has_count = true;
	if (parse_uint(v, CMOPT_COUNT_MAX, &o->count) < 0 || !o->count)
		return -1;
	return 0;
}

static int set_reject(struct cmopt *o, const char *v)
{
	o->reject = true;
	return 0;
}

static int set_service(struct cmopt *o, const char *v)
{
	o->service = v;
	return *v ? 0 : -1;
}

static int set_transport(struct cmopt *o, const char *v)
{
	if (!strcmp(v, "sctp"))
		o->sctp = true;
	else if (strcmp(v, "tcp"))
		return -1;
	return 0;
}

static int set_tcp_user_timeout(struct cmopt *o, const char *v)
{
	o->has_tcp_user_timeout = true;
	return parse_uint(v, IWCM_TCP_USER_TIMEOUT_MAX,
			  &o->tcp_user_timeout_ms);
}

static int set_daemon(struct cmopt *o, const char *v)
{
	o->daemon = true;
	return 0;
}

static const struct cmopt_def cmopt_defs[] = {
	{ "rev", "0|1|2", CMOPT_ALL, set_rev,
	  "MPA revision: 2 enhanced (RFC 6581), 1 (RFC 5044), 0 RDMA "
	  "Consortium (--daemon only); listen: the highest answered" },
	{ "markers", "on|off", CMOPT_ALL, set_markers,
	  "ask the peer for markers (M)" },
	{ "crc", "on|off", CMOPT_ALL, set_crc,
	  "set C (off: CRC only if the peer sets C)" },
	{ "p2p", NULL, CMOPT_INIT, set_p2p,
	  "peer-to-peer model (A) with an RTR exchange" },
	{ "rtr", "send,write,read", CMOPT_ALL, set_rtr,
	  "RTR types offered (connect) or accepted (listen)" },
	{ "ird", "N", CMOPT_ALL, set_ird,
	  "inbound RDMA Read queue depth (0x3FFF: the ULP's)" },
	{ "ord", "N", CMOPT_ALL, set_ord,
	  "outbound RDMA Read limit (0x3FFF: the ULP's)" },
	{ "private-data", "HEX", CMOPT_ALL, set_private_data,
	  "ULP private data of the Request, Reply or reject" },
	{ "rev0", "strict|permissive", CMOPT_ALL, set_rev0,
	  "refuse Rev 0 peers, or answer them with Rev 0" },
	{ "rtr-frame", NULL, CMOPT_ALL, set_rtr_frame,
	  "the legacy MPA ID RtR frame (both ends must use it)" },
	{ "fallback", NULL, CMOPT_INIT, set_fallback,
	  "retry unenhanced when the responder closes (RFC 6581 §10)" },
	{ "timeout", "MS", CMOPT_ALL, set_timeout,
	  "connect: Reply timeout and the wait for the outcome; "
	  "listen: the wait for every connection" },
	{ "first-fpdu-delay", "MS", CMOPT_INIT, set_hold,
	  "hold the first FPDU after the Reply (0 to 10000)" },
	{ "tcp-user-timeout", "MS", CMOPT_ALL, set_tcp_user_timeout,
	  "end the connection when the peer is unreachable this long "
	  "(TCP_USER_TIMEOUT, keepalive; 0: the kernel's)" },
	{ "count", "N", CMOPT_LISTEN, set_count,
	  "handle N connection requests, then exit (default 1)" },
	{ "reject", NULL, CMOPT_LISTEN, set_reject,
	  "reject each request (with --private-data)" },
	{ "service", "NAME", CMOPT_LISTEN, set_service,
	  "attach to the listener NAME of iwcmd.conf(5)" },
	{ "transport", "tcp|sctp", CMOPT_LISTEN | CMOPT_CONNECT, set_transport,
	  "MPA over TCP (default) or DDP over SCTP (RFC 5043)" },
	{ "daemon", NULL, CMOPT_CONNECT | CMOPT_DAEMON, set_daemon,
	  "let iwcmd negotiate by itself and show the frames (admin)" },
};

#define N_CMOPT_DEFS (sizeof(cmopt_defs) / sizeof(cmopt_defs[0]))

/* Print the options that mode takes, one per line, on fp. */
void cmopt_usage(FILE *fp, unsigned int mode)
{
	size_t i;

	for (i = 0; i < N_CMOPT_DEFS; i++) {
		const struct cmopt_def *d = &cmopt_defs[i];
		char head[48];

		if (!(d->modes & mode))
			continue;
		snprintf(head, sizeof(head), "--%s%s%s", d->name,
			 d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(fp, "  %-28s %s\n", head, d->help);
	}
	fprintf(fp, "  %-28s %s\n", "-j, --json", "JSON output");
}

static const struct cmopt_def *cmopt_find(const char *name)
{
	size_t i;

	for (i = 0; i < N_CMOPT_DEFS; i++)
		if (!strcmp(cmopt_defs[i].name, name))
			return &cmopt_defs[i];
	return NULL;
}

static const char *mode_name(unsigned int mode)
{
	return mode == CMOPT_LISTEN ? "listen" :
	       mode == CMOPT_DAEMON ? "connect --daemon" :
				      "connect";
}

/* Checks across options, by command. */
static int cmopt_check(const struct cmopt *o, unsigned int mode)
{
	const char *who = mode_name(mode);

	/* RFC 5043 §4: SCTP carries DDP without MPA */
	if (o->sctp && (o->has_markers || o->has_crc || o->has_rev0 ||
			o->rtr_frame || o->daemon || o->service)) {
		fprintf(stderr,
			"iwcmctl: %s: --transport sctp takes no MPA option "
			"(--markers, --crc, --rev0, --rtr-frame), --daemon or "
			"--service\n",
			who);
		return -1;
	}
	if (o->has_rev && o->rev == 0 && mode != CMOPT_DAEMON) {
		fprintf(stderr,
			"iwcmctl: %s: --rev 0 (an RDMA Consortium "
			"Request) needs connect --daemon\n",
			who);
		return -1;
	}
	/* RFC 6581 §9.1: the enhanced word takes 4 of the 512 octets. */
	if (mode != CMOPT_LISTEN &&
	    o->private_data_len > IWCM_PRIVATE_DATA_MAX_ENHANCED &&
	    !o->rtr_frame && (!o->has_rev || o->rev == 2)) {
		fprintf(stderr,
			"iwcmctl: %s: at most %d octets of private "
			"data with --rev 2\n",
			who, IWCM_PRIVATE_DATA_MAX_ENHANCED);
		return -1;
	}
	return 0;
}

/* Parse the arguments of listen, connect or connect --daemon. */
int cmopt_parse(struct cmopt *o, unsigned int mode, int argc, char **argv,
		const char **target)
{
	const char *who = mode_name(mode);
	int i;

	memset(o, 0, sizeof(*o));
	o->count = 1;
	*target = NULL;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		const struct cmopt_def *d;
		const char *v = NULL;

		if (!strcmp(a, "-j") || !strcmp(a, "--json")) {
			o->json = true;
			continue;
		}
		if (a[0] != '-' || !a[1]) {
			if (*target) {
				fprintf(stderr,
					"iwcmctl: %s: unexpected "
					"argument '%s'\n",
					who, a);
				return -1;
			}
			*target = a;
			continue;
		}
		d = strncmp(a, "--", 2) ? NULL : cmopt_find(a + 2);
		if (!d || !(d->modes & mode)) {
			fprintf(stderr, "iwcmctl: %s: unknown option '%s'\n",
				who, a);
			return -1;
		}
		if (d->arg) {
			if (i + 1 >= argc) {
				fprintf(stderr, "iwcmctl: %s: %s needs %s\n",
					who, a, d->arg);
				return -1;
			}
			v = argv[++i];
		}
		if (d->set(o, v) < 0) {
			fprintf(stderr,
				"iwcmctl: %s: bad value for %s: '%s' "
				"(want %s)\n",
				who, a, v ? v : "", d->arg);
			return -1;
		}
	}
	return cmopt_check(o, mode);
}

/* The libiwcm parameters of the given options. */
struct iwcm_conn_param *cmopt_param(const struct cmopt *o, bool responder)
{
	struct iwcm_conn_param *p = iwcm_conn_param_new();
	int rc = 0;

	if (!p)
		return NULL;
	if (o->has_rev)
		rc |= iwcm_conn_param_set_mpa_rev(p, o->rev);
	if (o->has_markers)
		rc |= iwcm_conn_param_set_markers(p, o->markers);
	if (o->has_crc)
		rc |= iwcm_conn_param_set_crc(p, o->crc ? IWCM_CRC_REQUEST :
							  IWCM_CRC_PREFER_OFF);
	if (o->has_rtr)
		rc |= iwcm_conn_param_set_rtr_types(p, o->rtr);
	if (o->has_ird)
		rc |= iwcm_conn_param_set_ird(p, o->ird);
	if (o->has_ord)
		rc |= iwcm_conn_param_set_ord(p, o->ord);
	if (o->has_rev0)
		rc |= iwcm_conn_param_set_rev0(p, o->rev0_permissive ?
							  IWCM_REV0_PERMISSIVE :
							  IWCM_REV0_STRICT);
	if (o->rtr_frame)
		rc |= iwcm_conn_param_set_rtr_frame(p, true);
	if (o->sctp)
		rc |= iwcm_conn_param_set_transport(p, IWCM_TRANSPORT_SCTP);
	if (o->has_tcp_user_timeout)
		rc |= iwcm_conn_param_set_tcp_user_timeout(
			p, o->tcp_user_timeout_ms);
	if (o->has_private_data && !o->reject)
		rc |= iwcm_conn_param_set_private_data(p, o->private_data,
						       o->private_data_len);
	if (!responder) {
		if (o->p2p)
			rc |= iwcm_conn_param_set_p2p(p, true);
		if (o->fallback)
			rc |= iwcm_conn_param_set_fallback(p, true);
		if (o->has_timeout)
			rc |= iwcm_conn_param_set_reply_timeout(p,
								o->timeout_ms);
		if (o->has_hold)
			rc |= iwcm_conn_param_set_first_fpdu_delay(p,
								   o->hold_ms);
	}
	if (rc) {
		int e = errno;

		iwcm_conn_param_free(p);
		errno = e;
		return NULL;
	}
	return p;
}

/* The ConnParams of a forced negotiation (connect --daemon). */
void cmopt_to_pb(const struct cmopt *o, Iwcm__ConnParams *p)
{
	if (o->has_rev) {
		p->has_mpa_rev = 1;
		p->mpa_rev = o->rev;
	}
	if (o->has_markers) {
		p->has_markers = 1;
		p->markers = o->markers;
	}
	if (o->has_crc) {
		p->has_crc = 1;
		p->crc = o->crc ? IWCM__CRC_POLICY__CRC_REQUEST :
				  IWCM__CRC_POLICY__CRC_PREFER_OFF;
	}
	if (o->p2p) {
		p->has_p2p = 1;
		p->p2p = 1;
	}
	if (o->has_rtr) {
		p->has_rtr_types = 1;
		p->rtr_types = o->rtr;
	}
	if (o->has_ird) {
		p->has_ird = 1;
		p->ird = o->ird;
	}
	if (o->has_ord) {
		p->has_ord = 1;
		p->ord = o->ord;
	}
	if (o->has_private_data) {
		p->has_private_data = 1;
		p->private_data.data = (uint8_t *)(uintptr_t)o->private_data;
		p->private_data.len = o->private_data_len;
	}
	if (o->has_rev0) {
		p->has_rev0 = 1;
		p->rev0 = o->rev0_permissive ?
				  IWCM__REV0_POLICY__REV0_PERMISSIVE :
				  IWCM__REV0_POLICY__REV0_STRICT;
	}
	if (o->rtr_frame) {
		p->has_rtr_frame = 1;
		p->rtr_frame = 1;
	}
	if (o->fallback) {
		p->has_enhanced_fallback = 1;
		p->enhanced_fallback = 1;
	}
	if (o->has_timeout) {
		p->has_reply_timeout_ms = 1;
		p->reply_timeout_ms = o->timeout_ms;
	}
	if (o->has_hold) {
		p->has_first_fpdu_delay_ms = 1;
		p->first_fpdu_delay_ms = o->hold_ms;
	}
	if (o->has_tcp_user_timeout) {
		p->has_tcp_user_timeout_ms = 1;
		p->tcp_user_timeout_ms = o->tcp_user_timeout_ms;
	}
}

static int parse_port(const char *s, uint16_t *port)
{
	unsigned long n;
	char *end;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	n = strtoul(s, &end, 10);
	if (errno || *end || n > 65535)
		return -1;
	*port = (uint16_t)n;
	return 0;
}

/*
 * HOST:PORT, [HOST]:PORT, or PORT alone when host_opt (any IPv4
 * address); port 0 only when port0.  Resolved to one address.
 */
int cmopt_parse_addr(const char *arg, bool host_opt, bool port0,
		     struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res = NULL;
	const char *colon = strrchr(arg, ':'), *h = arg;
	char host[256];
	uint16_t port;
	size_t hl;
	int rc;

	memset(ss, 0, sizeof(*ss));
	if (!colon && host_opt) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;

		if (parse_port(arg, &port) < 0 || (!port && !port0))
			return -1;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = htonl(INADDR_ANY);
		sin->sin_port = htons(port);
		return 0;
	}
	if (!colon || parse_port(colon + 1, &port) < 0 || (!port && !port0))
		return -1;
	hl = (size_t)(colon - arg);
	if (hl >= 2 && arg[0] == '[' && arg[hl - 1] == ']') {
		h = arg + 1;
		hl -= 2;
	}
	if (!hl || hl >= sizeof(host))
		return -1;
	memcpy(host, h, hl);
	host[hl] = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	rc = getaddrinfo(host, NULL, &hints, &res);
	if (rc) {
		fprintf(stderr, "iwcmctl: %s: %s\n", host, gai_strerror(rc));
		return -1;
	}
	if (res->ai_addrlen > sizeof(*ss)) {
		freeaddrinfo(res);
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET6)
		((struct sockaddr_in6 *)ss)->sin6_port = htons(port);
	else
		((struct sockaddr_in *)ss)->sin_port = htons(port);
	return 0;
}
