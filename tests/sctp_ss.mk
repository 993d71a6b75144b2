# SPDX-License-Identifier: BSD-2-Clause
# DDP/SCTP session control (wire/sctp_ss.c) and the connection setup
# decisions (wire/negotiate.c).
check_PROGRAMS += check_sctp_ss check_negotiate check_negotiate_peers
TESTS += check_sctp_ss check_negotiate check_negotiate_peers
check_sctp_ss_SOURCES = check_sctp_ss.c
check_sctp_ss_LDADD = $(CHECK_LDADD)
check_negotiate_SOURCES = check_negotiate.c negotiate_util.c negotiate_util.h
check_negotiate_LDADD = $(CHECK_LDADD)
check_negotiate_peers_SOURCES = check_negotiate_peers.c negotiate_util.c \
	negotiate_util.h
check_negotiate_peers_LDADD = $(CHECK_LDADD)

FUZZ_HARNESSES += fuzz_sctp_ss
fuzz_sctp_ss_SOURCES = fuzz/fuzz_sctp_ss.c $(FUZZ_MAIN)
fuzz_sctp_ss_LDADD = $(FUZZ_LIBS)
fuzz_sctp_ss_LDFLAGS = $(FUZZ_LINKFLAGS)

FUZZ_HARNESSES += fuzz_negotiate
fuzz_negotiate_SOURCES = fuzz/fuzz_negotiate.c $(FUZZ_MAIN)
fuzz_negotiate_LDADD = $(FUZZ_LIBS)
fuzz_negotiate_LDFLAGS = $(FUZZ_LINKFLAGS)
