#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl listen and iwcmctl connect through a real iwcmd -d on a
# temporary socket: a listen in the background (its bound port read from
# its first JSON line) and a connect against it, for MPA v1, v2
# client-server, v2 peer-to-peer with each RTR type, markers each way,
# CRC on and off, IRD/ORD including 0x3FFF, private data both ways, a
# reject with private data, Rev 0 (connect --daemon) against a permissive
# and a strict listener, the legacy RtR frame, --count, an unreachable
# port and usage errors.  Both sides' -j output must agree on what was
# negotiated.
set -u
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
dir=$(mktemp -d /tmp/iwcm-cli.XXXXXX)
sock="$dir/iwcmd.sock"
pid=
lpid=
fails=0
passes=0

cleanup() {
	[ -n "$lpid" ] && kill -9 "$lpid" 2>/dev/null
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
has() {
	case "$1" in
	*"$2"*) ok ;;
	*) fail "$3: '$2' missing from: $1" ;;
	esac
}
# jget JSON KEY: the value of "KEY" (a string without its quotes)
jget() {
	v=$(printf '%s\n' "$1" | sed -n "s/.*\"$2\":\"\([^\"]*\)\".*/\1/p")
	[ -n "$v" ] || v=$(printf '%s\n' "$1" |
		sed -n "s/.*\"$2\":\([^,}\"]*\).*/\1/p")
	printf '%s' "$v"
}
# is NAME JSON KEY WANT
is() {
	got=$(jget "$2" "$3")
	[ "$got" = "$4" ] && ok || fail "$1: $3 is '$got', not '$4': $2"
}

# listen ARGS...: start iwcmctl -j listen in the background, set $port
listen() {
	# empty before the background start: never read the last one's port
	: >"$dir/l.out"
	"$ctl" -j listen 127.0.0.1:0 --timeout 10000 "$@" >"$dir/l.out" \
		2>"$dir/l.err" &
	lpid=$!
	i=0
	port=
	while [ -z "$port" ]; do
		port=$(sed -n \
			's/.*"event":"LISTENING".*"port":\([0-9]*\).*/\1/p' \
			"$dir/l.out")
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$lpid" 2>/dev/null; then
			port=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' \
				"$dir/l.out")
			[ -n "$port" ] && break
			fail "listen $*: no port:" \
				"$(cat "$dir/l.out" "$dir/l.err")"
			return 1
		fi
		sleep 0.01
	done
	return 0
}
# finish NAME WANT: wait for the listen, check its exit status, set $l to
# its last line and $req to its CONNECT_REQUEST line
finish() {
	wait "$lpid"
	lrc=$?
	lpid=
	[ "$lrc" -eq "$2" ] && ok ||
		fail "$1: listen exited $lrc, not $2:" \
			"$(cat "$dir/l.out" "$dir/l.err")"
	l=$(tail -n 1 "$dir/l.out")
	req=$(grep '"event":"CONNECT_REQUEST"' "$dir/l.out" | head -n 1)
}
# connect NAME WANT ARGS...: run iwcmctl -j connect to $port, set $c
connect() {
	name=$1
	want=$2
	shift 2
	"$ctl" -j connect "127.0.0.1:$port" "$@" >"$dir/c.out" 2>"$dir/c.err"
	crc=$?
	c=$(cat "$dir/c.out")
	[ "$crc" -eq "$want" ] && ok ||
		fail "$name: connect exited $crc, not $want:" \
			"$c $(cat "$dir/c.err")"
}
# agree NAME: both sides established and agree on the negotiated state
agree() {
	is "$1" "$c" event ESTABLISHED
	is "$1" "$l" event ESTABLISHED
	is "$1" "$c" role initiator
	is "$1" "$l" role responder
	for k in transport mpa_rev ddp_version rdmap_version crc enhanced \
		p2p rtr_type rtr_frame; do
		is "$1 (same $k)" "$l" "$k" "$(jget "$c" "$k")"
	done
	is "$1" "$l" markers_tx "$(jget "$c" markers_rx)"
	is "$1" "$l" markers_rx "$(jget "$c" markers_tx)"
	is "$1" "$l" local "$(jget "$c" peer)"
	is "$1" "$l" peer "$(jget "$c" local)"
	is "$1" "$l" rx_offset "$(jget "$c" tx_offset)"
	is "$1" "$l" rtr_read_due false
	# RFC 6581 §9.2: after a Read RTR the initiator is handed off
	# before the responder's zero-length Read Response (20 octets)
	if [ "$(jget "$c" rtr_type)" = read ] &&
		[ "$(jget "$c" p2p)" = true ]; then
		is "$1" "$c" rtr_read_due true
		is "$1" "$c" rx_offset 0
		is "$1" "$l" tx_offset 20
	else
		is "$1" "$c" rtr_read_due false
		is "$1" "$l" tx_offset "$(jget "$c" rx_offset)"
	fi
}
# pair NAME "LISTEN ARGS" CONNECT ARGS...: one established connection
pair() {
	name=$1
	largs=$2
	shift 2
	# shellcheck disable=SC2086
	listen $largs || return 1
	connect "$name" 0 "$@"
	finish "$name" 0
	agree "$name"
}

