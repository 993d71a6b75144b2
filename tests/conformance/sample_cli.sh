#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl sample as a command: option errors (usage, exit 2), help,
# output errors (exit 2, iwcmctl(8)), determinism, the pcap and --hex outputs
# describing the same streams, the fixed addresses and the pcap file
# format, and the RTR FPDU byte for byte against Linux siw's (captures/
# siw-rping-mpa2-p2p-writertr: a zero-length Write, STag 1, TO 0).
# Needs no tshark.
set -u

. "$srcdir/conformance/lib.sh"
conf_init

# status WANT NAME ARGS...: iwcmctl sample ARGS exits with WANT.
status() {
	_want=$1 _sn=$2
	shift 2
	"$IWCMCTL" sample "$@" > "$tmp/out" 2> "$tmp/err"
	_rc=$?
	n_checks=$((n_checks + 1))
	if [ "$_rc" -ne "$_want" ]; then
		fail "$_sn: exit status $_rc, expected $_want"
		sed 's/^/    /' "$tmp/err" | head -5
		return 1
	fi
	return 0
}

# Options that must be refused with the usage text on stderr.
for args in "--bogus" "-x" "--rev 3" "--rev" "--rev x" "--rtr foo" \
	"--mss 127" "--mss 65496" "--mss 1e3" "--corrupt -1" \
	"--corrupt x" "stray" "--rtr read --rev 1" \
	"--rtr write --client-server" "--rtr-frame --rev 2" \
	"--rtr-frame --rtr send" "--rev0 --no-crc" "--rev0 --swap" \
	"--rev 1 --rev0" "-o" "--initiator-port 0" "--initiator-port 65536" \
	"--initiator-port 7174" "--initiator-port x" \
	"--transport sctp --initiator-port 48898"; do
	# shellcheck disable=SC2086
	if status 2 "sample $args" -o "$tmp/x.pcap" $args; then
		check "sample $args: usage on stderr" \
			grep -q '^usage: iwcmctl sample' "$tmp/err"
		check "sample $args: nothing on stdout" [ ! -s "$tmp/out" ]
	fi
done
# An FPDU number past the end is refused after the session is built.
status 2 "corrupt past the end" -o "$tmp/x.pcap" --corrupt 17 &&
	check "corrupt past the end: message" \
		grep -q 'only 17 FPDUs' "$tmp/err"
status 0 "corrupt the last" -o "$tmp/x.pcap" --corrupt 16

status 0 "--help" --help &&
	check "--help: usage on stdout" \
		grep -q '^usage: iwcmctl sample' "$tmp/out"

# Output errors: exit 2 with a message, no usage text.
status 2 "unwritable file" -o "$tmp/no/such/dir/x.pcap" &&
	check "unwritable file: message" grep -q 'x.pcap:' "$tmp/err" &&
	check "unwritable file: no usage" sh -c "! grep -q usage '$tmp/err'"
if [ -w /dev/full ]; then
	status 2 "full device" -o /dev/full &&
		check "full device: message" \
			grep -q 'No space left on device' "$tmp/err"
fi
# A pcap is never written to a terminal (util-linux script gives a pty).
if command -v script > /dev/null 2>&1 &&
	script -qec true /dev/null > /dev/null 2>&1; then
	script -qec "'$IWCMCTL' sample; echo rc=\$?" /dev/null \
		> "$tmp/tty" 2>&1
	check "terminal refused" grep -q 'rc=2' "$tmp/tty"
	check "terminal refused: message" grep -q 'terminal' "$tmp/tty"
fi

# Deterministic, and '-o -' is standard output.
for opts in "" "--markers --terminate --swap" "--rev0 --mss 536" \
	"--rtr-frame --corrupt 3" "--initiator-port 48898"; do
	# shellcheck disable=SC2086
	"$IWCMCTL" sample -o "$tmp/a.pcap" $opts
	# shellcheck disable=SC2086
	"$IWCMCTL" sample -o - $opts > "$tmp/b.pcap"
	check "deterministic [$opts]" cmp -s "$tmp/a.pcap" "$tmp/b.pcap"
	# shellcheck disable=SC2086
	"$IWCMCTL" sample --hex $opts > "$tmp/a.hex"
	# shellcheck disable=SC2086
	"$IWCMCTL" sample --hex -o "$tmp/b.hex" $opts
	check "deterministic hex [$opts]" cmp -s "$tmp/a.hex" "$tmp/b.hex"
	# The two formats carry the same streams.
	decode_fpdus "$tmp/a.pcap" > "$tmp/a.dec"
	decode_fpdus -x "$tmp/a.hex" > "$tmp/b.dec"
	check "FPDUs decoded [$opts]" [ -s "$tmp/a.dec" ]
	same "pcap and hex decode alike [$opts]" "$tmp/a.dec" "$tmp/b.dec"
done

# The classic pcap header, little-endian, LINKTYPE_ETHERNET.
"$IWCMCTL" sample -o "$tmp/s.pcap"
eq_hdr=$(od -A n -t x1 -N 24 "$tmp/s.pcap" | tr -s ' \n' '  ' |
	sed 's/^ //; s/ $//')
# magic, version 2.4, thiszone 0, sigfigs 0, snaplen 262144, linktype 1
check "pcap header ($eq_hdr)" [ "$eq_hdr" = "d4 c3 b2 a1 02 00 04 00 \
00 00 00 00 00 00 00 00 00 00 04 00 01 00 00 00" ]

# The decoder sees one connection with the documented endpoints, every
# packet TCP/IPv4, the handshake, two frames and every FPDU.
"$IWCMCTL" decode -j "$tmp/s.pcap" > "$tmp/s.json"
check "endpoints" grep -q \
	'"type":"conn","conn":1,"a":"192.0.2.1:49152","b":"192.0.2.2:7174"' \
	"$tmp/s.json"
sum=$(grep '"type":"summary"' "$tmp/s.json" | awk "$JAWK"'{
	print jget($0, "packets") - jget($0, "tcp_segments"),
	    jget($0, "skipped"), jget($0, "connections"), jget($0, "frames"),
	    jget($0, "fpdus"), jget($0, "errors"), jget($0, "malformed") }')
n_checks=$((n_checks + 1))
[ "$sum" = "0 0 1 2 17 0 0" ] ||
	fail "decode summary: '$sum', expected '0 0 1 2 17 0 0'"

# The RTR FPDU (CRC off) is the one Linux siw sends, byte for byte:
# ULPDU_Length 14, DDP tagged+last v1, RDMAP v1 Write, STag 1, TO 0.
"$IWCMCTL" sample --hex --no-crc | awk '
	/^# FPDU 0:/ { on = 1; next }
	/^#/ { on = 0 }
	on { sub(/^> /, ""); printf "%s%s", sep, $0; sep = " " }
	END { print "" }' > "$tmp/rtr"
check "RTR FPDU as siw sends it" [ "$(cat "$tmp/rtr")" = \
	"00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00 00 00 00 00" ]

conf_done
