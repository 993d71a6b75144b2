#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl stats -o openmetrics against a real iwcmd after real traffic:
# two handshakes handed off (iwcm-rping), one that fails with a Terminate
# both ways (no common RTR type, RFC 6581 §9.2), one connect refused, and
# one DDP stream session over SCTP (RFC 5043) handed off both ways,
# after which iwcmd has no thread but its own and usrsctp's idle one.
# The output must be well-formed OpenMetrics text (every sample under a
# '# TYPE' and '# HELP' of its family, counters' samples named _total,
# label values quoted, integer values, or decimals in the '# UNIT' of a
# family that has one, no series twice, '# EOF' last) and the counts must
# be those of the traffic.  Then bad arguments.
set -u
. "$srcdir/integ/daemon.sh"
rping="$top_builddir/examples/iwcm-rping"
spid=
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

daemon_dir metrics
# SCTP on a UDP encapsulation port of this run's own; a fixed busy
# poll, whose time iwcm_loop_poll_seconds counts
sctp_port=$((20000 + $$ % 30000))
daemon_start log "sctp_udp_port = $sctp_port
busy_poll_us = 1000"

# rserver "ARGS": an iwcm-rping server in the background (spid), its
# port in port (empty when it did not listen)
rserver() {
	# emptied first: the loop below must not read the last server's port
	: >"$dir/s.out"
	"$rping" -s -a 127.0.0.1 -p 0 -C 2 $1 >"$dir/s.out" 2>&1 &
	spid=$!
	bg_pids="$bg_pids $spid"
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 500 ]; do
		port=$(sed -n 's/^listening on .* port \([0-9]*\)$/\1/p' \
			"$dir/s.out")
		i=$((i + 1))
		[ -n "$port" ] || sleep 0.01
	done
	[ -n "$port" ] || fail "rping server did not listen"
}

# rpair "SERVER ARGS" "CLIENT ARGS": one iwcm-rping exchange
rpair() {
	rserver "$1"
	[ -n "$port" ] || return
	timeout 30 "$rping" -c -a 127.0.0.1 -p "$port" -C 2 $2 \
		>"$dir/c.out" 2>&1
	crc=$?
	i=0
	while kill -0 "$spid" 2>/dev/null && [ $i -lt 500 ]; do
		i=$((i + 1))
		sleep 0.02
	done
	kill -9 "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null
	spid=
}

