#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Acceptance test of iwcmctl decode on iwcmctl sample captures:
#
#   "iwcmctl decode -j on a capture of an MPA v2 peer-to-peer session
#   shows the IRD/ORD and A/B/C/D values of both frames, the RTR
#   operation, and CRC status per FPDU; flipping one payload byte
#   (--corrupt N) makes exactly that FPDU report a bad CRC; marker
#   positions are checked when markers are on."
#
# The expected values are the sample's (cli/sample.c): the initiator
# offers A=1, Write and Read RTR (C=1, D=1), IRD/ORD 16/16; the responder
# answers A=1, C=1 (Write), IRD/ORD 16/8 (RFC 6581 §9.1 within its limits
# 16/8); --rtr read offers D only, --rtr send B only; --client-server
# sends A=0 and no RTR.  Per-FPDU expectations come from iwcmctl sample -v.
# The JSON field names are those of iwcmctl(8).  Needs no tshark.
set -u

. "$srcdir/conformance/lib.sh"
conf_init

# jlines FILE TYPE: the JSON lines of one type.
jlines() {
	grep "\"type\":\"$2\"" "$1"
}

# enh FILE FRAME: "A B C D IRD ORD" of the request or reply frame.
enh() {
	jlines "$1" frame | grep "\"frame\":\"$2\"" | awk "$JAWK"'
	{
		e = jobj($0, "enh")
		print jget(e, "a"), jget(e, "b"), jget(e, "c"), jget(e, "d"),
		    jget(e, "ird"), jget(e, "ord")
	}'
}

# field FILE TYPE KEY: KEY of the first line of TYPE.
field() {
	jlines "$1" "$2" | head -1 | awk "$JAWK"'{ print jget($0, k) }' \
		k="$3"
}

# rtrs FILE: "DIR INDEX RTR" of every FPDU that carries an "rtr" field.
rtrs() {
	jlines "$1" fpdu | awk "$JAWK"'
	jget($0, "rtr") != "" {
		print jget($0, "dir"), jget($0, "index"), jget($0, "rtr")
	}'
}

# decode FILE [decode options]: FILE.json and FILE.rc.
decode() {
	_df=$1
	shift
	"$IWCMCTL" decode -j "$@" "$_df" > "$_df.json" 2>"$_df.err"
	echo $? > "$_df.rc"
}

# eq NAME EXPECTED GOT
eq() {
	n_checks=$((n_checks + 1))
	[ "$2" = "$3" ] && return 0
	fail "$1: expected '$2', got '$3'"
	return 1
}

# ---- the default session: MPA v2 peer-to-peer, Write RTR, CRC on ----
f=$tmp/p2p.pcap
sample_gen "$f" || conf_done
decode "$f"
eq "p2p: decode exit status" 0 "$(cat "$f.rc")"
eq "p2p: request frame" "request 2 1" "$(jlines "$f.json" frame |
	grep '"frame":"request"' | awk "$JAWK"'{ print jget($0, "frame"),
	jget($0, "rev"), jget($0, "s") }')"
eq "p2p: reply frame" "reply 2 1" "$(jlines "$f.json" frame |
	grep '"frame":"reply"' | awk "$JAWK"'{ print jget($0, "frame"),
	jget($0, "rev"), jget($0, "s") }')"
eq "p2p: request A B C D IRD ORD" "1 0 1 1 16 16" "$(enh "$f.json" request)"
eq "p2p: reply A B C D IRD ORD" "1 0 1 0 16 8" "$(enh "$f.json" reply)"
eq "p2p: negotiated" "true 16 16 16 8 on" "$(jlines "$f.json" negotiated |
	awk "$JAWK"'{ print jget($0, "p2p"), jget($0, "ird_request"),
	jget($0, "ord_request"), jget($0, "ird_reply"),
	jget($0, "ord_reply"), jget($0, "crc") }')"
check "p2p: RTR offered write and read" \
	grep -q '"rtr_offered":\["write","read"\]' "$f.json"
check "p2p: RTR allowed write" grep -q '"rtr_allowed":\["write"\]' "$f.json"
eq "p2p: RTR operation" "i2r 1 write" "$(rtrs "$f.json")"
# The RTR: the initiator's first FPDU, a zero-length Write, STag not 0.
eq "p2p: RTR FPDU" "i2r 14 good T/1/1/0/1 1/0" \
	"$(decode_fpdus "$f" | head -1)"
