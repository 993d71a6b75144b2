# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash disable=SC2034
# Copyright (c) 2026 The iwcm authors
#
# The SCTP cases of the interop suite (sourced by run.sh after lib.sh):
# DDP stream sessions (RFC 5043, enhanced session control of RFC 6581
# §7) between iwcmd on usrsctp here and iwcmd on the guest kernel's
# SCTP, both over UDP encapsulation (RFC 6951), in one guest boot.
#
#   here:  iwcmd, sctp_stack usrsctp, sctp_udp_port HP (a free port),
#          sctp_encap_port HU: a hostfwd rule takes 127.0.0.1:HU to the
#          guest's 10.0.2.15:9899
#   guest: the same iwcmd, iwcm-rping and iwcmctl (-a tree of this build),
#          net.sctp.udp_port 9899, sctp_stack kernel, sctp_udp_port 9899,
#          sctp_encap_port HP; the host is 10.0.2.2
#
# g2h cases: a server here first, the guest's client; h2g cases: the
# guest's server says @@READY NAME@@ on its console, the client here
# runs, then connects to the guest's done port.  Every case keeps the
# guest's capture of UDP port 9899 (NAME/case.pcap); tshark reads the
# session control messages (PPID 17) of it, and iwcmctl decode must read
# it cleanly and agree.  check_sctp_kernel runs in the guest first (case
# sctp-kernel-check).

SCTP_GUEST_UDP=9899
SCTP_CASES="sctp_kernel_check sctp_g2h sctp_g2h_plain sctp_g2h_reject
sctp_h2g sctp_h2g_plain sctp_h2g_reject sctp_abort sctp_handoff
sctp_restart sctp_bench"
# sctp_abort last: it stops iwcmd here
SCTP_H2G="sctp_h2g sctp_h2g_plain sctp_h2g_reject sctp_abort"
# the guest's own iwcm-rping pairs (sctp_handoff, sctp_restart)
SCTP_HANDOFF_N=100
SCTP_RESTART_N=600
# sctp_bench: iwcm-bench on the kernel's SCTP, the handed-over association
# against raw kernel SCTP, each test three times (short runs)
SCTP_BENCH="write_bw:--size 65536 --iters 80 --warmup 8:>=0.9
send_lat:--iters 200 --warmup 20 -e:<=1.15"

# free_udp: a UDP port nobody holds on the host.
free_udp() {
	local p n=0
	while [ $n -lt 100 ]; do
		p=$((20000 + RANDOM % 20000))
		n=$((n + 1))
		ss -Hlun "sport = :$p" 2>/dev/null | grep -q . && continue
		echo "$p"
		return 0
	done
	echo 29899
}

# sctp_tree DIR: this build's iwcmd, iwcm-rping, iwcmctl, iwcm-bench and
# check_sctp_kernel under DIR/usr/bin, every shared object they load
# (libtool's in-tree ones included) under DIR/usr/lib/iwcm.
sctp_tree() {
	local t=$1 f real lp lib
	rm -rf "$t"
	mkdir -p "$t/usr/bin" "$t/usr/lib/iwcm"
	lp=$(find "$BUILD" -path '*/.libs/*.so*' -printf '%h\n' | sort -u |
		tr '\n' ':')
	for f in daemon/iwcmd examples/iwcm-rping cli/iwcmctl \
		tests/check_sctp_kernel bench/iwcm-bench; do
		real=$BUILD/$f
		[ -f "$real" ] || return 1
		# a libtool wrapper script: the program is in .libs
		head -c 4 "$real" | grep -q ELF ||
			real=$(dirname "$real")/.libs/$(basename "$real")
		cp -L "$real" "$t/usr/bin/" || return 1
		for lib in $(LD_LIBRARY_PATH=$lp ldd "$real" |
			sed -n 's/.*=> \(\/[^ ]*\).*/\1/p'); do
			[ -e "$t/usr/lib/iwcm/$(basename "$lib")" ] ||
				cp -L "$lib" "$t/usr/lib/iwcm/" || return 1
		done
	done
}

