#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# TCP reassembly: the siw capture's packets reordered, retransmitted,
# dropped, or cut before the MPA handshake.  Reordering and retransmission
# must not change a single FPDU; a lost packet is a gap; a capture that
# starts mid-connection is decoded from the first data.
. "$srcdir/decode/lib.sh"

D=$T/rec
N=$(pcap_split "$CAPS/siw-readbw-mpa1-crc.pcap" "$D")
is "split: 66 records" "$N" 66

# the reference decode, FPDU lines only
# (sorted: only the interleaving of the two directions may change)
"$IWCMCTL" decode -j "$CAPS/siw-readbw-mpa1-crc.pcap" |
	grep '"type":"fpdu"' | sort >"$T/ref"
is "reference: 42 FPDUs" "$(count <"$T/ref")" 42

# records 8 (i2r seq 21:61) and 10 (i2r seq 61:89) of conn 1
# shellcheck disable=SC2046
pcap_join "$D" "$T/swap.pcap" $(seq_list 1 7) 10 9 8 $(seq_list 11 66)
rc=$(decode_rc "$T/swap.json" -j "$T/swap.pcap")
is "out of order: exit status" "$rc" 0
grep '"type":"fpdu"' "$T/swap.json" | sort >"$T/swap"
check "out of order: same FPDUs" cmp -s "$T/ref" "$T/swap"

# a whole direction delivered late: conn 1's i2r records 8..16 after 17
# shellcheck disable=SC2046
pcap_join "$D" "$T/late.pcap" $(seq_list 1 7) 9 11 13 15 17 8 10 12 14 16 \
	$(seq_list 18 66)
rc=$(decode_rc "$T/late.json" -j "$T/late.pcap")
is "held back: exit status" "$rc" 0
grep '"type":"fpdu"' "$T/late.json" | sort >"$T/late"
check "held back: same FPDUs" cmp -s "$T/ref" "$T/late"

# retransmissions: records 8 and 9 again later, the SYN twice
# shellcheck disable=SC2046
pcap_join "$D" "$T/dup.pcap" 1 1 $(seq_list 2 12) 8 9 $(seq_list 13 66)
rc=$(decode_rc "$T/dup.json" -j "$T/dup.pcap")
is "retransmission: exit status" "$rc" 0
grep '"type":"fpdu"' "$T/dup.json" | sort >"$T/dup"
check "retransmission: same FPDUs" cmp -s "$T/ref" "$T/dup"

# a lost segment: record 12 (conn 1 i2r seq 89:117)
# shellcheck disable=SC2046
pcap_join "$D" "$T/lost.pcap" $(seq_list 1 11) $(seq_list 13 66)
J=$T/lost.json
rc=$(decode_rc "$J" -j "$T/lost.pcap")
is "lost segment: exit status 1" "$rc" 1
G=$(lines event '"event":"gap"' <"$J")
is "lost segment: one gap" "$(echo "$G" | count)" 1
is "lost segment: where" \
	"$(echo "$G" | jval conn) $(echo "$G" | jval dir) $(echo "$G" | jval offset)" \
	"1 i2r 68"
is "lost segment: how much" "$(echo "$G" | jval message)" \
	"28 octets missing from the capture; direction not decoded further"
is "lost segment: FPDUs before it" \
	"$(lines fpdu '"conn":1,' '"dir":"i2r"' <"$J" | count)" 2
is "lost segment: other directions intact" \
	"$(lines fpdu <"$J" | count)" 28

# the capture starts after the handshake of conn 1 (records 1..7 gone)
# shellcheck disable=SC2046
pcap_join "$D" "$T/mid.pcap" $(seq_list 8 66)
J=$T/mid.json
rc=$(decode_rc "$J" -j "$T/mid.pcap")
is "mid-connection: exit status 0" "$rc" 0
is "mid-connection: notes for both directions" \
	"$(lines event '"conn":1,' '"event":"note"' <"$J" | count)" 2
is "mid-connection: roles unknown" \
	"$(lines fpdu '"conn":1,' '"dir":"a2b"' <"$J" | count) $(lines fpdu '"conn":1,' '"dir":"b2a"' <"$J" | count)" \
	"16 16"
is "mid-connection: CRC unknown" \
	"$(lines fpdu '"conn":1,' '"crc":"unknown"' <"$J" | count)" 32
is "mid-connection: CRC checked anyway" \
	"$(lines fpdu '"conn":1,' '"crc_check":"matches"' <"$J" | count)" 32
is "mid-connection: offsets restart at the first data" \
	"$(lines fpdu '"conn":1,' '"dir":"a2b"' '"index":2,' <"$J" | jval offset)" 40
is "mid-connection: conn 2 has its handshake" \
	"$(lines negotiated <"$J" | jval conn)" 2

# the same without CRC: the zero CRC field "differs"
N2=$(pcap_split "$CAPS/siw-rping-mpa2-p2p-writertr.pcap" "$T/p2p")
# shellcheck disable=SC2046
pcap_join "$T/p2p" "$T/mid2.pcap" $(seq_list 8 "$N2")
J=$T/mid2.json
rc=$(decode_rc "$J" -j "$T/mid2.pcap")
is "mid-connection, CRC off: exit status 0" "$rc" 0
is "mid-connection, CRC off: all FPDUs" "$(lines fpdu <"$J" | count)" 22
is "mid-connection, CRC off: zero field differs" \
	"$(lines fpdu '"crc_check":"differs"' '"crc_wire":"0x00000000"' <"$J" | count)" 22

# two captures back to back: the same address pair reused by a new SYN
# shellcheck disable=SC2046
pcap_join "$T/p2p" "$T/twice.pcap" $(seq_list 1 "$N2") $(seq_list 1 "$N2")
J=$T/twice.json
rc=$(decode_rc "$J" -j "$T/twice.pcap")
is "port reuse: exit status" "$rc" 0
is "port reuse: two connections" "$(lines conn <"$J" | count)" 2
is "port reuse: 44 FPDUs" "$(lines fpdu <"$J" | count)" 44

done_testing
