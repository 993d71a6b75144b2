# SPDX-License-Identifier: BSD-2-Clause
# Copyright (c) 2026 The iwcm authors
#
# MPI across hosts (sourced by run.sh): bad input, mpi_check and
# mpi_mesh on 6 ranks over 3 hosts, a job whose hosts disagree on CRC
# and markers, and the largest job against tcp;ofi_rxm.

# tests/integ/mpi.sh's MCA options: the cm PML over "iwcm;ofi_rxm"
mca_iwcm="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include iwcm;ofi_rxm --mca btl self --mca osc pt2pt"
mca_tcp="--mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include tcp;ofi_rxm --mca btl self --mca osc pt2pt"
mpi_check="$top_builddir/examples/mpi/mpi_check"
mpi_mesh="$top_builddir/examples/mpi-mesh/mpi_mesh"

# established H...: each host's "established" counter, one word each
established() {
	for h in "$@"; do
		printf '%s ' "$(host_stat "$h" established)"
	done
}

# rose_by BEFORE AFTER MIN: every host's counter rose by at least MIN;
# prints the rises
rose_by() {
	set -- $1 -- $2 -- "$3"
	echo "$@" | awk '{
		n = 0; for (i = 1; $i != "--"; i++) b[++n] = $i
		i++; m = 0; for (; $i != "--"; i++) a[++m] = $i
		min = $(i + 1); ok = 1; s = ""
		for (k = 1; k <= n; k++) {
			d = a[k] - b[k]; s = s " h" k ":+" d
			if (d < min) ok = 0
		}
		print s; exit !ok }'
}

# oks FILE: the ranks that printed ": ok"
oks() { grep -c ': ok$' "$1" 2>/dev/null || echo 0; }

case_bad_input() {
	bad=0
	# a host that does not exist: the launcher names it
	out=$("$hosts_srcdir/agent.sh" nosuchhost true 2>&1)
	rc=$?
	case "$rc/$out" in
	255/*"no such host 'nosuchhost'"*) ;;
	*) fail "agent.sh nosuchhost: exit $rc: $out"; bad=1 ;;
	esac
	hosts_mpirun 60 2 h1:1,nosuchhost:1 $mca_iwcm "$mpi_check" \
		>"$hdir/bad1.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] || ! grep -q "no such host 'nosuchhost'" "$hdir/bad1.out"; then
		fail "mpirun on nosuchhost: exit $rc: $(tail -5 "$hdir/bad1.out")"
		bad=1
	fi
	# a host whose iwcmd is down: the job fails at start naming the
	# socket, from the launcher and, unchecked, from the rank itself
	host_daemon_stop h4
	hosts_mpirun 60 2 h1:1,h4:1 $mca_iwcm "$mpi_check" \
		>"$hdir/bad2.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] || ! grep -q "h4: no iwcmd answers on $hdir/h4.sock" "$hdir/bad2.out"; then
		fail "a job on h4 without iwcmd: exit $rc: $(tail -5 "$hdir/bad2.out")"
		bad=1
	fi
	IWCM_HOSTS_NO_CHECK=1
	export IWCM_HOSTS_NO_CHECK
	hosts_mpirun 60 2 h1:1,h4:1 \
		"$mpi_mesh" 0.0.0.0 \
		>"$hdir/bad3.out" 2>&1
	rc=$?
	unset IWCM_HOSTS_NO_CHECK
	if [ $rc -eq 0 ] || ! grep -q "$hdir/h4.sock" "$hdir/bad3.out"; then
		fail "mpi_mesh on h4 without iwcmd: exit $rc: $(tail -5 "$hdir/bad3.out")"
		bad=1
	fi
	host_daemon_start h4 || bad=1
	[ $bad -eq 0 ] && {
		figure "unknown host: $(grep -m1 "no such host" "$hdir/bad1.out")"
		figure "iwcmd down (launcher): $(grep -m1 "no iwcmd answers" "$hdir/bad2.out")"
		figure "iwcmd down (rank): $(grep -m1 "$hdir/h4.sock" "$hdir/bad3.out")"
		pass
	}
}

# mpi_job NAME PROGRAM [ARGS]: 6 ranks on h1..h3 over iwcm; every rank
# ok, every host's daemon saw its ranks' ends (2 ranks x 5 peers)
mpi_job() {
	name=$1
	shift
	before=$(established h1 h2 h3)
	t0=$(ms)
	hosts_mpirun 300 6 h1:2,h2:2,h3:2 $mca_iwcm "$@" \
		>"$hdir/$name.out" 2>&1
	rc=$?
	t=$(($(ms) - t0))
	after=$(established h1 h2 h3)
	n=$(oks "$hdir/$name.out")
	if [ $rc -ne 0 ] || [ "$n" -ne 6 ]; then
		fail "exit $rc, $n of 6 ranks ok: $(tail -15 "$hdir/$name.out")"
		return 1
	fi
	if ! rise=$(rose_by "$before" "$after" 10); then
		fail "each host's iwcmd should count >= 10 ends:$rise"
		return 1
	fi
	hs=$(sed -n 's/^rank \([0-9]*\) .*/\1/p' "$hdir/$name.out" | wc -l)
	figure "6 ranks on 3 hosts ok in $((t / 1000)).$((t % 1000 / 100)) s; connection ends per host's iwcmd:$rise ($hs rank lines)"
	pass
}