# sctp_host_server NAME CMD: CMD (a server here printing its port) in
# the background for case NAME; its port in SPORT[NAME].
declare -A SPORT=() SPID=()
sctp_host_server() {
	local name=$1 cmd=$2 d=$R/${1//_/-} i=0 port=
	mkdir -p "$d"
	: >"$d/host.out" # before the server's shell opens it
	# shellcheck disable=SC2086
	timeout 600 $cmd >"$d/host.out" 2>"$d/host.err" &
	SPID[$name]=$!
	while [ -z "$port" ] && [ $i -lt 500 ]; do
		port=$(sed -n -e 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			-e 's/.*"event":"LISTENING".*"port":\([0-9]*\).*/\1/p' \
			"$d/host.out")
		kill -0 "${SPID[$name]}" 2>/dev/null || break
		i=$((i + 1))
		[ -n "$port" ] || sleep 0.01
	done
	SPORT[$name]=${port:-0}
}

# The guest script: check_sctp_kernel, iwcmd on the kernel's SCTP, the
# g2h clients, then the h2g servers, each case with its own capture.
sctp_guest_script() {
	local c
	cat <<EOF
export LD_LIBRARY_PATH=/usr/lib/iwcm
sysctl -w net.sctp.udp_port=$SCTP_GUEST_UDP >/dev/null
cap_start() {
	mkdir -p /out/\$1
	tcpdump -i eth0 -n -s 0 -B 4096 -U --immediate-mode \\
		-w /out/\$1/case.pcap 'udp port $SCTP_GUEST_UDP' \\
		2>/tmp/tcpdump.err & TD=\$!
	for i in \$(seq 100); do
		grep -q 'listening on' /tmp/tcpdump.err && break
		sleep 0.05
	done
}
cap_stop() {
	sleep 0.5
	kill -INT \$TD
	wait \$TD
	cp /tmp/tcpdump.err /out/\$1/tcpdump.txt
}
mkdir -p /out/sctp-kernel-check
timeout 120 check_sctp_kernel >/out/sctp-kernel-check/guest.out 2>&1
echo \$? >/out/sctp-kernel-check/guest.rc

printf 'sctp_stack = kernel\\nsctp_udp_port = $SCTP_GUEST_UDP\\n' >/tmp/iwcmd.conf
printf 'sctp_encap_port = $SCTP_HP\\nlog_level = debug\\n' >>/tmp/iwcmd.conf
export IWCM_SOCKET=/tmp/iwcmd.sock
iwcmd -d -f /tmp/iwcmd.conf -s \$IWCM_SOCKET 2>/out/iwcmd-guest.log & D=\$!
for i in \$(seq 500); do
	iwcmctl -s \$IWCM_SOCKET status >/dev/null 2>&1 && break
	sleep 0.02
done

# g2h NAME CMD: a client against a server on the host
g2h() {
	cap_start \$1
	timeout 60 \$2 >/out/\$1/guest.out 2>&1
	echo \$? >/out/\$1/guest.rc
	cap_stop \$1
}
g2h sctp-g2h "iwcm-rping -c --transport sctp -a 10.0.2.2 \\
-p ${SPORT[sctp_g2h]} -C $N -v -V -d"
g2h sctp-g2h-plain "iwcm-rping -c --transport sctp --mpa-rev 1 \\
-a 10.0.2.2 -p ${SPORT[sctp_g2h_plain]} -C $N -v -V -d"
g2h sctp-g2h-reject "iwcmctl -j connect 10.0.2.2:${SPORT[sctp_g2h_reject]} \\
--transport sctp"

# h2g NAME DONEPORT CMD: a server the host's client connects to
h2g() {
	cap_start \$1
	timeout 90 \$3 >/out/\$1/guest.out 2>&1 & S=\$!
	for i in \$(seq 200); do
		grep -q 'listening on\\|"LISTENING"' /out/\$1/guest.out && break
		kill -0 \$S 2>/dev/null || break
		sleep 0.05
	done
	nc -l -p \$2 >/dev/null 2>&1 & NC=\$!
	echo "@@READY \$1@@"
	while kill -0 \$S 2>/dev/null && kill -0 \$NC 2>/dev/null; do
		sleep 0.2
	done
	for i in \$(seq 25); do
		kill -0 \$S 2>/dev/null || break
		sleep 0.2
	done
	if kill -0 \$S 2>/dev/null; then
		echo "(the server was still running: stopped)" >>/out/\$1/guest.out
		kill \$S
	fi
	wait \$S
	echo \$? >/out/\$1/guest.rc
	kill \$NC 2>/dev/null
	cap_stop \$1
}
h2g sctp-h2g $((GUEST_DONE_PORT)) "iwcm-rping -s --transport sctp \\
-a 10.0.2.15 -p $GUEST_PORT -C $N -v -V -d"
h2g sctp-h2g-plain $((GUEST_DONE_PORT + 1)) "iwcm-rping -s --transport sctp \\
-a 10.0.2.15 -p $GUEST_PORT -C $N -v -V -d"
h2g sctp-h2g-reject $((GUEST_DONE_PORT + 2)) "iwcmctl -j listen \\
10.0.2.15:$GUEST_PORT --transport sctp --reject --count 1"
h2g sctp-abort $((GUEST_DONE_PORT + 3)) "iwcm-rping -s --transport sctp \\
-a 10.0.2.15 -p $GUEST_PORT -C 1000000 -v -V -d"
kill -TERM \$D
wait \$D
HN=$SCTP_HANDOFF_N
RN=$SCTP_RESTART_N
EOF
	sctp_guest_local
}

# The guest's own cases, on a second iwcmd of the kernel's SCTP over UDP
# 9899 to itself: two iwcm-rping of that iwcmd, each session's
# association handed to its owner (no relay), then the same with iwcmd
# killed (SIGKILL) in the middle.
sctp_guest_local() {
	cat <<'EOF'
LS=/tmp/iwcmd-local.sock
printf 'sctp_stack = kernel\nsctp_udp_port = 9899\nlog_level = debug\n' \
	>/tmp/iwcmd-local.conf
mkdir -p /out/sctp-handoff /out/sctp-restart
iwcmd -d -f /tmp/iwcmd-local.conf -s $LS 2>/tmp/iwcmd-local.log & L=$!
for i in $(seq 500); do
	iwcmctl -s $LS status >/dev/null 2>&1 && break
	sleep 0.02
done
# cpu PID: its user + system clock ticks
cpu() { awk '{ print $14 + $15 }' /proc/$1/stat; }
# pings FILE: the pings it printed
pings() {
	n=$(grep -c '^\(server \)\{0,1\}ping data: rdma-ping-' $1 2>/dev/null)
	echo ${n:-0}
}
# pair DIR COUNT: a verified server and client of iwcmd L
pair() {
	: >$1/s.out
	IWCM_SOCKET=$LS iwcm-rping -s --transport sctp -a 127.0.0.1 -p 0 \
		-C $2 -v -V -d >$1/s.out 2>$1/s.err & S=$!
	port=
	for i in $(seq 500); do
		port=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			$1/s.out)
		[ -n "$port" ] && break
		sleep 0.02
	done
	IWCM_SOCKET=$LS iwcm-rping -c --transport sctp -a 127.0.0.1 \
		-p $port -C $2 -v -V -d >$1/c.out 2>$1/c.err & C=$!
}
# finish DIR: the pair's exit statuses, stopped after 60 s
finish() {
	for i in $(seq 600); do
		kill -0 $C 2>/dev/null || kill -0 $S 2>/dev/null || break
		sleep 0.1
	done
	kill $C $S 2>/dev/null
	wait $C; echo $? >$1/c.rc
	wait $S; echo $? >$1/s.rc
}
# sctp-handoff: the data goes over the handed-off sockets
echo "@@STEP sctp-handoff $(date +%s)@@"
D1=/out/sctp-handoff
t0=$(cpu $L)
pair $D1 $HN
for i in $(seq 1500); do
	[ $(pings $D1/c.out) -ge 20 ] && break
	kill -0 $C 2>/dev/null || break
	sleep 0.02
done
# mid-transfer: iwcmd holds no SCTP session (none relayed)
pings $D1/c.out >$D1/metrics-at.txt
iwcmctl -s $LS stats -o openmetrics >$D1/metrics.txt 2>&1
finish $D1
echo $(( $(cpu $L) - t0 )) >$D1/iwcmd-ticks.txt
cp /tmp/iwcmd-local.log $D1/iwcmd.log
iwcmctl -s $LS stats -o text >$D1/stats.txt 2>&1
# sctp-restart: iwcmd killed in the middle; both ends finish
echo "@@STEP sctp-restart $(date +%s)@@"
D2=/out/sctp-restart
pair $D2 $RN
for i in $(seq 3000); do
	[ $(pings $D2/c.out) -ge 100 ] && break
	kill -0 $C 2>/dev/null || break
	sleep 0.01
done
kill -9 $L
wait $L 2>/dev/null
pings $D2/c.out >$D2/killed-at.txt
finish $D2
cp /tmp/iwcmd-local.log $D2/iwcmd.log
EOF
	# sctp-bench: iwcm-bench's kernel-SCTP rows, three runs a test
	echo "mkdir -p /out/sctp-bench"
	echo 'echo "@@STEP sctp-bench $(date +%s)@@"'
	printf '%s\n' "$SCTP_BENCH" | while IFS=: read -r t args _; do
		for r in 1 2 3; do
			echo "timeout 40 iwcm-bench $t --transport sctp" \
				"--sctp-stack kernel --iwcmd /usr/bin/iwcmd $args -j" \
				">/out/sctp-bench/$t-$r.json" \
				"2>/out/sctp-bench/$t-$r.err"
		done
	done
	echo 'echo "@@STEP end $(date +%s)@@"'
}

