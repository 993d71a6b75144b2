#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl and iwcmctl decode command lines: help, bad usage and unreadable
# input give exit status 2 and a message on stderr naming the problem.
. "$srcdir/decode/lib.sh"

run() {
	"$IWCMCTL" "$@" >"$T/out" 2>"$T/err"
	echo $?
}

is "iwcmctl --help: status 0" "$(run --help)" 0
check "iwcmctl --help: lists decode" grep -q '^  decode ' "$T/out"
check "iwcmctl --help: lists sample" grep -q '^  sample ' "$T/out"
is "iwcmctl --version: status 0" "$(run --version)" 0
check "iwcmctl --version: prints the version" grep -q '^iwcmctl [0-9]' "$T/out"
is "iwcmctl alone: status 2" "$(run)" 2
check "iwcmctl alone: usage on stderr" grep -q '^usage: iwcmctl' "$T/err"
is "unknown command: status 2" "$(run frobnicate)" 2
check "unknown command: named" grep -q "unknown command 'frobnicate'" "$T/err"
is "command prefix: status 0" "$(run dec --help)" 0
check "command prefix: decode's help" grep -q '^usage: iwcmctl decode' "$T/out"

is "decode --help: status 0" "$(run decode --help)" 0
check "decode --help: to stdout" test -s "$T/out"
is "decode -Z: status 2" "$(run decode -Z "$CAPS/siw-rping-mpa1.pcap")" 2
check "decode -Z: named" grep -q 'unknown option -Z' "$T/err"
is "decode --bogus: status 2" "$(run decode --bogus)" 2
check "decode --bogus: named" grep -q 'unknown option --bogus' "$T/err"
is "decode two files: status 2" \
	"$(run decode "$CAPS/siw-rping-mpa1.pcap" "$CAPS/siw-rping-mpa1.pcap")" 2
check "decode two files: message" grep -q 'too many arguments' "$T/err"
is "decode missing file: status 2" "$(run decode "$T/nonexistent.pcap")" 2
check "decode missing file: names the file" grep -q 'nonexistent.pcap' "$T/err"
check "decode missing file: nothing on stdout" test ! -s "$T/out"
is "decode --hex missing file: status 2" \
	"$(run decode --hex "$T/nonexistent.hex")" 2
check "decode --hex missing file: names the file" \
	grep -q 'nonexistent.hex: No such file' "$T/err"
printf 'this is not a capture\n' >"$T/text.pcap"
is "decode a text file: status 2" "$(run decode "$T/text.pcap")" 2
check "decode a text file: names it" grep -q 'text.pcap' "$T/err"
is "decode empty stdin: status 2" "$(run decode </dev/null)" 2

# a pcap header with link type 105 (IEEE 802.11): not supported
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\151\000\000\000' \
	>"$T/wifi.pcap"
is "unsupported link type: status 2" "$(run decode "$T/wifi.pcap")" 2
check "unsupported link type: message" \
	grep -q 'wifi.pcap: unsupported link type 105' "$T/err"
# an empty but valid capture: nothing to report, status 0
printf '\324\303\262\241\002\000\004\000\000\000\000\000\000\000\000\000\377\377\000\000\001\000\000\000' \
	>"$T/empty.pcap"
is "empty capture: status 0" "$(run decode -j "$T/empty.pcap")" 0
is "empty capture: summary only" "$(cat "$T/out" | jval type)" summary

# pcap on standard input
is "capture on stdin: status 0" \
	"$(run decode -j - <"$CAPS/siw-rping-mpa1.pcap")" 0
is "capture on stdin: input name" "$(lines summary <"$T/out" | jval input)" "<stdin>"

# output that cannot be written
if [ -w /dev/full ]; then
	"$IWCMCTL" decode "$CAPS/siw-rping-mpa1.pcap" >/dev/full 2>"$T/err"
	is "write error: status 2" "$?" 2
	check "write error: message" grep -q 'writing output' "$T/err"
fi

done_testing
