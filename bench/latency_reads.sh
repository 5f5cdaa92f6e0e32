#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/latency_reads.sh: loom's other MAD-bound work under the test bed's
# latency model (issue 44; docs/testbed-latency.md), each against what an
# operator runs, side by side in one run on the same generated 3-level fat
# trees of 36-port switches (OpenSM run once without the model for LIDs and
# routes). Everything measured runs preloaded with the model before
# umad2sim, at its defaults unless LOOM_LAT_* are set (they are printed).
# Min/median of N runs in ms, and the ratio of the medians (loom / the tool).
#
#   sh bench/latency_reads.sh [PART...]     PART: lfts pkeys ar osm (all)
#   BENCH_HOSTS="1152 4608"  the trees        BENCH_RUNS=3
#   BENCH_BASE=PATH          another loomd (an older build), measured too
#   BENCH_OSM_BASE=DIR       another libloomosm.so's folder (osm: loom-before)
#   BENCH_TENANT=64          the tenant's hosts (pkeys)
#   BENCH_IBROUTE_MAX=1152   ibroute per switch only up to that many hosts
#
#   lfts   `loomd --read-lfts` (what `loomctl route check` runs: its own walk,
#          every switch's LFT, then the SL-to-VL tables of every switch port
#          pair a path can use; tab: the LFT part alone, from its stream's
#          header) against `dump_fts` (its own walk, then every LFT) and
#          `ibroute -n LID` run for each switch (-n: no destination lookups, which
#          cost ibroute an SMP per LID: 0.7 s a switch at 1152 hosts)
#   pkeys  `loomd --read-pkeys` handed the fabric on stdin (validation's read
#          after a sweep: every CA port and the switch port facing it), and
#          with its own walk (a tenant change's read, tenants_ib.c), against
#          what an operator checks a tenant with: `smpquery pkeys LID` of each
#          of the tenant's hosts and `smpquery pkeys LEAF PORT` of the switch
#          port facing it (2 x BENCH_TENANT processes)
#   ar     `loomd --program-ar` (what `loomctl ar program` runs: its walk, the
#          LFT read, then each switch's AR sequence; ibsim answers no vendor
#          SMP, so each ends "unsupported" after its GetCap) with the window
#          of discovery.max_smps (64) and with 1 (one switch at a time, and
#          the walk and the LFT read one SMP at a time: this build only)
#   osm    OpenSM itself preloaded with the model, `opensm -o` from its start
#          to SUBNET UP with routing_engine minhop, updn, ftree and loom
#          (libloomosm), its routing step from its log as bench/routing.sh
#
# Run as root (a network namespace: ibsim's socket is fixed), with a build
# and the model (make -C build tests/integration/latency_model.la).
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_netns "$@"
. "$top/bench/latency_lib.sh"
loom_need dump_fts ibroute smpquery ibswitches python3
loom_work
parts=${*:-lfts pkeys ar osm}
runs=${BENCH_RUNS:-3}
tenant=${BENCH_TENANT:-64}
loomds="$B/loomd ${BENCH_BASE:-}"

# row NAME FILE [REF_FILE]: min/median of FILE, and its median / REF's.
row() {
	# shellcheck disable=SC2046  # two numbers each, split on purpose
	set -- "$1" $(lat_stats <"$2") $([ -n "${3:-}" ] && lat_stats <"$3")
	awk -v n="$1" -v a="$2" -v m="$3" -v r="${5:-0}" 'BEGIN {
		printf "  %-34s %7d/%-7d", n, a, m
		if (r > 0) printf "  %.3fx", m / r
		printf "\n" }'
}
# lat_child FILE OUT LOOMD MODE WINDOW [MORE...]: a loomd child timed as
# lat_timed_to (subnet bench, the first CA's port, timeout 200 ms, 3 retries,
# WINDOW SMPs in flight: discovery's defaults).
lat_child() {
	_cf=$1 _co=$2 _cl=$3 _cm=$4 _cw=$5
	shift 5
	lat_timed_to "$_cf" "$_co" "$_cl" "$_cm" bench "" 0 200 3 "$_cw" "$@"
}