# sctp_bench_check: the medians of the ratios, each run's beside them,
# and iwcmd's CPU over the timed part (none: it relays nothing).
sctp_bench_check() {
	local t args target r all med cpu f
	while IFS=: read -r t args target; do
		all=
		cpu=
		for r in 1 2 3; do
			f=$C/$t-$r.json
			v=$(sed -n 's/.*"ratio":\([0-9.]*\).*/\1/p' "$f" 2>/dev/null |
				tail -n 1)
			all="$all ${v:-failed}"
			cpu="$cpu $(sed -n 's/.*"iwcmd":{"percent":\([0-9.]*\).*/\1/p' \
				"$f" 2>/dev/null | tail -n 1)"
		done
		case $all in
		*failed*)
			fail "$t: a run failed:$all ($(head -c 200 \
				"$C/$t-1.err" 2>/dev/null | tr '\n' ' '))"
			continue
			;;
		esac
		# shellcheck disable=SC2086 # one ratio a line
		med=$(printf '%s\n' $all | sort -n | sed -n 2p)
		ok "$t ratios$all"
		# a shared machine's noise: the target is told, not enforced
		if awk -v m="$med" -v t="$target" 'BEGIN {
			v = substr(t, 3) + 0
			exit !(substr(t, 1, 2) == ">=" ? m >= v : m <= v) }'; then
			target="$target, met"
		else
			target="$target, NOT met"
		fi
		note "$t x$med of raw kernel SCTP (target $target; runs$all;" \
			"iwcmd CPU%${cpu})"
		echo "$t $med $target$all iwcmd_cpu_percent$cpu" >>"$C/ratios.txt"
	done <<EOF
