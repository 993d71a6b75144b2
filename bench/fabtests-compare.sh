#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/fabtests-compare.sh [-r RUNS] [-b BUSY] [-S SIZE...] [-I ITERS]:
# libfabric's own benchmark programs over the provider iwcm against
# libfabric's tcp provider, measured in the same run on 127.0.0.1, then
# one table with the ratios:
#   fi_pingpong        -e msg, usec/xfer    (libfabric-bin, from PATH)
#   fi_msg_pingpong    -e msg, usec/xfer    (fabtests 1.17.0)
#   fi_msg_bw          -e msg, MB/sec
#   fi_rma_bw-write    -e msg -o write, MB/sec
#   fi_rma_bw-read     -e msg -o read, MB/sec
#   fi_rdm_tagged_bw   -e rdm, MB/sec, "iwcm;ofi_rxm" against "tcp;ofi_rxm"
# Latency ratio (iwcm / tcp) > 1: iwcm is slower; bandwidth ratio > 1:
# iwcm is faster.  The target column holds what the project promises
# where it promises a figure (fi_pingpong: latency ratio <= 1.0), and
# "met" whether the median meets it.
#   -r RUNS   run every case RUNS times and report the median of each
#             cell; within a run the two providers alternate (iwcm
#             first on odd runs, tcp first on even ones) (default 1)
#   -b BUSY   start BUSY busy loops (nice 0) beside the programs for the
#             whole run: cores shared with other busy processes (default 0)
#   -S SIZE   a transfer size in octets, repeated or comma-separated
#             (default 64, 4096, 65536 and 1048576)
#   -I ITERS  iterations of every program at every size (default: per
#             size, 2000 round trips and 5000 transfers below 64 KiB,
#             500 and 1000 below 1 MiB, 100 and 200 from 1 MiB)
# Each server gets a port of its own; the client starts once the server
# listens; each program runs under timeout(1), FABTESTS_TIMEOUT seconds
# (default 120).  A case where a provider fails (either side exits non-
# zero or prints no figure) shows FAIL in its cell and the script exits
# 1 after the table, with that run's output on stderr.
#
# Run from the build tree (it finds daemon/iwcmd and fabric/.libs there)
# or set top_builddir.  fabtests are built as tests/fabtests/run.sh
# builds them (FABTESTS_SRC, FABTESTS_DIR: tests/fabtests/fabtests_lib.sh).
# "SKIP: <reason>" and exit 77 without fi_pingpong, fabtests, iwcmd or
# the provider; a usage error exits 2 naming the valid form.
set -u
# shellcheck disable=SC2034 # prog and usage: bench_lib.sh's messages
prog=fabtests-compare.sh
usage="fabtests-compare.sh [-r RUNS] [-b BUSY] [-S SIZE[,SIZE...]]... [-I ITERS]"
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"

runs=1
busy=0
sizes=
iters=
while [ $# -gt 0 ]; do
	case "$1" in
	-r | -b | -S | -I)
		[ $# -ge 2 ] || bench_usage "$1 wants a value"
		case "$1" in
		-r) bench_count "$1" "$2" && runs=$2 ;;
		-b) bench_count "$1" "$2" 0 && busy=$2 ;;
		-I) bench_count "$1" "$2" && iters=$2 ;;
		-S)
			for s in $(echo "$2" | tr ',' ' '); do
				bench_count -S "$s"
				sizes="$sizes $s"
			done
			[ -n "$sizes" ] || bench_usage "-S wants a size"
			;;
		esac
		shift
		;;
	*) bench_usage "unknown option '$1'" ;;
	esac
	shift
done
: "${sizes:= 64 4096 65536 1048576}"
: "${FABTESTS_TIMEOUT:=120}"

skip() {
	echo "SKIP: $*"
	exit 77
}
top_srcdir=$(cd "$here/.." && pwd)
if [ -z "${top_builddir:-}" ]; then
	for t in "$(pwd)" "$top_srcdir/build" "$top_srcdir"; do
		[ -x "$t/daemon/iwcmd" ] && top_builddir=$t && break
	done
fi
: "${top_builddir:=$(pwd)}"
if [ ! -x "$top_builddir/daemon/iwcmd" ] ||
	[ ! -f "$top_builddir/fabric/.libs/libiwcm-fi.so" ]; then
	skip "iwcmd or the provider not built in $top_builddir (run from the build tree)"
fi
command -v fi_pingpong >/dev/null 2>&1 ||
	skip "fi_pingpong not found (Debian package libfabric-bin)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) not found"
