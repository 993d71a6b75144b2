#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/mpi-compare.sh and bench/mpi-rma-compare.sh end to end, tiny,
# never their speed: their usage errors (exit 2 with the valid form);
# one run each (-r 1) and, for mpi-compare.sh, one median of two runs
# beside a busy loop (-r 2 -b 1), whose header must say so and whose tables must hold a
# row for every size with every figure and every ratio there and
# positive.  SKIP (77) without mpirun or without the MPI benchmarks
# (configured without Open MPI).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
export top_builddir
mc="$top_srcdir/bench/mpi-compare.sh"
mrc="$top_srcdir/bench/mpi-rma-compare.sh"
skip() {
	echo "SKIP: $*"
	exit 77
}
command -v mpirun >/dev/null 2>&1 || skip "mpirun not found (openmpi-bin)"
for f in bench/mpi_latbw bench/mpi_rma daemon/iwcmd; do
	[ -x "$top_builddir/$f" ] ||
		skip "$top_builddir/$f not built (configured without Open MPI?)"
done
command -v fi_info >/dev/null 2>&1 || skip "fi_info not found (libfabric-bin)"
# In an ASan/UBSan build: the sanitizers' runtimes preloaded for the
# ranks that load the provider, and no leak check of the MPI library.
# shellcheck source=tests/integ/fabric_env.sh
. "$top_srcdir/tests/integ/fabric_env.sh"

dir=$(mktemp -d /tmp/iwcm-mpismoke.XXXXXX) || exit 99
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM
fails=0
passes=0
ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# expect RC SCRIPT ARGS...: stdout in $dir/out, stderr in $dir/err
expect() {
	want=$1
	shift
	sh "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "'$*' exited $rc, not $want: $(cat "$dir/out" "$dir/err")"
		return 1
	fi
	ok
}
has() { # has FILE TEXT
	if grep -q -F -- "$2" "$1"; then ok; else
		fail "'$2' missing from $(basename "$1"): $(cat "$1")"
	fi
}

# ---- usage errors: exit 2, the valid form on stderr ----
for a in "-r 0" "-r x" "-r" "-b -1" "-b x" "-m 0" "-i 1x" "-x" "extra"; do
	# shellcheck disable=SC2086 # the arguments are words
	expect 2 "$mc" $a &&
		has "$dir/err" "usage: mpi-compare.sh [-r RUNS] [-b BUSY]"
	# shellcheck disable=SC2086
	expect 2 "$mrc" $a &&
		has "$dir/err" "usage: mpi-rma-compare.sh [-r RUNS] [-b BUSY]"
done
expect 2 "$mrc" -w 0 && has "$dir/err" "-w wants at least 1"
expect 2 "$mc" -w 0 && has "$dir/err" "-w wants at least 1"
expect 2 "$mrc" -s 65 -m 64 && has "$dir/err" "no size from -s 65 to -m 64"
expect 2 "$mc" -r 2x && has "$dir/err" "-r wants a number, not '2x'"

# rows FILE NFIELDS SIZE...: FILE's table rows are exactly one per
# SIZE, in order, each of NFIELDS fields ("|" included), every field
# but "|" a positive number
rows() {
	f=$1 nf=$2
	shift 2
	got=$(awk '$1 ~ /^[0-9]+$/ { printf "%s ", $1 }' "$f")
	if [ "$got" != "$* " ]; then
		fail "$(basename "$f"): sizes '$got', not '$* ': $(cat "$f")"
		return
	fi
	bad=$(awk -v nf="$nf" '$1 ~ /^[0-9]+$/ {
		if (NF != nf) { print "row " $1 ": " NF " fields"; next }
		for (i = 2; i <= NF; i++)
			if ($i != "|" && !($i ~ /^[0-9.e+-]+$/ && $i + 0 > 0))
				print "row " $1 ": field " i " is " $i }' "$f")
	if [ -n "$bad" ]; then
		fail "$(basename "$f"): $bad: $(cat "$f")"
	else
		ok
	fi
}

