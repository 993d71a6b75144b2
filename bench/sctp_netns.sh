#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# bench/sctp_netns.sh [-r RUNS] [-n ITERS] [CASE...]: DDP over SCTP
# between two hosts as users have them, one iwcmd per host: two network
# namespaces joined by a veth pair (192.0.2.1 and 192.0.2.2, TEST-NET-1),
# an iwcmd in each on its own usrsctp (sctp_udp_port 9899), iwcm-bench's
# client in one and its server in the other (--server-netns).  Each
# case runs RUNS times (default 3) against raw usrsctp between the same
# two namespaces in the same run (one stack per process, the same
# options); per case the median of the same-run ratios, every run's
# ratio, the target, and the median CPU time of each iwcmd per MiB (or
# per round trip).  The loopback case is the one-daemon benchmark of
# docs/sctp.md (both ends on one iwcmd, started by iwcm-bench).  Every
# case waits on the completion channel (-e): busy-polling clients on a
# machine of few CPUs starve the daemons, and the latency measured is
# then the scheduler's (iwcm-bench(1)).
#
# The latency cases also show the floor of the relay design in the same
# run: on usrsctp each message waits once more than on raw usrsctp, for
# the sender's iwcmd to wake and take it from its client's socket (the
# receiver's side wakes twice on both: iwcmd then its client, against
# usrsctp's thread then the program), so the floor is raw usrsctp plus
# one relay hop, which bench/hop_lat measures right after each run
# (hop_wake_us: a SOCK_SEQPACKET ping-pong between two sleeping
# processes).  "/floor" is the median of iwcm's latency over that floor.
#
# IWCMD names the iwcmd the daemons run (default: the build tree's,
# beside iwcm-bench), so that two builds compare on the same benchmark
# program; IWCM_BENCH the iwcm-bench (default: beside this script, or
# bench/iwcm-bench under the current directory).  Needs root and
# iproute2; says SKIP and why (exit 77) where namespaces cannot be made.
#
#   name        iwcm-bench arguments                      target
set -u
cases() {
	cat <<'EOF'
write_bw    write_bw -e                               >=0.7
read_bw     read_bw -e                                >=0.7
send_lat    send_lat -e                               <=1.5
atomic_lat  atomic_lat -e                             <=1.5
loopback    write_bw -e                               >=0.45
EOF
}

runs=3
iters=
while getopts r:n: o; do
	case $o in
	r) runs=$OPTARG ;;
	n) iters=$OPTARG ;;
	*)
		echo "usage: sctp_netns.sh [-r RUNS] [-n ITERS] [CASE...]" >&2
		exit 2
		;;
	esac
done
shift $((OPTIND - 1))
prog=sctp_netns.sh
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bench_lib.sh
. "$here/bench_lib.sh"
# shellcheck source=bench/netns_lib.sh
. "$here/netns_lib.sh"
bench_runs "$runs"
case $iters in
*[!0-9]*)
	echo "sctp_netns.sh: -n wants a count, not '$iters'" >&2
	exit 2
	;;
esac

skip() {
	echo "SKIP: $*"
	exit 77
}

bench=$(bench_find "iwcm-bench not found (build it, or set IWCM_BENCH)" \
	"${IWCM_BENCH:-}" "$here/iwcm-bench" "$(pwd)/bench/iwcm-bench") ||
	exit 2
bdir=$(cd "$(dirname "$bench")" && pwd)
iwcmd=$(bench_find "iwcmd not found (set IWCMD)" "${IWCMD:-}" \
	"$bdir/../daemon/iwcmd" "$bdir/iwcmd") || exit 2
hop=$bdir/hop_lat
[ -x "$hop" ] || hop=
bench_cases "$@"

nsa="iwcm-bench-$$-a"
nsb="iwcm-bench-$$-b"
veth="iwb$$"
dir=
pids=

cleanup() {
	for p in $pids; do
		kill "$p" 2>/dev/null
	done
	for p in $pids; do
		wait "$p" 2>/dev/null
	done
	ip netns del "$nsa" 2>/dev/null
	ip netns del "$nsb" 2>/dev/null
	[ -n "$dir" ] && rm -rf "$dir"
}

# The bandwidth rows signal one work request in 100 (1 MiB each): on a
# loaded machine 100 MiB may take longer than iwcm-bench's default
# stall time of 10 s without being stuck.
IWCM_BENCH_STALL_MS=${IWCM_BENCH_STALL_MS:-60000}
export IWCM_BENCH_STALL_MS

netns_can