# shellcheck source=tests/fabtests/fabtests_lib.sh
. "$top_srcdir/tests/fabtests/fabtests_lib.sh"
fabtests_build || skip "$fabtests_why"
for p in benchmarks/fi_msg_pingpong benchmarks/fi_msg_bw benchmarks/fi_rma_bw \
	benchmarks/fi_rdm_tagged_bw; do
	[ -x "$ft/$p" ] || skip "fabtests built no $p in $ft"
done

dir=$(mktemp -d /tmp/iwcm-ftbench.XXXXXX)
IWCM_SOCKET=$dir/iwcmd.sock
FI_PROVIDER_PATH=$top_builddir/fabric/.libs
# The core's providers and ours, nothing else (verbs, psm3 and others
# would only slow every fi_getinfo down).
FI_PROVIDER="iwcm,tcp,ofi_rxm"
export IWCM_SOCKET FI_PROVIDER_PATH FI_PROVIDER
pid=
spid=
trap '[ -n "$spid" ] && kill "$spid" 2>/dev/null; [ -n "$pid" ] && kill "$pid" 2>/dev/null; bench_unbusy; rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM
printf '# fabtests-compare\n' >"$dir/iwcmd.conf"
"$top_builddir/daemon/iwcmd" -d -f "$dir/iwcmd.conf" -s "$IWCM_SOCKET" \
	2>"$dir/iwcmd.log" &
pid=$!
i=0
while [ ! -S "$IWCM_SOCKET" ] && [ $i -lt 500 ]; do
	i=$((i + 1))
	sleep 0.01
done
[ -S "$IWCM_SOCKET" ] || {
	echo "$prog: iwcmd did not start:" >&2
	cat "$dir/iwcmd.log" >&2
	exit 1
}

# The cases, one a line: name, kind (lat: the usec/xfer column; bw: the
# MB/sec column), endpoint type (msg: -p iwcm against -p tcp; rdm: over
# ofi_rxm), target of the ratio ("-": none), program (a path under the
# fabtests tree, or a command from PATH) and its arguments.
cases() {
	cat <<'EOF'
fi_pingpong      lat msg <=1.0 fi_pingpong
fi_msg_pingpong  lat msg -     benchmarks/fi_msg_pingpong
fi_msg_bw        bw  msg -     benchmarks/fi_msg_bw
fi_rma_bw-write  bw  msg -     benchmarks/fi_rma_bw -o write
fi_rma_bw-read   bw  msg -     benchmarks/fi_rma_bw -o read
fi_rdm_tagged_bw bw  rdm -     benchmarks/fi_rdm_tagged_bw
EOF
}

# count KIND SIZE: the iterations at SIZE (-I, else fabtests' own
# counts, size_to_count() in common/shared.c, from 1 MiB, half of them
# from 64 KiB and a fifth (round trips) or a quarter (transfers) below:
# fi_pingpong's own default is 10, and every program runs the same count
# over both providers)
count() {
	if [ -n "$iters" ]; then
		echo "$iters"
	elif [ "$2" -ge 1048576 ]; then
		[ "$1" = lat ] && echo 100 || echo 200
	elif [ "$2" -ge 65536 ]; then
		[ "$1" = lat ] && echo 500 || echo 1000
	else
		[ "$1" = lat ] && echo 2000 || echo 5000
	fi
}

# figure KIND FILE: the figure of KIND in the last row of a run's output
# (fi_pingpong and fabtests print a header naming the columns, then a
# row per size); nothing when there is none
figure() {
	awk -v want="$([ "$1" = lat ] && echo usec/xfer || echo MB/sec)" '
		$1 == "bytes" { for (i = 1; i <= NF; i++) if ($i == want) c = i; next }
		c && NF >= c && $c ~ /^[0-9.]+$/ { v = $c }
		END { if (v != "") print v }' "$2"
}

# stop PID: end a server whose client has given up: timeout(1) passes
# the TERM on; whatever ignores it gets a KILL, by its own pid.
stop() {
	child=$(pgrep -P "$1" 2>/dev/null)
	kill -TERM "$1" 2>/dev/null
	sleep 0.5
	# shellcheck disable=SC2086 # one pid a word
	[ -n "$child" ] && kill -9 $child 2>/dev/null
}

