#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Two iwcmd in two network namespaces joined by a veth pair (192.0.2.1
# and 192.0.2.2, TEST-NET-1): a client of each daemon (iwcmctl listen
# and iwcmctl connect -j), run in its namespace with ip netns exec,
# connects across, peer-to-peer from A to B and client-server from B to
# A, then DDP over SCTP sessions (enhanced, plain, rejected) on each
# daemon's usrsctp.  Both sides must be established, with the same negotiated state seen
# from either end and the addresses of the veth pair; each daemon counts
# its side and exits 0 on SIGTERM.  Needs root and iproute2; says SKIP
# and why when namespaces cannot be made here.  The namespaces and the
# veth pair go away on exit.
set -u
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
# shellcheck source=bench/netns_lib.sh
. "$top_srcdir/bench/netns_lib.sh"
nsa="iwcm-$$-a"
nsb="iwcm-$$-b"
veth="iwv$$"
dir=
pids=
fails=0
passes=0

skip() {
	echo "SKIP: $*"
	exit 77
}

cleanup() {
	for p in $pids; do
		kill -9 "$p" 2>/dev/null
	done
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	[ -n "$dir" ] && rm -rf "$dir"
}

ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
eq() {	# eq WHAT A B
	if [ "$2" = "$3" ]; then ok; else fail "$1: '$2' and '$3'"; fi
}
# field NAME FILE: NAME of the ESTABLISHED object in FILE (-j output),
# strings without their quotes
field() {
	grep '"event":"ESTABLISHED"' "$2" | head -n 1 |
		sed -n 's/.*[{,]"'"$1"'":\("[^"]*"\|[^,}]*\).*/\1/p' |
		tr -d '"'
}

netns_can

dir=$(mktemp -d /tmp/iwcm-netns.XXXXXX)
trap cleanup EXIT
trap 'exit 1' INT TERM
# setup failures after the namespaces are made are real failures
netns_pair "$nsa" "$nsb" "$veth" "$dir"

# one daemon per namespace, each with its own sockets
for s in a b; do
	ns=$nsa
	[ $s = b ] && ns=$nsb
	printf '# netns_pair %s\nrequest_timeout_ms = 5000\n' $s \
		>"$dir/$s.conf"
	ip netns exec "$ns" "$iwcmd" -d -f "$dir/$s.conf" -s "$dir/$s.sock" \
		2>"$dir/$s.log" &
	pids="$pids $!"
	eval "pid_$s=$!"
done
for s in a b; do
	i=0
	while ! "$ctl" -s "$dir/$s.sock" status >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 500 ]; then
			echo "FAIL: iwcmd $s did not start"
			cat "$dir/$s.log"
			exit 1
		fi
		sleep 0.01
	done
done

# run_pair NAME LNS LSOCK LADDR CNS CSOCK [OPTIONS [LISTEN OPTIONS]]:
# iwcmctl listen in LNS through LSOCK on LADDR, iwcmctl connect from CNS
# through CSOCK; their output in NAME.l and NAME.c
run_pair() {
	name=$1
	# shellcheck disable=SC2086 # options are words
	ip netns exec "$2" "$ctl" -s "$3" -j listen "$4:0" --count 1 \
		--timeout 10000 ${8:-} >"$dir/$name.l" 2>"$dir/$name.lerr" &
	lpid=$!
	pids="$pids $lpid"
	i=0
	port=
	while [ -z "$port" ]; do
		port=$(grep '"event":"LISTENING"' "$dir/$name.l" |
			sed -n 's/.*"port":\([0-9]*\).*/\1/p')
		[ -n "$port" ] && break
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$lpid" 2>/dev/null; then
			fail "$name: no listener: $(cat "$dir/$name.lerr")"
			return
		fi
		sleep 0.01
	done
	ip netns exec "$5" "$ctl" -s "$6" -j connect "$4:$port" \
		--timeout 10000 ${7:-} >"$dir/$name.c" 2>"$dir/$name.cerr"
	c_rc=$?
	wait "$lpid"
	l_rc=$?
	eq "$name: connect exit status ($(cat "$dir/$name.c" \
		"$dir/$name.cerr"))" $c_rc 0
	eq "$name: listen exit status ($(cat "$dir/$name.lerr"))" $l_rc 0
	c="$dir/$name.c"
	l="$dir/$name.l"
	eq "$name: roles" "$(field role "$c")/$(field role "$l")" \
		initiator/responder
	for k in transport mpa_rev ddp_version rdmap_version enhanced crc \
		p2p rtr_type; do
		eq "$name: $k" "$(field $k "$c")" "$(field $k "$l")"
	done
	eq "$name: markers initiator to responder" \
		"$(field markers_tx "$c")" "$(field markers_rx "$l")"
	eq "$name: markers responder to initiator" \
		"$(field markers_rx "$c")" "$(field markers_tx "$l")"
	eq "$name: RTR-phase octets initiator to responder" \
		"$(field tx_offset "$c")" "$(field rx_offset "$l")"
	eq "$name: RTR-phase octets responder to initiator" \
		"$(field rx_offset "$c")" "$(field tx_offset "$l")"
	eq "$name: initiator's local address" "$(field local "$c")" \
		"$(field peer "$l")"
	eq "$name: responder's address" "$(field peer "$c")" "$4:$port"
	eq "$name: responder's local address" "$(field local "$l")" \
		"$4:$port"
}

