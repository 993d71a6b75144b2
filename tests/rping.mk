# SPDX-License-Identifier: BSD-2-Clause
# examples/iwcm-rping through the real iwcmd: against itself in every
# connection mode (integ/rping.sh), and against rping's messages as Linux
# siw puts them on the wire, played by a raw peer written with wire/
# (check_rping_wire).
check_PROGRAMS += check_rping_wire
TESTS += check_rping_wire integ/rping.sh integ/restart.sh
check_rping_wire_SOURCES = check_rping_wire.c daemon_harness.h
check_rping_wire_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_rping_wire_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_rping_wire_LDADD = $(DAEMON_IPC_LIBS) $(WIRE_LIB)
EXTRA_DIST += integ/rping.sh integ/restart.sh
