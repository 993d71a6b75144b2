#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Build (or find cached) the interop guest: Debian's own amd64 kernel,
# siw.ko compiled from Debian's linux-source of exactly that kernel (Debian
# builds its kernels without CONFIG_RDMA_SIW) with siw-params.patch, and a
# busybox + rdma-core initramfs.  Idempotent: every step is skipped when
# its output is in the cache and its inputs did not change.
#
#   build-guest.sh [-q]     -q: print only what is rebuilt
#
# Environment:
#   IWCM_INTEROP_CACHE  the cache (default /var/tmp/iwcm-interop-cache)
#   IWCM_INTEROP_KVER   the kernel ABI, e.g. 6.1.0-56-amd64 (default: the
#                       one Debian's linux-image-amd64 depends on)
#
# Output: $CACHE/$KVER/{vmlinuz,initramfs.cpio.gz,siw.modinfo}, and
# $CACHE/current pointing at $KVER (run-guest.sh boots that).
#
# Exit status: 0 built; 77 after "SKIP: reason" when the infrastructure is
# missing (packages that cannot be installed, a failed download, no
# root to install what is missing); 1 when the build itself fails.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${IWCM_INTEROP_CACHE:-/var/tmp/iwcm-interop-cache}
QUIET=0
[ "${1:-}" = -q ] && QUIET=1

say() { [ "$QUIET" = 1 ] || echo "build-guest: $*" >&2; }
act() { echo "build-guest: $*" >&2; }
skip() {
	echo "SKIP: $*"
	exit 77
}
die() {
	echo "build-guest: $*" >&2
	exit 1
}

# ---- host packages ----------------------------------------------------
# What the guest is made of, and what builds siw.ko.
PKGS="qemu-system-x86 busybox-static rdma-core ibverbs-providers \
ibverbs-utils rdmacm-utils perftest tcpdump iproute2 cpio kmod xz-utils \
gcc make libc6-dev librdmacm-dev libibverbs-dev"

installed() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null |
		grep -q 'install ok installed'
}

# need_pkgs PKG...: install what is missing, or SKIP saying why not.
need_pkgs() {
	local missing="" p
	for p in "$@"; do
		installed "$p" || missing="$missing $p"
	done
	[ -z "$missing" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		skip "missing Debian packages (install as root):$missing"
	fi
	command -v apt-get >/dev/null 2>&1 ||
		skip "missing packages and no apt-get:$missing"
	act "apt-get install$missing"
	export DEBIAN_FRONTEND=noninteractive
	# shellcheck disable=SC2086
	if ! apt-get install -y -q --no-install-recommends $missing \
		>"$CACHE/apt.log" 2>&1; then
		apt-get update -q >>"$CACHE/apt.log" 2>&1 || true
		# shellcheck disable=SC2086
		apt-get install -y -q --no-install-recommends $missing \
			>>"$CACHE/apt.log" 2>&1 ||
			skip "apt-get install$missing failed: $(tail -n 1 \
				"$CACHE/apt.log")"
	fi
}

mkdir -p "$CACHE" || skip "cannot create the cache $CACHE"
exec 9>"$CACHE/.lock"
flock 9 || die "cannot lock $CACHE/.lock"

command -v dpkg-query >/dev/null 2>&1 || skip "not a Debian system"
[ "$(dpkg --print-architecture)" = amd64 ] ||
	skip "the guest is Debian amd64; this host is $(dpkg --print-architecture)"
# shellcheck disable=SC2086
need_pkgs $PKGS

# ---- the kernel version -----------------------------------------------
KVER=${IWCM_INTEROP_KVER:-}
if [ -z "$KVER" ]; then
	KVER=$(apt-cache depends linux-image-amd64 2>/dev/null |
		sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' | head -n 1)
	if [ -z "$KVER" ] && [ "$(id -u)" -eq 0 ]; then
		apt-get update -q >"$CACHE/apt.log" 2>&1 || true
		KVER=$(apt-cache depends linux-image-amd64 2>/dev/null |
			sed -n 's/^ *Depends: linux-image-\([0-9].*\)$/\1/p' |
			head -n 1)
	fi
	[ -n "$KVER" ] || skip "apt knows no linux-image-amd64 (apt-get update?)"
fi
case $KVER in
*-amd64) ;;
*) skip "kernel ABI '$KVER' is not an amd64 flavour" ;;
esac
D=$CACHE/$KVER
mkdir -p "$D"
say "kernel $KVER, cache $D"
need_pkgs "linux-headers-$KVER"
KBUILD=/usr/src/linux-headers-$KVER
[ -f "$KBUILD/Makefile" ] || die "no $KBUILD/Makefile"

