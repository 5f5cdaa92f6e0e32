#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-only OR Linux-OpenIB
# The web view stays usable on a large fabric (issue 20: "aggregate by
# switch group, don't draw 70k SVG elements"): a 3-level fat tree of 2000
# hosts and 479 switches in headless chromium. Every switch and link is
# counted as `loomctl --json` lists them, but at most 16 boxes a level and
# a bounded number of SVG elements are drawn (hosts counted on their
# switches, groups of switches, links bundled); a screenshot is the
# artifact (BUILDDIR/tests/artifacts/web_view_scale/).
set -eu
. "$(dirname "$0")/lib.sh"
loom_netns "$@"
loom_browser
loom_work
art="$B/tests/artifacts/web_view_scale"
rm -rf "$art"
mkdir -p "$art"

"$B/loom-fabgen" fattree --levels 3 --radix 24 --hosts 2000 -o "$work/big.net"
flags=$(sed -n 's/^# ibsim flags: //p' "$work/big.net")
# shellcheck disable=SC2086
loom_ibsim "$work/big.net" $flags
loom_opensm
token=$(python3 -c 'import secrets; print(secrets.token_hex(16))')
loom_tokens "$work/tokens" "viewer:read:$token"
port=$(loom_free_port)
loom_config "$(loom_subnet_conf big)" "http:" "  listen: 127.0.0.1:$port" \
	"  tokens_file: $work/tokens" "  web_root: $S/web"
loom_loomd "$work/loom.yaml"
loom_ctl discover --wait >/dev/null || loom_fail "discover"
loom_ctl counters --now >/dev/null || loom_fail "counters --now"
count() { loom_ctl --json "$@" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)))'; }
switches=$(count nodes --type switch)
links=$(count links)
# 3 levels of at most 16 boxes, a line for each pair of boxes that has
# links (at most 2 x 16 x 16), each box a group of three elements.
$PYSEL "$S/tests/integration/web_view.py" "http://127.0.0.1:$port" "$art" scale "$token" \
	"$switches" "$links" 800 >"$work/page.out" 2>&1 ||
	loom_fail "the page at scale: $(tail -20 "$work/page.out")"
cat "$work/page.out"
loom_ok "$switches switches and $links links counted, drawn in groups and bundles"
echo "web_view_scale.sh: all ok"
