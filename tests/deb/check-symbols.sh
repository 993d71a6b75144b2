#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# debian/libiwcm0.symbols against libclient/libiwcm.map: every symbol
# of the version script, with the IWCM_1.x node that introduced it, and
# one entry per node; nothing else.  (The build, dh_makeshlibs -c4,
# checks the symbols file against the library itself.)
# Usage: tests/deb/check-symbols.sh [TOP]
set -eu
top=${1:-$(cd "$(dirname "$0")/../.." && pwd)}
map=$top/libclient/libiwcm.map
syms=$top/debian/libiwcm0.symbols
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# "name@NODE" for every global of every node, and "NODE@NODE".
awk '
	/^[A-Z0-9_.]+[ \t]*\{/ { node = $1; sub(/\{.*/, "", node);
		print node "@" node; next }
	/^\}/ { node = ""; next }
	node != "" && /^[ \t]*[A-Za-z_][A-Za-z0-9_]*;/ {
		s = $1; sub(/;.*/, "", s); print s "@" node }
' "$map" | sort >"$tmp/map"
# The symbols file's entries (first field of the indented lines).
awk '/^ / { print $1 }' "$syms" | sort >"$tmp/syms"

if [ ! -s "$tmp/map" ]; then
	echo "FAIL: no symbol read from $map"
	exit 1
fi
if ! head -1 "$syms" | grep -q '^libiwcm\.so\.0 libiwcm0 '; then
	echo "FAIL: $syms does not start with 'libiwcm.so.0 libiwcm0'"
	exit 1
fi
if ! cmp -s "$tmp/map" "$tmp/syms"; then
	echo "FAIL: $syms and $map differ (< map, > symbols):"
	diff "$tmp/map" "$tmp/syms" | grep '^[<>]'
	exit 1
fi
echo "ok: $(wc -l <"$tmp/syms") entries of $syms match $map"
