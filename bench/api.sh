#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/api.sh: loomd's REST API under load (issue 20), on one ibsim fat
# tree (default: the 11664-host tree of bench/telemetry.sh).
#
#   sudo sh bench/api.sh [--hosts N] [--seconds S] [--clients 1,10,100,1000] [--keep]
#   make bench-api         (the same, BENCH_API_ARGS for the options)
#
# For GET /api/v1/nodes, /api/v1/links and a page of each (?limit=100),
# and for each number of clients: bench/api_load.c's requests answered per
# second and their latency (p50, p90, p99, max), each client a keep-alive
# connection sending its next request when the last is answered; then the
# same commands over the unix socket (the control protocol), the baseline.
# Then paced clients, as pollers are: 1000 connections held, each asking
# every second for a page (or every 10 s for a whole list), latency counted
# from when each request was due. During the largest closed-loop load and
# during the paced one a `loomctl discover --wait` is timed against one on
# the idle daemon: the sweep must not wait for the API. Last, with chromium
# (bench/web_load.py), the web view's load time on this fabric.
# Goal (issue 20): p99 < 100 ms, 1000 concurrent clients held, the sweep not
# delayed. Needs root (network namespace), ibsim, opensm, a build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
hosts=11664 seconds=10 clients="1 10 100 1000" keep=0
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--hosts) hosts=$2; shift ;;
	--seconds) seconds=$2; shift ;;
	--clients) clients=$(echo "$2" | tr , " "); shift ;;
	--keep) keep=1 ;;
	*) echo "usage: sh bench/api.sh [--hosts N] [--seconds S] [--clients N,N,...] [--keep]" >&2
	   exit 2 ;;
	esac
	shift
done
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
[ $keep = 1 ] && LOOM_KEEP=1
loom_work
rmdir "$work"
work=$(mktemp -d /tmp/loom-bench-api.XXXXXX)
cd "$work"
load="$B/bench/api_load"
[ -x "$load" ] || loom_fail "no $load: build first"
# 1000 clients: file descriptors for them on both sides.
ulimit -n 8192 2>/dev/null || :

printf 'bench/api.sh: '
loom_tree_up bench "$hosts"
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "bench:read:$token"
port=$(loom_free_port)
loom_config "$(loom_subnet_conf bench)" "http:" "  listen: 127.0.0.1:$port" \
	"  tokens_file: $work/tokens" "  web_root: $top/web" "  max_connections: 1024" \
	"  max_connections_per_peer: 1024" "  timeout_s: 60"
# the socket's own bounds (lib.sh writes the control: section): its maximum
sed -i 's/^control:$/control:\n  max_clients: 512\n  max_clients_per_uid: 512/' "$work/loom.yaml"
loom_loomd "$work/loom.yaml"
sweep() { _t0=$(date +%s.%N); loom_ctl discover --wait >/dev/null || loom_fail "discover"; \
	echo "$(date +%s.%N) - $_t0" | bc; }
idle_sweep=$(sweep)
nodes=$(loom_ctl --json status | python3 -c 'import json,sys; s=json.load(sys.stdin); print(sum(x.get("nodes", 0) for x in s.get("subnets", [])))' 2>/dev/null || echo "?")
echo "fabric discovered ($nodes nodes); a sweep on the idle daemon: ${idle_sweep}s"

biggest=$(echo $clients | tr ' ' '\n' | sort -n | tail -n 1)
for path in /api/v1/nodes /api/v1/links "/api/v1/nodes?limit=100" "/api/v1/links?limit=100"; do
	for n in $clients; do
		if [ "$n" = "$biggest" ] && [ "$path" = /api/v1/nodes ]; then
			sweep >"$work/busy_sweep" &
			sp=$!
		fi
		printf '  http %-26s clients %4d  %s\n' "$path" "$n" \
			"$("$load" http 127.0.0.1 "$port" "$path" "$token" "$n" "$seconds")"
		sleep 2   # loomd sees the last run's connections close
		[ -n "${sp:-}" ] && { wait "$sp"; sp=""; }
	done
done
paced() { # paced PATH CLIENTS EVERY_MS
	printf '  http %-26s clients %4d every %5d ms  %s\n' "$1" "$2" "$3" \
		"$("$load" http 127.0.0.1 "$port" "$1" "$token" "$2" "$seconds" "$3")"
	sleep 2
}
paced "/api/v1/nodes?limit=100" "$biggest" 1000
paced "/api/v1/links?limit=100" "$biggest" 1000
sweep >"$work/paced_sweep" &
sp=$!
paced "/api/v1/nodes" "$biggest" 10000
wait "$sp"
paced "/api/v1/links" "$biggest" 10000
echo "a sweep during $biggest paced clients on /api/v1/nodes: $(cat "$work/paced_sweep")s"
PYSEL=python3
$PYSEL -c 'import selenium' 2>/dev/null || PYSEL=/usr/bin/python3
if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] &&
	$PYSEL -c 'import selenium' 2>/dev/null; then
	$PYSEL "$top/bench/web_load.py" "http://127.0.0.1:$port" "$token" 6 ||
		echo "web view: bench/web_load.py failed"
else
	echo "web view: not measured (no chromium, chromium-driver or python3-selenium)"
fi
for cmd in nodes links; do
	for n in $clients; do
		[ "$n" -le 500 ] || n=500   # control.max_clients is at most 512
		printf '  unix %-26s clients %4d  %s\n' "$cmd" "$n" \
			"$("$load" unix "$work/loomd.sock" "$cmd" "$n" "$seconds")"
	done
done
echo "a sweep during $biggest clients on /api/v1/nodes: $(cat "$work/busy_sweep")s (idle: ${idle_sweep}s)"
echo "loomd: VmHWM $(awk '$1 == "VmHWM:" { print $2, $3 }' "/proc/$LOOMD_PID/status")"
loom_ibsim_stop
