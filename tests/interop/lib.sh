# SPDX-License-Identifier: BSD-2-Clause
# shellcheck shell=bash disable=SC2034
# Copyright (c) 2026 The iwcm authors
#
# Helpers of the interop suite (sourced by run.sh, bash).  A case runs
# one guest boot: Linux siw in the guest, iwcmd and iwcm-rping (or
# iwcmctl) on the host, a capture of the connection taken in the guest.
#
#   case_begin NAME       results in $R/NAME, the failure list emptied
#   daemon_start          a private iwcmd for the case ($IWCM_SOCKET)
#   g2h SIW HOSTCMD GUESTCMD
#                         guest initiator: HOSTCMD (a host server that
#                         prints "listening on ... port P") first, then
#                         the guest runs GUESTCMD with @PORT@ = P
#   h2g SIW GUESTCMD HOSTCMD
#                         host initiator: the guest runs GUESTCMD (a
#                         server on 10.0.2.15:7174), the host runs
#                         HOSTCMD with @PORT@ = the forwarded port once
#                         the guest says it listens
#   expect_* / capture_check
#                         the checks; each failure is recorded
#   case_end              PASS or FAIL line, with the time
#
# Files of a case ($C): guest.console, guest.out (what GUESTCMD printed),
# guest.rc, dmesg.txt, host.out, host.err, host.rc, iwcmd.log, case.pcap,
# decode.json, tshark.pdml, tshark.fpdus, decode.fpdus, checks.txt.

GUEST_PORT=7174		# the guest's server port (rping's default)
GUEST_DONE_PORT=7175	# the host connects here when it is done
CASE_LIMIT=${IWCM_INTEROP_CASE_LIMIT:-150}

# ---- bookkeeping ------------------------------------------------------

case_begin() {
	CASE=$1
	C=$R/$CASE
	rm -rf "$C"
	mkdir -p "$C"
	FAILS=()
	NOTES=()
	CASE_T0=$(date +%s%N)
	DPID=
	SIW_BUG=
}

fail() {
	FAILS+=("$*")
	echo "FAIL: $*" >>"$C/checks.txt"
}

note() {
	NOTES+=("$*")
	echo "note: $*" >>"$C/checks.txt"
}

ok() {
	echo "ok: $*" >>"$C/checks.txt"
}

case_secs() {
	echo "$(( ($(date +%s%N) - CASE_T0) / 100000000 ))" |
		sed 's/\(.\)$/.\1/; s/^\./0./'
}