# one PORT PROVIDER EP SIZE KIND PROGRAM ARGS...: a server on PORT,
# then its client; the client's figure on stdout, or FAIL (the output
# of both on stderr)
port_base=$((20000 + $$ % 20000))
port=$port_base
one() {
	p=$1 prov=$2 ep=$3 size=$4 kind=$5 exe=$6
	shift 6
	n=$(count "$kind" "$size")
	case $exe in
	fi_pingpong) addr= ;;
	*)
		exe=$ft/$exe
		addr="-s 127.0.0.1"
		;;
	esac
	# shellcheck disable=SC2086 # addr: two words or none
	timeout "$FABTESTS_TIMEOUT" "$exe" "$@" -p "$prov" -e "$ep" $addr \
		-S "$size" -I "$n" -B "$p" >"$dir/s.out" 2>&1 &
	spid=$!
	# An FI_EP_MSG server (and ofi_rxm over a listening MSG endpoint)
	# listens on PORT once it is ready; two seconds at most.
	i=0
	while kill -0 "$spid" 2>/dev/null && ! fabtests_listening "$p" &&
		[ $i -lt 40 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	# shellcheck disable=SC2086
	timeout "$FABTESTS_TIMEOUT" "$exe" "$@" -p "$prov" -e "$ep" $addr \
		-S "$size" -I "$n" -P "$p" 127.0.0.1 >"$dir/c.out" 2>&1
	crc=$?
	i=0
	while [ "$crc" -ne 0 ] && kill -0 "$spid" 2>/dev/null && [ $i -lt 40 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	[ "$crc" -ne 0 ] && kill -0 "$spid" 2>/dev/null && stop "$spid"
	wait "$spid"
	src=$?
	spid=
	v=$(figure "$kind" "$dir/c.out")
	if [ "$src" -ne 0 ] || [ "$crc" -ne 0 ] || [ -z "$v" ]; then
		{
			echo "-- ${exe##*/} $* -p $prov -e $ep -S $size -I $n:" \
				"server exit $src, client exit $crc"
			for f in s.out c.out; do
				echo "---- $f"
				sed -n '1,20p' "$dir/$f"
			done
		} >&2
		echo FAIL
	else
		echo "$v"
	fi
}

bench_busy "$busy"
: >"$dir/results"
list=$(cases)
r=1
while [ "$r" -le "$runs" ]; do
	while read -r name kind ep _ exe args; do
		if [ "$ep" = rdm ]; then
			provs="iwcm;ofi_rxm tcp;ofi_rxm"
		else
			provs="iwcm tcp"
		fi
		[ $((r % 2)) -eq 0 ] && provs=$(echo "$provs" | awk '{ print $2, $1 }')
		for size in $sizes; do
			for prov in $provs; do
				port=$((port + 1))
				[ "$port" -gt 60000 ] && port=$port_base
				# shellcheck disable=SC2086 # args: words
				v=$(one "$port" "$prov" "$ep" "$size" "$kind" \
					"$exe" $args)
				echo "$name $size ${prov%%;*} $v" >>"$dir/results"
			done
		done
	done <<EOF
$list
EOF
	r=$((r + 1))
done
bench_unbusy

# cell NAME SIZE PROVIDER: the median over the runs, or FAIL when a run
# failed
cell() {
	awk -v c="$1" -v s="$2" -v p="$3" '$1 == c && $2 == s && $3 == p { print $4 }' \
		"$dir/results" >"$dir/cell"
	if grep -q FAIL "$dir/cell" || [ ! -s "$dir/cell" ]; then
		echo FAIL
	else
		median <"$dir/cell"
	fi
}

echo "# fabtests-compare: iwcm against tcp (rdm: iwcm;ofi_rxm against" \
	"tcp;ofi_rxm) on 127.0.0.1 of $(hostname), median of $runs run(s)," \
	"$busy busy loop(s) beside them"
echo "# lat: usec/xfer, ratio iwcm/tcp > 1: iwcm slower; bw: MB/sec," \
	"ratio iwcm/tcp > 1: iwcm faster"
printf '%-17s %-3s %8s %10s %10s %7s %7s %s\n' case "" size iwcm tcp ratio \
	target met
status=0
while read -r name kind ep target exe args; do
	for size in $sizes; do
		a=$(cell "$name" "$size" iwcm)
		b=$(cell "$name" "$size" tcp)
		ratio=-
		met=
		if [ "$a" = FAIL ] || [ "$b" = FAIL ]; then
			status=1
		else
			ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {
				if (b > 0) printf "%.3g", a / b; else print "-" }')
			if [ "$target" != - ] && [ "$ratio" != - ]; then
				if bench_meets "$ratio" "$target"; then
					met=yes
				else
					met=no
				fi
			fi
		fi
		printf '%-17s %-3s %8s %10s %10s %7s %7s %s\n' "$name" "$kind" \
			"$size" "$a" "$b" "$ratio" "$target" "$met"
	done
done <<EOF
$list
EOF
[ "$status" -eq 0 ] || echo "$prog: a provider failed (FAIL above; its output on stderr)" >&2
exit $status
