#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/job_history.sh: the job post-mortem's history of the forwarding
# tables (issue 42: `loomctl job JOB --from T1 --to T2`) on the 11664-host
# 3-level fat tree of 36-port switches: loom-fabgen writes it,
# bench/job_history_bench stores it as loomd would (a sweep, the fat-tree
# engine's tables as a read, a job of --hosts hosts), then --reroutes cable
# cuts an hour apart, each rerouted as OpenSM's plugin does (only the
# destinations that crossed the cable) and stored as opensm.read_tables
# stores a read. Prints what a full read and each reroute's version cost
# in bytes, the time to store a read (lfts and history), job_history_db
# over every version of the window, and the pruning at the window's
# middle. Goal: a day of reroutes costs a few percent of one full read
# each, not a copy of every table per read.
#
#   sh bench/job_history.sh [--levels 2|3] [--radix K] [--hosts N] [--reroutes N] [--keep]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 hosts=1024 reroutes=24 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--hosts) hosts=$2; shift ;;
	--reroutes) reroutes=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/job_history.sh [--levels 2|3] [--radix K] [--hosts N]" \
		"[--reroutes N] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/job_history_bench"; do
	[ -x "$t" ] || { echo "bench/job_history.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-jobhist.XXXXXX)
[ $keep = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; a $hosts-host job;" \
	"$reroutes reroutes; $(uname -sr), $(nproc) cores"
"$B/bench/job_history_bench" "$work/fabric.net" "$work/loom.db" "$hosts" "$reroutes" \
	2>"$work/bench.err" || { cat "$work/bench.err" >&2; exit 1; }
echo "database: $(du -k "$work/loom.db" | cut -f1) KiB"
