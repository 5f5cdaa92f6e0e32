#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# tests/integration/man.sh: every man page renders with man(1), without a
# single warning from groff or man, and is not empty. Pages can be named on
# the command line (paths under $top_srcdir); by default, all of them.
set -eu
top_srcdir=${top_srcdir:-$(dirname "$0")/../..}

if ! command -v man >/dev/null 2>&1; then
	echo "SKIP: man is not installed"
	exit 77
fi

[ $# -gt 0 ] || set -- man/loomd.8 man/loomctl.8 man/loom.yaml.5

work=$(mktemp -d /tmp/loom-man.XXXXXX)
trap 'rm -rf "$work"' EXIT
status=0
for page in "$@"; do
	src=$top_srcdir/$page
	if [ ! -f "$src" ]; then
		echo "FAIL: $page: no such file"
		status=1
		continue
	fi
	# The settings of the brief's check: a fixed width and a UTF-8 locale,
	# so that line-breaking and character warnings are the same everywhere.
	if ! LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$src" \
		>"$work/out" 2>"$work/err"; then
		echo "FAIL: $page: man exited with an error"
		cat "$work/err"
		status=1
		continue
	fi
	if [ -s "$work/err" ]; then
		echo "FAIL: $page: warnings:"
		cat "$work/err"
		status=1
		continue
	fi
	# A page is empty when nothing but its header and footer lines render
	# (a bare .TH); a real page starts with a NAME section.
	lines=$(grep -c '[^[:space:]]' "$work/out" || :)
	if [ "${lines:-0}" -le 2 ] || ! grep -q '^NAME' "$work/out"; then
		echo "FAIL: $page: renders empty (no NAME section)"
		status=1
		continue
	fi
	echo "ok: $page ($lines lines)"
done
exit $status
