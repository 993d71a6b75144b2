#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# systemd-analyze verify on the units as built, with ExecStart pointing at
# the iwcmd just built (verify checks that it is executable).  Any
# diagnostic fails the test, not only errors: an unknown key is a typo.
set -u
analyze=$(command -v systemd-analyze 2>/dev/null || true)
if [ -z "$analyze" ]; then
	echo "SKIP: systemd-analyze not installed (Debian package systemd)"
	exit 77
fi
iwcmd="$top_builddir/daemon/iwcmd"
unit="$top_builddir/systemd/iwcmd.service"
[ -x "$iwcmd" ] || { echo "FAIL: $iwcmd not built"; exit 1; }
[ -f "$unit" ] || { echo "FAIL: $unit not built"; exit 1; }
ctl="$top_builddir/cli/iwcmctl"
munit="$top_builddir/systemd/iwcm-metrics@.service"
[ -f "$munit" ] || { echo "FAIL: $munit not built"; exit 1; }

dir=$(mktemp -d /tmp/iwcm-units.XXXXXX)
trap 'rm -rf "$dir"' EXIT
sed "s|^ExecStart=.*|ExecStart=$iwcmd|" "$unit" >"$dir/iwcmd.service"
sed "s|^ExecStart=[^ ]*|ExecStart=$ctl|" "$munit" >"$dir/iwcm-metrics@.service"
cp "$top_srcdir/systemd/iwcmd.socket" "$top_srcdir/systemd/iwcmd-admin.socket" \
	"$top_srcdir/systemd/iwcm-metrics.socket" "$dir/"
cd "$dir" || exit 1
out=$("$analyze" verify --man=no iwcmd.service iwcmd.socket \
	iwcmd-admin.socket iwcm-metrics.socket iwcm-metrics@0.service 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ -n "$out" ]; then
	echo "FAIL: systemd-analyze verify (exit $rc):"
	echo "$out"
	exit 1
fi

# What the units promise: named fds, modes, notify, watchdog, a user.
fail=0
check() {
	grep -q "^$2\$" "$1" || { echo "FAIL: $1 lacks '$2'"; fail=1; }
}
check iwcmd.socket 'FileDescriptorName=client'
check iwcmd.socket 'SocketMode=0660'
check iwcmd.socket 'SocketGroup=iwcm'
check iwcmd-admin.socket 'FileDescriptorName=admin'
check iwcmd-admin.socket 'SocketMode=0600'
check iwcmd.service 'Type=notify'
check iwcmd.service 'NotifyAccess=main'
check iwcmd.service 'Restart=on-failure'
check iwcmd.service 'User=iwcm'
check iwcmd.service 'CapabilityBoundingSet=CAP_NET_BIND_SERVICE'
check iwcmd.service 'AmbientCapabilities=CAP_NET_BIND_SERVICE'
check iwcm-metrics.socket 'Accept=yes'
check iwcm-metrics@.service 'StandardInput=socket'
check iwcm-metrics@.service 'StandardOutput=socket'
grep -q "^ExecStart=$ctl stats -o openmetrics --http\$" iwcm-metrics@.service ||
	{ echo "FAIL: iwcm-metrics@.service runs: \
$(grep ExecStart iwcm-metrics@.service)"; fail=1; }
grep -q '^WatchdogSec=' iwcmd.service || { echo "FAIL: no WatchdogSec"; fail=1; }
# every ordering line is explained by a comment right above it (or
# above the group of ordering lines it belongs to)
awk '/^(After|Before|Requires|Wants)=/ {
		if (!ok) { print "FAIL: uncommented ordering line: " $0; bad = 1 }
		next }
	{ ok = /^#/ } END { exit bad }' iwcmd.service iwcmd.socket \
	iwcmd-admin.socket iwcm-metrics.socket iwcm-metrics@.service || fail=1
grep -q '^u iwcm ' "$top_srcdir/systemd/iwcm-sysusers.conf" ||
	{ echo "FAIL: sysusers entry"; fail=1; }
grep -q '^d /run/iwcm 0755 iwcm iwcm' "$top_srcdir/systemd/iwcm-tmpfiles.conf" ||
	{ echo "FAIL: tmpfiles entry"; fail=1; }
[ $fail -eq 0 ] && echo "PASS: units verify"
exit $fail
