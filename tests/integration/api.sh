#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The REST API's resources (issue 20, daemon/http/api.c, docs/api.md) with
# curl against loomd on the tiny ibsim fabric:
#  1. each GET resource's body equals `loomctl --json` of the same command
#     (status without its clock), and POST /api/v1/call answers the
#     protocol's response object;
#  2. pagination: ?limit=&offset= pages of the list, X-Total-Count, a Link
#     rel="next" that leads to the next page, the last page without one;
#  3. errors with their statuses and JSON bodies: 404 (unknown node, unknown
#     resource, unknown command), 400 (bad query parameter, malformed JSON,
#     wrong types, unknown fields, naming the field), 403 (role too low),
#     405 with Allow, 413 for a body over http.max_body_bytes; loomd stays
#     up and answers after all of them;
#  3b. HEAD on a GET resource answers GET's status and headers without the
#     body; PUT on a path without PUT is 405 with Allow naming its methods;
#  3c. bodies typed as documented (issue 37): each wrong-typed tenant body of
#     the attack ("limited":"true", pkey 70000, 4294967587, "0x1234",
#     4660.0, "class":5) and an unknown field is 400 naming the field; an
#     unknown event kind is 400 naming the kinds, a known one 200; every
#     command refuses an argument it does not take, naming it, before it
#     runs (so discover, say, does not sweep);
#  4. discover: 202 with a job to poll until it has succeeded.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl python3
loom_work

SEC_READ=read-secret-0123456789abcdef-0123
SEC_ADMIN=admin-secret-0123456789abcdef-0123
loom_tokens "$work/tokens" "reader:read:$SEC_READ" "ops:admin:$SEC_ADMIN"

loom_ibsim "$S/tests/fabrics/tiny.net"
loom_opensm
port=$(loom_free_port)
loom_config "http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens"
loom_loomd "$work/loom.yaml"
url=http://127.0.0.1:$port/api/v1
loom_until 50 curl -sf "http://127.0.0.1:$port/healthz" || loom_fail "no HTTP listener"
loom_ctl discover --wait >/dev/null || loom_fail "discover"

# get PATH [SECRET]: the body to $work/get.out, headers to get.hdr; the status
get() {
	curl -s -D "$work/get.hdr" -o "$work/get.out" -w '%{http_code}' --max-time 30 \
		-H "Authorization: Bearer ${2:-$SEC_READ}" "$url/$1" || :
}
# same FILE-A FILE-B [KEY...]: the two JSON documents are equal (minus KEYs)
same() {
	python3 - "$@" <<'EOF'
import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for k in sys.argv[3:]:
    for d in (a, b):
        if isinstance(d, dict):
            d.pop(k, None)
sys.exit(0 if a == b else 1)
EOF
}

