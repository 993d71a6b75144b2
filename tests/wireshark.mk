# SPDX-License-Identifier: BSD-2-Clause
#
# The Wireshark plugin (wireshark/): tshark with the build tree's
# iwcm.so against iwcmctl decode -j on captures and samples
# (wireshark/compare.sh), and a short fuzz run of tshark over mutated
# captures (wireshark/fuzz.sh; `make fuzz-wireshark` runs a long one).
# Both SKIP when the plugin is not built.
WIRESHARK_TESTS = wireshark/compare.sh wireshark/fuzz.sh
TESTS += $(WIRESHARK_TESTS)
EXTRA_DIST += $(WIRESHARK_TESTS) wireshark/lib.sh wireshark/records.awk \
	wireshark/json_records.awk wireshark/pdml_records.awk \
	wireshark/regress/tcp-seq-2p31-behind.pcap

if HAVE_WIRESHARK
WS_PLUGIN_DIR = $(abs_top_builddir)/wireshark/plugins
else
WS_PLUGIN_DIR =
endif

# The long run, reported by hand: FUZZ_SECONDS=N (default 1800).
fuzz-wireshark:
	$(AM_TESTS_ENVIRONMENT) FUZZ_SECONDS=$${FUZZ_SECONDS:-1800} \
		$(SHELL) $(srcdir)/wireshark/fuzz.sh
.PHONY: fuzz-wireshark

# The fuzz run's mutator (a test tool, not installed).
check_PROGRAMS += pcap_mutate
pcap_mutate_SOURCES = wireshark/pcap_mutate.c
pcap_mutate_LDADD = $(WIRE_LIB)
