/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl probe HOST:PORT: iwcmd negotiates with the peer once per offer
 * (a forced negotiation each, as connect --daemon), and the peer's answer
 * to each offer makes a row of its capability matrix: MPA Rev 1 and 2
 * (RFC 5044, RFC 6581), peer-to-peer with each RTR type alone and all
 * together (RFC 6581 §9.2), CRC asked for and not (RFC 5044 §7.1),
 * markers, IRD/ORD 0x3FFF (RFC 6581 §9.1: no automatic negotiation),
 * Rev 0 under the permissive policy (RDMA Consortium, seed 002), the
 * legacy RtR frame (seed 003); with --transport sctp the DDP stream
 * session offers (RFC 5043, RFC 6581 §7).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "iwcmctl.h"
#include "cmopt.h"
#include "ctl.h"
#include "ctl_output.h"
#include "pbaddr.h"
#include "probe.h"
#include <iwcm/iwcm.h>
#include "vocab.h"

#define PROBE_WAIT_MIN_MS 1000
#define PROBE_WAIT_MAX_MS 600000
#define PROBE_WAIT_DEFAULT_MS 10000

enum probe_transport { PROBE_TCP = 1, PROBE_SCTP = 2 };

struct probe_offer {
	const char *name;
	const char *what;
	unsigned int transports; /* PROBE_* it applies to */
	int rev;		 /* -1: the daemon's default */
	bool p2p;
	unsigned int rtr; /* MPA_RTR_* offered; 0: the default */
	int crc;	  /* -1 default, 0 prefer off, 1 request */
	bool markers;
	bool irdord_none;
	bool rtr_frame;
	bool enhanced_off; /* SCTP: the plain codes 1-4 */
};

/* A TCP offer: name, words, the revision asked for (-1: the daemon's
 * default), CRC (-1 default, 0 prefer none, 1 request), the rest. */
#define TCP_OFFER(n, w, r, c, ...)                                             \
	{                                                                      \
		.name = (n), .what = (w), .transports = PROBE_TCP, .rev = (r), \
		.crc = (c), __VA_ARGS__                                        \
	}

static const struct probe_offer probe_offers[] = {
	TCP_OFFER("rev1", "MPA Rev 1", 1, -1, .p2p = false),
	TCP_OFFER("rev2", "Rev 2, client-server", 2, -1, .p2p = false),
	TCP_OFFER("p2p-send", "peer-to-peer, Send RTR", 2, -1, .p2p = true,
		  .rtr = MPA_RTR_SEND),
	TCP_OFFER("p2p-write", "peer-to-peer, Write RTR", 2, -1, .p2p = true,
		  .rtr = MPA_RTR_WRITE),
	TCP_OFFER("p2p-read", "peer-to-peer, Read RTR", 2, -1, .p2p = true,
		  .rtr = MPA_RTR_READ),
	TCP_OFFER("p2p-all", "peer-to-peer, any RTR", 2, -1, .p2p = true,
		  .rtr = MPA_RTR_ALL),
	TCP_OFFER("crc-on", "CRC requested (C=1)", 2, 1, .p2p = false),
	TCP_OFFER("crc-off", "CRC not requested (C=0)", 2, 0, .p2p = false),
	TCP_OFFER("markers", "markers asked for (M=1)", 2, -1, .markers = true),
	TCP_OFFER("irdord-none", "IRD/ORD 0x3FFF", 2, -1, .irdord_none = true),
	TCP_OFFER("rev0", "RDMA Consortium Rev 0", 0, -1, .p2p = false),
	TCP_OFFER("rtr-frame", "legacy RtR frame (seed 003)", -1, -1,
		  .rtr_frame = true),
	{ .name = "sctp-enhanced",
	  .what = "Enhanced Initiate (code 5)",
	  .transports = PROBE_SCTP,
	  .rev = -1,
	  .crc = -1 },
	{ .name = "sctp-plain",
	  .what = "Initiate (code 1)",
	  .transports = PROBE_SCTP,
	  .rev = -1,
	  .crc = -1,
	  .enhanced_off = true },
};

_Static_assert(sizeof(probe_offers) / sizeof(probe_offers[0]) <= 64,
	       "probe_select() keeps the offers in 64 bits");

/* The offer as ConnParams; the daemon waits wait_ms for the Reply and
 * holds the first FPDU hold_ms (-1: its default). */
