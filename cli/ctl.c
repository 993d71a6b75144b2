/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl's admin commands: each sends one ctl.proto request on iwcmd's
 * admin socket and prints the replies up to END or RESULT, as text or,
 * with -j, as one JSON document.  The socket is -s PATH, else
 * $IWCM_SOCKET, else /run/iwcm/iwcmd.sock, each naming the client
 * socket; the admin socket is beside it (ipc_admin_path()).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "iwcmctl.h"
#include "cmopt.h"
#include "ctl.h"
#include "ctl_output.h"
#include "ipc.h"
#include "pbaddr.h"
#include "iwcm.pb-c.h"
#include "ctl.pb-c.h"
#include "mpa.h"
#include "vocab.h"

#define CTL_DEFAULT_SOCKET "/run/iwcm/iwcmd.sock"
#define CTL_TIMEOUT_MS 10000
#define CTL_CONNECT_TIMEOUT_MS 120000 /* a forced negotiation may wait */

const char *ctl_socket;
bool ctl_json;

static struct ipc_msg ctl_msg;
static uint32_t ctl_reqid;

/* The output of -j or text (ctl_output.h). */
static const struct ctl_output *ctl_out(void)
{
	return ctl_json ? &ctl_output_json : &ctl_output_text;
}

/* The same for probe.c (ctl.h). */
const struct ctl_output *ctl_output(void)
{
	return ctl_out();
}

/* ---- talking to iwcmd ---- */

static int ctl_connect(void)
{
	static struct ipc_msg *m = &ctl_msg;
	Iwcm__Hello h = IWCM__HELLO__INIT;
	Iwcm__Version *v;
	struct sockaddr_un sun;
	const char *path = ctl_socket;
	char admin[sizeof(sun.sun_path)];
	struct pollfd p;
	int fd;

	if (!path)
		path = getenv("IWCM_SOCKET");
	if (!path || !*path)
		path = CTL_DEFAULT_SOCKET;
	if (ipc_admin_path(path, admin, sizeof(admin)) < 0) {
		fprintf(stderr, "iwcmctl: socket path too long: %s\n", path);
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		perror("iwcmctl: socket");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, admin, strlen(admin) + 1);
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
		fprintf(stderr, "iwcmctl: %s: %s (is iwcmd running?)\n", admin,
			strerror(errno));
		close(fd);
		return -1;
	}
	h.version = IPC_PROTO_VERSION;
	h.client_name = (char *)"iwcmctl";
	p.fd = fd;
	p.events = POLLIN;
	if (ipc_send(fd, IPC_HELLO, 0, &h.base, -1) < 0 ||
	    poll(&p, 1, CTL_TIMEOUT_MS) != 1 || ipc_recv(fd, m, false) != 1 ||
	    m->hdr.type != IPC_VERSION) {
		fprintf(stderr, "iwcmctl: %s: no answer to HELLO\n", admin);
		close(fd);
		return -1;
	}
	v = (Iwcm__Version *)ipc_unpack(m, &iwcm__version__descriptor);
	if (!v || v->result != IWCM__RESULT__RES_OK) {
		fprintf(stderr,
			"iwcmctl: iwcmd speaks IPC version %u, not %u\n",
			v ? v->version : 0, IPC_PROTO_VERSION);
		if (v)
			protobuf_c_message_free_unpacked(&v->base, NULL);
		close(fd);
		return -1;
	}
	protobuf_c_message_free_unpacked(&v->base, NULL);
	return fd;
}

static int ctl_send(int fd, uint16_t type, const ProtobufCMessage *body)
{
	if (ipc_send(fd, type, ++ctl_reqid, body, -1) < 0) {
		fprintf(stderr, "iwcmctl: send: %s\n", strerror(errno));
		return -1;
	}
	return 0;
}