# ---- 1. GET = loomctl --json ----------------------------------------------------
node=$(loom_ctl --json nodes | python3 -c 'import json,sys; print([n for n in json.load(sys.stdin) if n["type"] == "switch"][0]["guid"])')
n=0
for pair in "status|status" "nodes|nodes" "nodes?type=switch|nodes --type switch" \
	"nodes/$node|node $node" "nodes/$node/ports|ports $node" "ports|ports" "links|links" \
	"events?limit=5|events --limit 5" "events?kind=subnet_first_sweep|events --kind subnet_first_sweep" "tenants|tenant list" "switches|switches" \
	"routing/runs|route runs --limit 1000000"; do
	path=${pair%%|*} cmd=${pair#*|}
	# shellcheck disable=SC2086
	loom_ctl --json $cmd >"$work/ctl.json" 2>"$work/ctl.err" ||
		loom_fail "loomctl --json $cmd: $(cat "$work/ctl.err")"
	c=$(get "$path")
	[ "$c" = 200 ] || loom_fail "GET $path: HTTP $c: $(cat "$work/get.out")"
	grep -qi '^Content-Type: application/json' "$work/get.hdr" || loom_fail "GET $path: not JSON"
	same "$work/get.out" "$work/ctl.json" uptime_s ||
		loom_fail "GET $path differs from loomctl --json $cmd: $(head -c 400 "$work/get.out") vs $(head -c 400 "$work/ctl.json")"
	n=$((n + 1))
done
loom_ok "$n GET resources equal loomctl --json of their command"

curl -s -o "$work/call.out" -w '%{http_code}' -H "Authorization: Bearer $SEC_READ" \
	-d '{"cmd":"links"}' "$url/call" >"$work/code" || :
[ "$(cat "$work/code")" = 200 ] || loom_fail "POST /call links: $(cat "$work/code")"
loom_ctl --json links >"$work/ctl.json"
python3 - "$work/call.out" "$work/ctl.json" <<'EOF' || loom_fail "POST /call: $(head -c 300 "$work/call.out")"
import json, sys
a = json.load(open(sys.argv[1])); b = json.load(open(sys.argv[2]))
assert set(a) == {"ok", "result"} and a["ok"] is True and a["result"] == b, a
EOF
loom_ok "POST /call answers {ok, result} with the socket's result"

# ---- 2. pagination --------------------------------------------------------------
total=$(loom_ctl --json ports | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))')
[ "$total" -ge 3 ] || loom_fail "only $total ports: too few to page"
loom_ctl --json ports >"$work/all.json"
next="ports?limit=2&offset=0"
pages=0
: >"$work/pages"
while [ -n "$next" ]; do
	c=$(get "$next")
	[ "$c" = 200 ] || loom_fail "GET $next: $c"
	grep -qi "^X-Total-Count: $total" "$work/get.hdr" || loom_fail "GET $next: no X-Total-Count $total"
	python3 -c 'import json,sys; [print(json.dumps(p, sort_keys=True)) for p in json.load(open(sys.argv[1]))]' \
		"$work/get.out" >>"$work/pages"
	next=$(sed -n 's|^Link: </api/v1/\([^>]*\)>; rel="next".*|\1|ip' "$work/get.hdr" | tr -d '\r')
	pages=$((pages + 1))
	[ $pages -le "$total" ] || loom_fail "pagination does not end"
done
python3 -c 'import json,sys; [print(json.dumps(p, sort_keys=True)) for p in json.load(open(sys.argv[1]))]' \
	"$work/all.json" | cmp -s - "$work/pages" || loom_fail "the pages are not the list"
[ $pages -eq $(((total + 1) / 2)) ] || loom_fail "$pages pages of 2 for $total ports"
c=$(get "ports?offset=$total")
[ "$c" = 200 ] && [ "$(cat "$work/get.out")" = "[]" ] || loom_fail "a page past the end: $c $(cat "$work/get.out")"
loom_ok "pagination: $pages pages of 2 follow Link rel=next and make the $total ports, X-Total-Count"

