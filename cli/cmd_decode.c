/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl decode: the command and its pcap/pcapng reader (libpcap).  The
 * frames go to the decoder library (decode.h), which does the rest.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <pcap/pcap.h>

#include "decode.h"
#include "dissect_sctp.h"
#include "iwcmctl.h"

static void decode_usage(FILE *fp)
{
	fputs("usage: iwcmctl decode [-jv] [--sctp-udp-port N] [FILE]\n"
	      "       iwcmctl decode [-jv] --hex [FILE|-]\n"
	      "  FILE         pcap or pcapng capture (default: standard "
	      "input)\n"
	      "      --sctp-udp-port N  SCTP over UDP to or from port N "
	      "(default 9899)\n"
	      "  -j, --json   one JSON object per line\n"
	      "  -v, --verbose  all payload octets and the raw PDUs\n"
	      "  -x, --hex    FILE is hex text: '>' lines initiator to "
	      "responder,\n"
	      "               '<' lines back, '#' comments, leading offsets "
	      "ignored\n",
	      fp);
}

static int decode_pcap(struct decode *dc, const char *path)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	pcap_t *pc;
	int lt, r;

	errbuf[0] = '\0';
	pc = pcap_open_offline(path, errbuf);
	if (!pc) {
		fprintf(stderr, "iwcmctl: decode: %s: %s\n", decode_input(dc),
			errbuf[0] ? errbuf : "cannot open");
		return -1;
	}
	lt = pcap_datalink(pc);
	if (!decode_link_supported(lt)) {
		const char *name = pcap_datalink_val_to_name(lt);

		fprintf(stderr,
			"iwcmctl: decode: %s: unsupported link type "
			"%d (%s)\n",
			decode_input(dc), lt, name ? name : "unknown");
		pcap_close(pc);
		return -1;
	}
	while ((r = pcap_next_ex(pc, &h, &data)) == 1) {
		/* libpcap guarantees caplen octets at data */
		decode_packet(dc, lt, data, h->caplen, h->len);
	}
	if (r == PCAP_ERROR) {
		const char *msg = pcap_geterr(pc);

		if (!strstr(msg, "truncated")) {
			fprintf(stderr, "iwcmctl: decode: %s: %s\n",
				decode_input(dc), msg);
			pcap_close(pc);
			return -1;
		}
		decode_input_event(dc, 1, "%s", msg);
	}
	pcap_close(pc);
	return 0;
}

/* iwcmctl decode [-jv] [--hex] [FILE|-]: decode a capture or hex text. */
int cmd_decode(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "hex", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ "sctp-udp-port", required_argument, NULL, 256 },
		{ NULL, 0, NULL, 0 },
	};
	long udp_port = SCTP_UDP_PORT_DEFAULT;
	char *end;
	struct out_sink out = { &output_text, stdout, 0 };
	const char *path = "-";
	struct decode *dc;
	bool hex = false;
	int ch, rc;

	optind = 0; /* full getopt reset: main may have used it */
	opterr = 0;
	while ((ch = getopt_long(argc, argv, "+jvxh", longopts, NULL)) != -1) {
		switch (ch) {
		case 'j':
			out.ops = &output_json;
			break;
		case 'v':
			out.flags |= OUT_VERBOSE;
			break;
		case 'x':
			hex = true;
			break;
		case 'h':
			decode_usage(stdout);
			return 0;
		case 256:
			errno = 0;
			udp_port = strtol(optarg, &end, 10);
			if (errno || end == optarg || *end || udp_port < 1 ||
			    udp_port > 65535) {
				fprintf(stderr,
					"iwcmctl: decode: bad --sctp-udp-port "
					"'%s' (1-65535)\n",
					optarg);
				decode_usage(stderr);
				return 2;
			}
			break;
		default:
			if (ch == ':' || (ch == '?' && optopt == 256))
				fprintf(stderr,
					"iwcmctl: decode: --sctp-udp-port "
					"needs a port\n");
			else if (optopt)
				fprintf(stderr,
					"iwcmctl: decode: unknown "
					"option -%c\n",
					optopt);
			else
				fprintf(stderr,
					"iwcmctl: decode: unknown "
					"option %s\n",
					argv[optind - 1]);
			decode_usage(stderr);
			return 2;
		}
	}
	argc -= optind;
	argv += optind;
	if (argc > 1) {
		fprintf(stderr, "iwcmctl: decode: too many arguments\n");
		decode_usage(stderr);
		return 2;
	}
	if (argc == 1)
		path = argv[0];

	dc = decode_new(&out, strcmp(path, "-") ? path : "<stdin>");
	if (!dc) {
		fprintf(stderr, "iwcmctl: decode: out of memory\n");
		return 2;
	}
	decode_set_sctp_udp_port(dc, (uint16_t)udp_port);
	if (hex) {
		FILE *fp = strcmp(path, "-") ? fopen(path, "r") : stdin;

		if (!fp) {
			fprintf(stderr, "iwcmctl: decode: %s: %s\n", path,
				strerror(errno));
			decode_free(dc);
			return 2;
		}
		rc = decode_hex(dc, fp);
		if (fp != stdin)
			fclose(fp);
	} else {
		rc = decode_pcap(dc, path);
	}
	if (rc < 0) {
		decode_free(dc);
		return 2;
	}
	rc = decode_finish(dc);
	decode_free(dc);
	if (fflush(stdout) == EOF || ferror(stdout)) {
		fprintf(stderr, "iwcmctl: decode: writing output: %s\n",
			strerror(errno));
		return 2;
	}
	return rc;
}
