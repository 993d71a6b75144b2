#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcm-bench end to end, never its speed: the usage errors; a cm JSON run
# with the daemon the benchmark starts itself (found beside it in the
# build tree), whose object must parse and hold every row with every
# handshake completed; a cm table run against a daemon started here,
# whose counters must show each handshake (both ends) went through it;
# each datapath test, tiny, as a table and as JSON with its fields and a
# positive ratio, across the MPA and progress options and -q (N
# connections against N TCP streams), with the bad values of -q; each
# of them and cm with --transport sctp (DDP over SCTP through iwcmd's
# relay against raw usrsctp); --idle, TCP connections beside cm and SCTP
# associations beside cm and a datapath test, all of them kept; the
# errors for a missing daemon; hop_lat's usage and its two figures;
# bench/ratios.sh's usage errors; and no temporary directory left behind.
set -u
bench="$top_builddir/bench/iwcm-bench"
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
for f in "$bench" "$iwcmd" "$ctl"; do
	if [ ! -x "$f" ]; then
		echo "FAIL: $f is not built"
		exit 99
	fi
done
dir=$(mktemp -d /tmp/iwcm-bench-test.XXXXXX) || exit 99
pid=
fails=0
passes=0

cleanup() {
	[ -n "$pid" ] && kill -9 "$pid" 2>/dev/null
	rm -rf "$dir"
}
trap cleanup EXIT
trap 'exit 1' HUP INT TERM

ok() { passes=$((passes + 1)); }
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}
# expect RC CMD...: run with TMPDIR=$dir/tmp; stdout in $dir/out,
# stderr in $dir/err
expect() {
	want=$1
	shift
	TMPDIR="$dir/tmp" "$@" >"$dir/out" 2>"$dir/err"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "'$*' exited $rc, not $want: $(cat "$dir/out" "$dir/err")"
		return 1
	fi
	ok
	return 0
}
has() {	# has FILE TEXT
	if grep -q -F -- "$2" "$1"; then ok; else
		fail "'$2' missing from $(basename "$1"): $(cat "$1")"
	fi
}
mkdir "$dir/tmp"

# ---- usage ----
expect 2 "$bench" && has "$dir/err" "usage: iwcm-bench TEST"
expect 2 "$bench" write_bandwidth &&
	has "$dir/err" "unknown test 'write_bandwidth'"
expect 2 "$bench" cm extra
expect 2 "$bench" cm --iters 0
expect 2 "$bench" cm --iters 12x
expect 2 "$bench" cm --size 509
expect 2 "$bench" cm --depth 0
expect 2 "$bench" cm --depth 1,2000
expect 2 "$bench" cm --depth 1,2,3,4,5,6,7,8,9
expect 2 "$bench" cm --bogus
expect 2 "$bench" cm --socket "$dir/x" --iwcmd "$iwcmd"
expect 2 "$bench" cm --markers && has "$dir/err" "datapath tests only"
expect 2 "$bench" cm -e
expect 2 "$bench" write_bw --size 0 && has "$dir/err" "out of range"
expect 2 "$bench" write_bw --size 2G
expect 2 "$bench" write_bw --size 1X
expect 2 "$bench" write_bw --mpa-rev 3 &&
	has "$dir/err" "bad value '3' for --mpa-rev"
expect 2 "$bench" send_lat --transport udp &&
	has "$dir/err" "bad value 'udp' for --transport"
for o in --markers --crc --no-crc --tcp-poll "-q 2"; do
	# shellcheck disable=SC2086
	expect 2 "$bench" write_bw --transport sctp $o &&
		has "$dir/err" "--transport sctp takes no"
done
expect 2 "$bench" read_bw --transport sctp --tcp-gaps
# --sctp-stack kernel: datapath tests over SCTP only, and no --idle
expect 2 "$bench" send_lat --sctp-stack bogus &&
	has "$dir/err" "bad value 'bogus' for --sctp-stack"
for o in "cm --transport sctp" "send_lat" "send_lat --transport sctp --idle 5"; do
	# shellcheck disable=SC2086
	expect 2 "$bench" $o --sctp-stack kernel &&
		has "$dir/err" "--sctp-stack kernel takes --transport sctp"