/* The next reply to the current request; 0 or -1 (reported). */
static int ctl_next(int fd, int timeout_ms)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int n;

	for (;;) {
		n = poll(&p, 1, timeout_ms);
		if (n == 0) {
			fprintf(stderr, "iwcmctl: no reply from iwcmd\n");
			return -1;
		}
		if (n < 0 && errno == EINTR)
			continue;
		n = n < 0 ? -1 : ipc_recv(fd, &ctl_msg, false);
		if (n == 1 && ctl_msg.hdr.reqid != ctl_reqid)
			continue; /* not ours */
		if (n == 1)
			return 0;
		fprintf(stderr, "iwcmctl: %s\n",
			n == 0 ? "iwcmd closed the connection" :
				 strerror(errno));
		return -1;
	}
}

/* A RESULT: print errors; returns the exit status. */
static int ctl_result(const char *what)
{
	Iwcm__Ctl__Result *r;
	int rc;

	r = (Iwcm__Ctl__Result *)ipc_unpack(&ctl_msg,
					    &iwcm__ctl__result__descriptor);
	if (!r) {
		fprintf(stderr, "iwcmctl: malformed RESULT\n");
		return 2;
	}
	rc = r->result == IWCM__RESULT__RES_OK ? 0 : 1;
	ctl_out()->result(what, r);
	protobuf_c_message_free_unpacked(&r->base, NULL);
	return rc;
}

static ProtobufCMessage *ctl_unpack(const ProtobufCMessageDescriptor *d)
{
	ProtobufCMessage *m = ipc_unpack(&ctl_msg, d);

	if (!m)
		fprintf(stderr, "iwcmctl: malformed %s\n",
			ipc_type_name(ctl_msg.hdr.type));
	return m;
}

/* Strip -j (anywhere) from a command's arguments. */
static int ctl_args(int argc, char **argv)
{
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json"))
			ctl_json = true;
		else
			argv[n++] = argv[i];
	}
	argv[n] = NULL;
	return n;
}

