#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tshark 4.0 conformance of the captures `iwcmctl sample` writes, and
# agreement of `iwcmctl decode -j` with tshark on every CRC.
#
# Over a matrix of samples (markers none/both/one way x CRC on/off x RTR
# write/read/send and Rev 1, client-server, Rev 0, the seed-003 RtR frame,
# small and large MSS, FPDUs spanning TCP segments, Terminate, Swap,
# --corrupt) this asserts for each capture:
#  1. IPv4 and TCP checksums are good in every packet (tshark validates
#     them with -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE) and
#     TCP analysis flags nothing (no retransmission, lost or duplicate
#     segment, window problem).
#  2. The set of expert infos at warning and error severity is exactly the
#     one expected for the case (below), and no _ws.malformed other than
#     the expected one.
#  3. tshark finds the MPA Request and Reply with the flags, Rev and
#     PD_Length we sent.
#  4. tshark finds the FPDUs we sent, in order, per direction, with the
#     same ULPDU_Length, CRC status ("Good CRC32" wherever CRC is on, "Bad
#     CRC32" exactly for the --corrupt FPDU), DDP header (T, L, DV, STag,
#     TO or QN, MSN, MO) and RDMAP version and opcode.  The expected list
#     comes from `iwcmctl sample -v`.
#  5. iwcmctl decode -j reports the same list, all directions, and agrees
#     with tshark on the CRC status of every FPDU tshark decoded; it exits
#     0, or 1 when an FPDU is corrupted.
#
# What tshark 4.0 (Debian 12) can and cannot check, from its dissectors
# (epan/dissectors/packet-iwarp-mpa.c, packet-iwarp-ddp-rdmap.c) and
# from experiment:
#  - It knows RFC 5044 only.  A Request with Rev other than 1 gets the
#    warning "Rev field is NOT set to one" (the Reply is not checked), and
#    the S bit (0x10) is inside its Res mask (0x1F), so a Request with S
#    (RFC 6581 enhanced frames, seed-003 RtR announcement) gets "Res field
#    is NOT set to zero".  The enhanced word (A/B/C/D, IRD/ORD) is shown as
#    plain private data: the decoder test (decode_sample.sh) covers it.
#  - The CRC field is FT_UINT32 whose value is the wire CRC either way;
#    good or bad is only in its label, so the PDML showname is read.
#  - Markers: positions are taken from the TCP sequence number of each
#    side's first FPDU, so the sample must start full operation at a
#    segment boundary (it does).  As soon as either frame has M=1, 4.0
#    expects markers from both sides (get_state_of_first_fpdu marks both
#    valid): with markers one way only, it rejects most FPDUs of the other
#    direction and misreads a few.  That direction is not compared.
#  - The seed-003 "MPA ID RtR Frame" is unknown to it: it dissects the
#    frame as an FPDU with ULPDU_Length 0x4d50 (19792) and reports
#    "Malformed Packet" (expected error, the bogus FPDU is dropped before
#    comparing); the FPDUs that follow decode.  With markers it anchors
#    the initiator's marker positions at the RtR frame, 20 octets early,
#    and shows invented zero-length FPDUs with "Bad CRC32" there: the
#    initiator's FPDUs are not compared (the decoder's still are).
#  - Immediate Data (opcodes 8 and 9) is "Unknown 8/9" and the draft's
#    Swap is an unnamed AOpCode, but their DDP/RDMAP fields decode.
#  - Its RPC-over-RDMA heuristic throws on a zero-length Send (the Send
#    RTR): "Malformed Packet" in RPCoRDMA.  The sample carries no RPC or
#    SMB Direct, so the ULP heuristics rpcrdma_iwarp and smb_direct_iwarp
#    are disabled; one case keeps them and expects exactly that error.
#
# Needs tshark 4.0 ($TSHARK from configure): SKIP (77) without it or with
# another version, whose expert infos and heuristics differ.
set -u

