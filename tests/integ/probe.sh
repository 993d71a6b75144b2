#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl probe against a real iwcmd whose responder is iwcmctl listen:
# every offer makes a row, and each row's Reply is what iwcmd's responder
# documents (DESIGN.md "Defaults"): Rev 1 unenhanced, Rev 2 client-server,
# peer-to-peer echoing the one RTR type offered and choosing Write out of
# all three, IRD/ORD 0x3FFF passed through, Rev 0 closed under the strict
# policy and answered with Rev 0 under the permissive one; text and JSON.
# Then an unreachable port, SCTP through a daemon without it, bad
# arguments and no daemon.
set -u
. "$srcdir/integ/daemon.sh"
lpid=
fails=0
passes=0
ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

daemon_dir probe
# a UDP encapsulation port of this run's own for SCTP
daemon_start log "sctp_udp_port = $((20000 + $$ % 20000))"

# listen ARGS: iwcmctl listen answering every request, $port set
listen() {
	: >"$dir/l.out"
	"$ctl" listen 127.0.0.1:0 --count 100 "$@" >"$dir/l.out" 2>&1 &
	lpid=$!
	bg_pids="$bg_pids $lpid"
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 500 ]; do
		port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' \
			"$dir/l.out")
		i=$((i + 1))
		[ -n "$port" ] || sleep 0.01
	done
	[ -n "$port" ] || fail "listen $*: no port"
}
unlisten() {
	kill "$lpid" 2>/dev/null
	wait "$lpid" 2>/dev/null
	lpid=
}
# row OFFER WANT: the text row of OFFER (its columns squeezed) is WANT
row() {
	got=$(awk -v o="$1" '$1 == o { $1 = $1; print; exit }' "$dir/p.out")
	[ "$got" = "$1 $2" ] && ok || fail "row $1: '$got', not '$1 $2'"
}

listen
"$ctl" probe "127.0.0.1:$port" --timeout 3000 >"$dir/p.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || fail "probe exited $rc: $(cat "$dir/p.out")"
#       result      rev M C R S model      ird   ord   rtr
row rev1 "established 1 0 1 0 0 unenhanced - - -"
row rev2 "established 2 0 1 0 1 client-srv 16 16 none"
row p2p-send "established 2 0 1 0 1 p2p 16 16 send"
row p2p-write "established 2 0 1 0 1 p2p 16 16 write"
row p2p-read "established 2 0 1 0 1 p2p 16 16 read"
row p2p-all "established 2 0 1 0 1 p2p 16 16 write"
row crc-on "established 2 0 1 0 1 client-srv 16 16 none"
row crc-off "established 2 0 1 0 1 client-srv 16 16 none"
row markers "established 2 0 1 0 1 client-srv 16 16 none"
row irdord-none "established 2 0 1 0 1 client-srv 16383 16383 none"
row rev0 "ECONNRESET - - - - - -"
row rtr-frame "established 1 0 1 0 0 unenhanced - - -"
grep -q '^12 offers$' "$dir/p.out" && ok || fail "not 12 offers"

# JSON: one document, one object per offer
"$ctl" -j probe "127.0.0.1:$port" --timeout 3000 >"$dir/p.json" 2>&1
[ "$(wc -l <"$dir/p.json")" -eq 1 ] && ok || fail "JSON: not one line"
for want in '"transport":"tcp"' '"offers":12' \
	'"offer":"p2p-read","offered":"peer-to-peer, Read RTR","result":"ESTABLISHED","reply":{"rev":2,"markers":false,"crc":true,"reject":false,"s":true,"enhanced":true,"p2p":true,"rtr":["read"],"ird":16,"ord":16' \
	'"offer":"markers","offered":"markers asked for (M=1)","result":"ESTABLISHED"' \
	'"markers_tx":false,"markers_rx":true,"p2p":false' \
	'"offer":"rev0","offered":"RDMA Consortium Rev 0","result":"ECONNRESET","reason":"peer closed while the Reply was expected","reply":null'; do
	grep -q -F "$want" "$dir/p.json" && ok ||
		fail "JSON lacks $want: $(cat "$dir/p.json")"
done
unlisten

