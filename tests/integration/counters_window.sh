#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The counters as the PMA holds them, and health's window (issue 39): a port
# whose SymbolErrorCounter ibsim's console sets to 18500 shows 18500 in
# `loomctl counters` (TOTALS, as ibqueryerrors shows it) on the read that saw
# it move and on the quiet reads after (where the deltas alone show
# nothing); --since-reset lists only the ports with errors counted, --delta
# the table without the values. `loomctl health` still lists the port two
# quiet reads after its errors stopped, within telemetry.window_s (4 s here),
# and no longer once the window has passed; --db answers the same with
# --window.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm
loom_config "$(loom_subnet_conf ft)" 'telemetry:' '  interval_s: 0' '  window_s: 4'
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "first read"

loom_ibsim_cmd 'PerformanceSet "leaf-1"[2] PortCounters.SymbolErrorCounter=18500'
loom_ctl counters --now >/dev/null || loom_fail "second read"
loom_ctl counters leaf-1:2 >"$work/c1.txt" || loom_fail "counters leaf-1:2"
grep -q 'SymbolErrorCounter+18500 *SymbolErrorCounter=18500' "$work/c1.txt" ||
	loom_fail "the read that saw the move does not show the delta and the value: $(cat "$work/c1.txt")"
loom_ctl counters --now >/dev/null || loom_fail "third read (quiet)"
loom_ctl counters leaf-1:2 >"$work/c2.txt" || loom_fail "counters leaf-1:2"
grep -q 'SymbolErrorCounter=18500' "$work/c2.txt" ||
	loom_fail "a quiet read after the errors does not show the PMA's 18500: $(cat "$work/c2.txt")"
grep -q 'SymbolErrorCounter+' "$work/c2.txt" && loom_fail "a quiet read shows a delta: $(cat "$work/c2.txt")"
loom_ctl counters --since-reset >"$work/since.txt" || loom_fail "counters --since-reset"
[ "$(grep -c 'SymbolErrorCounter=' "$work/since.txt")" -eq 1 ] && grep -q '^leaf-1 *2 ' "$work/since.txt" ||
	loom_fail "--since-reset does not list leaf-1:2 alone: $(cat "$work/since.txt")"
loom_ctl counters --delta leaf-1:2 >"$work/delta.txt" || loom_fail "counters --delta"
grep -q 'TOTALS\|=18500' "$work/delta.txt" && loom_fail "--delta shows the values: $(cat "$work/delta.txt")"
loom_ok "the counters' values as the PMA holds them show beside the deltas, on quiet reads too"

# Two quiet reads after the errors stopped (one done above): still listed.
loom_ctl counters --now >/dev/null || loom_fail "fourth read (quiet)"
loom_ctl health >"$work/h1.txt" || :
grep -q '^leaf-1:2 .*0 (18500 at .*SymbolErrorCounter=18500' "$work/h1.txt" ||
	loom_fail "health does not list leaf-1:2 within telemetry.window_s: $(cat "$work/h1.txt")"
loom_ctl --json health | python3 -c '
import json, sys
e = [r for r in json.load(sys.stdin)["errors"] if r["node"] == "leaf-1" and r["port"] == 2]
assert e and e[0]["errors"] == 0 and e[0]["last_errors"] == 18500 and e[0]["counts"] == {"SymbolErrorCounter": 18500}, e
' || loom_fail "health --json lacks the window's row"
"$B/loomctl" --db "$work/loom.db" health --window 3600 | grep -q '^leaf-1:2 ' ||
	loom_fail "loomctl --db health --window 3600 does not list leaf-1:2"
loom_ok "an error that stopped two reads ago is listed within telemetry.window_s"

sleep 5
loom_ctl counters --now >/dev/null || loom_fail "read after the window"
loom_ctl health >"$work/h2.txt" || :
grep -q 'leaf-1:2 ' "$work/h2.txt" && loom_fail "health lists leaf-1:2 after telemetry.window_s: $(cat "$work/h2.txt")"
"$B/loomctl" --db "$work/loom.db" health --window 3600 | grep -q '^leaf-1:2 ' ||
	loom_fail "loomctl --db health --window 3600 lost leaf-1:2"
loom_ok "and not once the window has passed (a longer --window still lists it)"
echo "counters_window.sh: all ok"
