# SPDX-License-Identifier: BSD-2-Clause
#
# iwcmctl decode: shell tests over the Linux siw captures in
# vectors/captures/ and over damaged, reordered and hex inputs, and the
# dissector fuzz harness, a live capture of DDP over SCTP through iwcmd
# (integ/sctp_capture.sh), and the golden output of every iwcmctl command
# (decode/golden.sh).  The shell tests need $(top_builddir)/cli/iwcmctl.

DECODE_TESTS = \
	decode/captures.sh \
	decode/damaged.sh \
	decode/reassembly.sh \
	decode/hex.sh \
	decode/links.sh \
	decode/usage.sh \
	decode/golden.sh \
	integ/sctp_capture.sh
TESTS += $(DECODE_TESTS)
EXTRA_DIST += $(DECODE_TESTS) decode/lib.sh \
	decode/golden/captures.txt decode/golden/samples.txt \
	decode/golden/usage.txt decode/golden/admin.txt \
	decode/golden/client.txt \
	vectors/captures/README.md \
	vectors/captures/iwcmd-rping-sctp.pcap \
	vectors/captures/siw-readbw-mpa1-crc.pcap \
	vectors/captures/siw-rping-default.pcap \
	vectors/captures/siw-rping-mpa1.pcap \
	vectors/captures/siw-rping-mpa2-p2p-writertr.pcap

# The decoder library (cli/libdissect.la) on its own; t_sample_sessions
# and a few others take their sessions from $(top_builddir)/cli/iwcmctl.
check_PROGRAMS += check_dissect
TESTS += check_dissect
check_dissect_SOURCES = check_dissect.c vectors/mpa_siw.h
check_dissect_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
check_dissect_LDADD = $(top_builddir)/cli/libdissect.la $(CHECK_LDADD)

# The SCTP side of the decoder: packets built byte by byte.
check_PROGRAMS += check_dissect_sctp
TESTS += check_dissect_sctp
check_dissect_sctp_SOURCES = check_dissect_sctp.c
check_dissect_sctp_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
check_dissect_sctp_LDADD = $(top_builddir)/cli/libdissect.la $(CHECK_LDADD)

FUZZ_HARNESSES += fuzz_dissect
fuzz_dissect_SOURCES = fuzz/fuzz_dissect.c $(FUZZ_MAIN)
fuzz_dissect_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/cli
fuzz_dissect_LDADD = $(top_builddir)/cli/libdissect.la $(FUZZ_LIBS)
fuzz_dissect_LDFLAGS = $(FUZZ_LINKFLAGS)
