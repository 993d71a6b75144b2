#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The Wireshark plugin (wireshark/, wireshark-iwcm(7)) against the
# project's decoder: tshark with the build tree's iwcm.so shows, for
# every MPA frame, negotiation, FPDU and DDP over SCTP message, every
# field `iwcmctl decode -j -v` reports for it, with the same value
# (lib.sh, json_records.awk, pdml_records.awk; records matched by
# sender, receiver and stream offset, SCTP messages in order).  Inputs:
#  1. the Linux siw captures and the iwcmd DDP over SCTP capture in
#     vectors/captures/, and those of ../shared/captures/ when that
#     directory exists next to the source tree;
#  2. `iwcmctl sample` over TCP (markers, CRC, RTR types, Rev 0 and 1,
#     client-server, the seed-003 RtR frame, Swap, Terminate, small
#     segments, FPDUs across segments, a corrupted FPDU) and over SCTP
#     (clean, with corrupted packets, and with the function code of
#     its session control messages set to each of 1-8 and 65535).
# The captures of integ/dp_capture.sh and integ/sctp_capture.sh are
# compared by those tests.  Then:
#  3. the comparison fails when it should: a changed value, a missing
#     record and an unknown decode field each make it fail (self-test);
#  4. precedence: with the plugin, no built-in iwarp_mpa/iwarp_ddp_rdmap
#     field appears; with --disable-protocol iwcm_mpa they do;
#  5. a bad CRC32c is an expert info at error severity on that FPDU;
#  6. every field and expert info is documented in wireshark-iwcm(7).
# SKIP (77) without the plugin, tshark, or a tshark of the plugin's
# Wireshark version.
set -u
. "$srcdir/wireshark/lib.sh"
if ! ws_init; then
	echo "SKIP: $ws_skip"
	exit 77
fi
trap ws_cleanup EXIT
trap 'exit 1' HUP INT TERM
n=0
n_fail=0
check() {
	n=$((n + 1))
	"$@" || n_fail=$((n_fail + 1))
}

# 1. captures
vec=$top_srcdir/tests/vectors/captures
shared=$top_srcdir/../shared/captures
seen=
for f in "$vec"/*.pcap "$shared"/*.pcap; do
	[ -f "$f" ] || continue
	sum=$(cksum <"$f")
	case $seen in *"|$sum|"*) continue ;; esac
	seen="$seen|$sum|"
	case ${f##*/} in
	iwcmd-rping-sctp.pcap)
		check ws_compare "${f##*/}" "$f" --sctp-udp-port 21150 -- \
			-d udp.port==21150,sctp
		;;
	*) check ws_compare "${f##*/}" "$f" ;;
	esac
done
[ -d "$shared" ] || echo "note: $shared not found; vectors/captures only"

# 2. samples
while read -r opts; do
	"$IWCMCTL" sample $opts -o "$ws_tmp/s.pcap" || {
		echo "FAIL: iwcmctl sample $opts"
		n_fail=$((n_fail + 1))
		continue
	}
	case $opts in
	*sctp*) check ws_compare "sample $opts" "$ws_tmp/s.pcap" -- \
		-d udp.port==9899,sctp ;;
	*) check ws_compare "sample${opts:+ $opts}" "$ws_tmp/s.pcap" ;;
	esac
done <<'EOF'

--markers --terminate
--markers-i2r --rtr read
--markers-r2i --rtr send --no-crc
--rev 1 --swap
--rev0
--client-server --mss 300
--rtr-frame --markers
--no-ddp-seg --mss 1000 --markers
--corrupt 5 --markers
--initiator-port 48898
--transport sctp
--transport sctp --corrupt 4
--transport sctp --corrupt 11
EOF

# DDP Stream Session Control with every function code (RFC 5043
# §5.2.3, RFC 6581 §7), and two that are not defined
"$IWCMCTL" sample --transport sctp -o "$ws_tmp/s.pcap"
for fc in 1 2 3 4 5 6 7 8 65535; do
	"$builddir/pcap_mutate" fc "$fc" "$ws_tmp/s.pcap" "$ws_tmp/fc.pcap" &&
		check ws_compare "session control, function code $fc" \
			"$ws_tmp/fc.pcap" -- -d udp.port==9899,sctp
done

# 3. the comparison can fail
"$IWCMCTL" sample -o "$ws_tmp/s.pcap"
ws_records "$ws_tmp/s.pcap"
cp "$ws_tmp/d.rec" "$ws_tmp/d.good"
# a value the plugin does not show: the Request's IRD 16 -> 17
sed '/^frame .*\tiwarp_mpa.frame=1/s/\tiwarp_mpa.ird=16\t/\tiwarp_mpa.ird=17\t/' \
	"$ws_tmp/d.good" >"$ws_tmp/d.rec"
n=$((n + 1))
if cmp -s "$ws_tmp/d.good" "$ws_tmp/d.rec" ||
	ws_diff "self-test: IRD 17" >"$ws_tmp/out" ||
	! grep -q 'iwarp_mpa.ird=16' "$ws_tmp/out"; then
	echo "FAIL: self-test: a wrong IRD went unnoticed"
	cat "$ws_tmp/out"
	n_fail=$((n_fail + 1))
