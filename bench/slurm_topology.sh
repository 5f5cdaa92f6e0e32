#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/slurm_topology.sh: Slurm's topology.conf (issue 24) for the
# 11664-host 3-level fat tree of 36-port switches. loom-fabgen writes it;
# bench/slurm_topo_bench times what loomd does after each sweep (build,
# text, diff: median and worst of ROUNDS, peak RSS); then the whole
# `loomctl slurm topology --topology FILE` (net file read included) under
# /usr/bin/time, ROUNDS times: wall time and max RSS. Goal: < 1 s.
#
#   sh bench/slurm_topology.sh [--levels 2|3] [--radix K] [--rounds N]
#
# Needs only a build (top_builddir or ./build): no ibsim, no root.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
levels=3 radix=36 rounds=5
while [ $# -gt 0 ]; do
	case $1 in
	--levels) levels=$2; shift ;;
	--radix) radix=$2; shift ;;
	--rounds) rounds=$2; shift ;;
	*) echo "usage: sh bench/slurm_topology.sh [--levels 2|3] [--radix K] [--rounds N]" >&2
	   exit 2 ;;
	esac
	shift
done
for t in "$B/loom-fabgen" "$B/bench/slurm_topo_bench" "$B/loomctl"; do
	[ -x "$t" ] || { echo "bench/slurm_topology.sh: $t is missing: build first" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-slurm.XXXXXX)
trap 'rm -rf "$work"' EXIT
"$B/loom-fabgen" fattree --levels "$levels" --radix "$radix" -o "$work/fabric.net"
echo "## loom-fabgen fattree --levels $levels --radix $radix; $(uname -sr), $(nproc) cores"
"$B/bench/slurm_topo_bench" "$work/fabric.net" "$rounds"
echo
echo "## loomctl slurm topology --topology FILE (net file read included), $rounds runs"
i=0
while [ $i -lt "$rounds" ]; do
	/usr/bin/time -f "%e %M" -o "$work/time.$i" "$B/loomctl" slurm topology \
		--topology "$work/fabric.net" >"$work/topology.conf"
	i=$((i + 1))
done
cat "$work"/time.* | sort -n | awk '{ t[NR] = $1; if ($2 > m) m = $2 }
	END { printf "wall median %.2f s, worst %.2f s; max RSS %d MB\n", t[int((NR + 1) / 2)], t[NR], m / 1024 }'
echo "the file: $(grep -c '^SwitchName=' "$work/topology.conf") switch lines, $(wc -c <"$work/topology.conf") bytes, longest line $(awk '{ if (length($0) > m) m = length($0) } END { print m }' "$work/topology.conf") bytes"
