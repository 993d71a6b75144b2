# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Helpers shared by the conformance scripts (sourced, not run).  POSIX sh
# and awk only: no python, no jq.  The test environment (tests/Makefile.am)
# exports top_builddir, top_srcdir, srcdir, builddir and TSHARK.
#
#   conf_init           temp dir $tmp, $IWCMCTL, counters
#   sample_gen F OPTS   iwcmctl sample -v -o F OPTS; the unit list in F.lst
#   sample_fpdus F      the generator's FPDUs, one per line:
#                         DIR ULPDU_LENGTH CRC DDP RDMAP
#   decode_fpdus [-x] F the same fields from iwcmctl decode -j F
#   JAWK                awk functions for decode -j lines
#   check NAME CMD...   run CMD, count a failure with NAME when it fails
#   same NAME A B       files A and B equal, else a failure and the diff
#   conf_done           print the result, exit 0 or 1

conf_init() {
	: "${top_builddir:?run through make check}"
	IWCMCTL=${IWCMCTL:-$top_builddir/cli/iwcmctl}
	if [ ! -x "$IWCMCTL" ]; then
		echo "FAIL: $IWCMCTL is not built"
		exit 99
	fi
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-conf.XXXXXX") || exit 99
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 1' HUP INT TERM
	n_checks=0
	n_fail=0
}

fail() {
	n_fail=$((n_fail + 1))
	echo "FAIL: $*"
}

# check NAME CMD...: one assertion.
check() {
	_name=$1
	shift
	n_checks=$((n_checks + 1))
	if "$@"; then
		return 0
	fi
	fail "$_name"
	return 1
}

# same NAME EXPECTED_FILE GOT_FILE: files equal, else show the difference.
same() {
	n_checks=$((n_checks + 1))
	if cmp -s "$2" "$3"; then
		return 0
	fi
	fail "$1"
	diff "$2" "$3" | head -20 | sed 's/^/    /'
	return 1
}

conf_done() {
	echo "$n_checks checks, $n_fail failed"
	[ "$n_fail" -eq 0 ] && exit 0
	exit 1
}

# sample_gen FILE OPTIONS...: write a sample and its -v listing (FILE.lst).
sample_gen() {
	_f=$1
	shift
	if ! "$IWCMCTL" sample -v -o "$_f" "$@" 2>"$_f.lst"; then
		fail "iwcmctl sample $*"
		sed 's/^/    /' "$_f.lst"
		return 1
	fi
	return 0
}

# sample_fpdus FILE: DIR ULPDU_LENGTH CRC DDP RDMAP per generated FPDU.
sample_fpdus() {
	awk '$1 == "fpdu" { print $3, $4, $6, $7, $8 }' "$1.lst"
}

# awk functions for the JSON lines of iwcmctl decode -j (flat enough for
# this: a key's first occurrence in the line is the one meant):
#   jget(s, key)  the value of "key": in s (strings without quotes)
#   jobj(s, key)  the text of the object "key":{...} (no nested objects)
#   hex(v)        a hex number without 0x and leading zeros, lower case
JAWK='
function jget(s, key,   i) {
	i = index(s, "\"" key "\":")
	if (!i)
		return ""
	s = substr(s, i + length(key) + 3)
	if (substr(s, 1, 1) == "\"") {
		s = substr(s, 2)
		return substr(s, 1, index(s, "\"") - 1)
	}
	match(s, /^[^],}]*/)
	return substr(s, 1, RLENGTH)
}
function jobj(s, key,   i) {
	i = index(s, "\"" key "\":{")
	if (!i)
		return ""
	s = substr(s, i + length(key) + 4)
	return substr(s, 1, index(s, "}") - 1)
}
function hex(v) {
	sub(/^0x/, "", v)
	sub(/^0+/, "", v)
	return v == "" ? "0" : tolower(v)
}
'

# decode_fpdus [-x] FILE: the sample_fpdus fields as iwcmctl decode -j
# reports them (-x: FILE is --hex text).  DDP is T/DV/STAG/TO/L or
# U/DV/QN/MSN/MO/L, RDMAP is RV/OPCODE, STag, TO and opcode in hex.
decode_fpdus() {
	_hx=
	if [ "$1" = -x ]; then
		_hx=--hex
		shift
	fi
	"$IWCMCTL" decode -j $_hx "$1" | awk "$JAWK"'
	/"type":"fpdu"/ {
		d = jobj($0, "ddp")
		if (jget(d, "t") == "1")
			ddp = "T/" jget(d, "dv") "/" hex(jget(d, "stag")) "/" \
			    hex(jget(d, "to")) "/" jget(d, "l")
		else
			ddp = "U/" jget(d, "dv") "/" jget(d, "qn") "/" \
			    jget(d, "msn") "/" jget(d, "mo") "/" jget(d, "l")
		r = jobj($0, "rdmap")
		print jget($0, "dir"), jget($0, "ulpdu_length"), \
		    jget($0, "crc"), ddp, \
		    jget(r, "rv") "/" sprintf("%x", jget(r, "opcode"))
	}'
}

# only_dir DIR: keep the lines of one direction.
only_dir() {
	awk -v d="$1" '$1 == d'
}
