#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# OpenSM's routing runs with loom's engines reach loomd's history:
# libloomosm.so reports each run (with the metrics of its tables), SUBNET UP,
# traps and LFT changes to loomd's report socket, loomd stores them, and
# `loomctl route runs` / `loomctl events` show them, from the daemon and
# from the database alone (--db).
#
#  1. loomd not running: OpenSM with the plugin still routes with loom's
#     engine, reaches SUBNET UP and exits (-o) — reports are dropped, nothing
#     waits on the absent socket.
#  2. loomd running, OpenSM master (no -o): the first heavy sweep's run is
#     recorded (engine loom, routed by ftree, every CA pair delivered, no
#     loop) with an osm_subnet_up event.
#  3. A switch-to-switch cable is cut in the simulator: OpenSM sweeps again
#     and reroutes; a second run is recorded whose tables still deliver every
#     pair, and the LFT changes (and the trap, when ibsim sends one) are
#     events.
#  4. loomd stops while OpenSM runs and another cut makes OpenSM reroute: it
#     goes on alone; once loomd is back, the next report says how many were
#     lost meanwhile, and the next run is recorded.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need python3

{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'sweep_interval 2\nforce_log_flush TRUE\nlog_flags 0x03\n'
} >"$work/opensm.conf"

# OpenSM with the plugin; exec, so that `osm ... &` leaves $! the pid of
# OpenSM itself (killed at cleanup), not of a subshell that would orphan it.
osm() { loom_osm_plugin "$@"; }

loom_ibsim "$S/tests/fabrics/demo-ft2.net"   # 32 hosts, 12 switches
PAIRS=$((32 * 31))

# ---- 1. loomd absent: OpenSM neither waits nor fails --------------------------
t0=$(date +%s)
(osm -o) || :
t1=$(date +%s)
grep -q "SUBNET UP" "$work/opensm.log" || loom_osm_fail "without loomd: OpenSM did not reach SUBNET UP"
grep -q "loom engine loom routed" "$work/opensm.log" &&
	grep -q " loom tables configured on all switches" "$work/opensm.log" ||
	loom_osm_fail "without loomd: loom's engine did not route"
grep -q "loomosm: cannot report to loomd at $work/osm.sock" "$work/opensm.log" ||
	loom_osm_fail "without loomd: the plugin did not say that its reports are dropped"
[ ! -e "$work/osm.sock" ] || loom_fail "a report socket exists although loomd never ran"
loom_ok "without loomd: OpenSM routed with loom, reached SUBNET UP and exited in" \
	"$((t1 - t0)) s; the plugin's reports were dropped"

# ---- 2. loomd records the run of OpenSM's first sweep -------------------------
loom_config   # its report socket: $work/osm.sock
# opensm.read_tables: loomd reads the tables back after each reroute.
sed -i 's|^  report_socket: .*|&\n  read_tables: true|' "$work/loom.yaml"
grep -q '^  read_tables: true$' "$work/loom.yaml" || loom_fail "cannot set opensm.read_tables"
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
mode=$(stat -c %a "$work/osm.sock")
[ "$mode" = 660 ] || loom_fail "report socket has mode $mode, not 660"

rm -f "$work/opensm.log"
osm &
osm_pid=$!
LOOM_PIDS="$LOOM_PIDS $osm_pid"

# check_runs N [BY]: at least N runs, the newest routed by BY (default
# loom's ftree; "reroute" after a cut: only what crossed it moved) with every
# pair delivered and no loop; prints it.
check_runs() {
	loom_ctl --json route runs >"$work/runs.json" 2>"$work/runs.err" || return 1
	python3 - "$work/runs.json" "$1" "$PAIRS" "${2:-ftree}" <<'EOP'
import json, sys
runs, n, pairs = json.load(open(sys.argv[1])), int(sys.argv[2]), int(sys.argv[3])
assert len(runs) >= n, "%d runs" % len(runs)
r = runs[0]
m = r["metrics"]
assert r["engine"] == "loom" and r["routed_by"] == sys.argv[4] and r["result"] == "ok", r
assert m and m["pairs"] == pairs and m["delivered"] == pairs and m["loops"] == 0, m
print("%d run(s); newest: %s routed by %s in %.2f ms, %d VL, %d/%d pairs delivered, "
      "%d loops, shift worst %d, random worst %d, ebb %.3f"
      % (len(runs), r["engine"], r["routed_by"], r["duration_ms"], r["vls"],
         m["delivered"], m["pairs"], m["loops"], m["shift_max_load"],
         m["random_max_load"], m["ebb"]))
EOP
}

# has_event KIND: loomctl events lists one of that kind.
has_event() {
	loom_ctl --json events >"$work/events.json" || return 1
	python3 -c 'import json, sys; sys.exit(not any(e["kind"] == sys.argv[2] for e in json.load(open(sys.argv[1]))))' \
		"$work/events.json" "$1"
}

t0=$(date +%s)
loom_until 300 check_runs 1 || { cat "$work/runs.json" "$work/runs.err" 2>/dev/null || :
	loom_osm_fail "no routing run by ftree delivering every pair was recorded"; }
loom_ok "first sweep: $(check_runs 1)"
loom_until 100 has_event osm_subnet_up || loom_osm_fail "no osm_subnet_up event"
loom_ok "loomctl events shows OpenSM's SUBNET UP:" \
	"$(loom_ctl events | awk '$3 == "osm_subnet_up" { $1 = ""; print; exit }')"