static bool ctl_help(int argc, char **argv, const char *usage)
{
	if (argc > 1 &&
	    (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		printf("usage: iwcmctl [-s SOCKET] [-j] %s\n", usage);
		return true;
	}
	return false;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* ---- status ---- */

/* Commands whose reply is data messages then END. */
struct ctl_list {
	const char *usage;
	uint16_t req, item;
	const ProtobufCMessageDescriptor *desc;
	void (*begin)(void);
	void (*item_fn)(const ProtobufCMessage *, unsigned int n);
	void (*end)(unsigned int n);
};

static int ctl_list_run(const struct ctl_list *l, int argc, char **argv)
{
	Iwcm__Ctl__Empty e = IWCM__CTL__EMPTY__INIT;
	unsigned int n = 0;
	int fd, rc = 0;

	argc = ctl_args(argc, argv);
	if (ctl_help(argc, argv, l->usage))
		return 0;
	if (argc != 1) {
		fprintf(stderr, "usage: iwcmctl [-s SOCKET] [-j] %s\n",
			l->usage);
		return 2;
	}
	fd = ctl_connect();
	if (fd < 0 || ctl_send(fd, l->req, &e.base) < 0)
		return 2;
	if (l->begin)
		l->begin();
	for (;;) {
		ProtobufCMessage *m;

		if (ctl_next(fd, CTL_TIMEOUT_MS) < 0) {
			rc = 2;
			break;
		}
		if (ctl_msg.hdr.type == IPC_END)
			break;
		if (ctl_msg.hdr.type == IPC_RESULT) {
			rc = ctl_result(argv[0]);
			break;
		}
		if (ctl_msg.hdr.type != l->item || !(m = ctl_unpack(l->desc))) {
			rc = 2;
			break;
		}
		l->item_fn(m, n++);
		protobuf_c_message_free_unpacked(m, NULL);
	}
	if (l->end && rc == 0)
		l->end(n);
	close(fd);
	return rc;
}

static void status_item(const ProtobufCMessage *m, unsigned int n)
{
	ctl_out()->status((const Iwcm__Ctl__Status *)m);
}

/* iwcmctl status */
int cmd_status(int argc, char **argv)
{
	static const struct ctl_list l = {
		"status",
		IPC_CTL_STATUS,
		IPC_CTL_STATUS_REPLY,
		&iwcm__ctl__status__descriptor,
		NULL,
		status_item,
		NULL,
	};

	return ctl_list_run(&l, argc, argv);
}

/* ---- listeners ---- */

static void listeners_begin(void)
{
	ctl_out()->listeners_begin();
}

static void listener_item(const ProtobufCMessage *m, unsigned int n)
{
	ctl_out()->listener((const Iwcm__Ctl__ListenerInfo *)m, n);
}

static void list_end(unsigned int n)
{
	ctl_out()->list_end(n);
}

/* iwcmctl listeners */
int cmd_listeners(int argc, char **argv)
{
	static const struct ctl_list l = {
		"listeners",
		IPC_CTL_LISTENERS,
		IPC_CTL_LISTENER_INFO,
		&iwcm__ctl__listener_info__descriptor,
		listeners_begin,
		listener_item,
		list_end,
	};

	return ctl_list_run(&l, argc, argv);
}

/* ---- connections ---- */

static void conns_begin(void)
{
	ctl_out()->conns_begin();
}

static void conn_item(const ProtobufCMessage *m, unsigned int n)
{
	ctl_out()->conn((const Iwcm__Ctl__ConnInfo *)m, n);
}

/* iwcmctl conns */
int cmd_conns(int argc, char **argv)
{
	static const struct ctl_list l = {
		"conns",	   IPC_CTL_CONNS,
		IPC_CTL_CONN_INFO, &iwcm__ctl__conn_info__descriptor,
		conns_begin,	   conn_item,
		list_end,
	};

	return ctl_list_run(&l, argc, argv);
}

/* iwcmctl show ID */
int cmd_show(int argc, char **argv)
{
	Iwcm__Ctl__Show s = IWCM__CTL__SHOW__INIT;
	Iwcm__Ctl__ConnInfo *ci = NULL;
	int fd, rc;

	argc = ctl_args(argc, argv);
	if (ctl_help(argc, argv, "show ID"))
		return 0;
	if (argc != 2 || parse_u64(argv[1], &s.conn_id) < 0) {
		fprintf(stderr, "usage: iwcmctl [-s SOCKET] [-j] show ID\n");
		return 2;
	}
	fd = ctl_connect();
	if (fd < 0 || ctl_send(fd, IPC_CTL_SHOW, &s.base) < 0)
		return 2;
	for (;;) {
		if (ctl_next(fd, CTL_TIMEOUT_MS) < 0) {
			rc = 2;
			break;
		}
		if (ctl_msg.hdr.type == IPC_CTL_CONN_INFO && !ci) {
			ci = (Iwcm__Ctl__ConnInfo *)ctl_unpack(
				&iwcm__ctl__conn_info__descriptor);
			if (!ci) {
				rc = 2;
				break;
			}
			continue;
		}
		if (ctl_msg.hdr.type != IPC_RESULT) {
			rc = 2;
			break;
		}
		if (ci) {
			/* the conn itself is the answer */
			Iwcm__Ctl__Result *r = (Iwcm__Ctl__Result *)ipc_unpack(
				&ctl_msg, &iwcm__ctl__result__descriptor);

			rc = r && r->result == IWCM__RESULT__RES_OK ? 0 : 1;
			if (r)
				protobuf_c_message_free_unpacked(&r->base,
								 NULL);
			ctl_out()->show(ci);
		} else {
			char what[48];

			snprintf(what, sizeof(what), "conn %" PRIu64,
				 s.conn_id);
			rc = ctl_result(what);
		}
		break;
	}
	if (ci)
		protobuf_c_message_free_unpacked(&ci->base, NULL);
	close(fd);
	return rc;
}

/* ---- stats ---- */

static bool stats_openmetrics;
static FILE *stats_out;

static void stats_item(const ProtobufCMessage *m, unsigned int n)
{
	(void)n;
	if (stats_openmetrics)
		ctl_openmetrics(stats_out, (const Iwcm__Ctl__Stats *)m);
	else
		ctl_out()->stats((const Iwcm__Ctl__Stats *)m);
}

/*
 * --http: answer one HTTP request on stdin/stdout (a socket unit with
 * Accept=yes, iwcm-metrics.socket): read the request up to its empty
 * line (bounded in size and time, the content is not looked at), then
 * the metrics with their Content-Type, or 503 when iwcmd does not answer.
 */
#define STATS_HTTP_MAX 8192
#define STATS_HTTP_MS 5000

static int stats_http_request(void)
{
	char buf[STATS_HTTP_MAX + 1];
	size_t have = 0;
	long long waited = 0;

	while (have < STATS_HTTP_MAX) {
		struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
		ssize_t n;

		if (waited >= STATS_HTTP_MS || poll(&p, 1, 100) < 0)
			return -1;
		if (!(p.revents & (POLLIN | POLLHUP))) {
			waited += 100;
			continue;
		}
		n = read(STDIN_FILENO, buf + have, STATS_HTTP_MAX - have);
		if (n <= 0)
			return have ? 0 : -1;
		have += (size_t)n;
		buf[have] = '\0';
		if (strstr(buf, "\r\n\r\n") || strstr(buf, "\n\n"))
			return 0;
	}
	return -1;
}

static int stats_http(const struct ctl_list *l, int argc, char **argv,
		      int (*run)(const struct ctl_list *, int, char **))
{
	char *body = NULL;
	size_t len = 0;
	int rc;

	if (stats_http_request() < 0) {
		printf("HTTP/1.0 400 Bad Request\r\n"
		       "Content-Type: text/plain; charset=utf-8\r\n\r\n"
		       "no HTTP request within %d ms and %d octets\n",
		       STATS_HTTP_MS, STATS_HTTP_MAX);
		return 2;
	}
	stats_out = open_memstream(&body, &len);
	if (!stats_out) {
		perror("iwcmctl: open_memstream");
		return 2;
	}
	rc = run(l, argc, argv);
	fclose(stats_out);
	if (rc == 0)
		printf("HTTP/1.0 200 OK\r\nContent-Type: "
		       "application/openmetrics-text; version=1.0.0; "
		       "charset=utf-8\r\nContent-Length: %zu\r\n\r\n",
		       len);
	else
		printf("HTTP/1.0 503 Service Unavailable\r\nContent-Type: "
		       "text/plain; charset=utf-8\r\n\r\niwcmd did not "
		       "answer (see the journal)\n");
	if (rc == 0)
		fwrite(body, 1, len, stdout);
	free(body);
	return rc;
}

/* iwcmctl stats [-o text|json|openmetrics [--http]] */
int cmd_stats(int argc, char **argv)
{
	static const struct ctl_list l = {
		"stats [-o text|json|openmetrics [--http]]",
		IPC_CTL_STATS,
		IPC_CTL_STATS_REPLY,
		&iwcm__ctl__stats__descriptor,
		NULL,
		stats_item,
		NULL,
	};
	const char *fmt = NULL;
	bool http = false;
	int i, n = 0;

	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output")) {
			if (fmt || i + 1 == argc) {
				fprintf(stderr,
					"usage: iwcmctl [-s SOCKET] [-j] %s\n",
					l.usage);
				return 2;
			}
			fmt = argv[++i];
		} else if (!strcmp(argv[i], "--http")) {
			http = true;
		} else if (!strcmp(argv[i], "-j") ||
			   !strcmp(argv[i], "--json")) {
			ctl_json = true;
		} else {
			argv[n++] = argv[i];
		}
	}
	argv[n] = NULL;
	if (fmt && !strcmp(fmt, "openmetrics")) {
		stats_openmetrics = true;
	} else if (fmt && !strcmp(fmt, "json")) {
		ctl_json = true;
	} else if (fmt && strcmp(fmt, "text")) {
		fprintf(stderr,
			"iwcmctl: stats -o %s: text, json or openmetrics\n",
			fmt);
		return 2;
	}
	if (stats_openmetrics && ctl_json) {
		fprintf(stderr, "iwcmctl: stats: -j and -o openmetrics "
				"exclude each other\n");
		return 2;
	}
	if (http && !stats_openmetrics) {
		fprintf(stderr,
			"iwcmctl: stats: --http needs -o openmetrics\n");
		return 2;
	}
	stats_out = stdout;
	if (http)
		return stats_http(&l, n, argv, ctl_list_run);
	return ctl_list_run(&l, n, argv);
}

