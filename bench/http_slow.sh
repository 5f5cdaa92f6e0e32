#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# bench/http_slow.sh: a legitimate client's latency while slow clients attack
# loomd's HTTP listener (issue 37).
#
#   sudo sh bench/http_slow.sh [--seconds S] [--before BUILD] [--out FILE]
#
# For plain HTTP and TLS, with loomd's default bounds: no attack; 1000
# connections from one address (127.0.0.2) that send a byte every 3 s
# (TLS: half of a ClientHello and then a byte every 3 s, or nothing); the
# same 1000 from 100 addresses (127.0.0.2..101); the same again against a
# table of 256 slots (max_connections: 256) and of 64. Meanwhile a client on 127.0.0.1
# opens a new connection every 0.1 s for GET /api/v1/status with a token
# (tests/integration/http_slow.py): its answers and their latency from the
# connect to the whole answer, p50, p99 and max (an unanswered poll counts
# 10 s). --before BUILD runs the same against another build directory (an
# older loomd: `git worktree add /tmp/old <commit>` and build there) and
# puts both in the table. Writes FILE (default bench/results-http.md; "-":
# none) with the figures and this command. Needs root (a network namespace
# of its own: only loopback addresses), python3, openssl, curl, a build.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
export top_srcdir="${top_srcdir:-$top}"
export top_builddir="${top_builddir:-$top/build}"
seconds=20 before="" out=$top/bench/results-http.md
args="$*"
while [ $# -gt 0 ]; do
	case $1 in
	--seconds) seconds=$2; shift ;;
	--before) before=$2; shift ;;
	--out) out=$2; shift ;;
	*) echo "usage: sh bench/http_slow.sh [--seconds S] [--before BUILD] [--out FILE]" >&2
	   exit 2 ;;
	esac
	shift
done
. "$top/tests/integration/lib.sh"
# shellcheck disable=SC2086
loom_netns $args
loom_work
ulimit -n 8192 2>/dev/null || :
client() { python3 "$S/tests/integration/http_slow.py" "$@"; }
loom_pki "$work/pki" 127.0.0.1
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "bench:read:$token"
port=$(loom_free_port)

# start BUILD tls|plain [YAML LINES...]: a loomd of that build, no fabric,
# logging at info (a line a connection at debug would be measured too)
start() {
	_b=$1 _tls=$2; shift 2
	[ -z "${LOOMD_PID:-}" ] || { kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :; }
	rm -f "$work/loomd.sock"
	{
		printf 'log:\n  level: info\ndatabase:\n  path: %s/loom.db\n' "$work"
		printf 'control:\n  socket: %s/loomd.sock\nopensm:\n  report_socket: %s/osm.sock\n' \
			"$work" "$work"
		printf 'telemetry:\n  interval_s: 0\ndiscovery:\n  interval: 0\n'
		printf 'http:\n  listen: 127.0.0.1:%s\n  tokens_file: %s/tokens\n' "$port" "$work"
		for _l in "$@"; do printf '%s\n' "$_l"; done
		[ "$_tls" = plain ] || printf '  tls:\n    cert: %s\n    key: %s\n' \
			"$work/pki/srv.crt" "$work/pki/srv.key"
	} >"$work/loom.yaml"
	"$_b/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
	LOOMD_PID=$!
	LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
	loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd ($_b) did not open its socket"
	if [ "$_tls" = plain ]; then ca=- url=http://127.0.0.1:$port
	else ca=$work/pki/ca.crt url=https://127.0.0.1:$port; fi
	loom_until 50 curl -sf --cacert "$work/pki/ca.crt" "$url/healthz" || loom_fail "no /healthz on $url"
}

# one LABEL NAME CONNS ADDRS: an attack (CONNS 0: none) and the poller;
# "LABEL NAME answered/polls p50 p99 max" into $work/results
one() {
	_l=$1 _n=$2
	if [ "$3" -gt 0 ]; then
		client attack "$port" "$ca" "$3" "$4" "$seconds" >"$work/$_l-$_n.attack" 2>&1 &
		_apid=$!
		LOOM_PIDS="$LOOM_PIDS $_apid"
		sleep 3
	fi
	client poll "$port" "$ca" "$token" "$((seconds - 4))" 0.1 "$work/$_l-$_n.polls" \
		>"$work/$_l-$_n.poll" 2>&1 || :
	[ "$3" -gt 0 ] && { wait "$_apid" || :; }
	# poll: N answered A p50 X p99 Y max Z hsts H
	# shellcheck disable=SC2046
	set -- $(grep '^poll:' "$work/$_l-$_n.poll" || echo "poll: 0 answered 0 p50 - p99 - max -")
	echo "$_l $_n $4/$2 $6 $8 ${10}" >>"$work/results"
	printf '%-7s %-14s answered %s/%s  p50 %s s  p99 %s s  max %s s\n' "$_l" "$_n" "$4" "$2" "$6" "$8" "${10}"
	[ ! -s "$work/$_l-$_n.attack" ] || grep '^attack:' "$work/$_l-$_n.attack" | sed 's/^/        /' || :
}