$SCTP_BENCH
EOF
}

# The client here of each h2g case (the guest's port directly: the
# association goes to UDP 127.0.0.1:HU, forwarded to the guest's 9899).
sctp_h2g_cmd() {
	case $1 in
	sctp_h2g)
		echo "$RPING -c --transport sctp -a 127.0.0.1 -p $GUEST_PORT \
-C $N -v -V -d" ;;
	sctp_h2g_plain)
		echo "$RPING -c --transport sctp --mpa-rev 1 -a 127.0.0.1 \
-p $GUEST_PORT -C $N -v -V -d" ;;
	sctp_h2g_reject)
		echo "$CTL -j connect 127.0.0.1:$GUEST_PORT --transport sctp" ;;
	sctp_abort)
		echo "$RPING -c --transport sctp -a 127.0.0.1 -p $GUEST_PORT \
-C 1000000 -v -V -d" ;;
	esac
}

# sctp_abort_run DIR CMD: CMD (a client here through iwcmd here) until
# 50 pings, then iwcmd here stops: usrsctp ABORTs its associations
# (RFC 4960 §9.1), among them the session's, whose guest end the
# guest's iwcm-rping owns.
sctp_abort_run() {
	local d=$1 cmd=$2 cpid i=0
	# shellcheck disable=SC2086
	timeout 60 $cmd >"$d/host.out" 2>"$d/host.err" &
	cpid=$!
	while [ "$(grep -c '^ping data: ' "$d/host.out" 2>/dev/null)" -lt 50 ] &&
		[ $i -lt 1500 ] && kill -0 $cpid 2>/dev/null; do
		i=$((i + 1))
		sleep 0.02
	done
	grep -c '^ping data: ' "$d/host.out" >"$d/host-pings.txt"
	DPID=$SCTP_DPID
	daemon_stop
	SCTP_DPID=
	wait $cpid
	echo $? >"$d/host.rc"
}

# sctp_fcs: the session control messages of the capture, "DIR FC" per
# message (DIR i2r or r2i by the SCTP port of the responder, RESP).
sctp_fcs() {
	[ -n "$TSHARK" ] || return 0
	WIRESHARK_CONFIG_DIR=$R/.wireshark "$TSHARK" -n -r "$C/case.pcap" \
		-d "udp.port==$SCTP_GUEST_UDP,sctp" \
		-Y 'sctp.data_payload_proto_id == 17' -T fields \
		-e sctp.dstport -e sctp.data_payload_proto_id -e data.data \
		2>"$C/tshark.err" | awk -v resp="$1" '{
		n = split($2, p, ","); split($3, d, ",")
		for (i = 1; i <= n; i++) {
			if (p[i] != 17)
				continue
			print ($1 == resp ? "i2r" : "r2i"), substr(d[i], 5, 4)
		}
	}' >"$C/session-control.txt"
}

# expect_fcs RESP PATTERN: the session control sequence in the capture,
# "DIR FC" per message (function codes in hex: 0005 Enhanced Initiate,
# RFC 6581 §7), matches the extended regular expression PATTERN.
expect_fcs() {
	local got
	if [ -z "$TSHARK" ]; then
		note "no tshark 4.0: session control not read from the capture"
		return 0
	fi
	sctp_fcs "$1"
	got=$(tr '\n' ' ' <"$C/session-control.txt")
	got=${got% }
	if printf '%s\n' "$got" | grep -q -E "^$2\$"; then
		ok "session control: $got"
	else
		fail "session control '$got', expected /$2/"
	fi
}