/* ---- requests answered by RESULT only ---- */

static int ctl_simple(const char *what, uint16_t type,
		      const ProtobufCMessage *body)
{
	int fd, rc;

	fd = ctl_connect();
	if (fd < 0 || ctl_send(fd, type, body) < 0)
		return 2;
	rc = 2;
	if (ctl_next(fd, CTL_TIMEOUT_MS) == 0) {
		if (ctl_msg.hdr.type == IPC_RESULT)
			rc = ctl_result(what);
		else
			fprintf(stderr, "iwcmctl: unexpected %s\n",
				ipc_type_name(ctl_msg.hdr.type));
	}
	close(fd);
	return rc;
}

/* iwcmctl log verbose|brief */
int cmd_log(int argc, char **argv)
{
	Iwcm__Ctl__LogLevel l = IWCM__CTL__LOG_LEVEL__INIT;

	argc = ctl_args(argc, argv);
	if (ctl_help(argc, argv, "log verbose|brief"))
		return 0;
	if (argc != 2 ||
	    (strcmp(argv[1], "verbose") && strcmp(argv[1], "brief"))) {
		fprintf(stderr,
			"usage: iwcmctl [-s SOCKET] [-j] log verbose|brief\n");
		return 2;
	}
	l.verbose = !strcmp(argv[1], "verbose");
	return ctl_simple("log", IPC_CTL_LOG, &l.base);
}

