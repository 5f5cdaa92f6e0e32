#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The sanitizer lane (issue 18): build loom with AddressSanitizer and
# UndefinedBehaviorSanitizer out of tree, then run `make check` (unit and
# integration tests) on that build. See docs/sanitizers.md.
#
#   sh tools/check-asan.sh [BUILDDIR]     (default: ./build-asan)
#
# Environment: JOBS (make -j, default: nproc, at most 2), LOOM_TEST_QUICK
# (passed to make check), LOOM_ASAN_LEAKS=0 to turn LeakSanitizer off,
# LOOM_ASAN_TESTS="tests/unit/lib/route/test_route ..." to run only those tests
# (default: all but the browser tests, web_view*.sh),
# LOOM_ASAN_OPTIONS=... appended to ASAN_OPTIONS (e.g. quarantine_size_mb=0).
# Sanitizer reports go to BUILDDIR/asan-logs/<test>/ (one file per process);
# the script prints them at the end, and fails if a test failed or a report
# was written.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
b=${1:-$top/build-asan}
jobs=${JOBS:-$(nproc)}
[ "$jobs" -le 2 ] || jobs=2

cd "$top"
[ -x configure ] && [ configure -nt configure.ac ] && [ -f Makefile.in ] && [ Makefile.in -nt Makefile.am ] ||
	autoreconf -fi >/dev/null
mkdir -p "$b"
b=$(cd "$b" && pwd)
cd "$b"
t0=$(date +%s)
# AC_PROG_CC keeps the CFLAGS given here instead of its -g -O2; loom's own
# warnings (LOOM_CFLAGS) are added by Makefile.am on top.
[ -f Makefile ] || "$top/configure" --prefix=/usr --sysconfdir=/etc --localstatedir=/var \
	--runstatedir=/run \
	CC="${CC:-gcc}" \
	CFLAGS='-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined' \
	LDFLAGS='-fsanitize=address,undefined' >configure.log
t1=$(date +%s)
# `make check TESTS=` builds the test programs and runs nothing: the build
# and the tests are timed apart.
make -j"$jobs" >make.log 2>&1 && make -j"$jobs" check TESTS= >>make.log 2>&1 || {
	tail -n 60 make.log; echo "check-asan: build FAILED (log: $b/make.log)"; exit 1; }
t2=$(date +%s)

logs=$b/asan-logs
rm -rf "$logs"
mkdir -p "$logs"
stamp=$b/check-asan.stamp  # tests' logs newer than this are this run's
touch "$stamp"
supp=$top/tests/asan
leaks=${LOOM_ASAN_LEAKS:-1}
# verify_asan_link_order=0: the integration tests start loomd with
# LD_PRELOAD=libumad2sim.so, which puts umad2sim before the ASan runtime
# (loomd's first DT_NEEDED) in the library list. The check matters only in
# such processes; OpenSM, ibsim and ibnetdiscover have no ASan runtime and
# ignore ASAN_OPTIONS.
ASAN_OPTIONS="halt_on_error=1:abort_on_error=0:detect_leaks=$leaks:verify_asan_link_order=0:print_suppressions=1:suppressions=$supp/asan.supp${LOOM_ASAN_OPTIONS:+:$LOOM_ASAN_OPTIONS}"
LSAN_OPTIONS="suppressions=$supp/lsan.supp:print_suppressions=1"
UBSAN_OPTIONS="halt_on_error=1:abort_on_error=0:print_stacktrace=1"
LOOM_ASAN_LOGDIR=$logs
export ASAN_OPTIONS LSAN_OPTIONS UBSAN_OPTIONS LOOM_ASAN_LOGDIR
status=0
if [ -z "${LOOM_ASAN_TESTS:-}" ]; then
	# Every test but the browser's (web_view*.sh): their C side, the API
	# and the static files, is what api*.sh and web_static.sh run here;
	# chromium adds nothing the sanitizers see, only minutes.
	LOOM_ASAN_TESTS=$(make -s print-tests | tr ' ' '\n' | grep -v '/web_view' | tr '\n' ' ')
fi
make -j"$jobs" check LOG_COMPILER="$supp/log-compiler.sh" TESTS="$LOOM_ASAN_TESTS" \
	LOOM_TEST_QUICK="${LOOM_TEST_QUICK:-}" >check.log 2>&1 || status=$?
t3=$(date +%s)

grep -E '^(PASS|FAIL|XFAIL|XPASS|SKIP|ERROR):|^# ' check.log || :
if [ $status -ne 0 ]; then
	for f in $(grep -l -E '^:test-result: (FAIL|ERROR)' $(find tests -name '*.trs' -newer "$stamp") /dev/null); do
		echo "===== ${f%.trs}.log"; tail -n 60 "${f%.trs}.log"
	done
fi
# One entry per report. ASan and LeakSanitizer write to $logs (log_path);
# UBSan, when linked with ASan, ignores log_path and writes to stderr: a
# test's own log, or (for loomd in the integration tests) the scratch
# directory's loomd.log, which a failing test prints the end of.
reports=0
for f in $(find "$logs" -type f | sort) $(find tests -name '*.log' -newer "$stamp" | sort); do
	grep -q -E '^==[0-9a-z_.-]*==[0-9]+==ERROR|^==[0-9]+==ERROR|runtime error:' "$f" || continue
	n=$(grep -c -E '==ERROR: |runtime error:' "$f")
	reports=$((reports + n))
	echo "===== sanitizer report(s) in ${f#"$logs"/}: $n"
	grep -m3 -A7 -E '==ERROR: |runtime error:' "$f" | grep -E 'ERROR|runtime error|^ +#[0-9] ' | head -n 16
done
echo "check-asan: configure $((t1 - t0)) s, build $((t2 - t1)) s, make check $((t3 - t2)) s (-j$jobs)"
echo "check-asan: $reports sanitizer report(s) in $logs, make check exit $status"
[ $status -eq 0 ] && [ $reports -eq 0 ]
