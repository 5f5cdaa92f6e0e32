#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/routing.sh: loom's routing against OpenSM's own engines, in one run,
# on the same simulated fabrics. For every fabric and engine: a fresh ibsim,
# one OpenSM sweep with that `routing_engine` (loom's through libloomosm),
# then the tables the switches hold are read back with dump_fts and judged
# by the same metrics (loomctl route compute --lfts). Routing time is
# OpenSM's own: from "building routing with" to "tables configured on all
# switches" in its log. The engine column says which engine really routed
# (OpenSM falls back to minhop when an engine refuses a fabric).
#
#   sh bench/routing.sh [--quick] [--large] [--keep]
#   sh bench/routing.sh --huge [--keep]
#     --quick  small fabrics (a smoke run, a minute)
#     --large  add the 11664-host 3-level tree (minutes per engine)
#     --huge   offline only (no ibsim, no OpenSM: they cannot hold these):
#              full 3-level trees of 1024 to 45056 hosts and the 27648-host
#              tree with 300 cuts, `loomctl --json route compute` with 1 and
#              2 threads (engine loom; default shift sampling, --random 8
#              --bisections 8): engine time, metrics time, peak RSS, worst
#              shift, EBB; --reroute-cut 1 on the full 11664 and 27648-host
#              trees (incremental reroute against a full run); then the
#              scaling curve. Each run is bounded by $HUGE_TIMEOUT seconds
#              (default 900); a run stopped there is reported as such.
#              HUGE_UPTO=N, HUGE_FROM=N: only the trees of at most, at
#              least N hosts. The largest tree is not the 65536-host
#              3-level tree of 64-port switches: its 65536 + 5120 LIDs do
#              not fit a subnet's 49151 unicast LIDs (loom-fabgen refuses
#              it). It is that tree's 44 full pods of 64 (45056 hosts,
#              3840 switches, 48896 LIDs).
#              The machine's load average is printed first and last: with
#              the cores shared, compare the 1- and 2-thread rows of one run.
#     --keep   keep the work directory (logs, dumps) and print its path
#
# Needs root (a network namespace per run: ibsim's socket is fixed), ibsim,
# opensm, infiniband-diags, python3, and a build (top_builddir or ./build).
# --huge needs only python3, GNU time (/usr/bin/time) and timeout.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
PLUGIN_DIR=${LOOM_OSM_PLUGIN_DIR:-$B/plugins/opensm/.libs}
quick=0 large=0 keep=0 huge=0
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	--large) large=1 ;;
	--huge) huge=1 ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/routing.sh [--quick] [--large] [--huge] [--keep]" >&2; exit 2 ;;
	esac
done
[ $huge = 0 ] || [ $((quick + large)) = 0 ] || {
	echo "bench/routing.sh: --huge runs offline alone (no --quick, no --large)" >&2; exit 2
}

# --huge: one offline run, bounded and measured. Writes $1.json (loomctl's
# answer), $1.err and $1.time (GNU time -v: wall clock, peak RSS), and
# $1.rc (124: stopped by the timeout).
huge_run() { # huge_run PREFIX NET THREADS [LOOMCTL ARGS...]
	pre=$1 net=$2 thr=$3
	shift 3
	rc=0
	/usr/bin/time -v -o "$pre.time" timeout "${HUGE_TIMEOUT:-900}" \
		"$B/loomctl" --json route compute --topology "$net" --engine loom \
		--threads "$thr" "$@" >"$pre.json" 2>"$pre.err" </dev/null || rc=$?
	echo $rc >"$pre.rc"
}

