#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/reroute_osm.sh: from a cable cut to new tables on every switch, in
# ibsim with OpenSM, for loom's engine (libloomosm: incremental reroute,
# lib/route/route_reroute.c) against OpenSM's own ftree and minhop, in one
# run on the same generated fat tree. For every engine: a fresh ibsim,
# OpenSM as master (no -o, sweep_interval 2) until its first SUBNET UP,
# then one switch cable cut from ibsim's console (the first uplink of the
# first leaf, "Unlink"), and OpenSM's log read until the next "tables
# configured on all switches". Reported, from OpenSM's log (log_flags 0x07):
#   route-s  the first "building routing with" (ftree may refuse the cut
#            tree and OpenSM then tries minhop) to "tables configured on all
#            switches" of the sweep after the cut
#   cut-s    from the Unlink (the clock of this script) to that same line:
#            includes finding the cut (trap or periodic sweep)
#   routed-by  the engine that really routed (OpenSM falls back to minhop
#            when ftree refuses a cut tree); for loom, how many destinations
#            it rerouted ("loom engine loom routed ... rerouted N destinations")
#
#   sh bench/reroute_osm.sh [--hosts 1024|3456|11664] [--isolate] [--keep]
#   (REROUTE_ENGINES="loom" runs only those engines)
#
# --isolate (issue 42): loom's engines get the same link isolated instead
# of cut: its leaf end written to the isolated links file
# ($LOOMOSM_ISOLATED) and a `reroute` request sent from the report socket,
# as loomd does (tests/integration/osm_standin.py plays loomd); the link
# stays up. cut-s then runs from the file's write to the tables on every
# switch. OpenSM's own engines still get the cut: their full reroute is
# the ratio's other side.
#
# Needs root (a network namespace per run: ibsim's socket is fixed), ibsim,
# opensm, python3, a build with the OpenSM plugin (top_builddir or ./build).
# Each engine's run is bounded by $REROUTE_TIMEOUT seconds (default 600).
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
PLUGIN_DIR=${LOOM_OSM_PLUGIN_DIR:-$B/plugins/opensm/.libs}
hosts=3456 keep=0 isolate=0
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=${2:-}; shift ;;
	--keep) keep=1 ;;
	--isolate) isolate=1 ;;
	*) echo "usage: sh bench/reroute_osm.sh [--hosts 1024|3456|11664] [--isolate] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
case $hosts in
1024) radix=16 ;;
3456) radix=24 ;;
11664) radix=36 ;;
*) echo "bench/reroute_osm.sh: --hosts 1024, 3456 or 11664" >&2; exit 2 ;;
esac
[ "$(id -u)" = 0 ] || { echo "bench/reroute_osm.sh: needs root (network namespaces)" >&2; exit 1; }
for t in ibsim opensm unshare python3 timeout; do
	command -v $t >/dev/null || { echo "bench/reroute_osm.sh: $t is missing" >&2; exit 1; }
done
[ -e "$PLUGIN_DIR/libloomosm.so" ] || { echo "bench/reroute_osm.sh: no $PLUGIN_DIR/libloomosm.so" >&2; exit 1; }
work=$(mktemp -d /tmp/loom-bench-reroute.XXXXXX)
[ $keep = 1 ] || trap 'rm -rf "$work"' EXIT

net=$work/ft3-$hosts.net
"$B/loom-fabgen" fattree --levels 3 --radix $radix -o "$net"
flags=$(sed -n 's/^# ibsim flags: //p' "$net")
# The first uplink of the first leaf: the first switch-to-switch line of
# the first leaf's block.
cut=$(awk '/^Switch .*"pod0-leaf-0"/ { on = 1; next } on && /^$/ { exit }
	on && !/"host-/ { sub(/^\[/, ""); sub(/\].*/, ""); print "\"pod0-leaf-0\"[" $0 "]"; exit }' "$net")