# ---- 3. errors -----------------------------------------------------------------------
# err STATUS CODE-OR-TEXT CURL-ARGS...: the status and that text in the body
err() {
	_want=$1 _text=$2
	shift 2
	_c=$(curl -s -D "$work/err.hdr" -o "$work/err.out" -w '%{http_code}' --max-time 30 "$@" || :)
	[ "$_c" = "$_want" ] || loom_fail "$*: HTTP $_c, want $_want: $(cat "$work/err.out")"
	grep -q "$_text" "$work/err.out" || loom_fail "$*: no '$_text' in $(cat "$work/err.out")"
	python3 -c 'import json,sys; e=json.load(open(sys.argv[1]))["error"]; assert e["code"] and e["message"]' \
		"$work/err.out" 2>/dev/null || loom_fail "$*: the body is not {error:{code,message}}"
}
R="Authorization: Bearer $SEC_READ"
err 404 '"code":"not-found"' -H "$R" "$url/nodes/no-such-node"
err 404 '"code":"not-found"' -H "$R" "$url/no/such/resource"
err 404 '"code":"unknown-command"' -H "$R" -d '{"cmd":"frobnicate"}' "$url/call"
err 400 'unknown query parameter \\"color\\"' -H "$R" "$url/nodes?color=red"
err 400 'query parameter \\"limit\\" must be' -H "$R" "$url/nodes?limit=-1"
err 400 'query parameter \\"cached\\" must be true or false' -H "$R" "$url/ar/status?cached=yes"
err 400 'not valid JSON' -H "$R" -d '{"cmd": "nodes"' "$url/call"
err 400 'must be a JSON object' -H "$R" -d '["nodes"]' "$url/call"
err 400 'field \\"cmd\\" must be' -H "$R" -d '{"cmd": 42}' "$url/call"
err 400 'field \\"args\\" must be an object' -H "$R" -d '{"cmd": "nodes", "args": []}' "$url/call"
err 400 'unknown field \\"argz\\"' -H "$R" -d '{"cmd": "nodes", "argz": {}}' "$url/call"
err 400 'field \\"cmd\\" is required' -H "$R" -d '{}' "$url/call"
err 400 '"code":"bad-request"' -H "$R" -d '{"cmd": "nodes", "args": {"type": 7}}' "$url/call"
err 403 '"code":"permission-denied"' -H "$R" -X POST "$url/discover"
err 405 '"code":"method-not-allowed"' -H "$R" -X DELETE "$url/nodes"
grep -qi '^Allow: GET, HEAD' "$work/err.hdr" || loom_fail "405 without Allow"
head -c 200000 /dev/zero | tr '\0' 'x' >"$work/huge"
c=$(curl -s -o /dev/null -w '%{http_code}' -H "$R" --data-binary @"$work/huge" "$url/call" || :)
[ "$c" = 413 ] || loom_fail "a 200 kB body: HTTP $c, not 413"
kill -0 "$LOOMD_PID" || loom_fail "loomd died"
[ "$(get status)" = 200 ] || loom_fail "loomd does not answer after the bad requests"
loom_ok "404, 400 naming the field or parameter, 403, 405 with Allow, 413 for a huge body; loomd fine"

# ---- 3b. HEAD and PUT ------------------------------------------------------------------
# HEAD on a GET resource: GET's status and headers (Date and Connection
# aside), no body; on a path that has no PUT, PUT is 405 with Allow naming
# the methods it has.
# headers FILE: the header lines, sorted, without the status line
headers() { tr -d '\r' <"$1" | sed -n '2,$p' | grep -Evi '^(Date|Connection):' | grep -v '^$' | sort; }
# head_raw PATH: HEAD on a socket of its own (curl would not read a body
# sent after all): the status; headers to head.hdr, any byte after them to
# head.out (the server closes the connection: Connection: close)
head_raw() { python3 "$S/tests/integration/http_head.py" "$port" "$1" "$work/head.hdr" "$work/head.out" "$SEC_READ"; }
n=0
for path in nodes "nodes?type=switch&limit=1" "nodes/$node" "nodes/no-such-node" links \
	"ports?limit=2&offset=1" tenants routing/runs "nodes?color=red"; do
	cg=$(get "$path")
	ch=$(head_raw "/api/v1/$path")
	[ "$ch" = "$cg" ] || loom_fail "HEAD $path: HTTP $ch, GET $cg"
	[ ! -s "$work/head.out" ] || loom_fail "HEAD $path answered a body: $(head -c 200 "$work/head.out")"
	headers "$work/get.hdr" >"$work/get.h"
	headers "$work/head.hdr" >"$work/head.h"
	cmp -s "$work/get.h" "$work/head.h" ||
		loom_fail "HEAD $path: headers differ from GET's: $(diff "$work/get.h" "$work/head.h" | tr '\n' ' ')"
	n=$((n + 1))