# peer-to-peer from A (192.0.2.1) to B (192.0.2.2)
run_pair ab "$nsb" "$dir/b.sock" 192.0.2.2 "$nsa" "$dir/a.sock" --p2p
eq "ab: initiator address" "$(field local "$dir/ab.c" | cut -d: -f1)" \
	192.0.2.1
eq "ab: model" "$(field p2p "$dir/ab.c")/$(field mpa_rev "$dir/ab.c")" \
	true/2
case "$(field rtr_type "$dir/ab.l")" in
send | write | read) ok ;;
*) fail "ab: RTR '$(field rtr_type "$dir/ab.l")'" ;;
esac
# client-server from B to A
run_pair ba "$nsa" "$dir/a.sock" 192.0.2.1 "$nsb" "$dir/b.sock"
eq "ba: initiator address" "$(field local "$dir/ba.c" | cut -d: -f1)" \
	192.0.2.2
eq "ba: model" "$(field p2p "$dir/ba.c")/$(field rtr_type "$dir/ba.c")" \
	false/none
eq "ba: the responder waits for the first FPDU" \
	"$(field wait_first_fpdu "$dir/ba.l")" true

# each daemon negotiated one side of each connection
for s in a b; do
	out=$("$ctl" -s "$dir/$s.sock" -j stats 2>&1)
	n=$(printf '%s\n' "$out" |
		sed -n 's/.*"established":\([0-9]*\).*/\1/p' | head -n 1)
	eq "iwcmd $s: established ($out)" "$n" 2
	n=$(printf '%s\n' "$out" |
		sed -n 's/.*"connects":\([0-9]*\).*/\1/p' | head -n 1)
	eq "iwcmd $s: connects" "$n" 1
done

# DDP stream sessions over SCTP (RFC 5043) between the namespaces, each
# daemon on usrsctp over its own default UDP encapsulation port (9899,
# RFC 6951): enhanced (RFC 6581 §7) from A to B with IRD/ORD and
# private data, plain (function codes 1-2) from B to A, and a session B
# rejects with private data
run_pair sctp-ab "$nsb" "$dir/b.sock" 192.0.2.2 "$nsa" "$dir/a.sock" \
	"--transport sctp --ird 4 --ord 2 --private-data 0a0b" \
	"--transport sctp --private-data 0c0d"
for f in sctp-ab.c sctp-ab.l; do
	eq "sctp-ab: transport ($f)" "$(field transport "$dir/$f")" sctp
	eq "sctp-ab: enhanced ($f)" "$(field enhanced "$dir/$f")" true
done
eq "sctp-ab: initiator address" \
	"$(field local "$dir/sctp-ab.c" | cut -d: -f1)" 192.0.2.1
eq "sctp-ab: the responder's private data" \
	"$(field peer_private_data "$dir/sctp-ab.c")" 0c0d
eq "sctp-ab: the initiator's private data" \
	"$(field peer_private_data "$dir/sctp-ab.l")" 0a0b
run_pair sctp-ba "$nsa" "$dir/a.sock" 192.0.2.1 "$nsb" "$dir/b.sock" \
	"--transport sctp --rev 1" "--transport sctp"
for f in sctp-ba.c sctp-ba.l; do
	eq "sctp-ba: transport ($f)" "$(field transport "$dir/$f")" sctp
	eq "sctp-ba: plain session ($f)" "$(field enhanced "$dir/$f")" false
done
ip netns exec "$nsb" "$ctl" -s "$dir/b.sock" -j listen 192.0.2.2:0 \
	--transport sctp --count 1 --timeout 10000 --reject \
	--private-data 62757379 >"$dir/sctp-rej.l" 2>"$dir/sctp-rej.lerr" &
lpid=$!
pids="$pids $lpid"
i=0
port=
while [ -z "$port" ] && [ $i -le 500 ] && kill -0 "$lpid" 2>/dev/null; do
	port=$(grep '"event":"LISTENING"' "$dir/sctp-rej.l" |
		sed -n 's/.*"port":\([0-9]*\).*/\1/p')
	i=$((i + 1))
	[ -n "$port" ] || sleep 0.01
done
ip netns exec "$nsa" "$ctl" -s "$dir/a.sock" -j connect \
	"192.0.2.2:${port:-1}" --transport sctp --timeout 10000 \
	>"$dir/sctp-rej.c" 2>"$dir/sctp-rej.cerr"
c_rc=$?
wait "$lpid"
l_rc=$?
eq "sctp-rej: connect exit status ($(cat "$dir/sctp-rej.c" \
	"$dir/sctp-rej.cerr"))" $c_rc 1
eq "sctp-rej: listen exit status ($(cat "$dir/sctp-rej.lerr"))" $l_rc 0
rej=$(grep '"event":"REJECTED"' "$dir/sctp-rej.c")
case $rej in
*'"peer_private_data":"62757379"'*) ok ;;
*) fail "sctp-rej: no REJECTED with the private data: $(cat "$dir/sctp-rej.c")" ;;
esac

for s in a b; do
	eval "p=\$pid_$s"
	kill -TERM "$p"
	wait "$p"
	rc=$?
	eq "iwcmd $s exit status" $rc 0
	[ $rc -eq 0 ] || cat "$dir/$s.log"
done
pids=

echo "netns_pair: $passes passed, $fails failed"
[ $fails -eq 0 ]
