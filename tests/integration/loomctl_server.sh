#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# loomctl --server URL (cli/remote.c, issue 20): commands through loomd's
# REST API print exactly what they print over the local socket (tables and
# --json, errors and exit statuses of the command), with the token from
# --token-file or LOOM_TOKEN; a wrong or missing token, an unreachable
# server: a clear error naming the server (and the HTTP status), exit 1.
# A command that takes longer than http.timeout_s (a sweep held up by a
# stopped ibsim) still gets its answer: the timeout is for idle clients.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need python3
loom_work

SEC_ADMIN=admin-secret-0123456789abcdef-0123
SEC_READ=read-secret-0123456789abcdef-0123
loom_tokens "$work/tokens" "ops:admin:$SEC_ADMIN" "reader:read:$SEC_READ"
printf '%s\n' "$SEC_ADMIN" >"$work/admin.token"

loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  timeout_s: 2"
loom_loomd "$work/loom.yaml"
srv=http://127.0.0.1:$port
loom_until 50 python3 -c "import socket; socket.create_connection(('127.0.0.1', $port))" ||
	loom_fail "no HTTP listener"
remote() { "$B/loomctl" --server "$srv" --token-file "$work/admin.token" "$@"; }

remote discover --wait >"$work/disc.out" 2>&1 || loom_fail "remote discover --wait: $(cat "$work/disc.out")"
grep -q ': ok, sweep [0-9]*: 3 nodes' "$work/disc.out" || loom_fail "remote discover: $(cat "$work/disc.out")"
n=0
for cmd in "nodes" "--json nodes" "links" "--json links" "ports Hca-A" "node Hca-B" \
	"--json ports" "tenant list" "events --limit 3" "--json events --limit 3" \
	"route runs"; do
	# shellcheck disable=SC2086
	loom_ctl $cmd >"$work/local.out" 2>&1 && lrc=0 || lrc=$?
	# shellcheck disable=SC2086
	remote $cmd >"$work/remote.out" 2>&1 && rrc=0 || rrc=$?
	[ $lrc = $rrc ] || loom_fail "$cmd: exit $rrc remotely, $lrc locally"
	cmp -s "$work/local.out" "$work/remote.out" ||
		loom_fail "$cmd: remote output differs: $(diff "$work/local.out" "$work/remote.out" | head -n 10)"
	n=$((n + 1))
done
loom_ok "$n commands print the same through --server as over the socket"

ibsim_pid=$LOOM_SIM_PID   # this test's: other tests may run their own
kill -STOP "$ibsim_pid"
(sleep 5; kill -CONT "$ibsim_pid") &
cont=$!
t0=$(date +%s)
remote discover --wait >"$work/slow.out" 2>&1 || loom_fail "a slow discover --wait: $(cat "$work/slow.out")"
t1=$(date +%s)
wait "$cont"
[ $((t1 - t0)) -ge 3 ] || loom_fail "the sweep was not held up ($((t1 - t0)) s)"
grep -q ': ok, sweep [0-9]*: 3 nodes' "$work/slow.out" || loom_fail "slow discover: $(cat "$work/slow.out")"
loom_ok "discover --wait through --server answered after $((t1 - t0)) s, longer than http.timeout_s 2"

# The same error as the socket's, then where it came from; the exit status.
loom_ctl node no-such-node >/dev/null 2>"$work/local.err" && loom_fail "node no-such-node succeeded"
remote node no-such-node >/dev/null 2>"$work/remote.err" && rc=0 || rc=$?
[ $rc = 1 ] || loom_fail "remote node no-such-node: exit $rc"
grep -q "^$(sed 's/[][\.*^$]/\\&/g' "$work/local.err") ($srv: HTTP 404)$" "$work/remote.err" ||
	loom_fail "remote error: $(cat "$work/remote.err") (local: $(cat "$work/local.err"))"
loom_ok "an error says what the socket says, then ($srv: HTTP 404); exit 1"

LOOM_TOKEN=$SEC_READ "$B/loomctl" --server "$srv" nodes >"$work/env.out" 2>&1 ||
	loom_fail "LOOM_TOKEN: $(cat "$work/env.out")"
LOOM_TOKEN=$SEC_READ "$B/loomctl" --server "$srv" discover >"$work/ro.out" 2>&1 && rc=0 || rc=$?
[ $rc = 1 ] && grep -q "permission-denied: .*token reader (role read).*HTTP 403" "$work/ro.out" ||
	loom_fail "a read token's discover: exit $rc: $(cat "$work/ro.out")"
loom_ok "LOOM_TOKEN works; a read token's discover is permission-denied (HTTP 403), exit 1"

LOOM_TOKEN=wrong-token-0123456789 "$B/loomctl" --server "$srv" nodes >"$work/bad.out" 2>&1 && rc=0 || rc=$?
[ $rc = 1 ] || loom_fail "a wrong token: exit $rc"
grep -q "$srv answered HTTP 401: unknown or revoked token" "$work/bad.out" ||
	loom_fail "a wrong token: $(cat "$work/bad.out")"
env -u LOOM_TOKEN "$B/loomctl" --server "$srv" nodes >"$work/none.out" 2>&1 && rc=0 || rc=$?
[ $rc = 1 ] && grep -q "needs a token: --token-file FILE or LOOM_TOKEN" "$work/none.out" ||
	loom_fail "no token: exit $rc: $(cat "$work/none.out")"
dead=http://127.0.0.1:$(loom_free_port)
LOOM_TOKEN=$SEC_READ "$B/loomctl" --server "$dead" nodes >"$work/dead.out" 2>&1 && rc=0 || rc=$?
[ $rc = 3 ] && grep -q "^loomctl: $dead: .*" "$work/dead.out" ||
	loom_fail "an unreachable server: exit $rc: $(cat "$work/dead.out")"
"$B/loomctl" --server ftp://x nodes >/dev/null 2>&1 && rc=0 || rc=$?
[ $rc = 2 ] || loom_fail "--server ftp://x: exit $rc, not 2"
loom_ok "a wrong token (HTTP 401), no token: clear errors naming it, exit 1; an unreachable server: exit 3"
