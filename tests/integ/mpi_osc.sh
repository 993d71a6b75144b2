#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# MPI one-sided over the libfabric provider iwcm: examples/mpi/mpi_osc
# (Put, Get, Accumulate, Fetch_and_op, Compare_and_swap, and a
# passive-target epoch whose target makes no MPI call) on 2 and 4 ranks,
# against a private iwcmd -d.  Every rank must report ok and the
# provider's endpoints must report at close (FI_LOG_LEVEL=info) what
# they posted: "posted S Sends, W RDMA Writes, R RDMA Read Requests,
# A atomics".
#
#  - osc pt2pt over the cm PML and the ofi MTL on "iwcm;ofi_rxm", as
#    tests/integ/mpi.sh: one-sided operations go as messages, Sends > 0.
#  - osc rdma over Open MPI's btl ofi on the provider's own FI_EP_RDM
#    endpoint (btl ofi refuses every provider layered on ofi_rxm:
#    opal/mca/btl/ofi/btl_ofi_component.c, validate_info(), Open MPI 4.1
#    and 5.0).  The RDM endpoint is one-sided, so btl ofi runs in its
#    default mode (RMA and atomics) and the pml's messages go over the
#    TCP BTL: --mca btl self,tcp,ofi, on loopback only (the TCP BTL
#    takes every interface, and one that comes and goes meanwhile
#    fails its connects).  The run must show RDMA Writes,
#    Read Requests and atomics, and the sleeping target must see the
#    epoch's data (--expect-rdma).  Without that endpoint (fi_info)
#    the test fails.
#  - the 32-bit atomics (--narrow) over both, with Open MPI's default
#    accumulate settings: over osc rdma, btl ofi hands 32-bit
#    MPI_Accumulate and MPI_Fetch_and_op to the provider as 32-bit
#    fetching atomics, each one RFC 7306 atomic, which the endpoints'
#    "of the atomics, F fetching and C compare ones on a field narrower
#    than 8 octets" lines must show: F is 2 per rank but rank 0.  Open
#    MPI 4.1's osc rdma never hands it a 32-bit compare-and-swap (it
#    looks for the 32-bit flag in btl_flags, not btl_atomic_flags:
#    MPI_Compare_and_swap on MPI_INT32_T goes as a Read and a Write
#    under its accumulate lock), so C is printed, not required.  The
#    bitwise ones (--bitwise) run over osc pt2pt only: Open MPI 4.1's
#    btl ofi aborts on them by itself, whatever the provider
#    (fi_iwcm(7), "MPI one-sided").
#
# SKIP without Open MPI.
set -u
. "$srcdir/integ/daemon.sh"
prog="$top_builddir/examples/mpi/mpi_osc"
. "$srcdir/integ/fabric_env.sh"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (Debian package openmpi-bin)"
	exit 77
fi
if [ ! -x "$prog" ]; then
	echo "SKIP: $prog not built (configure found no mpicc: libopenmpi-dev)"
	exit 77
fi
daemon_dir mpi_osc
daemon_start

fails=0
fail() {
	echo "FAIL: $*"
	fails=1
}

# The sum of one field over the endpoints' "posted ..." lines of a run.
posted() {
	sed -n "s/.*ep 0x[0-9a-f]*: posted \([0-9]*\) Sends, \([0-9]*\) RDMA Writes, \([0-9]*\) RDMA Read Requests, \([0-9]*\) atomics.*/\\$2/p" \
		"$1" | awk '{ s += $1 } END { print s + 0 }'
}

# The sum of one field of the endpoints' "of the atomics, ..." lines.
narrow() {
	sed -n "s/.*ep 0x[0-9a-f]*: of the atomics, \([0-9]*\) fetching and \([0-9]*\) compare ones.*/\\$2/p" \
		"$1" | awk '{ s += $1 } END { print s + 0 }'
}

