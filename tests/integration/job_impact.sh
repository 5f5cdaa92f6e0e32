#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/job_impact.sh: which jobs a bad or congested link hurts
# (issue 24) on ibsim, OpenSM and loomd. Two jobs (tenants, as the Slurm
# prolog makes them) on different leaves; the routes are read back with
# dump_fts and followed in this test over the net file's cabling, and a
# spine port found that the first job's traffic leaves by and that the
# second's crosses in neither direction (derived, never named here).
# SymbolErrorCounter and PortXmitWait injected there through ibsim's
# console. Proves that
#  - `loomctl job` of the first job lists that port's link among its worst
#    links, with the errors and the congestion, and exits 1; the second job
#    has no bad link and exits 0; --hosts gives the first job's answer, and
#    so does a --hosts list of over 4 KB; a client's host_pattern is refused
#    (loomd's tenants.host_pattern is the rule);
#  - `loomctl health` names the first job, and only it, on the port's rows;
#  - the link_errors and link_congested events name it too;
#  - `loomctl --db job` answers as loomd does (GET /api/v1/impact/JOB is
#    checked against the document by api_openapi.sh);
#  - the cable pulled (ibsim Unlink): its link_down event names the first job.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
command -v dump_fts >/dev/null 2>&1 || loom_skip "dump_fts (infiniband-diags) is not installed"
loom_work

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
printf 'partition_config_file %s\nforce_log_flush TRUE\n' "$work/partitions.conf" \
	>"$work/opensm.conf"
loom_opensm_bg
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  timeout_s: 30" "telemetry:" "  interval_s: 0" "  thresholds:" "    errors: 1" \
	"    xmit_wait_per_s: 5000"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

# Job A on the first two leaves, job B on the last two (4 hosts a leaf).
loom_ctl tenant create jobA --hosts 'host-[0000-0001],host-[0004-0005]' >/dev/null ||
	loom_fail "tenant create jobA"
loom_ctl tenant create jobB --hosts 'host-[0008-0009],host-[0012-0013]' >/dev/null ||
	loom_fail "tenant create jobB"
loom_ctl route check >/dev/null || loom_fail "route check (reads and stores the tables)"
loom_ctl counters --now >/dev/null || loom_fail "first counters read"

