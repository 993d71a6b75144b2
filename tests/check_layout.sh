#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The shape of the tree (DESIGN.md, Layout): no source file of a component
# over 1,000 lines, and no call cycle between the files of a component
# except an FSM with its phase files (the ldpd model).  Calls are read from
# the built objects (nm: what a file defines, what it needs), so a cycle
# through a static inline or a macro does not count, one through any
# exported function does.
set -eu
: "${top_srcdir:?}" "${top_builddir:?}"

MAX_LINES=1000
status=0

fail() {
	echo "FAIL: $*"
	status=1
}

# One line per component: its source folder, its object folder (libtool
# objects of a convenience library live in .libs), the prefix automake
# gives its objects, and the groups of files allowed to call each other
# (an FSM and its phases, comma-separated files, groups space-separated).
components() {
	cat <<'EOF'
libclient libclient/.libs libiwcm_core_la- qp,qp_fsm,qp_tx,qp_rx
daemon daemon/.libs libiwcmd_la- conn,conn_fsm,conn_action,mpa_negotiate,rtr_fence,handoff
wire wire/.libs libwire_la- -
proto proto/.libs libipc_la- -
cli cli/.libs libdissect_la- -
cli cli iwcmctl- -
wireshark wireshark/.libs iwcm_la- -
bench bench iwcm_bench- -
examples examples iwcm_rping- -
fabric fabric/.libs libiwcm_fi_la- -
EOF
}

# Files over the limit.
components | while read -r dir _ _ _; do
	for f in "$top_srcdir/$dir"/*.c "$top_srcdir/$dir"/*.h; do
		[ -f "$f" ] || continue
		n=$(wc -l <"$f")
		[ "$n" -le "$MAX_LINES" ] ||
			echo "FAIL: $dir/${f##*/} has $n lines (limit $MAX_LINES)"
	done
done >"${TMPDIR:-/tmp}/iwcm-layout.$$"
if [ -s "${TMPDIR:-/tmp}/iwcm-layout.$$" ]; then
	sort -u "${TMPDIR:-/tmp}/iwcm-layout.$$"
	status=1
fi
rm -f "${TMPDIR:-/tmp}/iwcm-layout.$$"

# Call cycles: an edge a -> b when a needs a symbol b defines; the
# transitive closure shows every pair that reaches each other.
cycles() {
	objdir=$1 prefix=$2 allowed=$3
	for o in "$objdir"/"$prefix"*.o; do
		[ -f "$o" ] || continue
		name=${o##*/}
		name=${name#"$prefix"}
		name=${name%.o}
		nm "$o" | awk -v f="$name" '
			NF == 3 && $2 ~ /^[TDBR]$/ { print "def", f, $3 }
			NF == 2 && $1 == "U" { print "use", f, $2 }'
	done | awk -v allowed="$allowed" '
		BEGIN {
			ng = split(allowed, groups, " ")
			for (g = 1; g <= ng; g++) {
				nf = split(groups[g], fs, ",")
				for (i = 1; i <= nf; i++)
					grp[fs[i]] = g
			}
		}
		$1 == "def" { def[$3] = $2; file[$2] = 1 }
		$1 == "use" { use[$2, $3] = 1; file[$2] = 1 }
		END {
			for (k in use) {
				split(k, p, SUBSEP)
				if ((p[2] in def) && def[p[2]] != p[1])
					r[p[1], def[p[2]]] = 1
			}
			for (m in file)
				for (a in file)
					if ((a, m) in r)
						for (b in file)
							if ((m, b) in r)
								r[a, b] = 1
			for (a in file)
				for (b in file)
					if (a < b && ((a, b) in r) && ((b, a) in r) &&
					    !((a in grp) && (b in grp) &&
					      grp[a] == grp[b]))
						printf "FAIL: %s and %s call each other\n", a, b
		}'
}

components | while read -r dir objdir prefix allowed; do
	[ "$allowed" = "-" ] && allowed=""
	if ! ls "$top_builddir/$objdir"/"$prefix"*.o >/dev/null 2>&1; then
		echo "FAIL: no objects of $dir in $top_builddir/$objdir"
		continue
	fi
	cycles "$top_builddir/$objdir" "$prefix" "$allowed" |
		sed "s|^FAIL: |FAIL: $dir: |"
done >"${TMPDIR:-/tmp}/iwcm-cycles.$$"
if [ -s "${TMPDIR:-/tmp}/iwcm-cycles.$$" ]; then
	sort "${TMPDIR:-/tmp}/iwcm-cycles.$$"
	status=1
fi
rm -f "${TMPDIR:-/tmp}/iwcm-cycles.$$"

[ "$status" -eq 0 ] && echo "ok: file sizes and call graph"
exit "$status"
