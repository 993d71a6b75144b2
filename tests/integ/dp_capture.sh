#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# A live loopback capture of the datapath: dp_traffic connects two
# libiwcm endpoints through a real iwcmd (MPA Rev 1, markers both ways,
# CRC) and runs every operation in both directions while tcpdump records
# the connection on lo.  tshark 4.0 dissects only an FPDU that fills its
# TCP segment (its expected_ulpdu_length() comes from the segment
# length), so dp_traffic first runs one small operation at a time, each
# FPDU in a segment of its own, then messages of many FPDUs that the
# kernel packs into segments as it likes, which only the decoder follows.
# Then:
#  1. tshark 4.0 (the prefs of tests/conformance/tshark_sample.sh, ULP
#     heuristics off, TCP reassembly on) finds the MPA Request and Reply
#     with M=1 and C=1, no malformed packet and no expert info at error
#     severity, and every FPDU it dissects has a good CRC; it dissects
#     FPDUs of both directions and every opcode the traffic used.
#  2. iwcmctl decode -j exits 0, decodes as many FPDUs as tshark or
#     more, each with a good CRC, markers that agree, and nothing bad.
#  3. With the Wireshark plugin built (wireshark/), tshark with it shows
#     every field of every PDU as iwcmctl decode -j does.
# Loopback checksums are left to the kernel's offload, so they are not
# checked.  Needs root for tcpdump (SKIP otherwise), tcpdump and tshark
# 4.0 (SKIP without them).
set -u

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: capturing on lo needs root"
	exit 77
fi
if ! command -v tcpdump >/dev/null 2>&1; then
	echo "SKIP: tcpdump not installed"
	exit 77
fi
if [ -z "${TSHARK:-}" ]; then
	echo "SKIP: tshark not found"
	exit 77
fi
ver=$("$TSHARK" --version 2>/dev/null |
	sed -n '1s/^TShark (Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')
if [ "$ver" != "4.0" ]; then
	echo "SKIP: expectations are for tshark 4.0, found '${ver:-unknown}'"
	exit 77
fi
: "${builddir:?run through make check}"
IWCMCTL=$top_builddir/cli/iwcmctl

tmp=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-dpcap.XXXXXX") || exit 99
tpid=
dpid=
cleanup() {
	[ -n "$tpid" ] && kill "$tpid" 2>/dev/null
	[ -n "$dpid" ] && kill "$dpid" 2>/dev/null
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM
n_fail=0
fail() {
	n_fail=$((n_fail + 1))
	echo "FAIL: $*"
}

# dp_traffic prints its listener's port, then waits for a line.
mkfifo "$tmp/go"
"$builddir/dp_traffic" <"$tmp/go" >"$tmp/port" 2>"$tmp/traffic.log" &
dpid=$!
exec 3>"$tmp/go"
i=0
while [ ! -s "$tmp/port" ] && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
port=$(cat "$tmp/port")
case $port in
'' | *[!0-9]*)
	echo "FAIL: dp_traffic did not start"
	cat "$tmp/traffic.log"
	exit 1
	;;
esac

tcpdump -i lo -n -U --immediate-mode -s 0 -B 16384 -w "$tmp/dp.pcap" \
	"tcp port $port" 2>"$tmp/tcpdump.log" &
tpid=$!
i=0
while ! grep -q 'listening on' "$tmp/tcpdump.log" && [ $i -lt 100 ]; do
	sleep 0.05
	i=$((i + 1))
done
if ! grep -q 'listening on' "$tmp/tcpdump.log"; then
	echo "SKIP: tcpdump cannot capture on lo: $(cat "$tmp/tcpdump.log")"
	exit 77
fi
echo go >&3
exec 3>&-
wait "$dpid"
rc=$?
dpid=
# Immediate mode hands every packet over at once; the file must still
# stop growing before tcpdump stops.
size=-1
i=0
while [ $i -lt 50 ]; do
	sleep 0.1
	now=$(wc -c <"$tmp/dp.pcap")
	[ "$now" -eq "$size" ] && break
	size=$now
	i=$((i + 1))
done
kill -INT "$tpid"
wait "$tpid"
tpid=
if [ "$rc" -ne 0 ]; then
	fail "dp_traffic exit $rc"
	cat "$tmp/traffic.log"
fi
# "N packets dropped by kernel": the capture is not the whole traffic.
drops=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' \
	"$tmp/tcpdump.log")
if [ "${drops:-0}" -ne 0 ]; then
	echo "SKIP: tcpdump lost $drops packets"
	exit 77
fi
grep 'operations verified' "$tmp/traffic.log"

# ---- tshark ----
mkdir -p "$tmp/ws"
WIRESHARK_CONFIG_DIR=$tmp/ws
export WIRESHARK_CONFIG_DIR
. "$srcdir/tshark_opts.sh"
# shellcheck disable=SC2086  # options, split
"$TSHARK" -n -o tcp.desegment_tcp_streams:TRUE $TSHARK_MPA_OPTS \
	-o tcp.analyze_sequence_numbers:TRUE \
	--disable-heuristic rpcrdma_iwarp --disable-heuristic smb_direct_iwarp \
	-r "$tmp/dp.pcap" -T pdml -z expert,error >"$tmp/ts.pdml" \
	2>"$tmp/ts.err" || fail "tshark exit status"