# ---- mpi-compare.sh: 3 transports, latency and bandwidth, 2 ratios each
for run in "-r 1 -m 16 -i 5 -w 2|1 run(s), 0 busy|1 4 16" \
	"-r 2 -b 1 -m 4 -i 5 -w 2|2 run(s), 1 busy|1 4"; do
	args=${run%%|*}
	rest=${run#*|}
	# shellcheck disable=SC2086
	if expect 0 "$mc" $args; then
		has "$dir/out" "median of ${rest%%|*} loop(s)"
		cp "$dir/out" "$dir/mc.out"
		# shellcheck disable=SC2086 # the sizes are words
		rows "$dir/mc.out" 12 ${rest#*|}
	fi
done

# ---- mpi-rma-compare.sh: 4 tables of T transports and T-1 ratios ----
# (-r and -b are bench_lib.sh's, run above through mpi-compare.sh; one
# real run here keeps the sanitizer build's check short)
for run in "-r 1 -s 16 -m 64 -i 5 -w 2|1 run(s), 0 busy|16 64"; do
	args=${run%%|*}
	rest=${run#*|}
	# shellcheck disable=SC2086
	expect 0 "$mrc" $args || continue
	has "$dir/out" "median of ${rest%%|*} loop(s)"
	n=0
	for t in "MPI_Put + flush latency" "MPI_Get + flush latency" \
		"MPI_Put bandwidth" "MPI_Get bandwidth"; do
		n=$((n + 1))
		# the table under its title, up to the next title
		awk -v t="# $t" 'index($0, t) == 1 { on = 1; next }
			/^# / { on = 0 } on' "$dir/out" >"$dir/rma$n"
		# columns: size, then iwcm-rdma, iwcm-pt2pt, tcp-pt2pt and
		# net-rdma when libfabric has it, then the ratios
		cols=$(awk 'NR == 1 { print NF }' "$dir/rma$n")
		case $cols in
		6 | 8) ;;
		*) fail "table '$t': $cols columns: $(cat "$dir/rma$n")" ;;
		esac
		head -n 1 "$dir/rma$n" | grep -q 'iwcm-rdma *iwcm-pt2pt *tcp-pt2pt' ||
			fail "table '$t': header $(head -n 1 "$dir/rma$n")"
		# shellcheck disable=SC2086
		rows "$dir/rma$n" "$cols" ${rest#*|}
	done
done

# ---- the medians, exactly: programs in place of mpi_latbw and mpi_rma
# whose figures count their runs (rank 0 only), so that with -r 2 each
# cell's median is the mean of a known pair: the transports alternate
# (T of them: run k of transport t is figure t + (k - 1) T) and every
# run counts once.
cat >"$dir/fake" <<'FAKE'
#!/bin/sh
[ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ] || exit 0
c="$(dirname "$0")/count"
n=$(($(cat "$c" 2>/dev/null || echo 0) + 1))
echo "$n" >"$c"
echo "# size and figures"
case $(basename "$0") in
fake) for s in 1 4; do echo "$s $n $((n * 10))"; done ;;
*) echo "4 $n $((n * 2)) $((n * 10)) $((n * 20))" ;;
esac
FAKE
chmod +x "$dir/fake"
cp "$dir/fake" "$dir/fake_rma"
rm -f "$dir/count"
if MPI_LATBW="$dir/fake" expect 0 "$mc" -r 2 -m 4; then
	# iwcm: runs 1 and 4, tcp-rxm 2 and 5, btl-tcp 3 and 6
	want="1 2.50 3.50 4.50 0.714 0.556 | 25.000 35.000 45.000 0.714 0.556"
	got=$(awk '$1 == 1' "$dir/out" | tr -s ' ' | sed 's/^ //')
	if [ "$got" = "$want" ]; then ok; else
		fail "medians of fake runs: '$got', not '$want': $(cat "$dir/out")"
	fi
fi
rm -f "$dir/count"
if MPI_RMA="$dir/fake_rma" expect 0 "$mrc" -r 2 -s 4 -m 4; then
	t=$(awk '/^ *size/ { print (NF - 0) / 2; exit }' "$dir/out")
	# iwcm-rdma: runs 1 and 1 + T; iwcm-pt2pt: 2 and 2 + T
	want=$(awk -v t="$t" 'BEGIN { a = (2 + t) / 2; b = (4 + t) / 2
		printf "%.3f %.3f %.3g|%.3f %.3f %.3g", a * 10, b * 10, a / b,
			a * 20, b * 20, a / b }')
	got=$(awk '/MPI_Put bandwidth/ { p = 1 } /MPI_Get bandwidth/ { g = 1 }
		$1 == 4 && (p || g) { printf "%s%s %s %s", (g ? "|" : ""), $2, $3, $(2 + NF / 2) }' \
		"$dir/out")
	if [ "$got" = "$want" ]; then ok; else
		fail "medians of fake runs ($t transports): '$got', not '$want': $(cat "$dir/out")"
	fi
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
