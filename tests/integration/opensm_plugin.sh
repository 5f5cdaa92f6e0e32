#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# libloomosm.so inside OpenSM: with `event_plugin_name loomosm` OpenSM loads
# the plugin and `routing_engine loom` (or loom-minhop, loom-dfsssp) routes
# the subnet with loom's engine, not a fallback. The tables the switches then
# hold (read back with dump_fts) are judged against ibnetdiscover's view of
# the cables by an independent checker (lft_check.py): every CA pair the
# cables connect is delivered, with no loop, and every CA reaches every
# switch. Checked on the shipped fat tree, a generated 3-level fat tree, one
# with cut links, both again after cutting more links in the running
# simulator (a new heavy sweep), and a torus, which needs dfsssp's virtual
# lanes: there the SL2VL maps and the SLs of path records are checked too. A
# corrupted dump proves that the checker fails when it should.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need dump_fts smpquery saquery python3

osm_conf() { # osm_conf ENGINE [OPENSM.CONF LINES...]
	_e=$1; shift
	{
		printf 'event_plugin_name loomosm\nrouting_engine %s\n' "$_e"
		printf 'force_log_flush TRUE\nlog_flags 0x03\n'
		for l in "$@"; do printf '%s\n' "$l"; done
	} >"$work/opensm.conf"
}

osm_env() { OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD "$@"; }

# OpenSM's log must show that loom's engine routed and that its tables went
# to the switches: a failing engine makes OpenSM fall back to minhop, whose
# tables would pass the checker just as well.
osm_routed() { # osm_routed NAME ENGINE
	grep -q "create: loomosm .*routing engines registered" "$work/opensm.log" ||
		loom_osm_fail "$1: OpenSM did not load libloomosm.so"
	grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "$1: OpenSM did not bring the subnet up"
	grep -q "loom engine $2 routed" "$work/opensm.log" &&
		grep -q " $2 tables configured on all switches" "$work/opensm.log" ||
		loom_osm_fail "$1: $2 did not route the subnet (OpenSM fell back to another engine)"
	! grep -q "ERR LOOM" "$work/opensm.log" || loom_osm_fail "$1: the plugin logged an error"
	loom_ok "$1: $(sed -n "s/.*build_fwd_tables: loom engine \($2 routed.*\)/\1/p" \
		"$work/opensm.log" | tail -n 1)"
}

osm_sweep() { # osm_sweep NAME ENGINE: one OpenSM run (-o: sweep, route, exit)
	rm -f "$work/opensm.log" "$work"/guid2lid "$work"/opensm-sa.dump
	osm_env opensm -F "$work/opensm.conf" -o -f "$work/opensm.log" >"$work/opensm.out" 2>&1 || :
	osm_routed "$@"
}

readback() { # readback NAME: the switches' tables judged by lft_check.py
	LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.txt" 2>/dev/null || loom_fail "$1: dump_fts"
	loom_ibnetdiscover >"$work/ibnd.txt" || loom_fail "$1: ibnetdiscover"
	python3 "$S/tests/integration/lft_check.py" "$work/ibnd.txt" "$work/fts.txt" \
		>"$work/check.out" 2>&1 || { cat "$work/check.out"; loom_osm_fail "$1: tables read back fail"; }
	loom_ok "$1: $(head -n 1 "$work/check.out")"
}