done
expect 2 "$bench" cm --transport sctp -d 1,17 && has "$dir/err" "at most 16"
expect 2 "$bench" atomic_lat --size 16
expect 2 "$bench" send_lat --depth 4 && has "$dir/err" "does not apply"
expect 2 "$bench" send_lat --tcp-gaps && has "$dir/err" "write_bw and read_bw"
expect 2 "$bench" write_bw -q 0
expect 2 "$bench" write_bw -q 65
expect 2 "$bench" send_lat --qps 2x
expect 2 "$bench" send_lat -q && has "$dir/err" "usage: iwcm-bench TEST"
expect 2 "$bench" read_bw -q 2 && has "$dir/err" "write_bw and send_lat only"
expect 2 "$bench" atomic_lat -q 1 && has "$dir/err" "write_bw and send_lat only"
expect 2 "$bench" cm -q 2 && has "$dir/err" "write_bw and send_lat only"
expect 2 "$bench" write_bw -q 2 --tcp-gaps && has "$dir/err" "no --qps"
expect 2 "$bench" write_bw --wait-cm && has "$dir/err" "cm test only"
expect 2 "$bench" send_lat --busy-poll 10 && has "$dir/err" "--busy-poll applies"
expect 2 "$bench" send_lat -e --manual && has "$dir/err" "it takes no --event"
expect 2 "$bench" cm --busy-poll 100001 && has "$dir/err" "for --busy-poll"
expect 2 "$bench" cm --busy-poll 1x
expect 2 "$bench" write_lat --no-client-poll &&
	has "$dir/err" "--no-client-poll applies to the cm test only"
expect 2 "$bench" cm --no-client-poll=1
expect 2 "$bench" cm --idle 100001 && has "$dir/err" "for --idle"
expect 2 "$bench" cm --idle -1 && has "$dir/err" "for --idle"
expect 2 "$bench" write_lat --idle 10 && has "$dir/err" "--idle applies"
expect 2 "$bench" write_bw --address 192.0.2.300 &&
	has "$dir/err" "bad value '192.0.2.300' for --address"
expect 2 "$bench" write_bw --server-netns n --server-socket /x \
	--address 192.0.2.1 && has "$dir/err" "go together"
expect 2 "$bench" cm --socket /x --server-netns n --server-socket /x \
	--address 192.0.2.1 && has "$dir/err" "go together"
expect 0 "$bench" --help && has "$dir/out" "  cm " &&
	has "$dir/out" "--depth LIST" && has "$dir/out" "--qps N" &&
	has "$dir/out" "--transport T" && has "$dir/out" "--wait-cm" &&
	has "$dir/out" "--busy-poll US" && has "$dir/out" "--idle N" &&
	has "$dir/out" "--no-client-poll" && has "$dir/out" "--server-netns NS"
for t in write_bw read_bw send_lat write_lat atomic_lat; do
	has "$dir/out" "  $t "
done
expect 0 "$bench" --version && has "$dir/out" "iwcm-bench "
# bench/ratios.sh's own usage errors (its runs are benchmarks, not tests)
ratios="$top_srcdir/bench/ratios.sh"
expect 2 env IWCM_BENCH="$bench" sh "$ratios" -b x &&
	has "$dir/err" "-b wants a number, not 'x'" &&
	has "$dir/err" "usage: ratios.sh [-r RUNS] [-b BUSY] [CASE...]"
expect 2 env IWCM_BENCH="$bench" sh "$ratios" -r 0 &&
	has "$dir/err" "-r wants a count of runs"
expect 2 env IWCM_BENCH="$bench" sh "$ratios" -b 1 no_such_case

