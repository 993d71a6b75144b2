# SPDX-License-Identifier: BSD-2-Clause
# Integration through the real iwcmd (daemon_harness.h): the matrix of
# negotiations between two client processes, hostile raw peers and
# misbehaving clients, and two daemons in two network namespaces.
INTEG_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient
INTEG_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
EXTRA_DIST += integ_util.h
check_PROGRAMS += check_integ_matrix
TESTS += check_integ_matrix
check_integ_matrix_SOURCES = check_integ_matrix.c integ_matrix.h \
	integ_matrix_rows.c integ_util.h daemon_harness.h
check_integ_matrix_CPPFLAGS = $(INTEG_CPPFLAGS)
check_integ_matrix_CFLAGS = $(INTEG_CFLAGS)
check_integ_matrix_LDADD = $(top_builddir)/libclient/libiwcm.la \
	$(DAEMON_IPC_LIBS) $(WIRE_LIB)
check_PROGRAMS += check_integ_hostile check_integ_flood
TESTS += check_integ_hostile check_integ_flood
check_integ_hostile_SOURCES = check_integ_hostile.c integ_hs.h \
	integ_util.h daemon_harness.h
check_integ_hostile_CPPFLAGS = $(INTEG_CPPFLAGS)
check_integ_hostile_CFLAGS = $(INTEG_CFLAGS)
check_integ_hostile_LDADD = $(check_integ_matrix_LDADD)
# Floods of half-open connections, which SKIPs where RLIMIT_NOFILE
# cannot be raised that far.
check_integ_flood_SOURCES = check_integ_flood.c integ_hs.h integ_util.h \
	daemon_harness.h
check_integ_flood_CPPFLAGS = $(INTEG_CPPFLAGS)
check_integ_flood_CFLAGS = $(INTEG_CFLAGS)
check_integ_flood_LDADD = $(check_integ_matrix_LDADD)
# Two daemons in two network namespaces (root and iproute2, else SKIP).
TESTS += integ/netns_pair.sh
EXTRA_DIST += integ/netns_pair.sh
# tcp_user_timeout_ms from iwcmd.conf, the listener and the connect.
TESTS += integ/tcp_user_timeout.sh
EXTRA_DIST += integ/tcp_user_timeout.sh
# The multi-host cases (./build.sh hosts, not make check: hosts/README.md).
EXTRA_DIST += hosts/README.md hosts/lib.sh hosts/agent.sh hosts/run.sh \
	hosts/cases_mpi.sh hosts/cases_faults.sh hosts/cases_loss.sh \
	hosts/mpi_wireup.c hosts/tcp_echo.c
