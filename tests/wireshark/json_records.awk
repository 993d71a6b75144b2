# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# iwcmctl decode -j -v lines -> one record per MPA frame, negotiation,
# FPDU and DDP over SCTP message (PPID 16/17), in the form of
# pdml_records.awk:  KEY <TAB> field=value <TAB> ...  with the fields
# named as the plugin names them (wireshark-iwcm(7)), sorted.  Every
# key decode prints is either mapped to a plugin field below or listed
# in SKIP with the reason; an unknown key is reported as
#   UNMAPPED <type> <key>
# so that a field added to decode cannot go uncompared.  Values are
# normalized by norm() (records.awk).

# The decode keys that are not fields of a PDU, and why.
function skip_init() {
	# what the line is and which connection: the record's key
	SKIP["type"] = SKIP["conn"] = SKIP["assoc"] = 1
	SKIP["src"] = SKIP["dst"] = 1
	# the PDU's octets: the bytes Wireshark shows the PDU on
	SKIP["wire"] = 1
	# display limits of decode, not of the PDU
	SKIP["payload_truncated"] = SKIP["data_truncated"] = 1
	# the text of rdmap_error: the expert info's text
	SKIP["error_text"] = 1
	# an empty list of markers (its elements are mapped)
	SKIP["fpdu.markers.list"] = 1
	# SCTP layer of a message: Wireshark's own SCTP dissector shows
	# them (tests/conformance/tshark_sctp.sh compares them)
	SKIP["sctp_message.index"] = SKIP["sctp_message.dir"] = 1
	SKIP["sctp_message.tsn"] = SKIP["sctp_message.fragments"] = 1
	SKIP["sctp_message.unordered"] = 1
}

