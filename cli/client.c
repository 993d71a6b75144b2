/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl listen and iwcmctl connect: negotiate through iwcmd as any
 * client does, with libiwcm (iwcm_listen, iwcm_accept or iwcm_reject;
 * iwcm_connect), and print what the peer sent and what was negotiated,
 * as text or, with -j, one JSON object per line named after the fields
 * of struct iwcm_conn_attr (iwcm_conn_query(3), iwcmctl(8)).  connect --daemon is the
 * forced negotiation of the admin socket (ctl.c).
 */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include "cmopt.h"
#include "ctl_output.h"
#include "iwcmctl.h"
#include "json.h"
#include "vocab.h"

/* Longest wait for an outcome when --timeout is not given. */
#define CLI_CONNECT_WAIT_MS 120000
/* What the daemon may take beyond --timeout to report the outcome. */
#define CLI_WAIT_MARGIN_MS 2000

/* What print_conn() shows besides the connection's identity. */
#define SHOW_PEER 1u   /* the peer's MPA frame */
#define SHOW_STATE 2u  /* the negotiated (handoff) state */
#define SHOW_REASON 4u /* why it failed */

/* ---- addresses ---- */

static const char *addr_str(const struct sockaddr *sa, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN] = "?";

	if (sa && sa->sa_family == AF_INET6) {
		const struct sockaddr_in6 *s6 = (const void *)sa;

		inet_ntop(AF_INET6, &s6->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(s6->sin6_port));
	} else if (sa && sa->sa_family == AF_INET) {
		const struct sockaddr_in *s4 = (const void *)sa;

		inet_ntop(AF_INET, &s4->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(s4->sin_port));
	} else {
		snprintf(buf, len, "-");
	}
	return buf;
}

/* ---- output ---- */

/* The -j line being written: every JSON field goes through json.h. */
static struct json cli_w;

static void hex(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		printf("%02x", p[i]);
}

static void jnum(const char *key, long long v)
{
	json_int(&cli_w, key, v);
}

static void jbool(const char *key, int v)
{
	json_bool(&cli_w, key, v);
}

static void jstr(const char *key, const char *v)
{
	json_str(&cli_w, key, v);
}

static void jhex(const char *key, const uint8_t *p, size_t n)
{
	json_bytes(&cli_w, key, p, n);
}

/* Start and end one JSON line. */
static void jbegin(void)
{
	json_init(&cli_w, stdout);
	cli_w.utf8 = true; /* libiwcm's and the peer's text */
	json_open(&cli_w, NULL, '{');
}

static void jend(void)
{
	json_close(&cli_w, '}');
	putchar('\n');
}

/* "EREJECTED" for IWCM_STATUS_REJECTED: the names of iwcmctl's admin
 * results (the status values are those of iwcm.proto's Result). */
static const char *status_name(int status)
{
	return ctl_result_name((Iwcm__Result)status);
}

static const char *onoff(int v)
{
	return vocab_onoff(v);
}

/* What libiwcm knows of c; groups not known are zero and left out of
 * comp_mask (iwcm_conn_query(3)). */
static struct iwcm_conn_attr conn_attr(const struct iwcm_conn *c)
{
	struct iwcm_conn_attr a = { .comp_mask = IWCM_CONN_ATTR_ALL };

	if (iwcm_conn_query(c, &a) < 0)
		a.comp_mask = 0;
	return a;
}

/* The peer's MPA frame (RFC 5044 §7.1, RFC 6581 §8), as text. */
static void peer_text(const struct iwcm_conn *c)
{
	const uint8_t *pd;
	size_t len = 0;
	char rtr[24];
	const struct iwcm_conn_attr a = conn_attr(c);
	int flags = a.comp_mask & IWCM_CONN_ATTR_PEER ? a.peer_flags : -1;
	int rtrs = (int)a.peer_rtr_types;

	if (flags < 0)
		return;
	printf("  peer frame: rev %d, flags 0x%02x (M=%d C=%d R=%d S=%d)",
	       (int)a.peer_mpa_rev, flags, !!(flags & IWCM_MPA_FLAG_M),
	       !!(flags & IWCM_MPA_FLAG_C), !!(flags & IWCM_MPA_FLAG_R),
	       !!(flags & IWCM_MPA_FLAG_S));
	if (a.peer_enhanced)
		printf(", A=%d B=%d C=%d D=%d (%s, rtr %s), ird %d, ord %d",
		       a.peer_p2p, !!(rtrs & IWCM_RTR_SEND),
		       !!(rtrs & IWCM_RTR_WRITE), !!(rtrs & IWCM_RTR_READ),
		       a.peer_p2p ? "peer-to-peer" : "client-server",
		       cmopt_rtr_str((unsigned int)(rtrs < 0 ? 0 : rtrs), rtr,
				     sizeof(rtr)),
		       (int)a.peer_ird, (int)a.peer_ord);
	else
		printf(", not enhanced");
	pd = a.peer_private_data;
	len = a.peer_private_data_len;
	printf(", private data ");
	if (pd && len)
		hex(pd, len);
	else
		printf("none");
	printf("\n");
}