rpair "-V" "-V"
[ "$crc" = 0 ] || fail "the first exchange failed: $(cat "$dir/c.out")"
rpair "-V" "-V --p2p --rtr read"
[ "$crc" = 0 ] || fail "the p2p exchange failed: $(cat "$dir/c.out")"
rpair "--rtr send" "--p2p --rtr write"
[ "$crc" != 0 ] || fail "an exchange without a common RTR succeeded"
rpair "-V --transport sctp" "-V --transport sctp"
[ "$crc" = 0 ] || fail "the SCTP exchange failed: $(cat "$dir/c.out")"
# usrsctp without threads (docs/sctp.md): iwcmd's loop and usrsctp's
# idle iterator, nothing else, after an SCTP session (sorted: the task
# directories list in the order of their ids as text, which the ids'
# values do not decide)
threads=$(for t in /proc/"$pid"/task/*/comm; do cat "$t"; done |
	LC_ALL=C sort | tr '\n' ' ')
[ "$threads" = "SCTP iterator iwcmd " ] ||
	fail "iwcmd's threads after SCTP: $threads"
# a port nobody listens on
lfd_port=1
"$ctl" connect --daemon "127.0.0.1:$lfd_port" >/dev/null 2>&1

# two datagrams on the SCTP UDP port that are not SCTP packets (too
# short, RFC 4960 §3), one with a wrong CRC32c (§6.8): dropped, counted
bash -c "printf x >/dev/udp/127.0.0.1/$sctp_port
printf yy >/dev/udp/127.0.0.1/$sctp_port
printf '%064d' 0 >/dev/udp/127.0.0.1/$sctp_port" ||
	fail "cannot send to UDP port $sctp_port"
sleep 0.2

"$ctl" stats -o openmetrics >"$dir/om" 2>"$dir/om.err" ||
	fail "stats -o openmetrics exited $?: $(cat "$dir/om.err")"

# The format (OpenMetrics 1.0 text).
awk '
function bad(m) { print "line " NR ": " m ": " $0; err = 1 }
/^# TYPE / {
	if (NF != 4 || ($4 != "counter" && $4 != "gauge")) bad("TYPE")
	if (seen[$3]++) bad("family twice")
	fam = $3; type = $4; help = 0; unit = ""; next
}
/^# UNIT / {
	if (NF != 4 || $3 != fam || help) bad("UNIT")
	if (substr(fam, length(fam) - length($4)) != "_" $4)
		bad("family not named for its unit")
	unit = $4; next
}
/^# HELP / { if ($3 != fam) bad("HELP of another family"); help = 1; next }
/^# EOF$/ { eof = NR; next }
/^#/ { bad("unknown comment"); next }
{
	if (eof) bad("after # EOF")
	if (!help) bad("sample before its HELP")
	name = $1; sub(/\{.*/, "", name)
	want = type == "counter" ? fam "_total" : fam
	if (name != want) bad("sample of " fam " named " name)
	if (name !~ /^[a-zA-Z_:][a-zA-Z0-9_:]*$/) bad("name")
	if ($1 ~ /\{/ && $1 !~ /^[^{]*\{([a-z_]+="[^"\\]*",)*[a-z_]+="[^"\\]*"\}$/)
		bad("labels")
	if (NF != 2 || (unit == "" && $2 !~ /^[0-9]+$/) ||
	    (unit != "" && $2 !~ /^[0-9]+\.[0-9]+$/))
		bad("value")
	if (series[$1]++) bad("series twice")
	n++
}
END {
	if (!eof || eof != NR) { print "no # EOF at the end"; err = 1 }
	if (n < 20) { print n " samples only"; err = 1 }
	exit err
}' "$dir/om" || fail "malformed OpenMetrics (above)"

# value SERIES: the value of one series, empty when absent
value() { awk -v s="$1" '$1 == s { print $2 }' "$dir/om"; }
want() {
	got=$(value "$1")
	[ "$got" = "$2" ] || fail "$1 is '$got', not $2"
}
hs='iwcm_handshakes_total{transport="tcp",role='
want "${hs}\"initiator\",outcome=\"established\",reason=\"none\"}" 2
want "${hs}\"responder\",outcome=\"established\",reason=\"none\"}" 2
want "${hs}\"initiator\",outcome=\"failed\",reason=\"protocol\"}" 1
want "${hs}\"responder\",outcome=\"failed\",reason=\"protocol\"}" 1
want "${hs}\"initiator\",outcome=\"failed\",reason=\"refused\"}" 1
hs='iwcm_handshakes_total{transport="sctp",role='
want "${hs}\"initiator\",outcome=\"established\",reason=\"none\"}" 1
want "${hs}\"responder\",outcome=\"established\",reason=\"none\"}" 1
want "${hs}\"initiator\",outcome=\"failed\",reason=\"timeout\"}" 0
# RFC 6581 §9.2: TERM Layer 2 (LLP), type 0 (MPA), code 7, both ways
want 'iwcm_terminates_total{direction="sent",layer="2",type="0",code="7"}' 1
want 'iwcm_terminates_total{direction="received",layer="2",type="0",code="7"}' 1
want 'iwcm_handoffs_total{result="done"}' 4
want 'iwcm_accepted_total' 3
want 'iwcm_shed_total' 0
want 'iwcm_halfopen' 0
want 'iwcm_connections{transport="tcp",state="wait_request"}' 0
want 'iwcm_connections{transport="sctp",state="wait_ulp"}' 0
want 'iwcm_timeouts_total{phase="request"}' 0
want 'iwcm_sctp_udp_dropped_total{reason="not_sctp"}' 2
want 'iwcm_sctp_udp_dropped_total{reason="bad_crc"}' 1
want 'iwcm_sctp_udp_dropped_total{reason="bad_vtag"}' 0
# every exchange with a client was followed by 1 ms of polling
grep -q '^# UNIT iwcm_loop_poll_seconds seconds$' "$dir/om" ||
	fail "no UNIT line for iwcm_loop_poll_seconds"
got=$(value iwcm_loop_poll_seconds_total)
awk -v v="$got" 'BEGIN { exit !(v >= 0.01) }' ||
	fail "iwcm_loop_poll_seconds_total is '$got', not 0.01 or more"

# A scrape over HTTP as iwcm-metrics.socket serves it: a real socket
# activation with Accept=yes (systemd-socket-activate --inetd) and curl.
sa=$(command -v systemd-socket-activate 2>/dev/null || true)
curl=$(command -v curl 2>/dev/null || true)
if [ -n "$sa" ] && [ -n "$curl" ]; then
	# a port below the ephemeral range (32768), another when taken
	for try in 1 2 3 4 5 6 7 8; do
		hport=$((20000 + ($$ + try * 1543) % 12000))
		"$sa" -l "127.0.0.1:$hport" --accept --inetd \
			-E IWCM_SOCKET="$sock" "$ctl" stats -o openmetrics \
			--http 2>"$dir/sa.err" &
		sapid=$!
		bg_pids="$bg_pids $sapid"
		i=0
		while ! "$curl" -s -o "$dir/http" -D "$dir/hdr" \
			"http://127.0.0.1:$hport/metrics" 2>/dev/null; do
			i=$((i + 1))
			[ $i -gt 200 ] && break
			kill -0 "$sapid" 2>/dev/null || break
			sleep 0.02
		done
		grep -q 'Address already in use' "$dir/sa.err" || break
		wait "$sapid" 2>/dev/null
	done
	kill "$sapid" 2>/dev/null
	wait "$sapid" 2>/dev/null
	head -n 1 "$dir/hdr" | grep -q '^HTTP/1.0 200' ||
		fail "HTTP scrape: $(cat "$dir/hdr" "$dir/sa.err" 2>&1)"
	grep -qi '^Content-Type: application/openmetrics-text; version=1.0.0' \
		"$dir/hdr" || fail "HTTP scrape Content-Type: $(cat "$dir/hdr")"
	tail -n 1 "$dir/http" | grep -q '^# EOF$' ||
		fail "HTTP scrape body: $(tail -n 3 "$dir/http")"
	grep -q '^iwcm_accepted_total 3$' "$dir/http" ||
		fail "HTTP scrape counts: $(grep accepted "$dir/http")"
else
	echo "note: no HTTP scrape (systemd-socket-activate or curl missing)"
fi
# --http on a request piped in; with the daemon down it is 503 (below)
out=$(printf 'GET / HTTP/1.1\r\nHost: x\r\n\r\n' |
	"$ctl" stats -o openmetrics --http 2>/dev/null | head -n 1)
case "$out" in
"HTTP/1.0 200 OK"*) ;;
*) fail "--http on a piped request: $out" ;;
esac

