#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/isolation_loss.sh: issue 42's offline loss computation (what one
# more switch cable out of the routes costs them) on the 11664-host 3-level
# fat tree of 36-port switches, no simulator: loom-fabgen writes it,
# bench/isolation_loss times the routes now (rt_route_loom + rt_loss_judge)
# and, for CANDIDATES cables (half leaf-to-middle, half middle-to-top),
# the graph without the cable, the incremental reroute and the judgement
# (rt_loss_judge_after, against rt_loss_judge of every pair: they must
# agree), on one thread, on every core, and on every core the old way (a
# fabric copy per candidate, --fab). Goal: a candidate under 0.3 s. The
# verdicts checksum must be the same on every line (the results never
# depend on the threads or on how the graph is made).
#
#   sh bench/isolation_loss.sh [--levels 2|3] [--radix K] [--candidates N] [--keep]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 cand=20 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--candidates) cand=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/isolation_loss.sh [--levels 2|3] [--radix K] [--candidates N] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/isolation_loss"; do
	[ -x "$t" ] || { echo "bench/isolation_loss.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-isoloss.XXXXXX)
[ $keep = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; $(uname -sr), $(nproc) cores," \
	"load $(cut -d' ' -f1-3 /proc/loadavg)"
for run in "1" "0" "0 --fab"; do
	echo
	# shellcheck disable=SC2086
	"$B/bench/isolation_loss" "$work/fabric.net" "$cand" $run
done
