#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
#
# ./build.sh demo    install what is missing, build, run the demo: iwcmd
#                    and two processes connecting peer-to-peer through it,
#                    then a sample session encoded and decoded
# ./build.sh check   install what is missing, build, run every test
#                    (plain build, then an ASan/UBSan build of the same tests)
# ./build.sh interop install what is missing, build, run the interop suite
#                    against Linux siw in a qemu guest (tests/interop/,
#                    docs/interop.md); SKIP when qemu or a download is missing
# ./build.sh fabtests install what is missing, build, run libfabric's
#                    fabtests 1.17.0 against the provider iwcm next to tcp
#                    (tests/fabtests/run.sh); SKIP when fabtests cannot build
# ./build.sh hosts   install what is missing, build, run the multi-host
#                    cases (tests/hosts/): MPI across network namespaces
#                    each with its own iwcmd, links that drop or lose
#                    packets, daemons killed; SKIP where namespaces
#                    cannot be made
# ./build.sh build   install what is missing and build only
# ./build.sh deb     install what is missing, build the Debian packages into
#                    build-deb/ (dpkg-buildpackage -b on a copy of the tree,
#                    without make check unless DEB_BUILD_OPTIONS says
#                    otherwise), run lintian on them, then the install test
#                    (tests/deb/install-test.sh: a fresh Debian 12 root)
# ./build.sh deb-test  the install test alone, on build-deb/*.deb
# ./build.sh deps    only install (or, without root, print) the packages
# ./build.sh fuzz [RUNS]   build the libFuzzer harnesses with clang and run
#                    each for RUNS iterations (default 1000000)
#
# Build trees: build/ (plain), build-asan/, build-fuzz/, build-deb/.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
cd "$top"
jobs=$(nproc 2>/dev/null || echo 2)

# Debian 12 packages the build and the tests need.
PACKAGES="build-essential autoconf automake libtool pkg-config \
libisal-dev libpcap-dev check tshark \
libprotobuf-c-dev protobuf-c-compiler clang libclang-rt-14-dev \
libevent-dev libuv1-dev libusrsctp-dev libsystemd-dev systemd iproute2 tcpdump \
clang-format libfabric-dev libfabric-bin openmpi-bin libopenmpi-dev \
nftables wireshark-dev"

# What ./build.sh deb adds: the packaging tools and mmdebstrap for the
# install test's Debian 12 root.
DEB_PACKAGES="debhelper dpkg-dev fakeroot lintian mmdebstrap"

say() { printf '%s\n' "== $*"; }

# deps [EXTRA...]: PACKAGES and EXTRA
deps() {
	missing=""
	for p in $PACKAGES "$@"; do
		if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null |
			grep -q 'install ok installed'; then
			missing="$missing $p"
		fi
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -eq 0 ]; then
		say "installing:$missing"
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -q
		# shellcheck disable=SC2086
		apt-get install -o DPkg::Lock::Timeout=600 -y -q \
			--no-install-recommends $missing
	else
		echo "missing Debian packages; run as root:" >&2
		echo "  apt-get install -y$missing" >&2
		exit 1
	fi
}

configure_tree() {
	dir=$1
	shift
	if [ ! -x configure ] || [ configure.ac -nt configure ]; then
		say "autoreconf"
		autoreconf -fi >/dev/null
	fi
	mkdir -p "$dir"
	if [ ! -f "$dir/Makefile" ] || [ configure -nt "$dir/config.status" ]; then
		say "configure $dir $*"
		(cd "$dir" && "$top/configure" --enable-silent-rules "$@" >/dev/null)
	fi
}

build() {
	configure_tree build
	say "make"
	make -C build -j"$jobs" >/dev/null
}

run_check() {
	dir=$1
	say "make check ($dir)"
	# VERBOSE=yes: automake prints the log of every failed test under
	# its summary, where a CI log excerpt that ends there shows it
	if ! make -C "$dir" -j"$jobs" check VERBOSE=yes; then
		for log in $(find "$dir/tests" -name '*.log' ! -name test-suite.log); do
			if grep -q -E '^(FAIL|ERROR)' "${log%.log}.trs" 2>/dev/null; then
				echo "---- $log"
				tail -50 "$log"
			fi
		done
		exit 1
	fi
}

