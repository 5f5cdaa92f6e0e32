#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/latency_counters.sh: loom's counters read against ibqueryerrors
# under the test bed's latency model (issue 44; tests/integration/
# latency_model.c, docs/testbed-latency.md), on 3-level fat trees of
# 36-port switches, the sizes one after another in one run. The commands
# and their measures are bench/telemetry.sh's (bench/counters_bench.sh),
# each preloaded with the model before umad2sim; OpenSM, the walk that
# writes the reader's fabric and the ibnetdiscover cache run without it.
#
#   sh bench/latency_counters.sh [--hosts 1152,4608,11664] [--runs N]
#                                [--windows 64[,W...]] [--iqe-timeout MS] [--keep]
#     --windows  the reader's MADs in flight (discovery.max_smps) to try
#                besides 64 (always): each W adds the rows child_wW, child_next_wW
#     --iqe-timeout  ibqueryerrors' -t (libibmad's default: 1000 ms a try;
#                loom's reader waits discovery.timeout_ms, 200): for runs
#                with LOOM_LAT_DROP set, where every lost MAD of
#                ibqueryerrors, one at a time, costs a whole timeout
#   make bench-latency-counters   (BENCH_LATENCY_COUNTERS_ARGS for the options)
#
#   child      `loomd --read-counters` as loomd's first read (ClassPortInfo
#              of every PMA, then the switches' AllPortSelect sums, then
#              PortCounters and PortCountersExtended of every cabled port)
#   child_next the reads after the first (capabilities and sums handed
#              on: a quiet switch's ports get PortCountersExtended alone)
#   iqe        `ibqueryerrors --skip-sl`: its DR discovery, then per node
#              ClassPortInfo, per switch one AllPortSelect sum, per CA
#              port PortCounters, one MAD at a time
#   iqe_cache  the same from an ibnetdiscover cache (no discovery)
# Printed per size: min/median of N runs of each (wall s; ibsim's CPU s
# meanwhile: ibsim answers every MAD on one thread, the floor under all),
# and the ratios of the medians (goal: child_next/iqe <= 0.1 at 11664
# hosts). The model's parameters are its defaults unless LOOM_LAT_* are set
# in the environment (they are printed). Run as root.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
sizes=1152,4608,11664 runs=3 keep=0 windows=64 iqe_t=""
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) sizes=$2; shift ;;
	--runs) runs=$2; shift ;;
	--windows) windows=$2; shift ;;
	--iqe-timeout) iqe_t="-t $2"; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/latency_counters.sh [--hosts H,H...] [--runs N] [--windows W,W...] [--iqe-timeout MS] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
command -v ibqueryerrors >/dev/null || { echo "bench/latency_counters.sh: ibqueryerrors is missing" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "bench/latency_counters.sh: /usr/bin/time is missing" >&2; exit 1; }
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
. "$top/bench/latency_lib.sh"
[ $keep = 1 ] && LOOM_KEEP=1
loom_work
rmdir "$work"
work=$(mktemp -d /tmp/loom-bench-latency-counters.XXXXXX)
cd "$work"
[ $keep = 1 ] && echo "work directory: $work"
CB_PRELOAD="$MODEL $PRELOAD"
. "$top/bench/counters_bench.sh"

lat_model_line
# The reader's rows (NAME:WINDOW): child and child_next at 64 always.
rows="child:64 child_next:64" ws=64
for w in $(echo "$windows" | tr , " "); do
	[ "$w" = 64 ] || { rows="$rows child_w$w:$w child_next_w$w:$w"; ws="$ws,$w"; }
done
echo "reader: loomd --read-counters bench \"\" 0 200 3 W (timeout 200 ms, 3 retries, W in flight: $ws);" \
	"ibqueryerrors --skip-sl ${iqe_t:-(the libibmad timeout)}"
for hosts in $(echo "$sizes" | tr , " "); do
	loom_tree_up bench "$hosts"
	ports=$((2 * $(sed -n 's/^# hosts=.* links=\([0-9]*\).*/\1/p' "$work/bench.net")))
	cb_fabric
	for r in $rows iqe iqe_cache; do : >"$work/${r%:*}"; : >"$work/${r%:*}.mads"; done
	for _i in $(seq "$runs"); do
		for r in $rows; do
			n=${r%:*} w=${r#*:} in=fabric.wire
			case $n in child_next*) in=fabric_pmas.wire ;; esac
			cb_measure "$n" "$B/loomd" --read-counters bench "" 0 200 3 "$w" - <"$work/$in"
			cb_read "$n" "$ports"
			[ "$n" = child ] && cb_next_input
		done
		# shellcheck disable=SC2086  # "-t MS" or nothing
		cb_measure iqe ibqueryerrors --skip-sl $iqe_t
		# shellcheck disable=SC2086
		cb_measure iqe_cache ibqueryerrors --skip-sl $iqe_t --load-cache "$work/ibnd.cache"
	done
	loom_ibsim_stop
	echo "$hosts hosts, $ports cabled ports, $runs runs, load $(cut -d' ' -f1-3 /proc/loadavg)" \
		"(wall s min/median, its CPU s and ibsim's CPU s meanwhile: medians):"
	for r in $rows iqe iqe_cache; do
		n=${r%:*}
		printf '  %-15s wall %6.2f / %6.2f  cpu %5.2f  ibsim-cpu %5.2f' "$n" "$(cb_col "$n" 1 cb_min)" \
			"$(cb_col "$n" 1)" "$(cb_col "$n" 2)" "$(cb_col "$n" 4)"
		[ -s "$work/$n.mads" ] && tail -n 1 "$work/$n.mads" |
			awk '{ printf "  %d PMA Gets, %d of %d ports answered, at most %d in flight", $1, $2, $3, $4 }'
		echo
	done
	grep -i 'summary' "$work/iqe.stdout" | tail -n 1 | sed 's/^/  ibqueryerrors: /' || :
	awk -v c="$(cb_col child 1)" -v x="$(cb_col child_next 1)" -v i="$(cb_col iqe 1)" \
		-v k="$(cb_col iqe_cache 1)" 'BEGIN {
		printf "  ratio (medians)  child/iqe %.3f  child_next/iqe %.3f   child/iqe_cache %.3f  child_next/iqe_cache %.3f   (goal: child_next/iqe <= 0.1)\n",
			c / i, x / i, c / k, x / k }'
done
