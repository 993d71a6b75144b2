# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
# shellcheck shell=sh
#
# Two network namespaces joined by a veth pair, as two hosts: sourced
# (not run) by bench/sctp_netns.sh and tests/integ/netns_pair.sh.  The
# sourcing script defines skip (say SKIP and why, exit 77).

# netns_can: skip unless namespaces can be made here (root, iproute2).
netns_can() {
	[ "$(id -u)" -eq 0 ] || skip "network namespaces need root (uid $(id -u))"
	command -v ip >/dev/null 2>&1 || skip "ip (iproute2) is not installed"
}

# netns_pair NSA NSB VETH DIR: make namespaces NSA and NSB, the veth pair
# VETHa in NSA with 192.0.2.1/24 and VETHb in NSB with 192.0.2.2/24
# (TEST-NET-1), loopback and the pair up.  Where namespaces or veth
# cannot be made here, skip (DIR/err holds why); a failure after that is
# a real one and exits 1.  The caller removes the namespaces (ip netns
# del), which takes the veth pair with them.
netns_pair() {
	ip netns add "$1" 2>"$4/err" || skip "ip netns add: $(cat "$4/err")"
	ip netns add "$2" 2>"$4/err" || skip "ip netns add: $(cat "$4/err")"
	ip link add "${3}a" type veth peer name "${3}b" 2>"$4/err" ||
		skip "veth pair: $(cat "$4/err")"
	{
		ip link set "${3}a" netns "$1" &&
			ip link set "${3}b" netns "$2" &&
			ip -n "$1" addr add 192.0.2.1/24 dev "${3}a" &&
			ip -n "$2" addr add 192.0.2.2/24 dev "${3}b" &&
			ip -n "$1" link set lo up &&
			ip -n "$2" link set lo up &&
			ip -n "$1" link set "${3}a" up &&
			ip -n "$2" link set "${3}b" up
	} || {
		echo "FAIL: could not set up the veth pair between $1 and $2" >&2
		exit 1
	}
}
