# SPDX-License-Identifier: BSD-2-Clause
# check_verbs*: the libiwcm verbs objects, the RFC 5042 checks and the
# RFC 7306 arithmetic in isolation, and two QPs over a socketpair
# (verbs_pair.c): each operation, closing, the framing, deregistration
# and the ibverbs return values; linked from libclient's objects
# (libiwcm_core.la).
VERBS_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient \
	-I$(top_srcdir)/proto -I$(top_builddir)/proto $(LIBUV_CFLAGS)
VERBS_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
VERBS_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	$(CHECK_LIBS) -lpthread
check_PROGRAMS += check_verbs check_verbs_close check_verbs_dp check_verbs_abi
TESTS += check_verbs check_verbs_close check_verbs_dp check_verbs_abi
check_verbs_SOURCES = check_verbs.c verbs_pair.c verbs_pair.h
check_verbs_CPPFLAGS = $(VERBS_CPPFLAGS)
check_verbs_CFLAGS = $(VERBS_CFLAGS)
check_verbs_LDADD = $(VERBS_LDADD)
check_verbs_close_SOURCES = check_verbs_close.c verbs_pair.c verbs_pair.h
check_verbs_close_CPPFLAGS = $(VERBS_CPPFLAGS)
check_verbs_close_CFLAGS = $(VERBS_CFLAGS)
check_verbs_close_LDADD = $(VERBS_LDADD)
check_verbs_dp_SOURCES = check_verbs_dp.c verbs_pair.c verbs_pair.h
check_verbs_dp_CPPFLAGS = $(VERBS_CPPFLAGS)
check_verbs_dp_CFLAGS = $(VERBS_CFLAGS)
check_verbs_dp_LDADD = $(VERBS_LDADD)
check_verbs_abi_SOURCES = check_verbs_abi.c verbs_pair.c verbs_pair.h
check_verbs_abi_CPPFLAGS = $(VERBS_CPPFLAGS)
check_verbs_abi_CFLAGS = $(VERBS_CFLAGS)
check_verbs_abi_LDADD = $(VERBS_LDADD)