huge() {
	for t in python3 timeout; do
		command -v $t >/dev/null || { echo "bench/routing.sh: $t is missing" >&2; exit 1; }
	done
	[ -x /usr/bin/time ] || { echo "bench/routing.sh: /usr/bin/time (GNU time) is missing" >&2; exit 1; }
	work=$(mktemp -d /tmp/loom-bench-huge.XXXXXX)
	[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT
	echo "load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
	# Smallest first: the largest may be stopped by the timeout.
	while read -r name args; do
		hosts=${name#ft3-}
		[ "${hosts%%-*}" -le "${HUGE_UPTO:-65536}" ] &&
			[ "${hosts%%-*}" -ge "${HUGE_FROM:-0}" ] || continue
		# shellcheck disable=SC2086
		"$B/loom-fabgen" $args -o "$work/$name.net"
		for thr in 1 2; do
			huge_run "$work/$name-t$thr" "$work/$name.net" $thr --random 8 --bisections 8
			huge_line "$work/$name-t$thr" "$name" run
		done
		case $name in ft3-11664|ft3-27648)
			for thr in 1 2; do
				huge_run "$work/$name-cut1-t$thr" "$work/$name.net" $thr --reroute-cut 1 \
					--seed 7 --shifts 1 --random 0 --bisections 0
				huge_line "$work/$name-cut1-t$thr" "$name" reroute
			done ;;
		esac
	done <<-EOF
	ft3-1024 fattree --levels 3 --radix 16
	ft3-3456 fattree --levels 3 --radix 24
	ft3-11664 fattree --levels 3 --radix 36
	ft3-27648 fattree --levels 3 --radix 48
	ft3-27648-cut300 fattree --levels 3 --radix 48 --cut 300 --seed 7
	ft3-45056-r64 fattree --levels 3 --radix 64 --hosts 45056
	EOF
	python3 - "$work" <<-'EOF'
	import json, sys
	rows = [json.loads(l) for l in open(sys.argv[1] + '/lines.json')]
	print()
	print('table: fabric  hosts  threads  graph-s  engine-s  metrics-s  wall-s  cpu-s'
	      '  peak-RSS-MB  shift-worst (of shifts)  ebb')
	print('(cpu-s: user + system time of the whole run; near wall-s with 2 threads:'
	      ' the second core was not had)')
	for r in rows:
	    if r['kind'] == 'run':
	        print('  '.join(str(x) for x in (r['fabric'], r['hosts'], r['threads'], r['graph_s'],
	              r['route_s'], r['metrics_s'], r['wall_s'], r['cpu_s'], r['rss_mb'], r['shifts'],
	              r['ebb'],
	              r['status'])))
	print()
	print('reroute after one cut (--reroute-cut 1 --seed 7): fabric  threads  destinations'
	      '  entries  reroute-s  full-run-s  ratio')
	for r in rows:
	    if r['kind'] == 'reroute':
	        print('  '.join(str(x) for x in (r['fabric'], r['threads'], r['dests'], r['entries'],
	              r['reroute_s'], r['full_s'], r['ratio'], r['status'])))
	print()
	print('scaling (full trees): threads  hosts  engine-s  x-hosts  x-engine  peak-RSS-MB'
	      '  x-RSS  metrics-s')
	for thr in (1, 2):
	    prev = None
	    for r in rows:
	        if r['kind'] != 'run' or r['threads'] != thr or 'cut' in r['fabric'] or r['status']:
	            continue
	        x = lambda a, b: '%.2f' % (a / b) if prev and b else '-'
	        print('  '.join(str(v) for v in (thr, r['hosts'], r['route_s'],
	              x(r['hosts'], prev and prev['hosts']), x(float(r['route_s']), prev and float(prev['route_s'])),
	              r['rss_mb'], x(r['rss_mb'], prev and prev['rss_mb']), r['metrics_s'])))
	        prev = r
	print()
	print('2 threads against 1 (same run): fabric  engine-x  metrics-x')
	by = {(r['fabric'], r['threads']): r for r in rows if r['kind'] == 'run' and not r['status']}
	for (f, t), r in by.items():
	    if t == 2 and (f, 1) in by:
	        o = by[(f, 1)]
	        print('%s  %.2f  %.2f' % (f, float(r['route_s']) / float(o['route_s']),
	              float(r['metrics_s']) / float(o['metrics_s'])))
	EOF
	echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
	[ $keep = 0 ] || echo "kept: $work"
}

# --huge: the line of one run, as it comes (progress), and kept as JSON
# in $work/lines.json for the tables at the end.
huge_line() { # huge_line PREFIX FABRIC run|reroute
	python3 - "$@" "$work/lines.json" <<-'EOF'
	import json, re, sys
	pre, fabric, kind, out = sys.argv[1:5]
	hosts = int(re.match(r'ft3-(\d+)', fabric).group(1))
	rc = int(open(pre + '.rc').read())
	t = open(pre + '.time').read()
	wall = re.search(r'Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (\S+)', t)
	wall_s = 0.0
	if wall:
	    for part in wall.group(1).split(':'):
	        wall_s = wall_s * 60 + float(part)
	rss = re.search(r'Maximum resident set size \(kbytes\): (\d+)', t)
	cpu = sum(float(x) for x in re.findall(r'(?:User|System) time \(seconds\): (\S+)', t))
	r = {'fabric': fabric, 'hosts': hosts, 'kind': kind, 'wall_s': '%.1f' % wall_s,
	     'cpu_s': '%.2f' % cpu,
	     'rss_mb': round(int(rss.group(1)) / 1024) if rss else 0, 'status': ''}
	r['threads'] = int(re.search(r'-t(\d+)$', pre).group(1))
	if rc == 124:
	    r['status'] = 'STOPPED by the timeout after %.0f s' % wall_s
	elif rc != 0:
	    r['status'] = 'FAILED (rc %d): %s' % (rc, open(pre + '.err').read().strip()[:80])
	j = {}
	if not r['status']:
	    j = json.load(open(pre + '.json'))
	    r['threads'] = j['threads']
	m = j.get('metrics', {})
	f = lambda k: '%.3f' % j[k] if k in j else '-'
	r.update(graph_s=f('graph_s'), route_s=f('route_s'), metrics_s=f('metrics_s'),
	         ebb='%.3f' % m['ebb'] if 'ebb' in m else '-',
	         shifts='%s (of %s%s)' % (m['shift_max_load'], m['shifts'],
	                 ' sampled from %d' % m['shifts_total'] if m['shifts_sampled'] else '')
	         if m else '-')
	if kind == 'reroute' and j:
	    rr = j['reroute']
	    r.update(dests=rr['destinations'], entries=rr['entries'],
	             reroute_s='%.3f' % rr['reroute_s'], full_s='%.3f' % rr['full_s'],
	             ratio='%.3f' % (rr['reroute_s'] / rr['full_s']) if rr['full_s'] else '-')
	    if not rr['incremental']:
	        r['status'] = 'not incremental: ' + str(rr['why'])
	elif kind == 'reroute':
	    r.update(dests='-', entries='-', reroute_s='-', full_s='-', ratio='-')
	open(out, 'a').write(json.dumps(r) + '\n')
	print(' '.join('%s=%s' % kv for kv in r.items()), flush=True)
	EOF
}

if [ $huge = 1 ]; then
	huge
	exit 0
fi
[ "$(id -u)" = 0 ] || { echo "bench/routing.sh: needs root (network namespaces)" >&2; exit 1; }
for t in ibsim opensm ibnetdiscover dump_fts unshare python3; do
	command -v $t >/dev/null || { echo "bench/routing.sh: $t is missing" >&2; exit 1; }
done
engines="minhop updn ftree dfsssp loom"
[ -e "$PLUGIN_DIR/libloomosm.so" ] || {
	echo "bench/routing.sh: no $PLUGIN_DIR/libloomosm.so: OpenSM's engines only" >&2
	engines="minhop updn ftree dfsssp"
}
work=$(mktemp -d /tmp/loom-bench-routing.XXXXXX)
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT

# One routing run inside a private network namespace: ibsim, OpenSM once,
# then what the switches hold. Writes $dir/{opensm.log,topo.ibnd,lfts.fts}.
run_one() { # run_one DIR NETFILE IBSIM_FLAGS ENGINE
	# qos TRUE: OpenSM programs SL2VL maps only then (dfsssp's and loom's VLs).
	printf 'routing_engine %s\nlog_flags 0x07\nqos TRUE\n' "$4" >"$1/opensm.conf"
	case $4 in loom*) echo "event_plugin_name loomosm" >>"$1/opensm.conf" ;; esac
	BENCH_SIM=$S/bench/bench_sim.sh LD_LIBRARY_PATH=$PLUGIN_DIR unshare -n sh -c '
		dir=$1 net=$2 flags=$3 preload=$4
		. "$BENCH_SIM"
		ip link set lo up
		cd "$dir"
		bench_sim_start "$net" $flags
		OSM_CACHE_DIR=$dir LD_PRELOAD=$preload opensm -F opensm.conf -o -f opensm.log \
			>opensm.out 2>&1 || :
		LD_PRELOAD=$preload ibnetdiscover >topo.ibnd 2>/dev/null || :
		LD_PRELOAD=$preload dump_fts >lfts.fts 2>/dev/null || :
		bench_sim_stop
	' sh "$1" "$2" "$3" "$PRELOAD"
}

