# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# Sourced (by sh: dash or bash, for local) by the multi-host cases
# (README.md beside this file): N
# "hosts", each a network namespace with its own hostname, its own
# address on one bridge and its own iwcmd (own socket, own
# iwcmd.conf), and an mpirun that starts ranks on them through
# agent.sh as it would over ssh.  Needs root, iproute2 and unshare;
# hosts_skip (exit 77) where a namespace or a bridge cannot be made.
#
#   hosts_init NAME          the state directory $hdir and the cleanup trap
#   hosts_up N               hosts h1..hN on the bridge, no daemon yet
#   host_conf H TEXT         H's iwcmd.conf (after a header)
#   host_env H VAR=VALUE     an environment variable of H's programs
#   host_daemon_start H      H's iwcmd, until iwcmctl status answers
#   host_daemon_stop H       SIGTERM, then its exit status
#   host_daemon_kill H       SIGKILL
#   host_exec H CMD...       CMD in H (namespace, hostname, environment)
#   host_ctl H ARGS...       iwcmctl on H's daemon
#   host_stat H KEY          a counter of H's iwcmctl stats
#   host_link H down|up      H's cable at the bridge
#   host_loss H PERCENT      drop PERCENT % of H's packets (nftables
#                            numgen random), 0 for none
#   hosts_mpirun T NP HOSTS ARGS...  mpirun over agent.sh, at most T
#                            seconds: NP ranks on HOSTS (h1:2,h2:2
#                            slots), ARGS the MCA options and the program
#
# Addresses: 198.18.B.0/24 (RFC 2544's benchmark range, 198.18.0.0/15),
# B from the process id; the launcher (namespace iwh<pid>-0 on the
# bridge, where mpirun runs) is .254, host hK is .K.

hosts_top_builddir=${top_builddir:-$(pwd)/build}
hosts_srcdir=${srcdir:-$(cd "$(dirname "$0")" && pwd)}
iwcmd="$hosts_top_builddir/daemon/iwcmd"
ctl="$hosts_top_builddir/cli/iwcmctl"
hdir=
hosts_n=0
hosts_tag=$$
hosts_br="iwb$hosts_tag"
hosts_net="198.18.$(($$ % 250)).0"
hosts_ns0="iwh$hosts_tag-0"
hosts_pfx=${hosts_net%.0}
hosts_bg=

hosts_skip() {
	echo "SKIP: $*"
	exit 77
}

hosts_cleanup() {
	local p i
	set +e
	for p in $hosts_bg; do
		kill -9 "$p" 2>/dev/null
	done
	i=0
	while [ $i -le $hosts_n ]; do
		if [ -f "$hdir/h$i.pid" ]; then
			kill -9 "$(cat "$hdir/h$i.pid")" 2>/dev/null
		fi
		if [ -f "$hdir/h$i.sup" ]; then
			kill -9 "$(cat "$hdir/h$i.sup")" 2>/dev/null
		fi
		ip netns pids "iwh$hosts_tag-$i" 2>/dev/null |
			while read -r p; do kill -9 "$p" 2>/dev/null; done
		ip netns del "iwh$hosts_tag-$i" 2>/dev/null
		ip link del "ih$hosts_tag-$i" 2>/dev/null
		i=$((i + 1))
	done
	ip link del "$hosts_br" 2>/dev/null
	[ -n "$hdir" ] && [ -z "${HOSTS_KEEP:-}" ] && rm -rf "$hdir"
}

hosts_init() {
	[ "$(id -u)" -eq 0 ] || hosts_skip "network namespaces need root (uid $(id -u))"
	command -v ip >/dev/null 2>&1 || hosts_skip "ip (iproute2) is not installed"
	command -v unshare >/dev/null 2>&1 || hosts_skip "unshare (util-linux) is not installed"
	[ -x "$iwcmd" ] || hosts_skip "$iwcmd is not built"
	hdir=$(mktemp -d "/tmp/iwcm-hosts-$1.XXXXXX")
	chmod 755 "$hdir"
	trap hosts_cleanup EXIT
	trap 'exit 1' INT TERM
	IWCM_HOSTS_DIR=$hdir
	export IWCM_HOSTS_DIR
}

hosts_up() {
	local n i ns veth
	n=$1
	if ! ip link add "$hosts_br" type bridge 2>"$hdir/err"; then
		hosts_skip "bridge: $(cat "$hdir/err")"
	fi
	hosts_n=$n
	ip link set "$hosts_br" up
	# 0 is the launcher, .254: mpirun's own namespace, so that its TCP
	# settings (case_linkdown) are its own
	i=0
	while [ $i -le "$n" ]; do
		ns="iwh$hosts_tag-$i"
		veth="ih$hosts_tag-$i"
		if ! ip netns add "$ns" 2>"$hdir/err"; then
			hosts_skip "ip netns add: $(cat "$hdir/err")"
		fi
		ip link add "$veth" type veth peer name "${veth}p" ||
			hosts_skip "veth pair: cannot be made"
		ip link set "${veth}p" netns "$ns"
		ip -n "$ns" link set "${veth}p" name eth0
		ip -n "$ns" addr add "$hosts_pfx.$([ $i -eq 0 ] && echo 254 || echo $i)/24" dev eth0
		ip -n "$ns" link set lo up
		ip -n "$ns" link set eth0 up
		ip link set "$veth" master "$hosts_br"
		ip link set "$veth" up
		if [ $i -eq 0 ]; then
			i=1
			continue
		fi
		{
			echo "IWCM_HOST_NS=$ns"
			echo "IWCM_HOST_ADDR=$hosts_pfx.$i"
			echo "IWCM_HOSTS_CTL=$ctl"
			echo "IWCM_SOCKET=$hdir/h$i.sock"
			echo "FI_PROVIDER_PATH=$hosts_top_builddir/fabric/.libs"
			echo "PATH=$PATH"
		} >"$hdir/h$i.env"
		printf '# iwcm-hosts h%s\nrequest_timeout_ms = 5000\n' $i \
			>"$hdir/h$i.conf"
		i=$((i + 1))
	done
}

