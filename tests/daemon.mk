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

check_PROGRAMS += check_admission
TESTS += check_admission
check_admission_SOURCES = check_admission.c
check_admission_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/wire
check_admission_CFLAGS = $(AM_CFLAGS) $(LIBEVENT_CFLAGS)
check_admission_LDADD = $(DAEMON_LIB) $(top_builddir)/proto/libipc.la \
	$(top_builddir)/wire/libwire.la $(PROTOBUF_C_LIBS) $(LIBEVENT_LIBS) \
	$(SYSTEMD_LIBS) $(CHECK_LIBS)

check_PROGRAMS += check_idmap
TESTS += check_idmap
check_idmap_SOURCES = check_idmap.c
check_idmap_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_idmap_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)

check_PROGRAMS += check_conn_fsm
TESTS += check_conn_fsm
check_conn_fsm_SOURCES = check_conn_fsm.c
check_conn_fsm_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_conn_fsm_LDADD = $(DAEMON_LIB) $(CHECK_LIBS)

# The real iwcmd, started by the tests (daemon_harness.h).
DAEMON_IPC_LIBS = $(top_builddir)/proto/libipc.la $(PROTOBUF_C_LIBS) \
	$(CHECK_LIBS)
EXTRA_DIST += daemon_harness.h daemon_requests.h
check_PROGRAMS += check_daemon_control check_daemon_admin
TESTS += check_daemon_control check_daemon_admin
check_daemon_control_SOURCES = check_daemon_control.c daemon_harness.h \
	daemon_requests.h
check_daemon_control_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_daemon_control_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_daemon_control_LDADD = $(DAEMON_IPC_LIBS)
check_daemon_admin_SOURCES = check_daemon_admin.c daemon_harness.h \
	daemon_requests.h
check_daemon_admin_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_daemon_admin_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_daemon_admin_LDADD = $(DAEMON_IPC_LIBS)
# Tests that need root or systemd-socket-activate: each program exits 77
# (SKIP, with the reason) when the machine lacks it.
check_PROGRAMS += check_daemon_root check_daemon_sd
TESTS += check_daemon_root check_daemon_sd
check_daemon_root_SOURCES = check_daemon_root.c daemon_harness.h \
	daemon_requests.h
check_daemon_root_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_daemon_root_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_daemon_root_LDADD = $(DAEMON_IPC_LIBS)
check_daemon_sd_SOURCES = check_daemon_sd.c daemon_harness.h \
	daemon_requests.h
check_daemon_sd_CPPFLAGS = $(DAEMON_CPPFLAGS) \
	-DSYSTEMD_SOCKET_ACTIVATE=\"$(SYSTEMD_SOCKET_ACTIVATE)\"
check_daemon_sd_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_daemon_sd_LDADD = $(DAEMON_IPC_LIBS)

# The connection engine in-process against a raw MPA peer over TCP.
ENGINE_LDADD = $(DAEMON_LIB) $(top_builddir)/proto/libipc.la $(WIRE_LIB) \
	$(PROTOBUF_C_LIBS) $(LIBEVENT_LIBS) $(CHECK_LIBS)
ENGINE_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) $(LIBEVENT_CFLAGS)
EXTRA_DIST += engine_peer.h
check_PROGRAMS += check_engine_resp
TESTS += check_engine_resp
check_engine_resp_SOURCES = check_engine_resp.c engine_peer.c
check_engine_resp_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_engine_resp_CFLAGS = $(ENGINE_CFLAGS)
check_engine_resp_LDADD = $(ENGINE_LDADD)
check_PROGRAMS += check_engine_init
TESTS += check_engine_init
check_engine_init_SOURCES = check_engine_init.c engine_peer.c
check_engine_init_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_engine_init_CFLAGS = $(ENGINE_CFLAGS)
check_engine_init_LDADD = $(ENGINE_LDADD)
# ... and with peers of other generations (fallback, Rev 0, RtR frame).
check_PROGRAMS += check_engine_legacy
TESTS += check_engine_legacy
check_engine_legacy_SOURCES = check_engine_legacy.c engine_peer.c
check_engine_legacy_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_engine_legacy_CFLAGS = $(ENGINE_CFLAGS)
check_engine_legacy_LDADD = $(ENGINE_LDADD)
# ... and end to end through the real iwcmd (daemon_harness.h).
check_PROGRAMS += check_engine_daemon
TESTS += check_engine_daemon
check_engine_daemon_SOURCES = check_engine_daemon.c daemon_harness.h
check_engine_daemon_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_engine_daemon_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_engine_daemon_LDADD = $(DAEMON_IPC_LIBS) $(WIRE_LIB)