# The line of the table for one run.
report() { # report DIR FABRIC ENGINE
	"$B/loomctl" --json route compute --topology "$1/topo.ibnd" --lfts "$1/lfts.fts" \
		--shifts 0 --random 20000 >"$1/metrics.json" 2>"$1/metrics.err" || :
	# Tables read back carry no SLs: for loom, route the same capture
	# offline (same engine, same LIDs) to get them, and check that the
	# tables are the ones the switches hold.
	case $3 in loom*)
		"$B/loomctl" --json route compute --topology "$1/topo.ibnd" \
			--engine "$(echo "$3" | sed 's/^loom-//')" --dump "$1/offline.fts" \
			--shifts 1 --random 0 >"$1/offline.json" 2>"$1/metrics.err" || : ;;
	esac
	python3 - "$1" "$2" "$3" "$S/bench" <<'EOF'
import json, re, sys
d, fabric, engine = sys.argv[1:4]
sys.path.insert(0, sys.argv[4])
from osm_log import routing_step
start, end, used = routing_step(d + '/opensm.log')
secs = '%.3f' % (end - start) if start is not None and end is not None else 'n/a'
try:
    j = json.load(open(d + '/metrics.json'))
    m = j['metrics']
    cdg = m.get('cdg_acyclic')
    if m.get('cdg_vls', 1) > 1 or engine in ('dfsssp',) or used in ('dfsssp',):
        cdg = None  # SLs not known from a dump
    if engine.startswith('loom'):
        def entries(path):
            t, sw = set(), None
            for line in open(path):
                if line.startswith('Unicast lids'):
                    sw = re.search(r'guid (0x[0-9a-f]+)', line).group(1)
                elif line.startswith('0x') and sw:
                    f = line.split()
                    t.add((sw, int(f[0], 16), int(f[1])))
            return t
        off = json.load(open(d + '/offline.json'))
        # dump_fts (infiniband-diags 44) stops one LID short of the
        # switch's LinearFDBTop when that is a multiple of 64: the top LID
        # is missing from every dump, for every engine alike.
        top = max(l for _, l, _ in entries(d + '/offline.fts'))
        skip = (lambda e: e[1] != top) if top % 64 == 0 else (lambda e: True)
        same = set(filter(skip, entries(d + '/offline.fts'))) == \
            set(filter(skip, entries(d + '/lfts.fts')))
        cdg = off['metrics']['cdg_acyclic'] if same else None
        used = '%s:%dVL%s' % (used, off['vls'], '' if same else ' (offline tables differ!)')
    row = [fabric, engine, used, secs,
           '%d/%d' % (m['delivered'], m['pairs']), str(m['loops']),
           str(m['efi_max']), str(m['shift_max_load']),
           '%d/%.3f+-%.3f' % (m['random_max_load'], m.get('random_mean_load', 0),
                              m.get('random_mean_se', 0)),
           '%.3f' % m['ebb'] if 'ebb' in m else 'n/a',
           'n/a' if cdg is None else ('yes' if cdg else 'NO')]