function map_init(   a, i, n, kv) {
	n = split("dir=iwarp_mpa.dir offset=iwarp_mpa.offset " \
	    "frame=iwarp_mpa.frame key=iwarp_mpa.key length=iwarp_mpa.length " \
	    "flags=iwarp_mpa.flags m=iwarp_mpa.marker_flag " \
	    "c=iwarp_mpa.crc_flag r=iwarp_mpa.rej_flag s=iwarp_mpa.s_flag " \
	    "res=iwarp_mpa.res rev=iwarp_mpa.rev pd_length=iwarp_mpa.pdlength " \
	    "private_data=iwarp_mpa.privatedata enhanced=iwarp_mpa.enhanced " \
	    "enh.word=iwarp_mpa.enh enh.a=iwarp_mpa.p2p enh.b=iwarp_mpa.rtr_send " \
	    "enh.c=iwarp_mpa.rtr_write enh.d=iwarp_mpa.rtr_read " \
	    "enh.ird=iwarp_mpa.ird enh.ord=iwarp_mpa.ord " \
	    "ulp_private_data=iwarp_mpa.ulp_privatedata " \
	    "key_rtr_lower=iwarp_mpa.key_rtr_lower", a, " ")
	for (i = 1; i <= n; i++) {
		split(a[i], kv, "=")
		M["frame." kv[1]] = kv[2]
	}
	n = split("initiator responder rev_request rev_reply rejected rdmac " \
	    "markers_i2r markers_r2i crc version enhanced p2p ird_request " \
	    "ord_request ird_reply ord_reply rtr_offered rtr_allowed problem",
	    a, " ")
	for (i = 1; i <= n; i++)
		M["negotiated." a[i]] = "iwarp_mpa.neg." a[i]
	n = split("dir=iwarp_mpa.dir index=iwarp_mpa.fpdu.index " \
	    "offset=iwarp_mpa.offset hdr_offset=iwarp_mpa.hdr_offset " \
	    "wire_length=iwarp_mpa.wire_length ulpdu_length=iwarp_mpa.ulpdulength " \
	    "pad=iwarp_mpa.pad_length crc=iwarp_mpa.crc.status " \
	    "crc_wire=iwarp_mpa.crc crc_calc=iwarp_mpa.crc_calc " \
	    "crc_check=iwarp_mpa.crc_match markers.count=iwarp_mpa.markers.count " \
	    "markers.ok=iwarp_mpa.markers.ok " \
	    "markers.list.offset=iwarp_mpa.marker.offset " \
	    "markers.list.fpduptr=iwarp_mpa.marker_fpduptr " \
	    "markers.list.expect=iwarp_mpa.marker.expect " \
	    "markers.list.ok=iwarp_mpa.marker.ok rtr=iwarp_mpa.rtr " \
	    "rtr_problem=iwarp_mpa.rtr_problem " \
	    "version_problem=iwarp_mpa.version_problem bad=iwarp_mpa.bad", a, " ")
	for (i = 1; i <= n; i++) {
		split(a[i], kv, "=")
		M["fpdu." kv[1]] = kv[2]
	}
	# DDP and RDMAP: the same in an FPDU and a PPID 16 message
	n = split("ddp.t=iwarp_ddp.tagged_flag ddp.l=iwarp_ddp.last_flag " \
	    "ddp.rsvd=iwarp_ddp.rsvd ddp.dv=iwarp_ddp.dv ddp.stag=iwarp_ddp.stag " \
	    "ddp.to=iwarp_ddp.tagged_offset ddp.rsvd_ulp=iwarp_ddp.rsvd_ulp " \
	    "ddp.qn=iwarp_ddp.qn ddp.msn=iwarp_ddp.msn ddp.mo=iwarp_ddp.mo " \
	    "ddp_error=iwarp_ddp.error rdmap.rv=rdmap.rv rdmap.rsvd=rdmap.rsvd " \
	    "rdmap.opcode=rdmap.opcode rdmap.name=rdmap.opcode.name " \
	    "rdmap.inv_stag=rdmap.inv_stag rdmap.imm=rdmap.imm " \
	    "rdmap.read_req.sink_stag=rdmap.read.sink_stag " \
	    "rdmap.read_req.sink_to=rdmap.read.sink_to " \
	    "rdmap.read_req.size=rdmap.read.size " \
	    "rdmap.read_req.src_stag=rdmap.read.src_stag " \
	    "rdmap.read_req.src_to=rdmap.read.src_to " \
	    "rdmap.atomic_req.aopcode=rdmap.atomic.aopcode " \
	    "rdmap.atomic_req.aop=rdmap.atomic.aopcode.name " \
	    "rdmap.atomic_req.req_id=rdmap.atomic.req_id " \
	    "rdmap.atomic_req.stag=rdmap.atomic.stag " \
	    "rdmap.atomic_req.to=rdmap.atomic.to " \
	    "rdmap.atomic_req.add_swap=rdmap.atomic.add_swap " \
	    "rdmap.atomic_req.add_swap_mask=rdmap.atomic.add_swap_mask " \
	    "rdmap.atomic_req.cmp=rdmap.atomic.cmp " \
	    "rdmap.atomic_req.cmp_mask=rdmap.atomic.cmp_mask " \
	    "rdmap.atomic_resp.req_id=rdmap.atomic.req_id " \
	    "rdmap.atomic_resp.orig=rdmap.atomic.orig " \
	    "rdmap.term.layer=rdmap.term.layer " \
	    "rdmap.term.layer_name=rdmap.term.layer.name " \
	    "rdmap.term.etype=rdmap.term.etype " \
	    "rdmap.term.etype_name=rdmap.term.etype.name " \
	    "rdmap.term.ecode=rdmap.term.ecode " \
	    "rdmap.term.ecode_name=rdmap.term.ecode.name " \
	    "rdmap.term.hdrct_m=rdmap.term.hdrct_m " \
	    "rdmap.term.hdrct_d=rdmap.term.hdrct_d " \
	    "rdmap.term.hdrct_r=rdmap.term.hdrct_r " \
	    "rdmap.term.ddp_seg_len=rdmap.term.ddp_seg_len " \
	    "rdmap.term.ddp.t=rdmap.term.ddp.tagged_flag " \
	    "rdmap.term.ddp.l=rdmap.term.ddp.last_flag " \
	    "rdmap.term.ddp.rsvd=rdmap.term.ddp.rsvd " \
	    "rdmap.term.ddp.dv=rdmap.term.ddp.dv " \
	    "rdmap.term.ddp.stag=rdmap.term.ddp.stag " \
	    "rdmap.term.ddp.to=rdmap.term.ddp.tagged_offset " \
	    "rdmap.term.ddp.rsvd_ulp=rdmap.term.ddp.rsvd_ulp " \
	    "rdmap.term.ddp.qn=rdmap.term.ddp.qn rdmap.term.ddp.msn=rdmap.term.ddp.msn " \
	    "rdmap.term.ddp.mo=rdmap.term.ddp.mo rdmap.term.rdmap_rv=rdmap.term.rdmap.rv " \
	    "rdmap.term.rdmap_opcode=rdmap.term.rdmap.opcode " \
	    "rdmap.term.ddp_raw=rdmap.term.ddp_hdr " \
	    "rdmap.term.read_req.sink_stag=rdmap.read.sink_stag " \
	    "rdmap.term.read_req.sink_to=rdmap.read.sink_to " \
	    "rdmap.term.read_req.size=rdmap.read.size " \
	    "rdmap.term.read_req.src_stag=rdmap.read.src_stag " \
	    "rdmap.term.read_req.src_to=rdmap.read.src_to " \
	    "rdmap.term.rdma_raw=rdmap.term.rdma_hdr " \
	    "rdmap_rv=rdmap.rv rdmap_opcode=rdmap.opcode rdmap_error=rdmap.error " \
	    "payload_length=rdmap.payload_length payload=rdmap.payload", a, " ")
	for (i = 1; i <= n; i++) {
		split(a[i], kv, "=")
		M["fpdu." kv[1]] = kv[2]
		M["sctp_message." kv[1]] = kv[2]
	}
	n = split("ppid=ddp_sctp.ppid ppid_name=ddp_sctp.ppid.name " \
	    "length=ddp_sctp.length ddp_ssn=ddp_sctp.ssn " \
	    "session_control.function_code=ddp_sctp.fc " \
	    "session_control.name=ddp_sctp.fc.name " \
	    "session_control.pd_length=ddp_sctp.pdlength " \
	    "session_control.private_data=ddp_sctp.privatedata " \
	    "session_control.enhanced=ddp_sctp.enhanced " \
	    "session_control.enh.word=ddp_sctp.enh " \
	    "session_control.enh.a=ddp_sctp.p2p " \
	    "session_control.enh.b=ddp_sctp.rtr_send " \
	    "session_control.enh.c=ddp_sctp.rtr_write " \
	    "session_control.enh.d=ddp_sctp.rtr_read " \
	    "session_control.enh.ird=ddp_sctp.ird " \
	    "session_control.enh.ord=ddp_sctp.ord " \
	    "session_control.ulp_private_data=ddp_sctp.ulp_privatedata " \
	    "session_control_error=ddp_sctp.error " \
	    "version_problem=ddp_sctp.version_problem bad=ddp_sctp.bad " \
	    "stream=ddp_sctp.stream sequence_problem=ddp_sctp.sequence_problem",
	    a, " ")
	for (i = 1; i <= n; i++) {
		split(a[i], kv, "=")
		M["sctp_message." kv[1]] = kv[2]
	}
	# the frame type and CRC state as the plugin's value_strings number them
	FRAMEV["request"] = 1; FRAMEV["reply"] = 2; FRAMEV["rtr"] = 3
	CRCV["off"] = 0; CRCV["good"] = 1; CRCV["bad"] = 2; CRCV["unknown"] = 3
}

