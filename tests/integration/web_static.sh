#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view's static files (daemon/http/web_http.c, issue 20): "/" is
# http.web_root's index.html and "/web/NAME" its files, byte for byte, with
# their content type, nosniff and a Content-Security-Policy of loomd only;
# HEAD answers the headers alone; a matching If-None-Match is 304. Every
# path that could leave the root or reach a hidden file (.., %2e%2e, a
# dot file, an empty segment, a directory), a file over the size cap, and
# every path when web_root is "" are 404; a method other than GET/HEAD is
# 405; a relative web_root is refused by `loomd -n` naming the key.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_work

port=$(loom_free_port)
url="http://127.0.0.1:$port"
code() { curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$@" || :; }

# A web root of its own: the real pages, a dot file, a directory, a
# 9 MB file (over the 8 MB cap) and a file outside the root to aim at.
root="$work/webroot"
mkdir -p "$root/sub"
cp "$S"/web/*.html "$S"/web/*.js "$S/web/loom.css" "$root/"
echo secret >"$root/.hidden"
echo nested >"$root/sub/file.txt"
echo outside >"$work/outside.txt"
dd if=/dev/zero of="$root/big.js" bs=1M count=9 2>/dev/null

printf 'http:\n  web_root: web\n' >"$work/rel.yaml"
"$B/loomd" -n -c "$work/rel.yaml" >"$work/rel.out" 2>&1 && loom_fail "loomd -n took a relative web_root"
grep -q 'rel.yaml:2: http.web_root: "web" is not an absolute path' "$work/rel.out" ||
	loom_fail "no clear error for a relative web_root: $(cat "$work/rel.out")"
loom_ok "a relative web_root is refused naming the key"

loom_config "http:" "  listen: 127.0.0.1:$port" "  web_root: $root"
# No fabric here, so no ibsim, so no umad2sim preload (it would wait for
# the simulator): loomd as loom_loomd starts it otherwise.
"$B/loomd" -f -c "$work/loom.yaml" 2>>"$work/loomd.log" &
LOOMD_PID=$!
LOOM_PIDS="$LOOM_PIDS $LOOMD_PID"
loom_until 100 test -S "$work/loomd.sock" || loom_fail "loomd did not open its socket"
loom_until 50 sh -c "curl -s -o /dev/null $url/healthz" || loom_fail "no HTTP listener"

curl -s -D "$work/h" -o "$work/index" "$url/" || loom_fail "GET /"
cmp -s "$work/index" "$root/index.html" || loom_fail "/ is not index.html"
grep -qi '^content-type: text/html; charset=utf-8' "$work/h" || loom_fail "/: $(cat "$work/h")"
grep -qi '^x-content-type-options: nosniff' "$work/h" || loom_fail "/ without nosniff"
grep -qi "^content-security-policy: default-src 'self'" "$work/h" || loom_fail "/ without a CSP"
for f in loom.js loom.css sub/file.txt; do
	curl -s -D "$work/h" -o "$work/got" "$url/web/$f" || loom_fail "GET /web/$f"
	cmp -s "$work/got" "$root/$f" || loom_fail "/web/$f differs from the file"
done
grep -qi '^content-type: text/plain' "$work/h" || loom_fail "file.txt's type: $(cat "$work/h")"
curl -s -D "$work/h" -o /dev/null "$url/web/loom.js"
grep -qi '^content-type: text/javascript' "$work/h" || loom_fail "loom.js's type: $(cat "$work/h")"
loom_ok "/ and /web/ serve the root's files byte for byte, typed, with nosniff and a CSP"

curl -s -I -o "$work/h" "$url/web/loom.css" || loom_fail "HEAD"
grep -qi "^content-length: $(wc -c <"$root/loom.css" | tr -d ' ')" "$work/h" ||
	loom_fail "HEAD's length: $(cat "$work/h")"
# and nothing after the headers (read to the close: curl -I would not see it)
[ "$(python3 "$S/tests/integration/http_head.py" "$port" /web/loom.css "$work/hh" "$work/hb")" = 200 ] ||
	loom_fail "HEAD /web/loom.css: $(head -n 1 "$work/hh")"
[ ! -s "$work/hb" ] || loom_fail "HEAD /web/loom.css answered a body"
etag=$(sed -n 's/^[Ee][Tt][Aa][Gg]: \(.*\)\r$/\1/p' "$work/h")
[ -n "$etag" ] || loom_fail "no ETag: $(cat "$work/h")"
[ "$(code -H "If-None-Match: $etag" "$url/web/loom.css")" = 304 ] || loom_fail "If-None-Match is not 304"
[ "$(code -H 'If-None-Match: "other"' "$url/web/loom.css")" = 200 ] || loom_fail "another ETag is not 200"
loom_ok "HEAD gives the length and no body, a matching If-None-Match 304"

for p in "/web/../outside.txt" "/web/%2e%2e/outside.txt" "/web/.hidden" "/web/sub/../.hidden" \
	"/web//loom.js" "/web/sub" "/web/sub/" "/web/" "/web/big.js" "/web/nothere.js" \
	"/web/loom.js%00" "/web/l%6fom.js" "/web/sub/./file.txt"; do
	c=$(code --path-as-is "$url$p")
	[ "$c" = 404 ] || loom_fail "$p answered $c, not 404"
done
loom_ok "paths that leave the root, dot files, empty segments, directories, encoded names and a file over 8 MB are 404"

[ "$(code -X POST "$url/")" = 405 ] || loom_fail "POST / is not 405"
[ "$(code -X DELETE "$url/web/loom.js")" = 405 ] || loom_fail "DELETE /web/loom.js is not 405"
loom_ok "methods other than GET and HEAD are 405"

# web_root "" at reload: no web view; /metrics and /healthz stay.
loom_config "http:" "  listen: 127.0.0.1:$port" '  web_root: ""'
kill -HUP "$LOOMD_PID"
loom_until 50 sh -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' $url/)\" = 404 ]" ||
	loom_fail "web_root \"\" still serves /"
[ "$(code "$url/healthz")" = 200 ] || loom_fail "/healthz went with the web view"
loom_ok "web_root \"\" (at reload) serves no web view"
echo "web_static.sh: all ok"
