#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl decode --hex: the text formats it reads, the same stream split
# anywhere, hand-built FPDUs for the RFC 7306 messages and Terminate,
# the seed-003 RtR frame, a Rev 0 peer, and errors in the text.
. "$srcdir/decode/lib.sh"

# ---- the Linux siw p2p handshake and RTR, as a hexdump with offsets ----
cat >"$T/p2p.hex" <<'EOF'
# siw-rping-mpa2-p2p-writertr: Request, Reply, RTR, first Send
>
    0000  4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65
    0010  10 02 00 04 80 01 c0 01
<
    0000  4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65
    0010  10 02 00 04 80 01 80 01
> 0000  00 0e c1 40 00 00 00 01 00 00 00 00 00 00 00 00
> 0010  00 00 00 00
> 0000  00 22 41 43 00 00 00 00 00 00 00 00 00 00 00 01
> 0010  00 00 00 00 00 00 55 e2 a7 df d3 70 6a 61 00 00
> 0020  00 00 00 40 00 00 00 00
EOF
J=$T/p2p.json
rc=$(decode_rc "$J" -j --hex "$T/p2p.hex")
is "hexdump: exit status" "$rc" 0
check "hexdump: JSON" json_valid "$J"
is "hexdump: Request word" "$(lines frame '"frame":"request"' <"$J" | jobj enh | jval word)" 0x8001c001
is "hexdump: Reply word" "$(lines frame '"frame":"reply"' <"$J" | jobj enh | jval word)" 0x80018001
is "hexdump: Request from '>'" "$(lines frame '"frame":"request"' <"$J" | jval src)" initiator
is "hexdump: two FPDUs" "$(lines fpdu <"$J" | count)" 2
is "hexdump: RTR" "$(lines fpdu '"index":1,' <"$J" | jval rtr)" write
is "hexdump: Send MSN" "$(lines fpdu '"index":2,' <"$J" | jval msn)" 1
is "stdin with -" "$("$IWCMCTL" decode -j --hex - <"$T/p2p.hex" | lines fpdu | count)" 2
is "stdin without FILE" "$("$IWCMCTL" decode -j --hex <"$T/p2p.hex" | lines fpdu | count)" 2
is "short option -x" "$("$IWCMCTL" decode -jx "$T/p2p.hex" | lines fpdu | count)" 2

# the same octets one per line, directions interleaved differently, CRLF
awk '
	/^#/ { next }
	/^[<>]/ { d = substr($0, 1, 1); sub(/^[<>]/, "") }
	{ sub(/^ *[0-9a-f]+  /, ""); n = split($0, b, " ")
	  for (i = 1; i <= n; i++) printf "%s %s\r\n", d, b[i] }
' "$T/p2p.hex" >"$T/split.hex"
rc=$(decode_rc "$T/split.json" -j --hex "$T/split.hex")
is "split: exit status" "$rc" 0
grep -v '"type":"summary"' "$J" >"$T/whole.json"
grep -v '"type":"summary"' "$T/split.json" >"$T/split2.json"
check "split: identical decode" cmp -s "$T/whole.json" "$T/split2.json"

# xxd -p style long runs, hexdump -C with its text column, "0000:" offsets
{
	echo "4d504120494420526571204672616d650001000"
	echo "0"
	echo "< 00000000  4d 50 41 20 49 44 20 52  65 70 20 46 72 61 6d 65  |MPA ID Rep Frame|"
	echo "< 00000010  00 01 00 00                                       |....|"
	echo "> 0000: 00 16 41 43 00 00 00 00 00 00 00 00 # a Send"
	echo "> 000c: 00 00 00 01 00 00 00 00 de ad be ef 00 00 00 00"
} >"$T/fmt.hex"
J=$T/fmt.json
rc=$(decode_rc "$J" -j --hex "$T/fmt.hex")
is "formats: odd line rejected" "$rc" 2
check "formats: message names file and line" \
	grep -q "fmt.hex:1: odd number of hex digits" "$J.err"
sed '1,2c\
4d504120494420526571204672616d6500010000' "$T/fmt.hex" >"$T/fmt2.hex"
rc=$(decode_rc "$J" -j --hex "$T/fmt2.hex")
is "formats: exit status" "$rc" 0
is "formats: frames" "$(lines frame <"$J" | count)" 2
is "formats: the Send" "$(lines fpdu <"$J" | jval payload)" deadbeef
is "formats: default direction is '>'" "$(lines frame '"frame":"request"' <"$J" | jval dir)" i2r

printf '> 4d 50 zz\n' >"$T/bad.hex"
rc=$(decode_rc "$J" -j --hex "$T/bad.hex")
is "not hex: exit status 2" "$rc" 2
check "not hex: message" grep -q 'bad.hex:1: not hex: "zz"' "$J.err"

