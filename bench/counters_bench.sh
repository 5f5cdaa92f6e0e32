# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# shellcheck shell=sh disable=SC2154  # $work and $top: the caller's
# bench/counters_bench.sh: what bench/telemetry.sh and bench/latency_counters.sh
# share (sourced, not run): the fabric the counters reader is handed, one
# timed run of a command with ibsim's CPU meanwhile, the reader's answer
# summed up, and the figures' minimum and median.
#
# Needs, from the caller: tests/integration/lib.sh sourced ($B, $PRELOAD,
# $LOOM_SIM_PID, loom_fail), $work, $top (the source tree), and CB_PRELOAD (what each measured
# command is preloaded with: umad2sim, or the latency model before it).
CB_TCK=$(getconf CLK_TCK)

cb_median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
cb_min() { sort -n | head -n 1; }
# CPU ticks of a process: its own and its reaped children's.
cb_cpu_ticks() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }

# cb_fabric: $work/fabric.wire, the fabric as loomd hands it to the reader
# (fab_wire, written by `loomd --walk`), and $work/ibnd.cache, the cache
# `ibqueryerrors --load-cache` reads. Neither under the latency model: they
# are the inputs, not the measure.
cb_fabric() {
	LD_PRELOAD=$PRELOAD "$B/loomd" --walk bench "" 0 200 3 64 >"$work/fabric.wire" 2>"$work/walk.err" ||
		loom_fail "loomd --walk: $(cat "$work/walk.err")"
	LD_PRELOAD=$PRELOAD ibnetdiscover --cache "$work/ibnd.cache" >/dev/null 2>&1 ||
		loom_fail "ibnetdiscover --cache"
}

# cb_measure NAME CMD...: one run under /usr/bin/time (the preload only on
# the command, not on time itself), with ibsim's CPU meanwhile. Appends
# "wall_s cpu_s maxrss_kb ibsim_cpu_s" to $work/NAME.
cb_measure() {
	_name=$1; shift
	_s0=$(cb_cpu_ticks "$LOOM_SIM_PID")
	/usr/bin/time -f '%e %U %S %M' -o "$work/time.out" env LD_PRELOAD="$CB_PRELOAD" "$@" \
		>"$work/$_name.stdout" 2>"$work/$_name.stderr" ||
		loom_fail "$_name: $* failed: $(tail -n 3 "$work/$_name.stderr")"
	_s1=$(cb_cpu_ticks "$LOOM_SIM_PID")
	tail -n 1 "$work/time.out" | awk -v s="$((_s1 - _s0))" -v t="$CB_TCK" \
		'{ printf "%.2f %.2f %d %.2f\n", $1, $2 + $3, $4, s / t }' >>"$work/$_name"
}
# cb_col NAME FIELD [cb_median|cb_min]: a column of $work/NAME summed up.
cb_col() { cut -d' ' -f"$2" "$work/$1" | "${3:-cb_median}"; }

# cb_read NAME [PORTS [DETAILS]]: the reader's answer in $work/NAME.stdout
# checked (every one of PORTS cabled ports in it, when given; the 42 detail
# values of every answered port, when DETAILS is 1) and summed up: appends
# "Gets answered ports in_flight detail_Gets" to $work/NAME.mads.
cb_read() {
	python3 - "$work/$1.stdout" "${2:-}" "${3:-0}" "$top/tests/integration" >>"$work/$1.mads" <<'EOP' ||
import sys
sys.path.insert(0, sys.argv[4])
from counters_wire import read_answer
rows, done = read_answer(sys.argv[1])
if sys.argv[2]:
    assert done["ports"] == int(sys.argv[2]), (done["ports"], sys.argv[2])
if sys.argv[3] == "1":
    assert all(len(r["details"]) == 42 for r in rows if r["answered"]), "a port without its details"
print(done["mads"], sum(1 for r in rows if r["answered"]), done["ports"], done["in_flight"],
      done.get("detail_mads", 0))
EOP
		loom_fail "the reader's answer ($1): $(tail -c 300 "$work/$1.stdout")"
}

# cb_next_input: $work/fabric_pmas.wire, what loomd hands every read after
# its first: the fabric, then what the read before ($work/child.stdout)
# found (its pma and sum lines: the PMAs' capabilities, the switches'
# PortCounters sums).
cb_next_input() {
	{ cat "$work/fabric.wire"; grep -E '^(pma|sum) ' "$work/child.stdout"; } >"$work/fabric_pmas.wire"
}
