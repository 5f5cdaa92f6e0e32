# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# shellcheck shell=sh disable=SC2154  # sourced after lib.sh, inside its work directory
# bench/latency_lib.sh: what the benches under the test bed's latency model
# (issue 44; tests/integration/latency_model.c, docs/testbed-latency.md)
# share, sourced after tests/integration/lib.sh, inside loom_netns:
#   $MODEL          the model's preload (refused when not built)
#   lat_model_line  the model's parameters as this run has them
#   lat_ms          the wall clock in ms
#   lat_stats       "min median" of the numbers on stdin
#   lat_timed FILE CMD...        CMD's wall time (ms) under the model,
#                                appended to FILE; its stdout dropped
#   lat_timed_to FILE OUT CMD... the same with its stdout in OUT
# CMD runs under the model before umad2sim ($MODEL $PRELOAD); a CMD that
# fails stops the bench with its stderr's tail.
MODEL=$B/tests/integration/.libs/latency_model.so
[ -e "$MODEL" ] || loom_fail "$MODEL is not built: make -C build tests/integration/latency_model.la"

lat_model_line() {
	echo "model: $(env | grep '^LOOM_LAT_' | tr '\n' ' ')(unset: defaults, docs/testbed-latency.md:" \
		"LOOM_LAT_HOP_NS=200 LOOM_LAT_SWITCH_US=100 LOOM_LAT_HCA_US=20 LOOM_LAT_LID_HOPS=4 LOOM_LAT_DROP=0)"
}
lat_ms() { echo $(($(date +%s%N) / 1000000)); }
lat_stats() { sort -n | awk '{ v[NR] = $1 } END { printf "%d %d", v[1], v[int((NR + 1) / 2)] }'; }
lat_timed_to() {
	_f=$1 _o=$2; shift 2
	_t0=$(lat_ms)
	LD_PRELOAD="$MODEL $PRELOAD" "$@" >"$_o" 2>"$work/lat_timed.err" ||
		{ tail -n 5 "$work/lat_timed.err" >&2; loom_fail "$* under the model"; }
	echo $(($(lat_ms) - _t0)) >>"$_f"
}
lat_timed() { _lf=$1; shift; lat_timed_to "$_lf" /dev/null "$@"; }
