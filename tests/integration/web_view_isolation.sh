#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view's isolation (issue 42) in Debian's chromium, headless,
# through selenium, against loomd on an ibsim fat tree: a spine cable
# isolated from its port panel (Isolate..., a reason) is in the API with
# the admin token's name and that reason, drawn dashed on the map (the
# legend says why) and listed in the Isolation view; a read token's Restore
# is refused (403) and changes nothing; the admin's Restore in the view puts
# it back (the API and the map have nothing isolated). Screenshots in
# BUILDDIR/tests/artifacts/web_view_isolation/.
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_need curl
loom_browser
loom_work
art="$B/tests/artifacts/web_view_isolation"
rm -rf "$art"
mkdir -p "$art"

"$B/loom-fabgen" fattree --levels 2 --radix 8 --hosts 16 -o "$work/f.net"
loom_ibsim "$work/f.net"
loom_opensm

admin=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
viewer=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "admin:admin:$admin" "viewer:read:$viewer"
port=$(loom_free_port)
url="http://127.0.0.1:$port"
loom_config "isolation:" "  mode: on" "  file: $work/isolated-links" \
	"http:" "  listen: 127.0.0.1:$port" "  tokens_file: $work/tokens" "  web_root: $S/web"
loom_loomd "$work/loom.yaml"
loom_until 50 curl -sf "$url/healthz" || loom_fail "no /healthz on $url"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"  # the panels read them

# leaf-1's port 5 faces a spine (fabgen: its hosts first, then the uplinks).
grep -A6 '"leaf-1"' "$work/f.net" | grep -q '^\[5\] "spine-' ||
	loom_fail "leaf-1 port 5 is not a spine cable in $work/f.net"
$PYSEL "$S/tests/integration/web_view_isolation.py" "$url" "$art" "$admin" "$viewer" leaf-1 5 \
	>"$work/page.out" 2>&1 || loom_fail "the page: $(tail -20 "$work/page.out")"
cat "$work/page.out"
# The changes went through the API as the admin token (the audit log).
grep -q '"link-isolate" run by token admin' "$work/loomd.log" ||
	loom_fail "no audit line of the isolation by token admin"
grep -q '"link-restore" refused to token viewer' "$work/loomd.log" ||
	loom_fail "no audit line of the viewer's refused restore"
echo "web_view_isolation.sh: all ok"
