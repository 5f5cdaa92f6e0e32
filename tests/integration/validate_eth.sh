#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate_eth.sh: the cabling plan's Ethernet rows
# against the switches' LLDP neighbours (issue 43: lib/validate/
# eth_cabling.c, daemon/validate/validate_eth.c). A SONiC leaf-spine on
# real redis-servers (sonic_lib.sh: SONiC's own keys, LLDP in APPL_DB's
# LLDP_ENTRY_TABLE), no InfiniBand. The plan (validation.expected) is made
# from the cabling list below: each switch-switch cable once (one end named
# by its alias), each host cable LLDP shows, a cable to a host that speaks
# no LLDP and one between two hosts no switch sees (both "not seen").
#  1. As cabled: `fabric validate` answers an "ethernet" report with no
#     finding, every judged cable as planned, 2 not seen; no open issue.
#  2. One neighbour changed (spine1's first port now sees a port of
#     another leaf): one wrong-peer naming that port, an open issue of the
#     subnet "ethernet" with its event, after the switches' next read.
#  3. Restored, then one switch-switch neighbour gone at both ends: one
#     missing naming the cable (the plan's alias for a port written as its
#     name); the wrong-peer cleared.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/sonic_lib.sh"
sonic_need
loom_work
sonic_plugin_dir

# "SWITCH PORT ALIAS PEER PEER-PORT PEER-CHASSIS" (PEER "-": nothing on it)
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
switches="spine1 leaf1 leaf2"
n=0
for sw in $switches; do
	sonic_start "$sw" "00:11:22:33:44:0$n"
	n=$((n + 1))
done
while read -r sw port alias peer pport chassis; do
	sonic_port "$sw" "$port" "$alias"
	[ "$peer" = - ] || sonic_lldp "$sw" "$port" "$peer" "$pport" "$chassis"
done <"$work/cabling"
# The plan: a switch-switch cable from its end whose name sorts first.
{
	echo "node,port,peer,peer_port"
	awk '$4 != "-" && ($4 ~ /^host/ || $1 < $4) { print $1 "," $2 "," $4 "," $5 }' "$work/cabling"
	echo "leaf1,Ethernet12,host04,eth0"
	echo "host05,eth0,host06,eth0"
} >"$work/plan.csv"
judged=$(awk '$4 != "-" && ($4 ~ /^host/ || $1 < $4)' "$work/cabling" | wc -l)

loom_config "plugins:" "  dir: $work/plugins" "roce:" "  interval: 0" "switches:" \
	"  - {name: spine1, plugin: sonic, address: \"unix:$work/spine1.sock\"}" \
	"  - {name: leaf1, plugin: sonic, address: \"unix:$work/leaf1.sock\"}" \
	"  - {name: leaf2, plugin: sonic, address: \"unix:$work/leaf2.sock\"}" \
	"validation:" "  expected: $work/plan.csv"
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOM_PIDS="$LOOM_PIDS $!"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"

