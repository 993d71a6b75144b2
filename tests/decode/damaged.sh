#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Damaged input: a flipped payload octet under CRC, a bad opcode, a wrong
# RDMAP version, an RTR the Reply did not allow, a rejected connection
# that keeps talking, a bad marker, truncated captures.  Each is reported
# where it is, the exit status is 1 and nothing crashes.
. "$srcdir/decode/lib.sh"

CRC=$T/crc.pcap
P2P=$T/p2p.pcap

# ---- a payload octet flipped after the CRC was computed ----
cp "$CAPS/siw-readbw-mpa1-crc.pcap" "$CRC"
chmod u+w "$CRC"
# conn 1, first i2r FPDU (Send), first payload octet 0x36
is "crc: octet to flip" "$(peek "$CRC" 756)" 36
poke "$CRC" 756 '\311'
J=$T/crc.json
rc=$(decode_rc "$J" -j "$CRC")
is "crc: exit status 1" "$rc" 1
check "crc: nothing on stderr" test ! -s "$J.err"
BAD=$(lines fpdu '"crc":"bad"' <"$J")
is "crc: exactly one bad CRC" "$(echo "$BAD" | count)" 1
is "crc: in conn 1 i2r FPDU 1" \
	"$(echo "$BAD" | jval conn) $(echo "$BAD" | jval dir) $(echo "$BAD" | jval index)" \
	"1 i2r 1"
is "crc: wire and computed CRC" \
	"$(echo "$BAD" | jval crc_wire) $(echo "$BAD" | jval crc_calc)" \
	"0xf128a247 0x7ef2dfbd"
is "crc: marked bad" "$(echo "$BAD" | jval bad)" true
is "crc: still decoded" "$(echo "$BAD" | jval payload)" \
	c92e3036000000000000000000000000
is "crc: the other 41 are good" "$(lines fpdu '"crc":"good"' <"$J" | count)" 41
is "crc: summary" "$(lines summary <"$J" | jval crc_bad)/$(lines summary <"$J" | jval exit)" 1/1
rc=$(decode_rc "$T/crc.txt" "$CRC")
check "crc: text says BAD" \
	grep -q 'CRC BAD: wire 0xf128a247, computed 0x7ef2dfbd  \[BAD\]' "$T/crc.txt"

# ---- RDMAP opcode 0xC (unassigned) in a Send ----
cp "$CAPS/siw-rping-mpa2-p2p-writertr.pcap" "$P2P.orig"
chmod u+w "$P2P.orig"
cp "$P2P.orig" "$P2P"
is "opcode: control octet of i2r FPDU 2" "$(peek "$P2P" 849)" 43
poke "$P2P" 849 '\114'
J=$T/op.json
rc=$(decode_rc "$J" -j "$P2P")
is "opcode: exit status 1" "$rc" 1
M=$(lines fpdu '"dir":"i2r"' '"index":2,' <"$J")
is "opcode: RDMAP error" "$(echo "$M" | jval rdmap_error)" EOPCODE
is "opcode: opcode shown" "$(echo "$M" | jval rdmap_opcode)" 12
is "opcode: DDP header still decoded" "$(echo "$M" | jval msn)" 1
is "opcode: framing continues" "$(lines fpdu <"$J" | count)" 22
is "opcode: one malformed" "$(lines summary <"$J" | jval malformed)" 1

# ---- RDMAP version 0 on a Rev 2 connection ----
cp "$P2P.orig" "$P2P"
poke "$P2P" 849 '\003'
J=$T/ver.json
rc=$(decode_rc "$J" -j "$P2P")
is "version: exit status 1" "$rc" 1
is "version: problem reported" \
	"$(lines fpdu '"dir":"i2r"' '"index":2,' <"$J" | jval version_problem)" \
	"RDMAP version 0, the connection uses 1"

# ---- the Reply allows only a Read RTR; the initiator sends a Write ----
cp "$P2P.orig" "$P2P"
is "rtr: Reply C/D octet" "$(peek "$P2P" 578)" 80
poke "$P2P" 578 '\100'
J=$T/rtr.json
rc=$(decode_rc "$J" -j "$P2P")
is "rtr: exit status 1" "$rc" 1
is "rtr: allowed" "$(lines negotiated <"$J" | jarr rtr_allowed)" '["read"]'
R=$(lines fpdu '"dir":"i2r"' '"index":1,' <"$J")
is "rtr: still marked" "$(echo "$R" | jval rtr)" write
check "rtr: problem" sh -c "echo '$R' | grep -q '\"rtr_problem\":\"a write RTR, which the Reply did not allow'"
is "rtr: counted" "$(lines summary <"$J" | jval errors)" 1

# ---- R=1 in the Reply, but FPDUs follow ----
cp "$P2P.orig" "$P2P"
is "reject: Reply flags" "$(peek "$P2P" 572)" 10
poke "$P2P" 572 '\060'
J=$T/rej.json
rc=$(decode_rc "$J" -j "$P2P")
is "reject: exit status 1" "$rc" 1
is "reject: negotiated rejected" "$(lines negotiated <"$J" | jval rejected)" true
is "reject: no FPDU decoded" "$(lines fpdu <"$J" | count)" 0
is "reject: data after it reported" \
	"$(lines event '"event":"protocol"' '"bad":true' <"$J" | count)" 2

