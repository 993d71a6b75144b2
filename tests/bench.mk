# SPDX-License-Identifier: BSD-2-Clause
# iwcm-bench end to end (bench/iwcm-bench and daemon/iwcmd are built
# before tests/): its usage, its JSON and its counts, never its speed.
TESTS += bench/smoke.sh
EXTRA_DIST += bench/smoke.sh
