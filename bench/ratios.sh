#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/ratios.sh [-r RUNS] [-b BUSY] [CASE...]: the datapath benchmark
# set, each case run RUNS times (default 3) by iwcm-bench -j, and per
# case the median of the same-run ratios with every run's ratio beside it
# and the target it is held to.  -b BUSY starts BUSY busy loops (nice 0)
# beside the benchmark for the whole run: cores shared with other busy
# processes, where the default configuration must be as fast as on a
# quiet machine (default 0).  Absolute rates on a shared machine are noise;
# each ratio compares iwcm with its baseline measured in the same run,
# and the median of several runs damps what disturbs one.
#
# A CASE is a name from the list below (all by default).  Run from the
# build tree, or set IWCM_BENCH to the iwcm-bench to run.
#
#   name        iwcm-bench arguments                       target
set -u
cases() {
	cat <<'EOF'
write_bw    write_bw                                    >=1.0
write_bw-e  write_bw -e                                 >=0.95
read_bw     read_bw                                     >=0.95
mk-crc      write_bw --markers --tcp-gaps               >=0.8
mk-nocrc    write_bw --markers --no-crc --tcp-gaps      >=0.95
send_lat    send_lat --tcp-poll                         <=1.15
send_lat-e  send_lat -e                                 <=1.3
write_bw-q8 write_bw -q 8                               >=0.9
EOF
}

usage="ratios.sh [-r RUNS] [-b BUSY] [CASE...]"
runs=3
busy=0
while getopts r:b: o; do
	case $o in
	r) runs=$OPTARG ;;
	b) busy=$OPTARG ;;
	*)
		echo "usage: $usage" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
# shellcheck disable=SC2034 # prog: bench_lib.sh's messages
prog=ratios.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"
bench_runs "$runs"
bench_count -b "$busy" 0
bench=$(bench_find "iwcm-bench not found (build it, or set IWCM_BENCH)" \
	"${IWCM_BENCH:-}" "$here/iwcm-bench" "$(pwd)/bench/iwcm-bench") ||
	exit 2
bench_cases "$@"

trap bench_unbusy EXIT
bench_busy "$busy"
[ "$busy" -eq 0 ] || echo "# $busy busy loop(s) beside the benchmark"
printf '%-12s %-8s %-8s %s\n' case median target runs
status=0
list=$(cases)
while read -r name args; do
	target=${args##* }
	args=${args% *}
	bench_wanted "$name" "$@" || continue
	all=
	i=0
	while [ $i -lt "$runs" ]; do
		# shellcheck disable=SC2086 # the arguments are words
		r=$("$bench" $args -j 2>/dev/null |
			sed -n 's/.*"ratio":\([0-9.]*\).*/\1/p' | tail -n 1)
		all="$all ${r:-failed}"
		i=$((i + 1))
	done
	# shellcheck disable=SC2086 # one ratio a line
	med=$(printf '%s\n' $all | grep -v failed | median)
	printf '%-12s %-8s %-8s%s\n' "$name" "$med" "$target" "$all"
	case $all in *failed*) status=1 ;; esac
done <<EOF
$list
EOF
exit $status
