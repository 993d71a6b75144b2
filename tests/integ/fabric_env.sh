# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Sourced by the tests that run programs built outside the tree
# (fi_info, fi_pingpong, mpirun) with the provider: libfabric finds it
# through FI_PROVIDER_PATH.  In an ASan/UBSan build the provider needs
# the sanitizer runtimes loaded first, which those programs do not link:
# preload them, and leave leak checking to the tree's own programs (the
# hosts' leaks are not ours).
FI_PROVIDER_PATH="$top_builddir/fabric/.libs"
export FI_PROVIDER_PATH
fabric_preload=
for lib in $(readelf -d "$FI_PROVIDER_PATH/libiwcm-fi.so" 2>/dev/null |
	sed -n 's/.*NEEDED.*\[\(lib[a-z]*san\.so[.0-9]*\)\].*/\1/p'); do
	path=$(${CC:-cc} -print-file-name="$lib" 2>/dev/null)
	[ -f "$path" ] && fabric_preload="$fabric_preload $path"
done
if [ -n "$fabric_preload" ]; then
	LD_PRELOAD=${fabric_preload# }
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:verify_asan_link_order=0"
	export LD_PRELOAD ASAN_OPTIONS
fi
