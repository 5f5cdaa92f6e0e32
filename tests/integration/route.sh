#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# `loomctl route compute` routes topology files offline: the shipped fat tree
# (as an ibsim net file and as ibnetdiscover's capture of the same fabric in
# ibsim) and generated fat trees with cut links are routed with every CA pair
# delivered and no loop; a full fat tree's shifts never share a link; the
# LFT dump has one table per switch; --ar-plan writes, per switch with AR
# groups, the SMPs the table sizes call for; bad input is refused with a
# reason.
set -eu
. "$(dirname "$0")/lib.sh"
work=$(mktemp -d /tmp/loom-route.XXXXXX)
trap 'rm -rf "$work"' EXIT

metric() { # metric FILE.json KEY
	python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["metrics"][sys.argv[2]])' "$1" "$2"
}
compute() { # compute NAME TOPOLOGY [ARGS...]: route it, require every pair delivered
	_n=$1; _t=$2; shift 2
	"$B/loomctl" --json route compute --topology "$_t" "$@" >"$work/$_n.json" ||
		loom_fail "$_n: route compute failed: $(cat "$work/$_n.json")"
	[ "$(metric "$work/$_n.json" delivered)" = "$(metric "$work/$_n.json" pairs)" ] &&
		[ "$(metric "$work/$_n.json" loops)" = 0 ] || loom_fail "$_n: pairs lost or looping"
	loom_ok "$_n: $(metric "$work/$_n.json" pairs) pairs delivered, shift worst link" \
		"$(metric "$work/$_n.json" shift_max_load), random worst link" \
		"$(metric "$work/$_n.json" random_max_load)"
}

compute demo-net "$S/tests/fabrics/demo-ft2.net" --dump "$work/demo.lfts"
[ "$(metric "$work/demo-net.json" shift_max_load)" = 1 ] ||
	loom_fail "full fat tree: a shift shares a link"
[ "$(grep -c '^Unicast lids' "$work/demo.lfts")" = 12 ] || loom_fail "dump: not one table per switch"
compute demo-ibnd "$S/tests/fabrics/demo-ft2.ibnd"
compute opensm-readback "$S/tests/fabrics/demo-ft2.ibnd" \
	--lfts "$S/tests/fabrics/demo-ft2.fts"
grep -q '"engine": "tables read"' "$work/opensm-readback.json" ||
	loom_fail "--lfts did not judge the given tables"
# Cut cables after the run: rerouted incrementally, every pair still delivered.
loom_gen_route() { "$B/loom-fabgen" "$@" -o "$work/gen.net"; }
loom_gen_route fattree --levels 3 --radix 8
compute reroute "$work/gen.net" --reroute-cut 1 --seed 4 --threads 2
python3 - "$work/reroute.json" <<'EOP' || loom_fail "--reroute-cut: $(cat "$work/reroute.json")"
import json, sys
j = json.load(open(sys.argv[1]))
r = j["reroute"]
assert r["cut"] == 1 and r["incremental"] and r["destinations"] > 0, r
assert j["note"].startswith("rerouted "), j["note"]
assert j["metrics"]["cdg_acyclic"], j["metrics"]
EOP
loom_ok "--reroute-cut 1: $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["reroute"]; print(r["destinations"], "destinations rerouted, the CDG acyclic")' "$work/reroute.json")"
for e in ftree minhop; do
	compute "demo-$e" "$S/tests/fabrics/demo-ft2.net" --engine $e
	[ "$(metric "$work/demo-$e.json" shift_max_load)" = 1 ] || loom_fail "$e: a shift shares a link"
done
[ "$(metric "$work/demo-ibnd.json" pairs)" = "$(metric "$work/demo-net.json" pairs)" ] ||
	loom_fail "the net file and ibnetdiscover's capture of it differ"

"$B/loom-fabgen" fattree --levels 3 --radix 8 --cut 6 --seed 5 -o "$work/ft3cut.net"
compute "3-level fat tree, 6 cut links" "$work/ft3cut.net" --shifts 16 --random 4
"$B/loom-fabgen" fattree --levels 2 --radix 36 --hosts 648 --cut 20 --seed 9 -o "$work/ft2cut.net"
compute "648 hosts, 20 cut links" "$work/ft2cut.net" --shifts 32 --random 2