check() {
	build
	run_check build
	configure_tree build-asan --enable-asan
	make -C build-asan -j"$jobs" >/dev/null
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_check build-asan
	say "all tests passed"
}

# The suite prints SKIP and exits 0 (make check-interop) when it cannot
# run here; a failed case fails.
interop() {
	build
	say "make check-interop (build)"
	make -C build check-interop
}

# libfabric's own test suite against the provider; SKIP (success) when
# fabtests cannot be built here, a regression against tcp fails.
fabtests() {
	build
	say "make check-fabtests (build)"
	make -C build check-fabtests
}

# The multi-host cases: SKIP (exit 77, success here) where network
# namespaces cannot be made, a failed case fails.
hosts() {
	build
	say "multi-host cases (tests/hosts/run.sh)"
	rc=0
	top_builddir="$top/build" sh tests/hosts/run.sh || rc=$?
	[ $rc -eq 77 ] && return 0
	return $rc
}

# The Debian packages, built by dpkg-buildpackage in a copy of the tree
# (build-deb/src/iwcm-VERSION, whose parent gets the .debs) and moved to
# build-deb/; lintian must find no error and no warning.
deb_dir=$top/build-deb
deb() {
	tests/deb/check-symbols.sh
	version=$(sed -n 's/^AC_INIT(\[iwcm\], \[\([^]]*\)\].*/\1/p' configure.ac)
	debversion=$(dpkg-parsechangelog -l debian/changelog -S Version)
	if [ "${debversion%-*}" != "$version" ]; then
		echo "debian/changelog is at $debversion, configure.ac at $version:" >&2
		echo "  add a changelog entry (dch -v $version-1)" >&2
		exit 1
	fi
	src=$deb_dir/src/iwcm-$version
	rm -rf "$deb_dir"
	mkdir -p "$src"
	say "copying the tree to $src"
	if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
		git ls-files -z --cached --others --exclude-standard |
			tar -cf - --null --no-recursion --ignore-failed-read -T - |
			tar -xf - -C "$src"
	else
		tar -cf - --exclude='./build*' . | tar -xf - -C "$src"
	fi
	opts=${DEB_BUILD_OPTIONS-nocheck}
	case " $opts " in
	*" parallel="*) ;;
	*) opts="$opts parallel=$jobs" ;;
	esac
	profiles=${DEB_BUILD_PROFILES:-}
	case " $opts " in
	*" nocheck "*) profiles="${profiles:+$profiles }nocheck" ;;
	esac
	say "dpkg-buildpackage -us -uc -b (DEB_BUILD_OPTIONS='$opts')"
	(cd "$src" && DEB_BUILD_OPTIONS=$opts DEB_BUILD_PROFILES=$profiles \
		dpkg-buildpackage -us -uc -b) >"$deb_dir/build.log" 2>&1 || {
		tail -60 "$deb_dir/build.log"
		echo "dpkg-buildpackage failed: $deb_dir/build.log" >&2
		exit 1
	}
	for f in "$deb_dir"/src/*.deb "$deb_dir"/src/*.changes \
		"$deb_dir"/src/*.buildinfo; do
		mv "$f" "$deb_dir"/
	done
	rm -rf "$deb_dir/src"
	say "lintian (no error, no warning; info and pedantic shown)"
	lintian -I --pedantic --fail-on error,warning "$deb_dir"/*.changes
	say "packages in $deb_dir:"
	(cd "$deb_dir" && ls -1 ./*.deb)
}

# The install test on build-deb/*.deb; it prints SKIP and exits 77 where
# no Debian 12 root can be built here, which is not a failure.
deb_test() {
	rc=0
	tests/deb/install-test.sh "$deb_dir" || rc=$?
	[ $rc -eq 77 ] && return 0
	return $rc
}

demo_dir=
demo_pid=
demo_stop() {
	if [ -n "$demo_pid" ]; then
		kill "$demo_pid" 2>/dev/null || true
		wait "$demo_pid" 2>/dev/null || true
	fi
	[ -z "$demo_dir" ] || rm -rf "$demo_dir"
}

# Part 1: iwcmd on a private socket, examples/p2p_pair as two processes
# negotiating MPA v2 peer-to-peer through it.  Part 2: the wire codecs,
# a synthetic session written as a pcap and decoded.
demo() {
	build
	demo_dir=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-demo.XXXXXX")
	trap demo_stop EXIT
	trap 'exit 1' INT TERM
	sock=$demo_dir/iwcmd.sock
	printf '# iwcm demo: the defaults, a private socket\n' \
		>"$demo_dir/iwcmd.conf"
	say "starting iwcmd on $sock"
	build/daemon/iwcmd -d -f "$demo_dir/iwcmd.conf" --socket "$sock" \
		2>"$demo_dir/iwcmd.log" &
	demo_pid=$!
	i=0
	until build/cli/iwcmctl -s "$sock" status >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$demo_pid" 2>/dev/null; then
			cat "$demo_dir/iwcmd.log" >&2
			echo "iwcmd did not start" >&2
			exit 1
		fi
		sleep 0.01
	done
	IWCM_SOCKET=$sock
	export IWCM_SOCKET
	say "two processes connect peer-to-peer through it"
	: >"$demo_dir/listener.out"
	build/examples/p2p_pair listen 127.0.0.1:0 \
		>"$demo_dir/listener.out" 2>&1 &
	lpid=$!
	port=
	i=0
	while [ -z "$port" ]; do
		port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\)$/\1/p' \
			"$demo_dir/listener.out")
		i=$((i + 1))
		if [ $i -gt 500 ] || ! kill -0 "$lpid" 2>/dev/null; then
			[ -n "$port" ] && break
			cat "$demo_dir/listener.out" >&2
			exit 1
		fi
		[ -n "$port" ] || sleep 0.01
	done
	rc=0
	build/examples/p2p_pair connect "127.0.0.1:$port" \
		>"$demo_dir/connector.out" 2>&1 || rc=1
	wait "$lpid" || rc=1
	say "listener (build/examples/p2p_pair listen 127.0.0.1:0)"
	cat "$demo_dir/listener.out"
	say "connector (build/examples/p2p_pair connect 127.0.0.1:$port)"
	cat "$demo_dir/connector.out"
	say "iwcmd's log"
	cat "$demo_dir/iwcmd.log"
	demo_stop
	demo_pid=
	demo_dir=
	[ $rc -eq 0 ] || exit 1

	out=${TMPDIR:-/tmp}/iwcm-demo.pcap
	say "encoding a sample MPA v2 peer-to-peer session into $out"
	build/cli/iwcmctl sample -o "$out"
	say "decoding it"
	build/cli/iwcmctl decode "$out"
}

fuzz() {
	runs=${1:-1000000}
	configure_tree build-fuzz --enable-fuzzing CC=clang
	make -C build-fuzz -j"$jobs" >/dev/null
	make -C build-fuzz/tests -j"$jobs" fuzz-programs >/dev/null
	for h in $(make -s -C build-fuzz/tests print-fuzz-harnesses); do
		say "fuzz $h ($runs runs)"
		corpus=$(mktemp -d)
		cp "tests/fuzz/corpus/$h"/* "$corpus"/
		build-fuzz/tests/"$h" -runs="$runs" -print_final_stats=1 \
			"$corpus" 2>&1 | grep -E 'stat::number_of_executed_units|ERROR|SUMMARY' || true
		rm -rf "$corpus"
	done
}

cmd=${1:-}
case "$cmd" in
demo) deps; demo ;;
check) deps; check ;;
build) deps; build ;;
deb) deps $DEB_PACKAGES; deb; deb_test ;;
deb-test) deps $DEB_PACKAGES; deb_test ;;
interop) deps; interop ;;
fabtests) deps; fabtests ;;
hosts) deps; hosts ;;
deps) deps ;;
fuzz) deps; shift; fuzz "${1:-}" ;;
*)
	sed -n '3,30p' "$0" | sed 's/^# \{0,1\}//'
	exit 2
	;;
esac
