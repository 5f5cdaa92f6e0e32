#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/isolation_e2e.sh: issue 42's end-to-end figure, in one run on one
# simulated 11664-host 3-level fat tree (loom-fabgen, 36-port switches):
# symbol errors raised with ibsim's PerformanceSet on a leaf-to-middle
# switch cable (pod0-leaf-0's first uplink, as bench/reroute_osm.sh cuts)
# until new tables on every switch, with a real OpenSM running libloomosm
# (routing_engine loom) and loomd in isolation mode on; then, on the same
# simulator, OpenSM's own full reroute (routing_engine ftree, then minhop:
# a fresh OpenSM, its first SUBNET UP, then SIGHUP: a heavy sweep that
# routes again), timed the same way. Reported, each from its own log
# (loomd's timestamps are at the ms, OpenSM's at the us; log_flags 0x07):
#   read        the counters read that saw the errors: the set (this
#               script's clock) to its end ("counters of N ports read");
#               bounded by telemetry.interval_s plus a read's duration,
#               so it is reported apart
#   decide      that read's end to the isolation decision: loomd's
#               "isolated set (version N, ...) written; asked libloomosm.so"
#               line (the link_isolated event's time is printed too): the
#               evaluation on loomd's worker (window, rules, the routes'
#               loss), the store, the file
#   osm         the decision to OpenSM's "tables configured on all
#               switches" of the run it asked for (the plugin's request,
#               OpenSM's sweep, loom's incremental reroute, the LFT blocks
#               sent): the time the switches hold the new tables
#   route       in that sweep, "building routing with" to "tables
#               configured on all switches": the engine and the LFT updates
#   report      loomd's "OpenSM routed with the isolated set version N"
#               (the plugin's run report reached it)
#   read->tables = decide + osm: issue 42's "< 2 s" target (the counters
#               read that crosses the threshold to new tables everywhere)
#   ftree/minhop: the same route figure for OpenSM's own engine after
#               SIGHUP, and the ratios loom / OpenSM.
# Then lft_use.py checks that no LFT entry of either end leaves by the cable.
#
#   sh bench/isolation_e2e.sh [--hosts N] [--interval S] [--keep]
#     --hosts N     hosts of the 3-level radix-36 tree (default 11664;
#                   1296 is a quick run)
#     --interval S  telemetry.interval_s (default 5)
#   (ISO_E2E_ENGINES="ftree" compares with ftree alone; "" with none)
#
# Needs root (a network namespace: ibsim's socket is fixed), ibsim, opensm,
# infiniband-diags (dump_fts, ibnetdiscover), python3, a build with the
# OpenSM plugin (top_builddir or ./build). Not part of make check.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
hosts=11664 interval=5
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--interval) interval=$2; shift ;;
	--keep) LOOM_KEEP=1; export LOOM_KEEP ;;
	*) echo "usage: sh bench/isolation_e2e.sh [--hosts N] [--interval S] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
loom_need_osm_plugin
loom_work
loom_need dump_fts python3
[ -z "${LOOM_KEEP:-}" ] || echo "work directory: $work"
engines=${ISO_E2E_ENGINES-ftree minhop}

