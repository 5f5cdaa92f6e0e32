#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/pause_tree.sh: `loomctl health` follows PFC pauses back
# over the LLDP links between managed SONiC switches to the port that pauses
# without being paused (lib/telemetry/pause_trees.c through lib/db/health_db.c),
# end to end: LLDP neighbours in each switch's APPL_DB LLDP_ENTRY_TABLE as
# SONiC's lldp_syncd writes them, PFC counters in its COUNTERS_DB as
# orchagent's flex counters do, read by the sonic plugin in a running loomd.
#
# Three switches in a chain, swa - swb - swc, a host NIC on each end
# (the cabling below; the port names differ at the two ends of every cable
# and LLDP names the far port by its alias, so a wrong join shows).
# A pause between two neighbours X -> Y: X's port facing Y sends pause
# frames (pfc_tx_pause rising) and Y's port facing X receives them
# (pfc_rx_pause rising: the pfc_storm that loom follows).
#
#  1. Control: traffic moves but nothing pauses: no pfc_storm, no tree.
#  2. swc pauses swb, swb pauses swa: one root, swc's port facing swb
#     (a switch: its egress is full), the ports it pauses nearest first:
#     swb's port facing swc, then swa's facing swb.
#  3. Pauses stop: the alarms clear (clear_after 1), no tree.
#  4. The chain reversed (swa pauses swb pauses swc): the root is swa's
#     port facing swb. 2 and 4 cannot both pass if the direction in which
#     pauses are followed is wrong.
#  5. A host NIC that does not drain pauses swc, and it spreads: the root
#     is the NIC (not a managed switch), then swc, swb, swa.
# The expected roots and chains are derived from the cabling list and the
# chain's order, never written out.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_need python3
loom_work
sonic_plugin_dir

# "SWITCH PORT ALIAS PEER PEER-PORT-ID PEER-CHASSIS": what each switch port
# sees over LLDP. Between SONiC switches the port id is the far port's alias
# (lldpmgrd: `lldpcli configure ports PORT lldp portidsubtype local ALIAS`).
cat >"$work/cabling" <<'CABLES'
swa Ethernet0 etp1 gpua mlx5_0 98:03:9b:00:00:0a
swa Ethernet8 etp3 swb etp1 00:11:22:33:44:62
swb Ethernet0 etp1 swa etp3 00:11:22:33:44:61
swb Ethernet4 etp2 swc etp4 00:11:22:33:44:63
swc Ethernet12 etp4 swb etp2 00:11:22:33:44:62
swc Ethernet0 etp1 gpuc mlx5_0 98:03:9b:00:00:0c
CABLES
n=1
for sw in swa swb swc; do
	sonic_start "$sw" "00:11:22:33:44:6$n"
	n=$((n + 1))
done
while read -r sw port alias peer pport chassis; do
	sonic_port "$sw" "$port" "$alias"
	r "$sw" -n 0 hset "LLDP_ENTRY_TABLE:$port" lldp_rem_sys_name "$peer" \
		lldp_rem_port_id_subtype 7 lldp_rem_port_id "$pport" lldp_rem_port_desc "" \
		lldp_rem_chassis_id_subtype 4 lldp_rem_chassis_id "$chassis" \
		lldp_rem_index 1 lldp_rem_man_addr "" lldp_rem_sys_cap_enabled "28 00" >/dev/null
	sonic_counters_port "$sw" "$port"
	sonic_port_counters "$sw" "$port" SAI_PORT_STAT_IF_IN_OCTETS 1000000 \
		SAI_PORT_STAT_IF_OUT_OCTETS 1000000 SAI_PORT_STAT_PFC_3_RX_PKTS 5000 \
		SAI_PORT_STAT_PFC_3_TX_PKTS 5000
done <"$work/cabling"