static void peer_json(const struct iwcm_conn *c)
{
	const uint8_t *pd;
	size_t len = 0;
	char rtr[24];
	const struct iwcm_conn_attr a = conn_attr(c);
	int flags = a.comp_mask & IWCM_CONN_ATTR_PEER ? a.peer_flags : -1;
	int rtrs = (int)a.peer_rtr_types;
	bool enh = a.peer_enhanced;

	if (flags < 0)
		return;
	jnum("peer_mpa_rev", a.peer_mpa_rev);
	jnum("peer_flags", flags);
	jbool("peer_markers", flags & IWCM_MPA_FLAG_M);
	jbool("peer_crc", flags & IWCM_MPA_FLAG_C);
	jbool("peer_reject", flags & IWCM_MPA_FLAG_R);
	jbool("peer_enhanced", enh);
	if (enh) {
		jbool("peer_p2p", a.peer_p2p);
		jstr("peer_rtr_types",
		     cmopt_rtr_str((unsigned int)(rtrs < 0 ? 0 : rtrs), rtr,
				   sizeof(rtr)));
		jnum("peer_ird", a.peer_ird);
		jnum("peer_ord", a.peer_ord);
	}
	pd = a.peer_private_data;
	len = a.peer_private_data_len;
	jhex("peer_private_data", pd, pd ? len : 0);
}

/* The negotiated state handed over with the socket, as text. */
static void state_text(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = conn_attr(c);
	uint64_t tx = 0, rx = 0;
	size_t unread = 0;
	char rtr[24];
	int i, n;

	printf("  negotiated: %s, MPA rev %d, %s, DDP/RDMAP %d/%d, "
	       "markers tx %s rx %s, CRC %s, %s, RTR %s%s, ird %d, ord %d\n",
	       a.transport == IWCM_TRANSPORT_SCTP ? "sctp" : "tcp",
	       (int)a.mpa_rev, a.enhanced ? "enhanced" : "not enhanced",
	       a.ddp_version, a.rdmap_version, onoff(a.markers_tx),
	       onoff(a.markers_rx), onoff(a.crc),
	       a.p2p ? "peer-to-peer" : "client-server",
	       cmopt_rtr_str((unsigned int)a.rtr_type, rtr, sizeof(rtr)),
	       a.rtr_frame ? " (RtR frame)" : "", (int)a.ird, (int)a.ord);
	tx = a.tx_offset;
	rx = a.rx_offset;
	unread = a.unread_len;
	printf("  handoff: tx offset %" PRIu64 ", rx offset %" PRIu64
	       ", unread %zu, wait for first FPDU %s",
	       tx, rx, unread, a.wait_first_fpdu ? "yes" : "no");
	if (a.rtr_read_due)
		printf(", Read Response due (STag 0x%08" PRIx32 ", TO %" PRIu64
		       ")",
		       a.rtr_read_stag, a.rtr_read_to);
	printf(", next MSN");
	n = (int)a.num_next_msn;
	for (i = 0; i < n; i++)
		printf("%s%" PRIu32, i ? "," : " ", a.next_msn[i]);
	printf("%s\n", n > 0 ? "" : " none");
}

