#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Discovery that follows the fabric (issue 23): how long from a cable cut (or
# restored) in the simulator to its event in loom's store, with OpenSM and
# libloomosm running as master and loomd following (discovery.follow, no
# periodic sweep). For each step: the time from the ibsim command to the
# link_down / link_up row in the events table (polled every 10 ms in
# SQLite), and loomd's own account of the incremental sweep (its walk and
# its record), against a full sweep (discover --wait) of the same fabric.
#
#   sh bench/discovery_follow.sh [--large]     (root; ibsim in a netns)
#
# Default a 3456-host 3-level fat tree of 24-port switches; --large the
# 11664-host tree of 36-port switches (ibsim and OpenSM need about 2 minutes
# to bring it up). ibsim is single-threaded: OpenSM's own sweep after the
# trap and loom's walk share it, as real switches' management processors
# would not.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
large=0
[ "${1:-}" = --large ] && large=1
steps=${BENCH_STEPS:-6}

if [ $large = 1 ]; then
	loom_gen bench fattree --levels 3 --radix 36
else
	loom_gen bench fattree --levels 3 --radix 24
fi
flags=$(sed -n 's/^# ibsim flags: //p' "$work/bench.net")
{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'force_log_flush TRUE\nlog_flags 0x03\n'
} >"$work/opensm.conf"
# shellcheck disable=SC2086
loom_ibsim "$work/bench.net" $flags
loom_config
sed -i 's/level: debug/level: info/' "$work/loom.yaml"
loom_loomd "$work/loom.yaml"
(loom_osm_plugin) &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 3000 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
ms() { echo $(($(date +%s%N) / 1000000)); }
t0=$(ms)
loom_ctl --json discover --wait >"$work/full.json" || loom_fail "the full sweep failed"
full=$(($(ms) - t0))
full_walk=$(python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["sweeps"][0]; print(s["duration_ms"], s["record_ms"], s["nodes"])' "$work/full.json")

# Switch-to-switch cables to cut, seeded (never the answer).
python3 - "$work/bench.net" "$steps" >"$work/steps" <<'EOP'
import random, re, sys
links, node = [], None
for line in open(sys.argv[1]):
    m = re.match(r'Switch\s+\d+\s+"([^"]+)"', line)
    if m:
        node = m.group(1)
        continue
    m = re.match(r'\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
    if m and node and not m.group(2).startswith('host') and (m.group(2), int(m.group(3))) > (node, int(m.group(1))):
        links.append((node, int(m.group(1)), m.group(2), int(m.group(3))))
rnd = random.Random(7)
for l in rnd.sample(links, int(sys.argv[2])):
    print('unlink %s %d %s %d' % l)
    print('link %s %d %s %d' % l)
EOP
db=$work/loom.db
echo "bench/discovery_follow.sh: $(grep -c '^Hca' "$work/bench.net") hosts; full sweep: walk+record+nodes $full_walk, discover --wait $full ms"
echo "step  ms-to-event  incremental(walk/record ms)"
: >"$work/lat"
while read -r op a pa b pb; do
	kind=link_down; [ "$op" = link ] && kind=link_up
	n0=$(sqlite3 "$db" "select count(*) from events where kind='$kind'")
	t0=$(ms)
	if [ "$op" = unlink ]; then
		printf 'Unlink "%s"[%s]\n' "$a" "$pa" >&9
	else
		printf 'Link "%s"[%s] "%s"[%s]\n' "$a" "$pa" "$b" "$pb" >&9
	fi
	i=0
	until [ "$(sqlite3 "$db" "select count(*) from events where kind='$kind'")" -gt "$n0" ]; do
		i=$((i + 1)); [ $i -lt 3000 ] || loom_fail "$op $a[$pa]: no $kind event in 30 s"
		sleep 0.01
	done
	dt=$(($(ms) - t0))
	echo "$dt" >>"$work/lat"
	inc=$(grep "incremental sweep" "$work/loomd.log" | tail -n1 | sed -n 's/.*events in \([0-9]*\) ms (+\([0-9]*\) ms.*/\1\/\2/p')
	echo "$op $a[$pa]-$b[$pb]  $dt  $inc"
	# Let OpenSM finish its sweep (and loom its follow-up) before the next.
	sleep "${BENCH_PAUSE:-5}"
done <"$work/steps"
sort -n "$work/lat" | awk '{ v[NR] = $1 } END { printf "median %d ms, max %d ms over %d steps\n", v[int((NR + 1) / 2)], v[NR], NR }'
grep -c "could not be walked alone" "$work/loomd.log" | sed 's/^/fell back to full sweeps: /'
