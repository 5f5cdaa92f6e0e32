#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/job_history.sh: what happened to a job in a window of
# time (issue 42, the post-mortem: `loomctl job JOB --from T1 --to T2`) on
# ibsim, OpenSM with loom's plugin (opensm.read_tables: loomd reads the
# tables back after each LFT change) and loomd. A job (a tenant) on two
# leaves; its links followed in this test through dump_fts's tables over
# the net file's cabling, before and after a cable it crosses is cut
# (ibsim Unlink, OpenSM reroutes), never named here. Errors raised with
# PerformanceSet on a link the job crosses after the cut, and on a link
# it never crosses. Proves that
#  - loom kept two versions of the tables (the reroute's, holding only
#    the switches whose table changed) and the job's window shows both,
#    each with the job's switch-to-switch links as dump_fts says, and the
#    links that moved in and out as dump_fts's two reads say;
#  - the window's events are the link_down of the cut cable and the
#    link_errors of the job's link, not the other link's errors;
#  - the counters of the job's links in the window: the errors of its
#    link from loomd's memory, none of the other; then (when prometheus is
#    installed) from a real Prometheus scraping loomd (http.prometheus_url);
#  - the text timeline says it; `loomctl --db` answers the same versions;
#    a window before the first read has none; a bad time is refused.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
command -v dump_fts >/dev/null 2>&1 || loom_skip "dump_fts (infiniband-diags) is not installed"
loom_work
loom_need python3

loom_ibsim "$S/tests/fabrics/demo-ft2.net"   # 32 hosts on 8 leaves, 4 spines
printf 'Default=0x7fff, ipoib : ALL=full ;\n' >"$work/static.conf"
{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'sweep_interval 2\nforce_log_flush TRUE\nlog_flags 0x03\n'
	printf 'partition_config_file %s\n' "$work/partitions.conf"
} >"$work/opensm.conf"
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  timeout_s: 30" "telemetry:" "  interval_s: 0" "  thresholds:" "    errors: 1"
sed -i 's|^  report_socket: .*|&\n  read_tables: true|' "$work/loom.yaml"
grep -q '^  read_tables: true$' "$work/loom.yaml" || loom_fail "cannot set opensm.read_tables"
T0=$(date +%s)
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
loom_osm_plugin &
LOOM_PIDS="$LOOM_PIDS $!"
echo $! >"$work/opensm.pid"
loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "OpenSM: no SUBNET UP"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
versions() { sqlite3 "$work/loom.db" 'SELECT count(*) FROM lft_versions' 2>/dev/null || echo 0; }
loom_ctl route check >/dev/null || loom_fail "route check (the first read: the first version)"
loom_ctl tenant create jobH --hosts 'host-[0000-0001],host-[0004-0005]' >/dev/null ||
	loom_fail "tenant create jobH"
loom_ctl counters --now >/dev/null || loom_fail "first counters read"
[ "$(versions)" = 1 ] || loom_fail "$(versions) versions of the tables before the cut, not 1"

