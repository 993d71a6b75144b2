#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tshark conformance of `iwcmctl sample --transport sctp` and agreement of
# `iwcmctl decode -j` with tshark on it.  tshark names PPIDs 16 and 17 but
# decodes neither (so the DDP payloads are the decoder tests' business);
# it does check what is below them.  For the clean sample and for each
# --corrupt N it asserts:
#  1. IPv4 and UDP checksums are good in every packet, and tshark (SCTP
#     over UDP port 9899, RFC 6951; CRC-32C checksums) reports no
#     malformed packet and no expert info at error severity.
#  2. The SCTP CRC32c is good in every packet, except packet N with
#     --corrupt N, which tshark and iwcmctl decode both call bad.
#  3. Per packet with a good CRC32c, tshark and iwcmctl decode -j find
#     the same chunk types in the same order, and per DATA chunk the same
#     TSN, stream and PPID.
#  4. iwcmctl decode exits 0 for the clean sample, 1 for a corrupted one.
# Needs tshark ($TSHARK from configure): SKIP (77) without it.
set -u
. "$srcdir/conformance/lib.sh"
if [ -z "${TSHARK:-}" ]; then
	echo "SKIP: tshark not found"
	exit 77
fi
conf_init

ts() {
	_f=$1
	shift
	"$TSHARK" -n -r "$_f" -d udp.port==9899,sctp \
		-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE \
		-o sctp.checksum:CRC-32C "$@" \
		2>/dev/null
}

for corrupt in "" 4 11; do
	f=$tmp/s$corrupt.pcap
	"$IWCMCTL" sample --transport sctp ${corrupt:+--corrupt $corrupt} \
		-o "$f" || fail "sample --corrupt $corrupt"
	name="sctp${corrupt:+ --corrupt $corrupt}"
	# 1. lower layers and tshark's own verdict
	ts "$f" -T fields -e ip.checksum.status -e udp.checksum.status |
		grep -v '^1	1$' >"$tmp/bad_cks"
	check "$name: IP/UDP checksums" test ! -s "$tmp/bad_cks"
	ts "$f" -Y '_ws.malformed || _ws.expert.severity == error' \
		-T fields -e frame.number | grep -v "^${corrupt:+$((corrupt + 1))}\$" \
		>"$tmp/expert"
	check "$name: no malformed packet or error" test ! -s "$tmp/expert"
	# 2. CRC32c per packet: 1 good, 0 bad; frame numbers from 1
	ts "$f" -T fields -e frame.number -e sctp.checksum.status |
		awk -F'\t' '{ print $1 - 1, $2 == 1 ? "good" : "bad" }' \
			>"$tmp/t_crc"
	"$IWCMCTL" decode -j "$f" >"$tmp/d.json"
	rc=$?
	awk '/"type":"sctp_packet"/ { n++; print n - 1,
		(index($0, "\"crc\":\"good\"") ? "good" : "bad") }' \
		"$tmp/d.json" >"$tmp/d_crc"
	same "$name: CRC32c per packet" "$tmp/t_crc" "$tmp/d_crc"
	if [ -n "$corrupt" ]; then
		check "$name: packet $corrupt bad" \
			grep -qx "$corrupt bad" "$tmp/t_crc"
		check "$name: exit 1" test "$rc" -eq 1
	else
		check "$name: exit 0" test "$rc" -eq 0
	fi
	# 3. chunk types of every packet tshark and we decode (good CRC)
	ts "$f" -Y 'sctp.checksum.status == 1' -T fields -e sctp.chunk_type |
		tr ',' ' ' >"$tmp/t_chunks"
	awk '/"type":"sctp_packet"/ { if (started) print line; started = 1
		line = ""; good = index($0, "\"crc\":\"good\""); next }
	     /"type":"sctp_chunk"/ && good {
		match($0, /"chunk_type":[0-9]+/)
		v = substr($0, RSTART + 13, RLENGTH - 13)
		line = line == "" ? v : line " " v }
	     END { if (started) print line }' "$tmp/d.json" |
		grep -v '^$' >"$tmp/d_chunks"
	same "$name: chunk types" "$tmp/t_chunks" "$tmp/d_chunks"
	ts "$f" -Y 'sctp.data_tsn_raw && sctp.checksum.status == 1' -T fields -e sctp.data_tsn_raw \
		-e sctp.data_sid -e sctp.data_payload_proto_id >"$tmp/t_data"
	awk -F'[,:]' '/"type":"sctp_chunk".*"name":"DATA"/ {
		for (i = 1; i < NF; i++) {
			if ($i == "\"tsn\"") t = $(i + 1)
			if ($i == "\"stream\"") s = $(i + 1)
			if ($i == "\"ppid\"") p = $(i + 1)
		}
		printf "%s\t0x%04x\t%s\n", t, s, p }' "$tmp/d.json" >"$tmp/d_data"
	same "$name: DATA TSN, stream, PPID" "$tmp/t_data" "$tmp/d_data"
done
conf_done