# The checker must be able to fail: send one CA's LID, at the switch it hangs
# on, out of another port (to a neighbour host or up and back: misdelivered or
# a loop).
checker_fails() {
	python3 - "$work/ibnd.txt" "$work/fts.txt" "$work/bad.txt" <<'EOP' || loom_fail "cannot corrupt the dump"
import re, sys
ibnd, fts, out = sys.argv[1:]
sw = None
for line in open(ibnd):
    m = re.match(r'^Switch\s+\d+\s+"S-([0-9a-f]+)"', line)
    if m:
        sw = int(m.group(1), 16)
    m = re.match(r'^\[(\d+)\]\s+"H-[0-9a-f]+"\[\d+\].*# ".*" lid (\d+)', line)
    if sw is not None and m:
        port, lid = int(m.group(1)), int(m.group(2))
        break
cur, done, lines = None, False, []
for line in open(fts):
    m = re.match(r'^Unicast lids .* guid 0x([0-9a-f]+)', line)
    if m:
        cur = int(m.group(1), 16)
    m = re.match(r'^0x([0-9a-f]+) (\d+) (.*)', line)
    if cur == sw and m and int(m.group(1), 16) == lid and not done:
        line = '0x%04x %03d %s\n' % (lid, 2 if port == 1 else 1, m.group(3))
        done = True
    lines.append(line)
assert done, 'entry not found'
open(out, 'w').writelines(lines)
EOP
	rc=0
	python3 "$S/tests/integration/lft_check.py" "$work/ibnd.txt" "$work/bad.txt" \
		>"$work/check.out" 2>&1 || rc=$?
	[ $rc = 1 ] || { cat "$work/check.out"; loom_fail "the checker passed a corrupted dump (exit $rc)"; }
	loom_ok "a dump with one entry altered is refused: $(sed -n 2p "$work/check.out")"
}

# ---- the shipped fat tree ------------------------------------------------------
loom_ibsim "$S/tests/fabrics/demo-ft2.net"
osm_conf loom-minhop
osm_sweep "demo-ft2" loom-minhop
readback "demo-ft2, loom-minhop"
checker_fails
osm_conf loom
osm_sweep "demo-ft2" loom
readback "demo-ft2, loom"
loom_ibsim_cmd 'Unlink "leaf-3"[6]'
loom_ibsim_cmd 'Unlink "spine-1"[2]'
loom_ibsim_cmd 'Unlink "leaf-5"[2]'   # a host goes: it leaves the fabric
osm_sweep "demo-ft2 after 2 switch links and 1 host cut" loom
readback "demo-ft2 after the cuts, loom"
loom_ibsim_stop

# ---- a generated 3-level fat tree, whole then cut in the simulator -------------
loom_gen ft3 fattree --levels 3 --radix 8
loom_ibsim "$work/ft3.net"
osm_sweep "3-level fat tree (128 hosts)" loom
readback "3-level fat tree, loom"
loom_ibsim_cmd 'Unlink "pod0-leaf-0"[5]'
loom_ibsim_cmd 'Unlink "pod1-agg-2"[6]'
loom_ibsim_cmd 'Unlink "pod3-leaf-2"[8]'
loom_ibsim_cmd 'Unlink "core-5"[4]'
osm_sweep "3-level fat tree after 4 links cut" loom
readback "3-level fat tree after the cuts, loom"
# OpenSM's hop tables (its multicast manager and SA read them) come from the
# plugin's BFS: they must equal what OpenSM's own relaxation gives (minhop,
# which leaves them to OpenSM) on the same cut fabric, entry for entry. The
# plugin's searches run on 3 threads here, whatever the machine has.
hops_dump() { # hops_dump ENGINE: opensm-lid-matrix.dump into $work/hops-ENGINE
	mkdir -p "$work/hops-$1"
	osm_conf "$1" 'log_flags 0x47' "dump_files_dir $work/hops-$1"
	rm -f "$work/opensm.log" "$work"/guid2lid
	LOOMOSM_THREADS=3 osm_env opensm -F "$work/opensm.conf" -o -f "$work/opensm.log" \
		>"$work/opensm.out" 2>&1 || :
	# Whose relaxation ran: the plugin's BFS for loom, OpenSM's for minhop.
	if [ "$1" = loom ]; then
		grep -q "routing engines registered: .* (3 threads)" "$work/opensm.log" ||
			loom_osm_fail "loom: LOOMOSM_THREADS=3 was not taken"
		grep -q "loom engine loom: hop tables in" "$work/opensm.log" &&
			! grep -q "Min Hop Table Assignment" "$work/opensm.log" ||
			loom_osm_fail "loom: the hop tables were not the plugin's"
	fi
	grep -v '^#' "$work/hops-$1/opensm-lid-matrix.dump" >"$work/hops-$1.txt" 2>/dev/null &&
		[ -s "$work/hops-$1.txt" ] || loom_osm_fail "$1: OpenSM wrote no lid matrix"
}
hops_dump loom
hops_dump minhop
cmp -s "$work/hops-loom.txt" "$work/hops-minhop.txt" ||
	{ diff "$work/hops-loom.txt" "$work/hops-minhop.txt" | head; loom_fail "hop tables differ"; }
