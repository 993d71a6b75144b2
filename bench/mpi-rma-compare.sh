#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/mpi-rma-compare.sh [-s MIN_SIZE] [-m MAX_SIZE] [-i ITERS]:
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
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=${top_builddir:-$(cd "$here/.." && pwd)}
[ -x "$top/daemon/iwcmd" ] || top=$(pwd)
IWCMD=${IWCMD:-$top/daemon/iwcmd}
MPI_RMA=${MPI_RMA:-$top/bench/mpi_rma}
FI_PROVIDER_PATH=${FI_PROVIDER_PATH:-$top/fabric/.libs}
export FI_PROVIDER_PATH
for f in "$IWCMD" "$MPI_RMA"; do
	[ -x "$f" ] || { echo "not found: $f (build first, with Open MPI)" >&2; exit 77; }
done
command -v mpirun >/dev/null || { echo "mpirun not found (openmpi-bin)" >&2; exit 77; }

dir=$(mktemp -d /tmp/iwcm-mpirma.XXXXXX)
IWCM_SOCKET=$dir/iwcmd.sock
export IWCM_SOCKET
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
printf '# mpi-rma-compare\n' >"$dir/iwcmd.conf"
"$IWCMD" -d -f "$dir/iwcmd.conf" -s "$IWCM_SOCKET" 2>"$dir/iwcmd.log" &
pid=$!
i=0
while [ ! -S "$IWCM_SOCKET" ] && [ $i -lt 500 ]; do
	i=$((i + 1))
	sleep 0.01
done

ARGS="$*"
# the sizes mpi_rma runs: 1, 4, 16, ... from -s (default 1) up to -m
# (default 4 MiB)
min=1
max=4194304
while [ $# -gt 0 ]; do
	case "$1" in
	-s) min=$2; shift ;;
	-m) max=$2; shift ;;
	esac
	shift
done
nsizes=0
s=1
while [ "$s" -le "$max" ]; do
	[ "$s" -ge "$min" ] && nsizes=$((nsizes + 1))
	s=$((s * 4))
done

# run NAME MPIRUN-ARGS...: every size of mpi_rma into $dir/NAME, added
# to $runs, or a failure naming the size it stopped at
runs=
run() {
	name=$1
	shift
	rc=0
	mpirun --allow-run-as-root --oversubscribe -n 2 "$@" \
		-x IWCM_SOCKET -x FI_PROVIDER_PATH "$MPI_RMA" ${ARGS:-} \
		>"$dir/$name.raw" 2>"$dir/$name.err" || rc=$?
	grep -v '^#' "$dir/$name.raw" >"$dir/$name" || true
	if [ "$rc" -ne 0 ] || [ "$(wc -l <"$dir/$name")" -ne "$nsizes" ]; then
		echo "$name failed (exit $rc) after $(wc -l <"$dir/$name") of" \
			"$nsizes sizes:" >&2
		cat "$dir/$name.err" >&2
		exit 1
	fi
	runs="$runs $name"
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
if native iwcm; then
	rdma iwcm
else
	echo "iwcm-rdma not run: fi_info lists no FI_EP_RDM of the" \
		"provider iwcm" >&2
	exit 1
fi
run iwcm-pt2pt --mca pml cm --mca mtl ofi \
	--mca mtl_ofi_provider_include "iwcm;ofi_rxm" --mca btl self \
	--mca osc pt2pt
run tcp-pt2pt --mca pml cm --mca mtl ofi \
	--mca mtl_ofi_provider_include "tcp;ofi_rxm" --mca btl self \
	--mca osc pt2pt
if native net; then
	rdma net
else
	echo "# net-rdma not run: libfabric has no provider net with FI_EP_RDM"
fi

# table COLUMN TITLE: one measure of every run, iwcm's best (the first
# run) against each other run
table() {
	col=$1
	echo "# $2"
	set -- $runs
	first=$1
	printf '%8s' size
	for r in "$@"; do printf ' %11s' "$r"; done
	shift
	for r in "$@"; do printf ' %11s' "/$r"; done
	printf '\n'
	set -- $runs
	# one line per size: size, then the column of each run
	for r in "$@"; do
		awk -v c="$col" '{ print $c }' "$dir/$r" >"$dir/$r.col"
	done
	awk '{ print $1 }' "$dir/$first" >"$dir/sizes"
	files=
	for r in "$@"; do files="$files $dir/$r.col"; done
	paste -d ' ' "$dir/sizes" $files | awk '{
		printf "%8d", $1
		for (i = 2; i <= NF; i++) printf " %11.2f", $i
		for (i = 3; i <= NF; i++)
			printf " %11.2f", ($i > 0 ? $2 / $i : 0)
		printf "\n" }'
}
echo "# 2 ranks on $(hostname); first column: iwcm; ratios: iwcm / other"
table 2 "MPI_Put + flush latency, us"
table 3 "MPI_Get + flush latency, us"
table 4 "MPI_Put bandwidth, window of 64 then flush, MB/s"
table 5 "MPI_Get bandwidth, window of 64 then flush, MB/s"