dir=$(mktemp -d /tmp/iwcm-sctp-netns.XXXXXX)
trap cleanup EXIT
trap 'exit 1' INT TERM
netns_pair "$nsa" "$nsb" "$veth" "$dir"

# one iwcmd per namespace, as on two hosts (64 streams: iwcm-bench's)
for s in a b; do
	ns=$nsa
	[ $s = b ] && ns=$nsb
	printf '# sctp_netns %s\nsctp_udp_port = 9899\nsctp_streams = 64\n' \
		$s >"$dir/$s.conf"
	ip netns exec "$ns" "$iwcmd" -d -f "$dir/$s.conf" -s "$dir/$s.sock" \
		2>"$dir/$s.log" &
	pids="$pids $!"
done
for s in a b; do
	i=0
	while [ ! -S "$dir/$s.sock" ]; do
		i=$((i + 1))
		if [ $i -gt 500 ]; then
			echo "sctp_netns.sh: iwcmd $s did not start:" >&2
			cat "$dir/$s.log" >&2
			exit 1
		fi
		sleep 0.01
	done
done

# key K: the number after "K": in the last row's JSON on stdin
key() {
	sed -n 's/.*"'"$1"'":{[^}]*"us_per_[a-z]*":\([0-9.]*\).*/\1/p' |
		tail -n 1
}

# floor: iwcm's latency in the row's JSON on stdin over raw usrsctp's
# plus one relay hop measured now (nothing without hop_lat)
floor() {
	[ -n "$hop" ] || return 0
	h=$(ip netns exec "$nsb" "$hop" -n 5000 2>/dev/null |
		sed -n 's/^hop_wake_us //p')
	sed -n 's/.*"iwcm":{"value":\([0-9.]*\).*"usrsctp":{"value":\([0-9.]*\).*/\1 \2/p' |
		tail -n 1 | awk -v h="$h" '
		NF == 2 && h + 0 > 0 { printf "%.3f\n", $1 / ($2 + h) }'
}

echo "iwcm-bench over DDP over SCTP, two namespaces (192.0.2.2 -> 192.0.2.1), one iwcmd each; $(nproc) CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "iwcmd: $iwcmd"
printf '%-11s %-7s %-7s %-24s %-7s %-12s %s\n' case median target runs \
	/floor "iwcmd us" "(client's / server's, per MiB or round trip)"
[ -n "$hop" ] || echo "(no bench/hop_lat beside iwcm-bench: no floor)"
status=0
list=$(cases)
while read -r name args; do
	target=${args##* }
	args=${args% *}
	bench_wanted "$name" "$@" || continue
	all=
	cli=
	srv=
	floors=
	i=0
	while [ $i -lt "$runs" ]; do
		if [ "$name" = loopback ]; then
			# shellcheck disable=SC2086 # the arguments are words
			"$bench" $args --transport sctp -j --iwcmd "$iwcmd" \
				${iters:+-n $iters} >"$dir/out" 2>"$dir/errout"
		else
			# shellcheck disable=SC2086 # the arguments are words
			ip netns exec "$nsb" "$bench" $args --transport sctp -j \
				--socket "$dir/b.sock" --server-netns "$nsa" \
				--server-socket "$dir/a.sock" \
				--address 192.0.2.1 ${iters:+-n $iters} \
				>"$dir/out" 2>"$dir/errout"
		fi
		r=$(sed -n 's/.*"ratio":\([0-9.]*\).*/\1/p' "$dir/out" |
			tail -n 1)
		if [ -z "$r" ]; then
			r=failed
			sed 's/^/    /' "$dir/errout" | head -n 3 >&2
		else
			cli="$cli $(key iwcmd <"$dir/out")"
			srv="$srv $(key iwcmd_server <"$dir/out")"
			case $name in
			*_lat) floors="$floors $(floor <"$dir/out")" ;;
			esac
		fi
		all="$all $r"
		i=$((i + 1))
	done
	med=$(printf '%s\n' $all | grep -v failed | median)
	mc=$(printf '%s\n' $cli | grep . | median)
	ms=$(printf '%s\n' $srv | grep . | median)
	[ "$name" = loopback ] && ms=
	mf=$(printf '%s\n' $floors | grep . | median)
	case $name in
	*_lat) ;;
	*) mf= ;;
	esac
	printf '%-11s %-7s %-7s %-24s %-7s %s\n' "$name" "$med" "$target" \
		"$(echo $all)" "${mf:--}" "$mc${ms:+ / $ms}"
	if [ "$med" = - ]; then
		status=1
		continue
	fi
	bench_meets "$med" "$target" || status=1
done <<EOF
$list
EOF
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
exit $status