# The job's links from dump_fts over the net file: "A[p] -> B[q]" lines.
jobs_links() { # jobs_links FTS OUT
	LD_PRELOAD=$PRELOAD dump_fts >"$1" 2>/dev/null || loom_fail "dump_fts"
	python3 - "$S/tests/fabrics/demo-ft2.net" "$1" >"$2" <<'EOP' || loom_fail "following dump_fts"
import re, sys
cab, node = {}, None
for line in open(sys.argv[1]):
    m = re.match(r'(Switch|Hca)\s+\d+\s+"([^"]+)"', line)
    if m:
        node = m.group(2)
        continue
    m = re.match(r'\s*\[(\d+)\]\s+"([^"]+)"\[(\d+)\]', line)
    if m and node:
        cab[(node, int(m.group(1)))] = (m.group(2), int(m.group(3)))
        cab[(m.group(2), int(m.group(3)))] = (node, int(m.group(1)))
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
hosts = ["host-0000", "host-0001", "host-0004", "host-0005"]
used = set()
for s in hosts:
    for d in hosts:
        if s == d:
            continue
        sw, _ = cab[(s, 1)]
        for _ in range(16):
            p = lft[sw][lid[d]]
            peer = cab[(sw, p)]
            if peer[0] == d:
                break
            used.add("%s[%d] -> %s[%d]" % (sw, p, peer[0], peer[1]))
            sw = peer[0]
        else:
            sys.exit("loop from %s to %s" % (s, d))
for l in sorted(used):
    print(l)
EOP
}
jobs_links "$work/fts1.txt" "$work/links1.txt"
# A spine-bound cable the job crosses: cut it at the leaf's end.
read -r CUT_FROM _ CUT_TO <<EOR
$(grep '^leaf' "$work/links1.txt" | head -n 1)
EOR
CUT_NODE=${CUT_FROM%%\[*}
CUT_PORT=${CUT_FROM#*\[}
CUT_PORT=${CUT_PORT%\]}
loom_ok "before the cut, from dump_fts: the job crosses $(wc -l <"$work/links1.txt") switch links; cutting $CUT_FROM -> $CUT_TO"

loom_ibsim_cmd "Unlink \"$CUT_NODE\"[$CUT_PORT]"
loom_until 300 sh -c "[ \$(sqlite3 '$work/loom.db' 'SELECT count(*) FROM lft_versions') -ge 2 ]" ||
	loom_fail "no second version of the tables after the reroute (opensm.read_tables): $(versions)"
loom_ctl discover --wait >/dev/null || loom_fail "discover after the cut"
sleep 3   # OpenSM done with its LFT blocks: dump_fts reads what loomd read
jobs_links "$work/fts2.txt" "$work/links2.txt"
[ "$(versions)" = 2 ] || loom_fail "$(versions) versions after one reroute, not 2"
changed=$(sqlite3 "$work/loom.db" 'SELECT changed FROM lft_versions ORDER BY id DESC LIMIT 1')
differ=$(python3 - "$work/fts1.txt" "$work/fts2.txt" <<'EOP'
import re, sys
def tables(f):
    t, cur = {}, None
    for line in open(f):
        m = re.match(r"Unicast lids .* of switch .*\((.*)\):", line)
        if m:
            cur = t.setdefault(m.group(1), [])
            continue
        m = re.match(r"(0x[0-9a-f]+) (\d+) ", line)
        if m and cur is not None:
            cur.append((m.group(1), m.group(2)))
    return t
a, b = tables(sys.argv[1]), tables(sys.argv[2])
print(sum(1 for k in set(a) | set(b) if a.get(k) != b.get(k)))
EOP
)
[ "$changed" = "$differ" ] ||
	loom_fail "the reroute's version holds $changed switches' tables; dump_fts says $differ changed"
grep -qF "$CUT_FROM" "$work/links2.txt" && loom_fail "the job still crosses the cut cable"
loom_ok "after the reroute: 2 versions kept, the second holds the $changed switches whose table changed"

# Errors on a link the job crosses now, and on one it never crosses.
read -r ERR_FROM _ _ <<EOR
$(grep '^leaf' "$work/links2.txt" | head -n 1)
EOR
ERR_NODE=${ERR_FROM%%\[*}
ERR_PORT=${ERR_FROM#*\[}
ERR_PORT=${ERR_PORT%\]}
OTHER=$(python3 - "$work/links1.txt" "$work/links2.txt" <<'EOP'
import sys
used = set()
for f in sys.argv[1:]:
    for l in open(f):
        a, _, b = l.split()
        used.add(a)
        used.add(b)
# leaf-7's up ports: a leaf the job's hosts are not on
for p in range(5, 9):
    if "leaf-7[%d]" % p not in used:
        print("leaf-7 %d" % p)
        break
EOP
)
read -r OTHER_NODE OTHER_PORT <<EOR
$OTHER
EOR
loom_ibsim_cmd "PerformanceSet \"$ERR_NODE\"[$ERR_PORT] PortCounters.SymbolErrorCounter=9"
loom_ibsim_cmd "PerformanceSet \"$OTHER_NODE\"[$OTHER_PORT] PortCounters.SymbolErrorCounter=7"
loom_ctl counters --now >/dev/null || loom_fail "counters read after the injection"
loom_until 50 sh -c "\"$B/loomctl\" -s \"$work/loomd.sock\" events --kind link_errors | grep -q \"($OTHER_NODE)\"" ||
	loom_fail "no link_errors event on $OTHER_NODE[$OTHER_PORT]: $(loom_ctl events --kind link_errors)"

loom_ctl --json job jobH --from "$T0" --to now >"$work/h.json" ||
	loom_fail "job --from: $(cat "$work/h.json")"
python3 - "$work/h.json" "$work/links1.txt" "$work/links2.txt" "$CUT_FROM -> $CUT_TO" "$ERR_FROM" \
	"$OTHER_NODE[$OTHER_PORT]" <<'EOP' || loom_fail "the job's window: $(cat "$work/h.json")"
import json, sys
o = json.load(open(sys.argv[1]))
l1 = set(open(sys.argv[2]).read().split("\n")) - {""}
l2 = set(open(sys.argv[3]).read().split("\n")) - {""}
cut, err, other = sys.argv[4], sys.argv[5], sys.argv[6]
sw = lambda ls: {l for l in ls if not l.split(" -> ")[0].startswith("host") and
                 not l.split(" -> ")[1].startswith("host")}
v = o["versions"]
assert len(v) == 2, [x["time"] for x in v]
got1 = sw(x["link"] for x in v[0]["links"])
got2 = sw(x["link"] for x in v[1]["links"])
assert got1 == l1, (got1 ^ l1)
assert got2 == l2, (got2 ^ l2)
assert sw(v[1]["moved"]["added"]) == l2 - l1, v[1]["moved"]
assert sw(v[1]["moved"]["removed"]) == l1 - l2, v[1]["moved"]
assert v[0]["until"] == v[1]["time"], v
ev = o["events"]
down = [e for e in ev if e["kind"] == "link_down"]
assert any(e["port"] in cut.split(" -> ") for e in down), down
errs = [e for e in ev if e["kind"] == "link_errors"]
assert any(e["port"] == err and e["pairs"] > 0 for e in errs), errs
onode, oport = other.rstrip("]").split("[")
assert not any("/%s (%s)" % (oport, onode) in e["subject"] for e in ev), ev
assert o["fabric"].find("1 cut cable") >= 0, o["fabric"]
c = o["counters"]
assert c["source"] == "memory", c
node, port = err.rstrip("]").split("[")
mine = [p for p in c["ports"] if p["name"] == node and p["port"] == int(port)]
assert mine and mine[0]["errors"].get("SymbolErrorCounter") == 9, c
assert not any(p["name"] == onode and p["port"] == int(oport) for p in c["ports"]), c
print("%d + %d links, %d events" % (len(got1), len(got2), len(ev)))
EOP
loom_ok "job --from: two versions with the job's links as dump_fts says, what moved, the link_down and link_errors on its links and their counters (loomd's memory), not the other link's"

loom_ctl job jobH --from "$T0" >"$work/h.txt" || loom_fail "job --from (text)"
# T0 is before the first read: both versions are new within the window.
[ "$(grep -c "tables v[0-9]* new" "$work/h.txt")" = 2 ] &&
	grep -q "links moved in, [1-9][0-9]* out" "$work/h.txt" &&
	grep -qF -- "- $CUT_FROM -> $CUT_TO" "$work/h.txt" &&
	grep -q " link_down .*(on the job's links at " "$work/h.txt" &&
	grep -q " link_errors .*(on the job's links at $ERR_NODE\[$ERR_PORT\]" "$work/h.txt" ||
	loom_fail "the timeline: $(cat "$work/h.txt")"
loom_ctl job jobH --from "$(($(date +%s) - 1))" >"$work/late.txt" || loom_fail "a late window"
grep -q "tables v[0-9]* in force" "$work/late.txt" ||
	loom_fail "a window after the reroute: $(cat "$work/late.txt")"
loom_ok "the timeline: $(grep -c . "$work/h.txt") lines: $(grep 'tables v' "$work/h.txt" | tr '\n' ';')"

"$B/loomctl" --db "$work/loom.db" --json job jobH --from "$T0" --to now >"$work/db.json" ||
	loom_fail "--db job --from: $(cat "$work/db.json")"
python3 -c '
import json, sys
a, b = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert [v["links"] for v in a["versions"]] == [v["links"] for v in b["versions"]], (a, b)
assert b["counters"]["source"] == "none", b["counters"]' "$work/h.json" "$work/db.json" ||
	loom_fail "--db differs"
loom_ctl --json job jobH --from "$((T0 - 3600))" --to "$((T0 - 1800))" >"$work/early.json" ||
	loom_fail "an early window"
python3 -c 'import json,sys; o = json.load(open(sys.argv[1])); assert o["versions"] == [] and o["events"] == [], o' \
	"$work/early.json" || loom_fail "a window before the first read: $(cat "$work/early.json")"
rc=0
loom_ctl job jobH --from yesterday >/dev/null 2>&1 || rc=$?
[ "$rc" = 2 ] || loom_fail "a bad --from: exit $rc, not 2"
loom_ok "--db answers the same versions; an early window has none; a bad time is refused"

# ---- the counters from Prometheus (http.prometheus_url) ---------------------------
if ! command -v prometheus >/dev/null 2>&1 || ! command -v curl >/dev/null 2>&1; then
	echo "job_history.sh: all ok (no prometheus: its part not run)"
	exit 0
fi
kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
port=$(loom_free_port)
pport=$(loom_free_port)
loom_tokens "$work/tokens" "reader:read:history-reader-0123456789abcdef-01"
loom_config "tenants:" "  host_identity: description" "  partitions_file: $work/partitions.conf" \
	"  static_partitions: $work/static.conf" "  opensm_pid_file: $work/opensm.pid" \
	"  timeout_s: 30" "telemetry:" "  interval_s: 0" "  thresholds:" "    errors: 1" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" \
	"  prometheus_url: \"http://127.0.0.1:$pport\""
sed -i 's|^  report_socket: .*|&\n  read_tables: true|' "$work/loom.yaml"
loom_loomd "$work/loom.yaml"
cat >"$work/prometheus.yml" <<EOP
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: loom
    static_configs:
      - targets: ['127.0.0.1:$port']
EOP
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/prom" \
	--web.listen-address="127.0.0.1:$pport" >"$work/prometheus.log" 2>&1 &
LOOM_PIDS="$LOOM_PIDS $!"
T2=$(date +%s)
loom_ctl counters --now >/dev/null || loom_fail "counters read (Prometheus)"
sym() { curl -s -G --max-time 5 "http://127.0.0.1:$pport/api/v1/query" \
	--data-urlencode "query=loom_port_symbol_errors_total{node=\"$ERR_NODE\",port=\"$ERR_PORT\"}" |
	python3 -c 'import json,sys; r=json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null; }
sym_is() { [ "$(sym)" = "$1" ]; }
loom_until 300 sym_is 9 || loom_fail "Prometheus never scraped 9 on $ERR_FROM ($(sym))"
sleep 3
loom_ibsim_cmd "PerformanceSet \"$ERR_NODE\"[$ERR_PORT] PortCounters.SymbolErrorCounter=14"
loom_ctl counters --now >/dev/null || loom_fail "counters read after more errors"
loom_until 300 sym_is 14 || loom_fail "Prometheus never scraped 14 on $ERR_FROM ($(sym))"
sleep 3
loom_ctl --json job jobH --from "$T2" >"$work/p.json" || loom_fail "job --from (Prometheus): $(cat "$work/p.json")"
python3 - "$work/p.json" "$ERR_NODE" "$ERR_PORT" <<'EOP' || loom_fail "the counters from Prometheus: $(cat "$work/p.json")"
import json, sys
c = json.load(open(sys.argv[1]))["counters"]
assert c["source"] == "prometheus" and not c.get("error"), c
mine = [p for p in c["ports"] if p["name"] == sys.argv[2] and p["port"] == int(sys.argv[3])]
assert mine and mine[0]["errors"].get("SymbolErrorCounter") == 5, c
EOP
loom_ok "the counters of the job's links from Prometheus (query_range): $ERR_FROM +5 in the window"
echo "job_history.sh: all ok"
