#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Discovery speed and memory: loomd's sweep against ibnetdiscover, on the same
# simulated fabrics in the same run. Prints one line per fabric with the
# medians of N runs and the ratios (loom / ibnetdiscover; below 1 = loom is
# faster or smaller). Run as root:  make bench   (BENCH_RUNS=N, default 9; BENCH_BIG=1
# adds the 11664-host three-level fat tree, about 2 minutes more.)
#
#   walk      loomd's SMP walk (the sweep's duration_ms)
#   record    the diff and the SQLite transaction (record_ms)
#   total     the whole `loomctl discover --wait` as a client sees it
#   ibnd      `ibnetdiscover` wall time (its default: 2 SMPs in flight) and
#   ibnd -o64 with as many SMPs in flight as loomd uses (discovery.max_smps)
#   RSS       peak resident memory against ibnetdiscover's: loomd itself
#             (VmHWM, includes its idle baseline) and the walker process
#             that loomd starts for each SMP walk (daemon/ib/walker.h)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_netns "$@"
loom_work
runs=${BENCH_RUNS:-9}  # ibsim answers unevenly: single runs vary up to 2x

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
ms() { echo $(($(date +%s%N) / 1000000)); }

# Wall time (ms) and max RSS (KiB) of one command, by python's rusage.
measure() {
	python3 - "$@" <<'EOP'
import os, resource, subprocess, sys, time
t = time.monotonic()
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
               env=dict(os.environ, LD_PRELOAD=os.environ["PRELOAD"]))
print(int((time.monotonic() - t) * 1000), resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
EOP
}
export PRELOAD

bench_fabric() { # NAME FABGEN-ARGS...
	name=$1; shift
	loom_gen bench "$@"
	flags=$(sed -n 's/^# ibsim flags: //p' "$work/bench.net")
	# shellcheck disable=SC2086
	loom_ibsim "$work/bench.net" $flags
	loom_opensm
	rm -f "$work"/loom.db*
	loom_config "$(loom_subnet_conf bench)"
	sed -i 's/level: debug/level: notice/' "$work/loom.yaml"
	loom_loomd "$work/loom.yaml"
	: >"$work/sweep"; : >"$work/record"; : >"$work/walkrss"; : >"$work/total"; : >"$work/ibnd"; : >"$work/ibnd64"; : >"$work/rss"
	for i in $(seq "$runs"); do
		t0=$(ms)
		loom_ctl --json discover --wait >"$work/disc.json"
		echo $(($(ms) - t0)) >>"$work/total"
		python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweeps"][0]; assert s["status"]=="ok", s; print(s["duration_ms"], s["record_ms"], s["walk_rss_kb"])' \
			"$work/disc.json" >"$work/one"
		cut -d' ' -f1 "$work/one" >>"$work/sweep"
		cut -d' ' -f2 "$work/one" >>"$work/record"
		cut -d' ' -f3 "$work/one" >>"$work/walkrss"
		measure ibnetdiscover >>"$work/ibnd"
		measure ibnetdiscover -o 64 >>"$work/ibnd64"
	done
	hwm=$(awk '/VmHWM/ { print $2 }' "/proc/$LOOMD_PID/status")
	walkrss=$(sort -n "$work/walkrss" | tail -n1)
	sweep=$(median <"$work/sweep"); record=$(median <"$work/record"); total=$(median <"$work/total")
	ibnd=$(cut -d' ' -f1 "$work/ibnd" | median); ibnd_rss=$(cut -d' ' -f2 "$work/ibnd" | sort -n | tail -n1)
	ibnd64=$(cut -d' ' -f1 "$work/ibnd64" | median)
	nodes=$(sed -n 's/.*"nodes": \([0-9]*\).*/\1/p' "$work/disc.json" | head -n1)
	awk -v n="$name" -v nodes="$nodes" -v s="$sweep" -v rec="$record" -v t="$total" -v i="$ibnd" \
		-v i64="$ibnd64" -v h="$hwm" -v w="$walkrss" -v r="$ibnd_rss" 'BEGIN {
		printf "%-34s %5d nodes | walk %4d  record %4d  total %4d ms | ibnd %4d  ibnd-o64 %4d ms | walk/ibnd %.2f  total/ibnd %.2f  walk/ibnd-o64 %.2f | RSS loomd %5d walker %5d ibnd %5d KiB (%.2f %.2f)\n",
			n, nodes, s, rec, t, i, i64, s / i, t / i, s / (i64 ? i64 : 1), h, w, r, h / r, w / r }'
	loom_ibsim_stop
}

echo "bench/discovery.sh: medians of $runs runs; ratios are loom / ibnetdiscover"
bench_fabric "fat tree 2 levels r36, 648 hosts" fattree --levels 2 --radix 36
bench_fabric "fat tree 2 levels r48, 1152 hosts" fattree --levels 2 --radix 48
bench_fabric "fat tree 3 levels r16, 1024 hosts" fattree --levels 3 --radix 16 --hosts 1024
bench_fabric "torus 8x8x4, 2 hosts/switch" torus --dims 8,8,4 --hosts-per-switch 2
bench_fabric "fat tree 2 levels r64, 2048 hosts" fattree --levels 2 --radix 64
if [ "${BENCH_BIG:-}" = 1 ]; then
	bench_fabric "fat tree 3 levels r36, 11664 hosts" fattree --levels 3 --radix 36
fi
