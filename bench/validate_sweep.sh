#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Fabric validation inside loomd (issue 22): how long the checks take after
# a sweep, and what they cost loomd in memory, on a generated fabric (by
# default the 11664-host three-level fat tree of 36-port switches) with its
# plan the ibnetdiscover output of the same fabric (validation.expected),
# so that every cable is checked. Run as root:
#   sh bench/validate_sweep.sh [FABGEN-ARGS...]      (BENCH_RUNS=N, default 5)
# Prints the medians and the maxima of "validated ... in N ms" (loomd's log
# line: the cabling check, the fabric's rules, the BER alarms read and the
# findings recorded, from the fabric the sweep handed over), the sweep's own
# walk and record times for scale, `loomctl fabric validate` as a client
# sees it, and loomd's peak RSS with validation on and off.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_netns "$@"
loom_work
runs=${BENCH_RUNS:-5}
[ $# -gt 0 ] || set -- fattree --levels 3 --radix 36

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
max() { sort -g | tail -n 1; }
ms() { echo $(($(date +%s%N) / 1000000)); }

loom_gen bench "$@"
flags=$(sed -n 's/^# ibsim flags: //p' "$work/bench.net")
# shellcheck disable=SC2086
loom_ibsim "$work/bench.net" $flags
t0=$(ms)
loom_opensm
echo "SUBNET UP in $(($(ms) - t0)) ms"
loom_ibnetdiscover >"$work/plan.topo"

run() { # ENABLED: sweeps, then loomd's peak RSS
	rm -f "$work"/loom.db*
	loom_config "$(loom_subnet_conf bench)" "validation:" "  enabled: $1" \
		"  expected: $work/plan.topo"
	sed -i 's/level: debug/level: info/' "$work/loom.yaml"
	: >"$work/loomd.log"
	loom_loomd "$work/loom.yaml"
	: >"$work/walk"; : >"$work/client"
	for i in $(seq "$runs"); do
		loom_ctl --json discover --wait >"$work/disc.json"
		sed -n 's/.*"duration_ms": \([0-9]*\).*/\1/p' "$work/disc.json" >>"$work/walk"
		if [ "$1" = true ]; then
			loom_until 600 test "$(grep -c 'validated [0-9]* nodes' "$work/loomd.log")" -ge "$i" ||
				loom_fail "no validation after sweep $i"
			t=$(ms)
			loom_ctl fabric validate --summary >"$work/summary" || :
			echo $(($(ms) - t)) >>"$work/client"
		fi
	done
	awk '/VmHWM/ { print $2 }' "/proc/$LOOMD_PID/status" >"$work/hwm.$1"
	cp "$work/walk" "$work/walk.$1"; cp "$work/client" "$work/client.$1"
	kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
}

run true
sed -n 's/.*validated [0-9]* nodes, [0-9]* links in \([0-9.]*\) ms.*/\1/p' "$work/loomd.log" >"$work/checks"
grep 'validated' "$work/loomd.log" | tail -n 1 | sed 's/.*info: //'
cat "$work/summary"
run false
echo "bench/validate_sweep.sh: $* ($runs sweeps)"
echo "  after a sweep: median $(median <"$work/checks") ms, max $(max <"$work/checks") ms" \
     "(the sweep's walk: median $(median <"$work/walk.true") ms)"
echo "  loomctl fabric validate --summary: median $(median <"$work/client.true") ms"
echo "  loomd peak RSS: $(cat "$work/hwm.true") KiB with validation, $(cat "$work/hwm.false") KiB without"
