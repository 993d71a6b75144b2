# SPDX-License-Identifier: BSD-2-Clause
# iwcm-bench end to end (bench/iwcm-bench and daemon/iwcmd are built
# before tests/): its usage, its JSON and its counts, never its speed.
TESTS += bench/smoke.sh
EXTRA_DIST += bench/smoke.sh
# bench/mpi-compare.sh and bench/mpi-rma-compare.sh, tiny: their usage
# errors and every row and ratio of their tables, never their speed
# (SKIP without Open MPI).
TESTS += bench/mpi_compare_smoke.sh
EXTRA_DIST += bench/mpi_compare_smoke.sh
# bench/fabtests-compare.sh, tiny, run by make check-fabtests
# (tests/fabric.mk) where fabtests are built, not by make check.
EXTRA_DIST += bench/fabtests_compare_smoke.sh
