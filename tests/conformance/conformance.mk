# SPDX-License-Identifier: BSD-2-Clause
#
# iwcmctl sample as a command, tshark 4.0 conformance of its captures (SKIP
# without tshark 4.0), and the iwcmctl decode acceptance test.  The
# scripts run $(top_builddir)/cli/iwcmctl and share conformance/lib.sh.
CONFORMANCE_TESTS = \
	conformance/sample_cli.sh \
	conformance/tshark_sample.sh \
	conformance/decode_sample.sh \
	conformance/tshark_sctp.sh
TESTS += $(CONFORMANCE_TESTS)
EXTRA_DIST += $(CONFORMANCE_TESTS) conformance/lib.sh