# ---- a small JSON reader: the line's values as path=value in P[] ----

function hexval(h,   i, v) {
	v = 0
	h = tolower(h)
	for (i = 1; i <= length(h); i++)
		v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
	return v
}

function jerr(msg) {
	print "JSONERR " NR ": " msg
	bad_json = 1
}

function jws() {
	while (pos <= len && index(" \t\r", substr(line, pos, 1)))
		pos++
}

function jstring(   s, c, out) {
	pos++ # opening quote
	out = ""
	while (pos <= len) {
		c = substr(line, pos, 1)
		if (c == "\"") {
			pos++
			return out
		}
		if (c == "\\") {
			pos++
			c = substr(line, pos, 1)
			if (c == "u") {
				# decode escapes each octet >= 0x80 of UTF-8
				# text as \u00XX: the octet again (under
				# LC_ALL=C)
				out = out sprintf("%c", hexval(substr(line, pos + 1, 4)))
				pos += 5
				continue
			}
			if (c == "n") c = "\n"
			else if (c == "t") c = "\t"
			out = out c
			pos++
			continue
		}
		out = out c
		pos++
	}
	jerr("unterminated string")
	return out
}

# jvalue(path): store the value at pos under path (arrays: path.N)
function jvalue(path,   c, k, n, v, list) {
	jws()
	c = substr(line, pos, 1)
	if (c == "{") {
		pos++
		jws()
		if (substr(line, pos, 1) == "}") { pos++; return }
		for (;;) {
			jws()
			if (substr(line, pos, 1) != "\"") { jerr("key"); return }
			k = jstring()
			jws()
			if (substr(line, pos, 1) != ":") { jerr("colon"); return }
			pos++
			jvalue(path == "" ? k : path "." k)
			if (bad_json) return
			jws()
			c = substr(line, pos, 1)
			pos++
			if (c == "}") return
			if (c != ",") { jerr("object"); return }
		}
	}
	if (c == "[") {
		pos++
		n = 0
		jws()
		if (substr(line, pos, 1) == "]") { pos++; P[path] = ""; ORDER[++np] = path; return }
		for (;;) {
			jvalue(path "." n)
			if (bad_json) return
			n++
			jws()
			c = substr(line, pos, 1)
			pos++
			if (c == "]") return
			if (c != ",") { jerr("array"); return }
		}
	}
	if (c == "\"") {
		v = jstring()
	} else {
		match(substr(line, pos), /^[-+0-9.eE]+|^true|^false|^null/)
		if (RLENGTH <= 0) { jerr("value at " pos); pos = len + 1; return }
		v = substr(line, pos, RLENGTH)
		pos += RLENGTH
	}
	P[path] = v
	ORDER[++np] = path
}

