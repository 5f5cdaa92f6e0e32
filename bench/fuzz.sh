#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/fuzz.sh: run every libFuzzer target that `make fuzz` built (issue 18)
# for MINUTES minutes each (default 5), one after another and one job each,
# starting from a copy of its seed corpus (tests/fuzz/corpus/NAME/, empty
# for a target without one) in a work directory. Prints per target the
# executions per second, the corpus it grew to, the coverage (libFuzzer's
# "cov" edges) and whether it found a crash (a leak, a timeout or running
# out of memory count as one); writes the same to bench/results-fuzz.md.
# Crashing inputs are kept in the work directory, named by libFuzzer
# (crash-*, leak-*, timeout-*, oom-*), with the target's output in
# NAME.log; reproduce with `tests/fuzz/bin/fuzz_NAME FILE`.
#
#   sh bench/fuzz.sh [MINUTES] [TARGET...]
#
# top_builddir (default: the source tree's build/) holds tests/fuzz/bin/;
# FUZZ_WORK names the work directory (default: a new one under /tmp, kept);
# FUZZ_RESULTS the results file (default bench/results-fuzz.md in the
# source tree); FUZZ_ARGS adds libFuzzer options. Exits 1 when a target
# found something, 2 when no target is built.
set -eu
S=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
B=${top_builddir:-$S/build}
minutes=${1:-5}
[ $# -gt 0 ] && shift
case $minutes in
'' | *[!0-9.]*) echo "usage: sh bench/fuzz.sh [MINUTES] [TARGET...]" >&2; exit 2 ;;
esac
secs=$(awk -v m="$minutes" 'BEGIN { s = int(m * 60 + 0.5); print s < 1 ? 1 : s }')
bin=$B/tests/fuzz/bin
targets=$*
if [ -z "$targets" ]; then
	for f in "$bin"/fuzz_*; do
		[ -x "$f" ] && targets="$targets ${f##*/fuzz_}"
	done
fi
if [ -z "$targets" ]; then
	echo "bench/fuzz.sh: no target in $bin (run \`make fuzz\` in $B)" >&2
	exit 2
fi
work=${FUZZ_WORK:-$(mktemp -d /tmp/loom-fuzz.XXXXXX)}
results=${FUZZ_RESULTS:-$S/bench/results-fuzz.md}
mkdir -p "$work"
rows=""
found=0
echo "bench/fuzz.sh: $secs s per target, work directory $work"
printf '%-14s %10s %8s %8s %8s  %s\n' target runs runs/s corpus cov result
for t in $targets; do
	exe=$bin/fuzz_$t
	if [ ! -x "$exe" ]; then
		echo "bench/fuzz.sh: $exe not built" >&2
		continue
	fi
	dir=$work/$t
	rm -rf "$dir"
	mkdir -p "$dir/corpus" "$dir/artifacts"
	seeds=0
	if [ -d "$S/tests/fuzz/corpus/$t" ]; then
		cp "$S/tests/fuzz/corpus/$t"/* "$dir/corpus/" 2>/dev/null || :
		seeds=$(find "$dir/corpus" -type f | wc -l)
	fi
	rc=0
	# shellcheck disable=SC2086
	(cd "$dir" && "$exe" -max_total_time="$secs" -print_final_stats=1 -jobs=1 -workers=1 \
		-rss_limit_mb=2048 -timeout=10 -artifact_prefix="$dir/artifacts/" ${FUZZ_ARGS:-} \
		"$dir/corpus" >"$dir/$t.log" 2>&1) || rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log" | tail -1)
	rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/$t.log" | tail -1)
	cov=$(grep -o 'cov: [0-9]*' "$dir/$t.log" | tail -1 | sed 's/cov: //')
	size=$(find "$dir/corpus" -type f | wc -l)
	arts=$(cd "$dir/artifacts" && find . -type f | sed 's,^\./,,' | tr '\n' ' ')
	if [ "$rc" -ne 0 ] || [ -n "$arts" ]; then
		what=$(grep -m1 -o 'ERROR: [A-Za-z]*Sanitizer: [a-z-]*\|ERROR: libFuzzer: [a-z-]*\|invariant violated: .*\|runtime error: .*' \
			"$dir/$t.log" || echo "exit $rc")
		result="CRASH ($what; ${arts:-no artifact})"
		found=1
	else
		result="no crash"
	fi
	printf '%-14s %10s %8s %8s %8s  %s\n' "$t" "${runs:-?}" "${rate:-?}" "$seeds->$size" \
		"${cov:-?}" "$result"
	rows="$rows| $t | ${runs:-?} | ${rate:-?} | $seeds -> $size | ${cov:-?} | $result |
"
done
{
	echo "# Fuzzing bench results"
	echo
	echo "\`sh bench/fuzz.sh $minutes\` on $(date -u +%Y-%m-%d), $(uname -sm), $(nproc) cores," \
		"$("${FUZZ_CC:-clang}" --version 2>/dev/null | head -1 || echo clang)."
	echo "Each target ran $secs s alone, one libFuzzer job, from a copy of its seed corpus"
	echo "(tests/fuzz/corpus/NAME; ar_mad has none). runs/s is libFuzzer's average_exec_per_sec;"
	echo "corpus is seeds -> inputs kept; cov is the last reported edge coverage. No test checks"
	echo "these numbers. See docs/fuzzing.md."
	echo
	echo "| target | runs | runs/s | corpus | cov | result |"
	echo "|---|---:|---:|---:|---:|---|"
	printf '%s' "$rows"
} >"$results"
echo "bench/fuzz.sh: results in $results, logs and artifacts in $work"
exit $found
