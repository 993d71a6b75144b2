#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tcp_user_timeout_ms: iwcmd sets TCP_USER_TIMEOUT on the socket it
# hands over, from iwcmd.conf(5) (2500 here), from the listener's
# parameters (iwcmctl listen --tcp-user-timeout) and from the connect's
# (iwcmctl connect --tcp-user-timeout, also 0 for the kernel's); both
# ends report what their socket holds (-j "tcp_user_timeout_ms").  An
# out-of-range value is refused by iwcmctl.  tests/hosts/ takes a link
# away for longer than it and watches both ends end.
set -u
. "$srcdir/integ/daemon.sh"
daemon_dir uto
daemon_start log "tcp_user_timeout_ms = 2500"
fails=0
uto() {
	grep '"event":"ESTABLISHED"' "$1" | head -n 1 |
		sed -n 's/.*"tcp_user_timeout_ms":\([0-9]*\).*/\1/p'
}
# pair NAME WANT_CONNECT WANT_LISTEN [CONNECT OPTIONS [LISTEN OPTIONS]]
pair() {
	# shellcheck disable=SC2086 # options are words
	"$ctl" -j listen 127.0.0.1:0 --count 1 --timeout 10000 ${5:-} \
		>"$dir/$1.l" 2>&1 &
	lpid=$!
	bg_pids="$bg_pids $lpid"
	port=
	i=0
	while [ -z "$port" ] && [ $i -lt 500 ]; do
		port=$(sed -n 's/.*"event":"LISTENING".*"port":\([0-9]*\).*/\1/p' \
			"$dir/$1.l")
		i=$((i + 1))
		[ -n "$port" ] || sleep 0.01
	done
	# shellcheck disable=SC2086
	"$ctl" -j connect "127.0.0.1:${port:-1}" --timeout 10000 ${4:-} \
		>"$dir/$1.c" 2>&1
	wait "$lpid"
	c=$(uto "$dir/$1.c")
	l=$(uto "$dir/$1.l")
	if [ "$c/$l" != "$2/$3" ]; then
		echo "FAIL: $1: connect $c listen $l, want $2/$3"
		cat "$dir/$1.c" "$dir/$1.l"
		fails=$((fails + 1))
	else
		echo "$1: connect $c ms, listen $l ms"
	fi
}
pair conf 2500 2500
pair connect 700 2500 "--tcp-user-timeout 700"
pair listen 2500 900 "" "--tcp-user-timeout 900"
pair off 0 1200 "--tcp-user-timeout 0" "--tcp-user-timeout 1200"
if "$ctl" connect 127.0.0.1:1 --tcp-user-timeout 3600001 >"$dir/bad" 2>&1
then
	echo "FAIL: --tcp-user-timeout 3600001 accepted"
	fails=$((fails + 1))
fi
rc=0
daemon_stop || rc=$?
[ $rc -eq 0 ] || { echo "FAIL: iwcmd exited $rc"; fails=$((fails + 1)); }
[ $fails -eq 0 ] || { tail -20 "$dir/log"; exit 1; }
exit 0
