#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/ar_program.sh: how long `loomctl ar program` takes on a large live
# fabric, and how many SMPs it sends (issue 23). For each fabric: a fresh
# ibsim in a private network namespace, OpenSM once (SUBNET UP, ftree), then
# the `loomd --program-ar` child that `ar program` runs, timed from the
# outside, for each loomd given and each window (so that two builds and
# two windows meet the same simulator), next to what the child does before
# it programs: its walk (`loomd --walk`) and the read of every switch's
# forwarding table (`loomd --read-lfts`), timed alone. A child that
# reports it (this tree's) also gives the programming's own time
# (programming_ms: the SMP exchanges alone) and the most switches it had
# under way at once (in_flight).
#
#   sh bench/ar_program.sh [--large] [--loomd PATH]... [--timeout-ms N]
#                          [--retries N] [--max-smps "N..."] [--dry-run]
#                          [--loomctl] [--silent [--switches N]]
#                          [--programmed [--rtt-us U]]
#
# Fabrics: 3-level fat trees of 16- and 24-port switches (1024 and 3456
# hosts); --large adds 36-port (11664 hosts, 1620 switches: about 2 minutes
# of ibsim and OpenSM before the first child). --loomd (repeatable, default
# $B/loomd) names the builds to compare; the MAD settings are discovery's
# (timeout_ms, retries, max_smps: the window of SMPs in flight, here a
# list: each is a run; 1 is one switch at a time, as before issue 23),
# defaults 200, 3 and 64 as in loom.yaml. ibsim answers no vendor SMP (every ARInfo
# Get comes back at once with a timeout status), so every switch ends
# "unsupported" after its GetCap tries: the run measures the walk, the LFT
# read and the window, not a real switch's Sets.
#
# --loomctl also times `loomctl --json ar program` end to end for each loomd
# (each on a loom.yaml of its own with ar.program: true and the first
# window; discover --wait first): the child and loomd's recording of the
# result (one event a switch) together.
#
# --silent runs no ibsim: the same programming code (bench/ar_sequences_bench)
# behind a fake port whose switches never answer, as a real switch without
# the vendor attribute may: each try then costs timeout_ms, which is where
# one switch at a time is slow. For each fabric's switch count (or
# --switches N) and each window: the wall time and the SMPs.
#
# --programmed runs no ibsim either: the fabric is routed offline (ftree)
# and every switch has AR, answering each SMP after a round trip of
# --rtt-us (default 50) as bench/ar_sequences_bench's model of an NVIDIA
# switch does: every switch goes through its whole sequence (GetCap, the
# self-check, every Set and read-back) and ends programmed. For each
# fabric and window: the wall time and the SMPs.
#
# Needs root (unshare -n: ibsim's socket is fixed), ibsim, opensm,
# python3 and a build (top_builddir or ./build).
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
PRELOAD=/usr/lib/x86_64-linux-gnu/umad2sim/libumad2sim.so
large=0 loomds="" timeout=200 retries=3 smps=64 dry=0 silent=0 nsw='' ctl=0 prog=0 rtt=50
while [ $# -gt 0 ]; do
	case $1 in
	--large) large=1 ;;
	--loomd) loomds="$loomds $(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift ;;
	--timeout-ms) timeout=$2; shift ;;
	--retries) retries=$2; shift ;;
	--max-smps) smps=$2; shift ;;  # a list: "1 64"
	--dry-run) dry=1 ;;
	--silent) silent=1 ;;
	--loomctl) ctl=1 ;;
	--programmed) prog=1 ;;
	--rtt-us) rtt=$2; shift ;;
	--switches) nsw=$2; shift ;;
	*) echo "usage: sh bench/ar_program.sh [--large] [--loomd PATH]... [--timeout-ms N]" \
		"[--retries N] [--max-smps \"N...\"] [--dry-run] [--loomctl] [--silent [--switches N]] [--programmed [--rtt-us U]]" >&2
		exit 2 ;;
	esac
	shift
