/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCM_IWCMCTL_H
#define IWCM_IWCMCTL_H

/*
 * iwcmctl commands.  Each takes the arguments after its name (argv[0] is
 * the command name) and returns the process exit status.
 */

/* decode.c: iwcmctl decode [-j] [--hex] [FILE|-] */
int cmd_decode(int argc, char **argv);

/* sample.c: iwcmctl sample [-o FILE] [options]: write a sample session */
int cmd_sample(int argc, char **argv);

#endif