# sctp_capture_ok: the capture holds SCTP in UDP both ways.
sctp_capture_ok() {
	local n
	if [ ! -s "$C/case.pcap" ]; then
		fail "no capture"
		return 0
	fi
	n=$(tcpdump -n -r "$C/case.pcap" 2>/dev/null | wc -l)
	if [ "$n" -gt 0 ]; then
		ok "capture: $n packets"
	else
		fail "capture: no packet"
	fi
	CAP_NOTE="$n packets"
}

# sctp_decode MIN_SEGMENTS: iwcmctl decode reads the capture as one
# association over UDP encapsulation, every CRC32c good, nothing
# malformed, at least MIN_SEGMENTS DDP Segments, and the same session
# control sequence as tshark (decode.json, decode.fcs).
sctp_decode() {
	local sum
	"$CTL" decode -j "$C/case.pcap" >"$C/decode.json" 2>"$C/decode.err"
	DEC_RC=$?
	"$CTL" decode "$C/case.pcap" >"$C/decode.txt" 2>&1
	sum=$(grep '"type":"summary"' "$C/decode.json")
	if [ "$DEC_RC" = 0 ] && [ "$(jfield "$sum" associations)" = 1 ] &&
		[ "$(jfield "$sum" sctp_crc_bad)" = 0 ] &&
		[ "$(jfield "$sum" malformed)" = 0 ] &&
		[ "$(jfield "$sum" errors)" = 0 ] &&
		[ "$(jfield "$sum" ddp_segments)" -ge "$1" ] 2>/dev/null; then
		ok "decode: $sum"
	else
		fail "iwcmctl decode exit $DEC_RC: ${sum:-no summary}" \
			"$(head -c 300 "$C/decode.err")"
	fi
	grep '"type":"sctp_message"' "$C/decode.json" |
		grep '"session_control"' | while IFS= read -r l; do
		printf '%s %04x\n' "$(jfield "$l" dir)" \
			"$(jfield "${l#*\"session_control\":}" function_code)"
	done >"$C/decode.fcs"
	if [ -n "$TSHARK" ]; then
		if cmp -s "$C/decode.fcs" "$C/session-control.txt"; then
			ok "decode: the session control tshark reads"
		else
			fail "iwcmctl decode and tshark disagree on session" \
				"control (decode.fcs, session-control.txt)"
		fi
	fi
	CAP_NOTE="$CAP_NOTE, $(jfield "$sum" ddp_segments) DDP segments"
}

# sctp_pings GUEST_FILE HOST_FILE: both ran N verified pings.
sctp_pings() {
	expect_rc "guest" "$GUEST_RC" 0 guest.out
	expect_rc "host" "$HOST_RC" 0 host.err
	expect_lines "$C/guest.out" '^\(server \)\{0,1\}ping data: rdma-ping-' \
		"$N" "guest pings"
	expect_lines "$C/host.out" '^\(server \)\{0,1\}ping data: rdma-ping-' \
		"$N" "host pings"
	if grep -q 'data mismatch' "$C/guest.out" "$C/host.out" \
		"$C/host.err" 2>/dev/null; then
		fail "data mismatch"
	fi
}

# sctp_state FILE TEXT WHO: iwcm-rping's negotiated line holds TEXT.
sctp_state() {
	local s
	s=$(grep -m 1 ': MPA rev ' "$C/$1" | sed 's/^.*conn [0-9]*: //')
	case $s in
	*"$2"*) ok "$3 state: $s" ;;
	*) fail "$3 state '$s', expected '$2'" ;;
	esac
}

# sctp_json FILE KEY VALUE: a field of iwcmctl -j's event line.
sctp_json() {
	expect_eq "$1: $2=" \
		"$(jfield "$(grep -m 1 '^{"event":"\(ESTABLISHED\|REJECTED\|CONNECT_ERROR\)' \
			"$C/$1")" "$2")" "$3"
}

# Over SCTP there is no MPA: iwcm-rping says rev 0 for both the
# enhanced and the plain session; the capture tells them apart.
SCTP_STATE="MPA rev 0, client-server, CRC off, markers tx off rx off, \
IRD 1 ORD 1, RDMAP version 1, over SCTP"
# What the guest's iwcm-rping server says when the peer ABORTs the
# association under its session (docs/sctp.md): its QP went to ERROR,
# IWCM_EVENT_QP_PEER_CLOSED (3), and a request it had outstanding
# completed flushed; or, when the connection's DISCONNECTED event
# reaches it first (the CM reports a reset as it does an orderly end,
# as librdmacm does), that.  The capture says it was an ABORT.
SCTP_ABORT_ERR='connection closed \(flushed\)|async event 3 \(peer closed\)|server DISCONNECT EVENT'
# Each owner's close sends its Terminate (RFC 5043 §6.1), the
# initiator's first, as it ends after its last ping.
SCTP_TERMS="( (i2r|r2i) 0004)*"

