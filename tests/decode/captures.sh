#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl decode -j over the Linux siw captures: the MPA frames, the
# negotiated state and every FPDU (stream offset, ULPDU_Length, opcode)
# against values read off the captures by an independent decoder.
. "$srcdir/decode/lib.sh"

# fpdu_seq CONN DIR < json: "offset:ulpdu_length:opcode ..." of one direction
fpdu_seq() {
	lines fpdu "\"conn\":$1," "\"dir\":\"$2\"" | awk '
	function field(k,    i, s) {
		i = index($0, "\"" k "\":")
		s = substr($0, i + length(k) + 3)
		match(s, /^[0-9]*/)
		return substr(s, 1, RLENGTH)
	}
	{
		printf "%s%s:%s:%s", (NR > 1 ? " " : ""), field("offset"),
		    field("ulpdu_length"), field("opcode")
	}
	END { print "" }'
}

# ---- siw-rping-mpa2-p2p-writertr: RFC 6581 peer-to-peer, Write RTR ----
J=$T/p2p.json
rc=$(decode_rc "$J" -j "$CAPS/siw-rping-mpa2-p2p-writertr.pcap")
is "p2p: exit status" "$rc" 0
check "p2p: nothing on stderr" test ! -s "$J.err"
check "p2p: every line is a JSON object" json_valid "$J"
is "p2p: one connection" "$(lines conn <"$J" | count)" 1
is "p2p: endpoints" "$(lines conn <"$J" | jval a) $(lines conn <"$J" | jval b)" \
	"10.0.2.15:57829 10.0.2.15:7174"

REQ=$(lines frame '"frame":"request"' <"$J")
REP=$(lines frame '"frame":"reply"' <"$J")
is "p2p: Request from the initiator" "$(echo "$REQ" | jval dir)" i2r
is "p2p: Request key" "$(echo "$REQ" | jval key)" "MPA ID Req Frame"
is "p2p: Request Rev" "$(echo "$REQ" | jval rev)" 2
is "p2p: Request M C R S" "$(echo "$REQ" | jval m)$(echo "$REQ" | jval c)$(echo "$REQ" | jval r)$(echo "$REQ" | jval s)" 0001
is "p2p: Request PD_Length" "$(echo "$REQ" | jval pd_length)" 4
is "p2p: Request enhanced" "$(echo "$REQ" | jval enhanced)" true
is "p2p: Request IRD/ORD word and flags" "$(echo "$REQ" | jobj enh)" \
	'{"word":"0x8001c001","a":1,"b":0,"c":1,"d":1,"ird":1,"ord":1}'
is "p2p: Reply from the responder" "$(echo "$REP" | jval dir)" r2i
is "p2p: Reply key" "$(echo "$REP" | jval key)" "MPA ID Rep Frame"
is "p2p: Reply IRD/ORD word and flags (Write chosen)" \
	"$(echo "$REP" | jobj enh)" \
	'{"word":"0x80018001","a":1,"b":0,"c":1,"d":0,"ird":1,"ord":1}'
is "p2p: Reply not rejected" "$(echo "$REP" | jval r)" 0

NEG=$(lines negotiated <"$J")
is "p2p: initiator" "$(echo "$NEG" | jval initiator)" 10.0.2.15:57829
is "p2p: peer-to-peer" "$(echo "$NEG" | jval p2p)" true
is "p2p: enhanced" "$(echo "$NEG" | jval enhanced)" true
is "p2p: CRC off" "$(echo "$NEG" | jval crc)" off
is "p2p: no markers" "$(echo "$NEG" | jval markers_i2r) $(echo "$NEG" | jval markers_r2i)" "false false"
is "p2p: RTR offered" "$(echo "$NEG" | jarr rtr_offered)" '["write","read"]'
is "p2p: RTR allowed" "$(echo "$NEG" | jarr rtr_allowed)" '["write"]'
is "p2p: DDP/RDMAP version" "$(echo "$NEG" | jval version)" 1

is "p2p: 10 FPDUs initiator to responder" \
	"$(lines fpdu '"dir":"i2r"' <"$J" | count)" 10
is "p2p: 12 FPDUs responder to initiator" \
	"$(lines fpdu '"dir":"r2i"' <"$J" | count)" 12