loom_config "telemetry:" "  interval_s: 0" "  thresholds:" "    pfc_pause_per_s: 1000" \
	"    clear_after: 1" "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" \
	"switches:" \
	"  - {name: swa, plugin: sonic, address: \"unix:$work/swa.sock\"}" \
	"  - {name: swb, plugin: sonic, address: \"unix:$work/swb.sock\"}" \
	"  - {name: swc, plugin: sonic, address: \"unix:$work/swc.sock\"}"
# No simulator: loomd without umad2sim (see qos.sh).
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
# The switches' inventory and LLDP neighbours (the links) are read with
# their QoS state.
loom_ctl qos status >/dev/null || :
for pair in "swa Ethernet8 swb Ethernet0" "swb Ethernet4 swc Ethernet12"; do
	set -- $pair
	loom_ctl links | grep -qF " $1[$2] -> $3[$4]" ||
		loom_fail "no link $pair from LLDP: $(loom_ctl links)"
done
loom_ok "LLDP: $(loom_ctl links | grep -c '  sw') links of the chain swa - swb - swc and its hosts"

# facing X Y: X's port (a switch's name, a host's NIC port id) on the cable to Y
facing() {
	awk -v x="$1" -v y="$2" '$1 == x && $4 == y { print $2; f = 1 }
		$1 == y && $4 == x && !f { h = $5 } END { if (!f) print h }' "$work/cabling"
}
is_switch() { awk -v x="$1" '$1 == x { f = 1 } END { exit !f }' "$work/cabling"; }
# add SWITCH PORT FIELD N: add N to a port's counter in COUNTERS_DB
add() {
	_oid=$(r "$1" -n 2 hget COUNTERS_PORT_NAME_MAP "$2")
	r "$1" -n 2 hincrby "COUNTERS:$_oid" "$3" "$4" >/dev/null
}
read_now() { # FILE
	loom_ctl --json counters --eth --now >"$work/read.json" ||
		loom_fail "counters --eth --now: $(cat "$work/read.json")"
	loom_ctl --json health >"$1" 2>/dev/null || :
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))["pause_trees"]' "$1" ||
		loom_fail "health --json has no pause_trees: $(cat "$1")"
}
# Every port's octets move: a fabric carrying traffic.
traffic() {
	while read -r sw port _; do
		add "$sw" "$port" SAI_PORT_STAT_IF_IN_OCTETS 500000000
		add "$sw" "$port" SAI_PORT_STAT_IF_OUT_OCTETS 500000000
	done <"$work/cabling"
}
# pause X1 X2 ... Xn: X1 pauses X2, which pauses X3, ...: the frames X(i)
# sends on its port facing X(i+1) (a host: no counters) are received there.
pause() {
	_x=$1
	shift
	for _y in "$@"; do
		is_switch "$_x" && add "$_x" "$(facing "$_x" "$_y")" SAI_PORT_STAT_PFC_3_TX_PKTS 2000000
		add "$_y" "$(facing "$_y" "$_x")" SAI_PORT_STAT_PFC_3_RX_PKTS 2000000
		_x=$_y
	done
}
# no_tree FILE WHAT: no root, no loop, no paused port
no_tree() {
	python3 - "$1" <<'EOF' || loom_fail "$2: $(cat "$1")"
import json, sys
d = json.load(open(sys.argv[1]))
t = d["pause_trees"]
storms = [a for a in d.get("switch_alarms", []) if a["kind"] == "pfc_storm"]
sys.exit(0 if not t["roots"] and not t["loops"] and not t["unknown"] and not storms else 1)
EOF
}
# one_tree FILE X1 X2 ... Xn: the chain of `pause X1 ... Xn` is one tree:
# its root is X1's port facing X2, then each X(i)'s port facing X(i-1).
one_tree() {
	_f=$1
	shift
	_root=$1 _rport=$(facing "$1" "$2") _managed=false _want="" _x=$1
	is_switch "$1" && _managed=true
	shift
	for _y in "$@"; do
		_want="$_want $_y:$(facing "$_y" "$_x")"
		_x=$_y
	done
	python3 - "$_f" "$_root" "$_rport" "$_managed" $_want <<'EOF' ||
import json, sys
f, node, port, managed, want = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
t = json.load(open(f))["pause_trees"]
ok = (len(t["roots"]) == 1 and t["roots"][0]["node"] == node and t["roots"][0]["port"] == port
      and t["roots"][0]["managed"] == (managed == "true") and t["roots"][0]["paused"] == want
      and not t["loops"] and not t["unknown"])
if not ok:
    print("want root %s:%s (managed %s) pausing %s" % (node, port, managed, want), file=sys.stderr)
sys.exit(0 if ok else 1)
EOF
		loom_fail "the pause tree is wrong: $(cat "$_f")"
}

