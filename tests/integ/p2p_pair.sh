#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The example of ./build.sh demo: examples/p2p_pair listen and connect as
# two processes through a real iwcmd -d on a temporary socket.  Both
# establish MPA v2 peer-to-peer, print the same negotiated state and
# exchange one line over the handed-off sockets.
set -u
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
pair="$top_builddir/examples/p2p_pair"
dir=$(mktemp -d /tmp/iwcm-pair.XXXXXX)
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
# line FILE TEXT: FILE has a line containing TEXT
line() {
	grep -q -F -- "$2" "$1" && ok || fail "'$2' missing from $1:" \
		"$(cat "$1")"
}

printf '# p2p_pair.sh\nsctp_udp_port = %s\n' $((20000 + $$ % 30000)) \
	>"$dir/iwcmd.conf"
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

# run ARGS...: the listener and the connector with ARGS
run() {
	: >"$dir/l.out"
	"$pair" listen 127.0.0.1:0 "$@" >"$dir/l.out" 2>&1 &
	lpid=$!
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 500 ] && kill -0 "$lpid" 2>/dev/null
	do
		port=$(sed -n \
			's/^\[listener\] listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
			"$dir/l.out")
		i=$((i + 1))
		[ -n "$port" ] || sleep 0.01
	done
	if [ -z "$port" ]; then
		echo "FAIL: the listener did not start: $(cat "$dir/l.out")"
		exit 1
	fi
	"$pair" connect "127.0.0.1:$port" "$@" >"$dir/c.out" 2>&1 && ok ||
		fail "connector failed: $(cat "$dir/c.out")"
	wait "$lpid" && ok || fail "listener failed: $(cat "$dir/l.out")"
	lpid=
}

# DDP over SCTP (RFC 5043): no MPA, the enhanced word, the line as one
# datagram of each side's relay
run --transport sctp
for f in "$dir/l.out" "$dir/c.out"; do
	line "$f" "MPA rev 0 (enhanced), DDP/RDMAP version 1/1, client-server"
	line "$f" "markers: send off, receive off; CRC off"
	line "$f" "IRD 4, ORD 4 (the peer sent IRD 4, ORD 4)"
	line "$f" "DDP over SCTP: stream 0, segments up to"
done
line "$dir/l.out" '[listener] received "ping from the connector"'
line "$dir/c.out" '[connector] received "pong from the listener"'

# MPA over TCP
run

for f in "$dir/l.out" "$dir/c.out"; do
	line "$f" "MPA rev 2 (enhanced), DDP/RDMAP version 1/1, peer-to-peer"
	line "$f" "RTR: zero-length RDMA Write; markers: send off, receive off"
	line "$f" "IRD 4, ORD 4 (the peer sent IRD 4, ORD 4)"
done
line "$dir/l.out" 'private data "hello from the connector"'
line "$dir/c.out" 'private data "hello from the listener"'
line "$dir/l.out" '[listener] received "ping from the connector"'
line "$dir/c.out" '[connector] received "pong from the listener"'
# each side's local address is the other's peer
l=$(sed -n 's/^\[listener\] established \(.*\) <-> \(.*\), fd.*/\1 \2/p' \
	"$dir/l.out")
c=$(sed -n 's/^\[connector\] established \(.*\) <-> \(.*\), fd.*/\2 \1/p' \
	"$dir/c.out")
[ -n "$l" ] && [ "$l" = "$c" ] && ok || fail "addresses: '$l' vs '$c'"

# usage
"$pair" >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "no arguments: not a usage error"
"$pair" dance 127.0.0.1:1 >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "unknown role: not a usage error"
"$pair" listen 127.0.0.1:1 --transport udp >/dev/null 2>&1
[ $? -eq 2 ] && ok || fail "unknown transport: not a usage error"

kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] && ok || fail "iwcmd exited $rc at SIGTERM"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ] || { echo "---- iwcmd log"; cat "$dir/log"; exit 1; }
exit 0