awk -v port="$port" '
function attr(name,   s) {
	if (!match($0, " " name "=\"[^\"]*\""))
		return ""
	s = substr($0, RSTART + length(name) + 3)
	return substr(s, 1, index(s, "\"") - 1)
}
function field(n) { return index($0, "<field name=\"" n "\"") }
/<proto name="_ws.malformed"/ { malformed++ }
field("tcp.srcport") { sport = attr("show") }
field("iwarp_mpa.req") { req++ }
field("iwarp_mpa.rep") { rep++ }
field("iwarp_mpa.marker_flag") { if (attr("show") == "1") mflag++ }
field("iwarp_mpa.crc_flag") { if (attr("show") == "1") cflag++ }
field("iwarp_mpa.ulpdulength") {
	fpdus++
	dir[sport == port ? "r2i" : "i2r"]++
}
field("iwarp_mpa.crc_check") {
	s = attr("showname")
	if (s ~ /Good CRC32/)
		good++
	else
		bad++
}
field("iwarp_mpa.marker_fpduptr") { markers++ }
field("iwarp_rdma.opcode") { op[attr("show") + 0]++ }
END {
	printf "tshark: %d FPDUs (i2r %d, r2i %d), %d good CRC, %d bad, " \
	       "%d markers, %d malformed\n", fpdus, dir["i2r"], dir["r2i"],
	       good, bad, markers, malformed
	ok = 1
	if (req != 1 || rep != 1 || mflag != 2 || cflag != 2) {
		print "FAIL: MPA Request/Reply with M=1 C=1 not found"; ok = 0
	}
	if (malformed) { print "FAIL: malformed packets"; ok = 0 }
	if (fpdus < 20 || good != fpdus || bad) {
		print "FAIL: FPDUs without a good CRC"; ok = 0
	}
	if (!dir["i2r"] || !dir["r2i"]) {
		print "FAIL: FPDUs of one direction missing"; ok = 0
	}
	if (!markers) { print "FAIL: no markers dissected"; ok = 0 }
	# Write, Read Request/Response, Send, Send with Inv, Send SE,
	# Immediate Data, Atomic Request/Response.
	split("0 1 2 3 4 5 8 10 11", want, " ")
	for (i in want)
		if (!op[want[i]]) {
			printf "FAIL: no opcode %s dissected\n", want[i]; ok = 0
		}
	print fpdus > "'"$tmp/ts.count"'"
	exit ok ? 0 : 1
}' "$tmp/ts.pdml" || fail "tshark dissection"
if grep -q '^Errors (' "$tmp/ts.pdml"; then
	fail "tshark expert infos at error severity"
	sed -n '/^Errors (/,$p' "$tmp/ts.pdml" | head -20
fi

# ---- iwcmctl decode ----
"$IWCMCTL" decode -j "$tmp/dp.pcap" >"$tmp/dec.json" 2>"$tmp/dec.err" ||
	fail "iwcmctl decode exit status"
ts_count=$(cat "$tmp/ts.count" 2>/dev/null || echo 0)
awk -v tsn="$ts_count" '
/"type":"fpdu"/ {
	n++
	if ($0 !~ /"crc":"good"/) badcrc++
	if ($0 !~ /"markers":\{"count":[0-9]*,"ok":true/) badmk++
	if ($0 !~ /"bad":false/) bad++
	if ($0 ~ /"markers":\{"count":[1-9]/) withmk++
}
/"type":"error"/ { err++ }
END {
	printf "decode: %d FPDUs, %d with markers, %d bad CRC, " \
	       "%d bad markers, %d bad, %d errors\n", n, withmk, badcrc,
	       badmk, bad, err
	exit (n >= tsn && n >= 20 && withmk && !badcrc && !badmk && !bad &&
	      !err) ? 0 : 1
}' "$tmp/dec.json" || fail "iwcmctl decode: every FPDU good"

# ---- the Wireshark plugin (wireshark/lib.sh), when it is built ----
# tshark with iwcm.so shows every field iwcmctl decode -j shows.
. "$srcdir/wireshark/lib.sh"
if ws_init; then
	ws_compare "Wireshark plugin on the capture" "$tmp/dp.pcap" ||
		fail "the Wireshark plugin and iwcmctl decode differ"
	ws_cleanup
else
	echo "note: Wireshark plugin not compared: $ws_skip"
fi

if [ "$n_fail" -ne 0 ]; then
	cp "$tmp/dp.pcap" "${TMPDIR:-/tmp}/iwcm-dp-capture.pcap" 2>/dev/null &&
		echo "capture kept as ${TMPDIR:-/tmp}/iwcm-dp-capture.pcap"
	exit 1
fi
echo "PASS"
exit 0
