# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tshark with the build tree's Wireshark plugin, and the comparison of
# what it shows with iwcmctl decode -j (sourced, not run: compare.sh,
# fuzz.sh, integ/dp_capture.sh, integ/sctp_capture.sh).  POSIX sh and
# awk.  The test environment (tests/Makefile.am) exports top_builddir,
# srcdir, TSHARK, WS_PLUGIN_DIR (the plugin directory of the build tree,
# empty when the plugin is not built) and WS_PLUGIN_SAN (the sanitizer
# flags it was built with).
#
#   ws_init            $ws_tmp, $IWCMCTL; 0, or 1 with the reason in
#                      $ws_skip (no plugin, no tshark, ...)
#   ws_ts FILE OPTS... tshark -r FILE with only this plugin loaded
#   ws_records PCAP DECODE_OPTS -- TSHARK_OPTS
#                      $ws_tmp/d.rec and $ws_tmp/w.rec: the records of
#                      decode and of the plugin (json_records.awk,
#                      pdml_records.awk)
#   ws_compare NAME PCAP [DECODE_OPTS] [-- TSHARK_OPTS]
#                      the two equal: 0, else 1 with the differences
#
# Where tshark looks for plugins (wsutil/filesystem.c, plugins.c of
# Wireshark 4.0): WIRESHARK_PLUGIN_DIR replaces the global directory
# and ~/.local/lib/wireshark/plugins is added, both only for a process
# without special privileges, which for Wireshark includes root.  As
# root, tshark therefore runs as nobody (setpriv), with a private HOME
# and configuration so that no installed copy or preference interferes.

