# SPDX-License-Identifier: BSD-2-Clause
# examples/p2p_pair (./build.sh demo) as two processes through iwcmd.
TESTS += integ/p2p_pair.sh
EXTRA_DIST += integ/p2p_pair.sh
