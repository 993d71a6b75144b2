# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Packet loss on one host's link (sourced by run.sh): nftables in h2's
# namespace drops 0, 1 and 5 % of what crosses its eth0, both ways
# (numgen random), during a verified iwcm-rping transfer from h1 over
# MPA/TCP and over DDP/SCTP (usrsctp, UDP encapsulation), and during
# the same transfer over plain TCP (tcp_echo.c: SIZE octets out, the
# same back, checked) as the baseline.  The volume is HOSTS_LOSS_PINGS
# pings of 64 KiB - 1 (default 128: 8 MiB each way, 16 MiB moved),
# scaled down from 1 GiB for CI's time.

# loss_rping TRANSPORT COUNT: "SECONDS" of a verified transfer, or fail
loss_rping() {
	local t0 rc_c rc_s
	t0=$(ms)
	rping_pair loss h2 h1 "$2" -S 65535 --transport "$1" || {
		echo "no server: $(cat "$hdir/loss.s.err")"
		return 1
	}
	wait_for "$cpid" 300
	rc_c=$?
	wait_for "$spid" 30
	rc_s=$?
	if [ $rc_c -ne 0 ] || [ $rc_s -ne 0 ]; then
		echo "client exit $rc_c, server exit $rc_s: $(tail -3 "$hdir/loss.c.err" "$hdir/loss.s.err")"
		return 1
	fi
	echo $(($(ms) - t0))
}

# loss_tcp COUNT: milliseconds of the plain TCP transfer, or fail
loss_tcp() {
	local port t0 sp rc
	port=$((30000 + ($$ + $2) % 20000))
	: >"$hdir/echo.s"
	"$hosts_srcdir/agent.sh" h2 exec "$hdir/tcp_echo" -s "$(host_addr h2)" \
		"$port" 65535 "$1" >"$hdir/echo.s" 2>&1 &
	sp=$!
	hosts_bg="$hosts_bg $sp"
	i=0
	while ! grep -q listening "$hdir/echo.s"; do
		i=$((i + 1))
		[ $i -gt 500 ] && { echo "tcp_echo did not listen"; return 1; }
		sleep 0.02
	done
	t0=$(ms)
	"$hosts_srcdir/agent.sh" h1 exec "$hdir/tcp_echo" -c "$(host_addr h2)" \
		"$port" 65535 "$1" >"$hdir/echo.c" 2>&1
	rc=$?
	t=$(($(ms) - t0))
	wait_for $sp 10 || rc=1
	[ $rc -eq 0 ] || { echo "tcp_echo: $(cat "$hdir/echo.c" "$hdir/echo.s")"; return 1; }
	echo $t
}

# mbs MS COUNT: MB/s of COUNT pings of 65535 octets each way
mbs() {
	awk -v ms="$1" -v n="$2" 'BEGIN { printf "%.1f", 2 * n * 65535 / (ms / 1000) / 1e6 }'
}

case_loss() {
	local n=${HOSTS_LOSS_PINGS:-128} p tt ti ts dt di ds bad=0 line
	command -v nft >/dev/null 2>&1 || {
		fail "nft not found (Debian package nftables)"
		return
	}
	for p in 0 1 5; do
		host_loss h2 "$p" || { fail "nft: cannot add the loss rule"; return; }
		tt=$(loss_tcp "$n" "$p") || { fail "$p %: plain TCP: $tt"; bad=1; }
		dt=$(host_loss_count h2)
		ti=$(loss_rping tcp "$n") || { fail "$p %: iwcm over TCP: $ti"; bad=1; }
		di=$(($(host_loss_count h2) - dt))
		ts=$(loss_rping sctp "$n") || { fail "$p %: iwcm over SCTP: $ts"; bad=1; }
		ds=$(($(host_loss_count h2) - dt - di))
		host_loss h2 0
		[ $bad -eq 0 ] || return
		if [ "$p" -ne 0 ] && { [ "$di" -eq 0 ] || [ "$ds" -eq 0 ]; }; then
			fail "$p %: nothing was dropped (TCP $di, SCTP $ds packets)"
			return
		fi
		line="$p % loss on h2's link, $n x 64 KiB verified each way:"
		line="$line plain TCP $(mbs "$tt" "$n") MB/s ($dt dropped),"
		line="$line iwcm/TCP $(mbs "$ti" "$n") MB/s ($di dropped),"
		line="$line iwcm/SCTP $(mbs "$ts" "$n") MB/s ($ds dropped)"
		figure "$line"
	done
	pass
}
