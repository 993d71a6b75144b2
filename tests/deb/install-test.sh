#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The install test of the Debian packages (./build.sh deb, deb-test):
# a fresh Debian 12 root made by mmdebstrap from the Debian mirror this
# machine uses (cached as a tarball under $IWCM_DEB_CACHE, default
# /var/tmp/iwcm-deb, with the downloaded packages), in a private mount
# and PID namespace that takes every mount and process with it at exit.
# There, with no FI_PROVIDER_PATH, LD_LIBRARY_PATH or IWCM_SOCKET:
#   - apt-get install ./*.deb pulls every dependency from the mirror, and
#     every ELF file of the packages resolves its libraries;
#   - the shipped /etc/iwcm/iwcmd.conf, and the same with every default
#     it documents uncommented, pass iwcmd -n;
#   - debian/tests/build: a program built with pkg-config iwcm runs;
#   - debian/tests/smoke: iwcmd runs as iwcmd.service would run it (user
#     iwcm, its ExecStart=), iwcmctl connect --p2p completes against
#     iwcmctl listen, fi_info -p iwcm lists the provider;
#   - tshark loads the plugin of wireshark-iwcm (protocol iwcm_mpa);
#   - mpirun, as a user of the group iwcm, runs examples/mpi/mpi_check on
#     4 ranks over "iwcm;ofi_rxm" with MCA flags alone, and iwcmd counts
#     the connections;
#   - the maintainer scripts are idempotent: reinstall, an upgrade to a
#     newer version whose conffile changed too, the operator's edit of
#     /etc/iwcm/iwcmd.conf kept both times, the daemon working after;
#   - apt-get purge leaves nothing but the system user iwcm (Debian
#     policy 9.2.1: a package does not remove the users it created).
# Prints SKIP and exits 77 where no root can be built (not root, no
# mmdebstrap, no route to the mirror).
# Usage: tests/deb/install-test.sh [DEBDIR]   (default build-deb/)
# IWCM_DEB_FRESH=1 builds the root anew (a cold cache).
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
cache=${IWCM_DEB_CACHE:-/var/tmp/iwcm-deb}
suite=bookworm

skip() {
	echo "SKIP: $*"
	exit 77
}
fail() {
	echo "FAIL: $*"
	exit 1
}
say() { printf '%s\n' "== $*"; }
t0=${IWCM_DEB_T0:-$(date +%s)}
elapsed() { echo "$(($(date +%s) - t0)) s"; }