sample_fpdus "$f" > "$f.exp"
decode_fpdus "$f" > "$f.got"
same "p2p: FPDUs and CRC status" "$f.exp" "$f.got"
eq "p2p: every CRC good" "$(wc -l < "$f.exp")" \
	"$(jlines "$f.json" fpdu | grep -c '"crc":"good"')"
eq "p2p: summary crc_bad" 0 "$(field "$f.json" summary crc_bad)"

# ---- the other RTR types and the client-server model ----
for r in read send; do
	f=$tmp/rtr-$r.pcap
	sample_gen "$f" --rtr $r || continue
	decode "$f"
	eq "rtr $r: decode exit status" 0 "$(cat "$f.rc")"
	case $r in
	read)
		eq "rtr read: request enh" "1 0 0 1 16 16" \
			"$(enh "$f.json" request)"
		eq "rtr read: reply enh" "1 0 0 1 16 8" \
			"$(enh "$f.json" reply)"
		# RFC 6581 §9.2: the Read RTR is answered by a Read Response.
		eq "rtr read: RTR operations" \
			"$(printf 'i2r 1 read\nr2i 1 read-response')" \
			"$(rtrs "$f.json")"
		;;
	send)
		eq "rtr send: request enh" "1 1 0 0 16 16" \
			"$(enh "$f.json" request)"
		eq "rtr send: reply enh" "1 1 0 0 16 8" \
			"$(enh "$f.json" reply)"
		eq "rtr send: RTR operation" "i2r 1 send" "$(rtrs "$f.json")"
		;;
	esac
	sample_fpdus "$f" > "$f.exp"
	decode_fpdus "$f" > "$f.got"
	same "rtr $r: FPDUs" "$f.exp" "$f.got"
done
f=$tmp/cs.pcap
if sample_gen "$f" --client-server; then
	decode "$f"
	eq "client-server: request enh" "0 0 0 0 16 16" \
		"$(enh "$f.json" request)"
	eq "client-server: reply enh" "0 0 0 0 16 8" "$(enh "$f.json" reply)"
	eq "client-server: no RTR" "" "$(rtrs "$f.json")"
fi

# ---- --corrupt N: exactly FPDU N has a bad CRC ----
# corrupt_all NAME OPTIONS: every N of the session, one decode each.
corrupt_all() {
	_cn=$1
	shift
	_cf=$tmp/$_cn.pcap
	sample_gen "$_cf" "$@" || return 0
	_total=$(sample_fpdus "$_cf" | wc -l)
	_k=0
	while [ "$_k" -lt "$_total" ]; do
		_g=$tmp/$_cn-$_k.pcap
		sample_gen "$_g" "$@" --corrupt "$_k" || return 0
		decode "$_g"
		# Direction and per-direction index (from 1) of FPDU k.
		_want=$(awk -v k="$_k" '$1 == "fpdu" {
			n[$3]++
			if ($2 == k)
				print $3, n[$3]
		}' "$_g.lst")
		_got=$(jlines "$_g.json" fpdu | grep '"crc":"bad"' |
			awk "$JAWK"'{ print jget($0, "dir"),
			    jget($0, "index") }')
		eq "$_cn: --corrupt $_k: the bad FPDU" "$_want" "$_got"
		eq "$_cn: --corrupt $_k: good FPDUs" $((_total - 1)) \
			"$(jlines "$_g.json" fpdu | grep -c '"crc":"good"')"
		eq "$_cn: --corrupt $_k: crc_bad" 1 \
			"$(field "$_g.json" summary crc_bad)"
		eq "$_cn: --corrupt $_k: exit status" 1 "$(cat "$_g.rc")"
		_k=$((_k + 1))
	done
	echo "ok $_cn: $_total corrupted FPDUs each found"
}
corrupt_all corrupt
corrupt_all corrupt-markers --markers --mss 536
corrupt_all corrupt-read-rtr --rtr read --markers-r2i --no-ddp-seg

# Without CRC the flip goes unnoticed: nothing is checked.
f=$tmp/nocrc.pcap
if sample_gen "$f" --no-crc --corrupt 3; then
	decode "$f"
	eq "no-crc: exit status" 0 "$(cat "$f.rc")"
	eq "no-crc: every CRC off" "$(sample_fpdus "$f" | wc -l)" \
		"$(jlines "$f.json" fpdu | grep -c '"crc":"off"')"
fi

