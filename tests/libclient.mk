# SPDX-License-Identifier: BSD-2-Clause
# libiwcm: the CM API against a fake daemon (check_libiwcm_cm and, for
# what goes wrong, check_libiwcm_cm_err; with IWCM_CTX_ASYNC_CM,
# check_libiwcm_cm_async; the fake in cm_fake.c) and end to
# end with iwcmd (check_libiwcm_e2e, which needs daemon/iwcmd built
# first), the public
# header compiled alone as C and C++ (check_headers.sh), and the exported
# symbols against libiwcm.map (check_abi.sh); the take-once of a
# connection's socket under threads (check_conn_fd).
LIBIWCM = $(top_builddir)/libclient/libiwcm.la
check_PROGRAMS += check_libiwcm_cm check_libiwcm_cm_err \
	check_libiwcm_cm_async check_libiwcm_e2e
TESTS += check_libiwcm_cm check_libiwcm_cm_err check_libiwcm_cm_async \
	check_libiwcm_e2e \
	check_headers.sh check_abi.sh
LIBIWCM_CM_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include \
	-I$(top_srcdir)/libclient -I$(top_srcdir)/proto -I$(top_builddir)/proto \
	-DIWCMD_PATH=\"$(abs_top_builddir)/daemon/iwcmd\"
LIBIWCM_CM_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) -pthread
LIBIWCM_CM_LDADD = $(LIBIWCM) $(top_builddir)/proto/libipc.la \
	$(CHECK_LIBS) -lpthread
check_libiwcm_cm_SOURCES = check_libiwcm_cm.c cm_fake.c cm_fake.h
check_libiwcm_cm_CPPFLAGS = $(LIBIWCM_CM_CPPFLAGS)
check_libiwcm_cm_CFLAGS = $(LIBIWCM_CM_CFLAGS)
check_libiwcm_cm_LDADD = $(LIBIWCM_CM_LDADD)
check_libiwcm_cm_err_SOURCES = check_libiwcm_cm_err.c cm_fake.c cm_fake.h
check_libiwcm_cm_err_CPPFLAGS = $(LIBIWCM_CM_CPPFLAGS)
check_libiwcm_cm_err_CFLAGS = $(LIBIWCM_CM_CFLAGS)
check_libiwcm_cm_err_LDADD = $(LIBIWCM_CM_LDADD)
check_libiwcm_cm_async_SOURCES = check_libiwcm_cm_async.c cm_fake.c \
	cm_fake.h
check_libiwcm_cm_async_CPPFLAGS = $(LIBIWCM_CM_CPPFLAGS)
check_libiwcm_cm_async_CFLAGS = $(LIBIWCM_CM_CFLAGS)
check_libiwcm_cm_async_LDADD = $(LIBIWCM_CM_LDADD)
check_libiwcm_e2e_SOURCES = check_libiwcm_e2e.c cm_fake.c cm_fake.h
check_libiwcm_e2e_CPPFLAGS = $(LIBIWCM_CM_CPPFLAGS)
check_libiwcm_e2e_CFLAGS = $(LIBIWCM_CM_CFLAGS)
check_libiwcm_e2e_LDADD = $(LIBIWCM_CM_LDADD)
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

# Adaptive polling: the window rule shared with iwcmd (proto/poll_adapt.c)
# and a context's window (libclient/ctx_poll.c), on libiwcm's objects,
# against the fake daemon too.
check_PROGRAMS += check_libiwcm_cm_poll
TESTS += check_libiwcm_cm_poll
check_libiwcm_cm_poll_SOURCES = check_libiwcm_cm_poll.c cm_fake.c cm_fake.h
check_libiwcm_cm_poll_CPPFLAGS = $(LIBIWCM_CM_CPPFLAGS)
check_libiwcm_cm_poll_CFLAGS = $(LIBIWCM_CM_CFLAGS)
check_libiwcm_cm_poll_LDADD = $(top_builddir)/libclient/libiwcm_core.la \
	$(top_builddir)/proto/libipc.la $(WIRE_LIB) $(CHECK_LIBS) -lpthread