static void state_json(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = conn_attr(c);
	uint64_t tx = 0, rx = 0;
	size_t unread = 0;
	char rtr[24];
	int i, n;

	jstr("transport", a.transport == IWCM_TRANSPORT_SCTP ? "sctp" : "tcp");
	jnum("mpa_rev", a.mpa_rev);
	jnum("ddp_version", a.ddp_version);
	jnum("rdmap_version", a.rdmap_version);
	jbool("markers_tx", a.markers_tx);
	jbool("markers_rx", a.markers_rx);
	jbool("crc", a.crc);
	jbool("enhanced", a.enhanced);
	jbool("p2p", a.p2p);
	jstr("rtr_type",
	     cmopt_rtr_str((unsigned int)a.rtr_type, rtr, sizeof(rtr)));
	jbool("rtr_frame", a.rtr_frame);
	jnum("ird", a.ird);
	jnum("ord", a.ord);
	tx = a.tx_offset;
	rx = a.rx_offset;
	unread = a.unread_len;
	jnum("tx_offset", (long long)tx);
	jnum("rx_offset", (long long)rx);
	jnum("unread", (long long)unread);
	jbool("wait_first_fpdu", a.wait_first_fpdu);
	jbool("rtr_read_due", a.rtr_read_due);
	if (a.transport == IWCM_TRANSPORT_TCP) {
		unsigned int uto = 0;
		socklen_t ul = sizeof(uto);

		/* what iwcmd set before the handoff (tcp_user_timeout_ms) */
		if (getsockopt(iwcm_conn_get_fd(c), IPPROTO_TCP,
			       TCP_USER_TIMEOUT, &uto, &ul) == 0)
			jnum("tcp_user_timeout_ms", uto);
	}
	json_open(&cli_w, "next_msn", '[');
	n = (int)a.num_next_msn;
	for (i = 0; i < n; i++)
		json_uint(&cli_w, NULL, a.next_msn[i]);
	json_close(&cli_w, ']');
}

static void reason_text(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = conn_attr(c);
	const char *text = a.reason_text;

	printf("  failed: %s%s%s", iwcm_status_str(a.reason), text ? ": " : "",
	       text ? text : "");
	if (a.comp_mask & IWCM_CONN_ATTR_TERM)
		printf("; Terminate layer %u, type %u, code %u", a.term_layer,
		       a.term_etype, a.term_ecode);
	printf("\n");
}

static void reason_json(const struct iwcm_conn *c)
{
	const struct iwcm_conn_attr a = conn_attr(c);
	const char *text = a.reason_text;

	jstr("reason", status_name(a.reason));
	jstr("reason_text", text ? text : iwcm_status_str(a.reason));
	if (a.comp_mask & IWCM_CONN_ATTR_TERM) {
		jnum("term_layer", a.term_layer);
		jnum("term_etype", a.term_etype);
		jnum("term_ecode", a.term_ecode);
	}
}

/*
 * One event of connection c: its identity, then what show asks for.
 * sent, when not NULL, is the private data we rejected with.
 */
static void print_conn(bool json, const char *event, const struct iwcm_conn *c,
		       unsigned int show, const struct cmopt *sent)
{
	const struct iwcm_conn_attr a = conn_attr(c);
	bool init = a.initiator;
	char la[64], pa[64];

	addr_str((const struct sockaddr *)&a.local_addr, la, sizeof(la));
	addr_str((const struct sockaddr *)&a.peer_addr, pa, sizeof(pa));
	if (json) {
		jbegin();
		jstr("event", event);
		jnum("id", (long long)a.id);
		jstr("role", init ? "initiator" : "responder");
		jstr("local", la);
		jstr("peer", pa);
		if (show & SHOW_PEER)
			peer_json(c);
		if (show & SHOW_STATE)
			state_json(c);
		if (show & SHOW_REASON)
			reason_json(c);
		if (sent)
			jhex("private_data", sent->private_data,
			     sent->private_data_len);
		jend();
	} else {
		printf("conn %" PRIu64 ": %s, %s, %s %s %s\n", a.id, event,
		       init ? "initiator" : "responder", la, init ? "->" : "<-",
		       pa);
		if (show & SHOW_PEER)
			peer_text(c);
		if (show & SHOW_STATE)
			state_text(c);
		if (show & SHOW_REASON)
			reason_text(c);
		if (sent) {
			printf("  rejected by us, private data ");
			if (sent->private_data_len)
				hex(sent->private_data, sent->private_data_len);
			else
				printf("none");
			printf("\n");
		}
	}
	fflush(stdout);
}

/* ---- talking to iwcmd ---- */

/* Milliseconds of CLOCK_MONOTONIC, for cli_event()'s deadline. */
long long cli_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* A context on iwcmd's client socket (-s, $IWCM_SOCKET, the default);
 * NULL after a message naming the socket. */
struct iwcm_ctx *cli_open(const char *who)
{
	struct iwcm_ctx *ctx;
	const char *path = ctl_socket;

	if (path)
		ctx = iwcm_ctx_open_path(path, IWCM_CTX_NONBLOCK);
	else
		ctx = iwcm_ctx_open(IWCM_CTX_NONBLOCK);
	if (!ctx && errno == EINVAL && iwcm_env_error()) {
		/* iwcm_ctx_open(3): libiwcm refuses a bad one */
		fprintf(stderr, "iwcmctl: %s: bad %s\n", who, iwcm_env_error());
		return NULL;
	}
	if (!ctx) {
		if (!path)
			path = getenv("IWCM_SOCKET");
		fprintf(stderr, "iwcmctl: %s: %s: %s (is iwcmd running?)\n",
			who, path && *path ? path : "/run/iwcm/iwcmd.sock",
			strerror(errno));
	}
	return ctx;
}