part_lfts() {
	LD_PRELOAD=$PRELOAD ibswitches 2>/dev/null | sed -n 's/.* lid \([0-9]*\) .*/\1/p' >"$work/sw.lids"
	k=0
	for _i in $(seq "$runs"); do
		k=0
		for l in $loomds; do
			k=$((k + 1))
			lat_child "$work/lft$k" "$work/lft.out" "$l" --read-lfts 64
			python3 - "$work/lft.out" "$work/lft$k" <<'PY'
import struct, sys
b = open(sys.argv[1], "rb").read()
magic = b[:8]
if magic == b"LOOMLFT3":
    _, _, _, _, st, fin, tab, smps, tsmps, n, nvl = struct.unpack_from("=8sIIQdddQQQQ", b)
    total = int(open(sys.argv[2]).read().split()[-1])
    open(sys.argv[2] + ".tab", "a").write("%d\n" % ((tab - st) * 1000))
    open(sys.argv[2] + ".nosl", "a").write("%d\n" % (total - (fin - tab) * 1000))
    open(sys.argv[2] + ".n", "w").write("%d tables (%d SMPs), %d SL2VL pairs (%d SMPs)\n"
                                        % (n, tsmps, nvl, smps - tsmps))
elif magic != b"LOOMLFT2":
    sys.exit("not a forwarding table stream: %r" % magic)
PY
		done
		lat_timed "$work/dumpfts" dump_fts
		# shellcheck disable=SC2016  # the inner script's own variables
		[ "$hosts" -gt "${BENCH_IBROUTE_MAX:-1152}" ] ||
			lat_timed "$work/ibroute" sh -c 'while read -r l; do ibroute -n "$l" >/dev/null || exit 1; done <"$1"' \
				sh "$work/sw.lids"
	done
	echo " lfts ($(wc -l <"$work/sw.lids") switches; $(cat "$work/lft1.n"))"
	row "dump_fts" "$work/dumpfts"
	[ ! -s "$work/ibroute" ] || row "ibroute -n per switch" "$work/ibroute" "$work/dumpfts"
	k=0
	for l in $loomds; do
		k=$((k + 1))
		row "loomd --read-lfts ${l##*/}" "$work/lft$k" "$work/dumpfts"
		[ -s "$work/lft$k.tab" ] || continue
		row "  its LFT part (tab)" "$work/lft$k.tab" "$work/dumpfts"
		row "  all but the SL2VL part" "$work/lft$k.nosl" "$work/dumpfts"
	done
}

part_pkeys() {
	LD_PRELOAD=$PRELOAD "$B/loomd" --walk bench "" 0 200 3 64 >"$work/fab.bin" 2>"$work/walk.err" ||
		loom_fail "loomd --walk: $(cat "$work/fab.bin" "$work/walk.err")"
	# The tenant: the first hosts that ibnetdiscover -p lists, each
	# "HOST_LID LEAF_LID LEAF_PORT" (CA lines: CA LID PORT GUID ... - SW LID PORT ...).
	LD_PRELOAD=$PRELOAD ibnetdiscover -p 2>/dev/null |
		awk -v t="$tenant" '$1 == "CA" { for (i = 1; i <= NF; i++) if ($i == "SW") {
			print $2, $(i + 1), $(i + 2); break } }' | sed -n "2,$((tenant + 1))p" >"$work/tenant"
	[ "$(wc -l <"$work/tenant")" = "$tenant" ] || loom_fail "no $tenant hosts in ibnetdiscover -p"
	for _i in $(seq "$runs"); do
		k=0
		for l in $loomds; do
			k=$((k + 1))
			lat_child "$work/pk$k" "$work/pk.out" "$l" --read-pkeys 64 - <"$work/fab.bin"
			grep -c '^0x' "$work/pk.out" >"$work/pk.n"
			lat_child "$work/pkw$k" /dev/null "$l" --read-pkeys 64
		done
		# shellcheck disable=SC2016  # the inner script's own variables
		lat_timed "$work/smpq" sh -c 'while read -r h s p; do
			smpquery pkeys "$h" >/dev/null && smpquery pkeys "$s" "$p" >/dev/null || exit 1
			done <"$1"' sh "$work/tenant"
	done
	echo " pkeys (loom: $(cat "$work/pk.n") ports; smpquery: $((2 * tenant)) ports, $tenant hosts)"
	row "smpquery pkeys (tenant)" "$work/smpq"
	k=0
	for l in $loomds; do
		k=$((k + 1))
		row "loomd --read-pkeys - ${l##*/}" "$work/pk$k" "$work/smpq"
		row "  with its walk" "$work/pkw$k" "$work/smpq"
	done
}

