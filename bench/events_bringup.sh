#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Events written while a fabric comes up (issue 39, "Bring-up and storms
# coalesce"): loomd runs before OpenSM on a 1000-host 2-level fat tree of
# 48-port switches in ibsim, sweeping every 5 s, reading counters every 10 s,
# following OpenSM (libloomosm) and validating, as a new site would start it;
# OpenSM then brings the subnet up (ports go INIT -> ARMED -> ACTIVE under
# loomd's eyes). After BENCH_SECONDS (default 120) the events table is
# counted by kind. The target: fewer than 100 events in all.
#
#   sh bench/events_bringup.sh        (root; ibsim in a netns)
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir=${top_srcdir:-$top}
export top_builddir=${top_builddir:-$top/build}
. "$top/tests/integration/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
secs=${BENCH_SECONDS:-120}

loom_gen bench fattree --levels 2 --radix 48 --hosts 1000
flags=$(sed -n 's/^# ibsim flags: //p' "$work/bench.net")
printf 'event_plugin_name loomosm\nrouting_engine loom\nforce_log_flush TRUE\nlog_flags 0x03\n' \
	>"$work/opensm.conf"
# shellcheck disable=SC2086
loom_ibsim "$work/bench.net" $flags
loom_config "$(loom_subnet_conf bench)" 'telemetry:' '  interval_s: 10'
sed -i 's/level: debug/level: info/; s/^  interval: 0$/  interval: 5/' "$work/loom.yaml"
loom_loomd "$work/loom.yaml"
sleep 2
(loom_osm_plugin) &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 3000 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
sleep "$secs"
echo "events after ${secs} s of bring-up (1000 hosts, 21 switches... see bench.net):"
sqlite3 "$work/loom.db" "SELECT count(*) FROM events"
sqlite3 "$work/loom.db" "SELECT kind, count(*) FROM events GROUP BY kind ORDER BY 2 DESC"