loom_ok "hop tables by the plugin's BFS equal OpenSM's own ($(wc -l <"$work/hops-loom.txt") lines)"
osm_conf loom
loom_ibsim_stop

# ---- a generated fat tree with cut links, which loom refines ------------------------
# 16 of 256 cables gone: the fat-tree engine alone leaves a shift with 4 flows
# on one link, and loom moves entries until no move lowers that (2 offline).
# What the switches hold must be those refined tables: equal, entry for
# entry, to loom's offline run on ibnetdiscover's capture of the same
# subnet (same GUIDs and LIDs), and better than the fat-tree engine's alone.
loom_gen ft3cut fattree --levels 3 --radix 8 --cut 16 --seed 1
loom_ibsim "$work/ft3cut.net"
osm_sweep "3-level fat tree with 16 cut links" loom
grep -q "loom engine loom routed.*; refined [0-9]* entries (shift worst" "$work/opensm.log" ||
	loom_osm_fail "16 cut links: loom did not refine the fat-tree engine's tables"
readback "3-level fat tree with 16 cut links, loom"
for e in loom ftree; do
	"$B/loomctl" --json route compute --topology "$work/ibnd.txt" --engine $e \
		--dump "$work/offline-$e.fts" --shifts 0 --random 0 >"$work/offline-$e.json" ||
		loom_fail "loomctl route compute --engine $e"
done
"$B/loomctl" --json route compute --topology "$work/ibnd.txt" --lfts "$work/fts.txt" \
	--shifts 0 --random 0 >"$work/held.json" || loom_fail "loomctl route compute --lfts"
python3 - "$work" <<'EOP' || loom_fail "16 cut links: the switches do not hold loom's refined tables"
import json, re, sys
w = sys.argv[1]
def entries(path):
    t, sw = set(), None
    for line in open(path):
        if line.startswith('Unicast lids'):
            sw = re.search(r'guid (0x[0-9a-f]+)', line).group(1)
        elif line.startswith('0x') and sw:
            f = line.split()
            t.add((sw, int(f[0], 16), int(f[1])))
    return t
off, held = entries(w + '/offline-loom.fts'), entries(w + '/fts.txt')
# dump_fts (infiniband-diags 44) skips a switch's top LID when it is a
# multiple of 64 (see bench/routing.sh).
top = max(l for _, l, _ in off)
keep = (lambda e: e[1] != top) if top % 64 == 0 else (lambda e: True)
off, held = set(filter(keep, off)), set(filter(keep, held))
assert off == held, '%d entries differ' % len(off ^ held)
worst = lambda f: json.load(open(w + '/' + f))['metrics']['shift_max_load']
assert worst('held.json') < worst('offline-ftree.json'), (worst('held.json'), worst('offline-ftree.json'))
print('%d entries equal; shift worst %d held, %d by ftree alone' %
      (len(off), worst('held.json'), worst('offline-ftree.json')))
EOP
loom_ok "16 cut links: the switches hold loom's refined tables:" \
	"$(sed -n 's/.*refined \([0-9]* entries (shift worst [0-9]* -> [0-9]*)\).*/\1/p' "$work/opensm.log" | tail -n 1)"
loom_ibsim_stop

# ---- a torus: dfsssp's virtual lanes ----------------------------------------------
# OpenSM programs SL2VL maps (and so calls the engine's update_sl2vl) only with
# qos TRUE; it stays up here (no -o) so that its SA answers path records.
loom_gen torus torus --dims 3,3,2 --hosts-per-switch 2
loom_ibsim "$work/torus.net"
# An engine that refuses the topology fails the run: OpenSM says why and
# falls back to minhop (and osm_routed would have caught that).
osm_conf loom-ftree
rm -f "$work/opensm.log" "$work"/guid2lid "$work"/opensm-sa.dump
osm_env opensm -F "$work/opensm.conf" -o -f "$work/opensm.log" >"$work/opensm.out" 2>&1 || :
grep -q "ERR LOOM01: loom engine loom-ftree failed" "$work/opensm.log" &&
	grep -q " minhop tables configured on all switches" "$work/opensm.log" ||
	loom_osm_fail "torus: loom-ftree did not fail over to minhop"
