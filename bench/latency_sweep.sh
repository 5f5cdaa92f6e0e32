#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Discovery under the test bed's latency model (issue 44;
# tests/integration/latency_model.c, docs/testbed-latency.md): loomd's full
# sweep against ibnetdiscover (and ibnetdiscover -o 64) on the same
# generated fat tree, every one of them preloaded with the model before
# umad2sim. Prints the minimum and median of N runs of each and the ratios
# of the medians (loom / ibnetdiscover). The model's parameters are its
# defaults unless LOOM_LAT_* are set in the environment (they are printed).
# Run as root: sh bench/latency_sweep.sh   (BENCH_RUNS=N, default 3;
# BENCH_HOSTS=H, default 1152: a 3-level fat tree of 36-port switches.)
#
#   walk   loomd's SMP walk (the sweep's duration_ms)
#   total  the whole `loomctl discover --wait` as a client sees it
#   ibnd   `ibnetdiscover` wall time (2 SMPs in flight), ibnd-o64 with 64
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_netns "$@"
. "$top/bench/latency_lib.sh"
loom_work
runs=${BENCH_RUNS:-3}
hosts=${BENCH_HOSTS:-1152}

loom_tree_up bench "$hosts"   # OpenSM without the model: LIDs and routes
lat_model_line
rm -f "$work"/loom.db*
loom_config "$(loom_subnet_conf bench)"
sed -i 's/level: debug/level: notice/' "$work/loom.yaml"
(LD_PRELOAD="$MODEL $PRELOAD" exec "$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log") &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
: >"$work/walk"; : >"$work/total"; : >"$work/ibnd"; : >"$work/ibnd64"
for _i in $(seq "$runs"); do
	t0=$(lat_ms)
	loom_ctl --json discover --wait >"$work/disc.json"
	echo $(($(lat_ms) - t0)) >>"$work/total"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweeps"][0]; assert s["status"]=="ok", s; print(s["duration_ms"])' \
		"$work/disc.json" >>"$work/walk"
	lat_timed "$work/ibnd" ibnetdiscover
	lat_timed "$work/ibnd64" ibnetdiscover -o 64
done
nodes=$(sed -n 's/.*"nodes": \([0-9]*\).*/\1/p' "$work/disc.json" | head -n1)
# shellcheck disable=SC2046  # two numbers each, split on purpose
set -- $(lat_stats <"$work/walk") $(lat_stats <"$work/total") $(lat_stats <"$work/ibnd") $(lat_stats <"$work/ibnd64")
awk -v h="$hosts" -v n="$nodes" -v r="$runs" -v wmin="$1" -v w="$2" -v tmin="$3" -v t="$4" \
	-v imin="$5" -v i="$6" -v i64min="$7" -v i64="$8" 'BEGIN {
	printf "fat tree 3 levels r36, %d hosts, %d nodes, %d runs (min/median ms) | walk %d/%d  total %d/%d | ibnd %d/%d  ibnd-o64 %d/%d | walk/ibnd %.2f  total/ibnd %.2f  walk/ibnd-o64 %.2f\n",
		h, n, r, wmin, w, tmin, t, imin, i, i64min, i64, w / i, t / i, w / i64 }'