done
# put PATH ALLOW: 405 with exactly that Allow
put() {
	err 405 '"code":"method-not-allowed"' -H "Authorization: Bearer $SEC_ADMIN" -X PUT \
		-H 'Content-Type: application/json' -d '{}' "$url/$1"
	_a=$(tr -d '\r' <"$work/err.hdr" | sed -n 's/^Allow: //ip')
	[ "$_a" = "$2" ] || loom_fail "PUT $1: Allow \"$_a\", want \"$2\""
}
put nodes "GET, HEAD"
put "nodes/$node" "GET, HEAD"
put tenants "GET, HEAD, POST"
put tenants/job1 "GET, HEAD, DELETE"
put tenants/job1/hosts "POST, DELETE"
put discover "POST"
put call "POST"
err 404 '"code":"not-found"' -H "$R" -X PUT -d '{}' "$url/no/such/resource"
loom_ok "HEAD on $n GET resources (pages, 404 and 400 too): GET's status and headers, no body; PUT: 405 with Allow"

# ---- 3c. typed bodies, unknown fields and kinds ---------------------------------------
A="Authorization: Bearer $SEC_ADMIN"
tbody() { printf '{"name": "job37", %s}' "$1"; }
for pair in 'limited|"limited": "true"' 'pkey|"pkey": 70000' 'pkey|"pkey": 4294967587' \
	'pkey|"pkey": "0x1234"' 'pkey|"pkey": 4660.0' 'pkey|"pkey": -1' 'class|"class": 5' \
	'hosts|"hosts": ["h1"]' 'membership|"hosts": "h1", "membership": "full"'; do
	field=${pair%%|*} body=$(tbody "${pair#*|}")
	err 400 '\\"'"$field"'\\"' -H "$A" -H 'Content-Type: application/json' -d "$body" "$url/tenants"
	grep -q '"code":"bad-request"' "$work/err.out" || loom_fail "$body: $(cat "$work/err.out")"
done
loom_ctl tenant show job37 >/dev/null 2>&1 && loom_fail "a wrong-typed body made tenant job37"
err 400 'unknown event kind \\"unknown\\"; the kinds are .*link_down' -H "$R" "$url/events?kind=unknown"
err 400 'unknown event kind \\"nope\\"' -H "$R" "$url/events?kind=link_down,nope"
[ "$(get 'events?kind=qos_applied,link_down')" = 200 ] || loom_fail "events of known kinds: $(cat "$work/get.out")"
loom_ctl events --kind unknown >"$work/ev.out" 2>&1 && loom_fail "loomctl events --kind unknown succeeded"
grep -q 'unknown event kind' "$work/ev.out" || loom_fail "events --kind unknown: $(cat "$work/ev.out")"
# every command: its list from the unknown-command answer
curl -s -H "$A" -d '{"cmd": "nope"}' "$url/call" | python3 -c '
import json, sys
m = json.load(sys.stdin)["error"]["message"]
print("\n".join(c.strip() for c in m.split("commands: ", 1)[1].split(",")))' >"$work/cmds"
[ "$(wc -l <"$work/cmds")" -ge 30 ] || loom_fail "the command list: $(cat "$work/cmds")"
n=0
while read -r cmd; do
	err 400 'unknown argument \\"zz_unknown\\"' -H "$A" \
		-d "{\"cmd\": \"$cmd\", \"args\": {\"zz_unknown\": 1}}" "$url/call"
	n=$((n + 1))
done <"$work/cmds"
loom_ok "wrong-typed tenant bodies and an unknown field: 400 naming it; unknown event kind: 400 naming the kinds; all $n commands refuse an argument they do not take"

# ---- 4. discover: 202 and a job ------------------------------------------------------
c=$(curl -s -D "$work/d.hdr" -o "$work/d.out" -w '%{http_code}' -X POST \
	-H "Authorization: Bearer $SEC_ADMIN" "$url/discover" || :)
