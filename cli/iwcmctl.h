/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_IWCMCTL_H
#define IWCM_IWCMCTL_H

/*
 * iwcmctl commands.  Each takes the arguments after its name (argv[0] is
 * the command name) and returns the process exit status.
 */
#include <stdbool.h>

/* decode.c: iwcmctl decode [-j] [--hex] [FILE|-] */
int cmd_decode(int argc, char **argv);

/* sample.c: iwcmctl sample [-o FILE] [options]: write a sample session */
int cmd_sample(int argc, char **argv);

/*
 * ctl.c: the admin commands, talking to iwcmd's admin socket.  The
 * global options -s SOCKET and -j (before the command) set these.
 */
extern const char *ctl_socket; /* -s: the client socket path */
extern bool ctl_json;	       /* -j */
int cmd_status(int argc, char **argv);
int cmd_listeners(int argc, char **argv);
int cmd_conns(int argc, char **argv);
int cmd_show(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_kill(int argc, char **argv);
int cmd_listener(int argc, char **argv);
/* probe.c */
int cmd_probe(int argc, char **argv);

/*
 * client.c: iwcmctl listen and connect, negotiating through iwcmd's
 * client socket with libiwcm; connect --daemon goes to ctl.c.
 */
struct cmopt;
int cmd_listen(int argc, char **argv);
int cmd_connect(int argc, char **argv);
struct iwcm_ctx;
struct iwcm_event;
struct iwcm_ctx *cli_open(const char *who);
int cli_event(struct iwcm_ctx *ctx, long long deadline, struct iwcm_event **ev);
long long cli_now_ms(void);

/* ctl.c: connect --daemon, iwcmd negotiating by itself (admin socket). */
int ctl_force_connect(const char *target, const struct cmopt *o);

#endif
