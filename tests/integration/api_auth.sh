#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The REST API's authentication and the one authorization table (issue 20,
# daemon/core/authz.h, daemon/http/api.c), with curl against loomd on the
# tiny ibsim fabric:
#  1. every role x a read (status), a tenant (tenant-delete) and an admin
#     (discover) command, over HTTP (tokens of each role) and over the unix
#     socket (root, a tenants.users user, nobody): the same decisions, and
#     the table's (read: R; tenant: R+T; admin: all); 403 when denied.
#  2. the audit log names the principal of every mutation, either transport.
#  3. no token, an unknown token, a malformed header: 401 with
#     WWW-Authenticate: Bearer.
#  4. a token removed from the file is revoked by a reload (SIGHUP), without
#     a restart; the others still work.
#  5. a bad tokens file (a bad line; group-readable) is refused at reload
#     naming file:line (the file), and the tokens in force stay; at start
#     loomd refuses to run with it.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl python3 setpriv
loom_work
chmod 755 "$work"   # nobody and daemon reach the socket


# ---- tokens ------------------------------------------------------------------
# Secrets known to the test; the file holds their hashes (loomctl token hash).
SEC_READ=read-secret-0123456789abcdef-0123
SEC_TENANT=tenant-secret-0123456789abcdef-0123
SEC_ADMIN=admin-secret-0123456789abcdef-0123
mk_line() { printf '%s\n' "$3" | "$B/loomctl" token hash "$1" "$2" --stdin; }
{
	echo "# loom API tokens"
	mk_line reader read "$SEC_READ"
	mk_line sched tenant "$SEC_TENANT"
	mk_line ops admin "$SEC_ADMIN"
	echo "node01 read cert"
} >"$work/tokens"
chmod 600 "$work/tokens"
grep -q "^reader read sha256:[0-9a-f]\{64\}$" "$work/tokens" ||
	loom_fail "token hash made no line: $(cat "$work/tokens")"
grep -q "$SEC_READ" "$work/tokens" && loom_fail "the tokens file holds a secret"
# A made token is shown once (stderr) and hashes to its line.
"$B/loomctl" token hash gen admin >"$work/gen.line" 2>"$work/gen.err" ||
	loom_fail "token hash without --stdin"
gen=$(sed -n 's/.*: \(loom_[0-9a-f]*\)$/\1/p' "$work/gen.err")
[ -n "$gen" ] || loom_fail "no token shown: $(cat "$work/gen.err")"
[ "$(mk_line gen admin "$gen")" = "$(cat "$work/gen.line")" ] ||
	loom_fail "the shown token does not hash to the line"
loom_ok "loomctl token hash: lines of hashes, a generated token shown once"

# ---- loomd -------------------------------------------------------------------
loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" \
	"tenants:" "  host_identity: description" "  users: daemon" "  partitions_file: $work/partitions.conf"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port/api/v1
loom_until 50 curl -sf "http://127.0.0.1:$port/healthz" || loom_fail "no HTTP listener"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

# call SECRET CMD ARGS-JSON: the HTTP status of POST /call
call() {
	curl -s -o "$work/call.out" -w '%{http_code}' --max-time 30 \
		-H "Authorization: Bearer $1" -d "{\"cmd\":\"$2\",\"args\":$3}" "$url/call" || :
}
# sock USER CMD...: "allowed" or "denied" for loomctl over the socket
sock() {
	_u=$1; shift
	case $_u in
	root) loom_ctl "$@" >"$work/sock.out" 2>&1 && echo allowed && return ;;
	*) setpriv --reuid="$_u" --regid="$(id -g "$_u")" --clear-groups \
		"$B/loomctl" -s "$work/loomd.sock" "$@" >"$work/sock.out" 2>&1 && echo allowed && return ;;
	esac
	grep -q 'permission-denied' "$work/sock.out" && echo denied && return
	echo "error: $(cat "$work/sock.out")"
}
http() {
	_c=$(call "$@")
	case $_c in
	200) echo allowed ;;
	403) grep -q '"code":"permission-denied"' "$work/call.out" && echo denied ||
		echo "403 without permission-denied: $(cat "$work/call.out")" ;;
	*) echo "HTTP $_c: $(cat "$work/call.out")" ;;
	esac
}

# ---- 1. one table, both transports ---------------------------------------------
for row in "read nobody $SEC_READ allowed denied denied" \
	"tenant daemon $SEC_TENANT allowed allowed denied" \
	"admin root $SEC_ADMIN allowed allowed allowed"; do
	set -- $row
	role=$1 user=$2 sec=$3
	shift 3
	for want_cmd in "$1 status" "$2 tenant-delete" "$3 discover"; do
		want=${want_cmd%% *} cmd=${want_cmd#* }
		case $cmd in
		status) s=$(sock "$user" status); h=$(http "$sec" status '{}') ;;
		tenant-delete) s=$(sock "$user" tenant delete nosuchjob)
			h=$(http "$sec" tenant-delete '{"name":"nosuchjob"}') ;;
		discover) s=$(sock "$user" discover); h=$(http "$sec" discover '{}') ;;
		esac
		[ "$s" = "$want" ] || loom_fail "socket, $role ($user), $cmd: $s, want $want"
		[ "$h" = "$want" ] || loom_fail "HTTP, $role token, $cmd: $h, want $want"
	done
	loom_ok "role $role: socket ($user) and HTTP agree: status $1, tenant-delete $2, discover $3"
done

# ---- 2. the audit log ----------------------------------------------------------------
grep -q 'audit: "tenant-delete" run by token sched (role tenant)' "$work/loomd.log" ||
	loom_fail "no audit line for the tenant token's tenant-delete"