# ---- JSON, with the daemon the benchmark starts ----
# check_json FILE ITERS DEPTHS...: one object, every row of every depth
# in order, each handshake completed and the numbers consistent; the
# rows of --transport sctp when cm_sctp=1.
cm_sctp=0
check_json() {
	file=$1
	iters=$2
	shift 2
	# one object: its first and last lines, one result per line between
	if head -n 1 "$file" | grep -q '^{"test":"cm",.*"results":\[$' &&
		tail -n 1 "$file" | grep -q '^]}$'; then ok; else
		fail "not one JSON object: $(cat "$file")"
	fi
	want=""
	for d in "$@"; do
		names="tcp v1 v2-p2p-write v2-p2p-read"
		[ "$cm_sctp" = 1 ] && names="sctp sctp-plain sctp-enh"
		for n in $names; do
			want="$want $n/$d/$iters/$iters/0"
		done
	done
	got=$(sed -n 's/^{"name":"\([^"]*\)",.*"depth":\([0-9]*\),"iterations":\([0-9]*\),"completed":\([0-9]*\),"failed":\([0-9]*\),.*/\1\/\2\/\3\/\4\/\5/p' "$file" |
		tr '\n' ' ')
	if [ " $got" = "$want " ]; then ok; else
		fail "rows '$got', want '$want'"
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		return
	fi
	if python3 - "$file" "$cm_sctp" "$iters" "$@" <<'EOF'; then ok; else
import json, sys
d = json.load(open(sys.argv[1]))
sctp = sys.argv[2] == "1"
iters = int(sys.argv[3])
depths = [int(x) for x in sys.argv[4:]]
rows = [("tcp", "tcp", 0, False, "none"), ("v1", "mpa", 1, False, "none"),
        ("v2-p2p-write", "mpa", 2, True, "write"),
        ("v2-p2p-read", "mpa", 2, True, "read")]
if sctp:
    rows = [("sctp", "sctp", 0, False, "none"),
            ("sctp-plain", "sctp", 1, False, "none"),
            ("sctp-enh", "sctp", 2, False, "none")]
nr = len(rows)
assert d["test"] == "cm" and d["iters"] == iters, d
assert d["depths"] == depths, d
assert d["baseline"] == ("usrsctp" if sctp else "tcp"), d
assert d["pipelined"] is True, d
assert d["address"] == "127.0.0.1" and d["cpus"] >= 1, d
assert len(d["results"]) == nr * len(depths), d["results"]
for i, r in enumerate(d["results"]):
    name, transport, rev, p2p, rtr = rows[i % nr]
    assert r["name"] == name and r["depth"] == depths[i // nr], r
    assert (r["transport"], r["mpa_rev"], r["p2p"], r["rtr"]) == \
        (transport, rev, p2p, rtr), r
    assert r["iterations"] == iters and r["completed"] == iters, r
    assert r["failed"] == 0, r
    # consistency, not speed: positive, ordered, the rate is the count
    # over the time, the baseline's ratio is 1
    assert r["seconds"] > 0 and r["handshakes_per_sec"] > 0, r
    rate = r["completed"] / r["seconds"]
    assert abs(r["handshakes_per_sec"] - rate) <= 0.01 * rate + 0.1, r
    base = d["results"][i - i % nr]
    assert abs(r["ratio"] - r["handshakes_per_sec"] /
               base["handshakes_per_sec"]) < 0.01 * r["ratio"] + 1e-3, r
    if name in ("tcp", "sctp"):
        assert r["ratio"] == 1, r
    lat = r["latency_us"]
    assert 0 < lat["min"] <= lat["p50"] <= lat["p99"] <= lat["max"], r
    cpu = r["cpu_us_per_handshake"]
    assert cpu["bench"] >= 0, r
    assert cpu["iwcmd"] is None or cpu["iwcmd"] >= 0, r
EOF
		fail "python3 rejects $(cat "$file")"
	fi
}
expect 0 env -u IWCM_POLL_US "$bench" cm --iters 50 --json &&
	check_json "$dir/out" 50 1 16 &&
	has "$dir/out" '"daemon":"spawned"' && has "$dir/out" '"busy_poll_us":0,' &&
	has "$dir/out" '"client_poll_us":"default",' &&
	has "$dir/out" '"idle":0,"idle_left":0,'
# the client sleeps at once: the option, or the variable libiwcm reads
expect 0 "$bench" cm --iters 20 --depth 1 --no-client-poll --json &&
	check_json "$dir/out" 20 1 && has "$dir/out" '"client_poll_us":"0",'
expect 0 env IWCM_POLL_US=50 "$bench" cm --iters 20 --depth 2 &&
	has "$dir/out" "adaptive window (IWCM_POLL_US 50)"
for v in x -1 100001 ""; do
	expect 2 env IWCM_POLL_US="$v" "$bench" cm --iters 20 --depth 1 &&
		has "$dir/err" "bad IWCM_POLL_US '$v' (0 to 100000)"
done
# beside connections that never send, which the daemon it starts keeps
# (from two source addresses: 200 each)
expect 0 "$bench" cm -j -n 20 -w 0 -d 1,4 --idle 300 &&
	check_json "$dir/out" 20 1 4 && has "$dir/out" '"idle":300,"idle_left":300,'
expect 0 "$bench" cm -n 20 -w 0 -d 1 --idle 5 &&
	has "$dir/out" "beside 5 connections to iwcmd that never send a byte (5 still open"
# over SCTP: associations that never carry a session, held by a child
# process of the benchmark, for cm and the datapath tests; all come from
# 127.0.0.1, and the daemon it starts keeps them past its default 256
# half-open per source (300 here)
if grep -q '^USRSCTP_LIBS = .*usrsctp' "$top_builddir/bench/Makefile" 2>/dev/null; then
	cm_sctp=1
	expect 0 "$bench" cm --transport sctp -j -n 10 -w 0 -d 1 --idle 100 &&
		check_json "$dir/out" 10 1 &&
		has "$dir/out" '"idle":100,"idle_left":100,'
	cm_sctp=0
	expect 0 "$bench" send_lat --transport sctp -j -n 20 -w 1 --idle 100 &&
		has "$dir/out" '"idle":100,"idle_left":100,'
	expect 0 "$bench" send_lat --transport sctp -n 20 -w 1 --idle 300 &&
		has "$dir/out" "beside 300 SCTP associations to iwcmd that never carry a session (300 still up"
	[ -s "$dir/err" ] && fail "stderr of --idle over SCTP: $(cat "$dir/err")"
else
	echo "SKIP: --idle over SCTP: iwcm-bench is built without usrsctp"
fi
# busy polling here and in the daemon it starts, which must still stop
# cleanly (the run fails otherwise)
expect 0 "$bench" cm -j -n 20 -w 0 -d 1 --busy-poll 500 &&
	check_json "$dir/out" 20 1 && has "$dir/out" '"busy_poll_us":500,'
# what it reports of the daemon's end, if anything, goes to stderr
[ -s "$dir/err" ] && fail "stderr of a clean run: $(cat "$dir/err")"
# private data both ways and one depth
expect 0 "$bench" cm -j -n 10 -w 0 -s 508 -d 3 &&
	check_json "$dir/out" 10 3 && has "$dir/out" '"size":508'
# DDP Stream Sessions over SCTP, plain and enhanced, against raw usrsctp
# associations, as many in flight as iwcmd lets wait for a decision
cm_sctp=1
expect 0 "$bench" cm --transport sctp -j -n 40 -w 2 -s 16 -d 1,16 &&
	check_json "$dir/out" 40 1 16
[ -s "$dir/err" ] && fail "stderr of cm --transport sctp: $(cat "$dir/err")"
expect 0 "$bench" cm --transport sctp -n 10 -w 0 && has "$dir/out" "sctp-enh" &&
	has "$dir/out" "raw usrsctp association setup"
cm_sctp=0
# The daemon's SCTP UDP port taken before its first SCTP request (it was
# only free when picked; a baseline's usrsctp stack took one such port
# in a CI run): iwcm-bench starts a daemon on another port and the row
# runs.  A port held by another process stands for it.
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("0.0.0.0", 0))
print(s.getsockname()[1], flush=True)
time.sleep(60)' >"$dir/udp" &
	holder=$!
	i=0
	while [ ! -s "$dir/udp" ] && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	IWCM_BENCH_SCTP_UDP_PORT=$(cat "$dir/udp") \
		expect 0 "$bench" cm --transport sctp -n 10 -w 0 -d 1 &&
		has "$dir/err" "SCTP UDP port $(cat "$dir/udp") was taken; another"
	kill "$holder" 2>/dev/null
	wait "$holder" 2>/dev/null
