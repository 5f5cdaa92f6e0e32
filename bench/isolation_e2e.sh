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
#   read      the counters read that saw the errors: the set (this script's
#             clock) to its end ("counters of N ports read"); bounded by
#             telemetry.interval_s plus a read: reported apart
#   decide    that read's end to loomd's "isolated set (version N, ...)
#             written; asked libloomosm.so": the evaluation on loomd's
#             worker (window, rules, the routes' loss: its steps from
#             loomd's log), the store, the file
#   osm       the decision to OpenSM's run: the request, "building routing
#             with", "tables configured on all switches" (OpenSM logs it
#             when the LFT blocks are queued, not answered), and the end
#             of its wait for every block: "REROUTE COMPLETE" (the
#             plugin's request is OpenSM's force_reroute, which sends every
#             block of every switch) -- the time the switches hold the new
#             tables, issue 42's "< 2 s" from the read
#   report    loomd's "OpenSM routed with the isolated set version N"
# Then the same by a heavy sweep (loomd stopped; this script writes the
# isolated set with one more cable and signals OpenSM: discovery, loom's
# engine, the changed blocks only, "SWITCHES CONFIGURED FOR UNICAST");
# and OpenSM's own engines after SIGHUP, timed to the same box, with the
# ratios. ibroute then counts the entries still leaving by each cable.
#
#   sh bench/isolation_e2e.sh [--hosts N] [--interval S] [--first-sweep] [--keep]
#     --hosts N     hosts of the 3-level radix-36 tree (default 11664;
#                   1296 is a quick run)
#     --interval S  telemetry.interval_s (default 5)
#     --first-sweep no heavy sweep (SIGHUP) before the errors: OpenSM as
#                   just after its first sweep, when a reroute sends every
#                   LFT block (see below)
#   (ISO_E2E_ENGINES="ftree" compares with ftree alone; "" with none)
#
# Needs root (a network namespace: ibsim's socket is fixed), ibsim, opensm,
# infiniband-diags (ibroute, ibnetdiscover), python3, a build with the
# OpenSM plugin (top_builddir or ./build). Not part of make check.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
hosts=11664 interval=5 first_sweep=0
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--interval) interval=$2; shift ;;
	--keep) LOOM_KEEP=1; export LOOM_KEEP ;;
	--first-sweep) first_sweep=1 ;;
	*) echo "usage: sh bench/isolation_e2e.sh [--hosts N] [--interval S] [--first-sweep] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
loom_need_osm_plugin
loom_work
loom_need ibroute python3
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
two_reads() { [ "$(grep -c "counters of [1-9][0-9]* ports read" "$work/loomd.log")" -ge $(($1 + 2)) ]; }
loom_until 3000 two_reads 0 || loom_fail "no two counters reads"
# OpenSM marks every switch it found in its first heavy sweep "to update in
# full" (p_sw->need_update 2) until a later heavy sweep: a reroute before
# that sends every LFT block of every switch, after it only the blocks that
# changed. One SIGHUP first makes the fabric the steady state of a running
# OpenSM; --first-sweep leaves it as just after OpenSM started.
more() { [ "$(grep -c "$1" "$work/opensm.log")" -gt "$2" ]; }
if [ "$first_sweep" = 0 ]; then
	n=$(grep -c "SWITCHES CONFIGURED FOR UNICAST" "$work/opensm.log")
	kill -HUP "$osm_pid"
	loom_until 1200 more "SWITCHES CONFIGURED FOR UNICAST" "$n" || loom_osm_fail "no heavy sweep after SIGHUP"
	r=$(grep -c "counters of [1-9][0-9]* ports read" "$work/loomd.log")
	loom_until 3000 two_reads "$r" || loom_fail "no two counters reads after the heavy sweep"
	echo "OpenSM swept again (SIGHUP): a reroute sends the changed LFT blocks only"
else
	echo "OpenSM after its first heavy sweep only: a reroute sends every LFT block"
