#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Alarms from the port counters and `loomctl health` (issue 19) over ibsim:
# an error counter that moves raises link_errors once (one event, however
# many reads it keeps moving) and clears it once after clear_after calm
# reads; LinkDownedCounter raises link_flapped; PortXmitWait above the
# threshold raises link_congested; a PMA that stops answering raises
# counters_unreadable with the reason and clears when it answers again.
# `loomctl health` lists the raised alarms with the peer port, the worst
# links by errors and by congestion and the stale ports (exit 1 while an
# alarm is raised), and --db answers the same; `loomctl top` prints plain
# snapshots when not on a terminal.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_config "$(loom_subnet_conf ft)" "telemetry:" "  interval_s: 0" "  thresholds:" \
	"    errors: 1" "    xmit_wait_per_s: 5000" "    link_downed: 1" "    clear_after: 2"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

read_now() { loom_ctl counters --now >/dev/null || loom_fail "counters --now ($1)"; }
# events KIND SUBJECT-PART: how many events of that kind name the port.
events() {
	loom_ctl --json events --limit 1000 | python3 -c '
import json, sys
ev = json.load(sys.stdin)
ev = ev["events"] if isinstance(ev, dict) else ev
print(sum(1 for e in ev if e["kind"] == sys.argv[1] and sys.argv[2] in e["subject"]))' "$1" "$2"
}
# The GUID of a node, for subjects ("port GUID/N (desc)").
guid_of() { loom_ctl --json counters "$1" | python3 -c 'import json,sys; print(json.load(sys.stdin)["ports"][0]["guid"])'; }

read_now first
loom_ctl health >"$work/h0.txt" || loom_fail "a quiet fabric has alarms: $(cat "$work/h0.txt")"
grep -q '^ALARMS' "$work/h0.txt" && sed -n '/^ALARMS/,/^$/p' "$work/h0.txt" | grep -q none ||
	loom_fail "a quiet fabric lists alarms: $(cat "$work/h0.txt")"
loom_ok "no alarm on a quiet fabric (first read judges nothing but readability)"

g=$(guid_of leaf-1:2)
loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=7'
read_now errors
[ "$(events link_errors "$g/2")" = 1 ] || loom_fail "no single link_errors event for leaf-1:2"
loom_ctl --json events --limit 50 | grep -q 'SymbolErrorCounter+7' || loom_fail "the event does not say SymbolErrorCounter+7"
if loom_ctl health >"$work/h1.txt"; then loom_fail "health exits 0 with an alarm raised"; fi
grep -E '^link_errors +leaf-1:2 +[^ ]+:[0-9]+ ' "$work/h1.txt" >/dev/null ||
	loom_fail "health does not list link_errors on leaf-1:2 with its peer: $(cat "$work/h1.txt")"
sed -n '/^WORST LINKS BY ERRORS/,/^$/p' "$work/h1.txt" | grep -q 'leaf-1:2 .* 7 .*SymbolErrorCounter+7' ||
	loom_fail "leaf-1:2 is not the worst link by errors: $(cat "$work/h1.txt")"
loom_ok "an error counter's move raises link_errors, listed by health with the peer"

loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=9'
read_now "errors again"
[ "$(events link_errors "$g/2")" = 1 ] || loom_fail "a second move raised link_errors again"
read_now "calm 1"
[ "$(events link_errors_cleared "$g/2")" = 0 ] || loom_fail "cleared after one calm read (clear_after 2)"
read_now "calm 2"
[ "$(events link_errors_cleared "$g/2")" = 1 ] || loom_fail "not cleared once after two calm reads"
read_now "calm 3"
[ "$(events link_errors_cleared "$g/2")" = 1 ] || loom_fail "cleared twice"
[ "$(events link_errors "$g/2")" = 1 ] || loom_fail "raised again while calm"
loom_ok "raised once, cleared once after clear_after calm reads"

g3=$(guid_of leaf-1:3)
loom_ibsim_cmd 'PerformanceSet "leaf-1"[3] PortCounters.LinkDownedCounter=1'
t0=$(date +%s.%N)
read_now flap
[ "$(events link_flapped "$g3/3")" = 1 ] || loom_fail "LinkDownedCounter 0 -> 1 raised no link_flapped"
[ "$(events link_errors "$g3/3")" = 0 ] || loom_fail "a flap alone raised link_errors"
loom_ok "LinkDownedCounter moving raises link_flapped (the port was up at both reads)"

g4=$(guid_of leaf-0:4)
loom_ibsim_cmd 'PerformanceSet "leaf-0"[4] PortCounters.PortXmitWait=4000000000'
read_now congestion
[ "$(events link_congested "$g4/4")" = 1 ] || loom_fail "PortXmitWait far above 5000/s raised no link_congested"
loom_ctl --json health >"$work/h2.json" || :
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
c = h["congestion"][0]
assert c["node"] == "leaf-0" and c["port"] == 4 and c["xmit_wait_per_s"] > 5000, c
assert any(a["kind"] == "link_congested" and a["node"] == "leaf-0" for a in h["alarms"]), h["alarms"]' "$work/h2.json" ||
	loom_fail "health --json does not put leaf-0:4 first by congestion: $(cat "$work/h2.json")"
