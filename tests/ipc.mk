# SPDX-License-Identifier: BSD-2-Clause
check_PROGRAMS += check_ipc
TESTS += check_ipc
check_ipc_SOURCES = check_ipc.c
check_ipc_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/proto -I$(top_builddir)/proto
check_ipc_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_ipc_LDADD = $(top_builddir)/proto/libipc.la $(CHECK_LIBS)