if [ -z "${TSHARK:-}" ]; then
	echo "SKIP: tshark not found"
	exit 77
fi
ver=$("$TSHARK" --version 2>/dev/null |
	sed -n '1s/^TShark (Wireshark) \([0-9]*\.[0-9]*\)\..*/\1/p')
if [ "$ver" != "4.0" ]; then
	echo "SKIP: expectations are for tshark 4.0, found '${ver:-unknown}'"
	exit 77
fi

. "$srcdir/conformance/lib.sh"
. "$srcdir/tshark_opts.sh"
conf_init

# tshark with a private, empty profile so user preferences cannot matter.
mkdir -p "$tmp/ws"
WIRESHARK_CONFIG_DIR=$tmp/ws
export WIRESHARK_CONFIG_DIR

INIT_PORT=49152		# the sample's initiator port (cli/sample.h), or port=

RES='warn IWARP_MPA Res field is NOT set to zero as required by RFC 5044'
REV='warn IWARP_MPA Rev field is NOT set to one as required by RFC 5044'
MAL_MPA='error IWARP_MPA Malformed Packet (Exception occurred)'
MAL_RPC='error RPCoRDMA Malformed Packet (Exception occurred)'

# ts_run FILE HEUR: PDML and the warning/error expert summary of FILE.
ts_run() {
	if [ "$2" = heur ]; then
		set -- "$1"
	else
		set -- "$1" --disable-heuristic rpcrdma_iwarp \
			--disable-heuristic smb_direct_iwarp
	fi
	_f=$1
	shift
	# shellcheck disable=SC2086  # options, split (tshark_opts.sh)
	"$TSHARK" -n -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE \
		$TSHARK_MPA_OPTS "$@" -r "$_f" -T pdml -z expert,warn \
		2>"$_f.tserr"
}