else
	echo "ok: self-test: a wrong IRD is a difference"
fi
# a record the plugin lacks
sed 1d "$ws_tmp/w.rec" >"$ws_tmp/w.less" && mv "$ws_tmp/w.less" "$ws_tmp/w.rec"
cp "$ws_tmp/d.good" "$ws_tmp/d.rec"
n=$((n + 1))
if ws_diff "self-test: record missing" >"$ws_tmp/out" ||
	! grep -q 'only in decode' "$ws_tmp/out"; then
	echo "FAIL: self-test: a missing record went unnoticed"
	n_fail=$((n_fail + 1))
else
	echo "ok: self-test: a missing record is a difference"
fi
# a decode field the comparison does not map
sed '0,/"type":"fpdu"/s/"type":"fpdu",/"type":"fpdu","new_field":1,/' \
	"$ws_tmp/d.json" | awk -f "$ws_awk/records.awk" \
	-f "$ws_awk/json_records.awk" >"$ws_tmp/d.rec"
n=$((n + 1))
if ws_diff "self-test: unknown field" >"$ws_tmp/out" ||
	! grep -q 'UNMAPPED fpdu new_field' "$ws_tmp/out"; then
	echo "FAIL: self-test: an unknown decode field went unnoticed"
	n_fail=$((n_fail + 1))
else
	echo "ok: self-test: an unknown decode field fails the comparison"
fi

# 4. precedence over the built-in iWARP dissectors
BUILTIN='iwarp_mpa.req || iwarp_mpa.rep || iwarp_mpa.fpdu || iwarp_ddp || iwarp_rdma'
for f in "$ws_tmp/s.pcap" "$vec/siw-rping-mpa2-p2p-writertr.pcap"; do
	ws_in "$f"
	b=$(ws_ts "$ws_tmp/in.pcap" -Y "$BUILTIN" 2>/dev/null | wc -l)
	o=$(ws_ts "$ws_tmp/in.pcap" -Y iwcm_mpa 2>/dev/null | wc -l)
	d=$(ws_ts "$ws_tmp/in.pcap" --disable-protocol iwcm_mpa \
		-Y "$BUILTIN" 2>/dev/null | wc -l)
	n=$((n + 1))
	if [ "$b" -ne 0 ] || [ "$o" -eq 0 ] || [ "$d" -eq 0 ]; then
		echo "FAIL: precedence on ${f##*/}: built-in $b packets, plugin $o, built-in with the plugin disabled $d"
		n_fail=$((n_fail + 1))
	else
		echo "ok: precedence on ${f##*/}: plugin $o packets, built-in 0 (with the plugin disabled: $d)"
	fi
done

# 5. a bad CRC32c is an error on its FPDU only, the one decode calls bad
"$IWCMCTL" sample --corrupt 5 -o "$ws_tmp/s.pcap"
want=$("$IWCMCTL" decode -j "$ws_tmp/s.pcap" | awk '/"crc":"bad"/ {
	match($0, /"rdmap":\{"rv":[0-9]+,"rsvd":[0-9]+,"opcode":[0-9]+/)
	s = substr($0, RSTART, RLENGTH); sub(/.*:/, "", s); print "2", s }')
ws_in "$ws_tmp/s.pcap"
got=$(ws_ts "$ws_tmp/in.pcap" -Y iwarp_mpa.crc.bad -T fields \
	-e iwarp_mpa.crc.status -e rdmap.opcode 2>/dev/null | tr '\t' ' ')
n=$((n + 1))
if [ -z "$want" ] || [ "$got" != "$want" ]; then
	echo "FAIL: bad CRC expert info: got '$got', want '$want'"
	n_fail=$((n_fail + 1))
else
	echo "ok: the corrupted FPDU has the bad CRC expert info, nothing else has"
fi

# 6. every field and expert info of the plugin is in wireshark-iwcm(7)
sed -n 's/.*{ &[a-z_0-9]*, { \("[^"]*", \)\{0,1\}"\([a-z_0-9.]*\)", \(FT_\|PI_\).*/\2/p' \
	"$top_srcdir"/wireshark/ws_*.c | sort -u >"$ws_tmp/fields"
sed -n 's/^\.B[R]\{0,1\} \([a-z_0-9.]*\).*/\1/p' \
	"$top_srcdir/wireshark/wireshark-iwcm.7" | sort -u >"$ws_tmp/doc"
missing=$(comm -23 "$ws_tmp/fields" "$ws_tmp/doc")
n=$((n + 1))
if [ "$(wc -l <"$ws_tmp/fields")" -lt 100 ] || [ -n "$missing" ]; then
	echo "FAIL: fields not in wireshark-iwcm.7 ($(wc -l <"$ws_tmp/fields") found):" $missing
	n_fail=$((n_fail + 1))
else
	echo "ok: wireshark-iwcm.7 documents all $(wc -l <"$ws_tmp/fields") fields and expert infos"
fi

echo "$n checks, $n_fail failed"
[ "$n_fail" -eq 0 ]
