# SPDX-License-Identifier: BSD-2-Clause
# libiwcm: the CM API against a fake daemon and end to end with iwcmd
# (check_libiwcm_cm, which needs daemon/iwcmd built first), the public
# header compiled alone as C and C++ (check_headers.sh), and the exported
# symbols against libiwcm.map (check_abi.sh); the take-once of a
# connection's socket under threads (check_conn_fd).
LIBIWCM = $(top_builddir)/libclient/libiwcm.la
check_PROGRAMS += check_libiwcm_cm
TESTS += check_libiwcm_cm check_headers.sh check_abi.sh
check_libiwcm_cm_SOURCES = check_libiwcm_cm.c
check_libiwcm_cm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient \
	-I$(top_srcdir)/proto -I$(top_builddir)/proto \
	-DIWCMD_PATH=\"$(abs_top_builddir)/daemon/iwcmd\"
check_libiwcm_cm_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
check_libiwcm_cm_LDADD = $(LIBIWCM) $(top_builddir)/proto/libipc.la \
	$(CHECK_LIBS) -lpthread
EXTRA_DIST += check_headers.sh check_abi.sh

# The socket of a connection is taken exactly once, whatever the threads
# (iwcm_create_qp() against iwcm_conn_release_fd()); libclient's objects.
check_PROGRAMS += check_conn_fd
TESTS += check_conn_fd
check_conn_fd_SOURCES = check_conn_fd.c
check_conn_fd_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include \
	-I$(top_srcdir)/libclient -I$(top_srcdir)/proto -I$(top_builddir)/proto
check_conn_fd_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
check_conn_fd_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	$(CHECK_LIBS) -lpthread
AM_TESTS_ENVIRONMENT += CC='$(CC)'; export CC;
