/* SPDX-License-Identifier: BSD-2-Clause */
/* Copyright (c) 2026 The iwcm authors */
#ifndef IWCMD_SCTP_KERNEL_H
#define IWCMD_SCTP_KERNEL_H

/*
 * What only the kernel's SCTP can do (sctp_kernel.c): give an
 * association's socket away.  A one-to-one style socket (RFC 6458 §4) is
 * the association itself, so the owner of its only session can carry it
 * on without iwcmd, as it does a TCP connection (docs/sctp.md).
 */
struct sctp_sock;

/*
 * The socket of s, an association of the kernel's stack that is up, for
 * the caller to pass a copy of (dup(2), SCM_RIGHTS); the stack keeps it
 * until sctp_stack_close(s, false), which then closes only iwcmd's copy
 * (the association lives on in the other).  -1 with errno EINVAL for any
 * other socket.
 */
int sctp_kernel_fd(const struct sctp_sock *s);

#endif