grep -q 'audit: "tenant-delete" run by unix uid 1 (role tenant)' "$work/loomd.log" ||
	loom_fail "no audit line for uid 1's tenant-delete"
grep -q 'audit: "discover" refused to token reader (role read)' "$work/loomd.log" ||
	loom_fail "no audit line for the refused discover"
grep -q 'audit: "discover" run by token ops (role admin)' "$work/loomd.log" ||
	loom_fail "no audit line for the admin's discover"
grep -q 'audit: "status"' "$work/loomd.log" && loom_fail "a read is in the audit log"
loom_ok "the audit log names the principal of every mutation (token or unix uid), not reads"

# ---- 3. 401 ---------------------------------------------------------------------------
for h in "" "Authorization: Bearer not-a-token" "Authorization: Basic cm9vdDpyb290"; do
	curl -s -D "$work/h.out" -o "$work/b.out" ${h:+-H "$h"} "$url/status" || :
	head -n1 "$work/h.out" | grep -q ' 401 ' || loom_fail "'$h': $(head -n1 "$work/h.out")"
	grep -qi '^WWW-Authenticate: Bearer' "$work/h.out" ||
		loom_fail "'$h': 401 without WWW-Authenticate: Bearer"
	grep -q '"code":"unauthorized"' "$work/b.out" || loom_fail "'$h': body $(cat "$work/b.out")"
done
loom_ok "no token, an unknown token, Basic: 401 with WWW-Authenticate: Bearer"

# ---- 3b. what read may spend on the fabric -----------------------------------------------
# ar-status sends SMPs: a read token gets it once per 10 s, then 429 with
# Retry-After; cached=true sends none and is not limited; admin is not.
st() { curl -s -D "$work/h.out" -o "$work/b.out" -w '%{http_code}' -H "Authorization: Bearer $1" "$url/$2" || :; }
st "$SEC_READ" ar/status >/dev/null
[ "$(st "$SEC_READ" ar/status)" = 429 ] || loom_fail "a second ar/status by read within 10 s: $(cat "$work/b.out")"
grep -qi '^Retry-After: [1-9]' "$work/h.out" || loom_fail "429 without Retry-After"
grep -q '"code":"rate-limited"' "$work/b.out" || loom_fail "429 body: $(cat "$work/b.out")"
[ "$(st "$SEC_READ" 'ar/status?cached=true')" != 429 ] || loom_fail "cached ar/status was limited"
[ "$(call "$SEC_READ" ar-status '{}')" = 429 ] || loom_fail "ar-status through /call escaped the limit"
st "$SEC_ADMIN" ar/status >/dev/null
[ "$(st "$SEC_ADMIN" ar/status)" != 429 ] || loom_fail "admin was rate limited"
loom_ok "read may spend SMPs once per 10 s (429 + Retry-After), also through /call; cached reads and admin are not limited"

# ---- 4. revoked by a reload ----------------------------------------------------------
[ "$(http "$SEC_READ" status '{}')" = allowed ] || loom_fail "reader before the reload"
grep -v '^reader ' "$work/tokens" >"$work/tokens.new"
chmod 600 "$work/tokens.new"
mv "$work/tokens.new" "$work/tokens"
kill -HUP "$LOOMD_PID"
loom_until 50 grep -q 'configuration reloaded' "$work/loomd.log" || loom_fail "no reload"
[ "$(call "$SEC_READ" status '{}')" = 401 ] || loom_fail "the removed token still works"
[ "$(http "$SEC_ADMIN" status '{}')" = allowed ] || loom_fail "ops lost its token at reload"
[ "$LOOMD_PID" = "$(pgrep -f "$B/loomd -f -c $work/loom.yaml" | head -n1)" ] ||
	loom_fail "loomd restarted"
loom_ok "a token removed from the file is revoked at reload, without a restart"

# ---- 5. a bad file ----------------------------------------------------------------------
cp "$work/tokens" "$work/tokens.good"
printf 'broken admin sha256:1234\n' >>"$work/tokens"
lines=$(wc -l <"$work/tokens")
n=$(grep -c 'configuration reloaded' "$work/loomd.log")
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n ]" ||
	loom_fail "no second reload"
grep -q "reload: http.tokens_file $work/tokens:$lines: expected sha256: and 64 hex" "$work/loomd.log" ||
	loom_fail "the bad line is not named: $(grep tokens "$work/loomd.log" | tail -n 3)"
[ "$(http "$SEC_ADMIN" status '{}')" = allowed ] || loom_fail "a bad file dropped the tokens"
loom_ok "a bad line is refused at reload naming $work/tokens:$lines; the tokens in force stay"

cp "$work/tokens.good" "$work/tokens"
chmod 640 "$work/tokens"
n=$(grep -c 'configuration reloaded' "$work/loomd.log")
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \$(grep -c 'configuration reloaded' '$work/loomd.log') -gt $n ]" ||
	loom_fail "no third reload"
grep -q "$work/tokens: mode 0640 lets group or others read" "$work/loomd.log" ||
	loom_fail "a group-readable file is not refused by name"
[ "$(http "$SEC_TENANT" status '{}')" = allowed ] || loom_fail "the refused file dropped sched"
loom_ok "a group-readable tokens file is refused naming it; the tokens in force stay"

# At start: no loomd with a file it refuses.
kill "$LOOMD_PID"
wait "$LOOMD_PID" 2>/dev/null || :
LD_PRELOAD=$PRELOAD "$B/loomd" -f -c "$work/loom.yaml" >"$work/start.out" 2>&1 &&
	loom_fail "loomd started with a group-readable tokens file"
grep -q "$work/tokens: mode 0640" "$work/start.out" ||
	loom_fail "loomd's refusal does not name the file: $(tail -n 3 "$work/start.out")"
loom_ok "loomd does not start with a refused tokens file, and says which"