# The spine port, from dump_fts's tables followed over the net file's cables.
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.txt" 2>/dev/null || loom_fail "dump_fts"
python3 - "$work/f.net" "$work/fts.txt" >"$work/port.txt" <<'EOP' || loom_fail "no spine port carries job A only"
import re, sys
cab, at, node = {}, {}, None
for line in open(sys.argv[1]):
    m = re.match(r'(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
    if m:
        node = m.group(2)
        continue
    m = re.match(r'\s*\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
    if m and node:
        cab[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
lft, lid, cur = {}, {}, None
for line in open(sys.argv[2]):
    m = re.match(r"Unicast lids .* of switch .*\((.*)\):", line)
    if m:
        cur = lft.setdefault(m.group(1).strip("'"), {})
        continue
    m = re.match(r"(0x[0-9a-f]+) (\d+) .*'([^']+)'", line)
    if m and cur is not None:
        cur[int(m.group(1), 16)] = int(m.group(2))
        if "Channel Adapter" in line:
            lid[m.group(3)] = int(m.group(1), 16)
def links(hosts):
    used = set()
    for s in hosts:
        for d in hosts:
            if s == d:
                continue
            sw, _ = cab[(s, 1)]
            for _ in range(16):
                p = lft[sw][lid[d]]
                used.add((sw, p))
                peer = cab[(sw, p)]
                if peer[0] == d:
                    break
                sw = peer[0]
            else:
                sys.exit("loop from %s to %s" % (s, d))
    return used
a = links(["host-0000", "host-0001", "host-0004", "host-0005"])
b = links(["host-0008", "host-0009", "host-0012", "host-0013"])
for sw, p in sorted(a):
    peer = cab[(sw, p)]
    if sw.startswith("spine") and (sw, p) not in b and peer not in b:
        print(sw, p)
        sys.exit(0)
sys.exit(1)
EOP
read -r SPINE PORT <"$work/port.txt"
loom_ok "from dump_fts: job A leaves $SPINE by port $PORT, job B crosses neither way"

loom_ibsim_cmd "PerformanceSet \"$SPINE\"[$PORT] PortCounters.SymbolErrorCounter=9"
loom_ibsim_cmd "PerformanceSet \"$SPINE\"[$PORT] PortCounters.PortXmitWait=4000000000"
loom_ctl counters --now >/dev/null || loom_fail "counters read after the injection"

if loom_ctl --json job jobA >"$work/a.json"; then loom_fail "job jobA exits 0 with a bad link"; fi
python3 - "$work/a.json" "$SPINE:$PORT" <<'EOP' || loom_fail "job jobA does not show $SPINE:$PORT: $(cat "$work/a.json")"
import json, sys
o = json.load(open(sys.argv[1]))
w = [x for x in o["worst"] if x["from"] == sys.argv[2]]
assert w, o["worst"]
w = w[0]
assert w["errors"] >= 9 and w["xmit_wait_per_s"] > 5000 and w["pairs"] > 0, w
assert "link_errors" in w["alarms"] and "link_congested" in w["alarms"], w
# the only congested port: the root of its own congestion
assert w["congestion"] == {"root": sys.argv[2], "is_root": True}, w
assert w["jobs"] == [], w
p = o["paths"]
assert p["pairs"] == p["pairs_total"] == 12 and p["delivered"] == 12 and not p["sampled"], p
assert sorted(h["host"] for h in o["hosts"]) == ["host-0000", "host-0001", "host-0004", "host-0005"], o["hosts"]
EOP
loom_ctl --json job jobB >"$work/b.json" || loom_fail "job jobB exits 1: $(cat "$work/b.json")"
python3 -c 'import json,sys; o = json.load(open(sys.argv[1])); assert o["bad_links"] == 0, o' \
	"$work/b.json" || loom_fail "job jobB has bad links: $(cat "$work/b.json")"
loom_ok "job jobA: $SPINE:$PORT among its worst links (errors, congestion, alarms); job jobB: none"

loom_ctl --json job --hosts 'host-[0000-0001],host-[0004-0005]' >"$work/h.json" || :
python3 -c '
import json, sys
a, h = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["paths"] == h["paths"] and a["worst"][0]["from"] == h["worst"][0]["from"], (a, h)' \
	"$work/a.json" "$work/h.json" || loom_fail "--hosts differs from the tenant: $(cat "$work/h.json")"
# A nodelist past 4 KB (a scattered job's SLURM_JOB_NODELIST; tenant create
# takes it): the same hosts, host-0000 written 500 times.
long=$(i=0; while [ $i -lt 500 ]; do printf 'host-0000,'; i=$((i + 1)); done)
loom_ctl --json job --hosts "${long}host-0001,host-[0004-0005]" >"$work/l.json" || :
python3 -c '
import json, sys
a, h = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert a["paths"] == h["paths"], (a, h)' "$work/a.json" "$work/l.json" ||
	loom_fail "a ${#long}-byte --hosts list: $(cut -c1-300 "$work/l.json")"
# A host pattern is loomd's own (tenants.host_pattern), as its host map is:
# a client's regular expression (one that takes gigabytes to compile) is
# refused, and loomctl takes --host-pattern only with --db.
python3 - "$work/loomd.sock" <<'EOP' || loom_fail "a client's host_pattern was not refused"
import json, socket, struct, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
s.connect(sys.argv[1])
body = json.dumps({"v": 1, "id": 1, "cmd": "job", "args": {"hosts": "host-0000",
                   "host_pattern": "^(((((x{1,40}){1,40}){1,40}){1,40}){1,40})"}}).encode()
s.sendall(struct.pack(">I", len(body)) + body)
head = b""
while len(head) < 4:
    head += s.recv(4 - len(head))
n, data = struct.unpack(">I", head)[0], b""
while len(data) < n:
    data += s.recv(n - len(data))
r = json.loads(data)
assert not r["ok"] and r["error"]["code"] == "bad-request", r
assert "host_pattern" in r["error"]["message"], r
EOP
rc=0
loom_ctl job --hosts host-0000 --host-pattern '^([^ ]+)' >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || loom_fail "loomctl job --host-pattern without --db: exit $rc, not 2"
loom_ctl job jobA >"$work/a.txt" || :
grep -q "^$SPINE:$PORT " "$work/a.txt" && grep -q "every pair" "$work/a.txt" ||
	loom_fail "loomctl job's table: $(cat "$work/a.txt")"
loom_ok "--hosts gives the tenant's paths (a ${#long}-byte list too; a client's host_pattern refused); the table lists $SPINE:$PORT"

loom_ctl --json health >"$work/health.json" || :
python3 - "$work/health.json" "$SPINE" "$PORT" <<'EOP' || loom_fail "health does not name jobA alone: $(cat "$work/health.json")"
import json, sys
h = json.load(open(sys.argv[1]))
n = 0
for key in ("alarms", "errors", "congestion"):
    for r in h[key]:
        if r["node"] == sys.argv[2] and r["port"] == int(sys.argv[3]):
            assert r["jobs"] == ["jobA"], (key, r)
            n += 1
assert n >= 4, n   # two alarms, the errors row, the congestion row
EOP
loom_ctl health | grep -E "^link_errors +$SPINE:$PORT .* jobA *$" >/dev/null ||
	loom_fail "the health table does not name jobA: $(loom_ctl health)"
loom_ok "health names jobA, and not jobB, on $SPINE:$PORT's alarms, errors and congestion"

loom_ctl --json events --kind link_errors,link_congested --limit 10 >"$work/ev.json"
python3 -c '
import json, sys
ev = json.load(open(sys.argv[1]))
ev = ev["events"] if isinstance(ev, dict) else ev
kinds = {e["kind"] for e in ev if "jobs: jobA" in (e.get("new") or "") and "jobB" not in e["new"]}
assert kinds == {"link_errors", "link_congested"}, ev' "$work/ev.json" ||
	loom_fail "the alarm events do not name jobA: $(cat "$work/ev.json")"
loom_ok "the link_errors and link_congested events name jobA"

"$B/loomctl" --db "$work/loom.db" --json job jobA >"$work/db.json" || :
cmp -s "$work/a.json" "$work/db.json" || loom_fail "--db job differs: $(diff "$work/a.json" "$work/db.json")"
loom_ok "--db job answers as loomd does"

# The cable pulled: its link_down event names the job whose paths crossed it
# (the index holds the tables from before the cut).
loom_ibsim_cmd "Unlink \"$SPINE\"[$PORT]"
loom_ctl discover --wait >/dev/null || loom_fail "discover after the unlink"
loom_until 50 sh -c "\"$B/loomctl\" -s \"$work/loomd.sock\" --json events --kind link_down \
	--limit 5 | grep -q 'jobs: jobA'" ||
	loom_fail "the link_down event does not name jobA: $(loom_ctl events --kind link_down)"
loom_ctl --json events --kind link_down --limit 5 | grep -q 'jobB' &&
	loom_fail "the link_down event names jobB"
loom_ok "the link_down event of $SPINE:$PORT's cable names jobA"
echo "job_impact.sh: all ok"
