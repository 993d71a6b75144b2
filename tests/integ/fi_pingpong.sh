#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# libfabric's own fi_pingpong over the provider iwcm, through a private
# iwcmd -d on a temporary socket: FI_EP_MSG with the provider alone
# (-p iwcm -e msg) and FI_EP_RDM through ofi_rxm (-p "iwcm;ofi_rxm" -e
# rdm), each at several sizes with data checks (-c) and both ends must
# exit 0.  fi_info must list both.  The daemon's handshake counters
# (iwcmctl stats) prove the connections went through iwcmd.
set -u
. "$srcdir/integ/daemon.sh"
. "$srcdir/integ/fabric_env.sh"
if ! command -v fi_pingpong >/dev/null 2>&1 ||
	! command -v fi_info >/dev/null 2>&1; then
	echo "SKIP: fi_pingpong or fi_info not found (Debian package libfabric-bin)"
	exit 77
fi
spid=
fails=0
passes=0
daemon_dir fipp
ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

daemon_start

out=$(fi_info -p iwcm 2>&1)
case "$out" in
*"provider: iwcm"*"FI_EP_MSG"*) ok ;;
*) fail "fi_info -p iwcm: $out" ;;
esac
out=$(fi_info -p "iwcm;ofi_rxm" -t FI_EP_RDM -c FI_TAGGED 2>&1)
case "$out" in
*"provider: iwcm;ofi_rxm"*"FI_EP_RDM"*) ok ;;
*) fail "fi_info -p iwcm;ofi_rxm: $out" ;;
esac
out=$(fi_info -p "iwcm;ofi_rxm" -t FI_EP_RDM -c "FI_RMA|FI_ATOMIC" 2>&1)
case "$out" in
*"provider: iwcm;ofi_rxm"*) ok ;;
*) fail "fi_info iwcm;ofi_rxm with FI_RMA|FI_ATOMIC: $out" ;;
esac

handshakes() {
	"$ctl" stats 2>/dev/null | awk '$1 == "established" { print $2 }'
}
before=$(handshakes)

# fi_pingpong's out-of-band TCP port: one per run, below the ephemeral
# range, from a base that differs between concurrent runs of this script;
# a port found taken is skipped.
oob=$((10000 + $$ % 20000))
oob_port() {
	oob=$((oob + 1))
	echo "$oob"
}

# pingpong_once PROV EP SIZE: server and client with data checks; 0 when
# both ended well with every ping, else the outputs are shown.  ITERS
# pings (20 by default, written as fi_pingpong prints it in SHOWN).
ITERS=20
SHOWN=20
pingpong_once() {
	tries=0
	while :; do
		oob_port >/dev/null
		port=$oob
		timeout 60 fi_pingpong -p "$1" -e "$2" -c -I $ITERS -S "$3" \
			-B "$port" >"$dir/s.out" 2>&1 &
		spid=$!
		bg_pids="$bg_pids $spid"
		# The client connects once the server's port listens.
		i=0
		while ! ss -ltnH "sport = :$port" 2>/dev/null | grep -q . &&
			kill -0 "$spid" 2>/dev/null && [ $i -lt 100 ]; do
			i=$((i + 1))
			sleep 0.05
		done
		if ! kill -0 "$spid" 2>/dev/null &&
			grep -q "Address already in use" "$dir/s.out" &&
			[ $tries -lt 5 ]; then
			wait "$spid"
			tries=$((tries + 1))
			continue
		fi
		break
	done
	if timeout 60 fi_pingpong -p "$1" -e "$2" -c -I $ITERS -S "$3" \
		-P "$port" 127.0.0.1 >"$dir/c.out" 2>&1; then
		crc=0
	else
		crc=$?
	fi
	wait "$spid"
	src=$?
	spid=
	if [ $crc -eq 0 ] && [ $src -eq 0 ] &&
		grep -q "^[0-9.]*[kmg]* *$SHOWN *=$SHOWN " "$dir/c.out"; then
		return 0
	fi
	echo "fi_pingpong -p '$1' -e $2 -S $3: client $crc, server $src"
	sed 's/^/  client: /' "$dir/c.out"
	sed 's/^/  server: /' "$dir/s.out"
	return 1
}