# ts_parse FILE: split ts_run's output into FILE.ts (frames and FPDUs,
# the sample_fpdus format), FILE.ex (expert set) and FILE.cnt (counters).
ts_parse() {
	awk -v port="$INIT_PORT" -v out="$1" '
	function attr(name,   s) {
		if (!match($0, " " name "=\"[^\"]*\""))
			return ""
		s = substr($0, RSTART + length(name) + 3)
		return substr(s, 1, index(s, "\"") - 1)
	}
	function hex(v) {
		sub(/^0x/, "", v)
		sub(/^0+/, "", v)
		return v == "" ? "0" : tolower(v)
	}
	function hexnum(s,   v, i, h) {
		h = "0123456789abcdef"
		s = tolower(s)
		sub(/^0x/, "", s)
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index(h, substr(s, i, 1)) - 1
		return v
	}
	function flush() {
		if (!have)
			return
		if (t == "1")
			ddp = "T/" dv "/" stag "/" to "/" l
		else if (t == "0")
			ddp = "U/" dv "/" qn "/" msn "/" mo "/" l
		else
			ddp = "-"
		print dir, len, crc, ddp, (op == "" ? "-" : rv "/" op) > ts
		have = 0
	}
	function field(n) {
		return index($0, "<field name=\"" n "\"")
	}
	BEGIN {
		ts = out ".ts"
		ex = out ".ex"
		printf "" > ts
		printf "" > ex
	}
	/^<packet>/ {
		flush()
		pkts++
		sport = ""
		bad = 0
	}
	/^<\/packet>/ {
		flush()
		malformed += bad
	}
	field("ip.checksum.status") { if (attr("show") == "1") ipok++ }
	field("tcp.checksum.status") { if (attr("show") == "1") tcpok++ }
	field("tcp.analysis.flags") { analysis++ }
	/<proto name="_ws.malformed"/ { bad = 1 }
	field("tcp.srcport") { sport = attr("show") }
	field("iwarp_mpa.req") { fdir = "i2r"; fkind = "Request" }
	field("iwarp_mpa.rep") { fdir = "r2i"; fkind = "Reply" }
	field("iwarp_mpa.marker_flag") { fm = attr("show") }
	field("iwarp_mpa.crc_flag") { fc = attr("show") }
	field("iwarp_mpa.rej_flag") { fr = attr("show") }
	field("iwarp_mpa.res") { fres = hexnum(attr("value")) }
	field("iwarp_mpa.rev") { frev = attr("show") }
	field("iwarp_mpa.pdlength") {
		printf "frame %s 0x%x %s %s %s\n", fdir,
		    fm * 128 + fc * 64 + fr * 32 + fres, frev,
		    attr("show"), fkind > ts
	}
	field("iwarp_mpa.ulpdulength") {
		flush()
		have = 1
		dir = sport == port ? "i2r" : "r2i"
		len = attr("show")
		crc = "none"
		t = l = dv = stag = to = qn = msn = mo = rv = op = ""
	}
	field("iwarp_mpa.crc_check") {
		s = attr("showname")
		crc = s ~ /Good CRC32/ ? "good" : s ~ /Bad CRC32/ ? "bad" : "?"
	}
	field("iwarp_mpa.crc") { crc = "off" }
	field("iwarp_ddp.tagged_flag") { t = attr("show") }
	field("iwarp_ddp.last_flag") { l = attr("show") }
	field("iwarp_ddp.dv") { dv = attr("show") }
	field("iwarp_ddp.stag") { stag = hex(attr("value")) }
	field("iwarp_ddp.tagged_offset") { to = hex(attr("value")) }
	field("iwarp_ddp.qn") { qn = attr("show") }
	field("iwarp_ddp.msn") { msn = attr("show") }
	field("iwarp_ddp.mo") { mo = attr("show") }
	field("iwarp_rdma.version") { rv = attr("show") }
	field("iwarp_rdma.opcode") { op = hex(attr("show")) }
	/^<\/pdml>/ { flush(); sev = "" }
	/^Errors \(/ { sev = "error" }
	/^Warns \(/ { sev = "warn" }
	/^(Notes|Chats|Comments) \(/ { sev = "" }
	sev != "" && $1 ~ /^[0-9]+$/ && NF >= 4 {
		s = $4
		for (i = 5; i <= NF; i++)
			s = s " " $i
		print sev, $3, s > ex
	}
	END {
		flush()
		printf "%d %d %d %d %d\n", pkts, ipok, tcpok, analysis,
		    malformed > (out ".cnt")
	}'
	sort -u "$1.ex" -o "$1.ex"
}

# sample_frames OPTIONS...: the startup frames of a sample, from its raw
# octets (--hex), in the ts_parse format: frame DIR FLAGS REV PD_LENGTH KIND
sample_frames() {
	"$IWCMCTL" sample --hex "$@" | awk '
	function hex(s,   v, i, h) {
		h = "0123456789abcdef"
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index(h, substr(s, i, 1)) - 1
		return v
	}
	function flush() {
		if (kind != "" && n >= 20)
			printf "frame %s 0x%x %d %d %s\n", dir, hex(b[16]),
			    hex(b[17]), hex(b[18]) * 256 + hex(b[19]), kind
		kind = ""
		n = 0
	}
	/^#/ {
		flush()
		if ($2 == "MPA")
			kind = $3
		next
	}
	/^[<>]/ {
		dir = $1 == ">" ? "i2r" : "r2i"
		for (i = 2; i <= NF; i++)
			b[n++] = $i
	}
	END { flush() }'
}

# tcase NAME "SAMPLE OPTIONS" "EXPERT KEYS" [WORD...]
#   EXPERT KEYS: the exact warning/error set, from RES REV MAL_MPA MAL_RPC
#   skip=DIR      tshark 4.0 cannot follow DIR (i2r or r2i): not compared,
#                 but it may not show a bad CRC there either
#   misframed=DIR tshark 4.0 misframes DIR: not compared at all
#   bogus=DIR:LEN one FPDU of ULPDU_Length LEN in DIR is tshark's invention
#   heur          keep tshark's RPC-over-RDMA and SMB Direct heuristics
#   port=N        the initiator on TCP port N (--initiator-port)
tcase() {
	_n=$1 _o=$2 _k=$3
	shift 3
	_skip=- _misframed=- _bogus=- _heur=
	INIT_PORT=49152
	for _w; do
		case $_w in
		port=*)
			INIT_PORT=${_w#port=}
			_o="$_o --initiator-port $INIT_PORT"
			;;
		skip=*) _skip=${_w#skip=} ;;
		misframed=*) _misframed=${_w#misframed=} ;;
		bogus=*) _bogus=${_w#bogus=} ;;
		heur) _heur=heur ;;
		*) fail "$_n: bad tcase word $_w"; return 0 ;;
		esac
	done
	_f=$tmp/$_n.pcap
	# shellcheck disable=SC2086
	sample_gen "$_f" $_o || return 0

	if ! ts_run "$_f" "$_heur" > "$_f.pdml"; then
		fail "$_n: tshark failed"
		sed 's/^/    /' "$_f.tserr"
		return 0
	fi
	ts_parse "$_f" < "$_f.pdml"

	# 1. checksums and TCP analysis.
	read -r _pk _ip _tcp _an _mal < "$_f.cnt"
	check "$_n: IPv4 checksums ($_ip of $_pk good)" [ "$_ip" -eq "$_pk" ]
	check "$_n: TCP checksums ($_tcp of $_pk good)" [ "$_tcp" -eq "$_pk" ]
	check "$_n: TCP analysis flags ($_an)" [ "$_an" -eq 0 ]

	# 2. the exact expert set, and malformed packets.
	: > "$_f.exexp"
	_nmal=0
	for _key in $_k; do
		eval "echo \"\$$_key\"" >> "$_f.exexp"
		case $_key in MAL_*) _nmal=$((_nmal + 1)) ;; esac
	done
	sort -u "$_f.exexp" -o "$_f.exexp"
	same "$_n: expert infos (warn, error)" "$_f.exexp" "$_f.ex"
	check "$_n: _ws.malformed $_mal, expected $_nmal" \
		[ "$_mal" -eq "$_nmal" ]

	# 3. startup frames (not the RtR frame, unknown to tshark).
	# shellcheck disable=SC2086
	sample_frames $_o | grep -v ' RtR$' > "$_f.frexp"
	grep '^frame ' "$_f.ts" > "$_f.frgot"
	same "$_n: MPA Request and Reply" "$_f.frexp" "$_f.frgot"

	# 4. FPDUs per direction.
	sample_fpdus "$_f" > "$_f.exp"
	grep -v '^frame ' "$_f.ts" > "$_f.got"
	if [ "$_bogus" != - ]; then
		_bd=${_bogus%%:*} _bl=${_bogus#*:}
		_nb=$(awk -v d="$_bd" -v l="$_bl" '$1 == d && $2 == l' \
			"$_f.got" | wc -l)
		check "$_n: one bogus $_bd FPDU of length $_bl ($_nb)" \
			[ "$_nb" -eq 1 ]
		awk -v d="$_bd" -v l="$_bl" '!($1 == d && $2 == l)' \
			"$_f.got" > "$_f.got2"
		mv "$_f.got2" "$_f.got"
	fi
	for _d in i2r r2i; do
		only_dir $_d < "$_f.exp" > "$_f.exp.$_d"
		only_dir $_d < "$_f.got" > "$_f.got.$_d"
		[ "$_d" = "$_misframed" ] && continue
		if [ "$_d" = "$_skip" ]; then
			# Not comparable; still, no bad CRC may be invented.
			check "$_n: $_d: no bad CRC in tshark's partial view" \
				sh -c "! grep -q ' bad ' '$_f.got.$_d' || \
				grep -q ' bad ' '$_f.exp.$_d'"
			continue
		fi
		check "$_n: $_d: FPDUs sent" [ -s "$_f.exp.$_d" ]
		same "$_n: $_d: tshark FPDUs" "$_f.exp.$_d" "$_f.got.$_d"
	done

	# 5. iwcmctl decode: the same list, and the same CRC as tshark.
	"$IWCMCTL" decode -j "$_f" > /dev/null 2>"$_f.decerr"
	_rc=$?
	_want=0
	grep -q ' bad ' "$_f.exp" && _want=1
	check "$_n: decode exit status $_rc, expected $_want" \
		[ "$_rc" -eq "$_want" ]
	decode_fpdus "$_f" 2>/dev/null > "$_f.dec"
	same "$_n: decode FPDUs" "$_f.exp" "$_f.dec"
	for _d in i2r r2i; do
		[ "$_d" = "$_skip" ] || [ "$_d" = "$_misframed" ] && continue
		cut -d' ' -f1-3 "$_f.got.$_d" > "$_f.tcrc"
		only_dir $_d < "$_f.dec" | cut -d' ' -f1-3 > "$_f.dcrc"
		same "$_n: $_d: decode and tshark CRC" "$_f.tcrc" "$_f.dcrc"
	done
	echo "ok $_n: $(wc -l < "$_f.exp") FPDUs"
}

