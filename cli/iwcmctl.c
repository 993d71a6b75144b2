/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
/*
 * iwcmctl: the command table and main.  Each command parses its own
 * options and returns the exit status (0 fine, 1 findings, 2 usage or I/O
 * error).
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "iwcmctl.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *args;
	const char *help;
};

static const struct command commands[] = {
	{ "decode", cmd_decode, "[-jv] [--hex] [FILE|-]",
	  "decode MPA/DDP/RDMAP in a pcap/pcapng capture or hex text" },
	{ "sample", cmd_sample, "[-o FILE] [options]",
	  "write a synthetic iWARP session as a pcap capture" },
	{ "status", cmd_status, "", "iwcmd's version, uptime and counts" },
	{ "listeners", cmd_listeners, "", "the listening sockets" },
	{ "conns", cmd_conns, "", "connections being negotiated" },
	{ "show", cmd_show, "ID", "one connection in detail" },
	{ "stats", cmd_stats, "[-o text|json|openmetrics]",
	  "handshake counters (openmetrics: for Prometheus)" },
	{ "log", cmd_log, "verbose|brief", "iwcmd's log level" },
	{ "kill", cmd_kill, "ID", "abort a connection" },
	{ "listener", cmd_listener, "set PORT KEY=VALUE...",
	  "change the policy of the listener on PORT" },
	{ "listen", cmd_listen, "[ADDR:]PORT [options]",
	  "listen through iwcmd, answer requests, print the negotiation" },
	{ "probe", cmd_probe,
	  "HOST:PORT [--transport tcp|sctp] [--timeout MS] [--offers LIST]\n"
	  "        [--first-fpdu-delay MS]",
	  "negotiate once per offer, print the peer's answers" },
	{ "connect", cmd_connect, "HOST:PORT [--daemon] [options]",
	  "negotiate as a client (--daemon: by iwcmd itself, with the "
	  "frames)" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void usage(FILE *fp)
{
	size_t i;

	fputs("usage: iwcmctl [-h] [--version] [-s SOCKET] [-j] COMMAND "
	      "[ARGS]\n"
	      "  -s SOCKET  iwcmd's client socket (default $IWCM_SOCKET, "
	      "else\n"
	      "             /run/iwcm/iwcmd.sock); the admin socket is "
	      "beside it\n"
	      "  -j         JSON output\n"
	      "commands:\n",
	      fp);
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(fp, "  %s %s\n      %s\n", commands[i].name,
			commands[i].args, commands[i].help);
	fputs("'iwcmctl COMMAND --help' describes a command's options.\n", fp);
}

/* Run the command named by argv[1] (or a unique prefix of its name). */
int main(int argc, char **argv)
{
	const struct command *match = NULL, *prefix = NULL;
	size_t i, len;
	int nmatch = 0, ambiguous = 0;

	/* global options of the admin commands */
	while (argc > 1 && argv[1][0] == '-' && argv[1][1] != '-' &&
	       argv[1][1] != 'h' && argv[1][1]) {
		if (!strcmp(argv[1], "-j")) {
			ctl_json = true;
			argc--;
			argv++;
		} else if (!strcmp(argv[1], "-s") && argc > 2) {
			ctl_socket = argv[2];
			argc -= 2;
			argv += 2;
		} else {
			fprintf(stderr, "iwcmctl: unknown option '%s'\n",
				argv[1]);
			usage(stderr);
			return 2;
		}
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version")) {
		printf("iwcmctl %s\n", PACKAGE_VERSION);
		return 0;
	}
	/* a command name or a unique prefix of one (bgpctl style) */
	len = strlen(argv[1]);
	for (i = 0; i < N_COMMANDS; i++)
		if (!strcmp(commands[i].name, argv[1]))
			match = &commands[i];
	for (i = 0; i < N_COMMANDS && !match && len; i++) {
		if (strncmp(commands[i].name, argv[1], len))
			continue;
		if (nmatch++)
			ambiguous = 1;
		prefix = &commands[i];
	}
	if (ambiguous) {
		fprintf(stderr, "iwcmctl: ambiguous command '%s'\n", argv[1]);
		return 2;
	}
	if (!match)
		match = prefix;
	if (!match) {
		fprintf(stderr, "iwcmctl: unknown command '%s'\n", argv[1]);
		usage(stderr);
		return 2;
	}
	return match->fn(argc - 1, argv + 1);
}
