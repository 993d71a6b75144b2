/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * The options of iwcmctl sample: help text, parsing and the checks across
 * options (iwcmctl(8)).
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpa.h"
#include "pcapw.h"
#include "sample.h"
#include "vocab.h"

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: iwcmctl sample [-v] [-o FILE] [--hex] [--rev 0|1|2] [--rev0]\n"
		"                      [--client-server] [--rtr write|read|send]\n"
		"                      [--rtr-frame] [--markers | --markers-i2r |\n"
		"                      --markers-r2i] [--no-crc] [--swap] [--terminate]\n"
		"                      [--mss N] [--no-ddp-seg] [--corrupt N]\n"
		"                      [--initiator-port N]\n"
		"       iwcmctl sample --transport sctp [-v] [-o FILE] [--corrupt N]\n"
		"\n"
		"Write a synthetic iWARP session (TCP handshake, MPA Request and Reply,\n"
		"RTR, every RDMAP opcode, FIN) as pcap to FILE or to standard output.\n"
		"Default: MPA Rev 2 peer-to-peer, Write and Read RTR offered, Write\n"
		"chosen, IRD/ORD 16/16 answered 16/8, CRC on, no markers.\n"
		"\n"
		"  -o, --output FILE    write to FILE ('-' is standard output)\n"
		"  -v, --verbose        list the frames and FPDUs on standard error\n"
		"      --hex            write the two streams as hex ('>' initiator to\n"
		"                       responder, '<' back), the decode --hex format\n"
		"      --rev N          MPA revision: 2 (RFC 6581, default), 1 (RFC 5044,\n"
		"                       no enhanced data, no RTR), 0 (RDMA Consortium)\n"
		"      --rev0           Rev 0 with M=1, C=1 and DDP/RDMAP version 0\n"
		"      --client-server  enhanced data with A=0: no RTR\n"
		"      --rtr TYPE       zero-length RTR: write (default), read (Read\n"
		"                       Request answered by a Read Response) or send\n"
		"      --rtr-frame      seed-003 MPA ID RtR Frame after the Reply (Rev 1,\n"
		"                       S=1 in both frames)\n"
		"      --markers        markers in both directions (M=1 in both frames)\n"
		"      --markers-i2r    markers from the initiator only (Reply M=1)\n"
		"      --markers-r2i    markers from the responder only (Request M=1)\n"
		"      --no-crc         C=0 in both frames: no CRC\n"
		"      --swap           add the seed-004 draft's Swap atomic\n"
		"      --terminate      end with a Write to an invalidated STag and the\n"
		"                       responder's Terminate\n"
		"      --mss N          TCP payload per segment (%d-%d, default %d)\n"
		"      --no-ddp-seg     one DDP segment per message: FPDUs may span TCP\n"
		"                       segments (default: DDP segments fit MULPDU)\n"
		"      --corrupt N      flip the last ULPDU octet of FPDU N (counted from\n"
		"                       0 over both directions) after its CRC was computed;\n"
		"                       with SCTP the last octet of packet N (from 0)\n"
		"      --initiator-port N\n"
		"                       the initiator's TCP port (1-65535 but not the\n"
		"                       responder's %d, default %d)\n"
		"      --transport T    tcp (default) or sctp: DDP over SCTP over UDP\n"
		"                       port 9899 (RFC 5043, RFC 6581 enhanced session)\n",
		SAMPLE_MSS_MIN, PCAPW_MSS_MAX, SAMPLE_MSS_DEFAULT,
		SAMPLE_PORT_R, SAMPLE_PORT_I);
}

