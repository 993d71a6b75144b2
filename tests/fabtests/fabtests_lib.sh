# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
# shellcheck shell=sh
#
# Sourced by tests/fabtests/run.sh and bench/fabtests-compare.sh (not
# run): where libfabric's fabtests 1.17.0 are built and how to tell that
# a server listens.  The sourcing script sets top_srcdir and
# top_builddir; FABTESTS_SRC (the directory of fabtests-1.17.0.tar.gz
# and its build.sh, default $top_srcdir/../shared/tools/fabtests) and
# FABTESTS_DIR (where they are built, kept between runs, default
# $top_builddir/tests/fabtests-build) may come from the environment.
: "${FABTESTS_SRC:=$top_srcdir/../shared/tools/fabtests}"
: "${FABTESTS_DIR:=$top_builddir/tests/fabtests-build}"

# fabtests_build: build fabtests into FABTESTS_DIR once (the shared
# tools' build.sh does nothing when they are built) and set ft to the
# built tree (its functional/, benchmarks/ and unit/); else set
# fabtests_why to the reason and return 1.
fabtests_build() {
	if [ ! -f "$FABTESTS_SRC/build.sh" ]; then
		fabtests_why="no fabtests build script at $FABTESTS_SRC (set FABTESTS_SRC)"
		return 1
	fi
	if ! ft=$(bash "$FABTESTS_SRC/build.sh" "$FABTESTS_DIR"); then
		fabtests_why="fabtests did not build (see $FABTESTS_DIR/build.log)"
		return 1
	fi
	if [ ! -x "$ft/functional/fi_msg" ]; then
		fabtests_why="fabtests built no fi_msg in $ft"
		return 1
	fi
	return 0
}

# fabtests_listening PORT: whether a socket listens on PORT (false when
# ss(8) is missing: the callers then wait their full delay).
fabtests_listening() {
	command -v ss >/dev/null 2>&1 &&
		ss -ltnH "sport = :$1" 2>/dev/null | grep -q .
}