# download PKG[=VERSION] NAME: the .deb of PKG into $D/dl (NAME_*.deb).
download() {
	mkdir -p "$D/dl"
	rm -f "$D/dl/$2"_*.deb
	act "downloading $1"
	if ! (cd "$D/dl" && apt-get download -q "$1") >"$D/dl/log" 2>&1; then
		rm -f "$D/dl/$2"_*.deb
		skip "apt-get download $1 failed: $(grep -v unsandboxed \
			"$D/dl/log" | tail -n 1)"
	fi
	ls "$D/dl/$2"_*.deb >/dev/null 2>&1 ||
		skip "apt-get download $1 left no $2 package"
}

# ---- 1. the kernel image and its modules ------------------------------
if [ ! -f "$D/image.done" ]; then
	download "linux-image-$KVER" "linux-image-$KVER"
	rm -rf "$D/kroot"
	dpkg-deb -x "$D/dl/linux-image-$KVER"_*.deb "$D/kroot"
	dpkg-deb -f "$D/dl/linux-image-$KVER"_*.deb Version >"$D/pkgversion"
	cp "$D/kroot/boot/vmlinuz-$KVER" "$D/vmlinuz"
	rm -f "$D/dl/linux-image-$KVER"_*.deb
	touch "$D/image.done"
fi
PKGVER=$(cat "$D/pkgversion")
say "linux-image-$KVER $PKGVER"

# ---- 2. siw's pristine source, from linux-source of the same version -----
SRCPKG=linux-source-$(echo "$KVER" | cut -d. -f1,2)
SIWDIR=drivers/infiniband/sw/siw
if [ ! -f "$D/siw-orig.done" ]; then
	download "$SRCPKG=$PKGVER" "$SRCPKG"
	rm -rf "$D/siw-orig"
	mkdir -p "$D/siw-orig"
	act "extracting $SIWDIR from $SRCPKG $PKGVER"
	dpkg-deb --fsys-tarfile "$D/dl/$SRCPKG"_*.deb |
		tar -xO "./usr/src/$SRCPKG.tar.xz" |
		tar -xJ -C "$D/siw-orig" --strip-components=1 \
			"$SRCPKG/$SIWDIR" ||
		die "cannot extract $SIWDIR from $SRCPKG"
	rm -f "$D/dl/$SRCPKG"_*.deb
	touch "$D/siw-orig.done"
fi

# ---- 3. siw.ko: the pristine source with siw-params.patch ------------------
PATCH=$HERE/siw-params.patch
KO_STAMP="$KVER $PKGVER $(sha256sum <"$PATCH" | cut -c1-16)"
if [ ! -f "$D/siw.ko" ] ||
	[ "$(cat "$D/siw.stamp" 2>/dev/null)" != "$KO_STAMP" ]; then
	act "building siw.ko ($SRCPKG $PKGVER + siw-params.patch)"
	rm -rf "$D/siw-build"
	cp -a "$D/siw-orig" "$D/siw-build"
	(cd "$D/siw-build" && patch -p1 -s --no-backup-if-mismatch <"$PATCH") ||
		die "siw-params.patch does not apply to $SRCPKG $PKGVER"
	make -s -C "$KBUILD" M="$D/siw-build/$SIWDIR" CONFIG_RDMA_SIW=m \
		modules >"$D/siw-build.log" 2>&1 || {
		cat "$D/siw-build.log" >&2
		die "building siw.ko failed"
	}
	strip --strip-debug -o "$D/siw.ko" "$D/siw-build/$SIWDIR/siw.ko"
	echo "$KO_STAMP" >"$D/siw.stamp"
fi
MODDIR=$D/kroot/lib/modules/$KVER
install -D -m 644 "$D/siw.ko" "$MODDIR/extra/siw.ko"
depmod -b "$D/kroot" "$KVER"

# ---- 4. the initramfs ----------------------------------------------------
# The guest programs, with the shared objects they load.
BINS="/usr/bin/bash /usr/bin/rdma /usr/bin/ip /usr/bin/ss /usr/sbin/tc
/usr/bin/tcpdump /usr/bin/rping /usr/bin/ibv_devices /usr/bin/ibv_devinfo
/usr/bin/ib_read_bw /usr/bin/ib_write_bw"
PROVIDER=$(ls /usr/lib/x86_64-linux-gnu/libibverbs/libsiw-rdmav*.so \
	2>/dev/null | head -n 1)
[ -n "$PROVIDER" ] || die "no siw provider in ibverbs-providers"
# Modules wanted, loaded with their dependencies first.
# sctp: the SCTP cases run iwcmd on the guest kernel's SCTP.
MODS="crc32c_generic virtio_pci virtio_net virtio_blk configfs ib_core
ib_uverbs iw_cm ib_cm rdma_cm rdma_ucm siw sch_netem sctp"