# ---- RFC 7306 and Terminate, hand-built on a Rev 1, C=0 connection ----
cat >"$T/ext.hex" <<'EOF'
> 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 00 01 00 00
< 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 00 01 00 00
# Immediate Data: QN 0 MSN 1, value 3000
> 00 1a 41 48 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00
> 00 00 00 00 00 00 0b b8 00 00 00 00
# Atomic Request, AOpCode 1 (the seed-004 draft's Swap)
> 00 46 41 4a 00 00 00 00 00 00 00 01 00 00 00 01 00 00 00 00
> 00 00 00 01 00 00 00 03 00 00 22 04 00 00 7f 00 00 50 00 00
> 00 00 00 00 00 00 56 78 ff ff ff ff ff ff ff ff
> 00 00 00 00 00 00 00 00 ff ff ff ff ff ff ff ff 00 00 00 00
# Atomic Response, QN 3
< 00 1e 41 4b 00 00 00 00 00 00 00 03 00 00 00 01 00 00 00 00
< 00 00 00 03 00 00 00 00 00 00 12 34 00 00 00 00
# Terminate: RDMA / Remote Protection / Invalid STag, M and D, the
# offending tagged DDP header
< 00 26 41 47 00 00 00 00 00 00 00 02 00 00 00 01 00 00 00 00
< 01 00 c0 00 00 1e c1 40 00 00 22 03 00 00 7f 00 00 40 00 00
< 00 00 00 00
# Send with Invalidate, STag 0x2203
> 00 16 41 44 00 00 22 03 00 00 00 00 00 00 00 02 00 00 00 00
> 61 62 63 64 00 00 00 00
EOF
J=$T/ext.json
rc=$(decode_rc "$J" -j --hex "$T/ext.hex")
is "rfc7306: exit status" "$rc" 0
check "rfc7306: JSON" json_valid "$J"
I=$(lines fpdu '"dir":"i2r"' '"index":1,' <"$J")
is "imm: name" "$(echo "$I" | jobj rdmap | jval opcode)" 8
is "imm: value" "$(echo "$I" | jval imm)" 0x0000000000000bb8
A=$(lines fpdu '"dir":"i2r"' '"index":2,' <"$J")
is "atomic: AOpCode" "$(echo "$A" | jval aopcode)" 1
like "atomic: Swap named" "$(echo "$A" | jval aop)" "*Swap*"
is "atomic: request fields" \
	"$(echo "$A" | jval req_id) $(echo "$A" | jobj atomic_req | jval stag) $(echo "$A" | jobj atomic_req | jval to)" \
	"0x00000003 0x00002204 0x00007f0000500000"
is "atomic: data and masks" \
	"$(echo "$A" | jval add_swap) $(echo "$A" | jval add_swap_mask) $(echo "$A" | jval cmp) $(echo "$A" | jval cmp_mask)" \
	"0x0000000000005678 0xffffffffffffffff 0x0000000000000000 0xffffffffffffffff"
R=$(lines fpdu '"dir":"r2i"' '"index":1,' <"$J")
is "atomic response: QN" "$(echo "$R" | jval qn)" 3
is "atomic response" "$(echo "$R" | jobj atomic_resp)" \
	'{"req_id":"0x00000003","orig":"0x0000000000001234"}'
TM=$(lines fpdu '"dir":"r2i"' '"index":2,' <"$J")
is "terminate: layer/etype/code" \
	"$(echo "$TM" | jval layer) $(echo "$TM" | jval etype) $(echo "$TM" | jval ecode)" \
	"0 1 0"
is "terminate: HdrCt" \
	"$(echo "$TM" | jval hdrct_m)$(echo "$TM" | jval hdrct_d)$(echo "$TM" | jval hdrct_r)" \
	110
is "terminate: DDP segment length" "$(echo "$TM" | jval ddp_seg_len)" 30
is "terminate: the copied DDP header" \
	"$(echo "$TM" | jobj term | sed 's/.*"ddp":{//')" \
	'"t":1,"l":1,"rsvd":0,"dv":1,"stag":"0x00002203","to":"0x00007f0000400000"}'
like "terminate: code named" "$(echo "$TM" | jval ecode_name)" "*Invalid STag*"
S=$(lines fpdu '"dir":"i2r"' '"index":3,' <"$J")
is "send with invalidate: STag" "$(echo "$S" | jval inv_stag)" 0x00002203
"$IWCMCTL" decode --hex "$T/ext.hex" >"$T/ext.txt"
check "text: Immediate Data" grep -q 'RDMAP RV=1 .* 0x0000000000000bb8$' "$T/ext.txt"
check "text: Terminate" grep -q 'layer 0 (.*) etype 1 (.*) code 0x00 (.*)' "$T/ext.txt"

# ---- no handshake: '>' is the initiator, CRC unknown ----
sed -n '/^# Immediate/,$p' "$T/ext.hex" >"$T/raw.hex"
J=$T/raw.json
rc=$(decode_rc "$J" -j --hex "$T/raw.hex")
is "no handshake: exit status 0" "$rc" 0
is "no handshake: directions from the markers" \
	"$(lines fpdu '"dir":"i2r"' <"$J" | count) $(lines fpdu '"dir":"r2i"' <"$J" | count)" "3 2"