# case_end: the verdict line; a kernel BUG in the guest is siw's.
case_end() {
	local verdict=PASS secs f crash notes
	daemon_stop
	crash=$(grep -m 1 'kernel BUG at\|Oops:\|general protection' \
		"$C/guest.console" 2>/dev/null | tr -d '\r' |
		sed 's/^\[[ 0-9.]*\] //')
	if [ -n "$crash" ] && [ -n "$SIW_BUG" ] &&
		[ "${crash#*"$SIW_BUG"}" != "$crash" ]; then
		note "the guest kernel hit siw's known '$crash'"
	elif [ -n "$crash" ]; then
		fail "siw failure: the guest kernel crashed: $crash"
	fi
	[ ${#FAILS[@]} -eq 0 ] || verdict=FAIL
	secs=$(case_secs)
	notes=$(printf '%s; ' "${NOTES[@]}")
	printf '%-4s %-22s %6s s  %s\n' "$verdict" "$CASE" "$secs" \
		"${notes%; }" | tee -a "$R/summary.txt"
	if [ "$verdict" = FAIL ]; then
		N_FAIL=$((N_FAIL + 1))
		for f in "${FAILS[@]}"; do
			echo "     - $f"
		done | tee -a "$R/summary.txt"
	else
		N_PASS=$((N_PASS + 1))
	fi
}

# capture_drops: how many packets the guest's capture lost (0 if unknown).
capture_drops() {
	local n
	n=$(sed -n 's/^\([0-9]*\) packets\{0,1\} dropped by kernel$/\1/p' \
		"$C/tcpdump.txt" 2>/dev/null | head -n 1)
	echo "${n:-0}"
}

# ---- the host side ----------------------------------------------------

# daemon_start [CONF LINE...]: iwcmd -d on a private socket.
daemon_start() {
	local i=0 line
	: >"$C/iwcmd.conf"
	for line; do
		echo "$line" >>"$C/iwcmd.conf"
	done
	IWCM_SOCKET=$C/iwcmd.sock
	export IWCM_SOCKET
	"$IWCMD" -d -f "$C/iwcmd.conf" -s "$IWCM_SOCKET" 2>"$C/iwcmd.log" &
	DPID=$!
	while ! "$CTL" -s "$IWCM_SOCKET" status >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$DPID" 2>/dev/null; then
			fail "iwcmd did not start: $(tail -n 3 "$C/iwcmd.log")"
			return 1
		fi
		sleep 0.01
	done
}

daemon_stop() {
	[ -n "${DPID:-}" ] || return 0
	kill -TERM "$DPID" 2>/dev/null
	wait "$DPID" 2>/dev/null
	DPID=
}

# subst CMD PORT: CMD with @PORT@ replaced.
subst() {
	echo "${1//@PORT@/$2}"
}

# free_port: a TCP port nobody listens on, for a hostfwd rule.
free_port() {
	local p n=0
	while [ $n -lt 100 ]; do
		p=$((20000 + RANDOM % 20000))
		n=$((n + 1))
		ss -Hltn "sport = :$p" 2>/dev/null | grep -q . && continue
		ss -Hltn "sport = :$((p + 1))" 2>/dev/null | grep -q . &&
			continue
		echo "$p"
		return 0
	done
	echo 29999
}

# ---- the guest side ---------------------------------------------------

# The guest script's prologue: a capture of FILTER on eth0, complete
# once stopped (tcpdump -U --immediate-mode, stopped with SIGINT after
# the traffic settled; a 4 MiB buffer, since an emulated guest on a busy
# host is slow to drain it), and the siw parameters in /out.
guest_prologue() {
	if [ "${GUEST_DEBUG:-0}" = 1 ]; then
		cat <<'EOF'
mount -t debugfs debugfs /sys/kernel/debug
for m in siw iw_cm rdma_cm; do
	echo "module $m +p" >/sys/kernel/debug/dynamic_debug/control
done
EOF
	fi
	cat <<EOF
grep -H . /sys/module/siw/parameters/* >/out/siw-params.txt
tcpdump -i eth0 -n -s 0 -B 4096 -U --immediate-mode -w /out/case.pcap '$1' \\
	2>/tmp/tcpdump.err & TD=\$!
for i in \$(seq 100); do
	grep -q 'listening on' /tmp/tcpdump.err && break
	sleep 0.05
done
capture_stop() {
	sleep 0.5
	kill -INT \$TD
	wait \$TD
	cp /tmp/tcpdump.err /out/tcpdump.txt
}
EOF
}

guest_epilogue() {
	cat <<'EOF'
capture_stop
dmesg >/out/dmesg.txt
EOF
}

# boot SCRIPT [run-guest.sh options]: boot the guest in the background
# ($GPID), its console in $C/guest.console.
boot() {
	local script=$1
	shift
	"$RUN_GUEST" -t "$CASE_LIMIT" -l "$C/guest.console" -o "$C/out" \
		"$@" "$script" >"$C/run-guest.log" 2>&1 &
	GPID=$!
}

# boot_wait: wait for the guest to power off; $GRC is run-guest's status.
boot_wait() {
	wait "$GPID"
	GRC=$?
	GPID=
	[ -f "$C/out/case.pcap" ] && mv "$C/out/case.pcap" "$C/case.pcap"
	for f in guest.out guest.rc dmesg.txt siw-params.txt tcpdump.txt; do
		[ -f "$C/out/$f" ] && mv "$C/out/$f" "$C/$f"
	done
	rm -rf "$C/out"
	case $GRC in
	0) ;;
	124) fail "the guest ran out of time ($CASE_LIMIT s)" ;;
	125) fail "the guest did not boot: $(tail -n 5 "$C/run-guest.log")" ;;
	126) fail "qemu could not start: $(tail -n 2 "$C/run-guest.log")" ;;
	*) fail "the guest script exited $GRC" ;;
	esac
	GUEST_RC=$(cat "$C/guest.rc" 2>/dev/null || echo none)
}

# g2h SIW HOSTCMD GUESTCMD: a host server, then a guest client.
g2h() {
	local siw=$1 host=$2 guest=$3 i=0 port=
	RESP_PORT=
	: >"$C/host.out"
	# shellcheck disable=SC2086
	timeout 120 $host >"$C/host.out" 2>"$C/host.err" &
	HPID=$!
	while [ -z "$port" ]; do
		port=$(sed -n 's/^listening on .* port \([0-9][0-9]*\)$/\1/p' \
			"$C/host.out")
		i=$((i + 1))
		if [ -z "$port" ] && { [ $i -gt 500 ] ||
			! kill -0 "$HPID" 2>/dev/null; }; then
			fail "the host server did not listen: $(cat "$C/host.err")"
			kill "$HPID" 2>/dev/null
			wait "$HPID" 2>/dev/null
			return 1
		fi
		[ -n "$port" ] || sleep 0.01
	done
	RESP_PORT=$port
	{
		guest_prologue "tcp port $port"
		echo "timeout 60 $(subst "$guest" "$port") >/out/guest.out 2>&1"
		echo 'echo $? >/out/guest.rc'
		guest_epilogue
	} >"$C/guest.sh"
	boot "$C/guest.sh" -p "$siw"
	boot_wait
	# The host server ends with the connection (bounded by timeout).
	wait "$HPID"
	HOST_RC=$?
	HPID=
}

# h2g SIW GUESTCMD HOSTCMD: a guest server, then a host client.
h2g() {
	local siw=$1 guest=$2 host=$3 hp i
	RESP_PORT=$GUEST_PORT
	{
		guest_prologue "tcp port $GUEST_PORT"
		# See H2G_DELAY in run.sh.
		[ -z "$H2G_DELAY" ] ||
			echo "tc qdisc add dev eth0 root netem delay $H2G_DELAY"
		cat <<EOF
timeout 90 $guest >/out/guest.out 2>&1 & S=\$!
for i in \$(seq 200); do
	ss -Hltn | grep -q ':$GUEST_PORT ' && break
	kill -0 \$S 2>/dev/null || break
	sleep 0.05
done
nc -l -p $GUEST_DONE_PORT >/dev/null 2>&1 & NC=\$!
echo "@@READY@@"
while kill -0 \$S 2>/dev/null && kill -0 \$NC 2>/dev/null; do
	sleep 0.2
done
# The host is done: the server has 5 s to end by itself.
for i in \$(seq 25); do
	kill -0 \$S 2>/dev/null || break
	sleep 0.2
done
if kill -0 \$S 2>/dev/null; then
	echo "(the server was still running: stopped)" >>/out/guest.out
	kill \$S
	for i in \$(seq 25); do
		kill -0 \$S 2>/dev/null || break
		sleep 0.2
	done
fi
if kill -0 \$S 2>/dev/null; then
	echo "(the server does not end)" >>/out/guest.out
	echo stuck >/out/guest.rc
else
	wait \$S
	echo \$? >/out/guest.rc
fi
kill \$NC 2>/dev/null
EOF
		guest_epilogue
	} >"$C/guest.sh"
	for i in 1 2 3; do
		hp=$(free_port)
		: >"$C/guest.console"
		boot "$C/guest.sh" -p "$siw" \
			-f "tcp:127.0.0.1:$hp-10.0.2.15:$GUEST_PORT" \
			-f "tcp:127.0.0.1:$((hp + 1))-10.0.2.15:$GUEST_DONE_PORT"
		# Until the guest listens (or gives up).
		i=0
		while ! grep -q '@@READY@@' "$C/guest.console" 2>/dev/null &&
			kill -0 "$GPID" 2>/dev/null; do
			sleep 0.1
		done
		grep -q '@@READY@@' "$C/guest.console" && break
		wait "$GPID"
		GRC=$?
		[ $GRC -eq 126 ] || break
	done
	if grep -q '@@READY@@' "$C/guest.console"; then
		# shellcheck disable=SC2046
		timeout 40 $(subst "$host" "$hp") >"$C/host.out" \
			2>"$C/host.err"
		HOST_RC=$?
		# Done: tell the guest.
		(exec 3<>"/dev/tcp/127.0.0.1/$((hp + 1))") 2>/dev/null
	else
		HOST_RC=none
		fail "the guest never listened"
	fi
	[ -n "$GPID" ] && boot_wait
}

# ---- checks -----------------------------------------------------------

# expect_rc WHO GOT WANT
expect_rc() {
	if [ "$2" = "$3" ]; then
		ok "$1 exit status $2"
	else
		fail "$1 exited $2, expected $3: $(tail -n 3 "$C/$4" 2>/dev/null |
			tr '\n' ' ')"
	fi
}

# expect_lines FILE REGEX N WHAT: FILE has exactly N lines matching REGEX.
expect_lines() {
	local n
	n=$(grep -c -- "$2" "$1" 2>/dev/null)
	if [ "${n:-0}" = "$3" ]; then
		ok "$4: $3"
	else
		fail "$4: ${n:-0}, expected $3"
	fi
}

# expect_text FILE TEXT WHAT: FILE contains TEXT.
expect_text() {
	if grep -q -F -- "$2" "$1" 2>/dev/null; then
		ok "$3: '$2'"
	else
		fail "$3: '$2' not in $(basename "$1"):" \
			"$(head -c 600 "$1" 2>/dev/null | tr '\n' '|')"
	fi
}

# The iwcm-rping -d line with the negotiated state.
host_state() {
	grep -m 1 ': MPA rev ' "$C/host.out" | sed 's/^conn [0-9]*: //'
}

# pings_ok N: both sides ran and validated N pings; both exited 0.
# The guest is rping (-v -V): "ping data:" lines as client, "server ping
# data:" as server; iwcm-rping prints the same.
pings_ok() {
	local n=$1
	# rping's own teardown race: its CM thread polls the event channel
	# that its main thread destroys, and exits 255.  Not counted when
	# every ping was done.
	if [ "$GUEST_RC" = 255 ] &&
		grep -q '^rdma_get_cm_event: Bad file descriptor' \
			"$C/guest.out" &&
		[ "$(grep -c '^\(server \)\{0,1\}ping data: rdma-ping-' \
			"$C/guest.out")" = "$n" ]; then
		note "rping's teardown race (exit 255 after $n pings)"
		GUEST_RC=0
	fi
	expect_rc "guest rping" "$GUEST_RC" 0 guest.out
	expect_rc "host iwcm-rping" "$HOST_RC" 0 host.err
	expect_lines "$C/guest.out" '^\(server \)\{0,1\}ping data: rdma-ping-' \
		"$n" "guest pings"
	expect_lines "$C/host.out" '^\(server \)\{0,1\}ping data: rdma-ping-' \
		"$n" "host pings"
	if grep -q 'data mismatch' "$C/guest.out" "$C/host.err" 2>/dev/null
	then
		fail "data mismatch"
	fi
}

# expect_state TEXT: the host's negotiated state line contains TEXT.
expect_state() {
	local s
	s=$(host_state)
	case $s in
	*"$1"*) ok "host state: $s" ;;
	*) fail "host state '$s', expected '$1'" ;;
	esac
}

# ---- the capture ------------------------------------------------------

# decode_capture: iwcmctl decode -j of case.pcap into decode.json.
decode_capture() {
	DEC_RC=none
	if [ ! -s "$C/case.pcap" ]; then
		fail "no capture"
		return 1
	fi
	"$CTL" decode -j "$C/case.pcap" >"$C/decode.json" 2>"$C/decode.err"
	DEC_RC=$?
	"$CTL" decode "$C/case.pcap" >"$C/decode.txt" 2>&1
	return 0
}

# jfield LINE KEY: the value of "KEY": in a decode -j line.
jfield() {
	local v=${1#*\""$2"\":}
	[ "$v" = "$1" ] && return 0
	if [ "${v#\[}" != "$v" ]; then
		echo "${v%%]*}]"
		return 0
	fi
	v=${v#\"}
	v=${v%%[\",\}]*}
	echo "$v"
}

# frame_summary KIND: "rev/flags/word" of the request or reply (word "-"
# when not enhanced), or "none".
frame_summary() {
	local l w
	l=$(grep -m 1 "\"type\":\"frame\".*\"frame\":\"$1\"" "$C/decode.json")
	[ -n "$l" ] || { echo none; return 0; }
	w=$(jfield "$l" word)
	echo "$(jfield "$l" rev)/$(jfield "$l" flags)/${w:--}"
}

# expect_eq WHAT GOT WANT: the check "WHAT GOT" passes when GOT is WANT.
expect_eq() {
	if [ "$2" = "$3" ]; then
		ok "$1$2"
	else
		fail "$1'$2', expected '$3'"
	fi
}

# expect_frames REQUEST REPLY: the startup frames, as rev/flags/word.
expect_frames() {
	REQ_SUMMARY=$(frame_summary request)
	expect_eq "MPA Request " "$REQ_SUMMARY" "$1"
	REP_SUMMARY=$(frame_summary reply)
	expect_eq "MPA Reply " "$REP_SUMMARY" "$2"
}

# expect_negotiated KEY VALUE: a field of the decoder's negotiated line.
expect_negotiated() {
	expect_eq "decoded $1=" "$(jfield "$(grep -m 1 '"type":"negotiated"' \
		"$C/decode.json")" "$1")" "$2"
}

# expect_rtr TYPE: the initiator's first FPDU is the RTR of TYPE.
expect_rtr() {
	local l
	l=$(grep -m 1 '"type":"fpdu".*"dir":"i2r"' "$C/decode.json")
	if [ "$(jfield "$l" rtr)" = "$1" ]; then
		ok "RTR $1 first"
	else
		fail "the initiator's first FPDU is not a $1 RTR: ${l:0:300}"
	fi
}

# expect_term LAYER ETYPE ECODE: the initiator's one FPDU is that
# Terminate.
expect_term() {
	local l t
	l=$(grep '"type":"fpdu".*"dir":"i2r"' "$C/decode.json")
	t=${l#*\"term\":\{}
	if [ "$(printf '%s\n' "$l" | wc -l)" = 1 ] &&
		[ "$(jfield "$l" name)" = Terminate ] &&
		[ "$(jfield "$t" layer)/$(jfield "$t" etype)/$(jfield "$t" ecode)" \
			= "$1/$2/$3" ]; then
		ok "Terminate $1/$2/$3"
	else
		fail "not one Terminate $1/$2/$3 from the initiator: ${l:0:400}"
	fi
}

# decode_fpdus: "DIR ULPDU_LENGTH CRC" per FPDU, from decode.json.
decode_fpdus() {
	grep '"type":"fpdu"' "$C/decode.json" | while IFS= read -r l; do
		echo "$(jfield "$l" dir) $(jfield "$l" ulpdu_length)" \
			"$(jfield "$l" crc)"
	done
}

# tshark_fpdus PORT: "DIR ULPDU_LENGTH CRC" per FPDU tshark 4.0 dissects
# (CRC good, bad or off), the responder being on PORT.
tshark_fpdus() {
	awk -v port="$1" '
	function attr(name,   s) {
		if (!match($0, " " name "=\"[^\"]*\""))
			return ""
		s = substr($0, RSTART + length(name) + 3)
		return substr(s, 1, index(s, "\"") - 1)
	}
	function field(n) { return index($0, "<field name=\"" n "\"") }
	function flush() {
		if (have)
			print dir, len, crc
		have = 0
	}
	/^<packet>/ { flush() }
	field("tcp.srcport") { sport = attr("show") }
	field("iwarp_mpa.ulpdulength") {
		flush()
		have = 1
		dir = sport == port ? "r2i" : "i2r"
		len = attr("show")
		crc = "none"
	}
	field("iwarp_mpa.crc_check") {
		s = attr("showname")
		crc = s ~ /Good CRC32/ ? "good" : s ~ /Bad CRC32/ ? "bad" : "?"
	}
	field("iwarp_mpa.crc") { if (crc == "none") crc = "off" }
	END { flush() }' "$C/tshark.pdml"
}

# subsequence A B: every line of A appears in B, in order.
subsequence() {
	awk 'BEGIN { i = 0; na = 0 }
	     NR == FNR { a[na++] = $0; next }
	     i < na && $0 == a[i] { i++ }
	     END { exit i == na ? 0 : 1 }' "$1" "$2"
}

# capture_check [rejected]: iwcmctl decode finds the connection, every
# FPDU with the CRC status the negotiation implies and nothing bad, and
# tshark 4.0 agrees on the CRC of every FPDU it dissects.
capture_check() {
	local sum nd nt d bad
	decode_capture || return 0
	sum=$(grep '"type":"summary"' "$C/decode.json")
	if [ "$DEC_RC" = 0 ] && [ "$(jfield "$sum" crc_bad)" = 0 ] &&
		[ "$(jfield "$sum" malformed)" = 0 ] &&
		[ "$(jfield "$sum" errors)" = 0 ]; then
		ok "decode: $sum"
	else
		fail "iwcmctl decode exit $DEC_RC: crc_bad" \
			"$(jfield "$sum" crc_bad) malformed" \
			"$(jfield "$sum" malformed) errors $(jfield "$sum" errors):" \
			"$(grep -m 2 '"type":"error"\|"bad":true' \
				"$C/decode.json" | cut -c1-300)"
	fi
	decode_fpdus >"$C/decode.fpdus"
	nd=$(wc -l <"$C/decode.fpdus")
	if [ "${1:-}" != rejected ]; then
		for d in i2r r2i; do
			grep -q "^$d " "$C/decode.fpdus" ||
				fail "decode: no FPDU $d"
		done
	fi
	CAP_NOTE="$nd FPDUs"
	[ -n "$TSHARK" ] || return 0
	# shellcheck disable=SC2086  # options, split (tshark_opts.sh)
	WIRESHARK_CONFIG_DIR=$R/.wireshark "$TSHARK" -n $TSHARK_MPA_OPTS \
		--disable-heuristic rpcrdma_iwarp \
		--disable-heuristic smb_direct_iwarp \
		-r "$C/case.pcap" -T pdml >"$C/tshark.pdml" 2>"$C/tshark.err" ||
		fail "tshark failed: $(head -n 2 "$C/tshark.err")"
	tshark_fpdus "$RESP_PORT" >"$C/tshark.fpdus"
	nt=$(wc -l <"$C/tshark.fpdus")
	bad=$(grep -c ' bad$' "$C/tshark.fpdus")
	if [ "$bad" != 0 ]; then
		fail "tshark: $bad FPDUs with a bad CRC"
	fi
	if subsequence "$C/tshark.fpdus" "$C/decode.fpdus"; then
		ok "tshark: $nt FPDUs, each as decoded (length and CRC)"
	else
		fail "tshark and iwcmctl decode disagree (tshark.fpdus," \
			"decode.fpdus)"
	fi
	if [ "$nd" -gt 0 ] && [ "$nt" -eq 0 ]; then
		fail "tshark dissected no FPDU"
	fi
	CAP_NOTE="$nd FPDUs, tshark $nt agree"
}

# stall_check: name the siw responder's lost wakeup when that is what a
# failed case shows: our FPDUs acknowledged, not one FPDU back from siw.
stall_check() {
	[ -f "$C/decode.fpdus" ] || return 0
	if [ "$HOST_RC" = 124 ] && grep -q '^i2r ' "$C/decode.fpdus" &&
		! grep -q '^r2i ' "$C/decode.fpdus"; then
		fail "siw failure: siw took our first FPDU and never answered" \
			"(the siw_accept lost wakeup, docs/interop.md)"
	fi
}