versions=$(dpkg-query -W -f='${Package}=${Version} ' rdma-core \
	ibverbs-providers rdmacm-utils perftest busybox-static tcpdump \
	iproute2 bash)
RD_STAMP="$KO_STAMP $(cat "$0" "$HERE/init" | sha256sum | cut -c1-16) \
$versions"
if [ -f "$D/initramfs.cpio.gz" ] &&
	[ "$(cat "$D/initramfs.stamp" 2>/dev/null)" = "$RD_STAMP" ]; then
	say "guest up to date: $D/vmlinuz, $D/initramfs.cpio.gz"
	ln -sfn "$KVER" "$CACHE/current"
	exit 0
fi
act "building the initramfs"
R=$D/initramfs
rm -rf "$R"
mkdir -p "$R"/usr/bin "$R"/usr/lib/x86_64-linux-gnu/libibverbs \
	"$R"/usr/lib64 "$R"/etc/libibverbs.d "$R"/etc/iwcm-guest \
	"$R"/lib/modules "$R"/dev "$R"/proc "$R"/sys "$R"/tmp "$R"/out \
	"$R"/root "$R"/run
for l in bin sbin lib lib64; do
	ln -s "usr/$l" "$R/$l"
done
ln -s bin "$R/usr/sbin"
mknod -m 600 "$R/dev/console" c 5 1
install -m 755 "$HERE/init" "$R/init"

# Modules in dependency order (from modules.dep; a dependency first).
declare -A SEEN=()
ORDER=()
visit() {
	local dep
	[ -n "${SEEN[$1]:-}" ] && return 0
	SEEN[$1]=1
	for dep in $(grep -E "^$1:" "$MODDIR/modules.dep" | cut -d: -f2); do
		visit "$dep"
	done
	ORDER+=("$1")
}
for m in $MODS; do
	p=$(grep -oE "^[^:]*/$m\.ko(\.xz|\.zst)?:" "$MODDIR/modules.dep" |
		tr -d :) || die "module $m not in $KVER"
	visit "$p"
done
: >"$R/etc/iwcm-guest/modules"
for p in "${ORDER[@]}"; do
	n=$(basename "$p")
	case $n in
	*.ko.xz) xz -dc "$MODDIR/$p" >"$R/lib/modules/${n%.xz}" ;;
	*.ko.zst) zstd -qdc "$MODDIR/$p" >"$R/lib/modules/${n%.zst}" ;;
	*) cp "$MODDIR/$p" "$R/lib/modules/$n" ;;
	esac
	echo "${n%.ko*}.ko" >>"$R/etc/iwcm-guest/modules"
done
say "modules: $(tr '\n' ' ' <"$R/etc/iwcm-guest/modules")"

# copy FILE: FILE and every shared object it needs, at the same paths.
copy() {
	local lib
	cp -L "$1" "$R$1"
	for lib in $(ldd "$1" 2>/dev/null | grep -oE '/[^ ]+'); do
		[ -e "$R$lib" ] || { mkdir -p "$R$(dirname "$lib")" &&
			cp -L "$lib" "$R$lib"; }
	done
}
for f in $BINS "$PROVIDER"; do
	[ -x "$f" ] || [ -f "$f" ] || die "no $f"
	copy "$f"
done
# pthread_cancel/exit load libgcc_s at run time.
cp -L /lib/x86_64-linux-gnu/libgcc_s.so.1 "$R/usr/lib/x86_64-linux-gnu/"
cp /etc/libibverbs.d/siw.driver "$R/etc/libibverbs.d/"
cp /bin/busybox "$R/usr/bin/busybox"
for a in $(/bin/busybox --list); do
	[ -e "$R/usr/bin/$a" ] || ln -s busybox "$R/usr/bin/$a"
done
printf 'root:x:0:0:root:/root:/bin/sh\ntcpdump:x:0:0::/:/bin/false\n' \
	>"$R/etc/passwd"
printf 'root:x:0:\ntcpdump:x:0:\n' >"$R/etc/group"
printf '127.0.0.1 localhost\n10.0.2.15 guest\n10.0.2.2 host\n' \
	>"$R/etc/hosts"

(cd "$R" && find . | LC_ALL=C sort |
	cpio -o -H newc -R 0:0 --quiet | gzip -1) >"$D/initramfs.cpio.gz.new"
mv "$D/initramfs.cpio.gz.new" "$D/initramfs.cpio.gz"
modinfo "$MODDIR/extra/siw.ko" >"$D/siw.modinfo"
echo "$RD_STAMP" >"$D/initramfs.stamp"
ln -sfn "$KVER" "$CACHE/current"
act "guest ready: $D/vmlinuz, $D/initramfs.cpio.gz" \
	"($(du -h "$D/initramfs.cpio.gz" | cut -f1))"