cat >"$dir/iwcmd.conf" <<EOC
# iwcmctl_client.sh
request_timeout_ms = 5000
reply_timeout_ms = 5000
sctp_udp_port = $((20000 + $$ % 30000))
EOC
"$iwcmd" -d -f "$dir/iwcmd.conf" -s "$sock" 2>"$dir/log" &
pid=$!
IWCM_SOCKET=$sock
export IWCM_SOCKET
i=0
while ! "$ctl" status >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 500 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "FAIL: iwcmd did not start"
		cat "$dir/log"
		exit 1
	fi
	sleep 0.01
done

# MPA v1 (RFC 5044): no enhanced word, the responder waits for an FPDU
pair v1 "--rev 1" --rev 1
is v1 "$c" mpa_rev 1
is v1 "$c" enhanced false
is v1 "$c" peer_enhanced false
is v1 "$l" wait_first_fpdu true
is v1 "$c" wait_first_fpdu false

# DDP over SCTP (RFC 5043) through the daemon's association and relay:
# no MPA (revision 0, no markers, no CRC), the enhanced word of RFC 6581
# §7 with IRD/ORD, private data both ways
pair sctp "--transport sctp --private-data 0a0b" --transport sctp \
	--ird 3 --ord 2 --private-data 010203
is sctp "$c" transport sctp
is sctp "$c" mpa_rev 0
is sctp "$c" crc false
is sctp "$c" markers_tx false
is sctp "$c" enhanced true
is sctp "$req" peer_ird 3
is sctp "$req" peer_ord 2

# MPA v2 client-server (RFC 6581): enhanced, no RTR
pair v2-cs "" --rev 2
is v2-cs "$c" mpa_rev 2
is v2-cs "$c" enhanced true
is v2-cs "$c" p2p false
is v2-cs "$c" rtr_type none
is v2-cs "$req" peer_p2p false

# MPA v2 peer-to-peer with each RTR type (RFC 6581 §9.2 flags B/C/D)
for t in send write read; do
	pair "p2p-$t" "" --p2p --rtr "$t"
	is "p2p-$t" "$c" p2p true
	is "p2p-$t" "$c" rtr_type "$t"
	is "p2p-$t" "$req" peer_p2p true
	is "p2p-$t" "$req" peer_rtr_types "$t"
	is "p2p-$t" "$c" peer_p2p true
done
# the responder accepts only Read out of the offered Write and Read
pair p2p-pick "--rtr read" --p2p --rtr write,read
is p2p-pick "$req" peer_rtr_types "write,read"
is p2p-pick "$c" rtr_type read
is p2p-pick "$c" peer_rtr_types read

# markers each way (RFC 5044 §7.1: M asks the other side for markers)
pair markers-i "" --markers on
is markers-i "$c" markers_rx true
is markers-i "$c" markers_tx false
is markers-i "$req" peer_markers true
pair markers-r "--markers on" --markers off
is markers-r "$c" markers_tx true
is markers-r "$c" markers_rx false
is markers-r "$c" peer_markers true

# CRC: off only when neither side sets C
pair crc-off "--crc off" --crc off
is crc-off "$c" crc false
is crc-off "$req" peer_crc false
pair crc-on-r "--crc on" --crc off
is crc-on-r "$c" crc true
pair crc-on-i "--crc off" --crc on
is crc-on-i "$c" crc true

