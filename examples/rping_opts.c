/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/* iwcm-rping: the command line (rping's options and iwcm's own). */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>

#include "rping.h"

/* ---- options ---- */

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: iwcm-rping -s [-vVdP] [-S size] [-C count] [-a addr] "
		"[-p port] [iwcm options]\n"
		"       iwcm-rping -c [-vVd] [-S size] [-C count] [-I addr] "
		"-a addr [-p port] [iwcm options]\n"
		"\t-c\t\tclient side\n"
		"\t-I addr\t\tsource address to bind to for the client\n"
		"\t-s\t\tserver side; to bind to any IPv6 address use -a ::0\n"
		"\t-v\t\tdisplay ping data to stdout\n"
		"\t-V\t\tvalidate ping data\n"
		"\t-d\t\tdebug printfs\n"
		"\t-S size\t\tping data size (%d to %d, default %d)\n"
		"\t-C count\tping count times (default 0: forever)\n"
		"\t-a addr\t\taddress\n"
		"\t-p port\t\tport (default %d; 0 with -s: any, printed)\n"
		"\t-P\t\tpersistent server mode allowing multiple "
		"connections\n"
		"\t-q\t\taccepted for compatibility (no effect)\n"
		"iwcm options:\n"
		"\t--socket PATH\tiwcmd's client socket (default "
		"$IWCM_SOCKET)\n"
		"\t--p2p\t\tpeer-to-peer connection model (RFC 6581)\n"
		"\t--rtr LIST\tRTR types, from write,read,send\n"
		"\t--mpa-rev N\tMPA revision to ask for: 1 or 2\n"
		"\t--crc on|off\task for MPA CRCs (on) or prefer none (off)\n"
		"\t--markers\task the peer for MPA markers\n"
		"\t--first-fpdu-delay MS\n\t\t\tclient: hold the first FPDU "
		"after the Reply (0 to %d)\n"
		"\t--transport tcp|sctp\tMPA over TCP (default) or DDP over "
		"SCTP\n"
		"\t-h, --help\tthis help\n"
		"\t--version\tthe version\n",
		RPING_SIZE_MIN, RPING_SIZE_MAX, RPING_SIZE_DEFAULT, RPING_PORT,
		IWCM_FIRST_FPDU_DELAY_MAX);
}

/* A decimal integer from lo to hi, or -1 with a message. */
static int parse_int(const char *s, const char *what, long lo, long hi,
		     int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		err("invalid %s '%s' (valid range is %ld to %ld)", what, s, lo,
		    hi);
		return -1;
	}
	*out = (int)v;
	return 0;
}

static int parse_addr(const char *s, struct sockaddr_storage *ss)
{
	struct addrinfo hints, *res;
	int ret;

	if (!*s) {
		err("invalid address '': empty");
		return -1;
	}
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	ret = getaddrinfo(s, NULL, &hints, &res);
	if (ret) {
		err("invalid address '%s': %s", s, gai_strerror(ret));
		return -1;
	}
	if (res->ai_family != AF_INET && res->ai_family != AF_INET6) {
		err("invalid address '%s': not IPv4 or IPv6", s);
		freeaddrinfo(res);
		return -1;
	}
	memset(ss, 0, sizeof(*ss));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	freeaddrinfo(res);
	return 0;
}

static int parse_rtr(const char *s, unsigned int *out)
{
	char buf[64];
	char *tok, *save = NULL;

	*out = 0;
	if (strlen(s) >= sizeof(buf))
		goto bad;
	strcpy(buf, s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "write") == 0)
			*out |= IWCM_RTR_WRITE;
		else if (strcmp(tok, "read") == 0)
			*out |= IWCM_RTR_READ;
		else if (strcmp(tok, "send") == 0)
			*out |= IWCM_RTR_SEND;
		else
			goto bad;
	}
	if (*out)
		return 0;
bad:
	err("invalid --rtr '%s' (a list of write, read, send)", s);
	return -1;
}

enum {
	OPT_SOCKET = 256,
	OPT_P2P,
	OPT_RTR,
	OPT_MPA_REV,
	OPT_CRC,
	OPT_MARKERS,
	OPT_HOLD,
	OPT_TRANSPORT,
	OPT_VERSION,
};

static const struct option longopts[] = {
	{ "socket", required_argument, NULL, OPT_SOCKET },
	{ "p2p", no_argument, NULL, OPT_P2P },
	{ "rtr", required_argument, NULL, OPT_RTR },
	{ "mpa-rev", required_argument, NULL, OPT_MPA_REV },
	{ "crc", required_argument, NULL, OPT_CRC },
	{ "markers", no_argument, NULL, OPT_MARKERS },
	{ "first-fpdu-delay", required_argument, NULL, OPT_HOLD },
	{ "transport", required_argument, NULL, OPT_TRANSPORT },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, OPT_VERSION },
	{ NULL, 0, NULL, 0 },
};