# ---- 1. control: traffic, no pauses ------------------------------------------------
read_now "$work/h0.json"
traffic
read_now "$work/h1.json"
no_tree "$work/h1.json" "traffic without pauses made a pause tree or a pfc_storm"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if all(p["rates"]["in_octets"] > 0 and p["rates"]["pfc_rx_pause.p3"] == 0 for p in d["ports"]) and len(d["ports"]) == 6 else 1)' \
	"$work/read.json" || loom_fail "the control read is not traffic without pauses: $(cat "$work/read.json")"
loom_ok "control: every port carries traffic, none is paused: no pfc_storm, no pause tree"

# ---- 2. swc pauses swb pauses swa ---------------------------------------------------
traffic
pause swc swb swa
read_now "$work/h2.json"
one_tree "$work/h2.json" swc swb swa
loom_ctl health >"$work/h2.txt" 2>&1 && loom_fail "health exits 0 with pfc_storm raised"
sed -n '/^PFC PAUSES/,/^$/p' "$work/h2.txt" |
	grep -q "^swc:$(facing swc swb) *switch (its egress is full) *swb:$(facing swb swc) swa:$(facing swa swb)" ||
	loom_fail "health's text does not show the tree: $(cat "$work/h2.txt")"
loom_ok "swc pauses swb pauses swa: $(sed -n '/^PFC PAUSES/,/^$/p' "$work/h2.txt" | sed -n 3p | tr -s ' ')"

# ---- 3. the pauses stop ------------------------------------------------------------------
traffic
read_now "$work/h3.json"
no_tree "$work/h3.json" "the tree stays after the pauses stopped (clear_after 1)"
loom_ctl events --limit 50 | grep -q "pfc_storm_cleared .*swa.*Ethernet8" ||
	loom_fail "no pfc_storm_cleared for swa: $(loom_ctl events --limit 50)"
loom_ok "the pauses stop: the pfc_storm alarms clear, no tree"

# ---- 4. the chain reversed -----------------------------------------------------------------
traffic
pause swa swb swc
read_now "$work/h4.json"
one_tree "$work/h4.json" swa swb swc
loom_ok "reversed, swa pauses swb pauses swc: the root is swa:$(facing swa swb)"
traffic
read_now "$work/h4b.json"
no_tree "$work/h4b.json" "the reversed tree stays after the pauses stopped"

# ---- 5. a host NIC that does not drain --------------------------------------------------
traffic
pause gpuc swc swb swa
read_now "$work/h5.json"
one_tree "$work/h5.json" gpuc swc swb swa
"$B/loomctl" --db "$work/loom.db" --json health >"$work/h5.db.json" 2>/dev/null || :
python3 -c 'import json,sys; a,b=(json.load(open(f))["pause_trees"] for f in sys.argv[1:]); sys.exit(a != b)' \
	"$work/h5.json" "$work/h5.db.json" || loom_fail "--db health's pause trees differ: $(cat "$work/h5.db.json")"
loom_ok "a NIC that does not drain is the root of swc, swb, swa; --db agrees"
echo "pause_tree.sh: all ok"
