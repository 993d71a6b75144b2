# SPDX-License-Identifier: BSD-2-Clause
DAEMON_LIB = $(top_builddir)/daemon/libiwcmd.la
DAEMON_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto
check_PROGRAMS += check_log
TESTS += check_log
check_log_SOURCES = check_log.c
check_log_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_log_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)
