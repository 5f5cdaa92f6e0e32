#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The HTTP front end is a process apart from the fabric (issue 40,
# daemon/http/front.h): loomd (root here, sweeping an ibsim fabric through
# umad2sim) serves HTTP from a child `loomd --http-front` that
#  1. runs as http.user (nobody), with no_new_privs and a seccomp filter
#     (/proc/PID/status), serves on the socket the core bound with its
#     backlog, and holds no descriptor of the database nor of a
#     MAD device, nor the simulator's library (/proc/PID/fd, maps);
#  2. cannot open the database, a MAD device node (umad0, major 231) or a
#     file its uid could read by mode: it tries each once sandboxed
#     ($LOOMD_FRONT_PROBE adds paths) and says so, or refuses to serve;
#  3. still answers the API with the core's data and the same audit line
#     naming the token, /metrics and /readyz;
#  4. is started again when it dies (kill -9), on the same listener;
#  5. a reload whose front end cannot start (an unknown http.user) is
#     refused, naming why, and the front end in force serves on.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_work

SEC_READ=read-secret-0123456789abcdef-0123
SEC_ADMIN=admin-secret-0123456789abcdef-0123
loom_tokens "$work/tokens" "reader:read:$SEC_READ" "ops:admin:$SEC_ADMIN"
echo "readable by anyone" >"$work/readable"
chmod 0644 "$work/readable"
probe="$work/readable"
if mknod "$work/umad0" c 231 0 2>/dev/null; then
	probe="$probe:$work/umad0"
else
	echo "note: mknod is not allowed here: the MAD device node is not probed"
fi
export LOOMD_FRONT_PROBE="$probe"

loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  listen_backlog: 333"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port
loom_until 50 curl -sf "$url/healthz" || loom_fail "no HTTP listener"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

# The front end: loomd's child started as `loomd --http-front`.
front_pid() {
	for p in /proc/[0-9]*; do
		[ "$(awk '/^PPid:/ { print $2 }' "$p/status" 2>/dev/null)" = "$LOOMD_PID" ] || continue
		tr '\0' ' ' <"$p/cmdline" 2>/dev/null | grep -q -- '--http-front' && { echo "${p#/proc/}"; return 0; }
	done
	return 1
}
fp=$(front_pid) || loom_fail "no front end process under loomd ($LOOMD_PID)"

# ---- 1. its rights --------------------------------------------------------------------
st=/proc/$fp/status
nobody=$(id -u nobody)
awk -v u="$nobody" '/^Uid:/ { exit !($2 == u && $3 == u && $4 == u && $5 == u) }' "$st" ||
	loom_fail "the front end's uids are not nobody's ($nobody): $(grep '^Uid:' "$st")"
awk '/^Gid:/ { exit !($2 != 0 && $3 != 0 && $4 != 0 && $5 != 0) }' "$st" ||
	loom_fail "the front end keeps gid 0: $(grep '^Gid:' "$st")"
grep -q '^NoNewPrivs:[[:space:]]*1' "$st" || loom_fail "no no_new_privs: $(grep NoNewPrivs "$st")"
grep -q '^Seccomp:[[:space:]]*2' "$st" || loom_fail "no seccomp filter: $(grep Seccomp "$st")"
grep -q '^CapEff:[[:space:]]*0000000000000000' "$st" || loom_fail "capabilities: $(grep CapEff "$st")"
# What the check below looks for is there in the core: the database is open.
ls -l /proc/"$LOOMD_PID"/fd | grep -q "$work/loom.db" || loom_fail "the core has no database descriptor"
fds=$(for f in /proc/"$fp"/fd/*; do readlink "$f" || :; done)
echo "$fds" | grep -E 'loom\.db|/dev/infiniband|umad' &&
	loom_fail "the front end holds a database or MAD descriptor"
# Beyond its standard streams (whoever started loomd gave them): sockets,
# pipes and the loop's epoll only.
# (The sanitizer lane's report file, opened before the sandbox, is one too.)
rest=$(for f in /proc/"$fp"/fd/*; do case ${f##*/} in 0|1|2) ;; *) readlink "$f" || : ;; esac; done |
	{ if [ -n "${LOOM_ASAN_LOGDIR:-}" ]; then grep -v "^$LOOM_ASAN_LOGDIR/" || :; else cat; fi; })
echo "$rest" | grep -vE '^(socket|pipe|anon_inode):' &&
	loom_fail "the front end holds a file: $(echo $rest)"