is "no handshake: CRC unknown, zero field differs" \
	"$(lines fpdu '"crc":"unknown"' '"crc_check":"differs"' <"$J" | count)" 5

# ---- cut in the middle of an FPDU ----
sed '$d' "$T/ext.hex" >"$T/cut.hex"
J=$T/cut.json
rc=$(decode_rc "$J" -j --hex "$T/cut.hex")
is "cut FPDU: exit status 1" "$rc" 1
TR=$(lines event '"event":"truncated"' <"$J")
is "cut FPDU: reported" "$(echo "$TR" | jval dir) $(echo "$TR" | jval offset)" "i2r 108"
is "cut FPDU: the ones before" "$(lines fpdu <"$J" | count)" 4

# ---- seed 003: "MPA ID Rtr Frame" after the Reply ----
cat >"$T/rtrf.hex" <<'EOF'
> 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 10 01 00 00
< 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 10 01 00 00
> 4d 50 41 20 49 44 20 52 74 72 20 46 72 61 6d 65 00 01 00 00
> 00 16 41 43 00 00 00 00 00 00 00 00 00 00 00 01 00 00 00 00
> 61 62 63 64 00 00 00 00
EOF
J=$T/rtrf.json
rc=$(decode_rc "$J" -j --hex "$T/rtrf.hex")
is "RtR frame: exit status" "$rc" 0
F=$(lines frame '"frame":"rtr"' <"$J")
is "RtR frame: decoded" "$(echo "$F" | jval dir) $(echo "$F" | jval key_rtr_lower)" "i2r true"
is "RtR frame: after the Request" "$(echo "$F" | jval offset)" 20
is "RtR frame: S=1 Rev 1 is not enhanced" "$(lines negotiated <"$J" | jval enhanced)" false
is "RtR frame: FPDU after it at offset 0" "$(lines fpdu <"$J" | jval offset)/$(lines fpdu <"$J" | jval payload)" 0/61626364

# ---- sessions written by iwcmctl sample (markers, Rev 0, Read RTR) ----
if "$IWCMCTL" sample --hex --rev0 -o "$T/rev0.hex" 2>/dev/null; then
	J=$T/rev0.json
	rc=$(decode_rc "$J" -j --hex "$T/rev0.hex")
	is "rev0: exit status" "$rc" 0
	N=$(lines negotiated <"$J")
	is "rev0: RDMA Consortium rules" \
		"$(echo "$N" | jval rdmac) $(echo "$N" | jval markers_i2r) $(echo "$N" | jval markers_r2i) $(echo "$N" | jval crc) $(echo "$N" | jval version)" \
		"true true true on 0"
	is "rev0: every DDP header version 0" \
		"$(lines fpdu '"dv":0' <"$J" | count)" "$(lines fpdu <"$J" | count)"
	is "rev0: every CRC good" \
		"$(lines fpdu '"crc":"good"' <"$J" | count)" "$(lines fpdu <"$J" | count)"
	is "rev0: leading marker of each direction" \
		"$(lines fpdu '"index":1,' '"list":[{"offset":0,"fpduptr":0,"expect":0,"ok":true}' <"$J" | count)" 2
	"$IWCMCTL" sample --hex --rtr read -o "$T/rd.hex"
	J=$T/rd.json
	rc=$(decode_rc "$J" -j --hex "$T/rd.hex")
	is "read RTR: exit status" "$rc" 0
	is "read RTR: marked" "$(lines fpdu '"dir":"i2r"' '"index":1,' <"$J" | jval rtr)" read
	is "read RTR: zero size" "$(lines fpdu '"dir":"i2r"' '"index":1,' <"$J" | jval size)" 0
	is "read RTR: answered" "$(lines fpdu '"dir":"r2i"' '"index":1,' <"$J" | jval rtr)" read-response
	"$IWCMCTL" sample --markers -o "$T/mk.pcap"
	"$IWCMCTL" sample --markers --hex -o "$T/mk.hex"
	# endpoint names differ between the two inputs, nothing else
	anon='s/"src":"[^"]*"//g; s/"dst":"[^"]*"//g; s/"a":"[^"]*"//g
	      s/"b":"[^"]*"//g; s/"initiator":"[^"]*"//g
	      s/"responder":"[^"]*"//g'
	"$IWCMCTL" decode -j "$T/mk.pcap" | grep -v '"type":"summary"' |
		sed "$anon" >"$T/mk1"
	"$IWCMCTL" decode -j --hex "$T/mk.hex" |
		grep -v '"type":"summary"' | sed "$anon" >"$T/mk2"
	check "sample: pcap and hex decode alike" cmp -s "$T/mk1" "$T/mk2"
	check "sample: markers inside FPDUs checked" \
		grep -q '"offset":512,"fpduptr":[0-9]*,"expect":[0-9]*,"ok":true' "$T/mk1"
else
	echo "# iwcmctl sample unavailable: sample-based checks skipped"
fi

done_testing
