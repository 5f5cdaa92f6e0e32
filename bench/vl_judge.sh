#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/vl_judge.sh: issue 43's credit loops per VL as route check judges
# them, on the 11664-host 3-level fat tree of 36-port switches routed by
# loom's engine: loom-fabgen writes it, bench/vl_judge_bench lays out the
# SL-to-VL tables of every usable switch port pair, writes and reads the SL
# file, and times the pairs' metrics without and with the per-VL look-up
# (median and worst of 3), with the peak RSS. The judge rides on route
# check's all-pairs walk; its own cost is the difference.
#
#   sh bench/vl_judge.sh [--levels 2|3] [--radix K] [--rounds N] [--threads T]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 rounds=3 threads=0
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--threads) threads=$2; shift ;;
	*) echo "usage: sh bench/vl_judge.sh [--levels 2|3] [--radix K] [--rounds N] [--threads T]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/vl_judge_bench"; do
	[ -x "$t" ] || { echo "bench/vl_judge.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-vl.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; $(uname -sr), $(nproc) cores"
"$B/bench/vl_judge_bench" "$work/fabric.net" "$rounds" "$threads"
