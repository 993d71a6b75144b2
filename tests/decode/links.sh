#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Link types and IP versions: the siw capture (Ethernet, IPv4) is
# rewritten with awk into raw IP, BSD NULL and LOOP, Ethernet with 802.1Q
# and 802.1ad tags, Linux SLL and SLL2, IPv4 with options, IPv6 with and
# without an extension header, and pcapng; each must decode to the same
# FPDUs.
. "$srcdir/decode/lib.sh"

SRC=$CAPS/siw-readbw-mpa1-crc.pcap

# relink MODE OUT: rewrite $SRC (little-endian pcap, LINKTYPE_ETHERNET,
# IPv4) into another encapsulation
relink() {
	od -An -v -tu1 "$SRC" | awk -v mode="$1" '
	function le32(o) {
		return b[o] + b[o+1] * 256 + b[o+2] * 65536 + b[o+3] * 16777216
	}
	function put(v) { out[no++] = v % 256 }
	function put_le32(v) {
		put(v); put(int(v / 256)); put(int(v / 65536))
		put(int(v / 16777216))
	}
	function put_be16(v) { put(int(v / 256)); put(v) }
	{ for (i = 1; i <= NF; i++) b[n++] = $i }
	END {
		lt = 1
		if (mode == "sll") lt = 113
		if (mode == "raw" || mode == "ipopt" || mode == "frag") lt = 101
		if (mode == "null") lt = 0
		if (mode == "loop") lt = 108
		if (mode == "vlan" || mode == "qinq" || mode == "v6") lt = 1
		if (mode == "sll2") lt = 276
		if (mode == "v6ext") lt = 229
		for (i = 0; i < 20; i++) put(b[i])
		put_le32(lt)
		off = 24
		rec = 0
		while (off + 16 <= n) {
			incl = le32(off + 8)
			p = off + 16		# Ethernet header
			ip = p + 14
			iplen = incl - 14
			rec++
			m = 0
			split("", pk)
			if (mode == "null") {
				pk[m++] = 2; pk[m++] = 0; pk[m++] = 0; pk[m++] = 0
			} else if (mode == "loop") {
				pk[m++] = 0; pk[m++] = 0; pk[m++] = 0; pk[m++] = 2
			} else if (mode == "vlan" || mode == "qinq" || mode == "v6") {
				for (i = 0; i < 5; i++) pk[m++] = 2
				pk[m++] = 1
				for (i = 0; i < 5; i++) pk[m++] = 2
				pk[m++] = 2
				if (mode == "qinq") {
					pk[m++] = 136; pk[m++] = 168	# 88a8
					pk[m++] = 0; pk[m++] = 10
				}
				if (mode != "v6") {
					pk[m++] = 129; pk[m++] = 0	# 8100
					pk[m++] = 0; pk[m++] = 100
					pk[m++] = 8; pk[m++] = 0
				} else {
					pk[m++] = 134; pk[m++] = 221	# 86dd
				}
			} else if (mode == "sll") {
				pk[m++] = 0; pk[m++] = 0; pk[m++] = 3; pk[m++] = 4
				pk[m++] = 0; pk[m++] = 6
				for (i = 0; i < 8; i++) pk[m++] = 0
				pk[m++] = 8; pk[m++] = 0
			} else if (mode == "sll2") {
				pk[m++] = 8; pk[m++] = 0; pk[m++] = 0; pk[m++] = 0
				pk[m++] = 0; pk[m++] = 0; pk[m++] = 0; pk[m++] = 1
				pk[m++] = 3; pk[m++] = 4; pk[m++] = 0; pk[m++] = 6
				for (i = 0; i < 8; i++) pk[m++] = 0
			}
			ihl = (b[ip] % 16) * 4
			tot = b[ip+2] * 256 + b[ip+3]
			if (mode == "v6" || mode == "v6ext") {
				ext = mode == "v6ext" ? 8 : 0
				plen = tot - ihl + ext
				pk[m++] = 96; pk[m++] = 0; pk[m++] = 0; pk[m++] = 0
				pk[m++] = int(plen / 256); pk[m++] = plen % 256
				pk[m++] = ext ? 0 : 6; pk[m++] = 64
				for (a = 12; a <= 16; a += 4) {
					pk[m++] = 32; pk[m++] = 1; pk[m++] = 13
					pk[m++] = 184
					for (i = 0; i < 8; i++) pk[m++] = 0
					for (i = 0; i < 4; i++) pk[m++] = b[ip+a+i]
				}
				if (ext) {	# Hop-by-Hop, PadN
					pk[m++] = 6; pk[m++] = 0; pk[m++] = 1
					pk[m++] = 4
					for (i = 0; i < 4; i++) pk[m++] = 0
				}
				for (i = ihl; i < tot; i++) pk[m++] = b[ip+i]
			} else if (mode == "ipopt") {
				pk[m++] = 64 + ihl / 4 + 1
				pk[m++] = b[ip+1]
				pk[m++] = int((tot + 4) / 256); pk[m++] = (tot + 4) % 256
				for (i = 4; i < ihl; i++) pk[m++] = b[ip+i]
				for (i = 0; i < 4; i++) pk[m++] = 1	# NOPs
				for (i = ihl; i < tot; i++) pk[m++] = b[ip+i]
			} else {
				for (i = 0; i < iplen; i++) pk[m++] = b[ip+i]
				if (mode == "frag" && rec == 12)
					pk[6] += 32			# MF
			}
			for (i = 0; i < 8; i++) put(b[off+i])
			if (mode == "ether") {
				m = 0
				for (i = 0; i < incl; i++) pk[m++] = b[p+i]
			}
			put_le32(m); put_le32(m)
			for (i = 0; i < m; i++) put(pk[i])
			off += 16 + incl
		}
		for (i = 0; i < no; i++) {
			printf "\\%03o", out[i]
			if (i % 64 == 63) printf "\n"
		}
		printf "\n"
	}' | while IFS= read -r line; do
		# shellcheck disable=SC2059
		printf "$line"
	done >"$2"
}