/* iwcmctl kill ID */
int cmd_kill(int argc, char **argv)
{
	Iwcm__Ctl__Kill k = IWCM__CTL__KILL__INIT;
	char what[48];

	argc = ctl_args(argc, argv);
	if (ctl_help(argc, argv, "kill ID"))
		return 0;
	if (argc != 2 || parse_u64(argv[1], &k.conn_id) < 0) {
		fprintf(stderr, "usage: iwcmctl [-s SOCKET] [-j] kill ID\n");
		return 2;
	}
	snprintf(what, sizeof(what), "conn %" PRIu64, k.conn_id);
	return ctl_simple(what, IPC_CTL_KILL, &k.base);
}

/* ---- parameters of listener set ---- */

static int parse_onoff(const char *v, protobuf_c_boolean *out)
{
	bool b;

	if (vocab_onoff_parse(v, &b) < 0)
		return -1;
	*out = b;
	return 0;
}

static int parse_irdord(const char *v, uint32_t *out)
{
	uint64_t n;

	if (parse_u64(v, &n) < 0 || n > MPA_IRD_ORD_NONE)
		return -1;
	*out = (uint32_t)n;
	return 0;
}

/*
 * One KEY=VALUE setting of listener set into p.  Returns 0, or -1 for an
 * unknown key or a bad value.
 */