static void probe_params(const struct probe_offer *o, enum probe_transport t,
			 unsigned int wait_ms, int hold_ms, Iwcm__ConnParams *p)
{
	iwcm__conn_params__init(p);
	p->has_reply_timeout_ms = 1;
	p->reply_timeout_ms = wait_ms;
	if (hold_ms >= 0) {
		p->has_first_fpdu_delay_ms = 1;
		p->first_fpdu_delay_ms = (uint32_t)hold_ms;
	}
	if (t == PROBE_SCTP) {
		p->has_transport = 1;
		p->transport = IWCM__TRANSPORT__TRANSPORT_SCTP;
		/* plain RFC 5043 codes: no enhanced word */
		p->has_mpa_rev = o->enhanced_off;
		p->mpa_rev = 1;
	}
	if (o->rev >= 0) {
		p->has_mpa_rev = 1;
		p->mpa_rev = (uint32_t)o->rev;
	}
	if (o->rev == 0) {
		p->has_rev0 = 1;
		p->rev0 = IWCM__REV0_POLICY__REV0_PERMISSIVE;
	}
	if (o->p2p) {
		p->has_p2p = 1;
		p->p2p = 1;
	}
	if (o->rtr) {
		p->has_rtr_types = 1;
		p->rtr_types = o->rtr;
	}
	if (o->crc >= 0) {
		p->has_crc = 1;
		p->crc = o->crc ? IWCM__CRC_POLICY__CRC_REQUEST :
				  IWCM__CRC_POLICY__CRC_PREFER_OFF;
	}
	if (o->markers) {
		p->has_markers = 1;
		p->markers = 1;
	}
	if (o->irdord_none) {
		p->has_ird = p->has_ord = 1;
		p->ird = p->ord = MPA_IRD_ORD_NONE;
	}
	if (o->rtr_frame) {
		p->has_rtr_frame = 1;
		p->rtr_frame = 1;
	}
}

/* What one negotiation's reports say: the Reply and the outcome. */
struct probe_seen {
	uint8_t reply[MPA_FRAME_MAX];
	size_t reply_len;
	Iwcm__Established *est;
};

static void probe_report(const Iwcm__Ctl__NegotiationReport *r, unsigned int n,
			 void *arg)
{
	struct probe_seen *s = arg;

	(void)n;
	if (r->has_reply && r->reply.len <= sizeof(s->reply)) {
		memcpy(s->reply, r->reply.data, r->reply.len);
		s->reply_len = r->reply.len;
	}
	if (r->result && !s->est) {
		size_t len = iwcm__established__get_packed_size(r->result);
		uint8_t *buf = malloc(len ? len : 1);

		/* keep a copy: r goes away after this call */
		if (buf) {
			iwcm__established__pack(r->result, buf);
			s->est = iwcm__established__unpack(NULL, len, buf);
			free(buf);
		}
	}
}

#define PROBE_USAGE                                                      \
	"usage: iwcmctl [-s SOCKET] [-j] probe HOST:PORT "               \
	"[--transport tcp|sctp]\n"                                       \
	"                              [--timeout MS] [--offers LIST]\n" \
	"                              [--first-fpdu-delay MS]\n"

static int probe_usage(void)
{
	fputs(PROBE_USAGE, stderr);
	return 2;
}

/* The offers named in list (comma-separated) as bits of probe_offers[];
 * 0 when a name is unknown (reported). */
static uint64_t probe_select(const char *list)
{
	const size_t n = sizeof(probe_offers) / sizeof(probe_offers[0]);
	uint64_t sel = 0;
	const char *p = list;

	while (*p) {
		size_t len = strcspn(p, ",");
		size_t k;

		for (k = 0; k < n; k++)
			if (strlen(probe_offers[k].name) == len &&
			    !strncmp(probe_offers[k].name, p, len))
				break;
		if (k == n || !len) {
			fprintf(stderr,
				"iwcmctl: probe: unknown offer '%.*s' (see "
				"iwcmctl(8))\n",
				(int)len, p);
			return 0;
		}
		sel |= 1ull << k;
		p += len;
		if (*p == ',')
			p++;
	}
	return sel;
}

/* iwcmctl probe HOST:PORT [--transport tcp|sctp] [--timeout MS]
 * [--offers LIST] */
