#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/route_check_vl.sh: `loomctl route check` judges credit
# loops per VL, from the SL-to-VL tables it reads back from the switches and
# the SLs loom's engine gave (the SL file libloomosm writes next to loomd's
# report socket). A 3x3x2 torus routed by loom-dfsssp inside OpenSM on VL
# layers:
#  1. with qos TRUE OpenSM programs the layers' SL2VL (SL l -> VL l): route
#     check reads them, takes the SLs from the file, and judges the tables
#     deadlock-free on 2 VLs or more;
#     The plugin's run report judged the same way before (route runs): on
#     the SL2VL tables its update_sl2vl has OpenSM program, deadlock-free;
#  2. the same fabric without the SL file (every path on SL 0, what route
#     check judged before SL2VL and SLs were read): a credit loop on VL 0,
#     named channel by channel;
#  3. the same tables with SL2VL flattened to VL 0: OpenSM restarted on the
#     same simulator with its `file` engine loading the tables loom made
#     (dump_fts) and qos_sl2vl 0,0,...: every SL on VL 0 (checked with
#     smpquery), the SLs still loom's (its file stays): route check reports
#     a credit loop on VL 0 naming its cycle, although the SLs alone (SL s
#     on VL s, what route check judged before it read SL2VL) say free.
set -eu
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/ib_qos_lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_work
loom_need smpquery

py() { python3 -c "$@"; }

loom_gen t torus --dims 3,3,2 --hosts-per-switch 2
loom_ibsim "$work/t.net"
loom_osm_loom_conf
sed -i 's/^routing_engine .*/routing_engine loom-dfsssp/' "$work/opensm.conf"
echo "qos TRUE" >>"$work/opensm.conf"
loom_config
loom_loomd "$work/loom.yaml"
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
loom_osm_plugin_bg
grep -q "loom engine loom-dfsssp routed" "$work/opensm.log" || loom_osm_fail "loom-dfsssp did not route"
L=$(sed -n 's/.*loom engine loom-dfsssp routed.* \([0-9]*\) VLs\{0,1\}\(;.*\)\{0,1\}$/\1/p' \
	"$work/opensm.log" | tail -n 1)
[ "${L:-1}" -ge 2 ] || loom_osm_fail "the torus was routed on ${L:-1} VL: no layers to judge"
loom_until 100 test -s "$work/osm.sock.sls" || loom_osm_fail "no SL file $work/osm.sock.sls"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait"

# check FILE: route check --json into FILE, its table output into FILE.out
check() {
	loom_ctl --json route check >"$work/$1.json" || :
	loom_ctl route check >"$work/$1.out" 2>&1 || :
}
# A switch port to a switch ("LID PORT"), whose SL2VL rows smpquery reads.
SW_PORT=$(loom_ibnetdiscover -p | awk '$1 == "SW" && $7 == "-" && $8 == "SW" { print $2, $3; exit }')
[ -n "$SW_PORT" ] || loom_fail "no inter-switch port in ibnetdiscover"
# shellcheck disable=SC2086
[ "$(sl2vl_rows $SW_PORT | sort -u | cut -d' ' -f1-$L)" = "$(seq 0 $((L - 1)) | tr '\n' ' ' |
	sed 's/ $//')" ] || loom_fail "SL2VL of $SW_PORT is not SL l -> VL l: $(sl2vl_rows $SW_PORT | sort -u)"

# ---- 1. layers on their VLs: free ----------------------------------------------------
check layered
py '
import json, sys
c = json.load(open(sys.argv[1])); v = c["vls"]; m = c["metrics"]
assert v["sl2vl"] == "read" and v["sl2vl_pairs"] > 0, v
assert v["sls"] == "file", v
assert m["delivered"] == m["pairs"] and m["pairs"] == 36 * 35, m
assert m["cdg_acyclic"] and v["credit_loop"] is None and not v["vl_loop"], c
assert m["cdg_vls"] >= 2 and m["cdg_vls"] <= int(sys.argv[2]), m
' "$work/layered.json" "$L" || loom_fail "layered torus: $(cat "$work/layered.json")"
grep -q "^deadlock: *channel dependencies acyclic, deadlock-free, on [2-9] VLs" "$work/layered.out" &&
	grep -q "^VLs: *SL2VL read on [0-9]* switch port pairs; SLs from $work/osm.sock.sls" \
		"$work/layered.out" || loom_fail "layered torus, table output: $(cat "$work/layered.out")"
