#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/asan/log-compiler.sh TEST [ARGS...]: the LOG_COMPILER of the sanitizer
# lane (tools/check-asan.sh passes it to `make check`). It runs one test with
# the sanitizers' reports written to $LOOM_ASAN_LOGDIR/<test>/{asan,ubsan}.<exe>.<pid>
# rather than to stderr: loomd's stderr is a log file in the test's scratch
# directory, which the test removes when it ends, and a report must survive it.
set -eu
: "${LOOM_ASAN_LOGDIR:?set by tools/check-asan.sh}"
name=$(printf '%s\n' "$1" | sed -e 's|^\./||' -e 's|^.*/tests/|tests/|' -e 's|/|_|g')
dir=$LOOM_ASAN_LOGDIR/$name
rm -rf "$dir"
mkdir -p "$dir"
# Tests that run loomd as another user (nobody: opensm_unprivileged.sh,
# slurm_topology.sh) need its reports here too.
chmod 1777 "$dir"
ASAN_OPTIONS="${ASAN_OPTIONS:-}:log_path=$dir/asan:log_exe_name=1"
UBSAN_OPTIONS="${UBSAN_OPTIONS:-}:log_path=$dir/ubsan:log_exe_name=1"
LSAN_OPTIONS="${LSAN_OPTIONS:-}:log_path=$dir/asan:log_exe_name=1"
export ASAN_OPTIONS UBSAN_OPTIONS LSAN_OPTIONS
exec "$@"
