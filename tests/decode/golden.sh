#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Golden output of iwcmctl: every command that runs without a network
# peer (decode of the siw captures and of sample sessions, sample --hex,
# usage and errors), and the admin and client commands against a real
# iwcmd -d on a temporary socket, in text and in JSON, compared byte for
# byte with tests/decode/golden/*.txt.  Each case is recorded as its
# command line, its standard output, its standard error and its exit
# status.  Numbers that change from run to run (pid, uptime, ports, age,
# ids) are replaced by names before the comparison.
# GOLDEN_UPDATE=1 rewrites the golden files instead of comparing.
set -u
: "${top_builddir:?}" "${srcdir:?}" "${builddir:?}"

ctl="$top_builddir/cli/iwcmctl"
iwcmd="$top_builddir/daemon/iwcmd"
caps="$srcdir/vectors/captures"
gold="$srcdir/decode/golden"
dir=$(mktemp -d /tmp/iwcm-golden.XXXXXX)
pid=
lpid=
trap '[ -n "$lpid" ] && kill -9 "$lpid" 2>/dev/null
[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null; rm -rf "$dir"' EXIT

if [ ! -x "$ctl" ]; then
	echo "SKIP: $ctl not built"
	exit 77
fi

# Replace what differs between runs.
normalize() {
	sed -e "s|$caps|CAPS|g" -e "s|$dir|DIR|g" \
	    -e 's/pid [0-9][0-9]*/pid N/g' \
	    -e 's/"pid":[0-9][0-9]*/"pid":N/g' \
	    -e 's/up [0-9][0-9]*d [0-9:]*/up T/g' \
	    -e 's/"uptime_s":[0-9][0-9]*/"uptime_s":N/g' \
	    -e 's/iwcmd [0-9][^ ,]*,/iwcmd VERSION,/g' \
	    -e 's/"version":"[^"]*"/"version":"VERSION"/g' \
	    -e 's/iwcmctl [0-9][0-9.]*[^ ]*$/iwcmctl VERSION/' \
	    -e 's/127\.0\.0\.1:[0-9][0-9]*/127.0.0.1:PORT/g' \
	    -e 's/"port":[0-9][0-9]*/"port":PORT/g' \
	    -e 's/listener set [0-9][0-9][0-9][0-9]* /listener set PORT /' \
	    -e 's/"age_ms":[0-9][0-9]*/"age_ms":N/g' \
	    -e 's/"id":[0-9][0-9]*/"id":N/g' \
	    -e 's/^conn [0-9][0-9]*: /conn N: /' \
	    -e 's/[0-9][0-9]*\.[0-9]s$/AGEs/' \
	    -e 's/"uid":[0-9][0-9]*/"uid":N/g' \
	    -e 's/"owner_uid":[0-9][0-9]*/"owner_uid":N/g' \
	    -e 's/^\([0-9][0-9]* *\)\(127\.0\.0\.1:PORT *svc *\)[0-9][0-9]*/ID \2UID/'
}

# run GROUP ARGS...: record one iwcmctl run in $dir/GROUP.txt
run() {
	_g=$1
	shift
	"$ctl" "$@" >"$dir/o" 2>"$dir/e"
	_rc=$?
	{
		echo "### iwcmctl $*"
		cat "$dir/o"
		echo "--- stderr"
		cat "$dir/e"
		echo "--- exit $_rc"
	} | normalize >>"$dir/$_g.txt"
}

# runsh GROUP DESC CMD: record a shell pipeline (stdin of iwcmctl)
runsh() {
	_g=$1
	_d=$2
	shift 2
	sh -c "$*" >"$dir/o" 2>"$dir/e"
	_rc=$?
	{
		echo "### $_d"
		cat "$dir/o"
		echo "--- stderr"
		cat "$dir/e"
		echo "--- exit $_rc"
	} | normalize >>"$dir/$_g.txt"
}

# ---- decode of the Linux siw captures: text, -v, -j ----
for c in siw-rping-mpa2-p2p-writertr siw-rping-default siw-rping-mpa1 \
	siw-readbw-mpa1-crc; do
	run captures decode "$caps/$c.pcap"
	run captures decode -j "$caps/$c.pcap"
done
run captures decode -v "$caps/siw-rping-mpa2-p2p-writertr.pcap"
run captures -j decode -v "$caps/siw-rping-mpa1.pcap"
# DDP over SCTP from usrsctp, on the UDP port of its capture
run captures decode --sctp-udp-port 21150 "$caps/iwcmd-rping-sctp.pcap"
run captures decode -j --sctp-udp-port 21150 "$caps/iwcmd-rping-sctp.pcap"
run captures decode "$caps/iwcmd-rping-sctp.pcap"

# ---- sample sessions, decoded in text and JSON, and as hex ----
for opts in "" "--rev 1" "--rev 0" "--rev0" "--client-server" \
	"--rtr read" "--rtr send" "--rev 1 --rtr-frame" "--markers" \
	"--markers-i2r" "--markers-r2i" "--no-crc" "--swap" "--terminate" \
	"--mss 100" "--mss 100 --no-ddp-seg" "--corrupt 3" \
	"--markers --mss 300 --no-ddp-seg --swap --terminate" \
	"--corrupt 0 --markers"; do
	runsh samples "sample $opts | decode -" \
		"'$ctl' sample -o - $opts | '$ctl' decode -"
	runsh samples "sample $opts | decode -j -" \
		"'$ctl' sample -o - $opts | '$ctl' decode -j -"
	runsh samples "sample --hex $opts" "'$ctl' sample --hex -o - $opts"
	runsh samples "sample --hex $opts | decode --hex -j -" \
		"'$ctl' sample --hex -o - $opts | '$ctl' decode --hex -j -"
done
# DDP over SCTP over UDP
runsh samples "sample --transport sctp | decode -" \
	"'$ctl' sample --transport sctp -o - | '$ctl' decode -"
runsh samples "sample --transport sctp | decode -j -" \
	"'$ctl' sample --transport sctp -o - | '$ctl' decode -j -"
runsh samples "sample --transport sctp | decode -v -" \
	"'$ctl' sample --transport sctp -o - | '$ctl' decode -v -"
runsh samples "sample --transport sctp --corrupt 4 | decode -" \
	"'$ctl' sample --transport sctp --corrupt 4 -o - | '$ctl' decode -"
runsh samples "sample --transport sctp -v (stderr listing)" \
	"'$ctl' sample --transport sctp -v -o /dev/null"
runsh samples "sample -v (stderr listing)" "'$ctl' sample -v -o /dev/null"
runsh samples "sample -v --markers --rtr read (stderr listing)" \
	"'$ctl' sample -v --markers --rtr read -o /dev/null"
runsh samples "sample -v | decode -v -" \
	"'$ctl' sample -o - | '$ctl' decode -v -"

# ---- usage and errors ----
run usage
run usage -h
run usage help
run usage --help
run usage --version
run usage -x status
run usage nosuchcommand
run usage s
run usage decode --help
run usage decode --nope
run usage decode /nonexistent.pcap
run usage decode -j /nonexistent.pcap
run usage sample --help
run usage sample --rev 3
run usage sample --rtr-frame
run usage sample --rtr bogus
run usage sample --mss 1
run usage sample --corrupt 9999 -o /dev/null
run usage sample --rtr read --rev 1
run usage sample --transport udp
run usage sample --transport sctp --hex
run usage sample --transport sctp --markers
run usage sample --transport sctp --corrupt 99 -o /dev/null
run usage decode --sctp-udp-port 0
run usage decode --sctp-udp-port 65536
run usage decode --sctp-udp-port
run usage listen --help
run usage listen
run usage listen 127.0.0.1:0 --p2p
run usage listen 1 --rev 0
run usage listen 1 --markers maybe
run usage connect --help
run usage connect
run usage connect 127.0.0.1:1 --rev 9
run usage connect 127.0.0.1:1 --rtr send,,read
run usage connect 127.0.0.1:1 --rtr fax
run usage connect 127.0.0.1:1 --crc sometimes
run usage connect 127.0.0.1:1 --ird 16384
run usage connect 127.0.0.1:1 --private-data 0g
run usage connect 127.0.0.1:1 --rev 0
run usage connect 127.0.0.1:1 --timeout 5
run usage connect 127.0.0.1 --daemon
run usage connect 127.0.0.1:1 --daemon --rev 3
for c in status listeners conns stats; do
	run usage "$c" --help
	run usage "$c" extra
done
run usage show --help
run usage show
run usage show x
run usage log --help
run usage log loud
run usage kill
run usage listener --help
run usage listener
run usage listener get 1
run usage listener set 0 crc=on
run usage -s "$dir/nothere.sock" status
run usage -s "$dir/nothere.sock" -j listeners
printf '> 00\n' >"$dir/odd.hex"
printf 'garbage\n' >"$dir/bad.hex"
run usage decode --hex "$dir/odd.hex"
run usage decode --hex "$dir/bad.hex"
run usage decode -j --hex "$dir/bad.hex"
printf 'not a capture at all' >"$dir/junk.pcap"
run usage decode "$dir/junk.pcap"

# ---- the admin and client commands against iwcmd ----
daemon=0
if [ -x "$iwcmd" ]; then
	sock="$dir/iwcmd.sock"
	cat >"$dir/iwcmd.conf" <<EOC
# golden output configuration
request_timeout_ms = 500
# no polling: its time (loop_poll_us) stays 0
adaptive_poll_us = 0
[listener svc]
address = 127.0.0.1:0
pending_max = 4
EOC
	"$iwcmd" -d -f "$dir/iwcmd.conf" -s "$sock" 2>"$dir/log" &
	pid=$!
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
	daemon=1
	port=$("$ctl" -s "$sock" -j listeners |
		sed -n 's/.*"port":\([0-9]*\).*/\1/p')
	closed=$((port == 65535 ? 65534 : port + 1))
	for j in "" -j; do
		run admin -s "$sock" $j status
		run admin -s "$sock" $j listeners
		run admin -s "$sock" $j conns
		run admin -s "$sock" $j stats
		run admin -s "$sock" $j show 4242
		run admin -s "$sock" $j kill 4242
		run admin -s "$sock" $j log verbose
		run admin -s "$sock" $j status
		run admin -s "$sock" $j log brief
		run admin -s "$sock" $j listener set "$port" crc=off \
			rtr=read,write markers=on rev0=permissive ird=8 ord=8
		run admin -s "$sock" $j listener set 1 crc=off
		run admin -s "$sock" $j listener set "$port" colour=blue
		run admin -s "$sock" $j listener set "$port" ird=16384
		run admin -s "$sock" $j listener set "$port" markers=maybe
		run admin -s "$sock" $j connect "127.0.0.1:$closed" --daemon \
			--rev 2 --p2p --rtr write --ird 4 --ord 4 \
			--private-data 0a0b
		run admin -s "$sock" $j connect "127.0.0.1:$closed" --rev 1
	done
	# listen and connect: one connection each way of printing
	for j in "" -j; do
		for opts in "--p2p --rtr read --markers on" \
			"--rev 1 --crc off --private-data 0102" \
			"--rev 1 --rtr-frame"; do
			lopts=
			case "$opts" in *rtr-frame*) lopts=--rtr-frame ;; esac
			: >"$dir/l.out"
			"$ctl" -s "$sock" -j listen 127.0.0.1:0 --timeout 10000 \
				$lopts >"$dir/l.out" 2>"$dir/l.err" &
			lpid=$!
			lport=
			i=0
			while [ -z "$lport" ] && [ $i -lt 500 ]; do
				lport=$(sed -n 's/.*"port":\([0-9]*\).*/\1/p' \
					"$dir/l.out")
				i=$((i + 1))
				[ -n "$lport" ] || sleep 0.01
			done
			run client -s "$sock" $j connect "127.0.0.1:$lport" \
				$opts
			wait "$lpid"
			lpid=
			{
				echo "### (listen $lopts, -j)"
				cat "$dir/l.out"
			} | normalize >>"$dir/client.txt"
		done
		: >"$dir/l.out"
		"$ctl" -s "$sock" $j listen 127.0.0.1:0 --timeout 10000 \
			--reject --private-data beef >"$dir/l.out" \
			2>"$dir/l.err" &
		lpid=$!
		lport=
		i=0
		while [ -z "$lport" ] && [ $i -lt 500 ]; do
			lport=$(sed -n -e 's/.*"port":\([0-9]*\).*/\1/p' \
				-e 's/^listening on .*:\([0-9]*\)$/\1/p' \
				"$dir/l.out")
			i=$((i + 1))
			[ -n "$lport" ] || sleep 0.01
		done
		run client -s "$sock" $j connect "127.0.0.1:$lport"
		wait "$lpid"
		lpid=
		{
			echo "### (listen $j --reject --private-data beef)"
			cat "$dir/l.out"
		} | normalize >>"$dir/client.txt"
	done
	kill -TERM "$pid"
	wait "$pid"
	pid=
fi

groups="captures samples usage"
[ $daemon -eq 1 ] && groups="$groups admin client"
rc=0
for g in $groups; do
	if [ "${GOLDEN_UPDATE:-0}" = 1 ]; then
		cp "$dir/$g.txt" "$gold/$g.txt"
		echo "updated $gold/$g.txt"
	elif cmp -s "$dir/$g.txt" "$gold/$g.txt"; then
		echo "ok - $g"
	else
		echo "not ok - $g"
		diff -u "$gold/$g.txt" "$dir/$g.txt" | head -n 60
		rc=1
	fi
done
[ $daemon -eq 1 ] || echo "# iwcmd not built: admin and client not compared"
exit $rc