# ---- markers: every position checked ----
# markers_expected FILE: "DIR INDEX COUNT OFFSETS" per FPDU from the -v
# list: stream offsets run per direction from 0 after the startup frames
# and a marker sits at every multiple of 512 (RFC 5044 §4.3).
markers_expected() {
	awk -v mi="$2" -v mr="$3" '$1 == "fpdu" {
		d = $3
		idx[d]++
		start = off[d]
		off[d] += $5
		m = (d == "i2r") ? mi : mr
		list = ""
		n = 0
		if (m)
			for (p = int((start + 511) / 512) * 512; p < off[d];
			    p += 512) {
				list = list (n ? "," : "") p
				n++
			}
		print d, idx[d], n, (list == "" ? "-" : list)
	}' "$1.lst"
}

# markers_got FILE: the same from the decoder, and whether all were ok.
markers_got() {
	jlines "$1.json" fpdu | awk "$JAWK"'{
		m = $0
		sub(/.*"markers":\{/, "", m)
		sub(/\]\}.*/, "", m)
		list = ""
		n = split(m, part, "\"offset\":")
		for (i = 2; i <= n; i++) {
			v = part[i]
			sub(/[^0-9].*/, "", v)
			list = list (i > 2 ? "," : "") v
		}
		print jget($0, "dir"), jget($0, "index"), jget(m, "count"),
		    (list == "" ? "-" : list)
		if (jget(m, "ok") != "true")
			print "marker not ok:", $0 > "/dev/stderr"
	}'
}

# markers_case NAME MI MR OPTIONS: markers i2r (MI) and r2i (MR) expected.
markers_case() {
	_mn=$1 _mi=$2 _mr=$3
	shift 3
	_mf=$tmp/$_mn.pcap
	sample_gen "$_mf" "$@" || return 0
	decode "$_mf"
	eq "$_mn: exit status" 0 "$(cat "$_mf.rc")"
	markers_expected "$_mf" "$_mi" "$_mr" > "$_mf.mexp"
	markers_got "$_mf" > "$_mf.mgot" 2>"$_mf.mbad"
	same "$_mn: marker counts and positions" "$_mf.mexp" "$_mf.mgot"
	check "$_mn: every marker ok" [ ! -s "$_mf.mbad" ]
	eq "$_mn: marker_bad" 0 "$(field "$_mf.json" summary marker_bad)"
	echo "ok $_mn: $(awk '{ n += $3 } END { print n + 0 }' \
		"$_mf.mexp") markers"
}
markers_case markers 1 1 --markers
markers_case markers-i2r 1 0 --markers-i2r
markers_case markers-r2i 0 1 --markers-r2i
markers_case markers-mss536 1 1 --markers --mss 536
markers_case markers-no-ddp-seg 1 1 --markers --no-ddp-seg --terminate
markers_case markers-rev0 1 1 --rev0
markers_case markers-rtr-frame 1 1 --rtr-frame --markers
markers_case no-markers 0 0

# A marker whose FPDU pointer is wrong is reported on its FPDU.  The
# initiator's marker at stream offset 512 is altered in the --hex text.
f=$tmp/badmarker.hex
if "$IWCMCTL" sample --hex --markers > "$f.orig"; then
	awk '
	function hexval(s,   h) {
		h = "0123456789abcdef"
		return (index(h, substr(s, 1, 1)) - 1) * 16 + \
		    index(h, substr(s, 2, 1)) - 1
	}
	/^#/ { fpdu = ($2 == "FPDU"); print; next }
	/^>/ && fpdu {
		for (i = 2; i <= NF; i++) {
			# Octets 514-515: the FPDU pointer, moved by 4.
			if (off == 515)
				$i = sprintf("%02x", (hexval($i) + 4) % 256)
			off++
		}
	}
	{ print }' "$f.orig" > "$f"
	check "bad marker: hex text altered" sh -c "! cmp -s '$f.orig' '$f'"
	decode "$f" --hex
	eq "bad marker: exit status" 1 "$(cat "$f.rc")"
	eq "bad marker: marker_bad" 1 "$(field "$f.json" summary marker_bad)"
	# The one FPDU reporting it is the one that holds offset 512.
	eq "bad marker: FPDU" "i2r 1" "$(jlines "$f.json" fpdu |
		grep '"ok":false' | awk "$JAWK"'{
		print jget($0, "dir"), (jget($0, "offset") <= 512 &&
		    512 < jget($0, "offset") + jget($0, "wire_length"))
	}')"
fi

conf_done
