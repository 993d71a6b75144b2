# SPDX-License-Identifier: BSD-2-Clause
# The datapath protocol tests: libiwcm QPs over connections synthesized
# from handoff state (libclient/synth.h, linked from the convenience
# library), back to back and against the raw FPDU peer of dp_peer.[ch];
# dp_traffic drives the live loopback capture of integ/dp_capture.sh
# through a real iwcmd.
DP_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient
DP_CFLAGS = $(AM_CFLAGS) -pthread
DP_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	$(CHECK_LIBS) -lpthread
DP_SOURCES = dp_peer.c dp_peer.h
# The QP state machine's table, every (state, event) pair.
check_PROGRAMS += check_qp_fsm
TESTS += check_qp_fsm
check_qp_fsm_SOURCES = check_qp_fsm.c
check_qp_fsm_CPPFLAGS = $(DP_CPPFLAGS)
check_qp_fsm_CFLAGS = $(DP_CFLAGS)
check_qp_fsm_LDADD = $(DP_LDADD)
check_PROGRAMS += check_dp_ops check_dp_raw
TESTS += check_dp_ops check_dp_raw
check_dp_ops_SOURCES = check_dp_ops.c dp_ops_util.c dp_ops_util.h $(DP_SOURCES)
check_dp_ops_CPPFLAGS = $(DP_CPPFLAGS)
check_dp_ops_CFLAGS = $(DP_CFLAGS)
check_dp_ops_LDADD = $(DP_LDADD)
check_dp_raw_SOURCES = check_dp_raw.c dp_ops_util.c dp_ops_util.h $(DP_SOURCES)
check_dp_raw_CPPFLAGS = $(DP_CPPFLAGS)
check_dp_raw_CFLAGS = $(DP_CFLAGS)
check_dp_raw_LDADD = $(DP_LDADD)
check_PROGRAMS += check_dp_hostile
TESTS += check_dp_hostile
check_dp_hostile_SOURCES = check_dp_hostile.c dp_hostile_cases.c \
	dp_hostile.h $(DP_SOURCES)
check_dp_hostile_CPPFLAGS = $(DP_CPPFLAGS)
check_dp_hostile_CFLAGS = $(DP_CFLAGS)
check_dp_hostile_LDADD = $(DP_LDADD)
check_PROGRAMS += check_dp_order
TESTS += check_dp_order
check_dp_order_SOURCES = check_dp_order.c $(DP_SOURCES)
check_dp_order_CPPFLAGS = $(DP_CPPFLAGS)
check_dp_order_CFLAGS = $(DP_CFLAGS)
check_dp_order_LDADD = $(DP_LDADD)
# RDMAP/DDP over a second framing, in memory (libclient/framing.h).
check_PROGRAMS += check_framing
TESTS += check_framing
check_framing_SOURCES = check_framing.c framing_mem.c framing_mem.h \
	$(DP_SOURCES)
check_framing_CPPFLAGS = $(DP_CPPFLAGS) -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto $(LIBUV_CFLAGS)
check_framing_CFLAGS = $(DP_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_framing_LDADD = $(DP_LDADD)
check_PROGRAMS += dp_traffic
TESTS += integ/dp_capture.sh
EXTRA_DIST += integ/dp_capture.sh
dp_traffic_SOURCES = dp_traffic.c $(DP_SOURCES) daemon_harness.h
dp_traffic_CPPFLAGS = $(DAEMON_CPPFLAGS) -I$(top_srcdir)/include -I$(top_srcdir)/libclient
dp_traffic_CFLAGS = $(DP_CFLAGS) $(PROTOBUF_C_CFLAGS)
dp_traffic_LDADD = $(DP_LDADD) $(DAEMON_IPC_LIBS)
# The receive path against a hostile peer, under libFuzzer (a corpus
# replay in ordinary builds).
FUZZ_HARNESSES += fuzz_dp_rx
fuzz_dp_rx_SOURCES = fuzz/fuzz_dp_rx.c $(FUZZ_MAIN)
fuzz_dp_rx_CPPFLAGS = $(DP_CPPFLAGS)
fuzz_dp_rx_CFLAGS = $(DP_CFLAGS)
fuzz_dp_rx_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	-lpthread
fuzz_dp_rx_LDFLAGS = $(FUZZ_LINKFLAGS)
# RDMAP/DDP over DDP/SCTP's framing on a SEQPACKET socketpair.
check_PROGRAMS += check_framing_sctp
TESTS += check_framing_sctp
check_framing_sctp_SOURCES = check_framing_sctp.c $(DP_SOURCES)
check_framing_sctp_CPPFLAGS = $(DP_CPPFLAGS) -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto $(LIBUV_CFLAGS)
check_framing_sctp_CFLAGS = $(DP_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_framing_sctp_LDADD = $(DP_LDADD)
# Progress in the caller's thread and the progress thread as fallback.
check_PROGRAMS += check_cprog
TESTS += check_cprog
check_cprog_SOURCES = check_cprog.c $(DP_SOURCES)
check_cprog_CPPFLAGS = $(VERBS_CPPFLAGS)
check_cprog_CFLAGS = $(VERBS_CFLAGS)
check_cprog_LDADD = $(DP_LDADD)
# What libiwcm parses on a kernel SCTP association's own socket (the
# sequencer, recvmsg results, the handoff message), no kernel SCTP needed.
check_PROGRAMS += check_sctp_kseq
TESTS += check_sctp_kseq
check_sctp_kseq_SOURCES = check_sctp_kseq.c
check_sctp_kseq_CPPFLAGS = $(DP_CPPFLAGS) -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto
check_sctp_kseq_CFLAGS = $(DP_CFLAGS) $(PROTOBUF_C_CFLAGS)
check_sctp_kseq_LDADD = $(DP_LDADD)
# The same under libFuzzer (a corpus replay in ordinary builds).
FUZZ_HARNESSES += fuzz_sctp_kmsg
fuzz_sctp_kmsg_SOURCES = fuzz/fuzz_sctp_kmsg.c $(FUZZ_MAIN)
fuzz_sctp_kmsg_CPPFLAGS = $(DP_CPPFLAGS)
fuzz_sctp_kmsg_CFLAGS = $(DP_CFLAGS)
fuzz_sctp_kmsg_LDADD = $(top_builddir)/libclient/libiwcm_core.la $(WIRE_LIB) \
	-lpthread
fuzz_sctp_kmsg_LDFLAGS = $(FUZZ_LINKFLAGS)
# The handoff's SctpHandoff as libiwcm takes it.
FUZZ_HARNESSES += fuzz_sctp_handoff
fuzz_sctp_handoff_SOURCES = fuzz/fuzz_sctp_handoff.c $(FUZZ_MAIN)
fuzz_sctp_handoff_CPPFLAGS = $(DP_CPPFLAGS) -I$(top_srcdir)/proto \
	-I$(top_builddir)/proto
fuzz_sctp_handoff_CFLAGS = $(DP_CFLAGS) $(PROTOBUF_C_CFLAGS)
fuzz_sctp_handoff_LDADD = $(top_builddir)/libclient/libiwcm_core.la \
	$(WIRE_LIB) -lpthread
fuzz_sctp_handoff_LDFLAGS = $(FUZZ_LINKFLAGS)
