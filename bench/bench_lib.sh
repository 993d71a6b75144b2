# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
# shellcheck shell=sh disable=SC2154 # prog, usage, cases: the sourcing script's
#
# What the ratio benchmark scripts of bench/ share, sourced by them (not
# run): the checks of their arguments, finding the programs they run,
# the busy loops beside them, the median of the same-run ratios and the
# check against a case's target.  The sourcing script sets prog (its
# name, for messages), usage (its synopsis, for bench_usage) and, for
# bench_cases, defines cases (one case a line: name, iwcm-bench
# arguments, target).

# bench_runs RUNS: exit 2 unless RUNS is a count of runs.
bench_runs() {
	case $1 in
	'' | *[!0-9]* | 0)
		echo "$prog: -r wants a count of runs, not '$1'" >&2
		exit 2
		;;
	esac
}

# bench_usage MESSAGE: MESSAGE and the valid form on stderr, exit 2.
bench_usage() {
	echo "$prog: $1" >&2
	echo "usage: $usage" >&2
	exit 2
}

# bench_count OPTION VALUE [MIN]: exit 2 (bench_usage) unless VALUE, the
# argument of OPTION, is a whole number of at least MIN (default 1).
bench_count() {
	case $2 in
	'' | *[!0-9]*) bench_usage "$1 wants a number, not '$2'" ;;
	esac
	[ "$2" -ge "${3:-1}" ] || bench_usage "$1 wants at least ${3:-1}, not '$2'"
}

# bench_busy N: start N busy loops (nice 0) in the background, their
# pids added to busy_pids; bench_unbusy kills them (the EXIT trap's
# job).  They stand for other work sharing the cores with the ranks.
busy_pids=
bench_busy() {
	i_=0
	while [ "$i_" -lt "$1" ]; do
		sh -c 'while :; do :; done' &
		busy_pids="$busy_pids $!"
		i_=$((i_ + 1))
	done
}
bench_unbusy() {
	for b_ in $busy_pids; do kill "$b_" 2>/dev/null; done
	busy_pids=
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

# bench_mpi_xenv: mpirun's -x options for what must reach the ranks
# when set: the provider's settings, and a sanitizer build's preloaded
# runtimes and options (tests/integ/fabric_env.sh).
bench_mpi_xenv() {
	for v_ in FI_IWCM_PROGRESS FI_IWCM_CRC IWCM_PROGRESS_IDLE_US \
		IWCM_POLL_US LD_PRELOAD ASAN_OPTIONS UBSAN_OPTIONS; do
		eval "[ -n \"\${$v_+x}\" ]" && printf ' -x %s' "$v_"
	done
	return 0
}

# bench_median_cols FILE...: per first column (a size), the median over
# the files' rows of each other column (the mean of the middle two for
# an even count), one row per size in size order.
bench_median_cols() {
	cat "$@" | awk '
		function med(list,   a, k, i, j, t) {
			k = split(list, a, " ")
			for (i = 1; i <= k; i++)
				for (j = i + 1; j <= k; j++)
					if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
			return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
		}
		NF > 1 { n[$1] = NF; for (c = 2; c <= NF; c++) v[$1, c] = v[$1, c] " " $c }
		END {
			for (x in n) {
				printf "%s", x
				for (c = 2; c <= n[x]; c++) printf " %s", med(v[x, c])
				printf "\n"
			}
		}' | sort -k1,1n
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