done
set -- "ft3-1024:fattree --levels 3 --radix 16" "ft3-3456:fattree --levels 3 --radix 24"
[ $large = 0 ] || set -- "$@" "ft3-11664:fattree --levels 3 --radix 36"
if [ $prog = 1 ]; then
	[ -x "$B/bench/ar_sequences_bench" ] ||
		{ echo "bench/ar_program.sh: $B/bench/ar_sequences_bench is not built" >&2; exit 1; }
	work=$(mktemp -d /tmp/loom-bench-arprog.XXXXXX)
	trap 'rm -rf "$work"' EXIT
	echo "switches with AR, round trip $rtt us; $(nproc) cores; $(date -u +%F)"
	for f in "$@"; do
		# shellcheck disable=SC2086
		"$B/loom-fabgen" ${f#*:} -o "$work/${f%%:*}.net"
		for w in $smps; do
			printf '%-10s ' "${f%%:*}"
			"$B/bench/ar_sequences_bench" --topology "$work/${f%%:*}.net" --window "$w" \
				--rtt-us "$rtt"
		done
	done
	exit 0
fi
if [ $silent = 1 ]; then
	[ -x "$B/bench/ar_sequences_bench" ] ||
		{ echo "bench/ar_program.sh: $B/bench/ar_sequences_bench is not built" >&2; exit 1; }
	echo "silent switches (no answer), timeout_ms $timeout, retries $retries; $(nproc) cores; $(date -u +%F)"
	for f in "$@"; do
		# shellcheck disable=SC2086
		n=${nsw:-$("$B/loom-fabgen" ${f#*:} --stats | sed -n 's/^switches=//p')}
		for w in $smps; do
			printf '%-10s ' "${f%%:*}"
			"$B/bench/ar_sequences_bench" --switches "$n" --window "$w" --silent \
				--timeout-ms "$timeout" --retries "$retries"
		done
	done
	exit 0
fi
[ -n "$loomds" ] || loomds=$B/loomd
for t in $loomds "$B/loom-fabgen"; do
	[ -x "$t" ] || { echo "bench/ar_program.sh: $t is not built" >&2; exit 1; }
done
for t in ibsim opensm unshare python3; do
	command -v $t >/dev/null || { echo "bench/ar_program.sh: $t is missing" >&2; exit 1; }
done
work=$(mktemp -d /tmp/loom-bench-arprog.XXXXXX)
trap 'rm -rf "$work"' EXIT

echo "timeout_ms $timeout, retries $retries, dry_run $dry; $(nproc) cores; $(date -u +%F)"
printf '%-10s %6s %5s %7s %7s  %-24s %6s %9s %8s %6s %6s %s\n' fabric hosts sw walk-s lfts-s \
	loomd window child-s prog-ms flight smps results
for f in "$@"; do
	name=${f%%:*}
	dir=$work/$name
	mkdir -p "$dir"
	# shellcheck disable=SC2086
	"$B/loom-fabgen" ${f#*:} -o "$dir/fabric.net"
	flags=$(sed -n 's/^# ibsim flags: //p' "$dir/fabric.net")
	printf 'routing_engine ftree\nlog_flags 0x03\n' >"$dir/opensm.conf"
	# The script is the namespace's, with its own variables; $loomds a list.
	# shellcheck disable=SC2016,SC2086
	BENCH_SIM=$S/bench/bench_sim.sh unshare -n sh -c '
		dir=$1 flags=$2 preload=$3 timeout=$4 retries=$5 smps=$6 dry=$7 ctl=$8 ctlbin=$9
		shift 9
		. "$BENCH_SIM"
		ip link set lo up
		cd "$dir"
		# shellcheck disable=SC2086
		bench_sim_start fabric.net $flags
		OSM_CACHE_DIR=$dir LD_PRELOAD=$preload opensm -F opensm.conf -o -f opensm.log \
			>opensm.out 2>&1 || :
		grep -q "SUBNET UP" opensm.log || { echo "OpenSM did not bring $dir up" >&2; exit 1; }
		timed() { # timed NAME LOOMD ARGS...: NAME.out, NAME.err, NAME.s
			out=$1; shift
			t0=$(date +%s.%N)
			LD_PRELOAD=$preload "$@" >"$out.out" 2>"$out.err" || :
			t1=$(date +%s.%N)
			echo "$t0 $t1" | awk "{ printf \"%.2f\n\", \$2 - \$1 }" >"$out.s"
		}
		first=$1 w1=${smps%% *}
		timed walk "$first" --walk bench "" 0 "$timeout" "$retries" "$w1"
		timed lfts "$first" --read-lfts bench "" 0 "$timeout" "$retries" "$w1"
		k=0
		for l in "$@"; do
			k=$((k + 1))
			for w in $smps; do
				timed "prog$k-$w" "$l" --program-ar bench "" 0 "$timeout" "$retries" \
					"$w" tree ffff 0 "$dry"
			done
		done
		k=0
		for l in "$@"; do
			[ "$ctl" = 1 ] || break
			k=$((k + 1))
			c=$dir/ctl$k
			mkdir -p "$c"
			printf "log:\n  level: info\ndatabase:\n  path: %s/loom.db\ncontrol:\n  socket: %s/loomd.sock\nopensm:\n  report_socket: %s/osm.sock\ntelemetry:\n  interval_s: 0\ndiscovery:\n  interval: 0\n  timeout_ms: %s\n  retries: %s\n  max_smps: %s\nar:\n  program: true\n" \
				"$c" "$c" "$c" "$timeout" "$retries" "$w1" >"$c/loom.yaml"
			LD_PRELOAD=$preload "$l" -f -c "$c/loom.yaml" 2>"$c/loomd.log" &
			pid=$!
			i=0
			until [ -S "$c/loomd.sock" ] || [ $i -ge 100 ]; do sleep 0.1; i=$((i + 1)); done
			"$ctlbin" -s "$c/loomd.sock" discover --wait >/dev/null 2>&1 || :
			timed "ctl$k" "$ctlbin" -s "$c/loomd.sock" --json ar program
			kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || :
		done
		bench_sim_stop
	' sh "$dir" "$flags" "$PRELOAD" "$timeout" "$retries" "$smps" "$dry" "$ctl" "$B/loomctl" \
		$loomds
	k=0
	for l in $loomds; do
		k=$((k + 1))
		for w in $smps; do
		python3 - "$dir" "$k-$w" "$name" "$l" "$w" <<'PY'
import json, re, sys
d, k, name, loomd, window = sys.argv[1:6]
hosts = sw = 0
for line in open(d + "/fabric.net"):
    hosts += line.startswith("Hca")
    sw += line.startswith("Switch")
rd = lambda f: open("%s/%s" % (d, f)).read().strip()
done, lines = None, 0
for line in open("%s/prog%s.out" % (d, k)):
    try:
        o = json.loads(line)
    except ValueError:
        continue
    lines += "switch" in o
    done = o.get("done", done)
walk, lfts, prog = float(rd("walk.s")), float(rd("lfts.s")), float(rd("prog%s.s" % k))
ms = flight = "-"
if done is None:
    res, smps = "FAILED: " + rd("prog%s.out" % k)[:200] + rd("prog%s.err" % k)[:200], "-"
else:
    ms = str(done.get("programming_ms", "-"))
    flight = str(done.get("in_flight", "-"))
    res = " ".join("%s=%d" % (x, done[x]) for x in
                   ("programmed", "unsupported", "refused", "failed", "dry_runs") if done[x])
    smps = str(done["smps"])
    assert lines == done["switches"] == sw, (lines, done["switches"], sw)
short = loomd if len(loomd) <= 24 else "..." + loomd[-21:]
print("%-10s %6d %5d %7.2f %7.2f  %-24s %6s %9.2f %8s %6s %6s %s" % (
    name, hosts, sw, walk, lfts, short, window, prog, ms, flight, smps, res))
PY
		done
	done
	k=0
	for l in $loomds; do
		[ $ctl = 1 ] || break
		k=$((k + 1))
		python3 - "$dir" "$k" "$name" "$l" <<'PY'
import json, sys
d, k, name, loomd = sys.argv[1:5]
t = float(open("%s/ctl%s.s" % (d, k)).read())
try:
    a = json.load(open("%s/ctl%s.out" % (d, k)))
    r = a["run"]
    print("%-10s loomctl ar program, %s: %.2f s, %d switches, %d SMPs, %d events, %s unsupported" % (
        name, loomd, t, r["switches"], r["smps"], a["events"], r["unsupported"]))
except (ValueError, KeyError) as e:
    print("%-10s loomctl ar program, %s: %.2f s, FAILED: %s" % (
        name, loomd, t, open("%s/ctl%s.out" % (d, k)).read()[:300]))
PY
	done
done
echo "walk-s, lfts-s: loomd --walk and --read-lfts alone (the first loomd, first window);"
echo "child-s: the whole --program-ar child (its own walk and LFT read, then the"
echo "  programming); window: max_smps; prog-ms: the programming alone and flight:"
echo "  the most switches under way at once (from the child's done line, - when it"
echo "  does not say); smps: the SMPs the programming sent (every try)"