RTR=$(lines fpdu '"dir":"i2r"' '"index":1,' <"$J")
is "p2p: first i2r FPDU is the RTR" "$(echo "$RTR" | jval rtr)" write
is "p2p: RTR ULPDU_Length" "$(echo "$RTR" | jval ulpdu_length)" 14
is "p2p: RTR is tagged" "$(echo "$RTR" | jobj ddp | jval t)" 1
is "p2p: RTR STag" "$(echo "$RTR" | jval stag)" 0x00000001
is "p2p: RTR TO" "$(echo "$RTR" | jval to)" 0x0000000000000000
is "p2p: RTR opcode" "$(echo "$RTR" | jobj rdmap | jval name)" "RDMA Write"
is "p2p: RTR zero-length" "$(echo "$RTR" | jval payload_length)" 0
is "p2p: RTR without problems" "$(echo "$RTR" | jval rtr_problem)" ""
is "p2p: only one RTR mark" "$(grep -c '"rtr":' "$J")" 1
is "p2p: every FPDU CRC off" "$(lines fpdu '"crc":"off"' <"$J" | count)" 22
is "p2p: CRC field zero" "$(lines fpdu '"crc_wire":"0x00000000"' <"$J" | count)" 22
is "p2p: no bad FPDU" "$(lines fpdu '"bad":true' <"$J" | count)" 0
is "p2p: i2r offsets, lengths, opcodes" "$(fpdu_seq 1 i2r <"$J")" \
	"0:14:0 20:34:3 60:78:2 144:34:3 184:34:3 224:78:2 308:34:3 348:34:3 388:78:2 472:34:3"
is "p2p: r2i offsets, lengths, opcodes" "$(fpdu_seq 1 r2i <"$J")" \
	"0:46:1 52:34:3 92:78:0 176:34:3 216:46:1 268:34:3 308:78:0 392:34:3 432:46:1 484:34:3 524:78:0 608:34:3"
RR=$(lines fpdu '"dir":"r2i"' '"index":1,' <"$J")
is "p2p: Read Request fields" "$(echo "$RR" | jobj read_req)" \
	'{"sink_stag":"0x48a3f500","sink_to":"0x000055caf5b72550","size":64,"src_stag":"0x6a610000","src_to":"0x000055e2a7dfd370"}'
is "p2p: Read Request QN/MSN" "$(echo "$RR" | jval qn)/$(echo "$RR" | jval msn)" 1/1
RESP=$(lines fpdu '"dir":"i2r"' '"index":3,' <"$J")
is "p2p: Read Response payload (first 32 octets)" "$(echo "$RESP" | jval payload)" \
	72646d612d70696e672d303a204142434445464748494a4b4c4d4e4f50515253
is "p2p: Read Response payload cut" "$(echo "$RESP" | jval payload_truncated)" true
SUM=$(lines summary <"$J")
is "p2p: summary counts" \
	"$(echo "$SUM" | jval frames) $(echo "$SUM" | jval fpdus) $(echo "$SUM" | jval crc_bad) $(echo "$SUM" | jval malformed) $(echo "$SUM" | jval errors) $(echo "$SUM" | jval exit)" \
	"2 22 0 0 0 0"
is "p2p: conn_end counts" "$(lines conn_end <"$J" | jobj fpdus)" \
	'{"i2r":10,"r2i":12}'

# ---- siw-readbw-mpa1-crc: Rev 1, CRC on, two connections ----
J=$T/crc.json
rc=$(decode_rc "$J" -j "$CAPS/siw-readbw-mpa1-crc.pcap")
is "crc: exit status" "$rc" 0
check "crc: every line is a JSON object" json_valid "$J"
is "crc: two connections" "$(lines conn <"$J" | count)" 2
is "crc: Rev 1 frames" "$(lines frame '"rev":1,' <"$J" | count)" 4
is "crc: C=1 in every frame" "$(lines frame '"c":1,' <"$J" | count)" 4
is "crc: no enhanced data" "$(lines frame '"enhanced":false' <"$J" | count)" 4
is "crc: CRC negotiated on" "$(lines negotiated '"crc":"on"' <"$J" | count)" 2
is "crc: 42 FPDUs" "$(lines fpdu <"$J" | count)" 42
is "crc: every FPDU CRC good" "$(lines fpdu '"crc":"good"' <"$J" | count)" 42
is "crc: first CRC (wire 47 a2 28 f1)" \
	"$(lines fpdu '"conn":1,' '"dir":"i2r"' '"index":1,' <"$J" | jval crc_wire)" \
	0xf128a247
is "crc: conn 1 i2r" "$(fpdu_seq 1 i2r <"$J")" \
	"0:34:3 40:22:3 68:22:3 96:20:3 124:74:3 204:74:3 284:74:3 364:74:3 444:74:3 524:74:3 604:26:3 636:26:3 668:26:3 700:26:3 732:26:3 764:74:3"
is "crc: conn 1 r2i" "$(fpdu_seq 1 r2i <"$J")" \
	"0:34:3 40:22:3 68:22:3 96:20:3 124:74:3 204:74:3 284:74:3 364:74:3 444:74:3 524:74:3 604:26:3 636:26:3 668:26:3 700:26:3 732:26:3 764:74:3"
is "crc: conn 2 i2r (Read Requests)" "$(fpdu_seq 2 i2r <"$J")" \
	"0:46:1 52:46:1 104:46:1 156:46:1 208:46:1"
