# SPDX-License-Identifier: BSD-2-Clause
# check_verbs: the libiwcm verbs objects, the RFC 5042 checks and the
# RFC 7306 arithmetic in isolation, and a socketpair smoke test of each
# operation, linked from libclient's objects (libiwcm_core.la).
check_PROGRAMS += check_verbs
TESTS += check_verbs
check_verbs_SOURCES = check_verbs.c
check_verbs_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient \
	-I$(top_srcdir)/proto -I$(top_builddir)/proto $(LIBUV_CFLAGS)
check_verbs_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
check_verbs_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	$(CHECK_LIBS) -lpthread
