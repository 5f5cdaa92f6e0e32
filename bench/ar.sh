#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/ar.sh: what adaptive routing groups would give, against the static
# tables, on full and degraded fat trees of 1000+ hosts (issue 7). For each
# fabric, loom's engine routes it offline (`loomctl route compute`), then
# the AR groups of every switch are computed (tree mode: every shortest-path
# port when the table's is one) and the same random bisections are judged
# twice: with the static tables, and with every switch splitting each flow
# evenly over its group. Prints, side by side: EBB static, EBB with AR, the
# gain, the groups per switch, entries with alternatives, and whether the
# channel dependency graph with every AR member stays acyclic, and what
# programming it all would take: the SubnSets of every switch's AR plan
# (`route compute --ar-plan`: group table and AR LFT blocks, two ARInfo),
# in all and for the largest switch.
#
#   sh bench/ar.sh [--quick] [--large]
#
# --quick: the two 2-level trees only; --large adds the 11664-host tree.
# The EBB with AR is a fixed-split estimate (real AR also steers around hot
# links), so it is a lower bound of what the switches would do.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
quick=0 large=0
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	--large) large=1 ;;
	*) echo "usage: sh bench/ar.sh [--quick] [--large]" >&2; exit 2 ;;
	esac
done
for t in loomctl loom-fabgen; do
	[ -x "$B/$t" ] || { echo "bench/ar.sh: $B/$t is not built" >&2; exit 1; }
done
command -v python3 >/dev/null || { echo "bench/ar.sh: python3 is missing" >&2; exit 1; }
work=$(mktemp -d /tmp/loom-bench-ar.XXXXXX)
trap 'rm -rf "$work"' EXIT

# name: fabgen arguments (the same fabrics as bench/routing.sh's trees)
set -- "ft2-1152:fattree --levels 2 --radix 48" \
	"ft2-1152-cut32:fattree --levels 2 --radix 48 --cut 32 --seed 7"
[ $quick = 1 ] || set -- "$@" "ft3-1024:fattree --levels 3 --radix 16" \
	"ft3-1024-cut48:fattree --levels 3 --radix 16 --cut 48 --seed 7"
[ $large = 0 ] || set -- "$@" "ft3-11664:fattree --levels 3 --radix 36" \
	"ft3-11664-cut200:fattree --levels 3 --radix 36 --cut 200"

printf '%-18s %6s %-7s %10s %10s %6s %12s %14s %8s %7s %16s\n' fabric hosts engine ebb-static \
	ebb-ar gain groups-max alternatives ar-cdg ar-s program-sets
for f in "$@"; do
	name=${f%%:*}
	# shellcheck disable=SC2086
	"$B/loom-fabgen" ${f#*:} -o "$work/$name.net"
	"$B/loomctl" --json route compute --topology "$work/$name.net" --ar tree \
		--ar-plan "$work/$name.plan" --shifts 1 --random 1 >"$work/$name.json" ||
		[ -s "$work/$name.json" ] || { echo "$name: route compute failed" >&2; exit 1; }
	python3 - "$name" "$work/$name.json" "$work/$name.plan" <<'PY'
import json, sys
name, path = sys.argv[1], sys.argv[2]
sets, per, cur = 0, 0, 0
for line in open(sys.argv[3]):
    if line.startswith("# switch"):
        per, cur = max(per, cur), 0
    elif line.startswith("Set "):
        sets, cur = sets + 1, cur + 1
per = max(per, cur)
d = json.load(open(path))
a = d["adaptive_routing"]
engine = d["engine"]
print("%-18s %6d %-7s %10.3f %10.3f %5.2fx %12s %14s %8s %7.2f %16s" % (
    name, d["ca_ports"], engine, a["ebb_static"], a["ebb"], a["ebb_gain"],
    "%d/%.1f" % (a["groups_max"], a["groups_mean"]),
    "%d/%d" % (a["entries_ar"], a["entries"]),
    "acyclic" if a["cdg_acyclic"] else "CYCLE", a["groups_s"] + a["cdg_s"] + a["ebb_s"],
    "%d/%d" % (sets, per)))
PY
done
echo "ebb: mean over 16 seeded random bisections of 1/max link load per flow;"
echo "ebb-ar: the same flows split evenly over each switch's AR group (fixed split)"
echo "program-sets: SubnSets of every switch's AR plan / of the largest switch's"
echo "  (each is also read back, so about twice as many SMPs go out)"