# ---- a damaged key in the Reply ----
cp "$P2P.orig" "$P2P"
poke "$P2P" 563 'X'
J=$T/key.json
rc=$(decode_rc "$J" -j "$P2P")
is "key: exit status 1" "$rc" 1
is "key: malformed frame" \
	"$(lines event '"event":"malformed"' <"$J" | jval message)" \
	"MPA startup frame: bad key (EKEY)"
is "key: not decoded as FPDUs" "$(lines fpdu '"dir":"r2i"' <"$J" | count)" 0

# ---- truncated captures ----
size=$(wc -c <"$CAPS/siw-readbw-mpa1-crc.pcap" | tr -d ' ')
dd if="$CAPS/siw-readbw-mpa1-crc.pcap" of="$T/cut.pcap" bs=1 \
	count=$((size - 50)) 2>/dev/null
J=$T/cut.json
rc=$(decode_rc "$J" -j "$T/cut.pcap")
is "cut: exit status 1" "$rc" 1
check "cut: truncation reported" \
	sh -c "grep '\"event\":\"capture\"' '$J' | grep -q '\"message\":\"truncated dump file'"
is "cut: the rest decoded" "$(lines fpdu <"$J" | count)" 42
# cut inside the record of conn 1's i2r FPDU at stream offset 124
dd if="$CAPS/siw-readbw-mpa1-crc.pcap" of="$T/cut2.pcap" bs=1 count=1600 \
	2>/dev/null
rc=$(decode_rc "$J" -j "$T/cut2.pcap")
is "cut inside a record: exit status 1" "$rc" 1
is "cut inside a record: FPDUs before it" "$(lines fpdu <"$J" | count)" 8
dd if="$CAPS/siw-readbw-mpa1-crc.pcap" of="$T/cut3.pcap" bs=1 count=30 \
	2>/dev/null
rc=$(decode_rc "$J" -j "$T/cut3.pcap")
is "cut in the first record: exit status 1" "$rc" 1
dd if="$CAPS/siw-readbw-mpa1-crc.pcap" of="$T/cut4.pcap" bs=1 count=10 \
	2>/dev/null
rc=$(decode_rc "$J" -j "$T/cut4.pcap")
is "cut in the file header: exit status 2" "$rc" 2
check "cut in the file header: message names the file" \
	grep -q "cut4.pcap" "$J.err"

# ---- a marker with a wrong FPDUPTR (hand-made stream, Reply M=1) ----
# i2r: marker 0, then a Send whose 600-octet payload spans stream offset
# 512, where the marker must say 508 (0x01fc).
mkstream() {
	awk -v ptr="$1" 'BEGIN {
		print "> 4d 50 41 20 49 44 20 52 65 71 20 46 72 61 6d 65 00 01 00 00"
		print "< 4d 50 41 20 49 44 20 52 65 70 20 46 72 61 6d 65 80 01 00 00"
		# marker, ULPDU_Length 618, DDP/RDMAP untagged Send, QN 0 MSN 1
		printf "> 00 00 00 00 02 6a 41 43 00 00 00 00 00 00 00 00"
		printf " 00 00 00 01 00 00 00 00"
		off = 4 + 2 + 18
		for (i = 0; i < 600; i++) {
			if (off == 512) {
				printf " 00 00 %s", ptr
				off += 4
			}
			printf " %02x", i % 256
			off++
		}
		print " 00 00 00 00"	# pad 0, CRC (off)
	}'
}
mkstream "01 fc" >"$T/mk.hex"
J=$T/mk.json
rc=$(decode_rc "$J" -j --hex "$T/mk.hex")
is "marker: good stream exit status" "$rc" 0
is "marker: markers negotiated" "$(lines negotiated <"$J" | jval markers_i2r)" true
MK=$(lines fpdu <"$J")
is "marker: two markers in the FPDU" "$(echo "$MK" | jobj markers | jval count)" 2
check "marker: positions and pointers" sh -c "echo '$MK' | grep -qF '\"list\":[{\"offset\":0,\"fpduptr\":0,\"expect\":0,\"ok\":true},{\"offset\":512,\"fpduptr\":508,\"expect\":508,\"ok\":true}]'"
is "marker: ULPDU without markers" "$(echo "$MK" | jval payload_length)" 600
mkstream "01 f8" >"$T/mk.hex"
rc=$(decode_rc "$J" -j --hex "$T/mk.hex")
is "marker: bad FPDUPTR exit status" "$rc" 1
MK=$(lines fpdu <"$J")
check "marker: the bad one" sh -c "echo '$MK' | grep -qF '{\"offset\":512,\"fpduptr\":504,\"expect\":508,\"ok\":false}'"
is "marker: counted" "$(lines summary <"$J" | jval marker_bad)" 1

done_testing
