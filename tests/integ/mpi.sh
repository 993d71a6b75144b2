#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Open MPI over the libfabric provider iwcm: examples/mpi/mpi_check on 4
# ranks with the cm PML and the ofi MTL restricted to "iwcm;ofi_rxm"
# (one-sided through osc pt2pt over that PML), against a private iwcmd
# -d.  Every rank must report its checks ok, mpirun must exit 0, and
# iwcmd's handshake counter must rise by at least one connection per
# pair of ranks: the traffic went through iwcm.  SKIP without Open MPI.
set -u
. "$srcdir/integ/daemon.sh"
prog="$top_builddir/examples/mpi/mpi_check"
. "$srcdir/integ/fabric_env.sh"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (Debian package openmpi-bin)"
	exit 77
fi
if [ ! -x "$prog" ]; then
	echo "SKIP: $prog not built (configure found no mpicc: libopenmpi-dev)"
	exit 77
fi
daemon_dir mpi

daemon_start
handshakes() {
	"$ctl" stats 2>/dev/null | awk '$1 == "established" { print $2 }'
}
before=$(handshakes)
n=4
# Idle ranks yield: 4 of them share 2 cores with the rest of make check.
timeout 120 mpirun --allow-run-as-root --oversubscribe -n $n \
	--mca mpi_yield_when_idle 1 --mca pml cm --mca mtl ofi \
	--mca mtl_ofi_provider_include "iwcm;ofi_rxm" \
	--mca btl self --mca osc pt2pt \
	-x IWCM_SOCKET -x FI_PROVIDER_PATH ${LD_PRELOAD:+-x LD_PRELOAD} \
	${LD_PRELOAD:+-x ASAN_OPTIONS} "$prog" >"$dir/out" 2>&1
rc=$?
after=$(handshakes)
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
# Each pair of ranks connects at least once; iwcmd counts both ends.
want=$((n * (n - 1)))
if [ -z "$before" ] || [ -z "$after" ] ||
	[ $((after - before)) -lt $want ]; then
	echo "FAIL: iwcmd's handshakes rose from $before to $after (want +$want)"
	fails=1
else
	echo "iwcmd handshakes: $before -> $after"
fi
rc=0
daemon_stop || rc=$?
[ $rc -eq 0 ] || {
	echo "FAIL: iwcmd exited $rc at SIGTERM"
	fails=1
}
[ $fails -eq 0 ] || { tail -40 "$dir/log"; exit 1; }
exit 0
