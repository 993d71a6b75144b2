#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcm-rping against itself through a real iwcmd -d on a temporary
# socket: a server (-s -p 0, its port read from its first line) and a
# client, both with -v -V, for the daemon's defaults, MPA v1, v2
# peer-to-peer with each RTR type, CRC off, markers, both together, the
# smallest and largest sizes, a source address and IPv6; each must exit
# 0 with every ping printed and validated, the first exactly as rping
# prints it, and the client's -d line must show what was negotiated.
# Then a server -C against a client that pings forever, a persistent
# server with two clients at once, a size the server cannot take, an
# unreachable port, no daemon, usage errors, and iwcmd stopping cleanly.
set -u
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
rping="$top_builddir/examples/iwcm-rping"
dir=$(mktemp -d /tmp/iwcm-rping.XXXXXX)
sock="$dir/iwcmd.sock"
pid=
spid=
fails=0
passes=0
IWCM_SOCKET=$sock
export IWCM_SOCKET

cleanup() {
	[ -n "$spid" ] && kill -9 "$spid" 2>/dev/null
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
# A bounded run: no case may hang the suite.
if command -v timeout >/dev/null 2>&1; then
	bounded() { timeout 60 "$@"; }
else
	bounded() { "$@"; }
fi
# lines FILE PATTERN: the number of lines of FILE matching PATTERN
# (0 before FILE exists: a background program may not have created it)
lines() {
	n=$(grep -c -- "$2" "$1" 2>/dev/null)
	echo "${n:-0}"
}

# The data of ping 0 at the default size, as rping sends and prints it.
PING0='rdma-ping-0: ABCDEFGHIJKLMNOPQRSTUVWXYZ[\]^_`abcdefghijklmnopqr'

# The address both ends use.
addr=127.0.0.1

# server ARGS...: start iwcm-rping -s -p 0 in the background, set $port
server() {
	: >"$dir/s.out"
	"$rping" -s -a "$addr" -p 0 "$@" >"$dir/s.out" 2>"$dir/s.err" &
	spid=$!
	port=
	i=0
	while [ -z "$port" ]; do
		port=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			"$dir/s.out")
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$spid" 2>/dev/null; then
			fail "server $*: did not listen: $(cat "$dir/s.err")"
			return 1
		fi
		[ -n "$port" ] || sleep 0.01
	done
	return 0
}
# server_wait: the server's exit status in $src (bounded)
server_wait() {
	i=0
	while kill -0 "$spid" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt 1500 ]; then
			kill -9 "$spid" 2>/dev/null
			break
		fi
		sleep 0.02
	done
	wait "$spid"
	src=$?
	spid=
}
# client ARGS...: run iwcm-rping -c against $port, its status in $crc
client() {
	bounded "$rping" -c -a "$addr" -p "$port" "$@" >"$dir/c.out" \
		2>"$dir/c.err"
	crc=$?
}

