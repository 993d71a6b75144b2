#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# The launcher agent of the multi-host harness (README.md beside this
# file), what ssh is to mpirun between real hosts:
#
#   agent.sh [-options] HOST COMMAND...      (mpirun --mca plm_rsh_agent)
#   agent.sh HOST exec PROGRAM ARGS...       (lib.sh's host_exec)
#
# runs COMMAND in HOST's network namespace under HOST's own hostname
# (a UTS namespace of its own), with HOST's environment from
# $IWCM_HOSTS_DIR/HOST.env (IWCM_SOCKET, FI_PROVIDER_PATH, ...).  Like
# ssh, the words of COMMAND are joined and run by sh -c; "exec" keeps
# PROGRAM's arguments as they are.  Before a remote command it checks
# that HOST's iwcmd answers (IWCM_HOSTS_NO_CHECK=1: not), so that a job
# on a host whose daemon is down fails at start naming the socket.
# Exit 255 (ssh's) when HOST is not a host of the harness.
me="iwcm-hosts agent"
while [ $# -gt 0 ]; do
	case $1 in
	-*) shift ;;
	*) break ;;
	esac
done
host=${1:-}
if [ -z "$host" ]; then
	echo "$me: no host named" >&2
	exit 255
fi
shift
dir=${IWCM_HOSTS_DIR:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "$me: $host: IWCM_HOSTS_DIR names no harness" >&2
	exit 255
fi
case $host in
*/* | .*) envf= ;;
*) envf="$dir/$host.env" ;;
esac
if [ -z "$envf" ] || [ ! -f "$envf" ]; then
	known=$(cd "$dir" && ls -- *.env 2>/dev/null | sed 's/\.env$//' | tr '\n' ' ')
	echo "$me: no such host '$host' (hosts: ${known% })" >&2
	exit 255
fi
while IFS= read -r line; do
	case $line in
	[A-Za-z_]*=*) export "${line?}" ;;
	esac
done <"$envf"
IWCM_HOST=$host
export IWCM_HOST
if [ "${1:-}" = exec ]; then
	shift
	exec ip netns exec "$IWCM_HOST_NS" unshare --uts -- \
		sh -c 'hostname "$IWCM_HOST" && exec "$@"' sh "$@"
fi
if [ -z "${IWCM_HOSTS_NO_CHECK:-}" ] && [ -n "${IWCM_HOSTS_CTL:-}" ] &&
	! err=$("$IWCM_HOSTS_CTL" -s "$IWCM_SOCKET" status 2>&1 >/dev/null); then
	echo "$me: $host: no iwcmd answers on $IWCM_SOCKET: $err" >&2
	exit 1
fi
exec ip netns exec "$IWCM_HOST_NS" unshare --uts -- \
	sh -c 'hostname "$IWCM_HOST" && exec sh -c "$1"' sh "$*"
