#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The rules of a healthy fabric (lib/validate/health.c) and the cabling check
# on what ibnetdiscover says of a real simulated subnet: a 2-level fat tree
# of 8-port switches run by ibsim, its LIDs assigned by OpenSM. The clean
# subnet has no finding (real LIDs: no conflict, a switch's ports sharing
# port 0's; real GUIDs and descriptions; recognised as a fat tree). Then the
# test unplugs one leaf up link through ibsim's console (Unlink): against
# the plan made from the clean subnet it is one `missing` cable, and the
# fat-tree rules add exactly one `leaf-uplinks` for that leaf. Then the
# console relinks it and the subnet is clean again.
# Driver: bench/validate_bench (topo_file, plan_from_fab, plan_read,
# cabling_check, health_check), one round.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_work
cd "$work"
[ -x "$B/bench/validate_bench" ] || loom_skip "no $B/bench/validate_bench (build it)"

loom_gen ft fattree --levels 2 --radix 8
loom_ibsim "$work/ft.net"
loom_opensm

# validate NAME [CHECKED]: the plan from clean.ibnd, the checks on CHECKED
# (default: the plan's own subnet); "findings: N code=M ..." in $work/NAME.out
validate() {
	"$B/bench/validate_bench" "$work/clean.ibnd" "$work/plan.csv" 1 ${2:+"$2"} \
		>"$work/$1.out" 2>"$work/$1.err" || {
		cat "$work/$1.out" "$work/$1.err"; loom_fail "$1: validate_bench failed"; }
	sed -n 's/^rounds: 1; //p' "$work/$1.out"
}

loom_ibnetdiscover >"$work/clean.ibnd" || loom_fail "ibnetdiscover"
grep -q 'lid [1-9]' "$work/clean.ibnd" || loom_fail "ibnetdiscover shows no LIDs: $(head "$work/clean.ibnd")"
got=$(validate clean)
[ "$got" = "findings: 0" ] || { cat "$work/clean.err"; loom_fail "clean subnet: $got"; }
grep -q '^fabric: 44 nodes (12 switches), 64 links' "$work/clean.out" ||
	loom_fail "clean subnet: not the generated tree: $(head -n1 "$work/clean.out")"
loom_ok "clean subnet (OpenSM's LIDs, ibnetdiscover's view): no finding"

# leaf-0's first up link (ports 1-4 carry hosts, 5-8 go up)
peer=$(sed -n '/^Switch 8 "leaf-0"/,/^$/p' "$work/ft.net" | sed -n 's/^\[5\] \("[^"]*"\[[0-9]*\]\).*/\1/p')
[ -n "$peer" ] || loom_fail "no up link on leaf-0[5] in ft.net"
loom_ibsim_cmd 'Unlink "leaf-0"[5]'
loom_ibnetdiscover >"$work/cut.ibnd" || loom_fail "ibnetdiscover after Unlink"
got=$(validate cut "$work/cut.ibnd")
[ "$got" = "findings: 2 missing=1 leaf-uplinks=1" ] || { cat "$work/cut.err"; loom_fail "unplugged: $got"; }
grep -q '^finding: missing .*leaf-0\[5\]' "$work/cut.err" ||
	loom_fail "unplugged: the missing cable is not leaf-0[5]'s: $(cat "$work/cut.err")"
grep -q '^finding: leaf-uplinks leaf-0 (want 4 up links (as 7 of 8 leaves), got 3 up links)' "$work/cut.err" ||
	loom_fail "unplugged: leaf-uplinks: $(cat "$work/cut.err")"
loom_ok "leaf-0[5] - $peer unplugged: one missing cable, one leaf-uplinks for leaf-0"

loom_ibsim_cmd "Link \"leaf-0\"[5] $peer"
loom_ibnetdiscover >"$work/relinked.ibnd" || loom_fail "ibnetdiscover after Link"
got=$(validate relinked "$work/relinked.ibnd")
[ "$got" = "findings: 0" ] || { cat "$work/relinked.err"; loom_fail "relinked: $got"; }
loom_ok "relinked: no finding"
