#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/fabtests-compare.sh end to end, tiny, never its speed (make
# check-fabtests, after tests/fabtests/run.sh has built fabtests): its
# usage errors (exit 2 with the valid form); one run at one size with
# few iterations, whose table must hold every case with both figures
# and the ratio positive and fi_pingpong's target judged; and a run
# whose programs all time out, which must show FAIL in every cell and
# exit 1.  SKIP (77) with the script's reason when it skips (no
# fi_pingpong, no fabtests).
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
export top_builddir
fc="$top_srcdir/bench/fabtests-compare.sh"
dir=$(mktemp -d /tmp/iwcm-ftsmoke.XXXXXX) || exit 99
trap 'rm -rf "$dir"' EXIT
trap 'exit 1' HUP INT TERM
fails=0
passes=0
ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# expect RC ARGS...: stdout in $dir/out, stderr in $dir/err
expect() {
	want=$1
	shift
	sh "$fc" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "'fabtests-compare.sh $*' exited $rc, not $want: $(cat "$dir/out" "$dir/err")"
		return 1
	fi
	ok
}
has() { # has FILE TEXT
	if grep -q -F -- "$2" "$1"; then ok; else
		fail "'$2' missing from $(basename "$1"): $(cat "$1")"
	fi
}

for a in "-r 0" "-r x" "-b x" "-S 0" "-S 64,x" "-S" "-I 0" "-q" "extra"; do
	# shellcheck disable=SC2086 # the arguments are words
	expect 2 $a &&
		has "$dir/err" "usage: fabtests-compare.sh [-r RUNS] [-b BUSY] [-S SIZE"
done

CASES="fi_pingpong fi_msg_pingpong fi_msg_bw fi_rma_bw-write fi_rma_bw-read fi_rdm_tagged_bw"
sh "$fc" -r 1 -S 4096 -I 20 >"$dir/out" 2>"$dir/err"
rc=$?
if [ "$rc" -eq 77 ]; then
	cat "$dir/out"
	exit 77
fi
if [ "$rc" -ne 0 ]; then
	fail "'-r 1 -S 4096 -I 20' exited $rc: $(cat "$dir/out" "$dir/err")"
else
	ok
	has "$dir/out" "median of 1 run(s), 0 busy loop(s)"
	# case kind size iwcm tcp ratio target [met]
	got=$(awk '$3 == "4096" { printf "%s ", $1 }' "$dir/out")
	if [ "$got" = "$CASES " ]; then ok; else
		fail "cases '$got', not '$CASES ': $(cat "$dir/out")"
	fi
	bad=$(awk '$3 == "4096" {
		for (i = 4; i <= 6; i++)
			if (!($i ~ /^[0-9.e+-]+$/ && $i + 0 > 0))
				print $1 ": field " i " is " $i
		if ($1 == "fi_pingpong" && ($7 != "<=1.0" || ($8 != "yes" && $8 != "no")))
			print $1 ": target " $7 " met " $8
		if ($1 != "fi_pingpong" && ($7 != "-" || NF != 7))
			print $1 ": a target where there is none" }' "$dir/out")
	if [ -z "$bad" ]; then ok; else
		fail "$bad: $(cat "$dir/out")"
	fi
fi

# Programs that cannot finish: every cell FAIL, exit 1, the output on
# stderr.
FABTESTS_TIMEOUT=0.01
export FABTESTS_TIMEOUT
expect 1 -S 64 -I 5 && {
	n=$(awk '$3 == "64" && $4 == "FAIL" && $5 == "FAIL" && $6 == "-"' "$dir/out" | wc -l)
	if [ "$n" -eq 6 ]; then ok; else
		fail "$n FAIL rows of 6: $(cat "$dir/out")"
	fi
	has "$dir/err" "a provider failed"
	has "$dir/err" "client exit"
}
unset FABTESTS_TIMEOUT

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