# The matrix: markers x CRC x (RTR write/read/send at Rev 2, Rev 1).
for m in none both i2r r2i; do
	case $m in
	none) mo= skip= ;;
	both) mo=--markers skip= ;;
	i2r) mo=--markers-i2r skip=skip=r2i ;;
	r2i) mo=--markers-r2i skip=skip=i2r ;;
	esac
	for c in crc nocrc; do
		co=
		[ $c = nocrc ] && co=--no-crc
		for r in write read send; do
			# shellcheck disable=SC2086
			tcase "m-$m-$c-rtr-$r" "$mo $co --rtr $r" "RES REV" \
				$skip
		done
		# shellcheck disable=SC2086
		tcase "m-$m-$c-rev1" "$mo $co --rev 1" "" $skip
	done
done

tcase client-server "--client-server" "RES REV"
tcase client-server-markers "--client-server --markers" "RES REV"
tcase rev0 "--rev0" "REV"
tcase rev0-mss536 "--rev0 --mss 536" "REV"
tcase rtr-frame "--rtr-frame" "RES MAL_MPA" bogus=i2r:19792
tcase rtr-frame-nocrc "--rtr-frame --no-crc" "RES MAL_MPA" bogus=i2r:19792
tcase rtr-frame-markers "--rtr-frame --markers" "RES" misframed=i2r
tcase rtr-send-heuristics "--rtr send" "RES REV MAL_RPC" heur
tcase mss128 "--mss 128" "RES REV"
tcase mss128-markers "--mss 128 --markers" "RES REV"
tcase mss536-markers "--mss 536 --markers" "RES REV"
tcase mss9000-markers "--mss 9000 --markers" "RES REV"
tcase mss65495-markers "--mss 65495 --markers" "RES REV"
tcase no-ddp-seg "--no-ddp-seg" "RES REV"
tcase no-ddp-seg-markers "--no-ddp-seg --markers --mss 536" "RES REV"
tcase terminate "--terminate --markers" "RES REV"
tcase swap-terminate "--swap --terminate --mss 300 --markers" "RES REV"
tcase corrupt-first "--corrupt 0" "RES REV"
tcase corrupt-markers "--corrupt 5 --markers" "RES REV"
tcase corrupt-last "--rev 1 --corrupt 15 --mss 300 --markers" ""
# the initiator on 48898, AMS's registered port: tshark must still find
# MPA (TSHARK_MPA_OPTS, tests/tshark_opts.sh)
tcase ams-port "" "RES REV" port=48898

conf_done