# IRD/ORD (RFC 6581 §9.1): each side's values reach the other as sent,
# the initiator's ORD fits the responder's IRD and the other way round
pair irdord "--ird 2 --ord 4" --ird 4 --ord 2
is irdord "$req" peer_ird 4
is irdord "$req" peer_ord 2
is irdord "$c" peer_ird "$(jget "$l" ird)"
is irdord "$c" peer_ord "$(jget "$l" ord)"
[ "$(jget "$c" ord)" -le "$(jget "$l" ird)" ] &&
	[ "$(jget "$l" ord)" -le "$(jget "$c" ird)" ] && ok ||
	fail "irdord: ORD above the peer's IRD: $c $l"
pair irdord-none "--ird 0x3FFF --ord 0x3FFF" --ird 0x3FFF --ord 0x3FFF
for k in ird ord peer_ird peer_ord; do
	is irdord-none "$c" "$k" 16383
	is irdord-none "$l" "$k" 16383
done

# private data both ways
pair pd "--private-data 776f726c64" --private-data 68656c6c6f
is pd "$req" peer_private_data 68656c6c6f
is pd "$c" peer_private_data 776f726c64

# reject with private data (RFC 5044 §7.1.2: R=1)
listen --reject --private-data 62757379 &&
	connect reject 1 --p2p --rtr write
finish reject 0
is reject "$c" event REJECTED
is reject "$c" reason EREJECTED
is reject "$c" peer_reject true
is reject "$c" peer_private_data 62757379
is reject "$l" event REJECTED
is reject "$l" private_data 62757379

# Rev 0 (seed 002): only a forced negotiation sends it; a permissive
# listener answers Rev 0 with markers and CRC, a strict one closes
if listen --rev0 permissive; then
	connect rev0 0 --daemon --rev 0 --rev0 permissive
	finish rev0 0
	is rev0 "$l" event ESTABLISHED
	is rev0 "$req" peer_mpa_rev 0
	for k in mpa_rev ddp_version rdmap_version; do
		is rev0 "$l" "$k" 0
		is rev0 "$c" "$k" 0
	done
	for k in markers_tx markers_rx crc; do
		is rev0 "$l" "$k" true
		is rev0 "$c" "$k" true
	done
	is rev0 "$c" result OK
fi
if listen --rev0 strict --timeout 300; then
	connect rev0-strict 1 --daemon --rev 0 --rev0 permissive
	finish rev0-strict 1
	[ -z "$req" ] && ok || fail "rev0-strict: a request reached the ULP"
fi

# the legacy RtR frame (seed 003), both ends configured for it
pair rtr-frame "--rtr-frame" --rtr-frame
is rtr-frame "$c" rtr_frame true
is rtr-frame "$c" mpa_rev 1

# connect --daemon against listen: the daemon's report agrees
if listen; then
	connect daemon 0 --daemon --p2p --rtr read --ird 4 --ord 4
	finish daemon 0
	is daemon "$l" rtr_type read
	is daemon "$c" rtr read
	is daemon "$c" p2p true
	is daemon "$l" p2p true
	is daemon "$c" result OK
fi

# --count 2, in text; the bound port is on the first line
: >"$dir/l.out"
"$ctl" listen 127.0.0.1:0 --count 2 --timeout 10000 >"$dir/l.out" \
	2>"$dir/l.err" &
lpid=$!
i=0
port=
while [ -z "$port" ] && [ $i -lt 500 ]; do
	port=$(sed -n 's/^listening on 127.0.0.1:\([0-9]*\)$/\1/p' "$dir/l.out")
	i=$((i + 1))
	sleep 0.01
done
"$ctl" connect "127.0.0.1:$port" --p2p >"$dir/c.out" 2>&1 && ok ||
	fail "count: first connect: $(cat "$dir/c.out")"
has "$(cat "$dir/c.out")" "ESTABLISHED, initiator" "count text"
has "$(cat "$dir/c.out")" "negotiated: tcp, MPA rev 2" "count text"
"$ctl" connect "127.0.0.1:$port" >/dev/null 2>&1 && ok ||
	fail "count: second connect"
