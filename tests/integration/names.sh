#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# names.node_name_map (issue 39): the site's node names, in the node-name-map
# format of OpenSM and infiniband-diags, on ibsim's 2-level fat tree. A map
# renames two switches (one with spaces in its name) and a CA; the names
# show in loomctl (nodes, node by name, ports, links, counters), in the REST
# API (a name beside the raw desc), in the events' text and in Slurm's
# topology.conf; loomctl --db names nodes the same from the map loomd stored,
# and --node-name-map FILE names them by another. A SIGHUP with a changed map
# renames them everywhere (topology.conf written again); /metrics shows a
# cut cable Down at both ends named by the map; a SIGHUP with a bad map
# is refused naming the map's line, and the names in force stay.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl python3
loom_work

SEC=read-secret-0123456789abcdef-0123
loom_tokens "$work/tokens" "reader:read:$SEC"
loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
port=$(loom_free_port)
# First without a map, for the GUIDs.
loom_config "$(loom_subnet_conf ft)" "http:" "  listen: 127.0.0.1:$port" \
	"  tokens_file: $work/tokens" "slurm:" "  topology_file: $work/topology.conf" \
	"names:" "  node_name_map: $work/nn.map"
: >"$work/nn.map"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
guid() { loom_ctl --json node "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["guid"])'; }
G_LEAF=$(guid leaf-1) G_SPINE=$(guid spine-0) G_HOST=$(guid host-0005)
loom_ctl nodes >"$work/plain.txt"
grep -q 'leaf-1$' "$work/plain.txt" || loom_fail "without names, nodes are not their descriptions"

cat >"$work/nn.map" <<EOM
# site names (ibnetdiscover --node-name-map format)
$G_LEAF "rack1 leaf A"
$G_SPINE core-0   # unquoted, with a comment
$G_HOST "gpu005"
EOM
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q 'names: 3 node names from' "$work/loomd.log" || loom_fail "the map was not loaded on SIGHUP"
loom_ctl counters --now >/dev/null || loom_fail "counters read"

# loomctl
loom_ctl nodes >"$work/nodes.txt"
grep -q 'rack1 leaf A$' "$work/nodes.txt" && grep -q 'core-0$' "$work/nodes.txt" &&
	grep -q 'gpu005$' "$work/nodes.txt" || loom_fail "nodes does not show the map's names: $(cat "$work/nodes.txt")"
grep -q 'leaf-1$' "$work/nodes.txt" && loom_fail "nodes still shows leaf-1"
loom_ctl node "rack1 leaf A" >"$work/node.txt" || loom_fail "node by its map name"
grep -q '^name: *rack1 leaf A$' "$work/node.txt" && grep -q '^desc: *leaf-1$' "$work/node.txt" ||
	loom_fail "node shows not the name and the raw desc: $(cat "$work/node.txt")"
loom_ctl links | grep -q 'rack1 leaf A\[[0-9]*\] -> \|-> rack1 leaf A\[' || loom_fail "links does not name rack1 leaf A"
loom_ctl ports "core-0" | grep -q ' core-0\[[0-9]*\] -> rack1 leaf A\[[0-9]*\]$' ||
	loom_fail "ports does not name core-0 and its peer rack1 leaf A: $(loom_ctl ports core-0)"
loom_ctl counters "rack1 leaf A" >"$work/cnt.txt" || loom_fail "counters by map name"
grep -q '^rack1 leaf A ' "$work/cnt.txt" || loom_fail "counters does not name rack1 leaf A: $(cat "$work/cnt.txt")"
loom_ok "loomctl names nodes by the map (node by name; desc kept raw)"

# the REST API
curl -sf -H "Authorization: Bearer $SEC" "http://127.0.0.1:$port/api/v1/nodes" >"$work/api.json" ||
	loom_fail "GET /api/v1/nodes"
python3 - "$work/api.json" "$G_HOST" <<'EOP' || loom_fail "the API's nodes lack name beside desc: $(head -c 600 "$work/api.json")"
import json, sys
d = json.load(open(sys.argv[1]))
rows = d if isinstance(d, list) else d.get("nodes", d.get("result", []))
n = [r for r in rows if r["guid"] == sys.argv[2]][0]
assert n["name"] == "gpu005" and n["desc"] == "host-0005", n
EOP
loom_ok "the REST API gives name beside the raw desc"

# topology.conf
loom_until 100 grep -q '^SwitchName=core-0 ' "$work/topology.conf" ||
	loom_fail "topology.conf does not name core-0: $(cat "$work/topology.conf" 2>&1)"
grep -q 'spine-0' "$work/topology.conf" && loom_fail "topology.conf still names spine-0"
grep -q 'rack1' "$work/topology.conf" || loom_fail "topology.conf does not name rack1 leaf A"
loom_ok "topology.conf names the switches by the map: $(grep rack1 "$work/topology.conf" | cut -d' ' -f1)"

# events
loom_ibsim_cmd 'Unlink "leaf-1"[5]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after unlink"
loom_ctl events --kind link_down >"$work/ev.txt" || loom_fail "events"
grep -q '(rack1 leaf A)' "$work/ev.txt" || loom_fail "link_down does not name rack1 leaf A: $(cat "$work/ev.txt")"
loom_ok "events name nodes by the map"

# /metrics: the cut cable is Down at both ends, each named by the map
curl -sf "http://127.0.0.1:$port/metrics" >"$work/m.txt" || loom_fail "/metrics"
grep -q '^loom_port_state_id{[^}]*port="5",node="rack1 leaf A",[^}]*} 1$' "$work/m.txt" ||
	loom_fail "/metrics: rack1 leaf A port 5 is not Down: $(grep 'rack1 leaf A' "$work/m.txt" | grep 'port="5"' | grep state_id)"
far=$(grep '^loom_port_state_id{[^}]*remote_port="5",remote_node="rack1 leaf A"} 1$' "$work/m.txt") ||
	loom_fail "/metrics: the far end is not Down facing rack1 leaf A port 5"
echo "$far" | grep -q 'node="core-0"\|node="gpu005"\|node="spine-[0-9]*"' ||
	loom_fail "/metrics: the far end is not named: $far"
loom_ok "/metrics: the cut cable Down at both ends, named by the map (${far#*node=})"

# --db, and --node-name-map
"$B/loomctl" --db "$work/loom.db" nodes | grep -q 'rack1 leaf A$' || loom_fail "--db does not name by the stored map"
printf '%s "other-name"\n' "$G_LEAF" >"$work/other.map"
"$B/loomctl" --db "$work/loom.db" --node-name-map "$work/other.map" nodes >"$work/other.txt"
grep -q 'other-name$' "$work/other.txt" && grep -q 'spine-0$' "$work/other.txt" ||
	loom_fail "--node-name-map does not shadow the stored map: $(cat "$work/other.txt")"
printf '%s\n' "$G_LEAF" >"$work/bad.map"
"$B/loomctl" --db "$work/loom.db" --node-name-map "$work/bad.map" nodes >"$work/bad.out" 2>&1 &&
	loom_fail "a bad --node-name-map was taken"
grep -q "bad.map:1: a GUID without a name" "$work/bad.out" || loom_fail "no file:line: $(cat "$work/bad.out")"
loom_ok "--db names nodes by the stored map; --node-name-map another"

# SIGHUP: a changed map renames; a bad one is refused and the names stay
sed -i 's/rack1 leaf A/rack1 leaf B/' "$work/nn.map"
kill -HUP "$LOOMD_PID"
loom_until 100 sh -c "'$B/loomctl' -s '$work/loomd.sock' nodes | grep -q 'rack1 leaf B\$'" ||
	loom_fail "a SIGHUP with a changed map did not rename leaf-1"
loom_until 100 grep -q 'rack1_leaf_B\|rack1leafB\|rack1-leaf-B' "$work/topology.conf" ||
	loom_fail "topology.conf was not written again: $(cat "$work/topology.conf")"
loom_ibsim_cmd 'ReLink "leaf-1"[5]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after relink"
loom_ctl events --kind link_up | grep -q '(rack1 leaf B)' || loom_fail "link_up does not name rack1 leaf B"
loom_ok "a SIGHUP with a changed map renames in nodes, topology.conf and new events"
printf '# broken\n%s "x"\n0xzz "y"\n' "$G_SPINE" >"$work/nn.map"
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q 'reload refused: .*names.node_name_map: .*nn.map:3: expected a node GUID' "$work/loomd.log" ||
	loom_fail "a bad map was not refused with its line: $(tail -5 "$work/loomd.log")"
loom_ctl nodes | grep -q 'rack1 leaf B$' || loom_fail "the names in force did not stay"
loom_ok "a bad map refuses the reload, naming its line; the names in force stay"
echo "names.sh: all ok"
