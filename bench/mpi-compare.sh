#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/mpi-compare.sh [-r RUNS] [-b BUSY] [-m MAX_SIZE] [-i ITERS]
#                      [-w WINDOWS]:
# bench/mpi_latbw between two ranks over three transports, then one table
# with the ratios:
#   iwcm     --mca pml cm --mca mtl ofi, "iwcm;ofi_rxm" (libiwcm-fi.so
#            through a private iwcmd)
#   tcp-rxm  --mca pml cm --mca mtl ofi, "tcp;ofi_rxm" (libfabric's tcp)
#   btl-tcp  --mca pml ob1 --mca btl self,tcp (Open MPI's own TCP)
# Run from the build tree (it finds daemon/iwcmd, fabric/.libs and
# bench/mpi_latbw there) or set IWCMD, FI_PROVIDER_PATH and MPI_LATBW.
# Latency ratio > 1: iwcm is slower; bandwidth ratio > 1: iwcm is faster.
#   -r RUNS  run each transport RUNS times, alternating, and report the
#            median of each cell (default 1)
#   -b BUSY  start BUSY busy loops (nice 0) beside the ranks for the whole
#            run: cores shared with other busy processes (default 0)
#   -m, -i   mpi_latbw's largest size and iterations (4 MiB, 200)
#   -w       mpi_latbw's timed bandwidth windows of 64 per size (10)
# A usage error exits 2 naming the valid form; a transport that fails
# exits 1 with its output; no mpirun or no mpi_latbw, 77.
set -eu
# shellcheck disable=SC2034 # prog and usage: bench_lib.sh's messages
prog=mpi-compare.sh
usage="mpi-compare.sh [-r RUNS] [-b BUSY] [-m MAX_SIZE] [-i ITERS] [-w WINDOWS]"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"
runs=1
busy=0
ARGS=
max=4194304
while [ $# -gt 0 ]; do
	case "$1" in
	-r | -b | -m | -i | -w)
		[ $# -ge 2 ] || bench_usage "$1 wants a value"
		case "$1" in
		-b) bench_count "$1" "$2" 0 ;;
		*) bench_count "$1" "$2" ;;
		esac
		case "$1" in
		-r) runs=$2 ;;
		-b) busy=$2 ;;
		-m) max=$2 ARGS="$ARGS -m $2" ;;
		*) ARGS="$ARGS $1 $2" ;;
		esac
		shift
		;;
	*) bench_usage "unknown option '$1'" ;;
	esac
	shift
done
top=${top_builddir:-$(cd "$here/.." && pwd)}
[ -x "$top/daemon/iwcmd" ] || top=$(pwd)
IWCMD=${IWCMD:-$top/daemon/iwcmd}
MPI_LATBW=${MPI_LATBW:-$top/bench/mpi_latbw}
FI_PROVIDER_PATH=${FI_PROVIDER_PATH:-$top/fabric/.libs}
export FI_PROVIDER_PATH
for f in "$IWCMD" "$MPI_LATBW"; do
	[ -x "$f" ] || { echo "SKIP: not found: $f (build first, with Open MPI)" >&2; exit 77; }
done
command -v mpirun >/dev/null || { echo "SKIP: mpirun not found (openmpi-bin)" >&2; exit 77; }

dir=$(mktemp -d /tmp/iwcm-mpibench.XXXXXX)
IWCM_SOCKET=$dir/iwcmd.sock
export IWCM_SOCKET
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; bench_unbusy; rm -rf "$dir"' EXIT
printf '# mpi-compare\n' >"$dir/iwcmd.conf"
"$IWCMD" -d -f "$dir/iwcmd.conf" -s "$IWCM_SOCKET" 2>"$dir/iwcmd.log" &
pid=$!
i=0
while [ ! -S "$IWCM_SOCKET" ] && [ $i -lt 500 ]; do
	i=$((i + 1))
	sleep 0.01
done

# run NAME MPIRUN-ARGS...: every size of mpi_latbw, or a failure naming
# the size it stopped at (a pipe's status is grep's, so count the rows)
run() {
	name=$1
	shift
	rc=0
	# shellcheck disable=SC2086
	mpirun --allow-run-as-root --oversubscribe -n 2 "$@" \
		-x IWCM_SOCKET -x FI_PROVIDER_PATH $xenv "$MPI_LATBW" ${ARGS:-} \
		>"$dir/$name.raw" 2>"$dir/$name.err" || rc=$?
	grep -v '^#' "$dir/$name.raw" >"$dir/$name" || true
	if [ "$rc" -ne 0 ] || [ "$(wc -l <"$dir/$name")" -ne "$nsizes" ]; then
		echo "$name failed (exit $rc) after $(wc -l <"$dir/$name") of" \
			"$nsizes sizes:" >&2
		cat "$dir/$name.err" >&2
		exit 1
	fi
}
xenv=$(bench_mpi_xenv)
# the sizes mpi_latbw runs: 1, 4, 16, ... up to -m (default 4 MiB)
nsizes=0
s=1
while [ "$s" -le "$max" ]; do
	nsizes=$((nsizes + 1))
	s=$((s * 4))
done
bench_busy "$busy"
# median NAME: the median over the runs of each size's two columns
median() {
	bench_median_cols "$dir/$1".run* >"$dir/$1"
}
r=1
while [ "$r" -le "$runs" ]; do
	run iwcm --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "iwcm;ofi_rxm"
	mv "$dir/iwcm" "$dir/iwcm.run$r"
	run tcp-rxm --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include "tcp;ofi_rxm"
	mv "$dir/tcp-rxm" "$dir/tcp-rxm.run$r"
	run btl-tcp --mca pml ob1 --mca btl self,tcp
	mv "$dir/btl-tcp" "$dir/btl-tcp.run$r"
	r=$((r + 1))
done
bench_unbusy
for t in iwcm tcp-rxm btl-tcp; do
	median "$t"
done

echo "# latency in us (osu_latency), bandwidth in MB/s (osu_bw), 2 ranks on $(hostname)," \
	"median of $runs run(s), $busy busy loop(s) beside them"
printf '%8s %9s %9s %9s %7s %7s | %9s %9s %9s %7s %7s\n' size \
	lat:iwcm tcp-rxm btl-tcp /rxm /btl bw:iwcm tcp-rxm btl-tcp /rxm /btl
join "$dir/iwcm" "$dir/tcp-rxm" | join - "$dir/btl-tcp" |
	awk 'function q(a, b) { return b > 0 ? a / b : 0 }
	{ printf "%8d %9.2f %9.2f %9.2f %7.3g %7.3g | %9.3f %9.3f %9.3f %7.3g %7.3g\n",
		$1, $2, $4, $6, q($2, $4), q($2, $6), $3, $5, $7,
		q($3, $5), q($3, $7) }'
