# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The tshark options of every check that dissects MPA over TCP (sourced,
# not run: conformance/tshark_sample.sh, integ/dp_capture.sh,
# wireshark/lib.sh and the interop suite).
#
# MPA has no TCP port: tshark finds it by its heuristic, and by default
# tries heuristics only after the dissectors registered for the stream's
# ports.  A peer's ephemeral port may be another protocol's (48898 is
# AMS's: a siw initiator on it got its stream dissected as AMS, with no
# FPDU), so heuristics go first.
# shellcheck shell=sh disable=SC2034  # used by the scripts that source it
TSHARK_MPA_OPTS="-o tcp.try_heuristic_first:TRUE"
