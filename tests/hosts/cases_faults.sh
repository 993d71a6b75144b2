# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Faults (sourced by run.sh): a link down for 2 s and for longer than
# the TCP user timeout, one host's iwcmd killed in a job, and restarted
# while its peers connect.

rping="$top_builddir/examples/iwcm-rping"

# lines FILE RE: matching lines of FILE (0 before it exists)
lines() {
	n=$(grep -c -- "$2" "$1" 2>/dev/null)
	echo "${n:-0}"
}

# rping_pair NAME SERVERHOST CLIENTHOST COUNT [OPTIONS]: a verified
# iwcm-rping server and client in the background, $spid and $cpid; 1
# when the server does not listen
rping_pair() {
	local name=$1 sh=$2 ch=$3 count=$4 port i
	shift 4
	: >"$hdir/$name.s"
	"$hosts_srcdir/agent.sh" "$sh" exec stdbuf -oL "$rping" -s -a "$(host_addr "$sh")" \
		-p 0 -C "$count" -V "$@" >"$hdir/$name.s" 2>"$hdir/$name.s.err" &
	spid=$!
	hosts_bg="$hosts_bg $spid"
	port=
	i=0
	while [ -z "$port" ]; do
		port=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			"$hdir/$name.s")
		i=$((i + 1))
		[ $i -gt 1000 ] && return 1
		[ -n "$port" ] || sleep 0.02
	done
	"$hosts_srcdir/agent.sh" "$ch" exec stdbuf -oL "$rping" -c -a "$(host_addr "$sh")" \
		-p "$port" -C "$count" -V "$@" >"$hdir/$name.c" \
		2>"$hdir/$name.c.err" &
	cpid=$!
	hosts_bg="$hosts_bg $cpid"
}

# wait_for PID SECONDS: its exit status, 124 after SECONDS (then killed)
wait_for() {
	local i=0
	while kill -0 "$1" 2>/dev/null; do
		i=$((i + 1))
		if [ $i -gt $(($2 * 50)) ]; then
			kill -9 "$1" 2>/dev/null
			wait "$1" 2>/dev/null
			return 124
		fi
		sleep 0.02
	done
	wait "$1"
}

# reap H...: every process left in H's namespace but its iwcmd
reap() {
	local h d
	for h in "$@"; do
		d=$(cat "$hdir/$h.pid" 2>/dev/null)
		ip netns pids "$(host_ns "$h")" 2>/dev/null | while read -r p; do
			[ "$p" = "$d" ] || kill -9 "$p" 2>/dev/null
		done
	done
}

# the pings the client saw so far
pings() { lines "$hdir/$1.c" '^ping data: '; }

# h2's cable out for 2 s in the middle of a verified transfer: TCP
# retransmits, the transfer resumes, every ping arrives once (the
# server checks each ping's number and data, the client each echo)
case_flap() {
	local n=${HOSTS_FLAP_PINGS:-3000} at up t_up t_res i rc_s rc_c
	rping_pair flap h2 h1 "$n" -S 1024 -v || {
		fail "no server: $(cat "$hdir/flap.s.err")"
		return
	}
	i=0
	while [ "$(pings flap)" -lt 200 ]; do
		i=$((i + 1))
		if [ $i -gt 1500 ] || ! kill -0 "$cpid" 2>/dev/null; then
			fail "no pings: $(cat "$hdir/flap.c.err")"
			return
		fi
		sleep 0.02
	done
	at=$(pings flap)
	host_link h2 down
	sleep 2
	during=$(($(pings flap) - at))
	host_link h2 up
	t_up=$(ms)
	up=$(pings flap)
	i=0
	while [ "$(pings flap)" -le "$up" ] && kill -0 "$cpid" 2>/dev/null &&
		[ $i -lt 3000 ]; do
		i=$((i + 1))
		sleep 0.01
	done
	t_res=$(($(ms) - t_up))
	wait_for "$cpid" 120
	rc_c=$?
	wait_for "$spid" 30
	rc_s=$?
	got=$(pings flap)
	sgot=$(lines "$hdir/flap.s" '^server ping data: ')
	if [ $rc_c -ne 0 ] || [ $rc_s -ne 0 ] || [ "$got" -ne "$n" ] ||
		[ "$sgot" -ne "$n" ]; then
		fail "client exit $rc_c ($got pings), server exit $rc_s ($sgot): $(cat "$hdir/flap.c.err" "$hdir/flap.s.err")"
		return
	fi
	figure "h2's link down 2 s at ping $at of $n (1 KiB, verified): $during pings completed between its down and up commands, resumed $t_res ms after the link came back, $n of $n pings verified once at each end, both QPs up to the end"
	pass
}

