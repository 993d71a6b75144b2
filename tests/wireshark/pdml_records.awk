# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tshark -T pdml with the iwcm plugin -> one record per MPA frame,
# negotiation, FPDU and DDP over SCTP message, in the form of
# json_records.awk:  KEY <TAB> field=value <TAB> ...  sorted.  A record
# starts at each iwcm_mpa or ddp_sctp protocol item; the iwcm_ddp and
# rdmap items after it belong to it.  A field seen again in a record
# (markers, the DDP header inside a Terminate) is FIELD#N, N from 1.
# Value-string fields also give FIELD.name, the name the plugin shows.
# DDP over SCTP messages of a packet whose SCTP CRC32c tshark found bad
# are left out, as decode leaves them out.

function attr(name,   s) {
	if (!match($0, " " name "=\"[^\"]*\""))
		return ""
	s = substr($0, RSTART + length(name) + 3)
	s = substr(s, 1, index(s, "\"") - 1)
	gsub(/&quot;/, "\"", s)
	gsub(/&apos;/, "'", s)
	gsub(/&lt;/, "<", s)
	gsub(/&gt;/, ">", s)
	gsub(/&#x0*9;/, "\t", s)
	gsub(/&amp;/, "\\&", s)
	return s
}

function flush(   i, out, key) {
	if (!open)
		return
	open = 0
	sortkeys(names, n)
	if (kind == "ddp_sctp" && badsctp) {
		# RFC 4960 §6.8: a receiver (and iwcmctl decode) discards
		# a packet whose CRC32c is bad; Wireshark shows it anyway
		split("", F); split("", SEEN)
		return
	} else if (kind == "ddp_sctp") {
		key = "sctp_message " nsctp++
	} else if ("iwarp_mpa.neg.initiator" in F) {
		key = "negotiated " F["iwarp_mpa.neg.initiator"]
	} else if ("iwarp_mpa.frame" in F) {
		key = "frame " F["iwarp_mpa.src"] ">" F["iwarp_mpa.dst"] " " \
		    F["iwarp_mpa.offset"]
	} else if ("iwarp_mpa.fpdu.index" in F) {
		key = "fpdu " F["iwarp_mpa.src"] ">" F["iwarp_mpa.dst"] " " \
		    F["iwarp_mpa.offset"]
	} else {
		# retransmissions, continuation segments, decoder notes
		split("", F); split("", SEEN)
		return
	}
	out = key
	for (i = 1; i <= n; i++)
		if (keepname(names[i]))
			out = out "\t" names[i] "=" F[names[i]]
	print out
	split("", F)
	split("", SEEN)
}

# Only the fields decode's records have (-v keep=FILE: their list, from
# json_records.awk -v names=1); without it, every field.
function keepname(f) {
	sub(/#.*/, "", f)
	if (!nkeep)
		return !(f in NOKEEP)
	return f in KEEP
}

BEGIN {
	if (keep != "")
		while ((getline l < keep) > 0) {
			KEEP[l] = 1
			nkeep++
		}
	# fields that are the record's key or the plugin's extras, not
	# decode's fields (see wireshark-iwcm(7))
	split("iwarp_mpa.src iwarp_mpa.dst iwarp_mpa.neg", a, " ")
	for (i in a)
		NOKEEP[a[i]] = 1
	split("iwarp_mpa.privatedata iwarp_mpa.ulp_privatedata rdmap.payload " \
	    "rdmap.term.ddp_hdr rdmap.term.rdma_hdr ddp_sctp.privatedata " \
	    "ddp_sctp.ulp_privatedata", a, " ")
	for (i in a)
		BYTES[a[i]] = 1
	split("rdmap.opcode rdmap.atomic.aopcode rdmap.term.layer " \
	    "rdmap.term.etype rdmap.term.ecode ddp_sctp.fc ddp_sctp.ppid", a, " ")
	for (i in a)
		NAMED[a[i]] = 1
	nsctp = 0
}

/^<packet>/ {
	flush()
	badsctp = 0
}

# with -o sctp.checksum:CRC-32C: 0 is bad
/<field name="sctp.checksum.status"/ {
	if (attr("show") == "0")
		badsctp = 1
}

/^ *<proto name="/ {
	p = attr("name")
	if (p == "iwcm_mpa" || p == "ddp_sctp") {
		flush()
		open = 1
		kind = p
		n = 0
	}
	next
}

/^ *<field name="/ {
	if (!open)
		next
	f = attr("name")
	if (f !~ /^(iwarp_mpa|iwarp_ddp|rdmap|ddp_sctp)\./)
		next
	v = (f in BYTES) ? attr("value") : attr("show")
	v = norm(v)
	if (f in SEEN) {
		f2 = f "#" SEEN[f]++
	} else {
		SEEN[f] = 1
		f2 = f
	}
	if (v != "") {
		F[f2] = v
		names[++n] = f2
	}
	if (f in NAMED) {
		s = attr("showname")
		sub(/^.*: /, "", s)
		sub(/ \([^()]*\)$/, "", s)
		F[f2 ".name"] = s
		names[++n] = f2 ".name"
	}
}

END { flush() }