else
	echo "SKIP: a taken SCTP UDP port: no python3 to hold one"
fi

# ---- the datapath tests, tiny ----
# dp_json FILE TEST SIZE ITERS DEPTHS OPTIONS...: the object's fields,
# one row per depth (a single one for the latency tests), each with both
# figures, its CPU times and a positive ratio; the negotiation as asked.
dp_json() {
	file=$1
	shift
	if head -n 1 "$file" | grep -q "^{\"test\":\"$1\",.*\"results\":\[\$" &&
		tail -n 1 "$file" | grep -q '^]}$'; then ok; else
		fail "not one JSON object: $(cat "$file")"
	fi
	if grep -Eq '"ratio":([1-9][0-9]*\.[0-9]+|0\.[0-9]*[1-9])' "$file"
	then ok; else
		fail "no positive ratio: $(cat "$file")"
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		return
	fi
	if python3 - "$file" "$@" <<'EOF'; then ok; else
import json, sys
d = json.load(open(sys.argv[1]))
test, size, iters = sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
depths = [int(x) for x in sys.argv[5].split(",")]
opts = sys.argv[6:]
q = int(opts[opts.index("-q") + 1]) if "-q" in opts else 1
sctp = "--transport" in opts and opts[opts.index("--transport") + 1] == "sctp"
base = "usrsctp" if sctp else "tcp"
bw = test.endswith("_bw")
if not bw:
    depths = []
assert d["test"] == test and d["iters"] == iters and d["size"] == size, d
assert d["depths"] == depths and d["baseline"] == base, d
assert d["transport"] == ("sctp" if sctp else "tcp"), d
assert d["address"] == "127.0.0.1" and d["cpus"] >= 1, d
assert d["progress"] == ("event" if "-e" in opts else
                         "manual" if "--manual" in opts else "busy"), d
assert d["qps"] == q, d
assert d["tcp_io"] == ("poll" if "--tcp-poll" in opts else
                       "multiplexed" if q > 1 else "blocking"), d
assert d["tcp_gaps"] == ("--tcp-gaps" in opts), d
rev = 1 if "--mpa-rev" in opts else 2
crc = "--no-crc" not in opts
markers = "--markers" in opts
assert (d["mpa_rev"], d["crc"], d["markers"]) == (rev, crc, markers), d
assert d["metric"] == ("mib_per_sec" if bw else
                       "half_rtt_mean_us" if q > 1 else "half_rtt_p50_us"), d
assert d["better"] == ("higher" if bw else "lower"), d
assert len(d["results"]) == (len(depths) if bw else 1), d["results"]
for i, r in enumerate(d["results"]):
    assert r["name"] == test and r["size"] == size, r
    assert r["iterations"] == iters and r["failed"] is False, r
    assert r["depth"] == (depths[i] if bw else 1), r
    for k in ("iwcm", base):
        s = r[k]
        assert s["value"] > 0 and s["seconds"] > 0, r
        if bw:
            assert s["mib_per_sec"] == s["value"], r
        else:
            lat = s["latency_us"]
            assert 0 <= lat["min"] <= lat["p50"] <= lat["p99"] <= \
                lat["max"], r
            assert lat[("avg" if q > 1 else "p50")] == s["value"], r
            assert lat["avg"] > 0, r
        for side in ("client", "server"):
            c = s["cpu"][side]
            assert c["user"] >= 0 and c["sys"] >= 0, r
            assert c["percent"] >= 0, r
    n = r["iwcm"]["negotiated"]
    if sctp:
        # RFC 5043 §9: segments never below 516 octets; the baseline's
        # messages are iwcmd's SCTP messages (a segment and its DDP-SSN)
        assert n["enhanced"] == (rev == 2), r
        assert n["ird"] >= 1 and n["ord"] >= 1, r
        assert n["sctp_max_segment"] >= 516, r
        assert r[base]["message_max"] == n["sctp_max_segment"] + 2, r
        w = r["iwcm"]["iwcmd"]
        assert w["percent"] >= 0, r
        assert w["us_per_mib" if bw else "us_per_rtt"] >= 0, r
    else:
        assert (n["mpa_rev"], n["crc"]) == (rev, crc), r
        assert n["markers_tx"] == markers and n["markers_rx"] == markers, r
        assert n["ird"] >= 1 and n["ord"] >= 1 and n["mulpdu"] > 0, r
    ratio = r["iwcm"]["value"] / r[base]["value"]
    assert r["ratio"] > 0, r
    assert abs(r["ratio"] - ratio) <= 1e-3 * ratio + 1e-4, r
EOF
		fail "python3 rejects $(cat "$file")"
	fi
}
# dp_text TEST SIZE ITERS: every row names the test, the size and the
# iterations and has a positive ratio (after the two figures).
dp_text() {
	if awk -v t="$1" -v s="$2" -v n="$3" '
		$1 == t { rows++
			f = (t ~ /_bw$/) ? 4 : 3
			if ($2 != s || $f != n || !($(f + 3) > 0)) bad++ }
		END { exit !(rows > 0 && !bad) }' "$dir/out"; then ok; else
		fail "$1 table: $(cat "$dir/out")"
	fi
}
# Each test as a table and as JSON, tiny, the options spread over the
# runs: test, size, iterations, depths (- for the default) and options.
while read -r t size iters depths opts; do
	dflag=
	[ "$depths" = - ] && depths=128 || dflag="-d $depths"
	# shellcheck disable=SC2086
	expect 0 "$bench" "$t" -n "$iters" -w 2 -s "$size" $dflag $opts &&
		dp_text "$t" "$size" "$iters"
	[ -s "$dir/err" ] && fail "stderr of $t: $(cat "$dir/err")"
	# shellcheck disable=SC2086
	expect 0 "$bench" "$t" -j -n "$iters" -w 1 -s "$size" $dflag $opts &&
		dp_json "$dir/out" "$t" "$size" "$iters" "$depths" $opts
