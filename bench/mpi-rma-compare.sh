#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/mpi-rma-compare.sh [-r RUNS] [-b BUSY] [-s MIN_SIZE] [-m MAX_SIZE]
#                          [-i ITERS] [-w WINDOWS]:
# bench/mpi_rma (MPI one-sided latency and bandwidth, osu_put_latency,
# osu_get_latency, osu_put_bw and osu_get_bw shapes) between two ranks
# over:
#   iwcm-rdma   --mca pml ob1 --mca btl self,tcp,ofi --mca osc rdma,
#               provider "iwcm": btl ofi over the provider's own
#               FI_EP_RDM endpoint (one-sided: RMA and atomics; the
#               pml's messages over the TCP BTL).  Open MPI's btl ofi
#               refuses every provider layered on ofi_rxm (validate_info()
#               in opal/mca/btl/ofi/btl_ofi_component.c)
#   iwcm-pt2pt  --mca pml cm --mca mtl ofi, "iwcm;ofi_rxm", --mca osc
#               pt2pt (libiwcm-fi.so through a private iwcmd)
#   tcp-pt2pt   the same over "tcp;ofi_rxm" (libfabric's tcp), which btl
#               ofi refuses for the same reason, so osc pt2pt
#   net-rdma    osc rdma over btl ofi on libfabric's "net" provider, a TCP
#               provider with FI_EP_RDM of its own: one-sided as RMA
#               through the same Open MPI code iwcm-rdma would take
# then one table per measure with iwcm's ratios to the others.  Latency
# ratio > 1: iwcm is slower; bandwidth ratio > 1: iwcm is faster.  Run
# from the build tree (it finds daemon/iwcmd, fabric/.libs and
# bench/mpi_rma there) or set IWCMD, FI_PROVIDER_PATH and MPI_RMA.
#   -r RUNS     run each transport RUNS times, alternating (every
#               transport once, then again), and report the median of
#               each cell (default 1)
#   -b BUSY     start BUSY busy loops (nice 0) beside the ranks for the
#               whole run: cores shared with other busy processes
#               (default 0)
#   -s, -m, -i  mpi_rma's sizes and latency iterations (1 to 4 MiB, 200)
#   -w WINDOWS  mpi_rma's timed bandwidth windows of 64 operations per
#               size (default 10)
# A usage error exits 2 naming the valid form; a transport that fails
# exits 1 with its output; no mpirun or no mpi_rma, 77.
set -eu
# shellcheck disable=SC2034 # prog and usage: bench_lib.sh's messages
prog=mpi-rma-compare.sh
usage="mpi-rma-compare.sh [-r RUNS] [-b BUSY] [-s MIN_SIZE] [-m MAX_SIZE] [-i ITERS] [-w WINDOWS]"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"

runs=1
busy=0
# the sizes mpi_rma runs: 1, 4, 16, ... from -s (default 1) up to -m
# (default 4 MiB)
min=1
max=4194304
ARGS=
while [ $# -gt 0 ]; do
	case "$1" in
	-r | -b | -s | -m | -i | -w)
		[ $# -ge 2 ] || bench_usage "$1 wants a value"
		case "$1" in
		-b) bench_count "$1" "$2" 0 ;;
		*) bench_count "$1" "$2" ;;
		esac
		case "$1" in
		-r) runs=$2 ;;
		-b) busy=$2 ;;
		-s) min=$2 ARGS="$ARGS -s $2" ;;
		-m) max=$2 ARGS="$ARGS -m $2" ;;
		*) ARGS="$ARGS $1 $2" ;;
		esac
		shift
		;;
	*) bench_usage "unknown option '$1'" ;;
	esac
	shift
done
nsizes=0
s=1
while [ "$s" -le "$max" ]; do
	[ "$s" -ge "$min" ] && nsizes=$((nsizes + 1))
	s=$((s * 4))
done
[ "$nsizes" -gt 0 ] || bench_usage "no size from -s $min to -m $max"

top=${top_builddir:-$(cd "$here/.." && pwd)}
[ -x "$top/daemon/iwcmd" ] || top=$(pwd)
IWCMD=${IWCMD:-$top/daemon/iwcmd}
MPI_RMA=${MPI_RMA:-$top/bench/mpi_rma}
FI_PROVIDER_PATH=${FI_PROVIDER_PATH:-$top/fabric/.libs}
export FI_PROVIDER_PATH
for f in "$IWCMD" "$MPI_RMA"; do
	[ -x "$f" ] || { echo "SKIP: not found: $f (build first, with Open MPI)" >&2; exit 77; }
done
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (openmpi-bin)" >&2; exit 77; }

