#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/validate.sh: the library side of validation (issue 22) on the
# 11664-host 3-level fat tree of 36-port switches: loom-fabgen writes it,
# bench/validate_bench reads it, makes its cabling plan (written as a CSV),
# and times every rule of the check after a sweep: plan_read of that CSV,
# cabling_check, health_check, then issue 43's, each over the data a sweep
# or its readers would hand it (subnet managers and M_Keys, partitions over
# synthesised PKey tables, rails, the Ethernet plan rows against LLDP,
# multicast over 64 groups of every host): the median and worst of each and
# of all of them together, with the peak RSS. Goal: all together < 1 s. The fabric is
# clean: any finding is a false positive (exit 3). Then the same plan
# against a damaged copy (loom-fabgen --cut 16 --slow 16): the time when
# there are findings to make.
#
#   sh bench/validate.sh [--levels 2|3] [--radix K] [--rounds N] [--keep]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 rounds=5 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/validate.sh [--levels 2|3] [--radix K] [--rounds N] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/validate_bench"; do
	[ -x "$t" ] || { echo "bench/validate.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-validate.XXXXXX)
[ $keep = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; $(uname -sr), $(nproc) cores"
"$B/bench/validate_bench" "$work/fabric.net" "$work/plan.csv" "$rounds"
echo
echo "## the same plan against loom-fabgen ... --cut 16 --slow 16 (seed 1)"
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" --cut 16 --slow 16 \
	-o "$work/damaged.net"
"$B/bench/validate_bench" "$work/fabric.net" "$work/plan.csv" "$rounds" "$work/damaged.net" \
	2>"$work/damaged.err"
echo "(the first 20 findings: $work/damaged.err with --keep)"
