# SPDX-License-Identifier: BSD-2-Clause
# libiwcm: the CM API against a fake daemon and end to end with iwcmd
# (check_libiwcm_cm, which needs daemon/iwcmd built first), the public
# header compiled alone as C and C++ (check_headers.sh), and the exported
# symbols against libiwcm.map (check_abi.sh).
LIBIWCM = $(top_builddir)/libclient/libiwcm.la
check_PROGRAMS += check_libiwcm_cm
TESTS += check_libiwcm_cm check_headers.sh check_abi.sh
check_libiwcm_cm_SOURCES = check_libiwcm_cm.c
check_libiwcm_cm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/include -I$(top_srcdir)/libclient \
	-I$(top_srcdir)/proto -I$(top_builddir)/proto \
	-DIWCMD_PATH=\"$(abs_top_builddir)/daemon/iwcmd\"
check_libiwcm_cm_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
check_libiwcm_cm_LDADD = $(LIBIWCM) $(top_builddir)/proto/libipc.la \
	$(CHECK_LIBS) -lpthread
EXTRA_DIST += check_headers.sh check_abi.sh
AM_TESTS_ENVIRONMENT += CC='$(CC)'; export CC;
