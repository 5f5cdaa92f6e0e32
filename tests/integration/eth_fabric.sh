#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/eth_fabric.sh: Ethernet switches as a fabric of nodes,
# ports and links, in the same store and loomctl commands as IB subnets.
# A SONiC leaf-spine on real redis-servers: spine1 with two leaves, hosts
# whose NICs speak LLDP (host01 on both leaves, host02 and host03 on one).
#
#  1. After loomd's first read of the switches: loomctl nodes lists the
#     three switches and three hosts (subnet "ethernet"), loomctl links each
#     switch-switch link once (leaf2 names its spine port by alias), each
#     host link; loomctl status counts them. The same from --db.
#  2. node / ports: a host's ports and the switch ports they face.
#  3. Changes are events of the IB kinds: a host link down (link_down), a
#     host whose only link goes (node_disappeared, no link_down), a port
#     without a neighbour (port_state), a recabled uplink (link_down +
#     link_up), a switch first read (node_appeared).
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_work
sonic_plugin_dir

# The cabling, as "SWITCH PORT ALIAS PEER PEER-PORT PEER-CHASSIS" (PEER "-":
# nothing on it). The expectations below are derived from this list.
cat >"$work/cabling" <<'CABLES'
spine1 Ethernet0 etp1 leaf1 Ethernet0 00:11:22:33:44:01
spine1 Ethernet4 etp2 leaf2 etp1 00:11:22:33:44:02
leaf1 Ethernet0 etp1 spine1 Ethernet0 00:11:22:33:44:00
leaf1 Ethernet4 etp2 host01 mlx5_0 98:03:9b:00:00:01
leaf1 Ethernet8 etp3 host02 mlx5_0 98:03:9b:00:00:02
leaf1 Ethernet12 etp4 - - -
leaf2 Ethernet0 etp1 spine1 etp2 00:11:22:33:44:00
leaf2 Ethernet4 etp2 host01 mlx5_1 98:03:9b:00:00:01
leaf2 Ethernet8 etp3 host03 mlx5_0 98:03:9b:00:00:03
CABLES
n=0
for sw in spine1 leaf1 leaf2; do
	sonic_start "$sw" "00:11:22:33:44:0$n"
	n=$((n + 1))
done
while read -r sw port alias peer pport chassis; do
	sonic_port "$sw" "$port" "$alias"
	[ "$peer" = - ] || sonic_lldp "$sw" "$port" "$peer" "$pport" "$chassis"
done <"$work/cabling"

loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" "switches:" \
	"  - {name: spine1, plugin: sonic, address: \"unix:$work/spine1.sock\"}" \
	"  - {name: leaf1, plugin: sonic, address: \"unix:$work/leaf1.sock\"}" \
	"  - {name: leaf2, plugin: sonic, address: \"unix:$work/leaf2.sock\"}"
# No simulator here: loomd without umad2sim (see qos.sh).
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
read_switches() { loom_ctl qos status >/dev/null || :; }
read_switches

# ---- 1. nodes, links, status ---------------------------------------------------
want_hosts=$(awk '$4 ~ /^host/ { print $4 }' "$work/cabling" | sort -u)
want_host_links=$(awk '$4 ~ /^host/' "$work/cabling" | wc -l)
want_sw_links=$(awk '$4 !~ /^host/ && $4 != "-"' "$work/cabling" | wc -l)
want_sw_links=$((want_sw_links / 2))
loom_ctl nodes >"$work/nodes.out"
for sw in spine1 leaf1 leaf2; do
	grep -q "^00:11:22:33:44:0. *switch *[0-9]* *- *$sw\$" "$work/nodes.out" ||
		loom_fail "nodes: no switch $sw: $(cat "$work/nodes.out")"
done
for h in $want_hosts; do
	grep -q "^98:03:9b:00:00:0. *host *[0-9]* *- *$h\$" "$work/nodes.out" ||
		loom_fail "nodes: no host $h: $(cat "$work/nodes.out")"
done
[ "$(grep -c ' host ' "$work/nodes.out")" = "$(echo "$want_hosts" | wc -l)" ] ||
	loom_fail "nodes: hosts other than $want_hosts: $(cat "$work/nodes.out")"
loom_ctl --json nodes --type host | grep -q '"subnet": "ethernet"' ||
	loom_fail "nodes --type host: $(loom_ctl --json nodes --type host)"
loom_ok "nodes: 3 switches and $(echo $want_hosts | wc -w) hosts of the Ethernet fabric"

loom_ctl links >"$work/links.out"
[ "$(grep -c ' host0' "$work/links.out")" = "$want_host_links" ] ||
	loom_fail "links: want $want_host_links host links: $(cat "$work/links.out")"
[ "$(grep -c 'spine1' "$work/links.out")" = "$want_sw_links" ] ||
	loom_fail "links: want $want_sw_links spine links, each once: $(cat "$work/links.out")"
grep -q " 100G .*leaf2\\[Ethernet0\\] -> spine1\\[Ethernet4\\]$" "$work/links.out" ||
	loom_fail "links: leaf2's uplink (LLDP port id = spine1's alias etp2): $(cat "$work/links.out")"
loom_ctl status | grep -q "^ethernet .*(switches' LLDP) *6 *3 *3 *$((want_host_links + want_sw_links)) " ||
	loom_fail "status: $(loom_ctl status)"
"$B/loomctl" --db "$work/loom.db" links >"$work/links.db.out"
cmp -s "$work/links.out" "$work/links.db.out" ||
	loom_fail "--db links differ: $(diff "$work/links.out" "$work/links.db.out")"
loom_ok "links: $want_sw_links switch links (once each), $want_host_links host links; status and --db agree"

# ---- 2. a node's ports and what they face ---------------------------------------
loom_ctl node host01 >"$work/host01.out"
grep -q " mlx5_0 .*up .*100G .*host01\[mlx5_0\] -> leaf1\[Ethernet4\]$" "$work/host01.out" &&
	grep -q " mlx5_1 .*up .*100G .*host01\[mlx5_1\] -> leaf2\[Ethernet4\]$" "$work/host01.out" ||
	loom_fail "node host01: $(cat "$work/host01.out")"
loom_ctl ports leaf1 | grep -q "^00:11:22:33:44:01 *Ethernet12 .*up .*100G *9100 *leaf1\[Ethernet12\]\$" ||
	loom_fail "ports leaf1: Ethernet12 (no neighbour): $(loom_ctl ports leaf1)"
loom_ctl node 98:03:9B:00:00:02 | grep -q "^name: *host02" ||
	loom_fail "node by MAC: $(loom_ctl node 98:03:9B:00:00:02 2>&1)"
loom_ok "node host01: both NICs with the leaf ports they face; nodes by name or MAC"

# ---- 3. changes as events of the IB kinds -----------------------------------------
ev() { loom_ctl events --limit 30 >"$work/ev.out"; grep -q "$@" "$work/ev.out"; }
ev "node_appeared .*spine1 .*switch" && ev "node_appeared .*host03 .*host" ||
	loom_fail "no node_appeared for spine1 and host03: $(cat "$work/ev.out")"
ev "node_appeared .*leaf1 .*host" &&
	loom_fail "leaf1, read after spine1, first appeared as an LLDP-only host: $(cat "$work/ev.out")"
sonic_oper leaf1 Ethernet4 down
sonic_oper leaf1 Ethernet8 down
sonic_oper leaf1 Ethernet12 down
read_switches
ev "link_down .*host01\[mlx5_0\] <-> leaf1\[Ethernet4\] .*100G" ||
	loom_fail "no link_down for host01's first NIC: $(cat "$work/ev.out")"
ev "node_disappeared .*host02 " || loom_fail "host02 did not disappear: $(cat "$work/ev.out")"
ev "link_down .*host02" && loom_fail "host02's disappearance also made a link_down"
ev "port_state .*leaf1\[Ethernet12\] .*up -> down" ||
	loom_fail "no port_state for Ethernet12: $(cat "$work/ev.out")"
ev "port_state .*leaf1\[Ethernet4\]" && loom_fail "a link_down port also made a port_state event"
loom_ctl nodes --type host | grep -q host02 && loom_fail "host02 is still a node"
loom_ok "events: link_down (host01 keeps its other NIC), node_disappeared (host02), port_state"

# leaf2's uplink moved to spine1's Ethernet8.
sonic_port spine1 Ethernet8 etp3
sonic_lldp spine1 Ethernet8 leaf2 etp1 00:11:22:33:44:02
r spine1 -n 0 del "LLDP_ENTRY_TABLE:Ethernet4" >/dev/null
sonic_lldp leaf2 Ethernet0 spine1 Ethernet8 00:11:22:33:44:00
read_switches
ev "link_down .*leaf2\[Ethernet0\] <-> spine1\[Ethernet4\]" &&
	ev "link_up .*leaf2\[Ethernet0\] <-> spine1\[Ethernet8\]" ||
	loom_fail "the recabled uplink: $(cat "$work/ev.out")"
loom_ctl links | grep -q " leaf2\\[Ethernet0\\] -> spine1\\[Ethernet8\\]$" ||
	loom_fail "links after recabling: $(loom_ctl links)"
loom_ok "a recabled uplink is link_down of the old cable and link_up of the new one"
