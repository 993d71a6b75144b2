#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcm-bench cm end to end, never its speed: the usage errors; a JSON run
# with the daemon the benchmark starts itself (found beside it in the
# build tree), whose object must parse and hold every row with every
# handshake completed; a table run against a daemon started here, whose
# counters must show each handshake (both ends) went through it; the
# errors for a missing daemon; and no temporary directory left behind.
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
expect 2 "$bench" write_bw && has "$dir/err" "unknown test 'write_bw'"
expect 2 "$bench" cm extra
expect 2 "$bench" cm --iters 0
expect 2 "$bench" cm --iters 12x
expect 2 "$bench" cm --size 509
expect 2 "$bench" cm --depth 0
expect 2 "$bench" cm --depth 1,2000
expect 2 "$bench" cm --depth 1,2,3,4,5,6,7,8,9
expect 2 "$bench" cm --bogus
expect 2 "$bench" cm --socket "$dir/x" --iwcmd "$iwcmd"
expect 0 "$bench" --help && has "$dir/out" "  cm " &&
	has "$dir/out" "--depth LIST"
expect 0 "$bench" --version && has "$dir/out" "iwcm-bench "

# ---- JSON, with the daemon the benchmark starts ----
# check_json FILE ITERS DEPTHS...: one object, every row of every depth
# in order, each handshake completed and the numbers consistent.
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
		for n in tcp v1 v2-p2p-write v2-p2p-read; do
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
	if python3 - "$file" "$iters" "$@" <<'EOF'; then ok; else
import json, sys
d = json.load(open(sys.argv[1]))
iters = int(sys.argv[2])
depths = [int(x) for x in sys.argv[3:]]
rows = [("tcp", "tcp", 0, False, "none"), ("v1", "mpa", 1, False, "none"),
        ("v2-p2p-write", "mpa", 2, True, "write"),
        ("v2-p2p-read", "mpa", 2, True, "read")]
assert d["test"] == "cm" and d["iters"] == iters, d
assert d["depths"] == depths and d["baseline"] == "tcp", d
assert d["address"] == "127.0.0.1" and d["cpus"] >= 1, d
assert len(d["results"]) == 4 * len(depths), d["results"]
for i, r in enumerate(d["results"]):
    name, transport, rev, p2p, rtr = rows[i % 4]
    assert r["name"] == name and r["depth"] == depths[i // 4], r
    assert (r["transport"], r["mpa_rev"], r["p2p"], r["rtr"]) == \
        (transport, rev, p2p, rtr), r
    assert r["iterations"] == iters and r["completed"] == iters, r
    assert r["failed"] == 0, r
    # consistency, not speed: positive, ordered, the rate is the count
    # over the time, the baseline's ratio is 1
    assert r["seconds"] > 0 and r["handshakes_per_sec"] > 0, r
    rate = r["completed"] / r["seconds"]
    assert abs(r["handshakes_per_sec"] - rate) <= 0.01 * rate + 0.1, r
    base = d["results"][i - i % 4]
    assert abs(r["ratio"] - r["handshakes_per_sec"] /
               base["handshakes_per_sec"]) < 0.01 * r["ratio"] + 1e-3, r
    if name == "tcp":
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
expect 0 "$bench" cm --iters 50 --json && check_json "$dir/out" 50 1 16 &&
	has "$dir/out" '"daemon":"spawned"'
# what it reports of the daemon's end, if anything, goes to stderr
[ -s "$dir/err" ] && fail "stderr of a clean run: $(cat "$dir/err")"
# private data both ways and one depth
expect 0 "$bench" cm -j -n 10 -w 0 -s 508 -d 3 &&
	check_json "$dir/out" 10 3 && has "$dir/out" '"size":508'

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
kill "$pid"
wait "$pid"
st=$?
pid=
[ "$st" -eq 0 ] && ok || fail "iwcmd exit status $st: $(cat "$dir/log")"

# ---- no daemon ----
expect 1 "$bench" cm -n 1 --socket "$sock" && has "$dir/err" "$sock" &&
	if [ -s "$dir/out" ]; then fail "output: $(cat "$dir/out")"; else ok; fi
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