# the FPDUs without the endpoint names
fpdus() {
	grep '"type":"fpdu"' "$1" | sed 's/"src":"[^"]*","dst":"[^"]*",//'
}

"$IWCMCTL" decode -j "$SRC" >"$T/ref.json"
fpdus "$T/ref.json" >"$T/ref"
is "reference: 42 FPDUs" "$(count <"$T/ref")" 42

relink ether "$T/ether.pcap"
check "rewriter: Ethernet round trip is byte-exact" cmp -s "$SRC" "$T/ether.pcap"

for mode in raw null loop vlan qinq sll sll2 ipopt v6 v6ext; do
	relink "$mode" "$T/$mode.pcap"
	rc=$(decode_rc "$T/$mode.json" -j "$T/$mode.pcap")
	is "$mode: exit status" "$rc" 0
	fpdus "$T/$mode.json" >"$T/$mode"
	check "$mode: same FPDUs" cmp -s "$T/ref" "$T/$mode"
done
is "v6: endpoints in brackets" "$(lines conn <"$T/v6.json" | head -n 1 | jval a)" \
	"[2001:db8::a00:20f]:59715"
is "v6: same connections" "$(lines conn <"$T/v6ext.json" | count)" 2

# an IPv4 fragment (MF set on a data packet): skipped, so a gap follows
relink frag "$T/frag.pcap"
J=$T/frag.json
rc=$(decode_rc "$J" -j "$T/frag.pcap")
is "fragment: exit status 1" "$rc" 1
check "fragment: reported" sh -c "grep '\"event\":\"capture\"' '$J' | grep -q 'IPv4 fragment'"
is "fragment: counted" "$(lines summary <"$J" | jval ip_fragments)" 1
is "fragment: the data it carried is a gap" \
	"$(lines event '"event":"gap"' <"$J" | count)" 1

# pcapng (when editcap is around to write it)
if command -v editcap >/dev/null 2>&1 &&
	editcap -F pcapng "$SRC" "$T/ng.pcapng" 2>/dev/null; then
	rc=$(decode_rc "$T/ng.json" -j "$T/ng.pcapng")
	is "pcapng: exit status" "$rc" 0
	fpdus "$T/ng.json" >"$T/ng"
	check "pcapng: same FPDUs" cmp -s "$T/ref" "$T/ng"
else
	echo "# editcap not found: pcapng check skipped"
fi

done_testing