run() { # run LABEL BUILD
	for _t in plain tls; do
		start "$2" $_t
		one "$1" $_t-none 0 0
		one "$1" $_t-1addr 1000 1
		one "$1" $_t-100addr 1000 100
		start "$2" $_t "  max_connections: 256"
		one "$1" $_t-256slots 1000 100
		start "$2" $_t "  max_connections: 64"
		one "$1" $_t-64slots 1000 100
	done
	kill "$LOOMD_PID"; wait "$LOOMD_PID" 2>/dev/null || :
	LOOMD_PID=""
}

: >"$work/results"
echo "bench/http_slow.sh: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), attack $seconds s each"
[ -z "$before" ] || run before "$before"
run after "$B"
[ "$out" = - ] && exit 0
{
	echo "# A legitimate client under slow-client attacks (issue 37)"
	echo
	echo "\`sudo sh bench/http_slow.sh $args\` ($(date -u +%Y-%m-%d), $(nproc) cores shared"
	echo "with other work, load $(cut -d' ' -f1-3 /proc/loadavg); loomd, the attackers and the"
	echo "client on the same machine, in one network namespace)."
	echo
	echo "Each attack: 1000 connections held open as long as loomd lets them, each"
	echo "opened again 1 s after loomd closes it. Plain HTTP: the start of a request,"
	echo "then a byte every 3 s. TLS: half of a ClientHello then a byte every 3 s, or"
	echo "nothing. From one address (127.0.0.2) or 100 (127.0.0.2..101); \"256 slots\","
	echo "\"64 slots\": the 100 addresses against max_connections: 256 or 64, where"
	echo "every new connection closes an older one. The legitimate client, on"
	echo "127.0.0.1: a new connection every 0.1 s, GET /api/v1/status with a token,"
	echo "timed from the connect to the whole answer (not answered: counted 10 s)."
	echo "Default bounds otherwise."
	echo
	if [ -n "$before" ]; then
		echo "| attack | before: answered | p50 (s) | p99 (s) | max (s) | after: answered | p50 (s) | p99 (s) | max (s) |"
		echo "|---|---|---|---|---|---|---|---|---|"
	else
		echo "| attack | answered | p50 (s) | p99 (s) | max (s) |"
		echo "|---|---|---|---|---|"
	fi
	for n in plain-none plain-1addr plain-100addr plain-256slots plain-64slots \
		tls-none tls-1addr tls-100addr tls-256slots tls-64slots; do
		a=$(awk -v n="$n" '$1 == "after" && $2 == n { print "| " $3 " | " $4 " | " $5 " | " $6 " |" }' "$work/results")
		b=""
		[ -z "$before" ] || b=$(awk -v n="$n" '$1 == "before" && $2 == n { print " " $3 " | " $4 " | " $5 " | " $6 " |" }' "$work/results")
		echo "| $n |$b ${a#| }"
	done
	echo
	echo "Before: loomd before issue 37 (16 slots, each held until header_timeout_s 10,"
	echo "a listen backlog of 128): a poll waits for a slot up to its 10 s timeout, so"
	echo "only one or two polls fit in the polling time. After: the defaults of issue 37"
	echo "(1024 slots, 32 per address, header_timeout_s 5, backlog 1024, a full table"
	echo "closing the connections that sent no request). With 64 slots, 1000"
	echo "connections a second churn through the table: a new connection is among the"
	echo "oldest after some 64 ms. Closing first the TLS handshakes stalled before a"
	echo "whole ClientHello keeps a client whose ClientHello loomd has answered; the"
	echo "default 1024 slots give a new connection about a second."
	echo
	echo "The attackers' side (connections opened, closed by loomd, held; connect"
	echo "failures are connects that timed out in a full accept queue):"
	echo
	for f in "$work"/*.attack; do
		[ -s "$f" ] || continue
		_b=$(basename "$f" .attack)
		echo "- $_b: $(grep '^attack:' "$f" | sed 's/^attack: //')"
	done
} >"$out"
echo "wrote $out"