# The handed-over sockets of h1 and h2 end after tcp_user_timeout_ms
# (iwcmd.conf(5)) without an answer: a verified transfer whose link
# stays down ends at both ends with an error within the limit, and an
# MPI job ends, naming the host it lost
case_linkdown() {
	local lim=${HOSTS_UTO_MS:-3000} t0 tc ts rc_c rc_s h bad=0 rc t lost data nerr msg
	for h in h1 h2; do
		host_conf "$h" "tcp_user_timeout_ms = $lim"
		host_daemon_stop "$h"
		host_daemon_start "$h"
	done
	rping_pair down h2 h1 1000000 -S 1024 -v || {
		fail "no server: $(cat "$hdir/down.s.err")"
		bad=1
	}
	i=0
	while [ $bad -eq 0 ] && [ "$(pings down)" -lt 200 ]; do
		i=$((i + 1))
		if [ $i -gt 1500 ] || ! kill -0 "$cpid" 2>/dev/null; then
			fail "no pings: $(cat "$hdir/down.c.err")"
			bad=1
		fi
		sleep 0.02
	done
	if [ $bad -eq 0 ]; then
		t0=$(ms)
		host_link h2 down
		tc=
		ts=
		while [ $(($(ms) - t0)) -lt $((lim * 4 + 5000)) ]; do
			[ -z "$tc" ] && ! kill -0 "$cpid" 2>/dev/null && tc=$(($(ms) - t0))
			[ -z "$ts" ] && ! kill -0 "$spid" 2>/dev/null && ts=$(($(ms) - t0))
			[ -n "$tc" ] && [ -n "$ts" ] && break
			sleep 0.05
		done
		wait_for "$cpid" 1
		rc_c=$?
		wait_for "$spid" 1
		rc_s=$?
		host_link h2 up
		cerr=$(grep -v '^$' "$hdir/down.c.err" | tail -1)
		serr=$(grep -v '^$' "$hdir/down.s.err" | tail -1)
		if [ -z "$tc" ] || [ -z "$ts" ] || [ $rc_c -eq 0 ] ||
			[ $rc_s -eq 0 ] || [ "$tc" -gt $((lim + 2500)) ] ||
			[ "$ts" -gt $((lim + 2500)) ] || [ -z "$cerr" ] ||
			[ -z "$serr" ]; then
			fail "limit $lim ms: client ended after ${tc:-never} ms (exit $rc_c: $cerr), server after ${ts:-never} ms (exit $rc_s: $serr)"
			bad=1
		else
			figure "tcp_user_timeout_ms $lim, h2's link down for good: client (h1) ended after $tc ms: '$cerr'; server (h2) after $ts ms: '$serr'"
		fi
	fi
	# an MPI job: 4 ranks on h1 and h2, h2's link out once they all
	# talk.  The job must end, and say which host it lost: h1's ranks
	# (FI_LOG_LEVEL=warn) name h2's address when their connections
	# with it end, and an operation that was in flight on one fails
	# (FI_ECONNRESET: MPI_ERR_INTERN), never completes as cancelled
	# with no data.  What ofi_rxm keeps to itself (a receive not yet
	# matched, a rendezvous send waiting for the peer's done) never
	# fails; the launcher then ends the job when its own TCP gives up
	# on h2's orted: tcp_retries2 = 3 in its namespace for data in
	# flight, ORTE's keepalive after lim + 2 s for an idle connection.
	if [ $bad -eq 0 ]; then
		for h in h1 h2; do
			host_env "$h" FI_LOG_LEVEL=warn
		done
		ip netns exec "$hosts_ns0" sysctl -q -w net.ipv4.tcp_retries2=3
		before=$(host_stat h2 established)
		hosts_mpirun 120 4 h1:2,h2:2 $mca_iwcm \
			--mca oob_tcp_keepalive_time $((lim / 1000 + 2)) \
			--mca oob_tcp_keepalive_intvl 1 \
			--mca oob_tcp_keepalive_probes 3 "$mpi_check" \
			>"$hdir/down-mpi.out" 2>&1 &
		mpid=$!
		hosts_bg="$hosts_bg $mpid"
		i=0
		while [ $(($(host_stat h2 established) - before)) -lt 6 ] &&
			kill -0 $mpid 2>/dev/null && [ $i -lt 3000 ]; do
			i=$((i + 1))
			sleep 0.02
		done
		if ! kill -0 $mpid 2>/dev/null; then
			fail "the MPI job ended before the link went down: $(tail -5 "$hdir/down-mpi.out")"
			bad=1
		else
			t0=$(ms)
			host_link h2 down
			# ended, or hung: lim + 30 s is the bound
			i=0
			while kill -0 $mpid 2>/dev/null &&
				[ $i -lt $((lim / 20 + 1500)) ]; do
				i=$((i + 1))
				sleep 0.02
			done
			t=$(($(ms) - t0))
			host_link h2 up
			if kill -0 $mpid 2>/dev/null; then
				kill -TERM $mpid 2>/dev/null
				wait_for $mpid 10
				rc=124
				reap h1 h2
			else
				wait $mpid
				rc=$?
			fi
			lost=$(grep -m1 "connection with $(host_addr h2) port" "$hdir/down-mpi.out" |
				sed 's/^libfabric:[0-9]*:[0-9]*::iwcm:[a-z_]*:[a-z_]*():[0-9]*<warn> //')
			data=$(grep -m1 'data failed' "$hdir/down-mpi.out")
			nerr=$(grep -c 'An error occurred in MPI_' "$hdir/down-mpi.out")
			msg=$(grep -v '^libfabric' "$hdir/down-mpi.out" |
				grep -i -m3 'error\|abort\|fail\|timed out\|unreach\|lost' |
				tr '\n' ' ' | cut -c1-300)
			if [ $rc -eq 124 ]; then
				fail "MPI job (4 ranks, h1+h2), h2's link down for good: still running $t ms later (killed): $msg"
				bad=1
			elif [ $rc -eq 0 ]; then
				fail "MPI job: exit 0 with h2 gone: $(tail -10 "$hdir/down-mpi.out")"
				bad=1
			elif [ -z "$lost" ]; then
				fail "MPI job: exit $rc after $t ms, h2 ($(host_addr h2)) named nowhere: $msg"
				bad=1
			elif [ -n "$data" ]; then
				fail "MPI job: a receive lost with h2 completed as if it had its data: $data"
				bad=1
			else
				figure "MPI job (4 ranks, h1+h2), h2's link down for good: mpirun exit $rc after $t ms; an h1 rank: '$lost'; $nerr rank(s) failed with an MPI error: $msg"
			fi
		fi
		for h in h1 h2; do
			sed -i '/^FI_LOG_LEVEL=/d' "$hdir/$h.env"
		done
		ip netns exec "$hosts_ns0" sysctl -q -w net.ipv4.tcp_retries2=15
	fi
	for h in h1 h2; do
		host_conf "$h" "request_timeout_ms = 5000"
		host_daemon_stop "$h"
		host_daemon_start "$h"
	done
	[ $bad -eq 0 ] && pass
}