# One engine: ibsim, OpenSM until SUBNET UP, the cut (or the isolation),
# the next tables.
run_one() { # run_one DIR ENGINE
	how="cut"
	case $isolate.$2 in 1.loom*) how=isolate ;; esac
	{
		printf 'routing_engine %s\nlog_flags 0x07\nforce_log_flush TRUE\n' "$2"
		printf 'sweep_interval 2\n'
		case $2 in loom*) echo "event_plugin_name loomosm" ;; esac
	} >"$1/opensm.conf"
	BENCH_SIM=$S/bench/bench_sim.sh LD_LIBRARY_PATH=$PLUGIN_DIR LOOMOSM_SOCKET=$1/osm.sock \
		LOOMOSM_ISOLATED=$1/isolated-links STANDIN=$S/tests/integration/osm_standin.py \
		timeout "${REROUTE_TIMEOUT:-600}" unshare -n sh -c '
		dir=$1 net=$2 flags=$3 preload=$4 cut=$5 how=$6
		. "$BENCH_SIM"
		ip link set lo up
		cd "$dir"
		bench_sim_start "$net" $flags
		if [ "$how" = isolate ]; then
			# loomd (its end of the report socket) sends the request.
			python3 "$STANDIN" "$dir/osm.sock" "$dir" >standin.out 2>&1 &
			standin=$!
		fi
		OSM_CACHE_DIR=$dir LD_PRELOAD=$preload opensm -F opensm.conf -f opensm.log \
			>opensm.out 2>&1 &
		osm=$!
		i=0
		until grep -q "SUBNET UP" opensm.log 2>/dev/null || [ $i -ge 5000 ]; do
			sleep 0.1; i=$((i + 1))
		done
		sleep 3  # the first sweeps settle
		n=$(grep -c "tables configured on all switches" opensm.log || :)
		if [ "$how" = isolate ]; then
			# The leaf end of the same cable: its node GUID and port.
			sw=$(echo "$cut" | sed "s/\[.*//")
			port=$(echo "$cut" | sed "s/.*\[//; s/\]//")
			guid=$(LD_PRELOAD=$preload ibswitches 2>/dev/null |
				sed -n "s/^Switch[^:]*: \(0x[0-9a-f]*\) .*$sw.*/\1/p" | head -n 1)
			date +%s.%N >cut.time
			printf "version 1\n%s %s\n" "$guid" "$port" >isolated-links
			printf "{\"v\":1,\"type\":\"reroute\",\"why\":\"bench\"}" >ask.tmp
			mv ask.tmp ask
		else
			date +%s.%N >cut.time
			echo "Unlink $cut" >&9
		fi
		i=0
		until [ "$(grep -c "tables configured on all switches" opensm.log)" -gt "$n" ] ||
			[ $i -ge 5000 ]; do
			sleep 0.1; i=$((i + 1))
		done
		echo "$n" >before.count
		kill $osm 2>/dev/null; wait $osm 2>/dev/null || :
		[ -z "${standin:-}" ] || { kill $standin; wait $standin 2>/dev/null || :; }
		bench_sim_stop
	' sh "$1" "$net" "$flags" "$PRELOAD" "$cut" "$how" || echo "run stopped: rc $?" >"$1/stopped"
}

echo "fabric  engine  routed-by  route-s  cut-s  (cut: Unlink $cut$([ $isolate = 0 ] ||
	echo ", isolated for loom's engines"); machine load: $(cut -d' ' -f1-3 /proc/loadavg))"
for engine in ${REROUTE_ENGINES:-loom ftree minhop}; do
	dir=$work/$engine
	mkdir -p "$dir"
	run_one "$dir" "$engine"
	python3 - "$dir" "ft3-$hosts" "$engine" <<'EOF'
import datetime, os, re, sys
d, fabric, engine = sys.argv[1:4]
year = datetime.date.today().year
def stamp(line):
    m = re.match(r'(\w+ +\d+ [\d:]+) (\d+)', line)
    t = datetime.datetime.strptime('%d %s' % (year, m.group(1)), '%Y %b %d %H:%M:%S')
    return t.timestamp() + int(m.group(2)) / 1e6
try:
    before = int(open(d + '/before.count').read())
    cut_t = float(open(d + '/cut.time').read())
except (OSError, ValueError):
    print(fabric, engine, 'no cut made:', open(d + '/stopped').read().strip()
          if os.path.exists(d + '/stopped') else 'no SUBNET UP?')
    sys.exit(0)
n, start, end, used, note = 0, None, None, '?', ''
for line in open(d + '/opensm.log', errors='replace'):
    if 'tables configured on all switches' in line:
        n += 1
        if n == before + 1:
            end = stamp(line)
            used = re.search(r'(\S+) tables configured', line).group(1)
            break
    if n == before and start is None and 'building routing with' in line:
        start = stamp(line)  # the first engine tried (ftree may fall back)
    if n == before:
        m = re.search(r'loom engine loom routed .*?(rerouted \d+ destinations)', line)
        if m:
            note = ' (' + m.group(1) + ')'
f = lambda a, b: '%.3f' % (a - b) if a is not None and b is not None else 'n/a'
print('  '.join((fabric, engine, used + note, f(end, start), f(end, cut_t))))
EOF
done
[ $keep = 0 ] || echo "kept: $work"
