#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl's admin commands against a real iwcmd -d on a temporary socket
# directory and config: status, listeners, conns, show, stats, log, kill,
# listener set and connect --daemon, in text and in JSON (read back with
# sed), the socket from -s and from $IWCM_SOCKET, usage and connection errors,
# then SIGTERM: exit 0 and no socket left behind.
set -u
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
dir=$(mktemp -d /tmp/iwcm-ctl.XXXXXX)
sock="$dir/iwcmd.sock"
pid=
fails=0
passes=0

cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT

ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# expect RC CMD...: run, keep stdout in $out and stderr in $err
expect() {
	want=$1
	shift
	"$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	out=$(cat "$dir/out")
	err=$(cat "$dir/err")
	if [ "$rc" -ne "$want" ]; then
		fail "'$*' exited $rc, not $want: $out $err"
		return 1
	fi
	ok
	return 0
}
has() {
	case "$1" in
	*"$2"*) ok ;;
	*) fail "'$2' missing from: $1" ;;
	esac
}
json_num() {	# json_num KEY: the first numeric value of "KEY" in $out
	printf '%s\n' "$out" | sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" |
		head -n 1
}

cat >"$dir/iwcmd.conf" <<EOC
# test configuration
request_timeout_ms = 500
[listener svc]
address = 127.0.0.1:0
pending_max = 4
EOC
"$iwcmd" -d -f "$dir/iwcmd.conf" -s "$sock" 2>"$dir/log" &
pid=$!
# ready when the admin socket answers (bounded)
i=0
while ! "$ctl" -s "$sock" status >/dev/null 2>&1; do
	i=$((i + 1))
	if [ $i -gt 500 ] || ! kill -0 "$pid" 2>/dev/null; then
		echo "FAIL: iwcmd did not start"
		cat "$dir/log"
		exit 1
	fi
	sleep 0.01
done

# status
expect 0 "$ctl" -s "$sock" status &&
	has "$out" "iwcmd " && has "$out" "pid $pid" && has "$out" "listeners 1"
expect 0 "$ctl" -s "$sock" -j status &&
	{ [ "$(json_num pid)" = "$pid" ] && ok || fail "status -j pid: $out"; }
has "$out" '"verbose":false'
expect 0 env IWCM_SOCKET="$sock" "$ctl" status -j &&
	{ [ "$(json_num listeners)" = 1 ] && ok || fail "listeners: $out"; }

# listeners
expect 0 "$ctl" -s "$sock" listeners && has "$out" "svc"
expect 0 "$ctl" -s "$sock" -j listeners && has "$out" '"service":"svc"'
port=$(json_num port)
[ -n "$port" ] && [ "$port" -gt 0 ] && ok || fail "no port in: $out"

# stats, conns
expect 0 "$ctl" -s "$sock" -j stats && has "$out" '"accepted":0'
has "$out" '"term_sent_6":0'
expect 0 "$ctl" -s "$sock" stats && has "$out" "established"
expect 0 "$ctl" -s "$sock" -j conns &&
	{ [ "$out" = "[]" ] && ok || fail "conns -j: $out"; }
expect 0 "$ctl" -s "$sock" conns && has "$out" "STATE"

# log level
expect 0 "$ctl" -s "$sock" log verbose
expect 0 "$ctl" -s "$sock" -j status && has "$out" '"verbose":true'
expect 0 "$ctl" -s "$sock" -j log brief && has "$out" '"result":"OK"'
expect 0 "$ctl" -s "$sock" -j status && has "$out" '"verbose":false'

# connections that do not exist
expect 1 "$ctl" -s "$sock" kill 4242 && has "$err" "conn 4242: not found"
expect 1 "$ctl" -s "$sock" -j kill 4242 && has "$out" '"result":"ENOENT"'
expect 1 "$ctl" -s "$sock" show 4242 && has "$err" "not found"

# listener policy
expect 0 "$ctl" -s "$sock" listener set "$port" crc=off rtr=read,write \
	markers=on rev0=permissive ird=8 ord=8
expect 1 "$ctl" -s "$sock" listener set 1 crc=off && has "$err" "port 1"
expect 2 "$ctl" -s "$sock" listener set "$port" colour=blue
expect 2 "$ctl" -s "$sock" listener set "$port" ird=16384

# a forced negotiation against a port nobody listens on
closed=$((port == 65535 ? 65534 : port + 1))
while "$ctl" -s "$sock" -j listeners | grep -q "\"port\":$closed[,}]"; do
	closed=$((closed + 1))
done
expect 1 "$ctl" -s "$sock" -j connect "127.0.0.1:$closed" --daemon --rev 2 \
	--p2p --rtr write --ird 4 --ord 4 --private-data 0a0b &&
	has "$out" '"result":'
expect 2 "$ctl" -s "$sock" connect "127.0.0.1:$closed" --daemon --rev 3
expect 2 "$ctl" -s "$sock" connect 127.0.0.1 --daemon
expect 2 "$ctl" -s "$sock" connect "127.0.0.1:$closed" --daemon \
	--private-data abc

# usage and connection errors
expect 2 "$ctl" -s "$sock" show
expect 2 "$ctl" -s "$sock" log loud
expect 2 "$ctl" -s "$dir/nothere.sock" status && has "$err" "nothere.admin.sock"
expect 0 "$ctl" status --help && has "$out" "usage"

# SIGTERM: exit 0, sockets removed
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ $rc -eq 0 ] && ok || fail "iwcmd exited $rc at SIGTERM"
[ ! -e "$sock" ] && [ ! -e "$dir/iwcmd.admin.sock" ] && ok ||
	fail "sockets left behind"
grep -q "ctl pid [0-9]*: log level verbose" "$dir/log" && ok ||
	fail "no log line for the log command"

echo "$passes passed, $fails failed"
[ $fails -eq 0 ] || { echo "---- iwcmd log"; cat "$dir/log"; exit 1; }
exit 0
