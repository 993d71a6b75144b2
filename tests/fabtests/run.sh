#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# tests/fabtests/run.sh: libfabric's own test suite, fabtests 1.17.0,
# against the provider iwcm, next to libfabric's tcp provider as the
# reference (make check-fabtests, ./build.sh fabtests).
#
# It builds fabtests once against the system libfabric with the shared
# tools' build.sh, starts a private iwcmd -d, and runs the tests of TESTS
# below on 127.0.0.1 for four providers:
#
#   iwcm        -p iwcm -e msg
#   tcp         -p tcp -e msg
#   iwcm;rxm    -p "iwcm;ofi_rxm" -e rdm
#   tcp;rxm     -p "tcp;ofi_rxm" -e rdm
#
# A client/server test runs its server, waits until its port listens,
# then its client, each under a timeout.  PASS: both exit 0.  NOTRUN:
# both exit FI_ENODATA or FI_ENOSYS, which is how fabtests say "the
# provider does not offer this" (runfabtests.sh reads them the same).
# FAIL: anything else.  "-": the test does not apply to that endpoint
# type.  It prints a table of test x provider and exits 1 when a test
# that passes for tcp (or tcp;ofi_rxm) does not pass for iwcm (or
# iwcm;ofi_rxm), unless NOT_APPLICABLE below lists it with its reason.
#
# Environment:
#   top_srcdir, top_builddir  the source and build trees (make sets
#                       them; default: this script's tree and its build/)
#   FABTESTS_SRC        the directory of fabtests-1.17.0.tar.gz and its
#                       build.sh (default $top_srcdir/../shared/tools/fabtests)
#   FABTESTS_DIR        where fabtests is built, kept between runs
#                       (default $builddir/fabtests-build)
#   FABTESTS_TIMEOUT    seconds each program may run (default 20)
#   FABTESTS_ONLY       run only the tests whose line matches this
#                       extended regular expression
#   FABTESTS_VERBOSE=1  show the output of every run, not only failures
#
# Prints "SKIP: <reason>" and exits 77 when fabtests cannot be built or
# fi_info (Debian package libfabric-bin) is missing.
set -u

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"
: "${builddir:=$top_builddir/tests}"
: "${FABTESTS_DIR:=$builddir/fabtests-build}"
: "${FABTESTS_TIMEOUT:=20}"
: "${FABTESTS_ONLY:=}"
: "${FABTESTS_VERBOSE:=0}"
export top_srcdir top_builddir

# The tests, one a line: how it runs (cs: a server and a client, given
# -p and -e; unit: one program, given -p and -e; unitp: one program that
# takes no -e, given -p), the endpoint types it applies to (msg, rdm or
# both; under ofi_rxm, EQs, CQs and counters are ofi_rxm's own, so their
# unit tests run for msg only), the program and its arguments.  Short iteration counts keep the
# whole run within minutes on two cores.
TESTS='
unit  both fi_getinfo_test -s 127.0.0.1 127.0.0.1
unitp msg  fi_eq_test
unitp msg  fi_cq_test
unitp both fi_mr_test
unitp both fi_dom_test -n 2
unitp msg  fi_cntr_test
cs   msg  fi_msg
cs   msg  fi_msg_epoll
cs   msg  fi_msg_sockets
cs   msg  fi_cm_data
cs   both fi_cq_data
cs   msg  fi_shared_ctx
cs   both fi_poll -t queue
cs   both fi_multi_ep -v
cs   both fi_unexpected_msg -I 10
cs   both fi_msg_inject -A inject -v
cs   both fi_msg_inject -N -A inj_complete -v
cs   both fi_bw -v -T 1
cs   both fi_multi_recv -I 5
cs   msg  fi_msg_pingpong -I 5
cs   msg  fi_msg_pingpong -I 5 -v
cs   msg  fi_msg_bw -I 5 -v
cs   both fi_rma_bw -o write -I 5
cs   both fi_rma_bw -o read -I 5
cs   both fi_rma_bw -o writedata -I 5
cs   rdm  fi_rdm
cs   rdm  fi_rdm_tagged_peek
cs   rdm  fi_recv_cancel -V
cs   rdm  fi_rdm_pingpong -I 5 -v
cs   rdm  fi_rdm_tagged_pingpong -I 5
cs   rdm  fi_rdm_tagged_bw -I 5 -v
cs   rdm  fi_rdm_atomic -I 5 -o all
cs   rdm  fi_rdm_cntr_pingpong -I 5
'