done <<EOF
write_bw 65536 20 1,8 --markers
write_bw 100000 20 2 --markers --tcp-gaps
read_bw 70000 20 - --tcp-gaps -e
write_bw 4096 30 - --no-crc --mpa-rev 1 -e
read_bw 65536 20 4 -e --tcp-poll
read_bw 1000 20 - --markers --no-crc
send_lat 8 50 - --markers --mpa-rev 1
send_lat 100000 10 - -e --no-crc
write_lat 100 50 - -e
write_lat 8 50 - --mpa-rev 1 --tcp-poll
write_lat 64 50 - --manual
send_lat 8 50 - --manual --tcp-poll
atomic_lat 8 50 - -e --markers
atomic_lat 8 50 -
write_bw 65536 20 1,8 -q 4
write_bw 4096 20 - -q 3 -e --markers
send_lat 8 50 - -q 3
send_lat 1000 20 - -q 2 -e --tcp-poll
write_bw 65536 10 1,4 --transport sctp
read_bw 4000 10 - --transport sctp -e
send_lat 8 50 - --transport sctp
send_lat 3000 20 - --transport sctp --mpa-rev 1 -e
write_lat 8 20 - --transport sctp
atomic_lat 8 50 - --transport sctp -e
EOF
# The server waits for the end of the client's one-sided operations as
# long as they take, longer than the stall time (each run here lasts
# well over the 500 ms, busy-polling or asleep); the client's waits are
# shorter.  A client (iwcm's or the TCP baseline's) descheduled for the
# whole stall time on a loaded machine is not what this checks: that
# run is made again, three times in all; a server that gives up fails
# at once.
export IWCM_BENCH_STALL_MS=500
atomic_long() {	# atomic_long ITERS [OPTION]
	try=1
	while :; do
		# shellcheck disable=SC2086 # an option or none
		TMPDIR="$dir/tmp" "$bench" atomic_lat -n "$1" -w 0 ${2:-} \
			>"$dir/out" 2>"$dir/err" && return 0
		grep -q "server: no progress" "$dir/err" && return 1
		grep -q "client: no progress" "$dir/err" || return 1
		[ $try -lt 3 ] || return 1
		echo "atomic_lat -n $1 ${2:-}: a client stalled, once more: $(cat "$dir/err")"
		try=$((try + 1))
	done
}
for a in "60000" "30000 -e"; do
	# shellcheck disable=SC2086 # ITERS and an option
	if atomic_long $a; then
		ok
		dp_text atomic_lat 8 "${a%% *}"
	else
		fail "atomic_lat -n $a: $(cat "$dir/out" "$dir/err")"
	fi