grep -q umad2sim /proc/"$LOOMD_PID"/maps || loom_fail "the core has not loaded umad2sim (test set-up)"
grep -q umad2sim /proc/"$fp"/maps && loom_fail "the front end loaded umad2sim (the MAD stack)"
# The socket the core bound keeps http.listen_backlog in the front end (a
# second listen() of libevent's would make it 128: lost connections under
# a thousand pollers, bench/results-api.md run 3).
if command -v ss >/dev/null 2>&1; then
	bl=$(ss -Hltn "sport = :$port" | awk '{ print $3 }')
	[ "$bl" = 333 ] || loom_fail "the listener's backlog is $bl, not http.listen_backlog 333"
fi
loom_ok "front end pid $fp: uid nobody, no_new_privs, seccomp, no capabilities; no database, MAD or simulator descriptor"

# ---- 2. what it cannot open --------------------------------------------------------------
flog() { grep "loomd-http\[$1\]" "$work/loomd.log"; }
for p in "$work/loom.db" "$work/readable" ${probe#"$work/readable"}; do
	p=${p#:}
	[ -n "$p" ] || continue
	flog "$fp" | grep -q "sandbox: $p cannot be opened (Permission denied)" ||
		loom_fail "no proof that $p cannot be opened: $(flog "$fp" | grep sandbox)"
done
flog "$fp" | grep -q "serves as uid $nobody: Landlock on, seccomp on, no_new_privs on" ||
	loom_fail "the front end does not say its sandbox: $(flog "$fp" | tail -n 3)"
loom_ok "sandboxed, it cannot open the database, the MAD device node nor a file readable by its uid"

# ---- 3. the same answers -------------------------------------------------------------------
code=$(curl -s -o "$work/nodes.json" -w '%{http_code}' -H "Authorization: Bearer $SEC_READ" "$url/api/v1/nodes")
[ "$code" = 200 ] || loom_fail "GET /api/v1/nodes: $code"
loom_ctl --json nodes >"$work/nodes.ctl" || loom_fail "loomctl nodes"
python3 - "$work/nodes.json" "$work/nodes.ctl" <<'EOF' || loom_fail "the API's nodes are not loomctl's"
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
sys.exit(0 if a == b and len(a) == 3 else 1)
EOF
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer $SEC_READ" "$url/api/v1/discover")
[ "$code" = 403 ] || loom_fail "POST discover as read: $code, not 403"
code=$(curl -s -o "$work/job.json" -w '%{http_code}' -X POST -H "Authorization: Bearer $SEC_ADMIN" "$url/api/v1/discover")
[ "$code" = 202 ] || loom_fail "POST discover as admin: $code, not 202"
loom_until 100 grep -q 'audit: "discover" run by token ops (role admin)' "$work/loomd.log" ||
	loom_fail "no audit line naming the token: $(grep audit "$work/loomd.log" | tail -n 3)"
curl -sf "$url/metrics" | grep -q '^loom_http_auth_failures_total ' || loom_fail "/metrics"
loom_until 100 curl -sf "$url/readyz" || loom_fail "/readyz"
loom_ok "the API answers as loomctl does; 403 and 202 by role; audit names the token; /metrics, /readyz"

# ---- 4. a dead front end is started again ----------------------------------------------------
kill -9 "$fp"
loom_until 100 sh -c "curl -sf '$url/healthz' >/dev/null && [ \"\$(awk '/^Uid:/{print \$2}' /proc/$fp/status 2>/dev/null)\" = '' ]" ||
	loom_fail "no front end after kill -9"
fp2=$(front_pid) || loom_fail "no new front end process"
[ "$fp2" != "$fp" ] || loom_fail "the same pid serves"
grep -q "the front end (pid $fp) stopped" "$work/loomd.log" || loom_fail "the death is not logged"
loom_ok "killed, the front end is started again (pid $fp2) on the same listener"

# ---- 5. a front end that cannot start: the one in force stays ---------------------------------
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  user: no-such-user-x"
n=$(grep -c 'configuration reloaded' "$work/loomd.log" || :)
kill -HUP "$LOOMD_PID"
loom_until 100 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n ]" ||
	loom_fail "no reload"
grep -q 'reload: .*no-such-user-x.*; the front end and its listeners in force stay' "$work/loomd.log" ||
	loom_fail "the refused front end is not logged: $(grep -i 'reload\|user' "$work/loomd.log" | tail -n 3)"
[ "$(front_pid)" = "$fp2" ] || loom_fail "the front end in force was replaced"
curl -sf "$url/healthz" >/dev/null || loom_fail "no answer after the refused reload"
loom_ok "a front end that cannot start (http.user unknown) is refused at reload; pid $fp2 serves on"