static int param_set(Iwcm__ConnParams *p, const char *key, const char *v)
{
	protobuf_c_boolean b;

	if (!strcmp(key, "rev")) {
		uint64_t r;

		if (parse_u64(v, &r) < 0 || r > 2)
			return -1;
		p->has_mpa_rev = 1;
		p->mpa_rev = (uint32_t)r;
	} else if (!strcmp(key, "markers")) {
		if (parse_onoff(v, &b) < 0)
			return -1;
		p->has_markers = 1;
		p->markers = b;
	} else if (!strcmp(key, "crc")) {
		if (parse_onoff(v, &b) < 0)
			return -1;
		p->has_crc = 1;
		p->crc = b ? IWCM__CRC_POLICY__CRC_REQUEST :
			     IWCM__CRC_POLICY__CRC_PREFER_OFF;
	} else if (!strcmp(key, "rtr")) {
		unsigned int rtr;

		if (vocab_rtr_parse(v, &rtr) < 0)
			return -1;
		p->rtr_types = rtr;
		p->has_rtr_types = 1;
	} else if (!strcmp(key, "ird")) {
		if (parse_irdord(v, &p->ird) < 0)
			return -1;
		p->has_ird = 1;
	} else if (!strcmp(key, "ord")) {
		if (parse_irdord(v, &p->ord) < 0)
			return -1;
		p->has_ord = 1;
	} else if (!strcmp(key, "rev0")) {
		if (!strcmp(v, "strict"))
			p->rev0 = IWCM__REV0_POLICY__REV0_STRICT;
		else if (!strcmp(v, "permissive"))
			p->rev0 = IWCM__REV0_POLICY__REV0_PERMISSIVE;
		else
			return -1;
		p->has_rev0 = 1;
	} else if (!strcmp(key, "rtr-frame") || !strcmp(key, "rtr_frame")) {
		if (parse_onoff(v, &b) < 0)
			return -1;
		p->has_rtr_frame = 1;
		p->rtr_frame = b;
	} else {
		return -1;
	}
	return 0;
}

/* iwcmctl listener set PORT KEY=VALUE... */
int cmd_listener(int argc, char **argv)
{
	static const char usage[] =
		"listener set PORT KEY=VALUE...\n"
		"  keys: rev=1|2 markers=on|off crc=on|off rtr=send,write,read\n"
		"        ird=N ord=N rev0=strict|permissive rtr-frame=on|off";
	Iwcm__Ctl__ListenerSet s = IWCM__CTL__LISTENER_SET__INIT;
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	uint64_t port;
	char what[32];
	int i;

	argc = ctl_args(argc, argv);
	if (ctl_help(argc, argv, usage))
		return 0;
	if (argc < 4 || strcmp(argv[1], "set") ||
	    parse_u64(argv[2], &port) < 0 || port == 0 || port > 65535) {
		fprintf(stderr, "usage: iwcmctl [-s SOCKET] [-j] %s\n", usage);
		return 2;
	}
	for (i = 3; i < argc; i++) {
		char key[32], *eq = strchr(argv[i], '=');

		if (!eq || (size_t)(eq - argv[i]) >= sizeof(key)) {
			fprintf(stderr, "iwcmctl: expected KEY=VALUE: %s\n",
				argv[i]);
			return 2;
		}
		memcpy(key, argv[i], (size_t)(eq - argv[i]));
		key[eq - argv[i]] = '\0';
		if (param_set(&p, key, eq + 1) < 0) {
			fprintf(stderr, "iwcmctl: bad setting: %s\n", argv[i]);
			return 2;
		}
	}
	s.port = (uint32_t)port;
	s.params = &p;
	snprintf(what, sizeof(what), "port %u", s.port);
	return ctl_simple(what, IPC_CTL_LISTENER_SET, &s.base);
}

/* ---- connect ---- */

/* HOST:PORT or [HOST]:PORT, resolved to one address. */
static int parse_dst(const char *arg, Iwcm__SockAddr *dst, uint8_t *buf)
{
	struct sockaddr_storage ss;

	if (cmopt_parse_addr(arg, false, false, &ss) < 0)
		return -1;
	pb_sockaddr_from(&ss, dst, buf);
	return 0;
}

