#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# kdoc2man.sh HEADER OUTDIR: write one man page (section 3) per function
# documented with kernel-doc in HEADER (include/iwcm/iwcm.h or
# include/iwcm/verbs.h).  The pages in docs/ are this script's output;
# tests/check_headers.sh regenerates them and fails when they differ, so
# the headers stay the one source.
#
# Kernel-doc understood: "name() - Summary.", "@arg: text" (continued on
# lines indented by a tab), free paragraphs, "Context: ..." and
# "Return: ...".  Blocks for enums, structs and DOC: are skipped.  A
# static inline function's page shows its prototype, without body or
# "static inline".
set -eu

[ $# -eq 2 ] || { echo "usage: $0 HEADER OUTDIR" >&2; exit 2; }
header=$1
outdir=$2
mkdir -p "$outdir"

# The pages carry a fixed date so that regenerating them changes nothing
# unless the header did.
date=2026-11-21
base=$(basename "$header")

awk -v outdir="$outdir" -v date="$date" -v base="$base" '
function esc(s,   out, m) {
	gsub(/\\/, "\\e", s)
	gsub(/-1/, "\\-1", s)
	gsub("\302\247", "\\[sc]", s)
	# Function names bold, @arguments italic.
	out = ""
	while (match(s, /iwcm_[a-z0-9_]+\(\)|@[a-z_]+/)) {
		m = substr(s, RSTART, RLENGTH)
		out = out substr(s, 1, RSTART - 1)
		if (substr(m, 1, 1) == "@")
			out = out "\\fI" substr(m, 2) "\\fP"
		else
			out = out "\\fB" substr(m, 1, RLENGTH - 2) "\\fP()"
		s = substr(s, RSTART + RLENGTH)
	}
	s = out s
	if (substr(s, 1, 1) == "." || substr(s, 1, 1) == "\047")
		s = "\\&" s
	return s
}
function text_line(s) {
	return esc(s)
}
function flush_page(   f, i, sect, see, n, name, seen, refs, k) {
	f = outdir "/" fname ".3"
	print ".\\\" SPDX-License-Identifier: BSD-2-Clause" > f
	print ".\\\" Copyright (c) 2026 The iwcm authors" > f
	print ".\\\" Generated from include/iwcm/" base " by docs/kdoc2man.sh." > f
	print ".TH " toupper(fname) " 3 " date " iwcm " \
		"\"Library Functions Manual\"" > f
	print ".SH NAME" > f
	print fname " \\- " summary > f
	print ".SH LIBRARY" > f
	print "iwcm client library" > f
	print ".RI ( libiwcm \", \" \\-liwcm )" > f
	print ".SH SYNOPSIS" > f
	print ".nf" > f
	print ".B #include <iwcm/" base ">" > f
	print ".PP" > f
	for (i = 1; i <= nproto; i++)
		print proto[i] > f
	print ".fi" > f
	print ".SH DESCRIPTION" > f
	for (i = 1; i <= nargs; i++) {
		print ".TP" > f
		print ".I " argname[i] > f
		print text_line(argtext[i]) > f
	}
	if (nargs && ndesc)
		print ".PP" > f
	for (i = 1; i <= ndesc; i++)
		print (desc[i] == "" ? ".PP" : text_line(desc[i])) > f
	if (ctx != "") {
		print ".SH THREAD SAFETY" > f
		print text_line(ctx) > f
	}
	if (ret != "") {
		print ".SH RETURN VALUE" > f
		print text_line(ret) > f
	}
	# SEE ALSO: every other function the documentation names.
	all = summary " " ctx " " ret
	for (i = 1; i <= nargs; i++)
		all = all " " argtext[i]
	for (i = 1; i <= ndesc; i++)
		all = all " " desc[i]
	n = 0
	delete seen
	while (match(all, /iwcm_[a-z0-9_]+\(\)/)) {
		name = substr(all, RSTART, RLENGTH - 2)
		all = substr(all, RSTART + RLENGTH)
		if (name != fname && !(name in seen)) {
			seen[name] = 1
			refs[++n] = name
		}
	}
	if (n) {
		print ".SH SEE ALSO" > f
		for (k = 1; k <= n; k++)
			print ".BR " refs[k] " (3)" (k < n ? "," : "") > f
	}
	close(f)
}
function reset() {
	fname = ""; summary = ""; nargs = 0; ndesc = 0; ctx = ""; ret = ""
	nproto = 0; where = ""; skip = 0
	delete argname; delete argtext; delete desc; delete proto
}
BEGIN { state = 0; reset() }
state == 0 && /^\/\*\*$/ { state = 1; reset(); first = 1; next }
state == 1 && /^ \*\/$/ {
	# Trim trailing empty description lines.
	while (ndesc && desc[ndesc] == "")
		ndesc--
	state = skip ? 0 : 2
	next
}
state == 1 {
	line = $0
	sub(/^ \*/, "", line)
	cont = line ~ /^\t/
	sub(/^[ \t]+/, "", line)
	if (first) {
		first = 0
		if (line !~ /^iwcm_[a-z0-9_]+\(\) - /) {
			skip = 1
			next
		}
		fname = line
		sub(/\(\) - .*/, "", fname)
		summary = line
		sub(/^[^-]*- /, "", summary)
		sub(/\.$/, "", summary)
		if (substr(summary, 2, 1) !~ /[A-Z]/)
			summary = tolower(substr(summary, 1, 1)) \
				  substr(summary, 2)
		where = "head"
		next
	}
	if (skip)
		next
	if (line ~ /^@[a-z_]+:/) {
		argname[++nargs] = substr(line, 2, index(line, ":") - 2)
		argtext[nargs] = substr(line, index(line, ":") + 2)
		where = "arg"
		next
	}
	if (line ~ /^Context: /) {
		ctx = substr(line, 10); where = "ctx"; next
	}
	if (line ~ /^Return: /) {
		ret = substr(line, 9); where = "ret"; next
	}
	if (line == "") {
		if (where == "desc")
			desc[++ndesc] = ""
		else if (where != "ctx" && where != "ret")
			where = "blank"
		next
	}
	if (where == "arg" && cont) {
		argtext[nargs] = argtext[nargs] " " line; next
	}
	if (where == "ctx") { ctx = ctx " " line; next }
	if (where == "ret") { ret = ret " " line; next }
	desc[++ndesc] = line
	where = "desc"
	next
}
state == 2 && $0 == "{" {
	# A static inline definition: the prototype is what came before.
	sub(/^static inline /, "", proto[1])
	proto[nproto] = proto[nproto] ";"
	flush_page()
	state = 0
	next
}
state == 2 {
	proto[++nproto] = $0
	if ($0 ~ /;[ \t]*$/) {
		flush_page()
		state = 0
	}
	next
}
' "$header"