# --ar-plan: per switch with groups, ARInfo off, ceil(groups / 2) group-table
# blocks, one AR LFT block per 16 LIDs of the table, ARInfo on. Expectations
# from independent output: the max LID from the LFT dump's headers, the
# groups from the JSON (their sum and the most on one switch).
"$B/loom-fabgen" fattree --levels 2 --radix 8 --cut 3 --seed 5 -o "$work/ft2small.net"
compute ar-plan "$work/ft2small.net" --ar tree --ar-plan "$work/ar.plan" --dump "$work/ar.lfts"
max_lid=$(sed -n 's/^Unicast lids \[0x0-0x\([0-9a-f]*\)\].*/\1/p' "$work/ar.lfts" | sort -u)
[ "$(echo "$max_lid" | wc -l)" = 1 ] && [ -n "$max_lid" ] || loom_fail "ar-plan: max LID from the dump: '$max_lid'"
lft_blocks=$(( (0x$max_lid + 1 + 15) / 16 ))
ar_json() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["adaptive_routing"][sys.argv[2]])' "$work/ar-plan.json" "$1"; }
awk -v lft="$lft_blocks" -v groups="$(ar_json groups)" -v gmax="$(ar_json groups_max)" '
	function done_switch() {
		if (name == "") return
		if (n23 != lft) bad = bad name ": " n23 " 0xFF23 lines, expected " lft "\n"
		if (n21 != int((ng + 1) / 2)) bad = bad name ": " n21 " 0xFF21 lines for " ng " groups\n"
		if (n20 != 2 || first != "0xFF20" || prev != "0xFF20") bad = bad name ": ARInfo not first and last\n"
		if (n20 + n21 + n23 != smps) bad = bad name ": " n20 + n21 + n23 " lines, header says " smps "\n"
		sum += ng; if (ng > most) most = ng; nsw++
	}
	/^# switch / { done_switch(); name = $3 " " $4
		match($0, /: [0-9]+ groups, [0-9]+ SMPs/); split(substr($0, RSTART + 2, RLENGTH - 2), f, " ")
		ng = f[1]; smps = f[3]; n20 = n21 = n23 = 0; first = ""; next }
	/^Set / { if (first == "") first = $2; prev = $2
		if ($2 == "0xFF20") n20++; else if ($2 == "0xFF21") n21++; else if ($2 == "0xFF23") n23++
		else bad = bad name ": attribute " $2 "\n"
		if ($3 != "am" || $4 !~ /^0x[0-9A-F]+$/ || length($4) != 10 || length($5) != 128 || $5 !~ /^[0-9a-f]+$/)
			bad = bad name ": malformed line " NR "\n"
		if (seen_lft && $2 == "0xFF21") bad = bad name ": group table after the LFT\n"
		seen_lft = ($2 == "0xFF23"); next }
	/^#/ { next }
	{ bad = bad "line " NR " is neither a comment nor a Set\n" }
	END { done_switch()
		if (sum != groups) bad = bad "groups: " sum " in the plan, " groups " in the JSON\n"
		if (most != gmax) bad = bad "most groups on a switch: " most ", JSON " gmax "\n"
		if (nsw == 0) bad = bad "no switch in the plan\n"
		printf "%s", bad; exit bad != "" }' "$work/ar.plan" >"$work/ar.bad" ||
	loom_fail "ar-plan: $(cat "$work/ar.bad")"
loom_ok "ar-plan: $(grep -c '^# switch' "$work/ar.plan") switches, $(ar_json groups) groups," \
	"$lft_blocks AR LFT blocks each (max LID 0x$max_lid)"

rc=0; "$B/loomctl" route compute --topology "$work/missing.net" 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q "missing.net" "$work/err" || loom_fail "a missing file: exit $rc, $(cat "$work/err")"
rc=0; "$B/loomctl" route compute --topology "$S/tests/fabrics/tiny.net" --engine nosuch 2>"$work/err" || rc=$?
[ $rc = 2 ] && grep -q "nosuch" "$work/err" || loom_fail "an unknown engine: exit $rc"
printf 'Switch 4 "s"\n[9] "h"[1]\n' >"$work/bad.net"
rc=0; "$B/loomctl" route compute --topology "$work/bad.net" 2>"$work/err" || rc=$?
[ $rc = 1 ] && grep -q "bad.net:2" "$work/err" || loom_fail "a bad file: exit $rc, $(cat "$work/err")"
loom_ok "bad input refused: $(cat "$work/err")"
echo "route.sh: all ok"
