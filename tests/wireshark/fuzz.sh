#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Bad input for the Wireshark plugin: tshark with the build tree's
# iwcm.so over mutated captures must neither crash nor hang nor hit a
# dissector bug in the plugin's protocols.  Seeds: the captures of
# vectors/captures/ and `iwcmctl sample` over TCP and SCTP.  Mutations:
# pcap_mutate (flipped bits, random, truncated, shortened, glued and
# spliced TCP and SCTP payloads, MPA keys, damaged SCTP chunks) and
# editcap -E (random errors in whole frames, or past the headers).
# Each tshark run reads FUZZ_BATCH mutants merged into one file (their
# connections collide, which is more damage), builds the whole tree
# (-V) on two passes (-2), under a timeout of FUZZ_TIMEOUT seconds.
# FUZZ_SECONDS (default 10: the make check run) bounds the time; the
# end prints the number of mutants and tshark runs.
# Before the mutants, every capture of wireshark/regress/ (inputs an
# earlier fuzz run failed on, cut to the frames that did it) must pass
# the same checks; they are also seeds.
# SKIP (77) as compare.sh does (no plugin, tshark, ...).
set -u
. "$srcdir/wireshark/lib.sh"
if ! ws_init; then
	echo "SKIP: $ws_skip"
	exit 77
fi
trap ws_cleanup EXIT
trap 'exit 1' HUP INT TERM
MUT=$builddir/pcap_mutate
if [ ! -x "$MUT" ]; then
	echo "FAIL: $MUT is not built"
	exit 99
fi
MERGECAP=${MERGECAP:-$(command -v mergecap || true)}
secs=${FUZZ_SECONDS:-10}
batch=${FUZZ_BATCH:-16}
tmo=${FUZZ_TIMEOUT:-120}
seed=${FUZZ_SEED:-$$}

# seeds
mkdir -p "$ws_tmp/seeds" "$ws_tmp/m"
cp "$top_srcdir"/tests/vectors/captures/*.pcap \
	"$srcdir"/wireshark/regress/*.pcap "$ws_tmp/seeds/"
i=0
for o in "" "--markers --terminate" "--rev0" "--rtr-frame --markers" \
	"--no-ddp-seg --mss 700 --markers-i2r" "--rtr read --swap" \
	"--transport sctp"; do
	# shellcheck disable=SC2086  # options, split
	"$IWCMCTL" sample $o -o "$ws_tmp/seeds/sample$i.pcap" || exit 99
	i=$((i + 1))
done
chmod 644 "$ws_tmp"/seeds/*
set -- "$ws_tmp"/seeds/*.pcap
nseeds=$#
modes="flip random trunc shrink glue keys splice chunks editcap editcap-hdr"

# ws_fuzz_run FILE NAME COPY: tshark's two passes over FILE with each
# SCTP port mapping; a crash, hang or dissector bug counts a failure,
# reported as NAME (FILE is copied there when COPY is 1).
ws_fuzz_run() {
	for opts in "-d udp.port==9899,sctp" "-d udp.port==21150,sctp"; do
		runs=$((runs + 1))
		# shellcheck disable=SC2086  # options, split
		WS_WRAP="timeout $tmo" ws_ts "$1" -2 -V $opts \
			>"$ws_tmp/out" 2>"$ws_tmp/err"
		rc=$?
		bugs=$(grep -c 'Dissector bug\|Malformed Packet: \(MPA\|iWARP DDP\|RDMAP\|DDP/SCTP\)' \
			"$ws_tmp/out")
		if [ "$rc" -ne 0 ] || [ "$bugs" -ne 0 ]; then
			fails=$((fails + 1))
			[ "$3" -eq 0 ] || cp "$1" "$2"
			if [ "$rc" -eq 124 ]; then
				echo "FAIL: tshark hung (over ${tmo}s) on $2"
			elif [ "$rc" -ne 0 ]; then
				echo "FAIL: tshark exit $rc on $2"
			else
				echo "FAIL: $bugs dissector bugs on $2"
			fi
			grep 'Dissector bug\|Malformed Packet: ' "$ws_tmp/out" |
				sort | uniq -c | head -5
			# the sanitizer's report begins with what went wrong
			grep -A3 'runtime error\|ERROR: AddressSanitizer\|Dissector bug' \
				"$ws_tmp/err" | head -8
			tail -3 "$ws_tmp/err"
		fi
	done
}

runs=0
mutants=0
fails=0
round=0
nreg=0
for r in "$srcdir"/wireshark/regress/*.pcap; do
	cp "$r" "$ws_tmp/regress.pcap"
	chmod 644 "$ws_tmp/regress.pcap"
	ws_fuzz_run "$ws_tmp/regress.pcap" "$r" 0
	nreg=$((nreg + 1))
done
echo "fuzz: $nreg regression captures, $fails failures"
start=$(date +%s)
echo "fuzz: seed $seed, $nseeds captures, up to ${secs}s"
while [ $(($(date +%s) - start)) -lt "$secs" ]; do
	round=$((round + 1))
	rm -f "$ws_tmp"/m/*
	j=0
	while [ $j -lt "$batch" ]; do
		s=$((seed + round * 1000 + j))
		set -- "$ws_tmp"/seeds/*.pcap
		shift $((s % nseeds))
		in=$1
		set -- $modes
		shift $((s / nseeds % $#))
		mode=$1
		out=$ws_tmp/m/$j-$mode.pcap
		case $mode in
		editcap*)
			if [ -z "${EDITCAP:-}" ]; then
				"$MUT" flip "$s" "$in" "$out"
			elif [ "$mode" = editcap-hdr ]; then
				# past link, IP and TCP headers of the samples
				"$EDITCAP" --seed "$s" -E 0.05 -o 54 "$in" "$out" \
					>/dev/null 2>&1
			else
				"$EDITCAP" --seed "$s" -E 0.01 "$in" "$out" \
					>/dev/null 2>&1
			fi
			;;
		*) "$MUT" "$mode" "$s" "$in" "$out" ;;
		esac
		j=$((j + 1))
	done
	mutants=$((mutants + batch))
	f=$ws_tmp/batch.pcap
	if [ -n "$MERGECAP" ]; then
		"$MERGECAP" -a -F pcap -w "$f" "$ws_tmp"/m/*.pcap 2>/dev/null ||
			cp "$ws_tmp"/m/0-*.pcap "$f"
	else
		cp "$ws_tmp"/m/0-*.pcap "$f"
	fi
	chmod 644 "$f"
	ws_fuzz_run "$f" "$builddir/wireshark-fuzz-fail-$seed-$round.pcap" 1
done
el=$(($(date +%s) - start))
echo "fuzz: $mutants mutants in $runs tshark runs, ${el}s, $fails failures"
[ "$fails" -eq 0 ]