checks() { grep -c 'the Ethernet fabric: validated' "$work/loomd.log" || :; }
checked_since() { [ "$(checks)" -gt "$_before" ]; }
# read: the switches read (their LLDP recorded), and the check after it
read_switches() {
	_before=$(checks)
	loom_ctl qos status >/dev/null || :
	loom_until 100 checked_since || loom_fail "no Ethernet validation after the read ($1)"
}
# eth_findings: fabric validate's "ethernet" report as "code|subject|got" lines
eth_findings() {
	loom_ctl --json fabric validate >"$work/v.json" || :
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    if r["subnet"] == "ethernet":
        for f in r["findings"]:
            print("|".join((f["code"], f["subject"], f.get("got", ""))))' "$work/v.json"
}
field() { python3 -c '
import json, sys
print([r for r in json.load(open(sys.argv[1]))["subnets"] if r["subnet"] == "ethernet"][0][sys.argv[2]])' \
	"$work/v.json" "$1"; }
issues() { loom_ctl --json fabric issues 2>/dev/null | python3 -c '
import json, sys
d = json.load(sys.stdin)
rows = d if isinstance(d, list) else d.get("issues", [])
for i in rows:
    print("%s|%s|%s" % (i.get("subnet", ""), i["code"], i["subject"]))'; }
events_of() { # events_of KIND PATTERN
	loom_ctl --json events --kind "$1" --limit 1000 | python3 -c '
import json, sys
ev = json.load(sys.stdin)
ev = ev["events"] if isinstance(ev, dict) else ev
print(sum(1 for e in ev if sys.argv[1] in e["subject"]))' "$2"
}

# ---- 1. as cabled ----------------------------------------------------------------------
read_switches clean
got=$(eth_findings)
[ -z "$got" ] || loom_fail "LLDP as planned: $got"
[ "$(field cables)" = "$judged" ] && [ "$(field cables_ok)" = "$judged" ] ||
	loom_fail "not $judged cables judged and as planned: $(cat "$work/v.json")"
[ "$(field not_seen)" = 2 ] || loom_fail "not 2 cables not seen: $(field not_seen)"
loom_ctl fabric validate --summary >"$work/s.txt" || loom_fail "summary: exit $?"
grep -q "^OK ethernet: .* $judged of $judged planned cables as planned, 2 planned cables not seen by LLDP: 0 errors" \
	"$work/s.txt" || loom_fail "summary: $(cat "$work/s.txt")"
[ -z "$(issues | grep '^ethernet|')" ] || loom_fail "open issues on the clean fabric: $(issues)"
loom_ok "LLDP as planned: no finding, $judged cables as planned, 2 not seen"

# ---- 2. one neighbour changed ------------------------------------------------------------
set -- $(awk '$1 == "spine1" { print $2; exit }' "$work/cabling")
port=$1
sonic_lldp spine1 "$port" leaf2 Ethernet12 00:11:22:33:44:02
read_switches changed
want="wrong-peer|spine1[$port]|spine1[$port] - leaf2[Ethernet12]"
got=$(eth_findings)
[ "$got" = "$want" ] || loom_fail "one neighbour changed: want '$want', got '$got'"
loom_until 50 sh -c "\"$B/loomctl\" -s \"$work/loomd.sock\" --json fabric issues | grep -q 'spine1\[$port\]'" ||
	loom_fail "no open issue for spine1[$port]: $(issues)"
issues | grep -qF "ethernet|wrong-peer|spine1[$port]" || loom_fail "the issue is not the ethernet subnet's: $(issues)"
[ "$(events_of validation_issue "spine1[$port]")" = 1 ] || loom_fail "not one validation_issue event"
loom_ok "spine1[$port] sees leaf2[Ethernet12]: $got, an open issue of subnet ethernet"

# ---- 3. one missing ----------------------------------------------------------------------
sonic_lldp spine1 "$port" leaf1 Ethernet0 00:11:22:33:44:01
# the plan has this cable from leaf2's end, spine1's port by its alias:
# findings name ports by their names
sport=$(awk '$1 == "spine1" && $4 == "leaf2" { print $2 }' "$work/cabling")
lport=$(awk '$1 == "leaf2" && $4 == "spine1" { print $2 }' "$work/cabling")
grep -q "^leaf2,$lport,spine1,etp" "$work/plan.csv" || loom_fail "the plan names spine1's port otherwise: $(cat "$work/plan.csv")"
r spine1 -n 0 del "LLDP_ENTRY_TABLE:$sport" >/dev/null
r leaf2 -n 0 del "LLDP_ENTRY_TABLE:$lport" >/dev/null
read_switches missing
want="missing|leaf2[$lport] - spine1[$sport]|"
got=$(eth_findings)
[ "$got" = "$want" ] || loom_fail "one cable's LLDP gone: want '$want', got '$got'"
loom_until 50 sh -c "[ \$(\"$B/loomctl\" -s \"$work/loomd.sock\" --json events --kind validation_issue_cleared | grep -c 'spine1\[$port\]') -ge 1 ]" ||
	loom_fail "the wrong-peer did not clear"
loom_ok "spine1[$sport] - leaf2[$lport] without LLDP: $got; the wrong-peer cleared"
echo "validate_eth.sh: all ok"