# The case checks, in the case's directory $C ($2: the responder's
# SCTP port).
sctp_check() {
	local name=$1 resp=$2 cli=host.out srv=guest.out
	GUEST_RC=$(cat "$C/guest.rc" 2>/dev/null || echo none)
	expect_text "$R/sctp-boot/out/iwcmd-guest.log" \
		"sctp: kernel SCTP over UDP port $SCTP_GUEST_UDP" "the guest's iwcmd"
	sctp_capture_ok
	case $name in
	sctp_g2h | sctp_h2g)
		sctp_pings
		sctp_state guest.out "$SCTP_STATE" guest
		sctp_state host.out "$SCTP_STATE" host
		# RFC 6581 §7: Enhanced Initiate, Enhanced Accept
		expect_fcs "$resp" "i2r 0005 r2i 0006 i2r 0004$SCTP_TERMS"
		sctp_decode 1
		;;
	sctp_g2h_plain | sctp_h2g_plain)
		sctp_pings
		sctp_state guest.out "$SCTP_STATE" guest
		sctp_state host.out "$SCTP_STATE" host
		# RFC 5043 §5.2.3: Initiate, Accept
		expect_fcs "$resp" "i2r 0001 r2i 0002 i2r 0004$SCTP_TERMS"
		sctp_decode 1
		;;
	sctp_g2h_reject | sctp_h2g_reject)
		[ "$name" = sctp_g2h_reject ] && { cli=guest.out; srv=host.out; }
		expect_rc "client" "$([ "$cli" = host.out ] && echo "$HOST_RC" ||
			echo "$GUEST_RC")" 1 "$cli"
		expect_rc "server" "$([ "$srv" = host.out ] && echo "$HOST_RC" ||
			echo "$GUEST_RC")" 0 "$srv"
		sctp_json "$cli" event REJECTED
		sctp_json "$cli" reason EREJECTED
		expect_text "$C/$srv" '"peer_enhanced":true' "the server's request"
		expect_text "$C/$srv" '{"event":"REJECTED"' "the server's reject"
		# RFC 6581 §7: Enhanced Initiate, Enhanced Reject, no more
		expect_fcs "$resp" "i2r 0005 r2i 0007"
		sctp_decode 0
		;;
	esac
	note "${CAP_NOTE:-no capture}, session control:" \
		"$(tr '\n' ' ' <"$C/session-control.txt" 2>/dev/null |
			sed 's/ $//')"
}