/*
 * The next event of ctx, waiting until deadline (a cli_now_ms() value, or
 * -1: no limit).  0, or -1 with errno ETIMEDOUT or the error of
 * iwcm_get_event().
 */
int cli_event(struct iwcm_ctx *ctx, long long deadline, struct iwcm_event **ev)
{
	struct pollfd p = { iwcm_ctx_get_fd(ctx), POLLIN, 0 };

	for (;;) {
		long long left = -1;

		if (iwcm_get_event(ctx, ev) == 0)
			return 0;
		if (errno != EAGAIN && errno != EINTR)
			return -1;
		if (deadline >= 0) {
			left = deadline - cli_now_ms();
			if (left <= 0) {
				errno = ETIMEDOUT;
				return -1;
			}
		}
		if (poll(&p, 1, left > INT32_MAX ? INT32_MAX : (int)left) < 0 &&
		    errno != EINTR)
			return -1;
	}
}

static bool want_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			return true;
	return false;
}

/* ---- listen ---- */

static void listen_usage(FILE *fp)
{
	fputs("usage: iwcmctl [-s SOCKET] [-j] listen [ADDR:]PORT | "
	      "--service NAME [options]\n",
	      fp);
	cmopt_usage(fp, CMOPT_LISTEN);
}

/* One CONNECT_REQUEST: answer it as the options say; 1 when done. */
static int listen_request(const struct cmopt *o, struct iwcm_conn *c,
			  const struct iwcm_conn_param *param, int *failed)
{
	print_conn(o->json, "CONNECT_REQUEST", c, SHOW_PEER, NULL);
	if (o->reject) {
		if (iwcm_reject(c, o->private_data, o->private_data_len) < 0) {
			fprintf(stderr,
				"iwcmctl: listen: reject conn %" PRIu64
				": %s\n",
				conn_attr(c).id, strerror(errno));
			(*failed)++;
		} else {
			print_conn(o->json, "REJECTED", c, 0, o);
		}
		iwcm_conn_free(c);
		return 1;
	}
	if (iwcm_accept(c, param) < 0) {
		fprintf(stderr,
			"iwcmctl: listen: accept conn %" PRIu64 ": %s\n",
			conn_attr(c).id, strerror(errno));
		(*failed)++;
		iwcm_conn_free(c);
		return 1;
	}
	return 0; /* ESTABLISHED or CONNECT_ERROR follows */
}

/* iwcmctl listen [ADDR:]PORT | --service NAME [options] */
int cmd_listen(int argc, char **argv)
{
	struct iwcm_conn_param *param = NULL;
	struct iwcm_listener *l = NULL;
	struct iwcm_ctx *ctx = NULL;
	struct sockaddr_storage ss;
	const char *target;
	struct cmopt o;
	unsigned int started = 0, done = 0;
	long long deadline = -1;
	int failed = 0, rc = 2;
	char la[64];

	if (want_help(argc, argv)) {
		listen_usage(stdout);
		return 0;
	}
	if (cmopt_parse(&o, CMOPT_LISTEN, argc, argv, &target) < 0)
		goto usage;
	o.json |= ctl_json;
	if (!target == !o.service ||
	    (target && cmopt_parse_addr(target, true, true, &ss) < 0))
		goto usage;
	param = cmopt_param(&o, true);
	if (!param) {
		fprintf(stderr, "iwcmctl: listen: %s\n", strerror(errno));
		return 2;
	}
	ctx = cli_open("listen");
	if (!ctx)
		goto out;
	l = iwcm_listen(ctx, target ? (struct sockaddr *)&ss : NULL, o.service,
			param, 0);
	if (!l) {
		fprintf(stderr, "iwcmctl: listen %s: %s\n",
			target ? target : o.service, strerror(errno));
		rc = 1;
		goto out;
	}
	addr_str(iwcm_listener_get_addr(l), la, sizeof(la));
	if (o.json) {
		jbegin();
		jstr("event", "LISTENING");
		jstr("local", la);
		jnum("port", iwcm_listener_get_port(l));
		jend();
	} else {
		printf("listening on %s\n", la);
	}
	fflush(stdout);
	if (o.has_timeout)
		deadline = cli_now_ms() + o.timeout_ms;
	rc = 0;
	while (done < o.count) {
		struct iwcm_event *ev;
		struct iwcm_conn *c;
		int type;

		if (cli_event(ctx, deadline, &ev) < 0) {
			fprintf(stderr, "iwcmctl: listen: %s\n",
				errno == ETIMEDOUT ? "timed out" :
						     strerror(errno));
			rc = 1;
			break;
		}
		type = iwcm_event_get_type(ev);
		c = iwcm_event_get_conn(ev);
		iwcm_ack_event(ev);
		if (type == IWCM_CM_EVENT_CONNECT_REQUEST &&
		    started == o.count) {
			/* more requests than asked for */
			iwcm_reject(c, NULL, 0);
			iwcm_conn_free(c);
		} else if (type == IWCM_CM_EVENT_CONNECT_REQUEST) {
			started++;
			done += (unsigned int)listen_request(&o, c, param,
							     &failed);
		} else if (type == IWCM_CM_EVENT_ESTABLISHED) {
			print_conn(o.json, "ESTABLISHED", c,
				   SHOW_PEER | SHOW_STATE, NULL);
			iwcm_conn_free(c);
			done++;
		} else {
			print_conn(o.json, iwcm_cm_event_str(type), c,
				   SHOW_PEER | SHOW_REASON, NULL);
			iwcm_conn_free(c);
			failed++;
			done++;
		}
	}
	if (failed)
		rc = 1;
out:
	if (l)
		iwcm_listener_close(l);
	iwcm_ctx_close(ctx);
	iwcm_conn_param_free(param);
	return rc;
usage:
	listen_usage(stderr);
	return 2;
}