# What iwcm may not pass where tcp does, and why: the endpoint type
# (msg: iwcm alone, rdm: iwcm;ofi_rxm), the test's line as in TESTS,
# the reason.  fi_iwcm(7), CONFORMANCE, says the same.
NOT_APPLICABLE='
msg|fi_shared_ctx|no shared contexts: fi_getinfo refuses FI_SHARED_CONTEXT
msg|fi_multi_recv -I 5|no FI_MULTI_RECV: a Send takes one posted receive (RFC 5040 §5.3)
msg|fi_cq_data|CQ data rides only RFC 7306 Immediate Data, which a Send with payload cannot carry: cq_data_size is 0 without RDMA Writes
'

say() { printf '%s\n' "$*"; }
skip() {
	say "SKIP: $*"
	exit 77
}

command -v fi_info >/dev/null 2>&1 ||
	skip "fi_info not found (Debian package libfabric-bin)"
command -v timeout >/dev/null 2>&1 || skip "timeout(1) not found"
# shellcheck source=tests/fabtests/fabtests_lib.sh
. "$here/fabtests_lib.sh"
[ -x "$top_builddir/daemon/iwcmd" ] && [ -f "$top_builddir/fabric/.libs/libiwcm-fi.so" ] ||
	skip "iwcmd or the provider not built in $top_builddir"
say "== fabtests: building into $FABTESTS_DIR (once)"
fabtests_build || skip "$fabtests_why"
PATH="$ft/functional:$ft/benchmarks:$ft/unit:$PATH"
export PATH

. "$top_srcdir/tests/integ/daemon.sh"
. "$top_srcdir/tests/integ/fabric_env.sh"
daemon_dir fabtests
daemon_start
# The core's providers and ours, nothing else (verbs, psm3 and others
# would only slow every fi_getinfo down).
FI_PROVIDER="iwcm,tcp,ofi_rxm"
export FI_PROVIDER

# fabtests' exit codes for "not offered" (errno values, as their
# programs exit with -ret).
ENODATA=61
ENOSYS=38
# Each run's server gets a port of its own: no run waits for the
# previous one's to be released.
base_port=$((20000 + $$ % 20000))
results="$dir/results"
: >"$results"

# verdict SERVER_RC CLIENT_RC
verdict() {
	case "$1:$2" in
	0:0) echo PASS ;;
	$ENODATA:$ENODATA | $ENOSYS:$ENOSYS | $ENODATA:$ENOSYS | $ENOSYS:$ENODATA)
		echo NOTRUN ;;
	*) echo FAIL ;;
	esac
}

# show FILE...: the output of a run that failed.
show() {
	for f in "$@"; do
		say "---- ${f##*/}"
		sed -n '1,40p' "$f"
	done
}

# run_unit PORT PROV EP ARGS...: one program; prints the verdict.
run_unit() {
	prov=$2 ep=$3
	shift 3
	unit "$@" -p "$prov" -e "$ep"
}

# run_unitp PORT PROV EP ARGS...: one program without -e.
run_unitp() {
	prov=$2
	shift 3
	unit "$@" -p "$prov"
}

# unit ARGS...: run the program ARGS; prints the verdict.
unit() {
	timeout "$FABTESTS_TIMEOUT" "$@" >"$dir/u.out" 2>&1
	rc=$?
	v=$(verdict "$rc" "$rc")
	[ "$v" = FAIL ] || [ "$FABTESTS_VERBOSE" = 1 ] &&
		say "-- $*: exit $rc" >&2 &&
		show "$dir/u.out" >&2
	echo "$v"
}

