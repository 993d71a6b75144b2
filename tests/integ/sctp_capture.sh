#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# A live capture of DDP over SCTP: iwcm-rping --transport sctp through a
# private iwcmd (usrsctp over UDP encapsulation on a port of this run's
# own, RFC 6951) while tcpdump records that UDP port on lo; then
# iwcmctl decode --sctp-udp-port accounts for every message:
#  - it exits 0: every CRC32c good, nothing malformed, every stream
#    session legal (RFC 5043 §6);
#  - one association, its INIT and INIT ACK with the DDP adaptation
#    indication (RFC 5043 §5.1);
#  - as many SCTP packets as tcpdump wrote, and one decoded message per
#    DATA chunk (usrsctp does not fragment here), which tshark, when
#    present, counts the same;
#  - the Enhanced Initiate and Accept, both Terminates, and every ping's
#    Send, Read Request and Read Response decoded down to RDMAP;
#  - with the Wireshark plugin built (wireshark/), tshark with it shows
#    every field of every message as iwcmctl decode -j does.
# Needs root for tcpdump (SKIP otherwise) and tcpdump (SKIP without it).
set -u
: "${top_builddir:?run through make check}"

if [ "$(id -u)" -ne 0 ]; then
	echo "SKIP: capturing on lo needs root"
	exit 77
fi
if ! command -v tcpdump >/dev/null 2>&1; then
	echo "SKIP: tcpdump not installed"
	exit 77
fi
. "$srcdir/integ/daemon.sh"
rping="$top_builddir/examples/iwcm-rping"
daemon_dir sctpcap
port=$((20000 + $$ % 30000))
n=5
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# one datagram per SCTP packet in the capture, as tshark and the plugin
# compared below read it (iwcmd.conf(5) sctp_udp_gso)
daemon_start log "request_timeout_ms = 2000
sctp_udp_port = $port
sctp_udp_gso = no"
tcpdump -i lo -U -w "$dir/cap.pcap" udp port "$port" 2>"$dir/td.err" &
tpid=$!
bg_pids="$tpid"
i=0
until grep -q 'listening on' "$dir/td.err" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 500 ] || ! kill -0 "$tpid" 2>/dev/null; then
		echo "SKIP: tcpdump cannot capture on lo: $(cat "$dir/td.err")"
		exit 77
	fi
	sleep 0.01
done

: >"$dir/s.out"
"$rping" -s -a 127.0.0.1 -p 0 -C $n -v --transport sctp >"$dir/s.out" \
	2>"$dir/s.err" &
spid=$!
bg_pids="$bg_pids $spid"
rport=
i=0
while [ -z "$rport" ]; do
	rport=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
		"$dir/s.out")
	i=$((i + 1))
	if [ $i -gt 500 ] || ! kill -0 "$spid" 2>/dev/null; then
		echo "FAIL: rping server did not listen: $(cat "$dir/s.err")"
		exit 1
	fi
	[ -n "$rport" ] || sleep 0.01
done
timeout 60 "$rping" -c -a 127.0.0.1 -p "$rport" -C $n -v --transport sctp \
	>"$dir/c.out" 2>"$dir/c.err" || fail "rping client: $(cat "$dir/c.err")"
wait "$spid" || fail "rping server: $(cat "$dir/s.err")"
# the association's SHUTDOWN comes after the session ends: let it pass
i=0
while [ $i -lt 100 ] && ! "$ctl" decode --sctp-udp-port "$port" \
	"$dir/cap.pcap" 2>/dev/null | grep -q 'SHUTDOWN COMPLETE'; do
	i=$((i + 1))
	sleep 0.02
done
kill "$tpid"
wait "$tpid" 2>/dev/null
daemon_stop || fail "iwcmd exited $?"

