# SPDX-License-Identifier: BSD-2-Clause
# The libfabric provider iwcm (fabric/libiwcm-fi.so) through libfabric
# over a real iwcmd (check_fabric), and fi_pingpong over it, on its own
# and under ofi_rxm (integ/fi_pingpong.sh).
check_PROGRAMS += check_fabric
TESTS += check_fabric integ/fi_pingpong.sh
check_fabric_SOURCES = check_fabric.c fabric_harness.h
check_fabric_CPPFLAGS = $(AM_CPPFLAGS) \
	-DIWCMD_PATH=\"$(abs_top_builddir)/daemon/iwcmd\" \
	-DFABRIC_LIBDIR=\"$(abs_top_builddir)/fabric/.libs\"
check_fabric_CFLAGS = $(AM_CFLAGS) $(LIBFABRIC_CFLAGS)
check_fabric_LDADD = $(LIBFABRIC_LIBS) $(CHECK_LIBS)
# what the daemon refuses reaches the EQ (IWCM_CTX_ASYNC_CM)
check_PROGRAMS += check_fabric_cm
TESTS += check_fabric_cm
check_fabric_cm_SOURCES = check_fabric_cm.c fabric_harness.h
check_fabric_cm_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_cm_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_cm_LDADD = $(check_fabric_LDADD)
EXTRA_DIST += integ/fi_pingpong.sh integ/fabric_env.sh
# fi_getinfo against libfabric's rules for hints: MR modes, orders,
# contexts, resource management, completion levels, CQ data
check_PROGRAMS += check_fabric_info
TESTS += check_fabric_info
check_fabric_info_SOURCES = check_fabric_info.c fabric_harness.h
check_fabric_info_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_info_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_info_LDADD = $(check_fabric_LDADD)
# local buffers without descriptors (no FI_MR_LOCAL offered), and RMA
# to a region the target has closed (RFC 5042 §5: a Terminate)
check_PROGRAMS += check_fabric_mr
TESTS += check_fabric_mr
check_fabric_mr_SOURCES = check_fabric_mr.c fabric_harness.h
check_fabric_mr_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_mr_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_mr_LDADD = $(check_fabric_LDADD)
# RDM endpoints of ofi_rxm over the provider: rendezvous reads into the
# iovecs of a receive (fi_readv)
check_PROGRAMS += check_fabric_rxm
TESTS += check_fabric_rxm
check_fabric_rxm_SOURCES = check_fabric_rxm.c fabric_harness.h
check_fabric_rxm_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_rxm_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_rxm_LDADD = $(check_fabric_LDADD)

# make check-fabtests: libfabric's own test suite, fabtests 1.17.0,
# against iwcm and iwcm;ofi_rxm next to tcp and tcp;ofi_rxm
# (fabtests/run.sh; fi_iwcm(7), CONFORMANCE).  Not part of make check:
# it builds fabtests once and runs for minutes.  Then, with fabtests
# built, bench/fabtests-compare.sh's smoke run (bench/
# fabtests_compare_smoke.sh: its table complete, never its speed).  A
# SKIP (exit 77: no fabtests tarball, no fi_info, no fi_pingpong) is
# success here, a failure of either is not.
EXTRA_DIST += fabtests/run.sh fabtests/fabtests_lib.sh
check-fabtests:
	@rc=0; top_srcdir='$(abs_top_srcdir)' \
		top_builddir='$(abs_top_builddir)' builddir='$(abs_builddir)' \
		$(SHELL) $(srcdir)/fabtests/run.sh || rc=$$?; \
	test $$rc -eq 77 && rc=0; \
	src=0; echo "== bench/fabtests-compare.sh, smoke"; \
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
		$(SHELL) $(srcdir)/bench/fabtests_compare_smoke.sh || src=$$?; \
	test $$src -eq 77 && src=0; \
	test $$rc -eq 0 && rc=$$src; exit $$rc
.PHONY: check-fabtests

# Open MPI over iwcm;ofi_rxm on 4 ranks (examples/mpi/mpi_check), and a
# 4-rank mesh on <iwcm/iwcm.h> with MPI as the address book
# (examples/mpi-mesh).  Both SKIP without Open MPI.
TESTS += integ/mpi.sh integ/mpi_mesh.sh integ/mpi_osc.sh
EXTRA_DIST += integ/mpi.sh integ/mpi_mesh.sh integ/mpi_osc.sh

# The endpoint's transition table (fabric/iwfi_ep_fsm.c) against its
# specification, every state x event pair; libfabric only for the log.
check_PROGRAMS += check_fabric_ep_fsm
TESTS += check_fabric_ep_fsm
check_fabric_ep_fsm_SOURCES = check_fabric_ep_fsm.c ../fabric/iwfi_ep_fsm.c
check_fabric_ep_fsm_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/fabric \
	-I$(top_srcdir)/include
check_fabric_ep_fsm_CFLAGS = $(AM_CFLAGS) $(LIBFABRIC_CFLAGS) -pthread
check_fabric_ep_fsm_LDADD = $(LIBFABRIC_LIBS) $(CHECK_LIBS) -lpthread
# An endpoint takes over the address of the passive endpoint that is its
# handle (fi_endpoint(3); libfabric's fi_msg_sockets)
check_PROGRAMS += check_fabric_addr
TESTS += check_fabric_addr
check_fabric_addr_SOURCES = check_fabric_addr.c fabric_harness.h
check_fabric_addr_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_addr_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_addr_LDADD = $(check_fabric_LDADD)
# The RDM endpoint's connection table (fabric/iwfi_rdm_fsm.c), every
# state x event pair
check_PROGRAMS += check_fabric_rdm_fsm
TESTS += check_fabric_rdm_fsm
check_fabric_rdm_fsm_SOURCES = check_fabric_rdm_fsm.c ../fabric/iwfi_rdm_fsm.c
check_fabric_rdm_fsm_CPPFLAGS = $(check_fabric_ep_fsm_CPPFLAGS)
check_fabric_rdm_fsm_CFLAGS = $(check_fabric_ep_fsm_CFLAGS)
check_fabric_rdm_fsm_LDADD = $(check_fabric_ep_fsm_LDADD)
# The provider's FI_EP_RDM endpoints: fi_getinfo for btl ofi's hints,
# address vectors, on-demand and simultaneous connects, RMA, atomics,
# a bad fi_addr, RMA to a closed region
check_PROGRAMS += check_fabric_rdm
TESTS += check_fabric_rdm
check_fabric_rdm_SOURCES = check_fabric_rdm.c fabric_harness.h fabric_rdm.h
check_fabric_rdm_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_rdm_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_rdm_LDADD = $(check_fabric_LDADD)
# Fetching and compare atomics of every integer width on both endpoint
# types, and a flushed one
check_PROGRAMS += check_fabric_atomic
TESTS += check_fabric_atomic
check_fabric_atomic_SOURCES = check_fabric_atomic.c fabric_harness.h \
	fabric_rdm.h
check_fabric_atomic_CPPFLAGS = $(check_fabric_CPPFLAGS)
check_fabric_atomic_CFLAGS = $(check_fabric_CFLAGS)
check_fabric_atomic_LDADD = $(check_fabric_LDADD)
