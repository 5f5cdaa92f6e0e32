#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# Self-healing links (issue 42): loomd takes a bad switch cable out of the
# routes while it stays up, and brings it back after a clean probation, on
# ibsim with a real OpenSM running loom's plugin and real infiniband-diags.
#
#  1. dry-run: symbol errors raised with ibsim's PerformanceSet on a
#     spine-leaf cable (one picked from dump_fts and ibnetdiscover) make a
#     link_would_isolate event naming it, with the routes' loss; no file,
#     the cable still carries routes.
#  2. mode on (a reload): link_isolated; `link isolated` lists it; OpenSM
#     routed with that set version; dump_fts shows no LFT entry of either
#     end's switch leaving by it while smpquery shows both ends Active, and
#     every CA pair is delivered (lft_check.py, no loom code).
#  3. max_isolated 1: a second cable unplugged and plugged back three times
#     (ibsim Unlink/ReLink) is refused, naming isolation.max_isolated.
#  4. errors stop: after the probation the first cable is restored and
#     carries routes again; the flapper, its slot free, is isolated for its
#     flaps.
#  5. operators: `link restore` brings the flapper back; with
#     ebb_floor_pct 100 `link isolate` is refused naming the floor, --force
#     isolates it; the isolation survives loomd killed with -9 (the stored
#     set, the same file).
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need dump_fts smpquery python3

loom_osm_loom_conf

loom_gen ft2 fattree --levels 2 --radix 8
loom_ibsim "$work/ft2.net"

# conf MODE [EXTRA LINES]: loomd's configuration, isolation in MODE.
conf() {
	_mode=$1
	shift
	loom_config 'telemetry:' '  interval_s: 1' 'isolation:' "  mode: $_mode" \
		"  file: $work/isolated-links" '  window_s: 600' '  errors: 50' '  flaps: 3' \
		'  clean_for_s: 30' '  max_isolated: 1' '  max_per_switch: 1' "$@"
}
conf dry-run
loom_loomd "$work/loom.yaml"
loom_osm_plugin_bg
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"

# tables: read now, and judged by lft_check.py (status 1 when a pair is lost).
tables() {
	loom_tables && python3 "$S/tests/integration/lft_check.py" "$work/ibnd.txt" "$work/fts.txt" \
		>"$work/check.out" 2>&1
}
uses() { loom_lft_uses "$@"; }
# events KIND: the events of KIND, JSON.
events() { loom_ctl --json events --kind "$1"; }
has_event() { events "$1" | grep -q "$2"; }
isolated_json() { loom_ctl --json link isolated; }

loom_until 100 tables || { cat "$work/check.out"; loom_fail "tables before"; }
loom_lft_pick >"$work/a.txt" ||
	loom_fail "no spine-leaf cable found"
read -r a_leaf a_port a_lid a_name a_spine a_sport a_slid a_sname a_n <"$work/a.txt"
loom_ok "cable A: $a_name[$a_port] <-> $a_sname[$a_sport], $a_n entries over it"

# ---- 1. dry-run -----------------------------------------------------------------
# Two reads first, so the errors are a delta of a read, not a first sample.
loom_ctl counters --now >/dev/null
loom_ctl counters --now >/dev/null
loom_ibsim_cmd "PerformanceSet \"$a_name\"[$a_port] PortCounters.SymbolErrorCounter=200"
loom_until 200 has_event link_would_isolate "$a_leaf\[$a_port\]" ||
	{ events link_isolation_refused; tail -n 30 "$work/loomd.log"; loom_fail "no link_would_isolate for A"; }
events link_would_isolate | grep -q "loss EBB" || loom_fail "the dry-run event says no loss"
[ ! -e "$work/isolated-links" ] || loom_fail "dry-run wrote the isolated links file"
tables
[ "$(uses "$a_leaf" "$a_port")" -gt 0 ] || loom_fail "dry-run: A carries no route"
loom_ok "dry-run: $(events link_would_isolate | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["new"][:150])')"

# ---- 2. on ------------------------------------------------------------------------
conf on
kill -HUP "$LOOMD_PID"
loom_until 200 has_event link_isolated "$a_leaf\[$a_port\]" ||
	{ tail -n 30 "$work/loomd.log"; loom_fail "A was not isolated in mode on"; }
isolated_json >"$work/iso.json"
python3 - "$work/iso.json" "$a_leaf" "$a_port" <<'EOP' || { cat "$work/iso.json"; loom_fail "link isolated"; }
import json, sys
r = json.load(open(sys.argv[1]))
links = r['links']
assert r['mode'] == 'on' and len(links) == 1, r
l = links[0]
assert l['guid'] == sys.argv[2] and l['port'] == int(sys.argv[3]), l
assert l['state'] == 'isolated' and l['by'] == 'loom' and 'errors' in l['rules'], l
assert l['probation_left_s'] is not None and 'EBB' in l['loss'], l
EOP
applied() { isolated_json | python3 -c 'import json,sys; r=json.load(sys.stdin); sys.exit(0 if r["applied_version"] >= r["version"] > 0 else 1)'; }
loom_until 300 applied || { isolated_json; loom_osm_fail "OpenSM did not route with the set"; }
grep -q "^version " "$work/isolated-links" && grep -q "^$a_leaf $a_port " "$work/isolated-links" ||
	{ cat "$work/isolated-links"; loom_fail "the file does not name A"; }