done
unset IWCM_BENCH_STALL_MS
expect 2 env IWCM_BENCH_STALL_MS=0 "$bench" send_lat

# ---- a table, against a daemon started here ----
sock="$dir/iwcmd.sock"
printf '# iwcm-bench smoke test\n' >"$dir/iwcmd.conf"
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
expect 0 "$bench" cm -n 20 -w 2 -s 16 -d 1,4 --socket "$sock" &&
	has "$dir/out" "iwcmd $sock" && has "$dir/out" "private data 16"
# the rows: name, depth, iters 20, failed 0
got=$(awk '$1 ~ /^(tcp|v1|v2-p2p-write|v2-p2p-read)$/ {
	printf "%s/%s/%s/%s ", $1, $2, $3, $4 }' "$dir/out")
want="tcp/1/20/0 v1/1/20/0 v2-p2p-write/1/20/0 v2-p2p-read/1/20/0 "
want="${want}tcp/4/20/0 v1/4/20/0 v2-p2p-write/4/20/0 v2-p2p-read/4/20/0 "
if [ "$got" = "$want" ]; then ok; else
	fail "table rows '$got', want '$want': $(cat "$dir/out")"
fi
# 3 iwcm rows x 2 depths x (20 + 2 warm-up) handshakes, both ends each
if "$ctl" -s "$sock" -j stats >"$dir/stats"; then ok; else
	fail "iwcmctl stats"