# Bad arguments: exit 2 with a message, nothing on stdout.
for args in "-o" "-o bogus" "-o openmetrics -o text" "-j -o openmetrics" \
	"--http" "-o json --http"; do
	# shellcheck disable=SC2086
	out=$("$ctl" stats $args 2>"$dir/err")
	rc=$?
	[ "$rc" = 2 ] || fail "stats $args exited $rc"
	[ -z "$out" ] || fail "stats $args printed: $out"
	[ -s "$dir/err" ] || fail "stats $args said nothing"
done
# -o json is -j; -o text the default
"$ctl" stats -o json | grep -q '"accepted":3' ||
	fail "stats -o json: $("$ctl" stats -o json)"
"$ctl" stats -o text | grep -q '^accepted  *3$' ||
	fail "stats -o text: $("$ctl" stats -o text)"
# the loop's polling, in microseconds
"$ctl" stats -o text | grep -q '^loop_poll_us  *[1-9][0-9]*$' ||
	fail "stats -o text, loop_poll_us: $("$ctl" stats -o text)"
# The SCTP session's two ends, in the text totals too.
"$ctl" stats -o text | grep -q '^sctp_established  *2$' ||
	fail "stats -o text, SCTP: $("$ctl" stats -o text)"
"$ctl" stats -o text | grep -q '^sctp_failed  *0$' ||
	fail "stats -o text, SCTP: $("$ctl" stats -o text)"

# The SCTP sessions' gauges, live: with the server stopped, the client's
# session waits for the answer (wait_reply) and the peer's Initiate for
# the server (wait_ulp); once the exchange is over, none is left.
# sctp_gauges: "state=value ..." of the nonzero ones
sctp_gauges() {
	"$ctl" stats -o openmetrics 2>/dev/null | awk '
	$1 ~ /^iwcm_connections\{transport="sctp",/ && $2 != 0 {
		st = $1; sub(/.*state="/, "", st); sub(/".*/, "", st)
		printf "%s%s=%s", sep, st, $2; sep = " "
	}'
}
# until_gauges WANT: poll (5 s) until sctp_gauges prints WANT
until_gauges() {
	i=0
	while [ "$(sctp_gauges)" != "$1" ] && [ $i -lt 250 ]; do
		i=$((i + 1))
		sleep 0.02
	done
	[ "$(sctp_gauges)" = "$1" ] ||
		fail "SCTP gauges: '$(sctp_gauges)', not '$1'"
}
rserver "-V --transport sctp"
if [ -n "$port" ]; then
	kill -STOP "$spid"
	timeout 30 "$rping" -c -a 127.0.0.1 -p "$port" -C 2 -V \
		--transport sctp >"$dir/c.out" 2>&1 &
	cpid=$!
	until_gauges "wait_reply=1 wait_ulp=1"
	kill -CONT "$spid"
	wait "$cpid" || fail "the held SCTP exchange failed: $(cat "$dir/c.out")"
	wait "$spid" 2>/dev/null
	until_gauges ""
fi

# a daemon that is down: one line naming the socket
daemon_stop
out=$("$ctl" stats -o openmetrics 2>&1)
rc=$?
[ "$rc" = 2 ] || fail "stats with no daemon exited $rc"
case "$out" in
*"$dir"*) ;;
*) fail "stats with no daemon does not name the socket: $out" ;;
esac
out=$(printf 'GET / HTTP/1.0\r\n\r\n' |
	"$ctl" stats -o openmetrics --http 2>/dev/null | head -n 1)
case "$out" in
"HTTP/1.0 503 "*) ;;
*) fail "--http with no daemon: $out" ;;
esac

if [ "$fails" -ne 0 ]; then
	echo "--- iwcmd log"
	cat "$dir/log"
	exit 1
fi
echo "PASS: OpenMetrics well-formed, counts as the traffic made them"