int cmd_probe(int argc, char **argv)
{
	uint64_t sel = ~0ull;
	int hold_ms = -1;
	enum probe_transport t = PROBE_TCP;
	Iwcm__SockAddr dst = IWCM__SOCK_ADDR__INIT;
	struct sockaddr_storage ss;
	const char *target = NULL;
	unsigned int wait_ms = PROBE_WAIT_DEFAULT_MS, n_run = 0;
	uint8_t abuf[16];
	int fd, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-j") || !strcmp(argv[i], "--json")) {
			ctl_json = true;
		} else if (!strcmp(argv[i], "-h") ||
			   !strcmp(argv[i], "--help")) {
			printf(PROBE_USAGE
			       "  one negotiation per offer; the "
			       "peer's answer to each (iwcmctl(8))\n");
			return 0;
		} else if (!strcmp(argv[i], "--first-fpdu-delay") &&
			   i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || argv[i][0] < '0' || argv[i][0] > '9' ||
			    v > IWCM_FIRST_FPDU_DELAY_MAX) {
				fprintf(stderr,
					"iwcmctl: probe: --first-fpdu-delay "
					"%s: 0 to %d ms\n",
					argv[i], IWCM_FIRST_FPDU_DELAY_MAX);
				return 2;
			}
			hold_ms = (int)v;
		} else if (!strcmp(argv[i], "--offers") && i + 1 < argc) {
			sel = probe_select(argv[++i]);
			if (!sel)
				return 2;
		} else if (!strcmp(argv[i], "--transport") && i + 1 < argc) {
			i++;
			if (!strcmp(argv[i], "tcp")) {
				t = PROBE_TCP;
			} else if (!strcmp(argv[i], "sctp")) {
				t = PROBE_SCTP;
			} else {
				fprintf(stderr,
					"iwcmctl: probe: --transport %s: tcp "
					"or sctp\n",
					argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--timeout") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (*end || argv[i][0] < '0' || argv[i][0] > '9' ||
			    v < PROBE_WAIT_MIN_MS || v > PROBE_WAIT_MAX_MS) {
				fprintf(stderr,
					"iwcmctl: probe: --timeout %s: %d to "
					"%d ms\n",
					argv[i], PROBE_WAIT_MIN_MS,
					PROBE_WAIT_MAX_MS);
				return 2;
			}
			wait_ms = (unsigned int)v;
		} else if (argv[i][0] == '-' || target) {
			/* an option without its value ends here too */
			fprintf(stderr, "iwcmctl: probe: unexpected '%s'\n",
				argv[i]);
			return probe_usage();
		} else {
			target = argv[i];
		}
	}
	if (!target)
		return probe_usage();
	if (cmopt_parse_addr(target, false, false, &ss) < 0) {
		fprintf(stderr, "iwcmctl: probe: bad destination '%s'\n",
			target);
		return 2;
	}
	pb_sockaddr_from(&ss, &dst, abuf);
	fd = ctl_admin_open();
	if (fd < 0)
		return 2;
	ctl_output()->probe_begin(target, t == PROBE_SCTP ? "sctp" : "tcp");
	for (size_t k = 0; k < sizeof(probe_offers) / sizeof(probe_offers[0]);
	     k++) {
		const struct probe_offer *o = &probe_offers[k];
		struct ctl_probe_row row;
		struct probe_seen seen;
		Iwcm__ConnParams p;
		char msg[256];
		size_t used;

		if (!(o->transports & t) || !((sel >> k) & 1))
			continue;
		memset(&row, 0, sizeof(row));
		memset(&seen, 0, sizeof(seen));
		row.offer = o->name;
		row.what = o->what;
		if (t == PROBE_SCTP) {
			Iwcm__Established est = IWCM__ESTABLISHED__INIT;

			probe_sctp_row(&ss, !o->enhanced_off, wait_ms, &row,
				       &est, msg, sizeof(msg));
			ctl_output()->probe_row(&row, n_run++);
			continue;
		}
		probe_params(o, t, wait_ms, hold_ms, &p);
		if (ctl_force(fd, &dst, &p, (int)wait_ms + 5000, probe_report,
			      &seen, &row.result, msg, sizeof(msg)) < 0) {
			close(fd);
			ctl_output()->probe_end(n_run);
			return 2;
		}
		row.ran = true;
		row.reason = msg;
		row.est = seen.est;
		row.have_reply = seen.reply_len > 0;
		row.reply_ok = row.have_reply &&
			       mpa_frame_parse(seen.reply, seen.reply_len,
					       &row.reply, &used) == WIRE_OK;
		ctl_output()->probe_row(&row, n_run++);
		if (seen.est)
			iwcm__established__free_unpacked(seen.est, NULL);
	}
	ctl_output()->probe_end(n_run);
	close(fd);
	return 0;
}