dir=$(mktemp -d /tmp/iwcm-mpirma.XXXXXX)
IWCM_SOCKET=$dir/iwcmd.sock
export IWCM_SOCKET
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; bench_unbusy; rm -rf "$dir"' EXIT
printf '# mpi-rma-compare\n' >"$dir/iwcmd.conf"
"$IWCMD" -d -f "$dir/iwcmd.conf" -s "$IWCM_SOCKET" 2>"$dir/iwcmd.log" &
pid=$!
i=0
while [ ! -S "$IWCM_SOCKET" ] && [ $i -lt 500 ]; do
	i=$((i + 1))
	sleep 0.01
done

# run NAME MPIRUN-ARGS...: every size of mpi_rma into $dir/NAME.rR (R:
# this run), NAME added to $names on the first run, or a failure naming
# the size it stopped at
names=
xenv=$(bench_mpi_xenv)
run() {
	name=$1
	shift
	rc=0
	# shellcheck disable=SC2086 # ARGS: mpi_rma's options, words
	mpirun --allow-run-as-root --oversubscribe -n 2 "$@" \
		-x IWCM_SOCKET -x FI_PROVIDER_PATH $xenv "$MPI_RMA" $ARGS \
		>"$dir/$name.raw" 2>"$dir/$name.err" || rc=$?
	grep -v '^#' "$dir/$name.raw" >"$dir/$name.run$r" || true
	if [ "$rc" -ne 0 ] || [ "$(wc -l <"$dir/$name.run$r")" -ne "$nsizes" ]; then
		echo "$name failed (exit $rc) after $(wc -l <"$dir/$name.run$r") of" \
			"$nsizes sizes:" >&2
		cat "$dir/$name.err" >&2
		exit 1
	fi
	[ "$r" -eq 1 ] && names="$names $name"
	return 0
}
# native NAME: the provider NAME has an FI_EP_RDM endpoint of its own,
# which btl ofi can select
native() {
	fi_info -p "$1" -t FI_EP_RDM 2>/dev/null | grep -q "^provider: $1\$"
}
rdma() {
	run "$1-rdma" --mca pml ob1 --mca btl self,tcp,ofi \
		--mca btl_tcp_if_include 127.0.0.0/8 \
		--mca btl_ofi_provider_include "$1" --mca osc rdma
}
native iwcm || {
	echo "iwcm-rdma not run: fi_info lists no FI_EP_RDM of the" \
		"provider iwcm" >&2
	exit 1
}
net=0
if native net; then
	net=1
else
	echo "# net-rdma not run: libfabric has no provider net with FI_EP_RDM"
fi
bench_busy "$busy"
r=1
while [ "$r" -le "$runs" ]; do
	rdma iwcm
	run iwcm-pt2pt --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "iwcm;ofi_rxm" --mca btl self \
		--mca osc pt2pt
	run tcp-pt2pt --mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "tcp;ofi_rxm" --mca btl self \
		--mca osc pt2pt
	[ "$net" -eq 1 ] && rdma net
	r=$((r + 1))
done
bench_unbusy

# median NAME: per size, the median over the runs of each of the four
# measures, into $dir/NAME
median_runs() {
	bench_median_cols "$dir/$1".run* >"$dir/$1"
}
for n in $names; do
	median_runs "$n"
done

# table COLUMN TITLE: one measure of every transport, iwcm's best (the
# first) against each other one
table() {
	col=$1
	echo "# $2"
	# shellcheck disable=SC2086 # one name a word
	set -- $names
	first=$1
	printf '%8s' size
	for t in "$@"; do printf ' %11s' "$t"; done
	shift
	for t in "$@"; do printf ' %11s' "/$t"; done
	printf '\n'
	# shellcheck disable=SC2086
	set -- $names
	# one line per size: size, then the column of each transport
	for t in "$@"; do
		awk -v c="$col" '{ print $c }' "$dir/$t" >"$dir/$t.col"
	done
	awk '{ print $1 }' "$dir/$first" >"$dir/sizes"
	files=
	for t in "$@"; do files="$files $dir/$t.col"; done
	# shellcheck disable=SC2086
	paste -d ' ' "$dir/sizes" $files | awk '{
		printf "%8d", $1
		for (i = 2; i <= NF; i++) printf " %11.3f", $i
		for (i = 3; i <= NF; i++)
			printf " %11.3g", ($i > 0 ? $2 / $i : 0)
		printf "\n" }'
}
echo "# 2 ranks on $(hostname), median of $runs run(s), $busy busy loop(s)" \
	"beside them; first column: iwcm; ratios: iwcm / other"
table 2 "MPI_Put + flush latency, us"
table 3 "MPI_Get + flush latency, us"
table 4 "MPI_Put bandwidth, windows of 64 each then flush, MB/s"
table 5 "MPI_Get bandwidth, windows of 64 each then flush, MB/s"