# a permissive listener answers Rev 0 with Rev 0 (seed 002)
listen --rev0 permissive
"$ctl" probe "127.0.0.1:$port" --timeout 3000 >"$dir/p.out" 2>&1
row rev0 "established 0 1 1 0 0 unenhanced - - -"
unlisten

# --offers: those only, in the table's order
listen
"$ctl" probe "127.0.0.1:$port" --offers p2p-read,rev1 >"$dir/p.out" 2>&1
grep -q '^2 offers$' "$dir/p.out" && ok || fail "--offers: $(cat "$dir/p.out")"
[ "$(awk 'NR > 2 { print $1 }' "$dir/p.out" | head -n 2 | tr '\n' ' ')" = \
	"rev1 p2p-read " ] && ok || fail "--offers order: $(cat "$dir/p.out")"
unlisten

# nothing listening: every offer refused, the probe itself fine
"$ctl" probe 127.0.0.1:1 --timeout 1000 >"$dir/p.out" 2>&1
rc=$?
[ $rc -eq 0 ] && ok || fail "probe of a closed port exited $rc"
[ "$(grep -c ' ECONNREFUSED ' "$dir/p.out")" -eq 12 ] && ok ||
	fail "closed port: $(cat "$dir/p.out")"

# SCTP (RFC 5043 sessions through libiwcm): an SCTP listener answers the
# Enhanced Initiate with an Enhanced Accept (IRD/ORD 16) and the plain
# one with an Accept; nothing listening: no association
listen --transport sctp
"$ctl" probe "127.0.0.1:$port" --transport sctp --timeout 5000 \
	>"$dir/p.out" 2>&1
row sctp-enhanced "established - - enhanced 16 16 -"
row sctp-plain "established - - plain - - -"
grep -q '^2 offers$' "$dir/p.out" && ok || fail "sctp: $(cat "$dir/p.out")"
"$ctl" -j probe "127.0.0.1:$port" --transport sctp >"$dir/p.json" 2>&1
grep -q -F '"offer":"sctp-enhanced","offered":"Enhanced Initiate (code 5)","result":"ESTABLISHED","reply":{"enhanced":true,"ird":16,"ord":16}' \
	"$dir/p.json" && ok || fail "sctp JSON: $(cat "$dir/p.json")"
unlisten
"$ctl" probe 127.0.0.1:1 --transport sctp --timeout 2000 >"$dir/p.out" 2>&1
[ "$(grep -c ' ECONNREFUSED ' "$dir/p.out")" -eq 2 ] && ok ||
	fail "sctp, nothing listening: $(cat "$dir/p.out")"

# bad arguments: exit 2, a message, nothing on stdout
for args in "" "127.0.0.1" "127.0.0.1:1 --transport udp" \
	"127.0.0.1:1 --timeout 5" "127.0.0.1:1 --timeout x" \
	"127.0.0.1:1 127.0.0.1:2" "127.0.0.1:1 --colour blue" \
	"127.0.0.1:1 --transport" "127.0.0.1:1 --offers bogus" \
	"127.0.0.1:1 --offers rev1,,rev2" "127.0.0.1:1 --offers" \
	"127.0.0.1:1 --first-fpdu-delay 10001"; do
	# shellcheck disable=SC2086
	out=$("$ctl" probe $args 2>"$dir/err")
	rc=$?
	[ $rc -eq 2 ] && ok || fail "probe $args exited $rc"
	[ -z "$out" ] && ok || fail "probe $args printed: $out"
	[ -s "$dir/err" ] && ok || fail "probe $args said nothing"
done
"$ctl" probe --help | grep -q -- "--transport tcp|sctp" && ok ||
	fail "probe --help"

# no daemon: one line naming the socket
daemon_stop
out=$("$ctl" probe 127.0.0.1:1 2>&1)
rc=$?
[ $rc -eq 2 ] && ok || fail "probe with no daemon exited $rc"
case "$out" in
*"$dir"*) ok ;;
*) fail "probe with no daemon does not name the socket: $out" ;;
esac

echo "$passes passed, $fails failed"
[ $fails -eq 0 ] || { echo "---- iwcmd log"; cat "$dir/log"; exit 1; }
exit 0