except Exception as e:
    row = [fabric, engine, used, secs, 'no tables: ' + open(d + '/metrics.err').read().strip()[:60]]
print('  '.join(row))
EOF
}

fabrics() {
	if [ $quick = 1 ]; then
		echo "ft2 fattree --levels 2 --radix 8"
		echo "ft2-cut fattree --levels 2 --radix 8 --cut 4 --seed 3"
		echo "ft3-cut fattree --levels 3 --radix 8 --cut 8 --seed 3"
		echo "torus-4x4 torus --dims 4,4 --hosts-per-switch 2"
		return
	fi
	echo "ft2-1152 fattree --levels 2 --radix 48"
	echo "ft2-1152-cut32 fattree --levels 2 --radix 48 --cut 32 --seed 7"
	echo "ft3-1024 fattree --levels 3 --radix 16"
	echo "ft2-1152-cut300 fattree --levels 2 --radix 48 --cut 300 --seed 7"
	echo "ft3-1024-cut48 fattree --levels 3 --radix 16 --cut 48 --seed 7"
	echo "ft3-1024-cut200 fattree --levels 3 --radix 16 --cut 200 --seed 7"
	echo "torus-16x16 torus --dims 16,16 --hosts-per-switch 4"
	echo "dragonfly-1056 dragonfly --groups 33 --routers 8 --hosts-per-router 4 --global 4"
	[ $large = 0 ] || echo "ft3-11664 fattree --levels 3 --radix 36"
}

echo "fabric  engine  routed-by  route-s  pairs-delivered  loops  efi-max  shift-worst  random-worst(max/mean+-se)  ebb  cdg-acyclic"
echo "(random-worst: over 20000 seeded permutations, the same for every engine: the most"
echo " flows on one link in any of them, and the mean of each one's worst link with its"
echo " standard error)"
echo "(cdg-acyclic: from the tables read back on VL 0; for loom with its SLs, from the same"
echo " engine run offline on the same capture, whose tables must equal those read back;"
echo " dump_fts of infiniband-diags 44 skips a switch's top LID when it is a multiple of 64,"
echo " so on such fabrics one CA's pairs show as undelivered for every engine alike)"
fabrics | while read -r name args; do
	# shellcheck disable=SC2086
	"$B/loom-fabgen" $args -o "$work/$name.net"
	flags=$(sed -n 's/^# ibsim flags: //p' "$work/$name.net")
	for engine in $engines; do
		dir=$work/$name-$engine
		mkdir -p "$dir"
		run_one "$dir" "$work/$name.net" "$flags" "$engine"
		report "$dir" "$name" "$engine"
	done
done
[ $keep = 0 ] || echo "kept: $work"
