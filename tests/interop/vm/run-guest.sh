#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Boot the interop guest (built by build-guest.sh) under qemu, run one
# script in it, copy its /out back and power off.
#
#   run-guest.sh [-o OUTDIR] [-a TREE] [-f RULE]... [-p PARAMS]
#                [-t SECONDS] [-l CONSOLE] [-v] SCRIPT
#
#   -o OUTDIR   the files the script writes under /out land in OUTDIR
#   -a TREE     a directory laid over the guest's root for this run (the
#               programs of a build tree and their libraries)
#   -f RULE     a qemu hostfwd rule, e.g. tcp:127.0.0.1:20001-10.0.2.15:7174
#   -p PARAMS   siw.ko's parameters, e.g. "mpa_version=1 mpa_crc_required=1"
#   -t SECONDS  the limit of the whole run (default 180); the script gets
#               20 s less, so that /out still comes back
#   -l CONSOLE  write the guest's serial console there as it runs (another
#               process may watch it for the script's markers)
#   -v          copy the script's output to standard output as it comes
#
# The guest is 10.0.2.15/24 on eth0, with siw0 on eth0; the host's
# 127.0.0.1 is 10.0.2.2 for it.  Environment: IWCM_INTEROP_CACHE (as
# build-guest.sh), IWCM_INTEROP_ACCEL (auto, kvm or tcg).
#
# Exit status: the script's; 124 when the time ran out; 125 when the guest
# did not boot; 126 when qemu could not start (a hostfwd port in use).
# On timeout, INT or TERM only the qemu this started is killed.
set -euo pipefail

CACHE=${IWCM_INTEROP_CACHE:-/var/tmp/iwcm-interop-cache}
D=$CACHE/current
OUTDIR=
ADD=
FWD=
PARAMS=
LIMIT=180
CONSOLE=
VERBOSE=0
usage() {
	sed -n '8,22p' "$0" | sed 's/^# \{0,1\}//' >&2
	exit 2
}
while getopts "o:a:f:p:t:l:v" opt; do
	case $opt in
	o) OUTDIR=$OPTARG ;;
	a) ADD=$OPTARG ;;
	f) FWD="$FWD,hostfwd=$OPTARG" ;;
	p) PARAMS=$OPTARG ;;
	t) LIMIT=$OPTARG ;;
	l) CONSOLE=$OPTARG ;;
	v) VERBOSE=1 ;;
	*) usage ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
SCRIPT=$1
[ -f "$D/vmlinuz" ] && [ -f "$D/initramfs.cpio.gz" ] || {
	echo "run-guest: no guest in $D: run build-guest.sh" >&2
	exit 125
}

W=$(mktemp -d "${TMPDIR:-/tmp}/iwcm-guest.XXXXXX")
QPID=
TPID=
cleanup() {
	[ -n "$TPID" ] && kill "$TPID" 2>/dev/null
	[ -n "$QPID" ] && kill -KILL "$QPID" 2>/dev/null
	wait 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -n "$CONSOLE" ] || CONSOLE=$W/console
: >"$CONSOLE"

# This run's initrd: the cached one followed by a cpio of /case (and of
# the -a tree).
mkdir -p "$W/case/case"
[ -z "$ADD" ] || cp -a "$ADD/." "$W/case/"
cp "$SCRIPT" "$W/case/case/script.sh"
printf 'SIW_PARAMS=%q\nSCRIPT_TIMEOUT=%d\n' "$PARAMS" \
	$((LIMIT > 40 ? LIMIT - 20 : LIMIT / 2)) >"$W/case/case/env"
(cd "$W/case" && find . | cpio -o -H newc -R 0:0 --quiet | gzip -1) |
	cat "$D/initramfs.cpio.gz" - >"$W/initrd"
# The outbox: a raw disk the guest writes a tar of /out to.
truncate -s 64M "$W/outbox"

# This host's /dev/kvm may be PVM (kvm_pvm), which cannot run a stock
# kernel: use TCG there.
ACCEL=${IWCM_INTEROP_ACCEL:-auto}
if [ "$ACCEL" = auto ]; then
	if [ -w /dev/kvm ] && [ ! -d /sys/module/kvm_pvm ]; then
		ACCEL=kvm
	else
		ACCEL=tcg
	fi
fi
if [ "$ACCEL" = kvm ]; then
	A=(-enable-kvm -cpu host)
else
	A=(-accel tcg,thread=multi -cpu max)
fi

t0=$(date +%s%N)
elapsed() { echo "$(( ($(date +%s%N) - t0) / 100000000 ))" |
	sed 's/\(.\)$/.\1/; s/^\./0./'; }
qemu-system-x86_64 "${A[@]}" -m 1024 -smp "${IWCM_INTEROP_SMP:-2}" \
	-nodefaults -no-user-config -nographic -no-reboot \
	-serial "file:$CONSOLE" -monitor none \
	-kernel "$D/vmlinuz" -initrd "$W/initrd" \
	-append "console=ttyS0 quiet panic=-1 rdinit=/init" \
	-netdev "user,id=n0,ipv6=off,net=10.0.2.0/24$FWD" \
	-device virtio-net-pci,netdev=n0,romfile= \
	-drive "file=$W/outbox,format=raw,if=virtio" \
	</dev/null >"$W/qemu.log" 2>&1 &
QPID=$!

# Follow the console until qemu exits or the time is up.
follow() {
	local on=0 line
	while IFS= read -r line; do
		line=${line%$'\r'}
		case $line in
		*@@GUEST-BEGIN@@*)
			echo "run-guest: booted in $(elapsed) s (accel=$ACCEL)" >&2
			on=1
			continue
			;;
		*@@GUEST-END*) on=0 ;;
		esac
		[ $on = 1 ] && [ "$VERBOSE" = 1 ] && printf '%s\n' "$line"
	done
	return 0
}
timeout "$LIMIT" tail -n +1 -s 0.2 -F --pid="$QPID" "$CONSOLE" \
	2>/dev/null | follow &
TPID=$!
wait "$TPID" || true
TPID=
timed_out=0
if kill -0 "$QPID" 2>/dev/null; then
	echo "run-guest: no end after ${LIMIT} s: killing qemu $QPID" >&2
	kill -KILL "$QPID" 2>/dev/null || true
	timed_out=1
fi
wait "$QPID" 2>/dev/null || true
QPID=

tr -d '\r' <"$CONSOLE" >"$W/console.txt"
rc=$(sed -n 's/.*@@GUEST-END rc=\([0-9]*\)@@.*/\1/p' "$W/console.txt" |
	tail -n 1)
if [ -n "$OUTDIR" ] && grep -q '@@GUEST-OUT' "$W/console.txt"; then
	mkdir -p "$OUTDIR"
	tar -xf "$W/outbox" -C "$OUTDIR" ||
		echo "run-guest: cannot read the outbox" >&2
fi
echo "run-guest: total $(elapsed) s" >&2
if [ -n "$rc" ]; then
	exit "$rc"
fi
if grep -q '@@GUEST-BEGIN@@' "$W/console.txt"; then
	[ $timed_out = 1 ] || echo "run-guest: the guest stopped early" >&2
	exit 124
fi
if grep -qi 'could not set up host forwarding\|Could not' "$W/qemu.log"
then
	echo "run-guest: qemu: $(head -n 3 "$W/qemu.log")" >&2
	exit 126
fi
echo "run-guest: the guest did not boot; console tail:" >&2
tail -n 20 "$W/console.txt" >&2
cat "$W/qemu.log" >&2
exit 125