"$ctl" decode -j --sctp-udp-port "$port" "$dir/cap.pcap" >"$dir/d.json"
rc=$?
[ $rc -eq 0 ] || fail "decode exited $rc: $(grep '"bad":true' "$dir/d.json")"
"$ctl" decode --sctp-udp-port "$port" "$dir/cap.pcap" >"$dir/d.txt"

count() { grep -c -- "$1" "$dir/d.json" || true; }
pkts=$(tcpdump -r "$dir/cap.pcap" 2>/dev/null | wc -l)
[ "$pkts" -gt 0 ] || fail "nothing captured"
[ "$(count '"type":"sctp_packet"')" -eq "$pkts" ] ||
	fail "$pkts packets captured, $(count '"type":"sctp_packet"') decoded"
[ "$(count '"type":"assoc"')" -eq 1 ] || fail "not one association"
[ "$(count '"name":"INIT",.*"adaptation":"0x00000001"')" -ge 1 ] ||
	fail "no INIT with the DDP adaptation indication"
[ "$(count '"name":"INIT ACK",.*"adaptation":"0x00000001"')" -ge 1 ] ||
	fail "no INIT ACK with the DDP adaptation indication"
data=$(count '"name":"DATA".*"retransmission":false')
msgs=$(count '"type":"sctp_message"')
[ "$data" -gt 0 ] && [ "$data" -eq "$msgs" ] ||
	fail "$data DATA chunks but $msgs messages"
[ "$(count '"bad":true')" -eq 0 ] || fail "bad PDUs"
[ "$(count '"type":"event"')" -eq 0 ] ||
	fail "events: $(grep '"type":"event"' "$dir/d.json")"
for fc in '"Enhanced Initiate"' '"Enhanced Accept"'; do
	[ "$(count "\"name\":$fc")" -eq 1 ] || fail "not one $fc"
done
[ "$(count '"name":"Terminate"')" -eq 2 ] || fail "not two Terminates"
# every ping: the client's Send, the server's Read Request, the client's
# Read Response, the server's Send back (rping's protocol)
for op in '"name":"Send"' '"name":"RDMA Read Request"' \
	'"name":"RDMA Read Response"'; do
	got=$(count "$op")
	[ "$got" -ge $n ] || fail "$got of $op for $n pings"
done
[ "$(count '"rdmap_error"')" -eq 0 ] || fail "undecoded DDP segments"
grep -q "^summary: SCTP: $pkts packets, 1 associations, 4 session control messages" "$dir/d.txt" ||
	fail "summary: $(grep '^summary' "$dir/d.txt")"

# tshark, when installed, sees the same DATA chunks (RFC 6951 port)
if [ -n "${TSHARK:-}" ]; then
	ts=$("$TSHARK" -r "$dir/cap.pcap" -d "udp.port==$port,sctp" \
		-o sctp.checksum:CRC-32C -T fields -e sctp.chunk_type \
		-e sctp.checksum.status 2>/dev/null)
	tdata=$(printf '%s\n' "$ts" | cut -f1 | tr ',' '\n' | grep -c '^0$')
	[ "$tdata" -eq "$data" ] || fail "tshark: $tdata DATA chunks, decode $data"
	bad=$(printf '%s\n' "$ts" | cut -f2 | grep -vc '^1$')
	[ "$bad" -eq 0 ] || fail "tshark: $bad packets without a good CRC32c"
fi

# the Wireshark plugin (wireshark/lib.sh), when it is built, shows
# every field of every message as decode does
. "$srcdir/wireshark/lib.sh"
if ws_init; then
	ws_compare "Wireshark plugin on the capture" "$dir/cap.pcap" \
		--sctp-udp-port "$port" -- -d "udp.port==$port,sctp" ||
		fail "the Wireshark plugin and iwcmctl decode differ"
	ws_cleanup
else
	echo "note: Wireshark plugin not compared: $ws_skip"
fi

if [ $fails -ne 0 ]; then
	cat "$dir/d.txt"
	exit 1
fi
echo "ok - $pkts packets, $msgs messages decoded ($n pings)"