# run_cs PORT PROV EP ARGS...: the server on PORT, then the client;
# prints the verdict.
run_cs() {
	port=$1 prov=$2 ep=$3
	shift 3
	timeout "$FABTESTS_TIMEOUT" "$@" -p "$prov" -e "$ep" \
		-s 127.0.0.1 -B "$port" >"$dir/s.out" 2>&1 &
	spid=$!
	bg_pids="$bg_pids $spid"
	# An FI_EP_MSG server listens on PORT once it is ready; an
	# FI_EP_RDM one (ofi_rxm) shows no such sign: a second at most,
	# as runfabtests.sh waits.
	i=0
	while kill -0 "$spid" 2>/dev/null && ! fabtests_listening "$port" &&
		[ $i -lt 20 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	timeout "$FABTESTS_TIMEOUT" "$@" -p "$prov" -e "$ep" \
		-s 127.0.0.1 -P "$port" 127.0.0.1 >"$dir/c.out" 2>&1
	crc=$?
	# A server whose client gave up waits for nobody: a few seconds,
	# then it is killed (runfabtests.sh does the same).
	i=0
	while [ "$crc" -ne 0 ] && kill -0 "$spid" 2>/dev/null &&
		[ $i -lt 40 ]; do
		i=$((i + 1))
		sleep 0.05
	done
	if [ "$crc" -ne 0 ] && kill -0 "$spid" 2>/dev/null; then
		# timeout(1) passes SIGTERM on to the server; a KILL of
		# timeout itself would orphan it.  Whatever ignores the TERM
		# gets a KILL, by its own pid.
		child=$(pgrep -P "$spid" 2>/dev/null)
		kill -TERM "$spid" 2>/dev/null
		sleep 0.5
		[ -n "$child" ] && kill -9 $child 2>/dev/null
	fi
	wait "$spid"
	src=$?
	v=$(verdict "$src" "$crc")
	[ "$v" = FAIL ] || [ "$FABTESTS_VERBOSE" = 1 ] &&
		say "-- $* -p $prov -e $ep: server exit $src, client exit $crc" >&2 &&
		show "$dir/s.out" "$dir/c.out" >&2
	echo "$v"
}

# The providers: column name, -p, -e.
PROVIDERS='iwcm|iwcm|msg
tcp|tcp|msg
iwcm;rxm|iwcm;ofi_rxm|rdm
tcp;rxm|tcp;ofi_rxm|rdm'

start=$(date +%s)
n=0
echo "$TESTS" | while read -r kind eps prog args; do
	[ -n "$kind" ] || continue
	n=$((n + 1))
	line="$prog${args:+ $args}"
	if [ -n "$FABTESTS_ONLY" ] &&
		! echo "$line" | grep -Eq -- "$FABTESTS_ONLY"; then
		continue
	fi
	row="$line"
	t0=$(date +%s)
	echo "$PROVIDERS" | {
		k=0
		while IFS='|' read -r _ prov ep; do
			k=$((k + 1))
			if [ "$eps" != both ] && [ "$eps" != "$ep" ]; then
				v=-
			else
				# shellcheck disable=SC2086
				v=$(run_$kind $((base_port + 4 * n + k)) \
					"$prov" "$ep" "$prog" $args)
			fi
			row="$row|$v"
		done
		echo "$row"
	} >>"$results"
	tail -n 1 "$results" | awk -F'|' -v t=$(($(date +%s) - t0)) \
		'{ printf "%-40s %s %s %s %s (%d s)\n", $1, $2, $3, $4, $5, t }'
done
elapsed=$(($(date +%s) - start))

# listed EP LINE: the reason NOT_APPLICABLE gives, if any.
listed() {
	echo "$NOT_APPLICABLE" | awk -F'|' -v ep="$1" -v t="$2" \
		'($1 == ep || $1 == "both") && $2 == t { print $3; exit }'
}

say ""
printf '%-40s %-8s %-8s %-8s %-8s\n' test iwcm tcp 'iwcm;rxm' 'tcp;rxm'
awk -F'|' '{ printf "%-40s %-8s %-8s %-8s %-8s\n", $1, $2, $3, $4, $5 }' \
	"$results"
say "($elapsed s)"

status=0
# A daemon that went away (a signal from outside: the client saw "daemon
# shutting down") leaves the later iwcm results meaningless.
if ! kill -0 "$pid" 2>/dev/null; then
	wait "$pid"
	say "FAIL: iwcmd exited during the run (status $?); its log:"
	tail -n 20 "$dir/log"
	status=1
fi
while IFS='|' read -r line iw tcp iwr tcpr; do
	for pair in "msg $iw $tcp" "rdm $iwr $tcpr"; do
		# shellcheck disable=SC2086
		set -- $pair
		[ "$3" = PASS ] && [ "$2" != PASS ] || continue
		why=$(listed "$1" "$line")
		if [ -n "$why" ]; then
			say "not applicable ($1): $line: $why"
		else
			say "FAIL: $line ($1): $2 for iwcm, PASS for tcp"
			status=1
		fi
	done
done <"$results"
exit $status