host_num() { echo "${1#h}"; }
host_addr() { echo "$hosts_pfx.$(host_num "$1")"; }
host_ns() { echo "iwh$hosts_tag-$(host_num "$1")"; }
host_sock() { echo "$hdir/$1.sock"; }

host_conf() {
	printf '# iwcm-hosts %s\n%s\n' "$1" "$2" >"$hdir/$1.conf"
}

host_env() {
	echo "$2" >>"$hdir/$1.env"
}

# host_exec H CMD...: CMD in H's namespace under H's hostname, with H's
# environment (agent.sh does the same for mpirun)
host_exec() {
	local h
	h=$1
	shift
	"$hosts_srcdir/agent.sh" "$h" exec "$@"
}

host_daemon_start() {
	local h log i
	h=$1
	log=${2:-$h.log}
	# agent.sh execs down to iwcmd: $! is the daemon
	"$hosts_srcdir/agent.sh" "$h" exec "$iwcmd" -d -f "$hdir/$h.conf" \
		-s "$hdir/$h.sock" 2>>"$hdir/$log" &
	echo $! >"$hdir/$h.pid"
	i=0
	while ! "$ctl" -s "$hdir/$h.sock" status >/dev/null 2>&1; do
		i=$((i + 1))
		if [ $i -gt 1000 ] || ! kill -0 "$(cat "$hdir/$h.pid")" 2>/dev/null; then
			echo "FAIL: iwcmd of $h did not start"
			tail -20 "$hdir/$log"
			return 1
		fi
		sleep 0.01
	done
}

host_daemon_stop() {
	local p
	p=$(cat "$hdir/$1.pid")
	rm -f "$hdir/$1.pid"
	kill -TERM "$p"
	wait "$p"
}

host_daemon_kill() {
	local p
	p=$(cat "$hdir/$1.pid")
	rm -f "$hdir/$1.pid"
	kill -9 "$p"
	wait "$p" 2>/dev/null
	return 0
}

host_ctl() {
	local h
	h=$1
	shift
	"$ctl" -s "$hdir/$h.sock" "$@"
}

# host_stat H KEY: KEY's value in H's iwcmctl stats (text form)
host_stat() {
	host_ctl "$1" stats 2>/dev/null | awk -v k="$2" '$1 == k { print $2 }'
}

host_link() {
	ip link set "ih$hosts_tag-$(host_num "$1")" "$2"
}

# host_loss H PERCENT: nftables in H's namespace drops PERCENT % of what
# crosses eth0, both ways, chosen by numgen random; 0 removes the rule
host_loss() {
	local ns
	ns=$(host_ns "$1")
	ip netns exec "$ns" nft delete table inet iwcmloss 2>/dev/null
	[ "$2" -eq 0 ] && return 0
	ip netns exec "$ns" nft -f - <<EOF
table inet iwcmloss {
	chain in {
		type filter hook input priority 0; policy accept;
		iifname "eth0" numgen random mod 100 < $2 counter drop
	}
	chain out {
		type filter hook output priority 0; policy accept;
		oifname "eth0" numgen random mod 100 < $2 counter drop
	}
}
EOF
}

# host_loss_count H: packets the loss rule dropped
host_loss_count() {
	ip netns exec "$(host_ns "$1")" nft list table inet iwcmloss 2>/dev/null |
		sed -n 's/.*counter packets \([0-9]*\).*/\1/p' |
		awk '{ s += $1 } END { print s + 0 }'
}

# hosts_mpirun T NP HOSTS ARGS...: mpirun in the launcher's namespace
# starting NP ranks on HOSTS ("h1:2,h2:2") through agent.sh, killed
# after T seconds; its out-of-band traffic on the bridge only
hosts_mpirun() {
	local t np hl
	t=$1
	np=$2
	hl=$3
	shift 3
	timeout -k 5 "$t" ip netns exec "$hosts_ns0" mpirun --allow-run-as-root --oversubscribe -n "$np" --host "$hl" \
		--mca plm_rsh_agent "$hosts_srcdir/agent.sh" \
		--mca oob_tcp_if_include "$hosts_net/24" \
		--mca btl_tcp_if_include "$hosts_net/24" \
		--mca mpi_yield_when_idle 1 \
		--mca orte_keep_fqdn_hostnames 1 "$@"
}

# ms: milliseconds since the epoch
ms() { date +%s%3N; }