# pingpong PROV EP SIZE: a second attempt after a failed first one, both
# shown: on a loaded machine one of five runs of this script had a
# pair fail once (msg, 100000 octets; not reproduced in 48 more pairs),
# which CI must not take for a regression; twice is one.
pingpong() {
	if pingpong_once "$@"; then
		ok
	elif echo "note: retrying once" && pingpong_once "$@"; then
		ok
	else
		fail "fi_pingpong -p '$1' -e $2 -S $3 failed twice"
	fi
}

for size in 1 4096 100000; do
	pingpong iwcm msg $size
done
for size in 1 4096 100000 1048576; do
	pingpong "iwcm;ofi_rxm" rdm $size
done

# Receive credits cost no message per posted receive (iwfi_credit.c):
# 1000 ping-pongs over ofi_rxm, each endpoint's counts from its log line
# at close.  Each side sends a count for every quarter of the receives
# it keeps posted, along with a Send: a few dozen, never one per ping.
ITERS=1000
SHOWN=1k
export FI_LOG_LEVEL=info FI_LOG_PROV=iwcm
if pingpong_once "iwcm;ofi_rxm" rdm 64; then
	for side in c s; do
		line=$(grep "credit updates sent" "$dir/$side.out" | tail -1)
		sent=$(echo "$line" | sed -n 's/.*completed, \([0-9]*\) credit updates sent (\([0-9]*\) along.*/\1/p')
		rides=$(echo "$line" | sed -n 's/.*completed, \([0-9]*\) credit updates sent (\([0-9]*\) along.*/\2/p')
		echo "credits per 1000 ping-pongs, $side: ${sent:-?} sent, ${rides:-?} along with a Send"
		if [ -n "$sent" ] && [ "$sent" -gt 0 ] && [ "$sent" -le 100 ]; then
			ok
		else
			fail "$side: credit updates per 1000 ping-pongs: '${sent:-none}' (1 to 100 expected): $line"
		fi
	done
else
	fail "fi_pingpong iwcm;ofi_rxm 1000 pings with FI_LOG_LEVEL=info"
fi
# MPA CRC: off between two providers unless FI_IWCM_CRC=on asks for it
# (RFC 5044 §4.4: both ends agree); a bad value is refused, named.
ITERS=20
SHOWN=20
for want in off on; do
	if [ $want = on ]; then export FI_IWCM_CRC=on; fi
	if pingpong_once "iwcm;ofi_rxm" rdm 4096 &&
		grep -q "connected: MPA CRC $want," "$dir/c.out" &&
		grep -q "connected: MPA CRC $want," "$dir/s.out"; then
		ok
	else
		fail "FI_IWCM_CRC ${FI_IWCM_CRC:-unset}: no 'MPA CRC $want' on both sides"
	fi
done
unset FI_LOG_LEVEL FI_LOG_PROV
out=$(FI_LOG_LEVEL=warn FI_IWCM_CRC=sometimes fi_info -p iwcm 2>&1)
case "$out" in
*"bad FI_IWCM_CRC 'sometimes' (on or off)"*) ok ;;
*) fail "FI_IWCM_CRC=sometimes: not named: $out" ;;
esac
unset FI_IWCM_CRC FI_LOG_LEVEL FI_LOG_PROV

after=$(handshakes)
if [ -n "$before" ] && [ -n "$after" ] && [ "$after" -gt "$before" ]; then
	ok
else
	fail "iwcmd's handshake counter did not rise ($before -> $after)"
	"$ctl" stats
fi

rc=0
daemon_stop || rc=$?
[ $rc -eq 0 ] && ok || fail "iwcmd exited $rc at SIGTERM"
echo "fi_pingpong.sh: $passes passed, $fails failed"
[ $fails -eq 0 ] || { echo "---- iwcmd log"; tail -50 "$dir/log"; exit 1; }
exit 0