part_ar() {
	for _i in $(seq "$runs"); do
		k=0
		for l in $loomds; do
			k=$((k + 1))
			for w in 64 1; do
				[ "$k" = 1 ] || [ "$w" != 1 ] || continue  # one switch at a time: this build's
				lat_child "$work/ar$k-$w" "$work/ar.out" "$l" --program-ar "$w" tree ffff 0 0
				python3 -c 'import json, sys
d = [json.loads(x)["done"] for x in open(sys.argv[1]) if "\"done\"" in x][-1]
print(d.get("programming_ms", 0), file=open(sys.argv[2] + ".prog", "a"))
open(sys.argv[2] + ".n", "w").write("%d switches, %d SMPs, %d unsupported\n" % (d["switches"], d["smps"], d["unsupported"]))' \
					"$work/ar.out" "$work/ar$k-$w"
			done
		done
	done
	echo " ar ($(cat "$work/ar1-64.n"))"
	k=0
	for l in $loomds; do
		k=$((k + 1))
		for w in 64 1; do
			[ -s "$work/ar$k-$w" ] || continue
			row "loomd --program-ar ${l##*/} window $w" "$work/ar$k-$w" "$work/ar1-1"
			[ ! -s "$work/ar$k-$w.prog" ] || row "  its programming" "$work/ar$k-$w.prog"
		done
	done
}

part_osm() {
	engines="minhop updn ftree loom"
	[ -e "$B/plugins/opensm/.libs/libloomosm.so" ] || engines="minhop updn ftree"
	[ -z "${BENCH_OSM_BASE:-}" ] || engines="$engines loom-before"
	for _i in $(seq "$runs"); do
		for e in $engines; do
			d=$work/osmrun-$e
			rm -rf "$d"
			mkdir -p "$d"
			cp "$work/guid2lid" "$d/" 2>/dev/null || :  # the same LIDs every run
			lib=$B/plugins/opensm/.libs
			[ "$e" != loom-before ] || lib=${BENCH_OSM_BASE:-}
			printf 'routing_engine %s\nlog_flags 0x07\n' "${e%-before}" >"$d/opensm.conf"
			[ "${e%-before}" != loom ] || echo "event_plugin_name loomosm" >>"$d/opensm.conf"
			# shellcheck disable=SC2016  # the inner script's own variables
			lat_timed "$work/osm-$e" env OSM_CACHE_DIR="$d" LOOMOSM_SOCKET="$d/osm.sock" \
				LD_LIBRARY_PATH="$lib" sh -c 'opensm -F "$1/opensm.conf" -o -f "$1/opensm.log" \
					>"$1/opensm.out" 2>&1; grep -q "SUBNET UP" "$1/opensm.log"' sh "$d"
			python3 "$top/bench/osm_log.py" "$d/opensm.log" >"$work/osm.step" ||
				loom_fail "opensm $e: no routing step in its log"
			cut -d' ' -f1 "$work/osm.step" >>"$work/osm-$e.route"
			cut -d' ' -f2 "$work/osm.step" >"$work/osm-$e.used"
		done
	done
	echo " osm (OpenSM under the model: start to SUBNET UP; routing: its routing step)"
	for e in $engines; do
		row "opensm $e (routed: $(cat "$work/osm-$e.used"))" "$work/osm-$e" "$work/osm-minhop"
		row "  its routing step" "$work/osm-$e.route" "$work/osm-minhop.route"
	done
}

for hosts in ${BENCH_HOSTS:-1152 4608}; do
	loom_tree_up bench "$hosts"
	lat_model_line
	echo "$runs runs, min/median ms, ratio of medians; $(date -u '+%F %H:%M'), load $(cut -d' ' -f1-3 /proc/loadavg)"
	for p in $parts; do
		case $p in
		lfts | pkeys | ar | osm) "part_$p" ;;
		*) loom_fail "unknown part $p (lfts pkeys ar osm)" ;;
		esac
		rm -rf "$work"/lft[0-9]* "$work"/pk[0-9w]* "$work"/ar[0-9]* "$work"/osm-* "$work"/osmrun-* \
			"$work/dumpfts" "$work/ibroute" "$work/smpq"
	done
	echo " load after: $(cut -d' ' -f1-3 /proc/loadavg)"
	loom_ibsim_stop
done
