# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
# shellcheck shell=sh disable=SC2154 # prog and cases: the sourcing script's
#
# What the ratio benchmark scripts of bench/ share, sourced by them (not
# run): the checks of their arguments, finding the programs they run,
# the median of the same-run ratios and the check against a case's
# target.  The sourcing script sets prog (its name, for messages) and
# defines cases (one case a line: name, iwcm-bench arguments, target).

# bench_runs RUNS: exit 2 unless RUNS is a count of runs.
bench_runs() {
	case $1 in
	'' | *[!0-9]* | 0)
		echo "$prog: -r wants a count of runs, not '$1'" >&2
		exit 2
		;;
	esac
}

# bench_find MISSING CANDIDATE...: the first CANDIDATE that is an
# executable file on stdout; exit 2 saying MISSING when none is.
bench_find() {
	what=$1
	shift
	for f in "$@"; do
		[ -n "$f" ] && [ -x "$f" ] && {
			echo "$f"
			return 0
		}
	done
	echo "$prog: $what" >&2
	exit 2
}

# bench_cases CASE...: exit 2 unless each CASE is a name of cases.
bench_cases() {
	for c in "$@"; do
		cases | awk -v c="$c" '$1 == c { f = 1 } END { exit !f }' || {
			echo "$prog: no case '$c'; cases: $(cases | awk '{ printf "%s ", $1 }')" >&2
			exit 2
		}
	done
}

# bench_wanted NAME CASE...: whether NAME is to run (all when no CASE).
bench_wanted() {
	name_=$1
	shift
	[ $# -eq 0 ] && return 0
	for c in "$@"; do [ "$c" = "$name_" ] && return 0; done
	return 1
}

# median of the numbers on stdin, one a line ("-" when none)
median() {
	sort -g | awk '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		if (NR % 2) print v[(NR + 1) / 2];
		else printf "%.3f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# bench_meets MEDIAN TARGET: whether MEDIAN meets TARGET (">=N" or "<=N").
bench_meets() {
	op_=${2%%[0-9]*}
	awk -v m="$1" -v n="${2#"$op_"}" -v op="$op_" \
		'BEGIN { exit !(op == ">=" ? m >= n : m <= n) }'
}