# pair NAME COUNT "SERVER ARGS" "CLIENT ARGS" [NEGOTIATED]: COUNT
# verified pings; the client's -d line tells what was negotiated
pair() {
	name=$1
	n=$2
	# shellcheck disable=SC2086
	server -C "$n" -v -V $3 || return
	# shellcheck disable=SC2086
	client -C "$n" -v -V -d $4
	server_wait
	if [ "$crc" -eq 0 ]; then ok; else
		fail "$name: client exited $crc: $(cat "$dir/c.err")"
	fi
	if [ "$src" -eq 0 ]; then ok; else
		fail "$name: server exited $src: $(cat "$dir/s.err")"
	fi
	got=$(lines "$dir/c.out" '^ping data: rdma-ping-')
	[ "$got" = "$n" ] && ok || fail "$name: client printed $got pings"
	got=$(lines "$dir/s.out" '^server ping data: rdma-ping-')
	[ "$got" = "$n" ] && ok || fail "$name: server printed $got pings"
	last=$((n - 1))
	grep '^ping data: ' "$dir/c.out" | tail -n 1 |
		grep -q "^ping data: rdma-ping-$last: " && ok ||
		fail "$name: the last ping is not $last: $(cat "$dir/c.out")"
	[ $# -lt 5 ] || has "$(grep ': MPA rev ' "$dir/c.out")" "$5" "$name"
}

# DDP over SCTP runs on usrsctp over UDP encapsulation: a port of this
# run's own (iwcmd binds it on the first SCTP request only)
sctp_port=$((20000 + $$ % 30000))
cat >"$dir/iwcmd.conf" <<EOC
# test configuration
request_timeout_ms = 2000
sctp_udp_port = $sctp_port
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

# The daemon's defaults, 20 pings; the first exactly as rping prints it.
pair default 20 "" "" \
	"MPA rev 2, client-server, CRC on, markers tx off rx off, IRD 1 ORD 1"
[ "$(grep -m 1 '^ping data: ' "$dir/c.out")" = "ping data: $PING0" ] &&
	ok || fail "default: first ping: $(cat "$dir/c.out")"
[ "$(sed -n 2p "$dir/s.out")" = "server ping data: $PING0" ] && ok ||
	fail "default: server's first ping: $(sed -n 2p "$dir/s.out")"
# the client's count at ping 57 wraps the pattern around to 'A'
pair wrap 60 "" ""
grep -q '^ping data: rdma-ping-58: ABCD' "$dir/c.out" && ok ||
	fail "wrap: ping 58: $(grep 'rdma-ping-58' "$dir/c.out")"

pair mpa1 20 "--mpa-rev 1" "--mpa-rev 1" "MPA rev 1, client-server, CRC on"
pair p2p-write 20 "" "--p2p --rtr write" "MPA rev 2, peer-to-peer (RTR write)"
pair p2p-read 20 "" "--p2p --rtr read" "peer-to-peer (RTR read)"
pair p2p-send 20 "--rtr send" "--p2p --rtr send" "peer-to-peer (RTR send)"
pair crc-off 20 "--crc off" "--crc off" "CRC off, markers tx off rx off"
pair markers 20 "--markers" "--markers" "CRC on, markers tx on rx on"
pair markers-client 20 "" "--markers" "markers tx off rx on"
pair mpa1-markers-crc-off 20 "--mpa-rev 1 --markers --crc off" \
	"--mpa-rev 1 --markers --crc off" \
	"MPA rev 1, client-server, CRC off, markers tx on rx on"
pair p2p-markers 20 "--markers --crc off" "--p2p --markers --crc off" \
	"peer-to-peer (RTR write), CRC off, markers tx on rx on"
pair size-min 20 "-S 26" "-S 26"
pair size-max 3 "-S 65535" "-S 65535" "markers tx off rx off"
pair size-max-markers 3 "-S 65535 --markers" "-S 65535 --markers" \
	"markers tx on rx on"
pair size-smaller 5 "-S 1000" "-S 100"
pair source 5 "" "-I 127.0.0.1"
# IPv6 where the loopback has ::1
if grep -q '^0\{31\}1 ' /proc/net/if_inet6 2>/dev/null; then
	addr=::1
	pair ipv6 5 "" "-I ::1"
	addr=127.0.0.1
fi

# DDP over SCTP (RFC 5043) through iwcmd's relay: the same pings, Sends,
# Reads and Writes over the unchanged RDMAP/DDP code
pair sctp 20 "--transport sctp" "--transport sctp" \
	"CRC off, markers tx off rx off, IRD 1 ORD 1, RDMAP version 1, over SCTP"
pair sctp-size-max 3 "-S 65535 --transport sctp" \
	"-S 65535 --transport sctp" "over SCTP"
pair sctp-mpa1 5 "--transport sctp" "--mpa-rev 1 --transport sctp" \
	"MPA rev 0, client-server"

# -d: rping's debug lines and what was negotiated
pair debug 2 "-d --crc off" "-d --p2p --rtr read --crc off"
out=$(cat "$dir/c.out")
has "$out" "cma_event type ESTABLISHED" debug
has "$out" "MPA rev 2, peer-to-peer (RTR read), CRC off" debug
has "$(cat "$dir/s.out")" "Received rkey " debug

# A server -C 5 ends a client that pings forever after 5 pings.
server -C 5 -V && {
	client -V -v
	server_wait
	[ "$crc" -eq 0 ] && ok || fail "forever: client exited $crc: \
$(cat "$dir/c.err")"
	[ "$src" -eq 0 ] && ok || fail "forever: server exited $src: \
$(cat "$dir/s.err")"
	got=$(lines "$dir/c.out" '^ping data: ')
	[ "$got" = 5 ] && ok || fail "forever: client printed $got pings"
}
# A server without -C serves until the client closes.
server -V && {
	client -C 7 -V
	server_wait
	[ "$crc" -eq 0 ] && [ "$src" -eq 0 ] && ok ||
		fail "no count: exit $crc/$src: \
$(cat "$dir/c.err" "$dir/s.err")"
}

# A persistent server serves two clients at once, then SIGTERM: exit 0.
server -P -C 10 -V -v && {
	bounded "$rping" -c -a 127.0.0.1 -p "$port" -C 10 -V -v \
		>"$dir/c1.out" 2>"$dir/c1.err" &
	c1=$!
	client -C 10 -V -v
	wait "$c1"
	c1rc=$?
	[ "$crc" -eq 0 ] && [ "$c1rc" -eq 0 ] && ok ||
		fail "persistent: clients exited $crc/$c1rc: \
$(cat "$dir/c.err" "$dir/c1.err")"
	[ "$(lines "$dir/c1.out" '^ping data: ')" = 10 ] && ok ||
		fail "persistent: first client: $(cat "$dir/c1.out")"
	[ "$(lines "$dir/s.out" '^server ping data: ')" = 20 ] && ok ||
		fail "persistent: server: $(cat "$dir/s.out")"
	kill -TERM "$spid"
	server_wait
	[ "$src" -eq 0 ] && ok || fail "persistent: server exited $src: \
$(cat "$dir/s.err")"
}

# The client's buffer is larger than the server's: both fail, clearly.
server -S 64 && {
	client -S 100 -C 3
	server_wait
	[ "$crc" -eq 1 ] && ok || fail "too big: client exited $crc"
	[ "$src" -eq 1 ] && ok || fail "too big: server exited $src"
	has "$(cat "$dir/s.err")" "the client advertised 100 octets" too-big
}

# Nobody listens: the connection is refused, exit 1.
server -C 1 && {
	closed=$port
	client -C 1
	server_wait
	bounded "$rping" -c -a 127.0.0.1 -p "$closed" -C 1 \
		>"$dir/c.out" 2>"$dir/c.err"
	rc=$?
	[ "$rc" -eq 1 ] && ok || fail "unreachable: exited $rc"
	has "$(cat "$dir/c.err")" "UNREACHABLE" unreachable
}

# No daemon there.
IWCM_SOCKET="$dir/none.sock" "$rping" -c -a 127.0.0.1 -C 1 \
	>"$dir/c.out" 2>"$dir/c.err"
rc=$?
[ "$rc" -eq 1 ] && ok || fail "no daemon: exited $rc"
has "$(cat "$dir/c.err")" "cannot reach iwcmd at $dir/none.sock" no-daemon

# A bad IWCM_POLL_US: libiwcm refuses to open a context (iwcm_ctx_open(3)).
IWCM_POLL_US=1e3 "$rping" -c -a 127.0.0.1 -C 1 >"$dir/c.out" 2>"$dir/c.err"
rc=$?
[ "$rc" -eq 1 ] && ok || fail "bad IWCM_POLL_US: exited $rc"
has "$(cat "$dir/c.err")" "bad IWCM_POLL_US '1e3' (0 to 100000)" bad-poll-us
IWCM_PROGRESS_IDLE_US=2000000 "$rping" -c -a 127.0.0.1 -C 1 >"$dir/c.out" \
	2>"$dir/c.err"
rc=$?
[ "$rc" -eq 1 ] && ok || fail "bad IWCM_PROGRESS_IDLE_US: exited $rc"
has "$(cat "$dir/c.err")" \
	"bad IWCM_PROGRESS_IDLE_US '2000000' (0 to 1000000)" bad-idle-us

# Usage errors: exit 2 and a message naming the problem.
usage() {
	want=$1
	shift
	"$rping" "$@" >"$dir/u.out" 2>"$dir/u.err"
	rc=$?
	[ "$rc" -eq 2 ] && ok || fail "'$*' exited $rc, not 2"
	has "$(cat "$dir/u.err")" "$want" "'$*'"
}
usage "either -s (server) or -c (client)"
usage "invalid size '25' (valid range is 26 to 65535)" -s -S 25
usage "invalid size '65536'" -s -S 65536
usage "invalid size '6x'" -s -S 6x
usage "invalid count '-1'" -s -C -1
usage "invalid port '65536'" -s -p 65536
usage "needs the server's address (-a)" -c
usage "needs the server's port" -c -a 127.0.0.1 -p 0
usage "invalid address ''" -c -a ""
usage "unknown option '-x'" -s -x
usage "unknown option '--bogus'" -s --bogus
usage "option '-S' needs an argument" -s -S
usage "invalid MPA revision '3'" -s --mpa-rev 3
usage "invalid --crc 'maybe'" -s --crc maybe
usage "invalid --rtr 'write,fax'" -s --rtr write,fax
usage "--rtr needs --p2p" -c -a 127.0.0.1 --rtr read
usage "need MPA revision 2" -c -a 127.0.0.1 --p2p --mpa-rev 1
usage "-P is for the server" -c -a 127.0.0.1 -P
usage "unexpected argument 'extra'" -s extra
"$rping" --help >"$dir/u.out" 2>&1 && ok || fail "--help failed"
has "$(cat "$dir/u.out")" "--p2p" help

# The daemon saw all of it and stops cleanly.
kill -TERM "$pid"
wait "$pid"
rc=$?
pid=
[ "$rc" -eq 0 ] && ok || fail "iwcmd exited $rc: $(tail -n 20 "$dir/log")"

echo "rping: $passes passed, $fails failed"
[ "$fails" -eq 0 ]