/*
 * One forced negotiation on the admin connection fd: each report to
 * report(), then the RESULT's code and message (copied into msg).
 * 0 with the result in *res, or -1 (reported) when iwcmd did not answer.
 */
int ctl_force(int fd, const Iwcm__SockAddr *dst, const Iwcm__ConnParams *p,
	      int wait_ms,
	      void (*report)(const Iwcm__Ctl__NegotiationReport *r,
			     unsigned int n, void *arg),
	      void *arg, Iwcm__Result *res, char *msg, size_t msglen)
{
	Iwcm__Ctl__ForceConnect f = IWCM__CTL__FORCE_CONNECT__INIT;
	unsigned int n = 0;

	f.dst = (Iwcm__SockAddr *)(uintptr_t)dst;
	f.params = (Iwcm__ConnParams *)(uintptr_t)p;
	if (ctl_send(fd, IPC_CTL_CONNECT, &f.base) < 0)
		return -1;
	for (;;) {
		Iwcm__Ctl__NegotiationReport *r;

		if (ctl_next(fd, wait_ms) < 0)
			return -1;
		if (ctl_msg.hdr.type == IPC_RESULT) {
			Iwcm__Ctl__Result *rr = (Iwcm__Ctl__Result *)ctl_unpack(
				&iwcm__ctl__result__descriptor);

			if (!rr)
				return -1;
			*res = rr->result;
			snprintf(msg, msglen, "%s",
				 rr->message ? rr->message : "");
			protobuf_c_message_free_unpacked(&rr->base, NULL);
			return 0;
		}
		if (ctl_msg.hdr.type != IPC_CTL_NEGOTIATION) {
			fprintf(stderr, "iwcmctl: unexpected %s\n",
				ipc_type_name(ctl_msg.hdr.type));
			return -1;
		}
		r = (Iwcm__Ctl__NegotiationReport *)ctl_unpack(
			&iwcm__ctl__negotiation_report__descriptor);
		if (!r)
			return -1;
		report(r, n++, arg);
		protobuf_c_message_free_unpacked(&r->base, NULL);
	}
}

/* The admin connection for ctl_force() (-1: reported). */
int ctl_admin_open(void)
{
	return ctl_connect();
}

static void ctl_force_report(const Iwcm__Ctl__NegotiationReport *r,
			     unsigned int n, void *arg)
{
	(void)arg;
	ctl_out()->report(r, n);
}

/* iwcmctl connect HOST:PORT --daemon [options] (options from cmopt.c) */
int ctl_force_connect(const char *target, const struct cmopt *o)
{
	Iwcm__ConnParams p = IWCM__CONN_PARAMS__INIT;
	Iwcm__SockAddr dst = IWCM__SOCK_ADDR__INIT;
	Iwcm__Ctl__Result r = IWCM__CTL__RESULT__INIT;
	uint8_t abuf[16];
	char msg[256];
	int fd, rc = 2, wait_ms = CTL_CONNECT_TIMEOUT_MS;

	ctl_json |= o->json;
	if (parse_dst(target, &dst, abuf) < 0) {
		fprintf(stderr, "iwcmctl: connect: bad destination '%s'\n",
			target);
		return 2;
	}
	cmopt_to_pb(o, &p);
	if (o->has_timeout)
		wait_ms = (int)o->timeout_ms + CTL_TIMEOUT_MS;
	fd = ctl_connect();
	if (fd < 0)
		return 2;
	ctl_out()->reports_begin();
	if (ctl_force(fd, &dst, &p, wait_ms, ctl_force_report, NULL, &r.result,
		      msg, sizeof(msg)) == 0) {
		r.message = msg[0] ? msg : NULL;
		rc = r.result == IWCM__RESULT__RES_OK ? 0 : 1;
		ctl_out()->reports_end(target, &r);
	} else {
		ctl_out()->reports_end(target, NULL);
	}
	close(fd);
	return rc;
}