static int usage_error(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	fputs("iwcmctl sample: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	usage(stderr);
	return 2;
}

static bool parse_ulong(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	if (!s[0] || s[0] == '-' || s[0] == '+')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v <= max;
}

int sample_opts_parse(int argc, char **argv, struct sample_opts *o)
{
	enum {
		OPT_HEX = 256,
		OPT_REV,
		OPT_REV0,
		OPT_CS,
		OPT_RTR,
		OPT_RTR_FRAME,
		OPT_MARKERS,
		OPT_MARKERS_I2R,
		OPT_MARKERS_R2I,
		OPT_NO_CRC,
		OPT_SWAP,
		OPT_TERMINATE,
		OPT_MSS,
		OPT_NO_DDP_SEG,
		OPT_CORRUPT,
		OPT_TRANSPORT,
		OPT_PORT_I,
	};
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "hex", no_argument, NULL, OPT_HEX },
		{ "rev", required_argument, NULL, OPT_REV },
		{ "rev0", no_argument, NULL, OPT_REV0 },
		{ "client-server", no_argument, NULL, OPT_CS },
		{ "rtr", required_argument, NULL, OPT_RTR },
		{ "rtr-frame", no_argument, NULL, OPT_RTR_FRAME },
		{ "markers", no_argument, NULL, OPT_MARKERS },
		{ "markers-i2r", no_argument, NULL, OPT_MARKERS_I2R },
		{ "markers-r2i", no_argument, NULL, OPT_MARKERS_R2I },
		{ "no-crc", no_argument, NULL, OPT_NO_CRC },
		{ "swap", no_argument, NULL, OPT_SWAP },
		{ "terminate", no_argument, NULL, OPT_TERMINATE },
		{ "mss", required_argument, NULL, OPT_MSS },
		{ "no-ddp-seg", no_argument, NULL, OPT_NO_DDP_SEG },
		{ "corrupt", required_argument, NULL, OPT_CORRUPT },
		{ "transport", required_argument, NULL, OPT_TRANSPORT },
		{ "initiator-port", required_argument, NULL, OPT_PORT_I },
		{ NULL, 0, NULL, 0 },
	};
	const char *tcp_only = NULL; /* an option only TCP has */
	unsigned long v;
	unsigned int rtr;
	int c;

	memset(o, 0, sizeof(*o));
	o->rev = -1;
	o->mss = SAMPLE_MSS_DEFAULT;
	o->port_i = SAMPLE_PORT_I;
	o->corrupt = -1;
	optind = 0; /* reinitialise getopt after main's parse */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:o:hv", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o->out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 1;
		case 'v':
			o->verbose = true;
			break;
		case OPT_HEX:
			tcp_only = argv[optind - 1];
			o->hex = true;
			break;
		case OPT_REV:
			tcp_only = argv[optind - 1];
			if (!parse_ulong(optarg, 2, &v))
				return usage_error("bad --rev '%s'", optarg);
			if (o->rev >= 0 && o->rev != (int)v)
				return usage_error("conflicting revisions");
			o->rev = (int)v;
			break;
		case OPT_REV0:
			tcp_only = argv[optind - 1];
			if (o->rev > 0)
				return usage_error("conflicting revisions");
			o->rev = MPA_REV_RDMAC;
			break;
		case OPT_CS:
			tcp_only = argv[optind - 1];
			o->client_server = true;
			break;
		case OPT_RTR:
			tcp_only = argv[optind - 1];
			/* one type: the RTR is a single message */
			if (vocab_rtr_parse(optarg, &rtr) < 0 ||
			    (rtr & (rtr - 1)))
				return usage_error("bad --rtr '%s'", optarg);
			o->rtr = (uint8_t)rtr;
			break;
		case OPT_RTR_FRAME:
			tcp_only = argv[optind - 1];
			o->rtr_frame = true;
			break;
		case OPT_MARKERS:
			tcp_only = argv[optind - 1];
			o->markers_i2r = o->markers_r2i = true;
			break;
		case OPT_MARKERS_I2R:
			tcp_only = argv[optind - 1];
			o->markers_i2r = true;
			break;
		case OPT_MARKERS_R2I:
			tcp_only = argv[optind - 1];
			o->markers_r2i = true;
			break;
		case OPT_NO_CRC:
			tcp_only = argv[optind - 1];
			o->no_crc = true;
			break;
		case OPT_SWAP:
			tcp_only = argv[optind - 1];
			o->swap = true;
			break;
		case OPT_TERMINATE:
			tcp_only = argv[optind - 1];
			o->terminate = true;
			break;
		case OPT_MSS:
			tcp_only = argv[optind - 1];
			if (!parse_ulong(optarg, PCAPW_MSS_MAX, &v) ||
			    v < SAMPLE_MSS_MIN)
				return usage_error("bad --mss '%s'", optarg);
			o->mss = (unsigned int)v;
			break;
		case OPT_PORT_I:
			tcp_only = argv[optind - 1];
			if (!parse_ulong(optarg, 65535, &v) || v == 0 ||
			    v == SAMPLE_PORT_R)
				return usage_error("bad --initiator-port '%s' "
						   "(1-65535, not the "
						   "responder's %d)",
						   optarg, SAMPLE_PORT_R);
			o->port_i = (uint16_t)v;
			break;
		case OPT_NO_DDP_SEG:
			tcp_only = argv[optind - 1];
			o->no_ddp_seg = true;
			break;
		case OPT_CORRUPT:
			if (!parse_ulong(optarg, 1000000, &v))
				return usage_error("bad --corrupt '%s'",
						   optarg);
			o->corrupt = (long)v;
			break;
		case OPT_TRANSPORT:
			if (!strcmp(optarg, "sctp"))
				o->sctp = true;
			else if (!strcmp(optarg, "tcp"))
				o->sctp = false;
			else
				return usage_error("bad --transport '%s' "
						   "(tcp or sctp)",
						   optarg);
			break;
		case ':':
			return usage_error("option '%s' needs an argument",
					   argv[optind - 1]);
		case '?':
		default:
			if (optopt && optopt < 256)
				return usage_error("bad option '-%c'", optopt);
			return usage_error("bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument '%s'", argv[optind]);
	if (o->sctp && tcp_only)
		return usage_error("%s is not an option of --transport sctp",
				   tcp_only);
	if (o->sctp)
		return 0;

	if (o->rtr_frame) {
		/* Seed 003 extends Rev 1; its S means "RtR frame follows". */
		if (o->rev >= 0 && o->rev != MPA_REV_1)
			return usage_error("--rtr-frame needs Rev 1");
		if (o->rtr || o->client_server)
			return usage_error("--rtr-frame excludes --rtr and "
					   "--client-server");
		o->rev = MPA_REV_1;
	}
	if (o->rev < 0)
		o->rev = MPA_REV_2;
	if (o->rev == MPA_REV_RDMAC) {
		/* Seed 002 Figure 1: RDMAC peers require markers and CRC. */
		if (o->no_crc)
			return usage_error("Rev 0 requires CRC");
		if (o->swap)
			return usage_error("--swap needs DDP/RDMAP version "
					   "1");
		o->markers_i2r = o->markers_r2i = true;
	}
	if (o->rtr && (o->rev != MPA_REV_2 || o->client_server))
		return usage_error("--rtr needs Rev 2 peer-to-peer");
	return 0;
}