is "crc: conn 2 r2i (Read Responses)" "$(fpdu_seq 2 r2i <"$J")" \
	"0:78:2 84:78:2 168:78:2 252:78:2 336:78:2"
is "crc: Read Request sink TOs" \
	"$(lines fpdu '"conn":2,' '"dir":"i2r"' <"$J" | jval sink_to | tr '\n' ' ')" \
	"0x000055ab0904f000 0x000055ab0904f040 0x000055ab0904f080 0x000055ab0904f0c0 0x000055ab0904f100 "
is "crc: Read Request MSNs" \
	"$(lines fpdu '"conn":2,' '"dir":"i2r"' <"$J" | jval msn | tr '\n' ' ')" \
	"1 2 3 4 5 "
is "crc: Read Responses to the sink STag" \
	"$(lines fpdu '"conn":2,' '"dir":"r2i"' '"stag":"0x45dc8a00"' <"$J" | count)" 5
is "crc: pad of a 20-octet ULPDU" \
	"$(lines fpdu '"conn":1,' '"dir":"i2r"' '"index":4,' <"$J" | jval pad)" 2
is "crc: no RTR marks without p2p" "$(grep -c '"rtr":' "$J")" 0

# ---- siw-rping-default: Rev 2 enhanced, client-server ----
J=$T/def.json
rc=$(decode_rc "$J" -j "$CAPS/siw-rping-default.pcap")
is "default: exit status" "$rc" 0
is "default: IRD/ORD word" "$(lines frame '"frame":"request"' <"$J" | jobj enh)" \
	'{"word":"0x00010001","a":0,"b":0,"c":0,"d":0,"ird":1,"ord":1}'
is "default: client-server" "$(lines negotiated <"$J" | jval p2p)" false
is "default: FPDUs i2r" "$(fpdu_seq 1 i2r <"$J")" \
	"0:34:3 40:78:2 124:34:3 164:34:3 204:78:2 288:34:3 328:34:3 368:78:2 452:34:3"
is "default: FPDUs r2i" "$(fpdu_seq 1 r2i <"$J")" \
	"0:46:1 52:34:3 92:78:0 176:34:3 216:46:1 268:34:3 308:78:0 392:34:3 432:46:1 484:34:3 524:78:0 608:34:3"
is "default: no RTR" "$(grep -c '"rtr":' "$J")" 0

# ---- siw-rping-mpa1: Rev 1, one Send ----
J=$T/mpa1.json
rc=$(decode_rc "$J" -j "$CAPS/siw-rping-mpa1.pcap")
is "mpa1: exit status" "$rc" 0
is "mpa1: Rev 1 both ways" "$(lines negotiated <"$J" | jval rev_request)/$(lines negotiated <"$J" | jval rev_reply)" 1/1
is "mpa1: one FPDU" "$(fpdu_seq 1 i2r <"$J")|$(fpdu_seq 1 r2i <"$J")" "0:34:3|"
S1=$(lines fpdu <"$J")
is "mpa1: Send QN/MSN/MO" "$(echo "$S1" | jval qn)/$(echo "$S1" | jval msn)/$(echo "$S1" | jval mo)" 0/1/0
is "mpa1: Send payload" "$(echo "$S1" | jval payload)" 000055880205637038cbdf0000000040

# ---- text output ----
T1=$T/p2p.txt
rc=$(decode_rc "$T1" "$CAPS/siw-rping-mpa2-p2p-writertr.pcap")
is "text: exit status" "$rc" 0
check "text: the enhanced word" grep -q 'enhanced 0x8001c001: A=1 B=0 C=1 D=1 IRD=1 ORD=1' "$T1"
check "text: the RTR" grep -q '^    RTR write$' "$T1"
check "text: one block per FPDU" test "$(grep -c ': FPDU ' "$T1")" -eq 22
check "text: summary line" grep -q '^summary: .* 22 FPDUs; 0 CRC bad, 0 marker bad, 0 malformed, 0 other errors$' "$T1"
rc=$(decode_rc "$T1" -v "$CAPS/siw-rping-mpa1.pcap")
is "text -v: exit status" "$rc" 0
check "text -v: raw FPDU dump" grep -q '^      0010  00 00 00 00 00 00 55 88 02 05 63 70 38 cb df 00$' "$T1"
rc=$(decode_rc "$T1" -j -v "$CAPS/siw-rping-mpa2-p2p-writertr.pcap")
is "json -v: whole payload" \
	"$(lines fpdu '"dir":"i2r"' '"index":3,' <"$T1" | jval payload)" \
	72646d612d70696e672d303a204142434445464748494a4b4c4d4e4f505152535455565758595a5b5c5d5e5f606162636465666768696a6b6c6d6e6f70717200
is "json -v: raw wire octets" \
	"$(lines fpdu '"dir":"i2r"' '"index":1,' <"$T1" | jval wire)" \
	000ec14000000001000000000000000000000000

done_testing
