# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Helpers for the iwcmctl decode tests (POSIX sh, awk, grep, sed, od, dd).
# Sourced by each test; the harness exports top_builddir, srcdir, builddir.

set -u
: "${top_builddir:?}" "${srcdir:?}" "${builddir:?}"

IWCMCTL="$top_builddir/cli/iwcmctl"
CAPS="$srcdir/vectors/captures"
T="$builddir/decode-tmp.$(basename "$0" .sh).$$"
rm -rf "$T"
mkdir -p "$T" || exit 99
trap 'rm -rf "$T"' EXIT

if [ ! -x "$IWCMCTL" ]; then
	echo "SKIP: $IWCMCTL not built"
	exit 77
fi

n_checks=0
n_failed=0

ok() {
	n_checks=$((n_checks + 1))
	echo "ok $n_checks - $1"
}

not_ok() {
	n_checks=$((n_checks + 1))
	n_failed=$((n_failed + 1))
	echo "not ok $n_checks - $1"
}

# check DESC CMD...: run CMD, pass when it succeeds
check() {
	_desc=$1
	shift
	if "$@"; then ok "$_desc"; else not_ok "$_desc"; fi
}

# is DESC GOT WANT: string equality
is() {
	if [ "$2" = "$3" ]; then
		ok "$1"
	else
		not_ok "$1"
		echo "#   got:  '$2'"
		echo "#   want: '$3'"
	fi
}

# like DESC GOT GLOB: GOT matches the shell pattern GLOB
like() {
	# shellcheck disable=SC2254
	case "$2" in
	$3) ok "$1" ;;
	*)
		not_ok "$1"
		echo "#   got:  '$2'"
		echo "#   want: $3"
		;;
	esac
}

done_testing() {
	echo "# $n_checks checks, $n_failed failed"
	[ "$n_failed" -eq 0 ]
	exit $?
}

# decode_rc OUT ARGS...: run iwcmctl decode ARGS > OUT (stderr OUT.err),
# print the exit status
decode_rc() {
	_out=$1
	shift
	"$IWCMCTL" decode "$@" >"$_out" 2>"$_out.err"
	echo $?
}

# jval KEY < lines: the value of the first "KEY": on each line (strings
# without their quotes, objects and arrays not supported; "" if absent)
jval() {
	awk -v k="\"$1\":" '{
		i = index($0, k)
		if (!i) { print ""; next }
		s = substr($0, i + length(k))
		if (substr(s, 1, 1) == "\"") {
			s = substr(s, 2)
			print substr(s, 1, index(s, "\"") - 1)
		} else {
			match(s, /^[^],}]*/)
			print substr(s, 1, RLENGTH)
		}
	}'
}

# jobj KEY < lines: the first "KEY":{...} object on each line (no nesting
# inside it), braces included
jobj() {
	awk -v k="\"$1\":{" '{
		i = index($0, k)
		if (!i) { print ""; next }
		s = substr($0, i + length(k))
		print "{" substr(s, 1, index(s, "}"))
	}'
}

# jarr KEY < lines: the first "KEY":[...] array on each line
jarr() {
	awk -v k="\"$1\":[" '{
		i = index($0, k)
		if (!i) { print ""; next }
		s = substr($0, i + length(k))
		print "[" substr(s, 1, index(s, "]"))
	}'
}

# lines TYPE [PATTERN...] < json: the objects of one type, filtered by
# fixed strings
lines() {
	_pat="\"type\":\"$1\""
	shift
	_in=$(grep -F "$_pat")
	for _p in "$@"; do
		_in=$(printf '%s\n' "$_in" | grep -F "$_p")
	done
	[ -n "$_in" ] && printf '%s\n' "$_in"
	return 0
}

# count: number of non-empty lines on stdin
count() {
	grep -c . || true
}

# json_valid FILE: every line is one JSON object; with python3 around,
# also parse each line
json_valid() {
	if grep -v '^{.*}$' "$1" | grep -q .; then
		return 1
	fi
	if command -v python3 >/dev/null 2>&1; then
		python3 -c 'import json, sys
for line in open(sys.argv[1]):
    json.loads(line)' "$1" || return 1
	fi
	return 0
}

# ---- pcap surgery: split a little-endian pcap into records, join them ----

# u32le FILE OFFSET: the little-endian 32-bit word at OFFSET
u32le() {
	od -An -v -tu1 -j "$2" -N 4 "$1" |
		awk '{ print $1 + $2 * 256 + $3 * 65536 + $4 * 16777216 }'
}

# pcap_split FILE DIR: DIR/hdr is the file header, DIR/1, DIR/2, ... the
# records (16-octet header + data); prints the number of records
pcap_split() {
	_f=$1
	_d=$2
	mkdir -p "$_d"
	_size=$(wc -c <"$_f" | tr -d ' ')
	dd if="$_f" of="$_d/hdr" bs=24 count=1 2>/dev/null
	_off=24
	_i=0
	while [ $((_off + 16)) -le "$_size" ]; do
		_len=$(u32le "$_f" $((_off + 8)))
		_i=$((_i + 1))
		dd if="$_f" of="$_d/$_i" bs=1 skip="$_off" \
			count=$((16 + _len)) 2>/dev/null
		_off=$((_off + 16 + _len))
	done
	echo "$_i"
}

# pcap_join DIR OUT N...: OUT = header + the records named, in that order
pcap_join() {
	_d=$1
	_o=$2
	shift 2
	cat "$_d/hdr" >"$_o"
	for _r in "$@"; do
		cat "$_d/$_r" >>"$_o"
	done
}

# seq_list A B: A..B one per line (seq is not POSIX)
seq_list() {
	awk -v a="$1" -v b="$2" 'BEGIN { for (i = a; i <= b; i++) print i }'
}

# poke FILE OFFSET OCTAL: overwrite one octet (e.g. poke f 756 '\311')
poke() {
	# shellcheck disable=SC2059
	printf "$3" | dd of="$1" bs=1 seek="$2" conv=notrunc 2>/dev/null
}

# peek FILE OFFSET: the octet at OFFSET as two hex digits
peek() {
	od -An -v -tx1 -j "$2" -N 1 "$1" | tr -d ' \n'
}
