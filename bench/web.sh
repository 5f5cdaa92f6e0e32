#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/web.sh: the web view on the 11664-host fat tree (issue 41), in
# headless chromium (bench/web_load.py): first useful paint (navigation
# until the map is drawn, the API's answers included), a click's time (a
# leaf group's panel, a switch's ports, Find's suggestion) and the page's
# JS heap; with BEFORE=COMMIT, the same first with that commit's web/
# (git archive) served by a loomd on the same fabric.
#
#   sudo [HOSTS=11664] [RUNS=6] [BEFORE=COMMIT] sh bench/web.sh
#
# Needs root (network namespace), ibsim, opensm, a build, chromium,
# chromium-driver and python3-selenium. Results: bench/results-web.md.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
. "$top/tests/integration/lib.sh"
loom_netns "$@"
loom_browser
loom_work
if [ -n "${BEFORE:-}" ]; then
	mkdir -p "$work/before"
	git -C "$top" archive "$BEFORE" web | tar -x -C "$work/before" ||
		loom_fail "git archive $BEFORE web"
fi
printf 'bench/web.sh: '
loom_tree_up bench "${HOSTS:-11664}"
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "bench:read:$token"
port=$(loom_free_port)
host=$(sed -n 's/^Hca [0-9]* "\([^"]*\)".*/\1/p' "$work/bench.net" | sed -n 100p)
run() { # run WEB_ROOT LABEL
	loom_config "$(loom_subnet_conf bench)" "http:" "  listen: 127.0.0.1:$port" \
		"  tokens_file: $work/tokens" "  web_root: $1"
	loom_loomd "$work/loom.yaml"
	loom_ctl discover --wait >/dev/null || loom_fail "discover"
	# a counters read (the map's colours); at this size its answer is more
	# than the socket gives (telemetry.max_answer_ports): the read is stored
	loom_ctl counters --now >/dev/null 2>&1 || :
	echo "== $2"
	$PYSEL "$top/bench/web_load.py" "http://127.0.0.1:$port" "$token" "${RUNS:-6}" "$host" ||
		echo "web view ($2): bench/web_load.py failed"
	kill "$LOOMD_PID"
	wait "$LOOMD_PID" 2>/dev/null || :
	rm -f "$work/loomd.sock"
}
[ -n "${BEFORE:-}" ] && run "$work/before/web" "before: web/ of $BEFORE"
run "$top/web" "after: web/ of the work tree"
