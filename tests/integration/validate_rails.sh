#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate_rails.sh: every leaf carries one rail
# (validation.rails, lib/validate/rails.c, issue 43) on ibsim. A two-rail
# fat tree from loom-fabgen (each host's port r+1 on rail r's leaf; loomd
# sweeps rail 0, the plane the simulator's HCA port 1 is on) with
# `rails: port`: the clean fabric has no rail finding. Then the test edits
# the generated net file: two hosts on different leaves, picked from the
# file, have their rail-0 and rail-1 cables swapped (host A's port 1 goes
# where host B's port 2 was, and B's port 2 onto A's rail-0 leaf), and the
# simulator runs the edited file: rail 0's view has one `rail-stray` that
# names B's port, its rail (1), A's former leaf and port and that leaf's
# rail (0), as the file says; `loomctl fabric issues` lists it. Rail 1's
# subnet, swept from host A (its port 1 is now there: SIM_HOST), has the
# other stray: A's port 1 on B's former rail-1 leaf. With `rails: off` the
# same fabric has no rail finding.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen rails fattree --levels 2 --radix 6 --rails 2

# rail_findings: `loomctl fabric validate`'s rail-* findings as
# "code|subject|want|got" lines
rail_findings() {
	loom_ctl --json fabric validate >"$work/v.json" || :
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for f in r["findings"]:
        if f["code"].startswith("rail-"):
            print("|".join((f["code"], f["subject"], f.get("want", ""), f.get("got", ""))))' "$work/v.json"
}
# up NETFILE RAILS: ibsim on NETFILE, OpenSM, loomd with validation.rails, swept
up() {
	loom_ibsim "$1"
	loom_opensm
	rm -f "$work"/loom.db*
	loom_config "$(loom_subnet_conf rail0)" "validation:" "  rails: $2"
	loom_loomd "$work/loom.yaml"
	loom_ctl discover --wait >/dev/null || loom_fail "discover on $1"
}

up "$work/rails.net" port
got=$(rail_findings)
[ -z "$got" ] || loom_fail "the clean rail fabric: $got"
grep -q '"nodes": [1-9]' "$work/v.json" || loom_fail "nothing validated: $(head -c 300 "$work/v.json")"
loom_ok "clean two-rail fat tree, rails: port: no rail finding"
loom_ibsim_stop

# Host A: the second host of the first rail-0 leaf (the first is where the
# simulator's clients attach); host B: the first host on another leaf.
python3 - "$work/rails.net" "$work/swapped.net" "$work/expect" <<'EOP'
import re, sys
src, dst, expect = sys.argv[1:4]
lines = open(src).read().split("\n")
link = re.compile(r'^\[(\d+)\]\s+"([^"]*)"\[(\d+)\](.*)$')
node, peer = None, {}   # (node, port) -> (peer, peer_port, line index)
for i, l in enumerate(lines):
    m = re.match(r'^(Switch|Hca|Ca)\s+\d+\s+"([^"]*)"', l)
    if m:
        node = m.group(2)
        continue
    m = link.match(l)
    if m and node:
        peer[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)), i)
hosts = [n for (n, p) in peer if p == 1 and peer[(n, 1)][0].startswith("r0/")
         and not n.startswith("r")]
leaf = lambda h: peer[(h, 1)][0]
a = hosts[1]
b = next(h for h in hosts if leaf(h) != leaf(a) and h != hosts[0])
la, pa, ia = peer[(a, 1)]          # A's rail-0 leaf
lb, pb, ib = peer[(b, 2)]          # B's rail-1 leaf
assert la.startswith("r0/") and lb.startswith("r1/"), (la, lb)
def put(idx, port, pn, pp):
    m = link.match(lines[idx])
    lines[idx] = '[%d] "%s"[%d]%s' % (port, pn, pp, m.group(4))
put(ia, 1, lb, pb)
put(ib, 2, la, pa)
put(peer[(la, pa)][2], pa, b, 2)
put(peer[(lb, pb)][2], pb, a, 1)
open(dst, "w").write("\n".join(lines))
open(expect, "w").write('rail-stray|%s[2] - %s[%d]|rail 0 (%s\'s)|rail 1\n' % (b, la, pa, la))
open(expect + "-host", "w").write(a + "\n")
open(expect + "1", "w").write('rail-stray|%s[1] - %s[%d]|rail 1 (%s\'s)|rail 0\n' % (a, lb, pb, lb))
EOP
grep -q . "$work/expect" || loom_fail "no swap picked from the net file"

up "$work/swapped.net" port
got=$(rail_findings)
[ "$got" = "$(cat "$work/expect")" ] ||
	loom_fail "swapped rails: want '$(cat "$work/expect")', got '$got'"
subject=$(cut -d'|' -f2 "$work/expect")
listed() { loom_ctl fabric issues >"$work/issues.txt" 2>&1; grep -F "rail-stray" "$work/issues.txt" | grep -qF "$subject"; }
loom_until 100 listed ||
	loom_fail "fabric issues does not list the rail-stray: $(cat "$work/issues.txt")"
loom_ok "two hosts' rail cables swapped in the net file: $got; an open issue"

# Rail 1's subnet (subnet management packets do not cross an HCA): swept
# from host A, whose port 1 is now in it, OpenSM and loomd attached there;
# A's rail-0 port is the stray on B's rail-1 leaf.
kill "$LOOMD_PID" 2>/dev/null || :; wait "$LOOMD_PID" 2>/dev/null || :
SIM_HOST=$(cat "$work/expect-host")
export SIM_HOST
loom_opensm
rm -f "$work"/loom.db*
loom_config "$(loom_subnet_conf rail1)" "validation:" "  rails: port"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover rail 1"
got=$(rail_findings)
[ "$got" = "$(cat "$work/expect1")" ] ||
	loom_fail "swapped rails, rail 1: want '$(cat "$work/expect1")', got '$got'"
loom_ok "rail 1's subnet, swept from $SIM_HOST: $got"
unset SIM_HOST
loom_ibsim_stop

up "$work/swapped.net" off
got=$(rail_findings)
[ -z "$got" ] || loom_fail "rails: off still judges rails: $got"
loom_ok "rails: off: no rail finding on the same fabric"
out=$(loom_ctl fabric validate --subnet ethernet 2>&1) && loom_fail "--subnet ethernet without a plan: $out"
echo "$out" | grep -q "the Ethernet fabric has nothing to check: no cabling plan" ||
	loom_fail "--subnet ethernet without a plan says: $out"
loom_ok "fabric validate --subnet ethernet without a plan: $out"
loom_ibsim_stop
echo "validate_rails.sh: all ok"
