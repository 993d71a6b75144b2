#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Every C file of the tree is as clang-format formats it with the tree's
# .clang-format (Linux kernel style).  The output of clang-format changes
# between major versions, so only the version the tree is formatted with
# (14, Debian 12's) is asked; another one says SKIP.
set -eu
: "${top_srcdir:?}"

CF=${CLANG_FORMAT:-clang-format}
if ! command -v "$CF" >/dev/null 2>&1; then
	echo "SKIP: $CF not found (Debian package clang-format)"
	exit 77
fi
v=$("$CF" --version | sed -n 's/.*version \([0-9]*\)\..*/\1/p')
if [ "$v" != 14 ]; then
	echo "SKIP: $CF is version ${v:-unknown}; the tree is formatted with 14"
	exit 77
fi

cd "$top_srcdir"
bad=0
n=0
for d in wire proto daemon libclient fabric cli wireshark include bench examples tests; do
	for f in $(find "$d" \( -name '*.c' -o -name '*.h' \) \
		! -name '*.pb-c.*' | sort); do
		n=$((n + 1))
		if ! "$CF" --dry-run -Werror "$f" >/dev/null 2>&1; then
			echo "FAIL: $f is not formatted (run: $CF -i $f)"
			bad=$((bad + 1))
		fi
	done
done
[ "$bad" -eq 0 ] || exit 1
echo "ok: $n files formatted"
