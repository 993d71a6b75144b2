# SPDX-License-Identifier: BSD-2-Clause
DAEMON_LIB = $(top_builddir)/daemon/libiwcmd.la
DAEMON_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/daemon -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto
check_PROGRAMS += check_log
TESTS += check_log
check_log_SOURCES = check_log.c
check_log_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_log_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)
check_PROGRAMS += check_conf
TESTS += check_conf
check_conf_SOURCES = check_conf.c
check_conf_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_conf_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)

FUZZ_HARNESSES += fuzz_conf
fuzz_conf_SOURCES = fuzz/fuzz_conf.c $(FUZZ_MAIN)
fuzz_conf_CPPFLAGS = $(DAEMON_CPPFLAGS)
fuzz_conf_LDADD = $(DAEMON_LIB)
fuzz_conf_LDFLAGS = $(FUZZ_LINKFLAGS)

check_PROGRAMS += check_conn_fsm
TESTS += check_conn_fsm
check_conn_fsm_SOURCES = check_conn_fsm.c
check_conn_fsm_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_conn_fsm_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)