finish count 0
[ "$(grep -c ': ESTABLISHED, responder' "$dir/l.out")" -eq 2 ] && ok ||
	fail "count: two connections: $(cat "$dir/l.out")"

# --first-fpdu-delay: the initiator holds its RTR (p2p) or its handoff
# (client-server) after the Reply; both still establish, and the connect
# takes at least the delay
for model in "--p2p" ""; do
	listen || break
	t0=$(date +%s%N)
	# shellcheck disable=SC2086
	connect "first-fpdu-delay $model" 0 --first-fpdu-delay 400 $model
	t1=$(date +%s%N)
	finish "first-fpdu-delay $model" 0
	agree "first-fpdu-delay $model"
	[ $(((t1 - t0) / 1000000)) -ge 400 ] && ok ||
		fail "first-fpdu-delay $model: connect took" \
			"$(((t1 - t0) / 1000000)) ms"
done

# an unreachable port: that listener closed when iwcmctl listen exited
connect unreachable 1 --timeout 2000
is unreachable "$c" event UNREACHABLE
is unreachable "$c" reason ECONNREFUSED

# usage errors and a missing daemon
for args in "--rev 3" "--rev 0" "--ird 16384" "--private-data abc" \
	"--rtr bogus" "--count 2" "--timeout 5" "--colour blue" \
	"--first-fpdu-delay 10001" "--first-fpdu-delay x" \
	"--transport udp" "--transport sctp --markers on" \
	"--transport sctp --crc off" "--transport sctp --daemon"; do
	# shellcheck disable=SC2086
	"$ctl" connect "127.0.0.1:$port" $args >/dev/null 2>&1
	[ $? -eq 2 ] && ok || fail "connect $args: not a usage error"
done
"$ctl" connect 127.0.0.1 >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "connect without a port: not a usage error"
"$ctl" connect 127.0.0.1:1 --private-data \
	"$(printf '%01018d' 0)" >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "509 octets of enhanced private data accepted"
for args in "" "--p2p 1" "--fallback 1" "1 2" "--rev 0 1" \
	"1 --first-fpdu-delay 10"; do
	# shellcheck disable=SC2086
	"$ctl" listen $args >/dev/null 2>&1
	[ $? -eq 2 ] && ok || fail "listen $args: not a usage error"
done
"$ctl" -s "$dir/nothere.sock" connect 127.0.0.1:1 >/dev/null 2>"$dir/err"
[ $? -eq 2 ] && ok || fail "no daemon: not exit 2"
has "$(cat "$dir/err")" "nothere.sock" "no daemon"
# libiwcm refuses a bad IWCM_POLL_US (iwcm_ctx_open(3)); the daemon is up
for v in x 100001 -5 ""; do
	IWCM_POLL_US="$v" "$ctl" connect 127.0.0.1:1 >/dev/null 2>"$dir/err"
	[ $? -eq 2 ] && ok || fail "IWCM_POLL_US='$v': not exit 2"
	has "$(cat "$dir/err")" "iwcmctl: connect: bad IWCM_POLL_US '$v' (0 to 100000)" \
		"IWCM_POLL_US='$v'"
done
# ... and a bad IWCM_PROGRESS_IDLE_US, the progress thread's tick
for v in x 1000001 -5 "" 1e3; do
	IWCM_PROGRESS_IDLE_US="$v" "$ctl" connect 127.0.0.1:1 >/dev/null 2>"$dir/err"
	[ $? -eq 2 ] && ok || fail "IWCM_PROGRESS_IDLE_US='$v': not exit 2"
	has "$(cat "$dir/err")" \
		"iwcmctl: connect: bad IWCM_PROGRESS_IDLE_US '$v' (0 to 1000000)" \
		"IWCM_PROGRESS_IDLE_US='$v'"
done
"$ctl" connect --help | grep -q -- "--rev0 strict|permissive" && ok ||
	fail "connect --help"
"$ctl" listen --help | grep -q -- "--reject" && ok || fail "listen --help"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] && ok || fail "iwcmd exited $rc at SIGTERM"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ] || { echo "---- iwcmd log"; cat "$dir/log"; exit 1; }
exit 0