fi
has "$dir/stats" '"connects":132,'
has "$dir/stats" '"established":264,'
has "$dir/stats" '"protocol_errors":0'
# the waiting calls (no IWCM_CTX_ASYNC_CM) complete every handshake too
expect 0 "$bench" cm -n 5 -w 0 -d 1 --wait-cm --socket "$sock"
got=$(awk '$1 ~ /^(tcp|v1|v2-p2p-write|v2-p2p-read)$/ {
	printf "%s/%s/%s/%s ", $1, $2, $3, $4 }' "$dir/out")
want="tcp/1/5/0 v1/1/5/0 v2-p2p-write/1/5/0 v2-p2p-read/1/5/0 "
if [ "$got" = "$want" ]; then ok; else
	fail "--wait-cm rows '$got', want '$want': $(cat "$dir/out")"
fi
kill "$pid"
wait "$pid"
st=$?
pid=
[ "$st" -eq 0 ] && ok || fail "iwcmd exit status $st: $(cat "$dir/log")"

# ---- hop_lat: the relay hop under sctp_netns.sh's floor ----
hop="$top_builddir/bench/hop_lat"
if [ -x "$hop" ]; then
	expect 2 "$hop" -n 0 && has "$dir/err" "usage: hop_lat"
	expect 2 "$hop" -s 65537
	expect 2 "$hop" -n 12x
	expect 2 "$hop" extra
	if expect 0 "$hop" -n 200 -s 64; then
		for k in hop_wake_us hop_spin_us; do
			if awk -v k="$k" '$1 == k && $2 > 0 { f = 1 }
				END { exit !f }' "$dir/out"; then
				ok
			else
				fail "hop_lat: no positive $k: $(cat "$dir/out")"
			fi
		done
	fi
else
	fail "$hop is not built"
fi

# ---- no daemon ----
expect 1 "$bench" cm -n 1 --socket "$sock" && has "$dir/err" "$sock" &&
	if [ -s "$dir/out" ]; then fail "output: $(cat "$dir/out")"; else ok; fi
expect 1 "$bench" send_lat -n 1 --socket "$sock" && has "$dir/err" "$sock"
expect 1 "$bench" cm -n 1 --iwcmd "$dir/nonexistent" &&
	has "$dir/err" "not an executable"
# a daemon that cannot start: its log is shown
printf '#!/bin/sh\necho broken daemon >&2\nexit 3\n' >"$dir/fake"
chmod +x "$dir/fake"
expect 1 "$bench" cm -n 1 --iwcmd "$dir/fake" &&
	has "$dir/err" "did not start: exit status 3" &&
	has "$dir/err" "broken daemon"

# every temporary directory of the benchmark is gone
left=$(ls "$dir/tmp")
[ -z "$left" ] && ok || fail "left behind in TMPDIR: $left"

echo "$passes checks passed, $fails failed"
[ "$fails" -eq 0 ]