fi
date +%s.%N >"$work/set.time"
loom_ibsim_cmd "PerformanceSet \"pod0-leaf-0\"[$cable] PortCounters.SymbolErrorCounter=200"
loom_until 600 grep -q "OpenSM routed with the isolated set version" "$work/loomd.log" ||
	loom_osm_fail "OpenSM did not route with the isolated set"
# The switches hold the new tables once OpenSM's reroute has waited for
# every LFT block it sent ("REROUTE COMPLETE"; its "tables configured on
# all switches" comes when the blocks are queued, not answered).
loom_until 1200 more "REROUTE COMPLETE" 0 || loom_osm_fail "no REROUTE COMPLETE after the isolation"
loom_ctl --json events --kind link_isolated >"$work/isolated.json"
kill "$LOOMD_PID" 2>/dev/null || :
wait "$LOOMD_PID" 2>/dev/null || :
loom_ibnetdiscover >"$work/ibnd.txt"
# ends LEAF PORT: both ends of a leaf's cable, "GUID LID PORT NAME" each.
ends() {
	python3 - "$work/ibnd.txt" "$1" "$2" <<'EOF2' || loom_fail "$1[$2] not in ibnetdiscover's output"
import re, sys
leaf, port, sw, lid, out = sys.argv[2], int(sys.argv[3]), None, {}, []
for line in open(sys.argv[1]):
    m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"\s+# "([^"]*)".* lid (\d+)', line)
    if m:
        sw = m.group(2)
        lid[sw] = (m.group(1), m.group(3))
        continue
    m = re.match(r'^\[(\d+)\]\s+"S-([0-9a-f]+)"\[(\d+)\]\s+# "([^"]*)"', line)
    if m and sw == leaf and int(m.group(1)) == port:
        out = [(sw, port), (m.group(4), int(m.group(3)))]
for name, p in out:
    print('0x' + lid[name][0], lid[name][1], p, name)
sys.exit(0 if len(out) == 2 and all(n in lid for n, _ in out) else 1)
EOF2
}
# uses FILE: for each end in FILE, the entries of its switch's table (read
# with ibroute: dump_fts of the whole tree writes 1.5 GB) that leave by it.
uses() {
	while read -r guid lid port name; do
		LD_PRELOAD=$PRELOAD ibroute "$lid" </dev/null >"$work/lft-$lid.txt" 2>/dev/null || :
		echo "${name}[$port]: $(python3 "$S/tests/integration/lft_use.py" use "$work/lft-$lid.txt" \
			"$guid" "$port" </dev/null) LFT entries leave by it ($(grep -c '^0x' "$work/lft-$lid.txt") read)"
	done <"$1"
}
ends pod0-leaf-0 "$cable" >"$work/ends.txt"
uses "$work/ends.txt" >"$work/uses.txt"

# ---- the same with a heavy sweep: a second cable, loomd stopped ------------------
# What OpenSM's force_reroute costs is its full reprogramming (it sends every
# LFT block of every switch); a heavy sweep sends the blocks that changed
# only. This script writes the isolated set itself (version 2: one more
# cable, pod1-leaf-0's first uplink) and signals OpenSM: discovery, loom's
# engine with both cables left out, the changed blocks.
cable2=$(awk '/^Switch .*"pod1-leaf-0"/ { on = 1; next } on && /^$/ { exit }
	on && !/"host-/ { sub(/^\[/, ""); sub(/\].*/, ""); print; exit }' "$work/ft3.net")
ends pod1-leaf-0 "$cable2" >"$work/ends2.txt"
{
	printf '# written by bench/isolation_e2e.sh\nversion 2\n'
	read -r guid lid port name <"$work/ends.txt"
	echo "$guid $port"
	read -r guid lid port name <"$work/ends2.txt"
	echo "$guid $port"
} >"$work/isolated-links.new"
mv "$work/isolated-links.new" "$work/isolated-links"
n=$(grep -c "SWITCHES CONFIGURED FOR UNICAST" "$work/opensm.log")
date +%s.%N >"$work/hup-loom.time"
kill -HUP "$osm_pid"
loom_until 1200 more "SWITCHES CONFIGURED FOR UNICAST" "$n" || loom_osm_fail "loom: no tables after SIGHUP"
echo "$n" >"$work/hup-loom.count"
uses "$work/ends2.txt" >"$work/uses2.txt"
kill "$osm_pid" 2>/dev/null || :
wait "$osm_pid" 2>/dev/null || :
cp "$work/opensm.log" "$work/opensm-loom.log"

# ---- OpenSM's own full reroute, same simulator ----------------------------------
for e in $engines; do
	printf 'routing_engine %s\nforce_log_flush TRUE\nlog_flags 0x07\n' "$e" >"$work/opensm.conf"
	rm -f "$work/opensm.log"
	t0=$(date +%s)
	loom_opensm_bg
	echo "OpenSM ($e) SUBNET UP in $(($(date +%s) - t0)) s"
	sleep 3  # the first sweeps settle
	n=$(grep -c "SWITCHES CONFIGURED FOR UNICAST" "$work/opensm.log")
	date +%s.%N >"$work/hup-$e.time"
	kill -HUP "$OSM_PID"
	loom_until 3000 more "SWITCHES CONFIGURED FOR UNICAST" "$n" || loom_osm_fail "$e: no tables after SIGHUP"
	echo "$n" >"$work/hup-$e.count"
	kill "$OSM_PID" 2>/dev/null || :
	wait "$OSM_PID" 2>/dev/null || :
	cp "$work/opensm.log" "$work/opensm-$e.log"
done

python3 - "$work" "$engines" <<'EOF'
import datetime, json, re, sys
w, engines = sys.argv[1], sys.argv[2].split()
year = datetime.date.today().year

def osm_t(line):
    m = re.match(r'(\w+ +\d+ [\d:]+) (\d+)', line)
    if not m:
        return None
    t = datetime.datetime.strptime('%d %s' % (year, m.group(1)), '%Y %b %d %H:%M:%S')
    return t.timestamp() + int(m.group(2)) / 1e6

def loom_t(line):
    m = re.match(r'(\d{4}-\d\d-\d\dT[\d:]+\.\d{3}) ', line)
    return datetime.datetime.strptime(m.group(1), '%Y-%m-%dT%H:%M:%S.%f').timestamp() if m else None

def f(a, b):
    return '%.3f' % (a - b) if a is not None and b is not None else 'n/a'

def osm_run(path, after, end_box):
    """From OpenSM's log, the first run after time `after`: its 'building
    routing with', 'tables configured on all switches' and the box end_box
    (timed by the do_sweep line before it), and the engine that routed."""
    last = build = queued = done = None
    used, note = '?', ''
    for line in open(path, errors='replace'):
        t = osm_t(line)
        if t is not None:
            last = t
        if last is None or last < after:
            continue
        if build is None and 'building routing with' in line:
            build = t
        m = re.search(r'(\S+) tables configured on all switches', line)
        if build is not None and queued is None and m:
            queued, used = t, m.group(1)
        m = re.search(r'loom engine loom routed .*', line)
        if build is not None and m and not note:
            note = m.group(0)[:150]
        if queued is not None and end_box in line:
            done = last
            break
    return build, queued, done, used, note

set_t = float(open(w + '/set.time').read())
read_t = decide_t = report_t = blocks_t = None
decide_line = report_line = blocks_line = ''
steps = []  # the decision's steps, loomd's lines
for line in open(w + '/loomd.log', errors='replace'):
    t = loom_t(line)
    if t is None:
        continue
    if decide_t is None and re.search(r'counters of [1-9]\d* ports read', line) and t > set_t:
        read_t = t  # the last read that ended before the decision
    if read_t is not None and decide_t is None and (
            'isolation: the routes now' in line or 'the routes without it judged' in line):
        steps.append(line.strip().split(': ', 1)[1][:150])
    if decide_t is None and 'isolated set (version' in line and 'written' in line:
        decide_t, decide_line = t, line.strip()
    if decide_t is not None and report_t is None and 'OpenSM routed with the isolated set version' in line:
        report_t, report_line = t, line.strip()
    if report_t is not None and blocks_t is None and 'forwarding tables changed on' in line:
        blocks_t, blocks_line = t, line.strip()
asked_t = None
for line in open(w + '/opensm-loom.log', errors='replace'):
    if 'reroute asked by loomd' in line:
        asked_t = osm_t(line)
        break
build_t, queued_t, done_t, _, routed = osm_run(w + '/opensm-loom.log', asked_t or 0, 'REROUTE COMPLETE')
ev = json.load(open(w + '/isolated.json'))
ev_t = ev[0]['ts'] if ev else None

print('loom: loomd isolation on, libloomosm asked to reroute (OpenSM force_reroute):')
print('  read    set -> end of the read that saw it       %s s (telemetry interval + read)' % f(read_t, set_t))
print('  decide  read -> isolated set written             %s s' % f(decide_t, read_t))
print('          read -> link_isolated event time         %s s (the evaluation\'s start)' % f(ev_t, read_t))
for x in steps:
    print('          ' + x)
print('  osm     decision -> OpenSM asked                 %s s' % f(asked_t, decide_t))
print('          asked -> building routing                %s s' % f(build_t, asked_t))
print('          building routing -> tables queued        %s s ("tables configured on all switches")' % f(queued_t, build_t))
print('          tables queued -> REROUTE COMPLETE        %s s (every LFT block of every switch sent and answered)' % f(done_t, queued_t))
print('  report  read -> loomd hears the run              %s s' % f(report_t, read_t))
print('  read -> tables computed and queued               %s s' % f(queued_t, read_t))
print('  read -> new tables on every switch               %s s   (goal < 2 s)' % f(done_t, read_t))
print('  set -> new tables on every switch                %s s' % f(done_t, set_t))
for x in [y for y in (decide_line, report_line, blocks_line) if y] + ['OpenSM: ' + routed]:
    print('  ' + x[:220])
hup = float(open(w + '/hup-loom.time').read())
hb, hq, hd, _, hnote = osm_run(w + '/opensm-loom.log', hup - 0.5, 'SWITCHES CONFIGURED FOR UNICAST')
print('loom, the same by a heavy sweep (a second cable; SIGHUP; the changed blocks only):')
print('  SIGHUP -> building routing                       %s s (OpenSM\'s discovery)' % f(hb, hup))
print('  building routing -> tables queued                %s s' % f(hq, hb))
print('  tables queued -> SWITCHES CONFIGURED FOR UNICAST %s s' % f(hd, hq))
print('  SIGHUP -> new tables on every switch             %s s' % f(hd, hup))
print('  OpenSM: ' + hnote)
loom_route = queued_t - build_t if queued_t and build_t else None
loom_hup = hd - hup if hd else None
for e in engines:
    hup = float(open('%s/hup-%s.time' % (w, e)).read())
    b, q, d, used, _ = osm_run('%s/opensm-%s.log' % (w, e), hup - 0.5, 'SWITCHES CONFIGURED FOR UNICAST')
    print('%s (OpenSM\'s own full reroute: SIGHUP, a heavy sweep; routed by %s):' % (e, used))
    print('  SIGHUP -> building routing                       %s s' % f(b, hup))
    print('  building routing -> tables queued                %s s' % f(q, b))
    print('  tables queued -> SWITCHES CONFIGURED FOR UNICAST %s s' % f(d, q))
    print('  SIGHUP -> new tables on every switch             %s s' % f(d, hup))
    if q and b and loom_route:
        print('  ratio loom routing / %s routing            %.3f' % (e, loom_route / (q - b)))
    if d and loom_hup:
        print('  ratio loom heavy sweep / %s heavy sweep    %.3f' % (e, loom_hup / (d - hup)))
    if d and done_t and read_t:
        print('  ratio loom read->tables / %s SIGHUP->tables %.3f' % (e, (done_t - read_t) / (d - hup)))
EOF
echo "after the isolation, in the switches' tables (ibroute):"
sed 's/^/  /' "$work/uses.txt" "$work/uses2.txt"