loom_gen ft3 fattree --levels 3 --radix 36 --hosts "$hosts"
flags=$(sed -n 's/^# ibsim flags: //p' "$work/ft3.net")
# The first uplink of the first leaf (bench/reroute_osm.sh's cable).
cable=$(awk '/^Switch .*"pod0-leaf-0"/ { on = 1; next } on && /^$/ { exit }
	on && !/"host-/ { sub(/^\[/, ""); sub(/\].*/, ""); print; exit }' "$work/ft3.net")
echo "fat tree 3 levels r36, $hosts hosts; $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg);" \
	"cable pod0-leaf-0[$cable]; telemetry.interval_s $interval"
t0=$(date +%s)
# shellcheck disable=SC2086
loom_ibsim "$work/ft3.net" $flags
echo "ibsim ready in $(($(date +%s) - t0)) s"

# ---- loom: libloomosm + loomd, isolation on ------------------------------------
{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'force_log_flush TRUE\nlog_flags 0x07\n'
} >"$work/opensm.conf"
LOOMOSM_ISOLATED=$work/isolated-links
export LOOMOSM_ISOLATED
loom_config 'telemetry:' "  interval_s: $interval" 'isolation:' '  mode: on' \
	"  file: $work/isolated-links" '  window_s: 600' '  errors: 50' '  clean_for_s: 86400'
sed -i 's/^  level: debug/  level: info/' "$work/loom.yaml"
# loomd first: the plugin's reports (the first of them tells loomd where to
# ask a reroute) reach it from OpenSM's first run on.
loom_loomd "$work/loom.yaml"
t0=$(date +%s)
(loom_osm_plugin) &
osm_pid=$!
LOOM_PIDS="$LOOM_PIDS $osm_pid"
loom_until 3000 grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "no SUBNET UP"
echo "OpenSM (loom) SUBNET UP in $(($(date +%s) - t0)) s"
t0=$(date +%s)
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"
echo "loomd discovered the fabric in $(($(date +%s) - t0)) s"
# Two reads first: the errors are then a delta of a read, not a first sample.
two_reads() { [ "$(grep -c "counters of [1-9][0-9]* ports read" "$work/loomd.log")" -ge 2 ]; }
loom_until 3000 two_reads || loom_fail "no two counters reads"
date +%s.%N >"$work/set.time"
loom_ibsim_cmd "PerformanceSet \"pod0-leaf-0\"[$cable] PortCounters.SymbolErrorCounter=200"
loom_until 600 grep -q "OpenSM routed with the isolated set version" "$work/loomd.log" ||
	loom_osm_fail "OpenSM did not route with the isolated set"
# The tables configured of that run (before or after loomd heard of it).
loom_until 600 python3 - "$work/opensm.log" <<'EOF' || loom_osm_fail "no tables configured after the reroute"
import sys
seen = False
for line in open(sys.argv[1], errors='replace'):
    seen = seen or 'reroute asked by loomd' in line
    if seen and 'tables configured on all switches' in line:
        sys.exit(0)
sys.exit(1)
EOF
loom_ctl --json events --kind link_isolated >"$work/isolated.json"
# Both ends' tables as the switches hold them (ibroute: dump_fts of the
# whole tree writes 1.5 GB): how many entries still leave by the cable.
loom_ibnetdiscover >"$work/ibnd.txt"
python3 - "$work/ibnd.txt" "$cable" >"$work/ends.txt" <<'EOF2' || loom_fail "pod0-leaf-0[$cable] not in ibnetdiscover's output"
import re, sys
port, sw, lid, out = int(sys.argv[2]), None, {}, []
for line in open(sys.argv[1]):
    m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"\s+# "([^"]*)".* lid (\d+)', line)
    if m:
        sw = m.group(2)
        lid[sw] = (m.group(1), m.group(3))
        continue
    m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]\s+# "([^"]*)"', line)
    if m and sw == 'pod0-leaf-0' and int(m.group(1)) == port:
        out = [(sw, port), (m.group(4), int(m.group(3)))]
for name, p in out:
    print('0x' + lid[name][0], lid[name][1], p, name)
sys.exit(0 if len(out) == 2 and all(n in lid for n, _ in out) else 1)
EOF2
while read -r guid lid port name; do
	LD_PRELOAD=$PRELOAD ibroute "$lid" >"$work/lft-$lid.txt" 2>/dev/null || :
	echo "$name[$port]: $(python3 "$S/tests/integration/lft_use.py" use "$work/lft-$lid.txt" "$guid" "$port")" \
		"LFT entries leave by it ($(grep -c '^0x' "$work/lft-$lid.txt") entries read)" >>"$work/uses.txt"
done <"$work/ends.txt"
kill "$osm_pid" 2>/dev/null || :
wait "$osm_pid" 2>/dev/null || :
kill "$LOOMD_PID" 2>/dev/null || :
wait "$LOOMD_PID" 2>/dev/null || :
cp "$work/opensm.log" "$work/opensm-loom.log"

# ---- OpenSM's own full reroute, same simulator ----------------------------------
tables_after() { [ "$(grep -c "tables configured on all switches" "$work/opensm.log")" -gt "$1" ]; }
for e in $engines; do
	printf 'routing_engine %s\nforce_log_flush TRUE\nlog_flags 0x07\n' "$e" >"$work/opensm.conf"
	rm -f "$work/opensm.log"
	t0=$(date +%s)
	loom_opensm_bg
	echo "OpenSM ($e) SUBNET UP in $(($(date +%s) - t0)) s"
	sleep 3  # the first sweeps settle
	n=$(grep -c "tables configured on all switches" "$work/opensm.log" || :)
	date +%s.%N >"$work/hup-$e.time"
	kill -HUP "$OSM_PID"
	loom_until 3000 tables_after "$n" || loom_osm_fail "$e: no tables after SIGHUP"
	echo "$n" >"$work/hup-$e.count"
	kill "$OSM_PID" 2>/dev/null || :
	wait "$OSM_PID" 2>/dev/null || :
	cp "$work/opensm.log" "$work/opensm-$e.log"
done

python3 - "$work" "$cable" "$engines" <<'EOF'
import datetime, json, re, subprocess, sys
w, cable, engines = sys.argv[1], sys.argv[2], sys.argv[3].split()
year = datetime.date.today().year

def osm_t(line):
    m = re.match(r'(\w+ +\d+ [\d:]+) (\d+)', line)
    t = datetime.datetime.strptime('%d %s' % (year, m.group(1)), '%Y %b %d %H:%M:%S')
    return t.timestamp() + int(m.group(2)) / 1e6

def loom_t(line):
    m = re.match(r'(\d{4}-\d\d-\d\dT[\d:]+\.\d{3}) ', line)
    return datetime.datetime.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S.%f').timestamp() if m else None

set_t = float(open(w + '/set.time').read())
read_t = decide_t = report_t = None
decide_line = report_line = ''
for line in open(w + '/loomd.log', errors='replace'):
    t = loom_t(line)
    if t is None:
        continue
    if decide_t is None and re.search(r'counters of [1-9]\d* ports read', line) and t > set_t:
        read_t = t  # the last read that ended before the decision
    if decide_t is None and 'isolated set (version' in line and 'written' in line:
        decide_t, decide_line = t, line.strip()
    if report_t is None and 'OpenSM routed with the isolated set version' in line:
        report_t, report_line = t, line.strip()

# OpenSM's run for the reroute loomd asked.
asked_t = build_t = tables_t = None
routed = ''
for line in open(w + '/opensm-loom.log', errors='replace'):
    if asked_t is None:
        if 'reroute asked by loomd' in line:
            asked_t = osm_t(line)
        continue
    if build_t is None and 'building routing with' in line:
        build_t = osm_t(line)
    m = re.search(r'loom engine loom routed .*', line)
    if m and not routed:
        routed = m.group(0)[:160]
    if 'tables configured on all switches' in line:
        tables_t = osm_t(line)
        break
ev = json.load(open(w + '/isolated.json'))
ev_t = ev[0]['ts'] if ev else None

def f(a, b):
    return '%.3f' % (a - b) if a is not None and b is not None else 'n/a'

print('loom (libloomosm incremental reroute, loomd isolation on):')
print('  read    set -> end of the read that saw it  %s s (telemetry interval + read)' % f(read_t, set_t))
print('  decide  read -> isolated set written        %s s' % f(decide_t, read_t))
print('          read -> link_isolated event time    %s s (the evaluation\'s start)' % f(ev_t, read_t))
print('  osm     decision -> OpenSM asked            %s s' % f(asked_t, decide_t))
print('          decision -> tables configured       %s s' % f(tables_t, decide_t))
print('  route   building routing -> tables configured %s s' % f(tables_t, build_t))
print('  report  read -> loomd hears the run         %s s' % f(report_t, read_t))
print('  read -> new tables on every switch          %s s   (goal < 2 s)' % f(tables_t, read_t))
print('  set -> new tables on every switch           %s s' % f(tables_t, set_t))
print('  ' + decide_line[:200])
print('  ' + report_line[:200])
print('  OpenSM: ' + routed)
loom_route = tables_t - build_t if tables_t and build_t else None
loom_e2e = tables_t - read_t if tables_t and read_t else None
for e in engines:
    hup = float(open('%s/hup-%s.time' % (w, e)).read())
    before = int(open('%s/hup-%s.count' % (w, e)).read())
    n, start, end, used = 0, None, None, '?'
    for line in open('%s/opensm-%s.log' % (w, e), errors='replace'):
        if 'tables configured on all switches' in line:
            n += 1
            if n == before + 1:
                end = osm_t(line)
                used = re.search(r'(\S+) tables configured', line).group(1)
                break
        if n == before and start is None and 'building routing with' in line and osm_t(line) >= hup - 0.5:
            start = osm_t(line)
    print('%s (OpenSM after SIGHUP, routed by %s):' % (e, used))
    print('  route   building routing -> tables configured %s s' % f(end, start))
    print('  SIGHUP -> tables configured                   %s s' % f(end, hup))
    if end and start and loom_route:
        print('  ratio loom route / %s route           %.3f' % (e, loom_route / (end - start)))
    if end and loom_e2e:
        print('  ratio loom read->tables / %s SIGHUP->tables %.3f' % (e, loom_e2e / (end - hup)))
EOF
echo "after the isolation, in the switches' tables (ibroute):"
sed 's/^/  /' "$work/uses.txt"