/* 0, -1 after a message (exit 2), or 1 after --help (exit 0). */
int parse_args(int argc, char **argv, struct rping_opts *o)
{
	int ch, v;

	memset(o, 0, sizeof(*o));
	o->server = -1;
	o->port = RPING_PORT;
	o->size = RPING_SIZE_DEFAULT;
	o->crc = -1;
	o->hold_ms = -1;
	o->addr.ss_family = AF_INET;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":a:I:Pp:C:S:scvVdqh", longopts,
				 NULL)) != -1) {
		switch (ch) {
		case 'a':
			if (parse_addr(optarg, &o->addr) < 0)
				return -1;
			o->addr_set = true;
			break;
		case 'I':
			if (parse_addr(optarg, &o->src) < 0)
				return -1;
			o->src_set = true;
			break;
		case 'P':
			o->persistent = true;
			break;
		case 'p':
			if (parse_int(optarg, "port", 0, 65535, &o->port) < 0)
				return -1;
			break;
		case 's':
			o->server = 1;
			break;
		case 'c':
			o->server = 0;
			break;
		case 'S':
			if (parse_int(optarg, "size", RPING_SIZE_MIN,
				      RPING_SIZE_MAX, &o->size) < 0)
				return -1;
			break;
		case 'C':
			if (parse_int(optarg, "count", 0, INT_MAX, &o->count) <
			    0)
				return -1;
			break;
		case 'v':
			o->verbose++;
			break;
		case 'V':
			o->validate++;
			break;
		case 'd':
			o->debug++;
			break;
		case 'q':
			break;
		case 'h':
			usage(stdout);
			return 1;
		case OPT_VERSION:
			printf("iwcm-rping %s\n", PACKAGE_VERSION);
			return 1;
		case OPT_SOCKET:
			o->socket = optarg;
			break;
		case OPT_P2P:
			o->p2p = true;
			break;
		case OPT_RTR:
			if (parse_rtr(optarg, &o->rtr) < 0)
				return -1;
			break;
		case OPT_MPA_REV:
			if (parse_int(optarg, "MPA revision", 1, 2, &v) < 0)
				return -1;
			o->mpa_rev = (unsigned int)v;
			break;
		case OPT_CRC:
			if (strcmp(optarg, "on") == 0) {
				o->crc = 1;
			} else if (strcmp(optarg, "off") == 0) {
				o->crc = 0;
			} else {
				err("invalid --crc '%s' (on or off)", optarg);
				return -1;
			}
			break;
		case OPT_MARKERS:
			o->markers = true;
			break;
		case OPT_HOLD:
			if (parse_int(optarg, "first FPDU delay", 0,
				      IWCM_FIRST_FPDU_DELAY_MAX, &v) < 0)
				return -1;
			o->hold_ms = v;
			break;
		case OPT_TRANSPORT:
			if (strcmp(optarg, "sctp") == 0) {
				o->sctp = true;
			} else if (strcmp(optarg, "tcp") != 0) {
				err("invalid --transport '%s' (tcp or sctp)",
				    optarg);
				return -1;
			}
			break;
		case ':':
			err("option '%s' needs an argument", argv[optind - 1]);
			return -1;
		default:
			if (optopt)
				err("unknown option '-%c'", optopt);
			else
				err("unknown option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	if (optind < argc) {
		err("unexpected argument '%s'", argv[optind]);
		return -1;
	}
	if (o->server == -1) {
		err("either -s (server) or -c (client) is needed");
		return -1;
	}
	if (!o->server && !o->addr_set) {
		err("the client needs the server's address (-a)");
		return -1;
	}
	if (!o->server && o->port == 0) {
		err("the client needs the server's port (-p 1 to 65535)");
		return -1;
	}
	if (!o->server && o->persistent) {
		err("-P is for the server (-s)");
		return -1;
	}
	if (o->server && o->src_set) {
		err("-I is for the client (-c); the server binds -a");
		return -1;
	}
	if (o->sctp && (o->markers || o->crc >= 0 || o->rtr)) {
		err("--markers, --crc and --rtr are MPA's, not SCTP's");
		return -1;
	}
	if (o->mpa_rev == 1 && (o->p2p || o->rtr)) {
		err("--p2p and --rtr need MPA revision 2");
		return -1;
	}
	if (o->rtr && !o->p2p && !o->server) {
		err("--rtr needs --p2p");
		return -1;
	}
	if (o->src_set && o->src.ss_family != o->addr.ss_family) {
		err("-I and -a are of different address families");
		return -1;
	}
	set_port(&o->addr, o->port);
	return 0;
}