loom_ok "PortXmitWait per second above the threshold raises link_congested; health ranks it"

g9=$(guid_of host-0009:1)
loom_ibsim_cmd 'Error "host-0009" 100 18'
read_now silent
[ "$(events counters_unreadable "$g9/1")" = 1 ] || loom_fail "a silent PMA raised no counters_unreadable"
loom_ctl --json events --limit 50 | python3 -c '
import json, sys
ev = json.load(sys.stdin)
ev = ev["events"] if isinstance(ev, dict) else ev
sys.exit(0 if any(e["kind"] == "counters_unreadable" and "no answer" in e["new"] for e in ev) else 1)' ||
	loom_fail "counters_unreadable does not give the reason"
loom_ctl health | sed -n '/^STALE PORTS/,/^$/p' | grep -q 'host-0009:1 .*no answer' ||
	loom_fail "health does not list host-0009:1 as stale"
loom_ibsim_cmd 'Error "host-0009" 0 18'
read_now "answering 1"
read_now "answering 2"
[ "$(events counters_unreadable_cleared "$g9/1")" = 1 ] || loom_fail "counters_unreadable did not clear once the PMA answered"
loom_ok "a silent PMA raises counters_unreadable with the reason; it clears when it answers"

loom_ctl --json health >"$work/live.json" || :
"$B/loomctl" --db "$work/loom.db" --json health >"$work/db.json" || :
cmp -s "$work/live.json" "$work/db.json" || loom_fail "--db health differs: $(diff "$work/live.json" "$work/db.json")"
loom_ok "--db health answers the same without loomd"

loom_ibsim_cmd 'PerformanceSet "leaf-0"[4] PortCounters.PortXmitWait=4100000000'
read_now "waiting again"
loom_ctl top --count 2 --interval 1 --sort wait >"$work/top.txt" || loom_fail "top: $(cat "$work/top.txt")"
[ "$(grep -c '^loomctl top:' "$work/top.txt")" = 2 ] || loom_fail "top --count 2 did not print two snapshots"
sed -n '/^NODE/{n;p;q}' "$work/top.txt" | grep -q '^leaf-0 *4 ' || loom_fail "top --sort wait does not put leaf-0:4 first: $(cat "$work/top.txt")"
loom_ctl top >"$work/top1.txt" && [ "$(grep -c '^loomctl top:' "$work/top1.txt")" = 1 ] ||
	loom_fail "top in a pipe is not one snapshot"
[ "$(loom_ctl --json top --top 3 --sort wait | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["ports"]))')" = 3 ] ||
	loom_fail "top --top 3 did not get 3 ports from loomd"
loom_ok "top prints plain snapshots in a pipe, sorted as asked; loomd sends only --top N ports"
# The congestion picture: host-0000's path to host-0009, as the switches'
# tables route it (route trace reads and stores them), waits hop by hop;
# health names the last switch port (to host-0009) as the root, the hops
# before it as waiting on it, and host-0009 as the host behind it.
loom_ctl --json route trace host-0000 host-0009 >"$work/trace.json" || loom_fail "route trace: $(cat "$work/trace.json")"
python3 -c '
import json, sys
t = json.load(open(sys.argv[1]))
for h in t["hops"]:
    if h.get("out_port") is not None and h["desc"].startswith(("leaf", "spine")):
        print(h["desc"], h["out_port"])' "$work/trace.json" >"$work/path.txt"
[ "$(wc -l <"$work/path.txt")" -ge 3 ] || loom_fail "the path has fewer than 3 switch hops: $(cat "$work/trace.json")"
while read -r node port; do
	loom_ibsim_cmd "PerformanceSet \"$node\"[$port] PortCounters.PortXmitWait=3000000000"
done <"$work/path.txt"
read_now "congestion tree"
root=$(tail -n 1 "$work/path.txt" | tr ' ' ':')
loom_ctl --json health >"$work/tree.json" || :
python3 -c '
import json, sys
h = json.load(open(sys.argv[1]))
path = [l.split() for l in open(sys.argv[2])]
root = "%s:%s" % tuple(path[-1])
trees = h["congestion_trees"]
assert len(trees) == 1 and trees[0]["tables"], trees
r = [x for x in trees[0]["roots"] if "%s:%s" % (x["node"], x["port"]) == root]
assert r, ("no root at", root, trees)
r = r[0]
assert r["routes"] and r["hosts"] == ["host-0009"], r
for n, p in path[:-1]:
    assert "%s:%s" % (n, p) in r["victims"], ("%s:%s" % (n, p), "not waiting on", root, r)
# nearest first: the hop just before the root comes before the first hop
assert r["victims"].index("%s:%s" % tuple(path[-2])) < r["victims"].index("%s:%s" % tuple(path[0])), r' \
	"$work/tree.json" "$work/path.txt" || loom_fail "health does not follow the congestion to $root: $(cat "$work/tree.json")"
loom_ctl health | sed -n '/^CONGESTION ROOTS/,$p' | grep -q "^$root .*host-0009" ||
	loom_fail "the health table does not name $root and host-0009: $(loom_ctl health)"
loom_ok "congestion followed along the tables' routes to its root $root, host-0009 behind it"
echo "health.sh: all ok"