# sctp_local_check NAME: the guest's own pair (sctp_handoff, sctp_restart)
# in $C: verified pings both ways, and for sctp_handoff no session in
# iwcmd mid-transfer, both associations handed to their owners; for
# sctp_restart iwcmd killed in the middle and both ends finished.
sctp_local_check() {
	local n=$SCTP_HANDOFF_N bad
	[ "$1" = sctp_restart ] && n=$SCTP_RESTART_N
	expect_rc "client" "$(cat "$C/c.rc" 2>/dev/null)" 0 c.err
	expect_rc "server" "$(cat "$C/s.rc" 2>/dev/null)" 0 s.err
	expect_lines "$C/c.out" '^ping data: rdma-ping-' "$n" "client pings"
	expect_lines "$C/s.out" '^server ping data: rdma-ping-' "$n" \
		"server pings"
	if grep -q 'data mismatch' "$C/c.out" "$C/s.out" "$C/c.err" \
		"$C/s.err" 2>/dev/null; then
		fail "data mismatch"
	fi
	if [ "$1" = sctp_restart ]; then
		local at
		at=$(cat "$C/killed-at.txt" 2>/dev/null || echo none)
		if [ "$at" -lt "$n" ] 2>/dev/null; then
			ok "iwcmd killed (SIGKILL) after $at of $n pings"
		else
			fail "iwcmd killed after $at of $n pings"
		fi
		note "iwcmd killed after $at of $n pings; both ends finished"
		return 0
	fi
	# RFC 5043 sessions of one client each: both associations go
	expect_lines "$C/iwcmd.log" 'handed to its owner with its session' 2 \
		"associations handed over"
	expect_text "$C/stats.txt" "sctp_established" "iwcmd's stats"
	# mid-transfer iwcmd holds no SCTP session: nothing relayed
	if ! grep -q '^iwcm_connections{transport="sctp"' "$C/metrics.txt"; then
		fail "no SCTP gauges in iwcmctl stats: $(head -c 300 \
			"$C/metrics.txt")"
	else
		bad=$(awk '$1 ~ /^iwcm_connections\{transport="sctp",/ &&
			$2 != 0' "$C/metrics.txt")
		if [ -z "$bad" ]; then
			ok "after $(cat "$C/metrics-at.txt") pings iwcmd holds" \
				"no SCTP session"
		else
			fail "iwcmd holds SCTP sessions mid-transfer: $bad"
		fi
	fi
	note "iwcmd's CPU over the transfer: $(cat "$C/iwcmd-ticks.txt")" \
		"clock ticks, setup included"
}

# sctp_chunks TYPE: the packets of the case's capture with an SCTP chunk
# of TYPE.
sctp_chunks() {
	WIRESHARK_CONFIG_DIR=$R/.wireshark "$TSHARK" -n -r "$C/case.pcap" \
		-d "udp.port==$SCTP_GUEST_UDP,sctp" -Y "sctp.chunk_type == $1" \
		2>/dev/null | wc -l
}

# sctp_abort_check: iwcmd here stopped (usrsctp ABORTs the association)
# in the middle; the guest's iwcm-rping, owning its end of the handed-off
# association, sees the association lost and its QP flushed.
sctp_abort_check() {
	local hp
	GUEST_RC=$(cat "$C/guest.rc" 2>/dev/null || echo none)
	hp=$(cat "$C/host-pings.txt" 2>/dev/null || echo 0)
	if [ "$hp" -ge 50 ] 2>/dev/null; then
		ok "$hp pings before iwcmd here stopped"
	else
		fail "$hp pings before iwcmd here stopped, expected 50"
	fi
	expect_rc "guest server" "$GUEST_RC" 1 guest.out
	# the association ended in an ABORT (RFC 4960 §9.1, chunk type 6),
	# not a SHUTDOWN (7)
	if [ -n "$TSHARK" ]; then
		local ab sd
		ab=$(sctp_chunks 6)
		sd=$(sctp_chunks 7)
		if [ "$ab" -ge 1 ] && [ "$sd" -eq 0 ]; then
			ok "the capture: $ab ABORT, no SHUTDOWN"
		else
			fail "the capture: $ab ABORT, $sd SHUTDOWN; wanted an ABORT only"
		fi
	fi
	if grep -q -E "$SCTP_ABORT_ERR" "$C/guest.out" 2>/dev/null; then
		ok "the guest's error: $(grep -m 1 -E "$SCTP_ABORT_ERR" \
			"$C/guest.out")"
	else
		fail "the guest's error: /$SCTP_ABORT_ERR/ not in guest.out:" \
			"$(tail -n 4 "$C/guest.out" 2>/dev/null | tr '\n' '|')"
	fi
	# every session of the guest's iwcmd: g2h, g2h-plain, h2g,
	# h2g-plain and this one, initiator's or responder's
	expect_lines "$R/sctp-boot/out/iwcmd-guest.log" \
		'handed to its owner with its session' 5 \
		"associations the guest's iwcmd handed over"
	note "guest: $(grep -m 1 -E "$SCTP_ABORT_ERR" "$C/guest.out")"
}

# sctp_cases: every selected SCTP case in one guest boot.
sctp_cases() {
	local c any=0 hu hd bd t0 cmd d CASE_LIMIT=${IWCM_INTEROP_SCTP_LIMIT:-600}
	for c in $SCTP_CASES; do
		selected "$c" && any=1
	done
	[ $any = 1 ] || return 0
	t0=$(date +%s)
	bd=$R/sctp-boot
	rm -rf "$bd"
	mkdir -p "$bd"
	for c in $SCTP_CASES; do
		rm -rf "${R:?}/${c//_/-}"
	done
	if ! sctp_tree "$bd/tree"; then
		echo "FAIL sctp: cannot gather the guest's programs" \
			"(check_sctp_kernel is built by make check)" |
			tee -a "$R/summary.txt"
		N_FAIL=$((N_FAIL + 1))
		return 0
	fi
	SCTP_HP=$(free_udp)
	hu=$(free_udp)
	hd=$(free_port)
	# iwcmd here on usrsctp: its port, the guest's through hostfwd
	C=$bd
	DPID=
	daemon_start "sctp_udp_port = $SCTP_HP" "sctp_encap_port = $hu" \
		"log_level = debug" || {
		echo "FAIL sctp: iwcmd did not start" | tee -a "$R/summary.txt"
		N_FAIL=$((N_FAIL + 1))
		return 0
	}
	SCTP_DPID=$DPID
	sctp_host_server sctp_g2h "$RPING -s --transport sctp -a 127.0.0.1 \
-p 0 -C $N -v -V -d"
	sctp_host_server sctp_g2h_plain "$RPING -s --transport sctp \
-a 127.0.0.1 -p 0 -C $N -v -V -d"
	sctp_host_server sctp_g2h_reject "$CTL -j listen 127.0.0.1:0 \
--transport sctp --reject --count 1"
	sctp_guest_script >"$bd/guest.sh"
	C=$bd
	CASE=sctp-boot
	boot "$bd/guest.sh" -a "$bd/tree" \
		-f "udp:127.0.0.1:$hu-10.0.2.15:$SCTP_GUEST_UDP" \
		-f "tcp:127.0.0.1:$hd-10.0.2.15:$GUEST_DONE_PORT" \
		-f "tcp:127.0.0.1:$((hd + 1))-10.0.2.15:$((GUEST_DONE_PORT + 1))" \
		-f "tcp:127.0.0.1:$((hd + 2))-10.0.2.15:$((GUEST_DONE_PORT + 2))" \
		-f "tcp:127.0.0.1:$((hd + 3))-10.0.2.15:$((GUEST_DONE_PORT + 3))"
	# the h2g clients, each when the guest's server is ready
	local k=0
	for c in $SCTP_H2G; do
		d=$R/${c//_/-}
		mkdir -p "$d"
		while ! grep -q "@@READY ${c//_/-}@@" "$bd/guest.console" \
			2>/dev/null && kill -0 "$GPID" 2>/dev/null; do
			sleep 0.1
		done
		if grep -q "@@READY ${c//_/-}@@" "$bd/guest.console" &&
			[ "$c" = sctp_abort ]; then
			sctp_abort_run "$d" "$(sctp_h2g_cmd "$c")"
			(exec 3<>"/dev/tcp/127.0.0.1/$((hd + k))") 2>/dev/null
		elif grep -q "@@READY ${c//_/-}@@" "$bd/guest.console"; then
			cmd=$(sctp_h2g_cmd "$c")
			# shellcheck disable=SC2086
			timeout 40 $cmd >"$d/host.out" 2>"$d/host.err"
			echo $? >"$d/host.rc"
			(exec 3<>"/dev/tcp/127.0.0.1/$((hd + k))") 2>/dev/null
		else
			echo none >"$d/host.rc"
		fi
		k=$((k + 1))
	done
	wait "$GPID"
	GRC=$?
	GPID=
	# the g2h servers end with their connection
	for c in sctp_g2h sctp_g2h_plain sctp_g2h_reject; do
		d=$R/${c//_/-}
		if kill -0 "${SPID[$c]}" 2>/dev/null; then
			sleep 2
			kill "${SPID[$c]}" 2>/dev/null
		fi
		wait "${SPID[$c]}"
		echo $? >"$d/host.rc"
	done
	DPID=$SCTP_DPID
	daemon_stop
	for c in $SCTP_CASES; do
		d=$R/${c//_/-}
		mkdir -p "$d"
		[ -d "$bd/out/${c//_/-}" ] && mv "$bd/out/${c//_/-}"/* "$d"/ &&
			rmdir "$bd/out/${c//_/-}"
	done
	rm -rf "$bd/tree"
	echo "== sctp: one guest boot (exit $GRC), $(( $(date +%s) - t0 )) s;" \
		"iwcmd here: sctp-boot/iwcmd.log, guest: sctp-boot/out/iwcmd-guest.log"
	for c in $SCTP_CASES; do
		selected "$c" || continue
		d=$R/${c//_/-}
		# case_begin without emptying the directory
		CASE=${c//_/-}
		C=$d
		FAILS=()
		NOTES=()
		CASE_T0=$(date +%s%N)
		DPID=
		SIW_BUG=
		HOST_RC=$(cat "$d/host.rc" 2>/dev/null || echo none)
		[ "$GRC" = 0 ] || fail "the guest script exited $GRC"
		if [ "$c" = sctp_kernel_check ]; then
			GUEST_RC=$(cat "$d/guest.rc" 2>/dev/null || echo none)
			expect_rc "check_sctp_kernel" "$GUEST_RC" 0 guest.out
			note "$(grep -m 1 '^100%\|^[0-9]*%: Checks' "$d/guest.out")"
		elif [ "$c" = sctp_handoff ] || [ "$c" = sctp_restart ]; then
			sctp_local_check "$c"
		elif [ "$c" = sctp_abort ]; then
			sctp_abort_check
		elif [ "$c" = sctp_bench ]; then
			sctp_bench_check
		elif [ "${c#sctp_g2h}" != "$c" ]; then
			sctp_check "$c" "${SPORT[$c]}"
		else
			sctp_check "$c" "$GUEST_PORT"
		fi
		case_end
	done
	[ "$GRC" = 0 ] || tail -n 20 "$bd/guest.console" | sed 's/^/     /'
}