# kill -9 of h2's iwcmd in the middle of an MPI job: the established
# connections live in the ranks, the job finishes; a new iwcmd serves
# the next job
case_kill() {
	local before i rc t0
	before=$(host_stat h2 established)
	hosts_mpirun 300 6 h1:2,h2:2,h3:2 $mca_iwcm "$mpi_check" \
		>"$hdir/kill.out" 2>&1 &
	mpid=$!
	hosts_bg="$hosts_bg $mpid"
	i=0
	while [ $(($(host_stat h2 established) - before)) -lt 10 ] &&
		kill -0 $mpid 2>/dev/null && [ $i -lt 6000 ]; do
		i=$((i + 1))
		sleep 0.02
	done
	if ! kill -0 $mpid 2>/dev/null; then
		fail "the job ended before h2's iwcmd could be killed: $(tail -5 "$hdir/kill.out")"
		return
	fi
	t0=$(ms)
	host_daemon_kill h2
	wait_for $mpid 300
	rc=$?
	n=$(oks "$hdir/kill.out")
	if [ $rc -ne 0 ] || [ "$n" -ne 6 ]; then
		fail "after kill -9 of h2's iwcmd: exit $rc, $n of 6 ok: $(tail -15 "$hdir/kill.out")"
		host_daemon_start h2
		return
	fi
	t=$(($(ms) - t0))
	host_daemon_start h2 || { fail "h2's iwcmd does not restart"; return; }
	before=$(established h1 h2 h3)
	hosts_mpirun 300 6 h1:2,h2:2,h3:2 $mca_iwcm \
		sh -c "exec $mpi_mesh \$IWCM_HOST_ADDR" >"$hdir/kill2.out" 2>&1
	rc=$?
	after=$(established h1 h2 h3)
	n=$(oks "$hdir/kill2.out")
	if [ $rc -ne 0 ] || [ "$n" -ne 6 ] ||
		! rise=$(rose_by "$before" "$after" 10); then
		fail "the next job after the restart: exit $rc, $n of 6 ok: $(tail -10 "$hdir/kill2.out")"
		return
	fi
	figure "h2's iwcmd killed (-9) with the job's connections up: mpi_check finished ok on 6 ranks $t ms later; the restarted iwcmd served the next job (mpi_mesh, ends:$rise)"
	pass
}

