#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/job_impact.sh: `loomctl job` on the 11664-host 3-level fat tree of
# 36-port switches (issue 24's benchmark): loom-fabgen writes it,
# bench/job_impact_bench stores it as loomd would (a sweep, the fat-tree
# engine's tables as a read, the fabric's hosts in tenants: the job of
# --hosts hosts from host-00000, as Slurm places a job, then the rest in
# jobs of 512; errors and an alarm on a spine port of the job) and times
# job_db_impact, the library behind `loomctl job` and its --db (median and
# worst of --rounds):
#   cold    fresh connection and index: fabric, tables, every tenant's paths
#   warm    loomd's kept index, nothing changed since the last request
#   hosts   --hosts of the same hosts: their paths walked afresh
#   health  the jobs named on `loomctl health`'s rows (warm)
#   all     --hosts of the whole fabric: sampled (2^20 pairs at most)
# Goal: a 1024-host job < 1 s. Sampling: every ordered pair up to 2^20
# (a 1024-host job, 1047552 pairs, is walked whole); above, floor(2^20 /
# (N - 1)) sources drawn with the seed, each to every other host.
#
#   sh bench/job_impact.sh [--levels 2|3] [--radix K] [--hosts N] [--rounds N] [--keep]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 hosts=1024 rounds=5 keep=0
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--hosts) hosts=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/job_impact.sh [--levels 2|3] [--radix K] [--hosts N]" \
		"[--rounds N] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/job_impact_bench"; do
	[ -x "$t" ] || { echo "bench/job_impact.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-job.XXXXXX)
[ $keep = 1 ] && echo "work directory: $work" || trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; a $hosts-host job;" \
	"$(uname -sr), $(nproc) cores"
"$B/bench/job_impact_bench" "$work/fabric.net" "$work/loom.db" "$hosts" "$rounds" \
	2>"$work/bench.err" || { cat "$work/bench.err" >&2; exit 1; }
