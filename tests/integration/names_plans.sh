#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# names.node_name_map (issue 39) where names.sh does not look: route trace,
# loomctl job and top, the cabling plans and the validation's findings, on
# ibsim's 2-level fat tree. A map renames leaf-1 ("rack1 leaf A"), spine-0
# (core-0) and two hosts (gpu000, gpu005):
#  - route trace takes the map's names as SRC and DST and names the ends and
#    the hops by them (JSON: "name" beside the raw "desc");
#  - a job's hosts, switches and worst link (errors injected on leaf-1[2],
#    toward host-0005) are named by the map, and so is loomctl top's row;
#  - fabric plan writes the map's names, and that plan validates clean:
#    as --expected, as validation.expected (loomd's check), and offline on
#    an ibnetdiscover topology with --node-name-map; a plan in descriptions
#    still matches;
#  - a cable of leaf-1 pulled: the missing finding names "rack1 leaf A" and
#    core-0, against the plan in names and the plan in descriptions alike.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_ibnetdiscover >"$work/good.topo" || loom_fail "ibnetdiscover of the clean fabric"
conf() { loom_config "$(loom_subnet_conf ft)" "names:" "  node_name_map: $work/nn.map" "$@"; }
conf
: >"$work/nn.map"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
guid() { loom_ctl --json node "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["guid"])'; }
G_LEAF=$(guid leaf-1) G_SPINE=$(guid spine-0) G_H0=$(guid host-0000) G_H5=$(guid host-0005)
# Without a map: the plan is in descriptions.
loom_ctl fabric plan >"$work/plain.csv" || loom_fail "fabric plan without a map"
grep -q '^leaf-1,' "$work/plain.csv" || loom_fail "without a map, fabric plan does not write leaf-1"

cat >"$work/nn.map" <<EOM
$G_LEAF "rack1 leaf A"
$G_SPINE core-0
$G_H0 gpu000
$G_H5 gpu005
EOM
kill -HUP "$LOOMD_PID"
loom_until 100 grep -q 'names: 4 node names from' "$work/loomd.log" || loom_fail "the map was not loaded on SIGHUP"

# ---- route trace ----------------------------------------------------------------------
loom_ctl route trace gpu000 gpu005 >"$work/trace.txt" || loom_fail "route trace gpu000 gpu005: $(cat "$work/trace.txt")"
grep -q '^from: .*"gpu000"' "$work/trace.txt" && grep -q '^to: .*"gpu005"' "$work/trace.txt" &&
	grep -q ' rack1 leaf A$' "$work/trace.txt" ||
	loom_fail "route trace does not name its ends and hops by the map: $(cat "$work/trace.txt")"
loom_ctl --json route trace --cached host-0000 "$G_H5" >"$work/trace.json" || loom_fail "route trace --json"
python3 - "$work/trace.json" <<'EOP' || loom_fail "route trace's JSON lacks name beside desc: $(cat "$work/trace.json")"
import json, sys
t = json.load(open(sys.argv[1]))
assert t["src"]["name"] == "gpu000" and t["src"]["desc"] == "host-0000", t["src"]
assert t["dst"]["name"] == "gpu005" and t["dst"]["desc"] == "host-0005", t["dst"]
assert {"name": "rack1 leaf A", "desc": "leaf-1"}.items() <= [h for h in t["hops"] if h["desc"] == "leaf-1"][0].items(), t["hops"]
assert t["delivered"], t
EOP
loom_ok "route trace between map names names its ends and hops by the map ($(grep -c '^ *[0-9]' "$work/trace.txt") hops)"

# ---- job and top ------------------------------------------------------------------------
loom_ctl counters --now >/dev/null || loom_fail "first counters read"
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=9'
loom_ctl counters --now >/dev/null || loom_fail "counters read"
loom_ctl --json job --hosts 'host-[0000-0001],host-[0004-0005]' >"$work/job.json" || :
python3 - "$work/job.json" <<'EOP' || loom_fail "job does not name by the map: $(cat "$work/job.json")"
import json, sys
o = json.load(open(sys.argv[1]))
nodes = sorted(h["node"] for h in o["hosts"])
assert "gpu000" in nodes and "gpu005" in nodes and "host-0005" not in nodes, nodes
assert "rack1 leaf A" in [h["switch"] for h in o["hosts"]], o["hosts"]
assert "rack1 leaf A" in [s["switch"] for s in o["switches"]], o["switches"]
w = [x for x in o["worst"] if x["from"] == "rack1 leaf A:2"]
assert w and w[0]["to"] == "gpu005:1" and w[0]["errors"] >= 9, o["worst"]
assert any("rack1 leaf A:2" in why for why in w[0]["why"]), w
EOP
loom_ctl job --hosts 'host-[0000-0001],host-[0004-0005]' >"$work/job.txt" || :
grep -q 'rack1 leaf A:2' "$work/job.txt" || loom_fail "job's text does not name rack1 leaf A:2: $(cat "$work/job.txt")"
loom_ctl top --sort errors --top 5 >"$work/top.txt" || loom_fail "top"
grep -q '^rack1 leaf A  *2 ' "$work/top.txt" || loom_fail "top does not name rack1 leaf A: $(cat "$work/top.txt")"
loom_ok "job names its hosts, switches and worst link (rack1 leaf A:2 -> gpu005:1) by the map; so does top"

# ---- plans --------------------------------------------------------------------------------
loom_ctl fabric plan >"$work/named.csv" || loom_fail "fabric plan"
grep -q '^rack1 leaf A,\|,rack1 leaf A,' "$work/named.csv" && grep -q 'core-0,' "$work/named.csv" &&
	grep -q 'gpu005,' "$work/named.csv" || loom_fail "fabric plan does not write the map's names: $(head "$work/named.csv")"
grep -q 'leaf-1,\|spine-0,\|host-0005,' "$work/named.csv" && loom_fail "fabric plan still writes descriptions"
[ "$(wc -l <"$work/named.csv")" = "$(wc -l <"$work/plain.csv")" ] || loom_fail "the plans differ in cables"
# clean: every cable as planned, no error (leaf-1[2]'s symbol errors are a
# ber warning, named by the map too)
clean() { python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["subnets"][0]
assert r["errors"] == 0 and r["cables"] == r["cables_ok"] > 0, r
assert [f["subject"] for f in r["findings"]] in ([], ["gpu005[1] - rack1 leaf A[2]"]), r' "$1"; }
for plan in named plain; do
	rc=0; loom_ctl --json fabric validate --expected "$work/$plan.csv" >"$work/v.json" || rc=$?
	[ "$rc" != 5 ] && clean "$work/v.json" ||
		loom_fail "the $plan plan does not validate clean: exit $rc: $(cat "$work/v.json")"
done
"$B/loomctl" --node-name-map "$work/nn.map" fabric plan --topology "$work/good.topo" >"$work/topo.csv" ||
	loom_fail "fabric plan --topology with --node-name-map"
grep -q 'rack1 leaf A,' "$work/topo.csv" || loom_fail "fabric plan --topology does not take --node-name-map's names"
"$B/loomctl" --node-name-map "$work/nn.map" fabric validate --topology "$work/good.topo" \
	--expected "$work/named.csv" --summary >"$work/off.txt" || loom_fail "offline: $(cat "$work/off.txt")"
rc=0; "$B/loomctl" fabric validate --topology "$work/good.topo" --expected "$work/named.csv" \
	>"$work/off2.txt" || rc=$?
[ "$rc" = 5 ] && grep -q 'unknown-node *rack1 leaf A' "$work/off2.txt" ||
	loom_fail "offline without the map, the names are not unknown nodes: exit $rc: $(cat "$work/off2.txt")"
conf "validation:" "  expected: $work/named.csv"
kill -HUP "$LOOMD_PID"
loom_until 100 sh -c "grep -c 'cabling plan .*named.csv has' '$work/loomd.log' | grep -q 1" ||
	loom_fail "validation.expected was not loaded: $(tail -5 "$work/loomd.log")"
rc=0; loom_ctl --json fabric validate >"$work/v.json" || rc=$?
[ "$rc" != 5 ] && clean "$work/v.json" && grep -q "named.csv" "$work/v.json" ||
	loom_fail "the plan in names does not validate clean in loomd: exit $rc: $(cat "$work/v.json")"
loom_ok "fabric plan writes the map's names; that plan validates clean (--expected, loomd's, offline with --node-name-map)"

# ---- a finding ------------------------------------------------------------------------------
loom_ibsim_cmd 'Unlink "leaf-1"[5]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after the unlink"
findings() { python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for f in r["findings"]:
        print(f["code"] + "|" + f["subject"])' "$work/v.json"; }
rc=0; loom_ctl --json fabric validate >"$work/v.json" || rc=$?
[ "$rc" = 5 ] && findings | grep -q '^missing|.*rack1 leaf A\[5\]' && findings | grep -q '^missing|.*core-0\[2\]' ||
	loom_fail "the missing cable is not named by the map: exit $rc: $(findings)"
findings | grep -q 'leaf-1\|spine-0' && loom_fail "a finding names a description: $(findings)"
rc=0; loom_ctl --json fabric validate --expected "$work/plain.csv" >"$work/v.json" || rc=$?
[ "$rc" = 5 ] && findings | grep -q '^missing|.*rack1 leaf A\[5\]' ||
	loom_fail "against the plan in descriptions, the finding is not named by the map: $(findings)"
issue_named() { loom_ctl fabric issues >"$work/i.txt" || :; grep -q 'missing .*rack1 leaf A\[5\]' "$work/i.txt"; }
loom_until 100 issue_named || loom_fail "issues do not name by the map: $(cat "$work/i.txt")"
loom_ok "a pulled cable of leaf-1: $(findings | grep '^missing' | head -1)"
echo "names_plans.sh: all ok"