case_mpi_check() {
	mpi_job mpi_check "$mpi_check"
}

# mpi_mesh listens on its own host's address: IWCM_HOST_ADDR from the
# host's environment (agent.sh)
case_mpi_mesh() {
	mpi_job mpi_mesh sh -c "exec $mpi_mesh \$IWCM_HOST_ADDR"
}

# h1: CRC asked for by its daemon and its ranks (FI_IWCM_CRC=on); h2,
# h3: CRC preferred off; h3's daemon asks its peers for markers.  The
# provider logs what each endpoint negotiated (FI_LOG_LEVEL=info); RFC
# 5044 §4.4 / §7.1.1: CRC on when either end asks, markers towards an
# end that asked.
case_mixed() {
	host_conf h1 "crc = request"
	host_env h1 "FI_IWCM_CRC=on"
	host_conf h2 "crc = prefer-off"
	host_conf h3 "crc = prefer-off
markers = yes"
	for h in h1 h2 h3; do
		host_daemon_stop "$h"
		host_daemon_start "$h" || { fail "restart $h"; return; }
	done
	hosts_mpirun 300 6 h1:2,h2:2,h3:2 $mca_iwcm \
		--tag-output -x FI_LOG_LEVEL=info "$mpi_check" \
		>"$hdir/mixed.out" 2>&1
	rc=$?
	# back to the defaults
	for h in h1 h2 h3; do
		host_conf "$h" "request_timeout_ms = 5000"
		sed -i '/^FI_IWCM_CRC=/d' "$hdir/$h.env"
		host_daemon_stop "$h"
		host_daemon_start "$h"
	done
	n=$(grep -c ': ok$' "$hdir/mixed.out")
	if [ $rc -ne 0 ] || [ "$n" -ne 6 ]; then
		fail "exit $rc, $n of 6 ranks ok: $(tail -15 "$hdir/mixed.out")"
		return
	fi
	# per rank: endpoints with CRC on, CRC off, markers tx on, rx on
	bad=0
	summary=
	for r in 0 1 2 3 4 5; do
		l=$(grep "^\[1,$r\]<std[a-z]*>:.*connected: MPA CRC" "$hdir/mixed.out")
		con=$(printf '%s\n' "$l" | grep -c 'CRC on')
		coff=$(printf '%s\n' "$l" | grep -c 'CRC off')
		mtx=$(printf '%s\n' "$l" | grep -c 'markers on/')
		mrx=$(printf '%s\n' "$l" | grep -c 'markers [onf]*/on')
		summary="$summary rank$r[crc $con on/$coff off, markers tx $mtx rx $mrx]"
		case $r in
		0 | 1) want="5 0 2 0" ;;	# h1: CRC with all
		2 | 3) want="2 3 2 0" ;;	# h2: CRC with h1's ranks
		4 | 5) want="2 3 1 5" ;;	# h3: markers to it from all
		esac
		[ "$con $coff $mtx $mrx" = "$want" ] || {
			bad=1
			echo "rank $r: crc on $con off $coff markers tx $mtx rx $mrx, want $want"
		}
	done
	if [ $bad -ne 0 ]; then
		fail "negotiated state differs (see above)"
		grep 'connected: MPA' "$hdir/mixed.out" | head -40
		return
	fi
	figure "h1 crc=request+FI_IWCM_CRC=on, h2/h3 prefer-off, h3 markers:$summary"
	pass
}

# wireup MCA NP HOSTS: the wiring-up time the job printed, or nothing
wireup() {
	hosts_mpirun 400 "$2" "$3" $1 "$hdir/mpi_wireup" \
		>"$hdir/wireup.out" 2>&1 || {
		tail -15 "$hdir/wireup.out"
		return 1
	}
	[ "$(oks "$hdir/wireup.out")" -eq "$2" ] || return 1
	sed -n 's/^wireup: .*, \([0-9.]*\) s .*/\1/p' "$hdir/wireup.out"
}

# the largest job: 16 ranks on 4 hosts (2 cores: oversubscribed), the
# wiring-up time over iwcm against tcp;ofi_rxm in the same harness
case_scale() {
	np=${HOSTS_SCALE_RANKS:-16}
	per=$((np / 4))
	hl="h1:$per,h2:$per,h3:$per,h4:$per"
	before=$(established h1 h2 h3 h4)
	if ! wi=$(wireup "$mca_iwcm" "$np" "$hl"); then
		fail "iwcm;ofi_rxm job: $wi"
		return
	fi
	after=$(established h1 h2 h3 h4)
	if ! rise=$(rose_by "$before" "$after" $((per * (np - 1)))); then
		fail "each host's iwcmd should count >= $((per * (np - 1))) ends:$rise"
		return
	fi
	if ! wt=$(wireup "$mca_tcp" "$np" "$hl"); then
		fail "tcp;ofi_rxm job: $wt"
		return
	fi
	figure "$np ranks on 4 hosts: wiring-up (first message to all ranks) iwcm;ofi_rxm $wi s, tcp;ofi_rxm $wt s; ends per iwcmd:$rise"
	pass
}
