#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# examples/mpi-mesh/mpi_mesh on 4 ranks against a private iwcmd -d: MPI
# only exchanges the addresses, then every rank connects to every other
# at the same time on <iwcm/iwcm.h> (peer-to-peer, RTR) and runs RDMA
# Write, Read, FetchAdd and CmpSwap with each; every rank must report ok
# and iwcmd must count the 6 connections at both ends.  SKIP without
# Open MPI.
set -u
. "$srcdir/integ/daemon.sh"
prog="$top_builddir/examples/mpi-mesh/mpi_mesh"
# In an ASan build: Open MPI's own leaks are not ours.
. "$srcdir/integ/fabric_env.sh"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (Debian package openmpi-bin)"
	exit 77
fi
if [ ! -x "$prog" ]; then
	echo "SKIP: $prog not built (configure found no mpicc: libopenmpi-dev)"
	exit 77
fi
daemon_dir mesh
daemon_start
n=4
# mpirun's own transports stay local (shared memory and loopback TCP).
timeout 120 mpirun --allow-run-as-root --oversubscribe -n $n \
	--mca mpi_yield_when_idle 1 --mca btl self,vader,tcp -x IWCM_SOCKET ${LD_PRELOAD:+-x LD_PRELOAD} \
	${LD_PRELOAD:+-x ASAN_OPTIONS} "$prog" 127.0.0.1 \
	>"$dir/out" 2>&1
rc=$?
cat "$dir/out"
fails=0
[ $rc -eq 0 ] || {
	echo "FAIL: mpirun exited $rc"
	fails=1
}
oks=$(grep -c ': ok$' "$dir/out" || true)
[ "$oks" -eq $n ] || {
	echo "FAIL: $oks of $n ranks report ok"
	fails=1
}
est=$("$ctl" stats 2>/dev/null | awk '$1 == "established" { print $2 }')
[ "${est:-0}" -eq $((n * (n - 1))) ] || {
	echo "FAIL: iwcmd established ${est:-?} connection ends, want $((n * (n - 1)))"
	fails=1
}
rc=0
daemon_stop || rc=$?
[ $rc -eq 0 ] || {
	echo "FAIL: iwcmd exited $rc at SIGTERM"
	fails=1
}
[ $fails -eq 0 ] || { tail -40 "$dir/log"; exit 1; }
exit 0
