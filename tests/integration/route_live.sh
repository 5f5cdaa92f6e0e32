#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `loomctl route check` and `loomctl route trace` on a live fabric: ibsim, a
# 2-level fat tree routed by OpenSM's own minhop engine, loomd. Proves that
#  - route check reads every switch's table and finds every CA pair delivered
#    (exit 0), with the metric block of route compute; it is refused to a
#    user who is neither root nor in the admin group;
#  - the tables loomd stored are exactly what dump_fts reads from the switches;
#  - route trace between two hosts gives ibtracert's hops, and resolves hosts
#    by host name, full node description, node GUID, port GUID and LID alike;
#  - --cached and loomctl --db answer from the stored read, as the live one;
#  - after a cable is pulled (ibsim Unlink) and OpenSM does NOT reroute,
#    route check reports the lost pairs and exits 1, and route trace says at
#    which switch and port the path breaks and exits 1;
#  - usage errors exit 2, unknown endpoints 1 with not-found.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
command -v dump_fts >/dev/null 2>&1 && command -v ibtracert >/dev/null 2>&1 ||
	loom_skip "dump_fts/ibtracert (infiniband-diags) are not installed"
loom_work

py() { python3 -c "$@"; }

# 8 hosts under 2 leaves and 2 spines of 8-port switches; hosts named like
# real ones ("node0003 mlx5_0"), so that the host name is the first word.
loom_gen ft "fattree" --levels 2 --radix 8 --hosts 8
sed 's/"host-\([0-9]*\)"/"node\1 mlx5_0"/g' "$work/ft.net" >"$work/hosts.net"
loom_ibsim "$work/hosts.net"
loom_opensm
loom_config
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"

# ---- route check on the routed fabric -------------------------------------------------
n_sw=$(loom_ctl --json nodes --type switch | py 'import json,sys; print(len(json.load(sys.stdin)))')
loom_ctl --json route check >"$work/check.json" || loom_fail "route check: exit $?: $(cat "$work/check.json")"
py '
import json, sys
c = json.load(open(sys.argv[1]))
m = c["metrics"]
assert c["switches"] == int(sys.argv[2]) and c["ca_ports"] == 8, c
assert m["pairs"] == 8 * 7 and m["delivered"] == m["pairs"] and m["loops"] == 0, m
assert c["broken_pairs"] == 0 and c["missing_tables"] == 0 and c["unroutable_entries"] == 0, c
assert c["read"]["switches"] == c["switches"] and c["read"]["smps"] >= 2 * c["switches"], c
assert not c["read"]["cached"], c
' "$work/check.json" "$n_sw" || loom_fail "route check: $(cat "$work/check.json")"
loom_ctl route check >"$work/check.out" || loom_fail "route check (table output)"
grep -q '^pairs: *56 of 56 delivered, 0 unreachable, 0 loops' "$work/check.out" &&
	grep -q "^EFI: " "$work/check.out" && grep -q "^deadlock: " "$work/check.out" &&
	grep -q "^EBB: " "$work/check.out" ||
	loom_fail "route check output: $(cat "$work/check.out")"
# route check reads every switch: root's and the admin group's, like discover
if command -v setpriv >/dev/null 2>&1; then
	chmod 755 "$work"  # the unprivileged user reaches the socket
	setpriv --reuid=65534 --regid=65534 --clear-groups "$B/loomctl" -s "$work/loomd.sock" \
		route check >"$work/nobody.out" 2>&1 && loom_fail "route check ran for uid 65534"
	grep -q "permission denied for uid 65534" "$work/nobody.out" ||
		loom_fail "route check for uid 65534: $(cat "$work/nobody.out")"
fi
loom_ok "route check: 56 of 56 pairs delivered over tables read with $(py 'import json,sys; print(json.load(open(sys.argv[1]))["read"]["smps"])' "$work/check.json") SMPs, exit 0"

# ---- the stored tables are what dump_fts reads ------------------------------------------
LD_PRELOAD=$PRELOAD dump_fts >"$work/dump_fts.txt" 2>/dev/null || loom_fail "dump_fts"
python3 "$S/tests/integration/lft_use.py" same "$work/loom.db" "$work/dump_fts.txt" "$n_sw" ||
	loom_fail "stored tables differ from dump_fts"
loom_ok "the stored tables of the $n_sw switches equal dump_fts's, entry for entry"

