#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Discovery under the test bed's latency model (issue 44;
# tests/integration/latency_model.c, docs/testbed-latency.md): loomd's full
# sweep against ibnetdiscover (and ibnetdiscover -o 64) on the same
# generated fat tree, every one of them preloaded with the model before
# umad2sim; and the walk child alone (`loomd --walk`) with each walker,
# loom's own (discovery.walker: loom, daemon/ib/walk_dr.c) and libibnetdisc's. Prints the minimum and median of N runs of each and the ratios
# of the medians (loom / ibnetdiscover). The model's parameters are its
# defaults unless LOOM_LAT_* are set in the environment (they are printed).
# Run as root: sh bench/latency_sweep.sh   (BENCH_RUNS=N, default 3;
# BENCH_HOSTS=H, default 1152: a 3-level fat tree of 36-port switches.)
#
#   walk   loomd's SMP walk (the sweep's duration_ms; discovery.walker:
#          BENCH_WALKER, default loom)
#   total  the whole `loomctl discover --wait` as a client sees it
#   loom, libibnd  the `loomd --walk` child's wall time with each walker
#          (64 SMPs in flight; the child also reads the SMs: with no SM
#          running, as here, that waits for the SA's timeout)
#   (walk only)  the walk inside that child, from its stats line
#          (LOOMD_WALK_STATS), with each walker's SMP count
#   ibnd   `ibnetdiscover` wall time (2 SMPs in flight), ibnd-o64 with 64
# With LOOM_LAT_SWITCH_US=0 LOOM_LAT_HCA_US=0 LOOM_LAT_HOP_NS=0 the model
# adds nothing: ibsim's own speed, the floor.
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
: >"$work/walk"; : >"$work/total"; : >"$work/ibnd"; : >"$work/ibnd64"
: >"$work/cloom"; : >"$work/cibnd"; : >"$work/cloom.w"; : >"$work/cibnd.w"
# the walk child, as loomd starts it (200 ms, 3 retries, 64 SMPs out)
child() { # child FILE WALKER: the walk child's time in FILE, the walk's own in FILE.w
	(export LOOMD_WALKER="$2" LOOMD_WALK_STATS=1; lat_timed "$1" "$B/loomd" --walk bench "" 0 200 3 64)
	sed -n 's/.*walk.*, \([0-9]*\) ms$/\1/p' "$work/lat_timed.err" >>"$1.w"
	sed -n 's/.*walk[^:]*: \(.*\)$/\1/p' "$work/lat_timed.err" >"$1.line"
}
# First the walks on their own (nothing else asks ibsim meanwhile: loomd's
# sweep is followed by its readers' children, and ibnetdiscover under the
# model has aborted, "outstanding SMP's on wire", with them about)
for _i in $(seq "$runs"); do
	lat_timed "$work/ibnd" ibnetdiscover
	lat_timed "$work/ibnd64" ibnetdiscover -o 64
	child "$work/cloom" loom
	child "$work/cibnd" ibnetdisc
done
rm -f "$work"/loom.db*
loom_config "$(loom_subnet_conf bench)
  walker: ${BENCH_WALKER:-loom}"
sed -i 's/level: debug/level: notice/' "$work/loom.yaml"
(LD_PRELOAD="$MODEL $PRELOAD" exec "$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log") &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
for _i in $(seq "$runs"); do
	t0=$(lat_ms)
	loom_ctl --json discover --wait >"$work/disc.json"
	echo $(($(lat_ms) - t0)) >>"$work/total"
	python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweeps"][0]; assert s["status"]=="ok", s; print(s["duration_ms"])' \
		"$work/disc.json" >>"$work/walk"
	sleep 2  # loomd's readers after the sweep
done
echo "loom's walk: $(cat "$work/cloom.line")"
echo "libibnetdisc's walk: $(cat "$work/cibnd.line")"
# shellcheck disable=SC2046  # two numbers each, split on purpose
set -- $(lat_stats <"$work/cloom.w") $(lat_stats <"$work/cibnd.w")
lwo=$2
echo "walk only (min/median ms): loom $1/$2  libibnetdisc $3/$4  loom/libibnetdisc $(awk -v a="$2" -v b="$4" 'BEGIN { printf "%.2f", a / b }')  loom/ibnd $(awk -v a="$2" -v b="$(lat_stats <"$work/ibnd" | cut -d' ' -f2)" 'BEGIN { printf "%.2f", a / b }')"
: "$lwo"
nodes=$(sed -n 's/.*"nodes": \([0-9]*\).*/\1/p' "$work/disc.json" | head -n1)
# shellcheck disable=SC2046  # two numbers each, split on purpose
set -- $(lat_stats <"$work/walk") $(lat_stats <"$work/total") $(lat_stats <"$work/ibnd") $(lat_stats <"$work/ibnd64") \
	$(lat_stats <"$work/cloom") $(lat_stats <"$work/cibnd")
awk -v h="$hosts" -v n="$nodes" -v r="$runs" -v wmin="$1" -v w="$2" -v tmin="$3" -v t="$4" \
	-v imin="$5" -v i="$6" -v i64min="$7" -v i64="$8" -v lmin="$9" -v l="${10}" \
	-v cmin="${11}" -v c="${12}" -v wk="${BENCH_WALKER:-loom}" 'BEGIN {
	printf "fat tree 3 levels r36, %d hosts, %d nodes, %d runs (min/median ms) | walk(%s) %d/%d  total %d/%d | child loom %d/%d  libibnd %d/%d | ibnd %d/%d  ibnd-o64 %d/%d | walk/ibnd %.2f  total/ibnd %.2f  walk/ibnd-o64 %.2f | loom/ibnd %.2f  loom/ibnd-o64 %.2f  loom/libibnd %.2f\n",
		h, n, r, wk, wmin, w, tmin, t, lmin, l, cmin, c, imin, i, i64min, i64, w / i, t / i, w / i64, l / i, l / i64, l / c }'
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
