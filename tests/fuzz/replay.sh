#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Replays the corpus of every fuzz harness (tests/fuzz/corpus/<harness>/).
# A harness without a corpus, or an empty one, fails the test.
set -u
fail=0
[ -n "${FUZZ_HARNESSES:-}" ] || { echo "no fuzz harnesses registered"; exit 1; }
for h in $FUZZ_HARNESSES; do
	dir="$srcdir/fuzz/corpus/$h"
	n=$(ls "$dir" 2>/dev/null | wc -l)
	if [ "$n" -eq 0 ]; then
		echo "FAIL $h: no corpus in $dir"
		fail=1
		continue
	fi
	if out=$("$builddir/$h" -runs=0 "$dir" 2>&1); then
		echo "PASS $h: $n corpus files"
	else
		echo "FAIL $h"
		echo "$out" | tail -20
		fail=1
	fi
done
exit $fail