[ "$c" = 202 ] || loom_fail "POST discover: HTTP $c: $(cat "$work/d.out")"
job=$(sed -n 's|^Location: /api/v1/\(jobs/[0-9]*\).*|\1|ip' "$work/d.hdr" | tr -d '\r')
[ -n "$job" ] || loom_fail "202 without Location: $(cat "$work/d.hdr")"
loom_until 600 sh -c "[ \"\$(curl -s -H 'Authorization: Bearer $SEC_ADMIN' '$url/$job' | python3 -c 'import json,sys; print(json.load(sys.stdin)[\"state\"])')\" = succeeded ]" ||
	loom_fail "job $job did not succeed: $(cat "$work/get.out")"
get "$job" "$SEC_ADMIN" >/dev/null
python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); assert j["result"]["sweeps"], j' "$work/get.out" ||
	loom_fail "job $job has no sweep result: $(cat "$work/get.out")"
[ "$(get "$job" "$SEC_READ")" = 404 ] || loom_fail "another principal sees the admin's job"
loom_ok "POST discover: 202, Location $job, polled until succeeded with the sweep's result"

# ---- 5. kept answers: one render per data version, ETags, a change shows -------------
# hdr NAME: a header of the last get
hdr() { sed -n "s/^$1: *//ip" "$work/get.hdr" | tr -d '\r' | head -n 1; }
[ "$(get links)" = 200 ] || loom_fail "GET links"
etag=$(hdr ETag)
[ -n "$etag" ] || loom_fail "GET links has no ETag: $(cat "$work/get.hdr")"
cp "$work/get.out" "$work/links.1"
c=$(curl -s -o "$work/304.out" -w '%{http_code}' -H "Authorization: Bearer $SEC_READ" \
	-H "If-None-Match: $etag" "$url/links" || :)
[ "$c" = 304 ] && [ ! -s "$work/304.out" ] || loom_fail "If-None-Match $etag: HTTP $c, $(wc -c <"$work/304.out") bytes"
# many clients at once after a change: every one gets the same answer, made once
# (once the check after the sweep is recorded too: its PKey read ends after
# discover answers, and its record is a new data version)
validated() { grep -c 'validated [0-9]* nodes' "$work/loomd.log" || :; }
v0=$(validated)
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_until 100 sh -c "[ \$(grep -c 'validated [0-9]* nodes' '$work/loomd.log') -gt $v0 ]" ||
	loom_fail "no validation recorded after the sweep"
before=$(grep -c 'http: links rendered at data version' "$work/loomd.log" || :)
seq 40 | xargs -P 40 -I{} curl -s -o "$work/many.{}" -H "Authorization: Bearer $SEC_READ" \
	"$url/links"
for i in $(seq 40); do
	same "$work/many.$i" "$work/links.1" || loom_fail "client $i of 40 got another link list"
done
after=$(grep -c 'http: links rendered at data version' "$work/loomd.log" || :)
[ $((after - before)) -eq 1 ] ||
	loom_fail "40 clients at one data version: $((after - before)) renders of the link list, not 1"
# a cable pulled: the next sweep moves the version, the list and its ETag change
loom_ibsim_cmd 'Unlink "Switch-1"[3]'
loom_ctl discover --wait >/dev/null || loom_fail "discover after the unlink"
[ "$(get links)" = 200 ] || loom_fail "GET links after the unlink"
[ "$(hdr ETag)" != "$etag" ] || loom_fail "the ETag did not change with the fabric"
loom_ctl --json links >"$work/links.ctl"
same "$work/get.out" "$work/links.ctl" || loom_fail "GET links after the unlink is not loomctl's"
! same "$work/get.out" "$work/links.1" || loom_fail "GET links still shows the pulled cable"
c=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $SEC_READ" \
	-H "If-None-Match: $etag" "$url/links" || :)
[ "$c" = 200 ] || loom_fail "the old ETag still gives $c"
loom_ok "kept answers: ETag and 304, 40 clients served by one render, a pulled cable changes both"
