#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Isolation under HA (issue 42): the isolated set lives in etcd as well as
# each node's database; only the leader acts; a new leader keeps what the
# old one isolated and restores it on time. Three etcd members, two loomd,
# one ibsim fabric whose OpenSM (loom's plugin, reporting to node a) reads
# the isolated links file both nodes write.
#
#  1. Node a leads: symbol errors on a spine-leaf cable, read by a's
#     counters: a isolates it (link_isolated), etcd holds the set, and node
#     b, a follower, lists the same row (its mirror) without having decided
#     anything itself.
#  2. a killed with -9: b takes over, keeps the isolation (the same row,
#     its probation going on from a's clean time), the cable still carries
#     no route.
#  3. After the probation b restores it (link_restored on b), asks OpenSM
#     to reroute, and the cable carries routes again.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_need python3 dump_fts
command -v etcdctl >/dev/null 2>&1 || loom_skip "etcdctl is not installed (etcd-client)"
loom_work
LOOM_HA_TTL=3

loom_etcd_cluster 3
EP=$LOOM_ETCD_ENDPOINTS
loom_gen f fattree --levels 2 --radix 8
loom_ibsim "$work/f.net"
mkdir -p "$work/a" "$work/b"
loom_osm_loom_conf
(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD LOOMOSM_SOCKET=$work/a/osm.sock \
	exec opensm -F "$work/opensm.conf" -f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
osm_pid=$!
LOOM_PIDS="$LOOM_PIDS $osm_pid"
echo "$osm_pid" >"$work/opensm.pid"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "no SUBNET UP"

iso='isolation:'
node() {
	loom_ha_node "$1" "$EP" "$iso" '  mode: on' "  file: $work/isolated-links" \
		'  errors: 50' '  clean_for_s: 25'
}
node a
loom_until 300 loom_ha_is a leader || loom_ha_fail "a is not the leader"
node b
loom_until 300 loom_ha_is b follower || loom_ha_fail "b is not a follower"
for n in a b; do loom_ha_ctl "$n" discover --wait >/dev/null || loom_fail "discover on $n"; done

tables() { loom_tables; }
uses() { loom_lft_uses "$@"; }
rows() { loom_ha_ctl "$1" --json link isolated | python3 -c '
import json, sys
print(json.dumps([(l["guid"], l["port"], l["state"], l["by"], l["since"], l["clean_since"])
                  for l in json.load(sys.stdin)["links"]]))'; }
has_event() { loom_ha_ctl "$1" --json events --kind "$2" | grep -q "$3"; }

tables
loom_lft_pick >"$work/c.txt" ||
	loom_fail "no spine-leaf cable"
read -r leaf port lid name spine sport slid sname n <"$work/c.txt"

# ---- 1. the leader isolates, etcd and the follower hold it ---------------------------
loom_ha_ctl a counters --now >/dev/null
loom_ha_ctl a counters --now >/dev/null
loom_ibsim_cmd "PerformanceSet \"$name\"[$port] PortCounters.SymbolErrorCounter=300"
loom_ha_ctl a counters --now >/dev/null
loom_until 200 has_event a link_isolated "$leaf\[$port\]" || loom_ha_fail "a did not isolate $name[$port]"
etcdctl --endpoints="$EP" get /loom/loom/isolation/set --print-value-only >"$work/etcd.json" 2>/dev/null
grep -q "\"guid\": *\"$leaf\"" "$work/etcd.json" || { cat "$work/etcd.json"; loom_ha_fail "etcd does not hold the set"; }
mirrored() { [ "$(rows a)" = "$(rows b)" ] && [ "$(rows b)" != "[]" ]; }
loom_until 100 mirrored || { rows a; rows b; loom_ha_fail "b does not mirror a's set"; }
has_event b link_isolated "$leaf" && loom_ha_fail "the follower isolated by itself"
no_route() { tables && [ "$(uses "$leaf" "$port")" = 0 ]; }
loom_until 100 no_route || loom_fail "$name[$port] still carries routes"
loom_ok "a isolated $name[$port]; etcd holds the set; b mirrors $(rows b)"

# ---- 2. failover ----------------------------------------------------------------------
before=$(rows b)
eval "kill -9 \$PID_a"
loom_until 300 loom_ha_is b leader || loom_ha_fail "b did not take over"
[ "$(rows b)" = "$before" ] || loom_ha_fail "b's set changed at the takeover: $(rows b), was $before"
tables
[ "$(uses "$leaf" "$port")" = 0 ] || loom_fail "the cable carries routes after the takeover"
loom_ok "b leads and keeps the isolation"

# ---- 3. restored on time by the new leader ----------------------------------------------
loom_until 600 has_event b link_restored "$leaf\[$port\]" ||
	{ rows b; loom_ha_fail "b did not restore $name[$port]"; }
used_again() { tables && [ "$(uses "$leaf" "$port")" -gt 0 ]; }
loom_until 300 used_again || loom_fail "the cable carries no route after b restored it"
etcdctl --endpoints="$EP" get /loom/loom/isolation/set --print-value-only >"$work/etcd.json" 2>/dev/null
grep -q '"links": *\[\]' "$work/etcd.json" || { cat "$work/etcd.json"; loom_fail "etcd still lists it"; }
loom_ok "b restored it after the probation; it carries routes again; etcd's set is empty"

kill "$osm_pid" 2>/dev/null || :
wait "$osm_pid" 2>/dev/null || :
echo "ha_isolation.sh: all ok"