# run NAME N ARGS...: mpirun of mpi_osc on N ranks with the MCA flags
# ARGS; checks that every rank says ok; leaves its output in
# $dir/NAME.out and the counters in sends, writes, reads, atomics.
run() {
	name=$1
	n=$2
	shift 2
	# Idle ranks yield: they share 2 cores with the rest of make check.
	FI_LOG_LEVEL=info timeout 180 mpirun --allow-run-as-root \
		--oversubscribe -n "$n" --mca mpi_yield_when_idle 1 "$@" \
		-x IWCM_SOCKET -x FI_PROVIDER_PATH -x FI_LOG_LEVEL \
		${LD_PRELOAD:+-x LD_PRELOAD} ${LD_PRELOAD:+-x ASAN_OPTIONS} \
		"$prog" $extra >"$dir/$name.out" 2>&1
	rc=$?
	grep '^rank ' "$dir/$name.out"
	[ $rc -eq 0 ] || fail "$name: mpirun exited $rc"
	oks=$(grep -c ': ok$' "$dir/$name.out" || true)
	[ "$oks" -eq "$n" ] || {
		fail "$name: $oks of $n ranks report ok"
		grep -v libfabric "$dir/$name.out" | tail -20
	}
	eps=$(grep -c 'RDMA Read Requests' "$dir/$name.out" || true)
	nfetch=$(narrow "$dir/$name.out" 1)
	ncompare=$(narrow "$dir/$name.out" 2)
	sends=$(posted "$dir/$name.out" 1)
	writes=$(posted "$dir/$name.out" 2)
	reads=$(posted "$dir/$name.out" 3)
	atomics=$(posted "$dir/$name.out" 4)
	echo "$name: $eps endpoints posted $sends Sends, $writes RDMA Writes, $reads RDMA Read Requests, $atomics atomics ($nfetch fetching and $ncompare compare ones narrower than 8 octets)"
	! grep 'atomic.*not carried' "$dir/$name.out" ||
		fail "$name: an atomic the provider does not carry"
	[ "$eps" -gt 0 ] || fail "$name: no endpoint reported its counters"
}

for n in 2 4; do
	extra="--narrow --bitwise"
	run "pt2pt-$n" $n --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "iwcm;ofi_rxm" \
		--mca btl self --mca osc pt2pt
	[ "$sends" -gt 0 ] || fail "pt2pt-$n: no Sends posted"
done

# btl ofi needs FI_EP_RDM from the provider itself.
if fi_info -p iwcm -t FI_EP_RDM 2>/dev/null | grep -q '^provider: iwcm$'; then
	for n in 2 4; do
		extra=--expect-rdma
		run "rdma-$n" $n --mca pml ob1 --mca btl self,tcp,ofi \
			--mca btl_tcp_if_include 127.0.0.0/8 \
			--mca btl_ofi_provider_include iwcm --mca osc rdma
		[ "$writes" -gt 0 ] || fail "rdma-$n: no RDMA Writes"
		[ "$reads" -gt 0 ] || fail "rdma-$n: no RDMA Read Requests"
		[ "$atomics" -gt 0 ] || fail "rdma-$n: no atomics"
		extra="--expect-rdma --narrow"
		run "rdma-narrow-$n" $n --mca pml ob1 --mca btl self,tcp,ofi \
			--mca btl_tcp_if_include 127.0.0.0/8 \
			--mca btl_ofi_provider_include iwcm --mca osc rdma
		[ "$reads" -gt 0 ] || fail "rdma-narrow-$n: no RDMA Read Requests"
		[ "$atomics" -gt 0 ] || fail "rdma-narrow-$n: no atomics"
		# One 32-bit MPI_Accumulate and one MPI_Fetch_and_op from
		# each rank but 0 (--expect-rdma), each one atomic.
		[ "$nfetch" -eq $((2 * (n - 1))) ] ||
			fail "rdma-narrow-$n: $nfetch 32-bit fetching atomics," \
				"want $((2 * (n - 1)))"
	done
else
	fail "osc rdma over iwcm not run: fi_info lists no FI_EP_RDM" \
		"endpoint of the provider iwcm"
fi

rc=0
daemon_stop || rc=$?
[ $rc -eq 0 ] || fail "iwcmd exited $rc at SIGTERM"
[ $fails -eq 0 ] || {
	tail -40 "$dir/log"
	exit 1
}
exit 0
