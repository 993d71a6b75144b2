# SPDX-License-Identifier: BSD-2-Clause
# iwcmd's SCTP side: the stack interface over usrsctp on loopback
# (daemon/sctp_stack.c, sctp_usrsctp.c).
EXTRA_DIST += udp_port.h
check_PROGRAMS += check_sctp_stack
TESTS += check_sctp_stack
check_sctp_stack_SOURCES = check_sctp_stack.c
check_sctp_stack_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/wire
check_sctp_stack_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS) $(USRSCTP_CFLAGS)
# a seam: how often the loop asks a socket's readiness (test_idle_assocs)
check_sctp_stack_LDFLAGS = -Wl,--wrap=usrsctp_get_events
check_sctp_stack_LDADD = $(DAEMON_LIB) $(WIRE_LIB) $(LIBEVENT_LIBS) $(USRSCTP_LIBS) \
	$(CHECK_LIBS)

# sctp_conn.c with clients closed while they are told something (as
# control.c closes one whose queue is full).
check_PROGRAMS += check_sctp_conn
TESTS += check_sctp_conn
check_sctp_conn_SOURCES = check_sctp_conn.c
check_sctp_conn_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_conn_CFLAGS = $(ENGINE_CFLAGS)
check_sctp_conn_LDADD = $(ENGINE_LDADD)

# The same interface over the kernel's SCTP (sctp_kernel.c): SKIP (77)
# where the kernel has none; the interop suite runs it in its guest.
if HAVE_KERNEL_SCTP
check_PROGRAMS += check_sctp_kernel
TESTS += check_sctp_kernel
check_sctp_kernel_SOURCES = check_sctp_kernel.c
check_sctp_kernel_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_kernel_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
check_sctp_kernel_LDADD = $(DAEMON_LIB) $(WIRE_LIB) $(LIBEVENT_LIBS) \
	$(USRSCTP_LIBS) \
	$(CHECK_LIBS)
endif

# The DDP Stream Session FSM, every state x event (sctp_session_fsm.c).
check_PROGRAMS += check_sctp_session
TESTS += check_sctp_session
check_sctp_session_SOURCES = check_sctp_session.c
check_sctp_session_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_session_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)

# Sessions on one association against a recording transport and owner
# (sctp_session.c).
check_PROGRAMS += check_sctp_assoc
TESTS += check_sctp_assoc
check_sctp_assoc_SOURCES = check_sctp_assoc.c
check_sctp_assoc_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/wire
check_sctp_assoc_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
check_sctp_assoc_LDADD = $(DAEMON_LIB) $(WIRE_LIB) $(LIBEVENT_LIBS) \
	$(CHECK_LIBS)

# The relay between a session and its owner (sctp_relay.c) on its own
# loop: batches, messages the stack refuses, bad ones, the owner's close.
check_PROGRAMS += check_sctp_relay
TESTS += check_sctp_relay
check_sctp_relay_SOURCES = check_sctp_relay.c
check_sctp_relay_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_relay_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
check_sctp_relay_LDADD = $(DAEMON_LIB) $(LIBEVENT_LIBS) $(CHECK_LIBS)

FUZZ_HARNESSES += fuzz_sctp_session
fuzz_sctp_session_SOURCES = fuzz/fuzz_sctp_session.c $(FUZZ_MAIN)
fuzz_sctp_session_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/wire
fuzz_sctp_session_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
fuzz_sctp_session_LDADD = $(DAEMON_LIB) $(FUZZ_LIBS) $(LIBEVENT_LIBS)
fuzz_sctp_session_LDFLAGS = $(FUZZ_LINKFLAGS)

# The association table of both stacks (sctp_assoc.c): notifications of
# either stack's constants and events in any order.
FUZZ_HARNESSES += fuzz_sctp_assoc
fuzz_sctp_assoc_SOURCES = fuzz/fuzz_sctp_assoc.c $(FUZZ_MAIN)
fuzz_sctp_assoc_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/wire
fuzz_sctp_assoc_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
fuzz_sctp_assoc_LDADD = $(DAEMON_LIB) $(FUZZ_LIBS) $(LIBEVENT_LIBS)
fuzz_sctp_assoc_LDFLAGS = $(FUZZ_LINKFLAGS)

# End to end through the real iwcmd over usrsctp on loopback.
check_PROGRAMS += check_sctp_daemon
TESTS += check_sctp_daemon
check_sctp_daemon_SOURCES = check_sctp_daemon.c daemon_harness.h \
	daemon_requests.h sctp_daemon_util.h
check_sctp_daemon_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_daemon_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) \
	$(USRSCTP_CFLAGS)
check_sctp_daemon_LDADD = $(DAEMON_IPC_LIBS) $(USRSCTP_LIBS)

# The same against hostile peers: a usrsctp stack of the test process.
check_PROGRAMS += check_sctp_daemon_peer
TESTS += check_sctp_daemon_peer
check_sctp_daemon_peer_SOURCES = check_sctp_daemon_peer.c daemon_harness.h \
	daemon_requests.h sctp_daemon_util.h
check_sctp_daemon_peer_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_sctp_daemon_peer_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) \
	$(USRSCTP_CFLAGS)
check_sctp_daemon_peer_LDADD = $(DAEMON_IPC_LIBS) $(USRSCTP_LIBS)