# ---- route trace against ibtracert -----------------------------------------------------
loom_ctl --json nodes --type ca >"$work/cas.json" || loom_fail "nodes --type ca"
set -- $(py '
import json, sys
n = sorted(json.load(open(sys.argv[1])), key=lambda n: n["desc"])
a, b = n[0], n[-1]
print(a["desc"].split()[0], b["desc"].split()[0], a["lid"], b["lid"], b["guid"])
' "$work/cas.json")
src=$1 dst=$2 slid=$3 dlid=$4 dguid=$5
loom_ctl --json route trace "$src" "$dst" >"$work/trace.json" || loom_fail "route trace $src $dst: $(cat "$work/trace.json")"
LD_PRELOAD=$PRELOAD ibtracert "$slid" "$dlid" >"$work/ibtracert.txt" 2>/dev/null || loom_fail "ibtracert $slid $dlid"
python3 - "$work/trace.json" "$work/ibtracert.txt" <<'EOP' || loom_fail "route trace differs from ibtracert: $(cat "$work/ibtracert.txt")"
import json, re, sys
t = json.load(open(sys.argv[1]))
assert t["delivered"] and t["reason"] is None, t
lines = [l for l in open(sys.argv[2]) if l.startswith("[")]
# "[out] -> switch port {GUID}[in] lid ..." : out is the previous node's port
hops = []
for i, l in enumerate(lines):
    m = re.match(r"\[(\d+)\] -> (switch|ca) port \{(0x[0-9a-f]+)\}\[(\d+)\]", l)
    assert m, l
    if i > 0:
        hops[-1]["out_port"] = int(m.group(1))
    if m.group(2) == "switch":
        hops.append({"guid": int(m.group(3), 16), "in_port": int(m.group(4))})
got = [{"guid": int(h["guid"], 16), "in_port": h["in_port"], "out_port": h["out_port"]} for h in t["hops"]]
assert got == hops, (got, hops)
print(len(hops), "hops")
EOP
loom_ok "route trace $src $dst: the hops of ibtracert $slid $dlid ($(py 'import json,sys; print(len(json.load(open(sys.argv[1]))["hops"]))' "$work/trace.json") switches)"

# The same path whatever names the endpoints.
full=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["dst"]["desc"])' "$work/trace.json")
pguid=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["dst"]["port_guid"])' "$work/trace.json")
py 'import json,sys; t=json.load(open(sys.argv[1])); print(json.dumps(t["hops"]))' "$work/trace.json" >"$work/hops.want"
for d in "$full" "$dguid" "$pguid" "$dlid"; do
	loom_ctl --json route trace --cached "$slid" "$d" >"$work/t2.json" || loom_fail "route trace $slid \"$d\""
	py 'import json,sys; t=json.load(open(sys.argv[1])); print(json.dumps(t["hops"]))' "$work/t2.json" >"$work/hops.got"
	cmp -s "$work/hops.want" "$work/hops.got" || loom_fail "route trace to \"$d\" takes another path"
done
loom_ok "route trace resolves the destination by host name, description, node GUID, port GUID and LID alike"
loom_ctl route trace --cached "$src" "$dst" >"$work/trace.out" || loom_fail "route trace (table output)"
grep -q '^HOP  *GUID  *LID  *IN  *OUT  *SWITCH$' "$work/trace.out" && grep -q '^delivered: ' "$work/trace.out" ||
	loom_fail "route trace output: $(cat "$work/trace.out")"

# ---- --cached and --db answer from the stored read ---------------------------------------
loom_ctl --json route check --cached >"$work/cached.json" || loom_fail "route check --cached"
"$B/loomctl" --db "$work/loom.db" --json route check >"$work/db.json" || loom_fail "loomctl --db route check"
python3 - "$work/check.json" "$work/cached.json" "$work/db.json" <<'EOP' || loom_fail "--cached / --db differ from the live check"
import json, sys
live, cached, db = (json.load(open(f)) for f in sys.argv[1:])
assert cached["read"]["cached"] and db["read"]["cached"], (cached["read"], db["read"])
# the stored read is the newest one (the traces read again), same tables
for c in (cached, db):
    assert c["metrics"] == live["metrics"] and c["broken_pairs"] == 0, c
assert cached["read"]["id"] == db["read"]["id"], (cached["read"], db["read"])
EOP
loom_ok "route check --cached and loomctl --db route check give the live metrics"

# ---- errors -------------------------------------------------------------------------------
rc=0; loom_ctl route trace "$src" 2>"$work/err" || rc=$?
[ $rc = 2 ] || loom_fail "route trace with one endpoint: exit $rc"
rc=0; loom_ctl route trace --cached "$src" no-such-host 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q 'not-found: .*no-such-host' "$work/err" || loom_fail "unknown host: exit $rc, $(cat "$work/err")"
loom_ok "usage errors exit 2; an unknown endpoint exits 1: $(cat "$work/err")"

# ---- a cable pulled, OpenSM not rerun: the tables now lead into a dead port --------------
sw=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["hops"][0]["desc"])' "$work/trace.json")
port=$(py 'import json,sys; print(json.load(open(sys.argv[1]))["hops"][0]["out_port"])' "$work/trace.json")
loom_ibsim_cmd "Unlink \"$sw\"[$port]"
rc=0; loom_ctl --json route check >"$work/broken.json" || rc=$?
[ $rc = 1 ] || loom_fail "route check after Unlink \"$sw\"[$port]: exit $rc: $(cat "$work/broken.json")"
python3 - "$work/broken.json" "$sw" "$port" <<'EOP' || loom_fail "route check after the unlink: $(cat "$work/broken.json")"
import json, sys
c = json.load(open(sys.argv[1]))
m = c["metrics"]
assert m["delivered"] < m["pairs"] and c["broken_pairs"] == m["pairs"] - m["delivered"], (m, c["broken_pairs"])
want = 'switch "%s" forwards LID' % sys.argv[2]
assert any(want in b["reason"] and "port %s, which is down" % sys.argv[3] in b["reason"] for b in c["broken"]), c["broken"]
print(m["pairs"] - m["delivered"], "pairs lost")
EOP
loom_ok "after Unlink \"$sw\"[$port]: route check reports $(py 'import json,sys; print(json.load(open(sys.argv[1]))["broken_pairs"])' "$work/broken.json") lost pairs and exits 1"

rc=0; loom_ctl route trace --cached "$src" "$dst" >"$work/btrace.out" || rc=$?
[ $rc = 1 ] || loom_fail "route trace over the pulled cable: exit $rc: $(cat "$work/btrace.out")"
grep -q "^BROKEN: *switch \"$sw\" forwards LID $dlid to port $port, which is down" "$work/btrace.out" ||
	loom_fail "route trace does not say where it breaks: $(cat "$work/btrace.out")"
loom_ok "route trace over the pulled cable: $(grep '^BROKEN' "$work/btrace.out")"
loom_ctl --json events >"$work/events.json"
grep -q '"link_down"' "$work/events.json" || loom_fail "the walk of route check did not record the link going down"
loom_ok "the walk that came with the read recorded the link going down as an event"
echo "route_live.sh: all ok"