loom_ok "torus on $L VL layers: $(grep '^deadlock:' "$work/layered.out"); $(grep '^VLs:' "$work/layered.out")"
run_judged() {
	loom_ctl --json route runs >"$work/runs.json" 2>/dev/null &&
	py '
import json, sys
r = json.load(open(sys.argv[1]))[0]; m = r["metrics"]
assert r["engine"] == "loom-dfsssp" and m and m["cdg_sl2vl"] and m["cdg_acyclic"], r
assert m["cdg_vls"] == int(sys.argv[2]) and m["cdg_cycle_vl"] == -1 and not m["cdg_vl_loop"], m
' "$work/runs.json" "$L"
}
loom_until 100 run_judged || loom_fail "the run report: $(cat "$work/runs.json")"
loom_ok "the plugin's run report: on the SL2VL it programs, acyclic on $L VLs"

# ---- 2. without the SLs: every path on SL 0 -------------------------------------------
mv "$work/osm.sock.sls" "$work/sls.aside"
check nosls
py '
import json, sys
c = json.load(open(sys.argv[1])); v = c["vls"]
assert v["sls"] == "unknown" and "sls_error" not in v, v
assert not c["metrics"]["cdg_acyclic"] and v["credit_loop"]["vl"] == 0, c
' "$work/nosls.json" || loom_fail "without SLs: $(cat "$work/nosls.json")"
grep -q "; SLs unknown: every path judged on SL0 -> its VL$" "$work/nosls.out" ||
	loom_fail "without SLs, the output does not say so: $(cat "$work/nosls.out")"
mv "$work/sls.aside" "$work/osm.sock.sls"
loom_ok "without the SL file: $(grep '^CREDIT LOOP' "$work/nosls.out" | cut -c1-120)..."

# ---- 3. SL2VL flattened to VL 0 ---------------------------------------------------------
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts.txt" 2>/dev/null || loom_fail "dump_fts"
cp "$work/osm.sock.sls" "$work/sls.before"
kill "$OSM_PID" 2>/dev/null || :
wait "$OSM_PID" 2>/dev/null || :
printf '%s\n' "routing_engine file" "lfts_file $work/fts.txt" "qos TRUE" \
	"qos_sl2vl 0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0" "force_log_flush TRUE" "log_flags 0x03" \
	>"$work/opensm.conf"
rm -f "$work/opensm.log"
loom_opensm_bg
grep -q "file tables configured on all switches" "$work/opensm.log" ||
	loom_osm_fail "OpenSM's file engine did not load loom's tables"
cmp -s "$work/osm.sock.sls" "$work/sls.before" || loom_fail "the SL file changed"
LD_PRELOAD=$PRELOAD dump_fts >"$work/fts2.txt" 2>/dev/null && cmp -s "$work/fts.txt" "$work/fts2.txt" ||
	loom_fail "the file engine's tables differ from loom's"
flat() { [ "$(sl2vl_rows $SW_PORT | sort -u)" = "0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0" ]; }
# shellcheck disable=SC2086
loom_until 100 flat || loom_fail "SL2VL of switch port $SW_PORT is not flat: $(sl2vl_rows $SW_PORT | sort -u)"
loom_ctl discover --wait >/dev/null || loom_fail "discover --wait (2)"
check flat
py '
import json, sys
c = json.load(open(sys.argv[1])); v = c["vls"]; m = c["metrics"]
assert v["sl2vl"] == "read" and v["sls"] == "file", v
assert m["delivered"] == m["pairs"], m
assert not m["cdg_acyclic"] and m["cdg_vls"] == 1, m
loop = v["credit_loop"]
assert loop["vl"] == 0 and loop["channels"] >= 2, v
hops = loop["cycle"].split(" -> ")
assert len(hops) == min(loop["channels"], 32) + 1 + (loop["channels"] > 32) and hops[0] == hops[-1], loop
assert all("[" in h for h in hops), loop
' "$work/flat.json" || loom_fail "flattened SL2VL: $(cat "$work/flat.json")"
grep -q "^CREDIT LOOP on VL 0 ([0-9]* channels): .*\[[0-9]*\] -> " "$work/flat.out" ||
	loom_fail "flattened SL2VL, table output: $(cat "$work/flat.out")"
loom_ok "SL2VL flattened to VL 0: $(grep '^CREDIT LOOP' "$work/flat.out" | cut -c1-160)..."