ws_init() {
	: "${top_builddir:?run through make check}"
	# MPA's heuristic before port-based dissectors (tshark_opts.sh)
	. "$srcdir/tshark_opts.sh"
	IWCMCTL=${IWCMCTL:-$top_builddir/cli/iwcmctl}
	ws_skip=
	if [ -z "${WS_PLUGIN_DIR:-}" ]; then
		ws_skip="the Wireshark plugin is not built (wireshark-dev >= 4.0 not found by configure)"
		return 1
	fi
	if [ -z "${TSHARK:-}" ]; then
		ws_skip="tshark not found"
		return 1
	fi
	ws_so=$(ls "$WS_PLUGIN_DIR"/*/epan/iwcm.so 2>/dev/null | head -1)
	if [ -z "$ws_so" ]; then
		ws_skip="$WS_PLUGIN_DIR holds no iwcm.so"
		return 1
	fi
	ws_mm=${ws_so#"$WS_PLUGIN_DIR"/}
	ws_mm=${ws_mm%%/*}
	ws_ver=$("$TSHARK" --version 2>/dev/null |
		sed -n '1s/^TShark (Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')
	if [ "$ws_ver" != "$ws_mm" ]; then
		ws_skip="the plugin is built for Wireshark $ws_mm, tshark is ${ws_ver:-unknown}"
		return 1
	fi
	ws_pre=
	ws_env=
	if [ -n "${WS_PLUGIN_SAN:-}" ]; then
		# An ASan/UBSan plugin needs the sanitizer runtimes first in a
		# tshark that was built without them.
		for rt in libasan.so libubsan.so; do
			p=$(${CC:-cc} -print-file-name=$rt 2>/dev/null)
			case $p in
			/*) ws_pre="$ws_pre${ws_pre:+:}$(readlink -f "$p")" ;;
			*)
				ws_skip="the plugin is built with sanitizers and $rt is not found to preload into tshark"
				return 1
				;;
			esac
		done
		ws_env="LD_PRELOAD=$ws_pre ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1"
	fi
	ws_as=
	if [ "$(id -u)" -eq 0 ]; then
		if ! command -v setpriv >/dev/null 2>&1; then
			ws_skip="running as root and setpriv (util-linux) not found: tshark ignores plugin directories for root"
			return 1
		fi
		ws_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	fi
	ws_tmp=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-ws.XXXXXX") || return 1
	chmod 755 "$ws_tmp"
	mkdir -p "$ws_tmp/home" "$ws_tmp/conf"
	# nobody must read the plugin
	if [ -n "$ws_as" ] && ! $ws_as test -r "$ws_so"; then
		ws_skip="nobody cannot read $ws_so"
		rm -rf "$ws_tmp"
		return 1
	fi
	ws_awk=$srcdir/wireshark
	awk -v names=1 -f "$ws_awk/records.awk" -f "$ws_awk/json_records.awk" \
		</dev/null | sort -u >"$ws_tmp/names"
	return 0
}

ws_cleanup() {
	[ -n "${ws_tmp:-}" ] && rm -rf "$ws_tmp"
}

# ws_ts FILE OPTS...: tshark with only the build tree's plugin (under
# the command in $WS_WRAP when set, e.g. a timeout).  Without TCP's
# sequence analysis: it withholds from every dissector a segment it
# takes for a retransmission, which a capture recorded out of order
# makes of new data (an ACK past it captured first), and the plugin
# then loses that direction (wireshark-iwcm(7) BUGS).
ws_ts() {
	_f=$1
	shift
	# shellcheck disable=SC2086  # prefix commands and assignments
	${WS_WRAP:-} $ws_as env $ws_env HOME="$ws_tmp/home" \
		WIRESHARK_CONFIG_DIR="$ws_tmp/conf" \
		WIRESHARK_PLUGIN_DIR="$WS_PLUGIN_DIR" \
		"$TSHARK" -n $TSHARK_MPA_OPTS -o sctp.checksum:CRC-32C \
		-o tcp.analyze_sequence_numbers:FALSE "$@" \
		-r "$_f"
}

# ws_in FILE: a copy nobody can read.
ws_in() {
	cp "$1" "$ws_tmp/in.pcap" && chmod 644 "$ws_tmp/in.pcap"
}

# ws_records PCAP DECODE_OPTS... [-- TSHARK_OPTS...]
ws_records() {
	_p=$1
	shift
	_d=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_d="$_d $1"
		shift
	done
	[ $# -gt 0 ] && shift
	ws_in "$_p" || return 1
	# shellcheck disable=SC2086  # options, split
	"$IWCMCTL" decode -j -v $_d "$ws_tmp/in.pcap" >"$ws_tmp/d.json" \
		2>/dev/null
	LC_ALL=C awk -f "$ws_awk/records.awk" -f "$ws_awk/json_records.awk" \
		"$ws_tmp/d.json" | LC_ALL=C sort >"$ws_tmp/d.rec"
	if ! ws_ts "$ws_tmp/in.pcap" -T pdml "$@" >"$ws_tmp/w.pdml" \
		2>"$ws_tmp/w.err"; then
		echo "tshark failed:"
		sed 's/^/    /' "$ws_tmp/w.err" | head -10
		return 1
	fi
	LC_ALL=C awk -v keep="$ws_tmp/names" -f "$ws_awk/records.awk" \
		-f "$ws_awk/pdml_records.awk" "$ws_tmp/w.pdml" |
		LC_ALL=C sort >"$ws_tmp/w.rec"
}

# ws_diff NAME: d.rec and w.rec equal and not empty, else the first
# differences field by field.
ws_diff() {
	if grep -q '^UNMAPPED\|^JSONERR' "$ws_tmp/d.rec"; then
		echo "FAIL: $1: decode fields the comparison does not know:"
		grep '^UNMAPPED\|^JSONERR' "$ws_tmp/d.rec" | sort -u | head -5 |
			sed 's/^/    /'
		return 1
	fi
	if [ ! -s "$ws_tmp/d.rec" ]; then
		echo "FAIL: $1: decode reported no PDU"
		return 1
	fi
	if cmp -s "$ws_tmp/d.rec" "$ws_tmp/w.rec"; then
		echo "ok: $1: $(wc -l <"$ws_tmp/d.rec") PDUs, every field equal"
		return 0
	fi
	echo "FAIL: $1: the plugin and iwcmctl decode -j differ (< decode, > plugin)"
	awk -F'\t' '
	FNR == NR { d[$1] = $0; next }
	{ w[$1] = $0 }
	END {
		for (k in d) if (!(k in w)) { print "    only in decode: " k; n++ }
		for (k in w) if (!(k in d)) { print "    only in the plugin: " k; n++ }
		for (k in d) {
			if (!(k in w) || d[k] == w[k]) continue
			nd = split(d[k], a, "\t"); nw = split(w[k], b, "\t")
			split("", A); split("", B)
			for (i = 2; i <= nd; i++) A[a[i]] = 1
			for (i = 2; i <= nw; i++) B[b[i]] = 1
			for (x in A) if (!(x in B)) { print "    " k ": < " substr(x, 1, 120); n++ }
			for (x in B) if (!(x in A)) { print "    " k ": > " substr(x, 1, 120); n++ }
			if (n > 30) break
		}
	}' "$ws_tmp/d.rec" "$ws_tmp/w.rec" | head -30
	return 1
}

# ws_compare NAME PCAP [DECODE_OPTS] [-- TSHARK_OPTS]
ws_compare() {
	_n=$1
	shift
	ws_records "$@" || {
		echo "FAIL: $_n: no records"
		return 1
	}
	ws_diff "$_n"
}
