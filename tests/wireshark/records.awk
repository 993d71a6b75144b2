# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Helpers shared by json_records.awk and pdml_records.awk.

# A value as both sides are compared: numbers in decimal (hex as
# decode and Wireshark print it converted, or lower-case hex without
# leading zeros when it does not fit awk's 53-bit doubles), booleans 1
# or 0, octet strings as plain lower-case hex.
function norm(v,   h, d, i, c) {
	if (v == "true" || v == "True") return 1
	if (v == "false" || v == "False") return 0
	if (v ~ /^0x[0-9a-fA-F]+$/) {
		h = tolower(substr(v, 3))
		sub(/^0+/, "", h)
		if (h == "") return 0
		if (length(h) > 13) return "0x" h
		d = 0
		for (i = 1; i <= length(h); i++)
			d = d * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1
		return sprintf("%.0f", d)
	}
	if (v ~ /^[0-9a-fA-F][0-9a-fA-F](:[0-9a-fA-F][0-9a-fA-F])+$/) {
		gsub(/:/, "", v)
		return tolower(v)
	}
	return v
}

# Insertion sort of a[1..n] (n is small).
function sortkeys(a, n,   i, j, t) {
	for (i = 2; i <= n; i++) {
		t = a[i]
		for (j = i - 1; j >= 1 && a[j] > t; j--)
			a[j + 1] = a[j]
		a[j + 1] = t
	}
}
