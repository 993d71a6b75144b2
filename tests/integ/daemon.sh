# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Sourced by the integration scripts: a private iwcmd -d on a temporary
# socket, what they all start with.  Sets iwcmd, ctl (the programs of
# the build tree), dir (a temporary directory, removed at exit), sock
# (the client socket, exported as IWCM_SOCKET) and pid; the scripts add
# the pids of their own background programs to bg_pids, killed at exit
# with iwcmd.
#
#   daemon_dir NAME          the directory, /tmp/iwcm-NAME.XXXXXX
#   daemon_start [LOG] [CONF]  iwcmd with CONF (text) as its
#                            configuration, its stderr in $dir/LOG (log),
#                            until iwcmctl status answers; exits 1 if not
#   daemon_stop              SIGTERM, then its exit status
iwcmd="$top_builddir/daemon/iwcmd"
ctl="$top_builddir/cli/iwcmctl"
dir=
sock=
pid=
bg_pids=

daemon_cleanup() {
	for p in $bg_pids $pid; do
		kill -9 "$p" 2>/dev/null
	done
	[ -n "$dir" ] && rm -rf "$dir"
}

daemon_dir() {
	dir=$(mktemp -d "/tmp/iwcm-$1.XXXXXX")
	sock="$dir/iwcmd.sock"
	IWCM_SOCKET=$sock
	export IWCM_SOCKET
	trap daemon_cleanup EXIT
}

daemon_start() {
	log=${1:-log}
	printf '# %s\n%s\n' "$(basename "$0")" "${2:-}" >"$dir/iwcmd.conf"
	"$iwcmd" -d -f "$dir/iwcmd.conf" -s "$sock" 2>"$dir/$log" &
	pid=$!
	i=0
	while ! "$ctl" -s "$sock" status >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 1000 ] || ! kill -0 "$pid" 2>/dev/null; then
			echo "FAIL: iwcmd did not start"
			cat "$dir/$log"
			exit 1
		fi
		sleep 0.01
	done
}

daemon_stop() {
	kill -TERM "$pid"
	wait "$pid"
	rc=$?
	pid=
	return $rc
}
