#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view's routing runs (issue 20) in a real browser (chromium
# headless through selenium): OpenSM routes an ibsim fat tree with loom's
# engine and its plugin reports each run to loomd (as route_runs.sh); a
# cable cut makes OpenSM reroute (a run whose tables spread the paths over
# fewer links) and the cable back makes a third run. The page shows the
# latest run's quality, a chart of quality and duration with a point a run,
# and marks the runs worse than the one before: all checked by web_view.py
# against what /api/v1/routing/runs answers (never numbers written here).
# Screenshots in BUILDDIR/tests/artifacts/web_view_routing/.
set -eu
. "$(dirname "$0")/lib.sh"
loom_need_osm_plugin
loom_netns "$@"
loom_browser
loom_work
art="$B/tests/artifacts/web_view_routing"
rm -rf "$art"
mkdir -p "$art"

loom_ibsim "$S/tests/fabrics/demo-ft2.net"   # 32 hosts, 12 switches
viewer=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "viewer:read:$viewer"
port=$(loom_free_port)
url="http://127.0.0.1:$port"
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  web_root: $S/web"
loom_loomd "$work/loom.yaml"    # its report socket: $work/osm.sock
loom_until 100 test -S "$work/osm.sock" || loom_fail "loomd did not bind its report socket"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

{
	printf 'event_plugin_name loomosm\nrouting_engine loom\n'
	printf 'sweep_interval 2\nforce_log_flush TRUE\nlog_flags 0x03\n'
} >"$work/opensm.conf"
loom_osm_plugin &
LOOM_PIDS="$LOOM_PIDS $!"

runs() { loom_ctl --json route runs | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
wait_runs() { # N: at least N runs recorded
	loom_until 300 sh -c "[ \$('$B/loomctl' -s '$work/loomd.sock' --json route runs |
		python3 -c 'import json,sys; print(len(json.load(sys.stdin)))') -ge $1 ]" ||
		loom_osm_fail "fewer than $1 routing runs recorded: $(loom_ctl route runs)"
}
page() { # page STEP ARGS...: web_view.py against the page
	$PYSEL "$S/tests/integration/web_view.py" "$url" "$art" "$@" >"$work/page.out" 2>&1 ||
		loom_fail "the page ($1): $(tail -20 "$work/page.out")"
	cat "$work/page.out"
}

wait_runs 1
n=$(runs)
loom_ibsim_cmd 'Unlink "spine-1"[2]'   # leaf-1 <-> spine-1
wait_runs $((n + 1))
n=$(runs)
loom_ibsim_cmd 'ReLink "spine-1"[2]'
wait_runs $((n + 1))
loom_ctl route runs
page routing "$viewer"
loom_ok "the routing view: the latest run's quality, the chart and the runs worse than the one before, as /api/v1/routing/runs says"
ls "$art"/*.png >/dev/null 2>&1 || loom_fail "no screenshots in $art"
echo "web_view_routing.sh: all ok (screenshots in $art)"
