#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# libiwcm.so exports exactly the symbols of libiwcm.map, each with its
# version node, and they are the functions iwcm.h and verbs.h declare, each
# with a man page; the IPC code is linked in and hidden, libprotobuf-c is a
# dynamic dependency, and the pkg-config file names it privately.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"

lib=$top_builddir/libclient/.libs/libiwcm.so
map=$top_srcdir/libclient/libiwcm.map
hdr=$top_srcdir/include/iwcm/iwcm.h
vhdr=$top_srcdir/include/iwcm/verbs.h
tmp=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-abi-XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

[ -f "$lib" ] || fail "$lib not built"

# Exported (defined, dynamic) symbols, version node entries aside.
nm -D --defined-only "$lib" | awk '$2 != "A" { print $3 }' >"$tmp/dyn"
sed 's/@.*//' "$tmp/dyn" | sort -u >"$tmp/exported"
grep -v '@@IWCM_' "$tmp/dyn" >"$tmp/unversioned" || true
[ -s "$tmp/unversioned" ] &&
	fail "exported without a version: $(cat "$tmp/unversioned")"

# Symbols listed in the map's global sections.
sed -n 's/^[[:space:]]*\(iwcm_[a-z0-9_]*\);.*/\1/p' "$map" | sort -u \
	>"$tmp/map"
# Functions the public headers declare (outside comments), less the
# static inline ones, which are no symbols (iwcm_poll_cq() passes the
# caller's sizeof to the exported iwcm_poll_cq_sz()).
cat "$hdr" "$vhdr" | grep -E '^static inline ' |
	grep -o 'iwcm_[a-z0-9_]*(' | tr -d '(' | sort -u >"$tmp/inline"
cat "$hdr" "$vhdr" | grep -v -E '^ \*|^/\*' | grep -o 'iwcm_[a-z0-9_]*(' |
	tr -d '(' | sort -u | comm -23 - "$tmp/inline" >"$tmp/header"

diff -u "$tmp/map" "$tmp/exported" >"$tmp/d1" ||
	fail "libiwcm.so exports differ from libiwcm.map:
$(cat "$tmp/d1")"
echo "ok: $(wc -l <"$tmp/map") symbols exported, all in libiwcm.map"
diff -u "$tmp/header" "$tmp/map" >"$tmp/d2" ||
	fail "iwcm.h/verbs.h and libiwcm.map disagree:
$(cat "$tmp/d2")"
echo "ok: iwcm.h and verbs.h declare exactly the map's symbols"
# Public API rules before 1.0 (issue 10 item 7): a connection's state is
# read with iwcm_conn_query(), not one getter per field (only the socket's
# owner calls remain), and CM events are IWCM_CM_EVENT_*, apart from the
# IWCM_EVENT_* async events of verbs.h.
getters=$(grep -E '^iwcm_conn_get_' "$tmp/map" | grep -v -x 'iwcm_conn_get_fd' ||
	true)
[ -z "$getters" ] || fail "per-field connection getters: $getters"
if grep -n 'IWCM_EVENT_' "$hdr"; then
	fail "iwcm.h uses the async events' IWCM_EVENT_ prefix"
fi
echo "ok: iwcm_conn_query(), distinct CM event prefix"
while read -r s; do
	[ -f "$top_srcdir/docs/$s.3" ] || fail "no man page docs/$s.3"
	grep -q "[[:space:]]$s\.3" "$top_srcdir/docs/libiwcm.mk" ||
		fail "docs/$s.3 is not installed (docs/libiwcm.mk)"
done <"$tmp/map"
while read -r s; do
	[ -f "$top_srcdir/docs/$s.3" ] || fail "no man page docs/$s.3"
	grep -q "[[:space:]]$s\.3" "$top_srcdir/docs/libiwcm.mk" ||
		fail "docs/$s.3 is not installed (docs/libiwcm.mk)"
	nm -D --defined-only "$lib" | grep -q " $s@" &&
		fail "$s is static inline in the header but exported"
done <"$tmp/inline"
echo "ok: one man page per function, inline ones included"

# proto/libipc.la is inside, hidden; libprotobuf-c stays dynamic.
nm "$lib" | grep -q ' t ipc_send$' ||
	fail "ipc_send is not linked into libiwcm.so as a local symbol"
readelf -d "$lib" | grep NEEDED | grep -q 'libprotobuf-c\.so' ||
	fail "libiwcm.so does not link libprotobuf-c dynamically"
echo "ok: libipc linked in and hidden, libprotobuf-c dynamic"

pc=$top_builddir/libclient/iwcm.pc
[ -f "$pc" ] || fail "$pc not generated"
if command -v pkg-config >/dev/null 2>&1; then
	PKG_CONFIG_PATH=$top_builddir/libclient
	export PKG_CONFIG_PATH
	pkg-config --print-requires-private iwcm | grep -q '^libprotobuf-c' ||
		fail "iwcm.pc lacks Requires.private: libprotobuf-c"
	pkg-config --libs iwcm | grep -q -- '-liwcm' ||
		fail "iwcm.pc does not link -liwcm"
	echo "ok: iwcm.pc"
fi