no_route() { tables && [ "$(uses "$a_leaf" "$a_port")" = 0 ] && [ "$(uses "$a_spine" "$a_sport")" = 0 ]; }
loom_until 100 no_route || { cat "$work/check.out"; loom_fail "A still carries routes"; }
for end in "$a_lid $a_port" "$a_slid $a_sport"; do
	# shellcheck disable=SC2086
	LD_PRELOAD=$PRELOAD smpquery portinfo $end >"$work/portinfo.txt" 2>&1 ||
		loom_fail "smpquery portinfo $end"
	grep -q "^LinkState:\.*Active" "$work/portinfo.txt" ||
		{ cat "$work/portinfo.txt"; loom_fail "lid/port $end is not Active"; }
done
loom_ok "isolated: no LFT entry leaves by A, both ends Active; $(head -n 1 "$work/check.out")"

# ---- 3. the bound -----------------------------------------------------------------
loom_lft_pick "$a_leaf,$a_spine" >"$work/b.txt" || loom_fail "no second cable apart from A's switches"
read -r b_leaf b_port b_lid b_name b_spine b_sport b_slid b_sname b_n <"$work/b.txt"
[ "$b_leaf" != "$a_leaf" ] && [ "$b_spine" != "$a_spine" ] ||
	loom_fail "cable B shares a switch with A: $b_name/$b_sname (max_per_switch would refuse it first)"
downs() { events link_down | grep -c "$b_leaf\[$b_port\]\|$b_spine\[$b_sport\]" || :; }
for i in 1 2 3; do
	n=$(downs)
	loom_ibsim_cmd "Unlink \"$b_name\"[$b_port]"
	loom_until 200 test "$(events link_down,link_flap | grep -c "$b_leaf\|$b_spine")" -gt 0 ||
		loom_fail "no link_down event for B"
	loom_ibsim_cmd "ReLink \"$b_name\"[$b_port]"
	sleep 2
done
loom_until 300 has_event link_isolation_refused "max_isolated" ||
	{ events link_down,link_flap,link_up; tail -n 30 "$work/loomd.log"; loom_fail "B was not refused on max_isolated"; }
loom_ok "B ($b_name[$b_port]) flapped 3 times: refused, isolation.max_isolated"

# ---- 4. probation -----------------------------------------------------------------
loom_until 600 has_event link_restored "$a_leaf\[$a_port\]" ||
	{ isolated_json; loom_fail "A was not restored after its probation"; }
used_again() { tables && [ "$(uses "$a_leaf" "$a_port")" -gt 0 ]; }
loom_until 300 used_again || loom_fail "A carries no route after its restore"
loom_until 300 has_event link_isolated "flaps" ||
	{ isolated_json; loom_fail "B was not isolated as a flapper once A came back"; }
loom_ok "A restored after its probation and carries routes; B isolated for its flaps"

# ---- 5. operators -------------------------------------------------------------------
loom_ctl link restore "$b_name:$b_port" >"$work/out.txt" || { cat "$work/out.txt"; loom_fail "link restore B"; }
isolated_json | grep -q '"links": \[\]' || { isolated_json; loom_fail "B still listed"; }
conf on '  ebb_floor_pct: 100'
kill -HUP "$LOOMD_PID"
sleep 1
loom_ctl link isolate "$a_name:$a_port" --reason "optics swap" >"$work/out.txt" 2>&1 &&
	loom_fail "an isolation below the EBB floor was accepted"
grep -q "ebb_floor_pct" "$work/out.txt" || { cat "$work/out.txt"; loom_fail "the refusal does not name the floor"; }
loom_ctl link isolate "$a_name:$a_port" --reason "optics swap" --force >"$work/out.txt" ||
	{ cat "$work/out.txt"; loom_fail "link isolate --force"; }
cp "$work/isolated-links" "$work/isolated-links.before"
kill -9 "$LOOMD_PID"
wait "$LOOMD_PID" 2>/dev/null || :
rm -f "$work/loomd.sock"
loom_loomd "$work/loom.yaml"
isolated_json >"$work/iso.json"
grep -q '"reason": "optics swap"' "$work/iso.json" || { cat "$work/iso.json"; loom_fail "lost at restart"; }
cmp -s "$work/isolated-links" "$work/isolated-links.before" || loom_fail "the file changed at restart"
loom_ok "operators: restored B; isolating A refused below the EBB floor, forced; kept through kill -9"

kill "$OSM_PID" 2>/dev/null || :
wait "$OSM_PID" 2>/dev/null || :
echo "isolation.sh: all ok"