loom_ok "torus, loom-ftree: refused, OpenSM fell back to minhop:" \
	"$(sed -n 's/.*(Invalid argument): //p' "$work/opensm.log" | head -n 1 | cut -c1-80)"
for engine in loom-dfsssp loom; do
	osm_conf $engine 'qos TRUE' 'qos_max_vls 8'
	rm -f "$work/opensm.log" "$work"/guid2lid "$work"/opensm-sa.dump
	# exec: $! must be OpenSM itself, or killing it would orphan OpenSM.
	(OSM_CACHE_DIR=$work LD_LIBRARY_PATH=$PLUGIN_DIR LD_PRELOAD=$PRELOAD \
		exec opensm -F "$work/opensm.conf" -f "$work/opensm.log" >"$work/opensm.out" 2>&1) &
	osm_pid=$!
	LOOM_PIDS="$LOOM_PIDS $osm_pid"
	loom_until 300 grep -q "SUBNET UP" "$work/opensm.log" ||
		grep -q "ERR LOOM" "$work/opensm.log" || loom_osm_fail "torus: OpenSM did not come up"
	osm_routed "3x3x2 torus" $engine
	readback "3x3x2 torus, $engine"
	vls=$(sed -n "s/.*loom engine $engine routed.* \([0-9]*\) VLs\{0,1\}\(;.*\)\{0,1\}$/\1/p" \
		"$work/opensm.log" | tail -n 1)
	[ "${vls:-1}" -ge 2 ] || loom_osm_fail "torus: $engine used ${vls:-1} VL (a torus needs 2 or more)"
	# Identity SL2VL on a switch's ports and on a host's.
	sw_lid=$(sed -n 's/^Switch.*base port 0 lid \([0-9]*\) .*/\1/p' "$work/ibnd.txt" | head -n 1)
	ca_lid=$(sed -n 's/^\[1\](.*# lid \([0-9]*\) lmc.*/\1/p' "$work/ibnd.txt" | head -n 1)
	for q in "$sw_lid 1 2" "$ca_lid"; do
		# shellcheck disable=SC2086
		LD_PRELOAD=$PRELOAD smpquery sl2vl $q >"$work/sl2vl.txt" 2>/dev/null ||
			loom_osm_fail "torus: smpquery sl2vl $q"
		awk -v n="$vls" '/^ports:/ { split($0, f, "|"); for (s = 0; s < n; s++)
			if (f[s + 2] + 0 != s) bad = 1; rows++ }
			END { exit (rows == 0 || bad) }' "$work/sl2vl.txt" ||
			{ cat "$work/sl2vl.txt"; loom_osm_fail "torus: SL2VL of LID $q is not the identity"; }
	done
	# Path records carry the engine's SLs: all below the VL count, not all 0.
	lids=$(sed -n 's/^\[1\](.*# lid \([0-9]*\) lmc.*/\1/p' "$work/ibnd.txt" | head -n 12)
	: >"$work/sls.txt"
	for s in $lids; do
		for d in $lids; do
			[ "$s" = "$d" ] && continue
			LD_PRELOAD=$PRELOAD saquery PR --slid "$s" --dlid "$d" 2>/dev/null |
				sed -n 's/^[[:space:]]*sl\.*0x\([0-9a-fA-F]*\)$/\1/p' >>"$work/sls.txt"
		done
	done
	awk -v n="$vls" '{ v = index("0123456789abcdef", tolower($1)) - 1
		if (v < 0 || v >= n) bad = 1; if (v > 0) used++; rows++ }
		END { exit (rows < 100 || bad || !used) }' "$work/sls.txt" ||
		loom_osm_fail "torus: path record SLs wrong: $(sort "$work/sls.txt" | uniq -c | tr '\n' ' ')"
	loom_ok "3x3x2 torus, $engine: $vls VLs, identity SL2VL, $(wc -l <"$work/sls.txt") path records with SLs $(sort -u "$work/sls.txt" | tr '\n' ' ')"
	kill "$osm_pid" 2>/dev/null || :
	wait "$osm_pid" 2>/dev/null || :
done
loom_ibsim_stop
echo "opensm_plugin.sh: all ok"