# h2's iwcmd under a supervisor that restarts it 100 ms after it dies,
# as iwcmd.service's Restart=on-failure with RestartSec=100ms would
# (systemd does not run units in these namespaces); iwcmd is killed 3
# times while h1 connects to a listener on h2 again and again: a failed
# connect says why, a retry succeeds
case_restart() {
	local port k=${HOSTS_RESTART_CONNECTS:-30} j tries ok=0 fails=0 maxt=0 r
	port=$((20000 + $$ % 20000))
	host_daemon_stop h2
	touch "$hdir/h2.run"
	(
		while [ -e "$hdir/h2.run" ]; do
			"$hosts_srcdir/agent.sh" h2 exec "$iwcmd" -d \
				-f "$hdir/h2.conf" -s "$hdir/h2.sock" \
				2>>"$hdir/h2.log" &
			echo $! >"$hdir/h2.pid"
			wait $!
			sleep 0.1
		done
	) 2>/dev/null &
	echo $! >"$hdir/h2.sup"
	# h2's server: listens again whenever its iwcmd went away
	(
		while [ -e "$hdir/h2.run" ]; do
			"$hosts_srcdir/agent.sh" h2 exec "$ctl" -s "$hdir/h2.sock" \
				listen "$(host_addr h2):$port" --count 100000 \
				--timeout 60000 >/dev/null 2>&1
			sleep 0.05
		done
	) &
	lsup=$!
	hosts_bg="$hosts_bg $lsup"
	sleep 1
	# the killer: three times, 1.5 s apart
	(
		for x in 1 2 3; do
			sleep 1.5
			kill -9 "$(cat "$hdir/h2.pid")" 2>/dev/null
		done
	) &
	kpid=$!
	: >"$hdir/restart.why"
	j=0
	while [ $j -lt "$k" ]; do
		j=$((j + 1))
		tries=0
		while :; do
			tries=$((tries + 1))
			if "$hosts_srcdir/agent.sh" h1 exec "$ctl" -s "$hdir/h1.sock" \
				connect "$(host_addr h2):$port" --timeout 3000 \
				>"$hdir/restart.c" 2>&1; then
				break
			fi
			fails=$((fails + 1))
			r=$(grep -v '^$' "$hdir/restart.c" | tail -1)
			echo "${r:-(no message)}" >>"$hdir/restart.why"
			[ $tries -ge 40 ] && break
			sleep 0.1
		done
		[ $tries -lt 40 ] && ok=$((ok + 1))
		[ $tries -gt $maxt ] && maxt=$tries
		sleep 0.1
	done
	wait $kpid
	rm -f "$hdir/h2.run"
	kill -9 "$(cat "$hdir/h2.pid")" 2>/dev/null
	wait "$(cat "$hdir/h2.sup")" 2>/dev/null
	rm -f "$hdir/h2.sup"
	kill $lsup 2>/dev/null
	wait $lsup 2>/dev/null
	host_daemon_start h2
	why=$(sort "$hdir/restart.why" | uniq -c | sort -rn | head -4 |
		sed 's/^ *//' | tr '\n' ';')
	if [ $ok -ne "$k" ] || [ $fails -eq 0 ] ||
		grep -q '(no message)' "$hdir/restart.why"; then
		fail "$ok of $k connects succeeded, $fails failed attempts: $why"
		return
	fi
	figure "h2's iwcmd killed 3 times under a restarting supervisor: $k of $k connects from h1 succeeded, $fails attempts failed (at most $maxt tries for one), each saying why: $why"
	pass
}
