#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmd dies with SIGKILL in the middle of a verified iwcm-rping transfer:
# the daemon never touches a socket after handoff, so both ends finish
# every ping; a new iwcmd on the same socket path (the old one's socket
# file still there) serves a new connection at once.
set -u
. "$srcdir/integ/daemon.sh"
rping="$top_builddir/examples/iwcm-rping"
spid=
cpid=
N=3000
daemon_dir restart

fail() {
	echo "FAIL: $*"
	for f in log log2 s.err c.err; do
		[ -s "$dir/$f" ] && { echo "--- $f"; tail -n 20 "$dir/$f"; }
	done
	exit 1
}
# lines FILE RE: matching lines of FILE, 0 before the file exists (a
# background program's redirection may not have created it yet)
lines() {
	n=$(grep -c -- "$2" "$1" 2>/dev/null)
	echo "${n:-0}"
}


# pair COUNT: a verified server and client in the background
pair() {
	: >"$dir/s.out"
	"$rping" -s -a 127.0.0.1 -p 0 -C "$1" -v -V >"$dir/s.out" \
		2>"$dir/s.err" &
	spid=$!
	bg_pids="$bg_pids $spid"
	port=
	i=0
	while [ -z "$port" ]; do
		port=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			"$dir/s.out")
		i=$((i + 1))
		[ $i -gt 500 ] && fail "the server did not listen"
		[ -n "$port" ] || sleep 0.01
	done
	"$rping" -c -a 127.0.0.1 -p "$port" -C "$1" -v -V >"$dir/c.out" \
		2>"$dir/c.err" &
	cpid=$!
	bg_pids="$bg_pids $cpid"
}

# finish PID NAME: its exit status must be 0 (bounded)
finish() {
	i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -gt 3000 ] && fail "$2 still running after 60 s"
		sleep 0.02
	done
	wait "$1" || fail "$2 exited $?"
}

daemon_start log
pair $N
# mid-transfer: some pings done, most to come
i=0
while [ "$(lines "$dir/c.out" '^ping data: ')" -lt 100 ]; do
	i=$((i + 1))
	[ $i -gt 1500 ] && fail "no pings after 30 s"
	kill -0 "$cpid" 2>/dev/null || fail "the client ended early"
	sleep 0.02
done
kill -9 "$pid"
wait "$pid" 2>/dev/null
pid=
at=$(lines "$dir/c.out" '^ping data: ')
[ "$at" -lt $N ] || fail "the transfer was over before iwcmd died"
finish "$cpid" client
cpid=
finish "$spid" server
spid=
got=$(lines "$dir/c.out" '^ping data: rdma-ping-')
[ "$got" = $N ] || fail "the client printed $got of $N pings"
got=$(lines "$dir/s.out" '^server ping data: rdma-ping-')
[ "$got" = $N ] || fail "the server printed $got of $N pings"
echo "iwcmd killed after $at of $N pings; both ends finished all $N"

# the old socket file is still there; a new daemon takes the path
[ -S "$sock" ] || fail "the killed daemon's socket file is gone"
daemon_start log2
pair 5
finish "$cpid" client
cpid=
finish "$spid" server
spid=
got=$(lines "$dir/c.out" '^ping data: rdma-ping-')
[ "$got" = 5 ] || fail "after the restart the client printed $got pings"
daemon_stop || fail "the new iwcmd exited $? on SIGTERM"
echo "PASS: a new iwcmd on the same socket served a new connection"