loom_ctl route runs >"$work/runs.txt" || loom_fail "loomctl route runs"
head -n 1 "$work/runs.txt" | grep -q "^TIME *ENGINE *ROUTED-BY *DURATION *VLS *PAIRS" &&
	grep -q "loom *ftree .* $PAIRS/$PAIRS *0 " "$work/runs.txt" ||
	{ cat "$work/runs.txt"; loom_fail "loomctl route runs does not show the run"; }
loom_ok "loomctl route runs: $(sed -n 2p "$work/runs.txt")"

# ---- 3. a cable cut: OpenSM reroutes, the second run is recorded ---------------
# Only the destinations that crossed the cut cable are routed again
# (lib/route/route_reroute.c): the run says "reroute".
reads() { grep -c "forwarding tables of [0-9]* switches read" "$work/loomd.log" || :; }
reads0=$(reads)
loom_ibsim_cmd 'Unlink "spine-1"[2]'   # leaf-1 <-> spine-1
loom_until 300 check_runs 2 reroute || { cat "$work/runs.json"
	loom_osm_fail "no second run, rerouted, delivering every pair after the cable cut"; }
loom_ok "after the cut: $(check_runs 2 reroute)"
grep -q "loom engine loom routed .*rerouted [0-9]* destinations" "$work/opensm.log" ||
	loom_osm_fail "OpenSM's log does not say that the cut was rerouted incrementally"
loom_until 100 has_event osm_lft_change || loom_osm_fail "no osm_lft_change event after the reroute"
loom_ok "LFT changes recorded:" \
	"$(loom_ctl events | awk '$3 == "osm_lft_change" { $1 = $2 = $3 = ""; print; exit }')"
# opensm.read_tables: the stored tables follow the reroute unasked. Read
# before it, over the cut fabric, they would lose the pairs that crossed the
# cable; read after it, every pair is delivered.
fresh() {
	[ "$(reads)" -gt "$reads0" ] &&
	loom_ctl --json route check --cached >"$work/cached.json" 2>/dev/null &&
	python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["metrics"]; sys.exit(not (m["delivered"] == m["pairs"] == int(sys.argv[2]) and m["loops"] == 0))' \
		"$work/cached.json" "$PAIRS"
}
loom_until 300 fresh || loom_fail "the stored tables did not follow the reroute (opensm.read_tables): $(reads) reads; $(cat "$work/cached.json" 2>/dev/null)"
grep -q "OpenSM changed the forwarding tables: reading them again" "$work/loomd.log" ||
	loom_fail "loomd's log does not say why it read the tables"
loom_ok "opensm.read_tables: loomd read the rerouted tables by itself ($(( $(reads) - reads0 )) read(s)); route check --cached delivers all $PAIRS pairs"
if has_event osm_trap; then
	loom_ok "trap recorded:" \
		"$(loom_ctl events | awk '$3 == "osm_trap" { $1 = $2 = $3 = ""; print; exit }')"
else
	echo "note: ibsim sent no trap for the cut (OpenSM found it on its periodic sweep)"
fi
t1=$(date +%s)

# ---- 4. loomd away for a while: OpenSM goes on, the loss is counted -------------
kill "$LOOMD_PID"
wait "$LOOMD_PID" 2>/dev/null || :
[ ! -e "$work/osm.sock" ] || loom_fail "loomd left its report socket behind"
n=$(grep -c "SUBNET UP" "$work/opensm.log")
loom_ibsim_cmd 'Unlink "spine-2"[3]'   # leaf-2 <-> spine-2
loom_until 300 test "$(grep -c "SUBNET UP" "$work/opensm.log")" -gt "$n" ||
	loom_osm_fail "without loomd, OpenSM did not reroute after a cut"
loom_ok "loomd stopped: OpenSM rerouted after another cut on its own"
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket again"
loom_ibsim_cmd 'ReLink "spine-2"[3]'
loom_until 300 check_runs 3 || { cat "$work/runs.json"
	loom_osm_fail "no run recorded after loomd came back"; }
loom_until 50 grep -q "reports were lost before report" "$work/loomd.log" ||
	loom_fail "loomd did not learn of the reports lost while it was away"
loom_ok "loomd back: $(sed -n 's/.*\(OpenSM 0x[0-9a-f]* (pid [0-9]*): [0-9]* reports were lost\).*/\1/p' \
	"$work/loomd.log" | tail -n 1); $(check_runs 3)"

# The same history from the database alone.
loom_ctl --json route runs >"$work/runs-daemon.json"
"$B/loomctl" --db "$work/loom.db" --json route runs >"$work/runs-db.json" ||
	loom_fail "loomctl --db route runs"
cmp -s "$work/runs-daemon.json" "$work/runs-db.json" ||
	{ diff "$work/runs-daemon.json" "$work/runs-db.json" || :
	  loom_fail "loomctl --db route runs differs from the daemon's answer"; }
loom_ok "loomctl --db route runs gives the daemon's rows"

kill "$osm_pid" 2>/dev/null || :
wait "$osm_pid" 2>/dev/null || :
! grep -q "ERR LOOM" "$work/opensm.log" || loom_osm_fail "the plugin logged an error"
loom_ok "runs recorded within $((t1 - t0)) s of OpenSM's start"
echo "route_runs.sh: all ok"