# ---- inside the namespace: ROOT prepared, every step -----------------
if [ "${1:-}" = --inside ]; then
	root=$2
	debs=$3
	set --
	# run COMMAND in the root with a clean environment
	inroot() {
		chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
			HOME=/root LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
			"$@"
	}
	apt_get() {
		inroot apt-get -q -y -o Dpkg::Use-Pty=0 \
			-o Dpkg::Options::=--force-confdef \
			-o Dpkg::Options::=--force-confold "$@" \
			>"$root/tmp/apt.log" 2>&1 || {
			tail -40 "$root/tmp/apt.log"
			fail "apt-get $*"
		}
	}
	mount -t proc proc "$root/proc"
	mount --rbind /dev "$root/dev"
	mount -t tmpfs -o mode=1777 tmpfs "$root/dev/shm"
	mount --rbind /sys "$root/sys"
	mount -t tmpfs -o mode=0755 tmpfs "$root/run"
	mount -t tmpfs -o mode=1777 tmpfs "$root/tmp"
	mkdir -p "$cache/archives/partial"
	mount --bind "$cache/archives" "$root/var/cache/apt/archives"
	cp /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
	mkdir -p "$root/tmp/debs" "$root/tmp/iwcm-test"
	cp "$debs"/*.deb "$root/tmp/debs/"
	chmod -R a+rX "$root/tmp/debs"
	cp "$top/debian/tests/smoke" "$top/debian/tests/build" \
		"$root/tmp/iwcm-test/"

	# What a purge must leave as it was: every path but the volatile
	# and the package manager's own state and caches.
	snapshot() {
		inroot find / -xdev \( -path /proc -o -path /sys -o -path /dev \
			-o -path /run -o -path /tmp -o -path /var/tmp \
			-o -path /var/cache -o -path /var/log \
			-o -path /var/lib/apt -o -path /var/lib/dpkg \) -prune \
			-o -print | sort >"$1"
	}
	# the user who runs MPI, made before the snapshot; it joins the group
	# iwcm once the package made it
	inroot useradd -m mpiuser
	snapshot "$root/tmp/before"
	cp "$root/etc/passwd" "$root/tmp/passwd.before"
	inroot dpkg-query -W -f='${Package}\n' | sort >"$root/tmp/pkgs.before"

	say "apt-get install ./*.deb ($(elapsed))"
	apt_get update
	inroot sh -c 'cd /tmp/debs && apt-get -q -y -o Dpkg::Use-Pty=0 \
		install ./*.deb' >"$root/tmp/apt.log" 2>&1 || {
		tail -40 "$root/tmp/apt.log"
		fail "apt-get install ./*.deb"
	}
	ours=$(for f in "$root"/tmp/debs/*.deb; do
		dpkg-deb -f "$f" Package
	done | sort -u)
	for p in $ours; do
		inroot dpkg-query -W -f='${Status}\n' "$p" |
			grep -q 'install ok installed' || fail "$p not installed"
	done
	echo "ok: installed $(echo $ours)"
	echo "    with $(grep -c '^Setting up' "$root/tmp/apt.log") packages set up"

	# every ELF file of ours finds its libraries with no LD_LIBRARY_PATH
	n=0
	for p in $ours; do
		for f in $(inroot dpkg -L "$p"); do
			[ -f "$root$f" ] && [ ! -L "$root$f" ] || continue
			case "$f" in /usr/lib/debug/*) continue ;; esac
			head -c 4 "$root$f" | grep -q 'ELF' || continue
			out=$(inroot ldd "$f" 2>&1) || fail "ldd $f: $out"
			case "$out" in *"not found"*) fail "ldd $f: $out" ;; esac
			n=$((n + 1))
		done
	done
	[ $n -ge 6 ] || fail "only $n ELF files in the packages"
	echo "ok: the $n ELF files of the packages resolve every library"
	[ -f "$root/usr/lib/x86_64-linux-gnu/libfabric/libiwcm-fi.so" ] ||
		fail "no provider in libfabric's directory"
	# enabled as debhelper does (deb-systemd-helper works without a
	# running systemd); the metrics socket is left to the operator
	wants=$root/etc/systemd/system
	for u in multi-user.target.wants/iwcmd.service \
		sockets.target.wants/iwcmd.socket \
		sockets.target.wants/iwcmd-admin.socket; do
		[ -L "$wants/$u" ] || fail "$u not enabled"
	done
	[ ! -e "$wants/sockets.target.wants/iwcm-metrics.socket" ] ||
		fail "iwcm-metrics.socket enabled"
	echo "ok: iwcmd.service, iwcmd.socket, iwcmd-admin.socket enabled;" \
		"iwcm-metrics.socket not"
	inroot getent passwd iwcm >/dev/null || fail "no user iwcm"
	echo "ok: user iwcm: $(inroot getent passwd iwcm)"

	say "configuration ($(elapsed))"
	conf=/etc/iwcm/iwcmd.conf
	inroot dpkg-query -W -f='${Conffiles}\n' iwcmd | grep -q " $conf " ||
		fail "$conf is not a conffile of iwcmd"
	inroot iwcmd -n || fail "iwcmd -n on the shipped $conf"
	# every documented default uncommented, but the placeholders
	sed -n 's/^#\([a-z_0-9]* = \)/\1/p; s/^#\(\[listener \)/\1/p' \
		"$root$conf" | grep -v -e '^allow_privileged' -e '^owner' \
		>"$root/tmp/defaults.conf"
	[ "$(grep -c ' = ' "$root/tmp/defaults.conf")" -ge 30 ] ||
		fail "fewer than 30 keys documented in $conf"
	inroot iwcmd -n -f /tmp/defaults.conf ||
		fail "iwcmd -n on $conf's defaults uncommented"
	echo "ok: iwcmd -n accepts $conf and its $(grep -c ' = ' \
		"$root/tmp/defaults.conf") documented defaults"

	say "the tools the test uses: fi_info, mpirun ($(elapsed))"
	apt_get install --no-install-recommends libfabric-bin openmpi-bin \
		procps build-essential pkgconf tshark

	say "wireshark-iwcm: tshark loads the plugin ($(elapsed))"
	out=$(inroot tshark -G plugins 2>&1) || fail "tshark -G plugins: $out"
	case "$out" in
	*iwcm.so*) echo "ok: $(echo "$out" | grep iwcm.so)" ;;
	*) fail "tshark does not load iwcm.so: $out" ;;
	esac
	inroot tshark -G protocols 2>/dev/null | grep -q '	iwcm_mpa$' ||
		fail "tshark has no protocol iwcm_mpa"

	say "autopkgtest build: a program on libiwcm-dev ($(elapsed))"
	inroot sh /tmp/iwcm-test/build

	say "smoke: iwcmd as its unit runs it ($(elapsed))"
	smoke() { inroot sh /tmp/iwcm-test/smoke "$@"; }
	smoke start
	smoke check

	say "mpirun -n 4 mpi_check over iwcm;ofi_rxm ($(elapsed))"
	inroot usermod -a -G iwcm mpiuser
	cp "$work/mpi_check" "$root/home/mpiuser/mpi_check"
	chroot "$root" chown mpiuser: /home/mpiuser/mpi_check
	established() {
		inroot iwcmctl stats | awk '$1 == "established" { print $2 }'
	}
	before=$(established)
	rc=0
	timeout 300 chroot "$root" runuser -u mpiuser -- env -i \
		PATH=/usr/bin:/bin HOME=/home/mpiuser LC_ALL=C.UTF-8 \
		mpirun --oversubscribe -n 4 --mca mpi_yield_when_idle 1 \
		--mca pml cm --mca mtl ofi \
		--mca mtl_ofi_provider_include "iwcm;ofi_rxm" \
		--mca btl self --mca osc pt2pt /home/mpiuser/mpi_check \
		>"$root/tmp/mpi.out" 2>&1 || rc=$?
	after=$(established)
	cat "$root/tmp/mpi.out"
	[ $rc -eq 0 ] || fail "mpirun exited $rc"
	oks=$(grep -c ': ok$' "$root/tmp/mpi.out" || true)
	[ "$oks" -eq 4 ] || fail "$oks of 4 ranks report ok"
	[ -n "$before" ] && [ -n "$after" ] &&
		[ $((after - before)) -ge 12 ] ||
		fail "iwcmd's established rose from $before to $after, not by 12"
	echo "ok: 4 ranks ok as mpiuser (group iwcm); iwcmd established" \
		"$before -> $after"
	smoke stop

	say "maintainer scripts: reinstall, upgrade, the operator's edit ($(elapsed))"
	echo "# edited by the operator" >>"$root$conf"
	echo "log_level = debug" >>"$root$conf"
	edited=$(md5sum <"$root$conf")
	# shellcheck disable=SC2046
	apt_get install --reinstall $(cd "$root/tmp/debs" &&
		ls ./*.deb | sed 's|^\./|/tmp/debs/|')
	[ "$(md5sum <"$root$conf")" = "$edited" ] ||
		fail "reinstall replaced the edited $conf"
	echo "ok: reinstall of every package; the edited $conf kept"
	# a newer iwcmd whose conffile changed too: the operator's is kept,
	# the package's lands beside it as .dpkg-dist
	old=$(ls "$root"/tmp/debs/iwcmd_*.deb)
	ver=$(dpkg-deb -f "$old" Version)
	new=$ver.1
	rm -rf "$work/repack"
	dpkg-deb -R "$old" "$work/repack"
	sed -i "s/^Version: .*/Version: $new/" "$work/repack/DEBIAN/control"
	echo "# a line the newer package added" >>"$work/repack$conf"
	dpkg-deb -b "$work/repack" "$root/tmp/iwcmd_new.deb" >/dev/null
	apt_get install /tmp/iwcmd_new.deb
	[ "$(inroot dpkg-query -W -f='${Version}' iwcmd)" = "$new" ] ||
		fail "iwcmd not upgraded to $new"
	[ "$(md5sum <"$root$conf")" = "$edited" ] ||
		fail "the upgrade replaced the edited $conf"
	[ -f "$root$conf.dpkg-dist" ] ||
		fail "the upgrade left no $conf.dpkg-dist"
	echo "ok: upgrade $ver -> $new: the edited $conf kept," \
		"the package's as $conf.dpkg-dist"
	# back, with iwcmd-dbgsym, which the upgrade removed (it wants the
	# same version of iwcmd)
	# shellcheck disable=SC2046
	apt_get install --allow-downgrades $(cd "$root/tmp/debs" &&
		ls ./*.deb | sed 's|^\./|/tmp/debs/|')
	[ "$(inroot dpkg-query -W -f='${Version}' iwcmd)" = "$ver" ] ||
		fail "iwcmd not back at $ver"
	for p in $ours; do
		inroot dpkg-query -W -f='${Status}\n' "$p" |
			grep -q 'install ok installed' || fail "$p not installed"
	done
	[ "$(md5sum <"$root$conf")" = "$edited" ] ||
		fail "the downgrade replaced the edited $conf"
	echo "ok: back to $ver, the edited $conf kept"
	smoke start
	smoke check
	smoke stop
	# log_level = debug, the operator's edit, is in force: a debug line
	# (<7>, as under systemd) for the handshake just made
	grep -q '^<7>' "$root/tmp/iwcm-smoke/iwcmd.log" ||
		fail "no debug line in iwcmd's log: the edited $conf not read"
	echo "ok: iwcmd runs with the edited $conf (debug lines logged)"

	say "purge ($(elapsed))"
	inroot gpasswd -d mpiuser iwcm >/dev/null
	rm -f "$root/home/mpiuser/mpi_check"
	apt_get purge --autoremove $ours libfabric-bin openmpi-bin procps \
		build-essential pkgconf tshark
	left=$(inroot dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' |
		awk '$1 != "ii" && $1 != "un" { print }')
	[ -z "$left" ] || fail "packages not purged: $left"
	# What apt's autoremove keeps because another package suggests or
	# recommends it (libfido2-1, which openmpi-bin's openssh-client
	# brought and systemd suggests; build-essential's packages, which
	# suggest one another) is the test tools' doing, not ours.
	inroot dpkg-query -W -f='${Package}\n' | sort >"$root/tmp/pkgs.after"
	kept=$(comm -13 "$root/tmp/pkgs.before" "$root/tmp/pkgs.after")
	if [ -n "$kept" ]; then
		echo "note: apt's autoremove kept" $kept "(suggested or" \
			"recommended by other packages); removing them"
		apt_get autoremove --purge \
			-o APT::AutoRemove::SuggestsImportant=false \
			-o APT::AutoRemove::RecommendsImportant=false
	fi
	inroot dpkg-query -W -f='${Package}\n' | sort >"$root/tmp/pkgs.after"
	kept=$(comm -13 "$root/tmp/pkgs.before" "$root/tmp/pkgs.after")
	[ -z "$kept" ] || fail "still installed after the purge:" $kept
	snapshot "$root/tmp/after"
	if ! cmp -s "$root/tmp/before" "$root/tmp/after"; then
		diff "$root/tmp/before" "$root/tmp/after" | grep '^[<>]' | head -40
		fail "the purge left the root different (> new, < gone)"
	fi
	echo "ok: every path of the root as before the install"
	diff "$root/tmp/passwd.before" "$root/etc/passwd" | grep '^>' |
		sed 's/^> /    kept, as Debian policy 9.2.1 says: /'
	inroot getent passwd iwcm >/dev/null || fail "user iwcm gone"
	echo "PASS: install test ($(elapsed))"
	exit 0
fi

# ---- outside: checks, the cached root, the namespace -----------------
debs=$(cd "${1:-$top/build-deb}" 2>/dev/null && pwd) ||
	fail "no ${1:-$top/build-deb}: run ./build.sh deb first"
ls "$debs"/iwcmd_*.deb >/dev/null 2>&1 ||
	fail "no iwcmd_*.deb in $debs: run ./build.sh deb first"
[ "$(id -u)" -eq 0 ] || skip "not root: mmdebstrap, chroot and mount need root"
command -v mmdebstrap >/dev/null ||
	skip "mmdebstrap not installed (apt-get install mmdebstrap)"
command -v unshare >/dev/null || skip "unshare not found (util-linux)"
command -v mpicc >/dev/null ||
	fail "mpicc not found: ./build.sh deps installs libopenmpi-dev"

# The mirror this machine's apt uses (deb822 or one-line sources).
sources_uri() { # SUITE: the first URI serving it
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v s="$1" '
			/^[ \t]*$/ { if (u != "" && ok) { print u; exit }
				u = ""; ok = 0; next }
			/^URIs:/ { u = $2 }
			/^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
			END { if (u != "" && ok) print u }' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk -v s="$1" '$1 == "deb" && $3 == s { print $2 }'
}
mirror=${IWCM_DEB_MIRROR:-$(sources_uri $suite | head -n 1)}
security=${IWCM_DEB_SECURITY:-$(sources_uri $suite-security | head -n 1)}
mirror=${mirror:-http://deb.debian.org/debian}
security=${security:-http://deb.debian.org/debian-security}
mirror=${mirror%/}
security=${security%/}

# one run at a time: the cache's tarball and downloads are shared
mkdir -p "$cache"
exec 9>"$cache/lock"
if ! flock -n 9; then
	say "waiting for another install test ($cache/lock)"
	flock 9
fi

work=$(mktemp -d /var/tmp/iwcm-deb-test.XXXXXX)
cleanup() {
	# the namespace has exited: its mounts are gone with it
	if [ -n "${work:-}" ]; then
		if grep -q " $work/" /proc/self/mounts; then
			echo "warning: mounts left under $work; not removing it" >&2
		else
			rm -rf "$work"
		fi
	fi
}
trap cleanup EXIT
trap 'exit 1' INT TERM

if ! timeout 30 /usr/lib/apt/apt-helper download-file \
	"$mirror/dists/$suite/InRelease" "$work/InRelease" >/dev/null 2>&1; then
	skip "no route to the Debian mirror $mirror"
fi

# The base root: Debian 12's essential packages, apt, systemd and dbus
# (which systemd recommends: every Debian 12 host has both) and passwd;
# the packages' own dependencies are not in it, so that apt-get install
# must find every one.
mkdir -p "$cache/archives"
base=$cache/$suite-base.tar
key="$suite apt systemd,dbus,passwd $mirror $security"
if [ "${IWCM_DEB_FRESH:-0}" = 1 ] || [ ! -s "$base" ] ||
	[ "$(cat "$base.key" 2>/dev/null)" != "$key" ] ||
	[ -n "$(find "$base" -mtime +7)" ]; then
	say "mmdebstrap $suite from $mirror into $base"
	rm -rf "$base" "$base.key"
	new=$cache/$suite-base.new.tar
	mmdebstrap --mode=root --variant=apt --include=systemd,dbus,passwd \
		--aptopt='Acquire::Retries "3"' \
		$suite "$new" \
		"deb $mirror $suite main" \
		"deb $mirror $suite-updates main" \
		"deb $security $suite-security main" >"$work/mmdebstrap.log" 2>&1 || {
		tail -30 "$work/mmdebstrap.log"
		rm -f "$new"
		fail "mmdebstrap failed"
	}
	mv "$new" "$base"
	echo "$key" >"$base.key"
else
	say "cached root $base"
fi
say "root in $work/root ($(elapsed))"
mkdir "$work/root"
tar -xf "$base" -C "$work/root"

# mpi_check from the project's source with the host's mpicc (Debian 12's
# Open MPI, the same as the root's openmpi-bin)
mpicc -O2 -o "$work/mpi_check" "$top/examples/mpi/mpi_check.c"

IWCM_DEB_T0=$t0
export top cache work IWCM_DEB_T0
rc=0
unshare --mount --pid --fork --propagation private -- \
	"$0" --inside "$work/root" "$debs" || rc=$?
exit $rc