# iwcmctl's admin commands against the real daemon; the systemd units.
TESTS += integ/iwcmctl_admin.sh integ/systemd_verify.sh integ/metrics.sh
EXTRA_DIST += integ/iwcmctl_admin.sh integ/systemd_verify.sh integ/metrics.sh \
	integ/daemon.sh

# Every input of the daemon under libFuzzer: the connection engine as
# responder and initiator against a raw peer (fuzz/engine_driver.c), and
# the client and admin sockets through control.c (fuzz/ipc_driver.c).
FUZZ_DAEMON_LDADD = $(DAEMON_LIB) $(top_builddir)/proto/libipc.la \
	$(WIRE_LIB) $(PROTOBUF_C_LIBS) $(LIBEVENT_LIBS) $(USRSCTP_LIBS) \
	$(SYSTEMD_LIBS)
FUZZ_DAEMON_CFLAGS = $(AM_CFLAGS) $(PROTOBUF_C_CFLAGS) $(LIBEVENT_CFLAGS) \
	$(USRSCTP_CFLAGS)
EXTRA_DIST += fuzz/fuzz_util.h fuzz/engine_driver.h
FUZZ_HARNESSES += fuzz_engine_resp fuzz_engine_init
fuzz_engine_resp_SOURCES = fuzz/fuzz_engine_resp.c fuzz/engine_driver.c \
	$(FUZZ_MAIN)
fuzz_engine_resp_CPPFLAGS = $(DAEMON_CPPFLAGS)
fuzz_engine_resp_CFLAGS = $(FUZZ_DAEMON_CFLAGS)
fuzz_engine_resp_LDADD = $(FUZZ_DAEMON_LDADD)
fuzz_engine_resp_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_engine_init_SOURCES = fuzz/fuzz_engine_init.c fuzz/engine_driver.c \
	$(FUZZ_MAIN)
fuzz_engine_init_CPPFLAGS = $(DAEMON_CPPFLAGS)
fuzz_engine_init_CFLAGS = $(FUZZ_DAEMON_CFLAGS)
fuzz_engine_init_LDADD = $(FUZZ_DAEMON_LDADD)
fuzz_engine_init_LDFLAGS = $(FUZZ_LINKFLAGS)
EXTRA_DIST += fuzz/ipc_driver.h
FUZZ_HARNESSES += fuzz_ipc_client fuzz_ipc_admin
fuzz_ipc_client_SOURCES = fuzz/fuzz_ipc_client.c fuzz/ipc_driver.c \
	$(FUZZ_MAIN)
fuzz_ipc_client_CPPFLAGS = $(DAEMON_CPPFLAGS)
fuzz_ipc_client_CFLAGS = $(FUZZ_DAEMON_CFLAGS)
fuzz_ipc_client_LDADD = $(FUZZ_DAEMON_LDADD)
fuzz_ipc_client_LDFLAGS = $(FUZZ_LINKFLAGS)
fuzz_ipc_admin_SOURCES = fuzz/fuzz_ipc_admin.c fuzz/ipc_driver.c \
	$(FUZZ_MAIN)
fuzz_ipc_admin_CPPFLAGS = $(DAEMON_CPPFLAGS)
fuzz_ipc_admin_CFLAGS = $(FUZZ_DAEMON_CFLAGS)
fuzz_ipc_admin_LDADD = $(FUZZ_DAEMON_LDADD)
fuzz_ipc_admin_LDFLAGS = $(FUZZ_LINKFLAGS)

# loop.c: whether the daemon's loop sleeps (busy_poll_us).
check_PROGRAMS += check_loop
TESTS += check_loop
check_loop_SOURCES = check_loop.c
check_loop_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_loop_CFLAGS = $(ENGINE_CFLAGS)
check_loop_LDADD = $(ENGINE_LDADD)

# control.c in-process: when replies and events reach a client.
check_PROGRAMS += check_control
TESTS += check_control
check_control_SOURCES = check_control.c
check_control_CPPFLAGS = $(DAEMON_CPPFLAGS)
check_control_CFLAGS = $(ENGINE_CFLAGS)
check_control_LDADD = $(ENGINE_LDADD)