function emit(type, key,   i, p, q, m, f, v, out, n, names, o, rest) {
	n = 0
	for (i = 1; i <= np; i++) {
		p = ORDER[i]
		q = p
		o = ""
		# list elements: markers.list.N.x -> occurrence N of x;
		# arrays of names (rtr_offered.N) are joined
		if (match(q, /\.[0-9]+\./)) {
			o = substr(q, RSTART + 1, RLENGTH - 2)
			q = substr(q, 1, RSTART) substr(q, RSTART + RLENGTH)
		} else if (match(q, /\.[0-9]+$/)) {
			o = "join"
			q = substr(q, 1, RSTART - 1)
		}
		if ((q in SKIP) || ((type "." q) in SKIP))
			continue
		m = M[type "." q]
		if (m == "") {
			print "UNMAPPED " type " " q
			continue
		}
		v = P[p]
		if (q == "frame" && type == "frame") v = FRAMEV[v]
		if (q == "crc" && type == "fpdu") v = CRCV[v]
		if (q == "crc" && type == "negotiated") v = (v == "on")
		if (q == "crc_check") v = (v == "matches")
		if (o == "join") {
			if (m in J) J[m] = J[m] "," v
			else { J[m] = v; names[++n] = m }
			continue
		}
		if (o != "" && o != "0") m = m "#" o
		v = norm(v)
		if (v == "") continue
		names[++n] = m
		F[m] = v
	}
	for (i = 1; i <= n; i++)
		if (names[i] in J) F[names[i]] = J[names[i]]
	sortkeys(names, n)
	out = key
	for (i = 1; i <= n; i++)
		if (!(i > 1 && names[i] == names[i - 1]))
			out = out "\t" names[i] "=" F[names[i]]
	print out
	split("", F)
	split("", J)
}

BEGIN {
	skip_init()
	map_init()
	nsctp = 0
	# -v names=1: only list the plugin fields the records compare
	if (names) {
		for (k in M) {
			v = M[k]
			sub(/#.*/, "", v)
			print v
		}
		exit
	}
}

{
	line = $0
	len = length(line)
	pos = 1
	np = 0
	bad_json = 0
	split("", P)
	split("", ORDER)
	jvalue("")
	if (bad_json)
		next
	t = P["type"]
	if (t == "frame" || t == "fpdu") {
		emit(t, t " " P["src"] ">" P["dst"] " " P["offset"])
	} else if (t == "negotiated") {
		emit(t, t " " P["initiator"])
	} else if (t == "sctp_message") {
		if (P["ppid"] != 16 && P["ppid"] != 17)
			next
		emit(t, t " " nsctp++)
	}
}
