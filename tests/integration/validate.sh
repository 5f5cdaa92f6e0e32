#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/validate.sh: fabric validation (issue 22) on ibsim.
#
# A generated fat tree, its plan the ibnetdiscover output of the fabric as
# built (validation.expected) and a cabling CSV made from the generator's
# file (loomctl fabric validate --expected). On the clean fabric nothing
# is found. Then the test damages the fabric through ibsim's console, one
# fault at a time, and after each sweep loom must report exactly that fault
# once (code and ports), with one event when it opens and one when it
# clears: two host cables swapped (Unlink/Link crosswise: one `swapped`,
# not four faults), a missing cable, symbol errors over the BER threshold
# (ibsim's PerformanceSet, judged by the counters read). Then a fabric built with a slow link
# (the net file's w=1) and a node with another description: one `slow` on
# the link iblinkinfo shows at 1X, one `renamed` (the ibnetdiscover plan
# finds the node by its GUID) or one `unknown-node` (the CSV names only). The cabling each
# check relies on is read back with ibnetdiscover/iblinkinfo, the tools
# operators compare with.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_ibnetdiscover >"$work/good.topo" || loom_fail "ibnetdiscover of the clean fabric"

# The CSV plan: each cable of the generator's file once (from the node that
# comes first in the file), no width or speed.
awk '
/^(Switch|Hca|Ca)[ \t]/ { split($0, q, "\""); node = q[2]; next }
/^\[/ {
	split($0, q, "\""); port = substr($1, 2, index($1, "]") - 2)
	peer = q[2]; rest = q[3]; pp = substr(rest, 2, index(rest, "]") - 2)
	if ((peer "[" pp) in seen) next
	seen[node "[" port] = 1
	print node "," port "," peer "," pp
}' "$work/ft.net" | { echo "node,port,peer,peer_port"; cat; } >"$work/plan.csv"
cables=$(($(wc -l <"$work/plan.csv") - 1))
[ "$cables" -eq "$(sed -n 's/.*links=\([0-9]*\).*/\1/p' "$work/ft.net")" ] ||
	loom_fail "the CSV has $cables cables, the generator says otherwise"

loom_config "$(loom_subnet_conf ft)" "validation:" "  expected: $work/good.topo"
loom_loomd "$work/loom.yaml"

checks() { grep -c 'validated [0-9]* nodes' "$work/loomd.log" || :; }
checked_since() { [ "$(checks)" -gt "$_before" ]; }
# Sweep, and wait for the check after it.
sweep() {
	_before=$(checks)
	loom_ctl discover --wait >/dev/null || loom_fail "discover ($1)"
	loom_until 100 checked_since || loom_fail "no validation after the sweep ($1)"
}
# validate [ARGS]: loomctl fabric validate --json; sets $rc.
validate() {
	rc=0
	loom_ctl --json fabric validate "$@" >"$work/v.json" || rc=$?
}
# The findings of v.json as "code|subject" lines.
findings() {
	python3 -c '
import json, sys
for r in json.load(open(sys.argv[1]))["subnets"]:
    for f in r["findings"]:
        print(f["code"] + "|" + f["subject"])' "$work/v.json"
}
events_of() { # events_of KIND PATTERN: how many events of KIND name PATTERN
	loom_ctl --json events --kind "$1" --limit 1000 | python3 -c '
import json, sys
ev = json.load(sys.stdin)
ev = ev["events"] if isinstance(ev, dict) else ev
print(sum(1 for e in ev if sys.argv[1] in e["subject"]))' "$2"
}
relink() { # after console changes: OpenSM brings the new links up, loom sweeps
	loom_opensm
	sweep "$1"
}

# ---- the clean fabric -------------------------------------------------------------------
sweep clean
validate
[ "$rc" = 0 ] || loom_fail "the clean fabric: exit $rc: $(findings)"
[ -z "$(findings)" ] || loom_fail "findings on the clean fabric: $(findings)"
grep -q "\"cables_ok\": $cables" "$work/v.json" || loom_fail "not all $cables cables as planned: $(cat "$work/v.json")"
loom_ctl fabric validate --summary >"$work/s.txt" || loom_fail "summary exit $?"
grep -q "^OK ft: .* $cables of $cables planned cables as planned: 0 errors, 0 warnings" "$work/s.txt" ||
	loom_fail "summary line: $(cat "$work/s.txt")"
validate --expected "$work/plan.csv"
[ "$rc" = 0 ] && [ -z "$(findings)" ] || loom_fail "the CSV plan finds something on the clean fabric: $(findings)"
loom_ctl fabric issues >"$work/i.txt" || loom_fail "issues on the clean fabric: $(cat "$work/i.txt")"
loom_ok "a clean fabric: nothing found against either plan, exit 0, $cables cables as planned"

# `fabric plan`: the swept fabric's cabling CSV, the same cables as the
# generator's file (each as "a[p] b[q]" with its ends sorted)
ends() { awk -F, 'NR > 1 { a = $1 "[" $2 "]"; b = $3 "[" $4 "]"; print (a < b ? a " " b : b " " a) }' "$1" | sort; }
loom_ctl fabric plan >"$work/swept.csv" || loom_fail "fabric plan"
ends "$work/plan.csv" >"$work/e1"; ends "$work/swept.csv" >"$work/e2"
cmp -s "$work/e1" "$work/e2" || loom_fail "fabric plan's cables are not the generator's: $(diff "$work/e1" "$work/e2" | head)"
grep -q ',4x,SDR$' "$work/swept.csv" || loom_fail "fabric plan has no widths and speeds: $(head -3 "$work/swept.csv")"
validate --expected "$work/swept.csv"
[ "$rc" = 0 ] || loom_fail "the swept fabric's own plan finds something: $(findings)"
loom_ok "fabric plan writes the swept fabric's $cables cables, the generator's, and reads back clean"

# ---- two host cables swapped ------------------------------------------------------------
a=$(sed -n 's/^Hca .*"\(.*\)"/\1/p' "$work/ft.net" | sed -n 1p)
b=$(sed -n 's/^Hca .*"\(.*\)"/\1/p' "$work/ft.net" | sed -n 2p)
leaf_a=$(grep -A1 "\"$a\"" "$work/ft.net" | sed -n 's/^\[1\] "\(.*\)"\[\([0-9]*\)\].*/\1 \2/p')
leaf_b=$(grep -A1 "\"$b\"" "$work/ft.net" | sed -n 's/^\[1\] "\(.*\)"\[\([0-9]*\)\].*/\1 \2/p')
set -- $leaf_a; la=$1; pa=$2
set -- $leaf_b; lb=$1; pb=$2
loom_ibsim_cmd "Unlink \"$a\"[1]"
loom_ibsim_cmd "Unlink \"$b\"[1]"
loom_ibsim_cmd "Link \"$la\"[$pa] \"$b\"[1]"
loom_ibsim_cmd "Link \"$lb\"[$pb] \"$a\"[1]"
relink swap
loom_ibnetdiscover | grep -A40 "\"$la\"" | grep -q "^\[$pa\].*# \"$b\"" ||
	loom_fail "ibnetdiscover does not show $la[$pa] cabled to $b"
validate
[ "$rc" = 5 ] || loom_fail "swap: exit $rc, not 5"
[ "$(findings | wc -l)" = 1 ] && findings | grep -q "^swapped|" ||
	loom_fail "two swapped cables are not one swapped finding: $(findings)"
grep -q "\"want\": \".*$la\[$pa\]" "$work/v.json" && grep -q "\"got\": \".*$la\[$pa\]" "$work/v.json" ||
	loom_fail "the swap does not say what $la[$pa] should have and has: $(cat "$work/v.json")"
validate --expected "$work/plan.csv"
[ "$(findings | wc -l)" = 1 ] && findings | grep -q "^swapped|" ||
	loom_fail "the CSV plan does not find one swap: $(findings)"
grep -q '"line": [0-9]' "$work/v.json" || loom_fail "the CSV finding has no plan line"
[ "$(events_of validation_issue swapped)" = 1 ] || loom_fail "not one validation_issue event for the swap"
if loom_ctl fabric issues >"$work/i.txt"; then loom_fail "issues exits 0 with a swap open"; fi
grep -q "swapped .*$la\[$pa\].*since" "$work/i.txt" || loom_fail "issues does not list the swap: $(cat "$work/i.txt")"
loom_ok "two swapped cables: one swapped finding naming $la[$pa], one event, listed by issues, exit 5"

loom_ibsim_cmd "Unlink \"$a\"[1]"
loom_ibsim_cmd "Unlink \"$b\"[1]"
loom_ibsim_cmd "Link \"$la\"[$pa] \"$a\"[1]"
loom_ibsim_cmd "Link \"$lb\"[$pb] \"$b\"[1]"
relink unswap
[ "$(events_of validation_issue_cleared swapped)" = 1 ] || loom_fail "the swap's clearing is not one event"
loom_ctl fabric issues --summary >"$work/i.txt" || loom_fail "issues after the repair: $(cat "$work/i.txt")"
loom_ok "the repaired swap clears with one event"

# ---- a missing cable (a leaf's uplink) --------------------------------------------------
up=$(grep -A40 '^Switch .*"leaf-1"' "$work/ft.net" | grep '"spine-' | head -1)
up_port=$(echo "$up" | sed 's/^\[\([0-9]*\)\].*/\1/')
loom_ibsim_cmd "Unlink \"leaf-1\"[$up_port]"
sweep missing
validate
[ "$rc" = 5 ] && [ "$(findings | wc -l)" = 1 ] && findings | grep -q "^missing|.*leaf-1\[$up_port\]" ||
	loom_fail "a missing cable is not one missing finding on leaf-1[$up_port]: $(findings)"
validate --expected "$work/plan.csv"   # loomd's rules and the client's plan, settled alike
[ "$rc" = 5 ] && [ "$(findings | wc -l)" = 1 ] && findings | grep -q "^missing|.*leaf-1\[$up_port\]" ||
	loom_fail "with --expected the missing uplink is not one missing finding: $(findings)"
loom_ibsim_cmd "ReLink \"leaf-1\"[$up_port]"
relink "missing back"
validate
[ "$rc" = 0 ] || loom_fail "the cable back: exit $rc: $(findings)"
[ "$(events_of validation_issue_cleared missing)" = 1 ] || loom_fail "the missing cable's clearing is not one event"
loom_ok "a missing cable: one missing finding on leaf-1[$up_port], cleared when it is back"

# ---- a link whose symbol errors exceed the BER threshold (telemetry's alarm) -------------
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
loom_ibsim_cmd 'PerformanceSet "leaf-2"[1] PortCounters.SymbolErrorCounter=500'
loom_ctl counters --now >/dev/null || loom_fail "counters --now (errors)"
validate
[ "$rc" = 4 ] && [ "$(findings | wc -l)" = 1 ] && findings | grep -q '^ber|.*leaf-2\[1\]' ||
	loom_fail "500 symbol errors on leaf-2[1] are not one ber warning on its link: exit $rc, $(findings)"
grep -q 'symbol error ratio' "$work/v.json" || loom_fail "the ber finding does not give the ratio: $(cat "$work/v.json")"
for i in 1 2 3; do loom_ctl counters --now >/dev/null || loom_fail "counters --now (calm $i)"; done
validate
[ "$rc" = 0 ] || loom_fail "the BER finding stays after the alarm cleared: $(findings)"
loom_ok "symbol errors over the BER threshold: one ber warning on leaf-2[1]'s link, gone when telemetry's alarm clears"

# ---- a slow link and a node by another name, from the net file --------------------------
loom_ibsim_stop
loom_gen slow fattree --levels 2 --radix 8 --slow 1
renamed=$(sed -n 's/^Hca .*"\(.*\)"/\1/p' "$work/slow.net" | sed -n 3p)
sed -i "s/\"$renamed\"/\"$renamed-x\"/" "$work/slow.net"
loom_ibsim "$work/slow.net"
loom_opensm
LD_PRELOAD=$PRELOAD iblinkinfo 2>/dev/null >"$work/linkinfo.txt" || :
[ "$(grep -c ' 1X ' "$work/linkinfo.txt")" -ge 1 ] || loom_fail "iblinkinfo shows no 1X link: $(head "$work/linkinfo.txt")"
slow_sw=$(grep -B100 ' 1X ' "$work/linkinfo.txt" | grep '^Switch' | tail -1 | sed 's/.* \(leaf-[0-9]*\|spine-[0-9]*\):.*/\1/')
loom_loomd "$work/loom.yaml"
sweep slow
validate
[ "$rc" = 4 ] || loom_fail "slow + renamed against the ibnetdiscover plan: exit $rc, not 4 (warnings)"
[ "$(findings | wc -l)" = 2 ] || loom_fail "not two findings for two faults: $(findings)"
findings | grep -q "^renamed|$renamed (GUID 0x[0-9a-f]*)\$" || loom_fail "no renamed $renamed (found by its GUID): $(findings)"
findings | grep "^slow|" | grep -q "$slow_sw" || loom_fail "no slow finding on $slow_sw's 1X link: $(findings)"
validate --expected "$work/plan.csv"
[ "$rc" = 5 ] && [ "$(findings | wc -l)" = 2 ] && findings | grep -q "^unknown-node|$renamed\$" &&
	findings | grep "^degraded|" | grep -q "$slow_sw" ||
	loom_fail "the CSV plan (names only, no widths): not one unknown-node $renamed and the 1X link degraded (below what its nodes enable): $(findings)"
loom_ok "a 1X link is one slow finding ($slow_sw, as iblinkinfo shows; degraded without widths in the plan); a renamed node is renamed (by GUID) or unknown-node (CSV)"

# ---- bad input ----------------------------------------------------------------------------
printf 'node,port,peer,peer_port\nleaf-0,1,host-0000,x\n' >"$work/bad.csv"
if loom_ctl fabric validate --expected "$work/bad.csv" 2>"$work/err.txt"; then loom_fail "a bad plan is accepted"; fi
grep -q "bad.csv:2" "$work/err.txt" || loom_fail "the bad plan's error does not name bad.csv:2: $(cat "$work/err.txt")"
printf 'node,port,peer,peer_port\nother-1,1,other-2,1\nother-3,1,other-4,1\nleaf-0,1,%s,1\n' "$a" >"$work/other.csv"
if loom_ctl fabric validate --expected "$work/other.csv" >"$work/o.txt" 2>&1; then :; fi
# (the subnet managers and multicast lines say what else was seen: no SM runs here)
[ "$(grep -v "^subnet managers\|^multicast" "$work/o.txt" | grep -c .)" -lt 6 ] &&
	grep -q "plan for another fabric" "$work/o.txt" ||
	loom_fail "a plan for another fabric is not one clear error: $(cat "$work/o.txt")"
loom_config "$(loom_subnet_conf ft)" "validation:" "  expected: $work/bad.csv"
if "$B/loomd" -n -c "$work/loom.yaml" >"$work/n.txt" 2>&1; then loom_fail "loomd -n accepts a broken plan"; fi
grep -q "validation.expected.*bad.csv:2" "$work/n.txt" || loom_fail "loomd -n does not name the plan's line: $(cat "$work/n.txt")"
loom_ok "a plan that does not parse names file:line (loomctl and loomd -n); a plan for another fabric is one error"

# ---- a reload with the plan broken keeps the running plan ---------------------------------
loom_config "$(loom_subnet_conf ft)" "validation:" "  expected: $work/good.topo"
cp "$work/good.topo" "$work/good.topo.kept"
{ cat "$work/good.topo.kept"; printf 'switchguid=0xnothex\n'; } >"$work/good.topo"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q "reload refused: .*validation.expected: .*good.topo" "$work/loomd.log" ||
	loom_fail "a reload with a broken plan is not refused naming it"
loom_ctl fabric validate --summary >"$work/s.txt" || :
grep -q " of $cables planned cables" "$work/s.txt" || loom_fail "the running plan is gone after a refused reload: $(cat "$work/s.txt")"
loom_ok "a reload with a broken plan is refused naming it; the running plan still checks"