/* ---- connect ---- */

static void connect_usage(FILE *fp)
{
	fputs("usage: iwcmctl [-s SOCKET] [-j] connect HOST:PORT "
	      "[--daemon] [options]\n",
	      fp);
	cmopt_usage(fp, CMOPT_CONNECT | CMOPT_DAEMON);
}

/* iwcmctl connect HOST:PORT [--daemon] [options] */
int cmd_connect(int argc, char **argv)
{
	struct iwcm_conn_param *param = NULL;
	struct iwcm_ctx *ctx = NULL;
	struct iwcm_conn *c = NULL;
	struct sockaddr_storage ss;
	unsigned int mode = CMOPT_CONNECT;
	const char *target;
	struct cmopt o;
	long long deadline;
	int i, rc = 2;

	if (want_help(argc, argv)) {
		connect_usage(stdout);
		return 0;
	}
	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--daemon"))
			mode = CMOPT_DAEMON;
	if (cmopt_parse(&o, mode, argc, argv, &target) < 0)
		goto usage;
	o.json |= ctl_json;
	if (!target || cmopt_parse_addr(target, false, false, &ss) < 0)
		goto usage;
	if (o.daemon)
		return ctl_force_connect(target, &o);
	param = cmopt_param(&o, false);
	if (!param) {
		fprintf(stderr, "iwcmctl: connect: %s\n", strerror(errno));
		return 2;
	}
	ctx = cli_open("connect");
	if (!ctx)
		goto out;
	c = iwcm_connect(ctx, (struct sockaddr *)&ss, NULL, param);
	if (!c) {
		fprintf(stderr, "iwcmctl: connect %s: %s\n", target,
			strerror(errno));
		rc = errno == EINVAL ? 2 : 1;
		goto out;
	}
	deadline = cli_now_ms() + (o.has_timeout ?
					   o.timeout_ms + CLI_WAIT_MARGIN_MS :
					   CLI_CONNECT_WAIT_MS);
	for (;;) {
		struct iwcm_event *ev;
		int type;

		if (cli_event(ctx, deadline, &ev) < 0) {
			fprintf(stderr, "iwcmctl: connect %s: %s\n", target,
				errno == ETIMEDOUT ? "timed out" :
						     strerror(errno));
			rc = 1;
			break;
		}
		type = iwcm_event_get_type(ev);
		if (iwcm_event_get_conn(ev) != c) {
			iwcm_ack_event(ev);
			continue;
		}
		iwcm_ack_event(ev);
		if (type == IWCM_CM_EVENT_ESTABLISHED) {
			print_conn(o.json, "ESTABLISHED", c,
				   SHOW_PEER | SHOW_STATE, NULL);
			rc = 0;
		} else {
			print_conn(o.json, iwcm_cm_event_str(type), c,
				   SHOW_PEER | SHOW_REASON, NULL);
			rc = 1;
		}
		break;
	}
out:
	iwcm_conn_free(c);
	iwcm_ctx_close(ctx);
	iwcm_conn_param_free(param);
	return rc;
usage:
	connect_usage(stderr);
	return 2;
}
